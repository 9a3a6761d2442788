//! `atomicAdd` and friends for CPU code and kernels run on the CPU.
//!
//! Each returns the value before the addition. Ordering: sequentially
//! consistent. That is stronger than CUDA's `atomicAdd` (relaxed) and costs
//! nothing more on x86-64, where every read-modify-write is a full fence.
//! Integer additions wrap. Floating additions are a compare-and-swap loop
//! on the bit pattern, so a NaN stored in the location does not make the
//! loop spin (bits are compared, not values).
//!
//! The pointer must be non-null and aligned to the operand size (a fault
//! otherwise, rather than undefined behaviour).
//!
//! The native backend emits the same operations inline (`atomic_rmw` for
//! integers, the compare-and-swap loop for floats, where a call would cost
//! as much as the loop): these entry points are the C ABI of the same
//! operations for code that links the runtime.

use crate::fault;
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering};

#[inline]
fn check<T>(p: *mut T, what: &str) {
    if p.is_null() || !(p as usize).is_multiple_of(align_of::<T>()) {
        fault::die(&format!(
            "atomicAdd on {} pointer {p:p} ({what})",
            if p.is_null() {
                "a null"
            } else {
                "a misaligned"
            }
        ));
    }
}

/// `atomicAdd(int*, int)`: returns the old value.
///
/// # Safety
/// `p` points to an `int` that is only accessed atomically while others
/// may access it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_atomic_add_i32(p: *mut i32, v: i32) -> i32 {
    check(p, "int");
    // SAFETY: non-null and aligned (checked), valid by the caller's contract.
    unsafe { AtomicI32::from_ptr(p) }.fetch_add(v, Ordering::SeqCst)
}

/// `atomicAdd(long*, long)`: returns the old value.
///
/// # Safety
/// As [`parc_rt_atomic_add_i32`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_atomic_add_i64(p: *mut i64, v: i64) -> i64 {
    check(p, "long");
    // SAFETY: non-null and aligned (checked), valid by the caller's contract.
    unsafe { AtomicI64::from_ptr(p) }.fetch_add(v, Ordering::SeqCst)
}

/// `atomicAdd(float*, float)`: returns the old value.
///
/// # Safety
/// As [`parc_rt_atomic_add_i32`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_atomic_add_f32(p: *mut f32, v: f32) -> f32 {
    check(p, "float");
    // SAFETY: non-null and aligned (checked); `f32` and `u32` have the same
    // size and alignment.
    let a = unsafe { AtomicU32::from_ptr(p.cast()) };
    let old = a
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |bits| {
            Some((f32::from_bits(bits) + v).to_bits())
        })
        .unwrap_or_else(|b| b);
    f32::from_bits(old)
}

/// `atomicAdd(double*, double)`: returns the old value.
///
/// # Safety
/// As [`parc_rt_atomic_add_i32`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_atomic_add_f64(p: *mut f64, v: f64) -> f64 {
    check(p, "double");
    // SAFETY: non-null and aligned (checked); `f64` and `u64` have the same
    // size and alignment.
    let a = unsafe { AtomicU64::from_ptr(p.cast()) };
    let old = a
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |bits| {
            Some((f64::from_bits(bits) + v).to_bits())
        })
        .unwrap_or_else(|b| b);
    f64::from_bits(old)
}
