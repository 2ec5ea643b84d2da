//! Faults injected at every write and sync of a session store's run: a write that fails with
//! `ENOSPC` or `EIO` (keeping nothing, or a short write keeping part of the record), and a sync
//! that fails with `EIO`. Each under every sync policy, at every point of one recorded session:
//! the error names the store and its cause, the store takes nothing more, nothing acknowledged
//! before the fault is lost, what a crash right after it would keep (only the synced bytes)
//! reopens or is repaired to a prefix of what was written, and a half-written record never
//! reads as whole.

use rehydrate_model::{Message, Reduction, Role};
use rehydrate_store::{Error, MemoryBackend, MissReason, SessionStore, StoreState, SyncPolicy};
use rehydrate_test_support::truncation;

use crate::faulty::{Fault, Faulty};
use crate::store::message;

/// One step of the recorded session.
#[derive(Debug, Clone)]
enum Step {
    Message(Message),
    Reduction(Reduction),
    Summary(String),
    Miss(String),
}

/// The session every run records: messages, a reduction of one of them, a summary, a miss.
fn steps() -> Vec<Step> {
    let mut steps = Vec::new();
    for i in 0..6u64 {
        steps.push(Step::Message(message(i)));
    }
    let text = "line one\nline two\nline three\n";
    steps.push(Step::Message(Message::tool_result("call_t", text)));
    steps.push(Step::Reduction(truncation(0, 6, text, (9, 18), |r| {
        rehydrate_sidecar::expected_stub(r, &[])
    })));
    steps.push(Step::Summary("the build failed twice".to_string()));
    steps.push(Step::Message(Message::text(Role::Assistant, "fixed")));
    steps.push(Step::Miss("r9.0123456789abcdef".to_string()));
    steps
}

/// Records `step`.
fn record(store: &mut SessionStore, step: &Step) -> Result<(), Error> {
    match step {
        Step::Message(m) => store.append_message(m).map(drop),
        Step::Reduction(r) => store.append_reduction(r),
        Step::Summary(text) => store.record_summary(text, &[]).map(drop),
        Step::Miss(id) => store.record_miss(id, MissReason::Unknown),
    }
}

/// What a state holds of each kind of step, in order.
fn kept(state: &StoreState) -> Vec<Step> {
    let mut out: Vec<Step> = state.messages.iter().cloned().map(Step::Message).collect();
    out.extend(state.log.reductions.iter().cloned().map(Step::Reduction));
    out.extend(
        state
            .summaries
            .iter()
            .map(|s| Step::Summary(s.text.clone())),
    );
    out.extend(
        state
            .misses
            .iter()
            .map(|m| Step::Miss(m.reduction_id.clone())),
    );
    out
}

/// `steps` grouped as [`kept`] orders them.
fn grouped(steps: &[Step]) -> Vec<Step> {
    let rank = |s: &Step| match s {
        Step::Message(_) => 0,
        Step::Reduction(_) => 1,
        Step::Summary(_) => 2,
        Step::Miss(_) => 3,
    };
    let mut out = steps.to_vec();
    out.sort_by_key(rank);
    out
}

/// Debug forms, to compare steps (`Reduction` and `Message` compare; the rest is text).
fn shown(steps: &[Step]) -> Vec<String> {
    steps.iter().map(|s| format!("{s:?}")).collect()
}

/// The state read back from `bytes` as the next open finds them: opened, or repaired first
/// when the open reports a torn tail. Any other refusal names the store.
fn reopen(name: &str, bytes: Vec<u8>, what: &str) -> Option<StoreState> {
    let backend = MemoryBackend::with_bytes(name, bytes);
    match SessionStore::open_in(backend.clone(), SyncPolicy::Never) {
        Ok(store) => Some(store.state().clone()),
        Err(Error::Torn { .. }) => {
            SessionStore::repair_in(backend.clone())
                .unwrap_or_else(|e| panic!("{what}: a torn store does not repair: {e}"));
            let store = SessionStore::open_in(backend, SyncPolicy::Never)
                .unwrap_or_else(|e| panic!("{what}: a repaired store does not open: {e}"));
            Some(store.state().clone())
        }
        Err(e) => {
            assert!(
                e.to_string().contains(name),
                "{what}: the refusal does not name the store: {e}"
            );
            None
        }
    }
}

#[test]
fn a_fault_at_any_write_or_sync_loses_nothing_acknowledged() {
    let steps = steps();
    let name = "faulty:session";
    for policy in [
        SyncPolicy::EveryRecord,
        SyncPolicy::EveryBytes(300),
        SyncPolicy::Never,
    ] {
        for fault in [
            Fault::NoSpace,
            Fault::Eio,
            Fault::ShortWrite,
            Fault::SyncFails,
        ] {
            let mut runs = 0;
            // The first run past the last operation of the fault's kind has no fault: it ends
            // the loop, so every operation of that kind failed once.
            for fail_at in 0.. {
                let memory = MemoryBackend::new(name);
                let backend = Faulty::new(memory.clone(), fault, fail_at);
                let (ops, durable) = (backend.ops(), backend.durable());
                let what = format!("{policy:?}, {fault:?} at operation {fail_at}");
                let (acknowledged, failed) = run(backend, policy, &steps, name, fault, &what);
                if fail_at >= ops() {
                    assert_eq!(acknowledged.len(), steps.len(), "{what}");
                    break;
                }
                runs += 1;
                let attempted: Vec<Step> = acknowledged.iter().cloned().chain(failed).collect();
                check_after(name, &memory.bytes(), &acknowledged, &attempted, &what);
                // A crash right after the fault: only what a sync made durable is there.
                let synced = durable();
                let crashed = &memory.bytes()[..synced];
                match reopen(name, crashed.to_vec(), &what) {
                    Some(state) => {
                        let k = written_prefix(&kept(&state), &attempted).unwrap_or_else(|| {
                            panic!("{what}: after a crash the store holds steps not written in that order")
                        });
                        if policy == SyncPolicy::EveryRecord {
                            assert!(
                                k >= acknowledged.len(),
                                "{what}: an acknowledged record was lost"
                            );
                        }
                    }
                    None => assert_eq!(synced, 0, "{what}: a synced store does not open"),
                }
            }
            // Writes: the header and one record per step. Syncs: the header's, then as the
            // policy says.
            let expected = match (fault, policy) {
                (Fault::SyncFails, SyncPolicy::EveryRecord) => 1 + steps.len(),
                (Fault::SyncFails, SyncPolicy::Never) => 1,
                (Fault::SyncFails, SyncPolicy::EveryBytes(n)) => 1 + threshold_syncs(&steps, n),
                _ => 1 + steps.len(),
            };
            assert_eq!(runs, expected, "{policy:?}, {fault:?}");
        }
    }
}

/// How many syncs `SyncPolicy::EveryBytes(n)` makes while `steps` are recorded: one each time
/// the bytes appended since the last reach `n`, each record's size measured in memory.
fn threshold_syncs(steps: &[Step], n: u64) -> usize {
    let memory = MemoryBackend::new("sizes");
    let mut store = SessionStore::create_in(memory.clone(), SyncPolicy::Never).unwrap();
    let (mut unsynced, mut syncs, mut len) = (0, 0, memory.bytes().len());
    for step in steps {
        record(&mut store, step).unwrap();
        unsynced += (memory.bytes().len() - len) as u64;
        len = memory.bytes().len();
        if unsynced >= n {
            syncs += 1;
            unsynced = 0;
        }
    }
    syncs
}

/// Records `steps` in a new store on `backend` until the first error, which must name the
/// store and the fault's cause; after it the store refuses every record. Returns the steps
/// acknowledged and the one that failed.
fn run(
    backend: Faulty,
    policy: SyncPolicy,
    steps: &[Step],
    name: &str,
    fault: Fault,
    what: &str,
) -> (Vec<Step>, Option<Step>) {
    let mut acknowledged = Vec::new();
    let mut failed: Option<Step> = None;
    let named = |e: &Error| {
        let shown = e.to_string();
        assert!(
            shown.contains(name) && shown.contains(fault.cause()),
            "{what}: {shown}"
        );
    };
    let mut store = match SessionStore::create_in(backend, policy) {
        Ok(store) => store,
        Err(e) => {
            named(&e);
            return (acknowledged, failed);
        }
    };
    for step in steps {
        match (record(&mut store, step), &failed) {
            (Ok(()), None) => acknowledged.push(step.clone()),
            (Ok(()), Some(_)) => panic!("{what}: the store took a record after a fault"),
            (Err(e), None) => {
                named(&e);
                failed = Some(step.clone());
            }
            (Err(e), Some(_)) => assert!(matches!(e, Error::Failed { .. }), "{what}: {e}"),
        }
    }
    (acknowledged, failed)
}

/// The process lived on after the fault: every byte written is there, and the next open
/// (after a repair of a torn tail) holds every acknowledged step, and at most the one that
/// failed besides.
fn check_after(name: &str, bytes: &[u8], acknowledged: &[Step], attempted: &[Step], what: &str) {
    let Some(state) = reopen(name, bytes.to_vec(), what) else {
        assert!(
            acknowledged.is_empty(),
            "{what}: a store with records does not open"
        );
        return;
    };
    let back = shown(&kept(&state));
    assert!(
        back == shown(&grouped(acknowledged)) || back == shown(&grouped(attempted)),
        "{what}: reopened {back:?}"
    );
}

/// The `k` for which `back` is the first `k` steps of `attempted` (grouped as a state holds
/// them), if any.
fn written_prefix(back: &[Step], attempted: &[Step]) -> Option<usize> {
    let back = shown(back);
    (0..=attempted.len())
        .rev()
        .find(|&k| shown(&grouped(&attempted[..k])) == back)
}
