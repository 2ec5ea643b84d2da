//! The Claude Code session importer (docs/FORMATS.md, "Importers", "Claude Code").
//!
//! A session file is JSONL: one record per line, linked into a tree by `uuid` and `parentUuid`.
//! Importing happens in three passes:
//! 1. [`parse`] (this file): every non-empty line is parsed; records with a repeated `uuid` are
//!    dropped;
//! 2. [`main_chain`] (`chain.rs`): the records on the path from the root to the last user or
//!    assistant record, plus the parallel tool-call fan-out hanging off that path;
//! 3. [`Builder`] (`builder.rs`): the chain's records become canonical messages (assistant
//!    lines of one API message merged, tool results split into `role: tool` messages).

mod builder;
mod cards;
mod chain;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rehydrate_model::EventKind;
use serde_json::{Map, Value};

use crate::json;
use crate::{Error, Format, Import, Warning};
use builder::Builder;
use chain::main_chain;

/// Record types Claude Code writes; other types produce a warning.
const KNOWN_TYPES: [&str; 7] = [
    "user",
    "assistant",
    "system",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "progress",
];

/// The record keys read after parsing (by the chain and the builder); [`parse`] keeps only
/// these in [`Record::obj`], and `toolUseResult` when it may be a file tool's card. `type`, `uuid`, the parent links and `isSidechain` are read while
/// parsing, into the other fields of [`Record`].
const RECORD_KEYS: [&str; 5] = [
    "message",
    "subtype",
    "timestamp",
    "isMeta",
    "isCompactSummary",
];

/// Imports a Claude Code session JSONL text; with `side`, also collects the events of the
/// records that make no message (titles, snapshots, queue operations, system records).
pub(crate) fn import(
    path: &Path,
    text: &str,
    side: Option<&mut Vec<SideEvent>>,
) -> Result<Import, Error> {
    let mut warnings = Vec::new();
    let repaired = json::repair_lone_surrogates(text);
    let text = match &repaired {
        Some((fixed, lines)) => {
            for &line in lines {
                warnings.push(Warning::at_line(
                    line,
                    "lone UTF-16 surrogate escape (a character cut in half) replaced by U+FFFD",
                ));
            }
            fixed.as_str()
        }
        None => text,
    };
    let mut records = parse(path, text, &mut warnings, side)?;
    // A non-empty file in which no record has a Claude Code record type is not a Claude Code
    // session (it may be another agent's JSONL forced with `--format claude-code`); importing
    // it as an empty session would pass a wrong guess off as a result.
    if !text.trim().is_empty()
        && !records
            .iter()
            .any(|r| KNOWN_TYPES.contains(&r.kind.as_str()))
    {
        return Err(Error::NotASession {
            path: path.to_path_buf(),
            format: Format::ClaudeCode,
            expected: "JSONL records with a Claude Code `type` such as `user` or `assistant`",
        });
    }
    let chain = main_chain(&records, &mut warnings);
    let mut builder = Builder::default();
    for index in chain.records {
        if let Some(record) = records.get_mut(index) {
            let speaks = record.is_message() && (chain.sidechain_file || !record.sidechain);
            builder.record(record, speaks);
        }
    }
    let messages = builder.finish();
    warnings.append(&mut builder.warnings);
    // Stable: warnings about one line keep the order they were found in.
    warnings.sort_by_key(|w| w.line);
    Ok(Import {
        format: Format::ClaudeCode,
        messages,
        warnings,
    })
}

/// The event of a record that makes no message, in file order (see [`crate::import_events`]).
pub(crate) struct SideEvent {
    /// 1-based line number.
    pub(crate) line: usize,
    /// The record's `timestamp`.
    pub(crate) time: Option<String>,
    /// What it is.
    pub(crate) kind: EventKind,
}

/// The event of a record of type `kind` that makes no message: a `summary` is a title;
/// `system` records (by `subtype`), `file-history-snapshot`, `queue-operation` and `progress`
/// are lifecycle events.
fn side_event(kind: &str, obj: &Map<String, Value>) -> Option<EventKind> {
    let text = |key: &str| obj.get(key).and_then(Value::as_str);
    match kind {
        "summary" => Some(EventKind::Title {
            text: text("summary").unwrap_or_default().to_string(),
        }),
        "system" => Some(EventKind::Lifecycle {
            what: text("subtype").unwrap_or("system").to_string(),
        }),
        "file-history-snapshot" | "queue-operation" | "progress" => Some(EventKind::Lifecycle {
            what: kind.to_string(),
        }),
        _ => None,
    }
}

/// A file this large (in bytes) is parsed on several threads.
const PARALLEL_PARSE_MIN_BYTES: usize = 4 << 20;

/// At most this many threads parse one file.
const MAX_PARSE_THREADS: usize = 8;

/// One non-empty line, parsed on its own.
struct ParsedLine {
    /// 1-based line number.
    line: usize,
    outcome: Outcome,
}

/// What a line is, as far as it can be told without the lines before it.
enum Outcome {
    /// Not JSON: the import fails (at the first such line).
    Invalid(serde_json::Error),
    /// Skipped with this warning.
    Skipped(String),
    /// A record of type `kind`, with the event it makes when it makes no message.
    Record {
        kind: String,
        obj: Map<String, Value>,
        side: Option<(EventKind, Option<String>)>,
        /// The raw `input` of each content block of an assistant line with a `tool_use`.
        raw_inputs: Option<Vec<Option<String>>>,
    },
}

/// Parses one line (see [`parse_lines`]).
fn parse_line(line: usize, raw: &str, with_side: bool) -> Option<ParsedLine> {
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    if raw.trim().is_empty() {
        return None;
    }
    let outcome = match serde_json::from_str::<Value>(raw) {
        Err(e) => Outcome::Invalid(e),
        Ok(Value::Object(obj)) => match obj.get("type").and_then(Value::as_str) {
            None => Outcome::Skipped("record has no string `type`, skipped".to_string()),
            Some(kind) => {
                let kind = kind.to_string();
                let side = with_side
                    .then(|| side_event(&kind, &obj))
                    .flatten()
                    .map(|event| {
                        let time = obj.get("timestamp").and_then(Value::as_str);
                        (event, time.map(str::to_string))
                    });
                let calls_tools = kind == "assistant"
                    && obj
                        .get("message")
                        .and_then(|m| m.get("content"))
                        .and_then(Value::as_array)
                        .is_some_and(|blocks| {
                            blocks
                                .iter()
                                .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                        });
                let raw_inputs = if calls_tools {
                    builder::raw_inputs(raw)
                } else {
                    None
                };
                Outcome::Record {
                    kind,
                    obj,
                    side,
                    raw_inputs,
                }
            }
        },
        Ok(value) => Outcome::Skipped(format!(
            "not a JSON object ({}), skipped",
            json::kind(&value)
        )),
    };
    Some(ParsedLine { line, outcome })
}

/// The non-empty lines of `chunk`, whose first line is line `first_line` of the file, parsed.
fn parse_chunk(first_line: usize, chunk: &str, with_side: bool) -> Vec<ParsedLine> {
    chunk
        .split('\n')
        .enumerate()
        .filter_map(|(i, raw)| parse_line(first_line + i, raw, with_side))
        .collect()
}

/// Every non-empty line of `text`, parsed, in file order. A large text is cut into chunks at
/// line breaks and the chunks are parsed on up to [`MAX_PARSE_THREADS`] threads.
fn parse_lines(text: &str, with_side: bool) -> Vec<ParsedLine> {
    let threads =
        std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_PARSE_THREADS));
    if threads < 2 || text.len() < PARALLEL_PARSE_MIN_BYTES {
        return parse_chunk(1, text, with_side);
    }
    // Chunks of about equal size, each ending just after a line break (the last at the end).
    let mut chunks: Vec<(usize, &str)> = Vec::with_capacity(threads);
    let mut start = 0;
    let mut first_line = 1;
    for k in 1..=threads {
        let target = text.len() * k / threads;
        let end = if k == threads {
            text.len()
        } else {
            match memchr::memchr(b'\n', &text.as_bytes()[target.max(start)..]) {
                Some(i) => target.max(start) + i + 1,
                None => text.len(),
            }
        };
        if end > start {
            let chunk = &text[start..end];
            // The chunk's own last break ends its last line: leave it out, so that it does
            // not count one empty line more.
            let lines = chunk.strip_suffix('\n').unwrap_or(chunk);
            chunks.push((first_line, lines));
            first_line += memchr::memchr_iter(b'\n', chunk.as_bytes()).count();
            start = end;
        }
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|&(first, chunk)| scope.spawn(move || parse_chunk(first, chunk, with_side)))
            .collect();
        let mut out = Vec::new();
        for handle in handles {
            // A parse never panics; were it to, the panic is the bug to see.
            out.extend(handle.join().expect("a line parse does not panic"));
        }
        out
    })
}

/// One parsed line.
pub(super) struct Record {
    /// 1-based line number.
    pub(super) line: usize,
    /// The record's keys listed in [`RECORD_KEYS`]; taken (left empty) when the builder
    /// consumes it.
    pub(super) obj: Map<String, Value>,
    /// `type`.
    pub(super) kind: String,
    /// `uuid`.
    pub(super) uuid: Option<String>,
    /// `parentUuid`, or `logicalParentUuid` when `parentUuid` is null or absent.
    pub(super) parent: Option<String>,
    /// `isSidechain: true`.
    pub(super) sidechain: bool,
    /// The raw `input` of each content block, for an assistant line with a `tool_use` block
    /// (see `builder::raw_inputs`); taken by the builder.
    pub(super) raw_inputs: Option<Vec<Option<String>>>,
}

impl Record {
    /// Whether the record is a `user` or `assistant` line.
    pub(super) fn is_message(&self) -> bool {
        self.kind == "user" || self.kind == "assistant"
    }

    /// `message.id` of an assistant line.
    pub(super) fn message_id(&self) -> Option<&str> {
        self.obj.get("message")?.get("id")?.as_str()
    }

    /// The `tool_use_id`s of a user line whose content is a non-empty list of only
    /// `tool_result` blocks with ids; `None` for any other line.
    pub(super) fn tool_result_ids(&self) -> Option<Vec<&str>> {
        let blocks = self.obj.get("message")?.get("content")?.as_array()?;
        if blocks.is_empty() {
            return None;
        }
        blocks
            .iter()
            .map(|b| {
                if b.get("type")?.as_str()? == "tool_result" {
                    b.get("tool_use_id")?.as_str()
                } else {
                    None
                }
            })
            .collect()
    }

    /// The `id`s of the `tool_use` blocks of an assistant line.
    pub(super) fn tool_use_ids(&self) -> impl Iterator<Item = &str> {
        self.obj
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
            .filter_map(|b| b.get("id").and_then(Value::as_str))
    }
}

/// Parses every non-empty line; drops records whose `uuid` was seen before. With `side`,
/// collects the event of each record that makes no message.
///
/// The lines of a large file are parsed on several threads ([`parse_lines`]); what depends on
/// order (repeated uuids, warnings, the first error) is decided afterwards, in file order.
fn parse(
    path: &Path,
    text: &str,
    warnings: &mut Vec<Warning>,
    mut side: Option<&mut Vec<SideEvent>>,
) -> Result<Vec<Record>, Error> {
    let mut records = Vec::new();
    let mut seen_uuids: HashSet<String> = HashSet::new();
    let mut repeated: Option<(usize, usize)> = None;
    let mut unknown_types: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for parsed in parse_lines(text, side.is_some()) {
        let line = parsed.line;
        let (kind, mut obj, side_kind, raw_inputs) = match parsed.outcome {
            Outcome::Invalid(e) => return Err(json::invalid_json(path, Some(line), &e)),
            Outcome::Skipped(warning) => {
                warnings.push(Warning::at_line(line, warning));
                continue;
            }
            Outcome::Record {
                kind,
                obj,
                side,
                raw_inputs,
            } => (kind, obj, side, raw_inputs),
        };
        if !KNOWN_TYPES.contains(&kind.as_str()) {
            let entry = unknown_types.entry(kind.clone()).or_insert((line, 0));
            entry.1 += 1;
        }
        let uuid = obj.get("uuid").and_then(Value::as_str);
        if let Some(uuid) = uuid
            && !seen_uuids.insert(uuid.to_string())
        {
            let entry = repeated.get_or_insert((line, 0));
            entry.1 += 1;
            continue;
        }
        let parent = obj
            .get("parentUuid")
            .and_then(Value::as_str)
            .or_else(|| obj.get("logicalParentUuid").and_then(Value::as_str))
            .map(str::to_string);
        let uuid = uuid.map(str::to_string);
        let sidechain = obj.get("isSidechain").and_then(Value::as_bool) == Some(true);
        if let (Some(side), Some((kind, time))) = (side.as_deref_mut(), side_kind) {
            side.push(SideEvent { line, time, kind });
        }
        // Records live until the chain is known; what no later pass reads (such as
        // `toolUseResult`, often as large as the message itself) is dropped now.
        obj.retain(|key, value| {
            RECORD_KEYS.contains(&key.as_str())
                || (key == "toolUseResult" && cards::may_be_file_card(value))
        });
        records.push(Record {
            line,
            kind,
            uuid,
            parent,
            sidechain,
            obj,
            raw_inputs,
        });
    }
    if let Some((line, count)) = repeated {
        warnings.push(Warning::at_line(
            line,
            format!(
                "{count} {} an earlier line's uuid (resumed session); kept the first occurrence",
                if count == 1 {
                    "line repeats"
                } else {
                    "lines repeat"
                }
            ),
        ));
    }
    for (kind, (line, count)) in unknown_types {
        warnings.push(Warning::at_line(
            line,
            format!(
                "unknown record type `{}` ({count} {}), no message produced",
                json::clip(&kind),
                if count == 1 { "line" } else { "lines" }
            ),
        ));
    }
    Ok(records)
}
