//! The cases of `fixtures/signals/`: each file is `{"note", "signals"}`; the snapshot is the
//! decision, or the divergence message.

use rehydrate_signals::{CompactionSignals, check_compaction_boundary};

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    note: String,
    signals: CompactionSignals,
}

#[test]
fn fixture_cases() {
    insta::glob!("../../../../fixtures/signals", "*.json", |path| {
        let text = std::fs::read_to_string(path).expect("fixture is readable");
        let case: Case = serde_json::from_str(&text).expect("fixture parses");
        let s = &case.signals;
        let outcome = match check_compaction_boundary(s) {
            Ok(decision) => decision.as_str().to_string(),
            Err(e) => format!("freeze: {e}"),
        };
        insta::assert_snapshot!(format!(
            "{}\n\nsignal 1 (ratio inverted): {}\nsignal 2 (references growing): {}\ndecision: {outcome}",
            case.note,
            s.ratio_inverted(),
            s.refs_growing()
        ));
    });
}
