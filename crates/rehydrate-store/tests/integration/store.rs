//! The session store: reload, torn tails at every byte, flipped bytes, locking, and appends
//! that survive SIGKILL.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use rehydrate_model::Message;
use rehydrate_store::{Error, SessionStore, SyncPolicy, read_store, repair};

/// Store tests run one at a time: the kill loop forks children, and a child forked while another
/// test holds a store's lock shares that lock until it execs (flock semantics), which would make
/// that test's next open see the store locked.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A fresh scratch directory for one test.
pub(crate) fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("store-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `i`-th message the tests append: its size varies with `i`.
pub(crate) fn message(i: u64) -> Message {
    let body = format!("record {i} ").repeat((i % 7 + 1) as usize * 3);
    Message::tool_result(format!("call_{i}"), body)
}

/// A store of `n` messages and one rewind in the middle, and the end offset of each record.
fn small_store(path: &Path, n: u64) -> Vec<u64> {
    let mut store = SessionStore::create(path, SyncPolicy::Never).unwrap();
    let mut ends = Vec::new();
    for i in 0..n {
        store.append_message(&message(i)).unwrap();
        ends.push(std::fs::metadata(path).unwrap().len());
    }
    store.rewind(n - 1).unwrap();
    ends.push(std::fs::metadata(path).unwrap().len());
    store.sync().unwrap();
    ends
}

#[test]
fn a_store_reloads_its_state_and_rewinds() {
    let _serial = serial();
    let dir = scratch("reload");
    let path = dir.join("s.rhyd");
    small_store(&path, 4);
    let (state, torn) = read_store(&path).unwrap();
    assert_eq!(torn, None);
    assert_eq!(state.records, 5);
    assert_eq!(state.rewinds, [3]);
    assert_eq!(state.messages, (0..3).map(message).collect::<Vec<_>>());
    // Appending after a reopen continues the timeline after the rewind.
    let mut store = SessionStore::open(&path, SyncPolicy::EveryRecord).unwrap();
    assert_eq!(store.append_message(&message(9)).unwrap(), 3);
    assert!(matches!(
        store.rewind(5),
        Err(Error::RewindBeyond { to: 5, len: 4, .. })
    ));
    drop(store);
    let (state, _) = read_store(&path).unwrap();
    assert_eq!(state.messages.len(), 4);
    assert_eq!(state.messages[3], message(9));
}

#[test]
fn a_second_writer_is_refused() {
    let _serial = serial();
    let dir = scratch("lock");
    let path = dir.join("s.rhyd");
    let store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    let err = SessionStore::open(&path, SyncPolicy::Never).unwrap_err();
    assert!(matches!(err, Error::Locked { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "session store {} is open for writing by another process (it is locked)",
            path.display()
        )
    );
    assert!(matches!(repair(&path), Err(Error::Locked { .. })));
    drop(store);
    SessionStore::open(&path, SyncPolicy::Never).unwrap();
}

#[test]
fn torn_tails_at_every_byte_are_found_and_repaired() {
    let _serial = serial();
    let dir = scratch("torn");
    let path = dir.join("s.rhyd");
    let ends = small_store(&path, 4);
    let whole = std::fs::read(&path).unwrap();
    let cut_path = dir.join("cut.rhyd");
    for len in 0..=whole.len() {
        std::fs::write(&cut_path, &whole[..len]).unwrap();
        if len < 16 {
            assert!(
                matches!(read_store(&cut_path), Err(Error::NotAStore { .. })),
                "cut at {len}"
            );
            continue;
        }
        // Whole records before the cut, and where the cut record starts.
        let whole_records = ends.iter().filter(|&&e| e <= len as u64).count();
        let record_start = ends
            .iter()
            .copied()
            .filter(|&e| e <= len as u64)
            .max()
            .unwrap_or(16);
        let (state, torn) = read_store(&cut_path).unwrap();
        assert_eq!(state.records, whole_records as u64, "cut at {len}");
        if record_start == len as u64 {
            assert_eq!(torn, None, "cut at {len}");
        } else {
            let torn = torn.unwrap_or_else(|| panic!("cut at {len}: no torn tail"));
            assert_eq!(torn.offset, record_start, "cut at {len}");
            assert_eq!(torn.bytes, len as u64 - record_start);
            assert!(matches!(
                SessionStore::open(&cut_path, SyncPolicy::Never),
                Err(Error::Torn { .. })
            ));
        }
        let report = repair(&cut_path).unwrap();
        assert_eq!(report.kept_bytes, record_start, "cut at {len}");
        assert_eq!(report.dropped_bytes, len as u64 - record_start);
        assert_eq!(report.records, whole_records as u64);
        assert_eq!(std::fs::metadata(&cut_path).unwrap().len(), record_start);
        // The repaired store opens, holds the whole records, and takes new ones.
        let mut store = SessionStore::open(&cut_path, SyncPolicy::Never)
            .unwrap_or_else(|e| panic!("cut at {len}: {e}"));
        let kept = store.state().messages.len();
        assert_eq!(
            store.state().messages,
            (0..kept as u64).map(message).collect::<Vec<_>>()
        );
        store.append_message(&message(99)).unwrap();
    }
}

#[test]
fn a_flipped_byte_in_any_record_is_detected() {
    let _serial = serial();
    let dir = scratch("flip");
    let path = dir.join("s.rhyd");
    let ends = small_store(&path, 4);
    let whole = std::fs::read(&path).unwrap();
    let flipped_path = dir.join("flipped.rhyd");
    let last_start = ends[ends.len() - 2];
    for at in 16..whole.len() {
        let mut bytes = whole.clone();
        bytes[at] ^= 0x20;
        std::fs::write(&flipped_path, &bytes).unwrap();
        let record_start = std::iter::once(16)
            .chain(ends.iter().copied())
            .filter(|&e| e <= at as u64)
            .max()
            .unwrap();
        match read_store(&flipped_path) {
            Err(Error::Corrupt { offset, .. }) => {
                assert_eq!(offset, record_start, "flip at {at}");
            }
            Ok((_, Some(torn))) => {
                // Only the last record's payload can read as a torn tail.
                assert_eq!(torn.offset, last_start, "flip at {at}: {torn:?} {ends:?}");
                // The payload check (frame bytes 8..16) or the payload itself.
                assert!(at as u64 >= last_start + 8, "flip at {at}");
            }
            other => panic!("flip at {at} not detected: {other:?}"),
        }
    }
}

#[test]
fn a_corrupt_record_is_never_skipped() {
    let _serial = serial();
    let dir = scratch("corrupt");
    let path = dir.join("s.rhyd");
    let ends = small_store(&path, 4);
    let mut bytes = std::fs::read(&path).unwrap();
    let second = ends[0] as usize;
    bytes[second + 20] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let err = read_store(&path).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "session store {} is corrupt at byte {second}: the record's payload fails its check",
            path.display()
        )
    );
    assert!(matches!(repair(&path), Err(Error::Corrupt { .. })));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "repair changed nothing"
    );
}

/// The environment variable that makes [`store_writer`] the child of the kill loop.
const CHILD_ENV: &str = "REHYDRATE_STORE_KILL_CHILD";

/// In the kill loop's child (see [`appends_survive_sigkill`]): appends messages from index
/// `REHYDRATE_STORE_KILL_START` with `SyncPolicy::EveryRecord`, printing each index once its append
/// returned, until killed. Run on its own, it checks that acknowledged appends reload.
#[test]
fn store_writer() {
    let _serial = serial();
    let (path, start, limit) = match std::env::var_os(CHILD_ENV) {
        Some(path) => {
            let start = std::env::var("REHYDRATE_STORE_KILL_START").unwrap();
            (PathBuf::from(path), start.parse::<u64>().unwrap(), u64::MAX)
        }
        None => (scratch("writer").join("s.rhyd"), 0, 20),
    };
    let mut store = if start == 0 {
        SessionStore::create(&path, SyncPolicy::EveryRecord).unwrap()
    } else {
        SessionStore::open(&path, SyncPolicy::EveryRecord).unwrap()
    };
    assert_eq!(store.state().messages.len() as u64, start);
    let mut out = std::io::stdout().lock();
    for i in start..start.saturating_add(limit) {
        store.append_message(&message(i)).unwrap();
        writeln!(out, "ack {i}").unwrap();
        out.flush().unwrap();
    }
    drop(store);
    let (state, torn) = read_store(&path).unwrap();
    assert_eq!(torn, None);
    assert_eq!(state.messages, (0..20).map(message).collect::<Vec<_>>());
}

/// Kills a writing child with SIGKILL at pseudo-random moments, 60 times; after each kill the
/// store is repaired and every record the child acknowledged must be there, byte for byte.
#[test]
fn appends_survive_sigkill() {
    let _serial = serial();
    let dir = scratch("kill");
    let path = dir.join("s.rhyd");
    let exe = std::env::current_exe().unwrap();
    // A fixed-seed generator: the moments differ from kill to kill, and from run to run only
    // through timing.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        seed >> 33
    };
    let (mut kills, mut acknowledged, mut lost, mut torn_tails) = (0, 0u64, 0u64, 0);
    let mut held = 0u64;
    for _ in 0..60 {
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "store::store_writer",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, &path)
            .env("REHYDRATE_STORE_KILL_START", held.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| l.strip_prefix("ack ").and_then(|n| n.parse::<u64>().ok()))
                .collect::<Vec<u64>>()
        });
        std::thread::sleep(Duration::from_millis(5 + next() % 40));
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        kills += 1;
        let acks = reader.join().unwrap();
        if held == 0 && acks.is_empty() && read_store(&path).is_err() {
            // Killed before the first child had created the store (and acknowledged nothing).
            let _ = std::fs::remove_file(&path);
            continue;
        }
        if let Some(torn) = read_store(&path).unwrap().1 {
            torn_tails += 1;
            assert!(torn.offset > 0);
            repair(&path).unwrap();
        }
        let (state, torn) = read_store(&path).unwrap();
        assert_eq!(torn, None);
        let acked_to = acks.last().map_or(held, |&i| i + 1);
        acknowledged += acks.len() as u64;
        if (state.messages.len() as u64) < acked_to {
            lost += acked_to - state.messages.len() as u64;
        }
        // Every record there, acknowledged or written just before the kill, is the one appended.
        for (i, m) in state.messages.iter().enumerate() {
            assert_eq!(*m, message(i as u64), "record {i} after kill {kills}");
        }
        held = state.messages.len() as u64;
    }
    eprintln!(
        "kill loop: {kills} kills, {acknowledged} records acknowledged, {lost} lost, \
         {torn_tails} torn tails repaired, {held} records in the store"
    );
    assert_eq!(lost, 0);
    assert_eq!(kills, 60);
    assert!(acknowledged > 0, "the child acknowledged no record");
}

#[test]
fn a_model_switch_drops_reasoning_whole_and_is_recorded() {
    let _serial = serial();
    let dir = scratch("switch");
    let path = dir.join("s.rhyd");
    let mut thinking = Message::text(rehydrate_model::Role::Assistant, "answer");
    thinking
        .metadata
        .insert("thinking".into(), "private chain of thought".into());
    thinking
        .metadata
        .insert("thinking_signature".into(), "sig==".into());
    let plain = Message::text(rehydrate_model::Role::User, "question");
    let mut history = vec![plain.clone(), thinking.clone()];
    let mut store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    for m in &history {
        store.append_message(m).unwrap();
    }
    assert_eq!(store.switch_model("other-model", &mut history).unwrap(), 1);
    // Reasoning is dropped whole; everything else is byte-identical.
    assert_eq!(history[0], plain);
    let mut expected = thinking.clone();
    expected.metadata.clear();
    assert_eq!(history[1], expected);
    drop(store);
    let (state, _) = read_store(&path).unwrap();
    assert_eq!(
        state.model_switches,
        [rehydrate_store::ModelSwitch {
            model: "other-model".into(),
            touched: 1
        }]
    );
    // The store keeps full fidelity.
    assert_eq!(state.messages[1], thinking);
    assert_eq!(state.reasoning_dropped, 2);
}

#[test]
fn reasoning_dropped_follows_switches_and_rewinds() {
    let _serial = serial();
    let dir = scratch("reasoning-dropped");
    let path = dir.join("s.rhyd");
    let mut store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    let m = |t: &str| Message::text(rehydrate_model::Role::User, t);
    for t in ["a", "b", "c"] {
        store.append_message(&m(t)).unwrap();
    }
    assert_eq!(store.state().reasoning_dropped, 0);
    let mut history = store.state().messages.clone();
    store.switch_model("second", &mut history).unwrap();
    assert_eq!(store.state().reasoning_dropped, 3);
    store.append_message(&m("d")).unwrap();
    assert_eq!(
        store.state().reasoning_dropped,
        3,
        "a later message keeps its reasoning"
    );
    store.rewind(2).unwrap();
    assert_eq!(store.state().reasoning_dropped, 2, "a rewind cuts it");
    store.append_message(&m("e")).unwrap();
    store.rewind(3).unwrap();
    assert_eq!(store.state().reasoning_dropped, 2);
    let live = store.state().clone();
    drop(store);
    let (state, _) = read_store(&path).unwrap();
    assert_eq!(state, live, "reloading counts the same");
}

#[test]
fn a_zero_filled_tail_is_torn_not_corrupt() {
    let _serial = serial();
    let dir = scratch("zeros");
    let path = dir.join("s.rhyd");
    small_store(&path, 3);
    let whole = std::fs::read(&path).unwrap();
    for zeros in [1, 15, 16, 4096] {
        let mut bytes = whole.clone();
        bytes.extend(std::iter::repeat_n(0u8, zeros));
        std::fs::write(&path, &bytes).unwrap();
        let (state, torn) = read_store(&path).unwrap();
        assert_eq!(state.records, 4, "{zeros} zeros");
        let torn = torn.unwrap_or_else(|| panic!("{zeros} zeros: no torn tail"));
        assert_eq!(torn.offset, whole.len() as u64);
        assert_eq!(repair(&path).unwrap().dropped_bytes, zeros as u64);
        assert_eq!(std::fs::read(&path).unwrap(), whole);
    }
    // A nonzero reserved header field is not a store of this format.
    let mut bytes = whole.clone();
    bytes[12] = 1;
    std::fs::write(&path, &bytes).unwrap();
    assert!(matches!(read_store(&path), Err(Error::NotAStore { .. })));
}

#[test]
fn a_rewind_keeps_the_log_a_prefix() {
    use rehydrate_test_support::duplicate;
    let _serial = serial();
    let dir = scratch("rewind-log");
    let path = dir.join("s.rhyd");
    let mut store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    // Duplicates of message 0, without a stub.
    let reduction = |ordinal: usize, index: usize| {
        duplicate(ordinal, index, 0, &format!("{ordinal}"), |_| String::new())
    };
    let ordinals = |store: &SessionStore| -> Vec<usize> {
        let log = &store.state().log;
        log.reductions.iter().map(|r| r.id.ordinal()).collect()
    };
    // r0 at 3 and r1 at 6, recorded while 8 messages were held; then r2 at 9 and r3 at 2,
    // recorded while 10 were: a rewind to 8 cuts the log before r2, the first reduction that
    // addresses a cut message or was decided from them.
    for i in 0..8 {
        store.append_message(&message(i)).unwrap();
    }
    for (ordinal, index) in [(0, 3), (1, 6)] {
        store.append_reduction(&reduction(ordinal, index)).unwrap();
    }
    for i in 8..10 {
        store.append_message(&message(i)).unwrap();
    }
    for (ordinal, index) in [(2, 9), (3, 2)] {
        store.append_reduction(&reduction(ordinal, index)).unwrap();
    }
    store.rewind(8).unwrap();
    assert_eq!(ordinals(&store), [0, 1]);
    assert_eq!(store.state().reductions_seen, [8, 8]);
    // A reduction at 1, decided from eight messages again: a rewind to 7 cuts all three,
    // each decided from the eighth message.
    store.append_reduction(&reduction(2, 1)).unwrap();
    store.rewind(7).unwrap();
    assert_eq!(ordinals(&store), Vec::<usize>::new());
    drop(store);
    assert_eq!(read_store(&path).unwrap().0.log.reductions.len(), 0);
}

#[test]
fn a_summary_that_retires_a_later_epoch_is_refused_unwritten() {
    let _serial = serial();
    let dir = scratch("summary-retires-later");
    let path = dir.join("s.rhyd");
    let mut store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    assert_eq!(store.record_summary("first", &[]).unwrap(), 0);
    let records = store.state().records;
    let err = store.record_summary("second", &[1]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "session store {}: the summary of epoch 1 cannot retire epoch 1, which is not earlier; nothing was recorded",
            path.display()
        )
    );
    assert_eq!(store.state().records, records);
    assert_eq!(store.record_summary("second", &[0]).unwrap(), 1);
    drop(store);
    assert_eq!(read_store(&path).unwrap().0.summaries.len(), 2);
}

#[test]
fn a_rewind_drops_a_superseded_result_whose_re_run_it_drops() {
    use rehydrate_test_support::superseded;
    let _serial = serial();
    let dir = scratch("rewind-superseded");
    let path = dir.join("s.rhyd");
    let mut store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    // r0, recorded after 5 messages: message 2 superseded by message 4; r1, recorded after
    // 10: message 3 superseded by message 8. A rewind to 8 keeps message 3 but drops its
    // re-run, so it cuts the log before r1 and keeps r0.
    for i in 0..5 {
        store.append_message(&message(i)).unwrap();
    }
    store
        .append_reduction(&superseded(0, 2, 4, "a", |_| String::new()))
        .unwrap();
    for i in 5..10 {
        store.append_message(&message(i)).unwrap();
    }
    store
        .append_reduction(&superseded(1, 3, 8, "b", |_| String::new()))
        .unwrap();
    store.rewind(8).unwrap();
    assert_eq!(store.state().log.reductions.len(), 1);
    drop(store);
    assert_eq!(read_store(&path).unwrap().0.log.reductions.len(), 1);
}

#[test]
fn a_rewind_drops_an_elided_read_whose_later_read_it_drops() {
    use rehydrate_model::{MessageAddr, ReductionKind, Role};
    use rehydrate_test_support::superseded;
    let elided = |ordinal, index, by, text| {
        let mut r = superseded(ordinal, index, by, text, |_| String::new());
        r.kind = ReductionKind::FileReadElided {
            by: MessageAddr {
                index: by,
                role: Role::Tool,
            },
            original_bytes: text.len(),
        };
        r
    };
    let _serial = serial();
    let dir = scratch("rewind-elided-read");
    let path = dir.join("s.rhyd");
    let mut store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    // r0, recorded after 5 messages: read 2 elided by read 4; r1, recorded after 10: read 3
    // elided by read 8. A rewind to 8 keeps read 3 but drops the later read, so it cuts the
    // log before r1 and keeps r0.
    for i in 0..5 {
        store.append_message(&message(i)).unwrap();
    }
    store.append_reduction(&elided(0, 2, 4, "a")).unwrap();
    for i in 5..10 {
        store.append_message(&message(i)).unwrap();
    }
    store.append_reduction(&elided(1, 3, 8, "b")).unwrap();
    store.rewind(8).unwrap();
    assert_eq!(store.state().log.reductions.len(), 1);
    drop(store);
    assert_eq!(read_store(&path).unwrap().0.log.reductions.len(), 1);
}
