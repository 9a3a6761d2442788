//! Gradient checking against central finite differences, in the reference
//! interpreter.
//!
//! The objective of a call is `L = ret + Σ seed · (final contents of each
//! Dup array)` (`ret` when the function returns a float). The gradient
//! function is called with shadows holding the seeds; afterwards they hold
//! `∂L/∂(initial contents)`, and it returns `∂L/∂x` for the Active scalar.

#![allow(dead_code)]

use parc_ad::{AdOptions, AdReport, differentiate};
use parc_ir::interp::{Config, Interp, Val};
use parc_ir::{Activity, FuncId, GradRequest, Linkage, Module, gradient_signature};

#[derive(Clone, Debug)]
pub enum Arg {
    /// An active scalar (`double`).
    F(f64),
    /// An active scalar of type `float`.
    F32(f32),
    /// A constant scalar.
    CF(f64),
    /// An integer (constant).
    I(i64),
    /// A duplicated `double` array with its seed.
    Dup(Vec<f64>, Vec<f64>),
    /// A constant `double` array.
    Const(Vec<f64>),
    /// A constant `int` array.
    Ints(Vec<i32>),
}

impl Arg {
    pub fn dup(v: &[f64]) -> Arg {
        Arg::Dup(v.to_vec(), vec![0.0; v.len()])
    }
    pub fn out(n: usize, seed: f64) -> Arg {
        Arg::Dup(vec![0.0; n], vec![seed; n])
    }
    fn activity(&self) -> Activity {
        match self {
            Arg::F(_) | Arg::F32(_) => Activity::Active,
            Arg::Dup(..) => Activity::Dup,
            _ => Activity::Const,
        }
    }
}

pub fn compile(src: &str) -> Module {
    let src = &format!("{src}\nint main() {{ return 0; }}\n");
    let (ast, diags) = parc_lang::parse::parse(src);
    assert!(!diags.iter().any(|d| d.is_error()), "parse: {diags:?}");
    let (hir, diags) = parc_lang::check::check(ast);
    assert!(!diags.iter().any(|d| d.is_error()), "check: {diags:?}");
    parc_lang::lower::lower(hir.expect("checked"), "test.pc", src)
}

pub fn compile_opt(src: &str, level: u8) -> Module {
    let mut m = compile(src);
    let level = parc_ir::OptLevel::from_number(level).expect("an optimization level, 0 to 3");
    if !level.is_none() {
        parc_opt::optimize(&mut m, level, &mut parc_opt::Instrumentation::default())
            .expect("optimize");
    }
    parc_ir::verify::verify_module(&m).expect("optimized module verifies");
    m
}

/// Declares `grad_<f>` for `acts` and requests it; returns its id.
pub fn request(m: &mut Module, f: &str, acts: &[Activity]) -> FuncId {
    let primal = m.func_by_name(f).expect("function exists");
    let sig = gradient_signature(&m.funcs[primal].sig, acts).expect("gradient signature");
    let mut decl = parc_ir::Function::new(format!("grad_{f}"), sig);
    decl.linkage = Linkage::Import;
    decl.convergent = m.funcs[primal].convergent;
    decl.kind = m.funcs[primal].kind;
    // A `__device__` function's gradient is called inside kernels (as an
    // `__enzyme_autodiff` there asks for it), never exported to the host.
    let linkage = if m.funcs[primal].kind == parc_ir::FuncKind::Device {
        Linkage::Local
    } else {
        Linkage::Export
    };
    let grad = m.funcs.push(decl);
    m.grad_requests.push(GradRequest {
        primal,
        grad,
        activities: acts.to_vec(),
        linkage,
        loc: Default::default(),
    });
    grad
}

/// Compiles, differentiates and verifies; returns the module, the
/// gradient's id and the report.
pub fn build(src: &str, level: u8, f: &str, args: &[Arg]) -> (Module, FuncId, AdReport) {
    build_with(&AdOptions::default(), src, level, f, args)
}

/// [`build`] with these options.
pub fn build_with(
    options: &AdOptions,
    src: &str,
    level: u8,
    f: &str,
    args: &[Arg],
) -> (Module, FuncId, AdReport) {
    let mut m = compile_opt(src, level);
    let acts: Vec<Activity> = args.iter().map(Arg::activity).collect();
    let grad = request(&mut m, f, &acts);
    let report = differentiate(&mut m, options).unwrap_or_else(|e| panic!("differentiate: {e}"));
    if let Err(errs) = parc_ir::verify::verify_module(&m) {
        panic!(
            "gradient module does not verify:\n{}\n{}",
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
            parc_ir::print::print_module(&m)
        );
    }
    assert!(m.grad_requests.is_empty());
    (m, grad, report)
}

/// Runs the primal: returns `L`.
pub fn objective(m: &Module, f: &str, args: &[Arg]) -> f64 {
    let fid = m.func_by_name(f).expect("primal");
    let mut it = Interp::new(m, Config::default()).expect("interp");
    let mut vals = Vec::new();
    let mut outs = Vec::new();
    for a in args {
        vals.push(match a {
            Arg::F(x) | Arg::CF(x) => Val::F64(*x),
            Arg::F32(x) => Val::F32(*x),
            Arg::I(i) => Val::I(*i),
            Arg::Dup(v, seed) => {
                let p = it.alloc(8 * v.len().max(1) as u64).unwrap();
                it.write_f64s(p, v).unwrap();
                outs.push((p, seed.clone()));
                Val::Ptr(p)
            }
            Arg::Const(v) => {
                let p = it.alloc(8 * v.len().max(1) as u64).unwrap();
                it.write_f64s(p, v).unwrap();
                Val::Ptr(p)
            }
            Arg::Ints(v) => {
                let p = it.alloc(4 * v.len().max(1) as u64).unwrap();
                it.write_i32s(p, v).unwrap();
                Val::Ptr(p)
            }
        });
    }
    let r = it
        .call(fid, &vals)
        .unwrap_or_else(|e| panic!("primal: {e}"));
    let mut l = r.value().and_then(Val::as_f64).unwrap_or(0.0);
    for (p, seed) in outs {
        let v = it.read_f64s(p, seed.len()).unwrap();
        l += v.iter().zip(&seed).map(|(a, b)| a * b).sum::<f64>();
    }
    l
}

/// Runs the gradient: the active scalar's derivative (if any) and the
/// final shadows of the Dup arrays, and the interpreter's step count.
pub fn gradient(m: &Module, grad: FuncId, args: &[Arg]) -> (Option<f64>, Vec<Vec<f64>>, u64) {
    let mut it = Interp::new(m, Config::default()).expect("interp");
    let mut vals = Vec::new();
    let mut shadows = Vec::new();
    for a in args {
        match a {
            Arg::F(x) | Arg::CF(x) => vals.push(Val::F64(*x)),
            Arg::F32(x) => vals.push(Val::F32(*x)),
            Arg::I(i) => vals.push(Val::I(*i)),
            Arg::Dup(v, seed) => {
                let p = it.alloc(8 * v.len().max(1) as u64).unwrap();
                it.write_f64s(p, v).unwrap();
                let s = it.alloc(8 * v.len().max(1) as u64).unwrap();
                it.write_f64s(s, seed).unwrap();
                shadows.push((s, v.len()));
                vals.push(Val::Ptr(p));
                vals.push(Val::Ptr(s));
            }
            Arg::Const(v) => {
                let p = it.alloc(8 * v.len().max(1) as u64).unwrap();
                it.write_f64s(p, v).unwrap();
                vals.push(Val::Ptr(p));
            }
            Arg::Ints(v) => {
                let p = it.alloc(4 * v.len().max(1) as u64).unwrap();
                it.write_i32s(p, v).unwrap();
                vals.push(Val::Ptr(p));
            }
        }
    }
    let r = it
        .call(grad, &vals)
        .unwrap_or_else(|e| panic!("gradient: {e}"));
    let d = r.value().and_then(Val::as_f64);
    let sh = shadows
        .into_iter()
        .map(|(s, n)| it.read_f64s(s, n).unwrap())
        .collect();
    (d, sh, it.steps())
}

/// Central finite differences of `L` for every active input.
pub fn finite_differences(m: &Module, f: &str, args: &[Arg]) -> (Option<f64>, Vec<Vec<f64>>) {
    let h = 1e-6;
    let mut scalar = None;
    let mut arrays = Vec::new();
    for (i, a) in args.iter().enumerate() {
        match a {
            Arg::F(x) => {
                let mut p = args.to_vec();
                p[i] = Arg::F(x + h);
                let mut q = args.to_vec();
                q[i] = Arg::F(x - h);
                scalar = Some((objective(m, f, &p) - objective(m, f, &q)) / (2.0 * h));
            }
            Arg::F32(x) => {
                let hh = 1e-2f32;
                let mut p = args.to_vec();
                p[i] = Arg::F32(x + hh);
                let mut q = args.to_vec();
                q[i] = Arg::F32(x - hh);
                scalar = Some((objective(m, f, &p) - objective(m, f, &q)) / (2.0 * hh as f64));
            }
            Arg::Dup(v, seed) => {
                let mut g = Vec::new();
                for k in 0..v.len() {
                    let mut vp = v.clone();
                    vp[k] += h;
                    let mut vq = v.clone();
                    vq[k] -= h;
                    let mut p = args.to_vec();
                    p[i] = Arg::Dup(vp, seed.clone());
                    let mut q = args.to_vec();
                    q[i] = Arg::Dup(vq, seed.clone());
                    g.push((objective(m, f, &p) - objective(m, f, &q)) / (2.0 * h));
                }
                arrays.push(g);
            }
            _ => {}
        }
    }
    (scalar, arrays)
}

pub fn close(a: f64, fd: f64, tol: f64) -> bool {
    (a - fd).abs() <= tol * (1.0 + fd.abs())
}

/// Differentiates `f` of `src` at `level`, checks against finite
/// differences, and returns the gradient (for further comparisons).
pub fn check_at(
    src: &str,
    level: u8,
    f: &str,
    args: &[Arg],
    tol: f64,
) -> (Option<f64>, Vec<Vec<f64>>, AdReport) {
    check_at_with(&AdOptions::default(), src, level, f, args, tol)
}

/// [`check_at`] with these options.
pub fn check_at_with(
    options: &AdOptions,
    src: &str,
    level: u8,
    f: &str,
    args: &[Arg],
    tol: f64,
) -> (Option<f64>, Vec<Vec<f64>>, AdReport) {
    let (m, grad, report) = build_with(options, src, level, f, args);
    let (d, sh, _) = gradient(&m, grad, args);
    let (fd, fsh) = finite_differences(&m, f, args);
    if let (Some(d), Some(fd)) = (d, fd) {
        assert!(
            close(d, fd, tol),
            "{f} -O{level}: d/dx = {d}, finite differences {fd}"
        );
    }
    assert_eq!(sh.len(), fsh.len());
    for (k, (a, b)) in sh.iter().zip(&fsh).enumerate() {
        for (j, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                close(*x, *y, tol),
                "{f} -O{level}: shadow {k}[{j}] = {x}, finite differences {y}\nall: {a:?}\nfd:  {b:?}"
            );
        }
    }
    (d, sh, report)
}

/// [`check_at`] at -O0 and -O2; the two gradients must agree.
pub fn check(src: &str, f: &str, args: &[Arg]) -> (Option<f64>, Vec<Vec<f64>>) {
    let (d0, s0, _) = check_at(src, 0, f, args, 1e-6);
    let (d2, s2, _) = check_at(src, 2, f, args, 1e-6);
    if let (Some(a), Some(b)) = (d0, d2) {
        assert!(close(a, b, 1e-12), "-O0 {a} vs -O2 {b}");
    }
    for (a, b) in s0.iter().zip(&s2) {
        for (x, y) in a.iter().zip(b) {
            assert!(close(*x, *y, 1e-12), "-O0 {x} vs -O2 {y}");
        }
    }
    (d2, s2)
}

/// Expects `differentiate` to fail with a message containing `needle`.
pub fn expect_error(src: &str, level: u8, f: &str, args: &[Arg], needle: &str) {
    let mut m = compile_opt(src, level);
    let acts: Vec<Activity> = args.iter().map(Arg::activity).collect();
    request(&mut m, f, &acts);
    match differentiate(&mut m, &AdOptions::default()) {
        Ok(_) => panic!("expected an error containing {needle:?}"),
        Err(e) => assert!(e.to_string().contains(needle), "error {e} lacks {needle:?}"),
    }
}
