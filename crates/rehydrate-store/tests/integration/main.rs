//! Integration tests of the session store (reload, torn tails, corruption, locking, appends
//! that survive SIGKILL, what a rewind means for resolution) and of the session directory.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod backend;
mod dir;
mod faults;
mod faulty;
mod sources;
mod store;
