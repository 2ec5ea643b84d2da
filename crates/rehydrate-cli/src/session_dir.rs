//! The output directory of `rehydrate reduce`: `view.json`, `reductions.json`, and the
//! sidecar (`sidecar/session.rhyd`, a session store holding the imported messages and the
//! reductions, plus `sidecar/manifest.json`). docs/FORMATS.md, "Output directory".

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, TryLockError};
use std::io::{self, BufWriter, Read as _, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};

use rehydrate_model::{Digest, Message, ReductionLog};
use rehydrate_sidecar::{check_inverts, content_digest, verify_log};
use rehydrate_store::{Miss, StoreWriter, SummaryRecord, parse_store};

use crate::failure::{Failure, input};
use crate::term::shown;

/// The manifest's `format` value.
const MANIFEST_FORMAT: &str = "rehydrate-sidecar";
/// The manifest's `version` value.
const MANIFEST_VERSION: u32 = 2;
/// The files the manifest records, relative to the directory.
const VIEW: &str = "view.json";
const LOG: &str = "reductions.json";
pub(crate) const STORE: &str = "sidecar/session.rhyd";
const MANIFEST: &str = "sidecar/manifest.json";
/// The directory's lock file: a writer (`reduce`, `repair`) holds its exclusive advisory lock
/// for the whole write, a reader its shared lock for the whole read.
const LOCK: &str = "sidecar/lock";
/// The temporary names files are staged under ([`tmp_path`] of each file).
const TEMPORARIES: [&str; 4] = [
    "view.json.tmp",
    "reductions.json.tmp",
    "sidecar/session.rhyd.tmp",
    "sidecar/manifest.json.tmp",
];
/// The largest manifest read, in bytes: it records three files, so anything near this is not
/// one.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// `sidecar/manifest.json`: what the directory holds and the digest of every file.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    pub(crate) format: String,
    pub(crate) version: u32,
    /// The session file the directory was made from, as given on the command line.
    pub(crate) source: String,
    /// The detected or requested session format.
    pub(crate) source_format: String,
    /// Number of messages in the sidecar.
    pub(crate) messages: usize,
    /// Size and blake3 of each file, keyed by path relative to the directory.
    pub(crate) files: BTreeMap<String, FileEntry>,
}

/// The size and digest of one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileEntry {
    pub(crate) bytes: usize,
    pub(crate) blake3: Digest,
}

/// What a directory holds once read back.
pub(crate) struct SessionDir {
    pub(crate) view: Vec<Message>,
    pub(crate) log: ReductionLog,
    pub(crate) sidecar: Vec<Message>,
    /// The compaction summaries the store records, in order.
    pub(crate) summaries: Vec<SummaryRecord>,
    /// The expand and search misses the store records, in order.
    pub(crate) misses: Vec<Miss>,
    pub(crate) manifest: Manifest,
    /// Files whose bytes differ from the manifest: one line each.
    pub(crate) file_mismatches: Vec<String>,
}

/// The bytes of each file of a directory, for checking that they read back equal.
pub(crate) struct Encoded {
    pub(crate) view: Vec<u8>,
    pub(crate) log: Vec<u8>,
    pub(crate) store: Vec<u8>,
}

/// Serializes the three data files in memory: the same bytes [`stage_messages`] with
/// [`finish_store`], [`stage_log`] and [`stage_view`] write.
pub(crate) fn encode<'a>(
    view: impl IntoIterator<Item = &'a Message>,
    log: &ReductionLog,
    sidecar: &[Message],
) -> Encoded {
    let mut encoded = Encoded {
        view: Vec::new(),
        log: Vec::new(),
        store: Vec::new(),
    };
    // Writing to a Vec fails only if serialization does, and these types always serialize.
    let written = write_view(&mut encoded.view, view)
        .and_then(|()| write_log(&mut encoded.log, log))
        .and_then(|()| {
            let mut store = StoreWriter::new(&mut encoded.store)?;
            for m in sidecar {
                store.message(m)?;
            }
            log.reductions.iter().try_for_each(|r| store.reduction(r))
        });
    written.expect("messages and logs always serialize to memory");
    encoded
}

/// `view.json`: a JSON array of canonical messages, one per line.
fn write_view<'a>(
    out: &mut impl Write,
    view: impl IntoIterator<Item = &'a Message>,
) -> io::Result<()> {
    out.write_all(b"[\n")?;
    let mut any = false;
    for m in view {
        if any {
            out.write_all(b",\n")?;
        }
        any = true;
        serde_json::to_writer(&mut *out, m)?;
    }
    if any {
        out.write_all(b"\n")?;
    }
    out.write_all(b"]\n")
}

/// `reductions.json`: the log, pretty-printed, and a line break.
fn write_log(out: &mut impl Write, log: &ReductionLog) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, log)?;
    out.write_all(b"\n")
}

/// `path` with `.tmp` appended to its name, byte for byte (never through its display form,
/// so a name that is not UTF-8 keeps its bytes).
fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

/// The default output directory of `reduce`: the session file's path with `.rehydrate`
/// appended, byte for byte. `None` for a session that is not a regular file (stdin, a pipe, a
/// device), whose path names no place to write next to.
pub(crate) fn default_out(transcript: &Path) -> Option<PathBuf> {
    // A file that cannot be read is reported by the read, naming it.
    if transcript == Path::new("-") || fs::metadata(transcript).is_ok_and(|m| !m.is_file()) {
        return None;
    }
    let mut name: OsString = transcript.as_os_str().to_owned();
    name.push(".rehydrate");
    Some(PathBuf::from(name))
}

/// An output directory locked for writing: the exclusive advisory lock on `sidecar/lock`,
/// held until this is dropped.
pub(crate) struct WriteLock {
    dir: PathBuf,
    file: File,
    /// What this run created (the directory, `sidecar/`, the lock file): on failure,
    /// [`WriteLock::abandon`] removes exactly that, and nothing that existed before.
    created: [bool; 3],
    /// The stale temporary files an interrupted run had left, removed under the lock.
    pub(crate) removed: Vec<PathBuf>,
}

impl WriteLock {
    /// After a failure: removes the lock file and the directory again if this run created
    /// them and they hold nothing else; a directory that existed is left as it was.
    pub(crate) fn abandon(self) {
        let [dir, sidecar, lock] = self.created;
        if lock {
            let _ = fs::remove_file(self.dir.join(LOCK));
        }
        if sidecar {
            let _ = fs::remove_dir(self.dir.join("sidecar"));
        }
        if dir {
            let _ = fs::remove_dir(&self.dir);
        }
        drop(self.file);
    }
}

/// What is at an output path before `reduce` writes there.
enum Existing {
    /// Nothing, or an empty directory, or one holding only what an interrupted run of
    /// `reduce` leaves (the lock file, temporary files, an empty `sidecar/`).
    Empty,
    /// A rehydrate output directory: `sidecar/manifest.json` is a manifest of ours.
    Ours,
    /// Anything else; the text names what is there.
    Other(String),
}

/// Looks at `dir` without changing it.
fn existing(dir: &Path) -> Result<Existing, Failure> {
    let meta = match fs::metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Existing::Empty),
        Err(e) => return Err(input(format!("cannot read {}: {e}", shown(dir)))),
    };
    if !meta.is_dir() {
        return Ok(Existing::Other("it is not a directory".to_string()));
    }
    // A name rehydrate leaves behind (the lock, a temporary file) that is anything but a
    // regular file is not ours: it is never removed, and the directory is refused.
    let ours_only = |name: &OsStr, inside: &str, file_type: Option<fs::FileType>| {
        let Some(name) = name.to_str() else {
            return Ok(false);
        };
        let full = if inside.is_empty() {
            name.to_string()
        } else {
            format!("{inside}/{name}")
        };
        if full != LOCK && !TEMPORARIES.contains(&full.as_str()) {
            return Ok(false);
        }
        if file_type.is_some_and(|t| t.is_file()) {
            Ok(true)
        } else {
            Err(Existing::Other(format!(
                "it holds {}, which is not a regular file",
                shown(dir.join(&full))
            )))
        }
    };
    let mut other = None;
    let entries =
        fs::read_dir(dir).map_err(|e| input(format!("cannot read {}: {e}", shown(dir))))?;
    for entry in entries {
        let entry = entry.map_err(|e| input(format!("cannot read {}: {e}", shown(dir))))?;
        let name = entry.file_name();
        let file_type = entry.file_type().ok();
        // `sidecar/` is descended only as a real directory, never through a link.
        if name == "sidecar" && file_type.is_some_and(|t| t.is_dir()) {
            let inner = fs::read_dir(entry.path())
                .map_err(|e| input(format!("cannot read {}: {e}", shown(entry.path()))))?;
            for inner in inner {
                let inner = inner.map_err(|e| input(format!("cannot read {}: {e}", shown(dir))))?;
                match ours_only(&inner.file_name(), "sidecar", inner.file_type().ok()) {
                    Ok(true) => {}
                    Ok(false) => {
                        other.get_or_insert_with(|| entry.path().join(inner.file_name()));
                    }
                    Err(refused) => return Ok(refused),
                }
            }
        } else {
            match ours_only(&name, "", file_type) {
                Ok(true) => {}
                Ok(false) => {
                    other.get_or_insert_with(|| entry.path());
                }
                Err(refused) => return Ok(refused),
            }
        }
    }
    let Some(other) = other else {
        return Ok(Existing::Empty);
    };
    let manifest = read_bounded(dir, MANIFEST, MAX_MANIFEST_BYTES).ok();
    let ours = manifest
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|v| {
            v.get("format").and_then(serde_json::Value::as_str) == Some(MANIFEST_FORMAT)
        });
    Ok(if ours {
        Existing::Ours
    } else {
        Existing::Other(format!("it holds {}", shown(&other)))
    })
}

/// Takes an output directory for writing, before anything is imported: refuses a path that
/// would overwrite the session file itself ([`refuse_overwriting`]), a path that exists and is
/// not empty (unless `force`), and, even with `force`, anything but a rehydrate output
/// directory (docs/FORMATS.md, "Output directory"). Then creates `dir/sidecar`, takes the
/// exclusive lock on `sidecar/lock` (a second writer is refused, never waited for), looks
/// again under the lock, and removes the temporary files an interrupted run left.
pub(crate) fn lock_for_writing(
    dir: &Path,
    transcript: &Path,
    force: bool,
) -> Result<WriteLock, Failure> {
    refuse_overwriting(dir, transcript)?;
    let check = |existing: Existing| match existing {
        Existing::Empty => Ok(true),
        Existing::Ours if force => Ok(false),
        Existing::Ours => Err(input(format!(
            "--out {} is a rehydrate output directory already; pass --force to replace it",
            shown(dir)
        ))),
        Existing::Other(what) if force => Err(input(format!(
            "--out {} is not a rehydrate output directory ({what}); --force replaces only one of those",
            shown(dir)
        ))),
        Existing::Other(what) => Err(input(format!(
            "--out {} exists and is not empty ({what}); choose another directory",
            shown(dir)
        ))),
    };
    check(existing(dir)?)?;
    let sidecar_dir = dir.join("sidecar");
    let exists = |path: &Path| fs::symlink_metadata(path).is_ok();
    let created = [
        !exists(dir),
        !exists(&sidecar_dir),
        !exists(&dir.join(LOCK)),
    ];
    fs::create_dir_all(&sidecar_dir)
        .map_err(|e| input(format!("cannot create {}: {e}", shown(&sidecar_dir))))?;
    let file = match lock_exclusive(dir) {
        Ok(file) => file,
        Err(e) => {
            // Nothing of this run is left behind: remove only what it created.
            if created[1] {
                let _ = fs::remove_dir(&sidecar_dir);
            }
            if created[0] {
                let _ = fs::remove_dir(dir);
            }
            return Err(e);
        }
    };
    // Under the lock: what another writer finished in the meantime counts too.
    check(existing(dir)?)?;
    let mut removed = Vec::new();
    for name in TEMPORARIES {
        let path = dir.join(name);
        if fs::symlink_metadata(&path).is_ok() {
            fs::remove_file(&path)
                .map_err(|e| input(format!("cannot remove stale {}: {e}", shown(&path))))?;
            removed.push(path);
        }
    }
    Ok(WriteLock {
        dir: dir.to_path_buf(),
        file,
        created,
        removed,
    })
}

/// Takes the exclusive lock of an output directory (creating `sidecar/lock`), or says another
/// process holds it: a second writer is refused, never waited for.
fn lock_exclusive(dir: &Path) -> Result<File, Failure> {
    let lock_path = dir.join(LOCK);
    check_lock_file(&lock_path).map_err(input)?;
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| input(format!("cannot create {}: {e}", shown(&lock_path))))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(input(format!(
            "{} is in use by another rehydrate process, reading or writing it (it holds the lock on {})",
            shown(dir),
            shown(&lock_path)
        ))),
        Err(TryLockError::Error(e)) => {
            Err(input(format!("cannot lock {}: {e}", shown(&lock_path))))
        }
    }
}

/// The lock file, when it exists, must be a regular file (not a link, a FIFO or a device,
/// whose opening could block or lead out of the directory): one line saying so otherwise.
fn check_lock_file(lock_path: &Path) -> Result<(), String> {
    match fs::symlink_metadata(lock_path) {
        Ok(meta) if !meta.file_type().is_file() => Err(format!(
            "{}: not a regular file (a link, directory, FIFO, socket or device); not opened",
            shown(lock_path)
        )),
        _ => Ok(()),
    }
}

/// Takes the shared lock of a directory being read, when it has a lock file: refused while a
/// writer holds it. A directory without one (or one a reader may not open) is read unlocked.
fn lock_for_reading(dir: &Path) -> Result<Option<File>, Failure> {
    let lock_path = dir.join(LOCK);
    check_lock_file(&lock_path).map_err(|line| Failure::Verify(vec![line]))?;
    let Ok(file) = File::open(&lock_path) else {
        return Ok(None);
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Err(input(format!(
            "{} is being written by another rehydrate process (it holds {}); try again when it is done",
            shown(dir),
            shown(&lock_path)
        ))),
        Err(TryLockError::Error(_)) => Ok(None),
    }
}

/// Why [`read_bounded`] read nothing.
enum ReadFail {
    /// There is nothing at the path.
    Missing,
    /// It is not a regular file inside the directory: one line.
    Refused(String),
    /// It is larger than allowed: the limit and the file's size, in bytes.
    TooLarge { limit: u64, len: u64 },
    /// The file system refused.
    Io(io::Error),
}

/// Opens `dir/name` for reading when it is a regular file: a symlink only when it resolves
/// inside `dir`; never a FIFO, a socket, a device or a directory.
fn open_regular(dir: &Path, name: &str) -> Result<File, ReadFail> {
    let path = dir.join(name);
    match fs::symlink_metadata(&path) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ReadFail::Missing),
        Err(e) => return Err(ReadFail::Io(e)),
    }
    // The path resolved, links in it included (a linked `sidecar/` too), must stay inside
    // the directory.
    let inside = match (fs::canonicalize(&path), fs::canonicalize(dir)) {
        (Ok(target), Ok(root)) => target.starts_with(&root),
        _ => false,
    };
    if !inside {
        return Err(ReadFail::Refused(format!(
            "{}: a symbolic link that leads out of the directory (or nowhere); not read",
            shown(&path)
        )));
    }
    let not_regular = || {
        ReadFail::Refused(format!(
            "{}: not a regular file (a directory, FIFO, socket or device); not read",
            shown(&path)
        ))
    };
    // Checked before opening: opening a FIFO would wait for a writer.
    if !fs::metadata(&path).map_err(ReadFail::Io)?.is_file() {
        return Err(not_regular());
    }
    let file = File::open(&path).map_err(ReadFail::Io)?;
    if !file.metadata().map_err(ReadFail::Io)?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

/// Reads `dir/name` when it is a regular file ([`open_regular`]) of at most `limit` bytes. A
/// file over the limit is refused after reading `limit + 1` bytes, never read whole.
fn read_bounded(dir: &Path, name: &str, limit: u64) -> Result<Vec<u8>, ReadFail> {
    let path = dir.join(name);
    let file = open_regular(dir, name)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadFail::Io)?;
    if bytes.len() as u64 > limit {
        let len = fs::metadata(&path).map_or(bytes.len() as u64, |m| m.len());
        return Err(ReadFail::TooLarge { limit, len });
    }
    Ok(bytes)
}

/// A file written under its temporary name (its name with `.tmp` added), hashed as it was
/// written, and waiting for [`commit`]. Dropping it uncommitted removes the temporary file, so
/// nothing half-done is left behind on failure.
pub(crate) struct Staged {
    /// The file's path relative to the directory, as the manifest records it.
    name: &'static str,
    path: PathBuf,
    tmp: PathBuf,
    entry: FileEntry,
    committed: bool,
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// The store being staged: its message records are written, its reduction records come once
/// the projection is done ([`finish_store`]).
pub(crate) struct OpenStore {
    store: StoreWriter<BufWriter<HashingWriter<File>>>,
    staged: Staged,
}

/// Writes the store's message records straight to its temporary name in `dir` (locked with
/// [`lock_for_writing`]) from messages that arrive in batches while the session is imported:
/// writes each batch from `input` and then passes the batch on to `output`. Every batch is passed on, even after an error (returned
/// once `input` is exhausted), so `output` always receives the whole session.
///
/// Staging touches no file a manifest vouches for, so files can be staged in parallel, and
/// before the projection is checked.
pub(crate) fn stage_messages(
    dir: &Path,
    input: Receiver<Vec<Message>>,
    output: &SyncSender<Vec<Message>>,
) -> Result<OpenStore, Failure> {
    let mut input = input.into_iter();
    let staged = open_tmp(dir, STORE).and_then(|(staged, w)| {
        let failed = |staged: &Staged, e: io::Error| input_error(&staged.tmp, &e);
        let mut store = match StoreWriter::new(w) {
            Ok(store) => store,
            Err(e) => return Err(failed(&staged, e)),
        };
        for batch in &mut input {
            let written: io::Result<()> = batch.iter().try_for_each(|m| store.message(m));
            // A receiver that hung up has failed on its own; nothing is lost here.
            let _ = output.send(batch);
            if let Err(e) = written {
                return Err(failed(&staged, e));
            }
        }
        Ok(OpenStore { store, staged })
    });
    for batch in input {
        let _ = output.send(batch);
    }
    staged
}

/// Writes the reduction records of `log` after the staged store's messages and closes it.
pub(crate) fn finish_store(open: OpenStore, log: &ReductionLog) -> Result<Staged, Failure> {
    let OpenStore { mut store, staged } = open;
    let written = log
        .reductions
        .iter()
        .try_for_each(|r| store.reduction(r))
        .and_then(|()| finish_tmp(store.into_inner()));
    match written {
        Ok(entry) => {
            let mut staged = staged;
            staged.entry = entry;
            Ok(staged)
        }
        Err(e) => Err(input_error(&staged.tmp, &e)),
    }
}

/// Serializes `reductions.json` to its temporary name (see [`stage_messages`]).
pub(crate) fn stage_log(dir: &Path, log: &ReductionLog) -> Result<Staged, Failure> {
    write_tmp(dir, LOG, |w| write_log(w, log))
}

/// Serializes `view.json` to its temporary name (see [`stage_messages`]).
pub(crate) fn stage_view<'a>(
    dir: &Path,
    view: impl IntoIterator<Item = &'a Message>,
) -> Result<Staged, Failure> {
    write_tmp(dir, VIEW, |w| write_view(w, view))
}

/// Puts staged files in place: writes the manifest that records them, then renames each file.
/// A run cut short among the renames leaves files the manifest's digests do not vouch for,
/// which every command reports, in a directory `--force` recognizes as ours.
pub(crate) fn commit(
    dir: &Path,
    source: &Path,
    source_format: &str,
    messages: usize,
    staged: impl IntoIterator<Item = Staged>,
) -> Result<(), Failure> {
    let mut staged: Vec<Staged> = staged.into_iter().collect();
    let files = staged
        .iter()
        .map(|file| (file.name.to_string(), file.entry.clone()))
        .collect();
    let manifest = Manifest {
        format: MANIFEST_FORMAT.to_string(),
        version: MANIFEST_VERSION,
        source: crate::term::json_path(source),
        source_format: source_format.to_string(),
        messages,
        files,
    };
    // The manifest first: a run cut short among the renames below leaves a directory the
    // manifest names as ours (so `--force` replaces it), whose files it does not vouch for.
    write_manifest(dir, &manifest)?;
    for file in &mut staged {
        fs::rename(&file.tmp, &file.path)
            .map_err(|e| input(format!("cannot write {}: {e}", shown(&file.path))))?;
        file.committed = true;
    }
    Ok(())
}

/// Writes `sidecar/manifest.json` under its temporary name and renames it into place.
fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<(), Failure> {
    let mut staged = write_tmp(dir, MANIFEST, |w| {
        serde_json::to_writer_pretty(&mut *w, manifest)?;
        w.write_all(b"\n")
    })?;
    fs::rename(&staged.tmp, &staged.path)
        .map_err(|e| input(format!("cannot write {}: {e}", shown(&staged.path))))?;
    staged.committed = true;
    Ok(())
}

/// The size of the buffer between serialization and a file.
const WRITE_BUFFER_BYTES: usize = 256 * 1024;

/// Writes `dir/name` through `fill` under its temporary name; the result knows the size and
/// blake3 of the bytes written. Nothing is left behind on failure.
fn write_tmp(
    dir: &Path,
    name: &'static str,
    fill: impl FnOnce(&mut BufWriter<HashingWriter<File>>) -> io::Result<()>,
) -> Result<Staged, Failure> {
    let (staged, mut w) = open_tmp(dir, name)?;
    match fill(&mut w).and_then(|()| finish_tmp(w)) {
        Ok(entry) => {
            let mut staged = staged;
            staged.entry = entry;
            Ok(staged)
        }
        Err(e) => Err(input_error(&staged.tmp, &e)),
    }
}

/// Creates `dir/name`'s temporary file: the staged file (whose entry [`finish_tmp`] fills in;
/// dropped uncommitted, it removes the file) and a buffered, hashing writer to it.
fn open_tmp(
    dir: &Path,
    name: &'static str,
) -> Result<(Staged, BufWriter<HashingWriter<File>>), Failure> {
    let path = dir.join(name);
    let tmp = tmp_path(&path);
    let file = File::create(&tmp).map_err(|e| input_error(&tmp, &e))?;
    let staged = Staged {
        name,
        path,
        tmp,
        entry: FileEntry {
            bytes: 0,
            blake3: content_digest(b""),
        },
        committed: false,
    };
    Ok((
        staged,
        BufWriter::with_capacity(WRITE_BUFFER_BYTES, HashingWriter::new(file)),
    ))
}

/// Flushes a staged file's writer: the size and blake3 of everything written.
fn finish_tmp(w: BufWriter<HashingWriter<File>>) -> io::Result<FileEntry> {
    let hashing = w.into_inner().map_err(io::IntoInnerError::into_error)?;
    Ok(hashing.finish())
}

/// A failed write of a staged file.
fn input_error(tmp: &Path, e: &io::Error) -> Failure {
    input(format!("cannot write {}: {e}", shown(tmp)))
}

/// A writer that hashes and counts the bytes it passes on.
struct HashingWriter<W> {
    inner: W,
    hasher: blake3::Hasher,
    bytes: usize,
}

impl<W: Write> HashingWriter<W> {
    fn new(inner: W) -> HashingWriter<W> {
        HashingWriter {
            inner,
            hasher: blake3::Hasher::new(),
            bytes: 0,
        }
    }

    /// The size and blake3 of everything written; closes the inner writer.
    fn finish(self) -> FileEntry {
        FileEntry {
            bytes: self.bytes,
            blake3: Digest(*self.hasher.finalize().as_bytes()),
        }
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        let written = buf.get(..n).unwrap_or(buf);
        self.hasher.update(written);
        self.bytes += written.len();
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Refuses an output directory that would overwrite the session file itself.
pub(crate) fn refuse_overwriting(dir: &Path, transcript: &Path) -> Result<(), Failure> {
    let Ok(source) = fs::canonicalize(transcript) else {
        return Ok(());
    };
    for name in [VIEW, LOG, STORE, MANIFEST] {
        let target = dir.join(name);
        if fs::canonicalize(&target).is_ok_and(|t| t == source) {
            return Err(input(format!(
                "--out {} would overwrite the session file {} itself",
                shown(dir),
                shown(transcript)
            )));
        }
    }
    Ok(())
}

/// The manifest of `dir`: a directory without one is not an output directory (bad input,
/// exit 2); one that does not parse, is too large or has another format or version is a
/// damaged directory (exit 1).
fn read_manifest(dir: &Path) -> Result<Manifest, Failure> {
    let path = dir.join(MANIFEST);
    if !dir.is_dir() {
        let what = if fs::symlink_metadata(dir).is_ok() {
            "not a directory"
        } else {
            "no such directory"
        };
        return Err(input(format!(
            "{}: not an output directory of `rehydrate reduce` ({what})",
            shown(dir)
        )));
    }
    let bytes = match read_bounded(dir, MANIFEST, MAX_MANIFEST_BYTES) {
        Ok(bytes) => bytes,
        Err(ReadFail::Missing) => {
            return Err(input(format!(
                "{}: not an output directory of `rehydrate reduce` (it has no {MANIFEST})",
                shown(dir)
            )));
        }
        Err(ReadFail::Refused(line)) => return Err(Failure::Verify(vec![line])),
        Err(ReadFail::TooLarge { limit, len }) => {
            return Err(Failure::Verify(vec![format!(
                "{}: {len} bytes, more than a manifest's {limit}; not read",
                shown(&path)
            )]));
        }
        Err(ReadFail::Io(e)) => return Err(input(format!("cannot read {}: {e}", shown(&path)))),
    };
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| Failure::Verify(vec![format!("{}: {e}", shown(&path))]))?;
    if manifest.format != MANIFEST_FORMAT || manifest.version != MANIFEST_VERSION {
        return Err(Failure::Verify(vec![format!(
            "{}: unsupported sidecar {} version {} (expected {MANIFEST_FORMAT} version {MANIFEST_VERSION}); reduce the session again",
            shown(&path),
            manifest.format,
            manifest.version
        )]));
    }
    Ok(manifest)
}

/// What is wrong with the files a manifest records, one line each: one of the three files it
/// does not record, or a file it records that is not one of them. Empty for a sound manifest.
fn manifest_file_problems(dir: &Path, manifest: &Manifest) -> Vec<String> {
    let mut problems: Vec<String> = [VIEW, LOG, STORE]
        .into_iter()
        .filter(|name| !manifest.files.contains_key(*name))
        .map(|name| format!("{}: not recorded in the manifest", shown(dir.join(name))))
        .collect();
    problems.extend(
        manifest
            .files
            .keys()
            .filter(|name| ![VIEW, LOG, STORE].contains(&name.as_str()))
            .map(|name| {
                format!(
                    "{}: records an unknown file `{}`",
                    shown(dir.join(MANIFEST)),
                    crate::term::printable(name)
                )
            }),
    );
    problems
}

/// Reads a file the manifest records, bounded by the size it records ([`read_bounded`]). A
/// file that is gone, larger than recorded, or not a regular file inside the directory means
/// a damaged directory (exit 1).
fn read_recorded(dir: &Path, manifest: &Manifest, name: &str) -> Result<Vec<u8>, Failure> {
    let path = dir.join(name);
    let limit = manifest.files.get(name).map_or(0, |e| e.bytes as u64);
    read_bounded(dir, name, limit).map_err(|e| match e {
        ReadFail::Missing => Failure::Verify(vec![format!(
            "{}: missing, though the manifest records it",
            shown(&path)
        )]),
        ReadFail::Refused(line) => Failure::Verify(vec![line]),
        ReadFail::TooLarge { limit, len } => Failure::Verify(vec![format!(
            "{}: digest mismatch: the manifest records {limit} bytes, the file has {len} (not read){}",
            shown(&path),
            if name == STORE {
                format!(
                    "; `rehydrate repair {}` restores a store a write left longer",
                    shown(dir)
                )
            } else {
                String::new()
            }
        )]),
        ReadFail::Io(e) => input(format!("cannot read {}: {e}", shown(&path))),
    })
}

/// Reads a directory back under its shared lock. Unreadable files are bad input naming the
/// file; a damaged directory (a manifest that does not parse, a recorded file missing, larger
/// than recorded or not a regular file, a file that does not parse) is a verification failure
/// naming it (and the line, for the sidecar); file digests that differ from the manifest are
/// collected in [`SessionDir::file_mismatches`].
pub(crate) fn read(dir: &Path) -> Result<SessionDir, Failure> {
    let manifest = read_manifest(dir)?;
    let _lock = lock_for_reading(dir)?;
    let mut file_mismatches = Vec::new();
    let problems = manifest_file_problems(dir, &manifest);
    if !problems.is_empty() {
        return Err(Failure::Verify(problems));
    }
    let mut check = |name: &str, bytes: &[u8]| {
        let entry = &manifest.files[name];
        let actual = content_digest(bytes);
        if entry.blake3 != actual || entry.bytes != bytes.len() {
            file_mismatches.push(format!(
                "{}: digest mismatch: manifest records {} ({} bytes), file has {actual} ({} bytes)",
                shown(dir.join(name)),
                entry.blake3,
                entry.bytes,
                bytes.len()
            ));
        }
    };
    let view_bytes = read_recorded(dir, &manifest, VIEW)?;
    check(VIEW, &view_bytes);
    let log_bytes = read_recorded(dir, &manifest, LOG)?;
    check(LOG, &log_bytes);
    let store_bytes = read_recorded(dir, &manifest, STORE)?;
    check(STORE, &store_bytes);

    // The directory exists and has a manifest: a file that no longer parses is a
    // verification failure, reported with every file mismatch found so far.
    let corrupt = |file_mismatches: &[String], e: String| {
        let mut lines = file_mismatches.to_vec();
        lines.push(e);
        Failure::Verify(lines)
    };
    let view: Vec<Message> = serde_json::from_slice(&view_bytes)
        .map_err(|e| corrupt(&file_mismatches, format!("{}: {e}", shown(dir.join(VIEW)))))?;
    let log: ReductionLog = serde_json::from_slice(&log_bytes)
        .map_err(|e| corrupt(&file_mismatches, format!("{}: {e}", shown(dir.join(LOG)))))?;
    let store_path = dir.join(STORE);
    let (state, torn) = parse_store(&store_path, &store_bytes)
        .map_err(|e| corrupt(&file_mismatches, e.to_string()))?;
    if let Some(torn) = torn {
        file_mismatches.push(format!(
            "{}: torn tail at byte {} ({} bytes: {}); `rehydrate repair {}` truncates it",
            shown(&store_path),
            torn.offset,
            torn.bytes,
            torn.reason,
            shown(dir)
        ));
    }
    if state.log != log {
        file_mismatches.push(format!(
            "{}: its reductions differ from {}; `rehydrate repair {}` rebuilds what reductions.json still holds",
            shown(&store_path),
            shown(dir.join(LOG)),
            shown(dir)
        ));
    }
    let sidecar = state.messages;
    if sidecar.len() != manifest.messages {
        file_mismatches.push(format!(
            "{}: holds {} messages, the manifest records {}",
            shown(&store_path),
            sidecar.len(),
            manifest.messages
        ));
    }
    Ok(SessionDir {
        view,
        log,
        sidecar,
        summaries: state.summaries,
        misses: state.misses,
        manifest,
        file_mismatches,
    })
}

/// What `rehydrate repair` did to a directory: one line per change (none when there was
/// nothing to repair), the directory verifying afterwards.
pub(crate) struct Repaired {
    pub(crate) lines: Vec<String>,
    pub(crate) reductions: usize,
    pub(crate) messages: usize,
}

/// Restores a directory whose sidecar store was cut short, all or nothing, under the
/// directory's lock and the store's own (docs/FORMATS.md, "repair"):
///
/// - a torn tail of the store is dropped back to its last whole record;
/// - reduction records the store lost (to a torn tail, or to a cut at a record boundary) are
///   rebuilt from `reductions.json`, each only after it verifies against the store's messages;
/// - the manifest then records the store's new size and digest.
///
/// The result is checked as `verify` checks it (every reduction verifies, the view inverts to
/// the store's messages) before anything is written; the new store and manifest are written
/// under temporary names and renamed into place only then. What cannot be restored (lost
/// message records, a `view.json` or `reductions.json` that differs from the manifest,
/// corruption followed by whole records) is a verification failure that says so, and the
/// directory is left as it was.
pub(crate) fn repair(dir: &Path) -> Result<Repaired, Failure> {
    repair_locked(dir).map_err(|e| match e {
        Failure::Verify(mut lines) => {
            let last = format!("{}: nothing was changed", shown(dir));
            if lines.last() != Some(&last) {
                lines.push(last);
            }
            Failure::Verify(lines)
        }
        other => other,
    })
}

/// [`repair`] itself; a verification failure it returns may lack the closing line.
fn repair_locked(dir: &Path) -> Result<Repaired, Failure> {
    let mut manifest = read_manifest(dir)?;
    let _lock = lock_exclusive(dir)?;
    // Temporaries an interrupted reduce or repair left are removed under the lock.
    let mut lines = Vec::new();
    for name in TEMPORARIES {
        let path = dir.join(name);
        if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file()) {
            fs::remove_file(&path)
                .map_err(|e| input(format!("cannot remove stale {}: {e}", shown(&path))))?;
            lines.push(format!(
                "{}: removed a temporary file an interrupted run left",
                shown(&path)
            ));
        }
    }
    let nothing_changed = |mut lines: Vec<String>| {
        lines.push(format!("{}: nothing was changed", shown(dir)));
        Failure::Verify(lines)
    };
    let recorded = |name: &str| -> Result<Vec<u8>, Failure> {
        let bytes = read_recorded(dir, &manifest, name)?;
        let entry = &manifest.files[name];
        if content_digest(&bytes) != entry.blake3 || bytes.len() != entry.bytes {
            return Err(nothing_changed(vec![format!(
                "{}: differs from the manifest, and repair restores only the sidecar store from it",
                shown(dir.join(name))
            )]));
        }
        Ok(bytes)
    };
    let problems = manifest_file_problems(dir, &manifest);
    if !problems.is_empty() {
        return Err(nothing_changed(problems));
    }
    let view_bytes = recorded(VIEW)?;
    let log_bytes = recorded(LOG)?;
    let view: Vec<Message> = serde_json::from_slice(&view_bytes)
        .map_err(|e| nothing_changed(vec![format!("{}: {e}", shown(dir.join(VIEW)))]))?;
    let log: ReductionLog = serde_json::from_slice(&log_bytes)
        .map_err(|e| nothing_changed(vec![format!("{}: {e}", shown(dir.join(LOG)))]))?;

    let store_path = dir.join(STORE);
    let mut store_file = open_regular(dir, STORE).map_err(|e| match e {
        ReadFail::Missing => nothing_changed(vec![format!(
            "{}: missing, though the manifest records it",
            shown(&store_path)
        )]),
        ReadFail::Refused(line) => nothing_changed(vec![line]),
        ReadFail::TooLarge { len, .. } => {
            input(format!("cannot read {}: {len} bytes", shown(&store_path)))
        }
        ReadFail::Io(e) => input(format!("cannot read {}: {e}", shown(&store_path))),
    })?;
    match store_file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(input(format!(
                "session store {} is open for writing by another process (it is locked)",
                shown(&store_path)
            )));
        }
        Err(TryLockError::Error(e)) => {
            return Err(input(format!("cannot lock {}: {e}", shown(&store_path))));
        }
    }
    let mut bytes = Vec::new();
    store_file
        .read_to_end(&mut bytes)
        .map_err(|e| input(format!("cannot read {}: {e}", shown(&store_path))))?;
    let (state, torn) = parse_store(&store_path, &bytes).map_err(|e| {
        nothing_changed(vec![format!(
            "{e}; repair drops only a torn tail, never a bad record that whole records follow"
        )])
    })?;

    let kept = torn.as_ref().map_or(bytes.len(), |t| t.offset as usize);
    if let Some(torn) = &torn {
        lines.push(format!(
            "{}: dropped a torn tail of {} bytes at byte {} ({}); kept {} whole records",
            shown(&store_path),
            torn.bytes,
            torn.offset,
            torn.reason,
            state.records
        ));
    }
    if state.messages.len() != manifest.messages {
        let lost = manifest.messages.saturating_sub(state.messages.len());
        return Err(nothing_changed(vec![format!(
            "{}: holds {} messages, the manifest records {}{}",
            shown(&store_path),
            state.messages.len(),
            manifest.messages,
            if lost > 0 {
                format!(
                    "; the records of messages {}..{} are lost and nothing else in the directory holds their bytes (reduce the session file again)",
                    state.messages.len(),
                    manifest.messages
                )
            } else {
                String::new()
            }
        )]));
    }
    let have = state.log.reductions.len();
    if log.reductions.get(..have) != Some(state.log.reductions.as_slice()) {
        return Err(nothing_changed(vec![format!(
            "{}: its {have} reductions are not the first ones of {} ({} reductions), so none can be rebuilt from it",
            shown(&store_path),
            shown(dir.join(LOG)),
            log.len()
        )]));
    }
    // Every reduction of reductions.json, the lost ones included, must verify against the
    // messages the store kept; view.json must invert to them.
    let mut failures: Vec<String> = verify_log(&log, &state.messages)
        .iter()
        .map(ToString::to_string)
        .collect();
    if let Err(e) = check_inverts(&view, &log, &state.messages)
        && !failures.contains(&e.to_string())
    {
        failures.push(e.to_string());
    }
    if !failures.is_empty() {
        return Err(nothing_changed(failures));
    }
    let read_len = bytes.len();
    let mut store = bytes;
    store.truncate(kept);
    let lost = &log.reductions[have..];
    if !lost.is_empty() {
        let mut writer = StoreWriter::appending(&mut store, state.records);
        for r in lost {
            writer
                .reduction(r)
                .map_err(|e| input(format!("cannot write {}: {e}", shown(&store_path))))?;
        }
        lines.push(format!(
            "{}: rebuilt {} reduction records ({}) from {}, each verified against the store's messages",
            shown(&store_path),
            lost.len(),
            id_range(lost),
            shown(dir.join(LOG))
        ));
    }
    let entry = FileEntry {
        bytes: store.len(),
        blake3: content_digest(&store),
    };
    let store_changed = torn.is_some() || !lost.is_empty() || store.len() != read_len;
    if store_changed || manifest.files[STORE] != entry {
        if !store_changed {
            lines.push(format!(
                "{}: its records verify; the manifest now records its {} bytes",
                shown(&store_path),
                store.len()
            ));
        }
        manifest.files.insert(STORE.to_string(), entry);
        // Both files are written and synced under their temporary names before either is
        // renamed: cut short between the renames, the store is whole and a second repair only
        // rewrites the manifest.
        let mut staged_store = write_tmp(dir, STORE, |w| w.write_all(&store))?;
        let mut staged_manifest = write_tmp(dir, MANIFEST, |w| {
            serde_json::to_writer_pretty(&mut *w, &manifest)?;
            w.write_all(b"\n")
        })?;
        for staged in [&mut staged_store, &mut staged_manifest] {
            File::open(&staged.tmp)
                .and_then(|f| f.sync_all())
                .map_err(|e| input_error(&staged.tmp, &e))?;
        }
        for staged in [&mut staged_store, &mut staged_manifest] {
            fs::rename(&staged.tmp, &staged.path)
                .map_err(|e| input(format!("cannot write {}: {e}", shown(&staged.path))))?;
            staged.committed = true;
        }
    }
    drop(store_file);
    Ok(Repaired {
        lines,
        reductions: log.len(),
        messages: manifest.messages,
    })
}

/// `r3.ab..r9.cd`, or the one id.
fn id_range(reductions: &[rehydrate_model::Reduction]) -> String {
    match reductions {
        [] => String::new(),
        [only] => only.id.to_string(),
        [first, .., last] => format!("{} to {}", first.id, last.id),
    }
}

/// A directory whose files differ from its manifest is a verification failure for every
/// command, not only `verify` (docs/FORMATS.md, "CLI JSON").
pub(crate) fn refuse_mismatched_files(loaded: &SessionDir) -> Result<(), Failure> {
    if loaded.file_mismatches.is_empty() {
        Ok(())
    } else {
        Err(Failure::Verify(loaded.file_mismatches.clone()))
    }
}
