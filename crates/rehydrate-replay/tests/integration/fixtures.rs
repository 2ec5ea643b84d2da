//! The cases of `fixtures/replay/` (SPEC seed 001 and more): each file is
//! `{"note", "messages"}` with canonical messages; the snapshot shows what each message did and
//! the records replay reports.

use std::fmt::Write as _;

use rehydrate_model::Message;
use rehydrate_replay::{Replay, Step, file_records};

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    note: String,
    messages: Vec<Message>,
}

/// The report a snapshot holds: the note, each message's step, the records and the counts.
pub(crate) fn report(note: &str, messages: &[Message]) -> String {
    let mut out = format!("{note}\n\nsteps:\n");
    let mut replay = Replay::new();
    for (i, m) in messages.iter().enumerate() {
        let step = replay.step(i, m);
        if step != Step::Ignored {
            let step = match step {
                Step::Retracted(reason) => format!("retracted: {reason}"),
                other => format!("{other:?}").to_lowercase(),
            };
            let _ = writeln!(out, "  {i}: {step}");
        }
    }
    let records = replay.records();
    assert_eq!(records, file_records(messages), "the one-shot form differs");
    out.push_str("\nrecords:\n");
    for r in &records {
        let _ = writeln!(
            out,
            "  {} ({} bytes, {}, at {}, message {}): {:?}",
            r.path,
            r.bytes(),
            r.digest.short_hex(12),
            r.at.as_deref().unwrap_or("-"),
            r.index,
            r.content
        );
    }
    let counts = replay.counts();
    let _ = writeln!(
        out,
        "\npaths: {} proven, {} retracted, {} inert",
        counts.proven, counts.retracted, counts.inert
    );
    out
}

#[test]
fn fixture_cases() {
    insta::glob!("../../../../fixtures/replay", "*.json", |path| {
        let text = std::fs::read_to_string(path).expect("fixture is readable");
        let case: Case = serde_json::from_str(&text).expect("fixture parses");
        insta::assert_snapshot!(report(&case.note, &case.messages));
    });
}
