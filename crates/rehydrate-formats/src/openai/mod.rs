//! OpenAI chat completions: the messages array importer (`read.rs`) and the request body writer
//! with the API's validity rules (`write.rs`).

mod read;
pub(crate) mod write;

#[cfg(test)]
pub(crate) use read::import_typed;
pub(crate) use read::{
    import, import_array, import_text, is_array, name_and_arguments, take_content, take_tool_calls,
};
