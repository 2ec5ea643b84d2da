//! The Claude Code session importer (docs/FORMATS.md, "Importers", "Claude Code").
//!
//! A session file is JSONL: one record per line, linked into a tree by `uuid` and `parentUuid`.
//! Importing happens in three passes:
//! 1. [`parse`] (this file): every non-empty line is read into a typed [`Record`] (`line.rs`:
//!    the keys the importer uses, strings borrowed from the text where they can be, no
//!    `serde_json::Value` tree of the line kept); records with a repeated `uuid` are dropped;
//! 2. [`main_chain`] (`chain.rs`): the records on the path from the root to the last user or
//!    assistant record, plus the parallel tool-call fan-out hanging off that path;
//! 3. [`Builder`] (`builder.rs`): the chain's records become canonical messages (assistant
//!    lines of one API message merged, tool results split into `role: tool` messages), each
//!    handed over as soon as no later record can change it, while the records passed are freed.
//!
//! So what the import holds beyond the text is about the messages themselves: a record costs
//! its few borrowed strings until the builder takes it.

mod builder;
mod cards;
mod chain;
mod line;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rehydrate_model::{EventKind, Message};
use serde_json::Value;

use crate::json;
use crate::{Error, Format, Warning};
use builder::Builder;
use chain::main_chain;
use line::{AssistantBlock, Fields, RawContent, Str, UserContent};

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

/// Imports a Claude Code session JSONL text, handing each message to `each` in conversation
/// order as soon as no later line can change it; returns the warnings. With `side`, also
/// collects the events of the records that make no message (titles, snapshots, queue
/// operations, system records).
///
/// Every error is found before the first message is handed over.
pub(crate) fn import(
    path: &Path,
    text: &str,
    side: Option<&mut Vec<SideEvent>>,
    each: &mut dyn FnMut(Message),
) -> Result<Vec<Warning>, Error> {
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
    let (mut records, any_known) = parse(path, text, &mut warnings, side)?;
    // A non-empty file in which no record has a Claude Code record type is not a Claude Code
    // session (it may be another agent's JSONL forced with `--format claude-code`); importing
    // it as an empty session would pass a wrong guess off as a result.
    if !text.trim().is_empty() && !any_known {
        return Err(Error::NotASession {
            path: path.to_path_buf(),
            format: Format::ClaudeCode,
            expected: "JSONL records with a Claude Code `type` such as `user` or `assistant`",
        });
    }
    let chain = main_chain(&records, &mut warnings);
    let mut builder = Builder::default();
    for index in chain.records {
        // The records before this one are done with: their memory goes to the messages.
        records.release_before(index);
        if let Some(record) = records.get_mut(index) {
            let speaks = record.is_message() && (chain.sidechain_file || !record.sidechain);
            builder.record(record, speaks);
            builder.hand_over(each);
        }
    }
    drop(records);
    builder.finish(each);
    warnings.append(&mut builder.warnings);
    // Stable: warnings about one line keep the order they were found in.
    warnings.sort_by_key(|w| w.line);
    Ok(warnings)
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
fn side_event(kind: &str, fields: &Fields<'_>) -> Option<EventKind> {
    match kind {
        "summary" => Some(EventKind::Title {
            text: fields.summary.as_deref().unwrap_or_default().to_string(),
        }),
        "system" => Some(EventKind::Lifecycle {
            what: fields.subtype.as_deref().unwrap_or("system").to_string(),
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
struct ParsedLine<'a> {
    /// 1-based line number.
    line: usize,
    outcome: Outcome<'a>,
}

/// What a line is, as far as it can be told without the lines before it.
enum Outcome<'a> {
    /// Not JSON: the import fails (at the first such line).
    Invalid(serde_json::Error),
    /// Skipped with this warning.
    Skipped(String),
    /// A record.
    Record(Parsed<'a>),
}

/// A record as parsed, before what depends on the lines before it (repeated uuids).
struct Parsed<'a> {
    record: Record<'a>,
    /// `type`, when it is not one of [`KNOWN_TYPES`].
    unknown_type: Option<Str<'a>>,
    /// The event it makes when it makes no message, with its `timestamp`.
    side: Option<Box<(EventKind, Option<String>)>>,
}

/// Parses one line (see [`parse_lines`]).
fn parse_line(line: usize, raw: &str, with_side: bool) -> Option<ParsedLine<'_>> {
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    if raw.trim().is_empty() {
        return None;
    }
    let outcome = match line::read(raw) {
        Err(e) => Outcome::Invalid(e),
        Ok(Err(kind)) => Outcome::Skipped(format!("not a JSON object ({kind}), skipped")),
        Ok(Ok(mut fields)) => match fields.kind.take() {
            None => Outcome::Skipped("record has no string `type`, skipped".to_string()),
            Some(kind) => Outcome::Record(parsed(line, raw, kind, fields, with_side)),
        },
    };
    Some(ParsedLine { line, outcome })
}

/// The record of a line of type `kind`, read into `fields`; `raw` is the line.
fn parsed<'a>(
    line: usize,
    raw: &'a str,
    kind: Str<'a>,
    mut fields: Fields<'a>,
    with_side: bool,
) -> Parsed<'a> {
    let side = with_side
        .then(|| side_event(&kind, &fields))
        .flatten()
        .map(|event| {
            let time = fields.timestamp.as_deref().map(str::to_string);
            Box::new((event, time))
        });
    let record_kind = match kind.as_ref() {
        "user" => Kind::User,
        "assistant" => Kind::Assistant,
        _ => Kind::Other,
    };
    let timestamp = fields.timestamp.take();
    let body = match record_kind {
        Kind::Assistant => Body::Assistant(AssistantLine {
            timestamp,
            message: fields.message.take().map(|message| {
                let content = match message.content {
                    RawContent::Blocks(blocks) => {
                        // The verbatim inputs, read on the parse threads.
                        let raw_inputs = if line::calls_tools(&blocks) {
                            builder::raw_inputs(raw)
                        } else {
                            None
                        };
                        Ok(line::assistant_blocks(blocks, raw_inputs))
                    }
                    RawContent::Text(text) => Ok(vec![AssistantBlock::Text(text)]),
                    RawContent::Absent => Ok(Vec::new()),
                    RawContent::Other(kind) => Err(kind),
                };
                AssistantMessage {
                    id: message.id,
                    content,
                }
            }),
        }),
        Kind::User => Body::User(UserLine {
            timestamp,
            meta: fields.meta,
            compact_summary: fields.compact_summary,
            content: fields
                .message
                .take()
                .map(|message| line::user_content(message.content)),
            // What no later pass reads (a `toolUseResult` of another tool, often as large as
            // the message itself) is dropped now.
            card: fields.card.take().filter(cards::may_be_file_card),
        }),
        Kind::Other
            if kind == "system" && fields.subtype.as_deref() == Some("compact_boundary") =>
        {
            Body::CompactBoundary
        }
        Kind::Other => Body::None,
    };
    let parent = fields.parent_uuid.or(fields.logical_parent_uuid);
    Parsed {
        unknown_type: (!KNOWN_TYPES.contains(&kind.as_ref())).then_some(kind),
        side,
        record: Record {
            line,
            kind: record_kind,
            uuid: fields.uuid,
            parent,
            sidechain: fields.sidechain,
            body,
        },
    }
}

/// At most this many parsed lines are kept in one run of [`parse_chunk`]: runs are freed one
/// by one as their records are taken, and no large block is freed (glibc's allocator raises
/// its mmap threshold to the size of a large block it frees, after which growing vectors, such
/// as a history of messages, are copied within the heap instead of remapped).
const RUN_LINES: usize = 2048;

/// The non-empty lines of `chunk`, whose first line is line `first_line` of the file, parsed,
/// in runs of at most [`RUN_LINES`].
fn parse_chunk(first_line: usize, chunk: &str, with_side: bool) -> Vec<Vec<ParsedLine<'_>>> {
    let mut runs = Vec::new();
    let mut run = Vec::new();
    for (i, raw) in chunk.split('\n').enumerate() {
        if let Some(parsed) = parse_line(first_line + i, raw, with_side) {
            run.push(parsed);
            if run.len() == RUN_LINES {
                runs.push(std::mem::replace(&mut run, Vec::with_capacity(RUN_LINES)));
            }
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

/// Every non-empty line of `text`, parsed, in file order, as consecutive runs of lines. A
/// large text is cut into chunks at line breaks and the chunks are parsed on up to
/// [`MAX_PARSE_THREADS`] threads.
fn parse_lines(text: &str, with_side: bool) -> Vec<Vec<ParsedLine<'_>>> {
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
        handles
            .into_iter()
            // A parse never panics; were it to, the panic is the bug to see.
            .flat_map(|handle| handle.join().expect("a line parse does not panic"))
            .collect()
    })
}

/// The kind of a record, by its `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    User,
    Assistant,
    /// Any other type.
    Other,
}

/// One parsed line: what the chain needs and what the builder takes.
struct Record<'a> {
    /// 1-based line number.
    line: usize,
    /// By `type`.
    kind: Kind,
    /// `uuid`.
    uuid: Option<Str<'a>>,
    /// `parentUuid`, or `logicalParentUuid` when `parentUuid` is null or absent.
    parent: Option<Str<'a>>,
    /// `isSidechain: true`.
    sidechain: bool,
    /// What the builder reads; taken (left [`Body::None`]) when it consumes the record.
    body: Body<'a>,
}

/// The records of a file, in file order, in blocks of [`Records::BLOCK`], so that the ones a
/// pass is done with can be freed while the rest are read.
#[derive(Default)]
struct Records<'a> {
    blocks: Vec<Vec<Record<'a>>>,
    /// Records in all (those released included).
    len: usize,
    /// Blocks before this one are released.
    released: usize,
}

impl<'a> Records<'a> {
    const BLOCK: usize = 4096;

    fn push(&mut self, record: Record<'a>) {
        if self.blocks.last().is_none_or(|b| b.len() == Self::BLOCK) {
            self.blocks.push(Vec::with_capacity(Self::BLOCK));
        }
        if let Some(block) = self.blocks.last_mut() {
            block.push(record);
            self.len += 1;
        }
    }

    /// The number of records, released ones included.
    fn len(&self) -> usize {
        self.len
    }

    /// Record `i`; `None` once released.
    fn get(&self, i: usize) -> Option<&Record<'a>> {
        self.blocks.get(i / Self::BLOCK)?.get(i % Self::BLOCK)
    }

    fn get_mut(&mut self, i: usize) -> Option<&mut Record<'a>> {
        self.blocks
            .get_mut(i / Self::BLOCK)?
            .get_mut(i % Self::BLOCK)
    }

    /// Every record not released, with its index, in order.
    fn iter(&self) -> impl DoubleEndedIterator<Item = (usize, &Record<'a>)> {
        self.blocks.iter().enumerate().flat_map(|(b, block)| {
            block
                .iter()
                .enumerate()
                .map(move |(k, r)| (b * Self::BLOCK + k, r))
        })
    }

    /// Frees every block that ends at or before record `i`.
    fn release_before(&mut self, i: usize) {
        let end = (i / Self::BLOCK).min(self.blocks.len());
        for block in self.blocks.iter_mut().take(end).skip(self.released) {
            *block = Vec::new();
        }
        self.released = self.released.max(end);
    }
}

/// What the builder reads of a record.
enum Body<'a> {
    /// Nothing.
    None,
    /// A `system` record with `subtype: "compact_boundary"`.
    CompactBoundary,
    /// A `user` record.
    User(UserLine<'a>),
    /// An `assistant` record.
    Assistant(AssistantLine<'a>),
}

/// A `user` record, read.
struct UserLine<'a> {
    /// `timestamp`.
    timestamp: Option<Str<'a>>,
    /// `isMeta: true`.
    meta: bool,
    /// `isCompactSummary: true`.
    compact_summary: bool,
    /// `message.content`; `None` when `message` is not an object.
    content: Option<UserContent>,
    /// `toolUseResult`, when it may be a file tool's card.
    card: Option<Value>,
}

/// An `assistant` record, read.
struct AssistantLine<'a> {
    /// `timestamp`.
    timestamp: Option<Str<'a>>,
    /// `message`, when an object.
    message: Option<AssistantMessage<'a>>,
}

/// An assistant record's `message`, read.
struct AssistantMessage<'a> {
    /// `message.id`, when a string.
    id: Option<Str<'a>>,
    /// The content blocks (a string is one text block; absent or null, none), or the kind of a
    /// content that is none of these.
    content: Result<Vec<AssistantBlock>, &'static str>,
}

impl Record<'_> {
    /// Whether the record is a `user` or `assistant` line.
    fn is_message(&self) -> bool {
        matches!(self.kind, Kind::User | Kind::Assistant)
    }

    /// The record's `type` for messages: `user` or `assistant` (`other` for the rest).
    fn kind_name(&self) -> &'static str {
        match self.kind {
            Kind::User => "user",
            Kind::Assistant => "assistant",
            Kind::Other => "other",
        }
    }

    /// `message.id` of an assistant line.
    fn message_id(&self) -> Option<&str> {
        match &self.body {
            Body::Assistant(a) => a.message.as_ref()?.id.as_deref(),
            _ => None,
        }
    }

    /// The `tool_use_id`s of a user line whose content is a non-empty list of only
    /// `tool_result` blocks with ids; `None` for any other line.
    fn tool_result_ids(&self) -> Option<Vec<&str>> {
        let Body::User(user) = &self.body else {
            return None;
        };
        let Some(UserContent::Blocks(blocks)) = &user.content else {
            return None;
        };
        if blocks.items.is_empty() {
            return None;
        }
        blocks
            .items
            .iter()
            .map(|item| match item {
                line::UserItem::Result(r) => r.tool_use_id.as_deref(),
                line::UserItem::Part(_) => None,
            })
            .collect()
    }

    /// The `id`s of the `tool_use` blocks of an assistant line.
    fn tool_use_ids(&self) -> impl Iterator<Item = &str> {
        let blocks = match &self.body {
            Body::Assistant(a) => match &a.message {
                Some(AssistantMessage {
                    content: Ok(blocks),
                    ..
                }) => blocks.as_slice(),
                _ => &[],
            },
            _ => &[],
        };
        blocks.iter().filter_map(|b| match b {
            AssistantBlock::Call { id, .. } => Some(id.as_str()),
            AssistantBlock::Dropped { tool_use_id, .. } => tool_use_id.as_deref(),
            _ => None,
        })
    }
}

/// Parses every non-empty line; drops records whose `uuid` was seen before. With `side`,
/// collects the event of each record that makes no message. Also tells whether any record kept
/// has one of the [`KNOWN_TYPES`].
///
/// The lines of a large file are parsed on several threads ([`parse_lines`]); what depends on
/// order (repeated uuids, warnings, the first error) is decided afterwards, in file order.
fn parse<'a>(
    path: &Path,
    text: &'a str,
    warnings: &mut Vec<Warning>,
    mut side: Option<&mut Vec<SideEvent>>,
) -> Result<(Records<'a>, bool), Error> {
    let mut records = Records::default();
    let mut any_known = false;
    let mut seen_uuids: HashSet<Str<'a>> = HashSet::new();
    let mut repeated: Option<(usize, usize)> = None;
    let mut unknown_types: BTreeMap<Str<'a>, (usize, usize)> = BTreeMap::new();
    // Each run of parsed lines is dropped as soon as its records are taken.
    for run in parse_lines(text, side.is_some()) {
        for parsed in run {
            let line = parsed.line;
            let Parsed {
                record,
                unknown_type,
                side: side_kind,
            } = match parsed.outcome {
                Outcome::Invalid(e) => return Err(json::invalid_json(path, Some(line), &e)),
                Outcome::Skipped(warning) => {
                    warnings.push(Warning::at_line(line, warning));
                    continue;
                }
                Outcome::Record(parsed) => parsed,
            };
            let known = unknown_type.is_none();
            if let Some(kind) = unknown_type {
                let entry = unknown_types.entry(kind).or_insert((line, 0));
                entry.1 += 1;
            }
            if let Some(uuid) = &record.uuid
                && !seen_uuids.insert(uuid.clone())
            {
                let entry = repeated.get_or_insert((line, 0));
                entry.1 += 1;
                continue;
            }
            if let (Some(side), Some(side_kind)) = (side.as_deref_mut(), side_kind) {
                let (kind, time) = *side_kind;
                side.push(SideEvent { line, time, kind });
            }
            any_known |= known;
            records.push(record);
        }
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
    Ok((records, any_known))
}
