//! The store behind its backend trait: the file and in-memory backends hold the same bytes for
//! the same records, a torn tail in memory is found and repaired as in a file, and a backend
//! that fails a write mid-record stops the store and leaves a tail that repair cuts (the
//! failing backend is `faulty.rs`'s).

use std::path::Path;

use rehydrate_model::{Message, Role};
use rehydrate_store::{
    Error, MemoryBackend, MissReason, SessionStore, SyncPolicy, parse_store, read_store,
};

use crate::faulty::{Fault, Faulty};
use crate::store::{message, scratch, serial};

/// The same session recorded in any store: messages, a rewind, a model switch, a summary and
/// a miss.
fn record(store: &mut SessionStore) {
    for i in 0..5 {
        store.append_message(&message(i)).unwrap();
    }
    store.rewind(4).unwrap();
    let mut history = vec![Message::text(Role::User, "hi")];
    store.switch_model("model-b", &mut history).unwrap();
    assert_eq!(store.record_summary("what happened", &[]).unwrap(), 0);
    store
        .record_miss("r0.0123456789abcdef", MissReason::Unknown)
        .unwrap();
    store.sync().unwrap();
}

#[test]
fn the_file_and_memory_backends_hold_the_same_bytes() {
    let _serial = serial();
    let dir = scratch("backend-same-bytes");
    let path = dir.join("s.rhyd");
    let mut in_file = SessionStore::create(&path, SyncPolicy::EveryRecord).unwrap();
    record(&mut in_file);
    let memory = MemoryBackend::new("memory:session");
    let mut in_memory = SessionStore::create_in(memory.clone(), SyncPolicy::EveryRecord).unwrap();
    record(&mut in_memory);
    let file_bytes = std::fs::read(&path).unwrap();
    assert_eq!(memory.bytes(), file_bytes);
    assert_eq!(in_memory.state(), in_file.state());
    assert_eq!(in_memory.state().records, 9);
    assert_eq!(in_memory.path(), Path::new("memory:session"));
    drop(in_file);

    // Reopened from a clone of the backend, the store has the state it was left with, and
    // appends where it ended.
    drop(in_memory);
    let mut reopened = SessionStore::open_in(memory.clone(), SyncPolicy::Never).unwrap();
    assert_eq!(reopened.state(), &read_store(&path).unwrap().0);
    assert_eq!(reopened.state().messages.len(), 4);
    reopened.append_message(&message(7)).unwrap();
    let (state, torn) = parse_store(Path::new("x"), &memory.bytes()).unwrap();
    assert_eq!(torn, None);
    assert_eq!(state.messages.last(), Some(&message(7)));
    assert_eq!(state.records, 10);
}

#[test]
fn a_new_store_needs_an_empty_backend() {
    let memory = MemoryBackend::with_bytes("memory:used", b"RHYD".to_vec());
    let err = SessionStore::create_in(memory.clone(), SyncPolicy::Never).unwrap_err();
    assert_eq!(
        err.to_string(),
        "session store memory:used is not empty (4 bytes); a new store needs an empty one"
    );
    assert_eq!(memory.bytes(), b"RHYD");
    let err = SessionStore::open_in(memory, SyncPolicy::Never).unwrap_err();
    assert_eq!(
        err.to_string(),
        "memory:used is not a rehydrate session store (no RHYDSTOR header)"
    );
}

#[test]
fn a_torn_tail_in_memory_is_found_and_repaired() {
    let memory = MemoryBackend::new("memory:torn");
    let mut store = SessionStore::create_in(memory.clone(), SyncPolicy::Never).unwrap();
    store.append_message(&message(0)).unwrap();
    let whole_end = memory.bytes().len();
    store.append_message(&message(1)).unwrap();
    drop(store);
    let all = memory.bytes();
    for cut in whole_end + 1..all.len() {
        let cut_backend = MemoryBackend::with_bytes("memory:torn", all[..cut].to_vec());
        let err = SessionStore::open_in(cut_backend.clone(), SyncPolicy::Never).unwrap_err();
        assert!(
            matches!(&err, Error::Torn { torn, .. } if torn.offset == whole_end as u64 && torn.bytes == (cut - whole_end) as u64),
            "cut at {cut}: {err}"
        );
        let report = SessionStore::repair_in(cut_backend.clone()).unwrap();
        assert_eq!(
            (report.records, report.kept_bytes, report.dropped_bytes),
            (1, whole_end as u64, (cut - whole_end) as u64),
            "cut at {cut}"
        );
        assert_eq!(cut_backend.bytes(), all[..whole_end]);
        let store = SessionStore::open_in(cut_backend, SyncPolicy::Never).unwrap();
        assert_eq!(store.state().messages, [message(0)]);
    }
}

#[test]
fn a_failed_write_stops_the_store_and_repair_cuts_its_part_record() {
    let memory = MemoryBackend::new("db:sessions/7");
    let probe = MemoryBackend::new("probe");
    let mut probed = SessionStore::create_in(probe.clone(), SyncPolicy::Never).unwrap();
    probed.append_message(&message(0)).unwrap();
    let one_record = probe.bytes().len();
    probed.append_message(&message(1)).unwrap();
    let half = (probe.bytes().len() - one_record) / 2;
    // A host's disk fills up in the second record: the write keeps its first half, then fails
    // (appends: the header, then one per record).
    let full = Faulty::new(memory.clone(), Fault::ShortWrite, 2);
    let mut store = SessionStore::create_in(full, SyncPolicy::EveryRecord).unwrap();
    store.append_message(&message(0)).unwrap();
    let err = store.append_message(&message(1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "session store db:sessions/7: No space left on device (os error 28)"
    );
    let err = store.append_message(&message(2)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "session store db:sessions/7 failed a write earlier; reopen it (repair it first if it ends torn)"
    );
    assert_eq!(store.state().messages, [message(0)]);
    drop(store);
    assert_eq!(memory.bytes().len(), one_record + half);
    let err = SessionStore::open_in(memory.clone(), SyncPolicy::Never).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "session store db:sessions/7 has a torn tail at byte {one_record} ({half} bytes: the file ends inside a record's payload); repair truncates it"
        )
    );
    let report = SessionStore::repair_in(memory.clone()).unwrap();
    assert_eq!(
        (report.records, report.kept_bytes, report.dropped_bytes),
        (1, one_record as u64, half as u64)
    );
    let store = SessionStore::open_in(memory, SyncPolicy::Never).unwrap();
    assert_eq!(store.state().messages, [message(0)]);
}

#[test]
fn syncs_follow_the_policy_in_any_backend() {
    for (policy, syncs) in [
        (SyncPolicy::EveryRecord, 1 + 3),
        (SyncPolicy::EveryBytes(1 << 20), 1),
        (SyncPolicy::Never, 1),
    ] {
        // A backend that never fails, counting the syncs.
        let backend = Faulty::new(
            MemoryBackend::new("memory:syncs"),
            Fault::SyncFails,
            usize::MAX,
        );
        let counted = backend.ops();
        // The header is synced on create, whatever the policy.
        let mut store = SessionStore::create_in(backend, policy).unwrap();
        for i in 0..3 {
            store.append_message(&message(i)).unwrap();
        }
        assert_eq!(counted(), syncs, "{policy:?}");
    }
}
