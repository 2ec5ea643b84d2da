//! Re-runs: which older tool results a newer result of the same call supersedes
//! (docs/FORMATS.md, "Superseded results"), tracked as the history grows.
//!
//! Each tool result that answers its call in place is keyed by its call's tool name and
//! canonical arguments (`rehydrate_sidecar::rerun_key`). The key remembers the latest assistant
//! message that made such a call and its results; a result of a later assistant message with
//! the same key pairs with each of them (older, later), and becomes the latest. Parallel calls
//! of one message never pair with each other. The pairs are decided by the reducer after the
//! cleared range of the projection is known (`Reducer::decide_pairs`, in the order their later results arrived, with re-reads), so a decision
//! depends on the history prefix and the log alone, however the messages were fed.

use std::collections::{HashMap, HashSet};

use crate::deferred::Deferred;
use rehydrate_model::{Digest, Message};
use rehydrate_sidecar::{CommandFields, answered_call, rerun_key};

/// An older tool result and a later result of the same call, by history index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pair {
    /// The result that may be superseded.
    pub(crate) older: usize,
    /// The later result that stands in the view.
    pub(crate) later: usize,
}

/// The latest assistant message that made a call with one key, and the results of its calls
/// with that key, ascending.
#[derive(Debug, Clone)]
struct Latest {
    call_message: usize,
    results: Vec<usize>,
}

/// The re-run state of a growing history.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reruns {
    /// By rerun key: the latest call message with that key and its results.
    latest: HashMap<Digest, Latest>,
    /// The pairs waiting for a decision, and a resumed log's reductions of them (by the
    /// history index of the older result).
    pub(crate) deferred: Deferred<Pair>,
    /// The results hidden whole behind a later one (superseded results, elided and diffed
    /// reads): never the canonical copy of a duplicate.
    hidden_whole: HashSet<usize>,
    /// The results a duplicate of the log names as its canonical copy: never superseded, so a
    /// duplicate's bytes stay in the view.
    canonicals: HashSet<usize>,
}

impl Reruns {
    /// Takes the tool result at `index` of `history` (its last message so far), which pairing
    /// found answering its call in place: queues a pair for each result of the latest earlier
    /// call message with the same key. A result whose call is not found in place, or whose
    /// arguments have no canonical form, takes no part.
    pub(crate) fn arrive(&mut self, history: &[Message], index: usize, command_fields: &[String]) {
        let Some((call_message, call)) = answered_call(history, index) else {
            return;
        };
        let Some(key) = rerun_key(call, CommandFields::Named(command_fields)) else {
            return;
        };
        match self.latest.get_mut(&key) {
            Some(latest) if latest.call_message == call_message => latest.results.push(index),
            Some(latest) => {
                for &older in &latest.results {
                    self.deferred.push(Pair {
                        older,
                        later: index,
                    });
                }
                *latest = Latest {
                    call_message,
                    results: vec![index],
                };
            }
            None => {
                self.latest.insert(
                    key,
                    Latest {
                        call_message,
                        results: vec![index],
                    },
                );
            }
        }
    }

    /// Marks the result at `index` as hidden whole behind a later one in the view.
    pub(crate) fn mark_hidden_whole(&mut self, index: usize) {
        self.hidden_whole.insert(index);
    }

    /// Whether the result at `index` is hidden whole behind a later one in the view.
    pub(crate) fn is_hidden_whole(&self, index: usize) -> bool {
        !self.hidden_whole.is_empty() && self.hidden_whole.contains(&index)
    }

    /// Whether any result is hidden whole behind a later one in the view.
    pub(crate) fn any_hidden_whole(&self) -> bool {
        !self.hidden_whole.is_empty()
    }

    /// Marks the result at `index` as the canonical copy of a duplicate.
    pub(crate) fn name_canonical(&mut self, index: usize) {
        self.canonicals.insert(index);
    }

    /// Whether a duplicate names the result at `index` as its canonical copy.
    pub(crate) fn is_canonical(&self, index: usize) -> bool {
        self.canonicals.contains(&index)
    }
}
