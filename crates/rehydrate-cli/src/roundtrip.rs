//! `rehydrate roundtrip`: the corpus-check harness (a hidden subcommand `cargo xtask corpus`
//! runs): reduce in memory and check everything.

use std::path::Path;

use rehydrate::formats::write_back;
use rehydrate::model::{Message, ReductionKind, ReductionLog};
use rehydrate::reduce::project_messages;
use rehydrate::sidecar::{expand_reduction, render_turns};

use crate::checks::{check_projection, wire_bytes};
use crate::cli::Preset;
use crate::failure::Failure;
use crate::load;
use crate::output::{print_json, print_stdout};
use crate::term::shown;
use crate::tokens::TokenCounter;

/// The stdout object of `roundtrip --json`, read by `cargo xtask corpus`.
#[derive(serde::Serialize)]
struct RoundtripReport {
    file: String,
    /// The session's number, for a file of several read with `--all-sessions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<usize>,
    format: &'static str,
    preset: &'static str,
    messages: usize,
    tokens_before: usize,
    tokens_after: usize,
    bytes_before: usize,
    bytes_after: usize,
    reductions: usize,
    expanded: usize,
    /// Whether writing the imported messages in the file's own format gives the file back:
    /// `bytes`, `value` (the same JSON value), `differs` or `no-writer`.
    writes_back: &'static str,
    ok: bool,
}

/// Runs the check on the session `pick` names, or with `all_sessions` on every session of the
/// file in turn (one report each, numbered; the failures of all are reported together).
pub(crate) fn roundtrip(
    path: &Path,
    pick: load::Pick,
    preset: Preset,
    json: bool,
    all_sessions: bool,
) -> Result<(), Failure> {
    let bytes = load::read(path)?;
    let mut counter = TokenCounter::new();
    if !all_sessions {
        let imported = load::import_bytes(path, &bytes, pick)?;
        return check(path, &bytes, &imported, None, preset, json, &mut counter);
    }
    // Every session read in one pass over the file (a history of a thousand sessions is not
    // split a thousand times).
    let (_, sessions) = rehydrate::formats::import_sessions(load::name(path), &bytes, pick.format)?;
    let mut failures = Vec::new();
    for (k, imported) in sessions.iter().enumerate() {
        let number = k + 1;
        load::print_warnings(path, &imported.warnings);
        match check(
            path,
            &bytes,
            imported,
            Some(number),
            preset,
            json,
            &mut counter,
        ) {
            Ok(()) => {}
            Err(Failure::Verify(each)) => {
                failures.extend(each.into_iter().map(|f| format!("session {number}: {f}")))
            }
            Err(other) => return Err(other),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Failure::Verify(failures))
    }
}

/// The check of one imported session (`session`: its number in a file of several).
fn check(
    path: &Path,
    bytes: &[u8],
    imported: &rehydrate::formats::Import,
    session: Option<usize>,
    preset: Preset,
    json: bool,
    counter: &mut TokenCounter,
) -> Result<(), Failure> {
    let messages = &imported.messages;
    let policy = preset.policy();
    let out = project_messages(messages, &ReductionLog::default(), &policy);
    let view: Vec<&Message> = out.view.iter().collect();
    check_projection(messages, &view, &out.log)?;

    let mut failures = Vec::new();
    let mut expanded = 0;
    for r in &out.log.reductions {
        let expected = match r.kind {
            ReductionKind::TurnsCleared { first, last, .. }
            | ReductionKind::Compaction { first, last, .. } => {
                render_turns(&messages[first..=last], first)
            }
            ReductionKind::ToolOutputTruncated { .. }
            | ReductionKind::AssistantTextTruncated { .. }
            | ReductionKind::DuplicateOutput { .. }
            | ReductionKind::Superseded { .. }
            | ReductionKind::FileReadElided { .. }
            | ReductionKind::FileReadDiffed { .. }
            | ReductionKind::OutputNormalized { .. } => messages[r.ptr.addr.index]
                .content_text()
                .unwrap_or_default()
                .to_string(),
            ReductionKind::UnansweredCall { call, .. } => messages[r.ptr.addr.index]
                .tool_calls
                .get(call)
                .map(|c| c.arguments.clone())
                .unwrap_or_default(),
            // The field's string value, read by serde_json on its own.
            ReductionKind::ToolInputElided {
                call, ref field, ..
            } => messages[r.ptr.addr.index]
                .tool_calls
                .get(call)
                .and_then(|c| serde_json::from_str::<serde_json::Value>(&c.arguments).ok())
                .and_then(|v| v.get(field.as_str())?.as_str().map(str::to_string))
                .unwrap_or_default(),
            // Each hidden part as serde_json writes it compactly (keys sorted), one per line.
            ReductionKind::ImageRedacted { ref images, .. } => {
                match &messages[r.ptr.addr.index].content {
                    Some(rehydrate::model::Content::Parts(parts)) => images
                        .iter()
                        .filter_map(|i| parts.get(i.part))
                        .map(|p| format!("{p}\n"))
                        .collect(),
                    _ => String::new(),
                }
            }
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
    let encoded = rehydrate::store::dir::encode(&out.view, &out.log, messages);
    let view_back: Result<Vec<Message>, _> = serde_json::from_slice(&encoded.view);
    let log_back: Result<ReductionLog, _> = serde_json::from_slice(&encoded.log);
    let store_back =
        rehydrate::store::parse_store(Path::new("sidecar/session.rhyd"), &encoded.store);
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

    let report = RoundtripReport {
        file: crate::term::json_path(path),
        session,
        format: imported.format.as_str(),
        preset: preset.as_str(),
        messages: messages.len(),
        tokens_before: counter.count(messages),
        tokens_after: counter.count(&out.view),
        bytes_before: wire_bytes(messages),
        bytes_after: wire_bytes(&out.view),
        reductions: out.log.len(),
        expanded,
        writes_back: write_back(imported.format, bytes, messages).as_str(),
        ok: true,
    };
    if json {
        print_json(&report)
    } else {
        print_stdout(
            format!(
                "ok {} ({}, {}): {} messages, {} -> {} tokens, {} reductions expanded, writes back: {}\n",
                report.file,
                report.format,
                report.preset,
                report.messages,
                report.tokens_before,
                report.tokens_after,
                report.expanded,
                report.writes_back
            )
            .as_bytes(),
        )
    }
}
