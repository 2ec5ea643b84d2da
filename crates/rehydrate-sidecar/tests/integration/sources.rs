//! The two resolution sources (SPEC seed 000 rule 5, edge cases 6-8): a tool output the host
//! capped resolves to the recorded bytes only when the supersession key matches exactly.

use rehydrate_model::{CAP_NOTICE_MARKER, Message, Role};
use rehydrate_sidecar::{Error, Sources, expand_reduction, reduction_total_bytes};

use crate::{cleared_session, cleared_session_with, log_of, truncation};

/// The host's capped copy of "abcdefghij": the first 3 bytes and the notice.
fn capped() -> String {
    format!(
        "abc{CAP_NOTICE_MARKER}10 bytes total, showing first 3; full output in session sidecar]"
    )
}

#[test]
fn a_capped_output_resolves_to_the_recorded_bytes() {
    // Case 7: minted is the capped copy, verified by its own digest; recorded has it whole.
    let minted = vec![Message::tool_result("c1", capped())];
    let recorded = vec![Message::tool_result("c1", "abcdefghij")];
    let r = truncation(0, 0, &capped(), (3, capped().len()));
    let id = r.id.to_string();
    let log = log_of(vec![r]);
    let sources = Sources::with_recorded(&minted, &recorded);
    let out = expand_reduction(&log, sources, &id, None).unwrap();
    assert_eq!(out.content, "abcdefghij");
    assert_eq!(out.total_bytes, 10);
    assert_eq!(reduction_total_bytes(&log, sources, &id).unwrap(), 10);
    let ranged = expand_reduction(&log, sources, &id, Some((3, 7))).unwrap();
    assert_eq!(ranged.content, "defg");
    // Without a recorder, the minted copy is served.
    let alone = expand_reduction(&log, &minted, &id, None).unwrap();
    assert_eq!(alone.content, capped());
}

#[test]
fn the_recorded_bytes_are_refused_unless_the_key_matches() {
    // Case 8: another call id, no call id, another role, or bytes the capped prefix does not
    // start: the minted copy is served unchanged.
    let minted = vec![Message::tool_result("c1", capped())];
    let r = truncation(0, 0, &capped(), (3, capped().len()));
    let id = r.id.to_string();
    let log = log_of(vec![r]);
    let mut no_id = Message::tool_result("c1", "abcdefghij");
    no_id.tool_call_id = None;
    let mut assistant = Message::tool_result("c1", "abcdefghij");
    assistant.role = Role::Assistant;
    let refused = [
        Message::tool_result("c2", "abcdefghij"),
        no_id,
        assistant,
        Message::tool_result("c1", "abXdefghij"),
        Message::tool_result("c1", "ab"),
    ];
    for recorded in refused {
        let recorded = [recorded];
        let out =
            expand_reduction(&log, Sources::with_recorded(&minted, &recorded), &id, None).unwrap();
        assert_eq!(out.content, capped(), "{:?}", recorded[0]);
    }
    // A minted copy without the marker is never superseded, even by a longer recorded text.
    let plain = "abc".repeat(50);
    let minted = vec![Message::tool_result("c1", plain.clone())];
    let r = truncation(0, 0, &plain, (3, plain.len()));
    let id = r.id.to_string();
    let log = log_of(vec![r]);
    let recorded = [Message::tool_result("c1", format!("{plain}more"))];
    let out =
        expand_reduction(&log, Sources::with_recorded(&minted, &recorded), &id, None).unwrap();
    assert_eq!(out.content, plain);
}

#[test]
fn the_minted_copy_is_verified_before_any_upgrade() {
    // Case 6: a minted copy whose digest fails is an error, whatever was recorded.
    let minted = vec![Message::tool_result("c1", capped())];
    let r = truncation(0, 0, "other", (0, 5));
    let id = r.id.to_string();
    let log = log_of(vec![r]);
    let recorded = [Message::tool_result("c1", "abcdefghij")];
    let err =
        expand_reduction(&log, Sources::with_recorded(&minted, &recorded), &id, None).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Inconsistent { .. } | Error::DigestMismatch { .. }
        ),
        "{err}"
    );
}

#[test]
fn cleared_turns_render_recorded_tool_outputs() {
    let (minted, log) = cleared_session();
    let id = log.reductions[0].id.to_string();
    let before = expand_reduction(&log, &minted, &id, None)
        .unwrap()
        .content
        .into_owned();
    // The recorder kept the same messages; the tool output at index 3 was not capped, so the
    // rendering is unchanged.
    let same = expand_reduction(&log, Sources::with_recorded(&minted, &minted), &id, None).unwrap();
    assert_eq!(same.content, before);
}

#[test]
fn a_capped_output_inside_cleared_turns_renders_whole() {
    let (minted, log) = cleared_session_with(capped());
    let id = log.reductions[0].id.to_string();
    let mut recorded = minted.clone();
    recorded[3] = Message::tool_result("t1", "abcdefghij");
    let minted_only = expand_reduction(&log, &minted, &id, None).unwrap();
    let both =
        expand_reduction(&log, Sources::with_recorded(&minted, &recorded), &id, None).unwrap();
    assert!(minted_only.content.contains(CAP_NOTICE_MARKER));
    assert_eq!(
        both.content,
        minted_only.content.replace(&capped(), "abcdefghij")
    );
    assert_eq!(
        both.total_bytes,
        minted_only.total_bytes - capped().len() + 10
    );
}
