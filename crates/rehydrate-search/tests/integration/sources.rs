//! Search over the two resolution sources: a capped tool output with its recorded bytes is
//! searched in those bytes (SPEC seed 000 rule 5).

use rehydrate_model::{CAP_NOTICE_MARKER, Message, ReductionLog, Role};
use rehydrate_search::{SearchOptions, sidecar_search};
use rehydrate_sidecar::Sources;

use crate::build::{Spec, reduction};

#[test]
fn a_capped_output_is_searched_in_its_recorded_bytes() {
    let capped = format!(
        "head {CAP_NOTICE_MARKER}9000 bytes total, showing first 5; full output in session sidecar]"
    );
    let full = format!("head {}needle at the end", "x".repeat(8980));
    let minted = vec![
        Message::text(Role::User, "go"),
        Message::tool_result("c1", capped.clone()),
    ];
    let recorded = vec![
        Message::text(Role::User, "go"),
        Message::tool_result("c1", full),
    ];
    let r = reduction(
        &minted,
        0,
        &Spec::Truncate {
            index: 1,
            span: [5, capped.len()],
        },
        None,
    );
    let log = ReductionLog {
        reductions: vec![r],
    };
    let options = SearchOptions::default();
    let alone = sidecar_search(&log, &minted, "needle", &options).unwrap();
    assert_eq!(alone.total_matches, 0);
    let both = sidecar_search(
        &log,
        Sources::with_recorded(&minted, &recorded),
        "needle",
        &options,
    )
    .unwrap();
    assert_eq!(both.total_matches, 1);
    assert!(
        both.matches[0].snippet.ends_with("needle at the end"),
        "{:?}",
        both.matches[0]
    );
    // The kept head stays visible, so it is not searched.
    let head = sidecar_search(
        &log,
        Sources::with_recorded(&minted, &recorded),
        "head",
        &options,
    )
    .unwrap();
    assert_eq!(head.total_matches, 0);
}
