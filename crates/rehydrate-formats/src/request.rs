//! Request bodies: the validity rules of the OpenAI chat-completions and Anthropic Messages
//! APIs (`check_request`), and the writers of both bodies (`request_body`).
//!
//! docs/FORMATS.md, "Request validity" and "Export", is the specification of the rules and of
//! the bytes written here.

use std::fmt;

use std::borrow::Borrow;

use rehydrate_model::{Content, Message, Role, ToolCall};

use crate::ids::api_name;

use crate::anthropic::write::{anthropic, write_body};
use crate::openai::write::{check_openai, write_openai};
use crate::responses::write::write_responses;

/// The API a request body is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    /// OpenAI chat completions: `{"messages":[…]}`.
    OpenAi,
    /// Anthropic Messages: `{"system":…,"messages":[…]}` with content blocks.
    Anthropic,
    /// OpenAI Responses: `{"input":[…]}` of input items. Its rules at the canonical level are
    /// those of [`Api::OpenAi`] (every call answered right after its assistant message, every
    /// output answering a call, ids and names); the writer guarantees the Responses-only ones
    /// (a reasoning item is followed by its item; fresh items carry no stored-item `id`).
    Responses,
}

impl Api {
    /// The token naming the API: `openai`, `anthropic` or `responses`.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::OpenAi => "openai",
            Api::Anthropic => "anthropic",
            Api::Responses => "responses",
        }
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A validity rule of a request body (docs/FORMATS.md, "Request validity", gives each rule
/// with the provider's documentation it comes from).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// Both APIs: every tool call is answered by the messages right after its assistant
    /// message (OpenAI: its `tool` messages; Anthropic: `tool_result` blocks of the next user
    /// message).
    UnansweredCall,
    /// Both APIs: a tool result answers a tool call of the assistant message right before it.
    ResultWithoutCall,
    /// Both APIs: a tool result names the call it answers.
    ResultWithoutCallId,
    /// Both APIs: a tool call is answered once.
    SecondAnswer,
    /// Both APIs: the tool call ids of one assistant message (Anthropic: of one merged
    /// assistant message) are distinct.
    DuplicateCallId,
    /// Both APIs: the conversation (after system messages) does not start with a tool result.
    StartsWithToolResult,
    /// Anthropic: the first message is a user message.
    FirstNotUser,
    /// Anthropic: the `tool_result` blocks of a user message come before any other block.
    TextBeforeToolResult,
    /// Anthropic: text blocks are non-empty.
    EmptyText,
    /// Both APIs: function names match `^[a-zA-Z0-9_-]{1,64}$` once mapped
    /// ([`crate::api_name`]).
    BadFunctionName,
    /// Anthropic: a `tool_use` input is a JSON object.
    ArgumentsNotObject,
    /// Anthropic: the `system` text holds text only.
    SystemPart,
    /// Both APIs: the body has at least one message (Anthropic: besides the system text).
    NoMessages,
}

impl Rule {
    /// The rule's token, such as `unanswered-call`.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::UnansweredCall => "unanswered-call",
            Rule::ResultWithoutCall => "result-without-call",
            Rule::ResultWithoutCallId => "result-without-call-id",
            Rule::SecondAnswer => "second-answer",
            Rule::DuplicateCallId => "duplicate-call-id",
            Rule::StartsWithToolResult => "starts-with-tool-result",
            Rule::FirstNotUser => "first-not-user",
            Rule::TextBeforeToolResult => "text-before-tool-result",
            Rule::EmptyText => "empty-text",
            Rule::BadFunctionName => "bad-function-name",
            Rule::ArgumentsNotObject => "arguments-not-object",
            Rule::SystemPart => "system-part",
            Rule::NoMessages => "no-messages",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One broken rule: the message it is at, the tool call id involved (if any) and what is
/// wrong. Displayed as one line: `message 4 (unanswered-call): tool call t1 has no tool result
/// right after it`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Violation {
    /// 0-based index of the message in the checked messages (for a merged Anthropic message,
    /// the message the offending block came from).
    pub index: usize,
    /// The rule broken.
    pub rule: Rule,
    /// The tool call id involved, if any.
    pub id: Option<String>,
    /// What is wrong, one lowercase line without the index.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "message {} ({}): {}", self.index, self.rule, self.detail)
    }
}

/// Why [`request_body`] wrote nothing: the messages break these rules, in message order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{api} request body is invalid: {}{}", first(.violations), more(.violations))]
pub struct RequestError {
    /// The API checked.
    pub api: Api,
    /// Every violation, in message order (never empty).
    pub violations: Vec<Violation>,
}

fn first(violations: &[Violation]) -> String {
    violations
        .first()
        .map(ToString::to_string)
        .unwrap_or_default()
}

fn more(violations: &[Violation]) -> String {
    match violations.len() {
        0 | 1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    }
}

/// Checks `messages` (canonical messages: a view, or any host's history) against the validity
/// rules of `api` and returns every violation, in message order; empty when the body
/// [`request_body`] writes for them is valid.
///
/// The messages are checked as they are written: for OpenAI, an assistant message with
/// neither content nor tool calls is left out; for Anthropic, system messages go to `system`,
/// messages without blocks are left out and consecutive messages of one role are merged, and
/// the rules apply to the merged messages. A tool call id belongs to its assistant message, so
/// a later message may reuse it. Observations are user messages, not tool results.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, Role, ToolCall};
/// use rehydrate_formats::{Api, Rule, check_request};
///
/// let mut call = Message { role: Role::Assistant, ..Message::default() };
/// call.tool_calls.push(ToolCall { id: "t1".into(), name: "ls".into(), arguments: "{}".into() });
/// let messages = [Message::text(Role::User, "list"), call, Message::text(Role::User, "stop")];
/// let violations = check_request(&messages, Api::OpenAi);
/// assert_eq!(violations.len(), 1);
/// assert_eq!(violations[0].rule, Rule::UnansweredCall);
/// assert_eq!(
///     violations[0].to_string(),
///     "message 1 (unanswered-call): tool call t1 has no tool result right after it"
/// );
/// ```
pub fn check_request<M: Borrow<Message>>(messages: &[M], api: Api) -> Vec<Violation> {
    match api {
        Api::OpenAi | Api::Responses => check_openai(messages),
        Api::Anthropic => anthropic(messages).1,
    }
}

/// Writes `messages` as a request body for `api`, after [`check_request`]. `messages` are
/// owned messages or references (a view that borrows its unreduced messages is not copied).
///
/// - OpenAI: `{"messages":[…]}`, each message in its wire form ([`Message::write_wire`]);
///   an assistant message with neither content nor tool calls is left out; a session read
///   from an OpenAI chat file gives back its unchanged messages as they were, in its own form.
/// - Anthropic: `{"system":"…","messages":[…]}` (docs/FORMATS.md, "Anthropic Messages body");
///   a session read from an Anthropic body gives back its unchanged messages as they were.
/// - Responses: `{"input":[…]}` (docs/FORMATS.md, "OpenAI Responses input"); a session read
///   from a Responses input gives back its unchanged items as they were, in its own form.
///
/// Stub text is written as it is: this is the function for a reduced view. For the session
/// with every reduction undone, see `rehydrate_sidecar::export_session`.
///
/// # Errors
///
/// [`RequestError`] with every violation when the messages break a rule of `api`.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, Role};
/// use rehydrate_formats::{Api, request_body};
///
/// let messages = [Message::text(Role::System, "be brief"), Message::text(Role::User, "hi")];
/// assert_eq!(
///     request_body(&messages, Api::OpenAi)?,
///     br#"{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}"#
/// );
/// # Ok::<(), rehydrate_formats::RequestError>(())
/// ```
pub fn request_body<M: Borrow<Message>>(messages: &[M], api: Api) -> Result<Vec<u8>, RequestError> {
    let (body, violations) = match api {
        Api::OpenAi => (write_openai(messages), check_openai(messages)),
        Api::Anthropic => {
            let violations = anthropic(messages).1;
            let body = if violations.is_empty() {
                write_body(messages)
            } else {
                Vec::new()
            };
            (body, violations)
        }
        Api::Responses => {
            let violations = check_openai(messages);
            let body = if violations.is_empty() {
                write_responses(messages)
            } else {
                Vec::new()
            };
            (body, violations)
        }
    };
    if violations.is_empty() {
        Ok(body)
    } else {
        Err(RequestError { api, violations })
    }
}

/// Whether both request bodies leave message `m` out: an assistant message with no tool call
/// and no content but whitespace (one that held only reasoning, which neither body can carry
/// alone). Such a message separates nothing: the pairing repairs pass over it.
pub fn left_out_of_bodies(m: &Message) -> bool {
    m.role == Role::Assistant && m.tool_calls.is_empty() && !has_content(m)
}

/// Whether `m` has content a request body carries: text that is not all whitespace, or a
/// content part that is not a text part of whitespace only (both bodies leave such text out).
pub fn has_content(m: &Message) -> bool {
    match &m.content {
        None => false,
        Some(Content::Text(t)) => !t.trim().is_empty(),
        Some(Content::Parts(parts)) => parts.iter().any(|p| !is_blank_text_part(p)),
    }
}

/// Whether content part `p` is a text part whose text is empty or whitespace only (which the
/// Messages API refuses, and which says nothing).
pub(crate) fn is_blank_text_part(p: &serde_json::Value) -> bool {
    p.get("type").and_then(serde_json::Value::as_str) == Some("text")
        && p.get("text")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|t| t.trim().is_empty())
}

pub(crate) fn violation(index: usize, rule: Rule, id: Option<&str>, detail: String) -> Violation {
    Violation {
        index,
        rule,
        id: id.map(str::to_string),
        detail: one_line(&detail),
    }
}

/// `detail` as one line of at most about 300 bytes: control characters written as
/// `\u{..}` (a call id from a session can hold a line break or a terminal escape).
fn one_line(detail: &str) -> String {
    const MAX: usize = 300;
    let mut out = String::with_capacity(detail.len().min(MAX + 8));
    for c in detail.chars() {
        if out.len() >= MAX {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// A tool result that stands where no call is answered.
pub(crate) fn stray_result(index: usize, m: &Message, rule: Rule) -> Violation {
    match &m.tool_call_id {
        None => violation(
            index,
            Rule::ResultWithoutCallId,
            None,
            "tool result has no tool_call_id".to_string(),
        ),
        Some(id) if rule == Rule::StartsWithToolResult => violation(
            index,
            rule,
            Some(id),
            format!("the conversation starts with tool result {id}"),
        ),
        Some(id) => violation(
            index,
            rule,
            Some(id),
            format!(
                "tool result {id} answers no tool call of the assistant message right before it"
            ),
        ),
    }
}

/// Why an API refuses a tool call as written, whatever answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CallDefect {
    /// An earlier call of the same assistant message has its id (both APIs).
    RepeatedId,
    /// The function name, mapped ([`crate::api_name`]), is longer than 64 bytes (both APIs
    /// take names matching `^[a-zA-Z0-9_-]{1,64}$`).
    Name,
    /// The arguments are not a JSON object (Anthropic `tool_use.input`).
    Arguments,
}

impl CallDefect {
    /// What the API refuses, as a stub says it: `repeated id`, `name` or `arguments`.
    pub fn as_str(self) -> &'static str {
        match self {
            CallDefect::RepeatedId => "repeated id",
            CallDefect::Name => "name",
            CallDefect::Arguments => "arguments",
        }
    }
}

/// Why an API refuses call `k` of `calls` (one assistant message's tool calls) as written, or
/// `None` when both accept it: its id is used by an earlier call of the message, its name as
/// mapped ([`crate::api_name`]) is longer than 64 bytes, or its arguments are not a JSON
/// object, checked in that order. An id or name that does not match the APIs' patterns is no
/// defect: the writers map it ([`crate::api_id`]). The arguments are validated without
/// building a value.
///
/// # Panics
///
/// When `k` is not a position of `calls`.
pub fn call_defect(calls: &[ToolCall], k: usize) -> Option<CallDefect> {
    let call = &calls[k];
    if calls[..k].iter().any(|c| c.id == call.id) {
        Some(CallDefect::RepeatedId)
    } else if !is_function_name(&call.name) {
        Some(CallDefect::Name)
    } else if !is_json_object(&call.arguments) {
        Some(CallDefect::Arguments)
    } else {
        None
    }
}

/// The positions of the calls of assistant message `m` that an API refuses as written
/// ([`call_defect`]), ascending; empty for any other message.
pub fn unsendable_calls(m: &Message) -> Vec<usize> {
    if m.role != Role::Assistant {
        return Vec::new();
    }
    (0..m.tool_calls.len())
        .filter(|&k| call_defect(&m.tool_calls, k).is_some())
        .collect()
}

/// Whether `text` is one JSON object (whitespace around it allowed) by the grammar of
/// RFC 8259, whose `\u` escapes are whole characters (a lone UTF-16 surrogate, which a writer
/// that cut a string inside an emoji leaves, is not). Numbers are not range-checked: JSON sets
/// no range, and the input is sent as written. One pass, no value built, nesting kept on an
/// explicit stack (no recursion); string bodies are skipped eight bytes at a time
/// ([`find_special`]).
pub(crate) fn is_json_object(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return false;
    }
    // Open containers: `true` for an object, `false` for an array.
    let mut stack: Vec<bool> = Vec::new();
    // Each step reads one value at `i`, then what may follow it.
    loop {
        i = skip_ws(b, i);
        match b.get(i) {
            Some(b'{') => {
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&b'}') {
                    i += 1;
                } else {
                    stack.push(true);
                    let Some(next) = object_key(b, i) else {
                        return false;
                    };
                    i = next;
                    continue;
                }
            }
            Some(b'[') => {
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&b']') {
                    i += 1;
                } else {
                    stack.push(false);
                    continue;
                }
            }
            Some(b'"') => match skip_string(b, i) {
                Some(next) => i = next,
                None => return false,
            },
            Some(b't') if b[i..].starts_with(b"true") => i += 4,
            Some(b'f') if b[i..].starts_with(b"false") => i += 5,
            Some(b'n') if b[i..].starts_with(b"null") => i += 4,
            Some(b'-' | b'0'..=b'9') => match skip_number(b, i) {
                Some(next) => i = next,
                None => return false,
            },
            _ => return false,
        }
        // After a value: close containers, or go on to the next member or element.
        loop {
            i = skip_ws(b, i);
            let Some(&in_object) = stack.last() else {
                return i == b.len();
            };
            match (b.get(i), in_object) {
                (Some(b','), true) => {
                    let Some(next) = object_key(b, skip_ws(b, i + 1)) else {
                        return false;
                    };
                    i = next;
                    break;
                }
                (Some(b','), false) => {
                    i += 1;
                    break;
                }
                (Some(b'}'), true) | (Some(b']'), false) => {
                    stack.pop();
                    i += 1;
                }
                _ => return false,
            }
        }
    }
}

/// The index after a member's key and its `:`, the key's string starting at `i`.
fn object_key(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let i = skip_ws(b, skip_string(b, i)?);
    (b.get(i) == Some(&b':')).then_some(i + 1)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The index after the string whose opening quote is at `i`: no raw control character, every
/// escape one of `\" \\ \/ \b \f \n \r \t \uXXXX`, every surrogate escape half of a pair.
pub(crate) fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut at = i + 1;
    loop {
        at += find_special(b.get(at..)?)?;
        match b[at] {
            b'"' => return Some(at + 1),
            b'\\' => {}
            _ => return None, // a raw control character
        }
        match b.get(at + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at += 2,
            b'u' => {
                let unit = hex4(b, at + 2)?;
                at += 6;
                match unit {
                    0xD800..=0xDBFF => {
                        let low = (b.get(at..at + 2) == Some(br"\u"))
                            .then(|| hex4(b, at + 2))
                            .flatten()?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        at += 6;
                    }
                    0xDC00..=0xDFFF => return None,
                    _ => {}
                }
            }
            _ => return None,
        }
    }
}

/// The position of the first byte of `s` that ends a run of plain string bytes: `"`, `\` or a
/// control character (below 0x20). Eight bytes at a time: in each 64-bit word, the bytes equal
/// to a value are found as zero bytes of the word XOR that value, and the bytes below 0x20 by
/// the borrow of subtracting 0x20 from each; both tests are exact at the lowest flagged byte,
/// which is the one taken.
fn find_special(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let mut at = 0;
    let mut words = s.chunks_exact(8);
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().expect("chunks of 8"));
        let mask = below(x, 0x20) | below(x ^ (ONES * 0x22), 1) | below(x ^ (ONES * 0x5C), 1);
        if mask != 0 {
            return Some(at + (mask.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let tail = words.remainder();
    tail.iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|p| at + p)
}

fn hex4(b: &[u8], at: usize) -> Option<u16> {
    let digits = b.get(at..at + 4)?;
    digits.iter().try_fold(0u16, |acc, &d| {
        let v = char::from(d).to_digit(16)?;
        Some(acc << 4 | v as u16)
    })
}

/// The index after the number starting at `i`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn skip_number(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |b: &[u8], mut i: usize| {
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    i = match b.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(b, i)?,
        _ => return None,
    };
    if b.get(i) == Some(&b'.') {
        i = digits(b, i + 1)?;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits(b, i)?;
    }
    Some(i)
}

/// The violations of the shape of the calls of assistant message `index`: a name that, mapped
/// ([`crate::api_name`]), does not match `^[a-zA-Z0-9_-]{1,64}$`, checked for both APIs (the
/// Messages API takes the same pattern for tool names; one view serves both). Ids are mapped
/// to the pattern by the writers and never break it.
pub(crate) fn call_shapes(index: usize, calls: &[ToolCall], out: &mut Vec<Violation>) {
    for c in calls {
        if !is_function_name(&c.name) {
            out.push(violation(
                index,
                Rule::BadFunctionName,
                Some(&c.id),
                format!(
                    "tool call {}: function name `{}` is {} bytes once mapped to ^[a-zA-Z0-9_-]+$, over the 64 both APIs take",
                    shown(&c.id),
                    shown(&c.name),
                    api_name(&c.name).len()
                ),
            ));
        }
    }
}

/// `s` quoted in a violation: at most 80 bytes (cut on a char boundary, `…` added); the
/// violation's detail escapes control characters ([`one_line`]).
pub(crate) fn shown(s: &str) -> String {
    let cut = s.floor_char_boundary(80);
    if cut < s.len() {
        format!("{}…", &s[..cut])
    } else {
        s.to_string()
    }
}

/// Whether `name`, mapped ([`crate::api_name`]), is at most 64 bytes: the mapped form always
/// matches `^[a-zA-Z0-9_-]+$`.
fn is_function_name(name: &str) -> bool {
    api_name(name).len() <= 64
}

/// Checks that a call's arguments parse as a JSON object, the only `input` Anthropic accepts;
/// the error says what they are instead.
pub(crate) fn check_arguments(call: &ToolCall) -> Result<(), String> {
    if is_json_object(&call.arguments) {
        return Ok(());
    }
    match serde_json::from_str::<serde_json::Value>(&call.arguments) {
        Ok(other) => Err(format!("a JSON {}", json_kind(&other))),
        Err(e) => Err(format!("invalid JSON: {e}")),
    }
}

/// The kind of a JSON value, for messages.
fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Appends `s` as a JSON string, escaped as the wire form escapes strings.
pub(crate) fn write_str(s: &str, out: &mut Vec<u8>) {
    serde_json::to_writer(out, s).expect("a string serializes into a Vec");
}
