//! Re-reads: which earlier whole read of a file a later whole read of the same path pairs with
//! (docs/FORMATS.md, "Re-reads"), tracked as the history grows.
//!
//! Each tool result in place whose details prove a whole read (`rehydrate_sidecar::whole_read`)
//! pairs with the latest earlier whole read of the same path (exact path string), whatever
//! happened to that earlier read since; it then becomes the path's latest read. The reducer
//! decides the pairs after the cleared range is known and before re-runs are superseded
//! (`Reducer::decide_pairs`, in the order their later messages arrived, with re-runs): the earlier read is elided when both served the same content,
//! or the later read shows a diff against it; either only while the earlier read is whole in
//! the view. A decision depends on the history prefix and the log alone.

use std::collections::{HashMap, HashSet};

use crate::deferred::Deferred;
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
    /// The pairs waiting for a decision, and a resumed log's reductions of them (by the
    /// history index of the later).
    pub(crate) deferred: Deferred<ReadPair>,
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
            self.deferred.push(ReadPair {
                earlier: *earlier,
                later: index,
            });
            *earlier = index;
        } else {
            self.latest.insert(path.to_string(), index);
        }
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
