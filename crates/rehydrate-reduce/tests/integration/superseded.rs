//! Superseded results (docs/FORMATS.md, "Superseded results"): when a re-run supersedes, what
//! takes precedence, and that chunked feeding mints the same reductions as the one-shot form.

use rehydrate_model::{Message, MessageAddr, ReductionKind, ReductionLog, Role};
use rehydrate_reduce::{Reducer, ReductionPolicy, project_messages};
use rehydrate_sidecar::{expand_reduction, invert, verify_log};
use rehydrate_test_support::{assistant_call, call, calling};

fn failing() -> String {
    format!(
        "{}test result: FAILED. 1 failed\n",
        "test x ... FAILED\n".repeat(20)
    )
}

fn passing() -> String {
    format!(
        "{}test result: ok. 20 passed\n",
        "test x ... ok\n".repeat(20)
    )
}

fn bash(id: &str, command: &str) -> Message {
    assistant_call(
        id,
        "bash",
        &serde_json::json!({ "command": command }).to_string(),
    )
}

/// (kind token, message index) of each reduction.
fn kinds(log: &ReductionLog) -> Vec<(&'static str, usize)> {
    log.reductions
        .iter()
        .map(|r| (r.kind.stub_kind().as_str(), r.ptr.addr.index))
        .collect()
}

fn supersede(policy: ReductionPolicy) -> ReductionPolicy {
    ReductionPolicy {
        supersede_reruns: true,
        min_saved_bytes: 0,
        ..policy
    }
}

/// A failing `cargo test`, an edit, the passing re-run.
fn rerun() -> Vec<Message> {
    vec![
        Message::text(Role::User, "fix it"),
        bash("c1", "cargo test"),
        Message::tool_result("c1", failing()),
        assistant_call("e1", "edit", r#"{"path":"src/lib.rs"}"#),
        Message::tool_result("e1", "edited"),
        bash("c2", "cargo  test"),
        Message::tool_result("c2", passing()),
    ]
}

#[test]
fn a_re_run_supersedes_inside_the_protected_window() {
    let history = rerun();
    let policy = supersede(ReductionPolicy::default());
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert_eq!(kinds(&out.log), [("superseded", 2)]);
    let r = &out.log.reductions[0];
    assert_eq!(
        r.kind,
        ReductionKind::Superseded {
            by: MessageAddr {
                index: 6,
                role: Role::Tool
            },
            original_bytes: failing().len()
        }
    );
    assert_eq!(
        out.view[2].content_text(),
        Some(r.stub.as_str()),
        "the view shows the stub"
    );
    assert_eq!(out.view[6], history[6], "the re-run stands");
    let expanded = expand_reduction(&out.log, &history, r.id.as_str(), None).unwrap();
    assert_eq!(expanded.content, failing());
    assert_eq!(invert(&out.view, &out.log, &history).unwrap(), history);
    // The conservative preset does not supersede; the aggressive one does.
    let default = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::default(),
    );
    assert!(default.log.is_empty());
    let aggressive = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::aggressive(),
    );
    assert_eq!(kinds(&aggressive.log), [("superseded", 2)]);
}

#[test]
fn other_calls_parallel_calls_and_configured_fields() {
    let mut history = vec![
        Message::text(Role::User, "go"),
        bash("l1", "ls -la"),
        Message::tool_result("l1", failing()),
        bash("l2", "ls -al"),
        Message::tool_result("l2", passing()),
        assistant_call("s1", "shell", r#"{"command":"ls -al"}"#),
        Message::tool_result("s1", passing()),
        calling(
            None,
            vec![
                call("p1", "bash", r#"{"script":"make"}"#),
                call("p2", "bash", r#"{"script":"make"}"#),
            ],
        ),
        Message::tool_result("p1", failing()),
        Message::tool_result("p2", passing()),
    ];
    let policy = supersede(ReductionPolicy {
        dedupe_outputs: false,
        ..ReductionPolicy::default()
    });
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert!(out.log.is_empty(), "{:?}", kinds(&out.log));
    history.push(assistant_call("p3", "bash", r#"{"script":"make"}"#));
    history.push(Message::tool_result("p3", passing()));
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert_eq!(kinds(&out.log), [("superseded", 8), ("superseded", 9)]);
    history.push(assistant_call("p4", "bash", r#"{"script":"make   all "}"#));
    history.push(Message::tool_result("p4", passing()));
    history.push(assistant_call("p5", "bash", r#"{"script":"make all"}"#));
    history.push(Message::tool_result("p5", passing()));
    // `script` is no command field by default: `make   all ` and `make all` are two calls.
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert_eq!(kinds(&out.log), [("superseded", 8), ("superseded", 9)]);
    let fields = ReductionPolicy {
        superseded_command_fields: vec!["script".to_string()],
        ..policy
    };
    let out = project_messages(&history, &ReductionLog::default(), &fields);
    assert_eq!(
        kinds(&out.log),
        [("superseded", 8), ("superseded", 9), ("superseded", 13)]
    );
    assert!(verify_log(&out.log, &history).is_empty());
}

#[test]
fn a_truncated_result_stays_truncated_and_a_canonical_copy_stays_in_view() {
    let history = rerun();
    // Fed in two parts, the failing output left the protected window and was truncated before
    // its re-run arrived: it stays truncated.
    let policy = supersede(ReductionPolicy {
        tool_output_trigger_bytes: 100,
        head_bytes: 20,
        tail_bytes: 20,
        protect_last_n_tool_results: 1,
        ..ReductionPolicy::default()
    });
    let mut reducer = Reducer::new(policy.clone());
    reducer.project(history[..5].iter().cloned());
    assert_eq!(kinds(reducer.log()), [("tool-output", 2)]);
    reducer.project(history[5..].iter().cloned());
    assert_eq!(kinds(reducer.log()), [("tool-output", 2)]);
    // Fed at once, the re-run is known first: superseded.
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert_eq!(kinds(&out.log), [("superseded", 2)]);

    // A duplicate named the failing output as its canonical copy before the re-run arrived:
    // the copy stays in the view.
    let mut copied = rerun();
    copied.insert(5, bash("d1", "cat last.log"));
    copied.insert(6, Message::tool_result("d1", failing()));
    copied.insert(7, bash("w1", "pwd"));
    copied.insert(8, Message::tool_result("w1", "/w"));
    let policy = supersede(ReductionPolicy {
        protect_last_n_tool_results: 1,
        ..ReductionPolicy::default()
    });
    let mut reducer = Reducer::new(policy.clone());
    reducer.project(copied[..9].iter().cloned());
    reducer.project(copied[9..].iter().cloned());
    assert_eq!(kinds(reducer.log()), [("duplicate", 6)]);
    assert_eq!(reducer.view().to_vec()[2], copied[2]);
    // At once, the failing output is superseded and its copy is no duplicate of it.
    let out = project_messages(&copied, &ReductionLog::default(), &policy);
    assert_eq!(kinds(&out.log), [("superseded", 2)]);
    assert_eq!(out.view[6], copied[6]);
}

#[test]
fn no_supersession_inside_the_cleared_range_and_resumed_logs_are_reused() {
    let mut history = rerun();
    history.insert(3, Message::text(Role::Assistant, "it fails"));
    history.insert(4, Message::text(Role::User, "try an edit"));
    let policy = supersede(ReductionPolicy {
        clear_turns_older_than: Some(1),
        ..ReductionPolicy::default()
    });
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert_eq!(kinds(&out.log), [("turns-cleared", 0)]);
    // Without clearing, a projection resumed from the log reuses its superseded result.
    let policy = supersede(ReductionPolicy::default());
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert_eq!(kinds(&out.log), [("superseded", 2)]);
    let again = project_messages(&history, &out.log, &policy);
    assert_eq!(
        (again.minted, &again.log, &again.view),
        (0, &out.log, &out.view)
    );
    let mut resumed = Reducer::resume(policy, out.log.clone());
    for m in &history {
        assert_eq!(resumed.project([m.clone()]), 0);
    }
    assert_eq!(resumed.view().to_vec(), out.view);
}

#[test]
fn the_fixture_fed_message_by_message_matches_the_one_shot_form() {
    let case: serde_json::Value =
        serde_json::from_str(include_str!("../../../../fixtures/reduce/superseded.json")).unwrap();
    let history: Vec<Message> = serde_json::from_value(case["messages"].clone()).unwrap();
    for policy in [
        ReductionPolicy::aggressive(),
        ReductionPolicy {
            clear_turns_older_than: Some(2),
            ..ReductionPolicy::aggressive()
        },
        supersede(ReductionPolicy::default()),
    ] {
        let cuts: Vec<usize> = (0..history.len()).collect();
        crate::incremental::check_incremental(&history, &cuts, &policy).unwrap();
        let out = project_messages(&history, &ReductionLog::default(), &policy);
        assert!(
            kinds(&out.log).iter().any(|&(k, _)| k == "superseded"),
            "{:?}",
            kinds(&out.log)
        );
    }
}
