//! Typed tool-result details: what a tool result recorded about a file.
//!
//! Importers fill [`Message::details`](crate::Message::details) from a tool's own result card
//! (Claude Code's `toolUseResult`, SWE-agent's editor arguments and observations), so that
//! transcript replay (SPEC seed 001, `rehydrate-replay`) reads typed values and never raw JSON.
//! A tool result without details is "anything else": it neither proves nor changes a file.
//! The canonical serde form is documented in docs/FORMATS.md, "Tool-result details".

/// What one tool result recorded about a file.
///
/// Paths are kept exactly as the tool recorded them (absolute or not); contents are the decoded
/// text the tool served or persisted. Serialized with a `type` tag in snake case.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolDetails {
    /// A read that served the file's whole text.
    WholeRead {
        /// The file's path.
        path: String,
        /// The whole text served.
        content: String,
    },
    /// A read that served only some lines of a text file (1-based `start_line`, `num_lines`
    /// lines of `total_lines`); proves nothing about the whole file.
    PartialRead {
        /// The file's path.
        path: String,
        /// The first line served, 1-based.
        start_line: u64,
        /// The number of lines served.
        num_lines: u64,
        /// The number of lines in the file.
        total_lines: u64,
    },
    /// An image, PDF or notebook read: no text of the file is served as such.
    MediaRead {
        /// The file's path.
        path: String,
        /// What was read.
        media: Media,
    },
    /// A write of the whole file.
    Write {
        /// The file's path.
        path: String,
        /// The text persisted.
        content: String,
    },
    /// One edit (Claude Code's `Edit`, SWE-agent's `str_replace`).
    Edit(FileEdit),
    /// Several edits of one file applied in order (Claude Code's `MultiEdit`).
    MultiEdit(FileEdit),
    /// A notebook edit: the file changed in a way replay does not recompute.
    NotebookEdit {
        /// The notebook's path.
        path: String,
    },
    /// A tool that changes a file, whose record does not say what it wrote (a malformed or
    /// missing card, an editor command replay does not model). Replay retracts the path.
    UnprovenChange {
        /// The file's path.
        path: String,
        /// Why the record proves nothing, for diagnostics (one line).
        reason: String,
    },
    /// A patch that changed several files at once (Codex's `apply_patch`): each file's own
    /// details, in the patch's order. Importers put only single-file details here (a `Write`,
    /// an `Edit` or an `UnprovenChange`), never a patch.
    Patch {
        /// The details of each file the patch touched.
        files: Vec<ToolDetails>,
    },
}

impl ToolDetails {
    /// The path the details are about; for a [`ToolDetails::Patch`], its first file's (empty
    /// when it has none): see [`ToolDetails::files`] for each.
    pub fn path(&self) -> &str {
        match self {
            ToolDetails::WholeRead { path, .. }
            | ToolDetails::PartialRead { path, .. }
            | ToolDetails::MediaRead { path, .. }
            | ToolDetails::Write { path, .. }
            | ToolDetails::NotebookEdit { path }
            | ToolDetails::UnprovenChange { path, .. } => path,
            ToolDetails::Edit(edit) | ToolDetails::MultiEdit(edit) => &edit.path,
            ToolDetails::Patch { files } => files.first().map_or("", ToolDetails::path),
        }
    }

    /// The details of each file: a [`ToolDetails::Patch`]'s files, or these details alone.
    ///
    /// ```
    /// use rehydrate_model::ToolDetails;
    ///
    /// let write = |path: &str| ToolDetails::Write { path: path.into(), content: "x\n".into() };
    /// let patch = ToolDetails::Patch { files: vec![write("/a"), write("/b")] };
    /// let paths: Vec<&str> = patch.files().iter().map(ToolDetails::path).collect();
    /// assert_eq!(paths, ["/a", "/b"]);
    /// assert_eq!(write("/c").files().len(), 1);
    /// ```
    pub fn files(&self) -> &[ToolDetails] {
        match self {
            ToolDetails::Patch { files } => files,
            _ => std::slice::from_ref(self),
        }
    }
}

/// What a media read served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Media {
    /// An image.
    Image,
    /// A document such as a PDF.
    Document,
    /// A notebook, served as cells.
    Notebook,
}

/// An edit as its tool recorded it: the text it started from and the change it made.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEdit {
    /// The file's path.
    pub path: String,
    /// The whole text the edit started from.
    pub base: EditBase,
    /// The change, applied to the base.
    pub change: EditChange,
    /// Lines of the result the tool showed (SWE-agent's snippet), which a recomputed result
    /// must agree with; `None` when the tool showed none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<ShownLines>,
    /// The tool's own line diff from the base to the result (Claude Code's `structuredPatch`
    /// beside the strings it applied), which a recomputed result must agree with; `None` when
    /// the record has none (or it is the change itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<Vec<PatchHunk>>,
}

/// The text an edit started from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum EditBase {
    /// The whole pre-edit text, recorded with the edit (Claude Code's `originalFile`).
    Recorded {
        /// The text.
        text: String,
    },
    /// The tool had a base, but the record does not carry it (null, offloaded elsewhere):
    /// the edit cannot be recomputed.
    Missing,
    /// The tool edited the file as it stood and recorded no base (SWE-agent's editor): the
    /// base is the last whole content the transcript proved for the path, if any.
    LastProven,
}

/// The change an edit made to its base.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum EditChange {
    /// String replacements applied in order to a running text.
    Replacements {
        /// The replacements, in order.
        edits: Vec<Replacement>,
        /// When set, the tool expanded tabs to this many columns (Python's `str.expandtabs`) in
        /// the running text and in both strings of every replacement before replacing (SWE-agent's
        /// editor does, with 8).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expand_tabs: Option<u32>,
        /// When set, the tool read the base with universal newlines (Python's default text
        /// mode: `\r\n` and lone `\r` become `\n`) before replacing, and wrote that text back
        /// (SWE-agent's editor does).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        universal_newlines: bool,
    },
    /// A line patch from the base to the result (Claude Code's `structuredPatch`), used when
    /// the person changed the proposed edit before it was applied (`userModified`).
    Patch {
        /// The hunks, in file order.
        hunks: Vec<PatchHunk>,
    },
}

/// One string replacement.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replacement {
    /// The text replaced.
    pub old: String,
    /// The text put in its place.
    pub new: String,
    /// Replace every occurrence rather than exactly one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replace_all: bool,
}

/// One hunk of a line patch, in unified-diff terms.
///
/// Each entry of `lines` starts with `' '` (context), `'-'` (removed) or `'+'` (added) followed
/// by the line without its line break, or is `"\ No newline at end of file"`, which marks the line
/// before it as the last of its side with no line break.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatchHunk {
    /// The first line of the hunk in the base, 1-based (0 for an insertion into an empty base).
    pub old_start: u64,
    /// The number of base lines the hunk covers.
    pub old_lines: u64,
    /// The first line of the hunk in the result, 1-based.
    pub new_start: u64,
    /// The number of result lines the hunk covers.
    pub new_lines: u64,
    /// The hunk's lines.
    pub lines: Vec<String>,
}

/// Consecutive lines of an edit's result, as the tool showed them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShownLines {
    /// The number of the first line, 1-based.
    pub first_line: u64,
    /// The lines, without line breaks.
    pub lines: Vec<String>,
}
