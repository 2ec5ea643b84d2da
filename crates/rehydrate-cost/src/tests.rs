//! Unit tests: the built-in table, pricing files, the cached-token rules and the call split.

use std::time::Duration;

use rehydrate_model::{Message, Role, TIMESTAMP_METADATA_KEY};

use crate::account::{Bill, bill, cached_tokens};
use crate::{Error, Pricing, calls};

#[test]
fn the_builtin_table_holds_its_three_entries_with_their_sources() {
    assert_eq!(
        Pricing::builtin_names(),
        ["anthropic-1h", "anthropic-5m", "openai"]
    );
    let five = Pricing::builtin("anthropic-5m").expect("built in");
    assert_eq!(
        (five.input, five.cache_write, five.cache_read, five.output),
        (3.0, 3.75, 0.3, 15.0)
    );
    assert_eq!(five.ttl, Duration::from_secs(300));
    assert_eq!(
        (
            five.min_cached_tokens,
            five.cached_increment,
            five.writes_billed
        ),
        (1024, 1, true)
    );
    let hour = Pricing::builtin("anthropic-1h").expect("built in");
    assert_eq!(
        (hour.cache_write, hour.ttl),
        (6.0, Duration::from_secs(3600))
    );
    let openai = Pricing::builtin("openai").expect("built in");
    assert_eq!(
        (openai.input, openai.cache_read, openai.output),
        (1.25, 0.125, 10.0)
    );
    assert_eq!(
        (
            openai.ttl,
            openai.min_cached_tokens,
            openai.cached_increment,
            openai.writes_billed
        ),
        (Duration::from_secs(300), 1024, 128, false)
    );
    for name in Pricing::builtin_names() {
        let p = Pricing::builtin(&name).expect("built in");
        assert_eq!(p.name, name);
        assert!(p.source.starts_with("https://"), "{name}: {}", p.source);
        assert_eq!(p.date, "2026-12-01");
    }
}

#[test]
fn an_unknown_builtin_names_the_known_ones() {
    let err = Pricing::builtin("gemini").unwrap_err();
    assert!(err.is_unknown_pricing());
    assert_eq!(
        err.to_string(),
        "unknown pricing `gemini`: the built-in ones are anthropic-1h, anthropic-5m, openai"
    );
}

const ENTRY: &str = r#""input": 2, "cache_write": 2.5, "cache_read": 0.2, "output": 10,
    "ttl_secs": 90.5, "min_cached_tokens": 512, "cached_increment": 64, "writes_billed": false"#;

#[test]
fn a_pricing_file_is_one_entry_or_a_map_of_one() {
    let one = Pricing::from_json(&format!("{{{ENTRY}}}")).expect("one entry");
    assert_eq!(one.name, "custom");
    assert_eq!(one.ttl, Duration::from_millis(90_500));
    assert_eq!((one.min_cached_tokens, one.cached_increment), (512, 64));
    assert_eq!((one.source.as_str(), one.date.as_str()), ("", ""));
    let map = Pricing::from_json(&format!(r#"{{"cheap": {{{ENTRY}, "source": "s"}}}}"#))
        .expect("a map of one");
    assert_eq!((map.name.as_str(), map.source.as_str()), ("cheap", "s"));
    assert_eq!(
        Pricing {
            name: "custom".into(),
            source: String::new(),
            ..map
        },
        one
    );
}

#[test]
fn pricing_errors_name_the_entry_and_the_field() {
    let err = |text: &str| Pricing::from_json(text).unwrap_err().to_string();
    assert_eq!(
        err(r#"{"input": 2}"#),
        "invalid pricing: missing field `cache_write` at line 1 column 12"
    );
    assert_eq!(
        err(&format!(r#"{{"a": {{{ENTRY}, "colour": 1}}}}"#)),
        "invalid pricing (entry `a`): unknown field `colour`, expected one of `name`, `model`, `input`, `cache_write`, `cache_read`, `output`, `ttl_secs`, `min_cached_tokens`, `cached_increment`, `writes_billed`, `source`, `date`"
    );
    assert_eq!(
        err(&format!(
            "{{{}}}",
            ENTRY.replace(r#""output": 10"#, r#""output": -1"#)
        )),
        "invalid pricing: field `output` must be a price from 0 to 1e6 USD per million tokens, got -1"
    );
    assert_eq!(
        err(&format!(
            r#"{{"x": {{{}}}}}"#,
            ENTRY.replace(r#""cached_increment": 64"#, r#""cached_increment": 0"#)
        )),
        "invalid pricing (entry `x`): field `cached_increment` must be at least 1 token, got 0"
    );
    assert_eq!(
        err(&format!("{{{}}}", ENTRY.replace("90.5", "-3"))),
        "invalid pricing: field `ttl_secs` must be a number of seconds from 0 to 1e9, got -3"
    );
    assert_eq!(
        err(&format!(r#"{{"a": {{{ENTRY}}}, "b": {{{ENTRY}}}}}"#)),
        "a pricing file holds one entry, or a map of one entry; this one holds 2 (a, b)"
    );
    assert_eq!(
        err("{}"),
        "a pricing file holds one entry, or a map of one entry; this one holds 0"
    );
    assert_eq!(
        err("[1]"),
        "invalid pricing: invalid type: sequence, expected a map at line 1 column 0"
    );
    assert!(matches!(
        Pricing::from_json("{").unwrap_err(),
        Error::Parse { entry: None, .. }
    ));
}

#[test]
fn cached_tokens_start_at_the_minimum_and_grow_by_the_increment() {
    let openai = Pricing::builtin("openai").expect("built in");
    let counted: Vec<u64> = [0, 1023, 1024, 1151, 1152, 1279, 1280, 5000]
        .iter()
        .map(|&p| cached_tokens(&openai, p))
        .collect();
    assert_eq!(counted, [0, 0, 1024, 1024, 1152, 1152, 1280, 4992]);
    let anthropic = Pricing::builtin("anthropic-5m").expect("built in");
    let counted: Vec<u64> = [0, 1023, 1024, 1025, 5000]
        .iter()
        .map(|&p| cached_tokens(&anthropic, p))
        .collect();
    assert_eq!(counted, [0, 0, 1024, 1025, 5000]);
}

#[test]
fn a_request_is_read_written_or_uncached() {
    let anthropic = Pricing::builtin("anthropic-5m").expect("built in");
    let bill_of = |p: &Pricing, cached| bill(p, &[600, 600, 600], cached);
    // Under the minimum: nothing is cached, nothing written.
    assert_eq!(
        bill(&anthropic, &[600, 400], 1),
        Bill {
            input: 1000,
            read: 0,
            write: 0,
            uncached: 1000
        }
    );
    assert_eq!(
        bill_of(&anthropic, 0),
        Bill {
            input: 1800,
            read: 0,
            write: 1800,
            uncached: 0
        }
    );
    // A one-message prefix of 600 tokens was never cached on its own.
    assert_eq!(
        bill_of(&anthropic, 1),
        Bill {
            input: 1800,
            read: 0,
            write: 1800,
            uncached: 0
        }
    );
    assert_eq!(
        bill_of(&anthropic, 2),
        Bill {
            input: 1800,
            read: 1200,
            write: 600,
            uncached: 0
        }
    );
    let openai = Pricing::builtin("openai").expect("built in");
    assert_eq!(
        bill_of(&openai, 2),
        Bill {
            input: 1800,
            read: 1152,
            write: 0,
            uncached: 648
        }
    );
    assert_eq!(
        bill_of(&openai, 3),
        Bill {
            input: 1800,
            read: 1792,
            write: 0,
            uncached: 8
        }
    );
}

#[test]
fn costs_are_tokens_times_prices_per_million() {
    let anthropic = Pricing::builtin("anthropic-5m").expect("built in");
    assert_eq!(anthropic.cost_usd(0, 2000, 0, 2000), 0.0375);
    assert_eq!(anthropic.cost_usd(1_000_000, 0, 0, 0), 3.0);
    assert_eq!(anthropic.cost_usd(0, 0, 1_000_000, 0), 0.3);
    let openai = Pricing::builtin("openai").expect("built in");
    // Writes are plain input where they are not billed.
    assert_eq!(openai.cost_usd(0, 1_000_000, 0, 0), 1.25);
}

fn at(m: Message, time: &str) -> Message {
    let mut m = m;
    m.metadata
        .insert(TIMESTAMP_METADATA_KEY.to_owned(), time.to_owned());
    m
}

#[test]
fn a_call_is_sent_at_the_last_message_before_its_run() {
    let history = [
        at(
            Message::text(Role::Assistant, "opening"),
            "2026-01-01T00:00:00Z",
        ),
        at(Message::text(Role::User, "go"), "2026-01-01T00:00:10Z"),
        at(Message::text(Role::Assistant, "a"), "2026-01-01T00:00:20Z"),
        Message::text(Role::User, "no time"),
        at(
            Message::text(Role::Assistant, "b"),
            "2026-01-01T00:01:00+01:00",
        ),
        at(Message::text(Role::User, "bad"), "yesterday"),
        Message::text(Role::Assistant, "c"),
    ];
    let found = calls(&history);
    let shown: Vec<(usize, std::ops::Range<usize>, Option<String>)> = found
        .iter()
        .map(|c| {
            let time = c.time.map(|t| t.to_string());
            (c.request_end, c.output.clone(), time)
        })
        .collect();
    assert_eq!(
        shown,
        [
            (0, 0..1, Some("2026-01-01T00:00:00Z".to_owned())),
            (2, 2..3, Some("2026-01-01T00:00:10Z".to_owned())),
            (4, 4..5, Some("2025-12-31T23:01:00Z".to_owned())),
            (6, 6..7, None),
        ]
    );
    assert!(calls(&[Message::text(Role::User, "alone")]).is_empty());
}
