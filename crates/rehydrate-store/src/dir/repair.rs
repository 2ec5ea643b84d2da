//! Restoring a session directory whose sidecar store a write cut short
//! ([`SessionDir::repair`](super::SessionDir::repair)).

use std::fs::{self, TryLockError};
use std::io::{Read as _, Write};
use std::path::Path;

use rehydrate_model::{Message, Reduction, ReductionLog};
use rehydrate_sidecar::{check_inverts, content_digest, verify_log};

use super::files::{ReadFail, lock_exclusive, open_regular, write_tmp};
use super::swap::{
    ParentLock, abandon_staging, create_staging, first_foreign, recover, resolve, swap_in,
    with_notes,
};
use super::{
    FileEntry, LOG, MANIFEST, Manifest, STORE, TEMPORARIES, VIEW, io_error, manifest_file_problems,
    read_manifest, read_recorded, refused,
};
use crate::show::shown;
use crate::{Error, StoreWriter, parse_store};

/// What [`SessionDir::repair`](super::SessionDir::repair) did to a directory, which verifies
/// afterwards.
///
/// Repair restores a directory whose sidecar store was cut short, all or nothing, under the
/// directory's lock and the store's own (docs/FORMATS.md, "repair"):
///
/// - a torn tail of the store is dropped back to its last whole record;
/// - reduction records the store lost (to a torn tail, or to a cut at a record boundary) are
///   rebuilt from `reductions.json`, each only after it verifies against the store's messages;
/// - the manifest then records the store's new size and digest.
///
/// The result is checked as verification checks it (every reduction verifies, the view inverts
/// to the store's messages) before anything is written; the repaired directory is then built
/// at `DIR.staging`, synced, and swapped in whole. What cannot be restored
/// (lost message records, a `view.json` or `reductions.json` that differs from the manifest,
/// corruption followed by whole records) is an [`Error::DirDamaged`] that says so and ends
/// with `DIR: nothing was changed`, and the directory is left as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired {
    /// One line per change, escaped for a terminal; empty when there was nothing to repair.
    pub lines: Vec<String>,
    /// The reductions the directory holds afterwards.
    pub reductions: usize,
    /// The messages the directory holds afterwards.
    pub messages: usize,
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
/// the store's messages) before anything is written; the repaired directory is built at
/// `DIR.staging` and swapped in whole only then. What cannot be restored (lost
/// message records, a `view.json` or `reductions.json` that differs from the manifest,
/// corruption followed by whole records) is a verification failure that says so, and the
/// directory is left as it was.
pub(super) fn repair(dir: &Path) -> Result<Repaired, Error> {
    // A link is followed: the directory it names is repaired, and the link stays.
    let dir = &resolve(dir)?;
    // What an interrupted swap left beside the directory is put back or removed first: a
    // directory a swap left at `DIR.retired` is the one to repair. A failure afterwards says
    // so, and that nothing else was changed.
    let notes = recover(dir, &ParentLock::take(dir, false)?)?;
    repair_locked(dir, notes.clone()).map_err(|e| match e {
        Error::DirDamaged(mut lines) => {
            let unchanged = format!("{}: nothing was changed", shown(dir));
            if lines.last() == Some(&unchanged) {
                lines.pop();
            }
            if notes.is_empty() {
                lines.push(unchanged);
            } else {
                lines.splice(0..0, notes);
                lines.push(format!("{}: nothing else was changed", shown(dir)));
            }
            Error::DirDamaged(lines)
        }
        other => with_notes(other, &notes),
    })
}

/// [`repair`] itself, after `notes` (what [`recover`] did); a verification failure it returns
/// may lack the closing line.
fn repair_locked(dir: &Path, notes: Vec<String>) -> Result<Repaired, Error> {
    let mut lines = notes;
    read_manifest(dir)?;
    let _lock = lock_exclusive(dir)?;
    // Read again under the lock: a writer may have swapped in another directory meanwhile.
    let mut manifest = read_manifest(dir)?;
    // The temporaries an older interrupted run left inside it are removed under the lock.
    for name in TEMPORARIES {
        let path = dir.join(name);
        if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file()) {
            fs::remove_file(&path)
                .map_err(|e| io_error(format!("cannot remove stale {}", shown(&path)), e))?;
            lines.push(format!(
                "{}: removed a temporary file an interrupted run left",
                shown(&path)
            ));
        }
    }
    let nothing_changed = |mut lines: Vec<String>| {
        lines.push(format!("{}: nothing was changed", shown(dir)));
        Error::DirDamaged(lines)
    };
    let recorded = |name: &str| -> Result<Vec<u8>, Error> {
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
            refused(format!("cannot read {}: {len} bytes", shown(&store_path)))
        }
        ReadFail::Io(e) => io_error(format!("cannot read {}", shown(&store_path)), e),
    })?;
    match store_file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(refused(format!(
                "session store {} is open for writing by another process (it is locked)",
                shown(&store_path)
            )));
        }
        Err(TryLockError::Error(e)) => {
            return Err(io_error(format!("cannot lock {}", shown(&store_path)), e));
        }
    }
    let mut bytes = Vec::new();
    store_file
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(format!("cannot read {}", shown(&store_path)), e))?;
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
                .map_err(|e| io_error(format!("cannot write {}", shown(&store_path)), e))?;
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
        // The repaired directory is built beside this one and swapped in whole: cut short,
        // the directory is the damaged one as it was, or the repaired one.
        // Replaced whole, the directory would carry a file of someone else's away to
        // `DIR.retired`, as `reduce --force` would.
        if let Some(foreign) = first_foreign(dir) {
            return Err(nothing_changed(vec![format!(
                "{} holds {}, which rehydrate did not write; repair replaces the directory whole, and only one holding nothing else: move it away",
                shown(dir),
                shown(&foreign)
            )]));
        }
        let (staging, staging_lock) = create_staging(dir, &ParentLock::take(dir, false)?)?;
        let built =
            build_repaired(dir, &staging, &store, &manifest).and_then(|()| swap_in(dir, &staging));
        if built.is_err() {
            abandon_staging(&staging);
        }
        drop(staging_lock);
        lines.extend(built?.into_iter().map(|w| format!("warning: {w}")));
    }
    drop(store_file);
    Ok(Repaired {
        lines,
        reductions: log.len(),
        messages: manifest.messages,
    })
}

/// Fills the staging directory of a repair: `view.json` and `reductions.json` as they are
/// (hard links, or copies where the file system has none), the repaired store and the
/// manifest recording it.
fn build_repaired(
    dir: &Path,
    staging: &Path,
    store: &[u8],
    manifest: &Manifest,
) -> Result<(), Error> {
    for name in [VIEW, LOG] {
        let (from, to) = (dir.join(name), staging.join(name));
        fs::hard_link(&from, &to)
            .or_else(|_| fs::copy(&from, &to).map(drop))
            .map_err(|e| io_error(format!("cannot write {}", shown(&to)), e))?;
    }
    for (name, bytes) in [
        (STORE, store.to_vec()),
        (MANIFEST, manifest_bytes(manifest)),
    ] {
        let mut staged = write_tmp(staging, name, |w| w.write_all(&bytes))?;
        fs::rename(&staged.tmp, &staged.path)
            .map_err(|e| io_error(format!("cannot write {}", shown(&staged.path)), e))?;
        staged.committed = true;
    }
    Ok(())
}

/// The manifest's bytes: pretty-printed JSON and a line break.
fn manifest_bytes(manifest: &Manifest) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(manifest).expect("a manifest always serializes");
    out.push(b'\n');
    out
}

/// `r3.ab..r9.cd`, or the one id.
fn id_range(reductions: &[Reduction]) -> String {
    match reductions {
        [] => String::new(),
        [only] => only.id.to_string(),
        [first, .., last] => format!("{} to {}", first.id, last.id),
    }
}
