//! `rehydrate cost`: the table on the cost fixture, the `--json` shape, a pricing file, a bad
//! pricing file, a missing session, and the plot.

use serde_json::Value;

use super::{fixture, rehydrate, scratch, stderr};

fn session() -> String {
    fixture("cost/build-session.jsonl")
        .to_str()
        .unwrap()
        .to_owned()
}

const PRICING_5M: &str = "pricing anthropic-5m (Claude Sonnet 4.5, 5-minute cache): $3 input, $3.75 cache write, $0.3 cache read, $15 output per million tokens; cache 300 s, at least 1024 tokens; source https://platform.claude.com/docs/en/about-claude/pricing, read 2026-12-01; tokens o200k_base (OpenAI's tokenizer, an approximation of Anthropic's)";

#[test]
fn cost_prints_one_row_per_strategy_and_the_pricing() {
    let out = rehydrate(&["cost", &session()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let expected = format!(
        "{} (19256 tokens, preset aggressive)
strategy      calls  input tokens  cache reads  cache writes   uncached    output   cost USD  vs none
none             10         86283        56801         29458         24       502     0.1351    +0.0%
per-turn         10         59821         5557         54240         24       502     0.2127   +57.4%
cache-aware      10         75923        49031         26868         24       502     0.1231    -8.9%
{PRICING_5M}
",
        session()
    );
    assert_eq!(stdout, expected);
    // The 1-hour cache outlives the person's seven-minute pause: nothing goes cold, so no
    // batch is due and cache-aware sends what no reduction sends.
    let out = rehydrate(&["cost", &session(), "--pricing", "anthropic-1h"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = stdout.lines().skip(2).take(3).collect();
    assert_eq!(
        rows,
        [
            "none             10         86283        67028         19231         24       502     0.1431    +0.0%",
            "per-turn         10         59821        13194         46603         24       502     0.2912  +103.5%",
            "cache-aware      10         86283        67028         19231         24       502     0.1431    +0.0%",
        ]
    );
}

#[test]
fn cost_json_has_the_totals_and_every_call_of_each_strategy() {
    let out = rehydrate(&["cost", &session(), "--json", "--pricing", "openai"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "file",
            "format",
            "preset",
            "pricing",
            "session_tokens",
            "strategies"
        ]
    );
    assert_eq!(report["format"], "claude-code");
    assert_eq!(report["preset"], "aggressive");
    assert_eq!(report["session_tokens"], 19256);
    assert_eq!(report["pricing"]["name"], "openai");
    assert_eq!(report["pricing"]["cached_increment"], 128);
    assert_eq!(report["pricing"]["writes_billed"], false);
    let strategies = report["strategies"].as_array().unwrap();
    let names: Vec<&str> = strategies
        .iter()
        .map(|s| s["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["none", "per-turn", "cache-aware"]);
    let none = &strategies[0];
    assert_eq!(none["vs_none_percent"], 0.0);
    assert_eq!(
        none["totals"],
        serde_json::json!({
            "calls": 10, "input_tokens": 86283, "cache_read": 56448, "cache_write": 0,
            "uncached": 29835, "output": 502, "cost_usd": none["totals"]["cost_usd"],
        })
    );
    let cache_aware = &strategies[2];
    let calls = cache_aware["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 10);
    let call_keys: Vec<&str> = calls[6]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        call_keys,
        [
            "batch",
            "cache_read",
            "cache_write",
            "call",
            "cost_usd",
            "gap_secs",
            "input_tokens",
            "messages",
            "output",
            "uncached"
        ]
    );
    // Call 6 is sent seven minutes after call 5: the cache is cold and the waiting batch shown.
    assert_eq!(calls[6]["gap_secs"], 426.0);
    assert_eq!(calls[6]["batch"], 0);
    assert_eq!(calls[6]["cache_read"], 0);
    assert_eq!(calls[0]["gap_secs"], Value::Null);
    let batches: Vec<usize> = calls
        .iter()
        .filter(|c| !c["batch"].is_null())
        .map(|c| c["call"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(batches, [6]);
}

#[test]
fn cost_reads_a_pricing_file_and_names_a_bad_one() {
    let dir = scratch("cost-pricing");
    let file = dir.join("half.json");
    std::fs::write(
        &file,
        r#"{"half": {"input": 1.5, "cache_write": 1.875, "cache_read": 0.15, "output": 7.5,
            "ttl_secs": 300, "min_cached_tokens": 1024, "cached_increment": 1,
            "writes_billed": true}}"#,
    )
    .unwrap();
    let out = rehydrate(&["cost", &session(), "--pricing", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    // Half of every anthropic-5m price: the same tokens at half the cost.
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[2],
        "none             10         86283        56801         29458         24       502     0.0676    +0.0%"
    );
    assert_eq!(
        lines[5],
        "pricing half: $1.5 input, $1.875 cache write, $0.15 cache read, $7.5 output per million tokens; cache 300 s, at least 1024 tokens; source no source given; tokens o200k_base (OpenAI's tokenizer, an approximation of Anthropic's)"
    );

    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"input": 1.5, "cache_write": -1}"#).unwrap();
    let out = rehydrate(&["cost", &session(), "--pricing", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out),
        format!(
            "error: {}: invalid pricing: missing field `cache_read` at line 1 column 33\n",
            bad.display()
        )
    );
    // A price that would make the cost overflow is refused, shown in exponent form.
    let huge = dir.join("huge.json");
    std::fs::write(
        &huge,
        r#"{"input": 3, "cache_write": 3.75, "cache_read": 0.3, "output": 1e308,
            "ttl_secs": 300, "min_cached_tokens": 1024, "cached_increment": 1,
            "writes_billed": true}"#,
    )
    .unwrap();
    let out = rehydrate(&["cost", &session(), "--pricing", huge.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out),
        format!(
            "error: {}: invalid pricing: field `output` must be a price from 0 to 1e6 USD per million tokens, got 1e308\n",
            huge.display()
        )
    );
    let out = rehydrate(&["cost", &session(), "--pricing", "gemini"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: unknown pricing `gemini`: the built-in ones are anthropic-1h, anthropic-5m, openai, and no pricing file gemini exists\n"
    );
}

#[test]
fn cost_of_a_missing_session_is_one_error_line() {
    let dir = scratch("cost-missing");
    let missing = dir.join("missing.jsonl");
    let out = rehydrate(&["cost", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out),
        format!(
            "error: cannot read {}: No such file or directory (os error 2)\n",
            missing.display()
        )
    );
}

#[test]
fn cost_plot_draws_each_strategy_and_the_batches() {
    let dir = scratch("cost-plot");
    let svg = dir.join("cost.svg");
    let out = rehydrate(&["cost", &session(), "--plot", svg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<svg width=\"960\" height=\"540\""),
        "{}",
        &text[..80]
    );
    for label in [
        "none",
        "per-turn",
        "cache-aware",
        "model call",
        "cost so far (USD)",
    ] {
        assert!(text.contains(&format!("\n{label}\n")), "no label {label}");
    }
    // One mark: the batch shown at call 6 (x = 7), drawn in the cache-aware colour.
    assert_eq!(text.matches("<circle").count(), 1);
    assert_eq!(text.matches("fill=\"#286EC8\"").count(), 1);
    let out = rehydrate(&[
        "cost",
        &session(),
        "--plot",
        dir.join("no/such/dir.svg").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("error: cannot write the plot "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn cost_refuses_to_plot_over_the_transcript_and_warns_of_a_clock_going_back() {
    let dir = scratch("cost-refusals");
    let copy = dir.join("session.jsonl");
    std::fs::copy(session(), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let path = copy.to_str().unwrap();
    let out = rehydrate(&["cost", path, "--plot", path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out),
        format!("error: cannot write the plot {path}: it is the transcript being read\n")
    );
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        before,
        "the transcript is untouched"
    );

    // The fixture with one line's timestamp moved back to 2000: one gap goes back.
    let back = dir.join("back.jsonl");
    let text = String::from_utf8(before).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut moved: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    let at = lines.len() / 2;
    let mut record: Value = serde_json::from_str(lines[at]).unwrap();
    record["timestamp"] = Value::from("2000-01-01T00:00:00Z");
    moved[at] = record.to_string();
    std::fs::write(&back, moved.join("\n") + "\n").unwrap();
    let out = rehydrate(&["cost", back.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {}: the clock goes back at 1 of 10 model calls; each such gap counts as 0 seconds\n",
            back.display()
        )
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for strategy in report["strategies"].as_array().unwrap() {
        for call in strategy["calls"].as_array().unwrap() {
            assert!(call["gap_secs"].as_f64().is_none_or(|g| g >= 0.0), "{call}");
        }
    }
}

#[test]
fn cost_of_a_session_without_a_model_call_warns_and_prices_nothing() {
    let dir = scratch("cost-no-call");
    let file = dir.join("question.json");
    std::fs::write(&file, r#"[{"role": "user", "content": "hello?"}]"#).unwrap();
    let out = rehydrate(&["cost", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {}: no model call (no assistant message): every figure is 0\n",
            file.display()
        )
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = stdout.lines().skip(2).take(3).collect();
    assert_eq!(
        rows,
        [
            // No comparison against a cost of 0.
            "none              0             0            0             0          0         0     0.0000        -",
            "per-turn          0             0            0             0          0         0     0.0000        -",
            "cache-aware       0             0            0             0          0         0     0.0000        -",
        ]
    );
}
