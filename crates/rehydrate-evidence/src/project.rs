//! [`project_evidence`]: a session's event log as compact per-turn evidence.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;

use rehydrate_model::{EventKind, SessionEvent, UserBlock, fold_surface};
use rehydrate_search::find_secrets;
use serde_json::Value;

use crate::error::Error;
use crate::fence::omit_large_code_blocks;

/// The version of the projection rules, carried in every [`Evidence`] so a consumer can tell
/// evidence made under different rules apart. Bumped whenever what is kept or how it is
/// rewritten changes.
pub const PROJECTION_VERSION: u32 = 2;

/// The default limit of the projected input, in bytes (SPEC seed 003: 128 KiB).
pub const DEFAULT_MAX_INPUT_BYTES: usize = 131_072;

/// How to project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceOptions {
    /// The largest projected input accepted, in bytes of its serialized form
    /// ([`Evidence::input_json`]); more is [`Error::EvidenceTooLarge`].
    pub max_input_bytes: usize,
}

impl Default for EvidenceOptions {
    fn default() -> Self {
        EvidenceOptions {
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
        }
    }
}

/// A session's evidence: what a memory or review model is handed.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Evidence {
    /// [`PROJECTION_VERSION`].
    pub projection_version: u32,
    /// One per turn with something kept, in log order.
    pub turns: Vec<EvidenceTurn>,
    /// The caller's workspace records, handed on as serde_json holds them (object keys in
    /// serde_json's map order).
    #[serde(default)]
    pub workspace: Vec<Value>,
    /// Counts and byte sizes for a debug log (never content).
    pub stats: EvidenceStats,
}

/// The evidence of one event turn ([`SessionEvent::turn`](rehydrate_model::SessionEvent)).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EvidenceTurn {
    /// The event turn's number (`None` for events before the first turn or between turns).
    pub turn: Option<u64>,
    /// The turn's original inclusive seq range in the full log: `[first, last]`.
    pub seq_range: [u64; 2],
    /// The person's messages, in order.
    pub user: Vec<String>,
    /// Compaction summaries on the surface in this turn, in order.
    pub summaries: Vec<String>,
    /// The last non-empty assistant text of the turn.
    pub assistant: Option<String>,
    /// Each tool result's tool and outcome, in order.
    pub tools: Vec<ToolOutcome>,
}

/// A tool result reduced to its tool and outcome.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolOutcome {
    /// The tool's name (from its call, else the result; `unknown` when neither names it).
    pub name: String,
    /// Whether it succeeded.
    pub ok: bool,
    /// The exit code of the command it ran, where the session records one (Codex rollouts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
}

/// Counts and byte sizes of a projection, for a debug log: never content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct EvidenceStats {
    /// Events in the log.
    pub events: usize,
    /// Events on the effective surface.
    pub surface_events: usize,
    /// Runs of consecutive events of one turn in the log (a run of events without a turn
    /// counts too).
    pub log_turns: usize,
    /// Evidence turns kept.
    pub turns: usize,
    /// The log's events serialized as a compact JSON array, in bytes.
    pub bytes_before: usize,
    /// The projected input ([`Evidence::input_json`]), in bytes.
    pub bytes_after: usize,
    /// Fenced code blocks replaced by a placeholder.
    pub code_blocks_omitted: usize,
    /// Secret-shaped strings replaced by a placeholder.
    pub secrets_redacted: usize,
}

impl Evidence {
    /// The projected input as it is measured and handed on: compact JSON
    /// `{"projection_version":…,"turns":[…],"workspace":[…]}` (stats are not part of it).
    pub fn input_json(&self) -> String {
        serde_json::to_string(&Input {
            projection_version: self.projection_version,
            turns: &self.turns,
            workspace: &self.workspace,
        })
        .expect("evidence always serializes")
    }
}

#[derive(serde::Serialize)]
struct Input<'a> {
    projection_version: u32,
    turns: &'a [EvidenceTurn],
    workspace: &'a [Value],
}

/// Projects a session's event log into per-turn evidence (SPEC seed 003, "Turn evidence
/// projection").
///
/// The log is folded ([`fold_surface`]); surface events are grouped by the run of events of
/// their turn, and each group keeps its run's inclusive seq range. Kept per turn: the person's
/// text (non-text blocks as `[<type>]`), compaction summaries, the last non-empty assistant
/// text, and each tool result's tool name (from its call) and outcome. Dropped: injected
/// messages, request metadata, stream chunks, lifecycle and title events, tool arguments and
/// tool-result bodies, and whatever a summary replaced. Kept texts (tool names too) have
/// secret-shaped strings replaced by `rehydrate_search::redact`'s `[redacted:<kind>]`, then
/// fenced code blocks over 4 KiB by `[code block: N bytes omitted]`. A turn with nothing kept is
/// left out.
///
/// Nothing is dropped to fit: the whole projected input, workspace records included, is
/// measured ([`Evidence::input_json`]) and refused above `options.max_input_bytes`.
///
/// # Errors
///
/// - [`Error::Fold`] when the log does not fold (SPEC seed 003 foldSurface rules);
/// - [`Error::TurnNotContiguous`] when a turn's events are split by another turn's;
/// - [`Error::EvidenceTooLarge`] when the projected input is over the limit.
///
/// # Example
///
/// ```
/// use rehydrate_evidence::{EvidenceOptions, project_evidence};
/// use rehydrate_model::{EventKind, SessionEvent, SurfaceOp, UserBlock};
///
/// let event = |seq, kind| SessionEvent {
///     seq, time: None, turn: Some(1), kind, surface: Some(SurfaceOp::Append), sources: vec![],
/// };
/// let log = vec![
///     event(0, EventKind::UserMessage { blocks: vec![UserBlock::Text { text: "fix bug".into() }] }),
///     event(1, EventKind::AssistantMessage { text: "done".into() }),
/// ];
/// let evidence = project_evidence(&log, &[], &EvidenceOptions::default())?;
/// assert_eq!(evidence.turns[0].seq_range, [0, 1]);
/// assert_eq!(evidence.turns[0].user, ["fix bug"]);
/// assert_eq!(evidence.turns[0].assistant.as_deref(), Some("done"));
/// # Ok::<(), rehydrate_evidence::Error>(())
/// ```
pub fn project_evidence(
    events: &[SessionEvent],
    workspace_records: &[Value],
    options: &EvidenceOptions,
) -> Result<Evidence, Error> {
    let surface = fold_surface(events)?;
    let groups = groups(events)?;
    let mut stats = EvidenceStats {
        events: events.len(),
        surface_events: surface.nodes.len(),
        log_turns: groups.len(),
        bytes_before: serialized_len(events),
        ..EvidenceStats::default()
    };
    // The latest call of each id before a result names its tool.
    let mut calls: HashMap<&str, &str> = HashMap::new();
    let mut call_at: Vec<Option<&str>> = vec![None; events.len()];
    for (i, e) in events.iter().enumerate() {
        match &e.kind {
            EventKind::ToolCall { call_id, name, .. } => {
                calls.insert(call_id, name);
            }
            EventKind::ToolResult {
                call_id: Some(id), ..
            } => call_at[i] = calls.get(id.as_str()).copied(),
            _ => {}
        }
    }
    let mut on_surface = vec![false; events.len()];
    for &seq in &surface.nodes {
        if let Some(flag) = usize::try_from(seq)
            .ok()
            .and_then(|i| on_surface.get_mut(i))
        {
            *flag = true;
        }
    }
    // Secrets first, on the text as written (a secret that straddles a fence is still found
    // whole), then code blocks over the limit.
    let mut redact = |text: &str| {
        let secrets = find_secrets(text).len();
        stats.secrets_redacted += secrets;
        if secrets == 0 {
            text.to_string()
        } else {
            rehydrate_search::redact(text).into_owned()
        }
    };
    let mut omitted = 0;
    let mut clean = |text: &str| {
        let text = redact(text);
        let (out, n) = omit_large_code_blocks(&text);
        omitted += n;
        match out {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(out) => out,
        }
    };
    let mut turns = Vec::new();
    for group in &groups {
        let mut turn = EvidenceTurn {
            turn: group.turn,
            seq_range: [group.first, group.last],
            user: Vec::new(),
            summaries: Vec::new(),
            assistant: None,
            tools: Vec::new(),
        };
        let mut assistant: Option<&str> = None;
        for i in group.first as usize..=group.last as usize {
            if !on_surface[i] {
                continue;
            }
            match &events[i].kind {
                EventKind::UserMessage { blocks } => {
                    let text = blocks
                        .iter()
                        .map(|b| match b {
                            UserBlock::Text { text } => text.clone(),
                            UserBlock::NonText { block_type } => format!("[{block_type}]"),
                        })
                        .collect::<Vec<_>>()
                        .join("\n");
                    turn.user.push(clean(&text));
                }
                EventKind::CompactionSummary { text } => turn.summaries.push(clean(text)),
                EventKind::AssistantMessage { text } if !text.trim().is_empty() => {
                    assistant = Some(text);
                }
                EventKind::ToolResult {
                    name,
                    ok,
                    exit_code,
                    ..
                } => {
                    // A tool name can hold a secret too (a SWE-agent action's first word).
                    let name = call_at[i].or(name.as_deref()).unwrap_or("unknown");
                    turn.tools.push(ToolOutcome {
                        name: clean(name),
                        ok: *ok,
                        exit_code: *exit_code,
                    });
                }
                EventKind::AssistantMessage { .. }
                | EventKind::InjectedMessage { .. }
                | EventKind::ToolCall { .. }
                | EventKind::RequestMetadata { .. }
                | EventKind::StreamChunk { .. }
                | EventKind::Lifecycle { .. }
                | EventKind::Title { .. }
                | EventKind::Other { .. } => {}
            }
        }
        turn.assistant = assistant.map(&mut clean);
        let empty = turn.user.is_empty()
            && turn.summaries.is_empty()
            && turn.assistant.is_none()
            && turn.tools.is_empty();
        if !empty {
            turns.push(turn);
        }
    }
    stats.turns = turns.len();
    stats.code_blocks_omitted = omitted;
    let mut evidence = Evidence {
        projection_version: PROJECTION_VERSION,
        turns,
        workspace: workspace_records.to_vec(),
        stats,
    };
    let bytes = evidence.input_json().len();
    evidence.stats.bytes_after = bytes;
    if bytes > options.max_input_bytes {
        return Err(Error::EvidenceTooLarge {
            bytes,
            limit: options.max_input_bytes,
        });
    }
    Ok(evidence)
}

/// A run of consecutive events of one turn.
struct Group {
    turn: Option<u64>,
    first: u64,
    last: u64,
}

/// The runs of events of one turn, in order; a turn number may not come back after another
/// turn's run.
fn groups(events: &[SessionEvent]) -> Result<Vec<Group>, Error> {
    let mut groups: Vec<Group> = Vec::new();
    let mut closed = BTreeSet::new();
    for e in events {
        match groups.last_mut() {
            Some(g) if g.turn == e.turn => g.last = e.seq,
            last => {
                if let Some(g) = last
                    && let Some(t) = g.turn
                {
                    closed.insert(t);
                }
                if let Some(t) = e.turn
                    && closed.contains(&t)
                {
                    return Err(Error::TurnNotContiguous {
                        seq: e.seq,
                        turn: t,
                    });
                }
                groups.push(Group {
                    turn: e.turn,
                    first: e.seq,
                    last: e.seq,
                });
            }
        }
    }
    Ok(groups)
}

/// The length of `events` as a compact JSON array, counted without keeping the bytes.
fn serialized_len(events: &[SessionEvent]) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, events).expect("events always serialize");
    count.0
}
