//! Agent compactions under `follow_compactions`: each is minted once, in history order, so a
//! session gives the same log however it is fed.

use rehydrate_model::{Message, ReductionKind, ReductionLog, Role};
use rehydrate_reduce::{Minting, Reducer, ReductionPolicy, project_messages};

fn summary(text: &str) -> Message {
    let mut m = Message::text(Role::User, text);
    m.metadata
        .insert("claude_code.compact_summary".into(), "true".into());
    m
}

fn session() -> Vec<Message> {
    let mut history = vec![Message::text(Role::User, "fix the build")];
    for (i, text) in ["first summary", "second summary"].into_iter().enumerate() {
        history.push(Message::tool_call(format!("c{i}"), "bash", "{}"));
        history.push(Message::tool_result(
            format!("c{i}"),
            "log line\n".repeat(400),
        ));
        history.push(summary(text));
    }
    history.push(Message::text(Role::User, "go on"));
    history
}

fn compactions(log: &ReductionLog) -> Vec<(String, usize, usize)> {
    log.reductions
        .iter()
        .filter_map(|r| match r.kind {
            ReductionKind::Compaction { first, last, .. } => Some((r.id.to_string(), first, last)),
            _ => None,
        })
        .collect()
}

#[test]
fn two_compactions_get_the_same_ids_at_once_and_message_by_message() {
    let history = session();
    let policy = ReductionPolicy {
        follow_compactions: true,
        minting: Minting::PerTurn,
        ..ReductionPolicy::default()
    };
    let once = project_messages(&history, &ReductionLog::default(), &policy);
    let mut reducer = Reducer::new(policy);
    for m in &history {
        reducer.project([m.clone()]);
    }
    reducer.close();
    assert_eq!(compactions(&once.log), compactions(reducer.log()));
    let found = compactions(&once.log);
    assert_eq!(
        found.iter().map(|(_, f, l)| (*f, *l)).collect::<Vec<_>>(),
        [(0, 3), (0, 6)]
    );
    assert!(found[0].0.starts_with("r0.") && found[1].0.starts_with("r1."));
    // The view follows the latest: its stub message, then the turn after it.
    let view = reducer.view().to_vec();
    assert_eq!(view.len(), 2);
    assert!(
        view[0]
            .content_text()
            .unwrap()
            .ends_with("\n\nsecond summary")
    );
    assert_eq!(view[1].content_text(), Some("go on"));
}

#[test]
fn a_resumed_log_mints_only_later_compactions() {
    let history = session();
    let policy = ReductionPolicy {
        follow_compactions: true,
        ..ReductionPolicy::default()
    };
    let first = project_messages(&history[..5], &ReductionLog::default(), &policy);
    assert_eq!(compactions(&first.log).len(), 1);
    let again = project_messages(&history, &first.log, &policy);
    let found = compactions(&again.log);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0], compactions(&first.log)[0]);
}
