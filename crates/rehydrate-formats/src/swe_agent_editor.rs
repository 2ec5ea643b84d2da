//! SWE-agent's editor tool `str_replace_editor` (`tools/edit_anthropic`) as typed
//! [`ToolDetails`]: what a function-calling call's arguments and the observation answering it
//! prove about a file (docs/FORMATS.md, "SWE-agent", "Editor details").
//!
//! The editor prints fixed texts, which are parsed exactly:
//!
//! - `create` writes `file_text` verbatim and prints `File created successfully at: <path>`:
//!   [`ToolDetails::Write`].
//! - `view` of a file prints `` Here's the result of running `cat -n` on <path>:`` and a line
//!   break, then every line of the file's text (tabs expanded to 8 columns) as `{n:>6}\t{line}`
//!   for n = 1, 2, …, joined by line breaks, then two line breaks (its own and `print`'s):
//!   [`ToolDetails::WholeRead`] of the lines joined by `\n`, or, with a `view_range` ending at
//!   `-1` that starts after line 1, [`ToolDetails::PartialRead`].
//! - `str_replace` expands tabs in the file and in both strings, refuses unless `old_str` occurs
//!   exactly once, writes the replaced text back and prints `The file <path> has been edited. `
//!   followed by a numbered snippet of the result: [`ToolDetails::Edit`] based on the last proven
//!   text, with the snippet as [`ShownLines`].
//! - `insert` and `undo_edit` change the file in ways replay does not recompute:
//!   [`ToolDetails::UnprovenChange`].
//!
//! A command that may change a file gets no details only when the observation is one of the
//! editor's refusals, which it prints before writing anything; an observation that is neither
//! its success text nor a refusal (a traceback, a timeout notice, an unreadable observation)
//! gets [`ToolDetails::UnprovenChange`], since the file may have changed.
//! A `view` that does not parse exactly gets no details.
//!
//! The observation is the tool's output as SWE-agent recorded it: after the `OBSERVATION:\n` or
//! `Observation: ` its observation templates put first, and with the terminal's `\r\n` line
//! breaks turned back into `\n` (as recent SWE-ReX versions do themselves).

use std::borrow::Cow;

use rehydrate_model::{EditBase, EditChange, FileEdit, Replacement, ShownLines, ToolDetails};
use serde_json::{Map, Value};

/// The editor's tool name in function-calling runs.
pub(crate) const TOOL_NAME: &str = "str_replace_editor";

/// What SWE-agent's observation templates put before the tool output: `OBSERVATION:\n` in the
/// shipped configurations, `Observation: ` in the built-in default.
const TEMPLATE_PREFIXES: [&str; 2] = ["OBSERVATION:\n", "Observation: "];

/// The marker of output the editor (or SWE-agent) cut short.
const CLIPPED: &str = "<response clipped>";

/// The tab width of Python's `str.expandtabs()`, which the editor applies.
const TAB_WIDTH: u32 = 8;

/// The text that follows the snippet of a successful `str_replace`.
const SNIPPET_END: &str = "\nReview the changes and make sure they are as expected.";

/// The details of a tool result answering a `str_replace_editor` call.
///
/// `arguments` is the call's raw JSON arguments; `observation` is the tool result's text, or
/// `None` when it has none that can be read as the editor's output alone (content parts, an
/// entry answering several calls).
/// `None` for malformed arguments (not a JSON object, no string `command` or `path`), an
/// unknown command, a `view` that does not parse exactly, and a refusal.
/// Paths are kept exactly as the arguments give them.
pub(crate) fn details(arguments: &str, observation: Option<&str>) -> Option<ToolDetails> {
    let Ok(Value::Object(args)) = serde_json::from_str::<Value>(arguments) else {
        return None;
    };
    let command = args.get("command")?.as_str()?;
    let path = args.get("path")?.as_str()?;
    let output = observation.and_then(tool_output);
    let out = output.as_deref();
    match command {
        "view" => view(path, &args, out?),
        "create" => create(path, &args, out),
        "str_replace" => str_replace(path, &args, out),
        "insert" => match outcome(out, path, &format!("The file {path} has been edited. ")) {
            Outcome::Success(_) => unproven(path, "replay does not recompute the editor's insert"),
            Outcome::Refused => None,
            Outcome::Unknown => unknown(path, command),
        },
        "undo_edit" => match outcome(
            out,
            path,
            &format!("Last edit to {path} undone successfully."),
        ) {
            Outcome::Success(_) => {
                unproven(path, "replay does not recompute the editor's undo_edit")
            }
            Outcome::Refused => None,
            Outcome::Unknown => unknown(path, command),
        },
        _ => None,
    }
}

/// The editor's output inside an observation's text: without a template prefix, with `\r\n`
/// turned into `\n`; `None` when a `\r` is left that is not part of a `\r\n` (the editor
/// reads files with universal newlines, so its output has none).
fn tool_output(text: &str) -> Option<Cow<'_, str>> {
    let out = TEMPLATE_PREFIXES
        .iter()
        .find_map(|prefix| text.strip_prefix(prefix))
        .unwrap_or(text);
    if !out.contains('\r') {
        return Some(Cow::Borrowed(out));
    }
    let out = out.replace("\r\n", "\n");
    (!out.contains('\r')).then_some(Cow::Owned(out))
}

/// How a command that may change a file ended, as its output shows.
enum Outcome<'a> {
    /// The output starts with the command's success text; the rest of the output.
    Success(&'a str),
    /// The output starts with a refusal the editor prints before writing anything.
    Refused,
    /// Anything else, including no readable output.
    Unknown,
}

/// The outcome shown by `out` for a command on `path` whose success output starts with
/// `success`.
fn outcome<'a>(out: Option<&'a str>, path: &str, success: &str) -> Outcome<'a> {
    let Some(out) = out else {
        return Outcome::Unknown;
    };
    if let Some(rest) = out.strip_prefix(success) {
        Outcome::Success(rest)
    } else if refused(out, path) {
        Outcome::Refused
    } else {
        Outcome::Unknown
    }
}

/// Whether `out` starts with one of the editor's refusals, each printed before the editor
/// exits without writing: a bad path, a missing parameter, no unique `old_str`, a bad
/// `insert_line`, no undo history, a file it cannot read, an argument error.
fn refused(out: &str, path: &str) -> bool {
    const FIXED: [&str; 5] = [
        "Parameter `",
        "No replacement was performed",
        "Invalid `insert_line` parameter: ",
        "The parent directory ",
        "usage: str_replace_editor ",
    ];
    let about_path = [
        format!("The path {path} is not an absolute path, it should start with `/`."),
        format!("The path {path} does not exist. Please provide a valid path."),
        format!("File already exists at: {path}. Cannot overwrite files using command `create`."),
        format!(
            "The path {path} is a directory and only the `view` command can be used on directories"
        ),
        format!("No edit history found for {path}."),
    ];
    let first_line = out.split('\n').next().unwrap_or_default();
    FIXED.iter().any(|text| out.starts_with(text))
        || about_path.iter().any(|text| out.starts_with(text.as_str()))
        || (first_line.starts_with("Ran into ")
            && first_line.ends_with(&format!(" while trying to read {path}")))
}

/// A `view`: a whole read, a partial read to the end of the file, or nothing.
fn view(path: &str, args: &Map<String, Value>, out: &str) -> Option<ToolDetails> {
    let range = match args.get("view_range") {
        None => None,
        Some(value) => Some(view_range(value)?),
    };
    let body = out.strip_prefix(&format!(
        "Here's the result of running `cat -n` on {path}:\n"
    ))?;
    if body.contains(CLIPPED) {
        return None;
    }
    // `_make_output` ends with a line break and `print` adds one; accept the first alone too,
    // never none (output whose trailing whitespace was stripped may have lost some of the text).
    let block = body.strip_suffix('\n')?;
    let block = block.strip_suffix('\n').unwrap_or(block);
    let (first_line, lines) = numbered_lines(block)?;
    let shows_the_end = match range {
        None => true,
        Some((start, end)) => end == -1 && start >= 1 && first_line <= start.unsigned_abs(),
    };
    if !shows_the_end {
        return None;
    }
    if first_line == 1 {
        return Some(ToolDetails::WholeRead {
            path: path.to_string(),
            content: lines.join("\n"),
        });
    }
    // Without a range the view starts at line 1; a range ending at -1 shows the last line.
    range?;
    let num_lines = u64::try_from(lines.len()).ok()?;
    Some(ToolDetails::PartialRead {
        path: path.to_string(),
        start_line: first_line,
        num_lines,
        total_lines: first_line.checked_add(num_lines)?.checked_sub(1)?,
    })
}

/// A `view_range` argument: exactly two integers.
fn view_range(value: &Value) -> Option<(i64, i64)> {
    match value.as_array()?.as_slice() {
        [start, end] => Some((start.as_i64()?, end.as_i64()?)),
        _ => None,
    }
}

/// A `create`: the written text once the editor reports it created the file.
fn create(path: &str, args: &Map<String, Value>, out: Option<&str>) -> Option<ToolDetails> {
    match outcome(out, path, &format!("File created successfully at: {path}")) {
        Outcome::Success(rest) if rest.is_empty() || rest.starts_with('\n') => {
            match args.get("file_text").and_then(Value::as_str) {
                Some(text) => Some(ToolDetails::Write {
                    path: path.to_string(),
                    content: text.to_string(),
                }),
                None => unproven(path, "the create arguments have no text file_text"),
            }
        }
        Outcome::Refused => None,
        Outcome::Success(_) | Outcome::Unknown => unknown(path, "create"),
    }
}

/// A `str_replace`: the replacement, to be applied to the last proven text of the file.
fn str_replace(path: &str, args: &Map<String, Value>, out: Option<&str>) -> Option<ToolDetails> {
    let rest = match outcome(out, path, &format!("The file {path} has been edited. ")) {
        Outcome::Success(rest) => rest,
        Outcome::Refused => return None,
        Outcome::Unknown => return unknown(path, "str_replace"),
    };
    let old = args.get("old_str").and_then(Value::as_str);
    let new = match args.get("new_str") {
        None => Some(""),
        Some(value) => value.as_str(),
    };
    let (Some(old), Some(new)) = (old, new) else {
        return unproven(path, "the str_replace arguments are not text");
    };
    Some(ToolDetails::Edit(FileEdit {
        path: path.to_string(),
        base: EditBase::LastProven,
        change: EditChange::Replacements {
            edits: vec![Replacement {
                old: old.to_string(),
                new: new.to_string(),
                replace_all: false,
            }],
            expand_tabs: Some(TAB_WIDTH),
            universal_newlines: true,
        },
        shown: snippet(rest, path),
        diff: None,
    }))
}

/// The snippet a successful `str_replace` shows, from the output after its success text.
fn snippet(rest: &str, path: &str) -> Option<ShownLines> {
    let body = rest.strip_prefix(&format!(
        "Here's the result of running `cat -n` on a snippet of {path}:\n"
    ))?;
    let block = body.get(..body.find(SNIPPET_END)?)?;
    if block.contains(CLIPPED) {
        return None;
    }
    let (first_line, lines) = numbered_lines(block)?;
    Some(ShownLines {
        first_line,
        lines: lines.into_iter().map(str::to_string).collect(),
    })
}

/// Lines as the editor numbers them (`{n:>6}\t{line}`, n consecutive from the first, at
/// least 1), split on `\n`: the first number and the lines without their numbers; `None`
/// unless every line has exactly that form.
fn numbered_lines(block: &str) -> Option<(u64, Vec<&str>)> {
    let mut first = None;
    let mut lines = Vec::new();
    for line in block.split('\n') {
        let (number, text) = line.split_once('\t')?;
        let n = match first {
            None => number.trim_start_matches(' ').parse().ok()?,
            Some(first) => u64::try_from(lines.len()).ok()?.checked_add(first)?,
        };
        if n == 0 || number != format!("{n:>6}") {
            return None;
        }
        first.get_or_insert(n);
        lines.push(text);
    }
    Some((first?, lines))
}

/// [`ToolDetails::UnprovenChange`] of `path`.
fn unproven(path: &str, reason: &str) -> Option<ToolDetails> {
    Some(ToolDetails::UnprovenChange {
        path: path.to_string(),
        reason: reason.to_string(),
    })
}

/// [`ToolDetails::UnprovenChange`] of `path` for `command`, whose output shows neither
/// success nor a refusal.
fn unknown(path: &str, command: &str) -> Option<ToolDetails> {
    unproven(
        path,
        &format!(
            "the observation does not show whether str_replace_editor {command} changed the file"
        ),
    )
}
