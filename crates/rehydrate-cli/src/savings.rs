//! What each kind of reduction saved in a view: wire bytes and tokens, attributed message by
//! message (docs/FORMATS.md, "CLI JSON", `savings_by_kind`).
//!
//! A view message that stands for a reduction (it carries [`REDUCTION_METADATA_KEY`]) saves the
//! wire bytes of the history messages the reduction covers less its own; one a pairing repair
//! adds (the synthetic result of an unanswered call, the user message opening a conversation)
//! costs its own. Every other view message is a history message shown as it is, saving
//! nothing, and a reduction the view does not show (a truncation inside a later cleared range)
//! is counted through the reduction that shows its bytes. So the kinds' savings add up to the
//! view's: `bytes_before - bytes_after`, exactly.

use std::collections::BTreeMap;

use rehydrate::model::{Message, REDUCTION_METADATA_KEY, ReductionKind, ReductionLog};

use crate::tokens::TokenCounter;

/// What the reductions of one kind that the view shows saved; negative for a repair that adds
/// a message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct KindSavings {
    /// View messages of this kind.
    pub(crate) shown: usize,
    /// Wire bytes saved.
    pub(crate) bytes: i64,
    /// Tokens saved; `None` when tokens are not counted.
    pub(crate) tokens: Option<i64>,
}

/// The savings of each kind (by its stub token, `tool-output`, `turns-cleared`, ...) in `view`,
/// a projection of `history` with `log`. `tokens` counts tokens too.
pub(crate) fn savings_by_kind(
    history: &[Message],
    view: &[&Message],
    log: &ReductionLog,
    mut tokens: Option<&mut TokenCounter>,
) -> BTreeMap<&'static str, KindSavings> {
    let mut by_kind: BTreeMap<&'static str, KindSavings> = BTreeMap::new();
    for &shown in view {
        let Some(r) = shown
            .metadata
            .get(REDUCTION_METADATA_KEY)
            .and_then(|id| log.get(id))
        else {
            continue;
        };
        let covered: &[Message] = match r.kind {
            // A message added to the view: it stands for no history message.
            ReductionKind::UnansweredCall { .. } | ReductionKind::ConversationOpened { .. } => &[],
            ReductionKind::ToolOutputTruncated { .. }
            | ReductionKind::DuplicateOutput { .. }
            | ReductionKind::TurnsCleared { .. }
            | ReductionKind::Compaction { .. }
            | ReductionKind::OrphanResult { .. }
            | ReductionKind::SecondAnswer { .. }
            | ReductionKind::MovedResult { .. }
            | ReductionKind::FoldedCalls { .. }
            | ReductionKind::AssistantTextTruncated { .. }
            | ReductionKind::ToolInputElided { .. }
            | ReductionKind::Superseded { .. }
            | ReductionKind::FileReadElided { .. }
            | ReductionKind::FileReadDiffed { .. }
            | ReductionKind::OutputNormalized { .. }
            | ReductionKind::ImageRedacted { .. } => history.get(r.covered()).unwrap_or_default(),
        };
        let entry = by_kind.entry(r.kind.stub_kind().as_str()).or_default();
        entry.shown += 1;
        let wire = |ms: &[&Message]| ms.iter().map(|m| m.wire_len()).sum::<usize>() as i64;
        let covered: Vec<&Message> = covered.iter().collect();
        entry.bytes += wire(&covered) - wire(&[shown]);
        if let Some(counter) = tokens.as_deref_mut() {
            let saved =
                counter.count(covered.iter().copied()) as i64 - counter.count([shown]) as i64;
            *entry.tokens.get_or_insert(0) += saved;
        }
    }
    by_kind
}
