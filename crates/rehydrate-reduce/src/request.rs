//! Request bodies from a projection: the reduced view, and the whole session repaired, each
//! written for the OpenAI or Anthropic API so a host needs no converter.

use rehydrate_model::{Message, ReductionLog};
use rehydrate_sidecar::{Api, RequestError, request_body};

use crate::policy::ReductionPolicy;
use crate::project::{Projection, project_messages};
use crate::reducer::Reducer;

impl Reducer {
    /// The current view as a request body for `api`, the session treated as complete
    /// ([`Reducer::close`] first, so a call still waiting gets its synthetic result).
    ///
    /// # Errors
    ///
    /// [`RequestError`] when the view breaks a rule the pairing repairs do not cover
    /// (`rehydrate_sidecar::check_request`): a view with no message to send, a system
    /// content part that is not text (Anthropic), an empty text part (Anthropic).
    ///
    /// # Example
    ///
    /// ```
    /// use rehydrate_model::{Message, Role};
    /// use rehydrate_reduce::{ReductionPolicy, Reducer};
    /// use rehydrate_sidecar::Api;
    ///
    /// let mut reducer = Reducer::new(ReductionPolicy::default());
    /// reducer.project([Message::text(Role::User, "run it"), Message::tool_call("t1", "run", "{}")]);
    /// let body = String::from_utf8(reducer.request_body(Api::OpenAi)?).unwrap();
    /// assert!(body.contains(r#"{"role":"tool","content":"[rehydrate:unanswered-call r0."#));
    /// # Ok::<(), rehydrate_sidecar::RequestError>(())
    /// ```
    pub fn request_body(&mut self, api: Api) -> Result<Vec<u8>, RequestError> {
        self.close();
        let view: Vec<Message> = self.view().to_vec();
        request_body(&view, api)
    }
}

/// The whole session `history` with only the pairing repairs applied
/// ([`ReductionPolicy::repairs_only`]): nothing hidden to save tokens, every defect that would
/// make the API refuse the body repaired as a logged reduction. `projection.log` lists the
/// repairs (empty when there was nothing to repair).
///
/// This is the form in which a session with every reduction undone (the minted view, an
/// export) is sent again; `rehydrate_sidecar::request_body(&projection.view, api)` writes it.
pub fn repair_session(history: &[Message]) -> Projection {
    project_messages(
        history,
        &ReductionLog::default(),
        &ReductionPolicy::repairs_only(),
    )
}

/// The request body for `api` of the whole session `history`, repaired ([`repair_session`]),
/// and the repairs made.
///
/// # Errors
///
/// As [`Reducer::request_body`].
pub fn session_request_body(
    history: &[Message],
    api: Api,
) -> Result<(Vec<u8>, ReductionLog), RequestError> {
    let projection = repair_session(history);
    let body = request_body(&projection.view, api)?;
    Ok((body, projection.log))
}
