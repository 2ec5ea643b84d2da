//! The subcommands.

use std::io::Write as _;
use std::path::Path;
use std::sync::mpsc;

use rehydrate_formats::{Format, Warning};
use rehydrate_model::{Message, ReductionKind, ReductionLog, Role};
use rehydrate_reduce::{Reducer, ReductionPolicy, project_messages};
use rehydrate_search::{SearchMode, SearchOptions, SearchResult, sidecar_search};
use rehydrate_sidecar::{
    Api, Rule, check_inverts, check_request, expand_reduction, render_turns, verify_log,
};

use crate::cli::{Cli, Command, Preset, ReduceArgs};
use crate::failure::{Failure, input};
use crate::term::{push_printable, shown};
use crate::tokens::TokenCounter;
use crate::{evidence, export, intrinsics, load, replay, session_dir, signals};

pub(crate) fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Reduce(args) => reduce(&args),
        Command::Expand { dir, id, range } => expand(&dir, &id, range.as_deref()),
        Command::Search {
            dir,
            query,
            regex,
            literal,
            case_sensitive,
            json,
        } => {
            let mode = match (regex, literal) {
                (true, _) => SearchMode::Regex,
                (_, true) => SearchMode::Literal,
                _ => SearchMode::Auto,
            };
            let options = SearchOptions {
                mode,
                case_sensitive,
                ..SearchOptions::default()
            };
            search(&dir, &query, &options, json)
        }
        Command::Verify { dir, json } => verify(&dir, json),
        Command::Repair { dir } => repair(&dir),
        Command::Export {
            dir,
            to,
            view,
            strict,
            json,
        } => export::run(&dir, to, view, strict, json),
        Command::Signals { dir, json } => signals::run(&dir, json),
        Command::Tools { format } => intrinsics::tools(format.format()),
        Command::Call {
            dir,
            tool,
            arguments,
        } => intrinsics::call(&dir, &tool, &arguments),
        Command::Inspect {
            transcript,
            format,
            json,
        } => inspect(&transcript, format.format(), json),
        Command::Replay {
            transcript,
            format,
            json,
        } => replay::run(&transcript, format.format(), json),
        Command::Evidence {
            transcript,
            format,
            max_input_bytes,
            json,
        } => evidence::run(&transcript, format.format(), max_input_bytes, json),
        Command::Roundtrip {
            transcript,
            format,
            preset,
            json,
        } => roundtrip(&transcript, format.format(), preset, json),
    }
}

/// One reduction in `reduce --json`.
#[derive(serde::Serialize)]
struct ReductionReport<'a> {
    id: &'a str,
    kind: &'static str,
    index: usize,
    original_bytes: usize,
}

/// The stdout object of `reduce --json` (docs/FORMATS.md, "CLI JSON").
#[derive(serde::Serialize)]
struct ReduceReport<'a> {
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
    reductions: Vec<ReductionReport<'a>>,
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

/// Checks a projection against the messages it was made from: every reduction verifies and
/// the view inverts to exactly `messages`. Nothing is copied; the two checks run in parallel.
fn check_projection(
    messages: &[Message],
    view: &[&Message],
    log: &ReductionLog,
) -> Result<(), Failure> {
    let (log_errors, inverted) = std::thread::scope(|scope| {
        let log_errors = scope.spawn(|| verify_log(log, messages));
        // check_inverts checks every view message against the imported messages as well.
        let inverted = check_inverts(view.iter().copied(), log, messages);
        (join(log_errors), inverted)
    });
    let mut failures: Vec<String> = log_errors.iter().map(ToString::to_string).collect();
    if let Err(e) = inverted {
        failures.push(e.to_string());
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Failure::Verify(failures))
    }
}

/// The result of a scoped thread; a panic in it continues in the caller.
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Messages per batch handed between the stages of [`import_into`].
const BATCH_MESSAGES: usize = 64;

/// Batches in flight between two stages of [`import_into`].
const BATCHES_IN_FLIGHT: usize = 4;

/// Imports the session file's `bytes` into `reducer` (one `project` call, as for the whole
/// session at once) while staging the sidecar in `dir`. Three stages run at once: the importer
/// hands each message over as soon as it is read, the sidecar writer writes it to
/// `sidecar/session.rhyd` (a session store) under its temporary name and passes it on, and the reducer takes
/// it into its history (and counts its wire bytes while it waits for the next one).
fn import_into(
    reducer: &mut Reducer,
    args: &ReduceArgs,
    dir: &Path,
    bytes: Vec<u8>,
) -> ImportedInto {
    let path = &args.transcript;
    std::thread::scope(|scope| {
        let (to_writer, writer_input) = mpsc::sync_channel(BATCHES_IN_FLIGHT);
        let (to_reducer, reducer_input) = mpsc::sync_channel(BATCHES_IN_FLIGHT);
        // Each stage owns its sender, so a stage that ends closes the next one's input. The
        // importer owns the file's bytes, which are dropped as soon as it is done.
        let importer = scope.spawn(move || {
            let mut batch = Vec::with_capacity(BATCH_MESSAGES);
            let imported = rehydrate_formats::import_each(
                load::name(path),
                &bytes,
                args.format.format(),
                &mut |m| {
                    batch.push(m);
                    if batch.len() == BATCH_MESSAGES {
                        let full =
                            std::mem::replace(&mut batch, Vec::with_capacity(BATCH_MESSAGES));
                        // A writer that hung up has failed on its own and reports that.
                        let _ = to_writer.send(full);
                    }
                },
            );
            let _ = to_writer.send(batch);
            imported
        });
        let writer =
            scope.spawn(move || session_dir::stage_messages(dir, writer_input, &to_reducer));
        let mut wire_bytes_before = 0;
        let messages = reducer_input.into_iter().flatten();
        reducer.project(messages.inspect(|m| wire_bytes_before += m.wire_len()));
        // view.json is a finished artifact: a call still waiting at the end gets its
        // synthetic result, so the view is a valid request body.
        reducer.close();
        ImportedInto {
            import: join(importer),
            sidecar: join(writer),
            wire_bytes_before,
        }
    })
}

/// What [`import_into`] gives back besides the projection.
struct ImportedInto {
    /// The format and the warnings, or why the file cannot be imported.
    import: Result<(Format, Vec<Warning>), rehydrate_formats::Error>,
    /// The sidecar store with its messages staged, or why it could not be staged.
    sidecar: Result<session_dir::OpenStore, Failure>,
    /// The wire bytes of the messages projected.
    wire_bytes_before: usize,
}

/// Checks the projection while the log and the view are staged next to the staged `sidecar`
/// (and only there: never next to a session file the directory would overwrite). Returns the
/// three staged files and the wire bytes of the view. Nothing is put in place here.
fn check_and_stage(
    dir: &Path,
    history: &[Message],
    view: &[&Message],
    log: &ReductionLog,
    sidecar: Result<session_dir::OpenStore, Failure>,
) -> Result<([session_dir::Staged; 3], usize), Failure> {
    std::thread::scope(|scope| {
        let staging = sidecar.map(|sidecar| {
            scope.spawn(|| {
                Ok::<_, Failure>([
                    session_dir::finish_store(sidecar, log)?,
                    session_dir::stage_log(dir, log)?,
                    session_dir::stage_view(dir, view.iter().copied())?,
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

fn reduce(args: &ReduceArgs) -> Result<(), Failure> {
    let path = &args.transcript;
    let policy = match policy_of(args) {
        Ok(policy) => policy,
        Err(e) => {
            // A bad session file is reported first, as when it was read before the policy.
            load::import(path, args.format.format())?;
            return Err(e);
        }
    };
    let dir = match &args.out {
        Some(dir) => dir.clone(),
        None => session_dir::default_out(path).ok_or_else(|| {
            input(format!(
                "{} is not a regular file, so there is no default output directory next to it; pass --out DIR",
                shown(load::name(path))
            ))
        })?,
    };
    // The directory is taken (and refused, when it is not ours to replace) before the
    // session is read, and stays locked until everything is renamed into place.
    let lock = session_dir::lock_for_writing(&dir, path, args.force)?;
    for stale in &lock.removed {
        eprintln!(
            "warning: {}: removed a temporary file an interrupted run left",
            shown(stale)
        );
    }
    let bytes = match load::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            lock.abandon();
            return Err(e);
        }
    };
    let mut reducer = Reducer::new(policy);
    let ImportedInto {
        import,
        sidecar,
        wire_bytes_before: bytes_before,
    } = import_into(&mut reducer, args, &dir, bytes);
    // On failure, staged files are dropped first (which removes them), then an output
    // directory left empty.
    let (format, mut warnings) = match import {
        Ok(imported) => imported,
        Err(e) => {
            drop(sidecar);
            lock.abandon();
            return Err(e.into());
        }
    };
    session_warnings(reducer.history(), &mut warnings);
    load::print_warnings(path, &warnings);
    // The view borrows every message it does not reduce from the history.
    let view: Vec<&Message> = reducer.view().iter().collect();
    let (history, log) = (reducer.history(), reducer.log());
    let (staged, bytes_after) = match check_and_stage(&dir, history, &view, log, sidecar) {
        Ok(staged) => staged,
        Err(e) => {
            lock.abandon();
            return Err(e);
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
            eprintln!(
                "warning: {}: {}",
                shown(load::name(path)),
                crate::term::printable(&message)
            );
            warnings.push(Warning {
                line: None,
                message,
            });
        }
    }
    // Success is reported only once every file and then the manifest are in place.
    session_dir::commit(
        &dir,
        load::name(path),
        format.as_str(),
        history.len(),
        staged,
    )?;
    drop(lock);

    let (tokens_before, tokens_after) = if args.no_tokens {
        (None, None)
    } else {
        let mut counter = TokenCounter::new();
        (
            Some(counter.count(history)),
            Some(counter.count(view.iter().copied())),
        )
    };
    let report = ReduceReport {
        format: format.as_str(),
        messages: history.len(),
        bytes_before,
        bytes_after,
        tokens_before,
        tokens_after,
        verified: true,
        valid_request_body,
        out: crate::term::json_path(&dir),
        warnings: warnings.iter().map(ToString::to_string).collect(),
        reductions: log
            .reductions
            .iter()
            .map(|r| ReductionReport {
                id: r.id.as_str(),
                kind: r.kind.stub_kind().as_str(),
                index: r.ptr.addr.index,
                original_bytes: r.kind.original_bytes(),
            })
            .collect(),
    };
    if args.json {
        return print_json(&report);
    }
    print_stdout(reduce_table(args, &report, view.len()).as_bytes())
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
                t.contains(rehydrate_model::STUB_SENTINEL)
                    && t.lines().any(|line| {
                        line.starts_with(rehydrate_model::STUB_SENTINEL)
                            && rehydrate_model::Stub::parse(line).is_ok()
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
fn reduce_table(args: &ReduceArgs, report: &ReduceReport<'_>, view_len: usize) -> String {
    let mut by_kind = std::collections::BTreeMap::<&str, usize>::new();
    for r in &report.reductions {
        *by_kind.entry(r.kind).or_default() += 1;
    }
    let kinds: Vec<String> = by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let pct = |before: usize, after: usize| {
        let saved = if before == 0 {
            0.0
        } else {
            100.0 * (before as f64 - after as f64) / before as f64
        };
        format!("{saved:.1}%")
    };
    let tokens = |n: Option<usize>| n.map_or_else(|| "-".to_string(), |n| n.to_string());
    let tokens_saved = match (report.tokens_before, report.tokens_after) {
        (Some(before), Some(after)) => pct(before, after),
        _ => "-".to_string(),
    };
    let mut o = String::new();
    o.push_str(&format!(
        "{} ({}) -> {}\n",
        shown(load::name(&args.transcript)),
        report.format,
        // `out` is the JSON form; the terminal gets it escaped.
        shown(Path::new(&report.out))
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "", "messages", "bytes", "tokens"
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "before",
        report.messages,
        report.bytes_before,
        tokens(report.tokens_before)
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "after",
        view_len,
        report.bytes_after,
        tokens(report.tokens_after)
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "saved",
        "",
        pct(report.bytes_before, report.bytes_after),
        tokens_saved
    ));
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

fn parse_range(text: &str) -> Result<(usize, usize), Failure> {
    let bad = || {
        input(format!(
            "invalid --range `{text}`: expected START..END with byte offsets, such as 0..4096"
        ))
    };
    let (start, end) = text.split_once("..").ok_or_else(bad)?;
    Ok((
        start.trim().parse().map_err(|_| bad())?,
        end.trim().parse().map_err(|_| bad())?,
    ))
}

fn expand(dir: &Path, id: &str, range: Option<&str>) -> Result<(), Failure> {
    let range = range.map(parse_range).transpose()?;
    let loaded = session_dir::read(dir)?;
    refuse_mismatched_files(&loaded)?;
    let out = expand_reduction(&loaded.log, &loaded.sidecar, id, range).map_err(|e| {
        // The id and range are the caller's: the error names the directory they were tried on.
        match Failure::from(e) {
            Failure::Input(line) => input(format!("{}: {line}", shown(dir))),
            other => other,
        }
    })?;
    print_stdout(out.content.as_bytes())
}

fn search(dir: &Path, query: &str, options: &SearchOptions, json: bool) -> Result<(), Failure> {
    let loaded = session_dir::read(dir)?;
    refuse_mismatched_files(&loaded)?;
    let result = sidecar_search(&loaded.log, &loaded.sidecar, query, options)
        .map_err(|e| input(e.to_string()))?;
    if json {
        let mut bytes = result.to_json().into_bytes();
        bytes.push(b'\n');
        print_stdout(&bytes)?;
    } else {
        print_stdout(render_search(&result).as_bytes())?;
    }
    // The answer came from what verifies; a reduction that does not is a failure all the same.
    if result.unresolvable > 0 {
        let mut failures: Vec<String> = verify_log(&loaded.log, &loaded.sidecar)
            .iter()
            .map(ToString::to_string)
            .collect();
        failures.push(format!(
            "{}: {} of {} reductions do not verify and were not searched",
            shown(dir),
            result.unresolvable,
            loaded.log.len()
        ));
        return Err(Failure::Verify(failures));
    }
    Ok(())
}

/// The human form of a search result: a summary line, then per match its reduction id and
/// kind and the snippet indented by two spaces.
fn render_search(result: &SearchResult) -> String {
    let total = result.total_matches;
    let shown = result.matches.len();
    let mut out = format!(
        "{total} {} ({})",
        if total == 1 { "match" } else { "matches" },
        result.mode.as_str()
    );
    if shown < total {
        out.push_str(&format!(", {shown} shown"));
    }
    if result.unresolvable > 0 {
        out.push_str(&format!(
            "; {} reductions do not verify and were not searched",
            result.unresolvable
        ));
    }
    out.push('\n');
    for m in &result.matches {
        out.push_str(&format!("{} {}\n", m.reduction_id, m.kind.as_str()));
        for line in m.snippet.lines() {
            out.push_str("  ");
            push_printable(&mut out, line, true);
            out.push('\n');
        }
    }
    out
}

/// A directory whose files differ from its manifest is a verification failure for every
/// command, not only `verify` (docs/FORMATS.md, "CLI JSON").
pub(crate) fn refuse_mismatched_files(loaded: &session_dir::SessionDir) -> Result<(), Failure> {
    if loaded.file_mismatches.is_empty() {
        Ok(())
    } else {
        Err(Failure::Verify(loaded.file_mismatches.clone()))
    }
}

/// The stdout object of `verify --json`.
#[derive(serde::Serialize)]
struct VerifyReport {
    dir: String,
    reductions: usize,
    messages: usize,
    /// Per API, whether the view holds a message its body carries (`false`: nothing to send).
    sendable: Sendable,
    verified: bool,
}

/// Per API, whether a view has a message to send.
#[derive(serde::Serialize)]
struct Sendable {
    openai: bool,
    anthropic: bool,
}

/// What [`check_view`] found.
struct ViewCheck {
    /// One line per rule of "Request validity" the view breaks, for either API, but for
    /// having no message at all.
    violations: Vec<String>,
    /// For OpenAI and Anthropic, whether the view holds a message the body carries.
    sendable: [bool; 2],
}

/// Checks a view as a request body of both APIs (docs/FORMATS.md, "Request validity").
fn check_view(view: &[impl std::borrow::Borrow<Message>]) -> ViewCheck {
    let mut checked = ViewCheck {
        violations: Vec::new(),
        sendable: [true, true],
    };
    for (k, api) in [Api::OpenAi, Api::Anthropic].into_iter().enumerate() {
        for v in check_request(view, api) {
            if v.rule == Rule::NoMessages {
                checked.sendable[k] = false;
            } else {
                checked
                    .violations
                    .push(format!("view.json is not a valid {api} request body: {v}"));
            }
        }
    }
    checked
}

fn verify(dir: &Path, json: bool) -> Result<(), Failure> {
    let loaded = session_dir::read(dir)?;
    let mut failures = loaded.file_mismatches.clone();
    failures.extend(
        verify_log(&loaded.log, &loaded.sidecar)
            .iter()
            .map(ToString::to_string),
    );
    // check_inverts checks every view message against the sidecar as well. A reduction that
    // failed above fails it with the same error: report it once.
    if let Err(e) = check_inverts(&loaded.view, &loaded.log, &loaded.sidecar)
        && !failures.contains(&e.to_string())
    {
        failures.push(e.to_string());
    }
    // The view is what a host sends: it must be a valid request body for both APIs. A view
    // with no message a body carries has nothing to send: not a failure, but said.
    let checked = check_view(&loaded.view);
    failures.extend(checked.violations);
    if !failures.is_empty() {
        return Err(Failure::Verify(failures));
    }
    let n = loaded.log.len();
    if json {
        return print_json(&VerifyReport {
            dir: crate::term::json_path(dir),
            reductions: n,
            messages: loaded.manifest.messages,
            sendable: Sendable {
                openai: checked.sendable[0],
                anthropic: checked.sendable[1],
            },
            verified: true,
        });
    }
    print_stdout(
        format!(
            "verified {n} {}; the view inverts to the sidecar's {} messages and {}\n",
            if n == 1 { "reduction" } else { "reductions" },
            loaded.manifest.messages,
            match checked.sendable {
                [true, true] => "is a valid OpenAI and Anthropic request body",
                [true, false] =>
                    "is a valid OpenAI request body, and holds no message an Anthropic body could carry besides the system text",
                [false, _] => "holds no message a request body could carry",
            }
        )
        .as_bytes(),
    )
}

/// The stdout object of `inspect --json`.
#[derive(serde::Serialize)]
struct InspectReport {
    format: &'static str,
    messages: usize,
    system: usize,
    user: usize,
    assistant: usize,
    tool: usize,
    observations: usize,
    tool_calls: usize,
    bytes: usize,
    tokens: usize,
    warnings: Vec<String>,
}

fn repair(dir: &Path) -> Result<(), Failure> {
    let session_dir::Repaired {
        lines,
        reductions,
        messages,
    } = session_dir::repair(dir)?;
    let mut out = String::new();
    if lines.is_empty() {
        out.push_str(&format!("{}: nothing to repair\n", shown(dir)));
    }
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!(
        "{}: verified: {reductions} {}, the view inverts to the sidecar's {messages} messages\n",
        shown(dir),
        if reductions == 1 {
            "reduction"
        } else {
            "reductions"
        }
    ));
    print_stdout(out.as_bytes())
}

fn inspect(path: &Path, format: Option<Format>, json: bool) -> Result<(), Failure> {
    let imported = load::import(path, format)?;
    let m = &imported.messages;
    let count = |role: Role| m.iter().filter(|x| x.role == role).count();
    let report = InspectReport {
        format: imported.format.as_str(),
        messages: m.len(),
        system: count(Role::System),
        user: count(Role::User),
        assistant: count(Role::Assistant),
        tool: count(Role::Tool),
        observations: m.iter().filter(|x| x.observation).count(),
        tool_calls: m.iter().map(|x| x.tool_calls.len()).sum(),
        bytes: wire_bytes(m),
        tokens: TokenCounter::new().count(m),
        warnings: imported.warnings.iter().map(ToString::to_string).collect(),
    };
    if json {
        return print_json(&report);
    }
    let o = format!(
        "{}\nformat        {}\nmessages      {} (system {}, user {} of which observations {}, assistant {}, tool {})\ntool calls    {}\nbytes         {}\ntokens        {} (o200k_base)\nwarnings      {}\n",
        shown(path),
        report.format,
        report.messages,
        report.system,
        report.user,
        report.observations,
        report.assistant,
        report.tool,
        report.tool_calls,
        report.bytes,
        report.tokens,
        report.warnings.len()
    );
    print_stdout(o.as_bytes())
}

/// The stdout object of `roundtrip --json`, read by `cargo xtask corpus`.
#[derive(serde::Serialize)]
struct RoundtripReport {
    file: String,
    format: &'static str,
    preset: &'static str,
    messages: usize,
    tokens_before: usize,
    tokens_after: usize,
    bytes_before: usize,
    bytes_after: usize,
    reductions: usize,
    expanded: usize,
    ok: bool,
}

fn roundtrip(
    path: &Path,
    format: Option<Format>,
    preset: Preset,
    json: bool,
) -> Result<(), Failure> {
    let imported = load::import(path, format)?;
    let messages = &imported.messages;
    let policy = preset.policy();
    let out = project_messages(messages, &ReductionLog::default(), &policy);
    let view: Vec<&Message> = out.view.iter().collect();
    check_projection(messages, &view, &out.log)?;

    let mut failures = Vec::new();
    let mut expanded = 0;
    for r in &out.log.reductions {
        let expected = match r.kind {
            ReductionKind::TurnsCleared { first, last, .. } => {
                render_turns(&messages[first..=last], first)
            }
            ReductionKind::ToolOutputTruncated { .. } | ReductionKind::DuplicateOutput { .. } => {
                messages[r.ptr.addr.index]
                    .content_text()
                    .unwrap_or_default()
                    .to_string()
            }
            ReductionKind::UnansweredCall { call, .. } => messages[r.ptr.addr.index]
                .tool_calls
                .get(call)
                .map(|c| c.arguments.clone())
                .unwrap_or_default(),
            ReductionKind::OrphanResult { .. }
            | ReductionKind::SecondAnswer { .. }
            | ReductionKind::MovedResult { .. }
            | ReductionKind::FoldedCalls { .. }
            | ReductionKind::ConversationOpened { .. } => {
                let i = r.ptr.addr.index;
                render_turns(&messages[i..=i], i)
            }
        };
        match expand_reduction(&out.log, messages, r.id.as_str(), None) {
            Ok(got) if got.content == expected => expanded += 1,
            Ok(_) => failures.push(format!(
                "reduction {}: expanded bytes differ from message {}",
                r.id, r.ptr.addr.index
            )),
            Err(e) => failures.push(e.to_string()),
        }
    }

    // The written formats read back equal.
    let encoded = session_dir::encode(&out.view, &out.log, messages);
    let view_back: Result<Vec<Message>, _> = serde_json::from_slice(&encoded.view);
    let log_back: Result<ReductionLog, _> = serde_json::from_slice(&encoded.log);
    let store_back =
        rehydrate_sidecar::parse_store(Path::new("sidecar/session.rhyd"), &encoded.store);
    if view_back.ok().as_ref() != Some(&out.view) {
        failures.push("view.json does not read back equal".to_string());
    }
    if log_back.ok().as_ref() != Some(&out.log) {
        failures.push("reductions.json does not read back equal".to_string());
    }
    match store_back {
        Ok((state, None)) if state.messages == *messages && state.log == out.log => {}
        _ => failures.push("sidecar/session.rhyd does not read back equal".to_string()),
    }

    // Projecting again over the same history and log changes nothing.
    let again = project_messages(messages, &out.log, &policy);
    if again.minted != 0 || again.view != out.view {
        failures.push(format!(
            "projection is not idempotent: a second pass minted {}",
            again.minted
        ));
    }
    if !failures.is_empty() {
        let file = shown(path);
        return Err(Failure::Verify(
            failures
                .into_iter()
                .map(|f| format!("{file}: {f}"))
                .collect(),
        ));
    }

    let mut counter = TokenCounter::new();
    let report = RoundtripReport {
        file: crate::term::json_path(path),
        format: imported.format.as_str(),
        preset: preset.as_str(),
        messages: messages.len(),
        tokens_before: counter.count(messages),
        tokens_after: counter.count(&out.view),
        bytes_before: wire_bytes(messages),
        bytes_after: wire_bytes(&out.view),
        reductions: out.log.len(),
        expanded,
        ok: true,
    };
    if json {
        print_json(&report)
    } else {
        print_stdout(
            format!(
                "ok {} ({}, {}): {} messages, {} -> {} tokens, {} reductions expanded\n",
                report.file,
                report.format,
                report.preset,
                report.messages,
                report.tokens_before,
                report.tokens_after,
                report.expanded
            )
            .as_bytes(),
        )
    }
}

pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> Result<(), Failure> {
    let mut bytes = serde_json::to_vec(value).expect("reports always serialize");
    bytes.push(b'\n');
    print_stdout(&bytes)
}

/// Whether the process was started with stdout closed (`>&-`). The Rust runtime opens
/// `/dev/null` read-write in place of a closed standard descriptor, so every write would
/// succeed and be lost; a `/dev/null` the shell opened for `>/dev/null` is write-only. Read
/// from `/proc` (Linux); elsewhere `false`.
pub(crate) fn stdout_is_closed() -> bool {
    let target = std::fs::read_link("/proc/self/fd/1");
    if !target.is_ok_and(|t| t == Path::new("/dev/null")) {
        return false;
    }
    let Ok(info) = std::fs::read_to_string("/proc/self/fdinfo/1") else {
        return false;
    };
    // `flags:` is octal; the access mode is its low two bits (2 = O_RDWR).
    info.lines()
        .find_map(|line| line.strip_prefix("flags:"))
        .and_then(|flags| u32::from_str_radix(flags.trim(), 8).ok())
        .is_some_and(|flags| flags & 0o3 == 0o2)
}

/// Writes to stdout. A closed pipe (`rehydrate expand ... | head`) is not an error; any other
/// write error (a full disk) is.
pub(crate) fn print_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(input(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// The total wire bytes of `messages` ([`Message::wire_len`]).
pub(crate) fn wire_bytes<'a>(messages: impl IntoIterator<Item = &'a Message>) -> usize {
    messages.into_iter().map(Message::wire_len).sum()
}
