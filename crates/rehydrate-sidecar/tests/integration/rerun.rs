//! Re-runs: the canonical arguments two calls are compared by, and the call a tool result
//! answers in place (docs/FORMATS.md, "Superseded results").

use rehydrate_model::{Message, Role};
use rehydrate_sidecar::{CommandFields, answered_call, canonical_arguments, rerun_key};
use rehydrate_test_support::{assistant_call, call, calling};

fn defaults() -> Vec<String> {
    vec!["command".to_string(), "cmd".to_string()]
}

fn canonical(arguments: &str) -> Option<String> {
    canonical_arguments(arguments, CommandFields::Named(&defaults()))
}

fn command(c: &str) -> Option<String> {
    canonical(&serde_json::json!({ "command": c }).to_string())
}

#[test]
fn canonical_arguments_sort_keys_and_trim_every_string() {
    assert_eq!(
        canonical(r#" { "b": [" x ", {"d": "y\n"}], "a": 1 } "#).as_deref(),
        Some(r#"{"a":1,"b":["x",{"d":"y"}]}"#)
    );
    // Inside strings that are not commands, whitespace runs stay.
    assert_ne!(
        canonical(r#"{"path":"a  b"}"#),
        canonical(r#"{"path":"a b"}"#)
    );
    // Numbers compare as JSON numbers are written: 1 and 1.0 differ.
    assert_ne!(canonical(r#"{"n":1}"#), canonical(r#"{"n":1.0}"#));
}

#[test]
fn command_fields_collapse_word_separators_only() {
    assert_eq!(command("cargo  test"), command("cargo test"));
    assert_eq!(command("cargo\ttest -p  x "), command("cargo test -p x"));
    assert_ne!(command("ls -la"), command("ls -al"));
    // Quoted text keeps its spaces; an escaped space is part of a word.
    assert_ne!(command("grep 'a  b' f"), command("grep 'a b' f"));
    assert_ne!(command("echo \"a  b\""), command("echo \"a b\""));
    assert_ne!(command("echo \"x\\\"  y\""), command("echo \"x\\\" y\""));
    assert_ne!(command("touch a\\  b"), command("touch a\\ b"));
    assert_eq!(command("echo 'a  b'  x"), command("echo 'a  b' x"));
    // Indentation and line breaks are kept.
    assert_ne!(command("a\n  b"), command("a\n b"));
    assert_ne!(command("a\nb"), command("a b"));
    assert_eq!(command("a\n  b  c"), command("a\n  b c"));
    // Compared as written: an open quote, a trailing backslash, a here-document.
    assert_ne!(command("echo 'a  b"), command("echo 'a b"));
    assert_ne!(
        command("cat <<EOF\na  b\nEOF"),
        command("cat <<EOF\na b\nEOF")
    );
    assert_eq!(
        command("cat <<EOF\na  b\nEOF "),
        command("cat <<EOF\na  b\nEOF")
    );
    // `cmd` is a command field by default; other fields, and nested ones, are not.
    assert_eq!(
        canonical(r#"{"cmd":"git  status"}"#),
        canonical(r#"{"cmd":"git status"}"#)
    );
    assert_ne!(
        canonical(r#"{"script":"git  status"}"#),
        canonical(r#"{"script":"git status"}"#)
    );
    assert_ne!(
        canonical(r#"{"x":{"command":"git  status"}}"#),
        canonical(r#"{"x":{"command":"git status"}}"#)
    );
    // Every: every top-level string field.
    let every = |a: &str| canonical_arguments(a, CommandFields::Every);
    assert_eq!(
        every(r#"{"script":"git  status"}"#),
        every(r#"{"script":"git status"}"#)
    );
}

#[test]
fn arguments_without_one_meaning_have_no_canonical_form() {
    for bad in [
        "",
        "not json",
        "{",
        "[]",
        r#""ls""#,
        "3",
        r#"{"command":"ls"} trailing"#,
        r#"{"command":"ls","command":"rm -rf x"}"#,
        r#"{"a":{"k":1,"k":2}}"#,
        r#"{"a":"\ud800"}"#,
    ] {
        assert_eq!(canonical(bad), None, "{bad}");
    }
    // A colon inside a string is not a member.
    assert!(canonical(r#"{"url":"http://x:80/\"a:b\""}"#).is_some());
}

#[test]
fn rerun_keys_name_the_tool_and_the_canonical_arguments() {
    let fields = defaults();
    let key = |name: &str, arguments: &str| {
        rerun_key(&call("c", name, arguments), CommandFields::Named(&fields))
    };
    assert_eq!(
        key("bash", r#"{"command":"cargo  test"}"#),
        key("bash", r#"{"command":"cargo test"}"#)
    );
    assert_ne!(
        key("bash", r#"{"command":"ls"}"#),
        key("shell", r#"{"command":"ls"}"#)
    );
    assert_eq!(key("bash", "{"), None);
}

#[test]
fn a_result_answers_the_call_right_before_it() {
    let empty_assistant = Message {
        role: Role::Assistant,
        ..Message::default()
    };
    let minted = vec![
        Message::text(Role::User, "go"),
        calling(
            None,
            vec![call("a", "ls", "{}"), call("b", "cat", r#"{"path":"x"}"#)],
        ),
        Message::tool_result("b", "x"),
        empty_assistant,
        Message::tool_result("a", "listing"),
        Message::tool_result("a", "second answer"),
        Message::text(Role::User, "between"),
        Message::tool_result("b", "moved"),
        assistant_call("c", "bad name!", "{}"),
        Message::tool_result("c", "folded"),
        Message::tool_result("zz", "orphan"),
    ];
    let found = |i: usize| answered_call(&minted, i).map(|(at, c)| (at, c.id.clone()));
    assert_eq!(found(2), Some((1, "b".to_string())));
    assert_eq!(found(4), Some((1, "a".to_string())));
    assert_eq!(found(5), None, "a second answer");
    assert_eq!(found(7), None, "a result separated from its call");
    assert_eq!(found(9), None, "a call the APIs refuse");
    assert_eq!(found(10), None, "no call with that id");
    assert_eq!(found(0), None, "not a tool result");
    assert_eq!(found(99), None, "no message");
}
