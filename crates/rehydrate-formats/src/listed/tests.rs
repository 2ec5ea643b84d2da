//! The one-pass reads of the request bodies against their field-by-field reads: the same
//! import, or the same error, on the fixtures, on every corpus session written as each body,
//! on edge cases, on cut and mutated fixtures, and on random documents.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::{Error, ExportFormat, Import};

/// An importer of one body format taking the text (the UTF-8 of the file, without its byte
/// order mark).
type Read = fn(&Path, &str) -> Result<Import, Error>;

/// The import or the error text.
fn outcome(read: Read, text: &str) -> Result<Import, String> {
    read(Path::new("b.json"), text).map_err(|e| e.to_string())
}

/// Panics unless `fast` (the importer) and `slow` (its field-by-field read) agree on `text`.
fn agree(fast: Read, slow: Read, text: &str, name: &str) {
    let slow = outcome(slow, text);
    let fast = outcome(fast, text);
    assert!(
        fast == slow,
        "{name}: the reads differ on\n{text}\nfast: {fast:?}\nslow: {slow:?}"
    );
}

/// `fixtures/formats/<name>`.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/formats")
        .join(name)
}

/// Every prefix of `text` cut every 7 bytes, and `text` with every 11th byte replaced by one
/// of the JSON syntax bytes in turn: broken documents, other shapes, other types.
fn variants(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for end in (0..text.len()).step_by(7) {
        if text.is_char_boundary(end) {
            out.push(text[..end].to_string());
        }
    }
    let replacements = ['"', '{', ']', '\n', '0', '\\', 'n', ',', '[', '}', ':', 'e'];
    for (i, replacement) in (0..text.len())
        .step_by(11)
        .zip(replacements.into_iter().cycle())
    {
        if text.is_char_boundary(i) && text.is_char_boundary(i + 1) {
            let mut mutated = text.to_string();
            mutated.replace_range(i..i + 1, &replacement.to_string());
            out.push(mutated);
        }
    }
    out
}

/// Every session of the shared corpus (each format the crate reads, every session of a file
/// that holds several) written as a body of `export` by the writer without the API's rules,
/// with its name; empty when the corpus is absent (as `corpus_sessions` says).
fn corpus_bodies(export: ExportFormat) -> Vec<(String, String)> {
    let dirs = [
        ("claude-code", "jsonl"),
        ("codex", "jsonl"),
        ("gemini-cli", "json"),
        ("gemini-cli", "jsonl"),
        ("openhands", "json"),
        ("openhands", "jsonl"),
        ("swe-agent", "traj"),
        ("aider", "md"),
    ];
    let Some((_, paths)) = rehydrate_test_support::corpus_sessions(&dirs, "body read check") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        let Ok((_, sessions)) = crate::import_sessions(&path, &bytes, None) else {
            continue;
        };
        for (k, session) in sessions.iter().enumerate() {
            let body = crate::write_unchecked(&session.messages, export);
            let name = format!("{} session {}", path.display(), k + 1);
            out.push((name, String::from_utf8(body).unwrap()));
        }
    }
    out
}

/// Whether the one-pass read alone reads a text.
type Typed = fn(&str) -> bool;

/// Both reads agree on the fixtures, their variants, the corpus sessions written as `export`
/// and the `extra` texts; the one-pass read reads every corpus body itself (`typed`).
fn check_format(
    (fast, slow, typed): (Read, Read, Typed),
    fixtures: &[&str],
    export: ExportFormat,
    extra: &[&str],
) {
    for text in extra {
        agree(fast, slow, text, "edge case");
    }
    for name in fixtures {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        agree(fast, slow, &text, name);
        for variant in variants(&text) {
            agree(fast, slow, &variant, name);
        }
    }
    let bodies = corpus_bodies(export);
    for (name, text) in &bodies {
        agree(fast, slow, text, name);
        assert!(typed(text), "{name}: not read in one pass");
    }
    eprintln!("{} corpus bodies read alike", bodies.len());
}

/// Members that read differently by type than by value or by raw text: values a parse into
/// a `Value` refuses (a number out of range, a lone surrogate escape), an exponent, a pair
/// of surrogate escapes, and nesting around serde_json's limit of 128 containers.
fn odd_members() -> Vec<String> {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let mut out: Vec<String> = [
        r#""x":1e400"#,
        r#""x":"\ud800""#,
        r#""x":"\ud83d\ude00""#,
        r#""x":-0.5E3"#,
        r#""x":{"$serde_json::private::RawValue":"[1]"}"#,
        r#""x":{"$serde_json::private::RawValue":"]"}"#,
        r#""x":{"y":1,"$serde_json::private::RawValue":"]"}"#,
    ]
    .map(str::to_string)
    .to_vec();
    out.extend((121..=127).map(|n| format!(r#""x":{}"#, deep(n))));
    out
}

#[test]
fn responses_reads_agree() {
    let mut extra: Vec<String> = odd_members()
        .iter()
        .flat_map(|m| {
            [
                format!(r#"{{"input":[{{"type":"message","role":"user","content":"hi",{m}}}]}}"#),
                format!(r#"{{"input":[{{"type":"reasoning",{m}}}],{m}}}"#),
                format!(
                    r#"[{{"role":"user","content":[{{"type":"input_text","text":"a",{m}}}]}}]"#
                ),
            ]
        })
        .collect();
    extra.extend(
        [
            r#"{"input":[{"type":"message","role":"user","content":"a","type":"reasoning"}]}"#,
            r#"{"input":[{"type":"message","role":"user","role":"robot","content":"a"}]}"#,
            r#"{"input":[{"role":null,"content":"a"}]}"#,
            r#"{"input":[{"content":"a"}]}"#,
            r#"{"input":[{"$serde_json::private::RawValue":"{\"role\":\"user\",\"content\":\"a\"}"}]}"#,
            r#"{"$serde_json::private::RawValue":"[]","input":[]}"#,
            r#"{"input":[],"input":[{"role":"user","content":"a"}]}"#,
            r#"{"input":"hello","model":"m"}"#,
            r#"["x"]"#,
            r#"[{"type":"message","role":"assistant","content":null,"phase":7}]"#,
            r#"[{"type":"message","role":"user","content":"a","phase":7}]"#,
            r#"[{"type":"function_call","call_id":"c","name":"f","arguments":{"b":1}}]"#,
            r#"[{"type":"function_call","call_id":"c","name":"f","arguments":"{"}]"#,
            r#"[{"type":"function_call_output","call_id":"c","output":{}}]"#,
            r#" [ {"type" : "message" , "role":"user","content":[{"type":"input_text","text":"\u0041"}]} ] "#,
        ]
        .map(str::to_string),
    );
    check_format(
        (
            crate::responses::import,
            crate::responses::import_field_by_field,
            |text| crate::responses::import_typed(text).is_some(),
        ),
        &[
            "responses/object.json",
            "responses/bare-array.json",
            "responses/bad-pairing.json",
            "responses/string-input.json",
        ],
        ExportFormat::Responses,
        &extra.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

#[test]
fn anthropic_reads_agree() {
    let mut extra: Vec<String> = odd_members()
        .iter()
        .flat_map(|m| {
            [
                format!(
                    r#"{{"messages":[{{"role":"assistant","content":[{{"type":"tool_use","id":"t","name":"f","input":{{{m}}}}}]}}]}}"#
                ),
                format!(
                    r#"{{"messages":[{{"role":"user","content":[{{"type":"tool_use","id":"t","name":"f","input":{{{m}}}}}]}}]}}"#
                ),
                format!(
                    r#"{{"messages":[{{"role":"user","content":[{{"type":"text","text":"a",{m}}}],{m}}}],{m}}}"#
                ),
                format!(r#"{{"system":[{{"type":"text","text":"s",{m}}}],"messages":[]}}"#),
            ]
        })
        .collect();
    extra.extend(
        [
            r#"{"messages":[{"role":"user","content":"a","role":"assistant"}]}"#,
            r#"{"messages":[{"role":"user"}]}"#,
            r#"{"messages":[{"role":"user","content":null}]}"#,
            r#"{"messages":[{"role":"user","content":7}]}"#,
            r#"{"messages":[{"role":7,"content":"a"}]}"#,
            r#"{"messages":[{"role":"robot","content":"a"}]}"#,
            r#"{"messages":[{"role":"user","content":"\ud800"}]}"#,
            r#"{"messages":[{"role":"user","content":[]}]}"#,
            r#"{"messages":[{"role":"user","content":[1,"x",null,[2]]}]}"#,
            r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f"}]}]}"#,
            r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","input":{"a":1},"input":[2]}]}]}"#,
            r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input": { "a" : 1 }}]}]}"#,
            r#"{"messages":[{"role":"assistant","content":[{"type":"text","text":"a","input":{"b":2}},{"type":"thinking","thinking":"t"},{"type":"redacted_thinking","data":7}]}]}"#,
            r#"{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":{"a":1},"is_error":"yes"}]}]}"#,
            r#"{"messages":[{"role":"user","content":"a"}],"messages":[]}"#,
            r#"{"system":7,"messages":[{"role":"user","content":"a"}]}"#,
            r#"{"system":"s","messages":{}}"#,
            r#"[{"role":"user","content":"a"}]"#,
        ]
        .map(str::to_string),
    );
    check_format(
        (
            crate::anthropic::import,
            crate::anthropic::import_field_by_field,
            |text| crate::anthropic::import_typed(text).is_some(),
        ),
        &["anthropic/body.json", "anthropic/bad-pairing.json"],
        ExportFormat::Anthropic,
        &extra.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

/// [`crate::openai::import_text`] without its one-pass read: the body parsed whole, then read
/// field by field.
fn openai_field_by_field(path: &Path, text: &str) -> Result<Import, Error> {
    let doc = serde_json::from_str(text).map_err(|e| crate::json::invalid_json(path, None, &e))?;
    crate::openai::import(path, doc)
}

#[test]
fn openai_reads_agree() {
    let mut extra: Vec<String> = odd_members()
        .iter()
        .flat_map(|m| {
            [
                format!(r#"{{"messages":[{{"role":"user","content":[{{"type":"text","text":"a",{m}}}]}}],{m}}}"#),
                format!(r#"{{"messages":[{{"role":"user","content":"a",{m}}}]}}"#),
                format!(r#"{{{m},"messages":[{{"role":"user","content":"a"}}]}}"#),
            ]
        })
        .collect();
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for n in 121..=127 {
        extra.push(format!(
            r#"{{"messages":[{{"role":"user","content":{}}}]}}"#,
            deep(n)
        ));
        extra.push(format!(
            r#"{{"messages":[{{"role":"user","content":[{}]}}]}}"#,
            deep(n)
        ));
    }
    extra.extend(
        [
            r#"{"messages":[{"role":"user","content":"a","role":"developer"}]}"#,
            r#"{"messages":[{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#,
            r#"{"messages":[{"role":"assistant","tool_calls":[]}]}"#,
            r#"{"messages":[{"role":"assistant"}]}"#,
            r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}]}"#,
            r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f.g","arguments":"{}"}}]}]}"#,
            r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{"a":1}}}]}]}"#,
            r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"web","function":{"name":"f","arguments":"{}"}}]}]}"#,
            r#"{"messages":[{"role":"tool","tool_call_id":null,"content":"x"}]}"#,
            r#"{"messages":[{"role":"tool","tool_call_id":"c9","content":"x"}]}"#,
            r#"{"messages":[{"role":"function","name":"f","content":"x"}]}"#,
            r#"{"messages":[{"role":"robot","content":"x"}]}"#,
            r#"{"messages":[{"role":"user","content":7}]}"#,
            r#"{"messages":[3]}"#,
            r#"{"messages":{}}"#,
            r#"{"messages":[],"messages":[{"role":"user","content":"a"}]}"#,
            r#"{"model":"m","messages":[]}"#,
            r#"[{"role":"user","content":"a"}]"#,
        ]
        .map(str::to_string),
    );
    check_format(
        (crate::openai::import_text, openai_field_by_field, |text| {
            crate::openai::import_typed(text).is_some()
        }),
        &["openai-object.json", "openai-array.json"],
        ExportFormat::OpenAi,
        &extra.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

#[test]
fn reused_and_unanswered_calls_are_warned_in_document_order() {
    let warnings = |read: Read, text: &str| -> Vec<String> {
        let import = read(Path::new("b.json"), text).unwrap();
        import.warnings.iter().map(ToString::to_string).collect()
    };
    let call = |id: &str| {
        format!(r#"{{"type":"function_call","call_id":"{id}","name":"f","arguments":"{{}}"}}"#)
    };
    let output =
        |id: &str| format!(r#"{{"type":"function_call_output","call_id":"{id}","output":"ok"}}"#);
    let user = r#"{"type":"message","role":"user","content":"x"}"#;
    let text = format!(
        "[{}]",
        [
            call("c1"),
            call("c2"),
            user.to_string(),
            call("c1"),
            call("c3"),
            output("c3"),
            output("c3")
        ]
        .join(",")
    );
    let want = [
        "[1]: call c2 has no output",
        "[3]: call id c1 is used twice",
        "[3]: call c1 has no output",
        "[6]: second output for call c3",
    ];
    assert_eq!(warnings(crate::responses::import, &text), want);
    assert_eq!(
        warnings(crate::responses::import_field_by_field, &text),
        want
    );
    let use_ = |id: &str| format!(r#"{{"type":"tool_use","id":"{id}","name":"f","input":{{}}}}"#);
    let result =
        |id: &str| format!(r#"{{"type":"tool_result","tool_use_id":"{id}","content":"ok"}}"#);
    let text = format!(
        r#"{{"messages":[{{"role":"assistant","content":[{},{}]}},{{"role":"user","content":"x"}},{{"role":"assistant","content":[{},{}]}},{{"role":"user","content":[{},{}]}}]}}"#,
        use_("t1"),
        use_("t2"),
        use_("t1"),
        use_("t3"),
        result("t3"),
        result("t3")
    );
    let want = [
        "messages[0]: tool_use t2 has no tool_result",
        "messages[2]: tool_use id t1 is used twice",
        "messages[2]: tool_use t1 has no tool_result",
        "messages[3]: second tool_result for tool_use t3",
    ];
    assert_eq!(warnings(crate::anthropic::import, &text), want);
    assert_eq!(
        warnings(crate::anthropic::import_field_by_field, &text),
        want
    );
}

/// Strings with what makes reading them differ: escapes, a quote, non-ASCII, and now and
/// then control characters.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[a-z \\n\"é😀\\\\]{0,6}",
        1 => Just("\u{1}\t".to_string()),
    ]
}

/// Any JSON value of a few levels, numbers included.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A Responses content part: text, an image, a part of another type, any value.
fn responses_part() -> impl Strategy<Value = Value> {
    prop_oneof![
        (
            prop::sample::select(vec!["input_text", "output_text"]),
            text()
        )
            .prop_map(|(t, x)| json!({"type": t, "text": x, "annotations": []})),
        (text(), prop::option::of(any_value()))
            .prop_map(|(u, d)| json!({"type": "input_image", "image_url": u, "detail": d})),
        any_value().prop_map(|v| json!({"type": "input_file", "file": v})),
        any_value(),
    ]
}

/// A string, content parts, or (rarely) another value.
fn responses_body() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => text().prop_map(Value::String),
        4 => prop::collection::vec(responses_part(), 0..3).prop_map(Value::Array),
        1 => any_value(),
    ]
}

/// A Responses input item of any kind, mostly well formed, with stray members.
fn responses_item() -> impl Strategy<Value = Value> {
    let kind = prop::sample::select(vec![
        "message",
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "web_search_call",
        "mystery",
    ]);
    let role = prop::sample::select(vec!["user", "assistant", "system", "developer", "robot"]);
    (
        kind,
        prop::option::weighted(0.9, role),
        responses_body(),
        "c[0-3]",
        prop::option::weighted(0.9, text()),
        prop::option::of(any_value()),
        prop::collection::btree_map("[a-z_]{1,8}", any_value(), 0..2),
        0..8u8,
    )
        .prop_map(|(kind, role, body, id, string, stray, extra, shape)| {
            let mut item = serde_json::Map::new();
            // Now and then no `type` (a message has a role then), or a `type` of null.
            match shape {
                0 => {}
                1 => {
                    item.insert("type".into(), Value::Null);
                }
                _ => {
                    item.insert("type".into(), json!(kind));
                }
            }
            if let Some(role) = role {
                item.insert("role".into(), json!(role));
            }
            match kind {
                "message" => {
                    item.insert("content".into(), body);
                    if let Some(phase) = stray.clone() {
                        item.insert("phase".into(), phase);
                    }
                }
                "function_call" | "custom_tool_call" => {
                    item.insert("call_id".into(), json!(id));
                    item.insert("name".into(), json!("f"));
                    let arguments = match (shape, string) {
                        (7, _) => stray.clone().unwrap_or(Value::Null),
                        (3, Some(s)) => json!(s),
                        (_, s) => json!(format!("{{\"a\":{}}}", json!(s))),
                    };
                    let key = if kind == "function_call" {
                        "arguments"
                    } else {
                        "input"
                    };
                    item.insert(key.into(), arguments);
                }
                "function_call_output" | "custom_tool_call_output" => {
                    item.insert("call_id".into(), json!(id));
                    item.insert("output".into(), body);
                }
                _ => {
                    item.insert("summary".into(), body);
                }
            }
            if shape == 6
                && let Some(stray) = stray
            {
                item.insert("call_id".into(), stray);
            }
            item.extend(extra);
            Value::Object(item)
        })
}

/// A document of `elements` under `key` (a bare array when `None`), beside the `extra`
/// members, compact or pretty-printed.
fn document(
    elements: Vec<Value>,
    key: Option<&str>,
    extra: Vec<(String, Value)>,
    pretty: bool,
) -> String {
    let doc = match key {
        None => Value::Array(elements),
        Some(key) => {
            let mut obj: serde_json::Map<String, Value> = extra.into_iter().collect();
            obj.insert(key.into(), Value::Array(elements));
            Value::Object(obj)
        }
    };
    if pretty {
        serde_json::to_string_pretty(&doc).unwrap()
    } else {
        doc.to_string()
    }
}

/// `text` with the byte at `at` (a share of its length) replaced by `by`, when `at` is some
/// and on a char boundary: a syntax error, or a member of another type.
fn mutate(text: String, at: Option<f64>, by: char) -> String {
    let Some(at) = at else {
        return text;
    };
    let i = (text.len() as f64 * at) as usize;
    if i < text.len() && text.is_char_boundary(i) && text.is_char_boundary(i + 1) {
        let mut out = text;
        out.replace_range(i..i + 1, &by.to_string());
        out
    } else {
        text
    }
}

/// A byte that changes a JSON text's meaning.
fn syntax_byte() -> impl Strategy<Value = char> {
    prop::sample::select(vec![
        '"', '{', '}', '[', ']', ',', ':', '1', 'n', '\\', 'e', ' ',
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_responses_inputs_read_alike(
        items in prop::collection::vec(responses_item(), 0..6),
        bare in any::<bool>(),
        extra in prop::collection::vec(("[a-z]{1,5}", any_value()), 0..3),
        pretty in any::<bool>(),
        at in prop::option::weighted(0.3, 0.0f64..1.0),
        by in syntax_byte(),
    ) {
        let text = mutate(document(items, (!bare).then_some("input"), extra, pretty), at, by);
        let fast = outcome(crate::responses::import, &text);
        let slow = outcome(crate::responses::import_field_by_field, &text);
        prop_assert_eq!(fast, slow, "{}", text);
    }
}

/// An Anthropic content block of any kind, mostly well formed, with stray members.
fn anthropic_block() -> impl Strategy<Value = Value> {
    let input = prop_oneof![
        4 => prop::collection::btree_map("[a-z]{1,3}", any_value(), 0..3)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        1 => any_value(),
    ];
    prop_oneof![
        text().prop_map(|t| json!({"type": "text", "text": t})),
        (
            "t[0-3]",
            prop::option::weighted(0.9, input),
            prop::option::weighted(0.9, "[a-z]{1,3}")
        )
            .prop_map(|(id, input, name)| {
                let mut block = json!({"type": "tool_use", "id": id});
                if let Some(input) = input {
                    block["input"] = input;
                }
                if let Some(name) = name {
                    block["name"] = json!(name);
                }
                block
            }),
        ("t[0-3]", responses_body(), prop::option::of(any_value())).prop_map(
            |(id, content, error)| {
                let mut block =
                    json!({"type": "tool_result", "tool_use_id": id, "content": content});
                if let Some(error) = error {
                    block["is_error"] = error;
                }
                block
            }
        ),
        (text(), prop::option::of(any_value()))
            .prop_map(|(t, s)| json!({"type": "thinking", "thinking": t, "signature": s})),
        any_value().prop_map(|d| json!({"type": "redacted_thinking", "data": d})),
        ("[a-z_]{1,8}", any_value()).prop_map(|(t, v)| json!({"type": t, "v": v})),
        any_value(),
    ]
}

/// An Anthropic message, mostly well formed.
fn anthropic_message() -> impl Strategy<Value = Value> {
    let role = prop::sample::select(vec!["user", "assistant", "assistant", "user", "robot"]);
    let content = prop_oneof![
        2 => text().prop_map(Value::String),
        6 => prop::collection::vec(anthropic_block(), 0..4).prop_map(Value::Array),
        1 => any_value(),
    ];
    (
        prop::option::weighted(0.95, role),
        prop::option::weighted(0.95, content),
        prop::collection::btree_map("[a-z_]{1,8}", any_value(), 0..2),
    )
        .prop_map(|(role, content, extra)| {
            let mut m: serde_json::Map<String, Value> = extra.into_iter().collect();
            if let Some(role) = role {
                m.insert("role".into(), json!(role));
            }
            if let Some(content) = content {
                m.insert("content".into(), content);
            }
            Value::Object(m)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_anthropic_bodies_read_alike(
        messages in prop::collection::vec(anthropic_message(), 0..6),
        system in prop::option::of(prop_oneof![
            text().prop_map(Value::String),
            prop::collection::vec(anthropic_block(), 0..2).prop_map(Value::Array),
            any_value(),
        ]),
        extra in prop::collection::vec(("[a-z]{1,5}", any_value()), 0..3),
        pretty in any::<bool>(),
        at in prop::option::weighted(0.3, 0.0f64..1.0),
        by in syntax_byte(),
    ) {
        let mut extra = extra;
        if let Some(system) = system {
            extra.push(("system".to_string(), system));
        }
        let text = mutate(document(messages, Some("messages"), extra, pretty), at, by);
        let fast = outcome(crate::anthropic::import, &text);
        let slow = outcome(crate::anthropic::import_field_by_field, &text);
        prop_assert_eq!(fast, slow, "{}", text);
    }
}

/// An OpenAI chat message, mostly in its wire form, now and then not.
fn openai_message() -> impl Strategy<Value = Value> {
    let role = prop::sample::select(vec![
        "user",
        "assistant",
        "assistant",
        "tool",
        "system",
        "developer",
        "function",
        "robot",
    ]);
    let call = (
        "c[0-3]",
        prop::sample::select(vec!["f", "f", "g_1", "a.b"]),
        prop_oneof![
            4 => text().prop_map(|t| json!(format!("{{\"a\":{}}}", json!(t)))),
            1 => any_value(),
        ],
        0..6u8,
    )
        .prop_map(|(id, name, arguments, shape)| {
            let mut call = json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}});
            match shape {
                0 => {
                    call.as_object_mut().unwrap().remove("type");
                }
                1 => call["extra"] = json!(1),
                _ => {}
            }
            call
        });
    (
        role,
        prop::option::weighted(0.8, responses_body()),
        prop::option::weighted(0.4, prop::collection::vec(call, 0..3)),
        prop::option::weighted(0.3, "c[0-3]"),
        prop::collection::btree_map("[a-z_]{1,8}", any_value(), 0..2),
        0..6u8,
    )
        .prop_map(|(role, content, calls, id, extra, shape)| {
            let mut m = serde_json::Map::new();
            m.insert("role".into(), json!(role));
            if let Some(content) = content {
                m.insert("content".into(), content);
            }
            if let Some(calls) = calls {
                m.insert("tool_calls".into(), Value::Array(calls));
            }
            if let Some(id) = id {
                m.insert("tool_call_id".into(), json!(id));
            }
            if shape == 0 {
                m.extend(extra);
            }
            if shape == 1 {
                m.insert("content".into(), Value::Null);
            }
            Value::Object(m)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_openai_bodies_read_alike(
        messages in prop::collection::vec(openai_message(), 0..6),
        extra in prop::collection::vec(("[a-z]{1,5}", any_value()), 0..3),
        pretty in any::<bool>(),
        at in prop::option::weighted(0.3, 0.0f64..1.0),
        by in syntax_byte(),
    ) {
        let text = mutate(document(messages, Some("messages"), extra, pretty), at, by);
        let fast = outcome(crate::openai::import_text, &text);
        let slow = outcome(openai_field_by_field, &text);
        prop_assert_eq!(fast, slow, "{}", text);
    }
}
