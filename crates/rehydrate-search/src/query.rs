//! [`Query`]: a query compiled for searching, literal or regex.

use std::ops::Range;

use crate::error::SearchError;
use crate::literal::LiteralMatcher;
use crate::options::{MAX_QUERY_BYTES, SearchMode, SearchOptions};
use crate::regex::{CompileError, NFA_SIZE_LIMIT_BYTES, RegexMatcher};

/// How a query was searched, as the result reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryMode {
    /// `literal`: the query text itself.
    Literal,
    /// `regex`: the query as a regex.
    Regex,
}

impl QueryMode {
    /// `literal` or `regex`.
    pub fn as_str(self) -> &'static str {
        match self {
            QueryMode::Literal => "literal",
            QueryMode::Regex => "regex",
        }
    }
}

/// A query compiled for searching, with the bounds of its results.
///
/// Build one with [`Query::new`] to search several texts with the same query
/// ([`crate::search_hidden`], [`Query::find_each`]); [`crate::sidecar_search`] builds its own.
#[derive(Debug, Clone)]
pub struct Query {
    mode: QueryMode,
    matcher: Matcher,
    max_matches: usize,
    max_result_bytes: usize,
}

/// The mutable search state of a [`Query`], one per thread; `None` uses the regex's shared
/// pool.
#[derive(Debug, Clone)]
pub(crate) struct QueryCache(Option<regex_automata::meta::Cache>);

#[derive(Debug, Clone)]
enum Matcher {
    Literal(LiteralMatcher),
    Regex(RegexMatcher),
}

impl Query {
    /// Compiles `query` as `options` say (SPEC seed 000 rules 13-14).
    ///
    /// - [`SearchMode::Literal`]: the query's bytes; case-insensitive matching folds ASCII
    ///   letters only, every other character matches exactly.
    /// - [`SearchMode::Regex`]: the syntax of the `regex` crate, Unicode-aware (`\w`, `\b` and
    ///   case folding follow Unicode); case-insensitive matching sets the `(?i)` flag. The
    ///   pattern compiles under size limits (2 MiB for the compiled NFA, nesting depth 64), so a
    ///   pattern from a model cannot exhaust memory.
    /// - [`SearchMode::Auto`]: as a regex; a syntax error falls back to a literal (`foo(`
    ///   searches for `foo(`), a size-limit error does not.
    ///
    /// # Errors
    ///
    /// [`SearchError::EmptyQuery`] when the query is empty or only whitespace;
    /// [`SearchError::QueryTooLong`] beyond [`MAX_QUERY_BYTES`];
    /// [`SearchError::InvalidRegex`] for a syntax error in regex mode;
    /// [`SearchError::RegexTooLarge`] when the compiled regex exceeds its size limit.
    ///
    /// # Example
    ///
    /// ```
    /// use rehydrate_search::{Query, QueryMode, SearchOptions};
    ///
    /// let query = Query::new("foo(", &SearchOptions::default())?;
    /// assert_eq!(query.mode(), QueryMode::Literal);
    /// let mut found = Vec::new();
    /// query.find_each("FOO(bar) foo(", |m| found.push(m));
    /// assert_eq!(found, [0..4, 9..13]);
    /// # Ok::<(), rehydrate_search::SearchError>(())
    /// ```
    pub fn new(query: &str, options: &SearchOptions) -> Result<Query, SearchError> {
        if query.trim().is_empty() {
            return Err(SearchError::EmptyQuery);
        }
        if query.len() > MAX_QUERY_BYTES {
            return Err(SearchError::QueryTooLong {
                bytes: query.len(),
                limit_bytes: MAX_QUERY_BYTES,
            });
        }
        let literal = || Matcher::Literal(LiteralMatcher::new(query, options.case_sensitive));
        let (mode, matcher) = match options.mode {
            SearchMode::Literal => (QueryMode::Literal, literal()),
            SearchMode::Regex | SearchMode::Auto => {
                match RegexMatcher::new(query, !options.case_sensitive) {
                    Ok(regex) => (QueryMode::Regex, Matcher::Regex(regex)),
                    Err(CompileError::Syntax(_)) if options.mode == SearchMode::Auto => {
                        (QueryMode::Literal, literal())
                    }
                    Err(CompileError::Syntax(reason)) => {
                        return Err(SearchError::InvalidRegex { reason });
                    }
                    Err(CompileError::TooLarge(limit)) => {
                        return Err(SearchError::RegexTooLarge {
                            limit_bytes: limit.max(NFA_SIZE_LIMIT_BYTES),
                        });
                    }
                }
            }
        };
        Ok(Query {
            mode,
            matcher,
            max_matches: options.match_limit(),
            max_result_bytes: options.result_limit_bytes(),
        })
    }

    /// Whether the query is searched as a literal or as a regex.
    pub fn mode(&self) -> QueryMode {
        self.mode
    }

    /// The most matches a result keeps (the options' `max_matches`, clamped).
    pub fn max_matches(&self) -> usize {
        self.max_matches
    }

    /// The most bytes a result's compact JSON takes (the options' `max_result_bytes`, clamped).
    pub fn max_result_bytes(&self) -> usize {
        self.max_result_bytes
    }

    /// Calls `on_match` with every match in `haystack`, in order, as a half-open byte range.
    ///
    /// Matches do not overlap: after a match the search resumes at its end (leftmost-first
    /// semantics, as `regex::Regex::find_iter`). A regex may match the empty string; such
    /// matches are reported too, never inside a UTF-8 sequence. Ranges always fall on char
    /// boundaries.
    ///
    /// Cost: literals are found with `memchr::memmem` (case-insensitive: a vectorized search
    /// for the case variants of a rare 4-byte window of the needle, then a comparison) in
    /// time linear in `haystack`. Regexes run on regex-automata's meta engine; a pattern that
    /// cannot match a line break and whose matches must contain one of a few literals is run
    /// only on the lines holding those literals. One regex search is linear in the bytes it
    /// scans; as with every leftmost-first engine, a pattern whose preferred alternative must
    /// look far ahead at every match (`\w*X|a` over a long run of `a`) can rescan, at worst
    /// quadratic in the length of one line (or of the haystack, when the pattern can match a
    /// line break).
    pub fn find_each(&self, haystack: &str, on_match: impl FnMut(Range<usize>)) {
        self.find_each_with(&mut QueryCache(None), haystack, on_match);
    }

    /// The search state of this query (a regex's caches; nothing for a literal).
    pub(crate) fn create_cache(&self) -> QueryCache {
        match &self.matcher {
            Matcher::Literal(_) => QueryCache(None),
            Matcher::Regex(regex) => QueryCache(Some(regex.create_cache())),
        }
    }

    /// [`Query::find_each`] with a search state from [`Query::create_cache`].
    pub(crate) fn find_each_with(
        &self,
        cache: &mut QueryCache,
        haystack: &str,
        on_match: impl FnMut(Range<usize>),
    ) {
        match &self.matcher {
            Matcher::Literal(literal) => literal.find_each(haystack, on_match),
            Matcher::Regex(regex) => regex.find_each(cache.0.as_mut(), haystack, on_match),
        }
    }

    /// Whether the line-confined regex search is used (tests only).
    #[cfg(test)]
    pub(crate) fn is_line_confined(&self) -> bool {
        matches!(&self.matcher, Matcher::Regex(regex) if regex.is_line_confined())
    }

    /// Whether the regex is searched as a literal set (tests only).
    #[cfg(test)]
    pub(crate) fn is_literal_set(&self) -> bool {
        matches!(&self.matcher, Matcher::Regex(regex) if regex.is_literal_set())
    }
}
