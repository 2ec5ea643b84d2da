//! Resource limits at the scale CI runs (`cargo xtask limits` runs them full size and
//! measures memory): JSON nested 100,000 deep in every format, a regex at every size limit,
//! one long line without a line break holding one large tool output, and many tiny messages.
//! Each works, or fails with one line on stderr and exit 2: never an abort from the stack or
//! the allocator.

use std::path::Path;
use std::process::Output;

use crate::{fixture, rehydrate, scratch, stderr};

/// How deep the nested JSON goes.
const DEPTH: usize = 100_000;

/// `text` with the value of its first JSON string member (`"key":"value"` or `"key": "value"`)
/// replaced by `deep`.
fn with_deep_value(text: &str, deep: &str) -> String {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = text[at..].find("\":") {
        let colon = at + found + 1;
        let mut start = colon + 1;
        while bytes.get(start) == Some(&b' ') {
            start += 1;
        }
        if bytes.get(start) == Some(&b'"') {
            let mut end = start + 1;
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            return format!("{}{deep}{}", &text[..start], &text[end + 1..]);
        }
        at = colon;
    }
    panic!("no string member in the fixture");
}

/// Asserts that `out` is a failure with exit 2 and one line on stderr, or a success.
fn one_line_or_success(out: &Output, what: &str) {
    let code = out.status.code();
    assert!(
        code.is_some(),
        "{what}: killed by a signal ({:?})",
        out.status
    );
    if code == Some(0) {
        return;
    }
    let err = stderr(out);
    assert_eq!(code, Some(2), "{what}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
}

#[test]
fn json_nested_100000_deep_in_every_format_is_one_line_of_error() {
    let dir = scratch("limits-deep");
    let arrays = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let objects = format!("{}1{}", "{\"a\":".repeat(DEPTH), "}".repeat(DEPTH));
    let fixtures = [
        "formats/claude-code-session.jsonl",
        "formats/codex/codex-session.jsonl",
        "formats/gemini-cli-session.json",
        "formats/gemini-cli-session.jsonl",
        "formats/openhands-events.json",
        "formats/goose-session.jsonl",
        "formats/swe-agent-function-calling.traj",
        "formats/openai-array.json",
        "formats/anthropic/body.json",
        "formats/responses/object.json",
    ];
    for name in fixtures {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        for (shape, deep) in [("arrays", &arrays), ("objects", &objects)] {
            let file_name = Path::new(name).file_name().unwrap().to_str().unwrap();
            let path = dir.join(format!("{shape}-{file_name}"));
            std::fs::write(&path, with_deep_value(&text, deep)).unwrap();
            let p = path.to_str().unwrap();
            let out_dir = dir.join(format!("{shape}-{file_name}.out"));
            let o = out_dir.to_str().unwrap();
            for args in [
                &["reduce", "--no-tokens", p, "--out", o][..],
                &["replay", p][..],
                &["evidence", p][..],
                &["inspect", p][..],
            ] {
                let out = rehydrate(args);
                one_line_or_success(
                    &out,
                    &format!("{name} with {shape} nested {DEPTH} deep: {args:?}"),
                );
            }
        }
    }
}

#[test]
fn a_regex_at_every_limit_is_answered_or_refused_in_one_line() {
    let dir = scratch("limits-regex");
    let out_dir = dir.join("out");
    let o = out_dir.to_str().unwrap();
    let session = fixture("cli/build-session.json");
    let out = rehydrate(&[
        "reduce",
        "--no-tokens",
        session.to_str().unwrap(),
        "--out",
        o,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let search = |query: &str, regex: bool| {
        let mut args = vec!["search", o, query];
        if regex {
            args.push("--regex");
        }
        rehydrate(&args)
    };
    // The query at its limit of 4096 bytes, and one byte over.
    assert!(search(&"a".repeat(4096), false).status.success());
    let over = search(&"a".repeat(4097), false);
    one_line_or_success(&over, "a query of 4097 bytes");
    assert_eq!(over.status.code(), Some(2));
    // Groups nested at the parser's limit, and past it.
    let nested = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
    let within = search(&nested(200), true);
    one_line_or_success(&within, "groups nested 200 deep");
    let past = search(&nested(2000), true);
    one_line_or_success(&past, "groups nested 2000 deep");
    assert_eq!(past.status.code(), Some(2));
    // Counted repetitions whose compiled form is over the size limits.
    for pattern in [
        "(?:a{1000}){1000}",
        "\\w{1000}",
        "[a-z]{500}[0-9]{500}",
        "(a|b|c|d|e|f|g|h){200}",
    ] {
        let out = search(pattern, true);
        one_line_or_success(&out, pattern);
    }
    assert_eq!(search("(?:a{1000}){1000}", true).status.code(), Some(2));
}

#[test]
fn one_large_output_on_a_line_without_a_break_and_many_tiny_messages_work() {
    let dir = scratch("limits-large");
    // A 32 MiB tool output in the last line of a Codex rollout, with no line break at its end.
    let output = "compiling crate\n".repeat(2 << 20);
    let rollout = format!(
        "{}\n{}\n{}",
        r#"{"timestamp":"2026-05-11T08:27:00.000Z","type":"session_meta","payload":{"id":"s1","timestamp":"2026-05-11T08:26:55.042Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.1.0"}}"#,
        r#"{"timestamp":"2026-05-11T08:27:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"make\"]}","call_id":"c1"}}"#,
        serde_json::json!({
            "timestamp": "2026-05-11T08:27:02.000Z",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1", "output": output},
        })
    );
    let path = dir.join("large.jsonl");
    std::fs::write(&path, rollout).unwrap();
    let out_dir = dir.join("large.out");
    let (p, o) = (path.to_str().unwrap(), out_dir.to_str().unwrap());
    let out = rehydrate(&["reduce", "--no-tokens", "--protect", "0", p, "--out", o]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(rehydrate(&["verify", o]).status.success());
    // 200,000 tiny messages.
    let tiny: Vec<serde_json::Value> = (0..200_000)
        .map(|i| serde_json::json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": "a"}))
        .collect();
    let path = dir.join("tiny.json");
    std::fs::write(&path, serde_json::to_vec(&tiny).unwrap()).unwrap();
    let out_dir = dir.join("tiny.out");
    let (p, o) = (path.to_str().unwrap(), out_dir.to_str().unwrap());
    let out = rehydrate(&["reduce", "--no-tokens", p, "--out", o]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = rehydrate(&["verify", "--json", o]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["messages"], 200_000);
}
