//! Anthropic Messages request bodies: the importer (`read.rs`) and the request body writer
//! with the API's validity rules (`write.rs`).

pub(crate) mod read;
pub(crate) mod write;

pub(crate) use read::{BLOCK_TYPES, import};
#[cfg(test)]
pub(crate) use read::{import_field_by_field, import_typed};
