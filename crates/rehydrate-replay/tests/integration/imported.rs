//! Sessions written for this project, imported and replayed end to end.
//!
//! `fixtures/replay/claude-code-session.jsonl` has cards of every file tool, an edit the person modified (with
//! and without a patch), a compaction between a read and a later edit, lines a resumed session
//! repeats, a multi-edit whose second edit depends on the first, failed, partial, image, notebook
//! and relative-path results. `fixtures/formats/swe-agent-editor.traj` has SWE-agent editor calls: a
//! create, a whole view, a str_replace on the last proven text checked against its snippet, a
//! refused str_replace, an insert and a partial view.

use std::path::Path;

use rehydrate_model::Role;
use rehydrate_replay::Replay;

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

#[test]
fn swe_agent_editor_session_replays() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/formats/swe-agent-editor.traj"
    );
    let bytes = std::fs::read(path).expect("fixture is readable");
    let import = rehydrate_formats::import(Path::new(path), &bytes, None).expect("fixture imports");
    // After the str_replace (message 7), the file is the created text with mul() added.
    let mut replay = Replay::new();
    for (i, m) in import.messages.iter().enumerate().take(8) {
        replay.step(i, m);
    }
    assert_eq!(
        replay.content("/app/util.py"),
        Some(
            "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
        )
    );
    insta::assert_snapshot!(report("swe-agent-editor.traj, imported", &import.messages));
}

#[test]
fn codex_patches_replay_file_by_file() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/formats/codex/codex-apply-patch.jsonl"
    );
    let bytes = std::fs::read(path).expect("fixture is readable");
    let import = rehydrate_formats::import(Path::new(path), &bytes, None).expect("fixture imports");
    let mut replay = Replay::new();
    replay.run(&import.messages);
    // The first patch adds TODO.md; the last one, of two files, updates it on that base and
    // adds de.txt; greet.py's update has no proven base, so it stays retracted.
    assert_eq!(
        replay.content("/home/dev/greeter/notes/TODO.md"),
        Some("# TODO\n\n- greet in French\n- greet in German\n")
    );
    assert_eq!(replay.content("/home/dev/greeter/de.txt"), Some("Hallo\n"));
    assert_eq!(replay.content("/home/dev/greeter/greet.py"), None);
    insta::assert_snapshot!(report(
        "codex-apply-patch.jsonl, imported",
        &import.messages
    ));
}
