//! `rehydrate.View`: the view a projection returns, a read-only sequence of message dicts made
//! when first used.
//!
//! `Reducer.project` returns in constant time whatever the history's length: the list of dicts
//! is made (from the [`crate::convert::ViewCache`]) the first time the view is read. The
//! reducer keeps its latest view (weakly); before it changes its state it makes the dicts of
//! that view if the host still holds it unread, so every view is the snapshot of its
//! projection. A view keeps its reducer alive. `Session.view` makes its dicts at once (a view
//! does not keep a session, and its store's lock, alive).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyWeakrefReference};

use crate::reducer::Reducer;

/// The latest view an owner handed out, held weakly: when the host has dropped it, there is
/// nothing to keep.
#[derive(Default)]
pub(crate) struct Latest(Option<Py<PyWeakrefReference>>);

impl Latest {
    /// The latest view, if the host still holds it.
    pub(crate) fn get<'py>(&self, py: Python<'py>) -> Option<Bound<'py, View>> {
        let view = self.0.as_ref()?.bind(py).upgrade()?;
        view.cast_into::<View>().ok()
    }

    /// Remembers `view` as the latest.
    pub(crate) fn set(&mut self, view: &Bound<'_, View>) -> PyResult<()> {
        self.0 = Some(PyWeakrefReference::new(view.as_any())?.unbind());
        Ok(())
    }

    /// Before the owner changes: makes the dicts of the latest view if the host still holds
    /// it unread (`make` gives them), and forgets it.
    pub(crate) fn freeze(
        &mut self,
        py: Python<'_>,
        make: impl FnOnce() -> PyResult<Py<PyList>>,
    ) -> PyResult<()> {
        if let Some(view) = self.get(py)
            && !view.get().is_made(py)
        {
            let list = make()?;
            view.get().set(py, list.into_bound(py));
        }
        self.0 = None;
        Ok(())
    }
}

/// The messages a projection gives the model: a read-only sequence of message dicts
/// (`len`, indexing, slicing, iteration, `==` with a list); `list(view)` is a plain list. The
/// dicts are shared with other views of the same reducer: copy one before changing it.
#[pyclass(module = "rehydrate", name = "View", frozen, sequence, weakref)]
pub(crate) struct View {
    /// The reducer whose view it is; `None` for a view made at once.
    owner: Option<Py<Reducer>>,
    /// The owner's generation when this view was made.
    generation: u64,
    list: PyOnceLock<Py<PyList>>,
}

impl View {
    /// The view of `owner` at `generation`, its dicts made when first read.
    pub(crate) fn new(owner: Py<Reducer>, generation: u64) -> View {
        View {
            owner: Some(owner),
            generation,
            list: PyOnceLock::new(),
        }
    }

    /// A view of the dicts `list`.
    pub(crate) fn made(py: Python<'_>, list: Bound<'_, PyList>) -> View {
        let view = View {
            owner: None,
            generation: 0,
            list: PyOnceLock::new(),
        };
        view.set(py, list);
        view
    }

    /// Whether the dicts are made.
    pub(crate) fn is_made(&self, py: Python<'_>) -> bool {
        self.list.get(py).is_some()
    }

    /// Sets the dicts, made by the owner.
    pub(crate) fn set(&self, py: Python<'_>, list: Bound<'_, PyList>) {
        let _ = self.list.set(py, list.unbind());
    }

    /// The list of dicts, made now if needed.
    fn list<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyList>> {
        self.list
            .get_or_try_init(py, || {
                let owner = self
                    .owner
                    .as_ref()
                    .ok_or_else(|| crate::Error::new_err("a view made at once has its dicts"))?;
                let list = Reducer::exclusive(owner.bind(py))?.made_view(py, self.generation)?;
                Ok::<_, PyErr>(list.unbind())
            })
            .map(|list| list.bind(py))
    }
}

#[pymethods]
impl View {
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.list(py)?.len())
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.list(py)?.as_any().get_item(index)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.list(py)?.as_any().try_iter().map(Bound::into_any)
    }

    fn __contains__(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.list(py)?.contains(item)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let list = self.list(py)?;
        if let Ok(other) = other.cast::<View>() {
            return list.as_any().eq(other.get().list(py)?);
        }
        list.as_any().eq(other)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<rehydrate.View of {} messages>",
            self.list(py)?.len()
        ))
    }

    /// `index(value, start=0, stop=len)`: as `list.index`.
    #[pyo3(signature = (value, *args))]
    fn index(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        args: &Bound<'_, pyo3::types::PyTuple>,
    ) -> PyResult<usize> {
        let mut all = vec![value.clone()];
        all.extend(args.iter());
        self.list(py)?
            .call_method1("index", pyo3::types::PyTuple::new(py, all)?)?
            .extract()
    }

    /// `count(value)`: as `list.count`.
    fn count(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.list(py)?.call_method1("count", (value,))?.extract()
    }

    /// `to_list() -> list[dict]`: the messages as a new list (the dicts shared).
    fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = self.list(py)?;
        PyList::new(py, list.iter())
    }
}
