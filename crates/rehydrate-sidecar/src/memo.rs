//! [`VerifiedCache`]: the reductions of a log already verified against a minted view whose bytes
//! have not changed since, so a second search or expand over the same session does not hash
//! them again.

use std::sync::Arc;

use rehydrate_model::{Message, Reduction, ReductionId, ReductionKind};

use crate::error::Error;
use crate::resolve::{Verified, verify_reduction};
use crate::tool_input::argument_fields;

/// Which reductions of one log verified against one minted view, by log position.
///
/// A host that keeps its minted view in memory, appending to it and never changing a message
/// it holds, keeps one cache per session: a reduction that verified once (its digest checked
/// over the exact bytes, and every other check of [`verify_reduction`]) is then only located on
/// the next call ([`VerifiedCache::verify`]), which costs no hashing. The cache knows nothing of
/// the bytes themselves: whoever changes the minted view other than by appending to it (a
/// rewind that truncates it and then appends other messages, a model switch that drops
/// reasoning, a session read again from a file that may have changed) calls
/// [`VerifiedCache::clear`] first. An entry also names the reduction's id, so a log rewound and
/// minted again at the same position is verified again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifiedCache {
    /// What verified at each log position, `None` where nothing verified yet.
    verified: Vec<Option<Entry>>,
}

/// One reduction that verified.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// Its id: another reduction minted at the same position (a rewound log) is not it.
    id: ReductionId,
    /// The unescaped argument a tool-input elision hides, kept as verifying gave it: locating
    /// it again would parse the call's whole arguments.
    argument: Option<Arc<str>>,
}

impl VerifiedCache {
    /// Forgets every reduction: the next call verifies each one again.
    pub fn clear(&mut self) {
        self.verified.clear();
    }

    /// How many reductions are known to verify.
    pub fn len(&self) -> usize {
        self.verified.iter().filter(|v| v.is_some()).count()
    }

    /// Whether no reduction is known to verify.
    pub fn is_empty(&self) -> bool {
        self.verified.iter().all(Option::is_none)
    }

    /// Whether the reduction at log `position` verified against this minted view.
    pub fn holds(&self, position: usize, r: &Reduction) -> bool {
        self.entry(position, r).is_some()
    }

    fn entry(&self, position: usize, r: &Reduction) -> Option<&Entry> {
        self.verified
            .get(position)?
            .as_ref()
            .filter(|entry| entry.id == r.id)
    }

    /// Records that the reduction at log `position` verified, giving `verified`.
    pub fn insert(&mut self, position: usize, r: &Reduction, verified: &Verified<'_>) {
        if self.verified.len() <= position {
            self.verified.resize(position + 1, None);
        }
        let argument = match verified {
            Verified::Argument(value) => Some(Arc::from(value.as_str())),
            Verified::Text(_) | Verified::Turns { .. } | Verified::Images(_) => None,
        };
        self.verified[position] = Some(Entry {
            id: r.id.clone(),
            argument,
        });
    }

    /// [`verify_reduction`] of the reduction at log `position`, or, when it verified before,
    /// what verifying gives, located without hashing; a reduction that verifies is recorded.
    ///
    /// # Errors
    ///
    /// As [`verify_reduction`] (an error is not cached: it is checked again next time).
    pub fn verify<'a>(
        &mut self,
        position: usize,
        r: &Reduction,
        minted_view: &'a [Message],
    ) -> Result<Verified<'a>, Error> {
        if let Some(verified) = self.verified(position, r, minted_view) {
            return Ok(verified);
        }
        let verified = verify_reduction(r, minted_view)?;
        self.insert(position, r, &verified);
        Ok(verified)
    }

    /// The argument a tool-input elision at log `position` hides, as verifying it gave it, when
    /// this cache holds it: shared, not copied.
    pub fn argument(&self, position: usize, r: &Reduction) -> Option<Arc<str>> {
        self.entry(position, r)?.argument.clone()
    }

    /// What [`verify_reduction`] gives for the reduction at log `position` when this cache
    /// holds it, located without hashing; `None` when it does not (or the kind is one that is
    /// always verified whole: an image redaction, whose result is rendered while it is checked).
    pub fn verified<'a>(
        &self,
        position: usize,
        r: &Reduction,
        minted_view: &'a [Message],
    ) -> Option<Verified<'a>> {
        let entry = self.entry(position, r)?;
        match &entry.argument {
            Some(argument) => Some(Verified::Argument(argument.to_string())),
            None => located(r, minted_view),
        }
    }
}

/// What [`verify_reduction`] gives for a reduction known to verify against `minted_view`,
/// found without checking anything; `None` when its pointer does not address what its kind
/// needs, or for an image redaction.
fn located<'a>(r: &Reduction, minted_view: &'a [Message]) -> Option<Verified<'a>> {
    let index = r.ptr.addr.index;
    let msg = minted_view.get(index)?;
    match &r.kind {
        ReductionKind::ToolOutputTruncated { .. }
        | ReductionKind::AssistantTextTruncated { .. }
        | ReductionKind::DuplicateOutput { .. }
        | ReductionKind::Superseded { .. }
        | ReductionKind::FileReadElided { .. }
        | ReductionKind::FileReadDiffed { .. }
        | ReductionKind::OutputNormalized { .. } => msg.content_text().map(Verified::Text),
        ReductionKind::UnansweredCall { call, .. } => msg
            .tool_calls
            .get(*call)
            .map(|c| Verified::Text(c.arguments.as_str())),
        ReductionKind::ToolInputElided { call, field, .. } => {
            let call = msg.tool_calls.get(*call)?;
            argument_fields(&call.arguments)?
                .into_iter()
                .find(|f| f.name == *field)?
                .value
                .map(Verified::Argument)
        }
        ReductionKind::OrphanResult { .. }
        | ReductionKind::SecondAnswer { .. }
        | ReductionKind::MovedResult { .. }
        | ReductionKind::FoldedCalls { .. }
        | ReductionKind::ConversationOpened { .. } => Some(Verified::Turns {
            first: index,
            messages: std::slice::from_ref(msg),
        }),
        ReductionKind::TurnsCleared { first, last, .. }
        | ReductionKind::Compaction { first, last, .. } => Some(Verified::Turns {
            first: *first,
            messages: minted_view.get(*first..=*last)?,
        }),
        ReductionKind::ImageRedacted { .. } => None,
    }
}
