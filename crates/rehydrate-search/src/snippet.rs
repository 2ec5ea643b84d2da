//! Snippets: the bytes around a match, cut on char boundaries and redacted (SPEC seed 000
//! rule 19).

use std::ops::Range;

use memchr::memmem;
use rehydrate_model::Span;

use crate::options::{SNIPPET_MAX_BYTES, SNIPPET_RADIUS_BYTES};
use crate::redact::{Secret, find_secrets};

/// Bytes of the original scanned for secrets on each side of a snippet window, so a secret cut
/// by the window's edge is still recognized (its prefix or key may lie outside the window).
const SECRET_CONTEXT_BYTES: usize = 1024;

/// How far before a window a PEM block's `-----BEGIN` line is looked for, in bytes: a block
/// larger than this (an 8192-bit RSA key is about 6.5 KB) would not be recognized from its
/// middle.
const PEM_LOOKBACK_BYTES: usize = 16 << 10;

/// The snippets of `matches` (ranges relative to the hidden bytes `text[hidden]`, in order).
///
/// Per match: the window is `[start - 80, end + 80)` of the hidden bytes, clamped to them and
/// widened to char boundaries; every secret overlapping the window is replaced by its
/// placeholder (secrets are found in the whole original around the window, so one cut by the
/// window's edge or by the hidden span's edge is still found); then the result is cut to at
/// most [`SNIPPET_MAX_BYTES`] bytes on a char boundary, never inside a placeholder.
pub(crate) fn snippets(text: &str, hidden: Span, matches: &[Range<usize>]) -> Vec<String> {
    let windows: Vec<Range<usize>> = matches.iter().map(|m| window(text, hidden, m)).collect();
    // Secrets of the context regions around the windows, merged where they overlap so that
    // each byte is scanned once.
    let mut secrets: Vec<Secret> = Vec::new();
    let mut region: Option<Range<usize>> = None;
    for w in &windows {
        let context = context(text, w);
        match &mut region {
            Some(r) if context.start <= r.end => r.end = r.end.max(context.end),
            _ => {
                if let Some(done) = region.take() {
                    scan(text, done, &mut secrets);
                }
                region = Some(context);
            }
        }
    }
    if let Some(done) = region {
        scan(text, done, &mut secrets);
    }
    windows.iter().map(|w| render(text, w, &secrets)).collect()
}

/// The window of match `m` (relative to the hidden bytes), as a range of `text`.
fn window(text: &str, hidden: Span, m: &Range<usize>) -> Range<usize> {
    let h = &text[hidden.range()];
    let lo = h.floor_char_boundary(m.start.saturating_sub(SNIPPET_RADIUS_BYTES));
    let hi = h.ceil_char_boundary((m.end + SNIPPET_RADIUS_BYTES).min(h.len()));
    hidden.start() + lo..hidden.start() + hi
}

/// The part of `text` scanned for secrets around window `w`.
fn context(text: &str, w: &Range<usize>) -> Range<usize> {
    let mut start = text.floor_char_boundary(w.start.saturating_sub(SECRET_CONTEXT_BYTES));
    let lookback = text.floor_char_boundary(w.start.saturating_sub(PEM_LOOKBACK_BYTES));
    if let Some(at) = memmem::rfind(&text.as_bytes()[lookback..w.start], b"-----BEGIN ") {
        start = start.min(lookback + at);
    }
    let end = text.ceil_char_boundary((w.end + SECRET_CONTEXT_BYTES).min(text.len()));
    start..end
}

/// Appends the secrets of `text[region]`, as ranges of `text`.
fn scan(text: &str, region: Range<usize>, secrets: &mut Vec<Secret>) {
    let offset = region.start;
    for s in find_secrets(&text[region]) {
        let span = Span::new(s.span.start() + offset, s.span.end() + offset)
            .expect("a shifted span keeps start <= end");
        secrets.push(Secret { span, ..s });
    }
}

/// The snippet of window `w`: its bytes with overlapping secrets replaced, cut to
/// [`SNIPPET_MAX_BYTES`].
fn render(text: &str, w: &Range<usize>, secrets: &[Secret]) -> String {
    let mut out = String::with_capacity(SNIPPET_MAX_BYTES);
    let mut at = w.start;
    let first = secrets.partition_point(|s| s.span.end() <= w.start);
    for s in secrets[first..]
        .iter()
        .take_while(|s| s.span.start() < w.end)
    {
        let before = &text[at..s.span.start().max(at)];
        if !push_cut(&mut out, before) {
            return out;
        }
        let placeholder = s.kind.placeholder();
        if out.len() + placeholder.len() > SNIPPET_MAX_BYTES {
            return out;
        }
        out.push_str(placeholder);
        at = s.span.end().min(w.end).max(at);
    }
    push_cut(&mut out, &text[at..w.end]);
    out
}

/// Appends as much of `piece` as fits in [`SNIPPET_MAX_BYTES`], cut on a char boundary;
/// returns whether all of it fit.
fn push_cut(out: &mut String, piece: &str) -> bool {
    let room = SNIPPET_MAX_BYTES - out.len();
    if piece.len() <= room {
        out.push_str(piece);
        return true;
    }
    out.push_str(&piece[..piece.floor_char_boundary(room)]);
    false
}
