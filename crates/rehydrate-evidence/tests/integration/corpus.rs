//! The corpus check: every Claude Code and SWE-agent session of the shared corpus
//! (`REHYDRATE_CORPUS`, or `shared/corpus` next to the workspace) projects under the default
//! limit, or fails with evidence-too-large (never truncated). The per-session table of events,
//! turns and bytes before and after is a snapshot. When the corpus is absent the test says so and
//! passes.

use std::fmt::Write as _;

use rehydrate_evidence::{Error, EvidenceOptions, project_evidence};
use rehydrate_test_support::corpus_sessions;

#[test]
fn every_corpus_session_projects_or_is_too_large() {
    let Some((dir, sessions)) = corpus_sessions(
        &[
            ("claude-code", "jsonl"),
            ("swe-agent", "traj"),
            ("openai", "json"),
        ],
        "evidence corpus check",
    ) else {
        return;
    };
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
