//! What an agent session costs once the provider's prompt cache is counted: every model call
//! of a recorded session sent again under no reduction, per-turn reduction and cache-aware
//! reduction, and each request billed by the provider's prefix rules (docs/COST.md).
//!
//! Reducing tokens is not the same as saving money: a reduction minted in an old message
//! changes the prompt from that message on, so the next request writes the cache again from
//! there. This crate measures the net effect.
//!
//! # Where to start
//!
//! - [`Pricing`]: a provider's prices (USD per million tokens) and cache rules, built in
//!   ([`Pricing::builtin`]: `anthropic-5m`, `anthropic-1h`, `openai`, data in `pricing.json`
//!   with its source and date) or read from a file ([`Pricing::from_json`]).
//! - [`replay_all`]: the three [`Strategy`]s of one session, each a [`Replay`] with the
//!   [`CallFigures`] of every call and their [`Totals`]; [`replay`] runs one.
//! - [`calls`]: the model calls of a session ([`Call`]: request, output, time).
//!
//! The crate has no tokenizer: the caller passes a counter of one message's tokens
//! (`rehydrate cost` passes o200k_base, an approximation for Anthropic's models).
//!
//! # Example
//!
//! ```
//! use rehydrate_cost::{Pricing, Strategy, replay_all};
//! use rehydrate_model::{Message, Role};
//! use rehydrate_reduce::ReductionPolicy;
//!
//! let mut history = vec![Message::text(Role::User, "build it")];
//! for i in 0..6 {
//!     history.push(Message::tool_call(format!("c{i}"), "bash", "{}"));
//!     history.push(Message::tool_result(format!("c{i}"), "log line\n".repeat(2000)));
//! }
//! history.push(Message::text(Role::Assistant, "built"));
//! let pricing = Pricing::builtin("anthropic-5m")?;
//! let mut bytes = |m: &Message| m.wire_len() as u64; // a stand-in for a tokenizer
//! let replays = replay_all(&history, &ReductionPolicy::aggressive(), &pricing, &mut bytes);
//! let [none, per_turn, cache_aware] = &replays[..] else { unreachable!() };
//! assert_eq!(none.strategy, Strategy::None);
//! assert_eq!(none.totals.calls, 7);
//! // Every strategy's request tokens are billed whole: read, written or uncached.
//! for r in &replays {
//!     let t = &r.totals;
//!     assert_eq!(t.cache_read + t.cache_write + t.uncached, t.input_tokens);
//! }
//! assert!(cache_aware.totals.input_tokens <= none.totals.input_tokens);
//! assert!(per_turn.totals.input_tokens <= none.totals.input_tokens);
//! # Ok::<(), rehydrate_cost::Error>(())
//! ```
//!
//! # Untrusted input
//!
//! A session's messages may be anything a format imports: a timestamp that does not parse is
//! no time, a clock that goes back is a gap of 0. A pricing file is checked field by field
//! ([`Error`]); nothing here panics on input.

#![forbid(unsafe_code)]

mod account;
mod calls;
mod error;
mod pricing;
mod replay;

#[cfg(test)]
mod tests;

pub use calls::{Call, calls};
pub use error::Error;
pub use pricing::Pricing;
pub use replay::{CallFigures, Replay, Strategy, Tokens, Totals, replay, replay_all};
