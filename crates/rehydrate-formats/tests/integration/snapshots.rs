//! One insta snapshot per fixture in `fixtures/formats/`: the rendered import, or the error.

use crate::{import_path, render};

#[test]
fn fixture_snapshots() {
    insta::glob!(
        "../../../../fixtures/formats",
        "*.{jsonl,traj,json}",
        |path| {
            insta::assert_snapshot!(render(&import_path(path)));
        }
    );
}
