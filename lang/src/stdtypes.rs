//! Type names parc knows without a header: those of `<stddef.h>`,
//! `<stdint.h>` and `<sys/types.h>` that programs use most. They behave as
//! `typedef`s declared before the first line of every file (ParC knows the
//! C library's functions without headers too); a header or the program may
//! declare them again with the same type, as C11 allows for any typedef.
//! The types are those of x86-64 Linux (LP64).

/// The integer type a standard name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdType {
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
}

/// Every predefined type name and its type.
pub const STD_TYPES: &[(&str, StdType)] = &[
    ("size_t", StdType::ULong),
    ("ssize_t", StdType::Long),
    ("ptrdiff_t", StdType::Long),
    ("intptr_t", StdType::Long),
    ("uintptr_t", StdType::ULong),
    ("intmax_t", StdType::Long),
    ("uintmax_t", StdType::ULong),
    ("int8_t", StdType::SChar),
    ("uint8_t", StdType::UChar),
    ("int16_t", StdType::Short),
    ("uint16_t", StdType::UShort),
    ("int32_t", StdType::Int),
    ("uint32_t", StdType::UInt),
    ("int64_t", StdType::Long),
    ("uint64_t", StdType::ULong),
    ("int_least8_t", StdType::SChar),
    ("uint_least8_t", StdType::UChar),
    ("int_least16_t", StdType::Short),
    ("uint_least16_t", StdType::UShort),
    ("int_least32_t", StdType::Int),
    ("uint_least32_t", StdType::UInt),
    ("int_least64_t", StdType::Long),
    ("uint_least64_t", StdType::ULong),
    ("int_fast8_t", StdType::SChar),
    ("uint_fast8_t", StdType::UChar),
    ("int_fast16_t", StdType::Long),
    ("uint_fast16_t", StdType::ULong),
    ("int_fast32_t", StdType::Long),
    ("uint_fast32_t", StdType::ULong),
    ("int_fast64_t", StdType::Long),
    ("uint_fast64_t", StdType::ULong),
];

/// The type a predefined name stands for.
pub fn std_type(name: &str) -> Option<StdType> {
    STD_TYPES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
