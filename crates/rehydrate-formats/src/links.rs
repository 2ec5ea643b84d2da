//! Checking that tool results answer earlier tool calls, for the whole-document formats whose
//! messages map one to one onto source entries (SWE-agent, OpenAI), and the ledger of calls the
//! Responses and Anthropic readers check each answer against ([`Ledger`]).

use std::collections::HashMap;

use rehydrate_model::{Message, Role};

use crate::Warning;

/// Warnings for tool results that answer no earlier tool call, tool results without an id, and
/// tool calls that never get a result.
///
/// `field(i)` names message `i`'s source entry, such as `history[3]`.
/// A call id is answered by a later `role: tool` message with that `tool_call_id`; when an id is
/// reused by a later assistant message (SWE-agent replays do this), the later call needs its own
/// result.
/// Tool messages that carry a `name` and no id (the legacy OpenAI `function` role) are not
/// checked. Calls with an empty id (legacy `function_call`) are not checked.
/// Each warning comes with the index of the message it is about, so the caller can merge it
/// with its own warnings in document order.
pub(crate) fn check(
    messages: &[Message],
    field: impl Fn(usize) -> String,
) -> Vec<(usize, Warning)> {
    let mut links = Links::default();
    for (i, msg) in messages.iter().enumerate() {
        links.add(i, msg, &field);
    }
    links.finish(&field)
}

/// [`check`] one message at a time, for messages that are not kept together.
#[derive(Default)]
pub(crate) struct Links {
    warnings: Vec<(usize, Warning)>,
    /// (call id, message index, answered), in call order.
    calls: Vec<(String, usize, bool)>,
    /// The position in `calls` of the latest call with each id.
    latest: HashMap<String, usize>,
}

impl Links {
    /// Takes message `i` (messages are added in order, each once).
    pub(crate) fn add(&mut self, i: usize, msg: &Message, field: impl Fn(usize) -> String) {
        match msg.role {
            Role::Assistant => {
                for call in &msg.tool_calls {
                    if call.id.is_empty() {
                        continue;
                    }
                    self.latest.insert(call.id.clone(), self.calls.len());
                    self.calls.push((call.id.clone(), i, false));
                }
            }
            Role::Tool => match &msg.tool_call_id {
                Some(id) => match self
                    .latest
                    .get(id.as_str())
                    .and_then(|&k| self.calls.get_mut(k))
                {
                    Some(call) => call.2 = true,
                    None => self.warnings.push((
                        i,
                        Warning::new(format!("{}: tool result {id} has no tool call", field(i))),
                    )),
                },
                None if msg.name.is_some() => {}
                None => self.warnings.push((
                    i,
                    Warning::new(format!("{}: tool result has no tool_call_id", field(i))),
                )),
            },
            Role::System | Role::User => {}
        }
    }

    /// The warnings, those about unanswered calls last.
    pub(crate) fn finish(self, field: impl Fn(usize) -> String) -> Vec<(usize, Warning)> {
        let mut warnings = self.warnings;
        for (id, i, answered) in self.calls {
            if !answered {
                warnings.push((
                    i,
                    Warning::new(format!("{}: tool call {id} has no tool result", field(i))),
                ));
            }
        }
        warnings
    }
}

/// The tool calls of a body met so far (a Responses input, an Anthropic body), by id, for
/// readers that check each answer as they read it: one entry per id, so each call is hashed
/// and its id copied once.
#[derive(Default)]
pub(crate) struct Ledger {
    /// Call id -> (the index of its latest call, whether an answer came after it, the order
    /// in which the id was first called).
    calls: HashMap<String, (usize, bool, usize)>,
}

impl Ledger {
    /// Records a call with `id` at index `i`; `true` when an earlier call had the id (the
    /// latest call now waits for its own answer).
    pub(crate) fn call(&mut self, id: &str, i: usize) -> bool {
        let order = self.calls.len();
        match self.calls.entry(id.to_string()) {
            std::collections::hash_map::Entry::Occupied(mut entry) => {
                let (latest, answered, _) = entry.get_mut();
                *latest = i;
                *answered = false;
                true
            }
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert((i, false, order));
                false
            }
        }
    }

    /// Records an answer to `id`: `None` when no call has the id, else whether the latest call
    /// with it was answered before.
    pub(crate) fn answer(&mut self, id: &str) -> Option<bool> {
        let (_, answered, _) = self.calls.get_mut(id)?;
        Some(std::mem::replace(answered, true))
    }

    /// The ids whose latest call has no answer, each with that call's index, in the order the
    /// ids were first called.
    pub(crate) fn unanswered(self) -> Vec<(String, usize)> {
        let mut open: Vec<(usize, String, usize)> = self
            .calls
            .into_iter()
            .filter(|(_, (_, answered, _))| !answered)
            .map(|(id, (i, _, order))| (order, id, i))
            .collect();
        open.sort_unstable_by_key(|(order, _, _)| *order);
        open.into_iter().map(|(_, id, i)| (id, i)).collect()
    }
}
