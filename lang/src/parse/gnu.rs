//! GNU C's `__attribute__((...))` and `__extension__`, removed from the
//! token stream before the grammar runs: C code that users already have
//! (and the headers it was written against) sprinkles them everywhere, and
//! most attributes are hints that do not change what a program computes.
//!
//! Each attribute of a list is judged by its name (`__name__` and `name`
//! are one name, as in gcc):
//! - a hint ([`HINTS`]: `unused`, `noinline`, `const`, `format`, ...) is
//!   dropped without a word: parc honours its meaning by doing nothing
//!   (an unused variable is not an error; inlining is parc's choice);
//! - one that changes layout, linkage or control flow ([`REFUSED`]:
//!   `packed`, `aligned`, `cleanup`, `constructor`, ...) is an error that
//!   names it: ignoring it would change what the program computes;
//! - any other name is a warning and is ignored, as gcc ignores attributes
//!   it does not know (`-Wattributes`), so no program relies on one.
//!
//! Invariant: afterwards no `GnuAttribute` or `GnuExtension` token is left,
//! and every token kept keeps its span.

use crate::ast::Span;
use crate::diag::Diagnostic;
use crate::lex::{Spanned, Token};

/// Attributes that only tell the compiler something it may ignore.
const HINTS: &[&str] = &[
    "access",
    "alloc_align",
    "alloc_size",
    "always_inline",
    "artificial",
    "assume_aligned",
    "cold",
    "const",
    "deprecated",
    "externally_visible",
    "fallthrough",
    "flatten",
    "format",
    "format_arg",
    "gnu_inline",
    "hot",
    "leaf",
    "malloc",
    "may_alias",
    "maybe_unused",
    "no_instrument_function",
    "no_sanitize",
    "no_sanitize_address",
    "no_sanitize_undefined",
    "no_stack_protector",
    "noclone",
    "noinline",
    "noipa",
    "nonnull",
    "noreturn",
    "nothrow",
    "optimize",
    "pure",
    "returns_nonnull",
    "sentinel",
    "target",
    "unavailable",
    "unused",
    "used",
    "visibility",
    "warn_unused_result",
    "warning",
];

/// Attributes whose meaning parc would silently change by ignoring them,
/// with the help the error gives.
const REFUSED: &[(&str, &str)] = &[
    (
        "aligned",
        "remove it: parc aligns every type naturally, and a larger alignment would change sizes and offsets",
    ),
    (
        "packed",
        "remove it and let members be aligned, or read the bytes with `memcpy`",
    ),
    (
        "vector_size",
        "use arrays and loops: parc vectorizes loops itself",
    ),
    (
        "mode",
        "use the standard type of that width (`int64_t`, ...)",
    ),
    (
        "cleanup",
        "call the cleanup function explicitly before each exit of the scope",
    ),
    ("constructor", "call the function at the start of `main`"),
    ("destructor", "register the function with `atexit`"),
    ("section", "remove it: parc places every object itself"),
    ("weak", "define the function or variable once"),
    ("weakref", "define the function or variable once"),
    ("alias", "call the aliased function directly"),
    ("ifunc", "call the implementation directly"),
    (
        "transparent_union",
        "pass the union member's type explicitly",
    ),
    (
        "scalar_storage_order",
        "convert byte order explicitly when reading and writing",
    ),
    ("tls_model", "thread-local storage is not supported"),
    ("returns_twice", "`setjmp`-like functions are not supported"),
];

/// Removes every `__extension__` and `__attribute__((...))` from `tokens`,
/// reporting the attributes it cannot honour into `diags`.
pub fn strip_gnu(source: &str, tokens: &mut Vec<Spanned>, diags: &mut Vec<Diagnostic>) {
    if !tokens
        .iter()
        .any(|t| matches!(t.1, Token::GnuAttribute | Token::GnuExtension))
    {
        return;
    }
    let mut kept = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].1 {
            Token::GnuExtension => i += 1,
            Token::GnuAttribute => i = attribute(source, tokens, i, diags),
            _ => {
                kept.push(tokens[i].clone());
                i += 1;
            }
        }
    }
    *tokens = kept;
}

/// Judges the attribute specifier at `tokens[at]` (`__attribute__`) and
/// returns the index just after it. A malformed specifier is reported and
/// skipped up to where its parentheses close (or to the `;`, `{` or `}`
/// that ends its declaration).
fn attribute(source: &str, tokens: &[Spanned], at: usize, diags: &mut Vec<Diagnostic>) -> usize {
    let keyword = span_of(&tokens[at]);
    let is = |k: usize, want: &Token| tokens.get(k).is_some_and(|t| &t.1 == want);
    let doubled = is(at + 1, &Token::LParen) && is(at + 2, &Token::LParen);
    let end = match group_end(tokens, at + 1) {
        Ok(end) if doubled => end,
        Ok(end) => {
            diags.push(
                Diagnostic::error(keyword, "malformed `__attribute__`: expected `((`")
                    .with_label("an attribute specifier")
                    .with_help("write `__attribute__((name))` or `__attribute__((name(args)))`"),
            );
            return end;
        }
        Err(stop) => {
            diags.push(
                Diagnostic::error(keyword, "unclosed `__attribute__((`")
                    .with_label("its parentheses never close")
                    .with_help("close it with `))`"),
            );
            return stop;
        }
    };
    // The names: the first token of each comma-separated entry inside `((`.
    let mut depth = 0;
    let mut expect_name = true;
    for t in &tokens[at + 3..end - 2] {
        match t.1 {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => expect_name = true,
            _ if depth == 0 && expect_name => {
                expect_name = false;
                judge(source, t, diags);
            }
            _ => {}
        }
    }
    end
}

/// Where the parenthesised group opening at `tokens[open]` ends: `Ok` with
/// the index after its `)`, or `Err` with the index of the `;`, `{` or
/// `}` (or the end) that came first. Not a group at all: `Ok(open)`.
fn group_end(tokens: &[Spanned], open: usize) -> Result<usize, usize> {
    if tokens.get(open).is_none_or(|t| t.1 != Token::LParen) {
        return Ok(open);
    }
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.1 {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Ok(k + 1);
                }
            }
            Token::Semi | Token::LBrace | Token::RBrace => return Err(k),
            _ => {}
        }
    }
    Err(tokens.len())
}

/// Reports one attribute name if parc cannot honour it.
fn judge(source: &str, t: &Spanned, diags: &mut Vec<Diagnostic>) {
    let span = span_of(t);
    let text = source.get(t.0..t.2).unwrap_or("");
    let name = text
        .strip_prefix("__")
        .and_then(|n| n.strip_suffix("__"))
        .unwrap_or(text);
    if HINTS.contains(&name) {
        return;
    }
    if let Some((_, help)) = REFUSED.iter().find(|(n, _)| *n == name) {
        diags.push(
            Diagnostic::error(span, format!("the attribute `{name}` is not supported"))
                .with_label("parc cannot honour this attribute")
                .with_help(*help),
        );
        return;
    }
    diags.push(
        Diagnostic::warning(span, format!("unknown attribute `{name}` ignored"))
            .with_label("not an attribute parc knows")
            .with_help("remove it if it changes what the program computes; gcc ignores unknown attributes too"),
    );
}

fn span_of(t: &Spanned) -> Span {
    Span::new(t.0, t.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(source: &str) -> (Vec<Token>, Vec<String>) {
        let (mut tokens, mut diags) = crate::lex::lex(source);
        strip_gnu(source, &mut tokens, &mut diags);
        (
            tokens.into_iter().map(|t| t.1).collect(),
            diags.iter().map(|d| d.message.clone()).collect(),
        )
    }

    #[test]
    fn hints_go_without_a_word() {
        let (with, diags) =
            run("static __attribute__((unused, __noinline__, format(printf, 1, 2))) int f(void);");
        assert!(diags.is_empty(), "{diags:?}");
        let (without, _) = run("static int f(void);");
        assert_eq!(with, without);
    }

    #[test]
    fn extension_goes() {
        let (with, diags) = run("__extension__ typedef long long ll;");
        assert!(diags.is_empty());
        assert_eq!(with, run("typedef long long ll;").0);
    }

    #[test]
    fn layout_attributes_are_refused_by_name() {
        let (_, diags) = run("struct s { char c; int i; } __attribute__((packed));");
        assert_eq!(diags, ["the attribute `packed` is not supported"]);
        let (_, diags) = run("double a[4] __attribute__((__aligned__(32)));");
        assert_eq!(diags, ["the attribute `aligned` is not supported"]);
    }

    #[test]
    fn unknown_attributes_warn() {
        let (tokens, diags) = run("int x __attribute__((frobnicate(3)));");
        assert_eq!(diags, ["unknown attribute `frobnicate` ignored"]);
        assert_eq!(tokens, run("int x;").0);
    }

    #[test]
    fn malformed_specifiers_are_errors_and_do_not_swallow_the_file() {
        let (tokens, diags) = run("int x __attribute__(unused); int y;");
        assert_eq!(diags, ["malformed `__attribute__`: expected `((`"]);
        assert!(tokens.contains(&Token::Ident("y".into())));
        let (_, diags) = run("int x __attribute__((unused; int y;");
        assert_eq!(diags, ["unclosed `__attribute__((`"]);
    }
}
