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
/// Gemini CLI: a `gemini` record's `model`.
pub const GEMINI_MODEL: &str = "gemini.model";
/// Gemini CLI: a `gemini` record's `tokens`, as compact JSON.
pub const GEMINI_TOKENS: &str = "gemini.tokens";
/// Gemini CLI: a `gemini` record's `thoughts` (thought summaries, no signatures), as compact
/// JSON; absent when empty.
pub const GEMINI_THOUGHTS: &str = "gemini.thoughts";
/// Gemini CLI: the session's own fields (`sessionId`, `projectHash`, `startTime`,
/// `lastUpdated`, `summary`, `kind`, `directories`, those present), as a compact JSON object,
/// on the first message; the Gemini CLI writer gives them back.
pub const GEMINI_SESSION: &str = "gemini.session";
/// Gemini CLI: a tool call's `status` (`success`, `error`, `cancelled`, …), on its tool result.
pub const GEMINI_STATUS: &str = "gemini.status";
/// OpenHands: the `id` of the event a message was made from (the action's, for an assistant
/// message with several calls the first one's).
pub const OPENHANDS_EVENT: &str = "openhands.event";
/// OpenHands: the system action's `tools`, as compact JSON.
pub const OPENHANDS_TOOLS: &str = "openhands.tools";
/// OpenHands: on a user message made from an observation that answers no recorded tool call
/// (an `error` without a `cause`), the observation's type.
pub const OPENHANDS_ORPHAN: &str = "openhands.orphan";
/// Aider: the 1-based line of the chat history a message starts on.
pub const AIDER_LINE: &str = "aider.line";
/// Aider: the slash command (`/add`, `/ask`, …) an input began with, on the user message it
/// sent or the observation of what it printed.
pub const AIDER_COMMAND: &str = "aider.command";
/// Aider: on a session's first message, the local time of its `# aider chat started at` header.
pub const AIDER_STARTED: &str = "aider.started";
/// Aider: on a session's first message, the version its banner printed (`0.47.2-dev`).
pub const AIDER_VERSION: &str = "aider.version";
/// Aider: on a session's first message, the main model its banner printed.
pub const AIDER_MODEL: &str = "aider.model";
/// Aider: on a session's first message, the edit format its banner printed (`diff`, `whole`).
pub const AIDER_EDIT_FORMAT: &str = "aider.edit_format";
/// Goose: the 1-based line of the session file a message was read from.
pub const GOOSE_LINE: &str = "goose.line";
/// Goose: the message's `id`.
pub const GOOSE_ID: &str = "goose.id";
/// Goose: the message's `created` time, Unix seconds as written.
pub const GOOSE_CREATED: &str = "goose.created";
/// Goose: `"false"` on a message the user never saw (`userVisible: false`, model-only).
pub const GOOSE_USER_VISIBLE: &str = "goose.user_visible";
/// Goose: on the first message, the metadata line's `working_dir`.
pub const GOOSE_WORKING_DIR: &str = "goose.working_dir";
/// Goose: on the first message, the metadata line's `description`.
pub const GOOSE_DESCRIPTION: &str = "goose.description";
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
/// it that made no message; for a JSON document, the group's items or message; for OpenAI
/// chat, only on a message whose element is not its wire form, that element as compact JSON);
/// the writer gives it back verbatim while the group's messages are unchanged
/// (docs/FORMATS.md, "Keeping the source").
pub const SOURCE: &str = "rehydrate.source";
/// Every format with a writer: `"true"` on a later message of the group the last message with
/// [`SOURCE`] opened.
pub const SOURCE_PART: &str = "rehydrate.source_part";
/// JSONL formats with a writer: on the last message, the lines after the last group.
pub const SOURCE_TAIL: &str = "rehydrate.source_tail";
/// JSON documents (Responses, Anthropic, OpenAI chat): on the first message, the top-level
/// object without the key that holds the items or messages (and, for Anthropic, without
/// `system`), as compact JSON text; `[]` for a bare items or messages array. The session's,
/// not the message's: a stub keeps it.
pub const DOCUMENT: &str = "rehydrate.document";
/// JSON documents: on the message with [`DOCUMENT`], the format the document was read as
/// (`responses`, `anthropic`, `openai`). A writer gives back the document's members and its
/// groups' sources only for a session read as its own format, so a body written in another
/// format never carries members or items of the first (Anthropic's `max_tokens` in a
/// Responses body, say).
pub const DOCUMENT_FORMAT: &str = "rehydrate.document_format";
/// The keys that hold a message's own source bytes, which a stub drops (a stub's source is the
/// sidecar, and the view never carries hidden bytes): [`SOURCE`], [`SOURCE_PART`] and
/// [`SOURCE_TAIL`].
pub const SOURCE_KEYS: [&str; 3] = [SOURCE, SOURCE_PART, SOURCE_TAIL];

/// Codex: the role as the rollout wrote it where it maps to another (`developer` to system).
pub const CODEX_ROLE: &str = "codex.role";
/// Codex: an assistant message's `phase` (`commentary`, `final_answer`), given back on write.
pub const CODEX_PHASE: &str = "codex.phase";
/// Codex: the 1-based JSONL line a message came from (for an assistant message made of several
/// items, the line of its first item that is not a reasoning item).
pub const CODEX_LINE: &str = "codex.line";
/// Codex: `"true"` on the system message made from `session_meta.base_instructions.text`.
pub const CODEX_BASE_INSTRUCTIONS: &str = "codex.base_instructions";
/// Codex: `"true"` on the user message made from a `compacted` record (a compaction summary).
pub const CODEX_COMPACTED: &str = "codex.compacted";
/// Codex: `"true"` on a user message read from an `event_msg` `user_message` (a turn the
/// rollout recorded with no user-role `response_item` message).
pub const CODEX_USER_EVENT: &str = "codex.user_event";
/// Codex: `session_meta.id`, on the first message made after the `session_meta` line.
pub const CODEX_SESSION_ID: &str = "codex.session_id";
/// Codex: `session_meta.cwd`, on the first message made after the `session_meta` line.
pub const CODEX_CWD: &str = "codex.cwd";
/// Codex: `session_meta.cli_version`, on the first message made after the `session_meta` line.
pub const CODEX_CLI_VERSION: &str = "codex.cli_version";
/// Codex: the `namespace` of an assistant message's namespaced function calls, as a JSON object
/// text from call id to namespace.
pub const CODEX_NAMESPACES: &str = "codex.namespaces";
/// Codex: the call ids of an assistant message's `local_shell_call`s, one per line.
pub const CODEX_LOCAL_SHELL_CALLS: &str = "codex.local_shell_calls";
/// Codex: a tool result's exit code, from `Process exited with code N` (or `Exit code: N`) in
/// the output's header, or `metadata.exit_code` of an output that is a JSON object.
pub const CODEX_EXIT_CODE: &str = "codex.exit_code";
/// Codex: a tool result's `Original token count: N` header.
pub const CODEX_ORIGINAL_TOKEN_COUNT: &str = "codex.original_token_count";
/// Codex: a tool result's `Total output lines: N` note (Codex cut the output).
pub const CODEX_TOTAL_OUTPUT_LINES: &str = "codex.total_output_lines";
/// Codex: the N of the first `…N tokens truncated…` note in a tool result (Codex cut the
/// middle of the output).
pub const CODEX_TRUNCATED_TOKENS: &str = "codex.truncated_tokens";
