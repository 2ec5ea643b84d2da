//! Properties of replay and of `apply_recorded_edit`, against simple oracles.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rehydrate_model::{
    EditBase, EditChange, FileEdit, Message, PatchHunk, Replacement, ToolDetails,
};
use rehydrate_replay::{EditFailure, Replay, apply_recorded_edit, file_records};

/// Short texts over a small alphabet, so that old strings recur.
fn text() -> impl Strategy<Value = String> {
    "[ab\n\té]{0,24}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// One replacement behaves as `str::replace` when it is unique or replace-all, and fails
    /// with the exact count when it is ambiguous.
    #[test]
    fn one_replacement_matches_str_replace(
        base in text(),
        old in "[ab\n]{1,3}",
        new in text(),
        replace_all in any::<bool>(),
    ) {
        let change = EditChange::Replacements {
            edits: vec![Replacement { old: old.clone(), new: new.clone(), replace_all }],
            expand_tabs: None,
            universal_newlines: false,
        };
        let count = base.matches(old.as_str()).count();
        let expected = match (count, replace_all) {
            (0, _) => Err(EditFailure::NotFound { edit: 0 }),
            (1, _) | (_, true) => Ok(base.replace(old.as_str(), &new)),
            (count, false) => Err(EditFailure::Ambiguous { edit: 0, count }),
        };
        prop_assert_eq!(apply_recorded_edit(&base, &change), expected);
    }

    /// A patch built from a random change of lines (one or two hunks with up to 3 lines of
    /// context, line breaks or not at the end) applies to its base and gives the changed text.
    #[test]
    fn line_patches_apply(
        lines in prop::collection::vec("[ab]{0,3}", 0..14),
        first in (0usize..14, 0usize..3, prop::collection::vec("[abc]{0,3}", 0..3)),
        second in (0usize..3, prop::collection::vec("[abc]{0,3}", 0..3)),
        old_newline in any::<bool>(),
        new_newline in any::<bool>(),
    ) {
        let n = lines.len();
        // Two changes: lines [i, i+del) replaced by `add`, then, 7 lines later, another.
        let i = first.0.min(n);
        let del = first.1.min(n - i);
        let j = (i + del + 7).min(n);
        let del2 = second.0.min(n - j);
        let changes = [(i, del, first.2), (j, del2, second.1)];
        let mut new_lines: Vec<String> = Vec::new();
        let mut cursor = 0;
        for (at, del, add) in &changes {
            if *at < cursor { continue; }
            new_lines.extend(lines[cursor..*at].iter().cloned());
            new_lines.extend(add.iter().cloned());
            cursor = at + del;
        }
        new_lines.extend(lines[cursor..].iter().cloned());
        let join = |ls: &[String], newline: bool| {
            let mut t = ls.join("\n");
            if newline && !ls.is_empty() { t.push('\n'); }
            t
        };
        // A text whose last line is empty and has no break cannot be told apart from one line
        // fewer; keep the generated texts unambiguous.
        prop_assume!(lines.last().is_none_or(|l| !l.is_empty() || old_newline));
        prop_assume!(new_lines.last().is_none_or(|l| !l.is_empty() || new_newline));
        let base = join(&lines, old_newline);
        let expected = join(&new_lines, new_newline);
        let hunks = diff(&lines, old_newline, &new_lines, new_newline);
        prop_assume!(!hunks.is_empty());
        prop_assert_eq!(
            apply_recorded_edit(&base, &EditChange::Patch { hunks }),
            Ok(expected)
        );
    }

    /// Replay equals a plain oracle over random reads, writes, edits and notebook edits of a few
    /// paths, and the one-shot `file_records` equals the step-by-step state.
    #[test]
    fn replay_matches_an_oracle(ops in prop::collection::vec(op(), 0..24)) {
        let messages: Vec<Message> = ops.iter().map(|(_, m)| m.clone()).collect();
        let mut oracle: BTreeMap<String, Option<String>> = BTreeMap::new();
        for (effect, _) in &ops {
            match effect {
                Effect::Prove(path, content) => { oracle.insert(path.clone(), Some(content.clone())); }
                Effect::Edit(path, base, old, new) => {
                    let result = match base.matches(old.as_str()).count() {
                        1 => Some(base.replacen(old.as_str(), new, 1)),
                        _ => None,
                    };
                    oracle.insert(path.clone(), result);
                }
                Effect::Retract(path) => { oracle.insert(path.clone(), None); }
                Effect::None => {}
            }
        }
        let mut replay = Replay::new();
        replay.run(&messages);
        let records = file_records(&messages);
        prop_assert_eq!(&records, &replay.records());
        let got: Vec<(String, String)> =
            records.into_iter().map(|r| (r.path, r.content)).collect();
        let want: Vec<(String, String)> = oracle
            .into_iter()
            .filter_map(|(p, c)| Some((p, c?)))
            .collect();
        prop_assert_eq!(got, want);
    }
}

#[derive(Debug, Clone)]
enum Effect {
    Prove(String, String),
    Edit(String, String, String, String),
    Retract(String),
    None,
}

/// One tool result and what the oracle says it does.
fn op() -> impl Strategy<Value = (Effect, Message)> {
    let path = prop::sample::select(vec!["/a/x", "/a/y", "rel/z"]);
    (0u8..6, path, text(), "[ab]{1,2}", text(), any::<bool>()).prop_map(
        |(kind, path, body, old, new, failed)| {
            let absolute = path.starts_with('/');
            let p = path.to_string();
            let (effect, details) = match kind {
                0 => (
                    Effect::Prove(p.clone(), body.clone()),
                    ToolDetails::WholeRead {
                        path: p.clone(),
                        content: body,
                    },
                ),
                1 => (
                    Effect::Prove(p.clone(), body.clone()),
                    ToolDetails::Write {
                        path: p.clone(),
                        content: body,
                    },
                ),
                2 => (
                    Effect::Edit(p.clone(), body.clone(), old.clone(), new.clone()),
                    ToolDetails::Edit(FileEdit {
                        path: p.clone(),
                        base: EditBase::Recorded { text: body },
                        change: EditChange::Replacements {
                            edits: vec![Replacement {
                                old,
                                new,
                                replace_all: false,
                            }],
                            expand_tabs: None,
                            universal_newlines: false,
                        },
                        shown: None,
                        diff: None,
                    }),
                ),
                3 => (
                    Effect::Retract(p.clone()),
                    ToolDetails::NotebookEdit { path: p.clone() },
                ),
                4 => (
                    Effect::None,
                    ToolDetails::PartialRead {
                        path: p.clone(),
                        start_line: 2,
                        num_lines: 1,
                        total_lines: 3,
                    },
                ),
                _ => (
                    Effect::Retract(p.clone()),
                    ToolDetails::Edit(FileEdit {
                        path: p.clone(),
                        base: EditBase::Missing,
                        change: EditChange::Replacements {
                            edits: Vec::new(),
                            expand_tabs: None,
                            universal_newlines: false,
                        },
                        shown: None,
                        diff: None,
                    }),
                ),
            };
            let mut m = Message::tool_result("t", "result");
            m.details = Some(Box::new(details));
            if failed {
                m.metadata.insert("is_error".into(), "true".into());
            }
            let effect = if failed || !absolute {
                Effect::None
            } else {
                effect
            };
            (effect, m)
        },
    )
}

/// A unified diff of `old` and `new` (lines without breaks) as jsdiff writes it: one hunk per
/// group of changes whose 3 lines of context touch, with `\ No newline at end of file` markers.
fn diff(old: &[String], old_newline: bool, new: &[String], new_newline: bool) -> Vec<PatchHunk> {
    // Longest common subsequence, then the edit script.
    let (n, m) = (old.len(), new.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // (kind, old index, new index) per script line.
    let mut script: Vec<(u8, usize, usize)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        let last_old = i + 1 == n && !old_newline;
        let last_new = j + 1 == m && !new_newline;
        if i < n && j < m && old[i] == new[j] && last_old == last_new {
            script.push((b' ', i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            script.push((b'-', i, j));
            i += 1;
        } else {
            script.push((b'+', i, j));
            j += 1;
        }
    }
    let changed: Vec<usize> = (0..script.len()).filter(|&k| script[k].0 != b' ').collect();
    let mut hunks = Vec::new();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(3);
        let mut end = changed[k] + 1;
        while k + 1 < changed.len() && changed[k + 1] <= end + 6 {
            k += 1;
            end = changed[k] + 1;
        }
        k += 1;
        let end = (end + 3).min(script.len());
        let mut lines = Vec::new();
        let (mut old_lines, mut new_lines) = (0, 0);
        for &(kind, oi, nj) in &script[start..end] {
            let (text, no_break) = match kind {
                b'+' => (&new[nj], nj + 1 == m && !new_newline),
                _ => (&old[oi], oi + 1 == n && !old_newline),
            };
            lines.push(format!("{}{text}", kind as char));
            if no_break {
                lines.push("\\ No newline at end of file".to_string());
            }
            if kind != b'+' {
                old_lines += 1;
            }
            if kind != b'-' {
                new_lines += 1;
            }
        }
        let (first_old, first_new) = (script[start].1, script[start].2);
        hunks.push(PatchHunk {
            // jsdiff: 1-based, also for a hunk that covers no old line.
            old_start: first_old as u64 + 1,
            old_lines,
            new_start: first_new as u64 + 1,
            new_lines,
            lines,
        });
    }
    hunks
}
