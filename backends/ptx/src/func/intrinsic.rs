//! Intrinsics: GPU ids, atomics (warp-reduced where every thread adds to one
//! place), calls of the device math library, `memcpy`/`memset`, `printf`.

use super::{Class, FnCx, float_imm, param_type};
use crate::{PtxError, symbol};
use parc_ir::{Inst, InstKind, Intrinsic, Type, Value, ValueDef};

impl FnCx<'_, '_> {
    pub(super) fn intrinsic(
        &mut self,
        i: Inst,
        op: Intrinsic,
        d: &str,
        rt: Option<Type>,
        args: &[Value],
    ) -> Result<(), PtxError> {
        use Intrinsic::*;
        let fty = |t: Option<Type>| if t == Some(Type::F32) { ".f32" } else { ".f64" };
        let regs: Vec<String> = args.iter().map(|&a| self.reg(a)).collect();
        let arg = |k: usize| regs[k].clone();
        match op {
            Sqrt => {
                let a = arg(0);
                self.line(format!("sqrt.rn{} {d}, {a};", fty(rt)));
            }
            Fabs => {
                let a = arg(0);
                self.line(format!("abs{} {d}, {a};", fty(rt)));
            }
            Fmin | Fmax => {
                // PTX's min/max return the other operand when one is NaN,
                // as C's fmin/fmax do.
                let name = if op == Fmin { "min" } else { "max" };
                let (a, b) = (arg(0), arg(1));
                self.line(format!("{name}{} {d}, {a}, {b};", fty(rt)));
            }
            Floor | Ceil | Trunc => {
                let mode = match op {
                    Floor => "rmi",
                    Ceil => "rpi",
                    _ => "rzi",
                };
                let t = fty(rt);
                let a = arg(0);
                self.line(format!("cvt.{mode}{t}{t} {d}, {a};"));
            }
            Round => {
                // Half away from zero: trunc(x), plus the sign of x where
                // the part dropped (exact) is at least one half.
                let ty = rt.unwrap_or(Type::F64);
                let t = fty(rt);
                let class = if ty == Type::F32 {
                    Class::F32
                } else {
                    Class::F64
                };
                let a = arg(0);
                let (whole, frac, step) = (self.temp(class), self.temp(class), self.temp(class));
                let half = self.temp(Class::Pred);
                self.line(format!("cvt.rzi{t}{t} {whole}, {a};"));
                self.line(format!("sub{t} {frac}, {a}, {whole};"));
                self.line(format!("abs{t} {frac}, {frac};"));
                self.line(format!(
                    "setp.ge{t} {half}, {frac}, {};",
                    float_imm(ty, 0.5)
                ));
                self.line(format!("copysign{t} {step}, {a}, {};", float_imm(ty, 1.0)));
                self.line(format!(
                    "selp{t} {step}, {step}, {}, {half};",
                    float_imm(ty, 0.0)
                ));
                self.line(format!("add{t} {d}, {whole}, {step};"));
            }
            Abs => {
                let a = arg(0);
                self.line(format!("abs.s32 {d}, {a};"));
            }
            Labs => {
                let a = arg(0);
                self.line(format!("abs.s64 {d}, {a};"));
            }
            ThreadIdx(dim) | BlockIdx(dim) | BlockDim(dim) | GridDim(dim) => {
                let reg = match op {
                    ThreadIdx(_) => "tid",
                    BlockIdx(_) => "ctaid",
                    BlockDim(_) => "ntid",
                    _ => "nctaid",
                };
                self.line(format!("mov.u32 {d}, %{reg}.{};", dim.name()));
            }
            Barrier => self.line("barrier.sync 0;"),
            AtomicAdd => {
                let ty = self.f.value_type(args[1]);
                let t = match ty {
                    Type::I32 => ".u32",
                    Type::I64 => ".u64",
                    Type::F32 => ".f32",
                    _ => ".f64",
                };
                let (addr, space) = self.operand(args[0]);
                let s = space.suffix();
                let v = self.reg(args[1]);
                if self.f.result(i).is_some_and(|r| self.used(r)) {
                    self.line(format!("atom{s}.add{t} {d}, {addr}, {v};"));
                } else if self.uniform(args[0], 0) {
                    // Every thread adds into the same place (a gradient's
                    // sum over the threads): the warp sums first.
                    self.warp_reduce_add(ty, &addr, s, t, &v);
                } else {
                    // Nobody reads the old value: a reduction, which the
                    // memory system performs without a round trip.
                    self.line(format!("red{s}.add{t} {addr}, {v};"));
                }
            }
            Printf => self.printf(d, args),
            Malloc | Calloc | Realloc | Free => {
                self.cx.needs.malloc = true;
                let (helper, ret) = match op {
                    Malloc | Calloc => (crate::helpers::MALLOC, true),
                    Realloc => (crate::helpers::REALLOC, true),
                    _ => (crate::helpers::FREE, false),
                };
                let bytes = if op == Calloc {
                    let n = self.temp(Class::B64);
                    let (a, b) = (arg(0), arg(1));
                    self.line(format!("mul.lo.s64 {n}, {a}, {b};"));
                    Some(n)
                } else {
                    None
                };
                self.line("{");
                let mut params = Vec::new();
                let regs: Vec<String> = match (&bytes, op) {
                    (Some(n), _) => vec![n.clone()],
                    _ => args.iter().map(|&a| self.reg(a)).collect(),
                };
                for (k, r) in regs.iter().enumerate() {
                    let p = format!("param{k}");
                    self.line(format!(".param .b64 {p};"));
                    self.line(format!("st.param.b64 [{p}], {r};"));
                    params.push(p);
                }
                if ret {
                    self.line(".param .b64 retval0;");
                    self.line(format!(
                        "call (retval0), {helper}, ({});",
                        params.join(", ")
                    ));
                    self.line(format!("ld.param.b64 {d}, [retval0];"));
                } else {
                    self.line(format!("call {helper}, ({});", params.join(", ")));
                }
                self.line("}");
                if let Some(n) = bytes {
                    self.fill(d, None, &n);
                }
            }
            Memcpy => {
                let (dst, src, n) = (arg(0), arg(1), arg(2));
                self.fill(&dst, Some(&src), &n);
            }
            Memset => {
                let (dst, byte, n) = (arg(0), arg(1), arg(2));
                let b = self.temp(Class::B16);
                self.line(format!("cvt.u16.u32 {b}, {byte};"));
                self.fill_with(&dst, &b, &n);
            }
            // The host counts tape bytes (`PARC_AD_STATS`); a kernel's
            // per-thread tapes live in memory the host allocated, and a
            // note from every thread would serialize the grid: none here.
            AdTapeNote => {}
            // No notes on the device: nothing measured.
            AdTapeMeasure => self.line(format!("mov.u64 {d}, 0;")),
            // Tape budgets are decided on the host.
            PhysMem => self.line(format!("mov.u64 {d}, 0;")),
            Wtime => {
                let t = self.temp(Class::B64);
                self.line(format!("mov.u64 {t}, %globaltimer;"));
                self.line(format!("cvt.rn.f64.u64 {d}, {t};"));
                self.line(format!(
                    "mul.rn.f64 {d}, {d}, {};",
                    float_imm(Type::F64, 1e-9)
                ));
            }
            RuntimeError => {
                // The report with the message (a C string) as `%s`.
                let prefix = self.report(i, "").replace('%', "%%");
                let format = self.cx.raw_message(&format!("{prefix}%s\n"));
                let label = self.label("fault");
                let m = arg(0);
                self.faults.push((label.clone(), format, Some(m)));
                self.line(format!("bra {label};"));
            }
            Exit
            | Fprintf
            | Sprintf
            | Snprintf
            | Vfprintf
            | Vsnprintf
            | Sscanf
            | Fscanf
            | C(_)
            | WorkerId
            | NumWorkers
            | CudaMalloc
            | CudaMemcpy(_)
            | CudaFree
            | CudaDeviceSynchronize => {
                unreachable!("refused by `check`")
            }
            // The math functions PTX has no instruction for (`exp log pow`
            // ...: `math::in_library`): calls of the device math library;
            // `check` refused the others.
            _ if crate::math::in_library(op) => {
                let Some(ty) = rt.filter(|t| t.is_float()) else {
                    return Err(self.error(i, format!("`{}` has no GPU implementation", op.name())));
                };
                let name = crate::math::routine(op, ty);
                if self.cx.module.func_by_name(&name).is_none() {
                    return Err(self.error(
                        i,
                        format!(
                            "`{}` on the GPU needs parc's device math library, which was not linked into this module",
                            op.name()
                        ),
                    ));
                }
                let sym = symbol(&name);
                let ft = param_type(ty);
                self.line("{");
                let mut params = Vec::new();
                for (k, &a) in args.iter().enumerate() {
                    let p = format!("param{k}");
                    self.line(format!(".param {ft} {p};"));
                    self.store_param(a, &p);
                    params.push(p);
                }
                self.line(format!(".param {ft} retval0;"));
                self.line(format!("call (retval0), {sym}, ({});", params.join(", ")));
                self.load_param(ty, d, "retval0");
                self.line("}");
            }
            _ => {
                return Err(self.error(i, format!("`{}` has no GPU implementation", op.name())));
            }
        }
        Ok(())
    }

    /// True if `v` is the same in every thread of a launch: computed
    /// from a kernel's parameters, constants, globals' addresses and the
    /// block's ids and dimensions by arithmetic (never from `threadIdx`,
    /// memory or a join).
    pub(super) fn uniform(&self, v: Value, depth: u32) -> bool {
        if depth > 32 {
            return false;
        }
        match self.f.value_def(v) {
            ValueDef::Param(b, _) => self.is_kernel && b == self.f.layout[0],
            ValueDef::Result(i) => match self.f.inst(i) {
                InstKind::Iconst(_) | InstKind::Fconst(_) | InstKind::GlobalAddr(_) => true,
                InstKind::Intrinsic { op, .. } => matches!(
                    op,
                    Intrinsic::BlockIdx(_) | Intrinsic::BlockDim(_) | Intrinsic::GridDim(_)
                ),
                InstKind::PtrAdd(a, b) | InstKind::Binary(_, a, b) => {
                    self.uniform(*a, depth + 1) && self.uniform(*b, depth + 1)
                }
                InstKind::Cast(_, a) | InstKind::Unary(_, a) => self.uniform(*a, depth + 1),
                _ => false,
            },
        }
    }

    /// `red.add [addr], v` where every thread's `addr` is the same: when
    /// the whole warp is here, its 32 values are summed by butterfly
    /// shuffles and lane 0 makes the one atomic add; otherwise each
    /// thread adds its own (the GPU mapping of a reduction).
    pub(super) fn warp_reduce_add(&mut self, ty: Type, addr: &str, s: &str, t: &str, v: &str) {
        let (mask, full) = (self.temp(Class::B32), self.temp(Class::Pred));
        let (plain, done) = (self.label("alone"), self.label("summed"));
        self.line(format!("activemask.b32 {mask};"));
        self.line(format!("setp.eq.b32 {full}, {mask}, -1;"));
        self.line(format!("@!{full} bra {plain};"));
        let class = Class::of(ty);
        let acc = self.temp(class);
        self.line(format!("mov{} {acc}, {v};", class.decl()));
        let wide = ty.bytes() == 8;
        let add = match ty {
            Type::F32 => "add.rn.f32",
            Type::F64 => "add.rn.f64",
            Type::I32 => "add.s32",
            _ => "add.s64",
        };
        for off in [16, 8, 4, 2, 1] {
            let other = self.temp(class);
            if wide {
                let (lo, hi) = (self.temp(Class::B32), self.temp(Class::B32));
                self.line(format!("mov.b64 {{{lo}, {hi}}}, {acc};"));
                self.line(format!("shfl.sync.bfly.b32 {lo}, {lo}, {off}, 31, -1;"));
                self.line(format!("shfl.sync.bfly.b32 {hi}, {hi}, {off}, 31, -1;"));
                self.line(format!("mov.b64 {other}, {{{lo}, {hi}}};"));
            } else {
                let x = self.temp(Class::B32);
                self.line(format!("mov.b32 {x}, {acc};"));
                self.line(format!("shfl.sync.bfly.b32 {x}, {x}, {off}, 31, -1;"));
                self.line(format!("mov.b32 {other}, {x};"));
            }
            self.line(format!("{add} {acc}, {acc}, {other};"));
        }
        let (lane, rest) = (self.temp(Class::B32), self.temp(Class::Pred));
        self.line(format!("mov.u32 {lane}, %laneid;"));
        self.line(format!("setp.ne.u32 {rest}, {lane}, 0;"));
        self.line(format!("@{rest} bra {done};"));
        self.line(format!("red{s}.add{t} {addr}, {acc};"));
        self.line(format!("bra {done};"));
        self.put_label(&plain);
        self.line(format!("red{s}.add{t} {addr}, {v};"));
        self.put_label(&done);
    }

    /// True if some placed instruction reads `v`.
    pub(super) fn used(&self, v: Value) -> bool {
        self.f.placed_insts().any(|(_, i)| {
            let mut hit = false;
            self.f.inst(i).for_each_operand(|u| hit |= u == v);
            hit
        })
    }

    /// `memcpy(dst, src, n)` byte by byte, or (no `src`) zeroing.
    pub(super) fn fill(&mut self, dst: &str, src: Option<&str>, n: &str) {
        match src {
            Some(src) => {
                let (i, p, a, b) = (
                    self.temp(Class::B64),
                    self.temp(Class::Pred),
                    self.temp(Class::B64),
                    self.temp(Class::B16),
                );
                let (top, done) = (self.label("copy"), self.label("copied"));
                self.line(format!("mov.u64 {i}, 0;"));
                self.put_label(&top);
                self.line(format!("setp.ge.u64 {p}, {i}, {n};"));
                self.line(format!("@{p} bra {done};"));
                self.line(format!("add.s64 {a}, {src}, {i};"));
                self.line(format!("ld.u8 {b}, [{a}];"));
                self.line(format!("add.s64 {a}, {dst}, {i};"));
                self.line(format!("st.u8 [{a}], {b};"));
                self.line(format!("add.s64 {i}, {i}, 1;"));
                self.line(format!("bra {top};"));
                self.put_label(&done);
            }
            None => {
                let z = self.temp(Class::B16);
                self.line(format!("mov.b16 {z}, 0;"));
                self.fill_with(dst, &z, n);
            }
        }
    }

    /// `memset(dst, byte, n)` byte by byte.
    pub(super) fn fill_with(&mut self, dst: &str, byte: &str, n: &str) {
        let (i, p, a) = (
            self.temp(Class::B64),
            self.temp(Class::Pred),
            self.temp(Class::B64),
        );
        let (top, done) = (self.label("set"), self.label("setdone"));
        self.line(format!("mov.u64 {i}, 0;"));
        self.put_label(&top);
        self.line(format!("setp.ge.u64 {p}, {i}, {n};"));
        self.line(format!("@{p} bra {done};"));
        self.line(format!("add.s64 {a}, {dst}, {i};"));
        self.line(format!("st.u8 [{a}], {byte};"));
        self.line(format!("add.s64 {i}, {i}, 1;"));
        self.line(format!("bra {top};"));
        self.put_label(&done);
    }

    /// `printf` through `vprintf`: the arguments in a local buffer, each
    /// at its natural alignment (CUDA's layout).
    pub(super) fn printf(&mut self, d: &str, args: &[Value]) {
        self.cx.needs.vprintf = true;
        let fmt = self.reg(args[0]);
        let buf = if args.len() > 1 {
            let base = self.printf_area.expect("printf's buffer is laid out");
            let mut off = 0u32;
            for &a in &args[1..] {
                let ty = self.f.value_type(a);
                let size = if ty == Type::I32 { 4 } else { 8 };
                off = off.next_multiple_of(size);
                let r = self.reg(a);
                let t = match ty {
                    Type::I32 => ".u32",
                    Type::F64 => ".f64",
                    _ => ".u64",
                };
                self.line(format!("st.local{t} [%SPL+{}], {r};", base + off));
                off += size;
            }
            let t = self.temp(Class::B64);
            self.line(format!("add.u64 {t}, %SP, {base};"));
            t
        } else {
            "0".to_string()
        };
        self.line("{");
        self.line(".param .b64 param0;");
        self.line(format!("st.param.b64 [param0], {fmt};"));
        self.line(".param .b64 param1;");
        self.line(format!("st.param.b64 [param1], {buf};"));
        self.line(".param .b32 retval0;");
        self.line("call (retval0), vprintf, (param0, param1);");
        if !d.is_empty() {
            self.line(format!("ld.param.b32 {d}, [retval0];"));
        }
        self.line("}");
    }
}
