//! A superseded result is searched whole (SPEC seed 000 rule 16), once: on its own, or through
//! the cleared range that holds it.

use rehydrate_model::{Message, ReductionLog, Role, StubKind};
use rehydrate_search::{SearchOptions, hidden_texts, sidecar_search};
use rehydrate_test_support::assistant_call;

use crate::build::{Spec, reduction};

const FAILED: &str = "test a ... ok\ntest b ... FAILED\ntest result: FAILED. 1 passed; 1 failed\n";

fn session() -> Vec<Message> {
    vec![
        Message::text(Role::User, "make the tests pass"),
        assistant_call("t1", "bash", r#"{"command":"cargo test"}"#),
        Message::tool_result("t1", FAILED),
        Message::text(Role::User, "try again"),
        assistant_call("t2", "bash", r#"{"command":"cargo  test"}"#),
        Message::tool_result("t2", "test result: ok. 2 passed; 0 failed\n"),
    ]
}

fn log_of(minted: &[Message], specs: &[Spec]) -> ReductionLog {
    ReductionLog {
        reductions: specs
            .iter()
            .enumerate()
            .map(|(ordinal, spec)| reduction(minted, ordinal, spec, None))
            .collect(),
    }
}

#[test]
fn a_superseded_result_is_searched_whole() {
    let minted = session();
    let log = log_of(&minted, &[Spec::Superseded { index: 2, by: 5 }]);
    let hidden = hidden_texts(&log, &minted);
    assert_eq!(hidden.unresolvable.len(), 0);
    assert_eq!(hidden.texts.len(), 1);
    assert_eq!(hidden.texts[0].hidden(), FAILED);
    let options = SearchOptions::default();
    let failed = sidecar_search(&log, &minted, "failed", &options).unwrap();
    assert_eq!(failed.total_matches, 3);
    assert!(
        failed
            .matches
            .iter()
            .all(|m| m.kind == StubKind::Superseded)
    );
    // The later result is in the view: its "passed" is not searched, the hidden one is.
    let passed = sidecar_search(&log, &minted, "passed", &options).unwrap();
    assert_eq!(passed.total_matches, 1);
    assert!(passed.matches[0].snippet.contains("1 passed"));
}

#[test]
fn a_superseded_result_inside_a_cleared_range_is_searched_through_it() {
    let minted = session();
    let log = log_of(
        &minted,
        &[
            Spec::Superseded { index: 2, by: 5 },
            Spec::Turns { first: 0, last: 2 },
        ],
    );
    let hidden = hidden_texts(&log, &minted);
    assert_eq!(hidden.covered.len(), 1);
    assert_eq!(hidden.texts.len(), 1);
    let failed = sidecar_search(
        &log,
        &minted,
        "test b ... FAILED",
        &SearchOptions::default(),
    )
    .unwrap();
    assert_eq!(failed.total_matches, 1);
    assert_eq!(failed.matches[0].kind, StubKind::TurnsCleared);
}

#[test]
fn a_forged_superseded_result_is_unresolvable() {
    let minted = session();
    // Superseded by the user message: not a tool result.
    let log = log_of(&minted, &[Spec::Superseded { index: 2, by: 3 }]);
    let result = sidecar_search(&log, &minted, "failed", &SearchOptions::default()).unwrap();
    assert_eq!((result.total_matches, result.unresolvable), (0, 1));
}
