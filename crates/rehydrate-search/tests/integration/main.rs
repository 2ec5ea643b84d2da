//! Integration tests of rehydrate-search: the SPEC seed 000 search cases as snapshot fixtures,
//! properties against a naive oracle, the corpus check, redaction of snippets and properties of
//! each prefixed-token redaction rule.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod assistant_text;
mod build;
mod corpus;
mod fixtures;
mod images;
mod normalized;
mod properties;
mod redaction;
mod redaction_properties;
mod sources;
mod superseded;
mod tool_input;
