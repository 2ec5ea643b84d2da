//! `rehydrate reduce` over several files and directories: the walk, where each output goes,
//! `--jobs`, the summary, `--json` and exit 5.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use super::{fixture, scratch, stderr, stdout, tree};

/// Runs the binary with `args` in the directory `dir` (so paths are short and exact).
fn rehydrate_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rehydrate"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// Writes `bytes` to `path`, making its parent directories.
fn put(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Copies the fixture `name` to `path`.
fn put_fixture(name: &str, path: &Path) {
    put(path, &std::fs::read(fixture(name)).unwrap());
}

/// The output directories below `dir` (each holds `sidecar/manifest.json`), relative, sorted.
fn outputs(dir: &Path) -> Vec<String> {
    let mut dirs: Vec<String> = tree(dir)
        .into_iter()
        .filter_map(|(path, _)| {
            let path = path.to_str().unwrap();
            path.strip_suffix("/sidecar/manifest.json")
                .map(str::to_string)
        })
        .collect();
    dirs.sort();
    dirs
}

/// The damaged session of these tests: an OpenAI array cut short.
const BROKEN: &[u8] = br#"[{"role":"user","content":"hi"#;

/// `in/` under `base`: two good sessions (`a.json`, `sub/b.json`), a damaged one
/// (`sub/broken.json`), a JSON file in no session format (`notes.json`), a file not named as
/// a session (`readme.txt`), an earlier output directory holding a session-named file, the
/// staging directory an interrupted run left beside it and a directory of ours under another
/// name (each holding a sidecar, not entered), and a link to a directory holding a session
/// (`linked`, not followed).
fn mixed_inputs(base: &Path) {
    let input = base.join("in");
    put_fixture("cli/build-session.json", &input.join("a.json"));
    put_fixture("cli/defects-session.json", &input.join("sub/b.json"));
    put(&input.join("sub/broken.json"), BROKEN);
    put(&input.join("notes.json"), br#"{"notes": "not a session"}"#);
    put(&input.join("readme.txt"), b"transcripts of the build\n");
    put_fixture(
        "cli/build-session.json",
        &input.join("old.json.rehydrate/view.json"),
    );
    // What an interrupted run leaves beside an output directory, and an output directory
    // under a name of the user's: never walked into.
    put_fixture(
        "cli/build-session.json",
        &input.join("old.json.rehydrate.staging/view.json"),
    );
    put(&input.join("old.json.rehydrate.staging/sidecar/lock"), b"");
    put_fixture("cli/build-session.json", &input.join("mine/view.json"));
    put(&input.join("mine/sidecar/lock"), b"");
    put_fixture("cli/build-session.json", &base.join("elsewhere/c.json"));
    std::os::unix::fs::symlink("../elsewhere", input.join("linked")).unwrap();
}

/// What `defects-session.json` warns of, named as `in/sub/b.json`.
const B_WARNINGS: &str = "warning: in/sub/b.json: [2]: tool call t1 has no tool result
warning: in/sub/b.json: [8]: tool result gone has no tool call
warning: in/sub/b.json: [10]: tool call d1 has no tool result
";

/// The error of `in/sub/broken.json`, as a single run gives it too.
const BROKEN_ERROR: &str =
    "error: in/sub/broken.json:1: invalid JSON: EOF while parsing a string at column 29\n";

#[test]
fn a_directory_reduces_each_session_and_a_bad_file_fails_alone() {
    let base = scratch("several_directory");
    mixed_inputs(&base);
    let out = rehydrate_in(&base, &["reduce", "in"]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "in/a.json (openai) -> in/a.json.rehydrate: 17 messages, 42798 -> 10355 bytes, 16071 -> 3714 tokens, 3 reductions
in/notes.json: skipped, in no session format rehydrate reads
in/sub/b.json (openai) -> in/sub/b.json.rehydrate: 11 messages, 888 -> 1526 bytes, 241 -> 420 tokens, 5 reductions
4 session files: 2 reduced, 1 skipped, 1 failed
          messages       bytes    tokens
before          28       43686     16312
after           30       11881      4134
saved                    72.8%     74.7%
failures: input-error 1
"
    );
    // stderr is a pipe here: the warnings and errors in input order, and no progress bar
    // (no carriage return, no escape sequence).
    assert_eq!(
        stderr(&out),
        format!("{B_WARNINGS}{BROKEN_ERROR}error: 1 of 4 session files failed\n")
    );
    assert!(!out.stderr.iter().any(|b| matches!(b, b'\r' | 0x1b)));
    // Two output directories, beside their sessions; nothing for the others, nothing in the
    // earlier output or through the link.
    assert_eq!(
        outputs(&base),
        ["in/a.json.rehydrate", "in/sub/b.json.rehydrate"]
    );
    assert!(
        !base
            .join("in/old.json.rehydrate/view.json.rehydrate")
            .exists()
    );
    assert!(!base.join("elsewhere/c.json.rehydrate").exists());
    let verified = rehydrate_in(&base, &["verify", "in/sub/b.json.rehydrate"]);
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));
    // The bad file's line is the one a single run prints.
    let single = rehydrate_in(&base, &["reduce", "in/sub/broken.json"]);
    assert_eq!(single.status.code(), Some(2));
    assert_eq!(stderr(&single), BROKEN_ERROR);
}

#[test]
fn jobs_change_neither_the_outputs_nor_stdout() {
    let base = scratch("several_jobs");
    let kinds = fixture("kinds");
    let mut sessions = 0;
    for entry in std::fs::read_dir(&kinds).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if [".jsonl", ".json", ".traj"]
            .iter()
            .any(|e| name.ends_with(e))
        {
            put_fixture(&format!("kinds/{name}"), &base.join("in/kinds").join(&name));
            sessions += 1;
        }
    }
    assert!(sessions > 10, "{sessions}");
    put_fixture("cli/build-session.json", &base.join("in/cli/deep/a.json"));
    put(&base.join("in/cli/broken.json"), BROKEN);
    let run = |jobs: &str| {
        let out = rehydrate_in(
            &base,
            &[
                "reduce",
                "in",
                "--preset",
                "aggressive",
                "--out",
                "out",
                "--jobs",
                jobs,
            ],
        );
        assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
        out
    };
    let one = run("1");
    std::fs::rename(base.join("out"), base.join("out-1")).unwrap();
    let three = run("3");
    assert_eq!(outputs(&base.join("out")).len(), sessions + 1);
    assert_eq!(tree(&base.join("out-1")), tree(&base.join("out")));
    assert_eq!(stdout(&one), stdout(&three));
    assert_eq!(stderr(&one), stderr(&three));
    assert!(
        stdout(&three).contains(&format!(
            "{} session files: {} reduced, 1 failed\n",
            sessions + 2,
            sessions + 1
        )),
        "{}",
        stdout(&three)
    );
}

#[test]
fn json_over_several_files_has_one_entry_each_and_a_summary() {
    let base = scratch("several_json");
    mixed_inputs(&base);
    let out = rehydrate_in(
        &base,
        &["reduce", "in", "--out", "out", "--json", "--no-tokens"],
    );
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!("{B_WARNINGS}{BROKEN_ERROR}error: 1 of 4 session files failed\n")
    );
    let text = stdout(&out);
    // One line; each reduced file's entry leads with its file.
    assert_eq!(text.lines().count(), 1);
    assert!(
        text.starts_with(r#"{"files":[{"file":"in/a.json","format":"openai","#),
        "{text}"
    );
    let report: Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&String> = report.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["files", "summary"]);
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 4);
    // A reduced file's entry is the single-file report with its file.
    let single = rehydrate_in(
        &base,
        &[
            "reduce",
            "in/a.json",
            "--out",
            "single",
            "--json",
            "--no-tokens",
        ],
    );
    assert_eq!(single.status.code(), Some(0), "{}", stderr(&single));
    let mut expected: Value = serde_json::from_slice(&single.stdout).unwrap();
    expected["file"] = json!("in/a.json");
    expected["out"] = json!("out/a.json.rehydrate");
    assert_eq!(files[0], expected);
    assert_eq!(
        files[1],
        json!({"file": "in/notes.json", "skipped": "unknown-format"})
    );
    assert_eq!(
        (&files[2]["file"], &files[2]["out"], &files[2]["messages"]),
        (
            &json!("in/sub/b.json"),
            &json!("out/sub/b.json.rehydrate"),
            &json!(11)
        )
    );
    assert_eq!(
        files[3],
        json!({
            "file": "in/sub/broken.json",
            "error": "in/sub/broken.json:1: invalid JSON: EOF while parsing a string at column 29",
            "reason": "input-error",
        })
    );
    assert_eq!(
        report["summary"],
        json!({
            "files": 4,
            "reduced": 2,
            "skipped": 1,
            "failed": 1,
            "messages": 28,
            "bytes_before": 43686,
            "bytes_after": 11881,
            "tokens_before": null,
            "tokens_after": null,
            "failures": {"input-error": 1},
        })
    );
}

#[test]
fn out_maps_each_session_below_its_argument_and_force_is_per_output() {
    let base = scratch("several_out");
    put_fixture("cli/build-session.json", &base.join("runs/x/y/s.json"));
    put_fixture("cli/defects-session.json", &base.join("runs/t.json"));
    put_fixture("cli/build-session.json", &base.join("other/u.json"));
    // A link to a session file is a session.
    std::os::unix::fs::symlink("../other/u.json", base.join("runs/alias.json")).unwrap();
    let args = [
        "reduce",
        "runs",
        "other/u.json",
        "--out",
        "O",
        "--no-tokens",
    ];
    let out = rehydrate_in(&base, &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        outputs(&base.join("O")),
        [
            "alias.json.rehydrate",
            "t.json.rehydrate",
            "u.json.rehydrate",
            "x/y/s.json.rehydrate"
        ]
    );
    let listed = stdout(&out);
    let firsts: Vec<&str> = listed
        .lines()
        .take(4)
        .map(|line| line.split(" -> ").next().unwrap())
        .collect();
    assert_eq!(
        firsts,
        [
            "runs/alias.json (openai)",
            "runs/t.json (openai)",
            "runs/x/y/s.json (openai)",
            "other/u.json (openai)"
        ]
    );
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(base.join("O/x/y/s.json.rehydrate/sidecar/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["source"], "runs/x/y/s.json");
    // Run again: each output is ours already, so each is refused alone without --force ...
    let again = rehydrate_in(&base, &args);
    assert_eq!(again.status.code(), Some(5));
    let again_stderr = stderr(&again);
    let refused: Vec<&str> = again_stderr
        .lines()
        .filter(|line| line.starts_with("error: "))
        .collect();
    assert_eq!(
        refused,
        [
            "error: runs/alias.json: --out O/alias.json.rehydrate is a rehydrate output directory already; pass --force to replace it",
            "error: runs/t.json: --out O/t.json.rehydrate is a rehydrate output directory already; pass --force to replace it",
            "error: runs/x/y/s.json: --out O/x/y/s.json.rehydrate is a rehydrate output directory already; pass --force to replace it",
            "error: other/u.json: --out O/u.json.rehydrate is a rehydrate output directory already; pass --force to replace it",
            "error: 4 of 4 session files failed",
        ]
    );
    assert!(stdout(&again).ends_with("failures: input-error 4\n"));
    // ... and replaced with it, each the same as before.
    let before = tree(&base.join("O"));
    let forced = rehydrate_in(&base, &[&args[..], &["--force"]].concat());
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert_eq!(tree(&base.join("O")), before);
}

#[test]
fn two_inputs_with_one_output_directory_are_refused_before_any_work() {
    let base = scratch("several_conflict");
    put_fixture("cli/build-session.json", &base.join("a/s.json"));
    put_fixture("cli/build-session.json", &base.join("b/s.json"));
    let cases: [(&[&str], &str); 3] = [
        (
            &["reduce", "a", "b", "--out", "O"],
            "error: a/s.json and b/s.json would both be reduced into O/s.json.rehydrate; reduce them in separate runs or with separate --out directories\n",
        ),
        (
            &["reduce", "a", "a/s.json"],
            "error: a/s.json and a/s.json would both be reduced into a/s.json.rehydrate; reduce them in separate runs or with separate --out directories\n",
        ),
        (
            &["reduce", "a/s.json", "./a/../a/s.json"],
            "error: a/s.json and ./a/../a/s.json would both be reduced into ./a/../a/s.json.rehydrate; reduce them in separate runs or with separate --out directories\n",
        ),
    ];
    for (args, expected) in cases {
        let out = rehydrate_in(&base, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&out), expected, "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert_eq!(outputs(&base), Vec::<String>::new());
    assert!(!base.join("O").exists());
}

#[test]
fn stdin_an_empty_directory_and_zero_jobs_are_refused() {
    let base = scratch("several_refused");
    put_fixture("cli/build-session.json", &base.join("a/s.json"));
    std::fs::create_dir_all(base.join("empty/deeper")).unwrap();
    put(&base.join("empty/deeper/notes.txt"), b"no session\n");
    let cases: [(&[&str], &str); 3] = [
        (
            &["reduce", "-", "a/s.json", "--out", "O"],
            "error: `-` (stdin) cannot be reduced with other inputs: reduce it on its own, with --out DIR\n",
        ),
        (
            &["reduce", "empty"],
            "error: no session file in empty (a directory's files named *.jsonl, *.json, *.traj, *.aider.chat.history.md are sessions)\n",
        ),
        (
            &["reduce", "a", "--jobs", "0"],
            "error: invalid value '0' for '--jobs <N>': 0 is not in 1..18446744073709551615 (see rehydrate --help)\n",
        ),
    ];
    for (args, expected) in cases {
        let out = rehydrate_in(&base, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&out), expected, "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert_eq!(outputs(&base), Vec::<String>::new());
}

#[test]
fn a_pipe_among_several_fails_alone_and_an_output_directory_is_no_input() {
    let base = scratch("several_pipe");
    put_fixture("cli/build-session.json", &base.join("good.json"));
    let fifo = base.join("x.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // Nobody writes to the pipe: were it read, the run would wait forever.
    let out = rehydrate_in(&base, &["reduce", "x.jsonl", "good.json", "--out", "O"]);
    assert_eq!(out.status.code(), Some(5));
    assert_eq!(
        stderr(&out),
        "error: x.jsonl is a pipe, which is read only when it is the one session of a run; not read\n\
         error: 1 of 2 session files failed\n"
    );
    assert_eq!(outputs(&base.join("O")), ["good.json.rehydrate"]);

    // The output just written, named as an input: refused before any work, never reduced
    // into itself.
    let out = rehydrate_in(&base, &["reduce", "O/good.json.rehydrate", "good.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: O/good.json.rehydrate is a `rehydrate reduce` output directory, not a session; name the session file instead\n"
    );
    assert_eq!(outputs(&base.join("O")), ["good.json.rehydrate"]);
}

#[test]
fn a_directory_without_sessions_beside_others_is_said() {
    let base = scratch("several_empty_beside");
    put_fixture("cli/build-session.json", &base.join("a/s.json"));
    std::fs::create_dir_all(base.join("empty")).unwrap();
    let out = rehydrate_in(
        &base,
        &["reduce", "empty", "a", "--no-tokens", "--out", "O"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "warning: empty: no session file in it (a directory's files named *.jsonl, *.json, *.traj, *.aider.chat.history.md are sessions)\n"
    );
    assert_eq!(outputs(&base.join("O")), ["s.json.rehydrate"]);
}
