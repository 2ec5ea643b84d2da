//! Data-driven reducer cases: each `fixtures/reduce/*.json` holds a note, policy overrides and
//! canonical messages; the view and log are snapshotted, and every case must verify, expand
//! and invert exactly.

use std::path::Path;

use rehydrate_model::{Message, ReductionLog};
use rehydrate_reduce::{ReductionPolicy, project_messages};
use rehydrate_sidecar::{expand_reduction, invert, verify_log};
use serde_json::Value;

fn policy_from(overrides: &Value) -> ReductionPolicy {
    let mut policy = ReductionPolicy::default();
    let Some(map) = overrides.as_object() else {
        return policy;
    };
    for (key, value) in map {
        let n =
            || usize::try_from(value.as_u64().expect("numeric policy field")).expect("fits usize");
        match key.as_str() {
            "tool_output_trigger_bytes" => policy.tool_output_trigger_bytes = n(),
            "head_bytes" => policy.head_bytes = n(),
            "tail_bytes" => policy.tail_bytes = n(),
            "protect_last_n_tool_results" => policy.protect_last_n_tool_results = n(),
            "dedupe_outputs" => policy.dedupe_outputs = value.as_bool().expect("boolean"),
            "clear_turns_older_than" => policy.clear_turns_older_than = Some(n()),
            "min_saved_bytes" => policy.min_saved_bytes = n(),
            "turns_summary" => policy.turns_summary = value.as_str().map(str::to_string),
            other => panic!("unknown policy field `{other}`"),
        }
    }
    policy
}

fn check(path: &Path) {
    let case: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let policy = policy_from(&case["policy"]);
    let history: Vec<Message> = serde_json::from_value(case["messages"].clone()).unwrap();
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert!(verify_log(&out.log, &history).is_empty());
    assert_eq!(invert(&out.view, &out.log, &history).unwrap(), history);
    for r in &out.log.reductions {
        let full = expand_reduction(&out.log, &history, r.id.as_str(), None).unwrap();
        if !matches!(r.kind, rehydrate_model::ReductionKind::TurnsCleared { .. }) {
            assert_eq!(full.total_bytes, r.kind.original_bytes());
        }
    }
    let again = project_messages(&history, &out.log, &policy);
    assert_eq!(again.view, out.view);
    assert_eq!(again.log, out.log);
    insta::assert_json_snapshot!(serde_json::json!({
        "note": case["note"],
        "view": out.view,
        "log": out.log,
    }));
}

#[test]
fn reduce_fixtures() {
    insta::glob!("../../../../fixtures/reduce", "*.json", check);
}
