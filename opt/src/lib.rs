//! parc's optimizer: passes over parir and the ordered pipeline that runs
//! them.
//!
//! Architecture invariant: every pass maps a verified module to a verified
//! module, lives in its own file under `passes/`, is a free function
//! `fn(&mut Function) -> bool` that returns whether it changed anything, and
//! is valid for the serial projection *and* keeps Tapir's rules (it never
//! moves a memory operation into a task or across a detach or sync in a way
//! that could create a race).

pub mod passes;

use parc_ir::{Function, Module};

/// A pass over one function; returns true if it changed the function.
pub type FunctionPass = fn(&mut Function) -> bool;

/// The passes of each optimization level, in order.
pub fn pipeline(opt_level: u8) -> &'static [(&'static str, FunctionPass)] {
    match opt_level {
        0 => &[],
        _ => &[("dce", passes::dce::run)],
    }
}

/// Runs the pipeline of `opt_level` over every defined function, calling
/// `after_pass(name, module)` after each pass (the driver verifies there).
pub fn optimize<E>(
    mut module: Module,
    opt_level: u8,
    after_pass: &mut dyn FnMut(&str, &Module) -> Result<(), E>,
) -> Result<Module, E> {
    for &(name, pass) in pipeline(opt_level) {
        for func in module.funcs.values_mut() {
            if !func.is_declaration() {
                pass(func);
            }
        }
        after_pass(name, &module)?;
    }
    Ok(module)
}
