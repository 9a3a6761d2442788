//! Pass filetests: every `tests/filetests/opt/**/*.pir` file whose first
//! line is `; test: pass NAME` is read, run through pass NAME, verified,
//! and its output matched against the file's `; check:` directives. The
//! harness itself is parir's (shared through `#[path]`), so IR filetests and
//! pass filetests read and bless the same way (`PARC_BLESS=1`).

#[path = "../../parir/tests/filetests.rs"]
#[allow(dead_code)]
mod harness;

use parc_ir::Module;
use std::path::Path;

#[test]
fn pass_filetests() {
    let runner = |name: &str, module: &mut Module| -> Option<Result<(), String>> {
        let pass = parc_opt::pass_by_name(name)?;
        pass(module, &mut parc_opt::PassContext::default());
        Some(Ok(()))
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/filetests/opt");
    harness::run_tests(&dir, Some(&runner));
}
