//! Replays of tiny sessions whose figures are computed by hand: a cache hit, a miss after the
//! TTL, a write after a mint inside the cached prefix, a batch shown when the cache is cold,
//! and OpenAI's increments.

use rehydrate_cost::{CallFigures, Pricing, Replay, Strategy, Tokens, replay};
use rehydrate_model::{Message, Role, TIMESTAMP_METADATA_KEY};
use rehydrate_reduce::ReductionPolicy;

fn at(mut m: Message, secs: u32) -> Message {
    let time = format!(
        "2026-01-01T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    m.metadata.insert(TIMESTAMP_METADATA_KEY.to_owned(), time);
    m
}

fn run(history: &[Message], strategy: Strategy, pricing: &Pricing, per_message: u64) -> Replay {
    // A stub is 100 tokens, any other message `per_message`.
    let mut counter = |m: &Message| {
        if m.content_text().is_some_and(|t| t.contains("[rehydrate:")) {
            100
        } else {
            per_message
        }
    };
    let mut tokens = Tokens::new(history.len(), &mut counter);
    replay(
        history,
        &ReductionPolicy::aggressive(),
        strategy,
        pricing,
        &mut tokens,
    )
}

/// `(input, read, write, uncached, output)` of each call.
fn tokens(r: &Replay) -> Vec<(u64, u64, u64, u64, u64)> {
    r.calls
        .iter()
        .map(|c| {
            (
                c.input_tokens,
                c.cache_read,
                c.cache_write,
                c.uncached,
                c.output,
            )
        })
        .collect()
}

fn chat(second_request_at: u32) -> Vec<Message> {
    vec![
        at(Message::text(Role::User, "hi"), 0),
        at(Message::text(Role::Assistant, "hello"), 10),
        at(Message::text(Role::User, "more"), second_request_at),
        at(
            Message::text(Role::Assistant, "more"),
            second_request_at + 10,
        ),
    ]
}

#[test]
fn a_call_within_the_ttl_reads_the_previous_request() {
    let pricing = Pricing::builtin("anthropic-5m").expect("built in");
    let r = run(&chat(60), Strategy::None, &pricing, 2000);
    assert_eq!(
        tokens(&r),
        [(2000, 0, 2000, 0, 2000), (6000, 2000, 4000, 0, 2000)]
    );
    assert_eq!(
        r.calls[1],
        CallFigures {
            call: 1,
            messages: 3,
            input_tokens: 6000,
            cache_read: 2000,
            cache_write: 4000,
            uncached: 0,
            output: 2000,
            cost_usd: (4000.0 * 3.75 + 2000.0 * 0.3 + 2000.0 * 15.0) / 1e6,
            batch: None,
            gap_secs: Some(60.0),
        }
    );
    assert_eq!(r.calls[0].cost_usd, 0.0375);
    assert_eq!(r.calls[0].gap_secs, None);
    assert_eq!(r.totals.calls, 2);
    assert_eq!(r.totals.cost_usd, r.calls[0].cost_usd + r.calls[1].cost_usd);
}

#[test]
fn a_call_after_the_ttl_writes_everything_again() {
    let pricing = Pricing::builtin("anthropic-5m").expect("built in");
    let r = run(&chat(300), Strategy::None, &pricing, 2000);
    assert_eq!(
        tokens(&r),
        [(2000, 0, 2000, 0, 2000), (6000, 0, 6000, 0, 2000)]
    );
    assert_eq!(r.calls[1].gap_secs, Some(300.0));
    // The 1-hour cache still holds it.
    let hour = Pricing::builtin("anthropic-1h").expect("built in");
    let r = run(&chat(300), Strategy::None, &hour, 2000);
    assert_eq!(tokens(&r)[1], (6000, 2000, 4000, 0, 2000));
    assert_eq!(
        r.calls[1].cost_usd,
        (4000.0 * 6.0 + 2000.0 * 0.3 + 2000.0 * 15.0) / 1e6
    );
}

/// A user message, then five calls each making one bash call with a 4000-byte result, then
/// a closing text; the times are `times[k]` seconds for the k-th tool result (and the user
/// message at 0).
fn builds(times: [u32; 5]) -> Vec<Message> {
    let mut history = vec![at(Message::text(Role::User, "build it"), 0)];
    for (i, &t) in times.iter().enumerate() {
        let call = Message::tool_call(
            format!("c{i}"),
            "bash",
            format!(r#"{{"command":"make {i}"}}"#),
        );
        let result = Message::tool_result(format!("c{i}"), format!("line {i}\n").repeat(500));
        history.push(at(call, t.saturating_sub(1)));
        history.push(at(result, t));
    }
    history.push(Message::text(Role::Assistant, "built"));
    history
}

#[test]
fn a_mint_inside_the_cached_prefix_writes_from_the_stub_on() {
    let pricing = Pricing::builtin("anthropic-5m").expect("built in");
    let history = builds([10, 20, 30, 40, 50]);
    // Call 0 is 1000 tokens, under the minimum: not cached. Call 1's prefix (the user
    // message, 1000 tokens) was never cached. From call 4 on, per-turn minting truncates
    // the oldest result leaving the protected window, inside the cached prefix: the request
    // is written again from the stub (position 2) on.
    let per_turn = run(&history, Strategy::PerTurn, &pricing, 1000);
    assert_eq!(
        tokens(&per_turn),
        [
            (1000, 0, 0, 1000, 1000),
            (3000, 0, 3000, 0, 1000),
            (5000, 3000, 2000, 0, 1000),
            (7000, 5000, 2000, 0, 1000),
            (8100, 2000, 6100, 0, 1000),
            (9200, 3100, 6100, 0, 1000),
        ]
    );
    // Per-turn minting shows no cache-aware batch.
    assert!(per_turn.calls.iter().all(|c| c.batch.is_none()));
    // Cache-aware: the truncations save less than a batch and wait; the view stays as sent.
    let cache_aware = run(&history, Strategy::CacheAware, &pricing, 1000);
    let none = run(&history, Strategy::None, &pricing, 1000);
    let expected = [
        (1000, 0, 0, 1000, 1000),
        (3000, 0, 3000, 0, 1000),
        (5000, 3000, 2000, 0, 1000),
        (7000, 5000, 2000, 0, 1000),
        (9000, 7000, 2000, 0, 1000),
        (11000, 9000, 2000, 0, 1000),
    ];
    assert_eq!(tokens(&cache_aware), expected);
    assert_eq!(tokens(&none), expected);
    assert!(cache_aware.calls.iter().all(|c| c.batch.is_none()));
    assert_eq!(
        per_turn.totals.cost_usd,
        per_turn.calls.iter().map(|c| c.cost_usd).sum::<f64>()
    );
}

#[test]
fn a_cold_cache_shows_the_waiting_reductions_at_no_extra_write() {
    let pricing = Pricing::builtin("anthropic-5m").expect("built in");
    // Call 4 is sent 400 s after call 3: the cache is cold, so the waiting truncation of the
    // first result is shown then, and everything is written anyway.
    let history = builds([10, 20, 30, 430, 440]);
    let cache_aware = run(&history, Strategy::CacheAware, &pricing, 1000);
    assert_eq!(
        tokens(&cache_aware),
        [
            (1000, 0, 0, 1000, 1000),
            (3000, 0, 3000, 0, 1000),
            (5000, 3000, 2000, 0, 1000),
            (7000, 5000, 2000, 0, 1000),
            (8100, 0, 8100, 0, 1000),
            (10100, 8100, 2000, 0, 1000),
        ]
    );
    assert_eq!(cache_aware.calls[4].batch, Some(0));
    assert_eq!(cache_aware.calls[4].gap_secs, Some(400.0));
    // Call 5: the second result's truncation waits (the cache is warm again).
    assert_eq!(cache_aware.calls[5].batch, None);
    let none = run(&history, Strategy::None, &pricing, 1000);
    assert_eq!(tokens(&none)[4], (9000, 0, 9000, 0, 1000));
    assert!(cache_aware.totals.cost_usd < none.totals.cost_usd);
}

#[test]
fn openai_reads_whole_increments_and_bills_no_write() {
    let pricing = Pricing::builtin("openai").expect("built in");
    let history = [
        Message::text(Role::User, "a"),
        Message::text(Role::Assistant, "b"),
        Message::text(Role::User, "c"),
        Message::text(Role::Assistant, "d"),
        Message::text(Role::User, "e"),
        Message::text(Role::Assistant, "f"),
    ];
    let r = run(&history, Strategy::None, &pricing, 700);
    // Call 2's cached prefix is 2100 tokens: 1024 and 8 steps of 128.
    assert_eq!(
        tokens(&r),
        [
            (700, 0, 0, 700, 700),
            (2100, 0, 0, 2100, 700),
            (3500, 2048, 0, 1452, 700),
        ]
    );
    assert_eq!(
        r.calls[2].cost_usd,
        (1452.0 * 1.25 + 2048.0 * 0.125 + 700.0 * 10.0) / 1e6
    );
}

#[test]
fn each_distinct_wire_form_is_counted_once_across_the_strategies() {
    let pricing = Pricing::builtin("anthropic-5m").expect("built in");
    let history = builds([10, 20, 30, 40, 50]);
    let mut counted = 0;
    let mut counter = |m: &Message| {
        counted += 1;
        m.wire_len() as u64
    };
    let replays = rehydrate_cost::replay_all(
        &history,
        &ReductionPolicy::aggressive(),
        &pricing,
        &mut counter,
    );
    assert_eq!(replays.len(), 3);
    // The 12 history messages and the two truncated results per-turn minting shows (the
    // second of them in call 5 only); cache-aware minting shows none here.
    assert_eq!(counted, 14);
}
