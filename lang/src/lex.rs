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
    #[token("_Static_assert", |_| Unsupported::StaticAssert)]
    #[token("_Alignas", |_| Unsupported::Alignas)]
    #[token("_Alignof", |_| Unsupported::Alignas)]
    #[token("asm", |_| Unsupported::Asm)]
    #[token("__asm__", |_| Unsupported::Asm)]
    #[token("__asm", |_| Unsupported::Asm)]
    #[token("__attribute__", |_| Unsupported::Attribute)]
    #[token("__attribute", |_| Unsupported::Attribute)]
    #[token("__extension__", |_| Unsupported::Extension)]
    #[token("__typeof__", |_| Unsupported::Typeof)]
    #[token("typeof", |_| Unsupported::Typeof)]
    // The whole literal, so that its text makes no further errors.
    #[regex(r#"(L|u|U|u8)"([^"\\\n]|\\.)*""#, |_| Unsupported::WideLiteral)]
    #[regex(r#"(L|u|U)'([^'\\\n]|\\.)*'"#, |_| Unsupported::WideLiteral)]
    Unsupported(Unsupported),
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
    StaticAssert,
    Alignas,
    Asm,
    Attribute,
    Extension,
    Typeof,
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
            StaticAssert => (
                "`_Static_assert` is not supported",
                "remove it, or check the condition with `assert` at run time",
            ),
            Alignas => (
                "`_Alignas` and `_Alignof` are not supported",
                "remove the alignment specifier; parc aligns every type naturally",
            ),
            Asm => (
                "inline assembly is not supported",
                "move the assembly into a C file and call it as an `extern` function",
            ),
            Attribute => ("`__attribute__` is not supported", "remove the attribute"),
            Extension => (
                "`__extension__` is not supported",
                "remove it; parc has no GNU extensions to silence",
            ),
            Typeof => (
                "`typeof` is not supported",
                "write the type out, or declare it once with `typedef`",
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

/// Classifies and converts a numeric literal (see the regex on
/// [`Token::Number`]). Malformed literals are reported and become `0`.
fn lex_number(lex: &mut Lexer<Token>) -> Number {
    let text = lex.slice();
    let span = Span::new(lex.span().start, lex.span().end);
    match convert_number(text) {
        Ok(n) => n,
        Err((message, help)) => {
            let mut d = Diagnostic::error(span, message).with_label("invalid number");
            if let Some(h) = help {
                d = d.with_help(h);
            }
            lex.extras.push(d);
            Number::Int {
                value: 0,
                suffix: IntSuffix::None,
                decimal: true,
            }
        }
    }
}

type NumError = (String, Option<String>);

/// Converts the text of a numeric literal. Public within the crate for tests.
pub(crate) fn convert_number(text: &str) -> Result<Number, NumError> {
    let bytes = text.as_bytes();
    if bytes.len() >= 2 && bytes[0] == b'0' && (bytes[1] == b'x' || bytes[1] == b'X') {
        if text.contains(['p', 'P']) || text.contains('.') {
            return hex_float(text);
        }
        let digits_end = 2 + bytes[2..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if digits_end == 2 {
            return Err((
                "hexadecimal literal has no digits".to_owned(),
                Some("write digits after `0x`, e.g. `0x1F`".to_owned()),
            ));
        }
        let value = accumulate(&text[2..digits_end], 16)?;
        let suffix = int_suffix(&text[digits_end..])?;
        return Ok(Number::Int {
            value,
            suffix,
            decimal: false,
        });
    }
    // Decimal or octal integer, or decimal floating literal:
    // digits [. digits] [e[+-]digits] suffix
    let int_end = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut end = int_end;
    let mut is_float_syntax = false;
    if bytes.get(end) == Some(&b'.') {
        is_float_syntax = true;
        end += 1;
        end += bytes[end..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(bytes.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        let exp_digits = bytes[e.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if exp_digits > 0 {
            is_float_syntax = true;
            end = e + exp_digits;
        } else {
            return Err((
                format!("exponent of `{text}` has no digits"),
                Some("write digits after the `e`, e.g. `1e-3`".to_owned()),
            ));
        }
    }
    let number = &text[..end];
    let suffix = &text[end..];
    if is_float_syntax {
        let is_float = match suffix {
            "" => false,
            "f" | "F" => true,
            // `long double` is `double` in parc (LANGUAGE.md).
            "l" | "L" => false,
            _ => {
                return Err((
                    format!("invalid suffix `{suffix}` on floating literal"),
                    Some(
                        "the floating suffixes are `f` (for `float`) and `L` (`long double`)"
                            .to_owned(),
                    ),
                ));
            }
        };
        // Rust's float parser accepts exactly C's decimal forms here
        // (`1.`, `.5`, `1e3`, `1.e3`) and rounds correctly.
        let value = if is_float {
            number.parse::<f32>().map(f64::from)
        } else {
            number.parse::<f64>()
        };
        return match value {
            Ok(v) if v.is_infinite() => Err((
                format!(
                    "floating literal `{text}` is too large for `{}`",
                    if is_float { "float" } else { "double" }
                ),
                None,
            )),
            Ok(value) => Ok(Number::Float { value, is_float }),
            Err(_) => Err((format!("invalid floating literal `{text}`"), None)),
        };
    }
    if suffix.starts_with(['f', 'F']) {
        return Err((
            format!("invalid suffix `{suffix}` on integer literal"),
            Some(format!("write `{number}.0{suffix}` for a `float`")),
        ));
    }
    let suffix = int_suffix(suffix)?;
    let decimal = !(number.len() > 1 && number.starts_with('0'));
    let value = if !decimal {
        if let Some(bad) = number.chars().find(|c| !('0'..='7').contains(c)) {
            return Err((
                format!("invalid digit `{bad}` in octal literal `{number}`"),
                Some(
                    "a leading `0` makes a literal octal; remove it for a decimal number"
                        .to_owned(),
                ),
            ));
        }
        accumulate(&number[1..], 8)?
    } else {
        accumulate(number, 10)?
    };
    Ok(Number::Int {
        value,
        suffix,
        decimal,
    })
}

/// A hexadecimal floating literal (C99): `0x1.8p3`, `0x.4p-2f`. The value
/// is the hexadecimal mantissa times two to the binary exponent; the
/// mantissa converts to the literal's type with one rounding (Rust's
/// integer-to-float casts round correctly) and the power of two scales it
/// exactly unless the result is subnormal.
fn hex_float(text: &str) -> Result<Number, NumError> {
    let body = &text[2..];
    let p = body.find(['p', 'P']).ok_or_else(|| {
        (
            format!("hexadecimal floating literal `{text}` has no exponent"),
            Some("write a binary exponent after the digits, e.g. `0x1.8p3`".to_owned()),
        )
    })?;
    let (mantissa, rest) = (&body[..p], &body[p + 1..]);
    let (int_digits, frac_digits) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err((
            format!("hexadecimal floating literal `{text}` has no digits"),
            None,
        ));
    }
    let exp_len = rest
        .char_indices()
        .take_while(|&(i, c)| c.is_ascii_digit() || (i == 0 && (c == '+' || c == '-')))
        .count();
    let (exp_text, suffix) = rest.split_at(exp_len);
    let exp: i64 = exp_text.parse().map_err(|_| {
        (
            format!("exponent of `{text}` has no digits"),
            Some("write digits after the `p`, e.g. `0x1p-3`".to_owned()),
        )
    })?;
    let is_float = match suffix {
        "" | "l" | "L" => false,
        "f" | "F" => true,
        _ => {
            return Err((
                format!("invalid suffix `{suffix}` on floating literal"),
                Some(
                    "the floating suffixes are `f` (for `float`) and `L` (`long double`)"
                        .to_owned(),
                ),
            ));
        }
    };
    // Leading zeros do not count; a mantissa beyond 128 bits keeps its
    // leading 30 hexadecimal digits (far beyond a double's precision).
    let digits: String = format!("{int_digits}{frac_digits}")
        .trim_start_matches('0')
        .to_owned();
    let kept = digits.len().min(30);
    let dropped = (digits.len() - kept) as i64;
    let m = accumulate(&digits[..kept], 16)?;
    let scale = exp
        .saturating_sub(4 * frac_digits.len() as i64)
        .saturating_add(4 * dropped);
    let value = if is_float {
        f64::from(scale2_f32(m as f32, scale))
    } else {
        scale2(m as f64, scale)
    };
    if value.is_infinite() {
        return Err((
            format!(
                "floating literal `{text}` is too large for `{}`",
                if is_float { "float" } else { "double" }
            ),
            None,
        ));
    }
    Ok(Number::Float { value, is_float })
}

/// `x * 2^e`, in steps whose factors are exact powers of two.
fn scale2(mut x: f64, mut e: i64) -> f64 {
    while e != 0 && x != 0.0 && x.is_finite() {
        let step = e.clamp(-1000, 1000);
        x *= f64::from_bits(((step + 1023) as u64) << 52);
        e -= step;
    }
    x
}

fn scale2_f32(mut x: f32, mut e: i64) -> f32 {
    while e != 0 && x != 0.0 && x.is_finite() {
        let step = e.clamp(-120, 120);
        x *= f32::from_bits(((step + 127) as u32) << 23);
        e -= step;
    }
    x
}

fn accumulate(digits: &str, radix: u32) -> Result<u128, NumError> {
    let mut value: u128 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix).unwrap_or(0);
        value = value
            .checked_mul(u128::from(radix))
            .and_then(|v| v.checked_add(u128::from(d)))
            .ok_or_else(|| ("integer literal is too large".to_owned(), None))?;
    }
    Ok(value)
}

fn int_suffix(suffix: &str) -> Result<IntSuffix, NumError> {
    match suffix.to_ascii_lowercase().as_str() {
        "" => Ok(IntSuffix::None),
        "u" => Ok(IntSuffix::Unsigned),
        "l" | "ll" => Ok(IntSuffix::Long),
        "ul" | "lu" | "ull" | "llu" => Ok(IntSuffix::UnsignedLong),
        _ => Err((
            format!("invalid suffix `{suffix}` on integer literal"),
            Some("integer suffixes are `u`, `l`, `ul`, `ll` and `ull`".to_owned()),
        )),
    }
}

/// Reads one escape sequence starting at `rest[i] == b'\\'`; `base` is the
/// byte offset of `rest` in the source (for spans). Pushes the value's bytes
/// to `out` and returns the index after the sequence. `i + 1 < rest.len()`
/// is guaranteed by the callers.
fn escape(
    rest: &str,
    base: usize,
    i: usize,
    out: &mut Vec<u8>,
    diags: &mut Vec<Diagnostic>,
) -> usize {
    let bytes = rest.as_bytes();
    let c = bytes[i + 1];
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'v' => Some(11),
        b'\\' => Some(b'\\'),
        b'\'' => Some(b'\''),
        b'"' => Some(b'"'),
        b'?' => Some(b'?'),
        _ => None,
    };
    if let Some(v) = simple {
        out.push(v);
        return i + 2;
    }
    match c {
        b'0'..=b'7' => {
            let n = bytes[i + 1..]
                .iter()
                .take(3)
                .take_while(|b| (b'0'..=b'7').contains(*b))
                .count();
            let mut value: u32 = 0;
            for &b in &bytes[i + 1..i + 1 + n] {
                value = value * 8 + u32::from(b - b'0');
            }
            if value > 255 {
                diags.push(
                    Diagnostic::error(
                        Span::new(base + i, base + i + 1 + n),
                        "octal escape sequence out of range",
                    )
                    .with_label("larger than 255")
                    .with_help("the largest octal escape is `\\377`"),
                );
            }
            out.push(value as u8);
            i + 1 + n
        }
        b'x' => {
            let n = bytes[i + 2..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            let span = Span::new(base + i, base + i + 2 + n);
            if n == 0 {
                diags.push(
                    Diagnostic::error(span, "`\\x` escape has no hexadecimal digits")
                        .with_label("invalid escape")
                        .with_help("write e.g. `\\x41`"),
                );
                return i + 2;
            }
            let mut value: u32 = 0;
            for &b in &bytes[i + 2..i + 2 + n] {
                let d = char::from(b).to_digit(16).unwrap_or(0);
                value = value.saturating_mul(16).saturating_add(d);
            }
            if value > 255 {
                diags.push(
                    Diagnostic::error(span, "hexadecimal escape sequence out of range")
                        .with_label("larger than 255")
                        .with_help("a `\\x` escape must fit in one byte (at most `\\xFF`)"),
                );
            }
            out.push(value as u8);
            i + 2 + n
        }
        _ => {
            // Unknown escape: C says the behaviour is undefined and gcc warns
            // and keeps the character; so do we.
            let ch = rest[i + 1..].chars().next().unwrap_or('?');
            let len = ch.len_utf8();
            diags.push(
                Diagnostic::warning(
                    Span::new(base + i, base + i + 1 + len),
                    format!("unknown escape sequence `\\{}`", ch.escape_debug()),
                )
                .with_label("unknown escape")
                .with_help("write `\\\\` for a backslash"),
            );
            let mut buf = [0; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            i + 1 + len
        }
    }
}

/// `"..."`: reads up to the closing quote. A string cannot span lines
/// (except through a backslash-newline splice); an unterminated one ends at
/// the end of its line so lexing resumes on the next line.
fn lex_string(lex: &mut Lexer<Token>) -> Vec<u8> {
    let start = lex.span().start;
    let base = lex.span().end;
    let rest = lex.remainder();
    let bytes = rest.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        match bytes.get(i) {
            None | Some(b'\n') => {
                let end = if i > 0 && bytes[i - 1] == b'\r' {
                    i - 1
                } else {
                    i
                };
                lex.extras.push(
                    Diagnostic::error(Span::new(start, base + end), "unterminated string literal")
                        .with_label("this string is never closed")
                        .with_help("add a closing `\"`"),
                );
                lex.bump(i);
                return out;
            }
            Some(b'"') => {
                lex.bump(i + 1);
                return out;
            }
            Some(b'\\') => match bytes.get(i + 1) {
                None => i += 1,
                Some(b'\n') => i += 2,
                Some(b'\r') if bytes.get(i + 2) == Some(&b'\n') => i += 3,
                Some(_) => i = escape(rest, base, i, &mut out, &mut lex.extras),
            },
            Some(&b) => {
                out.push(b);
                i += 1;
            }
        }
    }
}

/// `'c'`: exactly one character or escape. Errors keep the token (value 0 or
/// the first character) so the parser sees a literal where one was meant.
fn lex_char(lex: &mut Lexer<Token>) -> u8 {
    let start = lex.span().start;
    let base = lex.span().end;
    let rest = lex.remainder();
    let bytes = rest.as_bytes();
    let unterminated = |at: usize| {
        Diagnostic::error(
            Span::new(start, base + at),
            "unterminated character literal",
        )
        .with_label("this character literal is never closed")
        .with_help("add a closing `'`")
    };
    let mut value = Vec::new();
    let i = match bytes.first() {
        Some(b'\'') => {
            lex.extras.push(
                Diagnostic::error(Span::new(start, base + 1), "empty character literal")
                    .with_label("no character between the quotes")
                    .with_help("write `'\\0'` for a NUL character, or `'\\''` for a quote"),
            );
            lex.bump(1);
            return 0;
        }
        None | Some(b'\n' | b'\r') => {
            lex.extras.push(unterminated(0));
            return 0;
        }
        Some(b'\\') if bytes.len() >= 2 && bytes[1] != b'\n' => {
            escape(rest, base, 0, &mut value, &mut lex.extras)
        }
        Some(b'\\') => {
            lex.extras.push(unterminated(1));
            lex.bump(1);
            return 0;
        }
        Some(_) => {
            let ch = rest.chars().next().unwrap_or('\0');
            let mut buf = [0; 4];
            value.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            ch.len_utf8()
        }
    };
    if bytes.get(i) == Some(&b'\'') {
        lex.bump(i + 1);
        if value.len() > 1 {
            lex.extras.push(
                Diagnostic::error(
                    Span::new(start, base + i + 1),
                    "character literal does not fit in a `char`",
                )
                .with_label("more than one byte")
                .with_help("a `char` holds one byte; use a string literal for non-ASCII text"),
            );
        }
        return value.first().copied().unwrap_or(0);
    }
    // More text before a closing quote on this line: a multi-character
    // literal. Otherwise the quote is missing; consume only the one character
    // so that what follows (often `;` or `)`) still parses.
    let line_end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let tail = bytes.get(i..line_end).unwrap_or(&[]);
    match tail.iter().position(|&b| b == b'\'') {
        Some(close) => {
            let end = i + close + 1;
            lex.extras.push(
                Diagnostic::error(
                    Span::new(start, base + end),
                    "character literal contains more than one character",
                )
                .with_label("more than one character")
                .with_help("use double quotes for a string: `\"...\"`"),
            );
            lex.bump(end);
        }
        None => {
            lex.extras.push(unterminated(i));
            lex.bump(i);
        }
    }
    value.first().copied().unwrap_or(0)
}
