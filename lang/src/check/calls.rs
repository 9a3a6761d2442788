//! Calls: user functions (argument count and conversions), the builtins of
//! LANGUAGE.md, kernel launches, and the CUDA runtime calls.

use super::expr::{ConvCtx, MEMCPY_KINDS, err_expr, mk};
use super::{Checker, Sym, is_err, plural};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{Builtin, CType, Expr, ExprKind, FuncKind, FuncRef, scalar_type};
use crate::pp::headers;
use parc_ir::{CFn, CopyKind, Intrinsic};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Builtins whose arguments are checked by special rules.
const SPECIAL: [&str; 14] = [
    "printf",
    "fprintf",
    "sprintf",
    "snprintf",
    "vfprintf",
    "vsnprintf",
    "scanf",
    "fscanf",
    "sscanf",
    "atomicAdd",
    "cudaMalloc",
    "cudaMemcpy",
    "__enzyme_autodiff",
    "__builtin_va_start",
];

/// A C type in a builtin's declaration.
#[derive(Clone, Copy, Debug)]
enum C {
    Void,
    Int,
    Long,
    Double,
    VoidPtr,
    CharPtr,
}

impl C {
    fn ctype(self) -> CType {
        match self {
            C::Void => CType::Void,
            C::Int => CType::Int,
            C::Long => CType::Long,
            C::Double => CType::Double,
            C::VoidPtr => CType::Void.ptr_to(),
            C::CharPtr => CType::Char.ptr_to(),
        }
    }
}

/// The builtins with a fixed C declaration, other than the math
/// functions: name, parameters, result and the intrinsic each is. The
/// math functions are every math intrinsic of parir under its C name, in
/// `double` and (`f`-suffixed) `float`, so they are listed only there.
/// The other C library functions ([`CFn`]) take their C types from their
/// prototype (in parc's headers), so they need one before a call as C
/// says; those listed here are ParC's own, usable without a header.
const FIXED: &[(&str, &[C], C, Intrinsic)] = &[
    ("abs", &[C::Int], C::Int, Intrinsic::Abs),
    ("labs", &[C::Long], C::Long, Intrinsic::Labs),
    ("malloc", &[C::Long], C::VoidPtr, Intrinsic::Malloc),
    ("calloc", &[C::Long, C::Long], C::VoidPtr, Intrinsic::Calloc),
    ("free", &[C::VoidPtr], C::Void, Intrinsic::Free),
    (
        "realloc",
        &[C::VoidPtr, C::Long],
        C::VoidPtr,
        Intrinsic::Realloc,
    ),
    // C's memcpy and memset return their first argument; ParC's return
    // nothing (lowering need not produce a value).
    (
        "memcpy",
        &[C::VoidPtr, C::VoidPtr, C::Long],
        C::Void,
        Intrinsic::Memcpy,
    ),
    (
        "memset",
        &[C::VoidPtr, C::Int, C::Long],
        C::Void,
        Intrinsic::Memset,
    ),
    ("atoi", &[C::CharPtr], C::Int, Intrinsic::C(CFn::Atoi)),
    ("atol", &[C::CharPtr], C::Long, Intrinsic::C(CFn::Atol)),
    ("atof", &[C::CharPtr], C::Double, Intrinsic::C(CFn::Atof)),
    (
        "strcmp",
        &[C::CharPtr, C::CharPtr],
        C::Int,
        Intrinsic::C(CFn::Strcmp),
    ),
    ("exit", &[C::Int], C::Void, Intrinsic::Exit),
    ("wtime", &[], C::Double, Intrinsic::Wtime),
    ("__syncthreads", &[], C::Void, Intrinsic::Barrier),
    ("cudaFree", &[C::VoidPtr], C::Int, Intrinsic::CudaFree),
    (
        "cudaDeviceSynchronize",
        &[],
        C::Int,
        Intrinsic::CudaDeviceSynchronize,
    ),
];

/// A builtin's declaration: the builtin, its parameter types and result.
pub(super) type Decl = (Builtin, Vec<CType>, CType);

/// Every builtin with a fixed C declaration, by name.
fn fixed_builtins() -> &'static HashMap<String, Decl> {
    static TABLE: OnceLock<HashMap<String, Decl>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = HashMap::new();
        for op in Intrinsic::all().into_iter().filter(|op| op.is_math()) {
            let info = op.info();
            let (Some(name), n) = (info.c_name, info.params.len()) else {
                continue;
            };
            let b = Builtin::Intrinsic(op);
            t.insert(name.to_string(), (b, vec![CType::Double; n], CType::Double));
            t.insert(format!("{name}f"), (b, vec![CType::Float; n], CType::Float));
        }
        for &(name, params, ret, op) in FIXED {
            let params = params.iter().map(|c| c.ctype()).collect();
            t.insert(
                name.to_string(),
                (Builtin::Intrinsic(op), params, ret.ctype()),
            );
        }
        t
    })
}

/// Builtins with a fixed C signature: (builtin, parameters, result).
pub(super) fn fixed_builtin(name: &str) -> Option<Decl> {
    fixed_builtins().get(name).cloned()
}

/// Every builtin name, for suggestions.
fn names() -> Vec<&'static str> {
    let fixed = fixed_builtins().keys().map(String::as_str);
    let libc = CFn::ALL.iter().map(|f| f.name());
    fixed
        .chain(SPECIAL)
        .chain(super::fpclass::names())
        .chain(libc)
        .collect()
}

pub(super) fn is_builtin_name(name: &str) -> bool {
    SPECIAL.contains(&name)
        || fixed_builtins().contains_key(name)
        || super::fpclass::names().any(|n| n == name)
        || CFn::from_name(name).is_some()
}

/// A prototype of C library function `f` fits its row when each type is
/// passed as the row's IR type says (`size_t strlen(const char *)`: `ptr
/// -> i64`).
fn fits_row(f: CFn, ret: &CType, params: &[CType]) -> bool {
    let (row_params, row_ret) = f.ir_signature();
    scalar_type(ret) == row_ret
        && params.len() == row_params.len()
        && params
            .iter()
            .zip(&row_params)
            .all(|(p, &t)| scalar_type(p) == Some(t))
}

/// A prototype is compatible with a builtin when it has as many parameters
/// and each is the same kind of type (integer widths and pointer targets
/// may differ: `void *memcpy(void*, const void*, unsigned long)` is fine).
fn compatible_decl(a: &CType, b: &CType) -> bool {
    a == b || (a.is_integer() && b.is_integer()) || (a.is_pointer() && b.is_pointer())
}

fn was_were(n: usize) -> &'static str {
    if n == 1 { "was" } else { "were" }
}

impl Checker {
    /// A user's own declaration of a builtin (`extern double sqrt(double);`):
    /// accepted when compatible; the builtin stays in charge.
    pub(super) fn builtin_prototype(
        &mut self,
        name: &str,
        ret: &CType,
        params: &[CType],
        span: Span,
    ) {
        if is_err(ret) || params.iter().any(is_err) {
            return;
        }
        let Some((_, bparams, bret)) = fixed_builtin(name) else {
            if let Some(f) = CFn::from_name(name) {
                self.libc_prototype(f, ret, params, span);
            }
            // printf and friends cannot be declared exactly in ParC's syntax
            // (no `...`); any declaration of them is accepted.
            return;
        };
        let ret_ok = compatible_decl(ret, &bret) || (bret == CType::Void && ret.is_pointer());
        let ok = ret_ok
            && params.len() == bparams.len()
            && params
                .iter()
                .zip(&bparams)
                .all(|(a, b)| compatible_decl(a, b));
        if !ok {
            let ps: Vec<String> = bparams.iter().map(|t| self.ty_name(t)).collect();
            let ps = if ps.is_empty() {
                "void".to_string()
            } else {
                ps.join(", ")
            };
            let sig = format!("{} {name}({ps})", self.ty_name(&bret));
            self.push(
                Diagnostic::error(span, format!("conflicting types for builtin `{name}`"))
                    .with_label("this declaration does not match the builtin")
                    .with_help(format!(
                        "ParC provides `{sig}`; remove this declaration or make it match"
                    )),
            );
        }
    }

    /// A prototype of C library function `f`: its C types become the
    /// builtin's when they fit the row.
    fn libc_prototype(&mut self, f: CFn, ret: &CType, params: &[CType], span: Span) {
        let name = f.name();
        // Calls are checked against the prototype even when it does not
        // fit (after this one error, the program is not lowered).
        let decl = (
            Builtin::Intrinsic(Intrinsic::C(f)),
            params.to_vec(),
            ret.clone(),
        );
        self.libc_decls.insert(name.to_string(), decl);
        if fits_row(f, ret, params) {
            return;
        }
        let mut d = Diagnostic::error(
            span,
            format!("conflicting types for C library function `{name}`"),
        )
        .with_label("this declaration does not match the C library's");
        if let Some((header, proto)) = headers::declaring(name) {
            d = d.with_help(format!(
                "parc's <{header}> declares `{proto}`; include it instead, or make this declaration match"
            ));
        }
        self.push(d);
    }

    pub(super) fn call(&mut self, callee: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        let name = callee.name.as_str();
        match self.lookup(name) {
            Some(Sym::Func(f)) => self.user_call(f, callee, args, span),
            Some(_) => {
                let v = self.rvalue(&ast::Expr {
                    kind: ast::ExprKind::Ident(callee.name.clone()),
                    span: callee.span,
                });
                if v.ty.func_pointee().is_some() {
                    return self.indirect_call(v, args, span);
                }
                if !is_err(&v.ty) {
                    let t = self.ty_name(&v.ty);
                    self.push(
                        Diagnostic::error(
                            callee.span,
                            format!("called object `{name}` is not a function"),
                        )
                        .with_label(format!("`{name}` is a variable of type `{t}`")),
                    );
                }
                self.check_only(args);
                err_expr(span)
            }
            None => {
                self.note_lock_call(name);
                match self.omp_call(name, args, span) {
                    Some(e) => e,
                    None => self.builtin_call(callee, args, span),
                }
            }
        }
    }

    /// A call through an expression: `(*fp)(x)`, `ops[i](x)`, `s->f(x)`.
    pub(super) fn call_ptr(&mut self, callee: &ast::Expr, args: &[ast::Expr], span: Span) -> Expr {
        let v = self.rvalue(callee);
        if is_err(&v.ty) {
            self.check_only(args);
            return err_expr(span);
        }
        if v.ty.func_pointee().is_none() {
            let t = self.ty_name(&v.ty);
            self.push(
                Diagnostic::error(callee.span, "called object is not a function")
                    .with_label(format!("this has type `{t}`"))
                    .with_help("only functions and pointers to functions can be called"),
            );
            self.check_only(args);
            return err_expr(span);
        }
        self.indirect_call(v, args, span)
    }

    /// A function designator used as a value: its address.
    pub(super) fn func_addr(&mut self, f: FuncRef, span: Span) -> Expr {
        let func = &self.funcs[f.0 as usize];
        if func.variadic {
            self.variadic_uses.push((f, span));
        }
        let name = func.name.clone();
        let kind = func.kind;
        if kind == FuncKind::Kernel || (kind == FuncKind::Device) != self.in_gpu_code() {
            let what = match kind {
                FuncKind::Kernel => "a kernel is launched, not called",
                FuncKind::Device => "a `__device__` function cannot be called from host code",
                FuncKind::Host => "GPU code cannot call through function pointers",
            };
            self.push(
                Diagnostic::error(span, format!("cannot take the address of `{name}`: {what}"))
                    .with_label("used as a value here"),
            );
            return err_expr(span);
        }
        let (params, _) = self.param_types(f);
        let ty = CType::Func(Box::new(crate::hir::FuncType {
            ret: self.funcs[f.0 as usize].ret.clone(),
            params,
            variadic: self.funcs[f.0 as usize].variadic,
        }))
        .ptr_to();
        mk(ExprKind::FuncAddr(f), ty, span)
    }

    /// A call through a function pointer (a known function's address is
    /// called directly).
    fn indirect_call(&mut self, callee: Expr, args: &[ast::Expr], span: Span) -> Expr {
        if let ExprKind::FuncAddr(f) = callee.kind {
            let name = ast::Ident {
                name: self.funcs[f.0 as usize].name.clone(),
                span: callee.span,
            };
            return self.user_call(f, &name, args, span);
        }
        if self.in_gpu_code() {
            self.push(
                Diagnostic::error(
                    callee.span,
                    "GPU code cannot call through a function pointer",
                )
                .with_label("an indirect call")
                .with_help("call the function by its name"),
            );
            self.check_only(args);
            return err_expr(span);
        }
        let Some(ft) = callee.ty.func_pointee().cloned() else {
            self.check_only(args);
            return err_expr(span);
        };
        let arity_ok = if ft.variadic {
            args.len() >= ft.params.len()
        } else {
            args.len() == ft.params.len()
        };
        if !arity_ok {
            let t = self.ty_name(&callee.ty);
            self.arity_error(
                &format!("a function of type `{t}`"),
                ft.params.len(),
                args,
                span,
                None,
            );
            self.check_only(args);
            return err_expr(span);
        }
        let n = ft.params.len();
        let Some(mut out) = self.convert_args("the called function", &ft.params, &[], &args[..n])
        else {
            self.check_only(&args[n..]);
            return err_expr(span);
        };
        match self.variadic_args(&args[n..]) {
            Some(extra) => out.extend(extra),
            None => return err_expr(span),
        }
        if ft.ret != CType::Void && !self.require_complete(&ft.ret, span, "the result of this call")
        {
            return err_expr(span);
        }
        mk(
            ExprKind::CallIndirect {
                callee: Box::new(callee),
                args: out,
            },
            ft.ret,
            span,
        )
    }

    /// The arguments for a `...`: the default argument promotions
    /// (`float` to `double`, small integers to `int`).
    pub(super) fn variadic_args(&mut self, args: &[ast::Expr]) -> Option<Vec<Expr>> {
        let mut out = Vec::new();
        let mut ok = true;
        for a in args {
            let v = self.rvalue(a);
            if is_err(&v.ty) {
                ok = false;
                continue;
            }
            if !v.ty.is_scalar() {
                let t = self.ty_name(&v.ty);
                self.push(
                    Diagnostic::error(a.span, format!("a `{t}` cannot be passed to `...`"))
                        .with_label("passed through `...`")
                        .with_help("pass a pointer to it instead"),
                );
                ok = false;
                continue;
            }
            let t = super::types::default_promotion(&v.ty);
            out.push(self.convert(v, &t));
        }
        ok.then_some(out)
    }

    /// Checks argument expressions for their own errors after a bad call.
    pub(super) fn check_only(&mut self, args: &[ast::Expr]) {
        for a in args {
            self.rvalue(a);
        }
    }

    pub(super) fn arity_error(
        &mut self,
        what: &str,
        expected: usize,
        args: &[ast::Expr],
        span: Span,
        decl: Option<Span>,
    ) {
        let given = args.len();
        let primary = if given > expected {
            args[expected].span.to(args[given - 1].span)
        } else {
            span
        };
        let mut d = Diagnostic::error(
            primary,
            format!(
                "{what} takes {} but {given} {} given",
                plural(expected, "argument"),
                was_were(given)
            ),
        );
        if given < expected {
            d = d.with_label(format!("{} missing", plural(expected - given, "argument")));
        } else {
            d = d.with_label("unexpected arguments");
        }
        if let Some(decl) = decl {
            d = d.with_secondary(decl, "declared here");
        }
        self.push(d);
    }

    /// Converts arguments to parameter types; `None` after an error.
    fn convert_args(
        &mut self,
        fname: &str,
        params: &[CType],
        param_spans: &[Span],
        args: &[ast::Expr],
    ) -> Option<Vec<Expr>> {
        let mut out = Vec::new();
        let mut ok = true;
        for (i, (a, p)) in args.iter().zip(params).enumerate() {
            let v = self.rvalue(a);
            let ctx = ConvCtx::Arg {
                func: fname,
                index: i + 1,
                param: param_spans.get(i).copied(),
            };
            let v = self.assign_conv(v, p, ctx);
            ok &= !is_err(&v.ty);
            out.push(v);
        }
        ok.then_some(out)
    }

    pub(super) fn user_call(
        &mut self,
        f: FuncRef,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Expr {
        let idx = f.0 as usize;
        let name = callee.name.as_str();
        let (kind, ret) = (self.funcs[idx].kind, self.funcs[idx].ret.clone());
        let decl = self.func_info[idx].decl_span;
        if kind == FuncKind::Kernel {
            self.push(
                Diagnostic::error(callee.span, "kernels are launched with `<<<grid, block>>>`")
                    .with_label(format!("`{name}` is a `__global__` function"))
                    .with_secondary(decl, "declared `__global__` here")
                    .with_help(format!("write `{name}<<<blocks, threads>>>(...)`")),
            );
            self.check_only(args);
            return err_expr(span);
        }
        if kind == FuncKind::Device && !self.in_gpu_code() {
            self.push(
                Diagnostic::error(
                    callee.span,
                    format!("`{name}` is a `__device__` function: only GPU code can call it"),
                )
                .with_label("called from host code")
                .with_secondary(decl, "declared `__device__` here")
                .with_help(format!(
                    "call `{name}` from a kernel, or drop `__device__` to call it from the host"
                )),
            );
            self.check_only(args);
            return err_expr(span);
        }
        if self.in_gpu_code() && kind == FuncKind::Host {
            self.gpu_calls.push((f, span));
        }
        let (params, spans) = self.param_types(f);
        let variadic = self.funcs[idx].variadic;
        if variadic {
            self.variadic_uses.push((f, span));
        }
        let n = params.len();
        if (!variadic && n != args.len()) || args.len() < n {
            self.arity_error(&format!("function `{name}`"), n, args, span, Some(decl));
            self.check_only(args);
            return err_expr(span);
        }
        let fixed = self.convert_args(name, &params, &spans, &args[..n]);
        let extra = self.variadic_args(&args[n..]);
        match (fixed, extra) {
            (Some(mut args), Some(extra)) => {
                args.extend(extra);
                self.note_variadic_pointer_args(f, &args);
                mk(ExprKind::Call { func: f, args }, ret, span)
            }
            _ => err_expr(span),
        }
    }

    /// Parameter types of a function and where each is declared.
    pub(super) fn param_types(&self, f: FuncRef) -> (Vec<CType>, Vec<Span>) {
        let func = &self.funcs[f.0 as usize];
        let tys = func
            .params
            .iter()
            .map(|l| {
                func.locals
                    .get(l.0 as usize)
                    .map_or_else(super::err_ty, |l| l.ty.clone())
            })
            .collect();
        (tys, self.func_info[f.0 as usize].param_spans.clone())
    }

    fn builtin_call(&mut self, callee: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        let name = callee.name.as_str();
        match name {
            "dim3" => return self.dim3_value(args, span),
            "__enzyme_autodiff" => return self.autodiff(args, span),
            "__builtin_va_start" => return self.va_start(args, span),
            "printf" => return self.printf(args, span),
            "fprintf" => return self.fprintf(args, span),
            "sprintf" => return self.sprintf(args, span),
            "snprintf" => return self.snprintf(args, span),
            "vfprintf" => return self.vprintf_family(Intrinsic::Vfprintf, args, span),
            "vsnprintf" => return self.vprintf_family(Intrinsic::Vsnprintf, args, span),
            "scanf" | "fscanf" | "sscanf" => return self.scanf(name, args, span),
            "atomicAdd" => return self.atomic_add(args, span),
            "cudaMalloc" => return self.cuda_malloc(args, span),
            "cudaMemcpy" => return self.cuda_memcpy(args, span),
            _ => {}
        }
        if let Some(e) = self.fp_builtin(callee, args, span) {
            return e;
        }
        let decl = fixed_builtin(name).or_else(|| self.libc_decls.get(name).cloned());
        let Some((b, params, ret)) = decl else {
            self.undeclared_function(callee);
            self.check_only(args);
            return err_expr(span);
        };
        match b {
            Builtin::Intrinsic(Intrinsic::CudaFree | Intrinsic::CudaDeviceSynchronize) => {
                self.host_only(name, callee.span)
            }
            Builtin::Intrinsic(Intrinsic::Barrier) if !self.in_gpu_code() => {
                let d = self.gpu_only_diag(name, callee.span);
                self.push(d);
            }
            _ => {}
        }
        if params.len() != args.len() {
            self.arity_error(&format!("`{name}`"), params.len(), args, span, None);
            self.check_only(args);
            return err_expr(span);
        }
        match self.convert_args(name, &params, &[], args) {
            Some(args) => mk(ExprKind::Builtin { func: b, args }, ret, span),
            None => err_expr(span),
        }
    }

    pub(super) fn undeclared_function(&mut self, callee: &ast::Ident) {
        let name = callee.name.as_str();
        if !self.reported_unknown.insert(name.to_string()) {
            return;
        }
        let mut d = Diagnostic::error(callee.span, format!("call to undeclared function `{name}`"))
            .with_label("not declared before this call");
        if let Some(later) = self.funcs_ahead.get(name).copied() {
            d = d
                .with_secondary(later, "declared here, after this call")
                .with_help(format!(
                    "C needs a declaration before the call: move `{name}` above this function, \
                    or add a prototype of it there"
                ));
        } else if let Some((header, _)) =
            headers::declaring(name).filter(|_| CFn::from_name(name).is_some())
        {
            d = d.with_help(format!(
                "`{name}` is declared in <{header}>: add `#include <{header}>`"
            ));
        } else if let Some(s) = self.suggest(name, &names()) {
            d = d.with_help(format!("did you mean `{s}`?"));
        }
        self.push(d);
    }

    fn host_only(&mut self, name: &str, span: Span) {
        if self.in_gpu_code() {
            self.push(
                Diagnostic::error(span, format!("`{name}` can only be called from host code"))
                    .with_label("called from GPU code")
                    .with_help(
                        "allocate and copy device memory in host code, before and after the launch",
                    ),
            );
        }
    }

    fn atomic_add(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        if args.len() != 2 {
            self.arity_error("`atomicAdd`", 2, args, span, None);
            self.check_only(args);
            return err_expr(span);
        }
        let p = self.rvalue(&args[0]);
        let v = self.rvalue(&args[1]);
        if is_err(&p.ty) || is_err(&v.ty) {
            return err_expr(span);
        }
        let elem = match p.ty.pointee() {
            Some(
                t @ (CType::Int
                | CType::UInt
                | CType::Long
                | CType::ULong
                | CType::Float
                | CType::Double),
            ) => t.clone(),
            _ => {
                let t = self.ty_name(&p.ty);
                self.push(
                    Diagnostic::error(
                        args[0].span,
                        format!(
                            "`atomicAdd` needs a pointer to \
                        a number, but this has type `{t}`"
                        ),
                    )
                    .with_label("not a pointer to a number")
                    .with_help(
                        "pass the address of an `int`, `unsigned`, `long`, \
                            `unsigned long`, `float` or `double`, e.g. `&sum`",
                    ),
                );
                return err_expr(span);
            }
        };
        let v = self.builtin_arg(v, &elem, "atomicAdd", 2);
        if is_err(&v.ty) {
            return err_expr(span);
        }
        mk(
            ExprKind::Builtin {
                func: Builtin::Intrinsic(Intrinsic::AtomicAdd),
                args: vec![p, v],
            },
            elem,
            span,
        )
    }

    fn cuda_malloc(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        self.host_only("cudaMalloc", span);
        if args.len() != 2 {
            self.arity_error("`cudaMalloc`", 2, args, span, None);
            self.check_only(args);
            return err_expr(span);
        }
        let p = self.rvalue(&args[0]);
        let n = self.rvalue(&args[1]);
        if is_err(&p.ty) || is_err(&n.ty) {
            return err_expr(span);
        }
        if !matches!(p.ty.pointee(), Some(CType::Ptr(_))) {
            let t = self.ty_name(&p.ty);
            self.push(
                Diagnostic::error(
                    args[0].span,
                    "the first argument of `cudaMalloc` must be the address of a pointer",
                )
                .with_label(format!("this has type `{t}`"))
                .with_help(
                    "pass the address of a pointer variable, e.g. `cudaMalloc(&d_a, bytes)`",
                ),
            );
            return err_expr(span);
        }
        let p = self.convert(p, &CType::Void.ptr_to().ptr_to());
        let n = self.builtin_arg(n, &CType::Long, "cudaMalloc", 2);
        if is_err(&n.ty) {
            return err_expr(span);
        }
        mk(
            ExprKind::Builtin {
                func: Builtin::Intrinsic(Intrinsic::CudaMalloc),
                args: vec![p, n],
            },
            CType::Int,
            span,
        )
    }

    fn cuda_memcpy(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        self.host_only("cudaMemcpy", span);
        if args.len() != 4 {
            self.arity_error("`cudaMemcpy`", 4, args, span, None);
            self.check_only(args);
            return err_expr(span);
        }
        let kind = match &args[3].kind {
            ast::ExprKind::Ident(k) if k == MEMCPY_KINDS[0] => Some(CopyKind::HostToDevice),
            ast::ExprKind::Ident(k) if k == MEMCPY_KINDS[1] => Some(CopyKind::DeviceToHost),
            ast::ExprKind::Ident(k) if k == MEMCPY_KINDS[2] => Some(CopyKind::DeviceToDevice),
            ast::ExprKind::Error => None,
            _ => {
                self.push(
                    Diagnostic::error(
                        args[3].span,
                        "the last argument of `cudaMemcpy` must \
                        name the direction of the copy",
                    )
                    .with_label("not a `cudaMemcpyKind` constant")
                    .with_help(
                        "write `cudaMemcpyHostToDevice`, \
                            `cudaMemcpyDeviceToHost` or `cudaMemcpyDeviceToDevice`",
                    ),
                );
                None
            }
        };
        let params = [CType::Void.ptr_to(), CType::Void.ptr_to(), CType::Long];
        let converted = self.convert_args("cudaMemcpy", &params, &[], &args[..3]);
        match (kind, converted) {
            (Some(k), Some(args)) => mk(
                ExprKind::Builtin {
                    func: Builtin::Intrinsic(Intrinsic::CudaMemcpy(k)),
                    args,
                },
                CType::Int,
                span,
            ),
            _ => err_expr(span),
        }
    }

    pub(super) fn launch(
        &mut self,
        kernel: &ast::Ident,
        grid: &ast::Expr,
        block: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
    ) -> Expr {
        let name = kernel.name.as_str();
        if self.in_gpu_code() {
            self.push(
                Diagnostic::error(span, "kernels can only be launched from host code")
                    .with_label("launched from GPU code")
                    .with_help(
                        "launch every kernel from the host; dynamic parallelism is not supported",
                    ),
            );
        }
        let f = match self.lookup(name) {
            Some(Sym::Func(f)) if self.funcs[f.0 as usize].kind == FuncKind::Kernel => Some(f),
            Some(Sym::Func(f)) => {
                let decl = self.func_info[f.0 as usize].decl_span;
                self.push(
                    Diagnostic::error(
                        kernel.span,
                        format!("`{name}` is not a kernel; declare it `__global__`"),
                    )
                    .with_label("launched here")
                    .with_secondary(decl, "declared here without `__global__`")
                    .with_help(format!(
                        "write `__global__ void {name}(...)`, or call it as `{name}(...)`"
                    )),
                );
                None
            }
            Some(_) => {
                self.push(
                    Diagnostic::error(
                        kernel.span,
                        format!("`{name}` is not a kernel; declare it `__global__`"),
                    )
                    .with_label("not a `__global__` function"),
                );
                None
            }
            None if is_builtin_name(name) => {
                self.push(
                    Diagnostic::error(
                        kernel.span,
                        format!(
                            "`{name}` is not a kernel; only `__global__` functions can be launched"
                        ),
                    )
                    .with_label("a builtin"),
                );
                None
            }
            None => {
                self.undeclared_function(kernel);
                None
            }
        };
        let g = self.launch_dim(grid);
        let b = self.launch_dim(block);
        let Some(f) = f else {
            self.check_only(args);
            return err_expr(span);
        };
        let (params, spans) = self.param_types(f);
        if params.len() != args.len() {
            let decl = self.func_info[f.0 as usize].decl_span;
            self.arity_error(
                &format!("kernel `{name}`"),
                params.len(),
                args,
                span,
                Some(decl),
            );
            self.check_only(args);
            return err_expr(span);
        }
        let args = self.convert_args(name, &params, &spans, args);
        match (g, b, args) {
            (Some(g), Some(b), Some(args)) => mk(
                ExprKind::Launch {
                    kernel: f,
                    grid: Box::new(g),
                    block: Box::new(b),
                    args,
                },
                CType::Void,
                span,
            ),
            _ => err_expr(span),
        }
    }

    /// A grid or block size: a `dim3`, or an integer `n` meaning `dim3(n, 1, 1)`.
    fn launch_dim(&mut self, e: &ast::Expr) -> Option<Expr> {
        let v = self.rvalue(e);
        if is_err(&v.ty) {
            return None;
        }
        if v.ty == CType::Dim3 {
            return Some(v);
        }
        if v.ty.is_integer() {
            return Some(self.convert(v, &CType::Dim3));
        }
        let t = self.ty_name(&v.ty);
        self.push(
            Diagnostic::error(
                e.span,
                format!(
                    "a launch configuration must be an integer or a `dim3`, but this has type `{t}`"
                ),
            )
            .with_label("expected an integer or a `dim3`")
            .with_help("write a thread count such as `256`, or `dim3(x, y, z)`"),
        );
        None
    }
}
