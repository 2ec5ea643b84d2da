//! The typed wire forms the `serde_json` baselines parse into, the cost of merely reading a
//! session file: an OpenAI chat-completions message ([`WireMessage`], the CLI bench) and a
//! Claude Code session line ([`ClaudeCodeLine`], the replay and evidence benches).

use serde::Deserialize;

/// One message as the OpenAI chat-completions wire form has it: string fields, JSON values for
/// content (text or parts) and tool-call arguments. Unknown keys are ignored.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WireMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// A string, or an array of content parts; absent for a message that only calls tools.
    #[serde(default)]
    pub content: Option<serde_json::Value>,
    /// The tool calls of an assistant message.
    #[serde(default)]
    pub tool_calls: Vec<WireToolCall>,
    /// On a tool result: the id of the call it answers.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// An optional participant or tool name.
    #[serde(default)]
    pub name: Option<String>,
}

/// One tool call of a [`WireMessage`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WireToolCall {
    /// The call id.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function called.
    pub function: WireFunction,
}

/// The function of a [`WireToolCall`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WireFunction {
    /// The tool's name.
    pub name: String,
    /// The arguments (on the wire, a JSON string holding JSON text).
    pub arguments: serde_json::Value,
}

/// Parses a whole OpenAI messages array, as the CLI bench's baseline does.
///
/// # Errors
///
/// The `serde_json` error when `bytes` is not such an array.
pub fn parse_messages(bytes: &[u8]) -> Result<Vec<WireMessage>, serde_json::Error> {
    serde_json::from_slice(bytes)
}

/// One line of a Claude Code session file, typed as a host reading these files would type it:
/// the record's type, its links and time, the API message, and the tool-result card.
/// Unknown keys are ignored. The `serde_json` baseline of the replay and evidence benches
/// parses each line into it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeCodeLine {
    /// `user`, `assistant`, `system`, `summary`, `file-history-snapshot`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// The record's id (absent on summaries and snapshots).
    #[serde(default)]
    pub uuid: Option<String>,
    /// The record before it in the conversation tree.
    #[serde(default)]
    pub parent_uuid: Option<String>,
    /// When it was written (RFC 3339, verbatim).
    #[serde(default)]
    pub timestamp: Option<String>,
    /// The API message of a user or assistant line.
    #[serde(default)]
    pub message: Option<ClaudeCodeMessage>,
    /// The tool's own result card, on a user line holding a tool result.
    #[serde(default)]
    pub tool_use_result: Option<ToolUseResult>,
}

/// The API message of a [`ClaudeCodeLine`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ClaudeCodeMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// The API message id of an assistant message (shared by the lines of one response).
    #[serde(default)]
    pub id: Option<String>,
    /// A string, or content blocks.
    #[serde(default)]
    pub content: Option<MessageContent>,
}

/// The content of a [`ClaudeCodeMessage`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum MessageContent {
    /// Plain text.
    Text(String),
    /// Content blocks.
    Blocks(Vec<ContentBlock>),
}

/// One content block of a [`ClaudeCodeMessage`], tagged by `type`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// The model's visible reasoning.
    Thinking {
        /// The reasoning text.
        thinking: String,
        /// Its signature.
        #[serde(default)]
        signature: Option<String>,
    },
    /// A tool call.
    ToolUse {
        /// The call id.
        id: String,
        /// The tool's name.
        name: String,
        /// The tool's input object.
        input: serde_json::Value,
    },
    /// A tool result.
    ToolResult {
        /// The id of the call it answers.
        tool_use_id: String,
        /// What the tool returned.
        #[serde(default)]
        content: Option<ToolResultContent>,
        /// Whether the tool failed.
        #[serde(default)]
        is_error: Option<bool>,
    },
    /// An image (its source kept as JSON).
    Image {
        /// The image source.
        source: serde_json::Value,
    },
    /// Any other block type.
    #[serde(other)]
    Other,
}

/// The content of a [`ContentBlock::ToolResult`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    /// Plain text.
    Text(String),
    /// Text and image blocks, kept as JSON.
    Blocks(Vec<serde_json::Value>),
}

/// A `toolUseResult` card: one of the file tools' cards, tried in this order, else any JSON
/// (the cards of other tools, an error string).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ToolUseResult {
    /// A `MultiEdit` card.
    MultiEdit(MultiEditCard),
    /// An `Edit` card.
    Edit(EditCard),
    /// A `Write` card.
    Write(WriteCard),
    /// A `Read` card.
    Read(ReadCard),
    /// Anything else.
    Other(serde_json::Value),
}

/// A `Read` card: `{"type": "text", "file": {…}}`, or a media read.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ReadCard {
    /// `text`, `image`, `pdf`, `notebook`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// What was read.
    pub file: ReadFile,
}

/// The `file` of a [`ReadCard`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadFile {
    /// The path read (absent on some media reads).
    #[serde(default)]
    pub file_path: Option<String>,
    /// The text served.
    #[serde(default)]
    pub content: Option<String>,
    /// The first line served, 1-based.
    #[serde(default)]
    pub start_line: Option<u64>,
    /// The number of lines served.
    #[serde(default)]
    pub num_lines: Option<u64>,
    /// The number of lines in the file.
    #[serde(default)]
    pub total_lines: Option<u64>,
}

/// A `Write` card.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteCard {
    /// `create` or `update`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The path written.
    pub file_path: String,
    /// The text written.
    pub content: String,
    /// The change as line hunks.
    #[serde(default)]
    pub structured_patch: Vec<PatchHunk>,
}

/// An `Edit` card.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditCard {
    /// The path edited.
    pub file_path: String,
    /// The text replaced.
    pub old_string: String,
    /// The replacement.
    pub new_string: String,
    /// The file before the edit, when recorded.
    #[serde(default)]
    pub original_file: Option<String>,
    /// Whether every occurrence was replaced.
    #[serde(default)]
    pub replace_all: bool,
    /// Whether the person changed the proposed edit.
    #[serde(default)]
    pub user_modified: bool,
    /// The change as line hunks.
    #[serde(default)]
    pub structured_patch: Vec<PatchHunk>,
}

/// A `MultiEdit` card.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MultiEditCard {
    /// The path edited.
    pub file_path: String,
    /// The edits, in order.
    pub edits: Vec<MultiEditItem>,
    /// The file before the edits, when recorded.
    #[serde(default)]
    pub original_file_contents: Option<String>,
    /// Whether the person changed the proposed edits.
    #[serde(default)]
    pub user_modified: bool,
    /// The change as line hunks.
    #[serde(default)]
    pub structured_patch: Vec<PatchHunk>,
}

/// One edit of a [`MultiEditCard`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MultiEditItem {
    /// The text replaced.
    pub old_string: String,
    /// The replacement.
    pub new_string: String,
    /// Whether every occurrence was replaced.
    #[serde(default)]
    pub replace_all: bool,
}

/// One hunk of a card's `structuredPatch`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatchHunk {
    /// The first old line, 1-based.
    pub old_start: u64,
    /// Old lines covered.
    pub old_lines: u64,
    /// The first new line, 1-based.
    pub new_start: u64,
    /// New lines covered.
    pub new_lines: u64,
    /// The hunk's lines, each prefixed ` `, `-` or `+`.
    pub lines: Vec<String>,
}

/// Parses a Claude Code session file line by line (lines found with `memchr`, blank ones
/// skipped), each into a [`ClaudeCodeLine`], as the baseline of the replay and evidence
/// benches does.
///
/// # Errors
///
/// The `serde_json` error of the first line that is not such a record.
pub fn parse_claude_code_lines(bytes: &[u8]) -> Result<Vec<ClaudeCodeLine>, serde_json::Error> {
    let mut lines = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())) {
        let line = bytes.get(start..end).unwrap_or_default();
        start = end + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        lines.push(serde_json::from_slice(line)?);
    }
    Ok(lines)
}
