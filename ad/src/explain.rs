//! What the AD explains: readable names of primal values (for the
//! reasons of accumulation decisions), and the text of a [`Plan`].

use crate::plan::Plan;
use parc_ir::{BinaryOp, InstKind, UnaryOp, Value, ValueDef};

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
