//! Format detection (the rules are documented on [`crate::detect`]).
//!
//! Detection parses whole-document formats to look at them, and hands the parsed document to
//! the importer so that a large file is parsed once.

use serde_json::Value;

use crate::Format;

/// What detection found.
pub(crate) enum Detected {
    /// The format, with the whole document when detection parsed it (`Err` when the document
    /// looked like this format but did not parse).
    Format(Format, Option<Result<Value, serde_json::Error>>),
    /// Not a known format.
    Unknown,
    /// A document starting with `{` that is not JSONL and not valid JSON: the parse error is more
    /// useful than "unknown format".
    BrokenJson(serde_json::Error),
}

/// Record types that only Claude Code writes, recognized on a first line without a `uuid`.
const CLAUDE_CODE_UUIDLESS_TYPES: [&str; 3] =
    ["summary", "file-history-snapshot", "queue-operation"];

/// Detects the format of `text` (already stripped of a byte order mark).
pub(crate) fn detect_text(text: &str) -> Detected {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return match serde_json::from_str::<Value>(text) {
            Ok(doc) if is_openai_array(&doc) => Detected::Format(Format::OpenAi, Some(Ok(doc))),
            Ok(_) => Detected::Unknown,
            Err(e) => Detected::Format(Format::OpenAi, Some(Err(e))),
        };
    }
    if !trimmed.starts_with('{') {
        return Detected::Unknown;
    }
    let (first_line, rest) = trimmed.split_once('\n').unwrap_or((trimmed, ""));
    let first = serde_json::from_str::<Value>(first_line);
    // A first line that only fails on a lone surrogate escape is judged by its repaired form
    // (the Claude Code importer repairs it the same way, with a warning).
    let repaired_first = first.is_err().then(|| {
        crate::json::repair_lone_surrogates(first_line)
            .and_then(|(fixed, _)| serde_json::from_str::<Value>(&fixed).ok())
    });
    if let Some(value) = first
        .as_ref()
        .ok()
        .or(repaired_first.as_ref().and_then(Option::as_ref))
        && is_claude_code_record(value)
    {
        return Detected::Format(Format::ClaudeCode, None);
    }
    let first_parsed = first.is_ok();
    let doc = match first {
        Ok(value) if rest.trim().is_empty() => Ok(value),
        _ => serde_json::from_str::<Value>(text),
    };
    match doc {
        Ok(doc) => match whole_document_format(&doc) {
            Some(format) => Detected::Format(format, Some(Ok(doc))),
            None => Detected::Unknown,
        },
        // A complete object on the first line followed by more: JSONL of an unknown kind.
        Err(_) if first_parsed => Detected::Unknown,
        Err(e) => Detected::BrokenJson(e),
    }
}

/// Whether `value` is a Claude Code record: an object with a string `type` and a `uuid` or
/// `sessionId`, or one of the uuid-less record types.
fn is_claude_code_record(value: &Value) -> bool {
    let Some(obj) = value.as_object() else {
        return false;
    };
    let Some(kind) = obj.get("type").and_then(Value::as_str) else {
        return false;
    };
    obj.contains_key("uuid")
        || obj.contains_key("sessionId")
        || CLAUDE_CODE_UUIDLESS_TYPES.contains(&kind)
}

/// The format of a whole JSON object document: `history` array → SWE-agent; `messages` array of
/// role-bearing objects → OpenAI.
fn whole_document_format(doc: &Value) -> Option<Format> {
    let obj = doc.as_object()?;
    if obj.get("history").is_some_and(Value::is_array) {
        return Some(Format::SweAgent);
    }
    match obj.get("messages") {
        Some(messages) if is_openai_array(messages) => Some(Format::OpenAi),
        _ => None,
    }
}

/// Whether `v` is an array that is empty or whose first element is an object with `role`.
fn is_openai_array(v: &Value) -> bool {
    match v.as_array() {
        Some(items) => items
            .first()
            .is_none_or(|first| first.as_object().is_some_and(|o| o.contains_key("role"))),
        None => false,
    }
}
