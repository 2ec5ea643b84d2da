//! Pairing: which tool results answer which tool calls, decided message by message, and what
//! the view must change so every call is answered exactly once right after it (the pairing
//! repairs, docs/FORMATS.md, "Pairing repairs").
//!
//! The rules mirror [`crate::safe_boundaries`] exactly, so a pair the view keeps together is a
//! pair no cleared range separates: a tool result (role `tool`) answers the latest call with
//! its id made by the latest assistant message with tool calls, while that call is unanswered;
//! any assistant message abandons the calls still unanswered (the model was called again
//! without their results); a call the APIs refuse as written is folded and answered by
//! nothing.

use std::collections::HashMap;

use rehydrate_model::{Content, Message, Role};

/// What one message means for pairing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Nothing to repair.
    Keep,
    /// A tool result answering a pending call after other messages came between: it is shown
    /// right after `anchor`, the last message of its call's unbroken run of results.
    Moved {
        /// The assistant message that makes the call.
        call_message: usize,
        /// Where the result is shown (after this history index).
        anchor: usize,
    },
    /// A tool result whose call is not pending and was never answered (or no call id).
    Orphan,
    /// A second tool result for an answered call; the first answer is at `first`.
    SecondAnswer {
        /// The index of the first answer.
        first: usize,
    },
    /// An assistant message with no user message before it: the conversation needs one.
    Opening,
}

/// The calls of the latest assistant message with tool calls that are still unanswered.
#[derive(Debug, Clone)]
pub(crate) struct Open {
    /// The assistant message's index.
    pub(crate) index: usize,
    /// Unanswered calls: id → position in the message's `tool_calls` (the latest call with
    /// that id; an earlier one with the same id is forgotten, as in the safe boundaries).
    unanswered: HashMap<String, usize>,
    /// The last message of the unbroken run of results after the call message (the call
    /// message itself while there is none).
    pub(crate) anchor: usize,
    /// Set once a message other than an in-place answer followed the run.
    broken: bool,
}

impl Open {
    /// The positions of the calls still unanswered, ascending.
    pub(crate) fn unanswered(&self) -> Vec<usize> {
        let mut positions: Vec<usize> = self.unanswered.values().copied().collect();
        positions.sort_unstable();
        positions
    }
}

/// Calls abandoned when an assistant message arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Abandoned {
    /// The assistant message that made them.
    pub(crate) call_message: usize,
    /// Where their synthetic results are shown (after this history index).
    pub(crate) anchor: usize,
    /// Their positions in the message's `tool_calls`, ascending.
    pub(crate) calls: Vec<usize>,
}

/// The pairing state of a growing history.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pairing {
    /// Whether a user or tool message that gives the view a user turn came before (an
    /// Anthropic body must open with one).
    opened: bool,
    open: Option<Open>,
    /// Call ids answered since their call was made: id → index of the first answer.
    answered: HashMap<String, usize>,
}

impl Pairing {
    /// Takes history message `index`, whose calls at positions `folded` are folded (answered by
    /// nothing); returns its decision and, for an assistant message, the calls of the previous
    /// one it abandons.
    pub(crate) fn push(
        &mut self,
        index: usize,
        m: &Message,
        folded: &[usize],
    ) -> (Decision, Option<Abandoned>) {
        match m.role {
            Role::Assistant => {
                let decision = if self.opened {
                    Decision::Keep
                } else {
                    self.opened = true;
                    Decision::Opening
                };
                let abandoned = self.open.take().and_then(|open| {
                    let calls = open.unanswered();
                    (!calls.is_empty()).then_some(Abandoned {
                        call_message: open.index,
                        anchor: open.anchor,
                        calls,
                    })
                });
                if m.tool_calls.len() > folded.len() {
                    let mut unanswered = HashMap::with_capacity(m.tool_calls.len());
                    for (position, c) in m.tool_calls.iter().enumerate() {
                        if folded.contains(&position) {
                            continue;
                        }
                        self.answered.remove(&c.id);
                        unanswered.insert(c.id.clone(), position);
                    }
                    self.open = Some(Open {
                        index,
                        unanswered,
                        anchor: index,
                        broken: false,
                    });
                }
                (decision, abandoned)
            }
            Role::Tool => {
                // Whatever it is, a tool result gives the view a user turn (a hidden one, its
                // stub).
                self.opened = true;
                (self.result(index, m), None)
            }
            Role::System | Role::User => {
                if m.role == Role::User && gives_text(m) {
                    self.opened = true;
                }
                if let Some(open) = &mut self.open {
                    open.broken = true;
                }
                (Decision::Keep, None)
            }
        }
    }

    fn result(&mut self, index: usize, m: &Message) -> Decision {
        let Some(id) = m.tool_call_id.as_deref() else {
            self.break_run();
            return Decision::Orphan;
        };
        if let Some(open) = &mut self.open
            && open.unanswered.remove(id).is_some()
        {
            self.answered.insert(id.to_string(), index);
            if !open.broken && open.anchor + 1 == index {
                open.anchor = index;
                return Decision::Keep;
            }
            open.broken = true;
            return Decision::Moved {
                call_message: open.index,
                anchor: open.anchor,
            };
        }
        self.break_run();
        match self.answered.get(id) {
            Some(&first) => Decision::SecondAnswer { first },
            None => Decision::Orphan,
        }
    }

    fn break_run(&mut self) {
        if let Some(open) = &mut self.open {
            open.broken = true;
        }
    }

    /// The latest assistant message's calls still unanswered, if any: what closing the
    /// session abandons.
    pub(crate) fn open(&self) -> Option<&Open> {
        self.open.as_ref().filter(|o| !o.unanswered.is_empty())
    }
}

/// Whether user message `m` gives an Anthropic body a block: non-empty text, or content parts.
fn gives_text(m: &Message) -> bool {
    match &m.content {
        None => false,
        Some(Content::Text(t)) => !t.is_empty(),
        Some(Content::Parts(parts)) => !parts.is_empty(),
    }
}
