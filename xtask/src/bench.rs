//! `cargo xtask bench`: runs the criterion suite of rehydrate-bench and prints its figures as
//! ratios against the limits and the peer measured in the same run (docs/BENCHMARKS.md).
//!
//! Steps:
//! 1. builds the release CLI (`cargo build --release -p rehydrate-cli`), unless
//!    `REHYDRATE_BIN` names a binary;
//! 2. runs `cargo bench -p rehydrate-bench -- ARGS`, passing ARGS (such as a filter) through;
//! 3. runs `/usr/bin/time -v rehydrate reduce --no-tokens <mib_50 file> --out <tmp>` once for
//!    the CLI's peak resident set size;
//! 4. reads the mean of every benchmark criterion wrote during this run
//!    (`<target>/criterion/<group>/<subject>/<size>/new/estimates.json`, nanoseconds, and
//!    `benchmark.json` for the bytes processed) and prints one markdown table, also written
//!    to `<target>/criterion/figures.md`;
//! 5. appends the economy table the suite wrote during this run
//!    (`<target>/criterion/economy.md`: what our presets and the peer with every lever on save
//!    of each long corpus session), or says why there is none.
//!
//! With `--test` or `--list` among ARGS, criterion measures nothing and no table is printed.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use serde_json::Value;

use crate::Result;
use crate::cmd::{self, cargo, locked};

/// The package holding the criterion suite.
const PACKAGE: &str = "rehydrate-bench";

/// The workload file the suite's CLI bench writes, relative to the target directory.
const MIB_50_FILE: &str = "bench-workloads/mib_50.json";

/// The Claude Code file of the CLI bench (the `evidence` group's workload as one file), below
/// the target directory.
const CLAUDE_MIB_50_FILE: &str = "bench-workloads/claude_largest_mib_50.jsonl";

/// The inputs of the peak-memory figures: the name shown, and the file below the target
/// directory.
const RSS_INPUTS: [(&str, &str); 2] = [
    ("mib_50 file", MIB_50_FILE),
    ("claude_largest_mib_50 Claude Code file", CLAUDE_MIB_50_FILE),
];

/// The per-turn workload the suite writes for the Python package's bench, relative to the
/// target directory.
const TURNS_FILE: &str = "bench-workloads/turns_1000.json";

/// The economy table the suite writes (issue 17), relative to the target directory.
const ECONOMY_FILE: &str = "criterion/economy.md";

/// How a figure's ratio is formed from the two means and judged against its target.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ratio {
    /// `subject time / baseline time`, met when at most the target.
    TimeAtMost(f64),
    /// `baseline time / subject time` (how many times faster), met when at least the target.
    FasterAtLeast(f64),
    /// `subject rate / baseline rate` over the same bytes (`baseline time / subject time`), met
    /// when at least the target.
    RateAtLeast(f64),
    /// `baseline time / subject time`, reported without a target.
    Faster,
    /// `subject time / baseline time`, reported without a target.
    Time,
}

/// One line of the table: a benchmark compared with a baseline benchmark.
struct Figure {
    /// What is compared, as shown in the table.
    name: &'static str,
    /// Criterion id (`group/subject/size`) of our side.
    subject: &'static str,
    /// Criterion id of the limit or peer.
    baseline: &'static str,
    ratio: Ratio,
}

/// The figures of issues 3 (reduction), 17 (per-turn with every kind on), 4 (search), of
/// transcript replay, of evidence projection, of issue 19 (every importer from bytes) and of the
/// session store, in table order.
const FIGURES: &[Figure] = &[
    Figure {
        name: "per-turn projection, turn 1,000 vs turn 10 (ours)",
        subject: "per_turn/ours/turn-1000",
        baseline: "per_turn/ours/turn-10",
        ratio: Ratio::TimeAtMost(1.5),
    },
    Figure {
        name: "per-turn projection at turn 1,000 vs peer",
        subject: "per_turn/ours/turn-1000",
        baseline: "per_turn/peer/turn-1000",
        ratio: Ratio::FasterAtLeast(20.0),
    },
    Figure {
        name: "per-turn projection at turn 100 vs peer",
        subject: "per_turn/ours/turn-100",
        baseline: "per_turn/peer/turn-100",
        ratio: Ratio::Faster,
    },
    Figure {
        name: "per-turn projection at turn 10 vs peer",
        subject: "per_turn/ours/turn-10",
        baseline: "per_turn/peer/turn-10",
        ratio: Ratio::Faster,
    },
    Figure {
        name: "per-turn projection, every kind on (aggressive), turn 1,000 vs turn 10 (ours)",
        subject: "per_turn_aggressive/ours/turn-1000",
        baseline: "per_turn_aggressive/ours/turn-10",
        ratio: Ratio::TimeAtMost(1.5),
    },
    Figure {
        name: "per-turn projection, every kind on (aggressive), at turn 1,000 vs peer with every lever on",
        subject: "per_turn_aggressive/ours/turn-1000",
        baseline: "per_turn_aggressive/peer-all-levers/turn-1000",
        ratio: Ratio::FasterAtLeast(20.0),
    },
    Figure {
        name: "per-turn projection, every kind on (aggressive), at turn 100 vs peer with every lever on",
        subject: "per_turn_aggressive/ours/turn-100",
        baseline: "per_turn_aggressive/peer-all-levers/turn-100",
        ratio: Ratio::Faster,
    },
    Figure {
        name: "per-turn projection, every kind on (aggressive), at turn 10 vs peer with every lever on",
        subject: "per_turn_aggressive/ours/turn-10",
        baseline: "per_turn_aggressive/peer-all-levers/turn-10",
        ratio: Ratio::Faster,
    },
    Figure {
        name: "Python `Reducer.project` at turn 1,000 vs the same call in Rust",
        subject: "python/ours/turn-1000",
        baseline: "per_turn/ours/turn-1000",
        ratio: Ratio::TimeAtMost(PYTHON_TARGET),
    },
    Figure {
        name: "Python `Reducer.project` at turn 1,000 vs the Rust call on a copy of the turn made in the call",
        subject: "python/ours/turn-1000",
        baseline: "per_turn/ours-copy/turn-1000",
        ratio: Ratio::Time,
    },
    Figure {
        name: "Python `Reducer.project` at turn 10 vs the same call in Rust",
        subject: "python/ours/turn-10",
        baseline: "per_turn/ours/turn-10",
        ratio: Ratio::Time,
    },
    Figure {
        name: "Python `Reducer.project`, every kind on (aggressive), at turn 1,000 vs the same call in Rust",
        subject: "python_aggressive/ours/turn-1000",
        baseline: "per_turn_aggressive/ours/turn-1000",
        ratio: Ratio::TimeAtMost(PYTHON_TARGET),
    },
    Figure {
        name: "Python whole-session projection (turns_1000) vs the same call in Rust",
        subject: "python/ours/turns_1000",
        baseline: "session/ours/turns_1000",
        ratio: Ratio::Time,
    },
    Figure {
        name: "whole-session projection (mib_50) vs blake3 of its wire bytes",
        subject: "session/ours/mib_50",
        baseline: "session/blake3/mib_50",
        ratio: Ratio::RateAtLeast(0.5),
    },
    Figure {
        name: "writing the wire forms of mib_50 (a request body's bytes) vs blake3 of them",
        subject: "session/write_wire/mib_50",
        baseline: "session/blake3/mib_50",
        ratio: Ratio::Time,
    },
    Figure {
        name: "whole-session projection (mib_50) vs peer",
        subject: "session/ours/mib_50",
        baseline: "session/peer/mib_50",
        ratio: Ratio::FasterAtLeast(3.0),
    },
    Figure {
        name: "expand_reduction of 64 KiB vs blake3 of 64 KiB",
        subject: "expand/ours/64KiB",
        baseline: "expand/blake3/64KiB",
        ratio: Ratio::TimeAtMost(2.0),
    },
    Figure {
        name: "expand_reduction of 64 KiB vs peer",
        subject: "expand/ours/64KiB",
        baseline: "expand/peer/64KiB",
        ratio: Ratio::Faster,
    },
    Figure {
        name: "`rehydrate reduce --no-tokens` (mib_50 file) vs serde_json read + parse",
        subject: "cli/ours/mib_50",
        baseline: "cli/serde_json/mib_50",
        ratio: Ratio::RateAtLeast(0.6),
    },
    Figure {
        name: "`rehydrate reduce --no-tokens` (claude_largest_mib_50 Claude Code file) vs serde_json read + typed parse of its lines",
        subject: "cli/ours/claude_largest_mib_50",
        baseline: "cli/serde_json/claude_largest_mib_50",
        ratio: Ratio::RateAtLeast(0.6),
    },
    Figure {
        name: "`rehydrate verify` (the mib_50 output directory) vs reading and blake3 of its files",
        subject: "cli/verify/mib_50",
        baseline: "cli/blake3/mib_50",
        ratio: Ratio::RateAtLeast(0.5),
    },
    Figure {
        name: "o200k_base token counting (5 MiB): bpe-openai vs tiktoken-rs",
        subject: "tokens/bpe-openai/5MiB",
        baseline: "tokens/tiktoken/5MiB",
        ratio: Ratio::Faster,
    },
    Figure {
        name: "literal search (64 MiB hidden) vs memmem over the same slices",
        subject: "search/literal/64MiB",
        baseline: "search/memmem-slices/64MiB",
        ratio: Ratio::RateAtLeast(0.7),
    },
    Figure {
        name: "literal search (64 MiB hidden) vs memmem over one contiguous copy",
        subject: "search/literal/64MiB",
        baseline: "search/memmem/64MiB",
        ratio: Ratio::Faster,
    },
    Figure {
        name: "case-insensitive literal search vs memmem over the same slices",
        subject: "search/literal-i/64MiB",
        baseline: "search/memmem-slices/64MiB",
        ratio: Ratio::Faster,
    },
    Figure {
        name: "regex `\\w+Error\\b` (64 MiB hidden) vs `rg -c`",
        subject: "search/regex-error-word/64MiB",
        baseline: "search/rg-error-word/64MiB",
        ratio: Ratio::FasterAtLeast(1.0),
    },
    Figure {
        name: "regex `(?i)connection refused` (64 MiB hidden) vs `rg -c`",
        subject: "search/regex-refused/64MiB",
        baseline: "search/rg-refused/64MiB",
        ratio: Ratio::FasterAtLeast(1.0),
    },
    Figure {
        name: "regex 5-word alternation (64 MiB hidden) vs `rg -c`",
        subject: "search/regex-five-words/64MiB",
        baseline: "search/rg-five-words/64MiB",
        ratio: Ratio::FasterAtLeast(1.0),
    },
    Figure {
        name: "`sidecar_search` with verification (64 MiB hidden) vs blake3 of the hidden bytes",
        subject: "search/sidecar_search/64MiB",
        baseline: "search/blake3/64MiB",
        ratio: Ratio::TimeAtMost(1.5),
    },
    Figure {
        name: "a second `sidecar_search` over the same session (64 MiB hidden, verified once) vs the first",
        subject: "search/sidecar_search-again/64MiB",
        baseline: "search/sidecar_search/64MiB",
        ratio: Ratio::TimeAtMost(0.2),
    },
    Figure {
        name: "transcript replay from bytes (claude_mib_50) vs serde_json typed parse of its lines",
        subject: "replay/ours/claude_mib_50",
        baseline: "replay/serde_json/claude_mib_50",
        ratio: Ratio::RateAtLeast(0.6),
    },
    Figure {
        name: "evidence projection from bytes (claude_largest_mib_50) vs serde_json typed parse of its lines",
        subject: "evidence/ours/claude_largest_mib_50",
        baseline: "evidence/serde_json/claude_largest_mib_50",
        ratio: Ratio::RateAtLeast(0.5),
    },
    Figure {
        name: "import from bytes, Claude Code (claude_largest_mib_50) vs serde_json typed parse of the same file",
        subject: "import/ours/claude_largest_mib_50",
        baseline: "import/serde_json/claude_largest_mib_50",
        ratio: Ratio::RateAtLeast(IMPORT_TARGET),
    },
    Figure {
        name: "import from bytes, Codex (codex_mib_8) vs serde_json typed parse of the same file",
        subject: "import/ours/codex_mib_8",
        baseline: "import/serde_json/codex_mib_8",
        ratio: Ratio::RateAtLeast(IMPORT_TARGET),
    },
    Figure {
        name: "import from bytes, Gemini CLI (gemini_cli_mib_8) vs serde_json typed parse of the same file",
        subject: "import/ours/gemini_cli_mib_8",
        baseline: "import/serde_json/gemini_cli_mib_8",
        ratio: Ratio::RateAtLeast(IMPORT_TARGET),
    },
    Figure {
        name: "import from bytes, OpenHands (openhands_mib_8) vs serde_json typed parse of the same file",
        subject: "import/ours/openhands_mib_8",
        baseline: "import/serde_json/openhands_mib_8",
        ratio: Ratio::RateAtLeast(IMPORT_TARGET),
    },
    Figure {
        name: "import from bytes, Goose (goose_mib_8) vs serde_json typed parse of the same file",
        subject: "import/ours/goose_mib_8",
        baseline: "import/serde_json/goose_mib_8",
        ratio: Ratio::RateAtLeast(IMPORT_TARGET),
    },
    Figure {
        name: "import from bytes, SWE-agent (swe_agent_mib_8) vs serde_json typed parse of the same file",
        subject: "import/ours/swe_agent_mib_8",
        baseline: "import/serde_json/swe_agent_mib_8",
        ratio: Ratio::RateAtLeast(IMPORT_TARGET),
    },
    Figure {
        name: "import from bytes, OpenAI chat (openai_mib_8) vs serde_json typed parse of the same file",
        subject: "import/ours/openai_mib_8",
        baseline: "import/serde_json/openai_mib_8",
        ratio: Ratio::RateAtLeast(IMPORT_TARGET),
    },
    Figure {
        name: "import from bytes, Anthropic Messages (anthropic_mib_8) vs serde_json typed parse of the same file",
        subject: "import/ours/anthropic_mib_8",
        baseline: "import/serde_json/anthropic_mib_8",
        ratio: Ratio::RateAtLeast(IMPORT_TARGET),
    },
    Figure {
        name: "import from bytes, Responses (responses_mib_8) vs serde_json typed parse of the same file",
        subject: "import/ours/responses_mib_8",
        baseline: "import/serde_json/responses_mib_8",
        ratio: Ratio::RateAtLeast(IMPORT_TARGET),
    },
    Figure {
        name: "session store append, sync every record (1,000 messages) vs a plain JSONL recorder + one sync",
        subject: "store/every-record/1000-messages",
        baseline: "store/jsonl-write/1000-messages",
        ratio: Ratio::Time,
    },
    Figure {
        name: "session store append, sync every 1 MiB (1,000 messages) vs a plain JSONL recorder + one sync",
        subject: "store/every-1MiB/1000-messages",
        baseline: "store/jsonl-write/1000-messages",
        ratio: Ratio::Time,
    },
    Figure {
        name: "session store append, sync at the end (1,000 messages) vs a plain JSONL recorder + one sync",
        subject: "store/never/1000-messages",
        baseline: "store/jsonl-write/1000-messages",
        ratio: Ratio::RateAtLeast(0.5),
    },
];

/// The target of the Python per-turn figures (issue 20): `Reducer.project` called from Python
/// takes at most this many times the Rust call's time.
const PYTHON_TARGET: f64 = 1.5;

/// The target of every `import` figure (issue 19): each importer from bytes at least this share
/// of the rate of a typed `serde_json` parse of the same file.
const IMPORT_TARGET: f64 = 0.6;

/// The prefix of the ripgrep baselines, which the bench skips (with a notice) where `rg` is
/// not installed.
const RIPGREP_BASELINE: &str = "search/rg-";

/// The target of the peak-memory figure: peak RSS at most this many times the input size.
const RSS_TARGET: f64 = 2.0;

/// `cargo xtask bench [-- ARGS]`.
pub(crate) fn run(root: &Path, args: &[OsString]) -> Result<()> {
    let args = match args.split_first() {
        Some((first, rest)) if first == "--" => rest,
        _ => args,
    };
    let started = SystemTime::now();
    let target = target_dir(root)?;
    let bin = rehydrate_bin(root, &target)?;

    let mut bench = cargo(root);
    bench
        .args(["bench", "-p", PACKAGE])
        .args(locked(root))
        .env("REHYDRATE_BIN", &bin)
        .arg("--")
        .args(args);
    println!("==> {}", cmd::display(&bench));
    cmd::run("bench", &mut bench)?;
    if args.iter().any(|arg| arg == "--test" || arg == "--list") {
        return Ok(());
    }

    // The Python package's figures, when the suite wrote their workload in this run (its
    // per_turn group ran).
    if modified_since(&target.join(TURNS_FILE), started) {
        crate::python::bench(root, &target)?;
    } else {
        println!("bench: python: not run (the per_turn group did not run, so no {TURNS_FILE})");
    }

    let rss: Vec<(&str, std::result::Result<Rss, String>)> = RSS_INPUTS
        .iter()
        .map(|&(name, file)| (name, peak_rss(&bin, &target, file)))
        .collect();
    let mut table = table(&target.join("criterion"), started, &rss, &machine());
    table.push('\n');
    table.push_str(&economy_section(written_since(
        &target.join(ECONOMY_FILE),
        started,
    )));
    println!("\n{table}");
    let saved = target.join("criterion").join("figures.md");
    fs::write(&saved, &table).map_err(|err| format!("cannot write {}: {err}", saved.display()))?;
    println!("(table written to {})", saved.display());
    Ok(())
}

/// Builds the release CLI, whose binary the suite's CLI bench runs; `cargo xtask ci` calls
/// this before `cargo bench -- --test`.
pub(crate) fn build_cli(root: &Path) -> Result<()> {
    let mut build = cargo(root);
    build
        .args(["build", "--release"])
        .args(locked(root))
        .args(["-p", "rehydrate-cli"]);
    println!("==> {}", cmd::display(&build));
    cmd::run("release build of rehydrate-cli", &mut build)
}

/// The cargo target directory, from `cargo metadata`.
fn target_dir(root: &Path) -> Result<PathBuf> {
    let metadata = cmd::metadata(root)?;
    let target = cmd::string(&metadata, "target_directory", "cargo metadata")?;
    Ok(PathBuf::from(target))
}

/// `REHYDRATE_BIN`, or the release CLI built now.
fn rehydrate_bin(root: &Path, target: &Path) -> Result<PathBuf> {
    if let Some(bin) = std::env::var_os("REHYDRATE_BIN").filter(|bin| !bin.is_empty()) {
        println!("bench: using REHYDRATE_BIN={}", Path::new(&bin).display());
        return Ok(PathBuf::from(bin));
    }
    build_cli(root)?;
    let bin = format!("rehydrate{}", std::env::consts::EXE_SUFFIX);
    Ok(target.join("release").join(bin))
}

/// The peak-memory figure, or why it was not measured.
struct Rss {
    /// Peak resident set size of `rehydrate reduce`, in bytes.
    peak_bytes: u64,
    /// Size of the input file, in bytes.
    input_bytes: u64,
    /// Whether the binary took `--no-tokens`.
    no_tokens: bool,
}

/// Runs `/usr/bin/time -v <bin> reduce --no-tokens <file> --out <tmp>` once and reads
/// "Maximum resident set size (kbytes)"; `Err` says why it could not.
fn peak_rss(bin: &Path, target: &Path, file: &str) -> std::result::Result<Rss, String> {
    let input = target.join(file);
    let input_bytes = fs::metadata(&input)
        .map_err(|_| {
            format!(
                "{} is missing (the cli bench writes it; run it first)",
                input.display()
            )
        })?
        .len();
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        return Err("/usr/bin/time is missing (install GNU time)".to_owned());
    }
    let no_tokens = takes_no_tokens(bin)?;
    let out = target.join("bench-workloads").join("rss.rehydrate-out");
    let remove = || match fs::remove_dir_all(&out) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("cannot remove {}: {err}", out.display()))
        }
        _ => Ok(()),
    };
    remove()?;
    let mut command = Command::new(time);
    command.arg("-v").arg(bin).arg("reduce");
    if no_tokens {
        command.arg("--no-tokens");
    }
    command.arg(&input).arg("--out").arg(&out);
    println!("==> {}", cmd::display(&command));
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("cannot start /usr/bin/time: {err}"))?;
    remove()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "`{}` failed: {}",
            cmd::display(&command),
            stderr.lines().next().unwrap_or("(no message)")
        ));
    }
    let peak_kbytes = max_rss_kbytes(&stderr)
        .ok_or_else(|| "no \"Maximum resident set size\" in the output of time -v".to_owned())?;
    Ok(Rss {
        peak_bytes: peak_kbytes * 1024,
        input_bytes,
        no_tokens,
    })
}

/// Whether `rehydrate reduce` takes `--no-tokens` (clap says "unexpected argument" otherwise).
fn takes_no_tokens(bin: &Path) -> std::result::Result<bool, String> {
    let output = Command::new(bin)
        .args(["reduce", "--no-tokens", "--help"])
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("cannot start {}: {err}", bin.display()))?;
    Ok(!String::from_utf8_lossy(&output.stderr).contains("unexpected argument"))
}

/// The value of GNU time's "Maximum resident set size (kbytes): N" line.
pub(crate) fn max_rss_kbytes(time_output: &str) -> Option<u64> {
    time_output.lines().find_map(|line| {
        let (key, value) = line.trim().split_once(':')?;
        (key == "Maximum resident set size (kbytes)")
            .then(|| value.trim().parse().ok())
            .flatten()
    })
}

/// The machine line of the table header: CPU model and logical CPU count.
fn machine() -> String {
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cpu}, nproc {cpus}")
}

/// One benchmark's result as criterion wrote it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Measured {
    /// Mean time per iteration, in nanoseconds.
    mean_ns: f64,
    /// Bytes processed per iteration, when the group declared a throughput.
    bytes: Option<u64>,
}

/// The result of benchmark `id` in `criterion_dir`, if criterion wrote it at or after `since`.
fn measured(criterion_dir: &Path, id: &str, since: SystemTime) -> Option<Measured> {
    let dir = criterion_dir.join(id).join("new");
    let estimates = dir.join("estimates.json");
    let modified = fs::metadata(&estimates).ok()?.modified().ok()?;
    if modified < since {
        return None;
    }
    let estimates: Value = serde_json::from_slice(&fs::read(&estimates).ok()?).ok()?;
    let mean_ns = estimates["mean"]["point_estimate"].as_f64()?;
    let benchmark: Value = fs::read(dir.join("benchmark.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or(Value::Null);
    let bytes = benchmark["throughput"]["Bytes"].as_u64();
    Some(Measured { mean_ns, bytes })
}

/// The text of `file` if it was written at or after `since`.
fn written_since(file: &Path, since: SystemTime) -> Option<String> {
    modified_since(file, since)
        .then(|| fs::read_to_string(file).ok())
        .flatten()
}

/// Whether `file` was written at or after `since`.
fn modified_since(file: &Path, since: SystemTime) -> bool {
    fs::metadata(file)
        .and_then(|m| m.modified())
        .is_ok_and(|modified| modified >= since)
}

/// The economy section of the output: the table the suite wrote during this run, or why there
/// is none.
fn economy_section(table: Option<String>) -> String {
    table.unwrap_or_else(|| {
        "Economy (issue 17): not run (the suite writes it on every run with the corpus; \
         see its notice on stderr)\n"
            .to_owned()
    })
}

/// The markdown table of every figure measured since `since`, with the peak-memory figure.
fn table(
    criterion_dir: &Path,
    since: SystemTime,
    rss: &[(&str, std::result::Result<Rss, String>)],
    machine: &str,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Machine: {machine}. Times are criterion means; rates are MB/s (10^6 bytes per second)."
    );
    out.push('\n');
    out.push_str("| figure | ours | limit or peer | ratio | target | status |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    for figure in FIGURES {
        let subject = measured(criterion_dir, figure.subject, since);
        let baseline = measured(criterion_dir, figure.baseline, since);
        let _ = writeln!(out, "{}", row(figure, subject, baseline));
    }
    for (name, rss) in rss {
        let _ = writeln!(out, "{}", rss_row(name, rss));
    }
    out
}

/// One table row; `not run` when either side was not measured in this run.
fn row(figure: &Figure, subject: Option<Measured>, baseline: Option<Measured>) -> String {
    let (Some(subject), Some(baseline)) = (subject, baseline) else {
        let target = target_text(figure.ratio);
        let status = if subject.is_some() && figure.baseline.starts_with(RIPGREP_BASELINE) {
            "not run: no `rg` on PATH (apt-get install ripgrep)"
        } else {
            "not run"
        };
        return format!("| {} | — | — | — | {target} | {status} |", figure.name);
    };
    let faster = baseline.mean_ns / subject.mean_ns;
    let speed = if faster >= 1.0 {
        format!("{faster:.1}x faster")
    } else {
        format!("{:.1}x slower", 1.0 / faster)
    };
    let (ratio, met) = match figure.ratio {
        Ratio::TimeAtMost(limit) => {
            let ratio = subject.mean_ns / baseline.mean_ns;
            (format!("{ratio:.2}x the time"), Some(ratio <= limit))
        }
        Ratio::FasterAtLeast(limit) => (speed, Some(faster >= limit)),
        Ratio::RateAtLeast(limit) => (format!("{faster:.2} of the rate"), Some(faster >= limit)),
        Ratio::Faster => (speed, None),
        Ratio::Time => (
            format!("{:.2}x the time", subject.mean_ns / baseline.mean_ns),
            None,
        ),
    };
    let status = match met {
        Some(true) => "met",
        Some(false) => "NOT MET",
        None => "—",
    };
    format!(
        "| {} | {} | {} | {ratio} | {} | {status} |",
        figure.name,
        shown(subject),
        shown(baseline),
        target_text(figure.ratio)
    )
}

/// The target column for `ratio`.
fn target_text(ratio: Ratio) -> String {
    match ratio {
        Ratio::TimeAtMost(limit) => format!("<= {limit}x the time"),
        Ratio::FasterAtLeast(limit) => format!(">= {limit}x faster"),
        Ratio::RateAtLeast(limit) => format!(">= {limit} of the rate"),
        Ratio::Faster | Ratio::Time => "—".to_owned(),
    }
}

/// A measured time, with its rate when the benchmark has a throughput.
fn shown(measured: Measured) -> String {
    let time = duration_text(measured.mean_ns);
    match measured.bytes {
        Some(bytes) if measured.mean_ns > 0.0 => {
            let mb_per_s = bytes as f64 / measured.mean_ns * 1e9 / 1e6;
            format!("{time} ({mb_per_s:.0} MB/s)")
        }
        _ => time,
    }
}

/// `ns` nanoseconds with a unit that keeps three significant digits: `66.4 µs`, `19.4 ms`.
fn duration_text(ns: f64) -> String {
    let (value, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {unit}")
}

/// The peak-memory row.
fn rss_row(input: &str, rss: &std::result::Result<Rss, String>) -> String {
    let name = format!("`rehydrate reduce --no-tokens` peak RSS vs input size ({input})");
    let target = format!("<= {RSS_TARGET}x the input");
    match rss {
        Ok(rss) => {
            let ratio = rss.peak_bytes as f64 / rss.input_bytes as f64;
            let status = if ratio <= RSS_TARGET {
                "met"
            } else {
                "NOT MET"
            };
            let flag = if rss.no_tokens {
                ""
            } else {
                " (without --no-tokens: the binary lacks it)"
            };
            format!(
                "| {name} | {:.1} MiB{flag} | {:.1} MiB | {ratio:.2}x the input | {target} | {status} |",
                rss.peak_bytes as f64 / f64::from(1 << 20),
                rss.input_bytes as f64 / f64::from(1 << 20),
            )
        }
        Err(reason) => format!("| {name} | — | — | — | {target} | not run: {reason} |"),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        FIGURES, Figure, Measured, Ratio, duration_text, economy_section, max_rss_kbytes, row,
    };

    fn figure(ratio: Ratio) -> Figure {
        Figure {
            name: "f",
            subject: "g/ours/x",
            baseline: "g/base/x",
            ratio,
        }
    }

    fn ns(mean_ns: f64) -> Option<Measured> {
        Some(Measured {
            mean_ns,
            bytes: None,
        })
    }

    #[test]
    fn rows_judge_their_targets() {
        assert_eq!(
            row(&figure(Ratio::TimeAtMost(1.5)), ns(140.0), ns(100.0)),
            "| f | 140 ns | 100 ns | 1.40x the time | <= 1.5x the time | met |"
        );
        assert_eq!(
            row(&figure(Ratio::FasterAtLeast(20.0)), ns(1e3), ns(1.5e4)),
            "| f | 1.00 µs | 15.0 µs | 15.0x faster | >= 20x faster | NOT MET |"
        );
        let rate = Some(Measured {
            mean_ns: 2e9,
            bytes: Some(50_000_000),
        });
        let base = Some(Measured {
            mean_ns: 1e9,
            bytes: Some(50_000_000),
        });
        assert_eq!(
            row(&figure(Ratio::RateAtLeast(0.5)), rate, base),
            "| f | 2.00 s (25 MB/s) | 1.00 s (50 MB/s) | 0.50 of the rate | >= 0.5 of the rate | met |"
        );
        assert_eq!(
            row(&figure(Ratio::Faster), ns(2e6), ns(1e6)),
            "| f | 2.00 ms | 1.00 ms | 2.0x slower | — | — |"
        );
        assert_eq!(
            row(&figure(Ratio::FasterAtLeast(3.0)), ns(1.5e6), ns(1e6)),
            "| f | 1.50 ms | 1.00 ms | 1.5x slower | >= 3x faster | NOT MET |"
        );
        assert_eq!(
            row(&figure(Ratio::Time), ns(3e6), ns(1e6)),
            "| f | 3.00 ms | 1.00 ms | 3.00x the time | — | — |"
        );
        assert_eq!(
            row(&figure(Ratio::Faster), None, ns(1e6)),
            "| f | — | — | — | — | not run |"
        );
        let rg = Figure {
            baseline: "search/rg-x/64MiB",
            ..figure(Ratio::FasterAtLeast(1.0))
        };
        assert_eq!(
            row(&rg, ns(1e6), None),
            "| f | — | — | — | >= 1x faster | not run: no `rg` on PATH (apt-get install ripgrep) |"
        );
    }

    #[test]
    fn economy_section_is_the_table_or_says_why_not() {
        assert_eq!(economy_section(Some("| t |\n".to_owned())), "| t |\n");
        assert!(economy_section(None).starts_with("Economy (issue 17): not run"));
    }

    #[test]
    fn durations_keep_three_digits() {
        assert_eq!(duration_text(66_370.0), "66.4 µs");
        assert_eq!(duration_text(19_397_000.0), "19.4 ms");
        assert_eq!(duration_text(123_456_789.0), "123 ms");
        assert_eq!(duration_text(4_023_000_000.0), "4.02 s");
    }

    #[test]
    fn reads_gnu_time_output() {
        let output = "\tCommand being timed: \"rehydrate reduce x\"\n\
                      \tMaximum resident set size (kbytes): 123456\n\
                      \tExit status: 0\n";
        assert_eq!(max_rss_kbytes(output), Some(123_456));
        assert_eq!(max_rss_kbytes("nothing"), None);
    }

    #[test]
    fn figures_name_distinct_pairs() {
        for (i, a) in FIGURES.iter().enumerate() {
            assert_eq!(a.subject.split('/').count(), 3, "{}", a.subject);
            assert_eq!(a.baseline.split('/').count(), 3, "{}", a.baseline);
            for b in &FIGURES[i + 1..] {
                assert!((a.subject, a.baseline) != (b.subject, b.baseline));
            }
        }
    }
}
