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

use rehydrate_formats::{Rule, has_content, left_out_of_bodies};
use rehydrate_model::{Message, Role};

/// The request-body rules the pairing repairs leave alone, which `check_request` still reports
/// on a view: a body with no message at all (nothing to send), a system content part that is
/// not text, and an empty text part inside a tool result's content parts (docs/FORMATS.md,
/// "Pairing repairs"). Every other [`Rule`] holds on every view and every repaired session.
pub const UNREPAIRED_RULES: [Rule; 3] = [Rule::NoMessages, Rule::SystemPart, Rule::EmptyText];

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
    /// Positions in the message's `tool_calls` of the calls not answered yet, ascending. Their
    /// ids differ: a call whose id an earlier call of the message has is folded, not open.
    unanswered: Vec<usize>,
    /// The last message of the unbroken run of results after the call message (the call
    /// message itself while there is none).
    pub(crate) anchor: usize,
    /// Set once a message other than an in-place answer followed the run.
    broken: bool,
}

impl Open {
    /// The positions of the calls still unanswered, ascending.
    pub(crate) fn unanswered(&self) -> Vec<usize> {
        self.unanswered.clone()
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

/// The pairing state of a growing history. Ids are compared in the history itself (no id is
/// copied): the state holds indices.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pairing {
    /// Whether a user or tool message that gives the view a user turn came before (an
    /// Anthropic body must open with one).
    opened: bool,
    open: Option<Open>,
    /// The first answers of calls, by a hash of the call id: the indices of those results
    /// (whose `tool_call_id` is the id; several only when two ids share a hash). An entry is
    /// dropped when a later call reuses its id.
    answered: HashMap<u64, Answers>,
}

/// The indices of first answers whose call ids share one hash; the first is kept inline, so a
/// call costs no allocation.
#[derive(Debug, Clone)]
struct Answers {
    first: usize,
    more: Vec<usize>,
}

impl Answers {
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.first).chain(self.more.iter().copied())
    }
}

/// The hash of a call id that [`Pairing::answered`] is keyed by: FNV-1a, 64 bits (ids are
/// short; equality is always checked against the history).
fn id_hash(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Pairing {
    /// Takes history message `index` (the last of `history`), whose calls at positions
    /// `folded` are folded (answered by nothing); returns its decision and, for an assistant
    /// message, the calls of the previous one it abandons.
    pub(crate) fn push(
        &mut self,
        history: &[Message],
        index: usize,
        folded: &[usize],
    ) -> (Decision, Option<Abandoned>) {
        let m = &history[index];
        match m.role {
            Role::Assistant if left_out_of_bodies(m) => {
                // Left out of both bodies: it neither separates a call from its results nor
                // opens the conversation.
                (Decision::Keep, None)
            }
            Role::Assistant => {
                let decision = if self.opened {
                    Decision::Keep
                } else {
                    self.opened = true;
                    Decision::Opening
                };
                let abandoned = self.open.take().and_then(|open| {
                    (!open.unanswered.is_empty()).then_some(Abandoned {
                        call_message: open.index,
                        anchor: open.anchor,
                        calls: open.unanswered,
                    })
                });
                if m.tool_calls.len() > folded.len() {
                    let mut unanswered = Vec::with_capacity(m.tool_calls.len() - folded.len());
                    for (position, c) in m.tool_calls.iter().enumerate() {
                        if folded.contains(&position) {
                            continue;
                        }
                        self.forget_answers(history, &c.id);
                        unanswered.push(position);
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
                (self.result(history, index), None)
            }
            Role::System | Role::User => {
                if m.role == Role::User && has_content(m) {
                    self.opened = true;
                }
                if let Some(open) = &mut self.open {
                    open.broken = true;
                }
                (Decision::Keep, None)
            }
        }
    }

    fn result(&mut self, history: &[Message], index: usize) -> Decision {
        let Some(id) = history[index].tool_call_id.as_deref() else {
            self.break_run();
            return Decision::Orphan;
        };
        if let Some(open) = &mut self.open {
            let calls = &history[open.index].tool_calls;
            if let Some(k) = open.unanswered.iter().position(|&p| calls[p].id == id) {
                open.unanswered.remove(k);
                self.answered
                    .entry(id_hash(id))
                    .and_modify(|a| a.more.push(index))
                    .or_insert(Answers {
                        first: index,
                        more: Vec::new(),
                    });
                let open = self.open.as_mut().expect("matched above");
                // Only messages both bodies leave out came between: the result is in place.
                if !open.broken {
                    open.anchor = index;
                    return Decision::Keep;
                }
                open.broken = true;
                return Decision::Moved {
                    call_message: open.index,
                    anchor: open.anchor,
                };
            }
        }
        self.break_run();
        match self.first_answer(history, id) {
            Some(first) => Decision::SecondAnswer { first },
            None => Decision::Orphan,
        }
    }

    /// The index of the first answer to the latest call with `id`, if it was answered.
    fn first_answer(&self, history: &[Message], id: &str) -> Option<usize> {
        self.answered
            .get(&id_hash(id))?
            .iter()
            .find(|&i| history[i].tool_call_id.as_deref() == Some(id))
    }

    /// Forgets the answer to an earlier call with `id`: a new call reuses the id.
    fn forget_answers(&mut self, history: &[Message], id: &str) {
        let hash = id_hash(id);
        let Some(answers) = self.answered.get(&hash) else {
            return;
        };
        let kept: Vec<usize> = answers
            .iter()
            .filter(|&i| history[i].tool_call_id.as_deref() != Some(id))
            .collect();
        match kept.split_first() {
            None => {
                self.answered.remove(&hash);
            }
            Some((&first, more)) => {
                self.answered.insert(
                    hash,
                    Answers {
                        first,
                        more: more.to_vec(),
                    },
                );
            }
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

/// [`rehydrate_formats::unsendable_calls`] of each message of `messages`, in order; on several
/// threads when their calls' arguments are large ([`crate::batch::map_batch`]: a whole session
/// at once, where validating the arguments is most of the pairing work).
pub(crate) fn unsendable_batch(messages: &[Message]) -> Vec<Vec<usize>> {
    crate::batch::map_batch(
        messages.len(),
        |i| {
            messages[i]
                .tool_calls
                .iter()
                .map(|c| c.arguments.len())
                .sum()
        },
        |i| {
            let m = &messages[i];
            if m.tool_calls.is_empty() {
                Vec::new()
            } else {
                rehydrate_formats::unsendable_calls(m)
            }
        },
    )
}
