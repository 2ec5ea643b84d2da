//! Fenced code blocks over the size limit become a byte-count placeholder.

use std::borrow::Cow;

/// The largest fenced code block body kept whole, in bytes (SPEC seed 003, 4 KiB).
pub const CODE_BLOCK_LIMIT_BYTES: usize = 4096;

/// `text` with every fenced code block whose body is over [`CODE_BLOCK_LIMIT_BYTES`] replaced,
/// from its opening fence line through its closing fence line (without the line break after
/// it), by `[code block: N bytes omitted]`; and the number of blocks replaced.
///
/// A fence is a line that, after at most 3 spaces, starts with at least 3 backticks or 3
/// tildes; the block closes at the next line that, after at most 3 spaces, has at least as many
/// of the same character and nothing else but spaces and tabs, or at the end of the text. The
/// body is the lines between the fences, each with its line break, measured in UTF-8 bytes.
pub(crate) fn omit_large_code_blocks(text: &str) -> (Cow<'_, str>, usize) {
    if !text.contains("```") && !text.contains("~~~") {
        return (Cow::Borrowed(text), 0);
    }
    let mut out = String::new();
    let mut omitted = 0;
    // Everything before `copied` is already in `out` (or still to be copied as is).
    let mut copied = 0;
    let mut lines = LineIter { text, at: 0 };
    while let Some((start, line)) = lines.next() {
        let Some((fence_char, fence_len)) = fence(line) else {
            continue;
        };
        let body_start = lines.at;
        let mut block_end = text.len();
        let mut body_end = text.len();
        for (at, line) in lines.by_ref() {
            if closes(line, fence_char, fence_len) {
                body_end = at;
                block_end = at + line.trim_end_matches(['\n', '\r']).len();
                break;
            }
        }
        let body = body_end - body_start;
        if body > CODE_BLOCK_LIMIT_BYTES {
            out.push_str(&text[copied..start]);
            out.push_str(&format!("[code block: {body} bytes omitted]"));
            copied = block_end;
            omitted += 1;
        }
    }
    if omitted == 0 {
        return (Cow::Borrowed(text), 0);
    }
    out.push_str(&text[copied..]);
    (Cow::Owned(out), omitted)
}

/// The fence character and length of an opening fence line.
fn fence(line: &str) -> Option<(u8, usize)> {
    let rest = strip_indent(line)?;
    let c = *rest.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.bytes().take_while(|&b| b == c).count();
    // A backtick fence's info string may not contain a backtick.
    if n < 3 || (c == b'`' && rest[n..].contains('`')) {
        return None;
    }
    Some((c, n))
}

/// Whether `line` closes a fence of `n` characters `c`.
fn closes(line: &str, c: u8, n: usize) -> bool {
    let Some(rest) = strip_indent(line) else {
        return false;
    };
    let run = rest.bytes().take_while(|&b| b == c).count();
    run >= n
        && rest[run..]
            .trim_end_matches(['\n', '\r', ' ', '\t'])
            .is_empty()
}

/// `line` without up to 3 leading spaces; `None` when it is indented 4 or more (code, not a
/// fence).
fn strip_indent(line: &str) -> Option<&str> {
    let spaces = line.bytes().take_while(|&b| b == b' ').count();
    (spaces <= 3).then(|| &line[spaces..])
}

/// Lines of a text with their byte offsets; each line keeps its `\n`.
struct LineIter<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Iterator for LineIter<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        if self.at >= self.text.len() {
            return None;
        }
        let start = self.at;
        let end = memchr::memchr(b'\n', &self.text.as_bytes()[start..])
            .map_or(self.text.len(), |i| start + i + 1);
        self.at = end;
        Some((start, &self.text[start..end]))
    }
}
