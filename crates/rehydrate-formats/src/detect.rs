//! Format detection (the rules are documented on [`crate::detect`]).
//!
//! Detection reads a `{` document only for its shape (its top-level keys, what kind of value
//! `history` and `messages` are), keeping none of its values, so a large trajectory is never
//! a `serde_json::Value` tree; the importer then reads it entry by entry. A `[` document (which
//! [`crate::import`] reads element by element without asking detection) is parsed whole.

use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::Format;
use crate::json::{Skip, scalars_return, seed_via_any, skip_map, skip_seq};

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
    let first = shape(first_line);
    // A first line that only fails on a lone surrogate escape is judged by its repaired form
    // (the Claude Code importer repairs it the same way, with a warning).
    let repaired_first = first.is_err().then(|| {
        crate::json::repair_lone_surrogates(first_line).and_then(|(fixed, _)| shape(&fixed).ok())
    });
    let first_shape = match (&first, &repaired_first) {
        (Ok(shape), _) => shape.as_ref(),
        (Err(_), Some(Some(repaired))) => repaired.as_ref(),
        (Err(_), _) => None,
    };
    if first_shape.is_some_and(Shape::is_claude_code_record) {
        return Detected::Format(Format::ClaudeCode, None);
    }
    if first_shape.is_some_and(Shape::is_codex_record) {
        return Detected::Format(Format::Codex, None);
    }
    let first_parsed = first.is_ok();
    let doc = match first {
        Ok(shape) if rest.trim().is_empty() => Ok(shape),
        _ => self::shape(text),
    };
    match doc {
        // The importer reads the document itself, entry by entry.
        Ok(doc) => match doc.as_ref().and_then(Shape::whole_document_format) {
            Some(format) => Detected::Format(format, None),
            None => Detected::Unknown,
        },
        // A complete object on the first line followed by more: JSONL of an unknown kind.
        Err(_) if first_parsed => Detected::Unknown,
        Err(e) => Detected::BrokenJson(e),
    }
}

/// What detection needs to know of a JSON object, read without keeping its values; each key
/// counts with its last value, as in a `Value` map.
#[derive(Default)]
struct Shape {
    /// `type` is a string: whether it is one of [`CLAUDE_CODE_UUIDLESS_TYPES`].
    kind: Option<bool>,
    /// `type` is one of the Codex rollout record types.
    codex_type: bool,
    /// `payload` is an object.
    payload: bool,
    /// A `uuid` or `sessionId` key is present.
    uuid_or_session: bool,
    /// `history` is an array.
    history: bool,
    /// `messages` is an array that is empty or starts with an object with a `role` key.
    messages: bool,
}

impl Shape {
    /// Whether this is a Claude Code record: an object with a string `type` and a `uuid` or
    /// `sessionId`, or one of the uuid-less record types.
    fn is_claude_code_record(&self) -> bool {
        self.kind
            .is_some_and(|uuidless| uuidless || self.uuid_or_session)
    }

    /// Whether this is a Codex rollout line: a `type` that is a rollout record type and a
    /// `payload` object.
    fn is_codex_record(&self) -> bool {
        self.codex_type && self.payload
    }

    /// The format of a whole JSON object document: `history` array → SWE-agent; `messages`
    /// array of role-bearing objects → OpenAI.
    fn whole_document_format(&self) -> Option<Format> {
        if self.history {
            Some(Format::SweAgent)
        } else if self.messages {
            Some(Format::OpenAi)
        } else {
            None
        }
    }
}

/// The [`Shape`] of `text` when it is one JSON object, `None` when it is another JSON value;
/// the error is the one a `Value` parse of `text` gives.
fn shape(text: &str) -> Result<Option<Shape>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let shape = DeserializeSeed::deserialize(ShapeSeed, &mut de)?;
    de.end()?;
    Ok(shape)
}

/// The document: its [`Shape`] when it is an object.
struct ShapeSeed;

seed_via_any!(ShapeSeed);

impl<'de> Visitor<'de> for ShapeSeed {
    type Value = Option<Shape>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(None);
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        skip_seq(seq).map(|()| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut shape = Shape::default();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Type => {
                    let kind = map.next_value_seed(TypeSeed)?;
                    shape.kind = kind.map(|(uuidless, _)| uuidless);
                    shape.codex_type = kind.is_some_and(|(_, codex)| codex);
                }
                Key::Payload => shape.payload = map.next_value_seed(IsObject)?,
                Key::History => shape.history = map.next_value_seed(IsArray)?,
                Key::Messages => shape.messages = map.next_value_seed(MessagesSeed)?,
                Key::UuidOrSession => {
                    shape.uuid_or_session = true;
                    map.next_value_seed(Skip)?;
                }
                Key::Other | Key::Role => map.next_value_seed(Skip)?,
            }
        }
        Ok(Some(shape))
    }
}

/// An object key detection looks at.
enum Key {
    Type,
    History,
    Messages,
    UuidOrSession,
    Role,
    Payload,
    Other,
}

struct KeySeed;

seed_via_any!(KeySeed);

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E>(self, v: &str) -> Result<Key, E> {
        Ok(match v {
            "type" => Key::Type,
            "history" => Key::History,
            "messages" => Key::Messages,
            "uuid" | "sessionId" => Key::UuidOrSession,
            "role" => Key::Role,
            "payload" => Key::Payload,
            _ => Key::Other,
        })
    }
}

/// `type`: when a string, whether it is one of the uuid-less Claude Code types and whether it
/// is a Codex rollout record type.
struct TypeSeed;

seed_via_any!(TypeSeed);

impl<'de> Visitor<'de> for TypeSeed {
    type Value = Option<(bool, bool)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(None);
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some((
            CLAUDE_CODE_UUIDLESS_TYPES.contains(&v),
            crate::codex::RECORD_TYPES.contains(&v),
        )))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        skip_seq(seq).map(|()| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        skip_map(map).map(|()| None)
    }
}

/// Whether a value is an array.
struct IsArray;

seed_via_any!(IsArray);

impl<'de> Visitor<'de> for IsArray {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(false);
    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        skip_seq(seq).map(|()| true)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        skip_map(map).map(|()| false)
    }
}

/// Whether a value is an object.
struct IsObject;

seed_via_any!(IsObject);

impl<'de> Visitor<'de> for IsObject {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(false);
    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        skip_seq(seq).map(|()| false)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        skip_map(map).map(|()| true)
    }
}

/// Whether `messages` is an array that is empty or starts with an object with `role`.
struct MessagesSeed;

seed_via_any!(MessagesSeed);

impl<'de> Visitor<'de> for MessagesSeed {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(false);
    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let first = seq.next_element_seed(HasRole)?;
        skip_seq(seq)?;
        Ok(first.unwrap_or(true))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        skip_map(map).map(|()| false)
    }
}

/// Whether a value is an object with a `role` key.
struct HasRole;

seed_via_any!(HasRole);

impl<'de> Visitor<'de> for HasRole {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(false);
    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        skip_seq(seq).map(|()| false)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut role = false;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            role |= matches!(key, Key::Role);
            map.next_value_seed(Skip)?;
        }
        Ok(role)
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
