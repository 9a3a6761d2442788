//! Convergent operations, as LLVM's `convergent` attribute.
//!
//! A `barrier` (`__syncthreads`) makes the threads of a block wait for
//! each other, and every thread of the block must reach the *same*
//! barrier, through the same calls (LANGUAGE.md; the reference interpreter
//! reports anything else as barrier divergence). Which threads run a given
//! barrier is therefore part of the program's meaning. Operations with
//! that property are *convergent*: the `barrier` intrinsic
//! ([`Intrinsic::is_convergent`]) and every call of a function marked
//! [`Function::convergent`].
//!
//! A function is marked when it may reach a barrier: it holds a
//! convergent operation. The verifier requires the mark there (rule
//! `[convergent]`), and on the gradient declaration of a marked primal,
//! whose body the AD will make from the primal's. A mark on a function
//! that reaches no barrier is allowed (it only makes passes more careful);
//! [`infer`] sets exactly the marks the bodies call for. The text form
//! prints the mark after the function's kind: `func device convergent
//! @f(...)`.
//!
//! # What passes must not do
//! A transformation must not change which threads run a convergent
//! operation together. So no pass may
//! - make one control-dependent on a value it did not depend on before:
//!   unswitching a loop that holds one puts each copy under the hoisted
//!   branch, and threads that disagree on it reach different copies;
//! - split one into copies that threads which reached it together may
//!   reach apart: rotating a loop whose header holds one (a copy in the
//!   guard, one at the bottom), duplicating a block that holds one into its
//!   predecessors (tail duplication, jump threading through it), unrolling
//!   a loop that holds one partially or where not every iteration reaches
//!   it, turning a convergent self-call into a jump (tail-recursion
//!   elimination: threads at different depths of the recursion, which
//!   reach a barrier through different calls, would meet at it);
//! - merge two into one or move one across a branch (hoisting or sinking
//!   it, GVN of two calls).
//!
//! Allowed, because every thread that reached the original together
//! reaches the same copy: inlining (the copy at a call site is run by the
//! threads that made that call, and threads meet at a barrier only through
//! the same calls); full unrolling of a loop with a constant trip count and
//! one exit, where every convergent operation in it runs on every
//! iteration (copy `k` is iteration `k` for every thread). No pass deletes
//! one: a barrier has effects (the
//! optimizer's mod/ref analysis treats it as reading and writing all
//! memory), and so does every call of a function that reaches one.
//!
//! Passes ask a [`Convergence`], made once per module and held while they
//! rewrite its functions, which instructions are convergent. A function
//! without the mark holds none, so for host code the answer costs nothing.

use crate::entities::{Block, FuncId};
use crate::function::{Function, Module};
use crate::inst::InstKind;
use cranelift_entity::{EntitySet, SecondaryMap};

/// The functions marked convergent in a module, so that a pass can tell a
/// convergent call while it holds one function mutably.
#[derive(Clone, Debug, Default)]
pub struct Convergence {
    marked: EntitySet<FuncId>,
}

impl Convergence {
    /// The marks of `module`'s functions as they are now.
    pub fn of(module: &Module) -> Convergence {
        let mut marked = EntitySet::new();
        for (id, f) in module.funcs.iter() {
            if f.convergent {
                marked.insert(id);
            }
        }
        Convergence { marked }
    }

    /// Whether function `f` is marked convergent.
    pub fn function(&self, f: FuncId) -> bool {
        self.marked.contains(f)
    }

    /// Whether an instruction of this kind is convergent: a `barrier`, or
    /// a call of a function marked convergent.
    pub fn is_convergent(&self, kind: &InstKind) -> bool {
        match kind {
            InstKind::Intrinsic { op, .. } => op.is_convergent(),
            InstKind::Call { func, .. } => self.marked.contains(*func),
            _ => false,
        }
    }

    /// Whether any instruction of `blocks` (blocks of `func`) is convergent.
    pub fn any_in(&self, func: &Function, blocks: impl IntoIterator<Item = Block>) -> bool {
        func.convergent
            && blocks.into_iter().any(|b| {
                func.block_insts(b)
                    .iter()
                    .any(|&i| self.is_convergent(func.inst(i)))
            })
    }
}

/// Marks exactly the functions that may reach a barrier: those holding a
/// `barrier` or calling a marked function, the gradient declarations of
/// marked primals, and declarations already marked (nothing shows what an
/// `extern` function does). Linear in the module's size. Returns whether a
/// mark changed.
pub fn infer(module: &mut Module) -> bool {
    let mut reaches: SecondaryMap<FuncId, bool> = SecondaryMap::new();
    let mut callers: SecondaryMap<FuncId, Vec<FuncId>> = SecondaryMap::new();
    let mut work: Vec<FuncId> = Vec::new();
    for (id, f) in module.funcs.iter() {
        let mut seed = f.is_declaration() && f.convergent;
        for (_, i) in f.placed_insts() {
            match f.inst(i) {
                InstKind::Intrinsic { op, .. } if op.is_convergent() => seed = true,
                InstKind::Call { func, .. } => callers[*func].push(id),
                _ => {}
            }
        }
        if seed {
            reaches[id] = true;
            work.push(id);
        }
    }
    // A gradient's body will hold its primal's barriers.
    for req in &module.grad_requests {
        callers[req.primal].push(req.grad);
    }
    while let Some(f) = work.pop() {
        for &c in &callers[f] {
            if !reaches[c] {
                reaches[c] = true;
                work.push(c);
            }
        }
    }
    let mut changed = false;
    for (id, f) in module.funcs.iter_mut() {
        changed |= f.convergent != reaches[id];
        f.convergent = reaches[id];
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{FuncBuilder, new_function};
    use crate::function::{FuncKind, Signature};
    use crate::intrinsic::Intrinsic;

    /// `k` calls `mid`, which calls `leaf`, which has the barrier; `other`
    /// reaches none.
    fn chain() -> (Module, [FuncId; 4]) {
        let mut m = Module::new();
        let mut ids = Vec::new();
        for (name, barrier, callee) in [
            ("leaf", true, None),
            ("mid", false, Some(0)),
            ("k", false, Some(1)),
            ("other", false, None),
        ] {
            let mut f = new_function(name, Signature::default());
            f.kind = FuncKind::Device;
            let entry = f.layout[0];
            let mut b = FuncBuilder::new(&mut f);
            b.switch_to(entry);
            if barrier {
                b.intrinsic(Intrinsic::Barrier, None, vec![]);
            }
            if let Some(c) = callee {
                b.call(ids[c], None, vec![]);
            }
            b.ret(None);
            ids.push(m.funcs.push(f));
        }
        (m, [ids[0], ids[1], ids[2], ids[3]])
    }

    #[test]
    fn marks_follow_calls_to_a_barrier() {
        let (mut m, [leaf, mid, k, other]) = chain();
        assert!(
            m.funcs[leaf].convergent,
            "the builder marks a barrier's function"
        );
        assert!(infer(&mut m));
        assert!(m.funcs[mid].convergent && m.funcs[k].convergent);
        assert!(!m.funcs[other].convergent);
        assert!(!infer(&mut m), "a second run changes nothing");
        let c = Convergence::of(&m);
        assert!(c.function(k) && !c.function(other));
        let kf = &m.funcs[k];
        assert!(c.any_in(kf, kf.layout.iter().copied()));
    }

    #[test]
    fn stale_marks_are_removed() {
        let (mut m, [_, _, _, other]) = chain();
        m.funcs[other].convergent = true;
        infer(&mut m);
        assert!(!m.funcs[other].convergent);
    }
}
