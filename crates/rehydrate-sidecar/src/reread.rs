//! Re-reads: which tool results are whole reads of a file, what text they prove, and the diff a
//! later read of the same path shows against an earlier one; the one definition an elided or
//! diffed read is minted and verified by (docs/FORMATS.md, "Re-reads").
//!
//! Only the tool-result details an importer filled ([`ToolDetails::WholeRead`]) say that a
//! result is a whole read and what content it served; the disk is never read. A partial read, a
//! media read or a result without details proves no whole text.

use rehydrate_model::{Message, MessageAddr, Reduction, Role, ToolDetails};

use crate::diff::unified_diff;
use crate::error::Error;

/// Lines of unchanged context around each change of a re-read's diff, as `diff -u` writes by
/// default.
pub const REREAD_DIFF_CONTEXT_LINES: usize = 3;

/// The path and the content of a whole file read: the message is a tool result (role `tool`)
/// with text content whose details are [`ToolDetails::WholeRead`]. `None` for every other
/// message (a partial or media read, a result without details or without text).
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, ToolDetails};
/// use rehydrate_sidecar::whole_read;
///
/// let mut read = Message::tool_result("c1", "     1\tfn main() {}\n");
/// assert_eq!(whole_read(&read), None);
/// read.details = Some(Box::new(ToolDetails::WholeRead {
///     path: "src/main.rs".into(),
///     content: "fn main() {}\n".into(),
/// }));
/// assert_eq!(whole_read(&read), Some(("src/main.rs", "fn main() {}\n")));
/// ```
pub fn whole_read(m: &Message) -> Option<(&str, &str)> {
    if m.role != Role::Tool {
        return None;
    }
    m.content_text()?;
    match m.details.as_deref()? {
        ToolDetails::WholeRead { path, content } => Some((path, content)),
        ToolDetails::PartialRead { .. }
        | ToolDetails::MediaRead { .. }
        | ToolDetails::Write { .. }
        | ToolDetails::Edit(_)
        | ToolDetails::MultiEdit(_)
        | ToolDetails::NotebookEdit { .. }
        | ToolDetails::UnprovenChange { .. }
        | ToolDetails::Patch { .. } => None,
    }
}

/// The diff a later read of a file shows against an earlier read: [`unified_diff`] of the
/// earlier content to the later one with [`REREAD_DIFF_CONTEXT_LINES`] lines of context (hunks
/// only). Empty when the contents are equal.
pub fn reread_diff(earlier_content: &str, later_content: &str) -> String {
    unified_diff(earlier_content, later_content, REREAD_DIFF_CONTEXT_LINES)
}

/// Whether a diff of `diff_bytes` is at most `max_share_per_mille` thousandths of the
/// `original_bytes` of the result it stands for (exactly at the share is within it). A share
/// over 1000 is read as 1000: a diff is never larger than the text it replaces.
///
/// # Example
///
/// ```
/// use rehydrate_sidecar::diff_within_share;
///
/// assert!(diff_within_share(50, 100, 500));
/// assert!(!diff_within_share(51, 100, 500));
/// assert!(!diff_within_share(101, 100, 2000));
/// ```
pub fn diff_within_share(
    diff_bytes: usize,
    original_bytes: usize,
    max_share_per_mille: u32,
) -> bool {
    let share = u128::from(max_share_per_mille.min(1000));
    (diff_bytes as u128) * 1000 <= share * (original_bytes as u128)
}

/// The whole read at `addr` of `minted_view`, with its role checked.
fn read_at<'a>(
    r: &Reduction,
    minted_view: &'a [Message],
    addr: MessageAddr,
    what: &str,
) -> Result<(&'a str, &'a str), Error> {
    let m = minted_view.get(addr.index).ok_or(Error::MissingMessage {
        id: r.id.to_string(),
        index: addr.index,
        len: minted_view.len(),
    })?;
    if m.role != addr.role {
        return Err(Error::RoleMismatch {
            id: r.id.to_string(),
            index: addr.index,
            expected: addr.role,
            found: m.role,
        });
    }
    whole_read(m).ok_or_else(|| Error::Inconsistent {
        id: r.id.to_string(),
        reason: format!(
            "{what} message {} is not a whole read its details prove",
            addr.index
        ),
    })
}

/// Checks what an elided read claims of the minted view: the addressed message is a whole
/// read hidden whole, and `by`, a message after it, is a whole read of the same path with the
/// same content.
pub(crate) fn check_elided(
    r: &Reduction,
    minted_view: &[Message],
    by: MessageAddr,
) -> Result<(), Error> {
    let index = r.ptr.addr.index;
    let inconsistent = |reason: String| Error::Inconsistent {
        id: r.id.to_string(),
        reason,
    };
    if r.ptr.span.is_some() || by.index <= index {
        return Err(inconsistent(format!(
            "an elided read must be hidden whole and name a later read, not message {}",
            by.index
        )));
    }
    let (path, content) = read_at(r, minted_view, r.ptr.addr, "the elided")?;
    let (later_path, later_content) = read_at(r, minted_view, by, "the later")?;
    if path != later_path || content != later_content {
        return Err(inconsistent(format!(
            "message {} is not a read of the same path with the same content as message {index}",
            by.index
        )));
    }
    Ok(())
}

/// Checks what a diffed read claims of the minted view: the addressed message is a whole read,
/// `base`, a message before it, is a whole read of the same path with other content, and
/// `diff` is their [`reread_diff`], within `max_share_per_mille` (at most 1000) of the
/// addressed text's `original_bytes`.
pub(crate) fn check_diffed(
    r: &Reduction,
    minted_view: &[Message],
    base: MessageAddr,
    max_share_per_mille: u32,
    diff: &str,
) -> Result<(), Error> {
    let index = r.ptr.addr.index;
    let inconsistent = |reason: String| Error::Inconsistent {
        id: r.id.to_string(),
        reason,
    };
    if r.ptr.span.is_some() || base.index >= index {
        return Err(inconsistent(format!(
            "a diffed read must be hidden whole and name an earlier read, not message {}",
            base.index
        )));
    }
    let (path, content) = read_at(r, minted_view, r.ptr.addr, "the diffed")?;
    let (base_path, base_content) = read_at(r, minted_view, base, "the base")?;
    if path != base_path || content == base_content {
        return Err(inconsistent(format!(
            "message {} is not a read of the same path with other content than message {index}",
            base.index
        )));
    }
    if reread_diff(base_content, content) != diff {
        return Err(inconsistent(format!(
            "its diff is not the diff of message {}'s content to message {index}'s",
            base.index
        )));
    }
    let original_bytes = r.kind.original_bytes();
    if max_share_per_mille > 1000
        || !diff_within_share(diff.len(), original_bytes, max_share_per_mille)
    {
        return Err(inconsistent(format!(
            "its diff of {} bytes is over {max_share_per_mille} per mille of the {original_bytes} bytes it stands for",
            diff.len()
        )));
    }
    Ok(())
}
