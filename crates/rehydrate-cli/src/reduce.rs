//! `rehydrate reduce`: import, project, check and write an output directory; several files
//! and directories at once through [`batch`].

mod batch;
mod inputs;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc;

use rehydrate::formats::{Format, Warning};
use rehydrate::model::{Message, ReductionLog};
use rehydrate::reduce::{Reducer, ReductionPolicy};
use rehydrate::store::SessionDir;
use rehydrate::store::dir::{DirWriter, OpenStore, Staged};

use crate::checks::{check_projection, check_view, join, wire_bytes};
use crate::cli::ReduceArgs;
use crate::failure::{Failure, input};
use crate::load;
use crate::output::{print_json, print_stdout};
use crate::savings::{KindSavings, savings_by_kind};
use crate::term::shown;
use crate::tokens::TokenCounter;

/// One reduction in `reduce --json`.
#[derive(serde::Serialize)]
struct ReductionReport {
    id: String,
    kind: &'static str,
    index: usize,
    original_bytes: usize,
}

/// The stdout object of `reduce --json` (docs/FORMATS.md, "CLI JSON"), and one file's entry of
/// it over several files.
#[derive(serde::Serialize)]
struct ReduceReport {
    /// The session file; set (and shown first) only among several files.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    format: &'static str,
    messages: usize,
    bytes_before: usize,
    bytes_after: usize,
    /// `None` (null) with `--no-tokens`.
    tokens_before: Option<usize>,
    /// `None` (null) with `--no-tokens`.
    tokens_after: Option<usize>,
    verified: bool,
    /// Whether the view is a valid OpenAI and Anthropic request body (`false`: a defect no
    /// pairing repair covers, named in the warnings, or an empty session).
    valid_request_body: bool,
    out: String,
    warnings: Vec<String>,
    reductions: Vec<ReductionReport>,
    /// What the reductions of each kind the view shows saved; they add up to the view's
    /// savings (docs/FORMATS.md, "CLI JSON").
    savings_by_kind: BTreeMap<&'static str, KindSavings>,
}

fn policy_of(args: &ReduceArgs) -> Result<ReductionPolicy, Failure> {
    let mut policy = args.preset.policy();
    if let Some(n) = args.trigger_bytes {
        policy.tool_output_trigger_bytes = n;
    }
    if let Some(n) = args.head_bytes {
        policy.head_bytes = n;
    }
    if let Some(n) = args.tail_bytes {
        policy.tail_bytes = n;
    }
    if let Some(n) = args.protect {
        policy.protect_last_n_tool_results = n;
    }
    if let Some(n) = args.min_saved_bytes {
        policy.min_saved_bytes = n;
    }
    if args.no_dedupe {
        policy.dedupe_outputs = false;
    }
    if args.clear_turns_older_than == Some(0) {
        return Err(input(
            "--clear-turns-older-than must be at least 1: clearing every turn would hide the current request",
        ));
    }
    policy.clear_turns_older_than = args.clear_turns_older_than;
    if let Some(follow) = args.follow_compactions {
        policy.follow_compactions = follow;
    }
    if let Some(path) = &args.summary_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| input(format!("cannot read summary file {}: {e}", shown(path))))?;
        let text = text.trim_end();
        if text.is_empty() {
            return Err(input(format!("summary file {} is empty", shown(path))));
        }
        policy.turns_summary = Some(text.to_string());
    }
    Ok(policy)
}

/// Messages per batch handed between the stages of [`import_into`].
const BATCH_MESSAGES: usize = 64;

/// Batches in flight between two stages of [`import_into`].
const BATCHES_IN_FLIGHT: usize = 4;

/// Imports the session file's `bytes` into `reducer` (one `project` call, as for the whole
/// session at once) while staging the sidecar in `out`. Three stages run at once: the importer
/// hands each message over as soon as it is read, the sidecar writer writes it to
/// `sidecar/session.rhyd` (a session store) under its temporary name and passes it on, and the reducer takes
/// it into its history (and counts its wire bytes while it waits for the next one).
fn import_into(
    reducer: &mut Reducer,
    path: &Path,
    args: &ReduceArgs,
    out: &DirWriter,
    bytes: Vec<u8>,
) -> ImportedInto {
    std::thread::scope(|scope| {
        let (to_writer, writer_input) = mpsc::sync_channel(BATCHES_IN_FLIGHT);
        let (to_reducer, reducer_input) = mpsc::sync_channel(BATCHES_IN_FLIGHT);
        // Each stage owns its sender, so a stage that ends closes the next one's input. The
        // importer owns the file's bytes, which are dropped as soon as it is done.
        let importer = scope.spawn(move || {
            let mut batch = Vec::with_capacity(BATCH_MESSAGES);
            let mut each = |m| {
                batch.push(m);
                if batch.len() == BATCH_MESSAGES {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH_MESSAGES));
                    // A writer that hung up has failed on its own and reports that.
                    let _ = to_writer.send(full);
                }
            };
            let pick = args.input.pick();
            let imported = match pick.session {
                None => rehydrate::formats::import_each(
                    load::name(path),
                    &bytes,
                    pick.format,
                    &mut each,
                ),
                // One session of several: imported whole, then handed over.
                Some(_) => rehydrate::formats::import_session(
                    load::name(path),
                    &bytes,
                    pick.format,
                    pick.session,
                )
                .map(|imported| {
                    imported.messages.into_iter().for_each(&mut each);
                    (imported.format, imported.warnings)
                }),
            };
            let _ = to_writer.send(batch);
            imported
        });
        let writer = scope.spawn(move || {
            // A reducer that hung up has failed on its own; nothing is lost here.
            out.stage_messages(writer_input, |batch| {
                let _ = to_reducer.send(batch);
            })
        });
        let mut wire_bytes_before = 0;
        let messages = reducer_input.into_iter().flatten();
        reducer.project(messages.inspect(|m| wire_bytes_before += m.wire_len()));
        // view.json is a finished artifact: a call still waiting at the end gets its
        // synthetic result, so the view is a valid request body.
        reducer.close();
        ImportedInto {
            import: join(importer),
            sidecar: join(writer).map_err(Failure::from),
            wire_bytes_before,
        }
    })
}

/// What [`import_into`] gives back besides the projection.
struct ImportedInto {
    /// The format and the warnings, or why the file cannot be imported.
    import: Result<(Format, Vec<Warning>), rehydrate::formats::Error>,
    /// The sidecar store with its messages staged, or why it could not be staged.
    sidecar: Result<OpenStore, Failure>,
    /// The wire bytes of the messages projected.
    wire_bytes_before: usize,
}

/// Checks the projection while the log and the view are staged next to the staged `sidecar`
/// (and only there: never next to a session file the directory would overwrite). Returns the
/// three staged files and the wire bytes of the view. Nothing is put in place here.
fn check_and_stage(
    out: &DirWriter,
    history: &[Message],
    view: &[&Message],
    log: &ReductionLog,
    sidecar: Result<OpenStore, Failure>,
) -> Result<([Staged; 3], usize), Failure> {
    std::thread::scope(|scope| {
        let staging = sidecar.map(|sidecar| {
            scope.spawn(|| {
                Ok::<_, Failure>([
                    out.finish_store(sidecar, log)?,
                    out.stage_log(log)?,
                    out.stage_view(view.iter().copied())?,
                ])
            })
        });
        let checked = check_projection(history, view, log);
        let bytes = wire_bytes(view.iter().copied());
        let staging = staging.map(join);
        checked?;
        let staged = staging??;
        Ok((staged, bytes))
    })
}

/// `rehydrate reduce`: one session file as ever, or several files and directories
/// ([`batch::reduce_all`]).
pub(crate) fn reduce(args: &ReduceArgs) -> Result<(), Failure> {
    match args.transcripts.as_slice() {
        [path] if !inputs::is_directory(path) => reduce_one(args, path),
        _ => batch::reduce_all(args),
    }
}

/// `reduce` of the one session file `path` (`-` for stdin): its report or table on stdout.
fn reduce_one(args: &ReduceArgs, path: &Path) -> Result<(), Failure> {
    let policy = match policy_of(args) {
        Ok(policy) => policy,
        Err(e) => {
            // A bad session file is reported before a bad policy (as when the file was read
            // first): on this path only, the file is checked, its messages dropped as read.
            load::check(path, args.input.pick())?;
            return Err(e);
        }
    };
    let dir = match &args.out {
        Some(dir) => dir.clone(),
        None => SessionDir::default_path(path).ok_or_else(|| input(no_default_dir(path)))?,
    };
    let mut counter = (!args.no_tokens).then(TokenCounter::new);
    let reduced = reduce_file(args, path, &dir, policy, counter.as_mut(), &mut |line| {
        eprintln!("{line}");
    })?;
    if args.json {
        return print_json(&reduced.report);
    }
    print_stdout(reduce_table(path, &reduced.report, reduced.view_messages).as_bytes())
}

/// The bad-input line saying that the session `path` has no default output directory.
fn no_default_dir(path: &Path) -> String {
    format!(
        "{} is not a regular file, so there is no default output directory next to it; pass --out DIR",
        shown(load::name(path))
    )
}

/// Why [`reduce_file`] wrote no output directory.
enum NotReduced {
    /// The format was to be detected and the file is in none rehydrate reads: a directory's
    /// walk skips such a file.
    UnknownFormat(Failure),
    /// Any other failure.
    Failed(Failure),
}

impl From<Failure> for NotReduced {
    fn from(failure: Failure) -> Self {
        NotReduced::Failed(failure)
    }
}

impl From<NotReduced> for Failure {
    fn from(not: NotReduced) -> Self {
        match not {
            NotReduced::UnknownFormat(failure) | NotReduced::Failed(failure) => failure,
        }
    }
}

/// What [`reduce_file`] gives back.
struct Reduced {
    /// The report `--json` prints.
    report: ReduceReport,
    /// Messages in the view.
    view_messages: usize,
}

/// Reduces the session file `path` into the output directory `dir` under `policy`: import,
/// project, check, and put every file in place. Each warning line (`warning: …`, for stderr)
/// goes to `warn` as it arises; tokens are counted with `counter` (none without one).
fn reduce_file(
    args: &ReduceArgs,
    path: &Path,
    dir: &Path,
    policy: ReductionPolicy,
    mut counter: Option<&mut TokenCounter>,
    warn: &mut dyn FnMut(String),
) -> Result<Reduced, NotReduced> {
    // The directory is taken (and refused, when it is not ours to replace) before the
    // session is read, and stays locked until the new directory is swapped in.
    let lock = SessionDir::create(dir, path, args.force).map_err(Failure::from)?;
    for stale in lock.removed() {
        warn(format!(
            "warning: {}: removed a temporary file an interrupted run left",
            shown(stale)
        ));
    }
    for note in lock.notes() {
        warn(format!("warning: {note}"));
    }
    let bytes = match load::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            lock.abandon();
            return Err(e.into());
        }
    };
    let mut reducer = Reducer::new(policy);
    let ImportedInto {
        import,
        sidecar,
        wire_bytes_before: bytes_before,
    } = import_into(&mut reducer, path, args, &lock, bytes);
    // On failure, staged files are dropped first (which removes them), then an output
    // directory left empty.
    let (format, mut warnings) = match import {
        Ok(imported) => imported,
        Err(e) => {
            drop(sidecar);
            lock.abandon();
            return Err(match e {
                rehydrate::formats::Error::UnknownFormat { .. } => {
                    NotReduced::UnknownFormat(e.into())
                }
                e => NotReduced::Failed(e.into()),
            });
        }
    };
    session_warnings(reducer.history(), &mut warnings);
    load::warning_lines(path, &warnings).for_each(&mut *warn);
    // The view borrows every message it does not reduce from the history.
    let view: Vec<&Message> = reducer.view().iter().collect();
    let (history, log) = (reducer.history(), reducer.log());
    let (staged, bytes_after) = match check_and_stage(&lock, history, &view, log, sidecar) {
        Ok(staged) => staged,
        Err(e) => {
            lock.abandon();
            return Err(e.into());
        }
    };
    // A defect no pairing repair covers leaves the view an invalid body: said before success.
    let mut valid_request_body = !history.is_empty();
    if !history.is_empty() {
        let checked = check_view(&view);
        valid_request_body = checked.violations.is_empty() && checked.sendable == [true, true];
        let mut lines = checked.violations;
        if checked.sendable == [true, false] {
            lines.push(
                "the session holds only system text: its view is no valid Anthropic request body"
                    .to_string(),
            );
        }
        for line in lines {
            let message = format!("{line} (no pairing repair covers it)");
            warn(format!(
                "warning: {}: {}",
                shown(load::name(path)),
                crate::term::printable(&message)
            ));
            warnings.push(Warning {
                line: None,
                message,
            });
        }
    }
    // Success is reported only once every file and then the manifest are in place.
    let left = lock
        .commit(load::name(path), format.as_str(), history.len(), staged)
        .map_err(Failure::from)?;
    for warning in left {
        warn(format!("warning: {warning}"));
    }

    let (tokens_before, tokens_after) = match &mut counter {
        None => (None, None),
        Some(counter) => (
            Some(counter.count(history)),
            Some(counter.count(view.iter().copied())),
        ),
    };
    let savings_by_kind = savings_by_kind(history, &view, log, counter);
    let report = ReduceReport {
        file: None,
        format: format.as_str(),
        messages: history.len(),
        bytes_before,
        bytes_after,
        tokens_before,
        tokens_after,
        verified: true,
        valid_request_body,
        out: crate::term::json_path(dir),
        warnings: warnings.iter().map(ToString::to_string).collect(),
        savings_by_kind,
        reductions: log
            .reductions
            .iter()
            .map(|r| ReductionReport {
                id: r.id.as_str().to_string(),
                kind: r.kind.stub_kind().as_str(),
                index: r.ptr.addr.index,
                original_bytes: r.kind.original_bytes(),
            })
            .collect(),
    };
    Ok(Reduced {
        report,
        view_messages: view.len(),
    })
}

/// Warnings about the session as a whole, which no importer can see: an empty session (its
/// view is no request body), and a session that holds stubs already (a `view.json` given
/// back to `reduce`: its stubs are content here, and the originals behind them are not in it).
fn session_warnings(history: &[Message], warnings: &mut Vec<Warning>) {
    if history.is_empty() {
        warnings.push(Warning {
            line: None,
            message: "the session holds no messages: there is nothing to reduce, and its view is no valid request body".to_string(),
        });
        return;
    }
    let stubs = history
        .iter()
        .filter(|m| {
            // A stub on a line of its own, as a view writes it (a `cat view.json` result holds
            // stubs inside JSON strings instead, which is content).
            m.content_text().is_some_and(|t| {
                t.contains(rehydrate::model::STUB_SENTINEL)
                    && t.lines().any(|line| {
                        line.starts_with(rehydrate::model::STUB_SENTINEL)
                            && rehydrate::model::Stub::parse(line).is_ok()
                    })
            })
        })
        .count();
    if stubs > 0 {
        warnings.push(Warning {
            line: None,
            message: format!(
            "{stubs} {} a rehydrate stub already (is this a view.json?): stubs are kept as content, and the originals behind them are not in this file; reduce the original session instead",
                if stubs == 1 { "message is" } else { "messages are" }
            ),
        });
    }
}

/// The summary table `reduce` prints without `--json`; token cells are `-` when tokens were
/// not counted.
fn reduce_table(path: &Path, report: &ReduceReport, view_len: usize) -> String {
    let mut by_kind = std::collections::BTreeMap::<&str, usize>::new();
    for r in &report.reductions {
        *by_kind.entry(r.kind).or_default() += 1;
    }
    let kinds: Vec<String> = by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let mut o = String::new();
    o.push_str(&format!(
        "{} ({}) -> {}\n",
        shown(load::name(path)),
        report.format,
        // `out` is the JSON form; the terminal gets it escaped.
        shown(Path::new(&report.out))
    ));
    o.push_str(&figures_table(&Figures {
        messages_before: report.messages,
        messages_after: view_len,
        bytes_before: report.bytes_before,
        bytes_after: report.bytes_after,
        tokens_before: report.tokens_before,
        tokens_after: report.tokens_after,
    }));
    o.push_str(&format!(
        "reductions: {}{}, all verified{}\n",
        report.reductions.len(),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        if report.valid_request_body {
            ""
        } else {
            "; the view is no valid request body (see the warnings)"
        }
    ));
    o
}

/// The figures of [`figures_table`]: one session's, or the sum over several.
#[derive(Debug, Default)]
struct Figures {
    /// Imported messages.
    messages_before: usize,
    /// Messages in the view.
    messages_after: usize,
    /// Wire bytes of the imported messages.
    bytes_before: usize,
    /// Wire bytes of the view.
    bytes_after: usize,
    /// Tokens of the imported messages; `None` when not counted.
    tokens_before: Option<usize>,
    /// Tokens of the view; `None` when not counted.
    tokens_after: Option<usize>,
}

/// The before, after and saved rows of messages, bytes and tokens (`-` where tokens were not
/// counted), under their header.
fn figures_table(figures: &Figures) -> String {
    let tokens = |n: Option<usize>| n.map_or_else(|| "-".to_string(), |n| n.to_string());
    let tokens_saved = match (figures.tokens_before, figures.tokens_after) {
        (Some(before), Some(after)) => saved_percent(before, after),
        _ => "-".to_string(),
    };
    let mut o = String::new();
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "", "messages", "bytes", "tokens"
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "before",
        figures.messages_before,
        figures.bytes_before,
        tokens(figures.tokens_before)
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "after",
        figures.messages_after,
        figures.bytes_after,
        tokens(figures.tokens_after)
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "saved",
        "",
        saved_percent(figures.bytes_before, figures.bytes_after),
        tokens_saved
    ));
    o
}

/// What `after` saves of `before`, in percent to one decimal (`0.0%` of nothing).
fn saved_percent(before: usize, after: usize) -> String {
    let saved = if before == 0 {
        0.0
    } else {
        100.0 * (before as f64 - after as f64) / before as f64
    };
    format!("{saved:.1}%")
}
