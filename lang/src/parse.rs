//! The ParC parser: tokens from [`crate::lex`] in, an [`crate::ast::Program`] and
//! diagnostics out.
//!
//! [`parse`] never panics and always returns a tree: items and statements
//! that could not be read are left out (statements become an
//! `ExprKind::Error` expression statement), and each problem is reported
//! once, with the span of the offending token and a message in words
//! ("expected `;`, found `}`") rather than lalrpop's token lists.
//!
//! How it works:
//! 1. The whole file is lexed ([`lex::lex`]), GNU attributes are judged and
//!    removed ([`gnu::strip_gnu`]), and the names `typedef`s declare are
//!    told from other names ([`mark_type_names`]).
//! 2. [`check_limits`] scans the tokens for input that would build a tree too
//!    deep for the recursive walks of later phases (see the limits below). If
//!    a limit is exceeded, one error is reported and nothing is parsed.
//! 3. The tokens are cut into top-level items ([`item_chunks`]) and each is
//!    parsed on its own by the LR(1) parser generated from `grammar.lalrpop`
//!    (itself iterative, so it cannot overflow the stack). A syntax error thus
//!    costs at most its item; inside function bodies the grammar recovers at
//!    statement level (`;`, or the `}` of the enclosing block), so one run
//!    reports several errors.
//!    Cutting is robust to unbalanced `(`/`[` (see [`item_chunks`]); after a
//!    broken item, parsing resumes at the next declaration keyword in column
//!    0, and indented leftovers of the broken function are skipped.
//! 4. To avoid cascades, a syntax error is not reported when a lexical error
//!    precedes it in the same item, when it follows a reported error within
//!    `CASCADE_TOKENS` tokens (yacc's rule), when it is a consequence of
//!    statement recovery closing a function body early, or when it is at
//!    the end of a file whose last `/*` is never closed.
//!
//! Invariants of the returned tree (relied on by the checker and lowering):
//! - every span lies inside the source, and children's spans inside parents';
//! - tree depth is bounded: at most [`MAX_NESTING`] levels of brackets and
//!   prefix operators, at most [`MAX_CHAIN`] operators in one statement and
//!   [`MAX_CHAIN`] statements nested without braces (`else if` chains), so
//!   the depth is below `2 * MAX_CHAIN + 2 * MAX_NESTING` nodes.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lex::{self, Spanned, Token};
use lalrpop_util::ParseError;
use std::convert::Infallible;

mod build;
pub mod gnu;
mod limits;
mod typenames;

pub(crate) use build::*;
pub use limits::check_limits;
pub use typenames::mark_type_names;

/// Most levels of `(`, `[`, `{` (together) and of consecutive prefix
/// operators and casts (`- - - x`, `(int)(long)x`) allowed in a file.
pub const MAX_NESTING: usize = 256;

/// Most operators in one statement (an expression tree as deep as its
/// operator count, e.g. `1+1+...+1`, is left-deep), and most statements
/// nested without braces (`if ... else if ... else if ...`, `for (...) for
/// (...) ...`). Large enough for any hand-written or reasonably generated
/// program; small enough that recursive walks over the tree fit in the stack
/// of a thread with a few MiB.
pub const MAX_CHAIN: usize = 10_000;

/// After a syntax error, further errors are reported only once this many
/// tokens have been read successfully (as yacc does), since the ones before
/// are usually consequences of the first.
const CASCADE_TOKENS: usize = 3;

/// Parses one file. Never panics; always returns a (possibly partial) tree.
/// An empty file is an empty program with no diagnostics.
pub fn parse(source: &str) -> (Program, Vec<Diagnostic>) {
    let (mut tokens, mut diags) = lex::lex(source);
    gnu::strip_gnu(source, &mut tokens, &mut diags);
    mark_type_names(&mut tokens);
    if let Some(d) = check_limits(&tokens) {
        diags.push(d);
        diags.sort_by_key(|d| (d.span.start, d.span.end));
        return (Program::default(), diags);
    }
    let lex_errors: Vec<usize> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.span.start as usize)
        .collect();
    // An unterminated `/*` hides the rest of the file: "found end of file"
    // errors are its consequence, and its own error says where it starts.
    let rest_is_comment = diags.iter().any(|d| d.message == lex::UNTERMINATED_COMMENT);
    let ctx = Context {
        source,
        tokens: &tokens,
    };
    let parser = grammar::ProgramParser::new();
    let mut items = Vec::new();
    let mut start = 0;
    // Set when an item fails to parse, cleared by an item that parses and
    // starts in column 0. Meanwhile, items that fail at their first token are
    // the rest of a broken function (say, after a stray `}`) and not new
    // mistakes, and indented items that parse are its statements: neither is
    // reported or kept.
    let mut broken = false;
    while start < tokens.len() {
        let chunk = start..chunk_end(&tokens, start);
        let mut sink = Sink::default();
        let result = parser.parse(&mut sink, tokens[chunk.clone()].iter().cloned().map(Ok));
        start = chunk.end;
        // Errors in source order: the recovered ones, then the fatal one.
        let mut errors: Vec<(ParseError<usize, Token, Infallible>, Option<usize>)> = sink
            .recovered
            .into_iter()
            .map(|r| {
                let resume = r.dropped_tokens.last().map(|t| t.2);
                (r.error, resume)
            })
            .collect();
        let recovered_count = errors.len();
        let column0 = tokens
            .get(chunk.start)
            .is_some_and(|t| t.0 == 0 || source.as_bytes().get(t.0 - 1) == Some(&b'\n'));
        let keep = !broken || column0;
        let failed = match result {
            Ok(new_items) => {
                if keep {
                    items.append(&mut sink.hoisted);
                    items.extend(new_items);
                }
                false
            }
            Err(e) => {
                // A missing `}` makes a chunk run on into the next items:
                // resume at the next line in it that starts like a declaration
                // (`int f(...)` in column 0). Valid code never gets here.
                let failed_at = ctx.token_index(ctx.error_position(&e));
                let from = failed_at.max(chunk.start + 1);
                if let Some(r) = resync_point(source, &tokens, from, chunk.end) {
                    start = r;
                }
                errors.push((e, None));
                true
            }
        };
        let chunk_start = tokens.get(chunk.start).map_or(0, |t| t.0);
        let first_lex_error = lex_errors
            .iter()
            .copied()
            .filter(|&p| p >= chunk_start)
            .min();
        // Token index from which errors are reported again.
        let mut quiet_until = 0;
        for (n, (err, resume)) in errors.into_iter().enumerate() {
            let at = ctx.error_position(&err);
            let index = ctx.token_index(at);
            let after_lex_error = first_lex_error.is_some_and(|p| p <= at);
            let is_fatal = n == recovered_count;
            let at_eof = index >= tokens.len();
            // Statement recovery skips to a `;` or `}` without regard to
            // nesting, so it can close the function body early; the item
            // level error that follows in the same chunk is a consequence.
            let cascade = is_fatal && recovered_count > 0 && !at_eof;
            let orphan = index == chunk.start && broken;
            let in_comment = at_eof && rest_is_comment;
            if !after_lex_error && index >= quiet_until && !cascade && !orphan && !in_comment {
                diags.push(ctx.syntax_error(err, &chunk));
            }
            let resume_index = resume.map_or(index + 1, |r| ctx.token_index(r));
            quiet_until = quiet_until.max(resume_index + CASCADE_TOKENS);
        }
        if keep {
            diags.extend(sink.diags);
        }
        broken = failed || (broken && !column0);
    }
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    (Program { items }, diags)
}

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens)]
    grammar
);

/// Whether a token can start a type name (after `(`, it makes a cast).
fn starts_type(t: &Token) -> bool {
    use Token as T;
    t.is_type_keyword()
        || matches!(
            t,
            T::Struct | T::Union | T::Enum | T::TypeName(_) | T::Const | T::IgnoredQual(_)
        )
}

// ------------------------------------------------------------------ items

/// Cuts the token stream into top-level items, as token index ranges, so a
/// syntax error costs at most one item. An item ends after a `;` outside all
/// brackets, or after a `}` outside all brackets that is not followed by `;`
/// or `,` (a function body; a struct body or initializer list continues).
/// In a well-formed file every cut is between two items, so parsing the
/// chunks separately gives the same tree as parsing the whole file.
pub fn item_chunks(tokens: &[Spanned]) -> Vec<std::ops::Range<usize>> {
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < tokens.len() {
        let end = chunk_end(tokens, start);
        chunks.push(start..end);
        start = end;
    }
    chunks
}

/// The end (exclusive) of the item starting at token `start`; see
/// [`item_chunks`]. Always greater than `start` if tokens remain.
fn chunk_end(tokens: &[Spanned], start: usize) -> usize {
    // Open brackets, innermost last, each `{` with whether it opens a
    // function body (it follows a parameter list's `)`). A `{` or `}`
    // closes any `(`/`[` left open before it, and a `)`/`]` with no `(`/`[`
    // open is ignored: one unbalanced parenthesis does not swallow the
    // file. (A compound literal's `{` inside parentheses closes them early
    // too, but its `)` is then ignored and the cut stays right.)
    let mut open: Vec<(&Token, bool)> = Vec::new();
    let is_paren = |t: &(&Token, bool)| matches!(t.0, Token::LParen | Token::LBracket);
    // In an old-style definition's declarations (`int f(a, b) int a; {`):
    // a type word right after a file-level identifier list. Their `;`s do
    // not end the item, and the `{` after them opens the body.
    let mut kr_list = false;
    let mut group_start = start;
    for (i, t) in tokens.iter().enumerate().skip(start) {
        let end_here = match &t.1 {
            Token::LParen | Token::LBracket => {
                if open.is_empty() {
                    group_start = i;
                }
                open.push((&t.1, false));
                false
            }
            Token::RParen | Token::RBracket => {
                if open.last().is_some_and(is_paren) {
                    open.pop();
                }
                let names = &tokens[(group_start + 1).min(i)..i];
                if open.is_empty()
                    && !names.is_empty()
                    && names
                        .iter()
                        .all(|n| matches!(n.1, Token::Ident(_) | Token::Comma))
                    && tokens.get(i + 1).is_some_and(|n| starts_type(&n.1))
                {
                    kr_list = true;
                }
                false
            }
            Token::LBrace => {
                while open.last().is_some_and(is_paren) {
                    open.pop();
                }
                let body = i > 0 && tokens[i - 1].1 == Token::RParen || kr_list && open.is_empty();
                kr_list = false;
                open.push((&t.1, body));
                false
            }
            Token::RBrace => {
                while open.last().is_some_and(is_paren) {
                    open.pop();
                }
                // A struct's `}` at file scope is followed by its
                // declarators or `;`; only a function body ends an item.
                let body = open.pop().is_some_and(|o| o.1);
                open.is_empty()
                    && body
                    && !matches!(
                        tokens.get(i + 1).map(|t| &t.1),
                        Some(Token::Semi | Token::Comma)
                    )
            }
            Token::Semi => open.is_empty() && !kr_list,
            _ => false,
        };
        if end_here {
            return i + 1;
        }
    }
    tokens.len()
}

/// After an item failed to parse at token `from - 1`: the first token in
/// `from..end` that starts a line and can start a declaration (`int f(...)`,
/// `struct S`, `static ...`), where parsing can resume. A declaration
/// keyword in column 0 after a broken item is most likely the next item.
fn resync_point(source: &str, tokens: &[Spanned], from: usize, end: usize) -> Option<usize> {
    use Token as T;
    (from..end).find(|&i| {
        let (lo, tok, _) = &tokens[i];
        let line_start = *lo == 0 || source.as_bytes().get(lo - 1) == Some(&b'\n');
        line_start
            && matches!(
                tok,
                T::Void
                    | T::Bool
                    | T::Char
                    | T::Int
                    | T::Unsigned
                    | T::Signed
                    | T::Long
                    | T::Float
                    | T::Double
                    | T::Short
                    | T::Struct
                    | T::Union
                    | T::Enum
                    | T::Typedef
                    | T::TypeName(_)
                    | T::Const
                    | T::Static
                    | T::Extern
                    | T::Inline
                    | T::Global
                    | T::Device
                    | T::Dim3
                    | T::IgnoredQual(_)
            )
    })
}

// ------------------------------------------------------------------ syntax errors

struct Context<'a> {
    source: &'a str,
    tokens: &'a [Spanned],
}

impl Context<'_> {
    /// Index of the first token starting at or after `offset`.
    fn token_index(&self, offset: usize) -> usize {
        self.tokens.partition_point(|t| t.0 < offset)
    }

    fn error_position(&self, err: &ParseError<usize, Token, Infallible>) -> usize {
        match err {
            ParseError::UnrecognizedToken { token, .. } | ParseError::ExtraToken { token } => {
                token.0
            }
            ParseError::UnrecognizedEof { location, .. }
            | ParseError::InvalidToken { location } => *location,
            ParseError::User { error } => match *error {},
        }
    }

    /// The text to show for a token: "`x`", "a string literal".
    fn describe(&self, index: usize) -> String {
        let Some((lo, tok, hi)) = self.tokens.get(index) else {
            return "end of file".to_owned();
        };
        if let Token::StrLit(_) = tok {
            return "a string literal".to_owned();
        }
        let text = self.source.get(*lo..*hi).unwrap_or("?");
        if text.chars().count() > 32 {
            let short: String = text.chars().take(32).collect();
            format!("`{short}...`")
        } else {
            format!("`{text}`")
        }
    }

    fn syntax_error(
        &self,
        err: ParseError<usize, Token, Infallible>,
        chunk: &std::ops::Range<usize>,
    ) -> Diagnostic {
        let (index, expected) = match err {
            ParseError::UnrecognizedToken { token, expected } => {
                (self.token_index(token.0), expected)
            }
            // The end of a chunk is not the end of the file: what the parser
            // would have seen next is the first token of the next item.
            ParseError::UnrecognizedEof { expected, .. } => (chunk.end, expected),
            ParseError::ExtraToken { token } => {
                let index = self.token_index(token.0);
                let found = self.describe(index);
                return Diagnostic::error(
                    Span::new(token.0, token.2),
                    format!("unexpected {found}"),
                )
                .with_label("unexpected");
            }
            ParseError::InvalidToken { location } => {
                return Diagnostic::error(Span::new(location, location), "invalid token");
            }
            ParseError::User { error } => match error {},
        };
        let found = self.describe(index);
        let token = self.tokens.get(index);
        let span = match token {
            Some(t) => Span::new(t.0, t.2),
            None => {
                let end = self.tokens.last().map_or(0, |t| t.2);
                Span::new(end, end)
            }
        };
        let prev = index.checked_sub(1).and_then(|p| self.tokens.get(p));
        let expected: Vec<&str> = expected.iter().map(|s| terminal_name(s)).collect();
        let at_item_start = index == chunk.start;

        // Tokens that get a message of their own.
        match token.map(|t| &t.1) {
            Some(Token::Unsupported(u)) => {
                let (message, help) = u.explain();
                return Diagnostic::error(span, message)
                    .with_label("not supported")
                    .with_help(help);
            }
            Some(Token::Else) if !expected.contains(&"else") => {
                return Diagnostic::error(span, "`else` without a matching `if`")
                    .with_label("no `if` before this `else`")
                    .with_help("check the braces and the `;`s of the `if` statement above");
            }
            Some(Token::RBrace) if at_item_start => {
                return Diagnostic::error(span, "unexpected `}`")
                    .with_label("this `}` has no matching `{`")
                    .with_help("remove it, or check the braces above");
            }
            _ => {}
        }
        if let Some(d) = self.misused_name(index, &expected, at_item_start, chunk) {
            return d;
        }

        let what = if at_item_start {
            "a declaration or function definition".to_owned()
        } else {
            summarize_expected(&expected)
        };
        let message = format!("expected {what}, found {found}");

        // A missing `;` is best shown where it belongs: right after the
        // previous token, when the next token starts a new line or closes
        // the block.
        if what == "`;`"
            && let Some(p) = prev
        {
            let new_line = token.is_none_or(|t| {
                self.source
                    .get(p.2..t.0)
                    .is_some_and(|between| between.contains('\n'))
                    || t.1 == Token::RBrace
            });
            if new_line {
                return Diagnostic::error(Span::new(p.2, p.2), message)
                    .with_label("expected `;` here")
                    .with_help("add `;` here");
            }
        }
        let mut d = Diagnostic::error(span, message);
        if token.is_some() {
            d = d.with_label(format!("expected {what}"));
        }
        let prev_tok = prev.map(|p| &p.1);
        if at_item_start {
            let statement_like = token.is_some_and(|t| {
                matches!(
                    t.1,
                    Token::Ident(_)
                        | Token::If
                        | Token::While
                        | Token::Do
                        | Token::For
                        | Token::ParallelFor
                        | Token::Return
                        | Token::Break
                        | Token::Continue
                        | Token::Spawn
                        | Token::Sync
                        | Token::Star
                        | Token::PlusPlus
                        | Token::MinusMinus
                )
            });
            if statement_like {
                d = d.with_help(
                    "statements must be inside a function; types are written with keywords such as `int` or `struct S`",
                );
                if let Some(p) = prev.filter(|p| p.1 == Token::RBrace) {
                    d = d.with_secondary(
                        Span::new(p.0, p.2),
                        "the function body ends here; is this `}` one too many?",
                    );
                }
            }
        } else if token.is_some_and(|t| t.1 == Token::LBrace)
            && prev_tok == Some(&Token::RParen)
            && expected.contains(&";")
        {
            // `int g() {` inside a function body.
            d = d.with_help(
                "functions cannot be defined inside functions; is a `}` missing before this one?",
            );
        } else if token.is_some_and(|t| t.1 == Token::Spawn) {
            d = d.with_help("`spawn` must start a statement: `spawn f(x);` or `y = spawn f(x);`");
        } else if token.is_none()
            && let Some(open) = self.unclosed_bracket(chunk)
        {
            let t = &self.tokens[open];
            d = d.with_secondary(Span::new(t.0, t.2), "this bracket is never closed");
        }
        if token.is_none() {
            d = d.with_label("the file ends here");
        }
        d
    }

    /// Errors caused by a name where a type keyword belongs: `size_t n;`
    /// (an unknown type) or `helper(int a) { ... }` (no return type).
    fn misused_name(
        &self,
        index: usize,
        expected: &[&str],
        at_item_start: bool,
        chunk: &std::ops::Range<usize>,
    ) -> Option<Diagnostic> {
        let tok = |i: usize| self.tokens.get(i).map(|t| &t.1);
        let is_name = |i: usize| matches!(tok(i), Some(Token::Ident(_)));
        let starts_decl = |i: usize| {
            i == chunk.start
                || matches!(
                    i.checked_sub(1).and_then(tok),
                    Some(Token::Semi | Token::LBrace | Token::RBrace)
                )
        };
        // The name that should have been a type: the found token itself
        // where a type or declaration was expected (`integer count(...)`,
        // `f(integer x)`), or the name before it at the start of a statement
        // (`size_t n = 3;` fails at `n`).
        let types_expected = at_item_start || expected.contains(&"int");
        let name = if is_name(index)
            && types_expected
            && (is_name(index + 1) || tok(index + 1) == Some(&Token::Star))
        {
            index
        } else if is_name(index)
            && index > chunk.start
            && is_name(index - 1)
            && (starts_decl(index - 1) || self.in_parameter_list(index - 1, chunk))
        {
            index - 1
        } else if at_item_start && is_name(index) && tok(index + 1) == Some(&Token::LParen) {
            // `helper(int a) {`: a definition if a `{` follows the `)`.
            let close = (index + 1..chunk.end).find(|&i| tok(i) == Some(&Token::RParen))?;
            if tok(close + 1) != Some(&Token::LBrace) {
                return None;
            }
            let t = &self.tokens[index];
            let text = self.source.get(t.0..t.2).unwrap_or("?");
            return Some(
                Diagnostic::error(
                    Span::new(t.0, t.2),
                    format!("missing return type for function `{text}`"),
                )
                .with_label("the return type belongs before the name")
                .with_help(format!(
                    "ParC has no implicit `int`: write e.g. `int {text}(...)`, or `void {text}(...)`"
                )),
            );
        } else {
            return None;
        };
        let t = &self.tokens[name];
        let text = self.source.get(t.0..t.2).unwrap_or("?");
        let help = match text {
            "string" => "use `char *`".to_owned(),
            "FILE" => "`FILE` is declared by `<stdio.h>`: include it".to_owned(),
            _ => format!(
                "declare it with `typedef` before this use, or write `struct {text}` for a struct"
            ),
        };
        Some(
            Diagnostic::error(Span::new(t.0, t.2), format!("unknown type name `{text}`"))
                .with_label("not a type")
                .with_help(help),
        )
    }

    /// Whether the token at `at` starts a parameter of a function
    /// declarator: it follows `(` or `,` in a list that follows a name
    /// declared with a type (`int f(`, `T *g(`), not a call's arguments.
    fn in_parameter_list(&self, at: usize, chunk: &std::ops::Range<usize>) -> bool {
        let tok = |i: usize| self.tokens.get(i).map(|t| &t.1);
        let mut depth = 0usize;
        let mut i = at;
        while i > chunk.start {
            i -= 1;
            match tok(i) {
                Some(Token::RParen) => depth += 1,
                Some(Token::LParen) if depth > 0 => depth -= 1,
                Some(Token::LParen) => {
                    let named = i > chunk.start && matches!(tok(i - 1), Some(Token::Ident(_)));
                    return named
                        && i >= chunk.start + 2
                        && tok(i - 2).is_some_and(|t| {
                            starts_type(t) || matches!(t, Token::Star | Token::Dim3)
                        });
                }
                Some(Token::Comma) if depth == 0 => {}
                Some(Token::Semi | Token::LBrace | Token::RBrace) => return false,
                _ if depth > 0 => {}
                _ if i + 1 == at => return false,
                _ => {}
            }
        }
        false
    }

    /// The innermost bracket of the chunk that is still open at its end.
    fn unclosed_bracket(&self, chunk: &std::ops::Range<usize>) -> Option<usize> {
        let mut open = Vec::new();
        for i in chunk.clone() {
            match self.tokens.get(i).map(|t| &t.1) {
                Some(Token::LParen | Token::LBracket | Token::LBrace) => open.push(i),
                Some(Token::RParen | Token::RBracket | Token::RBrace) => {
                    open.pop();
                }
                _ => {}
            }
        }
        open.pop()
    }
}

/// lalrpop names terminals as written in the grammar, with quotes: `"\";\""`.
fn terminal_name(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
}

const EXPR_START: &[&str] = &[
    "identifier",
    "number",
    "character literal",
    "string literal",
    "true",
    "false",
    "NULL",
    "sizeof",
    "_Alignof",
    "__builtin_offsetof",
    "(",
    "-",
    "+",
    "!",
    "~",
    "*",
    "&",
    "++",
    "--",
    "dim3",
];

const TYPE_WORDS: &[&str] = &[
    "void",
    "bool",
    "char",
    "int",
    "unsigned",
    "signed",
    "long",
    "float",
    "double",
    "short",
    "struct",
    "union",
    "enum",
    "typedef",
    "type name",
    "const",
    "static",
    "extern",
    "inline",
    "__global__",
    "__device__",
    "__shared__",
    "qualifier",
    "dim3",
    "typeof",
];

const STMT_WORDS: &[&str] = &[
    "if",
    "while",
    "do",
    "for",
    "parallel_for",
    "parallel_reduce",
    "omp pragma",
    "break",
    "continue",
    "return",
    "spawn",
    "sync",
    "switch",
    "case",
    "default",
    "_Static_assert",
    "goto",
    "{",
    ";",
];

/// Tokens that can continue an expression; listed only when nothing else is
/// expected.
const OPERATORS: &[&str] = &[
    ",", "?", ":", "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", ">", "<=", ">=", "==",
    "!=", "&&", "||", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "[", "(",
    ".", "->", "++", "--", "<<<",
];

/// Turns lalrpop's list of expected terminals into words: "`;`",
/// "an expression or `)`", "a statement or `}`".
pub(crate) fn summarize_expected(expected: &[&str]) -> String {
    let mut rest: Vec<&str> = expected.to_vec();
    let mut phrases: Vec<String> = Vec::new();
    let has = |rest: &[&str], t: &str| rest.contains(&t);
    let remove = |rest: &mut Vec<&str>, set: &[&str]| rest.retain(|t| !set.contains(t));
    if has(&rest, "if") {
        phrases.push("a statement".to_owned());
        remove(&mut rest, STMT_WORDS);
        remove(&mut rest, EXPR_START);
        remove(&mut rest, TYPE_WORDS);
    } else if has(&rest, "identifier")
        && has(&rest, "number")
        && has(&rest, ")")
        && rest.iter().filter(|t| TYPE_WORDS.contains(t)).count() >= 3
    {
        // After `name(` in a declaration: parameters (or `dim3` arguments).
        phrases.push("a type".to_owned());
        remove(&mut rest, EXPR_START);
        remove(&mut rest, TYPE_WORDS);
    } else if has(&rest, "identifier") && has(&rest, "number") {
        phrases.push("an expression".to_owned());
        remove(&mut rest, EXPR_START);
        remove(&mut rest, TYPE_WORDS);
        // `spawn` is possible only after `=`, and is never what is missing.
        remove(&mut rest, &["spawn"]);
    } else if has(&rest, "identifier") {
        phrases.push("a name".to_owned());
        remove(&mut rest, TYPE_WORDS);
        remove(&mut rest, &["identifier", "*"]);
    } else if rest.iter().filter(|t| TYPE_WORDS.contains(t)).count() >= 3 {
        phrases.push("a type".to_owned());
        remove(&mut rest, TYPE_WORDS);
    }
    let closers = [";", ")", "]", "}", ":", ">>>"];
    if rest.iter().any(|t| closers.contains(t)) || !phrases.is_empty() {
        if rest.contains(&";") || rest.contains(&">>>") {
            // The comma operator makes `,` possible after any expression;
            // it is never what was forgotten.
            rest.retain(|t| *t != ",");
        }
        // Keep `,` where a list goes on: arguments, parameters, initializers.
        let keep_comma = rest.contains(&")") || rest.contains(&"}");
        rest.retain(|t| !OPERATORS.contains(t) || (keep_comma && *t == ","));
    } else if !rest.is_empty() && rest.iter().all(|t| OPERATORS.contains(t)) {
        phrases.push("an operator".to_owned());
        rest.clear();
    }
    let mut all: Vec<String> = phrases;
    const MAX_LISTED: usize = 6;
    let many = rest.len() > MAX_LISTED;
    all.extend(rest.iter().take(MAX_LISTED).map(|t| match *t {
        "identifier" => "a name".to_owned(),
        "number" => "a number".to_owned(),
        "character literal" | "string literal" => format!("a {t}"),
        "qualifier" => "a qualifier".to_owned(),
        _ => format!("`{t}`"),
    }));
    match all.len() {
        0 => "something else".to_owned(),
        1 => all.remove(0),
        n => {
            let last = all.remove(n - 1);
            let list = all.join(", ");
            if many {
                format!("one of {list}, {last}, ...")
            } else {
                format!("{list} or {last}")
            }
        }
    }
}
