//! Properties over well-formed random sessions with pairing defects injected (a result
//! dropped, a call dropped, a result repeated, a message written between a call and its
//! result, parallel results shuffled, a call the APIs refuse as written, a conversation that
//! opens with the assistant): the view passes both request checkers, inverts to the input
//! exactly, every reduction expands to its exact bytes, projecting again changes nothing, and
//! feeding message by message matches the one-shot form.

use proptest::prelude::*;
use rehydrate_model::{Message, Role};

use crate::incremental::check_incremental;
use crate::properties::{Turn, check_session, policy, session, turn};

/// One injected defect, at a position chosen by `at` (taken modulo what fits).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Defect {
    DropResult,
    DropCall,
    RepeatResult,
    Interleave,
    ShuffleResults,
    BadId,
    BadName,
    BadArguments,
    OpenWithAssistant,
}

pub(crate) fn defect() -> impl Strategy<Value = (Defect, usize)> {
    let kind = prop_oneof![
        3 => Just(Defect::DropResult),
        2 => Just(Defect::DropCall),
        3 => Just(Defect::RepeatResult),
        3 => Just(Defect::Interleave),
        2 => Just(Defect::ShuffleResults),
        1 => Just(Defect::BadId),
        1 => Just(Defect::BadName),
        1 => Just(Defect::BadArguments),
        1 => Just(Defect::OpenWithAssistant),
    ];
    (kind, 0usize..1000)
}

/// The indices of the messages for which `keep` holds.
fn positions(history: &[Message], keep: impl Fn(&Message) -> bool) -> Vec<usize> {
    (0..history.len()).filter(|&i| keep(&history[i])).collect()
}

/// Applies `defect` to `history` at the `at`-th place it fits (nothing when none does).
pub(crate) fn inject(history: &mut Vec<Message>, (defect, at): (Defect, usize)) {
    let results = positions(history, |m| m.role == Role::Tool);
    let calls = positions(history, |m| !m.tool_calls.is_empty());
    let pick = |list: &[usize]| (!list.is_empty()).then(|| list[at % list.len()]);
    match defect {
        Defect::DropResult => {
            if let Some(i) = pick(&results) {
                history.remove(i);
            }
        }
        Defect::DropCall => {
            if let Some(i) = pick(&calls) {
                let m = &mut history[i];
                m.tool_calls.remove(at % m.tool_calls.len());
                if m.tool_calls.is_empty() && m.content.is_none() {
                    history.remove(i);
                }
            }
        }
        Defect::RepeatResult => {
            if let Some(i) = pick(&results) {
                let copy = history[i].clone();
                let to = (i + 1 + at % 3).min(history.len());
                history.insert(to, copy);
            }
        }
        Defect::Interleave => {
            if let Some(i) = pick(&calls) {
                let note = if at % 2 == 0 {
                    Message::text(Role::User, "Summary of the conversation so far.")
                } else {
                    Message::text(Role::System, "a reminder the host injected")
                };
                history.insert(i + 1, note);
            }
        }
        Defect::ShuffleResults => {
            if let Some(i) = pick(&calls) {
                let end = (i + 1..history.len())
                    .find(|&j| history[j].role != Role::Tool)
                    .unwrap_or(history.len());
                history[i + 1..end].rotate_left(usize::from(end - i > 2));
            }
        }
        Defect::BadId | Defect::BadName | Defect::BadArguments => {
            if let Some(i) = pick(&calls) {
                let k = at % history[i].tool_calls.len();
                let call = &mut history[i].tool_calls[k];
                match defect {
                    Defect::BadId => call.id = format!("functions.{}:0", call.id),
                    Defect::BadName => call.name = "run tests".to_string(),
                    _ => call.arguments = "ls -la".to_string(),
                }
            }
        }
        Defect::OpenWithAssistant => {
            let first = history.iter().position(|m| m.role != Role::System);
            let at = first.unwrap_or(history.len());
            history.insert(
                at,
                Message::text(Role::Assistant, "Resuming where we left off."),
            );
        }
    }
}

fn defective(turns: &[Turn], defects: &[(Defect, usize)]) -> Vec<Message> {
    let mut history = session(turns, false);
    for &d in defects {
        inject(&mut history, d);
    }
    history
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn sessions_with_injected_defects_give_valid_reversible_views(
        turns in proptest::collection::vec(turn(), 1..6),
        defects in proptest::collection::vec(defect(), 1..5),
        policy in policy(),
    ) {
        check_session(&defective(&turns, &defects), &policy)?;
    }

    #[test]
    fn sessions_with_injected_defects_feed_message_by_message_as_one_shot(
        turns in proptest::collection::vec(turn(), 1..5),
        defects in proptest::collection::vec(defect(), 1..5),
        policy in policy(),
    ) {
        let history = defective(&turns, &defects);
        let cuts: Vec<usize> = (0..history.len()).collect();
        check_incremental(&history, &cuts, &policy)?;
    }
}
