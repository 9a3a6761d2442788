//! Tests of the checker through source text: one test per rule, asserting
//! the message and the line:column of its primary span, plus the sample
//! programs (which must check cleanly) and the bad-program corpus (each
//! file must get at least one error).
//!
//! Length: one test per rule; a list, not logic.

use super::check;
use crate::diag::{Diagnostic, line_col};
use crate::hir;
use crate::parse::parse;

/// Parses and checks; the parse must succeed.
fn run(src: &str) -> (Option<hir::Program>, Vec<Diagnostic>) {
    let (ast, pdiags) = parse(src);
    let perrs: Vec<_> = pdiags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.clone())
        .collect();
    let head: String = src.chars().take(300).collect();
    assert!(perrs.is_empty(), "parse errors: {perrs:?}\n{head}");
    check(ast)
}

/// The errors as `line:col: message`.
fn errors(src: &str) -> Vec<String> {
    let (_, diags) = run(src);
    diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let (l, c) = line_col(src, d.span.start as usize);
            format!("{l}:{c}: {}", d.message)
        })
        .collect()
}

fn ok(src: &str) -> hir::Program {
    let (prog, diags) = run(src);
    let errs: Vec<_> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.clone())
        .collect();
    assert!(errs.is_empty(), "unexpected errors: {errs:#?}\n{src}");
    prog.expect("no errors, so a program")
}

/// Asserts that the first error is exactly `expected` (`line:col: message`).
#[track_caller]
fn err(src: &str, expected: &str) {
    let errs = errors(src);
    assert!(
        !errs.is_empty(),
        "expected `{expected}`, got no error\n{src}"
    );
    assert_eq!(errs[0], expected, "all errors: {errs:#?}");
}

/// Asserts that some error is `expected`.
#[track_caller]
fn has_err(src: &str, expected: &str) {
    let errs = errors(src);
    assert!(
        errs.iter().any(|e| e == expected),
        "expected `{expected}` among {errs:#?}"
    );
}

/// The first diagnostic in full, for help and label checks.
fn first(src: &str) -> Diagnostic {
    let (_, diags) = run(src);
    diags.into_iter().find(|d| d.is_error()).expect("an error")
}

fn main_body(body: &str) -> String {
    format!("int main()\n{{\n    // the test\n{body}\n    return 0;\n}}\n")
}

// ------------------------------------------------------------ node sizes

/// A large program's HIR is in memory whole until lowering frees each
/// body, so large parts of the rarer statements are boxed (`hir::StmtKind`)
/// and the common nodes stay small. These bounds keep it so.
#[test]
fn nodes_stay_small() {
    use std::mem::size_of;
    assert!(
        size_of::<hir::Expr>() <= 88,
        "Expr is {} bytes",
        size_of::<hir::Expr>()
    );
    assert!(
        size_of::<hir::Stmt>() <= 128,
        "Stmt is {} bytes",
        size_of::<hir::Stmt>()
    );
}

// ------------------------------------------------------------ file scope

#[test]
fn missing_main() {
    err(
        "int f() { return 1; }",
        "1:1: the program has no `main` function",
    );
    let help = first("").help.unwrap_or_default();
    assert!(help.starts_with("add `int main() { ... }`"), "{help}");
    assert!(
        help.contains("`parc check` checks a file without one"),
        "{help}"
    );
    // A library needs none.
    let (hir, diags) = crate::check::check_library(crate::parse::parse("int f() { return 1; }").0);
    assert!(hir.is_some() && diags.is_empty(), "{diags:?}");
}

#[test]
fn main_signatures() {
    ok("int main() { return 0; }");
    ok("int main(void) { return 0; }");
    ok("int main(int argc, char **argv) { return argc; }");
    ok("int main(int argc, char *argv[]) { return argc; }");
    err("void main() { }", "1:6: invalid signature for `main`");
    err(
        "int main(int n) { return n; }",
        "1:5: invalid signature for `main`",
    );
}

#[test]
fn duplicate_definition() {
    let src =
        "int f(int a) { return a; }\nint f(int a) { return a + 1; }\nint main() { return f(1); }";
    err(src, "2:5: redefinition of `f`");
    let d = first(src);
    assert_eq!(d.secondary[0].1, "first defined here");
}

#[test]
fn conflicting_prototype() {
    err(
        "int f(int a);\ndouble f(double a) { return a; }\nint main() { return 0; }",
        "2:8: conflicting types for `f`",
    );
    ok("int f(int);\nint main() { return f(2); }\nint f(int a) { return a; }");
}

#[test]
fn call_before_declaration() {
    let src = "int main() { return g(); }\nint g() { return 1; }";
    err(src, "1:21: call to undeclared function `g`");
    assert_eq!(first(src).secondary[0].1, "declared here, after this call");
}

#[test]
fn unknown_function_suggests() {
    let src = &main_body("    double x = sqr(2.0);");
    err(src, "4:16: call to undeclared function `sqr`");
    assert_eq!(first(src).help.as_deref(), Some("did you mean `sqrt`?"));
}

#[test]
fn global_redefinition() {
    err(
        "int g = 1;\nint g = 2;\nint main() { return g; }",
        "2:5: redefinition of `g`",
    );
    ok("int g;\nint g = 2;\nint main() { return g; }");
    err(
        "int g;\ndouble g;\nint main() { return 0; }",
        "2:8: conflicting types for `g`: `double` here, `int` before",
    );
}

#[test]
fn builtin_prototypes() {
    ok(
        "extern double sqrt(double x);\nextern int abs(int);\nint main() { return abs(-1) + (int)sqrt(4.0); }",
    );
    err(
        "double sqrt(int x);\nint main() { return 0; }",
        "1:1: conflicting types for builtin `sqrt`",
    );
    err(
        "double sqrt(double x) { return x; }\nint main() { return 0; }",
        "1:8: redefinition of builtin `sqrt`",
    );
}

// ---------------------------------------------------------------- scopes

#[test]
fn undeclared_identifier_suggests() {
    let src = &main_body("    int total = 0;\n    totl = 1;");
    err(src, "5:5: use of undeclared identifier `totl`");
    assert_eq!(first(src).help.as_deref(), Some("did you mean `total`?"));
}

#[test]
fn redefinition_in_same_scope() {
    err(
        &main_body("    int x = 1;\n    double x = 2.0;"),
        "5:12: redefinition of `x`",
    );
    ok(&main_body(
        "    int x = 1;\n    { double x = 2.0; x = x + 1; }\n    x = 2;",
    ));
    err(
        "int f(int a, int a) { return a; }\nint main() { return 0; }",
        "1:18: redefinition of `a`",
    );
    err(
        "int f(int a) { int a = 2; return a; }\nint main() { return 0; }",
        "1:20: redefinition of `a`",
    );
}

#[test]
fn shadowing_resolves_innermost() {
    let p = ok("int x = 1;\nint main() { double x = 2.0; { int x = 3; } return (int)x; }");
    let main = &p.funcs[0];
    assert_eq!(main.locals.len(), 2);
    assert_eq!(main.locals[0].ty, hir::CType::Double);
}

// ----------------------------------------------------------------- types

#[test]
fn struct_layout() {
    let p = ok(
        "struct S { char c; double d; int i; };\nstruct T { char a; struct S s; char b[3]; };\nint main() { return 0; }",
    );
    let s = &p.structs[0];
    assert_eq!((s.size, s.align), (24, 8));
    assert_eq!(
        s.fields.iter().map(|f| f.offset).collect::<Vec<_>>(),
        vec![0, 8, 16]
    );
    let t = &p.structs[1];
    assert_eq!((t.size, t.align), (40, 8));
    assert_eq!(
        t.fields.iter().map(|f| f.offset).collect::<Vec<_>>(),
        vec![0, 8, 32]
    );
}

#[test]
fn self_referential_and_forward_pointers() {
    ok(
        "struct A { struct B *b; int v; };\nstruct B { struct A *a; };\nstruct C { struct C *next; };\nint main() { return 0; }",
    );
    err(
        "struct A { struct A inner; };\nint main() { return 0; }",
        "1:12: struct `A` cannot contain itself",
    );
}

#[test]
fn unknown_struct_and_field() {
    err(
        &main_body("    struct Missing m;"),
        "4:12: `struct Missing` is not defined",
    );
    let src = "struct P { int x; int y; };\nint main() { struct P p; p.z = 1; return 0; }";
    err(src, "2:28: struct `P` has no field `z`");
    assert_eq!(first(src).help.as_deref(), Some("its fields are `x`, `y`"));
    let src = "struct P { int count; };\nint main() { struct P p; p.cout = 1; return 0; }";
    assert_eq!(first(src).help.as_deref(), Some("did you mean `count`?"));
}

#[test]
fn dot_and_arrow_misuse() {
    let src = "struct P { int x; };\nint main() { struct P p; struct P *q = &p; q.x = 1; p->x = 2; return 0; }";
    let errs = errors(src);
    assert_eq!(
        errs[0],
        "2:44: `.` needs a struct, but this has type `struct P*`"
    );
    assert_eq!(
        errs[1],
        "2:53: `->` needs a pointer to a struct, but this has type `struct P`"
    );
    assert_eq!(
        first(src).help.as_deref(),
        Some("use `->` to access a field through a pointer: `->x`")
    );
    err(
        &main_body("    int n = 3;\n    n.x = 1;"),
        "5:5: `.` needs a struct, but this has type `int`",
    );
}

#[test]
fn array_sizes() {
    err(
        &main_body("    int a[-4];"),
        "4:11: array `a` must have a positive size, not -4",
    );
    ok(&main_body(
        "    int n = 3;\n    int a[n];\n    a[0] = (int)sizeof a;",
    ));
    err(
        &main_body("    int n = 3;\n    int a[n] = {1};"),
        "5:16: variable-length array `a` cannot have an initializer",
    );
    err(
        "int n = 3;\nint g[n];\nint main() { return 0; }",
        "2:7: the size of array `g` is not a constant",
    );
    ok("const int N = 4;\nint g[N * 2];\nint main() { int a[2 + 3 * N]; return a[0] + g[0]; }");
    let p = ok(&main_body(
        "    int a[1 << 3];\n    char s[] = \"abc\";\n    long l[] = {1, 2};",
    ));
    let tys: Vec<_> = p.funcs[0].locals.iter().map(|l| l.ty.clone()).collect();
    use hir::CType::*;
    assert_eq!(
        tys,
        vec![
            Array(Box::new(Int), 8),
            Array(Box::new(Char), 4),
            Array(Box::new(Long), 2)
        ]
    );
}

#[test]
fn integer_literals() {
    err(
        &main_body("    long x = 99999999999999999999999;"),
        "4:14: integer literal is too large",
    );
    let p = ok(
        "long a = 2147483648;\nunsigned b = 4000000000U;\nlong c = 1L;\nunsigned long d = 18446744073709551615UL;\nint main() { return 0; }",
    );
    let tys: Vec<_> = p.globals.iter().map(|g| g.init.clone()).collect();
    assert!(matches!(tys[0], Some(hir::ConstInit::Int(2147483648))));
    assert!(matches!(tys[3], Some(hir::ConstInit::Int(-1))));
}

// ----------------------------------------------------------- expressions

#[test]
fn pointer_arithmetic() {
    err(
        &main_body("    int a[4];\n    int *p = &a[0];\n    int *q = p + p;"),
        "6:14: cannot add two pointers",
    );
    ok(&main_body(
        "    int a[4];\n    int *p = a + 1;\n    long d = p - a;\n    p = 2 + p;\n    p -= 1;\n    p++;",
    ));
    err(
        &main_body("    int a[4];\n    double b[4];\n    long d = a - b;"),
        "6:14: cannot subtract pointers of different types `int*` and `double*`",
    );
    err(
        &main_body("    void *v = malloc(4);\n    v = v + 1;"),
        "5:9: arithmetic on a `void*` pointer",
    );
}

#[test]
fn deref_and_address() {
    err(
        &main_body("    int x = 5;\n    int y = *x;"),
        "5:13: cannot dereference a value of type `int`",
    );
    err(
        &main_body("    int a = 1;\n    int *p = &(a + 1);"),
        "5:14: cannot take the address of an rvalue",
    );
    err(
        &main_body("    int a = 1;\n    a + 1 = 2;"),
        "5:5: expression is not assignable",
    );
    err(
        &main_body("    void *v = malloc(4);\n    int x = *v;"),
        "5:13: cannot dereference a `void*`",
    );
}

#[test]
fn assignment_constraints() {
    let src = &main_body("    int x = 0;\n    int *p = &x;\n    x = p;");
    err(
        src,
        "6:9: cannot assign a value of type `int*` to an object of type `int`",
    );
    assert_eq!(
        first(src).help.as_deref(),
        Some("add a cast if this is intended: `(int)`")
    );
    err(
        &main_body("    int x = \"str\";"),
        "4:13: cannot initialize `x` of type `int` with a value of type `char*`",
    );
    err(
        &main_body("    double d = 0.0;\n    int *p = &d;"),
        "5:14: cannot initialize `p` of type `int*` with a value of type `double*`",
    );
    ok(&main_body(
        "    int *p = NULL;\n    int *q = 0;\n    void *v = p;\n    q = v;\n    bool b = p;\n    double d = 'a';",
    ));
    err(
        "struct P { int x; };\nint main() { struct P p; int n = 0; n = p; return 0; }",
        "2:41: cannot assign a value of type `struct P` to an object of type `int`",
    );
}

#[test]
fn const_variables() {
    err(
        "const int N = 10;\nint main() { N = 3; return 0; }",
        "2:14: cannot assign to `N`: it is declared `const`",
    );
    err(
        &main_body("    const int k = 1;\n    k++;"),
        "5:5: cannot assign to `k`: it is declared `const`",
    );
    err(
        "const int t[2] = {1, 2};\nint main() { t[0] = 3; return 0; }",
        "2:14: cannot assign to `t`: it is declared `const`",
    );
    ok(&main_body("    const char *s = \"a\";\n    s = \"b\";"));
    err(
        "int f(const int n) { n = 1; return n; }\nint main() { return 0; }",
        "1:22: cannot assign to `n`: it is declared `const`",
    );
}

#[test]
fn arrays_are_not_assignable() {
    err(
        &main_body("    int a[2];\n    int b[2];\n    a = b;"),
        "6:5: an array (`int[2]`) is not assignable",
    );
}

#[test]
fn operators_on_wrong_types() {
    err(
        &main_body("    double d = 1.0;\n    int x = d % 2;"),
        "5:13: invalid operands to `%`: `double` and `int`",
    );
    err(
        &main_body("    double d = 1.0;\n    d = ~d;"),
        "5:9: `~` needs an integer operand, but this has type `double`",
    );
    err(
        "struct S { int x; };\nint main() { struct S s; if (s) return 1; return 0; }",
        "2:30: condition has type `struct S`, which is not a number or a pointer",
    );
    err(
        &main_body("    int x = 1;\n    int *p = &x;\n    if (p == 1) x = 2;"),
        "6:9: cannot compare `int*` with `int`",
    );
}

#[test]
fn conversions_are_explicit() {
    let p = ok("double f(int i, float g) { return i + g; }\nint main() { return 0; }");
    let Some(body) = &p.funcs[0].body else {
        panic!("a body")
    };
    let hir::StmtKind::Return(Some(e)) = &body[0].kind else {
        panic!("a return")
    };
    // (double)((float)i + g)
    assert_eq!(e.ty, hir::CType::Double);
    let hir::ExprKind::Convert(sum) = &e.kind else {
        panic!("a conversion to double")
    };
    assert_eq!(sum.ty, hir::CType::Float);
    let hir::ExprKind::Binary(hir::BinaryOp::Add, l, _) = &sum.kind else {
        panic!("an add")
    };
    assert!(matches!(l.kind, hir::ExprKind::Convert(_)) && l.ty == hir::CType::Float);
}

#[test]
fn constants_are_folded() {
    let p = ok(
        "long x = sizeof(int) * 3 + (1 << 4);\nint y = -17;\ndouble r = 1.0 / 8;\nint main() { return 0; }",
    );
    assert!(matches!(p.globals[0].init, Some(hir::ConstInit::Int(28))));
    assert!(matches!(p.globals[1].init, Some(hir::ConstInit::Int(-17))));
    assert!(matches!(p.globals[2].init, Some(hir::ConstInit::Float(f)) if f == 0.125));
    err(
        "int n;\nint m = n + 1;\nint main() { return 0; }",
        "2:9: the initializer of global `m` is not a constant",
    );
}

#[test]
fn casts() {
    ok(&main_body(
        "    double d = 3.5;\n    int i = (int)d;\n    long *p = (long *)malloc(8);\n    long a = (long)p;\n    (void)a;",
    ));
    err(
        "struct S { int x; };\nint main() { struct S s; int i = (int)s; return i; }",
        "2:34: cannot cast `struct S` to `int`",
    );
    err(
        &main_body("    double d = 1.0;\n    int *p = (int *)d;"),
        "5:14: cannot cast `double` to `int*`",
    );
}

#[test]
fn sizeof_is_long() {
    let p =
        ok("struct V { double x; int n; };\nlong a = sizeof(struct V);\nint main() { return 0; }");
    assert!(matches!(p.globals[0].init, Some(hir::ConstInit::Int(16))));
}

#[test]
fn call_argument_count() {
    let src = "int f(int a, int b) { return a + b; }\nint main() { return f(1, 2, 3); }";
    err(src, "2:29: function `f` takes 2 arguments but 3 were given");
    assert_eq!(first(src).secondary[0].1, "declared here");
    err(
        "int f(int a) { return a; }\nint main() { return f(); }",
        "2:21: function `f` takes 1 argument but 0 were given",
    );
    err(
        &main_body("    double x = sqrt(1.0, 2.0);"),
        "4:26: `sqrt` takes 1 argument but 2 were given",
    );
}

#[test]
fn call_argument_types() {
    err(
        "struct V { double x; };\ndouble f(double d) { return d; }\nint main() { struct V v; f(v); return 0; }",
        "3:28: argument 1 of `f` has type `struct V`, but the parameter has type `double`",
    );
    err(
        &main_body("    int x = 3;\n    return x(2);"),
        "5:12: called object `x` is not a function",
    );
}

#[test]
fn returns() {
    err(
        "void f() { return 1; }\nint main() { return 0; }",
        "1:19: void function `f` should not return a value",
    );
    err(
        "int f(int a) { if (a) return; return 1; }\nint main() { return 0; }",
        "1:23: non-void function `f` should return a value",
    );
    err(
        "int *f(int *p) { return 1.5; }\nint main() { return 0; }",
        "1:25: `f` returns `int*`, but this value has type `double`",
    );
}

#[test]
fn loops_and_jumps() {
    err(
        &main_body("    break;"),
        "4:5: `break` outside of a loop or `switch`",
    );
    err(
        &main_body("    continue;"),
        "4:5: `continue` outside of a loop",
    );
    ok(&main_body(
        "    for (;;) { if (1) break; else continue; }\n    do { break; } while (1);\n    while (1) break;",
    ));
}

#[test]
fn initializers() {
    ok(
        "struct V { double x; double y; };\nstruct S { struct V a; struct V b; int t; };\nstruct S s = {{1, 2}, {3, 4}, 5};\nstruct S e = {1, 2, 3, 4, 5};\nint a[3] = {1};\nchar w[] = \"init\";\nint main() { struct V p[2] = {{1, 2}, {3, 4}}; char n[8] = \"abc\"; int x = {4}; return 0; }",
    );
    err(
        &main_body("    int a[2] = {1, 2, 3};"),
        "4:23: too many initializers for `int[2]`",
    );
    err(
        &main_body("    char s[2] = \"abc\";"),
        "4:17: this string (3 characters) is too long for `char[2]`",
    );
    err(
        &main_body("    int a[];"),
        "4:9: array `a` needs an explicit size or an initializer list",
    );
}

#[test]
fn printf_formats() {
    ok(&main_body(
        "    float f = 1.0f;\n    char c = 'a';\n    long l = 1;\n    printf(\"%d %5.2f %c %ld %s %u %x %% %e %g %p\\n\", 1, f, c, l, \"s\", 3U, 255, 1.0, 2.0, &l);",
    ));
    let src = &main_body("    printf(\"%d\\n\", 1.5);");
    err(
        src,
        "4:20: format `%d` expects an `int` argument, but argument 2 has type `double`",
    );
    assert_eq!(
        first(src).help.as_deref(),
        Some("use `%f` for `double`, or convert the argument with a cast")
    );
    err(
        &main_body("    printf(\"%s\\n\", 42);"),
        "4:20: format `%s` expects a `char*` string argument, but argument 2 has type `int`",
    );
    err(
        &main_body("    int a = 1;\n    printf(\"%d %d %f\\n\", a);"),
        "5:5: format `%d` has no matching argument",
    );
    err(
        &main_body("    printf(\"%d\\n\", 1, 2);"),
        "4:23: too many arguments for the format: it uses 1, but 2 were given",
    );
    err(
        &main_body("    printf(\"%q\\n\", 1);"),
        "4:12: unknown conversion `%q` in the format string",
    );
    err(
        &main_body("    printf(\"100%\");"),
        "4:12: the format string ends in the middle of a conversion",
    );
    err(
        &main_body("    printf(\"%d\\n\", 1L);"),
        "4:20: format `%d` expects an `int` argument, but argument 2 has type `long`",
    );
}

#[test]
fn printf_promotes_variadic_arguments() {
    let p = ok(&main_body(
        "    float f = 1.0f;\n    char c = 'a';\n    printf(\"%f %d\", f, c);",
    ));
    let Some(body) = &p.funcs[0].body else {
        panic!()
    };
    let hir::StmtKind::Expr(e) = &body[2].kind else {
        panic!("printf statement")
    };
    let hir::ExprKind::Builtin { args, .. } = &e.kind else {
        panic!("a builtin")
    };
    assert_eq!(args[1].ty, hir::CType::Double);
    assert_eq!(args[2].ty, hir::CType::Int);
}

// ------------------------------------------------------------ parallelism

#[test]
fn spawn_rules() {
    let f = "int f(int n) { return n; }\nint g;\n";
    err(
        &format!("{f}int main() {{ int a = 1; spawn a + 1; return 0; }}"),
        "3:31: only function calls can be spawned",
    );
    err(
        &format!("{f}int main() {{ int x = 3; spawn x; return 0; }}"),
        "3:31: only function calls can be spawned",
    );
    err(
        &format!("{f}int main() {{ g = spawn f(1); sync; return 0; }}"),
        "3:14: the target of `= spawn` must be a local variable; `g` is a global",
    );
    err(
        &format!("{f}int main() {{ int a[2]; a[0] = spawn f(1); sync; return 0; }}"),
        "3:24: the target of `= spawn` must be a local variable",
    );
    err(
        &format!("{f}int main() {{ double s = 0; s = spawn sqrt(2.0); sync; return 0; }}"),
        "3:38: only user functions can be spawned; `sqrt` is a builtin",
    );
    let p = ok(&format!(
        "{f}int main() {{ long x = 0; x = spawn f(2); spawn f(3); sync; return (int)x; }}"
    ));
    let Some(body) = &p.funcs[1].body else {
        panic!()
    };
    let hir::StmtKind::Spawn {
        dest: Some(d),
        call,
    } = &body[1].kind
    else {
        panic!("a spawn")
    };
    assert_eq!(call.ty, hir::CType::Int);
    assert!(p.funcs[1].locals[d.0 as usize].address_taken);
}

#[test]
fn parallel_for_canonical_form() {
    let head = "int main() {\n    int a[10];\n    int n = 10;\n";
    let ok_src = format!(
        "{head}    parallel_for (int i = 0; i < n; i++) a[i] = i;\n    parallel_for (long i = 0; i <= 9; i += 2) a[i] = 1;\n    parallel_for (unsigned i = 0; i < 10; i = i + n) a[i] = 2;\n    parallel_for (int i = 0; n > i; ++i) {{ if (a[i]) continue; a[i] = 3; }}\n    return 0;\n}}"
    );
    let p = ok(&ok_src);
    let Some(body) = &p.funcs[0].body else {
        panic!()
    };
    assert!(matches!(
        &body[2].kind,
        hir::StmtKind::ParallelFor {
            inclusive: false,
            ..
        }
    ));
    assert!(matches!(
        &body[3].kind,
        hir::StmtKind::ParallelFor {
            inclusive: true,
            ..
        }
    ));
    err(
        &format!("{head}    parallel_for (int i = 0; i != 10; i++) a[i] = 0;\n    return 0;\n}}"),
        "4:30: parallel_for condition must be `i < end` or `i <= end`",
    );
    err(
        &format!("{head}    parallel_for (int i = 0; i < i + 2; i++) a[i] = 0;\n    return 0;\n}}"),
        "4:34: parallel_for condition must be `i < end` or `i <= end`",
    );
    err(
        &format!("{head}    parallel_for (int i = 9; i < 10; i--) a[i] = 0;\n    return 0;\n}}"),
        "4:38: parallel_for must count upwards",
    );
    has_err(
        &format!("{head}    parallel_for (int i = 9; i >= 0; i--) a[i] = 0;\n    return 0;\n}}"),
        "4:38: parallel_for must count upwards",
    );
    err(
        &format!(
            "{head}    parallel_for (int i = 0; i < 10; i += -2) a[i] = 0;\n    return 0;\n}}"
        ),
        "4:38: parallel_for must count upwards",
    );
    err(
        &format!(
            "{head}    int i = 0;\n    parallel_for (i = 0; i < 10; i++) a[i] = 0;\n    return 0;\n}}"
        ),
        "5:19: parallel_for must declare its index variable",
    );
}

#[test]
fn parallel_for_body_rules() {
    let src = "int main() {\n    int a[10];\n    parallel_for (int i = 0; i < 10; i++) {\n        if (a[i]) break;\n    }\n    return 0;\n}";
    err(src, "4:19: `break` cannot leave a parallel_for body");
    assert_eq!(
        first(src).help.as_deref(),
        Some("iterations run in parallel; use a flag and `continue`")
    );
    ok(
        "int main() {\n    int a[10];\n    parallel_for (int i = 0; i < 10; i++) {\n        for (int j = 0; j < 3; j++) { if (j) break; }\n        a[i] = 1;\n    }\n    return 0;\n}",
    );
    err(
        "int f(int *a) {\n    parallel_for (int i = 0; i < 10; i++)\n        if (a[i]) return i;\n    return -1;\n}\nint main() { return 0; }",
        "3:19: `return` cannot leave a parallel_for body",
    );
}

#[test]
fn determinacy_races() {
    let src = "int main() {\n    int a[10];\n    int sum = 0;\n    parallel_for (int i = 0; i < 10; i++)\n        sum += a[i];\n    return sum;\n}";
    err(
        src,
        "5:9: determinacy race: `sum` is declared outside this parallel_for and assigned in its body",
    );
    let d = first(src);
    assert_eq!(d.secondary[0].1, "declared here");
    assert_eq!(
        d.help.as_deref(),
        Some(
            "write to a per-iteration location such as `a[i]`, or make it a reduction: \
             `parallel_reduce(+: sum) (...)` (OpenMP: `reduction(+: sum)`)"
        )
    );
    err(
        "int count;\nint main() {\n    parallel_for (int i = 0; i < 10; i++)\n        count++;\n    return 0;\n}",
        "4:9: determinacy race: `count` is declared outside this parallel_for and assigned in its body",
    );
    err(
        "int main() {\n    parallel_for (int i = 0; i < 10; i++)\n        i = 3;\n    return 0;\n}",
        "3:9: the index `i` of a parallel_for is assigned in its body",
    );
    err(
        "int f(int n) { return n; }\nint main() {\n    int x = 0;\n    parallel_for (int i = 0; i < 10; i++)\n        x = spawn f(i);\n    return 0;\n}",
        "5:9: determinacy race: `x` is declared outside this parallel_for and assigned in its body",
    );
    // Locals of the body, elements and pointer targets are fine; so are
    // nested loops' own variables.
    ok(
        "int main() {\n    int a[10];\n    int *p = a;\n    parallel_for (int i = 0; i < 10; i++) {\n        int t = i;\n        t += 1;\n        a[i] = t;\n        p[i] = t;\n        for (int j = 0; j < 2; j++) t++;\n        parallel_for (int j = 0; j < 2; j++) { int u = j; u++; }\n    }\n    return 0;\n}",
    );
    err(
        "int main() {\n    parallel_for (int i = 0; i < 10; i++) {\n        int s = 0;\n        parallel_for (int j = 0; j < 2; j++) s += j;\n    }\n    return 0;\n}",
        "4:46: determinacy race: `s` is declared outside this parallel_for and assigned in its body",
    );
}

// -------------------------------------------------------------------- GPU

const KERNEL: &str =
    "__global__ void k(int *a) { a[threadIdx.x] = blockIdx.y + blockDim.z + gridDim.x; }\n";

#[test]
fn kernels_and_launches() {
    ok(&format!(
        "{KERNEL}int main() {{ int *d; cudaMalloc(&d, 64); k<<<2, 32>>>(d); k<<<dim3(2, 2), dim3(4, 4, 1)>>>(d); dim3 g(4, 2); dim3 b = dim3(8); k<<<g, b>>>(d); unsigned x = g.x + b.z; cudaDeviceSynchronize(); cudaFree(d); return (int)x; }}"
    ));
    err(
        "__global__ int k(int *a) { return 0; }\nint main() { return 0; }",
        "1:1: kernels must return `void`",
    );
    err(
        &format!("{KERNEL}int main() {{ int *d = 0; k(d); return 0; }}"),
        "2:26: kernels are launched with `<<<grid, block>>>`",
    );
    err(
        "void plain(int *a) { a[0] = 1; }\nint main() { int *d = 0; plain<<<1, 1>>>(d); return 0; }",
        "2:26: `plain` is not a kernel; declare it `__global__`",
    );
    err(
        &format!("{KERNEL}int main() {{ int *d = 0; k<<<1.5, 1>>>(d); return 0; }}"),
        "2:30: a launch configuration must be an integer or a `dim3`, but this has type `double`",
    );
}

#[test]
fn gpu_builtins_only_in_gpu_code() {
    err(
        &main_body("    int i = threadIdx.x;"),
        "4:13: `threadIdx` is only available in kernels and `__device__` functions",
    );
    err(
        "void h(int *a) { a[0] = 1; __syncthreads(); }\nint main() { return 0; }",
        "1:28: `__syncthreads` is only available in kernels and `__device__` functions",
    );
    err(
        &main_body("    __shared__ int tile[64];"),
        "4:5: `__shared__` variables can only be declared in kernels and `__device__` functions",
    );
    err(
        "__global__ void k(int *a) { a[0] = threadIdx.w; }\nint main() { return 0; }",
        "1:46: `threadIdx` has no field `w`",
    );
    err(
        "__global__ void k(int *a) { __shared__ int t[4] = {1}; a[0] = t[0]; }\nint main() { return 0; }",
        "1:51: `__shared__` variables cannot have an initializer",
    );
    err(
        "__global__ void k(int *a) { int *d; cudaMalloc(&d, 4); }\nint main() { return 0; }",
        "1:37: `cudaMalloc` can only be called from host code",
    );
}

#[test]
fn dim3_defaults_to_ones() {
    let p = ok("dim3 g;\nint main() { dim3 b; b.x = 4; return 0; }");
    let Some(hir::ConstInit::List(v)) = &p.globals[0].init else {
        panic!("a dim3 initializer")
    };
    assert!(v.iter().all(|c| matches!(c, (_, hir::ConstInit::Int(1)))));
    let Some(body) = &p.funcs[0].body else {
        panic!()
    };
    assert!(
        matches!(&body[0].kind, hir::StmtKind::Decl(_, Some(hir::Init::Expr(e))) if matches!(e.kind, hir::ExprKind::Dim3(..)))
    );
}

#[test]
fn shared_arrays_are_hoisted() {
    let p = ok(
        "__global__ void k(int *a) { __shared__ int tile[16]; tile[threadIdx.x] = 1; __syncthreads(); a[0] = tile[0]; }\nint main() { return 0; }",
    );
    assert_eq!(p.globals[0].name, "k.tile");
    assert!(p.globals[0].is_shared);
}

#[test]
fn no_fork_join_on_the_gpu() {
    err(
        "int f(int n) { return n; }\n__global__ void k(int *a) { spawn f(1); }\nint main() { return 0; }",
        "2:29: kernels cannot use fork-join parallelism",
    );
    err(
        "__device__ void d(int *a) { parallel_for (int i = 0; i < 4; i++) a[i] = i; }\nint main() { return 0; }",
        "1:29: `__device__` functions cannot use fork-join parallelism",
    );
    err(
        "__global__ void k(int *a) { a[0] = h(1); }\nint main() { return 0; }\nint h(int n) { return n; }",
        "1:36: call to undeclared function `h`",
    );
    err(
        "int h(int n);\n__global__ void k(int *a) { a[0] = h(1); }\nint main() { return 0; }\nint h(int n) { int x = 0; x = spawn h(n - 1); sync; return x; }",
        "2:36: `h` uses fork-join parallelism and cannot be called from GPU code",
    );
}

#[test]
fn atomics_and_memcpy() {
    ok(&format!(
        "{KERNEL}__global__ void s(double *t, float *f, int *c) {{ atomicAdd(t, 1.0); atomicAdd(f, 2); int old = atomicAdd(c, 1); c[1] = old; }}\nint main() {{ int *d; int h[4]; cudaMalloc(&d, 16); cudaMemcpy(d, h, 16, cudaMemcpyHostToDevice); cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost); return 0; }}"
    ));
    err(
        &main_body("    char c = 0;\n    atomicAdd(&c, 1);"),
        "5:15: `atomicAdd` needs a pointer to a number, but this has type `char*`",
    );
    err(
        &main_body("    int *d; int h[4];\n    cudaMemcpy(d, h, 16, 3);"),
        "5:26: the last argument of `cudaMemcpy` must name the direction of the copy",
    );
    err(
        &main_body("    int d = 0;\n    cudaMalloc(&d, 16);"),
        "5:16: the first argument of `cudaMalloc` must be the address of a pointer",
    );
}

// ----------------------------------------------------------------- Enzyme

const AD: &str = "double sq(double x) { return x * x; }\ndouble poly(double x, double y) { return x * y; }\ndouble sum(double *a, int n) { return a[0] * n; }\n";

fn ad_err(call: &str) -> Vec<String> {
    errors(&format!(
        "{AD}int main() {{ double a[2]; double da[2];\n    {call};\n    return 0; }}"
    ))
}

#[test]
fn autodiff_valid_calls_become_autodiff_nodes() {
    use hir::Activity::*;
    for (call, ty, acts) in [
        (
            "double d = __enzyme_autodiff(sq, 3.0)",
            hir::CType::Double,
            vec![Active],
        ),
        (
            "double d = __enzyme_autodiff(poly, enzyme_const, 2.0, 5.0)",
            hir::CType::Double,
            vec![Const, Active],
        ),
        (
            "__enzyme_autodiff(sum, a, da, 2)",
            hir::CType::Void,
            vec![Dup, Const],
        ),
        (
            "__enzyme_autodiff((void*)sum, enzyme_dup, a, da, enzyme_const, 2)",
            hir::CType::Void,
            vec![Dup, Const],
        ),
        (
            "__enzyme_autodiff(sum, enzyme_dupnoneed, a, da, 2)",
            hir::CType::Void,
            vec![DupNoNeed, Const],
        ),
        (
            "double d = __enzyme_autodiff(poly, enzyme_out, 2.0, enzyme_const, 5.0)",
            hir::CType::Double,
            vec![Active, Const],
        ),
    ] {
        let p = ok(&format!(
            "{AD}int main() {{ double a[2]; double da[2];\n    {call};\n    return 0; }}"
        ));
        let main = p.funcs.iter().find(|f| f.name == "main").unwrap();
        let mut found = None;
        for s in main.body.as_ref().unwrap() {
            let e = match &s.kind {
                hir::StmtKind::Expr(e) => e,
                hir::StmtKind::Decl(_, Some(hir::Init::Expr(e))) => e,
                _ => continue,
            };
            if let hir::ExprKind::Autodiff { args, .. } = &e.kind {
                found = Some((e.ty.clone(), args.clone()));
            }
        }
        let (t, args) = found.unwrap_or_else(|| panic!("no Autodiff node for {call}"));
        assert_eq!(t, ty, "{call}");
        let got: Vec<_> = args.iter().map(|a| a.activity).collect();
        assert_eq!(got, acts, "{call}");
        for a in &args {
            assert_eq!(
                a.shadow.is_some(),
                matches!(a.activity, Dup | DupNoNeed),
                "{call}"
            );
        }
    }
}

#[test]
fn autodiff_rules() {
    // Several active scalars, a struct result, a kernel: not the
    // checker's (see `parc_ir::gradient::refusal`).
    assert_eq!(
        ad_err("double d = __enzyme_autodiff(poly, 2.0, 5.0)"),
        Vec::<String>::new()
    );
    assert_eq!(
        ad_err("__enzyme_autodiff(sum, a, 2)"),
        vec![
            "5:28: pointer argument `a` of `sum` needs a shadow: pass its gradient buffer next, or mark it `enzyme_const`"
        ]
    );
    assert_eq!(
        ad_err("double x = 2.0; double d = __enzyme_autodiff(x, 3.0)"),
        vec!["5:50: `x` is a variable, not a function"]
    );
    assert_eq!(
        ad_err("__enzyme_autodiff(sq)"),
        vec!["5:5: `__enzyme_autodiff` of `sq` is missing an argument for parameter `x`"]
    );
    assert_eq!(
        ad_err("__enzyme_autodiff(sq, 1.0, 2.0)"),
        vec!["5:32: too many arguments in `__enzyme_autodiff` of `sq`, which has 1 parameter"]
    );
    assert_eq!(
        ad_err("__enzyme_autodiff(sum, enzyme_out, a, 2)"),
        vec![
            "5:40: `enzyme_out` needs a `float` or `double`, but parameter `a` of `sum` has type `double*`"
        ]
    );
    assert_eq!(
        ad_err("__enzyme_autodiff(sq, enzyme_dup, 1.0, 2.0)"),
        vec!["5:39: `enzyme_dup` needs a pointer, but parameter `x` of `sq` has type `double`"]
    );
}

#[test]
fn spawned_results_are_read_after_sync() {
    let f = "int f(int n) { return n; }\n";
    let src = format!(
        "{f}int main() {{\n    int x = 0;\n    x = spawn f(7);\n    int y = x + 1;\n    sync;\n    return y;\n}}"
    );
    err(
        &src,
        "5:13: `x` is used before `sync`: the spawned call may not have finished",
    );
    assert_eq!(
        first(&src).secondary[0].1,
        "this call writes `x` when it finishes"
    );
    ok(&format!(
        "{f}int main() {{\n    int x = 0;\n    int y = 0;\n    x = spawn f(1);\n    y = f(2);\n    sync;\n    return x + y;\n}}"
    ));
    // Either branch may spawn; both join at the sync.
    ok(&format!(
        "{f}int main() {{\n    int x = 0;\n    if (x) x = spawn f(1); else x = f(2);\n    sync;\n    return x;\n}}"
    ));
    err(
        &format!("{f}int main() {{\n    int x = 0;\n    if (x) x = spawn f(1);\n    return x;\n}}"),
        "5:12: `x` is used before `sync`: the spawned call may not have finished",
    );
}

#[test]
fn invariant_writes_in_parallel_for() {
    err(
        "int main() {\n    int a[10];\n    parallel_for (int i = 0; i < 10; i++)\n        a[0] = i;\n    return 0;\n}",
        "4:9: determinacy race: every iteration of this parallel_for writes the same location",
    );
    err(
        "void f(int *out, int n) {\n    parallel_for (int i = 0; i < n; i++)\n        *out = i;\n}\nint main() { return 0; }",
        "3:9: determinacy race: every iteration of this parallel_for writes the same location",
    );
    err(
        "int main() {\n    int a[10];\n    parallel_for (int i = 0; i < 2; i++)\n        parallel_for (int j = 0; j < 5; j++)\n            a[i] = j;\n    return 0;\n}",
        "5:13: determinacy race: every iteration of this parallel_for writes the same location",
    );
    // A conditional write may happen in one iteration only; writes that
    // depend on the index, on body locals or on memory are not flagged.
    ok(
        "int main() {\n    int a[10];\n    int b[10];\n    parallel_for (int i = 0; i < 10; i++) {\n        if (i == 0) a[0] = 1;\n        int k = i % 2;\n        a[k * 5 + i / 2] = 2;\n        b[a[i]] = 3;\n    }\n    parallel_for (int i = 0; i < 2; i++)\n        parallel_for (int j = 0; j < 5; j++)\n            a[i * 5 + j] = j;\n    return 0;\n}",
    );
}

#[test]
fn recursion_and_prototypes() {
    ok(
        "int fact(int n) { return n < 2 ? 1 : n * fact(n - 1); }\nbool odd(int n);\nbool even(int n) { return n == 0 ? true : odd(n - 1); }\nbool odd(int n) { return n == 0 ? false : even(n - 1); }\nint main() { return fact(3) + even(4); }",
    );
}

#[test]
fn enzyme_declarations_are_accepted() {
    let src = "extern double __enzyme_autodiff(void *, ...);\nint enzyme_dup;\nint enzyme_const;\ndouble sq(double x) { return x * x; }\nint main() {\n    double d = __enzyme_autodiff((void *)sq, 2.0);\n    return (int)d;\n}";
    ok(src);
    // Every variadic function is called in parc's convention, so one the
    // program never defines (native C) cannot be called.
    err(
        "int sum(int n, ...);\nint main() { return sum(1, 2.0f, 'c'); }",
        "2:21: variadic function `sum` is not defined in this program: parc passes variadic \
         arguments in its own convention, so it calls only the variadic functions it compiles",
    );
    ok("int sum(int n, ...) { return n; }\nint main() { return sum(1, 2.0, 3); }");
    err(
        "__device__ int sum(int n, ...) { return n; }\nint main() { return 0; }",
        "1:16: `sum` is declared with `...`: GPU functions cannot be variadic",
    );
}

#[test]
fn static_locals_are_hoisted() {
    let p = ok(
        "int next() { static int counter = 5; counter++; return counter; }\nint main() { return next(); }",
    );
    assert_eq!(p.globals[0].name, "next.counter");
    assert!(matches!(p.globals[0].init, Some(hir::ConstInit::Int(5))));
}

#[test]
fn self_reference_in_initializer() {
    ok(&main_body(
        "    float *fp = (float *)malloc(4 * sizeof(*fp));\n    free(fp);",
    ));
}

#[test]
fn more_expression_rules() {
    ok(&main_body(
        "    int a[3];\n    int x = 1[a];\n    int *p = a;\n    x = p[2] + *(p + 1);",
    ));
    err(
        &main_body("    int x = 1;\n    int *p = &x;\n    double d = x ? p : 1.5;"),
        "6:16: the branches of `?:` have incompatible types `int*` and `double`",
    );
    err(
        &main_body("    int x = 1;\n    double d = x[0];"),
        "5:16: subscripted value of type `int` is not an array or a pointer",
    );
    err(
        &main_body("    int a[2];\n    int x = a[1.5];"),
        "5:15: array index has type `double`; it must be an integer",
    );
    err(
        &main_body("    int x = 1;\n    int *p = &x;\n    p->y = 2;"),
        "6:5: `->` needs a pointer to a struct, but this has type `int*`",
    );
    err(
        &main_body("    long s = sizeof(void);"),
        "4:21: the operand of `sizeof` has type `void`",
    );
    err(
        &main_body("    void v;"),
        "4:10: variable `v` has type `void`",
    );
    err(
        "int main() { struct S s; return 0; }\nstruct S { int a; };",
        "1:23: variable `s` has incomplete type `struct S`",
    );
    err(
        "struct S { int a; int a; };\nint main() { return 0; }",
        "1:23: duplicate member `a` in struct `S`",
    );
    err(
        "struct S { int a; };\nstruct S { int b; };\nint main() { return 0; }",
        "2:8: redefinition of struct `S`",
    );
    err("int main();", "1:5: `main` is declared but never defined");
    err(
        &main_body("    int x = 0;\n    x = f;"),
        "5:9: use of undeclared identifier `f`",
    );
    err(
        "int f() { return 1; }\nint main() { int x = f; return x; }",
        "2:22: cannot initialize `x` of type `int` with a value of type `int (*)(void)`",
    );
}

#[test]
fn more_gpu_rules() {
    err(
        &format!(
            "{KERNEL}__global__ void l(int *a) {{ k<<<1, 1>>>(a); }}\nint main() {{ return 0; }}"
        ),
        "2:29: kernels can only be launched from host code",
    );
    err(
        &format!("{KERNEL}int main() {{ int *d = 0; k<<<1, 1>>>(d, d); return 0; }}"),
        "2:41: kernel `k` takes 1 argument but 2 were given",
    );
    err(
        &main_body("    dim3 g = dim3(1, 2, 3, 4);"),
        "4:28: `dim3` takes at most 3 components, but 4 were given",
    );
    err(
        &main_body("    dim3 g = dim3(1.5);"),
        "4:19: `dim3` components must be integers, but this has type `double`",
    );
    err(
        "__global__ void k(int *a) { cudaFree(a); }\nint main() { return 0; }",
        "1:29: `cudaFree` can only be called from host code",
    );
    err(
        "__global__ void k(int *a) { a[0] = threadIdx; }\nint main() { return 0; }",
        "1:36: `threadIdx` must be followed by `.x`, `.y` or `.z`",
    );
    err(
        "__global__ void k(int *a) { threadIdx.x = 1; }\nint main() { return 0; }",
        "1:29: expression is not assignable",
    );
}

#[test]
fn more_printf_rules() {
    ok(&main_body(
        "    char *fmt = \"%d\\n\";\n    printf(fmt, 1.5);\n    printf(\"%*d|%-*.*f\\n\", 5, 1, 8, 2, 3.5);",
    ));
    err(
        &main_body("    printf(\"%*d\\n\", 1.0, 2);"),
        "4:21: a `*` width or precision expects an `int` argument, but argument 2 has type `double`",
    );
    err(
        &main_body("    printf();"),
        "4:5: `printf` needs a format string",
    );
    err(
        "struct S { int a; };\nint main() { struct S s; printf(\"%d\", s); return 0; }",
        "2:39: a value of type `struct S` cannot be printed with `printf`",
    );
}

#[test]
fn more_enzyme_rules() {
    assert_eq!(
        ad_err("double d = __enzyme_autodiff(sqrt, 1.0)"),
        vec!["5:34: builtin `sqrt` cannot be differentiated directly"]
    );
    assert_eq!(
        ad_err("double d = __enzyme_autodiff()"),
        vec!["5:16: `__enzyme_autodiff` needs the function to differentiate as its first argument"]
    );
    assert_eq!(
        ad_err("__enzyme_autodiff(sq, enzyme_const)"),
        vec!["5:27: `enzyme_const` must be followed by an argument"]
    );
    assert_eq!(
        ad_err("__enzyme_autodiff(sq, enzyme_const, enzyme_out, 1.0)"),
        vec!["5:41: expected a value for parameter `x` of `sq`, found `enzyme_out`"]
    );
    // A declared function may be defined in another file of the program:
    // whether its body is there is the driver's question, after linking.
    let errs = errors(
        "double g(double x);\nint main() { double d = __enzyme_autodiff(g, 1.0); return 0; }",
    );
    assert!(errs.is_empty(), "{errs:#?}");
}

// ------------------------------------------------------------ robustness

#[test]
fn error_expressions_do_not_cascade() {
    // One unknown name gives one error per function, however it is used.
    let errs = errors(&main_body(
        "    int x = (y + 1) * 2 - *(&y)[0];\n    double d = sqrt(y) + x;",
    ));
    assert_eq!(errs, vec!["4:14: use of undeclared identifier `y`"]);
}

#[test]
fn deep_trees_do_not_overflow() {
    let n = 9990;
    let src = format!(
        "int main() {{ int x = 0; x = {}0; return x; }}",
        "1 + ".repeat(n)
    );
    ok(&src);
    let src = format!(
        "int main() {{ int x = 0; {} x = 1; return x; }}",
        "if (x) ".repeat(n)
    );
    ok(&src);
}

// ------------------------------------------------------- corpus and samples

fn repo_file(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
}

#[test]
fn restrict_in_array_parameter_brackets_is_restrict() {
    // C99 6.7.5.3p7: `double a[restrict 10]` is `double *restrict a`.
    let p = ok(
        "void f(int n, double a[restrict static 10], const double b[const 10], \
                double *restrict c, double d[static 2]) { n = 1; a = 0; c = 0; d = 0; } \
                int main(void) { return 0; }",
    );
    assert_eq!(p.funcs[0].restrict_params, vec![1, 3]);
    err(
        "void f(const double b[const 10]) { b = 0; }",
        "1:36: cannot assign to `b`: it is declared `const`",
    );
    // A `const` element type does not make the pointer parameter const.
    ok("void f(const double b[10]) { b = 0; } int main(void) { return 0; }");
    err(
        "int main(void) { double x[restrict 3]; return 0; }",
        "1:26: `static` and qualifiers inside `[]` are only allowed in the outermost array of a parameter",
    );
    err(
        "void f(double m[2][static 3]);",
        "1:19: `static` and qualifiers inside `[]` are only allowed in the outermost array of a parameter",
    );
}

fn pc_files(dir: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(repo_file(dir))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "pc"));
    v.sort();
    v
}

#[test]
fn samples_check_cleanly() {
    for path in pc_files("samples") {
        let raw = std::fs::read_to_string(&path).unwrap_or_default();
        // As `parc check` reads it: preprocessed (headers may define
        // functions: <ctype.h>), with the file's flags.
        let flags = raw.lines().find_map(|l| l.strip_prefix("// flags:"));
        let options = crate::pp::Options::from_flags(flags.unwrap_or(""));
        let pre = crate::pp::preprocess(&path.display().to_string(), &raw, &options);
        assert!(
            !pre.diags.iter().any(Diagnostic::is_error),
            "{}: {:?}",
            path.display(),
            pre.diags
        );
        let src = pre.text;
        let (ast, pdiags) = parse(&src);
        if pdiags.iter().any(Diagnostic::is_error) {
            // The parser's own tests cover these.
            continue;
        }
        let (prog, diags) = check(ast);
        let errs: Vec<String> = diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| {
                let (l, c) = line_col(&src, d.span.start as usize);
                format!("{}:{l}:{c}: {}", path.display(), d.message)
            })
            .collect();
        assert!(errs.is_empty(), "{errs:#?}");
        assert!(prog.is_some());
    }
}

#[test]
fn bad_programs_get_errors() {
    for path in pc_files("tests/bad") {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let raw = String::from_utf8_lossy(&bytes);
        if raw.lines().any(|l| l.starts_with("// parc:")) {
            // Bad for another `parc` command (a flag, the build), not for
            // the front end.
            continue;
        }
        // As `parc check` reads it: preprocessed, with the file's flags.
        let options = crate::pp::Options {
            openmp: raw.contains("// flags: -fopenmp"),
            ..crate::pp::Options::default()
        };
        let pre = crate::pp::preprocess(&path.display().to_string(), &raw, &options);
        if pre.diags.iter().any(Diagnostic::is_error) {
            continue;
        }
        let (ast, pdiags) = parse(&pre.text);
        let (prog, diags) = check(ast);
        let n = pdiags.iter().chain(&diags).filter(|d| d.is_error()).count();
        assert!(n > 0, "{} got no error", path.display());
        if !pdiags.iter().any(Diagnostic::is_error) {
            assert!(prog.is_none());
        }
    }
}

/// Mutated samples (bytes deleted, duplicated or swapped) never make the
/// checker panic: every run ends with diagnostics or a program.
#[test]
fn mutated_samples_never_panic() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let rounds: usize = std::env::var("PARC_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    for path in pc_files("samples").into_iter().chain(pc_files("tests/bad")) {
        let src = std::fs::read(&path).unwrap_or_default();
        if src.len() > 20_000 {
            continue;
        }
        for _ in 0..rounds {
            let mut s = src.clone();
            for _ in 0..1 + next(4) {
                if s.is_empty() {
                    break;
                }
                let a = next(s.len());
                let b = (a + 1 + next(12)).min(s.len());
                match next(3) {
                    0 => {
                        s.drain(a..b);
                    }
                    1 => {
                        let chunk: Vec<u8> = s[a..b].to_vec();
                        let at = next(s.len());
                        s.splice(at..at, chunk);
                    }
                    _ => {
                        let c = next(s.len());
                        s.swap(a, c);
                    }
                }
            }
            let text = String::from_utf8_lossy(&s);
            let (ast, _) = parse(&text);
            let (_, diags) = check(ast);
            assert!(
                !diags
                    .iter()
                    .any(|d| d.message.starts_with("internal error")),
                "the checker panicked on a mutation of {}:\n{text}",
                path.display()
            );
        }
    }
}
