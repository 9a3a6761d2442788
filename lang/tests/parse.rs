//! Tests of the lexer and parser: tokens, literals, the tree built for each
//! construct (as a compact S-expression), diagnostics and limits.
//!
//! Length: one test per construct and diagnostic; a list, not logic.

use parc_lang::ast::*;
use parc_lang::diag::{Diagnostic, Severity, line_col, render};
use parc_lang::lex::{self, Number, Token};
use parc_lang::parse::{self, MAX_CHAIN, MAX_NESTING, parse};
use std::fmt::Write;
use std::time::{Duration, Instant};

// ------------------------------------------------------------------ printer

fn spec(t: &TypeSpec) -> String {
    match t {
        TypeSpec::Void => "void".to_owned(),
        TypeSpec::Bool => "bool".to_owned(),
        TypeSpec::Char => "char".to_owned(),
        TypeSpec::UChar => "uchar".to_owned(),
        TypeSpec::Short => "short".to_owned(),
        TypeSpec::UShort => "ushort".to_owned(),
        TypeSpec::Int => "int".to_owned(),
        TypeSpec::Unsigned => "unsigned".to_owned(),
        TypeSpec::Long => "long".to_owned(),
        TypeSpec::UnsignedLong => "ulong".to_owned(),
        TypeSpec::Float => "float".to_owned(),
        TypeSpec::Double => "double".to_owned(),
        TypeSpec::Record(r) => {
            let word = if r.is_union { "union" } else { "struct" };
            let mut out = match &r.tag {
                Some(t) => format!("{word}-{t}"),
                None => word.to_owned(),
            };
            if let Some(fields) = &r.fields {
                let fs: Vec<String> = fields
                    .iter()
                    .map(|f| {
                        let name = f.name.as_ref().map_or("", |n| n.name.as_str());
                        let width = if f.width.is_some() { ":w" } else { "" };
                        format!("({}{width})", declarator(&f.ty, name))
                    })
                    .collect();
                out = format!("({out} {})", fs.join(" "));
            }
            out
        }
        TypeSpec::Enum(e) => {
            let mut out = match &e.tag {
                Some(t) => format!("enum-{t}"),
                None => "enum".to_owned(),
            };
            if let Some(items) = &e.items {
                let is: Vec<String> = items
                    .iter()
                    .map(|i| match &i.value {
                        Some(v) => format!("{}={}", i.name, ex(v)),
                        None => i.name.name.clone(),
                    })
                    .collect();
                out = format!("({out} {})", is.join(" "));
            }
            out
        }
        TypeSpec::Typedef(n) => format!("T-{n}"),
        TypeSpec::Dim3 => "dim3".to_owned(),
        TypeSpec::TypeofExpr(e) => format!("(typeof {})", ex(e)),
        TypeSpec::TypeofType(t) => format!("(typeof {})", ty(t)),
    }
}

/// A declarator's parts around `name` as C writes them: `*p`, `a[3]`,
/// `(*f)(int)`.
fn c_declarator(derived: &[Derived], name: &str) -> String {
    let mut inner = name.to_owned();
    let mut prev_ptr = false;
    // From the name outwards: each part wraps what is inside.
    for d in derived.iter().rev() {
        match d {
            Derived::Pointer { .. } => {
                inner = format!("*{inner}");
                prev_ptr = true;
            }
            Derived::Array { len, .. } => {
                if prev_ptr {
                    inner = format!("({inner})");
                }
                inner = format!("{inner}[{}]", len.as_ref().map_or(String::new(), |e| ex(e)));
                prev_ptr = false;
            }
            Derived::VarLenStar { .. } => {
                if prev_ptr {
                    inner = format!("({inner})");
                }
                inner = format!("{inner}[*]");
                prev_ptr = false;
            }
            Derived::Func {
                params, variadic, ..
            } => {
                if prev_ptr {
                    inner = format!("({inner})");
                }
                let ps: Vec<String> = params.iter().map(param).collect();
                inner = format!(
                    "{inner}({}{})",
                    ps.join(" "),
                    if *variadic { " ..." } else { "" }
                );
                prev_ptr = false;
            }
        }
    }
    inner
}

/// A type with a declared name: `double* x` for pointers (the base and its
/// stars), C's declarator syntax otherwise (`int (*f)(int)`, `double a[3]`).
fn declarator(t: &TypeName, name: &str) -> String {
    let c = if t.is_const { "const-" } else { "" };
    let base = format!("{c}{}", spec(&t.spec));
    if t.derived
        .iter()
        .all(|d| matches!(d, Derived::Pointer { .. }))
    {
        let stars = "*".repeat(t.derived.len());
        return if name.is_empty() {
            format!("{base}{stars}")
        } else {
            format!("{base}{stars} {name}")
        };
    }
    format!("{base} {}", c_declarator(&t.derived, name))
}

fn ty(t: &TypeName) -> String {
    declarator(t, "")
}

fn param(p: &Param) -> String {
    match &p.name {
        Some(n) => format!("({})", declarator(&p.ty, &n.name)),
        None => ty(&p.ty),
    }
}

fn quals(q: &Qualifiers) -> String {
    let mut s = String::new();
    for (on, w) in [
        (q.is_const, "const "),
        (q.is_static, "static "),
        (q.is_extern, "extern "),
        (q.is_inline, "inline "),
        (q.is_typedef, "typedef "),
        (q.is_global, "__global__ "),
        (q.is_device, "__device__ "),
        (q.is_shared, "__shared__ "),
    ] {
        if on {
            s.push_str(w);
        }
    }
    s
}

fn unop(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "-",
        UnaryOp::Plus => "+",
        UnaryOp::Not => "!",
        UnaryOp::BitNot => "~",
        UnaryOp::Deref => "deref",
        UnaryOp::AddrOf => "addr",
        UnaryOp::PreInc => "pre++",
        UnaryOp::PreDec => "pre--",
        UnaryOp::PostInc => "post++",
        UnaryOp::PostDec => "post--",
    }
}

fn list(es: &[Expr]) -> String {
    es.iter().map(|e| format!(" {}", ex(e))).collect()
}

fn ex(e: &Expr) -> String {
    match &e.kind {
        ExprKind::IntLit {
            value: v,
            suffix: s,
            ..
        } => {
            let suf = match s {
                IntSuffix::None => "",
                IntSuffix::Long => "l",
                IntSuffix::Unsigned => "u",
                IntSuffix::UnsignedLong => "ul",
            };
            format!("{v}{suf}")
        }
        ExprKind::FloatLit { value, is_float } => {
            format!("{value:?}{}", if *is_float { "f" } else { "" })
        }
        ExprKind::CharLit(c) => format!("(char {c})"),
        ExprKind::StrLit(s) => format!("\"{}\"", s.escape_ascii()),
        ExprKind::BoolLit(b) => b.to_string(),
        ExprKind::Null => "NULL".to_owned(),
        ExprKind::Ident(n) => n.clone(),
        ExprKind::Unary(op, a) => format!("({} {})", unop(*op), ex(a)),
        ExprKind::Binary(op, a, b) => format!("({} {} {})", op.symbol(), ex(a), ex(b)),
        ExprKind::Assign { op, lhs, rhs } => {
            format!(
                "({}= {} {})",
                op.map_or("", |o| o.symbol()),
                ex(lhs),
                ex(rhs)
            )
        }
        ExprKind::Cond(c, t, f) => format!("(? {} {} {})", ex(c), ex(t), ex(f)),
        ExprKind::Call { callee, args } => format!("(call {callee}{})", list(args)),
        ExprKind::CallPtr { callee, args } => format!("(call* {}{})", ex(callee), list(args)),
        ExprKind::CompoundLit(t, items, _) => {
            let inner: Vec<String> = items.iter().map(init_item).collect();
            format!("(literal {} {{{}}})", ty(t), inner.join(" "))
        }
        ExprKind::Launch {
            kernel,
            grid,
            block,
            args,
        } => format!("(launch {kernel} {} {}{})", ex(grid), ex(block), list(args)),
        ExprKind::Index(a, i) => format!("(index {} {})", ex(a), ex(i)),
        ExprKind::Member(a, f) => format!("(. {} {f})", ex(a)),
        ExprKind::Arrow(a, f) => format!("(-> {} {f})", ex(a)),
        ExprKind::Cast(t, a) => format!("(cast {} {})", ty(t), ex(a)),
        ExprKind::SizeofType(t) => format!("(sizeof-type {})", ty(t)),
        ExprKind::AlignofType(t) => format!("(alignof-type {})", ty(t)),
        ExprKind::SizeofExpr(a) => format!("(sizeof {})", ex(a)),
        ExprKind::Offsetof(t, path) => {
            let path: String = path
                .iter()
                .map(|d| match d {
                    Designator::Field(f) => format!(".{f}"),
                    Designator::Index(e, _) => format!("[{}]", ex(e)),
                })
                .collect();
            format!("(offsetof {} {path})", ty(t))
        }
        ExprKind::Comma(a, b) => format!("(, {} {})", ex(a), ex(b)),
        ExprKind::Elvis(a, b) => format!("(?: {} {})", ex(a), ex(b)),
        ExprKind::Error => "<error>".to_owned(),
    }
}

fn init_item(i: &InitItem) -> String {
    let mut out = String::new();
    for d in &i.designators {
        match d {
            Designator::Field(f) => out.push_str(&format!(".{f}")),
            Designator::Index(e, _) => out.push_str(&format!("[{}]", ex(e))),
        }
    }
    if !out.is_empty() {
        out.push('=');
    }
    out + &init(&i.init)
}

fn init(i: &Init) -> String {
    match i {
        Init::Expr(e) => ex(e),
        Init::List(items, _) => {
            let inner: Vec<String> = items.iter().map(init_item).collect();
            format!("{{{}}}", inner.join(" "))
        }
        Init::Ctor(args, _) => format!("(ctor{})", list(args)),
    }
}

fn decl(d: &Decl) -> String {
    let mut s = format!("(decl {}{}", quals(&d.quals), ty(&d.ty));
    for dc in &d.declarators {
        s.push_str(&format!(" ({}", c_declarator(&dc.derived, &dc.name.name)));
        if let Some(i) = &dc.init {
            s.push_str(&format!(" = {}", init(i)));
        }
        s.push(')');
    }
    s.push(')');
    s
}

fn opt(e: &Option<Expr>) -> String {
    e.as_ref().map_or("_".to_owned(), ex)
}

fn st(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Empty => ";".to_owned(),
        StmtKind::StaticAssert(a) => static_assert(a),
        StmtKind::Expr(e) => ex(e),
        StmtKind::Decl(d) => decl(d),
        StmtKind::Block(b) => block(b),
        StmtKind::If { cond, then, els } => match els {
            Some(e) => format!("(if {} {} {})", ex(cond), st(then), st(e)),
            None => format!("(if {} {})", ex(cond), st(then)),
        },
        StmtKind::While { cond, body } => format!("(while {} {})", ex(cond), st(body)),
        StmtKind::DoWhile { body, cond } => format!("(do {} {})", st(body), ex(cond)),
        StmtKind::For {
            parallel,
            init,
            cond,
            step,
            body,
        } => format!(
            "({} {} {} {} {})",
            if *parallel { "parallel_for" } else { "for" },
            init.as_ref().map_or("_".to_owned(), |s| st(s)),
            opt(&cond.as_deref().cloned()),
            opt(&step.as_deref().cloned()),
            st(body)
        ),
        StmtKind::Switch { cond, body } => format!("(switch {} {})", ex(cond), st(body)),
        StmtKind::Case { value, body } => format!("(case {} {})", ex(value), st(body)),
        StmtKind::Default(body) => format!("(default {})", st(body)),
        StmtKind::Label { name, body } => format!("(label {name} {})", st(body)),
        StmtKind::Goto(l) => format!("(goto {l})"),
        StmtKind::Break => "break".to_owned(),
        StmtKind::Continue => "continue".to_owned(),
        StmtKind::Return(e) => match e {
            Some(e) => format!("(return {})", ex(e)),
            None => "(return)".to_owned(),
        },
        StmtKind::Spawn { dest, call } => match dest {
            Some(d) => format!("(spawn= {} {})", ex(d), ex(call)),
            None => format!("(spawn {})", ex(call)),
        },
        StmtKind::Sync => "sync".to_owned(),
        StmtKind::Omp { pragma, stmt } => {
            let clauses: Vec<String> = pragma
                .clauses
                .iter()
                .map(|c| format!("{:?}", c.clause))
                .collect();
            format!(
                "(omp \"{}\" [{}] {})",
                pragma.construct,
                clauses.join(" "),
                st(stmt)
            )
        }
    }
}

fn block(b: &Block) -> String {
    let inner: Vec<String> = b.stmts.iter().map(st).collect();
    format!("{{{}}}", inner.join(" "))
}

fn static_assert(a: &StaticAssert) -> String {
    match &a.message {
        Some(m) => format!(
            "(static-assert {} {:?})",
            ex(&a.cond),
            String::from_utf8_lossy(m)
        ),
        None => format!("(static-assert {})", ex(&a.cond)),
    }
}

fn item(i: &Item) -> String {
    match i {
        Item::Global(d) => decl(d),
        Item::StaticAssert(a) => static_assert(a),
        Item::Func(f) => {
            let params: Vec<String> = f.params.iter().map(param).collect();
            format!(
                "(fn {}{} {} ({}{}){})",
                quals(&f.quals),
                ty(&f.ret),
                f.name,
                params.join(" "),
                if f.variadic { " ..." } else { "" },
                f.body
                    .as_ref()
                    .map_or(String::new(), |b| format!(" {}", block(b)))
            )
        }
    }
}

// ------------------------------------------------------------------ span invariants

fn within(outer: Span, inner: Span, what: &str) {
    assert!(
        outer.start <= inner.start && inner.end <= outer.end && inner.start <= inner.end,
        "{what}: {inner:?} not inside {outer:?}"
    );
}

fn check_expr(e: &Expr) {
    let mut kids: Vec<&Expr> = Vec::new();
    match &e.kind {
        ExprKind::Unary(_, a) | ExprKind::SizeofExpr(a) | ExprKind::Cast(_, a) => kids.push(a),
        ExprKind::Member(a, f) | ExprKind::Arrow(a, f) => {
            kids.push(a);
            within(e.span, f.span, "field");
        }
        ExprKind::Binary(_, a, b)
        | ExprKind::Index(a, b)
        | ExprKind::Comma(a, b)
        | ExprKind::Elvis(a, b) => {
            kids.extend([&**a, &**b]);
        }
        ExprKind::Assign { lhs, rhs, .. } => kids.extend([&**lhs, &**rhs]),
        ExprKind::Cond(a, b, c) => kids.extend([&**a, &**b, &**c]),
        ExprKind::Call { callee, args } => {
            within(e.span, callee.span, "callee");
            kids.extend(args);
        }
        ExprKind::Launch {
            kernel,
            grid,
            block,
            args,
        } => {
            within(e.span, kernel.span, "kernel");
            kids.extend([&**grid, &**block]);
            kids.extend(args);
        }
        ExprKind::SizeofType(t) | ExprKind::AlignofType(t) => within(e.span, t.span, "type"),
        ExprKind::Offsetof(t, path) => {
            within(e.span, t.span, "type");
            for d in path {
                if let Designator::Index(i, _) = d {
                    kids.push(i);
                }
            }
        }
        _ => {}
    }
    for k in kids {
        within(e.span, k.span, "expr");
        check_expr(k);
    }
}

fn check_stmt(s: &Stmt) {
    let mut exprs: Vec<&Expr> = Vec::new();
    let mut stmts: Vec<&Stmt> = Vec::new();
    match &s.kind {
        StmtKind::Expr(e) => exprs.push(e),
        StmtKind::Decl(d) => check_decl(s.span, d),
        StmtKind::Block(b) => {
            within(s.span, b.span, "block");
            stmts.extend(&b.stmts);
        }
        StmtKind::If { cond, then, els } => {
            exprs.push(cond);
            stmts.push(then);
            stmts.extend(els.as_deref());
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            exprs.push(cond);
            stmts.push(body);
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
            ..
        } => {
            stmts.extend(init.as_deref());
            exprs.extend(cond.as_deref().into_iter().chain(step.as_deref()));
            stmts.push(body);
        }
        StmtKind::Return(e) => exprs.extend(e.iter()),
        StmtKind::Spawn { dest, call } => {
            exprs.extend(dest.as_deref());
            exprs.push(call);
        }
        _ => {}
    }
    for e in exprs {
        within(s.span, e.span, "stmt expr");
        check_expr(e);
    }
    for k in stmts {
        within(s.span, k.span, "stmt");
        check_stmt(k);
    }
}

fn check_init(outer: Span, i: &Init) {
    match i {
        Init::Expr(e) => {
            within(outer, e.span, "init");
            check_expr(e);
        }
        Init::List(items, span) => {
            within(outer, *span, "init list");
            for it in items {
                check_init(*span, &it.init);
            }
        }
        Init::Ctor(args, span) => {
            within(outer, *span, "ctor");
            for a in args {
                within(*span, a.span, "ctor arg");
                check_expr(a);
            }
        }
    }
}

fn check_decl(outer: Span, d: &Decl) {
    within(outer, d.span, "decl");
    within(d.span, d.ty.span, "decl type");
    for dc in &d.declarators {
        within(d.span, dc.span, "declarator");
        within(dc.span, dc.name.span, "declarator name");
        for part in &dc.derived {
            if let Derived::Array {
                len: Some(n), span, ..
            } = part
            {
                within(dc.span, *span, "array dimension");
                within(*span, n.span, "array len");
            }
        }
        if let Some(i) = &dc.init {
            check_init(dc.span, i);
        }
    }
}

fn check_spans(source: &str, p: &Program) {
    let all = Span::new(0, source.len());
    for i in &p.items {
        match i {
            Item::StaticAssert(a) => {
                within(all, a.span, "static assertion");
                within(a.span, a.cond.span, "static assertion's condition");
            }
            Item::Global(d) => {
                check_decl(all, d);
                if let TypeSpec::Record(r) = &d.ty.spec
                    && let Some(fields) = &r.fields
                {
                    within(d.ty.span, r.span, "struct");
                    for f in fields {
                        within(r.span, f.span, "field");
                        if let Some(n) = &f.name {
                            within(f.span, n.span, "field name");
                        }
                    }
                }
            }
            Item::Func(f) => {
                within(all, f.span, "function");
                within(f.span, f.name.span, "function name");
                within(f.span, f.ret.span, "return type");
                for p in &f.params {
                    within(f.span, p.span, "param");
                    within(p.span, p.ty.span, "param type");
                }
                if let Some(b) = &f.body {
                    within(f.span, b.span, "body");
                    for s in &b.stmts {
                        within(b.span, s.span, "body stmt");
                        check_stmt(s);
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------------------ helpers

fn show(diags: &[Diagnostic], source: &str) -> String {
    let mut out = String::new();
    for d in diags {
        let (l, c) = line_col(source, d.span.start as usize);
        let sev = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = write!(out, "{l}:{c}: {sev}: {}", d.message);
        if let Some(h) = &d.help {
            let _ = write!(out, " [help: {h}]");
        }
        out.push('\n');
    }
    out
}

/// Parses a file that must have no diagnostics; prints its items.
fn p(src: &str) -> String {
    let (prog, diags) = parse(src);
    assert!(
        diags.is_empty(),
        "unexpected diagnostics:\n{}",
        show(&diags, src)
    );
    check_spans(src, &prog);
    let items: Vec<String> = prog.items.iter().map(item).collect();
    items.join("\n")
}

/// Parses the statements of a function body; prints them.
fn s(body: &str) -> String {
    let out = p(&format!("void f() {{ {body} }}"));
    out.strip_prefix("(fn void f () {")
        .and_then(|s| s.strip_suffix("})"))
        .unwrap_or(&out)
        .to_owned()
}

/// Parses one expression (as an expression statement); prints it.
fn e(expr: &str) -> String {
    s(&format!("{expr};"))
}

/// Diagnostics for a file, one per line: `line:col: severity: message [help]`.
fn errs(src: &str) -> String {
    let (prog, diags) = parse(src);
    check_spans(src, &prog);
    show(&diags, src)
}

fn toks(src: &str) -> Vec<Token> {
    let (t, d) = lex::lex(src);
    assert!(d.is_empty(), "unexpected diagnostics:\n{}", show(&d, src));
    t.into_iter().map(|t| t.1).collect()
}

fn lex_errs(src: &str) -> String {
    let (_, d) = lex::lex(src);
    show(&d, src)
}

/// A decimal integer token.
fn int(value: u128, suffix: IntSuffix) -> Token {
    Token::Number(Number::Int {
        value,
        suffix,
        decimal: true,
    })
}

/// A hexadecimal or octal integer token.
fn radix_int(value: u128, suffix: IntSuffix) -> Token {
    Token::Number(Number::Int {
        value,
        suffix,
        decimal: false,
    })
}

fn float(value: f64, is_float: bool) -> Token {
    Token::Number(Number::Float { value, is_float })
}

/// Runs `f` on a thread with the default 2 MiB test stack and a deadline.
fn quickly<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let start = Instant::now();
    let out = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn test thread")
        .join()
        .expect("the parser must not crash");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    out
}

// ------------------------------------------------------------------ lexer

#[test]
fn lex_punctuators() {
    use Token::*;
    assert_eq!(
        toks(
            "( ) [ ] { } ; , . -> ? : ... + - * / % & | ^ ~ ! ++ -- << >> < > <= >= == != && || = += -= *= /= %= &= |= ^= <<= >>= <<< >>>"
        ),
        vec![
            LParen,
            RParen,
            LBracket,
            RBracket,
            LBrace,
            RBrace,
            Semi,
            Comma,
            Dot,
            Arrow,
            Question,
            Colon,
            Ellipsis,
            Plus,
            Minus,
            Star,
            Slash,
            Percent,
            Amp,
            Pipe,
            Caret,
            Tilde,
            Bang,
            PlusPlus,
            MinusMinus,
            Shl,
            Shr,
            Lt,
            Gt,
            Le,
            Ge,
            EqEq,
            Ne,
            AndAnd,
            OrOr,
            Assign,
            PlusEq,
            MinusEq,
            StarEq,
            SlashEq,
            PercentEq,
            AmpEq,
            PipeEq,
            CaretEq,
            ShlEq,
            ShrEq,
            LaunchOpen,
            LaunchClose
        ]
    );
    // Longest match, no spaces.
    assert_eq!(
        toks("a>>b"),
        vec![Ident("a".into()), Shr, Ident("b".into())]
    );
    assert_eq!(toks("a>b"), vec![Ident("a".into()), Gt, Ident("b".into())]);
    assert_eq!(
        toks("a>>=b"),
        vec![Ident("a".into()), ShrEq, Ident("b".into())]
    );
    assert_eq!(
        toks("x--->y"),
        vec![Ident("x".into()), MinusMinus, Arrow, Ident("y".into())]
    );
    assert_eq!(
        toks("k<<<g,b>>>(x)"),
        vec![
            Ident("k".into()),
            LaunchOpen,
            Ident("g".into()),
            Comma,
            Ident("b".into()),
            LaunchClose,
            LParen,
            Ident("x".into()),
            RParen
        ]
    );
}

#[test]
fn lex_keywords_and_identifiers() {
    use Token::*;
    assert_eq!(
        toks(
            "void bool char int unsigned signed long float double struct const static extern inline if else while do for parallel_for break continue return spawn sync sizeof true false NULL __global__ __device__ __shared__ dim3"
        ),
        vec![
            Void,
            Bool,
            Char,
            Int,
            Unsigned,
            Signed,
            Long,
            Float,
            Double,
            Struct,
            Const,
            Static,
            Extern,
            Inline,
            If,
            Else,
            While,
            Do,
            For,
            ParallelFor,
            Break,
            Continue,
            Return,
            Spawn,
            Sync,
            Sizeof,
            True,
            False,
            Null,
            Global,
            Device,
            Shared,
            Dim3
        ]
    );
    assert_eq!(
        toks("integer _x x1 spawned __syncthreads threadIdx NULLX"),
        [
            "integer",
            "_x",
            "x1",
            "spawned",
            "__syncthreads",
            "threadIdx",
            "NULLX"
        ]
        .map(|s| Ident(s.into()))
        .to_vec()
    );
    assert!(matches!(toks("switch")[..], [Switch]));
    assert!(matches!(toks("_Complex")[..], [Unsupported(_)]));
}

#[test]
fn lex_integers() {
    use IntSuffix::*;
    assert_eq!(
        toks("0 42 0x2A 0X2a 052"),
        vec![
            int(0, None),
            int(42, None),
            radix_int(42, None),
            radix_int(42, None),
            radix_int(42, None)
        ]
    );
    assert_eq!(
        toks("1u 1U 1l 1L 1ul 1UL 1lu 1LU 1ll 1LL 1ull 1ULL 1llu 0xFFu 0x10L"),
        vec![
            int(1, Unsigned),
            int(1, Unsigned),
            int(1, Long),
            int(1, Long),
            int(1, UnsignedLong),
            int(1, UnsignedLong),
            int(1, UnsignedLong),
            int(1, UnsignedLong),
            int(1, Long),
            int(1, Long),
            int(1, UnsignedLong),
            int(1, UnsignedLong),
            int(1, UnsignedLong),
            radix_int(255, Unsigned),
            radix_int(16, Long),
        ]
    );
    assert_eq!(
        toks("18446744073709551615"),
        vec![int(u64::MAX as u128, None)]
    );
    assert_eq!(
        toks("0x1E+1"),
        vec![radix_int(30, None), Token::Plus, int(1, None)]
    );
}

#[test]
fn lex_floats() {
    assert_eq!(
        toks("1.0 1e-3 .5 1. 2.5f 1e10F 1.e2 2E+2 0.1f 3.f"),
        vec![
            float(1.0, false),
            float(1e-3, false),
            float(0.5, false),
            float(1.0, false),
            float(2.5, true),
            float(1e10, true),
            float(100.0, false),
            float(200.0, false),
            // Rounded once, straight to binary32.
            float(f64::from(0.1f32), true),
            float(3.0, true),
        ]
    );
    // C99's hexadecimal floating literals: exact powers of two.
    assert_eq!(
        toks("0x1p3 0x1.8p1 0x.8p-1 0XAp0f 0x1p-1074 0x1.fffffffffffffp1023 0x0.1P4L"),
        vec![
            float(8.0, false),
            float(3.0, false),
            float(0.25, false),
            float(10.0, true),
            float(f64::from_bits(1), false),
            float(f64::MAX, false),
            float(1.0, false),
        ]
    );
    assert_eq!(
        lex_errs("0x1p 0x1p2q 0x1p9999"),
        "1:1: error: exponent of `0x1p` has no digits [help: write digits after the `p`, e.g. `0x1p-3`]\n\
         1:6: error: invalid suffix `q` on floating literal [help: the floating suffixes are `f` (for `float`) and `L` (`long double`)]\n\
         1:13: error: floating literal `0x1p9999` is too large for `double`\n"
    );
    // `s.x` and `a[1].x` are not numbers.
    assert_eq!(toks("s.x").len(), 3);
    assert_eq!(toks("a[1].x").len(), 6);
}

#[test]
fn lex_chars_and_strings() {
    use Token::*;
    assert_eq!(
        toks(
            r#"'a' '\n' '\0' '\\' '\'' '\x41' '\101' '\t' '\r' '\a' '\b' '\f' '\v' '\?' '\"' '\xff' '0'"#
        ),
        [
            97, 10, 0, 92, 39, 65, 65, 9, 13, 7, 8, 12, 11, 63, 34, 255, 48
        ]
        .map(CharLit)
        .to_vec()
    );
    assert_eq!(
        toks(r#""a\n\t\\\"\0\x41\101z" "" "é""#),
        vec![
            StrLit(b"a\n\t\\\"\0AAz".to_vec()),
            StrLit(vec![]),
            StrLit("é".as_bytes().to_vec())
        ]
    );
    // An octal escape takes at most three digits; `\x` takes all hex digits.
    assert_eq!(toks(r#""\1234""#), vec![StrLit(vec![0o123, b'4'])]);
    // A backslash-newline splice inside a string.
    assert_eq!(toks("\"ab\\\ncd\""), vec![StrLit(b"abcd".to_vec())]);
}

#[test]
fn lex_comments_and_directives() {
    use Token::*;
    assert_eq!(
        toks("a // line comment\n/* block\n * comment */ b /**/ c /* ** / */ d"),
        ["a", "b", "c", "d"].map(|s| Ident(s.into())).to_vec()
    );
    assert_eq!(
        toks("#include <stdio.h>\n#pragma once\n  # include <math.h>\nint"),
        vec![Int]
    );
    // Comment markers inside strings are text.
    assert_eq!(
        toks(r#""/* no */ // no""#),
        vec![StrLit(b"/* no */ // no".to_vec())]
    );
    // Spans are byte offsets.
    let (t, _) = lex::lex("  ab /* c */ 12");
    assert_eq!((t[0].0, t[0].2, t[1].0, t[1].2), (2, 4, 13, 15));
}

#[test]
fn lex_errors() {
    assert_eq!(
        lex_errs("x = \"abc;\ny = 2;"),
        "1:5: error: unterminated string literal [help: add a closing `\"`]\n"
    );
    assert_eq!(
        lex_errs("int x; /* never closed\nint y;"),
        "1:8: error: unterminated comment [help: close it with `*/`]\n"
    );
    let (_, d) = lex::lex("int x; /* never closed\nint y;");
    assert_eq!(
        (d[0].span.start, d[0].span.end),
        (7, 9),
        "points at the `/*`"
    );
    assert_eq!(
        lex_errs("a @ b $"),
        "1:3: error: unexpected character `@`\n1:7: error: unexpected character `$`\n"
    );
    assert_eq!(
        lex_errs("a \u{7} b"),
        "1:3: error: unexpected control character U+0007 (`\\u{7}`)\n"
    );
    assert_eq!(lex_errs("a \0 b"), "1:3: error: unexpected NUL byte\n");
    assert_eq!(
        lex_errs("@@@@"),
        "1:1: error: unexpected characters `@@@@`\n"
    );
    assert_eq!(
        lex_errs("s = “hi”;"),
        "1:5: error: unexpected character `“` [help: use the ASCII double quote `\"`]\n1:8: error: unexpected character `”` [help: use the ASCII double quote `\"`]\n"
    );
    assert_eq!(
        lex_errs("''  'ab'  'x"),
        "1:1: error: empty character literal [help: write `'\\0'` for a NUL character, or `'\\''` for a quote]\n\
         1:5: error: character literal contains more than one character [help: use double quotes for a string: `\"...\"`]\n\
         1:11: error: unterminated character literal [help: add a closing `'`]\n"
    );
    assert_eq!(
        lex_errs("09 0x 1e 12abc 1.5x 3f 1e999 1.0L"),
        "1:1: error: invalid digit `9` in octal literal `09` [help: a leading `0` makes a literal octal; remove it for a decimal number]\n\
         1:4: error: hexadecimal literal has no digits [help: write digits after `0x`, e.g. `0x1F`]\n\
         1:7: error: exponent of `1e` has no digits [help: write digits after the `e`, e.g. `1e-3`]\n\
         1:10: error: invalid suffix `abc` on integer literal [help: integer suffixes are `u`, `l`, `ul`, `ll` and `ull`]\n\
         1:16: error: invalid suffix `x` on floating literal [help: the floating suffixes are `f` (for `float`) and `L` (`long double`)]\n\
         1:21: error: invalid suffix `f` on integer literal [help: write `3.0f` for a `float`]\n\
         1:24: error: floating literal `1e999` is too large for `double`\n"
    );
    assert_eq!(
        lex_errs("340282366920938463463374607431768211456"),
        "1:1: error: integer literal is too large\n"
    );
    assert_eq!(
        lex_errs(r#""\q" "\x" "\x100" "\400""#),
        "1:2: warning: unknown escape sequence `\\q` [help: write `\\\\` for a backslash]\n\
         1:7: error: `\\x` escape has no hexadecimal digits [help: write e.g. `\\x41`]\n\
         1:12: error: hexadecimal escape sequence out of range [help: a `\\x` escape must fit in one byte (at most `\\xFF`)]\n\
         1:20: error: octal escape sequence out of range [help: the largest octal escape is `\\377`]\n"
    );
    assert_eq!(
        lex_errs("#define N 10\n#include \"x.h\""),
        "1:1: error: ParC has no preprocessor: `#define` is not supported [help: use a `const` global (e.g. `const int N = 100;`) or a function]\n\
         2:1: error: ParC cannot include files [help: put the declarations in this file; standard headers like `<stdio.h>` may stay]\n"
    );
    // A string ending the file, a lone quote at the end.
    assert_eq!(
        lex_errs("\"abc"),
        "1:1: error: unterminated string literal [help: add a closing `\"`]\n"
    );
    assert_eq!(
        lex_errs("'"),
        "1:1: error: unterminated character literal [help: add a closing `'`]\n"
    );
    assert_eq!(
        lex_errs("'\\"),
        "1:1: error: unterminated character literal [help: add a closing `'`]\n"
    );
    assert_eq!(
        lex_errs("\"\\"),
        "1:1: error: unterminated string literal [help: add a closing `\"`]\n"
    );
}

// ------------------------------------------------------------------ expressions

#[test]
fn precedence() {
    assert_eq!(
        e("a + b * c - d / e % f"),
        "(- (+ a (* b c)) (% (/ d e) f))"
    );
    assert_eq!(
        e("a << 1 + 2 < b == c & d ^ e | f && g || h"),
        "(|| (&& (| (^ (& (== (< (<< a (+ 1 2)) b) c) d) e) f) g) h)"
    );
    assert_eq!(e("a || b && c"), "(|| a (&& b c))");
    assert_eq!(e("a - b - c"), "(- (- a b) c)");
    assert_eq!(e("a = b = c"), "(= a (= b c))");
    assert_eq!(e("a += b -= c <<= 2"), "(+= a (-= b (<<= c 2)))");
    assert_eq!(e("a ? b : c ? d : e"), "(? a b (? c d e))");
    assert_eq!(e("a ? b, c : d"), "(? a (, b c) d)");
    // GNU `a ?: b`, right-associative like `?:`.
    assert_eq!(e("a ?: b ?: c"), "(?: a (?: b c))");
    assert_eq!(e("a || b ?: c ? d : e"), "(?: (|| a b) (? c d e))");
    assert_eq!(e("a = b ? c : d"), "(= a (? b c d))");
    // As gcc reads C: the conditional is the left side of the inner `=`
    // (and the checker reports that it is not assignable).
    assert_eq!(e("a = b ? c : d = e"), "(= a (= (? b c d) e))");
    assert_eq!(e("a, b = c, d"), "(, (, a (= b c)) d)");
    assert_eq!(e("x > y"), "(> x y)");
    assert_eq!(e("a >> b > c"), "(> (>> a b) c)");
}

#[test]
fn unary_and_postfix() {
    assert_eq!(e("-a * !b"), "(* (- a) (! b))");
    assert_eq!(e("- - a"), "(- (- a))");
    assert_eq!(e("~+a"), "(~ (+ a))");
    assert_eq!(e("*p++"), "(deref (post++ p))");
    assert_eq!(e("++*p"), "(pre++ (deref p))");
    assert_eq!(e("--x + x--"), "(+ (pre-- x) (post-- x))");
    assert_eq!(e("&a[i]"), "(addr (index a i))");
    assert_eq!(e("a[i][j]"), "(index (index a i) j)");
    assert_eq!(
        e("s.v.x + p->next->v[2].y"),
        "(+ (. (. s v) x) (. (index (-> (-> p next) v) 2) y))"
    );
    assert_eq!(e("a - -1"), "(- a (- 1))");
    assert_eq!(e("a---b"), "(- (post-- a) b)");
}

#[test]
fn casts_sizeof_and_parens() {
    assert_eq!(e("(double)x / 2"), "(/ (cast double x) 2)");
    assert_eq!(e("(x) / 2"), "(/ x 2)");
    assert_eq!(e("(a + b) * c"), "(* (+ a b) c)");
    assert_eq!(
        e("(double *)malloc(n * sizeof(double))"),
        "(cast double* (call malloc (* n (sizeof-type double))))"
    );
    assert_eq!(e("(int)-3.99"), "(cast int (- 3.99))");
    assert_eq!(e("(unsigned long)(long)x"), "(cast ulong (cast long x))");
    assert_eq!(e("(const char *)s"), "(cast const-char* s)");
    assert_eq!(e("(struct Vec3 *)p"), "(cast struct-Vec3* p)");
    assert_eq!(e("sizeof x + 1"), "(+ (sizeof x) 1)");
    assert_eq!(e("sizeof(x) * 2"), "(* (sizeof x) 2)");
    assert_eq!(e("sizeof(int) * 2"), "(* (sizeof-type int) 2)");
    assert_eq!(e("sizeof(struct Body)"), "(sizeof-type struct-Body)");
    assert_eq!(e("_Alignof(double) + 1"), "(+ (alignof-type double) 1)");
    assert_eq!(e("__alignof__(struct Body)"), "(alignof-type struct-Body)");
    assert_eq!(
        e("__builtin_offsetof(struct cell, corners[i + 1].y) + 1"),
        "(+ (offsetof struct-cell .corners[(+ i 1)].y) 1)"
    );
    assert_eq!(e("sizeof a[0]"), "(sizeof (index a 0))");
    assert_eq!(e("sizeof -x"), "(sizeof (- x))");
    assert_eq!(
        e("(bool)1 + (char)2 + (float)3 + (unsigned)4 + (long long)5"),
        "(+ (+ (+ (+ (cast bool 1) (cast char 2)) (cast float 3)) (cast unsigned 4)) (cast long 5))"
    );
    assert_eq!(e("(dim3)x"), "(cast dim3 x)");
}

#[test]
fn literals_in_expressions() {
    assert_eq!(e("42 + 0x10u + 7L + 1UL"), "(+ (+ (+ 42 16u) 7l) 1ul)");
    assert_eq!(e("1.5 + 2.5f + .5"), "(+ (+ 1.5 2.5f) 0.5)");
    assert_eq!(e("'a' + '\\n'"), "(+ (char 97) (char 10))");
    assert_eq!(e("\"ab\" \"cd\"\n\"e\""), "\"abcde\"");
    assert_eq!(e("true || false || NULL"), "(|| (|| true false) NULL)");
}

#[test]
fn calls_and_launches() {
    assert_eq!(e("f()"), "(call f)");
    assert_eq!(e("f(a, b + 1, g(c))"), "(call f a (+ b 1) (call g c))");
    assert_eq!(e("f((a, b))"), "(call f (, a b))");
    assert_eq!(e("printf(\"%d\\n\", x)"), "(call printf \"%d\\n\" x)");
    assert_eq!(e("dim3(4, 2)"), "(call dim3 4 2)");
    assert_eq!(
        e("k<<<blocks, threads>>>(a, n)"),
        "(launch k blocks threads a n)"
    );
    assert_eq!(e("k<<<4, 64>>>()"), "(launch k 4 64)");
    assert_eq!(
        e("fill2d<<<dim3(2, 3), dim3(8, 4)>>>(d_img, w, h)"),
        "(launch fill2d (call dim3 2 3) (call dim3 8 4) d_img w h)"
    );
    assert_eq!(
        e("k<<<n >> 1, (n > 2) ? 32 : 1>>>(x)"),
        "(launch k (>> n 1) (? (> n 2) 32 1) x)"
    );
    assert_eq!(
        e("__enzyme_autodiff(f, enzyme_const, 2.0)"),
        "(call __enzyme_autodiff f enzyme_const 2.0)"
    );
    assert_eq!(
        e("cudaMalloc(&d, n * sizeof(double))"),
        "(call cudaMalloc (addr d) (* n (sizeof-type double)))"
    );
    assert_eq!(
        e("threadIdx.x + blockIdx.x * blockDim.x"),
        "(+ (. threadIdx x) (* (. blockIdx x) (. blockDim x)))"
    );
}

// ------------------------------------------------------------------ statements

#[test]
fn dangling_else() {
    assert_eq!(s("if (a) if (b) x; else y;"), "(if a (if b x y))");
    assert_eq!(s("if (a) { if (b) x; } else y;"), "(if a {(if b x)} y)");
    assert_eq!(s("if (a) x; else if (b) y; else z;"), "(if a x (if b y z))");
    assert_eq!(
        s("if (a) while (b) if (c) x; else y;"),
        "(if a (while b (if c x y)))"
    );
    assert_eq!(
        s("if (a) for (;;) if (c) x; else y; else z;"),
        "(if a (for _ _ _ (if c x y)) z)"
    );
}

#[test]
fn statements() {
    assert_eq!(s(";"), ";");
    assert_eq!(s("{ x; { y; } }"), "{x {y}}");
    assert_eq!(s("while (i < n) i++;"), "(while (< i n) (post++ i))");
    assert_eq!(s("do { i--; } while (i);"), "(do {(post-- i)} i)");
    assert_eq!(s("do x++; while (x < 3);"), "(do (post++ x) (< x 3))");
    assert_eq!(
        s("for (int i = 0; i < n; i++) s += i;"),
        "(for (decl int (i = 0)) (< i n) (post++ i) (+= s i))"
    );
    assert_eq!(
        s("for (i = 0, j = 1; ; ) break;"),
        "(for (, (= i 0) (= j 1)) _ _ break)"
    );
    assert_eq!(s("for (;;) continue;"), "(for _ _ _ continue)");
    assert_eq!(s("return; return x + 1;"), "(return) (return (+ x 1))");
    assert_eq!(
        s("parallel_for (int i = lo; i <= hi; i += 2) { a[i] = i; }"),
        "(parallel_for (decl int (i = lo)) (<= i hi) (+= i 2) {(= (index a i) i)})"
    );
    assert_eq!(
        s("parallel_for (int i = 0; i < n; i++) parallel_for (int j = 0; j < n; j++) c[i] = 0;"),
        "(parallel_for (decl int (i = 0)) (< i n) (post++ i) (parallel_for (decl int (j = 0)) (< j n) (post++ j) (= (index c i) 0)))"
    );
}

#[test]
fn spawn_and_sync() {
    assert_eq!(s("spawn f(x); sync;"), "(spawn (call f x)) sync");
    assert_eq!(s("x = spawn fib(n - 1);"), "(spawn= x (call fib (- n 1)))");
    assert_eq!(s("a[i] = spawn g();"), "(spawn= (index a i) (call g))");
    assert_eq!(s("p->v = spawn g();"), "(spawn= (-> p v) (call g))");
    // Anything after `spawn` parses; the checker says why it is wrong.
    assert_eq!(
        s("spawn x; y = spawn 1 + 2;"),
        "(spawn x) (spawn= y (+ 1 2))"
    );
    // Cilk's declaration form, split into a declaration and a spawn.
    assert_eq!(
        s("int x = spawn fib(n - 1), y = 2;"),
        "(decl int (x)) (spawn= x (call fib (- n 1))) (decl int (y = 2))"
    );
    assert_eq!(
        s("long r = spawn f();"),
        "(decl long (r)) (spawn= r (call f))"
    );
}

#[test]
fn declarations() {
    assert_eq!(
        s("int a = 1, *p, b[10], c[] = {1, 2};"),
        "(decl int (a = 1) (*p) (b[10]) (c[] = {1 2}))"
    );
    assert_eq!(
        s("const double w[3] = {1.0, 2.0, 3.0,};"),
        "(decl const const-double (w[3] = {1.0 2.0 3.0}))"
    );
    assert_eq!(
        s("int m[2] = {{1, 2}, {}};"),
        "(decl int (m[2] = {{1 2} {}}))"
    );
    assert_eq!(
        s("unsigned x; unsigned int y; signed z; signed int w;"),
        "(decl unsigned (x)) (decl unsigned (y)) (decl int (z)) (decl int (w))"
    );
    assert_eq!(
        s(
            "long a; long int b; long long c; signed long d; unsigned long e; unsigned long long f; long unsigned int g;"
        ),
        "(decl long (a)) (decl long (b)) (decl long (c)) (decl long (d)) (decl ulong (e)) (decl ulong (f)) (decl ulong (g))"
    );
    assert_eq!(
        s("unsigned char c; signed char d; char *s;"),
        "(decl uchar (c)) (decl char (d)) (decl char (*s))"
    );
    assert_eq!(
        s("static int counter = 0;"),
        "(decl static int (counter = 0))"
    );
    assert_eq!(
        s("struct Vec3 v, *pv = &v;"),
        "(decl struct-Vec3 (v) (*pv = (addr v)))"
    );
    assert_eq!(s("double **pp = NULL;"), "(decl double (**pp = NULL))");
    assert_eq!(
        s("__shared__ double buf[256];"),
        "(decl __shared__ double (buf[256]))"
    );
    assert_eq!(
        s("dim3 g(4, 2), b(8);"),
        "(decl dim3 (g = (ctor 4 2)) (b = (ctor 8)))"
    );
    assert_eq!(
        s("dim3 g = dim3(4, 2);"),
        "(decl dim3 (g = (call dim3 4 2)))"
    );
    assert_eq!(s("dim3(4, 2);"), "(call dim3 4 2)");
    assert_eq!(
        s("int *const p = q; double *restrict a;"),
        "(decl int (*p = q)) (decl double (*a))"
    );
    assert_eq!(
        s("bool ok = true; _Bool b;"),
        "(decl bool (ok = true)) (decl bool (b))"
    );
    assert_eq!(s("float f = 1.5f;"), "(decl float (f = 1.5f))");
    assert_eq!(s("struct S;"), "(decl struct-S)");
    assert_eq!(
        s("short a; unsigned short b; short int c; long double d; signed char e;"),
        "(decl short (a)) (decl ushort (b)) (decl short (c)) (decl double (d)) (decl char (e))"
    );
    assert_eq!(
        s("int m[3][4], *pa[2], (*ap)[2], (*f)(int, double *);"),
        "(decl int (m[3][4]) (*pa[2]) ((*ap)[2]) ((*f)(int double*)))"
    );
    assert_eq!(
        s("typedef int T, *PT; T x; PT y;"),
        "(decl typedef int (T) (*PT)) (decl T-T (x)) (decl T-PT (y))"
    );
    assert_eq!(
        s("enum E { A, B = 3 } e; union U { int i; float f; } u;"),
        "(decl (enum-E A B=3) (e)) (decl (union-U (int i) (float f)) (u))"
    );
    assert_eq!(
        s("struct P p = { .y = 2, .x = 1 }; int a[4] = { [2] = 5, 6 };"),
        "(decl struct-P (p = {.y=2 .x=1})) (decl int (a[4] = {[2]=5 6}))"
    );
}

#[test]
fn items() {
    assert_eq!(
        p("struct S { double x, y; struct V v; double a[3]; int *next; };"),
        "(decl (struct-S (double x) (double y) (struct-V v) (double a[3]) (int* next)))"
    );
    assert_eq!(p("struct E { };"), "(decl (struct-E ))");
    assert_eq!(
        p("_Static_assert(sizeof(int) == 4, \"int\" \" size\");"),
        "(static-assert (== (sizeof-type int) 4) \"int size\")"
    );
    assert_eq!(p("_Static_assert(1);"), "(static-assert 1)");
    assert_eq!(
        s("_Static_assert(N > 0, \"N\"); x = 1;"),
        "(static-assert (> N 0) \"N\") (= x 1)"
    );
    assert_eq!(
        p("int main() { return 0; }"),
        "(fn int main () {(return 0)})"
    );
    assert_eq!(p("int main(void) { }"), "(fn int main () {})");
    assert_eq!(
        p("int main(int argc, char **argv) { }"),
        "(fn int main ((int argc) (char** argv)) {})"
    );
    assert_eq!(
        p("int main(int argc, char *argv[]) {}"),
        "(fn int main ((int argc) (char *argv[])) {})"
    );
    assert_eq!(p("double f(double);"), "(fn double f (double))");
    assert_eq!(
        p("void g(double *, int, double a[], double b[4]);"),
        "(fn void g (double* int (double a[]) (double b[4])))"
    );
    assert_eq!(
        p("void h(int n, double a[n][*], double (*b)[*], double c[*]);"),
        "(fn void h ((int n) (double a[n][*]) (double (*b)[*]) (double c[*])))"
    );
    assert_eq!(
        p("extern double sqrt(double x);"),
        "(fn extern double sqrt ((double x)))"
    );
    assert_eq!(
        p("static inline int sq(int x) { return x * x; }"),
        "(fn static inline int sq ((int x)) {(return (* x x))})"
    );
    assert_eq!(
        p("__global__ void k(int *out) { out[0] = 1; }"),
        "(fn __global__ void k ((int* out)) {(= (index out 0) 1)})"
    );
    assert_eq!(
        p("__device__ double h(double x) { return x; }"),
        "(fn __device__ double h ((double x)) {(return x)})"
    );
    assert_eq!(
        p("__host__ __device__ float h2(float x);"),
        "(fn __device__ float h2 ((float x)))"
    );
    assert_eq!(
        p("struct Vec3 *mk(struct Vec3 a);"),
        "(fn struct-Vec3* mk ((struct-Vec3 a)))"
    );
    assert_eq!(
        p("extern double __enzyme_autodiff(void *, ...);"),
        "(fn extern double __enzyme_autodiff (void* ...))"
    );
    assert_eq!(
        p("const int N = 24; int data[N]; double w[] = {1, 2}; int enzyme_const;"),
        "(decl const const-int (N = 24))\n(decl int (data[N]))\n(decl double (w[] = {1 2}))\n(decl int (enzyme_const))"
    );
    assert_eq!(
        p("int f(int), x = 1;"),
        "(fn int f (int))\n(decl int (x = 1))"
    );
    assert_eq!(p("void f() {};"), "(fn void f () {})");
    assert_eq!(
        p("struct S; struct S { int a; };"),
        "(decl struct-S)\n(decl (struct-S (int a)))"
    );
    assert_eq!(p("dim3 grid(2, 2);"), "(decl dim3 (grid = (ctor 2 2)))");
}

#[test]
fn comments_everywhere() {
    assert_eq!(
        p("/* header */ int /* a */ main // b\n ( /* c */ ) { // d\n return /* e */ 0; } // end"),
        "(fn int main () {(return 0)})"
    );
    assert_eq!(p(""), "");
    assert_eq!(p("  // only a comment\n/* and another */\n"), "");
    assert_eq!(p("\u{FEFF}int x;"), "(decl int (x))");
}

// ------------------------------------------------------------------ syntax errors

#[test]
fn missing_semicolon() {
    let src = "int main() {\n    int x = 1\n    return x;\n}\n";
    assert_eq!(
        errs(src),
        "2:14: error: expected `;`, found `return` [help: add `;` here]\n"
    );
    let (_, d) = parse(src);
    assert_eq!((d[0].span.start, d[0].span.end), (26, 26), "just after `1`");
    assert_eq!(
        errs("int main() { f() }"),
        "1:17: error: expected `;`, found `}` [help: add `;` here]\n"
    );
    assert_eq!(
        errs("int main() { x = 1 2; }"),
        "1:20: error: expected `;`, found `2`\n"
    );
    assert_eq!(
        errs("int x = 1\nint y;"),
        "1:10: error: expected `;`, found `int` [help: add `;` here]\n"
    );
}

#[test]
fn expected_phrases() {
    assert_eq!(
        errs("int main() { x = ; }"),
        "1:18: error: expected an expression, found `;`\n"
    );
    assert_eq!(
        errs("int main() { f(1, ); }"),
        "1:19: error: expected an expression, found `)`\n"
    );
    assert_eq!(
        errs("int main() { f(1 2); }"),
        "1:18: error: expected `)` or `,`, found `2`\n"
    );
    assert_eq!(
        errs("int main() { if (x { } }"),
        "1:20: error: expected `)` or `,`, found `{`\n"
    );
    assert_eq!(
        errs("int main() { a[1; }"),
        "1:17: error: expected `]`, found `;`\n"
    );
    assert_eq!(
        errs("int main() { return ) }"),
        "1:21: error: expected an expression or `;`, found `)`\n"
    );
    assert_eq!(
        errs("int main() { ) }"),
        "1:14: error: expected a statement or `}`, found `)`\n"
    );
    assert_eq!(
        errs("int main() { s. = 1; }"),
        "1:17: error: expected a name, found `=`\n"
    );
    assert_eq!(
        errs("struct { int x; } 3;"),
        "1:19: error: expected a name or `;`, found `3`\n"
    );
    assert_eq!(
        errs("int main( { }"),
        "1:11: error: expected a type or `)`, found `{`\n"
    );
    assert_eq!(
        errs("int 3;"),
        "1:5: error: expected a name or `;`, found `3`\n"
    );
    assert_eq!(
        errs("int main() { k<<<1, 2>>(x); }"),
        "1:27: error: expected `>>>`, found `;`\n"
    );
}

#[test]
fn special_errors() {
    assert_eq!(
        errs("_Complex double z;"),
        "1:1: error: `_Complex` is not supported [help: store the real and imaginary parts in a `struct`]\n"
    );
    assert_eq!(
        errs("double _Complex z;"),
        "1:8: error: `_Complex` is not supported [help: store the real and imaginary parts in a `struct`]\n"
    );
    assert_eq!(
        errs("int x __attribute__((aligned(8)));"),
        "1:22: error: the attribute `aligned` is not supported [help: remove it: parc aligns every type naturally, and a larger alignment would change sizes and offsets]\n"
    );
    assert_eq!(
        errs("int main() { x = 1; } else"),
        "1:23: error: `else` without a matching `if` [help: check the braces and the `;`s of the `if` statement above]\n"
    );
    assert_eq!(
        errs("int main() { if (a) x = 1; y = 2; else z = 3; }"),
        "1:35: error: `else` without a matching `if` [help: check the braces and the `;`s of the `if` statement above]\n"
    );
    assert_eq!(
        errs("int main() { }\n}\n"),
        "2:1: error: unexpected `}` [help: remove it, or check the braces above]\n"
    );
    assert_eq!(
        errs("x = 3;"),
        "1:1: error: expected a declaration or function definition, found `x` [help: statements must be inside a function; types are written with keywords such as `int` or `struct S`]\n"
    );
    assert_eq!(
        errs("int main() { y += spawn f(); }"),
        "1:19: error: expected an expression, found `spawn` [help: `spawn` must start a statement: `spawn f(x);` or `y = spawn f(x);`]\n"
    );
    let (_, d) = parse("int main() {\n  if (x) {\n    y = 1;\n");
    assert_eq!(
        show(&d, ""),
        "1:1: error: expected a statement or `}`, found end of file\n"
    );
    assert_eq!(d[0].secondary.len(), 1, "points at the unclosed `{{`");
    assert_eq!(d[0].secondary[0].0.start, 22);
}

#[test]
fn declaration_errors() {
    assert_eq!(
        errs("int double x;"),
        "1:5: error: `double` cannot be combined with `int` [help: a declaration has exactly one type]\n"
    );
    assert_eq!(
        errs("const x = 1;"),
        "1:1: error: missing type in declaration [help: C99 has no implicit `int`; write the type, e.g. `int`]\n"
    );
    assert_eq!(
        errs("long long double x;"),
        "1:11: error: `long long` cannot be combined with `double`\n"
    );
    // Bit-fields parse (named, unnamed, zero width); the checker judges
    // their widths.
    assert_eq!(errs("struct S { int a : 3, : 2; unsigned : 0; };"), "");
    assert_eq!(
        errs("int x(3);"),
        "1:6: error: constructor-style initialization is only for `dim3` [help: write `x = value`]\n"
    );
    assert_eq!(
        errs("int f() { static int g(int); }"),
        "1:22: error: a function declared in a block cannot be `static` [help: declare it at file scope, or remove `static`]\n"
    );
    // Functions declared in a block are declared at file scope, before
    // the function that holds them.
    assert_eq!(errs("int f() { int g(int); return g(1); }"), "");
    // Old-style definitions become prototype definitions.
    assert_eq!(
        p("int f(a, p) double *p; int a; { }"),
        "(fn int f ((int a) (double* p)) {})"
    );
    assert_eq!(
        p("int f() { extern double g(double), x; }"),
        "(fn extern double g (double))\n(fn int f () {(decl extern double (x))})"
    );
    assert_eq!(
        errs("int x = spawn f();"),
        "1:9: error: `spawn` is not allowed in a global initializer [help: spawn from a statement in a function body: `x = spawn f(...);`]\n"
    );
    assert_eq!(
        p("int main() { (f)(x); a[0](x); }"),
        "(fn int main () {(call f x) (call* (index a 0) x)})"
    );
    assert_eq!(errs("int (x);"), "");
    assert_eq!(
        errs("int;"),
        "1:1: warning: this declaration declares nothing [help: add a name, e.g. `int x;`]\n"
    );
    assert_eq!(
        errs("double f(static int x);"),
        "1:10: error: `static` is not allowed in a parameter [help: remove `static`]\n"
    );
    assert_eq!(
        errs("int main() { x = (static int)y; }"),
        "1:19: error: `static` is not allowed in a type name [help: remove `static`]\n"
    );
    assert_eq!(
        errs("int x { }"),
        "1:5: error: `x` has a body but no parameter list [help: write `x(...)` with its parameters, or `x(void)`]\n"
    );
}

#[test]
fn recovery_reports_several_errors() {
    let src = "\
int main() {
    int x = 1
    y = ;
    if (x) { z = 3 + ; }
    return 0;
}
int ok(void) { return 1; }
int bad( { }
double also_ok(double v) { return v; }
int g() { w = 1 }
";
    let (prog, diags) = parse(src);
    assert_eq!(
        show(&diags, src),
        "2:14: error: expected `;`, found `y` [help: add `;` here]\n\
         4:22: error: expected an expression, found `;`\n\
         8:10: error: expected a type or `)`, found `{`\n\
         10:16: error: expected `;`, found `}` [help: add `;` here]\n"
    );
    let names: Vec<String> = prog
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Func(f) => Some(f.name.name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["main", "ok", "also_ok", "g"]);
    // The bad statements became error statements; the good ones are kept.
    let Item::Func(main) = &prog.items[0] else {
        panic!()
    };
    let body: Vec<String> = main.body.as_ref().unwrap().stmts.iter().map(st).collect();
    assert_eq!(body, ["<error>", "(if x {<error>})", "(return 0)"]);
    check_spans(src, &prog);
}

#[test]
fn lexical_errors_do_not_cascade() {
    // The stray `@` is reported once; the parse error it causes is not.
    assert_eq!(
        errs("int main() { int x = 3 @ 4; return x; }"),
        "1:24: error: unexpected character `@`\n"
    );
    assert_eq!(
        errs("int main() {\n  printf(\"abc);\n  return 0;\n}\n"),
        "2:10: error: unterminated string literal [help: add a closing `\"`]\n"
    );
    assert_eq!(
        errs("int main() { return 0; }\n/* unfinished\nint f() {}"),
        "2:1: error: unterminated comment [help: close it with `*/`]\n"
    );
    // But syntax errors in other items are still reported.
    assert_eq!(
        errs("int a = 1 @;\nint main() { return }"),
        "1:11: error: unexpected character `@`\n2:21: error: expected an expression or `;`, found `}`\n"
    );
}

#[test]
fn empty_and_whitespace_files() {
    for src in ["", " ", "\n\n", "// c", "/* c */", ";"] {
        let (prog, diags) = parse(src);
        assert!(prog.items.is_empty() && diags.is_empty(), "{src:?}");
    }
}

#[test]
fn render_points_at_the_problem() {
    let src = "int main() {\n    int x = 1\n    return x;\n}\n";
    let (_, d) = parse(src);
    let out = render("t.pc", src, &d, false);
    assert!(
        out.starts_with("t.pc:2:14: error: expected `;`, found `return`"),
        "{out}"
    );
    assert!(out.contains("add `;` here"), "{out}");
}

// ------------------------------------------------------------------ limits

fn nesting_error(src: String) -> String {
    quickly(move || {
        let (prog, diags) = parse(&src);
        assert!(prog.items.is_empty());
        show(&diags, &src)
    })
}

#[test]
fn deep_brackets_are_rejected() {
    let n = 100_000;
    let src = format!(
        "int main() {{ return {}1{}; }}",
        "(".repeat(n),
        ")".repeat(n)
    );
    assert_eq!(
        nesting_error(src),
        "1:276: error: nesting is too deep (more than 256 levels) [help: split the expression or block into smaller pieces]\n"
    );
    let src = format!("int main() {}{}", "{".repeat(n), "}".repeat(n));
    assert!(nesting_error(src).contains("nesting is too deep"));
    let src = format!("int x = {}1{};", "a[".repeat(n), "]".repeat(n));
    assert!(nesting_error(src).contains("nesting is too deep"));
    // Exactly at the limit is fine.
    let depth = MAX_NESTING - 1; // the function body is one level
    let src = format!(
        "int main() {{ return {}1{}; }}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let diags = quickly(move || parse(&src).1.len());
    assert_eq!(diags, 0);
}

#[test]
fn long_prefix_chains_are_rejected() {
    for op in ["-", "!", "~", "*", "& ", "- ", "(int)", "sizeof ", "++"] {
        let src = format!("int main() {{ return {}x; }}", op.repeat(50_000));
        let out = nesting_error(src);
        assert!(out.contains("nesting is too deep"), "{op}: {out}");
    }
    let src = format!("int main() {{ return a {}x; }}", "- ".repeat(50_000));
    assert!(nesting_error(src).contains("nesting is too deep"));
    // Prefix operators and parentheses add up.
    let src = format!(
        "int main() {{ return {}x{}; }}",
        "-(".repeat(200),
        ")".repeat(200)
    );
    assert!(nesting_error(src).contains("nesting is too deep"));
    // Short chains in long expressions are fine.
    let src = format!("int main() {{ return {}0; }}", "-x + ".repeat(1000));
    assert_eq!(quickly(move || parse(&src).1.len()), 0);
}

#[test]
fn long_expressions_are_rejected() {
    let src = format!("int main() {{ return {}1; }}", "1+".repeat(100_000));
    assert!(nesting_error(src).contains("expression is too long (more than 10000 operators)"));
    let src = format!("int main() {{ x = {}1; }}", "a = ".repeat(100_000));
    assert!(nesting_error(src).contains("expression is too long"));
    let src = format!("int main() {{ x = {}1; }}", "c ? 1 : ".repeat(100_000));
    assert!(nesting_error(src).contains("expression is too long"));
    let src = format!("int main() {{ x = a{}; }}", "[0]".repeat(100_000));
    assert!(nesting_error(src).contains("expression is too long"));
    let src = format!("int main() {{ x = a{}; }}", ".b".repeat(100_000));
    assert!(nesting_error(src).contains("expression is too long"));
    // Just under the limit parses, and the tree can be dropped on a small stack.
    let terms = MAX_CHAIN - 10;
    let src = format!("int main() {{ return {}1; }}", "1+".repeat(terms));
    assert_eq!(quickly(move || parse(&src).1.len()), 0);
    // Many short statements, and large initializer lists, are fine.
    let src = format!("int main() {{ {} }}", "x = x + 1;".repeat(50_000));
    assert_eq!(quickly(move || parse(&src).1.len()), 0);
    let src = format!("double w[] = {{ {} 1 }};", "1.5, ".repeat(50_000));
    assert_eq!(quickly(move || parse(&src).1.len()), 0);
}

#[test]
fn long_statement_chains_are_rejected() {
    let src = format!(
        "int main() {{ if (a) x; {} }}",
        "else if (a) x; ".repeat(50_000)
    );
    assert!(nesting_error(src).contains("statements are nested too deeply"));
    let src = format!("int main() {{ {} x; }}", "for (;;) ".repeat(50_000));
    assert!(nesting_error(src).contains("statements are nested too deeply"));
    let src = format!("int main() {{ {} x; }}", "if (a) ".repeat(50_000));
    assert!(nesting_error(src).contains("statements are nested too deeply"));
    // Many sequential if/else statements are fine.
    let src = format!("int main() {{ {} }}", "if (a) x; else y; ".repeat(20_000));
    assert_eq!(quickly(move || parse(&src).1.len()), 0);
    // A long but allowed chain.
    let src = format!(
        "int main() {{ if (a) x; {} }}",
        "else if (a) x; ".repeat(MAX_CHAIN - 10)
    );
    assert_eq!(quickly(move || parse(&src).1.len()), 0);
}

#[test]
fn errors_in_deep_input_are_quick() {
    // Error recovery drops partial trees; they are bounded like the rest.
    let src = format!(
        "int main() {{ x = {}1 ) ; y = 1; }}",
        "1+".repeat(MAX_CHAIN - 10)
    );
    let out = quickly(move || {
        let (_, d) = parse(&src);
        show(&d, &src)
    });
    assert!(out.contains("expected `;`, found `)`"), "{out}");
    let garbage: String = (0..200_000u32)
        .map(|i| char::from((i * 7919 % 95 + 32) as u8))
        .collect();
    quickly(move || {
        let (_, d) = parse(&garbage);
        assert!(!d.is_empty());
    });
    let binary: String = (0..100_000u32)
        .map(|i| char::from((i * 31 % 128) as u8))
        .collect();
    quickly(move || {
        let (_, d) = parse(&binary);
        assert!(!d.is_empty());
    });
}

// ------------------------------------------------------------------ samples

#[test]
fn samples_parse_without_diagnostics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut count = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "pc") {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        // As parc reads it: preprocessed, with its `// flags:`.
        let options = parc_lang::pp::Options {
            openmp: src.contains("// flags: -fopenmp"),
            ..parc_lang::pp::Options::default()
        };
        let pre = parc_lang::pp::preprocess(&path.display().to_string(), &src, &options);
        let (prog, mut diags) = parse(&pre.text);
        diags.extend(pre.diags.iter().filter(|d| d.is_error()).cloned());
        assert!(
            diags.is_empty(),
            "{}:\n{}",
            path.display(),
            parc_lang::diag::render_mapped(&pre.map, &diags, false)
        );
        assert!(!prog.items.is_empty(), "{}", path.display());
        check_spans(&pre.text, &prog);
        count += 1;
    }
    assert!(count > 0 || dir.read_dir().is_err());
}

#[test]
fn chunks_cover_all_tokens() {
    let src = "struct S { int a; }; int a[] = {1, 2}, b = 3; int f() { return 0; } ; int g();";
    let (tokens, _) = lex::lex(src);
    let chunks = parse::item_chunks(&tokens);
    let texts: Vec<&str> = chunks
        .iter()
        .map(|c| &src[tokens[c.start].0..tokens[c.end - 1].2])
        .collect();
    assert_eq!(
        texts,
        [
            "struct S { int a; };",
            "int a[] = {1, 2}, b = 3;",
            "int f() { return 0; } ;",
            "int g();"
        ]
    );
}

#[test]
fn recovery_from_broken_brackets() {
    // A stray `}` ends the function early: one error, at the first statement
    // left outside, pointing back at the `}`; later items still parse.
    let src = "int main() {\n    if (a) { x = 1; } }\n    y = 2;\n    return 0;\n}\nint ok() { return 1; }\n";
    let (prog, d) = parse(src);
    assert_eq!(
        show(&d, src),
        "3:5: error: expected a declaration or function definition, found `y` [help: statements must be inside a function; types are written with keywords such as `int` or `struct S`]\n"
    );
    assert_eq!(d[0].secondary.len(), 1);
    assert_eq!(prog.items.len(), 2, "main (up to the `}}`) and ok");
    // An unclosed parenthesis stays inside its function.
    let src = "int f() {\n    int a = (1 + 2;\n    return a;\n}\nint g() { return 1 }\n";
    assert_eq!(
        errs(src),
        "2:19: error: expected `)` or `,`, found `;`\n5:19: error: expected `;`, found `}` [help: add `;` here]\n"
    );
    // A missing `}`.
    let src = "int f() {\n    x = 1;\n\nint g() {\n    return 2;\n}\n";
    assert_eq!(
        errs(src),
        "4:9: error: expected `;`, found `{` [help: functions cannot be defined inside functions; is a `}` missing before this one?]\n"
    );
}

#[test]
fn names_used_as_types() {
    assert_eq!(
        errs("integer count(int n) { return n; }"),
        "1:1: error: unknown type name `integer` [help: declare it with `typedef` before this use, or write `struct integer` for a struct]\n"
    );
    assert_eq!(
        errs("int main() {\n    sizet n = 3;\n    return 0;\n}"),
        "2:5: error: unknown type name `sizet` [help: declare it with `typedef` before this use, or write `struct sizet` for a struct]\n"
    );
    assert_eq!(
        errs("void f(int a, uint8 *b);"),
        "1:15: error: unknown type name `uint8` [help: declare it with `typedef` before this use, or write `struct uint8` for a struct]\n"
    );
    // One message, not four (the parameter list is not read as `dim3`
    // constructor arguments, nor the body as a stray block).
    assert_eq!(
        errs("double f(sizet n, double x) {\n    return x * n;\n}\nint main() { return 0; }"),
        "1:10: error: unknown type name `sizet` [help: declare it with `typedef` before this use, or write `struct sizet` for a struct]\n"
    );
    assert_eq!(
        errs("void g(int a, vec v) { }"),
        "1:15: error: unknown type name `vec` [help: declare it with `typedef` before this use, or write `struct vec` for a struct]\n"
    );
    assert_eq!(
        errs("helper(int a) { return a; }"),
        "1:1: error: missing return type for function `helper` [help: ParC has no implicit `int`: write e.g. `int helper(...)`, or `void helper(...)`]\n"
    );
    // A call at file scope is not a definition.
    assert!(errs("helper(1);").contains("expected a declaration or function definition"));
}

#[test]
fn omp_pragmas_and_parallel_reduce() {
    let src = "void f() {\n#pragma omp parallel for private(j) schedule(static)\nfor (i = 0; i < n; i++) j = i;\n\
               parallel_reduce(+: s, t) (int i = 0; i < n; i++) s += i;\n}\n";
    let (p, d) = parc_lang::parse::parse(src);
    assert!(d.is_empty(), "{d:?}");
    let Item::Func(f) = &p.items[0] else {
        panic!("not a function")
    };
    let body: Vec<String> = f.body.as_ref().unwrap().stmts.iter().map(st).collect();
    assert!(
        body[0].starts_with("(omp \"parallel for\" [Private("),
        "{}",
        body[0]
    );
    assert!(
        body[0].ends_with("Schedule] (for (= i 0) (< i n) (post++ i) (= j i)))"),
        "{}",
        body[0]
    );
    assert!(
        body[1].starts_with("(omp \"parallel for\" [Reduction(Add, ["),
        "{}",
        body[1]
    );
    assert!(
        body[1].ends_with("(parallel_for (decl int (i = 0)) (< i n) (post++ i) (+= s i)))"),
        "{}",
        body[1]
    );
}

// ------------------------------------------------------------------ node sizes

/// The tree of a whole file is in memory at once (a generated source of
/// tens of MB has millions of nodes), so a large variant inline in the
/// common nodes costs memory in every one of them: large parts are boxed
/// (`ast::StmtKind`). These bounds keep it so.
#[test]
fn nodes_stay_small() {
    use std::mem::size_of;
    assert!(
        size_of::<Expr>() <= 80,
        "Expr is {} bytes",
        size_of::<Expr>()
    );
    assert!(
        size_of::<Stmt>() <= 128,
        "Stmt is {} bytes",
        size_of::<Stmt>()
    );
}
