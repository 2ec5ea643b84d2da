//! The subcommands that drive cargo: `ci` and `snap` (`bench` is in `bench.rs`).

use std::path::Path;
use std::process::Command;

use crate::cmd::{self, cargo, locked};
use crate::{Result, bench, corpus, fuzz, layers, python, tidy};

/// One step of `cargo xtask ci`.
#[derive(Clone, Copy)]
enum Step {
    Fmt,
    Clippy,
    Test,
    Doc,
    Bench,
    Layers,
    Tidy,
    Package,
    Python,
    Corpus,
    Fuzz,
}

/// The steps of `cargo xtask ci`, in the order they run.
const STEPS: [Step; 11] = [
    Step::Fmt,
    Step::Clippy,
    Step::Test,
    Step::Doc,
    Step::Bench,
    Step::Layers,
    Step::Tidy,
    Step::Package,
    Step::Python,
    Step::Corpus,
    Step::Fuzz,
];

impl Step {
    /// The name printed in the step header and in the failure message.
    fn name(self) -> &'static str {
        match self {
            Step::Fmt => "fmt",
            Step::Clippy => "clippy",
            Step::Test => "test",
            Step::Doc => "doc",
            Step::Bench => "bench",
            Step::Layers => "layers",
            Step::Tidy => "tidy",
            Step::Package => "package",
            Step::Python => "python",
            Step::Corpus => "corpus",
            Step::Fuzz => "fuzz",
        }
    }

    /// The cargo command of this step, or `None` for steps that run inside xtask.
    fn command(self, root: &Path) -> Option<Command> {
        let locked = locked(root);
        let mut command = cargo(root);
        match self {
            Step::Fmt => command.args(["fmt", "--all", "--check"]),
            Step::Clippy => command
                .args(["clippy", "--workspace", "--all-targets"])
                .args(locked)
                .args(["--", "-D", "warnings"]),
            Step::Test => command
                .args(["test", "--workspace"])
                .args(locked)
                .env("CI", "true")
                .env("INSTA_UPDATE", "no"),
            Step::Doc => command
                .args(["doc", "--workspace", "--no-deps"])
                .args(locked)
                .env("RUSTDOCFLAGS", "-D warnings"),
            Step::Bench => command
                .args(["bench", "--workspace"])
                .args(locked)
                .args(["--", "--test"]),
            // Every library crate packages as published (metadata, the files it ships); the
            // packages are not built again (`--no-verify`): the steps above built them. The
            // unpublished crates (the bench, the Python extension) are left out; the test support, a path-only dev-dependency,
            // is stripped from the manifests of the crates whose tests use it.
            Step::Package => command
                .args(["package", "--workspace", "--no-verify", "--allow-dirty"])
                .args(["--exclude", "xtask", "--exclude", "rehydrate-bench"])
                .args([
                    "--exclude",
                    "rehydrate-test-support",
                    "--exclude",
                    "rehydrate-py",
                    "--exclude",
                    "rehydrate-fuzz",
                ])
                .args(locked),
            Step::Layers | Step::Tidy | Step::Python | Step::Corpus | Step::Fuzz => return None,
        };
        Some(command)
    }
}

/// `cargo xtask ci`: every check CI runs, in order, stopping at the first failure.
pub(crate) fn ci(root: &Path) -> Result<()> {
    for (index, step) in STEPS.into_iter().enumerate() {
        let name = step.name();
        let header = |what: &str| {
            println!("\n==> [{}/{}] {name}: {what}", index + 1, STEPS.len());
        };
        let failed = |err| format!("ci step `{name}` failed: {err}");
        match step {
            Step::Layers => {
                header("cargo xtask layers");
                layers::run(root).map_err(failed)?;
            }
            Step::Tidy => {
                header("cargo xtask tidy");
                tidy::run(root).map_err(failed)?;
            }
            Step::Python => {
                header("cargo xtask python");
                python::run(root, true).map_err(failed)?;
            }
            Step::Corpus => {
                header("cargo xtask corpus");
                // As for the test step: in CI, a missing corpus fails instead of skipping.
                corpus::run(root, corpus::Presets::Both, true).map_err(failed)?;
            }
            Step::Fuzz => {
                header(&format!("cargo xtask fuzz --seconds {}", fuzz::CI_SECONDS));
                fuzz::ci(root).map_err(failed)?;
            }
            Step::Bench if !cmd::has_benches(&cmd::metadata(root)?) => {
                header("cargo bench");
                println!("bench: no benchmarks yet, skipped");
            }
            Step::Bench => {
                // The suite's CLI bench runs the release binary, even in --test mode.
                let mut command = step
                    .command(root)
                    .ok_or_else(|| format!("ci step `{name}` has no command"))?;
                header(&format!(
                    "cargo build --release -p rehydrate-cli, then {}",
                    cmd::display(&command)
                ));
                bench::build_cli(root).map_err(failed)?;
                cmd::run(&format!("ci step `{name}`"), &mut command)?;
            }
            Step::Fmt | Step::Clippy | Step::Test | Step::Doc | Step::Package => {
                let mut command = step
                    .command(root)
                    .ok_or_else(|| format!("ci step `{name}` has no command"))?;
                header(&cmd::display(&command));
                cmd::run(&format!("ci step `{name}`"), &mut command)?;
            }
        }
    }
    println!("\nci: all {} steps passed", STEPS.len());
    Ok(())
}

/// `cargo xtask snap`: runs the tests accepting every insta snapshot, then lists changed snapshots.
pub(crate) fn snap(root: &Path) -> Result<()> {
    let mut test = cargo(root);
    test.args(["test", "--workspace"])
        .env("INSTA_UPDATE", "always");
    println!("==> {}", cmd::display(&test));
    // Show what was written even when some test failed, then report the failure.
    let tested = cmd::run("snap", &mut test);

    let mut status = Command::new("git");
    status
        .args(["status", "--short", "--", "*.snap"])
        .current_dir(root);
    println!(
        "\n==> {} (review these before committing)",
        cmd::display(&status)
    );
    cmd::run("snap", &mut status)?;
    tested
}

#[cfg(test)]
mod tests {
    use super::STEPS;
    use crate::Result;
    use crate::cmd::{display, workspace_root};

    #[test]
    fn step_commands() -> Result<()> {
        let root = workspace_root()?;
        let shown: Vec<(&str, Option<String>)> = STEPS
            .into_iter()
            .map(|step| (step.name(), step.command(&root).map(|c| display(&c))))
            .collect();
        let expected = [
            ("fmt", Some("cargo fmt --all --check")),
            (
                "clippy",
                Some("cargo clippy --workspace --all-targets --locked -- -D warnings"),
            ),
            (
                "test",
                Some("CI=true INSTA_UPDATE=no cargo test --workspace --locked"),
            ),
            (
                "doc",
                Some("RUSTDOCFLAGS=-D warnings cargo doc --workspace --no-deps --locked"),
            ),
            ("bench", Some("cargo bench --workspace --locked -- --test")),
            ("layers", None),
            ("tidy", None),
            (
                "package",
                Some(
                    "cargo package --workspace --no-verify --allow-dirty --exclude xtask --exclude rehydrate-bench --exclude rehydrate-test-support --exclude rehydrate-py --exclude rehydrate-fuzz --locked",
                ),
            ),
            ("python", None),
            ("corpus", None),
            ("fuzz", None),
        ];
        let expected: Vec<(&str, Option<String>)> = expected
            .into_iter()
            .map(|(name, command)| (name, command.map(str::to_owned)))
            .collect();
        assert_eq!(shown, expected);
        Ok(())
    }
}
