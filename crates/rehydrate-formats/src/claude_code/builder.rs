//! Turning the chain's records into canonical messages.

use std::collections::{BTreeMap, HashMap, HashSet};

use rehydrate_model::{Content, Message, Role, ToolCall};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Record, cards};
use crate::{Warning, json};

/// User content block types that are kept as content parts without a warning.
const KNOWN_USER_BLOCKS: [&str; 4] = ["text", "image", "document", "tool_result"];

/// Metadata keys (docs/FORMATS.md, "Importers", "Claude Code").
const KEY_LINE: &str = "claude_code.line";
const KEY_UUID: &str = "claude_code.uuid";
const KEY_TIMESTAMP: &str = rehydrate_model::TIMESTAMP_METADATA_KEY;
const KEY_MESSAGE_ID: &str = "claude_code.message_id";
const KEY_META: &str = "claude_code.meta";
const KEY_COMPACT_SUMMARY: &str = "claude_code.compact_summary";
const KEY_COMPACT_BOUNDARY: &str = "claude_code.compact_boundary";
const KEY_IS_ERROR: &str = rehydrate_model::IS_ERROR_METADATA_KEY;
const KEY_THINKING: &str = "thinking";
const KEY_THINKING_SIGNATURE: &str = "thinking_signature";
const KEY_REDACTED_THINKING: &str = "redacted_thinking";

/// An assistant message being merged from consecutive lines sharing a `message.id`.
struct OpenAssistant {
    /// Index of the message in [`Builder::messages`].
    index: usize,
    /// The shared `message.id`.
    message_id: Option<String>,
    texts: Vec<String>,
    thinking: Vec<String>,
    signatures: Vec<String>,
    redacted: Vec<String>,
}

/// A tool call seen so far.
struct Call {
    id: String,
    /// The line of the `tool_use` block.
    line: usize,
    answered: bool,
    /// The tool's name when it is one of [`cards::FILE_TOOLS`].
    file_tool: Option<&'static str>,
    /// The path the arguments of a file tool name.
    path: Option<String>,
}

/// Turns the chain's records into canonical messages.
#[derive(Default)]
pub(super) struct Builder {
    messages: Vec<Message>,
    pub(super) warnings: Vec<Warning>,
    open: Option<OpenAssistant>,
    /// Every `message.id` an assistant message was started for.
    message_ids: HashSet<String>,
    /// Tool calls in order.
    calls: Vec<Call>,
    /// Call id → latest index in `calls`.
    call_index: HashMap<String, usize>,
    /// A compact boundary was passed and no message was emitted since.
    boundary: bool,
}

impl Builder {
    /// Consumes one chain record; `speaks` tells whether a user or assistant record makes
    /// messages (a sidechain record in a main session file is only a link).
    pub(super) fn record(&mut self, record: &mut Record, speaks: bool) {
        match record.kind.as_str() {
            "assistant" if speaks => self.assistant(record),
            "user" if speaks => self.user(record),
            "system"
                if record.obj.get("subtype").and_then(Value::as_str)
                    == Some("compact_boundary") =>
            {
                self.close();
                self.boundary = true;
            }
            _ => {}
        }
    }

    /// Metadata every message from `record` starts with.
    fn base_metadata(&mut self, record: &Record) -> BTreeMap<String, String> {
        let mut metadata = BTreeMap::new();
        metadata.insert(KEY_LINE.to_string(), record.line.to_string());
        if let Some(uuid) = &record.uuid {
            metadata.insert(KEY_UUID.to_string(), uuid.clone());
        }
        if let Some(ts) = record.obj.get("timestamp").and_then(Value::as_str) {
            metadata.insert(KEY_TIMESTAMP.to_string(), ts.to_string());
        }
        if std::mem::take(&mut self.boundary) {
            metadata.insert(KEY_COMPACT_BOUNDARY.to_string(), "true".to_string());
        }
        metadata
    }

    /// An assistant line: merged into the open assistant message when it continues it.
    fn assistant(&mut self, record: &mut Record) {
        let line = record.line;
        let mut obj = std::mem::take(&mut record.obj);
        let Some(Value::Object(mut message)) = obj.remove("message") else {
            self.warn(line, "assistant line has no `message` object, skipped");
            return;
        };
        let message_id = match message.remove("id") {
            Some(Value::String(id)) => Some(id),
            _ => None,
        };
        let blocks = match message.remove("content") {
            Some(Value::Array(blocks)) => blocks,
            Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
            None | Some(Value::Null) => Vec::new(),
            Some(other) => {
                let kind = json::kind(&other);
                self.warn(
                    line,
                    format!("assistant message content is {kind}, skipped"),
                );
                return;
            }
        };
        record.obj = obj;
        let continues = matches!(
            (&self.open, &message_id),
            (Some(open), Some(id)) if open.message_id.as_deref() == Some(id.as_str())
        );
        if !continues {
            self.close();
            if let Some(id) = &message_id
                && !self.message_ids.insert(id.clone())
            {
                self.warn(
                        line,
                        format!(
                            "assistant message {id} continues after other messages; kept as a separate message"
                        ),
                    );
            }
            let mut metadata = self.base_metadata(record);
            if let Some(id) = &message_id {
                metadata.insert(KEY_MESSAGE_ID.to_string(), id.clone());
            }
            self.messages.push(Message {
                role: Role::Assistant,
                metadata,
                ..Message::default()
            });
            self.open = Some(OpenAssistant {
                index: self.messages.len() - 1,
                message_id,
                texts: Vec::new(),
                thinking: Vec::new(),
                signatures: Vec::new(),
                redacted: Vec::new(),
            });
        }
        // Read while parsing (on the parse threads), for lines with a tool_use block.
        let mut raw_inputs = record.raw_inputs.take();
        for (j, block) in blocks.into_iter().enumerate() {
            let raw = raw_inputs
                .as_mut()
                .and_then(|r| r.get_mut(j))
                .and_then(Option::take);
            self.assistant_block(line, block, raw);
        }
    }

    /// One content block of an assistant line, added to the open assistant message.
    fn assistant_block(&mut self, line: usize, block: Value, raw_input: Option<String>) {
        let Value::Object(mut block) = block else {
            self.warn(line, "assistant content block is not an object, dropped");
            return;
        };
        let kind = match block.remove("type") {
            Some(Value::String(kind)) => kind,
            _ => {
                self.warn(line, "assistant content block has no `type`, dropped");
                return;
            }
        };
        let text_of = |block: &mut Map<String, Value>, key: &str| match block.remove(key) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        let mut malformed = false;
        let mut new_call = None;
        match kind.as_str() {
            "text" => match text_of(&mut block, "text") {
                Some(text) => self.with_open(|o| o.texts.push(text)),
                None => malformed = true,
            },
            "thinking" => match text_of(&mut block, "thinking") {
                Some(thinking) => {
                    let signature = text_of(&mut block, "signature");
                    self.with_open(|o| {
                        o.thinking.push(thinking);
                        o.signatures.extend(signature);
                    });
                }
                None => malformed = true,
            },
            "redacted_thinking" => match text_of(&mut block, "data") {
                Some(data) => self.with_open(|o| o.redacted.push(data)),
                None => malformed = true,
            },
            "tool_use" => match (text_of(&mut block, "id"), text_of(&mut block, "name")) {
                (Some(id), Some(name)) => {
                    let arguments = match (raw_input, block.remove("input")) {
                        (Some(raw), _) => raw,
                        (None, Some(input)) => input.to_string(),
                        (None, None) => {
                            self.warn(
                                line,
                                format!("tool call {id} has no `input`; arguments set to {{}}"),
                            );
                            "{}".to_string()
                        }
                    };
                    new_call = Some(ToolCall {
                        id,
                        name,
                        arguments,
                    });
                }
                _ => malformed = true,
            },
            other => {
                let other = json::clip(other);
                self.warn(
                    line,
                    format!("unknown assistant content block type `{other}`, dropped"),
                );
            }
        }
        if malformed {
            self.warn(line, format!("malformed `{kind}` block, dropped"));
        }
        if let Some(call) = new_call {
            self.call_index.insert(call.id.clone(), self.calls.len());
            let file_tool = cards::FILE_TOOLS.iter().copied().find(|&t| t == call.name);
            self.calls.push(Call {
                id: call.id.clone(),
                line,
                answered: false,
                path: file_tool.and_then(|_| cards::argument_path(&call.arguments)),
                file_tool,
            });
            let index = self.open.as_ref().map(|o| o.index);
            if let Some(msg) = index.and_then(|i| self.messages.get_mut(i)) {
                msg.tool_calls.push(call);
            }
        }
    }

    /// Runs `f` on the open assistant message, if any.
    fn with_open(&mut self, f: impl FnOnce(&mut OpenAssistant)) {
        if let Some(open) = &mut self.open {
            f(open);
        }
    }

    /// A user line: tool results become tool messages, other content one user message.
    fn user(&mut self, record: &mut Record) {
        self.close();
        let line = record.line;
        let mut obj = std::mem::take(&mut record.obj);
        let flag = |key: &str| obj.get(key).and_then(Value::as_bool) == Some(true);
        let (meta, compact_summary) = (flag("isMeta"), flag("isCompactSummary"));
        let Some(Value::Object(mut message)) = obj.remove("message") else {
            self.warn(line, "user line has no `message` object, skipped");
            return;
        };
        let content = message.remove("content");
        let card = obj.remove("toolUseResult");
        record.obj = obj;
        let mut extra = BTreeMap::new();
        if meta {
            extra.insert(KEY_META.to_string(), "true".to_string());
        }
        if compact_summary {
            extra.insert(KEY_COMPACT_SUMMARY.to_string(), "true".to_string());
        }
        let blocks = match content {
            Some(Value::String(text)) => {
                let mut metadata = self.base_metadata(record);
                metadata.append(&mut extra);
                self.messages.push(Message {
                    role: Role::User,
                    content: Some(Content::Text(text)),
                    metadata,
                    ..Message::default()
                });
                return;
            }
            Some(Value::Array(blocks)) => blocks,
            None | Some(Value::Null) => {
                self.warn(line, "user line has no message content, skipped");
                return;
            }
            Some(other) => {
                let kind = json::kind(&other);
                self.warn(line, format!("user message content is {kind}, skipped"));
                return;
            }
        };
        let mut others = Vec::new();
        let mut tool_results = 0;
        // A card describes the line's only tool result; shared by several, it describes none.
        let single_result = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .count()
            == 1;
        let mut card = card.filter(|_| single_result);
        for block in blocks {
            let kind = block
                .get("type")
                .and_then(Value::as_str)
                .map(str::to_string);
            match (block, kind.as_deref()) {
                (Value::Object(map), Some("tool_result")) => {
                    tool_results += 1;
                    let mut msg = self.tool_result(line, map, card.take());
                    let mut metadata = self.base_metadata(record);
                    metadata.extend(extra.clone());
                    metadata.append(&mut msg.metadata);
                    msg.metadata = metadata;
                    self.messages.push(msg);
                }
                (block, kind) => {
                    match kind {
                        Some(kind) if KNOWN_USER_BLOCKS.contains(&kind) => {}
                        Some(kind) => self.warn(
                            line,
                            format!(
                                "unknown user content block type `{}`, kept as a content part",
                                json::clip(kind)
                            ),
                        ),
                        None => self.warn(
                            line,
                            "user content block has no `type`, kept as a content part",
                        ),
                    }
                    others.push(block);
                }
            }
        }
        if others.is_empty() && tool_results > 0 {
            return;
        }
        let mut metadata = self.base_metadata(record);
        metadata.append(&mut extra);
        self.messages.push(Message {
            role: Role::User,
            content: Some(blocks_content(others, "\n")),
            metadata,
            ..Message::default()
        });
    }

    /// One `tool_result` block as a tool message (metadata other than `is_error` is added by
    /// the caller); `card` is the line's `toolUseResult` when it describes this block alone.
    fn tool_result(
        &mut self,
        line: usize,
        mut block: Map<String, Value>,
        card: Option<Value>,
    ) -> Message {
        let tool_call_id = match block.remove("tool_use_id") {
            Some(Value::String(id)) => Some(id),
            _ => None,
        };
        // Anything but `false`, null or absent is taken as a failure (a failed result proves
        // nothing, which is the safe reading of a value that is not a boolean).
        let is_error = match block.get("is_error") {
            None | Some(Value::Null | Value::Bool(false)) => false,
            Some(Value::Bool(true)) => true,
            Some(other) => {
                let kind = json::kind(other);
                self.warn(
                    line,
                    format!("tool_result `is_error` is {kind}, taken as a failure"),
                );
                true
            }
        };
        let mut details = None;
        match &tool_call_id {
            Some(id) => match self.call_index.get(id).and_then(|&k| self.calls.get_mut(k)) {
                Some(call) => {
                    call.answered = true;
                    if let (Some(tool), false) = (call.file_tool, is_error) {
                        details = cards::details(tool, card, call.path.as_deref()).map(Box::new);
                    }
                }
                None => self.warn(line, format!("tool result {id} has no tool call")),
            },
            None => self.warn(line, "tool_result block has no `tool_use_id`"),
        }
        let content = match block.remove("content") {
            None | Some(Value::Null) => Content::Text(String::new()),
            Some(Value::String(text)) => Content::Text(text),
            Some(Value::Array(items)) => blocks_content(items, "\n"),
            Some(other) => {
                let kind = json::kind(&other);
                self.warn(
                    line,
                    format!("tool result content is {kind}, kept as one content part"),
                );
                Content::Parts(vec![other])
            }
        };
        let mut metadata = BTreeMap::new();
        if is_error {
            metadata.insert(KEY_IS_ERROR.to_string(), "true".to_string());
        }
        Message {
            role: Role::Tool,
            content: Some(content),
            tool_call_id,
            metadata,
            details,
            ..Message::default()
        }
    }

    /// Writes the open assistant message's accumulated text and reasoning, and closes it.
    fn close(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        let Some(msg) = self.messages.get_mut(open.index) else {
            return;
        };
        if !open.texts.is_empty() {
            msg.content = Some(Content::Text(open.texts.join("\n\n")));
        }
        for (key, parts, sep) in [
            (KEY_THINKING, open.thinking, "\n\n"),
            (KEY_THINKING_SIGNATURE, open.signatures, "\n"),
            (KEY_REDACTED_THINKING, open.redacted, "\n"),
        ] {
            if !parts.is_empty() {
                msg.metadata.insert(key.to_string(), parts.join(sep));
            }
        }
    }

    /// Closes the open message, adds the unanswered-call warnings and returns the messages.
    pub(super) fn finish(&mut self) -> Vec<Message> {
        self.close();
        for Call {
            id, line, answered, ..
        } in std::mem::take(&mut self.calls)
        {
            if !answered {
                self.warn(line, format!("tool call {id} has no tool result"));
            }
        }
        std::mem::take(&mut self.messages)
    }

    fn warn(&mut self, line: usize, message: impl Into<String>) {
        self.warnings.push(Warning::at_line(line, message));
    }
}

/// Content from a list of blocks: the texts joined with `separator` when every block is
/// `{"type":"text","text":…}`, the blocks as they are otherwise.
fn blocks_content(blocks: Vec<Value>, separator: &str) -> Content {
    let texts: Option<Vec<&str>> = blocks
        .iter()
        .map(|b| {
            if b.get("type")?.as_str()? == "text" {
                b.get("text")?.as_str()
            } else {
                None
            }
        })
        .collect();
    match texts {
        Some(texts) => Content::Text(texts.join(separator)),
        None => Content::Parts(blocks),
    }
}

/// The `input` of each content block of an assistant line, as compact JSON text in the line's
/// own key order (`None` for blocks without one); `None` when the line does not have the
/// expected shape.
pub(super) fn raw_inputs(line: &str) -> Option<Vec<Option<String>>> {
    #[derive(serde::Deserialize)]
    struct Line<'a> {
        #[serde(borrow)]
        message: LineMessage<'a>,
    }
    #[derive(serde::Deserialize)]
    struct LineMessage<'a> {
        #[serde(borrow)]
        content: Vec<LineBlock<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct LineBlock<'a> {
        #[serde(borrow, default)]
        input: Option<&'a RawValue>,
    }
    let parsed: Line<'_> = serde_json::from_str(line).ok()?;
    Some(
        parsed
            .message
            .content
            .into_iter()
            .map(|b| b.input.map(|raw| json::minify(raw.get())))
            .collect(),
    )
}
