//! The module's functions over messages and logs: import, one-shot projection, expand,
//! invert, search, verify, request bodies, tool definitions.

use std::path::Path;
use std::str::FromStr;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rehydrate::formats::Format;
use rehydrate::intrinsics::ToolFormat;
use rehydrate::search::{SearchMode, SearchOptions};
use rehydrate::{ExportFormat, ReductionLog};

use crate::convert;
use crate::policy::ReductionPolicy;
use crate::{FormatsError, InputError, SearchError, SidecarError, api_of};

/// A tool format name: `openai` or `anthropic`.
pub(crate) fn tool_format(format: &str) -> PyResult<ToolFormat> {
    match format {
        "openai" => Ok(ToolFormat::OpenAi),
        "anthropic" => Ok(ToolFormat::Anthropic),
        other => Err(InputError::new_err(format!(
            "unknown tool format `{other}` (expected openai or anthropic)"
        ))),
    }
}

/// An export format name: `jsonl`, `openai`, `anthropic`, `responses` or `codex`.
pub(crate) fn export_format(format: &str) -> PyResult<ExportFormat> {
    ExportFormat::ALL
        .into_iter()
        .find(|f| f.as_str() == format)
        .ok_or_else(|| {
            let names: Vec<&str> = ExportFormat::ALL.iter().map(|f| f.as_str()).collect();
            InputError::new_err(format!(
                "unknown export format `{format}` (expected {})",
                names.join(", ")
            ))
        })
}

/// `import_session(data, format=None, name="<bytes>")`: the format, canonical messages and
/// warnings of a session file's bytes (the Python wrapper reads a path).
#[pyfunction]
#[pyo3(signature = (data, format=None, name="<bytes>"))]
pub(crate) fn import_session(
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
        convert::to_py(py, &imported.messages)?,
        warnings,
    ))
}

/// `project_messages(messages, log=None, policy=None) -> (view, log, minted)`: the one-shot
/// projection (`rehydrate_reduce::project_messages`). A given log is verified first: a
/// reduction that does not verify against `messages` is decided again, never served.
#[pyfunction]
#[pyo3(signature = (messages, log=None, policy=None))]
pub(crate) fn project_messages(
    py: Python<'_>,
    messages: &Bound<'_, PyAny>,
    log: Option<&Bound<'_, PyAny>>,
    policy: Option<&ReductionPolicy>,
) -> PyResult<(Py<PyAny>, Py<PyAny>, usize)> {
    let messages = convert::messages(messages, "messages")?;
    let log = convert::log(log)?;
    let policy = policy.map(|p| p.inner.clone()).unwrap_or_default();
    let out = py.detach(|| rehydrate::reduce::project_messages(&messages, &log, &policy));
    Ok((
        convert::to_py(py, &out.view)?,
        convert::to_py(py, &out.log)?,
        out.minted,
    ))
}

/// `expand_reduction(log, messages, id, byte_range=None) -> str`: the exact original bytes of
/// a reduction, verified (`rehydrate_sidecar::expand_reduction`).
#[pyfunction]
#[pyo3(signature = (log, messages, id, byte_range=None))]
pub(crate) fn expand_reduction(
    py: Python<'_>,
    log: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
    id: &str,
    byte_range: Option<(usize, usize)>,
) -> PyResult<String> {
    let log: ReductionLog = convert::value(log, "log")?;
    let messages = convert::messages(messages, "messages")?;
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
pub(crate) fn sidecar_search(
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
            return Err(InputError::new_err(format!(
                "unknown search mode `{other}` (expected auto, literal or regex)"
            )));
        }
    };
    let log: ReductionLog = convert::value(log, "log")?;
    let messages = convert::messages(messages, "messages")?;
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
    convert::json_to_py(py, &json)
}

/// `verify(log, messages) -> None`: re-checks every reduction of `log` against `messages` (the
/// digest of its exact original bytes, its facts, the log's order); the first failure is a
/// `SidecarError` naming the reduction, and the message says how many failed
/// (`rehydrate_sidecar::verify_log`).
#[pyfunction]
pub(crate) fn verify(
    py: Python<'_>,
    log: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let log: ReductionLog = convert::value(log, "log")?;
    let messages = convert::messages(messages, "messages")?;
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
pub(crate) fn invert(
    py: Python<'_>,
    view: &Bound<'_, PyAny>,
    log: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let view = convert::messages(view, "view")?;
    let log: ReductionLog = convert::value(log, "log")?;
    let messages = convert::messages(messages, "messages")?;
    let inverted = py
        .detach(|| rehydrate::sidecar::invert(&view, &log, &messages))
        .map_err(|e| SidecarError::new_err(e.to_string()))?;
    convert::to_py(py, &inverted)
}

/// `request_body(messages, api) -> bytes`: `messages` as a request body of `api` (`openai`,
/// `anthropic` or `responses`), after that API's rules (`rehydrate_formats::request_body`).
#[pyfunction]
pub(crate) fn request_body<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    api: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let api = api_of(api)?;
    let messages = convert::messages(messages, "messages")?;
    let body = py
        .detach(|| rehydrate::formats::request_body(&messages, api))
        .map_err(|e| FormatsError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &body))
}

/// `tool_definitions(format="openai") -> list[dict]`: the `expand_reduction` and
/// `sidecar_search` tool definitions a host gives its model.
#[pyfunction]
#[pyo3(signature = (format="openai"))]
pub(crate) fn tool_definitions(py: Python<'_>, format: &str) -> PyResult<Py<PyAny>> {
    convert::to_py(
        py,
        &rehydrate::intrinsics::tool_definitions(tool_format(format)?),
    )
}

/// `check_request(messages, api) -> list[dict]`: every rule of `api` (`openai`, `anthropic` or
/// `responses`) the messages break as a request body, in message order, each
/// `{"index", "rule", "id", "detail", "message"}` (`index` 0-based, `rule` its name such as
/// `unanswered-call`, `id` the tool call id involved or `None`, `message` the one-line
/// `message N (rule): detail`); empty when the messages make a valid body
/// (`rehydrate_formats::check_request`).
#[pyfunction]
pub(crate) fn check_request(
    py: Python<'_>,
    messages: &Bound<'_, PyAny>,
    api: &str,
) -> PyResult<Py<PyAny>> {
    let api = api_of(api)?;
    let messages = convert::messages(messages, "messages")?;
    let violations = py.detach(|| rehydrate::formats::check_request(&messages, api));
    let value: Vec<serde_json::Value> = violations
        .iter()
        .map(|v| {
            serde_json::json!({
                "index": v.index,
                "rule": v.rule.as_str(),
                "id": v.id,
                "detail": v.detail,
                "message": v.to_string(),
            })
        })
        .collect();
    convert::to_py(py, &value)
}

/// `write(messages, format) -> bytes`: `messages` as they are (a view, say) in `format`:
/// `jsonl` (canonical JSONL), `openai`, `anthropic` or `responses` (request bodies, after the
/// API's rules) or `codex` (a rollout) (`rehydrate_formats::write`). Raises `FormatsError`
/// naming every rule broken.
#[pyfunction]
pub(crate) fn write<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    format: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let format = export_format(format)?;
    let messages = convert::messages(messages, "messages")?;
    let bytes = py
        .detach(|| rehydrate::formats::write(&messages, format))
        .map_err(|e| FormatsError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &bytes))
}

/// `export_session(view, log, messages, format) -> bytes`: the session with every reduction of
/// `view` undone, checked to be exactly `messages` (the minted view: what the reductions were
/// minted from), written in `format` as `write` does (`rehydrate_sidecar::export_session`).
/// Raises `SidecarError` when the view does not invert to `messages` or a reduction does not
/// verify or an inverted message still holds a stub, `FormatsError` when the format's rules
/// refuse the session (a call left without a result, say).
#[pyfunction]
pub(crate) fn export_session<'py>(
    py: Python<'py>,
    view: &Bound<'py, PyAny>,
    log: &Bound<'py, PyAny>,
    messages: &Bound<'py, PyAny>,
    format: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let format = export_format(format)?;
    let view = convert::messages(view, "view")?;
    let log: ReductionLog = convert::value(log, "log")?;
    let messages = convert::messages(messages, "messages")?;
    let bytes = py
        .detach(|| rehydrate::sidecar::export_session(&view, &log, &messages, format))
        .map_err(|e| {
            use rehydrate::sidecar::ExportError as E;
            match e {
                E::Unresolved(_) | E::StubLeft { .. } | E::ReductionKeyLeft { .. } => {
                    SidecarError::new_err(e.to_string())
                }
                _ => FormatsError::new_err(e.to_string()),
            }
        })?;
    Ok(PyBytes::new(py, &bytes))
}
