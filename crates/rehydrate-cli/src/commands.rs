//! The subcommands.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use rehydrate_model::{Message, ReductionKind, ReductionLog, Role};
use rehydrate_reduce::{Projection, ReductionPolicy, project_messages};
use rehydrate_sidecar::{expand_reduction, invert, render_turns, verify_log};

use crate::cli::{Cli, Command, Preset, ReduceArgs};
use crate::failure::{Failure, input};
use crate::tokens::TokenCounter;
use crate::{load, session_dir};

pub(crate) fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Reduce(args) => reduce(&args),
        Command::Expand { dir, id, range } => expand(&dir, &id, range.as_deref()),
        Command::Verify { dir } => verify(&dir),
        Command::Inspect {
            transcript,
            format,
            json,
        } => inspect(&transcript, format.format(), json),
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
    tokens_before: usize,
    tokens_after: usize,
    verified: bool,
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
            .map_err(|e| input(format!("cannot read summary file {}: {e}", path.display())))?;
        let text = text.trim_end();
        if text.is_empty() {
            return Err(input(format!("summary file {} is empty", path.display())));
        }
        policy.turns_summary = Some(text.to_string());
    }
    Ok(policy)
}

fn wire_bytes(messages: &[Message]) -> usize {
    messages.iter().map(Message::wire_len).sum()
}

/// Checks a projection against the messages it was made from: every reduction verifies and
/// the view inverts to exactly `messages`.
fn check_projection(messages: &[Message], out: &Projection) -> Result<(), Failure> {
    let mut failures: Vec<String> = verify_log(&out.log, messages)
        .iter()
        .map(ToString::to_string)
        .collect();
    // invert checks every view message against the imported messages as well.
    if let Err(e) = invert(&out.view, &out.log, messages) {
        failures.push(e.to_string());
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Failure::Verify(failures))
    }
}

fn reduce(args: &ReduceArgs) -> Result<(), Failure> {
    let imported = load::import(&args.transcript, args.format.format())?;
    let policy = policy_of(args)?;
    let messages = imported.messages;
    let out = project_messages(&messages, &ReductionLog::default(), &policy);
    check_projection(&messages, &out)?;

    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.rehydrate", args.transcript.display())));
    session_dir::refuse_overwriting(&dir, &args.transcript)?;
    let encoded = session_dir::encode(&out.view, &out.log, &messages);
    session_dir::write(
        &dir,
        &args.transcript,
        imported.format.as_str(),
        &encoded,
        messages.len(),
    )?;

    let counter = TokenCounter::new();
    let report = ReduceReport {
        format: imported.format.as_str(),
        messages: messages.len(),
        bytes_before: wire_bytes(&messages),
        bytes_after: wire_bytes(&out.view),
        tokens_before: counter.count(&messages),
        tokens_after: counter.count(&out.view),
        verified: true,
        out: dir.display().to_string(),
        warnings: imported.warnings.iter().map(ToString::to_string).collect(),
        reductions: out
            .log
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
    let mut by_kind = std::collections::BTreeMap::<&str, usize>::new();
    for r in &report.reductions {
        *by_kind.entry(r.kind).or_default() += 1;
    }
    let kinds: Vec<String> = by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let pct = |before: usize, after: usize| {
        if before == 0 {
            0.0
        } else {
            100.0 * (before as f64 - after as f64) / before as f64
        }
    };
    let mut o = String::new();
    o.push_str(&format!(
        "{} ({}) -> {}\n",
        args.transcript.display(),
        report.format,
        report.out
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "", "messages", "bytes", "tokens"
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "before", report.messages, report.bytes_before, report.tokens_before
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>12}{:>10}\n",
        "after",
        out.view.len(),
        report.bytes_after,
        report.tokens_after
    ));
    o.push_str(&format!(
        "{:<8}{:>10}{:>11.1}%{:>9.1}%\n",
        "saved",
        "",
        pct(report.bytes_before, report.bytes_after),
        pct(report.tokens_before, report.tokens_after)
    ));
    o.push_str(&format!(
        "reductions: {}{}, all verified\n",
        report.reductions.len(),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        }
    ));
    print_stdout(o.as_bytes())
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
    let out = expand_reduction(&loaded.log, &loaded.sidecar, id, range)?;
    print_stdout(out.content.as_bytes())
}

fn verify(dir: &Path) -> Result<(), Failure> {
    let loaded = session_dir::read(dir)?;
    let mut failures = loaded.file_mismatches.clone();
    failures.extend(
        verify_log(&loaded.log, &loaded.sidecar)
            .iter()
            .map(ToString::to_string),
    );
    // invert checks every view message against the sidecar as well. A reduction that failed
    // above fails invert with the same error: report it once.
    if let Err(e) = invert(&loaded.view, &loaded.log, &loaded.sidecar)
        && !failures.contains(&e.to_string())
    {
        failures.push(e.to_string());
    }
    if !failures.is_empty() {
        return Err(Failure::Verify(failures));
    }
    let n = loaded.log.len();
    print_stdout(
        format!(
            "verified {n} {}; the view inverts to the sidecar's {} messages\n",
            if n == 1 { "reduction" } else { "reductions" },
            loaded.manifest.messages
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

fn inspect(
    path: &Path,
    format: Option<rehydrate_formats::Format>,
    json: bool,
) -> Result<(), Failure> {
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
        path.display(),
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
    format: Option<rehydrate_formats::Format>,
    preset: Preset,
    json: bool,
) -> Result<(), Failure> {
    let imported = load::import(path, format)?;
    let messages = &imported.messages;
    let policy = preset.policy();
    let out = project_messages(messages, &ReductionLog::default(), &policy);
    check_projection(messages, &out)?;

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
    let messages_back =
        session_dir::parse_messages(Path::new("sidecar/messages.jsonl"), &encoded.messages);
    if view_back.ok().as_ref() != Some(&out.view) {
        failures.push("view.json does not read back equal".to_string());
    }
    if log_back.ok().as_ref() != Some(&out.log) {
        failures.push("reductions.json does not read back equal".to_string());
    }
    if messages_back.ok().as_ref() != Some(messages) {
        failures.push("sidecar/messages.jsonl does not read back equal".to_string());
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
        let file = path.display().to_string();
        return Err(Failure::Verify(
            failures
                .into_iter()
                .map(|f| format!("{file}: {f}"))
                .collect(),
        ));
    }

    let counter = TokenCounter::new();
    let report = RoundtripReport {
        file: path.display().to_string(),
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

fn print_json<T: serde::Serialize>(value: &T) -> Result<(), Failure> {
    let mut bytes = serde_json::to_vec(value).expect("reports always serialize");
    bytes.push(b'\n');
    print_stdout(&bytes)
}

/// Writes to stdout. A closed pipe (`rehydrate expand ... | head`) is not an error; any other
/// write error (a full disk) is.
fn print_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(input(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}
