//! Unit tests of the reducer.

use rehydrate_model::{Message, Role, ToolCall};

use crate::*;

fn call(id: &str) -> Message {
    Message {
        role: Role::Assistant,
        tool_calls: vec![ToolCall {
            id: id.into(),
            name: "bash".into(),
            arguments: "{}".into(),
        }],
        ..Message::default()
    }
}

#[test]
fn truncation_span_snaps_to_lines_and_char_boundaries() {
    // No line break: pure char-boundary cuts. "é" is 2 bytes.
    let text = "é".repeat(10); // 20 bytes
    let span = truncation_span(&text, 5, 5).unwrap();
    assert_eq!((span.start(), span.end()), (4, 16));
    // Nothing hidden when head + tail cover the text.
    assert_eq!(truncation_span("abcdef", 3, 3), None);
    assert_eq!(
        truncation_span("abcdefg", 3, 3).map(|s| (s.start(), s.end())),
        Some((3, 4))
    );
    // Line snapping keeps the last line whole.
    let text = format!("{}\nerror: build failed\n", "x".repeat(100));
    let span = truncation_span(&text, 10, 30).unwrap();
    assert_eq!(&text[span.end()..], "error: build failed\n");
    // A tiny head over a 3-byte char never panics.
    assert_eq!(
        truncation_span("€€€€", 2, 2).map(|s| (s.start(), s.end())),
        Some((0, 12))
    );
}

#[test]
fn clearable_range_respects_pairs() {
    let history = vec![
        Message::text(Role::System, "sys"),
        Message::text(Role::User, "one"),
        call("a"),
        Message::tool_result("a", "x"),
        Message::text(Role::User, "two"),
        call("b"),
        Message::text(Role::User, "interrupt"),
        Message::tool_result("b", "y"),
        Message::text(Role::User, "three"),
    ];
    assert_eq!(turn_starts(&history), vec![1, 4, 6, 8]);
    assert_eq!(clearable_range(&history, 1), Some((1, 7)));
    // Keeping 2 turns would cut between call b (5) and result b (7): fall back to boundary 4.
    assert_eq!(clearable_range(&history, 2), Some((1, 3)));
    assert_eq!(clearable_range(&history, 4), None);
    assert_eq!(clearable_range(&history, 0), Some((1, 8)));
}
