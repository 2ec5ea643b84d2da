//! `cargo xtask tidy`: house rules a compiler does not check: every Rust file of the workspace
//! starts with a `//!` comment saying what it is for, no library crate but `rehydrate-store`
//! touches files (`std::fs`, `File`, `OpenOptions` in its non-test sources; the binary, the
//! benchmarks, the fuzz targets and the test-support crate, which lists the corpus, do their own; comments, doc
//! examples included, are not code: a doctest may set up a scratch file), and every declared
//! dependency is used (`unused.rs`).

use std::fs;
use std::path::{Path, PathBuf};

use crate::{Result, cmd, unused};

/// The directories under the workspace root whose `.rs` files are checked.
const CHECKED: [&str; 2] = ["crates", "xtask"];

/// The crates whose sources may do file I/O: the store, the binary, the benchmarks, the fuzz
/// targets (which damage output directories on disk), and the test-support crate, a
/// dev-dependency only, whose corpus locator lists the corpus's files.
const FILE_IO: [&str; 5] = [
    "rehydrate-store",
    "rehydrate-cli",
    "rehydrate-bench",
    "rehydrate-fuzz",
    "rehydrate-test-support",
];

/// The text that marks file I/O in a source file.
const FILE_IO_MARKS: [&str; 4] = ["std::fs", "fs::", "File::", "OpenOptions"];

/// `cargo xtask tidy`: fails naming every Rust file that does not start with `//!`, every file
/// doing I/O outside the store, and printing one line per unused dependency.
pub(crate) fn run(root: &Path) -> Result<()> {
    let mut files = Vec::new();
    for dir in CHECKED {
        rust_files(&root.join(dir), &mut files)?;
    }
    files.sort();
    let mut texts = Vec::with_capacity(files.len());
    for path in &files {
        let text = fs::read_to_string(path)
            .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        let shown = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        texts.push((shown, text));
    }
    let missing = missing_module_docs(&texts);
    let io = file_io_outside_the_store(&texts);
    let unused = unused::check(&cmd::metadata(root)?, &texts)?;
    if missing.is_empty() && io.is_empty() && unused.is_empty() {
        println!(
            "tidy: {} Rust files, each starts with a `//!` comment; only rehydrate-store, the CLI, the bench, the fuzz targets and the test support touch files; every dependency is used",
            files.len()
        );
        return Ok(());
    }
    for line in &unused {
        println!("{line}");
    }
    let mut problems = Vec::new();
    if !missing.is_empty() {
        problems.push(format!(
            "{} Rust files do not start with a `//!` comment saying what they are for: {}",
            missing.len(),
            missing.join(", ")
        ));
    }
    if !io.is_empty() {
        problems.push(format!(
            "file I/O outside rehydrate-store, the CLI, the bench and the test support (move it to the store): {}",
            io.join(", ")
        ));
    }
    if !unused.is_empty() {
        problems.push(format!(
            "{} unused dependencies or bad exemptions (listed above; xtask/src/unused.rs has the rules)",
            unused.len()
        ));
    }
    Err(problems.join("; ").into())
}

/// The library sources (as `(name, text)`, names relative to the workspace root) that touch
/// files: a `crates/<crate>/src/` file of a crate outside [`FILE_IO`], not a `tests.rs` test
/// module, holding one of [`FILE_IO_MARKS`] on a line that is not a comment (`//`, `///` and
/// `//!` lines, whose doc examples are tests); each named with the first mark it holds.
fn file_io_outside_the_store(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(name, _)| {
            let mut parts = name.split('/');
            let (Some("crates"), Some(krate), Some("src")) =
                (parts.next(), parts.next(), parts.next())
            else {
                return false;
            };
            !FILE_IO.contains(&krate) && !name.ends_with("/tests.rs")
        })
        .filter_map(|(name, text)| {
            let code = || {
                text.lines()
                    .filter(|line| !line.trim_start().starts_with("//"))
            };
            FILE_IO_MARKS
                .iter()
                .find(|mark| code().any(|line| line.contains(*mark)))
                .map(|mark| format!("{name} (`{mark}`)"))
        })
        .collect()
}

/// The names of the files (as given, `(name, text)`) whose first line does not start with `//!`.
fn missing_module_docs(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(_, text)| !text.starts_with("//!"))
        .map(|(name, _)| name.clone())
        .collect()
}

/// Every `.rs` file under `dir`, recursively, leaving out `target` directories.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        fs::read_dir(dir).map_err(|err| format!("cannot read {}: {err}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|err| format!("cannot read {}: {err}", dir.display()))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        if kind.is_dir() {
            if entry.file_name() != "target" {
                rust_files(&path, out)?;
            }
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::missing_module_docs;

    #[test]
    fn files_without_a_module_comment_are_named() {
        let files = [
            (
                "a.rs".to_string(),
                "//! What a is.\n\nfn a() {}\n".to_string(),
            ),
            ("b.rs".to_string(), "// not a module comment\n".to_string()),
            ("c.rs".to_string(), "\n//! too late\n".to_string()),
            ("d.rs".to_string(), String::new()),
        ];
        assert_eq!(missing_module_docs(&files), ["b.rs", "c.rs", "d.rs"]);
    }

    #[test]
    fn file_io_is_allowed_only_in_the_store_the_cli_the_bench_and_the_test_support() {
        let file = |name: &str, text: &str| (name.to_string(), text.to_string());
        let files = [
            file("crates/rehydrate-store/src/lib.rs", "use std::fs::File;"),
            file("crates/rehydrate-cli/src/load.rs", "std::fs::read(path)"),
            file(
                "crates/rehydrate-test-support/src/corpus.rs",
                "std::fs::read_dir(dir)",
            ),
            file(
                "crates/rehydrate-sidecar/src/export.rs",
                "let f = File::create(p);",
            ),
            file(
                "crates/rehydrate-formats/src/tests.rs",
                "std::fs::read(fixture)",
            ),
            file(
                "crates/rehydrate-formats/tests/integration/main.rs",
                "std::fs::read(x)",
            ),
            file("crates/rehydrate-reduce/src/lib.rs", "fn pure() {}"),
            file("crates/rehydrate-search/src/a/b.rs", "OpenOptions::new()"),
            file(
                "crates/rehydrate/src/lib.rs",
                "//! # std::fs::create_dir_all(&dir)?;\n/// std::fs::remove_file(&path)?;\nfn f() {}",
            ),
            file(
                "crates/rehydrate-replay/src/lib.rs",
                "// a comment\nlet text = std::fs::read_to_string(p); // read it",
            ),
        ];
        assert_eq!(
            super::file_io_outside_the_store(&files),
            [
                "crates/rehydrate-sidecar/src/export.rs (`File::`)",
                "crates/rehydrate-search/src/a/b.rs (`OpenOptions`)",
                "crates/rehydrate-replay/src/lib.rs (`std::fs`)"
            ]
        );
    }
}
