//! Regression tests for bugs found in review, each failing before its fix.

use rehydrate_model::{Message, REDUCTION_METADATA_KEY, ReductionLog, Role};
use rehydrate_reduce::{ReductionPolicy, project_messages};
use rehydrate_sidecar::{invert, verify_log};
use rehydrate_test_support::assistant_call;

fn wire(messages: &[Message]) -> usize {
    messages.iter().map(Message::wire_len).sum()
}

#[test]
fn a_history_message_carrying_the_reduction_key_inverts() {
    let mut m = Message::text(Role::User, "hello");
    m.metadata
        .insert(REDUCTION_METADATA_KEY.into(), "r0.abcdef".into());
    let history = vec![Message::text(Role::System, "sys"), m];
    let out = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::default(),
    );
    assert_eq!(out.view, history);
    assert_eq!(invert(&out.view, &out.log, &history), Ok(history));
}

#[test]
fn line_breaks_around_the_stub_count_as_wire_bytes() {
    // 616 bytes of output: the stub and its two escaped line breaks would save nothing.
    let mut history = vec![
        Message::text(Role::User, "go"),
        Message::tool_result("c0", "a".repeat(616)),
    ];
    for i in 1..4 {
        history.push(Message::tool_result(format!("c{i}"), format!("ok{i}")));
    }
    let out = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::aggressive(),
    );
    assert!(
        wire(&out.view) <= wire(&history),
        "{} > {}",
        wire(&out.view),
        wire(&history)
    );
}

#[test]
fn an_edited_stub_does_not_verify() {
    let mut history = vec![
        Message::text(Role::User, "go"),
        Message::tool_call("a", "cat", "{}"),
        Message::tool_result("a", "line a\n".repeat(3000)),
        Message::tool_call("b", "cat", "{}"),
        Message::tool_result("b", "line b\n".repeat(3000)),
    ];
    for i in 0..3 {
        history.push(Message::tool_call(format!("s{i}"), "true", "{}"));
        history.push(Message::tool_result(format!("s{i}"), "ok"));
    }
    let out = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::default(),
    );
    assert_eq!(out.log.len(), 2);
    let mut swapped = out.log.clone();
    let first = swapped.reductions[0].stub.clone();
    swapped.reductions[0].stub = swapped.reductions[1].stub.clone();
    swapped.reductions[1].stub = first;
    let errors: Vec<String> = verify_log(&swapped, &history)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("stub does not match its reduction"),
        "{errors:?}"
    );
    // Projecting with the edited log does not reuse the bad stubs.
    let again = project_messages(&history, &swapped, &ReductionPolicy::default());
    assert_eq!(
        invert(&again.view, &again.log, &history),
        Ok(history.clone())
    );
    assert!(
        again.view[2]
            .content_text()
            .unwrap()
            .contains(again.log.reductions[2].id.as_str())
    );
}

#[test]
fn a_reused_cleared_range_never_separates_a_call_from_a_later_result() {
    let policy = ReductionPolicy {
        clear_turns_older_than: Some(1),
        ..ReductionPolicy::default()
    };
    let prefix = vec![
        Message::text(Role::System, "sys"),
        Message::text(Role::User, "u1 ".repeat(400)),
        assistant_call("c1", "bash", "{}"),
        Message::text(Role::User, "u2: also do X"),
    ];
    let early = project_messages(&prefix, &ReductionLog::default(), &policy);
    let mut history = prefix.clone();
    history.push(Message::tool_result("c1", "result of c1"));
    history.push(Message::text(Role::Assistant, "done"));
    let later = project_messages(&history, &early.log, &policy);
    // c1's result now sits after the old boundary: the old range must not be reused.
    let calls: Vec<&str> = later
        .view
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str()))
        .collect();
    assert_eq!(calls, vec!["c1"]);
    assert_eq!(invert(&later.view, &later.log, &history), Ok(history));
}

#[test]
fn a_call_before_the_first_turn_keeps_its_result() {
    let policy = ReductionPolicy {
        clear_turns_older_than: Some(1),
        ..ReductionPolicy::default()
    };
    let history = vec![
        Message::text(Role::System, "sys"),
        assistant_call("c0", "bash", "{}"),
        Message::text(Role::User, "u1 ".repeat(400)),
        Message::tool_result("c0", "r0"),
        Message::text(Role::User, "u2"),
    ];
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    // No turn is cleared (the range would start between c0 and its result); the call opens
    // the conversation, so a user message is put before it, and the result is moved up to
    // its call, the person's message after it.
    let kinds: Vec<&str> = out
        .log
        .reductions
        .iter()
        .map(|r| r.kind.stub_kind().as_str())
        .collect();
    assert_eq!(kinds, ["conversation-opened", "moved-result"]);
    let texts: Vec<Option<&str>> = out.view.iter().map(Message::content_text).collect();
    assert_eq!(
        texts,
        [
            Some("sys"),
            Some(out.log.reductions[0].stub.as_str()),
            None,
            Some("r0"),
            history[2].content_text(),
            Some("u2")
        ]
    );
    assert_eq!(invert(&out.view, &out.log, &history), Ok(history));
}
