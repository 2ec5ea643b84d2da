//! The data model of rehydrate: canonical messages, reductions, the reduction log and the stub grammar.
//!
//! # Where to start
//!
//! - [`Message`] is the canonical message every importer produces and every other crate takes.
//! - [`ReductionLog`] holds the [`Reduction`]s minted so far, each pointing into the sidecar.
//! - [`Stub`] is the one-line grammar a view shows in place of what a reduction hides.
//! - [`Digest`] and [`Span`] are the blake3 digest and the half-open byte range a reduction names.
//! - [`SessionEvent`] is one event of a session's event log, for evidence projection.
//!
//! This crate is the bottom layer of the workspace.
//! It does no hashing and no I/O: digests are carried as [`Digest`] values computed elsewhere
//! (`rehydrate-sidecar`), and every type here is plain data with serde support.
//!
//! # Overview
//!
//! - [`Message`] is the canonical message every importer produces: a [`Role`], optional
//!   [`Content`] (text or content parts), [`ToolCall`]s with raw JSON arguments, a `tool_call_id`,
//!   a `name`, and `metadata` that never reaches the model.
//!   [`Message::write_wire`] writes the model-facing bytes that are counted, hashed and tokenized.
//! - [`Reduction`] records one place where the view differs from the original session:
//!   its [`ReductionKind`], a [`SidecarPtr`] (which message, which [`Span`], which [`Digest`]) and
//!   the stub line that stands in the view.
//!   A [`ReductionLog`] holds them in the order they were minted.
//! - [`Stub`] is the one-line grammar `[rehydrate:<kind> <id> | <summary>]`
//!   ([`Stub::render`], [`Stub::parse`]).
//! - [`ToolDetails`] types what a tool result recorded about a file (a whole or partial read, a
//!   write, an edit with its base and changes, ...), for transcript replay (SPEC seed 001).
//! - [`SessionEvent`] is one event of a session's backend-neutral log (seq, time, turn, kind);
//!   [`fold_surface`] folds a log into the surface the model sees after compaction summaries
//!   replaced what they summarize (SPEC seed 003).
//! - [`filter_reasoning_artifacts`] strips a model's private reasoning before history is sent to
//!   another model (SPEC seed 000 rules 22-23).
//!
//! # Example
//!
//! ```
//! use rehydrate_model::{Message, Role};
//!
//! let msg = Message::tool_result("call_1", "hello");
//! assert_eq!(msg.role, Role::Tool);
//! assert_eq!(msg.wire_json(), r#"{"role":"tool","content":"hello","tool_call_id":"call_1"}"#);
//! ```
//!
//! # Untrusted input
//!
//! Every type deserializes from untrusted JSON without panicking.
//! Invariants live in constructors and are checked on deserialization too:
//! a [`Span`] always has `start <= end`, a [`Digest`] is always 32 bytes,
//! a [`ReductionId`] always follows its grammar.

#![forbid(unsafe_code)]

mod details;
mod digest;
mod error;
mod events;
mod message;
mod reasoning;
mod reduction;
mod span;
mod stub;

pub use details::{
    EditBase, EditChange, FileEdit, Media, PatchHunk, Replacement, ShownLines, ToolDetails,
};
pub use digest::Digest;
pub use error::Error;
pub use events::{
    EventKind, FoldError, SessionEvent, Surface, SurfaceOp, SurfaceReplacement, UserBlock,
    fold_surface,
};
pub use message::{
    CAP_NOTICE_MARKER, Content, IS_ERROR_METADATA_KEY, Message, Role, TIMESTAMP_METADATA_KEY,
    ToolCall, json_str_len, write_json_value,
};
pub use reasoning::{
    REASONING_CONTENT_PART_TYPES, REASONING_METADATA_KEYS, REDACTED_THINKING_METADATA_KEY,
    THINKING_METADATA_KEY, THINKING_SIGNATURE_METADATA_KEY, filter_reasoning_artifacts,
};
pub use reduction::{
    HiddenImage, ImagePlace, MOVED_METADATA_KEY, MessageAddr, REDUCTION_METADATA_KEY, Reduction,
    ReductionId, ReductionKind, ReductionLog, SidecarPtr,
};
pub use span::Span;
pub use stub::{STUB_SENTINEL, Stub, StubKind, check_tool_input, find_stubs};

#[cfg(test)]
mod tests;
