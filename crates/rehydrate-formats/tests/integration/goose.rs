//! Exact values of the Goose fixture's import and of its errors.

use std::path::Path;

use rehydrate_formats::{Format, detect, import, keys};
use rehydrate_model::{
    Content, IS_ERROR_METADATA_KEY, Message, Role, THINKING_METADATA_KEY,
    THINKING_SIGNATURE_METADATA_KEY,
};

use crate::{fixture_dir, import_fixture};

fn err(text: &str) -> String {
    import(Path::new("s.jsonl"), text.as_bytes(), Some(Format::Goose))
        .map(|_| "imported".to_string())
        .unwrap_or_else(|e| e.to_string())
}

/// Role, text, call ids and answered call of a message.
type Shape<'m> = (Role, Option<&'m str>, Vec<&'m str>, Option<&'m str>);

fn meta<'m>(m: &'m Message, key: &str) -> Option<&'m str> {
    m.metadata.get(key).map(String::as_str)
}

#[test]
fn what_the_agent_saw_is_imported() {
    let bytes = std::fs::read(fixture_dir().join("goose-session.jsonl")).unwrap();
    assert_eq!(detect(&bytes), Some(Format::Goose));
    let import = import_fixture("goose-session.jsonl").unwrap();
    use Role::*;
    let m = &import.messages;
    let shape: Vec<Shape> = m
        .iter()
        .map(|m| {
            (
                m.role,
                m.content_text(),
                m.tool_calls.iter().map(|c| c.id.as_str()).collect(),
                m.tool_call_id.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            (
                User,
                Some("The test in tests/test_math.py fails. Fix it."),
                vec![],
                None
            ),
            (
                Assistant,
                Some("Let me run the tests."),
                vec!["call_1"],
                None
            ),
            (Tool, Some("F.\n1 failed, 1 passed"), vec![], Some("call_1")),
            (Assistant, None, vec!["call_2"], None),
            (
                Tool,
                Some("Error: -32602: could not parse the arguments"),
                vec![],
                Some("call_3")
            ),
            (Tool, None, vec![], Some("call_2")),
            (Assistant, None, vec!["call_4"], None),
            (
                Tool,
                Some("The tool call returned the following error:\n-32603: File does not exist"),
                vec![],
                Some("call_4")
            ),
            (User, Some("Also keep the docstring."), vec![], None),
            (
                User,
                Some("Summary so far: the test fails on rounding."),
                vec![],
                None
            ),
            (Assistant, Some("The rounding test is fixed."), vec![], None),
        ]
    );
    assert_eq!(m[1].tool_calls[0].name, "developer__shell");
    assert_eq!(m[1].tool_calls[0].arguments, r#"{"command":"pytest -q"}"#);
    assert_eq!(m[3].tool_calls[0].arguments, "{}");
    assert_eq!(
        meta(&m[1], THINKING_METADATA_KEY),
        Some("Run the tests first.")
    );
    assert_eq!(meta(&m[1], THINKING_SIGNATURE_METADATA_KEY), Some("sig-1"));
    // The older result form (the content items themselves), with an image.
    assert_eq!(
        m[5].content,
        Some(Content::Parts(vec![
            serde_json::json!({"type": "text", "text": "Screenshot taken"}),
            serde_json::json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}),
        ]))
    );
    assert_eq!(meta(&m[4], IS_ERROR_METADATA_KEY), Some("true"));
    assert_eq!(meta(&m[7], IS_ERROR_METADATA_KEY), Some("true"));
    assert_eq!(meta(&m[2], IS_ERROR_METADATA_KEY), None);
    assert_eq!(meta(&m[0], keys::GOOSE_WORKING_DIR), Some("/home/me/proj"));
    assert_eq!(
        meta(&m[0], keys::GOOSE_DESCRIPTION),
        Some("fix the failing test")
    );
    assert_eq!(meta(&m[0], keys::GOOSE_ID), Some("msg_1"));
    assert_eq!(meta(&m[0], keys::GOOSE_CREATED), Some("1735725600"));
    assert_eq!(meta(&m[0], keys::GOOSE_LINE), Some("2"));
    assert_eq!(meta(&m[9], keys::GOOSE_USER_VISIBLE), Some("false"));
    assert_eq!(meta(&m[8], keys::GOOSE_USER_VISIBLE), None);
    let warnings: Vec<String> = import.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "line 5: field `content[1].toolCall`: a call that failed to parse; its error is a tool result call_3 without a call",
            "line 7: 1 message the agent never saw (`agentVisible: false`) not imported",
            "line 8: content items Goose never sends to the model (1 `systemNotification`) not imported",
        ]
    );
}

#[test]
fn malformed_lines_are_errors_naming_line_and_field() {
    let meta = r#"{"working_dir":"/w"}"#;
    let response = |result: &str| {
        format!(
            "{meta}\n{{\"role\":\"user\",\"content\":[{{\"type\":\"toolResponse\",\"id\":\"c\",\"toolResult\":{result}}}]}}\n"
        )
    };
    let cases = [
        (
            format!("{meta}\n{{\"role\":\"robot\",\"content\":[]}}\n"),
            "s.jsonl:2: field `role`: unknown role `robot`",
        ),
        (
            format!("{meta}\n{{\"role\":\"user\",\"content\":\"hi\"}}\n"),
            "s.jsonl:2: field `content`: expected an array, got a string",
        ),
        (
            format!("{meta}\n{{\"role\":\"user\",\"content\":[{{\"text\":\"hi\"}}]}}\n"),
            "s.jsonl:2: field `content[0].type`: missing (expected a string)",
        ),
        (
            format!(
                "{meta}\n{{\"role\":\"assistant\",\"content\":[{{\"type\":\"toolRequest\",\"id\":\"c\",\"toolCall\":{{\"status\":\"pending\"}}}}]}}\n"
            ),
            "s.jsonl:2: field `content[0].toolCall.status`: unknown status `pending`",
        ),
        (
            format!(
                "{meta}\n{{\"role\":\"user\",\"content\":[],\"metadata\":{{\"agentVisible\":\"no\"}}}}\n"
            ),
            "s.jsonl:2: field `metadata.agentVisible`: expected a boolean, got a string",
        ),
        (
            format!(
                "{meta}\n{{\"role\":\"user\",\"content\":[{{\"type\":\"toolRequest\",\"id\":\"c\"}}]}}\n"
            ),
            "s.jsonl:2: field `content[0].type`: a `toolRequest` in a user message (only the assistant calls tools)",
        ),
        (
            format!(
                "{meta}\n{{\"role\":\"assistant\",\"content\":[{{\"type\":\"toolResponse\",\"id\":\"c\"}}]}}\n"
            ),
            "s.jsonl:2: field `content[0].type`: a `toolResponse` in an assistant message (tool results come in user messages)",
        ),
        (
            response(r#"{"status":"success","value":{"content":"str"}}"#),
            "s.jsonl:2: field `content[0].toolResult.value.content`: expected an array, got a string",
        ),
        (
            response(r#"{"status":"success","value":{"content":[{"type":"audio","data":"A"}]}}"#),
            "s.jsonl:2: field `content[0].toolResult.value.content[0].type`: `audio` (expected text, image or resource)",
        ),
        (
            response(r#"{"status":"success","value":[{"type":"image","data":"AAAA"}]}"#),
            "s.jsonl:2: field `content[0].toolResult.value.content[0].mimeType`: missing (expected a string)",
        ),
        (
            response(r#"{"status":"success","value":{"content":[],"isError":"yes"}}"#),
            "s.jsonl:2: field `content[0].toolResult.value.isError`: expected a boolean, got a string",
        ),
        (
            response(r#"{"status":"error"}"#),
            "s.jsonl:2: field `content[0].toolResult.error`: missing (expected a string)",
        ),
        (
            format!("{meta}\n[1]\n"),
            "s.jsonl:2: field `(line)`: expected a JSON object",
        ),
        (
            format!("{meta}\n{{\"role\":\"user\",\"content\":[\n"),
            "s.jsonl:2: invalid JSON: EOF while parsing a list at column 26",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(err(&text), expected, "{text}");
    }
    // A file whose metadata line did not parse starts with a message, as Goose allows.
    let bare = r#"{"role":"user","created":1,"content":[{"type":"text","text":"hi"}]}"#;
    assert_eq!(detect(bare.as_bytes()), Some(Format::Goose));
    let one = import(Path::new("s.jsonl"), bare.as_bytes(), None).unwrap();
    assert_eq!(one.messages.len(), 1);
    // A message with nothing to send and a session without messages are warned.
    let empty = format!("{meta}\n{{\"role\":\"user\",\"content\":[]}}\n");
    let import = import(Path::new("s.jsonl"), empty.as_bytes(), None).unwrap();
    let warnings: Vec<String> = import.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "line 2: 1 message with nothing to send to the model not imported",
            "the session has no messages"
        ]
    );
}
