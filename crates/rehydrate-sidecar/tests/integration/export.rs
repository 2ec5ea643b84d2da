//! `export_session`: the three forms on a small reduced session, the leak guard, the tool-link
//! check, the Anthropic merges and reasoning, and a round trip of every Claude Code and SWE-agent
//! session of the shared corpus.

use rehydrate_formats::ExportFormat;
use rehydrate_model::{
    Content, Message, REDUCTION_METADATA_KEY, Reduction, ReductionKind, ReductionLog, Role,
    ToolDetails,
};
use rehydrate_sidecar::{
    ExportError, check_tool_links, expected_stub, export_session, stub_message,
};
use rehydrate_test_support::{call, calling, corpus_sessions};
use serde_json::Value;

use crate::{cleared_session_with, log_of, truncation};

fn with_meta(mut m: Message, pairs: &[(&str, &str)]) -> Message {
    for (k, v) in pairs {
        m.metadata.insert((*k).into(), (*v).into());
    }
    m
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap()
}

fn export(messages: &[Message], format: ExportFormat) -> Result<Vec<u8>, ExportError> {
    export_session(messages, &ReductionLog::default(), messages, format)
}

/// [`rehydrate_test_support::duplicate`]: the tool result at `index`, equal to the one at
/// `canonical`, with the stub [`expected_stub`] renders.
pub(crate) fn duplicate(ordinal: usize, index: usize, canonical: usize, text: &str) -> Reduction {
    rehydrate_test_support::duplicate(ordinal, index, canonical, text, |r| expected_stub(r, &[]))
}

const OUTPUT: &str = "l1\nl2\nl3\nl4\n";

/// Ten messages: 1-3 cleared (r0), the output at 6 truncated (r1), the one at 8 a duplicate of
/// it (r2). Returns the view, the log and the minted view.
fn reduced_session() -> (Vec<Message>, ReductionLog, Vec<Message>) {
    let (mut minted, cleared) = cleared_session_with("a.txt\nb.txt\n".into());
    minted.extend([
        with_meta(
            calling(
                Some("reading"),
                vec![call("t2", "cat", r#"{"path":"a.txt"}"#)],
            ),
            &[("thinking", "look at a"), ("thinking_signature", "sig1")],
        ),
        Message::tool_result("t2", OUTPUT),
        calling(None, vec![call("t3", "cat", r#"{"path":"a.txt"}"#)]),
        Message::tool_result("t3", OUTPUT),
        Message::text(Role::Assistant, "done"),
    ]);
    let mut log = cleared;
    log.reductions.push(truncation(1, 6, OUTPUT, (3, 9)));
    log.reductions.push(duplicate(2, 8, 6, OUTPUT));
    let stub = |k: usize| {
        stub_message(
            &log.reductions[k],
            &minted[log.reductions[k].ptr.addr.index],
        )
    };
    let view = vec![
        minted[0].clone(),
        stub(0).unwrap(),
        minted[4].clone(),
        minted[5].clone(),
        stub(1).unwrap(),
        minted[7].clone(),
        stub(2).unwrap(),
        minted[9].clone(),
    ];
    (view, log_of(log.reductions), minted)
}

#[test]
fn jsonl_is_the_inverted_session_one_canonical_message_per_line() {
    let (view, log, minted) = reduced_session();
    let out = text(export_session(&view, &log, &minted, ExportFormat::Jsonl).unwrap());
    let expected = [
        r#"{"role":"system","content":"sys"}"#,
        r#"{"role":"user","content":"hi"}"#,
        r#"{"role":"assistant","tool_calls":[{"id":"t1","type":"function","function":{"name":"ls","arguments":"{}"}}]}"#,
        r#"{"role":"tool","content":"a.txt\nb.txt\n","tool_call_id":"t1"}"#,
        r#"{"role":"user","content":"next"}"#,
        r#"{"role":"assistant","content":"reading","tool_calls":[{"id":"t2","type":"function","function":{"name":"cat","arguments":"{\"path\":\"a.txt\"}"}}],"metadata":{"thinking":"look at a","thinking_signature":"sig1"}}"#,
        r#"{"role":"tool","content":"l1\nl2\nl3\nl4\n","tool_call_id":"t2"}"#,
        r#"{"role":"assistant","tool_calls":[{"id":"t3","type":"function","function":{"name":"cat","arguments":"{\"path\":\"a.txt\"}"}}]}"#,
        r#"{"role":"tool","content":"l1\nl2\nl3\nl4\n","tool_call_id":"t3"}"#,
        r#"{"role":"assistant","content":"done"}"#,
    ];
    assert_eq!(out, expected.map(|l| format!("{l}\n")).concat());
    assert_eq!(read_jsonl(out.as_bytes()), minted);
}

#[test]
fn openai_body_is_the_wire_forms() {
    let (view, log, minted) = reduced_session();
    let out = text(export_session(&view, &log, &minted, ExportFormat::OpenAi).unwrap());
    let expected = concat!(
        r#"{"messages":["#,
        r#"{"role":"system","content":"sys"},"#,
        r#"{"role":"user","content":"hi"},"#,
        r#"{"role":"assistant","tool_calls":[{"id":"t1","type":"function","function":{"name":"ls","arguments":"{}"}}]},"#,
        r#"{"role":"tool","content":"a.txt\nb.txt\n","tool_call_id":"t1"},"#,
        r#"{"role":"user","content":"next"},"#,
        r#"{"role":"assistant","content":"reading","tool_calls":[{"id":"t2","type":"function","function":{"name":"cat","arguments":"{\"path\":\"a.txt\"}"}}]},"#,
        r#"{"role":"tool","content":"l1\nl2\nl3\nl4\n","tool_call_id":"t2"},"#,
        r#"{"role":"assistant","tool_calls":[{"id":"t3","type":"function","function":{"name":"cat","arguments":"{\"path\":\"a.txt\"}"}}]},"#,
        r#"{"role":"tool","content":"l1\nl2\nl3\nl4\n","tool_call_id":"t3"},"#,
        r#"{"role":"assistant","content":"done"}"#,
        "]}"
    );
    assert_eq!(out, expected);
    check_openai_body(out.as_bytes());
}

#[test]
fn anthropic_body_has_blocks_and_merged_tool_results() {
    let (view, log, minted) = reduced_session();
    let out = text(export_session(&view, &log, &minted, ExportFormat::Anthropic).unwrap());
    let expected = concat!(
        r#"{"system":"sys","messages":["#,
        r#"{"role":"user","content":[{"type":"text","text":"hi"}]},"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ls","input":{}}]},"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt\nb.txt\n"},{"type":"text","text":"next"}]},"#,
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"look at a","signature":"sig1"},{"type":"text","text":"reading"},{"type":"tool_use","id":"t2","name":"cat","input":{"path":"a.txt"}}]},"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"l1\nl2\nl3\nl4\n"}]},"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"cat","input":{"path":"a.txt"}}]},"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"l1\nl2\nl3\nl4\n"}]},"#,
        r#"{"role":"assistant","content":[{"type":"text","text":"done"}]}"#,
        "]}"
    );
    assert_eq!(out, expected);
    check_anthropic_body(out.as_bytes());
}

#[test]
fn an_unresolvable_reduction_fails_the_export_naming_its_id() {
    let (view, log, minted) = reduced_session();
    let id = log.reductions[1].id.to_string();

    // The truncation's recorded size was edited: the view's stub no longer verifies.
    let mut tampered = log.clone();
    if let ReductionKind::ToolOutputTruncated { original_bytes, .. } =
        &mut tampered.reductions[1].kind
    {
        *original_bytes = 99;
    }
    for format in [
        ExportFormat::Jsonl,
        ExportFormat::OpenAi,
        ExportFormat::Anthropic,
    ] {
        let err = export_session(&view, &tampered, &minted, format).unwrap_err();
        assert!(matches!(err, ExportError::Unresolved(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!("reduction {id}: records 99 original bytes but message 6 has 12")
        );
    }

    // The sidecar's original changed after minting.
    let mut changed = minted.clone();
    changed[8] = Message::tool_result("t3", "l1\nl2\n");
    let err = export_session(&view, &log, &changed, ExportFormat::Jsonl).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "reduction {}: digest mismatch at message 8",
            log.reductions[2].id
        )),
        "{err}"
    );

    // A reduction the view does not use but that does not verify still fails the export.
    let mut extra = log.clone();
    extra
        .reductions
        .push(truncation(3, 3, "not the text", (0, 4)));
    let bad = extra.reductions[3].id.to_string();
    let err = export_session(&view, &extra, &minted, ExportFormat::Jsonl).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("reduction {bad}: digest mismatch at message 3")),
        "{err}"
    );

    // A stub naming a reduction the log lacks.
    let err = export_session(&view, &log_of(vec![]), &minted, ExportFormat::Jsonl).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("view message 1: names reduction `r0."),
        "{err}"
    );
}

#[test]
fn stub_text_and_the_reduction_key_the_input_holds_are_content() {
    let (view, log, _) = reduced_session();

    // A reduced view passed as its own sidecar, with no log: its stubs name no reduction of
    // this log, so they and their reduction keys are the input's own text.
    let out = export(&view, ExportFormat::Jsonl).unwrap();
    assert_eq!(read_jsonl(&out), view);
    assert_eq!(
        text(out).lines().nth(1).unwrap(),
        format!(
            r#"{{"role":"user","content":"{}\n\nwe listed files","metadata":{{"{REDUCTION_METADATA_KEY}":"{}"}}}}"#,
            log.reductions[0].stub, log.reductions[0].id
        )
    );

    // A stub in a content part, in tool-call arguments, in metadata, in details.
    let stub = log.reductions[2].stub.clone();
    let parts = Message {
        content: Some(Content::Parts(vec![
            serde_json::json!({"type": "text", "text": "ok"}),
            serde_json::json!({"type": "text", "text": format!("x\n{stub}")}),
        ])),
        ..Message::default()
    };
    let args = calling(
        None,
        vec![call(
            "w1",
            "Write",
            &serde_json::json!({ "content": stub }).to_string(),
        )],
    );
    let meta = with_meta(Message::text(Role::Assistant, "fine"), &[("note", &stub)]);
    let details = Message {
        details: Some(Box::new(ToolDetails::WholeRead {
            path: "/a.txt".into(),
            content: format!("{stub}\n"),
        })),
        ..Message::tool_result("r1", "1\ta.txt")
    };
    for message in [parts, args, meta, details] {
        let messages = [Message::text(Role::User, "go"), message];
        let out = export(&messages, ExportFormat::Jsonl).unwrap();
        assert_eq!(read_jsonl(&out), messages);
    }

    // Text that only looks like a stub is not one.
    let lookalike = Message::text(Role::User, "[rehydrate:tool-output oops] and [rehydrate:");
    assert!(export(&[lookalike], ExportFormat::Jsonl).is_ok());
}

#[test]
fn a_dangling_call_fails_the_request_bodies_but_not_jsonl() {
    let messages = vec![
        Message::text(Role::User, "go"),
        calling(None, vec![call("t1", "ls", "{}"), call("t2", "ls", "{}")]),
        Message::tool_result("t1", "a"),
        Message::text(Role::User, "stop"),
    ];
    for format in [ExportFormat::OpenAi, ExportFormat::Anthropic] {
        let err = export(&messages, format).unwrap_err();
        assert!(err.is_dangling_call());
        assert_eq!(
            err.to_string(),
            "message 1: tool call t2 has no tool result right after it"
        );
    }
    let jsonl = export(&messages, ExportFormat::Jsonl).unwrap();
    assert_eq!(read_jsonl(&jsonl), messages);
    // A session saved while a tool ran: the call is the last message.
    let err = check_tool_links(&messages[..2]).unwrap_err();
    assert_eq!(
        err,
        ExportError::DanglingCall {
            index: 1,
            call_id: "t1".into()
        }
    );
}

#[test]
fn tool_links_are_checked_exactly() {
    let go = || Message::text(Role::User, "go");
    let two = || calling(None, vec![call("t1", "ls", "{}"), call("t2", "ls", "{}")]);
    let cases: Vec<(Vec<Message>, &str)> = vec![
        // A result after a user message answers nothing.
        (
            vec![
                two(),
                Message::tool_result("t1", "a"),
                go(),
                Message::tool_result("t2", "b"),
            ],
            "message 0: tool call t2 has no tool result right after it",
        ),
        (
            vec![go(), Message::tool_result("t1", "a")],
            "message 1: tool result t1 answers no tool call of the assistant message right before it",
        ),
        (
            vec![two(), Message::tool_result("t3", "a")],
            "message 1: tool result t3 answers no tool call of the assistant message right before it",
        ),
        (
            vec![
                two(),
                Message::tool_result("t1", "a"),
                Message::tool_result("t1", "a"),
            ],
            "message 2: second tool result for tool call t1 (the first is message 1)",
        ),
        (
            vec![
                two(),
                Message {
                    role: Role::Tool,
                    content: Some(Content::Text("a".into())),
                    ..Message::default()
                },
            ],
            "message 1: tool result has no tool_call_id",
        ),
        (
            vec![calling(
                None,
                vec![call("t1", "ls", "{}"), call("t1", "ls", "{}")],
            )],
            "message 0: tool call id t1 is used twice in one assistant message",
        ),
        // A result for the earlier message's reused id, after the later message: not its own.
        (
            vec![
                calling(None, vec![call("t1", "ls", "{}")]),
                Message::tool_result("t1", "a"),
                calling(None, vec![call("t1", "ls", "{}")]),
                go(),
            ],
            "message 2: tool call t1 has no tool result right after it",
        ),
    ];
    for (messages, expected) in cases {
        let err = check_tool_links(&messages).unwrap_err();
        assert_eq!(err.to_string(), expected);
        for format in [ExportFormat::OpenAi, ExportFormat::Anthropic] {
            assert_eq!(export(&messages, format).unwrap_err(), err);
        }
    }
    // Results in any order, a reused id answered again, observations as user messages.
    let fine = vec![
        two(),
        Message::tool_result("t2", "b"),
        Message::tool_result("t1", "a"),
        calling(None, vec![call("t1", "ls", "{}")]),
        Message::tool_result("t1", "a"),
        Message {
            observation: true,
            ..Message::text(Role::User, "$ ls\na")
        },
    ];
    check_tool_links(&fine).unwrap();
    let openai = text(export(&fine, ExportFormat::OpenAi).unwrap());
    assert!(
        openai.ends_with(r#"{"role":"user","content":"$ ls\na"}]}"#),
        "{openai}"
    );
}

#[test]
fn anthropic_merges_roles_and_keeps_reasoning_whole_or_not_at_all() {
    let messages = vec![
        Message::text(Role::System, "be brief"),
        Message::text(Role::User, "first"),
        Message::text(Role::User, "second"),
        // Empty: no block, left out.
        Message::text(Role::User, ""),
        // Two thinking blocks joined by the importer: left out.
        with_meta(
            Message::text(Role::Assistant, "plan"),
            &[("thinking", "a\n\nb"), ("thinking_signature", "s1\ns2")],
        ),
        // Redacted thinking alone, but merged into the assistant message before it: left out
        // whole (reasoning must open a message).
        with_meta(
            calling(
                None,
                vec![
                    call("t1", "ls", "{}"),
                    call("t2", "cat", r#"{ "path" : "x" }"#),
                ],
            ),
            &[("redacted_thinking", "d1\nd2")],
        ),
        Message::tool_result("t1", "ok"),
        with_meta(Message::tool_result("t2", "boom"), &[("is_error", "true")]),
        Message {
            observation: true,
            ..Message::text(Role::User, "why")
        },
        // A system message mid-session joins `system`.
        Message::text(Role::System, "and kind"),
        // Thinking and redacted thinking together (order unknown): left out.
        with_meta(
            Message::text(Role::Assistant, "done"),
            &[
                ("thinking", "t"),
                ("thinking_signature", "sig"),
                ("redacted_thinking", "r"),
            ],
        ),
        // Unsigned thinking and nothing else: no block, left out.
        with_meta(
            Message {
                role: Role::Assistant,
                ..Message::default()
            },
            &[("thinking", "hmm")],
        ),
        Message {
            content: Some(Content::Parts(vec![
                serde_json::json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}),
            ])),
            ..Message::default()
        },
        with_meta(
            Message::text(Role::Assistant, "seen"),
            &[("thinking", "an image"), ("thinking_signature", "sig9")],
        ),
    ];
    let out = text(export(&messages, ExportFormat::Anthropic).unwrap());
    let expected = concat!(
        r#"{"system":"be brief\n\nand kind","messages":["#,
        r#"{"role":"user","content":[{"type":"text","text":"first"},{"type":"text","text":"second"}]},"#,
        r#"{"role":"assistant","content":[{"type":"text","text":"plan"},{"type":"tool_use","id":"t1","name":"ls","input":{}},{"type":"tool_use","id":"t2","name":"cat","input":{ "path" : "x" }}]},"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"tool_result","tool_use_id":"t2","content":"boom","is_error":true},{"type":"text","text":"why"}]},"#,
        r#"{"role":"assistant","content":[{"type":"text","text":"done"}]},"#,
        r#"{"role":"user","content":[{"source":{"data":"AA==","media_type":"image/png","type":"base64"},"type":"image"}]},"#,
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"an image","signature":"sig9"},{"type":"text","text":"seen"}]}"#,
        "]}"
    );
    assert_eq!(out, expected);
    check_anthropic_body(out.as_bytes());
    // No system message: no `system` key.
    let out = text(export(&messages[1..2], ExportFormat::Anthropic).unwrap());
    assert_eq!(
        out,
        r#"{"messages":[{"role":"user","content":[{"type":"text","text":"first"}]}]}"#
    );
}

#[test]
fn anthropic_refuses_what_it_cannot_carry() {
    for (arguments, reason) in [
        (
            "not json",
            "invalid JSON: expected ident at line 1 column 2",
        ),
        ("[1]", "a JSON array"),
        (
            "",
            "invalid JSON: EOF while parsing a value at line 1 column 0",
        ),
    ] {
        let messages = vec![
            Message::text(Role::User, "go"),
            calling(None, vec![call("t9", "ls", arguments)]),
            Message::tool_result("t9", "a"),
        ];
        let err = export(&messages, ExportFormat::Anthropic).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "message 1 (arguments-not-object): tool call t9: arguments are not a JSON object ({reason}); an Anthropic tool_use input must be one"
            )
        );
        // The OpenAI body carries arguments as a string.
        assert!(export(&messages, ExportFormat::OpenAi).is_ok());
    }
    let system = Message {
        role: Role::System,
        content: Some(Content::Parts(vec![
            serde_json::json!({"type": "text", "text": "be brief"}),
            serde_json::json!({"type": "image_url", "image_url": {"url": "x"}}),
        ])),
        ..Message::default()
    };
    let err = export(std::slice::from_ref(&system), ExportFormat::Anthropic).unwrap_err();
    assert_eq!(
        err.to_string(),
        "message 0 (system-part): system content part 1 is not a text part; the Anthropic system text holds text only"
    );
    let mut text_parts = system;
    if let Some(Content::Parts(parts)) = &mut text_parts.content {
        parts[1] = serde_json::json!({"type": "text", "text": "and kind"});
    }
    let hi = Message::text(Role::User, "hi");
    let out = text(export(&[text_parts, hi], ExportFormat::Anthropic).unwrap());
    assert_eq!(
        out,
        r#"{"system":"be brief\n\nand kind","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}"#
    );
}

#[test]
fn an_empty_session_exports_jsonl_only() {
    assert_eq!(export(&[], ExportFormat::Jsonl).unwrap(), b"");
    // Neither API accepts a body without a message.
    assert_eq!(
        export(&[], ExportFormat::OpenAi).unwrap_err().to_string(),
        "message 0 (no-messages): the body has no message"
    );
    assert_eq!(
        export(&[], ExportFormat::Anthropic)
            .unwrap_err()
            .to_string(),
        "message 0 (no-messages): the body has no message besides the system text"
    );
}

#[test]
fn corpus_sessions_export_and_read_back() {
    let Some((dir, sessions)) = corpus_sessions(
        &[("claude-code", "jsonl"), ("swe-agent", "traj")],
        "export corpus check",
    ) else {
        return;
    };
    let mut dangling = Vec::new();
    for path in &sessions {
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let bytes = std::fs::read(path).unwrap();
        let import = rehydrate_formats::import(path, &bytes, None).unwrap();
        let messages = &import.messages;
        let jsonl = export(messages, ExportFormat::Jsonl)
            .unwrap_or_else(|e| panic!("{name}: jsonl export: {e}"));
        assert!(
            read_jsonl(&jsonl) == *messages,
            "{name}: JSONL reads back other messages"
        );
        // The importer warns of each call no later result answers: exactly those sessions
        // fail, and only with a dangling call it warned of.
        let unanswered = |id: &str| {
            let warning = format!("tool call {id} has no tool result");
            import
                .warnings
                .iter()
                .any(|w| w.message.ends_with(&warning))
        };
        let warned = import
            .warnings
            .iter()
            .any(|w| w.message.ends_with("has no tool result"));
        for format in [ExportFormat::OpenAi, ExportFormat::Anthropic] {
            match export(messages, format) {
                Ok(body) => {
                    assert!(
                        !warned,
                        "{name}: {format}: exported a session with an unanswered call"
                    );
                    match format {
                        ExportFormat::OpenAi => check_openai_body(&body),
                        ExportFormat::Anthropic => check_anthropic_body(&body),
                        // Not among the forms this test exports.
                        ExportFormat::Responses
                        | ExportFormat::Codex
                        | ExportFormat::GeminiCli
                        | ExportFormat::Goose
                        | ExportFormat::Jsonl => {
                            unreachable!()
                        }
                    }
                }
                Err(ExportError::DanglingCall { index, call_id }) => {
                    assert!(
                        unanswered(&call_id),
                        "{name}: {format}: message {index}: call {call_id} dangles but the importer did not warn"
                    );
                    dangling.push(format!("{name} {format}"));
                }
                Err(e) => panic!("{name}: {format} export: {e}"),
            }
        }
    }
    eprintln!(
        "export corpus check: {} sessions; dangling calls: {dangling:?}",
        sessions.len()
    );
}

pub(crate) fn read_jsonl(bytes: &[u8]) -> Vec<Message> {
    let text = std::str::from_utf8(bytes).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'));
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Checks an OpenAI body from its JSON alone: every assistant message's tool calls are answered
/// by the tool messages right after it, each once, and no tool message stands elsewhere.
fn check_openai_body(body: &[u8]) {
    let v: Value = serde_json::from_slice(body).unwrap();
    let messages = v["messages"].as_array().unwrap();
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        assert_ne!(m["role"], "tool", "tool message {i} answers nothing");
        i += 1;
        let Some(calls) = m["tool_calls"].as_array() else {
            continue;
        };
        let mut open: Vec<&str> = calls.iter().map(|c| c["id"].as_str().unwrap()).collect();
        while let Some(r) = messages.get(i).filter(|r| r["role"] == "tool") {
            let id = r["tool_call_id"].as_str().unwrap();
            let k = open.iter().position(|c| *c == id).unwrap();
            open.remove(k);
            i += 1;
        }
        assert!(open.is_empty(), "calls {open:?} unanswered");
    }
}

/// Checks an Anthropic body from its JSON alone: roles alternate, content is a non-empty block
/// list, every assistant message's `tool_use` ids are answered by the `tool_result` blocks that
/// open the next user message, each once, and no `tool_result` stands elsewhere.
fn check_anthropic_body(body: &[u8]) {
    let v: Value = serde_json::from_slice(body).unwrap();
    let messages = v["messages"].as_array().unwrap();
    let mut expected_uses: Vec<&str> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap();
        assert!(role == "user" || role == "assistant");
        if i > 0 {
            assert_ne!(
                messages[i - 1]["role"],
                m["role"],
                "message {i} repeats a role"
            );
        }
        let blocks = m["content"].as_array().unwrap();
        assert!(!blocks.is_empty());
        let results: Vec<&str> = blocks
            .iter()
            .take_while(|b| b["type"] == "tool_result")
            .map(|b| b["tool_use_id"].as_str().unwrap())
            .collect();
        assert!(
            blocks[results.len()..]
                .iter()
                .all(|b| b["type"] != "tool_result"),
            "message {i}: a tool_result after other blocks"
        );
        let mut sorted = results.clone();
        sorted.sort_unstable();
        expected_uses.sort_unstable();
        assert_eq!(
            sorted, expected_uses,
            "message {i}: results do not answer the calls"
        );
        expected_uses = blocks
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| {
                assert!(b["input"].is_object());
                b["id"].as_str().unwrap()
            })
            .collect();
        assert!(role == "assistant" || expected_uses.is_empty());
    }
    assert!(expected_uses.is_empty(), "the last calls are unanswered");
}

#[test]
fn redacted_thinking_opens_its_message_and_empty_assistants_leave_the_openai_body() {
    let minted = vec![
        Message::text(Role::User, "go"),
        with_meta(
            Message::text(Role::Assistant, "ok"),
            &[("redacted_thinking", "d1\nd2")],
        ),
        Message::text(Role::User, "again"),
        // Only reasoning: no content, no calls.
        with_meta(
            Message {
                role: Role::Assistant,
                ..Message::default()
            },
            &[("thinking", "hmm")],
        ),
    ];
    let log = ReductionLog::default();
    let anthropic = export_session(&minted, &log, &minted, ExportFormat::Anthropic).unwrap();
    assert_eq!(
        String::from_utf8(anthropic).unwrap(),
        r#"{"messages":[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"redacted_thinking","data":"d1"},{"type":"redacted_thinking","data":"d2"},{"type":"text","text":"ok"}]},{"role":"user","content":[{"type":"text","text":"again"}]}]}"#
    );
    let openai = export_session(&minted, &log, &minted, ExportFormat::OpenAi).unwrap();
    assert_eq!(
        String::from_utf8(openai).unwrap(),
        r#"{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":"ok"},{"role":"user","content":"again"}]}"#
    );
}

#[test]
fn the_link_check_passes_over_a_message_both_bodies_leave_out() {
    let mut thinking = Message::text(Role::Assistant, " ");
    thinking.metadata.insert("thinking".into(), "hmm".into());
    let messages = vec![
        Message::text(Role::User, "go"),
        calling(None, vec![call("a", "ls", "{}")]),
        thinking,
        Message::tool_result("a", "1"),
    ];
    assert_eq!(check_tool_links(&messages), Ok(()));
    let mut unanswered = messages.clone();
    unanswered.pop();
    assert_eq!(
        check_tool_links(&unanswered).unwrap_err().to_string(),
        "message 1: tool call a has no tool result right after it"
    );
}
