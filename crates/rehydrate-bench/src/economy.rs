//! The economy table (issue 17): for each corpus session over [`LARGE_SESSION_TOKENS`] tokens,
//! its wire bytes and o200k_base tokens, and what our two presets and the peer with every lever
//! on save of them.
//!
//! Each session is projected once per policy, as `rehydrate reduce` projects a whole file: a
//! fresh [`Reducer`], one [`Reducer::project`] of every message, then [`Reducer::close`]; the
//! peer gets one `supercode_reduce::project_messages` of the same messages with an empty log,
//! under [`peer_policy_all_levers`]. Every view is measured the same way: the sum of
//! [`Message::wire_len`] (the peer's view converted back with [`from_peer`]) and of its tokens
//! as the CLI counts them ([`TokenCounter`]). Nothing here is timed.
//!
//! The target: our aggressive preset ahead of the peer on every session, that is, its view
//! smaller in wire bytes and in tokens ([`EconomyRow::target_met`]). It is reported, not
//! enforced.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use rehydrate_model::Message;
use rehydrate_reduce::{Reducer, ReductionPolicy};

use crate::error::Error;
use crate::peer::{from_peer, peer_policy_all_levers, to_peer_all};
use crate::tokens::TokenCounter;
use crate::workload::collect_files;

/// Sessions over this many tokens before reduction are the long ones the table reports (as in
/// `cargo xtask corpus`, "savings by kind").
pub const LARGE_SESSION_TOKENS: usize = 50_000;

/// The corpus subdirectories whose sessions the table reads, as `cargo xtask corpus` does.
const SESSION_DIRS: [&str; 2] = ["claude-code", "swe-agent"];

/// The columns of the markdown table ([`Economy::markdown`]).
const COLUMNS: usize = 12;

/// The extensions of the session files under [`SESSION_DIRS`].
const SESSION_EXTENSIONS: [&str; 2] = ["jsonl", "traj"];

/// The size of a list of messages: its wire bytes and its tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Size {
    /// The sum of [`Message::wire_len`], in bytes.
    pub wire_bytes: usize,
    /// o200k_base tokens, as [`TokenCounter::count`] counts them.
    pub tokens: usize,
}

impl Size {
    /// The size of `messages`, tokens counted with `counter`.
    pub fn of<'a>(
        messages: impl IntoIterator<Item = &'a Message>,
        counter: &mut TokenCounter,
    ) -> Size {
        let messages: Vec<&Message> = messages.into_iter().collect();
        Size {
            wire_bytes: messages.iter().map(|m| m.wire_len()).sum(),
            tokens: counter.count(messages),
        }
    }
}

/// One session's line of the table: its size before, and the size of each view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EconomyRow {
    /// The session, as its path under the corpus directory.
    pub session: String,
    /// Messages imported.
    pub messages: usize,
    /// The imported messages.
    pub before: Size,
    /// The view under `ReductionPolicy::default()`.
    pub default: Size,
    /// The view under `ReductionPolicy::aggressive()`.
    pub aggressive: Size,
    /// The peer's view under [`peer_policy_all_levers`].
    pub peer: Size,
}

impl EconomyRow {
    /// Projects `messages` under our two presets and the peer with every lever on, once each,
    /// and measures every view (see the module docs).
    pub fn measure(session: &str, messages: &[Message], counter: &mut TokenCounter) -> EconomyRow {
        let ours = |policy: ReductionPolicy, counter: &mut TokenCounter| {
            let mut reducer = Reducer::new(policy);
            reducer.project(messages.iter().cloned());
            reducer.close();
            Size::of(reducer.view().iter(), counter)
        };
        let default = ours(ReductionPolicy::default(), counter);
        let aggressive = ours(ReductionPolicy::aggressive(), counter);
        let (peer_view, _) = supercode_reduce::project_messages(
            &to_peer_all(messages),
            &peer_policy_all_levers(),
            &supercode_reduce::ReductionLog::default(),
        );
        let peer_view: Vec<Message> = peer_view.iter().map(from_peer).collect();
        EconomyRow {
            session: session.to_owned(),
            messages: messages.len(),
            before: Size::of(messages, counter),
            default,
            aggressive,
            peer: Size::of(&peer_view, counter),
        }
    }

    /// Whether our aggressive preset is ahead of the peer: its view is smaller in wire bytes
    /// and in tokens.
    pub fn target_met(&self) -> bool {
        self.aggressive.wire_bytes < self.peer.wire_bytes
            && self.aggressive.tokens < self.peer.tokens
    }
}

/// The economy table: the rows of the sessions over a token bound, with what was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Economy {
    /// Where the sessions came from.
    pub origin: String,
    /// One line per session that could not be read or imported.
    pub notices: Vec<String>,
    /// Sessions imported.
    pub sessions: usize,
    /// The bound: a session is in the table when it has more tokens than this before reduction.
    pub min_tokens: usize,
    /// The sessions over the bound, in the order given.
    pub rows: Vec<EconomyRow>,
}

impl Economy {
    /// Reads every session file (`*.jsonl`, `*.traj`, recursively, sorted by path) under
    /// `<dir>/claude-code` and `<dir>/swe-agent`, imports each with its format detected, and
    /// measures those over [`LARGE_SESSION_TOKENS`] tokens ([`Economy::of`]).
    ///
    /// A file that cannot be read or imported is skipped and named in [`Economy::notices`].
    /// Returns `Ok(None)` when neither directory exists.
    ///
    /// # Errors
    ///
    /// [`Error::Read`] when a directory under them cannot be listed.
    pub fn load(dir: &Path) -> Result<Option<Economy>, Error> {
        let mut files = Vec::new();
        let mut found = false;
        for sub in SESSION_DIRS {
            let sessions = dir.join(sub);
            if sessions.is_dir() {
                found = true;
                collect_files(&sessions, &SESSION_EXTENSIONS, &mut files)?;
            }
        }
        if !found {
            return Ok(None);
        }
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
            match rehydrate_formats::import(&path, &bytes, None) {
                Ok(import) => sessions.push((shown, import.messages)),
                Err(err) => notices.push(format!("skipped {shown}: {err}")),
            }
        }
        let shown = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let mut economy = Economy::of(
            format!("corpus {}", shown.display()),
            &sessions,
            LARGE_SESSION_TOKENS,
        );
        economy.notices = notices;
        Ok(Some(economy))
    }

    /// The table of `sessions` (each a name and its messages): every session is counted, and
    /// each one over `min_tokens` tokens is measured ([`EconomyRow::measure`]).
    pub fn of(origin: String, sessions: &[(String, Vec<Message>)], min_tokens: usize) -> Economy {
        let mut counter = TokenCounter::new();
        let mut rows = Vec::new();
        for (name, messages) in sessions {
            if counter.count(messages) > min_tokens {
                rows.push(EconomyRow::measure(name, messages, &mut counter));
            }
        }
        Economy {
            origin,
            notices: Vec::new(),
            sessions: sessions.len(),
            min_tokens,
            rows,
        }
    }

    /// Sessions of the table on which the target is met ([`EconomyRow::target_met`]).
    pub fn met(&self) -> usize {
        self.rows.iter().filter(|row| row.target_met()).count()
    }

    /// The table in markdown: a heading line, one row per session (the size before, then what
    /// each view saves, with its share of the size before), and the target's tally.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Economy (issue 17): {} of {} sessions of the {} have over {} tokens (o200k_base). \
             Saved: what each view saves of the session's wire bytes and tokens. \
             Peer: supercode-reduce 0.5.144 with every lever on (keeps 512 bytes of a tool result over 1 KiB).",
            self.rows.len(),
            self.sessions,
            self.origin,
            self.min_tokens,
        );
        out.push('\n');
        out.push_str(
            "| session | messages | wire bytes | tokens | default: bytes saved | default: tokens saved \
             | aggressive: bytes saved | aggressive: tokens saved | peer: bytes saved | peer: tokens saved \
             | target | status |\n",
        );
        out.push('|');
        out.push_str(&"---|".repeat(COLUMNS));
        out.push('\n');
        for row in &self.rows {
            let cells = |after: Size| {
                format!(
                    "{} | {}",
                    saved(row.before.wire_bytes, after.wire_bytes),
                    saved(row.before.tokens, after.tokens)
                )
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | aggressive ahead of the peer | {} |",
                row.session,
                row.messages,
                row.before.wire_bytes,
                row.before.tokens,
                cells(row.default),
                cells(row.aggressive),
                cells(row.peer),
                if row.target_met() { "met" } else { "NOT MET" },
            );
        }
        if self.rows.is_empty() {
            let _ = writeln!(
                out,
                "| no session over {} tokens{} |",
                self.min_tokens,
                " |".repeat(COLUMNS - 1)
            );
        }
        let _ = writeln!(
            out,
            "\nTarget (issue 17): the aggressive preset ahead of the peer (a smaller view in wire bytes and in tokens) on every session: met on {} of {}.",
            self.met(),
            self.rows.len(),
        );
        out
    }
}

/// `before - after (share of before)`: `812 (81.2%)`; a negative saving when the view grew.
fn saved(before: usize, after: usize) -> String {
    let saved = before as i64 - after as i64;
    let share = if before == 0 {
        0.0
    } else {
        100.0 * saved as f64 / before as f64
    };
    format!("{saved} ({share:.1}%)")
}
