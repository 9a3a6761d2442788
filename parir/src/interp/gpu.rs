//! Kernel launches: blocks in order, threads as coroutines meeting at
//! barriers.
//!
//! Blocks run one after another, `blockIdx.x` fastest, then y, then z. The
//! threads of a block (linear index `x + y*bx + z*bx*by`) run in rounds:
//! each runnable thread runs until it reaches a barrier or finishes. After a
//! round either every thread has finished (the block is done), or every
//! thread waits at the same barrier instruction, reached through the same
//! calls (they are all released into the next round), or the barrier
//! diverged, which is a run-time error: CUDA leaves it undefined, and a
//! silent answer here would hide the bug. The calls count because the
//! optimizer may inline a function into each of its call sites: threads
//! that call a function holding a barrier from two different places would
//! meet at it before inlining and at two copies after (see
//! `crate::convergent`).
//! `__shared__` globals are instantiated per block on first use (zeroed) and
//! die when the block ends.

use super::exec::{Stop, Thread};
use super::memory::{Site, State};
use super::{Fault, Interp, RunError};
use crate::entities::{FuncId, Inst};

/// CUDA's limit on the threads of one block.
const MAX_THREADS_PER_BLOCK: i64 = 1024;

/// The thread block being run.
pub(crate) struct BlockCtx {
    pub grid: [i32; 3],
    pub block: [i32; 3],
    pub block_idx: [i32; 3],
    /// Address of this block's instance of each `__shared__` global (0: not
    /// made yet), indexed by `GlobalId`.
    pub shared: Vec<u64>,
}

/// Every dimension at least 1, at most 1024 threads per block.
pub(crate) fn check_config(grid: [i32; 3], block: [i32; 3]) -> Result<(), Fault> {
    let show = |d: [i32; 3]| format!("({},{},{})", d[0], d[1], d[2]);
    if grid.iter().chain(&block).any(|&d| d < 1) {
        return Err(Fault::msg(format!(
            "invalid launch configuration: grid {} and block {} (every dimension must be at least 1)",
            show(grid),
            show(block)
        )));
    }
    let threads: i64 = block.iter().map(|&d| d as i64).product();
    if threads > MAX_THREADS_PER_BLOCK {
        return Err(Fault::msg(format!(
            "invalid launch configuration: block {} has {threads} threads (at most {MAX_THREADS_PER_BLOCK})",
            show(block)
        )));
    }
    Ok(())
}

/// Where a thread of the block stands after a round.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Runnable,
    AtBarrier(FuncId, Inst),
    Finished,
}

impl Interp<'_> {
    /// Runs a whole (already checked) launch; `Some(status)` if a thread
    /// called `exit`.
    pub(crate) fn run_launch(
        &mut self,
        kernel: FuncId,
        grid: [i32; 3],
        block: [i32; 3],
        args: &[u64],
    ) -> Result<Option<i32>, RunError> {
        let n = block.iter().map(|&d| d as usize).product::<usize>();
        let mut threads: Vec<Thread> = Vec::with_capacity(n);
        for bz in 0..grid[2] {
            for by in 0..grid[1] {
                for bx in 0..grid[0] {
                    self.gpu = Some(BlockCtx {
                        grid,
                        block,
                        block_idx: [bx, by, bz],
                        shared: vec![0; self.module.globals.len()],
                    });
                    let result = self.run_block(kernel, block, args, &mut threads);
                    for mut th in threads.drain(..) {
                        self.unwind(&mut th);
                    }
                    if let Some(ctx) = self.gpu.take() {
                        for a in ctx.shared.into_iter().filter(|&a| a != 0) {
                            let slot = ((a >> 32) - 1) as u32;
                            self.mem.kill(slot, State::BlockEnded, Site::Unknown);
                        }
                    }
                    if let Some(code) = result? {
                        return Ok(Some(code));
                    }
                }
            }
        }
        Ok(None)
    }

    fn run_block(
        &mut self,
        kernel: FuncId,
        [bx, by, bz]: [i32; 3],
        args: &[u64],
        threads: &mut Vec<Thread>,
    ) -> Result<Option<i32>, RunError> {
        for t in 0..bx * by * bz {
            let frame = self
                .new_frame(kernel, args.iter().copied())
                .map_err(|f| self.error_in(kernel, None, f))?;
            threads.push(Thread {
                frames: vec![frame],
                tid: Some([t % bx, (t / bx) % by, t / (bx * by)]),
            });
        }
        let mut status = vec![Status::Runnable; threads.len()];
        loop {
            for (th, st) in threads.iter_mut().zip(status.iter_mut()) {
                if *st != Status::Runnable {
                    continue;
                }
                *st = match self.run_thread(th)? {
                    Stop::Finished(_) => Status::Finished,
                    Stop::Barrier(f, i) => Status::AtBarrier(f, i),
                    Stop::Exit(code) => return Ok(Some(code)),
                };
            }
            let Some(w) = status.iter().position(|s| *s != Status::Finished) else {
                return Ok(None);
            };
            let Status::AtBarrier(bf, bi) = status[w] else {
                unreachable!("after a round every thread waits or has finished")
            };
            let calls = self.call_path(&threads[w]);
            for (i, &s) in status.iter().enumerate() {
                let other = match s {
                    Status::Finished => "finished without reaching it".to_string(),
                    Status::AtBarrier(f, b) if (f, b) != (bf, bi) => {
                        format!("waits at {}", self.barrier_text(f, b))
                    }
                    Status::AtBarrier(..) => {
                        let theirs = self.call_path(&threads[i]);
                        if theirs == calls {
                            continue;
                        }
                        match calls.iter().zip(&theirs).find(|(a, b)| a != b) {
                            Some((&mine, &other)) => format!(
                                "reached it through another call ({} rather than {})",
                                self.call_text(other),
                                self.call_text(mine)
                            ),
                            None => "reached it at another depth of recursion".to_string(),
                        }
                    }
                    _ => continue,
                };
                return Err(self.divergence(kernel, &threads[w], (bf, bi), &threads[i], &other));
            }
            status.fill(Status::Runnable);
        }
    }

    /// The calls a thread is in, outermost first: each caller's frame
    /// stands at its call instruction while the callee runs.
    fn call_path(&self, th: &Thread) -> Vec<(FuncId, Inst)> {
        let n = th.frames.len().saturating_sub(1);
        th.frames[..n]
            .iter()
            .map(|f| {
                (
                    f.func,
                    self.module.funcs[f.func].blocks[f.block].insts[f.pos],
                )
            })
            .collect()
    }

    /// "the call at line 12:9" (or "a call in `f`").
    fn call_text(&self, (f, inst): (FuncId, Inst)) -> String {
        match self.loc(f, inst) {
            Some(l) => format!("the call at line {}:{}", l.line, l.col),
            None => format!("a call in `{}`", self.module.funcs[f].name),
        }
    }

    /// "the barrier at line 12:9" (or "a barrier in `f`").
    fn barrier_text(&self, f: FuncId, inst: Inst) -> String {
        match self.loc(f, inst) {
            Some(l) => format!("the barrier at line {}:{}", l.line, l.col),
            None => format!("a barrier in `{}`", self.module.funcs[f].name),
        }
    }

    fn divergence(
        &self,
        kernel: FuncId,
        waiting: &Thread,
        (bf, bi): (FuncId, Inst),
        other: &Thread,
        what: &str,
    ) -> RunError {
        let ids = |t: &Thread| {
            let [x, y, z] = t.tid.unwrap_or_default();
            format!("({x},{y},{z})")
        };
        let [bx, by, bz] = self.gpu.as_ref().map(|g| g.block_idx).unwrap_or_default();
        let message = format!(
            "barrier divergence in kernel `{}`: thread {} of block ({bx},{by},{bz}) reached {} but thread {} {what}",
            self.module.funcs[kernel].name,
            ids(waiting),
            self.barrier_text(bf, bi),
            ids(other),
        );
        let mut err = self.error_in(bf, Some(bi), Fault::Msg(message));
        err.backtrace = self.error(waiting, Fault::msg("")).backtrace;
        err
    }
}
