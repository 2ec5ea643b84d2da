//! What rehydrate reads back from disk: the session store (and its repair) and the output
//! directory of `rehydrate reduce` (and its repair), each damaged by the fuzzer's edits.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use arbitrary::Unstructured;
use rehydrate::model::Message;
use rehydrate::reduce::project_messages;
use rehydrate::sidecar::{check_inverts, verify_log};
use rehydrate::store::{MemoryBackend, SessionStore, StoreWriter, parse_store};
use rehydrate::{ReductionLog, ReductionPolicy, SessionDir, SyncPolicy};

use crate::generate;

/// One edit of a file's bytes.
enum Edit {
    /// The byte at a position (modulo the length) XORed with a nonzero mask.
    Flip(usize, u8),
    /// The bytes cut at a position.
    Cut(usize),
    /// Bytes of the fuzzer's inserted at a position.
    Insert(usize, Vec<u8>),
}

/// Up to `max` edits drawn from `u`.
fn edits(u: &mut Unstructured<'_>, max: usize) -> arbitrary::Result<Vec<Edit>> {
    let mut out = Vec::new();
    for _ in 0..u.int_in_range(0..=max)? {
        out.push(match u.int_in_range(0..=2)? {
            0 => Edit::Flip(u.arbitrary()?, u.int_in_range(1..=255)?),
            1 => Edit::Cut(u.arbitrary()?),
            _ => Edit::Insert(u.arbitrary()?, u.arbitrary()?),
        });
    }
    Ok(out)
}

/// `bytes` with `edits` applied in order.
fn edited(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for edit in edits {
        let at = |p: usize, len: usize| if len == 0 { 0 } else { p % (len + 1) };
        match edit {
            Edit::Flip(p, mask) if !bytes.is_empty() => {
                let i = p % bytes.len();
                bytes[i] ^= mask;
            }
            Edit::Flip(..) => {}
            Edit::Cut(p) => bytes.truncate(at(*p, bytes.len())),
            Edit::Insert(p, more) => {
                let i = at(*p, bytes.len());
                bytes.splice(i..i, more.iter().copied());
            }
        }
    }
    bytes
}

/// A generated session and its projection under the aggressive policy.
fn projected(u: &mut Unstructured<'_>) -> arbitrary::Result<(Vec<Message>, ReductionLog)> {
    let history = generate::session(u, 3)?;
    let out = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::aggressive(),
    );
    Ok((history, out.log))
}

/// A session store's bytes: the fuzzer's own, or a valid store of a generated session with
/// edits. Reading never panics; a store `repair` accepts keeps a prefix of the bytes, whole
/// records that parse as before, and reopens; a store read without a torn tail has nothing
/// to repair.
pub(crate) fn store(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(raw) = u.arbitrary::<bool>() else {
        return;
    };
    let bytes = if raw {
        u.take_rest().to_vec()
    } else {
        let (Ok((history, log)), Ok(edits)) = (projected(&mut u), edits(&mut u, 3)) else {
            return;
        };
        let mut writer = StoreWriter::new(Vec::new()).expect("writing to memory");
        for m in &history {
            writer.message(m).expect("writing to memory");
        }
        for r in &log.reductions {
            writer.reduction(r).expect("writing to memory");
        }
        edited(writer.into_inner(), &edits)
    };
    let name = Path::new("fuzz.rhyd");
    let parsed = parse_store(name, &bytes);
    let backend = MemoryBackend::with_bytes(name, bytes.clone());
    let Ok(report) = SessionStore::repair_in(backend.clone()) else {
        assert!(parsed.is_err(), "parse_store read a store repair refuses");
        return;
    };
    let (state, torn) = parsed.expect("repair accepted a store parse_store refuses");
    let kept = usize::try_from(report.kept_bytes).expect("kept bytes fit in memory");
    assert_eq!(torn.is_none(), report.dropped_bytes == 0);
    assert_eq!(backend.bytes(), bytes[..kept], "repair changed kept bytes");
    let reopened = SessionStore::open_in(backend, SyncPolicy::Never)
        .unwrap_or_else(|e| panic!("a repaired store does not reopen: {e}"));
    assert!(reopened.state().messages == state.messages);
    assert!(reopened.state().log == state.log);
}

/// The pristine output directory the session-directory target damages, and its contents.
struct Pristine {
    dir: PathBuf,
    files: Vec<(PathBuf, Vec<u8>)>,
    loaded: SessionDir,
}

/// Removes the scratch directories of fuzz processes that are gone (a fuzzer's process ends
/// without cleaning up).
fn remove_stale_scratch() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("rehydrate-fuzz-"))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Writes one output directory of a fixed generated session, once per process.
fn pristine() -> &'static Pristine {
    static PRISTINE: OnceLock<Pristine> = OnceLock::new();
    PRISTINE.get_or_init(|| {
        remove_stale_scratch();
        let root = std::env::temp_dir().join(format!("rehydrate-fuzz-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("a scratch directory");
        let source = root.join("session.json");
        std::fs::write(&source, b"[]").expect("a session file");
        let dir = root.join("pristine");
        let seed: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let (history, log) =
            projected(&mut Unstructured::new(&seed)).expect("a session from the fixed seed");
        let view = project_messages(&history, &log, &ReductionPolicy::aggressive()).view;
        let out = SessionDir::create(&dir, &source, false).expect("the pristine directory");
        let open = out
            .stage_messages([history.clone()], |_| {})
            .expect("the pristine store");
        let staged = [
            out.finish_store(open, &log).expect("the pristine store"),
            out.stage_log(&log).expect("the pristine log"),
            out.stage_view(&view).expect("the pristine view"),
        ];
        out.commit(&source, "openai", history.len(), staged)
            .expect("the pristine directory commits");
        let mut files = Vec::new();
        for name in [
            "sidecar/manifest.json",
            "view.json",
            "reductions.json",
            "sidecar/session.rhyd",
        ] {
            let bytes = std::fs::read(dir.join(name)).expect("a pristine file");
            files.push((PathBuf::from(name), bytes));
        }
        let loaded = SessionDir::open(&dir).expect("the pristine directory reads back");
        Pristine {
            dir: root.join("work"),
            files,
            loaded,
        }
    })
}

/// Whether `dir` passes every check `rehydrate verify` makes of its content.
fn verifies(dir: &SessionDir) -> bool {
    dir.file_mismatches.is_empty()
        && verify_log(&dir.log, &dir.sidecar).is_empty()
        && check_inverts(&dir.view, &dir.log, &dir.sidecar).is_ok()
}

/// The output directory of `rehydrate reduce` with its files edited, replaced or removed:
/// reading it never panics, and a directory that reads and verifies (at once, or after
/// `repair` accepted it) holds exactly the pristine view, log and messages: nothing the
/// manifest does not vouch for is ever served.
pub(crate) fn session_dir(data: &[u8]) {
    let pristine = pristine();
    let mut u = Unstructured::new(data);
    let mut files: Vec<(PathBuf, Option<Vec<u8>>)> = Vec::new();
    for (name, bytes) in &pristine.files {
        let Ok(how) = u.int_in_range(0u8..=9) else {
            return;
        };
        let bytes = match how {
            0 => None,
            1 => match u.arbitrary::<Vec<u8>>() {
                Ok(bytes) => Some(bytes),
                Err(_) => return,
            },
            2..=4 => match edits(&mut u, 3) {
                Ok(edits) => Some(edited(bytes.clone(), &edits)),
                Err(_) => return,
            },
            _ => Some(bytes.clone()),
        };
        files.push((name.clone(), bytes));
    }
    let dir = &pristine.dir;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("sidecar")).expect("the work directory");
    for (name, bytes) in &files {
        if let Some(bytes) = bytes {
            std::fs::write(dir.join(name), bytes).expect("a work file");
        }
    }
    let same = |loaded: &SessionDir| {
        loaded.view == pristine.loaded.view
            && loaded.log == pristine.loaded.log
            && loaded.sidecar == pristine.loaded.sidecar
    };
    if let Ok(loaded) = SessionDir::open(dir)
        && verifies(&loaded)
    {
        assert!(
            same(&loaded),
            "a damaged directory verifies with other content"
        );
        return;
    }
    if SessionDir::repair(dir).is_ok() {
        let loaded = SessionDir::open(dir)
            .unwrap_or_else(|e| panic!("a repaired directory does not read: {e}"));
        assert!(verifies(&loaded), "a repaired directory does not verify");
        assert!(same(&loaded), "a repaired directory holds other content");
    }
}
