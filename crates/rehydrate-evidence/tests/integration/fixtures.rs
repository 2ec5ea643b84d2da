//! The cases of `fixtures/evidence/` (SPEC seed 003 and more): each file is
//! `{"note", "options"?, "workspace"?, "events"}`; the snapshot is the evidence as pretty JSON
//! (with its stats) or the error.

use rehydrate_evidence::{EvidenceOptions, project_evidence};
use rehydrate_model::SessionEvent;
use serde_json::Value;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    note: String,
    #[serde(default)]
    options: Option<Options>,
    #[serde(default)]
    workspace: Vec<Value>,
    events: Vec<SessionEvent>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    max_input_bytes: usize,
}

#[test]
fn fixture_cases() {
    insta::glob!("../../../../fixtures/evidence", "*.json", |path| {
        let text = std::fs::read_to_string(path).expect("fixture is readable");
        let case: Case = serde_json::from_str(&text).expect("fixture parses");
        let mut options = EvidenceOptions::default();
        if let Some(o) = &case.options {
            options.max_input_bytes = o.max_input_bytes;
        }
        let report = match project_evidence(&case.events, &case.workspace, &options) {
            Ok(evidence) => {
                // The measured size is the size of the input handed on.
                assert_eq!(evidence.stats.bytes_after, evidence.input_json().len());
                serde_json::to_string_pretty(&evidence).expect("evidence serializes")
            }
            Err(e) => format!("error: {e}"),
        };
        insta::assert_snapshot!(format!("{}\n\n{report}", case.note));
    });
}
