//! Evidence projection: a session's event log as compact, redacted, size-checked per-turn
//! evidence for a memory or review model (SPEC seed 003).
//!
//! # Where to start
//!
//! - [`project_evidence`] turns a session's event log into per-turn [`Evidence`].
//! - [`EvidenceOptions`] sets the size limit ([`DEFAULT_MAX_INPUT_BYTES`] by default).
//! - [`Evidence::input_json`] is the exact input measured and handed on.
//! - [`Error::EvidenceTooLarge`] is the loud failure when even the evidence does not fit.
//!
//! A model that reads a whole coding session gets request metadata, stream chunks, tool
//! arguments, file bodies and command output, and overflows; keeping only the newest turns
//! silently drops the decision it was meant to learn. [`project_evidence`] derives
//! deterministic, auditable evidence instead, and fails loudly when even that is too large.
//!
//! # Overview
//!
//! - [`project_evidence`] folds the log ([`rehydrate_model::fold_surface`]), groups the
//!   effective surface by turn (each [`EvidenceTurn`] keeps its original inclusive seq range),
//!   keeps the person's text, compaction summaries, the last non-empty assistant text and each
//!   tool's name and outcome, rewrites kept text (secrets become `rehydrate_search::redact`
//!   placeholders, then fenced code blocks over 4 KiB a byte-count placeholder), and
//!   measures the whole input, workspace records included, against
//!   [`EvidenceOptions::max_input_bytes`].
//! - [`Evidence::input_json`] is the exact input measured and handed on; [`EvidenceStats`] has
//!   counts and byte sizes for a debug log, never content.
//! - [`PROJECTION_VERSION`] changes whenever the rules do.
//!
//! Session logs come from `rehydrate_formats::import_events`:
//!
//! ```
//! use std::path::Path;
//! use rehydrate_evidence::{EvidenceOptions, project_evidence};
//!
//! let session = br#"[{"role":"user","content":"fix the build"},
//!                    {"role":"assistant","content":"Fixed: a missing semicolon."}]"#;
//! let log = rehydrate_formats::import_events(Path::new("chat.json"), session, None)?;
//! let evidence = project_evidence(&log.events, &[], &EvidenceOptions::default())?;
//! assert_eq!(evidence.turns[0].user, ["fix the build"]);
//! assert_eq!(evidence.turns[0].assistant.as_deref(), Some("Fixed: a missing semicolon."));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Example
//!
//! ```
//! use rehydrate_evidence::{Error, EvidenceOptions, project_evidence};
//! use rehydrate_model::{EventKind, SessionEvent, SurfaceOp, UserBlock};
//!
//! let log = vec![SessionEvent {
//!     seq: 0,
//!     time: None,
//!     turn: Some(1),
//!     kind: EventKind::UserMessage { blocks: vec![UserBlock::Text { text: "x".repeat(200) }] },
//!     surface: Some(SurfaceOp::Append),
//!     sources: vec![],
//! }];
//! let err = project_evidence(&log, &[], &EvidenceOptions { max_input_bytes: 100 }).unwrap_err();
//! assert!(matches!(err, Error::EvidenceTooLarge { limit: 100, .. }));
//! ```
//!
//! # Untrusted input
//!
//! Any log projects or fails with an [`Error`]; nothing panics. Work is linear in the log's
//! size (folding walks only the events each replacement replaces).

#![forbid(unsafe_code)]

mod error;
mod fence;
mod project;

pub use error::Error;
pub use fence::CODE_BLOCK_LIMIT_BYTES;
pub use project::{
    DEFAULT_MAX_INPUT_BYTES, Evidence, EvidenceOptions, EvidenceStats, EvidenceTurn,
    PROJECTION_VERSION, ToolOutcome, project_evidence,
};

#[cfg(test)]
mod tests;
