//! Exact values of the Gemini CLI fixtures' imports, both forms, and their errors.

use rehydrate_formats::{Format, Import, import, keys};
use rehydrate_model::{Content, Role, ToolDetails};
use serde_json::json;

use crate::import_fixture;

fn ok(name: &str) -> Import {
    import_fixture(name).unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> String {
    import(std::path::Path::new("s.jsonl"), text.as_bytes(), None)
        .map(|_| "imported".to_string())
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn a_legacy_document_is_what_the_model_saw() {
    let import = ok("gemini-cli-session.json");
    assert_eq!(import.format, Format::GeminiCli);
    use Role::*;
    let m = &import.messages;
    assert_eq!(
        m.iter().map(|m| m.role).collect::<Vec<_>>(),
        [
            User, Assistant, Tool, Tool, Assistant, Tool, Tool, Tool, Assistant, User, Assistant
        ]
    );
    assert_eq!(
        m[0].content,
        Some(Content::Text("Add a greeting to notes.md".into()))
    );
    // The record's text and thoughts go with its first round; each round's calls are
    // answered before the next round.
    assert_eq!(m[1].content_text(), Some("Reading the file first."));
    assert_eq!(
        m[1].metadata.get(keys::GEMINI_THOUGHTS).map(String::as_str),
        Some(
            r#"[{"description":"Read, then write.","subject":"Plan","timestamp":"2026-03-02T10:00:04.000Z"}]"#
        )
    );
    assert_eq!(
        m[1].metadata.get(keys::GEMINI_MODEL).map(String::as_str),
        Some("gemini-3-pro")
    );
    let ids = |i: usize| {
        m[i].tool_calls
            .iter()
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(1), ["read_file-1-a", "read_file-1-b"]);
    assert_eq!(
        ids(4),
        ["write_file-2-a", "replace-2-b", "run_shell_command-2-c"]
    );
    assert_eq!(ids(8), ["run_shell_command-3-a"]);
    assert_eq!(m[8].content, None);
    assert_eq!(
        m[1].tool_calls[1].arguments,
        r#"{"file_path":"big.log","limit":5,"offset":10}"#
    );
    // Results: output, error (flagged), and none for the cancelled call (left unanswered).
    assert_eq!(m[2].content_text(), Some("# Notes\n"));
    assert_eq!(m[2].tool_call_id.as_deref(), Some("read_file-1-a"));
    assert_eq!(
        m[7].content_text(),
        Some("Command exited with code 1: 2 tests failed")
    );
    assert_eq!(
        m[7].metadata.get("is_error").map(String::as_str),
        Some("true")
    );
    assert_eq!(
        m[7].metadata.get(keys::GEMINI_STATUS).map(String::as_str),
        Some("error")
    );
    assert!(
        m[9..]
            .iter()
            .all(|x| x.tool_call_id.as_deref() != Some("run_shell_command-3-a"))
    );
    // Replay details: a whole read and a write resolved against the root a write names, a
    // ranged read proves nothing, a replace proves what its diff recorded.
    let details = |i: usize| m[i].details.as_deref().cloned();
    assert_eq!(
        details(2),
        Some(ToolDetails::WholeRead {
            path: "/home/dev/site/notes.md".into(),
            content: "# Notes\n".into()
        })
    );
    assert_eq!(details(3), None);
    assert_eq!(
        details(5),
        Some(ToolDetails::Write {
            path: "/home/dev/site/notes.md".into(),
            content: "# Notes\nHello!\n".into()
        })
    );
    assert_eq!(
        details(6),
        Some(ToolDetails::Write {
            path: "/home/dev/site/src/app.ts".into(),
            content: "say('hello')\n".into()
        })
    );
    assert_eq!(details(7), None);
    // A user message with parts keeps its image as an Anthropic block.
    let Some(Content::Parts(parts)) = &m[9].content else {
        panic!("parts expected: {:?}", m[9].content);
    };
    assert_eq!(
        parts[0],
        json!({"type": "text", "text": "What does this screenshot show?"})
    );
    assert_eq!(parts[1]["source"]["media_type"], "image/png");
    assert_eq!(
        import
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "messages[2]: tool calls of 3 model rounds in one record; split at each change of their timestamp",
            "3 records the model never saw (1 info, 1 command, 1 warning; the first at messages[1]) not imported",
        ]
    );
}

#[test]
fn the_jsonl_form_keeps_the_last_state_of_each_record() {
    let import = ok("gemini-cli-session.jsonl");
    let texts: Vec<String> = import
        .messages
        .iter()
        .map(|m| format!("{:?}: {}", m.role, m.content_text().unwrap_or("-")))
        .collect();
    // `g1` re-appended with its tool call replaces the first `g1` in place; the rewind to
    // `u2` drops it and the turn after it.
    assert_eq!(
        texts,
        [
            "User: -",
            "Assistant: -",
            "Tool: 12 passed",
            "Assistant: All 12 tests pass; shall I deploy?",
            "User: no, just summarize",
            "Assistant: Tests pass; nothing deployed.",
        ]
    );
    assert_eq!(import.messages[1].tool_calls[0].id, "run_shell_command-9-a");
    assert!(import.warnings.is_empty());
}

#[test]
fn bad_gemini_input_is_one_line_naming_the_line_and_field() {
    let meta = r#"{"sessionId":"s","projectHash":"p","startTime":"t"}"#;
    assert_eq!(
        err(&format!(
            "{meta}\n{{\"id\":\"u\",\"type\":\"user\",\"content\":\"x\"}}\n{{\"id\":"
        )),
        "s.jsonl:3: invalid JSON: EOF while parsing a value at column 6"
    );
    assert_eq!(
        err(&format!("{meta}\n{{\"$rewindTo\":\"nope\"}}\n")),
        "s.jsonl:2: field `$rewindTo`: no message with id `nope` to rewind to"
    );
    assert_eq!(
        err(&format!(
            "{meta}\n{{\"id\":\"g\",\"type\":\"gemini\",\"toolCalls\":[{{\"id\":\"c\",\"name\":\"t\",\"args\":[1]}}]}}\n"
        )),
        "s.jsonl:2: field `toolCalls[0].args`: expected an object, got an array"
    );
    // A pretty-printed document cut short is reported where the parser stopped, not as a
    // JSONL line 1.
    assert_eq!(
        err(
            "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [\n    {\"id\": \"u\","
        ),
        "s.jsonl:5: invalid JSON: EOF while parsing a value at column 15"
    );
    assert_eq!(
        err(
            r#"{"sessionId":"s","projectHash":"p","messages":[{"id":"u","type":"user","content":7}]}"#
        ),
        "s.jsonl: field `messages[0].content`: expected a string or a part object, got a number"
    );
}

/// `text` (a session document) with a `messages` key put first: the typed read refuses a
/// repeated key, so the document is read again as a `Value`, which keeps the last one.
fn field_by_field(text: &str) -> String {
    let open = text.find('{').unwrap();
    format!("{}{{\"messages\": 0, {}", &text[..open], &text[open + 1..])
}

#[test]
fn the_typed_read_and_the_field_by_field_read_agree() {
    // The fixture (text parts, function responses with output and error, resultDisplay
    // objects) and the corpus sessions: every typed shape against the `Value` read.
    let mut paths = vec![crate::fixture_dir().join("gemini-cli-session.json")];
    if let Some((_, corpus)) =
        rehydrate_test_support::corpus_sessions(&[("gemini-cli", "json")], "gemini read check")
    {
        paths.extend(corpus);
    }
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let name = std::path::Path::new("s.json");
        let typed = import(name, text.as_bytes(), None).unwrap();
        let slow = import(name, field_by_field(&text).as_bytes(), None).unwrap();
        assert_eq!(typed, slow, "{}", path.display());
        assert!(!typed.messages.is_empty());
    }
    assert_eq!(
        import(
            std::path::Path::new("s.json"),
            field_by_field(
                r#"{"sessionId":"s","projectHash":"p","messages":[{"type":"user","content":7}]}"#
            )
            .as_bytes(),
            None
        )
        .unwrap_err()
        .to_string(),
        "s.json: field `messages[0].content`: expected a string or a part object, got a number"
    );
}

#[test]
fn a_jsonl_session_with_only_its_metadata_line_has_no_messages() {
    let import = import(
        std::path::Path::new("s.jsonl"),
        br#"{"sessionId":"s","projectHash":"p","startTime":"t","lastUpdated":"t","kind":"main"}
"#,
        None,
    )
    .unwrap();
    assert_eq!(
        (import.format, import.messages.len()),
        (Format::GeminiCli, 0)
    );
}

/// A session of one read of `notes.md` in `/w`, whose call's `result` is `result`.
fn read_with(result: serde_json::Value) -> Result<Import, String> {
    let doc = json!({"sessionId": "s", "projectHash": "p", "messages": [
        {"id": "u", "type": "user", "content": "read it"},
        {"id": "g", "type": "gemini", "content": "", "toolCalls": [
            {"id": "r", "name": "read_file", "args": {"file_path": "./../notes.md"},
             "result": result, "status": "success", "timestamp": "t"},
            {"id": "w", "name": "write_file", "args": {"file_path": "x.md", "content": "x"},
             "result": [{"functionResponse": {"id": "w", "name": "write_file",
                 "response": {"output": "Successfully overwrote file: /w/sub/x.md."}}}],
             "status": "success", "timestamp": "t"}]}]});
    import(
        std::path::Path::new("s.json"),
        doc.to_string().as_bytes(),
        None,
    )
    .map_err(|e| e.to_string())
}

fn output(text: &str) -> serde_json::Value {
    json!([{"functionResponse": {"id": "r", "name": "read_file", "response": {"output": text}}}])
}

#[test]
fn only_a_plain_text_read_proves_a_file_and_bad_results_are_errors() {
    // A plain output proves the file, its path resolved against the root the write names,
    // `.` and `..` resolved.
    let plain = read_with(output("hello\n")).unwrap();
    assert_eq!(
        plain.messages[2].details.as_deref(),
        Some(&ToolDetails::WholeRead {
            path: "/w/notes.md".into(),
            content: "hello\n".into()
        })
    );
    // A binary read (its data in another part), project context appended, or an empty result
    // proves nothing; the image is kept as a part, and no empty text part is written.
    let mut binary = output("Binary content provided (1 item(s)).");
    binary
        .as_array_mut()
        .unwrap()
        .push(json!({"inlineData": {"mimeType": "application/pdf", "data": "AAAA"}}));
    let binary = read_with(binary).unwrap();
    assert_eq!(binary.messages[2].details, None);
    let Some(Content::Parts(parts)) = &binary.messages[2].content else {
        panic!("parts expected");
    };
    assert_eq!(
        parts[1],
        json!({"type": "gemini_part", "part": {"inlineData": {"mimeType": "application/pdf", "data": "AAAA"}}})
    );
    let context = read_with(output(
        "hello\n\n--- Newly Discovered Project Context ---\nrules\n--- End Project Context ---",
    ))
    .unwrap();
    assert_eq!(context.messages[2].details, None);
    let empty = read_with(json!([])).unwrap();
    assert_eq!(empty.messages[2].details, None);
    let only_image = read_with(
        json!([{"functionResponse": {"id": "r", "name": "read_file", "response": {"output": ""}}},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]),
    )
    .unwrap();
    let Some(Content::Parts(parts)) = &only_image.messages[2].content else {
        panic!("parts expected");
    };
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0]["type"], "image");
    // Results of the wrong shape are errors naming the field.
    let field = "messages[1].toolCalls[0].result[0].functionResponse";
    assert_eq!(
        read_with(json!([{"functionResponse": 5}])).unwrap_err(),
        format!("s.json: field `{field}`: expected an object, got a number")
    );
    assert_eq!(
        read_with(json!([{"functionResponse": {"response": null}}])).unwrap_err(),
        format!("s.json: field `{field}.response`: expected an object, got null")
    );
    assert_eq!(
        read_with(json!([{"functionResponse": {"response": {"output": 5}}}])).unwrap_err(),
        format!("s.json: field `{field}.response.output`: expected a string, got a number")
    );
}

#[test]
fn metadata_of_the_wrong_type_and_records_without_a_type_are_errors() {
    let doc = |extra: &str| {
        format!(
            r#"{{"sessionId":"s","projectHash":"p","messages":[{{"id":"g","type":"gemini","content":"hi"{extra}}}]}}"#
        )
    };
    assert_eq!(
        err(&doc(r#","model":5"#)),
        "s.jsonl: field `messages[0].model`: expected a string, got a number"
    );
    assert_eq!(
        err(&doc(r#","tokens":"s""#)),
        "s.jsonl: field `messages[0].tokens`: expected an object, got a string"
    );
    assert_eq!(
        err(&doc(r#","thoughts":{}"#)),
        "s.jsonl: field `messages[0].thoughts`: expected an array, got an object"
    );
    assert_eq!(
        err(&doc(r#","toolCalls":[{"id":"c","name":"t"}]"#)),
        "s.jsonl: field `messages[0].toolCalls[0].args`: missing (expected an object)"
    );
    // In the JSONL form only the first line is the metadata line.
    let meta = r#"{"sessionId":"s","projectHash":"p"}"#;
    assert_eq!(
        err(&format!(
            "{meta}\n{{\"id\":\"u\",\"type\":\"user\",\"content\":\"a\"}}\n{{\"id\":\"z\",\"content\":\"lost\"}}\n"
        )),
        "s.jsonl:3: field `type`: missing (expected a string)"
    );
}

#[test]
fn a_jsonl_command_is_counted_at_its_line() {
    let text = "{\"sessionId\":\"s\",\"projectHash\":\"p\"}\n{\"id\":\"u\",\"type\":\"user\",\"content\":\"/stats\"}\n";
    let import = import(std::path::Path::new("s.jsonl"), text.as_bytes(), None).unwrap();
    assert_eq!(
        import
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["1 records the model never saw (1 command; the first at line 2) not imported"]
    );
}

/// Imports `text` as Gemini CLI, writes the messages as a Gemini CLI session and imports that:
/// the messages must be the same.
fn round_trip(name: &str, text: &[u8]) -> Import {
    let path = std::path::Path::new(name);
    let first = import(path, text, None).unwrap();
    let written =
        rehydrate_formats::write(&first.messages, rehydrate_formats::ExportFormat::GeminiCli)
            .unwrap();
    let again = import(std::path::Path::new("written.json"), &written, None).unwrap();
    assert_eq!(again.format, Format::GeminiCli);
    assert_eq!(again.messages, first.messages, "{name}");
    first
}

#[test]
fn a_written_session_imports_to_the_same_messages() {
    let mut paths = vec![
        crate::fixture_dir().join("gemini-cli-session.json"),
        crate::fixture_dir().join("gemini-cli-session.jsonl"),
    ];
    if let Some((_, corpus)) =
        rehydrate_test_support::corpus_sessions(&[("gemini-cli", "json")], "gemini write check")
    {
        paths.extend(corpus);
    }
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let first = round_trip(&path.display().to_string(), &bytes);
        assert_eq!(
            rehydrate_formats::write_back(first.format, &bytes, &first.messages),
            rehydrate_formats::WriteBack::Messages,
            "{}",
            path.display()
        );
    }
}

/// A random tool call record: a file or shell tool, a result that is absent, an output or an
/// error, a status, one of two timestamps (so records hold several rounds), a recorded new
/// content.
fn call_record() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    (
        prop::sample::select(vec!["read_file", "write_file", "replace", "run_shell_command"]),
        "[a-z/.]{1,8}",
        ".{0,20}",
        0..4u8,
        prop::option::of(prop::sample::select(vec!["success", "error", "cancelled"])),
        prop::option::of(prop::sample::select(vec!["t1", "t2"])),
        prop::option::of(".{0,10}"),
        any::<u32>(),
    )
        .prop_map(
            |(name, path, text, result, status, time, new_content, n)| {
                let id = format!("{name}-{n}");
                let response = match result {
                    0 => serde_json::Value::Null,
                    1 => json!([{"functionResponse": {"id": id, "name": name, "response": {"output": text}}}]),
                    2 => json!([{"functionResponse": {"id": id, "name": name, "response": {"error": text}}}]),
                    _ => json!([{"functionResponse": {"id": id, "name": name,
                        "response": {"output": format!("Successfully overwrote file: /w/{path}.")}}}]),
                };
                let mut call = json!({"id": id, "name": name,
                    "args": {"file_path": path, "content": text, "b": [1, {"z": null, "a": "\u{e9}"}]},
                    "result": response});
                if let Some(status) = status {
                    call["status"] = json!(status);
                }
                if let Some(time) = time {
                    call["timestamp"] = json!(time);
                }
                if let Some(content) = new_content {
                    call["resultDisplay"] = json!({"newContent": content, "fileDiff": "-"});
                }
                call
            },
        )
}

/// A random record: a user message (text or parts, an image among them), a model turn with
/// text, thoughts, tokens and tool calls, or an info record.
fn record() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    prop_oneof![
        ("[a-z][a-z ]{0,12}", any::<bool>(), any::<bool>()).prop_map(|(text, parts, image)| {
            let content = if parts {
                let mut parts = vec![json!({"text": text})];
                if image {
                    parts.push(json!({"inlineData": {"mimeType": "image/png", "data": "iVBO"}}));
                }
                json!(parts)
            } else {
                json!(text)
            };
            json!({"id": "u", "timestamp": "t0", "type": "user", "content": content})
        }),
        (
            ".{0,12}",
            prop::collection::vec(call_record(), 0..4),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(text, calls, thoughts, tokens)| {
                let mut record = json!({"id": "g", "timestamp": "t0", "type": "gemini",
                    "content": text, "toolCalls": calls, "model": "gemini-x"});
                if thoughts {
                    record["thoughts"] =
                        json!([{"subject": "s", "description": "d", "timestamp": "t"}]);
                }
                if tokens {
                    record["tokens"] = json!({"input": 3, "output": 1, "total": 4});
                }
                record
            }),
        ".{0,8}".prop_map(|text| json!({"id": "i", "type": "info", "content": text})),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

    /// Any session document imports, is written as a Gemini CLI session, and that imports to
    /// the same messages.
    #[test]
    fn any_written_session_imports_to_the_same_messages(
        records in proptest::collection::vec(record(), 0..8),
        pretty in proptest::bool::ANY,
    ) {
        let doc = json!({"sessionId": "s", "projectHash": "p", "startTime": "t0",
            "lastUpdated": "t9", "kind": "main", "messages": records});
        let text = if pretty {
            serde_json::to_string_pretty(&doc).unwrap()
        } else {
            doc.to_string()
        };
        round_trip("s.json", text.as_bytes());
    }
}

#[test]
fn a_session_from_elsewhere_gets_statuses_and_inline_images() {
    use rehydrate_model::Message;
    use rehydrate_test_support::{call as tool_call, calling, image_url_part, text_part};
    let mut user = Message::text(Role::User, "");
    user.content = Some(Content::Parts(vec![
        text_part("see"),
        image_url_part("image/png", "iVBO"),
    ]));
    let call = calling(
        None,
        vec![
            tool_call("c1", "ls", "{}"),
            tool_call("c2", "cat", r#"{"path":"x"}"#),
        ],
    );
    let ok = Message::tool_result("c1", "a\nb");
    let mut failed = Message::tool_result("c2", "no such file");
    failed
        .metadata
        .insert(rehydrate_model::IS_ERROR_METADATA_KEY.into(), "true".into());
    let written = rehydrate_formats::write(
        &[user, call, ok, failed],
        rehydrate_formats::ExportFormat::GeminiCli,
    )
    .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&written).unwrap();
    assert_eq!(
        doc["messages"][0]["content"],
        json!([{"text": "see"}, {"inlineData": {"mimeType": "image/png", "data": "iVBO"}}])
    );
    let calls = &doc["messages"][1]["toolCalls"];
    assert_eq!(calls[0]["status"], "success");
    assert_eq!(
        calls[0]["result"],
        json!([{"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "a\nb"}}}])
    );
    assert_eq!(calls[1]["status"], "error");
    assert_eq!(
        calls[1]["result"][0]["functionResponse"]["response"],
        json!({"output": "no such file"})
    );
    let again = import(std::path::Path::new("w.json"), &written, None).unwrap();
    assert_eq!(again.messages.len(), 4);
    assert!(again.messages[3].is_error());
}
