//! Tool input elided: the stub, the view form (the arguments stay a JSON object, every other
//! byte kept), resolution, expand, inversion and the errors of a tampered or misaddressed
//! reduction, with exact values.

use rehydrate_model::{
    Message, MessageAddr, REDUCTION_METADATA_KEY, Reduction, ReductionId, ReductionKind, Role,
    SidecarPtr,
};
use rehydrate_sidecar::{
    Error, argument_fields, content_digest, expand_reduction, expected_stub, invert,
    replace_argument, stub_message, verify_log,
};
use rehydrate_test_support::{call, calling};

use crate::log_of;

/// A `Write` whose `content` is two lines with a quote, escaped in the JSON.
const WRITE_ARGS: &str =
    r#"{"file_path": "/src/a.rs", "content": "fn main() {\n    println!(\"hi\");\n}\n"}"#;
/// The unescaped `content` of [`WRITE_ARGS`]: 34 bytes.
const CONTENT: &str = "fn main() {\n    println!(\"hi\");\n}\n";

/// A user request, an assistant message making a `Bash` call and the `Write`, their results.
fn session(write_args: &str) -> Vec<Message> {
    vec![
        Message::text(Role::User, "write it"),
        calling(
            Some("writing"),
            vec![
                call("toolu_1", "Bash", r#"{"command":"ls"}"#),
                call("toolu_2", "Write", write_args),
            ],
        ),
        Message::tool_result("toolu_1", "a.rs\n"),
        Message::tool_result("toolu_2", "ok"),
    ]
}

/// The elision of field `field` of call 1 of message 1, hashing `value`.
fn elision(field: &str, value: &str, minted: &[Message]) -> Reduction {
    let digest = content_digest(value.as_bytes());
    let mut r = Reduction {
        id: ReductionId::new(0, &digest),
        kind: ReductionKind::ToolInputElided {
            call: 1,
            field: field.into(),
            original_bytes: value.len(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: 1,
                role: Role::Assistant,
            },
            span: None,
            digest,
        },
        stub: String::new(),
    };
    r.stub = expected_stub(&r, minted);
    r
}

#[test]
fn argument_fields_keep_order_and_unescape_strings() {
    let fields = argument_fields(WRITE_ARGS).unwrap();
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["file_path", "content"]);
    assert_eq!(fields[1].value.as_deref(), Some(CONTENT));
    assert_eq!(
        fields[1].raw,
        r#""fn main() {\n    println!(\"hi\");\n}\n""#
    );
    assert!(argument_fields(r#"{"a":1,"a":2}"#).is_none());
    assert!(argument_fields(r#"{"a":1"#).is_none());
    assert!(argument_fields(r#""text""#).is_none());
    assert_eq!(
        replace_argument(r#"{ "b" : 1 , "a" :  "x\"y" }"#, "a", "[s]").as_deref(),
        Some(r#"{ "b" : 1 , "a" :  "[s]" }"#)
    );
    assert_eq!(replace_argument(r#"{"b":1}"#, "a", "s"), None);
}

#[test]
fn the_view_keeps_a_json_object_and_expand_gives_the_exact_value() {
    let minted = session(WRITE_ARGS);
    let r = elision("content", CONTENT, &minted);
    let id = r.id.to_string();
    assert_eq!(
        r.stub,
        format!(
            "[rehydrate:tool-input {id} | 34 bytes of tool call toolu_2 argument content hidden; expand_reduction restores them]"
        )
    );
    let stub = stub_message(&r, &minted[1]).unwrap();
    assert_eq!(stub.tool_calls[0], minted[1].tool_calls[0]);
    assert_eq!(stub.tool_calls[1].id, "toolu_2");
    assert_eq!(stub.tool_calls[1].name, "Write");
    assert_eq!(
        stub.tool_calls[1].arguments,
        format!(r#"{{"file_path": "/src/a.rs", "content": "{}"}}"#, r.stub)
    );
    let args: serde_json::Value = serde_json::from_str(&stub.tool_calls[1].arguments).unwrap();
    assert!(args.is_object());
    assert_eq!(stub.content_text(), Some("writing"));
    assert_eq!(stub.metadata.get(REDUCTION_METADATA_KEY), Some(&id));

    let log = log_of(vec![r]);
    let out = expand_reduction(&log, &minted, &id, None).unwrap();
    assert_eq!(out.content, CONTENT);
    assert_eq!(out.total_bytes, 34);
    let out = expand_reduction(&log, &minted, &id, Some((12, 19))).unwrap();
    assert_eq!(out.content, "    pri");
    assert!(verify_log(&log, &minted).is_empty());

    let mut view = minted.clone();
    view[1] = stub;
    assert_eq!(invert(&view, &log, &minted).unwrap(), minted);
    view[1].tool_calls[1].arguments.push(' ');
    assert!(invert(&view, &log, &minted).is_err());
}

#[test]
fn an_id_or_field_of_another_shape_is_left_out_of_the_stub() {
    let mut minted = session(WRITE_ARGS);
    minted[1].tool_calls[1].id = "toolu 2]".into();
    let r = elision("content", CONTENT, &minted);
    assert!(r.stub.ends_with(
        "| 34 bytes of tool call argument content hidden; expand_reduction restores them]"
    ));
}

#[test]
fn tampered_arguments_are_a_digest_mismatch_naming_the_id() {
    let minted = session(WRITE_ARGS);
    let r = elision("content", CONTENT, &minted);
    let id = r.id.to_string();
    let log = log_of(vec![r]);
    let tampered = session(&WRITE_ARGS.replace("hi", "ho"));
    let err = expand_reduction(&log, &tampered, &id, None).unwrap_err();
    assert!(
        matches!(err, Error::DigestMismatch { index: 1, .. }),
        "{err}"
    );
    assert_eq!(err.reduction_id(), Some(id.as_str()));
}

#[test]
fn a_missing_field_a_number_or_arguments_not_json_do_not_resolve() {
    let minted = session(WRITE_ARGS);
    let r = elision("content", CONTENT, &minted);
    let id = r.id.to_string();
    let log = log_of(vec![r]);
    let cases = [
        (
            r#"{"file_path": "/src/a.rs"}"#,
            "tool call toolu_2 has no field `content`",
        ),
        (
            r#"{"file_path": "/src/a.rs", "content": 34}"#,
            "field `content` of tool call toolu_2 is not a string",
        ),
        (
            r#"{"file_path": "/src/a.rs", "content": "#,
            "the arguments of tool call toolu_2 are not a JSON object with distinct fields",
        ),
    ];
    for (args, reason) in cases {
        let err = expand_reduction(&log, &session(args), &id, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("reduction {id}: {reason}"),
            "{args}"
        );
    }
    let err = expand_reduction(&log, &minted[..1], &id, None).unwrap_err();
    assert!(
        matches!(err, Error::MissingMessage { index: 1, .. }),
        "{err}"
    );
}
