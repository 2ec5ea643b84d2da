//! Replacing a session directory whole. A writer (`reduce`, `repair`) builds the new directory
//! beside it, at `DIR.staging`, syncs it, and swaps it in with two renames: `DIR` to
//! `DIR.retired`, then `DIR.staging` to `DIR`. Wherever a run is cut (a kill, a crash, a full
//! disk), `DIR` is the previous complete directory, absent (the previous one then waits whole
//! at `DIR.retired`, and the next writer puts it back), or the new complete one: never a mix of
//! the two, which no manifest could vouch for.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use super::files::lock_exclusive;
use super::{LOCK, LOG, MANIFEST, STORE, TEMPORARIES, VIEW, io_error, refused};
use crate::Error;
use crate::show::shown;

/// The suffix of the directory a writer builds the new one in.
pub(super) const STAGING: &str = ".staging";
/// The suffix the previous directory has between the two renames of a swap.
pub(super) const RETIRED: &str = ".retired";

/// `dir` with `suffix` appended to its name, byte for byte.
pub(super) fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Every name a directory of ours holds, files first, relative to it; the lock last, so that a
/// directory whose removal was cut short still has it while it holds anything else.
fn our_files() -> impl Iterator<Item = &'static str> {
    [VIEW, LOG, STORE, MANIFEST]
        .into_iter()
        .chain(TEMPORARIES)
        .chain([LOCK])
}

/// The first entry of `dir` (or of its `sidecar/`) that is not one of rehydrate's names, as a
/// regular file (or `sidecar/` itself): what a replaced directory would carry away.
pub(super) fn first_foreign(dir: &Path) -> Option<PathBuf> {
    let mut names: Vec<PathBuf> = Vec::new();
    for (inside, prefix) in [(dir.to_path_buf(), ""), (dir.join("sidecar"), "sidecar/")] {
        let Ok(entries) = fs::read_dir(&inside) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let full = format!("{prefix}{name}");
            let is_file = e.file_type().is_ok_and(|t| t.is_file());
            let is_sidecar =
                prefix.is_empty() && name == "sidecar" && e.file_type().is_ok_and(|t| t.is_dir());
            let ours = is_sidecar || (is_file && our_files().any(|f| f == full));
            if !ours {
                names.push(e.path());
            }
        }
    }
    names.sort();
    names.into_iter().next()
}

/// The directory `dir` names, as the path a writer swaps: itself without trailing slashes or
/// `.` components (`out/`, `./out/.` name `out`, whose siblings are `out.staging` and
/// `out.retired`), or the directory a link there points to (resolved even when the link
/// dangles, as it does between the two renames of a swap through it).
///
/// # Errors
///
/// [`Error::DirRefused`] when the path has no last name to swap (`.`, `..`, `/`, or one
/// ending in `..`); [`Error::DirIo`] when a link cannot be read.
pub(super) fn resolve(dir: &Path) -> Result<PathBuf, Error> {
    let dir: PathBuf = dir.components().collect();
    if dir.file_name().is_none() {
        return Err(refused(format!(
            "{}: names no directory of its own (it is `.`, `/` or ends in `..`); the directory is replaced whole, beside its parent's other entries, so name it, as in `--out out`",
            shown(&dir)
        )));
    }
    let dir = dir.as_path();
    if !fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Ok(dir.to_path_buf());
    }
    if let Ok(resolved) = fs::canonicalize(dir) {
        return Ok(resolved);
    }
    let target =
        fs::read_link(dir).map_err(|e| io_error(format!("cannot resolve {}", shown(dir)), e))?;
    Ok(match dir.parent() {
        Some(parent) if target.is_relative() => parent.join(target),
        _ => target,
    })
}

/// The lock of a leftover directory, when it has one: one without (emptied, or cut short
/// before its lock was made) has no writer to wait for.
fn lock_leftover(path: &Path) -> Result<Option<File>, Error> {
    if fs::symlink_metadata(path.join(LOCK)).is_err() {
        return Ok(None);
    }
    lock_exclusive(path).map(Some)
}

/// Whether `path` is a real directory (not a link) holding nothing but our names, each a
/// regular file, and `sidecar/`.
fn holds_only_ours(path: &Path) -> bool {
    let is_dir = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    if !is_dir(path) {
        return false;
    }
    let ours = |inside: &Path, prefix: &str| -> bool {
        let Ok(entries) = fs::read_dir(inside) else {
            return false;
        };
        entries.flatten().all(|e| {
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                return false;
            };
            let full = format!("{prefix}{name}");
            let regular = e.file_type().is_ok_and(|t| t.is_file());
            (regular && our_files().any(|f| f == full))
                || (prefix.is_empty()
                    && name == "sidecar"
                    && e.file_type().is_ok_and(|t| t.is_dir()))
        })
    };
    ours(path, "") && (!is_dir(&path.join("sidecar")) || ours(&path.join("sidecar"), "sidecar/"))
}

/// Removes the directory `path` of ours: each of our names, then `sidecar/`, then itself.
/// Anything else in it stays, and so does the directory then.
fn remove_ours(path: &Path) -> io::Result<()> {
    for name in our_files() {
        match fs::remove_file(path.join(name)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    match fs::remove_dir(path.join("sidecar")) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    fs::remove_dir(path)
}

/// The lock of the directory holding `DIR` (exclusive, advisory), which every writer holds
/// while it inspects, creates, swaps or removes the names `DIR`, `DIR.staging` and
/// `DIR.retired`: a second writer never sees another's staging directory before its lock is
/// taken, or its swap half done, and so never mistakes either for an interrupted run's
/// leftovers. It is held for milliseconds (no file is written under it), and waited for.
/// Where the parent cannot be opened for reading (a directory a user may write but not list),
/// nothing is locked; the lock of each directory still keeps out a second writer.
pub(crate) struct ParentLock {
    _file: Option<File>,
}

impl ParentLock {
    /// Takes the lock of `dir`'s parent, creating the parent first when `create` holds.
    ///
    /// # Errors
    /// [`Error::DirIo`] when the parent cannot be created, or locking it fails.
    pub(crate) fn take(dir: &Path, create: bool) -> Result<ParentLock, Error> {
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if create {
            fs::create_dir_all(parent)
                .map_err(|e| io_error(format!("cannot create {}", shown(parent)), e))?;
        }
        let Ok(file) = File::open(parent) else {
            return Ok(ParentLock { _file: None });
        };
        file.lock()
            .map_err(|e| io_error(format!("cannot lock {}", shown(parent)), e))?;
        Ok(ParentLock { _file: Some(file) })
    }
}

/// Before a writer takes `dir`, under its [`ParentLock`]: what an interrupted swap left. A `DIR.retired` while `dir`
/// is absent is the previous directory, put back (returned, for a warning); one beside `dir`
/// is the previous directory of a swap that completed, removed. A stale `DIR.staging` is
/// removed. Either is refused, and left, when it holds anything of someone else's or another
/// process holds its lock.
pub(super) fn recover(dir: &Path, _held: &ParentLock) -> Result<Vec<String>, Error> {
    let mut notes = Vec::new();
    let retired = sibling(dir, RETIRED);
    if fs::symlink_metadata(&retired).is_ok() {
        let lock = claim_leftover(&retired)?;
        if fs::symlink_metadata(dir).is_err()
            && fs::symlink_metadata(retired.join(MANIFEST)).is_ok()
        {
            fs::rename(&retired, dir)
                .map_err(|e| io_error(format!("cannot restore {}", shown(&retired)), e))?;
            notes.push(format!(
                "{}: restored from {}, where an interrupted run left it",
                shown(dir),
                shown(&retired)
            ));
        } else {
            remove_leftover(&retired)?;
            notes.push(format!(
                "{}: removed the previous directory an interrupted run left",
                shown(&retired)
            ));
        }
        drop(lock);
    }
    let staging = sibling(dir, STAGING);
    if fs::symlink_metadata(&staging).is_ok() {
        // A refusal here follows a restore, maybe: it says so.
        let lock = claim_leftover(&staging).map_err(|e| with_notes(e, &notes))?;
        remove_leftover(&staging).map_err(|e| with_notes(e, &notes))?;
        drop(lock);
        notes.push(format!(
            "{}: removed the unfinished directory an interrupted run left",
            shown(&staging)
        ));
    }
    Ok(notes)
}

/// A refusal that follows what [`recover`] did (`notes`) says it, in parentheses: the user
/// would not know otherwise where the restored directory came from, or where a leftover went.
pub(super) fn with_notes(e: Error, notes: &[String]) -> Error {
    match e {
        Error::DirRefused(line) if !notes.is_empty() => {
            Error::DirRefused(format!("{line} ({})", notes.join("; ")))
        }
        other => other,
    }
}

/// Takes a leftover `DIR.retired` or `DIR.staging` for [`recover`]: its lock, when it has one.
/// Refused while another writer holds that lock (it is building the directory, or between
/// the two renames of its swap), and when the leftover is not a directory of ours alone.
fn claim_leftover(path: &Path) -> Result<Option<File>, Error> {
    let foreign = || {
        refused(format!(
            "{} holds something besides an interrupted run's files; move it away",
            shown(path)
        ))
    };
    if !fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(foreign());
    }
    let lock = lock_leftover(path)?;
    if !holds_only_ours(path) {
        return Err(foreign());
    }
    Ok(lock)
}

/// Removes a leftover [`claim_leftover`] took.
fn remove_leftover(path: &Path) -> Result<(), Error> {
    remove_ours(path).map_err(|e| io_error(format!("cannot remove stale {}", shown(path)), e))
}

/// Creates `DIR.staging` and its `sidecar/` (after [`recover`], it does not exist), under the
/// [`ParentLock`] the caller holds, and takes its lock, held until the swap is done.
pub(super) fn create_staging(dir: &Path, _held: &ParentLock) -> Result<(PathBuf, File), Error> {
    let staging = sibling(dir, STAGING);
    fs::create_dir(&staging)
        .and_then(|()| fs::create_dir(staging.join("sidecar")))
        .map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                refused(format!(
                    "{} is in use by another rehydrate process, writing it (it is building {})",
                    shown(dir),
                    shown(&staging)
                ))
            } else {
                io_error(format!("cannot create {}", shown(&staging)), e)
            }
        })?;
    let lock = lock_exclusive(&staging)?;
    Ok((staging, lock))
}

/// Removes an unfinished `DIR.staging` after a failure, under the [`ParentLock`].
pub(super) fn abandon_staging(staging: &Path) {
    let _held = ParentLock::take(staging, false);
    let _ = remove_ours(staging);
}

/// Syncs `path` (a file or a directory).
fn sync(path: &Path) -> Result<(), Error> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| io_error(format!("cannot sync {}", shown(path)), e))
}

/// Puts the complete directory `staging` in the place of `dir`: its files and directories
/// synced, then `dir` renamed to `DIR.retired` (when it exists), `staging` renamed to `dir`,
/// the parent synced, and the previous directory removed. When the second rename fails, the
/// previous directory is put back.
///
/// Once `staging` is in place, the run has succeeded: what goes wrong after that (the parent
/// cannot be synced, the previous directory cannot be removed whole) is returned as a warning
/// line each, not an error.
pub(super) fn swap_in(dir: &Path, staging: &Path) -> Result<Vec<String>, Error> {
    swap_in_with(dir, staging, &mut |from, to| fs::rename(from, to))
}

/// [`swap_in`] with its renames made by `rename` (the unit tests make one fail).
pub(crate) fn swap_in_with(
    dir: &Path,
    staging: &Path,
    rename: &mut dyn FnMut(&Path, &Path) -> io::Result<()>,
) -> Result<Vec<String>, Error> {
    for name in [VIEW, LOG, STORE, MANIFEST] {
        let file = staging.join(name);
        if fs::symlink_metadata(&file).is_ok() {
            sync(&file)?;
        }
    }
    sync(&staging.join("sidecar"))?;
    sync(staging)?;
    let _held = ParentLock::take(dir, false)?;
    let retired = sibling(dir, RETIRED);
    let existed = fs::symlink_metadata(dir).is_ok();
    if existed {
        rename(dir, &retired)
            .map_err(|e| io_error(format!("cannot move {} aside", shown(dir)), e))?;
    }
    if let Err(e) = rename(staging, dir) {
        if existed {
            let _ = rename(&retired, dir);
        }
        return Err(io_error(format!("cannot put {} in place", shown(dir)), e));
    }
    let mut warnings = Vec::new();
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Err(e) = File::open(parent).and_then(|f| f.sync_all()) {
        warnings.push(format!(
            "cannot sync {} ({e}): {} is in place, but a crash soon after could bring back the previous directory",
            shown(parent),
            shown(dir)
        ));
    }
    if existed && let Err(e) = remove_ours(&retired) {
        // Left whole or in part (a file someone put in the directory meanwhile, a directory
        // rehydrate may not write): the next writer refuses it until it is moved away.
        warnings.push(format!(
            "{}: the previous directory could not be removed ({e}); move it away before the next run",
            shown(&retired)
        ));
    }
    Ok(warnings)
}
