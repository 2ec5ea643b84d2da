//! Properties over random sessions: reversibility, API validity, idempotence, no growth.

use std::collections::HashSet;

use proptest::prelude::*;
use rehydrate_formats::{Api, check_request};
use rehydrate_model::{
    Message, REDUCTION_METADATA_KEY, ReductionKind, ReductionLog, Role, THINKING_METADATA_KEY,
    THINKING_SIGNATURE_METADATA_KEY, ToolDetails,
};
use rehydrate_reduce::{Minting, ReductionPolicy, UNREPAIRED_RULES, project_messages};
use rehydrate_sidecar::{
    VerifiedCache, check_inverts, check_inverts_verified, expand_reduction, invert, render_turns,
    verify_log, verify_log_cached, verify_reduction,
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

/// Output written for a terminal: colours, `\r` redraws, erased lines, a cursor moved up, and
/// sometimes an escape cut off at the end, between runs of [`text`].
pub(crate) fn terminal_output() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\x1b[32m".to_string()),
        Just("\x1b[1;31m".to_string()),
        Just("\x1b[0m".to_string()),
        Just("\r".to_string()),
        Just("\x1b[K".to_string()),
        Just("\x1b[2K\r".to_string()),
        Just("\x1b[1A".to_string()),
        Just("\x1b[?25l".to_string()),
        (0usize..=20).prop_map(|n| format!("\r[{:<20}] {n}/20", "=".repeat(n))),
        text(4),
    ];
    (
        proptest::collection::vec(piece, 1..60),
        prop_oneof![3 => Just(""), 1 => Just("\x1b["), 1 => Just("\x1b[3")],
    )
        .prop_map(|(pieces, cut_off)| pieces.concat() + cut_off)
}

/// A tool output: random text, terminal output, or one of two repeated outputs so duplicates
/// occur.
fn output() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => text(40),
        1 => terminal_output(),
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
    ("Read", r#"{"file_path":"src/a.rs"}"#),
    ("Read", r#"{"file_path":"src/a.rs","limit":2000}"#),
    ("Read", r#"{"file_path":"src/b.rs"}"#),
];

/// The file contents a `Read` of [`ARGUMENTS`] serves, chosen by its drawn output's length:
/// a text, the same text with one line changed (a small diff), another text (a large diff),
/// or (`None`) a partial read, which proves no whole text.
fn read_content(out: &str) -> Option<String> {
    let line = |i: usize, word: &str| format!("line {i:02}: {word} of the file under test\n");
    let base = |word: &str| (0..40).map(|i| line(i, word)).collect::<String>();
    match out.len() % 4 {
        0 => Some(base("text")),
        1 => Some(base("text").replace(&line(20, "text"), &line(20, "edit"))),
        2 => Some(base("other")),
        _ => None,
    }
}

/// The tool result of call `id` with output `out`: a `Read` call's result is a read of its
/// `file_path` ([`read_content`]) with the details an importer would give it.
fn tool_result(id: &str, out: String, call: Option<Call>) -> Message {
    let Some(("Read", arguments)) = call else {
        return Message::tool_result(id, out);
    };
    let args: serde_json::Value = serde_json::from_str(arguments).unwrap();
    let path = args["file_path"].as_str().unwrap().to_string();
    let Some(content) = read_content(&out) else {
        let mut m = Message::tool_result(id, "line 05: text of the file under test\n");
        m.details = Some(Box::new(ToolDetails::PartialRead {
            path,
            start_line: 6,
            num_lines: 1,
            total_lines: 40,
        }));
        return m;
    };
    let numbered: String = content
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{:>6}\t{l}\n", i + 1))
        .collect();
    let mut m = Message::tool_result(id, numbered);
    m.details = Some(Box::new(ToolDetails::WholeRead { path, content }));
    m
}

/// A tool call's name and arguments, one of [`ARGUMENTS`].
type Call = (&'static str, &'static str);

/// A tool call's output (`None`: never answered) and its tool and arguments (`None`: derived
/// from the output by [`arguments`]).
type CallOutput = (Option<String>, Option<Call>);

#[derive(Debug, Clone)]
pub(crate) struct Turn {
    user: String,
    /// Each assistant step: the text it writes beside its calls (none, or a short or long one)
    /// and its tool calls: each call's output and its tool and arguments (one of [`ARGUMENTS`],
    /// or, when `None`, a `bash` call whose arguments [`arguments`] derives from the output).
    /// `None` output: the call never got a result (only honoured at the very end).
    steps: Vec<(Option<String>, Vec<CallOutput>)>,
    /// The final answer: short, or long enough for an assistant-text trigger.
    answer: String,
}

/// The text an assistant writes: mostly short, sometimes a long plan or explanation.
fn assistant_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => text(3),
        1 => text(40),
        1 => (1usize..60).prop_map(|n| "step: run the tests, then fix the parser\n".repeat(n)),
    ]
}

pub(crate) fn turn() -> impl Strategy<Value = Turn> {
    (
        text(3),
        proptest::collection::vec(
            (
                proptest::option::weighted(0.3, assistant_text()),
                proptest::collection::vec(
                    (
                        proptest::option::weighted(0.95, output()),
                        proptest::option::weighted(0.5, proptest::sample::select(ARGUMENTS)),
                    ),
                    1..4,
                ),
            ),
            0..4,
        ),
        assistant_text(),
    )
        .prop_map(|(user, steps, answer)| Turn {
            user,
            steps,
            answer,
        })
}

/// The arguments of a call, derived from its output so the sessions stay as they were drawn:
/// mostly a small object, sometimes a `Write` whose `content` (and an `Edit` whose
/// `new_string`) is the output, large enough for a tool-input trigger, sometimes arguments
/// that are not JSON.
fn arguments(out: &Option<String>) -> String {
    let Some(out) = out else {
        return "{\"cmd\":\"ls\"}".to_string();
    };
    match out.len() % 5 {
        0 => serde_json::json!({"file_path": "src/a.rs", "content": out}).to_string(),
        1 => format!(
            "{{ \"old_string\": \"x\", \"new_string\": {}, \"replace_all\": false }}",
            serde_json::to_string(out).unwrap()
        ),
        2 if out.len() > 1000 => format!("{{\"command\": {}", serde_json::to_string(out).unwrap()),
        _ => "{\"cmd\":\"ls\"}".to_string(),
    }
}

/// A small pool of inline images, so copies occur: two PNGs over a 1 KiB trigger (an
/// Anthropic block and an OpenAI data URL) and one under it.
pub(crate) fn pooled_image(k: usize) -> serde_json::Value {
    use rehydrate_test_support::{image_block, image_url_part, png_base64};
    match k % 3 {
        0 => image_block("image/png", &png_base64(800, 600, 1100, b'a')),
        1 => image_url_part("image/png", &png_base64(64, 64, 1500, b'b')),
        _ => image_block("image/png", &png_base64(8, 8, 200, b'c')),
    }
}

/// `text` as content, derived from its length so the sessions stay as they were drawn: one in
/// five texts becomes content parts with an image of the pool after it (a few with two).
fn with_images(text: String) -> rehydrate_model::Content {
    use rehydrate_model::Content;
    let n = text.len();
    if n % 5 != 3 {
        return Content::Text(text);
    }
    // A text part that is only whitespace is left out: the Anthropic API refuses one in a tool
    // result, and no repair drops it yet (issue 17's note).
    let mut parts = Vec::new();
    if !text.trim().is_empty() {
        parts.push(rehydrate_test_support::text_part(&text));
    }
    parts.push(pooled_image(n / 5));
    if n.is_multiple_of(2) {
        parts.push(pooled_image(n / 7));
    }
    Content::Parts(parts)
}

pub(crate) fn session(turns: &[Turn], observations: bool) -> Vec<Message> {
    let mut history = vec![Message::text(Role::System, "you are an agent")];
    let mut n = 0;
    let last_turn = turns.len().saturating_sub(1);
    for (t, turn) in turns.iter().enumerate() {
        let mut user = Message {
            role: Role::User,
            content: Some(with_images(turn.user.clone())),
            ..Message::default()
        };
        // One later turn in seven opens with an agent's compaction summary (derived from the
        // text, so the sessions stay as they were drawn): a Claude Code one or a Codex one.
        if t > 0 && turn.user.len() % 7 == 4 {
            let key = if turn.user.len() % 2 == 0 {
                rehydrate_formats::keys::CLAUDE_CODE_COMPACT_SUMMARY
            } else {
                rehydrate_formats::keys::CODEX_COMPACTED
            };
            user.metadata.insert(key.into(), "true".into());
        }
        history.push(user);
        let last_step = turn.steps.len().saturating_sub(1);
        for (s, (step_text, outputs)) in turn.steps.iter().enumerate() {
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
                call.content = step_text.clone().map(rehydrate_model::Content::Text);
                if step_text.is_some() {
                    // Signed thinking, which the Anthropic body writes back as a block.
                    call.metadata
                        .insert(THINKING_METADATA_KEY.into(), "weigh the options".into());
                    call.metadata.insert(
                        THINKING_SIGNATURE_METADATA_KEY.into(),
                        "c2lnbmF0dXJl".into(),
                    );
                }
                call.tool_calls = ids
                    .iter()
                    .zip(outputs)
                    .map(|(id, (out, call))| match call {
                        Some((name, arguments)) => {
                            rehydrate_test_support::call(id, name, arguments)
                        }
                        None => rehydrate_test_support::call(id, "bash", &arguments(out)),
                    })
                    .collect();
            }
            history.push(call);
            let dangling_ok = t == last_turn && s == last_step;
            for (id, (out, call)) in ids.iter().zip(outputs) {
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
                let m = tool_result(id, out.clone(), *call);
                history.push(if m.details.is_some() {
                    m
                } else {
                    Message {
                        content: Some(with_images(out)),
                        ..m
                    }
                });
            }
        }
        history.push(Message::text(Role::Assistant, turn.answer.clone()));
    }
    history
}

pub(crate) fn policy() -> impl Strategy<Value = ReductionPolicy> {
    prop_oneof![
        4 => policy_with(0usize..3000, 400),
        1 => Just(ReductionPolicy::aggressive()),
        1 => (0usize..4, 0usize..4).prop_map(|(protect_results, protect_texts)| ReductionPolicy {
            protect_last_n_tool_results: protect_results,
            protect_last_n_assistant_messages: protect_texts,
            ..ReductionPolicy::aggressive()
        }),
    ]
}

/// Random policies whose trigger comes from `trigger` and whose head and tail are below `cut`
/// bytes, the same for tool outputs and assistant texts; shared with the incremental
/// properties, whose outputs are smaller.
pub(crate) fn policy_with(
    trigger: impl Strategy<Value = usize> + Clone,
    cut: usize,
) -> impl Strategy<Value = ReductionPolicy> {
    let tool_outputs = (trigger.clone(), 0..cut, 0..cut, 0usize..5, any::<bool>());
    let assistant_texts = (
        proptest::option::weighted(0.8, trigger.clone()),
        0..cut,
        0..cut,
        0usize..5,
        proptest::option::weighted(0.5, trigger),
    );
    (
        tool_outputs,
        assistant_texts,
        proptest::option::of(0usize..4),
        proptest::option::of("[a-z ]{0,20}"),
        prop_oneof![Just(0usize), Just(128), 0usize..500],
        (any::<bool>(), any::<bool>(), any::<bool>()),
        (
            any::<bool>(),
            proptest::option::of(prop_oneof![Just(0u32), Just(500), 0u32..1200]),
        ),
        (
            proptest::option::weighted(0.5, prop_oneof![Just(0usize), Just(1024), 0usize..3000]),
            0usize..4,
        ),
        minting(),
    )
        .prop_map(
            |(
                (trigger, head, tail, protect, dedupe),
                (text_trigger, text_head, text_tail, text_protect, input_trigger),
                clear,
                summary,
                min_saved,
                (supersede, normalize, follow_compactions),
                (elide_rereads, diff_rereads_max_per_mille),
                (image_trigger, image_protect),
                minting,
            )| ReductionPolicy {
                tool_output_trigger_bytes: trigger,
                head_bytes: head,
                tail_bytes: tail,
                protect_last_n_tool_results: protect,
                dedupe_outputs: dedupe,
                clear_turns_older_than: clear,
                turns_summary: summary,
                follow_compactions,
                min_saved_bytes: min_saved,
                assistant_text_trigger_bytes: text_trigger,
                assistant_text_head_bytes: text_head,
                assistant_text_tail_bytes: text_tail,
                protect_last_n_assistant_messages: text_protect,
                tool_input_trigger_bytes: input_trigger,
                tool_input_fields: ReductionPolicy::default().tool_input_fields,
                supersede_reruns: supersede,
                elide_rereads,
                diff_rereads_max_per_mille,
                normalize_terminal_output: normalize,
                image_trigger_bytes: image_trigger,
                protect_last_n_image_messages: image_protect,
                minting,
                ..ReductionPolicy::default()
            },
        )
}

/// Per-turn minting, or cache-aware minting with batches of 0 bytes (every waiting reduction
/// shown at the next projection), a few hundred bytes, or more than a small session saves.
pub(crate) fn minting() -> impl Strategy<Value = Minting> {
    prop_oneof![
        Just(Minting::PerTurn),
        (
            prop_oneof![Just(0usize), 0usize..2000, Just(1 << 20)],
            prop_oneof![
                Just(0u32),
                Just(Minting::DEFAULT_SAVED_PER_MILLE),
                Just(Minting::AGGRESSIVE_SAVED_PER_MILLE)
            ],
        )
            .prop_map(
                |(min_saved_bytes, min_saved_per_mille)| Minting::CacheAware {
                    min_saved_bytes,
                    min_saved_per_mille,
                    cache_ttl: Minting::DEFAULT_CACHE_TTL,
                }
            ),
    ]
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
/// but the rules no repair covers ([`UNREPAIRED_RULES`]; docs/FORMATS.md, "Pairing repairs").
pub(crate) fn repairable_violations(
    view: &[Message],
    api: Api,
) -> Vec<rehydrate_formats::Violation> {
    check_request(view, api)
        .into_iter()
        .filter(|v| !UNREPAIRED_RULES.contains(&v.rule))
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
/// one class; a repeated key has none. Arguments [`arguments`] derives from an output (no
/// command field among them is valid JSON) are of one class when they are the same JSON
/// object, and of none when they are not JSON.
fn argument_class(arguments: &str) -> Option<String> {
    let Some(at) = ARGUMENTS.iter().position(|&(_, a)| a == arguments) else {
        let value: serde_json::Value = serde_json::from_str(arguments).ok()?;
        return value.is_object().then(|| format!("json {value}"));
    };
    match at {
        0..=2 => Some("cargo test".to_string()),
        5 => None,
        other => Some(format!("argument {other}")),
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
            .and_then(|id| calls.get(id).cloned())
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

/// Checks every elided and diffed read against the details of the session: both messages are
/// whole reads of one path, in order; an elided read's contents are equal and a diffed read's
/// differ, its diff within the policy's share; nothing of either when the policy is off.
fn check_rereads(
    history: &[Message],
    log: &ReductionLog,
    policy: &ReductionPolicy,
) -> Result<(), TestCaseError> {
    let read = |i: usize| match history[i].details.as_deref() {
        Some(ToolDetails::WholeRead { path, content }) => Some((path.clone(), content.clone())),
        _ => None,
    };
    for r in &log.reductions {
        let index = r.ptr.addr.index;
        if let ReductionKind::FileReadElided { by, .. } = &r.kind {
            prop_assert!(policy.elide_rereads, "elided under a policy that does not");
            prop_assert!(by.index > index);
            prop_assert_eq!(read(index).unwrap(), read(by.index).unwrap());
        }
        if let ReductionKind::FileReadDiffed {
            base,
            max_share_per_mille,
            diff,
            ..
        } = &r.kind
        {
            let share = policy.diff_rereads_max_per_mille;
            prop_assert_eq!(share.map(|s| s.min(1000)), Some(*max_share_per_mille));
            prop_assert!(base.index < index);
            let (path, content) = read(index).unwrap();
            let (base_path, base_content) = read(base.index).unwrap();
            prop_assert_eq!(path, base_path);
            prop_assert_ne!(&content, &base_content);
            let text = history[index].content_text().unwrap();
            prop_assert!(diff.len() * 1000 <= *max_share_per_mille as usize * text.len());
        }
    }
    Ok(())
}

/// Each normalized output's view is what a terminal would finally show of the raw text
/// (computed here by `normalize_terminal`), after the stub or cut around it where the
/// normalized text is over the trigger, exactly as a truncation of that text cuts; it is
/// minted only under `normalize_terminal_output`, and only where it saves wire bytes.
fn check_normalized(
    history: &[Message],
    out: &rehydrate_reduce::Projection,
    policy: &ReductionPolicy,
) -> Result<(), TestCaseError> {
    for r in &out.log.reductions {
        let ReductionKind::OutputNormalized { cut, .. } = r.kind else {
            continue;
        };
        prop_assert!(policy.normalize_terminal_output);
        let raw = history[r.ptr.addr.index].content_text().unwrap();
        let screen = rehydrate_sidecar::normalize_terminal(raw).unwrap();
        let expected_cut = (screen.len() > policy.tool_output_trigger_bytes)
            .then(|| {
                rehydrate_reduce::truncation_span(&screen, policy.head_bytes, policy.tail_bytes)
            })
            .flatten();
        prop_assert_eq!(cut, expected_cut);
        let expected = match cut {
            None => format!("{}\n{screen}", r.stub),
            Some(c) => format!(
                "{}\n{}\n{}",
                &screen[..c.start()],
                r.stub,
                &screen[c.end()..]
            ),
        };
        let shown = out
            .view
            .iter()
            .find(|m| m.metadata.get(REDUCTION_METADATA_KEY) == Some(&r.id.to_string()))
            .and_then(Message::content_text);
        if let Some(shown) = shown {
            prop_assert_eq!(shown, expected.as_str());
            prop_assert!(rehydrate_model::json_str_len(shown) < rehydrate_model::json_str_len(raw));
        }
    }
    Ok(())
}

pub(crate) fn check_session(
    history: &[Message],
    policy: &ReductionPolicy,
) -> Result<(), TestCaseError> {
    let out = project_messages(history, &ReductionLog::default(), policy);
    prop_assert!(verify_log(&out.log, history).is_empty());
    // Verified once: the cache holds every reduction, locates each as verifying gives it, and
    // the inversion check relying on it agrees with the one that verifies again, also on a
    // view whose first stub was tampered with.
    let mut verified = VerifiedCache::default();
    prop_assert!(verify_log_cached(&out.log, history, &mut verified).is_empty());
    prop_assert_eq!(verified.len(), out.log.len());
    for (position, r) in out.log.reductions.iter().enumerate() {
        if let Some(located) = verified.verified(position, r, history) {
            prop_assert_eq!(Ok(located), verify_reduction(r, history));
        }
    }
    prop_assert_eq!(
        check_inverts_verified(&out.view, &out.log, history, &verified),
        Ok(())
    );
    let mut tampered = out.view.clone();
    if let Some(stub) = tampered
        .iter_mut()
        .find(|m| m.metadata.contains_key(REDUCTION_METADATA_KEY))
    {
        stub.content = Some(rehydrate_model::Content::Text("tampered".to_string()));
        prop_assert!(check_inverts(&tampered, &out.log, history).is_err());
        prop_assert_eq!(
            check_inverts_verified(&tampered, &out.log, history, &verified),
            check_inverts(&tampered, &out.log, history)
        );
    }
    for r in &out.log.reductions {
        let expanded = expand_reduction(&out.log, history, r.id.as_str(), None).unwrap();
        let expected = match r.kind {
            ReductionKind::TurnsCleared { first, last, .. }
            | ReductionKind::Compaction { first, last, .. } => {
                render_turns(&history[first..=last], first)
            }
            ReductionKind::UnansweredCall { call, .. } => {
                history[r.ptr.addr.index].tool_calls[call].arguments.clone()
            }
            ReductionKind::ToolInputElided {
                call, ref field, ..
            } => {
                let args: serde_json::Value =
                    serde_json::from_str(&history[r.ptr.addr.index].tool_calls[call].arguments)
                        .unwrap();
                args[field.as_str()].as_str().unwrap().to_string()
            }
            // Each hidden part as serde_json writes it compactly (keys sorted), one a line.
            ReductionKind::ImageRedacted { ref images, .. } => {
                let Some(rehydrate_model::Content::Parts(parts)) =
                    &history[r.ptr.addr.index].content
                else {
                    panic!("an image redaction of a message without parts");
                };
                images
                    .iter()
                    .map(|i| format!("{}\n", parts[i.part]))
                    .collect()
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
            | ReductionKind::AssistantTextTruncated { .. }
            | ReductionKind::DuplicateOutput { .. }
            | ReductionKind::Superseded { .. }
            | ReductionKind::FileReadElided { .. }
            | ReductionKind::FileReadDiffed { .. }
            | ReductionKind::OutputNormalized { .. } => history[r.ptr.addr.index]
                .content_text()
                .unwrap()
                .to_string(),
        };
        prop_assert_eq!(expanded.content.as_ref(), expected.as_str());
    }
    check_normalized(history, &out, policy)?;
    prop_assert_eq!(&invert(&out.view, &out.log, history).unwrap(), history);
    assert_pairs_kept(history, &out.view);
    check_assistant_texts(history, &out, policy)?;
    check_superseded(history, &out.log, policy)?;
    check_rereads(history, &out.log, policy)?;
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

/// Whether a message counts in the protected window of assistant text.
fn has_assistant_text(m: &Message) -> bool {
    m.role == Role::Assistant && m.content_text().is_some_and(|t| !t.is_empty())
}

/// Every assistant text truncation of `out` is of a text over the trigger that left the
/// protected window, and its view message keeps everything of the original but the text's
/// middle: role, tool calls, metadata (thinking included) and the head and tail.
fn check_assistant_texts(
    history: &[Message],
    out: &rehydrate_reduce::Projection,
    policy: &ReductionPolicy,
) -> Result<(), TestCaseError> {
    for r in &out.log.reductions {
        let ReductionKind::AssistantTextTruncated { original_bytes, .. } = r.kind else {
            continue;
        };
        let i = r.ptr.addr.index;
        let original = &history[i];
        prop_assert!(has_assistant_text(original));
        prop_assert!(original_bytes > policy.assistant_text_trigger_bytes.unwrap());
        let newer = history[i + 1..]
            .iter()
            .filter(|m| has_assistant_text(m))
            .count();
        prop_assert!(newer >= policy.protect_last_n_assistant_messages);
        let id = r.id.to_string();
        let shown = out
            .view
            .iter()
            .find(|v| v.metadata.get(REDUCTION_METADATA_KEY) == Some(&id));
        // One projection never truncates a message it clears, so the truncation is shown.
        prop_assert!(shown.is_some(), "{} is not in the view", id);
        let shown = shown.unwrap();
        prop_assert_eq!(&shown.tool_calls, &original.tool_calls);
        let mut metadata = shown.metadata.clone();
        metadata.remove(REDUCTION_METADATA_KEY);
        prop_assert_eq!(&metadata, &original.metadata);
        let text = original.content_text().unwrap();
        let span = r.ptr.span.unwrap();
        prop_assert_eq!(
            shown.content_text().unwrap(),
            format!(
                "{}\n{}\n{}",
                &text[..span.start()],
                r.stub,
                &text[span.end()..]
            )
        );
    }
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
