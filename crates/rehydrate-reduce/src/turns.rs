//! Turns, and which old turns can be cleared without separating a tool call from its result.

use std::collections::HashMap;

use rehydrate_model::Message;

/// Indices of the messages that open a turn: user messages written by a person (not
/// observations), in order.
pub fn turn_starts(history: &[Message]) -> Vec<usize> {
    history
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_turn_start())
        .map(|(i, _)| i)
        .collect()
}

/// The inclusive range `(first, last)` of messages to clear so that only the newest
/// `keep_turns` turns stay, or `None` when fewer turns exist or no safe boundary does.
///
/// The range starts at the first turn and ends just before a turn start. A boundary is safe
/// when no tool call before it has its result at or after it (matched by `tool_call_id`); when
/// the boundary that keeps exactly `keep_turns` turns is unsafe, the next older safe turn
/// boundary is used, so more turns are kept, never fewer. Messages before the first turn (the
/// system prompt) are never cleared. Linear in the number of messages.
pub fn clearable_range(history: &[Message], keep_turns: usize) -> Option<(usize, usize)> {
    let starts = turn_starts(history);
    if starts.len() <= keep_turns {
        return None;
    }
    let first = starts[0];
    // crossing[b] > 0 when some call/result pair spans boundary b (call < b <= result).
    let mut diff = vec![0i64; history.len() + 2];
    let mut call_at: HashMap<&str, usize> = HashMap::new();
    for (i, m) in history.iter().enumerate() {
        for c in &m.tool_calls {
            call_at.insert(c.id.as_str(), i);
        }
        if let Some(id) = &m.tool_call_id
            && let Some(&c) = call_at.get(id.as_str())
        {
            diff[c + 1] += 1;
            diff[i + 1] -= 1;
        }
    }
    let mut crossing = Vec::with_capacity(history.len() + 1);
    let mut acc = 0;
    for d in &diff[..=history.len()] {
        acc += d;
        crossing.push(acc);
    }
    // Boundary k (1 <= k <= starts.len()) keeps the turns from the k-th on; the last boundary
    // is the end of the history.
    let boundary = |k: usize| starts.get(k).copied().unwrap_or(history.len());
    let newest_cut = starts.len() - keep_turns;
    (1..=newest_cut)
        .rev()
        .map(boundary)
        .find(|&b| crossing[b] == 0)
        .map(|b| (first, b - 1))
}
