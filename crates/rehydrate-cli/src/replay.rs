//! `rehydrate replay`: the whole file contents a transcript proves (docs/FORMATS.md, "CLI JSON",
//! "replay").

use std::fmt::Write as _;
use std::path::Path;

use rehydrate_formats::Format;
use rehydrate_replay::{Replay, ReplayCounts};

use crate::commands::{print_json, print_stdout};
use crate::failure::Failure;
use crate::load;

/// The stdout object of `replay --json`.
#[derive(serde::Serialize)]
struct ReplayReport<'a> {
    file: String,
    format: &'static str,
    messages: usize,
    /// One per path with a proven content, sorted by path.
    records: Vec<RecordReport<'a>>,
    /// Paths by their state at the end.
    paths: ReplayCounts,
}

#[derive(serde::Serialize)]
struct RecordReport<'a> {
    path: &'a str,
    bytes: usize,
    digest: String,
    at: Option<&'a str>,
    message: usize,
    content: &'a str,
}

pub(crate) fn run(path: &Path, format: Option<Format>, json: bool) -> Result<(), Failure> {
    let imported = load::import(path, format)?;
    let mut replay = Replay::new();
    replay.run(&imported.messages);
    let records = replay.records();
    let counts = replay.counts();
    if json {
        return print_json(&ReplayReport {
            file: path.display().to_string(),
            format: imported.format.as_str(),
            messages: imported.messages.len(),
            records: records
                .iter()
                .map(|r| RecordReport {
                    path: &r.path,
                    bytes: r.bytes(),
                    digest: r.digest.to_string(),
                    at: r.at.as_deref(),
                    message: r.index,
                    content: &r.content,
                })
                .collect(),
            paths: counts,
        });
    }
    let width = records
        .iter()
        .map(|r| r.path.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = format!(
        "{:<width$}  {:>9}  {:<16}  {:>7}  at\n",
        "path", "bytes", "digest", "message"
    );
    for r in &records {
        let _ = writeln!(
            out,
            "{:<width$}  {:>9}  {:<16}  {:>7}  {}",
            r.path,
            r.bytes(),
            r.digest.short_hex(16),
            r.index,
            r.at.as_deref().unwrap_or("-")
        );
    }
    let _ = writeln!(
        out,
        "{} proven, {} retracted, {} inert",
        counts.proven, counts.retracted, counts.inert
    );
    print_stdout(out.as_bytes())
}
