//! The Codex rollout codec: exact values of the fixtures in `fixtures/formats/codex/`, their
//! snapshots, the byte-exact round trip (fixtures, corpus, random rollouts).

use std::path::{Path, PathBuf};

use rehydrate_formats::{ExportFormat, Format, Import, detect, import, keys, write_unchecked};
use rehydrate_model::{Content, Message, Role, ToolDetails};
use rehydrate_test_support::corpus_sessions;

use crate::{fixture_dir, render};

fn codex_dir() -> PathBuf {
    fixture_dir().join("codex")
}

fn fixtures() -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(codex_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn load(name: &str) -> (Vec<u8>, Import) {
    let bytes = std::fs::read(codex_dir().join(name)).unwrap();
    let import = import(Path::new(name), &bytes, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(import.format, Format::Codex, "{name}");
    (bytes, import)
}

fn meta<'a>(m: &'a Message, key: &str) -> Option<&'a str> {
    m.metadata.get(key).map(String::as_str)
}

fn warnings(import: &Import) -> Vec<String> {
    import.warnings.iter().map(ToString::to_string).collect()
}

fn roles(import: &Import) -> Vec<Role> {
    import.messages.iter().map(|m| m.role).collect()
}

/// The rendering of an import without the source keys (they repeat the file).
fn render_without_source(result: &Result<Import, rehydrate_formats::Error>) -> String {
    let stripped = result.as_ref().map(|import| {
        let mut import = import.clone();
        for m in &mut import.messages {
            m.metadata.remove(keys::SOURCE);
            m.metadata.remove(keys::SOURCE_PART);
            m.metadata.remove(keys::SOURCE_TAIL);
        }
        import
    });
    match (stripped, result) {
        (Ok(import), _) => render(&Ok(import)),
        (Err(_), Err(e)) => format!("error: {e}\n"),
        (Err(_), Ok(_)) => unreachable!(),
    }
}

#[test]
fn codex_fixture_snapshots() {
    insta::glob!("../../../../fixtures/formats/codex", "*.jsonl", |path| {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().map(Path::new).unwrap();
        insta::assert_snapshot!(render_without_source(&import(name, &bytes, None)));
    });
}

#[test]
fn every_fixture_round_trips_byte_for_byte() {
    for path in fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        let import = import(&path, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
        let written = write_unchecked(&import.messages, ExportFormat::Codex);
        assert!(
            written == bytes,
            "{}: written back differently:\n{}",
            path.display(),
            String::from_utf8_lossy(&written)
        );
    }
}

/// The shared corpus's Codex rollouts.
fn corpus_rollouts() -> Vec<PathBuf> {
    corpus_sessions(&[("codex", "jsonl")], "codex corpus check")
        .map(|(_, sessions)| sessions)
        .unwrap_or_default()
}

#[test]
fn corpus_rollouts_round_trip_byte_for_byte() {
    for path in corpus_rollouts() {
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(detect(&bytes), Some(Format::Codex), "{}", path.display());
        let import = import(&path, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
        let written = write_unchecked(&import.messages, ExportFormat::Codex);
        assert!(
            written == bytes,
            "{}: not written back byte for byte",
            path.display()
        );
    }
}

#[test]
fn codex_session() {
    let (_, import) = load("codex-session.jsonl");
    use Role::*;
    assert_eq!(
        roles(&import),
        [
            System, System, User, User, Assistant, Tool, Tool, Tool, Assistant, Tool, Assistant
        ]
    );
    assert!(warnings(&import).is_empty());
    let m = &import.messages;
    assert_eq!(m[0].content_text(), Some("You are Codex, a coding agent."));
    assert_eq!(meta(&m[0], keys::CODEX_BASE_INSTRUCTIONS), Some("true"));
    assert_eq!(meta(&m[0], keys::CODEX_CLI_VERSION), Some("0.125.0"));
    assert_eq!(meta(&m[0], keys::CODEX_CWD), Some("/home/dev/greeter"));
    assert_eq!(meta(&m[1], keys::CODEX_ROLE), Some("developer"));
    assert!(matches!(&m[1].content, Some(Content::Parts(p)) if p.len() == 2));
    // The event repeating the user message makes no second message.
    assert_eq!(
        m[3].content_text(),
        Some("Fix the typo in greet.py and run the tests.")
    );
    // Reasoning, commentary and three parallel calls are one assistant message.
    let a = &m[4];
    assert_eq!(
        a.content_text(),
        Some("I'll look at the file and the tests first.")
    );
    assert_eq!(meta(a, keys::CODEX_PHASE), Some("commentary"));
    assert_eq!(
        meta(a, "reasoning"),
        Some(
            r#"[{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAAAABone=="}]"#
        )
    );
    let ids: Vec<&str> = a.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_cat", "call_pytest", "call_sleep"]);
    // Raw arguments, spaces and all.
    assert_eq!(
        a.tool_calls[0].arguments,
        r#"{"cmd": "cat greet.py", "workdir": "/home/dev/greeter"}"#
    );
    assert_eq!(meta(&m[5], keys::CODEX_EXIT_CODE), Some("0"));
    assert_eq!(meta(&m[5], keys::CODEX_ORIGINAL_TOKEN_COUNT), Some("12"));
    assert!(!m[5].is_error());
    assert_eq!(meta(&m[6], keys::CODEX_EXIT_CODE), Some("1"));
    assert!(m[6].is_error());
    assert_eq!(meta(&m[6], keys::CODEX_TOTAL_OUTPUT_LINES), Some("833"));
    assert_eq!(meta(&m[6], keys::CODEX_TRUNCATED_TOKENS), Some("768"));
    // The truncation notes stay in the content the model saw.
    assert!(
        m[6].content_text()
            .unwrap()
            .contains("…768 tokens truncated…")
    );
    // A still-running command has no exit code yet; its output comes with write_stdin.
    assert_eq!(meta(&m[7], keys::CODEX_EXIT_CODE), None);
    assert_eq!(m[8].tool_calls[0].name, "write_stdin");
    assert_eq!(meta(&m[9], keys::CODEX_EXIT_CODE), Some("0"));
    // Two reasoning items before the final answer; the web search is in the source only.
    assert_eq!(meta(&m[10], keys::CODEX_PHASE), Some("final_answer"));
    assert!(meta(&m[10], "reasoning").unwrap().contains("gAAAAABtwo=="));
    assert!(
        meta(&m[10], keys::SOURCE)
            .unwrap()
            .contains("web_search_call")
    );
    assert_eq!(
        meta(&m[10], keys::SOURCE_TAIL).map(|t| t.lines().count()),
        Some(1)
    );
}

#[test]
fn codex_apply_patch_details() {
    let (_, import) = load("codex-apply-patch.jsonl");
    let m = &import.messages;
    assert_eq!(m.len(), 12);
    assert!(warnings(&import).is_empty());
    assert_eq!(
        m[1].tool_calls[0].arguments,
        serde_json::json!({"input": "*** Begin Patch\n*** Add File: notes/TODO.md\n+# TODO\n+\n+- greet in French\n*** End Patch\n"}).to_string()
    );
    assert_eq!(meta(&m[1], keys::CUSTOM_CALLS), Some("call_add"));
    assert_eq!(meta(&m[2], keys::CUSTOM_CALLS), Some("call_add"));
    assert_eq!(
        m[2].details.as_deref(),
        Some(&ToolDetails::Write {
            path: "/home/dev/greeter/notes/TODO.md".to_string(),
            content: "# TODO\n\n- greet in French\n".to_string(),
        })
    );
    match m[4].details.as_deref() {
        Some(ToolDetails::Edit(edit)) => {
            assert_eq!(edit.path, "/home/dev/greeter/greet.py");
            assert_eq!(edit.base, rehydrate_model::EditBase::LastProven);
            assert!(
                matches!(&edit.change, rehydrate_model::EditChange::Patch { hunks } if hunks.len() == 1 && hunks[0].old_start == 1)
            );
        }
        other => panic!("not an edit: {other:?}"),
    }
    // A failed patch proves nothing.
    assert!(m[6].is_error());
    assert_eq!(m[6].details, None);
    // A patch of two files without its patch_apply_end record: relative paths, taken from the
    // session's working directory, a delete and an update without line numbers; each file is
    // retracted.
    let unproven = |path: &str, reason: &str| ToolDetails::UnprovenChange {
        path: path.to_string(),
        reason: reason.to_string(),
    };
    assert_eq!(
        m[8].details.as_deref(),
        Some(&ToolDetails::Patch {
            files: vec![
                unproven("/home/dev/greeter/old.py", "apply_patch deleted the file"),
                unproven(
                    "/home/dev/greeter/greet.py",
                    "the apply_patch update has no patch_apply_end record with line numbers"
                ),
            ]
        })
    );
    // A patch of two files with its record: each file's own details, in path order.
    let Some(ToolDetails::Patch { files }) = m[10].details.as_deref() else {
        panic!("not a patch: {:?}", m[10].details);
    };
    assert_eq!(
        files[0],
        ToolDetails::Write {
            path: "/home/dev/greeter/de.txt".to_string(),
            content: "Hallo\n".to_string(),
        }
    );
    assert!(
        matches!(&files[1], ToolDetails::Edit(edit) if edit.path == "/home/dev/greeter/notes/TODO.md")
    );
    assert_eq!(files.len(), 2);
}

#[test]
fn codex_compacted_and_user_events() {
    let (_, import) = load("codex-compacted.jsonl");
    let m = &import.messages;
    assert_eq!(
        roles(&import),
        [
            Role::User,
            Role::Assistant,
            Role::User,
            Role::User,
            Role::Assistant
        ]
    );
    assert_eq!(meta(&m[2], keys::CODEX_COMPACTED), Some("true"));
    assert!(
        m[2].content_text()
            .unwrap()
            .starts_with("Another language model")
    );

    let (_, import) = load("codex-user-event-only.jsonl");
    let m = &import.messages;
    assert_eq!(
        roles(&import),
        [Role::User, Role::Assistant, Role::User, Role::User]
    );
    assert_eq!(m[0].content_text(), Some("What does greet.py print?"));
    assert_eq!(meta(&m[0], keys::CODEX_USER_EVENT), Some("true"));
    assert!(matches!(&m[2].content, Some(Content::Parts(p)) if p.len() == 2));
    // An event followed by its response item: the response item is the message.
    assert_eq!(meta(&m[3], keys::CODEX_USER_EVENT), None);
}

#[test]
fn codex_bad_input_warns_by_line() {
    let (_, import) = load("codex-bad-pairing.jsonl");
    assert_eq!(
        warnings(&import),
        [
            "line 3: call call_broken has arguments that are not JSON",
            "line 3: tool call call_silent has no tool result",
            "line 6: tool result call_broken is a second result for its tool call",
            "line 7: tool result call_ghost has no tool call",
            "line 8: reasoning item is not followed by an assistant message or tool call, kept in the source only",
            "line 10: reasoning item is not followed by an assistant message or tool call, kept in the source only",
        ]
    );
    // Non-JSON arguments are kept byte for byte.
    assert_eq!(import.messages[1].tool_calls[0].arguments, r#"{"cmd":"ls""#);
    let (_, import) = load("codex-bad-truncated.jsonl");
    assert_eq!(import.messages.len(), 2);
    assert_eq!(
        warnings(&import)[1],
        "line 4: line is not valid JSON (cut short?), kept in the source only: EOF while parsing a string at column 60"
    );
    let (_, import) = load("codex-bad-unknown.jsonl");
    assert_eq!(
        warnings(&import),
        [
            "line 2: unknown record type `inter_agent_communication`, kept in the source only",
            "line 4: unknown response item type `image_generation_call`, kept in the source only",
            "line 6: record has no string `type`, kept in the source only",
        ]
    );
}

#[test]
fn a_line_that_is_not_json_in_the_middle_is_an_error() {
    let text = "{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{}}\nnot json\n{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{\"type\":\"x\"}}\n";
    let err = import(Path::new("r.jsonl"), text.as_bytes(), None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "r.jsonl:2: invalid JSON: expected ident at column 2"
    );
}

/// The messages without the source keys and line numbers (which the writer sets).
fn canonical(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .map(|m| {
            let mut m = m.clone();
            for key in [
                keys::SOURCE,
                keys::SOURCE_PART,
                keys::SOURCE_TAIL,
                keys::CODEX_LINE,
                keys::CODEX_USER_EVENT,
            ] {
                m.metadata.remove(key);
            }
            m.details = None;
            m
        })
        .collect()
}

#[test]
fn a_changed_message_is_written_afresh_and_the_rest_verbatim() {
    let (bytes, mut import) = load("codex-session.jsonl");
    import.messages[3].content = Some(Content::Text("Fix it.".to_string()));
    let written = write_unchecked(&import.messages, ExportFormat::Codex);
    let text = String::from_utf8(written.clone()).unwrap();
    let original = String::from_utf8(bytes).unwrap();
    let changed: Vec<&str> = text
        .lines()
        .filter(|l| !original.lines().any(|o| o == *l))
        .collect();
    assert_eq!(
        changed,
        [
            r#"{"timestamp":"2026-05-11T08:27:02.074Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix it."}]}}"#
        ]
    );
    // The repeating event went with the message it repeated; the turn_context line stays.
    assert_eq!(original.lines().count(), text.lines().count() + 1);
    let again = rehydrate_formats::import(Path::new("w.jsonl"), &written, None).unwrap();
    assert_eq!(canonical(&again.messages), canonical(&import.messages));
}

#[test]
fn a_session_from_another_format_is_written_afresh_after_a_session_meta_line() {
    let mut call = Message::tool_call("call_1", "shell", r#"{"cmd":"ls"}"#);
    call.content = Some(Content::Text("Listing.".to_string()));
    let messages = vec![
        Message::text(Role::System, "Be brief."),
        Message::text(Role::User, "ls please"),
        call,
        Message::tool_result("call_1", "a\nb"),
    ];
    let written = String::from_utf8(write_unchecked(&messages, ExportFormat::Codex)).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), 6);
    assert!(lines[0].contains(r#""type":"session_meta""#));
    assert_eq!(
        lines[3],
        r#"{"timestamp":"1970-01-01T00:00:00.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Listing."}]}}"#
    );
    assert_eq!(
        lines[4],
        r#"{"timestamp":"1970-01-01T00:00:00.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"cmd\":\"ls\"}","call_id":"call_1"}}"#
    );
    let again = import(Path::new("w.jsonl"), written.as_bytes(), None).unwrap();
    assert_eq!(again.format, Format::Codex);
    let mut expected = messages.clone();
    expected[0].metadata.insert(
        keys::CODEX_SESSION_ID.to_string(),
        "00000000-0000-0000-0000-000000000000".to_string(),
    );
    expected[0]
        .metadata
        .insert(keys::CODEX_CWD.to_string(), String::new());
    expected[0]
        .metadata
        .insert(keys::CODEX_CLI_VERSION.to_string(), String::new());
    for m in &mut expected {
        m.metadata.insert(
            "timestamp".to_string(),
            "1970-01-01T00:00:00.000Z".to_string(),
        );
    }
    assert_eq!(canonical(&again.messages), expected);
    // And that file written again is itself.
    assert_eq!(
        write_unchecked(&again.messages, ExportFormat::Codex),
        written.as_bytes()
    );
}

/// One random rollout line.
fn arbitrary_line() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let word = prop::sample::select(vec![
        "hi",
        "ok",
        "",
        "a b",
        "é\u{3}",
        "\"q\"",
        "line\nbreak",
    ]);
    // Call ids are unique per call kind (a message marks its custom and shell calls by id).
    let id = prop::sample::select(vec!["call_a", "call_b", "custom_c", "shell_d"]);
    let line = |ts: u8, kind: &str, payload: serde_json::Value| {
        serde_json::json!({"timestamp": format!("2026-05-11T08:00:{ts:02}.000Z"), "type": kind, "payload": payload}).to_string()
    };
    (0u8..20, any::<u8>(), word, id).prop_map(move |(choice, ts, word, id)| {
        let ts = ts % 60;
        let item = |payload: serde_json::Value| line(ts, "response_item", payload);
        match choice {
            0 => line(ts, "turn_context", serde_json::json!({"turn_id": "t", "model": "m"})),
            1 => item(serde_json::json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": word}]})),
            2 => line(ts, "event_msg", serde_json::json!({"type": "user_message", "message": word})),
            3 => item(serde_json::json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": word}, {"type": "input_text", "text": "x"}]})),
            4 => item(serde_json::json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": word}], "phase": "commentary"})),
            5 => item(serde_json::json!({"type": "reasoning", "summary": [], "content": null, "encrypted_content": format!("gAAA{word}")})),
            6 => item(serde_json::json!({"type": "function_call", "name": "exec_command", "arguments": format!("{{\"cmd\": \"{word}\"}}"), "call_id": if id.starts_with("call") { id } else { "call_a" }})),
            7 => item(serde_json::json!({"type": "custom_tool_call", "status": "completed", "call_id": "custom_c", "name": "apply_patch", "input": format!("*** Begin Patch\n*** Add File: {word}\n+x\n*** End Patch\n")})),
            8 => item(serde_json::json!({"type": "function_call_output", "call_id": id, "output": format!("Process exited with code 1\nOutput:\n{word}")})),
            9 => item(serde_json::json!({"type": "custom_tool_call_output", "call_id": "custom_c", "output": "{\"output\":\"Success.\",\"metadata\":{\"exit_code\":0}}"})),
            10 => item(serde_json::json!({"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": word}})),
            11 => item(serde_json::json!({"type": "mystery_item", "x": word})),
            12 => line(ts, "mystery_record", serde_json::json!({"x": 1})),
            13 => line(ts, "compacted", serde_json::json!({"message": word, "replacement_history": []})),
            14 => line(ts, "event_msg", serde_json::json!({"type": "token_count", "info": null})),
            15 => String::new(),
            16 => "[1]".to_string(),
            17 => item(serde_json::json!({"type": "local_shell_call", "call_id": "shell_d", "status": "completed", "action": {"type": "exec", "command": [word]}})),
            18 => line(ts, "session_meta", serde_json::json!({"id": "s", "cwd": word, "base_instructions": {"text": word}})),
            _ => item(serde_json::json!({"type": "function_call_output", "call_id": id, "output": [{"type": "input_text", "text": word}]})),
        }
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Random rollouts (every record type, unknown ones, blank and non-object lines, a cut
    /// last line) import without panic and are written back byte for byte.
    #[test]
    fn random_rollouts_round_trip(
        lines in proptest::collection::vec(arbitrary_line(), 0..24),
        cut in proptest::option::of(1usize..40),
        crlf in proptest::bool::ANY,
    ) {
        let mut text = String::from("{\"timestamp\":\"2026-05-11T08:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"s\"}}\n");
        let newline = if crlf { "\r\n" } else { "\n" };
        for line in &lines {
            text.push_str(line);
            text.push_str(newline);
        }
        if let Some(cut) = cut {
            let last = r#"{"timestamp":"2026-05-11T08:00:00.000Z","type":"response_item","payload":{"type":"message"}}"#;
            text.push_str(&last[..cut.min(last.len() - 1)]);
        }
        let import = import(Path::new("r.jsonl"), text.as_bytes(), None);
        let import = import.unwrap_or_else(|e| panic!("{e}\n{text}"));
        if !import.messages.is_empty() {
            proptest::prop_assert_eq!(String::from_utf8(write_unchecked(&import.messages, ExportFormat::Codex)).unwrap(), text);
        }
        // Written afresh (no source kept), the messages read back the same.
        let mut fresh = canonical(&import.messages);
        for m in &mut fresh {
            m.metadata.remove("timestamp");
        }
        let written = write_unchecked(&fresh, ExportFormat::Codex);
        if !fresh.is_empty() {
            let again = rehydrate_formats::import(Path::new("w.jsonl"), &written, Some(Format::Codex)).unwrap();
            let mut again = canonical(&again.messages);
            for m in &mut again {
                m.metadata.remove("timestamp");
                for key in [keys::CODEX_SESSION_ID, keys::CODEX_CWD, keys::CODEX_CLI_VERSION] {
                    m.metadata.remove(key);
                }
            }
            for m in &mut fresh {
                for key in [keys::CODEX_SESSION_ID, keys::CODEX_CWD, keys::CODEX_CLI_VERSION] {
                    m.metadata.remove(key);
                }
            }
            proptest::prop_assert_eq!(again, fresh);
        }
    }
}

#[test]
fn codex_event_log() {
    use rehydrate_model::EventKind;
    let path = codex_dir().join("codex-session.jsonl");
    let log =
        rehydrate_formats::import_events(&path, &std::fs::read(&path).unwrap(), None).unwrap();
    assert_eq!(log.format, Format::Codex);
    let kinds: Vec<&EventKind> = log.events.iter().map(|e| &e.kind).collect();
    // The context preamble is injected; the person's message opens turn 1.
    assert!(
        matches!(kinds[2], EventKind::InjectedMessage { source, .. } if source == "codex-context")
    );
    assert!(matches!(kinds[3], EventKind::UserMessage { .. }));
    assert_eq!(log.events[3].turn, Some(1));
    assert_eq!(log.events[2].turn, None);
    let results: Vec<(Option<&str>, bool, Option<i64>)> = log
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult {
                name,
                ok,
                exit_code,
                ..
            } => Some((name.as_deref(), *ok, *exit_code)),
            _ => None,
        })
        .collect();
    // A command still running when its first output came has no exit code there; the
    // write_stdin output that saw it end carries it.
    assert_eq!(
        results,
        [
            (Some("exec_command"), true, Some(0)),
            (Some("exec_command"), false, Some(1)),
            (Some("exec_command"), true, None),
            (Some("write_stdin"), true, Some(0)),
        ]
    );
    let path = codex_dir().join("codex-compacted.jsonl");
    let log =
        rehydrate_formats::import_events(&path, &std::fs::read(&path).unwrap(), None).unwrap();
    assert!(log.events.iter().any(|e| matches!(&e.kind, EventKind::CompactionSummary { text } if text.starts_with("Another language model"))));
}

/// Every line of a rollout is a record: a JSON object with `timestamp`, `type` and `payload`.
fn assert_records(rollout: &str) {
    for (i, line) in rollout.lines().enumerate() {
        let value: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {}: not JSON ({e}): {line}", i + 1));
        for key in ["timestamp", "type", "payload"] {
            assert!(value.get(key).is_some(), "line {}: no {key}: {line}", i + 1);
        }
    }
}

#[test]
fn a_body_of_another_format_is_written_afresh_without_its_sources() {
    // The Anthropic importer keeps each block group's source text (for its own writer): a
    // rollout holds records only, starting with a session_meta line.
    let path = fixture_dir().join("anthropic").join("body.json");
    let bytes = std::fs::read(&path).unwrap();
    let body = import(&path, &bytes, None).unwrap();
    assert!(
        body.messages
            .iter()
            .any(|m| m.metadata.contains_key(keys::SOURCE))
    );
    let written = String::from_utf8(write_unchecked(&body.messages, ExportFormat::Codex)).unwrap();
    assert_records(&written);
    assert!(
        written
            .lines()
            .next()
            .unwrap()
            .contains(r#""type":"session_meta""#)
    );
    let again = import(Path::new("w.jsonl"), written.as_bytes(), None).unwrap();
    assert_eq!(again.format, Format::Codex);
    let shape = |ms: &[Message]| -> Vec<(Role, Vec<String>, Option<String>)> {
        ms.iter()
            .map(|m| {
                let calls = m.tool_calls.iter().map(|c| c.id.clone()).collect();
                (m.role, calls, m.tool_call_id.clone())
            })
            .collect()
    };
    assert_eq!(shape(&again.messages), shape(&body.messages));
}

#[test]
fn a_line_after_a_last_line_without_a_line_break_starts_a_line() {
    let (bytes, mut import) = load("codex-bad-truncated.jsonl");
    assert_ne!(bytes.last(), Some(&b'\n'));
    // Unchanged, the file comes back as it is, its last line unended.
    assert_eq!(
        write_unchecked(&import.messages, ExportFormat::Codex),
        bytes
    );
    import.messages.push(Message::text(Role::User, "go on"));
    let written =
        String::from_utf8(write_unchecked(&import.messages, ExportFormat::Codex)).unwrap();
    let original = String::from_utf8(bytes).unwrap();
    assert_eq!(
        written
            .strip_prefix(&format!("{original}\n"))
            .map(|l| l.lines().count()),
        Some(1)
    );
    assert!(
        written
            .lines()
            .last()
            .unwrap()
            .contains(r#""text":"go on""#)
    );
}

#[test]
fn a_custom_calls_synthetic_result_is_a_custom_tool_call_output() {
    // A pairing repair answers a dangling apply_patch call with a synthetic result that carries
    // only the reduction key: it is written as the output of a custom call, as the API pairs
    // them.
    let (_, import) = load("codex-apply-patch.jsonl");
    let at = import
        .messages
        .iter()
        .position(|m| m.tool_calls.iter().any(|c| c.id == "call_add"))
        .unwrap();
    let mut messages = import.messages[..=at].to_vec();
    messages[at].content = None; // changed: written afresh, not from its source
    let mut synthetic = Message::tool_result("call_add", "[rehydrate:unanswered-call r0.abc123]");
    synthetic.metadata.insert(
        rehydrate_model::REDUCTION_METADATA_KEY.to_string(),
        "r0.abc123".to_string(),
    );
    messages.push(synthetic);
    let rollout = String::from_utf8(write_unchecked(&messages, ExportFormat::Codex)).unwrap();
    let last = rollout.lines().last().unwrap();
    assert!(
        last.contains(r#""type":"custom_tool_call_output","call_id":"call_add""#),
        "{last}"
    );
    let body = String::from_utf8(write_unchecked(&messages, ExportFormat::Responses)).unwrap();
    assert!(body.contains(r#"{"type":"custom_tool_call_output","call_id":"call_add","output":"[rehydrate:unanswered-call r0.abc123]"}"#), "{body}");
}
