//! Regressions from the new-user trial of every command (issue 15): one test per defect.

use std::os::unix::ffi::OsStrExt as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use proptest::prelude::*;
use serde_json::Value;

use super::{
    extend_store, fixture, record_store_in_manifest, reduce_fixture, reframe_store, rehydrate,
    scratch, stderr, stdout, tree,
};

/// Runs the binary with `args` (as raw OS strings) and its stdin from `input`.
fn rehydrate_os(args: &[&std::ffi::OsStr], input: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rehydrate"))
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = input {
        use std::io::Write as _;
        // A command that refuses before reading closes its stdin.
        let _ = child.stdin.take().unwrap().write_all(input);
    }
    child.wait_with_output().unwrap()
}

// 1. reduce never replaces a directory that is not its own, and its own only with --force.
#[test]
fn reduce_refuses_an_existing_output_unless_forced_and_ours() {
    let (dir, _) = reduce_fixture("trial_refuse");
    let d = dir.to_str().unwrap();
    let session = fixture("cli/build-session.json");
    let s = session.to_str().unwrap();
    // A host appended a summary to the store; a second reduce must not drop it.
    extend_store(&dir, |store| {
        store.record_summary("kept by the host", &[]).unwrap();
    });
    let before = tree(&dir);
    let again = rehydrate(&["reduce", s, "--out", d]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        stderr(&again),
        format!(
            "error: --out {d} is a rehydrate output directory already; pass --force to replace it\n"
        )
    );
    assert_eq!(tree(&dir), before, "nothing touched");

    // Any other non-empty directory is refused, with --force too, and left as it was.
    let other = scratch("trial_refuse_other");
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let o = other.to_str().unwrap();
    for extra in [&[][..], &["--force"][..]] {
        let mut args = vec!["reduce", s, "--out", o];
        args.extend_from_slice(extra);
        let out = rehydrate(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let expected = if extra.is_empty() {
            format!(
                "error: --out {o} exists and is not empty (it holds {o}/notes.txt); choose another directory\n"
            )
        } else {
            format!(
                "error: --out {o} is not a rehydrate output directory (it holds {o}/notes.txt); --force replaces only one of those\n"
            )
        };
        assert_eq!(stderr(&out), expected);
        assert_eq!(
            tree(&other),
            vec![(PathBuf::from("notes.txt"), b"mine".to_vec())]
        );
    }
    // A file is not a directory.
    let file = other.join("notes.txt");
    let out = rehydrate(&["reduce", s, "--out", file.to_str().unwrap(), "--force"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("(it is not a directory)"),
        "{}",
        stderr(&out)
    );

    // --force replaces our own directory: the appended summary is gone, the directory verifies.
    let forced = rehydrate(&["reduce", s, "--out", d, "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    let (state, _) = rehydrate::store::read_store(&dir.join("sidecar/session.rhyd")).unwrap();
    assert_eq!(state.summaries.len(), 0);
    assert_eq!(rehydrate(&["verify", d]).status.code(), Some(0));
}

// 2. Two writers: the directory lock refuses the second one; success is said only when done.
#[test]
fn a_second_writer_is_refused_while_the_directory_is_locked() {
    let (dir, _) = reduce_fixture("trial_lock");
    let d = dir.to_str().unwrap();
    let s = fixture("cli/build-session.json");
    let lock = std::fs::File::open(dir.join("sidecar/lock")).unwrap();
    lock.lock().unwrap();
    let before = tree(&dir);
    for args in [
        vec!["reduce", s.to_str().unwrap(), "--out", d, "--force"],
        vec!["repair", d],
    ] {
        let out = rehydrate(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            stderr(&out),
            format!(
                "error: {d} is in use by another rehydrate process, reading or writing it (it holds the lock on {d}/sidecar/lock)\n"
            ),
        );
    }
    // Readers wait for no one either: they are refused while a writer holds the lock.
    let out = rehydrate(&["verify", d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is being written by another rehydrate process"));
    assert_eq!(tree(&dir), before);
    drop(lock);
    assert_eq!(rehydrate(&["verify", d]).status.code(), Some(0));
}

#[test]
fn two_concurrent_writers_leave_one_whole_directory() {
    let s = fixture("cli/build-session.json");
    for round in 0..4 {
        let dir = scratch(&format!("trial_race_{round}")).join("out");
        let d = dir.to_str().unwrap();
        let spawn = || {
            Command::new(env!("CARGO_BIN_EXE_rehydrate"))
                .args([
                    "reduce",
                    s.to_str().unwrap(),
                    "--out",
                    d,
                    "--force",
                    "--no-tokens",
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(), spawn());
        let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
        let succeeded = outs.iter().filter(|o| o.status.success()).count();
        assert!(succeeded >= 1, "round {round}: neither writer succeeded");
        for out in &outs {
            if out.status.success() {
                assert!(stdout(out).contains("all verified"));
            } else {
                assert_eq!(out.status.code(), Some(2));
                assert!(out.stdout.is_empty());
                assert!(
                    stderr(out).contains("is in use by another rehydrate process"),
                    "round {round}: {}",
                    stderr(out)
                );
            }
        }
        let verify = rehydrate(&["verify", d]);
        assert_eq!(
            verify.status.code(),
            Some(0),
            "round {round}: {}",
            stderr(&verify)
        );
    }
}

/// The byte offsets where each record of a store starts, and its end: the header is 16 bytes,
/// a record 16 bytes of frame (length u32 LE first) and its payload (docs/FORMATS.md).
fn record_starts(store: &[u8]) -> Vec<(usize, u8)> {
    let mut at = 16;
    let mut starts = Vec::new();
    while at < store.len() {
        let len = u32::from_le_bytes(store[at..at + 4].try_into().unwrap()) as usize;
        starts.push((at, store[at + 4]));
        at += 16 + len;
    }
    starts
}

// 3. repair ends with a directory that verifies, or exits 1 and changes nothing.
#[test]
fn repair_rebuilds_lost_reduction_records_and_says_so() {
    let (dir, _) = reduce_fixture("trial_repair");
    let d = dir.to_str().unwrap();
    let store_path = dir.join("sidecar/session.rhyd");
    let whole = std::fs::read(&store_path).unwrap();
    let starts = record_starts(&whole);
    let reductions: Vec<usize> = starts
        .iter()
        .filter(|(_, k)| *k == 2)
        .map(|s| s.0)
        .collect();
    assert_eq!(reductions.len(), 3);
    let manifest = std::fs::read(dir.join("sidecar/manifest.json")).unwrap();

    // Cut inside the second reduction record, and exactly at the start of the third.
    for (cut, torn) in [(reductions[1] + 20, true), (reductions[2], false)] {
        std::fs::write(&store_path, &whole[..cut]).unwrap();
        record_store_in_manifest(&dir);
        let verify = rehydrate(&["verify", d]);
        assert_eq!(verify.status.code(), Some(1));
        assert!(
            stderr(&verify).contains("its reductions differ from"),
            "{}",
            stderr(&verify)
        );
        let out = rehydrate(&["repair", d]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let rebuilt = if torn {
            "r1.d26c33 to r2.b35021"
        } else {
            "r2.b35021"
        };
        let n = if torn { 2 } else { 1 };
        let torn_line = if torn {
            format!(
                "{}: dropped a torn tail of 20 bytes at byte {} (the file ends inside a record's payload); kept 18 whole records\n",
                store_path.display(),
                reductions[1]
            )
        } else {
            String::new()
        };
        assert_eq!(
            stdout(&out),
            format!(
                "{torn_line}{}: rebuilt {n} reduction records ({rebuilt}) from {d}/reductions.json, each verified against the store's messages\n{d}: verified: 3 reductions, the view inverts to the sidecar's 17 messages\n",
                store_path.display()
            )
        );
        assert_eq!(std::fs::read(&store_path).unwrap(), whole);
        assert_eq!(
            std::fs::read(dir.join("sidecar/manifest.json")).unwrap(),
            manifest
        );
        assert_eq!(rehydrate(&["verify", d]).status.code(), Some(0));
    }

    // Cut inside the message records: their bytes are lost, nothing is changed, exit 1.
    std::fs::write(&store_path, &whole[..starts[5].0 + 3]).unwrap();
    record_store_in_manifest(&dir);
    let before = tree(&dir);
    let out = rehydrate(&["repair", d]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {}: holds 5 messages, the manifest records 17; the records of messages 5..17 are lost and nothing else in the directory holds their bytes (reduce the session file again)\nerror: {d}: nothing was changed\n",
            store_path.display()
        )
    );
    assert_eq!(tree(&dir), before);
}

#[test]
fn repair_at_every_cut_verifies_or_exits_1_changing_nothing() {
    let (dir, _) = reduce_fixture("trial_repair_cuts");
    let d = dir.to_str().unwrap();
    let store_path = dir.join("sidecar/session.rhyd");
    let whole = std::fs::read(&store_path).unwrap();
    let starts = record_starts(&whole);
    let first_reduction = starts.iter().find(|(_, kind)| *kind == 2).unwrap().0;
    let mut cuts: Vec<usize> = Vec::new();
    for &(start, _) in &starts {
        cuts.extend([start, start + 1, start + 15, start + 16, start + 17]);
    }
    cuts.extend([16, whole.len() - 1, whole.len()]);
    cuts.sort_unstable();
    cuts.dedup();
    let (mut restored, mut refused) = (0, 0);
    for cut in cuts {
        // Both a manifest that records the cut store and one that records the whole one.
        for record in [false, true] {
            std::fs::write(&store_path, &whole[..cut]).unwrap();
            if record {
                record_store_in_manifest(&dir);
            }
            let before = tree(&dir);
            let out = rehydrate(&["repair", d]);
            // Every message record is whole exactly when the cut is at or after the first
            // reduction record: then everything lost can be rebuilt.
            let restorable = cut >= first_reduction;
            match out.status.code() {
                Some(0) if restorable => {
                    restored += 1;
                    let verify = rehydrate(&["verify", d]);
                    assert_eq!(
                        verify.status.code(),
                        Some(0),
                        "cut {cut}: {}",
                        stderr(&verify)
                    );
                    assert_eq!(std::fs::read(&store_path).unwrap(), whole, "cut {cut}");
                }
                Some(1) if !restorable => {
                    refused += 1;
                    assert!(stderr(&out).ends_with(&format!("error: {d}: nothing was changed\n")));
                    assert_eq!(tree(&dir), before, "cut {cut}");
                }
                other => panic!(
                    "cut {cut} record {record}: exit {other:?}: {}{}",
                    stderr(&out),
                    stdout(&out)
                ),
            }
            // Back to the whole directory for the next cut.
            std::fs::write(&store_path, &whole).unwrap();
            record_store_in_manifest(&dir);
        }
    }
    // Cuts in the reduction records (3 records, 5 cuts each, and the last byte and the end)
    // are restored; cuts in the 17 message records (5 each; the header's end is the first
    // record's start) are not; each under both manifests.
    assert_eq!((restored, refused), (2 * (5 * 3 + 2), 2 * (5 * 17)));
}

// 5. Empty sessions: a warning, and no invalid body.
#[test]
fn an_empty_session_warns_and_exports_no_invalid_body() {
    let dir = scratch("trial_empty");
    let session = dir.join("empty.json");
    std::fs::write(&session, "[]").unwrap();
    let out_dir = dir.join("out");
    let o = out_dir.to_str().unwrap();
    let s = session.to_str().unwrap();
    let reduced = rehydrate(&["reduce", s, "--out", o, "--no-tokens"]);
    assert_eq!(reduced.status.code(), Some(0));
    assert_eq!(
        stderr(&reduced),
        format!(
            "warning: {s}: the session holds no messages: there is nothing to reduce, and its view is no valid request body\n"
        )
    );
    for (to, line) in [
        (
            "anthropic",
            "anthropic request body is invalid: message 0 (no-messages): the body has no message besides the system text",
        ),
        (
            "openai",
            "openai request body is invalid: message 0 (no-messages): the body has no message",
        ),
    ] {
        let out = rehydrate(&["export", o, "--to", to]);
        assert_eq!(out.status.code(), Some(2), "{to}");
        assert!(out.stdout.is_empty(), "{to}");
        assert_eq!(stderr(&out), format!("error: {o}: {line}\n"));
    }
    let traj = dir.join("empty.traj");
    std::fs::write(&traj, r#"{"history":[]}"#).unwrap();
    let t = traj.to_str().unwrap();
    let out = rehydrate(&["reduce", t, "--out", dir.join("t").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("the session holds no messages"));
}

// 7. Session strings printed to a terminal are escaped: warnings, the path, the table.
#[test]
fn import_warnings_escape_session_strings_and_paths() {
    let dir = scratch("trial_escape");
    let session = dir.join("evil\u{1b}[2J.jsonl");
    let lines = [
        r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}"#,
        "{\"type\":\"weird\\u001b]0;pwned\\u0007\",\"uuid\":\"u2\"}",
        r#"{"type":"assistant","uuid":"u3","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}"#,
    ];
    std::fs::write(&session, lines.join("\n")).unwrap();
    let out = rehydrate(&[
        "reduce",
        session.to_str().unwrap(),
        "--out",
        dir.join("out").to_str().unwrap(),
        "--no-tokens",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(!stdout(&out).contains('\u{1b}'), "{:?}", stdout(&out));
    assert!(err.contains("evil\\u{1b}[2J.jsonl"), "{err}");
    assert!(err.contains("weird\\u{1b}]0;pwned\\u{7}"), "{err}");
}

// 8. Only regular files are read, each bounded by the manifest.
#[test]
fn reads_refuse_devices_fifos_outside_links_and_oversized_files() {
    let (dir, _) = reduce_fixture("trial_bounded");
    let d = dir.to_str().unwrap();
    let view = dir.join("view.json");
    let original = std::fs::read(&view).unwrap();

    std::fs::remove_file(&view).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &view).unwrap();
    let out = rehydrate(&["verify", d]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {d}/view.json: a symbolic link that leads out of the directory (or nowhere); not read\n"
        )
    );

    std::fs::remove_file(&view).unwrap();
    let status = Command::new("mkfifo").arg(&view).status().unwrap();
    assert!(status.success());
    let out = rehydrate(&["verify", d]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {d}/view.json: not a regular file (a directory, FIFO, socket or device); not read\n"
        )
    );

    // A link inside the directory is followed.
    std::fs::remove_file(&view).unwrap();
    std::fs::write(dir.join("view.copy"), &original).unwrap();
    std::os::unix::fs::symlink("view.copy", &view).unwrap();
    assert_eq!(rehydrate(&["verify", d]).status.code(), Some(0));

    std::fs::remove_file(&view).unwrap();
    let mut longer = original.clone();
    longer.extend_from_slice(&[b' '; 4096]);
    std::fs::write(&view, &longer).unwrap();
    let out = rehydrate(&["verify", d]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {d}/view.json: digest mismatch: the manifest records {} bytes, the file has {} (not read)\n",
            original.len(),
            longer.len()
        )
    );
}

// 9. Paths that are not UTF-8 are kept byte for byte, and repair on them is whole.
proptest! {
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn paths_that_are_not_utf8_keep_their_bytes(
        // Continuation bytes never start a UTF-8 sequence: each is shown as `\xNN`.
        name in proptest::collection::vec(prop_oneof![0x80u8..=0xbf, b'a'..=b'z'], 1..12)
    ) {
        let dir = scratch("trial_bytes");
        let mut file_name = b"s-".to_vec();
        file_name.extend_from_slice(&name);
        file_name.extend_from_slice(b".json");
        let session = dir.join(std::ffi::OsStr::from_bytes(&file_name));
        std::fs::copy(fixture("cli/build-session.json"), &session).unwrap();
        let out = rehydrate_os(&[std::ffi::OsStr::new("reduce"), session.as_os_str(), std::ffi::OsStr::new("--no-tokens")], None);
        prop_assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let mut default_out = session.as_os_str().to_owned();
        default_out.push(".rehydrate");
        let default_out = PathBuf::from(default_out);
        prop_assert!(default_out.join("sidecar/manifest.json").is_file());
        for command in ["verify", "repair"] {
            let out = rehydrate_os(&[std::ffi::OsStr::new(command), default_out.as_os_str()], None);
            prop_assert_eq!(out.status.code(), Some(0), "{}: {}", command, stderr(&out));
        }
        // A torn store in such a directory is repaired whole.
        let store = default_out.join("sidecar/session.rhyd");
        let whole = std::fs::read(&store).unwrap();
        let mut torn = whole.clone();
        torn.extend_from_slice(&[9, 0, 0]);
        std::fs::write(&store, &torn).unwrap();
        let out = rehydrate_os(&[std::ffi::OsStr::new("repair"), default_out.as_os_str()], None);
        prop_assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        prop_assert_eq!(std::fs::read(&store).unwrap(), whole);
        let shown: String = name.iter().map(|&b| if b >= 0x80 { format!("\\x{b:02x}") } else { char::from(b).to_string() }).collect();
        prop_assert!(stdout(&out).contains(&format!("s-{shown}.json.rehydrate")), "{}", stdout(&out));
        let out = rehydrate_os(&[std::ffi::OsStr::new("verify"), default_out.as_os_str()], None);
        prop_assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}

// 10. What a killed run left is removed under the lock on the next run.
#[test]
fn stale_temporaries_of_a_killed_run_are_removed() {
    let dir = scratch("trial_stale").join("out");
    std::fs::create_dir_all(dir.join("sidecar")).unwrap();
    std::fs::write(dir.join("sidecar/session.rhyd.tmp"), vec![0u8; 1 << 16]).unwrap();
    std::fs::write(dir.join("view.json.tmp"), b"[").unwrap();
    std::fs::write(dir.join("sidecar/lock"), b"").unwrap();
    let d = dir.to_str().unwrap();
    let s = fixture("cli/build-session.json");
    let out = rehydrate(&["reduce", s.to_str().unwrap(), "--out", d, "--no-tokens"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {d}/view.json.tmp: removed a temporary file an interrupted run left\nwarning: {d}/sidecar/session.rhyd.tmp: removed a temporary file an interrupted run left\n"
        )
    );
    let names: Vec<String> = tree(&dir)
        .into_iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "reductions.json",
            "sidecar/lock",
            "sidecar/manifest.json",
            "sidecar/session.rhyd",
            "view.json"
        ]
    );
}

// 11. A full stdout is an error; a /dev/null opened read-write (Python's subprocess.DEVNULL)
// is where a host discards output, and runs.
#[test]
fn a_full_stdout_is_exit_2_and_a_read_write_dev_null_runs() {
    let bin = env!("CARGO_BIN_EXE_rehydrate");
    let discarded = Command::new("sh")
        .args(["-c", "exec \"$0\" tools 1<>/dev/null", bin])
        .output()
        .unwrap();
    assert_eq!(discarded.status.code(), Some(0));
    assert_eq!(discarded.stderr, b"");
    let full = Command::new("sh")
        .args(["-c", "exec \"$0\" --help >/dev/full", bin])
        .output()
        .unwrap();
    assert_eq!(full.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(full.stderr).unwrap(),
        "error: cannot write to stdout: No space left on device (os error 28)\n"
    );
    let null = Command::new("sh")
        .args(["-c", "exec \"$0\" tools >/dev/null", bin])
        .output()
        .unwrap();
    assert_eq!(null.status.code(), Some(0));
}

// 12. A damaged manifest is a damaged directory: exit 1.
#[test]
fn a_manifest_that_does_not_parse_or_is_old_is_exit_1() {
    let (dir, _) = reduce_fixture("trial_manifest");
    let d = dir.to_str().unwrap();
    let path = dir.join("sidecar/manifest.json");
    let good: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    std::fs::write(&path, b"{\"format\":").unwrap();
    let out = rehydrate(&["verify", d]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {d}/sidecar/manifest.json: EOF while parsing a value at line 1 column 10\n"
        )
    );
    let mut old = good.clone();
    old["version"] = 1.into();
    std::fs::write(&path, serde_json::to_vec(&old).unwrap()).unwrap();
    let out = rehydrate(&["expand", d, "r0.b35021"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {d}/sidecar/manifest.json: unsupported sidecar rehydrate-sidecar version 1 (expected rehydrate-sidecar version 2); reduce the session again\n"
        )
    );
}

// 13. search and signals fail on reductions that do not verify.
#[test]
fn search_and_signals_exit_1_on_reductions_that_do_not_verify() {
    let (dir, report) = reduce_fixture("trial_unverified");
    let d = dir.to_str().unwrap();
    let index = report["reductions"][0]["index"].as_u64().unwrap() as usize;
    reframe_store(&dir, |messages| {
        super::edit_text(messages, index, "Compiling", "Compiled!");
    });
    record_store_in_manifest(&dir);
    let search = rehydrate(&["search", d, "crate-1", "--literal"]);
    assert_eq!(search.status.code(), Some(1));
    let err = stderr(&search);
    assert!(
        err.ends_with(&format!(
            "error: {d}: 1 of 3 reductions do not verify and were not searched\n"
        )),
        "{err}"
    );
    assert!(stdout(&search).contains("1 reductions do not verify and were not searched"));
    let signals = rehydrate(&["signals", d]);
    assert_eq!(signals.status.code(), Some(1));
    assert!(signals.stdout.is_empty());
    assert!(
        stderr(&signals).ends_with(&format!(
            "error: {d}: 1 of 3 reductions do not verify; no signals are computed over them\n"
        )),
        "{}",
        stderr(&signals)
    );
}

// 14. Messages.
#[test]
fn messages_name_what_went_wrong() {
    let no_args = rehydrate(&[]);
    assert_eq!(no_args.status.code(), Some(2));
    let help = stderr(&no_args);
    assert!(
        help.starts_with("Lossless, verifiable context reduction for agent sessions"),
        "{help}"
    );
    for command in [
        "reduce", "expand", "search", "verify", "export", "repair", "signals", "tools", "call",
        "inspect", "replay", "evidence",
    ] {
        assert!(
            help.contains(&format!("\n  {command} ")),
            "{command} in {help}"
        );
    }
    // The corpus harness is a hidden subcommand.
    assert!(!help.contains("roundtrip"), "{help}");

    let dir = scratch("trial_messages");
    let file = dir.join("plain.json");
    std::fs::write(&file, "[]").unwrap();
    let f = file.to_str().unwrap();
    let out = rehydrate(&["verify", f]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!("error: {f}: not an output directory of `rehydrate reduce` (not a directory)\n")
    );
    let out = rehydrate(&["verify", dir.to_str().unwrap()]);
    assert_eq!(
        stderr(&out),
        format!(
            "error: {}: not an output directory of `rehydrate reduce` (it has no sidecar/manifest.json)\n",
            dir.display()
        )
    );

    let empty = dir.join("zero.jsonl");
    std::fs::write(&empty, "").unwrap();
    let out = rehydrate(&["inspect", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {}: empty file (no session in it)\n",
            empty.display()
        )
    );

    let out = rehydrate(&["reduce", f, "--trigger-bytes", "-1"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: invalid value '-1' for '--trigger-bytes <BYTES>': invalid digit found in string (see rehydrate --help)\n"
    );

    // `-` reads the session from stdin, and then needs --out.
    let session = std::fs::read(fixture("cli/build-session.json")).unwrap();
    let out_dir = dir.join("from-stdin");
    let args = [
        "reduce",
        "-",
        "--out",
        out_dir.to_str().unwrap(),
        "--json",
        "--no-tokens",
    ];
    let os_args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    let out = rehydrate_os(&os_args, Some(&session));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["messages"], 17);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("sidecar/manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["source"], "<stdin>");
    let out = rehydrate_os(
        &[std::ffi::OsStr::new("reduce"), std::ffi::OsStr::new("-")],
        Some(&session),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: <stdin> is not a regular file, so there is no default output directory next to it; pass --out DIR\n"
    );

    // A view.json given back to reduce warns.
    let view = out_dir.join("view.json");
    let out = rehydrate(&[
        "reduce",
        view.to_str().unwrap(),
        "--out",
        dir.join("again").to_str().unwrap(),
        "--no-tokens",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {}: 3 messages are a rehydrate stub already (is this a view.json?): stubs are kept as content, and the originals behind them are not in this file; reduce the original session instead\n",
            view.display()
        )
    );

    // verify --json.
    let out = rehydrate(&["verify", out_dir.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        serde_json::json!({"dir": out_dir.to_str().unwrap(), "reductions": 3, "messages": 17, "sendable": {"openai": true, "anthropic": true}, "verified": true})
    );
}

// 4. A session that holds stub text of its own exports as it was, in every form.
#[test]
fn a_session_holding_stub_text_exports_as_it_was() {
    let dir = scratch("trial_stub_text");
    let mut session: Vec<Value> =
        serde_json::from_slice(&std::fs::read(fixture("cli/build-session.json")).unwrap()).unwrap();
    // The agent ran `cat view.json` of an earlier reduction and a user pasted a stub.
    let (reduced, _) = reduce_fixture("trial_stub_text_first");
    let view = std::fs::read_to_string(reduced.join("view.json")).unwrap();
    let pasted = super::stub_lines(&reduced)[0].clone();
    session
        .push(serde_json::json!({"role": "user", "content": format!("what is this?\n{pasted}")}));
    session.push(serde_json::json!({"role": "assistant", "tool_calls": [{"id": "call_cat", "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\": \"cat view.json\"}"}}]}));
    session.push(serde_json::json!({"role": "tool", "tool_call_id": "call_cat", "content": view}));
    session.push(serde_json::json!({"role": "assistant", "content": "That is a reduced view."}));
    let path = dir.join("stubby.json");
    std::fs::write(&path, serde_json::to_vec(&session).unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let (a, b) = (dir.join("reduced"), dir.join("plain"));
    let out = rehydrate(&[
        "reduce",
        p,
        "--out",
        a.to_str().unwrap(),
        "--json",
        "--no-tokens",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["reductions"].as_array().unwrap().len(), 3);
    let out = rehydrate(&[
        "reduce",
        p,
        "--out",
        b.to_str().unwrap(),
        "--no-tokens",
        "--trigger-bytes",
        "1000000000",
        "--no-dedupe",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for to in ["jsonl", "openai", "anthropic"] {
        let reduced = rehydrate(&["export", a.to_str().unwrap(), "--to", to]);
        let plain = rehydrate(&["export", b.to_str().unwrap(), "--to", to]);
        assert_eq!(reduced.status.code(), Some(0), "{to}: {}", stderr(&reduced));
        assert_eq!(plain.status.code(), Some(0), "{to}: {}", stderr(&plain));
        assert!(stdout(&reduced).contains(&pasted), "{to}");
        assert_eq!(stdout(&reduced), stdout(&plain), "{to}");
    }
}

// From the second trial.

/// Runs the binary, killing it and failing after 20 s: a hang is a failure, not a stuck test.
fn rehydrate_bounded(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rehydrate"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("rehydrate {args:?} hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_lock_file_that_is_not_a_regular_file_is_refused_at_once() {
    let (dir, _) = reduce_fixture("trial_fifo_lock");
    let d = dir.to_str().unwrap();
    let lock = dir.join("sidecar/lock");
    std::fs::remove_file(&lock).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(&lock)
            .status()
            .unwrap()
            .success()
    );
    let line = format!(
        "error: {d}/sidecar/lock: not a regular file (a link, directory, FIFO, socket or device); not opened\n"
    );
    for (args, code) in [
        (vec!["verify", d], 1),
        (vec!["expand", d, "r0.b35021"], 1),
        (vec!["repair", d], 2),
    ] {
        let out = rehydrate_bounded(&args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        assert!(
            stderr(&out).starts_with(&line),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let s = fixture("cli/build-session.json");
    let out = rehydrate_bounded(&["reduce", s.to_str().unwrap(), "--out", d, "--force"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "error: --out {d} is not a rehydrate output directory (it holds {d}/sidecar/lock, which is not a regular file); --force replaces only one of those\n"
        )
    );
}

#[test]
fn repair_refuses_what_verify_refuses() {
    let (dir, _) = reduce_fixture("trial_repair_unknown");
    let d = dir.to_str().unwrap();
    let path = dir.join("sidecar/manifest.json");
    let mut manifest: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    manifest["files"]["notes.txt"] = serde_json::json!({"bytes": 0, "blake3": rehydrate::sidecar::content_digest(b"").to_string()});
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    let before = tree(&dir);
    let out = rehydrate(&["repair", d]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {d}/sidecar/manifest.json: records an unknown file `notes.txt`\nerror: {d}: nothing was changed\n"
        )
    );
    assert_eq!(tree(&dir), before);
    // A missing view.json: the same closing line.
    std::fs::remove_file(dir.join("view.json")).unwrap();
    let out = rehydrate(&["repair", d]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).ends_with(&format!("error: {d}: nothing was changed\n")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn repair_removes_the_temporaries_of_an_interrupted_run() {
    let (dir, _) = reduce_fixture("trial_repair_tmp");
    let d = dir.to_str().unwrap();
    std::fs::write(dir.join("sidecar/manifest.json.tmp"), b"{").unwrap();
    let out = rehydrate(&["repair", d]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "{d}/sidecar/manifest.json.tmp: removed a temporary file an interrupted run left\n{d}: verified: 3 reductions, the view inverts to the sidecar's 17 messages\n"
        )
    );
    assert!(!dir.join("sidecar/manifest.json.tmp").exists());
}

#[test]
fn a_failed_reduce_leaves_a_directory_that_existed_as_it_was() {
    use std::os::unix::fs::PermissionsExt as _;
    let root = scratch("trial_failed_keeps");
    let bad = root.join("bad.json");
    std::fs::write(&bad, "[{").unwrap();
    let empty = root.join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::set_permissions(&empty, std::fs::Permissions::from_mode(0o700)).unwrap();
    let with_sidecar = root.join("with-sidecar");
    std::fs::create_dir_all(with_sidecar.join("sidecar")).unwrap();
    let with_lock = root.join("with-lock");
    std::fs::create_dir_all(with_lock.join("sidecar")).unwrap();
    std::fs::write(with_lock.join("sidecar/lock"), "important").unwrap();
    for dir in [&empty, &with_sidecar, &with_lock] {
        let before = tree(dir);
        let out = rehydrate(&[
            "reduce",
            bad.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(dir.is_dir(), "{}", dir.display());
        assert!(
            dir.join("sidecar").is_dir() == (dir != &empty),
            "{}",
            dir.display()
        );
        assert_eq!(tree(dir), before, "{}", dir.display());
    }
    let mode = std::fs::metadata(&empty).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    // A directory this run created is removed again.
    let fresh = root.join("fresh");
    let out = rehydrate(&[
        "reduce",
        bad.to_str().unwrap(),
        "--out",
        fresh.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!fresh.exists());
}

#[test]
fn a_linked_sidecar_is_never_followed() {
    let (dir, _) = reduce_fixture("trial_linked_sidecar");
    let d = dir.to_str().unwrap();
    let outside = scratch("trial_linked_sidecar_outside");
    std::fs::rename(dir.join("sidecar"), outside.join("sc")).unwrap();
    std::os::unix::fs::symlink(outside.join("sc"), dir.join("sidecar")).unwrap();
    let before = tree(&outside);
    let out = rehydrate(&["verify", d]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {d}/sidecar/manifest.json: a symbolic link that leads out of the directory (or nowhere); not read\n"
        )
    );
    let s = fixture("cli/build-session.json");
    let out = rehydrate(&["reduce", s.to_str().unwrap(), "--out", d, "--force"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("is not a rehydrate output directory (it holds"),
        "{}",
        stderr(&out)
    );
    assert_eq!(rehydrate(&["repair", d]).status.code(), Some(1));
    assert_eq!(tree(&outside), before);
}

#[test]
fn a_reduce_cut_short_among_its_renames_is_replaced_with_force() {
    // What a run of an earlier version (which renamed each file into place) killed after
    // writing its manifest and renaming the store left: the manifest, the store, and the view
    // and log still under their temporary names.
    let (dir, _) = reduce_fixture("trial_cut_renames");
    let d = dir.to_str().unwrap();
    std::fs::rename(dir.join("view.json"), dir.join("view.json.tmp")).unwrap();
    std::fs::rename(dir.join("reductions.json"), dir.join("reductions.json.tmp")).unwrap();
    let out = rehydrate(&["verify", d]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!("error: {d}/view.json: missing, though the manifest records it\n")
    );
    let s = fixture("cli/build-session.json");
    let out = rehydrate(&[
        "reduce",
        s.to_str().unwrap(),
        "--out",
        d,
        "--force",
        "--no-tokens",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {d}/view.json.tmp: removed a temporary file an interrupted run left\nwarning: {d}/reductions.json.tmp: removed a temporary file an interrupted run left\n"
        )
    );
    assert_eq!(rehydrate(&["verify", d]).status.code(), Some(0));
}

#[test]
fn a_temporary_name_that_is_not_a_file_is_refused_untouched() {
    let dir = scratch("trial_tmp_dir").join("out");
    std::fs::create_dir_all(dir.join("view.json.tmp")).unwrap();
    let d = dir.to_str().unwrap();
    let s = fixture("cli/build-session.json");
    let out = rehydrate(&["reduce", s.to_str().unwrap(), "--out", d]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "error: --out {d} exists and is not empty (it holds {d}/view.json.tmp, which is not a regular file); choose another directory\n"
        )
    );
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["view.json.tmp"]);
}

#[test]
fn a_session_must_be_a_file_or_a_pipe() {
    let dir = scratch("trial_device");
    for command in ["reduce", "inspect", "replay", "evidence", "roundtrip"] {
        let mut args = vec![command, "/dev/zero"];
        let out_dir = dir.join(command);
        if command == "reduce" {
            args.extend(["--out", out_dir.to_str().unwrap()]);
        }
        let out = rehydrate_bounded(&args);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert_eq!(
            stderr(&out),
            "error: /dev/zero: not a regular file or a pipe (a directory, socket or device); not read\n",
            "{command}"
        );
    }
    assert!(!dir.join("reduce").exists());
    // A pipe is read to its end.
    let bin = env!("CARGO_BIN_EXE_rehydrate");
    let fixture = fixture("cli/build-session.json");
    let piped = Command::new("bash")
        .args([
            "-c",
            "exec \"$0\" inspect <(cat \"$1\") --json",
            bin,
            fixture.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(
        piped.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
}

#[test]
fn json_carries_paths_as_they_are() {
    let root = scratch("trial_json_paths");
    let dir = root.join("out\u{1b}(dir");
    let s = fixture("cli/build-session.json");
    let out = rehydrate(&[
        "reduce",
        s.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--json",
        "--no-tokens",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["out"], dir.to_str().unwrap());
    let out = rehydrate(&["verify", dir.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["dir"], dir.to_str().unwrap());
    // The table escapes it.
    let table = rehydrate(&[
        "reduce",
        s.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--force",
        "--no-tokens",
    ]);
    assert!(
        stdout(&table)
            .lines()
            .next()
            .unwrap()
            .ends_with("out\\u{1b}(dir"),
        "{}",
        stdout(&table)
    );
}

#[test]
fn reduce_warns_of_defects_no_repair_covers() {
    let dir = scratch("trial_uncovered");
    let session = dir.join("blank-part.json");
    std::fs::write(
        &session,
        r#"[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":" "}]},{"role":"assistant","content":"ok"}]"#,
    )
    .unwrap();
    let s = session.to_str().unwrap();
    let o = dir.join("out");
    let out = rehydrate(&["reduce", s, "--out", o.to_str().unwrap(), "--no-tokens"]);
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out);
    // OpenAI takes a blank text part in a tool result; Anthropic does not.
    assert_eq!(
        err,
        format!(
            "warning: {s}: view.json is not a valid anthropic request body: message 2 (empty-text): text block empty or only whitespace in a tool result (no pairing repair covers it)\n"
        )
    );
    assert!(
        stdout(&out).ends_with(
            "reductions: 0, all verified; the view is no valid request body (see the warnings)\n"
        ),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        rehydrate(&["verify", o.to_str().unwrap()]).status.code(),
        Some(1)
    );
}
