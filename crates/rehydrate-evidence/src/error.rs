//! The one error type of the evidence crate.

use rehydrate_model::FoldError;

/// Why a log cannot be projected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The log does not fold into a surface (SPEC seed 003 foldSurface rules).
    #[error("the event log does not fold: {0}")]
    Fold(#[from] FoldError),
    /// A turn's events are split by another turn's.
    #[error("session event {seq} belongs to turn {turn}, whose events ended before")]
    TurnNotContiguous {
        /// The event.
        seq: u64,
        /// Its turn.
        turn: u64,
    },
    /// The projected input is over the limit: nothing is dropped to make it fit.
    #[error("evidence-too-large: the projected input is {bytes} bytes, over the limit of {limit}")]
    EvidenceTooLarge {
        /// The projected input's size in bytes.
        bytes: usize,
        /// The limit in bytes.
        limit: usize,
    },
}

impl Error {
    /// Whether this is [`Error::EvidenceTooLarge`].
    pub fn is_too_large(&self) -> bool {
        matches!(self, Error::EvidenceTooLarge { .. })
    }
}
