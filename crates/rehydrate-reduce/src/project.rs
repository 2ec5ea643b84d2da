//! `project_messages`: the one-shot projection of a session's history into a reduced view.

use rehydrate_model::{Message, ReductionLog};

use crate::policy::ReductionPolicy;
use crate::reducer::Reducer;

/// The result of [`project_messages`].
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// The reduced messages the model is sent, in order.
    pub view: Vec<Message>,
    /// The input log followed by every reduction minted by this projection.
    pub log: ReductionLog,
    /// How many reductions this projection minted (the last `minted` entries of `log`).
    pub minted: usize,
}

/// Projects `history` (the full-fidelity messages, which are the minted view of every
/// reduction) into a reduced view under `policy`, reusing the decisions recorded in `log`.
///
/// Per message, in order:
/// - messages inside the turns-cleared range (the policy's, or the log's latest one that still
///   verifies when the policy clears nothing) are replaced by one stub message;
/// - a tool result already reduced in `log` whose reduction still verifies keeps its stub;
/// - with `elide_rereads`, a whole file read (by its details) read whole again later with the
///   same content is hidden behind a stub naming the later read, and with
///   `diff_rereads_max_per_mille`, a later read with other content shows a diff against the
///   earlier read instead of its text (docs/FORMATS.md, "Re-reads"), whatever the window;
/// - with `supersede_reruns`, a tool result whose call a later assistant message makes again
///   (same tool, same canonical arguments; docs/FORMATS.md, "Superseded results") is hidden
///   behind a stub naming the later result, whatever the protected window;
/// - the newest `protect_last_n_tool_results` tool results are kept as they are;
/// - an older tool result byte-identical to an earlier visible tool result becomes a duplicate
///   stub; one strictly larger than `tool_output_trigger_bytes` keeps its head and tail around
///   a stub ([`crate::truncation_span`]);
/// - when the policy sets `assistant_text_trigger_bytes`, the text of an assistant message
///   older than the newest `protect_last_n_assistant_messages` assistant messages with text,
///   strictly larger than the trigger, keeps its head and tail around a stub (its tool calls
///   and metadata are kept; a message with content parts, or one whose calls were folded, is
///   left alone);
/// - everything else is kept as it is.
///
/// Whatever the input's defects, the view is a valid request body for both APIs as far as
/// tool-call pairing goes (`rehydrate_formats::check_request`): each change made for that is a
/// pairing repair, a reduction like any other (docs/FORMATS.md, "Pairing repairs"): a call that
/// got no result is answered by a synthetic result saying so, a result whose call is not right
/// before it or that answers a call a second time is hidden behind a stub, and a result that
/// arrived after other messages is shown right after its call. The session is treated as
/// complete ([`Reducer::close`]): a call still waiting at the end gets its synthetic result.
///
/// A reduction is minted only when its view form is smaller than what it hides by at least
/// `min_saved_bytes` (pairing repairs excepted: they are made for validity). Reductions get ids `r<ordinal>.<hex>` continuing the log's ordinals.
/// Linear in the total bytes of `history` (each tool result, and each truncated assistant
/// text, is hashed once).
///
/// The result is idempotent: `project_messages(history, &p.log, policy)` returns `p` again
/// (with `minted == 0`). This is the one-shot form of [`Reducer`]: an agent that projects
/// before every model call keeps a `Reducer` instead, which does only the new work.
pub fn project_messages(
    history: &[Message],
    log: &ReductionLog,
    policy: &ReductionPolicy,
) -> Projection {
    let mut reducer = Reducer::resume(policy.clone(), log.clone());
    let minted = reducer.project(history.iter().cloned()) + reducer.close();
    let view = reducer.view().to_vec();
    let (_, log) = reducer.into_parts();
    Projection { view, log, minted }
}
