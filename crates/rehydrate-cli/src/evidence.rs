//! `rehydrate evidence`: a session's per-turn evidence (docs/FORMATS.md, "CLI JSON",
//! "evidence").

use std::fmt::Write as _;
use std::path::Path;

use rehydrate::evidence::{Error, EvidenceOptions, EvidenceStats, EvidenceTurn, project_evidence};

use crate::failure::{Failure, input};
use crate::load;
use crate::output::{print_json, print_stdout};
use crate::term::{push_printable, shown};

/// The stdout object of `evidence --json`.
#[derive(serde::Serialize)]
struct EvidenceReport<'a> {
    projection_version: u32,
    turns: &'a [EvidenceTurn],
    stats: EvidenceStats,
}

pub(crate) fn run(
    path: &Path,
    pick: load::Pick,
    max_input_bytes: usize,
    json: bool,
) -> Result<(), Failure> {
    let bytes = load::read(path)?;
    let log = rehydrate::formats::import_events_session(
        load::name(path),
        &bytes,
        pick.format,
        pick.session,
    )?;
    load::print_warnings(path, &log.warnings);
    let options = EvidenceOptions { max_input_bytes };
    let evidence = project_evidence(&log.events, &[], &options).map_err(|e| match e {
        Error::EvidenceTooLarge { .. } => Failure::TooLarge(format!("{}: {e}", shown(path))),
        other => input(format!("{}: {other}", shown(path))),
    })?;
    if json {
        return print_json(&EvidenceReport {
            projection_version: evidence.projection_version,
            turns: &evidence.turns,
            stats: evidence.stats,
        });
    }
    let s = evidence.stats;
    let mut out = format!(
        "{} ({}): {} turns, {} events, {} -> {} bytes (projection v{})\n",
        shown(path),
        log.format,
        s.turns,
        s.events,
        s.bytes_before,
        s.bytes_after,
        evidence.projection_version
    );
    for t in &evidence.turns {
        let turn = t.turn.map_or("-".to_string(), |n| n.to_string());
        let _ = writeln!(
            out,
            "turn {turn} [{}..{}]: {} user, {} summaries, assistant {}, tools {}",
            t.seq_range[0],
            t.seq_range[1],
            t.user.len(),
            t.summaries.len(),
            t.assistant
                .as_ref()
                .map_or("none".to_string(), |a| format!("{} bytes", a.len())),
            if t.tools.is_empty() {
                "none".to_string()
            } else {
                let mut tools = String::new();
                for (i, tool) in t.tools.iter().enumerate() {
                    if i > 0 {
                        tools.push_str(", ");
                    }
                    push_printable(&mut tools, &tool.name, false);
                    tools.push(':');
                    tools.push_str(if tool.ok { "ok" } else { "failed" });
                    if let Some(code) = tool.exit_code {
                        let _ = write!(tools, " (exit {code})");
                    }
                }
                tools
            }
        );
    }
    print_stdout(out.as_bytes())
}
