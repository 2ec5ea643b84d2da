//! Anthropic Messages request bodies: the writer, which merges roles and places blocks, with the
//! API's validity rules (`write.rs`).

pub(crate) mod write;
