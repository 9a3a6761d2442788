//! The verifier. This module doc is the list of parir's invariants: every
//! pass maps a module that verifies to a module that verifies, and every
//! consumer (interpreter, AD, backends) may rely on each rule below.
//! Each error names the rule group it breaks, in brackets.
//!
//! SSA form uses **block parameters**, not phis: a branch passes one
//! argument per parameter of its target.
//!
//! # Module `[module]`
//! - Function names are unique in the module; so are global names (calls
//!   and the text form refer to them by name).
//! - A function has a body (a non-empty layout) exactly when its linkage is
//!   not `import`, except a retired one (`local` without a body: a name
//!   for source positions, see `Function::retire`).
//! - A kernel returns nothing.
//!
//! # Gradient requests `[gradient]`
//! For each entry of `Module::grad_requests` (they exist until the AD runs):
//! - the primal function exists, and the AD can differentiate it as asked
//!   (the rule of [`crate::gradient::refusal`]: not a kernel, a body in
//!   the module, no exported gradient of a `__device__` function, no
//!   struct result, at most one `active`);
//! - the gradient function exists, differs from the primal, is a
//!   declaration (`import`, no body: the AD gives it its body) whose
//!   signature is exactly [`gradient_signature`] of the primal's under the
//!   request's activities (one activity per parameter, `dup`/`dupnoneed`
//!   only for pointers, `active` only for floats), unless the rule
//!   refuses the request;
//! - the linkage it is to get is `export` or `local`;
//! - no gradient function is the target of two requests.
//!
//! # Globals `[global]`
//! - The alignment is a power of two.
//! - The initial bytes are no longer than the size (the rest is zero).
//! - Each relocation names an existing global and fits: `offset + 8 <= size`.
//! - A `shared` global (GPU shared memory, one per block) is not `const`,
//!   has no relocations and no non-zero initial bytes: CUDA cannot
//!   initialize shared memory.
//! - An `import` global (defined elsewhere) is in global memory, is not
//!   `local` (C's `static`), and has no initial bytes and no relocations.
//!
//! # Layout `[layout]`
//! - Every block in the layout exists and is listed once; the first is the
//!   entry. Blocks not in the layout are dead and not checked.
//! - Every instruction of a placed block exists and is placed exactly once
//!   (in one block, once).
//! - Every placed block ends in a terminator and has none elsewhere (so it
//!   is not empty).
//! - The entry block's parameters have the signature's parameter types.
//! - Every branch target (`jump`, `brif`, `detach`, `reattach`, `sync`) is
//!   a placed block, and the entry block is no branch's target (its
//!   parameters are the function's arguments).
//!
//! If a block or instruction does not exist or is placed twice, the other
//! checks of that function are skipped: they would only repeat the defect.
//!
//! # SSA `[ssa]`
//! - A placed instruction's result exists and records that instruction as
//!   its definition; a placed block's parameter exists and records that
//!   block and its position.
//! - Every operand exists and is defined by a placed instruction or is a
//!   parameter of a placed block.
//! - In every block reachable from the entry, each operand's definition
//!   dominates its use: a block parameter dominates its whole block; an
//!   instruction's result dominates the later instructions of its block and
//!   the blocks its block strictly dominates. Block-call arguments are used
//!   at the branch. (Uses in unreachable blocks are only checked for
//!   existence: dominance means nothing there, and passes leave such code
//!   for DCE.)
//!
//! # Types `[types]`
//! An instruction defines a value exactly when its kind produces one: every
//! kind but `store`, `launch` and the terminators does, except that a call
//! does when its callee returns a value and an intrinsic when its signature
//! has a result. Then, with `T` the result type:
//! - `iconst`: `T` is an integer type or `ptr`; the immediate is in
//!   canonical form (sign-extended from `T`'s width; an `i1` is 0 or 1).
//! - `fconst`: `T` is a float type; an `f32` constant is exactly
//!   representable in `f32` (or NaN).
//! - `global_addr`, `func_addr`: the global/function exists; `T` is `ptr`.
//! - `fneg`: a float operand, `T` is its type.
//! - Integer binary operators (`iadd` ... `ashr`): both operands have one
//!   integer type (`i1` included, `ptr` excluded: use `ptradd`), and `T` is
//!   that type; except that a shift amount may be any integer type (C
//!   promotes a shift's operands separately). Float operators (`fadd`
//!   ... `fdiv`): both operands have one float type, `T` is that type.
//! - `icmp`: both operands have one integer or `ptr` type; `fcmp`: one
//!   float type; `T` is `i1`.
//! - Casts, from the operand's type `S` to `T`: `sext`/`zext` integer to
//!   strictly wider integer; `trunc` integer to strictly narrower integer;
//!   `sitofp`/`uitofp` integer to float; `fptosi`/`fptoui` float to integer;
//!   `fpext` `f32` to `f64`; `fptrunc` `f64` to `f32`; `ptrtoint` `ptr` to
//!   `i64`; `inttoptr` `i64` to `ptr`.
//! - `select c, a, b`: `c` is `i1`, `a` and `b` have one scalar type, `T`
//!   is it.
//! - Vectors (`f64x2 f32x4 i64x2 i32x4`): `fneg` and the lane-wise binary
//!   operators ([`BinaryOp::is_lanewise`](crate::BinaryOp::is_lanewise))
//!   take two vectors of one type (a shift's amount is no exception) and
//!   make that type; `splat x` makes a vector whose lane type is `x`'s;
//!   `extract_lane v, n` makes `v`'s lane type, `insert_lane v, x, n`
//!   takes `x` of `v`'s lane type and makes `v`'s type, `n` below the
//!   number of lanes; `reduce_OP v` takes a vector whose lane class
//!   (integer or float) is `OP`'s, `OP` one of `iadd imul and or xor fadd
//!   fmul`, and makes its lane type; the lane-wise math intrinsics
//!   ([`Intrinsic::is_lanewise`]: `fmin`, `fmax`) take and make float
//!   vectors as they do floats. No other instruction takes or makes a
//!   vector except `load`, `store` (as the value) and block parameters;
//!   no signature has one (`[signature]`); only host functions have them
//!   (`[gpu]`).
//! - `alloca`: the alignment is a power of two; `T` is `ptr`. An `alloca`
//!   may appear in any block: it is live until the function returns, and
//!   one inside a task is private to that task (so is one in a loop to each
//!   iteration); the front end puts locals in the entry block.
//! - `load`/`store`: the address is a `ptr`; any type may be loaded/stored.
//! - `ptradd p, o`: `p` is `ptr`, `o` is `i64`, `T` is `ptr`.
//! - Intrinsics follow [`Intrinsic::signature`]: the argument count (at
//!   least the fixed ones for the variadic `printf`, whose extra arguments
//!   are promoted: `i32`, `i64`, `f64` or `ptr`), each fixed argument type,
//!   `Result`-typed arguments of the result's type, an `Arith` argument of
//!   type `i32`, `i64`, `f32` or `f64`. An overloaded math function's result
//!   is `f32` or `f64`; `atomic_add`'s result has its value operand's type.
//! - `brif`'s condition is `i1`; each block call passes as many arguments as
//!   its target has parameters, of the same types.
//! - `return` returns a value exactly when the signature has a result, of
//!   that type.
//!
//! # Calls `[call]`
//! - A call names an existing function that is neither a kernel nor
//!   retired (`Function::retire`; so do `func_addr` and `launch`), with as many
//!   arguments as its parameters, of the same types (a `variadic`
//!   declaration takes more, promoted: `i32`, `i64`, `f64` or `ptr`); the
//!   result, if any, has the callee's return type. Only a declaration
//!   (import linkage) is `variadic`.
//! - `call_indirect`'s callee is a `ptr`, in host code.
//! - A launch names an existing kernel, its grid and block dimensions are
//!   `i32`, and its arguments match the kernel's parameters.
//!
//! # GPU `[gpu]`
//! - GPU-only intrinsics ([`Intrinsic::is_gpu_only`]: thread/block ids and
//!   dimensions, `barrier`) appear only in kernels and device functions.
//! - `global_addr` of a `shared` global appears only in kernels and device
//!   functions (shared memory exists only while a block runs).
//! - Device functions are called only from kernels and device functions.
//! - `launch` appears only in host functions.
//! - Kernels and device functions contain no `detach`, `reattach` or `sync`
//!   (ParC has no parallel constructs on the GPU).
//!
//! # Convergence `[convergent]`
//! - A function holding a convergent operation (a `barrier`, or a call of
//!   a function marked `convergent`) is marked `convergent` (see
//!   [`crate::convergent`]; `convergent::infer` sets the marks).
//! - The gradient declaration of a request whose primal is marked is
//!   marked too.
//!
//! # Tapir structure `[tapir]`
//! For `detach within sr, T, C` in block `D`, `reattach within sr, C` and
//! `sync within sr, N`:
//! - `sr` is a sync region of the function.
//! - `T != C`; `T`, `C` and `N` have no block parameters (values cross a
//!   detach, reattach or sync only through memory or dominance).
//! - `T`'s only predecessor is `D`: a task is entered only by its detach.
//!
//! The *task* of the detach is the set of blocks reachable from `T` without
//! going through the out-edge of a block ending in `reattach within _, C`
//! (see [`crate::analysis::tasks`]). Rules T1–T4 are checked for detaches
//! in blocks reachable from the entry:
//!
//! # T1: a task exits only through its reattach `[T1]`
//! - No block of a task ends in `return`.
//! - No block of a task branches to a block outside the task (the
//!   continuation included) except by `reattach within sr, C`, where `sr`
//!   is the detach's region and `C` its continuation. Equivalently, `T`
//!   dominates every block of its task.
//! - Every reachable `reattach` lies in a task, and ends the innermost task
//!   containing it: its continuation is that task's continuation and its
//!   region that task's region.
//!
//! # T2: the continuation receives no SSA value from the task `[T2]`
//! - No instruction outside a task uses a value defined inside it (by an
//!   instruction or block parameter of one of its blocks). Values leave a
//!   task through memory, read after a sync.
//!
//! # T3: sync regions are well scoped `[T3]`
//! - All detaches within one region, and all syncs within it, lie at one
//!   task level: in the same innermost task (or all in the function body).
//!   A task cannot sync a region its parent detaches within, and a parent
//!   cannot sync a region one of its tasks detaches within.
//!
//! # T4: the implicit sync at return is explicit `[T4]`
//! - From a detach's continuation, no `return` is reachable without passing
//!   a `sync` within the detach's region (a ParC function syncs before it
//!   returns, and the front end emits that sync).
//! - Likewise, inside a task, no reattach ending that task is reachable
//!   from the continuation of a detach nested in it without a sync within
//!   the nested detach's region (a spawned function syncs before it
//!   returns, too).
//!
//! Length (over 2,000 lines): the invariants above are the first 190 lines
//! and the unit tests the last 265; the checks between follow this list
//! group by group in one walk of each function, so that every rule is
//! found beside the others of its group and the list stays the one place
//! that states them.

use crate::analysis::{ControlFlowGraph, DominatorTree, TaskTree};
use crate::entities::{Block, FuncId, GlobalId, Inst, SyncRegion, Value};
use crate::function::{
    AddrSpace, FuncKind, Function, Linkage, Module, Signature, ValueDef, gradient_signature,
};
use crate::inst::{BlockCall, CastOp, InstKind};
use crate::intrinsic::{Intrinsic, OperandType};
use crate::print::{inst_to_string, name_ref};
use crate::types::Type;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntitySet, SecondaryMap};
use std::collections::HashMap;
use std::fmt;

/// A broken invariant: where (function, block, instruction as printed) and
/// which rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The function's name (none for module-level and global errors).
    pub func: Option<String>,
    /// The global's name, for `[global]` errors.
    pub global: Option<String>,
    pub block: Option<Block>,
    pub inst: Option<Inst>,
    /// The instruction as the printer writes it.
    pub inst_text: Option<String>,
    /// The rule group: `module`, `gradient`, `global`, `layout`, `ssa`,
    /// `types`, `call`, `gpu`, `convergent`, `tapir`, `T1`, `T2`, `T3` or
    /// `T4`.
    pub rule: &'static str,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut place = Vec::new();
        if let Some(g) = &self.global {
            place.push(format!("global {}", name_ref(g)));
        }
        if let Some(func) = &self.func {
            place.push(name_ref(func));
        }
        if let Some(b) = self.block {
            place.push(b.to_string());
        }
        if let Some(t) = &self.inst_text {
            place.push(format!("`{t}`"));
        }
        if !place.is_empty() {
            write!(f, "in {}: ", place.join(", "))?;
        }
        write!(f, "{} [{}]", self.message, self.rule)
    }
}

impl std::error::Error for VerifyError {}

/// Checks every invariant of the module doc; all errors are reported.
pub fn verify_module(module: &Module) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    check_names(module, &mut errors);
    for g in module.globals.keys() {
        check_global(module, g, &mut errors);
    }
    for func in module.funcs.values() {
        FuncVerifier::new(module, func, &mut errors).run();
    }
    check_gradients(module, &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn check_gradients(module: &Module, errors: &mut Vec<VerifyError>) {
    let mut seen: HashMap<FuncId, usize> = HashMap::new();
    for (i, req) in module.grad_requests.iter().enumerate() {
        let mut err = |func: Option<&Function>, message: String| {
            errors.push(VerifyError {
                func: func.map(|f| f.name.clone()),
                ..module_error("gradient", format!("gradient request {i}: {message}"))
            })
        };
        let primal = module.funcs.get(req.primal);
        let grad = module.funcs.get(req.grad);
        if primal.is_none() {
            err(None, format!("the primal {} does not exist", req.primal));
        }
        // What the AD cannot differentiate (the user's error, which the
        // driver reports at the request's position before verifying).
        let refused = crate::gradient::refusal(module, req);
        if let Some(r) = &refused {
            err(primal, r.message.clone());
        }
        let Some(g) = grad else {
            err(None, format!("the gradient {} does not exist", req.grad));
            continue;
        };
        if req.grad == req.primal {
            err(Some(g), "the gradient is the primal itself".into());
            continue;
        }
        if g.linkage != Linkage::Import || !g.is_declaration() {
            err(
                Some(g),
                "the gradient must be a declaration (`import`) until the AD runs".into(),
            );
        }
        if req.linkage == Linkage::Import {
            err(
                Some(g),
                "the gradient's linkage must be `export` or `local`".into(),
            );
        }
        if let Some(first) = seen.insert(req.grad, i) {
            err(
                Some(g),
                format!("request {first} already asks for this gradient"),
            );
        }
        if let Some(p) = primal
            && p.convergent
            && !g.convergent
        {
            err(
                Some(g),
                format!(
                    "the primal {} is `convergent`, so its gradient must be too",
                    name_ref(&p.name)
                ),
            );
        }
        // A refused request's signature is a placeholder.
        let Some(p) = primal.filter(|_| refused.is_none()) else {
            continue;
        };
        match gradient_signature(&p.sig, &req.activities) {
            Err(why) => err(Some(p), format!("activities do not fit: {why}")),
            Ok(sig) if sig != g.sig => err(
                Some(g),
                format!(
                    "the gradient's signature is {}, but {} under these activities gives {}",
                    signature_text(&g.sig),
                    name_ref(&p.name),
                    signature_text(&sig)
                ),
            ),
            Ok(_) => {}
        }
    }
}

/// `(T, ...) -> T`, as the printer writes a header.
fn signature_text(sig: &Signature) -> String {
    let params: Vec<&str> = sig.params.iter().map(|t| t.name()).collect();
    match sig.ret {
        Some(r) => format!("({}) -> {r}", params.join(", ")),
        None => format!("({})", params.join(", ")),
    }
}

/// Checks one function of the module (the module-level rules about it
/// included, name uniqueness excepted).
pub fn verify_function(module: &Module, func: FuncId) -> Result<(), Vec<VerifyError>> {
    match module.funcs.get(func) {
        Some(f) => verify_function_in(module, f),
        None => Err(vec![VerifyError {
            func: None,
            global: None,
            block: None,
            inst: None,
            inst_text: None,
            rule: "module",
            message: format!("no function {func} in the module"),
        }]),
    }
}

/// Checks a function against `module`, which provides callees and globals;
/// the function need not be in the module (a pass may hold it apart).
pub fn verify_function_in(module: &Module, func: &Function) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    FuncVerifier::new(module, func, &mut errors).run();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn module_error(rule: &'static str, message: String) -> VerifyError {
    VerifyError {
        func: None,
        global: None,
        block: None,
        inst: None,
        inst_text: None,
        rule,
        message,
    }
}

fn check_names(module: &Module, errors: &mut Vec<VerifyError>) {
    let mut seen: HashMap<&str, FuncId> = HashMap::new();
    for (id, f) in module.funcs.iter() {
        if let Some(first) = seen.insert(&f.name, id) {
            errors.push(module_error(
                "module",
                format!(
                    "functions {first} and {id} are both named {}",
                    name_ref(&f.name)
                ),
            ));
        }
    }
    let mut seen: HashMap<&str, GlobalId> = HashMap::new();
    for (id, g) in module.globals.iter() {
        if let Some(first) = seen.insert(&g.name, id) {
            errors.push(module_error(
                "module",
                format!(
                    "globals {first} and {id} are both named {}",
                    name_ref(&g.name)
                ),
            ));
        }
    }
}

fn check_global(module: &Module, g: GlobalId, errors: &mut Vec<VerifyError>) {
    let data = &module.globals[g];
    let mut err = |message: String| {
        errors.push(VerifyError {
            global: Some(data.name.clone()),
            ..module_error("global", message)
        })
    };
    if !data.align.is_power_of_two() {
        err(format!("alignment {} is not a power of two", data.align));
    }
    if data.init.len() as u64 > data.size {
        err(format!(
            "{} initial bytes do not fit in its size of {}",
            data.init.len(),
            data.size
        ));
    }
    for &(offset, target, _) in &data.relocs {
        if !module.globals.is_valid(target) {
            err(format!(
                "relocation at offset {offset} points to {target}, which does not exist"
            ));
        }
        if offset.checked_add(8).is_none_or(|end| end > data.size) {
            err(format!(
                "relocation at offset {offset} does not fit in its size of {}",
                data.size
            ));
        }
    }
    for &(offset, f) in &data.func_relocs {
        match module.funcs.get(f) {
            None => err(format!(
                "function relocation at offset {offset} points to {f}, which does not exist"
            )),
            Some(g) if g.is_retired() => err(format!(
                "function relocation at offset {offset} points to {}, which was retired",
                crate::print::name_ref(&g.name)
            )),
            Some(_) => {}
        }
        if offset.checked_add(8).is_none_or(|end| end > data.size) {
            err(format!(
                "function relocation at offset {offset} does not fit in its size of {}",
                data.size
            ));
        }
    }
    if data.is_import
        && (data.space == AddrSpace::Shared
            || data.is_local
            || !data.init.is_empty()
            || !data.relocs.is_empty()
            || !data.func_relocs.is_empty())
    {
        err(
            "an imported global has no storage here: no initial value, not shared, not local"
                .into(),
        );
    }
    if data.space == AddrSpace::Shared {
        if data.is_const {
            err("a shared global cannot be const".into());
        }
        if !data.relocs.is_empty()
            || !data.func_relocs.is_empty()
            || data.init.iter().any(|&b| b != 0)
        {
            err("a shared global cannot have an initial value".into());
        }
    }
}

struct FuncVerifier<'a> {
    module: &'a Module,
    func: &'a Function,
    errors: &'a mut Vec<VerifyError>,
    /// Where each placed instruction is: its block and index there.
    inst_block: SecondaryMap<Inst, PackedOption<Block>>,
    inst_index: SecondaryMap<Inst, u32>,
    placed: EntitySet<Block>,
}

impl<'a> FuncVerifier<'a> {
    fn new(module: &'a Module, func: &'a Function, errors: &'a mut Vec<VerifyError>) -> Self {
        FuncVerifier {
            module,
            func,
            errors,
            inst_block: SecondaryMap::new(),
            inst_index: SecondaryMap::new(),
            placed: EntitySet::new(),
        }
    }

    fn report(
        &mut self,
        rule: &'static str,
        block: Option<Block>,
        inst: Option<Inst>,
        msg: String,
    ) {
        let inst_text = inst
            .filter(|&i| self.func.insts.is_valid(i))
            .map(|i| inst_to_string(self.module, self.func, i));
        self.errors.push(VerifyError {
            func: Some(self.func.name.clone()),
            global: None,
            block,
            inst,
            inst_text,
            rule,
            message: msg,
        });
    }

    fn at(&mut self, rule: &'static str, block: Block, inst: Inst, msg: String) {
        self.report(rule, Some(block), Some(inst), msg);
    }

    fn ty(&self, v: Value) -> Option<Type> {
        self.func.values.get(v).map(|d| d.ty)
    }

    /// The terminator instruction of a placed block, if it has one.
    fn term(&self, b: Block) -> Option<(Inst, &'a InstKind)> {
        let func = self.func;
        let &i = func.blocks.get(b)?.insts.last()?;
        let kind = &func.insts.get(i)?.kind;
        kind.is_terminator().then_some((i, kind))
    }

    fn run(mut self) {
        let func = self.func;
        // Module-level rules about this function.
        let has_body = !func.layout.is_empty();
        if has_body == (func.linkage == Linkage::Import) && !func.is_retired() {
            let msg = if has_body {
                "an imported function cannot have a body"
            } else {
                "a function without a body must have import linkage"
            };
            self.report("module", None, None, msg.into());
        }
        if func.variadic && has_body {
            self.report(
                "module",
                None,
                None,
                "only a declaration can be variadic".into(),
            );
        }
        if func.kind == FuncKind::Kernel && func.sig.ret.is_some() {
            self.report(
                "module",
                None,
                None,
                "a kernel cannot return a value".into(),
            );
        }
        if func
            .sig
            .params
            .iter()
            .chain(&func.sig.ret)
            .any(|t| t.is_vector())
        {
            self.report(
                "signature",
                None,
                None,
                "vector types are not allowed in a signature".into(),
            );
        }
        if !has_body {
            return;
        }
        if !self.check_layout() {
            return;
        }
        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(&cfg);
        let tasks = TaskTree::compute(func, &cfg, &domtree);
        for &b in cfg.blocks() {
            self.check_block_params(b);
            for (i, &inst) in func.blocks[b].insts.iter().enumerate() {
                self.check_inst(b, inst);
                if cfg.is_reachable(b) {
                    self.check_uses(b, inst, i as u32, &domtree, &tasks);
                }
            }
        }
        self.check_tapir(&cfg, &tasks);
    }

    /// Layout rules; false if the layout is too broken to analyse further.
    fn check_layout(&mut self) -> bool {
        let func = self.func;
        let mut sound = true;
        let mut order = Vec::new();
        for &b in &func.layout {
            if !func.blocks.is_valid(b) {
                self.report(
                    "layout",
                    None,
                    None,
                    format!("{b} in the layout does not exist"),
                );
                sound = false;
            } else if !self.placed.insert(b) {
                self.report(
                    "layout",
                    Some(b),
                    None,
                    format!("{b} is listed twice in the layout"),
                );
                sound = false;
            } else {
                order.push(b);
            }
        }
        for &b in &order {
            let insts = &func.blocks[b].insts;
            if insts.is_empty() {
                self.report(
                    "layout",
                    Some(b),
                    None,
                    "the block is empty; every block ends in a terminator".into(),
                );
            }
            for (i, &inst) in insts.iter().enumerate() {
                let Some(data) = func.insts.get(inst) else {
                    self.report(
                        "layout",
                        Some(b),
                        None,
                        format!("{inst} is placed but does not exist"),
                    );
                    sound = false;
                    continue;
                };
                if let Some(other) = self.inst_block[inst].expand() {
                    self.at(
                        "layout",
                        b,
                        inst,
                        format!("{inst} is placed twice (also in {other})"),
                    );
                    sound = false;
                    continue;
                }
                self.inst_block[inst] = b.into();
                self.inst_index[inst] = i as u32;
                let last = i + 1 == insts.len();
                match (data.kind.is_terminator(), last) {
                    (true, false) => self.at(
                        "layout",
                        b,
                        inst,
                        "a terminator in the middle of the block".into(),
                    ),
                    (false, true) => self.at(
                        "layout",
                        b,
                        inst,
                        "the block does not end in a terminator".into(),
                    ),
                    _ => {}
                }
            }
        }
        let sorted = func.noalias.windows(2).all(|w| w[0] < w[1]);
        let on_pointers = func
            .noalias
            .iter()
            .all(|&i| func.sig.params.get(i as usize) == Some(&Type::Ptr));
        if !sorted || !on_pointers {
            self.report(
                "signature",
                None,
                None,
                format!(
                    "`noalias` parameters {:?} must be distinct `ptr` parameters, in order",
                    func.noalias
                ),
            );
        }
        if !func.param_names.is_empty() && func.param_names.len() != func.sig.params.len() {
            self.report(
                "signature",
                None,
                None,
                format!(
                    "{} parameter names for {} parameters",
                    func.param_names.len(),
                    func.sig.params.len()
                ),
            );
        }
        if let Some(&entry) = order.first() {
            let params: Vec<Option<Type>> = func.blocks[entry]
                .params
                .iter()
                .map(|&p| self.ty(p))
                .collect();
            let want: Vec<Option<Type>> = func.sig.params.iter().map(|&t| Some(t)).collect();
            if params != want {
                self.report(
                    "layout",
                    Some(entry),
                    None,
                    format!(
                        "the entry block's parameters ({}) differ from the signature's ({})",
                        type_list(&params),
                        type_list(&want)
                    ),
                );
            }
        }
        sound
    }

    fn check_block_params(&mut self, b: Block) {
        for (n, &p) in self.func.blocks[b].params.iter().enumerate() {
            match self.func.values.get(p) {
                None => self.report(
                    "ssa",
                    Some(b),
                    None,
                    format!("parameter {p} does not exist"),
                ),
                Some(d) if d.def != ValueDef::Param(b, n as u32) => self.report(
                    "ssa",
                    Some(b),
                    None,
                    format!(
                        "parameter {p} records another definition ({})",
                        describe_def(d.def)
                    ),
                ),
                Some(_) => {}
            }
        }
    }

    /// True if `v` exists and is defined where it says it is.
    fn well_defined(&self, v: Value) -> bool {
        let func = self.func;
        match func.values.get(v).map(|d| d.def) {
            None => false,
            Some(ValueDef::Result(i)) => {
                self.inst_block[i].is_some()
                    && func.insts.get(i).is_some_and(|d| d.result == Some(v))
            }
            Some(ValueDef::Param(b, n)) => {
                self.placed.contains(b) && func.blocks[b].params.get(n as usize) == Some(&v)
            }
        }
    }

    /// Where `v` is defined: its block and, for a result, the index of the
    /// instruction (none for a block parameter).
    fn def_site(&self, v: Value) -> (Block, Option<u32>) {
        match self.func.values[v].def {
            ValueDef::Result(i) => (
                self.inst_block[i].expect("well-defined values are placed"),
                Some(self.inst_index[i]),
            ),
            ValueDef::Param(b, _) => (b, None),
        }
    }

    /// SSA dominance and T2 for the operands of one instruction in a
    /// reachable block.
    fn check_uses(
        &mut self,
        b: Block,
        inst: Inst,
        index: u32,
        domtree: &DominatorTree,
        tasks: &TaskTree,
    ) {
        let mut operands = self.func.insts[inst].kind.operands();
        // One report per value, however often the instruction uses it.
        operands.sort();
        operands.dedup();
        for v in operands {
            if !self.well_defined(v) {
                continue; // reported by check_inst
            }
            let (db, di) = self.def_site(v);
            if let Some(t) = tasks.innermost(db)
                && !tasks.contains(t, b)
            {
                let d = tasks.data(t).detach_block;
                self.at(
                    "T2",
                    b,
                    inst,
                    format!(
                        "uses {v}, defined inside the task detached in {d}, outside that task; values leave a task only through memory"
                    ),
                );
                continue;
            }
            let ok = match di {
                None => domtree.dominates(db, b),
                Some(di) if db == b => di < index,
                Some(_) => domtree.strictly_dominates(db, b),
            };
            if !ok {
                let msg = if db == b {
                    format!("uses {v} before its definition")
                } else {
                    format!("uses {v}, whose definition in {db} does not dominate this use")
                };
                self.at("ssa", b, inst, msg);
            }
        }
    }

    fn check_inst(&mut self, b: Block, inst: Inst) {
        let func = self.func;
        let data = &func.insts[inst];
        let kind = &data.kind;

        // The result records this instruction.
        if let Some(r) = data.result {
            match func.values.get(r) {
                None => self.at("ssa", b, inst, format!("result {r} does not exist")),
                Some(d) if d.def != ValueDef::Result(inst) => self.at(
                    "ssa",
                    b,
                    inst,
                    format!(
                        "result {r} records another definition ({})",
                        describe_def(d.def)
                    ),
                ),
                Some(_) => {}
            }
        }
        // Operands exist and are defined by placed code.
        let mut operands_ok = true;
        let mut operands = kind.operands();
        operands.sort();
        operands.dedup();
        for v in operands {
            if !func.values.is_valid(v) {
                self.at("ssa", b, inst, format!("uses {v}, which does not exist"));
                operands_ok = false;
            } else if !self.well_defined(v) {
                self.at(
                    "ssa",
                    b,
                    inst,
                    format!(
                        "uses {v}, which is not defined by a placed instruction or block parameter"
                    ),
                );
            }
        }
        // Branch targets are placed blocks other than the entry.
        let entry = func.layout[0];
        for s in kind.successors() {
            if !self.placed.contains(s) {
                self.at(
                    "layout",
                    b,
                    inst,
                    format!("branches to {s}, which is not in the layout"),
                );
            } else if s == entry {
                self.at(
                    "layout",
                    b,
                    inst,
                    format!("branches to the entry block {s}"),
                );
            }
        }
        if !operands_ok {
            return; // types of missing values mean nothing
        }
        let result_ty = data.result.and_then(|r| self.ty(r));
        if let Some(expected) = self.expects_result(kind) {
            match (expected, data.result.is_some()) {
                (true, false) => {
                    return self.at(
                        "types",
                        b,
                        inst,
                        format!("`{}` must define a value", crate::print::opcode_name(kind)),
                    );
                }
                (false, true) => {
                    return self.at(
                        "types",
                        b,
                        inst,
                        format!("`{}` defines no value", crate::print::opcode_name(kind)),
                    );
                }
                _ => {}
            }
        }
        self.check_types(b, inst, kind, result_ty);
    }

    /// Whether `kind` defines a value; none if that depends on a callee
    /// that does not exist (reported elsewhere).
    fn expects_result(&self, kind: &InstKind) -> Option<bool> {
        use InstKind::*;
        Some(match kind {
            Store { .. } | Launch { .. } => false,
            Call { func, .. } => self.module.funcs.get(*func)?.sig.ret.is_some(),
            // The result type is the call's: with or without one is fine.
            CallIndirect { .. } => return None,
            Intrinsic { op, .. } => op.signature().1.is_some(),
            k => !k.is_terminator(),
        })
    }

    fn check_types(&mut self, b: Block, inst: Inst, kind: &InstKind, rt: Option<Type>) {
        use InstKind::*;
        let name = crate::print::opcode_name(kind);
        let mut errs: Vec<(&'static str, String)> = Vec::new();
        let mut e = |rule: &'static str, msg: String| errs.push((rule, msg));
        let ty = |v: Value| self.func.values[v].ty;
        let is_host = self.func.kind == FuncKind::Host;
        if !is_host
            && (rt.is_some_and(Type::is_vector)
                || kind.operands().iter().any(|&v| ty(v).is_vector()))
        {
            e(
                "gpu",
                format!("vector value in a kernel or device function (`{name}`)"),
            );
        }
        match kind {
            Iconst(imm) => match rt {
                Some(t) if t.is_int() => {
                    let canon = crate::builder::sign_extend(*imm, t);
                    if canon != *imm {
                        e(
                            "types",
                            format!(
                                "immediate {imm} is not in canonical form for {t} (that is {canon})"
                            ),
                        );
                    }
                }
                Some(Type::Ptr) | None => {}
                Some(t) => e(
                    "types",
                    format!("`iconst` makes an integer or ptr, not {t}"),
                ),
            },
            Fconst(x) => match rt {
                Some(Type::F32) => {
                    if !x.is_nan() && (*x as f32) as f64 != *x {
                        e("types", format!("{x:?} is not representable as f32"));
                    }
                }
                Some(Type::F64) | None => {}
                Some(t) => e("types", format!("`fconst` makes a float, not {t}")),
            },
            GlobalAddr(g) => {
                match self.module.globals.get(*g) {
                    None => e("types", format!("{g} does not exist")),
                    Some(gd) if gd.space == AddrSpace::Shared && is_host => e(
                        "gpu",
                        format!(
                            "shared global {} used in a host function",
                            name_ref(&gd.name)
                        ),
                    ),
                    Some(_) => {}
                }
                want_result(&mut e, &name, rt, Type::Ptr);
            }
            FuncAddr(f) => {
                match self.module.funcs.get(*f) {
                    None => e("call", format!("{f} does not exist")),
                    Some(g) if g.is_retired() => e(
                        "call",
                        format!(
                            "takes the address of {}, which was retired",
                            name_ref(&g.name)
                        ),
                    ),
                    Some(_) => {}
                }
                want_result(&mut e, &name, rt, Type::Ptr);
            }
            Unary(_, a) => {
                if !ty(*a).lane_type().is_float() {
                    e(
                        "types",
                        format!("`{name}` needs a float operand, not {}", ty(*a)),
                    );
                }
                want_result(&mut e, &name, rt, ty(*a));
            }
            Binary(op, a, bv) => {
                let (ta, tb) = (ty(*a), ty(*bv));
                let shift = matches!(
                    op,
                    crate::inst::BinaryOp::Shl
                        | crate::inst::BinaryOp::Lshr
                        | crate::inst::BinaryOp::Ashr
                );
                let class_ok = |t: Type| {
                    if op.is_float() {
                        t.lane_type().is_float()
                    } else {
                        t.lane_type().is_int()
                    }
                };
                let class = if op.is_float() { "float" } else { "integer" };
                if (ta.is_vector() || tb.is_vector()) && !op.is_lanewise() {
                    e(
                        "types",
                        format!("`{name}` does not work on vectors ({ta} and {tb})"),
                    );
                } else if !class_ok(ta) || !class_ok(tb) {
                    e(
                        "types",
                        format!("`{name}` needs {class} operands, not {ta} and {tb}"),
                    );
                } else if ta != tb && (!shift || ta.is_vector() || tb.is_vector()) {
                    e(
                        "types",
                        format!("`{name}` operands have different types, {ta} and {tb}"),
                    );
                }
                want_result(&mut e, &name, rt, ta);
            }
            Icmp(_, a, bv) => {
                let (ta, tb) = (ty(*a), ty(*bv));
                let lanes_int = matches!(ta, Type::I64x2 | Type::I32x4);
                if ta != tb || !(ta.is_int() || ta == Type::Ptr || lanes_int) {
                    e(
                        "types",
                        format!(
                            "`icmp` needs two integers, pointers or integer vectors of one type, \
                             not {ta} and {tb}"
                        ),
                    );
                }
                want_result(&mut e, &name, rt, ta.compare_result());
            }
            Fcmp(_, a, bv) => {
                let (ta, tb) = (ty(*a), ty(*bv));
                let lanes_float = matches!(ta, Type::F64x2 | Type::F32x4);
                if ta != tb || !(ta.is_float() || lanes_float) {
                    e(
                        "types",
                        format!(
                            "`fcmp` needs two floats or float vectors of one type, not {ta} and {tb}"
                        ),
                    );
                }
                want_result(&mut e, &name, rt, ta.compare_result());
            }
            Cast(op, a) => {
                if let Some(to) = rt {
                    let from = ty(*a);
                    if !cast_ok(*op, from, to) {
                        e(
                            "types",
                            format!(
                                "`{name}` cannot convert {from} to {to} ({})",
                                cast_rule(*op)
                            ),
                        );
                    }
                }
            }
            Select(c, a, bv) => {
                // A scalar condition picks a scalar; a mask (a vector
                // compare's result) picks lane by lane.
                if ty(*c) != ty(*a).compare_result() {
                    e(
                        "types",
                        format!(
                            "`select` of {} needs a condition of type {}, not {}",
                            ty(*a),
                            ty(*a).compare_result(),
                            ty(*c)
                        ),
                    );
                }
                if ty(*a) != ty(*bv) {
                    e(
                        "types",
                        format!(
                            "`select` operands have different types, {} and {}",
                            ty(*a),
                            ty(*bv)
                        ),
                    );
                }
                want_result(&mut e, &name, rt, ty(*a));
            }
            Splat(a) => match rt {
                Some(v) if v.is_vector() && v.lane_type() == ty(*a) => {}
                Some(v) => e("types", format!("`splat` of {} cannot make {v}", ty(*a))),
                None => {}
            },
            ExtractLane(v, lane) => {
                let tv = ty(*v);
                if !tv.is_vector() {
                    e("types", format!("`extract_lane` of {tv}, not a vector"));
                } else if u32::from(*lane) >= tv.lanes() {
                    e(
                        "types",
                        format!("lane {lane} of {tv}, which has {}", tv.lanes()),
                    );
                }
                want_result(&mut e, &name, rt, tv.lane_type());
            }
            InsertLane(v, x, lane) => {
                let (tv, tx) = (ty(*v), ty(*x));
                if !tv.is_vector() || tv.lane_type() != tx {
                    e(
                        "types",
                        format!("`insert_lane` of {tx} into {tv}: needs a vector of {tx}"),
                    );
                } else if u32::from(*lane) >= tv.lanes() {
                    e(
                        "types",
                        format!("lane {lane} of {tv}, which has {}", tv.lanes()),
                    );
                }
                want_result(&mut e, &name, rt, tv);
            }
            Reduce(op, v) => {
                let tv = ty(*v);
                let lane = tv.lane_type();
                let class_ok = if op.is_float() {
                    lane.is_float()
                } else {
                    lane.is_int()
                };
                if !tv.is_vector() || !op.is_reduction() || !class_ok {
                    e("types", format!("`{name}` of {tv}"));
                }
                want_result(&mut e, &name, rt, lane);
            }
            Alloca { align, .. } => {
                if !align.is_power_of_two() {
                    e("types", format!("alignment {align} is not a power of two"));
                }
                want_result(&mut e, &name, rt, Type::Ptr);
            }
            Load(p) => want_ptr(&mut e, "address", ty(*p)),
            Store { ptr, .. } => want_ptr(&mut e, "address", ty(*ptr)),
            PtrAdd(p, o) => {
                want_ptr(&mut e, "base", ty(*p));
                if ty(*o) != Type::I64 {
                    e(
                        "types",
                        format!("`ptradd` offset must be i64, not {}", ty(*o)),
                    );
                }
                want_result(&mut e, &name, rt, Type::Ptr);
            }
            Call { func, args } => match self.module.funcs.get(*func) {
                None => e("call", format!("calls {func}, which does not exist")),
                Some(callee) if callee.is_retired() => e(
                    "call",
                    format!("calls {}, which was retired", name_ref(&callee.name)),
                ),
                Some(callee) => {
                    let callee_name = name_ref(&callee.name);
                    match callee.kind {
                        FuncKind::Kernel => e(
                            "call",
                            format!("calls kernel {callee_name}; kernels are launched, not called"),
                        ),
                        FuncKind::Device if is_host => e(
                            "gpu",
                            format!("host code calls device function {callee_name}"),
                        ),
                        _ => {}
                    }
                    let fixed = callee.sig.params.len();
                    if callee.variadic && args.len() >= fixed {
                        check_args(
                            &mut e,
                            &callee_name,
                            &callee.sig.params,
                            &args[..fixed],
                            &ty,
                        );
                        for &a in &args[fixed..] {
                            let t = ty(a);
                            if !matches!(t, Type::I32 | Type::I64 | Type::F64 | Type::Ptr) {
                                e(
                                    "call",
                                    format!(
                                        "variadic argument {a} of {callee_name} is {t}; promote it to i32, i64, f64 or ptr"
                                    ),
                                );
                            }
                        }
                    } else {
                        check_args(&mut e, &callee_name, &callee.sig.params, args, &ty);
                    }
                    if callee.convergent && !self.func.convergent {
                        e(
                            "convergent",
                            format!(
                                "calls convergent {callee_name}, but the function is not marked `convergent`"
                            ),
                        );
                    }
                    if let (Some(want), Some(got)) = (callee.sig.ret, rt)
                        && want != got
                    {
                        e(
                            "call",
                            format!("result is {got}, but {callee_name} returns {want}"),
                        );
                    }
                }
            },
            CallIndirect { callee, .. } => {
                want_ptr(&mut e, "callee", ty(*callee));
                if !is_host {
                    e("gpu", "`call_indirect` outside host code".into());
                }
            }
            Launch {
                kernel,
                grid,
                block,
                args,
            } => {
                if !is_host {
                    e("gpu", "`launch` outside host code".into());
                }
                match self.module.funcs.get(*kernel) {
                    None => e("call", format!("launches {kernel}, which does not exist")),
                    Some(k) if k.is_retired() => e(
                        "call",
                        format!("launches {}, which was retired", name_ref(&k.name)),
                    ),
                    Some(k) => {
                        let kname = name_ref(&k.name);
                        if k.kind != FuncKind::Kernel {
                            e("call", format!("launches {kname}, which is not a kernel"));
                        }
                        check_args(&mut e, &kname, &k.sig.params, args, &ty);
                    }
                }
                for (what, dims) in [("grid", grid), ("block", block)] {
                    for (d, &v) in ["x", "y", "z"].iter().zip(dims.iter()) {
                        if ty(v) != Type::I32 {
                            e(
                                "call",
                                format!("{what} dimension {d} must be i32, not {}", ty(v)),
                            );
                        }
                    }
                }
            }
            Intrinsic { op, args } => {
                if op.is_gpu_only() && is_host {
                    e(
                        "gpu",
                        format!("GPU-only intrinsic `{name}` in a host function"),
                    );
                }
                if op.is_convergent() && !self.func.convergent {
                    e(
                        "convergent",
                        format!("`{name}` in a function not marked `convergent`"),
                    );
                }
                check_intrinsic(&mut e, *op, args, rt, &ty);
            }
            Jump(dest) => self.check_block_call(&mut e, dest),
            Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                if ty(*cond) != Type::I1 {
                    e(
                        "types",
                        format!("`brif` condition must be i1, not {}", ty(*cond)),
                    );
                }
                self.check_block_call(&mut e, then_dest);
                self.check_block_call(&mut e, else_dest);
            }
            Return(v) => match (self.func.sig.ret, v) {
                (None, None) => {}
                (Some(want), Some(v)) if ty(*v) == want => {}
                (Some(want), Some(v)) => e(
                    "types",
                    format!("returns {}, but the function returns {want}", ty(*v)),
                ),
                (Some(want), None) => e(
                    "types",
                    format!("returns nothing, but the function returns {want}"),
                ),
                (None, Some(_)) => e(
                    "types",
                    "returns a value from a function that returns nothing".into(),
                ),
            },
            Detach { .. } | Reattach { .. } | Sync { .. } => {
                if !is_host {
                    e("gpu", format!("`{name}` in a kernel or device function"));
                }
            }
            Unreachable => {}
        }
        for (rule, msg) in errs {
            self.at(rule, b, inst, msg);
        }
    }

    fn check_block_call(&self, e: &mut impl FnMut(&'static str, String), call: &BlockCall) {
        let Some(target) = self.func.blocks.get(call.block) else {
            return; // reported as a layout error
        };
        let want: Vec<Type> = target.params.iter().filter_map(|&p| self.ty(p)).collect();
        let got: Vec<Type> = call.args.iter().map(|&a| self.func.values[a].ty).collect();
        if want != got {
            e(
                "types",
                format!(
                    "passes ({}) to {}, whose parameters are ({})",
                    join_types(&got),
                    call.block,
                    join_types(&want)
                ),
            );
        }
    }

    /// The Tapir rules (structure, T1, T3, T4; T2 is checked with the uses).
    fn check_tapir(&mut self, cfg: &ControlFlowGraph, tasks: &TaskTree) {
        let func = self.func;
        // Structure, for every placed block.
        for &b in cfg.blocks() {
            let Some((inst, kind)) = self.term(b) else {
                continue;
            };
            let (region, no_params): (SyncRegion, Vec<Block>) = match *kind {
                InstKind::Detach { region, task, cont } => {
                    if task == cont {
                        self.at(
                            "tapir",
                            b,
                            inst,
                            "the task and the continuation are the same block".into(),
                        );
                    } else if self.placed.contains(task) {
                        let preds = cfg.preds(task);
                        if preds.iter().any(|&p| p != b) {
                            self.at(
                                "tapir",
                                b,
                                inst,
                                format!(
                                    "task block {task} has other predecessors ({}); a task is entered only by its detach",
                                    block_list(preds.iter().copied().filter(|&p| p != b))
                                ),
                            );
                        }
                    }
                    (region, vec![task, cont])
                }
                InstKind::Reattach { region, cont } => (region, vec![cont]),
                InstKind::Sync { region, next } => (region, vec![next]),
                _ => continue,
            };
            if !func.sync_regions.is_valid(region) {
                self.at(
                    "tapir",
                    b,
                    inst,
                    format!("sync region {region} does not exist"),
                );
            }
            for t in no_params {
                if func.blocks.get(t).is_some_and(|d| !d.params.is_empty()) {
                    self.at(
                        "tapir",
                        b,
                        inst,
                        format!(
                            "{t} is the target of a Tapir terminator and cannot have parameters"
                        ),
                    );
                }
            }
        }

        // T1.
        for t in tasks.tasks() {
            let task = tasks.data(t);
            let d = task.detach_block;
            if !cfg.is_reachable(d) {
                continue;
            }
            for &r in &task.returns {
                if let Some((inst, _)) = self.term(r) {
                    self.at(
                        "T1",
                        r,
                        inst,
                        format!("`return` inside the task detached in {d}; a task exits only through its reattach"),
                    );
                }
            }
            for &(from, to) in &task.escapes {
                let Some((inst, kind)) = self.term(from) else {
                    continue;
                };
                // A stray reattach is reported below, once.
                if matches!(kind, InstKind::Reattach { .. }) {
                    continue;
                }
                self.at(
                    "T1",
                    from,
                    inst,
                    format!(
                        "branches from the task detached in {d} to {to}, outside it; a task exits only through a reattach to its continuation {}",
                        task.cont
                    ),
                );
            }
            for &r in &task.reattaches {
                if let Some((inst, InstKind::Reattach { region, .. })) = self.term(r)
                    && *region != task.region
                    && tasks.innermost(r) == Some(t)
                {
                    self.at(
                        "T1",
                        r,
                        inst,
                        format!(
                            "reattach within {region} ends the task detached within {} in {d}",
                            task.region
                        ),
                    );
                }
            }
        }
        for &b in cfg.rpo() {
            let Some((inst, InstKind::Reattach { cont, .. })) = self.term(b) else {
                continue;
            };
            match tasks.innermost(b) {
                None => self.at("T1", b, inst, "reattach outside any task".into()),
                Some(t) if tasks.data(t).cont != *cont => {
                    let task = tasks.data(t);
                    self.at(
                        "T1",
                        b,
                        inst,
                        format!(
                            "reattach to {cont}, but the task detached in {} continues at {}",
                            task.detach_block, task.cont
                        ),
                    );
                }
                Some(_) => {}
            }
        }

        // Layout positions, to report in layout order.
        let mut position = SecondaryMap::<Block, usize>::new();
        for (n, &b) in cfg.blocks().iter().enumerate() {
            position[b] = n;
        }
        // T3 and T4, per region.
        for sr in func.sync_regions.keys() {
            let info = tasks.region(sr);
            let detaches: Vec<Block> = info
                .detaches
                .iter()
                .copied()
                .filter(|&b| cfg.is_reachable(b))
                .collect();
            let Some(&first) = detaches.first() else {
                continue;
            };
            let level = tasks.innermost(first);
            let describe = |l: Option<crate::analysis::Task>| match l {
                None => "the function body".to_string(),
                Some(t) => format!("the task detached in {}", tasks.data(t).detach_block),
            };
            for &d in &detaches[1..] {
                let l = tasks.innermost(d);
                if l != level
                    && let Some((inst, _)) = self.term(d)
                {
                    self.at(
                        "T3",
                        d,
                        inst,
                        format!(
                            "detach within {sr} in {}, but {first} detaches within {sr} in {}; a region's tasks are detached at one task level",
                            describe(l),
                            describe(level)
                        ),
                    );
                }
            }
            for &s in info.syncs.iter().filter(|&&s| cfg.is_reachable(s)) {
                let l = tasks.innermost(s);
                if l == level {
                    continue;
                }
                let Some((inst, _)) = self.term(s) else {
                    continue;
                };
                let why = if tasks.encloses(level, l) {
                    "a task cannot sync a region of its parent"
                } else {
                    "a region is synced where its tasks are detached, not outside"
                };
                self.at(
                    "T3",
                    s,
                    inst,
                    format!(
                        "sync within {sr} in {}, but {sr}'s tasks are detached in {}; {why}",
                        describe(l),
                        describe(level)
                    ),
                );
            }

            // T4: from each continuation, a sync within `sr` comes before
            // any return (or the end of the enclosing task). Detaches in one
            // task stop at the same blocks, so what a continuation reaches
            // that an earlier one of them reached is skipped: its returns
            // were reported then. (Walking it again made thousands of
            // spawns before one sync quadratic.)
            let mut reported = EntitySet::<Block>::new();
            let mut walked: HashMap<
                Option<crate::analysis::Task>,
                (EntitySet<Block>, EntitySet<Block>),
            > = HashMap::new();
            for &d in &detaches {
                let Some(t) = tasks.task_of_detach(d) else {
                    continue;
                };
                let cont = tasks.data(t).cont;
                let enclosing = tasks.innermost(d);
                let (ends_enclosing, seen) = walked.entry(enclosing).or_insert_with(|| {
                    let mut ends = EntitySet::new();
                    if let Some(e) = enclosing {
                        for &r in &tasks.data(e).reattaches {
                            ends.insert(r);
                        }
                    }
                    (ends, EntitySet::new())
                });
                // Stop at a sync of `sr`, and at the end of the enclosing
                // task: what follows its reattach is the parent's business.
                let stop = |x: Block| {
                    ends_enclosing.contains(x)
                        || matches!(self.term(x), Some((_, InstKind::Sync { region, .. })) if *region == sr)
                };
                let mut reached = Vec::new();
                if cfg.is_placed(cont) && seen.insert(cont) {
                    reached.push(cont);
                }
                let mut next = 0;
                while let Some(&b) = reached.get(next) {
                    next += 1;
                    if stop(b) {
                        continue;
                    }
                    // A detach's task is not entered: what it holds is
                    // its own tasks' business (and T1's), and it rejoins
                    // at its continuation. Going in made each region of a
                    // deep nest walk the whole nest below it.
                    let succs = match self.term(b) {
                        Some((_, InstKind::Detach { cont, .. })) => std::slice::from_ref(cont),
                        _ => cfg.succs(b),
                    };
                    for &s in succs {
                        if seen.insert(s) {
                            reached.push(s);
                        }
                    }
                }
                reached.sort_unstable_by_key(|&b| position[b]);
                for x in reached {
                    if reported.contains(x) {
                        continue;
                    }
                    let Some((inst, kind)) = self.term(x) else {
                        continue;
                    };
                    let msg = match kind {
                        InstKind::Sync { .. } => continue,
                        InstKind::Return(_) => format!(
                            "`return` reachable from {cont}, the continuation of the detach in {d}, without a sync within {sr}; the implicit sync at return must be explicit in the IR"
                        ),
                        InstKind::Reattach { .. } if ends_enclosing.contains(x) => {
                            format!(
                                "the task ends here, reachable from {cont}, the continuation of the detach in {d}, without a sync within {sr}; a task syncs its own tasks before it reattaches"
                            )
                        }
                        _ => continue,
                    };
                    reported.insert(x);
                    self.at("T4", x, inst, msg);
                }
            }
        }
    }
}

fn want_result(e: &mut impl FnMut(&'static str, String), name: &str, rt: Option<Type>, want: Type) {
    if let Some(rt) = rt
        && rt != want
    {
        e("types", format!("`{name}` result must be {want}, not {rt}"));
    }
}

fn want_ptr(e: &mut impl FnMut(&'static str, String), what: &str, t: Type) {
    if t != Type::Ptr {
        e("types", format!("the {what} must be a ptr, not {t}"));
    }
}

fn check_args(
    e: &mut impl FnMut(&'static str, String),
    callee: &str,
    params: &[Type],
    args: &[Value],
    ty: &dyn Fn(Value) -> Type,
) {
    if params.len() != args.len() {
        e(
            "call",
            format!(
                "passes {} to {callee}, which takes {}",
                plural(args.len(), "argument"),
                params.len()
            ),
        );
        return;
    }
    for (i, (&p, &a)) in params.iter().zip(args).enumerate() {
        if ty(a) != p {
            e(
                "call",
                format!(
                    "argument {} of {callee} is {a}: {}, but the parameter is {p}",
                    i + 1,
                    ty(a)
                ),
            );
        }
    }
}

fn check_intrinsic(
    e: &mut impl FnMut(&'static str, String),
    op: Intrinsic,
    args: &[Value],
    rt: Option<Type>,
    ty: &dyn Fn(Value) -> Type,
) {
    let name = op.name();
    let (params, ret) = op.signature();
    let count_ok = if op.is_variadic() {
        args.len() >= params.len()
    } else {
        args.len() == params.len()
    };
    if !count_ok {
        e(
            "types",
            format!(
                "`{name}` takes {}{}, not {}",
                if op.is_variadic() { "at least " } else { "" },
                plural(params.len(), "argument"),
                args.len()
            ),
        );
        return;
    }
    let arith = |t: Type| matches!(t, Type::I32 | Type::I64 | Type::F32 | Type::F64);
    for (i, (p, &a)) in params.iter().zip(args).enumerate() {
        let t = ty(a);
        let ok = match *p {
            OperandType::Fixed(want) => t == want,
            OperandType::Result => Some(t) == rt,
            OperandType::Arith => arith(t),
        };
        if !ok {
            let want = match *p {
                OperandType::Fixed(want) => want.to_string(),
                OperandType::Result => rt.map_or("the result type".into(), |r| r.to_string()),
                OperandType::Arith => "i32, i64, f32 or f64".into(),
            };
            e(
                "types",
                format!("argument {} of `{name}` is {t}, but must be {want}", i + 1),
            );
        }
    }
    for &a in &args[params.len()..] {
        let t = ty(a);
        if !matches!(t, Type::I32 | Type::I64 | Type::F64 | Type::Ptr) {
            e(
                "types",
                format!(
                    "variadic argument {a} of `{name}` is {t}; promote it to i32, i64, f64 or ptr"
                ),
            );
        }
    }
    match (ret, rt) {
        (Some(OperandType::Fixed(want)), Some(got)) if got != want => {
            e("types", format!("`{name}` returns {want}, not {got}"));
        }
        (Some(OperandType::Result), Some(got)) => {
            if op == Intrinsic::AtomicAdd {
                if let Some(&v) = args.get(1)
                    && ty(v) != got
                {
                    e(
                        "types",
                        format!("`{name}` returns its operand's type {}, not {got}", ty(v)),
                    );
                }
            } else if !(got.is_float() || op.is_lanewise() && got.lane_type().is_float()) {
                e("types", format!("`{name}` works on f32 or f64, not {got}"));
            }
        }
        _ => {}
    }
}

fn cast_ok(op: CastOp, from: Type, to: Type) -> bool {
    use CastOp::*;
    match op {
        Sext | Zext => from.is_int() && to.is_int() && to.bits() > from.bits(),
        Trunc => from.is_int() && to.is_int() && to.bits() < from.bits(),
        SiToFp | UiToFp => from.is_int() && to.is_float(),
        FpToSi | FpToUi => from.is_float() && to.is_int(),
        FpExt => from == Type::F32 && to == Type::F64,
        FpTrunc => from == Type::F64 && to == Type::F32,
        PtrToInt => from == Type::Ptr && to == Type::I64,
        IntToPtr => from == Type::I64 && to == Type::Ptr,
    }
}

fn cast_rule(op: CastOp) -> &'static str {
    use CastOp::*;
    match op {
        Sext | Zext => "it widens an integer",
        Trunc => "it narrows an integer",
        SiToFp | UiToFp => "it converts an integer to a float",
        FpToSi | FpToUi => "it converts a float to an integer",
        FpExt => "it converts f32 to f64",
        FpTrunc => "it converts f64 to f32",
        PtrToInt => "it converts ptr to i64",
        IntToPtr => "it converts i64 to ptr",
    }
}

fn describe_def(def: ValueDef) -> String {
    match def {
        ValueDef::Result(i) => format!("result of {i}"),
        ValueDef::Param(b, n) => format!("parameter {n} of {b}"),
    }
}

fn join_types(ts: &[Type]) -> String {
    ts.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
}

fn type_list(ts: &[Option<Type>]) -> String {
    ts.iter()
        .map(|t| t.map_or("?", |t| t.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn block_list(bs: impl Iterator<Item = Block>) -> String {
    bs.map(|b| b.to_string()).collect::<Vec<_>>().join(", ")
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::FunctionAnalyses;
    use crate::function::{GlobalData, InstData, Signature, ValueData};
    use crate::read::read_module;
    use cranelift_entity::EntityRef;

    const VALID: [&str; 5] = [
        include_str!("../../tests/filetests/verify/fib.pir"),
        include_str!("../../tests/filetests/verify/parallel_loop.pir"),
        include_str!("../../tests/filetests/verify/nested_tasks.pir"),
        include_str!("../../tests/filetests/verify/kernel.pir"),
        include_str!("../../tests/filetests/roundtrip/all_insts.pir"),
    ];

    fn errors(m: &Module) -> Vec<String> {
        match verify_module(m) {
            Ok(()) => Vec::new(),
            Err(es) => es.iter().map(|e| e.to_string()).collect(),
        }
    }

    fn expect(m: &Module, needles: &[&str]) {
        let es = errors(m);
        for n in needles {
            assert!(
                es.iter().any(|e| e.contains(n)),
                "no error with `{n}` in {es:#?}"
            );
        }
        assert_eq!(es.len(), needles.len(), "{es:#?}");
    }

    fn fib() -> Module {
        read_module(VALID[0]).unwrap()
    }

    fn f0(m: &mut Module) -> &mut Function {
        &mut m.funcs[FuncId::new(0)]
    }

    #[test]
    fn valid_files_verify() {
        for text in VALID {
            let m = read_module(text).unwrap();
            assert_eq!(errors(&m), Vec::<String>::new());
        }
    }

    #[test]
    fn dangling_and_duplicate_entities() {
        let mut m = fib();
        f0(&mut m).layout.push(Block::new(99));
        expect(&m, &["block99 in the layout does not exist [layout]"]);

        let mut m = fib();
        let b = f0(&mut m).layout[1];
        f0(&mut m).layout.push(b);
        expect(&m, &["block1 is listed twice in the layout [layout]"]);

        let mut m = fib();
        let f = f0(&mut m);
        let b = f.layout[1];
        f.blocks[b].insts.insert(0, Inst::new(500));
        expect(&m, &["inst500 is placed but does not exist [layout]"]);

        let mut m = fib();
        let f = f0(&mut m);
        let (b0, b1) = (f.layout[0], f.layout[1]);
        let i = f.blocks[b0].insts[0];
        f.blocks[b1].insts.insert(0, i);
        expect(&m, &["is placed twice (also in block0) [layout]"]);
    }

    #[test]
    fn definitions_must_match() {
        // A result claiming another definition, a parameter likewise.
        let mut m = fib();
        let f = f0(&mut m);
        let i = f.blocks[f.layout[0]].insts[0];
        let r = f.result(i).unwrap();
        f.values[r].def = ValueDef::Param(f.layout[0], 7);
        expect(
            &m,
            &[
                "result v1 records another definition (parameter 7 of block0) [ssa]",
                "uses v1, which is not defined by a placed instruction or block parameter [ssa]",
            ],
        );

        let mut m = fib();
        let f = f0(&mut m);
        let p = f.blocks[f.layout[0]].params[0];
        f.values[p].def = ValueDef::Param(f.layout[1], 0);
        let es = errors(&m);
        assert!(es[0].contains("parameter v0 records another definition (parameter 0 of block1)"));

        // An operand that does not exist, and one defined by a dead instruction.
        let mut m = fib();
        let f = f0(&mut m);
        let dead = f.make_inst(InstKind::Iconst(1), Some(Type::I32));
        let dv = f.result(dead).unwrap();
        let b = f.layout[1];
        let ret = f.blocks[b].insts[0];
        *f.inst_mut(ret) = InstKind::Return(Some(dv));
        let b5 = *f.layout.last().unwrap();
        let ret5 = *f.blocks[b5].insts.last().unwrap();
        *f.inst_mut(ret5) = InstKind::Return(Some(Value::new(4000)));
        expect(
            &m,
            &[
                "uses v12, which is not defined by a placed instruction",
                "uses v4000, which does not exist [ssa]",
            ],
        );
    }

    #[test]
    fn module_level_names_and_globals() {
        let mut m = fib();
        let dup = m.funcs[FuncId::new(0)].clone();
        m.funcs.push(dup);
        m.globals.push(GlobalData {
            name: "g".into(),
            size: 8,
            align: 8,
            relocs: vec![(0, GlobalId::new(9), 0), (u64::MAX, GlobalId::new(0), 0)],
            func_relocs: vec![(0, FuncId::new(7)), (4, FuncId::new(0))],
            ..GlobalData::default()
        });
        m.globals.push(GlobalData {
            name: "g".into(),
            align: 0,
            ..GlobalData::default()
        });
        expect(
            &m,
            &[
                "functions fn0 and fn1 are both named @fib [module]",
                "globals g0 and g1 are both named @g [module]",
                "relocation at offset 0 points to g9, which does not exist [global]",
                "relocation at offset 18446744073709551615 does not fit",
                "function relocation at offset 0 points to fn7, which does not exist [global]",
                "function relocation at offset 4 does not fit in its size of 8",
                "alignment 0 is not a power of two [global]",
            ],
        );
        assert!(verify_function(&m, FuncId::new(7)).is_err());
        assert!(verify_function(&m, FuncId::new(0)).is_ok());
        assert!(verify_function_in(&m, &m.funcs[FuncId::new(0)]).is_ok());
    }

    #[test]
    fn error_display_names_function_block_and_instruction() {
        let m = read_module("func @f(i32) -> i64 {\nblock0(v0: i32):\n    return v0 @3:9\n}\n")
            .unwrap();
        let e = &verify_module(&m).unwrap_err()[0];
        assert_eq!(e.func.as_deref(), Some("f"));
        assert_eq!(e.block, Some(Block::new(0)));
        assert_eq!(e.rule, "types");
        assert_eq!(
            e.to_string(),
            "in @f, block0, `return v0 @3:9`: returns i32, but the function returns i64 [types]"
        );
        let m = Module::new();
        assert!(verify_module(&m).is_ok());
        let mut m = Module::new();
        m.funcs.push(Function::new("d", Signature::default()));
        assert_eq!(
            verify_module(&m).unwrap_err()[0].to_string(),
            "in @d: a function without a body must have import linkage [module]"
        );
    }

    /// Random in-memory damage to valid functions: the verifier and the
    /// analyses must report, never panic.
    #[test]
    fn damaged_functions_never_panic() {
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        for text in VALID {
            let base = read_module(text).unwrap();
            for _ in 0..400 {
                let mut m = base.clone();
                let fid = FuncId::new(next(m.funcs.len()));
                let f = &mut m.funcs[fid];
                if f.layout.is_empty() {
                    continue;
                }
                for _ in 0..1 + next(3) {
                    if f.layout.is_empty() {
                        break;
                    }
                    let nb = f.blocks.len() + 2;
                    let ni = f.insts.len() + 2;
                    let nv = f.values.len() + 2;
                    let b = f.layout[next(f.layout.len())];
                    let Some(bd) = f.blocks.get(b) else { continue };
                    let insts = bd.insts.clone();
                    match next(10) {
                        0 => {
                            let j = next(f.layout.len());
                            f.layout.swap(0, j);
                        }
                        1 => {
                            let l = f.layout.len();
                            f.layout.remove(next(l));
                        }
                        2 => f.layout.push(Block::new(next(nb))),
                        3 if !insts.is_empty() => {
                            f.blocks[b].insts.remove(next(insts.len()));
                        }
                        4 => f.blocks[b].insts.push(Inst::new(next(ni))),
                        5 if !insts.is_empty() => {
                            let i = insts[next(insts.len())];
                            if f.insts.is_valid(i) {
                                f.insts[i].kind.map_operands(|_| Value::new(next(nv)));
                                f.insts[i].kind.map_successors(|_| Block::new(next(nb)));
                            }
                        }
                        6 if !insts.is_empty() => {
                            let i = insts[next(insts.len())];
                            if let Some(d) = f.insts.get_mut(i) {
                                d.result = Some(Value::new(next(nv)));
                            }
                        }
                        7 => {
                            let v = Value::new(next(nv));
                            if let Some(d) = f.values.get_mut(v) {
                                *d = ValueData {
                                    ty: Type::ALL[next(7)],
                                    def: if next(2) == 0 {
                                        ValueDef::Result(Inst::new(next(ni)))
                                    } else {
                                        ValueDef::Param(Block::new(next(nb)), next(3) as u32)
                                    },
                                };
                            }
                        }
                        8 => {
                            let i = f.insts.push(InstData {
                                kind: InstKind::Detach {
                                    region: SyncRegion::new(next(3)),
                                    task: Block::new(next(nb)),
                                    cont: Block::new(next(nb)),
                                },
                                result: None,
                            });
                            f.blocks[b].insts.push(i);
                        }
                        _ => f.blocks[b].params.push(Value::new(next(nv))),
                    }
                }
                let _ = verify_module(&m);
                for f in m.funcs.values() {
                    let _ = FunctionAnalyses::compute(f);
                }
                let _ = crate::print::print_module(&m);
            }
        }
    }
}
