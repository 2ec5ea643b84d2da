//! Tool-result details of Codex's `apply_patch` (docs/FORMATS.md, "Codex CLI rollout",
//! "Tool-result details"): what a successful patch of one file proves.
//!
//! The `patch_apply_end` event of the call, when the rollout has one, is authoritative (its
//! paths are absolute and its update diffs carry line numbers); without one, the patch text
//! itself is read, and only an added file is proven.

use std::collections::BTreeMap;

use rehydrate_model::{EditBase, EditChange, FileEdit, Message, PatchHunk, Role, ToolDetails};
use serde_json::Value;

use crate::keys;

/// One file operation of a patch.
#[derive(Debug, PartialEq, Eq)]
enum Op {
    Add {
        path: String,
        content: Option<String>,
    },
    Update {
        path: String,
    },
    Delete {
        path: String,
    },
}

/// Fills `details` of the results of successful `apply_patch` custom calls that touch one file.
pub(super) fn fill(messages: &mut [Message], patch_events: &BTreeMap<String, (Value, bool)>) {
    let mut patches: BTreeMap<String, String> = BTreeMap::new();
    for m in messages.iter_mut() {
        if m.role == Role::Assistant {
            let custom = m.metadata.get(keys::CUSTOM_CALLS);
            for c in &m.tool_calls {
                let is_custom = custom.is_some_and(|ids| ids.lines().any(|id| id == c.id));
                if is_custom
                    && c.name == "apply_patch"
                    && let Ok(Value::Object(args)) = serde_json::from_str::<Value>(&c.arguments)
                    && let Some(Value::String(input)) = args.get("input")
                {
                    patches.insert(c.id.clone(), input.clone());
                }
            }
            continue;
        }
        if m.role != Role::Tool || m.is_error() {
            continue;
        }
        let Some(id) = m.tool_call_id.as_deref() else {
            continue;
        };
        let Some(input) = patches.get(id) else {
            continue;
        };
        let event = patch_events.get(id);
        let success = match event {
            Some((_, success)) => *success,
            None => m.metadata.get(keys::CODEX_EXIT_CODE).map(String::as_str) == Some("0"),
        };
        if !success {
            continue;
        }
        m.details = details(input, event.map(|(changes, _)| changes)).map(Box::new);
    }
}

/// The details of a successful patch, when it touches exactly one file.
fn details(input: &str, changes: Option<&Value>) -> Option<ToolDetails> {
    let ops = ops(input)?;
    let [op] = ops.as_slice() else {
        return None;
    };
    if let Some(Value::Object(changes)) = changes {
        let [(path, change)] = changes.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let path = path.clone();
        let unproven = |reason: &str| ToolDetails::UnprovenChange {
            path: path.clone(),
            reason: reason.to_string(),
        };
        return Some(match change.get("type").and_then(Value::as_str) {
            Some("add") => match change.get("content").and_then(Value::as_str) {
                Some(content) => ToolDetails::Write {
                    path: path.clone(),
                    content: content.to_string(),
                },
                None => unproven("the apply_patch add record has no content"),
            },
            Some("delete") => unproven("apply_patch deleted the file"),
            Some("update") => {
                if change.get("move_path").is_some_and(|m| !m.is_null()) {
                    unproven("apply_patch moved the file")
                } else {
                    match change
                        .get("unified_diff")
                        .and_then(Value::as_str)
                        .and_then(hunks)
                    {
                        Some(hunks) => ToolDetails::Edit(FileEdit {
                            path: path.clone(),
                            base: EditBase::LastProven,
                            change: EditChange::Patch { hunks },
                            shown: None,
                            diff: None,
                        }),
                        None => unproven("the apply_patch update record has no readable diff"),
                    }
                }
            }
            _ => unproven("the apply_patch change record has an unknown type"),
        });
    }
    Some(match op {
        Op::Add {
            path,
            content: Some(content),
        } => ToolDetails::Write {
            path: path.clone(),
            content: content.clone(),
        },
        Op::Add {
            path,
            content: None,
        } => ToolDetails::UnprovenChange {
            path: path.clone(),
            reason: "the apply_patch add section is malformed".to_string(),
        },
        Op::Update { path } => ToolDetails::UnprovenChange {
            path: path.clone(),
            reason: "the apply_patch update has no patch_apply_end record with line numbers"
                .to_string(),
        },
        Op::Delete { path } => ToolDetails::UnprovenChange {
            path: path.clone(),
            reason: "apply_patch deleted the file".to_string(),
        },
    })
}

/// The file operations of an `apply_patch` input; `None` when it is not a patch.
fn ops(input: &str) -> Option<Vec<Op>> {
    let mut lines = input.lines().peekable();
    if lines.next()?.trim() != "*** Begin Patch" {
        return None;
    }
    let mut ops = Vec::new();
    while let Some(line) = lines.next() {
        if let Some(path) = line.strip_prefix("*** Add File: ") {
            let mut content = Some(String::new());
            while let Some(next) = lines.next_if(|l| !l.starts_with("*** ")) {
                match (next.strip_prefix('+'), &mut content) {
                    (Some(text), Some(c)) => {
                        c.push_str(text);
                        c.push('\n');
                    }
                    _ => content = None,
                }
            }
            ops.push(Op::Add {
                path: path.to_string(),
                content,
            });
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            ops.push(Op::Update {
                path: path.to_string(),
            });
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            ops.push(Op::Delete {
                path: path.to_string(),
            });
        }
    }
    Some(ops)
}

/// The hunks of a unified diff (`@@ -a,b +c,d @@` headers and their lines); `None` when a line
/// is out of place.
fn hunks(diff: &str) -> Option<Vec<PatchHunk>> {
    let mut hunks: Vec<PatchHunk> = Vec::new();
    let mut lines: Vec<&str> = diff.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    for line in lines {
        if let Some(header) = line.strip_prefix("@@ -") {
            let (ranges, _) = header.split_once(" @@")?;
            let (old, new) = ranges.split_once(" +")?;
            let range = |r: &str| -> Option<(u64, u64)> {
                match r.split_once(',') {
                    Some((start, len)) => Some((start.parse().ok()?, len.parse().ok()?)),
                    None => Some((r.parse().ok()?, 1)),
                }
            };
            let (old_start, old_lines) = range(old)?;
            let (new_start, new_lines) = range(new)?;
            hunks.push(PatchHunk {
                old_start,
                old_lines,
                new_start,
                new_lines,
                lines: Vec::new(),
            });
        } else if line.starts_with([' ', '-', '+', '\\']) {
            hunks.last_mut()?.lines.push(line.to_string());
        } else {
            return None;
        }
    }
    (!hunks.is_empty()).then_some(hunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_file_content_is_each_plus_line_with_a_line_break() {
        let input = "*** Begin Patch\n*** Add File: a.txt\n+one\n+\n+two\n*** End Patch\n";
        assert_eq!(
            details(input, None),
            Some(ToolDetails::Write {
                path: "a.txt".to_string(),
                content: "one\n\ntwo\n".to_string()
            })
        );
    }

    #[test]
    fn two_files_prove_nothing() {
        let input = "*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** End Patch\n";
        assert_eq!(details(input, None), None);
    }

    #[test]
    fn unified_diff_hunks() {
        let h = hunks("@@ -246,2 +246,3 @@\n \n+x\n y\n").unwrap();
        assert_eq!(h.len(), 1);
        assert_eq!(
            (
                h[0].old_start,
                h[0].old_lines,
                h[0].new_start,
                h[0].new_lines
            ),
            (246, 2, 246, 3)
        );
        assert_eq!(h[0].lines, [" ", "+x", " y"]);
        assert_eq!(hunks("@@ -1 +1 @@\n-a\n+b\n").unwrap()[0].old_lines, 1);
        assert_eq!(hunks("garbage"), None);
    }
}
