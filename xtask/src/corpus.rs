//! The corpus check: every real session in the shared corpus survives `rehydrate roundtrip`.
//!
//! For each `.jsonl`, `.traj`, `.json` or `.md` file under `<corpus>/claude-code`,
//! `<corpus>/swe-agent`, `<corpus>/codex`, `<corpus>/gemini-cli`, `<corpus>/openhands` and
//! `<corpus>/aider` (recursively, sorted), each session of it (a file that holds several, such as
//! an OpenHands `output.jsonl` or an Aider chat history, is listed by `rehydrate inspect --json`
//! and each session is named with `--session N`) and each preset, runs
//! `rehydrate roundtrip <FILE> --preset <PRESET> --json`, which reduces, verifies, expands and
//! inverts the session in memory and prints one JSON object (see docs/FORMATS.md).
//! A file of more than [`SAMPLE`] sessions (the Aider chat history holds 1,134) is roundtripped
//! whole instead, every session in one process (`--all-sessions`, one line of totals per
//! preset), and the [`SAMPLE`] sessions with the most tokens go through the checks below and
//! the per-session table.
//! Prints one table line per file and preset and totals per preset.
//! Then runs `rehydrate replay <FILE> --json` on each file and prints its proven, retracted and
//! inert path counts, and `rehydrate evidence <FILE> --json`, which must project (exit 0) or
//! refuse with evidence-too-large (exit 3), and prints its turns and bytes before and after.
//! Then reduces each file under each preset and exports it to both request bodies, inverted
//! (repaired) and with `--view`, and prints the repairs by kind: every body must pass its API's
//! rules (`rehydrate_formats::check_request`, which export applies before writing); a file of a
//! format rehydrate writes (a Codex rollout) is also exported to its own format, which must give
//! the file back (byte for byte; a JSON document as the same JSON value).
//! Then runs `rehydrate cost <FILE> --preset aggressive --pricing anthropic-5m --json` on each
//! file and prints, for each session over 50k tokens, the cost of no reduction, per-turn and
//! cache-aware reduction, against issue 18's target (reported, not enforced yet).
//! Fails after all runs if any run exits non-zero, reports `"ok": false`, or prints counts that
//! disagree with its records.
//!
//! Environment: `REHYDRATE_CORPUS` overrides the corpus directory
//! (default `<workspace root>/../shared/corpus`); `REHYDRATE_BIN` names a rehydrate binary to use
//! instead of building `target/release/rehydrate`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::Result;
use crate::cmd;

/// The corpus subdirectories whose sessions rehydrate can import.
const FORMAT_DIRS: &[&str] = &[
    "claude-code",
    "swe-agent",
    "codex",
    "gemini-cli",
    "openhands",
    "aider",
];

/// The corpus subdirectories whose files may hold several sessions each.
const MULTI_SESSION_DIRS: &[&str] = &["openhands", "aider"];

/// How many sessions of a file of many go through every check one by one; all of them are
/// roundtripped in one process.
const SAMPLE: usize = 40;

/// A file of more than [`SAMPLE`] sessions.
struct Bulk {
    path: PathBuf,
    sessions: u64,
}

/// One session to check: a file, and its number when the file holds several.
struct Unit {
    path: PathBuf,
    session: Option<u64>,
}

impl Unit {
    /// The arguments that name the session to `rehydrate`: the file, then `--session N`.
    fn args(&self) -> Vec<std::ffi::OsString> {
        let mut args = vec![self.path.clone().into_os_string()];
        if let Some(n) = self.session {
            args.push("--session".into());
            args.push(n.to_string().into());
        }
        args
    }

    /// The file relative to the corpus, with `#N` for a session of several.
    fn name(&self, dir: &Path) -> String {
        let relative = self.path.strip_prefix(dir).unwrap_or(&self.path).display();
        match self.session {
            Some(n) => format!("{relative}#{n}"),
            None => relative.to_string(),
        }
    }
}

/// The sessions of `files`: one unit per file, except one per session for a file under a
/// [`MULTI_SESSION_DIRS`] directory that `rehydrate inspect --json` lists several sessions of;
/// a file of more than [`SAMPLE`] sessions is a [`Bulk`] instead.
fn units(bin: &Path, dir: &Path, files: Vec<PathBuf>) -> Result<(Vec<Unit>, Vec<Bulk>)> {
    let mut units = Vec::new();
    let mut bulks = Vec::new();
    for path in files {
        let multi = MULTI_SESSION_DIRS
            .iter()
            .any(|d| path.starts_with(dir.join(d)));
        let mut sessions = 0;
        if multi {
            let output = Command::new(bin)
                .arg("inspect")
                .arg(&path)
                .arg("--json")
                .output()
                .map_err(|err| format!("cannot start {}: {err}", bin.display()))?;
            if let Ok(report) = serde_json::from_slice::<Value>(&output.stdout) {
                sessions = report["sessions"].as_array().map_or(0, Vec::len) as u64;
            }
        }
        if sessions > SAMPLE as u64 {
            bulks.push(Bulk { path, sessions });
        } else if sessions > 1 {
            for n in 1..=sessions {
                units.push(Unit {
                    path: path.clone(),
                    session: Some(n),
                });
            }
        } else {
            units.push(Unit {
                path,
                session: None,
            });
        }
    }
    Ok((units, bulks))
}

/// Roundtrips every session of `bulk` under `preset` in one process: the figures of each
/// session by number, or why the run failed.
///
/// # Errors
///
/// When `bin` cannot be started.
fn roundtrip_all(
    bin: &Path,
    bulk: &Bulk,
    preset: &str,
) -> Result<std::result::Result<Vec<(u64, Figures)>, String>> {
    let output = Command::new(bin)
        .arg("roundtrip")
        .arg(&bulk.path)
        .args(["--all-sessions", "--preset", preset, "--json"])
        .output()
        .map_err(|err| format!("cannot start {}: {err}", bin.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Import warnings come first; the failure is the last line.
        let message = stderr
            .lines()
            .rfind(|line| !line.trim().is_empty())
            .unwrap_or("(no message on stderr)");
        return Ok(Err(format!(
            "exit code {:?}: {message}",
            output.status.code()
        )));
    }
    let mut out = Vec::new();
    for line in output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
    {
        let figures = match parse_output(line) {
            Ok(figures) => figures,
            Err(reason) => return Ok(Err(reason)),
        };
        let session = serde_json::from_slice::<Value>(line)
            .ok()
            .and_then(|v| v["session"].as_u64());
        match session {
            Some(n) => out.push((n, figures)),
            None => return Ok(Err("a report without its session number".to_owned())),
        }
    }
    if out.len() as u64 != bulk.sessions {
        return Ok(Err(format!(
            "{} reports for {} sessions",
            out.len(),
            bulk.sessions
        )));
    }
    Ok(Ok(out))
}

/// The formats (as `reduce --json` names them) that `export --to` writes back: a reduced
/// session of one of them must export to its file (byte for byte for a Codex rollout, the same
/// JSON value for a document).
const WRITTEN_FORMATS: &[&str] = &["codex", "responses", "anthropic"];

/// The file extensions of session files.
const EXTENSIONS: &[&str] = &["jsonl", "traj", "json", "md"];

/// Which reduction presets to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Presets {
    Default,
    Aggressive,
    Both,
}

impl Presets {
    /// Parses a `--preset` value: `default`, `aggressive` or `both`.
    pub(crate) fn parse(value: &str) -> Option<Presets> {
        match value {
            "default" => Some(Presets::Default),
            "aggressive" => Some(Presets::Aggressive),
            "both" => Some(Presets::Both),
            _ => None,
        }
    }

    /// The preset names passed to `rehydrate roundtrip --preset`.
    fn names(self) -> &'static [&'static str] {
        match self {
            Presets::Default => &["default"],
            Presets::Aggressive => &["aggressive"],
            Presets::Both => &["default", "aggressive"],
        }
    }
}

/// The figures of one successful roundtrip (fields of the CLI's JSON output).
#[derive(Clone, Copy, Default)]
struct Figures {
    messages: u64,
    tokens_before: u64,
    tokens_after: u64,
    reductions: u64,
}

impl Figures {
    /// Adds `other` to these figures (for the totals).
    fn add(&mut self, other: Figures) {
        self.messages += other.messages;
        self.tokens_before += other.tokens_before;
        self.tokens_after += other.tokens_after;
        self.reductions += other.reductions;
    }

    /// Tokens saved as a percentage of `tokens_before` (0 when there were none).
    fn saved_percent(self) -> f64 {
        if self.tokens_before == 0 {
            return 0.0;
        }
        let before = self.tokens_before as f64;
        (before - self.tokens_after as f64) / before * 100.0
    }

    /// The numeric columns of a table line.
    fn columns(self) -> String {
        format!(
            "{:>8} {:>13} → {:<13} {:>8} {:>10}",
            self.messages,
            self.tokens_before,
            self.tokens_after,
            format!("({:.1}%)", self.saved_percent()),
            self.reductions,
        )
    }
}

/// The table header, aligned with [`Figures::columns`], ending with the column `last`.
fn header(last: &str) -> String {
    format!(
        "{:<10} {:>8} {:>13} → {:<13} {:>8} {:>10}  {last}",
        "preset", "messages", "tokens before", "after", "(saved)", "reductions"
    )
}

/// `cargo xtask corpus`: runs the roundtrip of every corpus file under each of `presets`.
/// Without a corpus the check is skipped with a notice, but not when `strict` (`cargo xtask
/// ci`, or `CI` set in the environment): then a missing corpus is a failure.
pub(crate) fn run(root: &Path, presets: Presets, strict: bool) -> Result<()> {
    let dir = corpus_dir(root)?;
    let missing = |what: String| -> Result<()> {
        if strict {
            return Err(format!("{what}, and the check is strict (cargo xtask ci, or CI set): the corpus check must run").into());
        }
        println!("corpus check: {what}, skipped");
        Ok(())
    };
    if !dir.is_dir() {
        return missing(format!("{} not found", dir.display()));
    }
    let mut files = Vec::new();
    for format in FORMAT_DIRS {
        let format_dir = dir.join(format);
        if format_dir.is_dir() {
            collect_sessions(&format_dir, &mut files)?;
        }
    }
    files.sort();
    if files.is_empty() {
        return missing(format!("no session files in {}", dir.display()));
    }
    let bin = rehydrate_bin(root)?;
    let file_count = files.len();
    let (mut files, bulks) = units(&bin, &dir, files)?;
    let names = presets.names();
    let mut failures = Vec::new();
    for bulk in &bulks {
        let relative = bulk.path.strip_prefix(&dir).unwrap_or(&bulk.path).display();
        println!(
            "\n{relative}: all {} sessions roundtripped in one process",
            bulk.sessions
        );
        println!("{}", header("sessions passed"));
        let mut largest = Vec::new();
        for &preset in names {
            match roundtrip_all(&bin, bulk, preset)? {
                Ok(sessions) => {
                    let mut total = Figures::default();
                    sessions.iter().for_each(|(_, f)| total.add(*f));
                    println!(
                        "{preset:<10} {}  {}/{}",
                        total.columns(),
                        sessions.len(),
                        bulk.sessions
                    );
                    if largest.is_empty() {
                        largest = sessions;
                    }
                }
                Err(reason) => {
                    println!("{preset:<10} FAILED  {relative}: {reason}");
                    failures.push(format!(
                        "{relative} --all-sessions --preset {preset}: {reason}"
                    ));
                }
            }
        }
        // The sessions with the most tokens go through every check one by one.
        largest.sort_by_key(|(n, f)| (std::cmp::Reverse(f.tokens_before), *n));
        let mut sample: Vec<u64> = largest.iter().take(SAMPLE).map(|(n, _)| *n).collect();
        sample.sort_unstable();
        files.extend(sample.into_iter().map(|n| Unit {
            path: bulk.path.clone(),
            session: Some(n),
        }));
    }
    files.sort_by(|a, b| (&a.path, a.session).cmp(&(&b.path, b.session)));
    println!(
        "\ncorpus check: {} sessions in {file_count} files in {} with {}",
        files.len(),
        dir.display(),
        bin.display()
    );

    let mut totals = vec![(Figures::default(), 0_usize); names.len()];
    println!("{}", header("file"));
    for file in &files {
        let relative = file.name(&dir);
        for (&preset, (total, passed)) in names.iter().zip(&mut totals) {
            match roundtrip(&bin, file, preset)? {
                Ok(figures) => {
                    println!("{preset:<10} {}  {relative}", figures.columns());
                    total.add(figures);
                    *passed += 1;
                }
                Err(reason) => {
                    println!("{preset:<10} FAILED  {relative}: {reason}");
                    failures.push(format!("{relative} --preset {preset}: {reason}"));
                }
            }
        }
    }

    println!("\ntotals");
    println!("{}", header("files passed"));
    for (&preset, (total, passed)) in names.iter().zip(&totals) {
        println!("{preset:<10} {}  {passed}/{}", total.columns(), files.len());
    }

    println!("\nreplay (paths by state at the end of the transcript)");
    println!("{:>7} {:>9} {:>6}  file", "proven", "retracted", "inert");
    let mut replay_total = [0_u64; 3];
    for file in &files {
        let relative = file.name(&dir);
        match replay(&bin, file)? {
            Ok(counts) => {
                println!(
                    "{:>7} {:>9} {:>6}  {relative}",
                    counts[0], counts[1], counts[2]
                );
                for (total, n) in replay_total.iter_mut().zip(counts) {
                    *total += n;
                }
            }
            Err(reason) => {
                println!("replay FAILED  {relative}: {reason}");
                failures.push(format!("{relative} replay: {reason}"));
            }
        }
    }
    println!(
        "{:>7} {:>9} {:>6}  total",
        replay_total[0], replay_total[1], replay_total[2]
    );

    println!("\nevidence (default limit)");
    println!(
        "{:>6} {:>12} {:>12}  file",
        "turns", "bytes before", "bytes after"
    );
    for file in &files {
        let relative = file.name(&dir);
        match evidence(&bin, file)? {
            Ok(Some([turns, before, after])) => {
                println!("{turns:>6} {before:>12} {after:>12}  {relative}");
            }
            Ok(None) => println!(
                "{:>6} {:>12} {:>12}  {relative} (evidence-too-large)",
                "-", "-", "-"
            ),
            Err(reason) => {
                println!("evidence FAILED  {relative}: {reason}");
                failures.push(format!("{relative} evidence: {reason}"));
            }
        }
    }
    println!(
        "\nrequest bodies (export --to openai|anthropic, with and without --view; repairs of the inverted session; `back`: export --to its own format gave the file back byte for byte)"
    );
    println!("{:<10} {:>7}  {:<32} file", "preset", "bodies", "repairs");
    let scratch = root.join("target").join("corpus-bodies");
    for file in &files {
        let relative = file.name(&dir);
        for &preset in names {
            match bodies(&bin, file, preset, &scratch)? {
                Ok(repairs) => println!("{preset:<10} {:>7}  {repairs:<32} {relative}", "4 valid"),
                Err(reason) => {
                    println!("{preset:<10} FAILED  {relative}: {reason}");
                    failures.push(format!("{relative} bodies --preset {preset}: {reason}"));
                }
            }
        }
    }
    let _ = fs::remove_dir_all(&scratch);

    let scratch = root.join("target").join("corpus-savings");
    for preset in ["default", "aggressive"] {
        println!(
            "\nsavings by kind (reduce --preset {preset}, sessions over {LARGE_SESSION_TOKENS} tokens; tokens saved per kind, share of the tokens before)"
        );
        println!(
            "{:>13} → {:<13} {:>8}  {:<48} file",
            "tokens before", "after", "(saved)", "by kind"
        );
        for file in &files {
            let relative = file.name(&dir);
            match savings(&bin, file, preset, &scratch)? {
                Ok(row) if row.before > LARGE_SESSION_TOKENS => {
                    println!("{}  {relative}", row.columns());
                    if preset == "aggressive" && row.saved_percent() < SAVINGS_TARGET_PERCENT {
                        failures.push(format!(
                            "{relative} savings: --preset aggressive saves {:.1}% of {} tokens, under the {SAVINGS_TARGET_PERCENT}% target (issue 17)",
                            row.saved_percent(),
                            row.before
                        ));
                    }
                }
                Ok(_) => {}
                Err(reason) => {
                    println!("savings FAILED  {relative}: {reason}");
                    failures.push(format!("{relative} savings --preset {preset}: {reason}"));
                }
            }
        }
    }
    let _ = fs::remove_dir_all(&scratch);
    println!(
        "target (issue 17): --preset aggressive saves at least {SAVINGS_TARGET_PERCENT}% of tokens on every session over {LARGE_SESSION_TOKENS} tokens"
    );
    cost_table(&bin, &dir, &files, &mut failures)?;
    if !failures.is_empty() {
        println!("\nfailures:");
        for failure in &failures {
            println!("  {failure}");
        }
        // Per file: a roundtrip and the bodies per preset, replay, evidence, savings under
        // both presets, and the cost replay.
        let runs = files.len() * (2 * names.len() + 5);
        return Err(format!(
            "corpus check failed: {} of {runs} runs failed",
            failures.len()
        )
        .into());
    }
    Ok(())
}

/// Cache-aware aggressive reduction must cost at least this much less than no reduction, in
/// percent, on every long session (issue 18).
const COST_TARGET_PERCENT: f64 = 40.0;

/// The cost table: `rehydrate cost --preset aggressive --pricing anthropic-5m --json` on every
/// file, and for each session over [`LARGE_SESSION_TOKENS`] the totals of the three strategies
/// against issue 18's target. A run that fails is a failure, and so is a long session where
/// cache-aware reduction does not cost less than both per-turn reduction and no reduction; one
/// where it saves less than [`COST_TARGET_PERCENT`]% is printed as a miss (docs/COST.md,
/// "Corpus", shows why one session cannot reach it).
fn cost_table(bin: &Path, dir: &Path, files: &[Unit], failures: &mut Vec<String>) -> Result<()> {
    println!(
        "\ncost (cost --preset aggressive --pricing anthropic-5m, sessions over {LARGE_SESSION_TOKENS} tokens; USD, and against none)"
    );
    println!(
        "{:>9} {:>7} {:>10} {:>10} {:>10} {:>8} {:>8}  file",
        "tokens", "calls", "none", "per-turn", "cache-aw.", "per-turn", "cache-aw."
    );
    let mut missed = Vec::new();
    for file in files {
        let relative = file.name(dir);
        match cost(bin, file)? {
            Ok(row) if row.session_tokens > LARGE_SESSION_TOKENS => {
                let [none, per_turn, cache_aware] = row.cost_usd;
                let vs = |c: f64| 100.0 * (c / none.max(f64::MIN_POSITIVE) - 1.0);
                println!(
                    "{:>9} {:>7} {none:>10.4} {per_turn:>10.4} {cache_aware:>10.4} {:>+7.1}% {:>+7.1}%  {relative}",
                    row.session_tokens,
                    row.calls,
                    vs(per_turn),
                    vs(cache_aware),
                );
                let line = format!(
                    "{relative} cost: cache-aware {cache_aware:.4} USD is {:+.1}% against none ({none:.4}) and {:+.1}% against per-turn ({per_turn:.4})",
                    vs(cache_aware),
                    100.0 * (cache_aware / per_turn.max(f64::MIN_POSITIVE) - 1.0),
                );
                if cache_aware >= per_turn || cache_aware >= none {
                    failures.push(format!(
                        "{line}: cache-aware reduction must cost less than both"
                    ));
                } else if vs(cache_aware) > -COST_TARGET_PERCENT {
                    missed.push(line);
                }
            }
            Ok(_) => {}
            Err(reason) => {
                println!("cost FAILED  {relative}: {reason}");
                failures.push(format!("{relative} cost: {reason}"));
            }
        }
    }
    println!(
        "target (issue 18): cache-aware --preset aggressive costs less than per-turn and than no reduction (checked), and at least {COST_TARGET_PERCENT}% less than no reduction (reported), on every session over {LARGE_SESSION_TOKENS} tokens"
    );
    for m in &missed {
        println!("  missed {COST_TARGET_PERCENT}%: {m}");
    }
    Ok(())
}

/// One session's figures from `rehydrate cost --json`.
#[derive(Debug, Clone, PartialEq)]
struct CostRow {
    session_tokens: u64,
    calls: u64,
    /// USD of none, per-turn and cache-aware.
    cost_usd: [f64; 3],
}

/// Runs `rehydrate cost` on `file` with the aggressive preset and the 5-minute Anthropic
/// pricing, and reads its `--json` report.
fn cost(bin: &Path, file: &Unit) -> Result<std::result::Result<CostRow, String>> {
    let output = Command::new(bin)
        .arg("cost")
        .args(file.args())
        .args([
            "--preset",
            "aggressive",
            "--pricing",
            "anthropic-5m",
            "--json",
        ])
        .output()
        .map_err(|err| format!("cannot start {}: {err}", bin.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr.lines().next().unwrap_or("(no message)").to_owned();
        return Ok(Err(format!("`rehydrate cost` failed: {line}")));
    }
    Ok(parse_cost(&output.stdout))
}

/// The figures of a `cost --json` report; an error when one is missing, the strategies are
/// not none, per-turn, cache-aware in that order, or a strategy's tokens do not add up.
fn parse_cost(stdout: &[u8]) -> std::result::Result<CostRow, String> {
    let report: Value =
        serde_json::from_slice(stdout).map_err(|err| format!("cost --json: {err}"))?;
    let session_tokens = report["session_tokens"]
        .as_u64()
        .ok_or("cost --json has no `session_tokens`")?;
    let strategies = report["strategies"]
        .as_array()
        .ok_or("cost --json has no `strategies`")?;
    let names: Vec<&str> = strategies
        .iter()
        .filter_map(|s| s["strategy"].as_str())
        .collect();
    if names != ["none", "per-turn", "cache-aware"] {
        return Err(format!("cost --json strategies are {names:?}"));
    }
    let mut cost_usd = [0.0; 3];
    let mut calls = 0;
    for (slot, s) in cost_usd.iter_mut().zip(strategies) {
        let totals = &s["totals"];
        let field = |name: &str| {
            totals[name]
                .as_u64()
                .ok_or_else(|| format!("cost --json totals have no `{name}`"))
        };
        let (input, read, write, uncached) = (
            field("input_tokens")?,
            field("cache_read")?,
            field("cache_write")?,
            field("uncached")?,
        );
        if read + write + uncached != input {
            return Err(format!(
                "cost --json: {read} read + {write} written + {uncached} uncached is not {input} input tokens"
            ));
        }
        calls = field("calls")?;
        *slot = totals["cost_usd"]
            .as_f64()
            .ok_or("cost --json totals have no `cost_usd`")?;
    }
    Ok(CostRow {
        session_tokens,
        calls,
        cost_usd,
    })
}

/// Sessions over this many tokens are the long ones the savings table reports.
const LARGE_SESSION_TOKENS: u64 = 50_000;

/// The share of tokens the aggressive preset must save on every long session (issue 17); a
/// session under it fails the check.
const SAVINGS_TARGET_PERCENT: f64 = 70.0;

/// One session's row of the savings table: tokens before and after, and the tokens each kind
/// saved (`reduce --json`'s `savings_by_kind`), by kind token.
#[derive(Debug, Clone, PartialEq)]
struct Savings {
    before: u64,
    after: u64,
    by_kind: Vec<(String, i64)>,
}

impl Savings {
    fn saved_percent(&self) -> f64 {
        if self.before == 0 {
            return 0.0;
        }
        100.0 * (self.before as f64 - self.after as f64) / self.before as f64
    }

    /// `before → after (saved)  kind share, ...`, each kind's share of the tokens before.
    fn columns(&self) -> String {
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(kind, tokens)| {
                format!(
                    "{kind} {:.1}%",
                    100.0 * *tokens as f64 / self.before.max(1) as f64
                )
            })
            .collect();
        format!(
            "{:>13} → {:<13} {:>7.1}%  {:<48}",
            self.before,
            self.after,
            self.saved_percent(),
            kinds.join(", ")
        )
    }
}

/// Reduces `file` with `preset`, tokens counted, into `scratch`, and reads the
/// savings from its `--json` report.
fn savings(
    bin: &Path,
    file: &Unit,
    preset: &str,
    scratch: &Path,
) -> Result<std::result::Result<Savings, String>> {
    let output = Command::new(bin)
        .arg("reduce")
        .args(file.args())
        .arg("--out")
        .arg(scratch)
        .args(["--force", "--preset", preset, "--json"])
        .output()
        .map_err(|err| format!("cannot start {}: {err}", bin.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr.lines().next().unwrap_or("(no message)").to_owned();
        return Ok(Err(format!("`rehydrate reduce` failed: {line}")));
    }
    Ok(parse_savings(&output.stdout))
}

/// The savings of a `reduce --json` report; an error when a figure is missing or the kinds do
/// not add up to the report's tokens saved.
fn parse_savings(stdout: &[u8]) -> std::result::Result<Savings, String> {
    let report: Value =
        serde_json::from_slice(stdout).map_err(|err| format!("reduce --json: {err}"))?;
    let field = |name: &str| {
        report[name]
            .as_u64()
            .ok_or_else(|| format!("reduce --json has no `{name}`"))
    };
    let (before, after) = (field("tokens_before")?, field("tokens_after")?);
    let kinds = report["savings_by_kind"]
        .as_object()
        .ok_or("reduce --json has no `savings_by_kind`")?;
    let mut by_kind = Vec::new();
    for (kind, saved) in kinds {
        let tokens = saved["tokens"]
            .as_i64()
            .ok_or_else(|| format!("savings_by_kind.{kind} has no tokens"))?;
        by_kind.push((kind.clone(), tokens));
    }
    let sum: i64 = by_kind.iter().map(|(_, t)| t).sum();
    if sum != before as i64 - after as i64 {
        return Err(format!(
            "savings_by_kind adds up to {sum} tokens, the report saves {}",
            before as i64 - after as i64
        ));
    }
    Ok(Savings {
        before,
        after,
        by_kind,
    })
}

/// `REHYDRATE_CORPUS`, or `shared/corpus` next to the workspace root.
fn corpus_dir(root: &Path) -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("REHYDRATE_CORPUS") {
        return Ok(PathBuf::from(dir));
    }
    let parent = root
        .parent()
        .ok_or_else(|| format!("workspace root {} has no parent", root.display()))?;
    Ok(parent.join("shared").join("corpus"))
}

/// Appends every session file under `dir` (recursively) to `files`.
fn collect_sessions(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let entries = fs::read_dir(dir)
        .map_err(|err| format!("cannot read directory {}: {err}", dir.display()))?;
    for entry in entries {
        let entry =
            entry.map_err(|err| format!("cannot read directory {}: {err}", dir.display()))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|err| format!("cannot stat {}: {err}", path.display()))?;
        if kind.is_dir() {
            collect_sessions(&path, files)?;
        } else if path
            .extension()
            .is_some_and(|ext| EXTENSIONS.iter().any(|wanted| ext == *wanted))
        {
            files.push(path);
        }
    }
    Ok(())
}

/// `REHYDRATE_BIN`, or the release CLI built now.
fn rehydrate_bin(root: &Path) -> Result<PathBuf> {
    if let Some(bin) = std::env::var_os("REHYDRATE_BIN").filter(|bin| !bin.is_empty()) {
        return Ok(PathBuf::from(bin));
    }
    crate::bench::build_cli(root)?;
    let metadata = cmd::metadata(root)?;
    let target = cmd::string(&metadata, "target_directory", "cargo metadata")?;
    let bin = format!("rehydrate{}", std::env::consts::EXE_SUFFIX);
    Ok(Path::new(target).join("release").join(bin))
}

/// Runs one roundtrip: `Ok(Ok(figures))` when it passed, `Ok(Err(reason))` when it failed.
///
/// # Errors
///
/// When `bin` cannot be started at all (the whole check stops).
fn roundtrip(
    bin: &Path,
    file: &Unit,
    preset: &str,
) -> Result<std::result::Result<Figures, String>> {
    let output = Command::new(bin)
        .arg("roundtrip")
        .args(file.args())
        .args(["--preset", preset, "--json"])
        .output()
        .map_err(|err| format!("cannot start {}: {err}", bin.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let message = stderr.lines().find(|line| !line.trim().is_empty());
    if !output.status.success() {
        let how = match output.status.code() {
            Some(1) => "exit code 1 (mismatch)".to_owned(),
            Some(2) => "exit code 2 (bad input)".to_owned(),
            Some(code) => format!("exit code {code}"),
            None => "killed by a signal".to_owned(),
        };
        let message = message.unwrap_or("(no message on stderr)");
        return Ok(Err(format!("{how}: {message}")));
    }
    Ok(
        parse_output(&output.stdout).map_err(|reason| match message {
            Some(message) => format!("{reason}; stderr: {message}"),
            None => reason,
        }),
    )
}

/// Reduces `file` under `preset` into `scratch`, then exports the directory to both request
/// bodies, inverted (repaired, the repairs read from `--json`) and with `--view`; each export
/// checks its body against the API's rules before writing it, so success means four valid
/// bodies. `Ok(Ok(summary))` names the repairs by kind (`-` for none); the repairs are the
/// same for both APIs, or this fails.
///
/// # Errors
///
/// When `bin` cannot be started, or `scratch` cannot be cleared.
fn bodies(
    bin: &Path,
    unit: &Unit,
    preset: &str,
    scratch: &Path,
) -> Result<std::result::Result<String, String>> {
    if scratch.exists() {
        fs::remove_dir_all(scratch)
            .map_err(|err| format!("cannot remove {}: {err}", scratch.display()))?;
    }
    let run = |args: &[&str]| -> Result<std::result::Result<std::process::Output, String>> {
        let output = Command::new(bin)
            .args(args)
            .output()
            .map_err(|err| format!("cannot start {}: {err}", bin.display()))?;
        if output.status.success() {
            return Ok(Ok(output));
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let message = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("(no message)");
        Ok(Err(format!(
            "`rehydrate {}` failed: {message}",
            args.join(" ")
        )))
    };
    let file = &unit.path;
    let file_arg = file.display().to_string();
    let out = scratch.display().to_string();
    let session = unit.session.map(|n| n.to_string());
    let mut reduce = vec!["reduce", &file_arg];
    if let Some(n) = &session {
        reduce.extend(["--session", n]);
    }
    reduce.extend(["--out", &out, "--preset", preset, "--no-tokens", "--json"]);
    let reduced = match run(&reduce)? {
        Ok(output) => output,
        Err(reason) => return Ok(Err(reason)),
    };
    let format = match serde_json::from_slice::<Value>(&reduced.stdout) {
        Ok(report) => report["format"].as_str().unwrap_or_default().to_owned(),
        Err(err) => return Ok(Err(format!("reduce --json printed no report: {err}"))),
    };
    // A format rehydrate writes comes back whole: every reduction inverted, each record
    // group given back as it was read, so the export is the file.
    let mut back = "";
    if WRITTEN_FORMATS.contains(&format.as_str()) {
        let output = match run(&["export", &out, "--to", &format])? {
            Ok(output) => output,
            Err(reason) => return Ok(Err(reason)),
        };
        let original = fs::read(file).map_err(|err| format!("cannot read {file_arg}: {err}"))?;
        // A JSON document comes back as the same JSON value, a JSONL file byte for byte.
        let same_value = format != "codex"
            && serde_json::from_slice::<Value>(&output.stdout).ok()
                == Some(serde_json::from_slice::<Value>(&original)?);
        if output.stdout != original && !same_value {
            let at = output
                .stdout
                .iter()
                .zip(&original)
                .take_while(|(a, b)| a == b)
                .count();
            return Ok(Err(format!(
                "export --to {format} is not the file: {} bytes against {}, first difference at byte {at}",
                output.stdout.len(),
                original.len()
            )));
        }
        back = ", back";
    }
    let mut summaries = Vec::new();
    for api in ["openai", "anthropic"] {
        if let Err(reason) = run(&["export", &out, "--to", api, "--view"])? {
            return Ok(Err(reason));
        }
        let output = match run(&["export", &out, "--to", api, "--json"])? {
            Ok(output) => output,
            Err(reason) => return Ok(Err(reason)),
        };
        let report: Value = match serde_json::from_slice(&output.stderr) {
            Ok(report) => report,
            Err(err) => return Ok(Err(format!("export --json printed no report: {err}"))),
        };
        let mut kinds = std::collections::BTreeMap::<String, usize>::new();
        for r in report["repairs"].as_array().into_iter().flatten() {
            *kinds
                .entry(r["kind"].as_str().unwrap_or("?").to_owned())
                .or_default() += 1;
        }
        let summary: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        summaries.push(if summary.is_empty() {
            "-".to_owned()
        } else {
            summary.join(", ")
        });
    }
    if summaries[0] != summaries[1] {
        return Ok(Err(format!(
            "repairs differ: openai {}, anthropic {}",
            summaries[0], summaries[1]
        )));
    }
    let mut summary = summaries.swap_remove(0);
    summary.push_str(back);
    Ok(Ok(summary))
}

/// Runs `rehydrate replay <FILE> --json`: `Ok(Ok([proven, retracted, inert]))` when it passed.
///
/// # Errors
///
/// When `bin` cannot be started at all.
fn replay(bin: &Path, file: &Unit) -> Result<std::result::Result<[u64; 3], String>> {
    let output = Command::new(bin)
        .arg("replay")
        .args(file.args())
        .arg("--json")
        .output()
        .map_err(|err| format!("cannot start {}: {err}", bin.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let message = stderr.lines().find(|line| !line.trim().is_empty());
        return Ok(Err(format!(
            "exit code {:?}: {}",
            output.status.code(),
            message.unwrap_or("(no message on stderr)")
        )));
    }
    Ok(parse_replay(&output.stdout))
}

/// Runs `rehydrate evidence <FILE> --json`: `Ok(Ok(Some([turns, bytes_before, bytes_after])))`
/// when it projected, `Ok(Ok(None))` when it refused with evidence-too-large (exit 3).
///
/// # Errors
///
/// When `bin` cannot be started at all.
fn evidence(bin: &Path, file: &Unit) -> Result<std::result::Result<Option<[u64; 3]>, String>> {
    let output = Command::new(bin)
        .arg("evidence")
        .args(file.args())
        .arg("--json")
        .output()
        .map_err(|err| format!("cannot start {}: {err}", bin.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => Ok(parse_evidence(&output.stdout).map(Some)),
        Some(3) if stderr.contains("evidence-too-large") => Ok(Ok(None)),
        code => {
            let message = stderr.lines().find(|line| !line.trim().is_empty());
            Ok(Err(format!(
                "exit code {code:?}: {}",
                message.unwrap_or("(no message on stderr)")
            )))
        }
    }
}

/// The turns and byte sizes `rehydrate evidence --json` printed, checked against its turns.
fn parse_evidence(stdout: &[u8]) -> std::result::Result<[u64; 3], String> {
    let value: Value = serde_json::from_slice(stdout)
        .map_err(|err| format!("stdout is not one JSON object: {err}"))?;
    let stat = |key: &str| {
        value["stats"][key]
            .as_u64()
            .ok_or_else(|| format!("`stats.{key}` is missing or not a count"))
    };
    let counts = [stat("turns")?, stat("bytes_before")?, stat("bytes_after")?];
    let turns = value["turns"]
        .as_array()
        .ok_or("`turns` is missing or not an array")?;
    if turns.len() as u64 != counts[0] {
        return Err(format!("{} turns but stats say {}", turns.len(), counts[0]));
    }
    Ok(counts)
}

/// The path counts `rehydrate replay --json` printed, checked against its records.
fn parse_replay(stdout: &[u8]) -> std::result::Result<[u64; 3], String> {
    let value: Value = serde_json::from_slice(stdout)
        .map_err(|err| format!("stdout is not one JSON object: {err}"))?;
    let count = |key: &str| {
        value["paths"][key]
            .as_u64()
            .ok_or_else(|| format!("`paths.{key}` is missing or not a count"))
    };
    let counts = [count("proven")?, count("retracted")?, count("inert")?];
    let records = value["records"]
        .as_array()
        .ok_or("`records` is missing or not an array")?;
    if records.len() as u64 != counts[0] {
        return Err(format!(
            "{} records but {} proven paths",
            records.len(),
            counts[0]
        ));
    }
    Ok(counts)
}

/// The figures in the JSON object `rehydrate roundtrip --json` printed, or why it is not a pass.
fn parse_output(stdout: &[u8]) -> std::result::Result<Figures, String> {
    let value: Value = serde_json::from_slice(stdout)
        .map_err(|err| format!("stdout is not one JSON object: {err}"))?;
    let number = |key: &str| {
        value[key]
            .as_u64()
            .ok_or_else(|| format!("`{key}` is missing or not a count in {value}"))
    };
    let figures = Figures {
        messages: number("messages")?,
        tokens_before: number("tokens_before")?,
        tokens_after: number("tokens_after")?,
        reductions: number("reductions")?,
    };
    match value["ok"].as_bool() {
        Some(true) => Ok(figures),
        Some(false) => Err("reported \"ok\": false".to_owned()),
        None => Err(format!("`ok` is missing or not a boolean in {value}")),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        CostRow, Presets, Savings, parse_cost, parse_evidence, parse_output, parse_replay,
        parse_savings,
    };

    #[test]
    fn parses_evidence_stats() {
        let out = br#"{"turns":[{}],"stats":{"turns":1,"bytes_before":90,"bytes_after":40}}"#;
        assert_eq!(parse_evidence(out), Ok([1, 90, 40]));
        let wrong = br#"{"turns":[],"stats":{"turns":1,"bytes_before":90,"bytes_after":40}}"#;
        assert_eq!(
            parse_evidence(wrong),
            Err("0 turns but stats say 1".to_owned())
        );
    }

    #[test]
    fn parses_replay_counts() {
        let out = br#"{"records":[{"path":"/a"}],"paths":{"proven":1,"retracted":2,"inert":0}}"#;
        assert_eq!(parse_replay(out), Ok([1, 2, 0]));
        let wrong = br#"{"records":[],"paths":{"proven":1,"retracted":2,"inert":0}}"#;
        assert_eq!(
            parse_replay(wrong),
            Err("0 records but 1 proven paths".to_owned())
        );
    }

    #[test]
    fn parses_a_passing_run() {
        let out = br#"{"file":"a.jsonl","format":"claude-code","preset":"default","messages":4,
            "tokens_before":200,"tokens_after":50,"bytes_before":900,"bytes_after":300,
            "reductions":2,"expanded":2,"ok":true}"#;
        let figures = parse_output(out).map_err(|err| format!("unexpected failure: {err}"));
        assert_eq!(
            figures.map(|f| (f.messages, f.saved_percent())),
            Ok((4, 75.0))
        );
    }

    #[test]
    fn rejects_ok_false_and_missing_fields() {
        let not_ok =
            br#"{"messages":1,"tokens_before":1,"tokens_after":1,"reductions":0,"ok":false}"#;
        assert_eq!(
            parse_output(not_ok).err(),
            Some(r#"reported "ok": false"#.to_owned())
        );
        assert_eq!(
            parse_output(br#"{"ok":true}"#).err(),
            Some(r#"`messages` is missing or not a count in {"ok":true}"#.to_owned())
        );
    }

    #[test]
    fn parses_savings_and_checks_they_add_up() {
        let report = br#"{"tokens_before":1000,"tokens_after":300,"savings_by_kind":{"duplicate":{"shown":1,"bytes":90,"tokens":200},"tool-output":{"shown":2,"bytes":2000,"tokens":500}}}"#;
        let row = parse_savings(report).unwrap();
        assert_eq!(
            row,
            Savings {
                before: 1000,
                after: 300,
                by_kind: vec![("duplicate".into(), 200), ("tool-output".into(), 500)],
            }
        );
        assert_eq!(
            row.columns().trim_end(),
            "         1000 → 300              70.0%  duplicate 20.0%, tool-output 50.0%"
        );
        let off = br#"{"tokens_before":1000,"tokens_after":300,"savings_by_kind":{"tool-output":{"shown":1,"bytes":9,"tokens":600}}}"#;
        assert_eq!(
            parse_savings(off).unwrap_err(),
            "savings_by_kind adds up to 600 tokens, the report saves 700"
        );
        assert_eq!(
            parse_savings(br#"{"tokens_before":1}"#).unwrap_err(),
            "reduce --json has no `tokens_after`"
        );
    }

    #[test]
    fn parses_cost_and_checks_the_tokens_add_up() {
        let totals = |cost: f64, read: u64| {
            format!(
                r#"{{"calls": 4, "input_tokens": 100, "cache_read": {read}, "cache_write": {}, "uncached": 0, "cost_usd": {cost}}}"#,
                100 - read
            )
        };
        let report = |third: &str| {
            format!(
                r#"{{"session_tokens": 60000, "strategies": [{{"strategy": "none", "totals": {}}}, {{"strategy": "per-turn", "totals": {}}}, {{"strategy": "cache-aware", "totals": {third}}}]}}"#,
                totals(1.0, 90),
                totals(0.8, 10)
            )
        };
        assert_eq!(
            parse_cost(report(&totals(0.5, 50)).as_bytes()),
            Ok(CostRow {
                session_tokens: 60000,
                calls: 4,
                cost_usd: [1.0, 0.8, 0.5]
            })
        );
        let bad = r#"{"calls": 4, "input_tokens": 100, "cache_read": 1, "cache_write": 1, "uncached": 0, "cost_usd": 1}"#;
        assert_eq!(
            parse_cost(report(bad).as_bytes()),
            Err("cost --json: 1 read + 1 written + 0 uncached is not 100 input tokens".to_owned())
        );
        assert!(parse_cost(b"{}").is_err());
    }

    #[test]
    fn parses_presets() {
        assert_eq!(Presets::parse("both"), Some(Presets::Both));
        assert_eq!(Presets::Both.names(), ["default", "aggressive"]);
        assert_eq!(Presets::parse("fast"), None);
    }
}
