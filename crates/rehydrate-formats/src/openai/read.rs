//! The OpenAI chat-completions importer: a JSON array of messages, or an object with a
//! `messages` array (docs/FORMATS.md, "Importers", "OpenAI chat completions").
//!
//! Also home of the tool-call parser shared with the SWE-agent importer, since SWE-agent writes
//! tool calls in the OpenAI shape.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use rehydrate_model::{Content, Message, Role, ToolCall};
use serde::Deserialize;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::json::{self, FieldError};
use crate::{Error, Format, Import, Warning, keys, links, listed};

/// Metadata key recording a source role that was mapped: `developer` or `function`.
const ROLE_KEY: &str = crate::keys::OPENAI_ROLE;

/// Imports an OpenAI messages document.
pub(crate) fn import(path: &Path, doc: Value) -> Result<Import, Error> {
    let (prefix, items, document) = match doc {
        Value::Array(items) => ("", items, "[]".to_string()),
        Value::Object(mut obj) => match obj.remove("messages") {
            Some(Value::Array(items)) => ("messages", items, Value::Object(obj).to_string()),
            _ => return Err(not_a_session(path)),
        },
        _ => return Err(not_a_session(path)),
    };
    let mut messages = Vec::with_capacity(items.len());
    let mut warnings = Vec::new();
    for (i, value) in items.into_iter().enumerate() {
        let field = json::item(prefix, i);
        let mut msg = message_with_source(value, &field, &mut |w| warnings.push((i, w)))
            .map_err(|e| e.into_error(path, None))?;
        if i == 0 {
            mark_document(&mut msg, document.clone());
        }
        messages.push(msg);
    }
    warnings.extend(links::check(&messages, |i| json::item(prefix, i)));
    warnings.sort_by_key(|(i, _)| *i);
    Ok(Import {
        format: Format::OpenAi,
        messages,
        warnings: warnings.into_iter().map(|(_, w)| w).collect(),
    })
}

/// Imports an OpenAI chat body from its text: first read in one pass ([`import_typed`]), else
/// parsed whole and read field by field ([`import`]), which gives every error.
pub(crate) fn import_text(path: &Path, text: &str) -> Result<Import, Error> {
    if let Some(import) = import_typed(text) {
        return Ok(import);
    }
    let doc = serde_json::from_str(text).map_err(|e| json::invalid_json(path, None, &e))?;
    import(path, doc)
}

/// The most containers an element of `messages` may nest (a parse of the whole body counts
/// the body's object and the `messages` array too; serde_json takes at most 127).
const ELEMENT_DEPTH: usize = 125;

/// The import of an object with a `messages` array read in one pass: each element in its wire
/// form ([`Wire`]) read straight into its message, any other element parsed into a `Value` and
/// converted as [`import`] converts it (its source kept). `None` when the text is not such an
/// object, nests deeper than a parse of the whole body takes, or an element does not convert:
/// [`import`] of the parsed body then gives the import or its error.
pub(crate) fn import_typed(text: &str) -> Option<Import> {
    let mut messages: Vec<Message> = Vec::new();
    let mut warnings = Vec::new();
    let top = listed::read_listed::<Wire<'_>>(text, "messages", &mut |raw, read| {
        let i = messages.len();
        let message = match read.and_then(Wire::message) {
            Some(message) => message,
            None => {
                let Ok(value) = serde_json::from_str::<Value>(raw) else {
                    return false;
                };
                if !json::depth_within(&value, ELEMENT_DEPTH) {
                    return false;
                }
                let field = json::item("messages", i);
                match message_with_source(value, &field, &mut |w| warnings.push((i, w))) {
                    Ok(message) => message,
                    Err(_) => return false,
                }
            }
        };
        messages.push(message);
        true
    })?;
    let listed::Top::Object(members) = top else {
        return None;
    };
    let mut document = Map::new();
    for (key, raw) in members {
        let value: Value = serde_json::from_str(raw.get()).ok()?;
        if !json::depth_within(&value, ELEMENT_DEPTH + 1) {
            return None;
        }
        document.insert(key, value);
    }
    if let Some(first) = messages.first_mut() {
        mark_document(first, Value::Object(document).to_string());
    }
    warnings.extend(links::check(&messages, |i| json::item("messages", i)));
    warnings.sort_by_key(|(i, _)| *i);
    Some(Import {
        format: Format::OpenAi,
        messages,
        warnings: warnings.into_iter().map(|(_, w)| w).collect(),
    })
}

/// A chat message element read only in its wire form ([`is_wire_form`]): any other key, a
/// `null`, an empty `tool_calls`, or a call not in its wire form is an error of the read, which
/// leaves the element to the field-by-field read. Content parts are values, as a parse of the
/// whole body reads them.
struct Wire<'a> {
    role: Option<Cow<'a, str>>,
    content: Option<Content>,
    tool_calls: Option<Vec<ToolCall>>,
    tool_call_id: Option<String>,
    name: Option<String>,
}

impl Wire<'_> {
    /// The message, as [`message`] makes it of the element; `None` when the element is not in
    /// its wire form after all (a role other than `system`, `user`, `assistant` and `tool`, an
    /// assistant message with neither content nor calls, an empty `tool_calls`), or a content
    /// part nests deeper than a parse of the whole body takes.
    fn message(self) -> Option<Message> {
        let role = match self.role.as_deref()? {
            "system" => Role::System,
            "user" => Role::User,
            "tool" => Role::Tool,
            "assistant" if self.content.is_some() || self.tool_calls.is_some() => Role::Assistant,
            _ => return None,
        };
        if self.tool_calls.as_ref().is_some_and(Vec::is_empty) {
            return None;
        }
        // The element, its content array and each part's containers.
        if let Some(Content::Parts(parts)) = &self.content
            && !parts
                .iter()
                .all(|p| json::depth_within(p, ELEMENT_DEPTH - 2))
        {
            return None;
        }
        Some(Message {
            role,
            content: self.content,
            tool_calls: self.tool_calls.unwrap_or_default(),
            tool_call_id: self.tool_call_id,
            name: self.name,
            ..Message::default()
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Wire<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Wire<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a chat message in its wire form")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Wire<'a>, A::Error> {
                let mut wire = Wire {
                    role: None,
                    content: None,
                    tool_calls: None,
                    tool_call_id: None,
                    name: None,
                };
                // A repeated member replaces the earlier one, as in a `Value` object.
                while let Some(json::Str(key)) = map.next_key::<json::Str<'de>>()? {
                    match key.as_ref() {
                        "role" => wire.role = Some(map.next_value::<json::Str<'de>>()?.0),
                        "content" => wire.content = Some(map.next_value::<WireContent>()?.0),
                        "tool_calls" => {
                            let calls = map.next_value::<Vec<WireCall>>()?;
                            wire.tool_calls = Some(calls.into_iter().map(|c| c.0).collect());
                        }
                        "tool_call_id" => wire.tool_call_id = Some(map.next_value()?),
                        "name" => wire.name = Some(map.next_value()?),
                        _ => return Err(serde::de::Error::custom("not in its wire form")),
                    }
                }
                Ok(wire)
            }
        }
        d.deserialize_map(Visit(PhantomData))
    }
}

/// A `content` in the wire form: a string, or content parts (values).
struct WireContent(Content);

impl<'de> Deserialize<'de> for WireContent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = WireContent;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or content parts")
            }
            fn visit_str<E>(self, v: &str) -> Result<WireContent, E> {
                Ok(WireContent(Content::Text(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<WireContent, E> {
                Ok(WireContent(Content::Text(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<WireContent, A::Error> {
                let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(part) = seq.next_element::<Value>()? {
                    parts.push(part);
                }
                Ok(WireContent(Content::Parts(parts)))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// A tool call in its wire form ([`is_wire_call`]): exactly `id`, `type` `function` and a
/// `function` of exactly a plain `name` and `arguments`, all strings.
struct WireCall(ToolCall);

impl<'de> Deserialize<'de> for WireCall {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = WireCall;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool call in its wire form")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<WireCall, A::Error> {
                let (mut id, mut typed, mut function) = (None, false, None);
                while let Some(json::Str(key)) = map.next_key::<json::Str<'de>>()? {
                    match key.as_ref() {
                        "id" => id = Some(map.next_value::<String>()?),
                        "type" => typed = map.next_value::<json::Str<'de>>()?.0 == "function",
                        "function" => function = Some(map.next_value::<WireFunction>()?),
                        _ => return Err(serde::de::Error::custom("not in its wire form")),
                    }
                }
                match (id, typed, function) {
                    (Some(id), true, Some(WireFunction { name, arguments })) => {
                        Ok(WireCall(ToolCall {
                            id,
                            name,
                            arguments,
                        }))
                    }
                    _ => Err(serde::de::Error::custom("not in its wire form")),
                }
            }
        }
        d.deserialize_map(Visit)
    }
}

/// The `function` of a [`WireCall`].
struct WireFunction {
    name: String,
    arguments: String,
}

impl<'de> Deserialize<'de> for WireFunction {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = WireFunction;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a function in its wire form")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<WireFunction, A::Error> {
                let (mut name, mut arguments) = (None, None);
                while let Some(json::Str(key)) = map.next_key::<json::Str<'de>>()? {
                    match key.as_ref() {
                        "name" => name = Some(map.next_value::<String>()?),
                        "arguments" => arguments = Some(map.next_value::<String>()?),
                        _ => return Err(serde::de::Error::custom("not in its wire form")),
                    }
                }
                match (name, arguments) {
                    (Some(name), Some(arguments)) if crate::ids::is_plain(&name) => {
                        Ok(WireFunction { name, arguments })
                    }
                    _ => Err(serde::de::Error::custom("not in its wire form")),
                }
            }
        }
        d.deserialize_map(Visit)
    }
}

/// Whether `text` is a JSON array: its first byte after JSON whitespace is `[`. Such a document
/// is read by [`import_array`].
pub(crate) fn is_array(text: &str) -> bool {
    text.trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('[')
}

/// Imports a bare messages array (see [`is_array`]) element by element: each element is parsed
/// and made a message before the next one is read, so the document never exists whole as a
/// `serde_json::Value` tree and memory stays near the size of the messages.
///
/// The result is exactly that of parsing the whole document first and then [`import`]ing it: a
/// JSON error anywhere wins over a field error (elements after a field error are still parsed,
/// then dropped), and with `detecting` an array whose first element is not an object with a
/// `role` key is an unknown format (detection rule 1), and one whose first element is a
/// Responses input item or an OpenHands event is not read: `Ok(Err(format))`, for the caller to
/// read it as [`Format::Responses`] or [`Format::OpenHands`].
///
/// Each message goes to `each` as soon as it is made; messages handed over before an error are
/// not a session. Returns the warnings.
pub(crate) fn import_array(
    path: &Path,
    text: &str,
    detecting: bool,
    each: &mut dyn FnMut(Message),
) -> Result<Result<Vec<Warning>, Format>, Error> {
    let mut array = ArrayImport {
        detecting,
        next: 0,
        each,
        warnings: Vec::new(),
        links: links::Links::default(),
        unknown: false,
        other: None,
        failed: None,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    serde::de::DeserializeSeed::deserialize(&mut array, &mut de)
        .and_then(|()| de.end())
        .map_err(|e| json::invalid_json(path, None, &e))?;
    if let Some(format) = array.other {
        return Ok(Err(format));
    }
    if array.unknown {
        return Err(Error::UnknownFormat {
            path: path.to_path_buf(),
        });
    }
    if let Some(e) = array.failed {
        return Err(e.into_error(path, None));
    }
    let mut warnings = array.warnings;
    warnings.extend(array.links.finish(|i| json::item("", i)));
    warnings.sort_by_key(|(i, _)| *i);
    Ok(Ok(warnings.into_iter().map(|(_, w)| w).collect()))
}

/// The state of [`import_array`], which serde drives one element at a time.
struct ArrayImport<'e> {
    /// Whether the format is being detected (the first element decides).
    detecting: bool,
    /// The index of the next element.
    next: usize,
    /// Takes each message.
    each: &'e mut dyn FnMut(Message),
    warnings: Vec<(usize, Warning)>,
    links: links::Links,
    /// Set when detection found an array of something other than messages.
    unknown: bool,
    /// Set when detection found an array of another format (Responses items, OpenHands
    /// events).
    other: Option<Format>,
    /// The first field error; later elements are only parsed.
    failed: Option<FieldError>,
}

impl ArrayImport<'_> {
    fn element(&mut self, value: Value) {
        let i = self.next;
        self.next += 1;
        if i == 0 && self.detecting && crate::detect::is_responses_item(&value) {
            self.other = Some(Format::Responses);
        } else if i == 0 && self.detecting && crate::openhands::is_event(&value) {
            self.other = Some(Format::OpenHands);
        } else if i == 0
            && self.detecting
            && !value.as_object().is_some_and(|o| o.contains_key("role"))
        {
            self.unknown = true;
        }
        if self.unknown || self.other.is_some() || self.failed.is_some() {
            return;
        }
        let field = json::item("", i);
        let warnings = &mut self.warnings;
        match message_with_source(value, &field, &mut |w| warnings.push((i, w))) {
            Ok(mut msg) => {
                if i == 0 {
                    mark_document(&mut msg, "[]".to_string());
                }
                self.links.add(i, &msg, |i| json::item("", i));
                (self.each)(msg);
            }
            Err(e) => self.failed = Some(e),
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for &mut ArrayImport<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for &mut ArrayImport<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON array of messages")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // Each element is parsed as a whole value first, as when the document is parsed whole,
        // so the same JSON errors come at the same places.
        while let Some(value) = seq.next_element::<Value>()? {
            self.element(value);
        }
        Ok(())
    }
}

fn not_a_session(path: &Path) -> Error {
    Error::NotASession {
        path: path.to_path_buf(),
        format: Format::OpenAi,
        expected: "a JSON array of messages or an object with a `messages` array",
    }
}

/// Marks the first message of a chat document with the document ([`keys::DOCUMENT`]: the
/// object's other members, or `[]` for a bare array) and its format.
fn mark_document(first: &mut Message, document: String) {
    first.metadata.insert(keys::DOCUMENT.to_string(), document);
    first.metadata.insert(
        keys::DOCUMENT_FORMAT.to_string(),
        Format::OpenAi.as_str().to_string(),
    );
}

/// [`message`], keeping the element as its source ([`keys::SOURCE`], a one-element JSON array
/// text, compact) unless it [`is_wire_form`]: written back, such a message is its wire form,
/// which is the same JSON value, so only the others need their source.
fn message_with_source(
    value: Value,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Result<Message, FieldError> {
    let source = (!is_wire_form(&value)).then(|| format!("[{value}]"));
    let mut msg = message(value, field, warn)?;
    if let Some(source) = source {
        msg.metadata.insert(keys::SOURCE.to_string(), source);
    }
    Ok(msg)
}

/// Whether a chat message element is exactly the wire form of the message it imports to, as
/// a JSON value ([`Message::write_wire`], as the chat body writes it): only the keys `role`
/// (`system`, `user`, `assistant` or `tool`), `content` (a string or an array of parts, not
/// null), `tool_calls` (a non-empty array of `{"id","type":"function","function":{"name",
/// "arguments"}}` with string values and names the API takes as written), `tool_call_id` and
/// `name` (strings), and not an assistant message with neither content nor tool calls (which
/// the body leaves out).
fn is_wire_form(value: &Value) -> bool {
    let Value::Object(obj) = value else {
        return false;
    };
    let string = |key: &str| obj.get(key).is_none_or(Value::is_string);
    let role = obj.get("role").and_then(Value::as_str);
    let calls = match obj.get("tool_calls") {
        None => Some(0),
        Some(Value::Array(calls)) if !calls.is_empty() => {
            calls.iter().all(is_wire_call).then_some(calls.len())
        }
        Some(_) => None,
    };
    let content = match obj.get("content") {
        None => Some(false),
        Some(Value::String(_) | Value::Array(_)) => Some(true),
        Some(_) => None,
    };
    let (Some(calls), Some(content)) = (calls, content) else {
        return false;
    };
    let known_keys = obj.keys().all(|k| {
        matches!(
            k.as_str(),
            "role" | "content" | "tool_calls" | "tool_call_id" | "name"
        )
    });
    let kept_role = match role {
        Some("system" | "user" | "tool") => true,
        Some("assistant") => content || calls > 0,
        _ => false,
    };
    known_keys && kept_role && string("tool_call_id") && string("name")
}

/// Whether a tool call element is exactly its wire form (see [`is_wire_form`]).
fn is_wire_call(call: &Value) -> bool {
    let Value::Object(call) = call else {
        return false;
    };
    let Some(Value::Object(function)) = call.get("function") else {
        return false;
    };
    call.len() == 3
        && call.get("id").is_some_and(Value::is_string)
        && call.get("type").and_then(Value::as_str) == Some("function")
        && function.len() == 2
        && function.get("arguments").is_some_and(Value::is_string)
        && function
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(crate::ids::is_plain)
}

/// The message of a source text [`message_with_source`] kept; `None` when it is not one.
pub(crate) fn decode(source: &str) -> Option<Message> {
    let [value]: [Value; 1] = serde_json::from_str(source).ok()?;
    message(value, "", &mut |_| {}).ok()
}

/// One message at `field` (such as `messages[3]`).
fn message(
    value: Value,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Result<Message, FieldError> {
    let mut obj = json::into_object(value, field)?;
    let role_text = json::take_string(&mut obj, "role", field)?;
    let mut metadata = BTreeMap::new();
    let role = match role_text.as_str() {
        "system" => Role::System,
        "developer" => {
            metadata.insert(ROLE_KEY.to_string(), role_text.clone());
            Role::System
        }
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        "function" => {
            metadata.insert(ROLE_KEY.to_string(), role_text.clone());
            Role::Tool
        }
        other => {
            return Err(FieldError::new(
                json::child(field, "role"),
                format!("unknown role `{}`", json::clip(other)),
            ));
        }
    };
    let content = take_content(&mut obj, field)?;
    let mut tool_calls = take_tool_calls(&mut obj, field, warn)?;
    if let Some(call) = obj.remove("function_call").filter(|v| !v.is_null()) {
        tool_calls.push(legacy_function_call(
            call,
            &json::child(field, "function_call"),
            warn,
        )?);
    }
    Ok(Message {
        role,
        content,
        tool_calls,
        tool_call_id: json::take_opt_string(&mut obj, "tool_call_id", field)?,
        name: json::take_opt_string(&mut obj, "name", field)?,
        observation: false,
        metadata,
        details: None,
    })
}

/// One tool call in the OpenAI shape at `field` (such as `messages[2].tool_calls[0]`):
/// `{"id":…,"type":"function","function":{"name":…,"arguments":"…"}}`.
///
/// `type` may be absent; any value other than `function` is an error. `arguments` that is JSON
/// but not a string is written as compact JSON (keys sorted) with a warning.
/// Takes `content` from a chat message object: a string, null or absent, or an array of
/// content parts (kept as they are).
pub(crate) fn take_content(
    obj: &mut Map<String, Value>,
    field: &str,
) -> Result<Option<Content>, FieldError> {
    match obj.remove("content") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(Content::Text(text))),
        Some(Value::Array(parts)) => Ok(Some(Content::Parts(parts))),
        Some(other) => Err(FieldError::new(
            json::child(field, "content"),
            format!(
                "expected a string, null or an array of content parts, got {}",
                json::kind(&other)
            ),
        )),
    }
}

/// Takes `tool_calls` from a chat message object, each in the OpenAI shape.
pub(crate) fn take_tool_calls(
    obj: &mut Map<String, Value>,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Result<Vec<ToolCall>, FieldError> {
    let calls_field = json::child(field, "tool_calls");
    json::take_opt_array(obj, "tool_calls", field)?
        .into_iter()
        .enumerate()
        .map(|(j, call)| tool_call(call, &json::item(&calls_field, j), warn))
        .collect()
}

pub(crate) fn tool_call(
    value: Value,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Result<ToolCall, FieldError> {
    let mut obj = json::into_object(value, field)?;
    let id = json::take_string(&mut obj, "id", field)?;
    if let Some(kind) = json::take_opt_string(&mut obj, "type", field)?
        && kind != "function"
    {
        return Err(FieldError::new(
            json::child(field, "type"),
            format!(
                "unsupported tool call type `{}` (expected `function`)",
                json::clip(&kind)
            ),
        ));
    }
    let function_field = json::child(field, "function");
    let function = match obj.remove("function") {
        Some(v) => json::into_object(v, &function_field)?,
        None => {
            return Err(FieldError::new(
                function_field,
                "missing (expected an object)",
            ));
        }
    };
    let (name, arguments) = name_and_arguments(function, &function_field, warn)?;
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

/// A legacy assistant `function_call` (`{"name":…,"arguments":"…"}`) as a tool call with an
/// empty id, with a warning.
fn legacy_function_call(
    value: Value,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Result<ToolCall, FieldError> {
    let obj = json::into_object(value, field)?;
    let (name, arguments) = name_and_arguments(obj, field, warn)?;
    warn(Warning::new(format!(
        "field `{field}`: legacy function call imported as a tool call with an empty id"
    )));
    Ok(ToolCall {
        id: String::new(),
        name,
        arguments,
    })
}

/// `name` and `arguments` of a function object at `field`.
pub(crate) fn name_and_arguments(
    mut function: Map<String, Value>,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Result<(String, String), FieldError> {
    let name = json::take_string(&mut function, "name", field)?;
    let arguments = match function.remove("arguments") {
        Some(Value::String(text)) => text,
        None | Some(Value::Null) => {
            return Err(FieldError::new(
                json::child(field, "arguments"),
                "missing (expected a string)",
            ));
        }
        Some(other) => {
            warn(Warning::new(format!(
                "field `{}`: arguments are {}, not a string; written as compact JSON",
                json::child(field, "arguments"),
                json::kind(&other)
            )));
            other.to_string()
        }
    };
    Ok((name, arguments))
}
