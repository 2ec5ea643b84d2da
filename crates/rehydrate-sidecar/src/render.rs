//! Renderings: the view message standing for a reduction, and the text of cleared turns.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rehydrate_model::{
    Content, HiddenImage, IS_ERROR_METADATA_KEY, MOVED_METADATA_KEY, Message,
    REDUCTION_METADATA_KEY, Reduction, ReductionKind, Role, Stub, write_json_value,
};

use crate::error::Error;
use crate::image::redacted_parts;
use crate::rerun::answered_call;
use crate::terminal::normalize_terminal;
use crate::tool_input::replace_argument;
use rehydrate_formats::{CallDefect, call_defect, keys};

/// The view message that stands for reduction `r`, given the message it addresses in the
/// minted view (`addressed`; for turns cleared, the first cleared message, which is not used).
///
/// - Tool output truncated: the addressed message with its content replaced by
///   `head + "\n" + stub + "\n" + tail`, where head and tail are the bytes before and after
///   `ptr.span`.
/// - Assistant text truncated: the same for the addressed assistant message's text; its tool
///   calls, metadata (thinking included) and every other field are kept.
/// - Duplicate output, superseded result, elided read: the addressed message with its content
///   replaced by the stub line.
/// - Diffed read: the addressed message with its content replaced by the stub line, a line
///   break and the diff its facts record.
/// - Turns cleared: a new user message whose content is the stub line, followed by
///   `"\n\n" + summary` when a summary was given.
///
/// - Unanswered call (a pairing repair): a synthetic tool result inserted after the call's
///   results, answering the call with the stub line, marked as a failure (`is_error`); the
///   addressed assistant message itself is unchanged.
/// - Orphan result, second answer: a new user message whose content is the stub line.
/// - Folded calls: the addressed assistant message without the folded calls, its text followed
///   by `"\n\n" + stub` (the stub alone when it had no text; a text part added to content
///   parts).
/// - Conversation opened: a new user message whose content is the stub line, put before the
///   addressed assistant message.
/// - Tool input elided: the addressed assistant message with the arguments of call `call`
///   rewritten: the JSON token of top-level field `field`'s value replaced by the stub line as
///   a JSON string ([`crate::replace_argument`]); every other byte of the arguments, the call's
///   id and name, the other calls, the content and the metadata are kept.
/// - Output normalized: the addressed tool result with its content replaced by
///   `stub + "\n" + normalized`, where `normalized` is [`crate::normalize_terminal`] of its
///   text; with a `cut`, by `head + "\n" + stub + "\n" + tail`, head and tail being the bytes
///   of the normalized text before and after the cut.
/// - Image redacted: the addressed message with its content parts rewritten by
///   [`crate::redacted_parts`]: the first hidden image part replaced by a text part holding the
///   stub line, the other hidden image parts left out, every other part, the tool call id and
///   the metadata kept.
/// - Moved result: the addressed message with [`MOVED_METADATA_KEY`] = the reduction id (and not
///   [`REDUCTION_METADATA_KEY`]); a moved message that another reduction also stands for is
///   that reduction's view form with the key added ([`moved_message`]).
///
/// In every other case the message's `metadata` gains [`REDUCTION_METADATA_KEY`] = the
/// reduction id and loses the keys holding its source bytes (`rehydrate_formats::keys::SOURCE`,
/// `SOURCE_PART`, `SOURCE_TAIL`: the view never carries hidden bytes), and the stub carries no `details` (they describe the hidden content; the
/// sidecar keeps them).
/// This is the only place the view form of a reduction is defined (docs/FORMATS.md, "View").
///
/// # Errors
///
/// [`Error::NoTextContent`] when a per-message reduction addresses a message without text,
/// [`Error::BadSpan`] when a truncation's span (or a normalized output's cut) does not fit the
/// text (the normalized text) on char boundaries, and [`Error::Inconsistent`] when an
/// unanswered call names a call the message does not make or a normalized output's text does
/// not normalize.
pub fn stub_message(r: &Reduction, addressed: &Message) -> Result<Message, Error> {
    let id = r.id.to_string();
    let index = r.ptr.addr.index;
    let content = match &r.kind {
        ReductionKind::UnansweredCall { call, .. } => {
            let call = addressed
                .tool_calls
                .get(*call)
                .ok_or_else(|| Error::Inconsistent {
                    id: id.clone(),
                    reason: format!("message {index} makes no tool call at position {call}"),
                })?;
            let mut msg = Message::tool_result(call.id.clone(), r.stub.clone());
            msg.metadata.insert(REDUCTION_METADATA_KEY.to_string(), id);
            msg.metadata
                .insert(IS_ERROR_METADATA_KEY.to_string(), "true".to_string());
            return Ok(msg);
        }
        ReductionKind::OrphanResult { .. } | ReductionKind::SecondAnswer { .. } => {
            let mut msg = Message::text(Role::User, r.stub.clone());
            msg.metadata.insert(REDUCTION_METADATA_KEY.to_string(), id);
            return Ok(msg);
        }
        ReductionKind::MovedResult { .. } => return Ok(moved_message(r, addressed)),
        ReductionKind::ConversationOpened { .. } => {
            let mut msg = Message::text(Role::User, r.stub.clone());
            msg.metadata.insert(REDUCTION_METADATA_KEY.to_string(), id);
            return Ok(msg);
        }
        ReductionKind::FoldedCalls { calls, .. } => {
            if let Some(&k) = calls.iter().find(|&&k| k >= addressed.tool_calls.len()) {
                return Err(Error::Inconsistent {
                    id,
                    reason: format!("message {index} makes no tool call at position {k}"),
                });
            }
            let content = match &addressed.content {
                None => Content::Text(r.stub.clone()),
                Some(Content::Text(t)) if t.is_empty() => Content::Text(r.stub.clone()),
                Some(Content::Text(t)) => Content::Text(format!("{t}\n\n{}", r.stub)),
                Some(Content::Parts(parts)) => {
                    let mut parts = parts.clone();
                    parts.push(serde_json::json!({"type": "text", "text": r.stub}));
                    Content::Parts(parts)
                }
            };
            let metadata = stub_metadata(addressed, id);
            return Ok(Message {
                content: Some(content),
                tool_calls: addressed
                    .tool_calls
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| !calls.contains(k))
                    .map(|(_, c)| c.clone())
                    .collect(),
                metadata,
                details: None,
                ..addressed.clone()
            });
        }
        ReductionKind::TurnsCleared { .. } | ReductionKind::Compaction { .. } => {
            let summary = match &r.kind {
                ReductionKind::TurnsCleared { summary, .. } => summary.as_deref(),
                ReductionKind::Compaction { summary, .. } => Some(summary.as_str()),
                _ => None,
            };
            let mut text = r.stub.clone();
            if let Some(summary) = summary {
                text.push_str("\n\n");
                text.push_str(summary);
            }
            let mut msg = Message::text(Role::User, text);
            msg.metadata.insert(REDUCTION_METADATA_KEY.to_string(), id);
            return Ok(msg);
        }
        ReductionKind::ToolInputElided { call, field, .. } => {
            let inconsistent = |reason: String| Error::Inconsistent {
                id: id.clone(),
                reason,
            };
            let mut tool_calls = addressed.tool_calls.clone();
            let target = tool_calls.get_mut(*call).ok_or_else(|| {
                inconsistent(format!(
                    "message {index} makes no tool call at position {call}"
                ))
            })?;
            target.arguments =
                replace_argument(&target.arguments, field, &r.stub).ok_or_else(|| {
                    inconsistent(format!(
                        "the arguments of tool call {} are not a JSON object with one field `{}`",
                        token(&target.id).unwrap_or("at that position"),
                        token(field).unwrap_or("of that name")
                    ))
                })?;
            let metadata = stub_metadata(addressed, id);
            return Ok(Message {
                tool_calls,
                metadata,
                details: None,
                ..addressed.clone()
            });
        }
        ReductionKind::ImageRedacted { images, .. } => {
            let Some(Content::Parts(parts)) = &addressed.content else {
                return Err(Error::Inconsistent {
                    id,
                    reason: format!("message {index} has no content parts"),
                });
            };
            let hidden: Vec<usize> = images.iter().map(|i| i.part).collect();
            if let Some(k) = hidden.iter().find(|&&k| k >= parts.len()) {
                return Err(Error::Inconsistent {
                    id,
                    reason: format!("message {index} has no content part at position {k}"),
                });
            }
            let metadata = stub_metadata(addressed, id);
            return Ok(Message {
                content: Some(Content::Parts(redacted_parts(parts, &hidden, &r.stub))),
                metadata,
                details: None,
                ..addressed.clone()
            });
        }
        ReductionKind::DuplicateOutput { .. }
        | ReductionKind::Superseded { .. }
        | ReductionKind::FileReadElided { .. } => r.stub.clone(),
        ReductionKind::FileReadDiffed { diff, .. } => {
            let mut out = String::with_capacity(r.stub.len() + 1 + diff.len());
            out.push_str(&r.stub);
            out.push('\n');
            out.push_str(diff);
            out
        }
        ReductionKind::ToolOutputTruncated { .. }
        | ReductionKind::AssistantTextTruncated { .. } => {
            let text = addressed
                .content_text()
                .ok_or_else(|| Error::NoTextContent {
                    id: id.clone(),
                    index,
                })?;
            let bad_span = |start, end| Error::BadSpan {
                id: id.clone(),
                index,
                start,
                end,
                total_bytes: text.len(),
            };
            let span = r.ptr.span.ok_or_else(|| bad_span(0, 0))?;
            let (Some(head), Some(tail)) = (text.get(..span.start()), text.get(span.end()..))
            else {
                return Err(bad_span(span.start(), span.end()));
            };
            let mut out = String::with_capacity(head.len() + r.stub.len() + tail.len() + 2);
            out.push_str(head);
            out.push('\n');
            out.push_str(&r.stub);
            out.push('\n');
            out.push_str(tail);
            out
        }
        ReductionKind::OutputNormalized { cut, .. } => normalized_view(r, addressed, *cut)?,
    };
    let metadata = stub_metadata(addressed, id);
    Ok(Message {
        role: addressed.role,
        content: Some(Content::Text(content)),
        tool_calls: addressed.tool_calls.clone(),
        tool_call_id: addressed.tool_call_id.clone(),
        name: addressed.name.clone(),
        observation: addressed.observation,
        metadata,
        details: None,
    })
}

/// The metadata of a stub standing in `addressed`: its metadata without the keys that hold its
/// source bytes (`rehydrate_formats::keys::SOURCE_KEYS`: the view never carries hidden bytes,
/// and a writer gives a stub's message afresh), with [`REDUCTION_METADATA_KEY`] = `id`.
fn stub_metadata(addressed: &Message, id: String) -> BTreeMap<String, String> {
    let mut metadata: BTreeMap<String, String> = addressed
        .metadata
        .iter()
        .filter(|(k, _)| !keys::SOURCE_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    metadata.insert(REDUCTION_METADATA_KEY.to_string(), id);
    metadata
}

/// The view text of a normalized output (see [`stub_message`]).
fn normalized_view(
    r: &Reduction,
    addressed: &Message,
    cut: Option<rehydrate_model::Span>,
) -> Result<String, Error> {
    let id = r.id.to_string();
    let index = r.ptr.addr.index;
    let text = addressed
        .content_text()
        .ok_or_else(|| Error::NoTextContent {
            id: id.clone(),
            index,
        })?;
    let normalized = normalize_terminal(text).ok_or_else(|| Error::Inconsistent {
        id: id.clone(),
        reason: format!("the text of message {index} holds nothing a terminal would normalize"),
    })?;
    let Some(cut) = cut else {
        let mut out = String::with_capacity(r.stub.len() + 1 + normalized.len());
        out.push_str(&r.stub);
        out.push('\n');
        out.push_str(&normalized);
        return Ok(out);
    };
    let (Some(head), Some(tail)) = (normalized.get(..cut.start()), normalized.get(cut.end()..))
    else {
        return Err(Error::BadSpan {
            id,
            index,
            start: cut.start(),
            end: cut.end(),
            total_bytes: normalized.len(),
        });
    };
    let mut out = String::with_capacity(head.len() + r.stub.len() + tail.len() + 2);
    out.push_str(head);
    out.push('\n');
    out.push_str(&r.stub);
    out.push('\n');
    out.push_str(tail);
    Ok(out)
}

/// The view form of a moved result ([`ReductionKind::MovedResult`] `r`) whose own view form is
/// `inner` (the original, or the stub message of another reduction of it): `inner` with
/// [`MOVED_METADATA_KEY`] = the id of `r`.
pub fn moved_message(r: &Reduction, inner: &Message) -> Message {
    let mut msg = inner.clone();
    msg.metadata
        .insert(MOVED_METADATA_KEY.to_string(), r.id.to_string());
    msg
}

/// The stub line a reduction must carry: the single definition of every stub's summary
/// (docs/FORMATS.md, "Stub grammar"). `minted_view` is used for turns cleared (the number
/// of turns and the size of the expanded text) and for the pairing repairs (the call id and
/// tool name they mention); a message it does not hold gives an empty string, which no stored
/// stub equals.
///
/// - tool output: `<hidden> of <total> bytes hidden (<n> lines); expand_reduction restores them`
/// - assistant text: `<hidden> of <total> bytes of assistant text hidden (<n> lines);
///   expand_reduction restores them`
/// - duplicate: `same <total> bytes as message <index>; expand_reduction restores them`
/// - turns cleared: `messages <first>-<last> (<k> turns, <bytes> bytes) cleared;
///   expand_reduction restores them`, where `<bytes>` is the size of [`render_turns`]'s text.
/// - compaction: `messages <first>-<last> (<k> turns, <bytes> bytes) were replaced by the
///   agent's own compaction, whose summary follows; expand_reduction and sidecar_search reach
///   them`, counted as for turns cleared.
/// - tool input: `<total> bytes of tool call <id> argument <field> hidden; expand_reduction
///   restores them`, the id and the field left out when they are not tokens.
/// - superseded: `superseded by message <by>, a later result of the same <tool> call; <total>
///   bytes hidden; expand_reduction restores them`, the tool named by the call the result
///   answers ([`crate::answered_call`]; left out when it is not a short token).
/// - re-read: `file <path> was read again in message <by> with the same content; <total> bytes
///   hidden; expand_reduction restores them`, the path that of the hidden read's details
///   ([`crate::whole_read`]; ` <path>` left out when it is not a short path of ASCII letters,
///   digits and `_-.:/~+@=`).
/// - read-diff: `file <path> read again; below, a unified diff of its content from the read in
///   message <base> stands for this result's <total> bytes; expand_reduction restores them`,
///   the path written as for a re-read.
/// - terminal: `raw terminal output (<total> bytes) hidden; shown as the <normalized> bytes a
///   terminal would finally display; expand_reduction restores the raw output`, or with a cut
///   `raw terminal output (<total> bytes) hidden; shown as what a terminal would finally
///   display, <hidden> of its <normalized> bytes hidden here (<n> lines); expand_reduction
///   restores the raw output`.
/// - image, one part: `<media type> image at part <k> (<w>x<h> pixels, <n> bytes of base64)
///   hidden; expand_reduction restores it`, with `, the same as message <i> part <q>,` before
///   `hidden` when the part is a copy of a later one; several parts: `<count> images hidden:
///   ` and each part described so, `; `-separated, then `; expand_reduction restores them`.
///   The media type is left out when it is not a short token (`image/png`), the pixel size
///   when the header gives none.
pub fn expected_stub(r: &Reduction, minted_view: &[Message]) -> String {
    let summary = match &r.kind {
        ReductionKind::ToolOutputTruncated {
            original_bytes,
            hidden_lines,
        } => {
            let hidden = r.ptr.span.map_or(0, |s| s.len());
            format!(
                "{hidden} of {original_bytes} bytes hidden ({hidden_lines} lines); expand_reduction restores them"
            )
        }
        ReductionKind::AssistantTextTruncated {
            original_bytes,
            hidden_lines,
        } => {
            let hidden = r.ptr.span.map_or(0, |s| s.len());
            format!(
                "{hidden} of {original_bytes} bytes of assistant text hidden ({hidden_lines} lines); expand_reduction restores them"
            )
        }
        ReductionKind::DuplicateOutput {
            canonical,
            original_bytes,
        } => format!(
            "same {original_bytes} bytes as message {}; expand_reduction restores them",
            canonical.index
        ),
        ReductionKind::TurnsCleared { first, last, .. }
        | ReductionKind::Compaction { first, last, .. } => {
            let Some(range) = minted_view.get(*first..=*last) else {
                return String::new();
            };
            return expected_stub_from_facts(r, TurnsFacts::of(range, *first));
        }
        ReductionKind::UnansweredCall {
            call,
            original_bytes,
        } => {
            let Some(call) = minted_view
                .get(r.ptr.addr.index)
                .and_then(|m| m.tool_calls.get(*call))
            else {
                return String::new();
            };
            let mut summary = String::from("tool call");
            for part in [token(&call.id), token(&call.name)].into_iter().flatten() {
                summary.push(' ');
                summary.push_str(part);
            }
            let _ = write!(
                summary,
                " got no result (the session ended or the call was interrupted); expand_reduction shows its {original_bytes} bytes of arguments"
            );
            summary
        }
        ReductionKind::OrphanResult { original_bytes } => {
            let Some(m) = minted_view.get(r.ptr.addr.index) else {
                return String::new();
            };
            format!(
                "tool result{} ({original_bytes} bytes) hidden: no tool call before it waits for it; expand_reduction restores it",
                for_call(m)
            )
        }
        ReductionKind::SecondAnswer {
            first,
            original_bytes,
        } => {
            let Some(m) = minted_view.get(r.ptr.addr.index) else {
                return String::new();
            };
            format!(
                "second tool result{} ({original_bytes} bytes) hidden: message {} answered the call first; expand_reduction restores it",
                for_call(m),
                first.index
            )
        }
        ReductionKind::FoldedCalls { calls, .. } => {
            let Some(m) = minted_view.get(r.ptr.addr.index) else {
                return String::new();
            };
            let mut reasons: Vec<&str> = calls
                .iter()
                .filter(|&&k| k < m.tool_calls.len())
                .map(|&k| call_defect(&m.tool_calls, k))
                .map(|d| d.map_or("nothing", CallDefect::as_str))
                .collect();
            reasons.sort_unstable();
            reasons.dedup();
            let reasons = reasons.join(", ");
            match calls.as_slice() {
                [k] => {
                    let name = m.tool_calls.get(*k).and_then(|c| token(&c.name));
                    format!(
                        "tool call{}{} folded into this text: the API refuses its {reasons}; its result is hidden; expand_reduction shows the message as recorded",
                        if name.is_some() { " " } else { "" },
                        name.unwrap_or_default()
                    )
                }
                _ => format!(
                    "{} tool calls folded into this text: the API refuses their {reasons}; their results are hidden; expand_reduction shows the message as recorded",
                    calls.len()
                ),
            }
        }
        ReductionKind::ConversationOpened { .. } => format!(
            "the conversation opens with assistant message {} and no user message before it; this line stands in for one; expand_reduction shows that message",
            r.ptr.addr.index
        ),
        ReductionKind::MovedResult { call_message, .. } => format!(
            "tool result message {} is shown right after its tool call in message {}; expand_reduction shows it in place",
            r.ptr.addr.index, call_message.index
        ),
        ReductionKind::ToolInputElided {
            call,
            field,
            original_bytes,
        } => {
            let Some(call) = minted_view
                .get(r.ptr.addr.index)
                .and_then(|m| m.tool_calls.get(*call))
            else {
                return String::new();
            };
            let mut summary = format!("{original_bytes} bytes of tool call");
            if let Some(id) = token(&call.id) {
                summary.push(' ');
                summary.push_str(id);
            }
            summary.push_str(" argument");
            if let Some(field) = token(field) {
                summary.push(' ');
                summary.push_str(field);
            }
            summary.push_str(" hidden; expand_reduction restores them");
            summary
        }
        ReductionKind::Superseded { by, original_bytes } => {
            let Some((_, call)) = answered_call(minted_view, r.ptr.addr.index) else {
                return String::new();
            };
            let mut summary = format!(
                "superseded by message {}, a later result of the same",
                by.index
            );
            if let Some(name) = token(&call.name) {
                summary.push(' ');
                summary.push_str(name);
            }
            let _ = write!(
                summary,
                " call; {original_bytes} bytes hidden; expand_reduction restores them"
            );
            summary
        }
        ReductionKind::FileReadElided { by, original_bytes } => {
            let Some(m) = minted_view.get(r.ptr.addr.index) else {
                return String::new();
            };
            format!(
                "{} was read again in message {} with the same content; {original_bytes} bytes hidden; expand_reduction restores them",
                file_named(m),
                by.index
            )
        }
        ReductionKind::FileReadDiffed {
            base,
            original_bytes,
            ..
        } => {
            let Some(m) = minted_view.get(r.ptr.addr.index) else {
                return String::new();
            };
            format!(
                "{} read again; below, a unified diff of its content from the read in message {} stands for this result's {original_bytes} bytes; expand_reduction restores them",
                file_named(m),
                base.index
            )
        }
        ReductionKind::OutputNormalized {
            original_bytes,
            normalized_bytes,
            cut,
            hidden_lines,
        } => match cut {
            None => format!(
                "raw terminal output ({original_bytes} bytes) hidden; shown as the {normalized_bytes} bytes a terminal would finally display; expand_reduction restores the raw output"
            ),
            Some(cut) => format!(
                "raw terminal output ({original_bytes} bytes) hidden; shown as what a terminal would finally display, {} of its {normalized_bytes} bytes hidden here ({hidden_lines} lines); expand_reduction restores the raw output",
                cut.len()
            ),
        },
        ReductionKind::ImageRedacted { images, .. } => images_summary(images),
    };
    render_stub(r, summary)
}

/// `file <path>` for a whole read whose path is a [`path_token`], else `file`.
fn file_named(m: &Message) -> String {
    match crate::reread::whole_read(m).and_then(|(path, _)| path_token(path)) {
        Some(path) => format!("file {path}"),
        None => "file".to_string(),
    }
}

/// `s` when a stub summary may quote it as a path: 1 to 160 ASCII letters, digits, `_`, `-`,
/// `.`, `:`, `/`, `~`, `+`, `@` or `=` (no space, no `]`, no line break).
fn path_token(s: &str) -> Option<&str> {
    let ok = !s.is_empty()
        && s.len() <= 160
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'-' | b'.' | b':' | b'/' | b'~' | b'+' | b'@' | b'='
                )
        });
    ok.then_some(s)
}

/// The summary of an image redaction's stub (see [`expected_stub`]).
fn images_summary(images: &[HiddenImage]) -> String {
    match images {
        [one] => {
            let mut summary = describe_image(one);
            if one.same_as.is_some() {
                summary.push(',');
            }
            summary.push_str(" hidden; expand_reduction restores it");
            summary
        }
        _ => {
            let described: Vec<String> = images.iter().map(describe_image).collect();
            format!(
                "{} images hidden: {}; expand_reduction restores them",
                images.len(),
                described.join("; ")
            )
        }
    }
}

/// `<media type> image at part <k> (<w>x<h> pixels, <n> bytes of base64)` and, for a copy,
/// `, the same as message <i> part <q>`.
fn describe_image(image: &HiddenImage) -> String {
    let mut out = String::new();
    if let Some(media) = image.media_type.as_deref().and_then(media_token) {
        out.push_str(media);
        out.push(' ');
    }
    let _ = write!(out, "image at part {} (", image.part);
    if let Some([w, h]) = image.pixels {
        let _ = write!(out, "{w}x{h} pixels, ");
    }
    let _ = write!(out, "{} bytes of base64)", image.data_bytes);
    if let Some(place) = image.same_as {
        let _ = write!(
            out,
            ", the same as message {} part {}",
            place.index, place.part
        );
    }
    out
}

/// `s` when a stub summary may quote it as a media type: 1 to 64 ASCII letters, digits, `/`,
/// `+`, `-`, `.` or `_`.
fn media_token(s: &str) -> Option<&str> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'+' | b'-' | b'.' | b'_'));
    ok.then_some(s)
}

/// ` for call <id>` when the message's `tool_call_id` is a [`token`], else nothing.
fn for_call(m: &Message) -> String {
    m.tool_call_id
        .as_deref()
        .and_then(token)
        .map(|id| format!(" for call {id}"))
        .unwrap_or_default()
}

/// `s` when a stub summary may quote it: 1 to 64 ASCII letters, digits, `_`, `-`, `.` or `:`
/// (call ids and tool names are; text of any other shape is left out of the summary).
fn token(s: &str) -> Option<&str> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'));
    ok.then_some(s)
}

/// [`expected_stub`] with the facts of a turns-cleared range already known (see
/// [`TurnsFacts`]), so a growing range is not rendered again. For the other kinds `facts` is
/// not used.
pub fn expected_stub_from_facts(r: &Reduction, facts: TurnsFacts) -> String {
    let summary = match &r.kind {
        ReductionKind::TurnsCleared { first, last, .. }
        | ReductionKind::Compaction { first, last, .. } => {
            let TurnsFacts {
                turns,
                rendered_bytes,
            } = facts;
            let what = if matches!(r.kind, ReductionKind::Compaction { .. }) {
                "were replaced by the agent's own compaction, whose summary follows; expand_reduction and sidecar_search reach them"
            } else {
                "cleared; expand_reduction restores them"
            };
            format!(
                "messages {first}-{last} ({turns} {}, {rendered_bytes} bytes) {what}",
                if turns == 1 { "turn" } else { "turns" }
            )
        }
        ReductionKind::ToolOutputTruncated { .. }
        | ReductionKind::AssistantTextTruncated { .. }
        | ReductionKind::DuplicateOutput { .. }
        | ReductionKind::UnansweredCall { .. }
        | ReductionKind::OrphanResult { .. }
        | ReductionKind::SecondAnswer { .. }
        | ReductionKind::MovedResult { .. }
        | ReductionKind::FoldedCalls { .. }
        | ReductionKind::ConversationOpened { .. }
        | ReductionKind::ToolInputElided { .. }
        | ReductionKind::Superseded { .. }
        | ReductionKind::FileReadElided { .. }
        | ReductionKind::FileReadDiffed { .. }
        | ReductionKind::OutputNormalized { .. }
        | ReductionKind::ImageRedacted { .. } => return expected_stub(r, &[]),
    };
    render_stub(r, summary)
}

fn render_stub(r: &Reduction, summary: String) -> String {
    Stub::render_line(r.kind.stub_kind(), &r.id, &summary)
        .expect("summaries built from numbers follow the stub grammar")
}

/// What a turns-cleared stub says of its range: how many turns it holds and the size in bytes
/// of its [`render_turns`] text. Both add up message by message, so a growing range is
/// counted once per message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnsFacts {
    /// Messages of the range that open a turn ([`Message::is_turn_start`]).
    pub turns: usize,
    /// Bytes of [`render_turns`] over the range.
    pub rendered_bytes: usize,
}

impl TurnsFacts {
    /// The facts of `range`, whose first message is at minted-view index `first_index`.
    pub fn of(range: &[Message], first_index: usize) -> TurnsFacts {
        let mut facts = TurnsFacts::default();
        let mut scratch = String::new();
        for (offset, m) in range.iter().enumerate() {
            facts.add(m, first_index + offset, &mut scratch);
        }
        facts
    }

    /// Adds `message`, at minted-view index `index`, to the range; `scratch` is reused space.
    pub fn add(&mut self, message: &Message, index: usize, scratch: &mut String) {
        scratch.clear();
        render_message(scratch, message, index);
        self.rendered_bytes += scratch.len();
        self.turns += usize::from(message.is_turn_start());
    }
}

/// Renders cleared messages as the text `expand_reduction` serves for a turns-cleared
/// reduction; `first_index` is the minted-view index of `messages[0]`.
///
/// Per message: a header line `--- message <index> <role>` with ` name=<name>` and
/// ` tool_call_id=<id>` when present, closed by ` ---`; then the text content and a line break;
/// or each content part as compact JSON on its own line; then one line per tool call,
/// `-> tool call <id> <name> <arguments>`. Metadata is not rendered (it never reached the model).
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, Role, ToolCall};
/// use rehydrate_sidecar::render_turns;
///
/// let mut call = Message { role: Role::Assistant, ..Message::default() };
/// call.tool_calls.push(ToolCall { id: "t1".into(), name: "ls".into(), arguments: "{}".into() });
/// let text = render_turns(&[Message::text(Role::User, "hi"), call], 3);
/// assert_eq!(text, "--- message 3 user ---\nhi\n--- message 4 assistant ---\n-> tool call t1 ls {}\n");
/// ```
pub fn render_turns(messages: &[Message], first_index: usize) -> String {
    let mut out = String::new();
    for (offset, m) in messages.iter().enumerate() {
        render_message(&mut out, m, first_index + offset);
    }
    out
}

/// Appends one message of [`render_turns`]'s text.
fn render_message(out: &mut String, m: &Message, index: usize) {
    let _ = write!(out, "--- message {index} {}", m.role);
    if let Some(name) = &m.name {
        let _ = write!(out, " name={name}");
    }
    if let Some(id) = &m.tool_call_id {
        let _ = write!(out, " tool_call_id={id}");
    }
    out.push_str(" ---\n");
    match &m.content {
        None => {}
        Some(Content::Text(t)) => {
            out.push_str(t);
            out.push('\n');
        }
        Some(Content::Parts(parts)) => {
            let mut buf = Vec::new();
            for p in parts {
                buf.clear();
                write_json_value(p, &mut buf);
                out.push_str(&String::from_utf8_lossy(&buf));
                out.push('\n');
            }
        }
    }
    for c in &m.tool_calls {
        let _ = writeln!(out, "-> tool call {} {} {}", c.id, c.name, c.arguments);
    }
}
