//! Integration tests of the session store: reload, torn tails, corruption, locking, appends
//! that survive SIGKILL, and what a rewind means for resolution.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod sources;
mod store;
