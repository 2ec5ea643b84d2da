//! Integration tests of rehydrate-evidence: the fixture cases with snapshots, the size limit,
//! imported sessions, the corpus check and properties.

mod corpus;
mod fixtures;
mod limit;
mod properties;
