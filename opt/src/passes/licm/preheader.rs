//! Where `licm` puts what it hoists: the loop's preheader, made where the
//! loop has none, and the guard block that runs only when the loop runs
//! at least once. When each is made, and why it is safe, is in the
//! module doc of `licm`.

use super::LoopLicm;
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{Block, BlockCall, Function, InstKind, Type, Value};

/// Gives the loop headed by `h` a preheader (see the module doc).
pub(super) fn insert_preheader(func: &mut Function, an: &FunctionAnalyses, h: Block) -> bool {
    let Some(lp) = an.loops.loop_headed_by(h) else {
        return false;
    };
    let ld = an.loops.data(lp);
    let outside: Vec<Block> = an
        .cfg
        .preds(h)
        .iter()
        .copied()
        .filter(|&p| !ld.contains(p) && an.domtree.is_reachable(p))
        .collect();
    if outside.is_empty() {
        return false;
    }
    for &p in &outside {
        let ordinary = func
            .terminator(p)
            .is_some_and(|t| matches!(func.inst(t), InstKind::Jump(_) | InstKind::Brif { .. }));
        if !ordinary {
            return false;
        }
    }
    let ph = crate::preheader::make_preheader(func, h);
    for p in outside {
        let t = func.terminator(p).expect("checked above");
        func.inst_mut(t)
            .map_successors(|b| if b == h { ph } else { b });
    }
    true
}

impl LoopLicm<'_> {
    /// Makes the guard block (see the module doc) if the loop allows it.
    pub(super) fn ensure_guard(&mut self, func: &mut Function) -> Option<Block> {
        if let Some(g) = self.guard {
            return Some(g);
        }
        if self.guard_refused {
            return None;
        }
        let g = self.make_guard(func);
        self.guard_refused = g.is_none();
        self.guard = g;
        g
    }

    fn make_guard(&mut self, func: &mut Function) -> Option<Block> {
        let h = self.ld.header;
        let p = self.preheader;
        let [cmp, br] = func.block_insts(h)[..] else {
            return None;
        };
        let InstKind::Icmp(cc, a, b) = *func.inst(cmp) else {
            return None;
        };
        let InstKind::Brif {
            cond,
            then_dest,
            else_dest,
        } = func.inst(br).clone()
        else {
            return None;
        };
        if Some(cond) != func.result(cmp)
            || !self.ld.contains(then_dest.block)
            || self.ld.contains(else_dest.block)
        {
            return None;
        }
        let pt = func.terminator(p)?;
        let InstKind::Jump(entry) = func.inst(pt).clone() else {
            return None;
        };
        if entry.block != h {
            return None;
        }
        // Values of the header in terms of the loop's initial values.
        let params = func.block_params(h).to_vec();
        let subst = |v: Value| -> Option<Value> {
            match params.iter().position(|&q| q == v) {
                Some(k) => entry.args.get(k).copied(),
                None => self.is_invariant(func, v).then_some(v),
            }
        };
        let (a0, b0) = (subst(a)?, subst(b)?);
        let exit_args: Vec<Value> = else_dest
            .args
            .iter()
            .map(|&v| subst(v))
            .collect::<Option<_>>()?;
        // The exit gains a predecessor that bypasses the loop: no value of
        // the loop may be used outside it. Asked of the values' users, not
        // of every instruction of the function, once per loop.
        let used_outside = |v: Value| {
            self.places.users.get(&v).is_some_and(|users| {
                users.iter().any(|&u| {
                    self.places
                        .inst_block
                        .get(&u)
                        .is_some_and(|&b| !self.ld.contains(b))
                        && func.inst(u).operands().contains(&v)
                })
            })
        };
        for &b in &self.ld.blocks {
            let params = func.block_params(b).iter().copied();
            let results = func.block_insts(b).iter().filter_map(|&i| func.result(i));
            if params.chain(results).any(used_outside) {
                return None;
            }
        }

        let loc = func.locs[cmp];
        let c0 = func.make_inst(InstKind::Icmp(cc, a0, b0), Some(Type::I1));
        func.locs[c0] = loc;
        let at = func.blocks[p].insts.len() - 1;
        func.blocks[p].insts.insert(at, c0);
        self.places.add(func, c0, p);
        let c0v = func.result(c0).expect("icmp has a result");
        let g = func.create_block();
        let j = func.append_inst(g, InstKind::Jump(entry), None);
        func.locs[j] = func.locs[pt];
        self.places.add(func, j, g);
        *func.inst_mut(pt) = InstKind::Brif {
            cond: c0v,
            then_dest: BlockCall::to(g),
            else_dest: BlockCall::new(else_dest.block, exit_args),
        };
        self.places.add(func, pt, p);
        let pos = func
            .layout
            .iter()
            .position(|&b| b == h)
            .unwrap_or(func.layout.len());
        func.layout.insert(pos, g);
        self.stats.guards += 1;
        Some(g)
    }
}
