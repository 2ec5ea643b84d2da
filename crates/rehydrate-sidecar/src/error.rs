//! The one error type of the sidecar crate.

use rehydrate_model::{Digest, Role};

use rehydrate_formats::RequestError;

use crate::ExportError;

/// Why a reduction could not be resolved, expanded or inverted, or (through the last two
/// variants) why an export or a request body was refused.
///
/// The functions that can fail only in those two ways return their own, more precise type
/// ([`ExportError`], [`RequestError`]); each converts into this one with `?`, so a host
/// handles one error type for the crate, and matches [`Error::Export`] or [`Error::Request`]
/// for the precise one (which each displays as, forwarding its source chain). Every
/// verification variant names the reduction id and, where one applies, the 0-based message
/// index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No reduction in the log has this id.
    #[error("no reduction with id `{id}`; valid ids: {valid}")]
    UnknownId {
        /// The id asked for (its first 80 bytes and its length in bytes when it is longer).
        id: String,
        /// The log's ids joined by `, `, or `(none)`.
        valid: String,
    },
    /// The minted view has no message at the addressed index.
    #[error(
        "reduction {id}: the sidecar has no message at index {index} (it holds {len} messages)"
    )]
    MissingMessage {
        /// The reduction id.
        id: String,
        /// The addressed index.
        index: usize,
        /// The number of messages the minted view holds.
        len: usize,
    },
    /// The addressed message has another role than the pointer expects.
    #[error("reduction {id}: role mismatch at message {index}: expected {expected}, found {found}")]
    RoleMismatch {
        /// The reduction id.
        id: String,
        /// The addressed index.
        index: usize,
        /// The role the pointer names.
        expected: Role,
        /// The role found in the minted view.
        found: Role,
    },
    /// The addressed message has no text content to reduce.
    #[error("reduction {id}: message {index} has no text content")]
    NoTextContent {
        /// The reduction id.
        id: String,
        /// The addressed index.
        index: usize,
    },
    /// The bytes found do not hash to the recorded digest.
    #[error(
        "reduction {id}: digest mismatch at message {index}: expected {expected}, got {actual}"
    )]
    DigestMismatch {
        /// The reduction id.
        id: String,
        /// The addressed index (the first index for turns cleared).
        index: usize,
        /// The digest the log records.
        expected: Digest,
        /// The digest of the bytes found.
        actual: Digest,
    },
    /// A recorded span or range does not fit the original.
    #[error(
        "reduction {id}: recorded span [{start}, {end}) does not fit message {index} of {total_bytes} bytes on char boundaries"
    )]
    BadSpan {
        /// The reduction id.
        id: String,
        /// The addressed index.
        index: usize,
        /// Span start in bytes.
        start: usize,
        /// Span end in bytes.
        end: usize,
        /// Size of the original in bytes.
        total_bytes: usize,
    },
    /// A reduction's recorded facts disagree with its pointer or its original.
    #[error("reduction {id}: {reason}")]
    Inconsistent {
        /// The reduction id.
        id: String,
        /// What disagrees.
        reason: String,
    },
    /// A byte range with `start > end`.
    #[error(
        "expand_reduction {id}: reversed byte range [{start}, {end}); expected [start, end) with start <= end; the original is {total_bytes} bytes"
    )]
    ReversedRange {
        /// The reduction id.
        id: String,
        /// Requested start in bytes.
        start: usize,
        /// Requested end in bytes.
        end: usize,
        /// Size of the original in bytes.
        total_bytes: usize,
    },
    /// A byte range starting past the end of the original.
    #[error(
        "expand_reduction {id}: byte range start {start} is beyond the original's {total_bytes} bytes; expected start <= {total_bytes}"
    )]
    RangeBeyondEnd {
        /// The reduction id.
        id: String,
        /// Requested start in bytes.
        start: usize,
        /// Size of the original in bytes.
        total_bytes: usize,
    },
    /// A view message does not match what its reduction (or the sidecar) says it must be.
    #[error("view message {view_index}: {reason}")]
    ViewMismatch {
        /// 0-based index in the view.
        view_index: usize,
        /// What does not match.
        reason: String,
    },
    /// An export was refused for a reason other than verification (a verification failure
    /// converts back into its own variant).
    #[error(transparent)]
    Export(Box<ExportError>),
    /// A request body was refused: the messages break the API's rules.
    #[error(transparent)]
    Request(#[from] RequestError),
}

/// An export's verification failure is that error itself; any other refusal is
/// [`Error::Export`].
impl From<ExportError> for Error {
    fn from(e: ExportError) -> Error {
        match e {
            ExportError::Unresolved(inner) => inner,
            other => Error::Export(Box::new(other)),
        }
    }
}

impl Error {
    /// The reduction id the error names (`None` for a view message that matches no reduction).
    pub fn reduction_id(&self) -> Option<&str> {
        match self {
            Error::UnknownId { id, .. }
            | Error::MissingMessage { id, .. }
            | Error::RoleMismatch { id, .. }
            | Error::NoTextContent { id, .. }
            | Error::DigestMismatch { id, .. }
            | Error::BadSpan { id, .. }
            | Error::Inconsistent { id, .. }
            | Error::ReversedRange { id, .. }
            | Error::RangeBeyondEnd { id, .. } => Some(id),
            Error::ViewMismatch { .. } | Error::Export(_) | Error::Request(_) => None,
        }
    }

    /// Whether the error says that bytes do not verify against the recorded digest.
    pub fn is_digest_mismatch(&self) -> bool {
        matches!(self, Error::DigestMismatch { .. })
    }
}
