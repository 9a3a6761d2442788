//! Where each instruction of the function being lowered sits and which
//! instructions use each value, kept up to date as its tasks are outlined.
//! Asking the function itself (a scan of every placed instruction, per
//! task) made a function with thousands of spawns quadratic to lower.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, EntitySet, SecondaryMap};
use parc_ir::analysis::tapir_loops;
use parc_ir::{Block, Function, Inst, Value, ValueDef};

pub(crate) struct Places {
    block: SecondaryMap<Inst, PackedOption<Block>>,
    /// May list an instruction twice, or one that is no longer placed:
    /// [`Places::users`] filters.
    users: SecondaryMap<Value, Vec<Inst>>,
    /// Blocks that left the function. They stay in its layout until the
    /// lowering of the function ends: removing them one task at a time
    /// was itself quadratic.
    gone: EntitySet<Block>,
}

/// The sizes that tell what a lowering step added (see
/// [`Places::record_step`]).
pub(crate) struct Mark {
    insts: usize,
    blocks: usize,
    frame: (Block, usize),
    rewritten: Block,
    rewritten_insts: Vec<Inst>,
}

impl Places {
    pub(crate) fn new(func: &Function) -> Places {
        let mut places = Places {
            block: SecondaryMap::new(),
            users: SecondaryMap::new(),
            gone: EntitySet::new(),
        };
        for (b, i) in func.placed_insts() {
            places.place(func, b, i);
        }
        places
    }

    fn place(&mut self, func: &Function, b: Block, i: Inst) {
        self.block[i] = b.into();
        func.inst(i).for_each_operand(|v| self.users[v].push(i));
    }

    pub(crate) fn block_of(&self, i: Inst) -> Option<Block> {
        self.block[i].expand()
    }

    /// The block defining `v` (none for a result of an unplaced
    /// instruction).
    pub(crate) fn def_block(&self, func: &Function, v: Value) -> Option<Block> {
        match func.value_def(v) {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Result(i) => self.block_of(i),
        }
    }

    /// The placed instructions that use `v`, with their blocks, each at
    /// least once.
    pub(crate) fn users<'a>(
        &'a self,
        func: &'a Function,
        v: Value,
    ) -> impl Iterator<Item = (Block, Inst)> + 'a {
        self.users
            .get(v)
            .into_iter()
            .flatten()
            .filter_map(move |&i| {
                let b = self.block_of(i)?;
                let mut uses = false;
                func.inst(i).for_each_operand(|o| uses |= o == v);
                uses.then_some((b, i))
            })
    }

    /// Records that `i` now sits in `b` (its operands unchanged).
    pub(crate) fn moved(&mut self, i: Inst, b: Block) {
        self.block[i] = b.into();
    }

    pub(crate) fn is_gone(&self, b: Block) -> bool {
        self.gone.contains(b)
    }

    /// Before a step that rewrites `rewritten` (the block of the detach or
    /// the loop header), may insert at the top of `frame` (the block that
    /// holds its frame's `alloca`s) and may add blocks: what
    /// [`Places::record_step`] needs to find the changes.
    pub(crate) fn mark(&self, func: &Function, rewritten: Block, frame: Block) -> Mark {
        Mark {
            insts: func.insts.len(),
            blocks: func.blocks.len(),
            frame: (frame, func.blocks[frame].insts.len()),
            rewritten,
            rewritten_insts: func.blocks[rewritten].insts.clone(),
        }
    }

    /// After the step begun at `mark`, which took `removed` out of the
    /// function (they stay in the layout until the function is done).
    pub(crate) fn record_step(&mut self, func: &Function, mark: Mark, removed: &[Block]) {
        for &b in removed {
            for &i in func.block_insts(b) {
                self.block[i] = None.into();
            }
            self.gone.insert(b);
        }
        for &i in &mark.rewritten_insts {
            self.block[i] = None.into();
        }
        let new = |i: Inst| i.index() >= mark.insts;
        let mut placed_new = 0;
        let r = mark.rewritten;
        for &i in func.block_insts(r) {
            // Kept instructions are listed as users again: once per block
            // rewritten, so a bounded number of duplicates.
            self.place(func, r, i);
            placed_new += usize::from(new(i));
        }
        // The frame's block only grows at its top (`FrameState::alloca`).
        let (e, len) = mark.frame;
        if e != r {
            let grown = func.blocks[e].insts.len().saturating_sub(len);
            for k in 0..grown {
                let i = func.blocks[e].insts[k];
                self.place(func, e, i);
                placed_new += usize::from(new(i));
            }
        }
        // New blocks are appended to the layout.
        let new_blocks = func
            .layout
            .iter()
            .rev()
            .take_while(|b| b.index() >= mark.blocks);
        for &b in new_blocks {
            for &i in func.block_insts(b) {
                self.place(func, b, i);
                placed_new += usize::from(new(i));
            }
        }
        // Every instruction a step makes in the parent is placed where the
        // above looks; if that ever stops being so, start afresh rather
        // than answer from stale lists.
        if placed_new != func.insts.len() - mark.insts {
            let gone = std::mem::take(&mut self.gone);
            *self = Places {
                block: SecondaryMap::new(),
                users: SecondaryMap::new(),
                gone,
            };
            for (b, i) in func.placed_insts() {
                if !self.gone.contains(b) {
                    self.place(func, b, i);
                }
            }
        }
    }
}

impl tapir_loops::DefUse for Places {
    fn def_block(&self, func: &Function, v: Value) -> Option<Block> {
        Places::def_block(self, func, v)
    }

    fn for_each_user(&self, func: &Function, v: Value, f: &mut dyn FnMut(Block, Inst)) {
        for (b, i) in self.users(func, v) {
            f(b, i);
        }
    }
}
