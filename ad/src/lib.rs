//! Reverse-mode automatic differentiation of parir, after optimization
//! (Enzyme's approach), keeping the parallelism and never introducing a race.
//!
//! # Entry point
//!
//! [`differentiate`] fulfils every [`GradRequest`] of a module: it gives
//! each requested gradient function (a declaration until then) a body, and
//! empties `module.grad_requests`. The driver runs it after the optimization
//! pipeline (optimize → differentiate → optimize); `--ad-before-opt` runs it
//! first. The result is an ordinary verified module: the interpreter and the
//! backends need no knowledge of AD.
//!
//! # Design (the invariants the modules below keep)
//!
//! **Plan, then generation.** Every decision about a derivative that the
//! primal alone determines is made first, into a read-only [`Plan`]
//! (`plan.rs`, printable, tested in `ad/tests/plans.rs`): the activity, the
//! parallel loops and tasks, the counted loops, how the reverse can get
//! each value again (free, recomputed, read again, or recorded where
//! needed: `cache/recompute.rs`), the calls needing pairs, and the
//! accumulation class of every adjoint update (`policy.rs`). What
//! depends on the order in which the reverse code needs values (what a
//! block has popped already, the cheapest cut over the rest) is decided
//! by a dry run of the reverse walk (`reverse/walk.rs`), `cache/`
//! answering, into the plan's `needs` (`cache/needs.rs`); the walk is
//! dry-run twice, the second run cutting for all the values each block
//! needs at once, as the first found them (`Plan::ahead`). The generator
//! (`reverse.rs` and its modules) then follows the plan, reading those
//! answers back; it decides nothing itself.
//!
//! **Activity** (`activity.rs`). A value is *varied* if it depends on an
//! `Active` parameter or on memory reachable from a `Dup` parameter, and
//! *useful* if the function's floating result or memory reachable from a
//! `Dup` parameter depends on it; it is *active* if both. Only active
//! instructions get adjoint code. Pointers derived from `Dup` parameters
//! (`ptradd`, loads of pointers from shadowed memory) carry a *shadow*
//! pointer computed alongside the primal one; `malloc`/`calloc` results
//! whose memory becomes active get a zeroed shadow allocation, freed when
//! the primal is. A pointer a called function returns gets its shadow from
//! the callee, as Enzyme's shadow return: the call's split pair is made
//! with `ret_shadow`, and its `.aug` stores the shadow of what it returns
//! through one more parameter (an allocating helper thereby allocates the
//! shadow; an accessor returns its argument's shadow plus the offset).
//!
//! **Gradient functions: combined and split modes.** The function asked for
//! is generated in *combined* mode: one function whose forward sweep is a
//! copy of the primal (recording what the reverse needs) and whose reverse
//! sweep follows in the same function, so forward values that dominate the
//! exit are used directly. Active callees get a *split* pair: an augmented
//! forward `f.aug` (computes f and records onto the tape) and a reverse
//! `f.rev` (reads the tape, accumulates adjoints); recursion works because
//! every call records onto and replays from the same tape, in LIFO order.
//!
//! **The tape** (`tape.rs`). A growable stack of 8-byte slots (a pointer,
//! length and capacity of its current chunk; grown by chunks that never
//! move, linked both ways), created by the combined
//! function and passed to every `.aug`/`.rev` it calls. In the forward
//! sweep a block pushes (at its end) every value its reverse block needs
//! that is not directly available; the reverse block pops them (at its
//! start) in the opposite order. For control flow, a block with several
//! predecessors pushes the index of the edge it was entered by, and its
//! reverse block pops it to choose which reverse predecessor to continue
//! with. LIFO order makes this correct for any CFG — loops with unknown trip
//! counts, early returns, break/continue — and for recursion.
//!
//! **Caching vs recomputation** (`cache/`). Values a reverse block needs
//! are popped from the tape unless the reverse can get them without a new
//! record: constants, parameters, in combined mode values of blocks that
//! dominate every return outside loops, induction variables (from the
//! iteration number), pure instructions over such values (`sqrt` and the
//! other one-instruction intrinsics included), loads of memory nothing
//! writes (`restrict` parameters nothing writes through included; in any
//! function of the run, memory `readonly.rs` finds no code of the run
//! writes), the
//! way into an `if`'s join from its condition, and a join's parameter as
//! `select(condition, a, b)` of its two edges' arguments (C's `a && b`)
//! when recomputing the argument of the way not taken cannot fault (no
//! division, no load). Loop invariants are
//! recorded once at the loop's exit instead of once per iteration, and
//! counted loops are reversed by their iteration count instead of
//! recording the entering edge every iteration. Anything else is rebuilt
//! from a cheapest set of records: a minimum vertex cut (max-flow, in
//! `mincut.rs`) of the values it is computed from, as Enzyme does.
//!
//! **Adjoint rules** (`rules.rs`): a table from instruction kind to the
//! adjoint contributions of its operands (float arithmetic, conversions,
//! select, the math intrinsics `sqrt exp log pow sin cos tan tanh fabs fmin
//! fmax floor ceil`); memory instructions are handled beside the shadow
//! bookkeeping in `reverse/adjoint.rs` — `load`: `d[p] += adj`; `store v, p`:
//! `adj(v) += d[p]; d[p] = 0` — except that an in-place update `*p = *p +
//! t` (one block, nothing written between its load and store) leaves
//! `d[p]` as it is and its load adds nothing, which is the same but for the
//! sign of a zero; `memcpy`: `dsrc += ddst; ddst = 0` and
//! `memset`: `ddst = 0` (element type from the float loads and stores of
//! that memory; memory holding pointers has its shadow pointers copied in
//! the forward sweep instead); `malloc`/`calloc` get a zeroed shadow freed
//! at the allocation's reverse (the primal's `free` stays in the forward
//! sweep: the reverse reads only the tape and shadows). In split mode,
//! shadows of `alloca`s are heap memory, since `.rev` runs after `.aug`
//! returned. Adjoints of SSA values live in zero-initialized stack slots
//! that `mem2reg` promotes afterwards.
//!
//! **Parallelism** (`parallel.rs`). Tasks cannot share a tape. Each
//! iteration of a parallel loop records onto a tape of its own, kept in an
//! array indexed by the iteration number `(iv - lo) / step` (the trip count
//! is known before the loop starts, since the bounds are evaluated once).
//! Where a task's records per iteration are known before the loop (no
//! loops, calls or spawns in it), every iteration's records sit at fixed
//! places of one buffer of the loop's, `data + k · slots · 8`, and no tape
//! header is kept per iteration (`AdOptions::task_tape_headers` keeps
//! them, an ablation). Otherwise, where no iteration can be suspended (no
//! spawn, sync or launch in the task or what it calls), an iteration's
//! tape header starts where its worker's last iteration of the loop ended
//! and the worker's stream goes on after it (`reverse/pools.rs`): one
//! chunked tape per worker instead of one growing tape per iteration.
//! The shadows of the local arrays of a loop's body are the iterations'
//! parts of one zeroed block per array and loop, `slab + k · stride`
//! (`reverse/slabs.rs`): no allocation and no record per iteration
//! (`AdOptions::task_shadow_callocs` makes them per iteration, an ablation).
//! Outside loops and tasks, the derivative's copy of an `alloca` moves to
//! the block that dominates its uses (`allocas.rs`): a branch's local gets
//! its shadow (tape slots, in a split pair) only where the branch runs.
//! The reverse of a parallel loop is a parallel loop in the same Tapir shape
//! (so Tapir lowering spawns it divide-and-conquer) whose iteration `k`
//! replays tape `k`; adjoint slots of the task's values are allocas of the
//! reverse task (private). Loops nest. Loops that an optimization guarded
//! (LICM's test that skips the loop jumps to its `sync`) get a dedicated
//! exit first. *Spawned tasks* (`spawn`/`sync`): the task records onto a
//! tape of its own, kept in a slot per spawn site until the `sync` records
//! it onto the parent's tape; the reverse of the `sync` spawns the reverse
//! of the task, which runs concurrently with the reverse of the
//! continuation, and the reverse of the detach syncs (see `parallel.rs`);
//! a spawn in a loop that syncs after it keeps a list of tapes, one
//! reverse task each. A spawn inside a task (a parallel loop's iteration,
//! say) has its slot and its reverse's accumulators in that task, one per
//! instance. *Kernels*: a `__device__` function is
//! differentiated like a callee of parallel code (every update of shadow
//! memory it does not own is atomic, except where [`BlockThreads`] says
//! only its block's threads reach it, one at a time: `__shared__`
//! memory), and its gradient is a `__device__` function too, called once
//! per thread inside a kernel. The reverse of a
//! `__syncthreads` is a `__syncthreads` (the reverse of the code after it
//! adds adjoints that the reverse of the code before it reads). A
//! `__shared__` array with a derivative gets a `__shared__` shadow (one
//! per module, shared with callees), zeroed by the block's threads between
//! two barriers at the start of a gradient with barriers. `atomicAdd(p,
//! v)` is `*p += v`: `dv` reads `d*p`, which stays. A *kernel launch* in
//! a host function is differentiated through the kernel's body as a
//! `__device__` function, whose augmented forward and reverse run once
//! per thread in two generated kernels, each thread on a tape of its own
//! (see `reverse/launches.rs`); the reverse kernel's `__shared__` shadows
//! start at zero because the target zeroes a block's shared memory (the
//! CPU, the interpreter) or because the reverse zeroes them at its entry
//! (`BlockThreads::Concurrent`). A spawn whose continuation reaches
//! several syncs (an early return with its own) has them joined into one
//! first (`parallel::unify_syncs`). Reported as an [`AdError`]: such
//! syncs in different loops (not yet implemented), and the floating value
//! `atomicAdd` returns, whose derivative depends on the order of the
//! threads' adds, which the reverse cannot replay.
//!
//! **Race-aware accumulation** (`policy.rs`). Every adjoint update
//! `d[p] += v` (and every update of an SSA adjoint of a value defined
//! outside the parallel region) inside reversed parallel code is classified,
//! most to least efficient:
//! - *local*: task-private memory or register: plain add;
//! - *disjoint*: the address provably differs between iterations — affine
//!   in the loop index with a stride at least the access size (several
//!   offsets inside one stride included), or a row of a run-time stride
//!   (`c[i*n + j]` with `0 ≤ j < n` tested): plain add. In a kernel body
//!   launched on 1-D grids, likewise the thread's own element of a
//!   `restrict` parameter, `p[blockIdx.x * blockDim.x + threadIdx.x]`,
//!   where the body reaches that memory through no other address;
//! - *banded*: the address lies within a band of iterations around its
//!   own — `base + c·iv + r` with `r` bounded by values known before the
//!   loop, as a stencil's neighbours `x[(i ± 1)*n + j]` — so iterations at
//!   least `w = ⌈(r_max − r_min + size) / |c·step|⌉` apart touch different
//!   bytes: the reverse runs its chunks (each at least `w` iterations) in
//!   two phases, even chunks in parallel and then odd ones, and the
//!   updates are plain adds. Every other update of possibly the same
//!   shadow in the task must be banded with the same `base` and `c` (the
//!   band is their union) or a per-worker reduction, and the task must
//!   spawn and call nothing; where the band cannot be shown at run time
//!   (narrow offsets that may wrap, `c = 0`) the reverse loop runs as one
//!   chunk. A kernel body launched on 1-D grids, without barriers or
//!   calls, whose every access through a duplicated `restrict` parameter
//!   is at a constant offset from `c·gid` is banded the same way across
//!   threads. Where a block's threads run one at a time (the CPU, the
//!   interpreter: [`BlockThreads::OneAtATime`]), an update is a plain add
//!   when every thread that may update its bytes is in the same block, and
//!   an atomic one near the block's edges (a test of `threadIdx.x`, made
//!   by the bytes, so all their updaters agree); where they run
//!   concurrently, the reverse launch runs in `w` phases, each for the
//!   threads `gid ≡ phase (mod w)`, all plain adds;
//! - *reduction*: the same address in every iteration: per-worker partial
//!   sums indexed by `worker_id` (a cache line apart), combined once after
//!   the loop's sync; or the same *region* in every iteration (a gather
//!   `x[j]` over an inner loop `0 ≤ j < n`): per-worker copies of the
//!   region, added into the shadow after the sync (an array reduction,
//!   with no copy when one worker runs the loop; an update finds its place in the copy from its own shadow address,
//!   and where the primal's offsets are narrow `int` arithmetic, a test
//!   before the loop shows from the bounds that none wraps, else the
//!   updates are atomic);
//! - *atomic*: anything else: an atomic add (inline compare-and-swap).
//!
//! Serial code never pays for atomics: its updates are planned too, as
//! *serial* (a plain `+=`), printed with the plan but not accumulation
//! sites of the report. A callee called from parallel code
//! gets a reverse of its own (`f.par.rev`) in which every update of memory
//! it does not own is atomic: it cannot know which other tasks update the
//! same shadow. It owns its locals, and the memory of the parameters for
//! which every call of the pair passes memory of the calling task (an
//! iteration's local arrays, passed to helpers: `CallPlan::private`, part
//! of the pair's key). The reverses of a spawned task and of its continuation run
//! concurrently: their memory updates are atomic unless the memory is the
//! task's own, and the task's updates of SSA adjoints of outside values go
//! to per-site accumulators merged after the reverse sync. Inside a loop
//! nested in another parallel loop only *local*, *reduction* (combined into
//! the enclosing loop's own classification) and *atomic* are used:
//! disjointness would have to hold across both loops. Every decision and
//! its reason is recorded in the [`AdReport`] that `parc build
//! --explain-ad` prints.

pub mod activity;
pub mod allocas;
pub mod cache;
pub mod checkpoint;
pub mod explain;
pub mod mincut;
pub mod parallel;
pub mod plan;
pub mod policy;
pub mod readonly;
pub mod reverse;
pub mod rules;
pub mod strict_aliasing;
pub mod tape;
pub mod tape_report;

pub use plan::Plan;
pub use policy::AccumulationClass;

use parc_ir::{GradRequest, Linkage, Module, SrcLoc, gradient_signature};

/// Options of the AD.
#[derive(Clone, Debug, Default)]
pub struct AdOptions {
    /// How the code the gradient runs on executes the threads of a
    /// kernel block.
    pub block_threads: BlockThreads,
    /// An ablation (`--ad-no-flat-tapes`): every iteration of a parallel
    /// loop keeps a tape header (24 bytes) even where its records have
    /// fixed places in one buffer of the loop's (a task without loops or
    /// calls, whose records per iteration are known before the loop).
    pub task_tape_headers: bool,
    /// An ablation (`--ad-no-shadow-slabs`): the shadow of a local array
    /// of a parallel loop's body is made per iteration (tape slots or a
    /// `calloc`) and its address recorded, instead of being the
    /// iteration's part of one zeroed block of the loop's
    /// (`reverse/slabs.rs`).
    pub task_shadow_callocs: bool,
    /// Checkpointing asked for: `--checkpoint N` cuts time loops into
    /// segments of `N` iterations; `--tape-budget BYTES` cuts them into
    /// segments whose length is chosen at run time (see `checkpoint.rs`).
    pub checkpoint: Option<checkpoint::Request>,
    /// `-fno-strict-aliasing`: a store of any type may modify memory of
    /// any other (without it, C's effective-type rule lets the reverse
    /// load an `int` array again across `double` stores through other
    /// pointers instead of recording it: `strict_aliasing.rs`).
    pub no_strict_aliasing: bool,
}

/// How a target runs the threads of one kernel block, which decides
/// whether they can update a shadow with plain adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockThreads {
    /// One at a time, on one worker, each up to its next barrier or its
    /// end: the CPU backend (a block's threads are loops, or coroutines
    /// that switch only at barriers) and the interpreter. A plain
    /// read-modify-write of memory only the block's threads reach
    /// (`__shared__` arrays, a band of a 1-D grid away from the block's
    /// edges) is then never interleaved with another's.
    #[default]
    OneAtATime,
    /// Concurrently, as on a GPU: every update other threads of the
    /// block may make too is atomic, and bands of threads run in phases.
    Concurrent,
}

/// One accumulation decision, for `--explain-ad`.
#[derive(Clone, Debug, PartialEq)]
pub struct AccumulationSite {
    /// The differentiated function the site is in.
    pub function: String,
    /// The source position of the primal instruction (a load, usually).
    pub loc: SrcLoc,
    pub class: AccumulationClass,
    /// Why, in words: e.g. "`d_out[i]`: address affine in the loop index".
    pub reason: String,
}

/// What the AD did.
#[derive(Clone, Debug, Default)]
pub struct AdReport {
    pub sites: Vec<AccumulationSite>,
    /// What each generated function records (`--explain-tape`), in the
    /// order they were generated.
    pub tapes: Vec<tape_report::FunctionTape>,
    /// The plan of each generated function (`--explain-ad`), as its text,
    /// in the order they were generated.
    pub plans: Vec<String>,
    /// The time loops `--tape-budget` could not checkpoint (each is
    /// recorded whole), for a warning.
    pub not_checkpointed: Vec<checkpoint::NotCheckpointed>,
    /// What the snapshots of each checkpointed loop keep and leave out
    /// (`--explain-tape`).
    pub snapshots: Vec<checkpoint::Snapshot>,
}

/// A construct the AD cannot differentiate (never a wrong gradient).
#[derive(Clone, Debug, PartialEq)]
pub struct AdError {
    pub function: String,
    pub loc: SrcLoc,
    /// Names the construct, e.g. "a call to `extern` function `f`".
    pub message: String,
}

impl std::fmt::Display for AdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.loc.is_known() {
            write!(
                f,
                "cannot differentiate `{}` at line {}:{}: {}",
                self.function, self.loc.line, self.loc.col, self.message
            )
        } else {
            write!(
                f,
                "cannot differentiate `{}`: {}",
                self.function, self.message
            )
        }
    }
}

/// Fulfils every gradient request of `module` (see the module doc). On
/// error the module is left unchanged.
///
/// A tape budget never makes a gradient fail: where a function with its
/// time loops cut into segments cannot be differentiated (a construct the
/// segments do not carry), the gradients are built again recording every
/// iteration, with a warning ([`AdReport::not_checkpointed`]) unless the
/// budget is the default one.
pub fn differentiate(module: &mut Module, options: &AdOptions) -> Result<AdReport, AdError> {
    let Some(checkpoint::Request::Budget(bytes)) = options.checkpoint else {
        return differentiate_as(module, options);
    };
    match differentiate_as(module, options) {
        Err(e) => {
            let plain = AdOptions {
                checkpoint: None,
                ..options.clone()
            };
            let mut report = differentiate_as(module, &plain)?;
            if bytes != checkpoint::Bytes::Default {
                report.not_checkpointed.push(checkpoint::NotCheckpointed {
                    function: e.function.clone(),
                    loc: e.loc,
                    why: format!(
                        "{} cannot checkpoint the gradients' loops: {}; the gradients record \
                         every iteration",
                        bytes.asked(),
                        e.message
                    ),
                });
            }
            Ok(report)
        }
        ok => ok,
    }
}

fn differentiate_as(module: &mut Module, options: &AdOptions) -> Result<AdReport, AdError> {
    if module.grad_requests.is_empty() {
        return Ok(AdReport::default());
    }
    if let Err(errs) = parc_ir::verify::verify_module(module) {
        let first = errs.first().map(|e| e.to_string()).unwrap_or_default();
        return Err(AdError {
            function: String::new(),
            loc: SrcLoc::default(),
            message: format!("the module to differentiate does not verify: {first}"),
        });
    }
    let mut m = module.clone();
    let requests = std::mem::take(&mut m.grad_requests);
    // `--checkpoint N`: each gradient is built from a copy of its function
    // whose time loops are cut into segments (see `checkpoint.rs`).
    let mut segments = checkpoint::Segments::default();
    let mut not_checkpointed = Vec::new();
    let mut primals = Vec::new();
    for r in &requests {
        primals.push(match options.checkpoint {
            Some(request) if m.funcs.get(r.primal).is_some() => checkpoint::prepare(
                &mut m,
                &mut segments,
                r.primal,
                request,
                &mut not_checkpointed,
            )?,
            _ => r.primal,
        });
    }
    let snapshots = segments.snapshots(&m);
    let mut ctx = reverse::Ctx::new(&mut m, options, &primals);
    for (
        GradRequest {
            primal,
            grad,
            activities,
            linkage,
            loc,
        },
        differentiated,
    ) in requests.iter().zip(&primals)
    {
        let request_error = |message: String| AdError {
            function: m
                .funcs
                .get(*primal)
                .map(|f| f.name.clone())
                .unwrap_or_default(),
            loc: *loc,
            message,
        };
        let (Some(pf), Some(gf)) = (m.funcs.get(*primal), m.funcs.get(*grad)) else {
            return Err(request_error(
                "a gradient request names a missing function".into(),
            ));
        };
        let sig = gradient_signature(&pf.sig, activities).map_err(&request_error)?;
        if sig != gf.sig {
            return Err(request_error(format!(
                "the gradient declaration `{}` does not have the gradient's signature",
                gf.name
            )));
        }
        let name = gf.name.clone();
        let mut body = reverse::combined(&mut m, &mut ctx, *differentiated, activities, &name)
            .map_err(|e| AdError {
                loc: if e.loc.is_known() { e.loc } else { *loc },
                ..e
            })?;
        body.sig = sig;
        body.param_names = parc_ir::gradient_param_names(&m.funcs[*primal], activities);
        body.linkage = if *linkage == Linkage::Import {
            Linkage::Local
        } else {
            *linkage
        };
        // A `__device__` function's gradient runs per thread in the kernel
        // that asked for it.
        body.kind = m.funcs[*primal].kind;
        m.funcs[*grad] = body;
    }
    while let Some((primal, pair)) = ctx.queue.pop() {
        if !segments.build_pair(&mut m, &mut ctx, primal, &pair) {
            reverse::split(&mut m, &mut ctx, primal, &pair)?;
        }
    }
    // The functions made here reach the primals' barriers (the reverse of
    // a barrier is a barrier) and call each other.
    parc_ir::convergent::infer(&mut m);
    *module = m;
    Ok(AdReport {
        sites: ctx.sites,
        tapes: ctx.tapes,
        plans: ctx.plans,
        not_checkpointed,
        snapshots,
    })
}
