//! Integration tests of the rehydrate facade: the agent loop example, and `Session` against
//! the parts it wires.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod agent_loop;
mod compactions;
mod kinds;
mod properties;
mod session;
