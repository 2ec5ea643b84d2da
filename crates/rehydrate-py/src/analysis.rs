//! The analysis functions: transcript replay (`rehydrate_replay`), evidence projection
//! (`rehydrate_evidence`) and divergence signals (`rehydrate_signals`).
//!
//! A transcript comes in as the bytes of a session file (imported here, any format the crates
//! read) or as a list of canonical message dicts; results go out as plain dicts and lists, the
//! crate's serde JSON form where it has one.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};
use rehydrate::Message;
use rehydrate::evidence::{DEFAULT_MAX_INPUT_BYTES, EvidenceOptions};
use rehydrate::formats::Format;
use rehydrate::model::{Digest, SessionEvent};
use rehydrate::replay::{FileRecord, PathState, Replay, Staleness, Step};
use rehydrate::signals::{CompactionSignals, Decision, Summary};
use rehydrate::store::{SessionStore, SyncPolicy};
use serde_json::{Value, json};

use crate::convert::{self, type_name};
use crate::policy::{size, text};
use crate::{EvidenceError, FormatsError, InputError, SessionError, SignalsError};

/// The bytes of `value` when it is `bytes` or `bytearray`.
fn bytes_of<'a>(value: &'a Bound<'_, PyAny>) -> Option<Cow<'a, [u8]>> {
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Some(Cow::Borrowed(bytes.as_bytes()));
    }
    value
        .cast::<PyByteArray>()
        .ok()
        .map(|array| Cow::Owned(array.to_vec()))
}

/// The optional `format` argument: a format name or `None`.
fn format_arg(format: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Format>> {
    match format {
        Some(f) if !f.is_none() => Format::from_str(&text("format", f)?)
            .map(Some)
            .map_err(|e| InputError::new_err(format!("format: {e}"))),
        _ => Ok(None),
    }
}

/// The `name` argument (how errors name the bytes): `"<bytes>"` when `None`.
fn name_arg(name: Option<&Bound<'_, PyAny>>) -> PyResult<PathBuf> {
    match name {
        Some(n) if !n.is_none() => text("name", n).map(PathBuf::from),
        _ => Ok(PathBuf::from("<bytes>")),
    }
}

/// A path argument: a `str` or an `os.PathLike`.
pub(crate) fn path_arg(value: &Bound<'_, PyAny>, what: &str) -> PyResult<PathBuf> {
    value.extract::<PathBuf>().map_err(|_| {
        InputError::new_err(format!(
            "{what}: expected a str or os.PathLike path, got {}",
            type_name(value)
        ))
    })
}

/// Refuses `format` given with a list (it names the format of a file's bytes only).
fn no_format_for_a_list(format: Option<Format>, what: &str) -> PyResult<()> {
    match format {
        Some(_) => Err(InputError::new_err(format!(
            "format: given with a list as {what}; it names the format of a session file's bytes"
        ))),
        None => Ok(()),
    }
}

/// A list argument (a sequence, not a `str`), or an `InputError` saying what `expected` is.
fn list_arg<'a, 'py>(
    value: &'a Bound<'py, PyAny>,
    what: &str,
    expected: &str,
) -> PyResult<&'a Bound<'py, PyAny>> {
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        Ok(value)
    } else {
        Err(InputError::new_err(format!(
            "{what}: expected {expected}, got {}",
            type_name(value)
        )))
    }
}

/// What a `data_or_…` argument holds: the bytes of a session file, imported by `import`
/// (named by `name`, read as `format` or detected), or a list of dicts, each read by `each`
/// (`format` must then be absent). `what` names the argument and `expected` its two forms in
/// errors.
#[allow(clippy::too_many_arguments)] // the argument's parts, its names, and its two readers
fn bytes_or_list<T: Send, E: std::fmt::Display + Send>(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    format: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
    what: &str,
    expected: &str,
    import: impl FnOnce(&Path, &[u8], Option<Format>) -> Result<Vec<T>, E> + Send,
    each: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<Vec<T>>,
) -> PyResult<Vec<T>> {
    let format = format_arg(format)?;
    let name = name_arg(name)?;
    if let Some(data) = bytes_of(source) {
        return py
            .detach(|| import(&name, &data, format))
            .map_err(|e| FormatsError::new_err(e.to_string()));
    }
    let list = list_arg(source, what, expected)?;
    no_format_for_a_list(format, what)?;
    each(list)
}

/// The messages of a transcript argument: the bytes of a session file, imported
/// (`rehydrate_formats::import`), or a list of message dicts.
fn transcript(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    format: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Message>> {
    const WHAT: &str = "data_or_messages";
    bytes_or_list(
        py,
        source,
        format,
        name,
        WHAT,
        "the bytes of a session file or a list of message dicts",
        |name, data, format| {
            rehydrate::formats::import(name, data, format).map(|imported| imported.messages)
        },
        |list| convert::messages(list, WHAT),
    )
}

/// `file_records(data_or_messages, format=None, name="<bytes>") -> list[dict]`: per absolute
/// path, the last whole content the transcript proves, sorted by path; each record
/// `{"path", "content", "digest", "at", "index"}` (`rehydrate_replay::file_records`).
#[pyfunction]
#[pyo3(signature = (data_or_messages, format=None, name=None))]
pub(crate) fn file_records(
    py: Python<'_>,
    data_or_messages: &Bound<'_, PyAny>,
    format: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let messages = transcript(py, data_or_messages, format, name)?;
    let records = py.detach(|| rehydrate::replay::file_records(&messages));
    convert::to_py(py, &records)
}

/// What one message did, as a dict; `None` for a message replay ignores.
fn step_json(index: usize, step: Step) -> Option<Value> {
    let (name, reason) = match step {
        Step::Ignored => return None,
        Step::Failed => ("failed", None),
        Step::Relative => ("relative", None),
        Step::Proved => ("proved", None),
        Step::Retracted(reason) => ("retracted", Some(reason.to_string())),
        Step::Inert => ("inert", None),
    };
    let mut out = json!({ "index": index, "step": name });
    if let Some(reason) = reason {
        out["reason"] = Value::String(reason);
    }
    Some(out)
}

/// A path's state at the end of a replay, as a dict.
fn state_json(state: PathState) -> Value {
    match state {
        PathState::Proven => json!({ "state": "proven" }),
        PathState::Retracted { reason, index } => {
            json!({ "state": "retracted", "reason": reason.to_string(), "index": index })
        }
        PathState::Inert => json!({ "state": "inert" }),
    }
}

/// `replay(data_or_messages, format=None, name="<bytes>") -> dict`: the whole walk
/// (`rehydrate_replay::Replay`): `steps`, what each message that is not ignored did
/// (`{"index", "step"}`, `step` one of `proved`, `retracted` with its `reason`, `inert`,
/// `failed`, `relative`); `records`, as `file_records` gives them; `paths`, each path's state
/// at the end by path (`{"state": "proven" | "inert"}` or `{"state": "retracted", "reason",
/// "index"}`); `counts`, `{"proven", "retracted", "inert"}`.
#[pyfunction]
#[pyo3(signature = (data_or_messages, format=None, name=None))]
pub(crate) fn replay(
    py: Python<'_>,
    data_or_messages: &Bound<'_, PyAny>,
    format: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let messages = transcript(py, data_or_messages, format, name)?;
    let out = py.detach(|| {
        let mut replay = Replay::new();
        let steps: Vec<Value> = messages
            .iter()
            .enumerate()
            .filter_map(|(index, message)| step_json(index, replay.step(index, message)))
            .collect();
        let paths: serde_json::Map<String, Value> = replay
            .states()
            .map(|(path, state)| (path.to_string(), state_json(state)))
            .collect();
        json!({
            "steps": steps,
            "records": replay.records(),
            "paths": paths,
            "counts": replay.counts(),
        })
    });
    convert::to_py(py, &out)
}

/// A record argument of `staleness`: a dict as `file_records` gives it.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordArg {
    path: String,
    content: String,
    #[serde(default)]
    digest: Option<Digest>,
    #[serde(default)]
    at: Option<String>,
    #[serde(default)]
    index: usize,
}

/// `staleness(record, disk) -> dict`: whether the bytes now on disk are what the transcript
/// proved the agent saw (`rehydrate_replay::staleness`): `record` a dict of `file_records`
/// (`None` when replay has none for the path; its `digest`, when given, must be the blake3 of
/// its `content`), `disk` the file's bytes (`None` when it does not exist). Gives
/// `{"state": "fresh"}`, `{"state": "stale", "expected": hex, "actual": hex | None}` or
/// `{"state": "not_read"}`.
#[pyfunction]
pub(crate) fn staleness(
    py: Python<'_>,
    record: &Bound<'_, PyAny>,
    disk: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let record = if record.is_none() {
        None
    } else {
        if !record.is_instance_of::<PyDict>() {
            return Err(InputError::new_err(format!(
                "record: expected a dict of file_records or None, got {}",
                type_name(record)
            )));
        }
        let arg: RecordArg = convert::value(record, "record")?;
        let made = FileRecord::new(arg.path, arg.content, arg.at, arg.index);
        if let Some(digest) = arg.digest
            && digest != made.digest
        {
            return Err(InputError::new_err(format!(
                "record: digest {digest} is not the blake3 of its content ({})",
                made.digest
            )));
        }
        Some(made)
    };
    let disk = if disk.is_none() {
        None
    } else {
        Some(bytes_of(disk).ok_or_else(|| {
            InputError::new_err(format!(
                "disk: expected bytes or None, got {}",
                type_name(disk)
            ))
        })?)
    };
    let out = match rehydrate::replay::staleness(record.as_ref(), disk.as_deref()) {
        Staleness::Fresh => json!({ "state": "fresh" }),
        Staleness::Stale { expected, actual } => json!({
            "state": "stale",
            "expected": expected,
            "actual": actual,
        }),
        Staleness::NotRead => json!({ "state": "not_read" }),
    };
    convert::to_py(py, &out)
}

/// The events of an event-log argument: the bytes of a session file, imported
/// (`rehydrate_formats::import_events`), or a list of session event dicts.
fn events(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    format: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<SessionEvent>> {
    const WHAT: &str = "data_or_events";
    bytes_or_list(
        py,
        source,
        format,
        name,
        WHAT,
        "the bytes of a session file or a list of session event dicts",
        |name, data, format| {
            rehydrate::formats::import_events(name, data, format).map(|imported| imported.events)
        },
        |list| {
            list.try_iter()?
                .enumerate()
                .map(|(i, item)| convert::value(&item?, &format!("{WHAT}[{i}]")))
                .collect()
        },
    )
}

/// `session_events(data_or_messages, format=None, name="<bytes>") -> list[dict]`: a session's
/// event log (docs/FORMATS.md, "Session events"), from a session file's bytes
/// (`rehydrate_formats::import_events`) or from canonical messages
/// (`rehydrate_formats::events_from_messages`).
#[pyfunction]
#[pyo3(signature = (data_or_messages, format=None, name=None))]
pub(crate) fn session_events(
    py: Python<'_>,
    data_or_messages: &Bound<'_, PyAny>,
    format: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let events = if bytes_of(data_or_messages).is_some() {
        events(py, data_or_messages, format, name)?
    } else {
        let messages = transcript(py, data_or_messages, format, name)?;
        py.detach(|| rehydrate::formats::events_from_messages(messages))
    };
    convert::to_py(py, &events)
}

/// `project_evidence(data_or_events, workspace=None, *, format=None, name="<bytes>",
/// max_input_bytes=131072) -> dict`: per-turn, redacted, size-checked evidence
/// (`rehydrate_evidence::project_evidence`): the evidence's JSON form
/// `{"projection_version", "turns", "workspace", "stats"}` plus `input_json`, the exact text
/// measured against `max_input_bytes` and handed on (`Evidence::input_json`). `workspace` is a
/// list of JSON values handed on as they are. Raises `EvidenceError` when the log does not
/// fold, a turn is split, or the input is over the limit.
#[pyfunction]
#[pyo3(signature = (data_or_events, workspace=None, *, format=None, name=None, max_input_bytes=None))]
pub(crate) fn project_evidence(
    py: Python<'_>,
    data_or_events: &Bound<'_, PyAny>,
    workspace: Option<&Bound<'_, PyAny>>,
    format: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
    max_input_bytes: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let max_input_bytes = match max_input_bytes {
        Some(n) if !n.is_none() => size("max_input_bytes", n)?,
        _ => DEFAULT_MAX_INPUT_BYTES,
    };
    let workspace: Vec<Value> = match workspace {
        Some(w) if !w.is_none() => convert::value(
            list_arg(w, "workspace", "a list of JSON values")?,
            "workspace",
        )?,
        _ => Vec::new(),
    };
    let events = events(py, data_or_events, format, name)?;
    let options = EvidenceOptions { max_input_bytes };
    let (evidence, input_json) = py
        .detach(|| {
            rehydrate::evidence::project_evidence(&events, &workspace, &options).map(|evidence| {
                let input = evidence.input_json();
                (evidence, input)
            })
        })
        .map_err(|e| EvidenceError::new_err(e.to_string()))?;
    let out = convert::to_py(py, &evidence)?;
    out.bind(py)
        .cast::<PyDict>()?
        .set_item("input_json", input_json)?;
    Ok(out)
}

/// A signals argument: a dict of `CompactionSignals`' JSON form (the `dangling` keys, epochs,
/// as ints or as the strings JSON gives them).
fn signals_arg(signals: &Bound<'_, PyAny>) -> PyResult<CompactionSignals> {
    if !signals.is_instance_of::<PyDict>() {
        return Err(InputError::new_err(format!(
            "signals: expected a dict, got {}",
            type_name(signals)
        )));
    }
    // Read as JSON first: serde_json reads an epoch key written as a string; int keys are
    // made strings before.
    let dict = signals.cast::<PyDict>()?;
    let dangling = dict.get_item("dangling")?;
    let value: Value = match dangling {
        Some(d) if d.is_instance_of::<PyDict>() => {
            let copy = dict.copy()?;
            let keyed = PyDict::new(signals.py());
            for (k, v) in d.cast::<PyDict>()?.iter() {
                keyed.set_item(k.str()?, v)?;
            }
            copy.set_item("dangling", keyed)?;
            convert::value(copy.as_any(), "signals")?
        }
        _ => convert::value(signals, "signals")?,
    };
    serde_json::from_value(value).map_err(|e| InputError::new_err(format!("signals: {e}")))
}

/// `assess(signals) -> dict`: the decision at a compaction boundary and why
/// (`rehydrate_signals::assess`): `{"decision": "continue" | "widen_retention" | "freeze",
/// "reasons": [str, ...]}`. `signals` is a dict of the signals' JSON form, as
/// `compaction_signals` or `SessionDir.signals` gives it.
#[pyfunction]
pub(crate) fn assess(py: Python<'_>, signals: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let signals = signals_arg(signals)?;
    convert::to_py(py, &rehydrate::signals::assess(&signals))
}

/// `compaction_signals(store) -> dict`: the divergence signals of the session store file at
/// `store`, read without locking it (`rehydrate_signals::CompactionSignals::from_store` over
/// `rehydrate_store::read_store`): `{"epoch", "cited", "resolvable", "refs_per_summary",
/// "dangling", "digest_failures", "misses"}`. Raises `SessionError` for a store that cannot be
/// read or ends torn, `SignalsError` when a validity condition does not hold.
#[pyfunction]
pub(crate) fn compaction_signals(py: Python<'_>, store: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let path = path_arg(store, "store")?;
    let signals = py.detach(|| {
        let (state, torn) = rehydrate::store::read_store(&path)
            .map_err(|e| SessionError::new_err(e.to_string()))?;
        if let Some(torn) = torn {
            return Err(SessionError::new_err(
                rehydrate::store::Error::Torn {
                    path: path.clone(),
                    torn,
                }
                .to_string(),
            ));
        }
        CompactionSignals::from_store(&state).map_err(|e| SignalsError::new_err(e.to_string()))
    })?;
    convert::to_py(py, &signals)
}

/// A `sync` argument of `auto_compact`: `"every-record"`, `"never"` or a number of bytes.
fn sync_arg(sync: Option<&Bound<'_, PyAny>>) -> PyResult<SyncPolicy> {
    match sync {
        Some(s) if !s.is_none() => crate::session::sync_policy(s),
        _ => Ok(SyncPolicy::EveryRecord),
    }
}

/// What the summarizer returned, as a `Summary`: a `str`, or a `(str, list[int])` of the text
/// and the epochs it retires.
fn summary_of(value: &Bound<'_, PyAny>) -> PyResult<Summary> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(Summary {
            text: crate::policy::text("the summarizer's text", text.as_any())?,
            retires: Vec::new(),
        });
    }
    value
        .extract::<(String, Vec<u64>)>()
        .map(|(text, retires)| Summary { text, retires })
        .map_err(|_| {
            InputError::new_err(format!(
                "summarizer: expected it to return a str or a (str, list[int]) tuple, got {}",
                type_name(value)
            ))
        })
}

/// Calls the host's summarizer with the signals (a dict) and the decision (a str).
fn summarize(
    py: Python<'_>,
    summarizer: &Py<PyAny>,
    signals: &CompactionSignals,
    decision: Decision,
) -> PyResult<Summary> {
    let signals = convert::to_py(py, signals)?;
    let returned = summarizer.call1(py, (signals, decision.as_str()))?;
    summary_of(returned.bind(py))
}

/// `auto_compact(store, summarizer, sync="every-record") -> dict`: runs the host's summarizer
/// only when the signals of the session store file at `store` allow it, and records its summary
/// at the next epoch (`rehydrate_signals::auto_compact` over
/// `rehydrate_store::SessionStore::open`, which takes the store's lock): `summarizer(signals,
/// decision)` gets the signals dict and `"continue"` or `"widen_retention"`, and returns the
/// summary text, or `(text, retires)` with the epochs of earlier summaries it replaces. Gives
/// `{"decision", "epoch"}`. Raises `SignalsError` (the summarizer is not called) when the
/// signals say freeze or do not hold, `SessionError` when the store cannot be opened or the
/// summary recorded; an exception the summarizer raises propagates, and nothing is recorded.
#[pyfunction]
#[pyo3(signature = (store, summarizer, sync=None))]
pub(crate) fn auto_compact(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    summarizer: &Bound<'_, PyAny>,
    sync: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let path = path_arg(store, "store")?;
    if !summarizer.is_callable() {
        return Err(InputError::new_err(format!(
            "summarizer: expected a callable, got {}",
            type_name(summarizer)
        )));
    }
    let sync = sync_arg(sync)?;
    let summarizer = summarizer.clone().unbind();
    let mut failure: Option<PyErr> = None;
    let compacted = py.detach(|| {
        let mut store = SessionStore::open(Path::new(&path), sync)
            .map_err(|e| SessionError::new_err(e.to_string()))?;
        rehydrate::signals::auto_compact(&mut store, |signals, decision| {
            Python::attach(|py| {
                summarize(py, &summarizer, signals, decision).unwrap_or_else(|e| {
                    failure = Some(e);
                    // The summarizer cannot fail: a summary that retires an epoch not earlier
                    // than its own is refused by the store before anything is written.
                    Summary {
                        text: String::new(),
                        retires: vec![u64::MAX],
                    }
                })
            })
        })
        .map_err(|e| match e {
            rehydrate::signals::Error::Store(e) => SessionError::new_err(e.to_string()),
            other => SignalsError::new_err(other.to_string()),
        })
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let compacted = compacted?;
    convert::to_py(
        py,
        &json!({ "decision": compacted.decision, "epoch": compacted.epoch }),
    )
}
