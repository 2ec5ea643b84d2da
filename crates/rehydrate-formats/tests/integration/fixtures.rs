//! Exact values of each fixture's import.

use rehydrate_formats::{Format, Import, detect};
use rehydrate_model::{Content, Message, Role};
use serde_json::json;

use crate::{fixture_dir, import_fixture};

fn ok(name: &str) -> Import {
    import_fixture(name).unwrap_or_else(|e| panic!("{e}"))
}

fn roles(import: &Import) -> Vec<Role> {
    import.messages.iter().map(|m| m.role).collect()
}

fn warnings(import: &Import) -> Vec<String> {
    import.warnings.iter().map(ToString::to_string).collect()
}

fn meta<'a>(msg: &'a Message, key: &str) -> Option<&'a str> {
    msg.metadata.get(key).map(String::as_str)
}

fn text(msg: &Message) -> &str {
    msg.content_text()
        .unwrap_or_else(|| panic!("not text: {msg:?}"))
}

fn call_ids(msg: &Message) -> Vec<&str> {
    msg.tool_calls.iter().map(|c| c.id.as_str()).collect()
}

#[test]
fn claude_code_session() {
    let import = ok("claude-code-session.jsonl");
    assert_eq!(import.format, Format::ClaudeCode);
    use Role::*;
    assert_eq!(
        roles(&import),
        [
            User, Assistant, Tool, Tool, Assistant, Tool, User, User, Assistant
        ]
    );
    let m = &import.messages;
    assert_eq!(text(&m[0]), "Fix the typo in greet.py and run the tests.");
    assert_eq!(meta(&m[0], "claude_code.line"), Some("3"));
    assert_eq!(
        meta(&m[0], "claude_code.uuid"),
        Some("c0a80001-0000-4000-8000-000000000001")
    );
    assert_eq!(meta(&m[0], "timestamp"), Some("2025-10-02T09:14:03.118Z"));

    // Four lines of one API message merged; the first line names it.
    let a = &m[1];
    assert_eq!(text(a), "I'll read the file and run the tests in parallel.");
    assert_eq!(call_ids(a), ["toolu_01ReadGreet", "toolu_02RunTests"]);
    assert_eq!(a.tool_calls[0].name, "Read");
    // Key order of the input is kept (not sorted).
    assert_eq!(
        a.tool_calls[1].arguments,
        r#"{"command":"pytest -q","description":"Run the test suite"}"#
    );
    assert_eq!(
        meta(a, "thinking"),
        Some("The user wants a typo fixed. Read the file and run the tests at the same time.")
    );
    assert_eq!(meta(a, "thinking_signature"), Some("EqQBCkYIBxgCKkBsig1"));
    assert_eq!(meta(a, "claude_code.line"), Some("4"));
    assert_eq!(meta(a, "claude_code.message_id"), Some("msg_01Gr33tTypo"));

    // Parallel results: the first hangs off the Read line, not the last tool_use line.
    assert_eq!(m[2].tool_call_id.as_deref(), Some("toolu_01ReadGreet"));
    assert!(text(&m[2]).contains("Helo"));
    assert_eq!(m[3].tool_call_id.as_deref(), Some("toolu_02RunTests"));
    assert_eq!(text(&m[3]), "F\n1 failed in 0.02s");
    assert_eq!(meta(&m[3], "is_error"), Some("true"));
    assert_eq!(meta(&m[2], "is_error"), None);

    assert_eq!(call_ids(&m[4]), ["toolu_03EditGreet"]);
    assert_eq!(m[4].content, None);
    assert_eq!(
        m[4].tool_calls[0].arguments,
        r#"{"file_path":"/home/dev/greeter/greet.py","old_string":"Helo","new_string":"Hello"}"#
    );
    assert_eq!(m[5].tool_call_id.as_deref(), Some("toolu_03EditGreet"));
    assert_eq!(meta(&m[6], "claude_code.meta"), Some("true"));
    assert_eq!(text(&m[7]), "Now run the tests again.");
    assert_eq!(meta(&m[7], "claude_code.meta"), None);
    assert_eq!(text(&m[8]), "Running the tests.");
    assert_eq!(call_ids(&m[8]), ["toolu_04RunAgain"]);

    // The sidechain line and the summary make no message; nothing is an observation.
    assert!(m.iter().all(|m| !m.observation));
    assert!(
        !m.iter()
            .any(|m| m.content_text() == Some("Scan the repository for other greetings."))
    );
    assert_eq!(
        warnings(&import),
        [
            "line 13: 1 line repeats an earlier line's uuid (resumed session); kept the first occurrence",
            "line 18: tool call toolu_04RunAgain has no tool result",
        ]
    );
}

#[test]
fn claude_code_branches_and_compaction() {
    let import = ok("claude-code-branches.jsonl");
    use Role::*;
    assert_eq!(
        roles(&import),
        [
            User, Assistant, User, User, Assistant, Tool, User, Tool, Assistant
        ]
    );
    let m = &import.messages;
    // The edited prompt wins over the abandoned first try.
    assert_eq!(text(&m[0]), "Write a haiku about the Rust language.");
    assert!(text(&m[1]).starts_with("Borrowed, never lost;"));
    // The pre-compaction history is kept, and the first message after the boundary says so.
    assert_eq!(meta(&m[2], "claude_code.compact_boundary"), Some("true"));
    assert_eq!(meta(&m[2], "claude_code.compact_summary"), Some("true"));
    assert_eq!(meta(&m[3], "claude_code.compact_boundary"), None);
    // Text and image blocks stay parts.
    assert_eq!(
        m[3].content,
        Some(Content::Parts(vec![
            json!({"type":"text","text":"Here is a screenshot of the error:"}),
            json!({"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUg=="}}),
        ]))
    );
    // Redacted thinking goes to metadata; the unknown block is dropped.
    assert_eq!(m[4].content, None);
    assert_eq!(
        meta(&m[4], "redacted_thinking"),
        Some("EmwKAhgBEgyRedacted==")
    );
    assert_eq!(call_ids(&m[4]), ["toolu_10ReadLog"]);
    assert_eq!(
        m[4].tool_calls[0].arguments,
        r#"{"file_path":"/home/dev/greeter/build.log","limit":20}"#
    );
    // A tool result with an image keeps its blocks; the text next to it is a user message.
    assert_eq!(m[5].tool_call_id.as_deref(), Some("toolu_10ReadLog"));
    assert!(matches!(&m[5].content, Some(Content::Parts(p)) if p.len() == 2));
    assert_eq!(text(&m[6]), "Also check the second log.");
    assert_eq!(meta(&m[6], "claude_code.line"), Some("10"));
    // A result without content is empty text.
    assert_eq!(m[7].tool_call_id.as_deref(), Some("toolu_99Stale"));
    assert_eq!(text(&m[7]), "");
    assert_eq!(text(&m[8]), "The borrow of `v` overlaps a mutable borrow.");
    assert_eq!(
        warnings(&import),
        [
            "line 1: 2 user/assistant lines are not on the main chain (abandoned branch), skipped",
            "line 5: unknown record type `custom-title` (1 line), no message produced",
            "line 9: unknown assistant content block type `server_tool_use`, dropped",
            "line 11: tool result toolu_99Stale has no tool call",
            "line 12: unknown assistant content block type `citation_note`, dropped",
        ]
    );
}

#[test]
fn claude_code_sidechain_file() {
    let import = ok("claude-code-sidechain.jsonl");
    use Role::*;
    assert_eq!(roles(&import), [User, Assistant, Tool, Tool, Assistant]);
    let m = &import.messages;
    assert_eq!(call_ids(&m[1]), ["toolu_20Grep", "toolu_21Glob"]);
    assert_eq!(m[2].tool_call_id.as_deref(), Some("toolu_20Grep"));
    assert_eq!(m[3].tool_call_id.as_deref(), Some("toolu_21Glob"));
    assert_eq!(
        warnings(&import),
        [
            "line 1: parent c0a80001-0000-4000-8000-000000000042 is not in the file; the conversation starts here"
        ]
    );
}

#[test]
fn swe_agent_plain() {
    let import = ok("swe-agent-plain.traj");
    assert_eq!(import.format, Format::SweAgent);
    use Role::*;
    assert_eq!(
        roles(&import),
        [
            System, User, User, Assistant, User, Assistant, User, User, Assistant
        ]
    );
    let observation: Vec<bool> = import.messages.iter().map(|m| m.observation).collect();
    assert_eq!(
        observation,
        [false, false, false, false, true, false, true, false, false]
    );
    let m = &import.messages;
    assert_eq!(meta(&m[1], "swe_agent.is_demo"), Some("true"));
    assert_eq!(meta(&m[3], "swe_agent.action"), Some("open greet.py\n"));
    assert_eq!(
        meta(&m[3], "swe_agent.thought"),
        Some("Let's look at greet.py first.")
    );
    assert_eq!(meta(&m[3], "swe_agent.agent"), Some("primary"));
    assert_eq!(meta(&m[3], "swe_agent.message_type"), None);
    // Text parts are concatenated with no separator.
    assert_eq!(
        text(&m[6]),
        "File updated. Please review the changes.\n(Open file: /greeter/greet.py)\nbash-$"
    );
    assert_eq!(meta(&m[7], "swe_agent.message_type"), Some("user"));
    assert!(import.warnings.is_empty(), "{:?}", import.warnings);
}

#[test]
fn swe_agent_function_calling() {
    let import = ok("swe-agent-function-calling.traj");
    use Role::*;
    assert_eq!(
        roles(&import),
        [System, User, Assistant, Tool, Assistant, Tool, Assistant]
    );
    let m = &import.messages;
    // The task prompt is marked `observation` but comes before any assistant message.
    assert!(m.iter().all(|m| !m.observation));
    assert_eq!(meta(&m[1], "swe_agent.message_type"), Some("observation"));
    assert_eq!(call_ids(&m[2]), ["call_A1cat"]);
    assert_eq!(
        m[2].tool_calls[0].arguments,
        r#"{"command":"cat /greeter/greet.py"}"#
    );
    assert_eq!(m[3].tool_call_id.as_deref(), Some("call_A1cat"));
    assert_eq!(call_ids(&m[4]), ["call_B1edit", "call_B2run"]);
    assert_eq!(text(&m[4]), "");
    assert_eq!(m[5].tool_call_id.as_deref(), Some("call_B1edit"));
    assert!(matches!(&m[5].content, Some(Content::Parts(p)) if p.len() == 2));
    assert_eq!(
        warnings(&import),
        [
            "history[4]: tool call call_B2run has no tool result",
            "field `history[5].tool_call_ids`: 2 ids, only the first is used as tool_call_id",
            "history[6]: tool call call_C1submit has no tool result",
        ]
    );
}

#[test]
fn openai_array() {
    let import = ok("openai-array.json");
    assert_eq!(import.format, Format::OpenAi);
    use Role::*;
    assert_eq!(roles(&import), [System, User, Assistant, Tool, Assistant]);
    let m = &import.messages;
    assert_eq!(meta(&m[0], "openai.role"), Some("developer"));
    // Parts are kept exactly, even the text-only ones.
    assert_eq!(
        m[1].content,
        Some(Content::Parts(vec![
            json!({"type":"text","text":"What is in this image?"}),
            json!({"type":"image_url","image_url":{"url":"https://example.com/cat.png","detail":"low"}}),
        ]))
    );
    assert_eq!(m[2].content, None);
    assert_eq!(call_ids(&m[2]), ["call_1describe"]);
    assert_eq!(m[3].tool_call_id.as_deref(), Some("call_1describe"));
    assert!(import.warnings.is_empty(), "{:?}", import.warnings);
}

#[test]
fn openai_object() {
    let import = ok("openai-object.json");
    use Role::*;
    assert_eq!(
        roles(&import),
        [System, User, Assistant, Tool, Assistant, Tool, Assistant]
    );
    let m = &import.messages;
    assert_eq!(m[1].name.as_deref(), Some("alice"));
    assert_eq!(text(&m[2]), "");
    // Object arguments are written as compact JSON (keys sorted by serde_json).
    assert_eq!(
        m[2].tool_calls[0].arguments,
        r#"{"city":"Paris","unit":"c"}"#
    );
    assert_eq!(
        m[3].content,
        Some(Content::Parts(vec![
            json!({"type":"text","text":"18C, cloudy"})
        ]))
    );
    assert_eq!(m[4].tool_calls[0].id, "");
    assert_eq!(m[4].tool_calls[0].name, "get_time");
    assert_eq!(m[5].name.as_deref(), Some("get_time"));
    assert_eq!(m[5].tool_call_id, None);
    assert_eq!(meta(&m[5], "openai.role"), Some("function"));
    assert_eq!(
        warnings(&import),
        [
            "field `messages[2].tool_calls[0].function.arguments`: arguments are an object, not a string; written as compact JSON",
            "field `messages[4].function_call`: legacy function call imported as a tool call with an empty id",
        ]
    );
}

#[test]
fn bad_inputs() {
    let err = |name: &str| match import_fixture(name) {
        Ok(import) => panic!("{name}: imported {} messages", import.messages.len()),
        Err(e) => e.to_string(),
    };
    assert_eq!(
        err("bad-truncated.jsonl"),
        "bad-truncated.jsonl:3: invalid JSON: EOF while parsing a string at column 150"
    );
    assert_eq!(
        err("bad-invalid-utf8.json"),
        "bad-invalid-utf8.json: not valid UTF-8 at byte 30"
    );
    assert_eq!(
        err("bad-unknown-format.json"),
        "bad-unknown-format.json: unknown session format (expected claude-code JSONL, codex rollout JSONL, swe-agent .traj, an OpenAI messages array, an OpenAI Responses input, an Anthropic Messages body, a Gemini CLI session, an OpenHands event stream, an Aider chat history or a Goose session)"
    );
    assert_eq!(
        err("bad-unknown-role.traj"),
        "bad-unknown-role.traj: field `history[1].role`: unknown role `robot`"
    );
    assert_eq!(
        err("bad-missing-role.json"),
        "bad-missing-role.json: field `messages[3].role`: missing (expected a string)"
    );
}

#[test]
fn detection_of_fixtures() {
    for (name, expected) in [
        ("claude-code-session.jsonl", Some(Format::ClaudeCode)),
        ("claude-code-branches.jsonl", Some(Format::ClaudeCode)),
        ("claude-code-sidechain.jsonl", Some(Format::ClaudeCode)),
        ("bad-truncated.jsonl", Some(Format::ClaudeCode)),
        ("swe-agent-plain.traj", Some(Format::SweAgent)),
        ("swe-agent-function-calling.traj", Some(Format::SweAgent)),
        ("openai-array.json", Some(Format::OpenAi)),
        ("openai-object.json", Some(Format::OpenAi)),
        ("bad-invalid-utf8.json", Some(Format::OpenAi)),
        ("bad-unknown-format.json", None),
    ] {
        let bytes = std::fs::read(fixture_dir().join(name)).unwrap();
        assert_eq!(detect(&bytes), expected, "{name}");
    }
}

#[test]
fn explicit_format_overrides_detection() {
    let bytes = std::fs::read(fixture_dir().join("openai-array.json")).unwrap();
    let err = rehydrate_formats::import(
        std::path::Path::new("openai-array.json"),
        &bytes,
        Some(Format::SweAgent),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "openai-array.json: not a valid swe-agent session: expected a JSON object with a `history` array"
    );
}
