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
            Ok(doc)
                if doc
                    .as_array()
                    .and_then(|a| a.first())
                    .is_some_and(is_responses_item) =>
            {
                Detected::Format(Format::Responses, None)
            }
            Ok(doc) if is_openai_array(&doc) => Detected::Format(Format::OpenAi, Some(Ok(doc))),
            Ok(doc)
                if doc
                    .as_array()
                    .and_then(|a| a.first())
                    .is_some_and(crate::openhands::is_event) =>
            {
                Detected::Format(Format::OpenHands, None)
            }
            Ok(_) => Detected::Unknown,
            Err(e) => Detected::Format(Format::OpenAi, Some(Err(e))),
        };
    }
    if !trimmed.starts_with('{') {
        if crate::aider::is_history(trimmed) {
            return Detected::Format(Format::Aider, None);
        }
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
    if first_shape.is_some_and(Shape::is_gemini_session) {
        return Detected::Format(Format::GeminiCli, None);
    }
    // An OpenHands `output.jsonl`: each line is a session.
    if first_shape.is_some_and(|s| s.openhands_history) {
        return Detected::Format(Format::OpenHands, None);
    }
    if first_shape.is_some() && crate::goose::is_session_line(first_line) {
        return Detected::Format(Format::Goose, None);
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
    /// `history` is an array whose first element is an OpenHands event or event pair.
    openhands_history: bool,
    /// `messages` is an array that is empty or starts with an object with a `role` key.
    messages: bool,
    /// A message holds a sign of OpenAI chat (a role other than user and assistant, or a
    /// `tool_calls`, `tool_call_id` or `function_call` key).
    openai_sign: bool,
    /// A message's content holds a block of a type only the Anthropic Messages API has.
    anthropic_block: bool,
    /// A top-level key only an Anthropic body has ([`ANTHROPIC_KEYS`]).
    anthropic_key: bool,
    /// `input` is an array or a string.
    input: bool,
    /// A `projectHash` key is present (Gemini CLI's session document and JSONL metadata line).
    project_hash: bool,
}

/// Top-level keys of an Anthropic Messages body that an OpenAI chat body does not have.
const ANTHROPIC_KEYS: [&str; 6] = [
    "system",
    "stop_sequences",
    "top_k",
    "anthropic_version",
    "anthropic_beta",
    "thinking",
];

/// Whether `v` is an object whose `type` is a Responses input item type (a bare array whose
/// first element is one is a Responses input, detection rule 1).
pub(crate) fn is_responses_item(v: &Value) -> bool {
    v.get("type")
        .and_then(Value::as_str)
        .is_some_and(crate::responses::is_item_type)
}

impl Shape {
    /// Whether this is a Claude Code record: an object with a string `type` and a `uuid` or
    /// `sessionId`, or one of the uuid-less record types.
    fn is_claude_code_record(&self) -> bool {
        self.kind
            .is_some_and(|uuidless| uuidless || self.uuid_or_session)
    }

    /// Whether this is Gemini CLI's session metadata (a document or a JSONL first line): a
    /// `sessionId` and a `projectHash`, and no `type`.
    fn is_gemini_session(&self) -> bool {
        self.project_hash && self.uuid_or_session && self.kind.is_none() && !self.codex_type
    }

    /// Whether this is a Codex rollout line: a `type` that is a rollout record type and a
    /// `payload` object.
    fn is_codex_record(&self) -> bool {
        self.codex_type && self.payload
    }

    /// The format of a whole JSON object document: `history` array → SWE-agent; `messages`
    /// array of role-bearing objects → Anthropic when an Anthropic-only key or block is there
    /// and no OpenAI sign, OpenAI otherwise; `input` array or string → Responses.
    fn whole_document_format(&self) -> Option<Format> {
        if self.is_gemini_session() {
            Some(Format::GeminiCli)
        } else if self.openhands_history {
            Some(Format::OpenHands)
        } else if self.history {
            Some(Format::SweAgent)
        } else if self.messages {
            if (self.anthropic_key || self.anthropic_block) && !self.openai_sign {
                Some(Format::Anthropic)
            } else {
                Some(Format::OpenAi)
            }
        } else if self.input {
            Some(Format::Responses)
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
                Key::History => {
                    (shape.history, shape.openhands_history) = map.next_value_seed(HistorySeed)?;
                }
                Key::Messages => {
                    let messages = map.next_value_seed(MessagesSeed)?;
                    shape.messages = messages.ok;
                    shape.openai_sign = messages.openai_sign;
                    shape.anthropic_block = messages.anthropic_block;
                }
                Key::UuidOrSession => {
                    shape.uuid_or_session = true;
                    map.next_value_seed(Skip)?;
                }
                Key::Input => shape.input = map.next_value_seed(IsArrayOrString)?,
                Key::Anthropic => {
                    shape.anthropic_key = true;
                    map.next_value_seed(Skip)?;
                }
                Key::ProjectHash => {
                    shape.project_hash = true;
                    map.next_value_seed(Skip)?;
                }
                Key::Other | Key::Role | Key::OpenAiOnly | Key::Content => {
                    map.next_value_seed(Skip)?;
                }
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
    Input,
    Anthropic,
    /// `tool_calls`, `tool_call_id`, `function_call`: keys of OpenAI chat messages.
    OpenAiOnly,
    Content,
    Payload,
    ProjectHash,
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
            "projectHash" => Key::ProjectHash,
            "role" => Key::Role,
            "input" => Key::Input,
            "tool_calls" | "tool_call_id" | "function_call" => Key::OpenAiOnly,
            "content" => Key::Content,
            k if ANTHROPIC_KEYS.contains(&k) => Key::Anthropic,
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

/// `history`: whether it is an array, and whether its first element is an OpenHands event.
struct HistorySeed;

seed_via_any!(HistorySeed);

impl<'de> Visitor<'de> for HistorySeed {
    type Value = (bool, bool);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!((false, false));
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok((false, false))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let first = seq.next_element::<Value>()?;
        skip_seq(seq)?;
        Ok((true, first.is_some_and(|e| crate::openhands::is_event(&e))))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        skip_map(map).map(|()| (false, false))
    }
}

/// What detection learns of `messages`.
#[derive(Default)]
struct Messages {
    /// An array that is empty or starts with an object with `role`.
    ok: bool,
    openai_sign: bool,
    anthropic_block: bool,
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

/// `messages`: whether it is an array that is empty or starts with an object with `role`, and
/// the signs of OpenAI chat and Anthropic Messages over all its elements.
struct MessagesSeed;

seed_via_any!(MessagesSeed);

impl<'de> Visitor<'de> for MessagesSeed {
    type Value = Messages;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(Messages::default());
    fn visit_str<E>(self, _: &str) -> Result<Messages, E> {
        Ok(Messages::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Messages, A::Error> {
        let mut out = Messages {
            ok: true,
            ..Messages::default()
        };
        let mut first = true;
        while let Some(m) = seq.next_element_seed(MessageSeed)? {
            if first {
                out.ok = m.role;
                first = false;
            }
            out.openai_sign |= m.openai_sign;
            out.anthropic_block |= m.anthropic_block;
        }
        Ok(out)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Messages, A::Error> {
        skip_map(map).map(|()| Messages::default())
    }
}

/// What detection learns of one message.
#[derive(Default)]
struct MessageShape {
    role: bool,
    openai_sign: bool,
    anthropic_block: bool,
}

/// One element of `messages`.
struct MessageSeed;

seed_via_any!(MessageSeed);

impl<'de> Visitor<'de> for MessageSeed {
    type Value = MessageShape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(MessageShape::default());
    fn visit_str<E>(self, _: &str) -> Result<MessageShape, E> {
        Ok(MessageShape::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<MessageShape, A::Error> {
        skip_seq(seq).map(|()| MessageShape::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MessageShape, A::Error> {
        let mut shape = MessageShape::default();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Role => {
                    shape.role = true;
                    shape.openai_sign |= map.next_value_seed(OpenAiRole)?;
                }
                Key::OpenAiOnly => {
                    shape.openai_sign = true;
                    map.next_value_seed(Skip)?;
                }
                Key::Content => shape.anthropic_block |= map.next_value_seed(ContentSeed)?,
                _ => map.next_value_seed(Skip)?,
            }
        }
        Ok(shape)
    }
}

/// Whether a role is one only OpenAI chat has (`system`, `developer`, `tool`, `function`).
struct OpenAiRole;

seed_via_any!(OpenAiRole);

impl<'de> Visitor<'de> for OpenAiRole {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(false);
    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        Ok(matches!(v, "system" | "developer" | "tool" | "function"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        skip_seq(seq).map(|()| false)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        skip_map(map).map(|()| false)
    }
}

/// Whether content is an array holding a block of an Anthropic-only type.
struct ContentSeed;

seed_via_any!(ContentSeed);

impl<'de> Visitor<'de> for ContentSeed {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(false);
    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut any = false;
        while let Some(block) = seq.next_element_seed(BlockSeed)? {
            any |= block;
        }
        Ok(any)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        skip_map(map).map(|()| false)
    }
}

/// Whether a block is an object whose `type` is Anthropic-only.
struct BlockSeed;

seed_via_any!(BlockSeed);

impl<'de> Visitor<'de> for BlockSeed {
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
        let mut any = false;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Type => any |= map.next_value_seed(AnthropicType)?,
                _ => map.next_value_seed(Skip)?,
            }
        }
        Ok(any)
    }
}

/// Whether a block `type` is Anthropic-only.
struct AnthropicType;

seed_via_any!(AnthropicType);

impl<'de> Visitor<'de> for AnthropicType {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(false);
    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        Ok(crate::anthropic::BLOCK_TYPES.contains(&v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        skip_seq(seq).map(|()| false)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        skip_map(map).map(|()| false)
    }
}

/// Whether a value is an array or a string.
struct IsArrayOrString;

seed_via_any!(IsArrayOrString);

impl<'de> Visitor<'de> for IsArrayOrString {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_return!(false);
    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(true)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        skip_seq(seq).map(|()| true)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        skip_map(map).map(|()| false)
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
