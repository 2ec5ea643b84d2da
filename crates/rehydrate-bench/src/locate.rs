//! Where the benches find the corpus, the target directory and the `rehydrate` binary.
//!
//! These read the environment (`REHYDRATE_CORPUS`, `CARGO_TARGET_DIR`, `REHYDRATE_BIN`); they
//! are for the bench harness, not for library code.

use std::path::PathBuf;

/// The workspace root, from this package's manifest directory at compile time.
pub fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(|crates| crates.parent())
        .map_or(manifest.clone(), PathBuf::from)
}

/// The corpus directory: `$REHYDRATE_CORPUS`, or `<workspace root>/../shared/corpus`.
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("REHYDRATE_CORPUS").map_or_else(
        || workspace_root().join("..").join("shared").join("corpus"),
        PathBuf::from,
    )
}

/// The cargo target directory: `$CARGO_TARGET_DIR` (relative to the workspace root when
/// relative), or `<workspace root>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => workspace_root().join(dir),
        None => workspace_root().join("target"),
    }
}

/// Where workload files are written: `<target>/bench-workloads/<name>.json`.
pub fn workload_file(name: &str) -> PathBuf {
    target_dir()
        .join("bench-workloads")
        .join(format!("{name}.json"))
}

/// The `rehydrate` binary the CLI bench runs: `$REHYDRATE_BIN`, or
/// `<target>/release/rehydrate` (built by `cargo build --release -p rehydrate-cli`).
pub fn rehydrate_bin() -> PathBuf {
    std::env::var_os("REHYDRATE_BIN").map_or_else(
        || target_dir().join("release").join("rehydrate"),
        PathBuf::from,
    )
}
