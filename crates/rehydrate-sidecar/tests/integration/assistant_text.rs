//! Assistant text truncated: the stub, the view form (tool calls and metadata kept), resolution,
//! expand, inversion and the errors of a tampered or misaddressed reduction, with exact values.

use std::collections::BTreeMap;

use rehydrate_model::{
    Content, Message, MessageAddr, REDUCTION_METADATA_KEY, Reduction, ReductionId, ReductionKind,
    Role, SidecarPtr, Span, THINKING_METADATA_KEY, THINKING_SIGNATURE_METADATA_KEY, ToolCall,
};
use rehydrate_sidecar::{
    Error, content_digest, expand_reduction, expected_stub, invert, reduction_total_bytes, resolve,
    stub_message, verify_log,
};

use crate::log_of;

/// `line 1\n` … `line 10\n`: 71 bytes; lines 3-8 are bytes `[14, 56)`.
fn plan() -> String {
    (1..=10).map(|i| format!("line {i}\n")).collect()
}

/// An assistant message with `text`, one tool call and signed thinking in its metadata.
fn assistant(text: &str) -> Message {
    Message {
        role: Role::Assistant,
        content: Some(Content::Text(text.into())),
        tool_calls: vec![ToolCall {
            id: "toolu_1".into(),
            name: "Bash".into(),
            arguments: r#"{"command":"ls"}"#.into(),
        }],
        metadata: BTreeMap::from([
            (THINKING_METADATA_KEY.to_string(), "think first".to_string()),
            (
                THINKING_SIGNATURE_METADATA_KEY.to_string(),
                "sig".to_string(),
            ),
        ]),
        ..Message::default()
    }
}

/// The truncation of assistant message `index` whose text is `text`, hiding `span`.
fn assistant_truncation(
    ordinal: usize,
    index: usize,
    text: &str,
    span: (usize, usize),
) -> Reduction {
    let digest = content_digest(text.as_bytes());
    let span = Span::new(span.0, span.1).unwrap();
    let mut r = Reduction {
        id: ReductionId::new(ordinal, &digest),
        kind: ReductionKind::AssistantTextTruncated {
            original_bytes: text.len(),
            hidden_lines: text[span.range()].matches('\n').count(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index,
                role: Role::Assistant,
            },
            span: Some(span),
            digest,
        },
        stub: String::new(),
    };
    r.stub = expected_stub(&r, &[]);
    r
}

/// A user request, the assistant message, the result of its call.
fn session(text: &str) -> Vec<Message> {
    vec![
        Message::text(Role::User, "plan it"),
        assistant(text),
        Message::tool_result("toolu_1", "a.txt\n"),
    ]
}

#[test]
fn the_stub_and_view_form_keep_head_tail_calls_and_metadata() {
    let text = plan();
    assert_eq!(text.len(), 71);
    let minted = session(&text);
    let r = assistant_truncation(0, 1, &text, (14, 56));
    let id = r.id.to_string();
    assert_eq!(
        r.stub,
        format!(
            "[rehydrate:assistant-text {id} | 42 of 71 bytes of assistant text hidden (6 lines); expand_reduction restores them]"
        )
    );
    let view = stub_message(&r, &minted[1]).unwrap();
    assert_eq!(
        view.content_text().unwrap(),
        format!("line 1\nline 2\n\n{}\nline 9\nline 10\n", r.stub)
    );
    let mut expected = minted[1].clone();
    expected.content = Some(Content::Text(format!(
        "line 1\nline 2\n\n{}\nline 9\nline 10\n",
        r.stub
    )));
    expected
        .metadata
        .insert(REDUCTION_METADATA_KEY.to_string(), id.clone());
    assert_eq!(view, expected);
    assert_eq!(view.tool_calls, minted[1].tool_calls);
    assert_eq!(view.metadata[THINKING_METADATA_KEY], "think first");
    assert_eq!(view.metadata[THINKING_SIGNATURE_METADATA_KEY], "sig");
}

#[test]
fn expand_whole_and_ranged_and_invert() {
    let text = plan();
    let minted = session(&text);
    let r = assistant_truncation(0, 1, &text, (14, 56));
    let id = r.id.to_string();
    let log = log_of(vec![r.clone()]);
    assert!(verify_log(&log, &minted).is_empty());
    let whole = expand_reduction(&log, &minted, &id, None).unwrap();
    assert_eq!(
        (whole.content.as_ref(), whole.total_bytes, whole.range),
        (text.as_str(), 71, None)
    );
    let ranged = expand_reduction(&log, &minted, &id, Some((14, 21))).unwrap();
    assert_eq!(ranged.content, "line 3\n");
    assert_eq!(ranged.range, Some(Span::new(14, 21).unwrap()));
    let clamped = expand_reduction(&log, &minted, &id, Some((63, 500))).unwrap();
    assert_eq!(clamped.content, "line 10\n");
    assert_eq!(reduction_total_bytes(&log, &minted, &id).unwrap(), 71);
    assert_eq!(resolve(&log, &minted, &id).unwrap().text, text);

    let mut view = minted.clone();
    view[1] = stub_message(&r, &minted[1]).unwrap();
    assert_eq!(invert(&view, &log, &minted).unwrap(), minted);
    // A view whose stub message lost its tool call does not invert.
    view[1].tool_calls.clear();
    let err = invert(&view, &log, &minted).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("view message 1: does not match the stub of reduction {id}")
    );
}

#[test]
fn a_tampered_text_is_a_digest_mismatch_naming_the_id() {
    let text = plan();
    let r = assistant_truncation(0, 1, &text, (14, 56));
    let id = r.id.to_string();
    let log = log_of(vec![r]);
    let tampered_text = text.replace("line 5", "line five");
    let tampered = session(&tampered_text);
    let err = expand_reduction(&log, &tampered, &id, None).unwrap_err();
    assert!(err.is_digest_mismatch());
    assert_eq!(
        err.to_string(),
        format!(
            "reduction {id}: digest mismatch at message 1: expected {}, got {}",
            content_digest(text.as_bytes()),
            content_digest(tampered_text.as_bytes())
        )
    );
    assert_eq!(verify_log(&log, &tampered).len(), 1);
}

#[test]
fn a_wrong_role_or_content_errors() {
    let text = plan();
    // The pointer names an assistant message where the sidecar holds a tool result.
    let minted = vec![
        Message::text(Role::User, "go"),
        Message::tool_result("c1", text.clone()),
    ];
    let r = assistant_truncation(0, 1, &text, (14, 56));
    let log = log_of(vec![r.clone()]);
    let err = resolve(&log, &minted, r.id.as_str()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "reduction {}: role mismatch at message 1: expected assistant, found tool",
            r.id
        )
    );
    // A pointer that names the tool role, matching the message, is still not an assistant
    // text truncation.
    let mut on_tool = r.clone();
    on_tool.ptr.addr.role = Role::Tool;
    let log = log_of(vec![on_tool]);
    let err = resolve(&log, &minted, r.id.as_str()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "reduction {}: an assistant text truncation addresses message 1, which is a tool message",
            r.id
        )
    );
    // Content parts are not reduced by this kind: their text is not the message's text.
    let mut parts = assistant(&text);
    parts.content = Some(Content::Parts(vec![
        serde_json::json!({"type": "text", "text": text}),
    ]));
    let minted = vec![Message::text(Role::User, "go"), parts];
    let log = log_of(vec![r.clone()]);
    let err = resolve(&log, &minted, r.id.as_str()).unwrap_err();
    assert_eq!(
        err,
        Error::NoTextContent {
            id: r.id.to_string(),
            index: 1
        }
    );
}

#[test]
fn recorded_facts_and_stub_must_agree_with_the_text() {
    let text = plan();
    let minted = session(&text);
    let mut r = assistant_truncation(0, 1, &text, (14, 56));
    r.kind = ReductionKind::AssistantTextTruncated {
        original_bytes: 71,
        hidden_lines: 5,
    };
    r.stub = expected_stub(&r, &minted);
    let log = log_of(vec![r.clone()]);
    let err = resolve(&log, &minted, r.id.as_str()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "reduction {}: records 5 hidden lines but its hidden span holds 6",
            r.id
        )
    );
    // The stub of a tool output with the same facts is not this kind's stub.
    let mut r = assistant_truncation(0, 1, &text, (14, 56));
    r.stub = r.stub.replace(" of assistant text", "");
    let log = log_of(vec![r.clone()]);
    let err = resolve(&log, &minted, r.id.as_str()).unwrap_err();
    let expected = assistant_truncation(0, 1, &text, (14, 56)).stub;
    assert_eq!(
        err.to_string(),
        format!(
            "reduction {}: stub does not match its reduction: expected `{expected}`",
            r.id
        )
    );
    // A span that cuts a char in two.
    let text = "héllo wörld, a plan";
    let minted = session(text);
    let mut r = assistant_truncation(0, 1, text, (1, 8));
    r.ptr.span = Some(Span::new(2, 8).unwrap());
    let log = log_of(vec![r.clone()]);
    let err = resolve(&log, &minted, r.id.as_str()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::BadSpan {
                start: 2,
                end: 8,
                total_bytes: 21,
                ..
            }
        ),
        "{err}"
    );
}
