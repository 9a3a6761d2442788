//! parc's own convention for the variadic arguments of the functions it
//! defines, which the `v` functions of the `printf` family (`vfprintf`,
//! `vsnprintf`) read from a `va_list`.
//!
//! The caller stores the arguments, after C's default argument
//! promotions, in slots of [`SLOT`] bytes in its frame: a 64-bit kind
//! word ([`INT`], [`DOUBLE`] or [`PTR`]: the kinds the native runtime's
//! `printf` takes) and the value widened to 64 bits, then a slot of kind
//! [`END`]; the address of the first slot is the callee's hidden last
//! parameter. A `va_list` is a `char *` to the next slot (`va_arg` reads
//! the value word and steps one slot), so a `va_list` handed to
//! `vfprintf` points to the arguments not yet read, up to the end slot.
//! The front end writes the slots, the interpreter and the runtime read
//! them here.

use crate::Slot;

/// Bytes per argument: the kind word, then the value word.
pub const SLOT: u64 = 16;
/// Kind: an integer, sign- or zero-extended to 64 bits.
pub const INT: u64 = 0;
/// Kind: the bits of a `double` (a `float` is promoted first).
pub const DOUBLE: u64 = 1;
/// Kind: a pointer.
pub const PTR: u64 = 2;
/// Kind of the slot after the last argument.
pub const END: u64 = 3;

/// Why a `va_list` could not be read.
#[derive(Debug, PartialEq)]
pub enum VaError<E> {
    /// A slot of a kind no caller writes: the pointer is not a `va_list`
    /// (or one read past its end).
    Kind(u64),
    /// Reading a word failed.
    Read(E),
}

/// The arguments from `ap` up to the end slot; `word(addr)` reads the
/// 64-bit word at `addr`.
pub fn slots<E>(
    ap: u64,
    mut word: impl FnMut(u64) -> Result<u64, E>,
) -> Result<Vec<Slot>, VaError<E>> {
    let mut out = Vec::new();
    let mut at = ap;
    loop {
        let kind = word(at).map_err(VaError::Read)?;
        if kind == END {
            return Ok(out);
        }
        let value = word(at.wrapping_add(8)).map_err(VaError::Read)?;
        out.push(match kind {
            INT => Slot::Int(value as i64),
            DOUBLE => Slot::Double(f64::from_bits(value)),
            PTR => Slot::Ptr(value),
            k => return Err(VaError::Kind(k)),
        });
        at = at.wrapping_add(SLOT);
    }
}

/// The message for a `va_list` with a slot of kind `kind`.
pub fn bad_kind_message(kind: u64) -> String {
    format!(
        "the `va_list` does not point to variadic arguments (a slot of kind {kind}); \
         pass one that `va_start` set and `va_end` has not ended"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(words: &[u64]) -> impl FnMut(u64) -> Result<u64, ()> + '_ {
        |addr| words.get((addr / 8) as usize).copied().ok_or(())
    }

    #[test]
    fn slots_are_read_to_the_end_marker() {
        let words = [
            INT,
            (-5i64) as u64,
            DOUBLE,
            2.5f64.to_bits(),
            PTR,
            64,
            END,
            0,
        ];
        assert_eq!(
            slots(0, read(&words)),
            Ok(vec![Slot::Int(-5), Slot::Double(2.5), Slot::Ptr(64)])
        );
        // A `va_list` some arguments have been read from.
        assert_eq!(slots(32, read(&words)), Ok(vec![Slot::Ptr(64)]));
        assert_eq!(slots(48, read(&words)), Ok(vec![]));
    }

    #[test]
    fn a_foreign_kind_or_a_failed_read_is_an_error() {
        assert_eq!(slots(0, read(&[INT, 1, 7, 0])), Err(VaError::Kind(7)));
        assert_eq!(slots(0, read(&[INT, 1])), Err(VaError::Read(())));
    }
}
