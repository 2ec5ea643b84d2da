//! `cargo xtask python`: the Python package's tests (docs/PYTHON.md). Creates the virtual
//! environment `target/python-venv` with the `python3` on `PATH` (3.11 or later) when it is
//! missing, installs pytest (pinned) and the package from `python/` into it (`pip install
//! ./python`, which builds the extension with maturin, pinned in python/pyproject.toml, and
//! the toolchain of rust-toolchain.toml), then checks the type stubs against the extension
//! (`mypy.stubtest`) and the package against the stubs (`mypy --strict`), and runs `pytest
//! python/tests` and the two agent-loop examples on the official `openai` and `anthropic` SDKs
//! (python/examples; pinned, no network).
//!
//! Environment: `PYTHON` names another interpreter to create the environment with;
//! `REHYDRATE_CORPUS` reaches the tests (the corpus check).

use std::path::Path;
use std::process::Command;

use crate::{Result, cmd};

/// The pytest, hypothesis and mypy releases the suite runs under, the MCP SDK its client test uses,, and the SDK releases the examples use.
const PYTHON_PACKAGES: [&str; 6] = [
    "pytest==8.3.5",
    "mypy==1.15.0",
    "hypothesis==6.170.17",
    "mcp==2.3.0",
    "openai==3.57.0",
    "anthropic==2.15.0",
];

/// The examples run after the suite, each a script that exits non-zero when a check fails.
const EXAMPLES: [&str; 2] = [
    "python/examples/openai_agent_loop.py",
    "python/examples/anthropic_agent_loop.py",
];

/// Creates the environment if needed, installs the package and runs the suite; `strict` (CI)
/// makes a missing corpus fail the corpus test instead of skipping it.
pub(crate) fn run(root: &Path, strict: bool) -> Result<()> {
    let python = install(root)?;
    // The type stubs against the extension as built (every name, every signature), and the
    // pure-Python package and the bench against the stubs.
    let mut stubtest = Command::new(&python);
    stubtest
        .args(["-m", "mypy.stubtest", "rehydrate._rehydrate", "--allowlist"])
        .arg(root.join("python").join("stubtest-allowlist.txt"))
        .current_dir(std::env::temp_dir());
    step(&mut stubtest)?;
    let mut mypy = Command::new(&python);
    mypy.args(["-m", "mypy", "--strict", "rehydrate", "bench"])
        .current_dir(root.join("python"));
    step(&mut mypy)?;
    let mut pytest = Command::new(&python);
    pytest
        .args(["-m", "pytest", "-q", "python/tests"])
        .current_dir(root);
    if strict {
        pytest.env("CI", "true");
    }
    step(&mut pytest)?;
    for example in EXAMPLES {
        let mut run = Command::new(&python);
        run.arg(example).current_dir(root);
        step(&mut run)?;
    }
    Ok(())
}

/// Runs the package's bench (python/bench/per_turn.py) on the workload the criterion suite
/// wrote to `target`, writing its figures where criterion writes its own.
pub(crate) fn bench(root: &Path, target: &Path) -> Result<()> {
    let python = install(root)?;
    let mut bench = Command::new(&python);
    bench
        .arg("python/bench/per_turn.py")
        .arg(target)
        .current_dir(root);
    step(&mut bench)
}

/// Creates the environment if needed and installs the pinned packages and this checkout's
/// package into it; returns its interpreter.
fn install(root: &Path) -> Result<std::path::PathBuf> {
    let venv = root.join("target").join("python-venv");
    let python = venv.join("bin").join("python");
    if !python.is_file() {
        let interpreter = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let mut create = Command::new(interpreter);
        create.arg("-m").arg("venv").arg(&venv);
        step(&mut create)?;
    }
    let pip = |args: &[&str]| {
        let mut pip = Command::new(&python);
        pip.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(args)
        .current_dir(root);
        pip
    };
    step(&mut pip(&PYTHON_PACKAGES))?;
    // Always rebuilt: the package is the code of this checkout.
    step(&mut pip(&["--force-reinstall", "--no-deps", "./python"]))?;
    Ok(python)
}

/// Prints and runs one command.
fn step(command: &mut Command) -> Result<()> {
    println!("==> {}", cmd::display(command));
    cmd::run("python", command)
}
