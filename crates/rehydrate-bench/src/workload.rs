//! Benchmark workloads: the real Claude Code sessions of the shared corpus, split into turns and
//! scaled by repeating those turns with fresh tool-call ids.
//!
//! A [`Corpus`] is every imported session's turns in path order (plus at most one system
//! prompt); [`Corpus::scale`] cycles through those turns, in that fixed order, until a
//! [`Until`] bound is reached. Content bytes are copied verbatim; only tool-call ids change
//! (`<id>~<k>` on the `k`-th pass, `k >= 1`), on the call and on its result alike, so every
//! tool result still answers its own call.

use std::fs;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use rehydrate_formats::Format;
use rehydrate_model::{Message, Role, ToolCall};

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
        let sessions_dir = dir.join(CLAUDE_CODE_DIR);
        if !sessions_dir.is_dir() {
            return Ok(None);
        }
        let mut files = Vec::new();
        collect_jsonl(&sessions_dir, &mut files)?;
        files.sort();
        let mut notices = Vec::new();
        let mut sessions = Vec::new();
        for path in files {
            let shown = path
                .strip_prefix(dir)
                .unwrap_or(&path)
                .display()
                .to_string();
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
    /// suffixes every tool-call id, and every `tool_call_id`, with `~k` otherwise.
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

/// `message` with every tool-call id and its `tool_call_id` suffixed `~pass` (unchanged for
/// pass 0).
fn with_pass_ids(message: &Message, pass: usize) -> Message {
    let mut message = message.clone();
    if pass > 0 {
        for call in &mut message.tool_calls {
            call.id = format!("{}~{pass}", call.id);
        }
        if let Some(id) = &mut message.tool_call_id {
            *id = format!("{id}~{pass}");
        }
    }
    message
}

/// Appends every `*.jsonl` file under `dir`, recursively, to `out`.
fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let read_err = |source| Error::Read {
        path: dir.to_path_buf(),
        source,
    };
    for entry in fs::read_dir(dir).map_err(read_err)? {
        let path = entry.map_err(read_err)?.path();
        if path.is_dir() {
            collect_jsonl(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "jsonl") {
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
