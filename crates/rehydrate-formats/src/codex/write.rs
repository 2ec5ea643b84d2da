//! Writing canonical messages as a Codex rollout (docs/FORMATS.md, "Codex CLI rollout",
//! "Writing").
//!
//! Per record group (a message with [`keys::SOURCE`] and the [`keys::SOURCE_PART`] messages
//! after it): the source is decoded alone; when it gives the same messages, it is written
//! verbatim; otherwise the lines that hold no model content are kept and the messages are
//! written afresh. A message with neither key is written afresh.

use std::borrow::Borrow;
use std::collections::HashMap;

use rehydrate_model::{Content, Message, REDUCTION_METADATA_KEY, Role};
use serde_json::Value;
use serde_json::value::RawValue;

use super::read;
use crate::keys;

/// The metadata keys that are part of what a group's messages say in the rollout, compared
/// with the decoded source besides role, content, tool calls, tool call id and name.
const OWN_KEYS: [&str; 8] = [
    "reasoning",
    keys::CUSTOM_CALLS,
    keys::CODEX_PHASE,
    keys::CODEX_ROLE,
    keys::CODEX_NAMESPACES,
    keys::CODEX_LOCAL_SHELL_CALLS,
    keys::CODEX_COMPACTED,
    keys::CODEX_BASE_INSTRUCTIONS,
];

/// The timestamp of lines written for messages that record none, before any line did.
const EPOCH: &str = "1970-01-01T00:00:00.000Z";

/// The rollout of `messages` (docs/FORMATS.md, "Codex CLI rollout", "Writing"): the input back
/// byte for byte for an unchanged import; see the module docs for changed and foreign
/// messages. A session with no message from a rollout starts with a `session_meta` line.
pub(crate) fn write<M: Borrow<Message>>(messages: &[M]) -> Vec<u8> {
    let messages: Vec<&Message> = messages.iter().map(Borrow::borrow).collect();
    write_refs(&messages)
}

/// [`write()`] over borrowed messages.
fn write_refs<'a>(messages: &[&'a Message]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut clock = messages
        .iter()
        .find_map(|m| m.timestamp())
        .unwrap_or(EPOCH)
        .to_string();
    // A session read from a JSON document (an OpenAI, Anthropic or Responses body) keeps that
    // format's sources, never written into a rollout: its messages are written afresh.
    let own = !messages
        .iter()
        .any(|m| m.metadata.contains_key(keys::DOCUMENT));
    let source_of = |m: &'a Message| m.metadata.get(keys::SOURCE).filter(|_| own);
    if !messages.is_empty() && !messages.iter().any(|m| source_of(m).is_some()) {
        session_meta(messages, &clock, &mut out);
    }
    let custom = custom_calls(messages);
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        let mut end = i + 1;
        match source_of(m) {
            Some(source) => {
                while messages
                    .get(end)
                    .is_some_and(|n| n.metadata.contains_key(keys::SOURCE_PART))
                {
                    end += 1;
                }
                let custom: Vec<bool> = (i..end)
                    .map(|k| answers_custom(messages[k], k, &custom))
                    .collect();
                group(source, &messages[i..end], &custom, &mut clock, &mut out);
            }
            None => afresh(m, answers_custom(m, i, &custom), &mut clock, &mut out),
        }
        for n in messages[i..end].iter().filter(|_| own) {
            if let Some(tail) = n.metadata.get(keys::SOURCE_TAIL) {
                end_line(&mut out);
                out.extend_from_slice(tail.as_bytes());
            }
        }
        i = end;
    }
    out
}

/// The calls written as `custom_tool_call` records (listed in their message's
/// [`keys::CUSTOM_CALLS`]), each id with the index of its first message: a later result of one
/// that is a pairing repair's synthetic result is written as a `custom_tool_call_output`
/// ([`answers_custom`]).
fn custom_calls<'a>(messages: &[&'a Message]) -> HashMap<&'a str, usize> {
    let mut out = HashMap::new();
    for (i, m) in messages.iter().enumerate() {
        if m.role != Role::Assistant {
            continue;
        }
        let listed = m.metadata.get(keys::CUSTOM_CALLS);
        for c in &m.tool_calls {
            if listed.is_some_and(|ids| ids.lines().any(|l| l == c.id)) {
                out.entry(c.id.as_str()).or_insert(i);
            }
        }
    }
    out
}

/// Whether the tool result at `index` is a pairing repair's synthetic result (it carries
/// [`REDUCTION_METADATA_KEY`]) for a custom call of an earlier message. A result read from a
/// rollout keeps the kind it was written with, even a mismatched one.
fn answers_custom(m: &Message, index: usize, custom: &HashMap<&str, usize>) -> bool {
    m.metadata.contains_key(REDUCTION_METADATA_KEY)
        && m.tool_call_id
            .as_deref()
            .and_then(|id| custom.get(id))
            .is_some_and(|&at| at < index)
}

/// A `session_meta` line for a session from another format.
fn session_meta(messages: &[&Message], clock: &str, out: &mut Vec<u8>) {
    let cwd = messages
        .iter()
        .find_map(|m| m.metadata.get(keys::CODEX_CWD))
        .map_or("", String::as_str);
    let payload = object(&[
        ("id", text("00000000-0000-0000-0000-000000000000")),
        ("timestamp", text(clock)),
        ("cwd", text(cwd)),
        ("originator", text("rehydrate")),
        ("cli_version", text("")),
        ("source", text("exec")),
    ]);
    line(clock, "session_meta", &payload, out);
}

/// One record group: verbatim when its source decodes to the same messages.
/// `custom` says, per message, whether it is a tool result of a custom call ([`answers_custom`]).
fn group(
    source: &str,
    messages: &[&Message],
    custom: &[bool],
    clock: &mut String,
    out: &mut Vec<u8>,
) {
    let afresh_all = |clock: &mut String, out: &mut Vec<u8>| {
        for (m, &custom) in messages.iter().zip(custom) {
            afresh(m, custom, clock, out);
        }
    };
    let Ok(decoded) = read::read(source) else {
        afresh_all(clock, out);
        return;
    };
    let same = {
        let decoded: Vec<&Message> = decoded.groups.iter().flat_map(|g| &g.messages).collect();
        decoded.len() == messages.len() && decoded.iter().zip(messages).all(|(d, m)| same(d, m))
    };
    if same {
        end_line(out);
        out.extend_from_slice(source.as_bytes());
        if let Some(t) = messages.iter().rev().find_map(|m| m.timestamp()) {
            *clock = t.to_string();
        }
        return;
    }
    // The lines that hold no model content, as they are; then the messages afresh.
    let model: Vec<(usize, usize)> = decoded
        .groups
        .iter()
        .flat_map(|g| g.model_lines.iter().copied())
        .collect();
    let mut start = 0;
    while start < source.len() {
        let end = memchr::memchr(b'\n', &source.as_bytes()[start..])
            .map_or(source.len(), |k| start + k + 1);
        if !model.contains(&(start, end)) {
            end_line(out);
            out.extend_from_slice(&source.as_bytes()[start..end]);
        }
        start = end;
    }
    afresh_all(clock, out);
}

/// Whether a decoded message and a standing one say the same in the rollout.
fn same(decoded: &Message, m: &Message) -> bool {
    decoded.role == m.role
        && decoded.content == m.content
        && decoded.tool_calls == m.tool_calls
        && decoded.tool_call_id == m.tool_call_id
        && decoded.name == m.name
        && decoded.observation == m.observation
        && OWN_KEYS
            .iter()
            .all(|k| decoded.metadata.get(*k) == m.metadata.get(*k))
}

/// A JSON string.
fn text(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A JSON object of `(key, JSON text)` fields, in order.
fn object(fields: &[(&str, String)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&text(k));
        out.push(':');
        out.push_str(v);
    }
    out.push('}');
    out
}

/// One rollout line.
fn line(timestamp: &str, kind: &str, payload: &str, out: &mut Vec<u8>) {
    end_line(out);
    let envelope = object(&[
        ("timestamp", text(timestamp)),
        ("type", text(kind)),
        ("payload", payload.to_string()),
    ]);
    out.extend_from_slice(envelope.as_bytes());
    out.push(b'\n');
}

/// Ends the last line written when it has no line break (a file's last line may lack one,
/// and is written back so while nothing follows it), so the next line starts a line.
fn end_line(out: &mut Vec<u8>) {
    if out.last().is_some_and(|&b| b != b'\n') {
        out.push(b'\n');
    }
}

/// Content as a rollout content array of the role's text kind.
fn content_array(content: &Content, kind: &str) -> String {
    let parts: Vec<String> = match content {
        Content::Text(t) => vec![object(&[("type", text(kind)), ("text", text(t))])],
        Content::Parts(parts) => parts.iter().map(|p| rollout_part(p, kind)).collect(),
    };
    format!("[{}]", parts.join(","))
}

/// A chat-shape part as a rollout part (the reverse of the reader's mapping).
fn rollout_part(part: &Value, kind: &str) -> String {
    if let Some(obj) = part.as_object() {
        match obj.get("type").and_then(Value::as_str) {
            Some("text") if obj.len() == 2 => {
                if let Some(t) = obj.get("text").and_then(Value::as_str) {
                    return object(&[("type", text(kind)), ("text", text(t))]);
                }
            }
            Some("image_url") if obj.len() == 2 => {
                let image = obj.get("image_url");
                let url = image
                    .and_then(|i| i.get("url"))
                    .and_then(Value::as_str)
                    .or_else(|| image.and_then(Value::as_str));
                if let Some(url) = url {
                    let mut fields = vec![("type", text("input_image")), ("image_url", text(url))];
                    if let Some(detail) = image.and_then(|i| i.get("detail")) {
                        fields.push(("detail", detail.to_string()));
                    }
                    return object(&fields);
                }
            }
            _ => {}
        }
    }
    part.to_string()
}

/// A message's lines, written from its fields; `custom`: a tool result of an earlier custom
/// call ([`answers_custom`]).
fn afresh(m: &Message, custom: bool, clock: &mut String, out: &mut Vec<u8>) {
    if let Some(t) = m.timestamp() {
        *clock = t.to_string();
    }
    let ts = clock.clone();
    let flag = |key: &str| m.metadata.get(key).map(String::as_str) == Some("true");
    let item = |payload: String, out: &mut Vec<u8>| line(&ts, "response_item", &payload, out);
    match m.role {
        Role::System if flag(keys::CODEX_BASE_INSTRUCTIONS) => {
            let mut fields = Vec::new();
            if let Some(id) = m.metadata.get(keys::CODEX_SESSION_ID) {
                fields.push(("id", text(id)));
            }
            fields.push(("timestamp", text(&ts)));
            for (field, key) in [
                ("cwd", keys::CODEX_CWD),
                ("cli_version", keys::CODEX_CLI_VERSION),
            ] {
                if let Some(v) = m.metadata.get(key) {
                    fields.push((field, text(v)));
                }
            }
            let instructions = plain_text(m.content.as_ref());
            fields.push((
                "base_instructions",
                object(&[("text", text(&instructions))]),
            ));
            line(&ts, "session_meta", &object(&fields), out);
        }
        Role::System => {
            let role = m
                .metadata
                .get(keys::CODEX_ROLE)
                .map_or("system", String::as_str);
            item(message_payload(role, m.content.as_ref(), None), out);
        }
        Role::User if flag(keys::CODEX_COMPACTED) => {
            let summary = plain_text(m.content.as_ref());
            line(
                &ts,
                "compacted",
                &object(&[("message", text(&summary))]),
                out,
            );
        }
        Role::User => item(message_payload("user", m.content.as_ref(), None), out),
        Role::Assistant => {
            if let Some(reasoning) = m.metadata.get("reasoning") {
                match serde_json::from_str::<Vec<Box<RawValue>>>(reasoning) {
                    Ok(items) => items.iter().for_each(|r| item(r.get().to_string(), out)),
                    // Not an array of items: kept as one opaque item.
                    Err(_) => item(
                        object(&[
                            ("type", text("reasoning")),
                            ("summary", "[]".to_string()),
                            ("content", text(reasoning)),
                        ]),
                        out,
                    ),
                }
            }
            if m.content.is_some() {
                let phase = m.metadata.get(keys::CODEX_PHASE).map(String::as_str);
                item(message_payload("assistant", m.content.as_ref(), phase), out);
            }
            let listed = |key: &str, id: &str| {
                m.metadata
                    .get(key)
                    .is_some_and(|ids| ids.lines().any(|l| l == id))
            };
            let namespaces: serde_json::Map<String, Value> = m
                .metadata
                .get(keys::CODEX_NAMESPACES)
                .and_then(|n| serde_json::from_str(n).ok())
                .unwrap_or_default();
            for c in &m.tool_calls {
                let payload = if listed(keys::CUSTOM_CALLS, &c.id) {
                    let input = match serde_json::from_str::<Value>(&c.arguments) {
                        Ok(Value::Object(args)) => match args.get("input") {
                            Some(Value::String(s)) => s.clone(),
                            _ => c.arguments.clone(),
                        },
                        _ => c.arguments.clone(),
                    };
                    object(&[
                        ("type", text("custom_tool_call")),
                        ("status", text("completed")),
                        ("call_id", text(&c.id)),
                        ("name", text(&c.name)),
                        ("input", text(&input)),
                    ])
                } else if listed(keys::CODEX_LOCAL_SHELL_CALLS, &c.id) {
                    let action = match serde_json::from_str::<Value>(&c.arguments) {
                        Ok(v) => v.to_string(),
                        Err(_) => text(&c.arguments),
                    };
                    object(&[
                        ("type", text("local_shell_call")),
                        ("call_id", text(&c.id)),
                        ("status", text("completed")),
                        ("action", action),
                    ])
                } else {
                    let mut fields = vec![("type", text("function_call")), ("name", text(&c.name))];
                    if let Some(Value::String(ns)) = namespaces.get(&c.id) {
                        fields.push(("namespace", text(ns)));
                    }
                    fields.push(("arguments", text(&c.arguments)));
                    fields.push(("call_id", text(&c.id)));
                    object(&fields)
                };
                item(payload, out);
            }
        }
        Role::Tool => {
            let id = m.tool_call_id.as_deref().unwrap_or_default();
            let custom = custom
                || m.metadata
                    .get(keys::CUSTOM_CALLS)
                    .is_some_and(|ids| ids.lines().any(|l| l == id));
            let output = match &m.content {
                None => text(""),
                Some(Content::Text(t)) => text(t),
                Some(parts @ Content::Parts(_)) => content_array(parts, "input_text"),
            };
            let kind = if custom {
                "custom_tool_call_output"
            } else {
                "function_call_output"
            };
            let mut fields = vec![("type", text(kind)), ("call_id", text(id))];
            if let Some(name) = &m.name {
                fields.push(("name", text(name)));
            }
            fields.push(("output", output));
            item(object(&fields), out);
        }
    }
}

/// A `message` item's payload.
fn message_payload(role: &str, content: Option<&Content>, phase: Option<&str>) -> String {
    let kind = read::text_kind(role);
    let mut fields = vec![("type", text("message")), ("role", text(role))];
    fields.push((
        "content",
        content.map_or_else(|| "[]".to_string(), |c| content_array(c, kind)),
    ));
    if let Some(phase) = phase {
        fields.push(("phase", text(phase)));
    }
    object(&fields)
}

/// A message's text, or its text parts joined with `\n`.
fn plain_text(content: Option<&Content>) -> String {
    match content {
        None => String::new(),
        Some(Content::Text(t)) => t.clone(),
        Some(Content::Parts(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}
