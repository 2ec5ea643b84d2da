//! `cargo xtask fuzz`: builds libFuzzer's driver of the `rehydrate-fuzz` targets with
//! sanitizer coverage on the stable toolchain, and runs each target for a set time.
//!
//! The driver (`crates/rehydrate-fuzz/driver`) is its own workspace, built into `target/fuzz`
//! for the host triple, so the coverage flags reach neither build scripts nor the workspace's
//! own builds. Each target runs in its own process with a working corpus under
//! `target/fuzz/corpus/<target>`, reading `fixtures/fuzz/<target>` (the inputs kept in the
//! repository) and its seeds; a crash is written under `target/fuzz/artifacts/<target>/`.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use crate::Result;
use crate::cmd::{self, cargo};

/// The flags of sanitizer coverage that libFuzzer reads (stable rustc flags: LLVM's
/// `sancov-module` pass with inline 8-bit counters, the PC table and comparison tracing).
const COVERAGE_FLAGS: &str = "-Cpasses=sancov-module \
    -Cllvm-args=-sanitizer-coverage-level=4 \
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
    -Cllvm-args=-sanitizer-coverage-pc-table \
    -Cllvm-args=-sanitizer-coverage-trace-compares \
    --cfg fuzzing";

/// The longest input libFuzzer makes, in bytes.
const MAX_LEN: usize = 65_536;

/// libFuzzer's limit on one input's run, in seconds: a longer one is reported as a hang.
const TIMEOUT_SECONDS: u32 = 10;

/// libFuzzer's limit on the process's resident memory, in MB: more is reported as a leak or
/// an unbounded allocation.
const RSS_LIMIT_MB: u32 = 2048;

/// What `cargo xtask fuzz` was asked for.
struct Options {
    targets: Vec<String>,
    seconds: u64,
    jobs: usize,
    keep: bool,
    list: bool,
}

/// Parses `[TARGET...] [--seconds N] [--jobs N] [--keep] [--list]` (`--seconds 0` with
/// `--keep` only merges what earlier runs found).
fn parse(rest: &[OsString]) -> Result<Options> {
    let mut options = Options {
        targets: Vec::new(),
        seconds: 60,
        jobs: std::thread::available_parallelism().map_or(1, usize::from),
        keep: false,
        list: false,
    };
    let mut args = rest.iter().map(|a| a.to_string_lossy().into_owned());
    while let Some(arg) = args.next() {
        let mut number = |flag: &str| -> Result<u64> {
            let value = args
                .next()
                .ok_or_else(|| crate::usage(format!("`{flag}` takes a number")))?;
            value
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0 || flag == "--seconds")
                .ok_or_else(|| {
                    crate::usage(format!("`{flag}` takes a positive number, got `{value}`"))
                })
        };
        match arg.as_str() {
            "--seconds" => options.seconds = number("--seconds")?,
            "--jobs" => options.jobs = usize::try_from(number("--jobs")?)?,
            "--keep" => options.keep = true,
            "--list" => options.list = true,
            flag if flag.starts_with('-') => {
                return Err(crate::usage(format!("`fuzz` has no option `{flag}`")));
            }
            target => options.targets.push(target.to_string()),
        }
    }
    Ok(options)
}

/// The host's target triple, from `rustc -vV`.
fn host_triple() -> Result<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .arg("-vV")
        .output()
        .map_err(|e| format!("cannot run rustc -vV: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| "rustc -vV names no host".into())
}

/// Builds the driver; returns its path.
pub(crate) fn build(root: &Path) -> Result<PathBuf> {
    let triple = host_triple()?;
    let target_dir = root.join("target/fuzz");
    let mut command = cargo(root);
    command
        .args(["build", "--release", "--locked", "--manifest-path"])
        .arg(root.join("crates/rehydrate-fuzz/driver/Cargo.toml"))
        .args(["--target", &triple])
        .env("CARGO_TARGET_DIR", &target_dir)
        .env(
            "RUSTFLAGS",
            COVERAGE_FLAGS
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        );
    println!("building the fuzz driver: {}", cmd::display(&command));
    cmd::run("building the fuzz driver", &mut command)?;
    Ok(target_dir
        .join(triple)
        .join("release")
        .join("rehydrate-fuzz-driver"))
}

/// One target as the driver lists it: its name and seed paths.
struct Listed {
    name: String,
    seeds: Vec<PathBuf>,
}

/// The driver's targets, with their seeds.
fn list(driver: &Path, root: &Path) -> Result<Vec<Listed>> {
    let out = Command::new(driver)
        .arg("-runs=0")
        .env("REHYDRATE_FUZZ_LIST", "1")
        .current_dir(root)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", driver.display()))?;
    if !out.status.success() {
        return Err(format!("{} could not list its targets", driver.display()).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let name = fields.next().filter(|n| !n.is_empty())?.to_string();
            let seeds = fields
                .filter(|s| !s.is_empty())
                .map(|s| root.join(s))
                .collect();
            Some(Listed { name, seeds })
        })
        .collect())
}

/// Every file under `path` (itself when it is a file).
fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_path_buf());
    } else if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            files(&entry.path(), out);
        }
    }
}

/// What one target's run gave.
struct Outcome {
    name: String,
    execs: u64,
    per_second: u64,
    corpus: usize,
    peak_rss_mb: u64,
    kept: usize,
    /// The crash, timeout or out-of-memory input, and libFuzzer's one-line reason.
    failure: Option<(PathBuf, String)>,
}

/// The number after `key` in libFuzzer's final stats.
fn stat(log: &str, key: &str) -> u64 {
    log.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// The number of files directly in `dir`.
fn count(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.flatten().count())
}

/// Replaces the kept inputs of `target` with a smallest set of the kept and the working
/// corpus's inputs that covers every edge either covers (libFuzzer's set-cover merge, edges
/// only: hit counts and comparison features left out, so the kept set stays a few hundred
/// kilobytes); returns how many it keeps.
fn keep_cover(
    driver: &Path,
    root: &Path,
    target: &str,
    kept_dir: &Path,
    corpus: &Path,
) -> Result<usize> {
    let merged = root.join("target/fuzz/merged").join(target);
    let _ = std::fs::remove_dir_all(&merged);
    std::fs::create_dir_all(&merged)
        .map_err(|e| format!("cannot create {}: {e}", merged.display()))?;
    let mut merge = Command::new(driver);
    merge
        .args(["-set_cover_merge=1", "-use_counters=0"])
        .arg(format!("-max_len={MAX_LEN}"))
        .arg(&merged);
    if kept_dir.is_dir() {
        merge.arg(kept_dir);
    }
    merge
        .arg(corpus)
        .env("REHYDRATE_FUZZ_TARGET", target)
        .current_dir(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd::run(&format!("merging the {target} corpus"), &mut merge)?;
    let _ = std::fs::remove_dir_all(kept_dir);
    std::fs::rename(&merged, kept_dir).map_err(|e| {
        format!(
            "cannot move {} to {}: {e}",
            merged.display(),
            kept_dir.display()
        )
    })?;
    Ok(count(kept_dir))
}

/// Runs one target for `seconds` (none: only `keep`).
fn run_one(
    driver: &Path,
    root: &Path,
    target: &Listed,
    seconds: u64,
    keep: bool,
) -> Result<Outcome> {
    let fuzz = root.join("target/fuzz");
    let corpus = fuzz.join("corpus").join(&target.name);
    let artifacts = fuzz.join("artifacts").join(&target.name);
    let logs = fuzz.join("logs");
    for dir in [&corpus, &artifacts, &logs] {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let kept_dir = root.join("fixtures/fuzz").join(&target.name);
    let mut seeds = Vec::new();
    for seed in &target.seeds {
        files(seed, &mut seeds);
    }
    let log_path = logs.join(format!("{}.log", target.name));
    let log = std::fs::File::create(&log_path)
        .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
    let mut command = Command::new(driver);
    command.arg(&corpus);
    if kept_dir.is_dir() {
        command.arg(&kept_dir);
    }
    command
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-timeout={TIMEOUT_SECONDS}"))
        .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
        .arg(format!("-max_len={MAX_LEN}"))
        .arg("-print_final_stats=1")
        .arg(format!("-artifact_prefix={}/", artifacts.display()));
    if !seeds.is_empty() {
        let list: Vec<String> = seeds.iter().map(|s| s.display().to_string()).collect();
        command.arg(format!("-seed_inputs={}", list.join(",")));
    }
    // `--seconds 0` fuzzes nothing (libFuzzer would take 0 as no limit): it only keeps.
    let status = if seconds == 0 {
        None
    } else {
        let status = command
            .env("REHYDRATE_FUZZ_TARGET", &target.name)
            .current_dir(root)
            .stdout(Stdio::null())
            .stderr(log)
            .status()
            .map_err(|e| format!("cannot run {}: {e}", driver.display()))?;
        Some(status)
    };
    let text = std::fs::read_to_string(&log_path).unwrap_or_default();
    let failure = if status.is_none_or(|s| s.success()) {
        None
    } else {
        // A panic's location and its message (the line after it), or libFuzzer's reason.
        let lines: Vec<&str> = text.lines().collect();
        let reason = lines
            .iter()
            .position(|l| l.contains("panicked at") || l.contains("==ERROR") || l.contains("ALARM"))
            .map_or_else(
                || "libFuzzer stopped".to_string(),
                |at| match lines.get(at + 1) {
                    Some(next) if lines[at].contains("panicked at") => {
                        format!("{} {}", lines[at].trim(), next.trim())
                    }
                    _ => lines[at].trim().to_string(),
                },
            );
        let input = text
            .lines()
            .find_map(|l| l.split("Test unit written to ").nth(1))
            .map_or_else(|| log_path.clone(), |p| root.join(p.trim()));
        Some((input, reason))
    };
    let mut kept = count(&kept_dir);
    if keep && failure.is_none() {
        kept = keep_cover(driver, root, &target.name, &kept_dir, &corpus)?;
    }
    Ok(Outcome {
        name: target.name.clone(),
        execs: stat(&text, "stat::number_of_executed_units:"),
        per_second: stat(&text, "stat::average_exec_per_sec:"),
        corpus: count(&corpus),
        peak_rss_mb: stat(&text, "stat::peak_rss_mb:"),
        kept,
        failure,
    })
}

/// How long CI runs each target, in seconds.
pub(crate) const CI_SECONDS: u64 = 10;

/// CI's step: every target for [`CI_SECONDS`], on every core.
pub(crate) fn ci(root: &Path) -> Result<()> {
    fuzz(
        root,
        &Options {
            targets: Vec::new(),
            seconds: CI_SECONDS,
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
            keep: false,
            list: false,
        },
    )
}

/// `cargo xtask fuzz [TARGET...] [--seconds N] [--jobs N] [--keep] [--list]`.
pub(crate) fn run(root: &Path, rest: &[OsString]) -> Result<()> {
    fuzz(root, &parse(rest)?)
}

/// Builds the driver and runs the targets `options` names.
fn fuzz(root: &Path, options: &Options) -> Result<()> {
    let driver = build(root)?;
    let all = list(&driver, root)?;
    if options.list {
        for t in &all {
            println!("{}", t.name);
        }
        return Ok(());
    }
    let chosen: Vec<Listed> = if options.targets.is_empty() {
        all
    } else {
        let mut chosen = Vec::new();
        let mut all = all;
        for name in &options.targets {
            let at = all.iter().position(|t| &t.name == name).ok_or_else(|| {
                crate::usage(format!(
                    "no fuzz target named `{name}` (`cargo xtask fuzz --list`)"
                ))
            })?;
            chosen.push(all.remove(at));
        }
        chosen
    };
    println!(
        "fuzzing {} targets for {} s each, {} at a time; logs in target/fuzz/logs",
        chosen.len(),
        options.seconds,
        options.jobs
    );
    let queue = Mutex::new(chosen.iter().collect::<VecDeque<_>>());
    let outcomes = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..options.jobs.min(chosen.len()) {
            s.spawn(|| {
                while let Some(target) = queue.lock().map(|mut q| q.pop_front()).ok().flatten() {
                    let outcome = run_one(&driver, root, target, options.seconds, options.keep)
                        .map_err(|e| e.to_string());
                    if let Ok(o) = &outcome {
                        let status = match &o.failure {
                            None => "ok".to_string(),
                            Some((_, reason)) => format!("FAILED: {reason}"),
                        };
                        println!("{}: {} execs, {status}", o.name, o.execs);
                    }
                    if let Ok(mut all) = outcomes.lock() {
                        all.push((target.name.clone(), outcome));
                    }
                }
            });
        }
    });
    let mut outcomes = outcomes
        .into_inner()
        .map_err(|_| "a fuzz thread panicked")?;
    outcomes.sort_by_key(|(name, _)| chosen.iter().position(|t| &t.name == name));
    println!(
        "\n{:<20} {:>12} {:>9} {:>7} {:>8} {:>5}  result",
        "target", "execs", "execs/s", "corpus", "rss MB", "kept"
    );
    let mut failures = Vec::new();
    for (name, outcome) in &outcomes {
        match outcome {
            Ok(o) => {
                let result = match &o.failure {
                    None => "ok".to_string(),
                    Some((input, reason)) => {
                        failures.push(format!(
                            "{name}: {reason}; reproduce with REHYDRATE_FUZZ_TARGET={name} {} {}",
                            driver.display(),
                            input.display()
                        ));
                        "FAILED".to_string()
                    }
                };
                println!(
                    "{:<20} {:>12} {:>9} {:>7} {:>8} {:>5}  {result}",
                    o.name, o.execs, o.per_second, o.corpus, o.peak_rss_mb, o.kept
                );
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} fuzz targets failed:\n{}\n(once fixed, copy each input into fixtures/fuzz/<target>/ as a regression test)",
            failures.len(),
            failures.join("\n")
        )
        .into())
    }
}
