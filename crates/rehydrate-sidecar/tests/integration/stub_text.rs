//! Stub text the input itself holds (a tool result of `cat view.json`, a pasted stub, a stub a
//! model copied into a tool call) is content: a reduced session holding it exports exactly as
//! its unreduced copy does, in every form, and a stub the input lacks still never gets out.

use rehydrate_formats::ExportFormat;
use rehydrate_model::{
    Content, Message, REDUCTION_METADATA_KEY, Reduction, ReductionLog, Role, ToolDetails,
    check_tool_input, find_stubs,
};
use rehydrate_sidecar::{Error, ExportError, check_exportable, export_session, stub_message};
use rehydrate_test_support::{call, calling};

use crate::export::{duplicate, read_jsonl};
use crate::{log_of, truncation};

/// `line 1\n` … `line <n>\n`.
fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// The span of `text` between its first `head` lines and its last `tail` lines.
fn middle(text: &str, head: usize, tail: usize) -> (usize, usize) {
    let ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
    (ends[head - 1], ends[ends.len() - 1 - tail])
}

/// The ids of the stubs in a message's text content, in order.
fn ids_in(m: &Message) -> Vec<String> {
    find_stubs(m.content_text().unwrap())
        .iter()
        .map(|s| s.id().to_string())
        .collect()
}

/// The view of `minted` with each reduction of `log` standing at its message.
fn view_of(minted: &[Message], log: &ReductionLog) -> Vec<Message> {
    let mut view = minted.to_vec();
    for r in &log.reductions {
        let i = r.ptr.addr.index;
        view[i] = stub_message(r, &minted[i]).unwrap();
    }
    view
}

/// The reduced session exports, in every form, exactly as its unreduced copy does: JSONL is the
/// canonical lines of `minted`, each body the one `request_body` writes for `minted`.
fn assert_exports_as_unreduced(view: &[Message], log: &ReductionLog, minted: &[Message]) {
    assert_ne!(view, minted);
    assert_eq!(check_exportable(view, log, minted), Ok(()));
    let lines: String = minted
        .iter()
        .map(|m| serde_json::to_string(m).unwrap() + "\n")
        .collect();
    for format in ExportFormat::ALL {
        let reduced = export_session(view, log, minted, format).unwrap();
        let unreduced = export_session(minted, &ReductionLog::default(), minted, format).unwrap();
        assert_eq!(reduced, unreduced, "{format}");
        let expected = match format {
            ExportFormat::Jsonl => lines.clone().into_bytes(),
            other => rehydrate_formats::write(minted, other).unwrap(),
        };
        assert_eq!(reduced, expected, "{format}");
    }
    let jsonl = export_session(view, log, minted, ExportFormat::Jsonl).unwrap();
    assert_eq!(read_jsonl(&jsonl), minted);
}

/// A session that ran `cat out/view.json` (message 3) and read it again (message 7, with
/// details): the output holds the stub of this log's r1 (of message 5), stubs naming ids this
/// log lacks (`r7.abcdef`, and `r0.b35021`, `r2.000000`, whose ordinals are this log's), and
/// their reduction keys as text. r0 truncates message 3, r1 message 5, r2 is message 7 as a
/// duplicate of message 3.
fn cat_view_session() -> (Vec<Message>, ReductionLog, Vec<Message>) {
    let big = numbered(40);
    let r1 = truncation(1, 5, &big, middle(&big, 3, 2));
    let mut view_json = String::from("[\n");
    view_json.push_str(&format!(
        "{{\"role\":\"tool\",\"content\":\"{}\",\"tool_call_id\":\"t9\",\"metadata\":{{\"{REDUCTION_METADATA_KEY}\":\"{}\"}}}},\n",
        r1.stub, r1.id
    ));
    view_json.push_str(
        "{\"role\":\"tool\",\"content\":\"[rehydrate:duplicate r7.abcdef | same 120 bytes as message 4]\"},\n",
    );
    view_json.push_str(
        "{\"role\":\"user\",\"content\":\"[rehydrate:turns-cleared r0.b35021 | 3 turns cleared]\"},\n",
    );
    for i in 0..30 {
        view_json.push_str(&format!(
            "{{\"role\":\"user\",\"content\":\"filler {i}\"}},\n"
        ));
    }
    view_json.push_str(
        "{\"role\":\"assistant\",\"content\":\"see [rehydrate:tool-output r2.000000 | 5 of 9 bytes hidden]\"}\n]\n",
    );
    let r0 = truncation(0, 3, &view_json, middle(&view_json, 4, 2));
    let r2 = duplicate(2, 7, 3, &view_json);
    let read = Message {
        details: Some(Box::new(ToolDetails::WholeRead {
            path: "/w/out/view.json".into(),
            content: view_json.clone(),
        })),
        ..Message::tool_result("t3", view_json.clone())
    };
    let minted = vec![
        Message::text(Role::System, "sys"),
        Message::text(Role::User, "what did the last reduction hide?"),
        calling(
            None,
            vec![call("t1", "Bash", r#"{"command":"cat out/view.json"}"#)],
        ),
        Message::tool_result("t1", view_json.clone()),
        calling(None, vec![call("t2", "cat", r#"{"path":"big.log"}"#)]),
        Message::tool_result("t2", big),
        calling(
            None,
            vec![call("t3", "Read", r#"{"file_path":"/w/out/view.json"}"#)],
        ),
        read,
        Message::text(Role::Assistant, "the view holds four stubs"),
    ];
    let log = log_of(vec![r0, r1, r2]);
    let view = view_of(&minted, &log);
    (view, log, minted)
}

#[test]
fn a_session_that_ran_cat_view_json_exports_as_it_was() {
    let (view, log, minted) = cat_view_session();
    let [r0, r1, r2] = [0, 1, 2].map(|k| log.reductions[k].id.to_string());
    // The input's own stub text, ids of this log and others alike.
    let own = [r1.as_str(), "r7.abcdef", "r0.b35021", "r2.000000"];
    assert_eq!(ids_in(&minted[3]), own);
    assert_eq!(ids_in(&minted[7]), own);
    // The view shows the head and tail around r0's stub, and r2's stub alone.
    assert_eq!(
        ids_in(&view[3]),
        [r1.as_str(), "r7.abcdef", "r0.b35021", &r0, "r2.000000"]
    );
    assert_eq!(ids_in(&view[5]), [r1.as_str()]);
    assert_eq!(ids_in(&view[7]), [r2.as_str()]);
    assert_eq!(view[7].details, None);
    assert_exports_as_unreduced(&view, &log, &minted);

    // The OpenAI body carries the output of `cat` byte for byte.
    let body = export_session(&view, &log, &minted, ExportFormat::OpenAi).unwrap();
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        body["messages"][3]["content"].as_str(),
        minted[3].content_text()
    );
}

#[test]
fn a_pasted_stub_and_the_inputs_own_reduction_key_export_as_they_were() {
    let big = numbered(40);
    let r0 = truncation(0, 3, &big, middle(&big, 3, 2));
    let r1 = duplicate(1, 5, 3, &big);
    let mut pasted_again = Message {
        content: Some(Content::Parts(vec![
            serde_json::json!({"type": "text", "text": format!("again:\n{}", r1.stub)}),
            serde_json::json!({"type": "text", "text": "thanks"}),
        ])),
        ..Message::text(Role::User, "")
    };
    // Metadata an earlier tool wrote: the input's own, key included.
    pasted_again
        .metadata
        .insert(REDUCTION_METADATA_KEY.into(), r1.id.to_string());
    pasted_again.metadata.insert("note".into(), r0.stub.clone());
    let minted = vec![
        Message::text(Role::System, "sys"),
        Message::text(
            Role::User,
            format!(
                "the agent showed `{}` and `[rehydrate:tool-output r3.9f3c2a | 90 of 100 bytes hidden (3 lines); expand_reduction restores them]`; what is hidden?",
                r0.stub
            ),
        ),
        calling(None, vec![call("t1", "cat", r#"{"path":"big.log"}"#)]),
        Message::tool_result("t1", big.clone()),
        calling(None, vec![call("t2", "cat", r#"{"path":"big.log"}"#)]),
        Message::tool_result("t2", big),
        pasted_again,
        Message::text(Role::Assistant, "the middle of big.log"),
    ];
    assert_eq!(ids_in(&minted[1]), [r0.id.as_str(), "r3.9f3c2a"]);
    let log = log_of(vec![r0, r1]);
    let view = view_of(&minted, &log);
    assert_eq!(view[6], minted[6]);
    assert_exports_as_unreduced(&view, &log, &minted);
}

/// r0 truncates message 3; message 4 copies its stub into its text and into two Write calls,
/// the second behind a JSON escape.
fn copied_stub_session() -> (Vec<Message>, ReductionLog, Vec<Message>) {
    let big = numbered(40);
    let r0: Reduction = truncation(0, 3, &big, middle(&big, 3, 2));
    let stub = r0.stub.clone();
    let plain =
        serde_json::json!({"file_path": "/w/notes.md", "content": format!("kept:\n{stub}\n")})
            .to_string();
    let escaped = format!(
        r#"{{"file_path":"/w/raw.md","content":"\u005b{}"}}"#,
        &stub[1..]
    );
    let minted = vec![
        Message::text(Role::System, "sys"),
        Message::text(Role::User, "read big.log and keep notes"),
        calling(None, vec![call("t1", "cat", r#"{"path":"big.log"}"#)]),
        Message::tool_result("t1", big),
        calling(
            Some(&format!("The output was cut: {stub}")),
            vec![call("w1", "Write", &plain), call("w2", "Write", &escaped)],
        ),
        Message::tool_result("w1", "ok"),
        Message::tool_result("w2", "ok"),
        Message::text(Role::Assistant, "notes written"),
    ];
    let log = log_of(vec![r0]);
    let view = view_of(&minted, &log);
    (view, log, minted)
}

#[test]
fn stubs_copied_into_tool_call_arguments_export_as_they_were() {
    let (view, log, minted) = copied_stub_session();
    let id = log.reductions[0].id.to_string();
    assert_eq!(ids_in(&minted[4]), [id.as_str()]);
    for call in &minted[4].tool_calls {
        let found: Vec<String> = check_tool_input(call)
            .iter()
            .map(|s| s.id().to_string())
            .collect();
        assert_eq!(found, [id.as_str()], "{}", call.id);
    }
    assert_exports_as_unreduced(&view, &log, &minted);
}

#[test]
fn a_stub_the_input_lacks_never_reaches_the_export() {
    let (view, log, minted) = copied_stub_session();
    let stub = log.reductions[0].stub.clone();
    let refused = |view: &[Message], view_index: usize, sidecar: usize| {
        for format in [
            ExportFormat::Jsonl,
            ExportFormat::OpenAi,
            ExportFormat::Anthropic,
        ] {
            let err = export_session(view, &log, &minted, format).unwrap_err();
            assert_eq!(
                err,
                ExportError::Unresolved(Error::ViewMismatch {
                    view_index,
                    reason: format!(
                        "differs from sidecar message {sidecar} and stands for no reduction"
                    ),
                })
            );
            assert_eq!(
                err.to_string(),
                format!(
                    "view message {view_index}: differs from sidecar message {sidecar} and stands for no reduction"
                )
            );
        }
    };
    // A stub added to a message the input holds without it.
    let mut added = view.clone();
    added[1] = Message::text(Role::User, format!("read big.log and keep notes {stub}"));
    refused(&added, 1, 1);
    // A stub added to a message that already holds it once.
    let mut twice = view.clone();
    let text = format!("{}\n{stub}", minted[4].content_text().unwrap());
    twice[4].content = Some(Content::Text(text));
    refused(&twice, 4, 4);
    // The stand-in of r0 with its reduction key dropped: its stub is not the input's.
    let mut bare = view;
    bare[3].metadata.clear();
    refused(&bare, 3, 3);
}

#[test]
fn a_stub_drops_the_source_bytes_of_its_message_and_inverting_gives_them_back() {
    use rehydrate_formats::keys;
    let big = numbered(6);
    let mut result = Message::tool_result("c1", big.clone());
    for (key, value) in [
        (keys::SOURCE, "{\"type\":\"function_call_output\"}\n"),
        (keys::SOURCE_TAIL, "{\"type\":\"event_msg\"}\n"),
        (keys::DOCUMENT, "{\"model\":\"m\"}"),
        ("timestamp", "2026-12-01T00:00:00Z"),
    ] {
        result.metadata.insert(key.to_string(), value.to_string());
    }
    let minted = vec![Message::text(Role::User, "go"), result];
    let log = log_of(vec![truncation(0, 1, &big, middle(&big, 2, 1))]);
    let view = view_of(&minted, &log);
    let kept: Vec<&str> = view[1].metadata.keys().map(String::as_str).collect();
    assert_eq!(kept, [keys::DOCUMENT, "rehydrate.reduction", "timestamp"]);
    assert_eq!(
        rehydrate_sidecar::invert(&view, &log, &minted).unwrap(),
        minted
    );
}
