//! Unit tests: tab expansion, absolute paths, strict patches, SWE-agent style edits on the last
//! proven content, and staleness.

use rehydrate_model::{
    EditBase, EditChange, FileEdit, Message, PatchHunk, Replacement, ShownLines, ToolDetails,
};

use crate::edit::expand;
use crate::*;

#[test]
fn tabs_expand_as_python_does() {
    // Values from CPython's str.expandtabs.
    let cases = [
        ("a\tb", 8, "a       b"),
        ("\t", 8, "        "),
        ("abc\r\tx", 8, "abc\r        x"),
        ("é\tx\n\ty", 8, "é       x\n        y"),
        ("12345678\t|", 8, "12345678        |"),
        ("a\tb", 4, "a   b"),
        ("a\tb", 0, "ab"),
        ("no tabs", 8, "no tabs"),
    ];
    for (text, size, want) in cases {
        assert_eq!(expand(text, size), want, "{text:?} with {size}");
    }
}

#[test]
fn absolute_paths() {
    for p in ["/a/x", "C:\\x", "c:/x", "\\\\server\\share\\x"] {
        assert!(is_absolute(p), "{p}");
    }
    for p in ["x", "./x", "../x", "~/x", "C:x", "", "1:/x"] {
        assert!(!is_absolute(p), "{p}");
    }
}

fn hunk(
    old_start: u64,
    old_lines: u64,
    new_start: u64,
    new_lines: u64,
    lines: &[&str],
) -> PatchHunk {
    PatchHunk {
        old_start,
        old_lines,
        new_start,
        new_lines,
        lines: lines.iter().map(|l| l.to_string()).collect(),
    }
}

fn patch(base: &str, hunks: Vec<PatchHunk>) -> Result<String, EditFailure> {
    apply_recorded_edit(base, &EditChange::Patch { hunks })
}

#[test]
fn patches_apply_strictly() {
    let base = "a\nb\nc\n";
    assert_eq!(
        patch(base, vec![hunk(2, 1, 2, 2, &["-b", "+B", "+B2"])]),
        Ok("a\nB\nB2\nc\n".to_string())
    );
    // Insertion into an empty text, in both conventions of old_start.
    for old_start in [0, 1] {
        assert_eq!(
            patch("", vec![hunk(old_start, 0, 1, 1, &["+x"])]),
            Ok("x\n".to_string())
        );
    }
    // Removing the last line break.
    assert_eq!(
        patch(
            "a\n",
            vec![hunk(
                1,
                1,
                1,
                1,
                &["-a", "+a", "\\ No newline at end of file"]
            )]
        ),
        Ok("a".to_string())
    );
    // A context line that differs.
    assert_eq!(
        patch(base, vec![hunk(1, 2, 1, 2, &[" a", "-x", "+y"])]),
        Err(EditFailure::Hunk {
            hunk: 0,
            what: "line 1 expects base line 2 to be different".to_string()
        })
    );
    // Counts that disagree with the header.
    assert_eq!(
        patch(base, vec![hunk(1, 2, 1, 2, &[" a", "-b"])]),
        Err(EditFailure::Hunk {
            hunk: 0,
            what: "it has 2 base and 1 result lines, its header says 2 and 2".to_string()
        })
    );
    // A marker that says the base lacks a break it has.
    assert_eq!(
        patch(
            base,
            vec![hunk(
                3,
                1,
                3,
                1,
                &["-c", "\\ No newline at end of file", "+d"]
            )]
        ),
        Err(EditFailure::Hunk {
            hunk: 0,
            what: "line 0: the base line 3 has a line break".to_string()
        })
    );
    // Overlapping hunks.
    assert_eq!(
        patch(
            base,
            vec![
                hunk(2, 1, 2, 1, &["-b", "+B"]),
                hunk(1, 1, 1, 1, &["-a", "+A"])
            ]
        ),
        Err(EditFailure::Hunk {
            hunk: 1,
            what: "it starts at base line 1 but the text before it ends at line 2 of 3".to_string()
        })
    );
    assert_eq!(patch(base, Vec::new()), Err(EditFailure::Empty));
}

/// A SWE-agent style edit: applies to the last proven content with tabs expanded, checked
/// against the lines the tool showed.
fn editor_edit(old: &str, new: &str, shown: Option<(u64, &[&str])>) -> Message {
    let mut m = Message::tool_result("t", "The file /r/a.py has been edited.");
    m.details = Some(Box::new(ToolDetails::Edit(FileEdit {
        path: "/r/a.py".into(),
        base: EditBase::LastProven,
        change: EditChange::Replacements {
            edits: vec![Replacement {
                old: old.into(),
                new: new.into(),
                replace_all: false,
            }],
            expand_tabs: Some(8),
            universal_newlines: true,
        },
        shown: shown.map(|(first_line, lines)| ShownLines {
            first_line,
            lines: lines.iter().map(|l| l.to_string()).collect(),
        }),
        diff: None,
    })));
    m
}

fn write(content: &str) -> Message {
    let mut m = Message::tool_result("t", "File created successfully at: /r/a.py");
    m.details = Some(Box::new(ToolDetails::Write {
        path: "/r/a.py".into(),
        content: content.into(),
    }));
    m
}

#[test]
fn edits_on_the_last_proven_content() {
    // No proven content: retracts.
    let edit = editor_edit("x", "y", None);
    let mut replay = Replay::new();
    assert_eq!(
        replay.step(0, &edit),
        Step::Retracted(Retraction::NoProvenBase)
    );

    // Tabs are expanded in the text and both strings before replacing.
    let created = write("def f():\n\treturn 1\n");
    let edit = editor_edit(
        "\treturn 1",
        "\treturn 2",
        Some((1, &["def f():", "        return 2"])),
    );
    let messages = [created, edit];
    let mut replay = Replay::new();
    replay.run(&messages);
    assert_eq!(
        replay.content("/r/a.py"),
        Some("def f():\n        return 2\n")
    );

    // The editor reads with universal newlines and writes the text back with `\n` only.
    let created = write("crlf\r\nold\rx\n");
    let edit = editor_edit("old", "new", None);
    let messages = [created, edit];
    let mut replay = Replay::new();
    replay.run(&messages);
    assert_eq!(replay.content("/r/a.py"), Some("crlf\nnew\nx\n"));

    // A snippet that disagrees with the recomputed text retracts.
    let created = write("a\nb\n");
    let edit = editor_edit("b", "c", Some((2, &["C"])));
    let mut replay = Replay::new();
    replay.step(0, &created);
    assert_eq!(
        replay.step(1, &edit),
        Step::Retracted(Retraction::ShownMismatch { line: 2 })
    );
    assert_eq!(replay.record("/r/a.py"), None);
    assert_eq!(
        replay.states().collect::<Vec<_>>(),
        vec![(
            "/r/a.py",
            PathState::Retracted {
                reason: Retraction::ShownMismatch { line: 2 },
                index: 1
            }
        )]
    );
}

#[test]
fn staleness_compares_digests_of_recorded_and_disk_bytes() {
    let record = FileRecord::new("/a/x".into(), "v1\n".into(), Some("t".into()), 3);
    assert_eq!(record.bytes(), 3);
    assert_eq!(staleness(Some(&record), Some(b"v1\n")), Staleness::Fresh);
    assert_eq!(
        staleness(Some(&record), Some(b"v1\r\n")),
        Staleness::Stale {
            expected: record.digest,
            actual: Some(rehydrate_sidecar::content_digest(b"v1\r\n")),
        }
    );
    assert_eq!(
        staleness(Some(&record), None),
        Staleness::Stale {
            expected: record.digest,
            actual: None
        }
    );
    assert_eq!(staleness(None, Some(b"v1\n")), Staleness::NotRead);
}

#[test]
fn tab_sizes_are_bounded() {
    let change = |size| EditChange::Replacements {
        edits: vec![Replacement {
            old: "a".into(),
            new: "b".into(),
            replace_all: false,
        }],
        expand_tabs: Some(size),
        universal_newlines: false,
    };
    assert_eq!(
        apply_recorded_edit("a\t", &change(64)),
        Ok(format!("b{}", " ".repeat(63)))
    );
    assert_eq!(
        apply_recorded_edit("a\t", &change(u32::MAX)),
        Err(EditFailure::TabSize { size: u32::MAX })
    );
}

#[test]
fn an_edit_whose_own_diff_disagrees_retracts() {
    let edit = |lines: &[&str]| {
        let mut m = Message::tool_result("t", "updated");
        m.details = Some(Box::new(ToolDetails::Edit(FileEdit {
            path: "/a/x".into(),
            base: EditBase::Recorded {
                text: "one\ntwo\n".into(),
            },
            change: EditChange::Replacements {
                edits: vec![Replacement {
                    old: "two".into(),
                    new: "2".into(),
                    replace_all: false,
                }],
                expand_tabs: None,
                universal_newlines: false,
            },
            shown: None,
            diff: Some(vec![hunk(1, 2, 1, 2, lines)]),
        })));
        m
    };
    let agrees = edit(&[" one", "-two", "+2"]);
    let disagrees = edit(&[" one", "-two", "+3"]);
    let mut replay = Replay::new();
    assert_eq!(replay.step(0, &agrees), Step::Proved);
    assert_eq!(
        replay.step(1, &disagrees),
        Step::Retracted(Retraction::DiffMismatch)
    );
}

#[test]
fn a_patch_is_checked_against_a_result_without_building_it() {
    use crate::patch::patch_gives;
    let hunks = [hunk(2, 1, 2, 1, &["-b", "+B"])];
    assert!(patch_gives("a\nb\nc\n", &hunks, "a\nB\nc\n"));
    assert!(!patch_gives("a\nb\nc\n", &hunks, "a\nB\nc\nmore"));
    assert!(!patch_gives("a\nb\nc\n", &hunks, "a\nB\n"));
    assert!(!patch_gives("a\nb\nc\n", &hunks, "a\nX\nc\n"));
    assert!(!patch_gives("a\nx\nc\n", &hunks, "a\nB\nc\n"));
}

#[test]
fn a_patch_steps_each_file_and_reports_the_first_that_is_not_proved() {
    let other = |content: &str| ToolDetails::Write {
        path: "/r/b.txt".into(),
        content: content.into(),
    };
    let edit = |old: &str, new: &str| match *editor_edit(old, new, None).details.unwrap() {
        ToolDetails::Edit(edit) => ToolDetails::Edit(edit),
        _ => unreachable!("editor_edit makes an edit"),
    };
    let patch = |files: Vec<ToolDetails>| {
        let mut m = Message::tool_result("p", "Success.");
        m.details = Some(Box::new(ToolDetails::Patch { files }));
        m
    };
    let first = write("one\n");
    let both = patch(vec![other("b\n"), edit("one", "two")]);
    let second_fails = patch(vec![other("c\n"), edit("absent", "x")]);
    let empty = patch(Vec::new());
    let mut replay = Replay::new();
    replay.step(0, &first);
    // Both files proved: the edit's base is the content proven before the patch.
    assert_eq!(replay.step(1, &both), Step::Proved);
    assert_eq!(replay.content("/r/a.py"), Some("two\n"));
    assert_eq!(replay.content("/r/b.txt"), Some("b\n"));
    // The first file proved, the second cannot be recomputed: the step is the second's, and
    // the first file's new content stands.
    assert_eq!(
        replay.step(2, &second_fails),
        Step::Retracted(Retraction::Edit(EditFailure::NotFound { edit: 0 }))
    );
    assert_eq!(replay.content("/r/b.txt"), Some("c\n"));
    assert_eq!(replay.content("/r/a.py"), None);
    // An empty patch touches nothing.
    assert_eq!(replay.step(3, &empty), Step::Ignored);
}
