//! Tool-result details of Codex's `apply_patch` (docs/FORMATS.md, "Codex CLI rollout",
//! "Tool-result details"): what a successful patch of one file proves.
//!
//! The `patch_apply_end` event of the call, when the rollout has one, is authoritative (its
//! paths are absolute and its update diffs carry line numbers); without one, the patch text
//! itself is read, its paths taken from the session's working directory (session_meta's
//! `cwd`), and only an added file is proven.

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
        /// The `*** Move to:` path of a renaming update.
        move_to: Option<String>,
    },
    Delete {
        path: String,
    },
}

/// Fills `details` of the results of successful `apply_patch` custom calls.
pub(super) fn fill(messages: &mut [Message], patch_events: &BTreeMap<String, (Value, bool)>) {
    // A patch's paths are relative to the session's working directory (session_meta's cwd).
    let cwd = messages
        .iter()
        .find_map(|m| m.metadata.get(keys::CODEX_CWD))
        .filter(|cwd| cwd.starts_with('/'))
        .cloned();
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
        m.details = details(input, event.map(|(changes, _)| changes), cwd.as_deref()).map(Box::new);
    }
}

/// `path` as an absolute path: as it is when it is one, else joined to `cwd` when there is
/// one (a relative path without it stays relative: replay proves nothing of it).
fn absolute(path: String, cwd: Option<&str>) -> String {
    match cwd {
        Some(cwd) if !path.starts_with('/') => {
            format!(
                "{}/{}",
                cwd.trim_end_matches('/'),
                path.trim_start_matches("./")
            )
        }
        _ => path,
    }
}

/// The details of a successful patch: one file's, or a [`ToolDetails::Patch`] of each file's
/// when it touched several; `None` when `input` is not a patch or touched no file.
fn details(input: &str, changes: Option<&Value>, cwd: Option<&str>) -> Option<ToolDetails> {
    let ops = ops(input)?;
    let mut files: Vec<ToolDetails> = match changes {
        // The patch_apply_end record is authoritative: absolute paths, numbered hunks.
        Some(Value::Object(changes)) => changes
            .iter()
            .flat_map(|(path, change)| change_details(path, change))
            .collect(),
        _ => ops.into_iter().flat_map(|op| op_details(op, cwd)).collect(),
    };
    match files.len() {
        0 => None,
        1 => files.pop(),
        _ => Some(ToolDetails::Patch { files }),
    }
}

/// What one file's record of a `patch_apply_end` proves: an add its content, an update its
/// hunks over the last proven content; a move retracts both paths, a delete its path.
fn change_details(path: &str, change: &Value) -> Vec<ToolDetails> {
    let unproven = |path: &str, reason: &str| ToolDetails::UnprovenChange {
        path: path.to_string(),
        reason: reason.to_string(),
    };
    let one = match change.get("type").and_then(Value::as_str) {
        Some("add") => match change.get("content").and_then(Value::as_str) {
            Some(content) => ToolDetails::Write {
                path: path.to_string(),
                content: content.to_string(),
            },
            None => unproven(path, "the apply_patch add record has no content"),
        },
        Some("delete") => unproven(path, "apply_patch deleted the file"),
        Some("update") => {
            if let Some(to) = change.get("move_path").filter(|m| !m.is_null()) {
                let to = to.as_str().unwrap_or_default();
                let mut both = vec![unproven(path, "apply_patch moved the file")];
                if !to.is_empty() {
                    both.push(unproven(to, "apply_patch moved a file here"));
                }
                return both;
            }
            match change
                .get("unified_diff")
                .and_then(Value::as_str)
                .and_then(hunks)
            {
                Some(hunks) => ToolDetails::Edit(FileEdit {
                    path: path.to_string(),
                    base: EditBase::LastProven,
                    change: EditChange::Patch { hunks },
                    shown: None,
                    diff: None,
                }),
                None => unproven(path, "the apply_patch update record has no readable diff"),
            }
        }
        _ => unproven(path, "the apply_patch change record has an unknown type"),
    };
    vec![one]
}

/// What one operation of a patch text proves without a `patch_apply_end` record: an added
/// file's content; an update (its hunks carry no line numbers), a move and a delete prove
/// nothing and retract their paths. Relative paths are taken from `cwd`.
fn op_details(op: Op, cwd: Option<&str>) -> Vec<ToolDetails> {
    let unproven = |path: String, reason: &str| ToolDetails::UnprovenChange {
        path: absolute(path, cwd),
        reason: reason.to_string(),
    };
    match op {
        Op::Add {
            path,
            content: Some(content),
        } => vec![ToolDetails::Write {
            path: absolute(path, cwd),
            content,
        }],
        Op::Add {
            path,
            content: None,
        } => vec![unproven(path, "the apply_patch add section is malformed")],
        Op::Update { path, move_to } => {
            let mut out = vec![unproven(
                path,
                "the apply_patch update has no patch_apply_end record with line numbers",
            )];
            if let Some(to) = move_to {
                out.push(unproven(to, "apply_patch moved a file here"));
            }
            out
        }
        Op::Delete { path } => vec![unproven(path, "apply_patch deleted the file")],
    }
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
            let move_to = lines
                .next_if(|l| l.starts_with("*** Move to: "))
                .and_then(|l| l.strip_prefix("*** Move to: "))
                .map(str::to_string);
            ops.push(Op::Update {
                path: path.to_string(),
                move_to,
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
            details(input, None, None),
            Some(ToolDetails::Write {
                path: "a.txt".to_string(),
                content: "one\n\ntwo\n".to_string()
            })
        );
    }

    #[test]
    fn relative_paths_are_taken_from_the_working_directory() {
        let input = "*** Begin Patch\n*** Add File: ./notes/a.txt\n+x\n*** Delete File: /abs/b\n*** Update File: c\n*** End Patch\n";
        let Some(ToolDetails::Patch { files }) = details(input, None, Some("/home/dev/greeter/"))
        else {
            panic!("three files");
        };
        let paths: Vec<&str> = files.iter().map(ToolDetails::path).collect();
        assert_eq!(
            paths,
            [
                "/home/dev/greeter/notes/a.txt",
                "/abs/b",
                "/home/dev/greeter/c"
            ]
        );
    }

    #[test]
    fn two_files_are_a_patch_of_each_files_details() {
        let input = "*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** End Patch\n";
        assert_eq!(
            details(input, None, None),
            Some(ToolDetails::Patch {
                files: vec![
                    ToolDetails::Write {
                        path: "a".to_string(),
                        content: "x\n".to_string()
                    },
                    ToolDetails::UnprovenChange {
                        path: "b".to_string(),
                        reason: "apply_patch deleted the file".to_string()
                    },
                ]
            })
        );
    }

    #[test]
    fn a_move_retracts_both_paths() {
        let input =
            "*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End Patch\n";
        let Some(ToolDetails::Patch { files }) = details(input, None, None) else {
            panic!("a move is two files");
        };
        let paths: Vec<&str> = files.iter().map(ToolDetails::path).collect();
        assert_eq!(paths, ["a", "b"]);
        assert!(
            files
                .iter()
                .all(|f| matches!(f, ToolDetails::UnprovenChange { .. }))
        );
        let changes = serde_json::json!({
            "/w/a": {"type": "update", "unified_diff": "@@ -1 +1 @@\n-x\n+y\n", "move_path": "/w/b"}
        });
        let Some(ToolDetails::Patch { files }) = details(input, Some(&changes), None) else {
            panic!("a recorded move is two files");
        };
        let paths: Vec<&str> = files.iter().map(ToolDetails::path).collect();
        assert_eq!(paths, ["/w/a", "/w/b"]);
    }

    #[test]
    fn a_recorded_patch_of_two_files_gives_each_its_details() {
        let input = "*** Begin Patch\n*** Add File: n.txt\n+new\n*** Update File: o.txt\n@@\n-a\n+b\n*** End Patch\n";
        let changes = serde_json::json!({
            "/w/n.txt": {"type": "add", "content": "new\n"},
            "/w/o.txt": {"type": "update", "unified_diff": "@@ -1 +1 @@\n-a\n+b\n", "move_path": null}
        });
        let Some(ToolDetails::Patch { files }) = details(input, Some(&changes), None) else {
            panic!("two files are a patch");
        };
        assert_eq!(
            files[0],
            ToolDetails::Write {
                path: "/w/n.txt".to_string(),
                content: "new\n".to_string()
            }
        );
        let ToolDetails::Edit(edit) = &files[1] else {
            panic!("an update with a diff is an edit");
        };
        assert_eq!(
            (edit.path.as_str(), &edit.base),
            ("/w/o.txt", &EditBase::LastProven)
        );
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
