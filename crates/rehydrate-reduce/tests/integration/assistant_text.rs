//! Assistant text truncated: when an assistant message is decided (once, as it leaves the
//! protected window), which messages are left alone (content parts, folded calls, a policy
//! that does not reduce assistant text), and reuse from a resumed log.

use rehydrate_model::{
    Content, Message, REDUCTION_METADATA_KEY, ReductionKind, ReductionLog, Role, ToolCall,
};
use rehydrate_reduce::{Minting, Reducer, ReductionPolicy, project_messages};
use rehydrate_sidecar::{expand_reduction, invert, verify_log};

/// A plan of `lines` lines of 25 bytes: `plan step 00 of the work\n`, ….
fn plan(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("plan step {i:02} of the work\n"))
        .collect()
}

/// Assistant text over 200 bytes keeps 48 bytes of head and of tail; the newest 2 assistant
/// messages with text are protected.
fn policy() -> ReductionPolicy {
    ReductionPolicy {
        assistant_text_trigger_bytes: Some(200),
        assistant_text_head_bytes: 48,
        assistant_text_tail_bytes: 48,
        protect_last_n_assistant_messages: 2,
        minting: Minting::PerTurn,
        ..ReductionPolicy::default()
    }
}

fn calling(id: &str, text: Option<String>) -> Message {
    Message {
        role: Role::Assistant,
        content: text.map(Content::Text),
        tool_calls: vec![ToolCall {
            id: id.into(),
            name: "bash".into(),
            arguments: "{}".into(),
        }],
        ..Message::default()
    }
}

/// The history indices of the assistant text truncations in `log`.
fn truncated(log: &ReductionLog) -> Vec<usize> {
    log.reductions
        .iter()
        .filter(|r| matches!(r.kind, ReductionKind::AssistantTextTruncated { .. }))
        .map(|r| r.ptr.addr.index)
        .collect()
}

#[test]
fn a_message_is_decided_when_it_leaves_the_protected_window() {
    let mut reducer = Reducer::new(policy());
    assert_eq!(
        reducer.project([
            Message::text(Role::User, "plan it"),
            Message::text(Role::Assistant, plan(20)),
        ]),
        0
    );
    // Calls without text do not move the window.
    for i in 0..3 {
        let id = format!("c{i}");
        reducer.project([calling(&id, None), Message::tool_result(id, "ok")]);
    }
    assert!(reducer.log().is_empty());
    assert_eq!(
        reducer.project([calling("c3", Some("running the tests".into()))]),
        0
    );
    // The third assistant message with text pushes the plan out of the window.
    assert_eq!(
        reducer.project([
            Message::tool_result("c3", "ok"),
            Message::text(Role::Assistant, "done"),
        ]),
        1
    );
    assert_eq!(truncated(reducer.log()), [1]);
    let r = &reducer.log().reductions[0];
    assert_eq!(
        r.stub,
        format!(
            "[rehydrate:assistant-text {} | 450 of 500 bytes of assistant text hidden (18 lines); expand_reduction restores them]",
            r.id
        )
    );
    let view = reducer.view();
    let shown = view.get(1).unwrap();
    assert_eq!(
        shown.content_text().unwrap(),
        format!(
            "plan step 00 of the work\n\n{}\nplan step 19 of the work\n",
            r.stub
        )
    );
    let history = reducer.history().to_vec();
    assert_eq!(
        expand_reduction(reducer.log(), &history, r.id.as_str(), None)
            .unwrap()
            .content,
        plan(20)
    );
    // Later turns decide nothing again, and the one-shot form gives the same.
    assert_eq!(reducer.project([Message::text(Role::User, "thanks")]), 0);
    let history = reducer.history().to_vec();
    let one_shot = project_messages(&history, &ReductionLog::default(), &policy());
    assert_eq!(&one_shot.log, reducer.log());
    assert_eq!(one_shot.view, reducer.view().to_vec());
    assert_eq!(invert(&one_shot.view, &one_shot.log, &history), Ok(history));
}

#[test]
fn parts_folded_calls_and_small_texts_are_left_alone() {
    let parts = Message {
        role: Role::Assistant,
        content: Some(Content::Parts(vec![
            serde_json::json!({"type": "text", "text": plan(20)}),
        ])),
        ..Message::default()
    };
    // A call the APIs refuse (its arguments are not a JSON object) is folded into the text.
    let mut folded = calling("c1", Some(plan(20)));
    folded.tool_calls[0].arguments = "ls -la".into();
    let history = vec![
        Message::text(Role::User, "go"),
        parts,
        folded,
        Message::tool_result("c1", "a.txt"),
        Message::text(Role::Assistant, plan(8)), // 200 bytes: not over the trigger
        Message::text(Role::Assistant, plan(20)),
        Message::text(Role::Assistant, plan(20)),
        Message::text(Role::Assistant, plan(20)),
    ];
    let out = project_messages(&history, &ReductionLog::default(), &policy());
    let kinds: Vec<(usize, &str)> = out
        .log
        .reductions
        .iter()
        .map(|r| (r.ptr.addr.index, r.kind.stub_kind().as_str()))
        .collect();
    // The folded message keeps its folded form; the parts and the small text are unchanged;
    // of the three long texts the oldest is truncated and the newest two are protected.
    assert_eq!(
        kinds,
        [
            (2, "folded-calls"),
            (3, "orphan-result"),
            (5, "assistant-text")
        ]
    );
    assert_eq!(out.view[1], history[1]);
    assert_eq!(out.view[4], history[4]);
    assert_eq!(out.view[6], history[6]);
    assert!(verify_log(&out.log, &history).is_empty());
    assert_eq!(invert(&out.view, &out.log, &history), Ok(history.clone()));

    // The default policy reduces no assistant text, and neither does one that protects them
    // all.
    let default = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::default(),
    );
    assert!(truncated(&default.log).is_empty());
    let protected = ReductionPolicy {
        protect_last_n_assistant_messages: 4,
        ..policy()
    };
    let out = project_messages(&history, &ReductionLog::default(), &protected);
    assert!(truncated(&out.log).is_empty());
}

#[test]
fn a_truncation_is_minted_only_where_it_saves_enough() {
    // 225 bytes, of which 175 (182 wire bytes, its 7 line breaks escaped) would be hidden
    // behind a stub of 122 bytes and two line breaks (4 wire bytes): 56 wire bytes saved,
    // under the default `min_saved_bytes` of 128.
    let history = vec![
        Message::text(Role::User, "go"),
        Message::text(Role::Assistant, plan(9)),
        Message::text(Role::Assistant, "a"),
        Message::text(Role::Assistant, "b"),
    ];
    let out = project_messages(&history, &ReductionLog::default(), &policy());
    assert!(out.log.is_empty());
    assert_eq!(out.view, history);
    let zero = ReductionPolicy {
        min_saved_bytes: 0,
        ..policy()
    };
    let out = project_messages(&history, &ReductionLog::default(), &zero);
    assert_eq!(truncated(&out.log), [1]);
    assert_eq!(out.log.reductions[0].stub.len(), 122);
    let wire = |m: &[Message]| m.iter().map(Message::wire_len).sum::<usize>();
    assert_eq!(wire(&history) - wire(&out.view), 56);
    let at = ReductionPolicy {
        min_saved_bytes: 56,
        ..policy()
    };
    let out = project_messages(&history, &ReductionLog::default(), &at);
    assert_eq!(truncated(&out.log), [1]);
    let above = ReductionPolicy {
        min_saved_bytes: 57,
        ..policy()
    };
    let out = project_messages(&history, &ReductionLog::default(), &above);
    assert!(out.log.is_empty());
}

#[test]
fn a_resumed_truncation_is_reused_while_it_verifies() {
    let history = vec![
        Message::text(Role::User, "go"),
        Message::text(Role::Assistant, plan(20)),
        Message::text(Role::Assistant, "a"),
        Message::text(Role::Assistant, "b"),
    ];
    let first = project_messages(&history, &ReductionLog::default(), &policy());
    assert_eq!(truncated(&first.log), [1]);
    // Resumed under a policy that reduces no assistant text, the logged truncation still
    // stands: the log is a memo of decisions.
    let mut resumed = Reducer::resume(ReductionPolicy::default(), first.log.clone());
    assert_eq!(resumed.project(history.iter().cloned()), 0);
    assert_eq!(resumed.view().to_vec(), first.view);
    // A history whose message changed since does not reuse it: a new decision is made.
    let mut edited = history.clone();
    edited[1] = Message::text(Role::Assistant, plan(21));
    let again = project_messages(&edited, &first.log, &policy());
    assert_eq!(again.minted, 1);
    assert_eq!(truncated(&again.log), [1, 1]);
    assert_eq!(
        again.view[1].metadata[REDUCTION_METADATA_KEY],
        again.log.reductions[1].id.to_string()
    );
    assert_eq!(
        verify_log(&again.log, &edited).len(),
        1,
        "the old one no longer verifies"
    );
    assert_eq!(invert(&again.view, &again.log, &edited), Ok(edited));
}
