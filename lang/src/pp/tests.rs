//! Unit tests of the preprocessor: text in, text and diagnostics out.

use super::*;

fn pp_opts(src: &str, options: &Options) -> (String, Vec<String>) {
    let p = preprocess("t.c", src, options);
    let msgs = p.diags.iter().map(|d| d.message.clone()).collect();
    (p.text, msgs)
}

fn pp(src: &str) -> (String, Vec<String>) {
    pp_opts(src, &Options::default())
}

/// The output's tokens, one space apart (layout aside).
fn toks(src: &str) -> String {
    let (text, msgs) = pp(src);
    assert!(msgs.is_empty(), "{msgs:?}");
    lexer::scan(&text, 0)
        .iter()
        .map(|t| t.text.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn text_without_directives_is_unchanged() {
    let src = "int main() {\n  /* a */ return 0; // b\n}\n";
    assert_eq!(pp(src).0, src);
}

#[test]
fn object_and_function_macros() {
    assert_eq!(toks("#define N 10\nint a[N];"), "int a [ 10 ] ;");
    assert_eq!(
        toks("#define SQ(x) ((x)*(x))\nSQ(a+1)"),
        "( ( a + 1 ) * ( a + 1 ) )"
    );
    assert_eq!(toks("#define F(x) x\nF"), "F");
    assert_eq!(toks("#define F() 1\nF()"), "1");
}

#[test]
fn stringize_and_paste() {
    assert_eq!(toks("#define S(x) #x\nS(a  +  \"b\")"), r#""a + \"b\"""#);
    assert_eq!(toks("#define P(a,b) a##b\nP(x,1) P(,y) P(x,)"), "x1 y x");
    assert_eq!(toks("#define V(x) v_##x\n#define v_1 one\nV(1)"), "one");
}

#[test]
fn variadic_macros() {
    assert_eq!(
        toks("#define L(f, ...) p(f, __VA_ARGS__)\nL(a, b, c)"),
        "p ( a , b , c )"
    );
    assert_eq!(
        toks("#define G(f, ...) p(f, ## __VA_ARGS__)\nG(a) G(a,b)"),
        "p ( a ) p ( a , b )"
    );
    assert_eq!(toks("#define N(args...) q(args)\nN(1,2)"), "q ( 1 , 2 )");
}

#[test]
fn self_reference_stops() {
    assert_eq!(toks("#define foo foo + 1\nfoo"), "foo + 1");
    assert_eq!(toks("#define a b\n#define b a\na b"), "a b");
    assert_eq!(toks("#define f(x) f(x)\nf(f(1))"), "f ( f ( 1 ) )");
}

#[test]
fn c99_standard_example() {
    // C99 6.10.3.5 example 3 (abridged).
    let src = "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n\
               #define g f\n#define z z[0]\n#define t(a) a\n#define h g(~\n#define m(a) a(w)\n#define w 0,1\n\
               f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\ng(x+(3,4)-w) | h 5) & m\n(f)^m(m);";
    assert_eq!(
        toks(src),
        "f ( 2 * ( y + 1 ) ) + f ( 2 * ( f ( 2 * ( z [ 0 ] ) ) ) ) % f ( 2 * ( 0 ) ) + t ( 1 ) ; \
         f ( 2 * ( 2 + ( 3 , 4 ) - 0 , 1 ) ) | f ( 2 * ( ~ 5 ) ) & f ( 2 * ( 0 , 1 ) ) ^ m ( 0 , 1 ) ;"
    );
}

#[test]
fn conditionals() {
    let src = "#define A 2\n#if A > 1 && defined(A) && !defined B\nyes\n#elif 1\nno1\n#else\nno2\n#endif\n\
               #ifdef B\nno3\n#else\nyes2\n#endif\n#if 0\n#error not here\n#bogus\n#endif";
    assert_eq!(toks(src), "yes yes2");
}

#[test]
fn line_and_file() {
    assert_eq!(toks("a __LINE__\n\nb __LINE__ __FILE__"), "a 1 b 3 \"t.c\"");
    assert_eq!(toks("#line 100 \"x.c\"\n__LINE__ __FILE__"), "100 \"x.c\"");
    assert_eq!(toks("#define L __LINE__\n\nL"), "3");
}

#[test]
fn command_line_definitions() {
    let options = Options {
        defines: vec![
            Define::Set("N=4".into()),
            Define::Set("FLAG".into()),
            Define::Set("GONE".into()),
            Define::Unset("GONE".into()),
        ],
        ..Options::default()
    };
    let (text, msgs) = pp_opts("N FLAG GONE", &options);
    assert!(msgs.is_empty(), "{msgs:?}");
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>(),
        ["4", "1", "GONE"]
    );
}

#[test]
fn shipped_headers() {
    let (text, msgs) =
        pp("#include <limits.h>\n#include <stdio.h>\n#include <stdio.h>\nint m = INT_MAX;");
    assert!(msgs.is_empty(), "{msgs:?}");
    assert!(text.contains("int printf(const char *format, ...);"));
    assert_eq!(text.matches("int printf").count(), 1, "the guard works");
    assert!(text.contains("int m = 2147483647;"));
}

#[test]
fn errors_are_reported() {
    let cases = [
        ("#include <nosuch.h>", "cannot find `nosuch.h`"),
        ("#include \"nosuch.h\"", "cannot find `nosuch.h`"),
        ("#error stop here", "#error stop here"),
        ("#if 1\nx", "unterminated conditional directive"),
        ("#endif", "`#endif` without `#if`"),
        ("#else", "`#else` without `#if`"),
        ("#if 1\n#else\n#else\n#endif", "`#else` after `#else`"),
        (
            "#frobnicate",
            "invalid preprocessing directive `#frobnicate`",
        ),
        (
            "#define F(x) x\nF(1, 2)",
            "macro `F` takes 1 argument, but 2 were given",
        ),
        (
            "#define F(x) x\nF(1",
            "unterminated argument list invoking macro `F`",
        ),
        (
            "#define F(x) #y",
            "`#` is not followed by a macro parameter",
        ),
        (
            "#define F(x) ## x",
            "`##` cannot be at either end of a macro",
        ),
        (
            "#define P(a,b) a##b\nP(+,-)",
            "pasting `+` and `-` does not give a valid preprocessing token",
        ),
        ("#if 1/0\n#endif", "division by zero in `#if`"),
        ("#define", "`#define` needs a macro name"),
        ("#pragma pack(1)", "`#pragma pack` is not supported"),
        ("#line x", "`#line` needs a positive line number"),
    ];
    for (src, want) in cases {
        let (_, msgs) = pp(src);
        assert!(msgs.iter().any(|m| m == want), "{src:?}: {msgs:?}");
    }
}

#[test]
fn exponential_macros_stop() {
    let mut src = String::from("#define m0 x x\n");
    for i in 1..40 {
        src.push_str(&format!("#define m{i} m{} m{}\n", i - 1, i - 1));
    }
    src.push_str("m39\n");
    let (_, msgs) = pp(&src);
    assert!(
        msgs.iter()
            .any(|m| m.contains("macro expansion makes more than")),
        "{msgs:?}"
    );
}

#[test]
fn diagnostics_name_the_file_and_the_expansion() {
    let src = "#define BAD(x) (x + oops)\nint f() { return BAD(1); }\n";
    let p = preprocess("t.c", src, &Options::default());
    let at = p.text.find("oops").unwrap();
    let d = Diagnostic::error(Span::new(at, at + 4), "use of undeclared variable `oops`");
    let r = crate::diag::render_mapped(&p.map, &[d], false);
    assert!(
        r.starts_with("t.c:1:21: error: use of undeclared variable `oops`"),
        "{r}"
    );
    assert!(
        r.contains("t.c:2:18: note: in expansion of macro `BAD`"),
        "{r}"
    );
}

#[test]
fn a_thousand_nested_includes_stop_at_the_limit() {
    let dir = std::env::temp_dir().join(format!("parc-pp-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..1000 {
        std::fs::write(
            dir.join(format!("h{i}.h")),
            format!("#include \"h{}.h\"\n", i + 1),
        )
        .unwrap();
    }
    std::fs::write(dir.join("h1000.h"), "int deepest;\n").unwrap();
    let main = dir.join("main.c");
    let path = main.display().to_string();
    let start = std::time::Instant::now();
    let p = preprocess(&path, "#include \"h0.h\"\n", &Options::default());
    let _ = std::fs::remove_dir_all(&dir);
    let msgs: Vec<&str> = p.diags.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        msgs,
        [format!(
            "#include nested more than {MAX_INCLUDE_DEPTH} deep"
        )]
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    let r = crate::diag::render_mapped(&p.map, &p.diags, false);
    assert!(
        r.contains(&format!("h{}.h:1:1: error", MAX_INCLUDE_DEPTH - 2)),
        "{r}"
    );
}

#[test]
fn include_paths_and_quotes() {
    let dir = std::env::temp_dir().join(format!("parc-pp-inc-{}", std::process::id()));
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("a.h"), "#include \"b.h\"\nint a;\n").unwrap();
    std::fs::write(sub.join("b.h"), "int b;\n").unwrap();
    // A user header named like a shipped one wins, in -I order.
    std::fs::write(sub.join("math.h"), "int mine;\n").unwrap();
    let options = Options {
        include_dirs: vec![sub.clone()],
        ..Options::default()
    };
    let (text, msgs) = pp_opts("#include <a.h>\n#include <math.h>\n", &options);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(msgs.is_empty(), "{msgs:?}");
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>(),
        ["int", "b;", "int", "a;", "int", "mine;"]
    );
}

#[test]
fn openmp_pragmas_are_reported_never_dropped_silently() {
    let src = "#define N 4\n#pragma omp parallel for reduction(+: s) num_threads(N)\n#pragma omp atomic\n";
    let (text, msgs) = pp(src);
    assert_eq!(msgs.len(), 1, "one warning without -fopenmp: {msgs:?}");
    assert!(msgs[0].contains("ignored without `-fopenmp`"), "{msgs:?}");
    assert!(!text.contains("pragma"), "{text}");
    let options = Options {
        openmp: true,
        ..Options::default()
    };
    let (text, msgs) = pp_opts(&format!("{src}_OPENMP"), &options);
    assert!(msgs.is_empty(), "{msgs:?}");
    assert!(
        text.contains("#pragma omp parallel for reduction ( + : s ) num_threads ( 4 )"),
        "{text}"
    );
    assert!(text.contains("#pragma omp atomic\n"), "{text}");
    assert!(text.contains("201307"), "_OPENMP is defined: {text}");
}

/// A run of text longer than a part (`PART` items) is expanded a part at
/// a time: invocations whose arguments span lines, macros that expand to
/// a function-like name taking its `(` from the text after them, and
/// plain text around them come out as if the run were expanded whole,
/// wherever the parts end.
#[test]
fn a_long_run_is_expanded_in_parts_as_if_whole() {
    let mut src = String::from("#define ADD(a, b) a + b\n#define G ADD\n");
    let mut want = Vec::new();
    for k in 0..3 * PART {
        match k % 3 {
            0 => {
                src += &format!("x{k} = ADD({k},\n {k});\n");
                want.push(format!("x{k} = {k} + {k} ;"));
            }
            1 => {
                src += &format!("y{k} = G\n({k}, 1);\n");
                want.push(format!("y{k} = {k} + 1 ;"));
            }
            _ => {
                src += &format!("z{k} ;\n");
                want.push(format!("z{k} ;"));
            }
        }
    }
    assert_eq!(toks(&src), want.join(" "));
}
