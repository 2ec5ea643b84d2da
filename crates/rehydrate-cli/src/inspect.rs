//! `rehydrate inspect`: what a session file holds.

use std::path::Path;

use rehydrate::formats::Format;
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
    warnings: Vec<String>,
}

pub(crate) fn inspect(path: &Path, format: Option<Format>, json: bool) -> Result<(), Failure> {
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
