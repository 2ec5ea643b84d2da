//! Writing a session directory: taking it ([`DirWriter`], under its exclusive lock), staging
//! each file in `DIR.staging`, and swapping the staged directory in whole (`swap.rs`).

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use rehydrate_model::{Message, ReductionLog};

use super::files::{
    HashingWriter, finish_tmp, input_error, lock_exclusive, open_tmp, read_bounded, write_tmp,
};
use super::swap::{
    ParentLock, abandon_staging, create_staging, first_foreign, recover, resolve, swap_in,
    with_notes,
};
use super::{
    LOCK, LOG, MANIFEST, MANIFEST_FORMAT, MANIFEST_VERSION, MAX_MANIFEST_BYTES, Manifest, STORE,
    TEMPORARIES, VIEW, io_error, refused,
};
use crate::show::shown;
use crate::{Error, StoreWriter};

pub use super::files::Staged;

/// The bytes of a directory's three data files, as [`encode`] serializes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// `view.json`.
    pub view: Vec<u8>,
    /// `reductions.json`.
    pub log: Vec<u8>,
    /// `sidecar/session.rhyd`.
    pub store: Vec<u8>,
}

/// Serializes the three data files in memory: the same bytes [`DirWriter::stage_messages`]
/// with [`DirWriter::finish_store`], [`DirWriter::stage_log`] and [`DirWriter::stage_view`]
/// write, for checking that a directory reads back equal.
///
/// # Panics
///
/// Never: messages and logs always serialize, and writing to memory does not fail.
pub fn encode<'a>(
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
    let mut buffer = Vec::new();
    for m in view {
        if any {
            out.write_all(b",\n")?;
        }
        any = true;
        buffer.clear();
        m.write_canonical(&mut buffer);
        out.write_all(&buffer)?;
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

/// A session directory taken for writing ([`SessionDir::create`](super::SessionDir::create)):
/// it holds the exclusive advisory lock on `sidecar/lock` until it is dropped, committed or
/// abandoned.
///
/// Taking it refuses a path that would overwrite the session file itself, a path that exists
/// and is not empty (unless forced), and, even when forced, anything but a rehydrate output
/// directory (docs/FORMATS.md, "Output directory"). It first puts back, or removes, what an
/// interrupted swap left beside the directory ([`DirWriter::notes`]); then creates
/// `dir/sidecar`, takes the lock (a second writer is refused, never waited for), looks again
/// under the lock, removes the temporary files an older interrupted run left inside it
/// ([`DirWriter::removed`]), and creates the staging directory `DIR.staging` beside it.
///
/// Then: [`DirWriter::stage_messages`] and [`DirWriter::finish_store`] (the store),
/// [`DirWriter::stage_log`] and [`DirWriter::stage_view`] each write one file into the
/// staging directory (they touch nothing a manifest vouches for, so they may run in
/// parallel), and [`DirWriter::commit`] swaps it in whole; [`DirWriter::abandon`] undoes what
/// was created.
#[derive(Debug)]
pub struct DirWriter {
    dir: PathBuf,
    /// The lock of the directory being replaced; none for a new one.
    file: Option<File>,
    /// `DIR.staging`, where the new directory is built, and its lock.
    staging: PathBuf,
    staging_lock: File,
    /// What putting back or removing an interrupted swap's leftovers did, one line each.
    notes: Vec<String>,
    /// What this run created in a directory that existed (`sidecar/`, the lock file; a new
    /// directory is not created before the swap): on failure, [`DirWriter::abandon`] removes exactly that,
    /// and nothing that existed before.
    created: [bool; 2],
    /// The stale temporary files an interrupted run had left, removed under the lock.
    removed: Vec<PathBuf>,
}

impl DirWriter {
    /// The directory being written.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The stale temporary files an interrupted run had left, which taking the directory
    /// removed (a host warns about each).
    pub fn removed(&self) -> &[PathBuf] {
        &self.removed
    }

    /// What taking the directory did about an interrupted swap, one line each (a host warns
    /// about each): `DIR: restored from DIR.retired, where an interrupted run left it`, or a
    /// leftover `DIR.retired` or `DIR.staging` removed.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Writes the store's message records straight to its temporary name from messages that
    /// arrive in batches while the session is imported: writes each batch of `batches`, then
    /// hands it to `pass_on`. Every batch is handed on, even after an error (returned once
    /// `batches` is exhausted), so `pass_on` always receives the whole session.
    ///
    /// # Errors
    ///
    /// [`Error::DirIo`] naming the temporary file when a write fails.
    pub fn stage_messages(
        &self,
        batches: impl IntoIterator<Item = Vec<Message>>,
        mut pass_on: impl FnMut(Vec<Message>),
    ) -> Result<OpenStore, Error> {
        let mut input = batches.into_iter();
        let staged = open_tmp(&self.staging, STORE).and_then(|(staged, w)| {
            let failed = |staged: &Staged, e: io::Error| input_error(&staged.tmp, e);
            let mut store = match StoreWriter::new(w) {
                Ok(store) => store,
                Err(e) => return Err(failed(&staged, e)),
            };
            for batch in &mut input {
                let written: io::Result<()> = batch.iter().try_for_each(|m| store.message(m));
                pass_on(batch);
                if let Err(e) = written {
                    return Err(failed(&staged, e));
                }
            }
            Ok(OpenStore { store, staged })
        });
        for batch in input {
            pass_on(batch);
        }
        staged
    }

    /// Writes the reduction records of `log` after the staged store's messages and closes it.
    ///
    /// # Errors
    ///
    /// [`Error::DirIo`] naming the temporary file when a write fails.
    pub fn finish_store(&self, open: OpenStore, log: &ReductionLog) -> Result<Staged, Error> {
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
            Err(e) => Err(input_error(&staged.tmp, e)),
        }
    }

    /// Serializes `reductions.json` (the log, pretty-printed, and a line break) to its temporary
    /// name.
    ///
    /// # Errors
    ///
    /// [`Error::DirIo`] naming the temporary file when a write fails.
    pub fn stage_log(&self, log: &ReductionLog) -> Result<Staged, Error> {
        write_tmp(&self.staging, LOG, |w| write_log(w, log))
    }

    /// Serializes `view.json` (a JSON array of canonical messages, one per line) to its
    /// temporary name.
    ///
    /// # Errors
    ///
    /// [`Error::DirIo`] naming the temporary file when a write fails.
    pub fn stage_view<'a>(
        &self,
        view: impl IntoIterator<Item = &'a Message>,
    ) -> Result<Staged, Error> {
        write_tmp(&self.staging, VIEW, |w| write_view(w, view))
    }

    /// Puts staged files in place, then releases the lock: writes the manifest that records them
    /// (`source` is the session file as the host names it, `source_format` its format, `messages`
    /// the store's message count) into the staging directory, syncs it, and swaps it in for
    /// the directory whole (a run cut short leaves the previous directory, or none with the
    /// previous one at `DIR.retired`, or the new one: never a mix). Returns a warning line for
    /// each thing that went wrong once the new directory was in place (the parent not synced,
    /// the previous directory not removed whole, left at `DIR.retired`).
    ///
    /// # Errors
    ///
    /// [`Error::DirIo`] naming the file when a write, sync or rename fails; the previous
    /// directory is then in place.
    pub fn commit(
        self,
        source: &Path,
        source_format: &str,
        messages: usize,
        staged: impl IntoIterator<Item = Staged>,
    ) -> Result<Vec<String>, Error> {
        let mut staged: Vec<Staged> = staged.into_iter().collect();
        let files = staged
            .iter()
            .map(|file| (file.name.to_string(), file.entry.clone()))
            .collect();
        let manifest = Manifest {
            format: MANIFEST_FORMAT.to_string(),
            version: MANIFEST_VERSION,
            source: crate::show::json_path(source),
            source_format: source_format.to_string(),
            messages,
            files,
        };
        let result = write_manifest(&self.staging, &manifest).and_then(|()| {
            for file in &mut staged {
                fs::rename(&file.tmp, &file.path)
                    .map_err(|e| io_error(format!("cannot write {}", shown(&file.path)), e))?;
                file.committed = true;
            }
            swap_in(&self.dir, &self.staging)
        });
        if result.is_err() {
            abandon_staging(&self.staging);
        }
        drop(self.staging_lock);
        drop(self.file);
        result
    }

    /// After a failure: removes the staging directory, and the lock file and `sidecar/` this
    /// run created in the directory (when they hold nothing else); the directory is left as it
    /// was (a new one was never created).
    pub fn abandon(self) {
        abandon_staging(&self.staging);
        drop(self.staging_lock);
        let [sidecar, lock] = self.created;
        if lock {
            let _ = fs::remove_file(self.dir.join(LOCK));
        }
        if sidecar {
            let _ = fs::remove_dir(self.dir.join("sidecar"));
        }
        drop(self.file);
    }
}

/// The store being staged: its message records are written, its reduction records come once
/// the projection is done ([`DirWriter::finish_store`]).
pub struct OpenStore {
    store: StoreWriter<BufWriter<HashingWriter<File>>>,
    staged: Staged,
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
fn existing(dir: &Path) -> Result<Existing, Error> {
    let meta = match fs::metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Existing::Empty),
        Err(e) => return Err(io_error(format!("cannot read {}", shown(dir)), e)),
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
        fs::read_dir(dir).map_err(|e| io_error(format!("cannot read {}", shown(dir)), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io_error(format!("cannot read {}", shown(dir)), e))?;
        let name = entry.file_name();
        let file_type = entry.file_type().ok();
        // `sidecar/` is descended only as a real directory, never through a link.
        if name == "sidecar" && file_type.is_some_and(|t| t.is_dir()) {
            let inner = fs::read_dir(entry.path())
                .map_err(|e| io_error(format!("cannot read {}", shown(entry.path())), e))?;
            for inner in inner {
                let inner =
                    inner.map_err(|e| io_error(format!("cannot read {}", shown(dir)), e))?;
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

/// [`SessionDir::create`](super::SessionDir::create): see [`DirWriter`].
pub(super) fn lock_for_writing(
    dir: &Path,
    transcript: &Path,
    force: bool,
) -> Result<DirWriter, Error> {
    // A link to a directory is followed: the swap replaces the directory it names, and the
    // link stays.
    let resolved = resolve(dir)?;
    let dir = resolved.as_path();
    refuse_overwriting(dir, transcript)?;
    // Everything up to the staging directory's lock happens under the parent's lock, so that
    // a second writer sees this one's names whole (and is refused), never half made.
    let held = ParentLock::take(dir, true)?;
    let notes = recover(dir, &held)?;
    let check = |existing: Existing| match existing {
        Existing::Empty => Ok(true),
        Existing::Ours if force => match first_foreign(dir) {
            // Replaced whole, the directory would carry the file away to `DIR.retired`.
            Some(foreign) => Err(refused(format!(
                "--out {} holds {}, which rehydrate did not write; --force replaces only a directory holding nothing else: move it away",
                shown(dir),
                shown(&foreign)
            ))),
            None => Ok(false),
        },
        Existing::Ours => Err(refused(format!(
            "--out {} is a rehydrate output directory already; pass --force to replace it",
            shown(dir)
        ))),
        Existing::Other(what) if force => Err(refused(format!(
            "--out {} is not a rehydrate output directory ({what}); --force replaces only one of those",
            shown(dir)
        ))),
        Existing::Other(what) => Err(refused(format!(
            "--out {} exists and is not empty ({what}); choose another directory",
            shown(dir)
        ))),
    };
    // A refusal says what was put back first, or the user would not know where it came from.
    check(existing(dir)?).map_err(|e| with_notes(e, &notes))?;
    if fs::symlink_metadata(dir).is_err() {
        // A new directory: it is not created until the swap puts the staged one in its place
        // (a run cut short leaves none); the staging directory's lock keeps out a second
        // writer meanwhile.
        let (staging, staging_lock) = create_staging(dir, &held)?;
        return Ok(DirWriter {
            dir: dir.to_path_buf(),
            file: None,
            staging,
            staging_lock,
            notes,
            created: [false; 2],
            removed: Vec::new(),
        });
    }
    let sidecar_dir = dir.join("sidecar");
    let exists = |path: &Path| fs::symlink_metadata(path).is_ok();
    let created = [!exists(&sidecar_dir), !exists(&dir.join(LOCK))];
    fs::create_dir_all(&sidecar_dir)
        .map_err(|e| io_error(format!("cannot create {}", shown(&sidecar_dir)), e))?;
    let file = match lock_exclusive(dir) {
        Ok(file) => file,
        Err(e) => {
            // Nothing of this run is left behind: remove only what it created.
            if created[0] {
                let _ = fs::remove_dir(&sidecar_dir);
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
                .map_err(|e| io_error(format!("cannot remove stale {}", shown(&path)), e))?;
            removed.push(path);
        }
    }
    let (staging, staging_lock) = create_staging(dir, &held)?;
    Ok(DirWriter {
        dir: dir.to_path_buf(),
        file: Some(file),
        staging,
        staging_lock,
        notes,
        created,
        removed,
    })
}

/// Writes `sidecar/manifest.json` under its temporary name and renames it into place.
fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<(), Error> {
    let mut staged = write_tmp(dir, MANIFEST, |w| {
        serde_json::to_writer_pretty(&mut *w, manifest)?;
        w.write_all(b"\n")
    })?;
    fs::rename(&staged.tmp, &staged.path)
        .map_err(|e| io_error(format!("cannot write {}", shown(&staged.path)), e))?;
    staged.committed = true;
    Ok(())
}

/// Refuses an output directory that would overwrite the session file itself.
fn refuse_overwriting(dir: &Path, transcript: &Path) -> Result<(), Error> {
    let Ok(source) = fs::canonicalize(transcript) else {
        return Ok(());
    };
    for name in [VIEW, LOG, STORE, MANIFEST] {
        let target = dir.join(name);
        if fs::canonicalize(&target).is_ok_and(|t| t == source) {
            return Err(refused(format!(
                "--out {} would overwrite the session file {} itself",
                shown(dir),
                shown(transcript)
            )));
        }
    }
    Ok(())
}
