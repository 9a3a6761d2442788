//! What belongs to a frame's scope (see `func`'s `Frame`): the locals it
//! declares and whether it spawns, not looking into a nested
//! `parallel_for` body, which is a scope (a task) of its own.

use crate::hir::{LocalId, Stmt, StmtKind};

/// True if `stmts` spawn in the scope they belong to (a `parallel_for` body
/// is a scope of its own, so it is not looked into).
pub(super) fn spawns_in(stmts: &[Stmt]) -> bool {
    stmts.iter().any(stmt_spawns)
}

fn stmt_spawns(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Spawn { .. } => true,
        StmtKind::Block(b) => spawns_in(b),
        StmtKind::If { then, els, .. } => {
            stmt_spawns(then) || els.as_deref().is_some_and(stmt_spawns)
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => stmt_spawns(body),
        StmtKind::For { init, body, .. } => {
            init.as_deref().is_some_and(stmt_spawns) || stmt_spawns(body)
        }
        StmtKind::Switch { body, .. } => stmt_spawns(body),
        StmtKind::Label(_) | StmtKind::Goto(_) => false,
        StmtKind::ParallelFor { .. }
        | StmtKind::Expr(_)
        | StmtKind::Decl(..)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return(_)
        | StmtKind::Sync => false,
    }
}

/// The locals declared in `stmts` in their scope (not inside a nested
/// `parallel_for`, whose locals belong to its task).
pub(super) fn decls_in(stmts: &[Stmt], out: &mut Vec<LocalId>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Decl(local, _) => out.push(*local),
            StmtKind::Block(b) => decls_in(b, out),
            StmtKind::If { then, els, .. } => {
                decls_in(std::slice::from_ref(then), out);
                if let Some(els) = els {
                    decls_in(std::slice::from_ref(els), out);
                }
            }
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
                decls_in(std::slice::from_ref(body), out)
            }
            StmtKind::For { init, body, .. } => {
                if let Some(init) = init {
                    decls_in(std::slice::from_ref(init), out);
                }
                decls_in(std::slice::from_ref(body), out);
            }
            StmtKind::Switch { body, .. } => decls_in(std::slice::from_ref(body), out),
            _ => {}
        }
    }
}
