//! Unit tests of the Claude Code parse: the threaded line parse equals the sequential one.

use super::{Body, Outcome, ParsedLine, parse_chunk, parse_lines};

/// What a parsed line says, comparable.
fn summary(p: &ParsedLine<'_>) -> (usize, String) {
    let outcome = match &p.outcome {
        Outcome::Invalid(e) => format!("invalid: {e}"),
        Outcome::Skipped(w) => format!("skipped: {w}"),
        Outcome::Record(parsed) => {
            let r = &parsed.record;
            let body = match &r.body {
                Body::None => "none",
                Body::CompactBoundary => "boundary",
                Body::User(u) if u.content.is_some() => "user message",
                Body::User(_) => "user",
                Body::Assistant(_) => "assistant",
            };
            format!(
                "{:?} {:?} {:?} {:?} {body} {}",
                r.kind,
                r.uuid,
                parsed.unknown_type,
                r.parent,
                parsed.side.is_some()
            )
        }
    };
    (p.line, outcome)
}

#[test]
fn threaded_parse_equals_the_sequential_parse() {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < super::PARALLEL_PARSE_MIN_BYTES + (1 << 20) {
        let line = match i % 7 {
            0 => String::new(),
            1 => "[1,2]".to_string(),
            2 => format!(r#"{{"type":"summary","summary":"title {i}"}}"#),
            3 => format!(
                r#"{{"type":"user","uuid":"u{i}","message":{{"role":"user","content":"{}"}}}}"#,
                "x".repeat(i % 300)
            ),
            4 => format!("{{\"type\":\"assistant\",\"uuid\":\"a{i}\"}}\r"),
            5 => r#"{"uuid":"no-type"}"#.to_string(),
            _ => format!(r#"{{"type":"system","subtype":"s{i}","timestamp":"t"}}"#),
        };
        text.push_str(&line);
        text.push('\n');
        i += 1;
    }
    text.push_str("{not json\n{\"type\":\"user\"}");
    let sequential: Vec<_> = parse_chunk(1, &text, true)
        .iter()
        .flatten()
        .map(summary)
        .collect();
    let threaded: Vec<_> = parse_lines(&text, true)
        .iter()
        .flatten()
        .map(summary)
        .collect();
    assert_eq!(threaded.len(), sequential.len());
    assert_eq!(threaded, sequential);
    // The line numbers are the file's.
    let last = threaded.last().expect("lines were parsed");
    assert_eq!(last.0, text.lines().count());
}
