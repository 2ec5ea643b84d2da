//! Reading a Codex rollout into record groups and canonical messages (docs/FORMATS.md,
//! "Codex CLI rollout").
//!
//! [`read`] parses every line on its own, then walks the lines once, making a [`Group`] of the
//! lines each canonical message (or run of messages) comes from. A group's messages depend on
//! its own lines only, so the writer can decode one group's source alone and compare.

use std::collections::BTreeMap;

use rehydrate_model::{
    Content, IS_ERROR_METADATA_KEY, Message, Role, TIMESTAMP_METADATA_KEY, ToolCall,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::{Warning, json, keys};

/// The record types a rollout line has (`type` of the line envelope).
pub(crate) const RECORD_TYPES: [&str; 5] = [
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
];

/// Response item types kept in the source only, without a warning: they carry nothing a
/// canonical message can hold (a server-side web search has no result item; a ghost snapshot is
/// Codex's own undo record).
const SOURCE_ONLY_ITEMS: [&str; 2] = ["web_search_call", "ghost_snapshot"];

/// A line that is not JSON, before the crate error is made (the caller knows the path).
#[derive(Debug)]
pub(crate) struct LineError {
    /// 1-based line number.
    pub(crate) line: usize,
    pub(crate) error: serde_json::Error,
}

/// The lines one run of canonical messages is made from.
#[derive(Debug)]
pub(crate) struct Group {
    /// The byte range of the group's source: from just after the previous group to the end of
    /// its last line, line breaks included, half-open.
    pub(crate) source: (usize, usize),
    /// The byte ranges of the lines whose items the messages hold (the rest of the source is
    /// kept as it is when the group is written afresh), line breaks included.
    pub(crate) model_lines: Vec<(usize, usize)>,
    /// The messages, without the source keys.
    pub(crate) messages: Vec<Message>,
}

/// A whole rollout, read.
#[derive(Debug, Default)]
pub(crate) struct Read {
    pub(crate) groups: Vec<Group>,
    /// Where the lines after the last group start (the text's length when there are none).
    pub(crate) tail_start: usize,
    pub(crate) warnings: Vec<Warning>,
    /// Whether any line has one of the [`RECORD_TYPES`].
    pub(crate) any_record: bool,
    /// `patch_apply_end` events by `call_id`: the `changes` object and `success`.
    pub(crate) patch_events: BTreeMap<String, (Value, bool)>,
}

/// The line envelope: `{"timestamp","type","payload"}`, with the payload kept as raw text.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    timestamp: Option<Value>,
    #[serde(rename = "type", default)]
    kind: Option<Value>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
}

/// What a tool call is on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallKind {
    Function,
    Custom,
    LocalShell,
}

/// One line, classified.
enum Line {
    /// Nothing a message holds: blank, event, context, unknown (warned already).
    Other,
    /// `session_meta`.
    Meta {
        base_instructions: Option<String>,
        keys: Vec<(&'static str, String)>,
    },
    /// `event_msg` `user_message`.
    UserEvent { text: String, images: Vec<String> },
    /// `response_item` `message`.
    Msg {
        role: String,
        content: Option<Value>,
        phase: Option<String>,
    },
    /// `response_item` `reasoning`: the payload's raw text.
    Reasoning(String),
    /// A tool call item.
    Call {
        kind: CallKind,
        id: String,
        name: String,
        arguments: String,
        namespace: Option<String>,
    },
    /// A tool output item.
    Output {
        custom: bool,
        call_id: String,
        output: Option<Value>,
        name: Option<String>,
    },
    /// `compacted`.
    Compacted { message: String },
}

/// A parsed line with its place.
struct Parsed {
    /// 1-based.
    line: usize,
    /// Byte range, line break included.
    span: (usize, usize),
    timestamp: Option<String>,
    kind: Line,
}

/// Reads `text` (a whole rollout, or one group's source) into groups.
///
/// A line that is not JSON is an error, except the last non-empty line, which is taken as cut
/// short (a warning; the line is kept in the tail or the next group's source).
pub(crate) fn read(text: &str) -> Result<Read, LineError> {
    let mut out = Read::default();
    let mut lines = Vec::new();
    let mut spans = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end =
            memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i + 1);
        spans.push((start, end));
        start = end;
    }
    let last_nonempty = spans
        .iter()
        .rposition(|&(s, e)| !text[s..e].trim().is_empty());
    for (i, &(s, e)) in spans.iter().enumerate() {
        let line = i + 1;
        let raw = text[s..e].trim_end_matches('\n');
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let (timestamp, kind) = if raw.trim().is_empty() {
            (None, Line::Other)
        } else {
            match classify(line, raw, &mut out) {
                Ok(parsed) => parsed,
                Err(error) if Some(i) == last_nonempty => {
                    out.warnings.push(Warning::at_line(
                        line,
                        format!(
                            "line is not valid JSON (cut short?), kept in the source only: {}",
                            short_error(&error)
                        ),
                    ));
                    (None, Line::Other)
                }
                Err(error) => return Err(LineError { line, error }),
            }
        };
        lines.push(Parsed {
            line,
            span: (s, e),
            timestamp,
            kind,
        });
    }
    group(&mut lines, &mut out);
    Ok(out)
}

/// serde_json's message without its `at line L column C` suffix.
fn short_error(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&suffix) {
        Some(bare) => format!("{bare} at column {}", e.column()),
        None => full,
    }
}

/// The timestamp and kind of one non-empty line; warnings go to `out`.
fn classify(
    line: usize,
    raw: &str,
    out: &mut Read,
) -> Result<(Option<String>, Line), serde_json::Error> {
    // One pass over the line reads the envelope; a line that is not one is checked for being
    // JSON at all (an error when it is not).
    let Ok(envelope) = serde_json::from_str::<Envelope<'_>>(raw) else {
        serde_json::from_str::<serde::de::IgnoredAny>(raw)?;
        out.warnings.push(Warning::at_line(
            line,
            "not a JSON object with a record envelope, kept in the source only",
        ));
        return Ok((None, Line::Other));
    };
    let timestamp = envelope.timestamp.and_then(json::metadata_text);
    let Some(Value::String(kind)) = envelope.kind else {
        out.warnings.push(Warning::at_line(
            line,
            "record has no string `type`, kept in the source only",
        ));
        return Ok((timestamp, Line::Other));
    };
    if RECORD_TYPES.contains(&kind.as_str()) {
        out.any_record = true;
    } else {
        out.warnings.push(Warning::at_line(
            line,
            format!(
                "unknown record type `{}`, kept in the source only",
                json::clip(&kind)
            ),
        ));
        return Ok((timestamp, Line::Other));
    }
    let raw_payload = envelope.payload.map(RawValue::get).unwrap_or_default();
    if !raw_payload.starts_with('{') {
        if kind != "turn_context" && kind != "event_msg" {
            out.warnings.push(Warning::at_line(
                line,
                format!("`{kind}` record has no `payload` object, kept in the source only"),
            ));
        }
        return Ok((timestamp, Line::Other));
    }
    match kind.as_str() {
        // Context lines hold nothing a message needs: their payload is not read.
        "turn_context" => return Ok((timestamp, Line::Other)),
        "event_msg" => {
            let event: Event = serde_json::from_str(raw_payload)?;
            return Ok((timestamp, event_line(event, out)));
        }
        _ => {}
    }
    let Value::Object(mut payload) = serde_json::from_str::<Value>(raw_payload)? else {
        return Ok((timestamp, Line::Other));
    };
    let kind = match kind.as_str() {
        "session_meta" => session_meta(payload),
        "compacted" => match json::take_opt_string(&mut payload, "message", "payload") {
            Ok(message) => Line::Compacted {
                message: message.unwrap_or_default(),
            },
            Err(e) => {
                out.warnings.push(Warning::at_line(
                    line,
                    format!(
                        "field `{}`: {}, kept in the source only",
                        e.field, e.message
                    ),
                ));
                Line::Other
            }
        },
        "response_item" => response_item(line, payload, raw_payload, out),
        _ => Line::Other,
    };
    Ok((timestamp, kind))
}

/// The keys of an `event_msg` payload the reader uses (the rest is walked, not kept).
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type", default)]
    kind: Option<Value>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(default)]
    images: Option<Value>,
    #[serde(default)]
    call_id: Option<Value>,
    #[serde(default)]
    changes: Option<Value>,
    #[serde(default)]
    success: Option<Value>,
}

/// An `event_msg` line: a `user_message` (kept for the fallback), a `patch_apply_end`
/// (recorded for the details), anything else nothing.
fn event_line(event: Event, out: &mut Read) -> Line {
    match event.kind.as_ref().and_then(Value::as_str) {
        Some("user_message") => {
            let text = match event.message {
                Some(Value::String(s)) => s,
                _ => String::new(),
            };
            let images = match event.images {
                Some(Value::Array(a)) => a
                    .into_iter()
                    .filter_map(|v| match v {
                        Value::String(s) => Some(s),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            Line::UserEvent { text, images }
        }
        Some("patch_apply_end") => {
            if let (Some(Value::String(id)), Some(changes)) = (event.call_id, event.changes) {
                let success = event.success == Some(Value::Bool(true));
                out.patch_events.insert(id, (changes, success));
            }
            Line::Other
        }
        _ => Line::Other,
    }
}

/// A `session_meta` payload.
fn session_meta(payload: Map<String, Value>) -> Line {
    let base_instructions = payload
        .get("base_instructions")
        .and_then(|b| b.get("text"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut keys = Vec::new();
    for (key, field) in [
        (keys::CODEX_SESSION_ID, "id"),
        (keys::CODEX_CWD, "cwd"),
        (keys::CODEX_CLI_VERSION, "cli_version"),
    ] {
        if let Some(v) = payload.get(field).and_then(Value::as_str) {
            keys.push((key, v.to_string()));
        }
    }
    Line::Meta {
        base_instructions,
        keys,
    }
}

/// A `response_item` payload.
fn response_item(line: usize, mut p: Map<String, Value>, raw: &str, out: &mut Read) -> Line {
    let kind = match p.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        _ => {
            out.warnings.push(Warning::at_line(
                line,
                "response item has no string `type`, kept in the source only",
            ));
            return Line::Other;
        }
    };
    let mut warn = |message: String| out.warnings.push(Warning::at_line(line, message));
    let string = |p: &mut Map<String, Value>, key: &str| match p.remove(key) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    match kind.as_str() {
        "message" => {
            let Some(role) = string(&mut p, "role") else {
                warn("message has no string `role`, kept in the source only".to_string());
                return Line::Other;
            };
            if !matches!(role.as_str(), "user" | "assistant" | "developer" | "system") {
                warn(format!(
                    "message role `{}` is unknown, kept in the source only",
                    json::clip(&role)
                ));
                return Line::Other;
            }
            Line::Msg {
                role,
                content: p.remove("content").filter(|c| !c.is_null()),
                phase: string(&mut p, "phase"),
            }
        }
        "reasoning" => Line::Reasoning(raw.to_string()),
        "function_call" | "custom_tool_call" | "local_shell_call" => {
            let call_kind = match kind.as_str() {
                "function_call" => CallKind::Function,
                "custom_tool_call" => CallKind::Custom,
                _ => CallKind::LocalShell,
            };
            let id = string(&mut p, "call_id").or_else(|| {
                (call_kind == CallKind::LocalShell)
                    .then(|| string(&mut p, "id"))
                    .flatten()
            });
            let id = id.unwrap_or_else(|| {
                warn(format!("`{kind}` has no string `call_id`; its id is empty"));
                String::new()
            });
            let (name, arguments) = match call_kind {
                CallKind::Function => {
                    let arguments = match p.remove("arguments") {
                        Some(Value::String(s)) => s,
                        other => {
                            warn(format!(
                                "call {id} has arguments that are not a string; written as compact JSON"
                            ));
                            other.map(|v| v.to_string()).unwrap_or_default()
                        }
                    };
                    (string(&mut p, "name").unwrap_or_default(), arguments)
                }
                CallKind::Custom => {
                    let input = string(&mut p, "input").unwrap_or_default();
                    let arguments = serde_json::json!({ "input": input }).to_string();
                    (string(&mut p, "name").unwrap_or_default(), arguments)
                }
                CallKind::LocalShell => (
                    "local_shell".to_string(),
                    p.remove("action").unwrap_or(Value::Null).to_string(),
                ),
            };
            if call_kind == CallKind::Function
                && serde_json::from_str::<serde::de::IgnoredAny>(&arguments).is_err()
            {
                warn(format!("call {id} has arguments that are not JSON"));
            }
            Line::Call {
                kind: call_kind,
                id,
                name,
                arguments,
                namespace: string(&mut p, "namespace"),
            }
        }
        "function_call_output" | "custom_tool_call_output" => {
            let call_id = string(&mut p, "call_id").unwrap_or_else(|| {
                warn(format!("`{kind}` has no string `call_id`; its id is empty"));
                String::new()
            });
            Line::Output {
                custom: kind == "custom_tool_call_output",
                call_id,
                output: p.remove("output"),
                name: string(&mut p, "name"),
            }
        }
        k if SOURCE_ONLY_ITEMS.contains(&k) => Line::Other,
        other => {
            warn(format!(
                "unknown response item type `{}`, kept in the source only",
                json::clip(other)
            ));
            Line::Other
        }
    }
}

/// The assistant message being gathered: reasoning, then text, then calls.
#[derive(Default)]
struct Step {
    /// The raw texts of the reasoning items before it.
    reasoning: Vec<String>,
    /// The assistant `message` item's content and `phase`, when there is one.
    text: Option<(Option<Content>, Option<String>)>,
    /// The calls, with their kind and `namespace`.
    calls: Vec<(CallKind, ToolCall, Option<String>)>,
    /// The byte ranges of the lines of its items.
    model_lines: Vec<(usize, usize)>,
    /// Line number and timestamp of the first item that is not reasoning.
    first: Option<(usize, Option<String>)>,
    /// The end of its last line (a byte offset).
    end: usize,
}

impl Step {
    fn is_empty(&self) -> bool {
        self.text.is_none() && self.calls.is_empty()
    }

    /// Takes the reasoning items waiting before this step's next item.
    fn take_reasoning(&mut self, pending: &mut Vec<(usize, String, (usize, usize))>) {
        for (_, raw, span) in pending.drain(..) {
            self.reasoning.push(raw);
            self.model_lines.push(span);
        }
    }

    /// Records the line of an item of the step (its text or a call).
    fn take_line(&mut self, line: usize, span: (usize, usize), timestamp: &Option<String>) {
        self.model_lines.push(span);
        self.first.get_or_insert((line, timestamp.clone()));
        self.end = span.1;
    }

    fn message(self) -> Message {
        let mut m = Message {
            role: Role::Assistant,
            ..Message::default()
        };
        if let Some((content, phase)) = self.text {
            m.content = content;
            if let Some(phase) = phase {
                m.metadata.insert(keys::CODEX_PHASE.to_string(), phase);
            }
        }
        if !self.reasoning.is_empty() {
            m.metadata.insert(
                "reasoning".to_string(),
                format!("[{}]", self.reasoning.join(",")),
            );
        }
        let ids = |kind: CallKind| {
            self.calls
                .iter()
                .filter(|(k, ..)| *k == kind)
                .map(|(_, c, _)| c.id.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let custom = ids(CallKind::Custom);
        if !custom.is_empty() {
            m.metadata.insert(keys::CUSTOM_CALLS.to_string(), custom);
        }
        let shell = ids(CallKind::LocalShell);
        if self.calls.iter().any(|(k, ..)| *k == CallKind::LocalShell) {
            m.metadata
                .insert(keys::CODEX_LOCAL_SHELL_CALLS.to_string(), shell);
        }
        let namespaces: Map<String, Value> = self
            .calls
            .iter()
            .filter_map(|(_, c, ns)| Some((c.id.clone(), Value::String(ns.clone()?))))
            .collect();
        if !namespaces.is_empty() {
            m.metadata.insert(
                keys::CODEX_NAMESPACES.to_string(),
                Value::Object(namespaces).to_string(),
            );
        }
        if let Some((line, timestamp)) = self.first {
            m.metadata
                .insert(keys::CODEX_LINE.to_string(), line.to_string());
            if let Some(t) = timestamp {
                m.metadata.insert(TIMESTAMP_METADATA_KEY.to_string(), t);
            }
        }
        m.tool_calls = self.calls.into_iter().map(|(_, c, _)| c).collect();
        m
    }
}

/// The text kind of a role's content parts.
pub(crate) fn text_kind(role: &str) -> &'static str {
    if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    }
}

/// A content array (or string) as canonical content: one part of the role's text kind is
/// text; anything else is parts in the chat shape (text parts of the role's text kind become
/// `{"type":"text"}`, `input_image` parts `{"type":"image_url"}`, other parts stay as they are).
pub(crate) fn content(value: Value, kind: &str) -> Content {
    match value {
        Value::String(s) => Content::Text(s),
        Value::Array(parts) => {
            if let [only] = parts.as_slice()
                && let Some(text) = text_part(only, kind)
            {
                return Content::Text(text.to_string());
            }
            Content::Parts(parts.into_iter().map(|p| chat_part(p, kind)).collect())
        }
        other => Content::Parts(vec![other]),
    }
}

/// The text of a part that is exactly `{"type":kind,"text":…}`.
fn text_part<'v>(part: &'v Value, kind: &str) -> Option<&'v str> {
    let obj = part.as_object()?;
    if obj.len() != 2 || obj.get("type")?.as_str()? != kind {
        return None;
    }
    obj.get("text")?.as_str()
}

fn chat_part(part: Value, kind: &str) -> Value {
    if let Some(text) = text_part(&part, kind) {
        return serde_json::json!({"type": "text", "text": text});
    }
    if let Some(obj) = part.as_object()
        && obj.get("type").and_then(Value::as_str) == Some("input_image")
        && let Some(url) = obj.get("image_url").and_then(Value::as_str)
        && obj
            .keys()
            .all(|k| matches!(k.as_str(), "type" | "image_url" | "detail"))
    {
        let mut image = Map::new();
        image.insert("url".to_string(), Value::String(url.to_string()));
        if let Some(detail) = obj.get("detail") {
            image.insert("detail".to_string(), detail.clone());
        }
        return serde_json::json!({"type": "image_url", "image_url": image});
    }
    part
}

/// The joined text parts of a user message's content, for matching an `event_msg`.
fn user_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Whether a user message's text stands for an `event_msg` `user_message`'s text.
fn same_turn(message_text: &str, event_text: &str) -> bool {
    let event = event_text.trim();
    event.is_empty() || message_text.trim() == event || message_text.contains(event)
}

/// The groups being made: the read so far, where the next group's source starts, the step
/// being gathered, the reasoning items waiting for one, and the `session_meta` keys waiting
/// for the next message.
struct Grouper<'r> {
    out: &'r mut Read,
    src_start: usize,
    step: Option<Step>,
    pending: Vec<(usize, String, (usize, usize))>,
    session_keys: Vec<(&'static str, String)>,
}

impl Grouper<'_> {
    /// Ends a group at byte `end` with `messages`, the waiting session keys on the first.
    fn push(&mut self, end: usize, model_lines: Vec<(usize, usize)>, mut messages: Vec<Message>) {
        if let Some(first) = messages.first_mut() {
            for (k, v) in self.session_keys.drain(..) {
                first.metadata.insert(k.to_string(), v);
            }
        }
        self.out.groups.push(Group {
            source: (self.src_start, end),
            model_lines,
            messages,
        });
        self.src_start = end;
    }

    /// Ends the step being gathered, if any, as a group.
    fn close(&mut self) {
        if let Some(s) = self.step.take() {
            let end = s.end;
            let model_lines = s.model_lines.clone();
            self.push(end, model_lines, vec![s.message()]);
        }
    }

    /// Warns of each waiting reasoning item: nothing follows it to carry it.
    fn orphan_reasoning(&mut self) {
        for (line, ..) in self.pending.drain(..) {
            self.out.warnings.push(Warning::at_line(
                line,
                "reasoning item is not followed by an assistant message or tool call, kept in the source only",
            ));
        }
    }

    /// A message made from the line at `span` alone: the step and reasoning before it end
    /// there.
    fn lone(&mut self, span: (usize, usize), m: Message) {
        self.close();
        self.orphan_reasoning();
        self.push(span.1, vec![span], vec![m]);
    }
}

/// Walks the parsed lines into groups.
fn group(lines: &mut [Parsed], out: &mut Read) {
    let mut g = Grouper {
        out,
        src_start: 0,
        step: None,
        pending: Vec::new(),
        session_keys: Vec::new(),
    };
    // The group index and text of the last group when it is a user message with only lines
    // that make no message after it.
    let mut last_user: Option<(usize, String)> = None;

    for i in 0..lines.len() {
        let (done, rest) = lines.split_at_mut(i + 1);
        let p = &mut done[i];
        let (line_no, span, timestamp) = (p.line, p.span, p.timestamp.take());
        let stamp = |m: &mut Message| {
            m.metadata
                .insert(keys::CODEX_LINE.to_string(), line_no.to_string());
            if let Some(t) = &timestamp {
                m.metadata
                    .insert(TIMESTAMP_METADATA_KEY.to_string(), t.clone());
            }
        };
        match &mut p.kind {
            Line::Other => continue,
            Line::UserEvent { text, images } => {
                if let Some((index, message_text)) = &last_user
                    && same_turn(message_text, text)
                {
                    // The event repeats the user message before it: it joins that group.
                    if let Some(group) = g.out.groups.get_mut(*index) {
                        group.source.1 = span.1;
                        group.model_lines.push(span);
                        g.src_start = span.1;
                    }
                    last_user = None;
                    continue;
                }
                let next = rest.iter().find(|q| !matches!(q.kind, Line::Other));
                if let Some(Parsed {
                    kind: Line::Msg { role, content, .. },
                    ..
                }) = next
                    && role == "user"
                    && same_turn(&user_text(content.as_ref()), text)
                {
                    // The user message after it stands for it: the event stays in its source.
                    continue;
                }
                last_user = None;
                let content = if images.is_empty() {
                    Content::Text(text.clone())
                } else {
                    let mut parts = vec![serde_json::json!({"type": "text", "text": text})];
                    parts.extend(images.iter().map(
                        |url| serde_json::json!({"type": "image_url", "image_url": {"url": url}}),
                    ));
                    Content::Parts(parts)
                };
                let mut m = Message {
                    role: Role::User,
                    content: Some(content),
                    ..Message::default()
                };
                m.metadata
                    .insert(keys::CODEX_USER_EVENT.to_string(), "true".to_string());
                stamp(&mut m);
                g.lone(span, m);
                continue;
            }
            _ => {}
        }
        last_user = None;
        match &mut p.kind {
            Line::Other | Line::UserEvent { .. } => {}
            Line::Meta {
                base_instructions,
                keys: meta_keys,
            } => {
                g.session_keys.extend(meta_keys.iter().cloned());
                if let Some(text) = base_instructions {
                    let mut m = Message::text(Role::System, text.clone());
                    m.metadata.insert(
                        keys::CODEX_BASE_INSTRUCTIONS.to_string(),
                        "true".to_string(),
                    );
                    stamp(&mut m);
                    g.lone(span, m);
                }
            }
            Line::Reasoning(raw) => {
                if g.step.as_ref().is_some_and(|s| !s.is_empty()) {
                    g.close();
                }
                g.pending.push((line_no, std::mem::take(raw), span));
            }
            Line::Msg {
                role,
                content: raw_content,
                phase,
            } if role == "assistant" => {
                if g.step.as_ref().is_some_and(|s| !s.is_empty()) {
                    g.close();
                }
                let s = g.step.get_or_insert_with(Step::default);
                s.take_reasoning(&mut g.pending);
                s.text = Some((
                    raw_content.take().map(|c| content(c, "output_text")),
                    phase.clone(),
                ));
                s.take_line(line_no, span, &timestamp);
            }
            Line::Call {
                kind,
                id,
                name,
                arguments,
                namespace,
            } => {
                if !g.pending.is_empty() && g.step.as_ref().is_some_and(|s| !s.is_empty()) {
                    g.close();
                }
                let s = g.step.get_or_insert_with(Step::default);
                s.take_reasoning(&mut g.pending);
                s.calls.push((
                    *kind,
                    ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments: std::mem::take(arguments),
                    },
                    namespace.clone(),
                ));
                s.take_line(line_no, span, &timestamp);
            }
            Line::Msg {
                role,
                content: raw_content,
                ..
            } => {
                let text = (role == "user").then(|| user_text(raw_content.as_ref()));
                let mut m = Message {
                    role: if role == "user" {
                        Role::User
                    } else {
                        Role::System
                    },
                    content: raw_content.take().map(|c| content(c, text_kind(role))),
                    ..Message::default()
                };
                if role == "developer" {
                    m.metadata
                        .insert(keys::CODEX_ROLE.to_string(), role.clone());
                }
                stamp(&mut m);
                g.lone(span, m);
                if let Some(text) = text {
                    last_user = Some((g.out.groups.len() - 1, text));
                }
            }
            Line::Output {
                custom,
                call_id,
                output,
                name,
            } => {
                let content = match output {
                    None | Some(Value::Null) => Content::Text(String::new()),
                    Some(v) => content(v.take(), "input_text"),
                };
                let mut m = Message {
                    role: Role::Tool,
                    tool_call_id: Some(call_id.clone()),
                    name: name.clone(),
                    ..Message::default()
                };
                if let Content::Text(text) = &content {
                    output_notes(text, &mut m.metadata);
                }
                m.content = Some(content);
                if *custom {
                    m.metadata
                        .insert(keys::CUSTOM_CALLS.to_string(), call_id.clone());
                }
                stamp(&mut m);
                g.lone(span, m);
            }
            Line::Compacted { message } => {
                let mut m = Message::text(Role::User, message.clone());
                m.metadata
                    .insert(keys::CODEX_COMPACTED.to_string(), "true".to_string());
                stamp(&mut m);
                g.lone(span, m);
            }
        }
    }
    g.close();
    g.orphan_reasoning();
    g.out.tail_start = g.src_start;
}

/// Codex's notes in a tool output's text, as metadata: the exit code (and the error flag when
/// it is not 0), the original token count and the truncation notes.
fn output_notes(text: &str, metadata: &mut BTreeMap<String, String>) {
    // An exec output that is a JSON object: `{"output":…,"metadata":{"exit_code":N,…}}`.
    let mut inner = None;
    let mut exit: Option<i64> = None;
    if text.starts_with('{')
        && let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(text)
    {
        exit = obj
            .get("metadata")
            .and_then(|m| m.get("exit_code"))
            .and_then(Value::as_i64);
        inner = obj
            .get("output")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    let body = inner.as_deref().unwrap_or(text);
    let mut after_output = false;
    for line in body.lines().take(16) {
        if after_output {
            if let Some(n) = line.strip_prefix("Total output lines: ")
                && n.trim().parse::<u64>().is_ok()
            {
                metadata.insert(
                    keys::CODEX_TOTAL_OUTPUT_LINES.to_string(),
                    n.trim().to_string(),
                );
            }
            break;
        }
        if line == "Output:" {
            after_output = true;
        } else if let Some(n) = line
            .strip_prefix("Process exited with code ")
            .or_else(|| line.strip_prefix("Exit code: "))
            && exit.is_none()
        {
            exit = n.trim().parse().ok();
        } else if let Some(n) = line.strip_prefix("Original token count: ")
            && n.trim().parse::<u64>().is_ok()
        {
            metadata.insert(
                keys::CODEX_ORIGINAL_TOKEN_COUNT.to_string(),
                n.trim().to_string(),
            );
        } else if let Some(n) = line.strip_prefix("Total output lines: ")
            && n.trim().parse::<u64>().is_ok()
        {
            metadata.insert(
                keys::CODEX_TOTAL_OUTPUT_LINES.to_string(),
                n.trim().to_string(),
            );
        }
    }
    if let Some(n) = truncated_tokens(body) {
        metadata.insert(keys::CODEX_TRUNCATED_TOKENS.to_string(), n.to_string());
    }
    if let Some(code) = exit {
        metadata.insert(keys::CODEX_EXIT_CODE.to_string(), code.to_string());
        if code != 0 {
            metadata.insert(IS_ERROR_METADATA_KEY.to_string(), "true".to_string());
        }
    }
}

/// The N of the first `…N tokens truncated…` in `text`.
fn truncated_tokens(text: &str) -> Option<u64> {
    let mut rest = text;
    while let Some(at) = rest.find('\u{2026}') {
        let after = &rest[at + '\u{2026}'.len_utf8()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(" tokens truncated\u{2026}") {
            return after[..digits].parse().ok();
        }
        rest = after;
    }
    None
}
