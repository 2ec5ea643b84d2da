//! Properties over random logs (valid by construction): the projection succeeds under a large
//! limit, evidence turns' seq ranges are increasing and disjoint and cover only events of their
//! turn, and every kept text is a source event's text after redaction.

use proptest::prelude::*;
use rehydrate_evidence::{EvidenceOptions, project_evidence};
use rehydrate_model::{EventKind, SessionEvent, SurfaceOp, UserBlock};
use rehydrate_search::redact;

/// One step of a random session.
#[derive(Debug, Clone)]
enum Step {
    NextTurn,
    BetweenTurns,
    User(String),
    Injected(String),
    Assistant(String),
    Tool(bool),
    Title,
    /// A summary replacing the surface from `from` (a fraction of its length) to its end.
    Compact(u8, String),
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,12}",
        Just("key sk-ant-api03-abcdefghijklmnop1234 end".to_string()),
        Just(String::new()),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => Just(Step::NextTurn),
        1 => Just(Step::BetweenTurns),
        3 => text().prop_map(Step::User),
        1 => text().prop_map(Step::Injected),
        3 => text().prop_map(Step::Assistant),
        2 => any::<bool>().prop_map(Step::Tool),
        1 => Just(Step::Title),
        1 => (any::<u8>(), text()).prop_map(|(f, t)| Step::Compact(f, t)),
    ]
}

/// The log of `steps`, with surface operations and sources kept valid.
fn build(steps: &[Step]) -> Vec<SessionEvent> {
    let mut events: Vec<SessionEvent> = Vec::new();
    let mut surface: Vec<u64> = Vec::new();
    let mut turn: Option<u64> = None;
    let mut last_turn = 0;
    for (k, step) in steps.iter().enumerate() {
        let seq = events.len() as u64;
        match step {
            Step::NextTurn => {
                last_turn += 1;
                turn = Some(last_turn);
            }
            Step::BetweenTurns => turn = None,
            _ => {}
        }
        let turn = turn;
        let mut push = |kind: EventKind, op: Option<SurfaceOp>, sources: Vec<u64>| {
            events.push(SessionEvent {
                seq: events.len() as u64,
                time: None,
                turn,
                kind,
                surface: op,
                sources,
            });
        };
        match step {
            Step::NextTurn => {
                push(
                    EventKind::Lifecycle {
                        what: "turn_start".into(),
                    },
                    None,
                    vec![],
                );
            }
            Step::BetweenTurns => {
                push(
                    EventKind::Lifecycle {
                        what: "idle".into(),
                    },
                    None,
                    vec![],
                );
            }
            Step::User(t) => {
                surface.push(seq);
                push(
                    EventKind::UserMessage {
                        blocks: vec![UserBlock::Text { text: t.clone() }],
                    },
                    Some(SurfaceOp::Append),
                    vec![],
                );
            }
            Step::Injected(t) => {
                surface.push(seq);
                push(
                    EventKind::InjectedMessage {
                        source: "memory".into(),
                        text: t.clone(),
                    },
                    Some(SurfaceOp::Append),
                    vec![],
                );
            }
            Step::Assistant(t) => {
                surface.push(seq);
                push(
                    EventKind::AssistantMessage { text: t.clone() },
                    Some(SurfaceOp::Append),
                    vec![],
                );
            }
            Step::Tool(ok) => {
                let id = format!("c{k}");
                push(
                    EventKind::ToolCall {
                        call_id: id.clone(),
                        name: "bash".into(),
                        arguments: "{}".into(),
                    },
                    None,
                    vec![],
                );
                surface.push(seq + 1);
                push(
                    EventKind::ToolResult {
                        call_id: Some(id),
                        name: None,
                        ok: *ok,
                        exit_code: None,
                        content: "out".into(),
                    },
                    Some(SurfaceOp::Append),
                    vec![],
                );
            }
            Step::Title => push(EventKind::Title { text: "t".into() }, None, vec![]),
            Step::Compact(f, t) => {
                let kind = EventKind::CompactionSummary { text: t.clone() };
                if surface.is_empty() {
                    surface.push(seq);
                    push(kind, Some(SurfaceOp::Append), vec![]);
                } else {
                    let from = usize::from(*f) * surface.len() / 256;
                    let shadowed: Vec<u64> = surface.splice(from.., [seq]).collect();
                    let (start, end) = (shadowed[0], shadowed[shadowed.len() - 1]);
                    push(kind, Some(SurfaceOp::Replace { start, end }), shadowed);
                }
            }
        }
    }
    events
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn evidence_ranges_are_disjoint_and_texts_come_from_their_turn(
        steps in prop::collection::vec(step(), 0..40)
    ) {
        let events = build(&steps);
        let options = EvidenceOptions { max_input_bytes: usize::MAX };
        let evidence = project_evidence(&events, &[], &options).expect("a valid log projects");
        let mut previous_end: Option<u64> = None;
        for t in &evidence.turns {
            let [first, last] = t.seq_range;
            prop_assert!(first <= last);
            prop_assert!(previous_end.is_none_or(|end| end < first), "ranges overlap");
            previous_end = Some(last);
            let range = &events[first as usize..=last as usize];
            prop_assert!(range.iter().all(|e| e.turn == t.turn));
            // Every kept text is one of the range's source texts after redaction.
            let sources = |want: fn(&EventKind) -> Option<&str>| -> Vec<String> {
                range.iter().filter_map(|e| want(&e.kind)).map(|s| redact(s).into_owned()).collect()
            };
            let users = sources(|k| match k {
                EventKind::UserMessage { blocks } => match blocks.as_slice() {
                    [UserBlock::Text { text }] => Some(text.as_str()),
                    _ => None,
                },
                _ => None,
            });
            for u in &t.user {
                prop_assert!(users.contains(u), "user text {u:?} is not from its turn");
            }
            let summaries = sources(|k| match k {
                EventKind::CompactionSummary { text } => Some(text.as_str()),
                _ => None,
            });
            for s in &t.summaries {
                prop_assert!(summaries.contains(s), "summary {s:?} is not from its turn");
            }
            if let Some(a) = &t.assistant {
                let assistants = sources(|k| match k {
                    EventKind::AssistantMessage { text } => Some(text.as_str()),
                    _ => None,
                });
                prop_assert!(!a.trim().is_empty());
                prop_assert!(assistants.contains(a), "assistant text {a:?} is not from its turn");
            }
            for kept in t.user.iter().chain(&t.summaries).chain(&t.assistant) {
                prop_assert!(!kept.contains("sk-ant-"), "a secret survived: {kept:?}");
            }
        }
        prop_assert_eq!(evidence.stats.bytes_after, evidence.input_json().len());
    }
}
