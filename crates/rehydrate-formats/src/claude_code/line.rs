//! Reading one Claude Code line into the typed parts the importer uses, without a
//! `serde_json::Value` tree of the whole line.
//!
//! A line is read in one pass by serde visitors: the keys the importer reads are kept (their
//! strings borrowed from the line when they hold no escape), every other value is walked and
//! dropped without allocating. Every value is entered through `deserialize_any`, as a `Value`
//! parse enters it, so a line that does not parse as a `Value` (a syntax error, nesting deeper
//! than serde_json's 128 levels, a number out of range) fails here with the same error at the
//! same column; a key given twice counts with its last value, as in a `Value` map.
//!
//! The blocks of `message.content` and the `toolUseResult` card are read as `Value`s (a user's
//! image block is kept as it is) and the blocks are turned into their typed form on the parse
//! thread ([`assistant_blocks`], [`user_content`]), so no `Value` outlives its line but a file
//! tool's card.

use std::borrow::Cow;
use std::fmt;

use rehydrate_model::Content;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::json::{self, Skip, scalars_return, seed_via_any, skip_map, skip_seq};

/// A JSON string of the line: borrowed when it holds no escape.
pub(super) type Str<'a> = Cow<'a, str>;

/// One line, read: the keys of a record object, or the kind of another JSON value.
pub(super) type Line<'a> = Result<Fields<'a>, &'static str>;

/// The keys of a record object that the importer reads; each holds the key's last value.
#[derive(Default)]
pub(super) struct Fields<'a> {
    /// `type`, when a string.
    pub(super) kind: Option<Str<'a>>,
    /// `uuid`, when a string.
    pub(super) uuid: Option<Str<'a>>,
    /// `parentUuid`, when a string.
    pub(super) parent_uuid: Option<Str<'a>>,
    /// `logicalParentUuid`, when a string.
    pub(super) logical_parent_uuid: Option<Str<'a>>,
    /// `timestamp`, when a string.
    pub(super) timestamp: Option<Str<'a>>,
    /// `subtype`, when a string.
    pub(super) subtype: Option<Str<'a>>,
    /// `summary`, when a string.
    pub(super) summary: Option<Str<'a>>,
    /// `isSidechain: true`.
    pub(super) sidechain: bool,
    /// `isMeta: true`.
    pub(super) meta: bool,
    /// `isCompactSummary: true`.
    pub(super) compact_summary: bool,
    /// `message`, when an object.
    pub(super) message: Option<MessageFields<'a>>,
    /// `toolUseResult`, whatever its kind.
    pub(super) card: Option<Value>,
}

/// The keys of a record's `message` object that the importer reads.
pub(super) struct MessageFields<'a> {
    /// `id`, when a string.
    pub(super) id: Option<Str<'a>>,
    /// `content`.
    pub(super) content: RawContent,
}

/// `message.content` as read.
pub(super) enum RawContent {
    /// Absent or null.
    Absent,
    /// A string.
    Text(String),
    /// An array: its elements.
    Blocks(Vec<Value>),
    /// Anything else: its kind.
    Other(&'static str),
}

/// Reads one line (already without its line break): the keys of a record object, or the kind
/// of a line that is another JSON value (`an array`, ...). The error is the one a `Value`
/// parse of the line gives.
pub(super) fn read(raw: &str) -> Result<Line<'_>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(raw);
    let line = LineSeed.deserialize(&mut de)?;
    de.end()?;
    Ok(line)
}

/// The kind of a JSON value with its article, as [`json::kind`] names it.
const NULL: &str = "null";
const BOOLEAN: &str = "a boolean";
const NUMBER: &str = "a number";
const STRING: &str = "a string";
const ARRAY: &str = "an array";
const OBJECT: &str = "an object";

/// A leaf field: a string (borrowed when it can be), `true`, or anything else (walked and
/// dropped).
enum Leaf<'a> {
    Str(Str<'a>),
    True,
    Other,
}

impl<'a> Leaf<'a> {
    fn string(self) -> Option<Str<'a>> {
        match self {
            Leaf::Str(s) => Some(s),
            Leaf::True | Leaf::Other => None,
        }
    }

    fn is_true(&self) -> bool {
        matches!(self, Leaf::True)
    }
}

struct LeafSeed;

seed_via_any!(LeafSeed);

impl<'de> Visitor<'de> for LeafSeed {
    type Value = Leaf<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Leaf<'de>, E> {
        Ok(if v { Leaf::True } else { Leaf::Other })
    }
    fn visit_i64<E>(self, _: i64) -> Result<Leaf<'de>, E> {
        Ok(Leaf::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Leaf<'de>, E> {
        Ok(Leaf::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Leaf<'de>, E> {
        Ok(Leaf::Other)
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Leaf<'de>, E> {
        Ok(Leaf::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Leaf<'de>, E> {
        Ok(Leaf::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Leaf<'de>, E> {
        Ok(Leaf::Str(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<Leaf<'de>, E> {
        Ok(Leaf::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Leaf<'de>, A::Error> {
        skip_seq(seq).map(|()| Leaf::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Leaf<'de>, A::Error> {
        skip_map(map).map(|()| Leaf::Other)
    }
}

/// A record key the importer reads, or any other.
#[derive(Clone, Copy)]
enum Key {
    Type,
    Uuid,
    ParentUuid,
    LogicalParentUuid,
    Timestamp,
    Subtype,
    Summary,
    IsSidechain,
    IsMeta,
    IsCompactSummary,
    Message,
    ToolUseResult,
    /// A key of `message`.
    Id,
    /// A key of `message`.
    Content,
    Other,
}

/// Reads a key of a record (`message: false`) or of its `message` (`message: true`).
struct KeySeed {
    message: bool,
}

seed_via_any!(KeySeed);

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E>(self, v: &str) -> Result<Key, E> {
        Ok(match (self.message, v) {
            (false, "type") => Key::Type,
            (false, "uuid") => Key::Uuid,
            (false, "parentUuid") => Key::ParentUuid,
            (false, "logicalParentUuid") => Key::LogicalParentUuid,
            (false, "timestamp") => Key::Timestamp,
            (false, "subtype") => Key::Subtype,
            (false, "summary") => Key::Summary,
            (false, "isSidechain") => Key::IsSidechain,
            (false, "isMeta") => Key::IsMeta,
            (false, "isCompactSummary") => Key::IsCompactSummary,
            (false, "message") => Key::Message,
            (false, "toolUseResult") => Key::ToolUseResult,
            (true, "id") => Key::Id,
            (true, "content") => Key::Content,
            _ => Key::Other,
        })
    }
}

/// The whole line.
struct LineSeed;

seed_via_any!(LineSeed);

impl<'de> Visitor<'de> for LineSeed {
    type Value = Line<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Line<'de>, E> {
        Ok(Err(BOOLEAN))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Line<'de>, E> {
        Ok(Err(NUMBER))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Line<'de>, E> {
        Ok(Err(NUMBER))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Line<'de>, E> {
        Ok(Err(NUMBER))
    }
    fn visit_str<E>(self, _: &str) -> Result<Line<'de>, E> {
        Ok(Err(STRING))
    }
    fn visit_unit<E>(self) -> Result<Line<'de>, E> {
        Ok(Err(NULL))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Line<'de>, A::Error> {
        skip_seq(seq).map(|()| Err(ARRAY))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line<'de>, A::Error> {
        let mut f = Fields::default();
        while let Some(key) = map.next_key_seed(KeySeed { message: false })? {
            let leaf = |map: &mut A| map.next_value_seed(LeafSeed);
            match key {
                Key::Type => f.kind = leaf(&mut map)?.string(),
                Key::Uuid => f.uuid = leaf(&mut map)?.string(),
                Key::ParentUuid => f.parent_uuid = leaf(&mut map)?.string(),
                Key::LogicalParentUuid => f.logical_parent_uuid = leaf(&mut map)?.string(),
                Key::Timestamp => f.timestamp = leaf(&mut map)?.string(),
                Key::Subtype => f.subtype = leaf(&mut map)?.string(),
                Key::Summary => f.summary = leaf(&mut map)?.string(),
                Key::IsSidechain => f.sidechain = leaf(&mut map)?.is_true(),
                Key::IsMeta => f.meta = leaf(&mut map)?.is_true(),
                Key::IsCompactSummary => f.compact_summary = leaf(&mut map)?.is_true(),
                Key::Message => f.message = map.next_value_seed(MessageSeed)?,
                Key::ToolUseResult => f.card = Some(map.next_value::<Value>()?),
                Key::Id | Key::Content | Key::Other => map.next_value_seed(Skip)?,
            }
        }
        Ok(Ok(f))
    }
}

/// A record's `message`: its fields when it is an object, `None` otherwise.
struct MessageSeed;

seed_via_any!(MessageSeed);

impl<'de> Visitor<'de> for MessageSeed {
    type Value = Option<MessageFields<'de>>;

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
        let mut id = None;
        let mut content = RawContent::Absent;
        while let Some(key) = map.next_key_seed(KeySeed { message: true })? {
            match key {
                Key::Id => id = map.next_value_seed(LeafSeed)?.string(),
                Key::Content => content = map.next_value_seed(ContentSeed)?,
                _ => map.next_value_seed(Skip)?,
            }
        }
        Ok(Some(MessageFields { id, content }))
    }
}

/// `message.content`.
struct ContentSeed;

seed_via_any!(ContentSeed);

impl<'de> Visitor<'de> for ContentSeed {
    type Value = RawContent;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<RawContent, E> {
        Ok(RawContent::Other(BOOLEAN))
    }
    fn visit_i64<E>(self, _: i64) -> Result<RawContent, E> {
        Ok(RawContent::Other(NUMBER))
    }
    fn visit_u64<E>(self, _: u64) -> Result<RawContent, E> {
        Ok(RawContent::Other(NUMBER))
    }
    fn visit_f64<E>(self, _: f64) -> Result<RawContent, E> {
        Ok(RawContent::Other(NUMBER))
    }
    fn visit_str<E>(self, v: &str) -> Result<RawContent, E> {
        Ok(RawContent::Text(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<RawContent, E> {
        Ok(RawContent::Text(v))
    }
    fn visit_unit<E>(self) -> Result<RawContent, E> {
        Ok(RawContent::Absent)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawContent, A::Error> {
        let mut blocks = Vec::new();
        while let Some(block) = seq.next_element::<Value>()? {
            blocks.push(block);
        }
        Ok(RawContent::Blocks(blocks))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawContent, A::Error> {
        skip_map(map).map(|()| RawContent::Other(OBJECT))
    }
}

/// One content block of an assistant line, read (`builder::Builder` adds it to the open
/// assistant message).
pub(super) enum AssistantBlock {
    /// A `text` block's text.
    Text(String),
    /// A `thinking` block's text and signature.
    Thinking {
        thinking: String,
        signature: Option<String>,
    },
    /// A `redacted_thinking` block's data.
    Redacted(String),
    /// A `tool_use` block with a string `id` and `name`.
    Call {
        id: String,
        name: String,
        /// The input as compact JSON text (`{}` when there is none).
        arguments: String,
        /// The block has no `input`.
        no_input: bool,
    },
    /// A block that is dropped with this warning; `tool_use_id` is the `id` of a malformed
    /// `tool_use` block, which still names a call for the chain.
    Dropped {
        warning: String,
        tool_use_id: Option<String>,
    },
}

/// The blocks of an assistant line's content array; `raw_inputs` are the blocks' inputs in the
/// line's own key order (`builder::raw_inputs`), when the line had that shape.
pub(super) fn assistant_blocks(
    blocks: Vec<Value>,
    mut raw_inputs: Option<Vec<Option<String>>>,
) -> Vec<AssistantBlock> {
    blocks
        .into_iter()
        .enumerate()
        .map(|(j, block)| {
            let raw = raw_inputs
                .as_mut()
                .and_then(|r| r.get_mut(j))
                .and_then(Option::take);
            assistant_block(block, raw)
        })
        .collect()
}

fn assistant_block(block: Value, raw_input: Option<String>) -> AssistantBlock {
    let dropped = |warning: String| AssistantBlock::Dropped {
        warning,
        tool_use_id: None,
    };
    let Value::Object(mut block) = block else {
        return dropped("assistant content block is not an object, dropped".to_string());
    };
    let kind = match block.remove("type") {
        Some(Value::String(kind)) => kind,
        _ => return dropped("assistant content block has no `type`, dropped".to_string()),
    };
    let text_of = |block: &mut Map<String, Value>, key: &str| match block.remove(key) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let read = match kind.as_str() {
        "text" => text_of(&mut block, "text").map(AssistantBlock::Text),
        "thinking" => text_of(&mut block, "thinking").map(|thinking| AssistantBlock::Thinking {
            thinking,
            signature: text_of(&mut block, "signature"),
        }),
        "redacted_thinking" => text_of(&mut block, "data").map(AssistantBlock::Redacted),
        "tool_use" => match (text_of(&mut block, "id"), text_of(&mut block, "name")) {
            (Some(id), Some(name)) => {
                let (arguments, no_input) = match (raw_input, block.remove("input")) {
                    (Some(raw), _) => (raw, false),
                    (None, Some(input)) => (input.to_string(), false),
                    (None, None) => ("{}".to_string(), true),
                };
                Some(AssistantBlock::Call {
                    id,
                    name,
                    arguments,
                    no_input,
                })
            }
            (id, _) => {
                return AssistantBlock::Dropped {
                    warning: "malformed `tool_use` block, dropped".to_string(),
                    tool_use_id: id,
                };
            }
        },
        other => {
            return dropped(format!(
                "unknown assistant content block type `{}`, dropped",
                json::clip(other)
            ));
        }
    };
    read.unwrap_or_else(|| dropped(format!("malformed `{kind}` block, dropped")))
}

/// A user line's `message.content`, read.
pub(super) enum UserContent {
    /// A string: one user message.
    Text(String),
    /// Absent or null.
    Absent,
    /// Neither a string nor an array: its kind.
    Other(&'static str),
    /// An array of blocks.
    Blocks(UserBlocks),
}

/// The blocks of a user line: tool results become tool messages, the other blocks together
/// one user message.
pub(super) struct UserBlocks {
    /// Every block, in order.
    pub(super) items: Vec<UserItem>,
    /// Whether any block is not a tool result.
    pub(super) has_others: bool,
    /// The content of the user message the other blocks make: their texts joined with `\n`
    /// when each is a text block, the blocks as they are otherwise.
    pub(super) others: Content,
}

/// One block of a user line.
pub(super) enum UserItem {
    /// An object of type `tool_result`.
    Result(ToolResultBlock),
    /// Any other block, kept as a content part of the user message (in
    /// [`UserBlocks::others`]), with the warning it gets.
    Part(Option<String>),
}

/// A `tool_result` block, read.
pub(super) struct ToolResultBlock {
    /// `tool_use_id`, when a string.
    pub(super) tool_use_id: Option<String>,
    /// Whether the result reported failure (anything but `false`, null or absent).
    pub(super) is_error: bool,
    /// The kind of an `is_error` that is neither a boolean nor null.
    pub(super) odd_is_error: Option<&'static str>,
    /// The result's content.
    pub(super) content: Content,
    /// The kind of a `content` that is neither a string, an array nor null (kept as one part).
    pub(super) odd_content: Option<&'static str>,
}

/// User line content, read from `message.content`.
pub(super) fn user_content(content: RawContent) -> UserContent {
    let blocks = match content {
        RawContent::Text(text) => return UserContent::Text(text),
        RawContent::Absent => return UserContent::Absent,
        RawContent::Other(kind) => return UserContent::Other(kind),
        RawContent::Blocks(blocks) => blocks,
    };
    let mut items = Vec::with_capacity(blocks.len());
    let mut others = Vec::new();
    for block in blocks {
        let kind = block.get("type").and_then(Value::as_str);
        let warning = match kind {
            Some("tool_result") if block.is_object() => None,
            Some(kind) if KNOWN_USER_BLOCKS.contains(&kind) => Some(None),
            Some(kind) => Some(Some(format!(
                "unknown user content block type `{}`, kept as a content part",
                json::clip(kind)
            ))),
            None => Some(Some(
                "user content block has no `type`, kept as a content part".to_string(),
            )),
        };
        match (warning, block) {
            (None, Value::Object(map)) => items.push(UserItem::Result(tool_result_block(map))),
            (warning, block) => {
                items.push(UserItem::Part(warning.flatten()));
                others.push(block);
            }
        }
    }
    UserContent::Blocks(UserBlocks {
        items,
        has_others: !others.is_empty(),
        others: blocks_content(others, "\n"),
    })
}

/// User content block types that are kept as content parts without a warning.
const KNOWN_USER_BLOCKS: [&str; 4] = ["text", "image", "document", "tool_result"];

fn tool_result_block(mut block: Map<String, Value>) -> ToolResultBlock {
    let tool_use_id = match block.remove("tool_use_id") {
        Some(Value::String(id)) => Some(id),
        _ => None,
    };
    // Anything but `false`, null or absent is taken as a failure (a failed result proves
    // nothing, which is the safe reading of a value that is not a boolean).
    let (is_error, odd_is_error) = match block.get("is_error") {
        None | Some(Value::Null | Value::Bool(false)) => (false, None),
        Some(Value::Bool(true)) => (true, None),
        Some(other) => (true, Some(json::kind(other))),
    };
    let (content, odd_content) = match block.remove("content") {
        None | Some(Value::Null) => (Content::Text(String::new()), None),
        Some(Value::String(text)) => (Content::Text(text), None),
        Some(Value::Array(items)) => (blocks_content(items, "\n"), None),
        Some(other) => {
            let kind = json::kind(&other);
            (Content::Parts(vec![other]), Some(kind))
        }
    };
    ToolResultBlock {
        tool_use_id,
        is_error,
        odd_is_error,
        content,
        odd_content,
    }
}

/// Content from a list of blocks: the texts joined with `separator` when every block is
/// `{"type":"text","text":…}`, the blocks as they are otherwise.
fn blocks_content(blocks: Vec<Value>, separator: &str) -> Content {
    let texts: Option<Vec<&str>> = blocks
        .iter()
        .map(|b| {
            if b.get("type")?.as_str()? == "text" {
                b.get("text")?.as_str()
            } else {
                None
            }
        })
        .collect();
    match texts {
        Some(texts) => Content::Text(texts.join(separator)),
        None => Content::Parts(blocks),
    }
}

/// Whether an assistant line's content array has a `tool_use` block.
pub(super) fn calls_tools(blocks: &[Value]) -> bool {
    blocks
        .iter()
        .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
}
