//! The output directory of `rehydrate reduce` (docs/FORMATS.md, "Output directory"):
//! `view.json`, `reductions.json`, and the sidecar (`sidecar/session.rhyd`, a session store
//! holding the imported messages and the reductions, plus `sidecar/manifest.json`, which
//! records the size and blake3 of each file).
//!
//! [`SessionDir::open`] reads a directory back under its shared lock; [`SessionDir::create`]
//! takes one for writing ([`DirWriter`]: stage each file in `DIR.staging`, then
//! [`DirWriter::commit`] writes the manifest there and swaps the staged directory in whole,
//! `swap.rs`); [`SessionDir::repair`] restores a store a write cut short, swapped in the same
//! way. A directory whose bytes differ from its manifest is reported, never trusted; a run cut
//! short leaves the previous directory, the new one, or none (the previous one then at
//! `DIR.retired`), never a mix.

mod files;
mod repair;
pub(crate) mod swap;
mod write;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use rehydrate_model::{Digest, Message, ReductionLog};
use rehydrate_sidecar::content_digest;

use crate::show::shown;
use crate::{Error, Miss, SummaryRecord, parse_store};
use files::{ReadFail, lock_for_reading, read_bounded};

pub use repair::Repaired;
pub use write::{DirWriter, Encoded, OpenStore, Staged, encode};

/// The manifest's `format` value.
const MANIFEST_FORMAT: &str = "rehydrate-sidecar";
/// The manifest's `version` value.
const MANIFEST_VERSION: u32 = 2;
/// The files the manifest records, relative to the directory.
const VIEW: &str = "view.json";
const LOG: &str = "reductions.json";
/// The sidecar store, relative to the directory.
pub const STORE: &str = "sidecar/session.rhyd";
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
pub struct Manifest {
    /// Always `rehydrate-sidecar`.
    pub format: String,
    /// The manifest's version (2).
    pub version: u32,
    /// The session file the directory was made from, as given on the command line.
    pub source: String,
    /// The detected or requested session format.
    pub source_format: String,
    /// Number of messages in the sidecar.
    pub messages: usize,
    /// Size and blake3 of each file, keyed by path relative to the directory.
    pub files: BTreeMap<String, FileEntry>,
}

/// The size and digest of one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// The file's size in bytes.
    pub bytes: usize,
    /// The blake3 of the file's bytes.
    pub blake3: Digest,
}

/// What a directory holds once read back ([`SessionDir::open`]).
#[derive(Debug)]
pub struct SessionDir {
    /// `view.json`: the reduced view, as it was written.
    pub view: Vec<Message>,
    /// `reductions.json`: the reduction log.
    pub log: ReductionLog,
    /// The store's messages: the session as imported, every reduction's source.
    pub sidecar: Vec<Message>,
    /// The compaction summaries the store records, in order.
    pub summaries: Vec<SummaryRecord>,
    /// The expand and search misses the store records, in order.
    pub misses: Vec<Miss>,
    /// `sidecar/manifest.json`.
    pub manifest: Manifest,
    /// Files whose bytes differ from the manifest: one line each.
    pub file_mismatches: Vec<String>,
}

/// The manifest of `dir`: a directory without one is not an output directory (bad input,
/// exit 2); one that does not parse, is too large or has another format or version is a
/// damaged directory (exit 1).
fn read_manifest(dir: &Path) -> Result<Manifest, Error> {
    let path = dir.join(MANIFEST);
    if !dir.is_dir() {
        // Through a link that dangles too: the swap happens where it points.
        let retired = swap::resolve(dir)
            .ok()
            .map(|d| swap::sibling(&d, swap::RETIRED))
            .filter(|r| fs::symlink_metadata(r).is_ok());
        let what = if let Some(retired) = retired {
            format!(
                "no such directory; {} holds the directory a run of rehydrate is replacing, or was replacing when it was cut short; `rehydrate repair` puts it back",
                shown(&retired)
            )
        } else if fs::symlink_metadata(dir).is_ok() {
            "not a directory".to_string()
        } else {
            "no such directory".to_string()
        };
        return Err(refused(format!(
            "{}: not an output directory of `rehydrate reduce` ({what})",
            shown(dir)
        )));
    }
    let bytes = match read_bounded(dir, MANIFEST, MAX_MANIFEST_BYTES) {
        Ok(bytes) => bytes,
        Err(ReadFail::Missing) => {
            return Err(refused(format!(
                "{}: not an output directory of `rehydrate reduce` (it has no {MANIFEST})",
                shown(dir)
            )));
        }
        Err(ReadFail::Refused(line)) => return Err(Error::DirDamaged(vec![line])),
        Err(ReadFail::TooLarge { limit, len }) => {
            return Err(Error::DirDamaged(vec![format!(
                "{}: {len} bytes, more than a manifest's {limit}; not read",
                shown(&path)
            )]));
        }
        Err(ReadFail::Io(e)) => return Err(io_error(format!("cannot read {}", shown(&path)), e)),
    };
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| Error::DirDamaged(vec![format!("{}: {e}", shown(&path))]))?;
    if manifest.format != MANIFEST_FORMAT || manifest.version != MANIFEST_VERSION {
        return Err(Error::DirDamaged(vec![format!(
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
                    crate::show::printable(name)
                )
            }),
    );
    problems
}

/// Reads a file the manifest records, bounded by the size it records ([`read_bounded`]). A
/// file that is gone, larger than recorded, or not a regular file inside the directory means
/// a damaged directory (exit 1).
fn read_recorded(dir: &Path, manifest: &Manifest, name: &str) -> Result<Vec<u8>, Error> {
    let path = dir.join(name);
    let limit = manifest.files.get(name).map_or(0, |e| e.bytes as u64);
    read_bounded(dir, name, limit).map_err(|e| match e {
        ReadFail::Missing => Error::DirDamaged(vec![format!(
            "{}: missing, though the manifest records it",
            shown(&path)
        )]),
        ReadFail::Refused(line) => Error::DirDamaged(vec![line]),
        ReadFail::TooLarge { limit, len } => Error::DirDamaged(vec![format!(
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
        ReadFail::Io(e) => io_error(format!("cannot read {}", shown(&path)), e),
    })
}

/// [`SessionDir::open`].
fn read(dir: &Path) -> Result<SessionDir, Error> {
    // The lock first: a manifest read before it could be the one a writer's swap replaced.
    let _lock = lock_for_reading(dir)?;
    let manifest = read_manifest(dir)?;
    let mut file_mismatches = Vec::new();
    let problems = manifest_file_problems(dir, &manifest);
    if !problems.is_empty() {
        return Err(Error::DirDamaged(problems));
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
        Error::DirDamaged(lines)
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

/// Shorthand for a directory that cannot be used as asked ([`Error::DirRefused`]).
fn refused(line: impl Into<String>) -> Error {
    Error::DirRefused(line.into())
}

/// A file system error naming what was being done ([`Error::DirIo`]).
fn io_error(context: String, source: std::io::Error) -> Error {
    Error::DirIo { context, source }
}

impl SessionDir {
    /// Reads the directory `dir` back under its shared lock (a writer holding it is refused,
    /// never waited for) and checks every file against the manifest.
    ///
    /// # Errors
    ///
    /// - [`Error::DirRefused`]: `dir` is not an output directory (no such directory, not a
    ///   directory, no `sidecar/manifest.json`), or a writer holds its lock;
    /// - [`Error::DirIo`]: a file cannot be read, naming it;
    /// - [`Error::DirDamaged`], one line per problem: a manifest that does not parse, is over
    ///   1 MiB or has another format or version; a file it records missing, larger than
    ///   recorded, not a regular file inside the directory, or not parsing (the store names its
    ///   byte offset).
    ///
    /// Files that parse but whose size or blake3 differ from the manifest (and a store with a
    /// torn tail, other reductions than `reductions.json` or another message count) are not an
    /// error here: each is one line of [`SessionDir::file_mismatches`], which
    /// [`SessionDir::refuse_mismatched`] turns into one.
    pub fn open(dir: &Path) -> Result<SessionDir, Error> {
        read(dir)
    }

    /// Takes `dir` for writing what was made from the session file `source`, before anything
    /// is imported: see [`DirWriter`] for what is refused, created and removed.
    ///
    /// # Errors
    ///
    /// [`Error::DirRefused`] (one line) when `dir` would overwrite `source`, exists and is not
    /// empty (unless `force`), is not a rehydrate output directory (even with `force`), or is
    /// locked by another process; [`Error::DirIo`] when the file system refuses.
    pub fn create(dir: &Path, source: &Path, force: bool) -> Result<DirWriter, Error> {
        write::lock_for_writing(dir, source, force)
    }

    /// Restores a directory whose sidecar store a write cut short, all or nothing; see
    /// [`Repaired`] for what it does.
    ///
    /// # Errors
    ///
    /// [`Error::DirDamaged`] when the directory cannot be restored (its last line says
    /// nothing was changed); [`Error::DirRefused`] and [`Error::DirIo`] as for
    /// [`SessionDir::open`].
    pub fn repair(dir: &Path) -> Result<Repaired, Error> {
        repair::repair(dir)
    }

    /// The default output directory for the session file `session_file`: its path with
    /// `.rehydrate` appended, byte for byte (a name that is not UTF-8 keeps its bytes). `None`
    /// for `-` (stdin) and for a path that is not a regular file (a pipe, a device), which
    /// names no place to write next to.
    pub fn default_path(session_file: &Path) -> Option<PathBuf> {
        // A file that cannot be read is reported by the read, naming it.
        if session_file == Path::new("-") || fs::metadata(session_file).is_ok_and(|m| !m.is_file())
        {
            return None;
        }
        let mut name: OsString = session_file.as_os_str().to_owned();
        name.push(".rehydrate");
        Some(PathBuf::from(name))
    }

    /// A directory whose files differ from its manifest ([`SessionDir::file_mismatches`]
    /// not empty) is refused by every reader, not only by verification (docs/FORMATS.md,
    /// "CLI JSON").
    ///
    /// # Errors
    ///
    /// [`Error::DirDamaged`] with the mismatch lines.
    pub fn refuse_mismatched(&self) -> Result<(), Error> {
        if self.file_mismatches.is_empty() {
            Ok(())
        } else {
            Err(Error::DirDamaged(self.file_mismatches.clone()))
        }
    }
}
