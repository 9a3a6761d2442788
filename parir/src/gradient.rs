//! Gradient requests ([`Module::grad_requests`]): asking for the gradient
//! a program exports (`--grad F`, [`request_export`]), and the one rule
//! every request must satisfy for the AD to fulfil it ([`refusal`]).
//!
//! Requests come from the front end (`__enzyme_autodiff` calls and `--grad`
//! both) or from parir text. The rule is checked once, here: the verifier
//! reports a request that breaks it (rule `gradient`), and the driver, which
//! checks the requests right after lowering, reports it to the user at the
//! request's position with the refusal's hint. Nothing upstream repeats it.

use crate::entities::FuncId;
use crate::function::{
    Activity, FuncKind, Function, GradRequest, Linkage, Module, SrcLoc, gradient_signature,
};
use crate::inst::InstKind;
use crate::types::Type;

/// The activity Enzyme gives a parameter of IR type `ty` when none is
/// written (LANGUAGE.md "Gradients"), which `--grad` uses: pointers are
/// duplicated, floats active, integers constant.
pub fn default_activity(ty: Type) -> Activity {
    match ty {
        Type::Ptr => Activity::Dup,
        t if t.is_float() => Activity::Active,
        _ => Activity::Const,
    }
}

/// [`default_activity`] of each parameter of `f`.
pub fn default_activities(f: &Function) -> Vec<Activity> {
    f.sig.params.iter().map(|&t| default_activity(t)).collect()
}

/// Why the AD cannot fulfil a request, in the user's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The headline: `cannot differentiate `f`: ...`.
    pub message: String,
    /// How to get what was meant.
    pub help: String,
    /// Where the user asked for what is refused, when that is not the
    /// request's own position (one call of its gradient among several).
    pub at: Option<SrcLoc>,
}

/// The rule a gradient request must satisfy: `None` if the AD can fulfil
/// it, else why not. A request whose primal does not exist is not this
/// rule's business (the verifier reports it as malformed).
pub fn refusal(module: &Module, req: &GradRequest) -> Option<Refusal> {
    let p = module.funcs.get(req.primal)?;
    let name = &p.name;
    let refuse = |message: String, help: String| {
        Some(Refusal {
            message,
            help,
            at: None,
        })
    };
    if p.kind == FuncKind::Kernel {
        return refuse(
            format!("cannot differentiate kernel `{name}`"),
            "differentiate a host function that launches the kernel, or a `__device__` function from inside a kernel".into(),
        );
    }
    if p.is_declaration() {
        return refuse(
            format!("cannot differentiate `{name}`: its body is not in this program"),
            format!("define `{name}` in one of the files compiled together"),
        );
    }
    if p.kind == FuncKind::Device && req.linkage == Linkage::Export {
        return refuse(
            format!(
                "cannot export the gradient of `__device__` function `{name}`: it runs only inside kernels, and `grad_{name}` would be called from the host"
            ),
            format!(
                "call `__enzyme_autodiff({name}, ...)` inside a kernel, or drop `__device__` to differentiate `{name}` on the host"
            ),
        );
    }
    if p.kind == FuncKind::Device
        && let Some(at) = host_call(module, req.grad)
    {
        return Some(Refusal {
            message: format!(
                "cannot differentiate `__device__` function `{name}` in host code: its gradient runs on GPU threads"
            ),
            help: format!(
                "call `__enzyme_autodiff({name}, ...)` inside a kernel, or drop `__device__`"
            ),
            at: Some(at),
        });
    }
    if p.c_sig.as_ref().is_some_and(|c| c.ret.is_some()) {
        return refuse(
            format!("cannot differentiate `{name}`: it returns a struct"),
            "return the result through a pointer parameter (and its shadow)".into(),
        );
    }
    let active: Vec<String> = req
        .activities
        .iter()
        .enumerate()
        .filter(|&(_, &a)| a == Activity::Active)
        .map(|(i, _)| match p.param_name(i) {
            Some(n) if !n.is_empty() => format!("`{n}`"),
            _ => format!("{}", i + 1),
        })
        .collect();
    if active.len() > 1 {
        return refuse(
            format!(
                "cannot differentiate `{name}` with {} active scalar parameters ({}); at most one is supported",
                active.len(),
                active.join(", ")
            ),
            "pass the extra scalars through a pointer and its shadow (their gradients are then added to the shadow), or keep them constant (`enzyme_const`, or a wrapper without them for `--grad`)".into(),
        );
    }
    None
}

/// The position of the first call of `grad` in host code, if any.
fn host_call(module: &Module, grad: FuncId) -> Option<SrcLoc> {
    module
        .funcs
        .values()
        .filter(|f| f.kind == FuncKind::Host)
        .find_map(|f| {
            f.placed_insts().find_map(|(_, i)| match f.inst(i) {
                InstKind::Call { func, .. } if *func == grad => Some(f.locs[i]),
                _ => None,
            })
        })
}

/// Why a request asks for a gradient that computes nothing, if it does:
/// no derivative can flow when nothing the primal writes is
/// differentiated (no duplicated pointer and no floating result) or
/// nothing it reads is (no duplicated pointer and no active scalar).
pub fn computes_nothing(module: &Module, req: &GradRequest) -> Option<String> {
    let p = module.funcs.get(req.primal)?;
    if req
        .activities
        .iter()
        .any(|a| matches!(a, Activity::Dup | Activity::DupNoNeed))
    {
        return None;
    }
    if !req.activities.contains(&Activity::Active) {
        Some(format!(
            "`{}` has no pointer or floating-point parameter to differentiate with respect to",
            p.name
        ))
    } else if !p.sig.ret.is_some_and(Type::is_float) {
        Some(format!(
            "`{}` returns no floating-point value and writes through no pointer parameter",
            p.name
        ))
    } else {
        None
    }
}

/// Asks for the gradient of `primal` with Enzyme's default activities,
/// exported as `grad_NAME` (what `--grad NAME` means): declares it
/// (imported until the AD defines it) and records the request, at `loc`
/// (the primal's declaration in source). Asking twice is asking once. An
/// error if another function is called `grad_NAME`. Whether the AD can
/// fulfil the request is [`refusal`]'s question, not this one's.
pub fn request_export(module: &mut Module, primal: FuncId, loc: SrcLoc) -> Result<(), String> {
    let p = &module.funcs[primal];
    let grad_name = format!("grad_{}", p.name);
    if let Some(g) = module.func_by_name(&grad_name) {
        let asked = module
            .grad_requests
            .iter()
            .any(|r| r.grad == g && r.primal == primal);
        return if asked {
            Ok(())
        } else {
            Err(format!(
                "cannot export the gradient of `{}` as `{grad_name}`: a function of that name already exists",
                p.name
            ))
        };
    }
    let activities = default_activities(p);
    // A request the rule refuses gets an empty signature: it is reported,
    // never differentiated.
    let sig = gradient_signature(&p.sig, &activities).unwrap_or_default();
    let mut decl = Function::new(grad_name, sig);
    decl.kind = match p.kind {
        FuncKind::Device => FuncKind::Device,
        _ => FuncKind::Host,
    };
    decl.linkage = Linkage::Import;
    let grad = module.funcs.push(decl);
    module.grad_requests.push(GradRequest {
        primal,
        grad,
        activities,
        linkage: Linkage::Export,
        loc,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::Signature;

    fn module_with(name: &str, params: Vec<Type>, ret: Option<Type>, kind: FuncKind) -> Module {
        let mut m = Module::new();
        let mut f = crate::builder::new_function(name, Signature { params, ret });
        f.kind = kind;
        let entry = f.layout[0];
        let v = ret.map(|t| {
            let kind = if t.is_float() {
                crate::inst::InstKind::Fconst(1.0)
            } else {
                crate::inst::InstKind::Iconst(1)
            };
            let i = f.append_inst(entry, kind, Some(t));
            f.result(i).expect("a result")
        });
        f.append_inst(entry, crate::inst::InstKind::Return(v), None);
        m.funcs.push(f);
        m
    }

    fn request(m: &mut Module) -> GradRequest {
        let f = m.func_by_name("f").expect("f");
        request_export(m, f, SrcLoc::new(1, 1)).expect("requested");
        m.grad_requests[0].clone()
    }

    #[test]
    fn exported_gradients_are_declared_once() {
        let mut m = module_with(
            "f",
            vec![Type::Ptr, Type::F64, Type::I32],
            Some(Type::F64),
            FuncKind::Host,
        );
        let r = request(&mut m);
        assert_eq!(
            r.activities,
            [Activity::Dup, Activity::Active, Activity::Const]
        );
        assert_eq!(r.linkage, Linkage::Export);
        let g = &m.funcs[r.grad];
        assert_eq!(g.name, "grad_f");
        assert_eq!(g.sig.params, [Type::Ptr, Type::Ptr, Type::F64, Type::I32]);
        assert_eq!(g.sig.ret, Some(Type::F64));
        let f = r.primal;
        assert_eq!(request_export(&mut m, f, SrcLoc::default()), Ok(()));
        assert_eq!(m.grad_requests.len(), 1);
        assert_eq!(refusal(&m, &r), None);
        assert_eq!(computes_nothing(&m, &r), None);
        let mut taken = module_with("f", vec![], None, FuncKind::Host);
        taken
            .funcs
            .push(Function::new("grad_f", Signature::default()));
        let f = taken.func_by_name("f").expect("f");
        let e = request_export(&mut taken, f, SrcLoc::default()).expect_err("refused");
        assert!(e.contains("a function of that name already exists"), "{e}");
    }

    #[test]
    fn the_rule_refuses_what_the_ad_cannot_do() {
        let message = |m: &Module, r: &GradRequest| refusal(m, r).map(|r| r.message);
        let mut m = module_with(
            "f",
            vec![Type::F64, Type::F64],
            Some(Type::F64),
            FuncKind::Host,
        );
        m.funcs[FuncId::from_u32(0)].param_names = vec!["x".into(), "y".into()];
        let r = request(&mut m);
        assert_eq!(
            message(&m, &r).as_deref(),
            Some(
                "cannot differentiate `f` with 2 active scalar parameters (`x`, `y`); at most one is supported"
            )
        );
        let mut m = module_with("f", vec![Type::F64], Some(Type::F64), FuncKind::Kernel);
        let r = request(&mut m);
        assert_eq!(
            message(&m, &r).as_deref(),
            Some("cannot differentiate kernel `f`")
        );
        let mut m = module_with("f", vec![Type::F64], Some(Type::F64), FuncKind::Device);
        let r = request(&mut m);
        assert!(
            message(&m, &r)
                .is_some_and(|s| s.starts_with("cannot export the gradient of `__device__`"))
        );
        let local = GradRequest {
            linkage: Linkage::Local,
            ..r
        };
        assert_eq!(message(&m, &local), None);
        let mut m = Module::new();
        m.funcs.push(Function::new(
            "f",
            Signature {
                params: vec![Type::F64],
                ret: Some(Type::F64),
            },
        ));
        let r = request(&mut m);
        assert_eq!(
            message(&m, &r).as_deref(),
            Some("cannot differentiate `f`: its body is not in this program")
        );
    }

    #[test]
    fn gradients_of_nothing_are_noticed() {
        let mut m = module_with("f", vec![Type::I32], Some(Type::I32), FuncKind::Host);
        let r = request(&mut m);
        assert!(
            computes_nothing(&m, &r)
                .is_some_and(|s| s.contains("no pointer or floating-point parameter"))
        );
        let mut m = module_with("f", vec![Type::F64], None, FuncKind::Host);
        let r = request(&mut m);
        assert!(
            computes_nothing(&m, &r).is_some_and(|s| s.contains("returns no floating-point value"))
        );
        let mut m = module_with("f", vec![Type::Ptr], None, FuncKind::Host);
        let r = request(&mut m);
        assert_eq!(computes_nothing(&m, &r), None);
    }
}
