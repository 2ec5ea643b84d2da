//! [`apply_recorded_edit`]: the single place where a recorded edit is applied to its base.

use std::borrow::Cow;

use memchr::memmem;
use rehydrate_model::{EditChange, Replacement};

use crate::patch::apply_patch;

/// The largest tab size [`apply_recorded_edit`] expands tabs to, in columns.
pub const MAX_TAB_SIZE: u32 = 64;

/// Why a recorded edit could not be recomputed from its base.
///
/// Replay never guesses: each of these retracts the file's record (SPEC seed 001 rule 5).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditFailure {
    /// Replacement `edit` (0-based) has an empty old string and the running text is not empty,
    /// so where it applies is ambiguous.
    #[error("replacement {edit} has an empty old string and the text is not empty")]
    EmptyOld {
        /// The replacement's 0-based position in the edit.
        edit: usize,
    },
    /// Replacement `edit` (0-based): its old string does not occur in the running text.
    #[error("replacement {edit}: the old string does not occur in the text")]
    NotFound {
        /// The replacement's 0-based position in the edit.
        edit: usize,
    },
    /// Replacement `edit` (0-based) replaces one occurrence, but its old string occurs `count`
    /// times: the tool would have refused it.
    #[error("replacement {edit}: the old string occurs {count} times and replace-all is off")]
    Ambiguous {
        /// The replacement's 0-based position in the edit.
        edit: usize,
        /// The number of non-overlapping occurrences.
        count: usize,
    },
    /// Tabs are to be expanded to more than [`MAX_TAB_SIZE`] columns: no editor does, and the
    /// text could grow without bound.
    #[error("tabs expand to {size} columns, more than {MAX_TAB_SIZE}")]
    TabSize {
        /// The tab size recorded.
        size: u32,
    },
    /// An edit with no replacements and no hunks records no change at all.
    #[error("the edit records no change")]
    Empty,
    /// Hunk `hunk` (0-based) of a patch does not apply to the base: a context or removed line
    /// differs, a line count disagrees with its header, or it overlaps the hunk before it.
    #[error("patch hunk {hunk} does not apply: {what}")]
    Hunk {
        /// The hunk's 0-based position in the patch.
        hunk: usize,
        /// What did not match, for diagnostics (one line).
        what: String,
    },
}

/// The text an edit produces from `base`: the one definition of how a recorded edit applies
/// (SPEC seed 001 rules 5 and 11; the issue's "ambiguous match" refinement).
///
/// - [`EditChange::Replacements`]: each replacement applies in order to the running text,
///   starting from `base`. With `universal_newlines`, the base's `\r\n` and lone `\r` first
///   become `\n` (Python's text mode). With `expand_tabs: Some(n)` (`n` at most
///   [`MAX_TAB_SIZE`]), tabs in the running text and in both strings are then expanded to `n`
///   columns as Python's `str.expandtabs(n)` does. An old string
///   that does not occur fails; one that occurs more than once fails unless `replace_all` (then
///   every non-overlapping occurrence, left to right, is replaced). An empty old string applies
///   only to an empty text, which it replaces with the new string (a file created by an edit).
/// - [`EditChange::Patch`]: the hunks apply in order; every context and removed line must equal
///   the base's line at its position, the counts must match the hunk headers, and the
///   `\ No newline at end of file` markers must agree with the base.
///
/// Works on any UTF-8 text byte for byte: no line-ending normalization, CRLF stays CRLF.
///
/// # Errors
///
/// An [`EditFailure`] naming the first replacement or hunk that cannot be applied.
///
/// # Example
///
/// ```
/// use rehydrate_model::{EditChange, Replacement};
/// use rehydrate_replay::apply_recorded_edit;
///
/// let change = EditChange::Replacements {
///     edits: vec![Replacement { old: "a".into(), new: "b".into(), replace_all: true }],
///     expand_tabs: None,
///     universal_newlines: false,
/// };
/// assert_eq!(apply_recorded_edit("a-a-a", &change)?, "b-b-b");
/// # Ok::<(), rehydrate_replay::EditFailure>(())
/// ```
pub fn apply_recorded_edit(base: &str, change: &EditChange) -> Result<String, EditFailure> {
    match change {
        EditChange::Replacements {
            edits,
            expand_tabs,
            universal_newlines,
        } => {
            if edits.is_empty() {
                return Err(EditFailure::Empty);
            }
            if let Some(size) = *expand_tabs
                && size > MAX_TAB_SIZE
            {
                return Err(EditFailure::TabSize { size });
            }
            let base = if *universal_newlines {
                universal(base)
            } else {
                Cow::Borrowed(base)
            };
            let mut text: Cow<'_, str> = match expand_tabs {
                Some(n) => Cow::Owned(expand(&base, *n).into_owned()),
                None => base,
            };
            for (i, edit) in edits.iter().enumerate() {
                text = Cow::Owned(replace(&text, edit, i, *expand_tabs)?);
            }
            Ok(text.into_owned())
        }
        EditChange::Patch { hunks } => {
            if hunks.is_empty() {
                return Err(EditFailure::Empty);
            }
            apply_patch(base, hunks)
        }
    }
}

/// Applies replacement number `index` to `text`.
fn replace(
    text: &str,
    edit: &Replacement,
    index: usize,
    expand_tabs: Option<u32>,
) -> Result<String, EditFailure> {
    let (old, new) = match expand_tabs {
        Some(n) => (expand(&edit.old, n), expand(&edit.new, n)),
        None => (
            Cow::Borrowed(edit.old.as_str()),
            Cow::Borrowed(edit.new.as_str()),
        ),
    };
    if old.is_empty() {
        return if text.is_empty() {
            Ok(new.into_owned())
        } else {
            Err(EditFailure::EmptyOld { edit: index })
        };
    }
    let finder = memmem::Finder::new(old.as_bytes());
    let mut hits = finder.find_iter(text.as_bytes());
    let Some(first) = hits.next() else {
        return Err(EditFailure::NotFound { edit: index });
    };
    if !edit.replace_all {
        let more = hits.count();
        if more > 0 {
            return Err(EditFailure::Ambiguous {
                edit: index,
                count: more + 1,
            });
        }
        let mut out = String::with_capacity(text.len() - old.len() + new.len());
        out.push_str(&text[..first]);
        out.push_str(&new);
        out.push_str(&text[first + old.len()..]);
        return Ok(out);
    }
    // `find_iter` reports non-overlapping occurrences left to right, as `str::replace` does.
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for at in std::iter::once(first).chain(hits) {
        out.push_str(&text[last..at]);
        out.push_str(&new);
        last = at + old.len();
    }
    out.push_str(&text[last..]);
    Ok(out)
}

/// `text` with tabs expanded to `tab_size` columns, as Python's `str.expandtabs` does: a tab
/// becomes spaces up to the next multiple of `tab_size` (none when `tab_size` is 0), and the
/// column restarts after `\n` and `\r`. Columns count chars (code points).
pub(crate) fn expand(text: &str, tab_size: u32) -> Cow<'_, str> {
    if !text.contains('\t') {
        return Cow::Borrowed(text);
    }
    let tab_size = tab_size as usize;
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let mut column = 0usize;
    for c in text.chars() {
        match c {
            '\t' => {
                if tab_size > 0 {
                    let spaces = tab_size - column % tab_size;
                    out.extend(std::iter::repeat_n(' ', spaces));
                    column += spaces;
                }
            }
            '\n' | '\r' => {
                out.push(c);
                column = 0;
            }
            _ => {
                out.push(c);
                column += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// `text` read as Python's universal newlines mode reads it: `\r\n` and lone `\r` become `\n`.
fn universal(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}
