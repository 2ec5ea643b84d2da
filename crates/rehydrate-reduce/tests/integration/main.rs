//! Integration tests of the reducer: fixture snapshots and properties over random sessions.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod assistant_text;
mod cache_aware;
mod compactions;
mod defects;
mod fixtures;
mod images;
mod incremental;
mod normalized;
mod properties;
mod regressions;
mod rereads;
mod stub_text;
mod superseded;
