//! The canonical message and its model-facing wire bytes.
//!
//! Two serializations exist, both documented in docs/FORMATS.md:
//! - the *canonical* serde form (view.json, the sidecar): every field, including `observation`
//!   and `metadata`;
//! - the *wire* form ([`Message::write_wire`]): what a model would be sent, in a fixed key order,
//!   without `observation` and `metadata`. Byte counts, token counts and digests use it.

use std::collections::BTreeMap;

use crate::details::ToolDetails;

/// The role of a message, lowercase on the wire.
///
/// The default is `User`, so `Message::default()` is an empty user message.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions from the agent framework.
    System,
    /// A person, or (with `observation` set) tool output delivered in a user message.
    #[default]
    User,
    /// The model.
    Assistant,
    /// The result of a tool call.
    Tool,
}

impl Role {
    /// The lowercase wire name: `system`, `user`, `assistant` or `tool`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a message says: plain text, or a list of content parts (multimodal JSON objects such as
/// `{"type":"image_url",...}`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Content parts, each a JSON value, in order.
    Parts(Vec<serde_json::Value>),
}

impl Content {
    /// Appends the content's wire form: the text as a JSON string, or the parts as a JSON
    /// array of compact values with sorted keys (as in [`Message::write_wire`]).
    pub fn write_wire(&self, out: &mut Vec<u8>) {
        match self {
            Content::Text(t) => write_json_str(t, out),
            Content::Parts(parts) => {
                out.push(b'[');
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_json_value(p, out);
                }
                out.push(b']');
            }
        }
    }
}

/// One tool call an assistant message makes.
///
/// The canonical and wire shape is the OpenAI chat-completions one:
/// `{"id":…,"type":"function","function":{"name":…,"arguments":…}}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "ToolCallWire", into = "ToolCallWire")]
pub struct ToolCall {
    /// The call id that the tool result's `tool_call_id` names.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the raw JSON text the model wrote (not re-serialized, so not normalized).
    pub arguments: String,
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallWire {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    function: FunctionWire,
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionWire {
    name: String,
    arguments: String,
}

impl TryFrom<ToolCallWire> for ToolCall {
    type Error = String;

    fn try_from(w: ToolCallWire) -> Result<Self, Self::Error> {
        if w.kind != "function" {
            return Err(format!(
                "tool call `{}` has type `{}`, expected `function`",
                w.id, w.kind
            ));
        }
        Ok(ToolCall {
            id: w.id,
            name: w.function.name,
            arguments: w.function.arguments,
        })
    }
}

impl From<ToolCall> for ToolCallWire {
    fn from(c: ToolCall) -> Self {
        ToolCallWire {
            id: c.id,
            kind: "function".to_string(),
            function: FunctionWire {
                name: c.name,
                arguments: c.arguments,
            },
        }
    }
}

/// A canonical message: what every importer produces and every reduction addresses.
///
/// The canonical serde form (docs/FORMATS.md, "Canonical message") has the keys `role`,
/// `content` (a string or an array of parts, absent when `None`), `tool_calls` (absent when
/// empty), `tool_call_id`, `name`, `observation` (absent when false) and `metadata` (absent when
/// empty). Unknown keys are rejected.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said; `None` when the message has no content at all (an assistant message that
    /// only calls tools), which differs from `Some(Content::Text(""))`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
    /// Tool calls of an assistant message, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// On a tool result: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// An optional participant or tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Set on a user-role message that carries tool output (SWE-agent runs without function
    /// calling): the model saw it as a user message, and rehydrate treats it as a tool result.
    /// Never part of the wire form.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub observation: bool,
    /// Data about the message that never reaches the model (importer provenance, reasoning
    /// payloads, the id of a reduction standing in this message). Never part of the wire form.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// On a tool result: what it recorded about a file, typed from the tool's own result card
    /// (docs/FORMATS.md, "Tool-result details"); `None` for anything else. Never part of the
    /// wire form, and dropped from a stub (the sidecar keeps it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<ToolDetails>>,
}

/// The marker a host puts in a tool output it capped, between the kept prefix and the notice
/// that says how much was cut: `<kept prefix>` + `CAP_NOTICE_MARKER` + `<notice>]`. Resolution
/// serves the recorded bytes of a tool result whose minted text is such a capped prefix of them
/// (SPEC seed 000 rule 5; docs/FORMATS.md, "Two resolution sources"). Two line breaks, `[`, the
/// text `rehydrate: tool output capped`, a space, an EM DASH (U+2014) and a space.
pub const CAP_NOTICE_MARKER: &str = "\n\n[rehydrate: tool output capped \u{2014} ";

/// The metadata key of a tool result that reported failure; its value is `"true"`.
pub const IS_ERROR_METADATA_KEY: &str = "is_error";

/// The metadata key of the time the source recorded for a message, verbatim (Claude Code's
/// ISO 8601 `timestamp`).
pub const TIMESTAMP_METADATA_KEY: &str = "timestamp";

impl Message {
    /// A message with plain text content and nothing else.
    pub fn text(role: Role, text: impl Into<String>) -> Message {
        Message {
            role,
            content: Some(Content::Text(text.into())),
            ..Message::default()
        }
    }

    /// A tool result (`role: tool`) answering `tool_call_id` with plain text.
    pub fn tool_result(tool_call_id: impl Into<String>, text: impl Into<String>) -> Message {
        Message {
            role: Role::Tool,
            content: Some(Content::Text(text.into())),
            tool_call_id: Some(tool_call_id.into()),
            ..Message::default()
        }
    }

    /// An assistant message that makes one tool call, `name` with the raw JSON `arguments`,
    /// and says nothing else.
    pub fn tool_call(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Message {
        Message {
            role: Role::Assistant,
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: arguments.into(),
            }],
            ..Message::default()
        }
    }

    /// The text content, or `None` when the content is absent or made of parts.
    pub fn content_text(&self) -> Option<&str> {
        match &self.content {
            Some(Content::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// Whether this message carries tool output: `role: tool`, or a user message marked
    /// `observation`.
    pub fn is_tool_result(&self) -> bool {
        self.role == Role::Tool || (self.role == Role::User && self.observation)
    }

    /// Whether this tool result reported failure ([`IS_ERROR_METADATA_KEY`] is `"true"`).
    pub fn is_error(&self) -> bool {
        self.metadata.get(IS_ERROR_METADATA_KEY).map(String::as_str) == Some("true")
    }

    /// The time the source recorded for this message ([`TIMESTAMP_METADATA_KEY`]), verbatim.
    pub fn timestamp(&self) -> Option<&str> {
        self.metadata
            .get(TIMESTAMP_METADATA_KEY)
            .map(String::as_str)
    }

    /// Whether this message opens a *message turn*, the reducer's turn: a user message that is
    /// not an observation. A compaction summary or a system reminder written as a user message
    /// opens one too; the event log's turn number ([`SessionEvent::turn`](crate::SessionEvent))
    /// advances only at a person's message (docs/ARCHITECTURE.md, "Two meanings of turn").
    pub fn is_turn_start(&self) -> bool {
        self.role == Role::User && !self.observation
    }

    /// Appends the model-facing wire bytes of this message to `out`.
    ///
    /// The form is compact JSON with keys in this order: `role`; `content` (the parts array, or
    /// the text, absent when `None`); `tool_calls` (absent when empty); `tool_call_id`; `name`.
    /// Strings are escaped as serde_json escapes them; object keys inside content parts are
    /// written in sorted order whatever the map type, so the bytes do not depend on features.
    /// `observation` and `metadata` are never written. This is the form that is counted in
    /// `bytes_*`, tokenized and hashed (docs/FORMATS.md, "Wire bytes").
    pub fn write_wire(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"role\":\"");
        out.extend_from_slice(self.role.as_str().as_bytes());
        out.push(b'"');
        if let Some(content) = &self.content {
            out.extend_from_slice(b",\"content\":");
            content.write_wire(out);
        }
        self.write_calls_and_names(out);
        out.push(b'}');
    }

    /// The members after `content` that the wire form and the canonical form share, in that
    /// order: `tool_calls` (when any), `tool_call_id` and `name` (when set), each after a comma.
    fn write_calls_and_names(&self, out: &mut Vec<u8>) {
        if !self.tool_calls.is_empty() {
            out.extend_from_slice(b",\"tool_calls\":[");
            for (i, c) in self.tool_calls.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"id\":");
                write_json_str(&c.id, out);
                out.extend_from_slice(b",\"type\":\"function\",\"function\":{\"name\":");
                write_json_str(&c.name, out);
                out.extend_from_slice(b",\"arguments\":");
                write_json_str(&c.arguments, out);
                out.extend_from_slice(b"}}");
            }
            out.push(b']');
        }
        if let Some(id) = &self.tool_call_id {
            out.extend_from_slice(b",\"tool_call_id\":");
            write_json_str(id, out);
        }
        if let Some(name) = &self.name {
            out.extend_from_slice(b",\"name\":");
            write_json_str(name, out);
        }
    }

    /// Appends the message's canonical JSON: exactly the bytes `serde_json::to_vec(self)`
    /// gives (the session store's message records, `view.json`), written without going
    /// through serde for the message's own fields, so its strings are escaped eight bytes at a
    /// time and a tool call's arguments are not copied. Content parts and `details` are
    /// written by serde_json itself.
    ///
    /// # Panics
    ///
    /// Never: a `serde_json::Value` and the tool-result details always serialize.
    pub fn write_canonical(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"role\":\"");
        out.extend_from_slice(self.role.as_str().as_bytes());
        out.push(b'"');
        match &self.content {
            None => {}
            Some(Content::Text(t)) => {
                out.extend_from_slice(b",\"content\":");
                write_json_str(t, out);
            }
            Some(Content::Parts(parts)) => {
                out.extend_from_slice(b",\"content\":");
                serde_json::to_writer(&mut *out, parts).expect("JSON values always serialize");
            }
        }
        self.write_calls_and_names(out);
        if self.observation {
            out.extend_from_slice(b",\"observation\":true");
        }
        if !self.metadata.is_empty() {
            out.extend_from_slice(b",\"metadata\":{");
            for (i, (k, v)) in self.metadata.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_str(k, out);
                out.push(b':');
                write_json_str(v, out);
            }
            out.push(b'}');
        }
        if let Some(details) = &self.details {
            out.extend_from_slice(b",\"details\":");
            serde_json::to_writer(&mut *out, details)
                .expect("tool-result details always serialize");
        }
        out.push(b'}');
    }

    /// The wire form ([`Message::write_wire`]) as a string.
    pub fn wire_json(&self) -> String {
        let mut out = Vec::new();
        self.write_wire(&mut out);
        String::from_utf8(out).expect("the wire writer only emits UTF-8")
    }

    /// The length in bytes of the wire form ([`Message::write_wire`]), counted without writing
    /// the strings: the fixed parts are written for a copy whose strings are empty, and each
    /// string adds its [`json_str_len`]. Content parts (free-form JSON) are written.
    pub fn wire_len(&self) -> usize {
        let mut strings = 0;
        let mut emptied = |s: &str| {
            strings += json_str_len(s);
            String::new()
        };
        let skeleton = Message {
            role: self.role,
            content: match &self.content {
                None => None,
                Some(Content::Text(text)) => Some(Content::Text(emptied(text))),
                Some(Content::Parts(parts)) => Some(Content::Parts(parts.clone())),
            },
            tool_calls: self
                .tool_calls
                .iter()
                .map(|c| ToolCall {
                    id: emptied(&c.id),
                    name: emptied(&c.name),
                    arguments: emptied(&c.arguments),
                })
                .collect(),
            tool_call_id: self.tool_call_id.as_deref().map(&mut emptied),
            name: self.name.as_deref().map(&mut emptied),
            observation: false,
            metadata: BTreeMap::new(),
            details: None,
        };
        let mut out = Vec::new();
        skeleton.write_wire(&mut out);
        out.len() + strings
    }
}

/// Appends `v` as compact JSON with object keys in sorted (byte) order.
///
/// This is the canonical form of free-form JSON (content parts) inside wire bytes.
pub fn write_json_value(v: &serde_json::Value, out: &mut Vec<u8>) {
    use serde_json::Value;
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::String(s) => write_json_str(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_value(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (k, val)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_str(k, out);
                out.push(b':');
                write_json_value(val, out);
            }
            out.push(b'}');
        }
    }
}

/// The length in bytes of `s` written as the inside of a JSON string in wire bytes (escaped
/// as [`Message::write_wire`] escapes it, without the quotes). A line break counts 2 bytes.
pub fn json_str_len(s: &str) -> usize {
    let mut extra = 0;
    // 255 bytes at a time, so each per-block count fits a byte and the loops vectorize.
    for block in s.as_bytes().chunks(255) {
        let control: u8 = block.iter().map(|&b| u8::from(b < 0x20)).sum();
        let short: u8 = block
            .iter()
            .map(|&b| u8::from(matches!(b, 0x08 | b'\t' | b'\n' | 0x0c | b'\r')))
            .sum();
        let quote: u8 = block
            .iter()
            .map(|&b| u8::from((b == b'"') | (b == b'\\')))
            .sum();
        // A control character takes 6 bytes (`\u00xx`) unless it has a 2-byte short escape;
        // a quote or backslash takes 2.
        extra += 5 * usize::from(control) - 4 * usize::from(short) + usize::from(quote);
    }
    s.len() + extra
}

/// Appends `s` as a JSON string literal, escaping exactly as serde_json does: `"` and `\`,
/// `\b \f \n \r \t`, other control characters as `\u00xx`; everything else raw.
///
/// Eight bytes are looked at a time ([`escape_mask`]): a run with nothing to escape is copied
/// whole, and the next byte to escape is found in one step.
pub(crate) fn write_json_str(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 1);
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let at = match bytes.get(i..i + 8) {
            Some(word) => {
                let mask = escape_mask(u64::from_le_bytes(word.try_into().expect("eight bytes")));
                if mask == 0 {
                    i += 8;
                    continue;
                }
                // The lowest flagged byte is exact (see `escape_mask`).
                i + (mask.trailing_zeros() / 8) as usize
            }
            None => match bytes[i..]
                .iter()
                .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
            {
                Some(k) => i + k,
                None => break,
            },
        };
        out.extend_from_slice(&bytes[start..at]);
        push_escaped(bytes[at], out);
        start = at + 1;
        i = at + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Appends the escape of `b`, a byte JSON escapes (below 0x20, `"` or `\`).
fn push_escaped(b: u8, out: &mut Vec<u8>) {
    let escape: &[u8] = match b {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x08 => b"\\b",
        0x0c => b"\\f",
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
            return;
        }
    };
    out.extend_from_slice(escape);
}

/// The high bit of each byte of `word` (little-endian) that JSON escapes (below 0x20, `"` or
/// `\`), or 0 when none is. Made with the "has a byte less than n" and "has a zero byte" bit
/// tricks: a borrow can flag a byte above a flagged one, never below, so the mask is zero
/// exactly when no byte is escaped and its lowest set bit is the first byte that is.
fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let zero_in = |x: u64| x.wrapping_sub(ONES) & !x;
    (below_space | zero_in(quote) | zero_in(backslash)) & HIGH
}
