//! Text for a terminal: strings a session controls (record types, ids, paths, snippets) made
//! printable before they reach a line, so they cannot drive a terminal. Every line of a
//! [`crate::Error`] that quotes a path goes through [`shown`].

use std::path::Path;

/// Appends `text` to `out` with control characters (other than tab when `keep_tab`), line and
/// paragraph separators and bidirectional formatting characters written as `\u{..}` escapes,
/// so session content cannot drive the terminal (escape sequences, carriage returns, line
/// breaks that would fake table rows, a right-to-left override).
pub fn push_printable(out: &mut String, text: &str, keep_tab: bool) {
    // Besides control characters: the line and paragraph separators and the bidirectional
    // formatting characters, which can make a line read as another.
    let spoofing = |c: char| {
        matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
        ) || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    for c in text.chars() {
        if (c.is_control() && !(keep_tab && c == '\t')) || spoofing(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
}

/// `text` made printable ([`push_printable`], tabs escaped too).
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_printable(&mut out, text, false);
    out
}

/// A path as a line shows it: its UTF-8 parts made printable ([`push_printable`]) and each
/// byte that is not UTF-8 written as `\xNN`, so two different paths never show alike (unlike
/// `Path::display`, which writes U+FFFD for any of them).
pub fn shown(path: impl AsRef<Path>) -> String {
    let bytes = path.as_ref().as_os_str().as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        push_printable(&mut out, chunk.valid(), false);
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// A path as JSON output and a manifest carry it: the path itself when it is UTF-8 (JSON
/// escapes what it must), and its [`shown`] form, `\xNN` escapes included, only when it is not.
pub fn json_path(path: impl AsRef<Path>) -> String {
    let path = path.as_ref();
    match path.to_str() {
        Some(text) => text.to_string(),
        None => shown(path),
    }
}
