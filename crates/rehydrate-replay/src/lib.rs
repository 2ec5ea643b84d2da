//! Transcript replay: which whole file contents an agent provably saw, rebuilt from a
//! transcript's tool results alone (SPEC seed 001).
//!
//! # Where to start
//!
//! - [`file_records`] gives, per absolute path, the last whole content the transcript proves.
//! - [`Replay`] is the same walk message by message, for hosts that replay as they go.
//! - [`staleness`] compares a [`FileRecord`] with the bytes a host now reads from disk.
//! - [`apply_recorded_edit`] applies a recorded edit to its base, or fails rather than guess.
//!
//! Agents gate edits on read-before-write state ("File has not been read yet", "modified since
//! read") and lose it when a session is resumed or compacted. The transcript already proves what
//! the agent saw: a whole-file read serves the text, a write persists it, and an edit's result
//! can be recomputed from the base it recorded. This crate rebuilds that state, safely:
//! content never comes from disk, and what cannot be proven is forgotten, never guessed.
//!
//! # Overview
//!
//! - [`file_records`] gives, per absolute path, the last whole content the transcript proves
//!   ([`FileRecord`]: path, content, blake3 digest, timestamp, message index), sorted by path.
//! - [`Replay`] is the same walk message by message, for hosts that replay as they go and for
//!   checks that need the state just before a message ([`Replay::step`] says what each message
//!   did: [`Step`]).
//! - [`apply_recorded_edit`] is the single place where a recorded edit (string replacements or
//!   a line patch) is applied to its base; it fails rather than guess ([`EditFailure`]).
//! - [`staleness`] compares a record with the bytes a host now reads from disk:
//!   [`Staleness::Fresh`], [`Staleness::Stale`] or [`Staleness::NotRead`].
//!
//! Importers (`rehydrate-formats`) fill the typed [`rehydrate_model::ToolDetails`] this crate
//! reads; it never parses a tool's raw JSON.
//!
//! # Example
//!
//! ```
//! use rehydrate_model::{EditBase, EditChange, FileEdit, Message, Replacement, ToolDetails};
//! use rehydrate_replay::{Staleness, file_records, staleness};
//!
//! let mut edit = Message::tool_result("t1", "The file /a/x has been updated.");
//! edit.details = Some(Box::new(ToolDetails::Edit(FileEdit {
//!     path: "/a/x".into(),
//!     base: EditBase::Recorded { text: "hello world".into() },
//!     change: EditChange::Replacements {
//!         edits: vec![Replacement { old: "world".into(), new: "there".into(), replace_all: false }],
//!         expand_tabs: None,
//!         universal_newlines: false,
//!     },
//!     shown: None,
//!     diff: None,
//! })));
//! let records = file_records(&[edit]);
//! assert_eq!(records[0].content, "hello there");
//! assert_eq!(staleness(records.first(), Some(b"hello there")), Staleness::Fresh);
//! ```
//!
//! # Untrusted input
//!
//! Any messages, with any details, replay without panicking; a malformed or inconsistent
//! record retracts its path. Work is linear in the size of the transcript plus, per edit, the
//! size of its base and result: an edit rewrites the whole file text, so a transcript of `n`
//! edits of one file of `m` bytes costs `n * m` (a hostile SWE-agent trajectory of 20,000
//! one-line edits of a 10 MB file takes about a minute). Tab expansion is bounded by
//! [`MAX_TAB_SIZE`].

#![forbid(unsafe_code)]

mod edit;
mod patch;
mod record;
mod replay;

pub use edit::{EditFailure, MAX_TAB_SIZE, apply_recorded_edit};
pub use record::{FileRecord, Staleness, staleness};
pub use replay::{PathState, Replay, ReplayCounts, Retraction, Step, file_records, is_absolute};

#[cfg(test)]
mod tests;
