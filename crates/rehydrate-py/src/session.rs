//! `rehydrate.Session`: a live session recorded in a session store file (`rehydrate::Session`).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use rehydrate::SyncPolicy;
use rehydrate::store::MissReason;

use crate::convert::{self, ViewCache};
use crate::policy::ReductionPolicy;
use crate::reducer::cache_state;
use crate::view::View;
use crate::{InputError, SessionError, api_of};

/// A live session recorded in a store file: every message and reduction appended and synced
/// as `sync` says, reopened with the same view and log (`rehydrate::Session`).
#[pyclass(module = "rehydrate", name = "Session")]
pub(crate) struct Session {
    inner: rehydrate::Session,
    cache: ViewCache,
}

/// A `sync` argument: `"every-record"`, `"never"`, or a number of bytes (an int, not a bool).
pub(crate) fn sync_policy(sync: &Bound<'_, PyAny>) -> PyResult<SyncPolicy> {
    let bad = || {
        InputError::new_err(format!(
            "sync: expected \"every-record\", \"never\" or a non-negative number of bytes, got {}",
            sync.repr()
                .map_or_else(|_| "?".to_owned(), |r| r.to_string())
        ))
    };
    if sync.is_instance_of::<pyo3::types::PyBool>() {
        return Err(bad());
    }
    if sync.is_instance_of::<pyo3::types::PyInt>() {
        return sync
            .extract::<u64>()
            .map(SyncPolicy::EveryBytes)
            .map_err(|_| bad());
    }
    match sync.extract::<String>().map_err(|_| bad())?.as_str() {
        "every-record" => Ok(SyncPolicy::EveryRecord),
        "never" => Ok(SyncPolicy::Never),
        _ => Err(bad()),
    }
}

/// A facade error as a `SessionError`.
fn session_error(e: rehydrate::Error) -> PyErr {
    SessionError::new_err(e.to_string())
}

impl Session {
    /// The session `make` (`rehydrate::Session::create` or `open`) gives for the Python
    /// arguments, run detached.
    fn at(
        py: Python<'_>,
        path: PathBuf,
        policy: Option<&ReductionPolicy>,
        sync: Option<&Bound<'_, PyAny>>,
        make: fn(
            PathBuf,
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
        Ok(Session {
            inner,
            cache: ViewCache::default(),
        })
    }
}

#[pymethods]
impl Session {
    /// `Session.create(path, policy=None, sync="every-record")`: a new store file at `path`
    /// (which must not exist).
    #[staticmethod]
    #[pyo3(signature = (path, policy=None, sync=None))]
    fn create(
        py: Python<'_>,
        path: PathBuf,
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
        path: PathBuf,
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
        let new = convert::messages(messages, "messages")?;
        let cache = cache_state(idle_seconds)?;
        let before = self.inner.history().len();
        let inner = &mut self.inner;
        let minted = py
            .detach(|| inner.push_cached(new, cache))
            .map_err(session_error)?;
        self.cache.adopt(messages, before)?;
        Ok(minted)
    }

    /// The current view, a `View` (as `Reducer.project` returns it, its dicts made now: a view
    /// does not keep its session, and the store's lock, alive).
    #[getter]
    fn view(&mut self, py: Python<'_>) -> PyResult<View> {
        let list = self
            .cache
            .view(py, self.inner.view(), self.inner.history())?;
        Ok(View::made(py, list))
    }

    /// The reduction log, as a dict.
    #[getter]
    fn log(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::to_py(py, self.inner.log())
    }

    /// Every recorded message, as a new list (its dicts shared with the view's).
    #[getter]
    fn history<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cache.history(py, self.inner.history())
    }

    /// The policy the session projects with.
    #[getter]
    fn policy(&self) -> ReductionPolicy {
        ReductionPolicy {
            inner: self.inner.policy().clone(),
        }
    }

    /// The store file's path.
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.path().to_path_buf()
    }

    /// How many records opening the store recovered past a torn tail (0 for a clean store).
    #[getter]
    fn recovered(&self) -> usize {
        self.inner.recovered()
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

    /// `tools(format="openai") -> list[dict]`: the tool definitions to give the model.
    #[pyo3(signature = (format="openai"))]
    fn tools(&self, py: Python<'_>, format: &str) -> PyResult<Py<PyAny>> {
        let format = crate::functions::tool_format(format)?;
        convert::to_py(py, &self.inner.tools(format))
    }

    /// `call(name, arguments) -> (content, is_error)`: one `expand_reduction` or
    /// `sidecar_search` call of the model, answered as the model is to see it (never raises).
    fn call(&self, py: Python<'_>, name: &str, arguments: &str) -> (String, bool) {
        let inner = &self.inner;
        let out = py.detach(|| inner.call(name, arguments));
        (out.content, out.is_error)
    }

    /// `rewind(to) -> int`: keeps the first `to` messages (recorded); returns how many
    /// reductions the projection of what is kept minted.
    fn rewind(&mut self, py: Python<'_>, to: usize) -> PyResult<usize> {
        // The view is projected again from what is kept: its dicts are made again.
        self.cache = ViewCache::default();
        let inner = &mut self.inner;
        py.detach(|| inner.rewind(to)).map_err(session_error)
    }

    /// `switch_model(model) -> int`: records a switch to `model`; every message loses its
    /// reasoning artifacts; returns how many lost something.
    fn switch_model(&mut self, py: Python<'_>, model: &str) -> PyResult<usize> {
        // The history's messages lose their reasoning: every dict is made again.
        self.cache = ViewCache::default();
        let inner = &mut self.inner;
        py.detach(|| inner.switch_model(model))
            .map_err(session_error)
    }

    /// `export(format) -> bytes`: the session with every reduction undone, as `jsonl`,
    /// `openai`, `anthropic`, `responses` or `codex`.
    fn export<'py>(&self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyBytes>> {
        let format = crate::functions::export_format(format)?;
        let inner = &self.inner;
        let bytes = py.detach(|| inner.export(format)).map_err(session_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// `record_summary(text, retires=()) -> int`: records a compaction summary the host wrote,
    /// at the next epoch, retiring the earlier summaries whose epochs `retires` lists; returns
    /// its epoch (0 for the first) (`Session::record_summary`; SPEC seed 002).
    #[pyo3(signature = (text, retires=Vec::new()))]
    fn record_summary(&mut self, py: Python<'_>, text: &str, retires: Vec<u64>) -> PyResult<u64> {
        let inner = &mut self.inner;
        py.detach(|| inner.record_summary(text, &retires))
            .map_err(session_error)
    }

    /// `record_miss(reduction_id, reason)`: records an `expand_reduction` or `sidecar_search`
    /// the host saw miss, `reason` `"unknown"` (no such reduction) or `"digest"` (its bytes did
    /// not verify), for the divergence signals (`Session::record_miss`).
    fn record_miss(&mut self, py: Python<'_>, reduction_id: &str, reason: &str) -> PyResult<()> {
        let reason = match reason {
            "unknown" => MissReason::Unknown,
            "digest" => MissReason::Digest,
            other => {
                return Err(InputError::new_err(format!(
                    "unknown miss reason `{other}` (expected unknown or digest)"
                )));
            }
        };
        let inner = &mut self.inner;
        py.detach(|| inner.record_miss(reduction_id, reason))
            .map_err(session_error)
    }

    /// What the store's records say besides the messages and the log, as a dict: `records`
    /// (how many), `rewinds` (each the message count kept), `model_switches`
    /// (`[{"model", "touched"}]`), `reasoning_dropped` (how many leading messages lost their
    /// reasoning), `summaries` (`[{"epoch", "text", "retires"}]`) and `misses`
    /// (`[{"reduction_id", "reason"}]`) (`rehydrate_store::StoreState`).
    #[getter]
    fn state(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let state = self.inner.state();
        let value = serde_json::json!({
            "records": state.records,
            "rewinds": state.rewinds,
            "model_switches": state.model_switches,
            "reasoning_dropped": state.reasoning_dropped,
            "summaries": state.summaries,
            "misses": state.misses,
        });
        convert::to_py(py, &value)
    }

    /// `(count, bytes)`: the decided reductions waiting for their batch (cache-aware minting)
    /// and the bytes they would save together.
    #[getter]
    fn waiting(&self) -> (usize, usize) {
        self.inner.waiting()
    }

    /// Syncs every record appended so far to the disk.
    fn sync(&mut self, py: Python<'_>) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| inner.sync()).map_err(session_error)
    }
}

/// `repair_store(path) -> dict`: truncates a store file's torn tail (a record a crash left
/// half-written) back to the last whole record, under the store's lock, and says what it kept:
/// `{"records", "kept_bytes", "dropped_bytes"}`; a store without one is left as it is
/// (`rehydrate_store::repair`). Raises `SessionError` for a file that is not a store, is
/// corrupt before its tail (never truncated away) or is locked.
#[pyfunction]
pub(crate) fn repair_store(py: Python<'_>, path: PathBuf) -> PyResult<Py<PyAny>> {
    let report = py
        .detach(|| rehydrate::store::repair(&path))
        .map_err(|e| SessionError::new_err(e.to_string()))?;
    let value = serde_json::json!({
        "records": report.records,
        "kept_bytes": report.kept_bytes,
        "dropped_bytes": report.dropped_bytes,
    });
    convert::to_py(py, &value)
}
