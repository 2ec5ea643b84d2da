//! The sidecar core of rehydrate: hashing, verification, resolution, `expand_reduction` and
//! `invert`.
//!
//! # Where to start
//!
//! - [`expand_reduction`] serves the exact original bytes behind a reduction, verified first.
//! - [`invert`] gives back the original messages from a view, its log and the minted view.
//! - [`verify_log`] checks every reduction of a log against the minted view; a
//!   [`VerifiedCache`] remembers which verified, so a live session does not hash them again.
//! - [`export_session`] writes the session with every reduction undone, in any form
//!   `rehydrate-formats` writes, behind the leak guard.
//!
//! A reduction points into the *minted view*: the full-fidelity message list it was minted
//! against (the sidecar). Everything here is a pure function over that slice and a
//! [`ReductionLog`](rehydrate_model::ReductionLog): the crate does no I/O (the durable session
//! store is `rehydrate-store`).
//!
//! # Overview
//!
//! - [`content_digest`] and [`turns_digest`] define the hashed bytes (blake3; docs/FORMATS.md,
//!   "Hashed bytes").
//! - [`resolve`] finds the exact original text behind a reduction, checking index, role and
//!   digest (SPEC seed 000 rules 1-6). A mismatch is an error naming the message index; other
//!   bytes are never returned.
//! - [`expand_reduction`] serves the original or a half-open byte range of it, clamped and cut
//!   on char boundaries (rules 7-11); [`reduction_total_bytes`] gives its size. Both take the
//!   minted view, or [`Sources`] with the messages a store recorded, whose fuller bytes replace
//!   a tool output the host capped when the supersession key matches (rule 5).
//! - [`stub_message`] renders the view message that stands for a reduction; it is the single
//!   place the view form of a reduction is defined, used by the reducer and by [`invert`].
//! - [`invert`] splices every original back into a view: view + log + minted view give back the
//!   original messages byte for byte; [`check_inverts`] makes the same checks without building
//!   them. [`verify_log`] checks every reduction of a log.
//! - [`export_session`] writes the inverted session in a [`rehydrate_formats::ExportFormat`]
//!   (the formats crate owns every byte layout and the APIs' rules); it refuses to leave a stub
//!   in the bytes, and [`check_tool_links`] keeps the request bodies valid (every tool call
//!   answered once, right after it).
//!
//! # Example
//!
//! ```
//! use rehydrate_model::{Message, ReductionLog};
//! use rehydrate_sidecar::expand_reduction;
//!
//! let minted = vec![Message::tool_result("c1", "hello world")];
//! let log = ReductionLog::default();
//! let err = expand_reduction(&log, &minted, "r0.abcdef", None).unwrap_err();
//! assert_eq!(err.to_string(), "no reduction with id `r0.abcdef`; valid ids: (none)");
//! ```
//!
//! # Untrusted input
//!
//! The log, the view and the minted view may all come from files a user or a model touched.
//! No function here panics on any of them: a reduction that does not verify is an [`Error`]
//! naming the reduction id and message index, and ranges from a model are clamped or rejected
//! with the true size.

#![forbid(unsafe_code)]

mod diff;
mod error;
mod expand;
mod export;
mod hash;
mod image;
mod invert;
mod memo;
mod render;
mod reread;
mod rerun;
mod resolve;
mod sources;
mod terminal;
mod tool_input;

pub use diff::{DIFF_MAX_EDIT_LINES, apply_unified_diff, unified_diff, unified_diff_with_bound};
pub use error::Error;
pub use expand::{ExpandOutcome, expand_reduction, reduction_total_bytes};
pub use export::{ExportError, check_exportable, check_tool_links, export_session, export_shown};
pub use hash::{TurnsHasher, content_digest, turns_digest};
pub use image::{
    ImageData, hidden_images_text, image_data, image_size, image_tokens, redacted_parts,
    strip_image_data,
};
pub use invert::{check_inverts, check_inverts_verified, invert, verify_log, verify_log_cached};
pub use memo::VerifiedCache;
pub use render::{
    TurnsFacts, expected_stub, expected_stub_from_facts, moved_message, render_turns, stub_message,
};
pub use reread::{REREAD_DIFF_CONTEXT_LINES, diff_within_share, reread_diff, whole_read};
pub use rerun::{CommandFields, answered_call, canonical_arguments, rerun_key};
pub use resolve::{RangeScan, Resolved, Verified, resolve, verify_reduction};
pub use sources::Sources;
pub use terminal::normalize_terminal;
pub use tool_input::{ArgumentField, argument_fields, replace_argument};
