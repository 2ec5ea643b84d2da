//! Properties over random small sessions: at every call the cache-aware request has no more
//! tokens than the unreduced one, and every request's tokens are billed whole.

use proptest::prelude::*;
use rehydrate_cost::{Pricing, Strategy as Replayed, replay_all};
use rehydrate_model::{Message, Role, TIMESTAMP_METADATA_KEY};
use rehydrate_reduce::ReductionPolicy;

/// One step of a random session.
#[derive(Debug, Clone)]
enum Step {
    /// A user message of this many bytes.
    User(usize),
    /// An assistant text of this many bytes.
    Text(usize),
    /// A tool call of command `n` (repeats make re-runs) and its result of this many bytes
    /// (a repeated size makes a duplicate).
    Tool(u8, usize),
    /// A tool call left unanswered.
    Unanswered,
    /// The clock moves this many seconds before the next message.
    Wait(u32),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (1usize..3000).prop_map(Step::User),
        (1usize..3000).prop_map(Step::Text),
        (
            0u8..4,
            prop_oneof![Just(100usize), Just(5000), 1usize..40_000]
        )
            .prop_map(|(n, size)| Step::Tool(n, size)),
        Just(Step::Unanswered),
        prop_oneof![Just(30u32), Just(299), Just(301), Just(4000)].prop_map(Step::Wait),
    ]
}

fn session(steps: &[Step]) -> Vec<Message> {
    let mut history = vec![Message::text(Role::User, "start")];
    let mut clock = 0u32;
    for (i, s) in steps.iter().enumerate() {
        match *s {
            Step::User(n) => history.push(Message::text(Role::User, "u".repeat(n))),
            Step::Text(n) => history.push(Message::text(Role::Assistant, "t".repeat(n))),
            Step::Tool(cmd, size) => {
                let id = format!("c{i}");
                let args = format!(r#"{{"command":"run {cmd}"}}"#);
                history.push(Message::tool_call(id.clone(), "bash", args));
                let text: String = (0..size)
                    .map(|j| if j % 80 == 79 { '\n' } else { 'x' })
                    .collect();
                history.push(Message::tool_result(id, text));
            }
            Step::Unanswered => {
                history.push(Message::tool_call(format!("u{i}"), "bash", "{}"));
            }
            Step::Wait(secs) => clock += secs,
        }
        let last = history.len() - 1;
        let stamp = stamp(clock);
        history[last]
            .metadata
            .insert(TIMESTAMP_METADATA_KEY.to_owned(), stamp);
        clock += 1;
    }
    history
}

/// An RFC 3339 time `secs` seconds after 2026-01-01T00:00:00Z (under 10 days).
fn stamp(secs: u32) -> String {
    let (d, h, m, s) = (secs / 86400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    format!("2026-01-{:02}T{h:02}:{m:02}:{s:02}Z", d + 1)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn cache_aware_never_sends_more_and_every_token_is_billed(
        steps in prop::collection::vec(step(), 1..40),
        pricing in prop_oneof![Just("anthropic-5m"), Just("anthropic-1h"), Just("openai")],
        aggressive in any::<bool>(),
    ) {
        let history = session(&steps);
        let pricing = Pricing::builtin(pricing).expect("built in");
        let preset = if aggressive { ReductionPolicy::aggressive() } else { ReductionPolicy::default() };
        let mut bytes = |m: &Message| m.wire_len() as u64;
        let replays = replay_all(&history, &preset, &pricing, &mut bytes);
        prop_assert_eq!(replays.len(), 3);
        let none = &replays[0];
        prop_assert_eq!(none.strategy, Replayed::None);
        for r in &replays {
            prop_assert_eq!(r.calls.len(), none.calls.len());
            for (c, n) in r.calls.iter().zip(&none.calls) {
                prop_assert_eq!(c.cache_read + c.cache_write + c.uncached, c.input_tokens);
                prop_assert_eq!(c.output, n.output);
                if !pricing.writes_billed {
                    prop_assert_eq!(c.cache_write, 0);
                }
            }
            let t = &r.totals;
            prop_assert_eq!(t.cache_read + t.cache_write + t.uncached, t.input_tokens);
            prop_assert_eq!(t.input_tokens, r.calls.iter().map(|c| c.input_tokens).sum::<u64>());
        }
        let cache_aware = &replays[2];
        prop_assert_eq!(cache_aware.strategy, Replayed::CacheAware);
        for (c, n) in cache_aware.calls.iter().zip(&none.calls) {
            prop_assert!(
                c.input_tokens <= n.input_tokens,
                "call {}: cache-aware {} tokens, none {}", c.call, c.input_tokens, n.input_tokens
            );
        }
    }
}
