//! End-to-end tests of the `rehydrate` binary: the CLI contract, exit codes and bad input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod cost;
mod faults;
mod kill;
mod limits;
mod several;
mod trial;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name)
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rehydrate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rehydrate"))
        .args(args)
        .output()
        .unwrap()
}

/// The arguments of two `reduce --force` runs of `session` into `out`, the default preset's and
/// the aggressive one's, which write different directories: what the kill and fault tests
/// replace one with the other by.
fn replacing_reduces<'a>(session: &'a str, out: &'a str) -> [Vec<&'a str>; 2] {
    let default = vec!["reduce", "--no-tokens", "--force", session, "--out", out];
    let mut aggressive = default.clone();
    aggressive.splice(3..3, ["--preset", "aggressive"]);
    [default, aggressive]
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Every file below `dir` with its bytes, by its path relative to `dir`, sorted: what "left
/// as it was" and "the same outputs" compare.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.push((path.strip_prefix(dir).unwrap().to_path_buf(), bytes));
            }
        }
    }
    files.sort();
    files
}

/// Rewrites the directory's sidecar store with `edit` applied to its messages, framed and
/// checksummed correctly (a tamperer who knows the format): only the manifest and the
/// reductions' digests can tell.
fn reframe_store(dir: &Path, edit: impl FnOnce(&mut Vec<rehydrate::model::Message>)) {
    let path = dir.join("sidecar/session.rhyd");
    let (mut state, torn) = rehydrate::store::read_store(&path).unwrap();
    assert_eq!(torn, None);
    edit(&mut state.messages);
    let mut store = rehydrate::store::StoreWriter::new(Vec::new()).unwrap();
    for m in &state.messages {
        store.message(m).unwrap();
    }
    for r in &state.log.reductions {
        store.reduction(r).unwrap();
    }
    std::fs::write(&path, store.into_inner()).unwrap();
}

/// Replaces the first `from` in message `index`'s text with `to`.
fn edit_text(messages: &mut [rehydrate::model::Message], index: usize, from: &str, to: &str) {
    let Some(rehydrate::model::Content::Text(text)) = &mut messages[index].content else {
        panic!("message {index} has no text");
    };
    assert!(text.contains(from), "message {index} lacks {from:?}");
    *text = text.replacen(from, to, 1);
}

fn reduce_fixture(test: &str) -> (PathBuf, Value) {
    reduce_fixture_with(test, &[])
}

/// Reduces the CLI fixture into a fresh directory with `--json` and `extra` flags.
fn reduce_fixture_with(test: &str, extra: &[&str]) -> (PathBuf, Value) {
    let dir = scratch(test).join("out");
    let session = fixture("cli/build-session.json");
    let mut args = vec![
        "reduce",
        session.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = rehydrate(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (dir, serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn reduce_json_reports_the_contract_fields() {
    let (dir, report) = reduce_fixture("reduce_json");
    assert_eq!(report["format"], "openai");
    assert_eq!(report["messages"], 17);
    assert_eq!(report["verified"], true);
    assert_eq!(report["bytes_before"], 42798);
    assert_eq!(report["bytes_after"], 10355);
    assert!(report["tokens_after"].as_u64().unwrap() < report["tokens_before"].as_u64().unwrap());
    let kinds: Vec<(&str, u64, u64)> = report["reductions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap(),
                r["index"].as_u64().unwrap(),
                r["original_bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("tool-output", 3, 13168),
            ("tool-output", 5, 13950),
            ("duplicate", 7, 13168)
        ]
    );
    for name in [
        "view.json",
        "reductions.json",
        "sidecar/session.rhyd",
        "sidecar/manifest.json",
    ] {
        assert!(dir.join(name).is_file(), "{name}");
    }
}

#[test]
fn reduce_counts_o200k_tokens_per_message() {
    let (_, report) = reduce_fixture("reduce_tokens");
    // The README's figures: every message counted, each distinct wire form tokenized once.
    assert_eq!(report["tokens_before"], 16071);
    assert_eq!(report["tokens_after"], 3714);
}

#[test]
fn no_tokens_leaves_the_token_fields_null() {
    let (dir, report) = reduce_fixture_with("no_tokens", &["--no-tokens"]);
    let fields = report.as_object().unwrap();
    assert_eq!(fields["tokens_before"], Value::Null);
    assert_eq!(fields["tokens_after"], Value::Null);
    assert_eq!(report["bytes_before"], 42798);
    assert_eq!(report["bytes_after"], 10355);
    assert_eq!(report["reductions"].as_array().unwrap().len(), 3);
    // The directory is the same as with token counting.
    let (counted, _) = reduce_fixture("no_tokens_reference");
    for name in [
        "view.json",
        "reductions.json",
        "sidecar/session.rhyd",
        "sidecar/manifest.json",
    ] {
        assert_eq!(
            std::fs::read(dir.join(name)).unwrap(),
            std::fs::read(counted.join(name)).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn the_table_shows_a_dash_for_tokens_not_counted() {
    let dir = scratch("table").join("out");
    let session = fixture("cli/build-session.json");
    let (s, o) = (session.to_str().unwrap(), dir.to_str().unwrap());
    let counted = rehydrate(&["reduce", s, "--out", o]);
    assert_eq!(counted.status.code(), Some(0), "{}", stderr(&counted));
    assert_eq!(
        String::from_utf8(counted.stdout).unwrap(),
        format!(
            "{s} (openai) -> {o}
          messages       bytes    tokens
before          17       42798     16071
after           17       10355      3714
saved                    75.8%     76.9%
reductions: 3 (duplicate 1, tool-output 2), all verified
"
        )
    );
    let uncounted = rehydrate(&["reduce", s, "--out", o, "--no-tokens", "--force"]);
    assert_eq!(uncounted.status.code(), Some(0), "{}", stderr(&uncounted));
    assert_eq!(
        String::from_utf8(uncounted.stdout).unwrap(),
        format!(
            "{s} (openai) -> {o}
          messages       bytes    tokens
before          17       42798         -
after           17       10355         -
saved                    75.8%         -
reductions: 3 (duplicate 1, tool-output 2), all verified
"
        )
    );
}

#[test]
fn expand_prints_exact_bytes_and_ranges() {
    let (dir, report) = reduce_fixture("expand");
    let session: Value =
        serde_json::from_slice(&std::fs::read(fixture("cli/build-session.json")).unwrap()).unwrap();
    let original = session[5]["content"].as_str().unwrap();
    let id = report["reductions"][1]["id"].as_str().unwrap();
    let whole = rehydrate(&["expand", dir.to_str().unwrap(), id]);
    assert_eq!(whole.status.code(), Some(0));
    assert_eq!(whole.stdout, original.as_bytes());
    let ranged = rehydrate(&["expand", dir.to_str().unwrap(), id, "--range", "10..30"]);
    assert_eq!(ranged.stdout, &original.as_bytes()[10..30]);
    let clamped = rehydrate(&[
        "expand",
        dir.to_str().unwrap(),
        id,
        "--range",
        "13940..99999",
    ]);
    assert_eq!(clamped.stdout, &original.as_bytes()[13940..]);
}

#[test]
fn expand_errors_are_one_line_with_exit_2() {
    let (dir, report) = reduce_fixture("expand_errors");
    let d = dir.to_str().unwrap();
    let id = report["reductions"][0]["id"].as_str().unwrap();
    let unknown = rehydrate(&["expand", d, "r99.000000"]);
    assert_eq!(unknown.status.code(), Some(2));
    let ids: Vec<&str> = report["reductions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        stderr(&unknown),
        format!(
            "error: {d}: no reduction with id `r99.000000`; valid ids: {}\n",
            ids.join(", ")
        )
    );
    let beyond = rehydrate(&["expand", d, id, "--range", "20000..20001"]);
    assert_eq!(beyond.status.code(), Some(2));
    assert_eq!(
        stderr(&beyond),
        format!(
            "error: {d}: expand_reduction {id}: byte range start 20000 is beyond the original's 13168 bytes; expected start <= 13168\n"
        )
    );
    let malformed = rehydrate(&["expand", d, id, "--range", "5-9"]);
    assert_eq!(malformed.status.code(), Some(2));
    assert_eq!(
        stderr(&malformed),
        "error: invalid --range `5-9`: expected START..END with byte offsets, such as 0..4096\n"
    );
    assert!(malformed.stdout.is_empty());
}

#[test]
fn verify_passes_then_catches_tampering() {
    let (dir, _) = reduce_fixture("verify");
    let d = dir.to_str().unwrap();
    let ok = rehydrate(&["verify", d]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    assert_eq!(
        String::from_utf8(ok.stdout).unwrap(),
        "verified 3 reductions; the view inverts to the sidecar's 17 messages and is a valid OpenAI and Anthropic request body\n"
    );

    // Flip one byte of the sidecar store: its record checksum and the manifest both tell.
    let store = dir.join("sidecar/session.rhyd");
    let original = std::fs::read(&store).unwrap();
    let mut flipped = original.clone();
    flipped[100] ^= 1;
    std::fs::write(&store, &flipped).unwrap();
    let bad = rehydrate(&["verify", d]);
    assert_eq!(bad.status.code(), Some(1));
    let err = stderr(&bad);
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].contains("sidecar/session.rhyd: digest mismatch: manifest records"),
        "{err}"
    );
    assert!(
        lines[1].contains("is corrupt at byte 16: the record's payload fails its check"),
        "{err}"
    );
    std::fs::write(&store, &original).unwrap();

    // Change one hidden byte of a message in a well-framed store: the manifest and the
    // reduction digest both fail.
    reframe_store(&dir, |m| edit_text(m, 3, "crate-100", "crate-1O0"));
    let bad = rehydrate(&["verify", d]);
    assert_eq!(bad.status.code(), Some(1));
    let err = stderr(&bad);
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].contains("sidecar/session.rhyd: digest mismatch: manifest records"),
        "{err}"
    );
    assert!(lines[1].starts_with("error: reduction r0."), "{err}");
    assert!(
        lines[1].contains(": digest mismatch at message 3: expected "),
        "{err}"
    );
    // Expanding the tampered reduction is a verification failure, never other bytes.
    let id = lines[1].split(' ').nth(2).unwrap().trim_end_matches(':');
    let expand = rehydrate(&["expand", d, id]);
    assert_eq!(expand.status.code(), Some(1));
    assert!(expand.stdout.is_empty());
}

#[test]
fn verify_catches_a_tampered_log() {
    let (dir, _) = reduce_fixture("verify_log");
    let log = dir.join("reductions.json");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(
        &log,
        text.replacen(
            "\"span\": [\n          2006",
            "\"span\": [\n          2007",
            1,
        ),
    )
    .unwrap();
    let bad = rehydrate(&["verify", dir.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    let err = stderr(&bad);
    assert!(err.contains("reductions.json: digest mismatch"), "{err}");
    // The edited span no longer matches the stub's numbers.
    assert!(
        err.contains(": stub does not match its reduction: expected `[rehydrate:tool-output r0.b35021 | 9144 of 13168 bytes hidden (155 lines)"),
        "{err}"
    );
}

#[test]
fn bad_input_is_one_line_with_exit_2() {
    let dir = scratch("bad_input");
    let cases: [(&str, &[u8], &str); 3] = [
        (
            "truncated.json",
            b"[{\"role\":\"user\",\"content\":\"hi",
            "truncated.json",
        ),
        (
            "binary.json",
            b"[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]",
            "binary.json",
        ),
        ("notes.txt", b"just some notes\n", "notes.txt"),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = rehydrate(&[
            "reduce",
            path.to_str().unwrap(),
            "--out",
            dir.join("o").to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(expected),
            "{name}: {err}"
        );
        assert!(out.stdout.is_empty(), "{name}");
        assert!(!dir.join("o").exists(), "{name}: no output for bad input");
    }
    let missing = rehydrate(&["reduce", dir.join("absent.json").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).starts_with("error: cannot read "));
    let usage = rehydrate(&["reduce"]);
    assert_eq!(usage.status.code(), Some(2));
    let not_a_dir = rehydrate(&["verify", dir.join("absent").to_str().unwrap()]);
    assert_eq!(not_a_dir.status.code(), Some(2));
}

#[test]
fn inspect_json_counts_roles_and_tokens() {
    let session = fixture("cli/build-session.json");
    let out = rehydrate(&["inspect", session.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let counts: Vec<u64> = [
        "messages",
        "system",
        "user",
        "assistant",
        "tool",
        "observations",
        "tool_calls",
        "bytes",
    ]
    .iter()
    .map(|k| report[k].as_u64().unwrap())
    .collect();
    assert_eq!(counts, vec![17, 1, 2, 8, 6, 0, 6, 42798]);
    assert!(report["tokens"].as_u64().unwrap() > 10_000);
}

#[test]
fn policy_flags_override_the_preset() {
    let (dir, report) = reduce_fixture_with(
        "policy_flags",
        &[
            "--no-dedupe",
            "--protect",
            "0",
            "--clear-turns-older-than",
            "1",
        ],
    );
    let kinds: Vec<&str> = report["reductions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["turns-cleared"]);
    assert_eq!(report["reductions"][0]["index"], 1);
    let verify = rehydrate(&["verify", dir.to_str().unwrap()]);
    assert_eq!(verify.status.code(), Some(0), "{}", stderr(&verify));
}

#[test]
fn usage_errors_are_one_line() {
    for args in [
        &["reduce", "x.json", "--format", "foo"][..],
        &["expand", "d", "r0.000000", "--range"],
        &["frobnicate"],
    ] {
        let out = rehydrate(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.ends_with(" (see rehydrate --help)\n"),
            "{err}"
        );
    }
}

#[test]
fn policy_values_that_would_mislead_are_rejected() {
    let dir = scratch("policy_rejects");
    let session = fixture("cli/build-session.json");
    let s = session.to_str().unwrap();
    let out_dir = dir.join("o");
    let o = out_dir.to_str().unwrap();
    let zero = rehydrate(&["reduce", s, "--out", o, "--clear-turns-older-than", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert_eq!(
        stderr(&zero),
        "error: --clear-turns-older-than must be at least 1: clearing every turn would hide the current request\n"
    );
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "  \n").unwrap();
    let out = rehydrate(&[
        "reduce",
        s,
        "--out",
        o,
        "--clear-turns-older-than",
        "1",
        "--summary-file",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!("error: summary file {} is empty\n", empty.display())
    );
    assert!(!out_dir.exists());
}

#[test]
fn a_corrupt_output_file_is_a_verification_failure() {
    let (dir, _) = reduce_fixture("corrupt_log");
    std::fs::write(dir.join("reductions.json"), "{oops").unwrap();
    for args in [
        vec!["verify", dir.to_str().unwrap()],
        vec!["expand", dir.to_str().unwrap(), "r0.b35021"],
    ] {
        let out = rehydrate(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{err}");
        assert!(
            lines[0].contains("reductions.json: digest mismatch: manifest records"),
            "{err}"
        );
        assert!(
            lines[1].contains("reductions.json: key must be a string at line 1 column 2"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn inspect_says_whether_a_file_writes_back() {
    // A Codex rollout comes back byte for byte, Responses, Anthropic and OpenAI chat documents
    // as the same JSON value (written compact), and Claude Code has no writer. An OpenAI file
    // with a blank assistant message differs: every body leaves such a message out.
    let dir = scratch("writes_back");
    let blank = dir.join("blank.json");
    std::fs::write(
        &blank,
        r#"[{"role":"user","content":"hi"},{"role":"assistant","content":" "}]"#,
    )
    .unwrap();
    let cases = [
        (
            fixture("formats/codex/codex-apply-patch.jsonl"),
            "bytes",
            "byte for byte",
        ),
        (
            fixture("formats/responses/bare-array.json"),
            "value",
            "as the same JSON value",
        ),
        (
            fixture("formats/anthropic/body.json"),
            "value",
            "as the same JSON value",
        ),
        (
            fixture("formats/openai-object.json"),
            "value",
            "as the same JSON value",
        ),
        (
            blank,
            "differs",
            "no: written back, the session differs from the file",
        ),
        (
            fixture("formats/claude-code-session.jsonl"),
            "no-writer",
            "no writer for claude-code",
        ),
    ];
    for (path, token, text) in cases {
        let name = path.display();
        let out = rehydrate(&["inspect", path.to_str().unwrap(), "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["writes_back"], token, "{name}");
        let out = rehydrate(&["inspect", path.to_str().unwrap()]);
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.contains(&format!("\nwrites back   {text}\n")),
            "{name}: {stdout}"
        );
    }
}

#[test]
fn long_runs_of_one_character_are_counted() {
    let dir = scratch("long_run");
    let path = dir.join("run.json");
    let run = "A".repeat(1_000_000);
    std::fs::write(
        &path,
        serde_json::json!([{"role": "user", "content": run}]).to_string(),
    )
    .unwrap();
    let out = rehydrate(&["inspect", path.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["bytes"],
        1_000_000 + r#"{"role":"user","content":""}"#.len()
    );
    assert!(report["tokens"].as_u64().unwrap() > 1000);
}

#[test]
fn a_failed_stdout_write_is_an_error() {
    let (dir, _) = reduce_fixture("dev_full");
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // not on Linux: nothing to test
    };
    let out = Command::new(env!("CARGO_BIN_EXE_rehydrate"))
        .args(["expand", dir.to_str().unwrap(), "r0.b35021"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("error: cannot write to stdout: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn reduce_never_overwrites_its_input() {
    let dir = scratch("overwrite");
    let path = dir.join("view.json");
    std::fs::copy(fixture("cli/build-session.json"), &path).unwrap();
    let before = std::fs::read(&path).unwrap();
    let out = rehydrate(&[
        "reduce",
        path.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("would overwrite the session file"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // Nothing was written next to it, not even a temporary file.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["view.json"]);
}

#[test]
fn a_bad_session_is_reported_before_a_bad_policy() {
    let dir = scratch("error_order");
    let session = dir.join("truncated.json");
    std::fs::write(&session, b"[{\"role\":\"user\",\"content\":\"hi").unwrap();
    let out = rehydrate(&[
        "reduce",
        session.to_str().unwrap(),
        "--clear-turns-older-than",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("truncated.json") && err.contains("invalid JSON"),
        "{err}"
    );
    let fine = fixture("cli/build-session.json");
    let out = rehydrate(&[
        "reduce",
        fine.to_str().unwrap(),
        "--out",
        dir.join("o").to_str().unwrap(),
        "--clear-turns-older-than",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--clear-turns-older-than must be at least 1"));
    assert!(!dir.join("o").exists());
}

#[test]
fn search_finds_hidden_bytes_only() {
    let (dir, report) = reduce_fixture("search");
    let d = dir.to_str().unwrap();
    // `crate-100` is in the hidden middle of the first build output (r0), twice; the duplicate
    // of that output (r2) adds nothing of its own: its bytes are searched through r0.
    let id = report["reductions"][0]["id"].as_str().unwrap();
    let out = rehydrate(&["search", d, "crate-100", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["mode"], "regex");
    assert_eq!(result["total_matches"], 2);
    assert_eq!(result["truncated"], false);
    assert_eq!(result["unresolvable"], 0);
    for m in result["matches"].as_array().unwrap() {
        assert_eq!(m["reduction_id"], id);
        assert_eq!(m["kind"], "tool-output");
        let snippet = m["snippet"].as_str().unwrap();
        assert!(snippet.contains("Compiling crate-100 v0.0.2"), "{snippet}");
        assert!(snippet.len() <= 200);
    }

    // Case-sensitive literal: the upper-case query is not there.
    let out = rehydrate(&["search", d, "CRATE-100", "--literal", "--case-sensitive"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "0 matches (literal)\n"
    );
    // The human form names the reduction and indents the snippet.
    let out = rehydrate(&["search", d, "crate-100", "--literal"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!("2 matches (literal)\n{id} tool-output\n  ")),
        "{text}"
    );
    // What the view shows is never reported: the user's request, and the compiler error in
    // the visible tail of the build output (and of its duplicate).
    for visible in ["Find out why", "E0308"] {
        let out = rehydrate(&["search", d, visible]);
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "0 matches (regex)\n",
            "{visible}"
        );
    }
}

#[test]
fn search_errors_are_one_line_with_exit_2() {
    let (dir, _) = reduce_fixture("search_errors");
    let d = dir.to_str().unwrap();
    // Not a valid regex: a literal in auto mode, an error when --regex is asked for.
    let auto = rehydrate(&["search", d, "foo("]);
    assert_eq!(auto.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(auto.stdout).unwrap(),
        "0 matches (literal)\n"
    );
    for args in [
        vec!["search", d, "foo(", "--regex"],
        vec!["search", d, "   "],
        vec!["search", d, "x", "--regex", "--literal"],
    ] {
        let out = rehydrate(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn every_command_refuses_files_that_differ_from_the_manifest() {
    let (dir, report) = reduce_fixture("manifest_refused");
    let d = dir.to_str().unwrap();
    let id = report["reductions"][0]["id"].as_str().unwrap();
    // One letter changed in a well-framed store: only the manifest digest tells.
    reframe_store(&dir, |m| {
        edit_text(m, 3, "Compiling crate-050", "compiling crate-050");
    });
    for args in [
        vec!["verify", d],
        vec!["search", d, "error"],
        vec!["expand", d, id, "--range", "0..10"],
    ] {
        let out = rehydrate(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr(&out).contains("session.rhyd: digest mismatch"),
            "{args:?}"
        );
    }
}

#[test]
fn a_missing_argument_is_named() {
    let out = rehydrate(&["search", "some-dir"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: the following required arguments were not provided: <QUERY> (see rehydrate --help)\n"
    );
}

#[test]
fn search_output_never_drives_the_terminal() {
    let base = scratch("search_control");
    let session = base.join("session.json");
    let output =
        "plain line\n".repeat(50) + "\u{1b}[31mQ-MARK\r\u{1}\n" + &"plain line\n".repeat(50);
    let messages = serde_json::json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "sh", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": output},
    ]);
    std::fs::write(&session, messages.to_string()).unwrap();
    let dir = base.join("out");
    let d = dir.to_str().unwrap();
    let reduced = rehydrate(&[
        "reduce",
        session.to_str().unwrap(),
        "--out",
        d,
        "--preset",
        "aggressive",
        "--protect",
        "0",
        "--no-tokens",
    ]);
    assert_eq!(reduced.status.code(), Some(0), "{}", stderr(&reduced));
    let out = rehydrate(&["search", d, "q-mark", "--literal"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\\u{1b}[31mQ-MARK\\u{d}\\u{1}"), "{text}");
    assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
    // The JSON form escapes them as JSON does.
    let out = rehydrate(&["search", d, "q-mark", "--literal", "--json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        json["matches"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("\u{1b}[31mQ-MARK\r\u{1}")
    );
}

#[test]
fn a_missing_recorded_file_is_a_verification_failure() {
    let (dir, report) = reduce_fixture("missing_file");
    let d = dir.to_str().unwrap();
    let id = report["reductions"][0]["id"].as_str().unwrap();
    std::fs::remove_file(dir.join("reductions.json")).unwrap();
    for args in [
        vec!["verify", d],
        vec!["search", d, "x"],
        vec!["expand", d, id],
    ] {
        let out = rehydrate(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            stderr(&out),
            format!("error: {d}/reductions.json: missing, though the manifest records it\n"),
            "{args:?}"
        );
    }
}

#[test]
fn replay_json_reports_records_sorted_by_path_with_content() {
    let session = fixture("replay/claude-code-session.jsonl");
    let out = rehydrate(&["replay", session.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["format"], "claude-code");
    assert_eq!(report["messages"], 32);
    assert_eq!(
        report["paths"],
        serde_json::json!({"proven": 1, "retracted": 3, "inert": 2})
    );
    let content = "import os\n\ndef run():\n    print('hello, world')\n";
    assert_eq!(
        report["records"],
        serde_json::json!([{
            "path": "/project/src/app.py",
            "bytes": content.len(),
            "digest": blake3::hash(content.as_bytes()).to_hex().to_string(),
            "at": "2026-11-30T10:00:10Z",
            "index": 8,
            "content": content,
        }])
    );
    // The resumed session's repeated lines are reported once, on stderr.
    assert_eq!(
        stderr(&out).lines().count(),
        1,
        "unexpected warnings: {}",
        stderr(&out)
    );
}

#[test]
fn replay_table_lists_each_proven_path_once() {
    let dir = scratch("replay_table");
    let session = dir.join("s.json");
    // An OpenAI messages array has no tool-result details: nothing is proven.
    std::fs::write(
        &session,
        r#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#,
    )
    .unwrap();
    let out = rehydrate(&["replay", session.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "path      bytes  digest              index  at\n0 proven, 0 retracted, 0 inert\n"
    );
    let out = rehydrate(&["replay", dir.join("missing.jsonl").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.jsonl"), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1);
}

#[test]
fn replay_table_escapes_control_characters_of_session_paths() {
    let dir = scratch("replay_escapes");
    let session = dir.join("s.jsonl");
    let lines = [
        r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"go"}}"#,
        r#"{"type":"assistant","uuid":"u2","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/a\u001b[31m\nx","content":"v"}}]}}"#,
        r#"{"type":"user","uuid":"u3","parentUuid":"u2","timestamp":"t\r","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"toolUseResult":{"type":"create","filePath":"/a\u001b[31m\nx","content":"v"}}"#,
    ];
    std::fs::write(&session, lines.join("\n")).unwrap();
    let out = rehydrate(&["replay", session.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().nth(1).unwrap(),
        format!(
            "/a\\u{{1b}}[31m\\u{{a}}x          1  {}        2  t\\u{{d}}",
            &blake3::hash(b"v").to_hex()[..16]
        )
    );
    assert_eq!(text.lines().count(), 3);
}

#[test]
fn evidence_json_reports_turns_with_ranges_and_fails_loudly_over_the_limit() {
    let dir = scratch("evidence");
    let session = dir.join("s.json");
    std::fs::write(
        &session,
        r#"[{"role":"system","content":"be brief"},
            {"role":"user","content":"fix the build, key sk-ant-api03-abcdefghijklmnopqrstuv"},
            {"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"make\"}"}}]},
            {"role":"tool","tool_call_id":"c1","content":"error: missing ;"},
            {"role":"assistant","content":"Fixed the missing semicolon."},
            {"role":"user","content":"thanks"},
            {"role":"assistant","content":""}]"#,
    )
    .unwrap();
    let out = rehydrate(&["evidence", session.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["projection_version"], 2);
    assert_eq!(
        report["turns"],
        serde_json::json!([
            {"turn": 1, "seq_range": [1, 5], "user": ["fix the build, key [redacted:anthropic-api-key]"],
             "summaries": [], "assistant": "Fixed the missing semicolon.",
             "tools": [{"name": "bash", "ok": true}]},
            {"turn": 2, "seq_range": [6, 7], "user": ["thanks"], "summaries": [],
             "assistant": null, "tools": []}
        ])
    );
    assert_eq!(report["stats"]["events"], 8);
    assert_eq!(report["stats"]["secrets_redacted"], 1);
    let measured = report["stats"]["bytes_after"].as_u64().unwrap();

    // At the measured size it passes; one byte less is evidence-too-large, exit 3.
    let limit = measured.to_string();
    let out = rehydrate(&[
        "evidence",
        session.to_str().unwrap(),
        "--max-input-bytes",
        &limit,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let limit = (measured - 1).to_string();
    let out = rehydrate(&[
        "evidence",
        session.to_str().unwrap(),
        "--max-input-bytes",
        &limit,
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {}: evidence-too-large: the projected input is {measured} bytes, over the limit of {}\n",
            session.display(),
            measured - 1
        )
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn repair_truncates_a_torn_store_and_verify_then_passes() {
    let (dir, _) = reduce_fixture("repair");
    let d = dir.to_str().unwrap();
    let clean = rehydrate(&["repair", d]);
    assert_eq!(clean.status.code(), Some(0), "{}", stderr(&clean));
    let store = dir.join("sidecar/session.rhyd");
    let whole = std::fs::read(&store).unwrap();
    let verified =
        format!("{d}: verified: 3 reductions, the view inverts to the sidecar's 17 messages\n");
    assert_eq!(
        String::from_utf8(clean.stdout).unwrap(),
        format!("{d}: nothing to repair\n{verified}")
    );
    // A write cut short: half of a record appended after the last whole one.
    let mut torn = whole.clone();
    torn.extend_from_slice(&[7, 0, 0, 0, 1]);
    std::fs::write(&store, &torn).unwrap();
    let bad = rehydrate(&["verify", d]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains(&format!(
            "session.rhyd: digest mismatch: the manifest records {} bytes, the file has {} (not read); `rehydrate repair {d}` restores a store a write left longer",
            whole.len(),
            whole.len() + 5
        )),
        "{}",
        stderr(&bad)
    );
    let fixed = rehydrate(&["repair", d]);
    assert_eq!(fixed.status.code(), Some(0), "{}", stderr(&fixed));
    assert_eq!(
        String::from_utf8(fixed.stdout).unwrap(),
        format!(
            "{}: dropped a torn tail of 5 bytes at byte {} (the file ends inside a record's frame); kept 20 whole records\n{verified}",
            store.display(),
            whole.len()
        )
    );
    assert_eq!(std::fs::read(&store).unwrap(), whole);
    let ok = rehydrate(&["verify", d]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    // A corrupt store is not repaired.
    let mut corrupt = whole.clone();
    corrupt[40] ^= 1;
    std::fs::write(&store, &corrupt).unwrap();
    let refused = rehydrate(&["repair", d]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("is corrupt at byte 16"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(std::fs::read(&store).unwrap(), corrupt);
}

#[test]
fn export_inverts_every_reduction_in_each_form() {
    let (dir, _) = reduce_fixture("export");
    let d = dir.to_str().unwrap();
    let session: Value =
        serde_json::from_slice(&std::fs::read(fixture("cli/build-session.json")).unwrap()).unwrap();
    let originals = session.as_array().unwrap();
    // JSONL: the imported messages, one per line, no stub left.
    let jsonl = rehydrate(&["export", d, "--to", "jsonl"]);
    assert_eq!(jsonl.status.code(), Some(0), "{}", stderr(&jsonl));
    let text = String::from_utf8(jsonl.stdout).unwrap();
    assert_eq!(text.lines().count(), originals.len());
    assert!(!text.contains("[rehydrate:"));
    // OpenAI: the fixture is an OpenAI chat array, so it comes back in its own form, a bare
    // array, as the same JSON value.
    let openai = rehydrate(&["export", d, "--to", "openai"]);
    assert_eq!(openai.status.code(), Some(0), "{}", stderr(&openai));
    let body: Value = serde_json::from_slice(&openai.stdout).unwrap();
    assert_eq!(body, session);
    // Anthropic: alternating roles, tool results answering the calls.
    let anthropic = rehydrate(&["export", d, "--to", "anthropic"]);
    assert_eq!(anthropic.status.code(), Some(0), "{}", stderr(&anthropic));
    let body: Value = serde_json::from_slice(&anthropic.stdout).unwrap();
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert!(roles.windows(2).all(|w| w[0] != w[1]), "{roles:?}");
    assert!(!String::from_utf8_lossy(&anthropic.stdout).contains("[rehydrate:"));

    // A changed view: nothing is written, exit 1.
    let view = dir.join("view.json");
    let text = std::fs::read_to_string(&view).unwrap();
    std::fs::write(&view, text.replacen("bytes hidden", "bytes hidden!", 1)).unwrap();
    let bad = rehydrate(&["export", d, "--to", "jsonl"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(bad.stdout.is_empty());
}

#[test]
fn repair_of_a_damaged_directory_is_a_verification_failure() {
    let (dir, _) = reduce_fixture("repair_damaged");
    let d = dir.to_str().unwrap();
    let store = dir.join("sidecar/session.rhyd");
    let mut bytes = std::fs::read(&store).unwrap();
    bytes[0] = b'X';
    std::fs::write(&store, &bytes).unwrap();
    let out = rehydrate(&["repair", d]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is not a rehydrate session store"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(&store).unwrap();
    let out = rehydrate(&["repair", d]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("missing, though the manifest records it"));
}

/// Records the directory's store, as it is now, in the manifest (as `rehydrate repair` does),
/// so a store a host appended to is not refused as differing from the manifest.
fn record_store_in_manifest(dir: &Path) {
    let store = std::fs::read(dir.join("sidecar/session.rhyd")).unwrap();
    let manifest_path = dir.join("sidecar/manifest.json");
    let mut manifest: Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    manifest["files"]["sidecar/session.rhyd"] = serde_json::json!({
        "bytes": store.len(),
        "blake3": rehydrate::sidecar::content_digest(&store).to_string(),
    });
    std::fs::write(
        &manifest_path,
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
}

/// Appends to the directory's store as a host does (opened under its lock), then records it in
/// the manifest.
fn extend_store(dir: &Path, append: impl FnOnce(&mut rehydrate::store::SessionStore)) {
    let path = dir.join("sidecar/session.rhyd");
    let mut store =
        rehydrate::store::SessionStore::open(&path, rehydrate::store::SyncPolicy::Never).unwrap();
    append(&mut store);
    drop(store);
    record_store_in_manifest(dir);
}

/// The stub lines of the directory's reductions, in log order.
fn stub_lines(dir: &Path) -> Vec<String> {
    let log: rehydrate::model::ReductionLog =
        serde_json::from_slice(&std::fs::read(dir.join("reductions.json")).unwrap()).unwrap();
    log.reductions.into_iter().map(|r| r.stub).collect()
}

/// A well-formed stub line for an id the store never minted.
fn unminted_stub(ordinal: usize) -> String {
    let id: rehydrate::model::ReductionId = format!("r{ordinal}.abcdef").parse().unwrap();
    rehydrate::model::Stub::render_line(
        rehydrate::model::StubKind::ToolOutput,
        &id,
        "90 of 100 bytes hidden (3 lines); expand_reduction restores them",
    )
    .unwrap()
}

fn signals_json(dir: &Path) -> (Option<i32>, Value, String) {
    let out = rehydrate(&["signals", dir.to_str().unwrap(), "--json"]);
    let report =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    (out.status.code(), report, stderr(&out))
}

#[test]
fn signals_of_a_reduced_directory_continue() {
    let (dir, _) = reduce_fixture("signals_continue");
    let (code, report, err) = signals_json(&dir);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err, "");
    assert_eq!(report["decision"], "continue");
    assert_eq!(report["signal_1"], false);
    assert_eq!(report["signal_2"], false);
    assert_eq!(report["reasons"], serde_json::json!([]));
    let signals = &report["signals"];
    assert_eq!(signals["epoch"], Value::Null);
    assert_eq!(signals["cited"], serde_json::json!([]));
    assert_eq!(signals["resolvable"].as_array().unwrap().len(), 3);
    assert_eq!(signals["misses"], 0);

    let out = rehydrate(&["signals", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\nepoch             - (no summary)\n"),
        "{text}"
    );
    assert!(text.contains("\nresolvable        3 ids\n"), "{text}");
    assert!(text.ends_with("\ndecision          continue\n"), "{text}");
}

#[test]
fn signals_widen_on_a_never_minted_citation_and_freeze_when_citations_grow() {
    let (dir, _) = reduce_fixture("signals_widen_freeze");
    let stubs = stub_lines(&dir);
    // Epoch 0 cites a minted reduction and an id the store never minted.
    extend_store(&dir, |store| {
        let text = format!("So far: built it.\n{}\n{}\n", stubs[0], unminted_stub(99));
        store.record_summary(&text, &[]).unwrap();
    });
    let (code, report, err) = signals_json(&dir);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(report["decision"], "widen_retention");
    assert_eq!(report["signal_1"], false);
    assert_eq!(report["signal_2"], false);
    assert_eq!(report["signals"]["epoch"], 0);
    assert_eq!(
        report["signals"]["dangling"],
        serde_json::json!({"0": ["r99.abcdef"]})
    );
    assert_eq!(
        report["reasons"],
        serde_json::json!([
            "active summaries cite 2 distinct ids, the store resolves 3, 1 cited id does not resolve (r99.abcdef)"
        ])
    );

    // Epoch 1 replaces it and cites more ids it never saw minted: references per summary grow.
    extend_store(&dir, |store| {
        let text = format!(
            "So far: built and tested it.\n{}\n{}\n{}\n",
            stubs[1],
            unminted_stub(99),
            unminted_stub(100)
        );
        store.record_summary(&text, &[0]).unwrap();
    });
    let (code, report, err) = signals_json(&dir);
    assert_eq!(code, Some(4), "{err}");
    assert_eq!(report["decision"], "freeze");
    assert_eq!(report["signal_2"], true);
    assert_eq!(
        report["signals"]["refs_per_summary"],
        serde_json::json!([2.0, 3.0])
    );
    let reasons = report["reasons"].as_array().unwrap();
    assert_eq!(reasons[0], rehydrate::signals::GROWING_CITATIONS);
    // stdout carries the report; stderr one line naming the freeze and why.
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(
        err.contains(": freeze: references-per-summary increased across compaction epochs;"),
        "{err}"
    );

    let out = rehydrate(&["signals", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\nepoch             1\n"), "{text}");
    assert!(
        text.contains("\nrefs per summary  3.00 (epoch before: 2.00)\n"),
        "{text}"
    );
    assert!(
        text.contains("\ndangling          2; epoch 1: r100.abcdef, r99.abcdef\n"),
        "{text}"
    );
    assert!(
        text.contains("\ndecision          freeze\nreason            references-per-summary"),
        "{text}"
    );
}

#[test]
fn signals_freeze_on_a_digest_failure_and_refuse_a_store_the_manifest_does_not_record() {
    let (dir, report) = reduce_fixture("signals_digest");
    let id = report["reductions"][1]["id"].as_str().unwrap().to_string();
    extend_store(&dir, |store| {
        store
            .record_miss(&id, rehydrate::store::MissReason::Digest)
            .unwrap();
    });
    let (code, report, err) = signals_json(&dir);
    assert_eq!(code, Some(4), "{err}");
    assert_eq!(report["decision"], "freeze");
    assert_eq!(
        report["signals"]["digest_failures"],
        serde_json::json!([id])
    );
    assert_eq!(report["signals"]["misses"], 1);
    assert_eq!(report["signals"]["resolvable"].as_array().unwrap().len(), 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("1 reduction failed its digest ({id})")),
        "{err}"
    );

    // A store appended to without the manifest recording it is refused, as by every command.
    let path = dir.join("sidecar/session.rhyd");
    let mut store =
        rehydrate::store::SessionStore::open(&path, rehydrate::store::SyncPolicy::Never).unwrap();
    store.record_summary("nothing cited", &[]).unwrap();
    drop(store);
    let out = rehydrate(&["signals", dir.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("sidecar/session.rhyd: digest mismatch"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn signals_of_a_store_with_epochs_out_of_order_is_a_verification_failure() {
    let (dir, _) = reduce_fixture("signals_invalid");
    let path = dir.join("sidecar/session.rhyd");
    let (state, _) = rehydrate::store::read_store(&path).unwrap();
    let mut store = rehydrate::store::StoreWriter::new(Vec::new()).unwrap();
    for m in &state.messages {
        store.message(m).unwrap();
    }
    for r in &state.log.reductions {
        store.reduction(r).unwrap();
    }
    for epoch in [1, 0] {
        store
            .summary(&rehydrate::store::SummaryRecord {
                epoch,
                text: format!("summary {epoch}"),
                retires: Vec::new(),
            })
            .unwrap();
    }
    std::fs::write(&path, store.into_inner()).unwrap();
    record_store_in_manifest(&dir);
    let out = rehydrate(&["signals", dir.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "sidecar/session.rhyd: compaction epochs out of order: summary 1 has epoch 0 after epoch 1"
        ),
        "{err}"
    );
}

#[test]
fn tools_prints_both_definitions_in_each_format() {
    for (args, name_of, schema_of) in [
        (&["tools"][..], "/function/name", "/function/parameters"),
        (
            &["tools", "--format", "openai"][..],
            "/function/name",
            "/function/parameters",
        ),
        (
            &["tools", "--format", "anthropic"][..],
            "/name",
            "/input_schema",
        ),
    ] {
        let out = rehydrate(args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(out.stderr.is_empty());
        let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
        let tools = tools.as_array().unwrap();
        let names: Vec<&str> = tools
            .iter()
            .map(|t| t.pointer(name_of).unwrap().as_str().unwrap())
            .collect();
        assert_eq!(names, ["expand_reduction", "sidecar_search"], "{args:?}");
        for t in tools {
            let schema = t.pointer(schema_of).unwrap();
            assert_eq!(
                schema["$schema"],
                "https://json-schema.org/draft/2020-12/schema"
            );
            assert_eq!(schema["type"], "object");
        }
    }
    let bad = rehydrate(&["tools", "--format", "gemini"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn call_answers_as_the_model_would_see_it() {
    let (dir, report) = reduce_fixture("call");
    let d = dir.to_str().unwrap();
    let id = report["reductions"][1]["id"].as_str().unwrap();

    // A whole expand: exactly what `rehydrate expand` prints.
    let args = format!(r#"{{"reduction_id":"{id}"}}"#);
    let whole = rehydrate(&["call", d, "expand_reduction", &args]);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    assert!(whole.stderr.is_empty());
    let expand = rehydrate(&["expand", d, id]);
    assert_eq!(expand.status.code(), Some(0));
    assert_eq!(whole.stdout, expand.stdout);

    // A ranged expand: the header line, then the bytes.
    let args = format!(r#"{{"reduction_id":"{id}","byte_range":[10,30]}}"#);
    let ranged = rehydrate(&["call", d, "expand_reduction", &args]);
    assert_eq!(ranged.status.code(), Some(0), "{}", stderr(&ranged));
    let mut want = format!("[{id}: bytes 10..30 of 13950]\n").into_bytes();
    want.extend_from_slice(&expand.stdout[10..30]);
    assert_eq!(ranged.stdout, want);

    // A malformed range is a tool error: its text on stdout naming the true size, exit 1,
    // nothing on stderr.
    let args = format!(r#"{{"reduction_id":"{id}","byte_range":[30,10]}}"#);
    let bad = rehydrate(&["call", d, "expand_reduction", &args]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(bad.stderr.is_empty(), "{}", stderr(&bad));
    let text = String::from_utf8(bad.stdout).unwrap();
    assert!(
        text.starts_with("Error: expand_reduction: malformed byte_range [30,10]"),
        "{text}"
    );
    assert!(text.contains("the original is 13950 bytes"), "{text}");

    // Unknown tools and bad JSON are tool errors too.
    for (tool, args) in [("rm_rf", "{}"), ("sidecar_search", "not json")] {
        let out = rehydrate(&["call", d, tool, args]);
        assert_eq!(out.status.code(), Some(1), "{tool}");
        assert!(out.stderr.is_empty());
        assert!(out.stdout.starts_with(b"Error: "), "{tool}");
    }

    // A search: the compact JSON `rehydrate search --json` prints, without its line break.
    let found = rehydrate(&[
        "call",
        d,
        "sidecar_search",
        r#"{"query":"crate-100","mode":"literal"}"#,
    ]);
    assert_eq!(found.status.code(), Some(0), "{}", stderr(&found));
    let result: Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(result["mode"], "literal");
    assert_eq!(result["total_matches"], 2);
    let first = report["reductions"][0]["id"].as_str().unwrap();
    for m in result["matches"].as_array().unwrap() {
        assert_eq!(m["reduction_id"], first);
    }
    let cli = rehydrate(&["search", d, "crate-100", "--literal", "--json"]);
    assert_eq!([found.stdout.as_slice(), b"\n"].concat(), cli.stdout);

    // A directory whose files differ from the manifest is refused as for `expand`: a
    // verification failure on stderr, nothing on stdout.
    reframe_store(&dir, |m| {
        edit_text(m, 3, "Compiling crate-050", "compiling crate-050");
    });
    let args = format!(r#"{{"reduction_id":"{id}"}}"#);
    let refused = rehydrate(&["call", d, "expand_reduction", &args]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(refused.stdout.is_empty());
    assert!(stderr(&refused).contains("session.rhyd: digest mismatch"));

    // A directory that is not one is bad input, as for `expand`.
    let missing = rehydrate(&["call", "/nonexistent-dir", "expand_reduction", "{}"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(missing.stdout.is_empty());
}

/// The kinds and sidecar indices of the pairing repairs the defects fixture needs, in log
/// order: a call the person interrupted, a result written after a summary, the same result
/// twice, a result whose call is gone, and a call still running when the file ends.
const DEFECT_REPAIRS: [(&str, u64, &str); 5] = [
    ("unanswered-call", 2, "t1"),
    ("moved-result", 6, "b1"),
    ("second-answer", 7, "b1"),
    ("orphan-result", 8, "gone"),
    ("unanswered-call", 10, "d1"),
];

#[test]
fn export_repairs_a_defective_session_into_valid_bodies() {
    let dir = scratch("export_defects").join("out");
    let d = dir.to_str().unwrap();
    let session = fixture("cli/defects-session.json");
    let reduced = rehydrate(&["reduce", session.to_str().unwrap(), "--out", d, "--json"]);
    assert_eq!(reduced.status.code(), Some(0), "{}", stderr(&reduced));
    let report: Value = serde_json::from_slice(&reduced.stdout).unwrap();
    let kinds: Vec<&str> = report["reductions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, DEFECT_REPAIRS.map(|(kind, _, _)| kind));

    // The inverted session, repaired: the same repairs, listed on stderr one line each.
    let json = rehydrate(&["export", d, "--to", "openai", "--json"]);
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let listed: Value = serde_json::from_slice(&json.stderr).unwrap();
    let repairs = listed["repairs"].as_array().unwrap();
    let got: Vec<(&str, u64, &str)> = repairs
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap(),
                r["index"].as_u64().unwrap(),
                r["call_id"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, DEFECT_REPAIRS);
    for api in ["openai", "anthropic"] {
        let out = rehydrate(&["export", d, "--to", api]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let lines: Vec<String> = repairs
            .iter()
            .map(|r| {
                format!(
                    "repaired: message {}: {} {} (tool call {})",
                    r["index"],
                    r["kind"].as_str().unwrap(),
                    r["id"].as_str().unwrap(),
                    r["call_id"].as_str().unwrap()
                )
            })
            .collect();
        let stderr_lines: Vec<&str> = std::str::from_utf8(&out.stderr)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("repaired: "))
            .collect();
        assert_eq!(stderr_lines, lines, "{api}");
        // Every call answered right after it: the synthetic results say the calls got none.
        let body = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            body.matches("[rehydrate:unanswered-call ").count(),
            2,
            "{api}"
        );
        assert_eq!(
            body.matches("[rehydrate:").count(),
            4,
            "{api}: two hidden results too"
        );
        // The view as a body: the reduced view, stubs included, also valid.
        let view = rehydrate(&["export", d, "--to", api, "--view"]);
        assert_eq!(view.status.code(), Some(0), "{}", stderr(&view));
        assert!(view.stderr.is_empty());
        let _: Value = serde_json::from_slice(&view.stdout).unwrap();
    }

    // --strict keeps the refusal: exit 2, one line naming the message and the call.
    let strict = rehydrate(&["export", d, "--to", "anthropic", "--strict"]);
    assert_eq!(strict.status.code(), Some(2));
    assert!(strict.stdout.is_empty());
    assert_eq!(
        stderr(&strict),
        format!("error: {d}: message 2: tool call t1 has no tool result right after it\n")
    );
    // --view writes what a model is sent, never JSONL.
    let usage = rehydrate(&["export", d, "--to", "jsonl", "--view"]);
    assert_eq!(usage.status.code(), Some(2));
    assert_eq!(
        stderr(&usage),
        "error: --view writes what a model is sent: use --to openai, anthropic, responses or codex (jsonl is the lossless record of the session)\n"
    );
    // A hidden result is searched and expanded like any reduction.
    let search = rehydrate(&["search", d, "compaction dropped", "--json"]);
    assert_eq!(search.status.code(), Some(0), "{}", stderr(&search));
    let found: Value = serde_json::from_slice(&search.stdout).unwrap();
    assert_eq!(found["total_matches"], 1);
    let orphan = repairs[3]["id"].as_str().unwrap();
    assert_eq!(found["matches"][0]["reduction_id"], orphan);
    let expanded = rehydrate(&["expand", d, orphan]);
    assert_eq!(
        String::from_utf8(expanded.stdout).unwrap(),
        "--- message 8 tool tool_call_id=gone ---\noutput of a call the agent's compaction dropped\n"
    );
    // JSONL is the session as recorded, every defect included.
    let jsonl = rehydrate(&["export", d, "--to", "jsonl"]);
    assert_eq!(jsonl.status.code(), Some(0));
    assert_eq!(String::from_utf8(jsonl.stdout).unwrap().lines().count(), 11);

    // The repaired export reuses the directory's repairs: every stub it carries resolves there.
    let reduce_ids: Vec<&str> = report["reductions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let export_ids: Vec<&str> = repairs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(export_ids, reduce_ids);
    assert!(repairs.iter().all(|r| r["in_log"] == true));
    // --json reports for every form: none for --strict, the view's own for --view.
    let strict = rehydrate(&["export", d, "--to", "openai", "--strict", "--json"]);
    assert_eq!(strict.status.code(), Some(2));
    let view = rehydrate(&["export", d, "--to", "openai", "--view", "--json"]);
    let listed: Value = serde_json::from_slice(&view.stderr).unwrap();
    assert_eq!(listed["view"], true);
    assert_eq!(listed["repairs"].as_array().unwrap().len(), 5);

    // A view whose synthetic result was deleted (the manifest sealed again) still inverts,
    // but is no valid request body: verify fails and says why.
    let view_path = dir.join("view.json");
    let mut messages: Vec<Value> =
        serde_json::from_slice(&std::fs::read(&view_path).unwrap()).unwrap();
    let synthetic = messages
        .iter()
        .position(|m| {
            m["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("[rehydrate:unanswered-call"))
        })
        .unwrap();
    messages.remove(synthetic);
    std::fs::write(&view_path, serde_json::to_vec(&messages).unwrap()).unwrap();
    reseal(&dir, "view.json");
    let verify = rehydrate(&["verify", d]);
    assert_eq!(verify.status.code(), Some(1), "{}", stderr(&verify));
    let lines: Vec<String> = stderr(&verify).lines().map(str::to_string).collect();
    assert!(
        lines.iter().any(|l| l.contains(
            "view.json is not a valid openai request body: message 2 (unanswered-call): tool call t1 has no tool result right after it"
        )),
        "{lines:?}"
    );
}

/// Writes the size and blake3 of `file` into the directory's manifest, as a tamperer who
/// knows the format would.
fn reseal(dir: &Path, file: &str) {
    let manifest_path = dir.join("sidecar/manifest.json");
    let mut manifest: Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    let bytes = std::fs::read(dir.join(file)).unwrap();
    manifest["files"][file] = serde_json::json!({
        "bytes": bytes.len(),
        "blake3": blake3::hash(&bytes).to_hex().to_string(),
    });
    std::fs::write(
        &manifest_path,
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
}

#[test]
fn session_text_in_repairs_warnings_and_errors_is_escaped() {
    let dir = scratch("escaped_ids");
    let session = dir.join("session.json");
    let id = "\u{1b}[31mred\nrepaired: fake";
    let messages = serde_json::json!([
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": id, "content": "r"},
    ]);
    std::fs::write(&session, serde_json::to_vec(&messages).unwrap()).unwrap();
    let out = dir.join("out");
    let (s, o) = (session.to_str().unwrap(), out.to_str().unwrap());
    let reduced = rehydrate(&["reduce", s, "--out", o, "--no-tokens"]);
    assert_eq!(reduced.status.code(), Some(0), "{}", stderr(&reduced));
    let warning = stderr(&reduced);
    assert!(
        warning.contains("tool result \\u{1b}[31mred\\u{a}repaired: fake has no tool call"),
        "{warning}"
    );
    let exported = rehydrate(&["export", o, "--to", "openai"]);
    assert_eq!(exported.status.code(), Some(0), "{}", stderr(&exported));
    let lines: Vec<String> = stderr(&exported).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("repaired: message 1: orphan-result r0.")
            && lines[0].ends_with(" (tool call \\u{1b}[31mred\\u{a}repaired: fake)"),
        "{lines:?}"
    );
    let strict = rehydrate(&["export", o, "--to", "openai", "--strict"]);
    assert_eq!(strict.status.code(), Some(2));
    assert_eq!(stderr(&strict).lines().count(), 1, "{}", stderr(&strict));
}

#[test]
fn verify_says_when_a_view_has_nothing_to_send() {
    let dir = scratch("nothing_to_send");
    let session = dir.join("session.json");
    std::fs::write(&session, br#"[{"role":"system","content":"be brief"}]"#).unwrap();
    let out = dir.join("out");
    let (s, o) = (session.to_str().unwrap(), out.to_str().unwrap());
    let reduced = rehydrate(&["reduce", s, "--out", o, "--no-tokens"]);
    assert_eq!(reduced.status.code(), Some(0), "{}", stderr(&reduced));
    assert_eq!(
        stderr(&reduced),
        format!(
            "warning: {s}: the session holds only system text: its view is no valid Anthropic request body (no pairing repair covers it)\n"
        )
    );
    let verify = rehydrate(&["verify", o]);
    assert_eq!(verify.status.code(), Some(0), "{}", stderr(&verify));
    assert_eq!(
        String::from_utf8(verify.stdout).unwrap(),
        "verified 0 reductions; the view inverts to the sidecar's 1 messages and is a valid OpenAI request body, and holds no message an Anthropic body could carry besides the system text\n"
    );
    let body = rehydrate(&["export", o, "--to", "anthropic", "--view"]);
    assert_eq!(body.status.code(), Some(2));
}

/// `savings_by_kind` of a `reduce --json` report, checked to add up to the report's savings.
fn savings_add_up(report: &Value) -> Vec<(String, u64, i64, Option<i64>)> {
    let savings = report["savings_by_kind"].as_object().unwrap();
    let rows: Vec<(String, u64, i64, Option<i64>)> = savings
        .iter()
        .map(|(kind, s)| {
            (
                kind.clone(),
                s["shown"].as_u64().unwrap(),
                s["bytes"].as_i64().unwrap(),
                s["tokens"].as_i64(),
            )
        })
        .collect();
    let bytes: i64 = rows.iter().map(|r| r.2).sum();
    let before = report["bytes_before"].as_i64().unwrap();
    assert_eq!(bytes, before - report["bytes_after"].as_i64().unwrap());
    if let (Some(before), Some(after)) = (
        report["tokens_before"].as_i64(),
        report["tokens_after"].as_i64(),
    ) {
        assert_eq!(
            rows.iter().map(|r| r.3.unwrap()).sum::<i64>(),
            before - after
        );
    } else {
        assert!(rows.iter().all(|r| r.3.is_none()));
    }
    rows
}

#[test]
fn savings_by_kind_add_up_to_the_views_savings() {
    let (_, report) = reduce_fixture("savings");
    assert_eq!(
        savings_add_up(&report),
        [
            ("duplicate".to_string(), 1, 13304, Some(5099)),
            ("tool-output".to_string(), 2, 19139, Some(7258)),
        ]
    );
    let (_, cleared) = reduce_fixture_with(
        "savings_cleared",
        &["--clear-turns-older-than", "1", "--no-tokens"],
    );
    let rows = savings_add_up(&cleared);
    assert_eq!(
        rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["turns-cleared"]
    );
    // A repair that adds a message costs its bytes: the defects fixture's unanswered call.
    let dir = scratch("savings_defects").join("out");
    let session = fixture("cli/defects-session.json");
    let out = rehydrate(&[
        "reduce",
        session.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let defects: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = savings_add_up(&defects);
    assert!(
        rows.iter().any(|r| r.0 == "unanswered-call" && r.2 < 0),
        "{rows:?}"
    );
}

/// Issue 19's round trip: each new format reduced into a directory and exported back to
/// itself gives the input (byte for byte for a Codex rollout, the same JSON value for the
/// documents), and across formats the export is a body its API accepts.
#[test]
fn export_gives_an_unreduced_import_back_in_its_own_format_and_crosses_formats() {
    let base = scratch("export_round_trip");
    for (file, to, exact) in [
        ("formats/codex/codex-session.jsonl", "codex", true),
        ("formats/codex/codex-apply-patch.jsonl", "codex", true),
        ("formats/responses/object.json", "responses", false),
        ("formats/anthropic/body.json", "anthropic", false),
    ] {
        let input = std::fs::read(fixture(file)).unwrap();
        let dir = base.join(to).join(file.replace('/', "_"));
        let d = dir.to_str().unwrap();
        let path = fixture(file);
        let reduced = rehydrate(&["reduce", path.to_str().unwrap(), "--out", d]);
        assert_eq!(
            reduced.status.code(),
            Some(0),
            "{file}: {}",
            stderr(&reduced)
        );
        let back = rehydrate(&["export", d, "--to", to]);
        assert_eq!(back.status.code(), Some(0), "{file}: {}", stderr(&back));
        if exact {
            assert_eq!(
                String::from_utf8(back.stdout).unwrap(),
                String::from_utf8(input).unwrap(),
                "{file}"
            );
        } else {
            let want: Value = serde_json::from_slice(&input).unwrap();
            let got: Value = serde_json::from_slice(&back.stdout).unwrap();
            assert_eq!(got, want, "{file}");
        }
        for other in ["openai", "anthropic", "responses"] {
            let crossed = rehydrate(&["export", d, "--to", other, "--strict"]);
            assert_eq!(
                crossed.status.code(),
                Some(0),
                "{file} to {other}: {}",
                stderr(&crossed)
            );
            let _: Value = serde_json::from_slice(&crossed.stdout).unwrap();
        }
    }
}
