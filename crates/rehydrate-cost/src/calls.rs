//! [`calls`]: the model calls of a recorded session, each with its request, its output and
//! the time it was sent.

use std::ops::Range;

use rehydrate_model::{Message, Role};

/// One model call of a recorded session: a maximal run of consecutive assistant messages is
/// what one call answered (docs/COST.md, "Model calls").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The request is the history before the run: `history[..request_end]` (a count of
    /// messages, the run's first index).
    pub request_end: usize,
    /// The run of assistant messages the call answered with, as history indices (half-open).
    pub output: Range<usize>,
    /// When the request was sent: the timestamp of the last message before the run, else of
    /// the run's first message; `None` when neither has one that parses as RFC 3339.
    pub time: Option<jiff::Timestamp>,
}

/// The model calls of `history`, in order: one per maximal run of consecutive assistant
/// messages (a session with none has no call).
///
/// A message's time is its `rehydrate_model::TIMESTAMP_METADATA_KEY` metadata parsed as an
/// RFC 3339 timestamp with jiff; one that does not parse counts as none (partial input is not
/// an error).
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, Role};
///
/// let history = [
///     Message::text(Role::User, "hi"),
///     Message::text(Role::Assistant, "hello"),
///     Message::text(Role::Assistant, "again"),
///     Message::text(Role::User, "bye"),
///     Message::text(Role::Assistant, "bye"),
/// ];
/// let calls = rehydrate_cost::calls(&history);
/// assert_eq!(calls.len(), 2);
/// assert_eq!((calls[0].request_end, calls[0].output.clone()), (1, 1..3));
/// assert_eq!((calls[1].request_end, calls[1].output.clone()), (4, 4..5));
/// assert_eq!(calls[0].time, None);
/// ```
pub fn calls(history: &[Message]) -> Vec<Call> {
    let mut calls = Vec::new();
    let mut i = 0;
    while i < history.len() {
        if history[i].role != Role::Assistant {
            i += 1;
            continue;
        }
        let start = i;
        while i < history.len() && history[i].role == Role::Assistant {
            i += 1;
        }
        let before = start.checked_sub(1).and_then(|j| timestamp(&history[j]));
        calls.push(Call {
            request_end: start,
            output: start..i,
            time: before.or_else(|| timestamp(&history[start])),
        });
    }
    calls
}

/// The time `m` records, when it parses as RFC 3339.
pub(crate) fn timestamp(m: &Message) -> Option<jiff::Timestamp> {
    m.timestamp()?.parse().ok()
}
