//! Integration tests of rehydrate-replay: the fixture cases with snapshots, sessions written
//! for this project, the corpus check and properties.

mod corpus;
mod fixtures;
mod imported;
mod properties;
