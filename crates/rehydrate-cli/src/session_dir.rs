//! The output directory of `rehydrate reduce`: `view.json`, `reductions.json`, and the
//! sidecar (`sidecar/session.rhyd`, a session store holding the imported messages and the
//! reductions, plus `sidecar/manifest.json`). docs/FORMATS.md, "Output directory".

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};

use rehydrate_model::{Digest, Message, ReductionLog};
use rehydrate_sidecar::{Miss, StoreWriter, SummaryRecord, content_digest, parse_store};

use crate::failure::{Failure, input};

/// The manifest's `format` value.
const MANIFEST_FORMAT: &str = "rehydrate-sidecar";
/// The manifest's `version` value.
const MANIFEST_VERSION: u32 = 2;
/// The files the manifest records, relative to the directory.
const VIEW: &str = "view.json";
const LOG: &str = "reductions.json";
pub(crate) const STORE: &str = "sidecar/session.rhyd";
const MANIFEST: &str = "sidecar/manifest.json";

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

/// Creates `dir` and `dir/sidecar` if needed, ready for staging files.
fn create(dir: &Path) -> Result<(), Failure> {
    let sidecar_dir = dir.join("sidecar");
    fs::create_dir_all(&sidecar_dir)
        .map_err(|e| input(format!("cannot create {}: {e}", sidecar_dir.display())))
}

/// Removes `dir/sidecar` and `dir` if they are empty (after a failure, so that a directory
/// [`create`] made is not left behind); a directory holding anything is kept.
pub(crate) fn remove_if_empty(dir: &Path) {
    let _ = fs::remove_dir(dir.join("sidecar"));
    let _ = fs::remove_dir(dir);
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

/// Writes the store's message records straight to its temporary name in `dir` from messages
/// that arrive in batches while the session is imported: checks that `dir` would not overwrite
/// `source` ([`refuse_overwriting`]), [`create`]s it, writes each batch from `input` and then
/// passes the batch on to `output`. Every batch is passed on, even after an error (returned
/// once `input` is exhausted), so `output` always receives the whole session.
///
/// Staging touches no file a manifest vouches for, so files can be staged in parallel, and
/// before the projection is checked.
pub(crate) fn stage_messages(
    dir: &Path,
    source: &Path,
    input: Receiver<Vec<Message>>,
    output: &SyncSender<Vec<Message>>,
) -> Result<OpenStore, Failure> {
    let mut input = input.into_iter();
    let staged = refuse_overwriting(dir, source)
        .and_then(|()| create(dir))
        .and_then(|()| open_tmp(dir, STORE))
        .and_then(|(staged, w)| {
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

/// Puts staged files in place: removes a stale manifest first (it must not vouch for files
/// while they are replaced), renames each file, and writes the manifest last, so a directory
/// with a manifest is complete.
pub(crate) fn commit(
    dir: &Path,
    source: &Path,
    source_format: &str,
    messages: usize,
    staged: impl IntoIterator<Item = Staged>,
) -> Result<(), Failure> {
    let manifest_path = dir.join(MANIFEST);
    if manifest_path.exists() {
        fs::remove_file(&manifest_path)
            .map_err(|e| input(format!("cannot remove {}: {e}", manifest_path.display())))?;
    }
    let mut files = BTreeMap::new();
    for mut file in staged {
        fs::rename(&file.tmp, &file.path)
            .map_err(|e| input(format!("cannot write {}: {e}", file.path.display())))?;
        file.committed = true;
        files.insert(file.name.to_string(), file.entry.clone());
    }
    let manifest = Manifest {
        format: MANIFEST_FORMAT.to_string(),
        version: MANIFEST_VERSION,
        source: source.display().to_string(),
        source_format: source_format.to_string(),
        messages,
        files,
    };
    write_manifest(dir, &manifest)
}

/// Writes `sidecar/manifest.json` under its temporary name and renames it into place.
fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<(), Failure> {
    let mut staged = write_tmp(dir, MANIFEST, |w| {
        serde_json::to_writer_pretty(&mut *w, manifest)?;
        w.write_all(b"\n")
    })?;
    fs::rename(&staged.tmp, &staged.path)
        .map_err(|e| input(format!("cannot write {}: {e}", staged.path.display())))?;
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
    let tmp = PathBuf::from(format!("{}.tmp", path.display()));
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
    input(format!("cannot write {}: {e}", tmp.display()))
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
                dir.display(),
                transcript.display()
            )));
        }
    }
    Ok(())
}

/// Reads a directory back. Unreadable or malformed files are bad input naming the file (and
/// the line, for the sidecar); file digests that differ from the manifest are collected in
/// [`SessionDir::file_mismatches`].
pub(crate) fn read(dir: &Path) -> Result<SessionDir, Failure> {
    let read = |name: &str| {
        let path = dir.join(name);
        fs::read(&path).map_err(|e| input(format!("cannot read {}: {e}", path.display())))
    };
    let manifest_bytes = read(MANIFEST)?;
    let manifest: Manifest = serde_json::from_slice(&manifest_bytes)
        .map_err(|e| input(format!("{}: {e}", dir.join(MANIFEST).display())))?;
    if manifest.format != MANIFEST_FORMAT || manifest.version != MANIFEST_VERSION {
        return Err(input(format!(
            "{}: unsupported sidecar {} version {} (expected {MANIFEST_FORMAT} version {MANIFEST_VERSION})",
            dir.join(MANIFEST).display(),
            manifest.format,
            manifest.version
        )));
    }
    let mut file_mismatches = Vec::new();
    let mut check = |name: &str, bytes: &[u8]| match manifest.files.get(name) {
        None => file_mismatches.push(format!(
            "{}: not recorded in the manifest",
            dir.join(name).display()
        )),
        Some(entry) => {
            let actual = content_digest(bytes);
            if entry.blake3 != actual || entry.bytes != bytes.len() {
                file_mismatches.push(format!(
                    "{}: digest mismatch: manifest records {} ({} bytes), file has {actual} ({} bytes)",
                    dir.join(name).display(),
                    entry.blake3,
                    entry.bytes,
                    bytes.len()
                ));
            }
        }
    };
    // A file the manifest records that is gone means a damaged directory, not bad input.
    let read_recorded = |name: &str| {
        let path = dir.join(name);
        fs::read(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Failure::Verify(vec![format!(
                "{}: missing, though the manifest records it",
                path.display()
            )]),
            _ => input(format!("cannot read {}: {e}", path.display())),
        })
    };
    let view_bytes = read_recorded(VIEW)?;
    check(VIEW, &view_bytes);
    let log_bytes = read_recorded(LOG)?;
    check(LOG, &log_bytes);
    let store_bytes = read_recorded(STORE)?;
    check(STORE, &store_bytes);

    for name in manifest.files.keys() {
        if ![VIEW, LOG, STORE].contains(&name.as_str()) {
            file_mismatches.push(format!(
                "{}: records an unknown file `{name}`",
                dir.join(MANIFEST).display()
            ));
        }
    }
    // The directory exists and has a manifest: a file that no longer parses is a
    // verification failure, reported with every file mismatch found so far.
    let corrupt = |file_mismatches: &[String], e: String| {
        let mut lines = file_mismatches.to_vec();
        lines.push(e);
        Failure::Verify(lines)
    };
    let view: Vec<Message> = serde_json::from_slice(&view_bytes).map_err(|e| {
        corrupt(
            &file_mismatches,
            format!("{}: {e}", dir.join(VIEW).display()),
        )
    })?;
    let log: ReductionLog = serde_json::from_slice(&log_bytes).map_err(|e| {
        corrupt(
            &file_mismatches,
            format!("{}: {e}", dir.join(LOG).display()),
        )
    })?;
    let store_path = dir.join(STORE);
    let (state, torn) = parse_store(&store_path, &store_bytes)
        .map_err(|e| corrupt(&file_mismatches, e.to_string()))?;
    if let Some(torn) = torn {
        file_mismatches.push(format!(
            "{}: torn tail at byte {} ({} bytes: {}); `rehydrate repair {}` truncates it",
            store_path.display(),
            torn.offset,
            torn.bytes,
            torn.reason,
            dir.display()
        ));
    }
    if state.log != log {
        file_mismatches.push(format!(
            "{}: its reductions differ from {}",
            store_path.display(),
            dir.join(LOG).display()
        ));
    }
    let sidecar = state.messages;
    if sidecar.len() != manifest.messages {
        file_mismatches.push(format!(
            "{}: holds {} messages, the manifest records {}",
            store_path.display(),
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

/// What `rehydrate repair` did to a directory's store.
pub(crate) struct Repaired {
    pub(crate) path: PathBuf,
    pub(crate) report: rehydrate_sidecar::RepairReport,
}

/// Truncates a torn tail of the directory's store and, when it did, records the repaired file
/// (and its message count) in the manifest. A corrupt store is a verification failure.
pub(crate) fn repair(dir: &Path) -> Result<Repaired, Failure> {
    let manifest_path = dir.join(MANIFEST);
    let bytes = fs::read(&manifest_path)
        .map_err(|e| input(format!("cannot read {}: {e}", manifest_path.display())))?;
    let mut manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| input(format!("{}: {e}", manifest_path.display())))?;
    let path = dir.join(STORE);
    // A store that is missing, not a store, or corrupt is a damaged directory (exit 1); one
    // another process holds is bad input (exit 2), as elsewhere.
    let report = rehydrate_sidecar::repair(&path).map_err(|e| match e {
        rehydrate_sidecar::StoreError::Locked { .. } => input(e.to_string()),
        rehydrate_sidecar::StoreError::Io { source, .. }
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Failure::Verify(vec![format!(
                "{}: missing, though the manifest records it",
                path.display()
            )])
        }
        other => Failure::Verify(vec![other.to_string()]),
    })?;
    if report.dropped_bytes > 0 {
        let store =
            fs::read(&path).map_err(|e| input(format!("cannot read {}: {e}", path.display())))?;
        let (state, _) =
            parse_store(&path, &store).map_err(|e| Failure::Verify(vec![e.to_string()]))?;
        manifest.messages = state.messages.len();
        manifest.files.insert(
            STORE.to_string(),
            FileEntry {
                bytes: store.len(),
                blake3: content_digest(&store),
            },
        );
        write_manifest(dir, &manifest)?;
    }
    Ok(Repaired { path, report })
}
