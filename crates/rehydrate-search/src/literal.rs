//! Literal matching: `memchr::memmem` for exact needles, and an ASCII case-folding search that
//! never copies or lowercases the haystack.
//!
//! Case-insensitive literal semantics: ASCII letters match either case (`A-Z` and `a-z`);
//! every other byte, and so every non-ASCII character, must match exactly (`É` does not match
//! `é`, and the Kelvin sign does not match `k`). This is the fallback of SPEC seed 000 rule 14,
//! without its copy of the haystack.

use std::ops::Range;

use memchr::memmem;
use regex_automata::MatchKind;
use regex_automata::util::prefilter::Prefilter;
use regex_syntax::hir::literal::rank;

/// At most this many bytes of the needle are used to find candidates, so that the case
/// variants of the window number at most 2^4 = 16.
const WINDOW_BYTES: usize = 4;

/// A compiled literal needle.
#[derive(Debug, Clone)]
pub(crate) enum LiteralMatcher {
    /// Exact bytes (case-sensitive, or a needle without ASCII letters).
    Exact(Box<memmem::Finder<'static>>),
    /// ASCII case folding: candidates are found by a prefilter over every case variant of a
    /// rare window of the needle, then confirmed with `eq_ignore_ascii_case`.
    Folded(Folded),
}

/// The ASCII case-folding search of one needle.
#[derive(Debug, Clone)]
pub(crate) struct Folded {
    needle: Vec<u8>,
    /// Offset of the window in the needle.
    window_start: usize,
    /// Length of the window in bytes.
    window_len: usize,
    /// Finds any case variant of the window; `None` only if no prefilter could be built, in
    /// which case every position is a candidate.
    prefilter: Option<Prefilter>,
}

impl LiteralMatcher {
    /// A matcher for `needle` (non-empty).
    pub(crate) fn new(needle: &str, case_sensitive: bool) -> LiteralMatcher {
        let bytes = needle.as_bytes();
        if case_sensitive || !bytes.iter().any(u8::is_ascii_alphabetic) {
            return LiteralMatcher::Exact(Box::new(memmem::Finder::new(bytes).into_owned()));
        }
        let window_len = bytes.len().min(WINDOW_BYTES);
        let window_start = (0..=bytes.len() - window_len)
            .min_by_key(|&start| window_cost(&bytes[start..start + window_len]))
            .unwrap_or(0);
        let variants = case_variants(&bytes[window_start..window_start + window_len]);
        Folded {
            needle: bytes.to_vec(),
            window_start,
            window_len,
            prefilter: Prefilter::new(MatchKind::LeftmostFirst, &variants),
        }
        .into()
    }

    /// Calls `on_match` with every non-overlapping match of the needle in `haystack`, leftmost
    /// first, as a byte range.
    pub(crate) fn find_each(&self, haystack: &str, mut on_match: impl FnMut(Range<usize>)) {
        match self {
            LiteralMatcher::Exact(finder) => {
                let len = finder.needle().len();
                for start in finder.find_iter(haystack.as_bytes()) {
                    on_match(start..start + len);
                }
            }
            LiteralMatcher::Folded(folded) => folded.find_each(haystack.as_bytes(), on_match),
        }
    }
}

impl From<Folded> for LiteralMatcher {
    fn from(folded: Folded) -> Self {
        LiteralMatcher::Folded(folded)
    }
}

impl Folded {
    fn find_each(&self, hay: &[u8], mut on_match: impl FnMut(Range<usize>)) {
        let n = self.needle.len();
        if hay.len() < n {
            return;
        }
        // A window occurrence at `c` is a candidate match at `c - window_start`; it must leave
        // room for the rest of the needle, so windows are searched in `[from, window_end)`.
        let window_end = hay.len() - (n - self.window_start - self.window_len);
        let mut from = self.window_start;
        while from + self.window_len <= window_end {
            let candidate = match &self.prefilter {
                Some(prefilter) => {
                    let span = regex_automata::Span {
                        start: from,
                        end: window_end,
                    };
                    match prefilter.find(hay, span) {
                        Some(found) => found.start,
                        None => return,
                    }
                }
                None => from,
            };
            let start = candidate - self.window_start;
            let end = start + n;
            if end <= hay.len() && hay[start..end].eq_ignore_ascii_case(&self.needle) {
                on_match(start..end);
                from = end + self.window_start;
            } else {
                from = candidate + 1;
            }
        }
    }
}

/// How common a window's candidates are: the byte-frequency ranks of its bytes, both cases of
/// a letter counted. Lower is rarer.
fn window_cost(window: &[u8]) -> u32 {
    window
        .iter()
        .map(|&b| {
            if b.is_ascii_alphabetic() {
                u32::from(rank(b.to_ascii_lowercase())) + u32::from(rank(b.to_ascii_uppercase()))
            } else {
                2 * u32::from(rank(b))
            }
        })
        .sum()
}

/// Every ASCII case variant of `window` (2^letters of them).
fn case_variants(window: &[u8]) -> Vec<Vec<u8>> {
    let mut variants = vec![Vec::with_capacity(window.len())];
    for &b in window {
        if b.is_ascii_alphabetic() {
            let mut upper = variants.clone();
            for v in &mut variants {
                v.push(b.to_ascii_lowercase());
            }
            for v in &mut upper {
                v.push(b.to_ascii_uppercase());
            }
            variants.append(&mut upper);
        } else {
            for v in &mut variants {
                v.push(b);
            }
        }
    }
    variants
}
