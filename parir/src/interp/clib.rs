//! The C library functions the interpreter runs: the `printf` family
//! (formats parsed and formatted by `parc-cformat`, the same code the
//! native runtime uses, each conversion by the host libc's `snprintf`, so
//! output agrees byte for byte with a gcc-built program), and the string
//! functions, which call the host libc on a copy of the string read from
//! checked memory.

use super::Fault;
use super::memory::{Kind, Memory, Site};
use super::{clock, cstring};
use crate::intrinsic::CFn;
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

/// The arguments of a `va_list` (`vfprintf`'s), read from checked
/// memory (see [`parc_cformat::va`]), appended to `out`.
pub(crate) fn va_slots(
    name: &str,
    mem: &Memory,
    ap: u64,
    out: &mut Vec<Slot>,
) -> Result<(), Fault> {
    use parc_cformat::va::{VaError, bad_kind_message, slots};
    match slots(ap, |at| mem.load(at, Type::I64)) {
        Ok(args) => {
            out.extend(args);
            Ok(())
        }
        Err(VaError::Kind(k)) => Err(Fault::msg(format!("{name}: {}", bad_kind_message(k)))),
        Err(VaError::Read(f)) => Err(f.into()),
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

/// Stores what `sprintf` (`limit` `None`) or `snprintf(buf, limit, ...)`
/// formatted: as much of `text` as fits before a NUL.
pub(crate) fn store_string(
    func: &str,
    mem: &mut Memory,
    buf: u64,
    limit: Option<u64>,
    text: &[u8],
) -> Result<(), Fault> {
    let len = match limit {
        Some(0) => return Ok(()),
        Some(size) => (text.len() as u64).min(size - 1),
        None => text.len() as u64,
    };
    if buf == 0 {
        return Err(Fault::msg(format!("{func}: the buffer is a null pointer")));
    }
    let dst = mem.write(buf, len + 1)?;
    dst[..len as usize].copy_from_slice(&text[..len as usize]);
    dst[len as usize] = 0;
    Ok(())
}

/// The file descriptor of the C stream (`FILE *`) `addr`: a standard
/// stream is the address fd + 1, another points to a `FILE` whose first
/// field is its descriptor (see parc's `<stdio.h>`).
pub(crate) fn stream_fd(mem: &Memory, addr: u64, func: &str) -> Result<i32, Fault> {
    match addr {
        0 => Err(Fault::msg(format!("{func}: the stream is a null pointer"))),
        1..=3 => Ok(addr as i32 - 1),
        _ => Ok(mem.load(addr, Type::I32)? as i32),
    }
}

/// A copy of the C string at `addr`, for the libc string functions.
fn c_string(mem: &Memory, addr: u64) -> Result<CString, Fault> {
    if addr == 0 {
        return Err(Fault::msg("null pointer passed as a string"));
    }
    let s = mem.read_cstr(addr, None)?;
    Ok(CString::new(s).expect("read_cstr stops at the first NUL"))
}

/// glibc's report of a failed `assert` (`__assert_fail`'s operands), with
/// the program's name as glibc gives it (the running process's: `parc`).
pub(crate) fn assert_message(mem: &Memory, args: &[u64]) -> Result<Vec<u8>, Fault> {
    let text =
        |a: u64| -> Result<String, Fault> { Ok(c_string(mem, a)?.to_string_lossy().into_owned()) };
    let prog = std::env::args()
        .next()
        .and_then(|p| p.rsplit('/').next().map(str::to_string))
        .unwrap_or_default();
    let (expr, file, line) = (text(args[0])?, text(args[1])?, args[2] as u32);
    let func = if args[3] == 0 {
        String::new()
    } else {
        format!("{}: ", text(args[3])?)
    };
    Ok(format!("{prog}: {file}:{line}: {func}Assertion `{expr}' failed.\n").into_bytes())
}

/// The text of a `runtime_error`'s message (a string the front end made).
pub(crate) fn message(mem: &Memory, addr: u64) -> Result<String, Fault> {
    Ok(c_string(mem, addr)?.to_string_lossy().into_owned())
}

/// What the C library keeps between calls, per interpreter (a program's
/// run starts with C's initial state).
#[derive(Default)]
pub(crate) struct State {
    rand: Option<Rand>,
    /// The strings `getenv` returned, by name.
    environment: std::collections::HashMap<String, u64>,
    /// `errno`'s object, made at its first use.
    errno: Option<u64>,
    /// Where `strtok` goes on in the string it was last given (null once
    /// it is used up).
    strtok: u64,
    /// The `critical` sections being run (their names' hashes).
    critical: std::collections::HashSet<i64>,
}

/// Runs the C library function `f` on `args` (its operands' registers, as
/// many as its row has, then zeros); returns its result's register.
pub(crate) fn call(
    mem: &mut Memory,
    state: &mut State,
    f: CFn,
    args: &[u64; CFn::MAX_PARAMS],
    site: Site,
) -> Result<Option<u64>, Fault> {
    let int = |v: i32| Some(v as i64 as u64);
    Ok(match f {
        // Ending the program: the interpreter's step loop.
        CFn::Abort | CFn::AssertFail => unreachable!("handled by the step loop"),
        CFn::Fflush => unreachable!("handled by `exec`, which owns the output"),
        CFn::Qsort | CFn::Bsearch => unreachable!("handled by the step loop (`callback.rs`)"),
        CFn::Atexit => unreachable!("handled by `exec`, which knows the program's functions"),
        CFn::Getopt | CFn::GetoptLong => unreachable!("handled by `exec`, which owns stderr"),
        CFn::Fopen
        | CFn::Fclose
        | CFn::Fread
        | CFn::Fwrite
        | CFn::Fgets
        | CFn::Feof
        | CFn::Ferror
        | CFn::Fseek
        | CFn::Ftell
        | CFn::Rewind
        | CFn::Fgetc
        | CFn::Ungetc => {
            unreachable!("handled by `exec` (`files.rs`), which owns the output")
        }
        // OpenMP's locks: an 8-byte word, 0 unset. The interpreter runs
        // the serial projection, where no other thread can unset a lock
        // that is set: setting it again would wait forever.
        CFn::OmpInitLock | CFn::OmpDestroyLock | CFn::OmpUnsetLock => {
            mem.store(args[0], Type::I64, 0)?;
            None
        }
        CFn::OmpSetLock => {
            if mem.load(args[0], Type::I64)? != 0 {
                return Err(Fault::msg(
                    "omp_set_lock: the lock is set and is never unset (a deadlock: no other \
                     thread runs while this one waits)",
                ));
            }
            mem.store(args[0], Type::I64, 1)?;
            None
        }
        CFn::OmpTestLock => {
            let unset = mem.load(args[0], Type::I64)? == 0;
            if unset {
                mem.store(args[0], Type::I64, 1)?;
            }
            int(i32::from(unset))
        }
        // A nestable lock: the owner's word (1: the one thread) and the
        // count. The one thread may set it again; unsetting it more often
        // than it was set is an error (OpenMP leaves it undefined).
        CFn::OmpInitNestLock | CFn::OmpDestroyNestLock => {
            mem.store(args[0], Type::I64, 0)?;
            mem.store(args[0].wrapping_add(8), Type::I64, 0)?;
            None
        }
        CFn::OmpSetNestLock | CFn::OmpTestNestLock => {
            let count = mem
                .load(args[0].wrapping_add(8), Type::I64)?
                .wrapping_add(1);
            mem.store(args[0], Type::I64, 1)?;
            mem.store(args[0].wrapping_add(8), Type::I64, count)?;
            (f == CFn::OmpTestNestLock).then_some(count as i32 as i64 as u64)
        }
        CFn::OmpUnsetNestLock => {
            let count = mem.load(args[0].wrapping_add(8), Type::I64)?;
            if count == 0 {
                return Err(Fault::msg(
                    "omp_unset_nest_lock: the nestable lock is not set by this thread",
                ));
            }
            if count == 1 {
                mem.store(args[0], Type::I64, 0)?;
            }
            mem.store(args[0].wrapping_add(8), Type::I64, count - 1)?;
            None
        }
        CFn::CriticalBegin => {
            if !state.critical.insert(args[0] as i64) {
                return Err(Fault::msg(
                    "a `critical` section is entered inside a `critical` section of the same \
                     name (a deadlock)",
                ));
            }
            None
        }
        CFn::CriticalEnd => {
            state.critical.remove(&(args[0] as i64));
            None
        }
        CFn::PosixMemalign => {
            let (out, align, size) = (args[0], args[1], args[2]);
            if !align.is_power_of_two() || align % 8 != 0 {
                return Ok(int(libc::EINVAL));
            }
            // Every object's base is aligned to 2^31 (see `memory`).
            let p = mem.alloc(size, Kind::Heap, site)?;
            mem.store(out, Type::Ptr, p)?;
            int(0)
        }
        // SAFETY: scheduling queries and requests about this process,
        // with a `sched_param` copied out of checked memory.
        CFn::SchedGetPriorityMax => int(unsafe { libc::sched_get_priority_max(args[0] as i32) }),
        CFn::SchedGetPriorityMin => int(unsafe { libc::sched_get_priority_min(args[0] as i32) }),
        CFn::SchedSetscheduler => {
            let param = libc::sched_param {
                sched_priority: mem.load(args[2], Type::I32)? as i32,
            };
            // SAFETY: as above.
            int(unsafe { libc::sched_setscheduler(args[0] as i32, args[1] as i32, &param) })
        }
        CFn::Getrlimit => {
            let mut lim = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: `lim` is a valid `rlimit` to write.
            let r = unsafe { libc::getrlimit(args[0] as _, &mut lim) };
            if r == 0 {
                mem.store(args[1], Type::I64, lim.rlim_cur)?;
                mem.store(args[1] + 8, Type::I64, lim.rlim_max)?;
            }
            int(r)
        }
        CFn::Setrlimit => {
            let lim = libc::rlimit {
                rlim_cur: mem.load(args[1], Type::I64)?,
                rlim_max: mem.load(args[1] + 8, Type::I64)?,
            };
            // SAFETY: `lim` is a valid `rlimit`.
            int(unsafe { libc::setrlimit(args[0] as _, &lim) })
        }
        CFn::Atoi => int(atoi(mem, args[0])?),
        CFn::Atol => Some(atol(mem, args[0])? as u64),
        CFn::Atof => Some(atof(mem, args[0])?.to_bits()),
        CFn::Strcmp => int(strcmp(mem, args[0], args[1])?),
        // SAFETY (each `strto*`): `s` and `end` are what `parse` promises.
        CFn::Strtol => Some(state.parse(mem, args[0], args[1], |s, end| unsafe {
            libc::strtol(s, end, args[2] as i32) as u64
        })?),
        CFn::Strtoul => Some(state.parse(mem, args[0], args[1], |s, end| unsafe {
            libc::strtoul(s, end, args[2] as i32) as u64
        })?),
        CFn::Strtoll => Some(state.parse(mem, args[0], args[1], |s, end| unsafe {
            libc::strtoll(s, end, args[2] as i32) as u64
        })?),
        CFn::Strtoull => Some(state.parse(mem, args[0], args[1], |s, end| unsafe {
            libc::strtoull(s, end, args[2] as i32) as u64
        })?),
        CFn::Strtod => Some(state.parse(mem, args[0], args[1], |s, end| unsafe {
            libc::strtod(s, end).to_bits()
        })?),
        CFn::Strtof => Some(state.parse(mem, args[0], args[1], |s, end| unsafe {
            u64::from(libc::strtof(s, end).to_bits())
        })?),
        CFn::Atoll => Some(state.parse(mem, args[0], 0, |s, _| unsafe { libc::atoll(s) as u64 })?),
        CFn::Getenv => Some(state.getenv(mem, args[0])?),
        CFn::Remove => {
            let path = c_string(mem, args[0])?;
            // SAFETY: a valid NUL-terminated path.
            int(unsafe { libc::remove(path.as_ptr()) })
        }
        CFn::Getpid => int(std::process::id() as i32),
        CFn::Rand => int(state.rand.get_or_insert_with(|| Rand::new(1)).next()),
        CFn::Srand => {
            state.rand = Some(Rand::new(args[0] as u32));
            None
        }
        CFn::Strlen => Some(cstring::strlen(mem, args[0])?),
        CFn::Strncmp => int(cstring::strncmp(mem, args[0], args[1], args[2])?),
        CFn::Strcasecmp => int(cstring::strcasecmp(mem, args[0], args[1])?),
        CFn::Strncasecmp => int(cstring::strncasecmp(mem, args[0], args[1], args[2])?),
        CFn::Memcmp => int(cstring::memcmp(mem, args[0], args[1], args[2])?),
        CFn::Memchr => Some(cstring::memchr(mem, args[0], args[1], args[2])?),
        CFn::Strchr => Some(cstring::strchr(mem, args[0], args[1])?),
        CFn::Strspn => Some(cstring::strspn(mem, args[0], args[1], true)?),
        CFn::Strcspn => Some(cstring::strspn(mem, args[0], args[1], false)?),
        CFn::Strpbrk => Some(cstring::strpbrk(mem, args[0], args[1])?),
        CFn::Strtok => Some(cstring::strtok(mem, &mut state.strtok, args[0], args[1])?),
        CFn::ErrnoLocation => Some(state.errno_location(mem)?),
        CFn::Strrchr => Some(cstring::strrchr(mem, args[0], args[1])?),
        CFn::Strstr => Some(cstring::strstr(mem, args[0], args[1])?),
        CFn::Strcpy => Some(cstring::strcpy(mem, args[0], args[1])?),
        CFn::Strncpy => Some(cstring::strncpy(mem, args[0], args[1], args[2])?),
        CFn::Strcat => Some(cstring::strcat(mem, args[0], args[1])?),
        CFn::Strncat => Some(cstring::strncat(mem, args[0], args[1], args[2])?),
        CFn::Memmove => Some(cstring::memmove(mem, args[0], args[1], args[2])?),
        CFn::Strdup => Some(cstring::strdup(mem, args[0], site)?),
        CFn::Clock => Some(clock::clock() as u64),
        CFn::Time => Some(clock::time(mem, args[0])? as u64),
        CFn::Gettimeofday => int(clock::gettimeofday(mem, args[0], args[1])?),
        CFn::ClockGettime => int(clock::clock_gettime(mem, args[0] as i32, args[1])?),
    })
}

impl State {
    /// The address of `errno` (an `int` the program may read and write).
    pub(crate) fn errno_location(&mut self, mem: &mut Memory) -> Result<u64, Fault> {
        if let Some(at) = self.errno {
            return Ok(at);
        }
        let at = mem.alloc(4, Kind::Global, Site::Unknown)?;
        mem.write_init(at, &0i32.to_ne_bytes())?;
        self.errno = Some(at);
        Ok(at)
    }

    /// Sets `errno`, as a C library function reporting an error does.
    pub(crate) fn set_errno(&mut self, mem: &mut Memory, code: i32) -> Result<(), Fault> {
        let at = self.errno_location(mem)?;
        mem.store(at, Type::I32, code as i64 as u64)?;
        Ok(())
    }

    /// A `strto*` function of the C library run as `parse(s, &end)` on a
    /// copy of the string at `addr`; where it stopped is stored at
    /// `end_at` (a `char **`) unless that is null, as the same offset into
    /// the original, and an error it reports (`ERANGE`) is the program's
    /// `errno` (which is left alone otherwise, as C's functions leave it).
    fn parse(
        &mut self,
        mem: &mut Memory,
        addr: u64,
        end_at: u64,
        parse: impl FnOnce(*const libc::c_char, *mut *mut libc::c_char) -> u64,
    ) -> Result<u64, Fault> {
        let s = c_string(mem, addr)?;
        let mut end = s.as_ptr().cast_mut();
        // SAFETY: this thread's `errno`, cleared to see what `parse` sets.
        unsafe { *libc::__errno_location() = 0 };
        let v = parse(s.as_ptr(), &mut end);
        // SAFETY: as above.
        let code = unsafe { *libc::__errno_location() };
        if code != 0 {
            self.set_errno(mem, code)?;
        }
        if end_at != 0 {
            let used = end as u64 - s.as_ptr() as u64;
            mem.store(end_at, Type::Ptr, addr.wrapping_add(used))?;
        }
        Ok(v)
    }

    /// `getenv(name)`: the host environment's value, in an object of the
    /// program's memory made at the first call for that name (later calls
    /// return the same one, as glibc's do), or null.
    fn getenv(&mut self, mem: &mut Memory, name: u64) -> Result<u64, Fault> {
        let name = c_string(mem, name)?;
        let key = name.to_string_lossy().into_owned();
        if let Some(&at) = self.environment.get(&key) {
            return Ok(at);
        }
        let Some(value) = std::env::var_os(&key) else {
            return Ok(0);
        };
        let mut bytes = std::os::unix::ffi::OsStrExt::as_bytes(value.as_os_str()).to_vec();
        bytes.push(0);
        let at = mem.alloc(bytes.len() as u64, Kind::Env, Site::Unknown)?;
        mem.write_init(at, &bytes)?;
        self.environment.insert(key, at);
        Ok(at)
    }
}

/// glibc's `rand`: the additive feedback generator of `random()` with its
/// default 128-byte state (TYPE_3: `r[i] = r[i-3] + r[i-31]`, 310 values
/// discarded after seeding), so a program's numbers are those of the
/// gcc-built program and of parc's native code, which calls glibc's.
struct Rand {
    r: [u32; 34],
    /// Index of `r[i-34]`, the oldest value kept (a ring of 34).
    at: usize,
}

impl Rand {
    fn new(seed: u32) -> Rand {
        let mut r = [0u32; 34];
        // glibc: a seed of 0 is taken as 1.
        r[0] = if seed == 0 { 1 } else { seed };
        for i in 1..31 {
            // 16807 * r[i-1] mod (2^31 - 1), by Schrage's method on signed
            // 32-bit words, as glibc computes it.
            let prev = r[i - 1] as i32;
            let (hi, lo) = (prev / 127773, prev % 127773);
            let mut word = 16807i32
                .wrapping_mul(lo)
                .wrapping_sub(2836i32.wrapping_mul(hi));
            if word < 0 {
                word = word.wrapping_add(2147483647);
            }
            r[i] = word as u32;
        }
        for i in 31..34 {
            r[i] = r[i - 31];
        }
        let mut g = Rand { r, at: 0 };
        for _ in 34..344 {
            g.step();
        }
        g
    }

    /// The next raw 32-bit value of the recurrence.
    fn step(&mut self) -> u32 {
        // Ring of the last 34 values: r[i-34] at `at`, so r[i-31] is 3 on
        // and r[i-3] is 31 on.
        let v = self.r[(self.at + 3) % 34].wrapping_add(self.r[(self.at + 31) % 34]);
        self.r[self.at] = v;
        self.at = (self.at + 1) % 34;
        v
    }

    fn next(&mut self) -> i32 {
        (self.step() >> 1) as i32
    }
}

/// `atoi`: glibc's, i.e. `(int) strtol(s, NULL, 10)`.
fn atoi(mem: &Memory, addr: u64) -> Result<i32, Fault> {
    let s = c_string(mem, addr)?;
    // SAFETY: `s` is a valid NUL-terminated string.
    Ok(unsafe { libc::atoi(s.as_ptr()) })
}

fn atol(mem: &Memory, addr: u64) -> Result<i64, Fault> {
    let s = c_string(mem, addr)?;
    // SAFETY: as above.
    Ok(unsafe { libc::atol(s.as_ptr()) } as i64)
}

fn atof(mem: &Memory, addr: u64) -> Result<f64, Fault> {
    let s = c_string(mem, addr)?;
    // SAFETY: as above.
    Ok(unsafe { libc::atof(s.as_ptr()) })
}

fn strcmp(mem: &Memory, a: u64, b: u64) -> Result<i32, Fault> {
    let a = c_string(mem, a)?;
    let b = c_string(mem, b)?;
    // SAFETY: both are valid NUL-terminated strings.
    Ok(unsafe { libc::strcmp(a.as_ptr(), b.as_ptr()) })
}
