//! C's files for the interpreter: `fopen fclose fread fwrite fgets feof`
//! and `fprintf` to a file, on the host's files.
//!
//! A stream `fopen` returns is a 16-byte object of the program's memory
//! laid out as parc's `<stdio.h>` `FILE` (the host file descriptor, then
//! the stream's own address where native code keeps the C library's
//! stream); the interpreter keeps the open host file under that address.
//! As natively, a closed stream's object stays (its use is reported, not
//! undefined), and the standard streams are the addresses fd + 1: writing
//! them is the program's output, reading `stdin` reads the host's.
//! Nothing is buffered: each write reaches the file at once, so what a
//! program reads back of a file it wrote is what native code reads after
//! the C library flushed.

use super::memory::{Kind, Site};
use super::{Fault, Interp};
use crate::intrinsic::CFn;
use crate::types::Type;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;

/// The interpreter's open files, by their `FILE`'s address.
#[derive(Default)]
pub(crate) struct Files {
    open: HashMap<u64, Open>,
    /// Whether a read of `stdin` met its end.
    stdin_eof: bool,
}

struct Open {
    file: std::fs::File,
    eof: bool,
}

/// What a stream operand names.
enum Stream {
    /// fd 0, 1 or 2.
    Standard(i32),
    File(u64),
}

fn stream(addr: u64, func: &str) -> Result<Stream, Fault> {
    match addr {
        0 => Err(Fault::msg(format!("{func}: the stream is a null pointer"))),
        1..=3 => Ok(Stream::Standard(addr as i32 - 1)),
        _ => Ok(Stream::File(addr)),
    }
}

/// The options C's `fopen` mode `mode` asks for; `None` for a mode C
/// does not have (`fopen` then returns null, as glibc's does).
fn options(mode: &[u8]) -> Option<std::fs::OpenOptions> {
    let mut o = std::fs::OpenOptions::new();
    let plus = mode.iter().skip(1).any(|&c| c == b'+');
    match mode.first()? {
        b'r' => o.read(true).write(plus),
        b'w' => o.write(true).create(true).truncate(true).read(plus),
        b'a' => o.append(true).create(true).read(plus),
        _ => return None,
    };
    Some(o)
}

impl Files {
    fn get(&mut self, addr: u64, func: &str) -> Result<&mut Open, Fault> {
        self.open.get_mut(&addr).ok_or_else(|| {
            Fault::msg(format!(
                "{func}: the stream is not open (closed, or not made by `fopen`)"
            ))
        })
    }

    /// `fprintf` to a file.
    pub(crate) fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), Fault> {
        let f = self.get(addr, "fprintf")?;
        f.file
            .write_all(bytes)
            .map_err(|e| Fault::msg(format!("fprintf: cannot write the file: {e}")))
    }
}

/// Reads up to `buf.len()` bytes, as many as there are before the end;
/// sets `eof` when it is met.
fn read_full(from: &mut dyn Read, buf: &mut [u8], eof: &mut bool) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match from.read(&mut buf[n..]) {
            Ok(0) => {
                *eof = true;
                break;
            }
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    n
}

impl Interp<'_> {
    /// Runs file function `f` on `args` (its operands' registers).
    pub(crate) fn file_call(&mut self, f: CFn, args: &[u64], site: Site) -> Result<u64, Fault> {
        match f {
            CFn::Fopen => self.fopen(args[0], args[1], site),
            CFn::Fclose => match stream(args[0], "fclose")? {
                Stream::Standard(_) => Ok(0),
                Stream::File(a) => {
                    self.files.get(a, "fclose")?;
                    self.files.open.remove(&a);
                    Ok(0)
                }
            },
            CFn::Fwrite => self.fwrite(args[0], args[1], args[2], args[3]),
            CFn::Fread => self.fread(args[0], args[1], args[2], args[3]),
            CFn::Fgets => self.fgets(args[0], args[1] as i32, args[2]),
            CFn::Feof => Ok(match stream(args[0], "feof")? {
                Stream::Standard(0) => u64::from(self.files.stdin_eof),
                Stream::Standard(_) => 0,
                Stream::File(a) => u64::from(self.files.get(a, "feof")?.eof),
            }),
            _ => unreachable!("`{}` is not a file function", f.name()),
        }
    }

    fn fopen(&mut self, path: u64, mode: u64, site: Site) -> Result<u64, Fault> {
        if path == 0 || mode == 0 {
            return Err(Fault::msg("fopen: the path or the mode is a null pointer"));
        }
        let path = self.mem.read_cstr(path, None)?.to_vec();
        let mode = self.mem.read_cstr(mode, None)?.to_vec();
        let path = std::path::Path::new(std::ffi::OsStr::from_bytes(&path));
        let Some(file) = options(&mode).and_then(|o| o.open(path).ok()) else {
            return Ok(0);
        };
        let at = self.mem.alloc(16, Kind::Heap, site)?;
        self.mem
            .store(at, Type::I32, file.as_raw_fd() as i64 as u64)?;
        self.mem.store(at + 8, Type::Ptr, at)?;
        self.files.open.insert(at, Open { file, eof: false });
        Ok(at)
    }

    fn fwrite(&mut self, p: u64, size: u64, n: u64, f: u64) -> Result<u64, Fault> {
        let to = stream(f, "fwrite")?;
        let Some(len) = size.checked_mul(n).filter(|&l| l > 0) else {
            return Ok(0);
        };
        let bytes = self.mem.read(p, len)?.to_vec();
        match to {
            Stream::Standard(0) => Ok(0),
            Stream::Standard(fd) => {
                self.emit_to(fd, &bytes)?;
                Ok(n)
            }
            Stream::File(a) => {
                let file = &mut self.files.get(a, "fwrite")?.file;
                match file.write_all(&bytes) {
                    Ok(()) => Ok(n),
                    Err(_) => Ok(0),
                }
            }
        }
    }

    fn fread(&mut self, p: u64, size: u64, n: u64, f: u64) -> Result<u64, Fault> {
        let from = stream(f, "fread")?;
        let Some(len) = size.checked_mul(n).filter(|&l| l > 0) else {
            return Ok(0);
        };
        // The destination must hold it all, as C requires.
        self.mem.write(p, len)?;
        let mut buf = vec![0u8; len as usize];
        let got = match from {
            Stream::Standard(0) => read_full(
                &mut std::io::stdin().lock(),
                &mut buf,
                &mut self.files.stdin_eof,
            ),
            Stream::Standard(_) => 0,
            Stream::File(a) => {
                let o = self.files.get(a, "fread")?;
                read_full(&mut o.file, &mut buf, &mut o.eof)
            }
        };
        self.mem.write(p, got as u64)?.copy_from_slice(&buf[..got]);
        Ok(got as u64 / size)
    }

    fn fgets(&mut self, buf: u64, n: i32, f: u64) -> Result<u64, Fault> {
        let from = stream(f, "fgets")?;
        if n <= 0 {
            return Ok(0);
        }
        self.mem.write(buf, n as u64)?;
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        while line.len() + 1 < n as usize {
            let got = match &from {
                Stream::Standard(0) => read_full(
                    &mut std::io::stdin().lock(),
                    &mut byte,
                    &mut self.files.stdin_eof,
                ),
                Stream::Standard(_) => 0,
                Stream::File(a) => {
                    let o = self.files.get(*a, "fgets")?;
                    read_full(&mut o.file, &mut byte, &mut o.eof)
                }
            };
            if got == 0 {
                break;
            }
            line.push(byte[0]);
            if byte[0] == b'\n' {
                break;
            }
        }
        if line.is_empty() && n > 1 {
            return Ok(0);
        }
        line.push(0);
        self.mem
            .write(buf, line.len() as u64)?
            .copy_from_slice(&line);
        Ok(buf)
    }
}
