//! [`check_compaction_boundary`] and [`auto_compact`]: what the signals allow.

use rehydrate_store::SessionStore;

use crate::error::{Error, GROWING_CITATIONS, RehydrationDivergence};
use crate::signals::CompactionSignals;

/// What a host does at a compaction boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Keep compacting.
    Continue,
    /// Keep compacting, and widen the store's retention (re-index): the summaries cite what the
    /// store does not hold, which is recoverable.
    WidenRetention,
    /// Stop auto-compaction and run a full reconcile pass.
    Freeze,
}

impl Decision {
    /// `continue`, `widen_retention` or `freeze`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Continue => "continue",
            Decision::WidenRetention => "widen_retention",
            Decision::Freeze => "freeze",
        }
    }
}

/// A decision and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Assessment {
    /// What to do.
    pub decision: Decision,
    /// Why, one clause each (none for continue); for a freeze caused by growing citations the
    /// first is [`GROWING_CITATIONS`].
    pub reasons: Vec<String>,
}

/// The decision at a compaction boundary, with its reasons (SPEC seed 002 rules 1-4, with this
/// crate's choices for the cases the seed leaves open; docs/FORMATS.md, "Divergence signals"):
///
/// - a reduction whose bytes failed their digest → freeze (the store cannot serve what is cited);
/// - divergence (signal 1, or any dangling citation) while references per summary grow
///   (signal 2) → freeze, the first reason [`GROWING_CITATIONS`];
/// - divergence alone, or reported misses → widen retention (never continue while a summary
///   cites an id that does not resolve);
/// - signal 2 alone → continue (it is reported in the signals);
/// - otherwise → continue.
pub fn assess(signals: &CompactionSignals) -> Assessment {
    let dangling: usize = signals.dangling.values().map(Vec::len).sum();
    let diverging = signals.ratio_inverted() || dangling > 0;
    let mut divergence = format!(
        "active summaries cite {}, the store resolves {}, {} not resolve",
        counted(signals.cited.len(), "distinct id", "distinct ids"),
        signals.resolvable.len(),
        counted(dangling, "cited id does", "cited ids do")
    );
    if dangling > 0 {
        // Cited ids come from stub lines, so they follow the id grammar.
        let ids: Vec<&str> = signals
            .dangling
            .values()
            .flatten()
            .take(5)
            .map(String::as_str)
            .collect();
        let more = dangling.saturating_sub(ids.len());
        divergence.push_str(&format!(
            " ({}{})",
            ids.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    let mut freeze = Vec::new();
    if diverging && signals.refs_growing() {
        freeze.push(GROWING_CITATIONS.to_string());
        freeze.push(divergence.clone());
    }
    if !signals.digest_failures.is_empty() {
        freeze.push(format!(
            "{} ({}): reconcile before compacting again",
            counted(
                signals.digest_failures.len(),
                "reduction failed its digest",
                "reductions failed their digest"
            ),
            signals
                .digest_failures
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !freeze.is_empty() {
        return Assessment {
            decision: Decision::Freeze,
            reasons: freeze,
        };
    }
    let mut widen = Vec::new();
    if diverging {
        widen.push(divergence);
    }
    if signals.misses > 0 {
        widen.push(format!(
            "the host reported {}",
            counted(
                signals.misses,
                "expand or search miss",
                "expand or search misses"
            )
        ));
    }
    if widen.is_empty() {
        return Assessment {
            decision: Decision::Continue,
            reasons: Vec::new(),
        };
    }
    Assessment {
        decision: Decision::WidenRetention,
        reasons: widen,
    }
}

/// [`assess`], with a freeze as an error: what a host checks at a compaction boundary.
///
/// # Errors
///
/// [`RehydrationDivergence`] for freeze, with its reasons.
pub fn check_compaction_boundary(
    signals: &CompactionSignals,
) -> Result<Decision, RehydrationDivergence> {
    let Assessment { decision, reasons } = assess(signals);
    match decision {
        Decision::Freeze => Err(RehydrationDivergence {
            signals: Box::new(signals.clone()),
            reasons,
        }),
        other => Ok(other),
    }
}

/// What [`auto_compact`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compacted {
    /// The decision that allowed it.
    pub decision: Decision,
    /// The epoch of the summary recorded.
    pub epoch: u64,
}

/// A summary the host's summarizer wrote.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Summary {
    /// The text, citing reductions with their stub lines.
    pub text: String,
    /// The epochs of earlier summaries it replaces.
    pub retires: Vec<u64>,
}

/// Runs the host's summarizer only when the store's signals allow it, and records its summary
/// at the next epoch (SPEC seed 002 guard B).
///
/// # Errors
///
/// [`Error::Divergence`] or [`Error::Invalid`] without calling `summarize`;
/// [`Error::Store`] when the summary cannot be recorded.
pub fn auto_compact(
    store: &mut SessionStore,
    summarize: impl FnOnce(&CompactionSignals, Decision) -> Summary,
) -> Result<Compacted, Error> {
    let signals = CompactionSignals::from_store(store.state())?;
    let decision = check_compaction_boundary(&signals)?;
    let summary = summarize(&signals, decision);
    let epoch = store.record_summary(&summary.text, &summary.retires)?;
    Ok(Compacted { decision, epoch })
}

/// `n` and the noun phrase in its number: `1 distinct id`, `2 distinct ids`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
