//! What belongs to a frame's scope (see `func`'s `Frame`): the locals it
//! declares and whether it spawns, not looking into a nested
//! `parallel_for` body, which is a scope (a task) of its own.

use crate::hir::{LocalId, Stmt, StmtKind};
use std::collections::HashSet;

/// True if `stmts` spawn in the scope they belong to (a `parallel_for` body
/// is a scope of its own, so it is not looked into).
pub(super) fn spawns_in(stmts: &[Stmt]) -> bool {
    stmts.iter().any(stmt_spawns)
}

fn stmt_spawns(s: &Stmt) -> bool {
    contains(s, &|s| matches!(s.kind, StmtKind::Spawn { .. }))
}

/// True if `s` or a statement in its scope satisfies `pred`.
fn contains(s: &Stmt, pred: &dyn Fn(&Stmt) -> bool) -> bool {
    pred(s) || children(s).into_iter().any(|c| contains(c, pred))
}

/// The statements directly inside `s` in its scope: a block's, an `if`'s
/// branches, a loop's body (and a `for`'s first clause), a `switch`'s
/// body; not a `parallel_for`'s body.
fn children(s: &Stmt) -> Vec<&Stmt> {
    match &s.kind {
        StmtKind::Block(b) => b.iter().collect(),
        StmtKind::If { then, els, .. } => std::iter::once(&**then).chain(els.as_deref()).collect(),
        StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. }
        | StmtKind::Switch { body, .. } => vec![&**body],
        StmtKind::For { init, body, .. } => init.as_deref().into_iter().chain([&**body]).collect(),
        _ => Vec::new(),
    }
}

/// The locals declared in `stmts` in their scope (not inside a nested
/// `parallel_for`, whose locals belong to its task).
pub(super) fn decls_in(stmts: &[Stmt], out: &mut Vec<LocalId>) {
    fn decls_of(s: &Stmt, out: &mut Vec<LocalId>) {
        if let StmtKind::Decl(local, _) = &s.kind {
            out.push(*local);
        }
        for c in children(s) {
            decls_of(c, out);
        }
    }
    for s in stmts {
        decls_of(s, out);
    }
}

/// Adds to `out` the variable-length arrays (`is_vla`) of the frame whose
/// body is `body`, and of the `parallel_for` bodies in it, whose
/// declaration may run again while calls spawned since its last run
/// still run: those in a loop of their frame that spawns, and all of a
/// frame that spawns and has a `goto` (which may jump back above a
/// declaration). Such a declaration waits for those calls before it frees
/// the array of its last run (see `vla`).
pub(super) fn waiting_vlas(
    body: &[Stmt],
    is_vla: &dyn Fn(LocalId) -> bool,
    out: &mut HashSet<LocalId>,
) {
    /// `quiet`: nothing below `s` spawns in this scope (a loop around it
    /// was found not to), so the loops below need not look again: each
    /// statement is then looked at by one `stmt_spawns` at most, where
    /// asking at every loop of a nest was quadratic in its depth.
    fn mark(
        s: &Stmt,
        waits: bool,
        quiet: bool,
        is_vla: &dyn Fn(LocalId) -> bool,
        out: &mut HashSet<LocalId>,
    ) {
        let (waits, quiet) = match &s.kind {
            StmtKind::Decl(local, _) if waits && is_vla(*local) => {
                out.insert(*local);
                (waits, quiet)
            }
            StmtKind::ParallelFor { body, .. } => {
                waiting_vlas(std::slice::from_ref(body), is_vla, out);
                (waits, quiet)
            }
            StmtKind::While { .. } | StmtKind::DoWhile { .. } | StmtKind::For { .. }
                if !waits && !quiet =>
            {
                let spawns = stmt_spawns(s);
                (spawns, !spawns)
            }
            _ => (waits, quiet),
        };
        for c in children(s) {
            mark(c, waits, quiet, is_vla, out);
        }
    }
    let has_goto = body
        .iter()
        .any(|s| contains(s, &|s| matches!(s.kind, StmtKind::Goto(_))));
    let waits = has_goto && spawns_in(body);
    for s in body {
        mark(s, waits, false, is_vla, out);
    }
}
