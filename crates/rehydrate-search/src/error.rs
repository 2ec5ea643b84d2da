//! The one error type of the search crate.

/// Why a query cannot be searched at all.
///
/// Every message is one line. A reduction that does not verify is not an error: it is counted
/// in [`crate::SearchResult::unresolvable`] and skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The query is empty or only whitespace (SPEC seed 000 rule 13).
    #[error("query must be a non-empty substring or regex")]
    EmptyQuery,
    /// The query is longer than [`crate::MAX_QUERY_BYTES`].
    #[error("query is {bytes} bytes; at most {limit_bytes} bytes are accepted")]
    QueryTooLong {
        /// Length of the query in bytes.
        bytes: usize,
        /// The limit in bytes.
        limit_bytes: usize,
    },
    /// The query is not a valid regex (only in [`crate::SearchMode::Regex`]; auto mode searches
    /// such a query as a literal).
    #[error("invalid regex: {reason}")]
    InvalidRegex {
        /// What is wrong and where, one line: `unclosed group at byte 3`.
        reason: String,
    },
    /// The regex is valid but its compiled form exceeds the size limit (a large repetition of
    /// a large class, such as `\w{5000}`).
    #[error(
        "regex too large: its compiled form exceeds {limit_bytes} bytes (use fewer or smaller repetitions)"
    )]
    RegexTooLarge {
        /// The size limit of the compiled program, in bytes.
        limit_bytes: usize,
    },
}
