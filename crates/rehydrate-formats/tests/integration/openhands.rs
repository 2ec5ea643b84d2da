//! Exact values of the OpenHands fixtures' imports (event arrays, `output.jsonl` sessions,
//! the flat resolver form, `[action, observation]` pairs) and their errors.

use std::path::Path;

use rehydrate_formats::{
    Error, Format, Import, SessionEntry, detect, import, import_session, keys, list_sessions,
};
use rehydrate_model::{Content, IS_ERROR_METADATA_KEY, Role, ToolDetails};

use crate::{fixture_dir, import_fixture};

fn ok(name: &str) -> Import {
    import_fixture(name).unwrap_or_else(|e| panic!("{e}"))
}

fn session(name: &str, n: usize) -> Import {
    let bytes = std::fs::read(fixture_dir().join(name)).unwrap();
    import_session(Path::new(name), &bytes, None, Some(n)).unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> String {
    import(Path::new("o.jsonl"), text.as_bytes(), None)
        .map(|_| "imported".to_string())
        .unwrap_or_else(|e| e.to_string())
}

fn warnings(import: &Import) -> Vec<String> {
    import.warnings.iter().map(ToString::to_string).collect()
}

#[test]
fn an_event_stream_is_what_the_model_saw() {
    let import = ok("openhands-events.json");
    assert_eq!(import.format, Format::OpenHands);
    use Role::*;
    let m = &import.messages;
    assert_eq!(
        m.iter().map(|m| m.role).collect::<Vec<_>>(),
        [
            System, User, Assistant, Tool, Tool, Assistant, Tool, User, Assistant, Tool, Assistant,
            Tool, Assistant
        ]
    );
    assert_eq!(m[0].content_text(), Some("You are OpenHands agent."));
    assert_eq!(
        m[0].metadata.get(keys::OPENHANDS_TOOLS).map(String::as_str),
        Some(r#"[{"function":{"name":"execute_bash"},"type":"function"}]"#)
    );
    // Two actions of one model response are one assistant message, with the response's text
    // and its arguments as the model wrote them.
    assert_eq!(
        m[2].content_text(),
        Some("Let me look at the file and run the tests.")
    );
    let calls: Vec<(&str, &str, &str)> = m[2]
        .tool_calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            (
                "toolu_read",
                "str_replace_editor",
                r#"{"command": "view", "path": "/workspace/counter.py"}"#
            ),
            ("toolu_run", "execute_bash", r#"{"command": "pytest -q"}"#)
        ]
    );
    assert_eq!(
        m[2].metadata.get(keys::OPENHANDS_EVENT).map(String::as_str),
        Some("5")
    );
    // A whole `cat -n` view proves the file; a command's output is shown as the agent showed
    // it.
    assert_eq!(m[3].tool_call_id.as_deref(), Some("toolu_read"));
    assert_eq!(
        m[3].details.as_deref(),
        Some(&ToolDetails::WholeRead {
            path: "/workspace/counter.py".into(),
            content: "def count(n):\n    return list(range(1, n))\n".into()
        })
    );
    assert_eq!(
        m[4].content_text(),
        Some(
            "F\n1 failed in 0.01s\n[The command completed with exit code 1.]\n[Current working directory: /workspace]\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code 1]"
        )
    );
    assert_eq!(m[4].metadata.get(IS_ERROR_METADATA_KEY), None);
    // An oh_aci edit is shown as its formatted result; a str_replace proves nothing.
    assert!(
        m[6].content_text()
            .unwrap()
            .starts_with("The file /workspace/counter.py has been edited.")
    );
    assert!(matches!(
        m[6].details.as_deref(),
        Some(ToolDetails::UnprovenChange { path, .. }) if path == "/workspace/counter.py"
    ));
    // The uncaused error is the user message the model saw.
    assert_eq!(
        m[7].content,
        Some(Content::Text(
            "Parameter 'command' is expected to be one of ['view', 'create', 'str_replace', 'insert', 'undo_edit'].\n[Error occurred in processing last action]".into()
        ))
    );
    assert_eq!(
        m[7].metadata
            .get(keys::OPENHANDS_ORPHAN)
            .map(String::as_str),
        Some("error")
    );
    // A create (its command only in the model's arguments) proves the new file.
    assert_eq!(m[8].content, None);
    assert_eq!(
        m[9].details.as_deref(),
        Some(&ToolDetails::Write {
            path: "/workspace/test_counter.py".into(),
            content: "from counter import count\n\n\ndef test_count():\n    assert count(3) == [0, 1, 2]\n"
                .into()
        })
    );
    assert_eq!(
        m[9].content_text(),
        Some("File created successfully at: /workspace/test_counter.py")
    );
    // A think call without a recorded response: its thought is its argument.
    assert_eq!(m[10].content, None);
    assert_eq!(
        m[10].tool_calls[0].arguments,
        r#"{"thought":"The tests should pass now."}"#
    );
    assert_eq!(m[11].content_text(), Some("Your thought has been logged."));
    // `finish` is the closing text.
    assert_eq!(
        m[12].content_text(),
        Some("Fixed the range; the new test passes.")
    );
    assert!(m[12].tool_calls.is_empty());
    assert_eq!(
        warnings(&import),
        [
            "[10]: `error` observation has no cause; imported as a user message",
            "3 events the model never saw as messages (1 `recall` action, 1 `recall` observation, 1 `agent_state_changed` observation; the first at [2]) not imported"
        ]
    );
}

#[test]
fn an_output_jsonl_holds_one_session_per_line() {
    let bytes = std::fs::read(fixture_dir().join("openhands-output.jsonl")).unwrap();
    let name = Path::new("openhands-output.jsonl");
    assert_eq!(detect(&bytes), Some(Format::OpenHands));
    assert_eq!(
        list_sessions(name, &bytes, None).unwrap(),
        (
            Format::OpenHands,
            vec![
                SessionEntry {
                    number: 1,
                    line: 1,
                    label: "demo__widgets-1".into()
                },
                SessionEntry {
                    number: 2,
                    line: 2,
                    label: "acme/widgets#7".into()
                }
            ]
        )
    );
    assert_eq!(
        import(name, &bytes, None).unwrap_err(),
        Error::SeveralSessions {
            path: name.into(),
            format: Format::OpenHands,
            count: 2
        }
    );
    assert_eq!(
        import_session(name, &bytes, None, Some(3))
            .unwrap_err()
            .to_string(),
        "openhands-output.jsonl: no session 3 (the file holds 2)"
    );

    let first = session("openhands-output.jsonl", 1);
    use Role::*;
    assert_eq!(
        first.messages.iter().map(|m| m.role).collect::<Vec<_>>(),
        [User, Assistant, Tool]
    );
    // An image URL of the user's message is a part; a call without a recorded response takes
    // its text from the thought and its arguments from the action's.
    assert_eq!(
        first.messages[0].content,
        Some(Content::Parts(vec![
            serde_json::json!({"type": "text", "text": "Make the widget test pass."}),
            serde_json::json!({"type": "image_url", "image_url": {"url": "https://example.com/screenshot.png"}})
        ]))
    );
    assert_eq!(
        first.messages[1].content_text(),
        Some("Run the tests first.")
    );
    assert_eq!(
        first.messages[1].tool_calls[0].arguments,
        r#"{"command":"cargo test","is_input":false}"#
    );
    // A command still running: no exit code line.
    assert_eq!(
        first.messages[2].content_text(),
        Some(
            "Compiling widgets v0.1.0\n[The command has no new output after 30 seconds.]\n[Current working directory: /workspace/widgets]"
        )
    );

    // The flat resolver form pairs by adjacency and names calls by their position.
    let second = session("openhands-output.jsonl", 2);
    assert_eq!(
        second.messages.iter().map(|m| m.role).collect::<Vec<_>>(),
        [User, Assistant, Tool, Assistant, Tool, Assistant]
    );
    let m = &second.messages;
    assert_eq!(m[1].tool_calls[0].id, "openhands-0");
    assert_eq!(m[1].tool_calls[0].name, "run");
    assert_eq!(m[2].tool_call_id.as_deref(), Some("openhands-0"));
    assert_eq!(m[2].content_text(), Some("\r\nroot@sandbox:/workspace # "));
    assert_eq!(m[3].tool_calls[0].id, "openhands-1");
    assert_eq!(m[3].tool_calls[0].name, "run_ipython");
    assert_eq!(m[4].tool_call_id.as_deref(), Some("openhands-1"));
    assert_eq!(m[5].content_text(), Some("Added the LICENSE file."));
    assert!(second.warnings.is_empty());
}

#[test]
fn pairs_are_read_in_order() {
    let import = ok("openhands-pairs.json");
    use Role::*;
    assert_eq!(
        import.messages.iter().map(|m| m.role).collect::<Vec<_>>(),
        [User, Assistant, Tool, Assistant]
    );
    assert_eq!(
        import.messages[2].content_text(),
        Some(
            "README.md\nsrc\n[Current working directory: /w]\n[Command finished with exit code 0]"
        )
    );
    assert_eq!(
        import.messages[3].content_text(),
        Some("Two entries: README.md and src.")
    );
    assert_eq!(
        warnings(&import),
        [
            "2 events the model never saw as messages (1 empty, 1 `null` observation; the first at history[0][1]) not imported"
        ]
    );
}

#[test]
fn a_view_proves_a_file_only_when_whole_and_numbered() {
    let view = |args: &str, content: &str| {
        let text = format!(
            r#"[{{"id":0,"source":"user","action":"message","args":{{"content":"go"}}}},
               {{"id":1,"source":"agent","action":"read","args":{{"path":"/a.txt",{args}"thought":""}},
                 "tool_call_metadata":{{"function_name":"str_replace_editor","tool_call_id":"c1"}}}},
               {{"id":2,"source":"agent","cause":1,"observation":"read","content":{content},"extras":{{"path":"/a.txt"}}}}]"#
        );
        let import = import(Path::new("t.json"), text.as_bytes(), None).unwrap();
        import.messages[2].details.as_deref().cloned()
    };
    let whole = serde_json::to_string(
        "Here's the result of running `cat -n` on /a.txt:\n     1\tx\n     2\ty",
    )
    .unwrap();
    assert_eq!(
        view("", &whole),
        Some(ToolDetails::WholeRead {
            path: "/a.txt".into(),
            content: "x\ny".into()
        })
    );
    assert_eq!(view(r#""view_range":[1,2],"#, &whole), None);
    let clipped = serde_json::to_string("Here's the result of running `cat -n` on /a.txt:\n     1\tx<response clipped><NOTE>…</NOTE>").unwrap();
    assert_eq!(view("", &clipped), None);
    let skipped = serde_json::to_string(
        "Here's the result of running `cat -n` on /a.txt:\n     1\tx\n     3\ty",
    )
    .unwrap();
    assert_eq!(view("", &skipped), None);
    let other =
        serde_json::to_string("Here's the result of running `cat -n` on /b.txt:\n     1\tx")
            .unwrap();
    assert_eq!(view("", &other), None);
}

#[test]
fn bad_events_name_their_line_and_field() {
    let line = |history: &str| {
        format!(
            "{{\"instance_id\":\"a\",\"history\":[{{\"id\":0,\"action\":\"message\",\"source\":\"user\",\"args\":{{\"content\":\"go\"}}}}{history}]}}"
        )
    };
    let two = |history: &str| format!("{}\n{}\n", line(""), line(history));
    let one = |text: String| {
        import_session(Path::new("o.jsonl"), text.as_bytes(), None, Some(2))
            .map(|_| "imported".to_string())
            .unwrap_or_else(|e| e.to_string())
    };
    assert_eq!(
        one(two(",3")),
        "o.jsonl:2: field `history[1]`: expected an object, got a number"
    );
    assert_eq!(
        one(two(r#",{"action":"run","observation":"run"}"#)),
        "o.jsonl:2: field `history[1]`: an event with both `action` and `observation`"
    );
    assert_eq!(
        one(two(r#",{"id":"x","action":"run"}"#)),
        "o.jsonl:2: field `history[1].id`: expected an integer, got a string"
    );
    assert_eq!(
        one(two(
            r#",{"id":1,"cause":"0","observation":"run","content":""}"#
        )),
        "o.jsonl:2: field `history[1].cause`: expected an event id, got a string"
    );
    assert_eq!(
        one(two(r#",{"id":1,"action":"run","args":[]}"#)),
        "o.jsonl:2: field `history[1].args`: expected an object, got an array"
    );
    assert_eq!(
        one(two(r#",{"id":1}"#)),
        "o.jsonl:2: field `history[1]`: expected an event with an `action` or an `observation`"
    );
    assert_eq!(
        one(format!("{}\n{{\"history\":[\n", line(""))),
        "o.jsonl:2: invalid JSON: EOF while parsing a list at column 12"
    );
    assert_eq!(
        err(r#"{"history": 3, "instance_id": "a"}"#),
        "o.jsonl: unknown session format (expected claude-code JSONL, codex rollout JSONL, swe-agent .traj, an OpenAI messages array, an OpenAI Responses input, an Anthropic Messages body, a Gemini CLI session, an OpenHands event stream, an Aider chat history or a Goose session)"
    );
    assert_eq!(
        import_session(
            Path::new("o.json"),
            br#"[{"id":0,"action":"message","args":{"content":"go"}}]"#,
            None,
            Some(2)
        )
        .unwrap_err()
        .to_string(),
        "o.json: no session 2 (the file holds 1)"
    );
    // An observation that answers a call already answered is the model's user message.
    let twice = r#"[{"id":0,"source":"agent","action":"run","args":{"command":"ls"},"tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"c"}},
                    {"id":1,"cause":0,"observation":"run","content":"a"},
                    {"id":2,"cause":0,"observation":"run","content":"b"}]"#;
    let import = import(Path::new("t.json"), twice.as_bytes(), None).unwrap();
    assert_eq!(
        warnings(&import),
        ["[2]: `run` observation answers no unanswered tool call; imported as a user message"]
    );
}
