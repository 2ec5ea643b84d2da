//! The benchmark peer: `supercode-reduce` 0.5.144, fed the same messages converted to its types.
//!
//! Only this package depends on the peer. Nothing here reimplements it: the benches call its
//! public `project_messages` and `expand_reduction` on [`to_peer`] conversions of our messages,
//! and [`from_peer`] converts the peer's view back, so both views are measured by the same
//! [`Message::wire_len`].

use rehydrate_model::{Content, Message, Role};
use supercode_interchange::{ChatMessage, FunctionCall, ToolCall};
use supercode_reduce::ReductionPolicy;

/// Converts one canonical message to the peer's `ChatMessage`: same role, text content or
/// content parts (JSON values, unchanged), tool calls, `tool_call_id` and `name`.
///
/// The peer has no `observation` flag (an observation becomes a plain user message) and
/// `metadata`, which never reaches a model, is not carried over.
pub fn to_peer(message: &Message) -> ChatMessage {
    let (content, content_parts) = match &message.content {
        None => (None, None),
        Some(Content::Text(text)) => (Some(text.clone()), None),
        Some(Content::Parts(parts)) => (None, Some(parts.clone())),
    };
    let tool_calls = (!message.tool_calls.is_empty()).then(|| {
        message
            .tool_calls
            .iter()
            .map(|call| ToolCall {
                id: call.id.clone(),
                kind: "function".to_owned(),
                function: FunctionCall {
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                },
            })
            .collect()
    });
    ChatMessage {
        role: peer_role(message.role),
        content,
        content_parts,
        tool_calls,
        tool_call_id: message.tool_call_id.clone(),
        name: message.name.clone(),
        metadata: Default::default(),
    }
}

/// Converts every message with [`to_peer`].
pub fn to_peer_all(messages: &[Message]) -> Vec<ChatMessage> {
    messages.iter().map(to_peer).collect()
}

/// Converts one of the peer's messages back to a canonical message, the reverse of
/// [`to_peer`]: same role, content parts (which the peer serializes in place of its text when
/// it has both) or text content, tool calls, `tool_call_id` and `name`; no metadata and no
/// observation flag.
///
/// Its wire form ([`Message::write_wire`]) is the JSON the peer serializes the message to, so
/// the peer's view is measured in the same wire bytes as ours.
pub fn from_peer(message: &ChatMessage) -> Message {
    let content = match (&message.content_parts, &message.content) {
        (Some(parts), _) => Some(Content::Parts(parts.clone())),
        (None, Some(text)) => Some(Content::Text(text.clone())),
        (None, None) => None,
    };
    let tool_calls = message
        .tool_calls
        .iter()
        .flatten()
        .map(|call| rehydrate_model::ToolCall {
            id: call.id.clone(),
            name: call.function.name.clone(),
            arguments: call.function.arguments.clone(),
        })
        .collect();
    Message {
        role: our_role(message.role),
        content,
        tool_calls,
        tool_call_id: message.tool_call_id.clone(),
        name: message.name.clone(),
        ..Message::default()
    }
}

/// The peer's role for `role`.
fn peer_role(role: Role) -> supercode_interchange::Role {
    match role {
        Role::System => supercode_interchange::Role::System,
        Role::User => supercode_interchange::Role::User,
        Role::Assistant => supercode_interchange::Role::Assistant,
        Role::Tool => supercode_interchange::Role::Tool,
    }
}

/// Our role for the peer's `role`.
fn our_role(role: supercode_interchange::Role) -> Role {
    match role {
        supercode_interchange::Role::System => Role::System,
        supercode_interchange::Role::User => Role::User,
        supercode_interchange::Role::Assistant => Role::Assistant,
        supercode_interchange::Role::Tool => Role::Tool,
    }
}

/// The peer policy the benches use: the peer's default with every lever rehydrate does not
/// implement turned off, and the same trigger (8192 bytes) and protected window (3 tool
/// results) as `rehydrate_reduce::ReductionPolicy::default()`.
///
/// Off: image redaction, diff-only re-reads, stale-read elision, tool-input elision, terminal
/// output normalization, superseded results, errored-input pruning and summaries. Left as the
/// peer has them: truncation (keeping 4096 bytes, like our 2048-byte head plus 2048-byte tail),
/// duplicate outputs (with the peer's 256-byte floor) and no turn clearing.
pub fn peer_policy() -> ReductionPolicy {
    ReductionPolicy {
        tool_output_trigger_bytes: 8192,
        protect_last_n_tool_results: 3,
        elide_stale_reads: false,
        redact_images: false,
        diff_rereads: false,
        elide_tool_inputs: false,
        normalize_terminal_output: false,
        supersede_enabled: false,
        prune_errored_inputs: false,
        summarize_cleared_turns: false,
        clear_turns_older_than: None,
        cleared_turns_summary: None,
        ..ReductionPolicy::default()
    }
}

/// The peer with every lever on, against our aggressive preset (the economy table and the
/// `per_turn_aggressive` group): the peer's default policy with a truncated tool result keeping
/// 512 bytes (`tool_output_keep_bytes`, our aggressive preset keeps 256 bytes of head and 256 of
/// tail) of every one over 1 KiB (`tool_output_trigger_bytes`), and every lever enabled: image
/// redaction, diff-only re-reads, stale-read elision, tool-input elision, terminal output
/// normalization, superseded results, errored-input pruning and duplicate outputs.
///
/// The peer's other thresholds stay at its defaults: images over 8192 bytes, tool inputs over
/// 8192 bytes (the `content` of `Write` and `write_file`), duplicates and superseded results
/// of at least 256 bytes, the newest 3 results protected from truncation and supersession.
/// Stale-read elision only elides reads that the peer's disk probe (`probe_read_freshness`)
/// found fresh; the benches run no probe (the corpus's files are not on this disk), so it elides
/// nothing. Summaries of cleared turns stay off (they need a model call, and neither side clears
/// turns here).
pub fn peer_policy_all_levers() -> ReductionPolicy {
    ReductionPolicy {
        tool_output_keep_bytes: 512,
        tool_output_trigger_bytes: 1024,
        redact_images: true,
        diff_rereads: true,
        elide_stale_reads: true,
        elide_tool_inputs: true,
        normalize_terminal_output: true,
        supersede_enabled: true,
        prune_errored_inputs: true,
        deduplicate_outputs: true,
        summarize_cleared_turns: false,
        clear_turns_older_than: None,
        cleared_turns_summary: None,
        ..ReductionPolicy::default()
    }
}
