//! Unit tests of the formats crate: detection rules, error texts, the JSON helpers and the
//! SWE-agent editor details (docs/FORMATS.md, "SWE-agent", "Editor details").

use std::path::Path;

use rehydrate_model::{EditBase, EditChange, FileEdit, Replacement, ShownLines, ToolDetails};

use crate::*;

#[test]
fn format_tokens_round_trip() {
    for format in Format::ALL {
        assert_eq!(format.as_str().parse::<Format>().unwrap(), format);
        assert_eq!(format.to_string(), format.as_str());
    }
    let err = "Claude-Code".parse::<Format>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown format `Claude-Code` (expected claude-code, swe-agent, openai, codex, responses, anthropic, gemini-cli, openhands, aider or goose)"
    );
}

#[test]
fn detection_rules() {
    let cases: [(&[u8], Option<Format>); 19] = [
        (
            b"  [{\"role\":\"user\",\"content\":\"x\"}]",
            Some(Format::OpenAi),
        ),
        (b"[]", Some(Format::OpenAi)),
        // A truncated array still looks like OpenAI; import reports the JSON error.
        (b"[{\"role\":\"user\"", Some(Format::OpenAi)),
        // OpenHands events, bare or as `[action, observation]` pairs.
        (b"[{\"id\":1,\"action\":\"run\"}]", Some(Format::OpenHands)),
        (b"[[{\"action\":\"run\"},{}]]", Some(Format::OpenHands)),
        // An array of something else.
        (b"[{\"id\":1,\"kind\":\"run\"}]", None),
        // An OpenHands session object, alone or one per line (`output.jsonl`).
        (
            b"{\"history\":[{\"observation\":\"run\"}]}",
            Some(Format::OpenHands),
        ),
        (
            b"{\"history\":[{\"action\":\"run\"}]}\n{\"history\":[]}\n",
            Some(Format::OpenHands),
        ),
        (b"{\"history\":[]}", Some(Format::SweAgent)),
        (b"{\n  \"history\": [\n  ]\n}\n", Some(Format::SweAgent)),
        (
            b"{\"messages\":[{\"role\":\"user\"}]}",
            Some(Format::OpenAi),
        ),
        // Gemini CLI sessions have `messages` without `role`.
        (
            b"{\"messages\":[{\"type\":\"user\",\"content\":\"x\"}]}",
            None,
        ),
        (
            b"{\"type\":\"summary\",\"summary\":\"t\",\"leafUuid\":\"u\"}\n{\"type\":\"user\"}\n",
            Some(Format::ClaudeCode),
        ),
        (
            b"\n{\"type\":\"user\",\"uuid\":\"u1\",\"message\":{}}\n",
            Some(Format::ClaudeCode),
        ),
        // Codex rollouts: a rollout record type and a `payload` object, no uuid.
        (
            b"{\"type\":\"session_meta\",\"payload\":{}}\n{\"type\":\"event_msg\"}\n",
            Some(Format::Codex),
        ),
        // A rollout record type without a `payload` object is not a rollout line.
        (
            b"{\"type\":\"response_item\",\"payload\":[]}\n{\"type\":\"event_msg\"}\n",
            None,
        ),
        (b"{\"history\":", None),
        (b"hello", None),
        (b"", None),
    ];
    for (bytes, expected) in cases {
        assert_eq!(
            detect(bytes),
            expected,
            "{}",
            String::from_utf8_lossy(bytes)
        );
    }
    // Detection looks at the valid UTF-8 prefix.
    assert_eq!(
        detect(b"{\"type\":\"summary\",\"summary\":\"t\"}\n\xff\xfe"),
        Some(Format::ClaudeCode)
    );
}

#[test]
fn error_texts() {
    let path = Path::new("x.json");
    let err = import(path, b"[1, \xe9]", None).unwrap_err();
    assert_eq!(err.to_string(), "x.json: not valid UTF-8 at byte 4");
    assert_eq!(err.line(), None);

    let err = import(path, b"{\"foo\": 1}", None).unwrap_err();
    assert!(err.is_unknown_format());
    assert_eq!(
        err.to_string(),
        "x.json: unknown session format (expected claude-code JSONL, codex rollout JSONL, swe-agent .traj, an OpenAI messages array, an OpenAI Responses input, an Anthropic Messages body, a Gemini CLI session, an OpenHands event stream, an Aider chat history or a Goose session)"
    );

    let err = import(
        path,
        b"{\n  \"history\": [\n    {\"role\": \"user\",\n",
        None,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "x.json:4: invalid JSON: EOF while parsing a value at column 0"
    );
    assert_eq!(err.line(), Some(4));

    let err = import(path, b"{\"history\": 3}", Some(Format::SweAgent)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "x.json: not a valid swe-agent session: expected a JSON object with a `history` array"
    );

    let err = import(path, b"[{\"role\":\"user\",\"content\":7}]", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "x.json: field `[0].content`: expected a string, null or an array of content parts, got a number"
    );

    let err = import(
        path,
        br#"[{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{}}]}]"#,
        None,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "x.json: field `[0].tool_calls[0].type`: unsupported tool call type `custom` (expected `function`)"
    );
}

#[test]
fn claude_code_line_errors_name_the_line() {
    let text = b"{\"type\":\"summary\",\"summary\":\"s\"}\n\n{\"type\":\"user\",\"uuid\":";
    let err = import(Path::new("s.jsonl"), text, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "s.jsonl:3: invalid JSON: EOF while parsing a value at column 22"
    );
}

#[test]
fn byte_order_mark_is_skipped() {
    let mut bytes = "\u{feff}".as_bytes().to_vec();
    bytes.extend_from_slice(br#"[{"role":"user","content":"hi"}]"#);
    let import = import(Path::new("bom.json"), &bytes, None).unwrap();
    assert_eq!(import.messages.len(), 1);
}

#[test]
fn warning_display() {
    assert_eq!(
        Warning::at_line(12, "tool result toolu_x has no tool call").to_string(),
        "line 12: tool result toolu_x has no tool call"
    );
    assert_eq!(Warning::new("history[2]: x").to_string(), "history[2]: x");
}

#[test]
fn minify_keeps_order_and_strings() {
    assert_eq!(
        json::minify("{ \"b\" : [1, 2],\n \"a\": \"x y\\\" \\\\\" }"),
        "{\"b\":[1,2],\"a\":\"x y\\\" \\\\\"}"
    );
    assert_eq!(json::minify("\"é \\u00e9\""), "\"é \\u00e9\"");
    // Not JSON: no panic, something comes out.
    let _ = json::minify("\"unterminated \\");
}

#[test]
fn clip_cuts_on_char_boundaries() {
    let long = "é".repeat(60);
    let clipped = json::clip(&long);
    assert_eq!(clipped.len(), 80);
    assert_eq!(json::clip("short"), "short");
}

#[test]
fn json_error_lines_count_leading_blank_lines() {
    let err = import(Path::new("x.json"), b"\n\n[{\"role\":\"user\",}]", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "x.json:3: invalid JSON: trailing comma at column 17"
    );
}

#[test]
fn forcing_claude_code_on_other_jsonl_is_an_error() {
    let codex = b"{\"type\":\"session_meta\",\"payload\":{}}\n{\"type\":\"response_item\",\"payload\":{}}\n";
    let err = import(Path::new("rollout.jsonl"), codex, Some(Format::ClaudeCode)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "rollout.jsonl: not a valid claude-code session: expected JSONL records with a Claude Code `type` such as `user` or `assistant`"
    );
    // A Claude Code file holding only a title is a valid, empty session.
    let titled = b"{\"type\":\"summary\",\"summary\":\"Fix the build\",\"leafUuid\":\"u1\"}\n";
    let imported = import(Path::new("s.jsonl"), titled, Some(Format::ClaudeCode)).unwrap();
    assert!(imported.messages.is_empty());
}

#[test]
fn lone_surrogate_escapes_are_replaced_with_a_warning() {
    let text = concat!(
        r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"cut \ud83d here, pair \ud83d\ude00 kept, \\udc80 is text"}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"low \udc80 alone"}]}}"#,
        "\n"
    );
    assert_eq!(detect(text.as_bytes()), Some(Format::ClaudeCode));
    let imported = import(Path::new("s.jsonl"), text.as_bytes(), None).unwrap();
    assert_eq!(
        imported.messages[0].content_text(),
        Some("cut \u{fffd} here, pair 😀 kept, \\udc80 is text")
    );
    assert_eq!(
        imported.messages[1].content_text(),
        Some("low \u{fffd} alone")
    );
    let warnings: Vec<String> = imported.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        vec![
            "line 1: lone UTF-16 surrogate escape (a character cut in half) replaced by U+FFFD",
            "line 2: lone UTF-16 surrogate escape (a character cut in half) replaced by U+FFFD",
        ]
    );
    assert_eq!(
        json::repair_lone_surrogates(r#"{"a":"\ud83d\ude00 \\ud800"}"#),
        None
    );
    // An escaped backslash, then a real escape; upper-case hex; a high half at the very end.
    assert_eq!(
        json::repair_lone_surrogates(r#"{"a":"\\\uD800 \\\\uD800 \uDBFF"#),
        Some((r#"{"a":"\\\ufffd \\\\uD800 \ufffd"#.to_string(), vec![1]))
    );
}

/// The route bare arrays took before [`openai::import_array`]: parse the whole document, then
/// import it; with detection, an array whose first element is not a role object is unknown.
fn whole_document_import(path: &Path, text: &str, detecting: bool) -> Result<Import, Error> {
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| json::invalid_json(path, None, &e))?;
    let messages = doc.as_array().map_or(&[][..], Vec::as_slice);
    let looks_like_messages = messages
        .first()
        .is_none_or(|first| first.as_object().is_some_and(|o| o.contains_key("role")));
    if detecting && !looks_like_messages {
        return Err(Error::UnknownFormat {
            path: path.to_path_buf(),
        });
    }
    openai::import(path, doc)
}

/// Element-by-element import gives exactly the whole-document result: messages, warnings and
/// error texts, for valid arrays, field errors, JSON errors after a field error, trailing
/// characters, unknown arrays, and every prefix and many mutations of the fixture.
#[test]
fn bare_arrays_import_as_if_parsed_whole() {
    let path = Path::new("a.json");
    let fixture = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/formats/openai-array.json"
    ))
    .unwrap();
    let mut cases: Vec<String> = [
        "[]",
        " \n[ ] \n",
        "[] x",
        "[1, 2",
        "[{\"role\":\"user\",\"content\":\"hi\"},]",
        "[{\"role\":\"robot\"}, {\"role\":\"user\"}]",
        "[{\"role\":\"robot\"}, {\"role\":",
        "[{\"role\":\"user\",\"content\":7}, 1e400]",
        "[{\"role\":\"user\",\"x\":1e400}]",
        "[{\"id\":1,\"kind\":\"run\"}, {\"role\":\"user\"}]",
        "[{\"id\":1}, {\"role\":",
        "[3]",
        "[{\"role\":\"user\"}, 3]",
        "[{\"role\":\"user\",\"role\":\"tool\",\"tool_call_id\":\"c\"}]",
        "[{\"role\":\"tool\",\"tool_call_id\":\"c9\",\"content\":\"x\"},\
          {\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":{\"b\":1}}}]}]",
        "[{\"role\":\"assistant\",\"function_call\":{\"name\":\"f\",\"arguments\":\"{}\"}}]",
    ]
    .map(str::to_string)
    .to_vec();
    cases.push(format!("[{}]", "[".repeat(200) + &"]".repeat(200)));
    for end in (0..=fixture.len()).step_by(7) {
        if fixture.is_char_boundary(end) {
            cases.push(fixture[..end].to_string());
        }
    }
    for (i, replacement) in (0..fixture.len()).step_by(11).zip(
        ['"', '{', ']', '\n', '0', '\\', 'n', ',', '[', '}']
            .into_iter()
            .cycle(),
    ) {
        if fixture.is_char_boundary(i) && fixture.is_char_boundary(i + 1) {
            let mut mutated = fixture.clone();
            mutated.replace_range(i..i + 1, &replacement.to_string());
            cases.push(mutated);
        }
    }
    for text in &cases {
        if !openai::is_array(text) {
            continue;
        }
        for detecting in [true, false] {
            let mut messages = Vec::new();
            let streamed = openai::import_array(path, text, detecting, &mut |m| messages.push(m))
                .map(|warnings| Import {
                    format: Format::OpenAi,
                    messages,
                    warnings: warnings.unwrap_or_default(),
                });
            let whole = whole_document_import(path, text, detecting);
            assert_eq!(
                format!("{streamed:?}"),
                format!("{whole:?}"),
                "{text} (detecting: {detecting})"
            );
        }
        for (format, detecting) in [(None, true), (Some(Format::OpenAi), false)] {
            assert_eq!(
                format!("{:?}", import(path, text.as_bytes(), format)),
                format!("{:?}", whole_document_import(path, text, detecting)),
                "{text}"
            );
        }
    }
}

/// SWE-agent editor details: [`swe_agent_editor::details`] of arguments given as JSON text.
fn editor(arguments: serde_json::Value, observation: Option<&str>) -> Option<ToolDetails> {
    swe_agent_editor::details(&arguments.to_string(), observation)
}

fn unproven(path: &str, reason: &str) -> Option<ToolDetails> {
    Some(ToolDetails::UnprovenChange {
        path: path.to_string(),
        reason: reason.to_string(),
    })
}

fn edit(path: &str, old: &str, new: &str, shown: Option<ShownLines>) -> Option<ToolDetails> {
    Some(ToolDetails::Edit(FileEdit {
        path: path.to_string(),
        base: EditBase::LastProven,
        change: EditChange::Replacements {
            edits: vec![Replacement {
                old: old.to_string(),
                new: new.to_string(),
                replace_all: false,
            }],
            expand_tabs: Some(8),
            universal_newlines: true,
        },
        shown,
        diff: None,
    }))
}

fn shown(first_line: u64, lines: &[&str]) -> Option<ShownLines> {
    Some(ShownLines {
        first_line,
        lines: lines.iter().map(|l| l.to_string()).collect(),
    })
}

const CAT_HEADER: &str = "Here's the result of running `cat -n` on /r/a.py:\n";

#[test]
fn editor_create() {
    let args = serde_json::json!({"command": "create", "path": "/r/a.py", "file_text": "x = 1\n"});
    let write = Some(ToolDetails::Write {
        path: "/r/a.py".to_string(),
        content: "x = 1\n".to_string(),
    });
    // SWE-agent's templates, the tool output alone, stripped, or followed by template text.
    for observation in [
        "OBSERVATION:\nFile created successfully at: /r/a.py\n",
        "Observation: File created successfully at: /r/a.py\n",
        "File created successfully at: /r/a.py",
        "File created successfully at: /r/a.py\n(Open file: n/a)\nbash-$",
    ] {
        assert_eq!(
            editor(args.clone(), Some(observation)),
            write,
            "{observation}"
        );
    }
    // Refusals write nothing.
    for observation in [
        "OBSERVATION:\nFile already exists at: /r/a.py. Cannot overwrite files using command `create`.\n",
        "The parent directory /r does not exist. Please create it first.\n",
        "Parameter `file_text` is required for command: create\n",
        "usage: str_replace_editor [-h] [--file_text FILE_TEXT]\nstr_replace_editor: error: argument --file_text: expected one argument\n",
    ] {
        assert_eq!(
            editor(args.clone(), Some(observation)),
            None,
            "{observation}"
        );
    }
    // Anything else may have written the file.
    let unknown = unproven(
        "/r/a.py",
        "the observation does not show whether str_replace_editor create changed the file",
    );
    for observation in [
        Some("Traceback (most recent call last):\n  File \"str_replace_editor\", line 9\n"),
        Some("Ran into PermissionError while trying to write to /r/a.py\n"),
        Some("File created successfully at: /r/a.py.bak\n"),
        Some("Your command ran successfully and did not produce any output."),
        None,
    ] {
        assert_eq!(
            editor(args.clone(), observation),
            unknown,
            "{observation:?}"
        );
    }
    // A success whose file_text is not text proves nothing about the content.
    assert_eq!(
        editor(
            serde_json::json!({"command": "create", "path": "/r/a.py", "file_text": 5}),
            Some("File created successfully at: /r/a.py\n"),
        ),
        unproven("/r/a.py", "the create arguments have no text file_text")
    );
    // Relative paths: the editor refuses them, and a path is kept as given either way.
    let relative = serde_json::json!({"command": "create", "path": "b.py", "file_text": ""});
    assert_eq!(
        editor(
            relative.clone(),
            Some(
                "The path b.py is not an absolute path, it should start with `/`. Maybe you meant /r/b.py?\n"
            ),
        ),
        None
    );
    assert_eq!(
        editor(relative, Some("File created successfully at: b.py\n")),
        Some(ToolDetails::Write {
            path: "b.py".to_string(),
            content: String::new(),
        })
    );
}

#[test]
fn editor_view_of_a_whole_file() {
    let args = serde_json::json!({"command": "view", "path": "/r/a.py"});
    let whole = |content: &str| {
        Some(ToolDetails::WholeRead {
            path: "/r/a.py".to_string(),
            content: content.to_string(),
        })
    };
    let block = "     1\tdef f():\n     2\t    return 1\n     3\t";
    // `_make_output`'s line break and `print`'s, or the first alone.
    for observation in [
        format!("OBSERVATION:\n{CAT_HEADER}{block}\n\n"),
        format!("{CAT_HEADER}{block}\n"),
        format!("Observation: {CAT_HEADER}{block}\n\n"),
        // A terminal's line breaks (the template's own stay `\n`).
        format!(
            "OBSERVATION:\n{}",
            format!("{CAT_HEADER}{block}\n\n").replace('\n', "\r\n")
        ),
    ] {
        assert_eq!(
            editor(args.clone(), Some(&observation)),
            whole("def f():\n    return 1\n"),
            "{observation:?}"
        );
    }
    // An empty file is one empty line; a file without a final line break has no empty line.
    assert_eq!(
        editor(args.clone(), Some(&format!("{CAT_HEADER}     1\t\n\n"))),
        whole("")
    );
    assert_eq!(
        editor(args.clone(), Some(&format!("{CAT_HEADER}     1\tx  \n\n"))),
        whole("x  ")
    );
    // The editor shows tabs expanded: the view proves the expanded text.
    assert_eq!(
        editor(
            args.clone(),
            Some(&format!(
                "{CAT_HEADER}     1\tif x:\n     2\t        y\n     3\ta       b\n\n"
            ))
        ),
        whole("if x:\n        y\na       b")
    );
    for observation in [
        // Clipped by the editor or by SWE-agent.
        format!("{CAT_HEADER}     1\tdef f():\n     2\t    re<response clipped><NOTE>To save on context only part of this file has been shown to you.</NOTE>\n\n"),
        format!("Observation: {CAT_HEADER}{block}<response clipped><NOTE>Observations should not exceeded 10 characters.</NOTE>"),
        // Trailing whitespace stripped: the last line may have lost some.
        format!("{CAT_HEADER}     1\tdef f():\n     2\t    return 1\n     3"),
        format!("{CAT_HEADER}     1\tx"),
        // Another path in the header.
        format!("Here's the result of running `cat -n` on /r/b.py:\n{block}\n\n"),
        format!("Here's the result of running `cat -n` on /r//a.py:\n{block}\n\n"),
        // Numbers not consecutive, not from 1, not right-aligned in six columns, no tab.
        format!("{CAT_HEADER}     1\tdef f():\n     3\t    return 1\n\n"),
        format!("{CAT_HEADER}     2\tdef f():\n     3\t    return 1\n\n"),
        format!("{CAT_HEADER}1\tdef f():\n\n"),
        format!("{CAT_HEADER}    +1\tdef f():\n\n"),
        format!("{CAT_HEADER}     0\tdef f():\n\n"),
        format!("{CAT_HEADER}     1 def f():\n\n"),
        // Text around the output.
        format!("OBSERVATION:\n{CAT_HEADER}{block}\n\n(Open file: /r/a.py)\nbash-$"),
        format!("Note\n{CAT_HEADER}{block}\n\n"),
        format!("{CAT_HEADER}{block}\n\n\n"),
        // A `\r` that is not a terminal's line break.
        format!("{CAT_HEADER}     1\tx\r\n     2\ty\r\r\n\r\n"),
        // A directory, a file map, an error.
        "Here's the files and directories up to 2 levels deep in /r/a.py, excluding hidden items:\n/r/a.py\n\n".to_string(),
        "<NOTE>This file is too large to display entirely. Showing abbreviated version.</NOTE>\n".to_string(),
        "The path /r/a.py does not exist. Please provide a valid path.\n".to_string(),
        String::new(),
    ] {
        assert_eq!(editor(args.clone(), Some(&observation)), None, "{observation:?}");
    }
    assert_eq!(editor(args, None), None);
}

#[test]
fn editor_view_with_a_range() {
    let view = |range: serde_json::Value, observation: &str| {
        editor(
            serde_json::json!({"command": "view", "path": "/r/a.py", "view_range": range}),
            Some(observation),
        )
    };
    let tail = format!("{CAT_HEADER}     3\tc\n     4\t\n\n");
    assert_eq!(
        view(serde_json::json!([3, -1]), &tail),
        Some(ToolDetails::PartialRead {
            path: "/r/a.py".to_string(),
            start_line: 3,
            num_lines: 2,
            total_lines: 4,
        })
    );
    // From line 1 to the end is the whole file.
    assert_eq!(
        view(
            serde_json::json!([1, -1]),
            &format!("{CAT_HEADER}     1\ta\n     2\tb\n\n")
        ),
        Some(ToolDetails::WholeRead {
            path: "/r/a.py".to_string(),
            content: "a\nb".to_string(),
        })
    );
    // A range with an end does not say how long the file is; a malformed range is refused.
    let lines = format!("{CAT_HEADER}     1\ta\n     2\tb\n\n");
    for range in [
        serde_json::json!([1, 2]),
        serde_json::json!([1]),
        serde_json::json!([1, 2, 3]),
        serde_json::json!(["1", "-1"]),
        serde_json::json!(null),
        serde_json::json!("1 -1"),
    ] {
        assert_eq!(view(range.clone(), &lines), None, "{range}");
    }
    // Shown lines that start after the range's start.
    assert_eq!(view(serde_json::json!([2, -1]), &tail), None);
    assert_eq!(view(serde_json::json!([0, -1]), &tail), None);
}

#[test]
fn editor_str_replace() {
    let args = serde_json::json!({
        "command": "str_replace", "path": "/r/a.py", "old_str": "\treturn 1", "new_str": "\treturn 2"
    });
    let success = "OBSERVATION:\nThe file /r/a.py has been edited. Here's the result of running `cat -n` on a snippet of /r/a.py:\n     1\tdef f():\n     2\t        return 2\n     3\t\nReview the changes and make sure they are as expected. Edit the file again if necessary.\n";
    assert_eq!(
        editor(args.clone(), Some(success)),
        edit(
            "/r/a.py",
            "\treturn 1",
            "\treturn 2",
            shown(1, &["def f():", "        return 2", ""])
        )
    );
    // Terminal line breaks; a snippet further down; a linter note after the snippet.
    let crlf = "The file /r/a.py has been edited. Here's the result of running `cat -n` on a snippet of /r/a.py:\r\n    96\tx\r\n    97\t        return 2\r\nReview the changes and make sure they are as expected. Edit the file again if necessary.\r\n\r\n<NOTE>Your edits have been applied, but the linter has found syntax errors.</NOTE>";
    assert_eq!(
        editor(args.clone(), Some(crlf)),
        edit(
            "/r/a.py",
            "\treturn 1",
            "\treturn 2",
            shown(96, &["x", "        return 2"])
        )
    );
    // A success whose snippet does not parse is still an edit, with nothing shown.
    for observation in [
        "The file /r/a.py has been edited. Here's the result of running `cat -n` on a snippet of /r/a.py:\n     1\tx<response clipped><NOTE>To save on context only part of this file has been shown to you.</NOTE>\nReview the changes and make sure they are as expected. Edit the file again if necessary.\n",
        "The file /r/a.py has been edited. Here's the result of running `cat -n` on a snippet of /r/a.py:\n     1\tx\n     3\ty\nReview the changes and make sure they are as expected. Edit the file again if necessary.\n",
        "The file /r/a.py has been edited. Here's the result of running `cat -n` on a snippet of /r/a.py:\n     1\tx\n     2\ty",
        "The file /r/a.py has been edited. Here's the result of running `cat -n` on a snippet of /r/b.py:\n     1\tx\nReview the changes and make sure they are as expected. Edit the file again if necessary.\n",
        "The file /r/a.py has been edited. Screenshot of the diff:\n",
    ] {
        assert_eq!(
            editor(args.clone(), Some(observation)),
            edit("/r/a.py", "\treturn 1", "\treturn 2", None),
            "{observation}"
        );
    }
    // Line numbers wider than six columns.
    assert_eq!(
        editor(
            args.clone(),
            Some(
                "The file /r/a.py has been edited. Here's the result of running `cat -n` on a snippet of /r/a.py:\n999999\tx\n1000000\ty\nReview the changes and make sure they are as expected. Edit the file again if necessary.\n"
            )
        ),
        edit(
            "/r/a.py",
            "\treturn 1",
            "\treturn 2",
            shown(999_999, &["x", "y"])
        )
    );
    // No `new_str` replaces with nothing.
    assert_eq!(
        editor(
            serde_json::json!({"command": "str_replace", "path": "/r/a.py", "old_str": "x"}),
            Some("The file /r/a.py has been edited. ")
        ),
        edit("/r/a.py", "x", "", None)
    );
    // Refusals: zero or several occurrences, the same text, a missing parameter, a bad path,
    // an unreadable file.
    for observation in [
        "OBSERVATION:\nNo replacement was performed, old_str `\treturn 1` did not appear verbatim in /r/a.py.\n",
        "No replacement was performed. Multiple occurrences of old_str `return 1` in lines [2, 5]. Please ensure it is unique\n",
        "No replacement was performed, old_str `x` is the same as new_str `x`.\n",
        "Parameter `old_str` is required for command: str_replace\n",
        "The path /r/a.py does not exist. Please provide a valid path.\n",
        "The path /r/a.py is a directory and only the `view` command can be used on directories\n",
        "Ran into UnicodeDecodeError 'utf-8' codec can't decode byte 0xff while trying to read /r/a.py\n",
    ] {
        assert_eq!(
            editor(args.clone(), Some(observation)),
            None,
            "{observation}"
        );
    }
    // Anything else may have written the file.
    let unknown = unproven(
        "/r/a.py",
        "the observation does not show whether str_replace_editor str_replace changed the file",
    );
    for observation in [
        Some(
            "Warning: Failed to run pre-edit linter on /r/a.py: boom\nThe file /r/a.py has been edited. ",
        ),
        Some(
            "Traceback (most recent call last):\n  File \"str_replace_editor\", line 9\nAssertionError",
        ),
        Some("Ran into OSError while trying to write to /r/a.py\n"),
        Some("The file /r/b.py has been edited. "),
        None,
    ] {
        assert_eq!(
            editor(args.clone(), observation),
            unknown,
            "{observation:?}"
        );
    }
    // Arguments that are not text.
    assert_eq!(
        editor(
            serde_json::json!({"command": "str_replace", "path": "/r/a.py", "old_str": "x", "new_str": null}),
            Some("The file /r/a.py has been edited. ")
        ),
        unproven("/r/a.py", "the str_replace arguments are not text")
    );
}

#[test]
fn editor_insert_and_undo_edit() {
    let insert = serde_json::json!({"command": "insert", "path": "/r/a.py", "insert_line": 1, "new_str": "y"});
    assert_eq!(
        editor(
            insert.clone(),
            Some(
                "OBSERVATION:\nThe file /r/a.py has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n     1\tx\n     2\ty\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n"
            )
        ),
        unproven("/r/a.py", "replay does not recompute the editor's insert")
    );
    assert_eq!(
        editor(
            insert.clone(),
            Some(
                "Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 2]\n"
            )
        ),
        None
    );
    assert_eq!(
        editor(insert, Some("Killed")),
        unproven(
            "/r/a.py",
            "the observation does not show whether str_replace_editor insert changed the file"
        )
    );
    let undo = serde_json::json!({"command": "undo_edit", "path": "/r/a.py"});
    assert_eq!(
        editor(
            undo.clone(),
            Some(&format!(
                "Last edit to /r/a.py undone successfully. {CAT_HEADER}     1\tx\n\n"
            ))
        ),
        unproven(
            "/r/a.py",
            "replay does not recompute the editor's undo_edit"
        )
    );
    assert_eq!(
        editor(undo.clone(), Some("No edit history found for /r/a.py.\n")),
        None
    );
    assert_eq!(
        editor(undo, None),
        unproven(
            "/r/a.py",
            "the observation does not show whether str_replace_editor undo_edit changed the file"
        )
    );
}

#[test]
fn editor_malformed_arguments() {
    let success = Some("File created successfully at: /r/a.py\n");
    for arguments in [
        "{\"command\":\"create\",\"path\":\"/r/a.py\",\"file_text\":\"x\"",
        "[\"create\", \"/r/a.py\"]",
        "{\"command\":\"create\",\"file_text\":\"x\"}",
        "{\"command\":\"create\",\"path\":7,\"file_text\":\"x\"}",
        "{\"path\":\"/r/a.py\",\"file_text\":\"x\"}",
        "{\"command\":\"write\",\"path\":\"/r/a.py\",\"file_text\":\"x\"}",
        "",
    ] {
        assert_eq!(
            swe_agent_editor::details(arguments, success),
            None,
            "{arguments}"
        );
    }
}

/// Which SWE-agent tool results get editor details: only those answering an editor call of a
/// function-calling run, outside demonstrations.
#[test]
fn swe_agent_editor_details_follow_the_calls() {
    let create = |id: &str, path: &str| {
        serde_json::json!({"role": "assistant", "content": "", "tool_calls": [{"id": id, "type": "function",
            "function": {"name": "str_replace_editor", "arguments":
                serde_json::json!({"command": "create", "path": path, "file_text": "x"}).to_string()}}]})
    };
    let created = |id: &str, path: &str| {
        serde_json::json!({"role": "tool", "tool_call_ids": [id],
            "content": format!("OBSERVATION:\nFile created successfully at: {path}\n")})
    };
    let mut demo_call = create("d1", "/demo/a.py");
    demo_call["is_demo"] = serde_json::json!(true);
    let mut demo_result = created("d1", "/demo/a.py");
    demo_result["is_demo"] = serde_json::json!(true);
    let history = serde_json::json!({"history": [
        // A demonstration's editor calls describe another machine.
        demo_call,
        demo_result,
        // Without function calling the action is only text.
        {"role": "assistant", "content": "str_replace_editor create /r/t.py --file_text x",
         "action": "str_replace_editor create /r/t.py --file_text x"},
        {"role": "user", "content": "File created successfully at: /r/t.py\n"},
        // An editor call, answered.
        create("c1", "/r/a.py"),
        created("c1", "/r/a.py"),
        // An id reused by a later call of another tool.
        create("c2", "/r/b.py"),
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "type": "function",
            "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}]},
        created("c2", "/r/b.py"),
        // One entry answering two calls, the editor's second.
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c3", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}},
            {"id": "c4", "type": "function", "function": {"name": "str_replace_editor",
                "arguments": "{\"command\":\"create\",\"path\":\"/r/c.py\",\"file_text\":\"x\"}"}}]},
        {"role": "tool", "tool_call_ids": ["c3", "c4"], "content": "a.py\nFile created successfully at: /r/c.py\n"},
        // A result with content parts.
        create("c5", "/r/d.py"),
        {"role": "tool", "tool_call_id": "c5", "content": [{"type": "text", "text": "File created successfully at: /r/d.py\n"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}]},
        // A result answering no call.
        created("c9", "/r/e.py"),
    ]});
    let imported = import(
        Path::new("run.traj"),
        history.to_string().as_bytes(),
        Some(Format::SweAgent),
    )
    .unwrap();
    let details: Vec<Option<ToolDetails>> = imported
        .messages
        .iter()
        .map(|m| m.details.as_deref().cloned())
        .collect();
    let write = Some(ToolDetails::Write {
        path: "/r/a.py".to_string(),
        content: "x".to_string(),
    });
    let unknown = |path: &str| {
        unproven(
            path,
            "the observation does not show whether str_replace_editor create changed the file",
        )
    };
    assert_eq!(
        details,
        vec![
            None,
            None,
            None,
            None,
            None,
            write,
            None,
            None,
            None,
            None,
            unknown("/r/c.py"),
            None,
            unknown("/r/d.py"),
            None,
        ]
    );
}

/// A Claude Code session of one tool call answered by one result line with `card`.
fn claude_card_session(tool: &str, input: &str, result_extra: &str, card: &str) -> crate::Import {
    let text = format!(
        "{}\n{}\n{}\n",
        r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"go"}}"#,
        format_args!(
            r#"{{"type":"assistant","uuid":"u2","parentUuid":"u1","message":{{"id":"m1","role":"assistant","content":[{{"type":"tool_use","id":"t1","name":"{tool}","input":{input}}}]}}}}"#
        ),
        format_args!(
            r#"{{"type":"user","uuid":"u3","parentUuid":"u2","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"ok"{result_extra}}}]}},"toolUseResult":{card}}}"#
        ),
    );
    crate::import(Path::new("s.jsonl"), text.as_bytes(), None).expect("session imports")
}

#[test]
fn claude_code_cards_are_cross_checked() {
    use rehydrate_model::ToolDetails;
    let details = |i: &crate::Import| i.messages[2].details.as_deref().cloned();
    // A Write card without a `type` of create or update proves nothing and retracts.
    let i = claude_card_session(
        "Write",
        r#"{"file_path":"/a/x","content":"v"}"#,
        "",
        r#"{"filePath":"/a/x","content":"v"}"#,
    );
    assert_eq!(
        details(&i),
        Some(ToolDetails::UnprovenChange {
            path: "/a/x".into(),
            reason: "the Write card is malformed".into()
        })
    );
    // A Read card whose text does not have the line count it claims is not a whole read.
    let i = claude_card_session(
        "Read",
        r#"{"file_path":"/a/x"}"#,
        "",
        r#"{"type":"text","file":{"filePath":"/a/x","content":"abc","numLines":0,"startLine":1,"totalLines":0}}"#,
    );
    assert_eq!(
        details(&i),
        Some(ToolDetails::PartialRead {
            path: "/a/x".into(),
            start_line: 1,
            num_lines: 0,
            total_lines: 0
        })
    );
    let i = claude_card_session(
        "Read",
        r#"{"file_path":"/a/x"}"#,
        "",
        r#"{"type":"text","file":{"filePath":"/a/x","content":"a\nb\n","numLines":3,"startLine":1,"totalLines":3}}"#,
    );
    assert_eq!(
        details(&i),
        Some(ToolDetails::WholeRead {
            path: "/a/x".into(),
            content: "a\nb\n".into()
        })
    );
    // An `is_error` that is not a boolean is a failure: no details, and a warning.
    let i = claude_card_session(
        "Write",
        r#"{"file_path":"/a/x","content":"v"}"#,
        r#","is_error":"true""#,
        r#"{"type":"create","filePath":"/a/x","content":"v"}"#,
    );
    assert_eq!(details(&i), None);
    assert!(i.messages[2].is_error());
    assert_eq!(
        i.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["line 3: tool_result `is_error` is a string, taken as a failure"]
    );
}

/// `json::write_members` of `text` (a JSON object) read as raw members.
fn members_written(text: &str) -> String {
    let members: std::collections::BTreeMap<String, &serde_json::value::RawValue> =
        serde_json::from_str(text).unwrap();
    json::write_members(&members)
}

#[test]
fn raw_members_are_written_as_serde_json_writes_the_parsed_object() {
    let cases = [
        r#"{}"#,
        r#"{ "b" : 1 , "a" : "x" }"#,
        r#"{"a":"line\nbreak\ttab \"q\" back\\slash \b\f\r"}"#,
        r#"{"a":"\u001f \u0000 \u007f \u00e9 \u0008 \u000A \/ \uD83D\uDE00 é"}"#,
        r#"{"a":"\u001F upper hex"}"#,
        r#"{"n":1.0,"e":1e2,"i":-0,"big":123456789012345678901234567890}"#,
        r#"{"nested":{"z":1,"a":[ true, null, {"y":"\u0041","b":2} ]},"t":true,"f":false,"u":null}"#,
        r#"{"k\u0065y":"dup","key":"last"}"#,
        r#"{"a":1,"a":2}"#,
    ];
    for text in cases {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(members_written(text), value.to_string(), "{text}");
    }
    // A string copied as it is, escapes and all.
    assert_eq!(
        members_written(r#"{"a":"x\n\u001fy"}"#),
        r#"{"a":"x\n\u001fy"}"#
    );
}

proptest::proptest! {
    #[test]
    fn raw_members_match_serde_json_on_any_strings(
        entries in proptest::collection::btree_map("[a-cq\\\\\"\n\u{0}-\u{1f}é😀]{0,4}", "(?s)[q\\\\\"\u{0}-\u{1f}\u{7f}é😀 -~]{0,12}", 0..5),
        ascii_escapes in proptest::bool::ANY,
    ) {
        // The object written by serde_json, and, to reach the escapes a JavaScript or Python
        // writer uses, with every non-ASCII char and `q` written as `\uXXXX`.
        let value = serde_json::Value::Object(
            entries.into_iter().map(|(k, v)| (k, serde_json::Value::String(v))).collect(),
        );
        let mut text = value.to_string();
        if ascii_escapes {
            text = text
                .chars()
                .flat_map(|c| {
                    if c.is_ascii() && c != 'q' {
                        vec![c.to_string()]
                    } else {
                        let mut buf = [0u16; 2];
                        c.encode_utf16(&mut buf)
                            .iter()
                            .map(|u| format!("\\u{u:04X}"))
                            .collect()
                    }
                })
                .collect();
        }
        proptest::prop_assert_eq!(members_written(&text), value.to_string());
    }
}
