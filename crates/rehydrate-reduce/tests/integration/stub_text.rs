//! Stub text the input itself holds is content: a session that ran `cat view.json`, or whose
//! messages hold pasted or copied stubs (this log's own among them) and the reduction key as
//! their own metadata, exports after `project_messages` exactly as its unreduced copy does, in
//! all three forms, whatever the policy and whatever pairing repairs the view carries.

use proptest::prelude::*;
use rehydrate_formats::{ExportFormat, write};
use rehydrate_model::{
    Content, Message, REDUCTION_METADATA_KEY, ReductionKind, ReductionLog, Role, ToolDetails,
    find_stubs,
};
use rehydrate_reduce::{ReductionPolicy, project_messages};
use rehydrate_sidecar::{check_tool_links, export_session};
use rehydrate_test_support::assistant_call;

use crate::defects::{Defect, defect, inject};
use crate::properties::{Turn, policy, session, turn};

const FORMATS: [ExportFormat; 7] = ExportFormat::ALL;

/// The canonical JSONL of `messages`, written independently of the export.
fn canonical_lines(messages: &[Message]) -> Vec<u8> {
    messages
        .iter()
        .map(|m| serde_json::to_string(m).unwrap() + "\n")
        .collect::<String>()
        .into_bytes()
}

/// Projects `history` under `policy` and checks that every form exports exactly as the
/// unreduced session does: JSONL is always written and is `history`'s canonical lines; a body
/// is what `request_body` writes for `history` whenever its tool calls link and it is valid,
/// and otherwise the same error as the unreduced export. Returns the projection's log.
fn check_exports(
    history: &[Message],
    policy: &ReductionPolicy,
) -> Result<ReductionLog, TestCaseError> {
    let out = project_messages(history, &ReductionLog::default(), policy);
    let none = ReductionLog::default();
    let links = check_tool_links(history).is_ok();
    for format in FORMATS {
        let reduced = export_session(&out.view, &out.log, history, format);
        let unreduced = export_session(history, &none, history, format);
        prop_assert_eq!(&reduced, &unreduced, "{}", format);
        if format == ExportFormat::Jsonl {
            prop_assert_eq!(reduced, Ok(canonical_lines(history)));
            continue;
        }
        if links && let Ok(body) = write(history, format) {
            prop_assert_eq!(reduced, Ok(body), "{}", format);
        }
    }
    Ok(out.log)
}

/// `<word> <i>` for each i in `range`, each ended by `\n`.
fn lines(range: std::ops::Range<usize>, word: &str) -> String {
    range.map(|i| format!("{word} {i}\n")).collect()
}

/// A session that ran `cat out/view.json` (message 3, about 25 KiB holding three stub lines
/// and a reduction key as text), then read one large output twice and three small ones.
fn cat_view_history() -> Vec<Message> {
    let mut view_json = String::from("[\n");
    view_json.push_str(&format!(
        "{{\"role\":\"tool\",\"content\":\"[rehydrate:tool-output r0.4c1d2e | 9000 of 12000 bytes hidden (300 lines); expand_reduction restores them]\",\"metadata\":{{\"{REDUCTION_METADATA_KEY}\":\"r0.4c1d2e\"}}}},\n"
    ));
    view_json.push_str(
        "{\"role\":\"tool\",\"content\":\"[rehydrate:duplicate r1.abcdef | same 9000 bytes as message 3]\"},\n",
    );
    view_json.push_str(&lines(
        0..600,
        "{\"role\":\"user\",\"content\":\"filler\"}, //",
    ));
    view_json.push_str(
        "{\"role\":\"user\",\"content\":\"[rehydrate:turns-cleared r2.000000 | 3 turns cleared]\"}\n]\n",
    );
    let big = lines(0..2000, "log line");
    vec![
        Message::text(Role::System, "sys"),
        Message::text(Role::User, "what did the last reduction hide?"),
        assistant_call("t1", "Bash", r#"{"command":"cat out/view.json"}"#),
        Message::tool_result("t1", view_json),
        assistant_call("t2", "Bash", r#"{"command":"cat big.log"}"#),
        Message::tool_result("t2", big.clone()),
        assistant_call("t3", "Bash", r#"{"command":"cat big.log"}"#),
        Message::tool_result("t3", big),
        assistant_call("t4", "Bash", r#"{"command":"ls"}"#),
        Message::tool_result("t4", "a\nb\n"),
        assistant_call("t5", "Bash", r#"{"command":"ls"}"#),
        Message::tool_result("t5", "a\nb\n"),
        assistant_call("t6", "Bash", r#"{"command":"pwd"}"#),
        Message::tool_result("t6", "/w\n"),
        Message::text(Role::Assistant, "the view holds four stubs"),
    ]
}

/// (kind token, message index) of each reduction of `log`.
fn reductions(log: &ReductionLog) -> Vec<(&'static str, usize)> {
    log.reductions
        .iter()
        .map(|r| (r.kind.stub_kind().as_str(), r.ptr.addr.index))
        .collect()
}

#[test]
fn a_reduced_session_that_ran_cat_view_json_exports_as_it_was() {
    let history = cat_view_history();
    let own = ["r0.4c1d2e", "r1.abcdef", "r2.000000"];
    let found: Vec<String> = find_stubs(history[3].content_text().unwrap())
        .iter()
        .map(|s| s.id().to_string())
        .collect();
    assert_eq!(found, own);
    let default = check_exports(&history, &ReductionPolicy::default()).unwrap();
    assert_eq!(
        reductions(&default),
        [("tool-output", 3), ("tool-output", 5), ("duplicate", 7)]
    );
    // The aggressive preset supersedes the first `cat big.log` by its re-run, which is then
    // truncated instead of being a duplicate; the `ls` results are too small for a stub.
    let aggressive = check_exports(&history, &ReductionPolicy::aggressive()).unwrap();
    assert_eq!(
        reductions(&aggressive),
        [("superseded", 5), ("tool-output", 3), ("tool-output", 7)]
    );
}

#[test]
fn this_logs_own_stubs_and_ids_in_the_inputs_metadata_and_details_are_content() {
    let mut history = cat_view_history();
    let first = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::default(),
    );
    // Metadata and details are not hashed: the same log is minted with this log's own stubs
    // and ids written into them, each at another message than the one it reduces (messages 1,
    // 3 and 5 for r0, r1 and r2; 3 and 5 are themselves reduced).
    for (k, r) in first.log.reductions.iter().enumerate() {
        let m = &mut history[1 + 2 * k];
        m.metadata.insert("note".into(), r.stub.clone());
        m.metadata
            .insert(REDUCTION_METADATA_KEY.into(), r.id.to_string());
    }
    history[9].details = Some(Box::new(ToolDetails::WholeRead {
        path: "/w/out/view.json".into(),
        content: first.log.reductions[0].stub.clone(),
    }));
    let log = check_exports(&history, &ReductionPolicy::default()).unwrap();
    assert_eq!(log, first.log);
}

/// Where an injection writes its stub text.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// Appended to a message's text content (the content, when it has none).
    Text,
    /// A user message's content as two text parts, the second the stub text.
    Part,
    /// A tool call's arguments, `{"cmd":<stub>}`.
    Arguments,
    /// The same, its `[` written as the JSON escape `\u005b`.
    Escaped,
    /// A tool result's details, a whole read of the stub text.
    Details,
    /// Metadata `note`.
    Note,
    /// Metadata [`REDUCTION_METADATA_KEY`], the stub's id as its value.
    Key,
}

fn place() -> impl Strategy<Value = Place> {
    prop_oneof![
        3 => Just(Place::Text),
        1 => Just(Place::Part),
        2 => Just(Place::Arguments),
        1 => Just(Place::Escaped),
        1 => Just(Place::Details),
        1 => Just(Place::Note),
        1 => Just(Place::Key),
    ]
}

/// A stub line of any kind naming one of the first ids a log mints (so some ids are this
/// log's ordinals), or text that only starts like one.
fn stub_text() -> impl Strategy<Value = (String, String)> {
    let kind = prop_oneof![
        Just("tool-output"),
        Just("duplicate"),
        Just("turns-cleared"),
        Just("unanswered-call"),
        Just("orphan-result"),
        Just("second-answer"),
        Just("moved-result"),
        Just("folded-calls"),
        Just("conversation-opened"),
        Just("terminal"),
    ];
    prop_oneof![
        6 => (kind, 0usize..6, "[0-9a-f]{6}", "[a-z0-9 ();]{1,30}").prop_map(|(k, n, hex, s)| {
            let id = format!("r{n}.{hex}");
            (format!("[rehydrate:{k} {id} | {s}]"), id)
        }),
        1 => Just(("[rehydrate:".to_string(), "r0.000000".to_string())),
        1 => Just(("[rehydrate:tool-output oops]".to_string(), "r1.000000".to_string())),
    ]
}

fn injection() -> impl Strategy<Value = (Place, usize, (String, String))> {
    (place(), 0usize..1000, stub_text())
}

/// Writes the stub text of `injection` into the `at`-th message where its place fits (nothing
/// when none does).
fn write_stub(history: &mut [Message], (place, at, (stub, id)): &(Place, usize, (String, String))) {
    let fits = |m: &Message| match place {
        Place::Text | Place::Note | Place::Key => true,
        Place::Part => m.role == Role::User && !m.observation,
        Place::Arguments | Place::Escaped => !m.tool_calls.is_empty(),
        Place::Details => m.role == Role::Tool,
    };
    let candidates: Vec<usize> = (0..history.len()).filter(|&i| fits(&history[i])).collect();
    let Some(&i) = candidates.get(at % candidates.len().max(1)) else {
        return;
    };
    let m = &mut history[i];
    match place {
        Place::Text => match &mut m.content {
            Some(Content::Text(t)) => {
                t.push('\n');
                t.push_str(stub);
            }
            Some(Content::Parts(_)) => {}
            None => m.content = Some(Content::Text(stub.clone())),
        },
        Place::Part => {
            let before = m.content_text().unwrap_or_default().to_string();
            m.content = Some(Content::Parts(vec![
                serde_json::json!({"type": "text", "text": before}),
                serde_json::json!({"type": "text", "text": stub}),
            ]));
        }
        Place::Arguments => {
            m.tool_calls[0].arguments = serde_json::json!({ "cmd": stub }).to_string();
        }
        Place::Escaped => {
            let quoted = serde_json::to_string(&stub[1..]).unwrap();
            m.tool_calls[0].arguments = format!(r#"{{"cmd":"\u005b{}}}"#, &quoted[1..]);
        }
        Place::Details => {
            m.details = Some(Box::new(ToolDetails::WholeRead {
                path: "/w/out/view.json".into(),
                content: stub.clone(),
            }));
        }
        Place::Note => {
            m.metadata.insert("note".into(), stub.clone());
        }
        Place::Key => {
            m.metadata.insert(REDUCTION_METADATA_KEY.into(), id.clone());
        }
    }
}

fn with_stubs(
    turns: &[Turn],
    defects: &[(Defect, usize)],
    injections: &[(Place, usize, (String, String))],
) -> Vec<Message> {
    let mut history = session(turns, false);
    for &d in defects {
        inject(&mut history, d);
    }
    for injection in injections {
        write_stub(&mut history, injection);
    }
    history
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn sessions_holding_stub_text_export_as_they_were(
        turns in proptest::collection::vec(turn(), 1..6),
        defects in proptest::collection::vec(defect(), 0..3),
        injections in proptest::collection::vec(injection(), 1..6),
        policy in policy(),
    ) {
        let history = with_stubs(&turns, &defects, &injections);
        check_exports(&history, &ReductionPolicy::default())?;
        check_exports(&history, &ReductionPolicy::aggressive())?;
        check_exports(&history, &policy)?;
    }
}

#[test]
fn a_reduced_view_of_a_session_holding_stub_text_still_holds_it() {
    // The stub text survives into the view where the reducer keeps the message: the export is
    // exact because that text is the input's own, not because the view lost it.
    let history = cat_view_history();
    let out = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::default(),
    );
    let ids: Vec<String> = find_stubs(out.view[3].content_text().unwrap())
        .iter()
        .map(|s| s.id().to_string())
        .collect();
    let r0 = out.log.reductions[0].id.to_string();
    assert_eq!(ids, ["r0.4c1d2e", "r1.abcdef", &r0, "r2.000000"]);
    assert!(matches!(
        out.log.reductions[0].kind,
        ReductionKind::ToolOutputTruncated { .. }
    ));
}

#[test]
fn re_read_stubs_inside_read_files_are_content() {
    // A notes file that holds pasted re-read and read-diff stubs (ids of this log's shape),
    // read whole three times: the same content, then one line changed. The view elides and
    // diffs it, and the export is the unreduced session.
    let stubs = "[rehydrate:re-read r0.000000 | file notes.md was read again in message 4 with the same content; 10 bytes hidden; expand_reduction restores them]\n[rehydrate:read-diff r1.000000 | file notes.md read again]\n";
    let notes = format!("{stubs}{}", lines(0..60, "note"));
    let edited = notes.replace("note 30\n", "note 30 (done)\n");
    let read = |id: &str, content: &str| {
        let mut m = Message::tool_result(id, content);
        m.details = Some(Box::new(ToolDetails::WholeRead {
            path: "notes.md".into(),
            content: content.into(),
        }));
        m
    };
    let history = vec![
        Message::text(Role::User, "check the notes"),
        assistant_call("r1", "Read", r#"{"file_path":"notes.md"}"#),
        read("r1", &notes),
        assistant_call("r2", "Read", r#"{"file_path":"notes.md"}"#),
        read("r2", &notes),
        assistant_call(
            "r3",
            "Read",
            r#"{"command":"[rehydrate:read-diff r1.000000 | x]"}"#,
        ),
        read("r3", &edited),
        Message::text(Role::Assistant, "note 30 is done"),
    ];
    let log = check_exports(&history, &ReductionPolicy::aggressive()).unwrap();
    assert_eq!(reductions(&log), [("re-read", 2), ("read-diff", 6)]);
}
