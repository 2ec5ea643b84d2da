//! The one error type of the formats crate.

use std::path::{Path, PathBuf};

use crate::Format;

/// Why a session file cannot be imported at all.
///
/// Every message is one lowercase line that names the file, and the line (1-based, JSONL and
/// whole-document JSON alike) and the JSON field where they apply, such as
/// `session.jsonl:12: invalid JSON: EOF while parsing a string at column 80`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file is not UTF-8.
    #[error("{}: not valid UTF-8 at byte {byte}", .path.display())]
    InvalidUtf8 {
        /// The file, as the caller named it.
        path: PathBuf,
        /// 0-based offset of the first byte that is not part of a valid UTF-8 sequence.
        byte: usize,
    },
    /// The file holds no bytes but whitespace (and a byte order mark): no session at all. An
    /// empty session in a format (`[]`, a `.traj` with an empty history) is not this error.
    #[error("{}: empty file (no session in it)", .path.display())]
    EmptyFile {
        /// The file, as the caller named it.
        path: PathBuf,
    },
    /// The format was not given and could not be detected.
    #[error(
        "{}: unknown session format (expected claude-code JSONL, codex rollout JSONL, swe-agent .traj, an OpenAI messages array, an OpenAI Responses input, an Anthropic Messages body, a Gemini CLI session, an OpenHands event stream, an Aider chat history or a Goose session)",
        .path.display()
    )]
    UnknownFormat {
        /// The file, as the caller named it.
        path: PathBuf,
    },
    /// A format name (`--format`) was not `claude-code`, `swe-agent`, `openai`, `codex`,
    /// `responses`, `anthropic`, `gemini-cli`, `openhands`, `aider` or `goose`.
    #[error(
        "unknown format `{name}` (expected claude-code, swe-agent, openai, codex, responses, anthropic, gemini-cli, openhands, aider or goose)"
    )]
    UnknownFormatName {
        /// The rejected name, cut to at most 80 bytes.
        name: String,
    },
    /// A JSONL line or the whole document is not valid JSON (truncated files included).
    #[error("{}: invalid JSON: {message}", at(.path, .line))]
    InvalidJson {
        /// The file, as the caller named it.
        path: PathBuf,
        /// The 1-based line where parsing failed, when known.
        line: Option<usize>,
        /// What the JSON parser reported, with the column, such as
        /// `EOF while parsing a string at column 80`.
        message: String,
    },
    /// The document's top level does not have the shape of the format it is read as.
    #[error("{}: not a valid {format} session: expected {expected}", .path.display())]
    NotASession {
        /// The file, as the caller named it.
        path: PathBuf,
        /// The format the file was read as.
        format: Format,
        /// The shape that was expected, such as "a JSON object with a `history` array".
        expected: &'static str,
    },
    /// A required field of a message is missing or malformed.
    #[error("{}: field `{field}`: {message}", at(.path, .line))]
    Field {
        /// The file, as the caller named it.
        path: PathBuf,
        /// The 1-based JSONL line, for line-based formats.
        line: Option<usize>,
        /// The field's path from the document root, such as `history[3].role`.
        field: String,
        /// What is wrong, such as "unknown role `robot`".
        message: String,
    },
    /// The file holds several sessions (an OpenHands `output.jsonl`, an Aider chat history) and
    /// none was chosen.
    #[error(
        "{}: holds {count} {format} sessions; import one by its number, 1 to {count} (`rehydrate inspect` lists them, `--session N` picks one)",
        .path.display()
    )]
    SeveralSessions {
        /// The file, as the caller named it.
        path: PathBuf,
        /// The format the file was read as.
        format: Format,
        /// How many sessions it holds.
        count: usize,
    },
    /// The session chosen by number is not in the file.
    #[error("{}: no session {number} (the file holds {count})", .path.display())]
    NoSuchSession {
        /// The file, as the caller named it.
        path: PathBuf,
        /// The number asked for (1-based).
        number: usize,
        /// How many sessions the file holds.
        count: usize,
    },
}

impl Error {
    /// Whether the error is [`Error::UnknownFormat`]: the caller may retry with an explicit
    /// format.
    pub fn is_unknown_format(&self) -> bool {
        matches!(self, Error::UnknownFormat { .. })
    }

    /// The 1-based line the error is about, when it has one.
    pub fn line(&self) -> Option<usize> {
        match self {
            Error::InvalidJson { line, .. } | Error::Field { line, .. } => *line,
            Error::InvalidUtf8 { .. }
            | Error::EmptyFile { .. }
            | Error::UnknownFormat { .. }
            | Error::UnknownFormatName { .. }
            | Error::NotASession { .. }
            | Error::SeveralSessions { .. }
            | Error::NoSuchSession { .. } => None,
        }
    }
}

/// `path` or `path:line`.
fn at(path: &Path, line: &Option<usize>) -> String {
    match line {
        Some(line) => format!("{}:{line}", path.display()),
        None => path.display().to_string(),
    }
}
