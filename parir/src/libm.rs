//! The C math library (the host's libm, glibc's on Linux) behind the math
//! intrinsics: each one's `double` and `float` function. The interpreter
//! calls these functions, native code calls the same symbols (the JIT
//! links to the addresses [`symbols`] gives), and gcc-built programs call
//! them too, so all three compute the same bits.
//!
//! The functions are looked up by name in the C library's `libm.so.6` at
//! first use, not taken from this binary's own links: Rust's runtime
//! carries its own `cbrt`, `fmod`, `round` ... (compiler-builtins), which
//! the static link of `parc` binds first, and its `cbrt` differs from
//! glibc's by an ulp on some inputs. Where `libm.so.6` cannot be opened,
//! the linked functions are used.
//!
//! Invariant: every math intrinsic ([`Intrinsic::is_math`]) has its pair
//! here, named as its row of the intrinsic table says (`exp`, and `expf`
//! for `f32`).

use crate::intrinsic::Intrinsic;
use crate::types::Type;
use std::ffi::{CString, c_void};
use std::sync::OnceLock;

/// A math intrinsic's C functions.
#[derive(Clone, Copy)]
pub enum MathFn {
    Unary(extern "C" fn(f64) -> f64, extern "C" fn(f32) -> f32),
    Binary(
        extern "C" fn(f64, f64) -> f64,
        extern "C" fn(f32, f32) -> f32,
    ),
}

impl MathFn {
    /// `op` applied to `args` in `f64`.
    pub fn f64(self, args: &[f64]) -> f64 {
        match self {
            MathFn::Unary(f, _) => f(args[0]),
            MathFn::Binary(f, _) => f(args[0], args[1]),
        }
    }

    /// `op` applied to `args` in `f32`.
    pub fn f32(self, args: &[f32]) -> f32 {
        match self {
            MathFn::Unary(_, f) => f(args[0]),
            MathFn::Binary(_, f) => f(args[0], args[1]),
        }
    }
}

/// One math intrinsic's functions, resolved.
struct Entry {
    op: Intrinsic,
    names: [&'static str; 2],
    f: MathFn,
}

/// The address of the C library's function `name`, or `linked` (this
/// binary's) if the C library cannot be searched.
fn resolve(name: &str, linked: usize) -> usize {
    static LIBM: OnceLock<usize> = OnceLock::new();
    let handle = *LIBM.get_or_init(|| {
        // SAFETY: opening a shared library by name; glibc's libm has no
        // initializers with effects.
        unsafe { libc::dlopen(c"libm.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) as usize }
    });
    if handle == 0 {
        return linked;
    }
    let Ok(cname) = CString::new(name) else {
        return linked;
    };
    // SAFETY: `handle` is an open library and `cname` a C string.
    let p = unsafe { libc::dlsym(handle as *mut c_void, cname.as_ptr()) };
    if p.is_null() { linked } else { p as usize }
}

macro_rules! libm {
    (
        unary: $($u:ident $uf:ident $uop:ident),* ;
        binary: $($b:ident $bf:ident $bop:ident),* ;
    ) => {
        #[link(name = "m")]
        unsafe extern "C" {
            $(
                safe fn $u(x: f64) -> f64;
                safe fn $uf(x: f32) -> f32;
            )*
            $(
                safe fn $b(x: f64, y: f64) -> f64;
                safe fn $bf(x: f32, y: f32) -> f32;
            )*
        }

        /// Every math intrinsic's functions, resolved once.
        fn table() -> &'static [Entry] {
            type U = extern "C" fn(f64) -> f64;
            type Uf = extern "C" fn(f32) -> f32;
            type B = extern "C" fn(f64, f64) -> f64;
            type Bf = extern "C" fn(f32, f32) -> f32;
            static TABLE: OnceLock<Vec<Entry>> = OnceLock::new();
            TABLE.get_or_init(|| {
                // SAFETY (each transmute): the address is that of a C
                // function with this signature, found by its name.
                vec![
                    $( Entry {
                        op: Intrinsic::$uop,
                        names: [stringify!($u), stringify!($uf)],
                        f: unsafe {
                            MathFn::Unary(
                                std::mem::transmute::<usize, U>(resolve(stringify!($u), $u as U as usize)),
                                std::mem::transmute::<usize, Uf>(resolve(stringify!($uf), $uf as Uf as usize)),
                            )
                        },
                    }, )*
                    $( Entry {
                        op: Intrinsic::$bop,
                        names: [stringify!($b), stringify!($bf)],
                        f: unsafe {
                            MathFn::Binary(
                                std::mem::transmute::<usize, B>(resolve(stringify!($b), $b as B as usize)),
                                std::mem::transmute::<usize, Bf>(resolve(stringify!($bf), $bf as Bf as usize)),
                            )
                        },
                    }, )*
                ]
            })
        }

        /// The symbols of all these functions.
        pub const SYMBOLS: &[&str] = &[
            $( stringify!($u), stringify!($uf), )*
            $( stringify!($b), stringify!($bf), )*
        ];
    };
}

/// The C functions computing the math intrinsic `op`; `None` if `op` is
/// not a math function.
pub fn math_fn(op: Intrinsic) -> Option<MathFn> {
    table().iter().find(|e| e.op == op).map(|e| e.f)
}

/// The C symbol of the math intrinsic `op` on `ty` (`f32` picks the
/// `f`-suffixed one); `None` if `op` is not a math function.
pub fn symbol(op: Intrinsic, ty: Type) -> Option<&'static str> {
    let e = table().iter().find(|e| e.op == op)?;
    Some(e.names[usize::from(ty == Type::F32)])
}

/// Every function with its address in this process, for a JIT's symbol
/// table: generated code then calls the functions the interpreter calls.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    let mut out = Vec::new();
    for e in table() {
        let (d, f) = match e.f {
            MathFn::Unary(d, f) => (d as *const u8, f as *const u8),
            MathFn::Binary(d, f) => (d as *const u8, f as *const u8),
        };
        out.extend([(e.names[0], d), (e.names[1], f)]);
    }
    out
}

libm! {
    unary:
        sqrt sqrtf Sqrt, exp expf Exp, log logf Log, sin sinf Sin, cos cosf Cos,
        tan tanf Tan, tanh tanhf Tanh, fabs fabsf Fabs, floor floorf Floor,
        ceil ceilf Ceil, atan atanf Atan, asin asinf Asin, acos acosf Acos,
        sinh sinhf Sinh, cosh coshf Cosh, asinh asinhf Asinh, acosh acoshf Acosh,
        atanh atanhf Atanh, log10 log10f Log10, log2 log2f Log2, exp2 exp2f Exp2,
        cbrt cbrtf Cbrt, round roundf Round, trunc truncf Trunc, erf erff Erf;
    binary:
        pow powf Pow, fmin fminf Fmin, fmax fmaxf Fmax, atan2 atan2f Atan2,
        fmod fmodf Fmod, hypot hypotf Hypot;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_math_intrinsic_has_its_c_functions_named_as_its_row() {
        let syms = symbols();
        for op in Intrinsic::all() {
            assert_eq!(math_fn(op).is_some(), op.is_math(), "{}", op.name());
            if op.is_math() {
                let name = op.info().c_name.unwrap();
                assert!(syms.iter().any(|(s, _)| *s == name), "{name}");
                let f = format!("{name}f");
                assert!(syms.iter().any(|(s, _)| *s == f), "{f}");
                let arity = op.info().params.len();
                let got = match math_fn(op) {
                    Some(MathFn::Unary(..)) => 1,
                    _ => 2,
                };
                assert_eq!(got, arity, "{name}");
            }
        }
    }

    /// The functions are the C library's, not this binary's own copies:
    /// `cbrt` is where they differ (compiler-builtins links its own).
    #[test]
    fn functions_are_the_c_library_s() {
        // SAFETY: as in `resolve`.
        let handle =
            unsafe { libc::dlopen(c"libm.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return;
        }
        for (name, addr) in symbols() {
            let c = CString::new(name).unwrap();
            // SAFETY: an open library and a C string.
            let want = unsafe { libc::dlsym(handle, c.as_ptr()) };
            assert_eq!(addr, want as *const u8, "{name}");
        }
    }

    #[test]
    fn values_are_libm_s() {
        let f = |op| math_fn(op).unwrap();
        // glibc's cbrt is within an ulp (of -3 here: -3.0000000000000004).
        assert!((f(Intrinsic::Cbrt).f64(&[-27.0]) + 3.0).abs() < 1e-15);
        assert_eq!(f(Intrinsic::Round).f64(&[-2.5]), -3.0);
        assert_eq!(f(Intrinsic::Trunc).f32(&[-2.7]), -2.0);
        assert_eq!(f(Intrinsic::Hypot).f64(&[3.0, 4.0]), 5.0);
        assert_eq!(f(Intrinsic::Fmod).f64(&[-7.5, 2.0]), -1.5);
        assert_eq!(f(Intrinsic::Exp2).f32(&[10.0]), 1024.0);
    }
}
