//! The OpenHands session importer (docs/FORMATS.md, "OpenHands"): the V0 event stream (a JSON
//! array of action and observation events, as `tests/runtime/trajs` and a saved conversation
//! hold it), evaluation and resolver `output.jsonl` files (one session per line, its events
//! under `history`), the older flat events of the resolver (no `id`, `cause` or `args`) and the
//! `[action, observation]` pairs of older evaluation outputs.
//!
//! What the model saw is rebuilt as OpenHands' `ConversationMemory` builds its LLM messages:
//! the system action is the system message; a tool action is an assistant message whose text
//! and call arguments come from the recorded `model_response` where there is one (actions of
//! one response share an assistant message); an observation answers the action its `cause`
//! names (by adjacency in the flat form), rendered as the agent saw it; `finish` is the
//! assistant's closing text. Recall, state-change and null events never reached the model as
//! such and are not imported (one warning counts them).

use std::collections::HashMap;
use std::path::Path;

use rehydrate_model::{Content, Message, Role, TIMESTAMP_METADATA_KEY, ToolCall, ToolDetails};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::json::{self, FieldError};
use crate::{Error, Format, Import, SessionEntry, Warning, keys};

/// Actions that are not tool calls: the conversation's own messages and bookkeeping.
const NOT_TOOL_ACTIONS: [&str; 7] = [
    "message",
    "system",
    "finish",
    "recall",
    "change_agent_state",
    "null",
    "condensation",
];

/// Observations and actions that never reached the model as a message of their own.
const NOT_SENT: [&str; 6] = [
    "recall",
    "agent_state_changed",
    "change_agent_state",
    "null",
    "condensation",
    "agent_condensation",
];

/// What OpenHands appends to an error observation it shows the model.
const ERROR_SUFFIX: &str = "\n[Error occurred in processing last action]";

/// The header of a `cat -n` file view.
const READ_HEADER: &str = "Here's the result of running `cat -n` on ";

/// The marker of a file view OpenHands cut.
const CLIPPED: &str = "<response clipped>";

/// Whether `v`, the first element of a JSON array, is an OpenHands event or an
/// `[action, observation]` pair (detection rule 1).
pub(crate) fn is_event(v: &Value) -> bool {
    match v {
        Value::Object(o) => {
            o.get("action").is_some_and(Value::is_string)
                || o.get("observation").is_some_and(Value::is_string)
        }
        Value::Array(pair) => pair.first().is_some_and(is_event),
        _ => false,
    }
}

/// The sessions of an `output.jsonl` (one per non-empty line) or of a one-session file.
pub(crate) fn sessions(path: &Path, text: &str) -> Result<Vec<SessionEntry>, Error> {
    if !is_jsonl(text) {
        return Ok(vec![SessionEntry {
            number: 1,
            line: 1,
            label: String::new(),
        }]);
    }
    #[derive(Deserialize)]
    struct Label {
        instance_id: Option<Value>,
        issue: Option<Value>,
    }
    let mut out = Vec::new();
    for (line, session) in lines(text) {
        let label: Label =
            serde_json::from_str(session).map_err(|e| json::invalid_json(path, Some(line), &e))?;
        let label = match (label.instance_id, label.issue) {
            (Some(Value::String(id)), _) => id,
            (_, Some(issue)) => issue_label(&issue),
            _ => String::new(),
        };
        out.push(SessionEntry {
            number: out.len() + 1,
            line,
            label,
        });
    }
    Ok(out)
}

/// A resolver issue as `owner/repo#number`.
fn issue_label(issue: &Value) -> String {
    let s = |k: &str| issue.get(k).and_then(Value::as_str).unwrap_or_default();
    let number = issue
        .get("number")
        .map(Value::to_string)
        .unwrap_or_default();
    format!("{}/{}#{number}", s("owner"), s("repo"))
}

/// The non-empty lines of `text` with their 1-based numbers.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
}

/// Whether `text` is JSONL: its first non-empty line is a JSON value on its own and more lines
/// follow (a pretty-printed document opens with a line `{` or `[`, which is not).
fn is_jsonl(text: &str) -> bool {
    let mut lines = lines(text);
    let first = lines.next().map(|(_, l)| l).unwrap_or_default();
    lines.next().is_some() && serde_json::from_str::<serde::de::IgnoredAny>(first).is_ok()
}

/// Imports session `session` (1-based; `None` for a file that holds one) of an OpenHands file.
///
/// The session's document (the file, or its line) is first read in one pass with what the
/// import never reads left unbuilt ([`import_lean`]); a document that does not read so, or
/// whose events do not all convert, is read again by [`import_document`], which gives every
/// error.
pub(crate) fn import(path: &Path, text: &str, session: Option<usize>) -> Result<Import, Error> {
    let (line, document) = session_document(path, text, session)?;
    if let Some(import) = import_lean(document, line) {
        return Ok(import);
    }
    import_document(path, document, line)
}

/// [`import`] without its one-pass read.
#[cfg(test)]
pub(crate) fn import_field_by_field(
    path: &Path,
    text: &str,
    session: Option<usize>,
) -> Result<Import, Error> {
    let (line, document) = session_document(path, text, session)?;
    import_document(path, document, line)
}

/// The text of session `session` of an OpenHands file, with its line in an `output.jsonl`.
fn session_document<'t>(
    path: &Path,
    text: &'t str,
    session: Option<usize>,
) -> Result<(Option<usize>, &'t str), Error> {
    if is_jsonl(text) {
        let all: Vec<(usize, &str)> = lines(text).collect();
        let index = crate::session_index(path, Format::OpenHands, all.len(), session)?;
        // `is_jsonl` found at least two lines, so every index it gives is one of them.
        let Some(&(line, session)) = all.get(index) else {
            return Err(Error::NoSuchSession {
                path: path.to_path_buf(),
                number: index + 1,
                count: all.len(),
            });
        };
        Ok((Some(line), session))
    } else {
        crate::session_index(path, Format::OpenHands, 1, session)?;
        Ok((None, text))
    }
}

/// Imports the session `document` (at `line` of an `output.jsonl`): parsed whole into a
/// `serde_json::Value` (but for what [`Pruned`] skips), then converted event by event; errors
/// name the field.
fn import_document(path: &Path, document: &str, line: Option<usize>) -> Result<Import, Error> {
    let doc = serde_json::from_str::<Pruned>(document)
        .map_err(|e| json::invalid_json(path, line, &e))?
        .value;
    let (events, prefix) = match doc {
        Value::Array(events) => (events, String::new()),
        Value::Object(mut object) => match object.remove("history") {
            Some(Value::Array(events)) => (events, "history".to_string()),
            _ => {
                return Err(Error::NotASession {
                    path: path.to_path_buf(),
                    format: Format::OpenHands,
                    expected: "a JSON array of events, or an object with a `history` array",
                });
            }
        },
        _ => {
            return Err(Error::NotASession {
                path: path.to_path_buf(),
                format: Format::OpenHands,
                expected: "a JSON array of events, or an object with a `history` array",
            });
        }
    };
    let mut out = Out {
        line,
        ..Out::default()
    };
    for (i, event) in events.into_iter().enumerate() {
        let field = json::item(&prefix, i);
        let result = match event {
            // An `[action, observation]` pair of an older evaluation output.
            Value::Array(pair) => pair.into_iter().enumerate().try_for_each(|(k, e)| {
                let field = json::item(&field, k);
                let object = json::into_object(e, &field)?;
                out.event(object, &field)
            }),
            other => json::into_object(other, &field).and_then(|o| out.event(o, &field)),
        };
        result.map_err(|e| e.into_error(path, line))?;
    }
    Ok(out.finish())
}

/// Where a value lies in an OpenHands file, for [`Pruned`]: the parts whose members it skips.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// The document: an event array, or an `output.jsonl` line's object.
    Document,
    /// A line's `history` array.
    History,
    /// An element of the event array: an event, or an `[action, observation]` pair.
    Event,
    /// An event's `tool_call_metadata`.
    Metadata,
    /// Its `model_response`.
    Response,
}

impl Place {
    /// The place of the member `key` of an object here, `None` when it is read as a plain
    /// `Value`; `Err(())` when the import never reads it: an event's `llm_metrics` (cost and
    /// latency lists that grow with the session) and a model response's `usage`.
    fn member(self, key: &str) -> Result<Option<Place>, ()> {
        match (self, key) {
            (Place::Document, "history") => Ok(Some(Place::History)),
            (Place::Event, "llm_metrics") | (Place::Response, "usage") => Err(()),
            (Place::Event, "tool_call_metadata") => Ok(Some(Place::Metadata)),
            (Place::Metadata, "model_response") => Ok(Some(Place::Response)),
            _ => Ok(None),
        }
    }

    /// The place of an element of an array here.
    fn element(self) -> Option<Place> {
        matches!(self, Place::Document | Place::History | Place::Event).then_some(Place::Event)
    }
}

/// An OpenHands document read as `serde_json::Value` reads it, except that the members the
/// import never reads ([`Place::member`]) are skipped without being built.
struct Pruned {
    value: Value,
}

impl<'de> Deserialize<'de> for Pruned {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PrunedVisitor(Place::Document))
            .map(|value| Pruned { value })
    }
}

/// A value at a [`Place`].
struct PrunedSeed(Option<Place>);

impl<'de> serde::de::DeserializeSeed<'de> for PrunedSeed {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self.0 {
            Some(place) => d.deserialize_any(PrunedVisitor(place)),
            None => Value::deserialize(d),
        }
    }
}

/// The visitor of a value at a [`Place`].
struct PrunedVisitor(Place);

impl<'de> serde::de::Visitor<'de> for PrunedVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(PrunedSeed(self.0.element()))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match self.0.member(&key) {
                Ok(place) => {
                    let value = map.next_value_seed(PrunedSeed(place))?;
                    object.insert(key, value);
                }
                Err(()) => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(object))
    }
}

/// The import of the session `document` (at `line` of an `output.jsonl`) read in one pass:
/// each event is read as [`Pruned`] reads it but for what the import never reads, which is
/// walked without being built (a model response but its `id` and its first choice's message
/// `content` and `tool_calls`; an observation's `tool_call_metadata`), and converted at once.
/// `None` when the document does not read so (another shape, a repeated `history`, invalid
/// JSON, or a text a parse into a `Value` reads another way) or an event does not convert:
/// [`import_document`] then gives the import or its error.
fn import_lean(document: &str, line: Option<usize>) -> Option<Import> {
    let mut out = Out {
        line,
        ..Out::default()
    };
    let mut de = serde_json::Deserializer::from_str(document);
    serde::de::DeserializeSeed::deserialize(Lean::Document(&mut out), &mut de).ok()?;
    de.end().ok()?;
    Some(out.finish())
}

/// The one-pass read of [`import_lean`] at each level of the document: the document, its
/// event array (converting each event into the [`Out`] as it is read, at the field prefix),
/// and one event (at its field).
enum Lean<'o> {
    Document(&'o mut Out),
    Events(&'o mut Out, &'static str),
    Event(&'o mut Out, String),
}

impl<'de> serde::de::DeserializeSeed<'de> for Lean<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        match self {
            Lean::Events(..) => d.deserialize_seq(self),
            _ => d.deserialize_any(self),
        }
    }
}

impl<'de> serde::de::Visitor<'de> for Lean<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an OpenHands session")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        match self {
            Lean::Document(out) => Lean::Events(out, "").visit_seq(seq),
            Lean::Events(out, prefix) => {
                let mut i = 0;
                while seq
                    .next_element_seed(Lean::Event(out, json::item(prefix, i)))?
                    .is_some()
                {
                    i += 1;
                }
                Ok(())
            }
            // An `[action, observation]` pair of an older evaluation output.
            Lean::Event(out, field) => {
                let mut k = 0;
                while let Some(event) = seq.next_element_seed(LeanSeed(Spot::Event))? {
                    let Value::Object(event) = event else {
                        return Err(serde::de::Error::custom("a pair element not an object"));
                    };
                    out.event(event, &json::item(&field, k))
                        .map_err(|_| serde::de::Error::custom("an event that does not convert"))?;
                    k += 1;
                }
                Ok(())
            }
        }
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        match self {
            Lean::Document(out) => {
                let mut history = false;
                while let Some(key) = map.next_key::<String>()? {
                    if key == "history" && !history {
                        history = true;
                        map.next_value_seed(Lean::Events(&mut *out, "history"))?;
                    } else if key == "history" {
                        return Err(serde::de::Error::custom("a repeated history"));
                    } else {
                        map.next_value_seed(json::SkipValue)?;
                    }
                }
                if history {
                    Ok(())
                } else {
                    Err(serde::de::Error::custom("no history"))
                }
            }
            Lean::Event(out, field) => {
                let event = LeanVisitor(Spot::Event).visit_map(map)?;
                let Value::Object(event) = event else {
                    return Err(serde::de::Error::custom("an event not an object"));
                };
                out.event(event, &field)
                    .map_err(|_| serde::de::Error::custom("an event that does not convert"))
            }
            Lean::Events(..) => Err(serde::de::Error::custom("not an array")),
        }
    }
}

/// Where a value lies in an event, for the one-pass read ([`import_lean`]).
#[derive(Clone, Copy, PartialEq)]
enum Spot {
    /// An event.
    Event,
    /// An action's `tool_call_metadata`.
    Metadata,
    /// Its `model_response`.
    Response,
    /// The response's `choices`.
    Choices,
    /// Its first choice.
    Choice,
    /// That choice's `message`.
    Message,
}

/// A value at a [`Spot`].
struct LeanSeed(Spot);

impl<'de> serde::de::DeserializeSeed<'de> for LeanSeed {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(LeanVisitor(self.0))
    }
}

/// The visitor of a value at a [`Spot`]: what the import reads there is built as [`Pruned`]
/// builds it, the rest walked as a `Value` parse walks it ([`json::SkipValue`]) and left out;
/// a value of another type than the import reads there is built whole (an event, a
/// `tool_call_metadata`) or left out as `null` (the import reads nothing of it).
struct LeanVisitor(Spot);

impl LeanVisitor {
    /// Whether a value of the kind the import never reads into here is left out (`null`).
    fn leaves_out_others(&self) -> bool {
        matches!(
            self.0,
            Spot::Response | Spot::Choices | Spot::Choice | Spot::Message
        )
    }
}

impl<'de> serde::de::Visitor<'de> for LeanVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        match self.0 {
            // Only the first choice is read.
            Spot::Choices => {
                let first = seq.next_element_seed(LeanSeed(Spot::Choice))?;
                while seq.next_element_seed(json::SkipValue)?.is_some() {}
                Ok(Value::Array(first.into_iter().collect()))
            }
            _ if self.leaves_out_others() => {
                while seq.next_element_seed(json::SkipValue)?.is_some() {}
                Ok(Value::Null)
            }
            _ => {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(item) = seq.next_element::<Value>()? {
                    items.push(item);
                }
                Ok(Value::Array(items))
            }
        }
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let spot = self.0;
        if spot == Spot::Choices {
            // `choices` read as an object: the import finds no first choice in it.
            json::SkipValue.visit_map(map)?;
            return Ok(Value::Null);
        }
        let mut object = Map::new();
        // Whether the event is an observation, whose `tool_call_metadata` is left out.
        let mut observation = false;
        let mut left_out = false;
        while let Some(json::Str(key)) = map.next_key::<json::Str<'de>>()? {
            // A choice and its message are read by a `Value` parse, which reads an object
            // whose first key is its raw-value token another way.
            if object.is_empty()
                && matches!(spot, Spot::Choice | Spot::Message)
                && key == json::RAW_VALUE_TOKEN
            {
                return Err(serde::de::Error::custom("a raw value token"));
            }
            let inner = match (spot, key.as_ref()) {
                (Spot::Event, "llm_metrics") | (Spot::Response, "usage") => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
                (Spot::Event, "tool_call_metadata") if observation => {
                    map.next_value_seed(json::SkipValue)?;
                    left_out = true;
                    continue;
                }
                (Spot::Event, "action" | "observation") if left_out => {
                    return Err(serde::de::Error::custom("a kind after the metadata"));
                }
                (Spot::Event, "tool_call_metadata") => Some(Spot::Metadata),
                (Spot::Metadata, "model_response") => Some(Spot::Response),
                (Spot::Response, "choices") => Some(Spot::Choices),
                (Spot::Choice, "message") => Some(Spot::Message),
                (Spot::Response, "id") | (Spot::Message, "content" | "tool_calls") => None,
                (Spot::Event | Spot::Metadata, _) => None,
                _ => {
                    map.next_value_seed(json::SkipValue)?;
                    continue;
                }
            };
            let value = match inner {
                Some(spot) => map.next_value_seed(LeanSeed(spot))?,
                None => map.next_value::<Value>()?,
            };
            if spot == Spot::Event && key == "observation" {
                observation = value.is_string();
            }
            object.insert(key.into_owned(), value);
        }
        Ok(Value::Object(object))
    }
}

/// A tool call waiting for its observation.
struct Pending {
    /// The call's id.
    id: String,
    /// The tool's name.
    name: String,
    /// The action's type (`run`, `read`, `edit`, …).
    action: String,
    /// The action's arguments (its `args`, or its own fields in the flat form).
    args: Map<String, Value>,
    /// The call's arguments as the model wrote them.
    arguments: String,
    /// Whether an observation answered it.
    answered: bool,
}

/// The messages being built.
#[derive(Default)]
struct Out {
    /// The JSONL line of the session, if it is one.
    line: Option<usize>,
    messages: Vec<Message>,
    warnings: Vec<Warning>,
    /// Tool calls by their action's event id.
    by_event: HashMap<i64, usize>,
    calls: Vec<Pending>,
    /// The `model_response.id` of the last assistant message with tool calls, while the next
    /// event may still add a call to it.
    open_response: Option<String>,
    /// Events that never reached the model, by kind, with the first one's field.
    not_sent: Vec<(String, String)>,
}

impl Out {
    fn event(&mut self, mut event: Map<String, Value>, field: &str) -> Result<(), FieldError> {
        let action = json::take_opt_string(&mut event, "action", field)?;
        let observation = json::take_opt_string(&mut event, "observation", field)?;
        match (action, observation) {
            (Some(action), None) => self.action(action, event, field),
            (None, Some(observation)) => {
                self.open_response = None;
                self.observation(observation, event, field)
            }
            (Some(_), Some(_)) => Err(FieldError::new(
                field,
                "an event with both `action` and `observation`",
            )),
            (None, None) if event.is_empty() => {
                // The empty observation of a pair whose action got none.
                self.not_sent.push(("empty".to_string(), field.to_string()));
                Ok(())
            }
            (None, None) => Err(FieldError::new(
                field,
                "expected an event with an `action` or an `observation`",
            )),
        }
    }

    fn action(
        &mut self,
        action: String,
        mut event: Map<String, Value>,
        field: &str,
    ) -> Result<(), FieldError> {
        let id = event_id(&event, field)?;
        let source = json::take_opt_string(&mut event, "source", field)?;
        let timestamp = json::take_opt_string(&mut event, "timestamp", field)?;
        let message = json::take_opt_string(&mut event, "message", field)?;
        let metadata = match event.remove("tool_call_metadata") {
            None | Some(Value::Null) => None,
            Some(v) => Some(json::into_object(
                v,
                &json::child(field, "tool_call_metadata"),
            )?),
        };
        // V0 events keep their fields under `args`; the flat form has them on the event.
        let args = match event.remove("args") {
            Some(v) => json::into_object(v, &json::child(field, "args"))?,
            None => {
                for key in ["id", "cause", "timeout", "llm_metrics"] {
                    event.remove(key);
                }
                event
            }
        };
        let stamp = |m: &mut Message| {
            if let Some(t) = &timestamp {
                m.metadata
                    .insert(TIMESTAMP_METADATA_KEY.to_string(), t.clone());
            }
            if let Some(id) = id {
                m.metadata
                    .insert(keys::OPENHANDS_EVENT.to_string(), id.to_string());
            }
        };
        let text = |key: &str| {
            args.get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let response_message = metadata
            .as_ref()
            .and_then(|m| m.get("model_response"))
            .and_then(|r| r.get("choices"))
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("message"));
        let response_text = response_message
            .and_then(|m| m.get("content"))
            .map(content_string)
            .filter(|s| !s.is_empty());
        match action.as_str() {
            "system" => {
                self.open_response = None;
                let mut m = Message {
                    role: Role::System,
                    content: Some(Content::Text(
                        text("content")
                            .map(str::to_string)
                            .or(message)
                            .unwrap_or_default(),
                    )),
                    ..Message::default()
                };
                if let Some(tools) = args.get("tools").filter(|t| !t.is_null()) {
                    m.metadata
                        .insert(keys::OPENHANDS_TOOLS.to_string(), compact(tools));
                }
                stamp(&mut m);
                self.messages.push(m);
            }
            "message" => {
                self.open_response = None;
                let body = text("content")
                    .map(str::to_string)
                    .or(message)
                    .unwrap_or_default();
                let agent = source.as_deref() == Some("agent");
                let images: Vec<Value> = ["image_urls", "images_urls"]
                    .iter()
                    .filter_map(|k| args.get(*k).and_then(Value::as_array))
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(|url| serde_json::json!({"type": "image_url", "image_url": {"url": url}}))
                    .collect();
                let content = if images.is_empty() || agent {
                    Content::Text(body)
                } else {
                    let mut parts: Vec<Value> = (!body.is_empty())
                        .then(|| serde_json::json!({"type": "text", "text": body}))
                        .into_iter()
                        .collect();
                    parts.extend(images);
                    Content::Parts(parts)
                };
                let mut m = Message {
                    role: if agent { Role::Assistant } else { Role::User },
                    content: Some(content),
                    ..Message::default()
                };
                stamp(&mut m);
                self.messages.push(m);
            }
            "finish" => {
                self.open_response = None;
                let body = response_text
                    .or_else(|| text("final_thought").map(str::to_string))
                    .or_else(|| text("thought").map(str::to_string))
                    .or(message)
                    .unwrap_or_default();
                let mut m = Message {
                    role: Role::Assistant,
                    content: Some(Content::Text(body)),
                    ..Message::default()
                };
                stamp(&mut m);
                self.messages.push(m);
            }
            a if NOT_TOOL_ACTIONS.contains(&a) || source.as_deref() == Some("user") => {
                self.open_response = None;
                self.not_sent
                    .push((format!("`{}` action", json::clip(a)), field.to_string()));
            }
            _ => {
                let empty = Map::new();
                let meta = metadata.as_ref().unwrap_or(&empty);
                let call_id = match meta.get("tool_call_id") {
                    Some(Value::String(id)) => id.clone(),
                    Some(other) => {
                        return Err(FieldError::new(
                            json::child(field, "tool_call_metadata.tool_call_id"),
                            format!("expected a string, got {}", json::kind(other)),
                        ));
                    }
                    None => match id {
                        Some(id) => format!("openhands-{id}"),
                        None => format!("openhands-{}", self.calls.len()),
                    },
                };
                let name = meta
                    .get("function_name")
                    .and_then(Value::as_str)
                    .unwrap_or(&action)
                    .to_string();
                let recorded = response_message
                    .and_then(|m| m.get("tool_calls"))
                    .and_then(Value::as_array)
                    .and_then(|calls| {
                        calls
                            .iter()
                            .find(|c| c.get("id").and_then(Value::as_str) == Some(&call_id))
                    })
                    .and_then(|c| c.get("function"))
                    .and_then(|f| f.get("arguments"))
                    .and_then(Value::as_str);
                // A `think` action's thought is its argument; any other action's is the text
                // the model wrote with the call.
                let think = action == "think";
                let arguments = match recorded {
                    Some(raw) => raw.to_string(),
                    None => compact(&Members {
                        object: &args,
                        without: (!think).then_some("thought"),
                    }),
                };
                let response_id = meta
                    .get("model_response")
                    .and_then(|r| r.get("id"))
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string);
                let joins = response_id.is_some()
                    && response_id == self.open_response
                    && self
                        .messages
                        .last()
                        .is_some_and(|m| m.role == Role::Assistant && !m.tool_calls.is_empty());
                let call = ToolCall {
                    id: call_id.clone(),
                    name: name.clone(),
                    arguments: arguments.clone(),
                };
                if joins {
                    if let Some(last) = self.messages.last_mut() {
                        last.tool_calls.push(call);
                    }
                } else {
                    let body = response_text.or_else(|| {
                        (!think)
                            .then(|| text("thought").map(str::to_string))
                            .flatten()
                    });
                    let mut m = Message {
                        role: Role::Assistant,
                        content: body.map(Content::Text),
                        tool_calls: vec![call],
                        ..Message::default()
                    };
                    stamp(&mut m);
                    self.messages.push(m);
                }
                self.open_response = response_id;
                if let Some(id) = id {
                    self.by_event.insert(id, self.calls.len());
                }
                self.calls.push(Pending {
                    id: call_id,
                    name,
                    action,
                    args,
                    arguments,
                    answered: false,
                });
            }
        }
        Ok(())
    }

    fn observation(
        &mut self,
        observation: String,
        mut event: Map<String, Value>,
        field: &str,
    ) -> Result<(), FieldError> {
        let id = event_id(&event, field)?;
        let timestamp = json::take_opt_string(&mut event, "timestamp", field)?;
        let cause = match event.remove("cause") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.is_i64() => n.as_i64(),
            Some(other) => {
                return Err(FieldError::new(
                    json::child(field, "cause"),
                    format!("expected an event id, got {}", json::kind(&other)),
                ));
            }
        };
        if NOT_SENT.contains(&observation.as_str()) {
            self.not_sent.push((
                format!("`{}` observation", json::clip(&observation)),
                field.to_string(),
            ));
            return Ok(());
        }
        let content = json::take_opt_string(&mut event, "content", field)?.unwrap_or_default();
        let extras = match event.remove("extras") {
            Some(v) => json::into_object(v, &json::child(field, "extras"))?,
            // The flat form keeps them on the event.
            None => event,
        };
        let flat = id.is_none();
        // The call this observation answers: the one its cause names, or in the flat form
        // the last call when it is unanswered.
        let call = match cause {
            Some(cause) => self.by_event.get(&cause).copied(),
            None if flat => self.calls.len().checked_sub(1),
            None => None,
        }
        .filter(|&k| !self.calls[k].answered);
        let Some(k) = call else {
            let text = rendered(&observation, content, &extras);
            // OpenHands records an error for a call it could not run, and no action for the
            // call: the model saw the error as a user message.
            let what = if cause.is_some() {
                "answers no unanswered tool call"
            } else {
                "has no cause"
            };
            self.warnings.push(self.warning(format!(
                "{field}: `{}` observation {what}; imported as a user message",
                json::clip(&observation)
            )));
            let mut m = Message {
                role: Role::User,
                content: Some(Content::Text(text)),
                ..Message::default()
            };
            m.metadata
                .insert(keys::OPENHANDS_ORPHAN.to_string(), observation);
            stamp(&mut m, timestamp, id);
            self.messages.push(m);
            return Ok(());
        };
        self.calls[k].answered = true;
        let pending = &self.calls[k];
        let failed = observation == "error" || content.starts_with("ERROR:");
        let details = if failed {
            None
        } else {
            details(pending, &observation, &content, &extras)
        };
        let mut m = Message::tool_result(&pending.id, rendered(&observation, content, &extras));
        m.name = Some(pending.name.clone());
        m.details = details.map(Box::new);
        if observation == "error" {
            m.metadata.insert(
                rehydrate_model::IS_ERROR_METADATA_KEY.to_string(),
                "true".to_string(),
            );
        }
        stamp(&mut m, timestamp, id);
        self.messages.push(m);
        Ok(())
    }

    fn warning(&self, message: String) -> Warning {
        match self.line {
            Some(line) => Warning::at_line(line, message),
            None => Warning::new(message),
        }
    }

    fn finish(mut self) -> Import {
        if !self.not_sent.is_empty() {
            let mut counts: Vec<(String, usize)> = Vec::new();
            for (kind, _) in &self.not_sent {
                match counts.iter_mut().find(|(k, _)| k == kind) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((kind.clone(), 1)),
                }
            }
            let listed: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
            let warning = self.warning(format!(
                "{} events the model never saw as messages ({}; the first at {}) not imported",
                self.not_sent.len(),
                listed.join(", "),
                self.not_sent[0].1
            ));
            self.warnings.push(warning);
        }
        Import {
            format: Format::OpenHands,
            messages: self.messages,
            warnings: self.warnings,
        }
    }
}

/// `value` as compact JSON (what `Value::to_string` writes, without the formatter between).
fn compact<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// An object's members without the one named `without`, serialized as the object would be.
struct Members<'a> {
    object: &'a Map<String, Value>,
    without: Option<&'a str>,
}

impl serde::Serialize for Members<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(
            self.object
                .iter()
                .filter(|(key, _)| Some(key.as_str()) != self.without),
        )
    }
}

/// The event's `id`, when it has one (the flat form has none).
fn event_id(event: &Map<String, Value>, field: &str) -> Result<Option<i64>, FieldError> {
    match event.get("id") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.is_i64() => Ok(n.as_i64()),
        Some(other) => Err(FieldError::new(
            json::child(field, "id"),
            format!("expected an integer, got {}", json::kind(other)),
        )),
    }
}

fn stamp(m: &mut Message, timestamp: Option<String>, id: Option<i64>) {
    if let Some(t) = timestamp {
        m.metadata.insert(TIMESTAMP_METADATA_KEY.to_string(), t);
    }
    if let Some(id) = id {
        m.metadata
            .insert(keys::OPENHANDS_EVENT.to_string(), id.to_string());
    }
}

/// A chat-completion message `content`: a string, or the text of its parts.
fn content_string(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// The observation as the agent showed it to the model (OpenHands `ConversationMemory`): a
/// command's output with its prefix, suffix, working directory, interpreter and exit code; an
/// error with its closing note; an `oh_aci` edit as its formatted result, a created file as
/// OpenHands announces it; anything else as its content.
fn rendered(observation: &str, content: String, extras: &Map<String, Value>) -> String {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    match observation {
        "run" => {
            let Some(Value::Object(meta)) = extras.get("metadata") else {
                return content;
            };
            let mut out = format!(
                "{}{content}{}",
                s(meta.get("prefix")),
                s(meta.get("suffix"))
            );
            for (key, label) in [
                ("working_dir", "Current working directory"),
                ("py_interpreter_path", "Python interpreter"),
            ] {
                let value = s(meta.get(key));
                if !value.is_empty() {
                    out.push_str(&format!("\n[{label}: {value}]"));
                }
            }
            if let Some(code) = meta.get("exit_code").and_then(Value::as_i64)
                && code != -1
            {
                out.push_str(&format!("\n[Command finished with exit code {code}]"));
            }
            out
        }
        "error" => format!("{content}{ERROR_SUFFIX}"),
        "edit" => {
            if extras.get("impl_source").and_then(Value::as_str) == Some("oh_aci")
                && let Some(Value::String(shown)) = extras.get("formatted_output_and_error")
            {
                return shown.clone();
            }
            if extras.get("prev_exist") == Some(&Value::Bool(false)) {
                return format!(
                    "[New file {} is created with the provided content.]\n",
                    s(extras.get("path"))
                );
            }
            content
        }
        _ => content,
    }
}

/// What an observation proves of a file (docs/FORMATS.md, "OpenHands", "Replay details").
fn details(
    call: &Pending,
    observation: &str,
    content: &str,
    extras: &Map<String, Value>,
) -> Option<ToolDetails> {
    let path = extras
        .get("path")
        .or_else(|| call.args.get("path"))
        .and_then(Value::as_str)?
        .to_string();
    // The editor command: on the action (newer events) or in the call's arguments.
    let command = call
        .args
        .get("command")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            serde_json::from_str::<Value>(&call.arguments)
                .ok()?
                .get("command")?
                .as_str()
                .map(str::to_string)
        });
    match (observation, call.action.as_str()) {
        ("read", "read") => {
            let ranged = call.args.get("view_range").is_some_and(|v| !v.is_null())
                || call
                    .args
                    .get("start")
                    .is_some_and(|v| v.as_i64() != Some(0))
                || call.args.get("end").is_some_and(|v| v.as_i64() != Some(-1));
            if ranged || content.contains(CLIPPED) {
                return None;
            }
            let numbered = content
                .strip_prefix(READ_HEADER)?
                .strip_prefix(path.as_str())?;
            let numbered = numbered.strip_prefix(":\n")?;
            unnumbered(numbered).map(|content| ToolDetails::WholeRead { path, content })
        }
        ("edit", _) => match command.as_deref() {
            Some("create") => match extras.get("new_content") {
                Some(Value::String(text)) => Some(ToolDetails::Write {
                    path,
                    content: text.clone(),
                }),
                _ => Some(ToolDetails::UnprovenChange {
                    path,
                    reason: "a create without its recorded new content proves nothing".into(),
                }),
            },
            Some("view") => None,
            _ => Some(ToolDetails::UnprovenChange {
                path,
                reason: "an OpenHands edit records only the replaced text, not the file".into(),
            }),
        },
        _ => None,
    }
}

/// The text of a `cat -n` view (`{n:6}\t{line}` per line from 1, then a newline): the lines
/// without their numbers, joined by newlines; `None` unless every line is numbered in order.
fn unnumbered(view: &str) -> Option<String> {
    let view = view.strip_suffix('\n').unwrap_or(view);
    let mut out = String::with_capacity(view.len());
    for (k, line) in view.split('\n').enumerate() {
        let (number, text) = line.split_once('\t')?;
        if number.trim_start().parse::<usize>().ok()? != k + 1 {
            return None;
        }
        if k > 0 {
            out.push('\n');
        }
        out.push_str(text);
    }
    Some(out)
}

#[cfg(test)]
mod tests;
