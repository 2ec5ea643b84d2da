//! The codecs of agent session formats and API request bodies: importers into canonical
//! [`rehydrate_model::Message`]s, the writers back out, and the APIs' validity rules. This crate
//! owns every byte layout rehydrate reads or writes, but for its own records (the session
//! store, `rehydrate-store`).
//!
//! # Where to start
//!
//! - [`import`] turns one session file's bytes into an [`Import`]: format, messages, warnings.
//! - [`write()`] writes canonical messages in an [`ExportFormat`]; [`request_body`] writes a
//!   request body for an [`Api`] and [`check_request`] states that API's rules.
//! - [`import_each`] does the same and hands the messages over one at a time.
//! - [`import_events`] reads a session as an event log instead, for evidence projection.
//! - [`list_sessions`] lists the sessions of a file that holds several, and [`import_session`]
//!   imports one of them.
//! - [`detect`] only guesses the [`Format`].
//! - [`keys`] names the metadata keys importers write.
//!
//! rehydrate reduces and verifies the context of agent sessions.
//! Agent frameworks write their sessions in their own formats; this crate reads ten of them
//! and produces the canonical messages every other crate works on:
//!
//! - [`Format::ClaudeCode`]: Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`),
//!   a tree of records from which the main-chain conversation is rebuilt;
//! - [`Format::SweAgent`]: SWE-agent `.traj` files (a JSON object with a `history` array);
//! - [`Format::OpenAi`]: an OpenAI chat-completions messages array, bare or under `messages`;
//! - [`Format::Codex`]: Codex CLI rollout JSONL (`~/.codex/sessions/…/rollout-*.jsonl`), which
//!   [`write()`] also writes back (byte for byte for an unchanged import).
//! - [`Format::Responses`]: OpenAI Responses API input items, bare or under `input`;
//! - [`Format::Anthropic`]: an Anthropic Messages request body;
//! - [`Format::GeminiCli`]: a Gemini CLI chat session (`~/.gemini/tmp/<project>/chats/`), the
//!   legacy JSON document or its JSONL form.
//! - [`Format::OpenHands`]: an OpenHands event stream (a JSON array of events) or an
//!   evaluation `output.jsonl` (one session per line, each chosen with [`import_session`]).
//! - [`Format::Aider`]: an Aider chat history (`.aider.chat.history.md`, one session per
//!   header, each chosen with [`import_session`]) or a documentation page's transcripts.
//! - [`Format::Goose`]: a Goose session JSONL (`<data dir>/sessions/*.jsonl`, the legacy store).
//!
//! The three request-body formats keep each message group's source in metadata where the
//! canonical message does not say it all ([`keys::SOURCE`], [`keys::DOCUMENT`]), so [`write()`]
//! gives an unchanged import back as the same JSON value.
//!
//! The mapping of each format, every metadata key set and every warning text are specified in
//! docs/FORMATS.md, section "Importers".
//!
//! # Overview
//!
//! - [`import`] reads one session file's bytes, detecting the format unless one is given, and
//!   returns an [`Import`]: the format, the messages and the [`Warning`]s. [`import_each`] hands
//!   the messages over one at a time instead (a bare OpenAI array while it is being read).
//! - [`import_events`] reads a session's backend-neutral event log instead
//!   ([`rehydrate_model::SessionEvent`]s: messages, tool calls and results, compaction summaries,
//!   titles, lifecycle), with turns from human user messages; [`events_from_messages`] makes
//!   one from canonical messages.
//! - [`detect`] only guesses the format.
//! - Oddities that still allow a faithful import (a tool result without a tool call, a record of
//!   an unknown type, a repeated line) are [`Warning`]s naming the line or field.
//!   An [`Error`] means the file cannot be imported at all: invalid UTF-8, invalid JSON, a missing
//!   or malformed required field, or an unknown format.
//!
//! # Example
//!
//! ```
//! use std::path::Path;
//! use rehydrate_formats::{Format, import};
//! use rehydrate_model::Role;
//!
//! let bytes = br#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#;
//! let session = import(Path::new("chat.json"), bytes, None)?;
//! assert_eq!(session.format, Format::OpenAi);
//! assert_eq!(session.messages[1].role, Role::Assistant);
//! assert!(session.warnings.is_empty());
//! # Ok::<(), rehydrate_formats::Error>(())
//! ```
//!
//! # Untrusted input
//!
//! Session files are untrusted.
//! [`import`] and [`detect`] never panic, whatever the bytes: no input makes them index out of
//! bounds, unwrap, overflow or recurse without bound (JSON nesting is limited to serde_json's
//! default depth of 128, and deeper input is an [`Error::InvalidJson`]).
//! Memory use is linear in the input size.
//! Text is taken as it is: no control characters are removed and no content is interpreted.
//! The crate has no `unsafe` code.
//!
//! # Features
//!
//! None. The crate enables serde_json's `raw_value` feature to keep the key order of Claude Code
//! tool inputs when it turns them into tool-call arguments.

#![forbid(unsafe_code)]

mod aider;
mod aider_edits;
mod anthropic;
mod canonical;
mod claude_code;
mod codex;
mod compaction;
mod detect;
mod error;
mod events;
mod export;
mod gemini;
mod gemini_write;
mod goose;
mod goose_write;
mod ids;
mod json;
pub mod keys;
mod links;
mod listed;
mod openai;
mod openhands;
mod request;
mod responses;
mod source;
mod swe_agent;
mod swe_agent_editor;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

pub use compaction::{is_compaction_summary, summary_text};
pub use error::Error;
pub use events::{EventImport, events_from_messages, import_events, import_events_session};
pub use export::{ExportFormat, WriteBack, write, write_back, write_unchecked};
pub use ids::{MAPPED_ID_PREFIX, api_id, api_name, original_id};
use rehydrate_model::Message;
pub use request::{
    Api, CallDefect, RequestError, Rule, Violation, call_defect, check_request, has_content,
    left_out_of_bodies, request_body, unsendable_calls,
};

/// A session file format this crate imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// Claude Code session JSONL: one record per line, linked by `uuid` and `parentUuid`.
    ClaudeCode,
    /// SWE-agent `.traj`: a JSON object whose `history` array holds the messages.
    SweAgent,
    /// OpenAI chat completions: a JSON array of messages, or an object with a `messages` array.
    OpenAi,
    /// Codex CLI rollout JSONL: one `{"timestamp","type","payload"}` record per line.
    Codex,
    /// OpenAI Responses API input: a JSON array of input items, or an object whose `input` is
    /// such an array or a string.
    Responses,
    /// An Anthropic Messages request body: an object with `messages` (content blocks), an
    /// optional `system` and any other keys.
    Anthropic,
    /// A Gemini CLI chat session: the legacy document (`sessionId`, `projectHash`, `messages`
    /// of `user` and `gemini` records) or its JSONL form (a metadata line, then records).
    GeminiCli,
    /// An OpenHands session: a JSON array of action and observation events, or an evaluation
    /// or resolver `output.jsonl` whose lines are sessions with a `history` of events.
    OpenHands,
    /// An Aider chat history (`.aider.chat.history.md`, one session per `# aider chat started
    /// at` header, each chosen with [`import_session`]) or a documentation page with chat
    /// transcripts.
    Aider,
    /// A Goose session: the legacy session JSONL (a metadata line, then one message per line
    /// with `toolRequest` and `toolResponse` content items).
    Goose,
}

impl Format {
    /// Every format, in the order detection reports them in error messages.
    pub const ALL: [Format; 10] = [
        Format::ClaudeCode,
        Format::SweAgent,
        Format::OpenAi,
        Format::Codex,
        Format::Responses,
        Format::Anthropic,
        Format::GeminiCli,
        Format::OpenHands,
        Format::Aider,
        Format::Goose,
    ];

    /// The format's token: `claude-code`, `swe-agent`, `openai`, `codex`, `responses`,
    /// `anthropic`, `gemini-cli`, `openhands`, `aider` or `goose`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::SweAgent => "swe-agent",
            Format::OpenAi => "openai",
            Format::Codex => "codex",
            Format::Responses => "responses",
            Format::Anthropic => "anthropic",
            Format::GeminiCli => "gemini-cli",
            Format::OpenHands => "openhands",
            Format::Aider => "aider",
            Format::Goose => "goose",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = Error;

    /// Parses a format token: `claude-code`, `swe-agent`, `openai`, `codex`, `responses`,
    /// `anthropic`, `gemini-cli`, `openhands`, `aider` or `goose` (exactly, lowercase).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownFormatName`] for any other text.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| Error::UnknownFormatName {
                name: json::clip(s),
            })
    }
}

/// The result of importing one session file.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The format the file was read as (given or detected).
    pub format: Format,
    /// The canonical messages, in conversation order.
    pub messages: Vec<Message>,
    /// Oddities met on the way, in document order: by line for JSONL, by message for the
    /// whole-document formats (whose warnings name the field instead of a line).
    pub warnings: Vec<Warning>,
}

/// Something odd in a session file that did not prevent importing it.
///
/// `Display` writes `line 12: tool result toolu_x has no tool call` when the warning has a
/// line, or only the message otherwise.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// The 1-based line of a JSONL file the warning is about, if any.
    pub line: Option<usize>,
    /// What is odd, lowercase, without a trailing period; names the JSON field where one applies.
    pub message: String,
}

impl Warning {
    /// A warning about a line (1-based) of a JSONL file.
    pub(crate) fn at_line(line: usize, message: impl Into<String>) -> Warning {
        Warning {
            line: Some(line),
            message: message.into(),
        }
    }

    /// A warning with no line (whole-document JSON formats name the field in the message).
    pub(crate) fn new(message: impl Into<String>) -> Warning {
        Warning {
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Guesses the format of a session file from its bytes.
///
/// Rules, in order (leading whitespace and a UTF-8 byte order mark are skipped):
/// 1. The first byte is `[`: [`Format::OpenAi`], unless the array parses and its first element
///    is not an object with a `role` key: [`Format::Responses`] when it is a Responses input
///    item, [`Format::OpenHands`] when it is an object with a string `action` or `observation`
///    (or an array starting with one), else nothing.
/// 2. The first byte is `{` and the first non-empty line parses as a JSON object with a string
///    `type` and either a `uuid` or `sessionId` key, or a `type` of `summary`,
///    `file-history-snapshot` or `queue-operation`: [`Format::ClaudeCode`].
/// 3. The first byte is `{` and the first non-empty line parses as a JSON object whose `type`
///    is a Codex rollout record type (`session_meta`, `turn_context`, `response_item`,
///    `event_msg`, `compacted`) and whose `payload` is an object: [`Format::Codex`].
/// 4. The first byte is `{` and the first non-empty line parses as a JSON object with a
///    `sessionId` and a `projectHash` and no `type` (Gemini CLI's JSONL metadata line), or the
///    document is one such object: [`Format::GeminiCli`].
/// 5. The first byte is `{` and the first non-empty line, or the whole document, is one JSON
///    object with a `history` array whose first element is an OpenHands event (as in rule 1):
///    [`Format::OpenHands`] (an `output.jsonl` holds one such object per line).
/// 6. The first byte is `{` and the first non-empty line is a JSON object with a non-null
///    `working_dir` (Goose's session metadata) or with a `role`, a numeric `created` and a
///    `content` array (a Goose message): [`Format::Goose`].
/// 7. The first byte is `{` and the document is one JSON object with a `history` array:
///    [`Format::SweAgent`]; with a `messages` array that is empty or starts with an object with a
///    `role` key: [`Format::OpenAi`].
/// 8. The first byte is neither `{` nor `[` and a line starts with `# aider chat started at `,
///    or the text holds a `<div class="chat-transcript"` wrapper: [`Format::Aider`].
///
/// Anything else is `None`.
/// Invalid UTF-8 is not an error here: detection looks at the valid prefix.
/// A whole-document format is parsed in full to look at it (use [`import`] with `None` to parse
/// only once).
///
/// # Example
///
/// ```
/// use rehydrate_formats::{Format, detect};
///
/// assert_eq!(detect(br#"{"history": []}"#), Some(Format::SweAgent));
/// assert_eq!(detect(b"hello"), None);
/// ```
pub fn detect(bytes: &[u8]) -> Option<Format> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let valid = bytes.get(..e.valid_up_to()).unwrap_or_default();
            std::str::from_utf8(valid).unwrap_or_default()
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match detect::detect_text(text) {
        detect::Detected::Format(format, _) => Some(format),
        detect::Detected::Unknown | detect::Detected::BrokenJson(_) => None,
    }
}

/// Imports a session file into canonical messages.
///
/// `path` only names the file in errors; `bytes` is the whole file; `format` is the format to
/// read, or `None` to [`detect`] it.
/// A UTF-8 byte order mark at the start is skipped.
/// The mapping of each format to canonical messages is specified in docs/FORMATS.md,
/// section "Importers".
///
/// # Errors
///
/// - [`Error::InvalidUtf8`] when `bytes` is not UTF-8 (the offset is 0-based);
/// - [`Error::EmptyFile`] when the file holds nothing but whitespace (or a byte order mark);
/// - [`Error::UnknownFormat`] when `format` is `None` and detection fails;
/// - [`Error::InvalidJson`] when a JSONL line (1-based) or the whole document is not valid JSON,
///   including a truncated last line;
/// - [`Error::NotASession`] when the document's top level does not have the format's shape;
/// - [`Error::Field`] when a required field of a SWE-agent or OpenAI message is missing or
///   malformed (Claude Code oddities are warnings).
///
/// # Example
///
/// ```
/// use std::path::Path;
/// use rehydrate_formats::{Format, import};
///
/// let err = import(Path::new("run.traj"), br#"{"history":[{"role":"robot"}]}"#, None).unwrap_err();
/// assert_eq!(err.to_string(), "run.traj: field `history[0].role`: unknown role `robot`");
/// let ok = import(Path::new("run.traj"), br#"{"history":[]}"#, Some(Format::SweAgent))?;
/// assert!(ok.messages.is_empty());
/// # Ok::<(), rehydrate_formats::Error>(())
/// ```
pub fn import(path: &Path, bytes: &[u8], format: Option<Format>) -> Result<Import, Error> {
    import_session(path, bytes, format, None)
}

/// One session of a file that holds several (an OpenHands `output.jsonl` holds one per line,
/// an Aider chat history one per header).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SessionEntry {
    /// The session's number in the file, from 1, as [`import_session`] takes it.
    pub number: usize,
    /// The 1-based line the session starts on.
    pub line: usize,
    /// What the file calls the session: an OpenHands `instance_id`, a resolver issue as
    /// `owner/repo#number`, the local time of an Aider header; empty when it names none.
    pub label: String,
}

/// The sessions a file holds, with its format (given or detected): one entry per session of an
/// OpenHands `output.jsonl` or Aider chat history, one entry (number 1, line 1, no label) for
/// any other file. An Aider history's lines before its first header are a session (number 1,
/// no label) unless they are blank or only an editor mode line.
///
/// # Errors
///
/// Those of [`import`] that come before the messages are read: [`Error::InvalidUtf8`],
/// [`Error::EmptyFile`], [`Error::UnknownFormat`], and [`Error::InvalidJson`] for a line of an
/// `output.jsonl` that is not JSON.
///
/// # Example
///
/// ```
/// use std::path::Path;
/// use rehydrate_formats::{Format, list_sessions};
///
/// let session = |id: &str| format!(r#"{{"instance_id":"{id}","history":[{{"action":"message","args":{{"content":"hi"}}}}]}}"#);
/// let file = format!("{}\n{}\n", session("a"), session("b"));
/// let (format, sessions) = list_sessions(Path::new("output.jsonl"), file.as_bytes(), None)?;
/// assert_eq!(format, Format::OpenHands);
/// assert_eq!(sessions.iter().map(|s| s.label.as_str()).collect::<Vec<_>>(), ["a", "b"]);
/// # Ok::<(), rehydrate_formats::Error>(())
/// ```
pub fn list_sessions(
    path: &Path,
    bytes: &[u8],
    format: Option<Format>,
) -> Result<(Format, Vec<SessionEntry>), Error> {
    let text = session_text(path, bytes)?;
    let format = match format {
        Some(format) => format,
        None => match detect::detect_text(text) {
            detect::Detected::Format(format, _) => format,
            detect::Detected::Unknown => {
                return Err(Error::UnknownFormat {
                    path: path.to_path_buf(),
                });
            }
            detect::Detected::BrokenJson(e) => return Err(json::invalid_json(path, None, &e)),
        },
    };
    let sessions = match format {
        Format::OpenHands => openhands::sessions(path, text)?,
        Format::Aider => aider::sessions(text),
        _ => vec![SessionEntry {
            number: 1,
            line: 1,
            label: String::new(),
        }],
    };
    Ok((format, sessions))
}

/// [`import`] of one session of a file: `session` is its number (from 1, as
/// [`list_sessions`] gives it), or `None` for a file that holds one session.
///
/// # Errors
///
/// Those of [`import`]; also [`Error::SeveralSessions`] when `session` is `None` and the file
/// holds more than one, and [`Error::NoSuchSession`] when the number is not one of the file's
/// (a file of a one-session format holds session 1).
pub fn import_session(
    path: &Path,
    bytes: &[u8],
    format: Option<Format>,
    session: Option<usize>,
) -> Result<Import, Error> {
    let mut messages = Vec::new();
    let (format, warnings) = import_to(path, bytes, format, session, Sink::Collect(&mut messages))?;
    Ok(Import {
        format,
        messages,
        warnings,
    })
}

/// Every session of a file, in order, as [`import_session`] of each number [`list_sessions`]
/// gives: the format, then one import per session. A chat history of many sessions (Aider) is
/// read once for all of them, where importing each number on its own reads the file each time.
///
/// # Errors
///
/// Those of [`import_session`]: the first session's error ends the read.
///
/// # Example
///
/// ```
/// use std::path::Path;
/// use rehydrate_formats::{Format, import_sessions};
///
/// let history = "# aider chat started at 2024-01-01 10:00:00\n\n#### hi\n\nhello\n\n# aider chat started at 2024-01-02 10:00:00\n\n#### bye\n";
/// let (format, sessions) = import_sessions(Path::new("h.md"), history.as_bytes(), None)?;
/// assert_eq!(format, Format::Aider);
/// assert_eq!(sessions.iter().map(|s| s.messages.len()).collect::<Vec<_>>(), [2, 1]);
/// # Ok::<(), rehydrate_formats::Error>(())
/// ```
pub fn import_sessions(
    path: &Path,
    bytes: &[u8],
    format: Option<Format>,
) -> Result<(Format, Vec<Import>), Error> {
    let (format, sessions) = list_sessions(path, bytes, format)?;
    if format == Format::Aider {
        return Ok((format, aider::import_all(session_text(path, bytes)?)));
    }
    let many = sessions.len() > 1;
    let imports = sessions
        .iter()
        .map(|s| import_session(path, bytes, Some(format), many.then_some(s.number)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((format, imports))
}

/// [`import`], handing the messages to `each` one at a time, in conversation order, instead of
/// collecting them; returns the format and the warnings.
///
/// A bare OpenAI messages array is handed over element by element while it is read, so a
/// caller can work on the first messages (write them, hash them) while the rest is parsed; the
/// other formats are handed over once the whole file is read. The messages, warnings and errors
/// are exactly those of [`import`].
///
/// # Errors
///
/// Those of [`import`]. Messages handed over before an error are not a session: discard them.
///
/// # Example
///
/// ```
/// use std::path::Path;
/// use rehydrate_formats::{Format, import_each};
///
/// let bytes = br#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#;
/// let mut texts = Vec::new();
/// let (format, warnings) = import_each(Path::new("chat.json"), bytes, None, &mut |m| {
///     texts.push(m.content_text().unwrap_or_default().to_string());
/// })?;
/// assert_eq!((format, warnings.len(), texts.len()), (Format::OpenAi, 0, 2));
/// # Ok::<(), rehydrate_formats::Error>(())
/// ```
pub fn import_each(
    path: &Path,
    bytes: &[u8],
    format: Option<Format>,
    each: &mut dyn FnMut(Message),
) -> Result<(Format, Vec<Warning>), Error> {
    import_to(path, bytes, format, None, Sink::Each(each))
}

/// Where [`import_to`] puts the messages.
enum Sink<'s> {
    /// Into a vector.
    Collect(&'s mut Vec<Message>),
    /// To a function, one at a time.
    Each(&'s mut dyn FnMut(Message)),
}

impl Sink<'_> {
    fn push(&mut self, message: Message) {
        match self {
            Sink::Collect(messages) => messages.push(message),
            Sink::Each(each) => each(message),
        }
    }

    /// Every message of `messages`, in order; a collecting sink that holds none takes the
    /// vector itself.
    fn extend(&mut self, messages: Vec<Message>) {
        match self {
            Sink::Collect(collected) if collected.is_empty() => **collected = messages,
            Sink::Collect(collected) => collected.extend(messages),
            Sink::Each(each) => messages.into_iter().for_each(each),
        }
    }
}

/// The 0-based index of session `session` (1-based; `None` for the only one) of a file of
/// `format` that holds `count` sessions.
///
/// # Errors
///
/// [`Error::SeveralSessions`] when `session` is `None` and `count` is over 1;
/// [`Error::NoSuchSession`] when the number is 0 or over `count` (a file of no session holds
/// session 1).
pub(crate) fn session_index(
    path: &Path,
    format: Format,
    count: usize,
    session: Option<usize>,
) -> Result<usize, Error> {
    let count = count.max(1);
    match session {
        None if count > 1 => Err(Error::SeveralSessions {
            path: path.to_path_buf(),
            format,
            count,
        }),
        None => Ok(0),
        Some(n) if (1..=count).contains(&n) => Ok(n - 1),
        Some(n) => Err(Error::NoSuchSession {
            path: path.to_path_buf(),
            number: n,
            count,
        }),
    }
}

/// The text of a session file: UTF-8, without a byte order mark, not blank.
fn session_text<'b>(path: &Path, bytes: &'b [u8]) -> Result<&'b str, Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        path: path.to_path_buf(),
        byte: e.valid_up_to(),
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(Error::EmptyFile {
            path: path.to_path_buf(),
        });
    }
    Ok(text)
}

/// [`import_session`] and [`import_each`]: the messages go to `sink`.
fn import_to(
    path: &Path,
    bytes: &[u8],
    format: Option<Format>,
    session: Option<usize>,
    mut sink: Sink<'_>,
) -> Result<(Format, Vec<Warning>), Error> {
    let text = session_text(path, bytes)?;
    // Only OpenHands and Aider files hold several sessions; any other holds session 1.
    let one_session = |format: Format| match session {
        Some(n) if n != 1 && !matches!(format, Format::OpenHands | Format::Aider) => {
            Err(Error::NoSuchSession {
                path: path.to_path_buf(),
                number: n,
                count: 1,
            })
        }
        _ => Ok(()),
    };
    // A bare array is read element by element (the same result, in less memory).
    // A Responses items array is recognized at its first element and read as one.
    if openai::is_array(text) && matches!(format, None | Some(Format::OpenAi)) {
        one_session(Format::OpenAi)?;
        let read = openai::import_array(path, text, format.is_none(), &mut |m| sink.push(m))?;
        let imported = match read {
            Ok(warnings) => return Ok((Format::OpenAi, warnings)),
            Err(Format::OpenHands) => openhands::import(path, text, session)?,
            Err(_) => responses::import(path, text)?,
        };
        sink.extend(imported.messages);
        return Ok((imported.format, imported.warnings));
    }
    let (format, parsed) = match format {
        Some(format) => (format, None),
        None => match detect::detect_text(text) {
            detect::Detected::Format(format, parsed) => (format, parsed),
            detect::Detected::Unknown => {
                return Err(Error::UnknownFormat {
                    path: path.to_path_buf(),
                });
            }
            detect::Detected::BrokenJson(e) => return Err(json::invalid_json(path, None, &e)),
        },
    };
    one_session(format)?;
    let imported = match format {
        Format::ClaudeCode => {
            let warnings = claude_code::import(path, text, None, &mut |m| sink.push(m))?;
            return Ok((Format::ClaudeCode, warnings));
        }
        Format::Codex => {
            let warnings = codex::import(path, text, &mut |m| sink.push(m))?;
            return Ok((Format::Codex, warnings));
        }
        Format::SweAgent => swe_agent::import(path, text),
        // The document detection parsed, else its text.
        Format::OpenAi => match parsed {
            Some(parsed) => openai::import(
                path,
                parsed.map_err(|e| json::invalid_json(path, None, &e))?,
            ),
            None => openai::import_text(path, text),
        },
        Format::Responses => responses::import(path, text),
        Format::Anthropic => anthropic::import(path, text),
        Format::GeminiCli => gemini::import(path, text),
        Format::OpenHands => openhands::import(path, text, session),
        Format::Aider => aider::import(path, text, session),
        Format::Goose => goose::import(path, text),
    }?;
    sink.extend(imported.messages);
    Ok((imported.format, imported.warnings))
}

#[cfg(test)]
mod tests;
