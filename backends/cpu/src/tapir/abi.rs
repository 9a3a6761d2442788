//! The runtime entry points that lowered code calls, as `parc-runtime`
//! defines them (`extern "C"`):
//!
//! ```text
//! void parc_rt_spawn(void *group, void (*task)(void *ctx), void *ctx, int64_t ctx_size);
//! void parc_rt_sync(void *group);
//! void parc_rt_parallel_for(int64_t lo, int64_t hi, int64_t grain,
//!                           void (*body)(void *ctx, int64_t start, int64_t end), void *ctx);
//! ```
//!
//! `parc_rt_spawn` copies `ctx_size` bytes of `ctx` before it returns, so
//! the caller may overwrite its buffer at once. A group is [`GROUP_SIZE`]
//! zeroed bytes aligned to [`GROUP_ALIGN`], owned by one function
//! invocation; `parc_rt_sync` returns when every task spawned into it has
//! finished, leaving it empty (reusable). `parc_rt_parallel_for` runs
//! `body` over chunks covering `[lo, hi)` (`grain` iterations each, 0 = the
//! runtime's choice) and returns when all have run.

use super::TapirError;
use parc_ir::{FuncId, Function, Linkage, Module, Signature, Type};

pub const SPAWN: &str = "parc_rt_spawn";
pub const SYNC: &str = "parc_rt_sync";
pub const PARALLEL_FOR: &str = "parc_rt_parallel_for";

/// Bytes of a sync region's group object.
pub const GROUP_SIZE: u32 = 32;
/// Alignment of a group object.
pub const GROUP_ALIGN: u32 = 8;

/// The signature of each entry point.
pub fn signature(name: &str) -> Option<Signature> {
    use Type::{I64, Ptr};
    let params = match name {
        SPAWN => vec![Ptr, Ptr, Ptr, I64],
        SYNC => vec![Ptr],
        PARALLEL_FOR => vec![I64, I64, I64, Ptr, Ptr],
        _ => return None,
    };
    Some(Signature { params, ret: None })
}

/// The module's declarations of the entry points.
#[derive(Clone, Copy, Debug)]
pub struct RuntimeAbi {
    pub spawn: FuncId,
    pub sync: FuncId,
    pub parallel_for: FuncId,
}

impl RuntimeAbi {
    /// Declares the entry points as imports, reusing declarations that are
    /// already there (a module lowered in pieces, or a program that names
    /// them itself) if their signatures agree.
    pub fn declare(module: &mut Module) -> Result<RuntimeAbi, TapirError> {
        Ok(RuntimeAbi {
            spawn: declare(module, SPAWN)?,
            sync: declare(module, SYNC)?,
            parallel_for: declare(module, PARALLEL_FOR)?,
        })
    }
}

fn declare(module: &mut Module, name: &str) -> Result<FuncId, TapirError> {
    let sig = signature(name).expect("an entry point of the ABI");
    if let Some(id) = module.func_by_name(name) {
        let f = &module.funcs[id];
        if f.sig != sig || !f.is_declaration() {
            return Err(TapirError::new(
                name,
                "declaration",
                "the module already has a function of this name that is not the runtime's entry point",
            ));
        }
        return Ok(id);
    }
    let mut f = Function::new(name, sig);
    f.linkage = Linkage::Import;
    Ok(module.funcs.push(f))
}
