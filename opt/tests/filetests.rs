//! Pass filetests: every `tests/filetests/opt/**/*.pir` file, whose first
//! line is `; test: pass NAME`, is its own test: the module is run through
//! pass NAME, verified, and matched against the file's `; check:` and
//! `; stat:` directives by `parc-testkit`'s harness, so IR filetests and
//! pass filetests read and bless the same way (`PARC_BLESS=1`).

use parc_ir::Module;
use parc_testkit::filetest::{self, PassReport};

fn run_pass(name: &str, module: &mut Module) -> Option<Result<PassReport, String>> {
    let pass = parc_opt::pass_by_name(name)?;
    let mut ctx = parc_opt::PassContext::default();
    let changed = pass(module, &mut ctx);
    Some(Ok(PassReport {
        changed,
        stats: ctx.stats,
    }))
}

fn main() {
    filetest::main(&filetest::filetests_dir("opt"), Some(run_pass));
}
