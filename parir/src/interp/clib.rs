//! The C library functions the interpreter runs: the `printf` family
//! (formats parsed and formatted by `parc-cformat`, the same code the
//! native runtime uses, each conversion by the host libc's `snprintf`, so
//! output agrees byte for byte with a gcc-built program), and the string
//! functions, which call the host libc on a copy of the string read from
//! checked memory.

use super::Fault;
use super::memory::Memory;
use crate::types::Type;
use parc_cformat::Slot;
use std::ffi::CString;

/// `%s` strings come from checked memory.
struct Strings<'a>(&'a Memory);

/// A fault while formatting: the format's own, or one of memory.
enum FormatFault {
    Format(parc_cformat::Error),
    Fault(Fault),
}

impl From<parc_cformat::Error> for FormatFault {
    fn from(e: parc_cformat::Error) -> FormatFault {
        FormatFault::Format(e)
    }
}

impl parc_cformat::Memory for Strings<'_> {
    type Error = FormatFault;

    fn string(&mut self, addr: u64, limit: Option<usize>) -> Result<Vec<u8>, FormatFault> {
        match self.0.read_cstr(addr, limit) {
            Ok(s) => Ok(s.to_vec()),
            Err(f) => Err(FormatFault::Fault(f.into())),
        }
    }
}

/// A register of type `ty` as a formatting argument (arguments are
/// promoted already; an `f32` is widened all the same).
pub(crate) fn slot(bits: u64, ty: Type) -> Slot {
    match ty {
        Type::F64 => Slot::Double(f64::from_bits(bits)),
        Type::F32 => Slot::Double(f64::from(f32::from_bits(bits as u32))),
        Type::Ptr => Slot::Ptr(bits),
        _ => Slot::Int(bits as i64),
    }
}

/// Formats `fmt` (the C string at `fmt`) with `args` for the C function
/// `name` (`printf`, ...) and appends the bytes to `out`.
pub(crate) fn format(
    name: &str,
    mem: &Memory,
    fmt: u64,
    args: &[Slot],
    out: &mut Vec<u8>,
) -> Result<(), Fault> {
    let f = mem.read_cstr(fmt, None)?;
    parc_cformat::format(f, args, &mut Strings(mem), out).map_err(|e| match e {
        FormatFault::Format(e) => Fault::msg(format!("{name}: {e}")),
        FormatFault::Fault(f) => f,
    })
}

/// A copy of the C string at `addr`, for the libc string functions.
fn c_string(mem: &Memory, addr: u64) -> Result<CString, Fault> {
    if addr == 0 {
        return Err(Fault::msg("null pointer passed as a string"));
    }
    let s = mem.read_cstr(addr, None)?;
    Ok(CString::new(s).expect("read_cstr stops at the first NUL"))
}

/// The text of a `runtime_error`'s message (a string the front end made).
pub(crate) fn message(mem: &Memory, addr: u64) -> Result<String, Fault> {
    Ok(c_string(mem, addr)?.to_string_lossy().into_owned())
}

/// `atoi`: glibc's, i.e. `(int) strtol(s, NULL, 10)`.
pub(crate) fn atoi(mem: &Memory, addr: u64) -> Result<i32, Fault> {
    let s = c_string(mem, addr)?;
    // SAFETY: `s` is a valid NUL-terminated string.
    Ok(unsafe { libc::atoi(s.as_ptr()) })
}

pub(crate) fn atol(mem: &Memory, addr: u64) -> Result<i64, Fault> {
    let s = c_string(mem, addr)?;
    // SAFETY: as above.
    Ok(unsafe { libc::atol(s.as_ptr()) } as i64)
}

pub(crate) fn atof(mem: &Memory, addr: u64) -> Result<f64, Fault> {
    let s = c_string(mem, addr)?;
    // SAFETY: as above.
    Ok(unsafe { libc::atof(s.as_ptr()) })
}

pub(crate) fn strcmp(mem: &Memory, a: u64, b: u64) -> Result<i32, Fault> {
    let a = c_string(mem, a)?;
    let b = c_string(mem, b)?;
    // SAFETY: both are valid NUL-terminated strings.
    Ok(unsafe { libc::strcmp(a.as_ptr(), b.as_ptr()) })
}
