//! A session store backend in memory that fails one write or sync on purpose: the faults the
//! fault-injection tests (`faults.rs`) run at every operation, and the full disk and the sync
//! count of the backend tests (`backend.rs`).

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rehydrate_store::{MemoryBackend, StoreBackend};

/// How the faulty operation fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The write fails with `ENOSPC`, keeping nothing.
    NoSpace,
    /// The write fails with `EIO`, keeping nothing.
    Eio,
    /// The write keeps the first half of its bytes, then fails with `ENOSPC`.
    ShortWrite,
    /// The sync fails with `EIO` (the bytes were written, not made durable).
    SyncFails,
}

impl Fault {
    /// The message of the OS error the fault raises, as `io::Error` displays it.
    pub(crate) fn cause(self) -> &'static str {
        match self {
            Fault::NoSpace | Fault::ShortWrite => "No space left on device (os error 28)",
            Fault::Eio | Fault::SyncFails => "Input/output error (os error 5)",
        }
    }

    fn error(self) -> io::Error {
        match self {
            Fault::NoSpace | Fault::ShortWrite => io::Error::from_raw_os_error(28),
            Fault::Eio | Fault::SyncFails => io::Error::from_raw_os_error(5),
        }
    }
}

/// Memory that fails the `fail_at`-th operation (from 0) of the kind `fault` hits (appends
/// for a write fault, syncs for a sync fault), and remembers how many bytes the last
/// successful sync made durable.
#[derive(Debug)]
pub(crate) struct Faulty {
    inner: MemoryBackend,
    /// The operations of the fault's kind so far.
    ops: Arc<AtomicUsize>,
    fail_at: usize,
    fault: Fault,
    durable: Arc<Mutex<usize>>,
}

impl Faulty {
    /// A backend over `inner` that fails its `fail_at`-th operation of `fault`'s kind
    /// (`usize::MAX`: none, the backend only counts them).
    pub(crate) fn new(inner: MemoryBackend, fault: Fault, fail_at: usize) -> Faulty {
        Faulty {
            inner,
            ops: Arc::default(),
            fail_at,
            fault,
            durable: Arc::default(),
        }
    }

    /// Reads how many operations of the fault's kind were made so far.
    pub(crate) fn ops(&self) -> impl Fn() -> usize + use<> {
        let ops = Arc::clone(&self.ops);
        move || ops.load(Ordering::Relaxed)
    }

    /// Reads how many bytes the last successful sync made durable.
    pub(crate) fn durable(&self) -> impl Fn() -> usize + use<> {
        let durable = Arc::clone(&self.durable);
        move || *durable.lock().unwrap()
    }

    /// Whether this operation (a sync, or an append) is the one that fails.
    fn fails_now(&self, sync: bool) -> bool {
        if (self.fault == Fault::SyncFails) != sync {
            return false;
        }
        self.ops.fetch_add(1, Ordering::Relaxed) == self.fail_at
    }
}

impl StoreBackend for Faulty {
    fn name(&self) -> &Path {
        self.inner.name()
    }

    fn read_all(&mut self) -> io::Result<Vec<u8>> {
        self.inner.read_all()
    }

    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        if !self.fails_now(false) {
            return self.inner.append(bytes);
        }
        if self.fault == Fault::ShortWrite {
            self.inner.append(&bytes[..bytes.len() / 2])?;
        }
        Err(self.fault.error())
    }

    fn sync(&mut self) -> io::Result<()> {
        if self.fails_now(true) {
            return Err(self.fault.error());
        }
        *self.durable.lock().unwrap() = self.inner.bytes().len();
        Ok(())
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.inner.truncate(len)
    }
}
