//! The shared corpus's session files, for the corpus checks of several crates.
//!
//! The corpus lives outside the repository: `REHYDRATE_CORPUS`, or `shared/corpus` next to the
//! workspace (CI has it).

use std::path::{Path, PathBuf};

/// The corpus directory and its session files under the subdirectories `dirs` (each
/// `(subdirectory, extension)`, searched recursively), sorted by path; `None`, after a notice on
/// stderr naming `check`, when there are none (the check is then skipped), except under `CI`,
/// where that fails the test.
///
/// # Panics
///
/// When there are no sessions and `CI` is set: `cargo xtask ci` sets it for the tests, and
/// there the corpus check must run.
pub fn corpus_sessions(dirs: &[(&str, &str)], check: &str) -> Option<(PathBuf, Vec<PathBuf>)> {
    let dir = match std::env::var_os("REHYDRATE_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let mut sessions = Vec::new();
    for (sub, ext) in dirs {
        files(&dir.join(sub), ext, &mut sessions);
    }
    sessions.sort();
    if sessions.is_empty() {
        // `cargo xtask ci` sets CI for the tests: there the corpus check must run.
        assert!(
            std::env::var_os("CI").is_none(),
            "no corpus sessions under {} (set REHYDRATE_CORPUS), and CI is set: {check} must run",
            dir.display()
        );
        eprintln!(
            "NOTICE: no corpus sessions under {} (set REHYDRATE_CORPUS); {check} skipped",
            dir.display()
        );
        return None;
    }
    Some((dir, sessions))
}

/// Files under `dir` (recursively) ending in `.ext`.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}
