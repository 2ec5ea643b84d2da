//! Integration tests of rehydrate-signals: the SPEC seed 002 cases as fixtures, signals from
//! stores, the validity conditions, auto-compaction and reconcile, and a 200-cycle simulation.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod fixtures;
mod simulation;
mod stores;
