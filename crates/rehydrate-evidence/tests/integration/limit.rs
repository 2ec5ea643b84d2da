//! The size limit: the projected input is measured whole, workspace records included, and is
//! accepted at exactly the limit and refused one byte over (SPEC seed 003 case 9).

use rehydrate_evidence::{DEFAULT_MAX_INPUT_BYTES, Error, EvidenceOptions, project_evidence};
use rehydrate_model::{EventKind, SessionEvent, SurfaceOp, UserBlock};
use serde_json::json;

fn log(text: &str) -> Vec<SessionEvent> {
    vec![
        SessionEvent {
            seq: 0,
            time: None,
            turn: Some(1),
            kind: EventKind::UserMessage {
                blocks: vec![UserBlock::Text {
                    text: text.to_string(),
                }],
            },
            surface: Some(SurfaceOp::Append),
            sources: Vec::new(),
        },
        SessionEvent {
            seq: 1,
            time: None,
            turn: Some(1),
            kind: EventKind::AssistantMessage {
                text: "ok".to_string(),
            },
            surface: Some(SurfaceOp::Append),
            sources: Vec::new(),
        },
    ]
}

#[test]
fn accepted_at_the_default_limit_and_refused_one_byte_over() {
    let workspace = [json!({"kind": "memory", "text": "prefers small commits"})];
    let options = EvidenceOptions::default();
    assert_eq!(options.max_input_bytes, 131_072);
    // The input's size without the person's text, then a text that fills it to the limit.
    let overhead = project_evidence(&log(""), &workspace, &options)
        .expect("a tiny log projects")
        .stats
        .bytes_after;
    let fill = "x".repeat(DEFAULT_MAX_INPUT_BYTES - overhead);
    let at_limit = project_evidence(&log(&fill), &workspace, &options).expect("at the limit");
    assert_eq!(at_limit.stats.bytes_after, 131_072);
    assert_eq!(at_limit.input_json().len(), 131_072);

    let over = format!("{fill}x");
    assert_eq!(
        project_evidence(&log(&over), &workspace, &options),
        Err(Error::EvidenceTooLarge {
            bytes: 131_073,
            limit: 131_072
        })
    );
    // Without the workspace record the same text fits: the records count toward the size.
    assert!(project_evidence(&log(&over), &[], &options).is_ok());
}

#[test]
fn the_error_names_evidence_too_large() {
    let err = project_evidence(
        &log("hello"),
        &[],
        &EvidenceOptions {
            max_input_bytes: 10,
        },
    )
    .expect_err("over the limit");
    assert!(err.is_too_large());
    assert_eq!(
        err.to_string(),
        "evidence-too-large: the projected input is 138 bytes, over the limit of 10"
    );
}
