//! The file edits of an Aider reply (docs/FORMATS.md, "Aider", "Replay details"): the
//! SEARCH/REPLACE blocks of the diff edit format (and the ORIGINAL/UPDATED blocks of older
//! transcripts), and the one fenced file of a whole-format reply.
//!
//! The markers are Aider's own (`aider/coders/editblock_coder.py`): a head line of 5 to 9 `<`
//! then ` SEARCH` (or ` ORIGINAL`), a divider of 5 to 9 `=`, and an updated line of 5 to 9 `>`
//! then ` REPLACE` (or ` UPDATED`), each alone on its line but for trailing whitespace. The
//! file name is the line before the block's opening fence (the current form) or the line before
//! the head inside the fence (the older form); a block with neither edits the file named last.

/// One file edit a reply asks for. Texts are the block's lines, each ending in `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Edit {
    /// A whole-format reply: the file's new text.
    Whole { path: String, content: String },
    /// A SEARCH/REPLACE block: `search` replaced by `replace` (an empty `search` creates the
    /// file or appends to it).
    Replace {
        path: String,
        search: String,
        replace: String,
    },
}

impl Edit {
    /// The file the edit is for.
    pub(crate) fn path(&self) -> &str {
        match self {
            Edit::Whole { path, .. } | Edit::Replace { path, .. } => path,
        }
    }
}

/// Which marker a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Head,
    Divider,
    Updated,
}

/// The marker `line` is, if any.
fn marker(line: &str) -> Option<Marker> {
    let line = line.trim_end();
    let run = |c: u8| line.bytes().take_while(|&b| b == c).count();
    let (kind, count, words): (Marker, usize, &[&str]) = match line.bytes().next()? {
        b'<' => (Marker::Head, run(b'<'), &["SEARCH", "ORIGINAL"]),
        b'=' => (Marker::Divider, run(b'='), &[]),
        b'>' => (Marker::Updated, run(b'>'), &["REPLACE", "UPDATED"]),
        _ => return None,
    };
    if !(5..=9).contains(&count) {
        return None;
    }
    let rest = line.get(count..)?;
    let matches = if words.is_empty() {
        rest.is_empty()
    } else {
        rest.strip_prefix(' ')
            .is_some_and(|word| words.contains(&word))
    };
    matches.then_some(kind)
}

/// Whether `line` opens or closes a fenced code block.
fn is_fence(line: &str) -> bool {
    line.trim_start().starts_with("```")
}

/// A file name line as Aider writes it, without the decoration models add (`` ` ``, `*`, a
/// leading `#`, a trailing `:`); `None` when nothing is left.
fn file_name(line: &str) -> Option<String> {
    let name = line
        .trim()
        .trim_start_matches('#')
        .trim()
        .trim_matches(|c| c == '`' || c == '*')
        .trim_end_matches(':')
        .trim();
    (!name.is_empty() && marker(name).is_none() && !is_fence(name)).then(|| name.to_string())
}

/// The edits `reply` asks for, in order: its SEARCH/REPLACE blocks; when it has none and
/// exactly two fence lines with a file name before the first, the whole file between them.
/// An unfinished block (no divider or no updated line, as in a reply cut short) is not an edit.
pub(crate) fn edits(reply: &str) -> Vec<Edit> {
    let lines: Vec<&str> = reply.split('\n').collect();
    let mut out = Vec::new();
    let mut last_path: Option<String> = None;
    let mut any_marker = false;
    let mut k = 0;
    while k < lines.len() {
        if marker(lines[k]) != Some(Marker::Head) {
            any_marker |= marker(lines[k]).is_some();
            k += 1;
            continue;
        }
        any_marker = true;
        let before = k.checked_sub(1).map(|j| lines[j]);
        let named = match before {
            Some(prev) if is_fence(prev) => k
                .checked_sub(2)
                .and_then(|j| lines.get(j))
                .and_then(|l| file_name(l)),
            Some(prev) => file_name(prev),
            None => None,
        };
        if let Some(name) = named {
            last_path = Some(name);
        }
        let mut search = String::new();
        let mut replace = String::new();
        let mut j = k + 1;
        let mut in_replace = false;
        let mut done = false;
        while j < lines.len() {
            match (marker(lines[j]), in_replace) {
                (Some(Marker::Divider), false) => in_replace = true,
                (Some(Marker::Updated), true) => {
                    done = true;
                    break;
                }
                (Some(Marker::Head), _) => break,
                _ => {
                    let text = if in_replace {
                        &mut replace
                    } else {
                        &mut search
                    };
                    text.push_str(lines[j]);
                    text.push('\n');
                }
            }
            j += 1;
        }
        if done && let Some(path) = &last_path {
            out.push(Edit::Replace {
                path: path.clone(),
                search,
                replace,
            });
        }
        k = if done { j + 1 } else { j };
    }
    if any_marker {
        return out;
    }
    let fences: Vec<usize> = (0..lines.len()).filter(|&k| is_fence(lines[k])).collect();
    if let [open, close] = fences[..]
        && let Some(path) = open.checked_sub(1).and_then(|j| file_name(lines[j]))
    {
        let mut content = String::new();
        for line in &lines[open + 1..close] {
            content.push_str(line);
            content.push('\n');
        }
        out.push(Edit::Whole { path, content });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace(path: &str, search: &str, replace: &str) -> Edit {
        Edit::Replace {
            path: path.into(),
            search: search.into(),
            replace: replace.into(),
        }
    }

    #[test]
    fn search_replace_blocks_name_the_file_before_the_fence() {
        let reply = "Here:\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\nsrc/b.py\n```python\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nnew\n=======\nnewer\n>>>>>>> REPLACE\n```";
        assert_eq!(
            edits(reply),
            [
                replace("src/a.py", "x = 1\n", "x = 2\n"),
                replace("src/b.py", "", "new\n"),
                replace("src/b.py", "new\n", "newer\n"),
            ]
        );
    }

    #[test]
    fn older_blocks_name_the_file_inside_the_fence() {
        let reply = "```python\napp.py\n<<<<<<< ORIGINAL\n\n=======\nfrom flask import Flask\n>>>>>>> UPDATED\n```";
        assert_eq!(
            edits(reply),
            [replace("app.py", "\n", "from flask import Flask\n")]
        );
    }

    #[test]
    fn a_block_cut_short_or_unnamed_is_no_edit() {
        assert_eq!(edits("a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n"), []);
        assert_eq!(edits("<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE"), []);
        // A marker with a word it does not take, or too many signs, is text.
        assert_eq!(marker("<<<<<<< HEAD"), None);
        assert_eq!(marker("<<<<<<<<<< SEARCH"), None);
        assert_eq!(marker(">>>>>>> REPLACE  "), Some(Marker::Updated));
    }

    #[test]
    fn a_whole_reply_is_one_file_between_two_fences() {
        let reply = "Here is the file:\n\n**hello.py**\n```python\nprint('hi')\n\n```\nDone.";
        assert_eq!(
            edits(reply),
            [Edit::Whole {
                path: "hello.py".into(),
                content: "print('hi')\n\n".into()
            }]
        );
        // Two files, or no name before the fence: nothing is proven whole.
        assert_eq!(edits("a.py\n```\na\n```\nb.py\n```\nb\n```"), []);
        assert_eq!(edits("\n```\na\n```"), []);
    }
}
