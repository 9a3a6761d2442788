//! parir: parc's parallel intermediate representation.
//!
//! SSA with block parameters over a CFG, explicit byte-addressed memory, and
//! Tapir's three terminators for fork-join parallelism (`detach`, `reattach`,
//! `sync`). Module map:
//! - [`entities`], [`types`], [`inst`], [`function`]: the data;
//! - [`intrinsic`]: the table of intrinsics (names, signatures, effects);
//!   [`libm`]: the C math functions behind the math intrinsics;
//! - [`builder`]: appending instructions with their types worked out;
//! - [`mod@print`] and [`read`]: the text form, which round-trips;
//! - [`convergent`]: barriers and the functions that reach them, and what
//!   passes must not do to them;
//! - [`verify`]: every invariant, Tapir's rules included, and
//!   [`gradient`]'s rule for what the AD can differentiate;
//! - [`analysis`]: CFG, dominators, loops, the task tree;
//! - [`interp`]: the reference interpreter (the serial projection);
//! - [`opt_level`]: `-O0` to `-O3`, which the optimizer and the backends read.

pub mod analysis;
pub mod builder;
pub mod cabi;
pub mod convergent;
pub mod entities;
pub mod eval;
pub mod function;
pub mod gradient;
pub mod inst;
pub mod interp;
pub mod intrinsic;
pub mod libm;
pub mod link;
pub mod opt_level;
pub mod print;
pub mod read;
pub mod types;
pub mod verify;

pub use builder::{FuncBuilder, new_function, sign_extend};
pub use entities::{Block, FuncId, GlobalId, Inst, SyncRegion, Value};
pub use function::{
    Activity, AddrSpace, BlockData, FuncKind, Function, GlobalData, GradRequest, InstData, Linkage,
    Module, Signature, SrcLoc, ValueData, ValueDef, gradient_param_names, gradient_signature,
};
pub use inst::{BinaryOp, BlockCall, CastOp, FloatCC, InstKind, IntCC, UnaryOp};
pub use intrinsic::{CFn, CopyKind, Cost, Dim, Effects, Extent, Info, Intrinsic, OperandType};
pub use opt_level::OptLevel;
pub use types::Type;
