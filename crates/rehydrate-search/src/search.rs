//! `sidecar_search`: matches over the hidden bytes of a reduction log, bounded (SPEC seed 000
//! rules 13-21).

use std::ops::Range;

use rehydrate_model::ReductionLog;
use rehydrate_sidecar::{Sources, VerifiedCache};

use crate::error::SearchError;
use crate::hidden::{HiddenTexts, hidden_texts, hidden_texts_cached};
use crate::options::SearchOptions;
use crate::parallel::map_chunks;
use crate::query::Query;
use crate::result::{SearchMatch, SearchResult};
use crate::snippet::snippets;

/// Searches the bytes that `log`'s reductions hide from the view for `query`.
///
/// `minted_view` is the full-fidelity message list the reductions were minted against (the
/// sidecar). Only hidden bytes are searched ([`hidden_texts`]: a truncation's hidden middle, a
/// duplicate whose canonical copy is itself reduced, a cleared range's rendering), so what the
/// model already sees is not reported; each reduction is verified against its digest first,
/// and one that fails is counted in `unresolvable` and skipped, never fatal.
///
/// Matches are non-overlapping, in log order and then position order (an empty regex match
/// counts). `total_matches` counts them all; the first `max_matches` (at most 50) are kept,
/// each with a snippet of at most 200 bytes: 80 bytes of hidden text each side of the match,
/// widened to char boundaries, secrets replaced by [`crate::redact`]'s placeholders, then cut
/// on a char boundary. Whole trailing matches are dropped until the compact JSON is at most
/// `max_result_bytes` (at most 64 KiB); `truncated` says whether any match was left out.
/// Nothing is written: no reduction is minted and no stub text is produced (rule 21).
///
/// # Errors
///
/// The errors of [`Query::new`]: an empty or whitespace query, a query over 4 KiB, an invalid
/// regex in regex mode, a regex too large to compile.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, ReductionLog, Role};
/// use rehydrate_reduce::{ReductionPolicy, project_messages};
/// use rehydrate_search::{SearchOptions, sidecar_search};
///
/// let mut output = "compiling\n".repeat(500);
/// output.push_str("error[E0308]: mismatched types\n");
/// output.push_str(&"compiling\n".repeat(500));
/// let mut history = vec![Message::text(Role::User, "build")];
/// for i in 0..4 {
///     history.push(Message::tool_call(format!("c{i}"), "cargo", "{}"));
///     history.push(Message::tool_result(format!("c{i}"), format!("{output}{i}")));
/// }
/// let out = project_messages(&history, &ReductionLog::default(), &ReductionPolicy::default());
/// let result = sidecar_search(&out.log, &history, "E0308", &SearchOptions::default())?;
/// assert_eq!(result.total_matches, 1);
/// assert!(result.matches[0].snippet.contains("error[E0308]: mismatched types"));
/// assert!(result.to_json().starts_with(r#"{"mode":"regex","matches":[{"reduction_id":"r0."#));
/// # Ok::<(), rehydrate_search::SearchError>(())
/// ```
pub fn sidecar_search<'a>(
    log: &'a ReductionLog,
    sources: impl Into<Sources<'a>>,
    query: &str,
    options: &SearchOptions,
) -> Result<SearchResult, SearchError> {
    let query = Query::new(query, options)?;
    let hidden = hidden_texts(log, sources);
    Ok(search_hidden(&hidden, &query))
}

/// [`sidecar_search`] for a live session searched again and again: the reductions `cache`
/// holds are not verified (hashed) again, and those that verify now are added to it
/// ([`hidden_texts_cached`]; the cache's rule: the minted view only grew since). The model
/// searches several times a turn; from the second search on, only what is new is hashed.
///
/// # Errors
///
/// As [`sidecar_search`]; the cache is left as it was when the query is refused.
pub fn sidecar_search_cached<'a>(
    log: &'a ReductionLog,
    sources: impl Into<Sources<'a>>,
    query: &str,
    options: &SearchOptions,
    cache: &mut VerifiedCache,
) -> Result<SearchResult, SearchError> {
    let query = Query::new(query, options)?;
    let hidden = hidden_texts_cached(log, sources, cache);
    Ok(search_hidden(&hidden, &query))
}

/// [`sidecar_search`] over hidden texts already resolved ([`hidden_texts`]) with a compiled
/// query: the form for running several queries over one log, which verifies the log once.
///
/// 4 MiB or more of hidden bytes are searched on a few threads (at most 8), each over
/// consecutive texts; the result does not depend on the number of threads.
pub fn search_hidden(hidden: &HiddenTexts<'_>, query: &Query) -> SearchResult {
    let limit = query.max_matches();
    // Large inputs are searched on a few threads, each over consecutive texts; each keeps its
    // first `limit` matches, and the merge keeps the first `limit` in log order.
    let parts = map_chunks(
        &hidden.texts,
        |text| text.span().len(),
        |offset, texts| {
            let mut kept: Vec<(usize, Range<usize>)> = Vec::new();
            let mut total = 0_usize;
            let mut cache = query.create_cache();
            for (i, text) in texts.iter().enumerate() {
                query.find_each_with(&mut cache, text.hidden(), |m| {
                    total += 1;
                    if kept.len() < limit {
                        kept.push((offset + i, m));
                    }
                });
            }
            (total, kept)
        },
    );
    let total_matches: usize = parts.iter().map(|(total, _)| total).sum();
    let kept: Vec<(usize, Range<usize>)> = parts
        .into_iter()
        .flat_map(|(_, kept)| kept)
        .take(limit)
        .collect();
    let mut matches = Vec::with_capacity(kept.len());
    let mut rest = kept.as_slice();
    while let Some(&(index, _)) = rest.first() {
        let same = rest.partition_point(|(i, _)| *i == index);
        let ranges: Vec<Range<usize>> = rest[..same].iter().map(|(_, m)| m.clone()).collect();
        let text = &hidden.texts[index];
        let reduction = text.reduction();
        for snippet in snippets(text.text(), text.span(), &ranges) {
            matches.push(SearchMatch {
                reduction_id: reduction.id.clone(),
                kind: reduction.kind.stub_kind(),
                snippet,
            });
        }
        rest = &rest[same..];
    }
    let mut result = SearchResult {
        mode: query.mode(),
        truncated: total_matches > matches.len(),
        matches,
        total_matches,
        unresolvable: hidden.unresolvable.len(),
    };
    result.fit(query.max_result_bytes());
    result
}
