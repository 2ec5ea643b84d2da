//! The Gemini CLI chat session importer (docs/FORMATS.md, "Gemini CLI"): the legacy session
//! document (`{sessionId, projectHash, startTime, lastUpdated, messages}`) and the JSONL form
//! Gemini CLI writes since 2026-04 (a metadata line, then message records that a later record
//! with the same `id` replaces, `{"$set":…}` updates and `{"$rewindTo":id}` truncations).
//!
//! What the model saw is rebuilt as Gemini CLI rebuilds its API history
//! (`convertSessionToClientHistory`): `info`, `error` and `warning` records and the user's
//! slash commands never reached the model and are not imported (one warning says how many);
//! a `gemini` record is the model's turn, and its tool calls are answered by one tool message
//! each. A record that holds the calls of several model rounds (Gemini CLI appends a round's
//! calls to the last `gemini` record) is split at each change of the calls' `timestamp`: the
//! calls of one round are recorded together, with one timestamp, and each round is answered
//! before the next assistant message.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rehydrate_model::{Content, Message, Role, TIMESTAMP_METADATA_KEY, ToolCall, ToolDetails};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::json::{self, FieldError};
use crate::{Error, Format, Import, Warning, keys};

/// Record types that never reach the model.
const NOT_SENT_TYPES: [&str; 3] = ["info", "error", "warning"];

/// What Gemini CLI writes before the project context it appends to a `read_file` output.
const JIT_CONTEXT: &str = "--- Newly Discovered Project Context ---";

/// The prefix of a `read_file` output that Gemini CLI cut.
const READ_TRUNCATED: &str = "IMPORTANT: The file content has been truncated.";

/// Imports a Gemini CLI session from its text (either form).
///
/// A legacy document is first read straight into the fields the import uses ([`Doc`], typed
/// as strictly as the import checks them), which skips the rest (tool descriptions, display
/// names) without building values for it; a document that does not read so, or whose records
/// do not convert, is read again as a `serde_json::Value`, whose errors name the field.
pub(crate) fn import(path: &Path, text: &str) -> Result<Import, Error> {
    if let Ok(mut doc) = serde_json::from_str::<Doc>(text) {
        let mut out = Out {
            session: [
                doc.session_id.take(),
                doc.project_hash.take(),
                doc.start_time.take(),
                doc.last_updated.take(),
                doc.summary.take(),
                doc.kind.take(),
                doc.directories.take(),
            ]
            .into_iter()
            .zip(SESSION_FIELDS)
            .filter_map(|(v, k)| v.map(|v| (k.to_string(), v)))
            .collect(),
            ..Out::default()
        };
        let converted = doc
            .messages
            .into_iter()
            .enumerate()
            .try_for_each(|(i, fields)| out.convert(fields, &|| json::item("messages", i), None));
        if converted.is_ok() {
            return out.finish();
        }
    }
    let (records, session) = match document(text) {
        Some(doc) => from_document(path, doc.map_err(|e| json::invalid_json(path, None, &e))?)?,
        None => from_jsonl(path, text)?,
    };
    let mut out = Out {
        session,
        ..Out::default()
    };
    for record in records {
        out.record(record)
            .map_err(|e| e.error.into_error(path, e.line))?;
    }
    out.finish()
}

/// A legacy session document, read only for its records.
#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(borrow)]
    messages: Vec<Fields<'a>>,
    #[serde(rename = "sessionId", default)]
    session_id: Option<Value>,
    #[serde(rename = "projectHash", default)]
    project_hash: Option<Value>,
    #[serde(rename = "startTime", default)]
    start_time: Option<Value>,
    #[serde(rename = "lastUpdated", default)]
    last_updated: Option<Value>,
    #[serde(default)]
    summary: Option<Value>,
    #[serde(default)]
    kind: Option<Value>,
    #[serde(default)]
    directories: Option<Value>,
}

/// The session fields [`keys::GEMINI_SESSION`] keeps, in the order Gemini CLI writes them.
pub(crate) const SESSION_FIELDS: [&str; 7] = [
    "sessionId",
    "projectHash",
    "startTime",
    "lastUpdated",
    "summary",
    "kind",
    "directories",
];

/// The session fields of a document or JSONL metadata line (`object`'s members named by
/// [`SESSION_FIELDS`], `null` ones left out).
fn session_fields(object: &Map<String, Value>) -> Map<String, Value> {
    SESSION_FIELDS
        .iter()
        .filter_map(|&k| {
            object
                .get(k)
                .filter(|v| !v.is_null())
                .map(|v| (k.to_string(), v.clone()))
        })
        .collect()
}

/// The fields of a record the import reads. Read from the document by serde, every field is
/// typed at least as strictly as [`Fields::of`] checks it, so what reads here converts as the
/// field-by-field read would; a field of no fixed type is a `Value` that the conversion checks.
#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    content: Option<ContentField>,
    #[serde(rename = "toolCalls", default, borrow)]
    tool_calls: Option<Vec<Call<'a>>>,
    #[serde(default)]
    thoughts: Option<Value>,
    #[serde(default)]
    tokens: Option<Value>,
    #[serde(default)]
    model: Option<String>,
}

/// The fields of a tool call the import reads, as [`Fields`].
#[derive(Deserialize)]
struct Call<'a> {
    id: String,
    name: String,
    #[serde(borrow)]
    args: Args<'a>,
    #[serde(default)]
    result: Option<ResultField>,
    #[serde(default)]
    status: Option<Value>,
    #[serde(default)]
    timestamp: Option<Value>,
    /// The `newContent` string of the call's `resultDisplay` (what a write or replace left in
    /// the file), when it has one.
    #[serde(rename = "resultDisplay", default, deserialize_with = "new_content")]
    new_content: Option<String>,
}

/// The `newContent` string of a `resultDisplay`; `None` for a display of any other shape (a
/// string, an object without it), whose other fields are skipped without being built.
fn new_content<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct Visit;
    impl<'de> serde::de::Visitor<'de> for Visit {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any value")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Option<String>, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "newContent" {
                    found = match map.next_value::<Value>()? {
                        Value::String(text) => Some(text),
                        _ => None,
                    };
                } else {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            Ok(found)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            seq: A,
        ) -> Result<Option<String>, A::Error> {
            json::skip_seq(seq).map(|()| None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Option<String>, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Visit)
}

/// The `newContent` string of a `resultDisplay` read as a `Value`, as [`new_content`] reads it.
fn new_content_of(display: Option<Value>) -> Option<String> {
    match display? {
        Value::Object(mut map) => match map.remove("newContent")? {
            Value::String(text) => Some(text),
            _ => None,
        },
        _ => None,
    }
}

/// A record's `content`: the shapes Gemini CLI writes most, typed (a string, a list of text
/// parts), or any value the field-by-field read gave, which [`parts`] checks.
enum ContentField {
    Text(String),
    TextParts(Vec<String>),
    Value(Value),
}

/// A call's `result`: a list of `functionResponse` parts each with an `output` or `error`
/// string (what Gemini CLI records for a tool that returned text), or any value the
/// field-by-field read gave.
enum ResultField {
    Responses(Vec<Response>),
    Value(Value),
}

/// The `response` of a `functionResponse`: its `output`, else its `error`.
enum Response {
    Output(String),
    Error(String),
}

/// A text part with nothing else: `{"text": …}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextPart {
    text: String,
}

/// A result part with nothing but its `functionResponse`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResponsePart {
    #[serde(rename = "functionResponse")]
    function_response: FunctionResponse,
}

/// A `functionResponse` without `parts`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionResponse {
    #[serde(default)]
    #[allow(dead_code)]
    id: serde::de::IgnoredAny,
    #[serde(default)]
    #[allow(dead_code)]
    name: serde::de::IgnoredAny,
    response: ResponseFields,
}

/// A `response` object's `output` and `error` (other keys ignored, as the field-by-field read
/// ignores them when either is a string).
#[derive(Deserialize)]
struct ResponseFields {
    #[serde(default)]
    output: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

impl<'de> Deserialize<'de> for ContentField {
    /// Only a string or a list of [`TextPart`]s; any other shape is an error, so that the
    /// document is read again field by field.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = ContentField;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or a list of text parts")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ContentField, E> {
                Ok(ContentField::Text(v.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<ContentField, E> {
                Ok(ContentField::Text(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<ContentField, A::Error> {
                let mut texts = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(part) = seq.next_element::<TextPart>()? {
                    texts.push(part.text);
                }
                Ok(ContentField::TextParts(texts))
            }
        }
        d.deserialize_any(Visit)
    }
}

impl<'de> Deserialize<'de> for ResultField {
    /// Only a list of [`ResponsePart`]s whose response has an `output` or `error` string; any
    /// other shape is an error, so that the document is read again field by field.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let parts = Vec::<ResponsePart>::deserialize(d)?;
        let mut responses = Vec::with_capacity(parts.len());
        for part in parts {
            let ResponseFields { output, error } = part.function_response.response;
            responses.push(match (output, error) {
                (Some(output), _) => Response::Output(output),
                (None, Some(error)) => Response::Error(error),
                (None, None) => {
                    return Err(serde::de::Error::custom(
                        "a response without output or error",
                    ));
                }
            });
        }
        Ok(ResultField::Responses(responses))
    }
}

/// `value` as compact JSON (what `Value::to_string` writes, without the formatter between).
fn compact<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A present field that is not `null`.
fn non_null(v: Option<Value>) -> Option<Value> {
    v.filter(|v| !v.is_null())
}

/// A call's `args` object: the raw text of each member (read from the document), or the
/// object read as a `Value`.
enum Args<'a> {
    Raw(BTreeMap<String, &'a RawValue>),
    Value(Map<String, Value>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Args<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        BTreeMap::<String, &'a RawValue>::deserialize(d).map(Args::Raw)
    }
}

impl Args<'_> {
    /// The arguments as the tool call's `arguments`: the compact JSON of the object, keys
    /// sorted (what `Value::to_string` writes), either way it was read.
    fn arguments(&self) -> String {
        match self {
            Args::Raw(members) => json::write_members(members),
            Args::Value(object) => compact(object),
        }
    }

    /// The string member `key`; `None` when it is absent or not a string.
    fn string(&self, key: &str) -> Option<String> {
        match self {
            Args::Raw(members) => {
                let raw = members.get(key)?.get();
                serde_json::from_str::<String>(raw).ok()
            }
            Args::Value(object) => object.get(key)?.as_str().map(str::to_string),
        }
    }

    /// Whether member `key` is present (`null` included).
    fn has(&self, key: &str) -> bool {
        match self {
            Args::Raw(members) => members.contains_key(key),
            Args::Value(object) => object.contains_key(key),
        }
    }

    /// Whether member `key` is present and not `null`.
    fn is_set(&self, key: &str) -> bool {
        match self {
            Args::Raw(members) => members
                .get(key)
                .is_some_and(|raw| raw.get().trim() != "null"),
            Args::Value(object) => object.get(key).is_some_and(|v| !v.is_null()),
        }
    }
}

impl Fields<'_> {
    /// The fields of a record read as a `Value`, checked only as far as its type uses them (a
    /// record never sent to the model is not checked at all); errors name the field.
    fn of(value: Value, field: &str) -> Result<Fields<'static>, FieldError> {
        let mut object = json::into_object(value, field)?;
        let kind = json::take_string(&mut object, "type", field)?;
        let mut fields = Fields {
            kind,
            timestamp: None,
            content: None,
            tool_calls: None,
            thoughts: None,
            tokens: None,
            model: None,
        };
        let user = fields.kind == "user";
        if !user && fields.kind != "gemini" {
            return Ok(fields);
        }
        fields.content = non_null(object.remove("content")).map(ContentField::Value);
        fields.timestamp = json::take_opt_string(&mut object, "timestamp", field)?;
        if user {
            return Ok(fields);
        }
        let calls_field = json::child(field, "toolCalls");
        let calls = json::take_opt_array(&mut object, "toolCalls", field)?;
        let mut typed = Vec::with_capacity(calls.len());
        for (k, call) in calls.into_iter().enumerate() {
            let call_field = json::item(&calls_field, k);
            let mut call = json::into_object(call, &call_field)?;
            let id = json::take_string(&mut call, "id", &call_field)?;
            let name = json::take_string(&mut call, "name", &call_field)?;
            let args = match call.remove("args") {
                Some(Value::Object(args)) => Args::Value(args),
                None => {
                    return Err(FieldError::new(
                        json::child(&call_field, "args"),
                        "missing (expected an object)",
                    ));
                }
                Some(other) => {
                    return Err(FieldError::new(
                        json::child(&call_field, "args"),
                        format!("expected an object, got {}", json::kind(&other)),
                    ));
                }
            };
            typed.push(Call {
                id,
                name,
                args,
                result: non_null(call.remove("result")).map(ResultField::Value),
                status: non_null(call.remove("status")),
                timestamp: non_null(call.remove("timestamp")),
                new_content: new_content_of(call.remove("resultDisplay")),
            });
        }
        fields.tool_calls = Some(typed);
        fields.model = json::take_opt_string(&mut object, "model", field)?;
        fields.thoughts = non_null(object.remove("thoughts"));
        fields.tokens = non_null(object.remove("tokens"));
        Ok(fields)
    }
}

/// A message record with where it came from: its field path (`messages[3]`) and, for JSONL,
/// its line.
struct Record {
    field: String,
    line: Option<usize>,
    value: Value,
}

/// The whole text as one JSON document, when it is one; `None` for the JSONL form, whose first
/// non-empty line is a JSON value on its own and is followed by more lines. (A pretty-printed
/// document opens with a line `{`, so a truncated one is reported as a document, where the
/// parser's line is the one that broke.)
fn document(text: &str) -> Option<Result<Value, serde_json::Error>> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or_default();
    let jsonl =
        lines.next().is_some() && serde_json::from_str::<serde::de::IgnoredAny>(first).is_ok();
    (!jsonl).then(|| serde_json::from_str(text))
}

/// The message records of a legacy session document.
fn from_document(path: &Path, doc: Value) -> Result<(Vec<Record>, Map<String, Value>), Error> {
    let not_a_session = || Error::NotASession {
        path: path.to_path_buf(),
        format: Format::GeminiCli,
        expected: "a JSON object with a `messages` array, or JSONL records",
    };
    let Value::Object(mut doc) = doc else {
        return Err(not_a_session());
    };
    let messages = match doc.remove("messages") {
        Some(Value::Array(messages)) => messages,
        // The metadata line of a JSONL session that has no record yet.
        None if doc.contains_key("sessionId") => Vec::new(),
        _ => return Err(not_a_session()),
    };
    let records = messages
        .into_iter()
        .enumerate()
        .map(|(i, value)| Record {
            field: json::item("messages", i),
            line: None,
            value,
        })
        .collect();
    Ok((records, session_fields(&doc)))
}

/// The message records of the JSONL form, as its last state: a record replaces the earlier
/// one with its `id` in place, `$set.messages` replaces them all, `$rewindTo` drops the message
/// it names and every later one.
fn from_jsonl(path: &Path, text: &str) -> Result<(Vec<Record>, Map<String, Value>), Error> {
    let mut session = Map::new();
    let mut records: Vec<Record> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut first_line = true;
    for (i, line) in text.split('\n').enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(line).map_err(|e| json::invalid_json(path, Some(number), &e))?;
        let Value::Object(mut object) = value else {
            return Err(
                FieldError::new("(line)", "expected a JSON object").into_error(path, Some(number))
            );
        };
        if let Some(set) = object.remove("$set") {
            let Value::Object(mut set) = set else {
                return Err(
                    FieldError::new("$set", "expected an object").into_error(path, Some(number))
                );
            };
            for key in SESSION_FIELDS {
                match set.get(key) {
                    None => {}
                    Some(Value::Null) => {
                        session.remove(key);
                    }
                    Some(value) => {
                        session.insert(key.to_string(), value.clone());
                    }
                }
            }
            if let Some(messages) = set.remove("messages") {
                let Value::Array(messages) = messages else {
                    return Err(FieldError::new("$set.messages", "expected an array")
                        .into_error(path, Some(number)));
                };
                records.clear();
                by_id.clear();
                for (k, value) in messages.into_iter().enumerate() {
                    push(
                        &mut records,
                        &mut by_id,
                        Record {
                            field: json::item("$set.messages", k),
                            line: Some(number),
                            value,
                        },
                    );
                }
            }
            continue;
        }
        if let Some(target) = object.remove("$rewindTo") {
            let Value::String(target) = target else {
                return Err(FieldError::new("$rewindTo", "expected a message id")
                    .into_error(path, Some(number)));
            };
            let Some(&at) = by_id.get(&target) else {
                return Err(FieldError::new(
                    "$rewindTo",
                    format!("no message with id `{}` to rewind to", json::clip(&target)),
                )
                .into_error(path, Some(number)));
            };
            records.truncate(at);
            by_id.retain(|_, &mut k| k < at);
            continue;
        }
        if !object.contains_key("type") && first_line {
            // The metadata line (sessionId, projectHash, …): no message.
            session = session_fields(&object);
            first_line = false;
            continue;
        }
        first_line = false;
        push(
            &mut records,
            &mut by_id,
            Record {
                field: String::new(),
                line: Some(number),
                value: Value::Object(object),
            },
        );
    }
    Ok((records, session))
}

/// Appends `record`, or replaces the earlier record with its `id` in place.
fn push(records: &mut Vec<Record>, by_id: &mut HashMap<String, usize>, record: Record) {
    let id = record
        .value
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string);
    match id.as_ref().and_then(|id| by_id.get(id)) {
        Some(&k) => records[k] = record,
        None => {
            if let Some(id) = id {
                by_id.insert(id, records.len());
            }
            records.push(record);
        }
    }
}

/// The messages being built.
#[derive(Default)]
struct Out {
    messages: Vec<Message>,
    warnings: Vec<Warning>,
    /// Records that never reached the model, by type (`info`, `error`, `warning`, `command`).
    not_sent: Vec<(String, String)>,
    /// Whether a write's details name a relative path (only then are paths resolved).
    relative_writes: bool,
    /// The session's own fields ([`keys::GEMINI_SESSION`]).
    session: Map<String, Value>,
}

impl Out {
    /// Converts a record read as a `Value` ([`Fields::of`], then [`Out::convert`]).
    fn record(&mut self, record: Record) -> Result<(), LocatedError> {
        let Record { field, line, value } = record;
        let located = |e: FieldError| LocatedError { error: e, line };
        let fields = Fields::of(value, &field).map_err(located)?;
        self.convert(fields, &|| field.clone(), line)
            .map_err(located)
    }

    /// Converts one record's fields; `field` names the record (`messages[3]`, or empty for a
    /// JSONL line), built only for an error, a warning or the count of records not sent.
    fn convert(
        &mut self,
        fields: Fields,
        field: &dyn Fn() -> String,
        line: Option<usize>,
    ) -> Result<(), FieldError> {
        match fields.kind.as_str() {
            "user" => self.user(fields, field, line),
            "gemini" => self.gemini(fields, field, line),
            k => {
                let kind = if NOT_SENT_TYPES.contains(&k) {
                    k.to_string()
                } else {
                    format!("of type `{}`", json::clip(k))
                };
                self.not_sent.push((kind, place(&field(), line)));
                Ok(())
            }
        }
    }

    fn user(
        &mut self,
        fields: Fields,
        field: &dyn Fn() -> String,
        line: Option<usize>,
    ) -> Result<(), FieldError> {
        let content = match fields.content {
            Some(ContentField::Text(text) | ContentField::Value(Value::String(text)))
                if text.starts_with('/') || text.starts_with('?') =>
            {
                self.not_sent
                    .push(("command".to_string(), place(&field(), line)));
                return Ok(());
            }
            Some(ContentField::Text(text) | ContentField::Value(Value::String(text)))
                if !text.is_empty() =>
            {
                Content::Text(text)
            }
            content => {
                let parts = content_parts(content, &|| json::child(&field(), "content"))?;
                let text = content_text(&parts);
                let command = text.starts_with('/') || text.starts_with('?');
                if parts.is_empty() || command {
                    self.not_sent.push((
                        if command { "command" } else { "empty" }.to_string(),
                        place(&field(), line),
                    ));
                    return Ok(());
                }
                Content::Parts(parts)
            }
        };
        let mut m = Message {
            role: Role::User,
            content: Some(content),
            ..Message::default()
        };
        stamp(&mut m, fields.timestamp);
        self.messages.push(m);
        Ok(())
    }

    fn gemini(
        &mut self,
        fields: Fields,
        field: &dyn Fn() -> String,
        line: Option<usize>,
    ) -> Result<(), FieldError> {
        // The text the model wrote (thought and call parts are read from `thoughts` and
        // `toolCalls`).
        let text = match fields.content {
            Some(ContentField::Text(text) | ContentField::Value(Value::String(text))) => text,
            Some(ContentField::TextParts(texts)) => texts.concat(),
            content => {
                let content_field = || json::child(&field(), "content");
                let parts = content_parts(content, &content_field)?;
                let other = parts
                    .iter()
                    .filter(|p| p.get("type").and_then(Value::as_str) != Some("text"))
                    .count();
                if other > 0 {
                    self.warnings.push(at(
                        line,
                        format!(
                            "{}: {other} non-text parts of the model's message not imported",
                            content_field()
                        ),
                    ));
                }
                content_text(&parts)
            }
        };
        let mut metadata = std::collections::BTreeMap::new();
        if let Some(model) = fields.model {
            metadata.insert(keys::GEMINI_MODEL.to_string(), model);
        }
        for (key, name, value, want_array) in [
            ("tokens", keys::GEMINI_TOKENS, fields.tokens, false),
            ("thoughts", keys::GEMINI_THOUGHTS, fields.thoughts, true),
        ] {
            match value {
                None | Some(Value::Null) => {}
                Some(Value::Array(items)) if want_array => {
                    if !items.is_empty() {
                        metadata.insert(name.to_string(), compact(&items));
                    }
                }
                Some(Value::Object(map)) if !want_array => {
                    metadata.insert(name.to_string(), compact(&map));
                }
                Some(other) => {
                    return Err(FieldError::new(
                        json::child(&field(), key),
                        format!(
                            "expected {}, got {}",
                            if want_array { "an array" } else { "an object" },
                            json::kind(&other)
                        ),
                    ));
                }
            }
        }
        let mut first = Message {
            role: Role::Assistant,
            content: (!text.is_empty()).then_some(Content::Text(text)),
            metadata,
            ..Message::default()
        };
        stamp(&mut first, fields.timestamp);
        let calls = fields.tool_calls.unwrap_or_default();
        if calls.is_empty() {
            self.messages.push(first);
            return Ok(());
        }
        // The rounds: runs of calls with one timestamp, each `(first index, calls)`.
        let mut rounds: Vec<(usize, Vec<Call>)> = Vec::new();
        for (k, call) in calls.into_iter().enumerate() {
            match rounds.last_mut() {
                Some((_, round)) if round.last().map(|c| &c.timestamp) == Some(&call.timestamp) => {
                    round.push(call)
                }
                _ => rounds.push((k, vec![call])),
            }
        }
        if rounds.len() > 1 {
            self.warnings.push(at(
                line,
                format!(
                    "{}: tool calls of {} model rounds in one record; split at each change of their timestamp",
                    field(),
                    rounds.len()
                ),
            ));
        }
        let mut assistant = Some(first);
        for (start, round) in rounds {
            let mut message = assistant.take().unwrap_or_else(|| Message {
                role: Role::Assistant,
                ..Message::default()
            });
            message.tool_calls.reserve(round.len());
            let mut results = Vec::with_capacity(round.len());
            for (k, call) in (start..).zip(round) {
                let call_field = || json::item(&json::child(&field(), "toolCalls"), k);
                message.tool_calls.push(ToolCall {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.args.arguments(),
                });
                if let Some(result) = result_message(call, &call_field)? {
                    self.relative_writes |= matches!(
                        result.details.as_deref(),
                        Some(ToolDetails::Write { path, .. }) if !path.starts_with('/')
                    );
                    results.push(result);
                }
            }
            self.messages.push(message);
            self.messages.extend(results);
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Import, Error> {
        if self.relative_writes {
            resolve_relative_paths(&mut self.messages);
        }
        if let Some(first) = self.messages.first_mut()
            && !self.session.is_empty()
        {
            first
                .metadata
                .insert(keys::GEMINI_SESSION.to_string(), compact(&self.session));
        }
        if !self.not_sent.is_empty() {
            let mut counts: Vec<(String, usize)> = Vec::new();
            for (kind, _) in &self.not_sent {
                match counts.iter_mut().find(|(k, _)| k == kind) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((kind.clone(), 1)),
                }
            }
            let listed: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
            let first = &self.not_sent[0].1;
            self.warnings.push(Warning::new(format!(
                "{} records the model never saw ({}; the first at {first}) not imported",
                self.not_sent.len(),
                listed.join(", ")
            )));
        }
        Ok(Import {
            format: Format::GeminiCli,
            messages: self.messages,
            warnings: self.warnings,
        })
    }
}

/// A field error with the JSONL line it is on.
struct LocatedError {
    error: FieldError,
    line: Option<usize>,
}

/// Where a record is, for the warning that counts what was not imported: its line (JSONL) or
/// its field (`messages[3]`).
fn place(field: &str, line: Option<usize>) -> String {
    line.map_or_else(|| field.to_string(), |l| format!("line {l}"))
}

fn at(line: Option<usize>, message: String) -> Warning {
    match line {
        Some(line) => Warning::at_line(line, message),
        None => Warning::new(message),
    }
}

/// `time` (a record's or call's `timestamp`) as the message's.
fn stamp(m: &mut Message, time: Option<String>) {
    if let Some(time) = time {
        m.metadata.insert(TIMESTAMP_METADATA_KEY.to_string(), time);
    }
}

/// A `PartListUnion` (a string, a part, or an array of strings and parts) as canonical content
/// parts: text as `{"type":"text","text"}`, an image `inlineData` as an Anthropic base64
/// image block, any other part kept as it is under `{"type":"gemini_part","part":…}`.
fn parts(content: Option<Value>, field: &dyn Fn() -> String) -> Result<Vec<Value>, FieldError> {
    let (items, listed) = match content {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::String(s)) if s.is_empty() => return Ok(Vec::new()),
        Some(Value::Array(items)) => (items, true),
        Some(other) => (vec![other], false),
    };
    let mut out = Vec::with_capacity(items.len());
    for (k, item) in items.into_iter().enumerate() {
        match item {
            Value::String(text) => out.push(text_part(text)),
            Value::Object(part) => {
                if let Some(Value::String(text)) = part.get("text")
                    && part.get("thought") != Some(&Value::Bool(true))
                {
                    out.push(text_part(text.clone()));
                } else if let Some(Value::Object(data)) = part.get("inlineData")
                    && let (Some(Value::String(mime)), Some(Value::String(b64))) =
                        (data.get("mimeType"), data.get("data"))
                    && mime.starts_with("image/")
                {
                    out.push(serde_json::json!({
                        "type": "image",
                        "source": {"type": "base64", "media_type": mime, "data": b64}
                    }));
                } else if part.contains_key("functionCall")
                    || part.get("thought") == Some(&Value::Bool(true))
                {
                    // The model's own calls and thoughts: read from `toolCalls` and
                    // `thoughts`, not sent as content.
                } else {
                    out.push(
                        serde_json::json!({"type": "gemini_part", "part": Value::Object(part)}),
                    );
                }
            }
            other => {
                return Err(FieldError::new(
                    if listed {
                        json::item(&field(), k)
                    } else {
                        field()
                    },
                    format!(
                        "expected a string or a part object, got {}",
                        json::kind(&other)
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// [`parts`] of a content field of either read.
fn content_parts(
    content: Option<ContentField>,
    field: &dyn Fn() -> String,
) -> Result<Vec<Value>, FieldError> {
    match content {
        None => Ok(Vec::new()),
        Some(ContentField::TextParts(texts)) => Ok(texts.into_iter().map(text_part).collect()),
        Some(ContentField::Text(text)) => parts(Some(Value::String(text)), field),
        Some(ContentField::Value(value)) => parts(Some(value), field),
    }
}

fn text_part(text: String) -> Value {
    serde_json::json!({"type": "text", "text": text})
}

/// The text parts of `parts`, joined.
fn content_text(parts: &[Value]) -> String {
    parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("")
}

/// The tool message answering call `id`: the `output` (or `error`) of its `functionResponse`
/// parts, other result parts (an image a read returned) kept as parts; `None` when the record
/// holds no result (a call cancelled before it ran is left unanswered, as Gemini CLI leaves
/// it).
fn result_message(call: Call, field: &dyn Fn() -> String) -> Result<Option<Message>, FieldError> {
    let Call {
        id,
        name,
        args,
        result,
        status,
        timestamp,
        new_content,
    } = call;
    let result_field = || json::child(&field(), "result");
    let string = |value: Option<Value>, key: &str| match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(FieldError::new(
            json::child(&field(), key),
            format!("expected a string, got {}", json::kind(&other)),
        )),
    };
    let status = string(status, "status")?;
    let mut texts = Vec::new();
    let mut extra = Vec::new();
    let mut failed = status.as_deref() == Some("error");
    // Whether the result is exactly one `output` string: only such a result proves a file.
    let mut outputs = 0;
    let mut respond = |response: Response, texts: &mut Vec<String>| match response {
        Response::Output(text) => {
            outputs += 1;
            texts.push(text);
        }
        Response::Error(text) => {
            failed = true;
            texts.push(text);
        }
    };
    let items = match result {
        None | Some(ResultField::Value(Value::Null)) => return Ok(None),
        // The typed read of the common shape: as the loop below reads it.
        Some(ResultField::Responses(responses)) => {
            for response in responses {
                respond(response, &mut texts);
            }
            Vec::new()
        }
        Some(ResultField::Value(Value::Array(items))) => items,
        Some(ResultField::Value(other)) => vec![other],
    };
    for (j, mut part) in items.into_iter().enumerate() {
        if let Some(response) = part
            .as_object_mut()
            .and_then(|p| p.remove("functionResponse"))
        {
            let fr_field = || json::child(&json::item(&result_field(), j), "functionResponse");
            let mut response = json::into_object(response, &fr_field())?;
            // Newer Gemini CLI puts the parts a tool returned (an image a read gave) here.
            extra.extend(json::take_opt_array(&mut response, "parts", &fr_field())?);
            let response_field = json::child(&fr_field(), "response");
            let mut response = match response.remove("response") {
                Some(v) => json::into_object(v, &response_field)?,
                None => Map::new(),
            };
            if let Some(output) = json::take_opt_string(&mut response, "output", &response_field)? {
                respond(Response::Output(output), &mut texts);
            } else if let Some(error) =
                json::take_opt_string(&mut response, "error", &response_field)?
            {
                respond(Response::Error(error), &mut texts);
            } else {
                texts.push(compact(&response));
            }
            continue;
        }
        match part {
            Value::String(s) => texts.push(s),
            Value::Object(mut p) if p.get("text").is_some_and(Value::is_string) => {
                texts.push(
                    json::metadata_text(p.remove("text").unwrap_or_default()).unwrap_or_default(),
                );
            }
            other => extra.push(other),
        }
    }
    let plain = outputs == 1 && texts.len() == 1 && extra.is_empty();
    let text = if texts.len() == 1 {
        texts.pop().unwrap_or_default()
    } else {
        texts.join("\n")
    };
    let timestamp = string(timestamp, "timestamp")?;
    let details = if failed {
        None
    } else {
        details(&name, &args, &text, plain, new_content)
    };
    let mut m = Message::tool_result(id, String::new());
    m.name = Some(name);
    m.details = details.map(Box::new);
    if extra.is_empty() {
        m.content = Some(Content::Text(text));
    } else {
        // No empty text part: the Anthropic API refuses one in a tool result.
        let mut all: Vec<Value> = (!text.is_empty())
            .then(|| text_part(text))
            .into_iter()
            .collect();
        all.extend(parts(Some(Value::Array(extra)), &result_field)?);
        m.content = Some(Content::Parts(all));
    }
    if failed {
        m.metadata.insert(
            rehydrate_model::IS_ERROR_METADATA_KEY.to_string(),
            "true".to_string(),
        );
    }
    if let Some(status) = status {
        m.metadata.insert(keys::GEMINI_STATUS.to_string(), status);
    }
    stamp(&mut m, timestamp);
    Ok(Some(m))
}

/// Makes the relative paths of the messages' details absolute when the session names its
/// project root: a `write_file` result says the absolute path it wrote (`Successfully …
/// file: /root/dir/a.md.`), so a call that named `dir/a.md` shows the root is `/root`. Paths
/// stay relative (and replay leaves them alone) when no write names the root.
fn resolve_relative_paths(messages: &mut [Message]) {
    let root = messages.iter().find_map(|m| {
        let Some(ToolDetails::Write { path, .. }) = m.details.as_deref() else {
            return None;
        };
        let relative = path.strip_prefix("./").unwrap_or(path);
        if relative.starts_with('/') {
            return None;
        }
        let text = m.content_text()?;
        let (_, absolute) = text.split_once(" file: ")?;
        let absolute = absolute.lines().next()?.trim_end().trim_end_matches('.');
        let root = absolute.strip_suffix(relative)?.strip_suffix('/')?;
        root.starts_with('/').then(|| root.to_string())
    });
    let Some(root) = root else {
        return;
    };
    for m in messages {
        let Some(details) = m.details.as_deref_mut() else {
            continue;
        };
        let path = match details {
            ToolDetails::WholeRead { path, .. }
            | ToolDetails::Write { path, .. }
            | ToolDetails::UnprovenChange { path, .. } => path,
            _ => continue,
        };
        if !path.starts_with('/') {
            *path = normalize(&format!("{root}/{path}"));
        }
    }
}

/// An absolute path with its `.` and `..` components resolved lexically (`/a/b/../c` is
/// `/a/c`), as the file system would name it without symlinks.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// What a successful call proves of a file (docs/FORMATS.md, "Gemini CLI", "Replay details").
fn details(
    name: &str,
    args: &Args<'_>,
    output: &str,
    plain: bool,
    new_content: Option<String>,
) -> Option<ToolDetails> {
    if !matches!(name, "read_file" | "write_file" | "replace" | "edit") {
        return None;
    }
    let path = if args.has("file_path") {
        args.string("file_path")
    } else {
        args.string("absolute_path")
    }?;
    match name {
        "read_file" => {
            let ranged = ["offset", "limit", "start_line", "end_line"]
                .iter()
                .any(|k| args.is_set(k));
            // Only a plain text output is the file: not a binary read (its data in other
            // parts), not one Gemini CLI cut, nor one it appended project context to.
            let whole = plain
                && !ranged
                && !output.starts_with(READ_TRUNCATED)
                && memchr::memmem::find(output.as_bytes(), JIT_CONTEXT.as_bytes()).is_none();
            whole.then(|| ToolDetails::WholeRead {
                path,
                content: output.to_string(),
            })
        }
        "write_file" => {
            // What was written: the diff's new content when recorded (the tool may correct
            // the content, or the person edit it), else the argument of a plain success.
            if let Some(content) = new_content {
                return Some(ToolDetails::Write { path, content });
            }
            let plain = output.starts_with("Successfully created and wrote to new file")
                || output.starts_with("Successfully overwrote file");
            let modified = output.contains("User modified the `content`");
            match args.string("content") {
                Some(content) if plain && !modified => Some(ToolDetails::Write { path, content }),
                _ => Some(ToolDetails::UnprovenChange {
                    path,
                    reason: "the write_file result does not prove the content written".into(),
                }),
            }
        }
        "replace" | "edit" => Some(match new_content {
            Some(content) => ToolDetails::Write { path, content },
            None => ToolDetails::UnprovenChange {
                path,
                reason: "a replace without its recorded new content proves nothing".into(),
            },
        }),
        _ => None,
    }
}
