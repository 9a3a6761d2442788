//! The interpreter's vector instructions: a vector register is up to four
//! 64-bit lanes in its frame's `vregs`, lane 0 first; memory accesses go
//! lane by lane, each checked as a scalar access is.

use super::Fault;
use super::exec::{Frame, binary, load_store_type};
use super::memory::Memory;
use crate::entities::Value;
use crate::eval::{self, f32_bits, f32_of};
use crate::function::Function;
use crate::inst::{InstKind, UnaryOp};
use crate::libm;
use crate::types::Type;
use cranelift_entity::EntityRef;

/// The lanes of vector `v` (zeros if the activation has defined no
/// vector yet, which valid SSA never reads).
fn lanes_of(frame: &Frame, v: Value) -> [u64; 4] {
    frame.vregs.get(v.index()).copied().unwrap_or([0; 4])
}

fn set_lanes(frame: &mut Frame, func: &Function, r: Value, lanes: [u64; 4]) {
    if frame.vregs.is_empty() {
        frame.vregs.resize(func.values.len(), [0; 4]);
    }
    frame.vregs[r.index()] = lanes;
}

/// Vector instructions other than memory accesses: lane-wise `fneg`,
/// binary operators, `icmp`/`fcmp` (to a mask) and `select` by a mask,
/// the lane-wise math intrinsics (`fmin`, `fmax`: the C function on each
/// lane), `splat`, `extract_lane`, `insert_lane`, `reduce_OP`.
pub(super) fn vector(
    frame: &mut Frame,
    func: &Function,
    kind: &InstKind,
    result: Option<Value>,
) -> Result<(), Fault> {
    let Some(r) = result else {
        return Err(Fault::msg("vector instruction without a result"));
    };
    let rty = func.values[r].ty;
    let lane_ty = rty.lane_type();
    let n = rty.lanes() as usize;
    match kind {
        InstKind::Unary(UnaryOp::Fneg, a) => {
            let mut x = lanes_of(frame, *a);
            x.iter_mut()
                .take(n)
                .for_each(|l| *l = eval::fneg(lane_ty, *l));
            set_lanes(frame, func, r, x);
        }
        InstKind::Binary(op, a, b) => {
            let (x, y) = (lanes_of(frame, *a), lanes_of(frame, *b));
            let mut z = [0; 4];
            for i in 0..n {
                z[i] = binary(*op, lane_ty, x[i], y[i])?;
            }
            set_lanes(frame, func, r, z);
        }
        InstKind::Icmp(_, a, b) | InstKind::Fcmp(_, a, b) => {
            // A mask: all ones (-1, sign-extended as integers are held)
            // for true, zero for false.
            let operand_ty = func.values[*a].ty.lane_type();
            let (x, y) = (lanes_of(frame, *a), lanes_of(frame, *b));
            let mut z = [0; 4];
            for i in 0..n {
                let t = match kind {
                    InstKind::Icmp(cc, ..) => eval::icmp(*cc, operand_ty, x[i], y[i]),
                    InstKind::Fcmp(cc, ..) => eval::fcmp(*cc, operand_ty, x[i], y[i]),
                    _ => unreachable!("matched above"),
                };
                z[i] = if t { u64::MAX } else { 0 };
            }
            set_lanes(frame, func, r, z);
        }
        InstKind::Select(c, a, b) => {
            let (m, x, y) = (
                lanes_of(frame, *c),
                lanes_of(frame, *a),
                lanes_of(frame, *b),
            );
            let mut z = [0; 4];
            for i in 0..n {
                z[i] = if m[i] != 0 { x[i] } else { y[i] };
            }
            set_lanes(frame, func, r, z);
        }
        InstKind::Intrinsic { op, args } if op.is_lanewise() && args.len() == 2 => {
            let f = libm::math_fn(*op)
                .ok_or_else(|| Fault::msg(format!("no C function for `{}`", op.name())))?;
            let (x, y) = (lanes_of(frame, args[0]), lanes_of(frame, args[1]));
            let mut z = [0; 4];
            for i in 0..n {
                z[i] = if lane_ty == Type::F32 {
                    f32_bits(f.f32(&[f32_of(x[i]), f32_of(y[i])]))
                } else {
                    f.f64(&[f64::from_bits(x[i]), f64::from_bits(y[i])])
                        .to_bits()
                };
            }
            set_lanes(frame, func, r, z);
        }
        InstKind::Splat(a) => {
            let x = frame.regs[a.index()];
            let mut z = [0; 4];
            z.iter_mut().take(n).for_each(|l| *l = x);
            set_lanes(frame, func, r, z);
        }
        InstKind::InsertLane(v, x, lane) => {
            let mut z = lanes_of(frame, *v);
            z[usize::from(*lane) & 3] = frame.regs[x.index()];
            set_lanes(frame, func, r, z);
        }
        InstKind::ExtractLane(v, lane) => {
            frame.regs[r.index()] = lanes_of(frame, *v)[usize::from(*lane) & 3];
        }
        InstKind::Reduce(op, v) => {
            let vt = func.values[*v].ty;
            let x = lanes_of(frame, *v);
            let mut acc = x[0];
            for &l in &x[1..vt.lanes() as usize] {
                acc = binary(*op, vt.lane_type(), acc, l)?;
            }
            frame.regs[r.index()] = acc;
        }
        _ => return Err(Fault::msg("not a vector instruction")),
    }
    Ok(())
}

/// A vector `load` or `store`: one access per lane, lane 0 at the lowest
/// address, each checked as a scalar access is.
pub(super) fn vector_memory(
    frame: &mut Frame,
    func: &Function,
    mem: &mut Memory,
    kind: &InstKind,
    result: Option<Value>,
) -> Result<(), Fault> {
    let ty = load_store_type(func, kind, result);
    let lane_ty = ty.lane_type();
    let step = u64::from(lane_ty.bytes());
    match kind {
        InstKind::Load(p) => {
            let Some(r) = result else {
                return Err(Fault::msg("load without a result"));
            };
            let base = frame.regs[p.index()];
            let mut z = [0; 4];
            for (i, l) in z.iter_mut().take(ty.lanes() as usize).enumerate() {
                *l = mem.load(base.wrapping_add(i as u64 * step), lane_ty)?;
            }
            set_lanes(frame, func, r, z);
        }
        InstKind::Store { value, ptr } => {
            let base = frame.regs[ptr.index()];
            let x = lanes_of(frame, *value);
            for (i, &l) in x.iter().take(ty.lanes() as usize).enumerate() {
                mem.store(base.wrapping_add(i as u64 * step), lane_ty, l)?;
            }
        }
        _ => return Err(Fault::msg("not a vector memory access")),
    }
    Ok(())
}
