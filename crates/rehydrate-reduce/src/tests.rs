//! Unit tests of the reducer.

use rehydrate_model::{Message, Role};
use rehydrate_test_support::{assistant_call, call, calling};

use crate::*;

#[test]
fn truncation_span_snaps_to_lines_and_char_boundaries() {
    // No line break: pure char-boundary cuts. "é" is 2 bytes.
    let text = "é".repeat(10); // 20 bytes
    let span = truncation_span(&text, 5, 5).unwrap();
    assert_eq!((span.start(), span.end()), (4, 16));
    // Nothing hidden when head + tail cover the text.
    assert_eq!(truncation_span("abcdef", 3, 3), None);
    assert_eq!(
        truncation_span("abcdefg", 3, 3).map(|s| (s.start(), s.end())),
        Some((3, 4))
    );
    // Line snapping keeps the last line whole.
    let text = format!("{}\nerror: build failed\n", "x".repeat(100));
    let span = truncation_span(&text, 10, 30).unwrap();
    assert_eq!(&text[span.end()..], "error: build failed\n");
    // A tiny head over a 3-byte char never panics.
    assert_eq!(
        truncation_span("€€€€", 2, 2).map(|s| (s.start(), s.end())),
        Some((0, 12))
    );
}

#[test]
fn clearable_range_respects_pairs() {
    let history = vec![
        Message::text(Role::System, "sys"),
        Message::text(Role::User, "one"),
        assistant_call("a", "bash", "{}"),
        Message::tool_result("a", "x"),
        Message::text(Role::User, "two"),
        assistant_call("b", "bash", "{}"),
        Message::text(Role::User, "interrupt"),
        Message::tool_result("b", "y"),
        Message::text(Role::User, "three"),
    ];
    assert_eq!(turn_starts(&history), vec![1, 4, 6, 8]);
    assert_eq!(clearable_range(&history, 1), Some((1, 7)));
    // Keeping 2 turns would cut between call b (5) and result b (7): fall back to boundary 4.
    assert_eq!(clearable_range(&history, 2), Some((1, 3)));
    assert_eq!(clearable_range(&history, 4), None);
    assert_eq!(clearable_range(&history, 0), Some((1, 8)));
}

#[test]
fn an_expanded_result_that_ages_out_is_reduced_again() {
    use rehydrate_model::ReductionLog;

    let big = "build output line\n".repeat(600); // 10800 bytes
    let mut history = vec![Message::text(Role::User, "build")];
    for id in ["a", "b", "c", "d"] {
        history.push(assistant_call(id, "bash", "{}"));
        history.push(Message::tool_result(id, format!("{id}: {big}")));
    }
    let policy = ReductionPolicy::default();
    let first = project_messages(&history, &ReductionLog::default(), &policy);
    assert_eq!(first.log.len(), 1);
    let truncated_id = first.log.reductions[0].id.to_string();

    // The model expands the truncated output; the result arrives as an ordinary tool result.
    let expanded = rehydrate_sidecar::expand_reduction(&first.log, &history, &truncated_id, None)
        .unwrap()
        .content
        .into_owned();
    history.push(assistant_call("x", "bash", "{}"));
    history.push(Message::tool_result("x", expanded.clone()));
    let second = project_messages(&history, &first.log, &policy);
    // Still protected: the expansion is visible whole, and the old stub is unchanged; only
    // "b", which aged out of the protected window, is newly truncated.
    assert_eq!(second.minted, 1);
    assert_eq!(second.log.reductions[1].ptr.addr.index, 4);
    assert_eq!(second.view[10].content_text(), Some(expanded.as_str()));
    assert_eq!(second.view[2], first.view[2]);

    // Three more results age it out: it duplicates message 2, so it becomes a duplicate stub.
    for id in ["e", "f", "g"] {
        history.push(assistant_call(id, "bash", "{}"));
        history.push(Message::tool_result(id, "ok"));
    }
    let third = project_messages(&history, &second.log, &policy);
    let r = third.log.reductions.last().unwrap();
    assert_eq!(r.ptr.addr.index, 10);
    assert_eq!(
        r.kind,
        rehydrate_model::ReductionKind::DuplicateOutput {
            canonical: rehydrate_model::MessageAddr {
                index: 2,
                role: Role::Tool
            },
            original_bytes: expanded.len(),
        }
    );
    assert_eq!(
        third.view[2], first.view[2],
        "earlier stubs keep their bytes"
    );
}

/// A message from a small alphabet: user turn, observation, assistant text, a call with one or
/// two ids from a pool of three, or a result for one of them.
fn boundary_message(kind: u8, a: u8, b: u8) -> Message {
    let id = |n: u8| ["a", "b", "c"][usize::from(n % 3)];
    match kind % 6 {
        0 => Message::text(Role::User, "turn"),
        1 => {
            let mut m = Message::text(Role::User, "observed");
            m.observation = true;
            m
        }
        2 => Message::text(Role::Assistant, "text"),
        3 => assistant_call(id(a), "bash", "{}"),
        4 => calling(
            None,
            vec![call(id(a), "bash", "{}"), call(id(b), "bash", "{}")],
        ),
        _ => Message::tool_result(id(a), "out"),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

    /// The incremental boundaries agree with `safe_boundaries` and `clearable_range` after
    /// every message.
    #[test]
    fn incremental_boundaries_match_the_whole_history_forms(
        ops in proptest::collection::vec((0u8..6, 0u8..3, 0u8..3), 0..40),
    ) {
        let history: Vec<Message> = ops.iter().map(|&(k, a, b)| boundary_message(k, a, b)).collect();
        let mut boundaries = crate::boundaries::Boundaries::new();
        for end in 0..=history.len() {
            if end > 0 {
                let m = &history[end - 1];
                boundaries.push(m, &rehydrate_formats::unsendable_calls(m));
            }
            let prefix = &history[..end];
            let safe = safe_boundaries(prefix);
            for (b, &s) in safe.iter().enumerate() {
                proptest::prop_assert_eq!(boundaries.is_safe(b), s, "boundary {} of {}", b, end);
            }
            for keep in 0..4 {
                proptest::prop_assert_eq!(
                    boundaries.clearable_range(keep),
                    clearable_range(prefix, keep),
                    "keep {} after {} messages", keep, end
                );
            }
        }
    }
}

#[test]
fn repeated_texts_take_their_first_digest_and_lookalikes_are_hashed() {
    use rehydrate_sidecar::content_digest;

    let base = "x".repeat(100);
    // Same length and same sampled bytes (start, middle, end) as `base`, different content.
    let mut lookalike = base.clone().into_bytes();
    lookalike[30] = b'y';
    let lookalike = String::from_utf8(lookalike).unwrap();
    let mut cache = crate::digests::DigestCache::default();
    let first = vec![
        Message::text(Role::User, base.clone()),
        Message::tool_result("a", base.clone()),
        Message::tool_result("b", lookalike.clone()),
        Message::tool_result("c", base.clone()),
    ];
    let got = cache.digests(&[], &first);
    let d = |t: &str| Some(content_digest(t.as_bytes()));
    assert_eq!(got, vec![None, d(&base), d(&lookalike), d(&base)]);
    // A later batch finds the text in the history.
    let second = vec![
        Message::tool_result("d", lookalike.clone()),
        Message::tool_result("e", base.clone()),
        Message::tool_result("f", String::new()),
    ];
    let got = cache.digests(&first, &second);
    assert_eq!(got, vec![d(&lookalike), d(&base), d("")]);
}

proptest::proptest! {
    /// The sums of [`crate::reducer::SizeSums`] are the naive sums after any pushes and sets.
    #[test]
    fn wire_sums_match_naive_sums(
        ops in proptest::collection::vec((proptest::bool::ANY, 0usize..64, 0u64..1_000_000), 0..200),
    ) {
        let mut sums = crate::reducer::SizeSums::default();
        let mut naive: Vec<u64> = Vec::new();
        for (push, at, value) in ops {
            if push || naive.is_empty() {
                sums.push(value);
                naive.push(value);
            } else {
                let index = at % (naive.len() + 2); // past the end too: ignored
                sums.set(index, value);
                if let Some(v) = naive.get_mut(index) {
                    *v = value;
                }
            }
            proptest::prop_assert_eq!(sums.len(), naive.len());
            for from in 0..=naive.len() + 1 {
                let expected: u64 = naive.iter().skip(from).sum();
                proptest::prop_assert_eq!(sums.suffix(from), expected);
            }
        }
    }
}
