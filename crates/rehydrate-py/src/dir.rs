//! `rehydrate.SessionDir`: the output directory of `rehydrate reduce`, read back and checked
//! (`rehydrate_store::SessionDir`).

use std::path::PathBuf;

use pyo3::prelude::*;
use rehydrate::signals::CompactionSignals;
use serde_json::json;

use crate::analysis::path_arg;
use crate::convert;
use crate::{SessionError, SidecarError, SignalsError};

/// A store or directory error as a `SessionError`, with the crate's message (a damaged
/// directory's has one line per problem).
fn store_error(e: rehydrate::store::Error) -> PyErr {
    SessionError::new_err(e.to_string())
}

/// The output directory of `rehydrate reduce` (`view.json`, `reductions.json`, the sidecar
/// store and its manifest), read back under its shared lock, every file checked against the
/// manifest (`rehydrate_store::SessionDir`). The lock is released once read: a `SessionDir` is
/// what the files held then.
#[pyclass(module = "rehydrate", name = "SessionDir", frozen)]
pub(crate) struct SessionDir {
    inner: rehydrate::SessionDir,
    path: PathBuf,
}

#[pymethods]
impl SessionDir {
    /// `SessionDir.open(path) -> SessionDir`: reads the directory `path`
    /// (`rehydrate_store::SessionDir::open`). Files that parse but differ from the manifest are
    /// not an error here: see `file_mismatches` and `verify`. Raises `SessionError` when `path`
    /// is not an output directory, is locked by a writer, cannot be read, or is damaged (a
    /// manifest or file that does not parse, a file missing or larger than recorded).
    #[staticmethod]
    fn open(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Self> {
        let path = path_arg(path, "path")?;
        let inner = py
            .detach(|| rehydrate::SessionDir::open(&path))
            .map_err(store_error)?;
        Ok(SessionDir { inner, path })
    }

    /// `SessionDir.repair(path) -> dict`: restores a directory whose sidecar store a write cut
    /// short, all or nothing (`rehydrate_store::SessionDir::repair`): `{"lines": [str, ...],
    /// "reductions": int, "messages": int}`, one line per change (none when there was nothing
    /// to repair) and what the directory holds afterwards. Raises `SessionError` when it
    /// cannot be restored (the message's last line says nothing was changed) or read.
    #[staticmethod]
    fn repair(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let path = path_arg(path, "path")?;
        let repaired = py
            .detach(|| rehydrate::SessionDir::repair(&path))
            .map_err(store_error)?;
        convert::to_py(
            py,
            &json!({
                "lines": repaired.lines,
                "reductions": repaired.reductions,
                "messages": repaired.messages,
            }),
        )
    }

    /// The directory's path, as given.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The sidecar store's messages, a new list of dicts: the session as imported, every
    /// reduction's source (its history).
    #[getter]
    fn messages(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::to_py(py, &self.inner.sidecar)
    }

    /// `view.json`: the reduced view, a new list of dicts.
    #[getter]
    fn view(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::to_py(py, &self.inner.view)
    }

    /// `reductions.json`: the reduction log, a dict `{"reductions": [...]}`.
    #[getter]
    fn log(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::to_py(py, &self.inner.log)
    }

    /// `sidecar/manifest.json`, a dict: `format`, `version`, `source` (the session file),
    /// `source_format`, `messages` (the count) and `files` (per file, `bytes` and `blake3`).
    #[getter]
    fn manifest(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::to_py(py, &self.inner.manifest)
    }

    /// The compaction summaries the store records, in order: `{"epoch", "text", "retires"?}`.
    #[getter]
    fn summaries(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::to_py(py, &self.inner.summaries)
    }

    /// The expand and search misses the store records, in order: `{"reduction_id", "reason"}`.
    #[getter]
    fn misses(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::to_py(py, &self.inner.misses)
    }

    /// The files whose bytes differ from the manifest, one line each (empty for a sound
    /// directory).
    #[getter]
    fn file_mismatches(&self) -> Vec<String> {
        self.inner.file_mismatches.clone()
    }

    /// The divergence signals of the directory's store, as `compaction_signals` gives them
    /// (`rehydrate_signals::CompactionSignals::from_records`); `SignalsError` when a validity
    /// condition does not hold.
    #[getter]
    fn signals(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let d = &self.inner;
        let signals = CompactionSignals::from_records(&d.log, &d.summaries, &d.misses)
            .map_err(|e| SignalsError::new_err(e.to_string()))?;
        convert::to_py(py, &signals)
    }

    /// `verify() -> None`: every check `rehydrate verify` makes of the reduction: the files
    /// match the manifest (`SessionError` with one line per mismatch,
    /// `SessionDir::refuse_mismatched`), every reduction verifies against the sidecar's
    /// messages (`SidecarError`, the first failure and how many more,
    /// `rehydrate_sidecar::verify_log`), and the view inverts to them (`SidecarError`,
    /// `rehydrate_sidecar::check_inverts`).
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        let d = &self.inner;
        d.refuse_mismatched().map_err(store_error)?;
        let errors = py.detach(|| rehydrate::sidecar::verify_log(&d.log, &d.sidecar));
        match errors.as_slice() {
            [] => {}
            [only] => return Err(SidecarError::new_err(only.to_string())),
            [first, rest @ ..] => {
                return Err(SidecarError::new_err(format!(
                    "{first} (and {} more)",
                    rest.len()
                )));
            }
        }
        py.detach(|| rehydrate::sidecar::check_inverts(&d.view, &d.log, &d.sidecar))
            .map_err(|e| SidecarError::new_err(e.to_string()))
    }

    fn __repr__(&self) -> String {
        format!(
            "SessionDir({:?}: {} messages, {} reductions)",
            self.path.display().to_string(),
            self.inner.sidecar.len(),
            self.inner.log.len()
        )
    }
}
