//! Every reduction of every corpus session can be found by searching for a piece of its own
//! hidden bytes.
//!
//! Each Claude Code and SWE-agent session of the shared corpus (`REHYDRATE_CORPUS`, or
//! `shared/corpus` next to the workspace) is imported and reduced under the default and the
//! aggressive policy. For every reduction whose hidden bytes are searchable, a 16-byte slice
//! from their middle (cut on char boundaries) is searched as a case-sensitive literal: some
//! match in that reduction must overlap the slice's position. When the corpus is absent the
//! test says so and passes.

use rehydrate_model::ReductionLog;
use rehydrate_reduce::{ReductionPolicy, project_messages};
use rehydrate_search::{Query, SearchMode, SearchOptions, hidden_texts, sidecar_search};
use rehydrate_test_support::corpus_sessions;

/// The 16 bytes (fewer when the text is shorter) around the middle of `hidden`, on char
/// boundaries, and their offset; `None` when that leaves only whitespace (not a query).
fn middle_slice(hidden: &str) -> Option<(usize, &str)> {
    let mid = hidden.len() / 2;
    let start = hidden.floor_char_boundary(mid.saturating_sub(8));
    let end = hidden.floor_char_boundary((start + 16).min(hidden.len()));
    let slice = &hidden[start..end];
    (!slice.trim().is_empty()).then_some((start, slice))
}

#[test]
fn every_reduction_finds_a_slice_of_its_hidden_bytes() {
    let Some((_, sessions)) = corpus_sessions(
        &[("claude-code", "jsonl"), ("swe-agent", "traj")],
        "corpus search check",
    ) else {
        return;
    };
    let options = SearchOptions {
        mode: SearchMode::Literal,
        case_sensitive: true,
        ..SearchOptions::default()
    };
    let (mut searched, mut reductions, mut visible, mut blank) = (0, 0, 0, 0);
    for path in &sessions {
        let bytes = std::fs::read(path).unwrap();
        let import = rehydrate_formats::import(path, &bytes, None)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        for (preset, policy) in [
            ("default", ReductionPolicy::default()),
            ("aggressive", ReductionPolicy::aggressive()),
        ] {
            let out = project_messages(&import.messages, &ReductionLog::default(), &policy);
            let hidden = hidden_texts(&out.log, &import.messages);
            assert!(
                hidden.unresolvable.is_empty(),
                "{} ({preset}): {:?}",
                path.display(),
                hidden.unresolvable
            );
            reductions += out.log.len();
            visible += hidden.visible.len();
            for text in &hidden.texts {
                let Some((offset, slice)) = middle_slice(text.hidden()) else {
                    blank += 1;
                    continue;
                };
                let query = Query::new(slice, &options).unwrap();
                let mut overlapping = false;
                query.find_each(text.hidden(), |m| {
                    overlapping |= m.start < offset + slice.len() && offset < m.end;
                });
                assert!(
                    overlapping,
                    "{} ({preset}): {} does not find {slice:?} at {offset} of its hidden bytes",
                    path.display(),
                    text.reduction().id
                );
                searched += 1;
            }
            // The whole pipeline, once per session and preset: the first searchable slice is
            // found by sidecar_search too.
            if let Some((_, slice)) = hidden.texts.first().and_then(|t| middle_slice(t.hidden())) {
                let result = sidecar_search(&out.log, &import.messages, slice, &options).unwrap();
                assert!(result.total_matches >= 1, "{}: {slice:?}", path.display());
                assert_eq!(result.unresolvable, 0);
            }
        }
    }
    eprintln!(
        "corpus: {} sessions, {reductions} reductions, {searched} hidden slices found \
         ({visible} duplicates of a visible canonical, {blank} whitespace-only middles)",
        sessions.len()
    );
    assert!(searched > 0);
}
