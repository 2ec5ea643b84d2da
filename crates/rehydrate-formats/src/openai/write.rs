//! The OpenAI chat-completions request body: its writer and its validity rules
//! (docs/FORMATS.md, "OpenAI chat-completions body" and "Request validity").

use std::borrow::Borrow;

use rehydrate_model::{Message, Role, ToolCall};

use super::read::decode;
use crate::ids::{api_name, is_plain};
use crate::request::{Rule, Violation, call_shapes, left_out_of_bodies, stray_result, violation};
use crate::source::{Document, read_as, unchanged};
use crate::{Format, keys};

/// The OpenAI chat-completions body: `{"messages":[…]}` of wire forms, each function name the
/// API refuses as written mapped ([`crate::api_name`]). A session read from an OpenAI chat
/// file ([`crate::source::read_as`]) is written in its own form: a bare array stays one, an
/// object keeps its other members ([`keys::DOCUMENT`]), and a message kept with its source
/// ([`keys::SOURCE`]: one whose element was not its wire form) is written as that element while
/// it still decodes to the message.
pub(crate) fn write_openai<M: Borrow<Message>>(messages: &[M]) -> Vec<u8> {
    let own = read_as(messages, Format::OpenAi);
    let document = Document::of(messages, Format::OpenAi);
    let mut out = Vec::new();
    match document {
        Document::BareArray => out.push(b'['),
        Document::Object(_) | Document::None => {
            document.open_object(&["messages"], &mut out);
            out.extend_from_slice(b"\"messages\":[");
        }
    }
    let mut first = true;
    for m in messages
        .iter()
        .map(Borrow::borrow)
        .filter(|m| !left_out_of_bodies(m))
    {
        if !first {
            out.push(b',');
        }
        first = false;
        if own && let Some(raw) = unchanged_source(m) {
            out.extend_from_slice(raw.as_bytes());
        } else if m.tool_calls.iter().all(|c| is_plain(&c.name)) {
            m.write_wire(&mut out);
        } else {
            // A name the API refuses as written goes out mapped (`api_name`).
            let mut mapped = m.clone();
            for c in &mut mapped.tool_calls {
                c.name = api_name(&c.name).into_owned();
            }
            mapped.write_wire(&mut out);
        }
    }
    out.push(b']');
    if !matches!(document, Document::BareArray) {
        out.push(b'}');
    }
    out
}

/// The element `m` was read from, when it kept one and it still decodes to `m` (role, content,
/// tool calls, `tool_call_id`, `name` and the source role [`keys::OPENAI_ROLE`]).
fn unchanged_source(m: &Message) -> Option<&str> {
    let source = m.metadata.get(keys::SOURCE)?;
    let decoded = decode(source)?;
    let element = source.strip_prefix('[')?.strip_suffix(']')?;
    unchanged(&[decoded], &[m], &[0], &[keys::OPENAI_ROLE]).then_some(element)
}

/// The OpenAI rules, over the messages the body keeps.
pub(crate) fn check_openai<M: Borrow<Message>>(messages: &[M]) -> Vec<Violation> {
    let mut out = Vec::new();
    let kept: Vec<(usize, &Message)> = messages
        .iter()
        .map(Borrow::borrow)
        .enumerate()
        .filter(|(_, m)| !left_out_of_bodies(m))
        .collect();
    if kept.is_empty() {
        out.push(violation(
            messages.len(),
            Rule::NoMessages,
            None,
            "the body has no message".to_string(),
        ));
    }
    let mut started = false;
    let mut k = 0;
    while let Some(&(index, m)) = kept.get(k) {
        k += 1;
        match m.role {
            Role::System => continue,
            Role::Tool => {
                let rule = if started {
                    Rule::ResultWithoutCall
                } else {
                    Rule::StartsWithToolResult
                };
                out.push(stray_result(index, m, rule));
            }
            Role::User => {}
            Role::Assistant => {
                call_shapes(index, &m.tool_calls, &mut out);
                if !m.tool_calls.is_empty() {
                    let run: Vec<(usize, &Message)> = kept[k..]
                        .iter()
                        .copied()
                        .take_while(|(_, r)| r.role == Role::Tool)
                        .collect();
                    k += run.len();
                    check_answers(index, &m.tool_calls, &run, &mut out);
                }
            }
        }
        started = true;
    }
    out.sort_by_key(|v| v.index);
    out
}

/// Checks that `results` (message index and message, each a tool result) answer each of
/// `calls` (made by message `call_index`) exactly once.
fn check_answers(
    call_index: usize,
    calls: &[ToolCall],
    results: &[(usize, &Message)],
    out: &mut Vec<Violation>,
) {
    for (k, call) in calls.iter().enumerate() {
        if calls[..k].iter().any(|c| c.id == call.id) {
            out.push(violation(
                call_index,
                Rule::DuplicateCallId,
                Some(&call.id),
                format!(
                    "tool call id {} is used twice in one assistant message",
                    call.id
                ),
            ));
        }
    }
    let mut answered: Vec<Option<usize>> = vec![None; calls.len()];
    for &(index, r) in results {
        let Some(id) = &r.tool_call_id else {
            out.push(stray_result(index, r, Rule::ResultWithoutCall));
            continue;
        };
        let Some(k) = calls.iter().position(|c| &c.id == id) else {
            out.push(stray_result(index, r, Rule::ResultWithoutCall));
            continue;
        };
        match answered[k] {
            Some(first) => out.push(violation(
                index,
                Rule::SecondAnswer,
                Some(id),
                format!("second tool result for tool call {id} (the first is message {first})"),
            )),
            None => answered[k] = Some(index),
        }
    }
    for (k, call) in calls.iter().enumerate() {
        let first_of_id = calls[..k].iter().all(|c| c.id != call.id);
        if answered[k].is_none() && first_of_id {
            out.push(violation(
                call_index,
                Rule::UnansweredCall,
                Some(&call.id),
                format!("tool call {} has no tool result right after it", call.id),
            ));
        }
    }
}
