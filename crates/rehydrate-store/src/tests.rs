//! Unit tests of the store crate: the swap of a session directory when a rename fails.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::io;
use std::path::{Path, PathBuf};

use crate::dir::swap::swap_in_with;

/// A scratch directory holding a complete `out` (one file) and a staged `out.staging`.
fn setup(test: &str) -> (PathBuf, PathBuf) {
    let root = std::env::temp_dir()
        .join(format!("rehydrate-store-unit-{}", std::process::id()))
        .join(test);
    let _ = std::fs::remove_dir_all(&root);
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
    swap_in_with(&dir, &staging, &mut failing_at(usize::MAX)).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("view.json")).unwrap(),
        "new"
    );
    assert!(!staging.exists());
    let _ = std::fs::remove_dir_all(dir.parent().unwrap().parent().unwrap());
}
