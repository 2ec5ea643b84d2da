//! The Goose session importer (docs/FORMATS.md, "Goose"): the legacy session JSONL Goose kept
//! under `<data dir>/sessions/` before its SQLite store, and which it still imports: a
//! `SessionMetadata` line (`working_dir`, `description`, token counts), then one `Message` per
//! line (`id`, `role`, `created` in Unix seconds, `content` items tagged by `type`, `metadata`
//! with `userVisible` and `agentVisible`).
//!
//! What the model saw is what `agentVisible` allows: a message the agent does not see is not
//! imported (one warning counts them). The content items are read as Goose's OpenAI formatter
//! sends them: text and images are the message's content, a `toolRequest` is a tool call, each
//! `toolResponse` (in a user message, as in Anthropic's API) is a tool message, thinking is kept
//! as reasoning metadata, and the UI's own items (confirmations, notifications) are not sent.

use std::collections::BTreeMap;
use std::path::Path;

use rehydrate_model::{
    Content, IS_ERROR_METADATA_KEY, Message, REDACTED_THINKING_METADATA_KEY, Role,
    THINKING_METADATA_KEY, THINKING_SIGNATURE_METADATA_KEY, ToolCall,
};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};

use crate::json::{self, FieldError, child, item, kind};
use crate::{Error, Format, Import, Warning, keys};

/// Whether `line`, the first non-empty line of a `{` file, is a Goose session line (detection
/// rule 6): a `SessionMetadata` object (with a non-null `working_dir`), or a message (a `role`,
/// a numeric `created` and a `content` array), as Goose falls back to when the metadata did not
/// parse.
pub(crate) fn is_session_line(line: &str) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        working_dir: Option<IgnoredAny>,
        role: Option<String>,
        created: Option<Value>,
        content: Option<Value>,
    }
    match serde_json::from_str::<Probe>(line) {
        Ok(p) => {
            p.working_dir.is_some()
                || (p.role.is_some()
                    && p.created.as_ref().is_some_and(Value::is_number)
                    && p.content.as_ref().is_some_and(Value::is_array))
        }
        Err(_) => false,
    }
}

/// What Goose sends before the error of a result whose tool failed.
pub(crate) const RESULT_ERROR_PREFIX: &str = "The tool call returned the following error:\n";

/// What Goose sends before the error of a call it could not parse.
pub(crate) const CALL_ERROR_PREFIX: &str = "Error: ";

/// Content item types Goose keeps for its UI and never sends to the model.
const NOT_SENT: [&str; 5] = [
    "toolConfirmationRequest",
    "actionRequired",
    "systemNotification",
    "conversationCompacted",
    "reasoning",
];

/// Imports a Goose session JSONL file.
pub(crate) fn import(path: &Path, text: &str) -> Result<Import, Error> {
    let mut out = Out::default();
    let mut first = true;
    for (k, raw) in text.split('\n').enumerate() {
        let line = k + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(raw).map_err(|e| json::invalid_json(path, Some(line), &e))?;
        let object = json::into_object(value, "")
            .map_err(|_| FieldError::new("(line)", "expected a JSON object"))
            .map_err(|e| e.into_error(path, Some(line)))?;
        if std::mem::take(&mut first) && !object.contains_key("role") {
            out.session = metadata(object);
            continue;
        }
        out.message(line, object)
            .map_err(|e| e.into_error(path, Some(line)))?;
    }
    out.finish();
    if out.messages.is_empty() {
        out.warnings
            .push(Warning::new("the session has no messages"));
    }
    let mut messages = out.messages;
    if let Some(m) = messages.first_mut() {
        m.metadata.extend(out.session);
    }
    Ok(Import {
        format: Format::Goose,
        messages,
        warnings: out.warnings,
    })
}

/// The metadata line's `working_dir` and `description`, as message metadata.
fn metadata(mut object: Map<String, Value>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (field, key) in [
        ("working_dir", keys::GOOSE_WORKING_DIR),
        ("description", keys::GOOSE_DESCRIPTION),
    ] {
        if let Some(text) = object.remove(field).and_then(json::metadata_text) {
            out.insert(key.to_string(), text);
        }
    }
    out
}

/// The import under way.
#[derive(Default)]
struct Out {
    messages: Vec<Message>,
    warnings: Vec<Warning>,
    session: BTreeMap<String, String>,
    /// Messages the agent never saw (`agentVisible: false`): how many, and the first's line.
    hidden: (usize, usize),
    /// Content items never sent, by type, and the first's line.
    not_sent: BTreeMap<String, usize>,
    not_sent_line: usize,
    /// Messages with nothing Goose would send, and the first's line.
    empty: usize,
    empty_line: usize,
}

impl Out {
    fn message(&mut self, line: usize, mut object: Map<String, Value>) -> Result<(), FieldError> {
        let role = match json::take_string(&mut object, "role", "")?.as_str() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            other => {
                return Err(FieldError::new(
                    "role",
                    format!("unknown role `{}`", json::clip(other)),
                ));
            }
        };
        let id = json::take_opt_string(&mut object, "id", "")?;
        let created = match object.remove("created") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(other) => {
                return Err(FieldError::new(
                    "created",
                    format!("expected a number, got {}", kind(&other)),
                ));
            }
        };
        let visible = match object.remove("metadata") {
            None | Some(Value::Null) => Visible::default(),
            Some(v) => visibility(v)?,
        };
        let content = match object.remove("content") {
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(FieldError::new(
                    "content",
                    format!("expected an array, got {}", kind(&other)),
                ));
            }
            None => return Err(FieldError::new("content", "missing (expected an array)")),
        };
        if !visible.agent {
            self.hidden.0 += 1;
            if self.hidden.1 == 0 {
                self.hidden.1 = line;
            }
            return Ok(());
        }
        let mut items = Items::default();
        let mut calls = Vec::new();
        let mut results = Vec::new();
        let mut thinking: Vec<String> = Vec::new();
        let mut signatures: Vec<String> = Vec::new();
        let mut redacted: Vec<String> = Vec::new();
        for (k, item_value) in content.into_iter().enumerate() {
            let field = item("content", k);
            let mut item_object = json::into_object(item_value, &field)?;
            let kind_name = json::take_string(&mut item_object, "type", &field)?;
            match kind_name.as_str() {
                "text" => items.text(json::take_string(&mut item_object, "text", &field)?),
                "image" => items.image(&mut item_object, &field)?,
                "toolRequest" | "frontendToolRequest" if role == Role::User => {
                    return Err(FieldError::new(
                        child(&field, "type"),
                        format!(
                            "a `{kind_name}` in a user message (only the assistant calls tools)"
                        ),
                    ));
                }
                "toolResponse" if role == Role::Assistant => {
                    return Err(FieldError::new(
                        child(&field, "type"),
                        "a `toolResponse` in an assistant message (tool results come in user messages)",
                    ));
                }
                "toolRequest" | "frontendToolRequest" => {
                    let id = json::take_string(&mut item_object, "id", &field)?;
                    match outcome(&mut item_object, "toolCall", &field)? {
                        Ok(mut value) => {
                            let value_field = child(&child(&field, "toolCall"), "value");
                            let name = json::take_string(&mut value, "name", &value_field)?;
                            let arguments = match value.remove("arguments") {
                                None | Some(Value::Null) => "{}".to_string(),
                                Some(args @ Value::Object(_)) => args.to_string(),
                                Some(other) => {
                                    return Err(FieldError::new(
                                        child(&value_field, "arguments"),
                                        format!("expected an object, got {}", kind(&other)),
                                    ));
                                }
                            };
                            calls.push(ToolCall {
                                id,
                                name,
                                arguments,
                            });
                        }
                        // A call Goose could not parse: it sends the error as the call's
                        // result, and no call.
                        Err(error) => {
                            self.warnings.push(Warning::at_line(
                                line,
                                format!(
                                    "field `{field}.toolCall`: a call that failed to parse; its error is a tool result {id} without a call"
                                ),
                            ));
                            results.push(error_result(id, format!("{}{error}", CALL_ERROR_PREFIX)));
                        }
                    }
                }
                "toolResponse" => {
                    let id = json::take_string(&mut item_object, "id", &field)?;
                    let value_field = child(&child(&field, "toolResult"), "value");
                    let result = match outcome(&mut item_object, "toolResult", &field)? {
                        Ok(value) => {
                            let (result, left_out) = tool_result(id, value, &value_field)?;
                            for (field, what) in left_out {
                                self.warnings.push(Warning::at_line(
                                    line,
                                    format!("field `{field}`: {what} not imported (the model is shown only text, images and text resources)"),
                                ));
                            }
                            result
                        }
                        Err(error) => error_result(id, format!("{}{error}", RESULT_ERROR_PREFIX)),
                    };
                    results.push(result);
                }
                "thinking" => {
                    thinking.push(json::take_string(&mut item_object, "thinking", &field)?);
                    if let Some(s) = json::take_opt_string(&mut item_object, "signature", &field)? {
                        signatures.push(s);
                    }
                }
                "redactedThinking" => {
                    redacted.push(json::take_string(&mut item_object, "data", &field)?);
                }
                other => {
                    *self.not_sent.entry(other.to_string()).or_default() += 1;
                    if self.not_sent_line == 0 {
                        self.not_sent_line = line;
                    }
                    if !NOT_SENT.contains(&other) {
                        self.warnings.push(Warning::at_line(
                            line,
                            format!(
                                "field `{field}.type`: unknown content type `{}` not imported",
                                json::clip(other)
                            ),
                        ));
                    }
                }
            }
        }
        let stamp = |m: &mut Message| {
            m.metadata.insert(keys::GOOSE_LINE.into(), line.to_string());
            if let Some(id) = &id {
                m.metadata.insert(keys::GOOSE_ID.into(), id.clone());
            }
            if let Some(created) = &created {
                m.metadata
                    .insert(keys::GOOSE_CREATED.into(), created.clone());
            }
            if !visible.user {
                m.metadata
                    .insert(keys::GOOSE_USER_VISIBLE.into(), "false".into());
            }
        };
        // A user message's tool results answer the calls before it: they come first, then the
        // user's text. An assistant message's failed calls are answered after it, as Goose
        // sends them.
        for result in &mut results {
            stamp(result);
        }
        let answers = !results.is_empty();
        if role == Role::User {
            self.messages.append(&mut results);
        }
        let content = items.into_content();
        if content.is_none() && calls.is_empty() && thinking.is_empty() && redacted.is_empty() {
            if !answers {
                // Goose sends nothing for a message without content.
                self.empty += 1;
                if self.empty_line == 0 {
                    self.empty_line = line;
                }
            }
            self.messages.append(&mut results);
            return Ok(());
        }
        let mut m = Message {
            role,
            content,
            tool_calls: calls,
            ..Message::default()
        };
        for (key, values, sep) in [
            (THINKING_METADATA_KEY, thinking, "\n\n"),
            (THINKING_SIGNATURE_METADATA_KEY, signatures, "\n"),
            (REDACTED_THINKING_METADATA_KEY, redacted, "\n"),
        ] {
            if !values.is_empty() {
                m.metadata.insert(key.into(), values.join(sep));
            }
        }
        stamp(&mut m);
        self.messages.push(m);
        self.messages.append(&mut results);
        Ok(())
    }

    /// The warnings that count what was left out.
    fn finish(&mut self) {
        let (hidden, first) = self.hidden;
        if hidden > 0 {
            let s = if hidden == 1 { "" } else { "s" };
            self.warnings.push(Warning::at_line(
                first,
                format!(
                    "{hidden} message{s} the agent never saw (`agentVisible: false`) not imported"
                ),
            ));
        }
        if self.empty > 0 {
            let s = if self.empty == 1 { "" } else { "s" };
            self.warnings.push(Warning::at_line(
                self.empty_line,
                format!(
                    "{} message{s} with nothing to send to the model not imported",
                    self.empty
                ),
            ));
        }
        if !self.not_sent.is_empty() {
            let kinds: Vec<String> = self
                .not_sent
                .iter()
                .map(|(kind, n)| format!("{n} `{kind}`"))
                .collect();
            self.warnings.push(Warning::at_line(
                self.not_sent_line,
                format!(
                    "content items Goose never sends to the model ({}) not imported",
                    kinds.join(", ")
                ),
            ));
        }
    }
}

/// The text and image items of a message or tool result, as content.
#[derive(Default)]
struct Items {
    /// Every item as a part: text parts and `image_url` parts.
    parts: Vec<Value>,
    /// The texts alone.
    texts: Vec<String>,
}

impl Items {
    fn text(&mut self, text: String) {
        self.parts
            .push(serde_json::json!({"type": "text", "text": text}));
        self.texts.push(text);
    }

    /// An `image` item (`data`, `mimeType`) of the field `field`, as an `image_url` part of a
    /// `data:` URL.
    fn image(&mut self, object: &mut Map<String, Value>, field: &str) -> Result<(), FieldError> {
        let data = json::take_string(object, "data", field)?;
        let mime = json::take_string(object, "mimeType", field)?;
        self.parts.push(serde_json::json!({
            "type": "image_url",
            "image_url": {"url": format!("data:{mime};base64,{data}")}
        }));
        Ok(())
    }

    /// The texts joined by `\n` when there is no image, else every part; `None` when empty.
    fn into_content(self) -> Option<Content> {
        if self.parts.is_empty() {
            None
        } else if self.parts.len() == self.texts.len() {
            Some(Content::Text(self.texts.join("\n")))
        } else {
            Some(Content::Parts(self.parts))
        }
    }
}

/// A message's `metadata` visibility flags (both default to true).
struct Visible {
    user: bool,
    agent: bool,
}

impl Default for Visible {
    fn default() -> Visible {
        Visible {
            user: true,
            agent: true,
        }
    }
}

fn visibility(v: Value) -> Result<Visible, FieldError> {
    let mut object = json::into_object(v, "metadata")?;
    let mut flag = |key: &str| match object.remove(key) {
        None | Some(Value::Null) => Ok(true),
        Some(Value::Bool(b)) => Ok(b),
        Some(other) => Err(FieldError::new(
            child("metadata", key),
            format!("expected a boolean, got {}", kind(&other)),
        )),
    };
    Ok(Visible {
        user: flag("userVisible")?,
        agent: flag("agentVisible")?,
    })
}

/// A `{status: "success", value}` or `{status: "error", error}` field: the value, or the error
/// text.
fn outcome(
    object: &mut Map<String, Value>,
    key: &str,
    prefix: &str,
) -> Result<Result<Map<String, Value>, String>, FieldError> {
    let field = child(prefix, key);
    let mut result = match object.remove(key) {
        Some(v) => json::into_object(v, &field)?,
        None => return Err(FieldError::new(field, "missing (expected an object)")),
    };
    match json::take_string(&mut result, "status", &field)?.as_str() {
        "success" => match result.remove("value") {
            Some(Value::Object(value)) => Ok(Ok(value)),
            // The older result form: the content items themselves.
            Some(Value::Array(items)) => {
                let mut value = Map::new();
                value.insert("content".into(), Value::Array(items));
                Ok(Ok(value))
            }
            Some(other) => Err(FieldError::new(
                child(&field, "value"),
                format!("expected an object or an array, got {}", kind(&other)),
            )),
            None => Err(FieldError::new(
                child(&field, "value"),
                "missing (expected an object)",
            )),
        },
        "error" => Ok(Err(json::take_string(&mut result, "error", &field)?)),
        other => Err(FieldError::new(
            child(&field, "status"),
            format!("unknown status `{}`", json::clip(other)),
        )),
    }
}

/// A failed call or result: a tool message marked `is_error`.
fn error_result(id: String, text: String) -> Message {
    let mut m = Message::tool_result(id, text);
    m.metadata
        .insert(IS_ERROR_METADATA_KEY.into(), "true".into());
    m
}

/// A successful `CallToolResult` (`content` items, `isError`) read from the field `prefix`, as a
/// tool message: the text items joined by newlines, or parts when it holds an image; an
/// embedded text resource is its text. Items of another kind (audio, a binary resource, a
/// resource link) are left out, each named with what it was in the list returned beside the
/// message.
///
/// # Errors
///
/// `content` that is not an array, an item without a string `type`, a text without its `text`,
/// an image without `data` and `mimeType`, a resource that is not an object, and an `isError`
/// that is not a boolean.
fn tool_result(
    id: String,
    mut value: Map<String, Value>,
    prefix: &str,
) -> Result<(Message, Vec<(String, String)>), FieldError> {
    let mut left_out = Vec::new();
    let items = json::take_opt_array(&mut value, "content", prefix)?;
    let mut shown = Items::default();
    for (k, item_value) in items.into_iter().enumerate() {
        let field = item(&child(prefix, "content"), k);
        let mut object = json::into_object(item_value, &field)?;
        match json::take_string(&mut object, "type", &field)?.as_str() {
            "text" => shown.text(json::take_string(&mut object, "text", &field)?),
            "resource" => {
                let resource = child(&field, "resource");
                let mut inner = match object.remove("resource") {
                    Some(v) => json::into_object(v, &resource)?,
                    None => return Err(FieldError::new(resource, "missing (expected an object)")),
                };
                match json::take_opt_string(&mut inner, "text", &resource)? {
                    Some(text) => shown.text(text),
                    None => left_out.push((field, "a resource without text".to_string())),
                }
            }
            "image" => shown.image(&mut object, &field)?,
            other => left_out.push((field, format!("a `{}` item", json::clip(other)))),
        }
    }
    // A result without items is an empty text, as Goose sends it.
    let content = shown.into_content().unwrap_or(Content::Text(String::new()));
    let mut m = Message {
        role: Role::Tool,
        content: Some(content),
        tool_call_id: Some(id),
        ..Message::default()
    };
    match value.remove("isError") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => {
            m.metadata
                .insert(IS_ERROR_METADATA_KEY.into(), "true".into());
        }
        Some(other) => {
            return Err(FieldError::new(
                child(prefix, "isError"),
                format!("expected a boolean, got {}", kind(&other)),
            ));
        }
    }
    Ok((m, left_out))
}
