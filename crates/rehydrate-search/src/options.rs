//! [`SearchOptions`], [`SearchMode`] and the bounds every search result keeps.

/// At most this many matches are kept in one result (SPEC seed 000 rule 18).
pub const MAX_MATCHES: usize = 50;

/// Bytes of hidden text shown on each side of a match in its snippet window, before the window
/// is widened to char boundaries (SPEC seed 000 rule 19).
pub const SNIPPET_RADIUS_BYTES: usize = 80;

/// A snippet is at most this many bytes of UTF-8 (SPEC seed 000 rule 19).
pub const SNIPPET_MAX_BYTES: usize = 200;

/// The compact JSON of a whole result is at most this many bytes (64 KiB; SPEC seed 000 rule 20).
pub const MAX_RESULT_BYTES: usize = 65_536;

/// A query longer than this many bytes is rejected: a model has no use for a longer one, and
/// the bound keeps the compiled regex small before its own size limit applies.
pub const MAX_QUERY_BYTES: usize = 4096;

/// How the query text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SearchMode {
    /// As a regex when it is a valid one, as a literal otherwise (a syntax error, such as the
    /// unclosed group of `foo(`, falls back to a literal; a valid pattern whose compiled form is
    /// too large is an error). SPEC seed 000 rule 14.
    #[default]
    Auto,
    /// As literal text, byte for byte (ASCII case folding when case-insensitive).
    Literal,
    /// As a regex (the syntax of the `regex` crate); an invalid pattern is an error.
    Regex,
}

/// How [`crate::sidecar_search`] reads the query and how much it returns.
///
/// `max_matches` and `max_result_bytes` can only lower the crate's bounds: larger values are
/// clamped to [`MAX_MATCHES`] and [`MAX_RESULT_BYTES`], so every result stays bounded whatever
/// the options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SearchOptions {
    /// Literal, regex, or decided from the query. Default [`SearchMode::Auto`].
    pub mode: SearchMode,
    /// Whether letter case must match. Default `false`: literals fold ASCII letters, regexes
    /// fold case the way the `(?i)` flag does (Unicode simple case folding); a regex may turn
    /// the flag back off inside the pattern with `(?-i)`.
    pub case_sensitive: bool,
    /// The most matches a result keeps; default and upper bound [`MAX_MATCHES`].
    pub max_matches: usize,
    /// The most bytes the result's compact JSON may take; default and upper bound
    /// [`MAX_RESULT_BYTES`].
    pub max_result_bytes: usize,
}

impl Default for SearchOptions {
    /// Auto mode, case-insensitive, the crate's bounds.
    fn default() -> Self {
        SearchOptions {
            mode: SearchMode::Auto,
            case_sensitive: false,
            max_matches: MAX_MATCHES,
            max_result_bytes: MAX_RESULT_BYTES,
        }
    }
}

impl SearchOptions {
    /// `max_matches`, clamped to [`MAX_MATCHES`].
    pub(crate) fn match_limit(&self) -> usize {
        self.max_matches.min(MAX_MATCHES)
    }

    /// `max_result_bytes`, clamped to [`MAX_RESULT_BYTES`].
    pub(crate) fn result_limit_bytes(&self) -> usize {
        self.max_result_bytes.min(MAX_RESULT_BYTES)
    }
}
