//! Decisions that wait: the pairs a growing history gives (an older result and its re-run, an
//! earlier read and its re-read), held until the reducer decides them after the cleared range
//! of a projection is known, those skipped inside that range until it shrinks, and a resumed
//! log's reductions of them by the history index they are looked up by.

use std::collections::HashMap;

/// The pairs of one kind waiting for a decision, and a resumed log's reductions of them.
#[derive(Debug, Clone)]
pub(crate) struct Deferred<P> {
    /// Pairs found since the last decision, in the order their later messages arrived.
    pending: Vec<P>,
    /// Pairs left undecided because one of the two messages was inside the cleared range;
    /// looked at again when the range shrinks. In the order of their later messages.
    skipped: Vec<P>,
    /// A resumed log's reductions not matched yet: history index → log position.
    resumed: HashMap<usize, usize>,
}

impl<P> Default for Deferred<P> {
    fn default() -> Self {
        Deferred {
            pending: Vec::new(),
            skipped: Vec::new(),
            resumed: HashMap::new(),
        }
    }
}

impl<P> Deferred<P> {
    /// Queues `pair` for the next decision.
    pub(crate) fn push(&mut self, pair: P) {
        self.pending.push(pair);
    }

    /// The pairs to decide now, in order: when `unhidden` (the cleared range shrank), the pairs
    /// skipped earlier first (their later messages came first), then the pending ones.
    pub(crate) fn take_pairs(&mut self, unhidden: bool) -> Vec<P> {
        let mut pairs = if unhidden {
            std::mem::take(&mut self.skipped)
        } else {
            Vec::new()
        };
        pairs.append(&mut self.pending);
        pairs
    }

    /// Leaves `pair` undecided until the cleared range shrinks.
    pub(crate) fn skip(&mut self, pair: P) {
        self.skipped.push(pair);
    }

    /// Remembers a resumed log's reduction looked up by history index `index`, at log
    /// position `position`.
    pub(crate) fn resume(&mut self, index: usize, position: usize) {
        self.resumed.insert(index, position);
    }

    /// The log position of a resumed log's reduction looked up by `index`, once.
    pub(crate) fn take_resumed(&mut self, index: usize) -> Option<usize> {
        if self.resumed.is_empty() {
            return None;
        }
        self.resumed.remove(&index)
    }
}
