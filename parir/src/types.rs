//! Value types. parir has no aggregate types: structs and arrays live in
//! memory and are reached through pointers plus byte offsets.

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

    pub fn is_int(self) -> bool {
        matches!(
            self,
            Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }

    /// Size in bytes when stored to memory (`i1` is stored as a byte).
    pub fn bytes(self) -> u32 {
        match self {
            Type::I1 | Type::I8 => 1,
            Type::I16 => 2,
            Type::I32 | Type::F32 => 4,
            Type::I64 | Type::F64 | Type::Ptr => 8,
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
        }
    }

    pub fn from_name(name: &str) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
