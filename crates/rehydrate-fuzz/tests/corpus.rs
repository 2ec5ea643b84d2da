//! Every input a fuzz run kept (`fixtures/fuzz/<target>/`: the corpus it found interesting,
//! and each crash, minimized, once fixed) and every seed runs through its target: the fuzz
//! findings are regression tests.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use rehydrate_fuzz::{TARGETS, target};

/// The workspace root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("the crate is two levels under the root")
}

/// Every file under `path` (itself, when it is a file), sorted.
fn files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(path) else {
        return out;
    };
    for entry in entries {
        let entry = entry.expect("a directory entry");
        out.extend(files(&entry.path()));
    }
    out.sort();
    out
}

/// Inputs every target runs besides its own: nothing, one byte, and a few kilobytes of each
/// of two patterns, so that a target with nothing kept yet still runs under `cargo test`.
fn fixed_inputs() -> Vec<(String, Vec<u8>)> {
    let counting: Vec<u8> = (0..4096u32).map(|i| (i * 7 + i / 256) as u8).collect();
    vec![
        ("(empty)".to_string(), Vec::new()),
        ("(one byte)".to_string(), vec![1]),
        ("(counting bytes)".to_string(), counting),
        ("(0xff bytes)".to_string(), vec![0xff; 4096]),
    ]
}

#[test]
fn every_kept_input_and_seed_passes_its_target() {
    let mut failed = Vec::new();
    let mut ran = 0;
    for t in TARGETS {
        let mut paths = files(&root().join("fixtures/fuzz").join(t.name));
        for seed in t.seeds {
            let seed = root().join(seed);
            assert!(
                seed.exists(),
                "{}: seed {} does not exist",
                t.name,
                seed.display()
            );
            paths.extend(files(&seed));
        }
        let mut inputs = fixed_inputs();
        for path in paths {
            let data = std::fs::read(&path).expect("a kept input reads");
            inputs.push((path.display().to_string(), data));
        }
        for (input, data) in inputs {
            ran += 1;
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| (t.run)(&data))) {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("a panic");
                failed.push(format!("{}: {input}: {message}", t.name));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {ran} inputs failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn every_kept_corpus_names_a_target() {
    let Ok(entries) = std::fs::read_dir(root().join("fixtures/fuzz")) else {
        return;
    };
    for entry in entries {
        let name = entry.expect("a directory entry").file_name();
        let name = name.to_string_lossy();
        assert!(
            name == "README.md" || target(&name).is_some(),
            "fixtures/fuzz/{name} names no fuzz target"
        );
    }
}

#[test]
fn target_names_are_unique_and_found() {
    for (i, t) in TARGETS.iter().enumerate() {
        assert!(
            TARGETS[..i].iter().all(|o| o.name != t.name),
            "{} twice",
            t.name
        );
        assert_eq!(target(t.name).map(|f| f.name), Some(t.name));
    }
    assert!(target("no_such_target").is_none());
}
