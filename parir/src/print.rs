//! The text form of parir, in the spirit of Cranelift's CLIF. It is
//! line-oriented and reads back with [`crate::read::read_module`]:
//! `print(read(print(m))) == print(m)` for every module whose placed
//! instructions only use values defined by placed instructions or block
//! parameters (anything the verifier accepts, and much it rejects).
//!
//! ```text
//! source "prog.pc"                                  ; Module::source_name
//! file 1 "util.h"                                   ; Module::files (`@4:2:1` is util.h's)
//! global @msg const size 7 align 1 = "hello\0A\00"  ; bytes, `\HH` escapes
//! global @tbl size 16 align 8 = zeroinit            ; no initial bytes
//!     reloc 8 = @msg + 0                            ; pointer to a global
//! global @buf shared size 2048 align 8 = zeroinit   ; GPU shared memory
//! global @optind import size 4 align 4              ; defined elsewhere
//! declare @ext(f64) -> f64                          ; linkage import
//! declare variadic @log_msg(ptr) -> i32              ; C's `...` after the ptr
//! declare local @helper(i32) -> i32                 ; retired (a name only)
//! func local kernel @k(ptr, i32) {                  ; linkage, kind
//! func device convergent @f(i32) {                  ; reaches a barrier
//! func @axpy(ptr noalias, ptr noalias, f64, i32) {   ; C's `restrict`
//! func @scale(ptr "x", f64 "a") {                    ; parameter names (messages only)
//!     v5 = alloca 8, align 8 "sum" @4:12             ; a local's name (messages only)
//! block0(v0: ptr, v1: i32):
//!     v2 = thread_idx.x
//!     ...
//! }
//! gradient @f.grad = @f(const, dup, active) local @12:5  ; Module::grad_requests
//! ```
//!
//! - Functions print as `func` (default linkage `export`) when they have a
//!   body and `declare` (default linkage `import`) when they do not; the
//!   other linkage is written after the keyword, then the kind when it is
//!   not `host`, then `convergent` for a function that may reach a
//!   barrier ([`crate::convergent`]). Globals and functions print in entity order, so the reader
//!   rebuilds the same `GlobalId`s and `FuncId`s.
//! - Blocks print in layout order (the first is the entry), with their
//!   parameters; blocks not in the layout and dead instructions are not
//!   printed. Value, block and sync-region numbers are the entity indices as
//!   stored (never renumbered), so printed IR matches debug dumps.
//! - Names are `@ident` (letters, digits, `_`, `.`, `$`, not starting with
//!   a digit) or `@"quoted"` with `\HH` escapes.
//! - A source position prints as a trailing `@line:col`.
//! - Gradient requests print last, in order, one per line:
//!   `gradient @GRAD = @PRIMAL(ACTIVITY, ...) LINKAGE` with activities
//!   `const dup dupnoneed active`, the linkage the gradient gets once the
//!   AD has run (`export` or `local`), and the position of the request
//!   (the `__enzyme_autodiff` call) when known. They come after every
//!   function so that both names are defined when a reader meets them.
//!
//! Instructions (`T` a type, `a b c p` values, `B` a block call
//! `blockN` or `blockN(v1, v2)`):
//!
//! ```text
//! vN = iconst.T 42          vN = fconst.T 1.5 | inf | -inf | 0xBITS (NaN)
//! vN = global_addr @g       vN = func_addr @f          vN = fneg a
//! vN = iadd a, b            (isub imul sdiv udiv srem urem and or xor shl lshr ashr
//!                            fadd fsub fmul fdiv)
//! vN = icmp slt a, b        vN = fcmp lt a, b
//! vN = sext.T a             (zext trunc sitofp uitofp fptosi fptoui fpext fptrunc
//!                            ptrtoint inttoptr)
//! vN = select c, a, b       vN = alloca 16, align 8
//! vN = load.T p             store a, p
//! vN = ptradd p, a          vN = call @f(a, b)           call @g(a)
//! vN = call_indirect.T p(a, b)                          call_indirect p(a)
//! vN = sqrt.f64 a           vN = thread_idx.x            barrier   (intrinsics)
//! vN = splat.f64x2 a        vN = extract_lane v, 1       vN = insert_lane v, a, 0
//! vN = reduce_fadd v        (reduce_fmul reduce_iadd reduce_imul reduce_and
//!                            reduce_or reduce_xor)
//! launch @k(a, b) grid(a, b, c) block(a, b, c)
//! jump B                    brif c, B, B
//! return                    return a
//! detach within sr0, blockT, blockC
//! reattach within sr0, blockC
//! sync within sr0, blockN   unreachable
//! ```
//!
//! **Result types.** An instruction that defines a value writes the value's
//! type as an opcode suffix (`load.f64`), except where it is implied (see
//! `implied_type`): `icmp`/`fcmp` give `i1`; `global_addr`, `func_addr`, `alloca`
//! and `ptradd` give `ptr`; a call gives its callee's return type; an intrinsic
//! with a fixed result type gives that (`malloc` → `ptr`); `fneg`,
//! binary operators, `select` and `insert_lane` give the type of their
//! first value operand (`a`), and `extract_lane` and `reduce_OP` its lane
//! type, provided `a` is defined on an earlier line, so a reader can always
//! rebuild every type in one pass. Where the stored type differs from the
//! implied one (invalid IR), the suffix is printed anyway, so the verifier
//! sees what was there.

use crate::entities::{FuncId, GlobalId, Inst, Value};
use crate::function::{
    Activity, AddrSpace, FuncKind, Function, GradRequest, Linkage, Module, SrcLoc,
};
use crate::inst::{BlockCall, InstKind};
use crate::intrinsic::OperandType;
use crate::types::Type;
use cranelift_entity::EntitySet;
use std::fmt::{self, Write};

/// The whole module in text form.
pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    if let Some(name) = &module.source_name {
        let _ = writeln!(out, "source {}", quote_bytes(name.as_bytes()));
    }
    for (k, name) in module.files.iter().enumerate() {
        let _ = writeln!(out, "file {} {}", k + 1, quote_bytes(name.as_bytes()));
    }
    for g in module.globals.keys() {
        out.push_str(&global_to_string(module, g));
    }
    for func in module.funcs.values() {
        if !out.is_empty() {
            out.push('\n');
        }
        write_function(&mut out, module, func);
    }
    if !module.grad_requests.is_empty() && !out.is_empty() {
        out.push('\n');
    }
    for req in &module.grad_requests {
        out.push_str(&grad_request_to_string(module, req));
        out.push('\n');
    }
    out
}

/// The text name of an activity.
pub fn activity_name(a: Activity) -> &'static str {
    match a {
        Activity::Const => "const",
        Activity::Dup => "dup",
        Activity::DupNoNeed => "dupnoneed",
        Activity::Active => "active",
    }
}

/// A gradient request's line (without newline), e.g.
/// `gradient @f.grad = @f(dup, active) local @3:9`.
pub fn grad_request_to_string(module: &Module, req: &GradRequest) -> String {
    let mut out = format!(
        "gradient {} = {}(",
        func_name(module, req.grad),
        func_name(module, req.primal)
    );
    for (i, &a) in req.activities.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(activity_name(a));
    }
    out.push_str(") ");
    out.push_str(match req.linkage {
        Linkage::Export => "export",
        Linkage::Local => "local",
        Linkage::Import => "import",
    });
    if req.loc.is_known() {
        write_loc(&mut out, req.loc);
    }
    out
}

/// One function of `module` in text form.
pub fn print_function(module: &Module, func: FuncId) -> String {
    match module.funcs.get(func) {
        Some(f) => function_to_string(module, f),
        None => format!("; no function {func}\n"),
    }
}

/// A function (not necessarily in `module`; the module provides the names
/// and signatures of callees and globals) in text form.
pub fn function_to_string(module: &Module, func: &Function) -> String {
    let mut out = String::new();
    write_function(&mut out, module, func);
    out
}

/// A global's line, plus one line per relocation.
pub fn global_to_string(module: &Module, g: GlobalId) -> String {
    let Some(data) = module.globals.get(g) else {
        return format!("; no global {g}\n");
    };
    let mut out = format!("global {}", name_ref(&data.name));
    if data.is_const {
        out.push_str(" const");
    }
    if data.space == AddrSpace::Shared {
        out.push_str(" shared");
    }
    if data.is_local {
        out.push_str(" local");
    }
    if data.is_import {
        let _ = writeln!(out, " import size {} align {}", data.size, data.align);
        return out;
    }
    let _ = write!(out, " size {} align {} = ", data.size, data.align);
    if data.init.is_empty() {
        out.push_str("zeroinit");
    } else {
        out.push_str(&quote_bytes(&data.init));
    }
    out.push('\n');
    for &(offset, target, addend) in &data.relocs {
        let _ = write!(out, "    reloc {offset} = {}", global_name(module, target));
        if addend < 0 {
            let _ = writeln!(out, " - {}", addend.unsigned_abs());
        } else {
            let _ = writeln!(out, " + {addend}");
        }
    }
    for &(offset, f) in &data.func_relocs {
        let _ = writeln!(
            out,
            "    reloc {offset} = func_addr {}",
            func_name(module, f)
        );
    }
    out
}

/// One instruction as it prints in a function body (no indentation, no
/// newline; the source position included when known). Every value operand
/// counts as already defined for the result-type rule, which is what a
/// message about one instruction wants.
pub fn inst_to_string(module: &Module, func: &Function, inst: Inst) -> String {
    let mut out = String::new();
    write_inst(&mut out, module, func, inst, &|v| func.values.is_valid(v));
    out
}

/// Graphviz `dot` text of every defined function's CFG, one cluster per
/// function; detach edges to tasks are bold, edges to continuations and
/// from reattaches dashed.
pub fn print_dot(module: &Module) -> String {
    let mut out = String::from("digraph parir {\n    node [shape=box, fontname=monospace];\n");
    for (fid, func) in module.funcs.iter() {
        if func.is_declaration() {
            continue;
        }
        let id = fid.as_u32();
        let _ = writeln!(out, "    subgraph cluster_{id} {{");
        let _ = writeln!(
            out,
            "        label={};",
            dot_quote(&format!("@{}", func.name))
        );
        let text = function_to_string(module, func);
        let mut blocks = text.lines().skip(1).filter(|l| *l != "}").peekable();
        for &b in &func.layout {
            // The block's lines: its header up to the next header.
            let mut label = String::new();
            if let Some(h) = blocks.next() {
                label.push_str(h);
                label.push_str("\\l");
            }
            while let Some(l) = blocks.peek() {
                if !l.starts_with(' ') {
                    break;
                }
                label.push_str(&dot_escape(l.trim_start()));
                label.push_str("\\l");
                blocks.next();
            }
            let _ = writeln!(out, "        f{id}_{b} [label=\"{label}\"];");
        }
        for &b in &func.layout {
            let Some(kind) = func
                .blocks
                .get(b)
                .and_then(|d| d.insts.last())
                .and_then(|&i| func.insts.get(i))
                .map(|d| &d.kind)
            else {
                continue;
            };
            for (n, s) in kind.successors().into_iter().enumerate() {
                let style = match kind {
                    InstKind::Detach { .. } if n == 0 => " [style=bold]",
                    InstKind::Detach { .. } | InstKind::Reattach { .. } => " [style=dashed]",
                    _ => "",
                };
                let _ = writeln!(out, "        f{id}_{b} -> f{id}_{s}{style};");
            }
        }
        out.push_str("    }\n");
    }
    out.push_str("}\n");
    out
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn dot_quote(s: &str) -> String {
    format!("\"{}\"", dot_escape(s))
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_module(self))
    }
}

fn write_function(out: &mut String, module: &Module, func: &Function) {
    let body = !func.layout.is_empty();
    out.push_str(if body { "func" } else { "declare" });
    match (body, func.linkage) {
        (true, Linkage::Export) | (false, Linkage::Import) => {}
        (_, Linkage::Export) => out.push_str(" export"),
        (_, Linkage::Local) => out.push_str(" local"),
        (_, Linkage::Import) => out.push_str(" import"),
    }
    match func.kind {
        FuncKind::Host => {}
        FuncKind::Kernel => out.push_str(" kernel"),
        FuncKind::Device => out.push_str(" device"),
    }
    if func.convergent {
        out.push_str(" convergent");
    }
    if func.variadic {
        out.push_str(" variadic");
    }
    let _ = write!(out, " {}(", name_ref(&func.name));
    for (i, ty) in func.sig.params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(ty.name());
        if func.param_noalias(i) {
            out.push_str(" noalias");
        }
        if let Some(n) = func.param_name(i) {
            out.push(' ');
            out.push_str(&quote_bytes(n.as_bytes()));
        }
    }
    out.push(')');
    if let Some(ret) = func.sig.ret {
        let _ = write!(out, " -> {ret}");
    }
    if !body {
        out.push('\n');
        return;
    }
    out.push_str(" {\n");
    // Values whose definition has been printed: the ones a reader knows the
    // type of when it reaches a use.
    let mut defined = EntitySet::<Value>::new();
    for &b in &func.layout {
        let _ = write!(out, "{b}");
        let params = func.blocks.get(b).map_or(&[][..], |d| &d.params[..]);
        if !params.is_empty() {
            out.push('(');
            for (i, &p) in params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let ty = func.values.get(p).map_or("?", |d| d.ty.name());
                let _ = write!(out, "{p}: {ty}");
                if func.values.is_valid(p) {
                    defined.insert(p);
                }
            }
            out.push(')');
        }
        out.push_str(":\n");
        let insts = func.blocks.get(b).map_or(&[][..], |d| &d.insts[..]);
        for &inst in insts {
            out.push_str("    ");
            write_inst(out, module, func, inst, &|v| defined.contains(v));
            out.push('\n');
            if let Some(r) = func.insts.get(inst).and_then(|d| d.result)
                && func.values.is_valid(r)
            {
                defined.insert(r);
            }
        }
    }
    out.push_str("}\n");
}

/// The result type a reader infers for `kind` when no suffix is written
/// (see the module doc). `known` gives the type of a value operand that
/// is defined on an earlier line, and none otherwise.
pub(crate) fn implied_type(
    module: &Module,
    kind: &InstKind,
    known: &dyn Fn(Value) -> Option<Type>,
) -> Option<Type> {
    use InstKind::*;
    match kind {
        GlobalAddr(_) | FuncAddr(_) | Alloca { .. } | PtrAdd(..) => Some(Type::Ptr),
        Icmp(_, a, _) | Fcmp(_, a, _) => Some(known(*a).map_or(Type::I1, Type::compare_result)),
        Unary(_, a) | Binary(_, a, _) | InsertLane(a, ..) => known(*a),
        Select(_, a, b) => known(*a).or_else(|| known(*b)),
        ExtractLane(a, _) | Reduce(_, a) => known(*a).map(Type::lane_type),
        Call { func, .. } => module.funcs.get(*func).and_then(|f| f.sig.ret),
        Intrinsic { op, .. } => match op.signature().1 {
            Some(OperandType::Fixed(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// The text name of an instruction's opcode (without type suffix).
pub(crate) fn opcode_name(kind: &InstKind) -> String {
    use InstKind::*;
    match kind {
        Iconst(_) => "iconst".into(),
        Fconst(_) => "fconst".into(),
        GlobalAddr(_) => "global_addr".into(),
        FuncAddr(_) => "func_addr".into(),
        Unary(op, _) => match op {
            crate::inst::UnaryOp::Fneg => "fneg".into(),
        },
        Binary(op, ..) => op.name().into(),
        Icmp(..) => "icmp".into(),
        Fcmp(..) => "fcmp".into(),
        Cast(op, _) => op.name().into(),
        Select(..) => "select".into(),
        Splat(_) => "splat".into(),
        ExtractLane(..) => "extract_lane".into(),
        InsertLane(..) => "insert_lane".into(),
        Reduce(op, _) => format!("reduce_{}", op.name()),
        Alloca { .. } => "alloca".into(),
        Load(_) => "load".into(),
        Store { .. } => "store".into(),
        PtrAdd(..) => "ptradd".into(),
        Call { .. } => "call".into(),
        CallIndirect { .. } => "call_indirect".into(),
        Intrinsic { op, .. } => op.name(),
        Launch { .. } => "launch".into(),
        Jump(_) => "jump".into(),
        Brif { .. } => "brif".into(),
        Return(_) => "return".into(),
        Detach { .. } => "detach".into(),
        Reattach { .. } => "reattach".into(),
        Sync { .. } => "sync".into(),
        Unreachable => "unreachable".into(),
    }
}

fn write_inst(
    out: &mut String,
    module: &Module,
    func: &Function,
    inst: Inst,
    defined: &dyn Fn(Value) -> bool,
) {
    let Some(data) = func.insts.get(inst) else {
        let _ = write!(out, "; no instruction {inst}");
        return;
    };
    let kind = &data.kind;
    let result = data.result;
    if let Some(r) = result {
        let _ = write!(out, "{r} = ");
    }
    out.push_str(&opcode_name(kind));
    if let Some(r) = result {
        let ty = func.values.get(r).map(|d| d.ty);
        let known = |v: Value| {
            if defined(v) {
                func.values.get(v).map(|d| d.ty)
            } else {
                None
            }
        };
        let implied = implied_type(module, kind, &known);
        if let Some(ty) = ty
            && Some(ty) != implied
        {
            let _ = write!(out, ".{ty}");
        }
    }
    write_operands(out, module, kind);
    if let Some(name) = func.local_names.get(&inst) {
        out.push(' ');
        out.push_str(&quote_bytes(name.as_bytes()));
    }
    if let Some(loc) = func.locs.get(inst)
        && loc.is_known()
    {
        write_loc(out, *loc);
    }
}

/// ` @line:col`, or ` @line:col:file` outside the module's own file.
fn write_loc(out: &mut String, loc: SrcLoc) {
    let _ = write!(out, " @{}:{}", loc.line, loc.col);
    if loc.file != 0 {
        let _ = write!(out, ":{}", loc.file);
    }
}

fn write_operands(out: &mut String, module: &Module, kind: &InstKind) {
    use InstKind::*;
    match kind {
        Iconst(imm) => {
            let _ = write!(out, " {imm}");
        }
        Fconst(imm) => {
            let _ = write!(out, " {}", format_float(*imm));
        }
        GlobalAddr(g) => {
            let _ = write!(out, " {}", global_name(module, *g));
        }
        FuncAddr(f) => {
            let _ = write!(out, " {}", func_name(module, *f));
        }
        Unary(_, a) | Cast(_, a) | Load(a) | Splat(a) | Reduce(_, a) => {
            let _ = write!(out, " {a}");
        }
        ExtractLane(a, lane) => {
            let _ = write!(out, " {a}, {lane}");
        }
        InsertLane(a, b, lane) => {
            let _ = write!(out, " {a}, {b}, {lane}");
        }
        Binary(_, a, b) | PtrAdd(a, b) => {
            let _ = write!(out, " {a}, {b}");
        }
        Icmp(cc, a, b) => {
            let _ = write!(out, " {} {a}, {b}", cc.name());
        }
        Fcmp(cc, a, b) => {
            let _ = write!(out, " {} {a}, {b}", cc.name());
        }
        Select(c, a, b) => {
            let _ = write!(out, " {c}, {a}, {b}");
        }
        Alloca { size, align } => {
            let _ = write!(out, " {size}, align {align}");
        }
        Store { value, ptr } => {
            let _ = write!(out, " {value}, {ptr}");
        }
        Call { func, args } => {
            let _ = write!(out, " {}(", func_name(module, *func));
            write_list(out, args);
            out.push(')');
        }
        CallIndirect { callee, args } => {
            let _ = write!(out, " {callee}(");
            write_list(out, args);
            out.push(')');
        }
        Intrinsic { args, .. } => {
            if !args.is_empty() {
                out.push(' ');
                write_list(out, args);
            }
        }
        Launch {
            kernel,
            grid,
            block,
            args,
        } => {
            let _ = write!(out, " {}(", func_name(module, *kernel));
            write_list(out, args);
            out.push_str(") grid(");
            write_list(out, grid);
            out.push_str(") block(");
            write_list(out, block);
            out.push(')');
        }
        Jump(dest) => {
            out.push(' ');
            write_block_call(out, dest);
        }
        Brif {
            cond,
            then_dest,
            else_dest,
        } => {
            let _ = write!(out, " {cond}, ");
            write_block_call(out, then_dest);
            out.push_str(", ");
            write_block_call(out, else_dest);
        }
        Return(v) => {
            if let Some(v) = v {
                let _ = write!(out, " {v}");
            }
        }
        Detach { region, task, cont } => {
            let _ = write!(out, " within {region}, {task}, {cont}");
        }
        Reattach { region, cont } => {
            let _ = write!(out, " within {region}, {cont}");
        }
        Sync { region, next } => {
            let _ = write!(out, " within {region}, {next}");
        }
        Unreachable => {}
    }
}

fn write_list(out: &mut String, values: &[Value]) {
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{v}");
    }
}

fn write_block_call(out: &mut String, call: &BlockCall) {
    let _ = write!(out, "{}", call.block);
    if !call.args.is_empty() {
        out.push('(');
        write_list(out, &call.args);
        out.push(')');
    }
}

/// `@name` of a function; a dangling id prints as a name no module
/// defines, so reading it back fails with "undefined function".
fn func_name(module: &Module, f: FuncId) -> String {
    match module.funcs.get(f) {
        Some(data) => name_ref(&data.name),
        None => name_ref(&format!("?{f}")),
    }
}

fn global_name(module: &Module, g: GlobalId) -> String {
    match module.globals.get(g) {
        Some(data) => name_ref(&data.name),
        None => name_ref(&format!("?{g}")),
    }
}

/// True for names that print without quotes.
pub(crate) fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || "_.$".contains(c))
        && chars.all(|c| c.is_ascii_alphanumeric() || "_.$".contains(c))
}

/// `@name`, quoted when it is not a plain identifier.
pub fn name_ref(name: &str) -> String {
    if is_plain_name(name) {
        format!("@{name}")
    } else {
        format!("@{}", quote_bytes(name.as_bytes()))
    }
}

/// A double-quoted string: printable ASCII as is, `"`, `\` and every other
/// byte as `\HH` (two upper-case hex digits).
pub fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\{b:02X}");
        }
    }
    out.push('"');
    out
}

/// A float that reads back to the same bits: Rust's shortest round-trip
/// decimal for finite values, `inf`/`-inf`, and raw `0x` bits for NaNs
/// (whose payload and sign a decimal cannot carry).
pub fn format_float(x: f64) -> String {
    if x.is_nan() {
        format!("0x{:016X}", x.to_bits())
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{x:?}")
    }
}
