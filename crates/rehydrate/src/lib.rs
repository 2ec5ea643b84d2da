//! Reversible context reduction for LLM agent sessions: the crate a host starts from.
//!
//! # Where to start
//!
//! - [`Session`]: one live session recorded in a durable session store. [`Session::create`]
//!   or [`Session::open`] it, [`Session::push`] each turn's messages, send
//!   [`Session::request_body`] (or [`Session::view`]), advertise [`Session::tools`], answer the
//!   model's tool calls with [`Session::call`]; [`Session::rewind`], [`Session::switch_model`]
//!   and [`Session::export`] do the rest. Every failure is an [`Error`].
//! - The parts, one module each: [`model`] (canonical messages, reductions, the log, stubs),
//!   [`sidecar`] (hashing, verification, `expand_reduction`, `invert`, request bodies, export),
//!   [`store`] (the session store file), [`reduce`] (the projection: `Reducer`,
//!   `project_messages`, `ReductionPolicy`), [`formats`] (importers of session files),
//!   [`search`] (`sidecar_search`), [`intrinsics`] (tool definitions and dispatch),
//!   [`replay`] (transcript replay), [`evidence`] (evidence projection), [`signals`]
//!   (divergence signals) and [`cost`] (what a session costs with prompt caching, per
//!   reduction strategy).
//! - At the top level, the types a host names first: [`Message`], [`Role`], [`ToolCall`],
//!   [`Reduction`], [`ReductionId`], [`ReductionLog`], [`ReductionPolicy`], [`View`],
//!   [`SyncPolicy`], [`SessionDir`] (what `rehydrate reduce` writes, read back and checked),
//!   [`ToolResult`], [`ToolFormat`], [`tool_definitions`],
//!   [`EXPAND_REDUCTION`], [`SIDECAR_SEARCH`], [`Api`] and [`ExportFormat`].
//!
//! # Overview
//!
//! rehydrate reduces the history of a session reversibly: old tool outputs, duplicate outputs
//! and whole old turns become one-line stubs, each a reduction in a log with a blake3 digest
//! (docs/FORMATS.md, "View", "Reduction log"), and the model gets the exact original bytes
//! back with the intrinsic tools `expand_reduction` and `sidecar_search` (SPEC seed 000 rules
//! 24-26). The parts, each usable alone, are re-exported here (like `regex` over
//! `regex-automata`); [`Session`] is the one type that wires them for a live session.
//!
//! # Example
//!
//! A session whose oldest build outputs are reduced, expanded back by the model, reopened
//! after a restart and exported with every reduction inverted:
//!
//! ```
//! use std::time::Duration;
//!
//! use rehydrate::{
//!     Api, CacheState, ExportFormat, Message, ReductionPolicy, Role, Session, SyncPolicy,
//! };
//!
//! # let dir = std::env::temp_dir().join(format!("rehydrate-crate-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # let path = dir.join("session.rhyd");
//! # let _ = std::fs::remove_file(&path);
//! let policy = ReductionPolicy::aggressive();
//! let mut session = Session::create(&path, policy.clone(), SyncPolicy::EveryRecord)?;
//! session.push([Message::text(Role::User, "run the build")])?;
//! for i in 0..5 {
//!     let call = Message::tool_call(format!("c{i}"), "bash", format!(r#"{{"cmd":"make step{i}"}}"#));
//!     let output = Message::tool_result(format!("c{i}"), format!("build {i}\n").repeat(2000));
//!     // Recorded and projected; the reductions shown are recorded. The oldest outputs
//!     // leave the protected window, and their truncations wait while the provider caches
//!     // the prompt: they save less than they would make the next request write again.
//!     session.push([call, output])?;
//! }
//! assert_eq!(session.waiting().0, 2);
//! // Ten minutes pass before the next request: the cache has expired, so they are shown.
//! session.push_cached([], CacheState::Idle(Duration::from_secs(600)))?;
//! let body = String::from_utf8(session.request_body(Api::OpenAi)?)?; // what the model is sent
//! assert!(body.contains("[rehydrate:tool-output r0.")); // the oldest output, truncated
//! let id = session.log().reductions[0].id.to_string(); // the stub the model reads
//! let expanded = session.call("expand_reduction", &format!(r#"{{"reduction_id":"{id}"}}"#));
//! assert_eq!(expanded.content, "build 0\n".repeat(2000)); // the exact original bytes
//! drop(session);
//!
//! let session = Session::open(&path, policy, SyncPolicy::EveryRecord)?; // after a restart
//! assert_eq!((session.history().len(), session.log().len()), (11, 2));
//! let jsonl = session.export(ExportFormat::Jsonl)?;
//! assert_eq!(jsonl.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count(), 11);
//! # drop(session);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Untrusted input
//!
//! A store file, a session file and a model's tool arguments may all be untrusted. Opening a
//! store that is not one, or is corrupt, is an [`Error`] naming the file and byte offset;
//! a recorded reduction that does not verify against its message is never served (its message
//! is decided again); a model's bad tool call is a tool error it reads, never a panic.

#![forbid(unsafe_code)]

mod error;
mod session;

pub use error::Error;
pub use session::Session;

pub use rehydrate_cost as cost;
pub use rehydrate_evidence as evidence;
pub use rehydrate_formats as formats;
pub use rehydrate_intrinsics as intrinsics;
pub use rehydrate_model as model;
pub use rehydrate_reduce as reduce;
pub use rehydrate_replay as replay;
pub use rehydrate_search as search;
pub use rehydrate_sidecar as sidecar;
pub use rehydrate_signals as signals;
pub use rehydrate_store as store;

pub use rehydrate_formats::{Api, ExportFormat};
pub use rehydrate_intrinsics::{
    EXPAND_REDUCTION, SIDECAR_SEARCH, ToolFormat, ToolResult, tool_definitions,
};
pub use rehydrate_model::{Message, Reduction, ReductionId, ReductionLog, Role, ToolCall};
pub use rehydrate_reduce::{CacheState, Minting, ReductionPolicy, View};
pub use rehydrate_store::{SessionDir, SyncPolicy};

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
