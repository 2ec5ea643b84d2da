//! The typed wire forms the `serde_json` baselines parse into, the cost of merely reading a
//! session file: an OpenAI chat-completions message ([`WireMessage`], the CLI bench) and a
//! Claude Code session line ([`ClaudeCodeLine`], the replay and evidence benches); and for the
//! import bench, one typed form per format `rehydrate_formats` reads ([`parse_typed`]): an
//! OpenAI chat body ([`ChatBody`]), an Anthropic Messages body ([`AnthropicBody`]), an OpenAI
//! Responses input ([`ResponsesBody`], [`ResponsesItem`]), a Codex rollout line
//! ([`CodexLine`]) and a SWE-agent trajectory ([`SweAgentTrajectory`]).
//!
//! Each is typed as a host reading these files would type it with serde derives: the fields it
//! uses as strings and numbers, tagged enums for the kinds of blocks and items, JSON values for
//! what it passes on without looking (tool inputs, images, events); unknown keys are ignored.

use rehydrate_formats::Format;
use serde::Deserialize;
use serde_json::Value;

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
    /// Redacted reasoning (Anthropic Messages bodies).
    RedactedThinking {
        /// The encrypted reasoning.
        data: String,
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
    parse_lines(bytes)
}

/// Splits `bytes` into lines with `memchr` and parses each non-blank one into a `T`.
fn parse_lines<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<Vec<T>, serde_json::Error> {
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

// ---------------------------------------------------------------------------------------------
// The import bench: one typed form per format

/// An OpenAI chat-completions request body: `{"model"?, "messages": […], "tools"?}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatBody {
    /// The model, when given.
    #[serde(default)]
    pub model: Option<String>,
    /// The messages.
    pub messages: Vec<WireMessage>,
    /// The tool definitions, kept as JSON.
    #[serde(default)]
    pub tools: Option<Vec<Value>>,
}

/// One event of an OpenHands event stream: an action (`action`, `args`) or an observation
/// (`observation`, `cause`, `content`, `extras`), with the tool call it belongs to.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct OpenHandsEvent {
    /// The event id.
    #[serde(default)]
    pub id: Option<i64>,
    /// When it happened (naive ISO 8601).
    #[serde(default)]
    pub timestamp: Option<String>,
    /// `user`, `agent` or `environment`.
    #[serde(default)]
    pub source: Option<String>,
    /// The event's one-line message.
    #[serde(default)]
    pub message: Option<String>,
    /// The action's type.
    #[serde(default)]
    pub action: Option<String>,
    /// The action's arguments, kept as JSON.
    #[serde(default)]
    pub args: Option<Value>,
    /// The observation's type.
    #[serde(default)]
    pub observation: Option<String>,
    /// The id of the action an observation answers.
    #[serde(default)]
    pub cause: Option<i64>,
    /// The observation's text.
    #[serde(default)]
    pub content: Option<String>,
    /// The observation's other fields, kept as JSON.
    #[serde(default)]
    pub extras: Option<Value>,
    /// The tool call the event belongs to.
    #[serde(default)]
    pub tool_call_metadata: Option<OpenHandsToolCall>,
}

/// One line of a Goose session JSONL: a message, or the metadata line (whose message fields
/// are absent).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GooseLine {
    /// `user` or `assistant`.
    pub role: Option<String>,
    /// Unix seconds.
    pub created: Option<i64>,
    /// The content items, kept as values (their shapes vary by `type`).
    #[serde(default)]
    pub content: Vec<Value>,
    /// `working_dir` of the metadata line.
    #[serde(rename = "working_dir")]
    pub working_dir: Option<String>,
}

/// The `tool_call_metadata` of an [`OpenHandsEvent`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct OpenHandsToolCall {
    /// The tool's name.
    pub function_name: String,
    /// The call's id.
    pub tool_call_id: String,
    /// The whole chat completion the call came in, kept as JSON.
    #[serde(default)]
    pub model_response: Option<Value>,
}

/// A Gemini CLI session document: `{"sessionId", "projectHash", "startTime", "lastUpdated",
/// "messages": […]}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GeminiSession {
    /// The session id.
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// The records.
    pub messages: Vec<GeminiRecord>,
}

/// One record of a [`GeminiSession`]: a user message or a model turn with its tool calls.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GeminiRecord {
    /// The record id.
    pub id: String,
    /// When it was written.
    pub timestamp: String,
    /// `user`, `gemini`, `info`, `error` or `warning`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A string or parts.
    #[serde(default)]
    pub content: Option<Value>,
    /// The model turn's tool calls.
    #[serde(default, rename = "toolCalls")]
    pub tool_calls: Vec<GeminiToolCall>,
    /// The model turn's thought summaries.
    #[serde(default)]
    pub thoughts: Vec<Value>,
    /// The model.
    #[serde(default)]
    pub model: Option<String>,
}

/// One tool call of a [`GeminiRecord`], with its result.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GeminiToolCall {
    /// The call id.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub args: Value,
    /// Its result parts.
    #[serde(default)]
    pub result: Option<Value>,
    /// Its status.
    #[serde(default)]
    pub status: Option<String>,
    /// When it was recorded.
    #[serde(default)]
    pub timestamp: Option<String>,
}

/// An Anthropic Messages request body: `{"model"?, "system"?, "tools"?, "messages": […]}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AnthropicBody {
    /// The model, when given.
    #[serde(default)]
    pub model: Option<String>,
    /// The output limit, when given.
    #[serde(default)]
    pub max_tokens: Option<u64>,
    /// The system prompt: a string or text blocks.
    #[serde(default)]
    pub system: Option<MessageContent>,
    /// The tool definitions.
    #[serde(default)]
    pub tools: Option<Vec<AnthropicTool>>,
    /// The messages.
    pub messages: Vec<AnthropicMessage>,
}

/// One tool definition of an [`AnthropicBody`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AnthropicTool {
    /// The tool's name.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: Option<String>,
    /// Its input's JSON schema.
    #[serde(default)]
    pub input_schema: Option<Value>,
}

/// One message of an [`AnthropicBody`]: its content is a string or blocks tagged by `type`
/// (the [`ContentBlock`]s a Claude Code line's message holds, the same API's blocks).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AnthropicMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// A string, or content blocks.
    pub content: MessageContent,
}

/// An OpenAI Responses request body: `{"model"?, "instructions"?, "input": […], "tools"?}`.
/// A bare items array is read as `Vec<ResponsesItem>` instead ([`parse_responses`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ResponsesBody {
    /// The model, when given.
    #[serde(default)]
    pub model: Option<String>,
    /// The system instructions, when given.
    #[serde(default)]
    pub instructions: Option<String>,
    /// The input items.
    pub input: Vec<ResponsesItem>,
    /// The tool definitions, kept as JSON.
    #[serde(default)]
    pub tools: Option<Vec<Value>>,
}

/// One OpenAI Responses item, tagged by `type`: an input item of a Responses body and the
/// payload of a Codex `response_item` line. Call arguments and custom-call inputs are strings;
/// an item type not listed here is [`ResponsesItem::Other`] (its fields are skipped, as Codex's
/// own `ResponseItem::Other`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponsesItem {
    /// A message.
    Message {
        /// The item id, when stored.
        #[serde(default)]
        id: Option<String>,
        /// `user`, `assistant`, `system` or `developer`.
        role: String,
        /// A string, or content parts.
        content: ResponsesContent,
        /// Codex's `commentary` or `final_answer`.
        #[serde(default)]
        phase: Option<String>,
    },
    /// The model's reasoning.
    Reasoning {
        /// The item id, when stored.
        #[serde(default)]
        id: Option<String>,
        /// Summary parts.
        #[serde(default)]
        summary: Vec<ResponsesPart>,
        /// Reasoning text parts, when given.
        #[serde(default)]
        content: Option<Vec<ResponsesPart>>,
        /// The encrypted reasoning, when given.
        #[serde(default)]
        encrypted_content: Option<String>,
    },
    /// A function call.
    FunctionCall {
        /// The item id, when stored.
        #[serde(default)]
        id: Option<String>,
        /// The call id its output answers.
        call_id: String,
        /// The function called.
        name: String,
        /// The arguments: JSON text in a string.
        arguments: String,
    },
    /// A function call's output.
    FunctionCallOutput {
        /// The call it answers.
        call_id: String,
        /// A string, or content parts.
        output: ResponsesContent,
    },
    /// A custom (free-form) tool call.
    CustomToolCall {
        /// The item id, when stored.
        #[serde(default)]
        id: Option<String>,
        /// The call id its output answers.
        call_id: String,
        /// The tool called.
        name: String,
        /// The input text.
        input: String,
    },
    /// A custom tool call's output.
    CustomToolCallOutput {
        /// The call it answers.
        call_id: String,
        /// A string, or content parts.
        output: ResponsesContent,
    },
    /// A local shell call (its action kept as JSON).
    LocalShellCall {
        /// The call id, when given.
        #[serde(default)]
        call_id: Option<String>,
        /// The command to run.
        action: Value,
    },
    /// A server-side web search (its action kept as JSON).
    WebSearchCall {
        /// The search, when given.
        #[serde(default)]
        action: Option<Value>,
    },
    /// Any other item type.
    #[serde(other)]
    Other,
}

/// A Responses message's content or a call output: a string or content parts.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ResponsesContent {
    /// Plain text.
    Text(String),
    /// Content parts.
    Parts(Vec<ResponsesPart>),
}

/// One content part of a Responses item, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponsesPart {
    /// Input text.
    InputText {
        /// The text.
        text: String,
    },
    /// Output text.
    OutputText {
        /// The text.
        text: String,
        /// Citations and the like, kept as JSON.
        #[serde(default)]
        annotations: Option<Vec<Value>>,
    },
    /// A reasoning summary's text.
    SummaryText {
        /// The text.
        text: String,
    },
    /// Reasoning text.
    ReasoningText {
        /// The text.
        text: String,
    },
    /// An image.
    InputImage {
        /// A URL or data URL, when given.
        #[serde(default)]
        image_url: Option<String>,
        /// `low`, `high` or `auto`.
        #[serde(default)]
        detail: Option<String>,
    },
    /// A refusal.
    Refusal {
        /// The refusal text.
        refusal: String,
    },
    /// Any other part type.
    #[serde(other)]
    Other,
}

/// One line of a Codex CLI rollout: `{"timestamp", "type", "payload"}`, typed as Codex itself
/// types it (`RolloutLine`: the timestamp and the record flattened, the record adjacently
/// tagged by `type` with its `payload`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CodexLine {
    /// When it was written (RFC 3339, verbatim).
    pub timestamp: String,
    /// The record.
    #[serde(flatten)]
    pub record: CodexRecord,
}

/// The record of a [`CodexLine`], tagged by `type` with its `payload`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum CodexRecord {
    /// The session's metadata and base instructions.
    SessionMeta(CodexSessionMeta),
    /// A turn's settings (model, sandbox, approval), kept as JSON.
    TurnContext(Value),
    /// A model item.
    ResponseItem(ResponsesItem),
    /// A UI event (user message, command end, token count, …), kept as JSON.
    EventMsg(Value),
    /// A compaction summary.
    Compacted(CodexCompacted),
}

/// The payload of a Codex `session_meta` line.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CodexSessionMeta {
    /// The session id.
    pub id: String,
    /// When the session started.
    #[serde(default)]
    pub timestamp: Option<String>,
    /// The working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// The client (`codex-tui`, …).
    #[serde(default)]
    pub originator: Option<String>,
    /// The CLI version.
    #[serde(default)]
    pub cli_version: Option<String>,
    /// The model provider.
    #[serde(default)]
    pub model_provider: Option<String>,
    /// The base instructions.
    #[serde(default)]
    pub base_instructions: Option<CodexText>,
    /// The repository state, kept as JSON.
    #[serde(default)]
    pub git: Option<Value>,
}

/// `{"text": …}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CodexText {
    /// The text.
    pub text: String,
}

/// The payload of a Codex `compacted` line.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CodexCompacted {
    /// The summary.
    pub message: String,
    /// The items that replace the history, when recorded.
    #[serde(default)]
    pub replacement_history: Option<Vec<ResponsesItem>>,
}

/// A SWE-agent `.traj` file: the steps, the history the model saw, and the run's info.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SweAgentTrajectory {
    /// The steps: action, observation, and the messages the model saw at that step.
    #[serde(default)]
    pub trajectory: Vec<SweAgentStep>,
    /// The history: every message of the run.
    pub history: Vec<SweAgentEntry>,
    /// Submission, exit status and model statistics, kept as JSON.
    #[serde(default)]
    pub info: Option<Value>,
    /// The configuration to replay the run, kept as JSON.
    #[serde(default)]
    pub replay_config: Option<Value>,
    /// The environment's name.
    #[serde(default)]
    pub environment: Option<String>,
}

/// One step of a [`SweAgentTrajectory`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SweAgentStep {
    /// The command run.
    #[serde(default)]
    pub action: Option<String>,
    /// What it printed.
    #[serde(default)]
    pub observation: Option<String>,
    /// The model's whole response.
    #[serde(default)]
    pub response: Option<String>,
    /// The model's reasoning.
    #[serde(default)]
    pub thought: Option<String>,
    /// Seconds the action took.
    #[serde(default)]
    pub execution_time: Option<f64>,
    /// The environment's state after it (an object or a string), kept as JSON.
    #[serde(default)]
    pub state: Option<Value>,
    /// The messages the model saw at this step.
    #[serde(default)]
    pub messages: Option<Vec<SweAgentEntry>>,
}

/// One message of a SWE-agent history: an OpenAI chat message with SWE-agent's fields.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SweAgentEntry {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// A string, or content parts.
    #[serde(default)]
    pub content: Option<Value>,
    /// The tool calls of an assistant message.
    #[serde(default)]
    pub tool_calls: Option<Vec<WireToolCall>>,
    /// The calls a tool message answers.
    #[serde(default)]
    pub tool_call_ids: Option<Vec<String>>,
    /// The agent (`main`, …).
    #[serde(default)]
    pub agent: Option<String>,
    /// `system_prompt`, `observation`, `action`, `thought`, …
    #[serde(default)]
    pub message_type: Option<String>,
    /// The model's reasoning.
    #[serde(default)]
    pub thought: Option<String>,
    /// The command run.
    #[serde(default)]
    pub action: Option<String>,
    /// Whether it is a demonstration entry.
    #[serde(default)]
    pub is_demo: Option<bool>,
}

/// A Responses input document: a bare items array, or a body with `input` (told apart by the
/// first byte that is not whitespace, as a host would).
///
/// # Errors
///
/// The `serde_json` error when `bytes` is neither.
pub fn parse_responses(bytes: &[u8]) -> Result<Vec<ResponsesItem>, serde_json::Error> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        serde_json::from_slice(bytes)
    } else {
        serde_json::from_slice::<ResponsesBody>(bytes).map(|body| body.input)
    }
}

/// A session file parsed into the typed form of its format, by [`parse_typed`].
#[derive(Debug, Clone, PartialEq)]
pub enum TypedSession {
    /// Claude Code lines.
    ClaudeCode(Vec<ClaudeCodeLine>),
    /// A SWE-agent trajectory.
    SweAgent(Box<SweAgentTrajectory>),
    /// An OpenAI chat body.
    OpenAi(ChatBody),
    /// Codex rollout lines.
    Codex(Vec<CodexLine>),
    /// Responses input items.
    Responses(Vec<ResponsesItem>),
    /// An Anthropic Messages body.
    Anthropic(AnthropicBody),
    /// A Gemini CLI session document.
    GeminiCli(GeminiSession),
    /// An OpenHands event stream.
    OpenHands(Vec<OpenHandsEvent>),
    /// A text format (an Aider chat history): only its lines are counted, there is no typed
    /// parse to compare with.
    Lines(usize),
    /// Goose session lines (the metadata line parses as a message with every field absent).
    Goose(Vec<GooseLine>),
}

impl TypedSession {
    /// The records parsed: lines for the JSONL formats, history entries for a trajectory,
    /// messages for the chat and Anthropic bodies, items for a Responses input.
    pub fn len(&self) -> usize {
        match self {
            TypedSession::ClaudeCode(lines) => lines.len(),
            TypedSession::SweAgent(trajectory) => trajectory.history.len(),
            TypedSession::OpenAi(body) => body.messages.len(),
            TypedSession::Codex(lines) => lines.len(),
            TypedSession::Responses(items) => items.len(),
            TypedSession::Anthropic(body) => body.messages.len(),
            TypedSession::GeminiCli(session) => session.messages.len(),
            TypedSession::OpenHands(events) => events.len(),
            TypedSession::Lines(lines) => *lines,
            TypedSession::Goose(lines) => lines.len(),
        }
    }

    /// Whether no record was parsed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Parses a session file of `format` into its typed form, as the baselines of the import bench
/// do: the JSONL formats line by line (lines found with `memchr`, blank ones skipped), the
/// others as one document; a Responses input as [`parse_responses`] does.
///
/// # Errors
///
/// The `serde_json` error when `bytes` is not such a file.
pub fn parse_typed(format: Format, bytes: &[u8]) -> Result<TypedSession, serde_json::Error> {
    Ok(match format {
        Format::ClaudeCode => TypedSession::ClaudeCode(parse_lines(bytes)?),
        Format::SweAgent => TypedSession::SweAgent(Box::new(serde_json::from_slice(bytes)?)),
        Format::OpenAi => TypedSession::OpenAi(serde_json::from_slice(bytes)?),
        Format::Codex => TypedSession::Codex(parse_lines(bytes)?),
        Format::Responses => TypedSession::Responses(parse_responses(bytes)?),
        Format::Anthropic => TypedSession::Anthropic(serde_json::from_slice(bytes)?),
        Format::GeminiCli => TypedSession::GeminiCli(serde_json::from_slice(bytes)?),
        Format::OpenHands => TypedSession::OpenHands(serde_json::from_slice(bytes)?),
        Format::Goose => TypedSession::Goose(parse_lines(bytes)?),
        Format::Aider => TypedSession::Lines(memchr::memchr_iter(b'\n', bytes).count()),
    })
}
