//! The Anthropic Messages request body importer: an object with a `messages` array, an
//! optional `system` and any other keys (docs/FORMATS.md, "Importers", "Anthropic Messages
//! body").

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rehydrate_model::{
    Content, IS_ERROR_METADATA_KEY, Message, REDACTED_THINKING_METADATA_KEY, Role,
    THINKING_METADATA_KEY, THINKING_SIGNATURE_METADATA_KEY, ToolCall,
};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::json::{self, FieldError};
use crate::{Error, Format, Import, Warning, keys, source};

/// The content block types of the Anthropic Messages API other than `text`: the ones OpenAI
/// chat content parts never have (detection reads a body holding one as Anthropic), and with
/// `text` every type the reader takes without a warning.
pub(crate) const BLOCK_TYPES: [&str; 17] = [
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "search_result",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
];

fn not_a_session(path: &Path) -> Error {
    Error::NotASession {
        path: path.to_path_buf(),
        format: Format::Anthropic,
        expected: "a JSON object with a `messages` array",
    }
}

/// Imports an Anthropic Messages body.
pub(crate) fn import(path: &Path, text: &str) -> Result<Import, Error> {
    let top: &RawValue =
        serde_json::from_str(text).map_err(|e| json::invalid_json(path, None, &e))?;
    if !top.get().trim_start().starts_with('{') {
        return Err(not_a_session(path));
    }
    let members: BTreeMap<String, &RawValue> =
        serde_json::from_str(top.get()).map_err(|e| json::invalid_json(path, None, &e))?;
    let raw_messages = members.get("messages").ok_or_else(|| not_a_session(path))?;
    if !raw_messages.get().trim_start().starts_with('[') {
        return Err(not_a_session(path));
    }
    let raw_messages: Vec<&RawValue> =
        serde_json::from_str(raw_messages.get()).map_err(|e| json::invalid_json(path, None, &e))?;
    let mut messages = Vec::new();
    let mut warnings: Vec<(usize, Warning)> = Vec::new();
    if let Some(system) = members.get("system") {
        let m = system_message(system).map_err(|e| e.into_error(path, None))?;
        messages.extend(with_source(vec![m], system.get()));
    }
    let mut calls: HashMap<String, (usize, bool)> = HashMap::new();
    let mut call_order: Vec<String> = Vec::new();
    for (i, raw) in raw_messages.iter().enumerate() {
        let field = json::item("messages", i);
        let group = message(raw, &field, &mut |w| warnings.push((i, w)))
            .map_err(|e| e.into_error(path, None))?;
        for m in &group {
            for call in &m.tool_calls {
                if calls.insert(call.id.clone(), (i, false)).is_some() {
                    warnings.push((
                        i,
                        Warning::new(format!("{field}: tool_use id {} is used twice", call.id)),
                    ));
                }
                call_order.push(call.id.clone());
            }
            if m.role == Role::Tool
                && let Some(id) = &m.tool_call_id
            {
                match calls.get_mut(id) {
                    None => warnings.push((
                        i,
                        Warning::new(format!("{field}: tool_result {id} has no tool_use")),
                    )),
                    Some((_, answered)) if *answered => warnings.push((
                        i,
                        Warning::new(format!("{field}: second tool_result for tool_use {id}")),
                    )),
                    Some((_, answered)) => *answered = true,
                }
            }
        }
        if group.is_empty() {
            warnings.push((
                i,
                Warning::new(format!(
                    "{field}: message makes no canonical message; not kept"
                )),
            ));
        }
        messages.extend(with_source(group, raw.get()));
    }
    for id in call_order {
        if let Some((i, false)) = calls.get(&id).copied() {
            calls.insert(id.clone(), (i, true));
            warnings.push((
                i,
                Warning::new(format!(
                    "{}: tool_use {id} has no tool_result",
                    json::item("messages", i)
                )),
            ));
        }
    }
    if let Some(first) = messages.first_mut() {
        first.metadata.insert(
            keys::DOCUMENT.to_string(),
            source::document_text(&members, &["messages", "system"]),
        );
        first.metadata.insert(
            keys::DOCUMENT_FORMAT.to_string(),
            Format::Anthropic.as_str().to_string(),
        );
    }
    warnings.sort_by_key(|(i, _)| *i);
    Ok(Import {
        format: Format::Anthropic,
        messages,
        warnings: warnings.into_iter().map(|(_, w)| w).collect(),
    })
}

/// `group` with the source `[raw]` on its first message and the part mark on the others.
fn with_source(mut group: Vec<Message>, raw: &str) -> Vec<Message> {
    for (k, m) in group.iter_mut().enumerate() {
        if k == 0 {
            m.metadata
                .insert(keys::SOURCE.to_string(), source::array_text([raw]));
        } else {
            m.metadata
                .insert(keys::SOURCE_PART.to_string(), "true".to_string());
        }
    }
    group
}

/// Reads a group's source (`[<message>]`, or `[<system value>]`) on its own; `None` when it
/// does not read.
pub(crate) fn decode(source_text: &str) -> Option<Vec<Message>> {
    let items = source::items(source_text)?;
    let [raw] = items.as_slice() else {
        return None;
    };
    if raw.get().trim_start().starts_with('{') {
        message(raw, "messages[0]", &mut |_| {}).ok()
    } else {
        system_message(raw).ok().map(|m| vec![m])
    }
}

/// The system message of a `system` value: a string as text, text blocks as content parts
/// kept as they are (`cache_control` included).
fn system_message(raw: &RawValue) -> Result<Message, FieldError> {
    let value: Value = serde_json::from_str(raw.get())
        .map_err(|e| FieldError::new("system", format!("invalid JSON: {e}")))?;
    let content = match value {
        Value::String(text) => Content::Text(text),
        Value::Array(blocks) => Content::Parts(blocks),
        other => {
            return Err(FieldError::new(
                "system",
                format!(
                    "expected a string or an array of text blocks, got {}",
                    json::kind(&other)
                ),
            ));
        }
    };
    Ok(Message {
        role: Role::System,
        content: Some(content),
        ..Message::default()
    })
}

/// One block of a message: its parsed value, and the raw text of a `tool_use` block's `input`.
struct Block {
    value: Value,
    input: Option<String>,
}

/// Reads the blocks of a content array, keeping each `tool_use` input's raw text.
fn blocks(raw: &RawValue, field: &str) -> Result<Vec<Block>, FieldError> {
    let raws: Vec<&RawValue> = serde_json::from_str(raw.get())
        .map_err(|e| FieldError::new(field, format!("invalid JSON: {e}")))?;
    raws.into_iter()
        .map(|raw| {
            let value: Value = serde_json::from_str(raw.get())
                .map_err(|e| FieldError::new(field, format!("invalid JSON: {e}")))?;
            let input = if value.get("type").and_then(Value::as_str) == Some("tool_use") {
                serde_json::from_str::<BTreeMap<String, &RawValue>>(raw.get())
                    .ok()
                    .and_then(|members| members.get("input").map(|r| r.get().to_string()))
            } else {
                None
            };
            Ok(Block { value, input })
        })
        .collect()
}

/// One Anthropic message at `field` as canonical messages: an assistant message as one; a
/// user message as one tool message per `tool_result` block and one user message per run of
/// other blocks, in order.
fn message(
    raw: &RawValue,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Result<Vec<Message>, FieldError> {
    let members: BTreeMap<String, &RawValue> = serde_json::from_str(raw.get())
        .map_err(|_| FieldError::new(field, "expected an object"))?;
    let role_field = json::child(field, "role");
    let role: Value = match members.get("role") {
        Some(r) => serde_json::from_str(r.get()).unwrap_or(Value::Null),
        None => Value::Null,
    };
    let assistant = match role.as_str() {
        Some("user") => false,
        Some("assistant") => true,
        Some(other) => {
            return Err(FieldError::new(
                role_field,
                format!(
                    "unknown role `{}` (expected user or assistant)",
                    json::clip(other)
                ),
            ));
        }
        None => return Err(FieldError::new(role_field, "missing (expected a string)")),
    };
    let role = if assistant {
        Role::Assistant
    } else {
        Role::User
    };
    let content_field = json::child(field, "content");
    let Some(content) = members.get("content") else {
        warn(Warning::new(format!("{field}: message has no `content`")));
        return Ok(vec![Message {
            role,
            ..Message::default()
        }]);
    };
    let text = content.get().trim_start();
    if text.starts_with('"') || text.starts_with('n') {
        let value: Value = serde_json::from_str(content.get()).unwrap_or(Value::Null);
        return Ok(vec![Message {
            role,
            content: value.as_str().map(|t| Content::Text(t.to_string())),
            ..Message::default()
        }]);
    }
    if !text.starts_with('[') {
        let value: Value = serde_json::from_str(content.get()).unwrap_or(Value::Null);
        return Err(FieldError::new(
            content_field,
            format!(
                "expected a string or an array of content blocks, got {}",
                json::kind(&value)
            ),
        ));
    }
    let blocks = blocks(content, &content_field)?;
    if assistant {
        Ok(vec![assistant_message(blocks, &content_field, warn)])
    } else {
        Ok(user_messages(blocks, &content_field, warn))
    }
}

/// The `type` of a block, checked against the known ones (a warning names an unknown one).
fn block_type<'v>(
    value: &'v Value,
    field: &str,
    j: usize,
    warn: &mut dyn FnMut(Warning),
) -> Option<&'v str> {
    let kind = value.get("type").and_then(Value::as_str);
    match kind {
        Some(k) if k == "text" || BLOCK_TYPES.contains(&k) => {}
        Some(k) => warn(Warning::new(format!(
            "{}: unknown block type `{}`, kept as a content part",
            json::item(field, j),
            json::clip(k)
        ))),
        None => warn(Warning::new(format!(
            "{}: block has no `type`, kept as a content part",
            json::item(field, j)
        ))),
    }
    kind
}

fn assistant_message(blocks: Vec<Block>, field: &str, warn: &mut dyn FnMut(Warning)) -> Message {
    let mut m = Message {
        role: Role::Assistant,
        ..Message::default()
    };
    let mut parts = Vec::new();
    let (mut thinking, mut signatures, mut redacted) = (Vec::new(), Vec::new(), Vec::new());
    let mut any_part = false;
    for (j, block) in blocks.into_iter().enumerate() {
        let kind = block_type(&block.value, field, j, warn).map(str::to_string);
        let get = |k: &str| {
            block
                .value
                .get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        match kind.as_deref() {
            Some("thinking") if get("thinking").is_some() => {
                thinking.push(get("thinking").unwrap_or_default());
                signatures.push(get("signature").unwrap_or_default());
            }
            Some("redacted_thinking") if get("data").is_some() => {
                redacted.push(get("data").unwrap_or_default());
            }
            Some("tool_use") if get("id").is_some() && get("name").is_some() => {
                let id = get("id").unwrap_or_default();
                let arguments = match block.input {
                    Some(input) => input,
                    None => {
                        warn(Warning::new(format!(
                            "{}: tool_use {id} has no `input`; arguments set to {{}}",
                            json::item(field, j)
                        )));
                        "{}".to_string()
                    }
                };
                m.tool_calls.push(ToolCall {
                    id,
                    name: get("name").unwrap_or_default(),
                    arguments,
                });
            }
            _ => {
                any_part = true;
                parts.push(block.value);
            }
        }
    }
    if any_part {
        m.content = Some(Content::Parts(parts));
    }
    for (key, texts, sep) in [
        (THINKING_METADATA_KEY, thinking, "\n\n"),
        (THINKING_SIGNATURE_METADATA_KEY, signatures, "\n"),
        (REDACTED_THINKING_METADATA_KEY, redacted, "\n"),
    ] {
        if !texts.is_empty() {
            m.metadata.insert(key.to_string(), texts.join(sep));
        }
    }
    m
}

fn user_messages(blocks: Vec<Block>, field: &str, warn: &mut dyn FnMut(Warning)) -> Vec<Message> {
    let mut out = Vec::new();
    let mut run: Vec<Value> = Vec::new();
    let flush = |run: &mut Vec<Value>, out: &mut Vec<Message>| {
        if !run.is_empty() {
            out.push(Message {
                role: Role::User,
                content: Some(Content::Parts(std::mem::take(run))),
                ..Message::default()
            });
        }
    };
    let empty = blocks.is_empty();
    for (j, block) in blocks.into_iter().enumerate() {
        let kind = block_type(&block.value, field, j, warn);
        if kind != Some("tool_result") {
            run.push(block.value);
            continue;
        }
        flush(&mut run, &mut out);
        let Value::Object(mut obj) = block.value else {
            continue;
        };
        let at = json::item(field, j);
        let id = match obj.remove("tool_use_id") {
            Some(Value::String(id)) => Some(id),
            _ => {
                warn(Warning::new(format!(
                    "{at}: tool_result has no `tool_use_id`"
                )));
                None
            }
        };
        let content = match obj.remove("content") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(Content::Text(text)),
            Some(Value::Array(parts)) => Some(Content::Parts(parts)),
            Some(other) => {
                warn(Warning::new(format!(
                    "{at}: tool_result content is {}, kept as one content part",
                    json::kind(&other)
                )));
                Some(Content::Parts(vec![other]))
            }
        };
        let mut m = Message {
            role: Role::Tool,
            content,
            tool_call_id: id,
            ..Message::default()
        };
        match obj.remove("is_error") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => {
                m.metadata
                    .insert(IS_ERROR_METADATA_KEY.to_string(), "true".to_string());
            }
            Some(other) => {
                warn(Warning::new(format!(
                    "{at}: tool_result `is_error` is {}, taken as a failure",
                    json::kind(&other)
                )));
                m.metadata
                    .insert(IS_ERROR_METADATA_KEY.to_string(), "true".to_string());
            }
        }
        out.push(m);
    }
    flush(&mut run, &mut out);
    if empty {
        out.push(Message {
            role: Role::User,
            content: Some(Content::Parts(Vec::new())),
            ..Message::default()
        });
    }
    out
}
