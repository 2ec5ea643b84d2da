//! A truncated assistant text is searched in its hidden middle only, like a truncated tool
//! output: the head and the tail are in the view.

use rehydrate_model::{Message, ReductionLog, Role, StubKind};
use rehydrate_search::{SearchOptions, hidden_texts, sidecar_search};

use crate::build::{Spec, reduction};

#[test]
fn the_hidden_middle_of_an_assistant_text_is_searched() {
    let plan = "Plan: fix the parser\nstep one: read lexer.rs\nstep two: NEEDLE in the middle\nstep three: run the tests\nDone: the parser is fixed\n";
    let start = plan.find("step one").unwrap();
    let end = plan.find("Done").unwrap();
    let minted = vec![
        Message::text(Role::User, "fix the parser"),
        Message::text(Role::Assistant, plan),
        Message::text(Role::User, "thanks"),
    ];
    let r = reduction(
        &minted,
        0,
        &Spec::TruncateAssistant {
            index: 1,
            span: [start, end],
        },
        None,
    );
    let log = ReductionLog {
        reductions: vec![r],
    };
    let hidden = hidden_texts(&log, &minted);
    assert!(hidden.unresolvable.is_empty());
    assert_eq!(hidden.texts.len(), 1);
    assert_eq!(hidden.texts[0].text(), plan);
    assert_eq!(
        hidden.texts[0].hidden(),
        "step one: read lexer.rs\nstep two: NEEDLE in the middle\nstep three: run the tests\n"
    );
    let options = SearchOptions::default();
    let found = sidecar_search(&log, &minted, "needle", &options).unwrap();
    assert_eq!(found.total_matches, 1);
    assert_eq!(found.matches[0].reduction_id, log.reductions[0].id);
    assert_eq!(found.matches[0].kind, StubKind::AssistantText);
    // The visible head and tail are not searched.
    for visible in ["Plan: fix", "Done: the parser"] {
        let found = sidecar_search(&log, &minted, visible, &options).unwrap();
        assert_eq!(found.total_matches, 0, "{visible}");
    }
    // A tampered text is not searched, and counted.
    let mut tampered = minted.clone();
    tampered[1] = Message::text(Role::Assistant, plan.replace("NEEDLE", "needle"));
    let found = sidecar_search(&log, &tampered, "needle", &options).unwrap();
    assert_eq!((found.total_matches, found.unresolvable), (0, 1));
}
