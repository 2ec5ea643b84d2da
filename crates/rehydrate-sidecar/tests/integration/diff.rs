//! The line diff for re-reads: exact hunks as GNU `diff -u` (diffutils 3.8) prints them, the
//! strict apply, and properties against a naive LCS oracle, with `apply_unified_diff` as the
//! oracle of correctness.

use proptest::prelude::*;
use rehydrate_sidecar::{
    DIFF_MAX_EDIT_LINES, apply_unified_diff, unified_diff, unified_diff_with_bound,
};

/// `unified_diff` of `old` and `new`, checked to apply back to `new`.
fn diff(old: &str, new: &str, context: usize) -> String {
    let diff = unified_diff(old, new, context);
    assert_eq!(
        apply_unified_diff(old, &diff).as_deref(),
        Some(new),
        "{diff}"
    );
    diff
}

/// The lines `from..=to` of a file whose line `i` is `line i`.
fn numbered(from: usize, to: usize) -> String {
    (from..=to).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn one_changed_line_in_twenty_lines() {
    let old = numbered(1, 20);
    let new = old.replace("line 10\n", "line ten\n");
    assert_eq!(
        diff(&old, &new, 3),
        "@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n-line 10\n+line ten\n line 11\n line 12\n line 13\n"
    );
    assert_eq!(diff(&old, &new, 0), "@@ -10 +10 @@\n-line 10\n+line ten\n");
}

#[test]
fn insertion_at_the_start() {
    assert_eq!(
        diff("b\nc\n", "a\nb\nc\n", 3),
        "@@ -1,2 +1,3 @@\n+a\n b\n c\n"
    );
    assert_eq!(diff("b\nc\n", "a\nb\nc\n", 0), "@@ -0,0 +1 @@\n+a\n");
}

#[test]
fn deletion_at_the_end() {
    assert_eq!(
        diff("a\nb\nc\n", "a\nb\n", 3),
        "@@ -1,3 +1,2 @@\n a\n b\n-c\n"
    );
    assert_eq!(diff("a\nb\nc\n", "a\nb\n", 0), "@@ -3 +2,0 @@\n-c\n");
    // Both at once, in two hunks: an empty range names the line before it.
    assert_eq!(
        diff("a\nb\nc\n", "b\nc\nd\n", 0),
        "@@ -1 +0,0 @@\n-a\n@@ -3,0 +3 @@\n+d\n"
    );
}

#[test]
fn a_last_line_without_newline_is_marked() {
    let marker = "\\ No newline at end of file\n";
    // The last line changes and neither text ends with a newline.
    assert_eq!(
        diff("a\nb\nc", "a\nb\nd", 3),
        format!("@@ -1,3 +1,3 @@\n a\n b\n-c\n{marker}+d\n{marker}")
    );
    // Adding the newline changes the line.
    assert_eq!(
        diff("a\nb", "a\nb\n", 3),
        format!("@@ -1,2 +1,2 @@\n a\n-b\n{marker}+b\n")
    );
    assert_eq!(
        diff("a\nb\n", "a\nb", 3),
        format!("@@ -1,2 +1,2 @@\n a\n-b\n+b\n{marker}")
    );
    // A line added after a last line that had none.
    assert_eq!(
        diff("x\ny", "x\ny\nz", 3),
        format!("@@ -1,2 +1,3 @@\n x\n-y\n{marker}+y\n+z\n{marker}")
    );
    assert_eq!(
        diff("x\ny", "x\ny\nz", 0),
        format!("@@ -2 +2,2 @@\n-y\n{marker}+y\n+z\n{marker}")
    );
    // An unchanged last line in the context is marked too.
    assert_eq!(
        diff("a\nb\nc", "A\nb\nc", 3),
        format!("@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n{marker}")
    );
    assert_eq!(
        diff("only", "", 3),
        format!("@@ -1 +0,0 @@\n-only\n{marker}")
    );
}

#[test]
fn hunks_merge_when_their_contexts_overlap() {
    let old: String = (1..=12).map(|i| format!("{i}\n")).collect();
    // Changes 4 lines apart share a hunk with context 2 (4 <= 2 * 2) ...
    let close = old.replace("\n3\n", "\nx\n").replace("\n8\n", "\ny\n");
    assert_eq!(
        diff(&old, &close, 2),
        "@@ -1,10 +1,10 @@\n 1\n 2\n-3\n+x\n 4\n 5\n 6\n 7\n-8\n+y\n 9\n 10\n"
    );
    // ... and 5 lines apart they do not.
    let apart = old
        .replace("\n3\n", "\nthree\n")
        .replace("\n9\n", "\nnine\n");
    assert_eq!(
        diff(&old, &apart, 2),
        "@@ -1,5 +1,5 @@\n 1\n 2\n-3\n+three\n 4\n 5\n@@ -7,5 +7,5 @@\n 7\n 8\n-9\n+nine\n 10\n 11\n"
    );
    assert_eq!(
        diff(&old, &apart, 3),
        "@@ -1,12 +1,12 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n 7\n 8\n-9\n+nine\n 10\n 11\n 12\n"
    );
}

#[test]
fn empty_old_and_empty_new() {
    assert_eq!(diff("", "a\nb\n", 3), "@@ -0,0 +1,2 @@\n+a\n+b\n");
    assert_eq!(diff("a\nb\n", "", 3), "@@ -1,2 +0,0 @@\n-a\n-b\n");
    assert_eq!(diff("", "", 3), "");
    assert_eq!(diff("a\nb", "a\nb", 0), "");
}

#[test]
fn a_carriage_return_stays_part_of_its_line() {
    assert_eq!(
        diff("a\r\nb\r\n", "a\r\nc\r\n", 3),
        "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"
    );
    assert_eq!(
        diff("a\nb\n", "a\nb\r\n", 3),
        "@@ -1,2 +1,2 @@\n a\n-b\n+b\r\n"
    );
}

#[test]
fn a_long_file_with_few_changes_gives_small_hunks() {
    let old = numbered(1, 10_000);
    let mut new = old.clone();
    for i in [11, 2000, 5000, 7000] {
        new = new.replace(&format!("line {i}\n"), &format!("changed {i}\n"));
    }
    new.push_str("one more\n");
    let d = diff(&old, &new, 3);
    assert_eq!(d.matches("@@ -").count(), 5);
    assert_eq!(d.lines().filter(|l| l.starts_with('-')).count(), 4);
    assert_eq!(d.lines().filter(|l| l.starts_with('+')).count(), 5);
    assert!(d.ends_with("@@ -9998,3 +9998,4 @@\n line 9998\n line 9999\n line 10000\n+one more\n"));
}

#[test]
fn texts_with_no_line_in_common_become_one_replacement() {
    let old = numbered(1, 10_000);
    let new: String = (1..=10_000).map(|i| format!("other {i}\n")).collect();
    let d = diff(&old, &new, 3);
    let removed: String = old.lines().map(|l| format!("-{l}\n")).collect();
    let added: String = new.lines().map(|l| format!("+{l}\n")).collect();
    assert_eq!(d, format!("@@ -1,10000 +1,10000 @@\n{removed}{added}"));
}

#[test]
fn past_the_bound_the_changed_region_is_replaced_whole() {
    // Every other line changes: a minimal diff removes and adds 9,998 lines, more than the
    // bound, so every line after the first (common) one is removed and added.
    let old = numbered(0, 9_999);
    let new: String = (0..10_000)
        .map(|i| match i % 2 {
            0 => format!("line {i}\n"),
            _ => format!("x{i}\n"),
        })
        .collect();
    const { assert!(9_998 > DIFF_MAX_EDIT_LINES) };
    let d = diff(&old, &new, 3);
    let removed: String = old.lines().skip(1).map(|l| format!("-{l}\n")).collect();
    let added: String = new.lines().skip(1).map(|l| format!("+{l}\n")).collect();
    assert_eq!(
        d,
        format!("@@ -1,10000 +1,10000 @@\n line 0\n{removed}{added}")
    );
    // Texts whose lengths differ by more than the bound are replaced without a search.
    let longer = format!("{old}{}", numbered(1, DIFF_MAX_EDIT_LINES + 1));
    let d = diff("first\n", &longer, 3);
    assert_eq!(
        d.lines().filter(|l| l.starts_with('+')).count(),
        10_000 + 4097
    );
}

#[test]
fn apply_refuses_a_diff_that_does_not_match() {
    let old = "a\nb\nc\n";
    let good = "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    assert_eq!(apply_unified_diff(old, good).as_deref(), Some("a\nB\nc\n"));
    assert_eq!(apply_unified_diff(old, "").as_deref(), Some(old));
    // An explicit count of 1 is read like an absent one.
    assert_eq!(
        apply_unified_diff(old, "@@ -2,1 +2,1 @@\n-b\n+B\n").as_deref(),
        Some("a\nB\nc\n")
    );
    let refused = [
        // A context or removed line that differs from `old`.
        "@@ -1,3 +1,3 @@\n x\n-b\n+B\n c\n",
        "@@ -1,3 +1,3 @@\n a\n-x\n+B\n c\n",
        // Counts that do not match the lines, either way.
        "@@ -1,3 +1,3 @@\n a\n-b\n+B\n",
        "@@ -1,2 +1,2 @@\n a\n-b\n+B\n c\n",
        "@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n",
        // A new start that is not where the hunk falls.
        "@@ -1,3 +2,3 @@\n a\n-b\n+B\n c\n",
        "@@ -2 +1 @@\n-b\n+B\n",
        // Hunks out of order or overlapping, or beyond the end.
        "@@ -3 +3 @@\n-c\n+C\n@@ -1 +1 @@\n-a\n+A\n",
        "@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -2 +2 @@\n-b\n+B\n",
        "@@ -5 +5 @@\n-e\n+E\n",
        // Malformed headers, lines and endings.
        "@@ -1,3 +1,3 @@ context\n a\n-b\n+B\n c\n",
        "@@ -0 +0 @@\n-a\n+A\n",
        "@@ -a +1 @@\n-a\n+A\n",
        "@@ -+1 +1 @@\n-a\n+A\n",
        "@@ -1,0 +1,0 @@\n",
        "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c",
        "@@ -1,3 +1,3 @@\n a\n-b\n*B\n c\n",
        "@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n c\n",
        "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
        "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\n",
        // A no-newline marker on a line that has one, or where nothing may follow.
        "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\\ No newline at end of file\n",
        "@@ -2 +2 @@\n-b\n+B\n\\ No newline at end of file\n",
        "@@ -1,3 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+B\n c\n",
        "\\ No newline at end of file\n",
    ];
    for diff in refused {
        assert_eq!(apply_unified_diff(old, diff), None, "{diff:?}");
    }
    // The marker says the old line has no newline; it must not have one.
    assert_eq!(
        apply_unified_diff("a\nb", "@@ -2 +2 @@\n-b\n+c\n").as_deref(),
        None
    );
    assert_eq!(
        apply_unified_diff(
            "a\nb",
            "@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+c\n"
        )
        .as_deref(),
        Some("a\nc\n")
    );
    // An empty line without a newline is no line.
    assert_eq!(
        apply_unified_diff("a\n", "@@ -1,0 +2 @@\n+\n\\ No newline at end of file\n"),
        None
    );
}

/// A text of lines drawn from a small alphabet (so lines repeat), with or without a newline at
/// the end.
fn text() -> impl Strategy<Value = String> {
    let line = prop_oneof![Just("a"), Just("b"), Just("c"), Just(""), Just("a\r"),];
    (proptest::collection::vec(line, 0..12), any::<bool>()).prop_map(|(lines, newline)| {
        let mut text = lines.join("\n");
        if newline && !lines.is_empty() {
            text.push('\n');
        }
        text
    })
}

/// The number of lines a minimal diff removes and adds: the naive O(NM) LCS.
fn minimal_edits(old: &str, new: &str) -> usize {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    a.len() + b.len() - 2 * lcs[0][0]
}

/// The number of removed and added lines a diff writes.
fn edits(diff: &str) -> usize {
    diff.lines()
        .filter(|l| l.starts_with('-') || l.starts_with('+'))
        .count()
}

/// The lines left between the common leading and trailing lines of both texts, counted on both
/// sides: what a replacement of the whole changed region removes and adds.
fn changed_region(old: &str, new: &str) -> usize {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    a.len() + b.len() - 2 * (prefix + suffix)
}

/// Per hunk of `diff`: its old start (0-based), its old line count and its body's tags, one per
/// line of `old` or `new` (`\` markers left out).
fn hunks(diff: &str) -> Vec<(usize, usize, Vec<char>)> {
    let mut hunks: Vec<(usize, usize, Vec<char>)> = Vec::new();
    for line in diff.split_terminator('\n') {
        if let Some(header) = line.strip_prefix("@@ -") {
            let old = header.split(' ').next().unwrap();
            let (start, len) = match old.split_once(',') {
                Some((s, l)) => (s.parse::<usize>().unwrap(), l.parse().unwrap()),
                None => (old.parse().unwrap(), 1),
            };
            hunks.push((if len == 0 { start } else { start - 1 }, len, Vec::new()));
        } else if !line.starts_with('\\') {
            hunks
                .last_mut()
                .unwrap()
                .2
                .push(line.chars().next().unwrap());
        }
    }
    hunks
}

proptest! {
    #[test]
    fn applying_the_diff_gives_the_new_text(old in text(), new in text()) {
        for context in 0..=3 {
            let diff = unified_diff(&old, &new, context);
            prop_assert_eq!(apply_unified_diff(&old, &diff), Some(new.clone()), "{}", diff);
        }
    }

    #[test]
    fn a_text_against_itself_gives_nothing(text in text()) {
        for context in 0..=3 {
            prop_assert_eq!(unified_diff(&text, &text, context), "");
        }
    }

    #[test]
    fn the_diff_removes_and_adds_as_few_lines_as_the_lcs_oracle(old in text(), new in text()) {
        let minimal = minimal_edits(&old, &new);
        for context in 0..=3 {
            prop_assert_eq!(edits(&unified_diff(&old, &new, context)), minimal);
        }
    }

    /// The grouping `diff -u` makes: `context` unchanged lines before and after each hunk's
    /// changes, fewer only at the start or end of the text, at most `2 * context` unchanged lines between changes in a hunk, and more than
    /// that between hunks (so hunks never touch).
    #[test]
    fn hunks_are_grouped_as_diff_u_groups_them(old in text(), new in text()) {
        let old_lines = old.split_inclusive('\n').count();
        for context in 0..=3 {
            let diff = unified_diff(&old, &new, context);
            let hunks = hunks(&diff);
            for (i, (start, len, tags)) in hunks.iter().enumerate() {
                let lead = tags.iter().take_while(|&&t| t == ' ').count();
                let trail = tags.iter().rev().take_while(|&&t| t == ' ').count();
                prop_assert!(lead == context || (lead < context && *start == 0), "{}", diff);
                let at_end = start + len == old_lines;
                prop_assert!(trail == context || (trail < context && at_end), "{}", diff);
                let runs = tags[lead..tags.len() - trail]
                    .split(|&t| t != ' ')
                    .map(<[char]>::len);
                prop_assert!(runs.into_iter().all(|run| run <= 2 * context), "{}", diff);
                if let Some((next, _, _)) = hunks.get(i + 1) {
                    prop_assert!(*next > start + len, "{}", diff);
                }
            }
        }
    }

    /// Past the bound the diff replaces the whole changed region and still applies; within it,
    /// the bound changes nothing.
    #[test]
    fn past_the_bound_the_diff_still_applies(old in text(), new in text(), bound in 0usize..6) {
        let minimal = minimal_edits(&old, &new);
        for context in 0..=3 {
            let diff = unified_diff_with_bound(&old, &new, context, bound);
            prop_assert_eq!(apply_unified_diff(&old, &diff), Some(new.clone()), "{}", diff);
            if minimal <= bound {
                prop_assert_eq!(&diff, &unified_diff(&old, &new, context));
            } else {
                prop_assert_eq!(edits(&diff), changed_region(&old, &new), "{}", diff);
                prop_assert_eq!(hunks(&diff).len(), 1, "{}", diff);
            }
        }
    }
}
