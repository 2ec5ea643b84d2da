//! Integration tests of rehydrate-formats: the hand-made fixtures in `fixtures/formats/`
//! (exact values and insta snapshots) and every session of the shared corpus.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod aider;
mod bodies;
mod codex;
mod corpus;
mod fixtures;
mod gemini;
mod goose;
mod openhands;
mod request;
mod robustness;
mod snapshots;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rehydrate_formats::{Error, Import, import};

/// `fixtures/formats/` of the workspace.
fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/formats")
}

/// Imports the fixture `name` with format detection, naming it by its file name in errors.
fn import_fixture(name: &str) -> Result<Import, Error> {
    import_path(&fixture_dir().join(name))
}

/// Imports the file at `path` with format detection, naming it by its file name in errors.
fn import_path(path: &Path) -> Result<Import, Error> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().map(Path::new).unwrap_or(path);
    import(name, &bytes, None)
}

/// A compact rendering of an import for snapshots: the format, the warnings, then one
/// canonical JSON line per message; or the error text.
fn render(result: &Result<Import, Error>) -> String {
    let import = match result {
        Ok(import) => import,
        Err(e) => return format!("error: {e}\n"),
    };
    let mut out = format!(
        "format: {}\nmessages: {}\n",
        import.format,
        import.messages.len()
    );
    for w in &import.warnings {
        writeln!(out, "warning: {w}").unwrap();
    }
    for m in &import.messages {
        writeln!(out, "{}", serde_json::to_string(m).unwrap()).unwrap();
    }
    out
}
