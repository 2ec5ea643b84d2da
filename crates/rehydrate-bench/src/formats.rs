//! The workloads of the import bench: one session file per format `rehydrate_formats` reads,
//! as bytes, with what it imports to.
//!
//! - A Codex rollout, a SWE-agent trajectory and a Gemini CLI session of the corpus are
//!   repeated whole, copy `k >= 1` with its ids suffixed `_r<k>` (as the other workloads
//!   suffix tool-call ids): [`repeat_codex`], [`repeat_swe_agent`], [`repeat_gemini`].
//! - The sessions of an OpenHands `output.jsonl` of the corpus are repeated as one event array,
//!   each copy's event ids offset and its tool-call and response ids suffixed:
//!   [`repeat_openhands`].
//! - Goose has no corpus file: a synthetic session ([`synthetic_goose`]) is repeated, each
//!   copy's message and tool-call ids suffixed: [`repeat_goose`].
//! - The request-body formats (OpenAI chat, Anthropic Messages, OpenAI Responses) have no corpus
//!   file: canonical messages are written in them by `rehydrate_formats::write` ([`write_body`]).
//!
//! Every builder imports its bytes once and checks them: a repeated file imports to exactly as
//! many messages and warnings as its copies do alone, a written body to as many messages as
//! were written. The Claude Code file of the bench is `claude_largest_mib_50`
//! ([`crate::workload::claude_largest_mib_50`]).

use std::fs;
use std::path::{Path, PathBuf};

use rehydrate_formats::{ExportFormat, Format};
use rehydrate_model::{Message, Role};
use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::workload::collect_files;

/// The minimum size of the repeated Codex and SWE-agent files and the wire size of the messages
/// written into the request bodies, in bytes (8 MiB).
pub const IMPORT_MIB_8: usize = 8 << 20;

/// The corpus subdirectory of the Codex rollouts (`*.jsonl`).
pub const CODEX_DIR: &str = "codex";

/// The corpus subdirectory of the SWE-agent trajectories (`*.traj`).
pub const SWE_AGENT_DIR: &str = "swe-agent";

/// The corpus subdirectory of the OpenHands sessions (`*.jsonl`: evaluation outputs, one
/// session per line).
pub const OPENHANDS_DIR: &str = "openhands";

/// The corpus subdirectory of the Gemini CLI sessions (`*.json`).
pub const GEMINI_DIR: &str = "gemini-cli";

/// The keys of a Codex line's `payload` whose string values are ids a copy suffixes.
const CODEX_ID_KEYS: [&str; 3] = ["id", "call_id", "turn_id"];

/// One session file of a format, as bytes, with what it imports to.
///
/// Fields are private so the counts always describe the bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct FormatFile {
    name: String,
    origin: String,
    format: Format,
    bytes: Vec<u8>,
    copies: usize,
    messages: usize,
    warnings: usize,
}

impl FormatFile {
    /// The workload's name, such as `codex_mib_8`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The format the bytes are read as.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Whole copies of the source file written (1 for a written body).
    pub fn copies(&self) -> usize {
        self.copies
    }

    /// The messages `rehydrate_formats::import` gives for the bytes.
    pub fn message_count(&self) -> usize {
        self.messages
    }

    /// The warnings `rehydrate_formats::import` gives for the bytes.
    pub fn warning_count(&self) -> usize {
        self.warnings
    }

    /// One line saying what the workload is: name, format, sizes and where it comes from.
    pub fn describe(&self) -> String {
        format!(
            "workload {}: {} bytes ({:.1} MiB) of {}, {} cop{} of {}, importing to {} messages \
             and {} warnings",
            self.name,
            self.bytes.len(),
            self.bytes.len() as f64 / f64::from(1 << 20),
            self.format,
            self.copies,
            if self.copies == 1 { "y" } else { "ies" },
            self.origin,
            self.messages,
            self.warnings,
        )
    }
}

/// The messages and warnings `bytes` import to as `format`.
fn import_counts(name: &str, bytes: &[u8], format: Format) -> Result<(usize, usize), Error> {
    let import =
        rehydrate_formats::import(Path::new(name), bytes, Some(format)).map_err(|source| {
            Error::Import {
                workload: name.to_owned(),
                source,
            }
        })?;
    Ok((import.messages.len(), import.warnings.len()))
}

/// Checks that `file`'s bytes import to `copies` times `one` (messages, warnings), and records
/// the counts.
fn checked(mut file: FormatFile, one: (usize, usize)) -> Result<FormatFile, Error> {
    let (messages, warnings) = import_counts(&file.name, &file.bytes, file.format)?;
    let count = |what, expected, actual| {
        if expected == actual {
            Ok(())
        } else {
            Err(Error::Count {
                workload: file.name.clone(),
                what,
                expected,
                actual,
            })
        }
    };
    count("messages", one.0 * file.copies, messages)?;
    count("warnings", one.1 * file.copies, warnings)?;
    file.messages = messages;
    file.warnings = warnings;
    Ok(file)
}

/// The suffix of the ids of copy `copy >= 1`: `_r<copy>`.
fn copy_suffix(copy: usize) -> String {
    format!("_r{copy}")
}

/// `text` (a `what` document of workload `name`) as a JSON object, with the array under `key`
/// taken out of it.
fn document_array(
    name: &str,
    text: &str,
    what: &str,
    key: &str,
) -> Result<(Map<String, Value>, Vec<Value>), Error> {
    let shape = |message: String| Error::Shape {
        workload: name.to_owned(),
        message,
    };
    let value: Value = serde_json::from_str(text).map_err(|source| Error::Json {
        workload: name.to_owned(),
        source,
    })?;
    let Value::Object(mut document) = value else {
        return Err(shape(format!("the {what} is not a JSON object")));
    };
    let Some(Value::Array(items)) = document.remove(key) else {
        return Err(shape(format!("the {what} has no `{key}` array")));
    };
    Ok((document, items))
}

/// A Codex rollout named `name`: `text` (a whole rollout, from `origin`) repeated as whole
/// copies, the fewest reaching `min_bytes`.
///
/// Copy 0 is every non-blank line verbatim; copy `k >= 1` has the string `id`, `call_id` and
/// `turn_id` of every line's `payload` suffixed `_r<k>` (so each output still answers its own
/// call and each `patch_apply_end` event its own patch), its lines written back with
/// `serde_json` (keys sorted). Every line ends with a line break.
///
/// # Errors
///
/// [`Error::Json`] when a line is not JSON, [`Error::Import`] when `text` or the result does
/// not import as Codex, [`Error::Count`] when the result does not import to `copies` times the
/// messages and warnings of `text`, [`Error::Shape`] when `text` has no line.
pub fn repeat_codex(
    name: &str,
    origin: &str,
    text: &str,
    min_bytes: usize,
) -> Result<FormatFile, Error> {
    let one = import_counts(name, text.as_bytes(), Format::Codex)?;
    let mut lines = Vec::new();
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(raw).map_err(|source| Error::Json {
            workload: name.to_owned(),
            source,
        })?;
        lines.push((raw, value));
    }
    if lines.is_empty() {
        return Err(Error::Shape {
            workload: name.to_owned(),
            message: "the rollout has no line".to_owned(),
        });
    }
    let mut bytes = Vec::with_capacity(min_bytes + text.len() * 2);
    let mut copies = 0;
    while copies == 0 || bytes.len() < min_bytes {
        let suffix = copy_suffix(copies);
        for (raw, value) in &lines {
            if copies == 0 {
                bytes.extend_from_slice(raw.as_bytes());
            } else {
                let mut value = value.clone();
                if let Some(Value::Object(payload)) = value.get_mut("payload") {
                    for key in CODEX_ID_KEYS {
                        if let Some(Value::String(id)) = payload.get_mut(key) {
                            id.push_str(&suffix);
                        }
                    }
                }
                bytes.extend_from_slice(value.to_string().as_bytes());
            }
            bytes.push(b'\n');
        }
        copies += 1;
    }
    let file = FormatFile {
        name: name.to_owned(),
        origin: origin.to_owned(),
        format: Format::Codex,
        bytes,
        copies,
        messages: 0,
        warnings: 0,
    };
    checked(file, one)
}

/// A SWE-agent trajectory named `name`: the `trajectory` steps and `history` entries of `text`
/// (a whole `.traj`, from `origin`) repeated as whole copies, the fewest reaching `min_bytes`,
/// in one document.
///
/// The document is `{"trajectory":[…],"history":[…],<the other keys>}` (written with
/// `serde_json`, keys sorted within each value; `trajectory` only when `text` has it). Copy 0 is
/// every step and entry as it is; copy `k >= 1` has every `tool_calls` id, `tool_call_ids` id
/// and `tool_call_id` in its steps and entries suffixed `_r<k>`, so each result still answers its
/// own call.
///
/// # Errors
///
/// [`Error::Json`] when `text` is not JSON, [`Error::Shape`] when it is not an object with a
/// `history` array (and a `trajectory` array, if any), [`Error::Import`] when `text` or the
/// result does not import as SWE-agent, [`Error::Count`] when the result does not import to
/// `copies` times the messages and warnings of `text`.
pub fn repeat_swe_agent(
    name: &str,
    origin: &str,
    text: &str,
    min_bytes: usize,
) -> Result<FormatFile, Error> {
    let one = import_counts(name, text.as_bytes(), Format::SweAgent)?;
    let shape = |message: &str| Error::Shape {
        workload: name.to_owned(),
        message: message.to_owned(),
    };
    let (mut document, history) = document_array(name, text, "trajectory", "history")?;
    let trajectory = match document.remove("trajectory") {
        None => None,
        Some(Value::Array(steps)) => Some(steps),
        Some(_) => return Err(shape("the trajectory's `trajectory` is not an array")),
    };
    let rest: String = document
        .iter()
        .map(|(key, value)| format!(",{}:{value}", Value::String(key.clone())))
        .collect();
    // `{"trajectory":[` `],"history":[` `]` REST `}`, or `{"history":[` `]` REST `}`.
    let frame = match trajectory {
        Some(_) => "{\"trajectory\":[],\"history\":[]}".len(),
        None => "{\"history\":[]}".len(),
    } + rest.len();
    let (mut steps, mut entries) = (Vec::new(), Vec::new());
    // The parts of an array joined by commas.
    let joined = |parts: &[String]| {
        parts.iter().map(String::len).sum::<usize>() + parts.len().saturating_sub(1)
    };
    let mut copies = 0;
    while copies == 0 || frame + joined(&steps) + joined(&entries) < min_bytes {
        let suffix = copy_suffix(copies);
        let copy = |value: &Value| {
            let mut value = value.clone();
            if copies > 0 {
                fresh_call_ids(&mut value, &suffix);
            }
            value.to_string()
        };
        steps.extend(trajectory.iter().flatten().map(copy));
        entries.extend(history.iter().map(copy));
        copies += 1;
        if steps.is_empty() && entries.is_empty() {
            break;
        }
    }
    let mut out = String::with_capacity(frame + joined(&steps) + joined(&entries));
    out.push('{');
    if trajectory.is_some() {
        out.push_str("\"trajectory\":[");
        out.push_str(&steps.join(","));
        out.push_str("],");
    }
    out.push_str("\"history\":[");
    out.push_str(&entries.join(","));
    out.push(']');
    out.push_str(&rest);
    out.push('}');
    let file = FormatFile {
        name: name.to_owned(),
        origin: origin.to_owned(),
        format: Format::SweAgent,
        bytes: out.into_bytes(),
        copies,
        messages: 0,
        warnings: 0,
    };
    checked(file, one)
}

/// Suffixes every tool-call id in `value`, at any depth: each `id` of a `tool_calls` array's
/// objects, each string of a `tool_call_ids` array and each `tool_call_id` string.
fn fresh_call_ids(value: &mut Value, suffix: &str) {
    match value {
        Value::Object(object) => {
            for (key, item) in object.iter_mut() {
                match (key.as_str(), item) {
                    ("tool_calls", Value::Array(calls)) => {
                        for call in calls {
                            if let Some(Value::String(id)) = call.get_mut("id") {
                                id.push_str(suffix);
                            }
                        }
                    }
                    ("tool_call_ids", Value::Array(ids)) => {
                        for id in ids {
                            if let Value::String(id) = id {
                                id.push_str(suffix);
                            }
                        }
                    }
                    ("tool_call_id", Value::String(id)) => id.push_str(suffix),
                    (_, other) => fresh_call_ids(other, suffix),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                fresh_call_ids(item, suffix);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// The text of the tool result [`answer_unanswered_calls`] gives a call that got none.
pub const NO_RESULT: &str = "[no result was recorded for this call]";

/// Answers every tool call that has no tool result right after its assistant message (among
/// the tool results that follow it directly) with a tool result saying [`NO_RESULT`], placed
/// after those results, as the APIs require and as a host repairs a session before sending it;
/// returns how many were added.
///
/// The corpus sessions leave a call unanswered where the session was cut mid-step; without a
/// result every request body refuses the messages.
pub fn answer_unanswered_calls(messages: &mut Vec<Message>) -> usize {
    let mut added = 0;
    let mut i = 0;
    while i < messages.len() {
        let calls: Vec<String> = messages[i]
            .tool_calls
            .iter()
            .map(|c| c.id.clone())
            .collect();
        i += 1;
        if calls.is_empty() {
            continue;
        }
        let mut answered = Vec::new();
        while let Some(id) = messages.get(i).and_then(|m| m.tool_call_id.as_deref()) {
            answered.push(id.to_owned());
            i += 1;
        }
        for id in calls.into_iter().filter(|id| !answered.contains(id)) {
            messages.insert(i, Message::tool_result(id, NO_RESULT));
            i += 1;
            added += 1;
        }
    }
    added
}

/// A request body named `name` of `format` (OpenAI chat, Anthropic Messages or Responses):
/// `messages` (from `origin`) written by `rehydrate_formats::write`, which checks the API's
/// rules, and imported back once to check it.
///
/// The body imports back to the same tool calls and tool results (their ids, in order) and to
/// as many messages as it holds ([`body_message_count`]).
///
/// # Errors
///
/// [`Error::Shape`] when `rehydrate_formats` writes no such format or the body imports to other
/// tool calls or results, [`Error::Request`] when the messages break a rule of its API,
/// [`Error::Import`] when the body does not import, [`Error::Count`] when it imports to another
/// number of messages.
pub fn write_body(
    name: &str,
    origin: &str,
    messages: &[Message],
    format: Format,
) -> Result<FormatFile, Error> {
    let shape = |message: String| Error::Shape {
        workload: name.to_owned(),
        message,
    };
    let export = ExportFormat::of(format)
        .ok_or_else(|| shape(format!("rehydrate_formats writes no {format} file")))?;
    let bytes = rehydrate_formats::write(messages, export).map_err(|source| Error::Request {
        workload: name.to_owned(),
        source,
    })?;
    let import =
        rehydrate_formats::import(Path::new(name), &bytes, Some(format)).map_err(|source| {
            Error::Import {
                workload: name.to_owned(),
                source,
            }
        })?;
    let expected = body_message_count(messages, format);
    if import.messages.len() != expected {
        return Err(Error::Count {
            workload: name.to_owned(),
            what: "messages",
            expected,
            actual: import.messages.len(),
        });
    }
    let calls = |messages: &[Message]| -> Vec<String> {
        let calls = messages.iter().flat_map(|m| &m.tool_calls);
        calls.map(|c| c.id.clone()).collect()
    };
    let results = |messages: &[Message]| -> Vec<String> {
        messages
            .iter()
            .filter_map(|m| m.tool_call_id.clone())
            .collect()
    };
    if calls(&import.messages) != calls(messages) {
        return Err(shape("the body imports to other tool calls".to_owned()));
    }
    if results(&import.messages) != results(messages) {
        return Err(shape("the body imports to other tool results".to_owned()));
    }
    Ok(FormatFile {
        name: name.to_owned(),
        origin: origin.to_owned(),
        format,
        bytes,
        copies: 1,
        messages: import.messages.len(),
        warnings: import.warnings.len(),
    })
}

/// The messages a request body of `format` written from `messages` holds, as its importer
/// gives them back: every message but those both bodies leave out
/// (`rehydrate_formats::left_out_of_bodies`: an assistant message that held only reasoning);
/// in an Anthropic body, whose roles alternate, a run of consecutive user messages or of
/// consecutive assistant messages counts once (a tool result is a block of its own message
/// there and is read back as one).
pub fn body_message_count(messages: &[Message], format: Format) -> usize {
    let mut count = 0;
    let mut previous = None;
    for m in messages
        .iter()
        .filter(|m| !rehydrate_formats::left_out_of_bodies(m))
    {
        let merged = format == Format::Anthropic
            && previous == Some(m.role)
            && matches!(m.role, Role::User | Role::Assistant);
        if !merged {
            count += 1;
        }
        previous = Some(m.role);
    }
    count
}

/// The largest file (by bytes; ties in path order) under `<dir>/<subdir>`, recursively, whose
/// extension is `extension`, with its path relative to `dir` for notices; `None` when there is
/// no such directory or file.
///
/// # Errors
///
/// [`Error::Read`] when a directory cannot be listed or a file's size read.
pub fn largest_file(
    dir: &Path,
    subdir: &str,
    extension: &str,
) -> Result<Option<(PathBuf, String)>, Error> {
    let root = dir.join(subdir);
    if !root.is_dir() {
        return Ok(None);
    }
    let mut files = Vec::new();
    collect_files(&root, &[extension], &mut files)?;
    files.sort();
    let mut largest: Option<(u64, PathBuf)> = None;
    for path in files {
        let size = fs::metadata(&path)
            .map_err(|source| Error::Read {
                path: path.clone(),
                source,
            })?
            .len();
        if largest.as_ref().is_none_or(|(most, _)| size > *most) {
            largest = Some((size, path));
        }
    }
    Ok(largest.map(|(_, path)| {
        let shown = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        (path, shown)
    }))
}

/// A deterministic Codex rollout for machines without the corpus: session metadata with base
/// instructions, then 8 turns, each a user message, reasoning, one shell call and its output
/// (300 bytes to 24 KiB), and an assistant reply, with Codex's events between them; 74 lines,
/// importing to 33 messages.
pub fn synthetic_codex() -> String {
    let mut lines = vec![json!({
        "timestamp": "2025-01-01T00:00:00.000Z", "type": "session_meta",
        "payload": {"id": "synthetic", "timestamp": "2025-01-01T00:00:00.000Z",
                    "cwd": "/work/synthetic", "originator": "codex_cli_rs", "cli_version": "0.1.0",
                    "base_instructions": {"text": "You are Codex, a coding agent."}}
    })];
    for i in 0..8_usize {
        let at = format!("2025-01-01T00:{i:02}:00.000Z");
        let turn = format!("turn_{i}");
        let call = format!("call_{i}");
        let ask = format!(
            "Step {i}: run the tests of crate {} and fix what fails.",
            i % 3
        );
        let output: String = (0..[8, 120, 600][i % 3])
            .map(|line| format!("test crate{}::case_{line} ... ok\n", i % 3))
            .collect();
        let line =
            |kind: &str, payload: Value| json!({"timestamp": at, "type": kind, "payload": payload});
        lines.extend([
            line(
                "event_msg",
                json!({"type": "task_started", "turn_id": turn}),
            ),
            line(
                "turn_context",
                json!({"turn_id": turn, "cwd": "/work/synthetic", "model": "gpt-5"}),
            ),
            line(
                "response_item",
                json!({"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": ask}]}),
            ),
            line(
                "event_msg",
                json!({"type": "user_message", "message": ask, "images": []}),
            ),
            line(
                "response_item",
                json!({"type": "reasoning", "summary": [], "content": null,
                "encrypted_content": format!("gAAAA{i}")}),
            ),
            line(
                "response_item",
                json!({"type": "function_call", "name": "exec_command",
                "arguments": json!({"cmd": format!("cargo test -p crate{}", i % 3)}).to_string(),
                "call_id": call}),
            ),
            line(
                "response_item",
                json!({"type": "function_call_output", "call_id": call,
                "output": format!("Process exited with code 0\nOutput:\n{output}")}),
            ),
            line(
                "event_msg",
                json!({"type": "exec_command_end", "call_id": call, "turn_id": turn,
                "exit_code": 0, "aggregated_output": output}),
            ),
            line(
                "response_item",
                json!({"type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": format!("Crate {} passes.", i % 3)}]}),
            ),
        ]);
    }
    lines.push(
        json!({"timestamp": "2025-01-01T00:09:00.000Z", "type": "event_msg",
                      "payload": {"type": "task_complete", "turn_id": "turn_7"}}),
    );
    lines.into_iter().map(|line| format!("{line}\n")).collect()
}

/// A Gemini CLI session document named `name`: the `messages` of `text` (a whole legacy
/// session, from `origin`) repeated as whole copies, the fewest whose records (as `text` writes
/// them, before the suffixes) reach `min_bytes`, in one document written with `serde_json`
/// (keys sorted).
///
/// Copy 0 is every record as it is; copy `k >= 1` has every record `id`, tool call `id` and
/// `functionResponse.id` suffixed `_r<k>`, so each result still answers its own call.
///
/// # Errors
///
/// [`Error::Json`] when `text` is not JSON, [`Error::Shape`] when it is not an object with a
/// `messages` array, [`Error::Import`] when `text` or the result does not import as Gemini CLI,
/// [`Error::Count`] when the result does not import to `copies` times the messages and warnings
/// of `text`.
pub fn repeat_gemini(
    name: &str,
    origin: &str,
    text: &str,
    min_bytes: usize,
) -> Result<FormatFile, Error> {
    let one = import_counts(name, text.as_bytes(), Format::GeminiCli)?;
    let (mut document, records) = document_array(name, text, "session", "messages")?;
    if records.is_empty() {
        return Err(Error::Shape {
            workload: name.to_owned(),
            message: "the session has no record".to_owned(),
        });
    }
    let one_copy: usize = records.iter().map(|r| r.to_string().len() + 1).sum();
    let mut messages = Vec::new();
    let mut copies = 0;
    while copies == 0 || copies * one_copy < min_bytes {
        let suffix = copy_suffix(copies);
        for record in &records {
            let mut record = record.clone();
            if copies > 0 {
                suffix_gemini_ids(&mut record, &suffix);
            }
            messages.push(record);
        }
        copies += 1;
    }
    document.insert("messages".to_owned(), Value::Array(messages));
    let file = FormatFile {
        name: name.to_owned(),
        origin: origin.to_owned(),
        format: Format::GeminiCli,
        bytes: Value::Object(document).to_string().into_bytes(),
        copies,
        messages: 0,
        warnings: 0,
    };
    checked(file, one)
}

/// Suffixes a Gemini CLI record's `id`, and its tool calls' and their results' ids.
fn suffix_gemini_ids(record: &mut Value, suffix: &str) {
    if let Some(Value::String(id)) = record.get_mut("id") {
        id.push_str(suffix);
    }
    let Some(Value::Array(calls)) = record.get_mut("toolCalls") else {
        return;
    };
    for call in calls {
        if let Some(Value::String(id)) = call.get_mut("id") {
            id.push_str(suffix);
        }
        if let Some(Value::Array(parts)) = call.get_mut("result") {
            for part in parts {
                if let Some(Value::String(id)) = part.pointer_mut("/functionResponse/id") {
                    id.push_str(suffix);
                }
            }
        }
    }
}

/// An OpenHands event array named `name`: the `history` of every session (line) of `text` (an
/// `output.jsonl`, from `origin`), one after another, repeated as whole copies, the fewest
/// whose events (as `text` writes them) reach `min_bytes`, written with `serde_json` (keys
/// sorted).
///
/// Every session of every copy is a block of its own: block `b` adds `b * 1_000_000` to each
/// event's numeric `id` and `cause`, and suffixes `_b<b>` to `tool_call_metadata.tool_call_id`,
/// the `model_response` `id` and the ids of its tool calls, so each observation still answers
/// its own action and each response groups its own calls.
///
/// # Errors
///
/// [`Error::Json`] when a line is not JSON, [`Error::Shape`] when a line has no `history`
/// array or there is no event, [`Error::Import`] when one copy or the result does not import as
/// OpenHands, [`Error::Count`] when the result does not import to `copies` times the messages
/// of one copy (its warnings are not counted per copy: one warning counts every event the model
/// never saw).
pub fn repeat_openhands(
    name: &str,
    origin: &str,
    text: &str,
    min_bytes: usize,
) -> Result<FormatFile, Error> {
    let shape = |message: String| Error::Shape {
        workload: name.to_owned(),
        message,
    };
    let mut sessions = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let value: Value = serde_json::from_str(line).map_err(|source| Error::Json {
            workload: name.to_owned(),
            source,
        })?;
        match value {
            Value::Object(mut o) => match o.remove("history") {
                Some(Value::Array(events)) => sessions.push(events),
                _ => return Err(shape("a session has no `history` array".to_owned())),
            },
            Value::Array(events) => sessions.push(events),
            _ => return Err(shape("a line is not a session".to_owned())),
        }
    }
    let one_copy: usize = sessions
        .iter()
        .flatten()
        .map(|e| e.to_string().len() + 1)
        .sum();
    if one_copy == 0 {
        return Err(shape("no event".to_owned()));
    }
    let copy = |first_block: usize| -> Vec<Value> {
        let mut events = Vec::new();
        for (k, session) in sessions.iter().enumerate() {
            let block = first_block + k;
            for event in session {
                let mut event = event.clone();
                offset_openhands_ids(&mut event, block);
                events.push(event);
            }
        }
        events
    };
    let one_text = Value::Array(copy(0)).to_string();
    let one = import_counts(name, one_text.as_bytes(), Format::OpenHands)?;
    let mut events = Vec::new();
    let mut copies = 0;
    while copies == 0 || copies * one_copy < min_bytes {
        events.extend(copy(copies * sessions.len()));
        copies += 1;
    }
    let mut file = FormatFile {
        name: name.to_owned(),
        origin: origin.to_owned(),
        format: Format::OpenHands,
        bytes: Value::Array(events).to_string().into_bytes(),
        copies,
        messages: 0,
        warnings: 0,
    };
    // Warnings are not per copy: one warning counts the events the model never saw.
    let (messages, warnings) = import_counts(name, &file.bytes, Format::OpenHands)?;
    if messages != one.0 * copies {
        return Err(Error::Count {
            workload: name.to_owned(),
            what: "messages",
            expected: one.0 * copies,
            actual: messages,
        });
    }
    file.messages = messages;
    file.warnings = warnings;
    Ok(file)
}

/// Moves an OpenHands event to block `block`: numeric `id` and `cause` plus `block * 1_000_000`,
/// tool-call and response ids suffixed `_b<block>` (block 0 is left as it is).
fn offset_openhands_ids(event: &mut Value, block: usize) {
    if block == 0 {
        return;
    }
    let offset = (block * 1_000_000) as i64;
    for key in ["id", "cause"] {
        if let Some(n) = event.get(key).and_then(Value::as_i64) {
            event[key] = json!(n + offset);
        }
    }
    let suffix = format!("_b{block}");
    let Some(meta) = event.get_mut("tool_call_metadata") else {
        return;
    };
    if let Some(Value::String(id)) = meta.get_mut("tool_call_id") {
        id.push_str(&suffix);
    }
    let Some(response) = meta.get_mut("model_response") else {
        return;
    };
    if let Some(Value::String(id)) = response.get_mut("id") {
        id.push_str(&suffix);
    }
    if let Some(Value::Array(choices)) = response.get_mut("choices") {
        for choice in choices {
            if let Some(Value::Array(calls)) = choice.pointer_mut("/message/tool_calls") {
                for call in calls {
                    if let Some(Value::String(id)) = call.get_mut("id") {
                        id.push_str(&suffix);
                    }
                }
            }
        }
    }
}

/// A Goose session JSONL named `name`: the message lines of `text` (a whole session, from
/// `origin`) after its metadata line, repeated as whole copies, the fewest whose lines (as
/// `text` writes them) reach `min_bytes`; every line written with `serde_json` (keys sorted) and
/// ended by a line break.
///
/// Copy `k >= 1` has every message `id` and every `toolRequest` and `toolResponse` `id`
/// suffixed `_r<k>`, so each response still answers its own request.
///
/// # Errors
///
/// [`Error::Json`] when a line is not JSON, [`Error::Shape`] when there is no message line,
/// [`Error::Import`] when `text` or the result does not import as Goose, [`Error::Count`] when
/// the result does not import to `copies` times the messages and warnings of `text`.
pub fn repeat_goose(
    name: &str,
    origin: &str,
    text: &str,
    min_bytes: usize,
) -> Result<FormatFile, Error> {
    let one = import_counts(name, text.as_bytes(), Format::Goose)?;
    let mut lines = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let value: Value = serde_json::from_str(line).map_err(|source| Error::Json {
            workload: name.to_owned(),
            source,
        })?;
        lines.push(value);
    }
    let meta = match lines.first() {
        Some(first) if first.get("role").is_none() => Some(lines.remove(0)),
        _ => None,
    };
    if lines.is_empty() {
        return Err(Error::Shape {
            workload: name.to_owned(),
            message: "the session has no message line".to_owned(),
        });
    }
    let one_copy: usize = lines.iter().map(|l| l.to_string().len() + 1).sum();
    let mut out = String::new();
    if let Some(meta) = &meta {
        out.push_str(&meta.to_string());
        out.push('\n');
    }
    let mut copies = 0;
    while copies == 0 || copies * one_copy < min_bytes {
        let suffix = copy_suffix(copies);
        for line in &lines {
            let mut line = line.clone();
            if copies > 0 {
                suffix_goose_ids(&mut line, &suffix);
            }
            out.push_str(&line.to_string());
            out.push('\n');
        }
        copies += 1;
    }
    let file = FormatFile {
        name: name.to_owned(),
        origin: origin.to_owned(),
        format: Format::Goose,
        bytes: out.into_bytes(),
        copies,
        messages: 0,
        warnings: 0,
    };
    checked(file, one)
}

/// Suffixes a Goose message's `id` and the `id` of each of its tool requests and responses.
fn suffix_goose_ids(message: &mut Value, suffix: &str) {
    if let Some(Value::String(id)) = message.get_mut("id") {
        id.push_str(suffix);
    }
    if let Some(Value::Array(items)) = message.get_mut("content") {
        for item in items {
            let tool = matches!(
                item.get("type").and_then(Value::as_str),
                Some("toolRequest" | "toolResponse")
            );
            if let (true, Some(Value::String(id))) = (tool, item.get_mut("id")) {
                id.push_str(suffix);
            }
        }
    }
}

/// A small Goose session for the `import` workload (there is no Goose corpus): a metadata line,
/// a request, then eight assistant turns each calling `developer__shell` once, answered with
/// outputs of 8, 120 or 600 lines, and a closing answer.
pub fn synthetic_goose() -> String {
    let visible = json!({"userVisible": true, "agentVisible": true});
    let mut lines = vec![
        json!({"working_dir": "/work/project", "description": "fix the failing tests",
               "message_count": 18, "total_tokens": null}),
        json!({"id": "m0", "role": "user", "created": 1_767_261_600,
               "content": [{"type": "text", "text": "Fix the failing tests."}],
               "metadata": visible}),
    ];
    for i in 0..8_usize {
        let output: String = (0..[8, 120, 600][i % 3])
            .map(|line| format!("test crate{}::case_{line} ... ok\n", i % 3))
            .collect();
        let created = 1_767_261_600 + 10 * i as i64;
        lines.push(
            json!({"id": format!("a{i}"), "role": "assistant", "created": created + 1,
            "content": [{"type": "toolRequest", "id": format!("call_{i}"),
                "toolCall": {"status": "success", "value": {"name": "developer__shell",
                    "arguments": {"command": format!("cargo test -p crate{}", i % 3)}}}}],
            "metadata": visible}),
        );
        lines.push(
            json!({"id": format!("r{i}"), "role": "user", "created": created + 2,
            "content": [{"type": "toolResponse", "id": format!("call_{i}"),
                "toolResult": {"status": "success", "value": {"content": [
                    {"type": "text", "text": output}], "isError": false}}}],
            "metadata": visible}),
        );
    }
    lines.push(
        json!({"id": "a8", "role": "assistant", "created": 1_767_261_700,
        "content": [{"type": "text", "text": "All tests pass."}], "metadata": visible}),
    );
    lines.into_iter().map(|l| format!("{l}\n")).collect()
}

/// A small OpenHands evaluation output for the `import` workload when there is no corpus: one
/// session whose history is a task, then eight `run` actions with their observations (8, 120 or
/// 600 lines of output), and `finish`.
pub fn synthetic_openhands() -> String {
    let mut events = vec![json!({"id": 0, "source": "user", "action": "message",
                                 "args": {"content": "Fix the failing tests."}})];
    for i in 0..8_usize {
        let id = 1 + 2 * i as i64;
        let output: String = (0..[8, 120, 600][i % 3])
            .map(|line| format!("test crate{}::case_{line} ... ok\n", i % 3))
            .collect();
        let meta = json!({"function_name": "execute_bash", "tool_call_id": format!("call_{i}"),
                          "model_response": {"id": format!("resp_{i}"), "choices": [{"message": {
                              "content": "", "tool_calls": [{"id": format!("call_{i}"),
                              "function": {"name": "execute_bash",
                                           "arguments": "{\"command\":\"cargo test\"}"}}]}}]}});
        events.push(json!({"id": id, "source": "agent", "action": "run",
                           "args": {"command": "cargo test"}, "tool_call_metadata": meta}));
        events.push(
            json!({"id": id + 1, "source": "agent", "observation": "run", "cause": id,
                           "content": output, "extras": {"exit_code": 0},
                           "tool_call_metadata": meta}),
        );
    }
    events.push(json!({"id": 17, "source": "agent", "action": "finish",
                       "args": {"final_thought": "All tests pass."}}));
    json!({"instance_id": "synthetic", "history": events}).to_string()
}

/// A small Gemini CLI session for the `import` workload when there is no corpus: a request,
/// then eight model turns each calling `run_shell_command` once,
/// with outputs of 8, 120 or 600 lines, and a closing answer.
pub fn synthetic_gemini() -> String {
    let time = |s: usize| format!("2026-01-01T10:{:02}:{:02}.000Z", s / 60, s % 60);
    let mut records = vec![json!({"id": "u0", "timestamp": time(0), "type": "user",
                                  "content": "Fix the failing tests."})];
    for i in 0..8_usize {
        let command = format!("cargo test -p crate{}", i % 3);
        let output: String = (0..[8, 120, 600][i % 3])
            .map(|line| format!("test crate{}::case_{line} ... ok\n", i % 3))
            .collect();
        let call = json!({"id": format!("run_shell_command-{i}"), "name": "run_shell_command",
            "args": {"command": command}, "status": "success", "timestamp": time(10 * i + 2),
            "result": [{"functionResponse": {"id": format!("run_shell_command-{i}"),
                "name": "run_shell_command", "response": {"output": output}}}]});
        records.push(json!({"id": format!("g{i}"), "timestamp": time(10 * i + 1),
            "type": "gemini", "content": "", "thoughts": [], "model": "gemini-3-pro",
            "toolCalls": [call]}));
    }
    records.push(json!({"id": "g8", "timestamp": time(99), "type": "gemini",
                        "content": "All tests pass.", "thoughts": [], "model": "gemini-3-pro"}));
    json!({"sessionId": "synthetic", "projectHash": "0".repeat(64),
           "startTime": time(0), "lastUpdated": time(99), "messages": records})
    .to_string()
}

/// A deterministic SWE-agent trajectory for machines without the corpus: a system prompt, a
/// task, then 8 steps of an assistant call and its tool result (300 bytes to 24 KiB), each step
/// also in `trajectory` with the messages the model saw; importing to 18 messages.
pub fn synthetic_swe_agent() -> String {
    let call = |i: usize| format!("call_{i}");
    let mut history = vec![
        json!({"role": "system", "content": "You are an autonomous programmer.",
               "agent": "main", "message_type": "system_prompt"}),
        json!({"role": "user", "content": "Fix the failing tests.", "agent": "main",
               "message_type": "observation"}),
    ];
    let mut trajectory = Vec::new();
    for i in 0..8_usize {
        let command = format!("cargo test -p crate{}", i % 3);
        let output: String = (0..[8, 120, 600][i % 3])
            .map(|line| format!("test crate{}::case_{line} ... ok\n", i % 3))
            .collect();
        let thought = format!("Run the tests of crate {}.", i % 3);
        history.push(
            json!({"role": "assistant", "content": thought, "thought": thought,
            "action": command, "agent": "main", "message_type": "action",
            "tool_calls": [{"id": call(i), "type": "function",
                            "function": {"name": "bash",
                                         "arguments": json!({"command": command}).to_string()}}]}),
        );
        history.push(json!({"role": "tool", "content": output, "agent": "main",
            "message_type": "observation", "tool_call_ids": [call(i)]}));
        trajectory.push(
            json!({"action": command, "observation": output, "response": thought,
            "thought": thought, "execution_time": 0.5, "state": {"working_dir": "/work"},
            "messages": history.clone()}),
        );
    }
    let mut document = Map::new();
    document.insert("trajectory".to_owned(), Value::Array(trajectory));
    document.insert("history".to_owned(), Value::Array(history));
    document.insert(
        "info".to_owned(),
        json!({"exit_status": "submitted", "submission": "diff --git a/x b/x\n"}),
    );
    document.insert("environment".to_owned(), json!("synthetic"));
    Value::Object(document).to_string()
}
