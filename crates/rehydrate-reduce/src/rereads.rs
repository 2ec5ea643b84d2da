//! Re-reads: which earlier whole read of a file a later whole read of the same path pairs with
//! (docs/FORMATS.md, "Re-reads"), tracked as the history grows.
//!
//! Each tool result in place whose details prove a whole read (`rehydrate_sidecar::whole_read`)
//! pairs with the latest earlier whole read of the same path (exact path string), whatever
//! happened to that earlier read since; it then becomes the path's latest read. The reducer
//! decides the pairs after the cleared range is known and before re-runs are superseded
//! (`Reducer::decide_rereads`): the earlier read is elided when both served the same content,
//! or the later read shows a diff against it; either only while the earlier read is whole in
//! the view. A decision depends on the history prefix and the log alone.

use std::collections::{HashMap, HashSet};

use rehydrate_model::Message;
use rehydrate_sidecar::whole_read;

/// An earlier whole read and a later whole read of the same path, by history index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadPair {
    /// The earlier read: elided, or the base of the later read's diff.
    pub(crate) earlier: usize,
    /// The later read: stands in the view, or shows the diff.
    pub(crate) later: usize,
}

/// The re-read state of a growing history.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rereads {
    /// By path: the latest whole read so far.
    latest: HashMap<String, usize>,
    /// Pairs found since the last decision, in the order their later reads arrived.
    pending: Vec<ReadPair>,
    /// Pairs left undecided because one of the two reads was inside the cleared range;
    /// looked at again when the range shrinks.
    skipped: Vec<ReadPair>,
    /// A resumed log's elided and diffed reads not matched yet: history index of the later
    /// read → log position.
    resumed: HashMap<usize, usize>,
    /// The reads that are the base of a diff: never superseded.
    bases: HashSet<usize>,
}

impl Rereads {
    /// Takes the tool result at `index` of `history` (its last message so far), which pairing
    /// found answering its call in place: when it is a whole read, queues a pair with the
    /// path's latest earlier whole read, and becomes the latest.
    pub(crate) fn arrive(&mut self, history: &[Message], index: usize) {
        let Some((path, _)) = history.get(index).and_then(whole_read) else {
            return;
        };
        if let Some(earlier) = self.latest.get_mut(path) {
            self.pending.push(ReadPair {
                earlier: *earlier,
                later: index,
            });
            *earlier = index;
        } else {
            self.latest.insert(path.to_string(), index);
        }
    }

    /// The pairs to decide now, in order: when `unhidden`, the pairs skipped earlier first,
    /// then the pending ones.
    pub(crate) fn take_pairs(&mut self, unhidden: bool) -> Vec<ReadPair> {
        let mut pairs = if unhidden {
            std::mem::take(&mut self.skipped)
        } else {
            Vec::new()
        };
        pairs.append(&mut self.pending);
        pairs
    }

    /// Leaves `pair` undecided until the cleared range shrinks.
    pub(crate) fn skip(&mut self, pair: ReadPair) {
        self.skipped.push(pair);
    }

    /// Remembers a resumed log's elided or diffed read whose later read is at `later`, at log
    /// position `position`.
    pub(crate) fn resume(&mut self, later: usize, position: usize) {
        self.resumed.insert(later, position);
    }

    /// The log position of a resumed log's reduction whose later read is at `later`, once.
    pub(crate) fn take_resumed(&mut self, later: usize) -> Option<usize> {
        if self.resumed.is_empty() {
            return None;
        }
        self.resumed.remove(&later)
    }

    /// Marks the read at `index` as the base of a diff.
    pub(crate) fn mark_base(&mut self, index: usize) {
        self.bases.insert(index);
    }

    /// Whether the read at `index` is the base of a diff.
    pub(crate) fn is_base(&self, index: usize) -> bool {
        !self.bases.is_empty() && self.bases.contains(&index)
    }
}
