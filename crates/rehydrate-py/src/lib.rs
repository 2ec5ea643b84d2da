//! `rehydrate._rehydrate`, the extension module behind the `rehydrate` Python package
//! (python/, docs/PYTHON.md): the crates' functions over plain Python values.
//!
//! Messages cross as lists of dicts in the canonical shape (docs/FORMATS.md, "Canonical
//! message"; an OpenAI chat message is one), a reduction log as the dict of its JSON form
//! (`{"reductions":[…]}`). Both go through JSON text: the Python side's `json` module writes
//! and reads it, serde reads and writes it here. The work itself runs with the interpreter
//! detached (other Python threads run meanwhile).
//!
//! Errors are Python exceptions, one class per crate error, all subclasses of
//! `rehydrate.Error`, carrying the crate's one-line message.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rehydrate::formats::{Api, Format};
use rehydrate::intrinsics::ToolFormat;
use rehydrate::search::{SearchMode, SearchOptions};
use rehydrate::{CacheState, Message, ReductionLog, SyncPolicy};
use serde::Serialize;
use serde::de::DeserializeOwned;

pyo3::create_exception!(
    rehydrate,
    Error,
    PyException,
    "Every error rehydrate raises: a subclass names the crate it comes from."
);
pyo3::create_exception!(
    rehydrate,
    FormatsError,
    Error,
    "A session file or body that cannot be read, or a body an API's rules refuse."
);
pyo3::create_exception!(
    rehydrate,
    SidecarError,
    Error,
    "A reduction that does not resolve or verify, a bad byte range, or a view that does not invert."
);
pyo3::create_exception!(
    rehydrate,
    SearchError,
    Error,
    "A search query that is empty, too long, or an invalid or too large regex."
);
pyo3::create_exception!(
    rehydrate,
    SessionError,
    Error,
    "A session store that cannot be created, opened, written or is locked, or a view no repair makes a body."
);
pyo3::create_exception!(
    rehydrate,
    InputError,
    Error,
    "Messages, a log or an argument that is not of the documented shape."
);

/// Parses `value` (a Python object) as the JSON form of `T`, by `json.dumps`.
fn from_py<T: DeserializeOwned>(value: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    let py = value.py();
    let text: String = py
        .import("json")?
        .call_method1("dumps", (value,))
        .map_err(|e| InputError::new_err(format!("{what}: not JSON: {e}")))?
        .extract()?;
    serde_json::from_str(&text).map_err(|e| InputError::new_err(format!("{what}: {e}")))
}

/// `value` as a Python object, by its JSON form and `json.loads`.
fn to_py<T: Serialize + ?Sized>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| InputError::new_err(format!("cannot write JSON: {e}")))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// The optional log argument: an empty log when `None`.
fn log_of(log: Option<&Bound<'_, PyAny>>) -> PyResult<ReductionLog> {
    match log {
        Some(log) if !log.is_none() => from_py(log, "log"),
        _ => Ok(ReductionLog::default()),
    }
}

/// A reduction policy: which reductions a projection makes (docs/FORMATS.md, "View").
#[pyclass(module = "rehydrate", name = "ReductionPolicy", frozen)]
#[derive(Clone)]
struct ReductionPolicy {
    inner: rehydrate::ReductionPolicy,
}

#[pymethods]
impl ReductionPolicy {
    /// The conservative preset (`rehydrate reduce --preset default`).
    #[staticmethod]
    #[allow(clippy::should_implement_trait)] // a Python static method, named as the preset
    fn default() -> Self {
        ReductionPolicy {
            inner: rehydrate::ReductionPolicy::default(),
        }
    }

    /// Every reduction kind on (`rehydrate reduce --preset aggressive`).
    #[staticmethod]
    fn aggressive() -> Self {
        ReductionPolicy {
            inner: rehydrate::ReductionPolicy::aggressive(),
        }
    }

    fn __repr__(&self) -> String {
        format!("ReductionPolicy({:?})", self.inner)
    }
}

/// A per-turn reducer: feed it each turn's new messages, send its view, answer the model's
/// `expand_reduction` and `sidecar_search` calls with [`Reducer::call`]
/// (`rehydrate_reduce::Reducer`).
#[pyclass(module = "rehydrate", name = "Reducer")]
struct Reducer {
    inner: rehydrate::reduce::Reducer,
}

#[pymethods]
impl Reducer {
    /// `Reducer(policy=None, log=None)`: a fresh reducer, or one that resumes `log` (the
    /// messages it covers are fed again with `project`).
    #[new]
    #[pyo3(signature = (policy=None, log=None))]
    fn new(policy: Option<&ReductionPolicy>, log: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let policy = policy.map(|p| p.inner.clone()).unwrap_or_default();
        let inner = match log {
            Some(log) if !log.is_none() => {
                rehydrate::reduce::Reducer::resume(policy, from_py(log, "log")?)
            }
            _ => rehydrate::reduce::Reducer::new(policy),
        };
        Ok(Reducer { inner })
    }

    /// `project(new_messages, idle_seconds=None) -> view`: appends the new messages, decides
    /// what to reduce, and returns the whole view to send. `idle_seconds` is the time since the
    /// last request: `None` when the view as last projected is cached (the provider's prompt
    /// cache is warm), else cold once it reaches the policy's cache lifetime; a reduction of a
    /// cached message waits until it saves enough or the cache is cold (README, "Presets").
    #[pyo3(signature = (new_messages, idle_seconds=None))]
    fn project(
        &mut self,
        py: Python<'_>,
        new_messages: &Bound<'_, PyAny>,
        idle_seconds: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let new: Vec<Message> = from_py(new_messages, "new_messages")?;
        let cache = cache_state(idle_seconds)?;
        let inner = &mut self.inner;
        py.detach(|| inner.project_cached(new, cache));
        self.view(py)
    }

    /// The current view, as a list of message dicts.
    #[getter]
    fn view(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let view: Vec<&Message> = self.inner.view().iter().collect();
        to_py(py, &view)
    }

    /// The reduction log, as a dict.
    #[getter]
    fn log(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, self.inner.log())
    }

    /// The full-fidelity history every reduction points into.
    #[getter]
    fn history(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, self.inner.history())
    }

    /// `call(name, arguments) -> (content, is_error)`: one `expand_reduction` or
    /// `sidecar_search` call of the model, `arguments` its JSON text, answered exactly as the
    /// model is to see it (`rehydrate_intrinsics::Intrinsics::call`).
    fn call(&self, py: Python<'_>, name: &str, arguments: &str) -> (String, bool) {
        let inner = &self.inner;
        let out = py.detach(|| {
            let context = rehydrate::intrinsics::CallContext::new(inner.log(), inner.history());
            rehydrate::intrinsics::Intrinsics::call(name, arguments, &context)
        });
        (out.content, out.is_error)
    }
}

/// The prompt-cache state of an `idle_seconds` argument: warm for `None`.
fn cache_state(idle_seconds: Option<f64>) -> PyResult<CacheState> {
    match idle_seconds {
        None => Ok(CacheState::Warm),
        Some(s) => Duration::try_from_secs_f64(s)
            .map(CacheState::Idle)
            .map_err(|e| PyValueError::new_err(format!("idle_seconds {s}: not a duration ({e})"))),
    }
}

/// A `sync` argument: `every-record`, `never`, or a number of bytes.
fn sync_policy(sync: &Bound<'_, PyAny>) -> PyResult<SyncPolicy> {
    if let Ok(bytes) = sync.extract::<u64>() {
        return Ok(SyncPolicy::EveryBytes(bytes));
    }
    match sync.extract::<String>()?.as_str() {
        "every-record" => Ok(SyncPolicy::EveryRecord),
        "never" => Ok(SyncPolicy::Never),
        other => Err(PyValueError::new_err(format!(
            "unknown sync policy `{other}` (expected every-record, never or a number of bytes)"
        ))),
    }
}

/// A live session recorded in a store file: every message and reduction appended and synced
/// as `sync` says, reopened with the same view and log (`rehydrate::Session`).
#[pyclass(module = "rehydrate", name = "Session")]
struct Session {
    inner: rehydrate::Session,
}

impl Session {
    /// The session `make` (`rehydrate::Session::create` or `open`) gives for the Python
    /// arguments, run detached.
    fn at(
        py: Python<'_>,
        path: std::path::PathBuf,
        policy: Option<&ReductionPolicy>,
        sync: Option<&Bound<'_, PyAny>>,
        make: fn(
            std::path::PathBuf,
            rehydrate::ReductionPolicy,
            SyncPolicy,
        ) -> Result<rehydrate::Session, rehydrate::Error>,
    ) -> PyResult<Self> {
        let policy = policy.map(|p| p.inner.clone()).unwrap_or_default();
        let sync = sync
            .map(sync_policy)
            .transpose()?
            .unwrap_or(SyncPolicy::EveryRecord);
        let inner = py
            .detach(|| make(path, policy, sync))
            .map_err(session_error)?;
        Ok(Session { inner })
    }
}

/// A facade error as a `SessionError`.
fn session_error(e: rehydrate::Error) -> PyErr {
    SessionError::new_err(e.to_string())
}

#[pymethods]
impl Session {
    /// `Session.create(path, policy=None, sync="every-record")`: a new store file at `path`
    /// (which must not exist).
    #[staticmethod]
    #[pyo3(signature = (path, policy=None, sync=None))]
    fn create(
        py: Python<'_>,
        path: std::path::PathBuf,
        policy: Option<&ReductionPolicy>,
        sync: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        Session::at(py, path, policy, sync, rehydrate::Session::create)
    }

    /// `Session.open(path, policy=None, sync="every-record")`: the session recorded at `path`,
    /// with the view and log it had (open it with the policy it was recorded under).
    #[staticmethod]
    #[pyo3(signature = (path, policy=None, sync=None))]
    fn open(
        py: Python<'_>,
        path: std::path::PathBuf,
        policy: Option<&ReductionPolicy>,
        sync: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        Session::at(py, path, policy, sync, rehydrate::Session::open)
    }

    /// `push(messages, idle_seconds=None) -> int`: records and projects the new messages;
    /// returns how many reductions were minted.
    #[pyo3(signature = (messages, idle_seconds=None))]
    fn push(
        &mut self,
        py: Python<'_>,
        messages: &Bound<'_, PyAny>,
        idle_seconds: Option<f64>,
    ) -> PyResult<usize> {
        let messages: Vec<Message> = from_py(messages, "messages")?;
        let cache = cache_state(idle_seconds)?;
        let inner = &mut self.inner;
        py.detach(|| inner.push_cached(messages, cache))
            .map_err(session_error)
    }

    /// The current view, as a list of message dicts.
    #[getter]
    fn view(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let view: Vec<&Message> = self.inner.view().iter().collect();
        to_py(py, &view)
    }

    /// The reduction log, as a dict.
    #[getter]
    fn log(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, self.inner.log())
    }

    /// Every recorded message.
    #[getter]
    fn history(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, self.inner.history())
    }

    /// `request_body(api) -> bytes`: the view as a request body of `openai`, `anthropic` or
    /// `responses` (a pairing repair it needs is recorded).
    fn request_body<'py>(&mut self, py: Python<'py>, api: &str) -> PyResult<Bound<'py, PyBytes>> {
        let api = api_of(api)?;
        let inner = &mut self.inner;
        let body = py
            .detach(|| inner.request_body(api))
            .map_err(session_error)?;
        Ok(PyBytes::new(py, &body))
    }

    /// `call(name, arguments) -> (content, is_error)`: one `expand_reduction` or
    /// `sidecar_search` call of the model, answered as the model is to see it.
    fn call(&self, py: Python<'_>, name: &str, arguments: &str) -> (String, bool) {
        let inner = &self.inner;
        let out = py.detach(|| inner.call(name, arguments));
        (out.content, out.is_error)
    }

    /// `rewind(to) -> int`: keeps the first `to` messages (recorded); returns how many
    /// reductions the projection of what is kept minted.
    fn rewind(&mut self, py: Python<'_>, to: usize) -> PyResult<usize> {
        let inner = &mut self.inner;
        py.detach(|| inner.rewind(to)).map_err(session_error)
    }

    /// `switch_model(model) -> int`: records a switch to `model`; every message loses its
    /// reasoning artifacts; returns how many lost something.
    fn switch_model(&mut self, py: Python<'_>, model: &str) -> PyResult<usize> {
        let inner = &mut self.inner;
        py.detach(|| inner.switch_model(model))
            .map_err(session_error)
    }

    /// `export(format) -> bytes`: the session with every reduction undone, as `jsonl`,
    /// `openai`, `anthropic`, `responses` or `codex`.
    fn export<'py>(&self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyBytes>> {
        let format = rehydrate::ExportFormat::from_str(format)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let inner = &self.inner;
        let bytes = py.detach(|| inner.export(format)).map_err(session_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Syncs every record appended so far to the disk.
    fn sync(&mut self, py: Python<'_>) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| inner.sync()).map_err(session_error)
    }
}

/// An API name: `openai`, `anthropic` or `responses`.
fn api_of(api: &str) -> PyResult<Api> {
    match api {
        "openai" => Ok(Api::OpenAi),
        "anthropic" => Ok(Api::Anthropic),
        "responses" => Ok(Api::Responses),
        other => Err(PyValueError::new_err(format!(
            "unknown API `{other}` (expected openai, anthropic or responses)"
        ))),
    }
}

/// `import_session(data, format=None, name="<bytes>")`: the format, canonical messages and
/// warnings of a session file's bytes (the Python wrapper reads a path).
#[pyfunction]
#[pyo3(signature = (data, format=None, name="<bytes>"))]
fn import_session(
    py: Python<'_>,
    data: &[u8],
    format: Option<&str>,
    name: &str,
) -> PyResult<(String, Py<PyAny>, Vec<String>)> {
    let format = format
        .map(Format::from_str)
        .transpose()
        .map_err(|e| InputError::new_err(e.to_string()))?;
    let imported = py
        .detach(|| rehydrate::formats::import(Path::new(name), data, format))
        .map_err(|e| FormatsError::new_err(e.to_string()))?;
    let warnings = imported.warnings.iter().map(ToString::to_string).collect();
    Ok((
        imported.format.as_str().to_string(),
        to_py(py, &imported.messages)?,
        warnings,
    ))
}

/// `project_messages(messages, log=None, policy=None) -> (view, log, minted)`: the one-shot
/// projection (`rehydrate_reduce::project_messages`).
#[pyfunction]
#[pyo3(signature = (messages, log=None, policy=None))]
fn project_messages(
    py: Python<'_>,
    messages: &Bound<'_, PyAny>,
    log: Option<&Bound<'_, PyAny>>,
    policy: Option<&ReductionPolicy>,
) -> PyResult<(Py<PyAny>, Py<PyAny>, usize)> {
    let messages: Vec<Message> = from_py(messages, "messages")?;
    let log = log_of(log)?;
    let policy = policy.map(|p| p.inner.clone()).unwrap_or_default();
    let out = py.detach(|| rehydrate::reduce::project_messages(&messages, &log, &policy));
    Ok((to_py(py, &out.view)?, to_py(py, &out.log)?, out.minted))
}

/// `expand_reduction(log, messages, id, byte_range=None) -> str`: the exact original bytes of
/// a reduction, verified (`rehydrate_sidecar::expand_reduction`).
#[pyfunction]
#[pyo3(signature = (log, messages, id, byte_range=None))]
fn expand_reduction(
    py: Python<'_>,
    log: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
    id: &str,
    byte_range: Option<(usize, usize)>,
) -> PyResult<String> {
    let log: ReductionLog = from_py(log, "log")?;
    let messages: Vec<Message> = from_py(messages, "messages")?;
    py.detach(|| {
        rehydrate::sidecar::expand_reduction(&log, &messages, id, byte_range)
            .map(|out| out.content.to_string())
    })
    .map_err(|e| SidecarError::new_err(e.to_string()))
}

/// `sidecar_search(log, messages, query, mode="auto", case_sensitive=False, max_matches=50)
/// -> dict`: the matches of `query` in the bytes the reductions hide, bounded and redacted, as
/// the dict of the result's JSON (`rehydrate_search::sidecar_search`; every reduction is
/// verified first).
#[pyfunction]
#[pyo3(signature = (log, messages, query, mode="auto", case_sensitive=false, max_matches=50))]
fn sidecar_search(
    py: Python<'_>,
    log: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
    query: &str,
    mode: &str,
    case_sensitive: bool,
    max_matches: usize,
) -> PyResult<Py<PyAny>> {
    let mode = match mode {
        "auto" => SearchMode::Auto,
        "literal" => SearchMode::Literal,
        "regex" => SearchMode::Regex,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown search mode `{other}` (expected auto, literal or regex)"
            )));
        }
    };
    let log: ReductionLog = from_py(log, "log")?;
    let messages: Vec<Message> = from_py(messages, "messages")?;
    let options = SearchOptions {
        mode,
        case_sensitive,
        max_matches: max_matches.min(SearchOptions::default().max_matches),
        ..SearchOptions::default()
    };
    let json = py
        .detach(|| {
            rehydrate::search::sidecar_search(&log, &messages, query, &options).map(|r| r.to_json())
        })
        .map_err(|e| SearchError::new_err(e.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (json,))?.unbind())
}

/// `verify(log, messages) -> None`: re-checks every reduction of `log` against `messages` (the
/// digest of its exact original bytes, its facts, the log's order); the first failure is a
/// `SidecarError` naming the reduction, and the message says how many failed
/// (`rehydrate_sidecar::verify_log`).
#[pyfunction]
fn verify(py: Python<'_>, log: &Bound<'_, PyAny>, messages: &Bound<'_, PyAny>) -> PyResult<()> {
    let log: ReductionLog = from_py(log, "log")?;
    let messages: Vec<Message> = from_py(messages, "messages")?;
    let errors = py.detach(|| rehydrate::sidecar::verify_log(&log, &messages));
    match errors.as_slice() {
        [] => Ok(()),
        [only] => Err(SidecarError::new_err(only.to_string())),
        [first, rest @ ..] => Err(SidecarError::new_err(format!(
            "{first} (and {} more)",
            rest.len()
        ))),
    }
}

/// `invert(view, log, messages) -> messages`: the view with every reduction undone, checked
/// against the sidecar (`rehydrate_sidecar::invert`).
#[pyfunction]
fn invert(
    py: Python<'_>,
    view: &Bound<'_, PyAny>,
    log: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let view: Vec<Message> = from_py(view, "view")?;
    let log: ReductionLog = from_py(log, "log")?;
    let messages: Vec<Message> = from_py(messages, "messages")?;
    let inverted = py
        .detach(|| rehydrate::sidecar::invert(&view, &log, &messages))
        .map_err(|e| SidecarError::new_err(e.to_string()))?;
    to_py(py, &inverted)
}

/// `request_body(messages, api) -> bytes`: `messages` as a request body of `api` (`openai`,
/// `anthropic` or `responses`), after that API's rules (`rehydrate_formats::request_body`).
#[pyfunction]
fn request_body<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    api: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let api = api_of(api)?;
    let messages: Vec<Message> = from_py(messages, "messages")?;
    let body = py
        .detach(|| rehydrate::formats::request_body(&messages, api))
        .map_err(|e| FormatsError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &body))
}

/// `tool_definitions(format="openai") -> list[dict]`: the `expand_reduction` and
/// `sidecar_search` tool definitions a host gives its model.
#[pyfunction]
#[pyo3(signature = (format="openai"))]
fn tool_definitions(py: Python<'_>, format: &str) -> PyResult<Py<PyAny>> {
    let format = match format {
        "openai" => ToolFormat::OpenAi,
        "anthropic" => ToolFormat::Anthropic,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown tool format `{other}` (expected openai or anthropic)"
            )));
        }
    };
    to_py(py, &rehydrate::intrinsics::tool_definitions(format))
}

/// The module `rehydrate._rehydrate`.
#[pymodule]
fn _rehydrate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("FormatsError", py.get_type::<FormatsError>())?;
    m.add("SidecarError", py.get_type::<SidecarError>())?;
    m.add("SearchError", py.get_type::<SearchError>())?;
    m.add("SessionError", py.get_type::<SessionError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add_class::<ReductionPolicy>()?;
    m.add_class::<Reducer>()?;
    m.add_class::<Session>()?;
    m.add_function(wrap_pyfunction!(import_session, m)?)?;
    m.add_function(wrap_pyfunction!(project_messages, m)?)?;
    m.add_function(wrap_pyfunction!(expand_reduction, m)?)?;
    m.add_function(wrap_pyfunction!(invert, m)?)?;
    m.add_function(wrap_pyfunction!(sidecar_search, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(request_body, m)?)?;
    m.add_function(wrap_pyfunction!(tool_definitions, m)?)?;
    Ok(())
}
