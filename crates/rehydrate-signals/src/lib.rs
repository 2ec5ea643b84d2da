//! Divergence signals: know when lossy summaries and the sidecar stop agreeing, and freeze
//! compaction (SPEC seed 002).
//!
//! # Where to start
//!
//! - [`CompactionSignals::from_store`] computes the signals from a session store's state.
//! - [`check_compaction_boundary`] gives a [`Decision`], or a [`RehydrationDivergence`] for freeze.
//! - [`auto_compact`] runs a host's summarizer only when the signals allow it.
//! - [`reconcile`] is the full re-verification pass a freeze calls for.
//!
//! When a host summarizes old turns (lossy) and later rehydrates from the sidecar, the two can
//! drift: summaries cite reductions that no longer resolve, or the summarizer starts citing ids
//! it saw only in rehydrated content. Citations are observable here, as stub lines in summary
//! text, so the drift can be measured.
//!
//! # Overview
//!
//! - [`CompactionSignals::from_store`] computes the signals from a session store's state alone
//!   (its summaries, log and reported misses; never its messages): the epoch, the ids cited in
//!   active summaries, the ids the store resolves, references per summary per epoch, dangling
//!   citations, digest failures and misses; it checks the validity conditions.
//! - [`check_compaction_boundary`] turns them into a [`Decision`], or a
//!   [`RehydrationDivergence`] for freeze; [`auto_compact`] runs a host's summarizer only when
//!   allowed and records its summary at the next epoch.
//! - [`reconcile`] is the full pass a freeze calls for: every reduction re-verified, dangling
//!   citations per summary, and which summaries to write again.
//!
//! # Example
//!
//! ```
//! use rehydrate_signals::{CompactionSignals, Decision, check_compaction_boundary};
//! use rehydrate_store::StoreState;
//!
//! let signals = CompactionSignals::from_store(&StoreState::default())?;
//! assert_eq!(check_compaction_boundary(&signals), Ok(Decision::Continue));
//! # Ok::<(), rehydrate_signals::InvalidSignals>(())
//! ```
//!
//! # Untrusted input
//!
//! Any store state gives signals or an [`InvalidSignals`] error; nothing panics.

#![forbid(unsafe_code)]

mod decide;
mod error;
mod reconcile;
mod signals;

pub use decide::{
    Assessment, Compacted, Decision, Summary, assess, auto_compact, check_compaction_boundary,
};
pub use error::{Error, GROWING_CITATIONS, InvalidSignals, RehydrationDivergence};
pub use reconcile::{ReconcileReport, reconcile};
pub use signals::CompactionSignals;
