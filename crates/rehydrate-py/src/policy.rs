//! `rehydrate.ReductionPolicy`: the presets and every knob of `rehydrate_reduce::ReductionPolicy`
//! as keyword arguments.

use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};
use rehydrate::Minting;

use crate::InputError;
use crate::convert::type_name;

/// A reduction policy: which reductions a projection makes (docs/FORMATS.md, "View"; each knob
/// is the field of `rehydrate_reduce::ReductionPolicy` of the same name, sizes in bytes).
#[pyclass(module = "rehydrate", name = "ReductionPolicy", frozen, eq)]
#[derive(Clone, PartialEq)]
pub(crate) struct ReductionPolicy {
    pub(crate) inner: rehydrate::ReductionPolicy,
}

impl ReductionPolicy {
    /// `base` with `knobs` set.
    fn with(
        mut base: rehydrate::ReductionPolicy,
        knobs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        for (name, value) in knobs.into_iter().flat_map(|k| k.iter()) {
            let name: String = name.extract()?;
            set(&mut base, &name, &value)?;
        }
        Ok(ReductionPolicy { inner: base })
    }
}

/// Sets knob `name` of `policy` to `value`.
fn set(
    policy: &mut rehydrate::ReductionPolicy,
    name: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let p = policy;
    match name {
        "tool_output_trigger_bytes" => p.tool_output_trigger_bytes = size(name, value)?,
        "head_bytes" => p.head_bytes = size(name, value)?,
        "tail_bytes" => p.tail_bytes = size(name, value)?,
        "protect_last_n_tool_results" => p.protect_last_n_tool_results = size(name, value)?,
        "dedupe_outputs" => p.dedupe_outputs = flag(name, value)?,
        "clear_turns_older_than" => p.clear_turns_older_than = optional(name, value, size)?,
        "turns_summary" => p.turns_summary = optional(name, value, text)?,
        "follow_compactions" => p.follow_compactions = flag(name, value)?,
        "min_saved_bytes" => p.min_saved_bytes = size(name, value)?,
        "assistant_text_trigger_bytes" => {
            p.assistant_text_trigger_bytes = optional(name, value, size)?;
        }
        "assistant_text_head_bytes" => p.assistant_text_head_bytes = size(name, value)?,
        "assistant_text_tail_bytes" => p.assistant_text_tail_bytes = size(name, value)?,
        "protect_last_n_assistant_messages" => {
            p.protect_last_n_assistant_messages = size(name, value)?;
        }
        "tool_input_trigger_bytes" => p.tool_input_trigger_bytes = optional(name, value, size)?,
        "tool_input_fields" => p.tool_input_fields = texts(name, value)?,
        "supersede_reruns" => p.supersede_reruns = flag(name, value)?,
        "superseded_command_fields" => p.superseded_command_fields = texts(name, value)?,
        "elide_rereads" => p.elide_rereads = flag(name, value)?,
        "diff_rereads_max_per_mille" => {
            p.diff_rereads_max_per_mille = optional(name, value, |n, v| {
                u32::try_from(size(n, v)?)
                    .map_err(|_| InputError::new_err(format!("{n}: too large")))
            })?;
        }
        "normalize_terminal_output" => p.normalize_terminal_output = flag(name, value)?,
        "image_trigger_bytes" => p.image_trigger_bytes = optional(name, value, size)?,
        "protect_last_n_image_messages" => p.protect_last_n_image_messages = size(name, value)?,
        "minting" => p.minting = minting(value)?,
        other => {
            // The names `to_dict` gives, in the order of the Rust struct's fields.
            let known = ReductionPolicy { inner: p.clone() }.to_dict(value.py())?;
            let names: Vec<String> = known.keys().iter().map(|k| k.to_string()).collect();
            return Err(InputError::new_err(format!(
                "unknown policy knob `{other}` (expected one of {})",
                names.join(", ")
            )));
        }
    }
    Ok(())
}

/// A size or count: a non-negative int (not a bool).
pub(crate) fn size(name: &str, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(InputError::new_err(format!(
            "{name}: expected a non-negative int, got {}",
            type_name(value)
        )));
    }
    value.extract::<usize>().map_err(|_| {
        InputError::new_err(format!("{name}: expected a non-negative int, got {value}"))
    })
}

fn flag(name: &str, value: &Bound<'_, PyAny>) -> PyResult<bool> {
    value.cast::<PyBool>().map(|b| b.is_true()).map_err(|_| {
        InputError::new_err(format!("{name}: expected a bool, got {}", type_name(value)))
    })
}

/// A `str`.
pub(crate) fn text(name: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = value.cast::<PyString>().map_err(|_| {
        InputError::new_err(format!("{name}: expected a str, got {}", type_name(value)))
    })?;
    text.to_str().map(str::to_owned).map_err(|_| {
        InputError::new_err(format!(
            "{name}: not valid Unicode text (a lone surrogate cannot be written as UTF-8)"
        ))
    })
}

fn texts(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if value.is_instance_of::<PyString>() {
        return Err(InputError::new_err(format!(
            "{name}: expected a list of str, got str"
        )));
    }
    value
        .try_iter()
        .map_err(|_| {
            InputError::new_err(format!(
                "{name}: expected a list of str, got {}",
                type_name(value)
            ))
        })?
        .map(|item| text(name, &item?))
        .collect()
}

/// `None` or what `each` reads.
fn optional<T>(
    name: &str,
    value: &Bound<'_, PyAny>,
    each: impl Fn(&str, &Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Option<T>> {
    if value.is_none() {
        Ok(None)
    } else {
        each(name, value).map(Some)
    }
}

/// `"per-turn"`, or a dict `{"min_saved_bytes", "min_saved_per_mille", "cache_ttl_seconds"}`
/// (cache-aware; missing keys take the default preset's values).
fn minting(value: &Bound<'_, PyAny>) -> PyResult<Minting> {
    if let Ok(name) = value.cast::<PyString>() {
        return match name.to_str()? {
            "per-turn" => Ok(Minting::PerTurn),
            "cache-aware" => Ok(rehydrate::ReductionPolicy::default().minting),
            other => Err(InputError::new_err(format!(
                "minting: unknown `{other}` (expected per-turn, cache-aware or a dict)"
            ))),
        };
    }
    let dict = value.cast::<PyDict>().map_err(|_| {
        InputError::new_err(format!(
            "minting: expected a str or a dict, got {}",
            type_name(value)
        ))
    })?;
    let Minting::CacheAware {
        mut min_saved_bytes,
        mut min_saved_per_mille,
        mut cache_ttl,
    } = rehydrate::ReductionPolicy::default().minting
    else {
        unreachable!("the default preset mints cache-aware")
    };
    for (key, value) in dict.iter() {
        let key: String = key.extract()?;
        match key.as_str() {
            "min_saved_bytes" => min_saved_bytes = size("minting.min_saved_bytes", &value)?,
            "min_saved_per_mille" => {
                min_saved_per_mille = u32::try_from(size("minting.min_saved_per_mille", &value)?)
                    .map_err(|_| {
                    InputError::new_err("minting.min_saved_per_mille: too large")
                })?;
            }
            "cache_ttl_seconds" => {
                let seconds: f64 = value.extract().map_err(|_| {
                    InputError::new_err("minting.cache_ttl_seconds: expected a number")
                })?;
                cache_ttl = Duration::try_from_secs_f64(seconds).map_err(|_| {
                    InputError::new_err(format!(
                        "minting.cache_ttl_seconds: {seconds} is not a duration"
                    ))
                })?;
            }
            other => {
                return Err(InputError::new_err(format!(
                    "minting: unknown key `{other}` (expected min_saved_bytes, \
                     min_saved_per_mille, cache_ttl_seconds)"
                )));
            }
        }
    }
    Ok(Minting::CacheAware {
        min_saved_bytes,
        min_saved_per_mille,
        cache_ttl,
    })
}

#[pymethods]
impl ReductionPolicy {
    /// `ReductionPolicy(preset="default", **knobs)`: a preset with some knobs changed.
    #[new]
    #[pyo3(signature = (preset="default", **knobs))]
    fn new(preset: &str, knobs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let base = match preset {
            "default" => rehydrate::ReductionPolicy::default(),
            "aggressive" => rehydrate::ReductionPolicy::aggressive(),
            other => {
                return Err(InputError::new_err(format!(
                    "unknown preset `{other}` (expected default or aggressive)"
                )));
            }
        };
        ReductionPolicy::with(base, knobs)
    }

    /// The conservative preset (`rehydrate reduce --preset default`), with `knobs` changed.
    #[staticmethod]
    #[pyo3(signature = (**knobs))]
    #[allow(clippy::should_implement_trait)] // a Python static method, named as the preset
    fn default(knobs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        ReductionPolicy::with(rehydrate::ReductionPolicy::default(), knobs)
    }

    /// Every reduction kind on (`rehydrate reduce --preset aggressive`), with `knobs` changed.
    #[staticmethod]
    #[pyo3(signature = (**knobs))]
    fn aggressive(knobs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        ReductionPolicy::with(rehydrate::ReductionPolicy::aggressive(), knobs)
    }

    /// `replace(**knobs) -> ReductionPolicy`: this policy with `knobs` changed.
    #[pyo3(signature = (**knobs))]
    fn replace(&self, knobs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        ReductionPolicy::with(self.inner.clone(), knobs)
    }

    /// `to_dict() -> dict`: every knob and its value, as the keyword arguments take them.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = &self.inner;
        let d = PyDict::new(py);
        d.set_item("tool_output_trigger_bytes", p.tool_output_trigger_bytes)?;
        d.set_item("head_bytes", p.head_bytes)?;
        d.set_item("tail_bytes", p.tail_bytes)?;
        d.set_item("protect_last_n_tool_results", p.protect_last_n_tool_results)?;
        d.set_item("dedupe_outputs", p.dedupe_outputs)?;
        d.set_item("clear_turns_older_than", p.clear_turns_older_than)?;
        d.set_item("turns_summary", p.turns_summary.as_deref())?;
        d.set_item("follow_compactions", p.follow_compactions)?;
        d.set_item("min_saved_bytes", p.min_saved_bytes)?;
        d.set_item(
            "assistant_text_trigger_bytes",
            p.assistant_text_trigger_bytes,
        )?;
        d.set_item("assistant_text_head_bytes", p.assistant_text_head_bytes)?;
        d.set_item("assistant_text_tail_bytes", p.assistant_text_tail_bytes)?;
        d.set_item(
            "protect_last_n_assistant_messages",
            p.protect_last_n_assistant_messages,
        )?;
        d.set_item("tool_input_trigger_bytes", p.tool_input_trigger_bytes)?;
        d.set_item("tool_input_fields", &p.tool_input_fields)?;
        d.set_item("supersede_reruns", p.supersede_reruns)?;
        d.set_item("superseded_command_fields", &p.superseded_command_fields)?;
        d.set_item("elide_rereads", p.elide_rereads)?;
        d.set_item("diff_rereads_max_per_mille", p.diff_rereads_max_per_mille)?;
        d.set_item("normalize_terminal_output", p.normalize_terminal_output)?;
        d.set_item("image_trigger_bytes", p.image_trigger_bytes)?;
        d.set_item(
            "protect_last_n_image_messages",
            p.protect_last_n_image_messages,
        )?;
        match p.minting {
            Minting::PerTurn => d.set_item("minting", "per-turn")?,
            Minting::CacheAware {
                min_saved_bytes,
                min_saved_per_mille,
                cache_ttl,
            } => {
                let m = PyDict::new(py);
                m.set_item("min_saved_bytes", min_saved_bytes)?;
                m.set_item("min_saved_per_mille", min_saved_per_mille)?;
                m.set_item("cache_ttl_seconds", cache_ttl.as_secs_f64())?;
                d.set_item("minting", m)?;
            }
        }
        Ok(d)
    }

    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        let dict = self.to_dict(py)?;
        match dict.get_item(name)? {
            Some(value) => Ok(value.unbind()),
            None => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "'ReductionPolicy' object has no attribute '{name}'"
            ))),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let fields: Vec<String> = self
            .to_dict(py)?
            .iter()
            .map(|(k, v)| Ok(format!("{k}={}", v.repr()?)))
            .collect::<PyResult<_>>()?;
        Ok(format!("ReductionPolicy({})", fields.join(", ")))
    }
}
