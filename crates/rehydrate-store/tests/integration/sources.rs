//! A store's recorded messages as a resolution source (SPEC seed 000 rule 5): after a rewind,
//! a reduction of the old timeline never resolves to the new one's bytes.

use rehydrate_model::{CAP_NOTICE_MARKER, Message, ReductionLog, Role};
use rehydrate_sidecar::{Sources, expand_reduction, expected_stub};
use rehydrate_store::{SessionStore, SyncPolicy, read_store};
use rehydrate_test_support::truncation;

/// The host's capped copy of "abcdefghij": the first 3 bytes and the notice.
fn capped() -> String {
    format!(
        "abc{CAP_NOTICE_MARKER}10 bytes total, showing first 3; full output in session sidecar]"
    )
}

#[test]
fn a_rerun_after_a_rewind_never_resolves_to_the_old_timeline() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("sources-rewind");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.rhyd");
    let mut store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    store
        .append_message(&Message::text(Role::User, "go"))
        .unwrap();
    store
        .append_message(&Message::tool_result("c1", "abcdefghij"))
        .unwrap();
    // The host rewinds to one message and re-runs the tool with a fresh call id.
    store.rewind(1).unwrap();
    store
        .append_message(&Message::tool_result("c9", "abcXYZ"))
        .unwrap();
    drop(store);
    let (state, _) = read_store(&path).unwrap();
    // The old timeline's minted copy (call c1, capped) finds only the new timeline recorded.
    let minted = vec![
        Message::text(Role::User, "go"),
        Message::tool_result("c1", capped()),
    ];
    let r = truncation(0, 1, &capped(), (3, capped().len()), |r| {
        expected_stub(r, &[])
    });
    let id = r.id.to_string();
    let log = ReductionLog {
        reductions: vec![r],
    };
    let out = expand_reduction(
        &log,
        Sources::with_recorded(&minted, &state.messages),
        &id,
        None,
    )
    .unwrap();
    assert_eq!(out.content, capped());
    assert_eq!(state.messages[1], Message::tool_result("c9", "abcXYZ"));
}
