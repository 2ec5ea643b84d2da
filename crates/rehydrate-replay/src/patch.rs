//! Applying a recorded line patch (Claude Code's `structuredPatch`, unified-diff hunks) to its
//! base, strictly: every line the patch claims about the base is checked.

use rehydrate_model::PatchHunk;

use crate::edit::EditFailure;

/// The marker line that says the line before it has no line break.
const NO_NEWLINE: &str = "\\ No newline at end of file";

/// One line of a text: its bytes without the `\n`, and whether a `\n` ends it.
#[derive(Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    newline: bool,
}

/// The lines of `text` split at `\n` (a `\r` stays part of its line); an empty text has none.
fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => {
                out.push(Line {
                    text: &rest[..i],
                    newline: true,
                });
                rest = &rest[i + 1..];
            }
            None => {
                out.push(Line {
                    text: rest,
                    newline: false,
                });
                rest = "";
            }
        }
    }
    out
}

/// Applies `hunks` in order to `base` (see [`crate::apply_recorded_edit`]).
///
/// A hunk's position in the base is `old_start - 1` when it covers base lines. A pure insertion
/// (`old_lines == 0`) is placed by its `new_start` and the line-count changes of the hunks before
/// it, and its `old_start` must then be that position (unified diff) or one more (jsdiff, which
/// Claude Code uses), so neither convention is guessed.
pub(crate) fn apply_patch(base: &str, hunks: &[PatchHunk]) -> Result<String, EditFailure> {
    let old = lines(base);
    let mut out: Vec<Line<'_>> = Vec::with_capacity(old.len());
    let mut cursor = 0usize;
    // new lines minus old lines of the hunks applied so far
    let mut shift: i128 = 0;
    for (h, hunk) in hunks.iter().enumerate() {
        let fail = |what: String| EditFailure::Hunk { hunk: h, what };
        let pos = position(hunk, shift).ok_or_else(|| {
            fail(format!(
                "header -{},{} +{},{} gives no position in the base",
                hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
            ))
        })?;
        if pos < cursor || pos > old.len() {
            return Err(fail(format!(
                "it starts at base line {} but the text before it ends at line {cursor} of {}",
                pos + 1,
                old.len()
            )));
        }
        out.extend_from_slice(&old[cursor..pos]);
        cursor = pos;
        let (mut old_count, mut new_count) = (0u64, 0u64);
        // What the previous patch line was: ' ', '-' or '+', for a following marker.
        let mut previous: Option<u8> = None;
        for (k, raw) in hunk.lines.iter().enumerate() {
            let next_is_marker = hunk.lines.get(k + 1).is_some_and(|l| l == NO_NEWLINE);
            if raw == NO_NEWLINE {
                if previous.is_none() {
                    return Err(fail(format!(
                        "line {k} is a no-newline marker after nothing"
                    )));
                }
                previous = None;
                continue;
            }
            let (kind, text) = match raw.as_bytes().first() {
                Some(&kind @ (b' ' | b'-' | b'+')) => (kind, &raw[1..]),
                _ => {
                    return Err(fail(format!(
                        "line {k} does not start with ' ', '-' or '+'"
                    )));
                }
            };
            if kind != b'+' {
                let Some(line) = old.get(cursor) else {
                    return Err(fail(format!("line {k} runs past the end of the base")));
                };
                if line.text != text {
                    return Err(fail(format!(
                        "line {k} expects base line {} to be different",
                        cursor + 1
                    )));
                }
                // A marker after a context or removed line says the base line has no line
                // break; without one, the base line must have it.
                if line.newline == next_is_marker {
                    return Err(fail(format!(
                        "line {k}: the base line {} {} a line break",
                        cursor + 1,
                        if line.newline { "has" } else { "lacks" }
                    )));
                }
                cursor += 1;
                old_count += 1;
            }
            match kind {
                b' ' => {
                    out.push(Line {
                        text,
                        newline: !next_is_marker,
                    });
                    new_count += 1;
                }
                b'+' => {
                    out.push(Line {
                        text,
                        newline: !next_is_marker,
                    });
                    new_count += 1;
                }
                _ => {}
            }
            previous = Some(kind);
        }
        if old_count != hunk.old_lines || new_count != hunk.new_lines {
            return Err(fail(format!(
                "it has {old_count} base and {new_count} result lines, its header says {} and {}",
                hunk.old_lines, hunk.new_lines
            )));
        }
        shift += i128::from(hunk.new_lines) - i128::from(hunk.old_lines);
    }
    out.extend_from_slice(&old[cursor..]);
    let mut text = String::with_capacity(base.len());
    for (i, line) in out.iter().enumerate() {
        text.push_str(line.text);
        if line.newline {
            text.push('\n');
        } else if i + 1 < out.len() {
            // A line without a break can only be the last one.
            return Err(EditFailure::Hunk {
                hunk: hunks.len().saturating_sub(1),
                what: format!(
                    "result line {} lacks a line break but is not the last",
                    i + 1
                ),
            });
        }
    }
    Ok(text)
}

/// The 0-based base line where `hunk` starts, given the line-count change `shift` of the hunks
/// before it.
fn position(hunk: &PatchHunk, shift: i128) -> Option<usize> {
    if hunk.old_lines > 0 {
        return usize::try_from(hunk.old_start.checked_sub(1)?).ok();
    }
    if hunk.new_lines == 0 {
        return None;
    }
    let pos = i128::from(hunk.new_start) - 1 - shift;
    let pos_u64 = u64::try_from(pos).ok()?;
    if hunk.old_start == pos_u64 || hunk.old_start == pos_u64 + 1 {
        usize::try_from(pos_u64).ok()
    } else {
        None
    }
}
