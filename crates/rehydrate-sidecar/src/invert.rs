//! `invert`: splice every original back into a view, and `verify_log`.

use std::collections::HashMap;

use rehydrate_model::{Message, REDUCTION_METADATA_KEY, Reduction, ReductionKind, ReductionLog};

use crate::error::Error;
use crate::render::stub_message;
use crate::resolve::{addressed, verify_reduction};

/// Rebuilds the original messages from a reduced `view`, its `log` and the `minted_view` the
/// log was minted against.
///
/// The view is walked in order with a cursor into the minted view. A view message without the
/// [`REDUCTION_METADATA_KEY`] metadata is an unreduced message and is kept as it is (one
/// original message). A view message naming a reduction must sit exactly where its pointer
/// says, must verify, and must equal [`stub_message`] of that reduction; it is replaced by the
/// verified original (for turns cleared, all messages of the range). The result has exactly
/// as many messages as the minted view.
///
/// # Errors
///
/// Any resolution error of [`crate::resolve`] (never other bytes), and
/// [`Error::ViewMismatch`] naming the view index when a stub names an unknown id, sits at the
/// wrong position, differs from its rendering, or the view is longer or shorter than the minted
/// view.
pub fn invert(
    view: &[Message],
    log: &ReductionLog,
    minted_view: &[Message],
) -> Result<Vec<Message>, Error> {
    let by_id: HashMap<&str, &Reduction> =
        log.reductions.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut out = Vec::with_capacity(minted_view.len());
    for (view_index, vm) in view.iter().enumerate() {
        let mismatch = |reason: String| Error::ViewMismatch { view_index, reason };
        let cursor = out.len();
        let Some(id) = vm.metadata.get(REDUCTION_METADATA_KEY) else {
            if cursor >= minted_view.len() {
                return Err(mismatch(format!(
                    "the view continues past the sidecar's {} messages",
                    minted_view.len()
                )));
            }
            out.push(vm.clone());
            continue;
        };
        let r = by_id
            .get(id.as_str())
            .ok_or_else(|| mismatch(format!("names reduction `{id}`, which is not in the log")))?;
        if r.ptr.addr.index != cursor {
            return Err(mismatch(format!(
                "reduction {id} addresses message {} but stands at message {cursor}",
                r.ptr.addr.index
            )));
        }
        verify_reduction(r, minted_view)?;
        let expected = stub_message(r, addressed(r, minted_view)?)?;
        if *vm != expected {
            return Err(mismatch(format!(
                "does not match the stub of reduction {id}"
            )));
        }
        match r.kind {
            ReductionKind::TurnsCleared { first, last, .. } => {
                out.extend_from_slice(&minted_view[first..=last]);
            }
            ReductionKind::ToolOutputTruncated { .. } | ReductionKind::DuplicateOutput { .. } => {
                out.push(minted_view[cursor].clone());
            }
        }
    }
    if out.len() != minted_view.len() {
        return Err(Error::ViewMismatch {
            view_index: view.len(),
            reason: format!(
                "the view ends after {} of the sidecar's {} messages",
                out.len(),
                minted_view.len()
            ),
        });
    }
    Ok(out)
}

/// Resolves every reduction of `log` against `minted_view` and returns the errors in log
/// order: each reduction that does not verify, each id whose ordinal is not its position in
/// the log, each id used twice. An empty result means every reduction verified.
pub fn verify_log(log: &ReductionLog, minted_view: &[Message]) -> Vec<Error> {
    let mut errors = Vec::new();
    let mut seen = HashMap::new();
    for (ordinal, r) in log.reductions.iter().enumerate() {
        if r.id.ordinal() != ordinal {
            errors.push(Error::Inconsistent {
                id: r.id.to_string(),
                reason: format!(
                    "id names ordinal {} but stands at log position {ordinal}",
                    r.id.ordinal()
                ),
            });
        }
        if let Some(previous) = seen.insert(r.id.as_str(), ordinal) {
            errors.push(Error::Inconsistent {
                id: r.id.to_string(),
                reason: format!("id used twice, at log positions {previous} and {ordinal}"),
            });
        }
        if let Err(e) = verify_reduction(r, minted_view) {
            errors.push(e);
        }
    }
    errors
}
