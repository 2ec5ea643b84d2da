//! `export_session`: a session with every reduction inverted, written as canonical JSONL, an
//! OpenAI chat-completions body or an Anthropic Messages body, behind a leak guard (no message
//! written holds a stub its original in the input lacks) and, for the two request bodies, a
//! tool-link check (`check_tool_links`).
//!
//! docs/FORMATS.md, "Export", is the specification of the bytes written here.

use std::collections::HashMap;

use rehydrate_model::{
    Content, Message, REDUCTION_METADATA_KEY, ReductionLog, Role, STUB_SENTINEL, Stub, ToolDetails,
    check_tool_input, find_stubs,
};

use crate::error::Error;
use crate::invert::{check_inverts, verify_log};
use rehydrate_formats::{ExportFormat, Violation, left_out_of_bodies, write};

/// Why a session could not be exported. Nothing is written when export fails: there is no
/// partial export.
///
/// Message indices are 0-based positions in the inverted messages, which are the minted view's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The view does not invert, or a reduction of the log does not verify (the error names the
    /// reduction id, or the view index of a message that stands for nothing).
    #[error(transparent)]
    Unresolved(#[from] Error),
    /// An inverted message holds, at `place`, a stub the input's message at `index` does not
    /// hold there: exporting it would hand on a reduction that the exported bytes cannot
    /// resolve. Stub text the input itself holds at that place is content, never this error.
    #[error(
        "message {index}: {place} still holds the stub of reduction {id}; the export would leak it"
    )]
    StubLeft {
        /// The message index.
        index: usize,
        /// The reduction id the stub names.
        id: String,
        /// Where the stub is: `content`, `content part <n>`, `tool call <id> arguments`,
        /// `details` or ``metadata `<key>` ``.
        place: String,
    },
    /// An inverted message carries the reduction metadata key with a value its original in the
    /// input does not carry: it stands for a reduction instead of being an original.
    #[error(
        "message {index}: metadata `{key}` still names reduction {id}; the message stands for a reduction, not an original",
        key = REDUCTION_METADATA_KEY
    )]
    ReductionKeyLeft {
        /// The message index.
        index: usize,
        /// The value of the key (the reduction id).
        id: String,
    },
    /// A tool call with no tool result among the tool messages right after its assistant
    /// message (a session saved while a tool ran ends this way).
    #[error("message {index}: tool call {call_id} has no tool result right after it")]
    DanglingCall {
        /// The index of the assistant message that makes the call.
        index: usize,
        /// The call id.
        call_id: String,
    },
    /// A tool result that does not answer a call of the assistant message right before its run
    /// of tool messages (or stands where no such message is).
    #[error(
        "message {index}: tool result {call_id} answers no tool call of the assistant message right before it"
    )]
    ResultWithoutCall {
        /// The tool result's index.
        index: usize,
        /// Its `tool_call_id`.
        call_id: String,
    },
    /// A tool result without a `tool_call_id`.
    #[error("message {index}: tool result has no tool_call_id")]
    ResultWithoutCallId {
        /// The tool result's index.
        index: usize,
    },
    /// A second tool result for the same call.
    #[error(
        "message {index}: second tool result for tool call {call_id} (the first is message {first})"
    )]
    DuplicateResult {
        /// The index of the second result.
        index: usize,
        /// The call id.
        call_id: String,
        /// The index of the first result.
        first: usize,
    },
    /// One assistant message makes two tool calls with the same id, so results cannot tell them
    /// apart.
    #[error("message {index}: tool call id {call_id} is used twice in one assistant message")]
    DuplicateCallId {
        /// The assistant message's index.
        index: usize,
        /// The call id.
        call_id: String,
    },
    /// A rule of the request body that the tool-call links do not cover (for Anthropic: an
    /// input that is not a JSON object, a system part that is not text, a first message that
    /// is not a user message, a tool id of another shape, …; see [`rehydrate_formats::check_request`]).
    #[error("{0}")]
    Invalid(Violation),
}

impl ExportError {
    /// Whether the error is a tool call left without a tool result ([`ExportError::DanglingCall`]).
    pub fn is_dangling_call(&self) -> bool {
        matches!(self, ExportError::DanglingCall { .. })
    }

    /// Whether the error is the leak guard's: stub text or the reduction metadata key in the
    /// inverted messages that their originals do not hold.
    pub fn is_leak(&self) -> bool {
        matches!(
            self,
            ExportError::StubLeft { .. } | ExportError::ReductionKeyLeft { .. }
        )
    }
}

/// Writes the session behind a reduced `view` with every reduction inverted, in `format`.
///
/// The view must invert under `log` to `minted_view` ([`check_inverts`]: every stub verifies and
/// renders to its view message, every other message equals the minted one) and every reduction
/// of the log must verify ([`verify_log`]); the inverted messages are then the minted view
/// itself, which is what is written. A store's recorded messages (see [`crate::Sources`]) are not
/// used: the export is the session as the host's history held it, every reduction undone.
///
/// Before anything is written, the leak guard checks each inverted message against the
/// input's message it stands for, the one at the same index of `minted_view`. A stub
/// ([`find_stubs`]) is ours only where it is a reduction of this log at this place; text the
/// input already had is content (a tool result of `cat view.json`, a stub a user pasted or a
/// model copied into a tool call) and is written as it is. A message equal to its original
/// passes; in one that differs, a stub in the text content, a content-part string, the argument
/// strings of a tool call, a `details` string or a metadata value fails the export when the same
/// place of the original holds it fewer times, and so does [`REDUCTION_METADATA_KEY`] metadata
/// the original does not carry with the same value. The inverted messages are the minted view
/// itself, so a view that inverts always passes the guard; it is defense in depth.
/// The two request bodies are also checked with [`check_tool_links`]. JSONL is not: it is the
/// canonical session as it is, a dangling call included.
///
/// - [`ExportFormat::Jsonl`]: each message's canonical serde form on one line ending in `\n`;
///   reading the lines back gives exactly the inverted messages.
/// - [`ExportFormat::OpenAi`]: `{"messages":[…]}`, each message in its wire form: observations
///   stay user messages, metadata (reasoning included), `details` and `observation` are left out,
///   and so is an assistant message with neither content nor tool calls.
/// - [`ExportFormat::Anthropic`]: `{"system":"…","messages":[…]}` (docs/FORMATS.md, "Export"):
///   system texts joined with `"\n\n"` into `system` (absent when there is none); tool calls as
///   `tool_use` blocks whose `input` is the arguments text verbatim; tool results as
///   `tool_result` blocks in user messages; a lone signed thinking block, or redacted thinking
///   alone, before the rest of its assistant message, unedited, other reasoning left out whole;
///   messages with no block left out; consecutive messages of one role merged (the reasoning of
///   an assistant message merged into the one before it is left out whole: reasoning opens a
///   message).
///
/// # Errors
///
/// [`ExportError::Unresolved`] when the view does not invert or a reduction does not verify
/// (naming the reduction id or the view index); [`ExportError::ReductionKeyLeft`] and
/// [`ExportError::StubLeft`] from the leak guard; for the request bodies, the errors of
/// [`check_tool_links`], then [`ExportError::Invalid`] with the first other violation of
/// [`rehydrate_formats::check_request`].
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, ReductionLog, Role};
/// use rehydrate_formats::ExportFormat;
/// use rehydrate_sidecar::export_session;
///
/// let minted = vec![Message::text(Role::System, "be brief"), Message::text(Role::User, "hi")];
/// let log = ReductionLog::default();
/// let body = export_session(&minted, &log, &minted, ExportFormat::Anthropic)?;
/// assert_eq!(
///     body,
///     br#"{"system":"be brief","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}"#
/// );
/// # Ok::<(), rehydrate_sidecar::ExportError>(())
/// ```
pub fn export_session(
    view: &[Message],
    log: &ReductionLog,
    minted_view: &[Message],
    format: ExportFormat,
) -> Result<Vec<u8>, ExportError> {
    check_exportable(view, log, minted_view)?;
    // The view inverts, so inverting gives exactly the minted view.
    write_export(minted_view, format)
}

/// [`export_session`] for a log some of whose reductions no longer match the minted view and
/// are shown nowhere in the view (a host's history that lost reasoning in a model switch, over
/// which older reductions were hashed): only the reductions the view stands for are verified,
/// as inverting it checks them ([`check_inverts`]); the others are neither checked nor needed.
/// Everything else is as [`export_session`].
///
/// # Errors
///
/// As [`export_session`], but for a reduction of the log the view does not show.
pub fn export_shown(
    view: &[Message],
    log: &ReductionLog,
    minted_view: &[Message],
    format: ExportFormat,
) -> Result<Vec<u8>, ExportError> {
    check_inverts(view, log, minted_view)?;
    check_no_leak(minted_view, minted_view)?;
    write_export(minted_view, format)
}

/// Writes `messages` (an inverted session) in `format`, after the checks a request body needs.
fn write_export(messages: &[Message], format: ExportFormat) -> Result<Vec<u8>, ExportError> {
    if format.api().is_some() {
        check_tool_links(messages)?;
    }
    write(messages, format).map_err(|e| {
        let first = e.violations.into_iter().next();
        ExportError::Invalid(first.expect("a RequestError holds at least one violation"))
    })
}

/// The checks [`export_session`] makes before it writes anything, in its order: the view
/// inverts under `log` to `minted_view`, every reduction of the log verifies, and the leak
/// guard finds no stub and no reduction key in an inverted message that its original in
/// `minted_view` does not hold at the same place (see [`export_session`]). `Ok(())` exactly
/// when the inverted session (`minted_view`) may be written in any form; a host that writes its
/// own form of it (a repaired request body) checks with this instead of exporting twice.
///
/// # Errors
///
/// [`ExportError::Unresolved`], [`ExportError::ReductionKeyLeft`] and
/// [`ExportError::StubLeft`], as [`export_session`].
pub fn check_exportable(
    view: &[Message],
    log: &ReductionLog,
    minted_view: &[Message],
) -> Result<(), ExportError> {
    check_inverts(view, log, minted_view)?;
    if let Some(e) = verify_log(log, minted_view).into_iter().next() {
        return Err(e.into());
    }
    // `invert` gives the minted view itself, message for message (the synthetic messages of
    // the pairing repairs stand for nothing and moved results are back in place), and that is
    // what is written: each written message is the input's own, so the guard passes at once.
    // It stays so that nothing written can carry a stub its original does not hold.
    check_no_leak(minted_view, minted_view)
}

/// Checks that every tool call in `messages` is answered exactly once, right after it, as the
/// OpenAI and Anthropic APIs require.
///
/// After an assistant message with tool calls, the messages up to the first one whose role is
/// not `tool` are its results: each must name, by `tool_call_id`, one of that message's calls,
/// no call twice, and together they must answer every call. A `tool` message anywhere else
/// answers nothing. A call id is scoped to its assistant message, so a later message may reuse
/// it (SWE-agent replays do) and needs its own result. Observations (user messages) are not
/// tool results here: they are sent as user messages. A message both bodies leave out
/// ([`rehydrate_formats::left_out_of_bodies`]) is passed over, as the bodies pass over it.
///
/// # Errors
///
/// The first violation in message order: [`ExportError::DuplicateCallId`],
/// [`ExportError::ResultWithoutCallId`], [`ExportError::ResultWithoutCall`],
/// [`ExportError::DuplicateResult`], then [`ExportError::DanglingCall`] naming the assistant
/// message and the first call without a result.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, Role, ToolCall};
/// use rehydrate_sidecar::check_tool_links;
///
/// let mut call = Message { role: Role::Assistant, ..Message::default() };
/// call.tool_calls.push(ToolCall { id: "t1".into(), name: "ls".into(), arguments: "{}".into() });
/// let answered = [call.clone(), Message::tool_result("t1", "a.txt")];
/// check_tool_links(&answered)?;
/// let err = check_tool_links(&[call, Message::text(Role::User, "stop")]).unwrap_err();
/// assert_eq!(err.to_string(), "message 0: tool call t1 has no tool result right after it");
/// # Ok::<(), rehydrate_sidecar::ExportError>(())
/// ```
pub fn check_tool_links(messages: &[Message]) -> Result<(), ExportError> {
    let mut i = 0;
    while let Some(m) = messages.get(i) {
        if left_out_of_bodies(m) {
            i += 1;
            continue;
        }
        match m.role {
            Role::Assistant if !m.tool_calls.is_empty() => {
                i = check_results(messages, i)?;
            }
            Role::Tool => {
                return Err(match &m.tool_call_id {
                    Some(id) => ExportError::ResultWithoutCall {
                        index: i,
                        call_id: id.clone(),
                    },
                    None => ExportError::ResultWithoutCallId { index: i },
                });
            }
            Role::System | Role::User | Role::Assistant => i += 1,
        }
    }
    Ok(())
}

/// Checks the results of the calls of assistant message `index`; returns the index after its
/// run of tool messages.
fn check_results(messages: &[Message], index: usize) -> Result<usize, ExportError> {
    let calls = &messages[index].tool_calls;
    for (k, call) in calls.iter().enumerate() {
        if calls[..k].iter().any(|c| c.id == call.id) {
            return Err(ExportError::DuplicateCallId {
                index,
                call_id: call.id.clone(),
            });
        }
    }
    // For each call, the index of its result once seen.
    let mut answered: Vec<Option<usize>> = vec![None; calls.len()];
    let mut j = index + 1;
    // Messages both bodies leave out stand between nothing.
    while messages.get(j).is_some_and(left_out_of_bodies) {
        j += 1;
    }
    while let Some(r) = messages.get(j).filter(|r| r.role == Role::Tool) {
        let Some(id) = &r.tool_call_id else {
            return Err(ExportError::ResultWithoutCallId { index: j });
        };
        let Some(k) = calls.iter().position(|c| &c.id == id) else {
            return Err(ExportError::ResultWithoutCall {
                index: j,
                call_id: id.clone(),
            });
        };
        if let Some(first) = answered[k] {
            return Err(ExportError::DuplicateResult {
                index: j,
                call_id: id.clone(),
                first,
            });
        }
        answered[k] = Some(j);
        j += 1;
        while messages.get(j).is_some_and(left_out_of_bodies) {
            j += 1;
        }
    }
    if let Some(k) = answered.iter().position(Option::is_none) {
        return Err(ExportError::DanglingCall {
            index,
            call_id: calls[k].id.clone(),
        });
    }
    Ok(j)
}

/// The leak guard: `inverted[i]` (a message about to be written) against `originals[i]`, the
/// input's message it stands for. A stub is ours only where it is a reduction of this log at
/// this place; text the input already had there is content. So a message equal to its original
/// leaks nothing. In one that differs, a place (text content, content part `n`, the arguments
/// of the tool call at the same position with the same id, details, the value of a metadata
/// key) leaks the first stub it holds more times than the same place of the original holds it,
/// and the message leaks the reduction metadata key unless the original carries it with the
/// same value. A message past the end of `originals` stands for nothing: all of its stub text
/// and the key leak. Each message is compared with its original once; stubs are searched only
/// in places that differ.
fn check_no_leak(inverted: &[Message], originals: &[Message]) -> Result<(), ExportError> {
    for (index, m) in inverted.iter().enumerate() {
        let original = originals.get(index);
        if original.is_some_and(|o| std::ptr::eq(m, o) || m == o) {
            continue;
        }
        check_message(index, m, original)?;
    }
    Ok(())
}

/// [`check_no_leak`] for one inverted message that differs from its `original` (or has none).
fn check_message(index: usize, m: &Message, original: Option<&Message>) -> Result<(), ExportError> {
    if let Some(id) = m.metadata.get(REDUCTION_METADATA_KEY)
        && original.and_then(|o| o.metadata.get(REDUCTION_METADATA_KEY)) != Some(id)
    {
        return Err(ExportError::ReductionKeyLeft {
            index,
            id: id.clone(),
        });
    }
    let leak = |stub: Stub, place: String| ExportError::StubLeft {
        index,
        id: stub.id().to_string(),
        place,
    };
    let original_content = original.and_then(|o| o.content.as_ref());
    match &m.content {
        None => {}
        Some(Content::Text(text)) => {
            let held = match original_content {
                Some(Content::Text(t)) => Some(t.as_str()),
                Some(Content::Parts(_)) | None => None,
            };
            if let Some(stub) = new_stub(text.as_str(), held, find_stubs) {
                return Err(leak(stub, "content".to_string()));
            }
        }
        Some(Content::Parts(parts)) => {
            let held = match original_content {
                Some(Content::Parts(p)) => p.as_slice(),
                Some(Content::Text(_)) | None => &[],
            };
            for (n, part) in parts.iter().enumerate() {
                if let Some(stub) = new_stub(part, held.get(n), stubs_in_value) {
                    return Err(leak(stub, format!("content part {n}")));
                }
            }
        }
    }
    let original_calls = original.map_or(&[][..], |o| o.tool_calls.as_slice());
    for (k, call) in m.tool_calls.iter().enumerate() {
        let held = original_calls.get(k).filter(|c| c.id == call.id);
        if let Some(stub) = new_stub(call, held, check_tool_input) {
            return Err(leak(stub, format!("tool call {} arguments", call.id)));
        }
    }
    if let Some(details) = &m.details {
        let held = original.and_then(|o| o.details.as_deref());
        if let Some(stub) = new_stub(&**details, held, stubs_in_details) {
            return Err(leak(stub, "details".to_string()));
        }
    }
    for (key, value) in &m.metadata {
        let held = original.and_then(|o| o.metadata.get(key));
        if let Some(stub) = new_stub(value.as_str(), held.map(String::as_str), find_stubs) {
            return Err(leak(stub, format!("metadata `{key}`")));
        }
    }
    Ok(())
}

/// The first stub `stubs` finds in `place` more times than in `held`, the same place of the
/// original (`None`: the original has no such place, so it holds no stub). A place equal to
/// the original's holds nothing new; otherwise the stubs are counted by their exact line.
fn new_stub<T: PartialEq + ?Sized>(
    place: &T,
    held: Option<&T>,
    stubs: impl Fn(&T) -> Vec<Stub>,
) -> Option<Stub> {
    if held.is_some_and(|h| h == place) {
        return None;
    }
    let found = stubs(place);
    if found.is_empty() {
        return None;
    }
    let mut counts: HashMap<String, usize> = HashMap::new();
    for stub in held.map(&stubs).unwrap_or_default() {
        *counts.entry(stub.render()).or_default() += 1;
    }
    found
        .into_iter()
        .find(|stub| match counts.get_mut(&stub.render()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
}

/// The stubs in a tool result's details. Their JSON text holds [`STUB_SENTINEL`] as it is
/// wherever a string does (JSON escapes none of its characters), so most details are passed
/// over without building a JSON value.
fn stubs_in_details(details: &ToolDetails) -> Vec<Stub> {
    let Ok(json) = serde_json::to_string(details) else {
        return Vec::new();
    };
    if !json.contains(STUB_SENTINEL) {
        return Vec::new();
    }
    serde_json::from_str::<serde_json::Value>(&json)
        .map(|v| stubs_in_value(&v))
        .unwrap_or_default()
}

/// The stubs in every string (keys included) of a JSON value.
fn stubs_in_value(value: &serde_json::Value) -> Vec<Stub> {
    use serde_json::Value;
    match value {
        Value::String(s) => find_stubs(s),
        Value::Array(items) => items.iter().flat_map(stubs_in_value).collect(),
        Value::Object(map) => map
            .iter()
            .flat_map(|(k, v)| find_stubs(k).into_iter().chain(stubs_in_value(v)))
            .collect(),
        Value::Null | Value::Bool(_) | Value::Number(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    //! The leak guard on its own: what `export_session` never hands it (its inverted messages are
    //! the minted view itself), an inverted message that differs from its original.

    use rehydrate_model::{
        Content, Message, REDUCTION_METADATA_KEY, Role, Stub, StubKind, ToolDetails,
    };
    use rehydrate_test_support::assistant_call;

    use super::{ExportError, check_no_leak};

    fn stub(id: &str) -> String {
        Stub::new(
            StubKind::ToolOutput,
            id.parse().unwrap(),
            "90 of 100 bytes hidden",
        )
        .unwrap()
        .render()
    }

    /// An assistant message calling `Write` (call `id`) with `arguments`.
    fn call(id: &str, arguments: &str) -> Message {
        assistant_call(id, "Write", arguments)
    }

    fn with_meta(mut m: Message, key: &str, value: &str) -> Message {
        m.metadata.insert(key.into(), value.into());
        m
    }

    fn parts(texts: &[&str]) -> Message {
        Message {
            content: Some(Content::Parts(
                texts
                    .iter()
                    .map(|t| serde_json::json!({"type": "text", "text": t}))
                    .collect(),
            )),
            ..Message::default()
        }
    }

    fn read(content: &str) -> Message {
        Message {
            details: Some(Box::new(ToolDetails::WholeRead {
                path: "/view.json".into(),
                content: content.into(),
            })),
            ..Message::tool_result("t1", "1\tview.json")
        }
    }

    fn left(index: usize, id: &str, place: &str) -> ExportError {
        ExportError::StubLeft {
            index,
            id: id.into(),
            place: place.into(),
        }
    }

    #[test]
    fn a_stub_the_original_lacks_is_a_leak_with_its_place() {
        let s = stub("r1.9f3c2a");
        let go = Message::text(Role::User, "go");
        let cases = [
            (
                Message::tool_result("t1", "ok"),
                Message::tool_result("t1", format!("ok\n{s}\n")),
                "content",
            ),
            (
                parts(&["a", "b"]),
                parts(&["a", &format!("b {s}")]),
                "content part 1",
            ),
            (
                call("w1", r#"{"content":"x"}"#),
                call("w1", &serde_json::json!({ "content": s }).to_string()),
                "tool call w1 arguments",
            ),
            (read("{}\n"), read(&format!("{s}\n")), "details"),
            (
                with_meta(Message::text(Role::Assistant, "fine"), "note", "n"),
                with_meta(Message::text(Role::Assistant, "fine"), "note", &s),
                "metadata `note`",
            ),
        ];
        for (original, inverted, place) in cases {
            let err = check_no_leak(&[go.clone(), inverted], &[go.clone(), original]).unwrap_err();
            assert_eq!(err, left(1, "r1.9f3c2a", place));
            assert!(err.is_leak());
            assert_eq!(
                err.to_string(),
                format!(
                    "message 1: {place} still holds the stub of reduction r1.9f3c2a; the export would leak it"
                )
            );
        }
    }

    #[test]
    fn a_stub_the_original_holds_at_the_same_place_is_content() {
        let s = stub("r0.00ab12");
        // Each pair differs (so the guard looks into it) but holds the stub where the original
        // does.
        let cases = [
            (
                Message::tool_result("t1", format!("{s}\n")),
                Message {
                    name: Some("cat".into()),
                    ..Message::tool_result("t1", format!("{s}\n"))
                },
            ),
            (
                Message::text(Role::User, format!("pasted {s}")),
                Message::text(Role::User, format!("pasted {s} again")),
            ),
            (parts(&[&s, "b"]), parts(&[&s, "c"])),
            (
                call("w1", &serde_json::json!({ "content": s }).to_string()),
                call(
                    "w1",
                    &serde_json::json!({ "content": s, "mode": 1 }).to_string(),
                ),
            ),
            (
                read(&s),
                Message {
                    name: Some("r".into()),
                    ..read(&s)
                },
            ),
            (
                with_meta(Message::text(Role::User, "a"), "note", &s),
                with_meta(Message::text(Role::User, "b"), "note", &s),
            ),
        ];
        for (original, inverted) in cases {
            assert_ne!(original, inverted);
            assert_eq!(check_no_leak(&[inverted], &[original]), Ok(()));
        }
    }

    #[test]
    fn messages_equal_to_their_originals_pass_whatever_they_hold() {
        let s = stub("r2.abcdef");
        let messages = [
            with_meta(
                Message::tool_result("t1", s.clone()),
                REDUCTION_METADATA_KEY,
                "r2.abcdef",
            ),
            call("w1", &serde_json::json!({ "content": s }).to_string()),
            read(&s),
        ];
        // The same slice (what `check_exportable` hands it) and an equal copy.
        assert_eq!(check_no_leak(&messages, &messages), Ok(()));
        assert_eq!(check_no_leak(&messages, &messages.clone()), Ok(()));
    }

    #[test]
    fn a_stub_counts_per_place_and_per_occurrence() {
        let s = stub("r3.123456");
        // Held in metadata, written in the content: another place.
        let original = with_meta(Message::text(Role::User, "hi"), "note", &s);
        let inverted = with_meta(Message::text(Role::User, format!("hi {s}")), "note", &s);
        assert_eq!(
            check_no_leak(&[inverted], &[original]),
            Err(left(0, "r3.123456", "content"))
        );
        // Held once, written twice.
        let original = Message::text(Role::User, format!("{s}\n"));
        let inverted = Message::text(Role::User, format!("{s}\n{s}\n"));
        assert_eq!(
            check_no_leak(&[inverted], &[original]),
            Err(left(0, "r3.123456", "content"))
        );
        // Held as text content, written as a content part.
        let original = Message::text(Role::User, s.clone());
        assert_eq!(
            check_no_leak(&[parts(&[&s])], &[original]),
            Err(left(0, "r3.123456", "content part 0"))
        );
        // Held in the arguments of another call id at the same position.
        let args = serde_json::json!({ "content": s }).to_string();
        assert_eq!(
            check_no_leak(&[call("w2", &args)], &[call("w1", &args)]),
            Err(left(0, "r3.123456", "tool call w2 arguments"))
        );
        // Behind a JSON escape in the arguments, the original lacking it.
        let escaped = format!(r#"{{"content":"\u005b{}"}}"#, &s[1..]);
        assert_eq!(
            check_no_leak(&[call("w1", &escaped)], &[call("w1", "{}")]),
            Err(left(0, "r3.123456", "tool call w1 arguments"))
        );
    }

    #[test]
    fn the_reduction_key_is_a_leak_unless_the_original_carries_it() {
        let plain = Message::text(Role::User, "hi");
        let keyed =
            |id: &str| with_meta(Message::text(Role::User, "hi!"), REDUCTION_METADATA_KEY, id);
        let err = check_no_leak(
            &[plain.clone(), keyed("r0.b35021")],
            &[plain.clone(), plain.clone()],
        )
        .unwrap_err();
        assert_eq!(
            err,
            ExportError::ReductionKeyLeft {
                index: 1,
                id: "r0.b35021".into()
            }
        );
        assert_eq!(
            err.to_string(),
            format!(
                "message 1: metadata `{REDUCTION_METADATA_KEY}` still names reduction r0.b35021; the message stands for a reduction, not an original"
            )
        );
        // Another value than the original's.
        let original = with_meta(plain.clone(), REDUCTION_METADATA_KEY, "r0.000000");
        assert_eq!(
            check_no_leak(&[keyed("r0.b35021")], &[original]),
            Err(ExportError::ReductionKeyLeft {
                index: 0,
                id: "r0.b35021".into()
            })
        );
        // The original's own key and value: content.
        let original = with_meta(plain, REDUCTION_METADATA_KEY, "r0.b35021");
        assert_eq!(check_no_leak(&[keyed("r0.b35021")], &[original]), Ok(()));
    }

    #[test]
    fn a_message_past_the_originals_stands_for_nothing() {
        let s = stub("r4.fedcba");
        let go = Message::text(Role::User, "go");
        let inverted = [go.clone(), Message::text(Role::User, format!("x {s}"))];
        assert_eq!(
            check_no_leak(&inverted, std::slice::from_ref(&go)),
            Err(left(1, "r4.fedcba", "content"))
        );
        let keyed = with_meta(go.clone(), REDUCTION_METADATA_KEY, "r4.fedcba");
        assert_eq!(
            check_no_leak(&[go.clone(), keyed], std::slice::from_ref(&go)),
            Err(ExportError::ReductionKeyLeft {
                index: 1,
                id: "r4.fedcba".into()
            })
        );
        // Text that only starts like a stub is not one.
        let lookalike = Message::text(Role::User, "[rehydrate:tool-output oops] and [rehydrate:");
        assert_eq!(check_no_leak(&[lookalike], &[]), Ok(()));
    }
}
