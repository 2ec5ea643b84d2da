//! Integration tests of rehydrate-replay: the fixture cases with snapshots, Claude Code sessions
//! written for this project, the corpus check and properties.

mod claude_code;
mod corpus;
mod fixtures;
mod properties;
