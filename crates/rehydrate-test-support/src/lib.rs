//! What the tests of the rehydrate crates share, so that each builds its inputs one way.
//!
//! A dev-dependency only: no crate may depend on it for its library or build script
//! (`cargo xtask layers` checks it). It sits on layer 1 beside `rehydrate-sidecar` and depends
//! on `rehydrate-model` alone, so every crate from the sidecar up can use it in its tests.
//!
//! - [`messages`]: tool calls and the assistant messages that make them ([`call`], [`calling`],
//!   [`assistant_call`]).
//! - [`reductions`]: reductions built by hand with their real digest and id ([`truncation`],
//!   [`duplicate`], [`superseded`], [`text_digest`]); the caller renders the stub, since the renderer
//!   lives in the sidecar.
//! - [`images`]: base64 PNG data with a pixel size and the image parts carrying it
//!   ([`png_base64`], [`image_block`], [`image_url_part`], [`text_part`]).
//! - [`corpus`]: the shared corpus's session files ([`corpus_sessions`]), for the corpus checks.
//!
//! Tests fail loudly by design: these helpers panic on inputs a test should never give.

pub mod corpus;
pub mod images;
pub mod messages;
pub mod reductions;

pub use corpus::corpus_sessions;
pub use images::{image_block, image_url_part, png_base64, text_part};
pub use messages::{assistant_call, call, calling};
pub use reductions::{duplicate, superseded, text_digest, truncation};
