//! `rehydrate replay`: the whole file contents a transcript proves (docs/FORMATS.md, "CLI JSON",
//! "replay").

use std::fmt::Write as _;
use std::path::Path;

use rehydrate::replay::{Replay, ReplayCounts};

use crate::failure::Failure;
use crate::load;
use crate::output::{print_json, print_stdout};
use crate::term::push_printable;

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
    index: usize,
    content: &'a str,
}

pub(crate) fn run(path: &Path, pick: load::Pick, json: bool) -> Result<(), Failure> {
    let imported = load::import(path, pick)?;
    let mut replay = Replay::new();
    replay.run(&imported.messages);
    let records = replay.records();
    let counts = replay.counts();
    if json {
        return print_json(&ReplayReport {
            file: crate::term::json_path(path),
            format: imported.format.as_str(),
            messages: imported.messages.len(),
            records: records
                .iter()
                .map(|r| RecordReport {
                    path: &r.path,
                    bytes: r.bytes(),
                    digest: r.digest.to_string(),
                    at: r.at.as_deref(),
                    index: r.index,
                    content: &r.content,
                })
                .collect(),
            paths: counts,
        });
    }
    // Paths and times come from the session: control characters are escaped.
    let printable = |text: &str| {
        let mut out = String::new();
        push_printable(&mut out, text, false);
        out
    };
    let paths: Vec<String> = records.iter().map(|r| printable(&r.path)).collect();
    let width = paths
        .iter()
        .map(|p| p.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = format!(
        "{:<width$}  {:>9}  {:<16}  {:>7}  at\n",
        "path", "bytes", "digest", "index"
    );
    for (r, path) in records.iter().zip(&paths) {
        let _ = writeln!(
            out,
            "{path:<width$}  {:>9}  {:<16}  {:>7}  {}",
            r.bytes(),
            r.digest.short_hex(16),
            r.index,
            printable(r.at.as_deref().unwrap_or("-"))
        );
    }
    let _ = writeln!(
        out,
        "{} proven, {} retracted, {} inert",
        counts.proven, counts.retracted, counts.inert
    );
    print_stdout(out.as_bytes())
}
