//! Intrinsics: operations with fixed meaning that are not plain
//! arithmetic — math functions (whose derivatives the AD knows), memory
//! management, the C library functions the runtime and the interpreter
//! provide, GPU thread ids, barriers and atomics.
//!
//! The table below is the one list of them. Each row gives everything the
//! compiler knows about an intrinsic besides what it computes ([`Info`]):
//! its name in the text form, its operand and result types (checked by the
//! verifier), and its effects on memory and the world ([`Effects`]), which
//! the optimizer's mod/ref and alias analyses and the AD read instead of
//! listing intrinsics themselves. What each computes is written where it
//! is carried out: the interpreter (`interp/exec.rs`), the backends, the
//! AD's adjoint rules (`parc-ad`'s `rules.rs`).
//!
//! Invariant: every [`Intrinsic`] has exactly one row, so adding one is one
//! row here plus its meaning in each consumer (the compiler points at each
//! `match` that must learn it).
//!
//! Length (over 1,000 lines): the one list is long because it is one list
//! — a row per intrinsic and one per C library function ([`CFn`]), each
//! with its documentation, and the enums its rows are written in. The
//! macros make the enums, `info` and `all` from the rows, so splitting the
//! rows by family would need the families gathered again into one enum,
//! and adding an intrinsic would start by finding its file.

use crate::types::Type;

/// One of the three dimensions of a GPU grid or block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    X,
    Y,
    Z,
}

impl Dim {
    pub const ALL: [Dim; 3] = [Dim::X, Dim::Y, Dim::Z];

    pub fn name(self) -> &'static str {
        match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// Which copy `cuda_memcpy` performs (CUDA's `cudaMemcpyKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyKind {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

impl CopyKind {
    pub const ALL: [CopyKind; 3] = [
        CopyKind::HostToDevice,
        CopyKind::DeviceToHost,
        CopyKind::DeviceToDevice,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CopyKind::HostToDevice => "h2d",
            CopyKind::DeviceToHost => "d2h",
            CopyKind::DeviceToDevice => "d2d",
        }
    }
}

/// The type an intrinsic operand or result has: a fixed type, or "the
/// floating type of the result" for the overloaded math functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandType {
    Fixed(Type),
    /// Same as the instruction's result type (`f32` or `f64` for math;
    /// the value operand's type for `atomic_add`).
    Result,
    /// Any of `i32 i64 f32 f64` (atomics' value operand).
    Arith,
}

/// Memory an intrinsic reads or writes through one of its operands
/// (operands are numbered from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// As many bytes as operand `len` (an `i64`) says, at operand `ptr`.
    Sized { ptr: usize, len: usize },
    /// `size` bytes at operand `ptr`.
    Fixed { ptr: usize, size: u32 },
    /// At operand `ptr`, a value of operand `like`'s type (an atomic's
    /// target).
    TypeOf { ptr: usize, like: usize },
    /// At operand `ptr`, an extent the operands do not give (a C string).
    Unsized(usize),
    /// What each pointer operand from `first` on points to, extent not
    /// given (`printf`'s format and `%s` arguments).
    Pointers { first: usize },
}

/// What an intrinsic does besides computing its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    /// Memory read through operands.
    pub reads: &'static [Extent],
    /// Memory written through operands.
    pub writes: &'static [Extent],
    /// May read or write any memory (its operands' and more).
    pub any_memory: bool,
    /// Allocates or frees memory.
    pub allocates: bool,
    /// Has an effect outside memory that must happen as often and in the
    /// order the program says (output, the clock, ending the program,
    /// waiting for other threads): never deleted, merged or reordered
    /// with another such intrinsic.
    pub side_effects: bool,
    /// May keep a pointer operand beyond the call, or return a pointer
    /// derived from one (alias analysis then treats the operand's object
    /// as escaped).
    pub captures: bool,
}

impl Effects {
    /// None at all: the result depends on the operands only.
    pub const PURE: Effects = Effects {
        reads: &[],
        writes: &[],
        any_memory: false,
        allocates: false,
        side_effects: false,
        captures: false,
    };

    /// Anything: reads and writes any memory, allocates, has effects,
    /// keeps its pointers (ending the program, barriers).
    pub const EVERYTHING: Effects = Effects {
        reads: &[],
        writes: &[],
        any_memory: true,
        allocates: true,
        side_effects: true,
        captures: true,
    };

    const fn reads(reads: &'static [Extent]) -> Effects {
        Effects {
            reads,
            ..Effects::PURE
        }
    }

    const fn writes(self, writes: &'static [Extent]) -> Effects {
        Effects { writes, ..self }
    }

    const fn allocating(self) -> Effects {
        Effects {
            allocates: true,
            ..self
        }
    }

    const fn observable(self) -> Effects {
        Effects {
            side_effects: true,
            ..self
        }
    }

    const fn capturing(self) -> Effects {
        Effects {
            captures: true,
            ..self
        }
    }

    pub fn is_pure(&self) -> bool {
        *self == Effects::PURE
    }
}

/// What kind of code an intrinsic becomes natively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// A few machine instructions (`sqrt fabs fmin fmax floor ceil trunc
    /// abs labs`): cheaper to compute again than to record.
    Cheap,
    /// A call (of the C library or the runtime) or more.
    Call,
}

/// Everything the compiler knows about an intrinsic besides what it
/// computes: one row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info {
    /// The name in the text form; a parameterized intrinsic's name gets
    /// its parameter appended (`thread_idx.x`, `cuda_memcpy.h2d`).
    pub name: &'static str,
    /// The C library function it is, where it is one (for the math
    /// functions, the `double` one; `f` appended names the `float` one).
    /// Usually the name, but not where that would read as another
    /// instruction (`ftrunc` is C's `trunc`; `trunc` is the cast).
    pub c_name: Option<&'static str>,
    /// Operand types; the fixed prefix when [`Info::variadic`].
    pub params: &'static [OperandType],
    /// The result type; `None`: no result.
    pub result: Option<OperandType>,
    /// Takes any number of operands after `params`, each `i32`, `i64`,
    /// `f64` or `ptr` (C's default argument promotions done).
    pub variadic: bool,
    pub effects: Effects,
    pub cost: Cost,
    /// Legal only in kernels and device functions.
    pub gpu_only: bool,
}

use OperandType::{Arith, Fixed, Result as R};

const I32: OperandType = Fixed(Type::I32);
const I64: OperandType = Fixed(Type::I64);
const F32: OperandType = Fixed(Type::F32);
const F64: OperandType = Fixed(Type::F64);
const PTR: OperandType = Fixed(Type::Ptr);

/// A row: an intrinsic with `effects` costing a call.
const fn row(
    name: &'static str,
    params: &'static [OperandType],
    result: Option<OperandType>,
    effects: Effects,
) -> Info {
    Info {
        name,
        c_name: None,
        params,
        result,
        variadic: false,
        effects,
        cost: Cost::Call,
        gpu_only: false,
    }
}

/// A pure function of floating operands of the result's type.
const fn math(name: &'static str, arity: usize) -> Info {
    let params: &'static [OperandType] = match arity {
        1 => &[R],
        _ => &[R, R],
    };
    row(name, params, Some(R), Effects::PURE).c(name)
}

impl Info {
    const fn c(self, name: &'static str) -> Info {
        Info {
            c_name: Some(name),
            ..self
        }
    }

    const fn cheap(self) -> Info {
        Info {
            cost: Cost::Cheap,
            ..self
        }
    }

    const fn variadic(self) -> Info {
        Info {
            variadic: true,
            ..self
        }
    }

    const fn gpu_only(self) -> Info {
        Info {
            gpu_only: true,
            ..self
        }
    }
}

/// A parameter of a family of intrinsics (`thread_idx.x`).
trait Param: Copy + 'static {
    const ALL: &'static [Self];
    fn suffix(self) -> &'static str;

    /// The row of the family member with this parameter: the family's
    /// own, unless each member has its own ([`CFn`]).
    fn row(self, family: &'static Info) -> &'static Info {
        family
    }

    /// The member's name in the text form: `family.suffix`.
    fn full_name(self, family: &str) -> String {
        format!("{family}.{}", self.suffix())
    }
}

impl Param for Dim {
    const ALL: &'static [Dim] = &Dim::ALL;
    fn suffix(self) -> &'static str {
        self.name()
    }
}

impl Param for CopyKind {
    const ALL: &'static [CopyKind] = &CopyKind::ALL;
    fn suffix(self) -> &'static str {
        self.name()
    }
}

impl Param for CFn {
    const ALL: &'static [CFn] = CFn::ALL;
    fn suffix(self) -> &'static str {
        self.name()
    }

    fn row(self, _: &'static Info) -> &'static Info {
        self.info()
    }

    /// A C library function is named as in C (`strlen`, not `c.strlen`).
    fn full_name(self, _: &str) -> String {
        self.name().to_string()
    }
}

/// Defines [`Intrinsic`] from the table: the enum, [`Intrinsic::info`]
/// and [`Intrinsic::all`] each come from the one list of rows.
macro_rules! intrinsics {
    ($(
        $(#[$doc:meta])*
        $variant:ident $(($param:ident))? => $info:expr;
    )*) => {
        /// An operation with fixed meaning that is not plain arithmetic;
        /// see the module doc, and [`Intrinsic::info`] for each one's row.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Intrinsic {
            $( $(#[$doc])* $variant $(($param))?, )*
        }

        impl Intrinsic {
    /// Convergent intrinsics (`barrier`): the set of threads that runs one
    /// must not change (see [`crate::convergent`]).
    pub fn is_convergent(self) -> bool {
        self == Intrinsic::Barrier
    }

            /// This intrinsic's row of the table.
            pub fn info(self) -> &'static Info {
                match self {
                    $( Intrinsic::$variant $((intrinsics!(@bind p $param)))? => {
                        const INFO: Info = $info;
                        intrinsics!(@row INFO $(p $param)?)
                    } )*
                }
            }

            /// Every intrinsic, in table order (for the text reader and
            /// exhaustive tests).
            pub fn all() -> Vec<Intrinsic> {
                let mut all = Vec::new();
                $( intrinsics!(@each all, $variant $(, $param)?); )*
                all
            }

            /// The name in the text form, e.g. `sqrt`, `thread_idx.x`,
            /// `cuda_memcpy.h2d`, `strlen`.
            pub fn name(self) -> String {
                let base = self.info().name;
                match self {
                    $( Intrinsic::$variant $((intrinsics!(@bind p $param)))? =>
                        intrinsics!(@name base $(p $param)?), )*
                }
            }
        }
    };
    (@bind $p:ident $param:ident) => { $p };
    (@row $info:ident) => { &$info };
    (@row $info:ident $p:ident $param:ident) => { Param::row($p, &$info) };
    (@name $base:ident) => { $base.to_string() };
    (@name $base:ident $p:ident $param:ident) => { Param::full_name($p, $base) };
    (@each $all:ident, $variant:ident) => { $all.extend([Intrinsic::$variant]) };
    (@each $all:ident, $variant:ident, $param:ident) => {
        $all.extend(<$param as Param>::ALL.iter().map(|&p| Intrinsic::$variant(p)))
    };
}

use Extent::{Pointers, Sized, TypeOf, Unsized};

/// The `v` functions of the `printf` family read their operands' memory
/// (the `va_list`'s slots among it) and what pointers stored in those
/// slots point to (`%s`), which no operand names: any memory; `vfprintf`
/// writes to a stream.
const VA_FORMAT: Effects = Effects {
    reads: &[Pointers { first: 0 }],
    any_memory: true,
    ..Effects::PURE
};
const VA_PRINT: Effects = Effects {
    side_effects: true,
    ..VA_FORMAT
};

intrinsics! {
    Sqrt => math("sqrt", 1).cheap();
    Exp => math("exp", 1);
    Log => math("log", 1);
    Pow => math("pow", 2);
    Sin => math("sin", 1);
    Cos => math("cos", 1);
    Tan => math("tan", 1);
    Tanh => math("tanh", 1);
    Fabs => math("fabs", 1).cheap();
    Fmin => math("fmin", 2).cheap();
    Fmax => math("fmax", 2).cheap();
    Floor => math("floor", 1).cheap();
    Ceil => math("ceil", 1).cheap();
    Atan => math("atan", 1);
    /// `atan2(y, x)`
    Atan2 => math("atan2", 2);
    Asin => math("asin", 1);
    Acos => math("acos", 1);
    Sinh => math("sinh", 1);
    Cosh => math("cosh", 1);
    Asinh => math("asinh", 1);
    Acosh => math("acosh", 1);
    Atanh => math("atanh", 1);
    Log10 => math("log10", 1);
    Log2 => math("log2", 1);
    Exp2 => math("exp2", 1);
    Cbrt => math("cbrt", 1);
    /// `fmod(x, y)`: `x - n y` with `n` the quotient rounded toward zero
    /// (exact).
    Fmod => math("fmod", 2);
    /// Rounds half away from zero (not to even).
    Round => math("round", 1);
    /// C's `trunc` (`trunc` in the text form is the integer cast).
    Trunc => math("ftrunc", 1).c("trunc").cheap();
    Hypot => math("hypot", 2);
    Erf => math("erf", 1);
    Abs => row("abs", &[I32], Some(I32), Effects::PURE).cheap();
    Labs => row("labs", &[I64], Some(I64), Effects::PURE).cheap();
    /// `malloc(i64 bytes) -> ptr`
    Malloc => row("malloc", &[I64], Some(PTR), Effects::PURE.allocating());
    /// `calloc(i64 count, i64 size) -> ptr`, zeroed.
    Calloc => row("calloc", &[I64, I64], Some(PTR), Effects::PURE.allocating());
    /// `realloc(ptr, i64 bytes) -> ptr`: keeps the contents; `realloc(null,
    /// n)` is `malloc(n)`. Not in ParC: generated by the AD for tapes that
    /// grow.
    Realloc => row("realloc", &[PTR, I64], Some(PTR), Effects::EVERYTHING);
    /// `free(ptr)`; freeing null does nothing.
    Free => row("free", &[PTR], None, Effects::PURE.writes(&[Unsized(0)]).allocating());
    /// `ad_tape_note(i64 recorded, i64 allocated)`: a gradient's tape
    /// grew (or shrank, negative) by `recorded` bytes of records and
    /// `allocated` bytes of heap; counted only when the program runs with
    /// `PARC_AD_STATS`, which prints the peaks when it ends. Not in ParC:
    /// generated by the AD where tape memory changes. Touches no memory of
    /// the program; observable, so that no pass deletes or merges notes.
    AdTapeNote => row("ad_tape_note", &[I64, I64], None, Effects::PURE.observable());
    /// `ad_tape_measure(i64 on) -> i64`: the bytes of records gradient
    /// tapes hold now, counting `ad_tape_note`s from the call with `on`
    /// 1 until the call with `on` 0 even without `PARC_AD_STATS` (only
    /// differences of two results mean anything). Not in ParC: generated
    /// by the AD where `--tape-budget` measures a loop's iteration.
    /// Observable, so that no pass moves notes across it.
    AdTapeMeasure => row("ad_tape_measure", &[I64], Some(I64), Effects::PURE.observable());
    /// `phys_mem() -> i64`: the machine's physical memory in bytes (or
    /// `PARC_PHYS_MEM`'s, a testing aid), 0 if unknown. Not in ParC:
    /// generated by the AD where a tape budget is a fraction of the
    /// memory (the default budget).
    PhysMem => row("phys_mem", &[], Some(I64), Effects::PURE.observable());
    /// `memcpy(ptr dst, ptr src, i64 bytes)`
    Memcpy => row(
        "memcpy",
        &[PTR, PTR, I64],
        None,
        Effects::reads(&[Sized { ptr: 1, len: 2 }]).writes(&[Sized { ptr: 0, len: 2 }]),
    );
    /// `memset(ptr dst, i32 byte, i64 bytes)`
    Memset => row(
        "memset",
        &[PTR, I32, I64],
        None,
        Effects::PURE.writes(&[Sized { ptr: 0, len: 2 }]),
    );
    /// `printf(ptr format, args...) -> i32`: variadic; arguments are
    /// already promoted as C's default argument promotions do.
    Printf => row(
        "printf",
        &[PTR],
        Some(I32),
        Effects::reads(&[Pointers { first: 0 }]).observable(),
    )
    .variadic();
    /// `fprintf(ptr stream, ptr format, args...) -> i32`: `printf` to a
    /// C stream (`FILE *`, whose first field is the `int` file descriptor:
    /// 1 for `stdout`, 2 for `stderr`, as parc's `<stdio.h>` defines them).
    Fprintf => row(
        "fprintf",
        &[PTR, PTR],
        Some(I32),
        Effects::reads(&[Pointers { first: 0 }]).observable(),
    )
    .variadic();
    /// `sprintf(ptr buffer, ptr format, args...) -> i32`: `printf` into
    /// memory, NUL-terminated (the buffer must hold it all); the number of
    /// bytes before the NUL.
    Sprintf => row(
        "sprintf",
        &[PTR, PTR],
        Some(I32),
        Effects::reads(&[Pointers { first: 1 }]).writes(&[Unsized(0)]),
    )
    .variadic();
    /// `snprintf(ptr buffer, i64 size, ptr format, args...) -> i32`: at most
    /// `size - 1` bytes of `sprintf`'s and a NUL (nothing when `size` is 0);
    /// the length the whole would have.
    Snprintf => row(
        "snprintf",
        &[PTR, I64, PTR],
        Some(I32),
        Effects::reads(&[Pointers { first: 2 }]).writes(&[Sized { ptr: 0, len: 1 }]),
    )
    .variadic();
    /// `vfprintf(ptr stream, ptr format, ptr ap) -> i32`: `fprintf` with
    /// the arguments a `va_list` points to, in the slots of parc's own
    /// convention for variadic functions it defines (a kind word, 0
    /// integer, 1 `double`, 2 pointer, and the value, 16 bytes a slot,
    /// up to a slot of kind 3). The `%s` strings are reached through
    /// pointers in those slots, which operands do not name: it may read
    /// any memory.
    Vfprintf => row("vfprintf", &[PTR, PTR, PTR], Some(I32), VA_PRINT);
    /// `vsnprintf(ptr buffer, i64 size, ptr format, ptr ap) -> i32`:
    /// `snprintf` with the arguments of a `va_list` (as `vfprintf`);
    /// `vsprintf` is a `size` of `u64::MAX`.
    Vsnprintf => row("vsnprintf", &[PTR, I64, PTR, PTR], Some(I32), VA_FORMAT);
    /// `sscanf(ptr string, ptr format, ptrs...) -> i32`: scans the
    /// string as `scanf` does, storing through the pointers after the
    /// format; the number of items stored, or -1 (`EOF`) if the string
    /// ended before any was.
    Sscanf => row(
        "sscanf",
        &[PTR, PTR],
        Some(I32),
        Effects::reads(&[Pointers { first: 0 }]).writes(&[Pointers { first: 2 }]),
    )
    .variadic();
    /// `fscanf(ptr stream, ptr format, ptrs...) -> i32`: `sscanf` of a C
    /// stream's input (`stdin` is the address 1, as for `fprintf`); it
    /// consumes the input it reads. `scanf` is `fscanf` of `stdin`.
    Fscanf => row(
        "fscanf",
        &[PTR, PTR],
        Some(I32),
        Effects::reads(&[Pointers { first: 0 }])
            .writes(&[Pointers { first: 2 }])
            .observable(),
    )
    .variadic();
    /// A function of the C library that native code calls as it is, with
    /// its row's signature (see [`CFn`]).
    C(CFn) => row("c", &[], None, Effects::EVERYTHING);
    /// `exit(i32)`: ends the program, never returns.
    Exit => row("exit", &[I32], None, Effects::EVERYTHING);
    /// `runtime_error(ptr message)`: ends the program with a run-time error, the C
    /// string `message` reported at this instruction's source position;
    /// never returns. Not in ParC: the front end's checks that only run
    /// time can decide (a `parallel_for` step that is not positive).
    RuntimeError => row("runtime_error", &[PTR], None, Effects::EVERYTHING);
    /// `wtime() -> f64`: monotonic seconds.
    Wtime => row("wtime", &[], Some(F64), Effects::PURE.observable());
    /// `worker_id() -> i32`: the index of the worker running the current
    /// strand, in `0..num_workers()` on a worker of the pool, and
    /// `num_workers()` on a thread outside it (native code called from C
    /// without entering the pool), so `num_workers() + 1` slots always
    /// suffice. Not in ParC: the AD indexes per-worker partial sums with
    /// it. Not pure: the answer changes when a strand resumes on another
    /// worker (after a sync or a spawn), so it must not be moved or merged
    /// (modelled, conservatively, as touching everything).
    WorkerId => row("worker_id", &[], Some(I32), Effects::EVERYTHING);
    /// `num_workers() -> i32`: the number of workers (at least 1).
    NumWorkers => row("num_workers", &[], Some(I32), Effects::EVERYTHING);
    /// `barrier()`: `__syncthreads()`; every thread of the block must
    /// reach it.
    Barrier => row("barrier", &[], None, Effects::EVERYTHING).gpu_only();
    /// `atomic_add(ptr, v) -> old`, for `i32`, `i64`, `f32`, `f64`.
    AtomicAdd => row(
        "atomic_add",
        &[PTR, Arith],
        Some(R),
        Effects::reads(&[TypeOf { ptr: 0, like: 1 }])
            .writes(&[TypeOf { ptr: 0, like: 1 }])
            .observable(),
    );
    /// `cuda_malloc(ptr out, i64 bytes) -> i32` stores a device pointer in `*out`.
    CudaMalloc => row(
        "cuda_malloc",
        &[PTR, I64],
        Some(I32),
        Effects::PURE.writes(&[Extent::Fixed { ptr: 0, size: 8 }]).allocating(),
    );
    /// `cuda_free(ptr) -> i32`
    CudaFree => row(
        "cuda_free",
        &[PTR],
        Some(I32),
        Effects::PURE.writes(&[Unsized(0)]).allocating(),
    );
    /// `cuda_device_synchronize() -> i32`
    CudaDeviceSynchronize => row("cuda_device_synchronize", &[], Some(I32), Effects::EVERYTHING);
    /// `thread_idx.x -> i32` and so on.
    ThreadIdx(Dim) => row("thread_idx", &[], Some(I32), Effects::PURE).gpu_only();
    BlockIdx(Dim) => row("block_idx", &[], Some(I32), Effects::PURE).gpu_only();
    BlockDim(Dim) => row("block_dim", &[], Some(I32), Effects::PURE).gpu_only();
    GridDim(Dim) => row("grid_dim", &[], Some(I32), Effects::PURE).gpu_only();
    /// `cuda_memcpy(ptr dst, ptr src, i64 bytes) -> i32`
    CudaMemcpy(CopyKind) => row(
        "cuda_memcpy",
        &[PTR, PTR, I64],
        Some(I32),
        Effects::reads(&[Sized { ptr: 1, len: 2 }])
            .writes(&[Sized { ptr: 0, len: 2 }])
            .observable(),
    );
}

/// A row of the C library table: the function `name` of the C library,
/// called as it is.
const fn libc(
    name: &'static str,
    params: &'static [OperandType],
    result: Option<OperandType>,
    effects: Effects,
) -> Info {
    row(name, params, result, effects).c(name)
}

/// Defines [`CFn`] from its table.
macro_rules! c_library {
    ($(
        $(#[$doc:meta])*
        $variant:ident => $info:expr;
    )*) => {
        /// A function of the C library that native code calls under its C
        /// name with its row's signature (fixed types only), on the host
        /// only: `Intrinsic::C`. Adding one is its row here, its prototype
        /// in parc's headers (`lang/include/`; the checker takes the C
        /// types from it) and what it does in the interpreter
        /// (`interp/clib.rs`); the backends read the row.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum CFn {
            $( $(#[$doc])* $variant, )*
        }

        impl CFn {
            /// Every one, in table order.
            pub const ALL: &'static [CFn] = &[$(CFn::$variant),*];

            /// This function's row.
            pub fn info(self) -> &'static Info {
                match self {
                    $( CFn::$variant => {
                        const INFO: Info = $info;
                        &INFO
                    } )*
                }
            }
        }
    };
}

c_library! {
    Atoi => libc("atoi", &[PTR], Some(I32), Effects::reads(&[Unsized(0)]));
    Atol => libc("atol", &[PTR], Some(I64), Effects::reads(&[Unsized(0)]));
    Atof => libc("atof", &[PTR], Some(F64), Effects::reads(&[Unsized(0)]));
    Strcmp => libc("strcmp", &[PTR, PTR], Some(I32), Effects::reads(&[Unsized(0), Unsized(1)]));
    /// `rand()`: the C library's generator (glibc's sequence).
    Rand => libc("rand", &[], Some(I32), Effects::PURE.observable());
    /// `srand(unsigned seed)`
    Srand => libc("srand", &[I32], None, Effects::PURE.observable());
    /// `abort()`: ends the program with `SIGABRT`, streams not flushed.
    Abort => libc("abort", &[], None, Effects::EVERYTHING);
    /// `__assert_fail(expr, file, line, function)`: glibc's report of a
    /// failed `assert` (`PROG: FILE:LINE: FUNCTION: Assertion `EXPR'
    /// failed.` on stderr), then `abort()`.
    AssertFail => libc("__assert_fail", &[PTR, PTR, I32, PTR], None, Effects::EVERYTHING);
    /// `fflush(ptr stream) -> i32`: writes out what the program's stdout
    /// holds (every stream for null); 0.
    Fflush => libc("fflush", &[PTR], Some(I32), Effects::PURE.observable());
    /// `posix_memalign(ptr *out, i64 alignment, i64 size) -> i32`: stores a
    /// new block (freed by `free`) in `*out`; 0, or `EINVAL` for an
    /// alignment that is not a power of two times `sizeof(void *)`.
    PosixMemalign => libc(
        "posix_memalign",
        &[PTR, I64, I64],
        Some(I32),
        Effects::PURE.writes(&[Extent::Fixed { ptr: 0, size: 8 }]).allocating(),
    );
    /// `sched_get_priority_max(policy) -> i32`
    SchedGetPriorityMax => libc("sched_get_priority_max", &[I32], Some(I32), Effects::PURE);
    /// `sched_get_priority_min(policy) -> i32`
    SchedGetPriorityMin => libc("sched_get_priority_min", &[I32], Some(I32), Effects::PURE);
    /// `sched_setscheduler(pid, policy, const struct sched_param *) -> i32`
    SchedSetscheduler => libc(
        "sched_setscheduler",
        &[I32, I32, PTR],
        Some(I32),
        Effects::reads(&[Extent::Fixed { ptr: 2, size: 4 }]).observable(),
    );
    /// `getrlimit(resource, struct rlimit *) -> i32`
    Getrlimit => libc(
        "getrlimit",
        &[I32, PTR],
        Some(I32),
        Effects::PURE.writes(&[Extent::Fixed { ptr: 1, size: 16 }]).observable(),
    );
    /// `setrlimit(resource, const struct rlimit *) -> i32`
    Setrlimit => libc(
        "setrlimit",
        &[I32, PTR],
        Some(I32),
        Effects::reads(&[Extent::Fixed { ptr: 1, size: 16 }]).observable(),
    );
    /// `strlen(s) -> size_t`
    Strlen => libc("strlen", &[PTR], Some(I64), Effects::reads(&[Unsized(0)]));
    /// `strncmp(a, b, n)`: at most `n` bytes of each.
    Strncmp => libc("strncmp", &[PTR, PTR, I64], Some(I32), Effects::reads(&[Unsized(0), Unsized(1)]));
    /// `strcasecmp(a, b)`: ASCII letters compared as lower case.
    Strcasecmp => libc("strcasecmp", &[PTR, PTR], Some(I32), Effects::reads(&[Unsized(0), Unsized(1)]));
    Strncasecmp => libc(
        "strncasecmp",
        &[PTR, PTR, I64],
        Some(I32),
        Effects::reads(&[Unsized(0), Unsized(1)]),
    );
    /// `memcmp(a, b, n)`
    Memcmp => libc(
        "memcmp",
        &[PTR, PTR, I64],
        Some(I32),
        Effects::reads(&[Sized { ptr: 0, len: 2 }, Sized { ptr: 1, len: 2 }]),
    );
    /// `memchr(s, c, n)`: the first byte `(unsigned char)c` among `n`
    /// (null if none).
    Memchr => libc(
        "memchr",
        &[PTR, I32, I64],
        Some(PTR),
        Effects::reads(&[Sized { ptr: 0, len: 2 }]).capturing(),
    );
    /// `strchr(s, c)`: the first `(char)c` in `s` (its NUL included), or null.
    Strchr => libc("strchr", &[PTR, I32], Some(PTR), Effects::reads(&[Unsized(0)]).capturing());
    /// `strrchr(s, c)`: the last one.
    Strrchr => libc("strrchr", &[PTR, I32], Some(PTR), Effects::reads(&[Unsized(0)]).capturing());
    /// `strstr(haystack, needle)`
    Strstr => libc(
        "strstr",
        &[PTR, PTR],
        Some(PTR),
        Effects::reads(&[Unsized(0), Unsized(1)]).capturing(),
    );
    /// `strspn(s, accept) -> size_t`: the length of the start of `s` made
    /// of bytes of `accept`.
    Strspn => libc("strspn", &[PTR, PTR], Some(I64), Effects::reads(&[Unsized(0), Unsized(1)]));
    /// `strcspn(s, reject) -> size_t`: the length of the start of `s` made
    /// of bytes not in `reject`.
    Strcspn => libc("strcspn", &[PTR, PTR], Some(I64), Effects::reads(&[Unsized(0), Unsized(1)]));
    /// `strpbrk(s, accept)`: the first byte of `s` in `accept`, or null.
    Strpbrk => libc(
        "strpbrk",
        &[PTR, PTR],
        Some(PTR),
        Effects::reads(&[Unsized(0), Unsized(1)]).capturing(),
    );
    /// `strtok(s, delim)`: the next token of `s` (null: of the string the
    /// last call was given), its end overwritten with a NUL. The string it
    /// continues is hidden state, so the call may touch any memory.
    Strtok => libc("strtok", &[PTR, PTR], Some(PTR), Effects::EVERYTHING);
    /// `__errno_location() -> int *`: where `errno` is (glibc's name;
    /// `<errno.h>` defines `errno` as `*__errno_location()`). Each thread
    /// has its own, so it is not a constant of the program.
    ErrnoLocation => libc("__errno_location", &[], Some(PTR), Effects::PURE.observable());
    /// `strcpy(dst, src) -> dst`
    Strcpy => libc(
        "strcpy",
        &[PTR, PTR],
        Some(PTR),
        Effects::reads(&[Unsized(1)]).writes(&[Unsized(0)]).capturing(),
    );
    /// `strncpy(dst, src, n) -> dst`: exactly `n` bytes, NUL-padded.
    Strncpy => libc(
        "strncpy",
        &[PTR, PTR, I64],
        Some(PTR),
        Effects::reads(&[Unsized(1)]).writes(&[Sized { ptr: 0, len: 2 }]).capturing(),
    );
    /// `strcat(dst, src) -> dst`
    Strcat => libc(
        "strcat",
        &[PTR, PTR],
        Some(PTR),
        Effects::reads(&[Unsized(0), Unsized(1)]).writes(&[Unsized(0)]).capturing(),
    );
    /// `strncat(dst, src, n) -> dst`: at most `n` bytes of `src`, then a NUL.
    Strncat => libc(
        "strncat",
        &[PTR, PTR, I64],
        Some(PTR),
        Effects::reads(&[Unsized(0), Unsized(1)]).writes(&[Unsized(0)]).capturing(),
    );
    /// `memmove(dst, src, n) -> dst`: the ranges may overlap.
    Memmove => libc(
        "memmove",
        &[PTR, PTR, I64],
        Some(PTR),
        Effects::reads(&[Sized { ptr: 1, len: 2 }])
            .writes(&[Sized { ptr: 0, len: 2 }])
            .capturing(),
    );
    /// `strdup(s)`: a copy in memory from `malloc`.
    Strdup => libc("strdup", &[PTR], Some(PTR), Effects::reads(&[Unsized(0)]).allocating());
    /// `clock() -> clock_t`: the process's CPU time, in microseconds.
    Clock => libc("clock", &[], Some(I64), Effects::PURE.observable());
    /// `time(t) -> time_t`: seconds since 1970, also stored at `t` unless null.
    Time => libc(
        "time",
        &[PTR],
        Some(I64),
        Effects::PURE.writes(&[Extent::Fixed { ptr: 0, size: 8 }]).observable(),
    );
    /// `gettimeofday(struct timeval *tv, void *tz) -> int`
    Gettimeofday => libc(
        "gettimeofday",
        &[PTR, PTR],
        Some(I32),
        Effects::PURE
            .writes(&[Extent::Fixed { ptr: 0, size: 16 }, Extent::Fixed { ptr: 1, size: 8 }])
            .observable(),
    );
    /// `strtol(s, char **end, base) -> long`: the number at the start of
    /// `s` (after white space) in `base` (2 to 36, or 0: C's prefixes);
    /// where it ends is stored at `end` unless null.
    Strtol => libc(
        "strtol",
        &[PTR, PTR, I32],
        Some(I64),
        Effects::reads(&[Unsized(0)]).writes(&[Extent::Fixed { ptr: 1, size: 8 }]).capturing(),
    );
    Strtoul => libc(
        "strtoul",
        &[PTR, PTR, I32],
        Some(I64),
        Effects::reads(&[Unsized(0)]).writes(&[Extent::Fixed { ptr: 1, size: 8 }]).capturing(),
    );
    Strtoll => libc(
        "strtoll",
        &[PTR, PTR, I32],
        Some(I64),
        Effects::reads(&[Unsized(0)]).writes(&[Extent::Fixed { ptr: 1, size: 8 }]).capturing(),
    );
    Strtoull => libc(
        "strtoull",
        &[PTR, PTR, I32],
        Some(I64),
        Effects::reads(&[Unsized(0)]).writes(&[Extent::Fixed { ptr: 1, size: 8 }]).capturing(),
    );
    /// `strtod(s, char **end) -> double`: decimal, hexadecimal, `inf` and
    /// `nan` as glibc reads them.
    Strtod => libc(
        "strtod",
        &[PTR, PTR],
        Some(F64),
        Effects::reads(&[Unsized(0)]).writes(&[Extent::Fixed { ptr: 1, size: 8 }]).capturing(),
    );
    Strtof => libc(
        "strtof",
        &[PTR, PTR],
        Some(F32),
        Effects::reads(&[Unsized(0)]).writes(&[Extent::Fixed { ptr: 1, size: 8 }]).capturing(),
    );
    Atoll => libc("atoll", &[PTR], Some(I64), Effects::reads(&[Unsized(0)]));
    /// `getenv(name) -> char *`: the variable's value (the same string on
    /// every call), or null.
    Getenv => libc("getenv", &[PTR], Some(PTR), Effects::reads(&[Unsized(0)]));
    /// `fopen(path, mode) -> FILE *`: a new stream, or null.
    Fopen => libc(
        "fopen",
        &[PTR, PTR],
        Some(PTR),
        Effects::reads(&[Unsized(0), Unsized(1)]).allocating().observable(),
    );
    /// `fclose(stream) -> int`
    Fclose => libc(
        "fclose",
        &[PTR],
        Some(I32),
        Effects::reads(&[Unsized(0)]).writes(&[Unsized(0)]).allocating().observable(),
    );
    /// `fread(ptr, size, n, stream) -> size_t`: whole elements read.
    Fread => libc(
        "fread",
        &[PTR, I64, I64, PTR],
        Some(I64),
        Effects::reads(&[Unsized(3)]).writes(&[Unsized(0), Unsized(3)]).observable(),
    );
    /// `fwrite(ptr, size, n, stream) -> size_t`: whole elements written.
    Fwrite => libc(
        "fwrite",
        &[PTR, I64, I64, PTR],
        Some(I64),
        Effects::reads(&[Unsized(0), Unsized(3)]).writes(&[Unsized(3)]).observable(),
    );
    /// `fgets(buf, n, stream) -> buf`: a line (or `n - 1` bytes), or null
    /// at the end.
    Fgets => libc(
        "fgets",
        &[PTR, I32, PTR],
        Some(PTR),
        Effects::reads(&[Unsized(2)])
            .writes(&[Unsized(0), Unsized(2)])
            .observable()
            .capturing(),
    );
    /// `feof(stream) -> int`
    Feof => libc("feof", &[PTR], Some(I32), Effects::reads(&[Unsized(0)]).observable());
    /// `ferror(stream) -> int`: nonzero once a read or write failed.
    Ferror => libc("ferror", &[PTR], Some(I32), Effects::reads(&[Unsized(0)]).observable());
    /// `fseek(stream, offset, whence) -> int`: 0, or -1 (with `errno`).
    Fseek => libc(
        "fseek",
        &[PTR, I64, I32],
        Some(I32),
        Effects::reads(&[Unsized(0)]).writes(&[Unsized(0)]).observable(),
    );
    /// `ftell(stream) -> long`: the position, or -1.
    Ftell => libc("ftell", &[PTR], Some(I64), Effects::reads(&[Unsized(0)]).observable());
    /// `rewind(stream)`: `fseek(stream, 0, SEEK_SET)`, the error flag cleared.
    Rewind => libc(
        "rewind",
        &[PTR],
        None,
        Effects::reads(&[Unsized(0)]).writes(&[Unsized(0)]).observable(),
    );
    /// `fgetc(stream) -> int`: the next byte as `unsigned char`, or `EOF`.
    Fgetc => libc(
        "fgetc",
        &[PTR],
        Some(I32),
        Effects::reads(&[Unsized(0)]).writes(&[Unsized(0)]).observable(),
    );
    /// `ungetc(c, stream) -> int`: pushes `c` back to be read next (one
    /// byte is guaranteed, as in C); `c`, or `EOF`.
    Ungetc => libc(
        "ungetc",
        &[I32, PTR],
        Some(I32),
        Effects::reads(&[Unsized(1)]).writes(&[Unsized(1)]).observable(),
    );
    /// `atexit(void (*f)(void)) -> int`: `f` runs when the program ends
    /// (`main` returns or `exit`), the last registered first; 0.
    Atexit => libc("atexit", &[PTR], Some(I32), Effects::PURE.observable());
    /// `remove(path) -> int`: deletes a file; 0, or -1.
    Remove => libc("remove", &[PTR], Some(I32), Effects::reads(&[Unsized(0)]).observable());
    /// `getpid() -> pid_t`
    Getpid => libc("getpid", &[], Some(I32), Effects::PURE);
    /// `getopt(argc, argv, optstring) -> int`: the next option letter of
    /// the command line (GNU's: `argv` is permuted so that the options come
    /// first), `optarg`, `optind`, `optopt` set; messages on stderr. It
    /// writes `argv` and those globals, which no operand names.
    Getopt => libc("getopt", &[I32, PTR, PTR], Some(I32), Effects::EVERYTHING);
    /// `getopt_long(argc, argv, optstring, longopts, longindex) -> int`:
    /// `getopt` with `--name[=value]` options (unique prefixes accepted).
    GetoptLong => libc("getopt_long", &[I32, PTR, PTR, PTR, PTR], Some(I32), Effects::EVERYTHING);
    /// `qsort(base, n, size, cmp)`: glibc's stable merge sort, calling the
    /// program's comparator (a function pointer) back; it may do anything.
    Qsort => libc("qsort", &[PTR, I64, I64, PTR], None, Effects::EVERYTHING.writes(&[Unsized(0)]));
    /// `bsearch(key, base, n, size, cmp) -> ptr`: glibc's binary search,
    /// calling the comparator back; the element found (in `base`) or null.
    Bsearch => libc("bsearch", &[PTR, PTR, I64, I64, PTR], Some(PTR), Effects::EVERYTHING);
    /// `omp_init_lock(omp_lock_t *)`: the lock (one 8-byte word) unset.
    OmpInitLock => libc("omp_init_lock", &[PTR], None, Effects::PURE.writes(&[Extent::Fixed { ptr: 0, size: 8 }]));
    /// `omp_destroy_lock(omp_lock_t *)`: the lock may not be used again
    /// until initialized.
    OmpDestroyLock => libc("omp_destroy_lock", &[PTR], None, Effects::PURE.writes(&[Extent::Fixed { ptr: 0, size: 8 }]));
    /// `omp_set_lock(omp_lock_t *)`: waits until the lock is unset and
    /// sets it. Memory written by the thread that unset it before is
    /// visible after: the call may touch any memory, so that no access is
    /// moved across it.
    OmpSetLock => libc("omp_set_lock", &[PTR], None, Effects::EVERYTHING);
    /// `omp_unset_lock(omp_lock_t *)`
    OmpUnsetLock => libc("omp_unset_lock", &[PTR], None, Effects::EVERYTHING);
    /// `omp_test_lock(omp_lock_t *) -> int`: sets the lock if it is unset
    /// (1), or returns 0 at once.
    OmpTestLock => libc("omp_test_lock", &[PTR], Some(I32), Effects::EVERYTHING);
    /// `omp_init_nest_lock(omp_nest_lock_t *)`: the nestable lock (two
    /// 8-byte words: the owning thread, 0 for none, and how many times it
    /// set the lock) unset.
    OmpInitNestLock => libc("omp_init_nest_lock", &[PTR], None, Effects::PURE.writes(&[Extent::Fixed { ptr: 0, size: 16 }]));
    /// `omp_destroy_nest_lock(omp_nest_lock_t *)`
    OmpDestroyNestLock => libc("omp_destroy_nest_lock", &[PTR], None, Effects::PURE.writes(&[Extent::Fixed { ptr: 0, size: 16 }]));
    /// `omp_set_nest_lock(omp_nest_lock_t *)`: sets the lock again if
    /// this thread holds it, else waits until it is unset and sets it
    /// (as `omp_set_lock`, any memory).
    OmpSetNestLock => libc("omp_set_nest_lock", &[PTR], None, Effects::EVERYTHING);
    /// `omp_unset_nest_lock(omp_nest_lock_t *)`: unsets it once; the
    /// last unset releases it.
    OmpUnsetNestLock => libc("omp_unset_nest_lock", &[PTR], None, Effects::EVERYTHING);
    /// `omp_test_nest_lock(omp_nest_lock_t *) -> int`: as
    /// `omp_set_nest_lock` without waiting: the new nesting count, or 0
    /// when another thread holds the lock.
    OmpTestNestLock => libc("omp_test_nest_lock", &[PTR], Some(I32), Effects::EVERYTHING);
    /// `__parc_critical_begin(long name)`: enters the `#pragma omp
    /// critical` sections of that name (a hash of it; 0 is the unnamed
    /// one), waiting while another thread is in one. The front end's, not
    /// declared in a header.
    CriticalBegin => libc("__parc_critical_begin", &[I64], None, Effects::EVERYTHING);
    /// `__parc_critical_end(long name)`: leaves them.
    CriticalEnd => libc("__parc_critical_end", &[I64], None, Effects::EVERYTHING);
    /// `clock_gettime(clockid_t clock, struct timespec *ts) -> int`
    ClockGettime => libc(
        "clock_gettime",
        &[I32, PTR],
        Some(I32),
        Effects::PURE.writes(&[Extent::Fixed { ptr: 1, size: 16 }]).observable(),
    );
}

impl CFn {
    /// The most parameters one has.
    pub const MAX_PARAMS: usize = 6;

    /// The C name (`strlen`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn from_name(name: &str) -> Option<CFn> {
        CFn::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// The parameter and result types (every one fixed).
    pub fn ir_signature(self) -> (Vec<Type>, Option<Type>) {
        let fixed = |t: &OperandType| match *t {
            Fixed(t) => t,
            _ => unreachable!("a C library row has fixed types (tested)"),
        };
        let info = self.info();
        (
            info.params.iter().map(fixed).collect(),
            info.result.as_ref().map(fixed),
        )
    }
}

impl Intrinsic {
    pub fn from_name(name: &str) -> Option<Intrinsic> {
        Intrinsic::all().into_iter().find(|i| i.name() == name)
    }

    /// Operand types (the fixed prefix for a variadic intrinsic) and the
    /// result type (`None`: no result).
    pub fn signature(self) -> (Vec<OperandType>, Option<OperandType>) {
        let info = self.info();
        (info.params.to_vec(), info.result)
    }

    pub fn is_variadic(self) -> bool {
        self.info().variadic
    }

    pub fn effects(self) -> &'static Effects {
        &self.info().effects
    }

    /// True for the `printf` family that writes to a stream (`printf`,
    /// `fprintf`, `vfprintf`).
    pub fn is_printf(self) -> bool {
        matches!(
            self,
            Intrinsic::Printf | Intrinsic::Fprintf | Intrinsic::Vfprintf
        )
    }

    /// True for the `printf` family that writes to memory (`sprintf`,
    /// `snprintf`).
    pub fn is_sprintf(self) -> bool {
        matches!(self, Intrinsic::Sprintf | Intrinsic::Snprintf)
    }

    /// True for the `scanf` family (`sscanf`, `fscanf`), which stores
    /// through its arguments after the fixed ones.
    pub fn is_scanf(self) -> bool {
        matches!(self, Intrinsic::Sscanf | Intrinsic::Fscanf)
    }

    /// True for intrinsics that only read their operands and touch no memory
    /// or other state, so they can be moved, merged or deleted freely.
    pub fn is_pure(self) -> bool {
        self.info().effects.is_pure()
    }

    /// True for the arithmetic intrinsics that are a few machine
    /// instructions ([`Cost::Cheap`]): no call in native code, and cheaper
    /// to compute again than to record.
    pub fn is_cheap_arithmetic(self) -> bool {
        self.info().cost == Cost::Cheap
    }

    /// True for the math functions: pure, on floating operands of the
    /// result's type (`f32` or `f64`).
    pub fn is_math(self) -> bool {
        let info = self.info();
        info.effects.is_pure() && info.result == Some(OperandType::Result)
    }

    /// The math functions that also apply lane-wise to float vectors
    /// (`fmin.f64x2 a, b`: each lane as the scalar function, a NaN lane
    /// ignored as C's `fmin` ignores it), which the loop vectorizer uses.
    pub fn is_lanewise(self) -> bool {
        matches!(self, Intrinsic::Fmin | Intrinsic::Fmax)
    }

    /// GPU-only intrinsics: legal only in kernels and device functions.
    pub fn is_gpu_only(self) -> bool {
        self.info().gpu_only
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_read_back() {
        let all = Intrinsic::all();
        let mut names: Vec<String> = all.iter().map(|i| i.name()).collect();
        for op in &all {
            assert_eq!(Intrinsic::from_name(&op.name()), Some(*op));
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        assert!(names.contains(&"thread_idx.z".to_string()));
        assert!(names.contains(&"cuda_memcpy.d2h".to_string()));
    }

    #[test]
    fn effects_name_operands_that_exist() {
        for op in Intrinsic::all() {
            let info = op.info();
            let n = info.params.len();
            let fx = &info.effects;
            for x in fx.reads.iter().chain(fx.writes) {
                let ptrs = match *x {
                    Extent::Sized { ptr, len } => {
                        assert_eq!(info.params[len], I64, "{}", op.name());
                        vec![ptr]
                    }
                    Extent::Fixed { ptr, .. } | Extent::Unsized(ptr) => vec![ptr],
                    Extent::TypeOf { ptr, like } => {
                        assert!(like < n, "{}", op.name());
                        vec![ptr]
                    }
                    Extent::Pointers { first } => {
                        assert!(info.variadic || first < n, "{}", op.name());
                        vec![]
                    }
                };
                for p in ptrs {
                    assert_eq!(info.params[p], PTR, "{}: operand {p}", op.name());
                }
            }
            if let Intrinsic::C(f) = op {
                assert!(!info.variadic && info.c_name == Some(f.name()));
                assert!(info.params.len() <= CFn::MAX_PARAMS, "{}", op.name());
                let fixed = |t: &OperandType| matches!(t, Fixed(_));
                assert!(info.params.iter().all(fixed), "{}", op.name());
                assert!(info.result.iter().all(fixed), "{}", op.name());
            }
            if info.cost == Cost::Cheap {
                assert!(fx.is_pure(), "{} is cheap but not pure", op.name());
            }
        }
    }
}
