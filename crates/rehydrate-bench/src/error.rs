//! [`Error`]: why a workload cannot be loaded or written.

use std::path::PathBuf;

/// Why a workload cannot be loaded, written or checked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory cannot be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A file or directory cannot be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A written workload file does not import as OpenAI messages.
    #[error("{}: the written workload does not import", path.display())]
    Reimport {
        /// The workload file.
        path: PathBuf,
        /// The import error.
        #[source]
        source: rehydrate_formats::Error,
    },
    /// A written workload file imports to a different number of messages.
    #[error("{}: imports to {actual} messages, expected {expected}", path.display())]
    MessageCount {
        /// The workload file.
        path: PathBuf,
        /// Messages written.
        expected: usize,
        /// Messages imported.
        actual: usize,
    },
    /// A written workload file imports to a message that differs from the one written.
    #[error("{}: message {index} imports differently from the message written", path.display())]
    MessageDiffers {
        /// The workload file.
        path: PathBuf,
        /// The 0-based index of the first differing message.
        index: usize,
    },
    /// A workload file does not import.
    #[error("{workload}: the workload does not import")]
    Import {
        /// The workload.
        workload: String,
        /// The import error.
        #[source]
        source: rehydrate_formats::Error,
    },
    /// Messages cannot be written as a request body: they break a rule of its API.
    #[error("{workload}: the messages cannot be written")]
    Request {
        /// The workload.
        workload: String,
        /// The rules broken.
        #[source]
        source: rehydrate_formats::RequestError,
    },
    /// A workload's source is not JSON.
    #[error("{workload}: the source is not JSON")]
    Json {
        /// The workload.
        workload: String,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// A workload's source does not have the shape of its format.
    #[error("{workload}: {message}")]
    Shape {
        /// The workload.
        workload: String,
        /// What is wrong, lowercase.
        message: String,
    },
    /// A workload file imports to another number of messages or warnings than its parts do.
    #[error("{workload}: imports to {actual} {what}, expected {expected}")]
    Count {
        /// The workload.
        workload: String,
        /// `messages` or `warnings`.
        what: &'static str,
        /// The sum over the parts.
        expected: usize,
        /// What the file imports to.
        actual: usize,
    },
}
