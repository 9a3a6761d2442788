//! What the AD explains: readable names of primal values (for the
//! reasons of accumulation decisions), and the text of a [`Plan`]
//! (its `Display`: every decision of the plan, one a line).

use crate::cache::{Answer, Obtain, Recompute};
use crate::plan::{Mode, Plan, Request};
use crate::policy::{Action, ReductionOf, SsaUpdate};
use parc_ir::print::activity_name;
use parc_ir::{BinaryOp, Inst, InstKind, UnaryOp, Value, ValueDef};
use std::fmt;

/// The name of a value of the reverse walk (a forward value): the
/// primal value it copies, else a value the generator made.
fn need_name(plan: &Plan, v: Value) -> String {
    match plan.needs.primal.get(&v) {
        Some(&pv) => format!("`{}`", value_name(plan, pv)),
        None => "a value of the AD's own".into(),
    }
}

/// A readable name for a primal value in reasons: a parameter's or
/// local's source name, `a[..]` for an address into `a`, or a small
/// expression of named values, such as `(k * 1.5)` for a product the
/// optimizer hoisted (`v12` if nothing better).
pub fn value_name(plan: &Plan, v: Value) -> String {
    match plan.p.value_def(v) {
        ValueDef::Result(i) if matches!(plan.p.inst(i), InstKind::PtrAdd(..)) => {
            let InstKind::PtrAdd(base, _) = plan.p.inst(i) else {
                unreachable!("matched above")
            };
            format!("{}[..]", value_name(plan, *base))
        }
        _ => expr_name(plan, v, 0)
            // Something named besides unknown operands.
            .filter(|e| e.chars().any(char::is_alphanumeric))
            // A name as it is; anything else parenthesized once, as a
            // whole (`d_(k * 1.5)`, `d_(b[..])`: the adjoint of a
            // value, not of memory).
            .map(|e| {
                let name = e
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
                let wrapped = e.starts_with('(') && e.ends_with(')');
                if name || wrapped { e } else { format!("({e})") }
            })
            .unwrap_or_else(|| v.to_string()),
    }
}

/// `v` as source-like text, if it is a named value, a constant, or at
/// most three operations on such (a binary operation in parentheses;
/// an operand with no name shows as `…`).
fn expr_name(plan: &Plan, v: Value, depth: u32) -> Option<String> {
    let pentry = plan.p.layout[0];
    let i = match plan.p.value_def(v) {
        ValueDef::Param(b, n) if b == pentry => {
            return Some(match plan.p.param_name(n as usize) {
                Some(name) => name.to_string(),
                None => format!("arg{n}"),
            });
        }
        ValueDef::Param(..) => return None,
        ValueDef::Result(i) => i,
    };
    let sub = |x: Value| Some(expr_name(plan, x, depth + 1).unwrap_or_else(|| "…".into()));
    match plan.p.inst(i) {
        InstKind::Alloca { .. } => plan.p.local_names.get(&i).cloned(),
        InstKind::GlobalAddr(g) => plan.shared_array(*g).map(|s| s.name.clone()),
        InstKind::Iconst(c) => Some(c.to_string()),
        InstKind::Fconst(c) => Some(format!("{c:?}")),
        _ if depth >= 3 => None,
        InstKind::Cast(_, x) => sub(*x),
        InstKind::Unary(UnaryOp::Fneg, x) => Some(format!("-{}", sub(*x)?)),
        InstKind::Load(p) => match plan.p.value_def(*p) {
            // A local's value.
            ValueDef::Result(a) if matches!(plan.p.inst(a), InstKind::Alloca { .. }) => {
                plan.p.local_names.get(&a).cloned()
            }
            _ => {
                let at = sub(*p)?;
                Some(if at.ends_with(']') {
                    at
                } else {
                    format!("*{at}")
                })
            }
        },
        InstKind::PtrAdd(base, _) => Some(format!("{}[..]", sub(*base)?)),
        InstKind::Binary(op, a, b) => {
            let sym = match op {
                BinaryOp::Iadd | BinaryOp::Fadd => "+",
                BinaryOp::Isub | BinaryOp::Fsub => "-",
                BinaryOp::Imul | BinaryOp::Fmul => "*",
                BinaryOp::Sdiv | BinaryOp::Udiv | BinaryOp::Fdiv => "/",
                BinaryOp::Srem | BinaryOp::Urem => "%",
                _ => return None,
            };
            Some(format!("({} {sym} {})", sub(*a)?, sub(*b)?))
        }
        InstKind::Intrinsic { op, args } if op.is_pure() && !op.is_gpu_only() => {
            let args: Option<Vec<String>> = args.iter().map(|&a| sub(a)).collect();
            Some(format!("{}({})", op.name(), args?.join(", ")))
        }
        _ => None,
    }
}

/// Where instruction `inst` came from: ` (line L)` when the source
/// position is known.
fn at_line(plan: &Plan, inst: Inst) -> String {
    let loc = plan.p.locs[inst];
    if loc.is_known() {
        format!(" (line {})", loc.line)
    } else {
        String::new()
    }
}

fn sorted<T: Copy + Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.into_iter().collect();
    v.sort();
    v
}

fn list<T: fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let words: Vec<String> = items.into_iter().map(|t| t.to_string()).collect();
    if words.is_empty() {
        "none".to_string()
    } else {
        words.join(" ")
    }
}

fn action_name(plan: &Plan, a: &Action) -> String {
    match a {
        Action::Add => "plain add".into(),
        Action::AddInBand(_) => "plain add, chunks a band wide in two phases".into(),
        Action::AddBeside(_) => "plain add beside a band".into(),
        Action::Atomic => "atomic add".into(),
        Action::Reduce => "per-worker partial sum".into(),
        Action::ReduceArray(r) => format!(
            "per-worker copies of a region of {}",
            value_name(plan, r.base)
        ),
        Action::ThreadBand { first, last } => {
            format!("plain add where threads gid{first:+}..=gid{last:+} share the block")
        }
    }
}

/// The whole plan, one decision a line, in a fixed order (what
/// `ad/tests/plans.rs` reads; `--explain-ad` prints only the
/// accumulation sites).
impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.p;
        let mode = match self.mode {
            Mode::Combined => "combined".to_string(),
            Mode::Split {
                ret_active,
                atomic,
                ret_shadow,
                ..
            } => format!(
                "split{}{}{}",
                if ret_active { ", active return" } else { "" },
                if ret_shadow { ", shadow return" } else { "" },
                if atomic { ", atomic" } else { "" }
            ),
        };
        writeln!(f, "plan of @{} ({mode})", p.name)?;
        let entry = p.layout[0];
        let params: Vec<String> = p.blocks[entry]
            .params
            .iter()
            .enumerate()
            .zip(&self.acts)
            .map(|((n, &v), &a)| {
                let name = p
                    .param_name(n)
                    .map_or_else(|| format!("arg{n}"), str::to_string);
                let mut s = format!("{name}: {}", activity_name(a));
                if self.act.is_varied(v) {
                    s.push_str(", varied");
                }
                if self.act.is_shadowed(v) {
                    s.push_str(", shadowed");
                }
                s
            })
            .collect();
        writeln!(f, "  parameters: {}", params.join("; "))?;
        writeln!(
            f,
            "  blocks: {} reachable, {} reversed, {} used directly by the reverse",
            self.rpo.len(),
            self.reversed.len(),
            self.avail.len()
        )?;
        for (i, l) in self.ploops.iter().enumerate() {
            writeln!(
                f,
                "  parallel loop {i}: header {}, index {} from {} to {} step {}{}, {} task blocks{}{}",
                l.header,
                value_name(self, l.iv),
                value_name(self, l.lo),
                value_name(self, l.hi),
                value_name(self, l.step),
                if l.inclusive { " inclusive" } else { "" },
                l.task_blocks.len(),
                l.parent
                    .map_or(String::new(), |pl| format!(", in parallel loop {pl}")),
                match self.sized_tasks.get(i) {
                    Some(Some(_)) => ", records per iteration known before the loop",
                    _ => "",
                }
            )?;
        }
        for (i, sp) in self.spawns.iter().enumerate() {
            writeln!(
                f,
                "  spawn {i}: detach {}, task {} ({} blocks), continuation {}, sync {}{}",
                sp.detach,
                sp.task,
                sp.task_blocks.len(),
                sp.cont,
                sp.sync,
                if sp.multi {
                    ", several tasks at once"
                } else {
                    ""
                }
            )?;
        }
        for (i, c) in self.counted.iter().enumerate() {
            let count = match self.exit_tests.get(i) {
                Some(Some(t)) => format!(
                    "iterations counted from its bounds ({} {} {})",
                    value_name(self, t.iv),
                    if t.inclusive { "<=" } else { "<" },
                    value_name(self, t.bound)
                ),
                _ => "iteration count recorded".to_string(),
            };
            let reserved = match self.reserved.get(i) {
                Some(Some(_)) => ", records reserved before it starts",
                _ => "",
            };
            writeln!(
                f,
                "  counted loop {i}: header {}, exit {}, {} blocks, {} induction variables; {count}{reserved}",
                c.header,
                c.exit,
                c.blocks.len(),
                c.ivs.len()
            )?;
        }
        for b in sorted(self.joins.keys().copied()) {
            let (cond, t, e) = self.joins[&b];
            writeln!(
                f,
                "  join {b}: entered by edge {t} if {} holds, else edge {e}",
                value_name(self, cond)
            )?;
        }
        // Record or recompute, as far as the primal says: every value
        // that is not free, in block order.
        for &b in &self.rpo {
            let params = p.blocks[b].params.iter().map(|&v| (v, None));
            let results = p
                .block_insts(b)
                .iter()
                .filter_map(|&i| p.result(i).map(|v| (v, Some(i))));
            for (v, inst) in params.chain(results) {
                let Some(how) = self.recompute.get(&v) else {
                    continue;
                };
                if *how == Recompute::Free {
                    continue;
                }
                writeln!(
                    f,
                    "  value {v} `{}`{}: {}",
                    value_name(self, v),
                    inst.map_or(String::new(), |i| at_line(self, i)),
                    how.describe()
                )?;
            }
        }
        // What the reverse walk records and recomputes, in the order its
        // code needs the values (`needs`; free values left out).
        for n in &self.needs.list {
            let Answer::Obtain(how) = &n.answer else {
                continue;
            };
            let how = match how {
                Obtain::Free => continue,
                Obtain::Popped(_) => "reused: the block has it already".to_string(),
                Obtain::Recompute => "recomputed".to_string(),
                Obtain::RecordAt(at) => format!("recorded once at the exit of the loop at {at}"),
                Obtain::RecordCut(cut) => format!(
                    "recomputed from the records of a min cut: {}",
                    cut.iter()
                        .map(|&v| need_name(self, v))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Obtain::Record => "recorded".to_string(),
            };
            writeln!(
                f,
                "  reverse of {} needs {}: {how}",
                n.block,
                need_name(self, n.value)
            )?;
        }
        let in_place: Vec<String> = sorted(self.in_place.iter().copied())
            .into_iter()
            .filter(|&i| matches!(p.inst(i), InstKind::Store { .. }))
            .map(|i| format!("{i}{}", at_line(self, i)))
            .collect();
        if !in_place.is_empty() {
            writeln!(f, "  in-place updates: {}", list(in_place))?;
        }
        for i in sorted(self.memcpy_ty.keys().copied()) {
            writeln!(
                f,
                "  memory moved by {i}{}: {}",
                at_line(self, i),
                self.memcpy_ty[&i]
            )?;
        }
        for r in &self.requests {
            match r {
                Request::Call(i, c) => writeln!(
                    f,
                    "  call {i}{}: pair of fn{} ({}){}{}{}",
                    at_line(self, *i),
                    c.callee.as_u32(),
                    list(c.acts.iter().map(|&a| activity_name(a))),
                    if c.ret_active { ", active return" } else { "" },
                    if c.ret_shadow { ", shadow return" } else { "" },
                    if c.atomic { ", atomic" } else { "" }
                )?,
                Request::Launch(i, l) => writeln!(
                    f,
                    "  launch {i}{}: kernels for fn{} ({}){}",
                    at_line(self, *i),
                    l.kernel.as_u32(),
                    list(l.acts.iter().map(|&a| activity_name(a))),
                    if l.one_d { ", 1-D" } else { "" }
                )?,
            }
        }
        for s in &self.shared {
            writeln!(
                f,
                "  __shared__ {} ({} bytes) has a derivative",
                s.name, s.size
            )?;
        }
        if let Some(band) = &self.thread_band {
            writeln!(
                f,
                "  thread band: {} phases, {} parameters banded",
                band.phases,
                band.bands.len()
            )?;
        }
        for (inst, lp, d) in self.accumulation.decisions() {
            let within = lp.map_or(String::new(), |l| format!(" in parallel loop {l}"));
            writeln!(
                f,
                "  update of the shadow of {inst}{}{within}: {} ({}): {}",
                at_line(self, inst),
                d.class.name(),
                action_name(self, &d.action),
                d.reason
            )?;
        }
        for (v, sc, d) in self.accumulation.ssa_decisions() {
            let mut within = sc
                .lp
                .map_or(String::new(), |l| format!(" in parallel loop {l}"));
            if let Some(i) = sc.spawn {
                within += &format!(" in spawned task {i}");
            }
            let how = match d.update {
                SsaUpdate::Slot => "its slot".to_string(),
                SsaUpdate::Reduce { .. } => "per-worker partial sum".to_string(),
                SsaUpdate::Accumulator { site, atomic } => format!(
                    "the accumulator of spawn {site}{}",
                    if atomic { ", atomic add" } else { "" }
                ),
            };
            writeln!(
                f,
                "  update of the adjoint of {v}{within}: {} ({how}): {}",
                d.class.name(),
                d.reason
            )?;
        }
        for (l, sums) in self.accumulation.reductions.iter().enumerate() {
            for (of, at) in sums {
                let what = match of {
                    ReductionOf::Ssa(v) => format!("d_{}", value_name(self, *v)),
                    ReductionOf::Mem(ptr) => format!("d[{}]", value_name(self, *ptr)),
                };
                writeln!(
                    f,
                    "  per-worker sum of parallel loop {l}: {what}, made by {at}{}",
                    at_line(self, *at)
                )?;
            }
        }
        Ok(())
    }
}
