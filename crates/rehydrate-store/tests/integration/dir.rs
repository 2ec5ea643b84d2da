//! The session directory: written, read back, refused when it is not ours or differs from its
//! manifest, and repaired after a cut store.

use std::path::{Path, PathBuf};

use rehydrate_model::{Message, ReductionLog, Role};
use rehydrate_store::dir::{Repaired, encode};
use rehydrate_store::{Error, SessionDir};

use crate::store::{scratch, serial};

/// A three-message session.
fn session() -> Vec<Message> {
    vec![
        Message::text(Role::User, "build it"),
        Message::tool_result("call_1", "compiling crate-1\n".repeat(20)),
        Message::text(Role::Assistant, "done"),
    ]
}

/// Writes `messages` (as view and sidecar, with an empty log) to `dir` made from `source`.
fn write(dir: &Path, source: &Path, messages: &[Message], force: bool) -> Result<(), Error> {
    let out = SessionDir::create(dir, source, force)?;
    let log = ReductionLog::default();
    let open = out.stage_messages(messages.chunks(2).map(<[Message]>::to_vec), |_batch| {})?;
    let staged = [
        out.finish_store(open, &log)?,
        out.stage_log(&log)?,
        out.stage_view(messages)?,
    ];
    let left = out.commit(source, "openai", messages.len(), staged)?;
    assert_eq!(left, Vec::<String>::new(), "warnings of a clean swap");
    Ok(())
}

/// A scratch directory, a session file in it, and the output path next to it.
fn setup(test: &str) -> (PathBuf, PathBuf) {
    let root = scratch(test);
    let source = root.join("session.json");
    std::fs::write(&source, b"[]").unwrap();
    let out = SessionDir::default_path(&source).unwrap();
    (source, out)
}

#[test]
fn a_written_directory_reads_back_equal_and_its_files_are_the_encoded_bytes() {
    let _serial = serial();
    let (source, out) = setup("dir-roundtrip");
    assert_eq!(out, source.with_file_name("session.json.rehydrate"));
    write(&out, &source, &session(), false).unwrap();

    let loaded = SessionDir::open(&out).unwrap();
    assert_eq!(loaded.view, session());
    assert_eq!(loaded.sidecar, session());
    assert_eq!(loaded.log, ReductionLog::default());
    assert_eq!(loaded.manifest.messages, 3);
    assert_eq!(loaded.manifest.source_format, "openai");
    assert_eq!(loaded.file_mismatches, Vec::<String>::new());
    loaded.refuse_mismatched().unwrap();

    let encoded = encode(&session(), &ReductionLog::default(), &session());
    assert_eq!(std::fs::read(out.join("view.json")).unwrap(), encoded.view);
    assert_eq!(
        std::fs::read(out.join("reductions.json")).unwrap(),
        encoded.log
    );
    assert_eq!(
        std::fs::read(out.join("sidecar/session.rhyd")).unwrap(),
        encoded.store
    );
    let manifest = &loaded.manifest.files["view.json"];
    assert_eq!(manifest.bytes, encoded.view.len());
    assert_eq!(
        manifest.blake3.to_string(),
        blake3::hash(&encoded.view).to_hex().to_string()
    );
}

#[test]
fn an_existing_directory_is_replaced_only_when_forced_and_ours() {
    let _serial = serial();
    let (source, out) = setup("dir-force");
    write(&out, &source, &session(), false).unwrap();
    let refused = write(&out, &source, &session(), false).unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "--out {} is a rehydrate output directory already; pass --force to replace it",
            out.display()
        )
    );
    assert!(matches!(refused, Error::DirRefused(_)));
    write(&out, &source, &session()[..1], true).unwrap();
    assert_eq!(SessionDir::open(&out).unwrap().sidecar.len(), 1);

    let foreign = source.with_file_name("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), b"mine").unwrap();
    let refused = write(&foreign, &source, &session(), true).unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "--out {} is not a rehydrate output directory (it holds {}); --force replaces only one of those",
            foreign.display(),
            foreign.join("notes.txt").display()
        )
    );
    assert_eq!(std::fs::read(foreign.join("notes.txt")).unwrap(), b"mine");
}

#[test]
fn a_directory_without_a_manifest_is_not_an_output_directory() {
    let _serial = serial();
    let (source, _) = setup("dir-no-manifest");
    let dir = source.with_file_name("empty");
    std::fs::create_dir_all(&dir).unwrap();
    let err = SessionDir::open(&dir).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: not an output directory of `rehydrate reduce` (it has no sidecar/manifest.json)",
            dir.display()
        )
    );
    assert!(matches!(err, Error::DirRefused(_)));
    assert!(SessionDir::default_path(Path::new("-")).is_none());
    assert!(SessionDir::default_path(&dir).is_none());
}

#[test]
fn a_file_that_differs_from_the_manifest_is_a_mismatch_every_reader_refuses() {
    let _serial = serial();
    let (source, out) = setup("dir-mismatch");
    write(&out, &source, &session(), false).unwrap();
    let view = out.join("view.json");
    let mut bytes = std::fs::read(&view).unwrap();
    let recorded = bytes.len();
    bytes.extend_from_slice(b" ");
    // A longer file is refused unread; a changed byte of the same length is a mismatch.
    std::fs::write(&view, &bytes).unwrap();
    let err = SessionDir::open(&out).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: digest mismatch: the manifest records {recorded} bytes, the file has {} (not read)",
            view.display(),
            recorded + 1
        )
    );
    bytes.pop();
    let last = bytes.len() - 1;
    bytes[last] = b' ';
    std::fs::write(&view, &bytes).unwrap();
    let loaded = SessionDir::open(&out).unwrap();
    assert_eq!(loaded.file_mismatches.len(), 1);
    assert!(
        loaded.file_mismatches[0].starts_with(&format!(
            "{}: digest mismatch: manifest records ",
            view.display()
        )),
        "{}",
        loaded.file_mismatches[0]
    );
    match loaded.refuse_mismatched() {
        Err(Error::DirDamaged(lines)) => assert_eq!(lines, loaded.file_mismatches),
        other => panic!("{other:?}"),
    }
}

#[test]
fn repair_drops_a_torn_store_tail_and_reseals_the_manifest() {
    let _serial = serial();
    let (source, out) = setup("dir-repair");
    write(&out, &source, &session(), false).unwrap();
    assert_eq!(
        SessionDir::repair(&out).unwrap(),
        Repaired {
            lines: Vec::new(),
            reductions: 0,
            messages: 3
        }
    );
    let store = out.join("sidecar/session.rhyd");
    let whole = std::fs::read(&store).unwrap();
    // Half a record more than the manifest records is refused unread, then repaired away.
    let mut longer = whole.clone();
    longer.extend_from_slice(&whole[whole.len() - 9..]);
    std::fs::write(&store, &longer).unwrap();
    assert!(matches!(SessionDir::open(&out), Err(Error::DirDamaged(_))));
    let repaired = SessionDir::repair(&out).unwrap();
    assert_eq!(repaired.lines.len(), 1, "{:?}", repaired.lines);
    assert!(
        repaired.lines[0].starts_with(&format!(
            "{}: dropped a torn tail of 9 bytes at byte {}",
            store.display(),
            whole.len()
        )),
        "{}",
        repaired.lines[0]
    );
    assert_eq!(std::fs::read(&store).unwrap(), whole);
    assert_eq!(
        SessionDir::open(&out).unwrap().file_mismatches,
        Vec::<String>::new()
    );

    // Lost message records cannot be restored: nothing is changed, and it says so.
    std::fs::write(&store, &whole[..whole.len() - 9]).unwrap();
    match SessionDir::repair(&out) {
        Err(Error::DirDamaged(lines)) => assert_eq!(
            lines.last().unwrap(),
            &format!("{}: nothing was changed", out.display())
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read(&store).unwrap(), &whole[..whole.len() - 9]);
}

/// The name `dir` has with `suffix` appended.
fn beside(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[test]
fn a_swap_cut_between_its_renames_is_put_back_and_a_stale_staging_removed() {
    let _serial = serial();
    let (source, out) = setup("dir-swap-cut");
    write(&out, &source, &session(), false).unwrap();
    let previous = SessionDir::open(&out).unwrap();
    // Cut after the first rename of a swap: the directory is gone, the previous one whole at
    // DIR.retired; an unfinished DIR.staging beside it.
    let retired = beside(&out, ".retired");
    let staging = beside(&out, ".staging");
    std::fs::rename(&out, &retired).unwrap();
    std::fs::create_dir_all(staging.join("sidecar")).unwrap();
    std::fs::write(staging.join("view.json.tmp"), b"[\n").unwrap();
    // The next writer puts the previous directory back, which it then may replace only when
    // forced, and removes the unfinished one.
    let refused = write(&out, &source, &session()[..1], false).unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "--out {} is a rehydrate output directory already; pass --force to replace it ({}: restored from {}, where an interrupted run left it; {}: removed the unfinished directory an interrupted run left)",
            out.display(),
            out.display(),
            retired.display(),
            staging.display()
        )
    );
    assert!(!retired.exists() && !staging.exists());
    let back = SessionDir::open(&out).unwrap();
    assert_eq!(
        (&back.view, &back.log, &back.sidecar),
        (&previous.view, &previous.log, &previous.sidecar)
    );
    std::fs::create_dir_all(staging.join("sidecar")).unwrap();
    std::fs::write(staging.join("sidecar/session.rhyd.tmp"), b"RHYD").unwrap();
    let taken = SessionDir::create(&out, &source, true).unwrap();
    assert_eq!(
        taken.notes(),
        [format!(
            "{}: removed the unfinished directory an interrupted run left",
            staging.display()
        )]
    );
    taken.abandon();
    assert!(!staging.exists());
    assert_eq!(SessionDir::open(&out).unwrap().view, previous.view);
    // A swap cut after its second rename leaves the previous directory beside the new one:
    // removed by the next writer.
    std::fs::create_dir_all(retired.join("sidecar")).unwrap();
    std::fs::write(retired.join("view.json"), b"[]\n").unwrap();
    write(&out, &source, &session()[..2], true).unwrap();
    assert!(!retired.exists());
    assert_eq!(SessionDir::open(&out).unwrap().sidecar, session()[..2]);
    // Empty leftovers (a run killed right after creating one, or while removing one) have no
    // lock to take, and are removed.
    std::fs::create_dir_all(&retired).unwrap();
    std::fs::create_dir_all(&staging).unwrap();
    write(&out, &source, &session()[..3], true).unwrap();
    assert!(!retired.exists() && !staging.exists());
    // A directory holding a file rehydrate did not write is not replaced, even when forced:
    // the swap would carry the file away.
    std::fs::write(out.join("notes.txt"), b"mine").unwrap();
    let refused = write(&out, &source, &session(), true).unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "--out {} holds {}, which rehydrate did not write; --force replaces only a directory holding nothing else: move it away",
            out.display(),
            out.join("notes.txt").display()
        )
    );
    std::fs::remove_file(out.join("notes.txt")).unwrap();
    // Something of someone else's at DIR.retired is never touched.
    std::fs::create_dir_all(&retired).unwrap();
    std::fs::write(retired.join("notes.txt"), b"mine").unwrap();
    let refused = write(&out, &source, &session(), true).unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "{} holds something besides an interrupted run's files; move it away",
            retired.display()
        )
    );
    assert_eq!(std::fs::read(retired.join("notes.txt")).unwrap(), b"mine");
}

#[test]
fn a_link_to_an_output_directory_is_followed_and_stays_a_link() {
    let _serial = serial();
    let (source, out) = setup("dir-link");
    let real = source.with_file_name("real.rehydrate");
    write(&real, &source, &session(), false).unwrap();
    std::os::unix::fs::symlink(&real, &out).unwrap();
    write(&out, &source, &session()[..1], true).unwrap();
    assert!(
        std::fs::symlink_metadata(&out)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(SessionDir::open(&real).unwrap().sidecar, session()[..1]);
    assert_eq!(SessionDir::open(&out).unwrap().sidecar, session()[..1]);
    assert!(!beside(&real, ".retired").exists() && !beside(&out, ".retired").exists());
    // A swap through the link cut between its renames: the link dangles, the directory it
    // named waits at its `.retired`; readers say so, and repair through the link puts it back.
    std::fs::rename(&real, beside(&real, ".retired")).unwrap();
    let err = SessionDir::open(&out).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: not an output directory of `rehydrate reduce` (no such directory; {} holds the directory a run of rehydrate is replacing, or was replacing when it was cut short; `rehydrate repair` puts it back)",
            out.display(),
            beside(&real, ".retired").display()
        )
    );
    let repaired = SessionDir::repair(&out).unwrap();
    assert_eq!(
        repaired.lines,
        [format!(
            "{}: restored from {}, where an interrupted run left it",
            real.display(),
            beside(&real, ".retired").display()
        )]
    );
    assert_eq!(SessionDir::open(&out).unwrap().sidecar, session()[..1]);
}

#[test]
fn a_writer_swaps_the_directory_a_path_names_and_says_what_it_did_before_a_refusal() {
    let _serial = serial();
    let (source, out) = setup("dir-paths");
    let (retired, staging) = (beside(&out, ".retired"), beside(&out, ".staging"));
    // A trailing slash or `.` names the same directory, whose siblings are the swap's names.
    let mut slashed = out.clone().into_os_string();
    slashed.push("/");
    write(Path::new(&slashed), &source, &session(), false).unwrap();
    write(&out.join("."), &source, &session()[..1], true).unwrap();
    assert_eq!(SessionDir::open(&out).unwrap().sidecar, session()[..1]);
    assert!(!retired.exists() && !staging.exists());
    // A path with no last name has nothing to swap.
    let up = out.join("..");
    assert_eq!(
        write(&up, &source, &session(), true)
            .unwrap_err()
            .to_string(),
        format!(
            "{}: names no directory of its own (it is `.`, `/` or ends in `..`); the directory is replaced whole, beside its parent's other entries, so name it, as in `--out out`",
            up.display()
        )
    );
    // A refusal after a restore says so.
    std::fs::rename(&out, &retired).unwrap();
    std::fs::create_dir_all(&staging).unwrap();
    std::fs::write(staging.join("notes.txt"), b"mine").unwrap();
    assert_eq!(
        write(&out, &source, &session(), true)
            .unwrap_err()
            .to_string(),
        format!(
            "{} holds something besides an interrupted run's files; move it away ({}: restored from {}, where an interrupted run left it)",
            staging.display(),
            out.display(),
            retired.display()
        )
    );
    assert_eq!(std::fs::read(staging.join("notes.txt")).unwrap(), b"mine");
    assert_eq!(SessionDir::open(&out).unwrap().sidecar, session()[..1]);
    // So does a repair's refusal after it removed a leftover.
    std::fs::remove_file(staging.join("notes.txt")).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    assert_eq!(
        SessionDir::repair(&out).unwrap_err().to_string(),
        format!(
            "{}: not an output directory of `rehydrate reduce` (no such directory) ({}: removed the unfinished directory an interrupted run left)",
            out.display(),
            staging.display()
        )
    );
    assert!(!staging.exists());
}

#[test]
fn repair_does_not_carry_away_a_file_rehydrate_did_not_write() {
    let _serial = serial();
    let (source, out) = setup("dir-repair-foreign");
    write(&out, &source, &session(), false).unwrap();
    let store = out.join("sidecar/session.rhyd");
    let whole = std::fs::read(&store).unwrap();
    // A torn tail after the last whole record: repairable, by a swap.
    let torn = [&whole[..], b"\x07\x00"].concat();
    std::fs::write(&store, &torn).unwrap();
    std::fs::write(out.join("notes.txt"), b"mine").unwrap();
    match SessionDir::repair(&out) {
        Err(Error::DirDamaged(lines)) => assert_eq!(
            lines,
            [
                format!(
                    "{} holds {}, which rehydrate did not write; repair replaces the directory whole, and only one holding nothing else: move it away",
                    out.display(),
                    out.join("notes.txt").display()
                ),
                format!("{}: nothing was changed", out.display())
            ]
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine");
    assert_eq!(std::fs::read(&store).unwrap(), torn);
    assert!(!beside(&out, ".retired").exists());
    std::fs::remove_file(out.join("notes.txt")).unwrap();
    assert_eq!(SessionDir::repair(&out).unwrap().reductions, 0);
    assert_eq!(SessionDir::open(&out).unwrap().sidecar, session());
}
