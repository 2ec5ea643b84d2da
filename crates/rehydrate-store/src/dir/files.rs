//! The file primitives of a session directory: its advisory locks, reads that refuse what is
//! not a regular file inside the directory and stop at a size, and staged writes (a temporary
//! name, hashed as written, renamed into place by the caller).

use std::fs::{self, File, TryLockError};
use std::io::{self, BufWriter, Read as _, Write};
use std::path::{Path, PathBuf};

use rehydrate_model::Digest;
use rehydrate_sidecar::content_digest;

use super::{FileEntry, LOCK, io_error, refused};
use crate::Error;
use crate::show::shown;

/// `path` with `.tmp` appended to its name, byte for byte (never through its display form,
/// so a name that is not UTF-8 keeps its bytes).
pub(super) fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

/// Takes the exclusive lock of an output directory (creating `sidecar/lock`), or says another
/// process holds it: a second writer is refused, never waited for.
pub(super) fn lock_exclusive(dir: &Path) -> Result<File, Error> {
    let lock_path = dir.join(LOCK);
    check_lock_file(&lock_path).map_err(refused)?;
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| {
            let verb = if fs::symlink_metadata(&lock_path).is_ok() {
                "open"
            } else {
                "create"
            };
            io_error(format!("cannot {verb} {}", shown(&lock_path)), e)
        })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(refused(format!(
            "{} is in use by another rehydrate process, reading or writing it (it holds the lock on {})",
            shown(dir),
            shown(&lock_path)
        ))),
        Err(TryLockError::Error(e)) => {
            Err(io_error(format!("cannot lock {}", shown(&lock_path)), e))
        }
    }
}

/// The lock file, when it exists, must be a regular file (not a link, a FIFO or a device,
/// whose opening could block or lead out of the directory): one line saying so otherwise.
pub(super) fn check_lock_file(lock_path: &Path) -> Result<(), String> {
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
pub(super) fn lock_for_reading(dir: &Path) -> Result<Option<File>, Error> {
    let lock_path = dir.join(LOCK);
    check_lock_file(&lock_path).map_err(|line| Error::DirDamaged(vec![line]))?;
    let Ok(file) = File::open(&lock_path) else {
        return Ok(None);
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Err(refused(format!(
            "{} is being written by another rehydrate process (it holds {}); try again when it is done",
            shown(dir),
            shown(&lock_path)
        ))),
        Err(TryLockError::Error(_)) => Ok(None),
    }
}

/// Why [`read_bounded`] read nothing.
pub(super) enum ReadFail {
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
pub(super) fn open_regular(dir: &Path, name: &str) -> Result<File, ReadFail> {
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
pub(super) fn read_bounded(dir: &Path, name: &str, limit: u64) -> Result<Vec<u8>, ReadFail> {
    let path = dir.join(name);
    let file = open_regular(dir, name)?;
    // Sized once from the file's length (within the limit): read through `take`, the buffer
    // would otherwise grow by doubling, copying and faulting in the file's bytes again.
    let len = file
        .metadata()
        .map_or(0, |m| m.len())
        .min(limit.saturating_add(1));
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
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
/// written, and waiting for [`DirWriter::commit`](super::DirWriter::commit). Dropping it uncommitted removes the temporary file, so
/// nothing half-done is left behind on failure.
pub struct Staged {
    /// The file's path relative to the directory, as the manifest records it.
    pub(super) name: &'static str,
    pub(super) path: PathBuf,
    pub(super) tmp: PathBuf,
    pub(super) entry: FileEntry,
    pub(super) committed: bool,
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// The size of the buffer between serialization and a file.
pub(super) const WRITE_BUFFER_BYTES: usize = 256 * 1024;

/// Writes `dir/name` through `fill` under its temporary name; the result knows the size and
/// blake3 of the bytes written. Nothing is left behind on failure.
pub(super) fn write_tmp(
    dir: &Path,
    name: &'static str,
    fill: impl FnOnce(&mut BufWriter<HashingWriter<File>>) -> io::Result<()>,
) -> Result<Staged, Error> {
    let (staged, mut w) = open_tmp(dir, name)?;
    match fill(&mut w).and_then(|()| finish_tmp(w)) {
        Ok(entry) => {
            let mut staged = staged;
            staged.entry = entry;
            Ok(staged)
        }
        Err(e) => Err(input_error(&staged.tmp, e)),
    }
}

/// Creates `dir/name`'s temporary file: the staged file (whose entry [`finish_tmp`] fills in;
/// dropped uncommitted, it removes the file) and a buffered, hashing writer to it.
pub(super) fn open_tmp(
    dir: &Path,
    name: &'static str,
) -> Result<(Staged, BufWriter<HashingWriter<File>>), Error> {
    let path = dir.join(name);
    let tmp = tmp_path(&path);
    let file = File::create(&tmp).map_err(|e| input_error(&tmp, e))?;
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
pub(super) fn finish_tmp(w: BufWriter<HashingWriter<File>>) -> io::Result<FileEntry> {
    let hashing = w.into_inner().map_err(io::IntoInnerError::into_error)?;
    Ok(hashing.finish())
}

/// A failed write of a staged file.
pub(super) fn input_error(tmp: &Path, e: io::Error) -> Error {
    io_error(format!("cannot write {}", shown(tmp)), e)
}

/// A writer that hashes and counts the bytes it passes on.
pub(super) struct HashingWriter<W> {
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
