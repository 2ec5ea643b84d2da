//! Re-reads (docs/FORMATS.md, "Re-reads"): when a re-read is elided or diffed, its precedence
//! over superseded re-runs under the aggressive preset, and that chunked feeding mints what the
//! one-shot form does.

use rehydrate_model::{Message, ReductionKind, ReductionLog, Role, ToolDetails};
use rehydrate_reduce::{Minting, Reducer, ReductionPolicy, project_messages};
use rehydrate_sidecar::{expand_reduction, invert, reread_diff, verify_log};
use rehydrate_test_support::assistant_call;

/// A 60-line file, with line 30 reading `word`.
fn file(word: &str) -> String {
    (0..60)
        .map(|i| {
            let w = if i == 30 { word } else { "same" };
            format!("line {i:02}: {w} text of the module\n")
        })
        .collect()
}

fn read_call(id: &str, path: &str) -> Message {
    assistant_call(
        id,
        "Read",
        &serde_json::json!({ "file_path": path }).to_string(),
    )
}

/// A whole read as Claude Code's importer gives it: numbered text, `WholeRead` details.
fn read(id: &str, path: &str, content: &str) -> Message {
    let text: String = content
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{:>6}→{l}\n", i + 1))
        .collect();
    let mut m = Message::tool_result(id, text);
    m.details = Some(Box::new(ToolDetails::WholeRead {
        path: path.into(),
        content: content.into(),
    }));
    m
}

/// (kind token, message index) of each reduction.
fn kinds(log: &ReductionLog) -> Vec<(&'static str, usize)> {
    log.reductions
        .iter()
        .map(|r| (r.kind.stub_kind().as_str(), r.ptr.addr.index))
        .collect()
}

/// Reads of `src/a.rs` with the same arguments: the text (2), the same text (4), after an edit
/// (8), a rewrite (12); then a question.
fn session() -> Vec<Message> {
    vec![
        Message::text(Role::User, "fix line 30"),
        read_call("r1", "src/a.rs"),
        read("r1", "src/a.rs", &file("old")),
        read_call("r2", "src/a.rs"),
        read("r2", "src/a.rs", &file("old")),
        assistant_call("e1", "Edit", r#"{"file_path":"src/a.rs"}"#),
        Message::tool_result("e1", "The file src/a.rs has been updated."),
        read_call("r3", "src/a.rs"),
        read("r3", "src/a.rs", &file("new")),
        assistant_call("w1", "Write", r#"{"file_path":"src/a.rs"}"#),
        Message::tool_result("w1", "File written."),
        read_call("r4", "src/a.rs"),
        read("r4", "src/a.rs", &"rewritten from scratch\n".repeat(40)),
        Message::text(Role::User, "done?"),
    ]
}

#[test]
fn the_default_preset_elides_and_diffs_no_read() {
    let out = project_messages(
        &session(),
        &ReductionLog::default(),
        &ReductionPolicy::default(),
    );
    // Only the byte-identical second read, leaving the protected window, is a duplicate.
    assert_eq!(kinds(&out.log), vec![("duplicate", 4)]);
}

#[test]
fn under_the_aggressive_preset_re_reads_decide_before_re_runs() {
    let history = session();
    let policy = ReductionPolicy {
        protect_last_n_tool_results: 9,
        ..ReductionPolicy::aggressive()
    };
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    // 2 is elided as a re-read by 4 (not superseded); 8 is diffed against 4, a base, which 8
    // does not supersede; 12 pairs with 8, which is not whole: no re-read, and 8, reduced
    // already, is not superseded either.
    assert_eq!(
        kinds(&out.log),
        vec![("re-read", 2), ("read-diff", 8)],
        "{:#?}",
        out.log
    );
    assert!(verify_log(&out.log, &history).is_empty());
    assert_eq!(invert(&out.view, &out.log, &history).unwrap(), history);
    let diffed = &out.log.reductions[1];
    let ReductionKind::FileReadDiffed { base, diff, .. } = &diffed.kind else {
        panic!("not a diffed read: {diffed:?}");
    };
    assert_eq!(base.index, 4);
    assert_eq!(*diff, reread_diff(&file("old"), &file("new")));
    assert_eq!(
        out.view[8].content_text().unwrap(),
        format!("{}\n{diff}", diffed.stub)
    );
    assert_eq!(out.view[4], history[4]);
    let full = expand_reduction(&out.log, &history, diffed.id.as_str(), None).unwrap();
    assert_eq!(full.content, history[8].content_text().unwrap());
}

#[test]
fn a_diff_over_the_share_leaves_the_older_read_to_superseding() {
    let history = session();
    // Diffs off: 2 is elided by 4, and 4 superseded by 8 (same Read call); 8 by 12.
    let policy = ReductionPolicy {
        diff_rereads_max_per_mille: None,
        protect_last_n_tool_results: 9,
        ..ReductionPolicy::aggressive()
    };
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert_eq!(
        kinds(&out.log),
        vec![("re-read", 2), ("superseded", 4), ("superseded", 8)]
    );
    // Re-reads off: superseding alone.
    let policy = ReductionPolicy {
        elide_rereads: false,
        diff_rereads_max_per_mille: None,
        protect_last_n_tool_results: 9,
        ..ReductionPolicy::aggressive()
    };
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert_eq!(
        kinds(&out.log),
        vec![("superseded", 2), ("superseded", 4), ("superseded", 8)]
    );
}

#[test]
fn a_truncated_read_is_no_base() {
    let history = session();
    // Every result but the newest is truncated as it leaves the window, before its re-read
    // arrives when fed turn by turn: a reduced read is never replaced and is no base.
    let policy = ReductionPolicy {
        protect_last_n_tool_results: 0,
        tool_output_trigger_bytes: 0,
        ..ReductionPolicy::aggressive()
    };
    let one_shot = project_messages(&history, &ReductionLog::default(), &policy);
    let mut reducer = Reducer::new(policy.clone());
    for chunk in history.chunks(2) {
        reducer.project(chunk.iter().cloned());
        reducer.close();
    }
    assert!(verify_log(reducer.log(), &history).is_empty());
    assert_eq!(
        invert(&reducer.view().to_vec(), reducer.log(), &history).unwrap(),
        history
    );
    assert!(verify_log(&one_shot.log, &history).is_empty());
    assert!(!kinds(reducer.log()).contains(&("read-diff", 8)));
}

#[test]
fn chunked_feeding_mints_what_the_one_shot_form_does() {
    let history = session();
    let policy = ReductionPolicy {
        minting: Minting::PerTurn,
        ..ReductionPolicy::aggressive()
    };
    let mut log = ReductionLog::default();
    let mut reducer = Reducer::new(policy.clone());
    for end in 1..=history.len() {
        reducer.project(history[end - 1..end].iter().cloned());
        reducer.close();
        let one_shot = project_messages(&history[..end], &log, &policy);
        assert_eq!(reducer.log(), &one_shot.log, "at {end}");
        assert_eq!(reducer.view().to_vec(), one_shot.view, "at {end}");
        log = one_shot.log;
    }
    assert!(kinds(&log).contains(&("re-read", 2)));
    assert!(kinds(&log).contains(&("read-diff", 8)));
}
