//! The Gemini CLI chat session importer (docs/FORMATS.md, "Gemini CLI"): the legacy session
//! document (`{sessionId, projectHash, startTime, lastUpdated, messages}`) and the JSONL form
//! Gemini CLI writes since 2026-04 (a metadata line, then message records that a later record
//! with the same `id` replaces, `{"$set":…}` updates and `{"$rewindTo":id}` truncations).
//!
//! What the model saw is rebuilt as Gemini CLI rebuilds its API history
//! (`convertSessionToClientHistory`): `info`, `error` and `warning` records and the user's
//! slash commands never reached the model and are not imported (one warning says how many);
//! a `gemini` record is the model's turn, and its tool calls are answered by one tool message
//! each. A record that holds the calls of several model rounds (Gemini CLI appends a round's
//! calls to the last `gemini` record) is split at each change of the calls' `timestamp`: the
//! calls of one round are recorded together, with one timestamp, and each round is answered
//! before the next assistant message.

use std::collections::HashMap;
use std::path::Path;

use rehydrate_model::{Content, Message, Role, TIMESTAMP_METADATA_KEY, ToolCall, ToolDetails};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::json::{self, FieldError};
use crate::{Error, Format, Import, Warning, keys};

/// Record types that never reach the model.
const NOT_SENT_TYPES: [&str; 3] = ["info", "error", "warning"];

/// What Gemini CLI writes before the project context it appends to a `read_file` output.
const JIT_CONTEXT: &str = "--- Newly Discovered Project Context ---";

/// The prefix of a `read_file` output that Gemini CLI cut.
const READ_TRUNCATED: &str = "IMPORTANT: The file content has been truncated.";

/// Imports a Gemini CLI session from its text (either form).
///
/// A legacy document is first read into only the fields the import uses ([`SlimDoc`]), which
/// skips the rest (tool descriptions, display names) without building values for it; any
/// document that does not read so, or whose records do not convert, is read again as a
/// `serde_json::Value`, whose errors name the field.
pub(crate) fn import(path: &Path, text: &str) -> Result<Import, Error> {
    if let Ok(doc) = serde_json::from_str::<SlimDoc>(text) {
        let mut out = Out::default();
        let converted = doc
            .messages
            .into_iter()
            .enumerate()
            .try_for_each(|(i, record)| {
                out.record(Record {
                    field: json::item("messages", i),
                    line: None,
                    value: record.into_value(),
                })
            });
        if converted.is_ok() {
            return out.finish();
        }
    }
    let records = match document(text) {
        Some(doc) => from_document(path, doc.map_err(|e| json::invalid_json(path, None, &e))?)?,
        None => from_jsonl(path, text)?,
    };
    let mut out = Out::default();
    for record in records {
        out.record(record)
            .map_err(|e| e.error.into_error(path, e.line))?;
    }
    out.finish()
}

/// A legacy session document, read only for its records.
#[derive(Deserialize)]
struct SlimDoc {
    messages: Vec<SlimRecord>,
}

/// The fields of a record the import reads, each as it is (a JSON `null` kept as one).
#[derive(Deserialize)]
struct SlimRecord {
    #[serde(rename = "type", default, deserialize_with = "present")]
    kind: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    timestamp: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    content: Option<Value>,
    #[serde(rename = "toolCalls", default)]
    tool_calls: Option<Vec<SlimCall>>,
    #[serde(default, deserialize_with = "present")]
    thoughts: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    tokens: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    model: Option<Value>,
}

/// The fields of a tool call the import reads.
#[derive(Deserialize)]
struct SlimCall {
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    name: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    args: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    status: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    timestamp: Option<Value>,
    #[serde(rename = "resultDisplay", default, deserialize_with = "present")]
    result_display: Option<Value>,
}

/// A field that is present, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// An object of the present fields.
fn object<const N: usize>(fields: [(&str, Option<Value>); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .filter_map(|(key, value)| value.map(|v| (key.to_string(), v)))
            .collect(),
    )
}

impl SlimRecord {
    /// The record as the `Value` the import reads (the fields it does not read left out).
    fn into_value(self) -> Value {
        let calls = self.tool_calls.map(|calls| {
            Value::Array(
                calls
                    .into_iter()
                    .map(|c| {
                        object([
                            ("id", c.id),
                            ("name", c.name),
                            ("args", c.args),
                            ("result", c.result),
                            ("status", c.status),
                            ("timestamp", c.timestamp),
                            ("resultDisplay", c.result_display),
                        ])
                    })
                    .collect(),
            )
        });
        object([
            ("type", self.kind),
            ("timestamp", self.timestamp),
            ("content", self.content),
            ("toolCalls", calls),
            ("thoughts", self.thoughts),
            ("tokens", self.tokens),
            ("model", self.model),
        ])
    }
}

/// A message record with where it came from: its field path (`messages[3]`) and, for JSONL,
/// its line.
struct Record {
    field: String,
    line: Option<usize>,
    value: Value,
}

/// The whole text as one JSON document, when it is one; `None` for the JSONL form, whose first
/// non-empty line is a JSON value on its own and is followed by more lines. (A pretty-printed
/// document opens with a line `{`, so a truncated one is reported as a document, where the
/// parser's line is the one that broke.)
fn document(text: &str) -> Option<Result<Value, serde_json::Error>> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or_default();
    let jsonl =
        lines.next().is_some() && serde_json::from_str::<serde::de::IgnoredAny>(first).is_ok();
    (!jsonl).then(|| serde_json::from_str(text))
}

/// The message records of a legacy session document.
fn from_document(path: &Path, doc: Value) -> Result<Vec<Record>, Error> {
    let not_a_session = || Error::NotASession {
        path: path.to_path_buf(),
        format: Format::GeminiCli,
        expected: "a JSON object with a `messages` array, or JSONL records",
    };
    let Value::Object(mut doc) = doc else {
        return Err(not_a_session());
    };
    let messages = match doc.remove("messages") {
        Some(Value::Array(messages)) => messages,
        // The metadata line of a JSONL session that has no record yet.
        None if doc.contains_key("sessionId") => Vec::new(),
        _ => return Err(not_a_session()),
    };
    Ok(messages
        .into_iter()
        .enumerate()
        .map(|(i, value)| Record {
            field: json::item("messages", i),
            line: None,
            value,
        })
        .collect())
}

/// The message records of the JSONL form, as its last state: a record replaces the earlier
/// one with its `id` in place, `$set.messages` replaces them all, `$rewindTo` drops the message
/// it names and every later one.
fn from_jsonl(path: &Path, text: &str) -> Result<Vec<Record>, Error> {
    let mut records: Vec<Record> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut first_line = true;
    for (i, line) in text.split('\n').enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(line).map_err(|e| json::invalid_json(path, Some(number), &e))?;
        let Value::Object(mut object) = value else {
            return Err(
                FieldError::new("(line)", "expected a JSON object").into_error(path, Some(number))
            );
        };
        if let Some(set) = object.remove("$set") {
            let Value::Object(mut set) = set else {
                return Err(
                    FieldError::new("$set", "expected an object").into_error(path, Some(number))
                );
            };
            if let Some(messages) = set.remove("messages") {
                let Value::Array(messages) = messages else {
                    return Err(FieldError::new("$set.messages", "expected an array")
                        .into_error(path, Some(number)));
                };
                records.clear();
                by_id.clear();
                for (k, value) in messages.into_iter().enumerate() {
                    push(
                        &mut records,
                        &mut by_id,
                        Record {
                            field: json::item("$set.messages", k),
                            line: Some(number),
                            value,
                        },
                    );
                }
            }
            continue;
        }
        if let Some(target) = object.remove("$rewindTo") {
            let Value::String(target) = target else {
                return Err(FieldError::new("$rewindTo", "expected a message id")
                    .into_error(path, Some(number)));
            };
            let Some(&at) = by_id.get(&target) else {
                return Err(FieldError::new(
                    "$rewindTo",
                    format!("no message with id `{}` to rewind to", json::clip(&target)),
                )
                .into_error(path, Some(number)));
            };
            records.truncate(at);
            by_id.retain(|_, &mut k| k < at);
            continue;
        }
        if !object.contains_key("type") && first_line {
            // The metadata line (sessionId, projectHash, …): no message.
            first_line = false;
            continue;
        }
        first_line = false;
        push(
            &mut records,
            &mut by_id,
            Record {
                field: String::new(),
                line: Some(number),
                value: Value::Object(object),
            },
        );
    }
    Ok(records)
}

/// Appends `record`, or replaces the earlier record with its `id` in place.
fn push(records: &mut Vec<Record>, by_id: &mut HashMap<String, usize>, record: Record) {
    let id = record
        .value
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string);
    match id.as_ref().and_then(|id| by_id.get(id)) {
        Some(&k) => records[k] = record,
        None => {
            if let Some(id) = id {
                by_id.insert(id, records.len());
            }
            records.push(record);
        }
    }
}

/// The messages being built.
#[derive(Default)]
struct Out {
    messages: Vec<Message>,
    warnings: Vec<Warning>,
    /// Records that never reached the model, by type (`info`, `error`, `warning`, `command`).
    not_sent: Vec<(String, String)>,
}

impl Out {
    fn record(&mut self, record: Record) -> Result<(), LocatedError> {
        let Record { field, line, value } = record;
        let located = |e: FieldError| LocatedError { error: e, line };
        let mut object = json::into_object(value, &field).map_err(located)?;
        let kind = json::take_string(&mut object, "type", &field).map_err(located)?;
        match kind.as_str() {
            "user" => self.user(object, &field, line).map_err(located)?,
            "gemini" => self.gemini(object, &field, line).map_err(located)?,
            k if NOT_SENT_TYPES.contains(&k) => {
                self.not_sent.push((k.to_string(), place(&field, line)))
            }
            other => self.not_sent.push((
                format!("of type `{}`", json::clip(other)),
                place(&field, line),
            )),
        }
        Ok(())
    }

    fn user(
        &mut self,
        mut object: Map<String, Value>,
        field: &str,
        line: Option<usize>,
    ) -> Result<(), FieldError> {
        let original = object.remove("content");
        let plain = match &original {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        };
        let content = parts(original, &json::child(field, "content"))?;
        let text = content_text(&content);
        let command = text.starts_with('/') || text.starts_with('?');
        if content.is_empty() || command {
            self.not_sent.push((
                if command { "command" } else { "empty" }.to_string(),
                place(field, line),
            ));
            return Ok(());
        }
        let mut m = Message {
            role: Role::User,
            content: Some(match plain {
                Some(text) => Content::Text(text),
                None => Content::Parts(content),
            }),
            ..Message::default()
        };
        stamp(&mut m, &mut object, field)?;
        self.messages.push(m);
        Ok(())
    }

    fn gemini(
        &mut self,
        mut object: Map<String, Value>,
        field: &str,
        line: Option<usize>,
    ) -> Result<(), FieldError> {
        // The text the model wrote (thought and call parts are read from `thoughts` and
        // `toolCalls`).
        let content_field = json::child(field, "content");
        let text = match object.remove("content") {
            Some(Value::String(text)) => text,
            content => {
                let parts = parts(content, &content_field)?;
                let other = parts
                    .iter()
                    .filter(|p| p.get("type").and_then(Value::as_str) != Some("text"))
                    .count();
                if other > 0 {
                    self.warnings.push(at(
                        line,
                        format!("{content_field}: {other} non-text parts of the model's message not imported"),
                    ));
                }
                content_text(&parts)
            }
        };
        let calls = json::take_opt_array(&mut object, "toolCalls", field)?;
        let mut metadata = std::collections::BTreeMap::new();
        if let Some(model) = json::take_opt_string(&mut object, "model", field)? {
            metadata.insert(keys::GEMINI_MODEL.to_string(), model);
        }
        for (key, name, want_array) in [
            ("tokens", keys::GEMINI_TOKENS, false),
            ("thoughts", keys::GEMINI_THOUGHTS, true),
        ] {
            match object.remove(key) {
                None | Some(Value::Null) => {}
                Some(Value::Array(items)) if want_array => {
                    if !items.is_empty() {
                        metadata.insert(name.to_string(), Value::Array(items).to_string());
                    }
                }
                Some(Value::Object(map)) if !want_array => {
                    metadata.insert(name.to_string(), Value::Object(map).to_string());
                }
                Some(other) => {
                    return Err(FieldError::new(
                        json::child(field, key),
                        format!(
                            "expected {}, got {}",
                            if want_array { "an array" } else { "an object" },
                            json::kind(&other)
                        ),
                    ));
                }
            }
        }
        let mut first = Message {
            role: Role::Assistant,
            content: (!text.is_empty()).then_some(Content::Text(text)),
            metadata,
            ..Message::default()
        };
        stamp(&mut first, &mut object, field)?;
        if calls.is_empty() {
            self.messages.push(first);
            return Ok(());
        }
        // The rounds: runs of calls with one timestamp.
        let mut rounds: Vec<Vec<(usize, Map<String, Value>)>> = Vec::new();
        let mut last_time: Option<Value> = None;
        for (k, call) in calls.into_iter().enumerate() {
            let call_field = json::item(&json::child(field, "toolCalls"), k);
            let call = json::into_object(call, &call_field)?;
            let time = call.get("timestamp").cloned();
            if rounds.is_empty() || time != last_time {
                rounds.push(Vec::new());
            }
            last_time = time;
            rounds.last_mut().expect("pushed above").push((k, call));
        }
        if rounds.len() > 1 {
            self.warnings.push(at(
                line,
                format!(
                    "{field}: tool calls of {} model rounds in one record; split at each change of their timestamp",
                    rounds.len()
                ),
            ));
        }
        let mut assistant = Some(first);
        for round in rounds {
            let mut message = assistant.take().unwrap_or_else(|| Message {
                role: Role::Assistant,
                ..Message::default()
            });
            let mut results = Vec::new();
            for (k, mut call) in round {
                let call_field = json::item(&json::child(field, "toolCalls"), k);
                let id = json::take_string(&mut call, "id", &call_field)?;
                let name = json::take_string(&mut call, "name", &call_field)?;
                let args = call.remove("args").ok_or_else(|| {
                    FieldError::new(
                        json::child(&call_field, "args"),
                        "missing (expected an object)",
                    )
                })?;
                if !args.is_object() {
                    return Err(FieldError::new(
                        json::child(&call_field, "args"),
                        format!("expected an object, got {}", json::kind(&args)),
                    ));
                }
                message.tool_calls.push(ToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: args.to_string(),
                });
                if let Some(result) = result_message(&id, &name, &args, call, &call_field)? {
                    results.push(result);
                }
            }
            self.messages.push(message);
            self.messages.extend(results);
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Import, Error> {
        resolve_relative_paths(&mut self.messages);
        if !self.not_sent.is_empty() {
            let mut counts: Vec<(String, usize)> = Vec::new();
            for (kind, _) in &self.not_sent {
                match counts.iter_mut().find(|(k, _)| k == kind) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((kind.clone(), 1)),
                }
            }
            let listed: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
            let first = &self.not_sent[0].1;
            self.warnings.push(Warning::new(format!(
                "{} records the model never saw ({}; the first at {first}) not imported",
                self.not_sent.len(),
                listed.join(", ")
            )));
        }
        Ok(Import {
            format: Format::GeminiCli,
            messages: self.messages,
            warnings: self.warnings,
        })
    }
}

/// A field error with the JSONL line it is on.
struct LocatedError {
    error: FieldError,
    line: Option<usize>,
}

/// Where a record is, for the warning that counts what was not imported: its line (JSONL) or
/// its field (`messages[3]`).
fn place(field: &str, line: Option<usize>) -> String {
    line.map_or_else(|| field.to_string(), |l| format!("line {l}"))
}

fn at(line: Option<usize>, message: String) -> Warning {
    match line {
        Some(line) => Warning::at_line(line, message),
        None => Warning::new(message),
    }
}

/// The record's `timestamp` as the message's.
fn stamp(m: &mut Message, object: &mut Map<String, Value>, field: &str) -> Result<(), FieldError> {
    if let Some(time) = json::take_opt_string(object, "timestamp", field)? {
        m.metadata.insert(TIMESTAMP_METADATA_KEY.to_string(), time);
    }
    Ok(())
}

/// A `PartListUnion` (a string, a part, or an array of strings and parts) as canonical content
/// parts: text as `{"type":"text","text"}`, an image `inlineData` as an Anthropic base64
/// image block, any other part kept as it is under `{"type":"gemini_part","part":…}`.
fn parts(content: Option<Value>, field: &str) -> Result<Vec<Value>, FieldError> {
    let (items, listed) = match content {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::String(s)) if s.is_empty() => return Ok(Vec::new()),
        Some(Value::Array(items)) => (items, true),
        Some(other) => (vec![other], false),
    };
    let mut out = Vec::with_capacity(items.len());
    for (k, item) in items.into_iter().enumerate() {
        match item {
            Value::String(text) => out.push(text_part(text)),
            Value::Object(part) => {
                if let Some(Value::String(text)) = part.get("text")
                    && part.get("thought") != Some(&Value::Bool(true))
                {
                    out.push(text_part(text.clone()));
                } else if let Some(Value::Object(data)) = part.get("inlineData")
                    && let (Some(Value::String(mime)), Some(Value::String(b64))) =
                        (data.get("mimeType"), data.get("data"))
                    && mime.starts_with("image/")
                {
                    out.push(serde_json::json!({
                        "type": "image",
                        "source": {"type": "base64", "media_type": mime, "data": b64}
                    }));
                } else if part.contains_key("functionCall")
                    || part.get("thought") == Some(&Value::Bool(true))
                {
                    // The model's own calls and thoughts: read from `toolCalls` and
                    // `thoughts`, not sent as content.
                } else {
                    out.push(
                        serde_json::json!({"type": "gemini_part", "part": Value::Object(part)}),
                    );
                }
            }
            other => {
                return Err(FieldError::new(
                    if listed {
                        json::item(field, k)
                    } else {
                        field.to_string()
                    },
                    format!(
                        "expected a string or a part object, got {}",
                        json::kind(&other)
                    ),
                ));
            }
        }
    }
    Ok(out)
}

fn text_part(text: String) -> Value {
    serde_json::json!({"type": "text", "text": text})
}

/// The text parts of `parts`, joined.
fn content_text(parts: &[Value]) -> String {
    parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("")
}

/// The tool message answering call `id`: the `output` (or `error`) of its `functionResponse`
/// parts, other result parts (an image a read returned) kept as parts; `None` when the record
/// holds no result (a call cancelled before it ran is left unanswered, as Gemini CLI leaves
/// it).
fn result_message(
    id: &str,
    name: &str,
    args: &Value,
    mut call: Map<String, Value>,
    field: &str,
) -> Result<Option<Message>, FieldError> {
    let status = json::take_opt_string(&mut call, "status", field)?;
    let result = match call.remove("result") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) => items,
        Some(other) => vec![other],
    };
    let mut texts = Vec::new();
    let mut extra = Vec::new();
    let mut failed = status.as_deref() == Some("error");
    // Whether the result is exactly one `output` string: only such a result proves a file.
    let mut outputs = 0;
    let result_field = json::child(field, "result");
    for (j, mut part) in result.into_iter().enumerate() {
        let part_field = json::item(&result_field, j);
        if let Some(response) = part
            .as_object_mut()
            .and_then(|p| p.remove("functionResponse"))
        {
            let fr_field = json::child(&part_field, "functionResponse");
            let mut response = json::into_object(response, &fr_field)?;
            // Newer Gemini CLI puts the parts a tool returned (an image a read gave) here.
            extra.extend(json::take_opt_array(&mut response, "parts", &fr_field)?);
            let response_field = json::child(&fr_field, "response");
            let mut response = match response.remove("response") {
                Some(v) => json::into_object(v, &response_field)?,
                None => Map::new(),
            };
            if let Some(output) = json::take_opt_string(&mut response, "output", &response_field)? {
                outputs += 1;
                texts.push(output);
            } else if let Some(error) =
                json::take_opt_string(&mut response, "error", &response_field)?
            {
                failed = true;
                texts.push(error);
            } else {
                texts.push(Value::Object(response).to_string());
            }
            continue;
        }
        match part {
            Value::String(s) => texts.push(s),
            Value::Object(mut p) if p.get("text").is_some_and(Value::is_string) => {
                texts.push(
                    json::metadata_text(p.remove("text").unwrap_or_default()).unwrap_or_default(),
                );
            }
            other => extra.push(other),
        }
    }
    let plain = outputs == 1 && texts.len() == 1 && extra.is_empty();
    let text = if texts.len() == 1 {
        texts.pop().unwrap_or_default()
    } else {
        texts.join("\n")
    };
    let details = if failed {
        None
    } else {
        details(name, args, &text, plain, call.get("resultDisplay"))
    };
    let mut m = Message::tool_result(id, String::new());
    m.name = Some(name.to_string());
    m.details = details.map(Box::new);
    if extra.is_empty() {
        m.content = Some(Content::Text(text));
    } else {
        // No empty text part: the Anthropic API refuses one in a tool result.
        let mut all: Vec<Value> = (!text.is_empty())
            .then(|| text_part(text))
            .into_iter()
            .collect();
        all.extend(parts(
            Some(Value::Array(extra)),
            &json::child(field, "result"),
        )?);
        m.content = Some(Content::Parts(all));
    }
    if failed {
        m.metadata.insert(
            rehydrate_model::IS_ERROR_METADATA_KEY.to_string(),
            "true".to_string(),
        );
    }
    if let Some(status) = status {
        m.metadata.insert(keys::GEMINI_STATUS.to_string(), status);
    }
    stamp(&mut m, &mut call, field)?;
    Ok(Some(m))
}

/// Makes the relative paths of the messages' details absolute when the session names its
/// project root: a `write_file` result says the absolute path it wrote (`Successfully …
/// file: /root/dir/a.md.`), so a call that named `dir/a.md` shows the root is `/root`. Paths
/// stay relative (and replay leaves them alone) when no write names the root.
fn resolve_relative_paths(messages: &mut [Message]) {
    let root = messages.iter().find_map(|m| {
        let Some(ToolDetails::Write { path, .. }) = m.details.as_deref() else {
            return None;
        };
        let relative = path.strip_prefix("./").unwrap_or(path);
        if relative.starts_with('/') {
            return None;
        }
        let text = m.content_text()?;
        let (_, absolute) = text.split_once(" file: ")?;
        let absolute = absolute.lines().next()?.trim_end().trim_end_matches('.');
        let root = absolute.strip_suffix(relative)?.strip_suffix('/')?;
        root.starts_with('/').then(|| root.to_string())
    });
    let Some(root) = root else {
        return;
    };
    for m in messages {
        let Some(details) = m.details.as_deref_mut() else {
            continue;
        };
        let path = match details {
            ToolDetails::WholeRead { path, .. }
            | ToolDetails::Write { path, .. }
            | ToolDetails::UnprovenChange { path, .. } => path,
            _ => continue,
        };
        if !path.starts_with('/') {
            *path = normalize(&format!("{root}/{path}"));
        }
    }
}

/// An absolute path with its `.` and `..` components resolved lexically (`/a/b/../c` is
/// `/a/c`), as the file system would name it without symlinks.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// What a successful call proves of a file (docs/FORMATS.md, "Gemini CLI", "Replay details").
fn details(
    name: &str,
    args: &Value,
    output: &str,
    plain: bool,
    display: Option<&Value>,
) -> Option<ToolDetails> {
    let path = args
        .get("file_path")
        .or_else(|| args.get("absolute_path"))
        .and_then(Value::as_str)?
        .to_string();
    let shown = |key: &str| display.and_then(|d| d.get(key)).and_then(Value::as_str);
    match name {
        "read_file" => {
            let ranged = ["offset", "limit", "start_line", "end_line"]
                .iter()
                .any(|k| args.get(*k).is_some_and(|v| !v.is_null()));
            // Only a plain text output is the file: not a binary read (its data in other
            // parts), not one Gemini CLI cut, nor one it appended project context to.
            let whole = plain
                && !ranged
                && !output.starts_with(READ_TRUNCATED)
                && !output.contains(JIT_CONTEXT);
            whole.then(|| ToolDetails::WholeRead {
                path,
                content: output.to_string(),
            })
        }
        "write_file" => {
            // What was written: the diff's new content when recorded (the tool may correct
            // the content, or the person edit it), else the argument of a plain success.
            if let Some(content) = shown("newContent") {
                return Some(ToolDetails::Write {
                    path,
                    content: content.to_string(),
                });
            }
            let plain = output.starts_with("Successfully created and wrote to new file")
                || output.starts_with("Successfully overwrote file");
            let modified = output.contains("User modified the `content`");
            match args.get("content").and_then(Value::as_str) {
                Some(content) if plain && !modified => Some(ToolDetails::Write {
                    path,
                    content: content.to_string(),
                }),
                _ => Some(ToolDetails::UnprovenChange {
                    path,
                    reason: "the write_file result does not prove the content written".into(),
                }),
            }
        }
        "replace" | "edit" => Some(match shown("newContent") {
            Some(content) => ToolDetails::Write {
                path,
                content: content.to_string(),
            },
            None => ToolDetails::UnprovenChange {
                path,
                reason: "a replace without its recorded new content proves nothing".into(),
            },
        }),
        _ => None,
    }
}
