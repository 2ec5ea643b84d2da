//! [`Span`]: a half-open byte range `[start, end)`.

use crate::error::Error;

/// A half-open byte range `[start, end)` within a message's content, 0-based, in bytes.
///
/// The constructor enforces `start <= end`; serde writes and reads `[start, end]` and rejects a
/// reversed pair.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "[usize; 2]", into = "[usize; 2]")]
pub struct Span {
    start: usize,
    end: usize,
}

impl Span {
    /// Creates the span `[start, end)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSpan`] when `start > end`.
    pub fn new(start: usize, end: usize) -> Result<Span, Error> {
        if start > end {
            return Err(Error::InvalidSpan { start, end });
        }
        Ok(Span { start, end })
    }

    /// The first byte offset in the span.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The byte offset one past the last byte of the span.
    pub fn end(&self) -> usize {
        self.end
    }

    /// The span's length in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The span as a `Range`, for slicing.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start..self.end
    }
}

impl TryFrom<[usize; 2]> for Span {
    type Error = Error;

    fn try_from([start, end]: [usize; 2]) -> Result<Self, Self::Error> {
        Span::new(start, end)
    }
}

impl From<Span> for [usize; 2] {
    fn from(span: Span) -> Self {
        [span.start, span.end]
    }
}
