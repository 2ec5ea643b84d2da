//! Runs the `agent_loop` example (its checks run as it goes) and checks its transcript and the
//! store it left against each step of the script.

use std::path::Path;

use rehydrate::intrinsics::{CallContext, Intrinsics};
use rehydrate::model::ReductionKind;
use rehydrate::sidecar::{Sources, export_session};
use rehydrate::store::read_store;
use rehydrate::{EXPAND_REDUCTION, ExportFormat, ReductionPolicy, Role, Session, SyncPolicy};

#[allow(dead_code, unreachable_pub)] // only `run` is used here
#[path = "../../examples/agent_loop.rs"]
mod example;

#[test]
fn the_agent_loop_expands_searches_and_exports_every_reduction_inverted() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("agent-loop");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("session.rhyd");
    let transcript = example::run(&path);
    let expected = [
        "session: 17 messages",
        "   reduced message 3 as r0.b35021 (tool-output)",
        "   reduced message 5 as r1.d26c33 (tool-output)",
        "   reduced message 7 as r2.b35021 (duplicate)",
        // (a) a whole expand gives the original's 13168 bytes
        r#"-> expand_reduction {"reduction_id":"r0.b35021"}"#,
        "<- 13168 bytes",
        // (b) the hidden word is found in the reduction that hides it
        r#"-> sidecar_search {"query":"crate-100","mode":"literal"}"#,
        "<- 2 matches in r0.b35021, r0.b35021",
        // (c) a ranged expand starts with its header line
        r#"-> expand_reduction {"reduction_id":"r1.d26c33","byte_range":[0,200]}"#,
        "<- [r1.d26c33: bytes 0..200 of 13950] + 200 bytes",
        r#"-> bash {"cmd":"cargo test --run 1"}"#,
        "<- 9120 bytes",
        // the expand result (message 18) leaves the protected window and is reduced again
        "   reduced message 18 as r3.b35021 (duplicate)",
        r#"-> bash {"cmd":"cargo test --run 2"}"#,
        "<- 9120 bytes",
        r#"-> bash {"cmd":"cargo test --run 3"}"#,
        "<- 9120 bytes",
        "expand result (message 18) is now r3.b35021 (duplicate)",
        "export: 30 messages, 86543 bytes, 4 reductions inverted, no stub left",
    ];
    assert_eq!(transcript, expected);

    // The store on disk holds the whole session: every message and reduction.
    let (state, torn) = read_store(&path).unwrap();
    assert_eq!(torn, None);
    assert_eq!(state.messages.len(), 30);
    let ids: Vec<&str> = state.log.reductions.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["r0.b35021", "r1.d26c33", "r2.b35021", "r3.b35021"]);
    let expand_call = &state.messages[17];
    assert_eq!(expand_call.role, Role::Assistant);
    assert_eq!(expand_call.tool_calls[0].name, EXPAND_REDUCTION);
    let again = &state.log.reductions[3];
    assert_eq!(again.ptr.addr.index, 18);
    assert!(matches!(
        again.kind,
        ReductionKind::DuplicateOutput { canonical, .. } if canonical.index == 3
    ));

    // The reloaded store answers the intrinsics as the live session did.
    let context = CallContext {
        log: &state.log,
        sources: Sources::minted(&state.messages),
    };
    let original = state.messages[3].content_text().unwrap();
    let out = Intrinsics::call(
        EXPAND_REDUCTION,
        r#"{"reduction_id":"r0.b35021"}"#,
        &context,
    );
    assert!(!out.is_error);
    assert_eq!(out.content, original);
    assert_eq!(state.messages[18].content_text(), Some(original));

    // Exporting from the store inverts every reduction, view included: the reduced view is
    // rebuilt from the log (its stubs stand where the reductions are).
    let mut reducer =
        rehydrate::reduce::Reducer::resume(ReductionPolicy::default(), state.log.clone());
    reducer.project(state.messages.clone());
    assert_eq!(reducer.log(), &state.log, "resuming mints nothing new");
    let view = reducer.view().to_vec();
    assert!(
        view.iter()
            .filter_map(|m| m.content_text())
            .any(|t| t.contains("[rehydrate:duplicate r3.b35021")),
        "the view stubs the expand result"
    );
    let jsonl = export_session(&view, &state.log, &state.messages, ExportFormat::Jsonl).unwrap();
    let text = String::from_utf8(jsonl).unwrap();
    assert!(!text.contains("[rehydrate:"));
    let lines: Vec<rehydrate::Message> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, state.messages);

    // The session reopened from the store has the view and log the live one ended with, and
    // answers the same expand.
    let session = Session::open(&path, ReductionPolicy::default(), SyncPolicy::Never).unwrap();
    assert_eq!(session.recovered(), 0);
    assert_eq!(session.log(), &state.log);
    assert_eq!(session.view().to_vec(), view);
    let again = session.call(EXPAND_REDUCTION, r#"{"reduction_id":"r0.b35021"}"#);
    assert_eq!(again, out);
}
