//! The SWE-agent `.traj` importer: the `history` array of a trajectory file
//! (docs/FORMATS.md, "Importers", "SWE-agent").
//!
//! In function-calling runs, a tool result answering a call of the editor `str_replace_editor`
//! gets [`Message::details`] from the call's arguments and the observation
//! ([`crate::swe_agent_editor`], docs/FORMATS.md, "SWE-agent", "Editor details").
//! Runs without function calling (the action only a text such as `str_replace_editor create …`,
//! or SWE-agent 0.x commands such as `open` and `edit 5:7`) and demonstration entries get no
//! details.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

use rehydrate_model::{Content, Message, Role, ToolDetails};
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::json::{self, FieldError, Skip, scalars_return, seed_via_any, skip_map, skip_seq};
use crate::{Error, Format, Import, Warning, links, openai, swe_agent_editor};

/// Entry fields copied into metadata, each under its key (`swe_agent.<field>`).
const METADATA_KEYS: [(&str, &str); 4] = [
    ("agent", crate::keys::SWE_AGENT_AGENT),
    ("message_type", crate::keys::SWE_AGENT_MESSAGE_TYPE),
    ("thought", crate::keys::SWE_AGENT_THOUGHT),
    ("action", crate::keys::SWE_AGENT_ACTION),
];

/// Imports a SWE-agent trajectory document from its text.
///
/// The `history` array is read entry by entry: each entry is parsed as a `serde_json::Value`
/// and made a message before the next one is read, and every other key is walked without being
/// kept, so the document never exists whole as a `Value` tree. The result is exactly that of
/// parsing the whole document first: a JSON error anywhere wins over the document's shape and
/// over a field error, and of a `history` key given twice the last counts (the entries of an
/// earlier one are read, then dropped).
pub(crate) fn import(path: &Path, text: &str) -> Result<Import, Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let history = DocSeed
        .deserialize(&mut de)
        .and_then(|history| de.end().map(|()| history))
        .map_err(|e| json::invalid_json(path, None, &e))?;
    match history {
        Some(history) => history.finish(path),
        None => Err(not_a_session(path)),
    }
}

/// The history of a trajectory as it is read, entry by entry.
#[derive(Default)]
struct History {
    messages: Vec<Message>,
    /// Each with the index of the entry it is about.
    warnings: Vec<(usize, Warning)>,
    /// Whether an assistant message has been seen, among demonstration entries and among the
    /// others: a user message is an observation only after an assistant message of its own
    /// kind.
    assistant_seen: bool,
    demo_assistant_seen: bool,
    /// The latest tool call with each id, outside demonstrations: (message index, call index).
    calls: HashMap<String, (usize, usize)>,
    /// The index of the next entry.
    next: usize,
    /// The first field error; the entries after it are only parsed.
    failed: Option<FieldError>,
}

impl History {
    /// Takes the next entry.
    fn entry(&mut self, value: Value) {
        let i = self.next;
        self.next += 1;
        if self.failed.is_some() {
            return;
        }
        let field = json::item("history", i);
        let warnings = &mut self.warnings;
        let entry = match entry(value, &field, &mut |w| warnings.push((i, w))) {
            Ok(entry) => entry,
            Err(e) => {
                self.failed = Some(e);
                return;
            }
        };
        let seen = if entry.is_demo {
            &mut self.demo_assistant_seen
        } else {
            &mut self.assistant_seen
        };
        let mut msg = entry.message;
        match msg.role {
            Role::Assistant => {
                *seen = true;
                if !entry.is_demo {
                    for (j, call) in msg.tool_calls.iter().enumerate() {
                        self.calls.insert(call.id.clone(), (self.messages.len(), j));
                    }
                }
            }
            Role::User => {
                msg.observation = *seen
                    && entry
                        .message_type
                        .as_deref()
                        .is_none_or(|t| t == "observation");
            }
            Role::Tool if !entry.is_demo => {
                msg.details = editor_details(
                    &self.messages,
                    &self.calls,
                    &entry.call_ids,
                    msg.content.as_ref(),
                )
                .map(Box::new);
            }
            Role::System | Role::Tool => {}
        }
        self.messages.push(msg);
    }

    /// The import, or the first field error.
    fn finish(self, path: &Path) -> Result<Import, Error> {
        if let Some(e) = self.failed {
            return Err(e.into_error(path, None));
        }
        let mut warnings = self.warnings;
        warnings.extend(links::check(&self.messages, |i| json::item("history", i)));
        warnings.sort_by_key(|(i, _)| *i);
        Ok(Import {
            format: Format::SweAgent,
            messages: self.messages,
            warnings: warnings.into_iter().map(|(_, w)| w).collect(),
        })
    }
}

/// The document: its (last) `history` when it is an object with a `history` array, `None`
/// otherwise.
struct DocSeed;

seed_via_any!(DocSeed);

/// Implements the visitor methods of every value but arrays and objects as returning `None`.
macro_rules! scalars_are_none {
    () => {
        scalars_return!(None);
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
    };
}

impl<'de> Visitor<'de> for DocSeed {
    type Value = Option<History>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_are_none!();
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        skip_seq(seq).map(|()| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut history = None;
        while let Some(key) = map.next_key_seed(HistoryKey)? {
            if key {
                history = map.next_value_seed(HistorySeed)?;
            } else {
                map.next_value_seed(Skip)?;
            }
        }
        Ok(history)
    }
}

/// Whether an object key is `history`.
struct HistoryKey;

seed_via_any!(HistoryKey);

impl<'de> Visitor<'de> for HistoryKey {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        Ok(v == "history")
    }
}

/// A `history` value: the history read from it when it is an array.
struct HistorySeed;

seed_via_any!(HistorySeed);

impl<'de> Visitor<'de> for HistorySeed {
    type Value = Option<History>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_are_none!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut history = History::default();
        // Each entry is parsed as a whole value first, as when the document is parsed whole,
        // so the same JSON errors come at the same places.
        while let Some(value) = seq.next_element::<Value>()? {
            history.entry(value);
        }
        Ok(Some(history))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        skip_map(map).map(|()| None)
    }
}

/// The details of a tool result answering the calls `ids` with `content`, when one of them is
/// a call of the editor in `calls` (message and call index into `messages`).
///
/// A result answering one editor call is read as that call's observation. A result answering
/// several calls (SWE-agent writes one id per result) cannot be attributed to one of them: the
/// first editor call that may have changed a file gets an unproven change.
fn editor_details(
    messages: &[Message],
    calls: &HashMap<String, (usize, usize)>,
    ids: &[String],
    content: Option<&Content>,
) -> Option<ToolDetails> {
    let editor_arguments = |id: &String| {
        let &(i, j) = calls.get(id)?;
        let call = messages.get(i)?.tool_calls.get(j)?;
        (call.name == swe_agent_editor::TOOL_NAME).then_some(call.arguments.as_str())
    };
    match ids {
        [id] => {
            let text = match content {
                Some(Content::Text(text)) => Some(text.as_str()),
                Some(Content::Parts(_)) | None => None,
            };
            swe_agent_editor::details(editor_arguments(id)?, text)
        }
        _ => ids
            .iter()
            .filter_map(editor_arguments)
            .find_map(|arguments| swe_agent_editor::details(arguments, None)),
    }
}

fn not_a_session(path: &Path) -> Error {
    Error::NotASession {
        path: path.to_path_buf(),
        format: Format::SweAgent,
        expected: "a JSON object with a `history` array",
    }
}

/// One history entry, before the observation flag is decided.
struct Entry {
    message: Message,
    /// `message_type`, if a string.
    message_type: Option<String>,
    /// `is_demo: true`.
    is_demo: bool,
    /// Every id of `tool_call_ids`, or the `tool_call_id`; the first is the message's.
    call_ids: Vec<String>,
}

/// One history entry at `field` (such as `history[3]`).
fn entry(value: Value, field: &str, warn: &mut dyn FnMut(Warning)) -> Result<Entry, FieldError> {
    let mut obj = json::into_object(value, field)?;
    let role_text = json::take_string(&mut obj, "role", field)?;
    let role = match role_text.as_str() {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => {
            return Err(FieldError::new(
                json::child(field, "role"),
                format!("unknown role `{}`", json::clip(other)),
            ));
        }
    };
    let content = openai::take_content(&mut obj, field)?.map(|c| match c {
        Content::Parts(parts) => parts_content(parts),
        text @ Content::Text(_) => text,
    });
    let tool_calls = openai::take_tool_calls(&mut obj, field, warn)?;
    let call_ids = tool_call_ids(&mut obj, field, warn)?;
    let is_demo = obj.get("is_demo").and_then(Value::as_bool) == Some(true);
    let message_type = obj
        .get("message_type")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut metadata = BTreeMap::new();
    for (field, key) in METADATA_KEYS {
        if let Some(text) = obj.remove(field).and_then(json::metadata_text) {
            metadata.insert(key.to_string(), text);
        }
    }
    if is_demo {
        metadata.insert(
            crate::keys::SWE_AGENT_IS_DEMO.to_string(),
            "true".to_string(),
        );
    }
    Ok(Entry {
        message: Message {
            role,
            content,
            tool_calls,
            tool_call_id: call_ids.first().cloned(),
            name: None,
            observation: false,
            metadata,
            details: None,
        },
        message_type,
        is_demo,
        call_ids,
    })
}

/// Content given as a list of parts: the texts concatenated with no separator when every part
/// is `{"type":"text","text":…}` (SWE-agent splits one string into parts, for prompt caching or
/// around images), the parts as they are otherwise.
fn parts_content(parts: Vec<Value>) -> Content {
    let all_text = parts.iter().all(|p| {
        p.get("type").and_then(Value::as_str) == Some("text")
            && p.get("text").is_some_and(Value::is_string)
    });
    if !all_text {
        return Content::Parts(parts);
    }
    let text: String = parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    Content::Text(text)
}

/// The tool call ids of an entry: every string of `tool_call_ids` (a warning when there are
/// more than one, since only the first becomes the message's `tool_call_id`), or a
/// `tool_call_id` string.
fn tool_call_ids(
    obj: &mut serde_json::Map<String, Value>,
    field: &str,
    warn: &mut dyn FnMut(Warning),
) -> Result<Vec<String>, FieldError> {
    let ids_field = json::child(field, "tool_call_ids");
    let ids = json::take_opt_array(obj, "tool_call_ids", field)?
        .into_iter()
        .enumerate()
        .map(|(j, id)| match id {
            Value::String(id) => Ok(id),
            other => Err(FieldError::new(
                json::item(&ids_field, j),
                format!("expected a string, got {}", json::kind(&other)),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if ids.len() > 1 {
        warn(Warning::new(format!(
            "field `{ids_field}`: {} ids, only the first is used as tool_call_id",
            ids.len()
        )));
    }
    if !ids.is_empty() {
        return Ok(ids);
    }
    Ok(json::take_opt_string(obj, "tool_call_id", field)?
        .into_iter()
        .collect())
}
