//! The request validity checker: each rule of each API as exact violations, and the calls an
//! API refuses as written.

use rehydrate_formats::{
    Api, CallDefect, call_defect, check_request, left_out_of_bodies, request_body, unsendable_calls,
};
use rehydrate_model::{Content, Message, Role};
use rehydrate_test_support::{call, calling};

/// Each violation as `index rule id` for compact exact comparisons.
fn rules(messages: &[Message], api: Api) -> Vec<String> {
    check_request(messages, api)
        .iter()
        .map(|v| format!("{} {} {}", v.index, v.rule, v.id.as_deref().unwrap_or("-")))
        .collect()
}

#[test]
fn pairing_rules_name_the_message_and_the_call() {
    let messages = vec![
        Message::tool_result("x0", "before anything"),
        Message::text(Role::User, "go"),
        calling(None, vec![call("a", "ls", "{}"), call("b", "ls", "{}")]),
        Message::tool_result("a", "1"),
        Message::tool_result("a", "1 again"),
        Message::text(Role::User, "and?"),
        Message::tool_result("b", "late"),
    ];
    assert_eq!(
        rules(&messages, Api::OpenAi),
        [
            "0 starts-with-tool-result x0",
            "2 unanswered-call b",
            "4 second-answer a",
            "6 result-without-call b",
        ]
    );
    // In the Anthropic body the late result merges into the user message after the text.
    assert_eq!(
        rules(&messages, Api::Anthropic),
        [
            "0 starts-with-tool-result x0",
            "2 unanswered-call b",
            "4 second-answer a",
            "6 text-before-tool-result b",
        ]
    );
    assert_eq!(
        check_request(&messages, Api::OpenAi)[1].to_string(),
        "message 2 (unanswered-call): tool call b has no tool result right after it"
    );
}

#[test]
fn anthropic_rules_apply_to_the_merged_messages() {
    // Text before the results in one user message and a first message from the assistant;
    // whitespace-only text (content or parts) is left out of the body.
    let messages = vec![
        Message::text(Role::Assistant, "hello"),
        Message::text(Role::User, "   \n"),
        calling(None, vec![call("a", "ls", "{}")]),
        Message::text(Role::User, "wait"),
        Message::tool_result("a", "1"),
        Message {
            role: Role::User,
            content: Some(Content::Parts(vec![
                serde_json::json!({"type": "text", "text": " "}),
            ])),
            ..Message::default()
        },
    ];
    assert_eq!(
        rules(&messages, Api::Anthropic),
        [
            "0 first-not-user -",
            "2 unanswered-call a",
            "4 text-before-tool-result a",
        ]
    );
    // OpenAI has no such rules, but the person's message separates the call from its result.
    assert_eq!(
        rules(&messages, Api::OpenAi),
        ["2 unanswered-call a", "4 result-without-call a"]
    );
}

#[test]
fn call_shapes_are_checked_for_both_apis_and_inputs_for_anthropic() {
    // 32 bytes with a space: mapped, 4 + 64 bytes, over the 64 both APIs take.
    let long = format!("{} x", "n".repeat(30));
    let messages = vec![
        Message::text(Role::User, "go"),
        calling(
            None,
            vec![
                call("functions.Bash:0", "Bash", "{}"),
                call("c2", &long, "{}"),
                call("c3", "ls", "ls -la"),
                call("c4", "list files", r#"{"a":1e400}"#),
                call("c5", "ls", r#"{"a":"\ud83d"}"#),
            ],
        ),
    ];
    let mut results = messages.clone();
    for id in ["functions.Bash:0", "c2", "c3", "c4", "c5"] {
        results.push(Message::tool_result(id, "ok"));
    }
    // An id or a name the APIs refuse as written is mapped by the writers; only a name too
    // long once mapped is refused.
    assert_eq!(rules(&results, Api::OpenAi), ["1 bad-function-name c2"]);
    assert_eq!(
        rules(&results, Api::Anthropic),
        [
            "1 bad-function-name c2",
            "1 arguments-not-object c3",
            "1 arguments-not-object c5",
        ]
    );
    // The reducer folds exactly these calls, so one view serves both APIs.
    let calls = &messages[1].tool_calls;
    let defects: Vec<Option<CallDefect>> =
        (0..calls.len()).map(|k| call_defect(calls, k)).collect();
    assert_eq!(
        defects,
        [
            None,
            Some(CallDefect::Name),
            Some(CallDefect::Arguments),
            None,
            Some(CallDefect::Arguments),
        ]
    );
    assert_eq!(unsendable_calls(&messages[1]), [1, 2, 4]);
    // JSON sets no range for numbers, and a surrogate pair is a whole character.
    let fine = calling(
        None,
        vec![call("a", "ls", r#"{"a":"\ud83d\ude00 \\ud83d","n":1e400}"#)],
    );
    assert_eq!(call_defect(&fine.tool_calls, 0), None);
    let lone_low = calling(None, vec![call("a", "ls", r#"{"a":"\ude00"}"#)]);
    assert_eq!(
        call_defect(&lone_low.tool_calls, 0),
        Some(CallDefect::Arguments)
    );
    let repeated = calling(
        None,
        vec![
            call("a", "ls", "{}"),
            call("a", "ls", " {\"x\": [1, 2.5, null]} "),
        ],
    );
    assert_eq!(
        call_defect(&repeated.tool_calls, 1),
        Some(CallDefect::RepeatedId)
    );
    assert_eq!(call_defect(&repeated.tool_calls, 0), None);
}

#[test]
fn session_text_never_breaks_a_violation_line() {
    let id = "\u{1b}[31mred\u{1b}[0m\nrepaired: fake";
    let messages = vec![
        Message::text(Role::User, "go"),
        Message::tool_result(id, "x"),
    ];
    let line = check_request(&messages, Api::OpenAi)[0].to_string();
    assert_eq!(
        line,
        "message 1 (result-without-call): tool result \\u{1b}[31mred\\u{1b}[0m\\u{a}repaired: fake answers no tool call of the assistant message right before it"
    );
    let long = "x".repeat(10_000);
    let messages = vec![
        Message::text(Role::User, "go"),
        Message::tool_result(long, "x"),
    ];
    assert!(check_request(&messages, Api::OpenAi)[0].detail.len() < 320);
}

#[test]
fn empty_assistant_messages_are_left_out_of_both_bodies() {
    let mut thinking = Message::text(Role::Assistant, " ");
    thinking.metadata.insert("thinking".into(), "hmm".into());
    thinking
        .metadata
        .insert("thinking_signature".into(), "sig".into());
    assert!(left_out_of_bodies(&thinking));
    let messages = vec![
        Message::text(Role::User, "go"),
        calling(None, vec![call("a", "ls", "{}")]),
        thinking,
        Message::tool_result("a", "1"),
    ];
    assert!(check_request(&messages, Api::OpenAi).is_empty());
    assert!(check_request(&messages, Api::Anthropic).is_empty());
    assert_eq!(
        String::from_utf8(request_body(&messages, Api::Anthropic).unwrap()).unwrap(),
        r#"{"messages":[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"ls","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"1"}]}]}"#
    );
    assert_eq!(
        String::from_utf8(request_body(&messages, Api::OpenAi).unwrap()).unwrap(),
        r#"{"messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","content":"1","tool_call_id":"a"}]}"#
    );
}

#[test]
fn a_body_needs_a_message() {
    let system = [Message::text(Role::System, "be brief")];
    assert_eq!(rules(&system, Api::Anthropic), ["1 no-messages -"]);
    assert!(rules(&system, Api::OpenAi).is_empty());
    assert_eq!(rules(&[], Api::OpenAi), ["0 no-messages -"]);
    let err = request_body::<Message>(&[], Api::Anthropic).unwrap_err();
    assert_eq!(
        err.to_string(),
        "anthropic request body is invalid: message 0 (no-messages): the body has no message besides the system text"
    );
}

proptest::proptest! {
    /// The arguments check against the naive oracle: `serde_json` reading the arguments into a
    /// value, which refuses exactly the lone surrogate escapes, whatever backslashes precede them.
    #[test]
    fn the_arguments_check_matches_a_full_parse(
        pieces in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::strategy::Just(r"\ud83d".to_string()),
                proptest::strategy::Just(r"\ude00".to_string()),
                proptest::strategy::Just(r"\\".to_string()),
                proptest::strategy::Just(r"\n".to_string()),
                proptest::strategy::Just(r"\u0041".to_string()),
                proptest::strategy::Just("u".to_string()),
                "[a-z é😀]{0,3}",
            ],
            0..12,
        ),
    ) {
        let arguments = format!(r#"{{"text":"{}","n":[1,2.5,null]}}"#, pieces.concat());
        let oracle = serde_json::from_str::<serde_json::Value>(&arguments).is_ok();
        let calls = [call("a", "ls", &arguments)];
        proptest::prop_assert_eq!(call_defect(&calls, 0).is_none(), oracle, "{}", arguments);
    }
}

/// Random JSON values, shallow, with numbers serde_json holds.
fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        (-1_000_000i64..1_000_000).prop_map(serde_json::Value::from),
        (-1e6f64..1e6).prop_map(serde_json::Value::from),
        "[a-z\"\\\\\n\t é😀\u{1}\u{1f}\u{7f}]{0,24}".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            proptest::collection::btree_map("[a-z]{0,3}", inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// The one-pass arguments check against `serde_json` reading a value, on valid objects and
    /// on their bytes with one piece inserted (a quote, a brace, an escape, a control
    /// character, a surrogate escape, a number), which breaks them or not.
    #[test]
    fn the_arguments_check_matches_serde_json_on_random_json(
        value in json_value(),
        wrap in proptest::bool::ANY,
        at in 0usize..400,
        piece in proptest::sample::select(vec![
            "", "\"", "{", "}", "[", "]", ",", ":", "\\", "\\u", "\\ud83d", "\\ude00",
            "\\ud83d\\ude00", "\u{1}", " ", "0", "-", "01", "1.", ".5", "1e", "1e5", "tru", "null",
        ]),
    ) {
        let value = if wrap { serde_json::json!({ "v": value }) } else { value };
        let text = serde_json::to_string(&value).unwrap();
        let at = text.floor_char_boundary(at.min(text.len()));
        let candidate = format!("{}{}{}", &text[..at], piece, &text[at..]);
        let parsed = serde_json::from_str::<serde_json::Value>(&candidate);
        // JSON sets no range for numbers; serde_json's value does (f64).
        let out_of_range = parsed
            .as_ref()
            .is_err_and(|e| e.to_string().starts_with("number out of range"));
        proptest::prop_assume!(!out_of_range);
        let oracle = matches!(parsed, Ok(serde_json::Value::Object(_)));
        let calls = [call("a", "ls", &candidate)];
        proptest::prop_assert_eq!(call_defect(&calls, 0).is_none(), oracle, "{}", candidate);
    }
}

#[test]
fn ids_and_names_the_apis_refuse_are_mapped_alike_on_both_sides_of_a_pairing() {
    let messages = vec![
        Message::text(Role::User, "go"),
        calling(None, vec![call("functions.Bash:0", "mcp.fs read", "{}")]),
        Message::tool_result("functions.Bash:0", "ok"),
    ];
    let id = "rhx_66756e6374696f6e732e426173683a30";
    let name = "rhx_6d63702e66732072656164";
    assert_eq!(
        String::from_utf8(request_body(&messages, Api::Anthropic).unwrap()).unwrap(),
        format!(
            r#"{{"messages":[{{"role":"user","content":[{{"type":"text","text":"go"}}]}},{{"role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{{}}}}]}},{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"ok"}}]}}]}}"#
        )
    );
    // OpenAI sets no pattern for call ids: only the name is mapped.
    assert_eq!(
        String::from_utf8(request_body(&messages, Api::OpenAi).unwrap()).unwrap(),
        format!(
            r#"{{"messages":[{{"role":"user","content":"go"}},{{"role":"assistant","tool_calls":[{{"id":"functions.Bash:0","type":"function","function":{{"name":"{name}","arguments":"{{}}"}}}}]}},{{"role":"tool","content":"ok","tool_call_id":"functions.Bash:0"}}]}}"#
        )
    );
    assert_eq!(
        rehydrate_formats::original_id(id).as_deref(),
        Some("functions.Bash:0")
    );
    assert_eq!(
        rehydrate_formats::original_id(name).as_deref(),
        Some("mcp.fs read")
    );
    // A text that only looks mapped is its own original.
    assert_eq!(rehydrate_formats::original_id("rhx_41"), None);
    assert_eq!(rehydrate_formats::original_id("rhx_zz"), None);
}

proptest::proptest! {
    #[test]
    fn the_id_map_is_injective_and_reversible(a in ".{0,12}", b in "[a-z_]{0,3}[a-zA-Z0-9_-]{0,8}") {
        use rehydrate_formats::{api_id, original_id};
        for id in [a.as_str(), b.as_str()] {
            let mapped = api_id(id);
            proptest::prop_assert!(!mapped.is_empty() && mapped.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-'));
            let back = original_id(&mapped).unwrap_or_else(|| mapped.to_string());
            proptest::prop_assert_eq!(back.as_str(), id);
        }
        if a != b {
            proptest::prop_assert_ne!(api_id(&a), api_id(&b));
        }
    }
}
