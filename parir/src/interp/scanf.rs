//! `sscanf` and `fscanf` (`scanf` is `fscanf` of `stdin`) for the
//! interpreter: `parc-cformat` parses the format and scans, the code the
//! native runtime uses too; the input is a string of checked memory or a
//! stream of [`super::files`], and every store is checked.

use super::files::{Files, Stream, stream};
use super::memory::Memory;
use super::{Fault, Interp};

/// A fault while scanning: the format's own, or one of memory or files.
enum ScanFault {
    Format(parc_cformat::Error),
    Fault(Fault),
}

impl From<parc_cformat::Error> for ScanFault {
    fn from(e: parc_cformat::Error) -> ScanFault {
        ScanFault::Format(e)
    }
}

impl From<Fault> for ScanFault {
    fn from(f: Fault) -> ScanFault {
        ScanFault::Fault(f)
    }
}

/// Where the bytes come from.
enum Input<'a> {
    /// `sscanf`: the string at this address (its NUL is its end).
    String(u64),
    Stream(Stream, &'a mut Files),
}

struct Scan<'a> {
    mem: &'a mut Memory,
    input: Input<'a>,
}

impl parc_cformat::Scanner for Scan<'_> {
    type Error = ScanFault;

    fn next(&mut self) -> Result<Option<u8>, ScanFault> {
        match &mut self.input {
            Input::String(at) => {
                let b = self.mem.read(*at, 1).map_err(Fault::from)?[0];
                if b == 0 {
                    return Ok(None);
                }
                *at += 1;
                Ok(Some(b))
            }
            Input::Stream(from, files) => {
                let mut byte = [0u8; 1];
                Ok(match files.read(from, &mut byte, "fscanf")? {
                    0 => None,
                    _ => Some(byte[0]),
                })
            }
        }
    }

    fn unget(&mut self, byte: u8) -> Result<(), ScanFault> {
        match &mut self.input {
            Input::String(at) => *at -= 1,
            Input::Stream(from, files) => files.unread(from, byte, "fscanf")?,
        }
        Ok(())
    }

    fn store(&mut self, addr: u64, bytes: &[u8]) -> Result<(), ScanFault> {
        self.mem
            .write(addr, bytes.len() as u64)
            .map_err(Fault::from)?
            .copy_from_slice(bytes);
        Ok(())
    }
}

impl Interp<'_> {
    /// `sscanf(source, fmt, ptrs...)` (`file` false) or `fscanf(source,
    /// fmt, ptrs...)`: the number of items stored, or -1.
    pub(crate) fn scanf(
        &mut self,
        file: bool,
        source: u64,
        fmt: u64,
        ptrs: &[u64],
    ) -> Result<i32, Fault> {
        let name = if file { "fscanf" } else { "sscanf" };
        let fmt = self.mem.read_cstr(fmt, None)?.to_vec();
        let input = if file {
            Input::Stream(stream(source, name)?, &mut self.files)
        } else if source == 0 {
            return Err(Fault::msg("sscanf: the string is a null pointer"));
        } else {
            Input::String(source)
        };
        let mut scan = Scan {
            mem: &mut self.mem,
            input,
        };
        parc_cformat::scan(&fmt, &mut scan, ptrs).map_err(|e| match e {
            ScanFault::Format(e) => Fault::msg(format!("{name}: {e}")),
            ScanFault::Fault(f) => f,
        })
    }
}
