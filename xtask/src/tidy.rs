//! `cargo xtask tidy`: house rules a compiler does not check. Today one: every Rust file of the
//! workspace starts with a `//!` comment saying what it is for.

use std::fs;
use std::path::{Path, PathBuf};

use crate::Result;

/// The directories under the workspace root whose `.rs` files are checked.
const CHECKED: [&str; 2] = ["crates", "xtask"];

/// `cargo xtask tidy`: fails naming every Rust file that does not start with `//!`.
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
    if missing.is_empty() {
        println!(
            "tidy: {} Rust files, each starts with a `//!` comment",
            files.len()
        );
        return Ok(());
    }
    Err(format!(
        "{} Rust files do not start with a `//!` comment saying what they are for: {}",
        missing.len(),
        missing.join(", ")
    )
    .into())
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
}
