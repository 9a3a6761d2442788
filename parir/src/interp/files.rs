//! C's files for the interpreter: `fopen fclose fread fwrite fgets feof
//! ferror fseek ftell rewind fgetc ungetc` and `fprintf` to a file, on
//! the host's files.
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
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;

/// The interpreter's open files, by their `FILE`'s address.
#[derive(Default)]
pub(crate) struct Files {
    open: HashMap<u64, Open>,
    /// Whether a read of `stdin` met its end.
    stdin_eof: bool,
    /// Bytes `ungetc` pushed back to `stdin`, the next one last.
    stdin_back: Vec<u8>,
}

struct Open {
    file: std::fs::File,
    eof: bool,
    /// A read or write failed (`ferror`).
    error: bool,
    /// Bytes `ungetc` pushed back, the next one last.
    back: Vec<u8>,
}

/// What a stream operand names.
pub(super) enum Stream {
    /// fd 0, 1 or 2.
    Standard(i32),
    File(u64),
}

pub(super) fn stream(addr: u64, func: &str) -> Result<Stream, Fault> {
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

    /// Reads up to `buf.len()` bytes of a stream, those `ungetc` pushed
    /// back first; stdout and stderr read nothing.
    pub(super) fn read(
        &mut self,
        from: &Stream,
        buf: &mut [u8],
        func: &str,
    ) -> Result<usize, Fault> {
        let (back, eof, file): (&mut Vec<u8>, &mut bool, Option<&mut std::fs::File>) = match from {
            Stream::Standard(0) => (&mut self.stdin_back, &mut self.stdin_eof, None),
            Stream::Standard(_) => return Ok(0),
            Stream::File(a) => {
                let o = self.get(*a, func)?;
                (&mut o.back, &mut o.eof, Some(&mut o.file))
            }
        };
        let mut n = 0;
        while n < buf.len()
            && let Some(b) = back.pop()
        {
            buf[n] = b;
            n += 1;
        }
        Ok(n + match file {
            None => read_full(&mut std::io::stdin().lock(), &mut buf[n..], eof),
            Some(f) => read_full(f, &mut buf[n..], eof),
        })
    }

    /// Pushes `byte` back to a stream, as `ungetc` does (stdout and
    /// stderr, which read nothing, take nothing back).
    pub(super) fn unread(&mut self, to: &Stream, byte: u8, func: &str) -> Result<(), Fault> {
        match to {
            Stream::Standard(0) => {
                self.stdin_eof = false;
                self.stdin_back.push(byte);
            }
            Stream::Standard(_) => {}
            Stream::File(a) => {
                let o = self.get(*a, func)?;
                o.eof = false;
                o.back.push(byte);
            }
        }
        Ok(())
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
            CFn::Ferror => Ok(match stream(args[0], "ferror")? {
                Stream::Standard(_) => 0,
                Stream::File(a) => u64::from(self.files.get(a, "ferror")?.error),
            }),
            CFn::Fseek => {
                let whence = match args[2] as i32 {
                    libc::SEEK_SET => Some(SeekFrom::Start(args[1])),
                    libc::SEEK_CUR => Some(SeekFrom::Current(args[1] as i64)),
                    libc::SEEK_END => Some(SeekFrom::End(args[1] as i64)),
                    _ => None,
                };
                let r = self.seek(args[0], whence, "fseek")?;
                Ok(r.map_or(-1i64 as u64, |_| 0))
            }
            CFn::Ftell => Ok(self.tell(args[0])?.unwrap_or(-1i64 as u64)),
            CFn::Rewind => {
                if self
                    .seek(args[0], Some(SeekFrom::Start(0)), "rewind")?
                    .is_some()
                    && let Stream::File(a) = stream(args[0], "rewind")?
                {
                    self.files.get(a, "rewind")?.error = false;
                }
                Ok(0)
            }
            CFn::Fgetc => {
                let from = stream(args[0], "fgetc")?;
                let mut byte = [0u8; 1];
                Ok(match self.files.read(&from, &mut byte, "fgetc")? {
                    0 => libc::EOF as i64 as u64,
                    _ => u64::from(byte[0]),
                })
            }
            CFn::Ungetc => {
                let c = args[0] as i32;
                let back = match stream(args[1], "ungetc")? {
                    Stream::Standard(0) => {
                        self.files.stdin_eof = false;
                        &mut self.files.stdin_back
                    }
                    Stream::Standard(_) => return Ok(libc::EOF as i64 as u64),
                    Stream::File(a) => {
                        let o = self.files.get(a, "ungetc")?;
                        o.eof = false;
                        &mut o.back
                    }
                };
                if c == libc::EOF {
                    return Ok(libc::EOF as i64 as u64);
                }
                back.push(c as u8);
                Ok(u64::from(c as u8))
            }
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
        let Some(o) = options(&mode) else {
            self.clib.set_errno(&mut self.mem, libc::EINVAL)?;
            return Ok(0);
        };
        let file = match o.open(path) {
            Ok(file) => file,
            Err(e) => {
                let code = e.raw_os_error().unwrap_or(libc::EIO);
                self.clib.set_errno(&mut self.mem, code)?;
                return Ok(0);
            }
        };
        let at = self.mem.alloc(16, Kind::Heap, site)?;
        self.mem
            .store(at, Type::I32, file.as_raw_fd() as i64 as u64)?;
        self.mem.store(at + 8, Type::Ptr, at)?;
        self.files.open.insert(
            at,
            Open {
                file,
                eof: false,
                error: false,
                back: Vec::new(),
            },
        );
        Ok(at)
    }

    /// The file a positioning function `func` works on; `None`, with
    /// `errno` `ESPIPE`, for a standard stream, which parc treats as a
    /// pipe (as natively).
    fn seekable(&mut self, f: u64, func: &str) -> Result<Option<u64>, Fault> {
        match stream(f, func)? {
            Stream::Standard(_) => {
                self.clib.set_errno(&mut self.mem, libc::ESPIPE)?;
                Ok(None)
            }
            Stream::File(a) => {
                self.files.get(a, func)?;
                Ok(Some(a))
            }
        }
    }

    /// Moves a file's position (`None`: a `whence` C does not have): the
    /// new position, or `None` with `errno` set. Bytes pushed back are
    /// dropped and the end flag cleared, as C's `fseek` does.
    fn seek(&mut self, f: u64, to: Option<SeekFrom>, func: &str) -> Result<Option<u64>, Fault> {
        let Some(a) = self.seekable(f, func)? else {
            return Ok(None);
        };
        let Some(mut to) = to else {
            self.clib.set_errno(&mut self.mem, libc::EINVAL)?;
            return Ok(None);
        };
        let o = self.files.get(a, func)?;
        // The position the program sees is before the pushed-back bytes.
        if let SeekFrom::Current(d) = to {
            to = SeekFrom::Current(d - o.back.len() as i64);
        }
        match o.file.seek(to) {
            Ok(p) => {
                o.back.clear();
                o.eof = false;
                Ok(Some(p))
            }
            Err(e) => {
                let code = e.raw_os_error().unwrap_or(libc::EINVAL);
                self.clib.set_errno(&mut self.mem, code)?;
                Ok(None)
            }
        }
    }

    /// `ftell`: the position the program sees (before pushed-back bytes).
    fn tell(&mut self, f: u64) -> Result<Option<u64>, Fault> {
        let Some(a) = self.seekable(f, "ftell")? else {
            return Ok(None);
        };
        let o = self.files.get(a, "ftell")?;
        match o.file.stream_position() {
            Ok(p) => Ok(Some(p.saturating_sub(o.back.len() as u64))),
            Err(e) => {
                let code = e.raw_os_error().unwrap_or(libc::EINVAL);
                self.clib.set_errno(&mut self.mem, code)?;
                Ok(None)
            }
        }
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
                let o = self.files.get(a, "fwrite")?;
                match o.file.write_all(&bytes) {
                    Ok(()) => Ok(n),
                    Err(_) => {
                        o.error = true;
                        Ok(0)
                    }
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
        let got = self.files.read(&from, &mut buf, "fread")?;
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
            let got = self.files.read(&from, &mut byte, "fgets")?;
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
