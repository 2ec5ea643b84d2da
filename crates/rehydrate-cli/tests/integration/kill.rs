//! The CLI killed mid-write: `rehydrate reduce` (into a new directory, and replacing one with
//! `--force`), `repair` and `export` are SIGKILLed at pseudo-random moments, 40 runs each, on
//! a real corpus session. Afterwards the output directory is absent, the previous complete one
//! or the new complete one (absent only with the previous one whole at `DIR.retired`, which
//! `repair` puts back), `verify` passes exactly on those, and the next run succeeds.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rehydrate_test_support::corpus_sessions;

use crate::{replacing_reduces, scratch};

/// The runs of each command.
const RUNS: usize = 40;

/// A Claude Code session of 1.4 MB from the corpus (its reduce takes long enough to be
/// killed at many points), or the largest one under 2 MB.
fn session() -> Option<PathBuf> {
    let (_, sessions) = corpus_sessions(&[("claude-code", "jsonl")], "the kill test")?;
    let wanted = sessions
        .iter()
        .find(|p| p.ends_with("session-3fe1b6bc.jsonl"))
        .cloned();
    wanted.or_else(|| {
        sessions
            .into_iter()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() < 2 << 20))
            .max_by_key(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
    })
}

/// `dir` with `suffix` appended to its name.
fn beside(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The bytes of a directory's four files (view, log, store, manifest), or `None` when it is
/// absent.
fn content(dir: &Path) -> Option<Vec<Vec<u8>>> {
    if !dir.exists() {
        return None;
    }
    let names = [
        "view.json",
        "reductions.json",
        "sidecar/session.rhyd",
        "sidecar/manifest.json",
    ];
    Some(
        names
            .iter()
            .map(|n| std::fs::read(dir.join(n)).unwrap_or_default())
            .collect(),
    )
}

fn run(args: &[&str]) -> bool {
    Command::new(env!("CARGO_BIN_EXE_rehydrate"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

fn verifies(dir: &Path) -> bool {
    run(&["verify", dir.to_str().unwrap()])
}

/// Runs the command, SIGKILLs it after `delay` unless it ended; whether it was killed.
fn killed(args: &[&str], delay: Duration) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rehydrate"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while started.elapsed() < delay {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let was_running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    was_running
}

/// How long `args` takes to its end.
fn timed(args: &[&str]) -> Duration {
    let started = Instant::now();
    assert!(run(args), "{args:?} failed");
    started.elapsed()
}

/// A fixed-seed generator of delays in `[0, 1.3 * span)`.
struct Delays(u64);

impl Delays {
    fn next(&mut self, span: Duration) -> Duration {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let fraction = (self.0 >> 33) as f64 / (1u64 << 31) as f64;
        span.mul_f64(1.3 * fraction)
    }
}

/// After a kill: `dir` holds `previous` or `next` (each verifying), or is absent with
/// `previous` whole at `DIR.retired` (or, replacing nothing, absent); `repair` then puts the
/// previous one back. Returns which it was (previous, new, absent), for the counts.
fn check(dir: &Path, previous: Option<&Vec<Vec<u8>>>, next: &Vec<Vec<u8>>, what: &str) -> usize {
    let d = dir.to_str().unwrap();
    match content(dir) {
        Some(c) if Some(&c) == previous => {
            assert!(
                verifies(dir),
                "{what}: the previous directory does not verify"
            );
            0
        }
        Some(c) if &c == next => {
            assert!(verifies(dir), "{what}: the new directory does not verify");
            1
        }
        Some(_) => panic!(
            "{what}: the directory holds neither the previous content nor the new (verify: {})",
            verifies(dir)
        ),
        None => {
            let retired = beside(dir, ".retired");
            match previous {
                Some(p) => {
                    assert_eq!(
                        content(&retired).as_ref(),
                        Some(p),
                        "{what}: the previous directory is not whole at .retired"
                    );
                    assert!(run(&["repair", d]), "{what}: repair does not put it back");
                    assert_eq!(
                        content(dir).as_ref(),
                        Some(p),
                        "{what}: repair put back other content"
                    );
                }
                None => assert!(!verifies(dir), "{what}: an absent directory verifies"),
            }
            2
        }
    }
}

#[test]
fn reduce_repair_and_export_killed_at_any_point_leave_a_whole_directory() {
    let Some(session) = session() else {
        return;
    };
    let s = session.to_str().unwrap();
    let root = scratch("kill");
    let dir = root.join("out");
    let d = dir.to_str().unwrap();
    let mut delays = Delays(0x5eed_1234_abcd_0001);
    let [default, aggressive] = replacing_reduces(s, d);

    // The two complete directories every run ends in: the default preset's and the
    // aggressive one's.
    let span_reduce = timed(&aggressive);
    let aggressive_content = content(&dir).unwrap();
    timed(&default);
    let default_content = content(&dir).unwrap();
    assert_ne!(default_content, aggressive_content);

    let mut outcomes = [[0usize; 3]; 4];
    // 1. Into a new directory.
    for run_index in 0..RUNS {
        let _ = std::fs::remove_dir_all(&dir);
        let delay = delays.next(span_reduce);
        killed(&aggressive, delay);
        let what = format!("reduce into a new directory, killed after {delay:?} (run {run_index})");
        outcomes[0][check(&dir, None, &aggressive_content, &what)] += 1;
        assert!(run(&aggressive), "{what}: the next run fails");
        assert_eq!(content(&dir), Some(aggressive_content.clone()), "{what}");
    }
    // 2. Replacing a directory with --force.
    for run_index in 0..RUNS {
        assert!(run(&default));
        let delay = delays.next(span_reduce);
        killed(&aggressive, delay);
        let what = format!("reduce --force, killed after {delay:?} (run {run_index})");
        outcomes[1][check(&dir, Some(&default_content), &aggressive_content, &what)] += 1;
        assert!(run(&aggressive), "{what}: the next run fails");
        assert_eq!(content(&dir), Some(aggressive_content.clone()), "{what}");
    }
    // 3. Repair of a store cut short: the damaged directory, or the repaired one.
    assert!(run(&default));
    let store = dir.join("sidecar/session.rhyd");
    let whole = std::fs::read(&store).unwrap();
    std::fs::write(&store, &whole[..whole.len() - 7]).unwrap();
    let damaged = content(&dir).unwrap();
    let span_repair = timed(&["repair", d]);
    let repaired = content(&dir).unwrap();
    for run_index in 0..RUNS {
        let _ = std::fs::remove_dir_all(&dir);
        assert!(run(&default));
        std::fs::write(&store, &whole[..whole.len() - 7]).unwrap();
        assert_eq!(content(&dir).as_ref(), Some(&damaged));
        let delay = delays.next(span_repair);
        killed(&["repair", d], delay);
        let what = format!("repair, killed after {delay:?} (run {run_index})");
        let outcome = match content(&dir) {
            Some(c) if c == damaged => {
                assert!(!verifies(&dir), "{what}: the damaged directory verifies");
                0
            }
            _ => check(&dir, Some(&damaged), &repaired, &what),
        };
        outcomes[2][outcome] += 1;
        assert!(run(&["repair", d]), "{what}: the next repair fails");
        assert_eq!(content(&dir).as_ref(), Some(&repaired), "{what}");
    }
    // 4. Export reads: the directory is left as it was.
    assert!(run(&default));
    let span_export = timed(&["export", d, "--to", "anthropic"]);
    let before = crate::tree(&dir);
    for run_index in 0..RUNS {
        let delay = delays.next(span_export);
        let was_killed = killed(&["export", d, "--to", "anthropic"], delay);
        let what = format!("export, killed after {delay:?} (run {run_index})");
        assert_eq!(
            crate::tree(&dir),
            before,
            "{what}: export changed the directory"
        );
        assert!(verifies(&dir), "{what}");
        outcomes[3][usize::from(!was_killed)] += 1;
    }
    // Each command was killed at some runs and finished at others (the delays reach past
    // its whole time).
    eprintln!("kill outcomes (previous, new, absent) by command: {outcomes:?}");
    for (command, counts) in ["reduce", "reduce --force", "repair"].iter().zip(&outcomes) {
        assert!(counts[1] > 0, "{command}: no run finished: {counts:?}");
        assert!(
            counts[0] + counts[2] > 0,
            "{command}: no run was cut short: {counts:?}"
        );
    }
    assert!(outcomes[3][0] > 0, "export: no run was killed");
}
