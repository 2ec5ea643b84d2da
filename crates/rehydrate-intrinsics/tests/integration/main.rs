//! Integration tests of rehydrate-intrinsics.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod list;
mod validation;
