//! Faults injected into every write of `rehydrate reduce` and `repair`: run under a file-size
//! limit (`ulimit -f`, with SIGXFSZ ignored, so the write that crosses it is cut short and the
//! next fails with `EFBIG`), at limits from 0 to past the largest file. A run that fails
//! reports the file and the cause on one line (exit 2), leaves the previous directory as it was
//! (or none, when there was none) and nothing staged behind; the next run succeeds.

use std::path::Path;
use std::process::{Command, Output};

use crate::{fixture, rehydrate, replacing_reduces, scratch, stderr, tree};

/// Runs the CLI with `args` under a file-size limit of `kib` KiB.
fn limited(kib: u64, args: &[&str]) -> Output {
    let mut script = format!(
        "trap '' XFSZ; ulimit -f {kib}; exec '{}'",
        env!("CARGO_BIN_EXE_rehydrate")
    );
    for arg in args {
        script.push_str(&format!(" '{arg}'"));
    }
    Command::new("bash").args(["-c", &script]).output().unwrap()
}

/// The largest file under `dir`, in KiB, rounded up.
fn largest_kib(dir: &Path) -> u64 {
    tree(dir)
        .iter()
        .map(|(_, bytes)| bytes.len() as u64)
        .max()
        .unwrap_or(0)
        .div_ceil(1024)
}

/// A failed run: exit 2, one line naming the file and the cause.
fn failed_cleanly(out: &Output, what: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
    assert!(
        err.contains("File too large (os error 27)"),
        "{what}: {err}"
    );
}

#[test]
fn a_write_that_fails_anywhere_leaves_the_previous_directory() {
    let root = scratch("faults-reduce");
    let session = fixture("cli/build-session.json");
    let s = session.to_str().unwrap();
    let dir = root.join("out");
    let d = dir.to_str().unwrap();
    let staging = root.join("out.staging");
    let [default, aggressive] = replacing_reduces(s, d);
    assert!(rehydrate(&aggressive).status.success());
    let new = tree(&dir);
    let top = largest_kib(&dir) + 1;
    assert!(rehydrate(&default).status.success());
    let previous = tree(&dir);
    let (mut failures, mut successes) = (0, 0);
    for kib in 0..=top {
        // Into a new directory: none is left behind.
        std::fs::remove_dir_all(&dir).unwrap();
        let out = limited(kib, &aggressive);
        let what = format!("reduce into a new directory under {kib} KiB");
        if out.status.success() {
            assert_eq!(tree(&dir), new, "{what}");
            successes += 1;
        } else {
            failed_cleanly(&out, &what);
            assert!(!dir.exists(), "{what}: a directory was left");
            failures += 1;
        }
        assert!(!staging.exists(), "{what}: the staging directory was left");
        // Replacing a directory: it is the previous one, or the new one.
        assert!(rehydrate(&default).status.success());
        let out = limited(kib, &aggressive);
        let what = format!("reduce --force under {kib} KiB");
        if out.status.success() {
            assert_eq!(tree(&dir), new, "{what}");
        } else {
            failed_cleanly(&out, &what);
            assert_eq!(
                tree(&dir),
                previous,
                "{what}: the previous directory changed"
            );
            assert!(rehydrate(&["verify", d]).status.success(), "{what}");
        }
        assert!(!staging.exists(), "{what}: the staging directory was left");
    }
    // Every limit below the largest file failed; the last ones succeeded.
    assert!(
        failures >= largest_kib(&dir) as usize,
        "{failures} failures"
    );
    assert!(successes >= 1);
}

#[test]
fn a_repair_whose_write_fails_anywhere_leaves_the_damaged_directory() {
    let root = scratch("faults-repair");
    let session = fixture("cli/build-session.json");
    let dir = root.join("out");
    let d = dir.to_str().unwrap();
    let out = rehydrate(&[
        "reduce",
        "--no-tokens",
        session.to_str().unwrap(),
        "--out",
        d,
    ]);
    assert!(out.status.success());
    let store = dir.join("sidecar/session.rhyd");
    let whole = std::fs::read(&store).unwrap();
    let cut = &whole[..whole.len() - 5];
    std::fs::write(&store, cut).unwrap();
    let damaged = tree(&dir);
    let top = largest_kib(&dir) + 1;
    let mut repaired_at = None;
    for kib in 0..=top {
        std::fs::write(&store, cut).unwrap();
        let out = limited(kib, &["repair", d]);
        let what = format!("repair under {kib} KiB");
        if out.status.success() {
            repaired_at.get_or_insert(kib);
            assert!(rehydrate(&["verify", d]).status.success(), "{what}");
            // The next loop cuts the store again: put the damaged directory back.
            std::fs::remove_dir_all(&dir).unwrap();
            for (path, bytes) in &damaged {
                let path = dir.join(path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, bytes).unwrap();
            }
        } else {
            failed_cleanly(&out, &what);
            assert_eq!(tree(&dir), damaged, "{what}: the damaged directory changed");
        }
        assert!(
            !root.join("out.staging").exists(),
            "{what}: the staging directory was left"
        );
    }
    // The repair writes the store and the manifest; it succeeds once the limit holds both.
    assert!(
        repaired_at.is_some_and(|k| k >= whole.len() as u64 / 1024),
        "{repaired_at:?}"
    );
}
