//! Constant memory: what a load from a `const` global reads, known at
//! compile time from the global's initial image.
//!
//! C forbids writing an object defined `const` (a program that does is
//! undefined), so every load of such a global reads its initial image:
//! `const unsigned long M = 1ul << 63;` then makes `x % M` a remainder by
//! a known power of two, and `if (grid_type == UNIONIZED)` a comparison
//! with a constant. A global qualifies when it is `const`, defined in this
//! module (not imported: another file's definition is not seen here) and
//! in host memory (a GPU's `__constant__` memory is written by the host).
//!
//! A read qualifies when it lies inside the global and is of an integer
//! of 8 to 64 bits or a float: not a pointer (an address is known only
//! once the program is linked and loaded), and no byte of it overlaps a
//! relocation of the image (a pointer to a global or a function stored in
//! it). Bytes past the initial image are zero (the image's rule), and
//! values are little-endian, as the interpreter and the backends store
//! them.

use crate::fold::Const;
use cranelift_entity::PrimaryMap;
use parc_ir::{AddrSpace, GlobalData, GlobalId, Type};

/// The constant globals of a module, for [`ConstMemory::read`].
pub struct ConstMemory<'m> {
    globals: &'m PrimaryMap<GlobalId, GlobalData>,
}

impl<'m> ConstMemory<'m> {
    pub fn new(globals: &'m PrimaryMap<GlobalId, GlobalData>) -> ConstMemory<'m> {
        ConstMemory { globals }
    }

    /// The value a load of type `ty` at `offset` bytes into global `g`
    /// reads, if the module doc's rules make it known.
    pub fn read(&self, g: GlobalId, offset: i64, ty: Type) -> Option<Const> {
        let data = self.globals.get(g)?;
        if !data.is_const || data.is_import || data.space != AddrSpace::Global {
            return None;
        }
        if !matches!(
            ty,
            Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::F32 | Type::F64
        ) {
            return None;
        }
        let size = u64::from(ty.bytes());
        let start = u64::try_from(offset).ok()?;
        let end = start.checked_add(size)?;
        if end > data.size {
            return None;
        }
        let overlaps = |at: u64| at < end && start < at + 8;
        if data.relocs.iter().any(|&(at, ..)| overlaps(at))
            || data.func_relocs.iter().any(|&(at, _)| overlaps(at))
        {
            return None;
        }
        let mut bytes = [0u8; 8];
        for (k, b) in bytes.iter_mut().take(size as usize).enumerate() {
            let at = usize::try_from(start + k as u64).ok()?;
            *b = data.init.get(at).copied().unwrap_or(0);
        }
        let raw = u64::from_le_bytes(bytes);
        Some(match ty {
            Type::F32 | Type::F64 => Const { ty, bits: raw },
            _ => Const::int(ty, raw as i64),
        })
    }
}
