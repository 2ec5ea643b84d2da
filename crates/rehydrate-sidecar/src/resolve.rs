//! Resolution: the exact original text behind a reduction, verified against the minted view
//! (SPEC seed 000 rules 1-6).

use std::borrow::Cow;

use rehydrate_model::{
    Content, Digest, HiddenImage, ImagePlace, Message, MessageAddr, Reduction, ReductionId,
    ReductionKind, ReductionLog, Role, ToolCall,
};

use crate::error::Error;
use crate::hash::{TurnsHasher, content_digest};
use crate::image::{hidden_images_text, image_data, image_size};
use crate::render::{
    TurnsFacts, expected_stub, expected_stub_from_facts, render_turns, stub_message,
};
use crate::reread::{check_diffed, check_elided};
use crate::rerun::{CommandFields, answered_call, canonical_arguments};
use crate::sources::{Sources, upgrade, upgrade_range};
use crate::terminal::normalize_terminal;
use crate::tool_input::argument_fields;

/// The verified original behind one reduction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved<'a> {
    /// The reduction that was resolved.
    pub reduction: &'a Reduction,
    /// The original text: the addressed message's whole content for per-message kinds, or the
    /// rendering of the cleared messages ([`render_turns`]) for turns cleared.
    pub text: Cow<'a, str>,
}

/// Looks up reduction `id` in `log` and resolves it against `minted_view`.
///
/// Per-message kinds take the message at `ptr.addr.index`, check its role (an assistant text
/// truncation must address an assistant message) and that it has text content
/// (`Content::Text`), and verify blake3 of the text against `ptr.digest`; the recorded sizes and span must
/// agree with the text. Turns cleared check every index of `first..=last`, the first message's
/// role, and the digest over the wire forms ([`crate::turns_digest`]).
/// With recorded messages in `sources`, a tool output the host capped resolves to its recorded
/// bytes where the supersession key matches exactly (SPEC seed 000 rule 5, [`Sources`]); the
/// minted text is verified first either way.
/// SPEC seed 000 rules 1-6.
///
/// # Errors
///
/// [`Error::UnknownId`] listing the valid ids; [`Error::MissingMessage`],
/// [`Error::RoleMismatch`], [`Error::NoTextContent`], [`Error::DigestMismatch`],
/// [`Error::BadSpan`] or [`Error::Inconsistent`] naming the id and index. Never other bytes.
pub fn resolve<'a>(
    log: &'a ReductionLog,
    sources: impl Into<Sources<'a>>,
    id: &str,
) -> Result<Resolved<'a>, Error> {
    let reduction = log.get(id).ok_or_else(|| Error::UnknownId {
        id: clipped_id(id),
        valid: log.ids_joined(),
    })?;
    resolve_reduction(reduction, sources.into())
}

/// The most bytes of an unknown id an error repeats: a model's id is any string, and its
/// error goes back to the model.
const MAX_ID_SHOWN: usize = 80;

/// `id` as an error names it: whole up to [`MAX_ID_SHOWN`] bytes, else its first ones (on a
/// char boundary) and `... (<n> bytes)`.
fn clipped_id(id: &str) -> String {
    if id.len() <= MAX_ID_SHOWN {
        return id.to_string();
    }
    let mut end = MAX_ID_SHOWN;
    while !id.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &id[..end], id.len())
}

/// Resolves one reduction (see [`resolve`]).
pub(crate) fn resolve_reduction<'a>(
    r: &'a Reduction,
    sources: Sources<'a>,
) -> Result<Resolved<'a>, Error> {
    let text = match verify_reduction(r, sources.minted)? {
        Verified::Text(text) => {
            let index = r.ptr.addr.index;
            let upgraded = sources
                .minted
                .get(index)
                .and_then(|m| upgrade(sources.recorded, index, m, text));
            Cow::Borrowed(upgraded.unwrap_or(text))
        }
        Verified::Turns { first, messages } => {
            let messages = upgrade_range(sources.recorded, first, messages);
            Cow::Owned(render_turns(&messages, first))
        }
        // SPEC seed 000 rule 4: no recorded upgrade for a tool input or an image.
        Verified::Argument(value) | Verified::Images(value) => Cow::Owned(value),
    };
    Ok(Resolved { reduction: r, text })
}

/// What [`verify_reduction`] found behind a reduction that verified.
#[derive(Debug, Clone, PartialEq)]
pub enum Verified<'a> {
    /// The whole original text of the addressed message (truncated, duplicate and superseded
    /// outputs, a truncated assistant text), or the arguments text of the call an
    /// unanswered-call repair names.
    Text(&'a str),
    /// The cleared messages, the first of which is at index `first` of the minted view (for
    /// the repairs of a tool result: that one message).
    Turns {
        /// Index of `messages[0]` in the minted view.
        first: usize,
        /// The cleared messages, in order.
        messages: &'a [Message],
    },
    /// The string value, unescaped, of the tool-call argument a tool-input elision hides.
    Argument(String),
    /// The hidden image parts of an image redaction as [`crate::hidden_images_text`] writes
    /// them (one canonical JSON line per part). Never searched: it is base64 pixel data.
    Images(String),
}

/// Verifies one reduction against the minted view without rendering anything: the same
/// checks as [`resolve`]. Returns the addressed text for per-message kinds and the cleared
/// messages for turns cleared.
///
/// # Errors
///
/// The resolution errors of [`resolve`] other than [`Error::UnknownId`].
pub fn verify_reduction<'a>(
    r: &Reduction,
    minted_view: &'a [Message],
) -> Result<Verified<'a>, Error> {
    verify_with(r, minted_view, &mut RangeScan::default())
}

/// One pass over a turns-cleared range: its digest and hashed bytes ([`crate::turns_digest`]),
/// its wire bytes and its stub facts ([`TurnsFacts`]), kept so that a longer range with the
/// same first message (the next turns-cleared reduction of a growing session) scans only the
/// messages it adds. The reducer mints with it and `verify_log` verifies with it.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, Role};
/// use rehydrate_sidecar::{RangeScan, turns_digest};
///
/// let history: Vec<Message> = (0..4).map(|i| Message::text(Role::User, format!("m{i}"))).collect();
/// let mut scan = RangeScan::default();
/// scan.scan(&history, 1, 2);
/// scan.scan(&history, 1, 3); // hashes message 3 only
/// assert_eq!(scan.digest(), turns_digest(&history[1..=3]));
/// ```
#[derive(Debug, Clone, Default)]
pub struct RangeScan {
    /// The first message of the range scanned, and one past its last.
    first: usize,
    end: usize,
    hasher: TurnsHasher,
    facts: TurnsFacts,
    wire_bytes: usize,
    scratch: String,
}

impl RangeScan {
    /// Brings the scan to `minted_view[first..=last]`, reusing what was scanned when the range
    /// starts at the same message and does not end before it.
    ///
    /// # Panics
    ///
    /// When `first..=last` is not a range of `minted_view` (callers check it first).
    pub fn scan(&mut self, minted_view: &[Message], first: usize, last: usize) {
        if self.first != first || self.end > last + 1 || self.end < first {
            *self = RangeScan {
                first,
                end: first,
                ..RangeScan::default()
            };
        }
        for m in &minted_view[self.end..=last] {
            self.hasher.update(m);
            self.facts.add(m, self.end, &mut self.scratch);
            self.wire_bytes += m.wire_len();
            self.end += 1;
        }
    }

    /// The digest of the range scanned and the bytes hashed ([`crate::turns_digest`]).
    pub fn digest(&self) -> (Digest, usize) {
        self.hasher.finish()
    }

    /// The turns and rendered bytes of the range scanned.
    pub fn facts(&self) -> TurnsFacts {
        self.facts
    }

    /// The wire bytes of the messages of the range scanned.
    pub fn wire_bytes(&self) -> usize {
        self.wire_bytes
    }
}

/// [`verify_reduction`] with a scan of turns-cleared ranges kept between calls (see
/// [`RangeScan`]): verifying every reduction of a log with one turns-cleared reduction per
/// turn costs one pass over the cleared messages, not one per reduction.
pub(crate) fn verify_with<'a>(
    r: &Reduction,
    minted_view: &'a [Message],
    scan: &mut RangeScan,
) -> Result<Verified<'a>, Error> {
    let id = r.id.as_str();
    let index = r.ptr.addr.index;
    let inconsistent = |reason: String| Error::Inconsistent {
        id: id.to_string(),
        reason,
    };
    // The id carries the digest's first hex digits: a log whose ids were swapped or edited
    // does not verify, even where each pointer still matches some message.
    if r.id != ReductionId::new(r.id.ordinal(), &r.ptr.digest) {
        return Err(inconsistent(format!(
            "id does not match its digest {}",
            r.ptr.digest
        )));
    }
    let msg = addressed(r, minted_view)?;
    let verified = match &r.kind {
        ReductionKind::ToolOutputTruncated {
            original_bytes,
            hidden_lines: _,
        }
        | ReductionKind::AssistantTextTruncated {
            original_bytes,
            hidden_lines: _,
        }
        | ReductionKind::DuplicateOutput { original_bytes, .. }
        | ReductionKind::Superseded { original_bytes, .. }
        | ReductionKind::FileReadElided { original_bytes, .. }
        | ReductionKind::FileReadDiffed { original_bytes, .. } => {
            if let ReductionKind::AssistantTextTruncated { .. } = r.kind
                && msg.role != Role::Assistant
            {
                return Err(inconsistent(format!(
                    "an assistant text truncation addresses message {index}, which is a {} message",
                    msg.role
                )));
            }
            let text = msg.content_text().ok_or_else(|| Error::NoTextContent {
                id: id.to_string(),
                index,
            })?;
            check_digest(r, content_digest(text.as_bytes()))?;
            if *original_bytes != text.len() {
                return Err(inconsistent(format!(
                    "records {original_bytes} original bytes but message {index} has {}",
                    text.len()
                )));
            }
            if let ReductionKind::Superseded { by, .. } = r.kind {
                check_rerun(r, minted_view, by)?;
            }
            match &r.kind {
                ReductionKind::FileReadElided { by, .. } => check_elided(r, minted_view, *by)?,
                ReductionKind::FileReadDiffed {
                    base,
                    max_share_per_mille,
                    diff,
                    ..
                } => check_diffed(r, minted_view, *base, *max_share_per_mille, diff)?,
                ReductionKind::ToolOutputTruncated { .. }
                | ReductionKind::AssistantTextTruncated { .. }
                | ReductionKind::DuplicateOutput { .. }
                | ReductionKind::TurnsCleared { .. }
                | ReductionKind::Compaction { .. }
                | ReductionKind::UnansweredCall { .. }
                | ReductionKind::OrphanResult { .. }
                | ReductionKind::SecondAnswer { .. }
                | ReductionKind::MovedResult { .. }
                | ReductionKind::FoldedCalls { .. }
                | ReductionKind::ConversationOpened { .. }
                | ReductionKind::ToolInputElided { .. }
                | ReductionKind::Superseded { .. }
                | ReductionKind::OutputNormalized { .. }
                | ReductionKind::ImageRedacted { .. } => {}
            }
            if let ReductionKind::ToolOutputTruncated { hidden_lines, .. }
            | ReductionKind::AssistantTextTruncated { hidden_lines, .. } = r.kind
            {
                let span = r.ptr.span.ok_or_else(|| {
                    inconsistent("a truncation must record its hidden span".to_string())
                })?;
                let fits = span.end() <= text.len()
                    && text.is_char_boundary(span.start())
                    && text.is_char_boundary(span.end());
                if !fits {
                    return Err(Error::BadSpan {
                        id: id.to_string(),
                        index,
                        start: span.start(),
                        end: span.end(),
                        total_bytes: text.len(),
                    });
                }
                let counted = memchr::memchr_iter(b'\n', &text.as_bytes()[span.range()]).count();
                if counted != hidden_lines {
                    return Err(inconsistent(format!(
                        "records {hidden_lines} hidden lines but its hidden span holds {counted}"
                    )));
                }
            }
            Verified::Text(text)
        }
        ReductionKind::UnansweredCall {
            call,
            original_bytes,
        } => {
            let call = msg.tool_calls.get(*call).ok_or_else(|| {
                inconsistent(format!(
                    "message {index} makes no tool call at position {call}"
                ))
            })?;
            let text = call.arguments.as_str();
            check_digest(r, content_digest(text.as_bytes()))?;
            if *original_bytes != text.len() || r.ptr.span.is_some() {
                return Err(inconsistent(format!(
                    "records {original_bytes} original bytes but tool call {} has {} bytes of arguments",
                    call.id,
                    text.len()
                )));
            }
            Verified::Text(text)
        }
        ReductionKind::ToolInputElided {
            call,
            field,
            original_bytes,
        } => {
            if msg.role != Role::Assistant || r.ptr.span.is_some() {
                return Err(inconsistent(format!(
                    "a tool input elision addresses message {index}, which is a {} message, or records a span",
                    msg.role
                )));
            }
            let call = msg.tool_calls.get(*call).ok_or_else(|| {
                inconsistent(format!(
                    "message {index} makes no tool call at position {call}"
                ))
            })?;
            let call_id = clipped_id(&call.id);
            let field_name = clipped_id(field);
            let fields = argument_fields(&call.arguments).ok_or_else(|| {
                inconsistent(format!(
                    "the arguments of tool call {call_id} are not a JSON object with distinct fields"
                ))
            })?;
            let value = fields
                .into_iter()
                .find(|f| f.name == *field)
                .ok_or_else(|| {
                    inconsistent(format!("tool call {call_id} has no field `{field_name}`"))
                })?
                .value
                .ok_or_else(|| {
                    inconsistent(format!(
                        "field `{field_name}` of tool call {call_id} is not a string"
                    ))
                })?;
            check_digest(r, content_digest(value.as_bytes()))?;
            if *original_bytes != value.len() {
                return Err(inconsistent(format!(
                    "records {original_bytes} original bytes but field `{field_name}` of tool call {call_id} has {}",
                    value.len()
                )));
            }
            Verified::Argument(value)
        }
        ReductionKind::ImageRedacted {
            images,
            original_bytes,
        } => Verified::Images(check_images(r, minted_view, images, *original_bytes)?),
        ReductionKind::OrphanResult { original_bytes }
        | ReductionKind::SecondAnswer { original_bytes, .. }
        | ReductionKind::MovedResult { original_bytes, .. }
        | ReductionKind::FoldedCalls { original_bytes, .. }
        | ReductionKind::ConversationOpened { original_bytes } => {
            let on_result = !matches!(
                r.kind,
                ReductionKind::FoldedCalls { .. } | ReductionKind::ConversationOpened { .. }
            );
            let role_ok = if on_result {
                msg.is_tool_result()
            } else {
                msg.role == Role::Assistant
            };
            if let ReductionKind::FoldedCalls { calls, .. } = &r.kind
                && (calls.is_empty()
                    || calls.windows(2).any(|w| w[0] >= w[1])
                    || calls.iter().any(|&k| k >= msg.tool_calls.len()))
            {
                return Err(inconsistent(format!(
                    "folds calls {calls:?}, which are not ascending positions of message {index}'s {} calls",
                    msg.tool_calls.len()
                )));
            }
            if !role_ok || r.ptr.span.is_some() {
                return Err(inconsistent(format!(
                    "a pairing repair of {} addresses message {index}, which is not one",
                    if on_result {
                        "a tool result"
                    } else {
                        "an assistant message"
                    }
                )));
            }
            let before = match r.kind {
                ReductionKind::SecondAnswer { first, .. } => Some(first.index),
                ReductionKind::MovedResult { call_message, .. } => Some(call_message.index),
                ReductionKind::ToolOutputTruncated { .. }
                | ReductionKind::AssistantTextTruncated { .. }
                | ReductionKind::DuplicateOutput { .. }
                | ReductionKind::TurnsCleared { .. }
                | ReductionKind::Compaction { .. }
                | ReductionKind::UnansweredCall { .. }
                | ReductionKind::OrphanResult { .. }
                | ReductionKind::FoldedCalls { .. }
                | ReductionKind::ConversationOpened { .. }
                | ReductionKind::ToolInputElided { .. }
                | ReductionKind::Superseded { .. }
                | ReductionKind::FileReadElided { .. }
                | ReductionKind::FileReadDiffed { .. }
                | ReductionKind::OutputNormalized { .. }
                | ReductionKind::ImageRedacted { .. } => None,
            };
            if before.is_some_and(|b| b >= index) {
                return Err(inconsistent(format!(
                    "names message {} as earlier than message {index}",
                    before.unwrap_or_default()
                )));
            }
            let range = std::slice::from_ref(msg);
            let (actual, hashed_bytes) = crate::hash::turns_digest(range);
            check_digest(r, actual)?;
            if hashed_bytes != *original_bytes {
                return Err(inconsistent(format!(
                    "records {original_bytes} original bytes but message {index} hashes {hashed_bytes}"
                )));
            }
            Verified::Turns {
                first: index,
                messages: range,
            }
        }
        ReductionKind::OutputNormalized { .. } => Verified::Text(check_normalized(r, msg)?),
        ReductionKind::TurnsCleared {
            first,
            last,
            original_bytes,
            ..
        }
        | ReductionKind::Compaction {
            first,
            last,
            original_bytes,
            ..
        } => {
            if *first != index || last < first {
                return Err(inconsistent(format!(
                    "turns cleared range {first}..={last} does not start at its pointer's index {index}"
                )));
            }
            if let ReductionKind::Compaction { summary, .. } = &r.kind {
                check_compaction(r, minted_view, *last, summary)?;
            }
            let range = minted_view
                .get(*first..=*last)
                .ok_or(Error::MissingMessage {
                    id: id.to_string(),
                    index: *last,
                    len: minted_view.len(),
                })?;
            scan.scan(minted_view, *first, *last);
            let (actual, hashed_bytes) = scan.digest();
            check_digest(r, actual)?;
            if hashed_bytes != *original_bytes {
                return Err(inconsistent(format!(
                    "records {original_bytes} original bytes but messages {first}..={last} hash {hashed_bytes}"
                )));
            }
            let verified = Verified::Turns {
                first: *first,
                messages: range,
            };
            check_stub(
                r,
                expected_stub_from_facts(r, scan.facts),
                Some(scan.wire_bytes),
                range,
            )?;
            return Ok(verified);
        }
    };
    check_stub(r, expected_stub(r, minted_view), None, &[])?;
    Ok(verified)
}

/// Checks what a compaction claims of its last message: that it holds an agent's compaction
/// summary ([`rehydrate_formats::is_compaction_summary`]) whose text
/// ([`rehydrate_formats::summary_text`]) is exactly the recorded `summary`, so the view shows
/// the agent's own words and no other.
fn check_compaction(
    r: &Reduction,
    minted_view: &[Message],
    last: usize,
    summary: &str,
) -> Result<(), Error> {
    let Some(msg) = minted_view.get(last) else {
        return Ok(()); // reported as a missing message by the caller
    };
    let reason = if !rehydrate_formats::is_compaction_summary(msg) {
        format!("message {last} is not an agent's compaction summary")
    } else if rehydrate_formats::summary_text(msg) != summary {
        format!("its summary is not the text of message {last}")
    } else {
        return Ok(());
    };
    Err(Error::Inconsistent {
        id: r.id.to_string(),
        reason,
    })
}

/// Checks what a normalized output claims of the addressed message `msg`, and returns its raw
/// text: a tool result hidden whole (no `ptr.span`) with text content whose digest and size are
/// the recorded ones, which [`crate::normalize_terminal`] normalizes to exactly
/// `normalized_bytes` bytes, and a cut (if any) that fits the normalized text on char
/// boundaries and holds `hidden_lines` line breaks (none without a cut). The view form is then
/// determined: [`stub_message`] renders it from the same normalization.
fn check_normalized<'a>(r: &Reduction, msg: &'a Message) -> Result<&'a str, Error> {
    let ReductionKind::OutputNormalized {
        original_bytes,
        normalized_bytes,
        cut,
        hidden_lines,
    } = r.kind
    else {
        return Err(Error::Inconsistent {
            id: r.id.to_string(),
            reason: "not a normalized output".to_string(),
        });
    };
    let id = r.id.as_str();
    let index = r.ptr.addr.index;
    let inconsistent = |reason: String| Error::Inconsistent {
        id: id.to_string(),
        reason,
    };
    if msg.details.is_some() {
        return Err(inconsistent(format!(
            "message {index} is a file tool's result (its details record a file's text), never terminal output"
        )));
    }
    if !msg.is_tool_result() || r.ptr.span.is_some() {
        return Err(inconsistent(format!(
            "a normalized output must be a tool result hidden whole, but message {index} is a {} message{}",
            msg.role,
            if r.ptr.span.is_some() {
                " and a span is recorded"
            } else {
                ""
            }
        )));
    }
    let text = msg.content_text().ok_or_else(|| Error::NoTextContent {
        id: id.to_string(),
        index,
    })?;
    check_digest(r, content_digest(text.as_bytes()))?;
    if original_bytes != text.len() {
        return Err(inconsistent(format!(
            "records {original_bytes} original bytes but message {index} has {}",
            text.len()
        )));
    }
    let normalized = normalize_terminal(text).ok_or_else(|| {
        inconsistent(format!(
            "the text of message {index} holds nothing a terminal would normalize"
        ))
    })?;
    if normalized_bytes != normalized.len() {
        return Err(inconsistent(format!(
            "records {normalized_bytes} normalized bytes but the text of message {index} normalizes to {}",
            normalized.len()
        )));
    }
    let counted = match cut {
        None => 0,
        Some(cut) => {
            let hidden = normalized.get(cut.range()).ok_or_else(|| {
                inconsistent(format!(
                    "records a cut [{}, {}) that does not fit the {} bytes (or the char boundaries) of the normalized text of message {index}",
                    cut.start(),
                    cut.end(),
                    normalized.len()
                ))
            })?;
            memchr::memchr_iter(b'\n', hidden.as_bytes()).count()
        }
    };
    if counted != hidden_lines {
        return Err(inconsistent(format!(
            "records {hidden_lines} hidden lines but its cut of the normalized text holds {counted}"
        )));
    }
    Ok(text)
}

/// Checks what a superseded result claims of the minted view: it is a tool result hidden whole,
/// and `by`, a tool result after it, answers a call of a later assistant message with the same
/// tool name and the same canonical arguments ([`crate::canonical_arguments`] with every
/// top-level string field a command field, the loosest sameness any policy mints by, since the
/// log does not record which fields it collapsed). Both calls are found in place
/// ([`crate::answered_call`]).
fn check_rerun(r: &Reduction, minted_view: &[Message], by: MessageAddr) -> Result<(), Error> {
    let id = r.id.as_str();
    let index = r.ptr.addr.index;
    let inconsistent = |reason: String| Error::Inconsistent {
        id: id.to_string(),
        reason,
    };
    if r.ptr.addr.role != Role::Tool || by.role != Role::Tool || r.ptr.span.is_some() {
        return Err(inconsistent(format!(
            "a superseded result must be a tool result at message {index} hidden whole, superseded by a tool result"
        )));
    }
    if by.index <= index {
        return Err(inconsistent(format!(
            "names message {} as the later re-run of message {index}, which is not after it",
            by.index
        )));
    }
    let later = minted_view.get(by.index).ok_or(Error::MissingMessage {
        id: id.to_string(),
        index: by.index,
        len: minted_view.len(),
    })?;
    if later.role != by.role {
        return Err(Error::RoleMismatch {
            id: id.to_string(),
            index: by.index,
            expected: by.role,
            found: later.role,
        });
    }
    let call_of = |i: usize| {
        answered_call(minted_view, i).ok_or_else(|| {
            inconsistent(format!(
                "message {i} answers no tool call right before it, so it is no re-run"
            ))
        })
    };
    let (older_at, older) = call_of(index)?;
    let (later_at, later) = call_of(by.index)?;
    if later_at <= older_at {
        return Err(inconsistent(format!(
            "message {} answers a call of message {later_at}, which is not after message {older_at} that made the call of message {index}",
            by.index
        )));
    }
    if older.name != later.name {
        return Err(inconsistent(format!(
            "message {} answers a call of another tool than message {index}",
            by.index
        )));
    }
    let canonical = |c: &ToolCall| canonical_arguments(&c.arguments, CommandFields::Every);
    if canonical(older).is_none() || canonical(older) != canonical(later) {
        return Err(inconsistent(format!(
            "message {} answers a call with other arguments than message {index}",
            by.index
        )));
    }
    Ok(())
}

/// Checks what an image redaction claims of the addressed message and returns its hidden text
/// ([`crate::hidden_images_text`]): the message has content parts; `images` is not empty, its
/// parts ascend and each is an inline image ([`crate::image_data`]) with the recorded media
/// type, data length and pixel size ([`crate::image_size`]); a copy's `same_as` is a later
/// inline image part of the minted view with the very same base64 data; the digest and
/// `original_bytes` are of the hidden text. The reduction records no span.
fn check_images(
    r: &Reduction,
    minted_view: &[Message],
    images: &[HiddenImage],
    original_bytes: usize,
) -> Result<String, Error> {
    let index = r.ptr.addr.index;
    let inconsistent = |reason: String| Error::Inconsistent {
        id: r.id.to_string(),
        reason,
    };
    let Some(Content::Parts(parts)) = minted_view.get(index).and_then(|m| m.content.as_ref())
    else {
        return Err(inconsistent(format!(
            "an image redaction addresses message {index}, which has no content parts"
        )));
    };
    if images.is_empty() || images.windows(2).any(|w| w[0].part >= w[1].part) {
        return Err(inconsistent(
            "an image redaction must hide at least one part, in ascending part order".to_string(),
        ));
    }
    if r.ptr.span.is_some() {
        return Err(inconsistent(
            "an image redaction hides whole parts and records no span".to_string(),
        ));
    }
    for image in images {
        let k = image.part;
        let data = parts.get(k).and_then(image_data).ok_or_else(|| {
            inconsistent(format!(
                "part {k} of message {index} is not an inline image"
            ))
        })?;
        if data.media_type != image.media_type.as_deref() {
            return Err(inconsistent(format!(
                "records another media type than part {k} of message {index} names"
            )));
        }
        if data.base64.len() != image.data_bytes {
            return Err(inconsistent(format!(
                "records {} bytes of data but part {k} of message {index} has {}",
                image.data_bytes,
                data.base64.len()
            )));
        }
        if image_size(data.base64).map(|(w, h)| [w, h]) != image.pixels {
            return Err(inconsistent(format!(
                "records another pixel size than the header of part {k} of message {index} gives"
            )));
        }
        if let Some(place) = image.same_as {
            check_copy(
                r,
                minted_view,
                ImagePlace { index, part: k },
                place,
                data.base64,
            )?;
        }
    }
    let hidden: Vec<usize> = images.iter().map(|i| i.part).collect();
    let text = hidden_images_text(parts, &hidden)
        .ok_or_else(|| inconsistent("a hidden part is missing".to_string()))?;
    check_digest(r, content_digest(text.as_bytes()))?;
    if text.len() != original_bytes {
        return Err(inconsistent(format!(
            "records {original_bytes} original bytes but its hidden parts hash {}",
            text.len()
        )));
    }
    Ok(text)
}

/// Checks that `copy`, which an image part at `at` names as its copy, is a later inline image
/// part of the minted view whose base64 data is `base64`.
fn check_copy(
    r: &Reduction,
    minted_view: &[Message],
    at: ImagePlace,
    copy: ImagePlace,
    base64: &str,
) -> Result<(), Error> {
    let inconsistent = |reason: String| Error::Inconsistent {
        id: r.id.to_string(),
        reason,
    };
    if copy <= at {
        return Err(inconsistent(format!(
            "names message {} part {} as the later copy of message {} part {}, which is not after it",
            copy.index, copy.part, at.index, at.part
        )));
    }
    let later = match minted_view.get(copy.index).and_then(|m| m.content.as_ref()) {
        Some(Content::Parts(parts)) => parts.get(copy.part).and_then(image_data),
        _ => None,
    };
    if later.is_none_or(|d| d.base64 != base64) {
        return Err(inconsistent(format!(
            "message {} part {} is not a copy of the image at message {} part {}",
            copy.index, copy.part, at.index, at.part
        )));
    }
    Ok(())
}

/// Checks that a verified reduction's stub is `expected` (the one its facts give), and that a
/// turns-cleared or compaction stub message (with its summary) is smaller in wire bytes than the
/// `hidden_wire_bytes` of the cleared `messages`, so a hand-edited stub or summary can neither
/// mislead the model nor grow the view. Per-message stubs are fully determined by the facts
/// already checked, so their size is bounded (`hidden_wire_bytes` is `None`).
fn check_stub(
    r: &Reduction,
    expected: String,
    hidden_wire_bytes: Option<usize>,
    messages: &[Message],
) -> Result<(), Error> {
    let inconsistent = |reason: String| Error::Inconsistent {
        id: r.id.to_string(),
        reason,
    };
    if r.stub != expected {
        return Err(inconsistent(format!(
            "stub does not match its reduction: expected `{expected}`"
        )));
    }
    let Some(hidden) = hidden_wire_bytes else {
        return Ok(());
    };
    let first = messages
        .first()
        .ok_or_else(|| inconsistent("no cleared message".into()))?;
    if stub_message(r, first)?.wire_len() >= hidden {
        return Err(inconsistent(
            "its view form is not smaller than what it hides".to_string(),
        ));
    }
    Ok(())
}

/// Checks the digest of the bytes found against the one the reduction records.
fn check_digest(r: &Reduction, actual: Digest) -> Result<(), Error> {
    if actual == r.ptr.digest {
        return Ok(());
    }
    Err(Error::DigestMismatch {
        id: r.id.to_string(),
        index: r.ptr.addr.index,
        expected: r.ptr.digest,
        actual,
    })
}

/// The message a reduction's pointer addresses, with its role checked.
pub(crate) fn addressed<'a>(
    r: &Reduction,
    minted_view: &'a [Message],
) -> Result<&'a Message, Error> {
    let index = r.ptr.addr.index;
    let msg = minted_view.get(index).ok_or(Error::MissingMessage {
        id: r.id.to_string(),
        index,
        len: minted_view.len(),
    })?;
    if msg.role != r.ptr.addr.role {
        return Err(Error::RoleMismatch {
            id: r.id.to_string(),
            index,
            expected: r.ptr.addr.role,
            found: msg.role,
        });
    }
    Ok(msg)
}
