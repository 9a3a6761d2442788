//! The tape: a stack of 8-byte slots in heap memory, grown by chunks.
//!
//! A tape is a 24-byte header `{ ptr data, i64 len, i64 cap }` (lengths in
//! slots) over its current *chunk*: `data` is the chunk's first slot,
//! `len` and `cap` count slots in that chunk. The combined gradient
//! function keeps its header in an `alloca` (zero-filled, so an empty tape
//! needs no initialization) and passes its address to every `.aug`/`.rev`
//! it calls. Each parallel task records onto a header of its own (see
//! `parallel.rs`), or onto its worker's stream (`reverse/ploops.rs`).
//!
//! Values are moved in *frames*: a forward block reserves `n` slots at once
//! with `__parc_ad_tape_push(tape, n) -> ptr` and stores its values at
//! `ptr + 8k`; its reverse block releases the same frame with
//! `__parc_ad_tape_pop(tape, n) -> ptr` and loads them back. Frames are
//! pushed and popped in LIFO order (that is the reversal's invariant), so a
//! pop always returns the frame its block pushed.
//!
//! Chunks: a frame that does not fit in the current chunk goes whole into
//! the next one (`__parc_ad_tape_grow`, out of line: the pushes inlined
//! into every frame only test the room), which is allocated for at least
//! the frame and twice the current chunk, so chunks are few. Records never
//! move: no copy of the tape on growth, and a pointer into a chunk stays
//! valid while the tape grows (what workers' streams rely on). Each chunk
//! has a [`PREFIX_BYTES`] prefix below its `data`: the chunk it followed
//! and that chunk's length when the frame overflowed (`PREV`, `PREV_LEN`),
//! its own capacity (`CHUNK_CAP`) and the chunk after it (`NEXT`). A pop
//! that finds fewer than `n` slots in the chunk goes back to the previous
//! chunk first (`__parc_ad_tape_back`) and keeps the chunk it left for the
//! next growth; `__parc_ad_tape_free` frees every chunk of the tape's
//! chain. A header whose `data` is not a chunk (a parallel task's part of
//! a sized buffer, a kernel thread's slice) has room for all its frames:
//! it never grows, so nothing reads a prefix there.
//!
//! Invariant: the helpers are ordinary parir functions (`Local` linkage)
//! added to the module once. A loop whose records per iteration are known
//! reserves them all before it starts (`__parc_ad_tape_reserve`: that many
//! slots contiguous in one chunk) and stores iteration `k`'s records at a
//! place computed from `k` (`Indexed` in `reverse.rs`); its reverse
//! releases them with one pop. The spawn sites' lists of task tapes are
//! plain growable arrays (`__parc_ad_list_push`, `realloc`): the reverse
//! reads them as one array and frees them with `free`.

use parc_ir::{
    BinaryOp, FuncBuilder, FuncId, IntCC, Intrinsic, Linkage, Module, Signature, Type, new_function,
};

/// Byte offsets of the header's fields.
pub const DATA: i64 = 0;
pub const LEN: i64 = 8;
pub const CAP: i64 = 16;
/// Size of a tape header in bytes.
pub const HEADER_BYTES: u32 = 24;

/// Byte offsets, from a chunk's `data`, of its prefix's fields.
const PREV: i64 = -32;
const PREV_LEN: i64 = -24;
const CHUNK_CAP: i64 = -16;
const NEXT: i64 = -8;
/// Bytes of a chunk's prefix.
pub const PREFIX_BYTES: i64 = 32;
/// Slots of the smallest chunk: a kernel launch's reverse keeps a tape per
/// thread, most of them short.
const MIN_SLOTS: i64 = 16;

/// The tape helper functions of a module.
#[derive(Clone, Copy, Debug)]
pub struct TapeFns {
    pub push: FuncId,
    pub pop: FuncId,
    pub free: FuncId,
    /// `reserve(tape, n)`: room for `n` more slots (a loop whose records
    /// per iteration are bounded reserves them once before it starts).
    pub reserve: FuncId,
    /// `push` and `pop` that note nothing: slots that hold memory of the
    /// AD's own rather than records (shadows, see `reverse/shadows.rs`;
    /// the chunks holding them are noted where they are allocated).
    pub push_unnoted: FuncId,
    pub pop_unnoted: FuncId,
    /// `list_push(list, n) -> ptr`: `n` more slots at the end of a plain
    /// growable array with a tape's header (spawn sites' lists of tapes).
    pub list_push: FuncId,
}

/// Adds the helpers to `module` (or finds them, if an earlier run added them).
pub fn ensure_helpers(module: &mut Module) -> TapeFns {
    let grow = find_or_add(module, "__parc_ad_tape_grow", build_grow);
    let back = find_or_add(module, "__parc_ad_tape_back", build_back);
    let reserve = find_or_add(module, "__parc_ad_tape_reserve", |n| build_reserve(n, grow));
    let push = find_or_add(module, "__parc_ad_tape_push", |n| build_push(n, grow, true));
    let pop = find_or_add(module, "__parc_ad_tape_pop", |n| build_pop(n, back, true));
    let push_unnoted = find_or_add(module, "__parc_ad_tape_push_unnoted", |n| {
        build_push(n, grow, false)
    });
    let pop_unnoted = find_or_add(module, "__parc_ad_tape_pop_unnoted", |n| {
        build_pop(n, back, false)
    });
    let free = find_or_add(module, "__parc_ad_tape_free", build_free);
    let list_push = find_or_add(module, "__parc_ad_list_push", build_list_push);
    TapeFns {
        push,
        pop,
        free,
        reserve,
        push_unnoted,
        pop_unnoted,
        list_push,
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

/// A helper `name(ptr tape)` whose body `body` emits (the builder at its
/// entry).
fn tape_only_helper(
    name: &str,
    body: impl FnOnce(&mut FuncBuilder, parc_ir::Value),
) -> parc_ir::Function {
    let sig = Signature {
        params: vec![Type::Ptr],
        ret: None,
    };
    let mut f = new_function(name, sig);
    let entry = f.layout[0];
    let tape = f.blocks[entry].params[0];
    let mut b = FuncBuilder::new(&mut f);
    b.switch_to(entry);
    body(&mut b, tape);
    f
}

/// The capacity to grow `cap` slots to for `need`: twice `cap`, at least
/// `need` and [`MIN_SLOTS`].
fn grown_capacity(
    b: &mut FuncBuilder,
    cap: parc_ir::Value,
    need: parc_ir::Value,
) -> parc_ir::Value {
    let two = b.iconst(Type::I64, 2);
    let dbl = b.binary(BinaryOp::Imul, cap, two);
    let c1 = b.icmp(IntCC::Sgt, dbl, need);
    let m1 = b.select(c1, dbl, need);
    let min = b.iconst(Type::I64, MIN_SLOTS);
    let c2 = b.icmp(IntCC::Sgt, m1, min);
    b.select(c2, m1, min)
}

/// `push(tape, n) -> ptr`: reserves `n` slots and returns the first.
/// Small (growth is a call), so that the inliner puts it into every
/// frame's push.
fn build_push(name: &str, grow: FuncId, noted: bool) -> parc_ir::Function {
    tape_helper(name, Some(Type::Ptr), |b, tape, n| {
        let len = ensure_room(b, tape, n, grow);
        let need = b.binary(BinaryOp::Iadd, len, n);
        let slot = take(b, tape, len, need);
        if noted {
            note_slots(b, n, 8);
        }
        b.ret(Some(slot));
    })
}

/// `reserve(tape, n)`: `n` slots free in the current chunk.
fn build_reserve(name: &str, grow: FuncId) -> parc_ir::Function {
    tape_helper(name, None, |b, tape, n| {
        ensure_room(b, tape, n, grow);
        b.ret(None);
    })
}

/// Calls `grow(tape, n)` unless `len + n` slots fit in the current chunk;
/// returns the length then (0 after a growth), leaving the builder after it.
fn ensure_room(
    b: &mut FuncBuilder,
    tape: parc_ir::Value,
    n: parc_ir::Value,
    grow: FuncId,
) -> parc_ir::Value {
    let len_p = field(b, tape, LEN);
    let cap_p = field(b, tape, CAP);
    let len = b.load(Type::I64, len_p);
    let cap = b.load(Type::I64, cap_p);
    let need = b.binary(BinaryOp::Iadd, len, n);
    let full = b.icmp(IntCC::Sgt, need, cap);
    let grown = b.create_block();
    let done = b.create_block();
    let at = b.param(done, Type::I64);
    b.brif(
        full,
        parc_ir::BlockCall::to(grown),
        parc_ir::BlockCall::new(done, vec![len]),
    );
    b.switch_to(grown);
    b.call(grow, None, vec![tape, n]);
    let zero = b.iconst(Type::I64, 0);
    b.jump(done, vec![zero]);
    b.switch_to(done);
    at
}

/// `grow(tape, n)`: moves the tape to a chunk with room for `n` slots,
/// empty: the chunk after the current one if it is big enough (a tape
/// that was popped back keeps it), a new one otherwise (at least `n`
/// slots, twice the current chunk and [`MIN_SLOTS`]), put between the
/// current chunk and the one after it.
fn build_grow(name: &str) -> parc_ir::Function {
    tape_helper(name, None, |b, tape, n| {
        let data_p = field(b, tape, DATA);
        let len_p = field(b, tape, LEN);
        let cap_p = field(b, tape, CAP);
        let old = b.load(Type::Ptr, data_p);
        let len = b.load(Type::I64, len_p);
        let cap = b.load(Type::I64, cap_p);
        let null = b.null();
        let has_old = b.icmp(IntCC::Ne, old, null);
        // The chunk after the current one, if any.
        let look = b.create_block();
        let decide = b.create_block();
        let next = b.param(decide, Type::Ptr);
        b.brif(
            has_old,
            parc_ir::BlockCall::to(look),
            parc_ir::BlockCall::new(decide, vec![null]),
        );
        b.switch_to(look);
        let np = field(b, old, NEXT);
        let nx = b.load(Type::Ptr, np);
        b.jump(decide, vec![nx]);
        b.switch_to(decide);
        let fresh = b.create_block();
        let check = b.create_block();
        let enter = b.create_block();
        let chunk = b.param(enter, Type::Ptr);
        let has_next = b.icmp(IntCC::Ne, next, null);
        b.brif(
            has_next,
            parc_ir::BlockCall::to(check),
            parc_ir::BlockCall::to(fresh),
        );
        b.switch_to(check);
        let ncap_p = field(b, next, CHUNK_CAP);
        let ncap = b.load(Type::I64, ncap_p);
        let fits = b.icmp(IntCC::Sge, ncap, n);
        b.brif(
            fits,
            parc_ir::BlockCall::new(enter, vec![next]),
            parc_ir::BlockCall::to(fresh),
        );
        b.switch_to(fresh);
        let newcap = grown_capacity(b, cap, n);
        let eight = b.iconst(Type::I64, 8);
        let bytes = b.binary(BinaryOp::Imul, newcap, eight);
        let prefix = b.iconst(Type::I64, PREFIX_BYTES);
        let bytes = b.binary(BinaryOp::Iadd, bytes, prefix);
        let block = b
            .intrinsic(Intrinsic::Malloc, Some(Type::Ptr), vec![bytes])
            .expect("malloc has a result");
        let new = b.ptradd(block, prefix);
        let at = field(b, new, CHUNK_CAP);
        b.store(newcap, at);
        let at = field(b, new, NEXT);
        b.store(next, at);
        let zero = b.iconst(Type::I64, 0);
        note(b, zero, bytes);
        // Linked after the current chunk (none: the tape's first).
        let link = b.create_block();
        b.brif(
            has_old,
            parc_ir::BlockCall::to(link),
            parc_ir::BlockCall::new(enter, vec![new]),
        );
        b.switch_to(link);
        let at = field(b, old, NEXT);
        b.store(new, at);
        b.jump(enter, vec![new]);
        b.switch_to(enter);
        let at = field(b, chunk, PREV);
        b.store(old, at);
        let at = field(b, chunk, PREV_LEN);
        b.store(len, at);
        let ccap_p = field(b, chunk, CHUNK_CAP);
        let ccap = b.load(Type::I64, ccap_p);
        b.store(chunk, data_p);
        let zero = b.iconst(Type::I64, 0);
        b.store(zero, len_p);
        b.store(ccap, cap_p);
        b.ret(None);
    })
}

/// `back(tape)`: the tape's previous chunk, at the length it had when the
/// current one was entered (the current one stays, as the next chunk).
fn build_back(name: &str) -> parc_ir::Function {
    tape_only_helper(name, |b, tape| {
        let data_p = field(b, tape, DATA);
        let data = b.load(Type::Ptr, data_p);
        let at = field(b, data, PREV);
        let prev = b.load(Type::Ptr, at);
        let at = field(b, data, PREV_LEN);
        let len = b.load(Type::I64, at);
        let at = field(b, prev, CHUNK_CAP);
        let cap = b.load(Type::I64, at);
        b.store(prev, data_p);
        let len_p = field(b, tape, LEN);
        b.store(len, len_p);
        let cap_p = field(b, tape, CAP);
        b.store(cap, cap_p);
        b.ret(None);
    })
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

/// `pop(tape, n) -> ptr`: releases the top `n` slots and returns the
/// first; a frame the current chunk does not hold is the previous chunk's
/// last (frames never straddle chunks).
fn build_pop(name: &str, back: FuncId, noted: bool) -> parc_ir::Function {
    tape_helper(name, Some(Type::Ptr), |b, tape, n| {
        let len_p = field(b, tape, LEN);
        let len = b.load(Type::I64, len_p);
        let short = b.icmp(IntCC::Slt, len, n);
        let went = b.create_block();
        let done = b.create_block();
        let have = b.param(done, Type::I64);
        b.brif(
            short,
            parc_ir::BlockCall::to(went),
            parc_ir::BlockCall::new(done, vec![len]),
        );
        b.switch_to(went);
        b.call(back, None, vec![tape]);
        let len_p = field(b, tape, LEN);
        let len = b.load(Type::I64, len_p);
        b.jump(done, vec![len]);
        b.switch_to(done);
        let new_len = b.binary(BinaryOp::Isub, have, n);
        let slot = take(b, tape, new_len, new_len);
        if noted {
            note_slots(b, n, -8);
        }
        b.ret(Some(slot));
    })
}

/// `free(tape)`: frees every chunk of the tape's chain (from its first,
/// reached by `PREV`, along `NEXT`) and empties the header.
fn build_free(name: &str) -> parc_ir::Function {
    tape_only_helper(name, |b, tape| {
        let data_p = field(b, tape, DATA);
        let data = b.load(Type::Ptr, data_p);
        // What is still recorded in the current chunk (normally nothing:
        // every frame was popped) goes.
        let len_p = field(b, tape, LEN);
        let len = b.load(Type::I64, len_p);
        let minus8 = b.iconst(Type::I64, -8);
        let recorded = b.binary(BinaryOp::Imul, len, minus8);
        let zero = b.iconst(Type::I64, 0);
        note(b, recorded, zero);
        let null = b.null();
        let first = b.create_block();
        let c = b.param(first, Type::Ptr);
        let up = b.create_block();
        let down = b.create_block();
        let d = b.param(down, Type::Ptr);
        let free_one = b.create_block();
        let done = b.create_block();
        let some = b.icmp(IntCC::Ne, data, null);
        b.brif(
            some,
            parc_ir::BlockCall::new(first, vec![data]),
            parc_ir::BlockCall::to(done),
        );
        // Up to the first chunk.
        b.switch_to(first);
        let at = field(b, c, PREV);
        let prev = b.load(Type::Ptr, at);
        let more = b.icmp(IntCC::Ne, prev, null);
        b.brif(
            more,
            parc_ir::BlockCall::to(up),
            parc_ir::BlockCall::new(down, vec![c]),
        );
        b.switch_to(up);
        b.jump(first, vec![prev]);
        // Down along `NEXT`, freeing.
        b.switch_to(down);
        let some = b.icmp(IntCC::Ne, d, null);
        b.brif(
            some,
            parc_ir::BlockCall::to(free_one),
            parc_ir::BlockCall::to(done),
        );
        b.switch_to(free_one);
        let at = field(b, d, NEXT);
        let next = b.load(Type::Ptr, at);
        let at = field(b, d, CHUNK_CAP);
        let cap = b.load(Type::I64, at);
        let allocated = b.binary(BinaryOp::Imul, cap, minus8);
        let prefix = b.iconst(Type::I64, -PREFIX_BYTES);
        let allocated = b.binary(BinaryOp::Iadd, allocated, prefix);
        note(b, zero, allocated);
        let block = field(b, d, -PREFIX_BYTES);
        b.intrinsic(Intrinsic::Free, None, vec![block]);
        b.jump(down, vec![next]);
        b.switch_to(done);
        b.store(null, data_p);
        b.store(zero, len_p);
        let cap_p = field(b, tape, CAP);
        b.store(zero, cap_p);
        b.ret(None);
    })
}

/// `list_push(list, n) -> ptr`: `n` more slots at the end of a growable
/// array (`realloc`; capacity doubles, at least [`MIN_SLOTS`]), returning
/// the first. Not a tape: its memory is not noted.
fn build_list_push(name: &str) -> parc_ir::Function {
    tape_helper(name, Some(Type::Ptr), |b, list, n| {
        let len_p = field(b, list, LEN);
        let cap_p = field(b, list, CAP);
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
        let newcap = grown_capacity(b, cap, need);
        let eight = b.iconst(Type::I64, 8);
        let bytes = b.binary(BinaryOp::Imul, newcap, eight);
        let data_p = field(b, list, DATA);
        let old = b.load(Type::Ptr, data_p);
        let new = b
            .intrinsic(Intrinsic::Realloc, Some(Type::Ptr), vec![old, bytes])
            .expect("realloc has a result");
        b.store(new, data_p);
        b.store(newcap, cap_p);
        b.jump(done, vec![]);
        b.switch_to(done);
        let slot = take(b, list, len, need);
        b.ret(Some(slot));
    })
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
