//! Typed `u32` references to the IR's arenas (Cranelift's `ir/entities.rs`).
//!
//! An entity is only meaningful together with the arena it indexes: a
//! [`Value`], [`Inst`], [`Block`] or [`SyncRegion`] belongs to one
//! [`Function`](crate::Function); a [`FuncId`] or [`GlobalId`] to one
//! [`Module`](crate::Module). Their `Display` forms (`v3`, `block2`, `sr0`,
//! `@f`-style names are printed by the printer) are the text format's.

use cranelift_entity::entity_impl;

/// An SSA value: an instruction's result or a block parameter.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// An instruction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A basic block.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// A sync region (Tapir's `syncregion.start` token): `sync within sr` waits
/// for exactly the tasks detached `within sr`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SyncRegion(u32);
entity_impl!(SyncRegion, "sr");

/// A function of a module, defined or declared.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "fn");

/// A global variable or constant datum (string literals included).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(u32);
entity_impl!(GlobalId, "g");
