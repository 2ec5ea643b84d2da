//! Integration tests of the sidecar core: SPEC seed 000 edge cases for resolution, expand and

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design
//! invert, with our own ids and messages.

mod assistant_text;
mod diff;
mod export;
mod image;
mod image_redacted;
mod normalized;
mod reread;
mod rerun;
mod sources;
mod stub_text;
mod terminal;
mod tool_input;

use rehydrate_model::{
    Digest, Message, MessageAddr, REDUCTION_METADATA_KEY, Reduction, ReductionId, ReductionKind,
    ReductionLog, Role, SidecarPtr, Span,
};
use rehydrate_sidecar::{
    Error, content_digest, expand_reduction, expected_stub, invert, reduction_total_bytes,
    render_turns, resolve, stub_message, turns_digest, verify_log,
};
use rehydrate_test_support::assistant_call;

/// [`rehydrate_test_support::truncation`] of message `index`'s `text`, hiding `span`, with the
/// stub [`expected_stub`] renders.
fn truncation(ordinal: usize, index: usize, text: &str, span: (usize, usize)) -> Reduction {
    rehydrate_test_support::truncation(ordinal, index, text, span, |r| expected_stub(r, &[]))
}

fn log_of(reductions: Vec<Reduction>) -> ReductionLog {
    ReductionLog { reductions }
}

#[test]
fn whole_and_ranged_expand() {
    let minted = vec![Message::tool_result("c1", "hello world")];
    let r = truncation(1, 0, "hello world", (5, 11));
    let id = r.id.to_string();
    let log = log_of(vec![r]);
    let whole = expand_reduction(&log, &minted, &id, None).unwrap();
    assert_eq!(
        (whole.content.as_ref(), whole.total_bytes, whole.range),
        ("hello world", 11, None)
    );
    let ranged = expand_reduction(&log, &minted, &id, Some((6, 100))).unwrap();
    assert_eq!(ranged.content, "world");
    assert_eq!(ranged.range, Some(Span::new(6, 11).unwrap()));
    let empty = expand_reduction(&log, &minted, &id, Some((11, 11))).unwrap();
    assert_eq!(
        (empty.content.as_ref(), empty.range),
        ("", Some(Span::new(11, 11).unwrap()))
    );
    assert_eq!(reduction_total_bytes(&log, &minted, &id).unwrap(), 11);
}

#[test]
fn range_errors_name_the_true_size() {
    let minted = vec![Message::tool_result("c1", "hello world")];
    let r = truncation(0, 0, "hello world", (5, 11));
    let id = r.id.to_string();
    let log = log_of(vec![r]);
    let beyond = expand_reduction(&log, &minted, &id, Some((12, 20))).unwrap_err();
    assert_eq!(
        beyond.to_string(),
        format!(
            "expand_reduction {id}: byte range start 12 is beyond the original's 11 bytes; expected start <= 11"
        )
    );
    let reversed = expand_reduction(&log, &minted, &id, Some((4, 2))).unwrap_err();
    assert_eq!(
        reversed.to_string(),
        format!(
            "expand_reduction {id}: reversed byte range [4, 2); expected [start, end) with start <= end; the original is 11 bytes"
        )
    );
}

#[test]
fn utf8_ranges_round_down_on_both_ends() {
    let minted = vec![Message::tool_result("c1", "héllo")];
    let r = truncation(0, 0, "héllo", (1, 3));
    let id = r.id.to_string();
    let log = log_of(vec![r]);
    let out = expand_reduction(&log, &minted, &id, Some((2, 4))).unwrap();
    assert_eq!(
        (out.content.as_ref(), out.range),
        ("él", Some(Span::new(1, 4).unwrap()))
    );
    // Both ends inside the same char: an empty slice at the boundary below.
    let out = expand_reduction(&log, &minted, &id, Some((2, 2))).unwrap();
    assert_eq!(
        (out.content.as_ref(), out.range),
        ("", Some(Span::new(1, 1).unwrap()))
    );
}

#[test]
fn unknown_id_lists_valid_ids() {
    let minted = vec![
        Message::tool_result("c1", "a"),
        Message::tool_result("c2", "b"),
    ];
    let log = log_of(vec![
        truncation(0, 0, "a", (0, 1)),
        truncation(1, 1, "b", (0, 1)),
    ]);
    let err = expand_reduction(&log, &minted, "r9.zzzzzz", None).unwrap_err();
    let ids = format!("{}, {}", log.reductions[0].id, log.reductions[1].id);
    assert_eq!(
        err.to_string(),
        format!("no reduction with id `r9.zzzzzz`; valid ids: {ids}")
    );
    let empty = expand_reduction(&ReductionLog::default(), &minted, "r0.000000", None).unwrap_err();
    assert_eq!(
        empty.to_string(),
        "no reduction with id `r0.000000`; valid ids: (none)"
    );
}

#[test]
fn digest_role_and_index_mismatches_are_errors_never_bytes() {
    // The sidecar's bytes changed after the reduction was minted.
    let minted = vec![Message::tool_result("c1", "hello w0rld")];
    let r = truncation(0, 0, "hello world", (5, 11));
    let id = r.id.to_string();
    let log = log_of(vec![r.clone()]);
    let err = expand_reduction(&log, &minted, &id, None).unwrap_err();
    assert!(err.is_digest_mismatch());
    assert_eq!(
        err.to_string(),
        format!(
            "reduction {id}: digest mismatch at message 0: expected {}, got {}",
            content_digest(b"hello world"),
            content_digest(b"hello w0rld")
        )
    );
    assert_eq!(verify_log(&log, &minted).len(), 1);
    let minted = vec![Message::tool_result("c1", "hello world")];

    let mut wrong_role = truncation(0, 0, "hello world", (5, 11));
    wrong_role.ptr.addr.role = Role::Assistant;
    let log = log_of(vec![wrong_role]);
    let err = resolve(&log, &minted, log.reductions[0].id.as_str()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "reduction {}: role mismatch at message 0: expected assistant, found tool",
            log.reductions[0].id
        )
    );

    let missing = truncation(0, 3, "hello world", (5, 11));
    let log = log_of(vec![missing]);
    let err = resolve(&log, &minted, log.reductions[0].id.as_str()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "reduction {}: the sidecar has no message at index 3 (it holds 1 messages)",
            log.reductions[0].id
        )
    );
}

#[test]
fn span_off_char_boundary_is_rejected() {
    let minted = vec![Message::tool_result("c1", "héllo")];
    let r = truncation(0, 0, "héllo", (2, 4));
    let log = log_of(vec![r]);
    let err = resolve(&log, &minted, log.reductions[0].id.as_str()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::BadSpan {
                start: 2,
                end: 4,
                total_bytes: 6,
                ..
            }
        ),
        "{err}"
    );
}

fn cleared_session() -> (Vec<Message>, ReductionLog) {
    cleared_session_with("a.txt\n".repeat(40))
}

/// A session whose messages 1-3 are cleared, the tool result at index 3 being `output`.
fn cleared_session_with(output: String) -> (Vec<Message>, ReductionLog) {
    let call = assistant_call("t1", "ls", "{}");
    let minted = vec![
        Message::text(Role::System, "sys"),
        Message::text(Role::User, "hi"),
        call,
        Message::tool_result("t1", output),
        Message::text(Role::User, "next"),
    ];
    let (digest, original_bytes) = turns_digest(&minted[1..=3]);
    let id = ReductionId::new(0, &digest);
    let mut r = Reduction {
        stub: String::new(),
        id,
        kind: ReductionKind::TurnsCleared {
            first: 1,
            last: 3,
            original_bytes,
            summary: Some("we listed files".into()),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: 1,
                role: Role::User,
            },
            span: None,
            digest,
        },
    };
    r.stub = expected_stub(&r, &minted);
    (minted, log_of(vec![r]))
}

#[test]
fn turns_cleared_renders_and_inverts() {
    let (minted, log) = cleared_session();
    let r = &log.reductions[0];
    let out = expand_reduction(&log, &minted, r.id.as_str(), None).unwrap();
    assert_eq!(
        out.content,
        format!(
            "--- message 1 user ---\nhi\n--- message 2 assistant ---\n-> tool call t1 ls {{}}\n--- message 3 tool tool_call_id=t1 ---\n{}\n",
            "a.txt\n".repeat(40)
        )
    );
    assert_eq!(out.content, render_turns(&minted[1..=3], 1));
    let stub = stub_message(r, &minted[1]).unwrap();
    assert_eq!(
        stub.content_text().unwrap(),
        format!("{}\n\nwe listed files", r.stub)
    );
    assert_eq!(
        stub.metadata
            .get(REDUCTION_METADATA_KEY)
            .map(String::as_str),
        Some(r.id.as_str())
    );
    let view = vec![minted[0].clone(), stub, minted[4].clone()];
    assert_eq!(invert(&view, &log, &minted).unwrap(), minted);
}

#[test]
fn invert_rejects_tampering() {
    let text = "0123456789".repeat(10);
    let minted = vec![
        Message::text(Role::User, "go"),
        Message::tool_result("c1", text.clone()),
    ];
    let r = truncation(0, 1, &text, (10, 90));
    let view = vec![minted[0].clone(), stub_message(&r, &minted[1]).unwrap()];
    let log = log_of(vec![r]);
    assert_eq!(invert(&view, &log, &minted).unwrap(), minted);
    assert_eq!(
        view[1].content_text().unwrap(),
        format!("0123456789\n{}\n0123456789", log.reductions[0].stub)
    );

    // A view whose visible head was edited no longer matches its stub.
    let mut edited = view.clone();
    edited[1].content = Some(rehydrate_model::Content::Text(
        view[1].content_text().unwrap().replacen("0123", "9999", 1),
    ));
    let err = invert(&edited, &log, &minted).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "view message 1: does not match the stub of reduction {}",
            log.reductions[0].id
        )
    );

    // A sidecar whose original changed fails its digest.
    let mut tampered = minted.clone();
    tampered[1] = Message::tool_result("c1", text.replace('5', "6"));
    assert!(
        invert(&view, &log, &tampered)
            .unwrap_err()
            .is_digest_mismatch()
    );

    // A stub naming an id the log lacks.
    let err = invert(&view, &ReductionLog::default(), &minted).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("view message 1: names reduction `r0."),
        "{err}"
    );

    // A view that is too short.
    let err = invert(&view[..1], &log, &minted).unwrap_err();
    assert_eq!(
        err.to_string(),
        "view message 1: the view ends after 1 of the sidecar's 2 messages"
    );
}

#[test]
fn digest_is_blake3_of_exact_bytes() {
    assert_eq!(
        content_digest(b"").to_string(),
        "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
    );
    let d: Digest = content_digest(b"abc");
    assert_eq!(
        d.to_string(),
        "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"
    );
}

#[test]
fn the_test_support_digest_is_content_digest() {
    // The test support writes the definition of `content_digest` again (it cannot depend on
    // the sidecar); the two must not drift.
    for text in [
        "",
        "abc",
        "hello world",
        "é\n\u{1f600}\r\n",
        &"x".repeat(5000),
    ] {
        assert_eq!(
            rehydrate_test_support::text_digest(text),
            content_digest(text.as_bytes()),
            "{text:?}"
        );
    }
}

#[test]
fn edited_or_swapped_ids_do_not_verify() {
    let minted = vec![
        Message::tool_result("a", "first output"),
        Message::tool_result("b", "second output"),
    ];
    let a = truncation(0, 0, "first output", (5, 12));
    let b = truncation(1, 1, "second output", (6, 13));

    // A digest edited in the log no longer matches the id's hex digits.
    let mut edited = a.clone();
    edited.ptr.digest = content_digest(b"other");
    let log = log_of(vec![edited]);
    let err = expand_reduction(&log, &minted, a.id.as_str(), None).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "reduction {}: id does not match its digest {}",
            a.id,
            content_digest(b"other")
        )
    );

    // Swapping two ids: each pointer still matches a message, but neither id verifies, and
    // the ordinals no longer match the log positions.
    let (mut a2, mut b2) = (a.clone(), b.clone());
    std::mem::swap(&mut a2.id, &mut b2.id);
    let log = log_of(vec![a2, b2]);
    assert!(expand_reduction(&log, &minted, a.id.as_str(), None).is_err());
    let errors: Vec<String> = verify_log(&log, &minted)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(errors.len(), 4, "{errors:?}");
    assert_eq!(
        errors[0],
        format!(
            "reduction {}: id names ordinal 1 but stands at log position 0",
            b.id
        )
    );
}

#[test]
fn recorded_hidden_lines_must_match_the_span() {
    let minted = vec![Message::tool_result("c1", "one\ntwo\nthree\n")];
    let mut r = truncation(0, 0, "one\ntwo\nthree\n", (4, 14));
    r.kind = ReductionKind::ToolOutputTruncated {
        original_bytes: 14,
        hidden_lines: 0,
    };
    r.stub = expected_stub(&r, &minted);
    let log = log_of(vec![r]);
    let err = resolve(&log, &minted, log.reductions[0].id.as_str()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "reduction {}: records 0 hidden lines but its hidden span holds 2",
            log.reductions[0].id
        )
    );
}

#[test]
fn an_unknown_id_is_named_clipped_to_80_bytes() {
    let log = ReductionLog::default();
    let long = "é".repeat(100);
    let err = resolve(&log, &[][..], &long).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "no reduction with id `{}... (200 bytes)`; valid ids: (none)",
            "é".repeat(40)
        )
    );
    let err = resolve(&log, &[][..], "r9.abcdef").unwrap_err();
    assert_eq!(
        err.to_string(),
        "no reduction with id `r9.abcdef`; valid ids: (none)"
    );
}
