//! Tool-call ids and tool names an API does not accept as written, mapped deterministically and
//! reversibly when a request body is written (docs/FORMATS.md, "Ids across formats").
//!
//! The Anthropic Messages API takes `tool_use` ids matching `^[a-zA-Z0-9_-]+$`, and both APIs
//! take function (tool) names matching `^[a-zA-Z0-9_-]{1,64}$`; sessions hold others (Kimi's
//! `functions.Bash:0`, MCP names with dots or spaces). The canonical messages keep them as the
//! session wrote them; the writers map them on the way out, both sides of a pairing alike.

use std::borrow::Cow;
use std::fmt::Write as _;

/// The prefix of a mapped id or name: [`api_id`] of a text that needs mapping is this prefix
/// followed by the lowercase hex of the text's UTF-8 bytes.
pub const MAPPED_ID_PREFIX: &str = "rhx_";

/// `id` as a request body writes it: itself when it matches `^[a-zA-Z0-9_-]+$` and does not
/// start with [`MAPPED_ID_PREFIX`], otherwise the prefix followed by the lowercase hex of its
/// UTF-8 bytes (the empty id is `rhx_`). Injective, so distinct ids stay distinct and
/// [`original_id`] gives each back; the result always matches the pattern.
///
/// # Example
///
/// ```
/// use rehydrate_formats::{api_id, original_id};
///
/// assert_eq!(api_id("toolu_01"), "toolu_01");
/// assert_eq!(api_id("functions.Bash:0"), "rhx_66756e6374696f6e732e426173683a30");
/// assert_eq!(original_id(&api_id("functions.Bash:0")).as_deref(), Some("functions.Bash:0"));
/// assert_eq!(api_id("rhx_1"), "rhx_7268785f31");
/// ```
pub fn api_id(id: &str) -> Cow<'_, str> {
    if is_plain(id) && !id.starts_with(MAPPED_ID_PREFIX) {
        return Cow::Borrowed(id);
    }
    let mut out = String::with_capacity(MAPPED_ID_PREFIX.len() + 2 * id.len());
    out.push_str(MAPPED_ID_PREFIX);
    for b in id.bytes() {
        write!(out, "{b:02x}").expect("writing to a String cannot fail");
    }
    Cow::Owned(out)
}

/// A tool name as a request body writes it: [`api_id`] of it. A name of more than 64 bytes as
/// mapped is still refused by both APIs (`CallDefect::Name`): such a call is folded.
pub fn api_name(name: &str) -> Cow<'_, str> {
    api_id(name)
}

/// The id or name [`api_id`] mapped to `mapped`, or `None` when `mapped` is not a mapped
/// form (it does not start with [`MAPPED_ID_PREFIX`], or the rest is not lowercase hex of UTF-8
/// text that needed mapping), in which case the text is its own original.
pub fn original_id(mapped: &str) -> Option<String> {
    let hex = mapped.strip_prefix(MAPPED_ID_PREFIX)?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let mut bytes = Vec::with_capacity(hex.len() / 2);
    for pair in hex.as_bytes().chunks_exact(2) {
        let digit = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        bytes.push(digit(pair[0])? << 4 | digit(pair[1])?);
    }
    let original = String::from_utf8(bytes).ok()?;
    (api_id(&original) == mapped).then_some(original)
}

/// Whether `text` matches `^[a-zA-Z0-9_-]+$`.
pub(crate) fn is_plain(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
