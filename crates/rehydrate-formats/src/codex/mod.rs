//! The Codex CLI rollout codec (docs/FORMATS.md, "Importers", "Codex CLI rollout"): a rollout
//! JSONL file (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) read into canonical messages,
//! and canonical messages written back as one.
//!
//! - `read.rs` walks the lines into record groups, each the lines one canonical message is
//!   made from (an assistant message gathers its reasoning items, its text and the calls of
//!   the same step), and keeps the lines no message needs in the next group's source;
//! - this file adds what needs the whole file: the source keys, the pairing warnings and the
//!   tool-result details of `apply_patch`;
//! - `write.rs` gives each group back verbatim when its messages are unchanged, afresh
//!   otherwise.

mod details;
mod read;
mod write;

use std::collections::BTreeMap;
use std::path::Path;

use rehydrate_model::{Message, Role};

use crate::{Error, Format, Warning, json, keys};

pub(crate) use read::RECORD_TYPES;
pub(crate) use write::write;

/// Imports a rollout text, handing each message to `each` in order; returns the warnings.
pub(crate) fn import(
    path: &Path,
    text: &str,
    each: &mut dyn FnMut(Message),
) -> Result<Vec<Warning>, Error> {
    let (messages, warnings) = messages(path, text)?;
    messages.into_iter().for_each(each);
    Ok(warnings)
}

/// The messages and warnings of a rollout text.
fn messages(path: &Path, text: &str) -> Result<(Vec<Message>, Vec<Warning>), Error> {
    let read = read::read(text).map_err(|e| json::invalid_json(path, Some(e.line), &e.error))?;
    if !read.any_record {
        return Err(Error::NotASession {
            path: path.to_path_buf(),
            format: Format::Codex,
            expected: "JSONL records with a Codex rollout `type` such as `session_meta` or `response_item`",
        });
    }
    let mut warnings = read.warnings;
    let mut messages = Vec::new();
    for group in read.groups {
        let source = text.get(group.source.0..group.source.1).unwrap_or_default();
        for (k, mut m) in group.messages.into_iter().enumerate() {
            if k == 0 {
                m.metadata
                    .insert(keys::SOURCE.to_string(), source.to_string());
            } else {
                m.metadata
                    .insert(keys::SOURCE_PART.to_string(), "true".to_string());
            }
            messages.push(m);
        }
    }
    let tail = text.get(read.tail_start..).unwrap_or_default();
    if !tail.is_empty()
        && let Some(last) = messages.last_mut()
    {
        last.metadata
            .insert(keys::SOURCE_TAIL.to_string(), tail.to_string());
    }
    pairing(&messages, &mut warnings);
    details::fill(&mut messages, &read.patch_events);
    warnings.sort_by_key(|w| w.line);
    Ok((messages, warnings))
}

/// The 1-based line a message came from.
fn line_of(m: &Message) -> Option<usize> {
    m.metadata.get(keys::CODEX_LINE)?.parse().ok()
}

/// Warnings for calls with no output, outputs with no earlier call and second outputs.
fn pairing(messages: &[Message], warnings: &mut Vec<Warning>) {
    // Call id → (line of the call, outputs seen).
    let mut calls: BTreeMap<&str, (Option<usize>, usize)> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    let at = |line: Option<usize>, message: String| Warning { line, message };
    for m in messages {
        match m.role {
            Role::Assistant => {
                for c in &m.tool_calls {
                    if calls.insert(&c.id, (line_of(m), 0)).is_none() {
                        order.push(&c.id);
                    }
                }
            }
            Role::Tool => {
                let id = m.tool_call_id.as_deref().unwrap_or_default();
                match calls.get_mut(id) {
                    None => {
                        warnings.push(at(line_of(m), format!("tool result {id} has no tool call")))
                    }
                    Some((_, seen)) => {
                        *seen += 1;
                        if *seen > 1 {
                            warnings.push(at(
                                line_of(m),
                                format!("tool result {id} is a second result for its tool call"),
                            ));
                        }
                    }
                }
            }
            Role::System | Role::User => {}
        }
    }
    for id in order {
        if let Some(&(line, 0)) = calls.get(id) {
            warnings.push(at(line, format!("tool call {id} has no tool result")));
        }
    }
}

#[cfg(test)]
mod tests;
