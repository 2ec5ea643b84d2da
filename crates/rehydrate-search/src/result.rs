//! The search result: its wire form (compact JSON) and its size bound.

use rehydrate_model::{ReductionId, StubKind};

use crate::query::QueryMode;

/// The result of a search: bounded by construction.
///
/// Its compact JSON ([`SearchResult::to_json`]) has the keys `mode`, `matches` (each
/// `reduction_id`, `kind`, `snippet`), `total_matches`, `truncated` and `unresolvable`, in that
/// order:
///
/// ```json
/// {"mode":"literal","matches":[{"reduction_id":"r0.1f2e3d","kind":"tool-output","snippet":"…"}],"total_matches":1,"truncated":false,"unresolvable":0}
/// ```
///
/// At most [`crate::MAX_MATCHES`] matches, each snippet at most [`crate::SNIPPET_MAX_BYTES`]
/// bytes, and the whole JSON at most [`crate::MAX_RESULT_BYTES`] bytes (or the lower limits of
/// the options).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SearchResult {
    /// How the query was searched: `literal` or `regex`.
    pub mode: QueryMode,
    /// The kept matches, in log order and then in position order.
    pub matches: Vec<SearchMatch>,
    /// Every match found, kept or not.
    pub total_matches: usize,
    /// Whether some match is not in `matches` (the match limit or the size limit dropped it).
    pub truncated: bool,
    /// Reductions that do not verify against the minted view, so were not searched.
    pub unresolvable: usize,
}

/// One kept match.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SearchMatch {
    /// The reduction whose hidden bytes hold the match; `expand_reduction` serves them.
    pub reduction_id: ReductionId,
    /// The reduction's stub kind (docs/FORMATS.md, "Stub grammar"): `tool-output`,
    /// `assistant-text`, `turns-cleared`, or a pairing repair's (a duplicate is searched through
    /// its canonical's reduction).
    #[serde(serialize_with = "kind_token")]
    pub kind: StubKind,
    /// The hidden bytes around the match, redacted, at most [`crate::SNIPPET_MAX_BYTES`] bytes
    /// of UTF-8 (SPEC seed 000 rule 19).
    pub snippet: String,
}

fn kind_token<S: serde::Serializer>(kind: &StubKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(kind.as_str())
}

impl SearchResult {
    /// The result as compact JSON (the wire form the model is shown).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a search result is plain data and always serializes")
    }

    /// The size of [`SearchResult::to_json`] in bytes.
    pub fn json_bytes(&self) -> usize {
        json_len(self)
    }

    /// Drops whole matches from the end until the compact JSON takes at most `max_bytes`, or no
    /// match is left; sets `truncated` when it drops any (SPEC seed 000 rule 20).
    pub(crate) fn fit(&mut self, max_bytes: usize) {
        if self.matches.is_empty() || json_len(self) <= max_bytes {
            return;
        }
        // At least one match goes, so `truncated` is true, and sizes are taken with it.
        self.truncated = true;
        let sizes: Vec<usize> = self.matches.iter().map(json_len).collect();
        let matches = std::mem::take(&mut self.matches);
        let empty_bytes = json_len(self);
        // The JSON is `{…"matches":[` + the kept matches joined by `,` + `]…}`.
        let size = |keep: usize| {
            empty_bytes + sizes[..keep].iter().sum::<usize>() + keep.saturating_sub(1)
        };
        let mut keep = sizes.len() - 1;
        while keep > 0 && size(keep) > max_bytes {
            keep -= 1;
        }
        self.matches = matches;
        self.matches.truncate(keep);
        debug_assert!(keep == 0 || json_len(self) <= max_bytes);
    }
}

/// The length of `value`'s compact JSON, in bytes, without building it.
fn json_len<T: serde::Serialize>(value: &T) -> usize {
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value)
        .expect("a search result is plain data and always serializes");
    counter.0
}

/// A writer that only counts bytes.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
