//! The tape: a growable stack of 8-byte slots in heap memory.
//!
//! A tape is a 24-byte header `{ ptr data, i64 len, i64 cap }` (lengths in
//! slots). The combined gradient function keeps its header in an `alloca`
//! (zero-filled, so an empty tape needs no initialization) and passes its
//! address to every `.aug`/`.rev` it calls. Each parallel task records onto
//! a header of its own (see `parallel.rs`).
//!
//! Values are moved in *frames*: a forward block reserves `n` slots at once
//! with `__parc_ad_tape_push(tape, n) -> ptr` and stores its values at
//! `ptr + 8k`; its reverse block releases the same frame with
//! `__parc_ad_tape_pop(tape, n) -> ptr` and loads them back. Frames are
//! pushed and popped in LIFO order (that is the reversal's invariant), so a
//! pop always returns the frame its block pushed.
//!
//! Invariant: the helpers are ordinary parir functions (`Local` linkage)
//! added to the module once; growth uses `realloc` (capacity doubles, at
//! least 16 slots), so pushes are amortized O(1). A loop whose records per
//! iteration are known reserves them all before it starts
//! (`__parc_ad_tape_reserve`) and stores iteration `k`'s records at a place
//! computed from `k` (`Indexed` in `reverse.rs`). `__parc_ad_tape_free`
//! releases the data at the end of the reversal.

use parc_ir::{
    BinaryOp, FuncBuilder, FuncId, IntCC, Intrinsic, Linkage, Module, Signature, Type, new_function,
};

/// Byte offsets of the header's fields.
pub const DATA: i64 = 0;
pub const LEN: i64 = 8;
pub const CAP: i64 = 16;
/// Size of a tape header in bytes.
pub const HEADER_BYTES: u32 = 24;

/// The tape helper functions of a module.
#[derive(Clone, Copy, Debug)]
pub struct TapeFns {
    pub push: FuncId,
    pub pop: FuncId,
    pub free: FuncId,
    /// `reserve(tape, n)`: room for `n` more slots (a loop whose records
    /// per iteration are bounded reserves them once before it starts).
    pub reserve: FuncId,
}

/// Adds the helpers to `module` (or finds them, if an earlier run added them).
pub fn ensure_helpers(module: &mut Module) -> TapeFns {
    let reserve = find_or_add(module, "__parc_ad_tape_reserve", build_reserve);
    let push = find_or_add(module, "__parc_ad_tape_push", build_push);
    let pop = find_or_add(module, "__parc_ad_tape_pop", build_pop);
    let free = find_or_add(module, "__parc_ad_tape_free", build_free);
    TapeFns {
        push,
        pop,
        free,
        reserve,
    }
}

fn find_or_add(
    module: &mut Module,
    name: &str,
    build: impl FnOnce(&str) -> parc_ir::Function,
) -> FuncId {
    if let Some(id) = module.func_by_name(name) {
        return id;
    }
    let mut f = build(name);
    f.linkage = Linkage::Local;
    module.funcs.push(f)
}

fn field(b: &mut FuncBuilder, tape: parc_ir::Value, off: i64) -> parc_ir::Value {
    let o = b.iconst(Type::I64, off);
    b.ptradd(tape, o)
}

/// A helper `name(ptr tape, i64 n) -> ret` whose body `body` emits (the
/// builder at its entry).
fn tape_helper(
    name: &str,
    ret: Option<Type>,
    body: impl FnOnce(&mut FuncBuilder, parc_ir::Value, parc_ir::Value),
) -> parc_ir::Function {
    let sig = Signature {
        params: vec![Type::Ptr, Type::I64],
        ret,
    };
    let mut f = new_function(name, sig);
    let entry = f.layout[0];
    let (tape, n) = (f.blocks[entry].params[0], f.blocks[entry].params[1]);
    let mut b = FuncBuilder::new(&mut f);
    b.switch_to(entry);
    body(&mut b, tape, n);
    f
}

/// `push(tape, n) -> ptr`: reserves `n` slots and returns the first. A leaf
/// (no calls), so that the inliner puts it into every frame's push.
fn build_push(name: &str) -> parc_ir::Function {
    tape_helper(name, Some(Type::Ptr), |b, tape, n| {
        let (len, need) = ensure_room(b, tape, n);
        let slot = take(b, tape, len, need);
        note_slots(b, n, 8);
        b.ret(Some(slot));
    })
}

/// `reserve(tape, n)`: room for `len + n` slots.
fn build_reserve(name: &str) -> parc_ir::Function {
    tape_helper(name, None, |b, tape, n| {
        ensure_room(b, tape, n);
        b.ret(None);
    })
}

/// Grows the data (capacity doubles, at least 16 slots: a kernel launch's
/// reverse keeps a tape per thread, most of them short) unless `len + n`
/// slots fit; returns `(len, len + n)`, leaving the builder after it.
fn ensure_room(
    b: &mut FuncBuilder,
    tape: parc_ir::Value,
    n: parc_ir::Value,
) -> (parc_ir::Value, parc_ir::Value) {
    let len_p = field(b, tape, LEN);
    let cap_p = field(b, tape, CAP);
    let len = b.load(Type::I64, len_p);
    let cap = b.load(Type::I64, cap_p);
    let need = b.binary(BinaryOp::Iadd, len, n);
    let full = b.icmp(IntCC::Sgt, need, cap);
    let grow = b.create_block();
    let done = b.create_block();
    b.brif(
        full,
        parc_ir::BlockCall::to(grow),
        parc_ir::BlockCall::to(done),
    );
    b.switch_to(grow);
    let two = b.iconst(Type::I64, 2);
    let dbl = b.binary(BinaryOp::Imul, cap, two);
    let c1 = b.icmp(IntCC::Sgt, dbl, need);
    let m1 = b.select(c1, dbl, need);
    let min = b.iconst(Type::I64, 16);
    let c2 = b.icmp(IntCC::Sgt, m1, min);
    let newcap = b.select(c2, m1, min);
    let eight = b.iconst(Type::I64, 8);
    let bytes = b.binary(BinaryOp::Imul, newcap, eight);
    let data_p = field(b, tape, DATA);
    let old = b.load(Type::Ptr, data_p);
    let new = b
        .intrinsic(Intrinsic::Realloc, Some(Type::Ptr), vec![old, bytes])
        .expect("realloc has a result");
    b.store(new, data_p);
    b.store(newcap, cap_p);
    let grown = b.binary(BinaryOp::Isub, newcap, cap);
    let grown = b.binary(BinaryOp::Imul, grown, eight);
    let zero = b.iconst(Type::I64, 0);
    note(b, zero, grown);
    b.jump(done, vec![]);
    b.switch_to(done);
    (len, need)
}

/// Sets the tape's length to `len` and returns the address of slot `at`.
fn take(
    b: &mut FuncBuilder,
    tape: parc_ir::Value,
    at: parc_ir::Value,
    len: parc_ir::Value,
) -> parc_ir::Value {
    let len_p = field(b, tape, LEN);
    b.store(len, len_p);
    let data_p = field(b, tape, DATA);
    let data = b.load(Type::Ptr, data_p);
    let eight = b.iconst(Type::I64, 8);
    let off = b.binary(BinaryOp::Imul, at, eight);
    b.ptradd(data, off)
}

/// `pop(tape, n) -> ptr`: releases the top `n` slots and returns the first.
fn build_pop(name: &str) -> parc_ir::Function {
    tape_helper(name, Some(Type::Ptr), |b, tape, n| {
        let len_p = field(b, tape, LEN);
        let len = b.load(Type::I64, len_p);
        let new_len = b.binary(BinaryOp::Isub, len, n);
        let slot = take(b, tape, new_len, new_len);
        note_slots(b, n, -8);
        b.ret(Some(slot));
    })
}

/// `free(tape)`: releases the data and empties the header.
fn build_free(name: &str) -> parc_ir::Function {
    let sig = Signature {
        params: vec![Type::Ptr],
        ret: None,
    };
    let mut f = new_function(name, sig);
    let entry = f.layout[0];
    let tape = f.blocks[entry].params[0];
    let mut b = FuncBuilder::new(&mut f);
    b.switch_to(entry);
    let data_p = field(&mut b, tape, DATA);
    let data = b.load(Type::Ptr, data_p);
    b.intrinsic(Intrinsic::Free, None, vec![data]);
    // What is still recorded (normally nothing: every frame was popped)
    // and the capacity go.
    let len_p = field(&mut b, tape, LEN);
    let len = b.load(Type::I64, len_p);
    let cap_p = field(&mut b, tape, CAP);
    let cap = b.load(Type::I64, cap_p);
    let minus8 = b.iconst(Type::I64, -8);
    let recorded = b.binary(BinaryOp::Imul, len, minus8);
    let allocated = b.binary(BinaryOp::Imul, cap, minus8);
    note(&mut b, recorded, allocated);
    let zero = b.iconst(Type::I64, 0);
    let null = b.null();
    b.store(null, data_p);
    b.store(zero, len_p);
    b.store(zero, cap_p);
    b.ret(None);
    f
}

/// `ad_tape_note(recorded, allocated)` (see `parc_ir::Intrinsic::AdTapeNote`):
/// what `PARC_AD_STATS` counts. Every change of tape memory the generated
/// code makes is noted where it is made: here for tapes that grow, and
/// where the reverse allocates a parallel loop's tape headers or record
/// buffer (`reverse/ploops.rs`) or moves an indexed loop's length
/// (`reverse/frames.rs`), so that the run-time peak of `recorded` is what
/// `tape_report.rs` predicts.
pub(crate) fn note(b: &mut FuncBuilder, recorded: parc_ir::Value, allocated: parc_ir::Value) {
    b.intrinsic(Intrinsic::AdTapeNote, None, vec![recorded, allocated]);
}

/// Notes `n` slots recorded (`per_slot` 8) or released (-8).
fn note_slots(b: &mut FuncBuilder, n: parc_ir::Value, per_slot: i64) {
    let k = b.iconst(Type::I64, per_slot);
    let recorded = b.binary(BinaryOp::Imul, n, k);
    let zero = b.iconst(Type::I64, 0);
    note(b, recorded, zero);
}

/// Helpers for the reverse of `memcpy`: `acc(dsrc, ddst, bytes)` adds the
/// destination's adjoints into the source's and zeroes the destination's,
/// element by element.
#[derive(Clone, Copy, Debug)]
pub struct AccFns {
    pub f32: FuncId,
    pub f64: FuncId,
}

pub fn ensure_acc(module: &mut Module) -> AccFns {
    let f32 = find_or_add(module, "__parc_ad_acc_f32", |n| build_acc(n, Type::F32));
    let f64 = find_or_add(module, "__parc_ad_acc_f64", |n| build_acc(n, Type::F64));
    AccFns { f32, f64 }
}

fn build_acc(name: &str, ty: Type) -> parc_ir::Function {
    let sig = Signature {
        params: vec![Type::Ptr, Type::Ptr, Type::I64],
        ret: None,
    };
    let mut f = new_function(name, sig);
    let entry = f.layout[0];
    let ps = f.blocks[entry].params.clone();
    let (dsrc, ddst, bytes) = (ps[0], ps[1], ps[2]);
    let mut b = FuncBuilder::new(&mut f);
    b.switch_to(entry);
    let head = b.create_block();
    let body = b.create_block();
    let done = b.create_block();
    let zero = b.iconst(Type::I64, 0);
    b.jump(head, vec![zero]);
    b.switch_to(head);
    let off = b.param(head, Type::I64);
    let c = b.icmp(IntCC::Slt, off, bytes);
    b.brif(
        c,
        parc_ir::BlockCall::to(body),
        parc_ir::BlockCall::to(done),
    );
    b.switch_to(body);
    let ps = b.ptradd(dsrc, off);
    let pd = b.ptradd(ddst, off);
    let s = b.load(ty, ps);
    let d = b.load(ty, pd);
    let sum = b.binary(BinaryOp::Fadd, s, d);
    b.store(sum, ps);
    let z = b.fconst(ty, 0.0);
    b.store(z, pd);
    let step = b.iconst(Type::I64, ty.bytes() as i64);
    let next = b.binary(BinaryOp::Iadd, off, step);
    b.jump(head, vec![next]);
    b.switch_to(done);
    b.ret(None);
    f
}
