//! The incremental [`Reducer`] against the one-shot [`project_messages`]: feeding a session in
//! any chunks gives, after every chunk, exactly the view, log and minted count that the
//! one-shot form gives for the prefix and the previous log.

use proptest::prelude::*;
use rehydrate_formats::Api;
use rehydrate_model::{Content, Message, ReductionLog, Role};
use rehydrate_reduce::{CacheState, Minting, Reducer, ReductionPolicy, project_messages};
use rehydrate_sidecar::{invert, verify_log};
use rehydrate_test_support::{assistant_call, call, calling};

/// One message of a chaotic session: calls and results drawn from a small id pool, so calls go
/// unanswered, results answer nothing, ids are reused and pairs nest and cross.
fn chaotic_message() -> impl Strategy<Value = Message> {
    let id = prop_oneof![Just("a"), Just("b"), Just("c"), Just("d")];
    let output = prop_oneof![
        3 => "[a-z\n]{0,60}".prop_map(|s| s),
        2 => (1usize..40).prop_map(|n| "line of build output\n".repeat(n)),
        1 => Just("identical output\n".repeat(20)),
        1 => Just("é€😀\n".repeat(30)),
        2 => crate::properties::terminal_output(),
    ];
    prop_oneof![
        3 => "[a-z ]{0,20}".prop_map(|t| Message::text(Role::User, t)),
        1 => "[a-z ]{0,20}".prop_map(|t| {
            let mut m = Message::text(Role::User, t);
            m.observation = true;
            m
        }),
        2 => "[a-z ]{0,20}".prop_map(|t| Message::text(Role::Assistant, t)),
        2 => long_text().prop_map(|t| Message::text(Role::Assistant, t)),
        4 => proptest::collection::vec((id.clone(), arguments()), 1..3).prop_map(|calls| calling(
            None,
            calls.into_iter().map(|(id, (name, arguments))| call(id, name, arguments)).collect(),
        )),
        1 => (proptest::collection::vec(id.clone(), 1..3), long_text()).prop_map(|(ids, t)| calling(
            Some(&t),
            ids.into_iter().map(|id| call(id, "bash", "{}")).collect(),
        )),
        1 => long_text().prop_map(|t| Message {
            role: Role::Assistant,
            content: Some(Content::Parts(vec![serde_json::json!({"type": "text", "text": t})])),
            ..Message::default()
        }),
        // A Write whose content is large enough for a tool-input trigger.
        1 => (id.clone(), long_text()).prop_map(|(id, t)| calling(
            None,
            vec![call(id, "Write", &serde_json::json!({"file_path": "a.rs", "content": t}).to_string())],
        )),
        6 => (id.clone(), output).prop_map(|(id, out)| Message::tool_result(id, out)),
        1 => id_parts(),
        // Inline images from a small pool (copies occur), in tool results and user messages.
        1 => (id, 0usize..6).prop_map(|(id, k)| Message {
            content: Some(Content::Parts(vec![
                crate::properties::pooled_image(k),
                crate::properties::pooled_image(k / 2),
            ])),
            ..Message::tool_result(id, String::new())
        }),
        1 => (0usize..3).prop_map(|k| Message {
            role: Role::User,
            content: Some(Content::Parts(vec![
                serde_json::json!({"type": "text", "text": "look"}),
                crate::properties::pooled_image(k),
            ])),
            ..Message::default()
        }),
    ]
}

/// A call's tool and arguments: re-runs of one call written two ways, another call, and the
/// same arguments for another tool.
fn arguments() -> impl Strategy<Value = (&'static str, &'static str)> {
    prop_oneof![
        Just(("bash", "{}")),
        Just(("bash", r#"{"cmd":"make  test"}"#)),
        Just(("bash", r#"{"cmd":"make test"}"#)),
        Just(("bash", r#"{"cmd":"make"}"#)),
        Just(("cat", "{}")),
    ]
}

/// An assistant's plan or explanation, long enough for the triggers of [`policy`].
fn long_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (1usize..30).prop_map(|n| "the plan: read, fix, test\n".repeat(n)),
        (1usize..20).prop_map(|n| "é€😀 reasoning ".repeat(n)),
    ]
}

/// A tool result with content parts instead of text: never reduced, still counted as a tool
/// result by the protected window.
fn id_parts() -> impl Strategy<Value = Message> {
    Just(Message {
        role: Role::Tool,
        tool_call_id: Some("a".into()),
        content: Some(Content::Parts(vec![
            serde_json::json!({"type": "text", "text": "part"}),
        ])),
        ..Message::default()
    })
}

/// Policies whose trigger and cuts suit the small outputs of [`chaotic_message`].
fn policy() -> impl Strategy<Value = ReductionPolicy> {
    crate::properties::policy_with(prop_oneof![Just(0usize), Just(200), Just(8192)], 120)
}

/// Feeds `history` to a reducer in chunks ending at `cuts`, checking each step against the
/// one-shot form over the prefix with the previous log. A cold cache at every step shows each
/// reduction as it is decided, so cache-aware minting gives what per-turn minting gives.
pub(crate) fn check_incremental(
    history: &[Message],
    cuts: &[usize],
    policy: &ReductionPolicy,
) -> Result<(), TestCaseError> {
    let mut reducer = Reducer::new(policy.clone());
    let mut log = ReductionLog::default();
    let mut fed = 0;
    let mut ends: Vec<usize> = cuts.iter().map(|&c| c % (history.len() + 1)).collect();
    ends.push(history.len());
    ends.sort_unstable();
    for end in ends {
        // What the one-shot form gives is a finished artifact, closed: a trailing call gets
        // its synthetic result, which the next chunk drops again.
        let chunk = history[fed..end].iter().cloned();
        let minted = reducer.project_cached(chunk, CacheState::Cold) + reducer.close();
        fed = end;
        let one_shot = project_messages(&history[..end], &log, policy);
        prop_assert_eq!(minted, one_shot.minted, "minted after {} messages", end);
        prop_assert_eq!(reducer.log(), &one_shot.log, "log after {} messages", end);
        let view = reducer.view();
        prop_assert_eq!(
            view.to_vec(),
            one_shot.view.clone(),
            "view after {} messages",
            end
        );
        prop_assert_eq!(view.len(), one_shot.view.len());
        for (i, m) in one_shot.view.iter().enumerate() {
            prop_assert_eq!(view.get(i), Some(m));
        }
        prop_assert_eq!(view.get(one_shot.view.len()), None);
        // An entry that names a history index is that history message itself.
        let mut shown = Vec::new();
        for (index, m) in view.entries() {
            if let Some(i) = index {
                prop_assert!(std::ptr::eq(m, &reducer.history()[i]), "entry {}", i);
                prop_assert!(shown.last().is_none_or(|&last| last < i), "entry {}", i);
                shown.push(i);
            }
        }
        prop_assert_eq!(view.entries().count(), one_shot.view.len());
        for api in [Api::OpenAi, Api::Anthropic] {
            let violations = crate::properties::repairable_violations(&one_shot.view, api);
            prop_assert!(violations.is_empty(), "{}: {:?}", api, violations);
        }
        log = one_shot.log;
    }
    prop_assert_eq!(reducer.history(), history);
    prop_assert!(verify_log(reducer.log(), history).is_empty());
    prop_assert_eq!(
        invert(&reducer.view().to_vec(), reducer.log(), history).unwrap(),
        history
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn chunked_feeding_matches_the_one_shot_form(
        history in proptest::collection::vec(chaotic_message(), 0..40),
        cuts in proptest::collection::vec(0usize..64, 0..12),
        policy in policy(),
    ) {
        check_incremental(&history, &cuts, &policy)?;
    }

    #[test]
    fn message_by_message_feeding_matches_the_one_shot_form(
        history in proptest::collection::vec(chaotic_message(), 0..30),
        policy in policy(),
    ) {
        let cuts: Vec<usize> = (0..history.len()).collect();
        check_incremental(&history, &cuts, &policy)?;
    }

    /// A resumed reducer (a log read back from disk) continues exactly where the first one
    /// stopped.
    #[test]
    fn a_resumed_reducer_continues_the_same_session(
        history in proptest::collection::vec(chaotic_message(), 0..40),
        cut in 0usize..40,
        policy in policy(),
    ) {
        let cut = cut.min(history.len());
        let mut first = Reducer::new(policy.clone());
        first.project(history[..cut].iter().cloned());
        let mut resumed = Reducer::resume(policy.clone(), first.log().clone());
        let mut continued = first.clone();
        prop_assert_eq!(resumed.project(history[..cut].iter().cloned()), 0);
        prop_assert_eq!(resumed.view().to_vec(), first.view().to_vec());
        let a = resumed.project(history[cut..].iter().cloned());
        let b = continued.project(history[cut..].iter().cloned());
        prop_assert_eq!(a, b);
        prop_assert_eq!(resumed.log(), continued.log());
        prop_assert_eq!(resumed.view().to_vec(), continued.view().to_vec());
    }
}

#[test]
fn a_growing_cleared_range_hashes_only_what_it_gains() {
    // Five turns, keep one: every turn after the second mints a larger range whose digest
    // equals the one-shot digest of the whole range.
    let policy = ReductionPolicy {
        clear_turns_older_than: Some(1),
        min_saved_bytes: 0,
        minting: Minting::PerTurn,
        ..ReductionPolicy::default()
    };
    let mut reducer = Reducer::new(policy.clone());
    let mut history = vec![Message::text(Role::System, "sys")];
    reducer.project(history.clone());
    for t in 0..5 {
        let turn = vec![
            Message::text(Role::User, format!("turn {t}: {}", "words ".repeat(20))),
            Message::text(Role::Assistant, "done ".repeat(30)),
        ];
        history.extend(turn.clone());
        reducer.project(turn);
    }
    // Ranges 1..=2, 1..=4, 1..=6, 1..=8.
    let ranges: Vec<(usize, usize)> = reducer
        .log()
        .reductions
        .iter()
        .map(|r| match r.kind {
            rehydrate_model::ReductionKind::TurnsCleared { first, last, .. } => (first, last),
            _ => unreachable!("only turns are cleared here"),
        })
        .collect();
    assert_eq!(ranges, vec![(1, 2), (1, 4), (1, 6), (1, 8)]);
    for r in &reducer.log().reductions {
        assert!(rehydrate_sidecar::verify_reduction(r, &history).is_ok());
    }
    assert!(verify_log(reducer.log(), &history).is_empty());
    // An edit inside the second range fails it and every later range, never the first: the
    // scan verify_log shares between growing ranges does not hide a change.
    let mut edited = history.clone();
    edited[3] = Message::text(Role::User, "turn 1: edited");
    let failed: Vec<String> = verify_log(reducer.log(), &edited)
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(failed.len(), 3, "{failed:?}");
    for (e, r) in failed.iter().zip(&reducer.log().reductions[1..]) {
        assert!(e.contains(r.id.as_str()), "{e}");
    }
    let view = reducer.view().to_vec();
    assert_eq!(view.len(), 4);
    assert!(
        view[1]
            .content_text()
            .unwrap()
            .starts_with("[rehydrate:turns-cleared r3.")
    );
    assert_eq!(view[2], history[9]);
}

#[test]
fn a_whole_session_hashed_on_several_threads_gives_the_sequential_result() {
    // 6 MiB of tool results (over PARALLEL_HASH_MIN_BYTES) in 48 results of 128 KiB, where
    // result k repeats result k - 5: the parallel digests must land on their own messages.
    let block = |k: usize| format!("output {k:03}\n").repeat(128 * 1024 / 11);
    let mut history = vec![Message::text(Role::User, "go")];
    for k in 0..48 {
        let id = format!("c{k}");
        history.push(assistant_call(&id, "bash", "{}"));
        history.push(Message::tool_result(id, block(k % 5)));
    }
    let text_bytes: usize = history
        .iter()
        .filter(|m| m.is_tool_result())
        .map(|m| m.content_text().unwrap().len())
        .sum();
    assert!(text_bytes > rehydrate_reduce::PARALLEL_HASH_MIN_BYTES);

    // Per turn: every reduction is shown when decided, as the whole projection shows it.
    let policy = ReductionPolicy {
        minting: Minting::PerTurn,
        ..ReductionPolicy::default()
    };
    let mut whole = Reducer::new(policy.clone());
    whole.project(history.iter().cloned());
    // Turn by turn (one result per call, each hashed on the calling thread).
    let mut stepwise = Reducer::new(policy);
    stepwise.project([history[0].clone()]);
    for pair in history[1..].chunks(2) {
        stepwise.project(pair.iter().cloned());
    }
    assert_eq!(whole.log(), stepwise.log());
    assert_eq!(whole.view().to_vec(), stepwise.view().to_vec());
    assert!(verify_log(whole.log(), &history).is_empty());
    // The first five results are truncated; every later unprotected one duplicates one of them.
    let kinds: Vec<(usize, &'static str)> = whole
        .log()
        .reductions
        .iter()
        .map(|r| (r.ptr.addr.index, r.kind.stub_kind().as_str()))
        .collect();
    assert_eq!(kinds.len(), 45);
    assert_eq!(
        kinds[..5],
        [
            (2, "tool-output"),
            (4, "tool-output"),
            (6, "tool-output"),
            (8, "tool-output"),
            (10, "tool-output")
        ]
    );
    for (i, r) in whole.log().reductions.iter().enumerate().skip(5) {
        let rehydrate_model::ReductionKind::DuplicateOutput { canonical, .. } = r.kind else {
            panic!("reduction {i} is not a duplicate");
        };
        assert_eq!(canonical.index, 2 + 2 * (i % 5));
    }
}
