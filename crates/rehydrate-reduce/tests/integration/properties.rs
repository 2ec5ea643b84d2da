//! Properties over random sessions: reversibility, API validity, idempotence, no growth.

use std::collections::HashSet;

use proptest::prelude::*;
use rehydrate_model::{Message, REDUCTION_METADATA_KEY, ReductionKind, ReductionLog, Role};
use rehydrate_reduce::{ReductionPolicy, project_messages};
use rehydrate_sidecar::{
    Api, Rule, check_request, expand_reduction, invert, render_turns, verify_log,
};

/// Text made of pieces that stress cuts: multi-byte chars, line breaks, ASCII runs.
fn text(max_pieces: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a".to_string()),
        Just("\n".to_string()),
        Just("é".to_string()),
        Just("€".to_string()),
        Just("😀".to_string()),
        Just("error: failed\n".to_string()),
        "[a-z ]{1,40}".prop_map(|s| s),
        Just("x".repeat(300)),
    ];
    proptest::collection::vec(piece, 0..max_pieces).prop_map(|v| v.concat())
}

/// A tool output: random text, or one of two repeated outputs so duplicates occur.
fn output() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => text(40),
        1 => Just("same output\n".repeat(30)),
        1 => Just("ok".to_string()),
    ]
}

/// The arguments of the random sessions' `bash` calls: re-runs of one call written three ways
/// (the same canonical arguments), other calls, one with a repeated key (no canonical form,
/// never superseded) and one of another tool's name (`cat` differs from `bash`).
const ARGUMENTS: &[(&str, &str)] = &[
    ("bash", r#"{"cmd":"cargo test"}"#),
    ("bash", r#"{"cmd":"cargo  test "}"#),
    ("bash", r#"{ "cmd" : "cargo test" }"#),
    ("bash", r#"{"cmd":"ls"}"#),
    ("bash", r#"{"cmd":"ls -la"}"#),
    ("bash", r#"{"cmd":"ls","cmd":"ls"}"#),
    ("cat", r#"{"cmd":"ls"}"#),
];

/// A tool call's name and arguments, one of [`ARGUMENTS`].
type Call = (&'static str, &'static str);

#[derive(Debug, Clone)]
pub(crate) struct Turn {
    user: String,
    /// Outputs of the tool calls of each assistant step, with the call's tool and arguments
    /// (one of [`ARGUMENTS`]); a step with no outputs is a final answer. `None` output: the call
    /// never got a result (only honoured at the very end).
    steps: Vec<Vec<(Option<String>, Call)>>,
    answer: String,
}

pub(crate) fn turn() -> impl Strategy<Value = Turn> {
    (
        text(3),
        proptest::collection::vec(
            proptest::collection::vec(
                (
                    proptest::option::weighted(0.95, output()),
                    proptest::sample::select(ARGUMENTS),
                ),
                1..4,
            ),
            0..4,
        ),
        text(3),
    )
        .prop_map(|(user, steps, answer)| Turn {
            user,
            steps,
            answer,
        })
}

pub(crate) fn session(turns: &[Turn], observations: bool) -> Vec<Message> {
    let mut history = vec![Message::text(Role::System, "you are an agent")];
    let mut n = 0;
    let last_turn = turns.len().saturating_sub(1);
    for (t, turn) in turns.iter().enumerate() {
        history.push(Message::text(Role::User, turn.user.clone()));
        let last_step = turn.steps.len().saturating_sub(1);
        for (s, outputs) in turn.steps.iter().enumerate() {
            let mut call = Message {
                role: Role::Assistant,
                ..Message::default()
            };
            let ids: Vec<String> = outputs
                .iter()
                .map(|_| {
                    n += 1;
                    format!("call_{n}")
                })
                .collect();
            if observations {
                call.content = Some(rehydrate_model::Content::Text(format!("run {}", ids[0])));
            } else {
                call.tool_calls = ids
                    .iter()
                    .zip(outputs)
                    .map(|(id, (_, (name, arguments)))| {
                        rehydrate_test_support::call(id, name, arguments)
                    })
                    .collect();
            }
            history.push(call);
            let dangling_ok = t == last_turn && s == last_step;
            for (id, (out, _)) in ids.iter().zip(outputs) {
                let out = match out {
                    Some(out) => out.clone(),
                    None if dangling_ok && !observations => continue,
                    None => String::new(),
                };
                if observations {
                    let mut m = Message::text(Role::User, out);
                    m.observation = true;
                    history.push(m);
                    break;
                }
                history.push(Message::tool_result(id.clone(), out));
            }
        }
        history.push(Message::text(Role::Assistant, turn.answer.clone()));
    }
    history
}

pub(crate) fn policy() -> impl Strategy<Value = ReductionPolicy> {
    policy_with(0usize..3000, 400)
}

/// Random policies whose trigger comes from `trigger` and whose head and tail are below `cut`
/// bytes; shared with the incremental properties, whose outputs are smaller.
pub(crate) fn policy_with(
    trigger: impl Strategy<Value = usize>,
    cut: usize,
) -> impl Strategy<Value = ReductionPolicy> {
    (
        trigger,
        0..cut,
        0..cut,
        0usize..5,
        any::<bool>(),
        proptest::option::of(0usize..4),
        proptest::option::of("[a-z ]{0,20}"),
        prop_oneof![Just(0usize), Just(128), 0usize..500],
        any::<bool>(),
    )
        .prop_map(
            |(trigger, head, tail, protect, dedupe, clear, summary, min_saved, supersede)| {
                ReductionPolicy {
                    tool_output_trigger_bytes: trigger,
                    head_bytes: head,
                    tail_bytes: tail,
                    protect_last_n_tool_results: protect,
                    dedupe_outputs: dedupe,
                    clear_turns_older_than: clear,
                    turns_summary: summary,
                    min_saved_bytes: min_saved,
                    supersede_reruns: supersede,
                    ..ReductionPolicy::default()
                }
            },
        )
}

fn wire_bytes(messages: &[Message]) -> usize {
    messages.iter().map(Message::wire_len).sum()
}

/// The wire bytes of the view messages that stand for a pairing repair (a synthetic result, a
/// hidden result's stub).
pub(crate) fn repair_bytes(view: &[Message], log: &ReductionLog) -> usize {
    view.iter()
        .filter(|m| {
            m.metadata
                .get(REDUCTION_METADATA_KEY)
                .and_then(|id| log.get(id))
                .is_some_and(|r| r.kind.is_repair())
        })
        .map(Message::wire_len)
        .sum()
}

/// The violations of `view` for `api` that the pairing repairs exist to prevent: all of them
/// but an Anthropic body with no message at all (nothing to send; docs/FORMATS.md, "Pairing
/// repairs").
pub(crate) fn repairable_violations(
    view: &[Message],
    api: Api,
) -> Vec<rehydrate_sidecar::Violation> {
    check_request(view, api)
        .into_iter()
        .filter(|v| v.rule != Rule::NoMessages)
        .collect()
}

/// Checks that the view is a valid request body for both APIs, and that every tool result in
/// it follows its call and every call is answered.
fn assert_pairs_kept(history: &[Message], view: &[Message]) {
    for api in [Api::OpenAi, Api::Anthropic] {
        let violations = repairable_violations(view, api);
        assert!(violations.is_empty(), "{api}: {violations:?}");
    }
    let answered: HashSet<&str> = history
        .iter()
        .filter_map(|m| m.tool_call_id.as_deref())
        .collect();
    let mut open: HashSet<&str> = HashSet::new();
    for (i, m) in view.iter().enumerate() {
        if let Some(id) = m.tool_call_id.as_deref() {
            assert!(
                open.remove(id),
                "view message {i} answers {id}, which no earlier call made"
            );
        }
        for c in &m.tool_calls {
            open.insert(c.id.as_str());
        }
        if m.role == Role::User && !m.observation {
            let unanswered: Vec<_> = open.iter().filter(|id| answered.contains(**id)).collect();
            assert!(
                unanswered.is_empty(),
                "calls {unanswered:?} separated from their results at view message {i}"
            );
        }
    }
    assert!(
        view.iter()
            .find(|m| m.role != Role::System)
            .is_none_or(|m| m.role != Role::Tool)
    );
}

/// The class of a call's arguments by [`ARGUMENTS`]: the three spellings of `cargo test` are
/// one class; a repeated key has none.
fn argument_class(arguments: &str) -> Option<usize> {
    let at = ARGUMENTS.iter().position(|&(_, a)| a == arguments)?;
    match at {
        0..=2 => Some(0),
        5 => None,
        other => Some(other),
    }
}

/// Checks every superseded result against an oracle of the session's calls (ids are unique in
/// these sessions): its later result `by` comes after it, answers a call of a later assistant
/// message, of the same tool with arguments of the same class; and nothing is superseded when
/// the policy does not supersede.
fn check_superseded(
    history: &[Message],
    log: &ReductionLog,
    policy: &ReductionPolicy,
) -> Result<(), TestCaseError> {
    let mut calls = std::collections::HashMap::new();
    for (i, m) in history.iter().enumerate() {
        for c in &m.tool_calls {
            calls.insert(
                c.id.as_str(),
                (i, c.name.as_str(), argument_class(&c.arguments)),
            );
        }
    }
    let call_of = |i: usize| {
        history[i]
            .tool_call_id
            .as_deref()
            .and_then(|id| calls.get(id).copied())
    };
    for r in &log.reductions {
        let ReductionKind::Superseded { by, .. } = r.kind else {
            continue;
        };
        prop_assert!(
            policy.supersede_reruns,
            "superseded under a policy that does not"
        );
        let index = r.ptr.addr.index;
        prop_assert!(by.index > index);
        prop_assert_eq!(history[by.index].role, Role::Tool);
        let (older, later) = (call_of(index).unwrap(), call_of(by.index).unwrap());
        prop_assert!(
            older.0 < later.0,
            "calls of one message: {:?} {:?}",
            older,
            later
        );
        prop_assert_eq!(older.1, later.1);
        prop_assert!(older.2.is_some());
        prop_assert_eq!(older.2, later.2);
    }
    Ok(())
}

pub(crate) fn check_session(
    history: &[Message],
    policy: &ReductionPolicy,
) -> Result<(), TestCaseError> {
    let out = project_messages(history, &ReductionLog::default(), policy);
    prop_assert!(verify_log(&out.log, history).is_empty());
    for r in &out.log.reductions {
        let expanded = expand_reduction(&out.log, history, r.id.as_str(), None).unwrap();
        let expected = match r.kind {
            ReductionKind::TurnsCleared { first, last, .. } => {
                render_turns(&history[first..=last], first)
            }
            ReductionKind::UnansweredCall { call, .. } => {
                history[r.ptr.addr.index].tool_calls[call].arguments.clone()
            }
            ReductionKind::OrphanResult { .. }
            | ReductionKind::SecondAnswer { .. }
            | ReductionKind::MovedResult { .. }
            | ReductionKind::FoldedCalls { .. }
            | ReductionKind::ConversationOpened { .. } => {
                let i = r.ptr.addr.index;
                render_turns(&history[i..=i], i)
            }
            ReductionKind::ToolOutputTruncated { .. }
            | ReductionKind::DuplicateOutput { .. }
            | ReductionKind::Superseded { .. } => history[r.ptr.addr.index]
                .content_text()
                .unwrap()
                .to_string(),
        };
        prop_assert_eq!(expanded.content.as_ref(), expected.as_str());
    }
    prop_assert_eq!(&invert(&out.view, &out.log, history).unwrap(), history);
    assert_pairs_kept(history, &out.view);
    check_superseded(history, &out.log, policy)?;
    // Reducing never grows a session, but for the repairs that make it valid.
    prop_assert!(wire_bytes(&out.view) <= wire_bytes(history) + repair_bytes(&out.view, &out.log));
    let again = project_messages(history, &out.log, policy);
    prop_assert_eq!(again.minted, 0);
    prop_assert_eq!(
        &again,
        &rehydrate_reduce::Projection {
            minted: 0,
            ..out.clone()
        }
    );

    // A session that grows: projecting a prefix first, then the whole history with the
    // prefix's log, still verifies and inverts.
    let half = history.len() / 2;
    let early = project_messages(&history[..half], &ReductionLog::default(), policy);
    let later = project_messages(history, &early.log, policy);
    prop_assert!(verify_log(&later.log, history).is_empty());
    prop_assert_eq!(&invert(&later.view, &later.log, history).unwrap(), history);
    assert_pairs_kept(history, &later.view);
    prop_assert_eq!(
        &later.log.reductions[..early.log.len()],
        &early.log.reductions[..]
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_sessions_are_reversible(turns in proptest::collection::vec(turn(), 0..6), policy in policy()) {
        check_session(&session(&turns, false), &policy)?;
    }

    #[test]
    fn random_observation_sessions_are_reversible(turns in proptest::collection::vec(turn(), 0..6), policy in policy()) {
        check_session(&session(&turns, true), &policy)?;
    }

    #[test]
    fn ranged_expand_matches_naive_slicing(content in text(30), start in 0usize..2000, len in 0usize..2000) {
        let history = vec![
            Message::text(Role::User, "go"),
            Message::tool_call("c", "cat", "{}"),
            Message::tool_result("c", content.clone()),
            Message::tool_call("d", "cat", "{}"),
            Message::tool_result("d", content.clone()),
        ];
        let policy = ReductionPolicy { protect_last_n_tool_results: 1, ..ReductionPolicy::aggressive() };
        let out = project_messages(&history, &ReductionLog::default(), &policy);
        for r in &out.log.reductions {
            let end = start + len;
            let got = expand_reduction(&out.log, &history, r.id.as_str(), Some((start, end)));
            if start > content.len() {
                prop_assert!(got.is_err());
                continue;
            }
            let got = got.unwrap();
            let mut s = start;
            while !content.is_char_boundary(s) { s -= 1; }
            let mut e = end.min(content.len());
            while !content.is_char_boundary(e) { e -= 1; }
            let e = e.max(s);
            prop_assert_eq!(got.content.as_ref(), &content[s..e]);
            prop_assert_eq!(got.total_bytes, content.len());
        }
    }
}
