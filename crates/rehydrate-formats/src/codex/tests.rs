//! Unit tests of the Codex codec: grouping decisions on small rollouts.

#![allow(clippy::unwrap_used)]

use super::*;

fn rollout(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn an_event_after_its_user_message_joins_its_group() {
    let text = rollout(&[
        r#"{"timestamp":"t1","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#,
        r#"{"timestamp":"t2","type":"event_msg","payload":{"type":"token_count"}}"#,
        r#"{"timestamp":"t3","type":"event_msg","payload":{"type":"user_message","message":"hi"}}"#,
    ]);
    let (messages, warnings) = messages(Path::new("r.jsonl"), &text).unwrap();
    assert_eq!(messages.len(), 1);
    assert!(warnings.is_empty());
    assert_eq!(messages[0].metadata.get(keys::SOURCE), Some(&text));
    assert_eq!(write(&messages), text.as_bytes());
}

#[test]
fn an_event_alone_is_the_user_message() {
    let text = rollout(&[
        r#"{"timestamp":"t1","type":"event_msg","payload":{"type":"user_message","message":"hi"}}"#,
    ]);
    let (messages, _) = messages(Path::new("r.jsonl"), &text).unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].content_text(), Some("hi"));
    assert_eq!(
        messages[0]
            .metadata
            .get(keys::CODEX_USER_EVENT)
            .map(String::as_str),
        Some("true")
    );
}
