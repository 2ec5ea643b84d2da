//! `Session` against the parts it wires: its view and log against `project_messages`, a
//! reopened session against the live one, the intrinsics, rewinds, model switches, the export,
//! and the errors of a store that cannot be used.

use std::path::{Path, PathBuf};

use rehydrate::formats::request_body;
use rehydrate::model::{Content, ReductionKind};
use rehydrate::reduce::project_messages;
use rehydrate::search::{SearchOptions, sidecar_search};
use rehydrate::sidecar::Sources;
use rehydrate::store::{MemoryBackend, SessionStore, read_store};
use rehydrate::{
    Api, CacheState, EXPAND_REDUCTION, Error, ExportFormat, Message, Minting, ReductionLog,
    ReductionPolicy, Role, SIDECAR_SEARCH, Session, SyncPolicy, ToolFormat,
};

/// A fresh directory for one test, under the target directory.
pub(crate) fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("session")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A user message, then five build steps whose outputs are 2000 lines each (16000 bytes
/// for step 0; steps 1 and 3 repeat step 0's output).
fn build_session() -> Vec<Message> {
    let mut history = vec![Message::text(Role::User, "run the build")];
    for i in 0..5 {
        let output = if i % 2 == 1 { 0 } else { i };
        history.push(Message::tool_call(
            format!("c{i}"),
            "bash",
            r#"{"cmd":"make"}"#,
        ));
        history.push(Message::tool_result(
            format!("c{i}"),
            format!("build {output}\n").repeat(2000),
        ));
    }
    history
}

fn policy() -> ReductionPolicy {
    ReductionPolicy::default()
}

/// The aggressive preset's cache-aware minting (batches that save what they rewrite) over the
/// default preset's reductions.
fn batched() -> ReductionPolicy {
    ReductionPolicy {
        minting: Minting::cache_aware(Minting::AGGRESSIVE_SAVED_PER_MILLE),
        ..ReductionPolicy::default()
    }
}

/// The default preset with each reduction shown in the push that decides it, for the tests
/// that compare pushes turn by turn with one-shot projections.
fn per_turn() -> ReductionPolicy {
    ReductionPolicy {
        minting: Minting::PerTurn,
        ..ReductionPolicy::default()
    }
}

fn ids(log: &ReductionLog) -> Vec<&str> {
    log.reductions.iter().map(|r| r.id.as_str()).collect()
}

#[test]
fn one_push_gives_the_view_and_log_of_project_messages() {
    let dir = scratch("one-push");
    let history = build_session();
    let mut session = Session::create(dir.join("s.rhyd"), policy(), SyncPolicy::Never).unwrap();
    assert_eq!(session.push(history.clone()).unwrap(), 2);
    let one_shot = project_messages(&history, &ReductionLog::default(), &policy());
    assert_eq!(session.view().to_vec(), one_shot.view);
    assert_eq!(session.log(), &one_shot.log);
    assert_eq!(ids(session.log()), ["r0.17b251", "r1.17b251"]);
    assert!(matches!(
        session.log().reductions[0].kind,
        ReductionKind::ToolOutputTruncated {
            original_bytes: 16000,
            ..
        }
    ));
    assert!(matches!(
        session.log().reductions[1].kind,
        ReductionKind::DuplicateOutput { canonical, original_bytes: 16000 } if canonical.index == 2
    ));
    // The store holds what the session holds.
    assert_eq!(session.state().messages, history);
    assert_eq!(&session.state().log, session.log());
    assert_eq!(session.state().records, 11 + 2);
    assert_eq!(session.history(), history);
}

#[test]
fn turn_by_turn_pushes_give_the_one_shot_log() {
    let dir = scratch("turn-by-turn");
    let history = build_session();
    let mut session = Session::create(dir.join("s.rhyd"), per_turn(), SyncPolicy::Never).unwrap();
    let mut minted = vec![session.push([history[0].clone()]).unwrap()];
    for pair in history[1..].chunks(2) {
        minted.push(session.push(pair.to_vec()).unwrap());
    }
    // The oldest output leaves the protected window with the fourth, its duplicate with the
    // fifth.
    assert_eq!(minted, [0, 0, 0, 0, 1, 1]);
    let one_shot = project_messages(&history, &ReductionLog::default(), &per_turn());
    assert_eq!(session.log(), &one_shot.log);
    assert_eq!(session.view().to_vec(), one_shot.view);
}

#[test]
fn cache_aware_pushes_wait_for_a_cold_cache_and_then_give_the_one_shot_log() {
    let dir = scratch("cache-aware");
    let history = build_session();
    let mut session = Session::create(dir.join("s.rhyd"), batched(), SyncPolicy::Never).unwrap();
    let mut minted = vec![session.push([history[0].clone()]).unwrap()];
    let mut views = vec![session.view().to_vec()];
    for pair in history[1..].chunks(2) {
        minted.push(session.push(pair.to_vec()).unwrap());
        views.push(session.view().to_vec());
    }
    // The truncation and the duplicate wait: 27,689 bytes, less than the view from the
    // truncated message on, which a batch would make the next request write again.
    assert_eq!(minted, [0, 0, 0, 0, 0, 0]);
    assert_eq!(session.waiting(), (2, 27_689));
    // Each view begins with the one before, byte for byte: the cached prefix hits.
    for pair in views.windows(2) {
        assert_eq!(pair[1][..pair[0].len()], pair[0][..]);
    }
    assert_eq!(session.view().to_vec(), history);
    // Ten minutes later the cache is cold: both are shown, as a one-shot projection shows them.
    let idle = CacheState::Idle(std::time::Duration::from_secs(600));
    assert_eq!(session.push_cached([], idle).unwrap(), 2);
    let one_shot = project_messages(&history, &ReductionLog::default(), &batched());
    assert_eq!(session.log(), &one_shot.log);
    assert_eq!(session.view().to_vec(), one_shot.view);
    assert_eq!(&session.state().log, session.log(), "recorded once shown");
}

#[test]
fn a_reopened_session_has_the_view_and_log_it_was_closed_with() {
    let dir = scratch("reopen");
    let path = dir.join("s.rhyd");
    let history = build_session();
    let mut session = Session::create(&path, batched(), SyncPolicy::EveryRecord).unwrap();
    let mut live = Session::create(dir.join("live.rhyd"), batched(), SyncPolicy::Never).unwrap();
    for s in [&mut session, &mut live] {
        s.push(history[..7].to_vec()).unwrap();
        s.push(history[7..].to_vec()).unwrap();
    }
    // Both reductions are of messages the first push sent: they wait.
    assert_eq!((session.log().len(), session.waiting().0), (0, 2));
    let (view, log) = (session.view().to_vec(), session.log().clone());
    drop(session);
    let mut session = Session::open(&path, batched(), SyncPolicy::EveryRecord).unwrap();
    assert_eq!(session.recovered(), 0);
    assert_eq!(session.view().to_vec(), view);
    assert_eq!(session.log(), &log);
    assert_eq!(session.history(), history);
    // It goes on as the live session does: the third output leaves the protected window, and
    // a cold cache shows what waited.
    let more = [
        Message::tool_call("c5", "bash", "{}"),
        Message::tool_result("c5", "done"),
    ];
    for s in [&mut session, &mut live] {
        s.push(more.clone()).unwrap();
        s.push_cached([], CacheState::Cold).unwrap();
    }
    assert_eq!(session.view().to_vec(), live.view().to_vec());
    assert_eq!(session.log(), live.log());
    let mut all = history.clone();
    all.extend(more);
    let one_shot = project_messages(&all, &ReductionLog::default(), &batched());
    assert_eq!(session.log(), &one_shot.log);
}

#[test]
fn a_session_in_memory_is_the_session_in_a_file() {
    let dir = scratch("in-memory");
    let path = dir.join("s.rhyd");
    let history = build_session();
    let memory = MemoryBackend::new("memory:s");
    let mut in_file = Session::create(&path, policy(), SyncPolicy::Never).unwrap();
    let mut in_memory = Session::create_in(memory.clone(), policy(), SyncPolicy::Never).unwrap();
    for s in [&mut in_file, &mut in_memory] {
        s.push(history[..5].to_vec()).unwrap();
        s.push(history[5..].to_vec()).unwrap();
        s.record_summary("built", &[]).unwrap();
    }
    assert_eq!(in_memory.log().len(), 2);
    assert_eq!(in_memory.view().to_vec(), in_file.view().to_vec());
    assert_eq!(in_memory.log(), in_file.log());
    assert_eq!(in_memory.path(), Path::new("memory:s"));
    drop(in_file);
    assert_eq!(memory.bytes(), std::fs::read(&path).unwrap());
    let (view, log) = (in_memory.view().to_vec(), in_memory.log().clone());
    drop(in_memory);
    let reopened = Session::open_in(memory.clone(), policy(), SyncPolicy::Never).unwrap();
    assert_eq!(reopened.recovered(), 0);
    assert_eq!(reopened.view().to_vec(), view);
    assert_eq!(reopened.log(), &log);
    assert_eq!(reopened.history(), history);
    drop(reopened);
    let held = memory.bytes().len();
    let err = Session::create_in(memory, policy(), SyncPolicy::Never).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "session store memory:s is not empty ({held} bytes); a new store needs an empty one"
        )
    );
}

/// The matches of `query` a fresh `sidecar_search` finds in the session now: what `call` must
/// answer, however many searches it answered before.
fn searched_afresh(session: &Session, query: &str) -> String {
    let sources = Sources::with_recorded(session.history(), &session.state().messages);
    sidecar_search(session.log(), sources, query, &SearchOptions::default())
        .unwrap()
        .to_json()
}

#[test]
fn searches_through_call_stay_exact_across_pushes_and_rewinds() {
    let dir = scratch("search-cache");
    let history = build_session();
    let mut session = Session::create(dir.join("s.rhyd"), per_turn(), SyncPolicy::Never).unwrap();
    let search = |session: &Session, query: &str| {
        let result = session.call(SIDECAR_SEARCH, &format!(r#"{{"query":"{query}"}}"#));
        assert!(!result.is_error, "{}", result.content);
        assert!(result.content == searched_afresh(session, query), "{query}");
        let value: serde_json::Value = serde_json::from_str(&result.content).unwrap();
        (result.content, value["total_matches"].as_u64().unwrap())
    };
    session.push(history.clone()).unwrap();
    let first = search(&session, "build 0");
    assert_eq!(search(&session, "build 0"), first);
    // Step 0's hidden middle; steps 1 and 3 repeat it, as duplicates of a reduced canonical.
    assert_eq!(first.1, 1489);
    // A rewind cuts the history: the same positions hold other bytes after the next push.
    session.rewind(3).unwrap();
    session
        .push([
            Message::tool_call("d1", "bash", "{}"),
            Message::tool_result("d1", "other 1\n".repeat(3000)),
            Message::tool_call("d2", "bash", "{}"),
            Message::tool_result("d2", "other 2\n".repeat(3000)),
            Message::tool_call("d3", "bash", "{}"),
            Message::tool_result("d3", "other 3\n".repeat(3000)),
            Message::tool_call("d4", "bash", "{}"),
            Message::tool_result("d4", "done"),
        ])
        .unwrap();
    assert_eq!(search(&session, "other").1, 2489);
    // Step 0's output is kept, now truncated as the oldest of four.
    assert_eq!(search(&session, "build 0").1, 1489);
}

#[test]
fn expand_through_call_gives_the_exact_original_bytes() {
    let dir = scratch("expand");
    let history = build_session();
    let mut session = Session::create(dir.join("s.rhyd"), policy(), SyncPolicy::Never).unwrap();
    session.push(history.clone()).unwrap();
    let original = history[2].content_text().unwrap();
    for id in ["r0.17b251", "r1.17b251"] {
        let out = session.call(EXPAND_REDUCTION, &format!(r#"{{"reduction_id":"{id}"}}"#));
        assert!(!out.is_error, "{}", out.content);
        assert_eq!(out.content, original);
    }
    let ranged = session.call(
        EXPAND_REDUCTION,
        r#"{"reduction_id":"r0.17b251","byte_range":[8,16]}"#,
    );
    assert_eq!(
        ranged.content,
        "[r0.17b251: bytes 8..16 of 16000]\nbuild 0\n"
    );
    let found = session.call(SIDECAR_SEARCH, r#"{"query":"build 0","mode":"literal"}"#);
    assert!(!found.is_error);
    assert!(found.content.contains(r#""reduction_id":"r0.17b251""#));
    let unknown = session.call(EXPAND_REDUCTION, r#"{"reduction_id":"r9.abcdef"}"#);
    assert!(unknown.is_error);
    assert_eq!(
        unknown.content,
        "Error: expand_reduction: no reduction with id `r9.abcdef`; valid ids: r0.17b251, r1.17b251"
    );
    let names: Vec<String> = session
        .tools(ToolFormat::Anthropic)
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, [EXPAND_REDUCTION, SIDECAR_SEARCH]);
}

#[test]
fn rewind_then_push() {
    let dir = scratch("rewind");
    let path = dir.join("s.rhyd");
    let history = build_session();
    let mut session = Session::create(&path, policy(), SyncPolicy::Never).unwrap();
    session.push(history.clone()).unwrap();
    // Back to the first output (message 2): r0 addresses it, but was decided once later
    // results had pushed it out of the protected window, so the rewind cuts it too.
    assert_eq!(session.rewind(3).unwrap(), 0);
    assert_eq!(session.history(), &history[..3]);
    assert_eq!(ids(session.log()), Vec::<&str>::new());
    assert_eq!(session.state().rewinds, [3]);
    // The view is what a session of those three messages shows: the output, whole.
    let fresh = project_messages(&history[..3], &ReductionLog::default(), &policy());
    assert_eq!(session.view().to_vec(), fresh.view);
    assert_eq!(session.view().to_vec(), &history[..3]);
    // A re-run from there takes new outputs; the old ones never resolve again.
    let rerun = [
        Message::tool_call("d1", "bash", "{}"),
        Message::tool_result("d1", "clean"),
    ];
    assert_eq!(session.push(rerun.clone()).unwrap(), 0);
    let mut kept = history[..3].to_vec();
    kept.extend(rerun);
    assert_eq!(session.history(), kept);
    assert_eq!(session.state().messages, kept);
    let out = session.call(EXPAND_REDUCTION, r#"{"reduction_id":"r1.17b251"}"#);
    assert!(out.is_error);
    let (view, log) = (session.view().to_vec(), session.log().clone());
    drop(session);
    let session = Session::open(&path, policy(), SyncPolicy::Never).unwrap();
    assert_eq!((session.view().to_vec(), session.log()), (view, &log));
    assert_eq!(session.recovered(), 0);
}

#[test]
fn a_rewind_past_the_end_changes_nothing() {
    let dir = scratch("rewind-beyond");
    let path = dir.join("s.rhyd");
    let mut session = Session::create(&path, policy(), SyncPolicy::Never).unwrap();
    session.push(build_session()).unwrap();
    let err = session.rewind(12).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "session store {}: cannot rewind to 12 messages, it holds 11",
            path.display()
        )
    );
    assert_eq!(session.history().len(), 11);
    assert_eq!(session.log().len(), 2);
}

#[test]
fn export_gives_back_the_pushed_messages() {
    let dir = scratch("export");
    let history = build_session();
    let mut session = Session::create(dir.join("s.rhyd"), policy(), SyncPolicy::Never).unwrap();
    session.push(history.clone()).unwrap();
    let jsonl = String::from_utf8(session.export(ExportFormat::Jsonl).unwrap()).unwrap();
    let exported: Vec<Message> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(exported, history);
    assert!(!jsonl.contains("[rehydrate:"));
    let body = session.export(ExportFormat::OpenAi).unwrap();
    assert_eq!(body, request_body(&history, Api::OpenAi).unwrap());
}

#[test]
fn request_body_closes_records_its_repairs_and_leaves_the_view_open() {
    let dir = scratch("request-body");
    let path = dir.join("s.rhyd");
    let mut session = Session::create(&path, policy(), SyncPolicy::Never).unwrap();
    let history = vec![
        Message::text(Role::User, "run it"),
        Message::tool_call("t1", "run", "{}"),
    ];
    session.push(history.clone()).unwrap();
    assert_eq!(
        session.log().len(),
        0,
        "a call waiting for its result is no defect"
    );
    let body = String::from_utf8(session.request_body(Api::OpenAi).unwrap()).unwrap();
    let closed = project_messages(&history, &ReductionLog::default(), &policy());
    assert_eq!(
        body.as_bytes(),
        request_body(&closed.view, Api::OpenAi).unwrap()
    );
    assert!(body.contains(r#"{"role":"tool","content":"[rehydrate:unanswered-call r0."#));
    // The repair is recorded, so the stub the model reads resolves, after a reopen too.
    assert_eq!(session.log(), &closed.log);
    assert_eq!(&session.state().log, session.log());
    assert_eq!(
        session.view().to_vec(),
        history,
        "the live view is open again"
    );
    let id = session.log().reductions[0].id.to_string();
    let out = session.call(EXPAND_REDUCTION, &format!(r#"{{"reduction_id":"{id}"}}"#));
    assert_eq!((out.content.as_str(), out.is_error), ("{}", false));
    let log = session.log().clone();
    drop(session);
    let mut session = Session::open(&path, policy(), SyncPolicy::Never).unwrap();
    assert_eq!(session.log(), &log);
    assert_eq!(session.view().to_vec(), history);
    // The result arrives: the repair stays in the log, unused.
    session.push([Message::tool_result("t1", "ran")]).unwrap();
    assert_eq!(session.view().len(), 3);
    assert_eq!(session.log(), &log);
}

#[test]
fn an_empty_view_is_no_request_body() {
    let dir = scratch("empty-body");
    let path = dir.join("s.rhyd");
    let mut session = Session::create(&path, policy(), SyncPolicy::Never).unwrap();
    let err = session.request_body(Api::Anthropic).unwrap_err();
    assert!(matches!(err, Error::Request { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "session store {}: the view is not a valid request body: anthropic request body is invalid: message 0 (no-messages): the body has no message besides the system text",
            path.display()
        )
    );
    let source = std::error::Error::source(&err).unwrap().to_string();
    assert!(
        source.starts_with("anthropic request body is invalid"),
        "{source}"
    );
}

#[test]
fn a_model_switch_drops_reasoning_from_the_history_and_survives_a_reopen() {
    let dir = scratch("switch");
    let path = dir.join("s.rhyd");
    let mut thinking = Message::text(Role::Assistant, "answer");
    thinking
        .metadata
        .insert("thinking".into(), "private chain of thought".into());
    thinking
        .metadata
        .insert("thinking_signature".into(), "sig==".into());
    let mut session = Session::create(&path, policy(), SyncPolicy::Never).unwrap();
    session
        .push([Message::text(Role::User, "question"), thinking.clone()])
        .unwrap();
    let anthropic = String::from_utf8(session.request_body(Api::Anthropic).unwrap()).unwrap();
    assert!(anthropic.contains(r#""type":"thinking""#), "{anthropic}");
    assert_eq!(session.switch_model("other-model").unwrap(), 1);
    let mut plain = thinking.clone();
    plain.metadata.clear();
    assert_eq!(session.history()[1], plain);
    assert_eq!(session.state().messages[1], thinking, "the store keeps it");
    let anthropic = String::from_utf8(session.request_body(Api::Anthropic).unwrap()).unwrap();
    assert!(!anthropic.contains("thinking"), "{anthropic}");
    // The new model's reasoning is its own.
    session
        .push([Message::text(Role::User, "more"), thinking.clone()])
        .unwrap();
    let view = session.view().to_vec();
    drop(session);
    let session = Session::open(&path, policy(), SyncPolicy::Never).unwrap();
    assert_eq!(session.view().to_vec(), view);
    assert_eq!(session.history()[1], plain);
    assert_eq!(session.history()[3], thinking);
    assert_eq!(session.state().model_switches.len(), 1);
}

#[test]
fn reductions_the_store_lost_are_minted_again_on_open() {
    let dir = scratch("recover");
    let path = dir.join("s.rhyd");
    let history = build_session();
    // A host that stopped after recording the messages, before their reductions.
    let mut store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    for m in &history {
        store.append_message(m).unwrap();
    }
    drop(store);
    let session = Session::open(&path, per_turn(), SyncPolicy::Never).unwrap();
    assert_eq!(session.recovered(), 2);
    assert_eq!(ids(session.log()), ["r0.17b251", "r1.17b251"]);
    assert_eq!(&session.state().log, session.log(), "recorded at once");
    drop(session);
    let (state, _) = read_store(&path).unwrap();
    assert_eq!(ids(&state.log), ["r0.17b251", "r1.17b251"]);
    let session = Session::open(&path, per_turn(), SyncPolicy::Never).unwrap();
    assert_eq!(session.recovered(), 0);
}

#[test]
fn a_log_whose_ids_name_other_ordinals_is_refused() {
    let dir = scratch("ordinal");
    let path = dir.join("s.rhyd");
    let history = build_session();
    let one_shot = project_messages(&history, &ReductionLog::default(), &policy());
    let mut store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    for m in &history {
        store.append_message(m).unwrap();
    }
    store.append_reduction(&one_shot.log.reductions[1]).unwrap();
    drop(store);
    let err = Session::open(&path, policy(), SyncPolicy::Never).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "session store {}: reduction r1.17b251 stands at log position 0; its id names another ordinal",
            path.display()
        )
    );
}

#[test]
fn opening_a_missing_file_names_it() {
    let dir = scratch("missing");
    let path = dir.join("nothing-here.rhyd");
    let err = Session::open(&path, policy(), SyncPolicy::Never).unwrap_err();
    assert!(matches!(err, Error::Store(_)));
    assert_eq!(
        err.to_string(),
        format!(
            "session store {}: No such file or directory (os error 2)",
            path.display()
        )
    );
}

#[test]
fn creating_over_an_existing_file_names_it() {
    let dir = scratch("exists");
    let path = dir.join("s.rhyd");
    drop(Session::create(&path, policy(), SyncPolicy::Never).unwrap());
    let err = Session::create(&path, policy(), SyncPolicy::Never).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "session store {}: File exists (os error 17)",
            path.display()
        )
    );
}

#[test]
fn a_locked_store_is_refused_naming_the_file() {
    let dir = scratch("locked");
    let path = dir.join("s.rhyd");
    let live = Session::create(&path, policy(), SyncPolicy::Never).unwrap();
    let err = Session::open(&path, policy(), SyncPolicy::Never).unwrap_err();
    assert!(err.is_locked());
    assert_eq!(
        err.to_string(),
        format!(
            "session store {} is open for writing by another process (it is locked)",
            path.display()
        )
    );
    drop(live);
    assert!(Session::open(&path, policy(), SyncPolicy::Never).is_ok());
}

#[test]
fn a_torn_store_is_refused_until_repaired() {
    let dir = scratch("torn");
    let path = dir.join("s.rhyd");
    let mut session = Session::create(&path, policy(), SyncPolicy::EveryRecord).unwrap();
    session.push(build_session()).unwrap();
    drop(session);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&[7, 0, 0]);
    std::fs::write(&path, &bytes).unwrap();
    let err = Session::open(&path, policy(), SyncPolicy::Never).unwrap_err();
    assert!(err.is_torn(), "{err}");
    assert!(err.to_string().contains(&path.display().to_string()));
    rehydrate::store::repair(&path).unwrap();
    let session = Session::open(&path, policy(), SyncPolicy::Never).unwrap();
    assert_eq!(session.log().len(), 2);
}

#[test]
fn a_rewound_session_shows_what_a_fresh_one_of_its_messages_shows() {
    let dir = scratch("rewind-fresh");
    // Fifteen outputs, each 19500 bytes and distinct; the default policy protects the newest
    // three.
    let mut history = vec![Message::text(Role::User, "run the builds")];
    for i in 0..15 {
        history.push(Message::tool_call(
            format!("c{i}"),
            "bash",
            r#"{"cmd":"make"}"#,
        ));
        history.push(Message::tool_result(
            format!("c{i}"),
            format!("build {i} step\n").repeat(1500),
        ));
    }
    let mut session = Session::create(dir.join("s.rhyd"), per_turn(), SyncPolicy::Never).unwrap();
    session.push([history[0].clone()]).unwrap();
    for turn in history[1..].chunks(2) {
        session.push(turn.to_vec()).unwrap();
    }
    assert_eq!(session.log().len(), 12);
    session.rewind(21).unwrap();
    let fresh = project_messages(&history[..21], &ReductionLog::default(), &per_turn());
    let stubbed: Vec<usize> = session
        .log()
        .reductions
        .iter()
        .map(|r| r.ptr.addr.index)
        .collect();
    // Ten outputs (messages 2, 4, ..., 20): the oldest seven are reduced, the newest three whole.
    assert_eq!(stubbed, [2, 4, 6, 8, 10, 12, 14]);
    assert!(
        session.log() == &fresh.log,
        "the log differs from a fresh projection's"
    );
    assert!(
        session.view().to_vec() == fresh.view,
        "the view differs from a fresh projection's"
    );
}

#[test]
fn a_session_exports_after_a_model_switch_dropped_reasoning_a_reduction_held() {
    let dir = scratch("switch-export");
    let thinking = Message {
        role: Role::Assistant,
        content: Some(Content::Parts(vec![
            serde_json::json!({"type": "thinking", "thinking": "hmm", "signature": "sig"}),
            serde_json::json!({"type": "text", "text": "hello"}),
        ])),
        ..Message::default()
    };
    let mut session = Session::create(dir.join("s.rhyd"), policy(), SyncPolicy::Never).unwrap();
    // The conversation opens with the assistant: a repair hashes its wire form, thinking and
    // all.
    session
        .push([thinking, Message::text(Role::User, "ok")])
        .unwrap();
    assert_eq!(session.log().len(), 1);
    session.switch_model("other-model").unwrap();
    let jsonl = session.export(ExportFormat::Jsonl).unwrap();
    let exported: Vec<Message> = jsonl
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(exported, session.history());
    // The repair minted before the switch no longer verifies: expanding it is an error.
    let first = session.log().reductions[0].id.to_string();
    let out = session.call(
        EXPAND_REDUCTION,
        &format!(r#"{{"reduction_id":"{first}"}}"#),
    );
    assert!(out.is_error, "{}", out.content);
}
