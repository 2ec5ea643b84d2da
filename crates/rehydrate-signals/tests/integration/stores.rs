//! Signals from real stores: citations from stub lines, dangling and never-minted ids, digest
//! failures, the validity conditions, auto-compaction and reconcile.

use std::path::PathBuf;

use rehydrate_model::{Message, Reduction, ReductionId, Stub, StubKind};
use rehydrate_sidecar::{content_digest, expected_stub};
use rehydrate_signals::{
    CompactionSignals, Decision, Error, InvalidSignals, Summary, auto_compact,
    check_compaction_boundary, reconcile,
};
use rehydrate_store::{
    MissReason, SessionStore, StoreWriter, SummaryRecord, SyncPolicy, read_store,
};
use rehydrate_test_support::truncation;

fn scratch(test: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("signals-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("s.rhyd")
}

/// A store of three tool outputs, each reduced.
fn store_with_reductions(path: &std::path::Path) -> (SessionStore, Vec<Reduction>) {
    let mut store = SessionStore::create(path, SyncPolicy::Never).unwrap();
    let mut reductions = Vec::new();
    for i in 0..3 {
        let text = format!("output {i} {}", "x".repeat(50));
        store
            .append_message(&Message::tool_result(format!("c{i}"), text.clone()))
            .unwrap();
        // All but the first 2 bytes hidden; no line break, so 0 hidden lines.
        let r = truncation(i, i, &text, (2, text.len()), |r| expected_stub(r, &[]));
        store.append_reduction(&r).unwrap();
        reductions.push(r);
    }
    (store, reductions)
}

/// A stub line for an id the store never minted.
fn unminted_stub(ordinal: usize) -> String {
    let id = ReductionId::new(ordinal, &content_digest(b"never minted"));
    Stub::render_line(StubKind::ToolOutput, &id, "40 of 50 bytes hidden (0 lines)").unwrap()
}

#[test]
fn citations_come_from_stub_lines_in_active_summaries() {
    let path = scratch("citations");
    let (mut store, reductions) = store_with_reductions(&path);
    // Prose that mentions an id is not a citation; a stub line is.
    let first = format!(
        "We listed files (see {}). Earlier: {}",
        reductions[0].id, reductions[1].stub
    );
    store.record_summary(&first, &[]).unwrap();
    let second = format!("{}\n{}", reductions[1].stub, reductions[2].stub);
    store.record_summary(&second, &[0]).unwrap();
    let signals = CompactionSignals::from_store(store.state()).unwrap();
    assert_eq!(signals.epoch, Some(1));
    let ids = |rs: &[usize]| {
        rs.iter()
            .map(|&i| reductions[i].id.to_string())
            .collect::<std::collections::BTreeSet<_>>()
    };
    // Epoch 0 retired: only the second summary is active.
    assert_eq!(signals.cited, ids(&[1, 2]));
    assert_eq!(signals.resolvable, ids(&[0, 1, 2]));
    assert_eq!(signals.refs_per_summary, [1.0, 2.0]);
    assert!(signals.dangling.is_empty());
    // References grew, but every citation resolves: signal 2 alone continues.
    assert!(signals.refs_growing() && !signals.ratio_inverted());
    assert_eq!(check_compaction_boundary(&signals), Ok(Decision::Continue));
}

#[test]
fn a_summary_citing_a_never_minted_id_never_continues() {
    let path = scratch("unminted");
    let (mut store, reductions) = store_with_reductions(&path);
    store
        .record_summary(
            &format!("{}\n{}", reductions[0].stub, unminted_stub(40)),
            &[],
        )
        .unwrap();
    let signals = CompactionSignals::from_store(store.state()).unwrap();
    let never = ReductionId::new(40, &content_digest(b"never minted")).to_string();
    assert_eq!(signals.dangling.get(&0), Some(&vec![never]));
    assert_eq!(
        check_compaction_boundary(&signals),
        Ok(Decision::WidenRetention)
    );
    // Citing more of them at the next epoch: references grow with a dangling citation: freeze.
    store
        .record_summary(
            &format!(
                "{}\n{}\n{}",
                reductions[0].stub,
                unminted_stub(40),
                unminted_stub(41)
            ),
            &[0],
        )
        .unwrap();
    let signals = CompactionSignals::from_store(store.state()).unwrap();
    let err = check_compaction_boundary(&signals).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "{}; active summaries cite 3 distinct ids",
            rehydrate_signals::GROWING_CITATIONS.trim_end_matches('.')
        )),
        "{err}"
    );
    // auto_compact does not call the summarizer.
    let mut called = false;
    let out = auto_compact(&mut store, |_, _| {
        called = true;
        Summary::default()
    });
    assert!(matches!(out, Err(Error::Divergence(_))));
    assert!(!called);
    assert_eq!(store.state().summaries.len(), 2);
}

#[test]
fn a_reduction_that_failed_its_digest_freezes() {
    let path = scratch("digest");
    let (mut store, reductions) = store_with_reductions(&path);
    store
        .record_miss(reductions[2].id.as_str(), MissReason::Digest)
        .unwrap();
    drop(store);
    let (state, _) = read_store(&path).unwrap();
    let signals = CompactionSignals::from_store(&state).unwrap();
    assert_eq!(signals.resolvable.len(), 2);
    assert_eq!(signals.misses, 1);
    let err = check_compaction_boundary(&signals).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "1 reduction failed its digest ({}): reconcile before compacting again",
            reductions[2].id
        )
    );
}

#[test]
fn epochs_out_of_order_are_an_error() {
    let path = scratch("epochs");
    let mut w = StoreWriter::new(Vec::new()).unwrap();
    for epoch in [0, 2, 1] {
        w.summary(&SummaryRecord {
            epoch,
            text: String::new(),
            retires: Vec::new(),
        })
        .unwrap();
    }
    std::fs::write(&path, w.into_inner()).unwrap();
    let (state, _) = read_store(&path).unwrap();
    assert_eq!(
        CompactionSignals::from_store(&state),
        Err(InvalidSignals::EpochOrder {
            summary: 2,
            epoch: 1,
            previous: 2
        })
    );
    let mut store = SessionStore::open(&path, SyncPolicy::Never).unwrap();
    let mut called = false;
    let out = auto_compact(&mut store, |_, _| {
        called = true;
        Summary::default()
    });
    assert!(matches!(out, Err(Error::Invalid(_))));
    assert!(!called);
    // A summary that retires a later epoch is invalid too.
    let mut w = StoreWriter::new(Vec::new()).unwrap();
    w.summary(&SummaryRecord {
        epoch: 0,
        text: String::new(),
        retires: vec![3],
    })
    .unwrap();
    let path = scratch("retires");
    std::fs::write(&path, w.into_inner()).unwrap();
    let (state, _) = read_store(&path).unwrap();
    assert_eq!(
        CompactionSignals::from_store(&state),
        Err(InvalidSignals::RetiresLater {
            epoch: 0,
            retired: 3
        })
    );
}

#[test]
fn auto_compact_records_summaries_at_increasing_epochs_and_reconcile_lists_what_to_rewrite() {
    let path = scratch("reconcile");
    let (mut store, reductions) = store_with_reductions(&path);
    let stub = reductions[0].stub.clone();
    let done = auto_compact(&mut store, |signals, decision| {
        assert_eq!(decision, Decision::Continue);
        assert_eq!(signals.epoch, None);
        Summary {
            text: format!("{stub}\n{}", unminted_stub(9)),
            retires: Vec::new(),
        }
    })
    .unwrap();
    assert_eq!((done.decision, done.epoch), (Decision::Continue, 0));
    // Reconcile against a minted view whose message 1 changed: r1 fails, the summary's never
    // minted citation dangles.
    let mut minted = store.state().messages.clone();
    minted[1] = Message::tool_result("c1", "changed");
    let report = reconcile(store.state(), &minted);
    assert_eq!(report.failures.len(), 1);
    assert_eq!(report.failures[0].0, reductions[1].id.to_string());
    assert_eq!(
        report.dangling,
        [(
            0,
            vec![ReductionId::new(9, &content_digest(b"never minted")).to_string()]
        )]
    );
    assert_eq!(report.resummarize, [0]);
}
