//! Unit tests of the workloads, the writer and the peer conversion.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rehydrate_model::{Content, Message, Role, ToolCall};

use rehydrate_formats::Format;

use crate::economy::{Economy, EconomyRow, Size};
use crate::formats::{
    NO_RESULT, answer_unanswered_calls, body_message_count, largest_file, repeat_codex,
    repeat_gemini, repeat_goose, repeat_openhands, repeat_swe_agent, synthetic_codex,
    synthetic_gemini, synthetic_goose, synthetic_openhands, synthetic_swe_agent, write_body,
};
use crate::peer::{from_peer, peer_policy, peer_policy_all_levers, to_peer, to_peer_all};
use crate::tokens::TokenCounter;
use crate::wire::{
    CodexRecord, ResponsesItem, ToolUseResult, TypedSession, parse_claude_code_lines,
    parse_messages, parse_typed,
};
use crate::workload::{
    Corpus, JsonlWorkload, SessionFile, SessionFiles, Until, check_reimport, write_openai,
};

/// A scratch file path unique to this process and `name`, in the system temp directory.
fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir()
        .join(format!("rehydrate-bench-{}", std::process::id()))
        .join(name)
}

/// Fails unless every tool result answers a call made earlier by an assistant message, and
/// every call id is made once.
fn assert_paired(messages: &[Message]) {
    let mut calls = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        for call in &m.tool_calls {
            assert!(calls.insert(call.id.clone()), "call id {} reused", call.id);
        }
        if let Some(id) = &m.tool_call_id {
            assert!(calls.contains(id), "message {i} answers unknown call {id}");
        }
    }
}

#[test]
fn synthetic_corpus_splits_into_turns() {
    let corpus = Corpus::synthetic();
    assert_eq!(corpus.turns.len(), 24);
    assert_eq!(corpus.prefix.len(), 1);
    assert_eq!(corpus.prefix[0].role, Role::System);
    assert!(corpus.notices.is_empty(), "{:?}", corpus.notices);
    for turn in &corpus.turns {
        assert!(turn[0].is_turn_start());
        assert!(turn[1..].iter().all(|m| !m.is_turn_start()));
    }
}

#[test]
fn prefixes_keep_one_system_prompt() {
    let system = Message::text(Role::System, "be brief");
    let sessions = vec![
        ("a".to_owned(), vec![Message::text(Role::Assistant, "hi")]),
        (
            "b".to_owned(),
            vec![
                system.clone(),
                Message::text(Role::Assistant, "ready"),
                Message::text(Role::User, "go"),
                Message::text(Role::Assistant, "done"),
            ],
        ),
        (
            "c".to_owned(),
            vec![
                Message::text(Role::System, "other prompt"),
                Message::text(Role::User, "again"),
                Message::text(Role::User, "and again"),
            ],
        ),
    ];
    let corpus = Corpus::from_sessions("test".to_owned(), sessions);
    assert_eq!(corpus.prefix, [system]);
    assert_eq!(corpus.turns.len(), 3);
    assert_eq!(corpus.turns[0].len(), 2);
    assert_eq!(
        corpus.notices,
        [
            "skipped a: no turn (no user message written by a person)",
            "b: dropped 1 message(s) before its first turn",
            "c: dropped 1 message(s) before its first turn",
        ]
    );
}

#[test]
fn scaling_repeats_turns_with_fresh_ids() {
    let corpus = Corpus::synthetic();
    let workload = corpus.scale("t", Until::Turns(60));
    assert_eq!(workload.turn_count(), 60);
    let messages = workload.messages();
    assert_eq!(messages.len(), workload.message_count());
    assert_paired(&messages);
    // Turn 25 is corpus turn 1 on the second pass: same content, ids suffixed `_r1`.
    let again = &workload.turns()[24];
    assert_eq!(again[0].content, corpus.turns[0][0].content);
    assert_eq!(again[1].tool_calls[0].id, "call_0_r1");
    assert_eq!(again[2].tool_call_id.as_deref(), Some("call_0_r1"));
    assert_eq!(workload.turns()[48][1].tool_calls[0].id, "call_0_r2");
    let wire: usize = messages.iter().map(Message::wire_len).sum();
    assert_eq!(workload.wire_bytes(), wire);
    let results = messages.iter().filter(|m| m.is_tool_result()).count();
    assert_eq!(workload.tool_result_count(), results);
}

#[test]
fn byte_bound_takes_the_fewest_whole_turns() {
    let corpus = Corpus::synthetic();
    let bound = 300_000;
    let workload = corpus.scale("b", Until::WireBytes(bound));
    assert!(workload.wire_bytes() >= bound);
    let last: usize = workload.turns()[workload.turn_count() - 1]
        .iter()
        .map(Message::wire_len)
        .sum();
    assert!(workload.wire_bytes() - last < bound);
    assert!(workload.describe().starts_with("workload b: "));
}

#[test]
fn written_workload_reimports_and_parses() -> Result<(), Box<dyn std::error::Error>> {
    let mut corpus = Corpus::synthetic();
    // Content parts and a name survive the round trip too.
    corpus.turns[0].push(Message {
        role: Role::User,
        content: Some(Content::Parts(vec![serde_json::json!({
            "type": "text", "text": "see \"this\"\n"
        })])),
        name: Some("reviewer".to_owned()),
        ..Message::default()
    });
    let workload = corpus.scale("w", Until::Turns(30));
    let path = scratch("w.json");
    let size = write_openai(&path, &workload.messages())?;
    let bytes = std::fs::read(&path)?;
    assert_eq!(size, bytes.len() as u64);
    check_reimport(&path, &workload.messages())?;
    let parsed = parse_messages(&bytes)?;
    assert_eq!(parsed.len(), workload.message_count());

    let mut fewer = workload.messages();
    fewer.pop();
    assert!(check_reimport(&path, &fewer).is_err());
    let mut changed = workload.messages();
    changed[3].content = Some(Content::Text("changed".to_owned()));
    let err = check_reimport(&path, &changed).err().map(|e| e.to_string());
    assert_eq!(
        err,
        Some(format!(
            "{}: message 3 imports differently from the message written",
            path.display()
        ))
    );
    std::fs::remove_file(&path)?;
    Ok(())
}

#[test]
fn peer_messages_serialize_to_our_wire_form() -> Result<(), serde_json::Error> {
    let mut messages = Corpus::synthetic().scale("p", Until::Turns(3)).messages();
    messages.push(Message {
        role: Role::Assistant,
        content: None,
        tool_calls: vec![ToolCall {
            id: "c9".to_owned(),
            name: "Read".to_owned(),
            arguments: r#"{"path":"a.rs"}"#.to_owned(),
        }],
        ..Message::default()
    });
    messages.push(Message {
        role: Role::User,
        content: Some(Content::Parts(vec![
            serde_json::json!({"type": "text", "text": "x"}),
        ])),
        name: Some("n".to_owned()),
        ..Message::default()
    });
    for message in &messages {
        let ours: serde_json::Value = serde_json::from_str(&message.wire_json())?;
        let theirs = serde_json::to_value(to_peer(message))?;
        assert_eq!(theirs, ours);
    }
    Ok(())
}

#[test]
fn peer_policy_matches_ours() {
    let ours = rehydrate_reduce::ReductionPolicy::default();
    let peer = peer_policy();
    assert_eq!(
        peer.tool_output_trigger_bytes,
        ours.tool_output_trigger_bytes
    );
    assert_eq!(
        peer.protect_last_n_tool_results,
        ours.protect_last_n_tool_results
    );
    assert_eq!(
        peer.tool_output_keep_bytes,
        ours.head_bytes + ours.tail_bytes
    );
    assert!(!peer.redact_images && !peer.diff_rereads && !peer.elide_tool_inputs);
    assert!(peer.deduplicate_outputs && peer.clear_turns_older_than.is_none());
}

#[test]
fn peer_messages_convert_back_to_the_same_wire_form() -> Result<(), serde_json::Error> {
    let messages = economy_session();
    for message in &messages {
        assert_eq!(
            from_peer(&to_peer(message)).wire_json(),
            message.wire_json()
        );
    }
    // The peer's own view, stubs included, serializes to the wire form of its conversion.
    let (view, log) = supercode_reduce::project_messages(
        &to_peer_all(&messages),
        &peer_policy_all_levers(),
        &supercode_reduce::ReductionLog::default(),
    );
    assert!(!log.reductions.is_empty());
    for message in &view {
        let ours: serde_json::Value = serde_json::from_str(&from_peer(message).wire_json())?;
        assert_eq!(serde_json::to_value(message)?, ours);
    }
    Ok(())
}

#[test]
fn peer_policy_all_levers_turns_every_lever_on() {
    let peer = peer_policy_all_levers();
    assert_eq!(
        (peer.tool_output_keep_bytes, peer.tool_output_trigger_bytes),
        (512, 1024)
    );
    assert!(peer.redact_images && peer.diff_rereads && peer.elide_stale_reads);
    assert!(peer.elide_tool_inputs && peer.normalize_terminal_output);
    assert!(peer.supersede_enabled && peer.prune_errored_inputs && peer.deduplicate_outputs);
    assert!(!peer.summarize_cleared_turns && peer.clear_turns_older_than.is_none());
}

/// A small build session for the economy table: a 12 KiB build log, a long plan, a 3 KiB
/// `Write`, a 3 KiB test log, then small outputs, so each policy has something to reduce. No
/// images, escape sequences or file cards, so kinds that need them find nothing.
fn economy_session() -> Vec<Message> {
    let call = |id: &str, name: &str, arguments: String| Message {
        role: Role::Assistant,
        tool_calls: vec![ToolCall {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments,
        }],
        ..Message::default()
    };
    let build_log: String = (0..240)
        .map(|i| {
            format!(
                "   Compiling crate_{i} v0.1.{} (/work/crates/crate_{i})\n",
                i % 7
            )
        })
        .collect();
    let plan: String = (0..30)
        .map(|i| {
            format!(
                "Step {i}: change module {} and run its tests again.\n",
                i * 3
            )
        })
        .collect();
    let source: String = (0..100)
        .map(|i| format!("pub fn item_{i}() -> u32 {{ {} }}\n", i * 7))
        .collect();
    let test_log: String = (0..80)
        .map(|i| format!("test module_{}::case_{i} ... ok\n", i % 9))
        .collect();
    let mut messages = vec![
        Message::text(Role::System, "You are a coding agent."),
        Message::text(Role::User, "Fix the build, then run the tests."),
        call("c1", "Bash", r#"{"command":"cargo build"}"#.to_owned()),
        Message::tool_result("c1", build_log),
        Message::text(Role::Assistant, plan),
        call(
            "c2",
            "Write",
            serde_json::json!({"file_path": "/work/src/lib.rs", "content": source}).to_string(),
        ),
        Message::tool_result("c2", "File written: /work/src/lib.rs"),
        call("c3", "Bash", r#"{"command":"cargo test"}"#.to_owned()),
        Message::tool_result("c3", test_log),
    ];
    for i in 4..8 {
        let id = format!("c{i}");
        messages.push(call(
            &id,
            "Bash",
            format!(r#"{{"command":"git diff --stat -- crate_{i}"}}"#),
        ));
        messages.push(Message::tool_result(
            id,
            format!("crate_{i}: 1 file changed"),
        ));
    }
    messages.push(Message::text(
        Role::Assistant,
        "The build and the tests pass.",
    ));
    messages
}

#[test]
fn economy_measures_each_view_once() {
    let messages = economy_session();
    let mut counter = TokenCounter::new();
    let row = EconomyRow::measure("build", &messages, &mut counter);
    // Exact figures: a change to a preset, to the peer's policy or to the counting that moves
    // them is one to look at (and to pin again here).
    let size = |wire_bytes, tokens| Size { wire_bytes, tokens };
    assert_eq!(row.messages, 18);
    assert_eq!(row.before, size(22313, 8670));
    assert_eq!(row.before, Size::of(&messages, &mut counter));
    assert_eq!(row.default, size(13361, 5098));
    assert_eq!(row.aggressive, size(4558, 1422));
    assert_eq!(row.peer, size(7905, 2933));
    assert!(row.target_met());
    let small = vec![
        Message::text(Role::User, "hi"),
        Message::text(Role::Assistant, "hello"),
    ];
    let sessions = vec![("small".to_owned(), small), ("build".to_owned(), messages)];
    let economy = Economy::of("test".to_owned(), &sessions, 100);
    assert_eq!(economy.rows, [row]);
    assert_eq!((economy.sessions, economy.met()), (2, 1));
    let table = economy.markdown();
    assert!(table.contains(
        "| build | 18 | 22313 | 8670 | 8952 (40.1%) | 3572 (41.2%) | 17755 (79.6%) | 7248 (83.6%) \
         | 14408 (64.6%) | 5737 (66.2%) | aggressive ahead of the peer | met |\n"
    ));
    assert!(table.ends_with("on every session: met on 1 of 1.\n"));
}

/// A small Claude Code session that writes one file, then is compacted: two places where the
/// chain starts (the first line, and a compact boundary linked by `logicalParentUuid`).
const COMPACTED_SESSION: &str = r#"{"type":"user","uuid":"x1","parentUuid":null,"timestamp":"2025-02-01T00:00:00Z","message":{"role":"user","content":"write x"}}
{"type":"assistant","uuid":"x2","parentUuid":"x1","timestamp":"2025-02-01T00:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"tw","name":"Write","input":{"file_path":"/tmp/x.txt","content":"hello"}}]}}
{"type":"user","uuid":"x3","parentUuid":"x2","timestamp":"2025-02-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tw","content":"File created successfully at: /tmp/x.txt"}]},"toolUseResult":{"type":"create","filePath":"/tmp/x.txt","content":"hello","structuredPatch":[]}}
{"type":"system","uuid":"x4","parentUuid":null,"logicalParentUuid":"x3","subtype":"compact_boundary","content":"Conversation compacted","timestamp":"2025-02-01T00:00:03Z"}
{"type":"user","uuid":"x5","parentUuid":"x4","timestamp":"2025-02-01T00:00:04Z","message":{"role":"user","content":"go on"}}
{"type":"assistant","uuid":"x6","parentUuid":"x5","timestamp":"2025-02-01T00:00:05Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"done"}]}}
"#;

/// Imports `workload` and replays it: the messages and the paths of the records.
fn import_and_replay(workload: &JsonlWorkload) -> (usize, Vec<String>) {
    let import = rehydrate_formats::import(Path::new("w.jsonl"), workload.bytes(), None)
        .expect("the workload imports");
    let mut replay = rehydrate_replay::Replay::new();
    replay.run(&import.messages);
    let paths = replay.records().into_iter().map(|r| r.path).collect();
    (import.messages.len(), paths)
}

#[test]
fn synthetic_session_file_proves_every_file() {
    let files = SessionFiles::synthetic();
    assert_eq!(files.files.len(), 1);
    let file = &files.files[0];
    assert_eq!((file.messages, file.file_cards, file.records), (96, 24, 4));
    // One event per message, plus one per tool call.
    assert_eq!(file.events, 96 + 24);
}

#[test]
fn session_copies_import_and_replay_whole() -> Result<(), Box<dyn std::error::Error>> {
    let synthetic = SessionFiles::synthetic().files.remove(0);
    let compacted = SessionFile::parse("compacted".to_owned(), COMPACTED_SESSION)?;
    assert_eq!((compacted.file_cards, compacted.records), (1, 1));
    let files = SessionFiles {
        origin: "test".to_owned(),
        notices: Vec::new(),
        files: vec![compacted.clone(), synthetic.clone()],
    };
    // The ranking puts the synthetic session first.
    let ranked = files.most_file_cards(1);
    assert_eq!(ranked.files, std::slice::from_ref(&synthetic));

    // Copies alternate: compacted, synthetic, compacted, synthetic, … (copies after the first
    // are written back with `serde_json`, so they differ a little in size).
    let bound = 2 * (compacted.bytes + synthetic.bytes);
    let workload = files.scale("t", bound);
    let copies = workload.copies();
    assert!((4..=5).contains(&copies), "{copies} copies");
    assert!(workload.bytes().len() >= bound);
    let (odd, even) = (copies / 2, copies - copies / 2);
    assert_eq!(
        workload.message_count(),
        even * compacted.messages + odd * synthetic.messages
    );
    assert_eq!(workload.record_count(), even + odd * 4);
    assert_eq!(
        workload.event_count(),
        even * compacted.events + odd * synthetic.events
    );
    assert!(workload.describe().starts_with("workload t: "));

    // The importer keeps every copy, and replay proves each copy's own paths.
    let (messages, paths) = import_and_replay(&workload);
    assert_eq!(messages, workload.message_count());
    let log = rehydrate_formats::import_events(Path::new("w.jsonl"), workload.bytes(), None)?;
    assert_eq!(log.events.len(), workload.event_count());
    assert_eq!(paths.len(), workload.record_count());
    for expected in [
        "/tmp/x.txt",
        "/repeat-2/tmp/x.txt",
        "/repeat-1/work/synthetic/src/file3.rs",
        "/repeat-3/work/synthetic/src/file0.rs",
    ] {
        assert!(
            paths.iter().any(|p| p == expected),
            "{expected} in {paths:?}"
        );
    }
    // The first copy is verbatim.
    assert!(workload.bytes().starts_with(COMPACTED_SESSION.as_bytes()));
    let text = std::str::from_utf8(workload.bytes())?;
    assert!(text.contains(r#""uuid":"x1_r2""#) && text.contains(r#""logicalParentUuid":"x3_r2""#));
    // Its root hangs off the end of the synthetic copy before it.
    assert!(text.contains(r#""parentUuid":"t23_r1","timestamp":"2025-02-01T00:00:00Z""#));
    assert!(text.contains(r#""tool_use_id":"tw_r2""#) && text.contains(r#""id":"m2_r2""#));

    // The typed baseline reads every line and every file card.
    let lines = parse_claude_code_lines(workload.bytes())?;
    assert_eq!(lines.len(), workload.line_count());
    let cards = lines
        .iter()
        .filter(|l| {
            matches!(
                l.tool_use_result,
                Some(
                    ToolUseResult::Read(_)
                        | ToolUseResult::Write(_)
                        | ToolUseResult::Edit(_)
                        | ToolUseResult::MultiEdit(_)
                )
            )
        })
        .count();
    assert_eq!(cards, workload.file_card_count());
    Ok(())
}

#[test]
fn a_single_session_scales_by_whole_copies() {
    let files = SessionFiles::synthetic();
    let one = files.files[0].bytes;
    let workload = files.scale("s", 3 * one);
    assert_eq!(workload.copies(), 3);
    let (messages, paths) = import_and_replay(&workload);
    assert_eq!((messages, paths.len()), (3 * 96, 12));
    assert_eq!(workload.event_count(), 3 * files.files[0].events);
    assert!(
        SessionFiles {
            files: Vec::new(),
            ..files
        }
        .scale("e", 10)
        .bytes()
        .is_empty()
    );
}

/// A sub-agent transcript: every message line is a sidechain line. Its text is long, so by bytes
/// it would rank above [`COMPACTED_SESSION`].
fn sidechain_session() -> String {
    let task = "x".repeat(4096);
    format!(
        r#"{{"type":"user","uuid":"s1","parentUuid":null,"isSidechain":true,"timestamp":"2025-03-01T00:00:00Z","message":{{"role":"user","content":"{task}"}}}}
{{"type":"assistant","uuid":"s2","parentUuid":"s1","isSidechain":true,"timestamp":"2025-03-01T00:00:01Z","message":{{"id":"ms","role":"assistant","content":[{{"type":"text","text":"done"}}]}}}}
"#
    )
}

#[test]
fn largest_sessions_leave_out_sub_agents() -> Result<(), Box<dyn std::error::Error>> {
    let synthetic = SessionFiles::synthetic().files.remove(0);
    let compacted = SessionFile::parse("compacted".to_owned(), COMPACTED_SESSION)?;
    let agent = SessionFile::parse("agent-1.jsonl".to_owned(), &sidechain_session())?;
    assert!(agent.bytes > compacted.bytes);
    let files = SessionFiles {
        origin: "test".to_owned(),
        notices: Vec::new(),
        files: vec![compacted.clone(), agent, synthetic.clone()],
    };
    assert!(synthetic.bytes > compacted.bytes);
    let names =
        |n: usize| -> Vec<String> { files.largest(n).files.into_iter().map(|f| f.name).collect() };
    assert_eq!(names(3), ["synthetic", "compacted"]);
    assert_eq!(names(1), ["synthetic"]);
    let largest = files.largest(3);

    // Repeated, the event log has every copy's events, and the evidence keeps some turn.
    let workload = largest.scale("l", 3 * synthetic.bytes);
    let log = rehydrate_formats::import_events(Path::new("l.jsonl"), workload.bytes(), None)?;
    assert_eq!(log.events.len(), workload.event_count());
    let options = rehydrate_evidence::EvidenceOptions {
        max_input_bytes: usize::MAX,
    };
    let evidence = rehydrate_evidence::project_evidence(&log.events, &[], &options)?;
    assert!(!evidence.turns.is_empty());
    Ok(())
}

#[test]
fn typed_lines_skip_blank_lines_and_report_bad_ones() {
    let ok = parse_claude_code_lines(b"\n{\"type\":\"summary\"}\r\n\n{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"},{\"type\":\"new_kind\"}]}}");
    assert_eq!(ok.map(|l| l.len()).ok(), Some(2));
    assert!(parse_claude_code_lines(b"{\"type\":\"user\"}\n{").is_err());
}

#[test]
fn gemini_copies_import_whole_with_fresh_ids() -> Result<(), Box<dyn std::error::Error>> {
    let text = synthetic_gemini();
    let one = rehydrate_formats::import(Path::new("g"), text.as_bytes(), Some(Format::GeminiCli))?;
    assert_eq!((one.messages.len(), one.warnings.len()), (18, 0));
    let file = repeat_gemini("g", "synthetic", &text, 5 * text.len() / 2)?;
    assert_eq!(file.copies(), 3);
    assert_eq!(file.format(), Format::GeminiCli);
    assert_eq!((file.message_count(), file.warning_count()), (54, 0));
    let bytes = std::str::from_utf8(file.bytes())?;
    // Copy 2's records, calls and results carry `_r2`.
    assert!(bytes.contains(r#""id":"g3_r2""#));
    assert_eq!(bytes.matches(r#""id":"run_shell_command-3_r2""#).count(), 2);
    let typed = parse_typed(Format::GeminiCli, file.bytes())?;
    assert_eq!(typed.len(), 3 * 10);
    // A session that does not import is refused.
    assert!(repeat_gemini("bad", "test", "{\"sessionId\":", 10).is_err());
    Ok(())
}

#[test]
fn goose_copies_import_whole_with_fresh_ids() -> Result<(), Box<dyn std::error::Error>> {
    let text = synthetic_goose();
    let one = rehydrate_formats::import(Path::new("g"), text.as_bytes(), Some(Format::Goose))?;
    assert_eq!((one.messages.len(), one.warnings.len()), (18, 0));
    let file = repeat_goose("g", "synthetic", &text, 5 * text.len() / 2)?;
    assert_eq!(file.copies(), 3);
    assert_eq!(file.format(), Format::Goose);
    assert_eq!((file.message_count(), file.warning_count()), (54, 0));
    let bytes = std::str::from_utf8(file.bytes())?;
    // Copy 2's messages, requests and responses carry `_r2`; the metadata line is written once.
    assert!(bytes.contains(r#""id":"a3_r2""#));
    assert_eq!(bytes.matches(r#""id":"call_3_r2""#).count(), 2);
    assert_eq!(bytes.matches("working_dir").count(), 1);
    let typed = parse_typed(Format::Goose, file.bytes())?;
    assert_eq!(typed.len(), 1 + 3 * 18);
    assert!(repeat_goose("bad", "test", "{\"working_dir\":\"/w\"}\n", 10).is_err());
    Ok(())
}

#[test]
fn openhands_copies_import_whole_with_fresh_ids() -> Result<(), Box<dyn std::error::Error>> {
    let text = synthetic_openhands();
    let one = rehydrate_formats::import(Path::new("o"), text.as_bytes(), Some(Format::OpenHands))?;
    assert_eq!((one.messages.len(), one.warnings.len()), (18, 0));
    // Two sessions in an output.jsonl are two blocks of one copy.
    let two = format!("{text}\n{text}\n");
    let file = repeat_openhands("o", "synthetic", &two, 5 * two.len() / 2)?;
    assert_eq!(file.copies(), 3);
    assert_eq!(file.format(), Format::OpenHands);
    assert_eq!((file.message_count(), file.warning_count()), (6 * 18, 0));
    let bytes = std::str::from_utf8(file.bytes())?;
    // Block 5 (copy 2, session 2): ids offset, calls and responses suffixed.
    assert!(bytes.contains(r#""id":5000003"#));
    assert!(bytes.contains(r#""cause":5000003"#));
    assert_eq!(bytes.matches(r#""tool_call_id":"call_1_b5""#).count(), 2);
    assert_eq!(bytes.matches(r#""id":"resp_1_b5""#).count(), 2);
    let typed = parse_typed(Format::OpenHands, file.bytes())?;
    assert_eq!(typed.len(), 6 * 18);
    assert!(repeat_openhands("bad", "test", "{\"history\":", 10).is_err());
    Ok(())
}

#[test]
fn codex_copies_import_whole_with_fresh_ids() -> Result<(), Box<dyn std::error::Error>> {
    let text = synthetic_codex();
    assert_eq!(text.lines().count(), 74);
    let one = rehydrate_formats::import(Path::new("c"), text.as_bytes(), Some(Format::Codex))?;
    assert_eq!((one.messages.len(), one.warnings.len()), (33, 0));

    // The fewest whole copies reaching the bound: three (copies after the first are longer by
    // their suffixes, so two reach two lengths).
    let file = repeat_codex("c", "synthetic", &text, 5 * text.len() / 2)?;
    assert_eq!(file.copies(), 3);
    assert_eq!(file.format(), Format::Codex);
    assert_eq!((file.message_count(), file.warning_count()), (99, 0));
    let bytes = std::str::from_utf8(file.bytes())?;
    assert!(bytes.starts_with(&text), "copy 0 is verbatim");
    assert_eq!(bytes.lines().count(), 3 * 74);
    // Copy 2's calls, outputs, events and session id carry `_r2`, its texts do not change.
    let copy2: Vec<&str> = bytes.lines().skip(2 * 74).collect();
    assert!(copy2[0].contains(r#""id":"synthetic_r2""#), "{}", copy2[0]);
    let output = copy2
        .iter()
        .find(|l| l.contains("function_call_output"))
        .copied()
        .unwrap_or_default();
    assert!(output.contains(r#""call_id":"call_0_r2""#), "{output}");
    let end = copy2
        .iter()
        .find(|l| l.contains("exec_command_end"))
        .copied()
        .unwrap_or_default();
    assert!(end.contains(r#""call_id":"call_0_r2""#) && end.contains(r#""turn_id":"turn_0_r2""#));
    assert!(!bytes.contains("Step 0_r"));

    let typed = parse_typed(Format::Codex, file.bytes())?;
    assert_eq!(typed.len(), 3 * 74);
    let TypedSession::Codex(lines) = typed else {
        panic!("a Codex parse gives Codex lines");
    };
    assert!(matches!(
        &lines[6].record,
        CodexRecord::ResponseItem(ResponsesItem::FunctionCall { call_id, .. }) if call_id == "call_0"
    ));
    assert!(matches!(&lines[0].record, CodexRecord::SessionMeta(meta) if meta.id == "synthetic"));

    // A rollout that does not import is refused.
    let err = repeat_codex("bad", "test", "{\"type\":\"session_meta\"", 10).err();
    assert_eq!(
        err.map(|e| e.to_string()),
        Some("bad: the workload does not import".to_owned())
    );
    Ok(())
}

#[test]
fn swe_agent_copies_import_whole_with_fresh_ids() -> Result<(), Box<dyn std::error::Error>> {
    let text = synthetic_swe_agent();
    let one = rehydrate_formats::import(Path::new("s"), text.as_bytes(), Some(Format::SweAgent))?;
    assert_eq!((one.messages.len(), one.warnings.len()), (18, 0));

    // Copies after the first are longer by their suffixes: 2.5 lengths take three.
    let file = repeat_swe_agent("s", "synthetic", &text, 5 * text.len() / 2)?;
    assert_eq!(file.copies(), 3);
    assert_eq!((file.message_count(), file.warning_count()), (54, 0));
    let bytes = std::str::from_utf8(file.bytes())?;
    assert!(bytes.starts_with(r#"{"trajectory":[{"action":"cargo test -p crate0""#));
    assert!(bytes.ends_with(r#","environment":"synthetic","info":{"exit_status":"submitted","submission":"diff --git a/x b/x\n"}}"#));
    assert!(bytes.contains(r#""tool_call_ids":["call_7_r2"]"#));
    assert!(bytes.contains(r#""id":"call_7_r2""#));
    assert!(!bytes.contains("call_7_r3"));

    let TypedSession::SweAgent(trajectory) = parse_typed(Format::SweAgent, file.bytes())? else {
        panic!("a SWE-agent parse gives a trajectory");
    };
    assert_eq!(
        (trajectory.trajectory.len(), trajectory.history.len()),
        (24, 54)
    );
    // Each step holds the history up to it: step 8 of copy 1 (the 16th) its 18 entries.
    let step = &trajectory.trajectory[15];
    assert_eq!(step.messages.as_ref().map(Vec::len), Some(18));
    assert_eq!(
        trajectory.history[53].tool_call_ids,
        Some(vec!["call_7_r2".to_owned()])
    );

    let err = repeat_swe_agent("bad", "test", r#"{"trajectory":[]}"#, 10).err();
    assert_eq!(
        err.map(|e| e.to_string()),
        Some("bad: the workload does not import".to_owned())
    );
    Ok(())
}

#[test]
fn unanswered_calls_get_a_result_after_the_others() {
    let call = |id: &str| ToolCall {
        id: id.to_owned(),
        name: "Bash".to_owned(),
        arguments: "{}".to_owned(),
    };
    let mut messages = vec![
        Message::text(Role::User, "go"),
        Message {
            role: Role::Assistant,
            tool_calls: vec![call("a"), call("b"), call("c")],
            ..Message::default()
        },
        Message::tool_result("a", "ok"),
        Message::tool_result("c", "ok"),
        Message::text(Role::User, "again"),
        Message {
            role: Role::Assistant,
            tool_calls: vec![call("d")],
            ..Message::default()
        },
    ];
    assert_eq!(answer_unanswered_calls(&mut messages), 2);
    let ids: Vec<Option<&str>> = messages.iter().map(|m| m.tool_call_id.as_deref()).collect();
    assert_eq!(
        ids,
        [
            None,
            None,
            Some("a"),
            Some("c"),
            Some("b"),
            None,
            None,
            Some("d")
        ]
    );
    assert_eq!(messages[4].content_text(), Some(NO_RESULT));
    assert_eq!(answer_unanswered_calls(&mut messages), 0);
    for api in [
        rehydrate_formats::Api::OpenAi,
        rehydrate_formats::Api::Anthropic,
        rehydrate_formats::Api::Responses,
    ] {
        assert!(rehydrate_formats::check_request(&messages, api).is_empty());
    }
}

#[test]
fn written_bodies_import_back() -> Result<(), Box<dyn std::error::Error>> {
    let mut messages = Corpus::synthetic().scale("b", Until::Turns(30)).messages();
    assert_eq!(messages.len(), 121);
    // Only reasoning: both bodies leave it out.
    let mut thinking = Message::text(Role::Assistant, "");
    thinking.content = None;
    thinking.metadata.insert(
        rehydrate_model::THINKING_METADATA_KEY.to_owned(),
        "hmm".to_owned(),
    );
    messages.insert(3, thinking);
    assert!(rehydrate_formats::left_out_of_bodies(&messages[3]));
    // A second user message in a row: an Anthropic body merges it with the one before.
    messages.insert(2, Message::text(Role::User, "and run clippy too"));
    assert_eq!(body_message_count(&messages, Format::OpenAi), 122);
    assert_eq!(body_message_count(&messages, Format::Responses), 122);
    assert_eq!(body_message_count(&messages, Format::Anthropic), 121);
    for (format, records) in [
        (Format::OpenAi, 122),
        (Format::Anthropic, 120),
        (Format::Responses, 152),
    ] {
        let file = write_body("b", "test", &messages, format)?;
        assert_eq!(rehydrate_formats::detect(file.bytes()), Some(format));
        assert_eq!(file.message_count(), body_message_count(&messages, format));
        assert_eq!(file.warning_count(), 0);
        assert_eq!(
            parse_typed(format, file.bytes())?.len(),
            records,
            "{format}"
        );
    }
    let err = write_body("c", "test", &messages, Format::ClaudeCode).err();
    assert_eq!(
        err.map(|e| e.to_string()),
        Some("c: rehydrate_formats writes no claude-code file".to_owned())
    );
    Ok(())
}

#[test]
fn largest_file_is_found_by_size_then_path() -> Result<(), Box<dyn std::error::Error>> {
    let dir = scratch("largest");
    let sub = dir.join("codex").join("a");
    std::fs::create_dir_all(&sub)?;
    std::fs::write(sub.join("x.jsonl"), "12345")?;
    std::fs::write(sub.join("y.jsonl"), "12345")?;
    std::fs::write(sub.join("z.jsonl"), "123")?;
    std::fs::write(sub.join("w.json"), "1234567")?;
    let found = largest_file(&dir, "codex", "jsonl")?;
    assert_eq!(
        found.map(|(path, shown)| (path.ends_with("a/x.jsonl"), shown)),
        Some((true, "codex/a/x.jsonl".to_owned()))
    );
    assert_eq!(largest_file(&dir, "swe-agent", "traj")?, None);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
