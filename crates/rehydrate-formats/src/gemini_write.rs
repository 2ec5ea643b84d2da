//! Writing canonical messages as a Gemini CLI session document (docs/FORMATS.md, "Gemini CLI",
//! "Writing"): the legacy `{sessionId, projectHash, startTime, lastUpdated, messages}` JSON,
//! which Gemini CLI resumes (it migrates such a file to its JSONL form on resume), written as
//! Gemini CLI writes it: `JSON.stringify(…, null, 2)`, no trailing newline.
//!
//! A user message is a `user` record, an assistant message a `gemini` record whose `toolCalls`
//! hold each call with the tool message that answers it as its `result`; the importer reads
//! the document back to the same messages ([`crate::gemini`]). What the session document
//! cannot hold is written where Gemini CLI shows it and never sends it: a system message, and
//! a tool message whose call is not in the session, become `info` records.

use std::borrow::Borrow;

use rehydrate_model::{Content, Message, Role, TIMESTAMP_METADATA_KEY, ToolDetails};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::gemini::SESSION_FIELDS;
use crate::keys;

/// The session document.
#[derive(Serialize)]
struct Document {
    #[serde(rename = "sessionId")]
    session_id: Value,
    #[serde(rename = "projectHash")]
    project_hash: Value,
    #[serde(rename = "startTime")]
    start_time: Value,
    #[serde(rename = "lastUpdated")]
    last_updated: Value,
    messages: Vec<Record>,
    /// `summary`, `kind` and `directories`, when the session recorded them.
    #[serde(flatten)]
    rest: Map<String, Value>,
}

/// A `MessageRecord`, its fields in the order Gemini CLI writes them.
#[derive(Serialize)]
struct Record {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<String>,
    #[serde(rename = "type")]
    kind: &'static str,
    content: Value,
    #[serde(rename = "toolCalls", skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<CallRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thoughts: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
}

/// A `ToolCallRecord` with its result.
#[derive(Serialize)]
struct CallRecord {
    id: String,
    name: String,
    args: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<String>,
    #[serde(rename = "resultDisplay", skip_serializing_if = "Option::is_none")]
    result_display: Option<Value>,
}

/// The session document of `messages` (see the module docs).
pub(crate) fn write<M: Borrow<Message>>(messages: &[M]) -> Vec<u8> {
    // A session read from Gemini CLI keeps each call's status as it was (none included); one
    // from elsewhere gets the status Gemini CLI records for a call that ran, since it shows any
    // other as failed on resume.
    let native = messages
        .first()
        .is_some_and(|m| m.borrow().metadata.contains_key(keys::GEMINI_SESSION));
    let mut records: Vec<Record> = Vec::with_capacity(messages.len());
    // Where each call was written: (record, call), by call id.
    let mut calls: std::collections::HashMap<&str, (usize, usize)> =
        std::collections::HashMap::new();
    for m in messages.iter().map(Borrow::borrow) {
        let id = format!("rehydrate-{}", records.len());
        let timestamp = m.metadata.get(TIMESTAMP_METADATA_KEY).cloned();
        let meta = |key: &str| -> Option<Value> {
            m.metadata
                .get(key)
                .and_then(|text| serde_json::from_str(text).ok())
        };
        match m.role {
            Role::User => records.push(Record {
                id,
                timestamp,
                kind: "user",
                content: user_content(m.content.as_ref()),
                tool_calls: Vec::new(),
                thoughts: None,
                tokens: None,
                model: None,
            }),
            Role::Assistant => {
                let at = records.len();
                let mut record = Record {
                    id,
                    timestamp,
                    kind: "gemini",
                    content: Value::String(m.content_text().map(str::to_string).unwrap_or_else(
                        || {
                            match &m.content {
                                Some(Content::Parts(parts)) => parts
                                    .iter()
                                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                                    .collect(),
                                _ => String::new(),
                            }
                        },
                    )),
                    tool_calls: Vec::with_capacity(m.tool_calls.len()),
                    thoughts: meta(keys::GEMINI_THOUGHTS),
                    tokens: meta(keys::GEMINI_TOKENS),
                    model: m.metadata.get(keys::GEMINI_MODEL).cloned(),
                };
                for call in &m.tool_calls {
                    let args = match serde_json::from_str::<Value>(&call.arguments) {
                        Ok(object @ Value::Object(_)) => object,
                        // Gemini CLI records arguments as an object only.
                        _ => serde_json::json!({ "arguments": call.arguments }),
                    };
                    calls.insert(&call.id, (at, record.tool_calls.len()));
                    record.tool_calls.push(CallRecord {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        args,
                        result: None,
                        status: None,
                        timestamp: None,
                        result_display: None,
                    });
                }
                records.push(record);
            }
            Role::Tool => {
                let place = m
                    .tool_call_id
                    .as_deref()
                    .and_then(|id| calls.get(id).copied())
                    .filter(|&(r, c)| records[r].tool_calls[c].result.is_none());
                match place {
                    Some((r, c)) => answer(&mut records[r].tool_calls[c], m, native),
                    None => records.push(info(id, timestamp, m)),
                }
            }
            Role::System => records.push(info(id, timestamp, m)),
        }
    }
    // The calls of one assistant message are one round: one timestamp (their results').
    for record in &mut records {
        let time = record.tool_calls.iter().find_map(|c| c.timestamp.clone());
        for call in &mut record.tool_calls {
            call.timestamp.clone_from(&time);
        }
    }
    document(messages, records)
}

/// The document around `records`: the session fields the first message kept
/// ([`keys::GEMINI_SESSION`]), or, for a session from elsewhere, an id of its own and the
/// first and last timestamps.
fn document<M: Borrow<Message>>(messages: &[M], records: Vec<Record>) -> Vec<u8> {
    let mut session: Map<String, Value> = messages
        .first()
        .and_then(|m| m.borrow().metadata.get(keys::GEMINI_SESSION))
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_default();
    let stamps = || {
        messages
            .iter()
            .filter_map(|m| m.borrow().metadata.get(TIMESTAMP_METADATA_KEY))
    };
    let first = stamps().next().cloned().unwrap_or_default();
    let last = stamps().last().cloned().unwrap_or_else(|| first.clone());
    let mut take =
        |key: &str, default: String| session.remove(key).unwrap_or(Value::String(default));
    let doc = Document {
        session_id: take(SESSION_FIELDS[0], "rehydrate-export".to_string()),
        project_hash: take(SESSION_FIELDS[1], String::new()),
        start_time: take(SESSION_FIELDS[2], first),
        last_updated: take(SESSION_FIELDS[3], last),
        messages: records,
        rest: session,
    };
    serde_json::to_vec_pretty(&doc).unwrap_or_default()
}

/// A user message's `content`: its text, or its parts as Gemini parts.
fn user_content(content: Option<&Content>) -> Value {
    match content {
        None => Value::String(String::new()),
        Some(Content::Text(text)) => Value::String(text.clone()),
        Some(Content::Parts(parts)) => Value::Array(parts.iter().map(gemini_part).collect()),
    }
}

/// A canonical content part as the Gemini part it was read from: text as `{"text"}`, a base64
/// image block and an OpenAI image part of a `data:` URL as `inlineData`, a kept Gemini part as
/// it was; any other part (an image by URL, another API's block) as the text of its JSON.
fn gemini_part(part: &Value) -> Value {
    if let Some((mime, data)) = crate::canonical::inline_image(part) {
        return serde_json::json!({ "inlineData": { "mimeType": mime, "data": data } });
    }
    match part.get("type").and_then(Value::as_str) {
        Some("text") => {
            serde_json::json!({ "text": part.get("text").cloned().unwrap_or_default() })
        }
        Some("gemini_part") => part.get("part").cloned().unwrap_or_default(),
        _ => serde_json::json!({ "text": part.to_string() }),
    }
}

/// Records tool message `m` as the result of `call`: its text as the `functionResponse`'s
/// `output` (its `error` when it failed without an `error` status), its other parts as the
/// response's `parts`, its status (for a session not `native` to Gemini CLI, without one,
/// `error` or `success` by whether it failed), timestamp and the new content a write proved.
fn answer(call: &mut CallRecord, m: &Message, native: bool) {
    let (text, extra): (String, Vec<Value>) = match &m.content {
        None => (String::new(), Vec::new()),
        Some(Content::Text(text)) => (text.clone(), Vec::new()),
        Some(Content::Parts(parts)) => match parts.split_first() {
            Some((first, rest)) if first.get("type").and_then(Value::as_str) == Some("text") => (
                first
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                rest.iter().map(gemini_part).collect(),
            ),
            _ => (String::new(), parts.iter().map(gemini_part).collect()),
        },
    };
    let status =
        m.metadata.get(keys::GEMINI_STATUS).cloned().or_else(|| {
            (!native).then(|| if m.is_error() { "error" } else { "success" }.to_string())
        });
    let key = if m.is_error() && status.as_deref() != Some("error") {
        "error"
    } else {
        "output"
    };
    let mut response = serde_json::json!({
        "id": call.id,
        "name": call.name,
        "response": { key: text },
    });
    if !extra.is_empty() {
        response["parts"] = Value::Array(extra);
    }
    call.result = Some(serde_json::json!([{ "functionResponse": response }]));
    call.status = status;
    call.timestamp = m.metadata.get(TIMESTAMP_METADATA_KEY).cloned();
    if let Some(ToolDetails::Write { content, .. }) = m.details.as_deref()
        && matches!(call.name.as_str(), "write_file" | "replace" | "edit")
    {
        call.result_display = Some(serde_json::json!({ "newContent": content }));
    }
}

/// An `info` record holding `m`'s text: shown by Gemini CLI, never sent to the model.
fn info(id: String, timestamp: Option<String>, m: &Message) -> Record {
    let text = match &m.content {
        Some(Content::Text(text)) => text.clone(),
        Some(Content::Parts(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        None => String::new(),
    };
    Record {
        id,
        timestamp,
        kind: "info",
        content: Value::String(text),
        tool_calls: Vec::new(),
        thoughts: None,
        tokens: None,
        model: None,
    }
}
