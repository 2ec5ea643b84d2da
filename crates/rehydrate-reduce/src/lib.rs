//! Reversible reduction of agent session history.
//!
//! # Where to start
//!
//! - [`Reducer`] projects a live session, fed each turn's new messages.
//! - [`Reducer::close`] treats the session as complete before it is written as a finished artifact.
//! - [`project_messages`] projects a whole history in one call and returns a [`Projection`].
//! - [`ReductionPolicy`] says what may be reduced: `default()` or [`ReductionPolicy::aggressive`].
//! - [`repair_session`] makes only the pairing repairs, for a session sent whole.
//!
//! [`project_messages`] takes a session's full history, the reduction log of earlier
//! projections and a [`ReductionPolicy`], and returns the reduced view the model is sent plus
//! the log extended with every reduction it minted. [`Reducer`] is the same projection for a
//! live session: it keeps the history, the log and the view, takes each turn's new messages,
//! and does work proportional to them (and to the tool results and assistant texts leaving the
//! protected window),
//! never to the whole history; its view borrows the messages it does not reduce. Nothing is lost: every stub in the view
//! names a reduction whose original bytes are in the history (the sidecar) under a blake3
//! digest, and `rehydrate_sidecar::expand_reduction` gives them back.
//!
//! # Overview
//!
//! Seven kinds of reduction are minted to save tokens (docs/FORMATS.md, "View"):
//! - **tool output truncated**: an old tool result larger than the trigger keeps its head and
//!   tail; the middle becomes a one-line stub saying how many bytes and lines are hidden;
//! - **assistant text truncated**: the same for the text of an old assistant message, when the
//!   policy turns it on (the aggressive preset does, the default does not); its tool calls and
//!   metadata stay;
//! - **tool input elided**: the largest string argument of an old tool call (a `Write`'s
//!   `content`, an `Edit`'s `new_string`) becomes a stub inside the call's JSON arguments, when
//!   the policy turns it on (the aggressive preset does, the default does not); the arguments
//!   stay a JSON object and the call keeps its id;
//! - **duplicate output**: an old tool result byte-identical to an earlier one becomes a stub
//!   naming the earlier message;
//! - **superseded result**: an old tool result whose call is made again later becomes a stub
//!   naming the later result, when the policy turns it on;
//! - **image redacted**: old inline images of a user message or tool result, and earlier
//!   copies of an image as soon as a later copy arrives, become one text part holding a stub,
//!   when the policy turns it on; the message's other parts stay;
//! - **turns cleared**: whole old turns become one stub message, with an optional summary.
//!
//! A reduction is minted only where its stub is smaller than what it hides, so reducing never
//! grows a session. The view is valid for the OpenAI and Anthropic APIs whatever the session's
//! defects: turns are cleared only at boundaries no tool call crosses, so a call and its result
//! are never separated, and the *pairing repairs* (reductions too, verified and inverted like
//! the others) answer a call that got no result with a synthetic result, hide a result whose
//! call is gone or that answers a call twice, bring a result written after other messages next
//! to its call, fold calls an API refuses as written into text, and open a conversation that
//! starts with the assistant (docs/FORMATS.md, "Pairing repairs"). [`Reducer::close`] treats the
//! session as complete; [`project_messages`] closes; [`repair_session`] makes only the repairs,
//! for a session sent whole.
//!
//! Projection is idempotent and stable: a message already reduced in the log keeps its stub
//! (the log is a memo of decisions), so running [`project_messages`] again over the same
//! history and log gives the same view and log, and a growing session keeps the prefix of its
//! view unchanged. A tool result that is the output of an earlier `expand_reduction` is an
//! ordinary tool result and ages out like any other.
//!
//! # Example
//!
//! ```
//! use rehydrate_model::{Message, ReductionLog, Role};
//! use rehydrate_reduce::{ReductionPolicy, project_messages};
//!
//! let big = "log line\n".repeat(2000); // 18000 bytes
//! let mut history = vec![Message::text(Role::User, "build it")];
//! for i in 0..5 {
//!     history.push(Message::tool_call(format!("c{i}"), "bash", "{}"));
//!     history.push(Message::tool_result(format!("c{i}"), big.clone()));
//! }
//! let out = project_messages(&history, &ReductionLog::default(), &ReductionPolicy::default());
//! // The newest three tool results are protected; c0 is truncated, c1 duplicates c0.
//! assert_eq!(out.log.len(), 2);
//! assert!(out.view[2].content_text().unwrap().contains("[rehydrate:tool-output r0."));
//! assert!(out.view[4].content_text().unwrap().starts_with("[rehydrate:duplicate r1."));
//! ```
//!
//! # Untrusted input
//!
//! History and log may come from files. Projection never panics on them: a log entry that no
//! longer verifies against the history (a rewound or edited session) is not reused, and a new
//! decision is made for that message.

#![forbid(unsafe_code)]

mod batch;
mod boundaries;
mod cut;
mod deferred;
mod digests;
mod images;
mod pairing;
mod policy;
mod project;
mod reducer;
mod request;
mod rereads;
mod superseded;
mod turns;
mod window;

pub use cut::truncation_span;
pub use digests::PARALLEL_HASH_MIN_BYTES;
pub use pairing::UNREPAIRED_RULES;
pub use policy::{DEFAULT_TOOL_INPUT_FIELDS, Minting, ReductionPolicy};
pub use project::{Projection, project_messages};
pub use reducer::{Batch, BatchCause, CacheState};
pub use reducer::{Reducer, View};
pub use request::{repair_session, repairs_in_view, session_request_body};
pub use turns::{clearable_range, safe_boundaries, turn_starts};

#[cfg(test)]
mod tests;
