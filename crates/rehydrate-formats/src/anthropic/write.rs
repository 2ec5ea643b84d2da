//! The Anthropic Messages request body: its writer and its validity rules (docs/FORMATS.md,
//! "Anthropic Messages body" and "Request validity"). The roles are merged and the blocks
//! placed here.

use std::borrow::Borrow;

use rehydrate_model::{Content, Message, Role, ToolCall, write_json_value};
use rehydrate_model::{
    REDACTED_THINKING_METADATA_KEY as REDACTED_THINKING_KEY, THINKING_METADATA_KEY as THINKING_KEY,
    THINKING_SIGNATURE_METADATA_KEY as THINKING_SIGNATURE_KEY,
};

use crate::ids::{api_id, api_name};
use crate::request::{
    Rule, Violation, call_shapes, check_arguments, is_blank_text_part, left_out_of_bodies, shown,
    stray_result, violation, write_str,
};

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
                write_str(&api_id(&call.id), out);
                out.extend_from_slice(b",\"name\":");
                write_str(&api_name(&call.name), out);
                out.extend_from_slice(b",\"input\":");
                // A body is written only when every input parsed as a JSON object.
                out.extend_from_slice(call.arguments.as_bytes());
                out.push(b'}');
            }
            Block::ToolResult(m) => {
                out.extend_from_slice(b"{\"type\":\"tool_result\",\"tool_use_id\":");
                write_str(&api_id(m.tool_call_id.as_deref().unwrap_or_default()), out);
                match &m.content {
                    None => {}
                    Some(Content::Parts(parts)) => {
                        out.extend_from_slice(b",\"content\":[");
                        for (k, part) in parts.iter().enumerate() {
                            if k > 0 {
                                out.push(b',');
                            }
                            write_part(part, out);
                        }
                        out.push(b']');
                    }
                    Some(content) => {
                        out.extend_from_slice(b",\"content\":");
                        content.write_wire(out);
                    }
                }
                if m.is_error() {
                    out.extend_from_slice(b",\"is_error\":true");
                }
                out.push(b'}');
            }
            Block::Part(p) => write_part(p, out),
        }
    }
}

/// Writes a content part as an Anthropic block: an OpenAI `image_url` part (from an OpenAI
/// chat file, an OpenHands message) as the `image` block of the same picture, a `data:` URL
/// as a `base64` source and any other URL as a `url` source; every other part as it is.
fn write_part(part: &serde_json::Value, out: &mut Vec<u8>) {
    if part.get("type").and_then(serde_json::Value::as_str) != Some("image_url") {
        return write_json_value(part, out);
    }
    let source = match crate::canonical::inline_image(part) {
        Some((media_type, data)) => {
            serde_json::json!({"type": "base64", "media_type": media_type, "data": data})
        }
        None => match part
            .pointer("/image_url/url")
            .or_else(|| part.get("image_url"))
            .and_then(serde_json::Value::as_str)
        {
            Some(url) => serde_json::json!({"type": "url", "url": url}),
            None => return write_json_value(part, out),
        },
    };
    write_json_value(&serde_json::json!({"type": "image", "source": source}), out);
}

/// One Anthropic message: `user` or `assistant` and its blocks, each with the index of the
/// canonical message it came from.
struct Turn<'a> {
    assistant: bool,
    blocks: Vec<(usize, Block<'a>)>,
}

/// An Anthropic body before it is written.
pub(crate) struct AnthropicBody<'a> {
    system: Vec<&'a str>,
    turns: Vec<Turn<'a>>,
}

impl AnthropicBody<'_> {
    /// The body's bytes.
    pub(crate) fn write(&self) -> Vec<u8> {
        let mut out = Vec::from(&b"{"[..]);
        if !self.system.is_empty() {
            out.extend_from_slice(b"\"system\":");
            write_str(&self.system.join("\n\n"), &mut out);
            out.push(b',');
        }
        out.extend_from_slice(b"\"messages\":[");
        for (i, turn) in self.turns.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            turn.write(&mut out);
        }
        out.extend_from_slice(b"]}");
        out
    }
}

impl Turn<'_> {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(if self.assistant {
            b"{\"role\":\"assistant\",\"content\":["
        } else {
            b"{\"role\":\"user\",\"content\":["
        });
        for (k, (_, block)) in self.blocks.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            block.write(out);
        }
        out.extend_from_slice(b"]}");
    }
}

/// The Anthropic body of `messages` and the violations of its rules, in message order.
pub(crate) fn anthropic<M: Borrow<Message>>(messages: &[M]) -> (AnthropicBody<'_>, Vec<Violation>) {
    let (body, mut violations) = build(messages.iter().map(Borrow::borrow).enumerate());
    check_turns(messages.len(), &body.turns, &mut violations);
    violations.sort_by_key(|v| v.index);
    (body, violations)
}

/// The system pieces and merged turns of `messages` (each with its index), and the
/// violations found on the way (not those of the merged turns).
fn build<'a>(
    messages: impl Iterator<Item = (usize, &'a Message)>,
) -> (AnthropicBody<'a>, Vec<Violation>) {
    let mut violations = Vec::new();
    let mut system: Vec<&str> = Vec::new();
    let mut turns: Vec<Turn<'_>> = Vec::new();
    for (index, m) in messages {
        let (assistant, blocks) = match m.role {
            Role::System => {
                system_pieces(index, m, &mut system, &mut violations);
                continue;
            }
            Role::User => (false, content_blocks(m)),
            Role::Tool => (false, vec![Block::ToolResult(m)]),
            Role::Assistant if left_out_of_bodies(m) => continue,
            Role::Assistant => {
                let mut blocks = reasoning_blocks(m);
                blocks.extend(content_blocks(m));
                call_shapes(index, &m.tool_calls, &mut violations);
                for call in &m.tool_calls {
                    if let Err(reason) = check_arguments(call) {
                        violations.push(violation(
                            index,
                            Rule::ArgumentsNotObject,
                            Some(&call.id),
                            format!(
                                "tool call {}: arguments are not a JSON object ({reason}); an Anthropic tool_use input must be one",
                                shown(&call.id)
                            ),
                        ));
                    }
                    blocks.push(Block::ToolUse(call));
                }
                (true, blocks)
            }
        };
        if blocks.is_empty() {
            continue;
        }
        let blocks = blocks.into_iter().map(|b| (index, b));
        match turns.last_mut() {
            Some(last) if last.assistant == assistant => {
                // Reasoning opens an assistant message: merged into the middle of one it would
                // not, so a merged message's reasoning is left out, whole.
                last.blocks.extend(blocks.filter(|(_, b)| {
                    !(assistant && matches!(b, Block::Thinking { .. } | Block::RedactedThinking(_)))
                }));
            }
            _ => turns.push(Turn {
                assistant,
                blocks: blocks.collect(),
            }),
        }
    }
    (AnthropicBody { system, turns }, violations)
}

/// The metadata keys of this format compared to decide whether a group changed.
const KEYS: [&str; 4] = [
    THINKING_KEY,
    THINKING_SIGNATURE_KEY,
    REDACTED_THINKING_KEY,
    rehydrate_model::IS_ERROR_METADATA_KEY,
];

/// The Anthropic body of `messages` as bytes: a session read from an Anthropic body
/// ([`crate::source::read_as`]) has each message group that still decodes to its messages
/// written as its original message, `system` as it was written when it is unchanged, and the
/// other top-level keys from [`crate::keys::DOCUMENT`]; every other message is written as
/// [`AnthropicBody::write`] writes it (consecutive ones merged by role).
pub(crate) fn write_body<M: Borrow<Message>>(messages: &[M]) -> Vec<u8> {
    use crate::source::{self, Document};
    if !source::read_as(messages, crate::Format::Anthropic) {
        return anthropic(messages).0.write();
    }
    let document = Document::of(messages, crate::Format::Anthropic);
    let groups = source::groups(messages);
    let verbatim: Vec<Option<&str>> = groups
        .iter()
        .map(|g| {
            let text = g.source?;
            let decoded = super::read::decode(text)?;
            source::unchanged(&decoded, messages, &g.members, &KEYS).then_some(text)
        })
        .collect();
    let is_system = |g: &source::Group<'_>| {
        g.members.iter().all(|&i| {
            messages
                .get(i)
                .is_some_and(|m| m.borrow().role == Role::System)
        })
    };
    // `system` as written: one unchanged system group and no other system message.
    let system_groups: Vec<usize> = (0..groups.len())
        .filter(|&k| is_system(&groups[k]))
        .collect();
    let raw_system = match system_groups.as_slice() {
        [k] => verbatim[*k].and_then(|text| {
            let raws = source::items(text)?;
            raws.first().map(|r| r.get())
        }),
        _ => None,
    };
    // Segments in order: an original message, or a run of messages written afresh.
    enum Segment<'a> {
        Raw(&'a str),
        Fresh(Vec<usize>),
    }
    let mut segments: Vec<Segment<'_>> = Vec::new();
    let mut fresh_system: Vec<usize> = Vec::new();
    for (k, g) in groups.iter().enumerate() {
        if is_system(g) {
            if raw_system.is_none() {
                fresh_system.extend(&g.members);
            }
            continue;
        }
        if let Some(raw) = verbatim[k].and_then(|text| {
            let raws = source::items(text)?;
            raws.first().map(|r| r.get())
        }) {
            segments.push(Segment::Raw(raw));
            continue;
        }
        match segments.last_mut() {
            Some(Segment::Fresh(run)) => run.extend(&g.members),
            _ => segments.push(Segment::Fresh(g.members.clone())),
        }
    }
    let mut out = Vec::new();
    document.open_object(&["messages", "system"], &mut out);
    let pick = |run: &[usize]| -> Vec<(usize, &Message)> {
        run.iter()
            .filter_map(|&i| messages.get(i).map(|m| (i, m.borrow())))
            .collect()
    };
    if let Some(raw) = raw_system {
        out.extend_from_slice(b"\"system\":");
        out.extend_from_slice(raw.as_bytes());
        out.push(b',');
    } else {
        let (system, _) = build(pick(&fresh_system).into_iter());
        if !system.system.is_empty() {
            out.extend_from_slice(b"\"system\":");
            write_str(&system.system.join("\n\n"), &mut out);
            out.push(b',');
        }
    }
    out.extend_from_slice(b"\"messages\":[");
    let mut first = true;
    for segment in &segments {
        match segment {
            Segment::Raw(raw) => {
                if !first {
                    out.push(b',');
                }
                first = false;
                out.extend_from_slice(raw.as_bytes());
            }
            Segment::Fresh(run) => {
                let (body, _) = build(pick(run).into_iter());
                for turn in &body.turns {
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    turn.write(&mut out);
                }
            }
        }
    }
    out.extend_from_slice(b"]}");
    out
}

/// The Anthropic rules over the merged messages.
fn check_turns(len: usize, turns: &[Turn<'_>], out: &mut Vec<Violation>) {
    let Some(first) = turns.first() else {
        out.push(violation(
            len,
            Rule::NoMessages,
            None,
            "the body has no message besides the system text".to_string(),
        ));
        return;
    };
    if first.assistant {
        out.push(violation(
            first.blocks.first().map_or(0, |(i, _)| *i),
            Rule::FirstNotUser,
            None,
            "the first message is an assistant message; an Anthropic body opens with a user message".to_string(),
        ));
    }
    let mut previous_calls: Vec<(usize, &ToolCall)> = Vec::new();
    for (t, turn) in turns.iter().enumerate() {
        for (index, block) in &turn.blocks {
            let text = match block {
                Block::Text(text) => Some(*text),
                Block::Part(p)
                    if p.get("type").and_then(serde_json::Value::as_str) == Some("text") =>
                {
                    p.get("text").and_then(serde_json::Value::as_str)
                }
                _ => None,
            };
            if text.is_some_and(|t| t.trim().is_empty()) {
                out.push(violation(
                    *index,
                    Rule::EmptyText,
                    None,
                    "text block empty or only whitespace".to_string(),
                ));
            }
            if let Block::ToolResult(m) = block
                && let Some(Content::Parts(parts)) = &m.content
                && parts.iter().any(|p| {
                    p.get("type").and_then(serde_json::Value::as_str) == Some("text")
                        && p.get("text")
                            .and_then(serde_json::Value::as_str)
                            .is_some_and(|t| t.trim().is_empty())
                })
            {
                out.push(violation(
                    *index,
                    Rule::EmptyText,
                    m.tool_call_id.as_deref(),
                    "text block empty or only whitespace in a tool result".to_string(),
                ));
            }
            // Ids are mapped as written (`api_id`): none breaks the pattern.
        }
        if turn.assistant {
            let calls: Vec<(usize, &ToolCall)> = turn
                .blocks
                .iter()
                .filter_map(|(i, b)| match b {
                    Block::ToolUse(c) => Some((*i, *c)),
                    _ => None,
                })
                .collect();
            for (k, (index, call)) in calls.iter().enumerate() {
                if calls[..k].iter().any(|(_, c)| c.id == call.id) {
                    out.push(violation(
                        *index,
                        Rule::DuplicateCallId,
                        Some(&call.id),
                        format!(
                            "tool call id {} is used twice in one assistant message",
                            call.id
                        ),
                    ));
                }
            }
            // Calls of the last assistant message are answered by the next user message; with
            // none, they are unanswered.
            if t + 1 == turns.len() {
                unanswered(&calls, &[], out);
            }
            previous_calls = calls;
            continue;
        }
        // A user message: its leading tool_result blocks answer the calls of the assistant
        // message before it; any other tool_result answers nothing.
        let leading = turn
            .blocks
            .iter()
            .take_while(|(_, b)| matches!(b, Block::ToolResult(_)))
            .count();
        let mut answered: Vec<Option<usize>> = vec![None; previous_calls.len()];
        for (k, (index, block)) in turn.blocks.iter().enumerate() {
            let Block::ToolResult(m) = block else {
                continue;
            };
            let Some(id) = m.tool_call_id.as_deref() else {
                out.push(stray_result(*index, m, Rule::ResultWithoutCall));
                continue;
            };
            if k >= leading {
                out.push(violation(
                    *index,
                    Rule::TextBeforeToolResult,
                    Some(id),
                    format!("another block stands before the tool_result block of {id} in one user message"),
                ));
                continue;
            }
            match previous_calls.iter().position(|(_, c)| c.id == id) {
                None if t == 0 => out.push(stray_result(*index, m, Rule::StartsWithToolResult)),
                None => out.push(stray_result(*index, m, Rule::ResultWithoutCall)),
                Some(c) => match answered[c] {
                    Some(first) => out.push(violation(
                        *index,
                        Rule::SecondAnswer,
                        Some(id),
                        format!(
                            "second tool result for tool call {id} (the first is message {first})"
                        ),
                    )),
                    None => answered[c] = Some(*index),
                },
            }
        }
        unanswered(&previous_calls, &answered, out);
        previous_calls = Vec::new();
    }
}

/// Reports the calls that `answered` (index-parallel, or empty for none) leaves unanswered.
fn unanswered(calls: &[(usize, &ToolCall)], answered: &[Option<usize>], out: &mut Vec<Violation>) {
    for (k, (index, call)) in calls.iter().enumerate() {
        let first_of_id = calls[..k].iter().all(|(_, c)| c.id != call.id);
        if answered.get(k).copied().flatten().is_none() && first_of_id {
            out.push(violation(
                *index,
                Rule::UnansweredCall,
                Some(&call.id),
                format!("tool call {} has no tool result right after it", call.id),
            ));
        }
    }
}

/// Adds the non-empty texts of system message `m` (its text, or each text part's `text`) to
/// `pieces`; a part that is not a text part is a violation.
fn system_pieces<'a>(
    index: usize,
    m: &'a Message,
    pieces: &mut Vec<&'a str>,
    out: &mut Vec<Violation>,
) {
    match &m.content {
        None => {}
        Some(Content::Text(text)) => {
            pieces.extend(Some(text.as_str()).filter(|t| !t.trim().is_empty()));
        }
        Some(Content::Parts(parts)) => {
            for (part, p) in parts.iter().enumerate() {
                let text = (p.get("type").and_then(serde_json::Value::as_str) == Some("text"))
                    .then(|| p.get("text").and_then(serde_json::Value::as_str))
                    .flatten();
                match text {
                    Some(text) => pieces.extend(Some(text).filter(|t| !t.trim().is_empty())),
                    None => out.push(violation(
                        index,
                        Rule::SystemPart,
                        None,
                        format!("system content part {part} is not a text part; the Anthropic system text holds text only"),
                    )),
                }
            }
        }
    }
}

/// A message's content as blocks: a text with something besides whitespace as one text block
/// (the API refuses empty and whitespace-only ones), each content part as it is.
fn content_blocks(m: &Message) -> Vec<Block<'_>> {
    match &m.content {
        None => Vec::new(),
        Some(Content::Text(text)) if text.trim().is_empty() => Vec::new(),
        Some(Content::Text(text)) => vec![Block::Text(text)],
        Some(Content::Parts(parts)) => parts
            .iter()
            .filter(|p| !is_blank_text_part(p))
            .map(Block::Part)
            .collect(),
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
