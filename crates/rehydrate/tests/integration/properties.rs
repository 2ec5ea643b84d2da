//! Properties of `Session` over random sessions and random operations: after every push the
//! view and log are what a reducer resumed from the previous log gives for the whole history
//! (the one-shot form), a request body is the one `project_messages` gives, and reopening the
//! store at any point changes nothing: a session reopened between operations stays equal to
//! one that never was.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use rehydrate::formats::request_body;
use rehydrate::model::Content;
use rehydrate::reduce::Reducer;
use rehydrate::sidecar::{invert, verify_log};
use rehydrate::store::read_store;
use rehydrate::{
    Api, CacheState, ExportFormat, Message, Minting, ReductionPolicy, Role, Session, SyncPolicy,
    ToolCall,
};

/// One message of a chaotic session: calls and results drawn from a small id pool, so calls go
/// unanswered, results answer nothing, ids are reused and outputs repeat.
fn message() -> impl Strategy<Value = Message> {
    let id = prop_oneof![Just("a"), Just("b"), Just("c")];
    let output = prop_oneof![
        3 => "[a-z\n]{0,60}".prop_map(|s| s),
        2 => (1usize..40).prop_map(|n| "line of build output\n".repeat(n)),
        1 => Just("identical output\n".repeat(20)),
        1 => Just("é€😀\n".repeat(30)),
        // Terminal output: colours, `\r` redraws, an escape cut off at the end.
        2 => (1usize..30, any::<bool>()).prop_map(|(n, cut)| {
            let mut out: String = (0..=n)
                .map(|i| format!("\r\x1b[36mbuilding\x1b[0m [{i}/{n}]"))
                .collect();
            out.push_str("\r\x1b[K\x1b[32mdone\x1b[0m\n");
            if cut {
                out.push_str("\x1b[3");
            }
            out
        }),
    ];
    prop_oneof![
        3 => "[a-z ]{0,20}".prop_map(|t| Message::text(Role::User, t)),
        2 => "[a-z ]{0,20}".prop_map(|t| Message::text(Role::Assistant, t)),
        4 => proptest::collection::vec(id.clone(), 1..3).prop_map(|ids| Message {
            role: Role::Assistant,
            tool_calls: ids
                .into_iter()
                .map(|id| ToolCall { id: id.into(), name: "bash".into(), arguments: "{}".into() })
                .collect(),
            ..Message::default()
        }),
        6 => (id.clone(), output).prop_map(|(id, out)| Message::tool_result(id, out)),
        // Whole reads of two paths serving three contents (two a line apart), so re-reads
        // are elided and diffed.
        2 => (id, 0..2usize, 0..3usize).prop_map(|(id, path, content)| {
            let line = |k: usize| match (content, k) {
                (1, 4) => "line 04 edited\n".to_string(),
                (2, _) => format!("other {k}\n"),
                _ => format!("line {k:02} kept\n"),
            };
            let content: String = (0..20).map(line).collect();
            let mut m = Message::tool_result(id, content.clone());
            m.details = Some(Box::new(rehydrate::model::ToolDetails::WholeRead {
                path: format!("src/{path}.rs"),
                content,
            }));
            m
        }),
        1 => Just(Message {
            role: Role::Tool,
            tool_call_id: Some("a".into()),
            content: Some(Content::Parts(vec![serde_json::json!({"type": "text", "text": "part"})])),
            ..Message::default()
        }),
        // Inline images of a small pool (copies occur), in tool results and user messages.
        1 => (0usize..3, prop_oneof![Just(Role::Tool), Just(Role::User)]).prop_map(|(k, role)| Message {
            role,
            tool_call_id: (role == Role::Tool).then(|| "b".to_string()),
            content: Some(Content::Parts(vec![
                serde_json::json!({"type": "text", "text": "look"}),
                pooled_image(k),
            ])),
            ..Message::default()
        }),
    ]
}

/// Image `k % 3` of a small pool: a PNG block and a PNG data URL over a 1 KiB trigger, and a
/// small PNG under it.
fn pooled_image(k: usize) -> serde_json::Value {
    use rehydrate_test_support::{image_block, image_url_part, png_base64};
    match k % 3 {
        0 => image_block("image/png", &png_base64(800, 600, 1100, b'a')),
        1 => image_url_part("image/png", &png_base64(64, 64, 1500, b'b')),
        _ => image_block("image/png", &png_base64(8, 8, 200, b'c')),
    }
}

/// Policies whose trigger and cuts suit the small outputs of [`message`].
fn policy() -> impl Strategy<Value = ReductionPolicy> {
    (
        prop_oneof![Just(0usize), Just(200), Just(8192)],
        0usize..120,
        0usize..120,
        0usize..5,
        any::<bool>(),
        proptest::option::of(0usize..4),
        proptest::option::of("[a-z ]{0,12}"),
        prop_oneof![Just(0usize), Just(128)],
        (any::<bool>(), any::<bool>()),
        (any::<bool>(), proptest::option::of(0u32..1200)),
        prop_oneof![
            Just(None),
            Just(Some(0usize)),
            Just(Some(300)),
            Just(Some(20_000))
        ],
    )
        .prop_map(
            |(
                trigger,
                head,
                tail,
                protect,
                dedupe,
                clear,
                summary,
                min_saved,
                (supersede, normalize),
                (elide_rereads, diff_rereads_max_per_mille),
                batch,
            )| {
                ReductionPolicy {
                    tool_output_trigger_bytes: trigger,
                    head_bytes: head,
                    tail_bytes: tail,
                    protect_last_n_tool_results: protect,
                    dedupe_outputs: dedupe,
                    clear_turns_older_than: clear,
                    turns_summary: summary,
                    min_saved_bytes: min_saved,
                    // Assistant text is truncated like tool output, for the same sizes.
                    assistant_text_trigger_bytes: dedupe.then_some(trigger),
                    assistant_text_head_bytes: head,
                    assistant_text_tail_bytes: tail,
                    protect_last_n_assistant_messages: protect,
                    // Tool inputs too, when duplicates are not stubbed.
                    tool_input_trigger_bytes: (!dedupe).then_some(trigger),
                    tool_input_fields: ReductionPolicy::default().tool_input_fields,
                    supersede_reruns: supersede,
                    elide_rereads,
                    diff_rereads_max_per_mille,
                    normalize_terminal_output: normalize,
                    // Images, when the trigger is not the largest.
                    image_trigger_bytes: (trigger < 8192).then_some(1024),
                    protect_last_n_image_messages: protect,
                    minting: batch.map_or(Minting::PerTurn, |min_saved_bytes| {
                        Minting::CacheAware {
                            min_saved_bytes,
                            // Saving what it rewrites, for the large batches.
                            min_saved_per_mille: if min_saved_bytes > 1000 { 1000 } else { 0 },
                            cache_ttl: Minting::DEFAULT_CACHE_TTL,
                        }
                    }),
                    ..ReductionPolicy::default()
                }
            },
        )
}

/// One operation of a host.
#[derive(Debug, Clone)]
enum Op {
    /// Push these messages as one batch, with the cache cold when set.
    Push(Vec<Message>, bool),
    /// Write the request body for this API.
    Body(Api),
    /// Drop the session and open its store again.
    Reopen,
    /// Rewind to this many messages (modulo the messages held, plus one).
    Rewind(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (proptest::collection::vec(message(), 0..8), proptest::bool::weighted(0.2))
            .prop_map(|(batch, cold)| Op::Push(batch, cold)),
        2 => prop_oneof![Just(Api::OpenAi), Just(Api::Anthropic)].prop_map(Op::Body),
        2 => Just(Op::Reopen),
        1 => (0usize..64).prop_map(Op::Rewind),
    ]
}

/// Two fresh store paths for one case.
fn paths() -> (PathBuf, PathBuf) {
    static CASE: AtomicUsize = AtomicUsize::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("properties");
    std::fs::create_dir_all(&dir).unwrap();
    let case = CASE.fetch_add(1, Ordering::Relaxed);
    let path = |side: &str| {
        let path = dir.join(format!("{}-{case}-{side}.rhyd", std::process::id()));
        let _ = std::fs::remove_file(&path);
        path
    };
    (path("reopened"), path("live"))
}

/// Runs `ops` on a session reopened at every [`Op::Reopen`] and on one never reopened,
/// checking both against the one-shot forms after every operation.
fn check(ops: &[Op], policy: &ReductionPolicy) -> Result<(), TestCaseError> {
    let (path, live_path) = paths();
    let sync = SyncPolicy::Never;
    let mut session = Some(Session::create(&path, policy.clone(), sync).unwrap());
    let mut live = Session::create(&live_path, policy.clone(), sync).unwrap();
    for (step, op) in ops.iter().enumerate() {
        let s = session.as_mut().expect("reopened below");
        match op {
            Op::Push(batch, cold) => {
                let before = s.log().clone();
                let cache = if *cold {
                    CacheState::Cold
                } else {
                    CacheState::Warm
                };
                let minted = s.push_cached(batch.clone(), cache).unwrap();
                let live_minted = live.push_cached(batch.clone(), cache).unwrap();
                prop_assert_eq!(live_minted, minted, "step {}", step);
                let history = s.history();
                if policy.minting == Minting::PerTurn {
                    // The one-shot form: a reducer resumed from the previous log, fed the
                    // whole history.
                    let mut one_shot = Reducer::resume(policy.clone(), before.clone());
                    let one_shot_minted = one_shot.project(history.to_vec());
                    prop_assert_eq!(one_shot_minted, minted, "step {}", step);
                    prop_assert_eq!(s.log(), one_shot.log(), "step {}", step);
                    prop_assert_eq!(s.view().to_vec(), one_shot.view().to_vec(), "step {}", step);
                } else {
                    // Waiting reductions are decided turn by turn, which a one-shot projection
                    // need not repeat: what is shown verifies and inverts.
                    prop_assert!(verify_log(s.log(), history).is_empty(), "step {}", step);
                    let view = s.view().to_vec();
                    prop_assert_eq!(invert(&view, s.log(), history).unwrap(), history);
                }
            }
            Op::Body(api) => {
                // The one-shot form with the whole history cached, closed: what waits for a
                // batch still waits.
                let mut closed = Reducer::resume(policy.clone(), s.log().clone());
                let cached = CacheState::Prefix(s.history().len());
                closed.project_cached(s.history().to_vec(), cached);
                closed.close();
                let body = s.request_body(*api);
                let expected = request_body(&closed.view().to_vec(), *api);
                prop_assert_eq!(body.as_ref().ok(), expected.as_ref().ok(), "step {}", step);
                prop_assert_eq!(s.log(), closed.log(), "step {}", step);
                prop_assert_eq!(live.request_body(*api).ok(), body.ok(), "step {}", step);
            }
            Op::Reopen => {
                let (view, log) = (s.view().to_vec(), s.log().clone());
                drop(session.take());
                let reopened = Session::open(&path, policy.clone(), sync).unwrap();
                prop_assert_eq!(reopened.recovered(), 0, "step {}", step);
                prop_assert_eq!(reopened.log(), &log, "step {}", step);
                prop_assert_eq!(reopened.view().to_vec(), view, "step {}", step);
                session = Some(reopened);
                if policy.minting != Minting::PerTurn {
                    // A reopened session decides its waiting reductions again from the whole
                    // history; the twin is reopened too, so the two go on alike.
                    drop(live);
                    live = Session::open(&live_path, policy.clone(), sync).unwrap();
                }
            }
            Op::Rewind(to) => {
                let to = to % (s.history().len() + 1);
                let minted = s.rewind(to).unwrap();
                prop_assert_eq!(live.rewind(to).unwrap(), minted, "step {}", step);
                prop_assert_eq!(s.history().len(), to);
            }
        }
        let s = session.as_ref().expect("reopened above");
        prop_assert_eq!(s.history(), live.history(), "step {}", step);
        prop_assert_eq!(s.log(), live.log(), "step {}", step);
        prop_assert_eq!(s.view().to_vec(), live.view().to_vec(), "step {}", step);
        prop_assert_eq!(&s.state().messages, &live.state().messages);
        prop_assert_eq!(
            &s.state().log,
            s.log(),
            "the store holds the log, step {}",
            step
        );
    }
    let s = session.expect("reopened above");
    let jsonl = String::from_utf8(s.export(ExportFormat::Jsonl).unwrap()).unwrap();
    let exported: Vec<Message> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    prop_assert_eq!(exported.as_slice(), s.history());
    let (history, log) = (s.history().to_vec(), s.log().clone());
    drop(s);
    let (state, torn) = read_store(&path).unwrap();
    prop_assert_eq!(torn, None);
    prop_assert_eq!(state.messages, history);
    prop_assert_eq!(state.log, log);
    drop(live);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&live_path);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_batches_match_the_one_shot_form_and_reopening_changes_nothing(
        ops in proptest::collection::vec(op(), 0..16),
        policy in policy(),
    ) {
        check(&ops, &policy)?;
    }
}
