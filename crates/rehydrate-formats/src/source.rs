//! Keeping the source of a JSON document (Responses input, Anthropic body) for a write-back that
//! gives the same JSON value: the record groups of canonical messages ([`groups`]), the test of
//! whether a group still decodes to its messages ([`unchanged`]), and the top-level document
//! ([`Document`]). docs/FORMATS.md, "Keeping the source".

use std::borrow::Borrow;
use std::collections::BTreeMap;

use rehydrate_model::Message;
use serde_json::value::RawValue;

use crate::keys;

/// The messages made from one record group: `source` is the group's [`keys::SOURCE`] (`None`
/// for a message written afresh: from another format, a stub, a pairing repair), `members`
/// the indices of its messages, in order.
pub(crate) struct Group<'a> {
    pub(crate) source: Option<&'a str>,
    pub(crate) members: Vec<usize>,
}

/// The record groups of `messages`, in order: a message with [`keys::SOURCE`] opens a group;
/// the messages right after it marked [`keys::SOURCE_PART`] join it; any other message is a
/// group of its own without a source.
pub(crate) fn groups<M: Borrow<Message>>(messages: &[M]) -> Vec<Group<'_>> {
    let mut out: Vec<Group<'_>> = Vec::new();
    for (i, m) in messages.iter().map(Borrow::borrow).enumerate() {
        if let Some(source) = m.metadata.get(keys::SOURCE) {
            out.push(Group {
                source: Some(source),
                members: vec![i],
            });
            continue;
        }
        let part = m.metadata.get(keys::SOURCE_PART).map(String::as_str) == Some("true");
        match out.last_mut() {
            Some(last)
                if part && last.source.is_some() && last.members.last() == Some(&(i - 1)) =>
            {
                last.members.push(i);
            }
            _ => out.push(Group {
                source: None,
                members: vec![i],
            }),
        }
    }
    out
}

/// Whether the session was read from a document of `format`: its first [`keys::DOCUMENT`] is
/// marked with that [`keys::DOCUMENT_FORMAT`]. Only then does a writer of `format` give back
/// the document's members and its groups' sources.
pub(crate) fn read_as<M: Borrow<Message>>(messages: &[M], format: crate::Format) -> bool {
    messages
        .iter()
        .map(Borrow::borrow)
        .find(|m| m.metadata.contains_key(keys::DOCUMENT))
        .and_then(|m| m.metadata.get(keys::DOCUMENT_FORMAT))
        .is_some_and(|f| f == format.as_str())
}

/// Whether `decoded` (a group's source read again on its own) are exactly the messages at
/// `members` of `messages`, in role, content, tool calls, tool_call_id, name, observation and
/// each of `keys` of the metadata.
pub(crate) fn unchanged<M: Borrow<Message>>(
    decoded: &[Message],
    messages: &[M],
    members: &[usize],
    keys: &[&str],
) -> bool {
    decoded.len() == members.len()
        && decoded.iter().zip(members).all(|(d, &i)| {
            let Some(m) = messages.get(i).map(Borrow::borrow) else {
                return false;
            };
            d.role == m.role
                && d.content == m.content
                && d.tool_calls == m.tool_calls
                && d.tool_call_id == m.tool_call_id
                && d.name == m.name
                && d.observation == m.observation
                && keys
                    .iter()
                    .all(|k| d.metadata.get(*k) == m.metadata.get(*k))
        })
}

/// The items of a source text (a JSON array), each as its raw text; `None` when it is not one.
pub(crate) fn items(source: &str) -> Option<Vec<&RawValue>> {
    serde_json::from_str(source).ok()
}

/// `[` + each raw text + `]`, separated by `,`: the source text of a group.
pub(crate) fn array_text<'r, I>(raws: I) -> String
where
    I: IntoIterator<Item = &'r str>,
    I::IntoIter: Clone,
{
    let raws = raws.into_iter();
    let mut out = String::with_capacity(raws.clone().map(|raw| raw.len() + 1).sum::<usize>() + 2);
    out.push('[');
    for (k, raw) in raws.enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(raw);
    }
    out.push(']');
    out
}

/// The top-level object of a document without some keys, each member compact, as
/// [`keys::DOCUMENT`] holds it.
pub(crate) fn document_text(members: &BTreeMap<String, &RawValue>, without: &[&str]) -> String {
    let mut out = Vec::from(&b"{"[..]);
    let mut first = true;
    for (key, raw) in members {
        if without.contains(&key.as_str()) {
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        crate::request::write_str(key, &mut out);
        out.push(b':');
        out.extend_from_slice(crate::json::minify(raw.get()).as_bytes());
    }
    out.push(b'}');
    String::from_utf8(out).expect("JSON text written from strings is UTF-8")
}

/// The document of a session: the first [`keys::DOCUMENT`] of `messages`.
pub(crate) enum Document<'a> {
    /// No message carries one: the session is written in the writer's own form.
    None,
    /// `[]`: a bare items (or messages) array.
    BareArray,
    /// The other top-level members, in key order.
    Object(BTreeMap<String, &'a RawValue>),
}

impl<'a> Document<'a> {
    /// The document of a session read as `format` ([`read_as`]); [`Document::None`] for any
    /// other session.
    pub(crate) fn of<M: Borrow<Message>>(messages: &'a [M], format: crate::Format) -> Document<'a> {
        if !read_as(messages, format) {
            return Document::None;
        }
        let Some(text) = messages
            .iter()
            .map(Borrow::borrow)
            .find_map(|m| m.metadata.get(keys::DOCUMENT))
        else {
            return Document::None;
        };
        if text.trim() == "[]" {
            return Document::BareArray;
        }
        match serde_json::from_str(text) {
            Ok(members) => Document::Object(members),
            Err(_) => Document::None,
        }
    }

    /// Writes `{` and the members but `without` followed by `,` each (so the caller writes its
    /// own keys next and closes the object).
    pub(crate) fn open_object(&self, without: &[&str], out: &mut Vec<u8>) {
        out.push(b'{');
        if let Document::Object(members) = self {
            for (key, raw) in members {
                if without.contains(&key.as_str()) {
                    continue;
                }
                crate::request::write_str(key, out);
                out.push(b':');
                out.extend_from_slice(raw.get().as_bytes());
                out.push(b',');
            }
        }
    }
}
