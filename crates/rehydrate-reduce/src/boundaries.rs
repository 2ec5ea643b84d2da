//! Safe boundaries and turn starts of a growing history, kept up to date message by message.
//!
//! This is the incremental form of [`crate::safe_boundaries`] and [`crate::clearable_range`]:
//! each appended message costs O(1) amortized (plus O(log n) for the call it opens or
//! answers), and the clearable range is found by a binary search.

use rehydrate_model::{Message, Role};

/// What is known of a growing history's boundaries.
///
/// A boundary `b` is *final* once every call before it has its result or was abandoned (an
/// assistant message came after it first): results that arrive later cannot cross it. Final boundaries are kept in `safe`; boundaries after the oldest
/// pending call are unsafe until it is answered (and those it crosses stay unsafe).
#[derive(Debug, Clone)]
pub(crate) struct Boundaries {
    /// Number of messages seen.
    len: usize,
    /// Pending calls: call id → index of the message holding the call. A later call with the
    /// same id replaces the earlier one, which is forgotten (as in [`crate::safe_boundaries`]).
    /// Pending calls: the call ids of the latest assistant message that are not answered yet,
    /// with that message's index (a later assistant message abandons them, so there are only
    /// ever a few: a list, searched by id, not a map).
    pending: Vec<(String, usize)>,
    /// Number of pending calls per message index, to find the oldest pending call.
    pending_at: Vec<u32>,
    /// No message before this index holds a pending call. New calls are made by the newest
    /// message, so it only moves forward.
    oldest_pending: usize,
    /// `diff[b]`: how many call/result pairs start crossing at boundary `b`, minus how many
    /// stop; a boundary is safe when the running sum is 0.
    diff: Vec<i64>,
    /// Safety of the final boundaries `0..safe.len()`.
    safe: Vec<bool>,
    /// Running sum of `diff` over the final boundaries.
    crossing: i64,
    /// Indices of the messages that open a turn, ascending.
    turn_starts: Vec<usize>,
    /// How many of `turn_starts` have been checked against the final boundaries.
    starts_checked: usize,
    /// Turn positions `k >= 1` whose start `turn_starts[k]` is a final safe boundary, ascending.
    safe_turns: Vec<usize>,
    /// Indices of the messages holding an agent's compaction summary
    /// ([`rehydrate_formats::is_compaction_summary`]), ascending.
    compactions: Vec<usize>,
}

impl Boundaries {
    /// The boundaries of an empty history: its one boundary is safe.
    pub(crate) fn new() -> Boundaries {
        let mut boundaries = Boundaries {
            len: 0,
            pending: Vec::new(),
            pending_at: Vec::new(),
            oldest_pending: 0,
            diff: vec![0],
            safe: Vec::new(),
            crossing: 0,
            turn_starts: Vec::new(),
            starts_checked: 0,
            safe_turns: Vec::new(),
            compactions: Vec::new(),
        };
        boundaries.finalize();
        boundaries
    }

    /// Reserves room for `additional` more messages.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.diff.reserve(additional);
        self.safe.reserve(additional);
        self.pending_at.reserve(additional);
    }

    /// Takes the next message of the history; `folded` are the positions of its calls that
    /// are folded (`rehydrate_formats::unsendable_calls`), which nothing answers.
    pub(crate) fn push(&mut self, message: &Message, folded: &[usize]) {
        let i = self.len;
        self.len += 1;
        self.diff.resize(self.len + 1, 0);
        self.pending_at.push(0);
        if message.is_turn_start() {
            self.turn_starts.push(i);
        }
        if rehydrate_formats::is_compaction_summary(message) {
            self.compactions.push(i);
        }
        if message.role == Role::Assistant && !rehydrate_formats::left_out_of_bodies(message) {
            // The model was called again: a call still pending will get no result (the view
            // gives it a synthetic one right after it), so it crosses no later boundary.
            for (_, call) in self.pending.drain(..) {
                self.pending_at[call] -= 1;
            }
        }
        if message.role == Role::Tool
            && let Some(id) = &message.tool_call_id
            && let Some(k) = self.pending.iter().position(|(p, _)| p == id)
        {
            let (_, call) = self.pending.swap_remove(k);
            self.forget_pending(call);
            self.diff[call + 1] += 1;
            self.diff[i + 1] -= 1;
        }
        // Only an assistant message makes calls (as in the pairing repairs).
        let calls = if message.role == Role::Assistant {
            message.tool_calls.as_slice()
        } else {
            &[]
        };
        for (_, c) in calls
            .iter()
            .enumerate()
            .filter(|(k, _)| !folded.contains(k))
        {
            if let Some(k) = self.pending.iter().position(|(p, _)| *p == c.id) {
                // A later call with the same id replaces the earlier one, which is forgotten.
                let (_, replaced) = self.pending.swap_remove(k);
                self.forget_pending(replaced);
            }
            self.pending.push((c.id.clone(), i));
            self.pending_at[i] += 1;
        }
        self.finalize();
    }

    fn forget_pending(&mut self, index: usize) {
        self.pending_at[index] -= 1;
    }

    /// Makes every boundary up to the oldest pending call (or the end) final.
    fn finalize(&mut self) {
        while self.oldest_pending < self.len && self.pending_at[self.oldest_pending] == 0 {
            self.oldest_pending += 1;
        }
        let frontier = self.oldest_pending;
        while self.safe.len() <= frontier {
            self.crossing += self.diff[self.safe.len()];
            self.safe.push(self.crossing == 0);
        }
        while let Some(&start) = self.turn_starts.get(self.starts_checked)
            && start < self.safe.len()
        {
            if self.starts_checked >= 1 && self.safe[start] {
                self.safe_turns.push(self.starts_checked);
            }
            self.starts_checked += 1;
        }
    }

    /// Whether clearing may start or end at boundary `b` ([`crate::safe_boundaries`]).
    pub(crate) fn is_safe(&self, b: usize) -> bool {
        self.safe.get(b).copied().unwrap_or(false)
    }

    /// The messages each agent's compaction of the history seen so far replaced, with its
    /// summary, for the summaries after `after`, in history order: `(first, s)`, where `first`
    /// is the first message that opens a turn and `s` the summary message, for each summary
    /// after `first` whose range starts and ends at final safe boundaries (no call before it
    /// is answered after it; a compaction whose range a call crosses is never followed, and a
    /// summary whose boundary is not final yet, a call before it still pending, waits).
    pub(crate) fn compaction_ranges(&self, after: Option<usize>) -> Vec<(usize, usize)> {
        let Some(&first) = self.turn_starts.first() else {
            return Vec::new();
        };
        if !self.is_safe(first) {
            return Vec::new();
        }
        let from = self
            .compactions
            .partition_point(|&s| s <= first || after.is_some_and(|a| s <= a));
        self.compactions[from..]
            .iter()
            .filter(|&&s| self.is_safe(s + 1))
            .map(|&s| (first, s))
            .collect()
    }

    /// [`crate::clearable_range`] of the history seen so far.
    pub(crate) fn clearable_range(&self, keep_turns: usize) -> Option<(usize, usize)> {
        let starts = &self.turn_starts;
        if starts.len() <= keep_turns {
            return None;
        }
        let first = starts[0];
        if !self.is_safe(first) {
            return None;
        }
        let newest_cut = starts.len() - keep_turns;
        if newest_cut == starts.len() && self.is_safe(self.len) {
            return Some((first, self.len - 1));
        }
        // The newest safe turn boundary k with 1 <= k <= newest_cut (k < starts.len() here).
        let below = self.safe_turns.partition_point(|&k| k <= newest_cut);
        let k = *self.safe_turns[..below].last()?;
        Some((first, starts[k] - 1))
    }
}
