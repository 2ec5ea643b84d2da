//! [`bill`]: one request's input tokens split into cache reads, cache writes and uncached
//! input by the provider's prefix rules (docs/COST.md, "The model").

use crate::Pricing;

/// One request's input tokens and how they are billed: `read + write + uncached == input`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bill {
    pub(crate) input: u64,
    pub(crate) read: u64,
    pub(crate) write: u64,
    pub(crate) uncached: u64,
}

/// The bill of a request whose messages have `tokens` each, of which the first `cached`
/// messages are the prefix the cache still holds (0 when it holds nothing).
///
/// The read is the prefix's tokens counted as the provider counts them ([`cached_tokens`]).
/// A request under `min_cached_tokens` is not cached: the rest is uncached input. Otherwise,
/// where writes are billed (Anthropic, the breakpoint at the request's end as Claude Code puts
/// it), the rest is written; where they are not (OpenAI), the rest is uncached input.
pub(crate) fn bill(pricing: &Pricing, tokens: &[u64], cached: usize) -> Bill {
    let input: u64 = tokens.iter().sum();
    let prefix: u64 = tokens.iter().take(cached).sum();
    let read = cached_tokens(pricing, prefix);
    let rest = input - read;
    let (write, uncached) = if pricing.writes_billed && input >= pricing.min_cached_tokens {
        (rest, 0)
    } else {
        (0, rest)
    };
    Bill {
        input,
        read,
        write,
        uncached,
    }
}

/// The tokens of a cached prefix of `prefix` tokens that the provider reads: none under
/// `min_cached_tokens` (no shorter prefix was ever cached), else the minimum and then whole
/// steps of `cached_increment` (OpenAI: 1024, then steps of 128).
pub(crate) fn cached_tokens(pricing: &Pricing, prefix: u64) -> u64 {
    let min = pricing.min_cached_tokens;
    if prefix < min || prefix == 0 {
        return 0;
    }
    let step = pricing.cached_increment.max(1);
    min + (prefix - min) / step * step
}
