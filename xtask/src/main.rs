//! `cargo xtask`: the one automation entry point of the rehydrate workspace (see [`USAGE`]).
#![forbid(unsafe_code)]

mod architecture;
mod bench;
mod ci;
mod cmd;
mod corpus;
mod fuzz;
mod layers;
mod limits;
mod python;
mod tidy;
mod tokens;
mod unused;

use std::error::Error;
use std::ffi::OsString;
use std::fmt;
use std::process::ExitCode;

/// Every fallible xtask function returns this; errors are printed as one line.
type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// The text printed by `cargo xtask help`, with no arguments, and after a usage error.
const USAGE: &str = "\
cargo xtask: automation for the rehydrate workspace

Usage: cargo xtask <COMMAND>

Commands:
  ci                   run every CI check in order, stopping at the first failure:
                       fmt, clippy, test (with doctests), doc, bench --test, layers, tidy,
                       package (every library crate), python, corpus (fails when the corpus
                       is missing), fuzz (every target for 10 s)
  layers               check that workspace crates depend only on crates of lower layers,
                       and the Layers table of docs/ARCHITECTURE.md against them and Cargo.toml
  tidy                 check that every Rust file starts with a `//!` comment, that no library
                       crate but rehydrate-store touches files, and that every dependency is used
  corpus [--preset P]  run `rehydrate roundtrip` on every corpus session;
                       P is default, aggressive or both (the default)
  python               create target/python-venv if missing, install pytest, the SDKs and the
                       package (pip install ./python) into it, run pytest python/tests and
                       the examples in python/examples
  snap                 run the tests accepting every insta snapshot, then list changed .snap files
  bench [-- ARGS]      build the release CLI, run the criterion suite (rehydrate-bench),
                       passing ARGS (such as a filter) to it, and print its figures as ratios
  fuzz [TARGET...] [--seconds N] [--jobs N] [--keep] [--list]
                       build libFuzzer's driver of the rehydrate-fuzz targets (sanitizer
                       coverage, stable toolchain) into target/fuzz and run each target (all
                       by default) for N seconds (default 60), N at a time (default: the
                       cores); --keep replaces fixtures/fuzz/<target>/ with a smallest
                       set of the kept and found inputs covering every edge (--seconds 0:
                       keep without fuzzing); --list prints the targets
  limits               build the release CLI and run it on the resource limits of
                       docs/RELIABILITY.md at full size (a 1 GiB tool output, 10 million
                       messages, JSON nested 100,000 deep, a 100 MiB line, a regex at each
                       limit) under GNU time: exit, time and peak RSS of each
  help                 print this text

Environment:
  REHYDRATE_CORPUS     corpus directory (default: <workspace root>/../shared/corpus)
  REHYDRATE_BIN        rehydrate binary for `corpus` and `bench`
                       (default: build target/release/rehydrate)
";

/// A wrong command line: reported with the usage text and exit code 2.
#[derive(Debug)]
struct UsageError(String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for UsageError {}

fn main() -> ExitCode {
    match run(std::env::args_os().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.is::<UsageError>() => {
            eprintln!("error: {err}\n\n{USAGE}");
            ExitCode::from(2)
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Dispatches `args` (without the program name) to a subcommand.
fn run(args: Vec<OsString>) -> Result<()> {
    let Some((command, rest)) = args.split_first() else {
        print!("{USAGE}");
        return Ok(());
    };
    let root = cmd::workspace_root()?;
    match command.to_str() {
        Some("ci") => {
            no_arguments("ci", rest)?;
            ci::ci(&root)
        }
        Some("layers") => {
            no_arguments("layers", rest)?;
            layers::run(&root)
        }
        Some("tidy") => {
            no_arguments("tidy", rest)?;
            tidy::run(&root)
        }
        Some("corpus") => corpus::run(
            &root,
            parse_presets(rest)?,
            std::env::var_os("CI").is_some(),
        ),
        Some("snap") => {
            no_arguments("snap", rest)?;
            ci::snap(&root)
        }
        Some("python") => {
            no_arguments("python", rest)?;
            python::run(&root, std::env::var_os("CI").is_some())
        }
        Some("bench") => bench::run(&root, rest),
        Some("fuzz") => fuzz::run(&root, rest),
        Some("limits") => {
            no_arguments("limits", rest)?;
            limits::run(&root)
        }
        Some("help" | "-h" | "--help") => {
            print!("{USAGE}");
            Ok(())
        }
        _ => Err(usage(format!(
            "unknown subcommand `{}`",
            command.to_string_lossy()
        ))),
    }
}

/// A [`UsageError`] with `message`.
fn usage(message: String) -> Box<dyn Error> {
    Box::new(UsageError(message))
}

/// Fails unless `rest` is empty.
fn no_arguments(command: &str, rest: &[OsString]) -> Result<()> {
    match rest.first() {
        None => Ok(()),
        Some(arg) => Err(usage(format!(
            "`{command}` takes no arguments, got `{}`",
            arg.to_string_lossy()
        ))),
    }
}

/// Parses `[--preset P]` or `[--preset=P]` for `corpus`; both presets when absent.
fn parse_presets(rest: &[OsString]) -> Result<corpus::Presets> {
    let rest: Vec<String> = rest
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let value = match rest.as_slice() {
        [] => return Ok(corpus::Presets::Both),
        [flag, value] if flag == "--preset" => value.as_str(),
        [flag] if flag.starts_with("--preset=") => &flag["--preset=".len()..],
        _ => {
            return Err(usage(format!(
                "`corpus` takes only `--preset default|aggressive|both`, got `{}`",
                rest.join(" ")
            )));
        }
    };
    corpus::Presets::parse(value).ok_or_else(|| {
        usage(format!(
            "unknown preset `{value}` (expected default, aggressive or both)"
        ))
    })
}
