//! The plan's dry run of the reverse walk, and how the generation that
//! follows reads its answers back.
//!
//! What the reverse records and what it recomputes depends on the order
//! in which its code needs the values (see `cache/needs.rs`), so the plan
//! is completed by walking the generation once, with `cache/`'s
//! [`Sweep`] answering each question (how to obtain a value, whether a
//! value is to be had without a new record, how to compute it again) and
//! every answer noted in `plan.needs`. The code kept is that of a second
//! walk, which asks the same questions in the same order and reads the
//! answers from the plan, decided before it began.

use super::*;

/// Whether a generator is the plan's dry run of the reverse walk, which
/// asks `cache/` how to get each value and notes the answers, or the
/// generation, which reads them back from `plan.needs` (the next one at
/// the index held).
pub(super) enum Walk {
    Dry(Needs),
    Follow(usize),
}

/// What a derivative's code calls and reaches that the plan asks the
/// module and the run for: the split pair of each planned call, the
/// generated kernels of each planned launch, the shadow of each
/// `__shared__` array with a derivative.
#[derive(Clone)]
pub(super) struct Made {
    pub calls: HashMap<Inst, Pair>,
    pub launches: HashMap<Inst, LaunchPlan>,
    pub shared_shadow: HashMap<GlobalId, GlobalId>,
    /// For each parallel loop: whether its iterations record onto their
    /// workers' streams (`pools.rs`).
    pub pooled: Vec<bool>,
}

/// The whole plan of `primal`'s derivative under `acts`: [`Plan::build`],
/// then the split pairs of its calls and the kernels of its launches
/// (declared, or generated now where a launch needs to know what a
/// thread records), then the dry run of the reverse walk, which fills
/// `plan.needs` (see `cache/needs.rs`).
pub(super) fn plan(
    module: &mut Module,
    ctx: &mut Ctx,
    primal: FuncId,
    acts: &[Activity],
    mode: Mode,
) -> Result<(Plan, Made), AdError> {
    let facts = Facts {
        block_threads: ctx.block_threads,
        launch_body: launches::kernel_of_body(&module.funcs[primal].name).is_some(),
        one_d_body: ctx.one_d_bodies.contains(&primal),
        readonly: ctx.readonly.get(&primal).cloned().unwrap_or_default(),
        strict_aliasing: ctx.strict_aliasing,
    };
    let mut plan = Plan::build(module, primal, acts, mode, facts)?;
    let shared_shadow = plan
        .shared
        .iter()
        .map(|s| (s.global, ctx.shared_shadow(module, s.global)))
        .collect();
    let mut calls = HashMap::new();
    let mut launches = HashMap::new();
    for r in &plan.requests {
        match r {
            Request::Launch(i, l) => {
                let lp = ctx.launch_plan(module, l.kernel, l.acts.clone(), l.one_d)?;
                launches.insert(*i, lp);
            }
            Request::Call(i, c) => {
                let pair = ctx.pair(module, c);
                calls.insert(*i, pair);
            }
        }
    }
    if let Some(band) = &plan.thread_band
        && ctx.block_threads == crate::BlockThreads::Concurrent
    {
        ctx.thread_phases.insert(primal, band.phases);
    }
    let made = Made {
        calls,
        launches,
        shared_shadow,
        pooled: pools::pooled_loops(module, &plan),
    };
    // The first dry run learns what each reverse block needs; the second
    // decides with that knowledge (`Plan::ahead`), and its answers are kept.
    let first = dry_run(&plan, ctx, &made)?;
    (plan.ahead, plan.ahead_own) = ahead_of(&first);
    plan.needs = dry_run(&plan, ctx, &made)?;
    Ok((plan, made))
}

/// One dry run of the reverse walk under `plan`: every answer, in order.
fn dry_run(plan: &Plan, ctx: &Ctx, made: &Made) -> Result<Needs, AdError> {
    let mut dry = Gen::new(plan, ctx, made.clone(), Walk::Dry(Needs::default()));
    dry.build()?;
    let mut needs = match std::mem::replace(&mut dry.walk, Walk::Follow(0)) {
        Walk::Dry(needs) => needs,
        Walk::Follow(_) => Needs::default(),
    };
    needs.primal = std::mem::take(&mut dry.fwd_inv);
    Ok(needs)
}

/// The values each reverse block asked how to obtain, in order: the
/// primal values (`Plan::ahead`), and the generator's own
/// (`Plan::ahead_own`, by their numbers in this run: a later run numbers
/// its forward sweep alike, and a number that came out otherwise only
/// weighs a cut less well).
type Ahead = HashMap<Block, Vec<Value>>;
fn ahead_of(needs: &Needs) -> (Ahead, Ahead) {
    let mut ahead: Ahead = HashMap::new();
    let mut own: Ahead = HashMap::new();
    for n in &needs.list {
        if !matches!(n.answer, Answer::Obtain(_)) {
            continue;
        }
        let (map, v) = match needs.primal.get(&n.value) {
            Some(&pv) => (&mut ahead, pv),
            None => (&mut own, n.value),
        };
        let list = map.entry(n.block).or_default();
        if !list.contains(&v) {
            list.push(v);
        }
    }
    (ahead, own)
}

/// The plan of the gradient of `primal` under `acts` (combined mode), as
/// [`differentiate`](crate::differentiate) would make it, needs included,
/// without changing `module`: for printing and tests.
pub fn plan_alone(
    module: &Module,
    primal: FuncId,
    acts: &[Activity],
    options: &crate::AdOptions,
) -> Result<Plan, AdError> {
    let mut m = module.clone();
    let mut ctx = Ctx::new(&mut m, options, &[primal]);
    plan(&mut m, &mut ctx, primal, acts, Mode::Combined).map(|(plan, _)| plan)
}

impl Gen<'_> {
    /// The internal error of a generator that finds no decision in the
    /// plan for `what` (the plan is the single source of its decisions).
    pub(super) fn unplanned(&self, inst: Option<Inst>, what: String) -> AdError {
        crate::plan::err(
            &self.plan.p,
            inst,
            format!("internal error: the AD's plan has no decision for {what}; please report this"),
        )
    }

    /// The plan's answer to question `ask` about forward value `gv` in the
    /// reverse of `b` (see `cache/needs.rs`). The dry run asks `cache/`
    /// and notes the answer in its table; the generation reads the next
    /// answer of `plan.needs`, which must be this question's: the plan is
    /// the single source of the answers, and a generation that asks
    /// anything else is an internal error.
    pub(super) fn answer(&mut self, b: Block, gv: Value, ask: Ask) -> Result<Answer, AdError> {
        if let Walk::Follow(at) = self.walk {
            let Some(answer) = self.plan.needs.answer(at, b, gv, ask) else {
                return Err(self.unplanned(
                    None,
                    format!("question {at}: {ask:?} of {gv} in the reverse of {b}"),
                ));
            };
            self.walk = Walk::Follow(at + 1);
            return Ok(answer.clone());
        }
        let sweep = self.sweep();
        let answer = match ask {
            Ask::Obtain => Answer::Obtain(sweep.obtain(b, gv)),
            Ask::Cheap => Answer::Cheap(sweep.cheap(b, gv, 0)),
            Ask::Rebuild => Answer::Rebuild(sweep.rebuild(b, gv)),
        };
        if let Walk::Dry(needs) = &mut self.walk {
            needs.list.push(Need {
                block: b,
                value: gv,
                answer: answer.clone(),
            });
        }
        Ok(answer)
    }

    /// How the reverse of `b` gets forward value `gv` ([`Sweep::obtain`]).
    pub(super) fn obtain(&mut self, b: Block, gv: Value) -> Result<Obtain, AdError> {
        match self.answer(b, gv, Ask::Obtain)? {
            Answer::Obtain(how) => Ok(how),
            other => Err(self.out_of_step(b, gv, other)),
        }
    }

    /// Whether the reverse of `b` has `gv` without a new record in its
    /// frame ([`Sweep::cheap`]).
    pub(super) fn cheap(&mut self, b: Block, gv: Value) -> Result<bool, AdError> {
        match self.answer(b, gv, Ask::Cheap)? {
            Answer::Cheap(yes) => Ok(yes),
            other => Err(self.out_of_step(b, gv, other)),
        }
    }

    /// How the reverse of `b` computes `gv` again ([`Sweep::rebuild`]).
    pub(super) fn rebuild_how(&mut self, b: Block, gv: Value) -> Result<Rebuild, AdError> {
        match self.answer(b, gv, Ask::Rebuild)? {
            Answer::Rebuild(how) => Ok(how),
            other => Err(self.out_of_step(b, gv, other)),
        }
    }

    /// The internal error of a generation whose question about `gv` in
    /// the reverse of `b` met the planned answer to another question.
    fn out_of_step(&self, b: Block, gv: Value, other: Answer) -> AdError {
        self.unplanned(
            None,
            format!(
                "{gv} in the reverse of {b}: the plan answers another question there ({other:?})"
            ),
        )
    }
}
