//! Turning the chain's records into canonical messages.

use std::collections::{BTreeMap, HashMap, HashSet};

use rehydrate_model::{Content, Message, Role, ToolCall};
use serde_json::Value;
use serde_json::value::RawValue;

use super::line::{AssistantBlock, Str, ToolResultBlock, UserBlocks, UserContent, UserItem};
use super::{AssistantLine, Body, Record, UserLine, cards};
use crate::{Warning, json};

/// Metadata keys (docs/FORMATS.md, "Importers", "Claude Code").
const KEY_LINE: &str = crate::keys::CLAUDE_CODE_LINE;
const KEY_UUID: &str = crate::keys::CLAUDE_CODE_UUID;
const KEY_TIMESTAMP: &str = rehydrate_model::TIMESTAMP_METADATA_KEY;
const KEY_MESSAGE_ID: &str = crate::keys::CLAUDE_CODE_MESSAGE_ID;
const KEY_META: &str = crate::keys::CLAUDE_CODE_META;
const KEY_COMPACT_SUMMARY: &str = crate::keys::CLAUDE_CODE_COMPACT_SUMMARY;
const KEY_COMPACT_BOUNDARY: &str = crate::keys::CLAUDE_CODE_COMPACT_BOUNDARY;
const KEY_IS_ERROR: &str = rehydrate_model::IS_ERROR_METADATA_KEY;
const KEY_THINKING: &str = rehydrate_model::THINKING_METADATA_KEY;
const KEY_THINKING_SIGNATURE: &str = rehydrate_model::THINKING_SIGNATURE_METADATA_KEY;
const KEY_REDACTED_THINKING: &str = rehydrate_model::REDACTED_THINKING_METADATA_KEY;

/// An assistant message being merged from consecutive lines sharing a `message.id`.
struct OpenAssistant<'a> {
    /// Index of the message in [`Builder::messages`].
    index: usize,
    /// The shared `message.id`.
    message_id: Option<Str<'a>>,
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

/// Turns the chain's records into canonical messages, handing each over as soon as no later
/// record can change it (every message but an open assistant message).
#[derive(Default)]
pub(super) struct Builder<'a> {
    /// The messages not handed over yet: at most the open assistant message once
    /// [`Builder::hand_over`] has run.
    messages: Vec<Message>,
    pub(super) warnings: Vec<Warning>,
    open: Option<OpenAssistant<'a>>,
    /// Every `message.id` an assistant message was started for.
    message_ids: HashSet<Str<'a>>,
    /// Tool calls in order.
    calls: Vec<Call>,
    /// Call id → latest index in `calls`.
    call_index: HashMap<String, usize>,
    /// A compact boundary was passed and no message was emitted since.
    boundary: bool,
}

impl<'a> Builder<'a> {
    /// Consumes one chain record (its body is taken); `speaks` tells whether a user or
    /// assistant record makes messages (a sidechain record in a main session file is only a
    /// link).
    pub(super) fn record(&mut self, record: &mut Record<'a>, speaks: bool) {
        let line = record.line;
        match std::mem::replace(&mut record.body, Body::None) {
            Body::Assistant(body) if speaks => self.assistant(line, record.uuid.as_deref(), body),
            Body::User(body) if speaks => self.user(line, record.uuid.as_deref(), body),
            Body::CompactBoundary => {
                self.close();
                self.boundary = true;
            }
            _ => {}
        }
    }

    /// Hands every message no later record can change to `each`, in order.
    pub(super) fn hand_over(&mut self, each: &mut dyn FnMut(Message)) {
        let done = self.open.as_ref().map_or(self.messages.len(), |o| o.index);
        if done == 0 {
            return;
        }
        self.messages.drain(..done).for_each(&mut *each);
        if let Some(open) = &mut self.open {
            open.index -= done;
        }
    }

    /// Metadata every message from the record at `line` with `uuid` and `timestamp` starts
    /// with.
    fn base_metadata(
        &mut self,
        line: usize,
        uuid: Option<&str>,
        timestamp: Option<&str>,
    ) -> BTreeMap<String, String> {
        let mut metadata = BTreeMap::new();
        metadata.insert(KEY_LINE.to_string(), line.to_string());
        if let Some(uuid) = uuid {
            metadata.insert(KEY_UUID.to_string(), uuid.to_string());
        }
        if let Some(ts) = timestamp {
            metadata.insert(KEY_TIMESTAMP.to_string(), ts.to_string());
        }
        if std::mem::take(&mut self.boundary) {
            metadata.insert(KEY_COMPACT_BOUNDARY.to_string(), "true".to_string());
        }
        metadata
    }

    /// An assistant line: merged into the open assistant message when it continues it.
    fn assistant(&mut self, line: usize, uuid: Option<&str>, body: AssistantLine<'a>) {
        let Some(message) = body.message else {
            self.warn(line, "assistant line has no `message` object, skipped");
            return;
        };
        let message_id = message.id;
        let blocks = match message.content {
            Ok(blocks) => blocks,
            Err(kind) => {
                self.warn(
                    line,
                    format!("assistant message content is {kind}, skipped"),
                );
                return;
            }
        };
        let continues = matches!(
            (&self.open, &message_id),
            (Some(open), Some(id)) if open.message_id.as_deref() == Some(id.as_ref())
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
            let mut metadata = self.base_metadata(line, uuid, body.timestamp.as_deref());
            if let Some(id) = &message_id {
                metadata.insert(KEY_MESSAGE_ID.to_string(), id.to_string());
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
        for block in blocks {
            self.assistant_block(line, block);
        }
    }

    /// One content block of an assistant line, added to the open assistant message.
    fn assistant_block(&mut self, line: usize, block: AssistantBlock) {
        let call = match block {
            AssistantBlock::Text(text) => {
                self.with_open(|o| o.texts.push(text));
                return;
            }
            AssistantBlock::Thinking {
                thinking,
                signature,
            } => {
                self.with_open(|o| {
                    o.thinking.push(thinking);
                    o.signatures.extend(signature);
                });
                return;
            }
            AssistantBlock::Redacted(data) => {
                self.with_open(|o| o.redacted.push(data));
                return;
            }
            AssistantBlock::Dropped { warning, .. } => {
                self.warn(line, warning);
                return;
            }
            AssistantBlock::Call {
                id,
                name,
                arguments,
                no_input,
            } => {
                if no_input {
                    self.warn(
                        line,
                        format!("tool call {id} has no `input`; arguments set to {{}}"),
                    );
                }
                ToolCall {
                    id,
                    name,
                    arguments,
                }
            }
        };
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

    /// Runs `f` on the open assistant message, if any.
    fn with_open(&mut self, f: impl FnOnce(&mut OpenAssistant<'a>)) {
        if let Some(open) = &mut self.open {
            f(open);
        }
    }

    /// A user line: tool results become tool messages, other content one user message.
    fn user(&mut self, line: usize, uuid: Option<&str>, body: UserLine<'a>) {
        self.close();
        let UserLine {
            timestamp,
            meta,
            compact_summary,
            content,
            card,
        } = body;
        let timestamp = timestamp.as_deref();
        let Some(content) = content else {
            self.warn(line, "user line has no `message` object, skipped");
            return;
        };
        let mut extra = BTreeMap::new();
        if meta {
            extra.insert(KEY_META.to_string(), "true".to_string());
        }
        if compact_summary {
            extra.insert(KEY_COMPACT_SUMMARY.to_string(), "true".to_string());
        }
        let UserBlocks {
            items,
            has_others,
            others,
        } = match content {
            UserContent::Text(text) => {
                let mut metadata = self.base_metadata(line, uuid, timestamp);
                metadata.append(&mut extra);
                self.messages.push(Message {
                    role: Role::User,
                    content: Some(Content::Text(text)),
                    metadata,
                    ..Message::default()
                });
                return;
            }
            UserContent::Blocks(blocks) => blocks,
            UserContent::Absent => {
                self.warn(line, "user line has no message content, skipped");
                return;
            }
            UserContent::Other(kind) => {
                self.warn(line, format!("user message content is {kind}, skipped"));
                return;
            }
        };
        let mut tool_results = 0;
        // A card describes the line's only tool result; shared by several, it describes none.
        let single_result = items
            .iter()
            .filter(|item| matches!(item, UserItem::Result(_)))
            .count()
            == 1;
        let mut card = card.filter(|_| single_result);
        for item in items {
            match item {
                UserItem::Result(block) => {
                    tool_results += 1;
                    let mut msg = self.tool_result(line, block, card.take());
                    let mut metadata = self.base_metadata(line, uuid, timestamp);
                    metadata.extend(extra.clone());
                    metadata.append(&mut msg.metadata);
                    msg.metadata = metadata;
                    self.messages.push(msg);
                }
                UserItem::Part(warning) => {
                    if let Some(warning) = warning {
                        self.warn(line, warning);
                    }
                }
            }
        }
        if !has_others && tool_results > 0 {
            return;
        }
        let mut metadata = self.base_metadata(line, uuid, timestamp);
        metadata.append(&mut extra);
        self.messages.push(Message {
            role: Role::User,
            content: Some(others),
            metadata,
            ..Message::default()
        });
    }

    /// One `tool_result` block as a tool message (metadata other than `is_error` is added by
    /// the caller); `card` is the line's `toolUseResult` when it describes this block alone.
    fn tool_result(&mut self, line: usize, block: ToolResultBlock, card: Option<Value>) -> Message {
        let ToolResultBlock {
            tool_use_id: tool_call_id,
            is_error,
            odd_is_error,
            content,
            odd_content,
        } = block;
        if let Some(kind) = odd_is_error {
            self.warn(
                line,
                format!("tool_result `is_error` is {kind}, taken as a failure"),
            );
        }
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
        if let Some(kind) = odd_content {
            self.warn(
                line,
                format!("tool result content is {kind}, kept as one content part"),
            );
        }
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
        // A first push leaves room for four calls; the message is final now.
        msg.tool_calls.shrink_to_fit();
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

    /// Closes the open message, hands the rest of the messages to `each` and adds the
    /// unanswered-call warnings.
    pub(super) fn finish(&mut self, each: &mut dyn FnMut(Message)) {
        self.close();
        self.hand_over(each);
        for Call {
            id, line, answered, ..
        } in std::mem::take(&mut self.calls)
        {
            if !answered {
                self.warn(line, format!("tool call {id} has no tool result"));
            }
        }
    }

    fn warn(&mut self, line: usize, message: impl Into<String>) {
        self.warnings.push(Warning::at_line(line, message));
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
