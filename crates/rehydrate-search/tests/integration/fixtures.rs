//! The SPEC seed 000 search cases (edge cases 6 and 9-15), adapted to head-and-tail truncation
//! and our ids, as data: each `tests/fixtures/*.json` holds a note, messages (texts may repeat
//! pieces), the reductions to build and the searches to run; each search's result (or error)
//! is snapshotted with the size of its JSON.
//!
//! A case file:
//!
//! ```json
//! {
//!   "note": "what the case shows",
//!   "messages": [{"role": "tool", "text": ["head\n", {"repeat": "x", "times": 200}, "\ntail"]}],
//!   "reductions": [{"truncate": [0, 5, 205]}, {"duplicate": [3, 0]}, {"turns": [1, 2]},
//!                  {"truncate": [4, 0, 10], "digest_of": "other bytes"}],
//!   "searches": [{"query": "x+", "mode": "regex", "case_sensitive": true,
//!                 "max_matches": 10, "max_result_bytes": 4096, "summary": true}]
//! }
//! ```
//!
//! `summary: true` snapshots the counts and the JSON size instead of the matches (for results
//! near the 64 KiB bound).

use std::path::Path;

use rehydrate_model::{Message, ReductionLog, Role};
use rehydrate_search::{SearchMode, SearchOptions, sidecar_search};
use serde_json::{Value, json};

use crate::build::{Spec, reduction};

/// The text of a message: a string, or a list of strings and `{"repeat", "times"}` pieces.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(pieces) => pieces.iter().map(text_of).collect(),
        Value::Object(piece) => {
            let unit = piece["repeat"].as_str().expect("repeat is a string");
            let times = piece["times"].as_u64().expect("times is a number");
            unit.repeat(usize::try_from(times).unwrap())
        }
        other => panic!("not a text piece: {other}"),
    }
}

fn message_of(value: &Value) -> Message {
    let role: Role = serde_json::from_value(value["role"].clone()).expect("a role");
    let mut message = Message::text(role, text_of(&value["text"]));
    if let Some(id) = value["tool_call_id"].as_str() {
        message.tool_call_id = Some(id.to_string());
    }
    message
}

fn numbers(value: &Value) -> Vec<usize> {
    value
        .as_array()
        .expect("an array of numbers")
        .iter()
        .map(|n| usize::try_from(n.as_u64().expect("a number")).unwrap())
        .collect()
}

fn spec_of(value: &Value) -> Spec {
    if let Some(v) = value.get("truncate") {
        let n = numbers(v);
        Spec::Truncate {
            index: n[0],
            span: [n[1], n[2]],
        }
    } else if let Some(v) = value.get("duplicate") {
        let n = numbers(v);
        Spec::Duplicate {
            index: n[0],
            canonical: n[1],
        }
    } else if let Some(v) = value.get("turns") {
        let n = numbers(v);
        Spec::Turns {
            first: n[0],
            last: n[1],
        }
    } else {
        panic!("unknown reduction {value}")
    }
}

fn options_of(search: &Value) -> SearchOptions {
    let mut options = SearchOptions::default();
    match search["mode"].as_str() {
        None | Some("auto") => {}
        Some("literal") => options.mode = SearchMode::Literal,
        Some("regex") => options.mode = SearchMode::Regex,
        Some(other) => panic!("unknown mode {other}"),
    }
    if let Some(yes) = search["case_sensitive"].as_bool() {
        options.case_sensitive = yes;
    }
    if let Some(n) = search["max_matches"].as_u64() {
        options.max_matches = usize::try_from(n).unwrap();
    }
    if let Some(n) = search["max_result_bytes"].as_u64() {
        options.max_result_bytes = usize::try_from(n).unwrap();
    }
    options
}

fn check(path: &Path) {
    let case: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let minted: Vec<Message> = case["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(message_of)
        .collect();
    let mut log = ReductionLog::default();
    for (ordinal, r) in case["reductions"].as_array().unwrap().iter().enumerate() {
        let built = reduction(&minted, ordinal, &spec_of(r), r["digest_of"].as_str());
        log.reductions.push(built);
    }
    let mut results = Vec::new();
    for search in case["searches"].as_array().unwrap() {
        let query = search["query"].as_str().unwrap();
        let options = options_of(search);
        let outcome = match sidecar_search(&log, &minted, query, &options) {
            Err(err) => json!({ "error": err.to_string() }),
            Ok(result) => {
                let text = result.to_json();
                assert_eq!(text.len(), result.json_bytes());
                assert!(
                    text.len() <= options.max_result_bytes.min(65_536) || result.matches.is_empty()
                );
                assert!(result.matches.len() <= options.max_matches.min(50));
                assert_eq!(
                    result.truncated,
                    result.total_matches > result.matches.len()
                );
                for m in &result.matches {
                    assert!(
                        m.snippet.len() <= 200,
                        "snippet of {} bytes",
                        m.snippet.len()
                    );
                }
                if search["summary"].as_bool() == Some(true) {
                    json!({
                        "mode": result.mode,
                        "kept": result.matches.len(),
                        "total_matches": result.total_matches,
                        "truncated": result.truncated,
                        "unresolvable": result.unresolvable,
                        "json_bytes": text.len(),
                    })
                } else {
                    let mut value: Value = serde_json::from_str(&text).unwrap();
                    value["json_bytes"] = json!(text.len());
                    value
                }
            }
        };
        results.push(json!({ "search": search, "outcome": outcome }));
    }
    insta::assert_json_snapshot!(json!({
        "note": case["note"],
        "log": log.reductions.iter().map(|r| r.stub.clone()).collect::<Vec<_>>(),
        "results": results,
    }));
}

#[test]
fn search_fixtures() {
    insta::glob!("../fixtures", "*.json", check);
}
