//! [`Error`]: why a [`crate::Session`] could not do what it was asked, each lower crate's error
//! chained as the source.

use std::path::PathBuf;

use rehydrate_formats::RequestError;
use rehydrate_sidecar::ExportError;
use rehydrate_store::Error as StoreError;

/// Why a [`crate::Session`] operation failed. Every variant names the session store's file.
///
/// A tool call of the model is never an `Error`: [`crate::Session::call`] answers a bad call
/// with a tool error the model reads ([`crate::ToolResult::is_error`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The session store refused: the file is missing, exists already (on create), is locked by
    /// another writer, is not a store, ends with a torn tail (run [`crate::store::repair`]
    /// first), is corrupt, or a write or sync failed. The store's message names the file.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The recorded log is not one a reducer appended to: the reduction at `position` has an
    /// id naming another ordinal (docs/FORMATS.md, "Reduction log"), so a reduction minted next
    /// could take an id the log already holds.
    #[error(
        "session store {path}: reduction {id} stands at log position {position}; \
         its id names another ordinal"
    )]
    Ordinal {
        /// The store file.
        path: PathBuf,
        /// The 0-based log position.
        position: usize,
        /// The reduction's id.
        id: String,
    },
    /// The view breaks an API rule no pairing repair covers (an empty view, a system part that
    /// is not text, an empty text part; `rehydrate_formats::check_request`).
    #[error("session store {path}: the view is not a valid request body: {source}")]
    Request {
        /// The store file.
        path: PathBuf,
        /// The violations.
        #[source]
        source: RequestError,
    },
    /// The session cannot be exported with every reduction inverted (a reduction does not
    /// verify, or, for a request body, a call has no result yet).
    #[error("session store {path}: the session cannot be exported: {source}")]
    Export {
        /// The store file.
        path: PathBuf,
        /// Why.
        #[source]
        source: ExportError,
    },
    /// An earlier write failed after the live session had moved on (a reduction it minted was
    /// not recorded), so the live session and its store disagree: it takes no more records.
    /// Reopen the store; [`crate::Session::open`] mints and records again what is missing.
    #[error(
        "session store {path}: an earlier write failed and the store no longer matches the \
         live session; reopen it"
    )]
    Diverged {
        /// The store file.
        path: PathBuf,
    },
}

impl Error {
    /// Whether another writer holds the store's lock ([`StoreError::Locked`]).
    pub fn is_locked(&self) -> bool {
        matches!(self, Error::Store(StoreError::Locked { .. }))
    }

    /// Whether the store ends with a torn record, which [`crate::store::repair`] truncates
    /// ([`StoreError::Torn`]).
    pub fn is_torn(&self) -> bool {
        matches!(self, Error::Store(StoreError::Torn { .. }))
    }
}
