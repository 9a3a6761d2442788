//! The block scopes of the function being checked: which declaration each
//! name denotes here, inner declarations shadowing outer ones.
//!
//! One map from each name to the stack of its visible declarations
//! (innermost last), and for each open scope the names it declared, which
//! leave the map when it closes: a lookup is one hash probe whatever the
//! depth of the blocks around it (walking the scopes outwards was
//! quadratic in the depth of a nest of blocks, as 4,000 nested `for`s).

use super::Sym;
use crate::ast::Span;
use std::collections::HashMap;

#[derive(Default)]
pub(super) struct Scopes {
    /// Each visible name's declarations, outermost first, with the depth
    /// of the scope that declared each (1 for the outermost).
    visible: HashMap<String, Vec<(Sym, Span, usize)>>,
    /// The names each open scope declared, outermost first.
    open: Vec<Vec<String>>,
}

impl Scopes {
    /// One scope, open: the function's parameters'.
    pub(super) fn new() -> Scopes {
        Scopes {
            visible: HashMap::new(),
            open: vec![Vec::new()],
        }
    }

    pub(super) fn push(&mut self) {
        self.open.push(Vec::new());
    }

    /// Closes the innermost scope: its names denote again what they did
    /// before it.
    pub(super) fn pop(&mut self) {
        let Some(names) = self.open.pop() else {
            return;
        };
        for name in names {
            if let Some(stack) = self.visible.get_mut(&name) {
                stack.pop();
                if stack.is_empty() {
                    self.visible.remove(&name);
                }
            }
        }
    }

    /// What `name` denotes here, if a block scope declares it.
    pub(super) fn lookup(&self, name: &str) -> Option<Sym> {
        self.visible
            .get(name)
            .and_then(|s| s.last())
            .map(|&(sym, ..)| sym)
    }

    /// Where the innermost scope declared `name`, if it did.
    pub(super) fn declared_here(&self, name: &str) -> Option<Span> {
        let depth = self.open.len();
        match self.visible.get(name).and_then(|s| s.last()) {
            Some(&(_, span, d)) if d == depth => Some(span),
            _ => None,
        }
    }

    /// Declares `name` in the innermost scope (the caller has checked
    /// that it does not already); nothing if no scope is open.
    pub(super) fn declare(&mut self, name: &str, sym: Sym, span: Span) {
        let depth = self.open.len();
        let Some(names) = self.open.last_mut() else {
            return;
        };
        names.push(name.to_string());
        self.visible
            .entry(name.to_string())
            .or_default()
            .push((sym, span, depth));
    }

    /// Every name visible in a block scope here, for suggestions.
    pub(super) fn names(&self) -> impl Iterator<Item = &String> {
        self.visible.keys()
    }
}
