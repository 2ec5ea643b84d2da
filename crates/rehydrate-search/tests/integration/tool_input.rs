//! An elided tool input is searched in its whole string value (unescaped); the call's other
//! fields are in the view.

use rehydrate_model::{
    Message, MessageAddr, Reduction, ReductionId, ReductionKind, ReductionLog, Role, SidecarPtr,
    StubKind,
};
use rehydrate_search::{SearchOptions, hidden_texts, sidecar_search};
use rehydrate_sidecar::{content_digest, expected_stub};
use rehydrate_test_support::assistant_call;

#[test]
fn the_whole_hidden_argument_is_searched() {
    let content = "line one\n\"NEEDLE\" in a quote\nlast line\n";
    let args =
        serde_json::json!({"file_path": "/src/needle_free.rs", "content": content}).to_string();
    let minted = vec![
        Message::text(Role::User, "write it"),
        assistant_call("toolu_1", "Write", &args),
        Message::tool_result("toolu_1", "ok"),
    ];
    let digest = content_digest(content.as_bytes());
    let mut r = Reduction {
        id: ReductionId::new(0, &digest),
        kind: ReductionKind::ToolInputElided {
            call: 0,
            field: "content".into(),
            original_bytes: content.len(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: 1,
                role: Role::Assistant,
            },
            span: None,
            digest,
        },
        stub: String::new(),
    };
    r.stub = expected_stub(&r, &minted);
    let log = ReductionLog {
        reductions: vec![r],
    };
    let hidden = hidden_texts(&log, &minted);
    assert!(hidden.unresolvable.is_empty());
    assert_eq!(hidden.texts.len(), 1);
    assert_eq!(hidden.texts[0].hidden(), content);
    let options = SearchOptions::default();
    let found = sidecar_search(&log, &minted, "\"needle\" in", &options).unwrap();
    assert_eq!(found.total_matches, 1);
    assert_eq!(found.matches[0].kind, StubKind::ToolInput);
    // The path stays in the view and is not searched.
    let found = sidecar_search(&log, &minted, "needle_free", &options).unwrap();
    assert_eq!(found.total_matches, 0);
    // A tampered argument is not searched, and counted.
    let tampered_args = args.replace("NEEDLE", "needle");
    let mut tampered = minted.clone();
    tampered[1] = assistant_call("toolu_1", "Write", &tampered_args);
    let found = sidecar_search(&log, &tampered, "needle", &options).unwrap();
    assert_eq!((found.total_matches, found.unresolvable), (0, 1));
}
