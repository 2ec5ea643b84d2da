//! Unit tests of the store crate: the swap of a session directory when a rename fails, and
//! the parent's lock that keeps a second writer from taking a staging directory half made.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use crate::dir::SessionDir;
use crate::dir::swap::{ParentLock, swap_in_with};

/// An empty scratch directory of this process for `test`.
fn scratch(test: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!(
        "rehydrate-store-unit-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    root
}

/// A scratch directory holding a complete `out` (one file) and a staged `out.staging`.
fn setup(test: &str) -> (PathBuf, PathBuf) {
    let root = scratch(test);
    let (dir, staging) = (root.join("out"), root.join("out.staging"));
    for (d, text) in [(&dir, "previous"), (&staging, "new")] {
        std::fs::create_dir_all(d.join("sidecar")).unwrap();
        std::fs::write(d.join("view.json"), text).unwrap();
    }
    (dir, staging)
}

/// A rename that fails at its `fail`-th call (from 0) with `EIO`.
fn failing_at(fail: usize) -> impl FnMut(&Path, &Path) -> io::Result<()> {
    let mut calls = 0;
    move |from, to| {
        calls += 1;
        if calls - 1 == fail {
            return Err(io::Error::from_raw_os_error(5));
        }
        std::fs::rename(from, to)
    }
}

#[test]
fn a_failed_rename_leaves_the_previous_directory_in_place() {
    for fail in [0, 1] {
        let (dir, staging) = setup(&format!("rename-{fail}"));
        let err = swap_in_with(&dir, &staging, &mut failing_at(fail)).unwrap_err();
        let what = if fail == 0 { "move" } else { "put" };
        let expected = if fail == 0 {
            format!(
                "cannot {what} {} aside: Input/output error (os error 5)",
                dir.display()
            )
        } else {
            format!(
                "cannot {what} {} in place: Input/output error (os error 5)",
                dir.display()
            )
        };
        assert_eq!(err.to_string(), expected);
        assert_eq!(
            std::fs::read_to_string(dir.join("view.json")).unwrap(),
            "previous"
        );
        // The staging directory is the caller's to remove; it is still whole.
        assert_eq!(
            std::fs::read_to_string(staging.join("view.json")).unwrap(),
            "new"
        );
    }
    let (dir, staging) = setup("rename-none");
    assert_eq!(
        swap_in_with(&dir, &staging, &mut failing_at(usize::MAX)).unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("view.json")).unwrap(),
        "new"
    );
    assert!(!staging.exists());
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

#[test]
fn a_second_writer_waits_until_a_staging_directory_has_its_lock() {
    let root = scratch("parent-lock");
    let (dir, staging) = (root.join("out"), root.join("out.staging"));
    let source = root.join("session.json");
    let (made, was_made) = mpsc::channel();
    let first = std::thread::spawn({
        let (dir, staging) = (dir.clone(), staging.clone());
        move || {
            // A writer between creating its staging directory and locking it.
            let held = ParentLock::take(&dir, true).unwrap();
            std::fs::create_dir_all(staging.join("sidecar")).unwrap();
            made.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(100));
            let lock = File::create(staging.join("sidecar/lock")).unwrap();
            lock.lock().unwrap();
            drop(held);
            lock
        }
    });
    was_made.recv().unwrap();
    // Without the parent's lock, the lockless staging directory would pass for an
    // interrupted run's, and be removed under the first writer.
    let Err(err) = SessionDir::create(&dir, &source, false) else {
        panic!("a second writer took {}", dir.display());
    };
    let lock_path = staging.join("sidecar/lock");
    assert_eq!(
        err.to_string(),
        format!(
            "{} is in use by another rehydrate process, reading or writing it (it holds the lock on {})",
            staging.display(),
            lock_path.display()
        )
    );
    let lock = first.join().unwrap();
    assert!(lock_path.is_file());
    assert!(!dir.exists());
    drop(lock);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_previous_directory_the_swap_cannot_remove_is_a_warning() {
    // A file someone wrote into the directory while it was being replaced.
    let (dir, staging) = setup("retired-kept");
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    let retired = dir.with_file_name("out.retired");
    assert_eq!(
        swap_in_with(&dir, &staging, &mut failing_at(usize::MAX)).unwrap(),
        [format!(
            "{}: the previous directory could not be removed (Directory not empty (os error 39)); move it away before the next run",
            retired.display()
        )]
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("view.json")).unwrap(),
        "new"
    );
    assert_eq!(
        std::fs::read_to_string(retired.join("notes.txt")).unwrap(),
        "mine"
    );
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}
