//! The replay: each model call of a session sent again under a [`Strategy`], a reducer fed as
//! a live host would feed it, and each request billed by the provider's prefix rules.

use std::collections::HashMap;
use std::time::Duration;

use rehydrate_model::Message;
use rehydrate_reduce::{BatchCause, CacheState, Minting, Reducer, ReductionPolicy};

use crate::account::{Bill, bill};
use crate::{Call, Pricing, calls};

/// How the history is reduced before each model call (docs/COST.md, "Strategies").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// No reduction: [`ReductionPolicy::repairs_only`], which still makes the pairing repairs
    /// so that every request is a valid body.
    None,
    /// The preset with [`Minting::PerTurn`]: every reduction shown in the projection that
    /// decides it, inside the cached prefix or not.
    PerTurn,
    /// The preset as it is, cache-aware minting with the pricing's TTL as its `cache_ttl`.
    CacheAware,
}

impl Strategy {
    /// The three strategies, in the order they are reported.
    pub const ALL: [Strategy; 3] = [Strategy::None, Strategy::PerTurn, Strategy::CacheAware];

    /// The strategy's name: `none`, `per-turn` or `cache-aware`.
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::None => "none",
            Strategy::PerTurn => "per-turn",
            Strategy::CacheAware => "cache-aware",
        }
    }

    /// The policy this strategy projects with, from the `preset` and the `pricing` (whose TTL
    /// is the cache-aware minting's `cache_ttl`; a preset with per-turn minting gets the
    /// presets' batches, [`Minting::cache_aware`], under [`Strategy::CacheAware`]).
    pub fn policy(self, preset: &ReductionPolicy, pricing: &Pricing) -> ReductionPolicy {
        match self {
            Strategy::None => ReductionPolicy::repairs_only(),
            Strategy::PerTurn => ReductionPolicy {
                minting: Minting::PerTurn,
                ..preset.clone()
            },
            Strategy::CacheAware => {
                let (min_saved_bytes, min_saved_per_mille) = match preset.minting {
                    Minting::CacheAware {
                        min_saved_bytes,
                        min_saved_per_mille,
                        ..
                    } => (min_saved_bytes, min_saved_per_mille),
                    Minting::PerTurn => (
                        Minting::DEFAULT_BATCH_BYTES,
                        Minting::DEFAULT_SAVED_PER_MILLE,
                    ),
                };
                ReductionPolicy {
                    minting: Minting::CacheAware {
                        min_saved_bytes,
                        min_saved_per_mille,
                        cache_ttl: pricing.ttl,
                    },
                    ..preset.clone()
                }
            }
        }
    }
}

/// What one model call's request and output cost under one strategy (docs/COST.md, "The
/// model"). Token counts are the counter's; `cache_read + cache_write + uncached ==
/// input_tokens`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CallFigures {
    /// The call's position in [`crate::calls`], from 0.
    pub call: usize,
    /// Messages in the request (the reducer's view, closed).
    pub messages: usize,
    /// Tokens of the request, summed per message.
    pub input_tokens: u64,
    /// Tokens read from the cache.
    pub cache_read: u64,
    /// Tokens written to the cache (billed only where the pricing bills writes).
    pub cache_write: u64,
    /// Input tokens billed at the base input price.
    pub uncached: u64,
    /// Tokens of the call's assistant messages, the same under every strategy.
    pub output: u64,
    /// The call's cost in USD.
    pub cost_usd: f64,
    /// The position in [`Reducer::batches`] of the last cache-aware batch the reducer showed
    /// while this request was projected (cause `Saved` or `Cold`, not `Decided`), if it
    /// showed one: always `None` under per-turn minting and no reduction.
    pub batch: Option<usize>,
    /// Seconds since the previous call's request, when both times are known.
    pub gap_secs: Option<f64>,
}

/// The sums of a strategy's [`CallFigures`].
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Totals {
    /// Model calls.
    pub calls: usize,
    /// Tokens of every request.
    pub input_tokens: u64,
    /// Tokens read from the cache.
    pub cache_read: u64,
    /// Tokens written to the cache.
    pub cache_write: u64,
    /// Input tokens billed at the base price.
    pub uncached: u64,
    /// Output tokens.
    pub output: u64,
    /// USD, the sum of the calls' costs in call order.
    pub cost_usd: f64,
}

impl Totals {
    fn add(&mut self, c: &CallFigures) {
        self.calls += 1;
        self.input_tokens += c.input_tokens;
        self.cache_read += c.cache_read;
        self.cache_write += c.cache_write;
        self.uncached += c.uncached;
        self.output += c.output;
        self.cost_usd += c.cost_usd;
    }
}

/// A session replayed under one strategy: the figures of each call and their totals.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Replay {
    /// The strategy replayed.
    pub strategy: Strategy,
    /// The totals over `calls`.
    pub totals: Totals,
    /// One entry per model call, in order.
    pub calls: Vec<CallFigures>,
}

/// The wire-form keys and token counts of messages, each distinct wire form counted once
/// (the caller's counter is called once per blake3 of the wire bytes).
pub struct Tokens<'c> {
    counter: &'c mut dyn FnMut(&Message) -> u64,
    /// The key of each message of the session's history, by index, once computed.
    by_index: Vec<Option<Key>>,
    /// Tokens of each wire form seen, by its blake3.
    by_digest: HashMap<blake3::Hash, u64>,
    wire: Vec<u8>,
}

/// A message's wire-form digest and its tokens.
type Key = (blake3::Hash, u64);

impl<'c> Tokens<'c> {
    /// Keys for a session of `messages` messages, tokens counted by `counter` (tokens of one
    /// message's wire form, [`Message::write_wire`]).
    pub fn new(messages: usize, counter: &'c mut dyn FnMut(&Message) -> u64) -> Tokens<'c> {
        Tokens {
            counter,
            by_index: vec![None; messages],
            by_digest: HashMap::new(),
            wire: Vec::new(),
        }
    }

    /// The key of history message `index`, which is `m`.
    fn at(&mut self, index: usize, m: &Message) -> Key {
        match self.by_index.get(index) {
            Some(Some(key)) => *key,
            Some(None) => {
                let key = self.form(m);
                self.by_index[index] = Some(key);
                key
            }
            None => self.form(m),
        }
    }

    /// The key of `m`, hashed now.
    fn form(&mut self, m: &Message) -> Key {
        self.wire.clear();
        m.write_wire(&mut self.wire);
        let digest = blake3::hash(&self.wire);
        let counter = &mut self.counter;
        let tokens = *self.by_digest.entry(digest).or_insert_with(|| counter(m));
        (digest, tokens)
    }

    /// The key of the view message `m` of a reducer whose history is `history`: a message the
    /// view borrows from the history is keyed once by its index, any other is hashed.
    fn view_key(&mut self, history: &[Message], m: &Message) -> Key {
        match history_index(history, m) {
            Some(index) => self.at(index, m),
            None => self.form(m),
        }
    }
}

/// The index of `m` in `history` when `m` is one of its elements (the same place in memory),
/// not merely an equal message.
fn history_index(history: &[Message], m: &Message) -> Option<usize> {
    let size = std::mem::size_of::<Message>();
    let base = history.as_ptr() as usize;
    let at = std::ptr::from_ref(m) as usize;
    let offset = at.checked_sub(base)?;
    let index = offset / size;
    (offset % size == 0 && index < history.len()).then_some(index)
}

/// Replays every model call of `history` ([`calls`]) under `strategy`, with the reductions of
/// `preset` and the cache rules of `pricing` (docs/COST.md, "The replay").
///
/// One [`Reducer`] is fed as a live host would: before each call, the messages since the
/// previous call, with [`CacheState::Cold`] for the first call, [`CacheState::Idle`] of the
/// time since the previous call's request when both times are known, [`CacheState::Warm`]
/// otherwise ([`Reducer::project`] for [`Strategy::PerTurn`]); then [`Reducer::close`], and
/// the request is the view. Work: the reductions' own, plus one pass over every request's
/// messages, hashing the wire bytes of the ones the view does not borrow from the history.
///
/// # Example
///
/// ```
/// use rehydrate_cost::{Pricing, Strategy, Tokens, replay};
/// use rehydrate_model::{Message, Role};
/// use rehydrate_reduce::ReductionPolicy;
///
/// let history = [
///     Message::text(Role::User, "hi"),
///     Message::text(Role::Assistant, "hello"),
///     Message::text(Role::User, "and?"),
///     Message::text(Role::Assistant, "that is all"),
/// ];
/// let pricing = Pricing::builtin("anthropic-5m")?;
/// let mut counter = |_: &Message| 2000; // every message is 2000 tokens
/// let mut tokens = Tokens::new(history.len(), &mut counter);
/// let none = replay(&history, &ReductionPolicy::aggressive(), Strategy::None, &pricing, &mut tokens);
/// // Call 0 writes its 2000-token request; call 1 reads it and writes the 4000 new tokens
/// // (no timestamps: the cache is taken to be warm).
/// assert_eq!(none.totals.input_tokens, 8000);
/// assert_eq!((none.totals.cache_read, none.totals.cache_write), (2000, 6000));
/// assert_eq!(none.totals.output, 4000);
/// # Ok::<(), rehydrate_cost::Error>(())
/// ```
pub fn replay(
    history: &[Message],
    preset: &ReductionPolicy,
    strategy: Strategy,
    pricing: &Pricing,
    tokens: &mut Tokens<'_>,
) -> Replay {
    let calls = calls(history);
    let mut reducer = Reducer::new(strategy.policy(preset, pricing));
    reducer.reserve(history.len());
    let mut fed = 0;
    let mut previous: Option<(Vec<blake3::Hash>, Option<jiff::Timestamp>)> = None;
    let mut figures = Vec::with_capacity(calls.len());
    let mut totals = Totals::default();
    for (k, call) in calls.iter().enumerate() {
        let gap = previous
            .as_ref()
            .and_then(|(_, before)| Some(gap(before.as_ref()?, call.time.as_ref()?)));
        let cache = match (&previous, gap) {
            (None, _) => CacheState::Cold,
            (Some(_), Some(gap)) => CacheState::Idle(gap),
            (Some(_), None) => CacheState::Warm,
        };
        let batches = reducer.batches().len();
        let new = history[fed..call.request_end].iter().cloned();
        match strategy {
            Strategy::PerTurn => reducer.project(new),
            Strategy::None | Strategy::CacheAware => reducer.project_cached(new, cache),
        };
        fed = call.request_end;
        reducer.close();
        // A cache-aware batch shown in this projection (waiting reductions that saved enough,
        // or a cold cache), not a growth of the log by reductions shown as decided.
        let batch = (batches..reducer.batches().len())
            .rev()
            .find(|&b| reducer.batches()[b].cause != BatchCause::Decided);

        let view = reducer.view();
        let mut keys = Vec::with_capacity(view.len());
        let mut counts = Vec::with_capacity(view.len());
        for m in view.iter() {
            let (digest, n) = tokens.view_key(reducer.history(), m);
            keys.push(digest);
            counts.push(n);
        }
        let warm = match (&previous, gap) {
            (None, _) => false,
            (Some(_), Some(gap)) => gap < pricing.ttl,
            (Some(_), None) => true,
        };
        let common = previous.as_ref().map_or(0, |(before, _)| {
            before.iter().zip(&keys).take_while(|(a, b)| a == b).count()
        });
        let output: u64 = call
            .output
            .clone()
            .map(|i| tokens.at(i, &history[i]).1)
            .sum();
        let Bill {
            input,
            read,
            write,
            uncached,
        } = bill(pricing, &counts, if warm { common } else { 0 });
        let c = CallFigures {
            call: k,
            messages: keys.len(),
            input_tokens: input,
            cache_read: read,
            cache_write: write,
            uncached,
            output,
            cost_usd: pricing.cost_usd(uncached, write, read, output),
            batch,
            gap_secs: gap_secs(previous.as_ref().and_then(|(_, t)| t.as_ref()), call),
        };
        totals.add(&c);
        figures.push(c);
        previous = Some((keys, call.time));
    }
    Replay {
        strategy,
        totals,
        calls: figures,
    }
}

/// [`replay`] under each of [`Strategy::ALL`], in that order, sharing the token counts.
pub fn replay_all(
    history: &[Message],
    preset: &ReductionPolicy,
    pricing: &Pricing,
    counter: &mut dyn FnMut(&Message) -> u64,
) -> Vec<Replay> {
    let mut tokens = Tokens::new(history.len(), counter);
    Strategy::ALL
        .iter()
        .map(|&s| replay(history, preset, s, pricing, &mut tokens))
        .collect()
}

/// The time from `before` to `after`; 0 when `after` is earlier (a clock that went back).
fn gap(before: &jiff::Timestamp, after: &jiff::Timestamp) -> Duration {
    let nanos = after.as_nanosecond() - before.as_nanosecond();
    Duration::from_nanos(u64::try_from(nanos.max(0)).unwrap_or(u64::MAX))
}

/// The seconds since the previous call's request, when both times are known: the [`gap`],
/// 0 when the clock went back.
fn gap_secs(before: Option<&jiff::Timestamp>, call: &Call) -> Option<f64> {
    Some(gap(before?, call.time.as_ref()?).as_secs_f64())
}
