//! Hand-built messages: tool calls and the assistant messages that make them.
//!
//! Text messages and tool results need nothing here: `Message::text` and
//! `Message::tool_result` of rehydrate-model build them.

use rehydrate_model::{Content, Message, Role, ToolCall};

/// The tool call `id` of tool `name` with `arguments` (JSON text, kept as written).
///
/// # Example
///
/// ```
/// use rehydrate_test_support::call;
///
/// let c = call("t1", "ls", "{}");
/// assert_eq!((c.id.as_str(), c.name.as_str(), c.arguments.as_str()), ("t1", "ls", "{}"));
/// ```
pub fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

/// An assistant message with the text `content` (none when `None`) making `calls`, in order.
///
/// # Example
///
/// ```
/// use rehydrate_model::Role;
/// use rehydrate_test_support::{call, calling};
///
/// let m = calling(Some("reading"), vec![call("t1", "cat", r#"{"path":"a"}"#)]);
/// assert_eq!((m.role, m.content_text(), m.tool_calls.len()), (Role::Assistant, Some("reading"), 1));
/// ```
pub fn calling(content: Option<&str>, calls: Vec<ToolCall>) -> Message {
    Message {
        role: Role::Assistant,
        content: content.map(|t| Content::Text(t.into())),
        tool_calls: calls,
        ..Message::default()
    }
}

/// An assistant message without text making one call: `id` of tool `name` with `arguments`.
///
/// # Example
///
/// ```
/// use rehydrate_test_support::{assistant_call, call, calling};
///
/// assert_eq!(assistant_call("c1", "bash", "{}"), calling(None, vec![call("c1", "bash", "{}")]));
/// ```
pub fn assistant_call(id: &str, name: &str, arguments: &str) -> Message {
    calling(None, vec![call(id, name, arguments)])
}
