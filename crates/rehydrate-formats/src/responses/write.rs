//! The OpenAI Responses input writer (docs/FORMATS.md, "Export", "OpenAI Responses input"): a
//! group read from a Responses input that still decodes to its messages is written as its
//! items verbatim; every other message is written afresh as message, function_call and
//! function_call_output items (custom ones as custom items).

use std::borrow::Borrow;
use std::collections::HashMap;

use rehydrate_model::{Content, Message, REDUCTION_METADATA_KEY, Role, write_json_value};
use serde_json::Value;
use serde_json::value::RawValue;

use super::read::{REASONING_KEY, decode};
use crate::keys;
use crate::request::{has_content, left_out_of_bodies, write_str};
use crate::source::{self, Document};

/// The metadata keys of this format compared to decide whether a group changed.
const KEYS: [&str; 4] = [
    REASONING_KEY,
    keys::CUSTOM_CALLS,
    keys::RESPONSES_ROLE,
    keys::RESPONSES_PHASE,
];

/// The Responses body of `messages`: `{<document keys>,"input":[…]}`, or the bare array when
/// the session was read from one (its [`keys::DOCUMENT`] is `[]`).
pub(crate) fn write_responses<M: Borrow<Message>>(messages: &[M]) -> Vec<u8> {
    let document = Document::of(messages, crate::Format::Responses);
    let mut items: Vec<Vec<u8>> = Vec::new();
    // Another format's sources are never written into a Responses input.
    let own = source::read_as(messages, crate::Format::Responses);
    let groups = source::groups(messages);
    let custom_ids = custom_calls(messages);
    // A string `input` read back unchanged, when it is all there is.
    let mut lone_string: Option<&str> = None;
    let only = groups.len() == 1;
    for group in &groups {
        let decoded = group
            .source
            .filter(|_| own)
            .and_then(|s| decode(s).map(|read| (s, read)));
        if let Some((text, read)) = &decoded
            && source::unchanged(&read.messages, messages, &group.members, &KEYS)
        {
            let raws = source::items(text).unwrap_or_default();
            if only && raws.len() == 1 && raws[0].get().trim_start().starts_with('"') {
                lone_string = Some(raws[0].get());
            }
            for raw in raws {
                if raw.get().trim_start().starts_with('"') {
                    // A string `input` among other items: a user message item.
                    let mut out = Vec::new();
                    out.extend_from_slice(b"{\"type\":\"message\",\"role\":\"user\",\"content\":");
                    out.extend_from_slice(raw.get().as_bytes());
                    out.push(b'}');
                    items.push(out);
                } else {
                    items.push(raw.get().as_bytes().to_vec());
                }
            }
            continue;
        }
        if let Some((_, read)) = &decoded {
            items.extend(read.opaque.iter().map(|o| o.as_bytes().to_vec()));
        }
        for &i in &group.members {
            if let Some(m) = messages.get(i) {
                let m = m.borrow();
                // A pairing repair's synthetic result (it carries the reduction key) answers
                // a custom call with an output of its kind; a result read from a body keeps
                // the kind it was written with.
                let custom = m.metadata.contains_key(REDUCTION_METADATA_KEY)
                    && m.tool_call_id
                        .as_deref()
                        .and_then(|id| custom_ids.get(id))
                        .is_some_and(|&at| at < i);
                fresh_items(m, custom, &mut items);
            }
        }
    }
    let mut out = Vec::new();
    let array = |out: &mut Vec<u8>| {
        out.push(b'[');
        for (k, item) in items.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            out.extend_from_slice(item);
        }
        out.push(b']');
    };
    match document {
        Document::BareArray => array(&mut out),
        Document::Object(_) | Document::None => {
            document.open_object(&["input"], &mut out);
            out.extend_from_slice(b"\"input\":");
            match lone_string {
                Some(text) => out.extend_from_slice(text.as_bytes()),
                None => array(&mut out),
            }
            out.push(b'}');
        }
    }
    out
}

/// The calls written as `custom_tool_call` items (listed in their message's
/// [`keys::CUSTOM_CALLS`], with an input to write), each id with the index of its first
/// message: a later pairing repair's synthetic result for one is written as a
/// `custom_tool_call_output`, since the API pairs an output with a call of its kind.
fn custom_calls<M: Borrow<Message>>(messages: &[M]) -> HashMap<&str, usize> {
    let mut out = HashMap::new();
    for (i, m) in messages.iter().map(Borrow::borrow).enumerate() {
        if m.role != Role::Assistant {
            continue;
        }
        let listed = m.metadata.get(keys::CUSTOM_CALLS);
        for c in &m.tool_calls {
            if listed.is_some_and(|ids| ids.split('\n').any(|l| l == c.id))
                && custom_input(&c.arguments).is_some()
            {
                out.entry(c.id.as_str()).or_insert(i);
            }
        }
    }
    out
}

/// The items of one message written afresh; none for a message both bodies leave out.
/// `custom`: a tool result of an earlier custom call ([`custom_calls`]).
fn fresh_items(m: &Message, custom: bool, items: &mut Vec<Vec<u8>>) {
    if left_out_of_bodies(m) {
        return;
    }
    let meta = |key: &str| m.metadata.get(key).map(String::as_str);
    match m.role {
        Role::System | Role::User => {
            let role = match m.role {
                Role::User => "user",
                _ if meta(keys::RESPONSES_ROLE) == Some("developer")
                    || meta(keys::OPENAI_ROLE) == Some("developer") =>
                {
                    "developer"
                }
                _ => "system",
            };
            let mut out = Vec::new();
            out.extend_from_slice(b"{\"type\":\"message\",\"role\":\"");
            out.extend_from_slice(role.as_bytes());
            out.extend_from_slice(b"\",\"content\":");
            write_content(m.content.as_ref(), "input_text", &mut out);
            out.push(b'}');
            items.push(out);
        }
        Role::Assistant => {
            for raw in reasoning_items(m) {
                items.push(raw.get().as_bytes().to_vec());
            }
            if has_content(m) {
                let mut out = Vec::new();
                out.extend_from_slice(b"{\"type\":\"message\",\"role\":\"assistant\",\"content\":");
                write_content(m.content.as_ref(), "output_text", &mut out);
                if let Some(phase) = meta(keys::RESPONSES_PHASE) {
                    out.extend_from_slice(b",\"phase\":");
                    write_str(phase, &mut out);
                }
                out.push(b'}');
                items.push(out);
            }
            let custom: Vec<&str> = meta(keys::CUSTOM_CALLS)
                .map(|c| c.split('\n').collect())
                .unwrap_or_default();
            for call in &m.tool_calls {
                let mut out = Vec::new();
                match custom_input(&call.arguments).filter(|_| custom.contains(&call.id.as_str())) {
                    Some(input) => {
                        out.extend_from_slice(b"{\"type\":\"custom_tool_call\",\"call_id\":");
                        write_str(&call.id, &mut out);
                        out.extend_from_slice(b",\"name\":");
                        write_str(&call.name, &mut out);
                        out.extend_from_slice(b",\"input\":");
                        write_str(&input, &mut out);
                    }
                    None => {
                        out.extend_from_slice(b"{\"type\":\"function_call\",\"call_id\":");
                        write_str(&call.id, &mut out);
                        out.extend_from_slice(b",\"name\":");
                        write_str(&call.name, &mut out);
                        out.extend_from_slice(b",\"arguments\":");
                        write_str(&call.arguments, &mut out);
                    }
                }
                out.push(b'}');
                items.push(out);
            }
        }
        Role::Tool => {
            let id = m.tool_call_id.as_deref().unwrap_or_default();
            let custom = custom || meta(keys::CUSTOM_CALLS) == Some(id);
            let mut out = Vec::new();
            out.extend_from_slice(if custom {
                b"{\"type\":\"custom_tool_call_output\",\"call_id\":"
            } else {
                b"{\"type\":\"function_call_output\",\"call_id\":"
            });
            write_str(id, &mut out);
            out.extend_from_slice(b",\"output\":");
            write_content(m.content.as_ref(), "input_text", &mut out);
            out.push(b'}');
            items.push(out);
        }
    }
}

/// The reasoning items kept on an assistant message: metadata `reasoning` when it is a JSON
/// array of objects of `type` `reasoning` (as the Responses and Codex importers write it);
/// anything else under that key (another format's reasoning) is not an item and is left out.
fn reasoning_items(m: &Message) -> Vec<&RawValue> {
    let Some(text) = m.metadata.get(REASONING_KEY) else {
        return Vec::new();
    };
    let Ok(raws) = serde_json::from_str::<Vec<&RawValue>>(text) else {
        return Vec::new();
    };
    let all_reasoning = raws.iter().all(|raw| {
        serde_json::from_str::<Value>(raw.get())
            .is_ok_and(|v| v.get("type").and_then(Value::as_str) == Some("reasoning"))
    });
    if all_reasoning { raws } else { Vec::new() }
}

/// The `input` of custom-call arguments `{"input":"…"}`.
fn custom_input(arguments: &str) -> Option<String> {
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(arguments) else {
        return None;
    };
    match (obj.len(), obj.get("input")) {
        (1, Some(Value::String(input))) => Some(input.clone()),
        _ => None,
    }
}

/// Content as a Responses `content` or `output`: text as a string (none as `""`), parts in
/// the Responses shape (`text_type` for text parts).
fn write_content(content: Option<&Content>, text_type: &str, out: &mut Vec<u8>) {
    match content {
        None => out.extend_from_slice(b"\"\""),
        Some(Content::Text(text)) => write_str(text, out),
        Some(Content::Parts(parts)) => {
            out.push(b'[');
            for (k, part) in parts.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                write_json_value(&responses_part(part, text_type), out);
            }
            out.push(b']');
        }
    }
}

/// A canonical content part in the Responses shape: a text part as `text_type`, an
/// `image_url` part or an Anthropic `image` block as `input_image`; any other part as it is.
fn responses_part(part: &Value, text_type: &str) -> Value {
    let kind = part.get("type").and_then(Value::as_str);
    match kind {
        Some("text") => match part.get("text") {
            Some(Value::String(text)) => serde_json::json!({"type": text_type, "text": text}),
            _ => part.clone(),
        },
        Some("image_url") => {
            let image = part.get("image_url");
            let url = image
                .and_then(|i| i.get("url"))
                .or(image)
                .and_then(Value::as_str);
            match url {
                Some(url) => {
                    let mut out = serde_json::json!({"type": "input_image", "image_url": url});
                    if let Some(detail) = image.and_then(|i| i.get("detail")) {
                        out["detail"] = detail.clone();
                    }
                    out
                }
                None => part.clone(),
            }
        }
        Some("image") => {
            let src = part.get("source");
            let get = |k: &str| src.and_then(|s| s.get(k)).and_then(Value::as_str);
            match (get("type"), get("media_type"), get("data"), get("url")) {
                (Some("base64"), Some(media), Some(data), _) => serde_json::json!({
                    "type": "input_image",
                    "image_url": format!("data:{media};base64,{data}"),
                }),
                (Some("url"), _, _, Some(url)) => {
                    serde_json::json!({"type": "input_image", "image_url": url})
                }
                _ => part.clone(),
            }
        }
        _ => part.clone(),
    }
}
