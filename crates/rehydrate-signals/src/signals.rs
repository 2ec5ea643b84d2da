//! [`CompactionSignals`]: what a store's summaries cite against what it can resolve, computed
//! from the store's state alone (its summaries, log and reported misses; never the messages).

use std::collections::{BTreeMap, BTreeSet};

use rehydrate_model::{ReductionLog, find_stubs};
use rehydrate_store::{Miss, MissReason, StoreState, SummaryRecord};

use crate::error::InvalidSignals;

/// The divergence signals of a session store (SPEC seed 002).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactionSignals {
    /// The latest compaction epoch (`None` before the first summary).
    pub epoch: Option<u64>,
    /// The distinct reduction ids cited (as stub lines) in the active summaries.
    pub cited: BTreeSet<String>,
    /// The distinct reduction ids the store can resolve: its log, less the ids a host reported
    /// as failing their digest.
    pub resolvable: BTreeSet<String>,
    /// Per epoch, oldest first: the mean number of distinct ids each active summary cited right
    /// after that epoch's summary was written.
    pub refs_per_summary: Vec<f64>,
    /// Per active summary (by epoch): the ids it cites that the store cannot resolve.
    pub dangling: BTreeMap<u64, Vec<String>>,
    /// Ids a host reported as failing their digest.
    pub digest_failures: BTreeSet<String>,
    /// Expand and search misses the host reported.
    pub misses: usize,
}

impl CompactionSignals {
    /// The signals of a store's state, checking the validity conditions: summary epochs strictly
    /// increase, and a summary retires only earlier epochs. Work is linear in the summaries'
    /// text and the log's length.
    ///
    /// # Errors
    ///
    /// [`InvalidSignals`] naming the condition broken.
    pub fn from_store(state: &StoreState) -> Result<CompactionSignals, InvalidSignals> {
        CompactionSignals::from_records(&state.log, &state.summaries, &state.misses)
    }

    /// [`CompactionSignals::from_store`] from the three parts of a store's state it reads.
    ///
    /// # Errors
    ///
    /// As [`CompactionSignals::from_store`].
    pub fn from_records(
        log: &ReductionLog,
        summaries: &[SummaryRecord],
        misses: &[Miss],
    ) -> Result<CompactionSignals, InvalidSignals> {
        let digest_failures: BTreeSet<String> = misses
            .iter()
            .filter(|m| m.reason == MissReason::Digest)
            .map(|m| m.reduction_id.clone())
            .collect();
        let resolvable: BTreeSet<String> = log
            .reductions
            .iter()
            .map(|r| r.id.to_string())
            .filter(|id| !digest_failures.contains(id))
            .collect();
        // Active summaries by epoch, with the distinct ids each cites.
        let mut active: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
        let mut refs_per_summary = Vec::with_capacity(summaries.len());
        let mut last: Option<u64> = None;
        for (k, summary) in summaries.iter().enumerate() {
            if let Some(previous) = last
                && summary.epoch <= previous
            {
                return Err(InvalidSignals::EpochOrder {
                    summary: k,
                    epoch: summary.epoch,
                    previous,
                });
            }
            for &retired in &summary.retires {
                if retired >= summary.epoch {
                    return Err(InvalidSignals::RetiresLater {
                        epoch: summary.epoch,
                        retired,
                    });
                }
                active.remove(&retired);
            }
            let ids: BTreeSet<String> = find_stubs(&summary.text)
                .iter()
                .map(|s| s.id().to_string())
                .collect();
            active.insert(summary.epoch, ids);
            let total: usize = active.values().map(BTreeSet::len).sum();
            refs_per_summary.push(total as f64 / active.len() as f64);
            last = Some(summary.epoch);
        }
        let cited: BTreeSet<String> = active.values().flatten().cloned().collect();
        let dangling: BTreeMap<u64, Vec<String>> = active
            .iter()
            .filter_map(|(&epoch, ids)| {
                let missing: Vec<String> = ids
                    .iter()
                    .filter(|id| !resolvable.contains(*id))
                    .cloned()
                    .collect();
                (!missing.is_empty()).then_some((epoch, missing))
            })
            .collect();
        Ok(CompactionSignals {
            epoch: last,
            cited,
            resolvable,
            refs_per_summary,
            dangling,
            digest_failures,
            misses: misses.len(),
        })
    }

    /// Signal 1, ratio inversion: more distinct ids cited in active summaries than the store
    /// can resolve (strictly).
    pub fn ratio_inverted(&self) -> bool {
        self.cited.len() > self.resolvable.len()
    }

    /// Signal 2: references per summary rose from the previous epoch to the last (strictly;
    /// false with fewer than two epochs).
    pub fn refs_growing(&self) -> bool {
        match self.refs_per_summary.as_slice() {
            [.., previous, last] => last > previous,
            _ => false,
        }
    }
}
