//! The backend-neutral session event log (SPEC seed 003, "SessionEvent") and its fold into the
//! effective surface: what the model sees after compaction summaries replaced earlier events.
//!
//! The canonical serde form is documented in docs/FORMATS.md, "Session events".

/// One event of a session's log.
///
/// Events are numbered by `seq`, contiguous from 0. Surface events ([`EventKind::is_surface`]:
/// user, injected, assistant and compaction-summary messages and tool results) say how they
/// enter the model's view with `surface`; every other event must leave it `None`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionEvent {
    /// The event's position in the log, from 0.
    pub seq: u64,
    /// The time the source recorded, verbatim (an ISO 8601 string for Claude Code), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// The *event turn* the event belongs to: turn `n` starts at the `n`-th human user message
    /// (from 1; docs/FORMATS.md, "Session events", lists what counts as one); `None` before the
    /// first one and for events a source places between turns. Not the reducer's message turn
    /// ([`Message::is_turn_start`](crate::Message::is_turn_start)), which any user message that
    /// is not an observation opens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    /// What happened.
    pub kind: EventKind,
    /// On a surface event: how it enters the surface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<SurfaceOp>,
    /// The seqs of earlier events this one was derived from (a summary cites every event it
    /// replaces). Only surface events may cite.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<u64>,
}

/// What an event is.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum EventKind {
    /// A message a person wrote.
    UserMessage {
        /// Its blocks, in order.
        blocks: Vec<UserBlock>,
    },
    /// A user-role message the agent framework injected (memory, reminders, command output,
    /// plugin context): not the person's words.
    InjectedMessage {
        /// Who injected it (`meta`, `system-reminder`, `command`, a plugin name).
        source: String,
        /// Its text.
        text: String,
    },
    /// An assistant message: its text blocks joined (reasoning excluded; may be empty).
    AssistantMessage {
        /// The text.
        text: String,
    },
    /// A tool call the assistant made.
    ToolCall {
        /// The call id its result names.
        call_id: String,
        /// The tool's name.
        name: String,
        /// The arguments as the raw JSON text the model wrote.
        arguments: String,
    },
    /// A tool result.
    ToolResult {
        /// The call it answers, when the source links them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
        /// The tool's name when the result itself records it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// Whether the tool succeeded.
        ok: bool,
        /// The exit code of the command the tool ran, where the source records one (a Codex
        /// exec output's `Process exited with code N` or `metadata.exit_code`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i64>,
        /// The result's text.
        content: String,
    },
    /// A compaction summary: replaces the events it summarizes on the surface.
    CompactionSummary {
        /// The summary text.
        text: String,
    },
    /// Request metadata (headers, model settings, usage).
    RequestMetadata {
        /// What it is, for diagnostics.
        what: String,
    },
    /// A piece of a streamed response.
    StreamChunk {
        /// The chunk's text.
        text: String,
    },
    /// A lifecycle event (turn or step boundaries, compaction boundaries, snapshots, hooks).
    Lifecycle {
        /// What it is (`compact_boundary`, `file-history-snapshot`, ...).
        what: String,
    },
    /// A session title.
    Title {
        /// The title.
        text: String,
    },
    /// Anything else (a system prompt, an unknown record).
    Other {
        /// What it is.
        what: String,
    },
}

impl EventKind {
    /// Whether events of this kind are on the surface the model sees: user, injected,
    /// assistant and compaction-summary messages and tool results.
    pub fn is_surface(&self) -> bool {
        match self {
            EventKind::UserMessage { .. }
            | EventKind::InjectedMessage { .. }
            | EventKind::AssistantMessage { .. }
            | EventKind::ToolResult { .. }
            | EventKind::CompactionSummary { .. } => true,
            EventKind::ToolCall { .. }
            | EventKind::RequestMetadata { .. }
            | EventKind::StreamChunk { .. }
            | EventKind::Lifecycle { .. }
            | EventKind::Title { .. }
            | EventKind::Other { .. } => false,
        }
    }
}

/// One block of a person's message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum UserBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// Anything but text (an image, a document), by its type only.
    NonText {
        /// The block's type, such as `image`.
        block_type: String,
    },
}

/// How a surface event enters the surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum SurfaceOp {
    /// Appended after the current surface.
    Append,
    /// Replaces the surface nodes from the one with seq `start` through the one with seq `end`
    /// (inclusive, by their positions on the surface), which it must cite in `sources`.
    Replace {
        /// The seq of the first node replaced.
        start: u64,
        /// The seq of the last node replaced.
        end: u64,
    },
}

/// The effective surface of a log: the result of [`fold_surface`].
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Surface {
    /// The seqs of the events on the surface, in the order the model sees them.
    pub nodes: Vec<u64>,
    /// Every replacement, in log order.
    pub replacements: Vec<SurfaceReplacement>,
}

/// One replacement made by the fold.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SurfaceReplacement {
    /// The replacing event.
    pub seq: u64,
    /// The seq of the first node replaced.
    pub start: u64,
    /// The seq of the last node replaced.
    pub end: u64,
    /// The seqs of the nodes it took off the surface, in surface order.
    pub shadowed: Vec<u64>,
}

/// Why a log does not fold (SPEC seed 003, foldSurface rules 1-6). Each names the seq of the
/// offending event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FoldError {
    /// Seqs must count 0, 1, 2, ...
    #[error("session event seq {seq} is not contiguous; expected {expected}")]
    NotContiguous {
        /// The seq found.
        seq: u64,
        /// The seq expected at that position.
        expected: u64,
    },
    /// A surface event without a surface operation.
    #[error("session event {seq} is a surface event without a surface operation")]
    MissingSurfaceOp {
        /// The event.
        seq: u64,
    },
    /// A non-surface event with a surface operation or sources.
    #[error("session event {seq} is not a surface event but has a surface operation or sources")]
    NotSurface {
        /// The event.
        seq: u64,
    },
    /// A replacement names a node that is not on the surface.
    #[error("session event {seq} replaces through {target}, which is not on the surface")]
    ReplaceTargetMissing {
        /// The event.
        seq: u64,
        /// The missing node.
        target: u64,
    },
    /// A replacement whose start comes after its end on the surface.
    #[error(
        "session event {seq} replaces {start}..{end}, but {start} comes after {end} on the surface"
    )]
    ReplaceReversed {
        /// The event.
        seq: u64,
        /// The start node.
        start: u64,
        /// The end node.
        end: u64,
    },
    /// A source that is not an earlier event.
    #[error("session event {seq} cites {source_seq}, which is not an earlier event")]
    SourceNotEarlier {
        /// The event.
        seq: u64,
        /// The cited seq.
        source_seq: u64,
    },
    /// A source cited twice.
    #[error("session event {seq} cites {source_seq} twice")]
    DuplicateSource {
        /// The event.
        seq: u64,
        /// The cited seq.
        source_seq: u64,
    },
    /// A replacement that does not cite every node it shadows.
    #[error("session event {seq} replaces events it does not cite: {missing:?}")]
    UncitedShadowed {
        /// The event.
        seq: u64,
        /// The shadowed seqs missing from its sources.
        missing: Vec<u64>,
    },
    /// A tool-result replacement that is not a same-result content change.
    #[error("session event {seq} replaces a tool result but {reason}")]
    ToolResultReplace {
        /// The event.
        seq: u64,
        /// What is wrong (one line).
        reason: &'static str,
    },
}

/// Folds a log into its effective surface (SPEC seed 003, foldSurface).
///
/// Rules: seqs count from 0 without gaps; a surface event carries a [`SurfaceOp`] and a
/// non-surface event carries neither an op nor sources; sources are distinct and earlier than
/// the event; `Append` pushes the event's seq; `Replace { start, end }` finds both nodes on the
/// surface (start not after end), takes the nodes between them inclusive off the surface, puts
/// the event in their place, and requires every one of them among its sources; a tool result
/// that replaces must replace exactly one tool result with the same call id, tool name and
/// outcome (only its content may change). Work is linear in the log: a replacement walks only
/// the nodes it replaces, and each node is replaced at most once (a reversed range, an error,
/// may walk the rest of the surface once).
///
/// # Errors
///
/// The first rule broken, as a [`FoldError`] naming the event.
///
/// # Example
///
/// ```
/// use rehydrate_model::{EventKind, SessionEvent, SurfaceOp, fold_surface};
///
/// let event = |seq, kind, surface, sources: Vec<u64>| SessionEvent {
///     seq, time: None, turn: Some(1), kind, surface: Some(surface), sources,
/// };
/// let log = vec![
///     event(0, EventKind::AssistantMessage { text: "a".into() }, SurfaceOp::Append, vec![]),
///     event(1, EventKind::AssistantMessage { text: "b".into() }, SurfaceOp::Append, vec![]),
///     event(2, EventKind::CompactionSummary { text: "s".into() },
///           SurfaceOp::Replace { start: 0, end: 1 }, vec![0, 1]),
/// ];
/// let surface = fold_surface(&log)?;
/// assert_eq!(surface.nodes, [2]);
/// assert_eq!(surface.replacements[0].shadowed, [0, 1]);
/// # Ok::<(), rehydrate_model::FoldError>(())
/// ```
pub fn fold_surface(events: &[SessionEvent]) -> Result<Surface, FoldError> {
    // The surface as a doubly linked list over seqs (which are dense: seq i is event i), so a
    // replacement costs the number of nodes it replaces, not the size of the surface.
    let mut list = Links::new(events.len());
    let mut replacements = Vec::new();
    for (i, event) in events.iter().enumerate() {
        let seq = event.seq;
        let expected = i as u64;
        if seq != expected {
            return Err(FoldError::NotContiguous { seq, expected });
        }
        if !event.kind.is_surface() {
            if event.surface.is_some() || !event.sources.is_empty() {
                return Err(FoldError::NotSurface { seq });
            }
            continue;
        }
        let op = event.surface.ok_or(FoldError::MissingSurfaceOp { seq })?;
        let mut sources = event.sources.clone();
        sources.sort_unstable();
        for pair in sources.windows(2) {
            if pair[0] == pair[1] {
                return Err(FoldError::DuplicateSource {
                    seq,
                    source_seq: pair[0],
                });
            }
        }
        if let Some(&last) = sources.last()
            && last >= seq
        {
            return Err(FoldError::SourceNotEarlier {
                seq,
                source_seq: last,
            });
        }
        match op {
            SurfaceOp::Append => list.push(i),
            SurfaceOp::Replace { start, end } => {
                let on = |target: u64| {
                    usize::try_from(target)
                        .ok()
                        .filter(|&t| list.contains(t))
                        .ok_or(FoldError::ReplaceTargetMissing { seq, target })
                };
                let (from, to) = (on(start)?, on(end)?);
                let shadowed =
                    list.run(from, to)
                        .ok_or(FoldError::ReplaceReversed { seq, start, end })?;
                let missing: Vec<u64> = shadowed
                    .iter()
                    .map(|&n| n as u64)
                    .filter(|n| sources.binary_search(n).is_err())
                    .collect();
                if !missing.is_empty() {
                    return Err(FoldError::UncitedShadowed { seq, missing });
                }
                let shadowed: Vec<u64> = shadowed.iter().map(|&n| n as u64).collect();
                if let EventKind::ToolResult { .. } = &event.kind {
                    check_tool_result_replace(events, event, &shadowed)?;
                }
                list.replace(from, to, i);
                replacements.push(SurfaceReplacement {
                    seq,
                    start,
                    end,
                    shadowed,
                });
            }
        }
    }
    Ok(Surface {
        nodes: list.nodes(),
        replacements,
    })
}

/// The surface as a doubly linked list over event indices.
struct Links {
    prev: Vec<Option<usize>>,
    next: Vec<Option<usize>>,
    on: Vec<bool>,
    head: Option<usize>,
    tail: Option<usize>,
}

impl Links {
    fn new(n: usize) -> Links {
        Links {
            prev: vec![None; n],
            next: vec![None; n],
            on: vec![false; n],
            head: None,
            tail: None,
        }
    }

    fn contains(&self, node: usize) -> bool {
        self.on.get(node).copied().unwrap_or(false)
    }

    fn push(&mut self, node: usize) {
        self.prev[node] = self.tail;
        match self.tail {
            Some(t) => self.next[t] = Some(node),
            None => self.head = Some(node),
        }
        self.tail = Some(node);
        self.on[node] = true;
    }

    /// The nodes from `from` through `to` in surface order; `None` when `to` does not come at
    /// or after `from`.
    fn run(&self, from: usize, to: usize) -> Option<Vec<usize>> {
        let mut out = vec![from];
        let mut at = from;
        while at != to {
            at = self.next[at]?;
            out.push(at);
        }
        Some(out)
    }

    /// Takes the nodes from `from` through `to` off and puts `node` in their place.
    fn replace(&mut self, from: usize, to: usize, node: usize) {
        let (before, after) = (self.prev[from], self.next[to]);
        let mut at = Some(from);
        while let Some(n) = at {
            self.on[n] = false;
            at = if n == to { None } else { self.next[n] };
        }
        self.prev[node] = before;
        self.next[node] = after;
        match before {
            Some(b) => self.next[b] = Some(node),
            None => self.head = Some(node),
        }
        match after {
            Some(a) => self.prev[a] = Some(node),
            None => self.tail = Some(node),
        }
        self.on[node] = true;
    }

    /// The nodes in surface order, as seqs.
    fn nodes(&self) -> Vec<u64> {
        let mut out = Vec::new();
        let mut at = self.head;
        while let Some(n) = at {
            out.push(n as u64);
            at = self.next[n];
        }
        out
    }
}

/// A tool result that replaces must replace exactly one tool result with the same call id,
/// name and outcome.
fn check_tool_result_replace(
    events: &[SessionEvent],
    event: &SessionEvent,
    shadowed: &[u64],
) -> Result<(), FoldError> {
    let fail = |reason| FoldError::ToolResultReplace {
        seq: event.seq,
        reason,
    };
    let [only] = shadowed else {
        return Err(fail("shadows more than one event"));
    };
    let old = usize::try_from(*only)
        .ok()
        .and_then(|i| events.get(i))
        .map(|e| &e.kind);
    let (
        Some(EventKind::ToolResult {
            call_id: old_id,
            name: old_name,
            ok: old_ok,
            ..
        }),
        EventKind::ToolResult {
            call_id, name, ok, ..
        },
    ) = (old, &event.kind)
    else {
        return Err(fail("the event it shadows is not a tool result"));
    };
    if old_id != call_id || old_name != name || old_ok != ok {
        return Err(fail("changes more than its content"));
    }
    Ok(())
}
