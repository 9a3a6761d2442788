//! OpenMP directives: what a `#pragma omp` line says, read from the
//! tokens the lexer gives for it, and the same clause for ParC's own
//! `parallel_reduce(op: vars)`.
//!
//! Only the syntax lives here; the checker decides what each directive
//! means in parc (a `parallel for` is a `parallel_for`; what parc cannot
//! honour is reported there, never dropped).

use crate::ast::{Expr, ExprKind, Ident, Span};
use crate::diag::Diagnostic;
use crate::lex::{self, Token};

/// A reduction operator (OpenMP 4.5, 2.15.3.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedOp {
    Add,
    Mul,
    /// `-`: OpenMP combines partial results with `+`.
    Sub,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
    And,
    Or,
}

impl RedOp {
    pub fn spelling(self) -> &'static str {
        match self {
            RedOp::Add => "+",
            RedOp::Mul => "*",
            RedOp::Sub => "-",
            RedOp::Min => "min",
            RedOp::Max => "max",
            RedOp::BitAnd => "&",
            RedOp::BitOr => "|",
            RedOp::BitXor => "^",
            RedOp::And => "&&",
            RedOp::Or => "||",
        }
    }
}

#[derive(Clone, Debug)]
pub enum Clause {
    Reduction(RedOp, Vec<Ident>),
    Private(Vec<Ident>),
    FirstPrivate(Vec<Ident>),
    LastPrivate(Vec<Ident>),
    Shared(Vec<Ident>),
    /// `default(shared|none)`: only constrains what the program may write.
    Default,
    /// `schedule(kind[, chunk])`: how iterations are dealt out; parc's
    /// scheduler balances the load itself.
    Schedule,
    Collapse(u32),
    /// `num_threads(n)`: the team's size (a variable or a constant).
    NumThreads(Expr),
    /// `if(c)`: the team has one thread when `c` is 0 (a variable or a
    /// constant).
    If(Expr),
    Nowait,
    Ordered,
    /// Any other clause, by name.
    Other(String),
}

#[derive(Clone, Debug)]
pub struct ClauseAt {
    pub clause: Clause,
    pub span: Span,
}

/// `#pragma omp WORDS CLAUSES`.
#[derive(Clone, Debug)]
pub struct Pragma {
    /// The construct, e.g. `parallel for`, `atomic`, `critical`.
    pub construct: String,
    /// The name of a named `critical(name)`.
    pub name: Option<String>,
    pub clauses: Vec<ClauseAt>,
    /// The whole line.
    pub span: Span,
}

impl Pragma {
    pub fn is(&self, construct: &str) -> bool {
        self.construct == construct
    }
}

/// Words that start clauses; the construct is the words before the first.
const CLAUSES: [&str; 16] = [
    "reduction",
    "private",
    "firstprivate",
    "lastprivate",
    "shared",
    "default",
    "schedule",
    "collapse",
    "num_threads",
    "if",
    "nowait",
    "ordered",
    "copyin",
    "proc_bind",
    "linear",
    "aligned",
];

/// Reads the text of a `#pragma omp` line (the whole line, from `#`), which
/// starts at byte `at` of the source.
pub fn parse_pragma(line: &str, at: usize) -> (Pragma, Vec<Diagnostic>) {
    // What follows `omp` (the lexer reads a `#` line as one token).
    let body = line
        .find("omp")
        .map_or(line.len(), |k| k + 3)
        .min(line.len());
    let (tokens, mut diags) = lex::lex(&line[body..]);
    let toks: Vec<(Span, Token)> = tokens
        .into_iter()
        .map(|(s, t, e)| (Span::new(at + body + s, at + body + e), t))
        .collect();
    let span = Span::new(at, at + line.trim_end().len());
    let mut i = 0;
    let word = |t: &Token| match t {
        Token::Ident(w) => Some(w.clone()),
        Token::If => Some("if".into()),
        Token::For => Some("for".into()),
        Token::Default => Some("default".into()),
        _ => None,
    };
    let mut words = Vec::new();
    // The first word is the construct's, even where it could start a
    // clause (`ordered`, `critical(name)`).
    while let Some(w) = toks.get(i).and_then(|t| word(&t.1)) {
        let starts_clause =
            CLAUSES.contains(&w.as_str()) || toks.get(i + 1).is_some_and(|t| t.1 == Token::LParen);
        if !words.is_empty() && starts_clause {
            break;
        }
        words.push(w);
        i += 1;
    }
    let mut name = None;
    if words.len() == 1
        && words[0] == "critical"
        && toks.get(i).is_some_and(|t| t.1 == Token::LParen)
    {
        match (toks.get(i + 1), toks.get(i + 2)) {
            (Some((_, Token::Ident(n))), Some((_, Token::RParen))) => {
                name = Some(n.clone());
                i += 3;
            }
            _ => {
                diags.push(
                    Diagnostic::error(toks[i].0, "`critical(...)` takes a name")
                        .with_label("expected `(name)`")
                        .with_help("write `#pragma omp critical(name)`"),
                );
                i = toks.len();
            }
        }
    }
    let mut clauses = Vec::new();
    while i < toks.len() {
        let (start, tok) = (&toks[i].0, &toks[i].1);
        if *tok == Token::Comma {
            i += 1;
            continue;
        }
        let Some(name) = word(tok) else {
            diags.push(
                Diagnostic::error(*start, "expected an OpenMP clause")
                    .with_label("not a clause")
                    .with_help("clauses look like `private(x)` or `reduction(+: sum)`"),
            );
            break;
        };
        i += 1;
        // The parenthesized argument, if any: tokens up to the matching `)`.
        let mut args: &[(Span, Token)] = &[];
        let mut end = start.end;
        if toks.get(i).is_some_and(|t| t.1 == Token::LParen) {
            let mut depth = 0;
            let open = i;
            let mut close = None;
            for (k, t) in toks.iter().enumerate().skip(i) {
                match t.1 {
                    Token::LParen => depth += 1,
                    Token::RParen => {
                        depth -= 1;
                        if depth == 0 {
                            close = Some(k);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(close) = close else {
                diags.push(
                    Diagnostic::error(*start, format!("`{name}(` is not closed"))
                        .with_label("missing `)`"),
                );
                break;
            };
            args = &toks[open + 1..close];
            end = toks[close].0.end;
            i = close + 1;
        }
        let cspan = Span::new(start.start as usize, end as usize);
        let clause = match clause(&name, args, cspan) {
            Ok(c) => c,
            Err(d) => {
                diags.push(d);
                continue;
            }
        };
        clauses.push(ClauseAt {
            clause,
            span: cspan,
        });
    }
    (
        Pragma {
            construct: words.join(" "),
            name,
            clauses,
            span,
        },
        diags,
    )
}

fn names(args: &[(Span, Token)], what: &str, span: Span) -> Result<Vec<Ident>, Diagnostic> {
    let mut out = Vec::new();
    for (k, (s, t)) in args.iter().enumerate() {
        match (k % 2, t) {
            (0, Token::Ident(n)) => out.push(Ident {
                name: n.clone(),
                span: *s,
            }),
            (1, Token::Comma) => {}
            _ => {
                return Err(
                    Diagnostic::error(*s, format!("expected a variable name in `{what}`"))
                        .with_label("not a variable name")
                        .with_help(format!("write `{what}(a, b)`")),
                );
            }
        }
    }
    if out.is_empty() {
        return Err(
            Diagnostic::error(span, format!("`{what}` names no variable"))
                .with_help(format!("write `{what}(a, b)`")),
        );
    }
    Ok(out)
}

fn clause(name: &str, args: &[(Span, Token)], span: Span) -> Result<Clause, Diagnostic> {
    Ok(match name {
        "reduction" => {
            let colon = args.iter().position(|t| t.1 == Token::Colon);
            let Some(colon) = colon else {
                return Err(
                    Diagnostic::error(span, "`reduction` needs `operator: variables`")
                        .with_help("write `reduction(+: sum)`"),
                );
            };
            let op = reduction_op(&args[..colon]).ok_or_else(|| {
                Diagnostic::error(span, "unknown reduction operator")
                    .with_label("not an OpenMP reduction operator")
                    .with_help("the operators are + * - min max & | ^ && ||")
            })?;
            Clause::Reduction(op, names(&args[colon + 1..], "reduction", span)?)
        }
        "private" => Clause::Private(names(args, name, span)?),
        "firstprivate" => Clause::FirstPrivate(names(args, name, span)?),
        "lastprivate" => Clause::LastPrivate(names(args, name, span)?),
        "shared" => Clause::Shared(names(args, name, span)?),
        "default" => Clause::Default,
        "schedule" => Clause::Schedule,
        "collapse" => match args {
            [(_, Token::Number(lex::Number::Int { value, .. }))] if (1..=64).contains(value) => {
                Clause::Collapse(*value as u32)
            }
            _ => {
                return Err(Diagnostic::error(
                    span,
                    "`collapse` takes a positive integer constant",
                )
                .with_help("write `collapse(2)`"));
            }
        },
        "num_threads" => Clause::NumThreads(operand(args, name, span)?),
        "if" => Clause::If(operand(args, name, span)?),
        "nowait" => Clause::Nowait,
        "ordered" => Clause::Ordered,
        other => Clause::Other(other.to_string()),
    })
}

/// The argument of `num_threads(...)` or `if(...)`: a variable or an
/// integer constant (what the clause reader can give the checker without
/// a second expression parser). `if(parallel: c)` names its construct.
fn operand(args: &[(Span, Token)], what: &str, span: Span) -> Result<Expr, Diagnostic> {
    let args = match args {
        [(_, Token::Ident(m)), (_, Token::Colon), rest @ ..] if m == "parallel" => rest,
        _ => args,
    };
    match args {
        [(s, Token::Ident(n))] => Ok(Expr {
            kind: ExprKind::Ident(n.clone()),
            span: *s,
        }),
        [
            (
                s,
                Token::Number(lex::Number::Int {
                    value,
                    suffix,
                    decimal,
                }),
            ),
        ] => Ok(Expr {
            kind: ExprKind::IntLit {
                value: *value,
                suffix: *suffix,
                decimal: *decimal,
            },
            span: *s,
        }),
        _ => Err(Diagnostic::error(
            span,
            format!("parc reads `{what}(...)` as one variable or integer constant"),
        )
        .with_label("an expression parc does not read here")
        .with_help(format!(
            "assign the expression to a variable before the pragma: `int t = ...;` then `{what}(t)`"
        ))),
    }
}

/// The operator of a `reduction` clause (also ParC's `parallel_reduce`).
pub fn reduction_op(toks: &[(Span, Token)]) -> Option<RedOp> {
    Some(match toks {
        [(_, Token::Plus)] => RedOp::Add,
        [(_, Token::Star)] => RedOp::Mul,
        [(_, Token::Minus)] => RedOp::Sub,
        [(_, Token::Amp)] => RedOp::BitAnd,
        [(_, Token::Pipe)] => RedOp::BitOr,
        [(_, Token::Caret)] => RedOp::BitXor,
        [(_, Token::AndAnd)] => RedOp::And,
        [(_, Token::OrOr)] => RedOp::Or,
        [(_, Token::Ident(w))] if w == "min" => RedOp::Min,
        [(_, Token::Ident(w))] if w == "max" => RedOp::Max,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructs_and_clauses() {
        let (p, d) = parse_pragma(
            "#pragma omp parallel for reduction(+: s, t) private(j) schedule(dynamic, 4) collapse(2)",
            10,
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(p.construct, "parallel for");
        assert_eq!(p.clauses.len(), 4);
        match &p.clauses[0].clause {
            Clause::Reduction(RedOp::Add, v) => {
                assert_eq!(
                    v.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(),
                    ["s", "t"]
                )
            }
            c => panic!("{c:?}"),
        }
        assert!(matches!(p.clauses[3].clause, Clause::Collapse(2)));
        let (p, _) = parse_pragma("#pragma omp atomic", 0);
        assert!(p.is("atomic"));
        // Constructs whose first word could start a clause.
        let (p, d) = parse_pragma("#pragma omp ordered", 0);
        assert!(d.is_empty() && p.is("ordered") && p.clauses.is_empty());
        let (p, d) = parse_pragma("#pragma omp critical (update_x)", 0);
        assert!(d.is_empty(), "{d:?}");
        assert!(p.is("critical") && p.clauses.is_empty());
        assert_eq!(p.name.as_deref(), Some("update_x"));
        let (p, d) = parse_pragma("#pragma omp parallel for ordered lastprivate(x)", 0);
        assert!(d.is_empty() && p.is("parallel for") && p.clauses.len() == 2);
        let (p, d) = parse_pragma("#pragma omp parallel for reduction(max: m)", 0);
        assert!(d.is_empty());
        assert!(matches!(
            p.clauses[0].clause,
            Clause::Reduction(RedOp::Max, _)
        ));
    }

    #[test]
    fn malformed_clauses_are_errors() {
        for bad in [
            "#pragma omp parallel for reduction(sum)",
            "#pragma omp parallel for reduction(%: s)",
            "#pragma omp parallel for private(1)",
            "#pragma omp parallel for collapse(n)",
            "#pragma omp parallel for private(x",
            "#pragma omp critical(1)",
        ] {
            assert!(!parse_pragma(bad, 0).1.is_empty(), "{bad}");
        }
    }
}
