//! Lowering: the checked program ([`hir`]) to a parir [`Module`].
//!
//! Lowering re-derives no C typing rule: every conversion, promotion and
//! pointer scaling is explicit in the HIR, so each HIR node maps to a fixed
//! IR shape. Submodules: `func` (functions, statements, `spawn`,
//! `parallel_for`), `scopes` (what a function's or task's frame owns),
//! `vla` (variable-length arrays), `expr` (expressions, conversions,
//! built-ins), `bitfield` (reading and writing bit-fields), `cabi` (C
//! signatures and headers).
//!
//! # What the produced IR looks like (later passes rely on it)
//!
//! **Types.** `bool`/`char` → `i8` (a `bool` in memory and in registers is 0
//! or 1), `int`/`unsigned` → `i32`, `long`/`unsigned long` → `i64`, `float` →
//! `f32`, `double` → `f64`, pointers → `ptr`. Arrays, structs and `dim3`
//! (three `i32`s, 12 bytes) live only in memory; an expression of such a type
//! is lowered to the *address* of its bytes. A bit-field is read as a load
//! of its unit (`i8` to `i64`), shifts and an extension, and written as a
//! load, `and`, `or` and store of the unit.
//!
//! **Functions.** `FuncId(i)` is HIR `FuncRef(i)`. Declarations (no body) are
//! `Linkage::Import`, `static` functions `Local`, the rest `Export`; kernels
//! are `FuncKind::Kernel`, `__device__` functions `Device`.
//! Structs by value (the only by-value aggregates C has): a struct or `dim3`
//! parameter is passed as a `ptr` to the argument's bytes and the callee
//! copies them into its own `alloca` on entry (so the caller never needs a
//! copy for an ordinary call); a struct result is returned through a hidden
//! first `ptr` parameter (`sret`) pointing to caller-provided memory, which
//! the function also returns (as the x86-64 ABI does; so its signature is
//! non-void and falling off its end is reported as for any non-void one).
//!
//! **Locals.** Every local has one `alloca` (nothing is in SSA form; `mem2reg`
//! promotes later). The `alloca`s of a function sit at the top of its entry
//! block, parameters are stored to theirs right after. Locals declared inside
//! a `parallel_for` body (the per-iteration copy of the index included) and
//! the temporaries of a spawned call are instead allocated at the top of the
//! *task's first block*, so that each task instance has private storage
//! (parir's `alloca` inside a task is private to that task). Every
//! declaration stores zero (or its initializer) when executed, so a
//! declaration in a loop starts afresh on each iteration. A variable-length
//! array is the exception (`vla`): its `alloca` holds a pointer to zeroed
//! heap memory taken when the declaration runs and freed when it runs again
//! or its frame (function or task) ends.
//!
//! Struct assignment and by-value copies are the `memcpy` intrinsic; its
//! ranges are disjoint or identical (`s = s`), never partially overlapping.
//!
//! **Control flow.** `&&`, `||` and `?:` are branches whose join block takes
//! the result as a block parameter; there is no `select`. `exit(n)` is the
//! `exit` intrinsic followed by `unreachable`. Blocks unreachable from the
//! entry (code after `return`, `break`, `exit`) are left out of the layout.
//! Falling off the end of `main` returns 0, of a `void` function returns,
//! of any other function reaches `unreachable`.
//!
//! **spawn** (`x = spawn f(a, b);`), in the sync region `sr` of the enclosing
//! function or `parallel_for` body (one per such scope, created only when the
//! scope contains a `spawn`):
//! ```text
//!     a' = <a>; b' = <b>                  ; arguments evaluated in the parent
//!     detach within sr, task, cont
//! task:
//!     r = call f(a', b')                  ; only the call, plus its temporaries
//!     store (convert r), x.addr           ; if there is a destination
//!     reattach within sr, cont
//! cont:
//! ```
//! A struct argument of a spawned call is read field by field in the parent
//! (so a later write by the continuation cannot race with it) and stored
//! into a task-private `alloca`. `sync;` is `sync within sr, next`; without
//! any spawn in the scope it is a no-op and emits nothing, and a sync right
//! after another of the same region (`sync; return;`) is dropped. Before every
//! `return` (and falling off the end) of a function that spawns, there is
//! `sync within sr_fn, next` (evaluated before the return value, so
//! `return x;` after `x = spawn ...` reads the synced value).
//!
//! **parallel_for** (`parallel_for (T i = lo; i < hi; i += step) body`), one
//! fresh sync region `sr_pf` per loop:
//! ```text
//!     lo' = <lo>; hi' = <hi>; step' = <step>        ; once, in the parent
//!     jump header(lo')
//! header(iv: T):
//!     c = icmp slt|ult|sle|ule iv, hi'              ; C's `i < hi`, see `pfor_bound_in_index_type`
//!     brif c, spawn_iter, exit
//! spawn_iter:
//!     detach within sr_pf, task, latch
//! task:
//!     i.addr = alloca ...; (body locals) = alloca ...   ; task-private
//!     store iv, i.addr
//!     <body>                                        ; `continue` → task_end
//!     jump task_end
//! task_end:
//!     [sync within sr_body, end]                    ; only if the body spawns
//!   end:
//!     reattach within sr_pf, latch
//! latch:
//!     iv' = iadd iv, step'
//!     jump header(iv')
//! exit:
//!     sync within sr_pf, after
//! after:
//! ```
//! The task reads only values of the parent defined before the detach
//! (`iv`, the bounds, pointers to the parent's locals); no value defined in a
//! task is used outside it.
//!
//! **Kernels.** `__shared__` arrays are globals in `AddrSpace::Shared`;
//! `threadIdx.x` and friends are intrinsics; `__syncthreads()` is `barrier`;
//! a launch evaluates the `dim3`s to three `i32`s each. Functions that
//! may reach a barrier (and their gradient declarations) are marked
//! `convergent` once every body is lowered (`parc_ir::convergent::infer`).
//!
//! **Gradients.** `__enzyme_autodiff(f, args...)` is a `call` of a
//! gradient declaration with the flattened arguments (each parameter's
//! value, followed by its shadow for `dup`/`dupnoneed`). There is one
//! declaration per distinct (function, activities) pair, named `f.grad`
//! (then `f.grad.2`, `f.grad.3` ... for further activity patterns of the
//! same `f`; no ParC name contains a dot), `Linkage::Import`, of `f`'s
//! kind, with [`parc_ir::gradient_signature`]; each comes with a
//! [`parc_ir::GradRequest`] (`Linkage::Local`, at the first such call) in
//! `Module::grad_requests`, for the AD to fulfil. These functions follow
//! the HIR's, in the order their first call is lowered.
//!
//! **Globals.** HIR global `i` is `GlobalId(i)`; string literal `j` follows
//! them as a constant global `.str.j` with a trailing NUL. Initial images are
//! little-endian, floats as IEEE bits, pointers as relocations.
//!
//! Every instruction carries the source position (line:col of the start of
//! the statement or expression it implements) for run-time messages.

mod bitfield;
mod cabi;
mod expr;
mod func;
mod scopes;
mod vla;

use crate::ast::Span;
use crate::diag::Diagnostic;
use crate::hir::{self, BitField, CType, ConstInit, FieldLayout, scalar_type};
use crate::source_map::SourceMap;
use parc_ir::{
    Activity, AddrSpace, FuncId, Function, GlobalData, GlobalId, GradRequest, Linkage, Module,
    Signature, SrcLoc, Type,
};
use std::cell::RefCell;

/// Lowers a checked program. `source` is the text `program` was checked
/// from; it only turns spans into line:col positions. The program is
/// consumed: each function body is freed once lowered, so a large
/// program's HIR and IR are not both whole in memory.
pub fn lower(program: hir::Program, source_name: &str, source: &str) -> Module {
    lower_mapped(program, source_name, source, None)
}

/// Lowers a program checked from preprocessed text: `map` turns its spans
/// into positions in the file the user wrote (see
/// [`SourceMap::code_position`]).
pub fn lower_mapped(
    mut program: hir::Program,
    source_name: &str,
    source: &str,
    map: Option<&SourceMap>,
) -> Module {
    // Taken out, so each can be freed once lowered; `Shared::prog` has
    // the rest (signatures, locals), which calls need.
    let bodies: Vec<Option<Vec<hir::Stmt>>> =
        program.funcs.iter_mut().map(|f| f.body.take()).collect();
    let program = &program;
    let mut module = Module::new();
    module.source_name = Some(source_name.to_string());
    let layout = Layout {
        structs: &program.structs,
    };
    module.c_structs = cabi::c_structs(&layout);

    // Globals first (HIR order), then string literals, so ids are known
    // before any initial image (with its relocations) is built.
    let globals: Vec<GlobalId> = program
        .globals
        .iter()
        .map(|g| {
            module.globals.push(GlobalData {
                name: g.name.clone(),
                size: layout.size_of(&g.ty),
                align: layout.align_of(&g.ty) as u32,
                is_const: g.is_const,
                is_import: g.is_extern,
                is_local: g.is_static,
                space: if g.is_shared {
                    AddrSpace::Shared
                } else {
                    AddrSpace::Global
                },
                ..GlobalData::default()
            })
        })
        .collect();
    let strings: Vec<GlobalId> = program
        .strings
        .iter()
        .enumerate()
        .map(|(j, s)| {
            module
                .globals
                .push(GlobalData::c_string(format!(".str.{j}"), s))
        })
        .collect();

    let mut cx = Shared {
        prog: program,
        layout,
        funcs: Vec::new(),
        rets: Vec::new(),
        sret: Vec::new(),
        globals,
        strings,
        lines: LineIndex::new(source, map),
        grads: RefCell::new(Vec::new()),
    };

    // Every function is created before any body is lowered, so calls can
    // name any of them.
    for (f, body) in program.funcs.iter().zip(&bodies) {
        let defined = body.is_some();
        let sret = cx.layout.is_aggregate(&f.ret);
        let mut params = Vec::new();
        if sret {
            params.push(Type::Ptr);
        }
        for &p in &f.params {
            params.push(cx.layout.value_type(&program_local(f, p).ty));
        }
        // A variadic function's arguments, whichever file defines it:
        // see `hir::VA_SLOT`.
        if f.variadic {
            params.push(Type::Ptr);
        }
        // Like the x86-64 ABI, a struct result's address is also returned.
        let ret = if sret {
            Some(Type::Ptr)
        } else {
            scalar_type(&f.ret)
        };
        let sig = Signature { params, ret };
        let mut func = if defined {
            parc_ir::new_function(f.name.clone(), sig)
        } else {
            Function::new(f.name.clone(), sig)
        };
        func.variadic = f.variadic && !defined;
        // The hidden struct-result pointer comes first.
        let shift = u32::from(sret);
        func.noalias = f.restrict_params.iter().map(|&i| i + shift).collect();
        // The hidden pointer to the variadic arguments has no name.
        let names = f
            .params
            .iter()
            .map(|&p| program_local(f, p).name.clone())
            .chain(f.variadic.then(String::new));
        func.param_names = std::iter::repeat_n(String::new(), shift as usize)
            .chain(names)
            .collect();
        if func.param_names.iter().all(String::is_empty) {
            func.param_names.clear();
        }
        func.kind = match f.kind {
            hir::FuncKind::Host => parc_ir::FuncKind::Host,
            hir::FuncKind::Kernel => parc_ir::FuncKind::Kernel,
            hir::FuncKind::Device => parc_ir::FuncKind::Device,
        };
        func.linkage = if !defined {
            Linkage::Import
        } else if f.is_static {
            Linkage::Local
        } else {
            Linkage::Export
        };
        // Declarations too: the driver refuses a struct by value in one
        // that no file of the program defines.
        if f.kind == hir::FuncKind::Host {
            func.c_sig = cabi::c_signature(&cx.layout, f).map(Box::new);
        }
        cx.funcs.push(module.funcs.push(func));
        cx.rets.push(ret);
        cx.sret.push(sret);
    }

    // Initial images may hold function addresses: after the functions.
    for (i, g) in program.globals.iter().enumerate() {
        if let Some(init) = &g.init {
            let mut image = ImageWriter {
                cx: &cx,
                bytes: vec![0; cx.layout.size_of(&g.ty) as usize],
                relocs: Vec::new(),
                func_relocs: Vec::new(),
            };
            image.write(0, &g.ty, init);
            let ImageWriter {
                mut bytes,
                relocs,
                func_relocs,
                ..
            } = image;
            // Trailing zeros are implied by `size`.
            while bytes.last() == Some(&0) {
                bytes.pop();
            }
            let data = &mut module.globals[cx.globals[i]];
            data.init = bytes;
            data.relocs = relocs;
            data.func_relocs = func_relocs;
        }
    }

    for (i, (f, body)) in program.funcs.iter().zip(bodies).enumerate() {
        if let Some(body) = body {
            let id = cx.funcs[i];
            let mut func = std::mem::take(&mut module.funcs[id]);
            func::lower_function(&cx, i, f, &body, &mut func);
            module.funcs[id] = func;
        }
    }
    declare_gradients(&cx, &mut module);
    module.files = cx.lines.files.take();
    parc_ir::convergent::infer(&mut module);
    module
}

/// Adds the gradient declarations that `__enzyme_autodiff` calls named
/// (with the ids [`Shared::gradient`] promised) and their requests.
fn declare_gradients(cx: &Shared, module: &mut Module) {
    let grads = cx.grads.borrow();
    let mut per_primal: Vec<u32> = vec![0; cx.funcs.len()];
    for (k, g) in grads.iter().enumerate() {
        let primal = cx.func(g.func);
        let n = &mut per_primal[g.func.0 as usize];
        *n += 1;
        let p = &module.funcs[primal];
        let name = match *n {
            1 => format!("{}.grad", p.name),
            n => format!("{}.grad.{n}", p.name),
        };
        // The checker admits only activities that fit the parameters (and
        // no struct result, which would add a hidden parameter), so this
        // cannot fail; were it to, the verifier would report the mismatch
        // as an internal error rather than lowering panicking.
        let sig = parc_ir::gradient_signature(&p.sig, &g.activities).unwrap_or_default();
        let mut decl = Function::new(name, sig);
        decl.kind = p.kind;
        decl.linkage = Linkage::Import;
        let id = module.funcs.push(decl);
        debug_assert_eq!(id, cx.gradient_id(k));
        module.grad_requests.push(GradRequest {
            primal,
            grad: id,
            activities: g.activities.clone(),
            linkage: Linkage::Local,
            loc: g.loc,
        });
    }
}

/// A gradient some `__enzyme_autodiff` call needs.
struct GradDecl {
    func: hir::FuncRef,
    activities: Vec<Activity>,
    /// The first call's position.
    loc: SrcLoc,
}

fn program_local(f: &hir::Func, id: hir::LocalId) -> &hir::Local {
    &f.locals[id.0 as usize]
}

/// What every function's lowering shares: the program, the id maps and the
/// line index.
struct Shared<'a> {
    prog: &'a hir::Program,
    layout: Layout<'a>,
    /// IR function of HIR function `i`.
    funcs: Vec<FuncId>,
    /// IR result type of each function (`None` for `void`).
    rets: Vec<Option<Type>>,
    /// True if function `i` returns a struct through a hidden pointer.
    sret: Vec<bool>,
    globals: Vec<GlobalId>,
    strings: Vec<GlobalId>,
    lines: LineIndex<'a>,
    /// Gradients called so far, in order of first use. Bodies are lowered
    /// with the module's functions taken out one at a time, so a gradient
    /// cannot be declared when its first call is met; instead it gets the
    /// id it will have once appended after every HIR function
    /// ([`declare_gradients`]), which saves a separate walk over the HIR.
    grads: RefCell<Vec<GradDecl>>,
}

impl Shared<'_> {
    fn func(&self, f: hir::FuncRef) -> FuncId {
        self.funcs[f.0 as usize]
    }

    /// The id of the `k`th gradient declaration.
    fn gradient_id(&self, k: usize) -> FuncId {
        FuncId::from_u32((self.funcs.len() + k) as u32)
    }

    /// The gradient declaration for `f` under `activities`, made on first
    /// use at `loc`.
    fn gradient(&self, f: hir::FuncRef, activities: Vec<Activity>, loc: SrcLoc) -> FuncId {
        let mut grads = self.grads.borrow_mut();
        let k = match grads
            .iter()
            .position(|g| g.func == f && g.activities == activities)
        {
            Some(k) => k,
            None => {
                grads.push(GradDecl {
                    func: f,
                    activities,
                    loc,
                });
                grads.len() - 1
            }
        };
        self.gradient_id(k)
    }

    fn global(&self, g: hir::GlobalVarId) -> GlobalId {
        self.globals[g.0 as usize]
    }
}

/// Sizes and alignments of C types (x86-64 natural alignment; struct
/// layouts come from the checker).
struct Layout<'a> {
    structs: &'a [hir::StructLayout],
}

impl Layout<'_> {
    fn size_of(&self, ty: &CType) -> u64 {
        match ty {
            CType::Void | CType::Bool | CType::Char | CType::UChar | CType::Func(_) => 1,
            CType::Short | CType::UShort => 2,
            CType::Int | CType::UInt | CType::Float => 4,
            CType::Long | CType::ULong | CType::Double | CType::Ptr(_) => 8,
            // An `extern` array of unknown size has no storage here; a
            // variable-length array's size is computed at run time (`vla`).
            CType::Array(_, u64::MAX) | CType::VarArray(..) => 0,
            CType::Array(elem, n) => self.size_of(elem) * n,
            CType::Struct(id) => self.structs.get(id.0 as usize).map_or(0, |s| s.size),
            CType::Dim3 => 12,
        }
    }

    fn align_of(&self, ty: &CType) -> u64 {
        match ty {
            CType::Array(elem, _) | CType::VarArray(elem, _) => self.align_of(elem),
            CType::Struct(id) => self
                .structs
                .get(id.0 as usize)
                .map_or(1, |s| s.align.max(1)),
            CType::Dim3 => 4,
            other => self.size_of(other),
        }
    }

    /// True for the types that live only in memory.
    fn is_aggregate(&self, ty: &CType) -> bool {
        matches!(
            ty,
            CType::Array(..) | CType::VarArray(..) | CType::Struct(_) | CType::Dim3
        )
    }

    /// The IR type a value of `ty` is passed as: its scalar type, or the
    /// address of its bytes.
    fn value_type(&self, ty: &CType) -> Type {
        scalar_type(ty).unwrap_or(Type::Ptr)
    }

    /// The scalar pieces of a type: `(byte offset, IR type)` of every
    /// scalar field and element, in order (padding omitted).
    fn leaves(&self, ty: &CType, base: u64, out: &mut Vec<(u64, Type)>) {
        match ty {
            CType::Array(elem, n) => {
                let size = self.size_of(elem);
                for i in 0..*n {
                    self.leaves(elem, base + i * size, out);
                }
            }
            CType::Struct(id) => {
                if let Some(s) = self.structs.get(id.0 as usize) {
                    for f in &s.fields {
                        match &f.bits {
                            // A bit-field's whole unit, once for the
                            // fields that share it.
                            Some(bits) => {
                                let leaf = (base + f.offset, bitfield::unit_type(bits));
                                if !out.contains(&leaf) {
                                    out.push(leaf);
                                }
                            }
                            None => self.leaves(&f.ty, base + f.offset, out),
                        }
                    }
                }
            }
            CType::Dim3 => out.extend((0..3).map(|i| (base + 4 * i, Type::I32))),
            other => {
                if let Some(t) = scalar_type(other) {
                    out.push((base, t));
                }
            }
        }
    }
}

/// The integer a scalar's constant initializer gives (`v` or `{v}`).
fn const_int(init: &ConstInit) -> Option<i64> {
    match init {
        ConstInit::Int(v) => Some(*v),
        ConstInit::Float(f) => Some(*f as i64),
        ConstInit::List(items) => items.first().and_then(|(_, i)| const_int(i)),
        _ => None,
    }
}

/// Builds a global's initial image from its constant initializer.
struct ImageWriter<'a, 'c> {
    cx: &'a Shared<'c>,
    bytes: Vec<u8>,
    relocs: Vec<(u64, GlobalId, i64)>,
    func_relocs: Vec<(u64, FuncId)>,
}

impl ImageWriter<'_, '_> {
    fn put(&mut self, offset: u64, data: &[u8]) {
        let start = offset as usize;
        // The checker sized the object; a mismatch is clipped, not a panic.
        if let Some(dst) = self.bytes.get_mut(start..start + data.len()) {
            dst.copy_from_slice(data);
        }
    }

    fn write(&mut self, offset: u64, ty: &CType, init: &ConstInit) {
        let layout = &self.cx.layout;
        match (ty, init) {
            (CType::Array(elem, n), ConstInit::List(items)) => {
                let size = layout.size_of(elem);
                for (i, item) in items.iter().filter(|(i, _)| i < n) {
                    self.write(offset + i * size, elem, item);
                }
            }
            (CType::Struct(id), ConstInit::List(items)) => {
                let fields = layout.structs.get(id.0 as usize).map(|s| &s.fields[..]);
                let fields = fields.unwrap_or_default();
                for (i, item) in items {
                    match fields.get(*i as usize) {
                        Some(
                            field @ FieldLayout {
                                bits: Some(bits), ..
                            },
                        ) => {
                            if let Some(v) = const_int(item) {
                                let v = if field.ty == CType::Bool {
                                    i64::from(v != 0)
                                } else {
                                    v
                                };
                                self.bits(offset + field.offset, bits, v);
                            }
                        }
                        Some(field) => self.write(offset + field.offset, &field.ty, item),
                        None => {}
                    }
                }
            }
            (CType::Dim3, ConstInit::List(items)) => {
                for (i, item) in items.iter().filter(|(i, _)| *i < 3) {
                    self.write(offset + 4 * i, &CType::UInt, item);
                }
            }
            // `int x = {5};` is allowed by C: the first element initializes.
            (_, ConstInit::List(items)) => {
                if let Some((_, first)) = items.first() {
                    self.write(offset, ty, first);
                }
            }
            // A char array from a string literal, should the checker keep it
            // as a string.
            (CType::Array(_, n), ConstInit::Str(i)) => {
                let s = &self.cx.prog.strings[*i];
                let len = s.len().min(*n as usize);
                let data = s[..len].to_vec();
                self.put(offset, &data);
            }
            (_, ConstInit::Str(i)) => self.relocs.push((offset, self.cx.strings[*i], 0)),
            (_, ConstInit::GlobalAddr(g, addend)) => {
                self.relocs.push((offset, self.cx.global(*g), *addend))
            }
            (_, ConstInit::FuncAddr(f)) => {
                if let Some(&id) = self.cx.funcs.get(f.0 as usize) {
                    self.func_relocs.push((offset, id));
                }
            }
            (_, ConstInit::Null) => {}
            (_, ConstInit::Int(v)) => self.scalar(offset, ty, *v, *v as f64),
            (_, ConstInit::Float(f)) => self.scalar(offset, ty, *f as i64, *f),
        }
    }

    /// Stores a scalar given both as an integer and as a float; the type
    /// picks which one is meant.
    /// Puts the low bits of `int` into bit-field `bits` of the unit at
    /// `offset`, keeping the unit's other bits.
    fn bits(&mut self, offset: u64, bits: &BitField, int: i64) {
        let (start, n) = (offset as usize, usize::from(bits.unit));
        if let Some(dst) = self.bytes.get_mut(start..start + n) {
            let mut unit = [0u8; 8];
            unit[..n].copy_from_slice(dst);
            let old = u64::from_le_bytes(unit);
            let new = (old & !bits.mask()) | (((int as u64) << bits.shift) & bits.mask());
            dst.copy_from_slice(&new.to_le_bytes()[..n]);
        }
    }

    fn scalar(&mut self, offset: u64, ty: &CType, int: i64, float: f64) {
        match ty {
            CType::Bool => self.put(offset, &[(int != 0) as u8]),
            CType::Char | CType::UChar => self.put(offset, &[int as u8]),
            CType::Short | CType::UShort => self.put(offset, &(int as u16).to_le_bytes()),
            CType::Int | CType::UInt => self.put(offset, &(int as u32).to_le_bytes()),
            CType::Long | CType::ULong | CType::Ptr(_) => self.put(offset, &int.to_le_bytes()),
            CType::Float => self.put(offset, &(float as f32).to_bits().to_le_bytes()),
            CType::Double => self.put(offset, &float.to_bits().to_le_bytes()),
            CType::Void
            | CType::Array(..)
            | CType::VarArray(..)
            | CType::Struct(_)
            | CType::Dim3
            | CType::Func(_) => {}
        }
    }
}

/// [`lower_mapped`], then a request for the gradient of each function named in
/// `exported_gradients` that the program declares (`--grad F`: `grad_F`,
/// with Enzyme's default activities, see
/// [`parc_ir::gradient::request_export`]), recorded at the function's
/// declaration as `__enzyme_autodiff` requests are at their call. Names the
/// program does not declare are left out (another file compiled with it
/// may define them; the driver says so when none does). Whether the AD can
/// fulfil a request is [`parc_ir::gradient::refusal`]'s rule, which the
/// driver checks on the (linked) module. The error: another function of
/// the program is called `grad_F`.
pub fn lower_with_exported_gradients(
    program: hir::Program,
    source_name: &str,
    source: &str,
    map: Option<&SourceMap>,
    exported_gradients: &[String],
) -> Result<Module, Diagnostic> {
    // HIR function `i` is `FuncId(i)` (see the module doc).
    let exported: Vec<(usize, Span)> = exported_gradients
        .iter()
        .filter_map(|name| program.funcs.iter().position(|f| &f.name == name))
        .map(|i| (i, program.funcs[i].span))
        .collect();
    let mut module = lower_mapped(program, source_name, source, map);
    let lines = LineIndex::new(source, map);
    for (i, span) in exported {
        let mut loc = lines.loc(span.start);
        // `lines` numbers files apart from the module's table.
        if let Some(name) = loc.file.checked_sub(1).and_then(|k| {
            let files = lines.files.borrow();
            files.get(k as usize).cloned()
        }) {
            loc = loc.in_file(module.intern_file(&name));
        }
        parc_ir::gradient::request_export(&mut module, FuncId::from_u32(i as u32), loc).map_err(
            |message| {
                Diagnostic::error(span, message)
                    .with_label("this function")
                    .with_help("rename the existing function")
            },
        )?;
    }
    Ok(module)
}

/// Byte offsets to line:col, as [`crate::diag::line_col`] computes them but
/// without rescanning the source for every instruction.
struct LineIndex<'a> {
    source: &'a str,
    /// Where preprocessed text came from, if it was.
    map: Option<&'a SourceMap>,
    /// Byte offset of the start of each line.
    starts: Vec<usize>,
    /// The files other than the main one that positions are in, numbered
    /// from 1 (`Module::files`).
    files: RefCell<Vec<String>>,
}

impl<'a> LineIndex<'a> {
    fn new(source: &'a str, map: Option<&'a SourceMap>) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex {
            source,
            map,
            starts,
            files: RefCell::new(Vec::new()),
        }
    }

    fn loc(&self, offset: u32) -> SrcLoc {
        if let Some(map) = self.map {
            let (file, line, col) = map.code_position(offset);
            let loc = SrcLoc::new(line, col);
            let Some(name) = file else {
                return loc;
            };
            let mut files = self.files.borrow_mut();
            let k = match files.iter().position(|f| f == name) {
                Some(k) => k,
                None => {
                    files.push(name.to_string());
                    files.len() - 1
                }
            };
            return loc.in_file(k as u32 + 1);
        }
        if self.source.is_empty() {
            return SrcLoc::default();
        }
        let offset = (offset as usize).min(self.source.len());
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        let col = self
            .source
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        SrcLoc::new(line as u32, col as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::LineIndex;
    use parc_ir::{Activity, Linkage, Type};

    #[test]
    fn autodiff_calls_become_gradient_declarations_and_requests() {
        let src = "double f(double *a, double x, int n) { return a[0] * x * n; }\n\
                   int main() {\n\
                   double a[1]; double da[1];\n\
                   double d = __enzyme_autodiff(f, a, da, 2.0, 3);\n\
                   d += __enzyme_autodiff(f, a, da, 2.0, 4);\n\
                   __enzyme_autodiff(f, enzyme_dupnoneed, a, da, enzyme_const, 2.0, 3);\n\
                   return (int)d; }\n";
        let (ast, diags) = crate::parse::parse(src);
        assert!(!diags.iter().any(|d| d.is_error()));
        let (hir, diags) = crate::check::check(ast);
        assert!(!diags.iter().any(|d| d.is_error()), "{diags:?}");
        let m = super::lower(hir.unwrap(), "t.pc", src);
        parc_ir::verify::verify_module(&m).unwrap();
        // One declaration per activity pattern, in order of first use.
        let f = m.func_by_name("f").unwrap();
        let g1 = m.func_by_name("f.grad").unwrap();
        let g2 = m.func_by_name("f.grad.2").unwrap();
        assert_eq!(m.funcs.len(), 4);
        assert_eq!(m.funcs[g1].linkage, Linkage::Import);
        assert_eq!(
            m.funcs[g1].sig.params,
            vec![Type::Ptr, Type::Ptr, Type::F64, Type::I32]
        );
        assert_eq!(m.funcs[g1].sig.ret, Some(Type::F64));
        assert_eq!(m.funcs[g2].sig.ret, None);
        assert_eq!(m.grad_requests.len(), 2);
        let r = &m.grad_requests[0];
        assert_eq!((r.primal, r.grad, r.linkage), (f, g1, Linkage::Local));
        assert_eq!(
            r.activities,
            vec![Activity::Dup, Activity::Active, Activity::Const]
        );
        assert_eq!((r.loc.line, r.loc.col), (4, 12));
        assert_eq!(
            m.grad_requests[1].activities,
            vec![Activity::DupNoNeed, Activity::Const, Activity::Const]
        );
        // The text form shows (and reads back) the requests.
        let text = parc_ir::print::print_module(&m);
        assert!(
            text.contains("gradient @f.grad = @f(dup, active, const) local @4:12"),
            "{text}"
        );
        let back = parc_ir::read::read_module(&text).unwrap();
        assert_eq!(back.grad_requests, m.grad_requests);
    }

    #[test]
    fn line_index_agrees_with_diag() {
        let src = "int main()\n{\n  return é + 1;\n}\n";
        let index = LineIndex::new(src, None);
        for (off, _) in src.char_indices() {
            let (line, col) = crate::diag::line_col(src, off);
            let loc = index.loc(off as u32);
            assert_eq!(
                (loc.line as usize, loc.col as usize),
                (line, col),
                "offset {off}"
            );
        }
    }
}
