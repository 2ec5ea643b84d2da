//! `invert`: splice every original back into a view; `check_inverts`, the same check without
//! building the result; and `verify_log`.

use std::collections::HashMap;

use rehydrate_model::{Message, REDUCTION_METADATA_KEY, Reduction, ReductionKind, ReductionLog};

use crate::error::Error;
use crate::render::stub_message;
use crate::resolve::{RangeScan, addressed, verify_reduction, verify_with};

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
    let mut out = Vec::with_capacity(minted_view.len());
    walk(view, log, minted_view, |originals| {
        out.extend_from_slice(originals);
    })?;
    Ok(out)
}

/// Checks that a reduced `view` inverts to `minted_view` under `log`, without building the
/// inverted messages: the same checks as [`invert`], in the same order, with the same errors,
/// but no message is cloned. `Ok(())` exactly when [`invert`] would return `Ok` (whose result
/// then equals `minted_view`).
///
/// The view is any sequence of message references, so a view that borrows its unreduced
/// messages from the minted view is checked without copying it. Memory is proportional to the
/// log, not to the messages.
///
/// # Errors
///
/// Exactly those of [`invert`].
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, ReductionLog, Role};
/// use rehydrate_sidecar::check_inverts;
///
/// let minted = vec![Message::text(Role::User, "hi"), Message::tool_result("c1", "ok")];
/// let log = ReductionLog::default();
/// check_inverts(&minted, &log, &minted)?;
/// let err = check_inverts(&minted[..1], &log, &minted).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "view message 1: the view ends after 1 of the sidecar's 2 messages"
/// );
/// # Ok::<(), rehydrate_sidecar::Error>(())
/// ```
pub fn check_inverts<'a>(
    view: impl IntoIterator<Item = &'a Message>,
    log: &ReductionLog,
    minted_view: &[Message],
) -> Result<(), Error> {
    walk(view, log, minted_view, |_| {})
}

/// The walk shared by [`invert`] and [`check_inverts`]: checks each view message in order
/// against `minted_view` and hands `originals` the minted messages it stands for (one message,
/// or a whole turns-cleared range), in order.
fn walk<'a, 'm>(
    view: impl IntoIterator<Item = &'a Message>,
    log: &ReductionLog,
    minted_view: &'m [Message],
    mut originals: impl FnMut(&'m [Message]),
) -> Result<(), Error> {
    let by_id: HashMap<&str, &Reduction> =
        log.reductions.iter().map(|r| (r.id.as_str(), r)).collect();
    // The number of minted messages the view stood for so far: the index the next view
    // message must stand at.
    let mut cursor = 0;
    let mut view_len = 0;
    for (view_index, vm) in view.into_iter().enumerate() {
        view_len = view_index + 1;
        let stands_for = view_message(vm, view_index, cursor, &by_id, minted_view)?;
        originals(stands_for);
        cursor += stands_for.len();
    }
    if cursor != minted_view.len() {
        return Err(Error::ViewMismatch {
            view_index: view_len,
            reason: format!(
                "the view ends after {cursor} of the sidecar's {} messages",
                minted_view.len()
            ),
        });
    }
    Ok(())
}

/// Checks view message `vm` (at `view_index`) standing at minted index `cursor`, and returns
/// the minted messages it stands for.
fn view_message<'m>(
    vm: &Message,
    view_index: usize,
    cursor: usize,
    by_id: &HashMap<&str, &Reduction>,
    minted_view: &'m [Message],
) -> Result<&'m [Message], Error> {
    let mismatch = |reason: String| Error::ViewMismatch { view_index, reason };
    let Some(original) = minted_view.get(cursor) else {
        return Err(mismatch(format!(
            "the view continues past the sidecar's {} messages",
            minted_view.len()
        )));
    };
    // An unreduced message is the original itself (even one whose own metadata happens to
    // carry the reduction key); a view that borrows it from the minted view is equal at once.
    if std::ptr::eq(vm, original) || vm == original {
        return Ok(std::slice::from_ref(original));
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
    Ok(match r.kind {
        // verify_reduction checked that the range is inside the minted view.
        ReductionKind::TurnsCleared { first, last, .. } => {
            minted_view.get(first..=last).unwrap_or_default()
        }
        ReductionKind::ToolOutputTruncated { .. } | ReductionKind::DuplicateOutput { .. } => {
            std::slice::from_ref(original)
        }
    })
}

/// Resolves every reduction of `log` against `minted_view` and returns the errors in log
/// order: each reduction that does not verify, each id whose ordinal is not its position in
/// the log, each id used twice. An empty result means every reduction verified.
///
/// The turns-cleared ranges of a growing session share their first message and grow: each is
/// verified by scanning only the messages it adds to the previous one, so a log with one
/// cleared range per turn costs one pass over the cleared messages, not one per range.
pub fn verify_log(log: &ReductionLog, minted_view: &[Message]) -> Vec<Error> {
    let mut errors = Vec::new();
    let mut seen = HashMap::new();
    let mut scan = RangeScan::default();
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
        if let Err(e) = verify_with(r, minted_view, &mut scan) {
            errors.push(e);
        }
    }
    errors
}
