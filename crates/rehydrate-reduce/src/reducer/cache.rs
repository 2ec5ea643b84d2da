//! Cache-aware minting (docs/COST.md, "Cache-aware minting"): the host's [`CacheState`], the
//! reductions that wait for their batch, and the [`Batch`]es the log grows by.

use std::collections::HashSet;
use std::ops::Range;
use std::time::Duration;

use rehydrate_model::{Content, Message, Reduction, ReductionId};
use rehydrate_sidecar::stub_message;

use super::Reducer;
use crate::policy::Minting;

/// The ordinal of a reduction decided under cache-aware minting while something is cached,
/// until it is shown: the widest an ordinal gets, so a stub that saves enough with it saves
/// enough with its real one, and a decision does not depend on whether it waits.
const PROVISIONAL: usize = u32::MAX as usize;

/// What the provider's prompt cache holds when a projection is made: the host's hint to
/// [`Reducer::project_cached`], which decides whether a decided reduction may change a message
/// now (docs/COST.md, "Cache-aware minting"). Only [`Minting::CacheAware`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheState {
    /// The view as last projected is cached: the host sends the view after every projection,
    /// and sent the last one within the cache's lifetime. Every message the history held
    /// before this projection is cached.
    #[default]
    Warm,
    /// The first `n` messages of the history are cached, no later one (a host that knows where
    /// its cache breakpoints fall, or that projected without sending).
    Prefix(usize),
    /// This long has passed since the last request: cold when at least the policy's
    /// `cache_ttl`, warm otherwise.
    Idle(Duration),
    /// Nothing is cached (the lifetime passed, the model changed, the first request): every
    /// waiting reduction is shown now, since the whole prompt is written anyway.
    Cold,
}

/// One growth of the log: the reductions one projection (or [`Reducer::close`]) appended, in
/// ordinal order, and why the ones that had waited were shown then. Every reduction this
/// reducer appended belongs to exactly one ([`Reducer::batch_of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The ordinals appended, in log order.
    pub ordinals: Range<usize>,
    /// How many messages the history held at that projection.
    pub messages: usize,
    /// How many of them had waited (cache-aware minting): the rest were decided and shown in
    /// this projection (per-turn minting, messages not cached, pairing repairs).
    pub released: usize,
    /// Why the waiting reductions were shown.
    pub cause: BatchCause,
}

/// Why a [`Batch`] was shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchCause {
    /// Nothing had waited: each reduction was shown in the projection that decided it.
    Decided,
    /// The waiting reductions saved at least the policy's `min_saved_bytes`: this many bytes
    /// (UTF-8 of texts, call arguments and ids, as a batch measures them), counted when they
    /// were decided.
    Saved(usize),
    /// The cache was cold (nothing cached: a cold hint, a lifetime passed, or a reducer's
    /// first projection): everything decided and everything waiting was shown.
    Cold,
}

/// The reductions of cache-aware minting that wait for their batch.
#[derive(Debug, Clone, Default)]
pub(super) struct Held {
    /// In decision order: each reduction, with its provisional id, the bytes it saves over
    /// what the view shows, and the projection that decided it (of `projections`).
    pub(super) reductions: Vec<(Reduction, usize, u64)>,
    /// How many cache-aware projections this reducer has made: the age of a waiting
    /// reduction is counted in them.
    pub(super) projections: u64,
    /// The history indices of the held reductions: the view shows these messages as the
    /// history has them (their decided form waits in `stubs`).
    pub(super) slots: HashSet<usize>,
    /// The bytes ([`batch_bytes`]) of each message's form as a batch would show it (a waiting
    /// reduction's decided form), by history index, over the messages measured so far.
    pub(super) sizes: SizeSums,
}

/// The rent rule of a batch, as the fraction `RENT_NUMERATOR / RENT_DENOMINATOR` (11.5): the
/// waiting reductions from a message on are due, whatever they save at once, when the bytes
/// they saved have waited, summed over the projections each waited, 11.5 times the bytes the
/// batch rewrites. At Anthropic's prices each projection a byte waits costs a read (0.1x the
/// input price) and a rewrite costs a write instead of a read (1.25x - 0.1x = 1.15x): the
/// waiting has then cost as much as the rewrite (the ski-rental rule), so a long warm session
/// shows its deep reductions in time instead of never.
const RENT_NUMERATOR: u128 = 23;
/// See [`RENT_NUMERATOR`].
const RENT_DENOMINATOR: u128 = 2;

/// Numbers by position with their prefix sums (a Fenwick tree), growing at the end: the
/// message sizes [`Reducer::batch_cut`] sums from a message to the end of the history, each
/// measured once and updated in `O(log n)` when its message's form changes.
#[derive(Debug, Clone, Default)]
pub(crate) struct SizeSums {
    values: Vec<u64>,
    /// `tree[i - 1]` holds the sum of `values` over `(i - lowbit(i), i]`, 1-based.
    tree: Vec<u64>,
}

impl SizeSums {
    /// How many positions are measured (the first that many messages).
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no position is measured yet.
    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Measures the next position.
    pub(crate) fn push(&mut self, value: u64) {
        let i = self.values.len() + 1;
        let low = i & i.wrapping_neg();
        let covered = self.prefix(i - 1) - self.prefix(i - low);
        self.tree.push(covered + value);
        self.values.push(value);
    }

    /// The sum of the first `n` values.
    fn prefix(&self, n: usize) -> u64 {
        let (mut i, mut sum) = (n, 0u64);
        while i > 0 {
            sum += self.tree[i - 1];
            i &= i - 1;
        }
        sum
    }

    /// The sum of the values from position `from` on.
    pub(crate) fn suffix(&self, from: usize) -> u64 {
        self.prefix(self.values.len()) - self.prefix(from.min(self.values.len()))
    }

    /// Sets the value at `index`, if measured (a later one is measured when it is reached).
    pub(crate) fn set(&mut self, index: usize, value: u64) {
        let Some(old) = self.values.get_mut(index) else {
            return;
        };
        // The sums stay exact: every node covering `index` gains the same difference, and
        // each sum it joins is a sum of current values.
        let delta = value.wrapping_sub(*old);
        *old = value;
        let mut i = index + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] = self.tree[i - 1].wrapping_add(delta);
            i += i & i.wrapping_neg();
        }
    }
}

impl Reducer {
    /// The ordinal of a reduction decided now: its log position under per-turn minting or a
    /// cold cache, else [`PROVISIONAL`] until it is shown.
    pub(super) fn next_ordinal(&self) -> usize {
        if self.provisional {
            PROVISIONAL
        } else {
            self.log.len()
        }
    }

    /// Cache-aware minting after one projection's decisions, the log's reductions from
    /// `decided_from` on: each of a message at or after `horizon` is shown, and so is a
    /// turns-cleared range (the view shows the decided range, a function of the history and
    /// the log, so a reopened session shows what a live one shows); the others wait. Then,
    /// when the cache is cold (`horizon` 0), all are shown; else, when a message after the
    /// cached prefix arrived, the batch due, if any ([`Reducer::batch_cut`]). Returns how many had waited and why they were shown; `None`
    /// under per-turn minting or while they wait.
    pub(super) fn settle(
        &mut self,
        decided_from: usize,
        horizon: usize,
    ) -> Option<(usize, BatchCause)> {
        let Minting::CacheAware {
            min_saved_bytes,
            min_saved_per_mille,
            ..
        } = self.policy.minting
        else {
            return None;
        };
        self.held.projections += 1;
        if horizon == 0 {
            // Cold: what was decided is shown as it stands (final ids, in order); only the
            // sizes of messages measured before change, and everything waiting is shown after.
            if !self.held.sizes.is_empty() {
                let indices: Vec<usize> = self.log.reductions[decided_from..]
                    .iter()
                    .map(|r| r.ptr.addr.index)
                    .collect();
                for index in indices {
                    self.remeasure(index);
                }
            }
            return Some((self.release_from(0), BatchCause::Cold));
        }
        let decided: Vec<Reduction> = self.log.reductions.drain(decided_from..).collect();
        for r in decided {
            let index = r.ptr.addr.index;
            if index >= horizon || r.kind.cleared_range().is_some() {
                self.show(r);
                continue;
            }
            self.held.slots.insert(index);
            self.remeasure(index);
            if let Some(&anchor) = self.moved.get(&index) {
                self.refresh_moved(index, anchor);
            }
            let view = self.stubs[index].as_deref().map_or(0, batch_bytes);
            let saved = batch_bytes(&self.history[index]).saturating_sub(view);
            self.held.reductions.push((r, saved, self.held.projections));
        }
        // A batch goes with new messages: a projection whose cached prefix is the whole
        // history (a reopened session fed its recorded history, a request body's reopening)
        // shows none, so it leaves the view as it was sent.
        if horizon >= self.history.len() {
            return None;
        }
        let (cut, saved) = self.batch_cut(min_saved_bytes, min_saved_per_mille)?;
        Some((self.release_from(cut), BatchCause::Saved(saved)))
    }

    /// The first message of the batch due now, and the bytes ([`batch_bytes`]) it saves: the lowest
    /// history index of a waiting reduction such that the waiting reductions from it on save
    /// at least `min_saved_bytes` and at least `per_mille` thousandths of the bytes the
    /// view then has from that message on (what the next request writes again; each message's
    /// own form, a cleared range counted as its messages). `None` when no batch is due.
    ///
    /// Each message's size is measured once (the messages arrived since the last call
    /// now) and measured again when its form changes; the sums from each waiting reduction's
    /// message on come from [`SizeSums`], so a call costs `O(k log n)` for `k` waiting
    /// reductions, not a walk back through the history.
    fn batch_cut(&mut self, min_saved_bytes: usize, per_mille: u32) -> Option<(usize, usize)> {
        let now = self.held.projections;
        let mut waiting: Vec<(usize, usize, u64)> = self
            .held
            .reductions
            .iter()
            .map(|&(ref r, saved, since)| {
                let index = r.ptr.addr.index;
                let saved = if self.is_cleared(index) { 0 } else { saved };
                (index, saved, now - since)
            })
            .collect();
        waiting.sort_unstable();
        while self.held.sizes.len() < self.history.len() {
            let size = self.batch_form_bytes(self.held.sizes.len());
            self.held.sizes.push(size);
        }
        let (mut saved, mut rent, mut cut) = (0usize, 0u128, None);
        let mut at = waiting.len();
        while at > 0 {
            let index = waiting[at - 1].0;
            while at > 0 && waiting[at - 1].0 == index {
                at -= 1;
                saved += waiting[at].1;
                rent += waiting[at].1 as u128 * u128::from(waiting[at].2);
            }
            let rewritten = u128::from(self.held.sizes.suffix(index));
            let worth = saved as u128 * 1000 >= u128::from(per_mille) * rewritten;
            if saved >= min_saved_bytes
                && (worth || rent * RENT_DENOMINATOR >= RENT_NUMERATOR * rewritten)
            {
                cut = Some((index, saved));
            }
        }
        cut
    }

    /// The bytes ([`batch_bytes`]) of the form a batch would show of message `index`: its own
    /// reduced form (a waiting reduction's decided one), or the message.
    fn batch_form_bytes(&self, index: usize) -> u64 {
        let form = match &self.stubs[index] {
            Some(stub) => stub,
            None => &self.history[index],
        };
        batch_bytes(form) as u64
    }

    /// Measures again message `index`, whose form changed, if it is measured.
    fn remeasure(&mut self, index: usize) {
        if index < self.held.sizes.len() {
            let size = self.batch_form_bytes(index);
            self.held.sizes.set(index, size);
        }
    }

    /// Shows the waiting reductions of messages at or after history index `cut`, in history
    /// order (each addresses its own message), so a reducer that decided them in other
    /// projections (a reopened session's, fed the whole history at once) gives them the same
    /// ordinals; returns how many.
    fn release_from(&mut self, cut: usize) -> usize {
        let (mut due, wait): (Vec<_>, Vec<_>) = std::mem::take(&mut self.held.reductions)
            .into_iter()
            .partition(|(r, _, _)| r.ptr.addr.index >= cut);
        self.held.reductions = wait;
        due.sort_by_key(|(r, _, _)| r.ptr.addr.index);
        let n = due.len();
        for (r, _, _) in due {
            self.show(r);
        }
        n
    }

    /// Appends the decided reduction `r` to the log and shows it: given its ordinal when its id
    /// is provisional, with its stub and view form written again.
    fn show(&mut self, mut r: Reduction) {
        let ordinal = self.log.len();
        let renamed = r.id.ordinal() != ordinal;
        if renamed {
            let id = ReductionId::new(ordinal, &r.ptr.digest);
            r.stub = r.stub.replacen(r.id.as_str(), id.as_str(), 1);
            r.id = id;
        }
        if let Some((first, last)) = r.kind.cleared_range() {
            if renamed
                && let Some(c) = self
                    .latest_cleared
                    .as_mut()
                    .filter(|c| (c.first, c.last) == (first, last))
            {
                match stub_message(&r, &self.history[first]) {
                    Ok(view) => c.view = view,
                    Err(_) => {
                        // Cannot happen (the same reduction fitted with its provisional id);
                        // the range is then not cleared rather than shown with a wrong id.
                        self.latest_cleared = None;
                        self.cleared = None;
                        self.unhidden = true;
                        return;
                    }
                }
            }
        } else {
            let index = r.ptr.addr.index;
            self.held.slots.remove(&index);
            if renamed {
                match stub_message(&r, &self.history[index]) {
                    Ok(view) => self.stubs[index] = Some(Box::new(view)),
                    Err(_) => {
                        // As above: the message is then shown as it is.
                        self.stubs[index] = None;
                        return;
                    }
                }
            }
            self.remeasure(index);
            if let Some(&anchor) = self.moved.get(&index) {
                self.refresh_moved(index, anchor);
            }
        }
        self.log.reductions.push(r);
    }

    /// Records the log's growth since `before` as one [`Batch`].
    pub(super) fn record_batch(&mut self, before: usize, released: usize, cause: BatchCause) {
        if self.log.len() > before {
            self.batches.push(Batch {
                ordinals: before..self.log.len(),
                messages: self.history.len(),
                released,
                cause,
            });
        }
    }

    /// Every growth of the log this reducer made, in order: one [`Batch`] per projection (or
    /// [`Reducer::close`]) that appended a reduction. A resumed log's reductions belong to
    /// none.
    pub fn batches(&self) -> &[Batch] {
        &self.batches
    }

    /// The batch the reduction at `ordinal` of the log was shown in; `None` for a resumed
    /// log's reduction or an ordinal past the log.
    pub fn batch_of(&self, ordinal: usize) -> Option<&Batch> {
        let at = self.batches.partition_point(|b| b.ordinals.end <= ordinal);
        self.batches
            .get(at)
            .filter(|b| b.ordinals.contains(&ordinal))
    }

    /// How many decided reductions wait for their batch (cache-aware minting), and the bytes
    /// (UTF-8 of texts, call arguments and ids, escapes not counted) they would save together
    /// when shown (one inside the cleared range saves
    /// nothing more: the range hides its message).
    pub fn waiting(&self) -> (usize, usize) {
        let bytes = self
            .held
            .reductions
            .iter()
            .filter(|(r, _, _)| !self.is_cleared(r.ptr.addr.index))
            .map(|(_, saved, _)| saved)
            .sum();
        (self.held.reductions.len(), bytes)
    }

    /// Whether the decided reduction of message `index` waits for its batch.
    pub(super) fn is_held(&self, index: usize) -> bool {
        !self.held.slots.is_empty() && self.held.slots.contains(&index)
    }
}

/// The bytes cache-aware minting measures a message by: the UTF-8 bytes of its text, its tool
/// calls' names and arguments and its tool call id, what its wire form spends its bytes on,
/// without the JSON around them or their escapes; a message with content parts, by its wire
/// length. Constant time for a text message (a batch measures every message once, and each
/// waiting reduction twice), where the wire length scans the text.
fn batch_bytes(m: &Message) -> usize {
    let content = match &m.content {
        None => 0,
        Some(Content::Text(text)) => text.len(),
        Some(Content::Parts(_)) => return m.wire_len(),
    };
    let calls: usize = m
        .tool_calls
        .iter()
        .map(|c| c.id.len() + c.name.len() + c.arguments.len())
        .sum();
    content + calls + m.tool_call_id.as_ref().map_or(0, String::len)
}
