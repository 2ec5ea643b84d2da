//! Argument validation: the tool-error texts a model gets for each malformed call (a snapshot),
//! the outputs of well-formed calls, and the tool schemas against their JSON-schema draft.

use std::fmt::Write as _;

use rehydrate_intrinsics::{
    CallContext, Intrinsics, SCHEMA_DRAFT, ToolFormat, advertised_tools, tool_definitions,
};

#[test]
fn argument_validation_table() {
    let (minted, log) = crate::session(4);
    let id = log.reductions[0].id.to_string();
    let total = minted[2].content_text().unwrap().len();
    let context = CallContext::new(&log, &minted);
    let cases: Vec<(&str, String)> = vec![
        ("missing id", r#"{}"#.to_string()),
        ("id not a string", r#"{"reduction_id":7}"#.to_string()),
        ("unknown id", r#"{"reduction_id":"r9.abcdef"}"#.to_string()),
        (
            "unknown argument",
            format!(r#"{{"reduction_id":"{id}","range":[0,1]}}"#),
        ),
        (
            "range of one element",
            format!(r#"{{"reduction_id":"{id}","byte_range":[5]}}"#),
        ),
        (
            "negative numbers",
            format!(r#"{{"reduction_id":"{id}","byte_range":[-1,4]}}"#),
        ),
        (
            "floats",
            format!(r#"{{"reduction_id":"{id}","byte_range":[0.5,4]}}"#),
        ),
        (
            "strings",
            format!(r#"{{"reduction_id":"{id}","byte_range":["0","4"]}}"#),
        ),
        (
            "reversed",
            format!(r#"{{"reduction_id":"{id}","byte_range":[9,4]}}"#),
        ),
        (
            "past the end",
            format!(
                r#"{{"reduction_id":"{id}","byte_range":[{},{}]}}"#,
                total + 1,
                total + 9
            ),
        ),
        (
            "empty range at the end",
            format!(r#"{{"reduction_id":"{id}","byte_range":[{total},{total}]}}"#),
        ),
        (
            "end clamped",
            format!(
                r#"{{"reduction_id":"{id}","byte_range":[0,{}]}}"#,
                total * 2
            ),
        ),
        (
            "null range is whole",
            format!(r#"{{"reduction_id":"{id}","byte_range":null}}"#),
        ),
        ("not an object", r#"["r0"]"#.to_string()),
        ("not JSON", r#"{"reduction_id":"#.to_string()),
    ];
    let mut out = String::new();
    for (name, args) in &cases {
        let result = Intrinsics::call("expand_reduction", args, &context);
        let shown = if result.is_error || result.content.len() < 120 {
            result.content.clone()
        } else {
            let first = result.content.lines().next().unwrap_or_default();
            format!("{first} … ({} bytes)", result.content.len())
        };
        let _ = writeln!(
            out,
            "{name}: {}\n  {}",
            if result.is_error {
                "tool error"
            } else {
                "result"
            },
            shown.replace(&id, "<id>")
        );
    }
    for (name, args) in [
        ("search missing query", r#"{}"#),
        ("search bad mode", r#"{"query":"x","mode":"fuzzy"}"#),
        ("search unknown argument", r#"{"query":"x","limit":3}"#),
        ("search empty query", r#"{"query":"  "}"#),
    ] {
        let result = Intrinsics::call("sidecar_search", args, &context);
        let _ = writeln!(
            out,
            "{name}: tool error={}\n  {}",
            result.is_error, result.content
        );
    }
    let unknown = Intrinsics::call("read_file", "{}", &context);
    let _ = writeln!(
        out,
        "unknown tool: tool error={}\n  {}",
        unknown.is_error, unknown.content
    );
    insta::assert_snapshot!(out);

    // Exact outputs: a whole expand is the original bytes; a range has its header.
    let whole = Intrinsics::call(
        "expand_reduction",
        &format!(r#"{{"reduction_id":"{id}"}}"#),
        &context,
    );
    assert!(!whole.is_error);
    assert_eq!(whole.content, minted[2].content_text().unwrap());
    let ranged = Intrinsics::call(
        "expand_reduction",
        &format!(r#"{{"reduction_id":"{id}","byte_range":[0,8]}}"#),
        &context,
    );
    assert_eq!(
        ranged.content,
        format!("[{id}: bytes 0..8 of {total}]\nstep 0: ")
    );
    let search = Intrinsics::call(
        "sidecar_search",
        r#"{"query":"crate-000","mode":"literal"}"#,
        &context,
    );
    assert!(!search.is_error);
    let json: serde_json::Value = serde_json::from_str(&search.content).unwrap();
    assert_eq!(json["matches"][0]["reduction_id"], id.as_str());
}

#[test]
fn schemas_validate_against_their_draft() {
    assert!(advertised_tools(false, ToolFormat::OpenAi).is_empty());
    for format in [ToolFormat::OpenAi, ToolFormat::Anthropic] {
        let tools = tool_definitions(format);
        assert_eq!(tools, advertised_tools(true, format));
        assert_eq!(tools.len(), 2);
        for tool in &tools {
            let schema = match format {
                ToolFormat::OpenAi => &tool["function"]["parameters"],
                ToolFormat::Anthropic => &tool["input_schema"],
            };
            assert_eq!(schema["$schema"], SCHEMA_DRAFT);
            jsonschema::meta::validate(schema)
                .unwrap_or_else(|e| panic!("{tool}: not a valid 2020-12 schema: {e}"));
            let validator = jsonschema::validator_for(schema).unwrap();
            let name = tool.get("name").or(tool["function"].get("name")).unwrap();
            let (good, bad): (&[&str], &[&str]) = if name == "expand_reduction" {
                (
                    &[
                        r#"{"reduction_id":"r1.abcdef"}"#,
                        r#"{"reduction_id":"r1.abcdef","byte_range":[0,10]}"#,
                    ],
                    &[
                        r#"{}"#,
                        r#"{"reduction_id":"r1.abcdef","byte_range":[5]}"#,
                        r#"{"reduction_id":"r1.abcdef","byte_range":[-1,2]}"#,
                        r#"{"reduction_id":1}"#,
                        r#"{"reduction_id":"r1.abcdef","x":1}"#,
                    ],
                )
            } else {
                (
                    &[r#"{"query":"needle"}"#, r#"{"query":"a+","mode":"regex"}"#],
                    &[r#"{}"#, r#"{"query":"x","mode":"fuzzy"}"#, r#"{"query":3}"#],
                )
            };
            for args in good {
                let v: serde_json::Value = serde_json::from_str(args).unwrap();
                assert!(validator.is_valid(&v), "{name}: {args} should be valid");
            }
            for args in bad {
                let v: serde_json::Value = serde_json::from_str(args).unwrap();
                assert!(!validator.is_valid(&v), "{name}: {args} should be invalid");
            }
        }
    }
}
