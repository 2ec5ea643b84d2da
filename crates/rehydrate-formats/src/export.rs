//! [`write()`]: canonical messages in one of the forms a session is written in, [`ExportFormat`].
//!
//! docs/FORMATS.md, "Export", is the specification of the bytes written here.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

use rehydrate_model::Message;

use crate::anthropic::write::write_body;
use crate::openai::write::write_openai;
use crate::request::{Api, RequestError, check_request};
use crate::responses::write::write_responses;
use crate::{Error, canonical, codex, json};

/// A form [`write()`] writes a session in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExportFormat {
    /// Canonical JSONL: one canonical message (docs/FORMATS.md, "Canonical message") per line,
    /// metadata and details included, each line ended by `\n`.
    Jsonl,
    /// An OpenAI chat-completions request body, `{"messages":[…]}`, each message in its wire
    /// form ([`Message::write_wire`]); a session read from an OpenAI chat file in its own form
    /// (a bare array stays one; docs/FORMATS.md, "Keeping the source").
    OpenAi,
    /// An Anthropic Messages request body, `{"system":…,"messages":[…]}`, with content blocks.
    Anthropic,
    /// An OpenAI Responses request body, `{"input":[…]}` of input items.
    Responses,
    /// A Codex CLI rollout, one `{"timestamp","type","payload"}` record per line, which Codex
    /// loads again; held to the Responses API's rules, which Codex sends it under.
    Codex,
    /// A Gemini CLI session document (`{sessionId, projectHash, startTime, lastUpdated,
    /// messages}`, 2-space indent), which Gemini CLI resumes; not a request body, so no API's
    /// rules apply (docs/FORMATS.md, "Gemini CLI", "Writing").
    GeminiCli,
    /// A Goose session JSONL (a metadata line, then one message per line), the legacy form
    /// Goose imports; not a request body (docs/FORMATS.md, "Goose", "Writing").
    Goose,
}

impl ExportFormat {
    /// Every form, in the order error messages list them.
    pub const ALL: [ExportFormat; 7] = [
        ExportFormat::Jsonl,
        ExportFormat::OpenAi,
        ExportFormat::Anthropic,
        ExportFormat::Responses,
        ExportFormat::Codex,
        ExportFormat::GeminiCli,
        ExportFormat::Goose,
    ];

    /// The token naming the form (the same as the [`crate::Format`] it reads back, where
    /// there is one): `jsonl`, `openai`, `anthropic`, `responses`, `codex`, `gemini-cli` or `goose`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::OpenAi => "openai",
            ExportFormat::Anthropic => "anthropic",
            ExportFormat::Responses => "responses",
            ExportFormat::Codex => "codex",
            ExportFormat::GeminiCli => "gemini-cli",
            ExportFormat::Goose => "goose",
        }
    }

    /// The API whose validity rules the form's bytes must follow, if it is a request body
    /// ([`crate::check_request`]); `None` for canonical JSONL, which holds anything, and for a
    /// Gemini CLI or Goose session, which the agent turns into its own request.
    pub fn api(self) -> Option<Api> {
        match self {
            ExportFormat::Jsonl | ExportFormat::GeminiCli | ExportFormat::Goose => None,
            ExportFormat::OpenAi => Some(Api::OpenAi),
            ExportFormat::Anthropic => Some(Api::Anthropic),
            ExportFormat::Responses | ExportFormat::Codex => Some(Api::Responses),
        }
    }

    /// The form a session read as `format` is written back in, if this crate writes that
    /// format: `openai`, `anthropic`, `responses`, `codex`, `gemini-cli` and `goose` (an unchanged
    /// import comes back byte for byte for `codex`, as the same JSON value for the request
    /// bodies, and as a file that imports to the same messages for `gemini-cli` and `goose`).
    pub fn of(format: crate::Format) -> Option<ExportFormat> {
        use crate::Format;
        match format {
            Format::OpenAi => Some(ExportFormat::OpenAi),
            Format::Anthropic => Some(ExportFormat::Anthropic),
            Format::Responses => Some(ExportFormat::Responses),
            Format::Codex => Some(ExportFormat::Codex),
            Format::GeminiCli => Some(ExportFormat::GeminiCli),
            Format::Goose => Some(ExportFormat::Goose),
            Format::ClaudeCode | Format::SweAgent | Format::OpenHands | Format::Aider => None,
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

/// Whether a session file, imported, is given back by writing its messages in its own format
/// (issue 19's round trip; `rehydrate inspect` and `roundtrip` report it): see [`write_back`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteBack {
    /// The written bytes are the file's.
    Bytes,
    /// The written bytes are not the file's, but parse to the same JSON value (the writer
    /// gives a document's members compact, in key order).
    Value,
    /// The written form is another JSON value than the file's, but imports to the same
    /// messages (but for `goose.line`, the line a Goose message was read from): what a Gemini
    /// CLI or Goose session holds besides what the model saw (records it never sent, display
    /// names, record ids, UI items) is not written back.
    Messages,
    /// The written form is another JSON value than the file's, or, for a JSONL format, other
    /// bytes.
    Differs,
    /// This crate does not write the file's format (Claude Code, SWE-agent).
    NoWriter,
}

impl WriteBack {
    /// The token naming the outcome: `bytes`, `value`, `messages`, `differs` or `no-writer`.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteBack::Bytes => "bytes",
            WriteBack::Value => "value",
            WriteBack::Messages => "messages",
            WriteBack::Differs => "differs",
            WriteBack::NoWriter => "no-writer",
        }
    }
}

/// Whether `messages`, imported from `bytes` as `format`, write back to `bytes`: the messages
/// written in the format's own form ([`ExportFormat::of`], unchecked, as an import is written
/// back whatever its defects) compared with the file, byte for byte, then for a JSON document
/// (not a JSONL format) as JSON values.
///
/// # Example
///
/// ```
/// use std::path::Path;
/// use rehydrate_formats::{Format, WriteBack, import, write_back};
///
/// let file = br#"{"model":"claude-x","system":"be brief","messages":[{"role":"user","content":"hi"}]}"#;
/// let session = import(Path::new("body.json"), file, None)?;
/// assert_eq!(session.format, Format::Anthropic);
/// assert_eq!(write_back(session.format, file, &session.messages), WriteBack::Bytes);
/// let spaced = br#"{ "messages": [ {"content": "hi", "role": "user"} ], "system": "be brief", "model": "claude-x" }"#;
/// let session = import(Path::new("body.json"), spaced, None)?;
/// assert_eq!(write_back(session.format, spaced, &session.messages), WriteBack::Value);
/// # Ok::<(), rehydrate_formats::Error>(())
/// ```
pub fn write_back<M: Borrow<Message>>(
    format: crate::Format,
    bytes: &[u8],
    messages: &[M],
) -> WriteBack {
    let Some(own) = ExportFormat::of(format) else {
        return WriteBack::NoWriter;
    };
    let written = write_unchecked(messages, own);
    if written == bytes {
        return WriteBack::Bytes;
    }
    let same_messages = || {
        let Ok(again) = crate::import(std::path::Path::new("written"), &written, Some(format))
        else {
            return false;
        };
        let without_line = |m: &Message| {
            let mut m = m.clone();
            m.metadata.remove(crate::keys::GOOSE_LINE);
            m
        };
        again.messages.len() == messages.len()
            && again
                .messages
                .iter()
                .zip(messages)
                .all(|(a, b)| a == b.borrow() || without_line(a) == without_line(b.borrow()))
    };
    match own {
        ExportFormat::Codex => return WriteBack::Differs,
        ExportFormat::Goose if same_messages() => return WriteBack::Messages,
        ExportFormat::Goose => return WriteBack::Differs,
        _ => {}
    }
    let value = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).ok();
    match (value(&written), value(bytes)) {
        (Some(a), Some(b)) if a == b => WriteBack::Value,
        _ if own == ExportFormat::GeminiCli && same_messages() => WriteBack::Messages,
        _ => WriteBack::Differs,
    }
}

/// Writes `messages` in `format`: canonical JSONL as it is, a request body after its API's
/// rules ([`crate::request_body`]), a Codex rollout after the Responses API's rules. Stub text is written as it is; the session with every reduction
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
    if let Some(api) = format.api() {
        let violations = check_request(messages, api);
        if !violations.is_empty() {
            return Err(RequestError { api, violations });
        }
    }
    Ok(write_unchecked(messages, format))
}

/// Writes `messages` in `format` without checking its API's rules: the session as it is (an
/// import written back, bad input included); [`write()`] is the checked one, and the one every
/// request body goes through.
pub fn write_unchecked<M: Borrow<Message>>(messages: &[M], format: ExportFormat) -> Vec<u8> {
    match format {
        ExportFormat::Jsonl => canonical::write_jsonl(messages),
        ExportFormat::OpenAi => write_openai(messages),
        ExportFormat::Anthropic => write_body(messages),
        ExportFormat::Responses => write_responses(messages),
        ExportFormat::Codex => codex::write(messages),
        ExportFormat::GeminiCli => crate::gemini_write::write(messages),
        ExportFormat::Goose => crate::goose_write::write(messages),
    }
}
