//! Input too deeply nested to parse safely: a scan of the tokens, before
//! parsing, with conservative counts that bound the depth of the tree the
//! parser would build (brackets, prefix operators, chains of control
//! statements), so that no recursive walk after it can overflow the
//! stack.

use super::{MAX_CHAIN, MAX_NESTING, starts_type};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lex::{Spanned, Token};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Frame {
    Paren,
    Bracket,
    Block,
    InitList,
}

pub(super) struct Level {
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
