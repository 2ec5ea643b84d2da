//! `rehydrate inspect`: what a session file holds.

use std::path::Path;

use rehydrate::formats::{Format, write_back};
use rehydrate::model::Role;

use crate::checks::wire_bytes;
use crate::failure::Failure;
use crate::load;
use crate::output::{print_json, print_stdout};
use crate::term::shown;
use crate::tokens::TokenCounter;

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
    /// Whether writing the messages in the file's own format gives the file back:
    /// `bytes`, `value` (the same JSON value), `differs` or `no-writer`.
    writes_back: &'static str,
    warnings: Vec<String>,
}

/// The stdout object of `inspect --json` for a file that holds several sessions.
#[derive(serde::Serialize)]
struct SessionsReport {
    format: &'static str,
    sessions: Vec<rehydrate::formats::SessionEntry>,
}

pub(crate) fn inspect(path: &Path, pick: load::Pick, json: bool) -> Result<(), Failure> {
    let bytes = load::read(path)?;
    if pick.session.is_none() {
        let (format, sessions) =
            rehydrate::formats::list_sessions(load::name(path), &bytes, pick.format)?;
        if sessions.len() > 1 {
            return list(path, format, sessions, json);
        }
    }
    let imported = load::import_bytes(path, &bytes, pick)?;
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
        writes_back: write_back(imported.format, &bytes, m).as_str(),
        warnings: imported.warnings.iter().map(ToString::to_string).collect(),
    };
    if json {
        return print_json(&report);
    }
    let o = format!(
        "{}\nformat        {}\nmessages      {} (system {}, user {} of which observations {}, assistant {}, tool {})\ntool calls    {}\nbytes         {}\ntokens        {} (o200k_base)\nwrites back   {}\nwarnings      {}\n",
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
        match report.writes_back {
            "bytes" => "byte for byte".to_string(),
            "value" => "as the same JSON value".to_string(),
            "differs" => "no: written back, the session differs from the file".to_string(),
            _ => format!("no writer for {}", report.format),
        },
        report.warnings.len()
    );
    print_stdout(o.as_bytes())
}

/// Lists the sessions of a file that holds several, one line each: number, line, label.
fn list(
    path: &Path,
    format: Format,
    sessions: Vec<rehydrate::formats::SessionEntry>,
    json: bool,
) -> Result<(), Failure> {
    if json {
        return print_json(&SessionsReport {
            format: format.as_str(),
            sessions,
        });
    }
    let mut o = format!(
        "{}\nformat        {format}\nsessions      {} (inspect or reduce one with --session N)\n",
        shown(path),
        sessions.len()
    );
    for s in &sessions {
        let mut label = String::new();
        crate::term::push_printable(&mut label, &s.label, false);
        o.push_str(&format!("  {:>4}  line {:<6} {label}\n", s.number, s.line));
    }
    print_stdout(o.as_bytes())
}
