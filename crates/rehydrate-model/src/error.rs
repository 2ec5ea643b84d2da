//! The one error type of the model crate.

use crate::FoldError;

/// An error from parsing or validating a model value, or a session event log that does not
/// fold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A digest string was not 64 lowercase or uppercase hex characters.
    #[error("invalid digest `{text}`: expected 64 hex characters")]
    InvalidDigest {
        /// The rejected text, cut to at most 80 bytes.
        text: String,
    },
    /// A span had `start > end`.
    #[error("invalid span [{start}, {end}): start is after end")]
    InvalidSpan {
        /// The rejected start offset in bytes.
        start: usize,
        /// The rejected end offset in bytes.
        end: usize,
    },
    /// A reduction id did not follow `r<ordinal>.<6 hex>`.
    #[error(
        "invalid reduction id `{text}`: expected r<ordinal>.<6 hex digits>, such as r12.9f3c2a"
    )]
    InvalidReductionId {
        /// The rejected text, cut to at most 80 bytes.
        text: String,
    },
    /// A line was not a stub.
    #[error("invalid stub: {reason}")]
    InvalidStub {
        /// What was wrong with the line.
        reason: String,
    },
    /// A session event log does not fold ([`fold_surface`](crate::fold_surface) returns the
    /// precise [`FoldError`], which converts into this with `?`).
    #[error(transparent)]
    Fold(#[from] FoldError),
}

/// Cuts `text` to at most 80 bytes on a char boundary, for error messages.
pub(crate) fn clip(text: &str) -> String {
    let mut end = text.len().min(80);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}
