//! Responses inputs and Anthropic bodies: snapshots of each fixture, the round trip (import then
//! write gives the same JSON value), cross-format writes that pass the validity rules, and a
//! property over random documents.

use std::path::Path;

use proptest::prelude::*;
use rehydrate_formats::{Api, Format, check_request, import, request_body};
use serde_json::{Value, json};

use crate::{fixture_dir, import_path, render};

fn fixtures(dir: &str) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(fixture_dir().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn body_fixture_snapshots() {
    insta::glob!(
        "../../../../fixtures/formats",
        "{responses,anthropic}/*.json",
        |path| {
            insta::assert_snapshot!(render(&import_path(path)));
        }
    );
}

/// Import then write in the format read gives the same JSON value.
fn round_trip(bytes: &[u8], format: Format, api: Api) -> Result<(), String> {
    let imported = import(Path::new("x.json"), bytes, None).map_err(|e| e.to_string())?;
    if imported.format != format {
        return Err(format!("detected {}", imported.format));
    }
    let body = rehydrate_formats::write(
        &imported.messages,
        match api {
            Api::Responses => rehydrate_formats::ExportFormat::Responses,
            Api::OpenAi => rehydrate_formats::ExportFormat::OpenAi,
            Api::Anthropic => rehydrate_formats::ExportFormat::Anthropic,
        },
    );
    // A body that breaks a rule is still written by the writer itself: compare that.
    let written = match body {
        Ok(b) => b,
        Err(_) => raw_write(&imported.messages, api),
    };
    let want: Value = serde_json::from_slice(bytes).unwrap();
    let got: Value = serde_json::from_slice(&written)
        .map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&written)))?;
    if want == got {
        Ok(())
    } else {
        Err(format!("want {want}\n got {got}"))
    }
}

/// The writer without the rules (bad-input fixtures break them on purpose).
fn raw_write(messages: &[rehydrate_model::Message], api: Api) -> Vec<u8> {
    let format = match api {
        Api::OpenAi => rehydrate_formats::ExportFormat::OpenAi,
        Api::Anthropic => rehydrate_formats::ExportFormat::Anthropic,
        Api::Responses => rehydrate_formats::ExportFormat::Responses,
    };
    rehydrate_formats::write_unchecked(messages, format)
}

#[test]
fn every_fixture_round_trips() {
    for path in fixtures("responses") {
        let bytes = std::fs::read(&path).unwrap();
        round_trip(&bytes, Format::Responses, Api::Responses)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    for path in fixtures("anthropic") {
        let bytes = std::fs::read(&path).unwrap();
        round_trip(&bytes, Format::Anthropic, Api::Anthropic)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    for name in ["openai-array.json", "openai-object.json"] {
        let bytes = std::fs::read(fixture_dir().join(name)).unwrap();
        round_trip(&bytes, Format::OpenAi, Api::OpenAi).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn openai_chat_keeps_the_source_of_elements_that_are_not_their_wire_form() {
    use rehydrate_formats::keys;
    let bytes = br#"[{"role":"user","content":"hi"},
        {"role":"developer","content":"be brief"},
        {"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
        {"role":"tool","tool_call_id":"c1","content":"ok"}]"#;
    let imported = import(Path::new("x.json"), bytes, None).unwrap();
    let sources: Vec<Option<&str>> = imported
        .messages
        .iter()
        .map(|m| m.metadata.get(keys::SOURCE).map(String::as_str))
        .collect();
    assert_eq!(
        sources,
        [
            None,
            Some(r#"[{"content":"be brief","role":"developer"}]"#),
            Some(
                r#"[{"content":null,"refusal":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"f"},"id":"c1","type":"function"}]}]"#
            ),
            None,
        ]
    );
    assert_eq!(
        imported.messages[0]
            .metadata
            .get(keys::DOCUMENT)
            .map(String::as_str),
        Some("[]")
    );
    // Written back: a bare array again, the kept elements as they were, the others in wire form.
    let back =
        rehydrate_formats::write(&imported.messages, rehydrate_formats::ExportFormat::OpenAi)
            .unwrap();
    let want: Value = serde_json::from_slice(bytes).unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&back).unwrap(), want);
    // A changed message is written afresh, in its wire form, never with its old element.
    let mut changed = imported.messages.clone();
    changed[2].tool_calls[0].arguments = r#"{"x":1}"#.to_string();
    let back = rehydrate_formats::write(&changed, rehydrate_formats::ExportFormat::OpenAi).unwrap();
    let got: Value = serde_json::from_slice(&back).unwrap();
    assert_eq!(
        got[2],
        json!({"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]})
    );
    // Exported as another format, nothing of the chat document's own form goes along.
    let anthropic = request_body(&imported.messages, Api::Anthropic).unwrap();
    assert!(anthropic.starts_with(br#"{"system":"be brief","messages":["#));
}

#[test]
fn exact_values_of_the_responses_object() {
    let imported = import_path(&fixture_dir().join("responses/object.json")).unwrap();
    let m = &imported.messages;
    assert_eq!(m.len(), 6);
    assert_eq!(
        m[0].metadata.get("responses.role").map(String::as_str),
        Some("developer")
    );
    assert_eq!(m[2].tool_calls.len(), 2);
    assert_eq!(m[2].tool_calls[0].arguments, r#"{"path": "."}"#);
    assert_eq!(
        m[2].tool_calls[1].arguments,
        r#"{"input":"*** Begin Patch\n*** End Patch\n"}"#
    );
    assert_eq!(
        m[2].metadata
            .get("rehydrate.custom_calls")
            .map(String::as_str),
        Some("call_2")
    );
    assert_eq!(
        m[2].metadata.get("responses.phase").map(String::as_str),
        Some("commentary")
    );
    let reasoning = m[2].metadata.get("reasoning").unwrap();
    assert!(
        reasoning.contains(r#""encrypted_content": "gAAAAB\u00e9x==""#),
        "{reasoning}"
    );
    assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
}

#[test]
fn exact_values_of_the_anthropic_body() {
    let imported = import_path(&fixture_dir().join("anthropic/body.json")).unwrap();
    let m = &imported.messages;
    assert_eq!(m.len(), 7);
    assert_eq!(
        m[2].tool_calls[0].arguments,
        r#"{ "path": "a.txt", "n": 1.50 }"#
    );
    assert_eq!(
        m[2].metadata.get("thinking_signature").map(String::as_str),
        Some("EqQBsig==")
    );
    assert_eq!(
        m[4].metadata.get("is_error").map(String::as_str),
        Some("true")
    );
    assert_eq!(
        m[5].metadata
            .get("rehydrate.source_part")
            .map(String::as_str),
        Some("true")
    );
    assert_eq!(
        m[6].metadata.get("redacted_thinking").map(String::as_str),
        Some("EmwKRedacted")
    );
}

#[test]
fn a_changed_message_is_written_afresh() {
    let bytes = std::fs::read(fixture_dir().join("anthropic/body.json")).unwrap();
    let mut imported = import(Path::new("x.json"), &bytes, None).unwrap();
    imported.messages[3].content = Some(rehydrate_model::Content::Text("ALPHA".into()));
    let body = request_body(&imported.messages, Api::Anthropic).unwrap();
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["model"], json!("claude-sonnet-4-5"));
    assert_eq!(v["messages"][2]["content"][0]["content"], json!("ALPHA"));
    assert_eq!(
        v["messages"][2]["content"][2],
        json!({"type":"text","text":"Summarize."})
    );
    assert_eq!(
        v["messages"][1]["content"][2]["input"],
        json!({"path":"a.txt","n":1.5})
    );
}

#[test]
fn cross_format_writes_pass_the_rules() {
    let bytes = std::fs::read(fixture_dir().join("anthropic/body.json")).unwrap();
    let anthropic = import(Path::new("x.json"), &bytes, None).unwrap();
    assert_eq!(check_request(&anthropic.messages, Api::OpenAi), []);
    let body = request_body(&anthropic.messages, Api::OpenAi).unwrap();
    let _: Value = serde_json::from_slice(&body).unwrap();
    let responses_body = request_body(&anthropic.messages, Api::Responses).unwrap();
    let v: Value = serde_json::from_slice(&responses_body).unwrap();
    // Anthropic thinking never goes to OpenAI.
    assert!(!v.to_string().contains("EqQBsig=="));
    // Nor do the Anthropic body's other members (`max_tokens`, tools with `input_schema`):
    // a Responses body of it has `input` alone.
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["input"]);

    let bytes = std::fs::read(fixture_dir().join("responses/object.json")).unwrap();
    let responses = import(Path::new("x.json"), &bytes, None).unwrap();
    assert_eq!(check_request(&responses.messages, Api::Anthropic), []);
    let body = request_body(&responses.messages, Api::Anthropic).unwrap();
    let v: Value = serde_json::from_slice(&body).unwrap();
    // The Responses input's `model` and `store` stay out of the Anthropic body, and no item of
    // it is written there as it was: every message is written afresh in Anthropic's shape.
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["messages", "system"]);
    assert_eq!(
        v["messages"][0],
        json!({"role": "user", "content": [{"type": "text", "text": "List the files."}]})
    );
    assert!(!String::from_utf8(body).unwrap().contains("\"content\": "));
}

fn responses_item() -> impl Strategy<Value = Value> {
    let text = "[a-z \\n\"é]{0,8}";
    prop_oneof![
        (text, prop::sample::select(vec!["user", "system", "developer", "assistant"]))
            .prop_map(|(t, r)| json!({"type":"message","role":r,"content":t})),
        (text, any::<bool>()).prop_map(|(t, phase)| if phase {
            json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":t}],"phase":"commentary"})
        } else {
            json!({"role":"user","content":[{"type":"input_text","text":t}]})
        }),
        ("c[0-3]", text).prop_map(|(id, a)| json!({"type":"function_call","call_id":id,"name":"f","arguments":a})),
        ("c[0-3]", text).prop_map(|(id, i)| json!({"type":"custom_tool_call","call_id":id,"name":"p","input":i})),
        ("c[0-3]", text).prop_map(|(id, o)| json!({"type":"function_call_output","call_id":id,"output":o})),
        ("c[0-3]", text).prop_map(|(id, o)| json!({"type":"custom_tool_call_output","call_id":id,"output":o})),
        text.prop_map(|e| json!({"type":"reasoning","summary":[],"encrypted_content":e})),
        "[a-z_]{1,6}".prop_map(|t| json!({"type":t,"x":1})),
        Just(json!({"type":"item_reference","id":"msg_1"})),
    ]
}

fn anthropic_message() -> impl Strategy<Value = Value> {
    let text = "[a-z \\n\"é]{1,8}";
    let block = prop_oneof![
        text.prop_map(|t| json!({"type":"text","text":t})),
        "t[0-3]".prop_map(|id| json!({"type":"tool_result","tool_use_id":id,"content":"r"})),
        "t[0-3]".prop_map(|id| json!({"type":"tool_result","tool_use_id":id,"content":[{"type":"text","text":"x"}],"is_error":true})),
        "t[0-3]".prop_map(|id| json!({"type":"tool_use","id":id,"name":"f","input":{"k":[1,2.5]}})),
        text.prop_map(|t| json!({"type":"thinking","thinking":t,"signature":"sig"})),
        Just(json!({"type":"redacted_thinking","data":"d"})),
        "[a-z_]{1,6}".prop_map(|t| json!({"type":t,"y":null})),
    ];
    (
        prop::sample::select(vec!["user", "assistant"]),
        prop_oneof![
            text.prop_map(Value::String),
            prop::collection::vec(block, 0..4).prop_map(Value::Array)
        ],
    )
        .prop_map(|(role, content)| json!({"role":role,"content":content}))
}

fn openai_message() -> impl Strategy<Value = Value> {
    let text = "[a-z \\n\"é]{0,8}";
    let call = |id: String, args: Value, typed: bool| {
        let mut call = json!({"id":id,"function":{"name":"f","arguments":args}});
        if typed {
            call["type"] = json!("function");
        }
        call
    };
    prop_oneof![
        (text, prop::sample::select(vec!["user", "system", "developer", "assistant"]))
            .prop_map(|(t, r)| json!({"role":r,"content":t})),
        text.prop_map(|t| json!({"role":"user","content":[{"type":"text","text":t}],"name":"al"})),
        ("c[0-3]", text, any::<bool>(), any::<bool>()).prop_map(move |(id, a, typed, null)| {
            let mut m = json!({"role":"assistant","tool_calls":[call(id, json!(a), typed)]});
            if null {
                m["content"] = Value::Null;
                m["refusal"] = Value::Null;
            }
            m
        }),
        "c[0-3]".prop_map(move |id| json!({"role":"assistant","content":"x","tool_calls":[call(id, json!({"k":[1,2.5]}), true)]})),
        ("c[0-3]", text).prop_map(|(id, o)| json!({"role":"tool","tool_call_id":id,"content":o})),
        text.prop_map(|o| json!({"role":"function","name":"f","content":o})),
        text.prop_map(|a| json!({"role":"assistant","content":null,"function_call":{"name":"f","arguments":a}})),
    ]
}

/// A document of `elements`, pretty-printed: a bare array, or an object holding them under
/// `key` beside the `extra` members.
fn document(
    elements: Vec<Value>,
    key: Option<&str>,
    extra: std::collections::BTreeMap<String, u8>,
) -> Vec<u8> {
    let doc = match key {
        None => Value::Array(elements),
        Some(key) => {
            let mut obj: serde_json::Map<String, Value> =
                extra.into_iter().map(|(k, v)| (k, json!(v))).collect();
            obj.insert(key.into(), Value::Array(elements));
            Value::Object(obj)
        }
    };
    serde_json::to_vec_pretty(&doc).unwrap()
}

proptest! {
    #[test]
    fn random_openai_chat_documents_round_trip(
        first in "[a-z]{1,5}",
        messages in prop::collection::vec(openai_message(), 0..8),
        bare in any::<bool>(),
        extra in prop::collection::btree_map("[a-z]{1,4}", any::<u8>(), 0..3),
    ) {
        let mut all = vec![json!({"role":"user","content":first})];
        // Blank assistant text is left out of every body, so never written back.
        all.extend(messages.into_iter().filter(|m| {
            m["role"] != "assistant" || m.get("tool_calls").is_some() || m.get("function_call").is_some()
                || m["content"].as_str().is_some_and(|t| !t.trim().is_empty())
        }));
        let bytes = document(all, (!bare).then_some("messages"), extra);
        prop_assert_eq!(round_trip(&bytes, Format::OpenAi, Api::OpenAi), Ok(()));
    }

    #[test]
    fn random_responses_inputs_round_trip(
        first in "[a-z]{1,5}",
        items in prop::collection::vec(responses_item(), 0..8),
        bare in any::<bool>(),
        extra in prop::collection::btree_map("[a-z]{1,4}", any::<u8>(), 0..3),
    ) {
        let mut all = vec![json!({"type":"message","role":"user","content":first})];
        all.extend(items);
        let bytes = document(all, (!bare).then_some("input"), extra);
        prop_assert_eq!(round_trip(&bytes, Format::Responses, Api::Responses), Ok(()));
    }

    #[test]
    fn random_anthropic_bodies_round_trip(
        messages in prop::collection::vec(anthropic_message(), 1..6),
        system in prop::option::of("[a-z]{0,5}"),
        extra in prop::collection::btree_map("[a-z]{1,4}", any::<u8>(), 0..3),
    ) {
        let mut obj: serde_json::Map<String, Value> =
            extra.into_iter().map(|(k, v)| (k, json!(v))).collect();
        obj.insert("messages".into(), Value::Array(messages));
        // A top-level `system` makes detection certain.
        obj.insert("system".into(), system.map_or(json!([{"type":"text","text":"s"}]), Value::String));
        let bytes = serde_json::to_vec(&Value::Object(obj)).unwrap();
        prop_assert_eq!(round_trip(&bytes, Format::Anthropic, Api::Anthropic), Ok(()));
    }
}

#[test]
fn event_logs_have_turns_tool_names_and_outcomes() {
    use rehydrate_model::EventKind;
    let bytes = std::fs::read(fixture_dir().join("anthropic/body.json")).unwrap();
    let log = rehydrate_formats::import_events(Path::new("x.json"), &bytes, None).unwrap();
    let results: Vec<(Option<&str>, bool, Option<u64>)> = log
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult { name, ok, .. } => Some((name.as_deref(), *ok, e.turn)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            (Some("read"), true, Some(1)),
            (Some("read"), false, Some(1))
        ]
    );
    let users = log
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::UserMessage { .. }))
        .count();
    assert_eq!(users, 2);

    let bytes = std::fs::read(fixture_dir().join("responses/object.json")).unwrap();
    let log = rehydrate_formats::import_events(Path::new("x.json"), &bytes, None).unwrap();
    let names: Vec<Option<&str>> = log
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult { name, .. } => Some(name.as_deref()),
            _ => None,
        })
        .collect();
    assert_eq!(names, [Some("ls"), Some("apply_patch")]);
    assert_eq!(log.events.last().and_then(|e| e.turn), Some(1));
}

#[test]
fn openai_image_parts_are_written_as_anthropic_image_blocks() {
    use rehydrate_model::{Content, Message, Role};
    use rehydrate_test_support::{assistant_call, image_url_part, text_part};
    let mut user = Message::text(Role::User, "");
    user.content = Some(Content::Parts(vec![
        text_part("what is this?"),
        image_url_part("image/png", "iVBORw0K"),
    ]));
    let call = assistant_call("c1", "shot", "{}");
    let mut result = Message::tool_result("c1", "");
    result.content = Some(Content::Parts(vec![
        text_part("here"),
        json!({"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low"}}),
    ]));
    let body = rehydrate_formats::write(
        &[user, call, result],
        rehydrate_formats::ExportFormat::Anthropic,
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(body).unwrap(),
        concat!(
            r#"{"messages":[{"role":"user","content":[{"text":"what is this?","type":"text"},"#,
            r#"{"source":{"data":"iVBORw0K","media_type":"image/png","type":"base64"},"type":"image"}]},"#,
            r#"{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"shot","input":{}}]},"#,
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"text":"here","type":"text"},"#,
            r#"{"source":{"type":"url","url":"https://example.com/a.png"},"type":"image"}]}]}]}"#
        )
    );
}
