//! `qsort` and `bsearch`: the C library functions that call the program
//! back (through the comparator, a function pointer).
//!
//! They run glibc's algorithms exactly, so a program sees the comparator
//! called on the same elements in the same order as natively (where
//! `qsort` and `bsearch` are glibc's own) and as in a gcc-built program:
//! `qsort` is glibc's merge sort (`msort.c`: halves of `n / 2` and
//! `n - n / 2`, the left element taken while `cmp(left, right) <= 0`, so
//! equal elements keep their order), `bsearch` is its binary search
//! (`stdlib-bsearch.h`). `qsort` sorts element addresses in the
//! unmoved array (glibc's "indirect" sorting, which it uses for elements
//! over 32 bytes) and then moves the elements once: the comparator sees
//! the same values in the same order, only at other addresses.
//!
//! Each comparison is a nested run of the comparator on a thread of its
//! own ([`Interp::run_thread`]); a fault inside it is reported with the
//! comparator's frames above the caller's, and `exit` inside it ends the
//! program.

use super::exec::{Stop, Thread};
use super::{CallSite, Fault, Interp, RunError};
use crate::entities::FuncId;
use crate::intrinsic::CFn;
use crate::types::Type;

/// How a C library function that calls back stopped early.
pub(crate) enum Interrupt {
    /// A fault of the function itself (bad arguments, memory), at its call.
    Fault(Fault),
    /// A run-time error inside a callback, with the callback's frames.
    Error(RunError),
    /// The program called `exit(status)` inside a callback.
    Exit(i32),
}

impl From<Fault> for Interrupt {
    fn from(f: Fault) -> Interrupt {
        Interrupt::Fault(f)
    }
}

impl From<super::memory::MemFault> for Interrupt {
    fn from(f: super::memory::MemFault) -> Interrupt {
        Interrupt::Fault(f.into())
    }
}

/// Callbacks nested deeper than this (a comparator that sorts, whose
/// comparator sorts, ...) are reported rather than overflowing parc's
/// own stack.
const MAX_NESTING: u32 = 64;

impl Interp<'_> {
    /// Runs `qsort` or `bsearch` on `args` (their operands' registers);
    /// the result's register (`bsearch`'s pointer).
    pub(crate) fn call_back(&mut self, f: CFn, args: &[u64]) -> Result<Option<u64>, Interrupt> {
        if self.callback_depth >= MAX_NESTING {
            return Err(Fault::msg(format!(
                "`{}` called from inside {MAX_NESTING} nested comparators",
                f.name()
            ))
            .into());
        }
        self.callback_depth += 1;
        let r = match f {
            CFn::Qsort => self
                .qsort(args[0], args[1], args[2], args[3])
                .map(|()| None),
            CFn::Bsearch => self
                .bsearch(args[0], args[1], args[2], args[3], args[4])
                .map(Some),
            _ => unreachable!("`{}` calls nothing back", f.name()),
        };
        self.callback_depth -= 1;
        r
    }

    /// `qsort(base, n, size, cmp)`.
    fn qsort(&mut self, base: u64, n: u64, size: u64, cmp: u64) -> Result<(), Interrupt> {
        if n <= 1 || size == 0 {
            return Ok(());
        }
        let comparator = self.comparator(cmp, "qsort")?;
        let bytes = n
            .checked_mul(size)
            .ok_or_else(|| Fault::msg(format!("qsort: {n} elements of {size} bytes overflow")))?;
        if base == 0 {
            return Err(Fault::msg("qsort: the array is a null pointer").into());
        }
        // The whole array must be there and writable before any comparison.
        self.mem.write(base, bytes)?;
        let mut order: Vec<u64> = (0..n).map(|i| base + i * size).collect();
        let mut tmp = vec![0u64; order.len()];
        self.msort(comparator, &mut order, &mut tmp)?;
        let old = self.mem.read(base, bytes)?.to_vec();
        let dst = self.mem.write(base, bytes)?;
        for (i, &from) in order.iter().enumerate() {
            let (to, from) = ((i as u64 * size) as usize, (from - base) as usize);
            dst[to..to + size as usize].copy_from_slice(&old[from..from + size as usize]);
        }
        Ok(())
    }

    /// glibc's `msort_with_tmp` on element addresses.
    fn msort(&mut self, cmp: FuncId, b: &mut [u64], tmp: &mut [u64]) -> Result<(), Interrupt> {
        let n = b.len();
        if n <= 1 {
            return Ok(());
        }
        let n1 = n / 2;
        self.msort(cmp, &mut b[..n1], tmp)?;
        self.msort(cmp, &mut b[n1..], tmp)?;
        let (mut i, mut j, mut k) = (0, n1, 0);
        while i < n1 && j < n {
            if self.compare(cmp, b[i], b[j])? <= 0 {
                tmp[k] = b[i];
                i += 1;
            } else {
                tmp[k] = b[j];
                j += 1;
            }
            k += 1;
        }
        // What is left of the right half is in place already.
        tmp[k..k + n1 - i].copy_from_slice(&b[i..n1]);
        k += n1 - i;
        b[..k].copy_from_slice(&tmp[..k]);
        Ok(())
    }

    /// `bsearch(key, base, n, size, cmp)`: the element equal to `key`, or
    /// null.
    fn bsearch(
        &mut self,
        key: u64,
        base: u64,
        n: u64,
        size: u64,
        cmp: u64,
    ) -> Result<u64, Interrupt> {
        if n == 0 {
            return Ok(0);
        }
        let comparator = self.comparator(cmp, "bsearch")?;
        let (mut lo, mut hi) = (0u64, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let p = base.wrapping_add(mid.wrapping_mul(size));
            let c = self.compare(comparator, key, p)?;
            if c < 0 {
                hi = mid;
            } else if c > 0 {
                lo = mid + 1;
            } else {
                return Ok(p);
            }
        }
        Ok(0)
    }

    /// The function a comparator pointer points to, which must take two
    /// pointers and return an `int`.
    fn comparator(&self, cmp: u64, func: &str) -> Result<FuncId, Interrupt> {
        if cmp == 0 {
            return Err(Fault::msg(format!("{func}: the comparator is a null pointer")).into());
        }
        self.pointer_target(cmp, &[Type::Ptr, Type::Ptr], Some(Type::I32))
            .map_err(|f| match f {
                Fault::Msg(m) => Fault::msg(format!("{func}: the comparator: {m}")).into(),
                f => f.into(),
            })
    }

    /// The comparator's result on `a` and `b`.
    fn compare(&mut self, cmp: FuncId, a: u64, b: u64) -> Result<i32, Interrupt> {
        let frame = self.new_frame(cmp, [a, b].into_iter())?;
        let mut th = Thread {
            frames: vec![frame],
            tid: None,
        };
        let stop = self.run_thread(&mut th);
        self.unwind(&mut th);
        match stop.map_err(Interrupt::Error)? {
            Stop::Finished(v) => Ok(v.unwrap_or(0) as i32),
            Stop::Exit(code) => Err(Interrupt::Exit(code)),
            Stop::Barrier(..) => unreachable!("a host thread never stops at a barrier"),
        }
    }

    /// A run-time error inside a callback, with the frames of the thread
    /// that made the C library call (`outer`, whose top frame is at the
    /// call) below the callback's.
    pub(crate) fn error_below(&self, mut inner: RunError, outer: RunError) -> RunError {
        inner.backtrace.push(CallSite {
            function: outer.function,
            loc: outer.loc,
        });
        inner.backtrace.extend(outer.backtrace);
        inner
    }
}
