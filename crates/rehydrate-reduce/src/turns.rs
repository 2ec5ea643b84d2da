//! Message turns, and which old ones can be cleared without separating a tool call from its
//! result.
//!
//! A *message turn* is the reducer's turn: it opens at every user message that is not an
//! observation ([`Message::is_turn_start`]) and runs to the next one, counted over message
//! indices (what `clear_turns_older_than` keeps and a `turns_cleared` reduction hides). It is
//! not the event log's turn number (`SessionEvent::turn`), which only a person's message
//! advances (docs/ARCHITECTURE.md, "Two meanings of turn").

use std::collections::HashMap;

use rehydrate_model::{Message, Role};

/// Indices of the messages that open a message turn: user messages written by a person (not
/// observations), in order.
pub fn turn_starts(history: &[Message]) -> Vec<usize> {
    history
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_turn_start())
        .map(|(i, _)| i)
        .collect()
}

/// For each boundary `b` in `0..=history.len()` (between messages `b - 1` and `b`), whether
/// clearing may start or end there: no tool call before `b` has its result at or after `b`,
/// and no call before `b` is still waiting for its result (it would arrive after the boundary).
/// Calls and results are matched by `tool_call_id`; a result matches the latest earlier call
/// with its id, made by the latest assistant message: a call still waiting when another
/// assistant message arrives is abandoned (it gets no result) and crosses nothing, and a call
/// the APIs refuse as written (`rehydrate_formats::unsendable_calls`) is folded and answered
/// by nothing. Linear in
/// the number of messages.
pub fn safe_boundaries(history: &[Message]) -> Vec<bool> {
    let n = history.len();
    // crossing[b] > 0 when some call/result pair spans boundary b (call < b <= result).
    let mut diff = vec![0i64; n + 2];
    let mut pending: HashMap<&str, usize> = HashMap::new();
    for (i, m) in history.iter().enumerate() {
        if m.role == Role::Tool
            && let Some(id) = &m.tool_call_id
            && let Some(c) = pending.remove(id.as_str())
        {
            diff[c + 1] += 1;
            diff[i + 1] -= 1;
        }
        if m.role == Role::Assistant && !rehydrate_formats::left_out_of_bodies(m) {
            // A call still pending when the model is called again is abandoned: it gets no
            // result (the view gives it a synthetic one), so it crosses nothing.
            pending.clear();
            // A call the APIs refuse as written is folded into text: nothing answers it.
            let folded = rehydrate_formats::unsendable_calls(m);
            for (_, c) in m
                .tool_calls
                .iter()
                .enumerate()
                .filter(|(k, _)| !folded.contains(k))
            {
                pending.insert(c.id.as_str(), i);
            }
        }
    }
    for &c in pending.values() {
        diff[c + 1] += 1;
        diff[n + 1] -= 1;
    }
    let mut acc = 0;
    diff[..=n]
        .iter()
        .map(|d| {
            acc += d;
            acc == 0
        })
        .collect()
}

/// The inclusive range `(first, last)` of messages to clear so that only the newest
/// `keep_turns` turns stay, or `None` when fewer turns exist or no safe boundary does.
///
/// The range starts at the first turn and ends just before a turn start (or at the end of the
/// history when `keep_turns` is 0). Both ends must be safe boundaries ([`safe_boundaries`]);
/// when the boundary that keeps exactly `keep_turns` turns is unsafe, the next older safe turn
/// boundary is used, so more turns are kept, never fewer. Messages before the first turn (the
/// system prompt) are never cleared. Linear in the number of messages.
pub fn clearable_range(history: &[Message], keep_turns: usize) -> Option<(usize, usize)> {
    clearable_range_in(history, keep_turns, &safe_boundaries(history))
}

/// [`clearable_range`] with the safe boundaries already computed.
pub(crate) fn clearable_range_in(
    history: &[Message],
    keep_turns: usize,
    safe: &[bool],
) -> Option<(usize, usize)> {
    let starts = turn_starts(history);
    if starts.len() <= keep_turns {
        return None;
    }
    let first = starts[0];
    if !safe.get(first).copied().unwrap_or(false) {
        return None;
    }
    // Boundary k (1 <= k <= starts.len()) keeps the turns from the k-th on; the last boundary
    // is the end of the history.
    let boundary = |k: usize| starts.get(k).copied().unwrap_or(history.len());
    let newest_cut = starts.len() - keep_turns;
    (1..=newest_cut)
        .rev()
        .map(boundary)
        .find(|&b| safe.get(b).copied().unwrap_or(false))
        .map(|b| (first, b - 1))
}
