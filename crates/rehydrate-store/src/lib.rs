//! The durable session store: one append-only file per session holding every message, reduction
//! and rewind as it happens, so that the whole session state reloads from it and a crash at any
//! byte loses nothing that was synced (docs/FORMATS.md, "Session store").
//!
//! # Where to start
//!
//! - [`SessionStore`] records a live session as it happens: [`SessionStore::create`] or
//!   [`SessionStore::open`] (which takes the file's exclusive advisory lock and reloads the
//!   [`StoreState`]), then `append_message`, `append_reduction`, `rewind`, `switch_model`,
//!   `record_summary` and `record_miss`, each durable as its [`SyncPolicy`] says.
//! - [`read_store`] and [`parse_store`] reload a store without locking it and report a torn
//!   tail (a write cut short), which [`repair`] truncates; corruption is a [`Error`] naming
//!   its byte offset, never skipped.
//! - [`StoreWriter`] writes the same records in one go to any writer (a file being staged).
//! - [`SessionDir`] is the output directory of `rehydrate reduce` (view, log, this store as
//!   its sidecar, and a manifest of digests): [`SessionDir::open`] reads one back and checks it,
//!   [`SessionDir::create`] writes one, [`SessionDir::repair`] restores a store a write cut
//!   short.
//!
//! This is the one library crate of the workspace that does file I/O (`cargo xtask tidy`
//! checks it); [`Error`] is its one error type.
//!
//! The records of compaction summaries and misses ([`SummaryRecord`], [`Miss`]) are defined
//! here, where they are stored, and read by `rehydrate-signals`.

#![forbid(unsafe_code)]

pub mod backend;
pub mod dir;
mod frame;
pub mod show;
#[cfg(test)]
mod tests;

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use rehydrate_model::{Message, Reduction, ReductionLog};

pub use backend::{FileBackend, MemoryBackend, StoreBackend};
pub use dir::SessionDir;

/// When appended records reach the disk (`fdatasync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncPolicy {
    /// After every record: a record is durable once its append returns, even through a power
    /// loss.
    EveryRecord,
    /// Once at least this many bytes were appended since the last sync (and on
    /// [`SessionStore::sync`]): a power loss can lose the records of the last `n` bytes; a crash
    /// of the process alone loses nothing appended.
    EveryBytes(u64),
    /// Only on [`SessionStore::sync`]: a crash of the process loses nothing appended (the
    /// operating system holds it), a power loss can lose everything since the last sync.
    Never,
}

/// What a store holds, rebuilt from its records.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoreState {
    /// The session's messages on its current timeline, in order (a rewind truncates them).
    pub messages: Vec<Message>,
    /// The reductions that address the current timeline, in the order they were appended.
    pub log: ReductionLog,
    /// The number of records read or appended.
    pub records: u64,
    /// The rewinds recorded, each the message count the history was truncated to.
    pub rewinds: Vec<u64>,
    /// The model switches recorded, in order.
    pub model_switches: Vec<ModelSwitch>,
    /// How many messages at the start of the current timeline lost their reasoning artifacts
    /// in the host's history: the message count when the latest model switch was recorded, cut
    /// to `n` by a later rewind to `n` messages (0 without a switch). A host that rebuilds its
    /// history from the store drops the reasoning of these first messages
    /// ([`rehydrate_model::filter_reasoning_artifacts`]) to get back what it held. Not a field
    /// of any record: it follows from the order of the records.
    pub reasoning_dropped: u64,
    /// The compaction summaries recorded, in order (see [`SessionStore::record_summary`]).
    pub summaries: Vec<SummaryRecord>,
    /// The expand and search misses the host reported, in order.
    pub misses: Vec<Miss>,
    /// Index-parallel to `log`: how many messages the timeline held when each reduction was
    /// recorded (a reduction is decided from the messages before it), so a rewind to fewer
    /// drops it.
    pub reductions_seen: Vec<u64>,
}

/// A compaction summary the host wrote (SPEC seed 002): its text, in which it cites reductions
/// with stub lines, and the monotonic compaction epoch it was written at.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryRecord {
    /// The compaction epoch, one per summary written, increasing.
    pub epoch: u64,
    /// The summary text.
    pub text: String,
    /// The epochs of earlier summaries this one retires from the active set (the summaries it
    /// replaces on the host's surface).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retires: Vec<u64>,
}

/// An `expand_reduction` or `sidecar_search` that did not resolve, as the host reported it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Miss {
    /// The reduction id asked for.
    pub reduction_id: String,
    /// Why: `unknown` (no such reduction) or `digest` (its bytes did not verify).
    pub reason: MissReason,
}

/// Why an expand or search missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissReason {
    /// No reduction has the id.
    Unknown,
    /// The reduction's original did not verify against its digest.
    Digest,
}

/// A switch of the session to another model (see [`SessionStore::switch_model`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSwitch {
    /// The model switched to, as the host names it.
    pub model: String,
    /// The number of messages whose reasoning artifacts were dropped.
    pub touched: u64,
}

/// A torn tail found on open: a last record cut short or failing its check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// The byte offset where the torn record starts (the length the store repairs to).
    pub offset: u64,
    /// The number of bytes from there to the end of the file.
    pub bytes: u64,
    /// What is wrong (one line).
    pub reason: &'static str,
}

/// What [`repair`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepairReport {
    /// The whole records kept.
    pub records: u64,
    /// The bytes kept (the file's new length).
    pub kept_bytes: u64,
    /// The bytes of the torn tail truncated away (0 when there was none).
    pub dropped_bytes: u64,
}

/// Why a store cannot be created, opened, read or appended to, or a session directory cannot
/// be read, written or repaired. Every variant displays as one line naming the file (a
/// [`Error::DirDamaged`] as one line per problem), with the underlying error, when there is
/// one, also as its [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file system refused.
    #[error("session store {path}: {source}")]
    Io {
        /// The store file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// Another writer holds the store's lock.
    #[error("session store {path} is open for writing by another process (it is locked)")]
    Locked {
        /// The store file.
        path: PathBuf,
    },
    /// A new store asked for in a [`StoreBackend`] that holds bytes already.
    #[error("session store {path} is not empty ({bytes} bytes); a new store needs an empty one")]
    NotEmpty {
        /// The backend's name.
        path: PathBuf,
        /// The bytes it holds.
        bytes: u64,
    },
    /// The file does not start with a store header.
    #[error("{path} is not a rehydrate session store (no RHYDSTOR header)")]
    NotAStore {
        /// The file.
        path: PathBuf,
    },
    /// The file is a store of another format version.
    #[error("session store {path} has format version {version}; this build reads version 1")]
    Version {
        /// The store file.
        path: PathBuf,
        /// The version found.
        version: u32,
    },
    /// A record fails its checks with more records after it: never skipped.
    #[error("session store {path} is corrupt at byte {offset}: {reason}")]
    Corrupt {
        /// The store file.
        path: PathBuf,
        /// The offset of the bad record's frame.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The store ends with a torn record; [`repair`] truncates it.
    #[error(
        "session store {path} has a torn tail at byte {} ({} bytes: {}); repair truncates it",
        torn.offset, torn.bytes, torn.reason
    )]
    Torn {
        /// The store file.
        path: PathBuf,
        /// Where and why.
        torn: TornTail,
    },
    /// A write to the store failed earlier: it takes no more records until it is reopened (and
    /// repaired, if the failed write left part of a record).
    #[error(
        "session store {path} failed a write earlier; reopen it (repair it first if it ends torn)"
    )]
    Failed {
        /// The store file.
        path: PathBuf,
    },
    /// A record over the 1 GiB a record may carry.
    #[error("session store {path}: a record of {bytes} bytes is over the 1 GiB limit")]
    RecordTooLarge {
        /// The store file.
        path: PathBuf,
        /// The payload's size.
        bytes: u64,
    },
    /// A rewind to more messages than the store holds.
    #[error("session store {path}: cannot rewind to {to} messages, it holds {len}")]
    RewindBeyond {
        /// The store file.
        path: PathBuf,
        /// The count asked for.
        to: u64,
        /// The messages held.
        len: u64,
    },
    /// A summary may retire only the epochs of earlier summaries (SPEC seed 002, validity
    /// conditions); nothing was recorded.
    #[error(
        "session store {path}: the summary of epoch {epoch} cannot retire epoch {retired}, which is not earlier; nothing was recorded"
    )]
    RetiresLater {
        /// The store file.
        path: PathBuf,
        /// The epoch the summary would have had.
        epoch: u64,
        /// The epoch it named.
        retired: u64,
    },
    /// A session directory that cannot be used as asked: not an output directory, one that
    /// exists where a new one was asked for, one locked by another process, a file that is not
    /// a regular file. One line, naming the directory or file (the CLI's exit 2).
    #[error("{0}")]
    DirRefused(String),
    /// The file system refused while reading or writing a session directory.
    #[error("{context}: {source}")]
    DirIo {
        /// What was being done, naming the file (`cannot read DIR/view.json`).
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A session directory that is damaged or whose files differ from its manifest: one line
    /// per problem, each naming the file (the CLI's exit 1).
    #[error("{}", .0.join("\n"))]
    DirDamaged(Vec<String>),
}

/// Record kinds (the frame's `kind` byte).
const KIND_MESSAGE: u8 = 1;
const KIND_REDUCTION: u8 = 2;
const KIND_REWIND: u8 = 3;
const KIND_MODEL_SWITCH: u8 = 4;
const KIND_SUMMARY: u8 = 5;
const KIND_MISS: u8 = 6;

/// A session's store, open for appending: in a file ([`SessionStore::create`],
/// [`SessionStore::open`]), which it holds the exclusive advisory lock of, or in any
/// [`StoreBackend`] ([`SessionStore::create_in`], [`SessionStore::open_in`]).
#[derive(Debug)]
pub struct SessionStore {
    backend: Box<dyn StoreBackend>,
    sync: SyncPolicy,
    state: StoreState,
    /// Bytes appended since the last sync.
    unsynced: u64,
    /// A write failed: the bytes may end in part of a record, so nothing more is appended.
    failed: bool,
}

impl SessionStore {
    /// Creates a new, empty store at `path` (which must not exist), locks it and writes its
    /// header (synced).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] (including when the file exists), [`Error::Locked`].
    pub fn create(path: &Path, sync: SyncPolicy) -> Result<SessionStore, Error> {
        SessionStore::create_in(FileBackend::create(path)?, sync)
    }

    /// Creates a new, empty store in `backend`, which must hold no byte, and writes its
    /// header (synced).
    ///
    /// # Errors
    ///
    /// [`Error::NotEmpty`] when the backend holds bytes already; [`Error::Io`] when it cannot
    /// be read, written or synced.
    pub fn create_in(
        mut backend: impl StoreBackend + 'static,
        sync: SyncPolicy,
    ) -> Result<SessionStore, Error> {
        let io = |backend: &dyn StoreBackend, source| Error::Io {
            path: backend.name().to_path_buf(),
            source,
        };
        let held = backend.read_all().map_err(|e| io(&backend, e))?;
        if !held.is_empty() {
            return Err(Error::NotEmpty {
                path: backend.name().to_path_buf(),
                bytes: held.len() as u64,
            });
        }
        backend
            .append(&frame::header())
            .and_then(|()| backend.sync())
            .map_err(|e| io(&backend, e))?;
        Ok(SessionStore {
            backend: Box::new(backend),
            sync,
            state: StoreState::default(),
            unsynced: 0,
            failed: false,
        })
    }

    /// Opens the store at `path` for appending, locks it and reloads its state.
    ///
    /// # Errors
    ///
    /// [`Error::Torn`] when it ends with a torn record (call [`repair`] first; nothing is
    /// truncated without being asked), [`Error::Corrupt`], [`Error::NotAStore`],
    /// [`Error::Version`], [`Error::Locked`], [`Error::Io`].
    pub fn open(path: &Path, sync: SyncPolicy) -> Result<SessionStore, Error> {
        SessionStore::open_in(FileBackend::open(path)?, sync)
    }

    /// Opens the store `backend` holds for appending and reloads its state.
    ///
    /// # Errors
    ///
    /// As [`SessionStore::open`], each naming [`StoreBackend::name`].
    pub fn open_in(
        mut backend: impl StoreBackend + 'static,
        sync: SyncPolicy,
    ) -> Result<SessionStore, Error> {
        let (state, torn, _) = load_backend(&mut backend)?;
        if let Some(torn) = torn {
            return Err(Error::Torn {
                path: backend.name().to_path_buf(),
                torn,
            });
        }
        Ok(SessionStore {
            backend: Box::new(backend),
            sync,
            state,
            unsynced: 0,
            failed: false,
        })
    }

    /// Truncates a torn tail of the store `backend` holds back to its last whole record and
    /// says what it kept, as [`repair`] does for a file.
    ///
    /// # Errors
    ///
    /// As [`repair`], each naming [`StoreBackend::name`].
    pub fn repair_in(mut backend: impl StoreBackend) -> Result<RepairReport, Error> {
        let (state, torn, total) = load_backend(&mut backend)?;
        let kept = torn.as_ref().map_or(total, |t| t.offset);
        if torn.is_some() {
            backend.truncate(kept).map_err(|source| Error::Io {
                path: backend.name().to_path_buf(),
                source,
            })?;
        }
        Ok(RepairReport {
            records: state.records,
            kept_bytes: kept,
            dropped_bytes: total - kept,
        })
    }

    /// The state so far.
    pub fn state(&self) -> &StoreState {
        &self.state
    }

    /// The store file's path, or the name of its [`StoreBackend`].
    pub fn path(&self) -> &Path {
        self.backend.name()
    }

    /// Appends a message; returns its index on the current timeline.
    ///
    /// # Errors
    ///
    /// [`Error::Io`]; the record may then be partly written (a torn tail the next open
    /// reports).
    pub fn append_message(&mut self, message: &Message) -> Result<u64, Error> {
        let mut payload = Vec::new();
        message.write_canonical(&mut payload);
        self.append(KIND_MESSAGE, &payload)?;
        self.state.messages.push(message.clone());
        Ok(self.state.messages.len() as u64 - 1)
    }

    /// Appends a reduction to the log.
    ///
    /// # Errors
    ///
    /// As [`SessionStore::append_message`].
    pub fn append_reduction(&mut self, reduction: &Reduction) -> Result<(), Error> {
        let payload = serde_json::to_vec(reduction).expect("reductions always serialize");
        self.append(KIND_REDUCTION, &payload)?;
        self.state.log.reductions.push(reduction.clone());
        self.state
            .reductions_seen
            .push(self.state.messages.len() as u64);
        Ok(())
    }

    /// Records that the host truncated its history to its first `to` messages (to re-run from
    /// there): the store stays append-only; the state drops the later messages, and the log from
    /// its first reduction that addresses one of them (so the log stays a prefix whose ids keep
    /// their ordinals).
    ///
    /// # Errors
    ///
    /// [`Error::RewindBeyond`] when `to` is more than the messages held; as
    /// [`SessionStore::append_message`].
    pub fn rewind(&mut self, to: u64) -> Result<(), Error> {
        let len = self.state.messages.len() as u64;
        if to > len {
            return Err(Error::RewindBeyond {
                path: self.path().to_path_buf(),
                to,
                len,
            });
        }
        self.append(KIND_REWIND, &to.to_le_bytes())?;
        apply_rewind(&mut self.state, to);
        Ok(())
    }

    /// Switches the session to `model`: drops the previous model's private reasoning from the
    /// host's `history` with [`rehydrate_model::filter_reasoning_artifacts`] (thinking and
    /// reasoning are removed whole, never edited, since providers verify signatures over them;
    /// SPEC seed 000 rules 22-23) and records the switch with the number of messages it touched.
    /// The store's own messages keep full fidelity; [`StoreState::reasoning_dropped`] says how
    /// many of them the host's history holds without their reasoning.
    ///
    /// # Errors
    ///
    /// As [`SessionStore::append_message`]; `history` is filtered before the record is written.
    pub fn switch_model(&mut self, model: &str, history: &mut [Message]) -> Result<u64, Error> {
        let touched = rehydrate_model::filter_reasoning_artifacts(history) as u64;
        let switch = ModelSwitch {
            model: model.to_string(),
            touched,
        };
        let payload = serde_json::to_vec(&switch).expect("a model switch always serializes");
        self.append(KIND_MODEL_SWITCH, &payload)?;
        self.state.model_switches.push(switch);
        self.state.reasoning_dropped = self.state.messages.len() as u64;
        Ok(touched)
    }

    /// Records a compaction summary at the next epoch (one more than the last summary's, from
    /// 0), retiring the earlier summaries whose epochs `retires` lists; returns the epoch.
    ///
    /// # Errors
    ///
    /// [`Error::RetiresLater`] when `retires` names an epoch that is not earlier (nothing is
    /// written); otherwise as [`SessionStore::append_message`].
    pub fn record_summary(&mut self, text: &str, retires: &[u64]) -> Result<u64, Error> {
        let epoch = self.state.summaries.last().map_or(0, |s| s.epoch + 1);
        // Checked before anything is written: the store is append-only, and a summary that
        // retires a later epoch would make every later check of the signals fail.
        if let Some(&retired) = retires.iter().find(|&&r| r >= epoch) {
            return Err(Error::RetiresLater {
                path: self.path().to_path_buf(),
                epoch,
                retired,
            });
        }
        let summary = SummaryRecord {
            epoch,
            text: text.to_string(),
            retires: retires.to_vec(),
        };
        let payload = serde_json::to_vec(&summary).expect("a summary always serializes");
        self.append(KIND_SUMMARY, &payload)?;
        self.state.summaries.push(summary);
        Ok(epoch)
    }

    /// Records an expand or search miss the host met.
    ///
    /// # Errors
    ///
    /// As [`SessionStore::append_message`].
    pub fn record_miss(&mut self, reduction_id: &str, reason: MissReason) -> Result<(), Error> {
        let miss = Miss {
            reduction_id: reduction_id.to_string(),
            reason,
        };
        let payload = serde_json::to_vec(&miss).expect("a miss always serializes");
        self.append(KIND_MISS, &payload)?;
        self.state.misses.push(miss);
        Ok(())
    }

    /// Syncs every appended byte to the disk.
    ///
    /// # Errors
    ///
    /// [`Error::Io`].
    pub fn sync(&mut self) -> Result<(), Error> {
        self.backend.sync().map_err(|source| Error::Io {
            path: self.path().to_path_buf(),
            source,
        })?;
        self.unsynced = 0;
        Ok(())
    }

    /// Writes one record with a single write, then syncs as the setting says. After a failed
    /// write or sync nothing more is appended: the file may end in part of a record, which the
    /// next open reports and `repair` truncates.
    fn append(&mut self, kind: u8, payload: &[u8]) -> Result<(), Error> {
        if self.failed {
            return Err(Error::Failed {
                path: self.path().to_path_buf(),
            });
        }
        if payload.len() > frame::MAX_PAYLOAD_BYTES as usize {
            return Err(Error::RecordTooLarge {
                path: self.path().to_path_buf(),
                bytes: payload.len() as u64,
            });
        }
        let record = frame::encode(kind, payload);
        if let Err(source) = self.backend.append(&record) {
            self.failed = true;
            return Err(Error::Io {
                path: self.path().to_path_buf(),
                source,
            });
        }
        self.state.records += 1;
        self.unsynced += record.len() as u64;
        let synced = match self.sync {
            SyncPolicy::EveryRecord => self.sync(),
            SyncPolicy::EveryBytes(n) if self.unsynced >= n => self.sync(),
            SyncPolicy::EveryBytes(_) | SyncPolicy::Never => Ok(()),
        };
        if synced.is_err() {
            self.failed = true;
        }
        synced
    }
}

/// Writes a whole store in one go to any writer (a file being staged under a temporary name):
/// the header, then one record per call, in the same bytes [`SessionStore`] appends. No lock and
/// no sync: the caller owns the file.
#[derive(Debug)]
pub struct StoreWriter<W: Write> {
    out: W,
    records: u64,
}

impl<W: Write> StoreWriter<W> {
    /// Writes the header.
    ///
    /// # Errors
    ///
    /// The writer's errors.
    pub fn new(mut out: W) -> std::io::Result<StoreWriter<W>> {
        out.write_all(&frame::header())?;
        Ok(StoreWriter { out, records: 0 })
    }

    /// Continues a store whose header and first `records` records `out` already holds (the
    /// kept bytes of a repaired store): writes no header, and the records written next follow
    /// those.
    pub fn appending(out: W, records: u64) -> StoreWriter<W> {
        StoreWriter { out, records }
    }

    /// Writes a message record.
    ///
    /// # Errors
    ///
    /// The writer's errors.
    pub fn message(&mut self, message: &Message) -> std::io::Result<()> {
        let mut payload = Vec::new();
        message.write_canonical(&mut payload);
        self.record(KIND_MESSAGE, &payload)
    }

    /// Writes a reduction record.
    ///
    /// # Errors
    ///
    /// The writer's errors.
    pub fn reduction(&mut self, reduction: &Reduction) -> std::io::Result<()> {
        let payload = serde_json::to_vec(reduction).expect("reductions always serialize");
        self.record(KIND_REDUCTION, &payload)
    }

    /// Writes a summary record as it is (its epoch included: a host importing an existing
    /// session's summaries; [`SessionStore::record_summary`] numbers them itself).
    ///
    /// # Errors
    ///
    /// The writer's errors.
    pub fn summary(&mut self, summary: &SummaryRecord) -> std::io::Result<()> {
        let payload = serde_json::to_vec(summary).expect("a summary always serializes");
        self.record(KIND_SUMMARY, &payload)
    }

    /// The records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The writer, with everything written passed to it.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn record(&mut self, kind: u8, payload: &[u8]) -> std::io::Result<()> {
        self.out.write_all(&frame::encode(kind, payload))?;
        self.records += 1;
        Ok(())
    }
}

/// Reads a store from its bytes (`path` names it in errors): its state, and the torn tail if it
/// ends with one.
///
/// # Errors
///
/// As [`read_store`], without [`Error::Io`].
pub fn parse_store(path: &Path, bytes: &[u8]) -> Result<(StoreState, Option<TornTail>), Error> {
    load(path, bytes)
}

/// Reads the store `backend` holds: its state, its torn tail, and its length in bytes.
fn load_backend(
    backend: &mut impl StoreBackend,
) -> Result<(StoreState, Option<TornTail>, u64), Error> {
    let bytes = backend.read_all().map_err(|source| Error::Io {
        path: backend.name().to_path_buf(),
        source,
    })?;
    let (state, torn) = load(backend.name(), &bytes)?;
    Ok((state, torn, bytes.len() as u64))
}

/// Reads a store file without locking or changing it: its state, and the torn tail if it ends
/// with one (the state then holds every whole record before it).
///
/// # Errors
///
/// [`Error::Corrupt`], [`Error::NotAStore`], [`Error::Version`],
/// [`Error::Io`].
pub fn read_store(path: &Path) -> Result<(StoreState, Option<TornTail>), Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    load(path, &bytes)
}

/// Truncates a torn tail back to the last whole record (under the store's lock) and says what
/// it kept; a store without one is left as it is.
///
/// # Errors
///
/// [`Error::Corrupt`] (a bad record followed by good ones is never truncated away),
/// [`Error::NotAStore`], [`Error::Version`], [`Error::Locked`],
/// [`Error::Io`].
pub fn repair(path: &Path) -> Result<RepairReport, Error> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    backend::lock(&file, path)?;
    SessionStore::repair_in(FileBackend::from_locked(path, file))
}

/// The state the records of `bytes` make, and the torn tail.
fn load(path: &Path, bytes: &[u8]) -> Result<(StoreState, Option<TornTail>), Error> {
    let (records, ending) = frame::read(bytes).map_err(|e| match e {
        frame::ReadError::NotAStore => Error::NotAStore {
            path: path.to_path_buf(),
        },
        frame::ReadError::Version(version) => Error::Version {
            path: path.to_path_buf(),
            version,
        },
        frame::ReadError::Corrupt { offset, reason } => Error::Corrupt {
            path: path.to_path_buf(),
            offset: offset as u64,
            reason: reason.to_string(),
        },
    })?;
    let mut state = StoreState::default();
    for record in records {
        let corrupt = |reason: String| Error::Corrupt {
            path: path.to_path_buf(),
            offset: record.offset as u64,
            reason,
        };
        match record.kind {
            KIND_MESSAGE => {
                let message = serde_json::from_slice(record.payload)
                    .map_err(|e| corrupt(format!("a message record does not parse: {e}")))?;
                state.messages.push(message);
            }
            KIND_REDUCTION => {
                let reduction = serde_json::from_slice(record.payload)
                    .map_err(|e| corrupt(format!("a reduction record does not parse: {e}")))?;
                state.log.reductions.push(reduction);
                state.reductions_seen.push(state.messages.len() as u64);
            }
            KIND_REWIND => {
                let to: [u8; 8] = record
                    .payload
                    .try_into()
                    .map_err(|_| corrupt("a rewind record is not 8 bytes".to_string()))?;
                let to = u64::from_le_bytes(to);
                if to > state.messages.len() as u64 {
                    return Err(corrupt(format!(
                        "a rewind to {to} messages, but only {} were recorded",
                        state.messages.len()
                    )));
                }
                apply_rewind(&mut state, to);
            }
            KIND_MODEL_SWITCH => {
                let switch = serde_json::from_slice(record.payload)
                    .map_err(|e| corrupt(format!("a model-switch record does not parse: {e}")))?;
                state.model_switches.push(switch);
                state.reasoning_dropped = state.messages.len() as u64;
            }
            KIND_SUMMARY => {
                let summary = serde_json::from_slice(record.payload)
                    .map_err(|e| corrupt(format!("a summary record does not parse: {e}")))?;
                state.summaries.push(summary);
            }
            KIND_MISS => {
                let miss = serde_json::from_slice(record.payload)
                    .map_err(|e| corrupt(format!("a miss record does not parse: {e}")))?;
                state.misses.push(miss);
            }
            other => return Err(corrupt(format!("unknown record kind {other}"))),
        }
        state.records += 1;
    }
    let torn = match ending {
        frame::Ending::Clean => None,
        frame::Ending::Torn { offset, reason } => Some(TornTail {
            offset: offset as u64,
            bytes: (bytes.len() - offset) as u64,
            reason,
        }),
    };
    Ok((state, torn))
}

/// Truncates the state's timeline to `to` messages, and the log before its first reduction
/// that addresses what was cut or was recorded while the timeline held more than `to` messages
/// (decided from messages that are cut: a tool result leaves the protected window only once
/// later ones arrive). The log stays a prefix, so every id keeps its ordinal, and it holds
/// exactly the decisions a projection of the first `to` messages makes; the host mints again
/// what it needs.
fn apply_rewind(state: &mut StoreState, to: u64) {
    let to_len = usize::try_from(to).unwrap_or(usize::MAX);
    state.messages.truncate(to_len);
    let cut = state
        .log
        .reductions
        .iter()
        .zip(&state.reductions_seen)
        .position(|(r, &seen)| (r.ptr.addr.index as u64) >= to || last_read(r) >= to || seen > to);
    if let Some(cut) = cut {
        state.log.reductions.truncate(cut);
        state.reductions_seen.truncate(cut);
    }
    state.rewinds.push(to);
    state.reasoning_dropped = state.reasoning_dropped.min(to);
}

/// The last message index a reduction reads: the end of what it covers, or the later re-run a
/// superseded result names.
fn last_read(r: &Reduction) -> u64 {
    r.last_read() as u64
}
