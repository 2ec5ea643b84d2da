//! Benchmark workloads: the real Claude Code sessions of the shared corpus, split into turns and
//! scaled by repeating those turns with fresh tool-call ids.
//!
//! A [`Corpus`] is every imported session's turns in path order (plus at most one system
//! prompt); [`Corpus::scale`] cycles through those turns, in that fixed order, until a
//! [`Until`] bound is reached. Content bytes are copied verbatim; only tool-call ids change
//! (`<id>_r<k>` on the `k`-th pass, `k >= 1`), on the call and on its result alike, so every
//! tool result still answers its own call.
//!
//! The replay and evidence benches read Claude Code session files as bytes, so their workloads
//! are built from the files themselves: [`SessionFiles`] holds the sessions line by line, a
//! selection picks some ([`SessionFiles::most_file_cards`] for replay,
//! [`SessionFiles::largest`] for evidence), and [`SessionFiles::scale`] repeats them whole, each
//! copy after the first with fresh ids (the same `_r<k>` suffix) and its own file paths, linked
//! into one chain.

use std::collections::HashSet;
use std::fs;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use rehydrate_formats::Format;
use rehydrate_model::{Message, Role, ToolCall, ToolDetails};
use serde_json::{Map, Value, json};

use crate::error::Error;

/// The turn count of the [`turns_1000`] workload.
pub const TURNS_1000: usize = 1000;

/// The minimum wire size of the [`mib_50`] workload, in bytes (50 MiB).
pub const MIB_50_BYTES: usize = 50 << 20;

/// The corpus subdirectory whose `*.jsonl` sessions are imported.
const CLAUDE_CODE_DIR: &str = "claude-code";

/// Turns of real sessions, in a fixed order, ready to be scaled into workloads.
#[derive(Debug, Clone, PartialEq)]
pub struct Corpus {
    /// Where the sessions came from: `corpus <dir> (N Claude Code sessions)`, or `synthetic`.
    pub origin: String,
    /// Sessions imported (the synthetic corpus counts as one).
    pub sessions: usize,
    /// One line per session skipped or part of a session dropped, in path order, for the bench
    /// to print.
    pub notices: Vec<String>,
    /// The system prompt the scaled sessions start with: the leading system messages of the
    /// first session that has any, or nothing.
    pub prefix: Vec<Message>,
    /// Every turn of every session, sessions in path order. A turn is a message for which
    /// [`Message::is_turn_start`] holds followed by every message up to the next such message.
    pub turns: Vec<Vec<Message>>,
}

impl Corpus {
    /// Imports every Claude Code session (`*.jsonl`, recursively, sorted by path) under
    /// `<dir>/claude-code`.
    ///
    /// A file that cannot be read or imported is skipped and named in [`Corpus::notices`];
    /// so is a session without any turn, and the messages before a session's first turn are
    /// dropped (noted) except for the first system prompt found ([`Corpus::prefix`]).
    /// Returns `Ok(None)` when `<dir>/claude-code` does not exist or yields no turn at all.
    ///
    /// # Errors
    ///
    /// [`Error::Read`] when a directory under `<dir>/claude-code` cannot be listed.
    pub fn load(dir: &Path) -> Result<Option<Corpus>, Error> {
        let Some((sessions_dir, files)) = session_paths(dir)? else {
            return Ok(None);
        };
        let mut notices = Vec::new();
        let mut sessions = Vec::new();
        for (path, shown) in files {
            let bytes = match fs::read(&path) {
                Ok(bytes) => bytes,
                Err(err) => {
                    notices.push(format!("skipped {shown}: cannot read it: {err}"));
                    continue;
                }
            };
            match rehydrate_formats::import(&path, &bytes, Some(Format::ClaudeCode)) {
                Ok(import) => sessions.push((shown, import.messages)),
                Err(err) => notices.push(format!("skipped {shown}: {err}")),
            }
        }
        let imported = sessions.len();
        let shown = fs::canonicalize(&sessions_dir).unwrap_or(sessions_dir);
        let mut corpus = Corpus::from_sessions(
            format!(
                "corpus {} ({imported} Claude Code sessions)",
                shown.display()
            ),
            sessions,
        );
        notices.append(&mut corpus.notices);
        corpus.notices = notices;
        Ok((!corpus.turns.is_empty()).then_some(corpus))
    }

    /// Splits `sessions` (a name for notices and the session's messages, in order) into turns.
    ///
    /// See [`Corpus::load`] for what is kept of the messages before a session's first turn.
    pub fn from_sessions(origin: String, sessions: Vec<(String, Vec<Message>)>) -> Corpus {
        let mut corpus = Corpus {
            origin,
            sessions: sessions.len(),
            notices: Vec::new(),
            prefix: Vec::new(),
            turns: Vec::new(),
        };
        for (name, messages) in sessions {
            let first_turn = messages.iter().position(Message::is_turn_start);
            let Some(first_turn) = first_turn else {
                corpus.notices.push(format!(
                    "skipped {name}: no turn (no user message written by a person)"
                ));
                continue;
            };
            let mut messages = messages;
            let rest = messages.split_off(first_turn);
            let prefix = messages;
            let system = prefix.iter().take_while(|m| m.role == Role::System).count();
            let mut dropped = prefix.len();
            if corpus.prefix.is_empty() && system > 0 {
                corpus.prefix = prefix[..system].to_vec();
                dropped -= system;
            }
            if dropped > 0 {
                corpus.notices.push(format!(
                    "{name}: dropped {dropped} message(s) before its first turn"
                ));
            }
            let mut turn: Vec<Message> = Vec::new();
            for message in rest {
                if message.is_turn_start() && !turn.is_empty() {
                    corpus.turns.push(std::mem::take(&mut turn));
                }
                turn.push(message);
            }
            corpus.turns.push(turn);
        }
        corpus
    }

    /// A small deterministic corpus for machines without the shared corpus: 24 turns of a
    /// build-and-test session whose tool results range from 300 bytes to 24 KiB, some of them
    /// byte-identical, so every reduction kind of the default policy has work.
    pub fn synthetic() -> Corpus {
        let mut messages = vec![Message::text(
            Role::System,
            "You are a coding agent. Use the tools to inspect and change the repository.",
        )];
        for i in 0..24_usize {
            let id = format!("call_{i}");
            messages.push(Message::text(
                Role::User,
                format!(
                    "Step {i}: run the tests of crate {} and fix what fails.",
                    i % 5
                ),
            ));
            messages.push(Message {
                role: Role::Assistant,
                content: Some(rehydrate_model::Content::Text(format!(
                    "Running the tests of crate {}.",
                    i % 5
                ))),
                tool_calls: vec![ToolCall {
                    id: id.clone(),
                    name: "Bash".to_owned(),
                    arguments: format!(r#"{{"command":"cargo test -p crate{}"}}"#, i % 5),
                }],
                ..Message::default()
            });
            // Lines differ per crate and size class, so results of one (crate, size) repeat.
            let lines = [8, 120, 600][i % 3];
            let output: String = (0..lines)
                .map(|line| {
                    format!(
                        "test crate{}::module{}::case_{line} ... ok ({} ms)\n",
                        i % 5,
                        line % 7,
                        line % 13
                    )
                })
                .collect();
            messages.push(Message::tool_result(id, output));
            messages.push(Message::text(
                Role::Assistant,
                format!("Crate {} passes; moving on.", i % 5),
            ));
        }
        let mut corpus = Corpus::from_sessions(
            "synthetic (24 generated turns)".to_owned(),
            vec![("synthetic".to_owned(), messages)],
        );
        corpus.sessions = 1;
        corpus
    }

    /// A workload named `name`: [`Corpus::prefix`] followed by the corpus turns, cycled in order
    /// until `until` holds. Pass `k` (0-based) copies the turns verbatim when `k == 0` and
    /// suffixes every tool-call id, and every `tool_call_id`, with `_r<k>` otherwise.
    ///
    /// An empty corpus gives a workload of the prefix alone.
    pub fn scale(&self, name: &str, until: Until) -> Workload {
        let mut workload = Workload {
            name: name.to_owned(),
            origin: self.origin.clone(),
            corpus_turns: self.turns.len(),
            prefix: self.prefix.clone(),
            turns: Vec::new(),
            message_count: self.prefix.len(),
            tool_result_count: self.prefix.iter().filter(|m| m.is_tool_result()).count(),
            wire_bytes: self.prefix.iter().map(Message::wire_len).sum(),
        };
        if self.turns.is_empty() {
            return workload;
        }
        let done = |w: &Workload| match until {
            Until::Turns(turns) => w.turns.len() >= turns,
            Until::WireBytes(bytes) => w.wire_bytes >= bytes,
        };
        let mut pass = 0_usize;
        while !done(&workload) {
            for turn in &self.turns {
                if done(&workload) {
                    break;
                }
                let turn: Vec<Message> = turn.iter().map(|m| with_pass_ids(m, pass)).collect();
                workload.message_count += turn.len();
                workload.tool_result_count += turn.iter().filter(|m| m.is_tool_result()).count();
                workload.wire_bytes += turn.iter().map(Message::wire_len).sum::<usize>();
                workload.turns.push(turn);
            }
            pass += 1;
        }
        workload
    }
}

/// When [`Corpus::scale`] stops adding turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// Exactly this many turns.
    Turns(usize),
    /// The fewest whole turns whose wire bytes, with the prefix, reach at least this many bytes.
    WireBytes(usize),
}

/// `turns_1000`: exactly [`TURNS_1000`] turns of `corpus`, for the per-turn benches.
pub fn turns_1000(corpus: &Corpus) -> Workload {
    corpus.scale("turns_1000", Until::Turns(TURNS_1000))
}

/// `mib_50`: the fewest whole turns of `corpus` reaching [`MIB_50_BYTES`] wire bytes, for the
/// whole-session, CLI and token benches.
pub fn mib_50(corpus: &Corpus) -> Workload {
    corpus.scale("mib_50", Until::WireBytes(MIB_50_BYTES))
}

/// A scaled session: a prefix and whole turns, with its sizes.
///
/// Fields are private so the counts always describe the messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    name: String,
    origin: String,
    corpus_turns: usize,
    prefix: Vec<Message>,
    turns: Vec<Vec<Message>>,
    message_count: usize,
    tool_result_count: usize,
    wire_bytes: usize,
}

impl Workload {
    /// The workload's name, such as `mib_50`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The messages before the first turn (at most one system prompt).
    pub fn prefix(&self) -> &[Message] {
        &self.prefix
    }

    /// The turns, in order; turn `n` (1-based) is `turns()[n - 1]`.
    pub fn turns(&self) -> &[Vec<Message>] {
        &self.turns
    }

    /// Number of turns.
    pub fn turn_count(&self) -> usize {
        self.turns.len()
    }

    /// Number of messages, prefix included.
    pub fn message_count(&self) -> usize {
        self.message_count
    }

    /// Number of tool results ([`Message::is_tool_result`]), prefix included.
    pub fn tool_result_count(&self) -> usize {
        self.tool_result_count
    }

    /// The sum of [`Message::wire_len`] over every message, in bytes.
    pub fn wire_bytes(&self) -> usize {
        self.wire_bytes
    }

    /// Every message, prefix first, cloned into one session.
    pub fn messages(&self) -> Vec<Message> {
        let mut out = Vec::with_capacity(self.message_count);
        out.extend_from_slice(&self.prefix);
        for turn in &self.turns {
            out.extend_from_slice(turn);
        }
        out
    }

    /// The prefix and the first `turns` turns (all of them when `turns` is larger), cloned.
    pub fn messages_through_turn(&self, turns: usize) -> Vec<Message> {
        let mut out = self.prefix.clone();
        for turn in self.turns.iter().take(turns) {
            out.extend_from_slice(turn);
        }
        out
    }

    /// One line saying what the workload is: name, sizes and where its turns come from.
    pub fn describe(&self) -> String {
        let passes = if self.corpus_turns == 0 {
            0.0
        } else {
            self.turns.len() as f64 / self.corpus_turns as f64
        };
        format!(
            "workload {}: {} turns, {} messages, {} tool results, {} wire bytes ({:.1} MiB); \
             {} corpus turns repeated {passes:.2} times, from {}",
            self.name,
            self.turns.len(),
            self.message_count,
            self.tool_result_count,
            self.wire_bytes,
            self.wire_bytes as f64 / f64::from(1 << 20),
            self.corpus_turns,
            self.origin,
        )
    }
}

/// `message` with every tool-call id and its `tool_call_id` suffixed `_r<pass>` (unchanged for
/// pass 0).
fn with_pass_ids(message: &Message, pass: usize) -> Message {
    let mut message = message.clone();
    if pass > 0 {
        let suffix = pass_suffix(pass);
        for call in &mut message.tool_calls {
            call.id.push_str(&suffix);
        }
        if let Some(id) = &mut message.tool_call_id {
            id.push_str(&suffix);
        }
    }
    message
}

/// The suffix that makes an id of copy `pass >= 1` fresh: `_r<pass>`.
fn pass_suffix(pass: usize) -> String {
    format!("_r{pass}")
}

/// The sessions directory and its session files, each with the path shown in notices.
type SessionPaths = (PathBuf, Vec<(PathBuf, String)>);

/// `<dir>/claude-code` and every `*.jsonl` file under it (recursively, sorted by path), each with
/// its path relative to `dir` for notices; `None` when `<dir>/claude-code` does not exist.
fn session_paths(dir: &Path) -> Result<Option<SessionPaths>, Error> {
    let sessions_dir = dir.join(CLAUDE_CODE_DIR);
    if !sessions_dir.is_dir() {
        return Ok(None);
    }
    let mut files = Vec::new();
    collect_jsonl(&sessions_dir, &mut files)?;
    files.sort();
    let named = files
        .into_iter()
        .map(|path| {
            let shown = path
                .strip_prefix(dir)
                .unwrap_or(&path)
                .display()
                .to_string();
            (path, shown)
        })
        .collect();
    Ok(Some((sessions_dir, named)))
}

/// Appends every `*.jsonl` file under `dir`, recursively, to `out`.
fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    collect_files(dir, &["jsonl"], out)
}

/// Appends every file under `dir`, recursively, whose extension is one of `extensions`, to
/// `out`.
pub(crate) fn collect_files(
    dir: &Path,
    extensions: &[&str],
    out: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    let read_err = |source| Error::Read {
        path: dir.to_path_buf(),
        source,
    };
    for entry in fs::read_dir(dir).map_err(read_err)? {
        let path = entry.map_err(read_err)?.path();
        if path.is_dir() {
            collect_files(&path, extensions, out)?;
        } else if path
            .extension()
            .is_some_and(|ext| extensions.iter().any(|wanted| ext == *wanted))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Writes `messages` to `path` as an OpenAI chat-completions JSON array: each message's wire
/// form ([`Message::write_wire`]) joined by `,` inside `[` `]`, nothing else. Creates the
/// parent directory. Returns the file size in bytes.
///
/// `rehydrate_formats::import` reads the file back as [`Format::OpenAi`] (see
/// [`check_reimport`]).
///
/// # Errors
///
/// [`Error::Write`] when the directory or the file cannot be written.
pub fn write_openai<'a>(
    path: &Path,
    messages: impl IntoIterator<Item = &'a Message>,
) -> Result<u64, Error> {
    let write_err = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(write_err)?;
    }
    let mut file = BufWriter::new(fs::File::create(path).map_err(write_err)?);
    let mut buf = Vec::with_capacity(64 << 10);
    let mut size = 0_u64;
    buf.push(b'[');
    for (i, message) in messages.into_iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        message.write_wire(&mut buf);
        if buf.len() >= 1 << 20 {
            file.write_all(&buf).map_err(write_err)?;
            size += buf.len() as u64;
            buf.clear();
        }
    }
    buf.push(b']');
    file.write_all(&buf).map_err(write_err)?;
    size += buf.len() as u64;
    file.flush().map_err(write_err)?;
    Ok(size)
}

/// Checks that the file at `path` imports as [`Format::OpenAi`] to exactly `expected`, with
/// `metadata` (which the wire form leaves out) cleared on both sides.
///
/// # Errors
///
/// [`Error::Read`] when the file cannot be read, [`Error::Reimport`] when it does not import,
/// [`Error::MessageCount`] or [`Error::MessageDiffers`] when the messages differ.
pub fn check_reimport(path: &Path, expected: &[Message]) -> Result<(), Error> {
    let bytes = fs::read(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let import =
        rehydrate_formats::import(path, &bytes, Some(Format::OpenAi)).map_err(|source| {
            Error::Reimport {
                path: path.to_path_buf(),
                source,
            }
        })?;
    if import.messages.len() != expected.len() {
        return Err(Error::MessageCount {
            path: path.to_path_buf(),
            expected: expected.len(),
            actual: import.messages.len(),
        });
    }
    for (index, (got, want)) in import.messages.iter().zip(expected).enumerate() {
        let same = got.role == want.role
            && got.content == want.content
            && got.tool_calls == want.tool_calls
            && got.tool_call_id == want.tool_call_id
            && got.name == want.name
            && got.observation == want.observation;
        if !same {
            return Err(Error::MessageDiffers {
                path: path.to_path_buf(),
                index,
            });
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Claude Code session files, for the replay and evidence benches

/// The minimum size of the [`claude_mib_50`] and [`claude_largest_mib_50`] workloads, in bytes
/// (50 MiB).
pub const CLAUDE_MIB_50_BYTES: usize = 50 << 20;

/// How many sessions [`claude_mib_50`] repeats: the corpus sessions with the most file-tool
/// cards.
pub const REPLAY_SESSIONS: usize = 3;

/// How many sessions [`claude_largest_mib_50`] repeats: the largest corpus sessions by bytes.
pub const EVIDENCE_SESSIONS: usize = 3;

/// The keys whose absolute-path string values get a copy's `/repeat-<k>` prefix, wherever they
/// appear in a line (a file tool's input, its `toolUseResult` card).
const PATH_KEYS: [&str; 3] = ["filePath", "file_path", "notebook_path"];

/// One Claude Code session file: its lines, parsed, and what it imports and replays to alone.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionFile {
    /// The file's path relative to the corpus directory, or `synthetic`.
    pub name: String,
    /// Every non-empty line, verbatim (without its line break), with its parsed value.
    lines: Vec<(String, Value)>,
    /// Every `uuid` of the file.
    uuids: HashSet<String>,
    /// The `uuid` at which the importer's main chain ends: that of the last user or assistant
    /// line with one.
    leaf: Option<String>,
    /// Every user and assistant line is a sidechain line (a sub-agent transcript).
    sidechain: bool,
    /// The messages the file imports to, alone.
    pub messages: usize,
    /// The session events the file's event log has, imported alone
    /// (`rehydrate_formats::import_events`).
    pub events: usize,
    /// The successful tool results with a file tool's card (whole, partial or media read,
    /// write, edit, multi-edit, notebook edit: [`Message::details`] other than an unproven
    /// change).
    pub file_cards: usize,
    /// The paths replay proves a whole content for, the file replayed alone.
    pub records: usize,
    /// The file's size in bytes.
    pub bytes: usize,
}

impl SessionFile {
    /// Parses a session file's text line by line and imports it alone, as messages and as an
    /// event log.
    ///
    /// # Errors
    ///
    /// Why the file is no use (for a notice): it does not import, a line is not JSON (such as
    /// one with a lone surrogate escape, which the importer repairs and a copy could not keep),
    /// or it imports to no message.
    pub fn parse(name: String, text: &str) -> Result<SessionFile, String> {
        let import =
            rehydrate_formats::import(Path::new(&name), text.as_bytes(), Some(Format::ClaudeCode))
                .map_err(|err| err.to_string())?;
        if import.messages.is_empty() {
            return Err("it imports to no message".to_owned());
        }
        let events = rehydrate_formats::import_events(
            Path::new(&name),
            text.as_bytes(),
            Some(Format::ClaudeCode),
        )
        .map_err(|err| err.to_string())?
        .events
        .len();
        let mut lines = Vec::new();
        for (i, raw) in text.split('\n').enumerate() {
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            if raw.trim().is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(raw)
                .map_err(|err| format!("line {} does not parse as it is: {err}", i + 1))?;
            lines.push((raw.to_owned(), value));
        }
        let uuid = |v: &Value| v.get("uuid").and_then(Value::as_str).map(str::to_owned);
        let uuids = lines.iter().filter_map(|(_, v)| uuid(v)).collect();
        let is_message = |v: &Value| {
            matches!(
                v.get("type").and_then(Value::as_str),
                Some("user" | "assistant")
            )
        };
        let is_sidechain = |v: &Value| v.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let sidechain = lines.iter().any(|(_, v)| is_message(v))
            && lines
                .iter()
                .filter(|(_, v)| is_message(v))
                .all(|(_, v)| is_sidechain(v));
        let leaf = lines
            .iter()
            .rev()
            .find(|(_, v)| is_message(v) && (sidechain || !is_sidechain(v)) && uuid(v).is_some())
            .and_then(|(_, v)| uuid(v));
        let file_cards = import
            .messages
            .iter()
            .filter(|m| m.is_tool_result() && !m.is_error())
            .filter(|m| {
                m.details
                    .as_deref()
                    .is_some_and(|d| !matches!(d, ToolDetails::UnprovenChange { .. }))
            })
            .count();
        Ok(SessionFile {
            name,
            lines,
            uuids,
            leaf,
            sidechain,
            messages: import.messages.len(),
            events,
            file_cards,
            records: rehydrate_replay::file_records(&import.messages).len(),
            bytes: text.len(),
        })
    }

    /// Whether the line has a uuid and its parent (`parentUuid`, else `logicalParentUuid`, as the
    /// importer reads them) is absent or not in the file: a place where the chain starts.
    fn is_root(&self, line: &Value) -> bool {
        if line.get("uuid").and_then(Value::as_str).is_none() {
            return false;
        }
        let parent = line
            .get("parentUuid")
            .and_then(Value::as_str)
            .or_else(|| line.get("logicalParentUuid").and_then(Value::as_str));
        parent.is_none_or(|p| !self.uuids.contains(p))
    }

    /// Appends copy `copy` of the file to `out`, one line each, and returns the uuid its chain
    /// ends at; see [`SessionFiles::scale`] for what a copy changes. Where `root_parent` is
    /// given, every line where the chain starts ([`SessionFile::is_root`]) gets it as
    /// `parentUuid`.
    fn write_copy(
        &self,
        copy: usize,
        root_parent: Option<&str>,
        out: &mut Vec<u8>,
    ) -> Option<String> {
        let suffix = pass_suffix(copy);
        let prefix = format!("/repeat-{copy}");
        for (raw, value) in &self.lines {
            let relink = root_parent.filter(|_| self.is_root(value));
            if copy == 0 && relink.is_none() {
                out.extend_from_slice(raw.as_bytes());
                out.push(b'\n');
                continue;
            }
            let mut value = value.clone();
            if let Value::Object(line) = &mut value {
                if copy > 0 {
                    self.fresh_ids(line, &suffix);
                }
                if let Some(parent) = relink {
                    line.insert("parentUuid".to_owned(), Value::String(parent.to_owned()));
                }
            }
            if copy > 0 {
                prefix_paths(&mut value, &prefix);
            }
            out.extend_from_slice(value.to_string().as_bytes());
            out.push(b'\n');
        }
        let leaf = self.leaf.clone();
        if copy > 0 {
            leaf.map(|uuid| uuid + &suffix)
        } else {
            leaf
        }
    }

    /// Suffixes the ids of one line (see [`SessionFile::write_copy`]).
    fn fresh_ids(&self, line: &mut Map<String, Value>, suffix: &str) {
        if let Some(Value::String(uuid)) = line.get_mut("uuid") {
            uuid.push_str(suffix);
        }
        for key in ["parentUuid", "logicalParentUuid", "leafUuid"] {
            if let Some(Value::String(uuid)) = line.get_mut(key)
                && self.uuids.contains(uuid.as_str())
            {
                uuid.push_str(suffix);
            }
        }
        let Some(Value::Object(message)) = line.get_mut("message") else {
            return;
        };
        if let Some(Value::String(id)) = message.get_mut("id") {
            id.push_str(suffix);
        }
        let Some(Value::Array(blocks)) = message.get_mut("content") else {
            return;
        };
        for block in blocks {
            let key = match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => "id",
                Some("tool_result") => "tool_use_id",
                _ => continue,
            };
            if let Some(Value::String(id)) = block.get_mut(key) {
                id.push_str(suffix);
            }
        }
    }
}

/// Prefixes every absolute path under one of [`PATH_KEYS`] in `value`, at any depth, with
/// `prefix`.
fn prefix_paths(value: &mut Value, prefix: &str) {
    match value {
        Value::Object(object) => {
            for (key, item) in object.iter_mut() {
                match item {
                    Value::String(path)
                        if PATH_KEYS.contains(&key.as_str()) && path.starts_with('/') =>
                    {
                        path.insert_str(0, prefix);
                    }
                    other => prefix_paths(other, prefix),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                prefix_paths(item, prefix);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// Claude Code session files, parsed, ready to be repeated into a JSONL workload.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionFiles {
    /// Where the files came from: `corpus <dir> (N Claude Code sessions)`, or `synthetic`.
    pub origin: String,
    /// One line per file skipped, in path order, for the bench to print.
    pub notices: Vec<String>,
    /// The files, in path order (or as [`SessionFiles::most_file_cards`] or
    /// [`SessionFiles::largest`] ranks them).
    pub files: Vec<SessionFile>,
}

impl SessionFiles {
    /// Reads and parses every Claude Code session (`*.jsonl`, recursively, sorted by path)
    /// under `<dir>/claude-code`, as [`Corpus::load`] finds them.
    ///
    /// A file that cannot be read, is not UTF-8 or fails [`SessionFile::parse`] is skipped and
    /// named in [`SessionFiles::notices`]. Returns `Ok(None)` when `<dir>/claude-code` does not
    /// exist or no file is left.
    ///
    /// # Errors
    ///
    /// [`Error::Read`] when a directory under `<dir>/claude-code` cannot be listed.
    pub fn load(dir: &Path) -> Result<Option<SessionFiles>, Error> {
        let Some((sessions_dir, paths)) = session_paths(dir)? else {
            return Ok(None);
        };
        let mut notices = Vec::new();
        let mut files = Vec::new();
        for (path, shown) in paths {
            let text = match fs::read(&path).map(String::from_utf8) {
                Ok(Ok(text)) => text,
                Ok(Err(err)) => {
                    notices.push(format!("skipped {shown}: not UTF-8: {err}"));
                    continue;
                }
                Err(err) => {
                    notices.push(format!("skipped {shown}: cannot read it: {err}"));
                    continue;
                }
            };
            match SessionFile::parse(shown.clone(), &text) {
                Ok(file) => files.push(file),
                Err(err) => notices.push(format!("skipped {shown}: {err}")),
            }
        }
        let shown = fs::canonicalize(&sessions_dir).unwrap_or(sessions_dir);
        let files = SessionFiles {
            origin: format!(
                "corpus {} ({} Claude Code sessions)",
                shown.display(),
                files.len()
            ),
            notices,
            files,
        };
        Ok((!files.files.is_empty()).then_some(files))
    }

    /// A deterministic session for machines without the shared corpus: 24 turns, each one file
    /// tool call and its result with its card (a whole read, an edit or a write of one of four
    /// files whose texts range from 1 KiB to 24 KiB), so replay proves every file.
    pub fn synthetic() -> SessionFiles {
        let text = synthetic_session();
        let file = SessionFile::parse("synthetic".to_owned(), &text)
            .expect("the synthetic session imports and parses");
        SessionFiles {
            origin: "synthetic (24 generated turns)".to_owned(),
            notices: Vec::new(),
            files: vec![file],
        }
    }

    /// The `n` files with the most file-tool cards ([`SessionFile::file_cards`]), most first
    /// (ties in path order), leaving out sub-agent transcripts (whose lines, in a file with a
    /// main conversation, are links and not messages) and files without any card.
    pub fn most_file_cards(&self, n: usize) -> SessionFiles {
        let mut files: Vec<&SessionFile> = self
            .files
            .iter()
            .filter(|f| !f.sidechain && f.file_cards > 0)
            .collect();
        files.sort_by_key(|f| std::cmp::Reverse(f.file_cards));
        self.selected(files, n)
    }

    /// The `n` largest files by bytes ([`SessionFile::bytes`]), largest first (ties in path
    /// order), leaving out sub-agent transcripts (as [`SessionFiles::most_file_cards`] does).
    pub fn largest(&self, n: usize) -> SessionFiles {
        let mut files: Vec<&SessionFile> = self.files.iter().filter(|f| !f.sidechain).collect();
        files.sort_by_key(|f| std::cmp::Reverse(f.bytes));
        self.selected(files, n)
    }

    /// The first `n` of `files` (ranked from [`SessionFiles::files`]), cloned, with this set's
    /// origin and notices.
    fn selected(&self, mut files: Vec<&SessionFile>, n: usize) -> SessionFiles {
        files.truncate(n);
        SessionFiles {
            origin: self.origin.clone(),
            notices: self.notices.clone(),
            files: files.into_iter().cloned().collect(),
        }
    }

    /// A JSONL workload named `name`: the files, cycled in order as whole copies, the fewest
    /// copies whose bytes reach `min_bytes`.
    ///
    /// Copy 0 is the first file verbatim. Copy `k >= 1` has every `uuid`, `parentUuid`,
    /// `logicalParentUuid` and `leafUuid` of its file, every `message.id`, every `tool_use` id
    /// and every `tool_result`'s `tool_use_id` suffixed `_r<k>` (as [`Corpus::scale`] suffixes
    /// tool-call ids), and every absolute path under a `filePath`, `file_path` or
    /// `notebook_path` key prefixed `/repeat-k`; its lines are written back with `serde_json`
    /// (keys sorted). Every line of a copy where the importer's chain would start (no parent, or
    /// one not in the file) gets, as `parentUuid`, the uuid at which the chain of the copy
    /// before ends, so the importer keeps every copy.
    ///
    /// No files, or only empty ones, give an empty workload.
    pub fn scale(&self, name: &str, min_bytes: usize) -> JsonlWorkload {
        let mut workload = JsonlWorkload {
            name: name.to_owned(),
            origin: self.origin.clone(),
            sessions: self
                .files
                .iter()
                .map(|f| (f.name.clone(), f.bytes, f.file_cards))
                .collect(),
            bytes: Vec::with_capacity(
                min_bytes + self.files.iter().map(|f| f.bytes).max().unwrap_or(0) * 2,
            ),
            copies: 0,
            lines: 0,
            messages: 0,
            events: 0,
            file_cards: 0,
            records: 0,
        };
        if self.files.iter().all(|f| f.lines.is_empty()) {
            return workload;
        }
        let mut leaf: Option<String> = None;
        // Every pass adds at least one line, so the loop ends.
        while workload.bytes.len() < min_bytes {
            for file in &self.files {
                if workload.bytes.len() >= min_bytes {
                    break;
                }
                let end = file.write_copy(workload.copies, leaf.as_deref(), &mut workload.bytes);
                leaf = end.or(leaf);
                workload.copies += 1;
                workload.lines += file.lines.len();
                workload.messages += file.messages;
                workload.events += file.events;
                workload.file_cards += file.file_cards;
                workload.records += file.records;
            }
        }
        workload
    }
}

/// `claude_mib_50`: the [`REPLAY_SESSIONS`] files with the most file-tool cards, repeated to at
/// least [`CLAUDE_MIB_50_BYTES`], for the replay bench.
pub fn claude_mib_50(files: &SessionFiles) -> JsonlWorkload {
    files
        .most_file_cards(REPLAY_SESSIONS)
        .scale("claude_mib_50", CLAUDE_MIB_50_BYTES)
}

/// `claude_largest_mib_50`: the [`EVIDENCE_SESSIONS`] largest files by bytes, repeated to at
/// least [`CLAUDE_MIB_50_BYTES`], for the evidence bench.
pub fn claude_largest_mib_50(files: &SessionFiles) -> JsonlWorkload {
    files
        .largest(EVIDENCE_SESSIONS)
        .scale("claude_largest_mib_50", CLAUDE_MIB_50_BYTES)
}

/// Claude Code session files repeated into one JSONL session, with what it should import and
/// replay to.
///
/// Fields are private so the counts always describe the bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonlWorkload {
    name: String,
    origin: String,
    /// Each file repeated: its name, bytes and file-tool cards.
    sessions: Vec<(String, usize, usize)>,
    bytes: Vec<u8>,
    copies: usize,
    lines: usize,
    messages: usize,
    events: usize,
    file_cards: usize,
    records: usize,
}

impl JsonlWorkload {
    /// The workload's name, such as `claude_mib_50`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The JSONL bytes: one record per line, each line ending with a line break.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Whole file copies written.
    pub fn copies(&self) -> usize {
        self.copies
    }

    /// Non-empty lines.
    pub fn line_count(&self) -> usize {
        self.lines
    }

    /// The messages the bytes import to: the sum over the copies of what each file imports to
    /// alone.
    pub fn message_count(&self) -> usize {
        self.messages
    }

    /// The session events the bytes' event log has (`rehydrate_formats::import_events`): the
    /// sum over the copies of each file's events alone.
    pub fn event_count(&self) -> usize {
        self.events
    }

    /// File-tool cards ([`SessionFile::file_cards`]) over the copies.
    pub fn file_card_count(&self) -> usize {
        self.file_cards
    }

    /// The paths replay proves a content for: the sum over the copies of each file's records
    /// alone, every copy having its own paths.
    pub fn record_count(&self) -> usize {
        self.records
    }

    /// One line saying what the workload is: name, sizes and the files it repeats.
    pub fn describe(&self) -> String {
        let sessions: Vec<String> = self
            .sessions
            .iter()
            .map(|(name, bytes, cards)| format!("{name} ({bytes} bytes, {cards} file cards)"))
            .collect();
        let passes = if self.sessions.is_empty() {
            0.0
        } else {
            self.copies as f64 / self.sessions.len() as f64
        };
        format!(
            "workload {}: {} bytes ({:.1} MiB), {} lines, {} copies of {} session(s) \
             ({passes:.2} passes), to import to {} messages ({} events) with {} file cards and \
             replay to {} records; sessions {}, from {}",
            self.name,
            self.bytes.len(),
            self.bytes.len() as f64 / f64::from(1 << 20),
            self.lines,
            self.copies,
            self.sessions.len(),
            self.messages,
            self.events,
            self.file_cards,
            self.records,
            sessions.join(", "),
            self.origin,
        )
    }
}

/// The text of the synthetic Claude Code session of [`SessionFiles::synthetic`].
fn synthetic_session() -> String {
    let mut contents: Vec<String> = (0..4_usize)
        .map(|f| {
            let lines = [24, 120, 360, 720][f];
            let mut text = format!("// file {f} version 0\n");
            for line in 0..lines {
                text.push_str(&format!("fn item_{line}() -> u32 {{ {} }}\n", line * 7 + f));
            }
            text
        })
        .collect();
    let mut versions = [0_usize; 4];
    let mut out = String::new();
    let mut parent: Option<String> = None;
    let push = |out: &mut String, line: Value| {
        out.push_str(&line.to_string());
        out.push('\n');
    };
    for i in 0..24_usize {
        let f = i % 4;
        let path = format!("/work/synthetic/src/file{f}.rs");
        let at = format!("2025-01-01T00:{:02}:00.000Z", i);
        let (user, call, result, reply) = (
            format!("u{i}"),
            format!("a{i}"),
            format!("r{i}"),
            format!("t{i}"),
        );
        let line = |uuid: &str, parent: Option<&str>, kind: &str, message: Value| {
            json!({"type": kind, "uuid": uuid, "parentUuid": parent, "timestamp": at,
                   "sessionId": "synthetic", "isSidechain": false, "message": message})
        };
        push(
            &mut out,
            line(
                &user,
                parent.as_deref(),
                "user",
                json!({"role": "user", "content": format!("Step {i}: work on file {f}.")}),
            ),
        );
        let before = contents[f].clone();
        let (tool, input, text, card) = match i % 3 {
            0 => {
                let numbered: String = before
                    .lines()
                    .enumerate()
                    .map(|(n, l)| format!("{:>6}\t{l}\n", n + 1))
                    .collect();
                let n = before.lines().count();
                (
                    "Read",
                    json!({"file_path": path}),
                    numbered,
                    json!({"type": "text", "file": {"filePath": path, "content": before,
                           "numLines": n, "startLine": 1, "totalLines": n}}),
                )
            }
            1 => {
                let old = format!("// file {f} version {}", versions[f]);
                versions[f] += 1;
                let new = format!("// file {f} version {}", versions[f]);
                contents[f] = before.replacen(&old, &new, 1);
                (
                    "Edit",
                    json!({"file_path": path, "old_string": old, "new_string": new}),
                    format!("The file {path} has been updated."),
                    json!({"filePath": path, "oldString": old, "newString": new,
                           "originalFile": before, "structuredPatch": [],
                           "userModified": false, "replaceAll": false}),
                )
            }
            _ => {
                versions[f] += 1;
                let written = format!(
                    "// file {f} version {}\n{}",
                    versions[f],
                    &before[before.find('\n').map_or(0, |n| n + 1)..]
                );
                contents[f] = written.clone();
                (
                    "Write",
                    json!({"file_path": path, "content": written}),
                    format!("The file {path} has been updated."),
                    json!({"type": "update", "filePath": path, "content": written,
                           "structuredPatch": []}),
                )
            }
        };
        let id = format!("toolu_{i}");
        push(
            &mut out,
            line(
                &call,
                Some(&user),
                "assistant",
                json!({"id": format!("msg_{i}"), "role": "assistant",
                       "content": [{"type": "tool_use", "id": id, "name": tool, "input": input}]}),
            ),
        );
        let mut tool_result = line(
            &result,
            Some(&call),
            "user",
            json!({"role": "user",
                   "content": [{"type": "tool_result", "tool_use_id": id, "content": text}]}),
        );
        if let Value::Object(fields) = &mut tool_result {
            fields.insert("toolUseResult".to_owned(), card);
        }
        push(&mut out, tool_result);
        push(
            &mut out,
            line(
                &reply,
                Some(&result),
                "assistant",
                json!({"id": format!("msg_{i}_done"), "role": "assistant",
                       "content": [{"type": "text", "text": format!("{tool} of file {f} done.")}]}),
            ),
        );
        parent = Some(reply);
    }
    out
}
