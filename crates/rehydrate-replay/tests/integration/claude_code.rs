//! A Claude Code session written for this project (`fixtures/replay/claude-code-session.jsonl`),
//! imported and replayed end to end: cards of every file tool, an edit the person modified (with
//! and without a patch), a compaction between a read and a later edit, lines a resumed session
//! repeats, a multi-edit whose second edit depends on the first, failed, partial, image, notebook
//! and relative-path results.

use std::path::Path;

use rehydrate_model::Role;

use crate::fixtures::report;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/replay/claude-code-session.jsonl"
);

#[test]
fn claude_code_session_replays_across_compaction() {
    let bytes = std::fs::read(FIXTURE).expect("fixture is readable");
    let import =
        rehydrate_formats::import(Path::new(FIXTURE), &bytes, None).expect("fixture imports");
    // The repeated lines of the resumed session are kept once: call t03 has one result.
    let t03_results = import
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool && m.tool_call_id.as_deref() == Some("t03"))
        .count();
    assert_eq!(t03_results, 1);
    insta::assert_snapshot!(report(
        "claude-code-session.jsonl, imported",
        &import.messages
    ));
}
