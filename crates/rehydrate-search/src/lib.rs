//! Search over the bytes a reduction log hides from the model: `sidecar_search`, bounded,
//! safe for untrusted regexes, as fast as ripgrep's approach, with secrets redacted.
//!
//! # Where to start
//!
//! - [`sidecar_search`] searches the bytes a log hides and returns a bounded [`SearchResult`].
//! - [`SearchOptions`] sets the [`SearchMode`] (auto, literal or regex) and case sensitivity.
//! - [`hidden_texts`] and [`search_hidden`] verify a log once for several compiled [`Query`]s.
//! - [`redact`] replaces secret-shaped strings by `[redacted:<kind>]` placeholders.
//!
//! A reduced view replaces old tool outputs and turns by stubs; the original bytes stay in the
//! sidecar. [`sidecar_search`] lets the model find something in those hidden bytes without
//! expanding everything, and names the reductions to expand (SPEC seed 000 rules 13-21).
//!
//! # Overview
//!
//! - [`sidecar_search`] resolves and verifies every reduction of a log, searches only what is
//!   hidden ([`hidden_texts`]), and returns a [`SearchResult`]: at most 50 matches with
//!   snippets of at most 200 bytes, a compact JSON form of at most 64 KiB, `total_matches`,
//!   an honest `truncated`, and the count of reductions that did not verify.
//! - [`Query`] compiles a query as a literal or a regex ([`SearchMode`]); [`search_hidden`]
//!   runs a compiled query over hidden texts already resolved, so several queries verify the
//!   log once. [`Query::find_each`] is the matcher alone.
//! - [`redact`] replaces secret-shaped strings (API keys, tokens, passwords, private keys) by
//!   typed placeholders `[redacted:<kind>]`; every snippet goes through it.
//!
//! # Example
//!
//! ```
//! use rehydrate_model::{Message, ReductionLog, Role};
//! use rehydrate_reduce::{ReductionPolicy, project_messages};
//! use rehydrate_search::{SearchMode, SearchOptions, sidecar_search};
//!
//! let mut log_lines = String::new();
//! for i in 0..1000 {
//!     log_lines.push_str(&format!("GET /item/{i} 200\n"));
//! }
//! log_lines.insert_str(3000, "connect ECONNREFUSED 127.0.0.1:5432\n");
//! let mut history = vec![Message::text(Role::User, "run the server")];
//! for i in 0..4 {
//!     history.push(Message::tool_call(format!("c{i}"), "server", "{}"));
//!     history.push(Message::tool_result(format!("c{i}"), format!("{log_lines}run {i}")));
//! }
//! let out = project_messages(&history, &ReductionLog::default(), &ReductionPolicy::default());
//!
//! let options = SearchOptions { mode: SearchMode::Regex, ..SearchOptions::default() };
//! let result = sidecar_search(&out.log, &history, r"econnrefused \S+", &options)?;
//! assert_eq!(result.total_matches, 1);
//! assert_eq!(result.matches[0].reduction_id, out.log.reductions[0].id);
//! assert!(result.matches[0].snippet.contains("ECONNREFUSED 127.0.0.1:5432"));
//! # Ok::<(), rehydrate_search::SearchError>(())
//! ```
//!
//! # Untrusted input
//!
//! The log and the minted view may come from files, and the query from a model. Nothing here
//! panics on them:
//!
//! - a reduction that does not verify is counted as unresolvable and never searched, so no
//!   byte is ever reported from a text that does not match its digest;
//! - a regex compiles under explicit limits (the compiled NFA at most 2 MiB, nesting at most
//!   64 deep, the query at most 4 KiB, lazy DFA cache 2 MiB); beyond them it is a one-line
//!   error, never an allocation failure. Matching is done by finite automata, never by
//!   backtracking without a bound (see [`Query::find_each`] for the cost);
//! - the result is bounded whatever the query or the log: at most 50 matches, 200-byte
//!   snippets, 64 KiB of JSON.
//!
//! Redaction is by shape (see [`redact`]): it can miss a secret of an unlisted shape. Matching
//! itself runs on the raw hidden bytes, so `total_matches` for a guessed secret says whether it
//! occurs even though no snippet shows it.

#![forbid(unsafe_code)]

mod error;
mod hidden;
mod literal;
mod options;
mod parallel;
mod query;
mod redact;
mod regex;
mod result;
mod search;
mod snippet;

pub use error::SearchError;
pub use hidden::{HiddenText, HiddenTexts, Unresolvable, hidden_texts, hidden_texts_cached};
pub use options::{
    MAX_MATCHES, MAX_QUERY_BYTES, MAX_RESULT_BYTES, SNIPPET_MAX_BYTES, SNIPPET_RADIUS_BYTES,
    SearchMode, SearchOptions,
};
pub use query::{Query, QueryMode};
pub use redact::{REDACTED_PREFIX, Secret, SecretKind, find_secrets, redact};
pub use result::{SearchMatch, SearchResult};
pub use search::{search_hidden, sidecar_search, sidecar_search_cached};

#[cfg(test)]
mod tests;
