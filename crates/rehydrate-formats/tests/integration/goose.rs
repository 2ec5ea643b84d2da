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

/// `messages` without `goose.line`, which names the line of the file read.
fn without_lines(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .cloned()
        .map(|mut m| {
            m.metadata.remove(keys::GOOSE_LINE);
            m
        })
        .collect()
}

/// Imports `text` as Goose, writes the messages as a Goose session and imports that: the
/// messages must be the same but for their lines.
fn round_trip(text: &[u8]) {
    let first = import(Path::new("s.jsonl"), text, Some(Format::Goose)).unwrap();
    let written =
        rehydrate_formats::write(&first.messages, rehydrate_formats::ExportFormat::Goose).unwrap();
    let again = import(Path::new("written.jsonl"), &written, None).unwrap();
    assert_eq!(again.format, Format::Goose);
    assert_eq!(
        without_lines(&again.messages),
        without_lines(&first.messages)
    );
}

#[test]
fn a_written_session_imports_to_the_same_messages() {
    let bytes = std::fs::read(fixture_dir().join("goose-session.jsonl")).unwrap();
    round_trip(&bytes);
    let first = import(Path::new("s.jsonl"), &bytes, None).unwrap();
    let written = String::from_utf8(
        rehydrate_formats::write(&first.messages, rehydrate_formats::ExportFormat::Goose).unwrap(),
    )
    .unwrap();
    let lines: Vec<&str> = written.lines().collect();
    // The metadata line, then the nine messages the agent saw (msg_6 it never saw): msg_8's
    // result and text are one line again, msg_4's failed call is its toolRequest again.
    assert_eq!(lines.len(), 10);
    assert_eq!(
        lines[0],
        r#"{"description":"fix the failing test","message_count":9,"total_tokens":null,"working_dir":"/home/me/proj"}"#
    );
    assert_eq!(
        lines[4],
        r#"{"content":[{"id":"call_2","toolCall":{"status":"success","value":{"arguments":{},"name":"developer__screen_capture"}},"type":"toolRequest"},{"id":"call_3","toolCall":{"error":"-32602: could not parse the arguments","status":"error"},"type":"toolRequest"}],"created":1735725612,"id":"msg_4","metadata":{"agentVisible":true,"userVisible":true},"role":"assistant"}"#
    );
    assert_eq!(
        lines[7],
        r#"{"content":[{"id":"call_4","toolResult":{"error":"-32603: File does not exist","status":"error"},"type":"toolResponse"},{"text":"Also keep the docstring.","type":"text"}],"created":1735725621,"id":"msg_8","metadata":{"agentVisible":true,"userVisible":true},"role":"user"}"#
    );
    assert_eq!(
        rehydrate_formats::write_back(first.format, &bytes, &first.messages),
        rehydrate_formats::WriteBack::Messages
    );
}

/// A random Goose message line: text, an image, thinking, tool requests (some failed to parse),
/// tool responses (success, error, isError, the older array form), visibility flags.
fn goose_line() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::json;
    let item = prop_oneof![
        "[a-z ]{0,8}".prop_map(|t| json!({"type": "text", "text": t})),
        Just(json!({"type": "image", "data": "iVBO", "mimeType": "image/png"})),
        ("[a-z]{1,4}", any::<bool>()).prop_map(|(t, signed)| if signed {
            json!({"type": "thinking", "thinking": t, "signature": "s"})
        } else {
            json!({"type": "thinking", "thinking": t})
        }),
        ("[a-c]", 0..3u8).prop_map(|(id, ok)| match ok {
            0 => json!({"type": "toolRequest", "id": id, "toolCall": {"status": "error", "error": "bad"}}),
            _ => json!({"type": "toolRequest", "id": id,
                "toolCall": {"status": "success", "value": {"name": "shell", "arguments": {"c": id}}}}),
        }),
        ("[a-c]", 0..4u8, "[a-z\n]{0,6}").prop_map(|(id, kind, t)| {
            let result = match kind {
                0 => json!({"status": "error", "error": t}),
                1 => json!({"status": "success", "value": {"content": [{"type": "text", "text": t}], "isError": true}}),
                2 => json!({"status": "success", "value": [{"type": "text", "text": t},
                    {"type": "image", "data": "iVBO", "mimeType": "image/png"}]}),
                _ => json!({"status": "success", "value": {"content": [{"type": "text", "text": t}]}}),
            };
            json!({"type": "toolResponse", "id": id, "toolResult": result})
        }),
    ];
    (
        any::<bool>(),
        prop::collection::vec(item, 0..4),
        any::<bool>(),
        any::<bool>(),
        0..1000u32,
    )
        .prop_map(|(assistant, items, user_visible, agent_visible, n)| {
            // Only the assistant calls tools; tool responses come in user messages.
            let wanted = if assistant { "toolResponse" } else { "toolRequest" };
            let items: Vec<_> = items
                .into_iter()
                .filter(|i| i["type"] != wanted)
                .collect();
            json!({"id": format!("m{n}"), "role": if assistant { "assistant" } else { "user" },
                "created": 1_735_725_600 + n, "content": items,
                "metadata": {"userVisible": user_visible, "agentVisible": agent_visible || assistant}})
        })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

    /// Any Goose session imports, is written as a Goose session, and that imports to the same
    /// messages but for their lines.
    #[test]
    fn any_written_session_imports_to_the_same_messages(
        lines in proptest::collection::vec(goose_line(), 1..8),
    ) {
        let mut text = String::from(r#"{"working_dir":"/w","description":"d","message_count":0}"#);
        for line in &lines {
            text.push('\n');
            text.push_str(&line.to_string());
        }
        round_trip(text.as_bytes());
    }
}

#[test]
fn thinking_comes_first_and_anthropic_images_are_image_items() {
    let mut user = Message::text(Role::User, "");
    user.content = Some(Content::Parts(vec![
        serde_json::json!({"type": "text", "text": "see"}),
        serde_json::json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}),
    ]));
    let mut reply = Message::text(Role::Assistant, "a cat");
    reply
        .metadata
        .insert(THINKING_METADATA_KEY.into(), "look".into());
    reply
        .metadata
        .insert(THINKING_SIGNATURE_METADATA_KEY.into(), "sig".into());
    let written = String::from_utf8(
        rehydrate_formats::write(&[user, reply], rehydrate_formats::ExportFormat::Goose).unwrap(),
    )
    .unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(
        lines[1],
        r#"{"content":[{"text":"see","type":"text"},{"data":"iVBO","mimeType":"image/png","type":"image"}],"created":0,"metadata":{"agentVisible":true,"userVisible":true},"role":"user"}"#
    );
    assert_eq!(
        lines[2],
        r#"{"content":[{"signature":"sig","thinking":"look","type":"thinking"},{"text":"a cat","type":"text"}],"created":0,"metadata":{"agentVisible":true,"userVisible":true},"role":"assistant"}"#
    );
}

#[test]
fn result_items_the_model_is_not_shown_are_left_out_with_a_warning() {
    let text = concat!(
        r#"{"working_dir":"/w","description":"d"}"#,
        "\n",
        r#"{"id":"a","role":"assistant","created":1,"content":[{"type":"toolRequest","id":"c","toolCall":{"status":"success","value":{"name":"say","arguments":{}}}}]}"#,
        "\n",
        r#"{"id":"u","role":"user","created":2,"content":[{"type":"toolResponse","id":"c","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"spoken"},{"type":"audio","data":"A","mimeType":"audio/wav"},{"type":"resource","resource":{"uri":"file:///x.bin","blob":"AA=="}}]}}}]}"#,
        "\n",
    );
    let imported = import(Path::new("s.jsonl"), text.as_bytes(), None).unwrap();
    assert_eq!(imported.messages.len(), 2);
    assert_eq!(
        imported.messages[1].content,
        Some(Content::Text("spoken".into()))
    );
    let warnings: Vec<String> = imported.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "line 3: field `content[0].toolResult.value.content[1]`: a `audio` item not imported (the model is shown only text, images and text resources)",
            "line 3: field `content[0].toolResult.value.content[2]`: a resource without text not imported (the model is shown only text, images and text resources)",
        ]
    );
}
