//! The IR filetests: every `tests/filetests/**/*.pir` file is its own test,
//! run by `parc-testkit`'s harness (whose module doc says what a file
//! asks for). `parc-ir` has no passes, so `; test: pass NAME` files are
//! not listed here; `parc-opt`'s filetests run them.

fn main() {
    parc_testkit::filetest::main(&parc_testkit::filetest::filetests_dir(""), None);
}
