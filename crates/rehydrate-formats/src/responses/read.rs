//! The OpenAI Responses input importer: a JSON array of input items, or an object whose `input`
//! is such an array or a string (docs/FORMATS.md, "Importers", "OpenAI Responses input").

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use rehydrate_model::{Content, Message, Role, ToolCall};
use serde::Deserialize;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::json::{self, FieldError};
use crate::links::Ledger;
use crate::{Error, Format, Import, Warning, keys, listed, source};

/// Item types that are model items of another kind than rehydrate's messages: built-in tool
/// calls and their outputs, references to stored items, compaction. Kept in the source, no
/// message and no warning.
const OPAQUE_TYPES: [&str; 22] = [
    "item_reference",
    "web_search_call",
    "file_search_call",
    "computer_call",
    "computer_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "image_generation_call",
    "code_interpreter_call",
    "tool_search_call",
    "tool_search_output",
    "compaction",
    "compaction_summary",
    "context_compaction",
];

/// Item types this importer reads into messages.
const MESSAGE_TYPES: [&str; 6] = [
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "reasoning",
];

/// Whether `kind` is an input item type this crate knows (detection: a bare array whose first
/// element has such a `type` is a Responses input).
pub(crate) fn is_item_type(kind: &str) -> bool {
    MESSAGE_TYPES.contains(&kind) || OPAQUE_TYPES.contains(&kind)
}

fn not_a_session(path: &Path) -> Error {
    Error::NotASession {
        path: path.to_path_buf(),
        format: Format::Responses,
        expected: "a JSON array of input items or an object with an `input` array or string",
    }
}

/// Imports a Responses input document.
///
/// The document is first read in one pass ([`import_typed`]); one that does not read so, or
/// whose items do not all convert, is read again field by field ([`import_field_by_field`]),
/// which gives every error.
pub(crate) fn import(path: &Path, text: &str) -> Result<Import, Error> {
    match import_typed(text) {
        Some(import) => Ok(import),
        None => import_field_by_field(path, text),
    }
}

/// The import of a bare items array or an object with an `input` array read in one pass: each
/// item read straight into the fields the import uses ([`Fields`]) beside its raw text, an
/// item of another shape kept as raw text and converted as the field-by-field read converts
/// it. `None` when the document is not such an array or object (a string `input` included),
/// has an item that is not an object, or an item does not convert: the field-by-field read
/// then gives the import or its error.
pub(crate) fn import_typed(text: &str) -> Option<Import> {
    let bare = text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('[');
    let prefix = if bare { "" } else { "input" };
    let mut grouping = Grouping::new(prefix);
    let top = listed::read_listed::<Fields<'_>>(text, "input", &mut |raw, read| {
        let pushed = match read {
            Some(fields) => grouping.push(raw, |field, warn| fields.item(raw, field, false, warn)),
            // Any other item is read field by field, but one that is not an object (an error
            // there).
            None if raw.starts_with('{') => {
                grouping.push(raw, |field, warn| item(raw, &field(), false, warn))
            }
            None => return false,
        };
        pushed.is_ok()
    })?;
    let document = match top {
        listed::Top::Array => "[]".to_string(),
        listed::Top::Object(members) => source::document_text(&members, &["input"]),
    };
    let items = grouping.items.len();
    Some(finish(grouping.finish(), items, prefix, document))
}

/// [`import`] field by field: the document's raw texts (the whole, its members, its items),
/// then each item parsed into a `serde_json::Value` and converted; errors name the field.
pub(crate) fn import_field_by_field(path: &Path, text: &str) -> Result<Import, Error> {
    let top: &RawValue =
        serde_json::from_str(text).map_err(|e| json::invalid_json(path, None, &e))?;
    let top_text = top.get().trim_start();
    let (prefix, document, items, string_input) = if top_text.starts_with('[') {
        let items: Vec<&RawValue> =
            serde_json::from_str(top.get()).map_err(|e| json::invalid_json(path, None, &e))?;
        ("", "[]".to_string(), items, false)
    } else if top_text.starts_with('{') {
        let members: BTreeMap<String, &RawValue> =
            serde_json::from_str(top.get()).map_err(|e| json::invalid_json(path, None, &e))?;
        let input = members.get("input").ok_or_else(|| not_a_session(path))?;
        let document = source::document_text(&members, &["input"]);
        let input_text = input.get().trim_start();
        if input_text.starts_with('[') {
            let items: Vec<&RawValue> = serde_json::from_str(input.get())
                .map_err(|e| json::invalid_json(path, None, &e))?;
            ("input", document, items, false)
        } else if input_text.starts_with('"') {
            ("input", document, vec![*input], true)
        } else {
            return Err(not_a_session(path));
        }
    } else {
        return Err(not_a_session(path));
    };
    if !string_input {
        for (i, raw) in items.iter().enumerate() {
            if !raw.get().trim_start().starts_with('{') {
                let v: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                return Err(FieldError::new(
                    json::item(prefix, i),
                    format!("expected an object, got {}", json::kind(&v)),
                )
                .into_error(path, None));
            }
        }
    }
    let read = read_raws(&items, prefix).map_err(|e| e.into_error(path, None))?;
    Ok(finish(read, items.len(), prefix, document))
}

/// The import of the `items` items read at `prefix` of a document whose other members are
/// `document` ([`keys::DOCUMENT`]).
fn finish(read: Read, items: usize, prefix: &str, document: String) -> Import {
    let mut messages = read.messages;
    let mut warnings = read.warnings;
    if messages.is_empty() && items > 0 {
        warnings.push((
            0,
            Warning::new(format!(
                "{}: no item makes a message; the input is not kept",
                if prefix.is_empty() { "[]" } else { prefix }
            )),
        ));
    }
    if let Some(first) = messages.first_mut() {
        first.metadata.insert(keys::DOCUMENT.to_string(), document);
        first.metadata.insert(
            keys::DOCUMENT_FORMAT.to_string(),
            Format::Responses.as_str().to_string(),
        );
    }
    warnings.sort_by_key(|(i, _)| *i);
    Import {
        format: Format::Responses,
        messages,
        warnings: warnings.into_iter().map(|(_, w)| w).collect(),
    }
}

/// Reads the messages of a group's source text on its own (the writer's test of whether the
/// group changed); `None` when it does not read.
pub(crate) fn decode(source_text: &str) -> Option<Read> {
    let items = source::items(source_text)?;
    read_raws(&items, "").ok()
}

/// Reads `items` (raw texts at `prefix`; a lone JSON string is a string `input`) field by
/// field, grouped.
fn read_raws<'a>(items: &[&'a RawValue], prefix: &'a str) -> Result<Read, FieldError> {
    let mut grouping = Grouping::new(prefix);
    let lone = items.len() == 1;
    for raw in items {
        let raw = raw.get();
        grouping.push(raw, |field, warn| item(raw, &field(), lone, warn))?;
    }
    Ok(grouping.finish())
}

/// What [`Grouping`] made of a list of items.
pub(crate) struct Read {
    /// The messages, each with [`keys::SOURCE`]: the items of its group.
    pub(crate) messages: Vec<Message>,
    /// Warnings, each with the index of the item it is about.
    pub(crate) warnings: Vec<(usize, Warning)>,
    /// The items that make no message and are not reasoning (kept verbatim when a group is
    /// written afresh), as raw texts, in order.
    pub(crate) opaque: Vec<String>,
}

/// What one item is.
enum Item {
    /// A message of a role; `assistant` ones can take the calls that follow.
    Message(Message),
    /// A `function_call` or `custom_tool_call` (`true`).
    Call(ToolCall, bool),
    /// A tool result (a custom tool call's carries [`keys::CUSTOM_CALLS`]).
    Output(Message),
    /// A `reasoning` item.
    Reasoning,
    /// An item that makes no message.
    Opaque,
}

/// The assistant message being gathered (beside the end of its items).
struct Open {
    message: Message,
    custom: Vec<String>,
    /// Whether calls may still join (no reasoning item came since).
    takes_calls: bool,
}

/// Items grouped into messages as they are read ([`Grouping::push`]): reasoning items go to the
/// next assistant item, an assistant message item takes the calls right after it, consecutive
/// calls are one assistant message; items that make no message belong to the next group (the
/// last group takes those after it). A group's source ([`keys::SOURCE`]) is written as soon as
/// the next group starts, while the items after it are still being read.
struct Grouping<'a> {
    /// Where the items are: `input`, or empty for a bare array.
    prefix: &'a str,
    /// The raw texts of the items pushed so far.
    items: Vec<&'a str>,
    /// Warnings, each with the index of the item it is about.
    warnings: Vec<(usize, Warning)>,
    /// The messages of the complete groups, each with its source.
    messages: Vec<Message>,
    /// The last group so far: its first item, its end item (exclusive) and its message.
    last: Option<(usize, usize, Message)>,
    /// The raw texts of the items that make no message and are not reasoning.
    opaque: Vec<String>,
    /// The first item not in a group yet.
    start: usize,
    /// The reasoning items waiting for the next assistant item.
    reasoning: Vec<usize>,
    /// The assistant message being gathered, and the end of its last item.
    open: Option<(Open, usize)>,
    /// The calls met so far.
    calls: Ledger,
}

impl<'a> Grouping<'a> {
    fn new(prefix: &'a str) -> Grouping<'a> {
        Grouping {
            prefix,
            items: Vec::new(),
            warnings: Vec::new(),
            messages: Vec::new(),
            last: None,
            opaque: Vec::new(),
            start: 0,
            reasoning: Vec::new(),
            open: None,
            calls: Ledger::default(),
        }
    }

    /// Reads the next item, whose raw text is `raw`, by `read` (given the item's field, made
    /// when needed, and where its warnings go), and puts it in its group.
    fn push(
        &mut self,
        raw: &'a str,
        read: impl FnOnce(&dyn Fn() -> String, &mut dyn FnMut(Warning)) -> Result<Item, FieldError>,
    ) -> Result<(), FieldError> {
        let i = self.items.len();
        self.items.push(raw);
        let prefix = self.prefix;
        let field = || json::item(prefix, i);
        let warnings = &mut self.warnings;
        match read(&field, &mut |w| warnings.push((i, w)))? {
            Item::Opaque => self.opaque.push(raw.to_string()),
            Item::Reasoning => {
                self.close();
                self.reasoning.push(i);
            }
            Item::Message(m) if m.role == Role::Assistant => {
                self.close();
                self.open = Some(self.open_step(m, i));
            }
            Item::Call(call, custom) => {
                if self.calls.call(&call.id, i) {
                    self.warnings.push((
                        i,
                        Warning::new(format!("{}: call id {} is used twice", field(), call.id)),
                    ));
                }
                let joins = matches!(&self.open, Some((o, _)) if o.takes_calls)
                    && self.reasoning.is_empty();
                if !joins {
                    self.close();
                    let m = Message {
                        role: Role::Assistant,
                        ..Message::default()
                    };
                    self.open = Some(self.open_step(m, i));
                }
                if let Some((o, end)) = &mut self.open {
                    if custom {
                        o.custom.push(call.id.clone());
                    }
                    o.message.tool_calls.push(call);
                    *end = i + 1;
                }
            }
            Item::Message(m) | Item::Output(m) => {
                self.close();
                self.orphans();
                if m.role == Role::Tool
                    && let Some(id) = &m.tool_call_id
                {
                    let warning = match self.calls.answer(id) {
                        None => Some(format!("{}: output for call {id} has no call", field())),
                        Some(true) => Some(format!("{}: second output for call {id}", field())),
                        Some(false) => None,
                    };
                    if let Some(warning) = warning {
                        self.warnings.push((i, Warning::new(warning)));
                    }
                }
                self.group(self.start, i + 1, m);
                self.start = i + 1;
            }
        }
        Ok(())
    }

    /// Ends the assistant message being gathered, as a group.
    fn close(&mut self) {
        if let Some((o, end)) = self.open.take() {
            let mut m = o.message;
            if !o.custom.is_empty() {
                m.metadata
                    .insert(keys::CUSTOM_CALLS.to_string(), o.custom.join("\n"));
            }
            self.group(self.start, end, m);
            self.start = end;
        }
    }

    /// Starts a group of the items `[first, end)` making `m`: the group before it is complete,
    /// and gets its source.
    fn group(&mut self, first: usize, end: usize, m: Message) {
        if let Some((first, end, m)) = self.last.replace((first, end, m)) {
            self.complete(first, end, m);
        }
    }

    /// `m` with the source of items `[first, end)`, among the messages.
    fn complete(&mut self, first: usize, end: usize, mut m: Message) {
        let text = source::array_text(
            self.items
                .get(first..end)
                .unwrap_or_default()
                .iter()
                .copied(),
        );
        m.metadata.insert(keys::SOURCE.to_string(), text);
        self.messages.push(m);
    }

    /// Warns of the reasoning items no item followed.
    fn orphans(&mut self) {
        for i in self.reasoning.drain(..) {
            self.warnings.push((
                i,
                Warning::new(format!(
                    "{}: reasoning item has no following item; kept in the source only",
                    json::item(self.prefix, i)
                )),
            ));
        }
    }

    /// Opens an assistant step with `m`, the item at `i`: the pending reasoning items go on
    /// it, and calls may join it. With the end of its items (`i + 1`).
    fn open_step(&mut self, mut m: Message, i: usize) -> (Open, usize) {
        if !self.reasoning.is_empty() {
            let items = &self.items;
            let text =
                source::array_text(self.reasoning.iter().filter_map(|&i| items.get(i).copied()));
            self.reasoning.clear();
            m.metadata.insert(REASONING_KEY.to_string(), text);
        }
        let open = Open {
            message: m,
            custom: Vec::new(),
            takes_calls: true,
        };
        (open, i + 1)
    }

    /// The messages and warnings of every item pushed: the last group takes the items after
    /// it, and every call no output answered is warned of.
    fn finish(mut self) -> Read {
        self.close();
        self.orphans();
        for (id, i) in std::mem::take(&mut self.calls).unanswered() {
            self.warnings.push((
                i,
                Warning::new(format!(
                    "{}: call {id} has no output",
                    json::item(self.prefix, i)
                )),
            ));
        }
        if let Some((first, _, m)) = self.last.take() {
            self.complete(first, self.items.len(), m);
        }
        Read {
            messages: self.messages,
            warnings: self.warnings,
            opaque: self.opaque,
        }
    }
}

/// The metadata key of the reasoning items before an assistant message.
pub(crate) const REASONING_KEY: &str = "reasoning";

/// Reads one item at `field` from its raw text, field by field; `lone` allows a JSON string (a
/// string `input`).
fn item(
    raw: &str,
    field: &str,
    lone: bool,
    warn: &mut dyn FnMut(Warning),
) -> Result<Item, FieldError> {
    let value: Value = serde_json::from_str(raw)
        .map_err(|e| FieldError::new(field, format!("invalid JSON: {e}")))?;
    let mut obj = match value {
        Value::String(text) if lone => {
            return Ok(Item::Message(Message::text(Role::User, text)));
        }
        other => json::into_object(other, field)?,
    };
    let kind = match obj.get("type") {
        None | Some(Value::Null) if obj.contains_key("role") => "message".to_string(),
        Some(Value::String(kind)) => kind.clone(),
        None | Some(Value::Null) => {
            warn(Warning::new(format!(
                "{field}: item has no `type`, kept in the source only"
            )));
            return Ok(Item::Opaque);
        }
        Some(other) => {
            return Err(FieldError::new(
                json::child(field, "type"),
                format!("expected a string, got {}", json::kind(other)),
            ));
        }
    };
    match kind.as_str() {
        "message" => message(obj, field).map(Item::Message),
        "function_call" => {
            let id = json::take_string(&mut obj, "call_id", field)?;
            let (name, arguments) = crate::openai::name_and_arguments(obj, field, warn)?;
            if serde_json::from_str::<serde::de::IgnoredAny>(&arguments).is_err() {
                warn(Warning::new(format!(
                    "{field}: call {id} has arguments that are not JSON"
                )));
            }
            Ok(Item::Call(
                ToolCall {
                    id,
                    name,
                    arguments,
                },
                false,
            ))
        }
        "custom_tool_call" => {
            let id = json::take_string(&mut obj, "call_id", field)?;
            let name = json::take_string(&mut obj, "name", field)?;
            let input = json::take_string(&mut obj, "input", field)?;
            Ok(Item::Call(custom_call(id, name, &input), true))
        }
        "function_call_output" | "custom_tool_call_output" => {
            let custom = kind == "custom_tool_call_output";
            let id = json::take_string(&mut obj, "call_id", field)?;
            let content = match obj.remove("output") {
                Some(Value::String(text)) => Content::Text(text),
                Some(Value::Array(parts)) => Content::Parts(canonical_parts(parts)),
                None | Some(Value::Null) => {
                    return Err(FieldError::new(
                        json::child(field, "output"),
                        "missing (expected a string or an array of content parts)",
                    ));
                }
                Some(other) => {
                    return Err(FieldError::new(
                        json::child(field, "output"),
                        format!(
                            "expected a string or an array of content parts, got {}",
                            json::kind(&other)
                        ),
                    ));
                }
            };
            Ok(Item::Output(output_message(id, content, custom)))
        }
        other => Ok(other_item(other, &|| field.to_string(), warn)),
    }
}

/// The call of a `custom_tool_call` item: its `input` as the arguments `{"input": …}`.
fn custom_call(id: String, name: String, input: &str) -> ToolCall {
    ToolCall {
        id,
        name,
        arguments: json!({ "input": input }).to_string(),
    }
}

/// The tool message of a `function_call_output` (or, `custom`, `custom_tool_call_output`)
/// item answering call `id`.
fn output_message(id: String, content: Content, custom: bool) -> Message {
    let mut m = Message {
        role: Role::Tool,
        content: Some(content),
        ..Message::default()
    };
    if custom {
        m.metadata
            .insert(keys::CUSTOM_CALLS.to_string(), id.clone());
    }
    m.tool_call_id = Some(id);
    m
}

/// An item of a `type` that makes no message: `reasoning`, a known opaque type, or an unknown
/// one (with a warning).
fn other_item(kind: &str, field: &dyn Fn() -> String, warn: &mut dyn FnMut(Warning)) -> Item {
    match kind {
        "reasoning" => Item::Reasoning,
        known if OPAQUE_TYPES.contains(&known) => Item::Opaque,
        unknown => {
            warn(Warning::new(format!(
                "{}: unknown item type `{}`, kept in the source only",
                field(),
                json::clip(unknown)
            )));
            Item::Opaque
        }
    }
}

/// A `message` item (or a typeless one with a `role`).
fn message(mut obj: Map<String, Value>, field: &str) -> Result<Message, FieldError> {
    let role_text = json::take_string(&mut obj, "role", field)?;
    let mut metadata = BTreeMap::new();
    let role = match role_text.as_str() {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        "developer" => {
            metadata.insert(keys::RESPONSES_ROLE.to_string(), role_text.clone());
            Role::System
        }
        other => {
            return Err(FieldError::new(
                json::child(field, "role"),
                format!("unknown role `{}`", json::clip(other)),
            ));
        }
    };
    let content = match obj.remove("content") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(Content::Text(text)),
        Some(Value::Array(parts)) => Some(Content::Parts(canonical_parts(parts))),
        Some(other) => {
            return Err(FieldError::new(
                json::child(field, "content"),
                format!(
                    "expected a string or an array of content parts, got {}",
                    json::kind(&other)
                ),
            ));
        }
    };
    if role == Role::Assistant
        && let Some(phase) = json::take_opt_string(&mut obj, "phase", field)?
    {
        metadata.insert(keys::RESPONSES_PHASE.to_string(), phase);
    }
    Ok(Message {
        role,
        content,
        metadata,
        ..Message::default()
    })
}

/// Content parts in the canonical (chat) shape: an `input_text` or `output_text` part becomes
/// `{"type":"text","text":…}`, an `input_image` with an `image_url` becomes
/// `{"type":"image_url","image_url":{"url":…,"detail":…}}`; any other part is kept as it is.
fn canonical_parts(parts: Vec<Value>) -> Vec<Value> {
    parts.into_iter().map(canonical_part).collect()
}

/// One part of [`canonical_parts`], its strings moved, not copied.
fn canonical_part(part: Value) -> Value {
    let Value::Object(mut part) = part else {
        return part;
    };
    match part.get("type").and_then(Value::as_str) {
        Some("input_text" | "output_text") if part.get("text").is_some_and(Value::is_string) => {
            let text = part.remove("text").unwrap_or_default();
            json!({"type": "text", "text": text})
        }
        Some("input_image") if part.get("image_url").is_some_and(Value::is_string) => {
            let url = part.remove("image_url").unwrap_or_default();
            let mut image = json!({ "url": url });
            if let Some(detail) = part.remove("detail").filter(|d| !d.is_null()) {
                image["detail"] = detail;
            }
            json!({"type": "image_url", "image_url": image})
        }
        _ => Value::Object(part),
    }
}

/// The members of an input item the import reads, read in the pass that finds the item's
/// text ([`listed::read_listed`]). Each is typed as strictly as [`item`] checks it where it
/// checks it at all (a non-null `role`, a `content` or `output` that is a string or an array),
/// so that an item that reads here converts as [`item`] converts it; [`Fields::item`] leaves
/// any other case to [`item`]. Other members are walked as a `Value` parse walks them
/// ([`json::SkipValue`]), so the same texts fail.
#[derive(Default)]
struct Fields<'a> {
    /// `type`; `None` when absent or null.
    kind: Option<Cow<'a, str>>,
    /// `role`, when present.
    role: Option<Cow<'a, str>>,
    content: Option<Body>,
    phase: Option<String>,
    call_id: Option<String>,
    name: Option<String>,
    arguments: Option<String>,
    input: Option<String>,
    output: Option<Body>,
}

/// A `content` or `output`: a string, or an array of content parts.
enum Body {
    Text(String),
    Parts(Vec<Value>),
}

impl Body {
    fn into_content(self) -> Content {
        match self {
            Body::Text(text) => Content::Text(text),
            Body::Parts(parts) => Content::Parts(canonical_parts(parts)),
        }
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Body;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content parts")
            }
            fn visit_str<E>(self, v: &str) -> Result<Body, E> {
                Ok(Body::Text(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<Body, E> {
                Ok(Body::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Body, A::Error> {
                let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(part) = seq.next_element::<Value>()? {
                    parts.push(part);
                }
                Ok(Body::Parts(parts))
            }
        }
        d.deserialize_any(Visit)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Fields<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Fields<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an input item")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'a>, A::Error> {
                let mut f = Fields::default();
                let mut first = true;
                // A repeated member replaces the earlier one, as in a `Value` object.
                while let Some(json::Str(key)) = map.next_key::<json::Str<'de>>()? {
                    if first && key == json::RAW_VALUE_TOKEN {
                        return Err(serde::de::Error::custom("a raw value token"));
                    }
                    first = false;
                    match key.as_ref() {
                        "type" => f.kind = map.next_value::<Option<json::Str<'de>>>()?.map(|s| s.0),
                        "role" => f.role = Some(map.next_value::<json::Str<'de>>()?.0),
                        "content" => f.content = map.next_value()?,
                        "phase" => f.phase = map.next_value()?,
                        "call_id" => f.call_id = map.next_value()?,
                        "name" => f.name = map.next_value()?,
                        "arguments" => f.arguments = map.next_value()?,
                        "input" => f.input = map.next_value()?,
                        "output" => f.output = map.next_value()?,
                        _ => map.next_value_seed(json::SkipValue)?,
                    }
                }
                Ok(f)
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}

impl Fields<'_> {
    /// The item these fields make, as [`item`] makes it from the item's `raw` text; [`item`]
    /// itself for a case these fields do not settle (a missing or unknown field is an error
    /// there).
    fn item(
        self,
        raw: &str,
        field: &dyn Fn() -> String,
        lone: bool,
        warn: &mut dyn FnMut(Warning),
    ) -> Result<Item, FieldError> {
        let kind = match self.kind.as_deref() {
            Some(kind) => kind,
            None if self.role.is_some() => "message",
            None => {
                warn(Warning::new(format!(
                    "{}: item has no `type`, kept in the source only",
                    field()
                )));
                return Ok(Item::Opaque);
            }
        };
        match kind {
            "message" => {
                let mut metadata = BTreeMap::new();
                let role = match self.role.as_deref() {
                    Some("user") => Role::User,
                    Some("assistant") => Role::Assistant,
                    Some("system") => Role::System,
                    Some("developer") => {
                        metadata.insert(keys::RESPONSES_ROLE.to_string(), "developer".to_string());
                        Role::System
                    }
                    _ => return item(raw, &field(), lone, warn),
                };
                if role == Role::Assistant
                    && let Some(phase) = self.phase
                {
                    metadata.insert(keys::RESPONSES_PHASE.to_string(), phase);
                }
                Ok(Item::Message(Message {
                    role,
                    content: self.content.map(Body::into_content),
                    metadata,
                    ..Message::default()
                }))
            }
            "function_call" => {
                let (Some(id), Some(name), Some(arguments)) =
                    (self.call_id, self.name, self.arguments)
                else {
                    return item(raw, &field(), lone, warn);
                };
                if serde_json::from_str::<serde::de::IgnoredAny>(&arguments).is_err() {
                    warn(Warning::new(format!(
                        "{}: call {id} has arguments that are not JSON",
                        field()
                    )));
                }
                Ok(Item::Call(
                    ToolCall {
                        id,
                        name,
                        arguments,
                    },
                    false,
                ))
            }
            "custom_tool_call" => {
                let (Some(id), Some(name), Some(input)) = (self.call_id, self.name, self.input)
                else {
                    return item(raw, &field(), lone, warn);
                };
                Ok(Item::Call(custom_call(id, name, &input), true))
            }
            "function_call_output" | "custom_tool_call_output" => {
                let (Some(id), Some(output)) = (self.call_id, self.output) else {
                    return item(raw, &field(), lone, warn);
                };
                Ok(Item::Output(output_message(
                    id,
                    output.into_content(),
                    kind == "custom_tool_call_output",
                )))
            }
            _ => Ok(other_item(kind, field, warn)),
        }
    }
}
