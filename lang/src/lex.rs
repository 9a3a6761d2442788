//! The ParC lexer: preprocessed text in, `(start, Token, end)` triples out.
//!
//! Built on logos. The triples are what lalrpop's external-lexer interface
//! wants; [`lex`] produces all of them at once because the parser driver
//! scans the whole token stream before parsing (nesting limit, item
//! boundaries for error recovery).
//!
//! Invariants:
//! - Lexing never fails and never panics: every problem becomes a
//!   [`Diagnostic`] and lexing continues, so one run reports every lexical
//!   error. A malformed literal still yields a token (with a placeholder
//!   value) so that the parser does not report a second, confusing error for
//!   the same text.
//! - Spans are byte offsets into the `&str` given to [`lex`] and always lie on
//!   `char` boundaries; tokens come out in source order and do not overlap.
//! - Comments, whitespace, backslash-newline line splices, a byte-order mark
//!   and `#pragma` lines produce no tokens. The lexer reads the
//!   preprocessor's output (`crate::pp`), where no other directive is left;
//!   text lexed without it gets an error for each directive.
//! - String and character literal values are bytes after C escape
//!   processing; adjacent string literals are separate tokens here (the
//!   grammar concatenates them, as C translation phase 6 does).

use crate::ast::{IntSuffix, Span};
use crate::diag::Diagnostic;
use logos::{Filter, Lexer, Logos, Skip};

mod literals;

use literals::{lex_char, lex_number, lex_string};

/// A token and its byte range, in the shape lalrpop's external lexer expects.
pub type Spanned = (usize, Token, usize);

/// A numeric literal, already converted (the parser only wraps it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int {
        value: u128,
        suffix: IntSuffix,
        /// Written in decimal (C types decimal and hex/octal literals
        /// differently: `0xFFFFFFFF` is `unsigned`, `4294967295` is `long`).
        decimal: bool,
    },
    /// A `float` literal (`f` suffix) holds the value rounded to binary32
    /// directly from the decimal text, to avoid double rounding.
    Float { value: f64, is_float: bool },
}

/// Every token of ParC. Keywords win over identifiers (logos prefers the
/// exact `token` match over the identifier regex of the same length).
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(extras = Vec<Diagnostic>)]
// Whitespace (incl. vertical tab), backslash-newline splices and a BOM.
#[logos(skip r"[ \t\r\n\x0C\x0B]+|\\\r?\n|\x{FEFF}")]
// Greedy is right here: a line comment does run to the end of its line.
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Token {
    // ---- brackets and separators
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token("->")]
    Arrow,
    #[token("?")]
    Question,
    #[token(":")]
    Colon,
    #[token("...")]
    Ellipsis,
    // ---- operators
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("!")]
    Bang,
    #[token("++")]
    PlusPlus,
    #[token("--")]
    MinusMinus,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("<=")]
    Le,
    #[token(">=")]
    Ge,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusEq,
    #[token("-=")]
    MinusEq,
    #[token("*=")]
    StarEq,
    #[token("/=")]
    SlashEq,
    #[token("%=")]
    PercentEq,
    #[token("&=")]
    AmpEq,
    #[token("|=")]
    PipeEq,
    #[token("^=")]
    CaretEq,
    #[token("<<=")]
    ShlEq,
    #[token(">>=")]
    ShrEq,
    /// `<<<` opens a kernel launch configuration. No valid C has `<<` followed
    /// directly by `<`, so taking the longest match breaks no C program.
    #[token("<<<")]
    LaunchOpen,
    /// `>>>` closes a launch configuration (likewise never valid C).
    #[token(">>>")]
    LaunchClose,

    // ---- keywords
    #[token("void")]
    Void,
    #[token("bool")]
    #[token("_Bool")]
    Bool,
    #[token("char")]
    Char,
    #[token("int")]
    Int,
    #[token("unsigned")]
    Unsigned,
    #[token("signed")]
    Signed,
    #[token("long")]
    Long,
    #[token("float")]
    Float,
    #[token("double")]
    Double,
    #[token("struct")]
    Struct,
    #[token("const")]
    Const,
    #[token("static")]
    Static,
    #[token("extern")]
    Extern,
    #[token("inline")]
    #[token("__inline")]
    #[token("__inline__")]
    Inline,
    /// `restrict`, `volatile`, `register`, `auto`, `__host__`: accepted and
    /// ignored, as they do not change the meaning of a race-free ParC program.
    #[token("restrict", |_| Ignored::Restrict)]
    #[token("__restrict", |_| Ignored::Restrict)]
    #[token("__restrict__", |_| Ignored::Restrict)]
    #[token("volatile", |_| Ignored::Volatile)]
    #[token("register", |_| Ignored::Register)]
    #[token("auto", |_| Ignored::Auto)]
    #[token("__host__", |_| Ignored::Host)]
    #[token("_Noreturn", |_| Ignored::Noreturn)]
    IgnoredQual(Ignored),
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("while")]
    While,
    #[token("do")]
    Do,
    #[token("for")]
    For,
    #[token("parallel_for")]
    ParallelFor,
    /// `parallel_reduce(op: vars) (header) body`: a `parallel_for` with a
    /// reduction clause.
    #[token("parallel_reduce")]
    ParallelReduce,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("return")]
    Return,
    #[token("spawn")]
    Spawn,
    #[token("sync")]
    Sync,
    #[token("sizeof")]
    Sizeof,
    /// C11's `_Alignof` (gcc's `__alignof__`), accepted in C99 code as gcc
    /// accepts it.
    #[token("_Alignof")]
    #[token("__alignof__")]
    #[token("__alignof")]
    Alignof,
    /// gcc's `typeof(expr)` and `typeof(type)` (C23's `typeof`).
    #[token("typeof")]
    #[token("__typeof__")]
    #[token("__typeof")]
    Typeof,
    /// C11's `_Static_assert` (`static_assert` comes from `<assert.h>`).
    #[token("_Static_assert")]
    StaticAssert,
    /// `offsetof` as `<stddef.h>` defines it.
    #[token("__builtin_offsetof")]
    BuiltinOffsetof,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("NULL")]
    Null,
    #[token("__global__")]
    Global,
    #[token("__device__")]
    Device,
    #[token("__shared__")]
    Shared,
    #[token("dim3")]
    Dim3,
    #[token("typedef")]
    Typedef,
    #[token("union")]
    Union,
    #[token("enum")]
    Enum,
    #[token("short")]
    Short,
    #[token("switch")]
    Switch,
    #[token("case")]
    Case,
    #[token("default")]
    Default,
    #[token("goto")]
    Goto,
    /// C keywords and extensions ParC does not implement. They are tokens of
    /// their own (not identifiers) so the parser can say "`_Complex` is not
    /// supported" instead of something puzzling about a name. The grammar
    /// never accepts them.
    #[token("_Complex", |_| Unsupported::Complex)]
    #[token("_Imaginary", |_| Unsupported::Complex)]
    #[token("_Atomic", |_| Unsupported::Atomic)]
    #[token("_Thread_local", |_| Unsupported::ThreadLocal)]
    #[token("__thread", |_| Unsupported::ThreadLocal)]
    #[token("_Generic", |_| Unsupported::Generic)]
    #[token("_Alignas", |_| Unsupported::Alignas)]
    #[token("asm", |_| Unsupported::Asm)]
    #[token("__asm__", |_| Unsupported::Asm)]
    #[token("__asm", |_| Unsupported::Asm)]
    // The whole literal, so that its text makes no further errors.
    #[regex(r#"(L|u|U|u8)"([^"\\\n]|\\.)*""#, |_| Unsupported::WideLiteral)]
    #[regex(r#"(L|u|U)'([^'\\\n]|\\.)*'"#, |_| Unsupported::WideLiteral)]
    Unsupported(Unsupported),
    /// GNU C's `__attribute__` and `__extension__`: the parser's first
    /// step ([`crate::parse::gnu`]) removes them, with their arguments,
    /// before the grammar runs, and says which attributes it cannot honour.
    #[token("__attribute__")]
    #[token("__attribute")]
    GnuAttribute,
    #[token("__extension__")]
    GnuExtension,
    /// An identifier that a `typedef` in scope declared as a type name. The
    /// lexer never produces it: `parse` re-tags `Ident`s before parsing (C's
    /// "lexer hack", see `parse::mark_type_names`), so that `(T)x` is a cast
    /// and `T * p;` a declaration, decided by one token as LR(1) needs.
    TypeName(String),

    // ---- names and literals
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice().to_owned())]
    Ident(String),
    /// Like C's preprocessing number, the regex also takes any letters and
    /// digits glued to the literal, so that `12abc` or `0x` get one precise
    /// diagnostic from `lex_number` instead of a confusing parse error.
    #[regex(
        r"([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?[A-Za-z0-9_]*",
        lex_number
    )]
    #[regex(
        r"0[xX][0-9A-Fa-f]*(\.[0-9A-Fa-f]*)?[pP][+-]?[0-9]+[A-Za-z0-9_]*",
        lex_number
    )]
    Number(Number),
    #[token("'", lex_char)]
    CharLit(u8),
    #[token("\"", lex_string)]
    StrLit(Vec<u8>),

    /// A `#pragma omp` line (the preprocessor passes them on under
    /// `-fopenmp`), whole; `crate::omp` reads it. Other `#` lines produce
    /// no token.
    #[regex(r"#[^\n]*", directive, allow_greedy = true)]
    OmpPragma(String),

    // ---- never produced: this pattern's callback always skips
    #[token("/*", block_comment)]
    Skipped,
}

impl Token {
    /// The keywords of C's arithmetic and `void` types (`int`, `unsigned`,
    /// `double`, ...), one word of a type each.
    pub fn is_type_keyword(&self) -> bool {
        use Token as T;
        matches!(
            self,
            T::Void
                | T::Bool
                | T::Char
                | T::Short
                | T::Int
                | T::Unsigned
                | T::Signed
                | T::Long
                | T::Float
                | T::Double
        )
    }
}

/// Qualifiers that parse but have no effect in ParC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ignored {
    Restrict,
    Volatile,
    Register,
    Auto,
    Host,
    Noreturn,
}

/// C keywords that ParC rejects with a tailored message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsupported {
    Complex,
    Atomic,
    ThreadLocal,
    Generic,
    Alignas,
    Asm,
    WideLiteral,
}

impl Unsupported {
    /// The headline and a hint for the diagnostic the parser reports.
    pub fn explain(self) -> (&'static str, &'static str) {
        use Unsupported::*;
        match self {
            Complex => (
                "`_Complex` is not supported",
                "store the real and imaginary parts in a `struct`",
            ),
            Atomic => (
                "`_Atomic` is not supported",
                "use `atomicAdd`, or a `parallel_for` whose iterations write disjoint memory",
            ),
            ThreadLocal => (
                "thread-local storage (`_Thread_local`, `__thread`) is not supported",
                "use a local variable, or an array indexed by the iteration",
            ),
            Generic => (
                "`_Generic` is not supported",
                "call the function for the argument's type directly",
            ),
            Alignas => (
                "`_Alignas` is not supported",
                "remove the alignment specifier; parc aligns every type naturally",
            ),
            Asm => (
                "inline assembly is not supported",
                "move the assembly into a C file and call it as an `extern` function",
            ),
            WideLiteral => (
                "wide and Unicode literals (`L\"...\"`, `u8\"...\"`, `L'x'`) are not supported",
                "write a plain literal: parc's strings are bytes (UTF-8 in a plain literal works)",
            ),
        }
    }
}

/// Most lexical diagnostics reported for one file; past this the input is
/// almost certainly not ParC and more messages would only bury the first.
const MAX_LEX_DIAGNOSTICS: usize = 100;

/// Lexes a whole file. Returns the tokens in order and the diagnostics
/// (errors and warnings) sorted by position. Never panics.
pub fn lex(source: &str) -> (Vec<Spanned>, Vec<Diagnostic>) {
    let mut lexer = Token::lexer_with_extras(source, Vec::new());
    let mut tokens = Vec::new();
    // Stray characters are collected separately so that a run of them (say,
    // a pasted binary blob) becomes one diagnostic, not one per byte.
    let mut stray: Vec<std::ops::Range<usize>> = Vec::new();
    while let Some(result) = lexer.next() {
        let span = lexer.span();
        match result {
            Ok(tok) => tokens.push((span.start, tok, span.end)),
            Err(()) => match stray.last_mut() {
                Some(last) if last.end == span.start => last.end = span.end,
                _ => stray.push(span),
            },
        }
    }
    let mut diags = std::mem::take(&mut lexer.extras);
    diags.extend(stray.into_iter().map(|r| stray_diagnostic(source, r)));
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    if diags.len() > MAX_LEX_DIAGNOSTICS {
        diags.truncate(MAX_LEX_DIAGNOSTICS);
    }
    (tokens, diags)
}

fn stray_diagnostic(source: &str, range: std::ops::Range<usize>) -> Diagnostic {
    let text = source.get(range.clone()).unwrap_or("");
    let span = Span::new(range.start, range.end);
    let mut chars = text.chars();
    let first = chars.next().unwrap_or('?');
    let several = chars.next().is_some();
    let message = if several {
        format!(
            "unexpected characters `{}`",
            text.chars().take(16).collect::<String>().escape_debug()
        )
    } else if first == '\0' {
        "unexpected NUL byte".to_owned()
    } else if first.is_control() {
        format!(
            "unexpected control character U+{:04X} (`{}`)",
            first as u32,
            first.escape_debug()
        )
    } else {
        format!("unexpected character `{first}`")
    };
    let d = Diagnostic::error(span, message).with_label("not valid in ParC source");
    match first {
        '\u{201C}' | '\u{201D}' => d.with_help("use the ASCII double quote `\"`"),
        '\u{2018}' | '\u{2019}' => d.with_help("use the ASCII single quote `'`"),
        '\u{2212}' | '\u{2013}' | '\u{2014}' => d.with_help("use the ASCII minus sign `-`"),
        '\\' => d.with_help("a backslash is only valid inside a literal or at the end of a line"),
        _ => d,
    }
}

/// The message of a `/*` that is never closed (the parser leaves out the
/// "found end of file" errors that follow from it).
pub(crate) const UNTERMINATED_COMMENT: &str = "unterminated comment";

/// `/* ... */`: skips to the closing `*/`. C comments do not nest.
fn block_comment(lex: &mut Lexer<Token>) -> Skip {
    match lex.remainder().find("*/") {
        Some(i) => lex.bump(i + 2),
        None => {
            let start = lex.span().start;
            lex.extras.push(
                Diagnostic::error(Span::new(start, start + 2), UNTERMINATED_COMMENT)
                    .with_label("this comment is never closed")
                    .with_help("close it with `*/`"),
            );
            let rest = lex.remainder().len();
            lex.bump(rest);
        }
    }
    Skip
}

/// `#...` lines. The preprocessor has handled every directive before the
/// lexer runs, except `#pragma` lines, which it passes on. Text that did not
/// go through it (the lexer's own tests, tools) keeps the old rules:
/// `#include <header>` and `#pragma` are skipped, anything else is an error.
fn directive(lex: &mut Lexer<Token>) -> Filter<String> {
    let line = lex.slice();
    let body = line[1..].trim_start();
    let word: String = body
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let after = body[word.len()..].trim_start();
    let span = Span::new(lex.span().start, lex.span().end);
    let diag = match word.as_str() {
        "pragma"
            if after.starts_with("omp")
                && !after[3..].starts_with(|c: char| c.is_alphanumeric() || c == '_') =>
        {
            return Filter::Emit(line.to_string());
        }
        "pragma" => None,
        "include" if after.starts_with('<') => None,
        "include" => Some(
            Diagnostic::error(span, "ParC cannot include files")
                .with_label("not supported")
                .with_help(
                    "put the declarations in this file; standard headers like `<stdio.h>` may stay",
                ),
        ),
        "define" => Some(
            Diagnostic::error(span, "ParC has no preprocessor: `#define` is not supported")
                .with_label("not supported")
                .with_help("use a `const` global (e.g. `const int N = 100;`) or a function"),
        ),
        _ => Some(
            Diagnostic::error(span, "ParC has no preprocessor")
                .with_label("not supported")
                .with_help(
                    "remove this line; only `#include <...>` and `#pragma` lines are ignored",
                ),
        ),
    };
    if let Some(d) = diag {
        lex.extras.push(d);
    }
    Filter::Skip
}
