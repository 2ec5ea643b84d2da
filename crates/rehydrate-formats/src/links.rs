//! Checking that tool results answer earlier tool calls, for the whole-document formats whose
//! messages map one to one onto source entries (SWE-agent, OpenAI).

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
