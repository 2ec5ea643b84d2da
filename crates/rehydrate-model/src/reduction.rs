//! Reductions and the reduction log: where the view differs from the original, and how to get
//! the original back.

use std::fmt;
use std::str::FromStr;

use crate::digest::Digest;
use crate::error::{Error, clip};
use crate::message::Role;
use crate::span::Span;
use crate::stub::StubKind;

/// The `metadata` key a view message carries when a reduction stands in it; its value is the
/// reduction id. Metadata never reaches the model, so this costs no tokens.
pub const REDUCTION_METADATA_KEY: &str = "rehydrate.reduction";

/// The `metadata` key a view message carries when a [`ReductionKind::MovedResult`] placed it
/// out of the history's order; its value is that reduction's id. It is separate from
/// [`REDUCTION_METADATA_KEY`] because the moved message may itself stand for another
/// reduction (a truncated output that was also moved).
pub const MOVED_METADATA_KEY: &str = "rehydrate.moved";

/// A reduction id: `r<ordinal>.<first 6 hex digits of the digest>`, such as `r12.9f3c2a`.
///
/// The ordinal is the reduction's 0-based position in its log, in decimal without padding, so
/// ids are unique within a log. The hex part lets a reader match an id to its content at a
/// glance; it is not relied on for integrity (the full digest is in the [`SidecarPtr`]).
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct ReductionId(String);

impl ReductionId {
    /// The id of the reduction at `ordinal` in its log whose original bytes have `digest`.
    pub fn new(ordinal: usize, digest: &Digest) -> ReductionId {
        use std::fmt::Write as _;
        let mut id = String::with_capacity(28);
        let _ = write!(id, "r{ordinal}.");
        digest.push_short_hex(&mut id, 6);
        ReductionId(id)
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The ordinal part of the id.
    pub fn ordinal(&self) -> usize {
        let dot = self.0.find('.').expect("a validated id has a dot");
        self.0[1..dot]
            .parse()
            .expect("a validated id has a decimal ordinal")
    }
}

impl fmt::Display for ReductionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for ReductionId {
    type Err = Error;

    /// Parses `r<ordinal>.<6 lowercase hex>`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidReductionId`] when the text does not follow the grammar, or the ordinal
    /// has a leading zero or does not fit a `usize`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || Error::InvalidReductionId { text: clip(s) };
        let rest = s.strip_prefix('r').ok_or_else(invalid)?;
        let (ordinal, hex) = rest.split_once('.').ok_or_else(invalid)?;
        let ordinal_ok = !ordinal.is_empty()
            && ordinal.bytes().all(|b| b.is_ascii_digit())
            && (ordinal == "0" || !ordinal.starts_with('0'))
            && ordinal.parse::<usize>().is_ok();
        let hex_ok = hex.len() == 6 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if ordinal_ok && hex_ok {
            Ok(ReductionId(s.to_string()))
        } else {
            Err(invalid())
        }
    }
}

impl TryFrom<String> for ReductionId {
    type Error = Error;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<ReductionId> for String {
    fn from(id: ReductionId) -> Self {
        id.0
    }
}

/// The address of one message in the minted view (the original message list a reduction was
/// minted against): its 0-based index and the role expected there, checked on resolution.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct MessageAddr {
    /// 0-based index into the minted view.
    pub index: usize,
    /// The role the message at `index` must have.
    pub role: Role,
}

/// Where a reduction's original bytes live and how to check them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SidecarPtr {
    /// The addressed message (for turns cleared: the first message of the range).
    pub addr: MessageAddr,
    /// The hidden byte range within the original content, half-open; `None` when the whole
    /// original is hidden.
    pub span: Option<Span>,
    /// blake3 of the exact original bytes (docs/FORMATS.md, "Hashed bytes").
    pub digest: Digest,
}

/// What kind of reduction, with the facts a stub and a reader need.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReductionKind {
    /// A tool result whose middle is hidden; the head and the tail stay visible.
    /// The hidden range is `ptr.span`.
    ToolOutputTruncated {
        /// Length in bytes of the whole original content.
        original_bytes: usize,
        /// Number of `\n` bytes in the hidden range.
        hidden_lines: usize,
    },
    /// An old assistant message whose text has its middle hidden; the head and the tail stay
    /// visible, and its tool calls, metadata (thinking included) and everything but the text
    /// are kept. Only a message whose content is text (`Content::Text`) is reduced so.
    /// The hidden range is `ptr.span`; the digest is of the message's text.
    AssistantTextTruncated {
        /// Length in bytes of the whole original text.
        original_bytes: usize,
        /// Number of `\n` bytes in the hidden range.
        hidden_lines: usize,
    },
    /// A tool result byte-identical to an earlier tool result, hidden whole.
    DuplicateOutput {
        /// The earlier message with the same content (informational; resolution uses the
        /// reduction's own address).
        canonical: MessageAddr,
        /// Length in bytes of the original content.
        original_bytes: usize,
    },
    /// Whole turns, messages `first..=last` of the minted view, replaced by one stub message.
    TurnsCleared {
        /// Index of the first cleared message.
        first: usize,
        /// Index of the last cleared message (inclusive).
        last: usize,
        /// Length in bytes of the hashed original (the wire forms of the messages, each
        /// followed by `\n`).
        original_bytes: usize,
        /// A summary the caller supplied, shown after the stub line.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
    },
    /// Messages `first..=last` of the minted view that the agent's own compaction summarized
    /// (a Claude Code `compact_boundary` and its `isCompactSummary` message, a Codex `compacted`
    /// record): `last` is the message holding the agent's summary, and the view shows one user
    /// message, the stub line followed by that summary, which is what the model saw after the
    /// compaction. Hashed and expanded like a turns-cleared range.
    Compaction {
        /// Index of the first summarized message.
        first: usize,
        /// Index of the message holding the agent's summary (inclusive).
        last: usize,
        /// Length in bytes of the hashed original (the wire forms of the messages, each
        /// followed by `\n`).
        original_bytes: usize,
        /// The agent's summary: the text of message `last` (its text parts joined with `\n`
        /// when it has parts); verification checks it against that message.
        summary: String,
    },
    /// Pairing repair: tool call `call` of the addressed assistant message got no result (the
    /// session ended, or the model was called again without it). The view inserts a synthetic
    /// tool result whose content is the stub; nothing of the history is hidden, and
    /// expanding gives the call's arguments. The digest is of the arguments text.
    UnansweredCall {
        /// 0-based position of the call in the message's `tool_calls`.
        call: usize,
        /// Length in bytes of the call's arguments text.
        original_bytes: usize,
    },
    /// Pairing repair: a tool result whose call is not in the history right before it (its
    /// call was dropped by the agent's own truncation or compaction), hidden behind a user
    /// message holding the stub. Hashed and expanded like a one-message turns-cleared range.
    OrphanResult {
        /// Length in bytes of the hashed original (the message's wire form followed by `\n`).
        original_bytes: usize,
    },
    /// Pairing repair: a second tool result for a call already answered (a resume, a proxy
    /// retry), hidden behind a user message holding the stub; the first answer stays in
    /// place. Hashed and expanded like a one-message turns-cleared range.
    SecondAnswer {
        /// The message holding the first answer (informational).
        first: MessageAddr,
        /// Length in bytes of the hashed original (the message's wire form followed by `\n`).
        original_bytes: usize,
    },
    /// Pairing repair: a tool result separated from its call by other messages (a summary or
    /// a user message written between them) is shown right after the call's other results;
    /// the messages between follow it. Nothing is hidden: the view message is the result's
    /// own view form with [`MOVED_METADATA_KEY`] set, and `invert` puts it back in place.
    /// Hashed and expanded like a one-message turns-cleared range.
    MovedResult {
        /// The assistant message that makes the call.
        call_message: MessageAddr,
        /// Length in bytes of the hashed original (the message's wire form followed by `\n`).
        original_bytes: usize,
    },
    /// Pairing repair: tool calls of the addressed assistant message that an API refuses as
    /// written (an id used twice in the message, an id or function name of another shape, or
    /// arguments that are not a JSON object) are taken out of its `tool_calls`, and the stub is
    /// added to its text; their results are then orphans. Hashed and expanded like a
    /// one-message turns-cleared range.
    FoldedCalls {
        /// 0-based positions of the folded calls in the message's `tool_calls`, ascending.
        calls: Vec<usize>,
        /// Length in bytes of the hashed original (the message's wire form followed by `\n`).
        original_bytes: usize,
    },
    /// Pairing repair: the conversation opens with the addressed assistant message, with no
    /// user message before it (Anthropic requires one); a user message holding the stub is put
    /// before it. Nothing is hidden; hashed and expanded like a one-message turns-cleared range
    /// over the assistant message.
    ConversationOpened {
        /// Length in bytes of the hashed original (the message's wire form followed by `\n`).
        original_bytes: usize,
    },
    /// One large string argument of an old tool call (the `content` of a `Write`, the
    /// `new_string` of an `Edit`) replaced, inside the call's JSON arguments, by the stub as a
    /// JSON string; the arguments stay a JSON object with every other field byte-identical, and
    /// the call's id and name are kept. The digest is of the field's string value (unescaped);
    /// expanding gives that value.
    ToolInputElided {
        /// 0-based position of the call in the addressed assistant message's `tool_calls`.
        call: usize,
        /// The top-level field of the arguments object whose string value is hidden.
        field: String,
        /// Length in bytes of the field's string value (unescaped).
        original_bytes: usize,
    },
    /// A tool result whose call was made again later with the same tool and the same canonical
    /// arguments (docs/FORMATS.md, "Superseded results"), hidden whole: the later result `by`
    /// stands in the view. Hashed and expanded like a duplicate (the addressed message's text).
    Superseded {
        /// The later tool result of the same call (informational for resolution, which uses
        /// the reduction's own address; verification checks that it is a later result of the
        /// same call).
        by: MessageAddr,
        /// Length in bytes of the original content.
        original_bytes: usize,
    },
    /// A tool result of a whole file read (`ToolDetails::WholeRead`) whose path was read whole
    /// again later, serving the same content (docs/FORMATS.md, "Re-reads"), hidden whole: the
    /// later read `by` stands in the view. Hashed and expanded like a duplicate (the addressed
    /// message's text).
    FileReadElided {
        /// The later whole read of the same path with the same content (verification checks
        /// both from the messages' details).
        by: MessageAddr,
        /// Length in bytes of the original content.
        original_bytes: usize,
    },
    /// A tool result of a whole file read whose path was read whole earlier (`base`) with other
    /// content (docs/FORMATS.md, "Re-reads"): the view shows the stub line and a unified diff of
    /// the base's file content to this read's, instead of this read's text. Hashed and expanded
    /// like a duplicate (the addressed message's whole text); the base stays in the view.
    FileReadDiffed {
        /// The earlier whole read of the same path the diff starts from.
        base: MessageAddr,
        /// Length in bytes of the original content (the addressed message's text).
        original_bytes: usize,
        /// The most the diff may be, in thousandths of `original_bytes`, as the policy that
        /// minted it allowed (at most 1000); verification checks the diff against it.
        max_share_per_mille: u32,
        /// The diff shown: `rehydrate_sidecar::unified_diff` of the base's content to this
        /// read's content with 3 lines of context (hunks only, no header); verification
        /// recomputes it.
        diff: String,
    },
    /// A tool result written for a terminal (styles, carriage-return redraws, erased lines,
    /// cursor movement) shown as what a terminal would finally display: the view holds the
    /// normalized text (`rehydrate_sidecar::normalize_terminal` of the original) and the stub,
    /// and, when the normalized text was still over the truncation trigger, only its head and
    /// tail around the stub. The raw original is hidden whole (`ptr.span` is `None`); the
    /// digest is of the addressed message's text, and expanding gives that raw text.
    OutputNormalized {
        /// Length in bytes of the raw original content.
        original_bytes: usize,
        /// Length in bytes of the normalized text.
        normalized_bytes: usize,
        /// The hidden byte range of the normalized text (half-open, on char boundaries), when
        /// it was cut as a truncation cuts; `None` when the view shows it whole.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cut: Option<Span>,
        /// Number of `\n` bytes in `cut` (0 without a cut).
        hidden_lines: usize,
    },
    /// Inline images (base64 data URLs or base64 source blocks) among the content parts of
    /// the addressed message, hidden (docs/FORMATS.md, "Images"): the first hidden part is
    /// replaced by a text part holding the stub, the other hidden parts are left out, and
    /// every other part is kept byte-identical. The digest is of the hidden parts, each written
    /// as canonical compact JSON ([`crate::write_json_value`]) followed by `\n`, in part
    /// order; expanding gives those lines, from which each part is read back exactly.
    ImageRedacted {
        /// The hidden parts, by ascending part position; at least one.
        images: Vec<HiddenImage>,
        /// Length in bytes of the hashed original (the hidden parts' JSON lines).
        original_bytes: usize,
    },
}

/// One image part an [`ReductionKind::ImageRedacted`] hides, with what its stub says of it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HiddenImage {
    /// 0-based position of the part in the addressed message's content parts.
    pub part: usize,
    /// The media type the part names (`image/png`), or `None` when it names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// Length in bytes of the part's base64 data (the text after `base64,` of a data URL, or
    /// the source block's `data`).
    pub data_bytes: usize,
    /// The image's `[width, height]` in pixels, read from its header, or `None` when the
    /// header gives none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixels: Option<[u32; 2]>,
    /// A later copy of the same image (identical base64 data) that the stub names; `None`
    /// when the part is hidden for its age alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<ImagePlace>,
}

/// Where an image part is: a minted-view message index and a content-part position.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct ImagePlace {
    /// 0-based index of the message in the minted view.
    pub index: usize,
    /// 0-based position of the part in that message's content parts.
    pub part: usize,
}

impl ReductionKind {
    /// The stub kind token of this kind.
    pub fn stub_kind(&self) -> StubKind {
        match self {
            ReductionKind::ToolOutputTruncated { .. } => StubKind::ToolOutput,
            ReductionKind::AssistantTextTruncated { .. } => StubKind::AssistantText,
            ReductionKind::DuplicateOutput { .. } => StubKind::Duplicate,
            ReductionKind::TurnsCleared { .. } => StubKind::TurnsCleared,
            ReductionKind::Compaction { .. } => StubKind::Compaction,
            ReductionKind::UnansweredCall { .. } => StubKind::UnansweredCall,
            ReductionKind::OrphanResult { .. } => StubKind::OrphanResult,
            ReductionKind::SecondAnswer { .. } => StubKind::SecondAnswer,
            ReductionKind::MovedResult { .. } => StubKind::MovedResult,
            ReductionKind::FoldedCalls { .. } => StubKind::FoldedCalls,
            ReductionKind::ConversationOpened { .. } => StubKind::ConversationOpened,
            ReductionKind::ToolInputElided { .. } => StubKind::ToolInput,
            ReductionKind::Superseded { .. } => StubKind::Superseded,
            ReductionKind::FileReadElided { .. } => StubKind::ReRead,
            ReductionKind::FileReadDiffed { .. } => StubKind::ReadDiff,
            ReductionKind::OutputNormalized { .. } => StubKind::Terminal,
            ReductionKind::ImageRedacted { .. } => StubKind::Image,
        }
    }

    /// Length in bytes of the original this reduction hides part or all of.
    pub fn original_bytes(&self) -> usize {
        match *self {
            ReductionKind::ToolOutputTruncated { original_bytes, .. }
            | ReductionKind::AssistantTextTruncated { original_bytes, .. }
            | ReductionKind::DuplicateOutput { original_bytes, .. }
            | ReductionKind::TurnsCleared { original_bytes, .. }
            | ReductionKind::Compaction { original_bytes, .. }
            | ReductionKind::UnansweredCall { original_bytes, .. }
            | ReductionKind::OrphanResult { original_bytes }
            | ReductionKind::SecondAnswer { original_bytes, .. }
            | ReductionKind::MovedResult { original_bytes, .. }
            | ReductionKind::FoldedCalls { original_bytes, .. }
            | ReductionKind::ConversationOpened { original_bytes }
            | ReductionKind::ToolInputElided { original_bytes, .. } => original_bytes,
            ReductionKind::Superseded { original_bytes, .. } => original_bytes,
            ReductionKind::FileReadElided { original_bytes, .. }
            | ReductionKind::FileReadDiffed { original_bytes, .. }
            | ReductionKind::OutputNormalized { original_bytes, .. }
            | ReductionKind::ImageRedacted { original_bytes, .. } => original_bytes,
        }
    }

    /// The range `first..=last` of a turns-cleared range or an agent's compaction, the two
    /// kinds that hide whole messages behind one stub message; `None` for every other kind.
    pub fn cleared_range(&self) -> Option<(usize, usize)> {
        match *self {
            ReductionKind::TurnsCleared { first, last, .. }
            | ReductionKind::Compaction { first, last, .. } => Some((first, last)),
            _ => None,
        }
    }

    /// Whether this is a pairing repair (made so the view is a valid request body) rather than
    /// a reduction made to save tokens.
    pub fn is_repair(&self) -> bool {
        match self {
            ReductionKind::ToolOutputTruncated { .. }
            | ReductionKind::AssistantTextTruncated { .. }
            | ReductionKind::DuplicateOutput { .. }
            | ReductionKind::TurnsCleared { .. }
            | ReductionKind::Compaction { .. }
            | ReductionKind::ToolInputElided { .. } => false,
            ReductionKind::Superseded { .. } => false,
            ReductionKind::FileReadElided { .. }
            | ReductionKind::FileReadDiffed { .. }
            | ReductionKind::OutputNormalized { .. }
            | ReductionKind::ImageRedacted { .. } => false,
            ReductionKind::UnansweredCall { .. }
            | ReductionKind::OrphanResult { .. }
            | ReductionKind::SecondAnswer { .. }
            | ReductionKind::MovedResult { .. }
            | ReductionKind::FoldedCalls { .. }
            | ReductionKind::ConversationOpened { .. } => true,
        }
    }
}

/// One reduction: a place where the view differs from the original, with a verifiable pointer
/// to the original bytes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reduction {
    /// The id the model passes to `expand_reduction`.
    pub id: ReductionId,
    /// What was reduced.
    pub kind: ReductionKind,
    /// Where the original is and its digest.
    pub ptr: SidecarPtr,
    /// The one-line stub standing in the view (see [`crate::Stub`]).
    pub stub: String,
}

impl Reduction {
    /// The minted-view messages whose bytes this reduction covers, as message indices,
    /// inclusive: `first..=last` of a turns-cleared range, the one addressed message of every
    /// other kind. The one definition resolution, search, the store's rewind and inversion
    /// use.
    pub fn covered(&self) -> std::ops::RangeInclusive<usize> {
        match self.kind {
            ReductionKind::TurnsCleared { first, last, .. }
            | ReductionKind::Compaction { first, last, .. } => first..=last,
            ReductionKind::ToolOutputTruncated { .. }
            | ReductionKind::AssistantTextTruncated { .. }
            | ReductionKind::DuplicateOutput { .. }
            | ReductionKind::UnansweredCall { .. }
            | ReductionKind::OrphanResult { .. }
            | ReductionKind::SecondAnswer { .. }
            | ReductionKind::MovedResult { .. }
            | ReductionKind::FoldedCalls { .. }
            | ReductionKind::ConversationOpened { .. }
            | ReductionKind::ToolInputElided { .. } => self.ptr.addr.index..=self.ptr.addr.index,
            ReductionKind::Superseded { .. } => self.ptr.addr.index..=self.ptr.addr.index,
            ReductionKind::FileReadElided { .. }
            | ReductionKind::FileReadDiffed { .. }
            | ReductionKind::OutputNormalized { .. }
            | ReductionKind::ImageRedacted { .. } => self.ptr.addr.index..=self.ptr.addr.index,
        }
    }

    /// The last minted-view message index this reduction's verification reads: the end of
    /// [`Reduction::covered`], or for a superseded result its later re-run `by`, for an elided
    /// read the later read `by` (a diffed read's base is before it), for an image redaction
    /// the latest message holding a later copy it names (`same_as`). A rewind that drops that
    /// message drops the reduction.
    pub fn last_read(&self) -> usize {
        match self.kind {
            ReductionKind::Superseded { by, .. } | ReductionKind::FileReadElided { by, .. } => {
                by.index.max(*self.covered().end())
            }
            ReductionKind::FileReadDiffed { .. } => *self.covered().end(),
            ReductionKind::ImageRedacted { ref images, .. } => images
                .iter()
                .filter_map(|i| i.same_as.map(|p| p.index))
                .fold(*self.covered().end(), usize::max),
            ReductionKind::ToolOutputTruncated { .. }
            | ReductionKind::DuplicateOutput { .. }
            | ReductionKind::TurnsCleared { .. }
            | ReductionKind::Compaction { .. }
            | ReductionKind::UnansweredCall { .. }
            | ReductionKind::OrphanResult { .. }
            | ReductionKind::SecondAnswer { .. }
            | ReductionKind::MovedResult { .. }
            | ReductionKind::FoldedCalls { .. }
            | ReductionKind::ConversationOpened { .. }
            | ReductionKind::AssistantTextTruncated { .. }
            | ReductionKind::ToolInputElided { .. } => *self.covered().end(),
            ReductionKind::OutputNormalized { .. } => *self.covered().end(),
        }
    }
}

/// The reductions of a session, in the order they were minted.
///
/// The log is append-only: a reduction is never removed, so every id keeps resolving against the
/// minted view even after later projections changed the view.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReductionLog {
    /// The reductions, ordinal order.
    pub reductions: Vec<Reduction>,
}

impl ReductionLog {
    /// The reduction with this exact id, if any.
    ///
    /// Constant time for a log whose reductions sit at their ordinals (every log the reducer
    /// writes); other logs are searched from the start.
    pub fn get(&self, id: &str) -> Option<&Reduction> {
        let at_ordinal = id
            .strip_prefix('r')
            .and_then(|rest| rest.split_once('.'))
            .and_then(|(ordinal, _)| ordinal.parse::<usize>().ok())
            .and_then(|ordinal| self.reductions.get(ordinal))
            .filter(|r| r.id.as_str() == id);
        at_ordinal.or_else(|| self.reductions.iter().find(|r| r.id.as_str() == id))
    }

    /// The ids joined by `, ` in log order, or `(none)` for an empty log; used in errors that
    /// list the valid ids. At most the first 20 are listed, followed by `and N more`, so an
    /// error stays one short line whatever the log's size.
    pub fn ids_joined(&self) -> String {
        const LISTED: usize = 20;
        if self.reductions.is_empty() {
            return "(none)".to_string();
        }
        let ids: Vec<&str> = self
            .reductions
            .iter()
            .take(LISTED)
            .map(|r| r.id.as_str())
            .collect();
        let mut out = ids.join(", ");
        if self.reductions.len() > LISTED {
            out.push_str(&format!(" and {} more", self.reductions.len() - LISTED));
        }
        out
    }

    /// Number of reductions.
    pub fn len(&self) -> usize {
        self.reductions.len()
    }

    /// Whether the log holds no reduction.
    pub fn is_empty(&self) -> bool {
        self.reductions.is_empty()
    }
}
