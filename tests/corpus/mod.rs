//! The test corpus on disk, shared by the test binaries of this crate
//! (`programs`, `determinism`): where the repository is, and its test
//! files in a stable order.

use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `.pc` files of a directory, sorted, as paths relative to the root.
pub fn programs(dir: &str) -> Vec<PathBuf> {
    files(dir, "pc")
}

/// Files of a directory with extension `ext`, sorted, as paths relative
/// to the root.
pub fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .map(|p| Path::new(dir).join(p.file_name().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
