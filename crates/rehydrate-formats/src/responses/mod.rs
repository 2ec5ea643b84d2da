//! OpenAI Responses API input items: the importer (`read.rs`) and the `input` writer
//! (`write.rs`). The API's rules are the OpenAI chat rules at the canonical level
//! ([`crate::Api::Responses`]); docs/FORMATS.md, "OpenAI Responses input", gives the mapping.

mod read;
pub(crate) mod write;

pub(crate) use read::{import, is_item_type};
#[cfg(test)]
pub(crate) use read::{import_field_by_field, import_typed};
