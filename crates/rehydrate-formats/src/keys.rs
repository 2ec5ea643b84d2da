//! The metadata keys importers write, one constant each (docs/FORMATS.md, "Importers"): a host
//! or another crate that reads one uses the constant, never the text.

/// Claude Code: the 1-based JSONL line a message came from.
pub const CLAUDE_CODE_LINE: &str = "claude_code.line";
/// Claude Code: the record's `uuid`.
pub const CLAUDE_CODE_UUID: &str = "claude_code.uuid";
/// Claude Code: the assistant `message.id` shared by the lines merged into one message.
pub const CLAUDE_CODE_MESSAGE_ID: &str = "claude_code.message_id";
/// Claude Code: `"true"` on a line marked `isMeta` (injected by the harness, not the person).
pub const CLAUDE_CODE_META: &str = "claude_code.meta";
/// Claude Code: `"true"` on the user message that carries a compaction summary.
pub const CLAUDE_CODE_COMPACT_SUMMARY: &str = "claude_code.compact_summary";
/// Claude Code: `"true"` on the first message after a `compact_boundary` record on the chain.
pub const CLAUDE_CODE_COMPACT_BOUNDARY: &str = "claude_code.compact_boundary";
/// SWE-agent: the entry's `agent`.
pub const SWE_AGENT_AGENT: &str = "swe_agent.agent";
/// SWE-agent: the entry's `message_type`.
pub const SWE_AGENT_MESSAGE_TYPE: &str = "swe_agent.message_type";
/// SWE-agent: an assistant entry's `thought`.
pub const SWE_AGENT_THOUGHT: &str = "swe_agent.thought";
/// SWE-agent: an assistant entry's `action`.
pub const SWE_AGENT_ACTION: &str = "swe_agent.action";
/// SWE-agent: `"true"` on an entry of a demonstration (`is_demo`).
pub const SWE_AGENT_IS_DEMO: &str = "swe_agent.is_demo";
/// OpenAI: the role as the file wrote it where it maps to another (`developer` to system,
/// `function` to tool).
pub const OPENAI_ROLE: &str = "openai.role";
/// Responses: the role as the input wrote it where it maps to another (`developer` to system).
pub const RESPONSES_ROLE: &str = "responses.role";
/// Responses: an assistant message's `phase` (`commentary`, `final_answer`), given back on write.
pub const RESPONSES_PHASE: &str = "responses.phase";
/// The call ids, one per line, of an assistant message's custom (freeform) tool calls, whose
/// arguments are `{"input":…}`; on a tool result, the id of the custom call it answers.
pub const CUSTOM_CALLS: &str = "rehydrate.custom_calls";

/// Every format with a writer: on the first message made from a group of source records, the
/// exact text of the group (for JSONL, its lines with their line breaks, and the lines before
/// it that made no message; for a JSON document, the group's items or message); the writer
/// gives it back verbatim while the group's messages are unchanged (docs/FORMATS.md, "Keeping
/// the source").
pub const SOURCE: &str = "rehydrate.source";
/// Every format with a writer: `"true"` on a later message of the group the last message with
/// [`SOURCE`] opened.
pub const SOURCE_PART: &str = "rehydrate.source_part";
/// JSONL formats with a writer: on the last message, the lines after the last group.
pub const SOURCE_TAIL: &str = "rehydrate.source_tail";
/// JSON documents (Responses, Anthropic): on the first message, the top-level object without
/// the key that holds the items or messages (and, for Anthropic, without `system`), as compact
/// JSON text; `[]` for a bare Responses items array. The session's, not the message's: a stub
/// keeps it.
pub const DOCUMENT: &str = "rehydrate.document";
/// The keys that hold a message's own source bytes, which a stub drops (a stub's source is the
/// sidecar, and the view never carries hidden bytes): [`SOURCE`], [`SOURCE_PART`] and
/// [`SOURCE_TAIL`].
pub const SOURCE_KEYS: [&str; 3] = [SOURCE, SOURCE_PART, SOURCE_TAIL];
