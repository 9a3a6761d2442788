//! File scope in order, then the whole-program rules: `main`'s
//! signature, each prototype against the definition of the same name, and
//! host functions called from kernels must not fork.

use super::{Checker, Sym, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{self, CType, FuncKind};

impl Checker {
    /// Checks the items in order, freeing each once checked: its HIR has
    /// what later items need, so the tree and the HIR are not both whole
    /// in memory.
    pub(super) fn program(&mut self, p: ast::Program) {
        for item in &p.items {
            match item {
                ast::Item::Func(f) => {
                    self.funcs_ahead
                        .entry(f.name.name.clone())
                        .or_insert(f.name.span);
                }
                ast::Item::Global(d) => {
                    if let ast::TypeSpec::Record(r) = &d.ty.spec
                        && let (Some(tag), Some(_)) = (&r.tag, &r.fields)
                    {
                        self.structs_ahead
                            .entry(tag.name.clone())
                            .or_insert(tag.span);
                    }
                }
                ast::Item::StaticAssert(_) => {}
            }
        }
        for item in p.items {
            match &item {
                ast::Item::Global(d) => self.global_decl(d),
                ast::Item::Func(f) => self.func_item(f),
                ast::Item::StaticAssert(a) => self.static_assert(a),
            }
        }
        self.check_main();
        self.check_gpu_calls();
        self.check_variadic_uses();
        if !self.part {
            self.check_extern_signatures();
        }
    }

    fn check_main(&mut self) {
        let Some(Sym::Func(f)) = self.file_syms.get("main").copied() else {
            if !self.require_main {
                return;
            }
            self.push(
                Diagnostic::error(Span::default(), "the program has no `main` function").with_help(
                    "add `int main() { ... }`; a library (`parc build --emit lib`) needs \
                         none, and `parc check` checks a file without one",
                ),
            );
            return;
        };
        let idx = f.0 as usize;
        let Some(def) = self.func_info[idx].def_span else {
            let decl = self.func_info[idx].decl_span;
            self.push(
                Diagnostic::error(decl, "`main` is declared but never defined")
                    .with_label("declared here")
                    .with_help("add `int main() { ... }`"),
            );
            return;
        };
        let func = &self.funcs[idx];
        let tys: Vec<&CType> = func
            .params
            .iter()
            .filter_map(|l| func.locals.get(l.0 as usize))
            .map(|l| &l.ty)
            .collect();
        let argv = CType::Char.ptr_to().ptr_to();
        let params_ok =
            tys.is_empty() || (tys.len() == 2 && *tys[0] == CType::Int && *tys[1] == argv);
        if func.kind != FuncKind::Host {
            self.push(
                Diagnostic::error(def, "`main` cannot be a kernel or a `__device__` function")
                    .with_label("`main` runs on the host")
                    .with_help("remove `__global__`/`__device__` from `main`"),
            );
        } else if func.ret != CType::Int || !params_ok {
            if is_err(&func.ret) || tys.iter().any(|t| is_err(t)) {
                return;
            }
            let sig = self.signature(f);
            self.push(
                Diagnostic::error(def, "invalid signature for `main`")
                    .with_label(format!("declared as `{sig}`"))
                    .with_help(
                        "use `int main()`, `int main(void)` or `int main(int argc, char** argv)`",
                    ),
            );
        }
    }

    /// A function only declared here is defined in C: C passes a struct
    /// by value in registers or on the stack and returns a small one in
    /// registers, but ParC's calls pass and return structs through
    /// pointers (`parc_ir::cabi`), so such a call would go wrong.
    pub(super) fn check_extern_signatures(&mut self) {
        for (i, f) in self.funcs.iter().enumerate() {
            let info = &self.func_info[i];
            if info.def_span.is_some() || f.kind != hir::FuncKind::Host {
                continue;
            }
            let is_struct = |ty: &CType| matches!(ty, CType::Struct(_));
            let param = f
                .params
                .iter()
                .position(|&p| f.locals.get(p.0 as usize).is_some_and(|l| is_struct(&l.ty)));
            let (span, what) = match param {
                Some(k) => (
                    info.param_spans.get(k).copied().unwrap_or(info.decl_span),
                    "takes a struct by value",
                ),
                None if is_struct(&f.ret) => (info.decl_span, "returns a struct by value"),
                None => continue,
            };
            let d = Diagnostic::error(
                span,
                format!(
                    "`{}` is not defined in this file and {what}: parc cannot call a C function that does",
                    f.name
                ),
            )
            .with_label("a struct by value")
            .with_help("pass and return a pointer to the struct instead, or define the function here");
            self.diags.push(d);
        }
    }

    /// Kernels and device functions may call plain host functions, but only
    /// ones without fork-join parallelism (GPU threads cannot spawn).
    fn check_gpu_calls(&mut self) {
        let calls = std::mem::take(&mut self.gpu_calls);
        for (callee, span) in calls {
            let info = &self.func_info[callee.0 as usize];
            if let Some(fj) = info.fork_join {
                let name = self.funcs[callee.0 as usize].name.clone();
                self.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "`{name}` uses fork-join parallelism and cannot be called from GPU code"
                        ),
                    )
                    .with_label("called from GPU code here")
                    .with_secondary(fj, "the parallel construct is here")
                    .with_help(format!("write a serial version of `{name}` for kernels")),
                );
            }
        }
    }
}
