//! `getopt` and `getopt_long` as glibc runs them, so that a program parses
//! its command line in the interpreter exactly as its native build (which
//! calls glibc) does: GNU's permutation of `argv` (options first, the
//! other arguments after them, in their order), the `+`/`-`/`:` prefixes
//! of `optstring`, `POSIXLY_CORRECT`, `--`, grouped short options,
//! optional arguments (`x::`), long options by exact name or unique
//! prefix, and glibc's messages word for word.
//!
//! The state C keeps in globals (`optarg optind opterr optopt`) lives in
//! interpreted memory, one object each, which the program's `extern`
//! declarations of those names are bound to; the rest (where the scan is
//! inside a group of letters, where the skipped non-options lie) is
//! glibc's private state, kept here. Setting `optind` to 0 starts over, as
//! in glibc.

use super::memory::{Kind, Memory, Site};
use super::{Fault, Interp};
use crate::intrinsic::CFn;
use crate::types::Type;

impl Interp<'_> {
    /// `getopt(argc, argv, optstring)` or `getopt_long(.., longopts,
    /// longindex)` on its operands' registers; its messages go to the
    /// program's stderr.
    pub(super) fn getopt_call(
        &mut self,
        f: CFn,
        xs: &[u64; CFn::MAX_PARAMS],
    ) -> Result<u64, Fault> {
        let long = f == CFn::GetoptLong;
        let call = Call {
            argc: xs[0] as i32,
            argv: xs[1],
            optstring: xs[2],
            longopts: if long { xs[3] } else { 0 },
            longindex: if long { xs[4] } else { 0 },
        };
        let mut err = Vec::new();
        let c = self.getopt.call(&mut self.mem, &call, &mut err)?;
        if !err.is_empty() {
            self.emit_to(2, &err)?;
        }
        Ok(crate::eval::canon(i64::from(c), Type::I32))
    }
}

/// The C library's variables that this module owns, with their initial
/// values and sizes: `(name, size, initial value)`.
const VARS: [(&str, u64, i64); 4] = [
    ("optarg", 8, 0),
    ("optind", 4, 1),
    ("opterr", 4, 1),
    ("optopt", 4, b'?' as i64),
];

/// How arguments that are not options are treated.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Ordering {
    /// Stop at the first (`+`, or `POSIXLY_CORRECT`).
    RequireOrder,
    /// Move them after the options (the default).
    #[default]
    Permute,
    /// Return each as the argument of option 1 (`-`).
    ReturnInOrder,
}

#[derive(Default)]
pub(crate) struct Getopt {
    /// The addresses of `VARS`, in order, once made.
    vars: Option<[u64; 4]>,
    /// The next letter of a group being scanned (`-abc`), or 0.
    next: u64,
    first_nonopt: i32,
    last_nonopt: i32,
    ordering: Ordering,
    initialized: bool,
}

/// A `struct option` of `getopt_long`'s table.
struct LongOption {
    name: Vec<u8>,
    has_arg: i32,
    flag: u64,
    val: i32,
}

/// What one call needs: `argc`, `argv`, `optstring`, the long options'
/// table (0 for `getopt`) and `longindex` (0 for none).
struct Call {
    argc: i32,
    argv: u64,
    optstring: u64,
    longopts: u64,
    longindex: u64,
}

impl Getopt {
    /// The address of the C library variable `name` if this module owns
    /// it (the program's `extern` declaration of it is bound there).
    pub(crate) fn var(&mut self, mem: &mut Memory, name: &str) -> Result<Option<u64>, Fault> {
        let Some(k) = VARS.iter().position(|(n, ..)| *n == name) else {
            return Ok(None);
        };
        Ok(Some(self.vars(mem)?[k]))
    }

    fn vars(&mut self, mem: &mut Memory) -> Result<[u64; 4], Fault> {
        if let Some(v) = self.vars {
            return Ok(v);
        }
        let mut v = [0; 4];
        for (at, (_, size, init)) in v.iter_mut().zip(VARS) {
            *at = mem.alloc(size, Kind::Global, Site::Unknown)?;
            mem.write_init(*at, &init.to_ne_bytes()[..size as usize])?;
        }
        self.vars = Some(v);
        Ok(v)
    }

    /// Runs `getopt` (no long options) or `getopt_long`; messages for the
    /// program's stderr are appended to `err`.
    fn call(&mut self, mem: &mut Memory, c: &Call, err: &mut Vec<u8>) -> Result<i32, Fault> {
        let [optarg_at, optind_at, opterr_at, optopt_at] = self.vars(mem)?;
        let optind = mem_i32(mem, optind_at)?;
        let optopt = mem_i32(mem, optopt_at)?;
        let print_errors = mem_i32(mem, opterr_at)? != 0;
        let longopts = if c.longopts == 0 {
            Vec::new()
        } else {
            read_long_options(mem, c.longopts)?
        };
        let mut spec = mem.read_cstr(c.optstring, None)?.to_vec();
        let mut run = Run {
            mem,
            argc: c.argc,
            argv: c.argv,
            optind,
            optarg: 0,
            optopt,
            err,
        };
        let result = self.scan(&mut run, &mut spec, &longopts, c.longindex, print_errors)?;
        let (optind, optarg, optopt) = (run.optind, run.optarg, run.optopt);
        mem.store(optind_at, Type::I32, optind as i64 as u64)?;
        mem.store(optarg_at, Type::Ptr, optarg)?;
        mem.store(optopt_at, Type::I32, optopt as i64 as u64)?;
        Ok(result)
    }

    fn scan(
        &mut self,
        r: &mut Run,
        spec: &mut Vec<u8>,
        longopts: &[LongOption],
        longindex: u64,
        print_errors: bool,
    ) -> Result<i32, Fault> {
        if r.argc < 1 {
            return Ok(-1);
        }
        if r.optind == 0 || !self.initialized {
            if r.optind == 0 {
                r.optind = 1;
            }
            self.first_nonopt = r.optind;
            self.last_nonopt = r.optind;
            self.next = 0;
            self.ordering = match spec.first() {
                Some(b'-') => Ordering::ReturnInOrder,
                Some(b'+') => Ordering::RequireOrder,
                _ if std::env::var_os("POSIXLY_CORRECT").is_some() => Ordering::RequireOrder,
                _ => Ordering::Permute,
            };
            self.initialized = true;
        }
        if matches!(spec.first(), Some(b'-' | b'+')) {
            spec.remove(0);
        }
        let colon = spec.first() == Some(&b':');
        let print_errors = print_errors && !colon;

        if self.next == 0 || r.byte(self.next)? == 0 {
            // The next element of argv.
            self.last_nonopt = self.last_nonopt.min(r.optind);
            self.first_nonopt = self.first_nonopt.min(r.optind);
            if self.ordering == Ordering::Permute {
                if self.first_nonopt != self.last_nonopt && self.last_nonopt != r.optind {
                    self.exchange(r)?;
                } else if self.last_nonopt != r.optind {
                    self.first_nonopt = r.optind;
                }
                while r.optind < r.argc && r.is_nonoption(r.optind)? {
                    r.optind += 1;
                }
                self.last_nonopt = r.optind;
            }
            if r.optind != r.argc && r.arg_bytes(r.optind)? == b"--" {
                r.optind += 1;
                if self.first_nonopt != self.last_nonopt && self.last_nonopt != r.optind {
                    self.exchange(r)?;
                } else if self.first_nonopt == self.last_nonopt {
                    self.first_nonopt = r.optind;
                }
                self.last_nonopt = r.argc;
                r.optind = r.argc;
            }
            if r.optind == r.argc {
                if self.first_nonopt != self.last_nonopt {
                    r.optind = self.first_nonopt;
                }
                return Ok(-1);
            }
            if r.is_nonoption(r.optind)? {
                if self.ordering == Ordering::RequireOrder {
                    return Ok(-1);
                }
                r.optarg = r.arg(r.optind)?;
                r.optind += 1;
                return Ok(1);
            }
            let arg = r.arg(r.optind)?;
            if !longopts.is_empty() && r.byte(arg + 1)? == b'-' {
                self.next = arg + 2;
                return self.long_option(r, longopts, longindex, print_errors, colon);
            }
            self.next = arg + 1;
        }

        let c = r.byte(self.next)?;
        self.next += 1;
        let found = spec.iter().position(|&s| s == c);
        if r.byte(self.next)? == 0 {
            r.optind += 1;
        }
        let Some(at) = found.filter(|_| c != b':' && c != b';') else {
            if print_errors {
                let prog = r.prog()?;
                r.message(&[&prog, b": invalid option -- '", &[c], b"'\n"]);
            }
            r.optopt = i32::from(c);
            return Ok(i32::from(b'?'));
        };
        let mut result = i32::from(c);
        if spec.get(at + 1) == Some(&b':') {
            if spec.get(at + 2) == Some(&b':') {
                // An optional argument: only one attached to the letter.
                if r.byte(self.next)? != 0 {
                    r.optarg = self.next;
                    r.optind += 1;
                } else {
                    r.optarg = 0;
                }
            } else if r.byte(self.next)? != 0 {
                r.optarg = self.next;
                r.optind += 1;
            } else if r.optind == r.argc {
                if print_errors {
                    let prog = r.prog()?;
                    r.message(&[&prog, b": option requires an argument -- '", &[c], b"'\n"]);
                }
                r.optopt = i32::from(c);
                result = i32::from(if colon { b':' } else { b'?' });
            } else {
                r.optarg = r.arg(r.optind)?;
                r.optind += 1;
            }
            self.next = 0;
        }
        Ok(result)
    }

    /// `--name`, `--name=value` or `--name value`, `self.next` at `name`.
    fn long_option(
        &mut self,
        r: &mut Run,
        longopts: &[LongOption],
        longindex: u64,
        print_errors: bool,
        colon: bool,
    ) -> Result<i32, Fault> {
        let rest = r.mem.read_cstr(self.next, None)?.to_vec();
        let name_len = rest.iter().position(|&b| b == b'=').unwrap_or(rest.len());
        let name = &rest[..name_len];
        let mut found = longopts.iter().position(|o| o.name == name);
        if found.is_none() {
            // A unique prefix: several matches are ambiguous unless they
            // all mean the same.
            let mut ambiguous: Vec<usize> = Vec::new();
            for (k, o) in longopts.iter().enumerate() {
                if !o.name.starts_with(name) {
                    continue;
                }
                match found {
                    None => found = Some(k),
                    Some(f) => {
                        let p = &longopts[f];
                        if p.has_arg != o.has_arg || p.flag != o.flag || p.val != o.val {
                            if ambiguous.is_empty() {
                                ambiguous.push(f);
                            }
                            ambiguous.push(k);
                        }
                    }
                }
            }
            if !ambiguous.is_empty() {
                if print_errors {
                    let prog = r.prog()?;
                    r.message(&[
                        &prog,
                        b": option '--",
                        &rest,
                        b"' is ambiguous; possibilities:",
                    ]);
                    for k in ambiguous {
                        r.message(&[b" '--", &longopts[k].name, b"'"]);
                    }
                    r.message(&[b"\n"]);
                }
                self.next += rest.len() as u64;
                r.optind += 1;
                r.optopt = 0;
                return Ok(i32::from(b'?'));
            }
        }
        let Some(k) = found else {
            if print_errors {
                let prog = r.prog()?;
                r.message(&[&prog, b": unrecognized option '--", &rest, b"'\n"]);
            }
            self.next = 0;
            r.optind += 1;
            r.optopt = 0;
            return Ok(i32::from(b'?'));
        };
        let o = &longopts[k];
        r.optind += 1;
        self.next = 0;
        if name_len < rest.len() {
            if o.has_arg == 0 {
                if print_errors {
                    let prog = r.prog()?;
                    r.message(&[
                        &prog,
                        b": option '--",
                        &o.name,
                        b"' doesn't allow an argument\n",
                    ]);
                }
                r.optopt = o.val;
                return Ok(i32::from(b'?'));
            }
            // `=` follows the name in the argument `r.optind - 1` points at.
            r.optarg = r.arg(r.optind - 1)? + 2 + name_len as u64 + 1;
        } else if o.has_arg == 1 {
            if r.optind < r.argc {
                r.optarg = r.arg(r.optind)?;
                r.optind += 1;
            } else {
                if print_errors {
                    let prog = r.prog()?;
                    r.message(&[&prog, b": option '--", &o.name, b"' requires an argument\n"]);
                }
                r.optopt = o.val;
                return Ok(i32::from(if colon { b':' } else { b'?' }));
            }
        }
        if longindex != 0 {
            r.mem.store(longindex, Type::I32, k as i64 as u64)?;
        }
        if o.flag != 0 {
            r.mem.store(o.flag, Type::I32, o.val as i64 as u64)?;
            return Ok(0);
        }
        Ok(o.val)
    }

    /// Swaps the block of skipped non-options `[first_nonopt, last_nonopt)`
    /// with the options after it `[last_nonopt, optind)`, as glibc's
    /// `exchange` does (block swaps, so the orders within both are kept).
    fn exchange(&mut self, r: &mut Run) -> Result<(), Fault> {
        let (mut bottom, middle, mut top) = (self.first_nonopt, self.last_nonopt, r.optind);
        while top > middle && middle > bottom {
            if top - middle > middle - bottom {
                let len = middle - bottom;
                for i in 0..len {
                    r.swap(bottom + i, top - (middle - bottom) + i)?;
                }
                top -= len;
            } else {
                let len = top - middle;
                for i in 0..len {
                    r.swap(bottom + i, middle + i)?;
                }
                bottom += len;
            }
        }
        self.first_nonopt += r.optind - self.last_nonopt;
        self.last_nonopt = r.optind;
        Ok(())
    }
}

/// One call's view of the program: memory, the command line, the values
/// of the C variables as the call changes them, and the messages.
struct Run<'a> {
    mem: &'a mut Memory,
    argc: i32,
    argv: u64,
    optind: i32,
    optarg: u64,
    optopt: i32,
    err: &'a mut Vec<u8>,
}

impl Run<'_> {
    fn arg(&self, i: i32) -> Result<u64, Fault> {
        Ok(self.mem.load(self.argv + 8 * i as u64, Type::Ptr)?)
    }

    fn arg_bytes(&self, i: i32) -> Result<Vec<u8>, Fault> {
        let at = self.arg(i)?;
        Ok(self.mem.read_cstr(at, None)?.to_vec())
    }

    fn byte(&self, at: u64) -> Result<u8, Fault> {
        Ok(self.mem.load(at, Type::I8)? as u8)
    }

    /// Not an option: an argument that does not start with `-`, or is `-`.
    fn is_nonoption(&self, i: i32) -> Result<bool, Fault> {
        let at = self.arg(i)?;
        Ok(self.byte(at)? != b'-' || self.byte(at + 1)? == 0)
    }

    fn swap(&mut self, i: i32, j: i32) -> Result<(), Fault> {
        let (a, b) = (self.arg(i)?, self.arg(j)?);
        self.mem.store(self.argv + 8 * i as u64, Type::Ptr, b)?;
        self.mem.store(self.argv + 8 * j as u64, Type::Ptr, a)?;
        Ok(())
    }

    /// `argv[0]`, which begins every message.
    fn prog(&self) -> Result<Vec<u8>, Fault> {
        self.arg_bytes(0)
    }

    fn message(&mut self, parts: &[&[u8]]) {
        for p in parts {
            self.err.extend_from_slice(p);
        }
    }
}

fn mem_i32(mem: &Memory, at: u64) -> Result<i32, Fault> {
    Ok(mem.load(at, Type::I32)? as i32)
}

/// The table of `struct option { const char *name; int has_arg; int *flag;
/// int val; }` (32 bytes each) up to the entry with a null name.
fn read_long_options(mem: &Memory, at: u64) -> Result<Vec<LongOption>, Fault> {
    let mut v = Vec::new();
    for k in 0.. {
        let entry = at + 32 * k;
        let name = mem.load(entry, Type::Ptr)?;
        if name == 0 {
            break;
        }
        v.push(LongOption {
            name: mem.read_cstr(name, None)?.to_vec(),
            has_arg: mem.load(entry + 8, Type::I32)? as i32,
            flag: mem.load(entry + 16, Type::Ptr)?,
            val: mem.load(entry + 24, Type::I32)? as i32,
        });
    }
    Ok(v)
}
