//! A normalized terminal output is searched in its whole raw text (docs/FORMATS.md, "Terminal
//! output"): the overwritten frames and the styles the view never shows are found, and so is
//! the final screen, at its byte range in the raw text that `expand_reduction` serves.

use rehydrate_model::{Message, ReductionKind, ReductionLog, Role, StubKind};
use rehydrate_reduce::{ReductionPolicy, project_messages};
use rehydrate_search::{SearchOptions, hidden_texts, sidecar_search};
use rehydrate_sidecar::expand_reduction;
use rehydrate_test_support::assistant_call;

fn raw() -> String {
    let mut out = String::new();
    for i in 0..=40 {
        out.push_str(&format!("\r\x1b[36mfetching\x1b[0m crate-{i:02} [{i}/40]"));
    }
    out.push_str("\r\x1b[K\x1b[32mfetched\x1b[0m 40 crates\n");
    out
}

fn session() -> Vec<Message> {
    vec![
        Message::text(Role::User, "fetch"),
        assistant_call("t1", "bash", r#"{"command":"cargo fetch"}"#),
        Message::tool_result("t1", raw()),
        assistant_call("t2", "bash", r#"{"command":"ls"}"#),
        Message::tool_result("t2", "Cargo.toml\n"),
    ]
}

#[test]
fn the_whole_raw_output_is_searched() {
    let history = session();
    let policy = ReductionPolicy {
        normalize_terminal_output: true,
        protect_last_n_tool_results: 1,
        ..ReductionPolicy::default()
    };
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    let r = &out.log.reductions[0];
    assert!(matches!(r.kind, ReductionKind::OutputNormalized { .. }));
    let hidden = hidden_texts(&out.log, &history);
    assert_eq!(hidden.texts.len(), 1);
    assert_eq!(hidden.texts[0].hidden(), raw());
    // An overwritten frame, which the view does not show.
    let result = sidecar_search(&out.log, &history, "crate-17", &SearchOptions::default()).unwrap();
    assert_eq!(result.total_matches, 1);
    assert_eq!(result.matches[0].kind, StubKind::Terminal);
    // A style's bytes: the raw text is what is searched.
    let result = sidecar_search(&out.log, &history, "[36m", &SearchOptions::default()).unwrap();
    assert_eq!(result.total_matches, 41);
    // The final screen's words, at their place in the raw text.
    let result =
        sidecar_search(&out.log, &history, "40 crates", &SearchOptions::default()).unwrap();
    assert_eq!(result.total_matches, 1);
    let at = raw().find("40 crates").unwrap();
    let m = &result.matches[0];
    let expanded = expand_reduction(
        &out.log,
        &history,
        m.reduction_id.as_str(),
        Some((at, at + 9)),
    )
    .unwrap();
    assert_eq!(expanded.content, "40 crates");
}
