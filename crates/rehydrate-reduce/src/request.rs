//! Request bodies from a projection: the reduced view, and the whole session repaired, each
//! written for the OpenAI or Anthropic API so a host needs no converter.

use std::collections::BTreeSet;

use rehydrate_formats::{Api, ExportFormat, RequestError, request_body, write};
use rehydrate_model::{
    MOVED_METADATA_KEY, Message, REDUCTION_METADATA_KEY, Reduction, ReductionLog,
};

use crate::project::Projection;
use crate::reducer::Reducer;

impl Reducer {
    /// The current view as a request body for `api`, the session treated as complete
    /// ([`Reducer::close`] first, so a call still waiting gets its synthetic result).
    ///
    /// # Errors
    ///
    /// [`RequestError`] when the view breaks a rule the pairing repairs do not cover
    /// (`rehydrate_formats::check_request`): a view with no message to send, a system
    /// content part that is not text (Anthropic), an empty text part (Anthropic).
    ///
    /// # Example
    ///
    /// ```
    /// use rehydrate_model::{Message, Role};
    /// use rehydrate_reduce::{ReductionPolicy, Reducer};
    /// use rehydrate_formats::Api;
    ///
    /// let mut reducer = Reducer::new(ReductionPolicy::default());
    /// reducer.project([Message::text(Role::User, "run it"), Message::tool_call("t1", "run", "{}")]);
    /// let body = String::from_utf8(reducer.request_body(Api::OpenAi)?).unwrap();
    /// assert!(body.contains(r#"{"role":"tool","content":"[rehydrate:unanswered-call r0."#));
    /// # Ok::<(), rehydrate_formats::RequestError>(())
    /// ```
    pub fn request_body(&mut self, api: Api) -> Result<Vec<u8>, RequestError> {
        self.close();
        // The view borrows its unreduced messages: only references are collected.
        let view: Vec<&Message> = self.view().iter().collect();
        request_body(&view, api)
    }
}

/// The whole session `history` with only the pairing repairs applied
/// ([`crate::ReductionPolicy::repairs_only`]): nothing hidden to save tokens, every defect that would
/// make the API refuse the body repaired as a logged reduction.
///
/// `log` is the session's reduction log (empty for a session never reduced): its pairing
/// repairs are reused where they still verify, so a stub in the repaired session names the
/// same id as in the reduced view and resolves against the same log; its other reductions are
/// kept in the result's log (every id still resolves) but not applied. `projection.minted`
/// counts the repairs the log did not hold; [`Projection::repairs_in_view`] lists the repairs
/// the view uses.
///
/// This is the form in which a session with every reduction undone (the minted view, an
/// export) is sent again; `rehydrate_formats::request_body(&projection.view, api)` writes it.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, ReductionLog, Role};
/// use rehydrate_reduce::repair_session;
///
/// let history = vec![Message::text(Role::User, "run it"), Message::tool_call("t1", "run", "{}")];
/// let repaired = repair_session(&history, &ReductionLog::default());
/// let kinds: Vec<&str> =
///     repaired.repairs_in_view().iter().map(|r| r.kind.stub_kind().as_str()).collect();
/// assert_eq!(kinds, ["unanswered-call"]);
/// assert_eq!(repaired.view.len(), 3);
/// ```
pub fn repair_session(history: &[Message], log: &ReductionLog) -> Projection {
    let mut reducer = Reducer::resume_repairs(log.clone());
    let minted = reducer.project(history.iter().cloned()) + reducer.close();
    let view = reducer.view().to_vec();
    let (_, log) = reducer.into_parts();
    Projection { view, log, minted }
}

/// The whole session `history` with its log `log`, repaired ([`repair_session`]), written in
/// `format` (`rehydrate_formats::write`: a request body, or a format a host loads again), and
/// that projection (its view, its log, the repairs minted).
///
/// # Errors
///
/// As `rehydrate_formats::write`: the format's API rules broken by a defect no repair covers.
pub fn session_request_body(
    history: &[Message],
    log: &ReductionLog,
    format: ExportFormat,
) -> Result<(Vec<u8>, Projection), RequestError> {
    let projection = repair_session(history, log);
    let body = write(&projection.view, format)?;
    Ok((body, projection))
}

impl Projection {
    /// The pairing repairs the view uses ([`repairs_in_view`]), in log order.
    pub fn repairs_in_view(&self) -> Vec<&Reduction> {
        repairs_in_view(&self.view, &self.log)
    }
}

/// The pairing repairs of `log` that `view` uses (a message of the view stands for each, or
/// carries its moved-result mark), in log order; a view read back from a session directory
/// needs no [`Projection`].
pub fn repairs_in_view<'a>(view: &[Message], log: &'a ReductionLog) -> Vec<&'a Reduction> {
    let used: BTreeSet<&str> = view
        .iter()
        .flat_map(|m| {
            [REDUCTION_METADATA_KEY, MOVED_METADATA_KEY]
                .into_iter()
                .filter_map(|key| m.metadata.get(key).map(String::as_str))
        })
        .collect();
    log.reductions
        .iter()
        .filter(|r| r.kind.is_repair() && used.contains(r.id.as_str()))
        .collect()
}
