//! [`write`]: canonical messages in one of the forms a session is written in, [`ExportFormat`].
//!
//! docs/FORMATS.md, "Export", is the specification of the bytes written here.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

use rehydrate_model::Message;

use crate::request::{Api, RequestError, request_body};
use crate::{Error, canonical, json};

/// A form [`write`] writes a session in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExportFormat {
    /// Canonical JSONL: one canonical message (docs/FORMATS.md, "Canonical message") per line,
    /// metadata and details included, each line ended by `\n`.
    Jsonl,
    /// An OpenAI chat-completions request body, `{"messages":[…]}`, each message in its wire
    /// form ([`Message::write_wire`]).
    OpenAi,
    /// An Anthropic Messages request body, `{"system":…,"messages":[…]}`, with content blocks.
    Anthropic,
    /// An OpenAI Responses request body, `{"input":[…]}` of input items.
    Responses,
}

impl ExportFormat {
    /// Every form, in the order error messages list them.
    pub const ALL: [ExportFormat; 4] = [
        ExportFormat::Jsonl,
        ExportFormat::OpenAi,
        ExportFormat::Anthropic,
        ExportFormat::Responses,
    ];

    /// The token naming the form (the same as the [`crate::Format`] it reads back, where
    /// there is one): `jsonl`, `openai`, `anthropic` or `responses`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::OpenAi => "openai",
            ExportFormat::Anthropic => "anthropic",
            ExportFormat::Responses => "responses",
        }
    }

    /// The API whose validity rules the form's bytes must follow, if it is a request body
    /// ([`crate::check_request`]); `None` for canonical JSONL, which holds anything.
    pub fn api(self) -> Option<Api> {
        match self {
            ExportFormat::Jsonl => None,
            ExportFormat::OpenAi => Some(Api::OpenAi),
            ExportFormat::Anthropic => Some(Api::Anthropic),
            ExportFormat::Responses => Some(Api::Responses),
        }
    }
}

impl fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ExportFormat {
    type Err = Error;

    /// Parses a form's token (exactly, lowercase).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownFormatName`] for any other text.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ExportFormat::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| Error::UnknownFormatName {
                name: json::clip(s),
            })
    }
}

/// Writes `messages` in `format`: canonical JSONL as it is, a request body after its API's
/// rules ([`request_body`]). Stub text is written as it is; the session with every reduction
/// undone is `rehydrate_sidecar::export_session`, which checks and then calls this.
///
/// # Errors
///
/// [`RequestError`] with every violation when `format` is a request body and the messages
/// break a rule of its API; canonical JSONL never fails.
///
/// # Example
///
/// ```
/// use rehydrate_formats::{ExportFormat, write};
/// use rehydrate_model::{Message, Role};
///
/// let messages = [Message::text(Role::User, "hi")];
/// assert_eq!(write(&messages, ExportFormat::OpenAi)?, br#"{"messages":[{"role":"user","content":"hi"}]}"#);
/// # Ok::<(), rehydrate_formats::RequestError>(())
/// ```
pub fn write<M: Borrow<Message>>(
    messages: &[M],
    format: ExportFormat,
) -> Result<Vec<u8>, RequestError> {
    match format.api() {
        None => Ok(canonical::write_jsonl(messages)),
        Some(api) => request_body(messages, api),
    }
}
