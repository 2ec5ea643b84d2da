//! [`Replay`]: walking a transcript's tool results to the last whole content each file is proven
//! to have (SPEC seed 001 rules 1-10).

use std::borrow::Cow;
use std::collections::BTreeMap;

use rehydrate_model::{EditBase, FileEdit, Message, ToolDetails};

use crate::edit::{EditFailure, apply_recorded_edit};
use crate::patch::patch_gives;
use crate::record::FileRecord;

/// Why replay forgot what it knew about a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Retraction {
    /// The edit could not be recomputed from its base.
    #[error("the edit cannot be recomputed: {0}")]
    Edit(#[source] EditFailure),
    /// The edit's record does not carry its base (null or offloaded).
    #[error("the edit's base is not recorded")]
    BaseMissing,
    /// The edit applies to the file as it stood, and the transcript proves no content for it.
    #[error("the edit applies to the file as it stood, and no content of it is proven")]
    NoProvenBase,
    /// The recomputed text disagrees with the lines the tool showed of its result.
    #[error("the recomputed text disagrees with line {line} the tool showed")]
    ShownMismatch {
        /// The 1-based line number that differs.
        line: u64,
    },
    /// The recomputed text disagrees with the tool's own diff of its result.
    #[error("the recomputed text disagrees with the tool's own diff")]
    DiffMismatch,
    /// A notebook edit: always retracts (SPEC seed 001 rule 6).
    #[error("a notebook edit is not recomputed")]
    NotebookEdit,
    /// A tool changed the file and recorded nothing that proves the result.
    #[error("the change is not recorded: {0}")]
    Unproven(String),
}

/// What one message did to replay's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Not a tool result, or a tool result without file details: ignored (rule 1, rule 7).
    Ignored,
    /// A failed tool result: proves and retracts nothing (rule 2).
    Failed,
    /// The path is not absolute, so it is not reported (rule 8).
    Relative,
    /// The file's whole content is now proven.
    Proved,
    /// What replay knew about the file is forgotten.
    Retracted(Retraction),
    /// The result reads a file without proving its whole content (a partial or media read).
    Inert,
}

/// The state of one path (see [`Replay::states`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathState {
    /// A whole content is proven.
    Proven,
    /// The last thing that happened to the path retracted its record.
    Retracted {
        /// Why.
        reason: Retraction,
        /// The index of the retracting tool result.
        index: usize,
    },
    /// Only partial or media reads touched the path.
    Inert,
}

/// Counts of paths by their state at the end of a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct ReplayCounts {
    /// Paths with a proven whole content.
    pub proven: usize,
    /// Paths whose record was retracted last.
    pub retracted: usize,
    /// Paths only read partially or as media.
    pub inert: usize,
}

/// What replay holds for a path.
enum Entry<'a> {
    Proven {
        content: Cow<'a, str>,
        at: Option<&'a str>,
        index: usize,
    },
    Retracted {
        reason: Retraction,
        index: usize,
    },
    Inert,
}

/// Replay of a transcript, message by message: the whole content each absolute path is proven
/// to have so far.
///
/// Contents borrow from the messages where they can (a read or a write), so a `Replay` lives no
/// longer than the messages it was fed; edits own their recomputed text.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, ToolDetails};
/// use rehydrate_replay::{Replay, Step};
///
/// let mut read = Message::tool_result("t1", "     1\tv1");
/// read.details = Some(Box::new(ToolDetails::WholeRead {
///     path: "/a/x".into(),
///     content: "v1".into(),
/// }));
/// let mut replay = Replay::new();
/// assert_eq!(replay.step(0, &read), Step::Proved);
/// assert_eq!(replay.content("/a/x"), Some("v1"));
/// ```
#[derive(Default)]
pub struct Replay<'a> {
    paths: BTreeMap<&'a str, Entry<'a>>,
}

impl<'a> Replay<'a> {
    /// An empty replay.
    pub fn new() -> Replay<'a> {
        Replay::default()
    }

    /// Feeds the message at `index` of the transcript and says what it did.
    ///
    /// Rules (SPEC seed 001): anything but a tool result with [`ToolDetails`] is ignored; a failed
    /// result (`is_error`) is inert; a relative path is ignored; a whole read or a write proves
    /// its text; an edit proves the text [`apply_recorded_edit`] recomputes from its base
    /// (the recorded one, or for [`EditBase::LastProven`] the content proven so far) and retracts
    /// the path when it cannot, or when the result disagrees with lines the tool showed; a
    /// notebook edit or an unproven change retracts; partial and media reads are inert. A
    /// patch of several files is each file's details in turn (an update takes its base from
    /// the files proven so far, earlier files of the same patch included), and its step is the
    /// first file's that is not [`Step::Proved`] (else `Proved`). The last record per path
    /// wins. Content never comes from disk.
    pub fn step(&mut self, index: usize, message: &'a Message) -> Step {
        if !message.is_tool_result() {
            return Step::Ignored;
        }
        let Some(details) = message.details.as_deref() else {
            return Step::Ignored;
        };
        if message.is_error() {
            return Step::Failed;
        }
        let at = message.timestamp();
        let mut step = Step::Ignored;
        for (k, file) in details.files().iter().enumerate() {
            let one = self.step_file(index, at, file);
            if k == 0 || (step == Step::Proved && one != Step::Proved) {
                step = one;
            }
        }
        step
    }

    /// One file's details of the successful tool result at `index`, recorded at `at`.
    fn step_file(&mut self, index: usize, at: Option<&'a str>, details: &'a ToolDetails) -> Step {
        let path = details.path();
        if !is_absolute(path) {
            return Step::Relative;
        }
        let proven = match details {
            ToolDetails::WholeRead { content, .. } | ToolDetails::Write { content, .. } => {
                Ok(Cow::Borrowed(content.as_str()))
            }
            ToolDetails::Edit(edit) | ToolDetails::MultiEdit(edit) => self.recompute(edit),
            ToolDetails::NotebookEdit { .. } => Err(Retraction::NotebookEdit),
            ToolDetails::UnprovenChange { reason, .. } => Err(Retraction::Unproven(reason.clone())),
            ToolDetails::PartialRead { .. } | ToolDetails::MediaRead { .. } => {
                self.paths.entry(path).or_insert(Entry::Inert);
                return Step::Inert;
            }
            // Importers never nest a patch; one that does proves nothing of its own.
            ToolDetails::Patch { .. } => return Step::Ignored,
        };
        match proven {
            Ok(content) => {
                self.paths
                    .insert(path, Entry::Proven { content, at, index });
                Step::Proved
            }
            Err(reason) => {
                self.paths.insert(
                    path,
                    Entry::Retracted {
                        reason: reason.clone(),
                        index,
                    },
                );
                Step::Retracted(reason)
            }
        }
    }

    /// The text `edit` produces, or why it cannot be recomputed.
    fn recompute(&self, edit: &'a FileEdit) -> Result<Cow<'a, str>, Retraction> {
        let base = match &edit.base {
            EditBase::Recorded { text } => text.as_str(),
            EditBase::Missing => return Err(Retraction::BaseMissing),
            EditBase::LastProven => self.content(&edit.path).ok_or(Retraction::NoProvenBase)?,
        };
        let text = apply_recorded_edit(base, &edit.change).map_err(Retraction::Edit)?;
        if let Some(hunks) = &edit.diff
            && !patch_gives(base, hunks, &text)
        {
            return Err(Retraction::DiffMismatch);
        }
        if let Some(shown) = &edit.shown {
            if shown.first_line == 0 {
                return Err(Retraction::ShownMismatch { line: 0 });
            }
            let mut lines = text.split('\n').skip(to_usize(shown.first_line - 1));
            for (k, expected) in shown.lines.iter().enumerate() {
                if lines.next() != Some(expected.as_str()) {
                    return Err(Retraction::ShownMismatch {
                        line: shown.first_line + k as u64,
                    });
                }
            }
        }
        Ok(Cow::Owned(text))
    }

    /// Feeds every message of `messages`, indexed from 0.
    pub fn run(&mut self, messages: &'a [Message]) {
        for (index, message) in messages.iter().enumerate() {
            self.step(index, message);
        }
    }

    /// The whole content proven for `path` so far.
    pub fn content(&self, path: &str) -> Option<&str> {
        match self.paths.get(path)? {
            Entry::Proven { content, .. } => Some(content),
            Entry::Retracted { .. } | Entry::Inert => None,
        }
    }

    /// The record for `path`, hashed now; `None` when no whole content is proven for it.
    pub fn record(&self, path: &str) -> Option<FileRecord> {
        let (&path, entry) = self.paths.get_key_value(path)?;
        to_record(path, entry)
    }

    /// The state of every path replay has seen, sorted by path.
    pub fn states(&self) -> impl Iterator<Item = (&str, PathState)> + '_ {
        self.paths.iter().map(|(&path, entry)| {
            let state = match entry {
                Entry::Proven { .. } => PathState::Proven,
                Entry::Retracted { reason, index } => PathState::Retracted {
                    reason: reason.clone(),
                    index: *index,
                },
                Entry::Inert => PathState::Inert,
            };
            (path, state)
        })
    }

    /// How many paths are proven, retracted and inert now.
    pub fn counts(&self) -> ReplayCounts {
        let mut counts = ReplayCounts::default();
        for entry in self.paths.values() {
            match entry {
                Entry::Proven { .. } => counts.proven += 1,
                Entry::Retracted { .. } => counts.retracted += 1,
                Entry::Inert => counts.inert += 1,
            }
        }
        counts
    }

    /// The records of every path with a proven content, sorted by path (bytewise), hashed now.
    pub fn records(&self) -> Vec<FileRecord> {
        self.paths
            .iter()
            .filter_map(|(&path, entry)| to_record(path, entry))
            .collect()
    }
}

fn to_record(path: &str, entry: &Entry<'_>) -> Option<FileRecord> {
    match entry {
        Entry::Proven { content, at, index } => Some(FileRecord::new(
            path.to_string(),
            content.to_string(),
            at.map(str::to_string),
            *index,
        )),
        Entry::Retracted { .. } | Entry::Inert => None,
    }
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Whether `path` is absolute as the tool recorded it: a Unix path (`/…`), a Windows drive path
/// (`C:\…`, `C:/…`) or a UNC path (`\\server\…`).
pub fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    match b {
        [b'/', ..] | [b'\\', b'\\', ..] => true,
        [drive, b':', b'\\' | b'/', ..] => drive.is_ascii_alphabetic(),
        _ => false,
    }
}

/// Per file, the last whole content the transcript proves, sorted by path (SPEC seed 001).
///
/// Reads the whole transcript in order, across compaction boundaries and summaries (they are
/// not tool results). See [`Replay::step`] for the rules; at most one record per path.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, ToolDetails};
/// use rehydrate_replay::file_records;
///
/// let mut write = Message::tool_result("t1", "ok");
/// write.details = Some(Box::new(ToolDetails::Write {
///     path: "/a/x".into(),
///     content: "v2".into(),
/// }));
/// let records = file_records(&[write]);
/// assert_eq!(records.len(), 1);
/// assert_eq!(records[0].content, "v2");
/// ```
pub fn file_records(messages: &[Message]) -> Vec<FileRecord> {
    let mut replay = Replay::new();
    replay.run(messages);
    replay.records()
}
