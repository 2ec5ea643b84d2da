//! The OpenAI Responses input importer: a JSON array of input items, or an object whose `input`
//! is such an array or a string (docs/FORMATS.md, "Importers", "OpenAI Responses input").

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rehydrate_model::{Content, Message, Role, ToolCall};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::json::{self, FieldError};
use crate::{Error, Format, Import, Warning, keys, source};

/// Item types that are model items of another kind than rehydrate's messages: built-in tool
/// calls and their outputs, references to stored items, compaction. Kept in the source, no
/// message and no warning.
const OPAQUE_TYPES: [&str; 22] = [
    "item_reference",
    "web_search_call",
    "file_search_call",
    "computer_call",
    "computer_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "image_generation_call",
    "code_interpreter_call",
    "tool_search_call",
    "tool_search_output",
    "compaction",
    "compaction_summary",
    "context_compaction",
];

/// Item types this importer reads into messages.
const MESSAGE_TYPES: [&str; 6] = [
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "reasoning",
];

/// Whether `kind` is an input item type this crate knows (detection: a bare array whose first
/// element has such a `type` is a Responses input).
pub(crate) fn is_item_type(kind: &str) -> bool {
    MESSAGE_TYPES.contains(&kind) || OPAQUE_TYPES.contains(&kind)
}

fn not_a_session(path: &Path) -> Error {
    Error::NotASession {
        path: path.to_path_buf(),
        format: Format::Responses,
        expected: "a JSON array of input items or an object with an `input` array or string",
    }
}

/// Imports a Responses input document.
pub(crate) fn import(path: &Path, text: &str) -> Result<Import, Error> {
    let top: &RawValue =
        serde_json::from_str(text).map_err(|e| json::invalid_json(path, None, &e))?;
    let top_text = top.get().trim_start();
    let (prefix, document, items, string_input) = if top_text.starts_with('[') {
        let items: Vec<&RawValue> =
            serde_json::from_str(top.get()).map_err(|e| json::invalid_json(path, None, &e))?;
        ("", "[]".to_string(), items, false)
    } else if top_text.starts_with('{') {
        let members: BTreeMap<String, &RawValue> =
            serde_json::from_str(top.get()).map_err(|e| json::invalid_json(path, None, &e))?;
        let input = members.get("input").ok_or_else(|| not_a_session(path))?;
        let document = source::document_text(&members, &["input"]);
        let input_text = input.get().trim_start();
        if input_text.starts_with('[') {
            let items: Vec<&RawValue> = serde_json::from_str(input.get())
                .map_err(|e| json::invalid_json(path, None, &e))?;
            ("input", document, items, false)
        } else if input_text.starts_with('"') {
            ("input", document, vec![*input], true)
        } else {
            return Err(not_a_session(path));
        }
    } else {
        return Err(not_a_session(path));
    };
    if !string_input {
        for (i, raw) in items.iter().enumerate() {
            if !raw.get().trim_start().starts_with('{') {
                let v: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                return Err(FieldError::new(
                    json::item(prefix, i),
                    format!("expected an object, got {}", json::kind(&v)),
                )
                .into_error(path, None));
            }
        }
    }
    let read = read_items(&items, prefix).map_err(|e| e.into_error(path, None))?;
    let mut messages = read.messages;
    let mut warnings = read.warnings;
    if messages.is_empty() && !items.is_empty() {
        warnings.push((
            0,
            Warning::new(format!(
                "{}: no item makes a message; the input is not kept",
                if prefix.is_empty() { "[]" } else { prefix }
            )),
        ));
    }
    if let Some(first) = messages.first_mut() {
        first.metadata.insert(keys::DOCUMENT.to_string(), document);
        first.metadata.insert(
            keys::DOCUMENT_FORMAT.to_string(),
            Format::Responses.as_str().to_string(),
        );
    }
    warnings.sort_by_key(|(i, _)| *i);
    Ok(Import {
        format: Format::Responses,
        messages,
        warnings: warnings.into_iter().map(|(_, w)| w).collect(),
    })
}

/// Reads the messages of a group's source text on its own (the writer's test of whether the
/// group changed); `None` when it does not read.
pub(crate) fn decode(source_text: &str) -> Option<Read> {
    let items = source::items(source_text)?;
    read_items(&items, "").ok()
}

/// What [`read_items`] made of a list of items.
pub(crate) struct Read {
    /// The messages, each group's first with [`keys::SOURCE`], later ones with
    /// [`keys::SOURCE_PART`].
    pub(crate) messages: Vec<Message>,
    /// Warnings, each with the index of the item it is about.
    pub(crate) warnings: Vec<(usize, Warning)>,
    /// The items that make no message and are not reasoning (kept verbatim when a group is
    /// written afresh), as raw texts, in order.
    pub(crate) opaque: Vec<String>,
}

/// What one item is.
enum Item {
    /// A message of a role; `assistant` ones can take the calls that follow.
    Message(Message),
    /// A `function_call` or `custom_tool_call` (`true`).
    Call(ToolCall, bool),
    /// A tool result (a custom tool call's carries [`keys::CUSTOM_CALLS`]).
    Output(Message),
    /// A `reasoning` item.
    Reasoning,
    /// An item that makes no message.
    Opaque,
}

/// The assistant message being gathered (beside the end of its items).
struct Open {
    message: Message,
    custom: Vec<String>,
    /// Whether calls may still join (no reasoning item came since).
    takes_calls: bool,
}

/// Reads `items` (raw texts; a lone JSON string is a string `input`) into messages, grouped:
/// reasoning items go to the next assistant item, an assistant message item takes the calls
/// right after it, consecutive calls are one assistant message; items that make no message
/// belong to the next group (the last group takes those after it).
pub(crate) fn read_items(items: &[&RawValue], prefix: &str) -> Result<Read, FieldError> {
    let mut warnings: Vec<(usize, Warning)> = Vec::new();
    // Each group: (first item, end item exclusive, messages).
    let mut groups: Vec<(usize, usize, Vec<Message>)> = Vec::new();
    let mut opaque: Vec<String> = Vec::new();
    let mut start = 0; // first item not in a group yet
    let mut reasoning: Vec<usize> = Vec::new();
    let mut open: Option<(Open, usize)> = None; // and the end of its last model item
    let mut calls: HashMap<String, (usize, bool)> = HashMap::new(); // id -> (item, answered)
    let mut call_order: Vec<String> = Vec::new();

    let close = |open: &mut Option<(Open, usize)>,
                 groups: &mut Vec<(usize, usize, Vec<Message>)>,
                 start: &mut usize| {
        if let Some((o, end)) = open.take() {
            let mut m = o.message;
            if !o.custom.is_empty() {
                m.metadata
                    .insert(keys::CUSTOM_CALLS.to_string(), o.custom.join("\n"));
            }
            groups.push((*start, end, vec![m]));
            *start = end;
        }
    };
    let orphans = |reasoning: &mut Vec<usize>, warnings: &mut Vec<(usize, Warning)>| {
        for i in reasoning.drain(..) {
            warnings.push((
                i,
                Warning::new(format!(
                    "{}: reasoning item has no following item; kept in the source only",
                    json::item(prefix, i)
                )),
            ));
        }
    };

    for (i, raw) in items.iter().enumerate() {
        let field = json::item(prefix, i);
        let item = item(raw, &field, items.len() == 1, &mut |w| {
            warnings.push((i, w))
        })?;
        match item {
            Item::Opaque => opaque.push(raw.get().to_string()),
            Item::Reasoning => {
                close(&mut open, &mut groups, &mut start);
                reasoning.push(i);
            }
            Item::Message(m) if m.role == Role::Assistant => {
                close(&mut open, &mut groups, &mut start);
                open = Some(open_step(m, &mut reasoning, items, i));
            }
            Item::Call(call, custom) => {
                if calls.contains_key(&call.id) {
                    warnings.push((
                        i,
                        Warning::new(format!("{field}: call id {} is used twice", call.id)),
                    ));
                }
                calls.insert(call.id.clone(), (i, false));
                call_order.push(call.id.clone());
                let joins = matches!(&open, Some((o, _)) if o.takes_calls) && reasoning.is_empty();
                if !joins {
                    close(&mut open, &mut groups, &mut start);
                    let m = Message {
                        role: Role::Assistant,
                        ..Message::default()
                    };
                    open = Some(open_step(m, &mut reasoning, items, i));
                }
                if let Some((o, end)) = &mut open {
                    if custom {
                        o.custom.push(call.id.clone());
                    }
                    o.message.tool_calls.push(call);
                    *end = i + 1;
                }
            }
            Item::Message(m) | Item::Output(m) => {
                close(&mut open, &mut groups, &mut start);
                orphans(&mut reasoning, &mut warnings);
                if m.role == Role::Tool
                    && let Some(id) = &m.tool_call_id
                {
                    match calls.get_mut(id) {
                        None => warnings.push((
                            i,
                            Warning::new(format!("{field}: output for call {id} has no call")),
                        )),
                        Some((_, answered)) if *answered => warnings.push((
                            i,
                            Warning::new(format!("{field}: second output for call {id}")),
                        )),
                        Some((_, answered)) => *answered = true,
                    }
                }
                groups.push((start, i + 1, vec![m]));
                start = i + 1;
            }
        }
    }
    close(&mut open, &mut groups, &mut start);
    orphans(&mut reasoning, &mut warnings);
    for id in call_order {
        if let Some((i, false)) = calls.get(&id).copied() {
            calls.insert(id.clone(), (i, true));
            warnings.push((
                i,
                Warning::new(format!(
                    "{}: call {id} has no output",
                    json::item(prefix, i)
                )),
            ));
        }
    }
    if let Some(last) = groups.last_mut() {
        last.1 = items.len();
    }
    let mut messages = Vec::new();
    for (first, end, group) in groups {
        let text = source::array_text(
            items
                .get(first..end)
                .unwrap_or_default()
                .iter()
                .map(|r| r.get()),
        );
        for (k, mut m) in group.into_iter().enumerate() {
            if k == 0 {
                m.metadata.insert(keys::SOURCE.to_string(), text.clone());
            } else {
                m.metadata
                    .insert(keys::SOURCE_PART.to_string(), "true".to_string());
            }
            messages.push(m);
        }
    }
    Ok(Read {
        messages,
        warnings,
        opaque,
    })
}

/// Opens an assistant step with `m`, the item at `i`: the pending reasoning items go on it,
/// and calls may join it. With the end of its items (`i + 1`).
fn open_step(
    mut m: Message,
    reasoning: &mut Vec<usize>,
    items: &[&RawValue],
    i: usize,
) -> (Open, usize) {
    attach_reasoning(&mut m, reasoning, items);
    let open = Open {
        message: m,
        custom: Vec::new(),
        takes_calls: true,
    };
    (open, i + 1)
}

/// Puts the raw texts of the pending reasoning items on `m` (metadata `reasoning`).
fn attach_reasoning(m: &mut Message, reasoning: &mut Vec<usize>, items: &[&RawValue]) {
    if reasoning.is_empty() {
        return;
    }
    let text = source::array_text(
        reasoning
            .drain(..)
            .filter_map(|i| items.get(i))
            .map(|r| r.get()),
    );
    m.metadata.insert(REASONING_KEY.to_string(), text);
}

/// The metadata key of the reasoning items before an assistant message.
pub(crate) const REASONING_KEY: &str = "reasoning";

/// Reads one item at `field`; `lone` allows a JSON string (a string `input`).
fn item(
    raw: &RawValue,
    field: &str,
    lone: bool,
    warn: &mut dyn FnMut(Warning),
) -> Result<Item, FieldError> {
    let value: Value = serde_json::from_str(raw.get())
        .map_err(|e| FieldError::new(field, format!("invalid JSON: {e}")))?;
    let mut obj = match value {
        Value::String(text) if lone => {
            return Ok(Item::Message(Message::text(Role::User, text)));
        }
        other => json::into_object(other, field)?,
    };
    let kind = match obj.get("type") {
        None | Some(Value::Null) if obj.contains_key("role") => "message".to_string(),
        Some(Value::String(kind)) => kind.clone(),
        None | Some(Value::Null) => {
            warn(Warning::new(format!(
                "{field}: item has no `type`, kept in the source only"
            )));
            return Ok(Item::Opaque);
        }
        Some(other) => {
            return Err(FieldError::new(
                json::child(field, "type"),
                format!("expected a string, got {}", json::kind(other)),
            ));
        }
    };
    match kind.as_str() {
        "message" => message(obj, field).map(Item::Message),
        "function_call" => {
            let id = json::take_string(&mut obj, "call_id", field)?;
            let (name, arguments) = crate::openai::name_and_arguments(obj, field, warn)?;
            if serde_json::from_str::<serde::de::IgnoredAny>(&arguments).is_err() {
                warn(Warning::new(format!(
                    "{field}: call {id} has arguments that are not JSON"
                )));
            }
            Ok(Item::Call(
                ToolCall {
                    id,
                    name,
                    arguments,
                },
                false,
            ))
        }
        "custom_tool_call" => {
            let id = json::take_string(&mut obj, "call_id", field)?;
            let name = json::take_string(&mut obj, "name", field)?;
            let input = json::take_string(&mut obj, "input", field)?;
            Ok(Item::Call(
                ToolCall {
                    id,
                    name,
                    arguments: json!({ "input": input }).to_string(),
                },
                true,
            ))
        }
        "function_call_output" | "custom_tool_call_output" => {
            let custom = kind == "custom_tool_call_output";
            let id = json::take_string(&mut obj, "call_id", field)?;
            let content = match obj.remove("output") {
                Some(Value::String(text)) => Content::Text(text),
                Some(Value::Array(parts)) => Content::Parts(canonical_parts(parts)),
                None | Some(Value::Null) => {
                    return Err(FieldError::new(
                        json::child(field, "output"),
                        "missing (expected a string or an array of content parts)",
                    ));
                }
                Some(other) => {
                    return Err(FieldError::new(
                        json::child(field, "output"),
                        format!(
                            "expected a string or an array of content parts, got {}",
                            json::kind(&other)
                        ),
                    ));
                }
            };
            let mut m = Message {
                role: Role::Tool,
                content: Some(content),
                tool_call_id: Some(id.clone()),
                ..Message::default()
            };
            if custom {
                m.metadata.insert(keys::CUSTOM_CALLS.to_string(), id);
            }
            Ok(Item::Output(m))
        }
        "reasoning" => Ok(Item::Reasoning),
        known if OPAQUE_TYPES.contains(&known) => Ok(Item::Opaque),
        unknown => {
            warn(Warning::new(format!(
                "{field}: unknown item type `{}`, kept in the source only",
                json::clip(unknown)
            )));
            Ok(Item::Opaque)
        }
    }
}

/// A `message` item (or a typeless one with a `role`).
fn message(mut obj: Map<String, Value>, field: &str) -> Result<Message, FieldError> {
    let role_text = json::take_string(&mut obj, "role", field)?;
    let mut metadata = BTreeMap::new();
    let role = match role_text.as_str() {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        "developer" => {
            metadata.insert(keys::RESPONSES_ROLE.to_string(), role_text.clone());
            Role::System
        }
        other => {
            return Err(FieldError::new(
                json::child(field, "role"),
                format!("unknown role `{}`", json::clip(other)),
            ));
        }
    };
    let content = match obj.remove("content") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(Content::Text(text)),
        Some(Value::Array(parts)) => Some(Content::Parts(canonical_parts(parts))),
        Some(other) => {
            return Err(FieldError::new(
                json::child(field, "content"),
                format!(
                    "expected a string or an array of content parts, got {}",
                    json::kind(&other)
                ),
            ));
        }
    };
    if role == Role::Assistant
        && let Some(phase) = json::take_opt_string(&mut obj, "phase", field)?
    {
        metadata.insert(keys::RESPONSES_PHASE.to_string(), phase);
    }
    Ok(Message {
        role,
        content,
        metadata,
        ..Message::default()
    })
}

/// Content parts in the canonical (chat) shape: an `input_text` or `output_text` part becomes
/// `{"type":"text","text":…}`, an `input_image` with an `image_url` becomes
/// `{"type":"image_url","image_url":{"url":…,"detail":…}}`; any other part is kept as it is.
fn canonical_parts(parts: Vec<Value>) -> Vec<Value> {
    parts
        .into_iter()
        .map(|part| {
            let kind = part.get("type").and_then(Value::as_str);
            match kind {
                Some("input_text" | "output_text") => match part.get("text") {
                    Some(Value::String(text)) => json!({"type": "text", "text": text}),
                    _ => part,
                },
                Some("input_image") => match part.get("image_url") {
                    Some(Value::String(url)) => {
                        let mut image = json!({ "url": url });
                        if let Some(detail) = part.get("detail").filter(|d| !d.is_null()) {
                            image["detail"] = detail.clone();
                        }
                        json!({"type": "image_url", "image_url": image})
                    }
                    _ => part,
                },
                _ => part,
            }
        })
        .collect()
}
