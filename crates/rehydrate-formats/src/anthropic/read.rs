//! The Anthropic Messages request body importer: an object with a `messages` array, an
//! optional `system` and any other keys (docs/FORMATS.md, "Importers", "Anthropic Messages
//! body").

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use rehydrate_model::{
    Content, IS_ERROR_METADATA_KEY, Message, REDACTED_THINKING_METADATA_KEY, Role,
    THINKING_METADATA_KEY, THINKING_SIGNATURE_METADATA_KEY, ToolCall,
};
use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::json::{self, FieldError};
use crate::links::Ledger;
use crate::{Error, Format, Import, Warning, keys, listed, source};

/// The content block types of the Anthropic Messages API other than `text`: the ones OpenAI
/// chat content parts never have (detection reads a body holding one as Anthropic), and with
/// `text` every type the reader takes without a warning.
pub(crate) const BLOCK_TYPES: [&str; 17] = [
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "search_result",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
];

fn not_a_session(path: &Path) -> Error {
    Error::NotASession {
        path: path.to_path_buf(),
        format: Format::Anthropic,
        expected: "a JSON object with a `messages` array",
    }
}

/// Imports an Anthropic Messages body.
///
/// The body is first read in one pass ([`import_typed`]); one that does not read so, or whose
/// messages do not all convert, is read again field by field ([`import_field_by_field`]),
/// which gives every error.
pub(crate) fn import(path: &Path, text: &str) -> Result<Import, Error> {
    match import_typed(text) {
        Some(import) => Ok(import),
        None => import_field_by_field(path, text),
    }
}

/// The import of a body read in one pass: each message read straight into its role and
/// content blocks ([`Typed`]) beside its raw text and converted at once, a message of another
/// shape kept as raw text and converted as the field-by-field read converts it. `None` when
/// the text is not an object with a `messages` array, or a message or the `system` does not
/// convert: the field-by-field read then gives the import or its error.
pub(crate) fn import_typed(text: &str) -> Option<Import> {
    let mut body = Body::default();
    let top = listed::read_listed::<Typed<'_>>(text, "messages", &mut |raw, read| {
        body.push(raw, |field, warn| match read {
            Some(typed) => typed.messages(raw, field, warn),
            None => message(raw, field, warn),
        })
        .is_ok()
    })?;
    let listed::Top::Object(members) = top else {
        return None;
    };
    let system = match members.get("system") {
        Some(raw) => Some((system_message(raw).ok()?, raw.get())),
        None => None,
    };
    Some(body.finish(system, &members))
}

/// [`import`] field by field: the body's raw texts (the whole, its members, its messages),
/// then each message's members as raw texts, and each content block parsed into a
/// `serde_json::Value` and converted; errors name the field.
pub(crate) fn import_field_by_field(path: &Path, text: &str) -> Result<Import, Error> {
    let top: &RawValue =
        serde_json::from_str(text).map_err(|e| json::invalid_json(path, None, &e))?;
    if !top.get().trim_start().starts_with('{') {
        return Err(not_a_session(path));
    }
    let members: BTreeMap<String, &RawValue> =
        serde_json::from_str(top.get()).map_err(|e| json::invalid_json(path, None, &e))?;
    let raw_messages = members.get("messages").ok_or_else(|| not_a_session(path))?;
    if !raw_messages.get().trim_start().starts_with('[') {
        return Err(not_a_session(path));
    }
    let raw_messages: Vec<&RawValue> =
        serde_json::from_str(raw_messages.get()).map_err(|e| json::invalid_json(path, None, &e))?;
    let system = match members.get("system") {
        Some(raw) => Some((
            system_message(raw).map_err(|e| e.into_error(path, None))?,
            raw.get(),
        )),
        None => None,
    };
    let mut body = Body::default();
    for raw in raw_messages {
        let raw = raw.get();
        body.push(raw, |field, warn| message(raw, field, warn))
            .map_err(|e| e.into_error(path, None))?;
    }
    Ok(body.finish(system, &members))
}

/// The messages of a body as they are read ([`Body::push`]), with the warnings about them and
/// the tool calls seen so far.
#[derive(Default)]
struct Body {
    /// The canonical messages of the body's messages read so far, each group with its source.
    messages: Vec<Message>,
    /// Warnings, each with the index of the body message it is about.
    warnings: Vec<(usize, Warning)>,
    /// The `tool_use` blocks met so far.
    calls: Ledger,
    /// How many messages were read.
    count: usize,
}

impl Body {
    /// Reads the next message of the body, whose raw text is `raw`, by `read` (given its
    /// field and where its warnings go), checks its tool calls and results against the
    /// earlier ones, and keeps its canonical messages with their source.
    fn push(
        &mut self,
        raw: &str,
        read: impl FnOnce(&str, &mut dyn FnMut(Warning)) -> Result<Vec<Message>, FieldError>,
    ) -> Result<(), FieldError> {
        let i = self.count;
        self.count += 1;
        let field = json::item("messages", i);
        let warnings = &mut self.warnings;
        let group = read(&field, &mut |w| warnings.push((i, w)))?;
        for m in &group {
            for call in &m.tool_calls {
                if self.calls.call(&call.id, i) {
                    self.warnings.push((
                        i,
                        Warning::new(format!("{field}: tool_use id {} is used twice", call.id)),
                    ));
                }
            }
            if m.role == Role::Tool
                && let Some(id) = &m.tool_call_id
            {
                let warning = match self.calls.answer(id) {
                    None => Some(format!("{field}: tool_result {id} has no tool_use")),
                    Some(true) => Some(format!("{field}: second tool_result for tool_use {id}")),
                    Some(false) => None,
                };
                if let Some(warning) = warning {
                    self.warnings.push((i, Warning::new(warning)));
                }
            }
        }
        if group.is_empty() {
            self.warnings.push((
                i,
                Warning::new(format!(
                    "{field}: message makes no canonical message; not kept"
                )),
            ));
        }
        self.messages.extend(with_source(group, raw));
        Ok(())
    }

    /// The import: the system message (with its raw text) first, then the messages; every
    /// `tool_use` no `tool_result` answered is warned of, and the first message carries the
    /// body's other `members`.
    fn finish(
        mut self,
        system: Option<(Message, &str)>,
        members: &BTreeMap<String, &RawValue>,
    ) -> Import {
        for (id, i) in std::mem::take(&mut self.calls).unanswered() {
            self.warnings.push((
                i,
                Warning::new(format!(
                    "{}: tool_use {id} has no tool_result",
                    json::item("messages", i)
                )),
            ));
        }
        let mut messages = self.messages;
        if let Some((m, raw)) = system {
            messages.splice(0..0, with_source(vec![m], raw));
        }
        if let Some(first) = messages.first_mut() {
            first.metadata.insert(
                keys::DOCUMENT.to_string(),
                source::document_text(members, &["messages", "system"]),
            );
            first.metadata.insert(
                keys::DOCUMENT_FORMAT.to_string(),
                Format::Anthropic.as_str().to_string(),
            );
        }
        let mut warnings = self.warnings;
        warnings.sort_by_key(|(i, _)| *i);
        Import {
            format: Format::Anthropic,
            messages,
            warnings: warnings.into_iter().map(|(_, w)| w).collect(),
        }
    }
}

/// `group` with the source `[raw]` on its first message and the part mark on the others.
fn with_source(mut group: Vec<Message>, raw: &str) -> Vec<Message> {
    for (k, m) in group.iter_mut().enumerate() {
        if k == 0 {
            m.metadata
                .insert(keys::SOURCE.to_string(), source::array_text([raw]));
        } else {
            m.metadata
                .insert(keys::SOURCE_PART.to_string(), "true".to_string());
        }
    }
    group
}

/// Reads a group's source (`[<message>]`, or `[<system value>]`) on its own; `None` when it
/// does not read.
pub(crate) fn decode(source_text: &str) -> Option<Vec<Message>> {
    let items = source::items(source_text)?;
    let [raw] = items.as_slice() else {
        return None;
    };
    if raw.get().trim_start().starts_with('{') {
        message(raw.get(), "messages[0]", &mut |_| {}).ok()
    } else {
        system_message(raw).ok().map(|m| vec![m])
    }
}

/// The system message of a `system` value: a string as text, text blocks as content parts
/// kept as they are (`cache_control` included).
fn system_message(raw: &RawValue) -> Result<Message, FieldError> {
    let value: Value = serde_json::from_str(raw.get())
        .map_err(|e| FieldError::new("system", format!("invalid JSON: {e}")))?;
    let content = match value {
        Value::String(text) => Content::Text(text),
        Value::Array(blocks) => Content::Parts(blocks),
        other => {
            return Err(FieldError::new(
                "system",
                format!(
                    "expected a string or an array of text blocks, got {}",
                    json::kind(&other)
                ),
            ));
        }
    };
    Ok(Message {
        role: Role::System,
        content: Some(content),
        ..Message::default()
    })
}

/// One block of a message: its value, and the raw text of its `input`.
struct Block<'a> {
    /// The block; without its `input` when `detached`.
    value: Value,
    /// The raw text of the block's `input`: a `tool_use` block's (the field-by-field read), or
    /// any block's (the typed read, which leaves it out of `value`).
    input: Option<&'a str>,
    /// Whether `value` lacks the `input` (the typed read).
    detached: bool,
}

impl Block<'_> {
    /// The block as a content part: its value, with its `input` back.
    fn into_part(self) -> Value {
        let mut value = self.value;
        if self.detached
            && let (Some(input), Value::Object(members)) = (self.input, &mut value)
        {
            // The typed read checked the input parses ([`json::surely_parses`]).
            members.insert(
                "input".to_string(),
                serde_json::from_str(input).unwrap_or_default(),
            );
        }
        value
    }
}

/// Reads the blocks of a content array, keeping each `tool_use` input's raw text.
fn blocks<'a>(raw: &'a RawValue, field: &str) -> Result<Vec<Block<'a>>, FieldError> {
    let raws: Vec<&RawValue> = serde_json::from_str(raw.get())
        .map_err(|e| FieldError::new(field, format!("invalid JSON: {e}")))?;
    raws.into_iter()
        .map(|raw| {
            let value: Value = serde_json::from_str(raw.get())
                .map_err(|e| FieldError::new(field, format!("invalid JSON: {e}")))?;
            let input = if value.get("type").and_then(Value::as_str) == Some("tool_use") {
                serde_json::from_str::<BTreeMap<String, &RawValue>>(raw.get())
                    .ok()
                    .and_then(|members| members.get("input").map(|r| r.get()))
            } else {
                None
            };
            Ok(Block {
                value,
                input,
                detached: false,
            })
        })
        .collect()
}

/// One Anthropic message at `field` (its raw text) as canonical messages: an assistant
/// message as one; a user message as one tool message per `tool_result` block and one user
/// message per run of other blocks, in order.
fn message(
    raw: &str,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Result<Vec<Message>, FieldError> {
    let members: BTreeMap<String, &RawValue> =
        serde_json::from_str(raw).map_err(|_| FieldError::new(field, "expected an object"))?;
    let role_field = json::child(field, "role");
    let role: Value = match members.get("role") {
        Some(r) => serde_json::from_str(r.get()).unwrap_or(Value::Null),
        None => Value::Null,
    };
    let assistant = match role.as_str() {
        Some("user") => false,
        Some("assistant") => true,
        Some(other) => {
            return Err(FieldError::new(
                role_field,
                format!(
                    "unknown role `{}` (expected user or assistant)",
                    json::clip(other)
                ),
            ));
        }
        None => return Err(FieldError::new(role_field, "missing (expected a string)")),
    };
    let role = if assistant {
        Role::Assistant
    } else {
        Role::User
    };
    let content_field = json::child(field, "content");
    let Some(content) = members.get("content") else {
        warn(Warning::new(format!("{field}: message has no `content`")));
        return Ok(vec![Message {
            role,
            ..Message::default()
        }]);
    };
    let text = content.get().trim_start();
    if text.starts_with('"') || text.starts_with('n') {
        let value: Value = serde_json::from_str(content.get()).unwrap_or(Value::Null);
        return Ok(vec![Message {
            role,
            content: value.as_str().map(|t| Content::Text(t.to_string())),
            ..Message::default()
        }]);
    }
    if !text.starts_with('[') {
        let value: Value = serde_json::from_str(content.get()).unwrap_or(Value::Null);
        return Err(FieldError::new(
            content_field,
            format!(
                "expected a string or an array of content blocks, got {}",
                json::kind(&value)
            ),
        ));
    }
    let blocks = blocks(content, &content_field)?;
    Ok(from_blocks(assistant, blocks, &content_field, warn))
}

/// The canonical messages of a message's content blocks (at `field`): an assistant message's
/// as one, a user message's as [`user_messages`].
fn from_blocks(
    assistant: bool,
    blocks: Vec<Block<'_>>,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Vec<Message> {
    if assistant {
        vec![assistant_message(blocks, field, warn)]
    } else {
        user_messages(blocks, field, warn)
    }
}

/// The `type` of a block, checked against the known ones (a warning names an unknown one).
fn block_type<'v>(
    value: &'v Value,
    field: &str,
    j: usize,
    warn: &mut dyn FnMut(Warning),
) -> Option<&'v str> {
    let kind = value.get("type").and_then(Value::as_str);
    match kind {
        Some(k) if k == "text" || BLOCK_TYPES.contains(&k) => {}
        Some(k) => warn(Warning::new(format!(
            "{}: unknown block type `{}`, kept as a content part",
            json::item(field, j),
            json::clip(k)
        ))),
        None => warn(Warning::new(format!(
            "{}: block has no `type`, kept as a content part",
            json::item(field, j)
        ))),
    }
    kind
}

/// What an assistant message's block makes.
#[derive(PartialEq)]
enum Kind {
    /// Visible reasoning with its `thinking` text.
    Thinking,
    /// Redacted reasoning with its `data`.
    Redacted,
    /// A call with its `id` and `name`.
    Call,
    /// A content part.
    Part,
}

/// Removes `key` from `block` (an object): its string, or empty.
fn take_string(block: &mut Value, key: &str) -> String {
    match block.as_object_mut().and_then(|o| o.remove(key)) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    }
}

fn assistant_message(
    blocks: Vec<Block<'_>>,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Message {
    let mut m = Message {
        role: Role::Assistant,
        ..Message::default()
    };
    let mut parts = Vec::new();
    let (mut thinking, mut signatures, mut redacted) = (Vec::new(), Vec::new(), Vec::new());
    let mut any_part = false;
    for (j, mut block) in blocks.into_iter().enumerate() {
        let has = |k: &str| block.value.get(k).is_some_and(Value::is_string);
        let kind = match block_type(&block.value, field, j, warn) {
            Some("thinking") if has("thinking") => Kind::Thinking,
            Some("redacted_thinking") if has("data") => Kind::Redacted,
            Some("tool_use") if has("id") && has("name") => Kind::Call,
            _ => Kind::Part,
        };
        match kind {
            Kind::Thinking => {
                thinking.push(take_string(&mut block.value, "thinking"));
                signatures.push(take_string(&mut block.value, "signature"));
            }
            Kind::Redacted => redacted.push(take_string(&mut block.value, "data")),
            Kind::Call => {
                let id = take_string(&mut block.value, "id");
                let arguments = match block.input {
                    Some(input) => input.to_string(),
                    None => {
                        warn(Warning::new(format!(
                            "{}: tool_use {id} has no `input`; arguments set to {{}}",
                            json::item(field, j)
                        )));
                        "{}".to_string()
                    }
                };
                m.tool_calls.push(ToolCall {
                    id,
                    name: take_string(&mut block.value, "name"),
                    arguments,
                });
            }
            Kind::Part => {
                any_part = true;
                parts.push(block.into_part());
            }
        }
    }
    if any_part {
        m.content = Some(Content::Parts(parts));
    }
    for (key, texts, sep) in [
        (THINKING_METADATA_KEY, thinking, "\n\n"),
        (THINKING_SIGNATURE_METADATA_KEY, signatures, "\n"),
        (REDACTED_THINKING_METADATA_KEY, redacted, "\n"),
    ] {
        if !texts.is_empty() {
            m.metadata.insert(key.to_string(), texts.join(sep));
        }
    }
    m
}

fn user_messages(
    blocks: Vec<Block<'_>>,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Vec<Message> {
    let mut out = Vec::new();
    let mut run: Vec<Value> = Vec::new();
    let flush = |run: &mut Vec<Value>, out: &mut Vec<Message>| {
        if !run.is_empty() {
            out.push(Message {
                role: Role::User,
                content: Some(Content::Parts(std::mem::take(run))),
                ..Message::default()
            });
        }
    };
    let empty = blocks.is_empty();
    for (j, block) in blocks.into_iter().enumerate() {
        if block_type(&block.value, field, j, warn) != Some("tool_result") {
            run.push(block.into_part());
            continue;
        }
        flush(&mut run, &mut out);
        let Value::Object(mut obj) = block.value else {
            continue;
        };
        let at = json::item(field, j);
        let id = match obj.remove("tool_use_id") {
            Some(Value::String(id)) => Some(id),
            _ => {
                warn(Warning::new(format!(
                    "{at}: tool_result has no `tool_use_id`"
                )));
                None
            }
        };
        let content = match obj.remove("content") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(Content::Text(text)),
            Some(Value::Array(parts)) => Some(Content::Parts(parts)),
            Some(other) => {
                warn(Warning::new(format!(
                    "{at}: tool_result content is {}, kept as one content part",
                    json::kind(&other)
                )));
                Some(Content::Parts(vec![other]))
            }
        };
        let mut m = Message {
            role: Role::Tool,
            content,
            tool_call_id: id,
            ..Message::default()
        };
        match obj.remove("is_error") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => {
                m.metadata
                    .insert(IS_ERROR_METADATA_KEY.to_string(), "true".to_string());
            }
            Some(other) => {
                warn(Warning::new(format!(
                    "{at}: tool_result `is_error` is {}, taken as a failure",
                    json::kind(&other)
                )));
                m.metadata
                    .insert(IS_ERROR_METADATA_KEY.to_string(), "true".to_string());
            }
        }
        out.push(m);
    }
    flush(&mut run, &mut out);
    if empty {
        out.push(Message {
            role: Role::User,
            content: Some(Content::Parts(Vec::new())),
            ..Message::default()
        });
    }
    out
}

/// A message of the body read in the pass that finds its text ([`listed::read_listed`]): its
/// `role` (a string), its `content` as [`Content`], its other members walked as its raw text
/// is walked (`IgnoredAny`, as a `RawValue` walks them). [`Typed::messages`] converts it as
/// [`message`] converts the raw text, and leaves any case it does not settle to [`message`].
struct Typed<'a> {
    role: Option<Cow<'a, str>>,
    content: Option<ContentField<'a>>,
}

/// A message's `content` as the typed read takes it: null, a string, or content blocks.
enum ContentField<'a> {
    Null,
    Text(String),
    Blocks(Vec<Block<'a>>),
}

impl Typed<'_> {
    /// The canonical messages of the message whose raw text is `raw`, at `field`.
    fn messages(
        self,
        raw: &str,
        field: &str,
        warn: &mut dyn FnMut(Warning),
    ) -> Result<Vec<Message>, FieldError> {
        let assistant = match self.role.as_deref() {
            Some("user") => false,
            Some("assistant") => true,
            _ => return message(raw, field, warn),
        };
        let role = if assistant {
            Role::Assistant
        } else {
            Role::User
        };
        let content = match self.content {
            None => return message(raw, field, warn),
            Some(ContentField::Null) => None,
            Some(ContentField::Text(text)) => Some(Content::Text(text)),
            Some(ContentField::Blocks(blocks)) => {
                let field = json::child(field, "content");
                return Ok(from_blocks(assistant, blocks, &field, warn));
            }
        };
        Ok(vec![Message {
            role,
            content,
            ..Message::default()
        }])
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Typed<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Typed<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Typed<'a>, A::Error> {
                let mut typed = Typed {
                    role: None,
                    content: None,
                };
                // A repeated member replaces the earlier one, as in the raw members' map.
                while let Some(json::Str(key)) = map.next_key::<json::Str<'de>>()? {
                    match key.as_ref() {
                        "role" => typed.role = Some(map.next_value::<json::Str<'de>>()?.0),
                        "content" => typed.content = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(typed)
            }
        }
        d.deserialize_map(Visit(PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ContentField<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = ContentField<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("null, a string or content blocks")
            }
            fn visit_unit<E>(self) -> Result<ContentField<'a>, E> {
                Ok(ContentField::Null)
            }
            fn visit_str<E>(self, v: &str) -> Result<ContentField<'a>, E> {
                Ok(ContentField::Text(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<ContentField<'a>, E> {
                Ok(ContentField::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<ContentField<'a>, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(block) = seq.next_element::<Block<'de>>()? {
                    blocks.push(block);
                }
                Ok(ContentField::Blocks(blocks))
            }
        }
        d.deserialize_any(Visit(PhantomData))
    }
}

/// The most containers a block's `input` may nest: a parse of the block into a `Value`
/// counts the block's own (serde_json takes at most 127).
const INPUT_DEPTH: usize = 126;

impl<'de: 'a, 'a> Deserialize<'de> for Block<'a> {
    /// A block read as a parse into a `Value` reads it (a block of any JSON type), but for an
    /// object's `input`, kept as its raw text once [`json::surely_parses`] says a `Value` parse
    /// takes it; any other input (or an object a `Value` parse reads another way) is an
    /// error, which leaves the message to [`message`].
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Block<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Block<'a>, E> {
                Ok(Block::of(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Block<'a>, E> {
                Ok(Block::of(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Block<'a>, E> {
                Ok(Block::of(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Block<'a>, E> {
                Ok(Block::of(
                    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
                ))
            }
            fn visit_str<E>(self, v: &str) -> Result<Block<'a>, E> {
                Ok(Block::of(Value::String(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Block<'a>, E> {
                Ok(Block::of(Value::String(v)))
            }
            fn visit_unit<E>(self) -> Result<Block<'a>, E> {
                Ok(Block::of(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Block<'a>, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(item) = seq.next_element::<Value>()? {
                    items.push(item);
                }
                Ok(Block::of(Value::Array(items)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Block<'a>, A::Error> {
                let mut members = serde_json::Map::new();
                let mut input = None;
                while let Some(key) = map.next_key::<String>()? {
                    if members.is_empty() && input.is_none() && key == json::RAW_VALUE_TOKEN {
                        return Err(serde::de::Error::custom("a raw value token"));
                    }
                    if key == "input" {
                        let raw: &'de RawValue = map.next_value()?;
                        if !json::surely_parses(raw.get(), INPUT_DEPTH) {
                            return Err(serde::de::Error::custom("an input to parse"));
                        }
                        input = Some(raw.get());
                    } else {
                        members.insert(key, map.next_value::<Value>()?);
                    }
                }
                Ok(Block {
                    value: Value::Object(members),
                    input,
                    detached: true,
                })
            }
        }
        d.deserialize_any(Visit(PhantomData))
    }
}

impl Block<'_> {
    /// A block with no `input` apart.
    fn of(value: Value) -> Self {
        Block {
            value,
            input: None,
            detached: false,
        }
    }
}
