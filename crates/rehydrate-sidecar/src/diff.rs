//! Line diffs for re-reads: [`unified_diff`] writes the hunks of a unified diff of two texts as
//! `diff -u` writes them, and [`apply_unified_diff`] applies such a diff strictly, the oracle that
//! proves a diff gives back the later text.
//!
//! The diff is a pure, deterministic function of its inputs, so whoever holds both texts can
//! render it again and compare.

use std::fmt::Write as _;
use std::ops::Range;

/// The most lines a minimal diff may remove and add in total (counted between the common
/// leading and trailing lines) before [`unified_diff`] stops searching for it and writes the
/// whole changed region as removed and added instead.
///
/// The bound caps the search at O((N + M) · 4096) time for N and M lines, however different the
/// texts; a diff that large is no use in place of a re-read, so nothing is lost by not
/// minimizing it.
pub const DIFF_MAX_EDIT_LINES: usize = 4096;

/// The marker line `diff -u` writes after a line that has no line break at the end of its file.
const NO_NEWLINE: &str = "\\ No newline at end of file";

/// Writes the unified diff of `old` and `new` line by line, with `context` unchanged lines
/// around each change, as `diff -u` (GNU diffutils, `-U context`) writes its hunks.
///
/// Lines are split on `\n` only (a `\r` stays part of its line), and a last line without a
/// `\n` differs from the same text with one. The result is the hunks alone, without the `---`
/// and `+++` header lines (the caller writes its own):
///
/// - each hunk opens with `@@ -a,b +c,d @@`: `a` and `c` are 1-based line numbers in `old` and
///   `new` where the hunk starts and `b` and `d` the number of lines it covers in each; a count
///   of 1 is left out (`-a`), and an empty range names the line before it (`-a,0`, with `a = 0`
///   at the start of the file), as `diff -u` writes them;
/// - then its lines, each prefixed ` ` (unchanged), `-` (only in `old`) or `+` (only in `new`)
///   and ended by `\n`; within a change the removed lines come before the added ones;
/// - a line without a line break is followed by the line `\ No newline at end of file`;
/// - changes separated by at most `2 * context` unchanged lines share a hunk.
///
/// Identical texts give the empty string. The diff is minimal (no diff of these texts removes
/// and adds fewer lines) unless a minimal diff would remove and add more than
/// [`DIFF_MAX_EDIT_LINES`] lines in total: then every line between the common leading and
/// trailing lines is written as removed and added, which is still a correct diff.
/// [`apply_unified_diff`] gives `new` back from `old` and the result.
///
/// The algorithm is Myers' O((N + M) · D) diff in linear space (the divide-and-conquer search
/// for the middle snake), run on the lines left after the common leading and trailing lines are
/// set aside, with D the number of lines removed and added. Memory is O(N + M) whatever the
/// texts; time is O((N + M) · min(D, 4096)), plus O(N log N) line comparisons to number the
/// distinct lines. The result is a function of the two texts and `context` alone. It never
/// panics.
///
/// # Example
///
/// ```
/// use rehydrate_sidecar::{apply_unified_diff, unified_diff};
///
/// let (old, new) = ("a\nb\nc\nd\n", "a\nb\nC\nd\n");
/// let diff = unified_diff(old, new, 1);
/// assert_eq!(diff, "@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n");
/// assert_eq!(apply_unified_diff(old, &diff).as_deref(), Some(new));
/// assert_eq!(unified_diff(old, old, 3), "");
/// ```
pub fn unified_diff(old: &str, new: &str, context: usize) -> String {
    unified_diff_with_bound(old, new, context, DIFF_MAX_EDIT_LINES)
}

/// [`unified_diff`] with another bound in place of [`DIFF_MAX_EDIT_LINES`], for tests of the
/// replacement written past it.
#[doc(hidden)]
pub fn unified_diff_with_bound(
    old: &str,
    new: &str,
    context: usize,
    max_edit_lines: usize,
) -> String {
    let old: Vec<&str> = old.split_inclusive('\n').collect();
    let new: Vec<&str> = new.split_inclusive('\n').collect();
    let changes = changes(&old, &new, max_edit_lines);
    write_hunks(&old, &new, &changes, context)
}

/// A change: the old lines `old` (0-based, half-open) replaced by the new lines `new`. The lines
/// before it since the previous change are equal in both texts, as many on each side.
#[derive(Debug)]
struct Change {
    old: Range<usize>,
    new: Range<usize>,
}

/// The changes that turn `old` into `new`, in order, each maximal: minimal, or the whole region
/// between the common leading and trailing lines when that is more than `bound` lines.
fn changes(old: &[&str], new: &[&str], bound: usize) -> Vec<Change> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let (old_rest, new_rest) = (&old[prefix..], &new[prefix..]);
    let suffix = old_rest
        .iter()
        .rev()
        .zip(new_rest.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let old_mid = &old_rest[..old_rest.len() - suffix];
    let new_mid = &new_rest[..new_rest.len() - suffix];
    let whole = Change {
        old: prefix..prefix + old_mid.len(),
        new: prefix..prefix + new_mid.len(),
    };
    if old_mid.is_empty() && new_mid.is_empty() {
        return Vec::new();
    }
    // A minimal diff removes and adds at least the difference in length.
    if old_mid.is_empty() || new_mid.is_empty() || old_mid.len().abs_diff(new_mid.len()) > bound {
        return vec![whole];
    }
    let (a, b) = intern(old_mid, new_mid);
    let frontier = a.len() + b.len() + 3;
    let mut myers = Myers {
        a: &a,
        b: &b,
        forward: vec![0; frontier],
        backward: vec![0; frontier],
        changes: Vec::new(),
    };
    myers.conquer(0..a.len(), 0..b.len(), bound);
    let mut changes = myers.changes;
    for c in &mut changes {
        c.old = c.old.start + prefix..c.old.end + prefix;
        c.new = c.new.start + prefix..c.new.end + prefix;
    }
    changes
}

/// Numbers the lines of both texts so that equal lines, and only they, get equal numbers: the
/// lines are sorted (O(N log N) comparisons whatever the lines, unlike a hash map) and each run
/// of equal ones numbered.
fn intern(old: &[&str], new: &[&str]) -> (Vec<usize>, Vec<usize>) {
    let line = |i: usize| {
        if i < old.len() {
            old[i]
        } else {
            new[i - old.len()]
        }
    };
    let mut order: Vec<usize> = (0..old.len() + new.len()).collect();
    order.sort_unstable_by(|&i, &j| line(i).cmp(line(j)));
    let mut ids = vec![0; order.len()];
    let mut id = 0;
    for pair in order.windows(2) {
        if line(pair[0]) != line(pair[1]) {
            id += 1;
        }
        ids[pair[1]] = id;
    }
    let new_ids = ids.split_off(old.len());
    (ids, new_ids)
}

/// Myers' linear-space diff over interned lines.
///
/// Coordinates inside one search are relative to its subproblem: `x` counts lines of `a`, `y`
/// lines of `b`, and diagonal `k = x - y` runs over `-m..=n`. The frontiers are indexed by
/// `k + m + 1`, and the two diagonals just outside the grid hold sentinels that lose every
/// comparison, so every value kept is a point inside the grid.
struct Myers<'a> {
    a: &'a [usize],
    b: &'a [usize],
    /// Per diagonal, the furthest `x` reached from the top-left corner.
    forward: Vec<isize>,
    /// Per diagonal, the smallest `x` reached from the bottom-right corner.
    backward: Vec<isize>,
    changes: Vec<Change>,
}

impl Myers<'_> {
    /// Diffs `a[old]` against `b[new]`, appending its changes in order. `bound` caps the edits
    /// the search for this subproblem explores; past it the subproblem becomes one change.
    fn conquer(&mut self, mut old: Range<usize>, mut new: Range<usize>, bound: usize) {
        while old.start < old.end && new.start < new.end && self.a[old.start] == self.b[new.start] {
            old.start += 1;
            new.start += 1;
        }
        while old.start < old.end
            && new.start < new.end
            && self.a[old.end - 1] == self.b[new.end - 1]
        {
            old.end -= 1;
            new.end -= 1;
        }
        if old.is_empty() || new.is_empty() {
            self.push(old, new);
            return;
        }
        match self.middle(old.clone(), new.clone(), bound) {
            // Both halves have fewer edits than the whole (which has at least 2, its first and
            // last lines differing), so the recursion ends; the guard turns a split that would
            // not shrink the subproblem (there is none) into one change instead of a loop.
            Some((x, y)) if (x, y) != (old.start, new.start) && (x, y) != (old.end, new.end) => {
                // The halves' edits add up to this subproblem's, at most `bound`.
                self.conquer(old.start..x, new.start..y, usize::MAX);
                self.conquer(x..old.end, y..new.end, usize::MAX);
            }
            _ => self.push(old, new),
        }
    }

    /// Appends a change, merged with the previous one when they touch.
    fn push(&mut self, old: Range<usize>, new: Range<usize>) {
        if old.is_empty() && new.is_empty() {
            return;
        }
        match self.changes.last_mut() {
            Some(last) if last.old.end == old.start && last.new.end == new.start => {
                last.old.end = old.end;
                last.new.end = new.end;
            }
            _ => self.changes.push(Change { old, new }),
        }
    }

    /// A point on a minimal path through `a[old]` × `b[new]` that splits its edits in halves, or
    /// `None` when a minimal path has more than `bound` edits. Both ranges are non-empty and
    /// their first lines differ, as do their last lines.
    fn middle(
        &mut self,
        old: Range<usize>,
        new: Range<usize>,
        bound: usize,
    ) -> Option<(usize, usize)> {
        let (a, b) = (&self.a[old.clone()], &self.b[new.clone()]);
        let (n, m) = (a.len() as isize, b.len() as isize);
        let at = |k: isize| (k + m + 1) as usize;
        let delta = n - m;
        let odd = delta & 1 != 0;
        let bound = isize::try_from(bound).unwrap_or(isize::MAX);
        let (fwd, bwd) = (&mut self.forward, &mut self.backward);
        // Sentinels on the diagonals -m - 1 and n + 1, and the virtual starts: (0, -1) above the
        // top-left corner on diagonal 1, (n, m + 1) below the bottom-right one on delta - 1.
        fwd[at(-m - 1)] = -1;
        fwd[at(n + 1)] = -1;
        bwd[at(-m - 1)] = n + m + 2;
        bwd[at(n + 1)] = n + m + 2;
        fwd[at(1)] = 0;
        bwd[at(delta - 1)] = n;
        // Both searches meet by step ceil(D / 2) with D <= n + m.
        for d in 0..=(n + m) {
            // No meeting so far means D > 2d - 2; a meeting in this forward step means D = 2d - 1.
            if 2 * d - 1 > bound {
                return None;
            }
            let (lo, hi) = diagonals(-d, d, -m, n);
            let mut k = lo;
            while k <= hi {
                let mut x = if k == -d || (k != d && fwd[at(k - 1)] < fwd[at(k + 1)]) {
                    fwd[at(k + 1)]
                } else {
                    fwd[at(k - 1)] + 1
                };
                // Back inside the grid: x <= n and y = x - k <= m.
                x = x.min(n).min(m + k);
                let mut y = x - k;
                while x < n && y < m && a[x as usize] == b[y as usize] {
                    x += 1;
                    y += 1;
                }
                fwd[at(k)] = x;
                // A point on diagonal k at or past where the backward search reached it is at most
                // d - 1 edits from the end: that distance never grows along a diagonal.
                if odd && (k - delta).abs() < d && x >= bwd[at(k)] {
                    return Some((old.start + x as usize, new.start + y as usize));
                }
                k += 2;
            }
            // A meeting in this backward step means D = 2d.
            if 2 * d > bound {
                return None;
            }
            let (lo, hi) = diagonals(delta - d, delta + d, -m, n);
            let mut k = lo;
            while k <= hi {
                let mut x = if k == delta + d || (k != delta - d && bwd[at(k - 1)] < bwd[at(k + 1)])
                {
                    bwd[at(k - 1)]
                } else {
                    bwd[at(k + 1)] - 1
                };
                // Back inside the grid: x >= 0 and y = x - k >= 0.
                x = x.max(0).max(k);
                let mut y = x - k;
                while x > 0 && y > 0 && a[x as usize - 1] == b[y as usize - 1] {
                    x -= 1;
                    y -= 1;
                }
                bwd[at(k)] = x;
                if !odd && k.abs() <= d && x <= fwd[at(k)] {
                    return Some((old.start + x as usize, new.start + y as usize));
                }
                k += 2;
            }
        }
        None
    }
}

/// The diagonals of a search step, `from..=to` in steps of 2, kept inside `min..=max` with the
/// step's parity: the first and last of them.
fn diagonals(from: isize, to: isize, min: isize, max: isize) -> (isize, isize) {
    let mut lo = from.max(min);
    if (lo - from) & 1 != 0 {
        lo += 1;
    }
    let mut hi = to.min(max);
    if (to - hi) & 1 != 0 {
        hi -= 1;
    }
    (lo, hi)
}

/// Writes the hunks of `changes` (in order, each maximal) with `context` lines around them.
fn write_hunks(old: &[&str], new: &[&str], changes: &[Change], context: usize) -> String {
    let mut out = String::new();
    let mut rest = changes;
    while let Some(first) = rest.first() {
        // Changes at most 2 * context unchanged lines apart share a hunk.
        let mut end = 1;
        while let (Some(prev), Some(next)) = (rest.get(end - 1), rest.get(end)) {
            if next.old.start - prev.old.end > context.saturating_mul(2) {
                break;
            }
            end += 1;
        }
        let (hunk, after) = rest.split_at(end);
        rest = after;
        let last = &hunk[hunk.len() - 1];
        let lead = context.min(first.old.start).min(first.new.start);
        let trail = context
            .min(old.len() - last.old.end)
            .min(new.len() - last.new.end);
        let old_start = first.old.start - lead;
        let new_start = first.new.start - lead;
        let old_end = last.old.end + trail;
        out.push_str("@@ -");
        write_range(&mut out, old_start, old_end - old_start);
        out.push_str(" +");
        write_range(&mut out, new_start, last.new.end + trail - new_start);
        out.push_str(" @@\n");
        let mut at = old_start;
        for change in hunk {
            write_lines(&mut out, ' ', &old[at..change.old.start]);
            write_lines(&mut out, '-', &old[change.old.clone()]);
            write_lines(&mut out, '+', &new[change.new.clone()]);
            at = change.old.end;
        }
        write_lines(&mut out, ' ', &old[at..old_end]);
    }
    out
}

/// Writes a hunk range as `diff -u` does: `start + 1` and `len`, `,1` left out, and an empty
/// range as the line before it with `,0`.
fn write_range(out: &mut String, start: usize, len: usize) {
    let _ = match len {
        0 => write!(out, "{start},0"),
        1 => write!(out, "{}", start + 1),
        _ => write!(out, "{},{len}", start + 1),
    };
}

/// Writes `lines` (each with its `\n`, if it has one) prefixed by `tag`.
fn write_lines(out: &mut String, tag: char, lines: &[&str]) {
    for line in lines {
        out.push(tag);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push('\n');
            out.push_str(NO_NEWLINE);
            out.push('\n');
        }
    }
}

/// Applies a diff written by [`unified_diff`] to `old`, strictly: the text it gives, or `None`
/// when the diff does not apply exactly.
///
/// `diff` is a sequence of hunks in the format [`unified_diff`] writes (no `---`/`+++` header
/// lines), each line ended by `\n`. Every hunk header must be well formed, its two starts must be
/// where the hunk falls in `old` and in the text written so far (1-based, an empty range naming
/// the line before it), its counts must match its lines, and hunks must come in order without
/// overlapping. Every unchanged and removed line must equal the line of `old` at its place,
/// including whether it ends with `\n` (a `\ No newline at end of file` line after it says it
/// does not); a line without `\n` can only be the last line written. The lines outside the hunks
/// are copied from `old`. The empty diff gives `old` unchanged.
///
/// This is the check that a diff reproduces a text: `apply_unified_diff(old, &unified_diff(old,
/// new, c)) == Some(new)` for every `old`, `new` and `c`. It runs in O(|old| + |diff|) time and
/// never panics.
///
/// # Example
///
/// ```
/// use rehydrate_sidecar::apply_unified_diff;
///
/// let diff = "@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
/// assert_eq!(apply_unified_diff("a\nb\n", diff).as_deref(), Some("a\nc\n"));
/// // The removed line does not match `old`.
/// assert_eq!(apply_unified_diff("a\nx\n", diff), None);
/// ```
pub fn apply_unified_diff(old: &str, diff: &str) -> Option<String> {
    if diff.is_empty() {
        return Some(old.to_owned());
    }
    let old: Vec<&str> = old.split_inclusive('\n').collect();
    let mut lines = diff.strip_suffix('\n')?.split('\n').peekable();
    let mut out = Output::default();
    // The next line of `old` not yet copied or matched.
    let mut at = 0;
    while let Some(header) = lines.next() {
        let (old_start, old_len, new_start, new_len) = parse_header(header)?;
        if old_len == 0 && new_len == 0 {
            return None;
        }
        // Where the hunk falls in `old`: after its start line when it covers none.
        let pos = if old_len == 0 {
            old_start
        } else {
            old_start.checked_sub(1)?
        };
        for line in old.get(at..pos)? {
            out.push(line, "")?;
        }
        at = pos;
        if new_start != out.lines + usize::from(new_len > 0) {
            return None;
        }
        let (mut old_left, mut new_left) = (old_len, new_len);
        while old_left > 0 || new_left > 0 {
            let line = lines.next()?;
            let mut chars = line.chars();
            let tag = chars.next()?;
            let text = chars.as_str();
            let newline = if lines.next_if_eq(&NO_NEWLINE).is_some() {
                ""
            } else {
                "\n"
            };
            // A line without `\n` is never empty.
            if newline.is_empty() && text.is_empty() {
                return None;
            }
            let (from_old, to_new) = match tag {
                ' ' => (true, true),
                '-' => (true, false),
                '+' => (false, true),
                _ => return None,
            };
            if from_old {
                let matches = old
                    .get(at)
                    .is_some_and(|o| o.strip_suffix(newline) == Some(text));
                if old_left == 0 || !matches {
                    return None;
                }
                old_left -= 1;
                at += 1;
            }
            if to_new {
                if new_left == 0 {
                    return None;
                }
                new_left -= 1;
                out.push(text, newline)?;
            }
        }
    }
    for line in old.get(at..)? {
        out.push(line, "")?;
    }
    Some(out.text)
}

/// The text [`apply_unified_diff`] writes, counting its lines and refusing to write after a
/// line without `\n`.
#[derive(Default)]
struct Output {
    text: String,
    lines: usize,
    ended: bool,
}

impl Output {
    /// Appends one line, `text` followed by `newline` (`"\n"`, or `""` when `text` is whole).
    fn push(&mut self, text: &str, newline: &str) -> Option<()> {
        if self.ended {
            return None;
        }
        self.text.push_str(text);
        self.text.push_str(newline);
        self.lines += 1;
        self.ended = !self.text.ends_with('\n');
        Some(())
    }
}

/// Parses `@@ -a[,b] +c[,d] @@` into `(a, b, c, d)`, an absent count being 1.
fn parse_header(line: &str) -> Option<(usize, usize, usize, usize)> {
    let ranges = line.strip_prefix("@@ -")?.strip_suffix(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let (old_start, old_len) = parse_range(old)?;
    let (new_start, new_len) = parse_range(new)?;
    Some((old_start, old_len, new_start, new_len))
}

/// Parses `a[,b]` (decimal digits only) into `(a, b)`, an absent count being 1.
fn parse_range(range: &str) -> Option<(usize, usize)> {
    let number = |s: &str| {
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    match range.split_once(',') {
        Some((start, len)) => Some((number(start)?, number(len)?)),
        None => Some((number(range)?, 1)),
    }
}
