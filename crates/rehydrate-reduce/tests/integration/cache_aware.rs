//! Cache-aware minting (docs/COST.md, "Cache-aware minting"): a view keeps the prefix it was
//! sent with until a batch is shown, never costs more bytes than no reduction, and every
//! reduction it shows verifies and inverts exactly.

use proptest::prelude::*;
use rehydrate_model::{Message, ReductionKind, Role};
use rehydrate_reduce::{BatchCause, CacheState, Minting, Reducer, ReductionPolicy};
use rehydrate_sidecar::{invert, verify_log};

use crate::properties::{policy_with, session, turn};

fn wire_bytes<'a>(messages: impl IntoIterator<Item = &'a Message>) -> usize {
    messages.into_iter().map(Message::wire_len).sum()
}

/// Cache-aware policies only: batches of 0 bytes, a few hundred, or more than any of these
/// sessions saves; saving nothing, some or all of what they rewrite, or more.
fn cache_aware() -> impl Strategy<Value = ReductionPolicy> {
    (
        policy_with(prop_oneof![Just(0usize), Just(200), 0usize..3000], 400),
        prop_oneof![Just(0usize), 0usize..3000, Just(1 << 20)],
        prop_oneof![
            Just(0u32),
            0u32..2000,
            Just(Minting::AGGRESSIVE_SAVED_PER_MILLE)
        ],
    )
        .prop_map(
            |(policy, min_saved_bytes, min_saved_per_mille)| ReductionPolicy {
                minting: Minting::CacheAware {
                    min_saved_bytes,
                    min_saved_per_mille,
                    cache_ttl: Minting::DEFAULT_CACHE_TTL,
                },
                ..policy
            },
        )
}

/// Feeds `history` in chunks ending at `cuts`, the cache cold at the steps `colds` marks,
/// and checks every step.
fn check(
    history: &[Message],
    cuts: &[usize],
    colds: &[bool],
    policy: &ReductionPolicy,
) -> Result<(), TestCaseError> {
    let mut reducer = Reducer::new(policy.clone());
    let mut whole = Reducer::new(ReductionPolicy::repairs_only());
    let mut ends: Vec<usize> = cuts.iter().map(|&c| c % (history.len() + 1)).collect();
    ends.push(history.len());
    ends.sort_unstable();
    let (mut fed, mut sent): (usize, Vec<Message>) = (0, Vec::new());
    for (step, &end) in ends.iter().enumerate() {
        let cold = colds.get(step).copied().unwrap_or(false);
        let cache = if cold {
            CacheState::Cold
        } else {
            CacheState::Warm
        };
        let (batches, logged) = (reducer.batches().len(), reducer.log().len());
        let chunk = &history[fed..end];
        let fed_before = fed;
        let shown = reducer.project_cached(chunk.iter().cloned(), cache);
        whole.project(chunk.iter().cloned());
        fed = end;
        prop_assert_eq!(shown, reducer.log().len() - logged);
        let view = reducer.view().to_vec();
        // Until a batch is shown (or the cache is cold), the view begins with the one sent,
        // byte for byte, but where a pairing repair puts a result after its call inside it (a
        // result that arrived late, moved; a synthetic result for a call the model
        // abandoned).
        let released = reducer.batches()[batches..].iter().any(|b| b.released > 0);
        let inserted = reducer.log().reductions[logged..].iter().any(|r| {
            matches!(
                r.kind,
                ReductionKind::MovedResult { .. } | ReductionKind::UnansweredCall { .. }
            )
        });
        // A turns-cleared range is shown as decided, and so is an agent's compaction (the
        // agent rewrote its own context there), so they are left out here.
        let clears = policy.clear_turns_older_than.is_some()
            || reducer.log().reductions[logged..]
                .iter()
                .any(|r| matches!(r.kind, ReductionKind::Compaction { .. }));
        if !cold && !released && !inserted && !clears {
            prop_assert!(view.len() >= sent.len(), "step {}", step);
            let first = (0..sent.len()).find(|&i| view[i] != sent[i]);
            prop_assert!(
                first.is_none(),
                "step {}: view message {:?} changed from {:?} to {:?}",
                step,
                first,
                first.map(|i| &sent[i]),
                first.map(|i| &view[i])
            );
        }
        for b in &reducer.batches()[batches..] {
            match b.cause {
                // A first projection has nothing cached either.
                BatchCause::Cold => prop_assert!(cold || fed_before == 0),
                BatchCause::Saved(bytes) => {
                    let Minting::CacheAware {
                        min_saved_bytes, ..
                    } = policy.minting
                    else {
                        unreachable!("cache-aware policies only");
                    };
                    prop_assert!(bytes >= min_saved_bytes);
                }
                BatchCause::Decided => prop_assert_eq!(b.released, 0),
            }
        }
        // Never more bytes than the same session without reduction.
        prop_assert!(
            wire_bytes(&view) <= wire_bytes(whole.view().iter()),
            "step {}: {} > {}",
            step,
            wire_bytes(&view),
            wire_bytes(whole.view().iter())
        );
        // Every reduction shown is in the log, verifies, and inverts exactly.
        prop_assert!(verify_log(reducer.log(), reducer.history()).is_empty());
        prop_assert_eq!(
            invert(&view, reducer.log(), reducer.history()).unwrap(),
            &history[..end]
        );
        for (i, r) in reducer.log().reductions.iter().enumerate() {
            prop_assert_eq!(r.id.ordinal(), i);
            prop_assert!(reducer.batch_of(i).is_some());
        }
        sent = view;
    }
    // A cold cache at the end shows every waiting reduction.
    reducer.project_cached([], CacheState::Cold);
    prop_assert_eq!(reducer.waiting(), (0, 0));
    prop_assert!(verify_log(reducer.log(), history).is_empty());
    prop_assert_eq!(
        invert(&reducer.view().to_vec(), reducer.log(), history).unwrap(),
        history
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_cache_aware_view_keeps_its_sent_prefix_until_a_batch(
        turns in proptest::collection::vec(turn(), 0..6),
        policy in cache_aware(),
        cuts in proptest::collection::vec(0usize..200, 0..10),
        colds in proptest::collection::vec(proptest::bool::weighted(0.15), 10),
    ) {
        check(&session(&turns, false), &cuts, &colds, &policy)?;
    }
}

/// Ten turns of one 6,000-byte output each: every truncation saves about 5,500 bytes, so a
/// 16 KiB batch is shown at the third that leaves the protected window, and the view sent
/// before it is kept byte for byte until then.
#[test]
fn truncations_wait_for_a_batch_then_show_together() {
    let policy = ReductionPolicy {
        tool_output_trigger_bytes: 1024,
        head_bytes: 256,
        tail_bytes: 256,
        minting: Minting::CacheAware {
            min_saved_bytes: 16 * 1024,
            min_saved_per_mille: 0,
            cache_ttl: Minting::DEFAULT_CACHE_TTL,
        },
        ..ReductionPolicy::default()
    };
    let mut reducer = Reducer::new(policy);
    reducer.project([Message::text(Role::User, "go")]);
    let mut shown = Vec::new();
    for i in 0..10 {
        let id = format!("c{i}");
        let out = format!("output {i}: {}\n", "x".repeat(40)).repeat(120);
        let before = reducer.view().to_vec();
        shown.push(reducer.project([
            Message::tool_call(&id, "bash", "{}"),
            Message::tool_result(&id, out),
        ]));
        if shown[i] == 0 {
            assert_eq!(reducer.view().to_vec()[..before.len()], before[..]);
        }
    }
    // Results leave the window from the fourth turn on; batches of three.
    assert_eq!(shown, [0, 0, 0, 0, 0, 3, 0, 0, 3, 0]);
    assert_eq!(reducer.waiting().0, 1);
    let batches: Vec<(std::ops::Range<usize>, usize)> = reducer
        .batches()
        .iter()
        .map(|b| (b.ordinals.clone(), b.released))
        .collect();
    assert_eq!(batches, [(0..3, 3), (3..6, 3)]);
    let ids: Vec<usize> = reducer
        .log()
        .reductions
        .iter()
        .map(|r| r.ptr.addr.index)
        .collect();
    assert_eq!(ids, [2, 4, 6, 8, 10, 12]);
}

/// A reduction deep in a warm session, worth less than its rewrite, is shown once it has
/// waited long enough to have cost the rewrite in reads (the rent rule): 11.5 times the bytes
/// the batch rewrites, summed over the projections it waited.
#[test]
fn a_deep_reduction_is_shown_once_its_wait_has_cost_the_rewrite() {
    let policy = ReductionPolicy {
        tool_output_trigger_bytes: 1024,
        head_bytes: 256,
        tail_bytes: 256,
        protect_last_n_tool_results: 1,
        minting: Minting::CacheAware {
            min_saved_bytes: 0,
            min_saved_per_mille: 1_000_000,
            cache_ttl: Minting::DEFAULT_CACHE_TTL,
        },
        ..ReductionPolicy::default()
    };
    let mut reducer = Reducer::new(policy);
    reducer.project([Message::text(Role::User, "go")]);
    // One 4,000-byte output, then small ones: it leaves the window at the next turn and waits
    // (it saves far less than 1000 times what it rewrites).
    let big = "x".repeat(3999) + "\n";
    reducer.project([
        Message::tool_call("c0", "bash", "{}"),
        Message::tool_result("c0", big),
    ]);
    let mut shown_at = None;
    for i in 1..200 {
        let id = format!("c{i}");
        let shown = reducer.project([
            Message::tool_call(&id, "bash", "{}"),
            Message::tool_result(&id, "ok"),
        ]);
        if shown > 0 {
            shown_at = Some(i);
            break;
        }
        assert_eq!(reducer.waiting().0, 1);
    }
    // The truncation saves S bytes and waits while its rent, S times the turns since it was
    // decided (i - 1 at turn i), is under 11.5 times the bytes from its message on: its
    // shown form (R0 bytes) and 12 bytes a turn (the call's id, name and arguments, the
    // result's id and text). With S = 3,374 and R0 = 628, 2 S (i - 1) >= 23 (R0 + 12 i)
    // first holds at turn 4 (20,244 >= 15,548; at turn 3, 13,496 < 15,272).
    let at = shown_at.expect("the deep reduction is shown in time");
    assert_eq!(at, 4);
    assert_eq!(reducer.log().reductions[0].ptr.addr.index, 2);
    assert_eq!(reducer.batches()[0].cause, BatchCause::Saved(3374));
}
