//! Session event logs (SPEC seed 003) from imported sessions: [`import_events`] and
//! [`events_from_messages`] (docs/FORMATS.md, "Session events", "From imported messages").

use std::path::Path;

use rehydrate_model::{
    Content, EventKind, Message, Role, SessionEvent, SurfaceOp, TIMESTAMP_METADATA_KEY, UserBlock,
};

use crate::claude_code::{self, SideEvent};
use crate::{Error, Format, Warning, import_session};

/// A session's event log, as [`import_events`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct EventImport {
    /// The format the file was read as.
    pub format: Format,
    /// The events, seqs contiguous from 0.
    pub events: Vec<SessionEvent>,
    /// The import's warnings (those of [`crate::import`]).
    pub warnings: Vec<Warning>,
}

/// Reads a session file's event log: the events of its imported messages
/// ([`events_from_messages`]), and for Claude Code also the records that make no message, at
/// their place in the file: `summary` lines as titles; `system` records (by `subtype`, such as
/// `compact_boundary`), `file-history-snapshot`, `queue-operation` and `progress` lines as
/// lifecycle events. For Codex rollouts, Responses inputs and Anthropic bodies, a tool result
/// that names no tool takes the name of the latest earlier tool call with its call id.
///
/// # Errors
///
/// Those of [`crate::import`].
///
/// # Example
///
/// ```
/// use std::path::Path;
/// use rehydrate_formats::import_events;
/// use rehydrate_model::EventKind;
///
/// let bytes = br#"[{"role":"user","content":"fix it"},{"role":"assistant","content":"done"}]"#;
/// let log = import_events(Path::new("chat.json"), bytes, None)?;
/// assert_eq!(log.events.len(), 2);
/// assert_eq!(log.events[1].turn, Some(1));
/// assert_eq!(log.events[1].kind, EventKind::AssistantMessage { text: "done".into() });
/// # Ok::<(), rehydrate_formats::Error>(())
/// ```
pub fn import_events(
    path: &Path,
    bytes: &[u8],
    format: Option<Format>,
) -> Result<EventImport, Error> {
    import_events_session(path, bytes, format, None)
}

/// [`import_events`] of one session of a file that holds several: `session` is its number, as
/// [`crate::import_session`] takes it.
///
/// # Errors
///
/// Those of [`crate::import_session`].
pub fn import_events_session(
    path: &Path,
    bytes: &[u8],
    format: Option<Format>,
    session: Option<usize>,
) -> Result<EventImport, Error> {
    let claude = match format {
        Some(Format::ClaudeCode) => true,
        Some(_) => false,
        None => crate::detect(bytes) == Some(Format::ClaudeCode),
    };
    if !claude || session.is_some_and(|n| n != 1) {
        let imported = import_session(path, bytes, format, session)?;
        let mut events = events_from_messages(imported.messages);
        if matches!(
            imported.format,
            Format::Codex | Format::Responses | Format::Anthropic
        ) {
            name_results(&mut events);
        }
        return Ok(EventImport {
            format: imported.format,
            events,
            warnings: imported.warnings,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        path: path.to_path_buf(),
        byte: e.valid_up_to(),
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(Error::EmptyFile {
            path: path.to_path_buf(),
        });
    }
    let mut side = Vec::new();
    let mut messages = Vec::new();
    let warnings = claude_code::import(path, text, Some(&mut side), &mut |m| messages.push(m))?;
    Ok(EventImport {
        format: Format::ClaudeCode,
        events: build(messages, side),
        warnings,
    })
}

/// The event log of canonical messages, in order (docs/FORMATS.md, "Session events").
///
/// - A user message written by a person (not an observation, not marked `claude_code.meta`,
///   `claude_code.compact_summary`, `codex.compacted` or `swe_agent.is_demo`, and not a system
///   reminder, command echo or Codex context preamble: text starting with `<system-reminder>`,
///   `<command-name>`, `<command-message>`, `<local-command-stdout>`, `<local-command-stderr>`,
///   `# AGENTS.md instructions`, `<environment_context>` or `<user_instructions>`) is a user message and starts the next
///   turn (turns count from 1; earlier events have no turn). Its text parts are text blocks,
///   other parts non-text blocks by their `type`.
/// - A Claude Code slash command (`<command-name>` tags) is the person's user message `/name args`
///   and starts the next turn.
/// - Those other user messages are injected messages, with the source `meta`, `demonstration`,
///   `system-reminder`, `interruption` (`[Request interrupted by user…`), `command` (command
///   output) or `codex-context`; a compaction summary (`claude_code.compact_summary`, or
///   `codex.compacted`) is a
///   compaction summary that replaces the whole surface before it and cites it.
/// - An assistant message is an assistant message (its text, empty when it has none), followed by
///   one tool call per tool call; a demonstration's is an injected message.
/// - A tool result (role `tool`, or an observation) is a tool result: its call id, `ok` unless
///   metadata `is_error` is `"true"`, its text (the text parts joined with `\n`), and, for an
///   observation, the tool named by the first word of the preceding assistant message's
///   `swe_agent.action` after any `NAME=value` assignments (an observation is always `ok`: such
///   runs record no outcome).
/// - A system message is an `other` event (`system prompt`).
///
/// Surface events are appended, except compaction summaries. The messages are consumed: their
/// texts move into the events.
pub fn events_from_messages(messages: Vec<Message>) -> Vec<SessionEvent> {
    build(messages, Vec::new())
}

/// The log of `messages`, with the side events of a Claude Code file placed before the first
/// message from a later line.
fn build(messages: Vec<Message>, side: Vec<SideEvent>) -> Vec<SessionEvent> {
    let mut log = Log::default();
    log.events.reserve(messages.len() + side.len());
    let mut side = side.into_iter().peekable();
    // The tool named by the latest assistant message's SWE-agent action.
    let mut action: Option<String> = None;
    for mut m in messages {
        if let Some(line) = line_of(&m) {
            while let Some(event) = side.next_if(|e| e.line < line) {
                log.push(event.time, event.kind, None);
            }
        }
        let time = m.metadata.remove(TIMESTAMP_METADATA_KEY);
        let meta = |m: &Message, key: &str| m.metadata.get(key).map(String::as_str) == Some("true");
        if meta(&m, crate::keys::SWE_AGENT_IS_DEMO) {
            log.push(
                time,
                EventKind::InjectedMessage {
                    source: "demonstration".to_string(),
                    text: take_text(&mut m),
                },
                Some(SurfaceOp::Append),
            );
            continue;
        }
        match m.role {
            Role::System => log.push(
                time,
                EventKind::Other {
                    what: "system prompt".to_string(),
                },
                None,
            ),
            _ if m.is_tool_result() => {
                let name = if m.observation {
                    action.clone()
                } else {
                    m.name.take()
                };
                let ok = !m.is_error();
                let exit_code = m
                    .metadata
                    .get(crate::keys::CODEX_EXIT_CODE)
                    .and_then(|code| code.parse().ok());
                log.push(
                    time,
                    EventKind::ToolResult {
                        call_id: m.tool_call_id.take(),
                        name,
                        ok,
                        exit_code,
                        content: take_text(&mut m),
                    },
                    Some(SurfaceOp::Append),
                );
            }
            Role::User if crate::is_compaction_summary(&m) => {
                log.compaction(time, take_text(&mut m));
            }
            Role::User => {
                if let Some(command) = slash_command(&m) {
                    log.turn = Some(log.turn.map_or(1, |t| t + 1));
                    log.push(
                        time,
                        EventKind::UserMessage {
                            blocks: vec![UserBlock::Text { text: command }],
                        },
                        Some(SurfaceOp::Append),
                    );
                    continue;
                }
                let source = if meta(&m, crate::keys::CLAUDE_CODE_META) {
                    Some("meta")
                } else {
                    injected_source(&m)
                };
                let kind = match source {
                    Some(source) => EventKind::InjectedMessage {
                        source: source.to_string(),
                        text: take_text(&mut m),
                    },
                    None => {
                        log.turn = Some(log.turn.map_or(1, |t| t + 1));
                        EventKind::UserMessage {
                            blocks: user_blocks(m),
                        }
                    }
                };
                log.push(time, kind, Some(SurfaceOp::Append));
            }
            Role::Assistant | Role::Tool => {
                action = m
                    .metadata
                    .get(crate::keys::SWE_AGENT_ACTION)
                    .and_then(|a| action_tool(a))
                    .map(str::to_string);
                let calls = std::mem::take(&mut m.tool_calls);
                log.push(
                    time.clone(),
                    EventKind::AssistantMessage {
                        text: take_text(&mut m),
                    },
                    Some(SurfaceOp::Append),
                );
                for call in calls {
                    log.push(
                        time.clone(),
                        EventKind::ToolCall {
                            call_id: call.id,
                            name: call.name,
                            arguments: call.arguments,
                        },
                        None,
                    );
                }
            }
        }
    }
    for event in side {
        log.push(event.time, event.kind, None);
    }
    log.events
}

/// Names each tool result without a name by the latest earlier tool call with its call id
/// (Codex and Responses outputs and Anthropic `tool_result` blocks do not name their tool).
fn name_results(events: &mut [SessionEvent]) {
    let mut names: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for event in events.iter_mut() {
        match &mut event.kind {
            EventKind::ToolCall { call_id, name, .. } => {
                names.insert(call_id.clone(), name.clone());
            }
            EventKind::ToolResult {
                call_id: Some(id),
                name: name @ None,
                ..
            } => *name = names.get(id.as_str()).cloned(),
            _ => {}
        }
    }
}

/// The log being built, with the current turn and surface.
#[derive(Default)]
struct Log {
    events: Vec<SessionEvent>,
    turn: Option<u64>,
    /// The seqs on the surface now.
    surface: Vec<u64>,
}

impl Log {
    fn push(&mut self, time: Option<String>, kind: EventKind, surface: Option<SurfaceOp>) {
        let seq = self.events.len() as u64;
        if surface.is_some() {
            self.surface.push(seq);
        }
        self.events.push(SessionEvent {
            seq,
            time,
            turn: self.turn,
            kind,
            surface,
            sources: Vec::new(),
        });
    }

    /// A compaction summary: replaces the whole surface, citing it.
    fn compaction(&mut self, time: Option<String>, text: String) {
        let seq = self.events.len() as u64;
        let shadowed = std::mem::take(&mut self.surface);
        let surface = match (shadowed.first(), shadowed.last()) {
            (Some(&start), Some(&end)) => SurfaceOp::Replace { start, end },
            _ => SurfaceOp::Append,
        };
        self.surface.push(seq);
        self.events.push(SessionEvent {
            seq,
            time,
            turn: self.turn,
            kind: EventKind::CompactionSummary { text },
            surface: Some(surface),
            sources: shadowed,
        });
    }
}

/// The Claude Code line a message came from.
fn line_of(m: &Message) -> Option<usize> {
    m.metadata.get(crate::keys::CLAUDE_CODE_LINE)?.parse().ok()
}

/// The source of a user message that a framework injected, by how its text starts.
fn injected_source(m: &Message) -> Option<&'static str> {
    let text = match &m.content {
        Some(Content::Text(text)) => text.as_str(),
        Some(Content::Parts(parts)) => parts
            .first()
            .and_then(|p| p.get("text"))
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default(),
        None => "",
    };
    let text = text.trim_start();
    if text.starts_with("<system-reminder>") {
        return Some("system-reminder");
    }
    if text.starts_with("[Request interrupted by user") {
        return Some("interruption");
    }
    // Codex's context preamble, sent as user messages before the person's first words.
    if [
        "# AGENTS.md instructions",
        "<environment_context>",
        "<user_instructions>",
    ]
    .iter()
    .any(|tag| text.starts_with(tag))
    {
        return Some("codex-context");
    }
    [
        "<command-name>",
        "<command-message>",
        "<local-command-stdout>",
        "<local-command-stderr>",
    ]
    .iter()
    .any(|tag| text.starts_with(tag))
    .then_some("command")
}

/// A slash command the person typed (Claude Code writes it as `<command-message>`,
/// `<command-name>` and `<command-args>` tags), as `/name args`; `None` for any other message.
fn slash_command(m: &Message) -> Option<String> {
    let Some(Content::Text(text)) = &m.content else {
        return None;
    };
    let trimmed = text.trim_start();
    if !trimmed.starts_with("<command-name>") && !trimmed.starts_with("<command-message>") {
        return None;
    }
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let close = format!("</{name}>");
        let start = text.find(&open)? + open.len();
        let end = start + text[start..].find(&close)?;
        Some(text[start..end].trim())
    };
    let name = tag("command-name")?;
    let args = tag("command-args").unwrap_or_default();
    Some(if args.is_empty() {
        name.to_string()
    } else {
        format!("{name} {args}")
    })
}

/// The tool an action runs: its first word after any leading `NAME=value` environment
/// assignments (`PYTHONPATH=. pytest` runs `pytest`).
fn action_tool(action: &str) -> Option<&str> {
    action.split_whitespace().find(|word| {
        let assignment = word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        });
        !assignment
    })
}

/// A message's text, taken out of it: its text, or its text parts joined with `\n`; empty when
/// it has none.
fn take_text(m: &mut Message) -> String {
    match m.content.take() {
        Some(Content::Text(text)) => text,
        content => crate::summary_text(&Message {
            content,
            ..Message::default()
        }),
    }
}

/// A person's message as blocks: text, and non-text parts by their `type`.
fn user_blocks(m: Message) -> Vec<UserBlock> {
    match m.content {
        None => Vec::new(),
        Some(Content::Text(text)) => vec![UserBlock::Text { text }],
        Some(Content::Parts(parts)) => parts
            .iter()
            .map(|p| {
                let kind = p.get("type").and_then(serde_json::Value::as_str);
                match (kind, p.get("text").and_then(serde_json::Value::as_str)) {
                    (Some("text"), Some(text)) => UserBlock::Text {
                        text: text.to_string(),
                    },
                    _ => UserBlock::NonText {
                        block_type: kind.unwrap_or("unknown").to_string(),
                    },
                }
            })
            .collect(),
    }
}
