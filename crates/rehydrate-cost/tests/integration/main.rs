//! Integration tests of rehydrate-cost: replays of small sessions with hand-computed figures,
//! and properties over random sessions.

mod properties;
mod replays;
