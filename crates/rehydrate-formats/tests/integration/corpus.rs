//! Every Claude Code, SWE-agent, Codex, Gemini CLI and OpenHands session of the shared corpus
//! imports without error.
//!
//! The corpus lives outside the repository: `REHYDRATE_CORPUS`, or `shared/corpus` next to the
//! workspace. When it is absent the test says so and passes.

use std::collections::HashSet;

use rehydrate_formats::{Format, Import, detect, import, import_session, list_sessions};
use rehydrate_model::Role;
use rehydrate_test_support::corpus_sessions;

/// Figures of one imported session.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    messages: usize,
    user: usize,
    assistant: usize,
    tool: usize,
    observations: usize,
    tool_calls: usize,
    warnings: usize,
}

fn counts(import: &Import) -> Counts {
    let mut c = Counts {
        messages: import.messages.len(),
        warnings: import.warnings.len(),
        ..Counts::default()
    };
    for m in &import.messages {
        match m.role {
            Role::User => c.user += 1,
            Role::Assistant => c.assistant += 1,
            Role::Tool => c.tool += 1,
            Role::System => {}
        }
        c.observations += usize::from(m.observation);
        c.tool_calls += m.tool_calls.len();
    }
    c
}

/// Every tool message names a tool call of an earlier assistant message, unless a warning
/// reports it.
fn check_links(name: &str, import: &Import) {
    let warned: Vec<String> = import.warnings.iter().map(|w| w.message.clone()).collect();
    let mut calls: HashSet<&str> = HashSet::new();
    for (i, m) in import.messages.iter().enumerate() {
        calls.extend(m.tool_calls.iter().map(|c| c.id.as_str()));
        if m.role != Role::Tool {
            continue;
        }
        match &m.tool_call_id {
            Some(id) if calls.contains(id.as_str()) => {}
            Some(id) => assert!(
                warned
                    .iter()
                    .any(|w| w.contains(&format!("tool result {id} has no tool call"))),
                "{name}: message {i}: tool result {id} answers no earlier call and was not warned"
            ),
            None => assert!(
                warned.iter().any(|w| w.contains("tool_use_id")),
                "{name}: message {i}: tool result without id was not warned"
            ),
        }
    }
}

/// Messages, user, assistant, tool messages, tool calls, warnings.
type Figures = (usize, usize, usize, usize, usize, usize);

/// Expected figures of each OpenHands corpus session (file suffix, session number): messages,
/// user, assistant, tool messages, tool calls, warnings. Counted from the raw events: a system
/// message per `system` action, a user message per user `message` action and per `error`
/// observation without a cause, an assistant message per tool action (none of these record
/// parallel calls) and per agent `message` or `finish`, a tool message per caused observation;
/// one warning for the recall events and one per uncaused error.
const OPENHANDS_EXPECTED: [(&str, usize, Figures); 8] = [
    ("trajs/basic.json", 1, (4, 1, 2, 1, 1, 0)),
    ("trajs/basic_interactions.json", 1, (6, 3, 3, 0, 0, 0)),
    ("trajs/wrong_initial_state.json", 1, (8, 1, 4, 3, 3, 0)),
    (
        "multi_swe_bench/examples/output.jsonl",
        1,
        (47, 1, 23, 22, 22, 1),
    ),
    (
        "multi_swe_bench/examples/output.jsonl",
        2,
        (68, 2, 33, 32, 32, 2),
    ),
    (
        "multi_swe_bench/examples/output.jsonl",
        3,
        (101, 2, 49, 49, 49, 2),
    ),
    ("resolver/mock_output/output.jsonl", 1, (8, 1, 4, 3, 3, 0)),
    (
        "resolver/mock_output/output.jsonl",
        2,
        (44, 1, 22, 21, 21, 0),
    ),
];

/// Expected totals over every session of each Aider corpus file (by file name): sessions,
/// messages, user messages that are not observations, observations, assistant messages,
/// observations with replay details (one per output block with an `Applied edit to` line),
/// sessions without messages (each warned). Counted by a separate reading of the raw files:
/// sessions split at the headers (the lines before the first are one unless blank or a mode
/// line), `#### ` runs (an input; a slash command other than `/ask`, `/code`, `/architect`
/// and `/context` with a text, or a `!` shell command, is an observation, merged with the
/// output block that follows),
/// `> ` blocks (blank lines inside kept), and the runs of other lines.
const AIDER_EXPECTED: [(&str, [usize; 7]); 11] = [
    ("2048-game.md", [1, 10, 3, 3, 4, 1, 0]),
    ("add-test.md", [1, 8, 1, 5, 2, 2, 0]),
    ("asciinema.md", [1, 4, 1, 2, 1, 1, 0]),
    ("chat-transcript-css.md", [1, 35, 11, 13, 11, 9, 0]),
    ("css-exercises.md", [1, 12, 3, 4, 5, 1, 0]),
    ("hello-world-flask.md", [1, 13, 4, 5, 4, 4, 0]),
    ("hello.md", [1, 3, 1, 1, 1, 1, 0]),
    ("no-color.md", [1, 10, 2, 5, 3, 2, 0]),
    ("semantic-search-replace.md", [1, 4, 1, 2, 1, 1, 0]),
    ("update-docs.md", [1, 4, 1, 2, 1, 1, 0]),
    ("chat-history.md", [1134, 5313, 995, 3104, 1214, 394, 150]),
];

/// Imports every session of every Aider corpus file and checks the totals against
/// [`AIDER_EXPECTED`]; returns the files read and the files checked.
fn aider_corpus() -> (usize, usize) {
    let Some((_, paths)) = corpus_sessions(&[("aider", "md")], "aider corpus import check") else {
        return (0, 0);
    };
    let (mut files, mut matched) = (0, 0);
    for path in paths {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(detect(&bytes), Some(Format::Aider), "{name}");
        let (_, sessions) = list_sessions(&path, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
        let mut totals = [0usize; 7];
        let mut writes = 0;
        totals[0] = sessions.len();
        for s in &sessions {
            let import = import_session(&path, &bytes, None, Some(s.number))
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(import.format, Format::Aider, "{name}");
            let c = counts(&import);
            totals[1] += c.messages;
            totals[2] += c.user - c.observations;
            totals[3] += c.observations;
            totals[4] += c.assistant;
            totals[5] += import
                .messages
                .iter()
                .filter(|m| m.details.is_some())
                .count();
            totals[6] += usize::from(c.messages == 0);
            writes += import
                .messages
                .iter()
                .filter_map(|m| m.details.as_deref())
                .flat_map(|d| d.files())
                .filter(|d| matches!(d, rehydrate_model::ToolDetails::Write { .. }))
                .count();
            assert_eq!(
                c.tool + c.tool_calls,
                0,
                "{name}: Aider records no tool calls"
            );
        }
        println!(
            "{name}: {totals:?} (sessions, messages, user, observations, assistant, details, empty), {writes} writes"
        );
        if let Some((_, expected)) = AIDER_EXPECTED
            .iter()
            .find(|(file, _)| path.file_name().is_some_and(|f| f == *file))
        {
            assert_eq!(&totals, expected, "{name}");
            matched += 1;
        }
        files += 1;
    }
    (files, matched)
}

/// Expected figures per corpus file (matched by path suffix): messages, tool messages, tool
/// calls, warnings. Counted independently of this crate from the raw files (Claude Code: user
/// messages, runs of assistant lines sharing a `message.id`, `tool_use` and `tool_result` blocks
/// of the lines that are not sidechains, which in this corpus all lie on the main chain;
/// SWE-agent: `history` entries), and consistent with the corpus's SOURCES.md.
const EXPECTED: [(&str, usize, usize, usize, usize); 34] = [
    (
        "-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
        16,
        6,
        6,
        0,
    ),
    ("-tmp-private/agent-36541525.jsonl", 2, 0, 0, 0),
    ("-tmp-private/agent-50243ee8.jsonl", 2, 0, 0, 0),
    ("incremental-simple/turn-1.jsonl", 2, 0, 0, 0),
    ("incremental-simple/turn-2.jsonl", 12, 2, 2, 0),
    ("incremental-subagents/turn-1.jsonl", 14, 6, 7, 1),
    ("turn-1/subagents/agent-a485154.jsonl", 27, 20, 20, 0),
    ("incremental-subagents/turn-2.jsonl", 26, 14, 14, 0),
    ("turn-2/subagents/agent-a485154.jsonl", 27, 20, 20, 0),
    ("session-3fe1b6bc.jsonl", 156, 76, 76, 0),
    ("session-624a4a58.jsonl", 124, 48, 48, 0),
    ("session-9eda1058.jsonl", 12, 3, 3, 0),
    ("5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", 25, 13, 13, 0),
    ("fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl", 23, 11, 11, 0),
    ("sample_agent_sidechain.jsonl", 2, 0, 0, 0),
    ("sample_main_transcript.jsonl", 31, 10, 10, 0),
    ("6e44b9__sweagenttestrepo-1c2844.traj", 10, 4, 4, 0),
    ("swe-agent__test-repo-i1.traj", 12, 0, 0, 0),
    ("BabyEncryption.traj", 31, 0, 0, 0),
    ("BabyTimeCapsule.traj", 19, 0, 0, 0),
    ("eps.traj", 29, 0, 0, 0),
    ("flash.traj", 9, 0, 0, 0),
    ("networking_1.traj", 9, 0, 0, 0),
    ("warmup.traj", 15, 0, 0, 0),
    ("rock.traj", 25, 0, 0, 0),
    ("function_calling_simple.traj", 12, 5, 5, 0),
    ("humanevalfix-python-0.traj", 11, 0, 0, 0),
    (
        "c-2.00__install-1___install_from_source/marshmallow-code__marshmallow-1867.traj",
        29,
        0,
        0,
        0,
    ),
    (
        "default_sys-env_cursors_window100__t-0.20__p-0.95__c-2.00__install-1/marshmallow-code__marshmallow-1867.traj",
        25,
        0,
        0,
        0,
    ),
    (
        "default_sys-env_window100__t-0.20__p-0.95__c-2.00__install-1/marshmallow-code__marshmallow-1867.traj",
        23,
        0,
        0,
        0,
    ),
    (
        "function_calling__install-1/marshmallow-code__marshmallow-1867.traj",
        24,
        11,
        11,
        0,
    ),
    (
        "function_calling_replace__install-1/marshmallow-code__marshmallow-1867.traj",
        24,
        11,
        11,
        0,
    ),
    (
        "function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj",
        28,
        13,
        13,
        0,
    ),
    (
        "xml_sys-env_cursors_window100__t-0.20__p-0.95__c-2.00__install-1/marshmallow-code__marshmallow-1867.traj",
        25,
        0,
        0,
        0,
    ),
];

/// The Codex sample of the corpus (FORMATS-RESEARCH §1.1).
const CODEX_SAMPLE: &str = "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl";

/// Its figures, counted from the raw file with a separate script: messages (2 system: the base
/// instructions and the developer message; 3 user-role items, which both `user_message` events
/// repeat; 66 assistant messages, each a run of reasoning, text and calls of one step; 102
/// tool outputs, 99 function and 3 custom), user, assistant and tool messages, tool calls
/// (99 + 3) and warnings (none).
const CODEX_EXPECTED: (usize, usize, usize, usize, usize, usize) = (173, 3, 66, 102, 102, 0);

/// Checks `import` against the [`EXPECTED`] row whose suffix `name` ends with, if any; returns
/// whether a row matched.
fn check_expected(name: &str, c: &Counts) -> bool {
    let Some(&(_, messages, tool, tool_calls, warnings)) =
        EXPECTED.iter().find(|(suffix, ..)| name.ends_with(suffix))
    else {
        return false;
    };
    assert_eq!(
        (c.messages, c.tool, c.tool_calls, c.warnings),
        (messages, tool, tool_calls, warnings),
        "{name}: (messages, tool messages, tool calls, warnings)"
    );
    true
}

/// Files with a compact boundary flag the compact summary that follows it, once.
fn check_compaction(name: &str, import: &Import) {
    let flagged: Vec<_> = import
        .messages
        .iter()
        .filter(|m| m.metadata.contains_key("claude_code.compact_boundary"))
        .collect();
    if name.ends_with("session-624a4a58.jsonl") || name.ends_with("sample_main_transcript.jsonl") {
        assert_eq!(flagged.len(), 1, "{name}");
        assert_eq!(
            flagged[0]
                .metadata
                .get("claude_code.compact_summary")
                .map(String::as_str),
            Some("true"),
            "{name}"
        );
    } else {
        assert!(flagged.is_empty(), "{name}");
    }
}

#[test]
fn corpus_sessions_import() {
    let mut files = 0;
    let mut matched = 0;
    for (sub, format) in [
        ("claude-code", Format::ClaudeCode),
        ("swe-agent", Format::SweAgent),
    ] {
        let Some((dir, sessions)) =
            corpus_sessions(&[(sub, "jsonl"), (sub, "traj")], "corpus import check")
        else {
            continue;
        };
        for path in sessions {
            let name = path
                .strip_prefix(&dir)
                .unwrap_or(&path)
                .display()
                .to_string();
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(detect(&bytes), Some(format), "{name}");
            let import = import(&path, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(import.format, format, "{name}");
            assert!(!import.messages.is_empty(), "{name}: no messages");
            check_links(&name, &import);
            check_compaction(&name, &import);
            let c = counts(&import);
            matched += usize::from(check_expected(&name, &c));
            println!(
                "{name}: {} messages ({} user, {} observations, {} assistant, {} tool), {} tool calls, {} warnings",
                c.messages, c.user, c.observations, c.assistant, c.tool, c.tool_calls, c.warnings
            );
            for w in &import.warnings {
                println!("    {w}");
            }
            files += 1;
        }
    }
    for path in rehydrate_test_support::corpus_sessions(
        &[("gemini-cli", "json"), ("gemini-cli", "jsonl")],
        "gemini-cli corpus import check",
    )
    .map(|(_, sessions)| sessions)
    .unwrap_or_default()
    {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(detect(&bytes), Some(Format::GeminiCli), "{name}");
        let import = import(&path, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
        check_links(&name, &import);
        let c = counts(&import);
        if name.ends_with("session-2026-01-16T11-01-file-ops-37b7abef.json") {
            // 5 user and 9 gemini records; three gemini records hold 3, 2 and 2 rounds of
            // calls, so 13 assistant messages answer 14 calls.
            assert_eq!(
                (
                    c.messages,
                    c.user,
                    c.assistant,
                    c.tool,
                    c.tool_calls,
                    c.warnings
                ),
                (32, 5, 13, 14, 14, 3),
                "{name}"
            );
            matched += 1;
        }
        files += 1;
    }
    for path in rehydrate_test_support::corpus_sessions(
        &[("openhands", "json"), ("openhands", "jsonl")],
        "openhands corpus import check",
    )
    .map(|(_, sessions)| sessions)
    .unwrap_or_default()
    {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(detect(&bytes), Some(Format::OpenHands), "{name}");
        let (_, sessions) = list_sessions(&path, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
        for s in sessions {
            let import = import_session(&path, &bytes, None, Some(s.number))
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(import.format, Format::OpenHands, "{name}");
            check_links(&name, &import);
            let c = counts(&import);
            let figures = (
                c.messages,
                c.user,
                c.assistant,
                c.tool,
                c.tool_calls,
                c.warnings,
            );
            if let Some((_, _, expected)) = OPENHANDS_EXPECTED
                .iter()
                .find(|(suffix, n, _)| name.ends_with(suffix) && *n == s.number)
            {
                assert_eq!(
                    figures, *expected,
                    "{name} session {}: (messages, user, assistant, tool, tool calls, warnings)",
                    s.number
                );
                matched += 1;
            }
            files += 1;
        }
    }
    for path in
        rehydrate_test_support::corpus_sessions(&[("codex", "jsonl")], "codex corpus import check")
            .map(|(_, sessions)| sessions)
            .unwrap_or_default()
    {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(detect(&bytes), Some(Format::Codex), "{name}");
        let import = import(&path, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(import.format, Format::Codex, "{name}");
        check_links(&name, &import);
        let c = counts(&import);
        if name.ends_with(CODEX_SAMPLE) {
            assert_eq!(
                (
                    c.messages,
                    c.user,
                    c.assistant,
                    c.tool,
                    c.tool_calls,
                    c.warnings
                ),
                CODEX_EXPECTED,
                "{name}: (messages, user, assistant, tool, tool calls, warnings)"
            );
            matched += 1;
        }
        println!(
            "{name}: {} messages ({} user, {} assistant, {} tool), {} tool calls, {} warnings",
            c.messages, c.user, c.assistant, c.tool, c.tool_calls, c.warnings
        );
        for w in &import.warnings {
            println!("    {w}");
        }
        files += 1;
    }
    let (aider_files, aider_matched) = aider_corpus();
    files += aider_files;
    matched += aider_matched;
    println!("corpus: {files} files imported, {matched} checked against expected figures");
}
