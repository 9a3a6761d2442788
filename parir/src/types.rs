//! Value types. parir has no aggregate types: structs and arrays live in
//! memory and are reached through pointers plus byte offsets.
//!
//! The 128-bit vector types (`f64x2 f32x4 i64x2 i32x4`) exist for the loop
//! vectorizer, which makes them after the AD: lane-wise arithmetic, `splat`,
//! `extract_lane`, `insert_lane`, `reduce_OP`, lane-wise `icmp`/`fcmp`
//! (whose result is a mask: [`Type::compare_result`]) and `select` by a
//! mask, and loads and stores of a whole vector. They are never function parameters or results, call
//! arguments or memory-operation pointers (the verifier's `[types]`
//! rules), so calling conventions, the AD and device code know nothing of
//! them.

use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// A truth value: the result of comparisons and the condition of `brif`.
    I1,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    /// A 64-bit address. Which memory it points into (host, GPU global,
    /// GPU shared) is a property of where it came from, not of the type.
    Ptr,
    /// Two `f64` lanes (lane 0 at the lower address in memory).
    F64x2,
    /// Four `f32` lanes.
    F32x4,
    /// Two `i64` lanes.
    I64x2,
    /// Four `i32` lanes.
    I32x4,
}

impl Type {
    pub const ALL: [Type; 8] = [
        Type::I1,
        Type::I8,
        Type::I16,
        Type::I32,
        Type::I64,
        Type::F32,
        Type::F64,
        Type::Ptr,
    ];

    /// The vector types, which [`Type::ALL`] (the scalar types) leaves out.
    pub const VECTORS: [Type; 4] = [Type::F64x2, Type::F32x4, Type::I64x2, Type::I32x4];

    /// True for a scalar integer type (vectors of integers are not).
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64
        )
    }

    /// True for a scalar float type (vectors of floats are not).
    pub fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }

    pub fn is_vector(self) -> bool {
        self.lanes() > 1
    }

    /// The number of lanes: 1 for a scalar type.
    pub fn lanes(self) -> u32 {
        match self {
            Type::F64x2 | Type::I64x2 => 2,
            Type::F32x4 | Type::I32x4 => 4,
            _ => 1,
        }
    }

    /// The type of one lane (a scalar type is its own lane).
    pub fn lane_type(self) -> Type {
        match self {
            Type::F64x2 => Type::F64,
            Type::F32x4 => Type::F32,
            Type::I64x2 => Type::I64,
            Type::I32x4 => Type::I32,
            scalar => scalar,
        }
    }

    /// The 128-bit vector of `lane`s, if parir has one (`f64 i64 f32 i32`).
    pub fn vector_of(lane: Type) -> Option<Type> {
        Type::VECTORS.into_iter().find(|v| v.lane_type() == lane)
    }

    /// The type of a comparison of two values of this type: `i1` for
    /// scalars; for a vector, the integer vector of as many lanes, each
    /// all ones (true) or zero (false), as SIMD compares give and a vector
    /// `select` takes.
    pub fn compare_result(self) -> Type {
        match self {
            Type::F64x2 | Type::I64x2 => Type::I64x2,
            Type::F32x4 | Type::I32x4 => Type::I32x4,
            _ => Type::I1,
        }
    }

    /// Size in bytes when stored to memory (`i1` is stored as a byte).
    pub fn bytes(self) -> u32 {
        match self {
            Type::I1 | Type::I8 => 1,
            Type::I16 => 2,
            Type::I32 | Type::F32 => 4,
            Type::I64 | Type::F64 | Type::Ptr => 8,
            Type::F64x2 | Type::F32x4 | Type::I64x2 | Type::I32x4 => 16,
        }
    }

    /// Width in bits of an integer type (`ptr` counts as 64).
    pub fn bits(self) -> u32 {
        match self {
            Type::I1 => 1,
            other => other.bytes() * 8,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Type::I1 => "i1",
            Type::I8 => "i8",
            Type::I16 => "i16",
            Type::I32 => "i32",
            Type::I64 => "i64",
            Type::F32 => "f32",
            Type::F64 => "f64",
            Type::Ptr => "ptr",
            Type::F64x2 => "f64x2",
            Type::F32x4 => "f32x4",
            Type::I64x2 => "i64x2",
            Type::I32x4 => "i32x4",
        }
    }

    pub fn from_name(name: &str) -> Option<Type> {
        Type::ALL
            .into_iter()
            .chain(Type::VECTORS)
            .find(|t| t.name() == name)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
