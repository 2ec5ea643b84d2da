//! [`reconcile`]: the full pass a freeze calls for.

use std::collections::BTreeSet;

use rehydrate_model::{Message, find_stubs};
use rehydrate_sidecar::verify_log;
use rehydrate_store::StoreState;

/// What a reconcile pass found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReconcileReport {
    /// Every reduction that does not verify against the minted view, with why.
    pub failures: Vec<(String, String)>,
    /// Per active summary (by epoch): the ids it cites that do not resolve (unknown, or failing
    /// verification).
    pub dangling: Vec<(u64, Vec<String>)>,
    /// The epochs of the active summaries a host must write again (those with dangling
    /// citations).
    pub resummarize: Vec<u64>,
}

/// Re-verifies every reduction of the store's log against `minted_view` (the host's minted
/// view, or the store's own messages), and lists per active summary the citations that do not
/// resolve. This reads the whole session; it is the pass a freeze asks for.
pub fn reconcile(state: &StoreState, minted_view: &[Message]) -> ReconcileReport {
    let failures: Vec<(String, String)> = verify_log(&state.log, minted_view)
        .into_iter()
        .map(|e| {
            (
                e.reduction_id().unwrap_or_default().to_string(),
                e.to_string(),
            )
        })
        .collect();
    let failed: BTreeSet<&str> = failures.iter().map(|(id, _)| id.as_str()).collect();
    let resolvable: BTreeSet<String> = state
        .log
        .reductions
        .iter()
        .map(|r| r.id.to_string())
        .filter(|id| !failed.contains(id.as_str()))
        .collect();
    let mut active: Vec<(u64, &str)> = Vec::new();
    for s in &state.summaries {
        active.retain(|(epoch, _)| !s.retires.contains(epoch));
        active.push((s.epoch, &s.text));
    }
    let dangling: Vec<(u64, Vec<String>)> = active
        .iter()
        .filter_map(|&(epoch, text)| {
            let ids: BTreeSet<String> = find_stubs(text)
                .iter()
                .map(|s| s.id().to_string())
                .collect();
            let missing: Vec<String> = ids
                .into_iter()
                .filter(|id| !resolvable.contains(id))
                .collect();
            (!missing.is_empty()).then_some((epoch, missing))
        })
        .collect();
    let resummarize = dangling.iter().map(|(epoch, _)| *epoch).collect();
    ReconcileReport {
        failures,
        dangling,
        resummarize,
    }
}
