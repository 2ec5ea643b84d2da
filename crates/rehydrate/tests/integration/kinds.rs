//! Every reduction kind of the aggressive preset on a small session of each importer's format
//! (fixtures/kinds, one file per kind and format): what is minted, exactly, and that each
//! reduction verifies, expands to its exact bytes and inverts, with both request bodies valid.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rehydrate::ReductionLog;
use rehydrate::ReductionPolicy;
use rehydrate::formats::import;
use rehydrate::formats::{Api, check_request};
use rehydrate::reduce::project_messages;
use rehydrate::sidecar::{expand_reduction, invert, verify_log};

/// What the aggressive preset mints on each fixture: its stub tokens with their counts. The
/// images sessions hold three messages with an image over the trigger, all inside the protected
/// window, so only the earlier copy of the screenshot taken twice is hidden. Every
/// SWE-agent run ends with a `submit` call that has no result (`unanswered-call`). The OpenAI
/// format carries no tool-result details, so its reads prove no file text (no re-read kinds);
/// reading a file again with the same arguments is still a re-run (`superseded`).
const EXPECTED: &[(&str, &[(&str, usize)])] = &[
    ("claude-code-assistant-text.jsonl", &[("assistant-text", 1)]),
    ("claude-code-images.jsonl", &[("image", 1)]),
    (
        "claude-code-rereads.jsonl",
        &[("read-diff", 1), ("tool-output", 2)],
    ),
    (
        "claude-code-superseded.jsonl",
        &[("superseded", 1), ("tool-output", 1)],
    ),
    ("claude-code-terminal.jsonl", &[("terminal", 1)]),
    ("claude-code-tool-input.jsonl", &[("tool-input", 1)]),
    ("openai-assistant-text.json", &[("assistant-text", 1)]),
    ("openai-images.json", &[("image", 1)]),
    (
        "openai-rereads.json",
        &[("superseded", 2), ("tool-output", 1)],
    ),
    (
        "openai-superseded.json",
        &[("superseded", 1), ("tool-output", 1)],
    ),
    ("openai-terminal.json", &[("terminal", 1)]),
    ("openai-tool-input.json", &[("tool-input", 1)]),
    (
        "swe-agent-assistant-text.traj",
        &[("assistant-text", 1), ("unanswered-call", 1)],
    ),
    (
        "swe-agent-images.traj",
        &[("image", 1), ("unanswered-call", 1)],
    ),
    (
        "swe-agent-rereads.traj",
        &[("read-diff", 1), ("tool-output", 2), ("unanswered-call", 1)],
    ),
    (
        "swe-agent-superseded.traj",
        &[
            ("superseded", 1),
            ("tool-output", 1),
            ("unanswered-call", 1),
        ],
    ),
    (
        "swe-agent-terminal.traj",
        &[("terminal", 1), ("unanswered-call", 1)],
    ),
    (
        "swe-agent-tool-input.traj",
        &[("tool-input", 1), ("unanswered-call", 1)],
    ),
];

fn kinds_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/kinds")
}

/// Imports `name`, projects it with the aggressive preset and checks every reduction; returns
/// the minted stub tokens with their counts.
fn reduce(name: &str) -> Vec<(String, usize)> {
    let path = kinds_dir().join(name);
    let bytes = std::fs::read(&path).unwrap();
    let history = import(&path, &bytes, None).unwrap().messages;
    let out = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::aggressive(),
    );
    assert_eq!(verify_log(&out.log, &history), Vec::new(), "{name}");
    assert_eq!(
        invert(&out.view, &out.log, &history).unwrap(),
        history,
        "{name}"
    );
    for api in [Api::OpenAi, Api::Anthropic] {
        assert_eq!(check_request(&out.view, api), Vec::new(), "{name} {api:?}");
    }
    let mut counts = BTreeMap::new();
    for r in &out.log.reductions {
        let whole = expand_reduction(&out.log, &history, r.id.as_str(), None).unwrap();
        assert_eq!(whole.content.len(), whole.total_bytes, "{name} {}", r.id);
        let end = whole.total_bytes / 2;
        let half = expand_reduction(&out.log, &history, r.id.as_str(), Some((0, end))).unwrap();
        assert!(whole.content.starts_with(&*half.content), "{name} {}", r.id);
        *counts
            .entry(r.kind.stub_kind().as_str().to_string())
            .or_insert(0) += 1;
    }
    counts.into_iter().collect()
}

#[test]
fn every_kind_fixture_mints_what_the_table_says_and_reverses_exactly() {
    let mut names: Vec<String> = std::fs::read_dir(kinds_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.ends_with(".md"))
        .collect();
    names.sort();
    let mut listed: Vec<&str> = EXPECTED.iter().map(|(n, _)| *n).collect();
    listed.sort_unstable();
    assert_eq!(
        names, listed,
        "every fixture has a row, every row a fixture"
    );
    for (name, expected) in EXPECTED {
        let counts = reduce(name);
        let expected: Vec<(String, usize)> =
            expected.iter().map(|&(k, n)| (k.to_string(), n)).collect();
        assert_eq!(counts, expected, "{name}");
    }
}
