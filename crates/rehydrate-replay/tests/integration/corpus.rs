//! The corpus check: on every Claude Code session of the shared corpus (`REHYDRATE_CORPUS`, or
//! `shared/corpus` next to the workspace), every edit card's recorded base (`originalFile`,
//! `originalFileContents`) equals the content replay had proven for that path just before it,
//! where replay had one; and every card's `structuredPatch`, applied to its base by
//! `apply_recorded_edit`, gives the text the card's own strings or content give. The per-session
//! counts of proven, retracted and inert paths are a snapshot. When the corpus is absent the test
//! says so and passes.

use std::fmt::Write as _;

use rehydrate_model::{EditBase, EditChange, PatchHunk, Replacement, ToolDetails};
use rehydrate_replay::{Replay, apply_recorded_edit};
use rehydrate_test_support::corpus_sessions;
use serde_json::Value;

fn sessions() -> Option<(std::path::PathBuf, Vec<std::path::PathBuf>)> {
    corpus_sessions(&[("claude-code", "jsonl")], "replay corpus check")
}

#[test]
fn edit_bases_equal_the_content_replay_proved_before_them() {
    let Some((dir, sessions)) = sessions() else {
        return;
    };
    let mut table = String::from("session | messages | proven | retracted | inert\n");
    let mut compared = 0;
    for path in &sessions {
        let bytes = std::fs::read(path).expect("corpus file is readable");
        let import = rehydrate_formats::import(path, &bytes, None).expect("corpus session imports");
        let mut replay = Replay::new();
        for (i, m) in import.messages.iter().enumerate() {
            if let Some(ToolDetails::Edit(edit) | ToolDetails::MultiEdit(edit)) =
                m.details.as_deref()
                && let EditBase::Recorded { text } = &edit.base
                && let Some(proven) = replay.content(&edit.path)
                && !m.is_error()
            {
                assert!(
                    proven == text,
                    "{}: message {i}: the edit of {} starts from a base other than the content replay proved",
                    path.display(),
                    edit.path
                );
                compared += 1;
            }
            replay.step(i, m);
        }
        let counts = replay.counts();
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let _ = writeln!(
            table,
            "{} | {} | {} | {} | {}",
            name.rsplit('/').next().unwrap_or(&name),
            import.messages.len(),
            counts.proven,
            counts.retracted,
            counts.inert
        );
    }
    let _ = writeln!(table, "edit bases compared with proven content: {compared}");
    insta::assert_snapshot!(table);
}

/// A card's `structuredPatch` as hunks.
fn hunks(card: &Value) -> Option<Vec<PatchHunk>> {
    let num = |h: &Value, k: &str| h.get(k).and_then(Value::as_u64);
    card.get("structuredPatch")?
        .as_array()?
        .iter()
        .map(|h| {
            Some(PatchHunk {
                old_start: num(h, "oldStart")?,
                old_lines: num(h, "oldLines")?,
                new_start: num(h, "newStart")?,
                new_lines: num(h, "newLines")?,
                lines: h
                    .get("lines")?
                    .as_array()?
                    .iter()
                    .map(|l| l.as_str().map(str::to_string))
                    .collect::<Option<_>>()?,
            })
        })
        .collect()
}

/// The text a card says its tool produced from its base, by the card's own strings (an edit),
/// or its `content` (a write).
fn expected_result(card: &Value, base: &str) -> Option<String> {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(edits) = card.get("edits").and_then(Value::as_array) {
        let edits = edits
            .iter()
            .map(|e| {
                Some(Replacement {
                    old: text(e, "old_string")?,
                    new: text(e, "new_string")?,
                    replace_all: e.get("replace_all").and_then(Value::as_bool) == Some(true),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let change = EditChange::Replacements {
            edits,
            expand_tabs: None,
            universal_newlines: false,
        };
        return apply_recorded_edit(base, &change).ok();
    }
    if let (Some(old), Some(new)) = (text(card, "oldString"), text(card, "newString")) {
        let change = EditChange::Replacements {
            edits: vec![Replacement {
                old,
                new,
                replace_all: card.get("replaceAll").and_then(Value::as_bool) == Some(true),
            }],
            expand_tabs: None,
            universal_newlines: false,
        };
        return apply_recorded_edit(base, &change).ok();
    }
    text(card, "content")
}

#[test]
fn structured_patches_apply_to_their_bases() {
    let Some((_, sessions)) = sessions() else {
        return;
    };
    let mut applied = 0;
    for path in &sessions {
        let text = std::fs::read_to_string(path).expect("corpus file is UTF-8");
        for (n, line) in text.lines().enumerate() {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let Some(card) = record.get("toolUseResult") else {
                continue;
            };
            let base = ["originalFile", "originalFileContents"]
                .iter()
                .find_map(|k| card.get(*k).and_then(Value::as_str));
            let (Some(base), Some(hunks)) = (base, hunks(card)) else {
                continue;
            };
            let Some(expected) = expected_result(card, base) else {
                continue;
            };
            if hunks.is_empty() {
                assert_eq!(
                    expected,
                    base,
                    "{}:{}: an empty patch changes nothing",
                    path.display(),
                    n + 1
                );
                continue;
            }
            let patched = apply_recorded_edit(base, &EditChange::Patch { hunks });
            assert_eq!(
                patched.as_deref(),
                Ok(expected.as_str()),
                "{}:{}: the patch gives another text than the card",
                path.display(),
                n + 1
            );
            applied += 1;
        }
    }
    // The corpus has 44 Edit, 2 MultiEdit and 10 Write cards with a base and a patch.
    assert!(applied >= 40, "only {applied} patches were checked");
}
