//! `export_session`: a session with every reduction inverted, written as canonical JSONL, an
//! OpenAI chat-completions body or an Anthropic Messages body, behind a leak guard (no stub
//! survives) and, for the two request bodies, a tool-link check (`check_tool_links`).
//!
//! docs/FORMATS.md, "Export", is the specification of the bytes written here.

use rehydrate_model::{
    Content, Message, REDUCTION_METADATA_KEY, ReductionLog, Role, STUB_SENTINEL, Stub, ToolCall,
    ToolDetails, check_tool_input, find_stubs, write_json_value,
};

use crate::error::Error;
use crate::invert::{check_inverts, verify_log};

/// The metadata key of an assistant message's thinking text (Claude Code's `thinking` blocks).
const THINKING_KEY: &str = "thinking";
/// The metadata key of the signatures of those thinking blocks, one per line.
const THINKING_SIGNATURE_KEY: &str = "thinking_signature";
/// The metadata key of an assistant message's `redacted_thinking` data, one block per line.
const REDACTED_THINKING_KEY: &str = "redacted_thinking";

/// The form [`export_session`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExportFormat {
    /// Canonical JSONL: one canonical message (docs/FORMATS.md, "Canonical message") per line,
    /// metadata and details included, each line ended by `\n`.
    Jsonl,
    /// An OpenAI chat-completions request body, `{"messages":[…]}`, each message in its wire
    /// form ([`Message::write_wire`]).
    OpenAi,
    /// An Anthropic Messages request body, `{"system":…,"messages":[…]}`, with content blocks.
    Anthropic,
}

impl ExportFormat {
    /// The token naming the format: `jsonl`, `openai` or `anthropic`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::OpenAi => "openai",
            ExportFormat::Anthropic => "anthropic",
        }
    }
}

impl std::fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a session could not be exported. Nothing is written when export fails: there is no
/// partial export.
///
/// Message indices are 0-based positions in the inverted messages, which are the minted view's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The view does not invert, or a reduction of the log does not verify (the error names the
    /// reduction id, or the view index of a message that stands for nothing).
    #[error(transparent)]
    Unresolved(#[from] Error),
    /// Stub text is still in an inverted message: exporting it would hand on a reduction that
    /// the exported bytes cannot resolve.
    #[error(
        "message {index}: {place} still holds the stub of reduction {id}; the export would leak it"
    )]
    StubLeft {
        /// The message index.
        index: usize,
        /// The reduction id the stub names.
        id: String,
        /// Where the stub is: `content`, `content part <n>`, `tool call <id> arguments`,
        /// `details` or ``metadata `<key>` ``.
        place: String,
    },
    /// An inverted message still carries the reduction metadata key: it stands for a reduction
    /// instead of being an original.
    #[error(
        "message {index}: metadata `{key}` still names reduction {id}; the message stands for a reduction, not an original",
        key = REDUCTION_METADATA_KEY
    )]
    ReductionKeyLeft {
        /// The message index.
        index: usize,
        /// The value of the key (the reduction id).
        id: String,
    },
    /// A tool call with no tool result among the tool messages right after its assistant
    /// message (a session saved while a tool ran ends this way).
    #[error("message {index}: tool call {call_id} has no tool result right after it")]
    DanglingCall {
        /// The index of the assistant message that makes the call.
        index: usize,
        /// The call id.
        call_id: String,
    },
    /// A tool result that does not answer a call of the assistant message right before its run
    /// of tool messages (or stands where no such message is).
    #[error(
        "message {index}: tool result {call_id} answers no tool call of the assistant message right before it"
    )]
    ResultWithoutCall {
        /// The tool result's index.
        index: usize,
        /// Its `tool_call_id`.
        call_id: String,
    },
    /// A tool result without a `tool_call_id`.
    #[error("message {index}: tool result has no tool_call_id")]
    ResultWithoutCallId {
        /// The tool result's index.
        index: usize,
    },
    /// A second tool result for the same call.
    #[error(
        "message {index}: second tool result for tool call {call_id} (the first is message {first})"
    )]
    DuplicateResult {
        /// The index of the second result.
        index: usize,
        /// The call id.
        call_id: String,
        /// The index of the first result.
        first: usize,
    },
    /// One assistant message makes two tool calls with the same id, so results cannot tell them
    /// apart.
    #[error("message {index}: tool call id {call_id} is used twice in one assistant message")]
    DuplicateCallId {
        /// The assistant message's index.
        index: usize,
        /// The call id.
        call_id: String,
    },
    /// Anthropic: a tool call whose arguments are not a JSON object, so it has no `input`.
    #[error(
        "message {index}: tool call {call_id}: arguments are not a JSON object ({reason}); an Anthropic tool_use input must be one"
    )]
    BadArguments {
        /// The assistant message's index.
        index: usize,
        /// The call id.
        call_id: String,
        /// What the arguments are instead.
        reason: String,
    },
    /// Anthropic: a system message with a content part that is not a text part, which the
    /// `system` text cannot hold.
    #[error(
        "message {index}: system content part {part} is not a text part; the Anthropic system text holds text only"
    )]
    SystemPart {
        /// The system message's index.
        index: usize,
        /// The 0-based position of the part.
        part: usize,
    },
}

impl ExportError {
    /// Whether the error is a tool call left without a tool result ([`ExportError::DanglingCall`]).
    pub fn is_dangling_call(&self) -> bool {
        matches!(self, ExportError::DanglingCall { .. })
    }

    /// Whether the error is the leak guard's: stub text or the reduction metadata key left in
    /// the inverted messages.
    pub fn is_leak(&self) -> bool {
        matches!(
            self,
            ExportError::StubLeft { .. } | ExportError::ReductionKeyLeft { .. }
        )
    }
}

/// Writes the session behind a reduced `view` with every reduction inverted, in `format`.
///
/// The view must invert under `log` to `minted_view` ([`check_inverts`]: every stub verifies and
/// renders to its view message, every other message equals the minted one) and every reduction
/// of the log must verify ([`verify_log`]); the inverted messages are then the minted view
/// itself, which is what is written. A store's recorded messages (see [`crate::Sources`]) are not
/// used: the export is the session as the host's history held it, every reduction undone.
///
/// Before anything is written, the leak guard checks the inverted messages: no message may
/// carry the [`REDUCTION_METADATA_KEY`] metadata, and no text content, content-part string,
/// tool-call argument string, `details` string or metadata value may hold a stub
/// ([`find_stubs`]).
/// The two request bodies are also checked with [`check_tool_links`]. JSONL is not: it is the
/// canonical session as it is, a dangling call included.
///
/// - [`ExportFormat::Jsonl`]: each message's canonical serde form on one line ending in `\n`;
///   reading the lines back gives exactly the inverted messages.
/// - [`ExportFormat::OpenAi`]: `{"messages":[…]}`, each message in its wire form: observations
///   stay user messages, metadata (reasoning included), `details` and `observation` are left out,
///   and so is an assistant message with neither content nor tool calls.
/// - [`ExportFormat::Anthropic`]: `{"system":"…","messages":[…]}` (docs/FORMATS.md, "Export"):
///   system texts joined with `"\n\n"` into `system` (absent when there is none); tool calls as
///   `tool_use` blocks whose `input` is the arguments text verbatim; tool results as
///   `tool_result` blocks in user messages; a lone signed thinking block, or redacted thinking
///   alone, before the rest of its assistant message, unedited, other reasoning left out whole;
///   messages with no block left out; consecutive messages of one role merged (the reasoning of
///   an assistant message merged into the one before it is left out whole: reasoning opens a
///   message).
///
/// # Errors
///
/// [`ExportError::Unresolved`] when the view does not invert or a reduction does not verify
/// (naming the reduction id or the view index); [`ExportError::ReductionKeyLeft`] and
/// [`ExportError::StubLeft`] from the leak guard; for the request bodies, the errors of
/// [`check_tool_links`]; for Anthropic, [`ExportError::BadArguments`] and
/// [`ExportError::SystemPart`].
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, ReductionLog, Role};
/// use rehydrate_sidecar::{ExportFormat, export_session};
///
/// let minted = vec![Message::text(Role::System, "be brief"), Message::text(Role::User, "hi")];
/// let log = ReductionLog::default();
/// let body = export_session(&minted, &log, &minted, ExportFormat::Anthropic)?;
/// assert_eq!(
///     body,
///     br#"{"system":"be brief","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}"#
/// );
/// # Ok::<(), rehydrate_sidecar::ExportError>(())
/// ```
pub fn export_session(
    view: &[Message],
    log: &ReductionLog,
    minted_view: &[Message],
    format: ExportFormat,
) -> Result<Vec<u8>, ExportError> {
    check_inverts(view, log, minted_view)?;
    if let Some(e) = verify_log(log, minted_view).into_iter().next() {
        return Err(e.into());
    }
    // `check_inverts` succeeded, so inverting gives exactly the minted view.
    let messages = minted_view;
    check_no_leak(messages)?;
    match format {
        ExportFormat::Jsonl => Ok(write_jsonl(messages)),
        ExportFormat::OpenAi => {
            check_tool_links(messages)?;
            Ok(write_openai(messages))
        }
        ExportFormat::Anthropic => {
            check_tool_links(messages)?;
            write_anthropic(messages)
        }
    }
}

/// Checks that every tool call in `messages` is answered exactly once, right after it, as the
/// OpenAI and Anthropic APIs require.
///
/// After an assistant message with tool calls, the messages up to the first one whose role is
/// not `tool` are its results: each must name, by `tool_call_id`, one of that message's calls,
/// no call twice, and together they must answer every call. A `tool` message anywhere else
/// answers nothing. A call id is scoped to its assistant message, so a later message may reuse
/// it (SWE-agent replays do) and needs its own result. Observations (user messages) are not
/// tool results here: they are sent as user messages.
///
/// # Errors
///
/// The first violation in message order: [`ExportError::DuplicateCallId`],
/// [`ExportError::ResultWithoutCallId`], [`ExportError::ResultWithoutCall`],
/// [`ExportError::DuplicateResult`], then [`ExportError::DanglingCall`] naming the assistant
/// message and the first call without a result.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, Role, ToolCall};
/// use rehydrate_sidecar::check_tool_links;
///
/// let mut call = Message { role: Role::Assistant, ..Message::default() };
/// call.tool_calls.push(ToolCall { id: "t1".into(), name: "ls".into(), arguments: "{}".into() });
/// let answered = [call.clone(), Message::tool_result("t1", "a.txt")];
/// check_tool_links(&answered)?;
/// let err = check_tool_links(&[call, Message::text(Role::User, "stop")]).unwrap_err();
/// assert_eq!(err.to_string(), "message 0: tool call t1 has no tool result right after it");
/// # Ok::<(), rehydrate_sidecar::ExportError>(())
/// ```
pub fn check_tool_links(messages: &[Message]) -> Result<(), ExportError> {
    let mut i = 0;
    while let Some(m) = messages.get(i) {
        match m.role {
            Role::Assistant if !m.tool_calls.is_empty() => {
                i = check_results(messages, i)?;
            }
            Role::Tool => {
                return Err(match &m.tool_call_id {
                    Some(id) => ExportError::ResultWithoutCall {
                        index: i,
                        call_id: id.clone(),
                    },
                    None => ExportError::ResultWithoutCallId { index: i },
                });
            }
            Role::System | Role::User | Role::Assistant => i += 1,
        }
    }
    Ok(())
}

/// Checks the results of the calls of assistant message `index`; returns the index after its
/// run of tool messages.
fn check_results(messages: &[Message], index: usize) -> Result<usize, ExportError> {
    let calls = &messages[index].tool_calls;
    for (k, call) in calls.iter().enumerate() {
        if calls[..k].iter().any(|c| c.id == call.id) {
            return Err(ExportError::DuplicateCallId {
                index,
                call_id: call.id.clone(),
            });
        }
    }
    // For each call, the index of its result once seen.
    let mut answered: Vec<Option<usize>> = vec![None; calls.len()];
    let mut j = index + 1;
    while let Some(r) = messages.get(j).filter(|r| r.role == Role::Tool) {
        let Some(id) = &r.tool_call_id else {
            return Err(ExportError::ResultWithoutCallId { index: j });
        };
        let Some(k) = calls.iter().position(|c| &c.id == id) else {
            return Err(ExportError::ResultWithoutCall {
                index: j,
                call_id: id.clone(),
            });
        };
        if let Some(first) = answered[k] {
            return Err(ExportError::DuplicateResult {
                index: j,
                call_id: id.clone(),
                first,
            });
        }
        answered[k] = Some(j);
        j += 1;
    }
    if let Some(k) = answered.iter().position(Option::is_none) {
        return Err(ExportError::DanglingCall {
            index,
            call_id: calls[k].id.clone(),
        });
    }
    Ok(j)
}

/// The leak guard: no message carries the reduction metadata key, and no text content,
/// content-part string, tool-call argument string, details string or metadata value holds a
/// stub.
fn check_no_leak(messages: &[Message]) -> Result<(), ExportError> {
    for (index, m) in messages.iter().enumerate() {
        if let Some(id) = m.metadata.get(REDUCTION_METADATA_KEY) {
            return Err(ExportError::ReductionKeyLeft {
                index,
                id: id.clone(),
            });
        }
        let leak = |stub: &Stub, place: String| ExportError::StubLeft {
            index,
            id: stub.id().to_string(),
            place,
        };
        match &m.content {
            None => {}
            Some(Content::Text(text)) => {
                if let Some(stub) = find_stubs(text).first() {
                    return Err(leak(stub, "content".to_string()));
                }
            }
            Some(Content::Parts(parts)) => {
                for (n, part) in parts.iter().enumerate() {
                    if let Some(stub) = stubs_in_value(part).first() {
                        return Err(leak(stub, format!("content part {n}")));
                    }
                }
            }
        }
        for call in &m.tool_calls {
            if let Some(stub) = check_tool_input(call).first() {
                return Err(leak(stub, format!("tool call {} arguments", call.id)));
            }
        }
        if let Some(details) = &m.details
            && let Some(stub) = stubs_in_details(details).first()
        {
            return Err(leak(stub, "details".to_string()));
        }
        for (key, value) in &m.metadata {
            if let Some(stub) = find_stubs(value).first() {
                return Err(leak(stub, format!("metadata `{key}`")));
            }
        }
    }
    Ok(())
}

/// The stubs in a tool result's details. Their JSON text holds [`STUB_SENTINEL`] as it is
/// wherever a string does (JSON escapes none of its characters), so most details are passed
/// over without building a JSON value.
fn stubs_in_details(details: &ToolDetails) -> Vec<Stub> {
    let Ok(json) = serde_json::to_string(details) else {
        return Vec::new();
    };
    if !json.contains(STUB_SENTINEL) {
        return Vec::new();
    }
    serde_json::from_str::<serde_json::Value>(&json)
        .map(|v| stubs_in_value(&v))
        .unwrap_or_default()
}

/// The stubs in every string (keys included) of a JSON value.
fn stubs_in_value(value: &serde_json::Value) -> Vec<Stub> {
    use serde_json::Value;
    match value {
        Value::String(s) => find_stubs(s),
        Value::Array(items) => items.iter().flat_map(stubs_in_value).collect(),
        Value::Object(map) => map
            .iter()
            .flat_map(|(k, v)| find_stubs(k).into_iter().chain(stubs_in_value(v)))
            .collect(),
        Value::Null | Value::Bool(_) | Value::Number(_) => Vec::new(),
    }
}

/// Canonical JSONL: one canonical message per line.
fn write_jsonl(messages: &[Message]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        serde_json::to_writer(&mut out, m)
            .expect("a message serializes: string keys only, and a Vec cannot fail to grow");
        out.push(b'\n');
    }
    out
}

/// The OpenAI chat-completions body: `{"messages":[…]}` of wire forms.
fn write_openai(messages: &[Message]) -> Vec<u8> {
    let mut out = Vec::from(&b"{\"messages\":["[..]);
    let mut first = true;
    for m in messages {
        // The API refuses an assistant message with neither content nor tool calls (one that
        // held only reasoning, which the wire form leaves out): it is left out.
        let empty = match &m.content {
            None => true,
            Some(rehydrate_model::Content::Parts(parts)) => parts.is_empty(),
            Some(rehydrate_model::Content::Text(_)) => false,
        };
        if m.role == rehydrate_model::Role::Assistant && empty && m.tool_calls.is_empty() {
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        m.write_wire(&mut out);
    }
    out.extend_from_slice(b"]}");
    out
}

/// One content block of an Anthropic message, borrowed from the canonical messages.
enum Block<'a> {
    /// `{"type":"text","text":…}`.
    Text(&'a str),
    /// `{"type":"thinking","thinking":…,"signature":…}`.
    Thinking {
        thinking: &'a str,
        signature: &'a str,
    },
    /// `{"type":"redacted_thinking","data":…}`.
    RedactedThinking(&'a str),
    /// `{"type":"tool_use","id":…,"name":…,"input":<arguments verbatim>}`.
    ToolUse(&'a ToolCall),
    /// `{"type":"tool_result","tool_use_id":…,"content":…}`, `"is_error":true` when it failed.
    ToolResult(&'a Message),
    /// A content part, written as it is.
    Part(&'a serde_json::Value),
}

impl Block<'_> {
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Block::Text(text) => {
                out.extend_from_slice(b"{\"type\":\"text\",\"text\":");
                write_str(text, out);
                out.push(b'}');
            }
            Block::Thinking {
                thinking,
                signature,
            } => {
                out.extend_from_slice(b"{\"type\":\"thinking\",\"thinking\":");
                write_str(thinking, out);
                out.extend_from_slice(b",\"signature\":");
                write_str(signature, out);
                out.push(b'}');
            }
            Block::RedactedThinking(data) => {
                out.extend_from_slice(b"{\"type\":\"redacted_thinking\",\"data\":");
                write_str(data, out);
                out.push(b'}');
            }
            Block::ToolUse(call) => {
                out.extend_from_slice(b"{\"type\":\"tool_use\",\"id\":");
                write_str(&call.id, out);
                out.extend_from_slice(b",\"name\":");
                write_str(&call.name, out);
                out.extend_from_slice(b",\"input\":");
                // Checked to parse as a JSON object before any block is built.
                out.extend_from_slice(call.arguments.as_bytes());
                out.push(b'}');
            }
            Block::ToolResult(m) => {
                out.extend_from_slice(b"{\"type\":\"tool_result\",\"tool_use_id\":");
                write_str(m.tool_call_id.as_deref().unwrap_or_default(), out);
                if let Some(content) = &m.content {
                    out.extend_from_slice(b",\"content\":");
                    content.write_wire(out);
                }
                if m.is_error() {
                    out.extend_from_slice(b",\"is_error\":true");
                }
                out.push(b'}');
            }
            Block::Part(p) => write_json_value(p, out),
        }
    }
}

/// One Anthropic message: `user` or `assistant` and its blocks.
struct Turn<'a> {
    assistant: bool,
    blocks: Vec<Block<'a>>,
}

/// The Anthropic Messages body. `messages` passed [`check_tool_links`].
fn write_anthropic(messages: &[Message]) -> Result<Vec<u8>, ExportError> {
    let mut system: Vec<&str> = Vec::new();
    let mut turns: Vec<Turn<'_>> = Vec::new();
    for (index, m) in messages.iter().enumerate() {
        let (assistant, blocks) = match m.role {
            Role::System => {
                system_pieces(index, m, &mut system)?;
                continue;
            }
            Role::User => (false, content_blocks(m)),
            Role::Tool => (false, vec![Block::ToolResult(m)]),
            Role::Assistant => {
                let mut blocks = reasoning_blocks(m);
                blocks.extend(content_blocks(m));
                for call in &m.tool_calls {
                    check_arguments(index, call)?;
                    blocks.push(Block::ToolUse(call));
                }
                (true, blocks)
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some(last) if last.assistant == assistant => {
                // Reasoning opens an assistant message: merged into the middle of one it would
                // not, so a merged message's reasoning is left out, whole.
                last.blocks.extend(blocks.into_iter().filter(|b| {
                    !(assistant && matches!(b, Block::Thinking { .. } | Block::RedactedThinking(_)))
                }));
            }
            _ => turns.push(Turn { assistant, blocks }),
        }
    }

    let mut out = Vec::from(&b"{"[..]);
    if !system.is_empty() {
        out.extend_from_slice(b"\"system\":");
        write_str(&system.join("\n\n"), &mut out);
        out.push(b',');
    }
    out.extend_from_slice(b"\"messages\":[");
    for (i, turn) in turns.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(if turn.assistant {
            b"{\"role\":\"assistant\",\"content\":["
        } else {
            b"{\"role\":\"user\",\"content\":["
        });
        for (k, block) in turn.blocks.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            block.write(&mut out);
        }
        out.extend_from_slice(b"]}");
    }
    out.extend_from_slice(b"]}");
    Ok(out)
}

/// Adds the non-empty texts of system message `m` (its text, or each text part's `text`) to
/// `pieces`.
fn system_pieces<'a>(
    index: usize,
    m: &'a Message,
    pieces: &mut Vec<&'a str>,
) -> Result<(), ExportError> {
    match &m.content {
        None => {}
        Some(Content::Text(text)) => pieces.extend(Some(text.as_str()).filter(|t| !t.is_empty())),
        Some(Content::Parts(parts)) => {
            for (part, p) in parts.iter().enumerate() {
                let text = (p.get("type").and_then(serde_json::Value::as_str) == Some("text"))
                    .then(|| p.get("text").and_then(serde_json::Value::as_str))
                    .flatten()
                    .ok_or(ExportError::SystemPart { index, part })?;
                pieces.extend(Some(text).filter(|t| !t.is_empty()));
            }
        }
    }
    Ok(())
}

/// A message's content as blocks: a non-empty text as one text block (the API refuses empty
/// ones), each content part as it is.
fn content_blocks(m: &Message) -> Vec<Block<'_>> {
    match &m.content {
        None => Vec::new(),
        Some(Content::Text(text)) if text.is_empty() => Vec::new(),
        Some(Content::Text(text)) => vec![Block::Text(text)],
        Some(Content::Parts(parts)) => parts.iter().map(Block::Part).collect(),
    }
}

/// The reasoning blocks of an assistant message, whole and unedited, or none.
///
/// The importer joined several thinking blocks into one `thinking` text and their signatures
/// one per line, and lost the order of thinking and redacted thinking; only what can be given
/// back exactly is written: one thinking block with its one non-empty signature and no
/// redacted thinking, or redacted thinking alone (one block per line, none empty). Anything
/// else (unsigned thinking, several thinking blocks, both kinds) is left out whole.
fn reasoning_blocks(m: &Message) -> Vec<Block<'_>> {
    let get = |key| m.metadata.get(key).map(String::as_str);
    match (
        get(THINKING_KEY),
        get(THINKING_SIGNATURE_KEY),
        get(REDACTED_THINKING_KEY),
    ) {
        (Some(thinking), Some(signature), None)
            if !signature.is_empty() && !signature.contains('\n') =>
        {
            vec![Block::Thinking {
                thinking,
                signature,
            }]
        }
        (None, None, Some(data)) if data.split('\n').all(|d| !d.is_empty()) => {
            data.split('\n').map(Block::RedactedThinking).collect()
        }
        _ => Vec::new(),
    }
}

/// Checks that a call's arguments parse as a JSON object, the only `input` Anthropic accepts.
fn check_arguments(index: usize, call: &ToolCall) -> Result<(), ExportError> {
    let bad = |reason: String| ExportError::BadArguments {
        index,
        call_id: call.id.clone(),
        reason,
    };
    match serde_json::from_str::<serde_json::Value>(&call.arguments) {
        Ok(serde_json::Value::Object(_)) => Ok(()),
        Ok(other) => Err(bad(format!("a JSON {}", json_kind(&other)))),
        Err(e) => Err(bad(format!("invalid JSON: {e}"))),
    }
}

/// The kind of a JSON value, for messages.
fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Appends `s` as a JSON string, escaped as the wire form escapes strings.
fn write_str(s: &str, out: &mut Vec<u8>) {
    serde_json::to_writer(out, s).expect("a string serializes into a Vec");
}
