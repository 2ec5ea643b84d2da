//! `list_reductions`: pages of the log, bounded, and its argument errors.

use rehydrate_intrinsics::{
    CallContext, Intrinsics, LIST_LIMIT_MAX, LIST_REDUCTIONS, ToolFormat,
    list_reductions_definition,
};
use rehydrate_model::{Message, ReductionLog};
use serde_json::{Value, json};

fn call(args: &str, log: &ReductionLog, minted: &[Message]) -> (Value, bool) {
    let out = Intrinsics::call(LIST_REDUCTIONS, args, &CallContext::new(log, minted));
    let value = if out.is_error {
        Value::String(out.content)
    } else {
        serde_json::from_str(&out.content).unwrap()
    };
    (value, out.is_error)
}

#[test]
fn pages_give_every_reduction_once_in_log_order() {
    let (minted, log) = crate::session(60);
    assert_eq!(log.reductions.len(), 57);
    let (first, _) = call("{}", &log, &minted);
    assert_eq!(first["total"], 57);
    assert_eq!(first["offset"], 0);
    assert_eq!(first["next_offset"], 20);
    let r0 = &log.reductions[0];
    assert_eq!(
        first["reductions"][0],
        json!({
            "id": r0.id.as_str(),
            "kind": "tool-output",
            "message_index": 2,
            "original_bytes": minted[2].content_text().unwrap().len(),
            "summary": r0.stub,
        })
    );
    let mut ids = Vec::new();
    let mut offset = Some(0);
    while let Some(at) = offset {
        let (page, is_error) = call(
            &format!(r#"{{"offset":{at},"limit":{LIST_LIMIT_MAX}}}"#),
            &log,
            &minted,
        );
        assert!(!is_error);
        for r in page["reductions"].as_array().unwrap() {
            ids.push(r["id"].as_str().unwrap().to_owned());
        }
        offset = page["next_offset"].as_u64().map(|n| n as usize);
    }
    let expected: Vec<String> = log.reductions.iter().map(|r| r.id.to_string()).collect();
    assert_eq!(ids, expected);
    // Past the end: an empty page, no next one.
    let (past, _) = call(r#"{"offset":1000}"#, &log, &minted);
    assert_eq!(past["reductions"], json!([]));
    assert_eq!(past["next_offset"], Value::Null);
}

#[test]
fn a_long_stub_is_cut_at_a_char_boundary() {
    let (minted, mut log) = crate::session(4);
    log.reductions[0].stub = format!("[rehydrate:tool-output {}]", "é".repeat(300));
    let (page, _) = call(r#"{"limit":1}"#, &log, &minted);
    let summary = page["reductions"][0]["summary"].as_str().unwrap();
    assert!(summary.len() <= 200 && summary.ends_with('…'), "{summary}");
    assert!(summary.starts_with("[rehydrate:tool-output éé"));
}

#[test]
fn bad_arguments_are_tool_errors_naming_them() {
    let (minted, log) = crate::session(4);
    let cases = [
        (
            r#"{"limit":0}"#,
            "Error: list_reductions: `limit` must be from 1 to 50, got 0",
        ),
        (
            r#"{"limit":51}"#,
            "Error: list_reductions: `limit` must be from 1 to 50, got 51",
        ),
        (
            r#"{"offset":-1}"#,
            "Error: list_reductions: `offset` must be a non-negative integer, got -1",
        ),
        (
            r#"{"offset":"2"}"#,
            "Error: list_reductions: `offset` must be a non-negative integer, got \"2\"",
        ),
        (
            r#"{"page":2}"#,
            "Error: list_reductions: unknown argument `page`; expected offset, limit",
        ),
        (
            r#"[]"#,
            "Error: list_reductions: arguments must be a JSON object",
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(
            call(args, &log, &minted),
            (Value::String(expected.to_owned()), true),
            "{args}"
        );
    }
}

#[test]
fn the_definition_validates_its_arguments() {
    for format in [ToolFormat::OpenAi, ToolFormat::Anthropic] {
        let tool = list_reductions_definition(format);
        let schema = match format {
            ToolFormat::OpenAi => &tool["function"]["parameters"],
            ToolFormat::Anthropic => &tool["input_schema"],
        };
        jsonschema::meta::validate(schema).unwrap();
        let validator = jsonschema::validator_for(schema).unwrap();
        for good in [json!({}), json!({"offset": 3, "limit": 50})] {
            assert!(validator.is_valid(&good), "{good}");
        }
        for bad in [
            json!({"limit": 0}),
            json!({"limit": 51}),
            json!({"offset": -1}),
            json!({"x": 1}),
        ] {
            assert!(!validator.is_valid(&bad), "{bad}");
        }
    }
}
