//! `rehydrate reduce` over several session files (docs/FORMATS.md, "Several session files"):
//! `--jobs` worker threads take the next file from a shared queue and reduce it as a single
//! run would, the results are reported in input order whatever finishes first, a file that
//! fails fails alone, and a summary ends the run (exit 5 when some file failed).

use std::collections::BTreeMap;
use std::io::IsTerminal as _;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rehydrate::reduce::ReductionPolicy;

use super::inputs::{self, Session};
use super::{Figures, NotReduced, ReduceReport, Reduced, figures_table, policy_of, reduce_file};
use crate::cli::ReduceArgs;
use crate::failure::{Failure, input};
use crate::load;
use crate::output::{print_json, print_stdout};
use crate::term::{json_path, push_printable, shown};
use crate::tokens::TokenCounter;

/// What became of one session file.
struct Outcome {
    /// The warning lines for stderr, in the order a single run prints them.
    warnings: Vec<String>,
    /// Its reduction, or why it has none.
    result: Result<Reduced, NotReduced>,
}

/// The entry of one session file in `reduce --json` over several files.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum FileEntry {
    /// The single-file report, with `file` set.
    Reduced(ReduceReport),
    /// A file a directory's walk found in no format rehydrate reads.
    Skipped {
        file: String,
        /// Why: `unknown-format`.
        skipped: &'static str,
    },
    /// A file that failed.
    Failed {
        file: String,
        /// The error line of stderr, without its `error: `.
        error: String,
        /// The kind of failure ([`Failure::reason`]).
        reason: &'static str,
    },
}

/// The `summary` of `reduce --json` over several files: the sums are over the files reduced.
#[derive(Debug, Default, serde::Serialize)]
struct Summary {
    files: usize,
    reduced: usize,
    skipped: usize,
    failed: usize,
    messages: usize,
    bytes_before: usize,
    bytes_after: usize,
    /// `None` (null) with `--no-tokens`.
    tokens_before: Option<usize>,
    /// `None` (null) with `--no-tokens`.
    tokens_after: Option<usize>,
    /// Failed files by [`Failure::reason`].
    failures: BTreeMap<&'static str, usize>,
    /// Messages in the views (the table's `after` row), not in the JSON.
    #[serde(skip)]
    view_messages: usize,
}

/// The stdout object of `reduce --json` over several files.
#[derive(serde::Serialize)]
struct BatchReport {
    files: Vec<FileEntry>,
    summary: Summary,
}

/// `reduce` of several session files or directories: each session reduced on its own into
/// its output directory, `--jobs` at once.
pub(super) fn reduce_all(args: &ReduceArgs) -> Result<(), Failure> {
    let sessions = inputs::sessions(&args.transcripts, args.out.as_deref())?;
    let policy = policy_of(args)?;
    let jobs = match args.jobs {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
    }
    .min(sessions.len())
    .max(1);
    let bar = progress_bar(args, sessions.len());
    let mut tally = Tally {
        args,
        bar: &bar,
        summary: Summary {
            tokens_before: (!args.no_tokens).then_some(0),
            tokens_after: (!args.no_tokens).then_some(0),
            ..Summary::default()
        },
        entries: Vec::new(),
    };
    let next = AtomicUsize::new(0);
    let reported = std::thread::scope(|scope| {
        let (done, outcomes) = mpsc::channel();
        for _ in 0..jobs {
            let done = done.clone();
            let (next, sessions, policy) = (&next, &sessions, &policy);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(session) = sessions.get(i) else {
                        return;
                    };
                    let outcome = reduce_session(args, policy, session);
                    // A receiver that hung up has stopped reporting (stdout failed): take no
                    // more files.
                    if done.send((i, outcome)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        // An outcome waits here until every one before it in input order is reported.
        let mut waiting = BTreeMap::new();
        let mut reported = 0;
        for (i, outcome) in outcomes {
            bar.inc(1);
            waiting.insert(i, outcome);
            while let Some(outcome) = waiting.remove(&reported) {
                tally.add(&sessions[reported], outcome)?;
                reported += 1;
            }
        }
        Ok::<(), Failure>(())
    });
    bar.finish_and_clear();
    reported?;
    let Tally {
        summary, entries, ..
    } = tally;
    let (failed, files) = (summary.failed, summary.files);
    if args.json {
        print_json(&BatchReport {
            files: entries,
            summary,
        })?;
    } else {
        print_stdout(summary_table(&summary).as_bytes())?;
    }
    if failed > 0 {
        return Err(Failure::SomeFailed(format!(
            "{failed} of {} failed",
            counted(files, "session file")
        )));
    }
    Ok(())
}

/// Reduces one session, collecting its warning lines.
fn reduce_session(args: &ReduceArgs, policy: &ReductionPolicy, session: &Session) -> Outcome {
    let mut warnings = Vec::new();
    let result = match &session.out {
        Err(line) => Err(NotReduced::Failed(input(line.clone()))),
        Ok(dir) => {
            let mut counter = (!args.no_tokens).then(TokenCounter::new);
            reduce_file(
                args,
                &session.path,
                dir,
                policy.clone(),
                counter.as_mut(),
                &mut |line| warnings.push(line),
            )
        }
    };
    Outcome { warnings, result }
}

/// The progress bar on stderr: drawn only on a terminal and without `--json`.
fn progress_bar(args: &ReduceArgs, files: usize) -> ProgressBar {
    if args.json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(
        Some(u64::try_from(files).unwrap_or(u64::MAX)),
        ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} session files {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The run's report so far: each outcome printed as it comes, in input order, and added up.
struct Tally<'a> {
    args: &'a ReduceArgs,
    bar: &'a ProgressBar,
    summary: Summary,
    /// The `--json` entries (none without `--json`).
    entries: Vec<FileEntry>,
}

impl Tally<'_> {
    /// Reports the outcome of `session`: its warnings and any error on stderr, its line on
    /// stdout (without `--json`), its entry (with it), and adds it to the summary.
    fn add(&mut self, session: &Session, outcome: Outcome) -> Result<(), Failure> {
        let path = session.path.as_path();
        let file = json_path(load::name(path));
        let summary = &mut self.summary;
        summary.files += 1;
        let mut stderr_lines = outcome.warnings;
        let mut stdout_line = None;
        let entry = match outcome.result {
            Ok(Reduced {
                mut report,
                view_messages,
            }) => {
                summary.reduced += 1;
                summary.messages += report.messages;
                summary.view_messages += view_messages;
                summary.bytes_before += report.bytes_before;
                summary.bytes_after += report.bytes_after;
                let add = |sum: &mut Option<usize>, n: Option<usize>| {
                    if let (Some(sum), Some(n)) = (sum, n) {
                        *sum += n;
                    }
                };
                add(&mut summary.tokens_before, report.tokens_before);
                add(&mut summary.tokens_after, report.tokens_after);
                stdout_line = Some(reduced_line(path, &report));
                report.file = Some(file);
                FileEntry::Reduced(report)
            }
            // Only a detected format can be unknown: with --format every file is read as it.
            Err(NotReduced::UnknownFormat(_)) if session.found => {
                summary.skipped += 1;
                stdout_line = Some(format!(
                    "{}: skipped, in no session format rehydrate reads\n",
                    shown(load::name(path))
                ));
                FileEntry::Skipped {
                    file,
                    skipped: "unknown-format",
                }
            }
            Err(not) => {
                let failure = Failure::from(not);
                summary.failed += 1;
                *summary.failures.entry(failure.reason()).or_default() += 1;
                let error = error_line(path, &failure);
                stderr_lines.push(format!("error: {error}"));
                self.bar.set_message(format!("({} failed)", summary.failed));
                FileEntry::Failed {
                    file,
                    error,
                    reason: failure.reason(),
                }
            }
        };
        let json = self.args.json;
        self.bar.suspend(|| {
            for line in &stderr_lines {
                eprintln!("{line}");
            }
            match stdout_line {
                Some(line) if !json => print_stdout(line.as_bytes()),
                _ => Ok(()),
            }
        })?;
        if json {
            self.entries.push(entry);
        }
        Ok(())
    }
}

/// The one line naming `path` that says why it failed, as stderr shows it after `error: `:
/// the failure's lines joined with `; `, after the file's name unless they start with it (as
/// a word: followed by `:` or a space).
fn error_line(path: &Path, failure: &Failure) -> String {
    let mut text = String::new();
    push_printable(&mut text, &failure.lines().join("; "), true);
    let name = shown(load::name(path));
    match text.strip_prefix(name.as_str()) {
        Some(rest) if rest.starts_with(':') || rest.starts_with(' ') => text,
        _ => format!("{name}: {text}"),
    }
}

/// The stdout line of a reduced file: where its output went and its figures.
fn reduced_line(path: &Path, report: &ReduceReport) -> String {
    let tokens = match (report.tokens_before, report.tokens_after) {
        (Some(before), Some(after)) => format!(", {before} -> {after} tokens"),
        _ => String::new(),
    };
    format!(
        "{} ({}) -> {}: {}, {} -> {} bytes{tokens}, {}{}\n",
        shown(load::name(path)),
        report.format,
        shown(Path::new(&report.out)),
        counted(report.messages, "message"),
        report.bytes_before,
        report.bytes_after,
        counted(report.reductions.len(), "reduction"),
        if report.valid_request_body {
            ""
        } else {
            "; the view is no valid request body (see the warnings)"
        }
    )
}

/// `n` and the noun, plural unless `n` is 1.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The summary table that ends a run over several files without `--json`.
fn summary_table(summary: &Summary) -> String {
    let mut o = format!(
        "{}: {} reduced",
        counted(summary.files, "session file"),
        summary.reduced
    );
    if summary.skipped > 0 {
        o.push_str(&format!(", {} skipped", summary.skipped));
    }
    o.push_str(&format!(", {} failed\n", summary.failed));
    o.push_str(&figures_table(&Figures {
        messages_before: summary.messages,
        messages_after: summary.view_messages,
        bytes_before: summary.bytes_before,
        bytes_after: summary.bytes_after,
        tokens_before: summary.tokens_before,
        tokens_after: summary.tokens_after,
    }));
    if !summary.failures.is_empty() {
        let reasons: Vec<String> = summary
            .failures
            .iter()
            .map(|(reason, n)| format!("{reason} {n}"))
            .collect();
        o.push_str(&format!("failures: {}\n", reasons.join(", ")));
    }
    o
}
