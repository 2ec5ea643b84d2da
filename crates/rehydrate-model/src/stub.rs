//! The one-line stub grammar: `[rehydrate:<kind> <id> | <summary>]`.
//!
//! A stub stands in the view wherever a reduction hid bytes. It names the reduction id so the
//! model can call `expand_reduction(id)`, and a short summary saying what is hidden.

use std::fmt;

use crate::error::Error;
use crate::reduction::ReductionId;

/// The text every stub starts with. It is our own marker; a view line that starts with it is a
/// stub.
pub const STUB_SENTINEL: &str = "[rehydrate:";

/// The kind token inside a stub.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StubKind {
    /// `tool-output`: the middle of a tool result is hidden.
    ToolOutput,
    /// `assistant-text`: the middle of an old assistant message's text is hidden.
    AssistantText,
    /// `duplicate`: a tool result equal to an earlier one is hidden.
    Duplicate,
    /// `turns-cleared`: whole old turns are hidden.
    TurnsCleared,
    /// `compaction`: the messages the agent's own compaction summarized are hidden; the view
    /// shows the agent's summary after the stub line.
    Compaction,
    /// `unanswered-call`: a tool call that got no result; the stub is the synthetic result
    /// the view gives it.
    UnansweredCall,
    /// `orphan-result`: a tool result whose tool call is not in the history is hidden.
    OrphanResult,
    /// `second-answer`: a second tool result for an already answered call is hidden.
    SecondAnswer,
    /// `moved-result`: a tool result that arrived after other messages is shown right after its
    /// tool call; its stub line is in the log, not in the view.
    MovedResult,
    /// `folded-calls`: tool calls the APIs refuse as written are folded into the assistant
    /// message's text.
    FoldedCalls,
    /// `conversation-opened`: a user message put before a conversation that opens with an
    /// assistant message.
    ConversationOpened,
    /// `tool-input`: a large string argument of an old tool call is hidden inside its JSON
    /// arguments.
    ToolInput,
    /// `superseded`: a tool result whose call was made again later (same tool, same canonical
    /// arguments) is hidden; the later result stands in the view.
    Superseded,
    /// `re-read`: a whole file read whose path was read again later with the same content is
    /// hidden; the later read stands in the view.
    ReRead,
    /// `read-diff`: a whole file read of a path read earlier with other content shows a unified
    /// diff against that earlier read instead of its text.
    ReadDiff,
    /// `terminal`: a tool result's raw terminal output is hidden; the view shows what a
    /// terminal would finally display.
    Terminal,
    /// `image`: inline images among a message's content parts are hidden.
    Image,
}

impl StubKind {
    /// The token: `tool-output`, `assistant-text`, `duplicate`, `turns-cleared`, `compaction`,
    /// `unanswered-call`, `orphan-result`, `second-answer`, `moved-result`, `folded-calls`,
    /// `conversation-opened`, `tool-input`, `superseded`, `re-read`, `read-diff`, `terminal` or
    /// `image`.
    pub fn as_str(self) -> &'static str {
        match self {
            StubKind::ToolOutput => "tool-output",
            StubKind::AssistantText => "assistant-text",
            StubKind::Duplicate => "duplicate",
            StubKind::TurnsCleared => "turns-cleared",
            StubKind::Compaction => "compaction",
            StubKind::UnansweredCall => "unanswered-call",
            StubKind::OrphanResult => "orphan-result",
            StubKind::SecondAnswer => "second-answer",
            StubKind::MovedResult => "moved-result",
            StubKind::FoldedCalls => "folded-calls",
            StubKind::ConversationOpened => "conversation-opened",
            StubKind::ToolInput => "tool-input",
            StubKind::Superseded => "superseded",
            StubKind::ReRead => "re-read",
            StubKind::ReadDiff => "read-diff",
            StubKind::Terminal => "terminal",
            StubKind::Image => "image",
        }
    }

    fn from_token(token: &str) -> Option<StubKind> {
        match token {
            "tool-output" => Some(StubKind::ToolOutput),
            "assistant-text" => Some(StubKind::AssistantText),
            "duplicate" => Some(StubKind::Duplicate),
            "turns-cleared" => Some(StubKind::TurnsCleared),
            "compaction" => Some(StubKind::Compaction),
            "unanswered-call" => Some(StubKind::UnansweredCall),
            "orphan-result" => Some(StubKind::OrphanResult),
            "second-answer" => Some(StubKind::SecondAnswer),
            "moved-result" => Some(StubKind::MovedResult),
            "folded-calls" => Some(StubKind::FoldedCalls),
            "conversation-opened" => Some(StubKind::ConversationOpened),
            "tool-input" => Some(StubKind::ToolInput),
            "superseded" => Some(StubKind::Superseded),
            "re-read" => Some(StubKind::ReRead),
            "read-diff" => Some(StubKind::ReadDiff),
            "terminal" => Some(StubKind::Terminal),
            "image" => Some(StubKind::Image),
            _ => None,
        }
    }
}

impl fmt::Display for StubKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A parsed or to-be-rendered stub line.
///
/// Grammar (docs/FORMATS.md, "Stub grammar"):
/// `[rehydrate:` kind ` ` id ` | ` summary `]`, where kind is a [`StubKind`] token, id a
/// [`ReductionId`], and summary is non-empty and contains neither `]` nor a line break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stub {
    kind: StubKind,
    id: ReductionId,
    summary: String,
}

impl Stub {
    /// A stub for reduction `id` of `kind` with a summary.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidStub`] when `summary` is empty or contains `]`, `\n` or `\r`.
    pub fn new(kind: StubKind, id: ReductionId, summary: impl Into<String>) -> Result<Stub, Error> {
        let summary = summary.into();
        check_summary(&summary)?;
        Ok(Stub { kind, id, summary })
    }

    /// The kind token.
    pub fn kind(&self) -> StubKind {
        self.kind
    }

    /// The reduction id.
    pub fn id(&self) -> &ReductionId {
        &self.id
    }

    /// The summary text.
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// The stub as one line, without a line break.
    pub fn render(&self) -> String {
        line(self.kind, &self.id, &self.summary)
    }

    /// [`Stub::new`] followed by [`Stub::render`], without building the `Stub`: the line
    /// `[rehydrate:<kind> <id> | <summary>]` in one allocation.
    ///
    /// # Errors
    ///
    /// As [`Stub::new`].
    pub fn render_line(kind: StubKind, id: &ReductionId, summary: &str) -> Result<String, Error> {
        check_summary(summary)?;
        Ok(line(kind, id, summary))
    }

    /// Parses one stub line (no line break).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidStub`] naming what is wrong when the line does not follow the grammar.
    ///
    /// # Example
    ///
    /// ```
    /// use rehydrate_model::{Stub, StubKind};
    ///
    /// let stub = Stub::parse("[rehydrate:duplicate r3.00ab12 | same 120 bytes as message 4]")?;
    /// assert_eq!(stub.kind(), StubKind::Duplicate);
    /// assert_eq!(stub.id().as_str(), "r3.00ab12");
    /// assert_eq!(stub.summary(), "same 120 bytes as message 4");
    /// # Ok::<(), rehydrate_model::Error>(())
    /// ```
    pub fn parse(line: &str) -> Result<Stub, Error> {
        let invalid = |reason: &str| Error::InvalidStub {
            reason: reason.to_string(),
        };
        let body = line
            .strip_prefix(STUB_SENTINEL)
            .ok_or_else(|| invalid("line does not start with `[rehydrate:`"))?;
        let body = body
            .strip_suffix(']')
            .ok_or_else(|| invalid("line does not end with `]`"))?;
        let (head, summary) = body
            .split_once(" | ")
            .ok_or_else(|| invalid("missing ` | ` before the summary"))?;
        let (kind, id) = head
            .split_once(' ')
            .ok_or_else(|| invalid("missing the reduction id"))?;
        let kind = StubKind::from_token(kind)
            .ok_or_else(|| invalid(&format!("unknown kind `{}`", crate::error::clip(kind))))?;
        let id: ReductionId = id.parse()?;
        Stub::new(kind, id, summary)
    }
}

/// The stub line of an already checked summary.
fn line(kind: StubKind, id: &ReductionId, summary: &str) -> String {
    let kind = kind.as_str();
    let id = id.as_str();
    let mut out =
        String::with_capacity(STUB_SENTINEL.len() + kind.len() + id.len() + summary.len() + 5);
    for piece in [STUB_SENTINEL, kind, " ", id, " | ", summary, "]"] {
        out.push_str(piece);
    }
    out
}

fn check_summary(summary: &str) -> Result<(), Error> {
    let reason = if summary.is_empty() {
        "empty summary"
    } else if summary.contains(']') {
        "summary contains `]`"
    } else if summary.contains(['\n', '\r']) {
        "summary contains a line break"
    } else {
        return Ok(());
    };
    Err(Error::InvalidStub {
        reason: reason.to_string(),
    })
}

/// Every stub line written inside `text`, in order: each occurrence of [`STUB_SENTINEL`]
/// through the next `]` on its line that parses as a stub. Partial or malformed stub text is not
/// reported.
pub fn find_stubs(text: &str) -> Vec<Stub> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(STUB_SENTINEL) {
        let candidate = &rest[at..];
        let line_end = candidate.find(['\n', '\r']).unwrap_or(candidate.len());
        let line = &candidate[..line_end];
        // The stub ends at its first `]` (a summary holds none).
        if let Some(close) = line.find(']')
            && let Ok(stub) = Stub::parse(&line[..=close])
        {
            found.push(stub);
        }
        rest = &candidate[STUB_SENTINEL.len()..];
    }
    found
}

/// The stubs inside a tool call's arguments (a model copying a stub into a file it writes, a
/// command it runs): the arguments text is searched with [`find_stubs`] as it is, and, when it
/// holds a JSON escape, every key and string of the parsed arguments too (after unescaping), so
/// neither escapes nor repeated keys hide a stub. A host can refuse the call, or expand the stubs
/// first. Each stub is reported once; empty when there is none.
///
/// # Example
///
/// ```
/// use rehydrate_model::{ToolCall, check_tool_input};
///
/// let call = ToolCall {
///     id: "t1".into(),
///     name: "Write".into(),
///     arguments: r#"{"content":"log:\n[rehydrate:tool-output r2.00ab12 | 90 of 100 bytes hidden (3 lines); expand_reduction restores them]\n"}"#.into(),
/// };
/// let stubs = check_tool_input(&call);
/// assert_eq!(stubs.len(), 1);
/// assert_eq!(stubs[0].id().as_str(), "r2.00ab12");
/// ```
pub fn check_tool_input(call: &crate::ToolCall) -> Vec<Stub> {
    let raw = call.arguments.as_str();
    // Stubs written as they are, wherever they stand (also in a key, or in a value a repeated
    // key hides from the parse).
    let mut found = find_stubs(raw);
    // Stubs hidden by JSON escapes (`\u0072ehydrate`) are found in the unescaped keys and
    // strings; arguments without an escape hold none that the raw search missed.
    if raw.contains('\\')
        && let Ok(value) = serde_json::from_str::<serde_json::Value>(raw)
    {
        collect_strings(&value, &mut |s| {
            for stub in find_stubs(s) {
                if !found.contains(&stub) {
                    found.push(stub);
                }
            }
        });
    }
    found
}

fn collect_strings(value: &serde_json::Value, each: &mut dyn FnMut(&str)) {
    match value {
        serde_json::Value::String(s) => each(s),
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_strings(v, each)),
        serde_json::Value::Object(map) => {
            for (key, v) in map {
                each(key);
                collect_strings(v, each);
            }
        }
        _ => {}
    }
}
