//! C's "lexer hack": identifiers that name a type are told apart from
//! other names before parsing, so the LR(1) grammar can decide `(T)x`
//! (a cast) against `(x)` and `T * p;` (a declaration) against `a * b;`
//! by one token.
//!
//! [`mark_type_names`] walks the tokens once, in order, keeping the type
//! names in scope: the predefined ones ([`crate::stdtypes`]) and those each
//! `typedef` declares, from the `;` that ends the declaration to the `}`
//! that closes the block it is in. An identifier naming one of them
//! becomes a [`Token::TypeName`], except where C reads it as some other
//! kind of name: after `.`, `->`, `struct`, `union`, `enum` or `goto`, and
//! after a declaration's specifiers already gave the type (so `typedef
//! unsigned long size_t;` declares `size_t` again rather than reading it as
//! a second type). A variable that shadows a type name in an inner scope is
//! not supported (the checker's message says so).

use crate::lex::{Spanned, Token};
use crate::stdtypes::STD_TYPES;
use std::collections::HashMap;

/// Re-tags the identifiers that name types in scope as
/// [`Token::TypeName`] (see the module doc), and `dim3` directly followed
/// by `(` as the name of the builtin `dim3(x, y, z)` rather than the type.
pub fn mark_type_names(tokens: &mut [Spanned]) {
    // How many declarations of each name are in scope.
    let mut names: HashMap<String, u32> =
        STD_TYPES.iter().map(|(n, _)| (n.to_string(), 1)).collect();
    // Names declared at each brace depth, to forget at its `}`.
    let mut scopes: Vec<Vec<String>> = vec![Vec::new()];
    // Names of the typedef being read and the index of its `;`.
    let mut pending: Option<(Vec<String>, usize)> = None;
    // The specifiers read so far already name a type.
    let mut has_type = false;
    for i in 0..tokens.len() {
        let prev = i.checked_sub(1).map(|p| tokens[p].1.clone());
        let prev = prev.as_ref();
        let next_is_paren = matches!(tokens.get(i + 1).map(|t| &t.1), Some(Token::LParen));
        let tok = &mut tokens[i].1;
        let mut keeps_type = false;
        match tok {
            Token::LBrace => scopes.push(Vec::new()),
            Token::RBrace if scopes.len() > 1 => {
                for n in scopes.pop().unwrap_or_default() {
                    if let Some(c) = names.get_mut(&n) {
                        *c = c.saturating_sub(1);
                    }
                }
            }
            Token::Dim3 if next_is_paren => *tok = Token::Ident("dim3".to_owned()),
            Token::Ident(name) => {
                let other_name = matches!(
                    prev,
                    Some(
                        Token::Dot
                            | Token::Arrow
                            | Token::Struct
                            | Token::Union
                            | Token::Enum
                            | Token::Goto
                    )
                );
                if !other_name && !has_type && names.get(name.as_str()).is_some_and(|&c| c > 0) {
                    *tok = Token::TypeName(std::mem::take(name));
                    keeps_type = true;
                }
            }
            _ => {}
        }
        let tok = &tokens[i].1;
        has_type = match tok {
            Token::TypeName(_) => keeps_type,
            t if is_base_word(t) => true,
            // `struct S` and `struct S { ... }` name the type.
            Token::Ident(_) if matches!(prev, Some(Token::Struct | Token::Union | Token::Enum)) => {
                true
            }
            Token::RBrace => has_type,
            t if is_qualifier(t) => has_type,
            _ => false,
        };
        if matches!(tok, Token::Typedef) && pending.is_none() {
            pending = declared_names(tokens, i, |n| names.get(n).is_some_and(|&c| c > 0));
        }
        if let Some((declared, end)) = &pending
            && *end == i
        {
            for n in declared {
                *names.entry(n.clone()).or_insert(0) += 1;
                if let Some(scope) = scopes.last_mut() {
                    scope.push(n.clone());
                }
            }
            pending = None;
        }
    }
}

/// Words that give a declaration its type.
fn is_base_word(t: &Token) -> bool {
    t.is_type_keyword() || *t == Token::Dim3
}

/// Words that may stand among a declaration's specifiers without giving it
/// a type.
fn is_qualifier(t: &Token) -> bool {
    use Token as T;
    matches!(
        t,
        T::Const
            | T::Static
            | T::Extern
            | T::Inline
            | T::Typedef
            | T::IgnoredQual(_)
            | T::Global
            | T::Device
            | T::Shared
            | T::Struct
            | T::Union
            | T::Enum
    )
}

/// The names the `typedef` at `start` declares, and the index of the `;`
/// that ends it. Each declarator's name is its first identifier outside
/// `[...]` (parameter lists come after the name they belong to), once the
/// specifiers, and any `{ ... }` of a struct they define, are behind.
fn declared_names(
    tokens: &[Spanned],
    start: usize,
    is_type: impl Fn(&str) -> bool,
) -> Option<(Vec<String>, usize)> {
    let mut names = Vec::new();
    let mut depth = 0usize; // ( and [
    let mut braces = 0usize;
    let mut brackets = 0usize;
    let mut in_specs = true;
    let mut has_type = false;
    let mut want_name = true;
    // Inside the parentheses of a `typeof` among the specifiers (from this
    // depth): its names are not declared.
    let mut in_typeof: Option<usize> = None;
    for (i, (_, tok, _)) in tokens.iter().enumerate().skip(start + 1) {
        let prev = &tokens[i - 1].1;
        if let Some(level) = in_typeof {
            match tok {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth = depth.saturating_sub(1);
                    if depth == level {
                        in_typeof = None;
                        has_type = true;
                    }
                }
                _ => {}
            }
            continue;
        }
        match tok {
            Token::Typeof if in_specs => in_typeof = Some(depth),
            Token::LBrace => braces += 1,
            Token::RBrace => {
                braces = braces.checked_sub(1)?;
            }
            _ if braces > 0 => {}
            Token::Semi if depth == 0 => return Some((names, i)),
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::LBracket => {
                depth += 1;
                brackets += 1;
            }
            Token::RBracket => {
                depth = depth.saturating_sub(1);
                brackets = brackets.saturating_sub(1);
            }
            Token::Comma if depth == 0 => want_name = true,
            Token::Ident(n) | Token::TypeName(n) if brackets == 0 => {
                let tag = matches!(prev, Token::Struct | Token::Union | Token::Enum);
                if in_specs && (tag || (!has_type && is_type(n))) {
                    has_type = true;
                } else {
                    in_specs = false;
                    if want_name {
                        names.push(n.clone());
                        want_name = false;
                    }
                }
            }
            t if in_specs && is_base_word(t) => has_type = true,
            t if in_specs && is_qualifier(t) => {}
            _ => in_specs = false,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::lex;

    fn marked(src: &str) -> Vec<String> {
        let (mut tokens, _) = lex(src);
        mark_type_names(&mut tokens);
        tokens
            .iter()
            .filter_map(|t| match &t.1 {
                Token::TypeName(n) => Some(n.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn typedef_names_become_type_names_after_their_declaration() {
        assert_eq!(
            marked("typedef double real; real x; int f(real a) { return (real)a; }"),
            ["real", "real", "real"]
        );
        assert_eq!(
            marked("typedef struct node { struct node *next; } node, *link; node n; link l;"),
            ["node", "link"]
        );
        assert_eq!(marked("typedef double (*fn)(double x); fn f;"), ["fn"]);
        assert_eq!(marked("typedef int row[4]; row r;"), ["row"]);
        assert_eq!(
            marked("int x; typedef typeof(x) T; typedef typeof(T *) P; T a; P b;"),
            ["T", "T", "P"]
        );
    }

    #[test]
    fn other_kinds_of_names_stay_names() {
        // A member, a tag, a redeclaration, and a name out of scope.
        assert_eq!(
            marked("typedef int T; struct T { int T; } s; void f() { s.T = 1; }"),
            Vec::<String>::new()
        );
        assert_eq!(
            marked("typedef unsigned long size_t; size_t n;"),
            ["size_t"]
        );
        assert_eq!(marked("void f() { typedef int L; L a; } L b;"), ["L"]);
    }

    #[test]
    fn dim3_calls_are_names() {
        let (mut tokens, _) = lex("dim3 g = dim3(1, 2);");
        mark_type_names(&mut tokens);
        assert_eq!(tokens[0].1, Token::Dim3);
        assert_eq!(tokens[3].1, Token::Ident("dim3".into()));
    }
}
