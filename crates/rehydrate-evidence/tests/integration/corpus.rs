//! The corpus check: every Claude Code and SWE-agent session of the shared corpus
//! (`REHYDRATE_CORPUS`, or `shared/corpus` next to the workspace) projects under the default
//! limit, or fails with evidence-too-large (never truncated). The per-session table of events,
//! turns and bytes before and after is a snapshot. When the corpus is absent the test says so and
//! passes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rehydrate_evidence::{Error, EvidenceOptions, project_evidence};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("REHYDRATE_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

/// Session files under `dir` (recursively) ending in `ext`, sorted.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

#[test]
fn every_corpus_session_projects_or_is_too_large() {
    let dir = corpus_dir();
    let mut sessions = Vec::new();
    files(&dir.join("claude-code"), "jsonl", &mut sessions);
    files(&dir.join("swe-agent"), "traj", &mut sessions);
    files(&dir.join("openai"), "json", &mut sessions);
    sessions.sort();
    if sessions.is_empty() {
        eprintln!(
            "NOTICE: no corpus sessions under {} (set REHYDRATE_CORPUS); evidence corpus check skipped",
            dir.display()
        );
        return;
    }
    let mut table =
        String::from("session | events | turns | bytes before | bytes after | outcome\n");
    for path in &sessions {
        let bytes = std::fs::read(path).expect("corpus file is readable");
        let log =
            rehydrate_formats::import_events(path, &bytes, None).expect("corpus session imports");
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let short = name.rsplit('/').next().unwrap_or(&name);
        match project_evidence(&log.events, &[], &EvidenceOptions::default()) {
            Ok(evidence) => {
                let ranges: Vec<[u64; 2]> = evidence.turns.iter().map(|t| t.seq_range).collect();
                for pair in ranges.windows(2) {
                    assert!(pair[0][1] < pair[1][0], "{name}: ranges {pair:?} overlap");
                }
                let s = evidence.stats;
                let _ = writeln!(
                    table,
                    "{short} | {} | {} | {} | {} | projected",
                    s.events, s.turns, s.bytes_before, s.bytes_after
                );
            }
            Err(Error::EvidenceTooLarge { bytes, limit }) => {
                let _ = writeln!(
                    table,
                    "{short} | {} | - | - | {bytes} | evidence-too-large (limit {limit})",
                    log.events.len()
                );
            }
            Err(e) => panic!("{name}: {e}"),
        }
    }
    insta::assert_snapshot!(table);
}
