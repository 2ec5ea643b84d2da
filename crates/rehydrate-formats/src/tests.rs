//! Unit tests of the formats crate: detection rules, error texts and the JSON helpers.

use std::path::Path;

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
        "unknown format `Claude-Code` (expected claude-code, swe-agent or openai)"
    );
}

#[test]
fn detection_rules() {
    let cases: [(&[u8], Option<Format>); 14] = [
        (
            b"  [{\"role\":\"user\",\"content\":\"x\"}]",
            Some(Format::OpenAi),
        ),
        (b"[]", Some(Format::OpenAi)),
        // A truncated array still looks like OpenAI; import reports the JSON error.
        (b"[{\"role\":\"user\"", Some(Format::OpenAi)),
        // An array of something else (OpenHands events).
        (b"[{\"id\":1,\"action\":\"run\"}]", None),
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
        // Codex rollouts: JSONL with `type` but no uuid.
        (
            b"{\"type\":\"session_meta\",\"payload\":{}}\n{\"type\":\"event_msg\"}\n",
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
        "x.json: unknown session format (expected claude-code JSONL, swe-agent .traj or an OpenAI messages array)"
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
        "[{\"id\":1,\"action\":\"run\"}, {\"role\":\"user\"}]",
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
                    warnings,
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
