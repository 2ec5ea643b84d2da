//! Where a session store's bytes live: [`StoreBackend`], with [`FileBackend`] (one local file,
//! locked while open; what [`crate::SessionStore::create`] and [`crate::SessionStore::open`]
//! use) and [`MemoryBackend`] (a shared byte buffer, for tests and for hosts that keep the
//! bytes elsewhere themselves).
//!
//! The store's format (the header, the framed and checksummed records; docs/FORMATS.md,
//! "Session store") is written and checked by [`crate::SessionStore`] whatever the backend:
//! a backend only keeps an append-only sequence of bytes. A host that keeps its sessions in its
//! own database or object store implements the trait over it (a row or an object part per
//! append, read back in order), and everything the store promises (a torn tail found and
//! repaired, corruption named by its byte offset, the state reloaded record by record) holds
//! over it unchanged.

use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::Error;

/// An append-only sequence of bytes holding one session store.
///
/// [`crate::SessionStore`] appends the 16-byte header once, then each record as one call of
/// [`StoreBackend::append`] (16 bytes of frame and the payload, up to 1 GiB), and calls
/// [`StoreBackend::sync`] as its [`crate::SyncPolicy`] says. It reads the bytes back whole
/// only when it opens the store or repairs it.
///
/// What an implementation must keep: the bytes appended, in order, so that
/// [`StoreBackend::read_all`] gives them back exactly; after a failed `append`, any prefix of
/// the bytes it was given may be kept (the store then takes no more records, and the next open
/// reports a torn tail, which [`crate::SessionStore::repair_in`] cuts with
/// [`StoreBackend::truncate`]). Durability is the backend's: after `sync` returns, what was
/// appended before it survives a crash.
pub trait StoreBackend: fmt::Debug + Send + Sync {
    /// What errors name the store by: a file's path, or a host's own key for it
    /// (`s3://bucket/sessions/42`).
    fn name(&self) -> &Path;

    /// Every byte appended so far, header included (empty for a new store).
    ///
    /// # Errors
    ///
    /// The backend's read error.
    fn read_all(&mut self) -> io::Result<Vec<u8>>;

    /// Appends `bytes` after everything appended before.
    ///
    /// # Errors
    ///
    /// The backend's write error; part of `bytes` may have been kept.
    fn append(&mut self, bytes: &[u8]) -> io::Result<()>;

    /// Makes every byte appended so far durable.
    ///
    /// # Errors
    ///
    /// The backend's error; what was appended since the last sync may then be lost.
    fn sync(&mut self) -> io::Result<()>;

    /// Keeps the first `len` bytes and drops the rest, durably (a torn tail repaired); `len`
    /// is never more than the bytes held.
    ///
    /// # Errors
    ///
    /// The backend's error.
    fn truncate(&mut self, len: u64) -> io::Result<()>;
}

/// A session store in one local file, holding the file's exclusive advisory lock while it
/// lives: a second writer (in this process or another) is refused with [`Error::Locked`].
#[derive(Debug)]
pub struct FileBackend {
    path: PathBuf,
    file: File,
}

impl FileBackend {
    /// Creates the file at `path` (which must not exist) and locks it; the new directory
    /// entry is synced, so the file survives a crash once its header is.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] (including when the file exists), [`Error::Locked`].
    pub fn create(path: &Path) -> Result<FileBackend, Error> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .open(path)
            .map_err(io)?;
        lock(&file, path)?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            File::open(parent)
                .and_then(|dir| dir.sync_all())
                .map_err(io)?;
        }
        Ok(FileBackend {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Opens the existing file at `path` for reading and appending, and locks it.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] (including when the file does not exist), [`Error::Locked`].
    pub fn open(path: &Path) -> Result<FileBackend, Error> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
        lock(&file, path)?;
        Ok(FileBackend::from_locked(path, file))
    }

    /// The backend of a file already opened and locked by the caller.
    pub(crate) fn from_locked(path: &Path, file: File) -> FileBackend {
        FileBackend {
            path: path.to_path_buf(),
            file,
        }
    }
}

impl StoreBackend for FileBackend {
    fn name(&self) -> &Path {
        &self.path
    }

    fn read_all(&mut self) -> io::Result<Vec<u8>> {
        self.file.seek(SeekFrom::Start(0))?;
        let mut bytes = Vec::new();
        self.file.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        // Opened for appending: every write goes to the end, whatever the read position.
        self.file.write_all(bytes)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.file.set_len(len)?;
        self.file.sync_all()
    }
}

/// Takes the file's exclusive advisory lock, or says another writer holds it.
pub(crate) fn lock(file: &File, path: &Path) -> Result<(), Error> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(Error::Locked {
            path: path.to_path_buf(),
        }),
        Err(TryLockError::Error(source)) => Err(Error::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// A session store's bytes in memory, shared by every clone: a store reopened from a clone
/// sees every byte appended through another, as a reopened file would.
///
/// Nothing is locked (two stores appending to clones of one backend at once interleave their
/// records, which the next open reports as corruption) and nothing survives the process:
/// `sync` does nothing. For tests, and for a host that copies [`MemoryBackend::bytes`] to its
/// own storage.
#[derive(Debug, Clone)]
pub struct MemoryBackend {
    name: PathBuf,
    bytes: Arc<Mutex<Vec<u8>>>,
}

impl MemoryBackend {
    /// An empty store's bytes; `name` is what errors name it by.
    pub fn new(name: impl Into<PathBuf>) -> MemoryBackend {
        MemoryBackend::with_bytes(name, Vec::new())
    }

    /// A store's bytes kept elsewhere (a host's copy of [`MemoryBackend::bytes`], or a file's
    /// bytes read into memory).
    pub fn with_bytes(name: impl Into<PathBuf>, bytes: Vec<u8>) -> MemoryBackend {
        MemoryBackend {
            name: name.into(),
            bytes: Arc::new(Mutex::new(bytes)),
        }
    }

    /// A copy of the bytes held now.
    pub fn bytes(&self) -> Vec<u8> {
        self.held().clone()
    }

    /// The bytes held, whatever a panicking holder left: every change to them is one
    /// `extend_from_slice` or `truncate`, which leaves them whole.
    fn held(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.bytes.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl StoreBackend for MemoryBackend {
    fn name(&self) -> &Path {
        &self.name
    }

    fn read_all(&mut self) -> io::Result<Vec<u8>> {
        Ok(self.bytes())
    }

    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.held().extend_from_slice(bytes);
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.held()
            .truncate(usize::try_from(len).unwrap_or(usize::MAX));
        Ok(())
    }
}
