//! The corpus check of agent compactions (docs/FORMATS.md, "Agent compactions"): every corpus
//! session that records a compaction of its agent (Claude Code, Codex) reduces with the
//! compactions followed, under both presets and fed message by message: the latest
//! compaction no tool call crosses is a `compaction` reduction whose stub message carries the
//! agent's summary, the log verifies, the view inverts to the imported messages and is a
//! valid OpenAI and Anthropic request body, and a slice of every tool output the compaction
//! hid is found by search in that compaction.

use rehydrate::formats::{Api, check_request, is_compaction_summary, summary_text};
use rehydrate::model::ReductionKind;
use rehydrate::reduce::{Reducer, ReductionPolicy, project_messages};
use rehydrate::search::{Query, SearchMode, SearchOptions, hidden_texts, sidecar_search};
use rehydrate::sidecar::{invert, verify_log};
use rehydrate::{Message, ReductionLog, Role};
use rehydrate_test_support::corpus_sessions;

/// A 24-byte (or shorter) slice from the middle of `text`, on char boundaries, that is not
/// only whitespace.
fn middle(text: &str) -> Option<&str> {
    let start = text.floor_char_boundary((text.len() / 2).saturating_sub(12));
    let end = text.floor_char_boundary((start + 24).min(text.len()));
    let slice = &text[start..end];
    (!slice.trim().is_empty()).then_some(slice)
}

/// Checks one projection of a session with compactions: returns the compaction shown.
fn check(name: &str, messages: &[Message], view: &[Message], log: &ReductionLog) -> (usize, usize) {
    assert!(
        verify_log(log, messages).is_empty(),
        "{name}: {:?}",
        verify_log(log, messages)
    );
    assert_eq!(invert(view, log, messages).unwrap(), messages, "{name}");
    for api in [Api::OpenAi, Api::Anthropic] {
        assert_eq!(check_request(view, api), [], "{name} ({api:?})");
    }
    let shown = view
        .iter()
        .filter_map(|m| m.metadata.get(rehydrate::model::REDUCTION_METADATA_KEY))
        .filter_map(|id| log.get(id))
        .find(|r| matches!(r.kind, ReductionKind::Compaction { .. }))
        .unwrap_or_else(|| panic!("{name}: no compaction in the view"));
    let ReductionKind::Compaction {
        first,
        last,
        ref summary,
        ..
    } = shown.kind
    else {
        unreachable!("found as a compaction");
    };
    // The view opens (after what precedes the first turn) with the stub and the agent's own
    // summary, and the summary message is the latest the file records.
    assert!(is_compaction_summary(&messages[last]), "{name}");
    assert_eq!(*summary, summary_text(&messages[last]), "{name}");
    let latest = messages.iter().rposition(is_compaction_summary).unwrap();
    assert_eq!(last, latest, "{name}: the latest compaction is followed");
    assert_eq!(
        view[first].content_text().unwrap(),
        format!("{}\n\n{summary}", shown.stub),
        "{name}"
    );
    (first, last)
}

#[test]
fn every_recorded_compaction_is_followed_and_what_it_hid_is_found() {
    let Some((_, sessions)) = corpus_sessions(
        &[("claude-code", "jsonl"), ("codex", "jsonl")],
        "corpus compaction check",
    ) else {
        return;
    };
    let options = SearchOptions {
        mode: SearchMode::Literal,
        case_sensitive: true,
        ..SearchOptions::default()
    };
    let (mut with_compactions, mut outputs_found) = (0, 0);
    for path in &sessions {
        let bytes = std::fs::read(path).unwrap();
        let import = rehydrate::formats::import(path, &bytes, None)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        let messages = &import.messages;
        if !messages.iter().any(is_compaction_summary) {
            continue;
        }
        with_compactions += 1;
        for (preset, base) in [
            ("default", ReductionPolicy::default()),
            ("aggressive", ReductionPolicy::aggressive()),
        ] {
            let policy = ReductionPolicy {
                follow_compactions: true,
                ..base
            };
            let name = format!("{} ({preset})", path.display());
            let out = project_messages(messages, &ReductionLog::default(), &policy);
            let (first, last) = check(&name, messages, &out.view, &out.log);
            // Fed message by message, each compaction is minted as it arrives; the view and
            // log end as valid, and every compaction minted on the way still verifies.
            let mut reducer = Reducer::new(ReductionPolicy {
                minting: rehydrate::reduce::Minting::PerTurn,
                ..policy.clone()
            });
            for m in messages {
                reducer.project([m.clone()]);
            }
            reducer.close();
            let view = reducer.view().to_vec();
            check(
                &format!("{name}, per message"),
                messages,
                &view,
                reducer.log(),
            );
            let compactions = reducer
                .log()
                .reductions
                .iter()
                .filter(|r| matches!(r.kind, ReductionKind::Compaction { .. }))
                .count();
            let recorded = messages[..=last]
                .iter()
                .filter(|m| is_compaction_summary(m))
                .count();
            assert!(
                compactions >= 1 && compactions <= recorded,
                "{name}: {compactions}"
            );

            // Every tool output the compaction hid is found in it.
            let hidden = hidden_texts(&out.log, messages);
            assert!(hidden.unresolvable.is_empty(), "{name}");
            let compaction = hidden
                .texts
                .iter()
                .find(|t| matches!(t.reduction().kind, ReductionKind::Compaction { .. }))
                .unwrap_or_else(|| panic!("{name}: the compaction is not searched"));
            for m in &messages[first..last] {
                let Some(slice) = (m.role == Role::Tool)
                    .then(|| m.content_text())
                    .flatten()
                    .and_then(middle)
                else {
                    continue;
                };
                let query = Query::new(slice, &options).unwrap();
                let mut found = false;
                query.find_each(compaction.hidden(), |_| found = true);
                assert!(found, "{name}: {slice:?} not found in the compaction");
                outputs_found += 1;
            }
            // The whole pipeline once: the summary's first words are in the compaction's
            // hidden bytes, and sidecar_search lists the compaction.
            let summary_words = summary_text(&messages[last]);
            let needle = summary_words.get(..40).unwrap_or(&summary_words);
            let result = sidecar_search(&out.log, messages, needle, &options).unwrap();
            assert!(
                result
                    .matches
                    .iter()
                    .any(|m| m.reduction_id == compaction.reduction().id),
                "{name}: {needle:?}"
            );
        }
    }
    eprintln!(
        "corpus: {with_compactions} sessions with a compaction, {outputs_found} hidden tool outputs found in their compactions"
    );
    assert!(with_compactions > 0);
}
