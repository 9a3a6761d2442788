//! How a function's struct parameters and struct result travel in the C
//! calling convention (System V x86-64), for the functions a library or
//! an object exports.
//!
//! parir has no aggregate values: a struct passed by value is a `ptr`
//! parameter to it (the callee never writes through it; it copies what it
//! changes), and a struct result is returned through a hidden first `ptr`
//! parameter, which the function also returns. C passes a struct of at
//! most 16 bytes in registers instead, one register per eightbyte (an
//! eightbyte of only `float`/`double` fields in an SSE register, any other
//! in a general one), and a larger one as a copy on the stack; it returns
//! a small struct in registers the same way, and a larger one as parir
//! does. The front end records that classification here, with the C
//! declaration a header prints, and the backend exports a wrapper with
//! the C convention where it differs from parir's.
//!
//! Invariant: `params` has one entry per IR parameter, `None` for the
//! hidden result pointer and for every parameter that is not a struct
//! passed by value; `ret` is `Some` exactly when the IR function has the
//! hidden result pointer (parameter 0, also its result).
//!
//! None of this has a text form: a module read back from parir text
//! exports its functions by their machine types.

/// The class of an eightbyte of a struct passed in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eightbyte {
    /// A general-purpose register (`rdi`, `rsi`, ... ; `rax`, `rdx`).
    Integer,
    /// An SSE register (`xmm0`, ...), holding one `double` or two `float`s.
    Sse,
}

/// How a struct travels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StructPassing {
    /// One register per eightbyte (one or two), if enough are left;
    /// otherwise (for a parameter) as [`StructPassing::Memory`].
    Registers(Vec<Eightbyte>),
    /// A parameter: a copy in the caller's stack arguments. A result: the
    /// caller's memory, whose address is the hidden first parameter.
    Memory,
}

/// A struct passed or returned by value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByValue {
    pub size: u32,
    pub align: u32,
    pub passing: StructPassing,
}

/// A function's C-level signature.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CSignature {
    /// The declaration a C header gives it, without the `;`:
    /// `double norm(struct V v, double *w)`.
    pub prototype: String,
    /// Per IR parameter (see the module invariant).
    pub params: Vec<Option<ByValue>>,
    pub ret: Option<ByValue>,
}

impl CSignature {
    /// True if the C convention differs from parir's for this function:
    /// a struct parameter, or a struct result that fits in registers.
    pub fn needs_wrapper(&self) -> bool {
        self.params.iter().any(Option::is_some)
            || self
                .ret
                .as_ref()
                .is_some_and(|r| matches!(r.passing, StructPassing::Registers(_)))
    }
}
