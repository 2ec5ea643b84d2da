//! Running external commands (mostly cargo) and reading `cargo metadata`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::Result;

/// The workspace root: the parent of the xtask package directory.
pub(crate) fn workspace_root() -> Result<PathBuf> {
    let xtask_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = xtask_dir
        .parent()
        .ok_or_else(|| format!("xtask directory {} has no parent", xtask_dir.display()))?;
    Ok(root.to_path_buf())
}

/// A `cargo` command running in `root`, using the cargo that started xtask when known.
pub(crate) fn cargo(root: &Path) -> Command {
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(program);
    command.current_dir(root);
    command
}

/// `--locked` when the workspace has a Cargo.lock, nothing otherwise.
pub(crate) fn locked(root: &Path) -> &'static [&'static str] {
    if root.join("Cargo.lock").is_file() {
        &["--locked"]
    } else {
        &[]
    }
}

/// Shows a command the way a shell user would type it: `KEY=value program arg…`.
///
/// The program is shown by file name only (`cargo`, not `/home/…/bin/cargo`).
pub(crate) fn display(command: &Command) -> String {
    let mut shown = String::new();
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            let _ = write!(
                shown,
                "{}={} ",
                key.to_string_lossy(),
                value.to_string_lossy()
            );
        }
    }
    let program = Path::new(command.get_program());
    let name = program.file_name().unwrap_or(program.as_os_str());
    shown.push_str(&name.to_string_lossy());
    for arg in command.get_args() {
        shown.push(' ');
        shown.push_str(&arg.to_string_lossy());
    }
    shown
}

/// Runs `command` with inherited stdio; fails naming `what` and the command unless it exits 0.
pub(crate) fn run(what: &str, command: &mut Command) -> Result<()> {
    let shown = display(command);
    let status = command
        .status()
        .map_err(|err| format!("{what} failed: cannot start `{shown}`: {err}"))?;
    if !status.success() {
        let how = status
            .code()
            .map_or("was killed by a signal".to_owned(), |code| {
                format!("exited with code {code}")
            });
        return Err(format!("{what} failed: `{shown}` {how}").into());
    }
    Ok(())
}

/// Runs `cargo metadata --format-version 1 --no-deps` in `root` and parses its output.
pub(crate) fn metadata(root: &Path) -> Result<Value> {
    let mut command = cargo(root);
    command
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .stderr(Stdio::inherit());
    let shown = display(&command);
    let output = command
        .output()
        .map_err(|err| format!("cannot start `{shown}`: {err}"))?;
    if !output.status.success() {
        return Err(format!("`{shown}` failed with {}", output.status).into());
    }
    let value = serde_json::from_slice(&output.stdout)
        .map_err(|err| format!("`{shown}` printed invalid JSON: {err}"))?;
    Ok(value)
}

/// Whether any workspace package has a target of kind `bench`.
pub(crate) fn has_benches(metadata: &Value) -> bool {
    packages(metadata)
        .iter()
        .flat_map(|package| array(package, "targets"))
        .flat_map(|target| array(target, "kind"))
        .any(|kind| kind.as_str() == Some("bench"))
}

/// The `packages` array of cargo metadata (empty when absent).
pub(crate) fn packages(metadata: &Value) -> &[Value] {
    array(metadata, "packages")
}

/// The array in `value[key]`, or an empty slice when it is missing or not an array.
pub(crate) fn array<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value[key].as_array().map_or(&[], Vec::as_slice)
}

/// The string in `value[key]`, or an error naming `what` and the key.
pub(crate) fn string<'a>(value: &'a Value, key: &str, what: &str) -> Result<&'a str> {
    value[key]
        .as_str()
        .ok_or_else(|| format!("{what}: field `{key}` is missing or not a string").into())
}
