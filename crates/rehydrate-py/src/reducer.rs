//! `rehydrate.Reducer`: the per-turn reducer (`rehydrate_reduce::Reducer`).

use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use rehydrate::CacheState;

use crate::convert::{self, ViewCache};
use crate::policy::ReductionPolicy;
use crate::view::{Latest, View};
use crate::{FormatsError, InputError, api_of};

/// A per-turn reducer: feed it each turn's new messages, send its view, answer the model's
/// `expand_reduction` and `sidecar_search` calls with `call` (`rehydrate_reduce::Reducer`).
#[pyclass(module = "rehydrate", name = "Reducer")]
pub(crate) struct Reducer {
    inner: rehydrate::reduce::Reducer,
    cache: ViewCache,
    /// Counts the changes of `inner`: a view is of one generation.
    generation: u64,
    /// The latest view handed out.
    latest: Latest,
    /// The reductions `sidecar_search` verified against the history, which only grows: not
    /// hashed again by the next search.
    verified: std::sync::Mutex<rehydrate::sidecar::VerifiedCache>,
}

impl Reducer {
    /// Called before `inner` changes.
    fn changing(&mut self, py: Python<'_>) -> PyResult<()> {
        let (cache, inner) = (&mut self.cache, &self.inner);
        self.latest.freeze(py, || {
            Ok(cache.view(py, inner.view(), inner.history())?.unbind())
        })?;
        self.generation += 1;
        Ok(())
    }

    /// The dicts of the view of `generation` (a [`View`] being read).
    pub(crate) fn made_view<'py>(
        &mut self,
        py: Python<'py>,
        generation: u64,
    ) -> PyResult<Bound<'py, PyList>> {
        if generation != self.generation {
            return Err(crate::Error::new_err(
                "this view is stale: its reducer changed before it was read",
            ));
        }
        self.cache.view(py, self.inner.view(), self.inner.history())
    }

    /// The reducer, borrowed for a change; a `RuntimeError` (as PyO3 raises for the methods
    /// that take the reducer themselves) when another thread is using it.
    pub(crate) fn exclusive<'py>(slf: &Bound<'py, Self>) -> PyResult<PyRefMut<'py, Self>> {
        slf.try_borrow_mut().map_err(|_| {
            pyo3::exceptions::PyRuntimeError::new_err(
                "Already borrowed: this Reducer is in use by another thread (a Reducer is for one thread at a time)",
            )
        })
    }

    /// The view of the current generation, as one handle.
    fn handle(slf: &Bound<'_, Self>) -> PyResult<Py<View>> {
        let py = slf.py();
        let mut this = Reducer::exclusive(slf)?;
        if let Some(view) = this.latest.get(py) {
            return Ok(view.unbind());
        }
        let view = Bound::new(py, View::new(slf.clone().unbind(), this.generation))?;
        this.latest.set(&view)?;
        Ok(view.unbind())
    }
}

/// The prompt-cache state of an `idle_seconds` argument: warm for `None`.
pub(crate) fn cache_state(idle_seconds: Option<f64>) -> PyResult<CacheState> {
    match idle_seconds {
        None => Ok(CacheState::Warm),
        Some(s) => Duration::try_from_secs_f64(s).map(CacheState::Idle).map_err(|_| {
            InputError::new_err(format!(
                "idle_seconds: {s} is not a duration (expected a non-negative number of seconds)"
            ))
        }),
    }
}

#[pymethods]
impl Reducer {
    /// `Reducer(policy=None, log=None)`: a fresh reducer, or one that resumes `log` (the
    /// messages it covers are fed again with `project`; a logged reduction is reused while it
    /// verifies against them, else decided again).
    #[new]
    #[pyo3(signature = (policy=None, log=None))]
    fn new(policy: Option<&ReductionPolicy>, log: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let policy = policy.map(|p| p.inner.clone()).unwrap_or_default();
        let inner = match log {
            Some(log) if !log.is_none() => {
                rehydrate::reduce::Reducer::resume(policy, convert::value(log, "log")?)
            }
            _ => rehydrate::reduce::Reducer::new(policy),
        };
        Ok(Reducer {
            inner,
            cache: ViewCache::default(),
            generation: 0,
            latest: Latest::default(),
            verified: std::sync::Mutex::default(),
        })
    }

    /// `project(new_messages, idle_seconds=None) -> View`: appends the new messages, decides
    /// what to reduce, and returns the view to send. `idle_seconds` is the time since the last
    /// request: `None` when the view as last projected is cached (the provider's prompt cache
    /// is warm), else cold once it reaches the policy's cache lifetime; a reduction of a cached
    /// message waits until it saves enough or the cache is cold (README, "Presets").
    ///
    /// Returns in time independent of the history's length: the view's dicts are made when it
    /// is first read, and then only those that changed (the dicts passed in are the history's
    /// from now on, not copied: do not change them afterwards).
    #[pyo3(signature = (new_messages, idle_seconds=None))]
    fn project(
        slf: &Bound<'_, Self>,
        new_messages: &Bound<'_, PyAny>,
        idle_seconds: Option<f64>,
    ) -> PyResult<Py<View>> {
        let py = slf.py();
        let new = convert::messages(new_messages, "new_messages")?;
        let cache = cache_state(idle_seconds)?;
        {
            let mut this = Reducer::exclusive(slf)?;
            this.changing(py)?;
            let before = this.inner.history().len();
            let inner = &mut this.inner;
            py.detach(|| inner.project_cached(new, cache));
            this.cache.adopt(new_messages, before)?;
        }
        Reducer::handle(slf)
    }

    /// The current view (the `View` the last `project` returned).
    #[getter]
    fn view(slf: &Bound<'_, Self>) -> PyResult<Py<View>> {
        Reducer::handle(slf)
    }

    /// The reduction log, as a dict.
    #[getter]
    fn log(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::to_py(py, self.inner.log())
    }

    /// The full-fidelity history every reduction points into, as a new list (its dicts shared
    /// with the view's).
    #[getter]
    fn history<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cache.history(py, self.inner.history())
    }

    /// The policy this reducer projects with.
    #[getter]
    fn policy(&self) -> ReductionPolicy {
        ReductionPolicy {
            inner: self.inner.policy().clone(),
        }
    }

    /// `(count, bytes)`: the decided reductions waiting for their batch (cache-aware minting)
    /// and the bytes they would save together.
    #[getter]
    fn waiting(&self) -> (usize, usize) {
        self.inner.waiting()
    }

    /// `call(name, arguments) -> (content, is_error)`: one `expand_reduction` or
    /// `sidecar_search` call of the model, `arguments` its JSON text, answered exactly as the
    /// model is to see it (`rehydrate_intrinsics::Intrinsics::call_cached`; never raises: a
    /// bad call is a tool error the model reads). A reduction a search verified is not hashed
    /// again by the next one.
    fn call(&self, py: Python<'_>, name: &str, arguments: &str) -> (String, bool) {
        let (inner, verified) = (&self.inner, &self.verified);
        let out = py.detach(|| {
            let context = rehydrate::intrinsics::CallContext::new(inner.log(), inner.history());
            let mut verified = verified
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            rehydrate::intrinsics::Intrinsics::call_cached(name, arguments, &context, &mut verified)
        });
        (out.content, out.is_error)
    }

    /// `request_body(api) -> bytes`: the view as a request body of `openai`, `anthropic` or
    /// `responses`, closed first (`close`: a call still unanswered gets its synthetic result,
    /// which the next `project` drops), so a trailing call does not make it invalid
    /// (`rehydrate_reduce::Reducer::request_body`). Raises `FormatsError` for a defect no
    /// repair covers.
    fn request_body<'py>(&mut self, py: Python<'py>, api: &str) -> PyResult<Bound<'py, PyBytes>> {
        let api = api_of(api)?;
        self.changing(py)?;
        let inner = &mut self.inner;
        let body = py
            .detach(|| inner.request_body(api))
            .map_err(|e| FormatsError::new_err(e.to_string()))?;
        Ok(PyBytes::new(py, &body))
    }

    /// `close() -> int`: gives every call still unanswered a synthetic result, so the view is a
    /// finished conversation (as `project_messages` returns it); the next `project` drops them
    /// again. Returns how many reductions it minted.
    fn close(&mut self, py: Python<'_>) -> PyResult<usize> {
        self.changing(py)?;
        Ok(self.inner.close())
    }
}
