//! What the AD refuses, each with the reason its message gives.
//! `Plan::build` refuses a function without a body, a kernel, and calls
//! through function pointers whose target is not known, before anything
//! else; here come atomics whose old value is used, reallocation, CUDA
//! memory, locks and `critical`, `scanf` into differentiable memory, the
//! C library on differentiable memory, stores of differentiable values
//! to memory without a derivative, calls of `extern` functions with
//! derivatives, returned pointers without a shadow, and instructions
//! without an adjoint rule. The walk of `check` also notes what the plan
//! needs of the calls and launches with differentiable arguments, and
//! the element type of each `memcpy`/`memset` of differentiable memory.

use super::{CallPlan, LaunchRequest, Plan, Request, err, use_counts};
use crate::AdError;
use crate::activity::Root;
use parc_ir::{Activity, CFn, Inst, InstKind, Intrinsic, Module, Type, Value};
use std::collections::HashSet;

impl Plan {
    /// Rejects what cannot be differentiated; notes the calls and
    /// launches with differentiable arguments and the element types of
    /// `memcpy`s of differentiable memory.
    pub(super) fn check(&mut self, module: &Module) -> Result<(), AdError> {
        let uses = use_counts(&self.p);
        let (p, act) = (&self.p, &self.act);
        for &b in &self.rpo {
            for &inst in p.block_insts(b) {
                let kind = p.inst(inst);
                let res = p.result(inst);
                match kind {
                    InstKind::Launch {
                        kernel,
                        grid,
                        block,
                        args,
                    } => {
                        if !args.iter().any(|&a| act.is_active_value(a)) {
                            continue;
                        }
                        let one_d = grid[1..]
                            .iter()
                            .chain(&block[1..])
                            .all(|&d| p.const_int(d) == Some(1));
                        self.requests.push(Request::Launch(
                            inst,
                            LaunchRequest {
                                kernel: *kernel,
                                acts: self.call_activities(args),
                                one_d,
                            },
                        ));
                    }
                    InstKind::Intrinsic { op, args } => match op {
                        // `old = atomic_add(p, v)` is `*p += v`: the reverse
                        // reads `d*p` into `dv`; the old value's adjoint
                        // would have to be added back into `d*p` while
                        // other threads read it.
                        Intrinsic::AtomicAdd
                            if res.is_some_and(|r| {
                                act.is_active_value(r) && uses.contains_key(&r)
                            }) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                "the value an `atomicAdd` returns cannot be differentiated: \
                                 its derivative depends on the order of the threads' adds, \
                                 which the reverse cannot replay",
                            ));
                        }
                        Intrinsic::AtomicAdd
                            if act.is_active_value(args[1]) && !act.is_shadowed(args[0]) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                "an `atomicAdd` of a differentiable value into memory without a derivative",
                            ));
                        }
                        Intrinsic::Realloc
                            if act.is_shadowed(args[0])
                                || res.is_some_and(|r| act.is_shadowed(r)) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                "`realloc` of differentiable memory cannot be differentiated yet",
                            ));
                        }
                        Intrinsic::CudaMalloc | Intrinsic::CudaMemcpy(_) | Intrinsic::CudaFree
                            if args.iter().any(|&a| act.is_shadowed(a)) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                "CUDA memory functions on differentiable memory cannot be differentiated yet",
                            ));
                        }
                        // A lock orders the threads' updates in the primal;
                        // the reverse would have to replay that order.
                        Intrinsic::C(
                            CFn::CriticalBegin
                            | CFn::OmpSetLock
                            | CFn::OmpTestLock
                            | CFn::OmpSetNestLock
                            | CFn::OmpTestNestLock,
                        ) => {
                            return Err(err(
                                p,
                                Some(inst),
                                "a `critical` section or OpenMP lock cannot be differentiated: \
                                 the reverse would have to replay the order in which threads \
                                 took it (accumulate with `reduction(...)` or make the section \
                                 one `x += e`, an atomic add)",
                            ));
                        }
                        // What `scanf` stores comes from input and has
                        // no derivative; the cells it overwrites would
                        // need their adjoints cleared, which no rule does.
                        // Into memory without derivatives it is inactive.
                        Intrinsic::Sscanf | Intrinsic::Fscanf
                            if args[2..].iter().any(|&a| act.is_shadowed(a)) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                format!(
                                    "`{}` stores into differentiable memory, which cannot be differentiated: scan into a separate variable and assign it",
                                    op.name()
                                ),
                            ));
                        }
                        // The C library's functions have no adjoint rules:
                        // one that writes differentiable memory (`memmove`
                        // of doubles, `qsort` of them) would lose the
                        // derivatives it moves.
                        Intrinsic::C(_) | Intrinsic::Sprintf | Intrinsic::Snprintf
                            if op.effects().writes.iter().any(|x| {
                                written_operand(x).is_some_and(|i| act.is_shadowed(args[i]))
                            }) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                format!(
                                    "`{}` on differentiable memory cannot be differentiated yet",
                                    op.name()
                                ),
                            ));
                        }
                        Intrinsic::Memcpy | Intrinsic::Memset if act.is_shadowed(args[0]) => {
                            let ptrs = if *op == Intrinsic::Memcpy {
                                vec![args[0], args[1]]
                            } else {
                                vec![args[0]]
                            };
                            let ty = self.memory_kind(&ptrs, inst)?;
                            self.memcpy_ty.insert(inst, ty);
                        }
                        _ => {}
                    },
                    InstKind::Store { value, ptr }
                        if act.is_varied(*value) && !act.is_shadowed(*ptr) =>
                    {
                        let bad = act.roots(*ptr).find(|r| !matches!(r, Root::Param(_)));
                        if let Some(r) = bad {
                            let what = match r {
                                Root::Global => "a global variable",
                                _ => {
                                    "memory without a derivative (reached through an untracked pointer)"
                                }
                            };
                            return Err(err(
                                p,
                                Some(inst),
                                format!("a differentiable value is stored to {what}"),
                            ));
                        }
                    }
                    InstKind::Call { func, args } => {
                        // A result used as a pointer to active memory needs
                        // its shadow from the callee.
                        let ret_shadow = res.is_some_and(|r| {
                            p.value_type(r) == Type::Ptr
                                && act.is_shadowed(r)
                                && uses.contains_key(&r)
                        });
                        if !ret_shadow && !args.iter().any(|&a| act.is_active_value(a)) {
                            continue;
                        }
                        let callee = &module.funcs[*func];
                        if callee.is_declaration() {
                            let what = if ret_shadow {
                                "whose result points to memory with a derivative"
                            } else {
                                "with differentiable arguments"
                            };
                            return Err(err(
                                p,
                                Some(inst),
                                format!("a call to `extern` function `{}` {what}", callee.name),
                            ));
                        }
                        self.requests.push(Request::Call(
                            inst,
                            CallPlan {
                                callee: *func,
                                acts: self.call_activities(args),
                                ret_active: res.is_some_and(|r| act.is_varied(r)),
                                ret_shadow,
                                atomic: crate::policy::in_parallel_code(self, b),
                                private: crate::policy::private_args(self, b, args),
                            },
                        ));
                    }
                    InstKind::Return(Some(v))
                        if self.mode.ret_shadow() && p.value_type(*v) == Type::Ptr =>
                    {
                        // Every root must have a shadow to return: the
                        // caller adds into it.
                        let mut roots = act.roots(*v).peekable();
                        let bad = if roots.peek().is_none() {
                            Some(Root::Unknown)
                        } else {
                            roots.find(|&r| !act.is_active_root(r))
                        };
                        if let Some(r) = bad {
                            let what = match r {
                                Root::Global => "a global variable".to_string(),
                                Root::Param(k) => format!(
                                    "parameter `{}`, whose argument has no derivative",
                                    p.param_name(k as usize).unwrap_or("?")
                                ),
                                _ => "memory without a derivative".to_string(),
                            };
                            return Err(err(
                                p,
                                Some(inst),
                                format!(
                                    "the caller adds derivatives into the memory this returns, \
                                     which may be {what}"
                                ),
                            ));
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The activities of a call's (or launch's) arguments: varied floats
    /// active, shadowed pointers duplicated, the rest constant.
    fn call_activities(&self, args: &[Value]) -> Vec<Activity> {
        args.iter()
            .map(|&a| {
                let ty = self.p.value_type(a);
                if ty.is_float() && self.act.is_varied(a) {
                    Activity::Active
                } else if ty == Type::Ptr && self.act.is_shadowed(a) {
                    Activity::Dup
                } else {
                    Activity::Const
                }
            })
            .collect()
    }

    /// What the memory `ptrs` point into holds, for `memcpy`/`memset`
    /// (which move bytes, so the AD must know how to add them): a float
    /// type, or `ptr` (whose shadows are copied in the forward sweep, as
    /// pointers are). Errors if it holds both, or both float types.
    fn memory_kind(&self, ptrs: &[Value], inst: Inst) -> Result<Type, AdError> {
        let roots: HashSet<Root> = ptrs.iter().flat_map(|&p| self.act.roots(p)).collect();
        let mut tys = HashSet::new();
        for (_, i) in self.p.placed_insts() {
            let (ptr, ty) = match self.p.inst(i) {
                InstKind::Load(p) => (*p, self.p.result(i).map(|r| self.p.value_type(r))),
                InstKind::Store { value, ptr } => (*ptr, Some(self.p.value_type(*value))),
                _ => continue,
            };
            if self.act.roots(ptr).any(|r| roots.contains(&r))
                && let Some(ty) = ty
                && (ty.is_float() || ty == Type::Ptr)
            {
                tys.insert(ty);
            }
        }
        if tys.contains(&Type::Ptr) {
            if tys.len() > 1 {
                return Err(err(
                    &self.p,
                    Some(inst),
                    "`memcpy`/`memset` of differentiable memory that holds both floats and pointers",
                ));
            }
            return Ok(Type::Ptr);
        }
        match (tys.contains(&Type::F32), tys.contains(&Type::F64)) {
            (true, true) => Err(err(
                &self.p,
                Some(inst),
                "`memcpy` of memory holding both `float` and `double` values",
            )),
            (true, false) => Ok(Type::F32),
            _ => Ok(Type::F64),
        }
    }

    /// Every varied instruction whose reverse is an adjoint rule has one.
    pub(super) fn check_rules(&self) -> Result<(), AdError> {
        for &b in &self.rpo {
            if !self.reversed.contains(&b) {
                continue;
            }
            for &inst in self.p.block_insts(b) {
                let kind = self.p.inst(inst);
                let by_rule = !matches!(
                    kind,
                    InstKind::Load(_)
                        | InstKind::Call { .. }
                        | InstKind::Launch { .. }
                        | InstKind::Intrinsic {
                            op: Intrinsic::AtomicAdd,
                            ..
                        }
                );
                if by_rule
                    && self.p.result(inst).is_some_and(|r| self.act.is_varied(r))
                    && crate::rules::lookup(kind).is_none()
                {
                    return Err(err(
                        &self.p,
                        Some(inst),
                        format!("no derivative rule for `{}`", kind_name(kind)),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The name of an instruction kind in messages.
pub(crate) fn kind_name(kind: &InstKind) -> String {
    match kind {
        InstKind::Binary(op, ..) => op.name().to_string(),
        InstKind::Cast(op, _) => op.name().to_string(),
        InstKind::Intrinsic { op, .. } => op.name(),
        InstKind::Call { .. } => "call".into(),
        other => format!("{other:?}")
            .split(['(', ' ', '{'])
            .next()
            .unwrap_or("?")
            .to_lowercase(),
    }
}

/// The operand through which an intrinsic writes `x`, where one is named.
fn written_operand(x: &parc_ir::Extent) -> Option<usize> {
    use parc_ir::Extent;
    match *x {
        Extent::Sized { ptr, .. }
        | Extent::Fixed { ptr, .. }
        | Extent::TypeOf { ptr, .. }
        | Extent::Unsized(ptr) => Some(ptr),
        Extent::Pointers { .. } => None,
    }
}
