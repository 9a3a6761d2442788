//! Checked memory: every allocation is an object, every pointer names one.
//!
//! # Pointer encoding
//!
//! A pointer is a `u64`: the high 32 bits are the object's slot number plus
//! one (so the whole first 4 GiB of the address space, null included, is the
//! "null page"), the low 32 bits are the byte offset plus [`BIAS`] (2^31).
//! An object's base address is therefore `(slot + 1) << 32 | 2^31`, and any
//! offset in `[-2^31, 2^31)` decodes back to the same slot, so pointers that
//! stray a little before or after their object still name it and a fault can
//! report "offset -8 of a 40-byte heap block" instead of blaming a neighbour.
//! Pointer arithmetic is plain wrapping `u64` addition, so `ptrtoint`,
//! `inttoptr`, differences and comparisons of pointers into one object behave
//! exactly as with real addresses; pointers into different objects compare by
//! slot, a consistent total order. One object holds at most 2^31 - 1 bytes.
//! Function addresses (`func_addr`) are `FUNC_BASE + 16 * index`, in the
//! top 4 GiB, which no object reaches.
//!
//! # Lifetimes
//!
//! An object is live until it is freed (heap), its function returns (stack),
//! or its thread block ends (shared); afterwards its slot keeps the metadata
//! (kind, size, allocation and free sites) so that a late access is reported
//! precisely. Dead slots wait in a FIFO quarantine of [`QUARANTINE`] entries
//! before they are reused (as AddressSanitizer does): this bounds the
//! metadata of programs that make millions of calls with stack locals, at the
//! price that a pointer to an object dead for longer than that may alias a
//! newer object instead of faulting.
//!
//! Memory is little-endian and every object starts zero-filled (`alloca`
//! must be, by the IR's definition; `malloc` is too, which a C program cannot
//! rely on but cannot tell apart either). The live bytes are counted against
//! a limit (`out of memory`).

use crate::entities::{FuncId, GlobalId, Inst};
use crate::types::Type;
use std::collections::VecDeque;

/// Added to an offset to form the low half of a pointer.
pub(crate) const BIAS: u64 = 1 << 31;
/// The largest object, in bytes.
pub(crate) const MAX_OBJECT: u64 = (1 << 31) - 1;
/// How many dead slots wait before one is reused.
const QUARANTINE: usize = 1 << 16;
/// Dead objects keep their byte buffer for reuse up to this capacity (small
/// stack locals are allocated and killed at every call).
const KEEP_CAPACITY: usize = 256;

/// What an object is; decides which operations are legal and how faults
/// describe it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An `alloca`.
    Stack,
    /// `malloc`, `calloc`, `cuda_malloc`, or [`Interp::alloc`](super::Interp::alloc).
    Heap,
    Global,
    /// A constant global (string literals included): read-only.
    Const,
    /// One block's instance of a `__shared__` global.
    Shared,
    /// An argument string or the `argv` array.
    Argv,
    /// A string `getenv` returned.
    Env,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Live,
    Freed,
    /// A stack object whose function returned.
    Returned,
    /// A stack object of a task (a spawned call's or a `parallel_for`
    /// iteration's) that reached its reattach.
    TaskEnded,
    /// A shared-memory instance whose thread block finished.
    BlockEnded,
}

/// Where an object came from (or where it was freed), for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Site {
    Unknown,
    /// An instruction of a function (`alloca`, `malloc`, `free` ...).
    Inst(FuncId, Inst),
    Global(GlobalId),
    /// A shared global's instance for the block with these indices.
    Shared(GlobalId, [i32; 3]),
    /// `argv[i]`; `u32::MAX` is the `argv` array itself.
    Argv(u32),
    /// Allocated through the embedding API.
    Host,
}

pub(crate) struct Object {
    /// The contents; empty once the object is dead.
    pub bytes: Vec<u8>,
    pub size: u64,
    pub state: State,
    pub kind: Kind,
    pub site: Site,
    pub freed_at: Site,
}

/// A memory fault, turned into a message by the interpreter (which knows
/// the module, hence names and source positions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MemFault {
    Null {
        addr: u64,
    },
    /// An address that never belonged to an object.
    Wild {
        addr: u64,
    },
    Dead {
        slot: u32,
        len: u64,
    },
    OutOfBounds {
        slot: u32,
        offset: i64,
        len: u64,
    },
    ReadOnly {
        slot: u32,
    },
    /// A string that runs off the end of its object.
    Unterminated {
        slot: u32,
    },
    DoubleFree {
        slot: u32,
    },
    FreeNotHeap {
        slot: u32,
    },
    FreeInterior {
        slot: u32,
        offset: i64,
    },
    FreeDead {
        slot: u32,
    },
    /// `free` of an address that is no object's.
    FreeWild {
        addr: u64,
    },
    OutOfMemory {
        requested: u64,
        limit: u64,
        per_object: bool,
    },
}

pub(crate) struct Memory {
    pub objects: Vec<Object>,
    quarantine: VecDeque<u32>,
    reusable: Vec<u32>,
    live_bytes: u64,
    max_memory: u64,
}

/// The address of byte `offset` of the object in `slot`.
#[inline]
pub(crate) fn address(slot: u32, offset: u64) -> u64 {
    ((slot as u64 + 1) << 32)
        .wrapping_add(BIAS)
        .wrapping_add(offset)
}

/// Code addresses (`func_addr`) live in the top 4 GiB, far from every
/// object, so dereferencing one is reported as an invalid access.
pub(crate) const FUNC_BASE: u64 = 0xffff_ffff_0000_0000;

/// The address of a function.
pub(crate) fn func_address(f: FuncId) -> u64 {
    use cranelift_entity::EntityRef;
    FUNC_BASE + 16 * f.index() as u64
}

impl Memory {
    pub fn new(max_memory: u64) -> Memory {
        Memory {
            objects: Vec::new(),
            quarantine: VecDeque::new(),
            reusable: Vec::new(),
            live_bytes: 0,
            max_memory,
        }
    }

    /// Splits an address into (slot, offset); errors for the null page and
    /// for addresses past every slot ever made.
    #[inline]
    fn decode(&self, addr: u64) -> Result<(u32, i64), MemFault> {
        let hi = addr >> 32;
        if hi == 0 {
            return Err(MemFault::Null { addr });
        }
        let slot = hi - 1;
        if slot >= self.objects.len() as u64 {
            return Err(MemFault::Wild { addr });
        }
        let offset = (addr & 0xffff_ffff) as i64 - BIAS as i64;
        Ok((slot as u32, offset))
    }

    /// A new zero-filled object of `size` bytes; returns its base address.
    pub fn alloc(&mut self, size: u64, kind: Kind, site: Site) -> Result<u64, MemFault> {
        if size > MAX_OBJECT {
            return Err(MemFault::OutOfMemory {
                requested: size,
                limit: MAX_OBJECT,
                per_object: true,
            });
        }
        if self.live_bytes.saturating_add(size) > self.max_memory {
            return Err(MemFault::OutOfMemory {
                requested: size,
                limit: self.max_memory,
                per_object: false,
            });
        }
        let slot = match self.reusable.pop() {
            Some(slot) => {
                let obj = &mut self.objects[slot as usize];
                // The buffer kept from the dead object is empty (see `kill`).
                obj.bytes.resize(size as usize, 0);
                obj.size = size;
                obj.state = State::Live;
                obj.kind = kind;
                obj.site = site;
                obj.freed_at = Site::Unknown;
                slot
            }
            None => {
                if self.objects.len() >= (u32::MAX - 1) as usize {
                    return Err(MemFault::OutOfMemory {
                        requested: size,
                        limit: self.max_memory,
                        per_object: false,
                    });
                }
                self.objects.push(Object {
                    bytes: vec![0; size as usize],
                    size,
                    state: State::Live,
                    kind,
                    site,
                    freed_at: Site::Unknown,
                });
                (self.objects.len() - 1) as u32
            }
        };
        self.live_bytes += size;
        Ok(address(slot, 0))
    }

    /// Ends the life of a live object (any kind) and quarantines its slot.
    pub fn kill(&mut self, slot: u32, state: State, at: Site) {
        let obj = &mut self.objects[slot as usize];
        if obj.state != State::Live {
            return;
        }
        obj.state = state;
        obj.freed_at = at;
        if obj.bytes.capacity() <= KEEP_CAPACITY {
            obj.bytes.clear();
        } else {
            obj.bytes = Vec::new();
        }
        self.live_bytes -= obj.size;
        self.quarantine.push_back(slot);
        if self.quarantine.len() > QUARANTINE {
            let old = self
                .quarantine
                .pop_front()
                .expect("quarantine is not empty");
            self.reusable.push(old);
        }
    }

    /// C's `free`: null is a no-op; anything but the base of a live heap
    /// object is an error.
    pub fn free(&mut self, addr: u64, at: Site) -> Result<(), MemFault> {
        if addr == 0 {
            return Ok(());
        }
        let (slot, offset) = match self.decode(addr) {
            Ok(x) => x,
            Err(MemFault::Null { addr }) | Err(MemFault::Wild { addr }) => {
                return Err(MemFault::FreeWild { addr });
            }
            Err(other) => return Err(other),
        };
        let obj = &self.objects[slot as usize];
        if obj.kind != Kind::Heap {
            return Err(if obj.state == State::Live {
                MemFault::FreeNotHeap { slot }
            } else {
                MemFault::FreeDead { slot }
            });
        }
        if obj.state != State::Live {
            return Err(MemFault::DoubleFree { slot });
        }
        if offset != 0 {
            return Err(MemFault::FreeInterior { slot, offset });
        }
        self.kill(slot, State::Freed, at);
        Ok(())
    }

    /// C's `realloc`: `realloc(null, n)` is `malloc(n)`; otherwise `addr`
    /// must be what `free` accepts (the base of a live heap object, checked
    /// the same way), and the contents move to a new object of `size`
    /// bytes (the common prefix is kept, any growth is zero-filled as every
    /// object is). Always a new object, so a stale pointer to the old one
    /// faults as a use after free.
    pub fn realloc(&mut self, addr: u64, size: u64, site: Site) -> Result<u64, MemFault> {
        if addr == 0 {
            return self.alloc(size, Kind::Heap, site);
        }
        let (slot, offset) = match self.decode(addr) {
            Ok(x) => x,
            Err(MemFault::Null { addr }) | Err(MemFault::Wild { addr }) => {
                return Err(MemFault::FreeWild { addr });
            }
            Err(other) => return Err(other),
        };
        let obj = &self.objects[slot as usize];
        if obj.kind != Kind::Heap {
            return Err(if obj.state == State::Live {
                MemFault::FreeNotHeap { slot }
            } else {
                MemFault::FreeDead { slot }
            });
        }
        if obj.state != State::Live {
            return Err(MemFault::DoubleFree { slot });
        }
        if offset != 0 {
            return Err(MemFault::FreeInterior { slot, offset });
        }
        let keep = obj.size.min(size);
        let new = self.alloc(size, Kind::Heap, site)?;
        let (new_slot, _) = self.decode(new)?;
        // Two distinct live objects: move the prefix across without a copy
        // of the old buffer.
        let old_bytes = std::mem::take(&mut self.objects[slot as usize].bytes);
        self.objects[new_slot as usize].bytes[..keep as usize]
            .copy_from_slice(&old_bytes[..keep as usize]);
        self.objects[slot as usize].bytes = old_bytes;
        self.kill(slot, State::Freed, site);
        Ok(new)
    }

    /// The live object and offset for an access of `len` bytes at `addr`.
    #[inline]
    fn check(&self, addr: u64, len: u64) -> Result<(usize, usize), MemFault> {
        let (slot, offset) = self.decode(addr)?;
        let obj = &self.objects[slot as usize];
        if obj.state != State::Live {
            return Err(MemFault::Dead { slot, len });
        }
        // Saturating: `len` comes from the program (memcpy's size) and may
        // be anything.
        if offset < 0 || (offset as u64).saturating_add(len) > obj.size {
            return Err(MemFault::OutOfBounds { slot, offset, len });
        }
        Ok((slot as usize, offset as usize))
    }

    #[inline]
    pub fn read(&self, addr: u64, len: u64) -> Result<&[u8], MemFault> {
        let (slot, off) = self.check(addr, len)?;
        Ok(&self.objects[slot].bytes[off..off + len as usize])
    }

    #[inline]
    pub fn write(&mut self, addr: u64, len: u64) -> Result<&mut [u8], MemFault> {
        let (slot, off) = self.check(addr, len)?;
        let obj = &mut self.objects[slot];
        if obj.kind == Kind::Const {
            return Err(MemFault::ReadOnly { slot: slot as u32 });
        }
        Ok(&mut obj.bytes[off..off + len as usize])
    }

    /// Writes an initial image, ignoring read-only-ness (globals' `init`).
    pub fn write_init(&mut self, addr: u64, bytes: &[u8]) -> Result<(), MemFault> {
        let (slot, off) = self.check(addr, bytes.len() as u64)?;
        self.objects[slot].bytes[off..off + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// Loads a value of type `ty` in the interpreter's register form:
    /// integers sign-extended to 64 bits (`i1` as 0/1), `f32` as its bits.
    #[inline]
    pub fn load(&self, addr: u64, ty: Type) -> Result<u64, MemFault> {
        let b = self.read(addr, ty.bytes() as u64)?;
        Ok(match ty {
            Type::I1 => (b[0] != 0) as u64,
            Type::I8 => b[0] as i8 as i64 as u64,
            Type::I16 => i16::from_le_bytes([b[0], b[1]]) as i64 as u64,
            Type::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64 as u64,
            Type::F32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64,
            Type::I64 | Type::F64 | Type::Ptr => {
                u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            }
            Type::F64x2 | Type::F32x4 | Type::I64x2 | Type::I32x4 => {
                unreachable!("vectors are loaded lane by lane (exec::vector_memory)")
            }
        })
    }

    /// Stores the low `ty.bytes()` bytes of `bits` (`ty` scalar: vectors
    /// are stored lane by lane).
    #[inline]
    pub fn store(&mut self, addr: u64, ty: Type, bits: u64) -> Result<(), MemFault> {
        let n = ty.bytes() as usize;
        let b = self.write(addr, n as u64)?;
        b.copy_from_slice(&bits.to_le_bytes()[..n]);
        Ok(())
    }

    /// `memmove` semantics (C's `memcpy` leaves overlap undefined; copying
    /// as if through a temporary is one of its allowed behaviours).
    pub fn copy(&mut self, dst: u64, src: u64, len: u64) -> Result<(), MemFault> {
        if len == 0 {
            return Ok(());
        }
        let (s_slot, s_off) = self.check(src, len)?;
        // Checks the destination (and read-only-ness) before copying.
        self.write(dst, len)?;
        let (d_slot, d_off) = self.check(dst, len)?;
        let n = len as usize;
        if s_slot == d_slot {
            self.objects[s_slot]
                .bytes
                .copy_within(s_off..s_off + n, d_off);
        } else {
            let (a, b) = if s_slot < d_slot {
                let (lo, hi) = self.objects.split_at_mut(d_slot);
                (&lo[s_slot], &mut hi[0])
            } else {
                let (lo, hi) = self.objects.split_at_mut(s_slot);
                (&hi[0], &mut lo[d_slot])
            };
            b.bytes[d_off..d_off + n].copy_from_slice(&a.bytes[s_off..s_off + n]);
        }
        Ok(())
    }

    pub fn fill(&mut self, dst: u64, byte: u8, len: u64) -> Result<(), MemFault> {
        if len == 0 {
            return Ok(());
        }
        self.write(dst, len)?.fill(byte);
        Ok(())
    }

    /// The bytes of a NUL-terminated string at `addr` (without the NUL). With
    /// `limit`, reads at most that many bytes and needs no terminator then
    /// (printf's `%.3s`).
    pub fn read_cstr(&self, addr: u64, limit: Option<usize>) -> Result<&[u8], MemFault> {
        let (slot, offset) = self.decode(addr)?;
        let obj = &self.objects[slot as usize];
        if obj.state != State::Live {
            return Err(MemFault::Dead { slot, len: 1 });
        }
        if offset < 0 || offset as u64 > obj.size || (offset as u64 == obj.size && limit != Some(0))
        {
            return Err(MemFault::OutOfBounds {
                slot,
                offset,
                len: 1,
            });
        }
        let rest = &obj.bytes[offset as usize..];
        let window = match limit {
            Some(n) if n <= rest.len() => &rest[..n],
            _ => rest,
        };
        match window.iter().position(|&b| b == 0) {
            Some(n) => Ok(&window[..n]),
            None if window.len() < rest.len() || limit == Some(window.len()) => Ok(window),
            None => Err(MemFault::Unterminated { slot }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn realloc_keeps_contents_and_checks_like_free() {
        let mut m = Memory::new(1 << 20);
        // realloc(null, n) is malloc(n).
        let p = m.realloc(0, 8, Site::Unknown).unwrap();
        m.store(p, Type::I64, 0x1122_3344_5566_7788).unwrap();
        // Growing keeps the bytes and zero-fills the rest.
        let q = m.realloc(p, 16, Site::Unknown).unwrap();
        assert_eq!(m.load(q, Type::I64).unwrap(), 0x1122_3344_5566_7788);
        assert_eq!(m.load(q.wrapping_add(8), Type::I64).unwrap(), 0);
        // The old object is dead: a stale pointer faults, as after free.
        assert!(matches!(m.load(p, Type::I64), Err(MemFault::Dead { .. })));
        assert!(matches!(
            m.realloc(p, 4, Site::Unknown),
            Err(MemFault::DoubleFree { .. })
        ));
        // Shrinking keeps the prefix.
        let r = m.realloc(q, 4, Site::Unknown).unwrap();
        assert_eq!(m.load(r, Type::I32).unwrap(), 0x5566_7788);
        assert!(matches!(
            m.load(r, Type::I64),
            Err(MemFault::OutOfBounds { .. })
        ));
        // Only the base of a live heap object is accepted.
        assert!(matches!(
            m.realloc(r.wrapping_add(1), 8, Site::Unknown),
            Err(MemFault::FreeInterior { .. })
        ));
        let s = m.alloc(8, Kind::Stack, Site::Unknown).unwrap();
        assert!(matches!(
            m.realloc(s, 8, Site::Unknown),
            Err(MemFault::FreeNotHeap { .. })
        ));
        assert!(matches!(
            m.realloc(0x10, 8, Site::Unknown),
            Err(MemFault::FreeWild { .. })
        ));
        // The live-byte count follows: only `r` (4) and `s` (8) are live.
        assert_eq!(m.live_bytes, 12);
    }
}
