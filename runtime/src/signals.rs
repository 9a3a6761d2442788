//! Hardware faults of generated code as run-time errors.
//!
//! Native code does not check memory accesses, so a null dereference, a
//! wild pointer or unbounded recursion ends in a signal. The runtime turns
//! `SIGSEGV`, `SIGBUS`, `SIGFPE`, `SIGILL` (Cranelift's trap
//! instruction) and `SIGABRT` (the C library's `abort`) into the same report as any other fault (exit status 1,
//! stdout flushed when possible), instead of a crash:
//!
//! | signal | message |
//! |---|---|
//! | `SIGSEGV`/`SIGBUS` at address 0 | `null pointer dereference` |
//! | `SIGSEGV`/`SIGBUS` at an address below 4096 | `null pointer dereference (address 0x…)` |
//! | `SIGSEGV`/`SIGBUS` within 1 MiB below the stack pointer | `stack overflow` |
//! | other `SIGSEGV`/`SIGBUS` | `invalid memory access at address 0x…` |
//! | `SIGFPE` | `integer division by zero or overflow` (x86-64 cannot tell them apart), else `arithmetic exception` |
//! | `SIGILL` | `illegal instruction (a trap in generated code)` |
//! | `SIGABRT` | `the C library aborted the program (its message is above)` (glibc's heap checks) |
//!
//! Where the faulting instruction is generated code whose source position
//! the compiler recorded ([`crate::lines`]), the report names it as other
//! run-time errors do (`run-time error in function `f` at line 12:5:
//! ...`); inside the runtime or the C library, it names the call from
//! generated code that led there ([`crate::lines::caller_site`]); where
//! there is none, a note points to `parc run --interp`, which reports the
//! position of every fault.
//!
//! The handlers are installed once, when the runtime starts its pool or
//! runs `main`; every worker thread (and the thread calling
//! `parc_rt_main`) gets an alternate signal stack if it has none, so a
//! stack overflow can still be reported. The handler is async-signal-safe:
//! it formats into a fixed buffer, flushes the stdout buffer only if its
//! lock is free, writes with `write(2)` and ends with `_exit(1)`.

use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::fmt::Write as _;
use std::ptr;
use std::sync::Once;

/// `si_code`s of `SIGFPE` (Linux's `asm-generic/siginfo.h`; the `libc`
/// crate does not export them).
const FPE_INTDIV: c_int = 1;
const FPE_INTOVF: c_int = 2;

/// Size of each thread's alternate signal stack.
const ALT_STACK: usize = 64 << 10;

/// Installs the handlers (once per process) and gives the calling thread
/// an alternate signal stack.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for sig in [
            libc::SIGSEGV,
            libc::SIGBUS,
            libc::SIGFPE,
            libc::SIGILL,
            libc::SIGABRT,
        ] {
            // SAFETY: a zeroed `sigaction` is a valid starting value; the
            // handler has the `SA_SIGINFO` signature.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = handler as *const () as usize;
                sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(sig, &sa, ptr::null_mut());
            }
        }
        // The handler may unwind (see `crate::lines::caller_site`); the
        // unwinder's first run binds its calls into the dynamic loader,
        // which is no work for a signal handler.
        crate::lines::prepare_unwinder();
    });
    ensure_altstack();
}

/// This thread's alternate signal stack, unmapped when the thread ends.
struct AltStack {
    base: *mut c_void,
    len: usize,
}

impl Drop for AltStack {
    fn drop(&mut self) {
        // SAFETY: disables the alternate stack before unmapping the memory
        // that `ensure_altstack` mapped.
        unsafe {
            let disable = libc::stack_t {
                ss_sp: ptr::null_mut(),
                ss_flags: libc::SS_DISABLE,
                ss_size: 0,
            };
            libc::sigaltstack(&disable, ptr::null_mut());
            libc::munmap(self.base, self.len);
        }
    }
}

thread_local! {
    static ALT: RefCell<Option<AltStack>> = const { RefCell::new(None) };
}

/// Gives the calling thread an alternate signal stack of [`ALT_STACK`]
/// bytes unless it has one at least that large (Rust's own, on threads
/// Rust's runtime started, is a few pages: too small for the unwinder the
/// handler may run).
pub fn ensure_altstack() {
    // SAFETY: queries and sets this thread's alternate stack with valid
    // arguments; the new stack is a fresh mapping with a guard page below.
    unsafe {
        let mut old: libc::stack_t = std::mem::zeroed();
        if libc::sigaltstack(ptr::null(), &mut old) != 0
            || (old.ss_flags & libc::SS_DISABLE == 0 && old.ss_size >= ALT_STACK)
            || ALT.with_borrow(Option::is_some)
        {
            return;
        }
        let page = libc::sysconf(libc::_SC_PAGESIZE).max(4096) as usize;
        let len = ALT_STACK + page;
        let base = libc::mmap(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if base == libc::MAP_FAILED {
            return;
        }
        libc::mprotect(base, page, libc::PROT_NONE);
        let st = libc::stack_t {
            ss_sp: base.cast::<u8>().add(page).cast(),
            ss_flags: 0,
            ss_size: ALT_STACK,
        };
        if libc::sigaltstack(&st, ptr::null_mut()) != 0 {
            libc::munmap(base, len);
            return;
        }
        ALT.with_borrow_mut(|a| *a = Some(AltStack { base, len }));
    }
}

/// A fixed buffer that `write!` fills without allocating.
struct Fixed {
    buf: [u8; 256],
    len: usize,
}

impl std::fmt::Write for Fixed {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// The interrupted code's instruction address, stack pointer and frame
/// pointer, where the platform exposes them.
///
/// # Safety
/// `uc` is the `ucontext_t` the kernel passed to the handler.
unsafe fn interrupted_at(uc: *mut c_void) -> Option<Registers> {
    if uc.is_null() {
        return None;
    }
    let uc = uc as *const libc::ucontext_t;
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    // SAFETY: the kernel's context for this signal.
    return Some(unsafe {
        let regs = &(*uc).uc_mcontext.gregs;
        Registers {
            pc: regs[libc::REG_RIP as usize] as usize,
            sp: regs[libc::REG_RSP as usize] as usize,
            fp: regs[libc::REG_RBP as usize] as usize,
        }
    });
    #[cfg(all(target_os = "linux", target_arch = "aarch64"))]
    // SAFETY: as above.
    return Some(unsafe {
        Registers {
            pc: (*uc).uc_mcontext.pc as usize,
            sp: (*uc).uc_mcontext.sp as usize,
            fp: (*uc).uc_mcontext.regs[29] as usize,
        }
    });
    #[allow(unreachable_code)]
    {
        let _ = uc;
        None
    }
}

/// The registers of the interrupted code that say where it was.
#[derive(Clone, Copy)]
struct Registers {
    pc: usize,
    sp: usize,
    fp: usize,
}

/// Where the interrupted code is the prologue of a function of generated
/// code (a stack overflow on entry), the call of that function; where it
/// is not generated code (a fault inside the runtime or the C library, a
/// stack overflow in `printf`), the call from generated code that led
/// there.
fn write_site(out: &mut Fixed, at: Option<Registers>) {
    let entered_from = |r: Registers| {
        // SAFETY: the kernel's registers of the interrupted thread.
        let ret = unsafe { crate::lines::prologue_return_address(r.pc, r.sp, r.fp) };
        ret.and_then(|ret| crate::lines::site_of(ret - 1))
    };
    let Some(site) = at
        .and_then(|r| crate::lines::site_of(r.pc).or_else(|| entered_from(r)))
        .or_else(crate::lines::caller_site)
    else {
        return;
    };
    let _ = out.write_str(" in function `");
    if !site.name.is_null() {
        // SAFETY: the compiler's table names functions with NUL-terminated
        // strings in the program's read-only data.
        let name = unsafe { std::ffi::CStr::from_ptr(site.name) };
        let _ = out.write_str(std::str::from_utf8(name.to_bytes()).unwrap_or("?"));
    }
    let _ = write!(out, "` at line {}:{}", site.line, site.col);
    if !site.file.is_null() {
        // SAFETY: as for the name.
        let file = unsafe { std::ffi::CStr::from_ptr(site.file) };
        let _ = out.write_str(" of ");
        let _ = out.write_str(std::str::from_utf8(file.to_bytes()).unwrap_or("?"));
    }
}

extern "C" fn handler(sig: c_int, info: *mut libc::siginfo_t, uc: *mut c_void) {
    let mut msg = Fixed {
        buf: [0; 256],
        len: 0,
    };
    let mut site = Fixed {
        buf: [0; 256],
        len: 0,
    };
    // SAFETY: the kernel passes a valid `uc` to an `SA_SIGINFO` handler.
    let at = unsafe { interrupted_at(uc) };
    write_site(&mut site, at);
    let sp = at.map(|r| r.sp);
    // SAFETY: the kernel passes a valid `info` to an `SA_SIGINFO` handler.
    let (addr, code) = unsafe { ((*info).si_addr() as usize, (*info).si_code) };
    let _ = match sig {
        libc::SIGSEGV | libc::SIGBUS => {
            if addr == 0 {
                msg.write_str("null pointer dereference")
            } else if addr < 4096 {
                // The interpreter's words for a field of a null struct.
                write!(msg, "null pointer dereference (address {addr:#x})")
            } else if sp
                .is_some_and(|sp| addr < sp.wrapping_add(4096) && sp - addr.min(sp) < 1 << 20)
            {
                msg.write_str("stack overflow")
            } else {
                write!(msg, "invalid memory access at address {addr:#x}")
            }
        }
        // x86-64 raises the same exception for both.
        libc::SIGFPE => msg.write_str(match code {
            FPE_INTDIV | FPE_INTOVF => "integer division by zero or overflow",
            _ => "arithmetic exception",
        }),
        // glibc's heap checks (a double free, say) print their message and
        // call `abort`.
        libc::SIGABRT => msg.write_str("the C library aborted the program (its message is above)"),
        _ => msg.write_str("illegal instruction (a trap in generated code)"),
    };
    crate::fault::die_in_signal_handler(&site.buf[..site.len], &msg.buf[..msg.len]);
}
