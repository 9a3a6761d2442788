//! C's effective-type rule (C11 6.5p7, what gcc's and clang's type-based
//! alias analysis assumes) as a fact for deciding which loads the reverse
//! may repeat: an object of one type is not modified by a store of an
//! incompatible type, so an `int` index array read through one pointer
//! is not overwritten by the `double` stores through another, and its
//! elements need not be recorded (`rowptr[i]`, `col[p]` of a sparse
//! gather). `-fno-strict-aliasing` turns the fact off, as in gcc and
//! clang.
//!
//! parir's types are coarser than C's, so the rule is applied
//! conservatively: a character access (`i8`) may alias anything, as in C;
//! a vector access is an access of its lanes' type;
//! so may two types of the same size (parir does not tell `int` from
//! `unsigned` or `float`, nor `long` from a pointer or a `double`, and a
//! union copied by the optimizer as one of its members' types keeps its
//! size). Writes of unknown type (calls, `memcpy`, `memset`, `free`) may
//! modify anything. And the fact is only used between different pointers
//! (different parameters, say): a write through the pointer a load reads
//! through always counts, whatever its type, so that type punning through
//! one union object stays right.

use parc_ir::Type;

/// The types of the writes that may reach some memory.
#[derive(Clone, Debug, Default)]
pub struct WriteTypes {
    /// A write of unknown type (or any write, without the rule).
    untyped: bool,
    /// The types written, each once.
    types: Vec<Type>,
}

impl WriteTypes {
    /// Every write may modify every load.
    pub fn anything() -> WriteTypes {
        WriteTypes {
            untyped: true,
            types: Vec::new(),
        }
    }

    /// Adds a write of type `ty` (`None`: unknown). Without the rule
    /// (`strict` false) every write is taken as of unknown type.
    pub fn add(&mut self, ty: Option<Type>, strict: bool) {
        match ty {
            Some(t) if strict => {
                if !self.types.contains(&t) {
                    self.types.push(t);
                }
            }
            _ => self.untyped = true,
        }
    }

    pub fn extend(&mut self, other: &WriteTypes) {
        self.untyped |= other.untyped;
        for &t in &other.types {
            self.add(Some(t), true);
        }
    }

    /// No write at all.
    pub fn is_empty(&self) -> bool {
        !self.untyped && self.types.is_empty()
    }

    /// Whether one of these writes may modify an object that a load of
    /// type `read` reads.
    pub fn may_modify(&self, read: Type) -> bool {
        self.untyped || self.types.iter().any(|&w| may_alias(w, read))
    }
}

/// Whether an access of type `a` and one of type `b` may touch the same
/// object under the rule, as applied here (see the module doc).
pub fn may_alias(a: Type, b: Type) -> bool {
    // A vector access is one of its lanes' type, several times over.
    let (a, b) = (a.lane_type(), b.lane_type());
    let char_like = |t: Type| matches!(t, Type::I1 | Type::I8);
    a == b || char_like(a) || char_like(b) || a.bytes() == b.bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_do_not_modify_ints_but_chars_and_unknowns_do() {
        let mut w = WriteTypes::default();
        assert!(w.is_empty() && !w.may_modify(Type::I32));
        w.add(Some(Type::F64), true);
        assert!(!w.may_modify(Type::I32));
        assert!(w.may_modify(Type::F64));
        // Same size: `long` and pointers may be a `double`'s bytes.
        assert!(w.may_modify(Type::I64) && w.may_modify(Type::Ptr));
        // Vectors are their lanes.
        assert!(w.may_modify(Type::F64x2) && !w.may_modify(Type::I32x4));
        let mut v = WriteTypes::default();
        v.add(Some(Type::F64x2), true);
        assert!(v.may_modify(Type::F64) && !v.may_modify(Type::I32));
        let mut chars = WriteTypes::default();
        chars.add(Some(Type::I8), true);
        assert!(chars.may_modify(Type::I32) && chars.may_modify(Type::F64));
        let mut off = WriteTypes::default();
        off.add(Some(Type::F64), false);
        assert!(off.may_modify(Type::I32));
        w.extend(&WriteTypes::anything());
        assert!(w.may_modify(Type::I16));
    }
}
