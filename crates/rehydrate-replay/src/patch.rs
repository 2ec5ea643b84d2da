//! Applying a recorded line patch (Claude Code's `structuredPatch`, unified-diff hunks) to its
//! base, strictly: every line the patch claims about the base is checked.

use rehydrate_model::PatchHunk;

use crate::edit::EditFailure;

/// The marker line that says the line before it has no line break.
const NO_NEWLINE: &str = "\\ No newline at end of file";

/// A position in the base text: a byte offset at the start of a line, and that line's 0-based
/// number.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
    line: usize,
}

impl<'a> Cursor<'a> {
    /// The line at the cursor, without its `\n`, and whether a `\n` ends it; `None` at the end.
    fn next_line(&mut self) -> Option<(&'a str, bool)> {
        let rest = self.text.get(self.at..).filter(|r| !r.is_empty())?;
        self.line += 1;
        match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => {
                self.at += i + 1;
                Some((&rest[..i], true))
            }
            None => {
                self.at = self.text.len();
                Some((rest, false))
            }
        }
    }
}

/// The number of lines of `text` (a last line without a break counts; an empty text has none).
fn line_count(text: &str) -> usize {
    let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    breaks + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// Applies `hunks` in order to `base` (see [`crate::apply_recorded_edit`]).
///
/// A hunk's position in the base is `old_start - 1` when it covers base lines. A pure insertion
/// (`old_lines == 0`) is placed by its `new_start` and the line-count changes of the hunks before
/// it, and its `old_start` must then be that position (unified diff) or one more (jsdiff, which
/// Claude Code uses), so neither convention is guessed. The base is walked once: the lines
/// between hunks are copied as whole slices.
pub(crate) fn apply_patch(base: &str, hunks: &[PatchHunk]) -> Result<String, EditFailure> {
    let mut out = String::with_capacity(base.len() + base.len() / 8);
    walk_patch(base, hunks, &mut out)?;
    Ok(out)
}

/// Whether `hunks` applied to `base` give exactly `result`, found without building the text: the
/// pieces the patch would write are compared with `result` as they come.
pub(crate) fn patch_gives(base: &str, hunks: &[PatchHunk], result: &str) -> bool {
    let mut check = Compare {
        expected: result,
        at: 0,
        equal: true,
    };
    walk_patch(base, hunks, &mut check).is_ok() && check.equal && check.at == result.len()
}

/// Where a patch writes its result.
trait Sink {
    fn push_str(&mut self, piece: &str);
    fn push(&mut self, c: char) {
        let mut buf = [0; 4];
        self.push_str(c.encode_utf8(&mut buf));
    }
}

impl Sink for String {
    fn push_str(&mut self, piece: &str) {
        String::push_str(self, piece);
    }
}

/// A sink that compares what is written with an expected text.
struct Compare<'a> {
    expected: &'a str,
    at: usize,
    equal: bool,
}

impl Sink for Compare<'_> {
    fn push_str(&mut self, piece: &str) {
        let end = self.at + piece.len();
        self.equal &= self.expected.as_bytes().get(self.at..end) == Some(piece.as_bytes());
        self.at = end;
    }
}

/// Walks `hunks` over `base`, writing the result to `out`.
fn walk_patch(base: &str, hunks: &[PatchHunk], out: &mut impl Sink) -> Result<(), EditFailure> {
    let mut cursor = Cursor {
        text: base,
        at: 0,
        line: 0,
    };
    // new lines minus old lines of the hunks applied so far
    let mut shift: i128 = 0;
    // The result ends with a line that has no line break: nothing may follow it.
    let mut unterminated = false;
    let not_last = |hunk: usize| EditFailure::Hunk {
        hunk,
        what: "a line without a line break is not the last line of the result".to_string(),
    };
    for (h, hunk) in hunks.iter().enumerate() {
        let fail = |what: String| EditFailure::Hunk { hunk: h, what };
        let pos = position(hunk, shift).ok_or_else(|| {
            fail(format!(
                "header -{},{} +{},{} gives no position in the base",
                hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
            ))
        })?;
        if pos < cursor.line {
            return Err(fail(format!(
                "it starts at base line {} but the text before it ends at line {} of {}",
                pos + 1,
                cursor.line,
                line_count(base)
            )));
        }
        let copy_from = cursor.at;
        while cursor.line < pos {
            if cursor.next_line().is_none() {
                return Err(fail(format!(
                    "it starts at base line {} but the base has {} lines",
                    pos + 1,
                    line_count(base)
                )));
            }
        }
        if cursor.at > copy_from {
            if unterminated {
                return Err(not_last(h));
            }
            out.push_str(&base[copy_from..cursor.at]);
            unterminated = !base[..cursor.at].ends_with('\n');
        }
        let (mut old_count, mut new_count) = (0u64, 0u64);
        // Whether a patch line came before, for a following marker.
        let mut previous = false;
        for (k, raw) in hunk.lines.iter().enumerate() {
            let next_is_marker = hunk.lines.get(k + 1).is_some_and(|l| l == NO_NEWLINE);
            if raw == NO_NEWLINE {
                if !previous {
                    return Err(fail(format!(
                        "line {k} is a no-newline marker after nothing"
                    )));
                }
                previous = false;
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
                let line_no = cursor.line + 1;
                let Some((line, newline)) = cursor.next_line() else {
                    return Err(fail(format!("line {k} runs past the end of the base")));
                };
                if line != text {
                    return Err(fail(format!(
                        "line {k} expects base line {line_no} to be different"
                    )));
                }
                // A marker after a context or removed line says the base line has no line
                // break; without one, the base line must have it.
                if newline == next_is_marker {
                    return Err(fail(format!(
                        "line {k}: the base line {line_no} {} a line break",
                        if newline { "has" } else { "lacks" }
                    )));
                }
                old_count += 1;
            }
            if kind != b'-' {
                if unterminated {
                    return Err(not_last(h));
                }
                out.push_str(text);
                if next_is_marker {
                    unterminated = true;
                } else {
                    out.push('\n');
                }
                new_count += 1;
            }
            previous = true;
        }
        if old_count != hunk.old_lines || new_count != hunk.new_lines {
            return Err(fail(format!(
                "it has {old_count} base and {new_count} result lines, its header says {} and {}",
                hunk.old_lines, hunk.new_lines
            )));
        }
        shift += i128::from(hunk.new_lines) - i128::from(hunk.old_lines);
    }
    let rest = &base[cursor.at..];
    if !rest.is_empty() {
        if unterminated {
            return Err(not_last(hunks.len().saturating_sub(1)));
        }
        out.push_str(rest);
    }
    Ok(())
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
