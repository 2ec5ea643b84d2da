//! The one-pass read of OpenHands sessions against the field-by-field read: the same import,
//! or the same error, for every session of the fixtures and the corpus, for cut and mutated
//! fixtures, for edge cases, and for random event streams.

use std::path::Path;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::{import, import_field_by_field, import_lean, is_jsonl, lines};
use crate::Import;

/// The import of session `session` of `text`, or the error text, by both reads.
fn both(text: &str, session: Option<usize>) -> (Result<Import, String>, Result<Import, String>) {
    let path = Path::new("o.json");
    (
        import(path, text, session).map_err(|e| e.to_string()),
        import_field_by_field(path, text, session).map_err(|e| e.to_string()),
    )
}

/// Panics unless both reads agree on every session of `text` (and on session `None`).
fn agree(text: &str, name: &str) {
    let count = if is_jsonl(text) {
        lines(text).count()
    } else {
        1
    };
    for session in std::iter::once(None).chain((1..=count).map(Some)) {
        let (fast, slow) = both(text, session);
        assert!(
            fast == slow,
            "{name} session {session:?}: the reads differ\nfast: {fast:?}\nslow: {slow:?}"
        );
    }
}

/// Every prefix of `text` cut every 13 bytes, and `text` with every 17th byte replaced by one
/// of the JSON syntax bytes in turn.
fn variants(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for end in (0..text.len()).step_by(13) {
        if text.is_char_boundary(end) {
            out.push(text[..end].to_string());
        }
    }
    let replacements = ['"', '{', ']', '\n', '0', '\\', 'n', ',', '[', '}', ':', 'e'];
    for (i, replacement) in (0..text.len())
        .step_by(17)
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

#[test]
fn the_one_pass_read_and_the_field_by_field_read_agree() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/formats");
    for name in [
        "openhands-events.json",
        "openhands-output.jsonl",
        "openhands-pairs.json",
    ] {
        let text = std::fs::read_to_string(fixtures.join(name)).unwrap();
        agree(&text, name);
        for variant in variants(&text) {
            agree(&variant, name);
        }
    }
    let mut read_lean = 0;
    if let Some((_, paths)) = rehydrate_test_support::corpus_sessions(
        &[("openhands", "json"), ("openhands", "jsonl")],
        "openhands read check",
    ) {
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            agree(&text, &path.display().to_string());
            // Every corpus session is read in one pass.
            let documents: Vec<&str> = if is_jsonl(&text) {
                lines(&text).map(|(_, l)| l).collect()
            } else {
                vec![text.as_str()]
            };
            for document in documents {
                assert!(
                    import_lean(document, None).is_some(),
                    "{}: not read in one pass",
                    path.display()
                );
                read_lean += 1;
            }
        }
    }
    eprintln!("{read_lean} corpus sessions read in one pass");
}

#[test]
fn edge_cases_read_alike() {
    let action = |extra: &str| {
        format!(
            r#"[{{"id":1,"action":"run","source":"agent","args":{{"command":"ls","thought":"t"}},"tool_call_metadata":{{"function_name":"execute_bash","tool_call_id":"c1","model_response":{{"id":"r1",{extra}"choices":[{{"message":{{"content":"go","tool_calls":[{{"id":"c1","function":{{"arguments":"{{}}"}}}}]}}}}]}}}}}},{{"id":2,"cause":1,"observation":"run","content":"a","extras":{{}}}}]"#
        )
    };
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let mut cases = vec![
        action(""),
        action(r#""usage":1e400,"#),
        action(r#""created":1e400,"#),
        action(r#""x":{"$serde_json::private::RawValue":"[1]"},"#),
        action(r#""x":{"$serde_json::private::RawValue":"]"},"#),
        action(r#""choices":{"a":1},"#),
        r#"[{"id":1,"action":"run","tool_call_metadata":{"tool_call_id":"c","model_response":{"choices":[{"$serde_json::private::RawValue":"{\"message\":{\"content\":\"x\"}}"}]}}}]"#.to_string(),
        r#"[{"id":1,"action":"run","tool_call_metadata":{"tool_call_id":"c","model_response":{"choices":[{"message":{"content":"x"}},7]}}}]"#.to_string(),
        r#"[{"id":1,"action":"run","tool_call_metadata":{"tool_call_id":"c","model_response":{"choices":[7]}}}]"#.to_string(),
        r#"[{"id":1,"action":"run","tool_call_metadata":{"tool_call_id":"c","model_response":[1]}}]"#.to_string(),
        r#"[{"id":1,"action":"run","tool_call_metadata":"x"}]"#.to_string(),
        r#"[{"id":1,"action":"run","tool_call_metadata":{"tool_call_id":null}}]"#.to_string(),
        r#"[{"id":2,"observation":"run","tool_call_metadata":{"x":1e400},"content":"a","extras":{}}]"#.to_string(),
        r#"[{"id":2,"observation":"run","tool_call_metadata":{"x":1},"observation":null,"action":"run","args":{}}]"#.to_string(),
        r#"[{"id":2,"observation":"run","tool_call_metadata":{},"action":"run"}]"#.to_string(),
        r#"[{"id":2,"observation":"run","llm_metrics":1e400,"content":"a","extras":{}}]"#.to_string(),
        r#"{"history":[],"history":[{"action":"message","args":{"content":"hi"}}]}"#.to_string(),
        r#"{"instance_id":{"$serde_json::private::RawValue":"1"},"history":[]}"#.to_string(),
        r#"{"instance_id":1}"#.to_string(),
        r#"{"history":{}}"#.to_string(),
        r#"[[{"action":"message","args":{"content":"hi"}},{}],[{"action":"message","args":{"content":"hi"}},3]]"#.to_string(),
        r#"[3]"#.to_string(),
        r#"7"#.to_string(),
    ];
    for n in 124..=127 {
        cases.push(action(&format!(r#""x":{},"#, deep(n))));
        cases.push(format!(
            r#"[{{"action":"message","args":{{"content":"hi","x":{}}}}}]"#,
            deep(n)
        ));
    }
    for text in &cases {
        agree(text, "edge case");
    }
}

/// A string with escapes, quotes and non-ASCII.
fn text() -> impl Strategy<Value = String> {
    "[a-z \\n\"é\\\\]{0,6}"
}

/// Any JSON value of a few levels.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A `tool_call_metadata`: mostly a call with a recorded response, now and then odd.
fn metadata() -> impl Strategy<Value = Value> {
    (
        "c[0-3]",
        "r[0-2]",
        prop::option::of(text()),
        prop::option::of(text()),
        any_value(),
        0..6u8,
    )
        .prop_map(|(call, response, content, arguments, stray, shape)| {
            let mut message = json!({"role": "assistant", "content": content, "function_call": null,
                "tool_calls": [{"id": call, "type": "function", "index": 1,
                    "function": {"name": "f", "arguments": arguments}}]});
            if shape == 1 {
                message["content"] = json!([{"type": "text", "text": "x"}, stray.clone()]);
            }
            let mut meta = json!({"function_name": "execute_bash", "tool_call_id": call,
                "model_response": {"id": response, "choices": [{"index": 0, "message": message}],
                    "usage": {"total_tokens": 3}, "created": 1}});
            match shape {
                2 => meta["model_response"]["choices"] = stray,
                3 => meta["tool_call_id"] = stray,
                4 => meta["model_response"] = stray,
                _ => {}
            }
            meta
        })
}

/// An event: an action or an observation of the kinds the import reads, mostly well formed.
fn event() -> impl Strategy<Value = Value> {
    let action = prop::sample::select(vec![
        "run", "read", "edit", "think", "message", "system", "finish", "recall", "mystery",
    ]);
    let observation = prop::sample::select(vec!["run", "read", "edit", "error", "recall"]);
    (
        any::<bool>(),
        action,
        observation,
        0..8i64,
        prop::option::weighted(0.7, metadata()),
        prop::collection::btree_map(
            prop::sample::select(vec!["command", "path", "content", "thought", "tools"]),
            prop_oneof![text().prop_map(Value::String), any_value()],
            0..4,
        ),
        text(),
        prop::option::of(any_value()),
        0..8u8,
    )
        .prop_map(
            |(is_action, action, observation, id, meta, args, content, stray, shape)| {
                let mut e = if is_action {
                    json!({"id": id, "action": action, "source": "agent", "message": "m",
                        "timestamp": "t", "args": args, "llm_metrics": {"accumulated_cost": 0.1}})
                } else {
                    json!({"id": id + 100, "cause": id, "observation": observation,
                        "content": content, "message": "m", "timestamp": "t",
                        "extras": {"path": "/a", "metadata": {"exit_code": 0}}})
                };
                if let Some(meta) = meta {
                    e["tool_call_metadata"] = meta;
                }
                match (shape, stray) {
                    (0, Some(stray)) => e["args"] = stray,
                    (1, Some(stray)) => e["extras"] = stray,
                    (2, Some(stray)) => e["id"] = stray,
                    (3, _) => {
                        e.as_object_mut().unwrap().remove("args");
                    }
                    _ => {}
                }
                e
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_event_streams_read_alike(
        events in prop::collection::vec(event(), 0..8),
        history in any::<bool>(),
        pretty in any::<bool>(),
        at in prop::option::weighted(0.3, 0.0f64..1.0),
        by in prop::sample::select(vec!['"', '{', '}', '[', ']', ',', ':', '1', 'n', '\\']),
    ) {
        let doc = if history {
            json!({"instance_id": "i", "history": events})
        } else {
            Value::Array(events)
        };
        let mut text = if pretty {
            serde_json::to_string_pretty(&doc).unwrap()
        } else {
            doc.to_string()
        };
        if let Some(at) = at {
            let i = (text.len() as f64 * at) as usize;
            if i < text.len() && text.is_char_boundary(i) && text.is_char_boundary(i + 1) {
                text.replace_range(i..i + 1, &by.to_string());
            }
        }
        let (fast, slow) = both(&text, None);
        prop_assert_eq!(fast, slow, "{}", text);
    }
}
