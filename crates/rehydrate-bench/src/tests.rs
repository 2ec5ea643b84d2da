//! Unit tests of the workloads, the writer and the peer conversion.

use std::collections::HashSet;
use std::path::PathBuf;

use rehydrate_model::{Content, Message, Role, ToolCall};

use crate::peer::{peer_policy, to_peer};
use crate::wire::parse_messages;
use crate::workload::{Corpus, Until, check_reimport, write_openai};

/// A scratch file path unique to this process and `name`, in the system temp directory.
fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir()
        .join(format!("rehydrate-bench-{}", std::process::id()))
        .join(name)
}

/// Fails unless every tool result answers a call made earlier by an assistant message, and
/// every call id is made once.
fn assert_paired(messages: &[Message]) {
    let mut calls = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        for call in &m.tool_calls {
            assert!(calls.insert(call.id.clone()), "call id {} reused", call.id);
        }
        if let Some(id) = &m.tool_call_id {
            assert!(calls.contains(id), "message {i} answers unknown call {id}");
        }
    }
}

#[test]
fn synthetic_corpus_splits_into_turns() {
    let corpus = Corpus::synthetic();
    assert_eq!(corpus.turns.len(), 24);
    assert_eq!(corpus.prefix.len(), 1);
    assert_eq!(corpus.prefix[0].role, Role::System);
    assert!(corpus.notices.is_empty(), "{:?}", corpus.notices);
    for turn in &corpus.turns {
        assert!(turn[0].is_turn_start());
        assert!(turn[1..].iter().all(|m| !m.is_turn_start()));
    }
}

#[test]
fn prefixes_keep_one_system_prompt() {
    let system = Message::text(Role::System, "be brief");
    let sessions = vec![
        ("a".to_owned(), vec![Message::text(Role::Assistant, "hi")]),
        (
            "b".to_owned(),
            vec![
                system.clone(),
                Message::text(Role::Assistant, "ready"),
                Message::text(Role::User, "go"),
                Message::text(Role::Assistant, "done"),
            ],
        ),
        (
            "c".to_owned(),
            vec![
                Message::text(Role::System, "other prompt"),
                Message::text(Role::User, "again"),
                Message::text(Role::User, "and again"),
            ],
        ),
    ];
    let corpus = Corpus::from_sessions("test".to_owned(), sessions);
    assert_eq!(corpus.prefix, [system]);
    assert_eq!(corpus.turns.len(), 3);
    assert_eq!(corpus.turns[0].len(), 2);
    assert_eq!(
        corpus.notices,
        [
            "skipped a: no turn (no user message written by a person)",
            "b: dropped 1 message(s) before its first turn",
            "c: dropped 1 message(s) before its first turn",
        ]
    );
}

#[test]
fn scaling_repeats_turns_with_fresh_ids() {
    let corpus = Corpus::synthetic();
    let workload = corpus.scale("t", Until::Turns(60));
    assert_eq!(workload.turn_count(), 60);
    let messages = workload.messages();
    assert_eq!(messages.len(), workload.message_count());
    assert_paired(&messages);
    // Turn 25 is corpus turn 1 on the second pass: same content, ids suffixed `~1`.
    let again = &workload.turns()[24];
    assert_eq!(again[0].content, corpus.turns[0][0].content);
    assert_eq!(again[1].tool_calls[0].id, "call_0~1");
    assert_eq!(again[2].tool_call_id.as_deref(), Some("call_0~1"));
    assert_eq!(workload.turns()[48][1].tool_calls[0].id, "call_0~2");
    let wire: usize = messages.iter().map(Message::wire_len).sum();
    assert_eq!(workload.wire_bytes(), wire);
    let results = messages.iter().filter(|m| m.is_tool_result()).count();
    assert_eq!(workload.tool_result_count(), results);
}

#[test]
fn byte_bound_takes_the_fewest_whole_turns() {
    let corpus = Corpus::synthetic();
    let bound = 300_000;
    let workload = corpus.scale("b", Until::WireBytes(bound));
    assert!(workload.wire_bytes() >= bound);
    let last: usize = workload.turns()[workload.turn_count() - 1]
        .iter()
        .map(Message::wire_len)
        .sum();
    assert!(workload.wire_bytes() - last < bound);
    assert!(workload.describe().starts_with("workload b: "));
}

#[test]
fn written_workload_reimports_and_parses() -> Result<(), Box<dyn std::error::Error>> {
    let mut corpus = Corpus::synthetic();
    // Content parts and a name survive the round trip too.
    corpus.turns[0].push(Message {
        role: Role::User,
        content: Some(Content::Parts(vec![serde_json::json!({
            "type": "text", "text": "see \"this\"\n"
        })])),
        name: Some("reviewer".to_owned()),
        ..Message::default()
    });
    let workload = corpus.scale("w", Until::Turns(30));
    let path = scratch("w.json");
    let size = write_openai(&path, &workload.messages())?;
    let bytes = std::fs::read(&path)?;
    assert_eq!(size, bytes.len() as u64);
    check_reimport(&path, &workload.messages())?;
    let parsed = parse_messages(&bytes)?;
    assert_eq!(parsed.len(), workload.message_count());

    let mut fewer = workload.messages();
    fewer.pop();
    assert!(check_reimport(&path, &fewer).is_err());
    let mut changed = workload.messages();
    changed[3].content = Some(Content::Text("changed".to_owned()));
    let err = check_reimport(&path, &changed).err().map(|e| e.to_string());
    assert_eq!(
        err,
        Some(format!(
            "{}: message 3 imports differently from the message written",
            path.display()
        ))
    );
    std::fs::remove_file(&path)?;
    Ok(())
}

#[test]
fn peer_messages_serialize_to_our_wire_form() -> Result<(), serde_json::Error> {
    let mut messages = Corpus::synthetic().scale("p", Until::Turns(3)).messages();
    messages.push(Message {
        role: Role::Assistant,
        content: None,
        tool_calls: vec![ToolCall {
            id: "c9".to_owned(),
            name: "Read".to_owned(),
            arguments: r#"{"path":"a.rs"}"#.to_owned(),
        }],
        ..Message::default()
    });
    messages.push(Message {
        role: Role::User,
        content: Some(Content::Parts(vec![
            serde_json::json!({"type": "text", "text": "x"}),
        ])),
        name: Some("n".to_owned()),
        ..Message::default()
    });
    for message in &messages {
        let ours: serde_json::Value = serde_json::from_str(&message.wire_json())?;
        let theirs = serde_json::to_value(to_peer(message))?;
        assert_eq!(theirs, ours);
    }
    Ok(())
}

#[test]
fn peer_policy_matches_ours() {
    let ours = rehydrate_reduce::ReductionPolicy::default();
    let peer = peer_policy();
    assert_eq!(
        peer.tool_output_trigger_bytes,
        ours.tool_output_trigger_bytes
    );
    assert_eq!(
        peer.protect_last_n_tool_results,
        ours.protect_last_n_tool_results
    );
    assert_eq!(
        peer.tool_output_keep_bytes,
        ours.head_bytes + ours.tail_bytes
    );
    assert!(!peer.redact_images && !peer.diff_rereads && !peer.elide_tool_inputs);
    assert!(peer.deduplicate_outputs && peer.clear_turns_older_than.is_none());
}
