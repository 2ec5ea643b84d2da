//! One insta snapshot per fixture in `fixtures/formats/`: the rendered import, or the error;
//! for a file that holds several sessions, the error of importing it whole and then each
//! session's import.

use std::fmt::Write as _;
use std::path::Path;

use crate::{import_path, render};

#[test]
fn fixture_snapshots() {
    insta::glob!(
        "../../../../fixtures/formats",
        "{*.jsonl,*.traj,*.json,aider-*.md}",
        |path| {
            insta::assert_snapshot!(render_sessions(path));
        }
    );
}

fn render_sessions(path: &Path) -> String {
    let mut out = render(&import_path(path));
    let bytes = std::fs::read(path).unwrap();
    let name = Path::new(path.file_name().unwrap());
    if let Ok((_, sessions)) = rehydrate_formats::list_sessions(name, &bytes, None)
        && sessions.len() > 1
    {
        for s in sessions {
            let session = rehydrate_formats::import_session(name, &bytes, None, Some(s.number));
            write!(
                out,
                "\nsession {} (line {}, {}):\n{}",
                s.number,
                s.line,
                s.label,
                render(&session)
            )
            .unwrap();
        }
    }
    out
}
