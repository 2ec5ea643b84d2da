//! Claude Code's tool-result cards (`toolUseResult`) as typed [`ToolDetails`]
//! (docs/FORMATS.md, "Tool-result details").
//!
//! A card is read only for the file tools (`Read`, `Write`, `Edit`, `MultiEdit`,
//! `NotebookEdit`) and only on a successful result. A file-changing tool whose card is missing or
//! does not have the shape below gets [`ToolDetails::UnprovenChange`], so replay retracts the
//! path instead of keeping a record the change made stale; a `Read` with such a card gets none.

use rehydrate_model::{EditBase, EditChange, FileEdit, Media, PatchHunk, Replacement, ToolDetails};
use serde::Deserialize;
use serde_json::Value;

/// The tools whose cards are read; their results keep the line's `toolUseResult`.
pub(super) const FILE_TOOLS: [&str; 5] = ["Read", "Write", "Edit", "MultiEdit", "NotebookEdit"];

/// Whether a `toolUseResult` value can be a file tool's card (it is kept past parsing only
/// then, since cards of other tools can be as large as the result itself).
pub(super) fn may_be_file_card(card: &Value) -> bool {
    card.as_object().is_some_and(|o| {
        o.contains_key("file")
            || o.contains_key("filePath")
            || o.contains_key("notebook_path")
            || o.contains_key("edits")
    })
}

/// The path a file tool's arguments name (`file_path`, or `notebook_path`), when they are a
/// JSON object that names one.
pub(super) fn argument_path(arguments: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Args {
        file_path: Option<String>,
        notebook_path: Option<String>,
    }
    let args: Args = serde_json::from_str(arguments).ok()?;
    args.file_path.or(args.notebook_path)
}

/// The details of a successful result of file tool `tool`, from its card (`None` when the line
/// has none or it is shared by several results) and the path its arguments name.
pub(super) fn details(
    tool: &str,
    card: Option<Value>,
    argument_path: Option<&str>,
) -> Option<ToolDetails> {
    let unproven = |reason: &str| {
        argument_path.map(|path| ToolDetails::UnprovenChange {
            path: path.to_string(),
            reason: reason.to_string(),
        })
    };
    match tool {
        "Read" => read(card?, argument_path),
        "Write" => match card.map(serde_json::from_value::<WriteCard>) {
            Some(Ok(c)) if c.kind == "create" || c.kind == "update" => Some(ToolDetails::Write {
                path: c.file_path,
                content: c.content,
            }),
            Some(_) => unproven("the Write card is malformed"),
            None => unproven("the Write result has no card"),
        },
        "Edit" => match card.map(serde_json::from_value::<EditCard>) {
            Some(Ok(c)) => {
                let edits = vec![Replacement {
                    old: c.old_string,
                    new: c.new_string,
                    replace_all: c.replace_all,
                }];
                let (change, diff) = changes(edits, c.user_modified, c.structured_patch);
                edit(
                    c.file_path,
                    c.original_file,
                    change,
                    diff,
                    ToolDetails::Edit,
                )
            }
            Some(Err(_)) => unproven("the Edit card is malformed"),
            None => unproven("the Edit result has no card"),
        },
        "MultiEdit" => match card.map(serde_json::from_value::<MultiEditCard>) {
            Some(Ok(c)) => {
                let edits = c
                    .edits
                    .into_iter()
                    .map(|e| Replacement {
                        old: e.old_string,
                        new: e.new_string,
                        replace_all: e.replace_all,
                    })
                    .collect();
                let (change, diff) = changes(edits, c.user_modified, c.structured_patch);
                edit(
                    c.file_path,
                    c.original_file_contents,
                    change,
                    diff,
                    ToolDetails::MultiEdit,
                )
            }
            Some(Err(_)) => unproven("the MultiEdit card is malformed"),
            None => unproven("the MultiEdit result has no card"),
        },
        "NotebookEdit" => {
            let path = card
                .as_ref()
                .and_then(|c| c.get("notebook_path"))
                .and_then(Value::as_str)
                .or(argument_path)?;
            Some(ToolDetails::NotebookEdit {
                path: path.to_string(),
            })
        }
        _ => None,
    }
}

/// An edit card's change and the diff that cross-checks it: for an edit the person modified,
/// the card's patch is the change (none without one); otherwise the strings are, and a
/// non-empty patch must agree with them.
fn changes(
    edits: Vec<Replacement>,
    user_modified: bool,
    structured_patch: Option<Vec<HunkCard>>,
) -> (Option<EditChange>, Option<Vec<PatchHunk>>) {
    if user_modified {
        let change = structured_patch.map(|h| EditChange::Patch { hunks: hunks(h) });
        return (change, None);
    }
    let change = EditChange::Replacements {
        edits,
        expand_tabs: None,
        universal_newlines: false,
    };
    let diff = structured_patch.filter(|h| !h.is_empty()).map(hunks);
    (Some(change), diff)
}

/// An edit's details; a modified edit without a patch proves nothing.
fn edit(
    path: String,
    base: Option<String>,
    change: Option<EditChange>,
    diff: Option<Vec<PatchHunk>>,
    kind: fn(FileEdit) -> ToolDetails,
) -> Option<ToolDetails> {
    let Some(change) = change else {
        return Some(ToolDetails::UnprovenChange {
            path,
            reason: "the person modified the edit and the card has no patch".to_string(),
        });
    };
    let base = match base {
        Some(text) => EditBase::Recorded { text },
        None => EditBase::Missing,
    };
    Some(kind(FileEdit {
        path,
        base,
        change,
        shown: None,
        diff,
    }))
}

fn hunks(cards: Vec<HunkCard>) -> Vec<PatchHunk> {
    cards
        .into_iter()
        .map(|h| PatchHunk {
            old_start: h.old_start,
            old_lines: h.old_lines,
            new_start: h.new_start,
            new_lines: h.new_lines,
            lines: h.lines,
        })
        .collect()
}

/// A `Read` card: `{"type":"text","file":{…}}` for text, `image`, `pdf` or `notebook` for
/// media (the path from `file.filePath`, else the call's arguments); anything else (an
/// unchanged-file notice, an unknown type) has no details.
fn read(mut card: Value, argument_path: Option<&str>) -> Option<ToolDetails> {
    let kind = card.get("type")?.as_str()?;
    let media = match kind {
        "text" => {
            let file: TextFile = serde_json::from_value(card.get_mut("file")?.take()).ok()?;
            // Whole when it starts at line 1 and covers every line, and its text has the line
            // count it claims (Claude Code counts the pieces between `\n`s); otherwise partial.
            let lines = file.content.split('\n').count() as u64;
            return Some(
                if file.start_line == 1
                    && file.num_lines >= file.total_lines
                    && file.num_lines == lines
                {
                    ToolDetails::WholeRead {
                        path: file.file_path,
                        content: file.content,
                    }
                } else {
                    ToolDetails::PartialRead {
                        path: file.file_path,
                        start_line: file.start_line,
                        num_lines: file.num_lines,
                        total_lines: file.total_lines,
                    }
                },
            );
        }
        "image" => Media::Image,
        "pdf" => Media::Document,
        "notebook" => Media::Notebook,
        _ => return None,
    };
    // An image card names no path; the call's arguments do.
    let path = card
        .get("file")
        .and_then(|f| f.get("filePath"))
        .and_then(Value::as_str)
        .or(argument_path)?;
    Some(ToolDetails::MediaRead {
        path: path.to_string(),
        media,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TextFile {
    file_path: String,
    content: String,
    start_line: u64,
    num_lines: u64,
    total_lines: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WriteCard {
    #[serde(rename = "type")]
    kind: String,
    file_path: String,
    content: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EditCard {
    file_path: String,
    old_string: String,
    new_string: String,
    original_file: Option<String>,
    #[serde(default)]
    replace_all: bool,
    #[serde(default)]
    user_modified: bool,
    structured_patch: Option<Vec<HunkCard>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MultiEditCard {
    file_path: String,
    edits: Vec<MultiEditItem>,
    original_file_contents: Option<String>,
    #[serde(default)]
    user_modified: bool,
    structured_patch: Option<Vec<HunkCard>>,
}

#[derive(Deserialize)]
struct MultiEditItem {
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HunkCard {
    old_start: u64,
    old_lines: u64,
    new_start: u64,
    new_lines: u64,
    lines: Vec<String>,
}
