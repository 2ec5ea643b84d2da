//! Where a truncation cuts: the hidden middle of a tool result.

use rehydrate_model::Span;

/// The hidden span of `text` when `head_bytes` and `tail_bytes` stay visible, or `None` when
/// nothing would be hidden.
///
/// The head ends at the largest char boundary `<= head_bytes`; if a line break lies in the
/// head's second half, the head ends just after the last one, so whole lines stay whole.
/// The tail starts at the smallest char boundary `>= len - tail_bytes`; if a line break lies in
/// the tail's first half, the tail starts just after the first one. Both cuts are char
/// boundaries, so head, hidden part and tail are all valid UTF-8. The result is half-open,
/// in bytes, and non-empty.
///
/// # Example
///
/// ```
/// use rehydrate_reduce::truncation_span;
///
/// let text = "aaaa\nbbbb\ncccc\ndddd\n";
/// let span = truncation_span(text, 6, 6).unwrap();
/// assert_eq!(&text[..span.start()], "aaaa\n");
/// assert_eq!(&text[span.end()..], "dddd\n");
/// ```
pub fn truncation_span(text: &str, head_bytes: usize, tail_bytes: usize) -> Option<Span> {
    let len = text.len();
    if len <= head_bytes.saturating_add(tail_bytes) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut head_end = text.floor_char_boundary(head_bytes);
    let head_half = (head_bytes / 2).min(head_end);
    if let Some(nl) = memchr::memrchr(b'\n', &bytes[head_half..head_end]) {
        head_end = head_half + nl + 1;
    }
    let mut tail_start = text.ceil_char_boundary(len - tail_bytes);
    let window_end = (tail_start + tail_bytes / 2).min(len);
    if let Some(nl) = memchr::memchr(b'\n', &bytes[tail_start..window_end]) {
        tail_start += nl + 1;
    }
    if tail_start <= head_end {
        return None;
    }
    Some(Span::new(head_end, tail_start).expect("tail_start > head_end was checked"))
}
