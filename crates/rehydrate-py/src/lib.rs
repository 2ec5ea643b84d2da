//! `rehydrate._rehydrate`, the extension module behind the `rehydrate` Python package
//! (python/, docs/PYTHON.md): the crates' functions over plain Python values.
//!
//! Messages cross as lists of dicts in the canonical shape (docs/FORMATS.md, "Canonical
//! message"; an OpenAI chat message is one), a reduction log as the dict of its JSON form
//! (`{"reductions":[…]}`). In, they are read straight from the Python objects; out, a batch
//! is one JSON text and one `json.loads` (`convert`). A reducer's view is a `View` (`view`)
//! whose dicts are made when it is first read, and only those that changed since the last
//! view, so `Reducer.project` costs the same at turn 1,000 as at turn 10. The work itself runs
//! with the interpreter detached (other Python threads run meanwhile).
//!
//! Errors are Python exceptions, one class per crate error, all subclasses of
//! `rehydrate.Error`, carrying the crate's one-line message; an argument of the wrong value is
//! an `InputError` naming it.

mod analysis;
mod convert;
mod dir;
mod functions;
mod policy;
mod reducer;
mod session;
mod view;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use rehydrate::formats::Api;

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
    EvidenceError,
    Error,
    "An event log that does not fold, a turn split by another, or evidence over its size limit."
);
pyo3::create_exception!(
    rehydrate,
    SignalsError,
    Error,
    "Signals that say freeze (auto-compaction must stop) or whose validity conditions do not hold."
);
pyo3::create_exception!(
    rehydrate,
    InputError,
    Error,
    "Messages, a log or an argument that is not of the documented shape or value."
);

/// An API name: `openai`, `anthropic` or `responses`.
pub(crate) fn api_of(api: &str) -> PyResult<Api> {
    match api {
        "openai" => Ok(Api::OpenAi),
        "anthropic" => Ok(Api::Anthropic),
        "responses" => Ok(Api::Responses),
        other => Err(InputError::new_err(format!(
            "unknown API `{other}` (expected openai, anthropic or responses)"
        ))),
    }
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
    m.add("EvidenceError", py.get_type::<EvidenceError>())?;
    m.add("SignalsError", py.get_type::<SignalsError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add_class::<policy::ReductionPolicy>()?;
    m.add_class::<reducer::Reducer>()?;
    m.add_class::<session::Session>()?;
    m.add_class::<view::View>()?;
    m.add_class::<dir::SessionDir>()?;
    m.add_function(wrap_pyfunction!(functions::import_session, m)?)?;
    m.add_function(wrap_pyfunction!(functions::project_messages, m)?)?;
    m.add_function(wrap_pyfunction!(functions::expand_reduction, m)?)?;
    m.add_function(wrap_pyfunction!(functions::invert, m)?)?;
    m.add_function(wrap_pyfunction!(functions::sidecar_search, m)?)?;
    m.add_function(wrap_pyfunction!(functions::verify, m)?)?;
    m.add_function(wrap_pyfunction!(functions::request_body, m)?)?;
    m.add_function(wrap_pyfunction!(functions::tool_definitions, m)?)?;
    m.add_function(wrap_pyfunction!(functions::check_request, m)?)?;
    m.add_function(wrap_pyfunction!(functions::write, m)?)?;
    m.add_function(wrap_pyfunction!(functions::export_session, m)?)?;
    m.add_function(wrap_pyfunction!(session::repair_store, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::file_records, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::replay, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::staleness, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::session_events, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::project_evidence, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::assess, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::compaction_signals, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::auto_compact, m)?)?;
    m.add_function(wrap_pyfunction!(convert::_read_messages, m)?)?;
    Ok(())
}
