//! Writing canonical messages as a Goose session JSONL (docs/FORMATS.md, "Goose", "Writing"):
//! the legacy form Goose imports, a `SessionMetadata` line, then one `Message` per line.
//!
//! A message of the session is a Goose message again: the lines the importer split are joined
//! back, so a user message's tool results and its text are one line (they share the line's
//! `goose.id` and `goose.created`), and a call Goose could not parse, answered right after its
//! assistant message, is that message's failed `toolRequest` again. The importer reads the
//! lines back to the same messages ([`crate::goose`]), but for `goose.line`, which names the
//! line of the file read.

use std::borrow::Borrow;

use rehydrate_model::{
    Content, Message, REDACTED_THINKING_METADATA_KEY, Role, THINKING_METADATA_KEY,
    THINKING_SIGNATURE_METADATA_KEY,
};
use serde_json::{Value, json};

use crate::goose::{CALL_ERROR_PREFIX, RESULT_ERROR_PREFIX};
use crate::keys;

/// One Goose message being written.
struct Line<'a> {
    role: Role,
    /// The message whose `goose.id`, `goose.created` and `goose.user_visible` it carries.
    stamp: &'a Message,
    /// Whether the line only holds tool results so far (a user message's text may follow).
    results_only: bool,
    /// The ids of its tool requests.
    calls: Vec<&'a str>,
    content: Vec<Value>,
}

/// The stamp of a message: its Goose id, creation time and user visibility.
fn stamp(m: &Message) -> [Option<&String>; 3] {
    [
        m.metadata.get(keys::GOOSE_ID),
        m.metadata.get(keys::GOOSE_CREATED),
        m.metadata.get(keys::GOOSE_USER_VISIBLE),
    ]
}

/// The session JSONL of `messages` (see the module docs).
pub(crate) fn write<M: Borrow<Message>>(messages: &[M]) -> Vec<u8> {
    let messages: Vec<&Message> = messages.iter().map(Borrow::borrow).collect();
    let mut lines: Vec<Line<'_>> = Vec::new();
    for &m in &messages {
        let same = |line: &Line<'_>| stamp(line.stamp) == stamp(m);
        match m.role {
            Role::Tool => {
                let id = m.tool_call_id.as_deref().unwrap_or_default();
                let text = m.content_text().unwrap_or_default();
                match lines.last_mut() {
                    // A call Goose could not parse: answered by its error after the message.
                    Some(line)
                        if line.role == Role::Assistant
                            && same(line)
                            && m.is_error()
                            && text.starts_with(CALL_ERROR_PREFIX)
                            && !line.calls.contains(&id) =>
                    {
                        line.content.push(json!({
                            "type": "toolRequest",
                            "id": id,
                            "toolCall": {"status": "error", "error": &text[CALL_ERROR_PREFIX.len()..]},
                        }));
                    }
                    Some(line) if line.role == Role::User && line.results_only && same(line) => {
                        line.content.push(tool_response(m));
                    }
                    _ => lines.push(Line {
                        role: Role::User,
                        stamp: m,
                        results_only: true,
                        calls: Vec::new(),
                        content: vec![tool_response(m)],
                    }),
                }
            }
            Role::User | Role::System => {
                let mut items = thinking_items(m);
                items.extend(content_items(m.content.as_ref()));
                match lines.last_mut() {
                    Some(line)
                        if m.role == Role::User
                            && line.role == Role::User
                            && line.results_only
                            && same(line) =>
                    {
                        line.content.extend(items);
                        line.results_only = false;
                    }
                    _ => lines.push(Line {
                        role: m.role,
                        stamp: m,
                        results_only: false,
                        calls: Vec::new(),
                        content: items,
                    }),
                }
            }
            Role::Assistant => {
                // Thinking first, as the model wrote it (and as Anthropic's API wants it back).
                let mut content = thinking_items(m);
                content.extend(content_items(m.content.as_ref()));
                for call in &m.tool_calls {
                    let arguments = match serde_json::from_str::<Value>(&call.arguments) {
                        Ok(object @ Value::Object(_)) => object,
                        // Goose records arguments as an object only.
                        _ => json!({ "arguments": call.arguments }),
                    };
                    content.push(json!({
                        "type": "toolRequest",
                        "id": call.id,
                        "toolCall": {"status": "success", "value": {"name": call.name, "arguments": arguments}},
                    }));
                }
                lines.push(Line {
                    role: Role::Assistant,
                    stamp: m,
                    results_only: false,
                    calls: m.tool_calls.iter().map(|c| c.id.as_str()).collect(),
                    content,
                });
            }
        }
    }
    let first = messages.first();
    let meta = |key: &str| first.and_then(|m| m.metadata.get(key)).cloned();
    let mut out = serde_json::to_vec(&json!({
        "working_dir": meta(keys::GOOSE_WORKING_DIR).unwrap_or_default(),
        "description": meta(keys::GOOSE_DESCRIPTION).unwrap_or_default(),
        "message_count": lines.len(),
        "total_tokens": null,
    }))
    .unwrap_or_default();
    out.push(b'\n');
    for line in lines {
        let created = line
            .stamp
            .metadata
            .get(keys::GOOSE_CREATED)
            .and_then(|c| serde_json::from_str::<serde_json::Number>(c).ok())
            .map_or(json!(0), Value::Number);
        let mut object = serde_json::Map::new();
        if let Some(id) = line.stamp.metadata.get(keys::GOOSE_ID) {
            object.insert("id".into(), json!(id));
        }
        object.insert(
            "role".into(),
            json!(if line.role == Role::Assistant {
                "assistant"
            } else {
                "user"
            }),
        );
        object.insert("created".into(), created);
        object.insert("content".into(), Value::Array(line.content));
        // A system message has no place in a Goose session: it is kept, and the agent does not
        // see it.
        object.insert(
            "metadata".into(),
            json!({
                "userVisible": line.stamp.metadata.get(keys::GOOSE_USER_VISIBLE).map(String::as_str) != Some("false"),
                "agentVisible": line.role != Role::System,
            }),
        );
        if let Ok(text) = serde_json::to_vec(&Value::Object(object)) {
            out.extend_from_slice(&text);
        }
        out.push(b'\n');
    }
    out
}

/// A message's content as Goose content items: text as a `text` item, an `image_url` part of a
/// `data:` URL and an Anthropic base64 image block as an `image` item, any other part as the
/// text of its JSON.
fn content_items(content: Option<&Content>) -> Vec<Value> {
    match content {
        None => Vec::new(),
        Some(Content::Text(text)) => vec![json!({"type": "text", "text": text})],
        Some(Content::Parts(parts)) => parts
            .iter()
            .map(|part| {
                if let Some((mime, data)) = crate::canonical::inline_image(part) {
                    return json!({"type": "image", "data": data, "mimeType": mime});
                }
                match part.get("type").and_then(Value::as_str) {
                    Some("text") => json!({"type": "text", "text": part.get("text").cloned().unwrap_or_default()}),
                    // An image by URL: Goose holds images inline only.
                    _ => match part.pointer("/image_url/url").and_then(Value::as_str) {
                        Some(url) => json!({"type": "text", "text": url}),
                        None => json!({"type": "text", "text": part.to_string()}),
                    },
                }
            })
            .collect(),
    }
}

/// A message's thinking as Goose items: its thinking text (joined as the importer joined it)
/// with its signatures as one `thinking` item, each redacted block a `redactedThinking` item.
fn thinking_items(m: &Message) -> Vec<Value> {
    let get = |key: &str| m.metadata.get(key);
    let mut items = Vec::new();
    if let Some(thinking) = get(THINKING_METADATA_KEY) {
        let mut item = json!({"type": "thinking", "thinking": thinking});
        if let Some(signature) = get(THINKING_SIGNATURE_METADATA_KEY) {
            item["signature"] = json!(signature);
        }
        items.push(item);
    }
    if let Some(redacted) = get(REDACTED_THINKING_METADATA_KEY) {
        items.extend(
            redacted
                .split('\n')
                .map(|data| json!({"type": "redactedThinking", "data": data})),
        );
    }
    items
}

/// A tool message as a `toolResponse` item: a failed tool's error as Goose records it, any other
/// result as a `CallToolResult` of its content items, `isError` when it failed.
fn tool_response(m: &Message) -> Value {
    let id = m.tool_call_id.as_deref().unwrap_or_default();
    if m.is_error()
        && let Some(error) = m
            .content_text()
            .and_then(|text| text.strip_prefix(RESULT_ERROR_PREFIX))
    {
        return json!({"type": "toolResponse", "id": id, "toolResult": {"status": "error", "error": error}});
    }
    let mut value = json!({"content": content_items(m.content.as_ref())});
    if m.is_error() {
        value["isError"] = json!(true);
    }
    json!({"type": "toolResponse", "id": id, "toolResult": {"status": "success", "value": value}})
}
