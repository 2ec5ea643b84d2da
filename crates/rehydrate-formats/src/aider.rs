//! The Aider chat history importer (docs/FORMATS.md, "Aider"): `.aider.chat.history.md`, a
//! Markdown log of every session started in a repository, and the documentation pages that
//! show such transcripts inside `<div class="chat-transcript">` wrappers.
//!
//! Aider writes the log as the terminal shows it (`aider/io.py`): a `# aider chat started at`
//! header per session, each input line prefixed `#### `, each line of its own output prefixed
//! `> `, the model's replies as they are. It records no tool calls, no system prompt and none
//! of the file contents it sent. The import keeps what the log says:
//!
//! - an input is a user message (`<blank>` is an empty one); `/ask`, `/code`, `/architect` and
//!   `/context` with a text send that text, a user message marked with the command; any other
//!   command is no message to the model but a terminal action: an observation of the command
//!   and what it printed;
//! - a reply is an assistant message, its edit blocks left in the text as the model wrote them;
//! - a block of `> ` lines is an observation (a user message carrying tool output): what the
//!   terminal printed between the model's turns, some of which Aider sent back to the model
//!   (failed edit blocks, lint and test output) and most of which it did not.

use std::path::Path;

use rehydrate_model::{Message, Role, ToolDetails};

use crate::aider_edits::{self, Edit};
use crate::{Error, Format, Import, SessionEntry, Warning, keys};

/// The line that starts a session, followed by the local time.
const HEADER: &str = "# aider chat started at ";

/// What opens a documentation page's transcript.
const TRANSCRIPT_OPEN: &str = "<div class=\"chat-transcript\"";

/// Commands whose text Aider sends to the model as the user's message.
const MESSAGE_COMMANDS: [&str; 4] = ["/ask", "/code", "/architect", "/context"];

/// Whether `text` (not JSON) is an Aider chat history or a page with a chat transcript
/// (detection rule 7): a line starts with [`HEADER`] or with a transcript wrapper.
pub(crate) fn is_history(text: &str) -> bool {
    has_header(text) || is_page(text)
}

/// Whether a line of `text` starts with [`HEADER`].
fn has_header(text: &str) -> bool {
    text.starts_with(HEADER) || text.contains(&format!("\n{HEADER}"))
}

/// Whether `text` is a documentation page: no session header, and a line that starts with a
/// transcript wrapper (a chat history may quote one inside a session).
fn is_page(text: &str) -> bool {
    !has_header(text)
        && text.match_indices(TRANSCRIPT_OPEN).any(|(at, _)| {
            text[..at]
                .rsplit('\n')
                .next()
                .is_some_and(|l| l.trim().is_empty())
        })
}

/// The lines of `text` with their 1-based numbers, without a carriage return before the line
/// feed.
/// A carriage return alone also ends a line (a file written with old Mac line ends); the
/// numbers count every line so ended.
fn numbered(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .flat_map(|line| line.strip_suffix('\r').unwrap_or(line).split('\r'))
        .enumerate()
        .map(|(k, line)| (k + 1, line))
}

/// A session's lines: its header line (with the time) if it has one, then its body.
struct Span<'t> {
    /// The header's line and time; `None` for the lines before the first header.
    header: Option<(usize, &'t str)>,
    /// The body's lines with their numbers.
    lines: Vec<(usize, &'t str)>,
}

impl Span<'_> {
    /// Whether the lines before the first header hold nothing but blank lines and an editor
    /// mode line (`-*- mode: fundamental -*-`, as Aider starts the file): no session.
    fn is_empty_preamble(&self) -> bool {
        self.header.is_none()
            && self.lines.iter().all(|(_, l)| {
                let l = l.trim();
                l.is_empty() || (l.starts_with("-*-") && l.ends_with("-*-"))
            })
    }
}

/// What a page holds besides its transcripts: front matter and prose lines, which are no part
/// of a session.
#[derive(Default)]
struct PageRest {
    front_matter: bool,
    prose: usize,
}

/// The lines of `text` that are the log: all of a chat history; only those inside the
/// transcript wrappers of a page (and what else the page holds).
fn log_lines(text: &str) -> (Vec<(usize, &str)>, Option<PageRest>) {
    if !is_page(text) {
        return (numbered(text).collect(), None);
    }
    let mut rest = PageRest::default();
    let all: Vec<(usize, &str)> = numbered(text).collect();
    let mut lines = all.as_slice();
    // Front matter: a `---` line, then lines up to the next `---` line (without one, the page
    // has no front matter).
    if lines.first().is_some_and(|(_, l)| l.trim_end() == "---")
        && let Some(end) = lines
            .iter()
            .skip(1)
            .position(|(_, l)| l.trim_end() == "---")
    {
        rest.front_matter = true;
        lines = &lines[end + 2..];
    }
    let mut out = Vec::new();
    let mut inside = false;
    let mut fenced = false;
    for &(n, line) in lines {
        let trimmed = line.trim();
        if !inside && trimmed.starts_with(TRANSCRIPT_OPEN) {
            inside = true;
            fenced = false;
            // What follows the opening tag on its line is part of the log.
            let after = trimmed.split_once('>').map_or("", |(_, after)| after);
            if !after.trim().is_empty() {
                out.push((n, after));
            }
        } else if inside && !fenced && trimmed.ends_with("</div>") {
            inside = false;
            let before = trimmed.strip_suffix("</div>").unwrap_or_default();
            if !before.trim().is_empty() {
                out.push((n, before));
            }
            // Transcripts are one log: a blank line keeps the next from running on.
            out.push((n, ""));
        } else if inside {
            // A closing tag inside a fenced block of a reply is the reply's text.
            fenced ^= trimmed.starts_with("```");
            out.push((n, line));
        } else if !trimmed.is_empty() {
            rest.prose += 1;
        }
    }
    (out, Some(rest))
}

/// The sessions of `lines`: the preamble before the first header (unless it is empty), then
/// one per header.
fn spans<'t>(lines: &[(usize, &'t str)]) -> Vec<Span<'t>> {
    let mut out = vec![Span {
        header: None,
        lines: Vec::new(),
    }];
    for &(n, line) in lines {
        if let Some(time) = line.strip_prefix(HEADER) {
            out.push(Span {
                header: Some((n, time.trim())),
                lines: Vec::new(),
            });
        } else if let Some(last) = out.last_mut() {
            last.lines.push((n, line));
        }
    }
    if out.first().is_some_and(Span::is_empty_preamble) {
        out.remove(0);
    }
    out
}

/// The sessions of a chat history: one entry per header (labelled with its time), and one for
/// lines before the first header that are more than an editor mode line.
pub(crate) fn sessions(text: &str) -> Vec<SessionEntry> {
    let (lines, _) = log_lines(text);
    let spans = spans(&lines);
    if spans.is_empty() {
        return vec![SessionEntry {
            number: 1,
            line: 1,
            label: String::new(),
        }];
    }
    spans
        .iter()
        .enumerate()
        .map(|(k, span)| SessionEntry {
            number: k + 1,
            line: span
                .header
                .map(|(n, _)| n)
                .or_else(|| span.lines.first().map(|&(n, _)| n))
                .unwrap_or(1),
            label: span.header.map(|(_, t)| t.to_string()).unwrap_or_default(),
        })
        .collect()
}

/// Imports session `session` (1-based; `None` for a file that holds one) of an Aider chat
/// history or page.
pub(crate) fn import(path: &Path, text: &str, session: Option<usize>) -> Result<Import, Error> {
    let (lines, page) = log_lines(text);
    let mut spans = spans(&lines);
    let index = crate::session_index(path, Format::Aider, spans.len(), session)?;
    let span = (index < spans.len()).then(|| spans.swap_remove(index));
    Ok(import_span(span, file_warnings(text, page)))
}

/// Imports every session of an Aider chat history or page, in order, reading the file once
/// (what [`import`] of each session number gives).
pub(crate) fn import_all(text: &str) -> Vec<Import> {
    let (lines, page) = log_lines(text);
    let spans = spans(&lines);
    let warnings = file_warnings(text, page);
    if spans.is_empty() {
        return vec![import_span(None, warnings)];
    }
    spans
        .into_iter()
        .map(|span| import_span(Some(span), warnings.clone()))
        .collect()
}

/// The warnings every session of the file gets: a text without a header, a page's text
/// outside its transcripts.
fn file_warnings(text: &str, page: Option<PageRest>) -> Vec<Warning> {
    let mut warnings = Vec::new();
    if page.is_none() && !has_header(text) {
        warnings.push(Warning::new(
            "no `# aider chat started at` header and no chat transcript: the whole text is read as one session",
        ));
    }
    if let Some(rest) = page
        && (rest.front_matter || rest.prose > 0)
    {
        let front = if rest.front_matter {
            "front matter and "
        } else {
            ""
        };
        let lines = if rest.prose == 1 { "line" } else { "lines" };
        warnings.push(Warning::new(format!(
            "the page's {front}{} {lines} of text outside its chat transcripts are not part of the session",
            rest.prose
        )));
    }
    warnings
}

/// The session of `span` (`None`: the file holds none), after the file's `warnings`.
fn import_span(span: Option<Span<'_>>, mut warnings: Vec<Warning>) -> Import {
    let Some(span) = span else {
        // A file of only blank lines and a mode line: no session, no messages.
        warnings.push(Warning::new("the file holds no session"));
        return Import {
            format: Format::Aider,
            messages: Vec::new(),
            warnings,
        };
    };
    let mut reader = Reader::default();
    reader.read(&span);
    let mut messages = reader.messages;
    if let Some(first) = messages.first_mut() {
        if let Some((_, time)) = span.header {
            first
                .metadata
                .insert(keys::AIDER_STARTED.into(), time.to_string());
        }
        for (key, value) in [
            (keys::AIDER_VERSION, reader.version),
            (keys::AIDER_MODEL, reader.first_model),
            (keys::AIDER_EDIT_FORMAT, reader.first_edit_format),
        ] {
            if let Some(value) = value {
                first.metadata.insert(key.into(), value);
            }
        }
    } else {
        let line = span
            .header
            .map(|(n, _)| n)
            .or_else(|| span.lines.first().map(|&(n, _)| n))
            .unwrap_or(1);
        warnings.push(Warning::at_line(line, "the session has no messages"));
    }
    Import {
        format: Format::Aider,
        messages,
        warnings,
    }
}

/// What kind of log line a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `#### ` input.
    Input,
    /// `> ` output.
    Output,
    /// Blank.
    Blank,
    /// A reply's text.
    Reply,
}

fn kind(line: &str) -> Kind {
    if line.trim().is_empty() {
        Kind::Blank
    } else if line == "####" || line.starts_with("#### ") {
        Kind::Input
    } else if line == ">" || line.starts_with("> ") {
        Kind::Output
    } else {
        Kind::Reply
    }
}

/// The end (exclusive) of the run of `want` lines from `start`: lines of that kind with the
/// blank lines between them, up to the last line of the kind.
fn run_end(lines: &[(usize, &str)], start: usize, want: Kind) -> usize {
    let mut end = start;
    for (j, &(_, line)) in lines.iter().enumerate().skip(start) {
        match kind(line) {
            k if k == want => end = j + 1,
            Kind::Blank => {}
            _ => break,
        }
    }
    end
}

/// A `#### ` or `> ` line without its prefix and the two spaces Aider ends it with.
fn unprefixed(line: &str, prefix: &str) -> String {
    let text = line.strip_prefix(prefix).unwrap_or_default();
    let text = text.strip_suffix("  ").unwrap_or(text);
    if text.trim().is_empty() {
        String::new()
    } else {
        text.to_string()
    }
}

/// Reads one session's lines into messages.
#[derive(Default)]
struct Reader {
    messages: Vec<Message>,
    /// The first `Aider v…` line's version.
    version: Option<String>,
    /// The model and edit format of the first model line.
    first_model: Option<String>,
    first_edit_format: Option<String>,
    /// The edit format in force (a later `/model` or `/chat-mode` prints a new model line).
    edit_format: Option<String>,
    /// Files the session created empty (`Creating empty file X`, as Aider printed the path).
    created: Vec<String>,
    /// Files an edit was applied to so far.
    applied: Vec<String>,
    /// The repository's absolute root, once a file created by its absolute path has had an
    /// edit applied by its relative one: relative paths are resolved against it.
    root: Option<String>,
    /// A command whose output block comes next: its text and line.
    command: Option<(String, usize)>,
}

impl Reader {
    fn read(&mut self, span: &Span<'_>) {
        let lines = &span.lines;
        let mut k = 0;
        while k < lines.len() {
            let (n, line) = lines[k];
            match kind(line) {
                Kind::Blank => k += 1,
                Kind::Input => {
                    let mut text = Vec::new();
                    while k < lines.len() && kind(lines[k].1) == Kind::Input {
                        text.push(unprefixed(lines[k].1, "####"));
                        k += 1;
                    }
                    let text = text
                        .iter()
                        .map(|l| l.strip_prefix(' ').unwrap_or(l))
                        .collect::<Vec<_>>()
                        .join("\n");
                    self.input(n, text);
                }
                Kind::Output => {
                    // Output lines, with the blank lines between them kept as empty lines.
                    let end = run_end(lines, k, Kind::Output);
                    let text: Vec<String> = lines[k..end]
                        .iter()
                        .map(|(_, l)| {
                            let l = unprefixed(l, ">");
                            l.strip_prefix(' ').map(str::to_string).unwrap_or(l)
                        })
                        .collect();
                    self.output(n, text);
                    k = end;
                }
                Kind::Reply => {
                    let end = run_end(lines, k, Kind::Reply);
                    let text: Vec<&str> = lines[k..end].iter().map(|&(_, l)| l).collect();
                    self.flush_command();
                    let mut m = Message::text(Role::Assistant, text.join("\n"));
                    m.metadata.insert(keys::AIDER_LINE.into(), n.to_string());
                    self.messages.push(m);
                    k = end;
                }
            }
        }
        self.flush_command();
    }

    /// An input of the user's, `text` without prefixes, from line `n`.
    fn input(&mut self, n: usize, text: String) {
        self.flush_command();
        let text = if text == "<blank>" {
            String::new()
        } else {
            text
        };
        // `!command` is Aider's shortcut for `/run command`.
        if text.starts_with('!') {
            self.command = Some((text.clone(), n));
            return;
        }
        if text.starts_with('/') {
            let (command, rest) = text
                .split_once(char::is_whitespace)
                .unwrap_or((text.as_str(), ""));
            if !MESSAGE_COMMANDS.contains(&command) || rest.trim().is_empty() {
                self.command = Some((text.clone(), n));
                return;
            }
            let mut m = Message::text(Role::User, rest.trim_start().to_string());
            m.metadata
                .insert(keys::AIDER_COMMAND.into(), command.to_string());
            m.metadata.insert(keys::AIDER_LINE.into(), n.to_string());
            self.messages.push(m);
            return;
        }
        let mut m = Message::text(Role::User, text);
        m.metadata.insert(keys::AIDER_LINE.into(), n.to_string());
        self.messages.push(m);
    }

    /// A block of output lines from line `n`: an observation, with the command it answers.
    fn output(&mut self, n: usize, lines: Vec<String>) {
        self.note(&lines);
        let details = self.details(&lines);
        let (text, line, command) = match self.command.take() {
            Some((command, at)) => {
                let mut text = command.clone();
                for l in &lines {
                    text.push('\n');
                    text.push_str(l);
                }
                (text, at, Some(command))
            }
            None => (lines.join("\n"), n, None),
        };
        self.observation(text, line, command, details);
    }

    /// A command with no output block after it: an observation of the command alone.
    fn flush_command(&mut self) {
        if let Some((command, at)) = self.command.take() {
            self.observation(command.clone(), at, Some(command), None);
        }
    }

    fn observation(
        &mut self,
        text: String,
        line: usize,
        command: Option<String>,
        details: Option<ToolDetails>,
    ) {
        let mut m = Message::text(Role::User, text);
        m.observation = true;
        m.metadata.insert(keys::AIDER_LINE.into(), line.to_string());
        if let Some(command) = command {
            let name = if command.starts_with('!') {
                "!".to_string()
            } else {
                command
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string()
            };
            m.metadata.insert(keys::AIDER_COMMAND.into(), name);
        }
        m.details = details.map(Box::new);
        self.messages.push(m);
    }

    /// Takes note of the banner's version and model lines and of files created empty.
    fn note(&mut self, lines: &[String]) {
        for line in lines {
            if let Some(version) = line.strip_prefix("Aider v") {
                self.version
                    .get_or_insert_with(|| version.trim().to_string());
            } else if let Some(rest) = ["Models: ", "Model: ", "Main model: "]
                .iter()
                .find_map(|p| line.strip_prefix(p))
                && let Some((model, format)) = rest.split_once(" with ")
                && let Some(format) = format.split(" edit format").next()
                && format.len() < rest.len()
            {
                let format = format.split_whitespace().last().unwrap_or_default();
                if !model.trim().is_empty() {
                    self.first_model
                        .get_or_insert_with(|| model.trim().to_string());
                }
                if !format.is_empty() {
                    self.first_edit_format
                        .get_or_insert_with(|| format.to_string());
                    self.edit_format = Some(format.to_string());
                }
            } else if let Some(file) = line.strip_prefix("Creating empty file ") {
                self.created.push(file.trim().to_string());
            }
        }
    }

    /// What an output block proves of the files its `Applied edit to X` lines name, from the
    /// reply right before it (docs/FORMATS.md, "Aider", "Replay details").
    fn details(&mut self, lines: &[String]) -> Option<ToolDetails> {
        let applied: Vec<String> = lines
            .iter()
            .filter_map(|l| l.strip_prefix("Applied edit to "))
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        if applied.is_empty() {
            return None;
        }
        let reply = self
            .messages
            .last()
            .filter(|m| m.role == Role::Assistant)
            .and_then(Message::content_text)
            .unwrap_or_default();
        let edits = aider_edits::edits(reply);
        let whole_format = self.edit_format.as_deref().is_none_or(|f| f == "whole");
        for path in &applied {
            if self.root.is_none()
                && let Some(created) = self.created.iter().find(|c| {
                    c.starts_with('/') && !path.starts_with('/') && c.ends_with(&format!("/{path}"))
                })
            {
                self.root = Some(created[..created.len() - path.len() - 1].to_string());
            }
        }
        let mut files = Vec::new();
        for path in &applied {
            let mine: Vec<&Edit> = edits.iter().filter(|e| e.path() == path).collect();
            let created_empty = self
                .created
                .iter()
                .any(|c| c == path || c.ends_with(&format!("/{path}")));
            let untouched = !self.applied.contains(path);
            let proven = match mine[..] {
                [Edit::Whole { content, .. }] if whole_format => Some(content.clone()),
                [
                    Edit::Replace {
                        search, replace, ..
                    },
                ] if search.trim().is_empty() && created_empty && untouched => {
                    Some(replace.clone())
                }
                _ => None,
            };
            let path = match &self.root {
                Some(root) if !path.starts_with('/') => format!("{root}/{path}"),
                _ => path.clone(),
            };
            files.push(match proven {
                Some(content) => ToolDetails::Write { path, content },
                None => ToolDetails::UnprovenChange {
                    path,
                    reason: "an Aider edit is applied to text the log does not show".into(),
                },
            });
        }
        self.applied.extend(applied);
        match files.len() {
            1 => files.pop(),
            _ => Some(ToolDetails::Patch { files }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(import: &Import) -> Vec<(Role, bool, &str)> {
        import
            .messages
            .iter()
            .map(|m| (m.role, m.observation, m.content_text().unwrap_or_default()))
            .collect()
    }

    #[test]
    fn a_session_reads_inputs_replies_and_output_blocks() {
        let log = "\n# aider chat started at 2024-08-05 19:33:32\n\n> aider a.py  \n> Aider v0.47.2-dev  \n> Model: gpt-4o with whole edit format  \n\n#### make it say hi  \n#### please  \n\nHere it is:\n\na.py\n```\nprint('hi')\n```\n\n> Applied edit to a.py  \n> Commit 1234567 say hi  \n\n#### /undo  \n\n#### <blank>  \n";
        let got = import(Path::new("h.md"), log, None).unwrap();
        assert_eq!(
            texts(&got),
            [
                (
                    Role::User,
                    true,
                    "aider a.py\nAider v0.47.2-dev\nModel: gpt-4o with whole edit format"
                ),
                (Role::User, false, "make it say hi\nplease"),
                (
                    Role::Assistant,
                    false,
                    "Here it is:\n\na.py\n```\nprint('hi')\n```"
                ),
                (
                    Role::User,
                    true,
                    "Applied edit to a.py\nCommit 1234567 say hi"
                ),
                (Role::User, true, "/undo"),
                (Role::User, false, ""),
            ]
        );
        let first = &got.messages[0].metadata;
        assert_eq!(first[keys::AIDER_STARTED], "2024-08-05 19:33:32");
        assert_eq!(first[keys::AIDER_VERSION], "0.47.2-dev");
        assert_eq!(first[keys::AIDER_MODEL], "gpt-4o");
        assert_eq!(first[keys::AIDER_EDIT_FORMAT], "whole");
        assert_eq!(first[keys::AIDER_LINE], "4");
        assert_eq!(
            got.messages[3].details.as_deref(),
            Some(&ToolDetails::Write {
                path: "a.py".into(),
                content: "print('hi')\n".into()
            })
        );
        assert_eq!(got.messages[4].metadata[keys::AIDER_COMMAND], "/undo");
        assert!(got.warnings.is_empty());
    }
}
