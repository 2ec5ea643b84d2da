//! Python values to and from the crates' types: messages and logs in, dicts and lists out.
//!
//! In: a message list is read element by element straight from the Python objects
//! (`pythonize`, no JSON text), so an error names the element (`new_messages[3]: missing field
//! `role``). Out: a batch of values is written as one JSON text and read by one `json.loads`.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PySequence, PyString, PyTuple};
use rehydrate::model::Content;
use rehydrate::{Message, ReductionLog, Role};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::InputError;

/// `value` (a Python object of the documented shape) as a `T`; `what` names the argument in
/// the error.
pub(crate) fn value<T: DeserializeOwned>(value: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    if !within_depth(value) {
        return Err(InputError::new_err(format!(
            "{what}: nests deeper than {MAX_DEPTH} levels of dicts and lists"
        )));
    }
    pythonize::depythonize(value).map_err(|e| InputError::new_err(format!("{what}: {e}")))
}

/// The deepest nesting of dicts, lists and tuples a value may have (serde_json's own limit
/// when it parses text): reading deeper would recurse past the stack.
pub(crate) const MAX_DEPTH: usize = 128;

/// Whether `value` nests at most [`MAX_DEPTH`] levels of dicts, lists and tuples; walked
/// without recursion, strings and numbers not looked into.
pub(crate) fn within_depth(value: &Bound<'_, PyAny>) -> bool {
    let mut stack = vec![(value.clone(), 1usize)];
    while let Some((v, depth)) = stack.pop() {
        let children: Vec<Bound<'_, PyAny>> = if let Ok(d) = v.cast::<PyDict>() {
            d.values().iter().collect()
        } else if let Ok(l) = v.cast::<PyList>() {
            l.iter().collect()
        } else if let Ok(t) = v.cast::<PyTuple>() {
            t.iter().collect()
        } else {
            continue;
        };
        if depth > MAX_DEPTH {
            return false;
        }
        stack.extend(children.into_iter().map(|c| (c, depth + 1)));
    }
    true
}

/// Refuses a message dict's `content` that is neither a `str`, `None` nor a list of content
/// part dicts (`bytes` would be read as a list of numbers).
fn check_content(item: &Bound<'_, PyAny>, what: &str, index: usize) -> PyResult<()> {
    let Ok(dict) = item.cast::<PyDict>() else {
        return Ok(());
    };
    let Some(content) = dict.get_item("content")? else {
        return Ok(());
    };
    if content.is_none() || content.is_instance_of::<PyString>() {
        return Ok(());
    }
    let parts = content
        .cast::<PyList>()
        .map(|l| l.iter().collect::<Vec<_>>())
        .or_else(|_| content.cast::<PyTuple>().map(|t| t.iter().collect()));
    match parts {
        Ok(parts) => match parts.iter().position(|p| !p.is_instance_of::<PyDict>()) {
            None => Ok(()),
            Some(k) => Err(InputError::new_err(format!(
                "{what}[{index}]: content part {k} must be a dict, got {}",
                type_name(&parts[k])
            ))),
        },
        Err(_) => Err(InputError::new_err(format!(
            "{what}[{index}]: content must be a str, a list of content part dicts or None, got {}",
            type_name(&content)
        ))),
    }
}

/// One message dict, read field by field: strings are copied once, straight from the Python
/// objects. Anything this path does not read the way serde would (a key it does not know, a
/// value of another type, a missing role) is read by [`value`] instead, which gives the same
/// message or serde's error: the fast path only decides how fast, never what.
fn message(item: &Bound<'_, PyAny>, what: &str, index: usize) -> PyResult<Message> {
    check_content(item, what, index)?;
    match fast_message(item) {
        Some(message) => Ok(message),
        None => value(item, &format!("{what}[{index}]")),
    }
}

/// [`message`]'s fast path; `None` where it hands over.
fn fast_message(item: &Bound<'_, PyAny>) -> Option<Message> {
    let dict = item.cast::<PyDict>().ok()?;
    let mut m = Message::default();
    let mut role = false;
    for (key, value) in dict.iter() {
        let key = key.cast_into::<PyString>().ok()?;
        match key.to_str().ok()? {
            "role" => {
                m.role = match value.cast::<PyString>().ok()?.to_str().ok()? {
                    "system" => Role::System,
                    "user" => Role::User,
                    "assistant" => Role::Assistant,
                    "tool" => Role::Tool,
                    _ => return None,
                };
                role = true;
            }
            "content" if value.is_none() => m.content = None,
            "content" => {
                m.content = Some(match value.cast::<PyString>() {
                    Ok(text) => Content::Text(text.to_str().ok()?.to_owned()),
                    Err(_) if within_depth(&value) => pythonize::depythonize(&value).ok()?,
                    Err(_) => return None,
                });
            }
            "tool_calls" if within_depth(&value) => {
                m.tool_calls = pythonize::depythonize(&value).ok()?;
            }
            "tool_call_id" => m.tool_call_id = optional_text(&value)?,
            "name" => m.name = optional_text(&value)?,
            "observation" => m.observation = value.cast::<PyBool>().ok()?.is_true(),
            "metadata" => {
                for (k, v) in value.cast::<PyDict>().ok()?.iter() {
                    let k = k.cast::<PyString>().ok()?.to_str().ok()?.to_owned();
                    let v = v.cast::<PyString>().ok()?.to_str().ok()?.to_owned();
                    m.metadata.insert(k, v);
                }
            }
            "details" if value.is_none() => m.details = None,
            "details" if within_depth(&value) => {
                m.details = Some(pythonize::depythonize(&value).ok()?);
            }
            _ => return None,
        }
    }
    role.then_some(m)
}

/// A `str` or `None`; `None` (hand over) for anything else.
fn optional_text(value: &Bound<'_, PyAny>) -> Option<Option<String>> {
    if value.is_none() {
        return Some(None);
    }
    Some(Some(
        value.cast::<PyString>().ok()?.to_str().ok()?.to_owned(),
    ))
}

/// `_read_messages(messages, fast)`: the messages as [`messages`] reads them (`fast`) or as serde
/// reads them through `pythonize` alone (after the same content check), written back as dicts:
/// the test suite checks that the two agree.
#[pyfunction]
pub(crate) fn _read_messages(
    py: Python<'_>,
    messages: &Bound<'_, PyAny>,
    fast: bool,
) -> PyResult<Py<PyAny>> {
    let read = if fast {
        self::messages(messages, "messages")?
    } else {
        let sequence = messages.cast::<PySequence>()?;
        (0..sequence.len()?)
            .map(|i| {
                let item = sequence.get_item(i)?;
                check_content(&item, "messages", i)?;
                value(&item, &format!("messages[{i}]"))
            })
            .collect::<PyResult<Vec<Message>>>()?
    };
    to_py(py, &read)
}

/// The messages of `list` (any sequence of dicts), each read on its own so an error names
/// its index: `what[i]: message`.
pub(crate) fn messages(list: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Message>> {
    let sequence = list.cast::<PySequence>().map_err(|_| {
        InputError::new_err(format!(
            "{what}: expected a list of message dicts, got {}",
            type_name(list)
        ))
    })?;
    let len = sequence.len()?;
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        let item = sequence.get_item(i)?;
        out.push(message(&item, what, i)?);
    }
    Ok(out)
}

/// The optional log argument: an empty log when `None`.
pub(crate) fn log(log: Option<&Bound<'_, PyAny>>) -> PyResult<ReductionLog> {
    match log {
        Some(log) if !log.is_none() => value(log, "log"),
        _ => Ok(ReductionLog::default()),
    }
}

/// The Python type name of `value`, for errors.
pub(crate) fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// `json.loads`, looked up once.
fn json_loads(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static LOADS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    LOADS
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("json")?.getattr("loads")?.unbind())
        })
        .map(|loads| loads.bind(py))
}

/// `value` as a Python object, by its JSON form and `json.loads`.
pub(crate) fn to_py<T: Serialize + ?Sized>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| InputError::new_err(format!("cannot write JSON: {e}")))?;
    Ok(json_loads(py)?.call1((text,))?.unbind())
}

/// The JSON text `json` as a Python object.
pub(crate) fn json_to_py(py: Python<'_>, json: &str) -> PyResult<Py<PyAny>> {
    Ok(json_loads(py)?.call1((json,))?.unbind())
}

/// The dicts of `messages`, by one JSON array and one `json.loads`.
pub(crate) fn dicts<'a>(
    py: Python<'_>,
    messages: impl IntoIterator<Item = &'a Message>,
) -> PyResult<Vec<Py<PyAny>>> {
    let messages: Vec<&Message> = messages.into_iter().collect();
    if messages.is_empty() {
        return Ok(Vec::new());
    }
    let list = to_py(py, &messages)?;
    list.bind(py)
        .try_iter()?
        .map(|dict| dict.map(Bound::unbind))
        .collect()
}

/// The Python form of a reducer's view, kept between projections so each turn converts only
/// what changed: a history message's dict is made once, when it arrives (the history only
/// grows: `View::entries`), and a stub's or repair's dict is kept while the view shows the same
/// message at the same position. Every view list is new; the dicts in it are shared with the
/// lists made before and after (docs/PYTHON.md, "Values").
#[derive(Default)]
pub(crate) struct ViewCache {
    /// The dict of each history message known so far, by history index: the dict the host
    /// passed in, or one converted from the history.
    history: Vec<Py<PyAny>>,
    /// By view position: the message of a non-history entry last shown there, and its dict.
    derived: Vec<Option<(Message, Py<PyAny>)>>,
}

impl ViewCache {
    /// Takes the dicts the host passed for the messages just appended to the history: they
    /// are the history's dicts from now on (read, not copied). `history_len` is the history's
    /// length before they were appended.
    pub(crate) fn adopt(&mut self, list: &Bound<'_, PyAny>, history_len: usize) -> PyResult<()> {
        if self.history.len() != history_len {
            // Not caught up: the dicts are made from the history when next asked.
            return Ok(());
        }
        let sequence = list.cast::<PySequence>()?;
        for i in 0..sequence.len()? {
            self.history.push(sequence.get_item(i)?.unbind());
        }
        Ok(())
    }

    /// `view` (over `history`) as a new list of dicts.
    pub(crate) fn view<'py>(
        &mut self,
        py: Python<'py>,
        view: rehydrate::View<'_>,
        history: &[Message],
    ) -> PyResult<Bound<'py, PyList>> {
        self.catch_up(py, history)?;
        let mut stale = Vec::new();
        let mut items: Vec<Option<Py<PyAny>>> = Vec::with_capacity(view.len());
        for (position, (index, message)) in view.entries().enumerate() {
            let item = match index {
                Some(i) => Some(self.history[i].clone_ref(py)),
                None => match self.derived.get(position) {
                    Some(Some((kept, dict))) if kept == message => Some(dict.clone_ref(py)),
                    _ => {
                        stale.push((position, message));
                        None
                    }
                },
            };
            items.push(item);
        }
        if self.derived.len() < items.len() {
            self.derived.resize_with(items.len(), || None);
        }
        let made = dicts(py, stale.iter().map(|&(_, m)| m))?;
        for ((position, message), dict) in stale.into_iter().zip(made) {
            items[position] = Some(dict.clone_ref(py));
            self.derived[position] = Some((message.clone(), dict));
        }
        PyList::new(py, items.into_iter().flatten())
    }

    /// The history as a new list of dicts.
    pub(crate) fn history<'py>(
        &mut self,
        py: Python<'py>,
        history: &[Message],
    ) -> PyResult<Bound<'py, PyList>> {
        self.catch_up(py, history)?;
        PyList::new(py, self.history.iter().map(|d| d.clone_ref(py)))
    }

    /// Converts the history messages that arrived without dicts since the last call.
    fn catch_up(&mut self, py: Python<'_>, history: &[Message]) -> PyResult<()> {
        let new = dicts(py, &history[self.history.len().min(history.len())..])?;
        self.history.extend(new);
        Ok(())
    }
}
