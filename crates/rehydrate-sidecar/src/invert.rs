//! `invert`: splice every original back into a view, and `verify_log`.

use std::collections::HashMap;

use rehydrate_model::{Message, REDUCTION_METADATA_KEY, Reduction, ReductionKind, ReductionLog};

use crate::error::Error;
use crate::render::stub_message;
use crate::resolve::{addressed, verify_reduction};

/// Rebuilds the original messages from a reduced `view`, its `log` and the `minted_view` the
/// log was minted against.
///
/// The view is walked in order with a cursor into the minted view. A view message equal to
/// the minted message at the cursor is unreduced and kept. Any other view message must carry
/// the [`REDUCTION_METADATA_KEY`] metadata naming a reduction that sits exactly where its
/// pointer says, verifies, and renders to that very message ([`stub_message`]); it is replaced
/// by the verified original (for turns cleared, all messages of the range). The result has
/// exactly as many messages as the minted view and equals it, or this is an error.
///
/// # Errors
///
/// Any resolution error of [`crate::resolve`] (never other bytes), and
/// [`Error::ViewMismatch`] naming the view index when an unreduced message differs from the
/// sidecar, a stub names an unknown id, sits at the wrong position, or differs from its
/// rendering, or the view is longer or shorter than the minted view.
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
        let Some(original) = minted_view.get(cursor) else {
            return Err(mismatch(format!(
                "the view continues past the sidecar's {} messages",
                minted_view.len()
            )));
        };
        // An unreduced message is the original itself (even one whose own metadata happens to
        // carry the reduction key).
        if vm == original {
            out.push(original.clone());
            continue;
        }
        let Some(id) = vm.metadata.get(REDUCTION_METADATA_KEY) else {
            return Err(mismatch(format!(
                "differs from sidecar message {cursor} and stands for no reduction"
            )));
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
