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
//! 1. The whole file is lexed ([`lex::lex`]).
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
use crate::lex::{self, Number, Spanned, Token};
use lalrpop_util::{ErrorRecovery, ParseError};
use std::convert::Infallible;

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
    let (tokens, mut diags) = lex::lex(source);
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

// ------------------------------------------------------------------ limits

#[derive(Clone, Copy, PartialEq, Eq)]
enum Frame {
    Paren,
    Bracket,
    Block,
    InitList,
}

struct Level {
    frame: Frame,
    /// Prefix operators whose operand is still being read at this level.
    prefix: usize,
    /// Control statements (`if`, `else`, loops) whose body is still being
    /// read at this level (only for blocks).
    chain: usize,
}

/// Scans the tokens for input too deeply nested to parse safely (see
/// [`MAX_NESTING`], [`MAX_CHAIN`]). The measures are conservative token
/// counts that bound the depth of the tree the parser would build; returns
/// one error at the token where a limit is first exceeded.
pub fn check_limits(tokens: &[Spanned]) -> Option<Diagnostic> {
    use Token as T;
    let too_deep = |t: &Spanned| {
        Diagnostic::error(
            Span::new(t.0, t.2),
            format!("nesting is too deep (more than {MAX_NESTING} levels)"),
        )
        .with_label("too deep here")
        .with_help("split the expression or block into smaller pieces")
    };
    let mut levels = vec![Level {
        frame: Frame::Block,
        prefix: 0,
        chain: 0,
    }];
    // Open brackets plus pending prefix operators on all levels.
    let mut nesting = 0usize;
    // Pending control statements on all levels.
    let mut chain = 0usize;
    // Operators since the last `;`, `{`, `}` or initializer-list `,`.
    let mut ops = 0usize;
    let mut prev_operand = false;
    let mut i = 0;
    while i < tokens.len() {
        let tok = &tokens[i];
        let next = tokens.get(i + 1).map(|t| &t.1);
        let mut operand = false;
        // Ends the statement at the current level unless an `else` follows.
        let mut end_statement = false;
        match &tok.1 {
            T::LParen if next.is_some_and(starts_type) && is_cast(&tokens[i + 1..]) => {
                // A cast (or `sizeof(T)`, or a parameter list of unnamed
                // types): one prefix operator; skip to its `)`.
                let close = tokens[i..]
                    .iter()
                    .position(|t| t.1 == T::RParen)
                    .map_or(tokens.len(), |p| i + p);
                if let Some(level) = levels.last_mut() {
                    level.prefix += 1;
                }
                nesting += 1;
                ops += 1;
                i = close;
            }
            T::LParen | T::LBracket | T::LBrace => {
                let frame = match tok.1 {
                    T::LParen => Frame::Paren,
                    T::LBracket => Frame::Bracket,
                    _ => {
                        let in_list = levels.last().is_some_and(|l| l.frame == Frame::InitList);
                        let prev = i.checked_sub(1).map(|p| &tokens[p].1);
                        match prev {
                            Some(T::Assign) => Frame::InitList,
                            Some(T::Comma | T::LBrace) if in_list => Frame::InitList,
                            _ => Frame::Block,
                        }
                    }
                };
                if frame == Frame::Block || frame == Frame::InitList {
                    ops = 0;
                } else {
                    ops += 1;
                }
                levels.push(Level {
                    frame,
                    prefix: 0,
                    chain: 0,
                });
                nesting += 1;
            }
            T::RParen | T::RBracket | T::RBrace => {
                // The outermost level (the file) is never popped.
                if levels.len() > 1
                    && let Some(level) = levels.pop()
                {
                    nesting = nesting.saturating_sub(1 + level.prefix);
                    chain = chain.saturating_sub(level.chain);
                }
                if tok.1 == T::RBrace {
                    ops = 0;
                    end_statement = true;
                } else {
                    operand = true;
                }
            }
            T::Semi => {
                ops = 0;
                end_statement = true;
            }
            // `else` adds no level of its own: its statement is a child of
            // the `if`, like the `then` branch.
            T::If | T::While | T::Do | T::For | T::ParallelFor | T::ParallelReduce => {
                if let Some(level) = levels.last_mut() {
                    level.chain += 1;
                }
                chain += 1;
            }
            T::Minus
            | T::Plus
            | T::Bang
            | T::Tilde
            | T::Star
            | T::Amp
            | T::PlusPlus
            | T::MinusMinus
            | T::Sizeof
                if !prev_operand =>
            {
                if let Some(level) = levels.last_mut() {
                    level.prefix += 1;
                }
                nesting += 1;
                ops += 1;
            }
            T::PlusPlus | T::MinusMinus => {
                // Postfix: the expression is still an operand.
                operand = true;
                ops += 1;
            }
            T::Ident(_)
            | T::Number(_)
            | T::CharLit(_)
            | T::StrLit(_)
            | T::True
            | T::False
            | T::Null
            | T::Dim3 => operand = true,
            T::Comma if levels.last().is_some_and(|l| l.frame == Frame::InitList) => {
                ops = 0;
            }
            T::Dot | T::Arrow => {
                // `a.b`: the member name follows; the whole is an operand.
                ops += 1;
            }
            other => {
                // A binary operator (or a keyword): the prefix operators
                // before it at this level have their operand.
                if is_operator(other) {
                    ops += 1;
                }
                if let Some(level) = levels.last_mut() {
                    nesting = nesting.saturating_sub(level.prefix);
                    level.prefix = 0;
                }
            }
        }
        if end_statement
            && !matches!(tokens.get(i + 1).map(|t| &t.1), Some(T::Else))
            && let Some(level) = levels.last_mut()
        {
            chain = chain.saturating_sub(level.chain);
            level.chain = 0;
            nesting = nesting.saturating_sub(level.prefix);
            level.prefix = 0;
        }
        if nesting > MAX_NESTING {
            return Some(too_deep(tok));
        }
        if ops > MAX_CHAIN {
            return Some(
                Diagnostic::error(
                    Span::new(tok.0, tok.2),
                    format!("expression is too long (more than {MAX_CHAIN} operators)"),
                )
                .with_label("the limit is reached here")
                .with_help("split it into several statements using temporary variables"),
            );
        }
        if chain > MAX_CHAIN {
            return Some(
                Diagnostic::error(
                    Span::new(tok.0, tok.2),
                    format!("statements are nested too deeply (more than {MAX_CHAIN} levels)"),
                )
                .with_label("the limit is reached here")
                .with_help("split the `else if` chain or the nested loops into several functions"),
            );
        }
        prev_operand = operand;
        i += 1;
    }
    None
}

/// Whether a token can start a type name (after `(`, it makes a cast).
fn starts_type(t: &Token) -> bool {
    use Token as T;
    matches!(
        t,
        T::Void
            | T::Bool
            | T::Char
            | T::Int
            | T::Unsigned
            | T::Signed
            | T::Long
            | T::Float
            | T::Double
            | T::Struct
            | T::Const
            | T::IgnoredQual(_)
    )
}

/// `tokens` starts after a `(`: whether only type words and `*`s come before
/// the `)`. (`dim3` is left out of [`starts_type`] on purpose: `(dim3(1, 2))`
/// is a call, and a cast to `dim3` is too rare to matter for the limit.)
fn is_cast(tokens: &[Spanned]) -> bool {
    for t in tokens {
        match &t.1 {
            Token::RParen => return true,
            Token::Star | Token::Ident(_) => {}
            other if starts_type(other) => {}
            _ => return false,
        }
    }
    false
}

fn is_operator(t: &Token) -> bool {
    use Token as T;
    matches!(
        t,
        T::Comma
            | T::Question
            | T::Colon
            | T::Plus
            | T::Minus
            | T::Star
            | T::Slash
            | T::Percent
            | T::Amp
            | T::Pipe
            | T::Caret
            | T::Shl
            | T::Shr
            | T::Lt
            | T::Gt
            | T::Le
            | T::Ge
            | T::EqEq
            | T::Ne
            | T::AndAnd
            | T::OrOr
            | T::Assign
            | T::PlusEq
            | T::MinusEq
            | T::StarEq
            | T::SlashEq
            | T::PercentEq
            | T::AmpEq
            | T::PipeEq
            | T::CaretEq
            | T::ShlEq
            | T::ShrEq
            | T::LaunchOpen
            | T::LaunchClose
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
    // Open brackets, innermost last. ParC has no `{` inside `(` or `[` (no
    // compound literals or statement expressions), so a `{` or `}` closes
    // any `(`/`[` left open before it, and a `)`/`]` with no `(`/`[` open
    // is ignored: one unbalanced parenthesis does not swallow the file.
    let mut open: Vec<&Token> = Vec::new();
    let is_paren = |t: &&Token| matches!(t, Token::LParen | Token::LBracket);
    for (i, t) in tokens.iter().enumerate().skip(start) {
        let end_here = match &t.1 {
            Token::LParen | Token::LBracket => {
                open.push(&t.1);
                false
            }
            Token::RParen | Token::RBracket => {
                if open.last().is_some_and(is_paren) {
                    open.pop();
                }
                false
            }
            Token::LBrace => {
                while open.last().is_some_and(is_paren) {
                    open.pop();
                }
                open.push(&t.1);
                false
            }
            Token::RBrace => {
                while open.last().is_some_and(is_paren) {
                    open.pop();
                }
                open.pop();
                open.is_empty()
                    && !matches!(
                        tokens.get(i + 1).map(|t| &t.1),
                        Some(Token::Semi | Token::Comma)
                    )
            }
            Token::Semi => open.is_empty(),
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
                    | T::Struct
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
            && starts_decl(index - 1)
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
            "size_t" | "uint64_t" | "uintptr_t" => "use `unsigned long`".to_owned(),
            "int64_t" | "ssize_t" | "ptrdiff_t" | "intptr_t" => "use `long`".to_owned(),
            "int32_t" | "int16_t" => "use `int`".to_owned(),
            "uint32_t" | "uint16_t" => "use `unsigned`".to_owned(),
            "int8_t" | "uint8_t" => "use `char`".to_owned(),
            "string" => "use `char *`".to_owned(),
            _ => format!(
                "types are written with keywords (`int`, `double`, ...) or as `struct {text}`; ParC has no typedefs"
            ),
        };
        Some(
            Diagnostic::error(Span::new(t.0, t.2), format!("unknown type name `{text}`"))
                .with_label("not a type")
                .with_help(help),
        )
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
    "struct",
    "const",
    "static",
    "extern",
    "inline",
    "__global__",
    "__device__",
    "__shared__",
    "qualifier",
    "dim3",
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

// ------------------------------------------------------------------ grammar support
//
// Everything below is used by the actions in grammar.lalrpop.

/// State shared with the grammar actions.
#[derive(Default)]
pub(crate) struct Sink {
    /// Problems found by actions (malformed declarations and the like).
    pub diags: Vec<Diagnostic>,
    /// Syntax errors recovered from by `!` rules, reported by [`parse`].
    pub recovered: Vec<ErrorRecovery<usize, Token, Infallible>>,
}

/// One word of a declaration's specifiers.
#[derive(Clone, Debug)]
pub(crate) enum Word {
    Void,
    Bool,
    Char,
    Int,
    Unsigned,
    Signed,
    Long,
    Float,
    Double,
    Dim3,
    Struct(Ident),
    Const,
    Static,
    Extern,
    Inline,
    Global,
    Device,
    Shared,
    /// `restrict`, `volatile`, ...: no effect.
    Ignored,
}

impl Word {
    fn text(&self) -> &'static str {
        match self {
            Word::Void => "void",
            Word::Bool => "bool",
            Word::Char => "char",
            Word::Int => "int",
            Word::Unsigned => "unsigned",
            Word::Signed => "signed",
            Word::Long => "long",
            Word::Float => "float",
            Word::Double => "double",
            Word::Dim3 => "dim3",
            Word::Struct(_) => "struct",
            Word::Const => "const",
            Word::Static => "static",
            Word::Extern => "extern",
            Word::Inline => "inline",
            Word::Global => "__global__",
            Word::Device => "__device__",
            Word::Shared => "__shared__",
            Word::Ignored => "qualifier",
        }
    }
}

/// Validated declaration specifiers.
#[derive(Clone, Debug)]
pub(crate) struct Specs {
    pub quals: Qualifiers,
    /// The base type, without pointers; its span covers the specifiers.
    pub ty: TypeName,
    /// Storage and CUDA words, for "not allowed here" messages.
    pub storage: Vec<(&'static str, Span)>,
}

/// `[N]` or `[]` and its span.
pub(crate) type ArrayDim = (Option<Expr>, Span);

/// A struct field's declarator: stars, name, dimensions, span.
pub(crate) type FieldDeclarator = (Ptrs, Ident, Vec<ArrayDim>, Span);

/// The `*`s of one declarator.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ptrs {
    pub count: u8,
    pub is_const: bool,
    /// The last `*` is `restrict`-qualified: the declared pointer itself.
    pub is_restrict: bool,
    pub span: Option<Span>,
}

#[derive(Clone, Debug)]
pub(crate) enum Suffix {
    None,
    Array(Vec<ArrayDim>),
    /// Parameters, and whether they end with `...`.
    Func(Vec<Param>, bool),
    Ctor(Vec<Expr>, Span),
}

#[derive(Clone, Debug)]
pub(crate) enum RawInit {
    None,
    Init(Init),
    /// `= spawn call` and the span from `spawn` on.
    Spawn(Expr, Span),
}

/// A declarator before it is known what it declares.
#[derive(Clone, Debug)]
pub(crate) struct RawDeclarator {
    pub ptrs: Ptrs,
    pub name: Ident,
    pub suffix: Suffix,
    pub init: RawInit,
    pub span: Span,
}

pub(crate) fn expr(kind: ExprKind, lo: usize, hi: usize) -> Expr {
    Expr {
        kind,
        span: Span::new(lo, hi),
    }
}

pub(crate) fn stmt(kind: StmtKind, lo: usize, hi: usize) -> Stmt {
    Stmt {
        kind,
        span: Span::new(lo, hi),
    }
}

pub(crate) fn number(n: Number) -> ExprKind {
    match n {
        Number::Int {
            value,
            suffix,
            decimal,
        } => ExprKind::IntLit {
            value,
            suffix,
            decimal,
        },
        Number::Float { value, is_float } => ExprKind::FloatLit { value, is_float },
    }
}

/// Records a recovered syntax error and returns the statement standing in
/// for what was skipped.
pub(crate) fn recovered(sink: &mut Sink, e: ErrorRecovery<usize, Token, Infallible>) -> Stmt {
    let lo = match &e.error {
        ParseError::UnrecognizedToken { token, .. } | ParseError::ExtraToken { token } => token.0,
        ParseError::UnrecognizedEof { location, .. } | ParseError::InvalidToken { location } => {
            *location
        }
        ParseError::User { error } => match *error {},
    };
    let hi = e.dropped_tokens.last().map_or(lo, |t| t.2).max(lo);
    sink.recovered.push(e);
    let error = expr(ExprKind::Error, lo, hi);
    stmt(StmtKind::Expr(error), lo, hi)
}

pub(crate) fn for_stmt(
    head: (bool, Option<Box<Stmt>>, Option<Expr>, Option<Expr>),
    body: Stmt,
    lo: usize,
    hi: usize,
) -> Stmt {
    let (parallel, init, cond, step) = head;
    stmt(
        StmtKind::For {
            parallel,
            init,
            cond,
            step,
            body: Box::new(body),
        },
        lo,
        hi,
    )
}

/// `#pragma omp LINE` applied to `s`.
pub(crate) fn omp_stmt(sink: &mut Sink, line: &str, lo: usize, s: Stmt, hi: usize) -> Stmt {
    let (pragma, diags) = crate::omp::parse_pragma(line, lo);
    sink.diags.extend(diags);
    stmt(
        StmtKind::Omp {
            pragma: Box::new(pragma),
            stmt: Box::new(s),
        },
        lo,
        hi,
    )
}

/// `parallel_reduce(op: vars)`: the pragma it means.
pub(crate) fn reduce_clause(
    op: Option<crate::omp::RedOp>,
    vars: Vec<Ident>,
    span: Span,
) -> crate::omp::Pragma {
    use crate::omp::{Clause, ClauseAt, Pragma};
    Pragma {
        construct: "parallel for".to_string(),
        clauses: op
            .map(|op| ClauseAt {
                clause: Clause::Reduction(op, vars),
                span,
            })
            .into_iter()
            .collect(),
        span,
    }
}

/// `min` or `max` as a reduction operator; anything else is an error.
pub(crate) fn reduce_word(sink: &mut Sink, n: Ident) -> Option<crate::omp::RedOp> {
    match n.name.as_str() {
        "min" => Some(crate::omp::RedOp::Min),
        "max" => Some(crate::omp::RedOp::Max),
        _ => {
            sink.diags.push(
                Diagnostic::error(n.span, format!("`{}` is not a reduction operator", n.name))
                    .with_label("unknown operator")
                    .with_help("the operators are + * - min max & | ^ && ||"),
            );
            None
        }
    }
}

/// `parallel_reduce (op: vars) (header) body`: the clause on a `parallel_for`.
pub(crate) fn reduce_stmt(
    head: (
        crate::omp::Pragma,
        Option<Box<Stmt>>,
        Option<Expr>,
        Option<Expr>,
    ),
    body: Stmt,
    lo: usize,
    hi: usize,
) -> Stmt {
    let (pragma, init, cond, step) = head;
    let pfor = for_stmt((true, init, cond, step), body, lo, hi);
    stmt(
        StmtKind::Omp {
            pragma: Box::new(pragma),
            stmt: Box::new(pfor),
        },
        lo,
        hi,
    )
}

/// A call: ParC has no function pointers, so the callee must be a name.
pub(crate) fn call(sink: &mut Sink, callee: Expr, args: Vec<Expr>, span: Span) -> Expr {
    match callee.kind {
        ExprKind::Ident(name) => Expr {
            kind: ExprKind::Call {
                callee: Ident {
                    name,
                    span: callee.span,
                },
                args,
            },
            span,
        },
        _ => {
            sink.diags.push(
                Diagnostic::error(callee.span, "only functions can be called")
                    .with_label("this is not a function name")
                    .with_help("ParC has no function pointers; call a function by its name"),
            );
            Expr {
                kind: ExprKind::Error,
                span,
            }
        }
    }
}

/// Validates and combines the specifier words of a declaration.
pub(crate) fn specs(sink: &mut Sink, words: Vec<(Word, Span)>, span: Span) -> Specs {
    let mut quals = Qualifiers::default();
    let mut storage = Vec::new();
    // The base word (`int`, `double`, `struct S`, ...), if any.
    let mut base: Option<(Word, Span)> = None;
    let mut longs = 0;
    let mut signedness: Option<(bool, Span)> = None; // (is_unsigned, where)
    for (word, wspan) in words {
        match word {
            Word::Const => quals.is_const = true,
            Word::Static => {
                quals.is_static = true;
                storage.push(("static", wspan));
            }
            Word::Extern => {
                quals.is_extern = true;
                storage.push(("extern", wspan));
            }
            Word::Inline => {
                quals.is_inline = true;
                storage.push(("inline", wspan));
            }
            Word::Global => {
                quals.is_global = true;
                storage.push(("__global__", wspan));
            }
            Word::Device => {
                quals.is_device = true;
                storage.push(("__device__", wspan));
            }
            Word::Shared => {
                quals.is_shared = true;
                storage.push(("__shared__", wspan));
            }
            Word::Ignored => {}
            Word::Long => {
                longs += 1;
                if longs > 2 {
                    sink.diags.push(
                        Diagnostic::error(wspan, "`long long long` is too long for ParC")
                            .with_label("one `long` too many"),
                    );
                }
            }
            Word::Signed | Word::Unsigned => {
                let is_unsigned = matches!(word, Word::Unsigned);
                match signedness {
                    Some((prev, _)) if prev != is_unsigned => sink.diags.push(
                        Diagnostic::error(wspan, "both `signed` and `unsigned` in one type")
                            .with_label("conflicting signedness")
                            .with_help("keep one of them"),
                    ),
                    _ => signedness = Some((is_unsigned, wspan)),
                }
            }
            _ => match &base {
                Some((prev, prev_span)) => sink.diags.push(
                    Diagnostic::error(
                        wspan,
                        format!(
                            "`{}` cannot be combined with `{}`",
                            word.text(),
                            prev.text()
                        ),
                    )
                    .with_label("second type")
                    .with_secondary(*prev_span, "the type was already given here")
                    .with_help("a declaration has exactly one type"),
                ),
                None => base = Some((word, wspan)),
            },
        }
    }
    let is_unsigned = signedness.is_some_and(|s| s.0);
    let conflict = |sink: &mut Sink, what: &str, with: &str, at: Span| {
        sink.diags.push(
            Diagnostic::error(at, format!("`{what}` cannot be combined with `{with}`"))
                .with_label("invalid combination"),
        );
    };
    let spec = match base {
        None | Some((Word::Int, _)) => {
            if base.is_none() && longs == 0 && signedness.is_none() {
                sink.diags.push(
                    Diagnostic::error(span, "missing type in declaration")
                        .with_label("no type here")
                        .with_help("ParC has no implicit `int`; write the type, e.g. `int`"),
                );
            }
            match (longs > 0, is_unsigned) {
                (true, true) => TypeSpec::UnsignedLong,
                (true, false) => TypeSpec::Long,
                (false, true) => TypeSpec::Unsigned,
                (false, false) => TypeSpec::Int,
            }
        }
        Some((Word::Char, at)) => {
            if longs > 0 {
                conflict(sink, "long", "char", at);
            }
            TypeSpec::Char
        }
        Some((Word::Double, at)) => {
            if longs > 0 {
                sink.diags.push(
                    Diagnostic::error(at, "`long double` is not supported in ParC")
                        .with_label("not supported")
                        .with_help("use `double`"),
                );
            }
            if let Some((u, s)) = signedness {
                conflict(sink, if u { "unsigned" } else { "signed" }, "double", s);
            }
            TypeSpec::Double
        }
        Some((word, at)) => {
            let text = word.text();
            if longs > 0 {
                conflict(sink, "long", text, at);
            }
            if let Some((u, s)) = signedness {
                conflict(sink, if u { "unsigned" } else { "signed" }, text, s);
            }
            match word {
                Word::Void => TypeSpec::Void,
                Word::Bool => TypeSpec::Bool,
                Word::Float => TypeSpec::Float,
                Word::Dim3 => TypeSpec::Dim3,
                Word::Struct(name) => TypeSpec::Struct(name),
                // Only base words reach this arm.
                _ => TypeSpec::Int,
            }
        }
    };
    Specs {
        quals,
        ty: TypeName {
            spec,
            pointers: 0,
            is_const: quals.is_const,
            is_restrict: false,
            span,
        },
        storage,
    }
}

pub(crate) fn ptrs(sink: &mut Sink, stars: Vec<(bool, bool, Span)>) -> Ptrs {
    let span = match (stars.first(), stars.last()) {
        (Some(a), Some(b)) => Some(a.2.to(b.2)),
        _ => None,
    };
    let count = match u8::try_from(stars.len()) {
        Ok(n) => n,
        Err(_) => {
            if let Some(s) = span {
                sink.diags.push(
                    Diagnostic::error(s, "too many `*`s (at most 255)").with_label("too many"),
                );
            }
            u8::MAX
        }
    };
    Ptrs {
        count,
        is_const: stars.iter().any(|s| s.0),
        is_restrict: stars.last().is_some_and(|s| s.1),
        span,
    }
}

fn with_ptrs(specs: &Specs, ptrs: Ptrs, extra: u8) -> TypeName {
    TypeName {
        spec: specs.ty.spec.clone(),
        pointers: ptrs.count.saturating_add(extra),
        is_const: specs.ty.is_const || ptrs.is_const,
        // `T *restrict a[]` restricts the elements, not the parameter.
        is_restrict: ptrs.is_restrict && extra == 0,
        span: ptrs.span.map_or(specs.ty.span, |s| specs.ty.span.to(s)),
    }
}

fn reject_storage(sink: &mut Sink, specs: &Specs, place: &str) {
    for (word, span) in &specs.storage {
        sink.diags.push(
            Diagnostic::error(*span, format!("`{word}` is not allowed in {place}"))
                .with_label("not allowed here")
                .with_help(format!("remove `{word}`")),
        );
    }
}

/// A type in a cast or `sizeof`.
pub(crate) fn type_name(sink: &mut Sink, specs: Specs, ptrs: Ptrs, span: Span) -> TypeName {
    reject_storage(sink, &specs, "a type name");
    TypeName {
        span,
        ..with_ptrs(&specs, ptrs, 0)
    }
}

/// At most one array dimension; reports the others.
fn one_dim(sink: &mut Sink, dims: Vec<ArrayDim>) -> Option<Option<Expr>> {
    let mut dims = dims.into_iter();
    let first = dims.next()?;
    let rest: Vec<_> = dims.collect();
    if let (Some(a), Some(b)) = (rest.first(), rest.last()) {
        sink.diags.push(
            Diagnostic::error(
                a.1.to(b.1),
                "multi-dimensional arrays are not supported in ParC",
            )
            .with_label("second dimension")
            .with_help("use a one-dimensional array and index it as `a[i * cols + j]`"),
        );
    }
    Some(first.0)
}

pub(crate) fn param(
    sink: &mut Sink,
    specs: Specs,
    ptrs: Ptrs,
    name: Option<Ident>,
    dims: Vec<ArrayDim>,
    span: Span,
) -> Param {
    reject_storage(sink, &specs, "a parameter");
    // `T a[]` and `T a[N]` are pointers, as in C.
    let adjust = u8::from(one_dim(sink, dims).is_some());
    Param {
        ty: with_ptrs(&specs, ptrs, adjust),
        name,
        span,
    }
}

/// `(void)` means no parameters.
pub(crate) fn params(ps: Vec<Param>) -> Vec<Param> {
    match ps.as_slice() {
        [p] if p.name.is_none() && p.ty.pointers == 0 && p.ty.spec == TypeSpec::Void => Vec::new(),
        _ => ps,
    }
}

pub(crate) fn fields(sink: &mut Sink, specs: Specs, decls: Vec<FieldDeclarator>) -> Vec<Field> {
    reject_storage(sink, &specs, "a struct field");
    decls
        .into_iter()
        .map(|(ptrs, name, dims, span)| {
            let array_len = match one_dim(sink, dims) {
                None => None,
                Some(Some(len)) => Some(len),
                Some(None) => {
                    sink.diags.push(
                        Diagnostic::error(span, format!("array field `{name}` needs a length"))
                            .with_label("no length")
                            .with_help("write the number of elements, e.g. `double v[3];`"),
                    );
                    None
                }
            };
            Field {
                ty: with_ptrs(&specs, ptrs, 0),
                name,
                array_len,
                span: specs.ty.span.to(span),
            }
        })
        .collect()
}

/// `struct S;` declares nothing ParC needs; anything else like `int;` is
/// reported.
pub(crate) fn empty_decl(sink: &mut Sink, specs: Specs, span: Span) -> Vec<Item> {
    if !matches!(specs.ty.spec, TypeSpec::Struct(_)) {
        sink.diags.push(
            Diagnostic::warning(span, "this declaration declares nothing")
                .with_label("no name")
                .with_help("add a name, e.g. `int x;`"),
        );
    }
    Vec::new()
}

/// A variable's declarator and its `= spawn call` (with the span from `spawn`).
type VarDecl = (Declarator, Option<(Expr, Span)>);

/// The variable part of a declarator, with its `= spawn call` if any; gives
/// the declarator back if it declares a function.
fn var_declarator(
    sink: &mut Sink,
    specs: &Specs,
    d: RawDeclarator,
) -> Result<VarDecl, Box<RawDeclarator>> {
    let (array_len, ctor) = match d.suffix {
        Suffix::None => (None, None),
        Suffix::Array(dims) => (one_dim(sink, dims), None),
        Suffix::Ctor(args, span) => {
            if specs.ty.spec != TypeSpec::Dim3 || d.ptrs.count > 0 {
                sink.diags.push(
                    Diagnostic::error(span, "constructor-style initialization is only for `dim3`")
                        .with_label("not a `dim3`")
                        .with_help(format!("write `{} = value`", d.name)),
                );
            }
            (None, Some(Init::Ctor(args, span)))
        }
        Suffix::Func(..) => return Err(Box::new(d)),
    };
    let (init, spawn) = match d.init {
        RawInit::None => (ctor, None),
        RawInit::Init(init) => {
            if ctor.is_some() {
                sink.diags.push(
                    Diagnostic::error(d.span, format!("`{}` has two initializers", d.name))
                        .with_label("initialized twice"),
                );
            }
            (Some(init), None)
        }
        RawInit::Spawn(call, span) => (ctor, Some((call, span))),
    };
    Ok((
        Declarator {
            name: d.name,
            pointers: d.ptrs.count,
            array_len,
            init,
            span: d.span,
        },
        spawn,
    ))
}

fn spawn_outside_function(sink: &mut Sink, span: Span, place: &str) {
    sink.diags.push(
        Diagnostic::error(span, format!("`spawn` is not allowed in {place}"))
            .with_label("not allowed here")
            .with_help("spawn from a statement in a function body: `x = spawn f(...);`"),
    );
}

fn func_from(
    sink: &mut Sink,
    specs: &Specs,
    d: RawDeclarator,
    body: Option<Block>,
    span: Span,
) -> Option<FuncDef> {
    let Suffix::Func(params, variadic) = d.suffix else {
        return None;
    };
    if !matches!(d.init, RawInit::None) {
        sink.diags.push(
            Diagnostic::error(
                d.span,
                format!("function `{}` cannot have an initializer", d.name),
            )
            .with_label("not a variable"),
        );
    }
    Some(FuncDef {
        quals: specs.quals,
        ret: with_ptrs(specs, d.ptrs, 0),
        name: d.name,
        params,
        variadic,
        body,
        span,
    })
}

/// A file-scope declaration: globals and/or prototypes.
pub(crate) fn file_decl(
    sink: &mut Sink,
    specs: Specs,
    ds: Vec<RawDeclarator>,
    span: Span,
) -> Vec<Item> {
    let specs = pointer_const(specs, &ds);
    let mut items = Vec::new();
    let mut vars = Vec::new();
    for d in ds {
        match var_declarator(sink, &specs, d) {
            Ok((decl, spawn)) => {
                if let Some((_, sspan)) = spawn {
                    spawn_outside_function(sink, sspan, "a global initializer");
                }
                vars.push(decl);
            }
            Err(d) => {
                if !vars.is_empty() {
                    items.push(Item::Global(global(
                        &specs,
                        std::mem::take(&mut vars),
                        span,
                    )));
                }
                items.extend(func_from(sink, &specs, *d, None, span).map(Item::Func));
            }
        }
    }
    if !vars.is_empty() {
        items.push(Item::Global(global(&specs, vars, span)));
    }
    items
}

/// `int *const p`: the AST has one `is_const` per declaration, so a `const`
/// after any `*` makes the declaration's type const.
fn pointer_const(mut specs: Specs, ds: &[RawDeclarator]) -> Specs {
    if ds.iter().any(|d| d.ptrs.is_const) {
        specs.ty.is_const = true;
    }
    specs
}

fn global(specs: &Specs, declarators: Vec<Declarator>, span: Span) -> Decl {
    Decl {
        quals: specs.quals,
        ty: specs.ty.clone(),
        declarators,
        span,
    }
}

/// A function definition `specs declarator { body }`.
pub(crate) fn func_def(
    sink: &mut Sink,
    specs: Specs,
    d: RawDeclarator,
    body: Block,
    span: Span,
) -> Vec<Item> {
    let name = d.name.clone();
    match func_from(sink, &specs, d, Some(body), span) {
        Some(f) => vec![Item::Func(f)],
        None => {
            sink.diags.push(
                Diagnostic::error(
                    name.span,
                    format!("`{name}` has a body but no parameter list"),
                )
                .with_label("no `(...)` after this name")
                .with_help(format!(
                    "write `{name}(...)` with its parameters, or `{name}(void)`"
                )),
            );
            Vec::new()
        }
    }
}

/// A declaration in a block. `T x = spawn f();` becomes `T x;` followed by
/// the statement `x = spawn f();` (same meaning, as locals start at zero).
pub(crate) fn local_decl(
    sink: &mut Sink,
    specs: Specs,
    ds: Vec<RawDeclarator>,
    span: Span,
) -> Vec<Stmt> {
    let specs = pointer_const(specs, &ds);
    let mut stmts = Vec::new();
    let mut vars = Vec::new();
    for d in ds {
        match var_declarator(sink, &specs, d) {
            Ok((decl, None)) => vars.push(decl),
            Ok((decl, Some((call, sspan)))) => {
                let dest = Expr {
                    kind: ExprKind::Ident(decl.name.name.clone()),
                    span: decl.name.span,
                };
                let stmt_span = decl.span;
                vars.push(decl);
                stmts.push(Stmt {
                    kind: StmtKind::Decl(global(&specs, std::mem::take(&mut vars), span)),
                    span,
                });
                stmts.push(Stmt {
                    kind: StmtKind::Spawn {
                        dest: Some(dest),
                        call,
                    },
                    span: stmt_span.to(sspan),
                });
            }
            Err(d) => {
                sink.diags.push(
                    Diagnostic::error(d.span, "functions cannot be declared inside a function")
                        .with_label("function declaration")
                        .with_help("move this declaration to file scope"),
                );
            }
        }
    }
    if !vars.is_empty() {
        stmts.push(Stmt {
            kind: StmtKind::Decl(global(&specs, vars, span)),
            span,
        });
    }
    stmts
}

/// The declaration in `for (T i = 0; ...)`.
pub(crate) fn for_init_decl(
    sink: &mut Sink,
    specs: Specs,
    ds: Vec<RawDeclarator>,
    span: Span,
) -> Stmt {
    let specs = pointer_const(specs, &ds);
    let mut vars = Vec::new();
    for d in ds {
        match var_declarator(sink, &specs, d) {
            Ok((decl, spawn)) => {
                if let Some((_, sspan)) = spawn {
                    spawn_outside_function(sink, sspan, "a `for` header");
                }
                vars.push(decl);
            }
            Err(d) => sink.diags.push(
                Diagnostic::error(d.span, "a function cannot be declared in a `for` header")
                    .with_label("function declaration"),
            ),
        }
    }
    Stmt {
        kind: StmtKind::Decl(global(&specs, vars, span)),
        span,
    }
}
