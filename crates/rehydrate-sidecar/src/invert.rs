//! `invert`: splice every original back into a view; `check_inverts`, the same check without
//! building the result; and `verify_log`.

use std::collections::{BTreeSet, HashMap};

use rehydrate_model::{
    MOVED_METADATA_KEY, Message, REDUCTION_METADATA_KEY, Reduction, ReductionKind, ReductionLog,
};

use crate::error::Error;
use crate::memo::VerifiedCache;
use crate::render::stub_message;
use crate::resolve::{RangeScan, addressed, verify_reduction, verify_with};

/// Rebuilds the original messages from a reduced `view`, its `log` and the `minted_view` the
/// log was minted against.
///
/// The view is walked in order with a cursor into the minted view. A view message equal to
/// the minted message at the cursor is unreduced and kept. Any other view message must carry
/// the [`REDUCTION_METADATA_KEY`] metadata naming a reduction that sits exactly where its
/// pointer says, verifies, and renders to that very message ([`stub_message`]); it is replaced
/// by the verified original (for turns cleared, all messages of the range). Two pairing repairs
/// stand elsewhere: a synthetic result of an unanswered call stands for no message at all (it
/// must follow its call), and a message carrying [`MOVED_METADATA_KEY`] stands for the later
/// minted message its moved-result reduction addresses, which the cursor then passes over.
/// The result has exactly as many messages as the minted view and equals it, or this is an
/// error.
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
    check_inverts(view, log, minted_view)?;
    // Every minted message was stood for exactly once, by itself or by a verified reduction.
    Ok(minted_view.to_vec())
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
    check_inverts_with(view, log, minted_view, None)
}

/// [`check_inverts`] after [`verify_log_cached`] filled `verified`: a reduction it holds is
/// not verified (hashed) a second time, every other check is made as there. What a whole
/// check of a session (`rehydrate verify`, `rehydrate reduce`) runs, so that each reduction is
/// verified once.
///
/// # Errors
///
/// Exactly those of [`check_inverts`], given that `verified` holds only reductions that
/// verified against `minted_view`.
pub fn check_inverts_verified<'a>(
    view: impl IntoIterator<Item = &'a Message>,
    log: &ReductionLog,
    minted_view: &[Message],
    verified: &VerifiedCache,
) -> Result<(), Error> {
    check_inverts_with(view, log, minted_view, Some(verified))
}

/// A reduction found by id, and its log position.
type ById<'l> = HashMap<&'l str, (usize, &'l Reduction)>;

/// [`verify_reduction`], unless `verified` holds the reduction at `position`.
fn verify_once(
    position: usize,
    r: &Reduction,
    minted_view: &[Message],
    verified: Option<&VerifiedCache>,
) -> Result<(), Error> {
    if verified.is_some_and(|v| v.holds(position, r)) {
        return Ok(());
    }
    verify_reduction(r, minted_view).map(drop)
}

fn check_inverts_with<'a>(
    view: impl IntoIterator<Item = &'a Message>,
    log: &ReductionLog,
    minted_view: &[Message],
    verified: Option<&VerifiedCache>,
) -> Result<(), Error> {
    let by_id: ById<'_> = log
        .reductions
        .iter()
        .enumerate()
        .map(|(position, r)| (r.id.as_str(), (position, r)))
        .collect();
    // The number of minted messages the view stood for so far, in order: the index the next
    // view message must stand at, once the moved messages already stood for are passed over.
    let mut cursor = 0;
    // Minted indices past the cursor that a moved view message already stood for.
    let mut ahead: BTreeSet<usize> = BTreeSet::new();
    let mut view_len = 0;
    for (view_index, vm) in view.into_iter().enumerate() {
        view_len = view_index + 1;
        while ahead.first() == Some(&cursor) {
            ahead.pop_first();
            cursor += 1;
        }
        let mismatch = |reason: String| Error::ViewMismatch { view_index, reason };
        let unreduced = minted_view
            .get(cursor)
            .is_some_and(|m| std::ptr::eq(vm, m) || vm == m);
        if !unreduced && let Some(id) = vm.metadata.get(MOVED_METADATA_KEY) {
            let &(position, r) = by_id.get(id.as_str()).ok_or_else(|| {
                mismatch(format!(
                    "names moved result `{id}`, which is not in the log"
                ))
            })?;
            let ReductionKind::MovedResult { .. } = r.kind else {
                return Err(mismatch(format!("{id} is not a moved-result reduction")));
            };
            let index = r.ptr.addr.index;
            if index <= cursor || ahead.contains(&index) {
                return Err(mismatch(format!(
                    "reduction {id} moves message {index} to minted position {cursor}, which is not before it or already stood for"
                )));
            }
            verify_once(position, r, minted_view, verified)?;
            let mut inner = vm.clone();
            inner.metadata.remove(MOVED_METADATA_KEY);
            let stands_for =
                view_message(&inner, view_index, index, &by_id, minted_view, verified)?;
            if stands_for.len() != 1 {
                return Err(mismatch(format!(
                    "moved by {id} but stands for {} messages",
                    stands_for.len()
                )));
            }
            ahead.insert(index);
            continue;
        }
        if !unreduced
            && let Some(id) = vm.metadata.get(REDUCTION_METADATA_KEY)
            && let Some(&(position, r)) = by_id.get(id.as_str())
            && let ReductionKind::UnansweredCall { .. } | ReductionKind::ConversationOpened { .. } =
                r.kind
        {
            // Inserted messages: a synthetic result follows its call, an opening message stands
            // right before the assistant message it opens.
            let at = r.ptr.addr.index;
            let opening = matches!(r.kind, ReductionKind::ConversationOpened { .. });
            if opening && at != cursor {
                return Err(mismatch(format!(
                    "the opening message of reduction {id} stands at minted position {cursor}, not right before message {at}"
                )));
            }
            if !opening && at >= cursor {
                return Err(mismatch(format!(
                    "the synthetic result of reduction {id} stands before its tool call in message {at}"
                )));
            }
            verify_once(position, r, minted_view, verified)?;
            if *vm != stub_message(r, addressed(r, minted_view)?)? {
                return Err(mismatch(format!(
                    "does not match the stub of reduction {id}"
                )));
            }
            continue;
        }
        let stands_for = view_message(vm, view_index, cursor, &by_id, minted_view, verified)?;
        cursor += stands_for.len();
    }
    while ahead.first() == Some(&cursor) {
        ahead.pop_first();
        cursor += 1;
    }
    if cursor != minted_view.len() || !ahead.is_empty() {
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
    by_id: &ById<'_>,
    minted_view: &'m [Message],
    verified: Option<&VerifiedCache>,
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
    let &(position, r) = by_id
        .get(id.as_str())
        .ok_or_else(|| mismatch(format!("names reduction `{id}`, which is not in the log")))?;
    if r.ptr.addr.index != cursor {
        return Err(mismatch(format!(
            "reduction {id} addresses message {} but stands at message {cursor}",
            r.ptr.addr.index
        )));
    }
    verify_once(position, r, minted_view, verified)?;
    let expected = stub_message(r, addressed(r, minted_view)?)?;
    if *vm != expected {
        return Err(mismatch(format!(
            "does not match the stub of reduction {id}"
        )));
    }
    // verify_reduction checked that the messages it covers are inside the minted view, and
    // the first of them is the one at the cursor.
    Ok(minted_view.get(r.covered()).unwrap_or_default())
}

/// Resolves every reduction of `log` against `minted_view` and returns the errors in log
/// order: each reduction that does not verify, each id whose ordinal is not its position in
/// the log, each id used twice. An empty result means every reduction verified.
///
/// The turns-cleared ranges of a growing session share their first message and grow: each is
/// verified by scanning only the messages it adds to the previous one, so a log with one
/// cleared range per turn costs one pass over the cleared messages, not one per range.
pub fn verify_log(log: &ReductionLog, minted_view: &[Message]) -> Vec<Error> {
    verify_log_cached(log, minted_view, &mut VerifiedCache::default())
}

/// [`verify_log`], recording in `verified` every reduction that verifies, for
/// [`check_inverts_verified`] or a later search to rely on.
pub fn verify_log_cached(
    log: &ReductionLog,
    minted_view: &[Message],
    verified: &mut VerifiedCache,
) -> Vec<Error> {
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
        match verify_with(r, minted_view, &mut scan) {
            Ok(v) => verified.insert(ordinal, r, &v),
            Err(e) => errors.push(e),
        }
    }
    errors
}
