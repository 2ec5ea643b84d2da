//! Re-runs: the canonical arguments two calls are compared by, and the call a tool result
//! answers in place (docs/FORMATS.md, "Superseded results").

use rehydrate_model::{
    Content, Message, REDUCTION_METADATA_KEY, Reduction, ReductionKind, ReductionLog, Role,
};
use rehydrate_sidecar::{
    CommandFields, answered_call, canonical_arguments, content_digest, expand_reduction,
    expected_stub, invert, reduction_total_bytes, rerun_key, resolve, stub_message, verify_log,
};
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
fn canonical_arguments_sort_keys_and_keep_other_strings_exactly() {
    assert_eq!(
        canonical(r#" { "b": [" x ", {"d": "y\n"}], "a": 1, "command": " ls " } "#).as_deref(),
        Some(r#"{"a":1,"b":[" x ",{"d":"y\n"}],"command":"ls"}"#)
    );
    // Strings that are not commands are compared exactly: runs and ends of whitespace stay.
    assert_ne!(
        canonical(r#"{"path":"a  b"}"#),
        canonical(r#"{"path":"a b"}"#)
    );
    // An edit that fixes indentation is another call (a SWE-agent retry after an
    // IndentationError: the same lines, the replacement text indented).
    assert_ne!(
        canonical(r#"{"replacement_text":"return x","start_line":7,"end_line":7}"#),
        canonical(r#"{"replacement_text":"    return x","start_line":7,"end_line":7}"#)
    );
    assert_ne!(
        canonical(r#"{"content":"x\n"}"#),
        canonical(r#"{"content":"x"}"#)
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
    // Every: every top-level string field, not nested ones.
    let every = |a: &str| canonical_arguments(a, CommandFields::Every);
    assert_eq!(
        every(r#"{"script":"git  status "}"#),
        every(r#"{"script":"git status"}"#)
    );
    assert_ne!(
        every(r#"{"x":{"script":"git  status"}}"#),
        every(r#"{"x":{"script":"git status"}}"#)
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
        assistant_call("c", "ls", "not json"),
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

const FAILED: &str =
    "running 2 tests\ntest a ... ok\ntest b ... FAILED\ntest result: FAILED. 1 passed; 1 failed\n";

/// A failing `cargo test`, an edit, the same `cargo test` (written with other spaces) passing,
/// then `ls`.
fn rerun_session() -> Vec<Message> {
    vec![
        Message::text(Role::User, "make the tests pass"),
        assistant_call("t1", "bash", r#"{"command":"cargo test"}"#),
        Message::tool_result("t1", FAILED),
        assistant_call("t2", "edit", r#"{"command":"cargo test"}"#),
        Message::tool_result("t2", "edited src/lib.rs"),
        assistant_call("t3", "bash", r#"{"command":" cargo  test"}"#),
        Message::tool_result("t3", "test result: ok. 2 passed; 0 failed\n"),
        assistant_call("t4", "bash", r#"{"command":"ls"}"#),
        Message::tool_result("t4", "Cargo.toml\nsrc\n"),
    ]
}

fn superseded(ordinal: usize, index: usize, by: usize, minted: &[Message]) -> Reduction {
    let text = minted[index].content_text().unwrap();
    rehydrate_test_support::superseded(ordinal, index, by, text, |r| expected_stub(r, minted))
}

#[test]
fn a_superseded_result_resolves_expands_and_inverts() {
    let minted = rerun_session();
    let r = superseded(0, 2, 6, &minted);
    let id = r.id.to_string();
    assert_eq!(
        r.stub,
        format!(
            "[rehydrate:superseded {id} | superseded by message 6, a later result of the same bash call; {} bytes hidden; expand_reduction restores them]",
            FAILED.len()
        )
    );
    assert_eq!(r.ptr.digest, content_digest(FAILED.as_bytes()));
    let stub = stub_message(&r, &minted[2]).unwrap();
    let mut expected = Message::tool_result("t1", r.stub.clone());
    expected
        .metadata
        .insert(REDUCTION_METADATA_KEY.to_string(), id.clone());
    assert_eq!(stub, expected);

    let log = ReductionLog {
        reductions: vec![r],
    };
    assert!(verify_log(&log, &minted).is_empty());
    assert_eq!(resolve(&log, &minted, &id).unwrap().text, FAILED);
    let whole = expand_reduction(&log, &minted, &id, None).unwrap();
    assert_eq!(
        (whole.content.as_ref(), whole.total_bytes),
        (FAILED, FAILED.len())
    );
    let ranged = expand_reduction(&log, &minted, &id, Some((8, 15))).unwrap();
    assert_eq!(ranged.content, "2 tests");
    assert_eq!(
        reduction_total_bytes(&log, &minted, &id).unwrap(),
        FAILED.len()
    );

    let mut view = minted.clone();
    view[2] = stub;
    assert_eq!(invert(&view, &log, &minted).unwrap(), minted);
    // A view whose stub was edited does not invert.
    let mut edited = view.clone();
    edited[2].content = Some(Content::Text("[rehydrate:superseded forged]".into()));
    assert!(invert(&edited, &log, &minted).is_err());
}

#[test]
fn a_forged_superseded_result_does_not_verify() {
    let minted = rerun_session();
    let check = |r: Reduction, reason: &str| {
        let id = r.id.to_string();
        let log = ReductionLog {
            reductions: vec![r],
        };
        let errors = verify_log(&log, &minted);
        assert_eq!(errors.len(), 1, "{reason}");
        assert_eq!(errors[0].to_string(), format!("reduction {id}: {reason}"));
        assert!(expand_reduction(&log, &minted, &id, None).is_err());
    };
    check(
        superseded(0, 2, 8, &minted),
        "message 8 answers a call with other arguments than message 2",
    );
    check(
        superseded(0, 2, 4, &minted),
        "message 4 answers a call of another tool than message 2",
    );
    check(
        superseded(0, 6, 2, &minted),
        "names message 2 as the later re-run of message 6, which is not after it",
    );
    check(
        superseded(0, 2, 2, &minted),
        "names message 2 as the later re-run of message 2, which is not after it",
    );
    check(
        superseded(0, 2, 5, &minted),
        "role mismatch at message 5: expected tool, found assistant",
    );
    check(
        superseded(0, 2, 99, &minted),
        "the sidecar has no message at index 99 (it holds 9 messages)",
    );
    // A stub that names another message than the one recorded.
    let mut r = superseded(0, 2, 6, &minted);
    r.stub = r.stub.replace("message 6", "message 8");
    check(
        r.clone(),
        &format!(
            "stub does not match its reduction: expected `{}`",
            superseded(0, 2, 6, &minted).stub
        ),
    );
    // Another original size.
    let mut r = superseded(0, 2, 6, &minted);
    if let ReductionKind::Superseded { original_bytes, .. } = &mut r.kind {
        *original_bytes += 1;
    }
    check(
        r,
        &format!(
            "records {} original bytes but message 2 has {}",
            FAILED.len() + 1,
            FAILED.len()
        ),
    );
}

#[test]
fn parallel_calls_and_unknown_calls_are_no_re_runs() {
    let minted = vec![
        Message::text(Role::User, "go"),
        calling(
            None,
            vec![
                call("p1", "bash", r#"{"cmd":"ls"}"#),
                call("p2", "bash", r#"{"cmd":"ls"}"#),
            ],
        ),
        Message::tool_result("p1", "a\n"),
        Message::tool_result("p2", "a\n"),
        Message::text(Role::User, "again"),
        Message::tool_result("p1", "an orphan answering p1 again"),
        assistant_call("p3", "bash", r#"{"cmd":"ls"}"#),
        Message::tool_result("p3", "a\n"),
    ];
    let check = |r: Reduction, reason: &str| {
        let id = r.id.to_string();
        let errors = verify_log(
            &ReductionLog {
                reductions: vec![r],
            },
            &minted,
        );
        assert_eq!(errors.len(), 1, "{reason}");
        assert_eq!(errors[0].to_string(), format!("reduction {id}: {reason}"));
    };
    let text = |i: usize| minted[i].content_text().unwrap().to_string();
    let forged = |index: usize, by: usize| {
        rehydrate_test_support::superseded(0, index, by, &text(index), |r| {
            expected_stub(r, &minted)
        })
    };
    check(
        forged(2, 3),
        "message 3 answers a call of message 1, which is not after message 1 that made the call of message 2",
    );
    check(
        forged(5, 7),
        "message 5 answers no tool call right before it, so it is no re-run",
    );
    // Superseded by a later call's result, each parallel result verifies.
    let by_later = |index: usize| {
        rehydrate_test_support::superseded(0, index, 7, &text(index), |r| expected_stub(r, &minted))
    };
    for index in [2, 3] {
        let log = ReductionLog {
            reductions: vec![by_later(index)],
        };
        assert!(verify_log(&log, &minted).is_empty(), "message {index}");
    }
}

#[test]
fn numbers_are_compared_as_written() {
    let fields = ["command".to_string()];
    let canonical = |a: &str| canonical_arguments(a, CommandFields::Named(&fields));
    // Parsing would make these the same number; as written they differ, so neither has a
    // canonical form (a false supersession is worse than a missed one).
    assert_eq!(canonical(r#"{"amount":5e0}"#), None);
    assert_eq!(canonical(r#"{"amount":5.00}"#), None);
    assert_eq!(canonical(r#"{"n":12345678901234567890123}"#), None);
    assert_eq!(canonical(r#"{"n":12345678901234567891000}"#), None);
    // Numbers JSON writes back as they are keep their canonical form, strings holding digits
    // too.
    assert_eq!(
        canonical(r#"{ "b": [1, -2.5, 3e-7], "a": "5e0" }"#).as_deref(),
        Some(r#"{"a":"5e0","b":[1,-2.5,3e-7]}"#)
    );
    assert_ne!(canonical(r#"{"amount":5}"#), canonical(r#"{"amount":5.0}"#));
}
