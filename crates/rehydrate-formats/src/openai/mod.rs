//! OpenAI chat completions: the messages array importer (`read.rs`) and the request body writer
//! with the API's validity rules (`write.rs`).

mod read;
pub(crate) mod write;

pub(crate) use read::{
    import, import_array, is_array, name_and_arguments, take_content, take_tool_calls,
};
