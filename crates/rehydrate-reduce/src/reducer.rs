//! [`Reducer`]: the projection of a growing session, updated turn by turn.

use std::collections::{BTreeMap, HashMap};

use rehydrate_model::{
    Content, Digest, HiddenImage, ImagePlace, Message, MessageAddr, Reduction, ReductionId,
    ReductionKind, ReductionLog, Role, SidecarPtr, json_str_len,
};
use rehydrate_sidecar::{
    RangeScan, argument_fields, content_digest, diff_within_share, expected_stub,
    expected_stub_from_facts, hidden_images_text, image_data, image_size, moved_message,
    normalize_terminal, reread_diff, stub_message, turns_digest, verify_reduction, whole_read,
};

use crate::boundaries::Boundaries;
use crate::cut::truncation_span;
use crate::digests::DigestCache;
use crate::images::Images;
use crate::pairing::{Abandoned, Decision, Pairing, unsendable_batch};
use crate::policy::{Minting, ReductionPolicy};
use crate::rereads::{ReadPair, Rereads};
use crate::superseded::{Pair, Reruns};
use crate::window::Window;

mod cache;

use cache::Held;
#[cfg(test)]
pub(crate) use cache::SizeSums;
pub use cache::{Batch, BatchCause, CacheState};

/// The projection state of one session: its history (the sidecar), its reduction log and its
/// current view, updated as the session grows.
///
/// An agent calls [`Reducer::project`] before every model call with the messages added since
/// the last call. The work done is proportional to those new messages plus the reductions that
/// change: each tool result is hashed once when it arrives (a text repeated from an earlier one
/// is compared with it instead and takes its digest) and decided once when it leaves the
/// protected window (or superseded once when a re-run of its call arrives, under
/// `supersede_reruns`); an assistant message with text is decided once when it leaves its own
/// protected window (and hashed then only if it is truncated); a turns-cleared range that grows
/// hashes only the messages it gains. The
/// untouched history is never hashed again, copied or walked. The view borrows from the
/// history ([`View`]), so a message that is not reduced is never cloned.
///
/// Each call (with [`Reducer::close`] after it) gives exactly what [`crate::project_messages`]
/// gives for the whole history and the log of the previous call: feeding a session turn by
/// turn and calling the one-shot form on each growing prefix mint the same reductions with the
/// same ids and the same view. The view is a valid OpenAI and Anthropic request body whatever
/// the session's defects, through the pairing repairs (docs/FORMATS.md, "Pairing repairs"),
/// which are minted as the messages that need them arrive; only a call still waiting for its
/// result at the end is left as it is until [`Reducer::close`] or the next assistant message.
///
/// # Example
///
/// ```
/// use std::time::Duration;
///
/// use rehydrate_model::{Message, Role};
/// use rehydrate_reduce::{CacheState, Minting, ReductionPolicy, Reducer};
///
/// let big = "log line\n".repeat(2000); // 18000 bytes
/// let turn = |i: usize| {
///     let call = Message::tool_call(format!("c{i}"), "bash", "{}");
///     [call, Message::tool_result(format!("c{i}"), big.clone())]
/// };
/// // Per turn: the oldest result leaves the protected window at the fourth turn and is
/// // truncated in that projection, inside the prefix the provider has cached.
/// let per_turn = ReductionPolicy { minting: Minting::PerTurn, ..ReductionPolicy::default() };
/// let mut reducer = Reducer::new(per_turn);
/// reducer.project([Message::text(Role::User, "build it")]);
/// for i in 0..4 {
///     assert_eq!(reducer.project(turn(i)), usize::from(i == 3));
/// }
/// let view = reducer.view();
/// assert_eq!(view.len(), 9);
/// assert!(view.get(2).unwrap().content_text().unwrap().contains("[rehydrate:tool-output r0."));
///
/// // Cache-aware (the default): the truncation saves less than a batch, so it waits and the
/// // view stays as sent, until the cache has gone cold anyway.
/// let mut reducer = Reducer::new(ReductionPolicy::default());
/// reducer.project([Message::text(Role::User, "build it")]);
/// for i in 0..4 {
///     assert_eq!(reducer.project(turn(i)), 0);
/// }
/// assert_eq!(reducer.waiting().0, 1);
/// assert_eq!(reducer.view().get(2).unwrap().content_text(), Some(big.as_str()));
/// let idle = CacheState::Idle(Duration::from_secs(600));
/// assert_eq!(reducer.project_cached([Message::text(Role::User, "and test it")], idle), 1);
/// assert!(reducer.view().get(2).unwrap().content_text().unwrap().contains("[rehydrate:tool-output r0."));
/// ```
#[derive(Debug, Clone)]
pub struct Reducer {
    policy: ReductionPolicy,
    history: Vec<Message>,
    log: ReductionLog,
    /// Index-parallel to `history`: the view form of a message reduced on its own.
    stubs: Vec<Option<Box<Message>>>,
    /// Every tool result, in history order, with the digest of its text (if it has text) and
    /// whether it has been decided.
    tool_results: Vec<ToolResult>,
    /// How many of `tool_results` are decided (every one before this position was decided or
    /// was inside the cleared range when it left the protected window).
    decided: usize,
    /// Every assistant message with text, in history order: the protected window of assistant
    /// text counts these.
    assistant_texts: Window,
    /// Every assistant message that makes tool calls, in history order: the protected window
    /// of tool-input elision counts these.
    tool_inputs: Window,
    /// Text tool results by digest: their indices, ascending.
    by_digest: HashMap<Digest, Occurrences, BuildDigestHasher>,
    boundaries: Boundaries,
    /// The digests of the tool-result texts seen so far, so a repeated text is not hashed.
    digests: DigestCache,
    /// The latest turns-cleared reduction of the log that this reducer trusts (minted by it,
    /// or taken from a resumed log after it verified), with its view message.
    latest_cleared: Option<Cleared>,
    /// A resumed log's latest turns-cleared reduction not verified yet (its range may not have
    /// arrived): its log position.
    resumed_cleared: Option<usize>,
    /// The range cleared in the current view.
    cleared: Option<(usize, usize)>,
    /// The summary message of the latest agent's compaction decided (minted, or passed over
    /// for a turns-cleared range reaching past it); later ones are decided in order.
    compacted: Option<usize>,
    /// Set when the cleared range shrank, so skipped tool results and assistant texts must be
    /// looked at again.
    unhidden: bool,
    /// Incremental digest and facts of the range being cleared.
    range: RangeScan,
    /// A resumed log's per-message reductions not yet matched: history index → log position.
    resumed: HashMap<usize, usize>,
    /// Which tool result answers which call, message by message.
    pairing: Pairing,
    /// The pairing repairs of the log (minted here, or a resumed log's): what they repair →
    /// log position, and whether they are trusted (minted here, or verified once).
    repairs: HashMap<RepairKey, (usize, bool)>,
    /// What the view shows after a history message besides the message itself: moved results
    /// and synthetic results of abandoned calls, keyed by that message's index.
    extras: BTreeMap<usize, Extras>,
    /// Moved results: history index → the anchor whose extras show it.
    moved: HashMap<usize, usize>,
    /// Synthetic results in `extras`, in all.
    synthetic: usize,
    /// The synthetic results [`Reducer::close`] gave the latest assistant message's
    /// unanswered calls, after the anchor; dropped by the next [`Reducer::project`].
    closing: Option<(usize, Vec<Message>)>,
    /// The user message put before the assistant message at this index, which opens a
    /// conversation without one.
    opening: Option<(usize, Message)>,
    /// Re-runs: results of one call by key, and the pairs (older, later) to decide.
    reruns: Reruns,
    /// Re-reads: the latest whole read of each path, and the pairs (earlier, later) to decide.
    rereads: Rereads,
    /// The user messages and tool results with inline images over the image trigger.
    images: Images,
    /// Cache-aware minting: the decided reductions of cached messages not shown yet.
    held: Held,
    /// Whether the reductions decided now get a provisional id (cache-aware minting: their
    /// ordinal is known only when they are shown).
    provisional: bool,
    /// Every projection (and close) that grew the log, in order.
    batches: Vec<Batch>,
}

/// What a pairing repair repairs, to find it again in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum RepairKey {
    /// Call `position` of assistant message `index` got no result.
    Unanswered { index: usize, position: usize },
    /// The tool result at `index` is hidden (orphan result or second answer).
    Hidden(usize),
    /// The tool result at `index` is moved.
    Moved(usize),
    /// Calls of the assistant message at `index` are folded.
    Folded(usize),
    /// A user message opens the conversation before the assistant message at `index`.
    Opening(usize),
}

impl RepairKey {
    fn of(r: &Reduction) -> Option<RepairKey> {
        let index = r.ptr.addr.index;
        match r.kind {
            ReductionKind::UnansweredCall { call, .. } => Some(RepairKey::Unanswered {
                index,
                position: call,
            }),
            ReductionKind::OrphanResult { .. } | ReductionKind::SecondAnswer { .. } => {
                Some(RepairKey::Hidden(index))
            }
            ReductionKind::MovedResult { .. } => Some(RepairKey::Moved(index)),
            ReductionKind::FoldedCalls { .. } => Some(RepairKey::Folded(index)),
            ReductionKind::ConversationOpened { .. } => Some(RepairKey::Opening(index)),
            ReductionKind::ToolOutputTruncated { .. }
            | ReductionKind::AssistantTextTruncated { .. }
            | ReductionKind::DuplicateOutput { .. }
            | ReductionKind::TurnsCleared { .. }
            | ReductionKind::Compaction { .. }
            | ReductionKind::ToolInputElided { .. } => None,
            ReductionKind::Superseded { .. } => None,
            ReductionKind::FileReadElided { .. }
            | ReductionKind::FileReadDiffed { .. }
            | ReductionKind::OutputNormalized { .. }
            | ReductionKind::ImageRedacted { .. } => None,
        }
    }
}

/// The messages the view shows after one history message (its anchor).
#[derive(Debug, Clone, Default)]
struct Extras {
    /// Moved results, in arrival order: history index and view form.
    moved: Vec<(usize, Message)>,
    /// Synthetic results of abandoned calls, in call order.
    synthetic: Vec<Message>,
}

/// Hashes a [`Digest`] key by its first 8 bytes: a blake3 digest is already uniformly
/// distributed, so hashing it again (SipHash over 32 bytes) buys nothing.
#[derive(Debug, Clone, Copy, Default)]
struct BuildDigestHasher;

impl std::hash::BuildHasher for BuildDigestHasher {
    type Hasher = DigestHasher;

    fn build_hasher(&self) -> DigestHasher {
        DigestHasher(0)
    }
}

/// See [`BuildDigestHasher`]; the length prefix a slice writes first is ignored.
#[derive(Debug, Clone, Copy)]
struct DigestHasher(u64);

impl std::hash::Hasher for DigestHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut word = [0u8; 8];
        let n = bytes.len().min(8);
        word[..n].copy_from_slice(&bytes[..n]);
        self.0 ^= u64::from_le_bytes(word);
    }

    fn write_usize(&mut self, _length_prefix: usize) {}
}

/// The indices of the text tool results with one digest, ascending; the first is kept inline
/// so a distinct output costs no allocation.
#[derive(Debug, Clone)]
struct Occurrences {
    first: usize,
    later: Vec<usize>,
}

#[derive(Debug, Clone, Copy)]
struct ToolResult {
    index: usize,
    digest: Option<Digest>,
    /// Set when the result was left inside the cleared range instead of being decided.
    skipped: bool,
}

/// The latest range the view shows as one stub message: turns cleared, or an agent's
/// compaction (`compaction`, whose `summary` is the agent's).
#[derive(Debug, Clone)]
struct Cleared {
    first: usize,
    last: usize,
    compaction: bool,
    summary: Option<String>,
    view: Message,
}

impl Reducer {
    /// A reducer for a new session, with an empty history and log.
    pub fn new(policy: ReductionPolicy) -> Reducer {
        Reducer::resume(policy, ReductionLog::default())
    }

    /// A reducer that continues from `log`, the reduction log of earlier projections of the
    /// same session (for example, read from a session directory), with an empty history. The
    /// history is then fed with [`Reducer::project`]: as in [`crate::project_messages`], a
    /// logged reduction is reused while it verifies against the history, and a new decision
    /// is made for a message whose logged reduction does not.
    pub fn resume(policy: ReductionPolicy, log: ReductionLog) -> Reducer {
        Reducer::resume_with(policy, log, true)
    }

    /// [`Reducer::resume`] that reuses only the pairing repairs of `log` (and keeps the rest of
    /// it, so every id still resolves): the reducer of [`crate::repair_session`].
    pub(crate) fn resume_repairs(log: ReductionLog) -> Reducer {
        Reducer::resume_with(ReductionPolicy::repairs_only(), log, false)
    }

    fn resume_with(policy: ReductionPolicy, log: ReductionLog, reuse_all: bool) -> Reducer {
        let mut resumed = HashMap::new();
        let mut resumed_cleared = None;
        // A resumed log's compactions are decided: only later ones are minted.
        let compacted = log
            .reductions
            .iter()
            .filter(|_| reuse_all)
            .filter_map(|r| match r.kind {
                ReductionKind::Compaction { last, .. } => Some(last),
                _ => None,
            })
            .max();
        let mut repairs = HashMap::new();
        let mut reruns = Reruns::default();
        let mut rereads = Rereads::default();
        for (position, r) in log.reductions.iter().enumerate() {
            match r.kind {
                ReductionKind::TurnsCleared { .. } | ReductionKind::Compaction { .. }
                    if reuse_all =>
                {
                    resumed_cleared = Some(position);
                }
                ReductionKind::ToolOutputTruncated { .. }
                | ReductionKind::AssistantTextTruncated { .. }
                | ReductionKind::DuplicateOutput { .. }
                | ReductionKind::ToolInputElided { .. }
                | ReductionKind::OutputNormalized { .. }
                | ReductionKind::ImageRedacted { .. }
                    if reuse_all =>
                {
                    resumed.insert(r.ptr.addr.index, position);
                }
                ReductionKind::Superseded { .. } if reuse_all => {
                    reruns.deferred.resume(r.ptr.addr.index, position);
                }
                ReductionKind::FileReadElided { by, .. } if reuse_all => {
                    rereads.deferred.resume(by.index, position);
                }
                ReductionKind::FileReadDiffed { .. } if reuse_all => {
                    rereads.deferred.resume(r.ptr.addr.index, position);
                }
                ReductionKind::TurnsCleared { .. }
                | ReductionKind::Compaction { .. }
                | ReductionKind::ToolOutputTruncated { .. }
                | ReductionKind::AssistantTextTruncated { .. }
                | ReductionKind::DuplicateOutput { .. }
                | ReductionKind::ToolInputElided { .. }
                | ReductionKind::Superseded { .. }
                | ReductionKind::FileReadElided { .. }
                | ReductionKind::FileReadDiffed { .. }
                | ReductionKind::OutputNormalized { .. }
                | ReductionKind::ImageRedacted { .. } => {}
                ReductionKind::UnansweredCall { .. }
                | ReductionKind::OrphanResult { .. }
                | ReductionKind::SecondAnswer { .. }
                | ReductionKind::MovedResult { .. }
                | ReductionKind::FoldedCalls { .. }
                | ReductionKind::ConversationOpened { .. } => {
                    if let Some(key) = RepairKey::of(r) {
                        repairs.insert(key, (position, false));
                    }
                }
            }
        }
        Reducer {
            policy,
            history: Vec::new(),
            log,
            stubs: Vec::new(),
            tool_results: Vec::new(),
            decided: 0,
            assistant_texts: Window::default(),
            tool_inputs: Window::default(),
            by_digest: HashMap::default(),
            boundaries: Boundaries::new(),
            digests: DigestCache::default(),
            latest_cleared: None,
            resumed_cleared,
            cleared: None,
            compacted,
            unhidden: false,
            range: RangeScan::default(),
            resumed,
            pairing: Pairing::default(),
            repairs,
            extras: BTreeMap::new(),
            moved: HashMap::new(),
            synthetic: 0,
            closing: None,
            opening: None,
            reruns,
            rereads,
            images: Images::default(),
            held: Held::default(),
            provisional: false,
            batches: Vec::new(),
        }
    }

    /// Appends `new_messages` to the history and brings the view and the log up to date;
    /// returns how many reductions this call appended to [`Reducer::log`] (the last ones).
    /// The same as [`Reducer::project_cached`] with [`CacheState::Warm`]: the host sends the
    /// view after every projection.
    ///
    /// Under [`Minting::PerTurn`] (or a cold cache), one call followed by [`Reducer::close`]
    /// gives the view and log that [`crate::project_messages`] gives for the whole history and
    /// the log as it was before the call (without `close`, a trailing call still waiting for
    /// its result is left as it is). Its cost is linear in the bytes of the new messages plus
    /// the tool results leaving the protected window and the messages a growing turns-cleared
    /// range gains; the rest of the history is not touched. When the new tool results hold
    /// more than [`crate::PARALLEL_HASH_MIN_BYTES`], they are hashed on up to 8 threads, and so
    /// are the new calls' arguments checked (a whole session at once); a turn is done on the
    /// calling thread.
    pub fn project(&mut self, new_messages: impl IntoIterator<Item = Message>) -> usize {
        self.project_cached(new_messages, CacheState::Warm)
    }

    /// [`Reducer::project`] told what the provider's prompt cache holds (docs/COST.md,
    /// "Cache-aware minting").
    ///
    /// Under [`Minting::CacheAware`], a reduction decided now of a message inside the cached
    /// prefix (`cache`: every message of the history before this call when
    /// [`CacheState::Warm`], the first `n` for [`CacheState::Prefix`]) waits, with those
    /// decided before it, until together they save the policy's `min_saved_bytes`; a
    /// reduction of a message after the prefix is shown at once. When the cache is cold
    /// ([`CacheState::Cold`], or [`CacheState::Idle`] at least the policy's `cache_ttl`),
    /// every waiting reduction is shown. Until a batch is shown, the view this call
    /// leaves begins with the previous view, byte for byte, except where a pairing repair
    /// (always shown at once) puts a result after its call inside it (a result that arrived
    /// late, moved; a synthetic result for a call the model abandoned). Waiting reductions are not in the log
    /// (a host records only what the view shows); each is decided once, with a provisional
    /// id, and gets its ordinal when it is shown ([`Reducer::batches`]). A batch is shown only
    /// by a projection that adds a message after the cached prefix. A reducer resumed from the
    /// log and fed the history with [`CacheState::Prefix`] of its whole length shows the same
    /// view and log; it decides the waiting reductions again from the whole history at once,
    /// which may decide one otherwise than the projections that decided it turn by turn (a
    /// result truncated while it waited is superseded instead when its re-run also arrived
    /// before). Under [`Minting::PerTurn`] `cache` is not read.
    pub fn project_cached(
        &mut self,
        new_messages: impl IntoIterator<Item = Message>,
        cache: CacheState,
    ) -> usize {
        self.closing = None;
        let before = self.log.len();
        let new: Vec<Message> = new_messages.into_iter().collect();
        let digests = self.digests.digests(&self.history, &new);
        let folded = unsendable_batch(&new);
        let base = self.history.len();
        let tool_results = new.iter().filter(|m| m.is_tool_result()).count();
        self.reserve_tracking(new.len(), tool_results);
        if base == 0 {
            self.history = new; // a whole session at once: no copy
        } else {
            self.history.extend(new);
        }
        for (offset, (digest, folded)) in digests.into_iter().zip(folded).enumerate() {
            self.track(base + offset, digest, folded);
        }
        // What is cached decides what may change: nothing waits under per-turn minting.
        let horizon = match (self.policy.minting, cache) {
            (Minting::PerTurn, _) | (_, CacheState::Cold) => 0,
            (Minting::CacheAware { cache_ttl, .. }, CacheState::Idle(idle))
                if idle >= cache_ttl =>
            {
                0
            }
            (Minting::CacheAware { .. }, CacheState::Warm | CacheState::Idle(_)) => base,
            (Minting::CacheAware { .. }, CacheState::Prefix(n)) => n.min(self.history.len()),
        };
        // While something is cached, a decision takes the widest id, so it does not depend on
        // whether it waits (a reopened session decides again what waited). A cold projection
        // shows everything it decides, in order: their ids are final as decided. (A message
        // decided cold is either logged or, not minted with its real id, not minted with the
        // wider one either, so a reopened session decides it alike.)
        self.provisional = horizon > 0;
        let decided_from = self.log.len();
        self.decide_cleared();
        // When the cleared range shrank, messages it hid are looked at again.
        let unhidden = std::mem::take(&mut self.unhidden);
        self.decide_pairs(unhidden);
        self.decide_tool_results(unhidden);
        self.decide_assistant_texts(unhidden);
        self.decide_tool_inputs(unhidden);
        self.decide_image_copies(unhidden);
        self.decide_images(unhidden);
        self.provisional = false;
        let (released, cause) = self
            .settle(decided_from, horizon)
            .unwrap_or((0, BatchCause::Decided));
        self.record_batch(before, released, cause);
        self.log.len() - before
    }

    /// Reserves room for at least `additional` more messages, as `Vec::reserve` does, so
    /// the next [`Reducer::project`] calls need not grow the history's storage. A clone of a
    /// reducer has no spare room; a reducer that has been growing has.
    pub fn reserve(&mut self, additional: usize) {
        self.history.reserve(additional);
        self.reserve_tracking(additional, additional);
    }

    /// Reserves room to track `additional` more messages (not to hold them), of which
    /// `tool_results` are tool results: only those take room in the tool-result tables.
    fn reserve_tracking(&mut self, additional: usize, tool_results: usize) {
        self.stubs.reserve(additional);
        self.tool_results.reserve(tool_results);
        self.by_digest.reserve(tool_results);
        self.digests.reserve(tool_results);
        self.boundaries.reserve(additional);
    }

    /// The current view: what the model is sent, in order.
    pub fn view(&self) -> View<'_> {
        View { reducer: self }
    }

    /// The reduction log: every reduction minted so far (and those of a resumed log).
    pub fn log(&self) -> &ReductionLog {
        &self.log
    }

    /// The full-fidelity history: the minted view every reduction points into.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The policy this reducer applies.
    pub fn policy(&self) -> &ReductionPolicy {
        &self.policy
    }

    /// The history and the log, giving up the view.
    pub fn into_parts(self) -> (Vec<Message>, ReductionLog) {
        (self.history, self.log)
    }

    /// Takes the new message at `index` of the history, with the digest of its text when it is
    /// a tool result and the positions of its calls the APIs refuse as written (`folded`): its
    /// boundaries, its pairing and the repairs it needs, its occurrence, and a resumed log's
    /// reduction of it.
    fn track(&mut self, index: usize, digest: Option<Digest>, folded: Vec<usize>) {
        let message = &self.history[index];
        self.boundaries.push(message, &folded);
        self.stubs.push(None);
        let (decision, abandoned) = self.pairing.push(&self.history, index, &folded);
        if let Some(abandoned) = abandoned {
            self.abandon(&abandoned);
        }
        if !folded.is_empty() {
            self.stubs[index] = self.fold(index, folded).map(Box::new);
        }
        let message = &self.history[index];
        let has_text = message.content_text().is_some_and(|t| !t.is_empty());
        let has_calls = !message.tool_calls.is_empty();
        if message.role == Role::Assistant && (has_text || has_calls) {
            if has_text {
                self.assistant_texts.push(index);
            }
            if has_calls {
                self.tool_inputs.push(index);
            }
            let reused = self.reuse_resumed_assistant(index);
            if self.stubs[index].is_none() {
                self.stubs[index] = reused.map(Box::new);
            }
        }
        let message = &self.history[index];
        let in_place = decision == Decision::Keep;
        match decision {
            Decision::Keep => {}
            Decision::Opening => {
                self.opening = self.open_conversation(index).map(|m| (index, m));
                return;
            }
            Decision::Orphan | Decision::SecondAnswer { .. } => {
                // A result that cannot be sent is hidden on arrival, whatever else the policy
                // would do with it: it is not a tool result of the view.
                self.resumed.remove(&index);
                self.stubs[index] = self.hidden(index, &decision).map(Box::new);
                return;
            }
            Decision::Moved { .. } => {}
        }
        if matches!(message.role, Role::User | Role::Tool)
            && matches!(message.content, Some(Content::Parts(_)))
        {
            self.track_images(index);
        }
        let message = &self.history[index];
        if !message.is_tool_result() {
            return;
        }
        if let Some(digest) = digest {
            self.by_digest
                .entry(digest)
                .and_modify(|o| o.later.push(index))
                .or_insert(Occurrences {
                    first: index,
                    later: Vec::new(),
                });
            self.stubs[index] = self.reuse_resumed(index, digest).map(Box::new);
        }
        self.tool_results.push(ToolResult {
            index,
            digest,
            skipped: false,
        });
        if in_place && self.policy.supersede_reruns {
            self.reruns
                .arrive(&self.history, index, &self.policy.superseded_command_fields);
        }
        if in_place && self.reduces_rereads() {
            self.rereads.arrive(&self.history, index);
        }
        if let Decision::Moved {
            call_message,
            anchor,
        } = decision
        {
            self.move_result(index, call_message, anchor);
        }
    }

    /// The trusted pairing repair of `key` that `fits` accepts, reusing a resumed one once it
    /// verifies; `None` when the log holds none (or one that no longer verifies or fits).
    fn repair(&mut self, key: RepairKey, fits: impl Fn(&ReductionKind) -> bool) -> Option<usize> {
        let &(position, trusted) = self.repairs.get(&key)?;
        let r = &self.log.reductions[position];
        if !fits(&r.kind) || (!trusted && verify_reduction(r, &self.history).is_err()) {
            self.repairs.remove(&key);
            return None;
        }
        self.repairs.insert(key, (position, true));
        Some(position)
    }

    /// Appends a newly minted pairing repair to the log; returns its position.
    fn push_repair(
        &mut self,
        key: RepairKey,
        kind: ReductionKind,
        digest: Digest,
        role: Role,
    ) -> usize {
        let position = self.log.len();
        let index = match key {
            RepairKey::Unanswered { index, .. }
            | RepairKey::Hidden(index)
            | RepairKey::Moved(index)
            | RepairKey::Folded(index)
            | RepairKey::Opening(index) => index,
        };
        let mut reduction = Reduction {
            id: ReductionId::new(position, &digest),
            kind,
            ptr: SidecarPtr {
                addr: MessageAddr { index, role },
                span: None,
                digest,
            },
            stub: String::new(),
        };
        reduction.stub = expected_stub(&reduction, &self.history);
        self.log.reductions.push(reduction);
        self.repairs.insert(key, (position, true));
        position
    }

    /// The view form of the orphan result or second answer at `index`.
    fn hidden(&mut self, index: usize, decision: &Decision) -> Option<Message> {
        let first = match *decision {
            Decision::SecondAnswer { first } => Some(first),
            _ => None,
        };
        let key = RepairKey::Hidden(index);
        let position = match self.repair(key, |k| match (k, first) {
            (ReductionKind::OrphanResult { .. }, None) => true,
            (ReductionKind::SecondAnswer { first: f, .. }, Some(first)) => f.index == first,
            _ => false,
        }) {
            Some(position) => position,
            None => {
                let message = &self.history[index];
                let (digest, original_bytes) = turns_digest(std::slice::from_ref(message));
                let kind = match first {
                    None => ReductionKind::OrphanResult { original_bytes },
                    Some(first) => ReductionKind::SecondAnswer {
                        first: MessageAddr {
                            index: first,
                            role: self.history[first].role,
                        },
                        original_bytes,
                    },
                };
                self.push_repair(key, kind, digest, message.role)
            }
        };
        stub_message(&self.log.reductions[position], &self.history[index]).ok()
    }

    /// The view form of the assistant message at `index` with its calls `folded` folded.
    fn fold(&mut self, index: usize, folded: Vec<usize>) -> Option<Message> {
        let key = RepairKey::Folded(index);
        let position = match self.repair(
            key,
            |k| matches!(k, ReductionKind::FoldedCalls { calls, .. } if *calls == folded),
        ) {
            Some(position) => position,
            None => {
                let message = &self.history[index];
                let (digest, original_bytes) = turns_digest(std::slice::from_ref(message));
                let kind = ReductionKind::FoldedCalls {
                    calls: folded,
                    original_bytes,
                };
                self.push_repair(key, kind, digest, Role::Assistant)
            }
        };
        stub_message(&self.log.reductions[position], &self.history[index]).ok()
    }

    /// The user message that opens the conversation before the assistant message at `index`.
    fn open_conversation(&mut self, index: usize) -> Option<Message> {
        let key = RepairKey::Opening(index);
        let position = match self.repair(key, |k| {
            matches!(k, ReductionKind::ConversationOpened { .. })
        }) {
            Some(position) => position,
            None => {
                let message = &self.history[index];
                let (digest, original_bytes) = turns_digest(std::slice::from_ref(message));
                let kind = ReductionKind::ConversationOpened { original_bytes };
                self.push_repair(key, kind, digest, Role::Assistant)
            }
        };
        stub_message(&self.log.reductions[position], &self.history[index]).ok()
    }

    /// Shows the tool result at `index`, which answers a call of `call_message`, right after
    /// `anchor`.
    fn move_result(&mut self, index: usize, call_message: usize, anchor: usize) {
        let key = RepairKey::Moved(index);
        let position = match self.repair(key, |k| {
            matches!(k, ReductionKind::MovedResult { call_message: c, .. } if c.index == call_message)
        }) {
            Some(position) => position,
            None => {
                let message = &self.history[index];
                let (digest, original_bytes) = turns_digest(std::slice::from_ref(message));
                let kind = ReductionKind::MovedResult {
                    call_message: MessageAddr {
                        index: call_message,
                        role: self.history[call_message].role,
                    },
                    original_bytes,
                };
                self.push_repair(key, kind, digest, message.role)
            }
        };
        let view = moved_message(&self.log.reductions[position], self.own_slot(index));
        self.extras
            .entry(anchor)
            .or_default()
            .moved
            .push((index, view));
        self.moved.insert(index, anchor);
    }

    /// Gives the calls `abandoned` lists their synthetic results, shown after its anchor.
    fn abandon(&mut self, abandoned: &Abandoned) {
        let results = self.synthetic_results(abandoned.call_message, &abandoned.calls);
        self.synthetic += results.len();
        self.extras
            .entry(abandoned.anchor)
            .or_default()
            .synthetic
            .extend(results);
    }

    /// The synthetic results of calls `positions` of assistant message `index`, minting the
    /// unanswered-call repairs the log does not hold yet.
    fn synthetic_results(&mut self, index: usize, positions: &[usize]) -> Vec<Message> {
        let mut out = Vec::with_capacity(positions.len());
        for &call in positions {
            let key = RepairKey::Unanswered {
                index,
                position: call,
            };
            let position =
                match self.repair(key, |k| matches!(k, ReductionKind::UnansweredCall { .. })) {
                    Some(position) => position,
                    None => {
                        let arguments = &self.history[index].tool_calls[call].arguments;
                        let kind = ReductionKind::UnansweredCall {
                            call,
                            original_bytes: arguments.len(),
                        };
                        let digest = content_digest(arguments.as_bytes());
                        self.push_repair(key, kind, digest, Role::Assistant)
                    }
                };
            if let Ok(m) = stub_message(&self.log.reductions[position], &self.history[index]) {
                out.push(m);
            }
        }
        out
    }

    /// Treats the session as complete: every call of the latest assistant message still
    /// waiting for its result is given a synthetic result saying it got none (an
    /// unanswered-call repair, minted once and reused), so the view is a valid request body.
    /// Returns how many reductions this minted.
    ///
    /// A live host does not call this between turns: a call whose result is on its way is not
    /// a defect. What is written as a finished artifact (a request body, an export, the view
    /// `rehydrate reduce` writes) is closed first; [`crate::project_messages`] closes. The
    /// synthetic results stay in the view until the next [`Reducer::project`], which drops
    /// them (a result that then arrives is paired as usual; the reductions stay in the log).
    pub fn close(&mut self) -> usize {
        let before = self.log.len();
        self.closing = None;
        if let Some(open) = self.pairing.open() {
            let (index, anchor, calls) = (open.index, open.anchor, open.unanswered());
            let results = self.synthetic_results(index, &calls);
            self.closing = Some((anchor, results));
        }
        self.record_batch(before, 0, BatchCause::Decided);
        self.log.len() - before
    }

    /// The view form of history message `index` as its own reductions give it (its stub, or
    /// the message itself), without a move.
    fn own_slot(&self, index: usize) -> &Message {
        match &self.stubs[index] {
            Some(stub) if !self.is_held(index) => stub,
            _ => &self.history[index],
        }
    }

    /// The view form of a resumed log's reduction of message `index`, when it verifies.
    /// Per-message reductions read only the message they address, so this is checked once,
    /// when that message arrives.
    fn reuse_resumed(&mut self, index: usize, digest: Digest) -> Option<Message> {
        if self.resumed.is_empty() {
            return None;
        }
        let position = self.resumed.remove(&index)?;
        let r = &self.log.reductions[position];
        if r.ptr.digest != digest {
            return None;
        }
        verify_reduction(r, &self.history).ok()?;
        let view = stub_message(r, &self.history[index]).ok()?;
        if let ReductionKind::DuplicateOutput { canonical, .. } = r.kind
            && self.hides_results_whole()
        {
            self.reruns.name_canonical(canonical.index);
        }
        Some(view)
    }

    /// The view form of a resumed log's assistant text truncation or tool-input elision of
    /// message `index`, when it verifies; checked once, when that message arrives.
    fn reuse_resumed_assistant(&mut self, index: usize) -> Option<Message> {
        if self.resumed.is_empty() {
            return None;
        }
        let position = self.resumed.remove(&index)?;
        let r = &self.log.reductions[position];
        let (ReductionKind::AssistantTextTruncated { .. } | ReductionKind::ToolInputElided { .. }) =
            r.kind
        else {
            return None;
        };
        verify_reduction(r, &self.history).ok()?;
        stub_message(r, &self.history[index]).ok()
    }

    /// Takes the user message or tool result with content parts at `index`: its images over
    /// the image trigger, and a resumed log's image redaction of it when that verifies.
    fn track_images(&mut self, index: usize) {
        if let Some(trigger) = self.policy.image_trigger_bytes {
            self.images.arrive(index, &self.history[index], trigger);
        }
        if self.resumed.is_empty() || self.stubs[index].is_some() {
            return;
        }
        let Some(&position) = self.resumed.get(&index) else {
            return;
        };
        let r = &self.log.reductions[position];
        let ReductionKind::ImageRedacted { .. } = r.kind else {
            return;
        };
        self.resumed.remove(&index);
        if verify_reduction(r, &self.history).is_ok() {
            self.stubs[index] = stub_message(r, &self.history[index]).ok().map(Box::new);
        }
    }

    /// Hides the earlier copies of every image arrived since the last projection: each
    /// message holding one, not reduced yet and not inside the cleared range, hides its images
    /// that have a later copy, each naming the latest ([`Reducer::redact_images`]), whatever
    /// its age. A message inside the cleared range then is looked at again, first, when the
    /// range shrinks (`unhidden`). Nothing while the policy hides no image.
    fn decide_image_copies(&mut self, unhidden: bool) {
        if self.policy.image_trigger_bytes.is_none() {
            return;
        }
        if unhidden {
            let skipped = std::mem::take(&mut self.images.copies_skipped);
            for index in skipped {
                if self.is_cleared(index) {
                    self.images.copies_skipped.push(index);
                } else {
                    self.redact_images(index, true, None);
                }
            }
        }
        // Each message's arrival is decided as it would be had it come alone, naming the
        // copies that had arrived with it or before: how the session was cut into
        // projections changes nothing.
        for (place, digest) in self.images.take_pending() {
            let until = ImagePlace {
                index: place.index,
                part: usize::MAX,
            };
            for index in self.images.earlier_copies(place, digest) {
                if self.stubs[index].is_some() {
                    continue;
                }
                if !self.is_cleared(index) {
                    self.redact_images(index, true, Some(until));
                } else if !self.images.copies_skipped.contains(&index) {
                    self.images.copies_skipped.push(index);
                }
            }
        }
    }

    /// Decides every message with images over the trigger that has left the protected window
    /// (the newest `protect_last_n_image_messages` of them), in history order, after those
    /// skipped inside a cleared range that no longer hides them when `unhidden`: every such
    /// image is hidden, or nothing. Nothing at all while the policy hides no image.
    fn decide_images(&mut self, unhidden: bool) {
        if self.policy.image_trigger_bytes.is_none() {
            return;
        }
        let cleared = self.cleared;
        let leaving =
            self.images
                .window
                .leaving(self.policy.protect_last_n_image_messages, unhidden, |i| {
                    is_in(cleared, i)
                });
        for index in leaving {
            self.redact_images(index, false, None);
        }
    }

    /// Hides the images over the trigger of the message at history `index` (only those with
    /// a later copy when `copies_only`) behind one image-redaction stub, each copy naming the
    /// latest place of its data (at or before `until`, when given), when that saves enough
    /// wire bytes; a message with a view form of its own is kept as it is.
    fn redact_images(&mut self, index: usize, copies_only: bool, until: Option<ImagePlace>) {
        if self.stubs[index].is_some() {
            return;
        }
        let Some(tracked) = self.images.parts_of(index) else {
            return;
        };
        let msg = &self.history[index];
        let Some(Content::Parts(parts)) = &msg.content else {
            return;
        };
        let mut images = Vec::new();
        for &(part, digest) in tracked {
            let place = ImagePlace { index, part };
            let same_as = self.images.latest(&digest, until).filter(|p| *p > place);
            if copies_only && same_as.is_none() {
                continue;
            }
            let Some(data) = parts.get(part).and_then(image_data) else {
                continue;
            };
            images.push(HiddenImage {
                part,
                media_type: data.media_type.map(str::to_string),
                data_bytes: data.base64.len(),
                pixels: image_size(data.base64).map(|(w, h)| [w, h]),
                same_as,
            });
        }
        let positions: Vec<usize> = images.iter().map(|i| i.part).collect();
        let Some(text) = hidden_images_text(parts, &positions).filter(|_| !images.is_empty())
        else {
            return;
        };
        let digest = content_digest(text.as_bytes());
        let kind = ReductionKind::ImageRedacted {
            images,
            original_bytes: text.len(),
        };
        if self.mint_whole(index, kind, digest)
            && let Some(&anchor) = self.moved.get(&index)
        {
            self.refresh_moved(index, anchor);
        }
    }

    /// Decides the range cleared in the view, minting a turns-cleared reduction (or, for an
    /// agent's compaction the policy follows, a compaction) when the decision is new (as
    /// `project_messages` does). A compaction's range is shown unless a turns-cleared range
    /// reaches past its summary.
    fn decide_cleared(&mut self) {
        self.adopt_resumed_cleared();
        let turns = self
            .policy
            .clear_turns_older_than
            .and_then(|n| self.boundaries.clearable_range(n));
        // Each compaction is minted once, in history order, as soon as its range may be
        // followed, so the ids do not depend on how the history was fed (one projection of
        // a session with two compactions mints both, as feeding it message by message does).
        let mut compaction = None;
        if self.policy.follow_compactions {
            for (first, last) in self.boundaries.compaction_ranges(self.compacted) {
                self.compacted = Some(last);
                if turns.is_some_and(|t| t.1 > last)
                    || self
                        .latest_cleared
                        .as_ref()
                        .is_some_and(|c| c.compaction && (c.first, c.last) == (first, last))
                {
                    continue;
                }
                let summary = Some(rehydrate_formats::summary_text(&self.history[last]));
                self.mint_cleared(first, last, true, summary);
            }
            // The view follows the latest compaction minted (one that saved too little is not).
            compaction = self
                .latest_cleared
                .as_ref()
                .filter(|c| c.compaction)
                .map(|c| (c.first, c.last));
        }
        let reusable = self
            .latest_cleared
            .as_ref()
            .filter(|c| self.boundaries.is_safe(c.first) && self.boundaries.is_safe(c.last + 1));
        let wanted = match (turns, compaction) {
            (Some(t), Some(c)) if t.1 > c.1 => Some((t, false)),
            (_, Some(c)) => Some((c, true)),
            (Some(t), None) => Some((t, false)),
            (None, None) => None,
        };
        let previous = self.cleared;
        self.cleared = match wanted {
            None => reusable.map(|c| (c.first, c.last)),
            Some(((first, last), compaction)) => {
                // A compaction's summary is its last message's text, so the range decides it;
                // a turns-cleared range's is the policy's.
                if reusable.is_some_and(|c| {
                    (c.first, c.last) == (first, last)
                        && c.compaction == compaction
                        && (compaction || c.summary == self.policy.turns_summary)
                }) {
                    Some((first, last))
                } else {
                    let summary = if compaction {
                        Some(rehydrate_formats::summary_text(&self.history[last]))
                    } else {
                        self.policy.turns_summary.clone()
                    };
                    self.mint_cleared(first, last, compaction, summary)
                }
            }
        };
        // When the cleared range shrinks (a grown range did not save enough), tool results it
        // hid are visible again and are decided with the others.
        self.unhidden |= previous
            .is_some_and(|(first, last)| self.cleared.is_none_or(|(f, l)| f > first || l < last));
    }

    /// Verifies a resumed log's latest turns-cleared reduction once its range has arrived.
    fn adopt_resumed_cleared(&mut self) {
        let Some(position) = self.resumed_cleared else {
            return;
        };
        let r = &self.log.reductions[position];
        let (first, last, compaction, summary) = match r.kind {
            ReductionKind::TurnsCleared {
                first,
                last,
                ref summary,
                ..
            } => (first, last, false, summary.clone()),
            ReductionKind::Compaction {
                first,
                last,
                ref summary,
                ..
            } => (first, last, true, Some(summary.clone())),
            _ => {
                self.resumed_cleared = None;
                return;
            }
        };
        if last >= self.history.len() {
            return; // not arrived yet
        }
        self.resumed_cleared = None;
        if verify_reduction(r, &self.history).is_err() {
            return;
        }
        if let Ok(view) = stub_message(r, &self.history[first]) {
            self.latest_cleared = Some(Cleared {
                first,
                last,
                compaction,
                summary,
                view,
            });
        }
    }

    /// Mints the turns-cleared reduction of `first..=last` (with the policy's `summary`), or
    /// returns `None` when its stub would not save enough; for `compaction`, the compaction
    /// whose summary message is `last` (`summary` its text), likewise.
    fn mint_cleared(
        &mut self,
        first: usize,
        last: usize,
        compaction: bool,
        summary: Option<String>,
    ) -> Option<(usize, usize)> {
        self.range.scan(&self.history, first, last);
        let (digest, original_bytes) = self.range.digest();
        let facts = self.range.facts();
        let hidden_bytes = self.range.wire_bytes();
        let kind = if compaction {
            ReductionKind::Compaction {
                first,
                last,
                original_bytes,
                summary: summary.clone().unwrap_or_default(),
            }
        } else {
            ReductionKind::TurnsCleared {
                first,
                last,
                original_bytes,
                summary: summary.clone(),
            }
        };
        let mut reduction = Reduction {
            id: ReductionId::new(self.next_ordinal(), &digest),
            kind,
            ptr: SidecarPtr {
                addr: MessageAddr {
                    index: first,
                    role: self.history[first].role,
                },
                span: None,
                digest,
            },
            stub: String::new(),
        };
        reduction.stub = expected_stub_from_facts(&reduction, facts);
        let view = stub_message(&reduction, &self.history[first]).ok()?;
        if !saves_enough(hidden_bytes, view.wire_len(), &self.policy) {
            return None;
        }
        self.log.reductions.push(reduction);
        // The new reduction is the log's latest: a resumed one is never looked at again.
        self.resumed_cleared = None;
        self.latest_cleared = Some(Cleared {
            first,
            last,
            compaction,
            summary,
            view,
        });
        Some((first, last))
    }

    /// Decides one re-run pair ([`Reducer::decide_pairs`]).
    fn supersede(&mut self, pair: Pair) {
        let Pair { older, later } = pair;
        // Reduced already (truncated, a duplicate, a repair): reductions are never replaced.
        // A duplicate's canonical copy stays in the view.
        // The base of a diffed re-read stays in the view (re-reads are decided first).
        if self.stubs[older].is_some()
            || self.reruns.is_canonical(older)
            || self.rereads.is_base(older)
        {
            return;
        }
        if let Some(position) = self.reruns.deferred.take_resumed(older) {
            let r = &self.log.reductions[position];
            let fits = matches!(r.kind, ReductionKind::Superseded { by, .. } if by.index == later);
            if fits
                && verify_reduction(r, &self.history).is_ok()
                && let Ok(view) = stub_message(r, &self.history[older])
            {
                self.stubs[older] = Some(Box::new(view));
                self.reruns.mark_hidden_whole(older);
                return;
            }
        }
        if self.is_cleared(older) || self.is_cleared(later) {
            self.reruns.deferred.skip(pair);
            return;
        }
        let position = self.tool_results.partition_point(|t| t.index < older);
        let Some(ToolResult {
            digest: Some(digest),
            ..
        }) = self
            .tool_results
            .get(position)
            .filter(|t| t.index == older)
            .copied()
        else {
            return; // no text: never reduced
        };
        let msg = &self.history[older];
        let Some(text) = msg.content_text() else {
            return;
        };
        let candidate = Candidate {
            msg,
            index: older,
            text,
            digest,
        };
        let by = MessageAddr {
            index: later,
            role: self.history[later].role,
        };
        let ordinal = self.next_ordinal();
        let minted = mint_superseded(
            &candidate,
            by,
            &self.history,
            &self.policy,
            ordinal,
            &mut self.log,
        );
        if minted.is_some() {
            self.stubs[older] = minted.map(Box::new);
            self.reruns.mark_hidden_whole(older);
        }
    }

    /// Whether the policy elides or diffs re-reads.
    fn reduces_rereads(&self) -> bool {
        self.policy.elide_rereads || self.policy.diff_rereads_max_per_mille.is_some()
    }

    /// Whether the policy hides a tool result whole behind a later one (superseded re-runs,
    /// elided re-reads, diffed re-reads), so duplicates' canonical copies must be tracked.
    fn hides_results_whole(&self) -> bool {
        self.policy.supersede_reruns || self.reduces_rereads()
    }

    /// Decides the re-read and re-run pairs found since the last projection (and, when the
    /// cleared range shrank, those skipped while inside it) in the order their later messages
    /// arrived, the re-reads of one later message before its re-runs, so feeding a session in
    /// any chunks decides them as one projection does: a same-content earlier read is elided
    /// as a re-read, a diff's base is never superseded, and a result reduced by an earlier
    /// pair (or a resumed log) is never reduced again. Each reuses a resumed log's reduction
    /// where it verifies. Done after the cleared range is decided and before the tool results
    /// leaving the protected window are, so a result hidden by a pair in this projection is not
    /// truncated, and one truncated earlier stays truncated.
    fn decide_pairs(&mut self, unhidden: bool) {
        let mut reads = self
            .rereads
            .deferred
            .take_pairs(unhidden)
            .into_iter()
            .peekable();
        let mut reruns = self
            .reruns
            .deferred
            .take_pairs(unhidden)
            .into_iter()
            .peekable();
        loop {
            let read_first = match (reads.peek(), reruns.peek()) {
                (Some(read), Some(rerun)) => read.later <= rerun.later,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if read_first {
                if let Some(pair) = reads.next() {
                    self.reread(pair);
                }
            } else if let Some(pair) = reruns.next() {
                self.supersede(pair);
            }
        }
    }

    /// Decides one re-read pair ([`Reducer::decide_pairs`]): when the earlier read is still
    /// whole in the view, it is elided if both reads served the same content, else the later
    /// read shows the diff when it is within the policy's share.
    fn reread(&mut self, pair: ReadPair) {
        let ReadPair { earlier, later } = pair;
        if let Some(position) = self.rereads.deferred.take_resumed(later)
            && self.reuse_reread(position, pair)
        {
            return;
        }
        // Reduced already: reductions are never replaced, and a reduced base is not whole.
        if self.stubs[earlier].is_some() || self.stubs[later].is_some() {
            return;
        }
        if self.is_cleared(earlier) || self.is_cleared(later) {
            self.rereads.deferred.skip(pair);
            return;
        }
        let (Some((_, earlier_content)), Some((_, later_content))) = (
            whole_read(&self.history[earlier]),
            whole_read(&self.history[later]),
        ) else {
            return;
        };
        if earlier_content == later_content {
            if !self.policy.elide_rereads || self.reruns.is_canonical(earlier) {
                return;
            }
            let by = MessageAddr {
                index: later,
                role: self.history[later].role,
            };
            let kind = |original_bytes| ReductionKind::FileReadElided { by, original_bytes };
            if self.mint_reread(earlier, kind) {
                self.reruns.mark_hidden_whole(earlier);
            }
            return;
        }
        let Some(share) = self.policy.diff_rereads_max_per_mille else {
            return;
        };
        let max_share_per_mille = share.min(1000);
        let diff = reread_diff(earlier_content, later_content);
        let text_bytes = self.history[later].content_text().map_or(0, str::len);
        if !diff_within_share(diff.len(), text_bytes, max_share_per_mille) {
            return;
        }
        let base = MessageAddr {
            index: earlier,
            role: self.history[earlier].role,
        };
        let kind = |original_bytes| ReductionKind::FileReadDiffed {
            base,
            original_bytes,
            max_share_per_mille,
            diff,
        };
        if self.mint_reread(later, kind) {
            self.reruns.mark_hidden_whole(later);
            self.rereads.mark_base(earlier);
        }
    }

    /// Reuses the resumed log's reduction at `position` for `pair` when it is of that pair and
    /// verifies; returns whether it was.
    fn reuse_reread(&mut self, position: usize, pair: ReadPair) -> bool {
        let r = &self.log.reductions[position];
        let (target, fits, diffed) = match r.kind {
            ReductionKind::FileReadElided { by, .. } => (
                pair.earlier,
                by.index == pair.later && r.ptr.addr.index == pair.earlier,
                false,
            ),
            ReductionKind::FileReadDiffed { base, .. } => (
                pair.later,
                base.index == pair.earlier && r.ptr.addr.index == pair.later,
                true,
            ),
            ReductionKind::ToolOutputTruncated { .. }
            | ReductionKind::AssistantTextTruncated { .. }
            | ReductionKind::DuplicateOutput { .. }
            | ReductionKind::TurnsCleared { .. }
            | ReductionKind::Compaction { .. }
            | ReductionKind::UnansweredCall { .. }
            | ReductionKind::OrphanResult { .. }
            | ReductionKind::SecondAnswer { .. }
            | ReductionKind::MovedResult { .. }
            | ReductionKind::FoldedCalls { .. }
            | ReductionKind::ConversationOpened { .. }
            | ReductionKind::ToolInputElided { .. }
            | ReductionKind::Superseded { .. }
            | ReductionKind::OutputNormalized { .. }
            | ReductionKind::ImageRedacted { .. } => return false,
        };
        if !fits || self.stubs[target].is_some() || verify_reduction(r, &self.history).is_err() {
            return false;
        }
        let Ok(view) = stub_message(r, &self.history[target]) else {
            return false;
        };
        self.stubs[target] = Some(Box::new(view));
        self.reruns.mark_hidden_whole(target);
        if diffed {
            self.rereads.mark_base(pair.earlier);
        }
        true
    }

    /// Mints the re-read reduction `kind` (given the text's length) of the tool result at
    /// `index`, when it saves enough wire bytes; returns whether it did.
    fn mint_reread(&mut self, index: usize, kind: impl FnOnce(usize) -> ReductionKind) -> bool {
        let Some(digest) = self.result_digest(index) else {
            return false; // no text: never reduced
        };
        let Some(text) = self.history[index].content_text() else {
            return false;
        };
        let kind = kind(text.len());
        self.mint_whole(index, kind, digest)
    }

    /// The digest of the text of the tool result at history `index`, computed when it arrived;
    /// `None` when it has no text or is not a tracked tool result.
    fn result_digest(&self, index: usize) -> Option<Digest> {
        let position = self.tool_results.partition_point(|t| t.index < index);
        self.tool_results
            .get(position)
            .filter(|t| t.index == index)
            .and_then(|t| t.digest)
    }

    /// Decides every tool result that has left the protected window, in history order, after
    /// those skipped inside a cleared range that no longer hides them when `unhidden`.
    fn decide_tool_results(&mut self, unhidden: bool) {
        let n = self.policy.protect_last_n_tool_results;
        let count = self.tool_results.len();
        // Tool results at positions >= `protected` are never reduced.
        let protected = if n == 0 {
            count
        } else {
            count.saturating_sub(n)
        };
        if unhidden {
            // Results skipped while inside a range that no longer hides them precede, in
            // history order, every result leaving the protected window now.
            for position in 0..self.decided {
                let t = self.tool_results[position];
                if t.skipped && !self.is_cleared(t.index) {
                    self.tool_results[position].skipped = false;
                    self.decide(position);
                }
            }
        }
        for position in self.decided..protected {
            if self.is_cleared(self.tool_results[position].index) {
                self.tool_results[position].skipped = true;
            } else {
                self.decide(position);
            }
        }
        self.decided = self.decided.max(protected);
    }

    /// Decides every assistant message with text that has left the protected window, in
    /// history order, after those skipped inside a cleared range that no longer hides them when
    /// `unhidden`: a truncation of its text, or nothing. Nothing at all while the policy
    /// reduces no assistant text.
    fn decide_assistant_texts(&mut self, unhidden: bool) {
        let Some(trigger) = self.policy.assistant_text_trigger_bytes else {
            return;
        };
        let cleared = self.cleared;
        let leaving = self.assistant_texts.leaving(
            self.policy.protect_last_n_assistant_messages,
            unhidden,
            |i| is_in(cleared, i),
        );
        for index in leaving {
            self.decide_text(index, trigger);
        }
    }

    /// Decides the assistant message at history `index`: its text, strictly larger than
    /// `trigger` bytes, keeps its head and tail around a stub when that saves enough; a message
    /// with a view form of its own (folded calls, a resumed log's truncation) is kept as it is.
    fn decide_text(&mut self, index: usize, trigger: usize) {
        if self.stubs[index].is_some() {
            return;
        }
        let msg = &self.history[index];
        let Some(text) = msg.content_text() else {
            return;
        };
        if text.len() <= trigger {
            return;
        }
        let candidate = Candidate {
            msg,
            index,
            text,
            digest: content_digest(text.as_bytes()),
        };
        let ordinal = self.next_ordinal();
        self.stubs[index] = mint_truncation(
            &candidate,
            Truncated::AssistantText,
            &self.policy,
            ordinal,
            &mut self.log,
        )
        .map(Box::new);
    }

    /// Decides every assistant message making tool calls that has left the protected window
    /// (the newest `protect_last_n_assistant_messages` of them), in history order, after those
    /// skipped inside a cleared range that no longer hides them when `unhidden`: the elision of
    /// one tool input, or nothing. Nothing at all while the policy elides no tool input.
    fn decide_tool_inputs(&mut self, unhidden: bool) {
        let Some(trigger) = self.policy.tool_input_trigger_bytes else {
            return;
        };
        let cleared = self.cleared;
        let leaving = self.tool_inputs.leaving(
            self.policy.protect_last_n_assistant_messages,
            unhidden,
            |i| is_in(cleared, i),
        );
        for index in leaving {
            self.decide_input(index, trigger);
        }
    }

    /// Decides the assistant message at history `index`: the largest string value, strictly
    /// larger than `trigger` bytes, of a `tool_input_fields` field of one of its calls'
    /// arguments (a JSON object; the first call and field on a tie) is elided when that saves
    /// enough wire bytes. A message with a view form of its own (folded calls, a truncated
    /// text, a resumed log's reduction) is kept as it is, and so is one whose text the
    /// assistant-text policy considers, whether or not that truncated it: the two decisions
    /// never compete, so they do not depend on which window a message leaves first.
    fn decide_input(&mut self, index: usize, trigger: usize) {
        if self.stubs[index].is_some() {
            return;
        }
        let msg = &self.history[index];
        if let (Some(text_trigger), Some(text)) =
            (self.policy.assistant_text_trigger_bytes, msg.content_text())
            && text.len() > text_trigger
        {
            return;
        }
        let mut best: Option<(usize, String, String)> = None;
        for (k, c) in msg.tool_calls.iter().enumerate() {
            // A value is never longer than the arguments holding it.
            if c.arguments.len() <= trigger {
                continue;
            }
            let Some(fields) = argument_fields(&c.arguments) else {
                continue;
            };
            for f in fields {
                let Some(value) = f.value else {
                    continue;
                };
                let larger = best.as_ref().is_none_or(|(_, _, v)| value.len() > v.len());
                if value.len() > trigger
                    && larger
                    && self.policy.tool_input_fields.contains(&f.name)
                {
                    best = Some((k, f.name, value));
                }
            }
        }
        let Some((call, field, value)) = best else {
            return;
        };
        let digest = content_digest(value.as_bytes());
        let kind = ReductionKind::ToolInputElided {
            call,
            field,
            original_bytes: value.len(),
        };
        self.mint_whole(index, kind, digest);
    }

    /// Mints `kind` for the message at `index`, hidden without a span behind `digest`: the stub
    /// written from the history (none when its facts do not hold), the view message, and the
    /// reduction pushed to the log only where the view saves `min_saved_bytes` wire bytes.
    /// Returns whether it was minted.
    fn mint_whole(&mut self, index: usize, kind: ReductionKind, digest: Digest) -> bool {
        let msg = &self.history[index];
        let mut reduction = Reduction {
            id: ReductionId::new(self.next_ordinal(), &digest),
            kind,
            ptr: SidecarPtr {
                addr: MessageAddr {
                    index,
                    role: msg.role,
                },
                span: None,
                digest,
            },
            stub: String::new(),
        };
        reduction.stub = expected_stub(&reduction, &self.history);
        // No stub: the facts do not hold (a re-read whose pair is not as its kind says).
        if reduction.stub.is_empty() {
            return false;
        }
        let Ok(view_msg) = stub_message(&reduction, msg) else {
            return false;
        };
        if !saves_enough(msg.wire_len(), view_msg.wire_len(), &self.policy) {
            return false;
        }
        self.log.reductions.push(reduction);
        self.stubs[index] = Some(Box::new(view_msg));
        true
    }

    fn is_cleared(&self, index: usize) -> bool {
        is_in(self.cleared, index)
    }

    /// Decides the tool result at `position` of `tool_results`: a duplicate stub, a normalized
    /// terminal output (under `normalize_terminal_output`), a truncation, or nothing (a reused
    /// stub is kept).
    fn decide(&mut self, position: usize) {
        let ToolResult { index, digest, .. } = self.tool_results[position];
        let Some(digest) = digest else {
            return; // no text: never reduced
        };
        if self.stubs[index].is_some() {
            return; // a resumed log's reduction, reused
        }
        let msg = &self.history[index];
        let Some(text) = msg.content_text() else {
            return;
        };
        let canonical = self.canonical(index, digest);
        let ordinal = self.next_ordinal();
        let candidate = Candidate {
            msg,
            index,
            text,
            digest,
        };
        let duplicate = if self.policy.dedupe_outputs && canonical != index {
            let addr = MessageAddr {
                index: canonical,
                role: self.history[canonical].role,
            };
            mint_duplicate(&candidate, addr, &self.policy, ordinal, &mut self.log)
        } else {
            None
        };
        if duplicate.is_some() && self.hides_results_whole() {
            self.reruns.name_canonical(canonical);
        }
        // A duplicate stub first; then the terminal's final screen (cut as a truncation cuts
        // when still over the trigger; never of a file tool's result, whose details prove it
        // is a file's text); then a truncation of the text as it is.
        let file_tool = self.history[candidate.index].details.is_some();
        let minted = duplicate
            .or_else(|| {
                (self.policy.normalize_terminal_output && !file_tool)
                    .then(|| mint_normalized(&candidate, &self.policy, ordinal, &mut self.log))
                    .flatten()
            })
            .or_else(|| {
                (text.len() > self.policy.tool_output_trigger_bytes)
                    .then(|| {
                        mint_truncation(
                            &candidate,
                            Truncated::ToolOutput,
                            &self.policy,
                            ordinal,
                            &mut self.log,
                        )
                    })
                    .flatten()
            });
        self.stubs[index] = minted.map(Box::new);
        if self.stubs[index].is_some()
            && let Some(&anchor) = self.moved.get(&index)
        {
            self.refresh_moved(index, anchor);
        }
    }

    /// Brings the view form of moved result `index` (shown after `anchor`) up to date with its
    /// own reductions.
    fn refresh_moved(&mut self, index: usize, anchor: usize) {
        let Some(&(position, _)) = self.repairs.get(&RepairKey::Moved(index)) else {
            return;
        };
        let view = moved_message(&self.log.reductions[position], self.own_slot(index));
        if let Some(extras) = self.extras.get_mut(&anchor)
            && let Some(slot) = extras.moved.iter_mut().find(|(i, _)| *i == index)
        {
            slot.1 = view;
        }
    }

    /// The first visible tool result byte-identical to the one at `index` (possibly itself):
    /// neither inside the cleared range nor superseded.
    fn canonical(&self, index: usize, digest: Digest) -> usize {
        let Some(same) = self.by_digest.get(&digest) else {
            return index;
        };
        // The occurrences not inside the cleared range (the first may be; the later ones after
        // the range are found by binary search).
        let (head, rest): (Option<usize>, &[usize]) = match self.cleared {
            Some((first, last)) if (first..=last).contains(&same.first) => {
                let p = same.later.partition_point(|&j| j <= last);
                (None, &same.later[p..])
            }
            _ => (Some(same.first), &same.later[..]),
        };
        let mut occurrences = head.into_iter().chain(rest.iter().copied());
        let visible = if self.reruns.any_hidden_whole() {
            occurrences
                .find(|&j| j > index || !(self.is_cleared(j) || self.reruns.is_hidden_whole(j)))
        } else {
            occurrences.next()
        };
        visible.filter(|&j| j <= index).unwrap_or(index)
    }
}

/// The view of a [`Reducer`]: the messages the model is sent, borrowed from the history where
/// they are not reduced.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    reducer: &'a Reducer,
}

impl<'a> View<'a> {
    /// Number of messages in the view.
    pub fn len(&self) -> usize {
        let r = self.reducer;
        let n = r.history.len();
        let mut len = n
            + r.synthetic
            + r.closing.as_ref().map_or(0, |(_, c)| c.len())
            + usize::from(r.opening.is_some());
        if let (Some((first, last)), _) = r.shown_cleared() {
            len -= last - first;
            len -= usize::from(
                r.opening
                    .as_ref()
                    .is_some_and(|(i, _)| (first..=last).contains(i)),
            );
            // Extras inside the cleared range are hidden with it.
            len -= r
                .extras
                .range(first..=last)
                .map(|(_, e)| e.synthetic.len())
                .sum::<usize>();
        }
        len
    }

    /// Whether the view holds no message.
    pub fn is_empty(&self) -> bool {
        self.reducer.history.is_empty()
    }

    /// The view message at position `i` (not a history index), if any.
    ///
    /// Constant time while the view repairs no pairing; linear in `i` otherwise.
    pub fn get(&self, i: usize) -> Option<&'a Message> {
        let r = self.reducer;
        if !r.extras.is_empty() || r.closing.is_some() || r.opening.is_some() {
            return self.iter().nth(i);
        }
        let (cleared, view) = r.shown_cleared();
        let index = match cleared {
            Some((first, _)) if i == first => {
                return view;
            }
            Some((first, last)) if i > first => i + (last - first),
            _ => i,
        };
        r.slot(index)
    }

    /// The view messages in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a Message> + 'a {
        self.entries().map(|(_, message)| message)
    }

    /// The view messages in order, each with `Some(i)` when it is history message `i` itself
    /// (not reduced, not a repair), else `None` (a stub, the cleared turns' stub, a moved
    /// result's form or a repair message).
    ///
    /// The history only grows, so a message shown as `Some(i)` is the same value in every later
    /// view that shows `Some(i)`: a host that converts each view message into its own types
    /// (the Python package does) converts a history message once and only looks again at the
    /// `None` entries.
    ///
    /// ```
    /// use rehydrate_model::{Message, Role};
    /// use rehydrate_reduce::{Reducer, ReductionPolicy};
    ///
    /// let policy = ReductionPolicy { protect_last_n_tool_results: 1, ..ReductionPolicy::default() };
    /// let mut reducer = Reducer::new(policy);
    /// let log = "error: build failed\n".repeat(500);
    /// reducer.project([
    ///     Message::text(Role::User, "build it"),
    ///     Message::tool_call("c1", "bash", r#"{"cmd":"make"}"#),
    ///     Message::tool_result("c1", log.clone()),
    ///     Message::tool_call("c2", "bash", r#"{"cmd":"make"}"#),
    ///     Message::tool_result("c2", log),
    /// ]);
    /// // The older output is out of the protected window: its view form is a stub.
    /// let origins: Vec<Option<usize>> = reducer.view().entries().map(|(i, _)| i).collect();
    /// assert_eq!(origins, [Some(0), Some(1), None, Some(3), Some(4)]);
    /// ```
    pub fn entries(&self) -> impl Iterator<Item = (Option<usize>, &'a Message)> + 'a {
        let r = self.reducer;
        let n = r.history.len();
        let (before, cleared, after) = match r.shown_cleared() {
            (Some((first, last)), view) => (first, view, last + 1),
            (None, _) => (n, None, n),
        };
        let plain = r.extras.is_empty() && r.closing.is_none() && r.opening.is_none();
        let at = move |i: usize| {
            let opening = r
                .opening
                .iter()
                .filter(move |(at, _)| !plain && *at == i)
                .map(|(_, m)| (None, m));
            let own = if plain || !r.moved.contains_key(&i) {
                r.slot(i).map(|m| (r.is_history(i).then_some(i), m))
            } else {
                None
            };
            let extras = if plain { None } else { r.extras.get(&i) };
            let moved = extras
                .into_iter()
                .flat_map(|e| e.moved.iter().map(|(_, m)| (None, m)));
            let synthetic = extras
                .into_iter()
                .flat_map(|e| e.synthetic.iter().map(|m| (None, m)));
            let closing = r
                .closing
                .iter()
                .filter(move |(anchor, _)| *anchor == i)
                .flat_map(|(_, c)| c.iter().map(|m| (None, m)));
            opening
                .chain(own)
                .chain(moved)
                .chain(synthetic)
                .chain(closing)
        };
        (0..before)
            .flat_map(at)
            .chain(cleared.map(|m| (None, m)))
            .chain((after..n).flat_map(at))
    }

    /// The view as owned messages.
    pub fn to_vec(&self) -> Vec<Message> {
        self.iter().cloned().collect()
    }
}

impl Reducer {
    /// Whether the view shows history message `index` itself (no stub shown for it).
    fn is_history(&self, index: usize) -> bool {
        match self.stubs.get(index) {
            Some(Some(_)) => self.is_held(index),
            _ => true,
        }
    }

    /// The view form of history message `index` outside the cleared range.
    fn slot(&self, index: usize) -> Option<&Message> {
        match self.stubs.get(index)? {
            Some(stub) if !self.is_held(index) => Some(stub),
            _ => self.history.get(index),
        }
    }

    /// The cleared range the view shows and its stub message.
    fn shown_cleared(&self) -> (Option<(usize, usize)>, Option<&Message>) {
        (self.cleared, self.latest_cleared.as_ref().map(|c| &c.view))
    }
}

/// A tool result that may be reduced: the message, its index, its text and the text's digest.
struct Candidate<'a> {
    msg: &'a Message,
    index: usize,
    text: &'a str,
    digest: Digest,
}

fn mint_duplicate(
    c: &Candidate<'_>,
    canonical: MessageAddr,
    policy: &ReductionPolicy,
    ordinal: usize,
    log: &mut ReductionLog,
) -> Option<Message> {
    let mut reduction = Reduction {
        id: ReductionId::new(ordinal, &c.digest),
        kind: ReductionKind::DuplicateOutput {
            canonical,
            original_bytes: c.text.len(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: c.index,
                role: c.msg.role,
            },
            span: None,
            digest: c.digest,
        },
        stub: String::new(),
    };
    reduction.stub = expected_stub(&reduction, &[]);
    if !text_saves_enough(c.text, json_str_len(&reduction.stub), policy) {
        return None;
    }
    push_minted(reduction, c.msg, log)
}

fn mint_superseded(
    c: &Candidate<'_>,
    by: MessageAddr,
    history: &[Message],
    policy: &ReductionPolicy,
    ordinal: usize,
    log: &mut ReductionLog,
) -> Option<Message> {
    let mut reduction = Reduction {
        id: ReductionId::new(ordinal, &c.digest),
        kind: ReductionKind::Superseded {
            by,
            original_bytes: c.text.len(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: c.index,
                role: c.msg.role,
            },
            span: None,
            digest: c.digest,
        },
        stub: String::new(),
    };
    reduction.stub = expected_stub(&reduction, history);
    if reduction.stub.is_empty()
        || !text_saves_enough(c.text, json_str_len(&reduction.stub), policy)
    {
        return None;
    }
    push_minted(reduction, c.msg, log)
}

/// What a truncation hides the middle of.
#[derive(Debug, Clone, Copy)]
enum Truncated {
    /// A tool result's text.
    ToolOutput,
    /// An assistant message's text.
    AssistantText,
}

/// Whether `index` lies inside the cleared range `cleared` (inclusive message indices).
fn is_in(cleared: Option<(usize, usize)>, index: usize) -> bool {
    cleared.is_some_and(|(first, last)| (first..=last).contains(&index))
}

fn mint_truncation(
    c: &Candidate<'_>,
    what: Truncated,
    policy: &ReductionPolicy,
    ordinal: usize,
    log: &mut ReductionLog,
) -> Option<Message> {
    let (head_bytes, tail_bytes) = match what {
        Truncated::ToolOutput => (policy.head_bytes, policy.tail_bytes),
        Truncated::AssistantText => (
            policy.assistant_text_head_bytes,
            policy.assistant_text_tail_bytes,
        ),
    };
    let span = truncation_span(c.text, head_bytes, tail_bytes)?;
    let hidden = &c.text[span.range()];
    let original_bytes = c.text.len();
    let hidden_lines = memchr::memchr_iter(b'\n', hidden.as_bytes()).count();
    let mut reduction = Reduction {
        id: ReductionId::new(ordinal, &c.digest),
        kind: match what {
            Truncated::ToolOutput => ReductionKind::ToolOutputTruncated {
                original_bytes,
                hidden_lines,
            },
            Truncated::AssistantText => ReductionKind::AssistantTextTruncated {
                original_bytes,
                hidden_lines,
            },
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: c.index,
                role: c.msg.role,
            },
            span: Some(span),
            digest: c.digest,
        },
        stub: String::new(),
    };
    reduction.stub = expected_stub(&reduction, &[]);
    // The hidden bytes become the stub between two line breaks (2 wire bytes each).
    if !text_saves_enough(hidden, json_str_len(&reduction.stub) + 4, policy) {
        return None;
    }
    push_minted(reduction, c.msg, log)
}

/// The normalized form of a tool result written for a terminal (docs/FORMATS.md, "Terminal
/// output"): its text as a terminal would finally show it, after the stub, or, when the
/// normalized text is still over `tool_output_trigger_bytes`, that text's head and tail around
/// the stub (cut as a truncation cuts); `None` when the text does not normalize or the view
/// form does not save `min_saved_bytes` wire bytes.
fn mint_normalized(
    c: &Candidate<'_>,
    policy: &ReductionPolicy,
    ordinal: usize,
    log: &mut ReductionLog,
) -> Option<Message> {
    let normalized = normalize_terminal(c.text)?;
    let cut = if normalized.len() > policy.tool_output_trigger_bytes {
        truncation_span(&normalized, policy.head_bytes, policy.tail_bytes)
    } else {
        None
    };
    let hidden_lines = cut.map_or(0, |span| {
        memchr::memchr_iter(b'\n', &normalized.as_bytes()[span.range()]).count()
    });
    let mut reduction = Reduction {
        id: ReductionId::new(ordinal, &c.digest),
        kind: ReductionKind::OutputNormalized {
            original_bytes: c.text.len(),
            normalized_bytes: normalized.len(),
            cut,
            hidden_lines,
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: c.index,
                role: c.msg.role,
            },
            span: None,
            digest: c.digest,
        },
        stub: String::new(),
    };
    reduction.stub = expected_stub(&reduction, &[]);
    let view_msg = stub_message(&reduction, c.msg).ok()?;
    let shown = view_msg.content_text().map_or(0, json_str_len);
    if !text_saves_enough(c.text, shown, policy) {
        return None;
    }
    log.reductions.push(reduction);
    Some(view_msg)
}

/// Whether replacing `hidden_bytes` by `stub_bytes` (both in wire bytes) saves at least one
/// byte and at least `policy.min_saved_bytes`.
fn saves_enough(hidden_bytes: usize, stub_bytes: usize, policy: &ReductionPolicy) -> bool {
    hidden_bytes > stub_bytes && hidden_bytes - stub_bytes >= policy.min_saved_bytes
}

/// [`saves_enough`] for hiding `text`, whose wire bytes (its JSON-escaped length) are at least
/// its UTF-8 bytes: the escaped length is computed only when the raw length does not already
/// decide, so a large output is not scanned twice.
fn text_saves_enough(text: &str, stub_bytes: usize, policy: &ReductionPolicy) -> bool {
    saves_enough(text.len(), stub_bytes, policy)
        || saves_enough(json_str_len(text), stub_bytes, policy)
}

fn push_minted(reduction: Reduction, msg: &Message, log: &mut ReductionLog) -> Option<Message> {
    let view_msg = stub_message(&reduction, msg).ok()?;
    log.reductions.push(reduction);
    Some(view_msg)
}
