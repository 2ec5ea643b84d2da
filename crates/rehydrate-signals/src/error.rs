//! The errors of the signals crate.

use crate::decide::Decision;
use crate::signals::CompactionSignals;

/// The fail-closed invariant's text (SPEC seed 002): the message of a divergence caused by
/// citations growing while they diverge.
pub const GROWING_CITATIONS: &str = "references-per-summary increased across compaction epochs; summarizer is re-deriving citations from rehydrated content.";

/// A validity condition of the signals does not hold (SPEC seed 002, "validity conditions").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidSignals {
    /// Summary epochs must strictly increase.
    #[error(
        "compaction epochs out of order: summary {summary} has epoch {epoch} after epoch {previous}"
    )]
    EpochOrder {
        /// The summary's position in the store.
        summary: usize,
        /// Its epoch.
        epoch: u64,
        /// The epoch before it.
        previous: u64,
    },
    /// A summary may retire only earlier summaries.
    #[error("summary of epoch {epoch} retires epoch {retired}, which is not earlier")]
    RetiresLater {
        /// The retiring summary's epoch.
        epoch: u64,
        /// The epoch it names.
        retired: u64,
    },
}

/// Auto-compaction must stop: the summaries and the store diverge (SPEC seed 002,
/// `RehydrationDivergenceError`). Carries the signals and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", join_reasons(reasons))]
pub struct RehydrationDivergence {
    /// The signals that decided it.
    pub signals: Box<CompactionSignals>,
    /// Why, one sentence each; the first is [`GROWING_CITATIONS`] when citations grew.
    pub reasons: Vec<String>,
}

impl RehydrationDivergence {
    /// Always [`Decision::Freeze`].
    pub fn decision(&self) -> Decision {
        Decision::Freeze
    }
}

/// The one error type of the signals crate: why [`crate::auto_compact`] did not compact, and
/// what the precise errors of [`crate::check_compaction_boundary`]
/// ([`RehydrationDivergence`]) and [`CompactionSignals::from_store`] ([`InvalidSignals`])
/// convert into with `?`. Each variant displays as the error it wraps, whose source chain it
/// forwards (`#[error(transparent)]`); match the variant for the precise error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The signals say freeze: the summarizer was not called.
    #[error(transparent)]
    Divergence(#[from] RehydrationDivergence),
    /// A validity condition does not hold: the summarizer was not called.
    #[error(transparent)]
    Invalid(#[from] InvalidSignals),
    /// The summary could not be recorded.
    #[error(transparent)]
    Store(#[from] rehydrate_store::Error),
}

/// The reasons as one line: joined with `; `, a reason's own final period dropped before it
/// (the seed's reason text is a sentence that ends with one).
pub(crate) fn join_reasons(reasons: &[String]) -> String {
    let trimmed: Vec<&str> = reasons.iter().map(|r| r.trim_end_matches('.')).collect();
    trimmed.join("; ")
}
