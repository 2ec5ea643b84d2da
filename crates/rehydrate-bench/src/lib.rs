//! Benchmark workloads for rehydrate and the side-by-side peer, for the criterion suite in
//! `benches/suite.rs` (run it with `cargo xtask bench`; docs/BENCHMARKS.md has the figures).
//!
//! # Overview
//!
//! - [`workload`]: the real Claude Code sessions of the shared corpus, split into turns and
//!   scaled by repeating the turns with fresh tool-call ids into two workloads:
//!   [`workload::turns_1000`] (exactly 1,000 turns) and [`workload::mib_50`] (at least 50 MiB of
//!   wire bytes), plus [`workload::write_openai`], which saves a workload as an OpenAI messages
//!   file for the CLI bench; and, for the replay and evidence benches,
//!   [`workload::SessionFiles`]: the Claude Code session files themselves, repeated whole with
//!   fresh ids and their own file paths into at least 50 MiB of JSONL: the ones with the most
//!   file-tool cards into [`workload::claude_mib_50`] (replay), the largest ones into
//!   [`workload::claude_largest_mib_50`] (evidence).
//! - [`formats`]: the import bench's session files, one per format `rehydrate_formats` reads:
//!   the corpus's Codex rollout, SWE-agent trajectory and Gemini CLI session repeated whole
//!   with fresh ids ([`formats::repeat_codex`], [`formats::repeat_swe_agent`],
//!   [`formats::repeat_gemini`]), and canonical messages written
//!   as OpenAI chat, Anthropic Messages and Responses bodies ([`formats::write_body`]), each
//!   checked to import to what its parts do.
//! - [`peer`]: our messages converted to the types of the benchmark peer, `supercode-reduce`
//!   0.5.144, and back, the peer policy that matches ours and the peer with every lever on.
//! - [`economy`]: the economy table, what our two presets and the peer with every lever on save
//!   of each long corpus session, in wire bytes and in tokens ([`tokens`]: o200k_base counts as
//!   the CLI reports them).
//! - [`wire`]: the typed wire forms the `serde_json` baselines parse into: an OpenAI message
//!   (CLI bench), a Claude Code session line (replay and evidence benches), and one typed form
//!   per format for the import bench ([`wire::parse_typed`]).
//! - [`locate`]: where the corpus, the target directory and the `rehydrate` binary are.
//!
//! This is the only package of the workspace that depends on the peer (and on `tiktoken-rs`,
//! the token-counting peer of the benches); no library crate does.
//!
//! # Example
//!
//! ```
//! use rehydrate_bench::workload::{Corpus, Until};
//!
//! let corpus = Corpus::synthetic();
//! let workload = corpus.scale("small", Until::Turns(30));
//! assert_eq!(workload.turn_count(), 30);
//! assert!(workload.wire_bytes() > 0);
//! let peer = rehydrate_bench::peer::to_peer_all(&workload.messages());
//! assert_eq!(peer.len(), workload.message_count());
//! ```
//!
//! # Untrusted input
//!
//! Corpus files are untrusted: one that does not import is skipped and named in
//! [`workload::Corpus::notices`]; nothing here panics on them.

#![forbid(unsafe_code)]

pub mod economy;
mod error;
pub mod formats;
pub mod locate;
pub mod peer;
pub mod tokens;
pub mod wire;
pub mod workload;

pub use error::Error;

#[cfg(test)]
mod tests;
