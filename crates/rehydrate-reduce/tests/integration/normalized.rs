//! Terminal output under `normalize_terminal_output` (docs/FORMATS.md, "Terminal output"): when
//! a normalized result is minted, how it combines with truncation and duplicates, and that
//! chunked feeding and a resumed log mint the same reductions as the one-shot form.

use rehydrate_model::{Message, ReductionKind, ReductionLog, Role};
use rehydrate_reduce::{Minting, Reducer, ReductionPolicy, project_messages};
use rehydrate_sidecar::{expand_reduction, invert, normalize_terminal, verify_log};
use rehydrate_test_support::assistant_call;

/// A progress bar redrawn `frames` times in colour, then a status line.
fn progress(frames: usize) -> String {
    let mut out = String::new();
    for i in 0..=frames {
        out.push_str(&format!(
            "\r\x1b[36mdownloading\x1b[0m [{:<20}] {i}/{frames}",
            "=".repeat(i * 20 / frames.max(1))
        ));
    }
    out.push_str("\r\x1b[K\x1b[32mdone\x1b[0m\n");
    out
}

/// `lines` coloured test lines and a summary: the screen is most of the bytes.
fn colored_tests(lines: usize) -> String {
    let mut out = String::new();
    for i in 0..lines {
        out.push_str(&format!("test case_{i:03} ... \x1b[32mok\x1b[0m\n"));
    }
    out.push_str("test result: \x1b[32mok\x1b[0m\n");
    out
}

/// A user message and one `bash` call per output, then a protected small result.
fn session(outputs: &[String]) -> Vec<Message> {
    let mut history = vec![Message::text(Role::User, "go")];
    for (i, out) in outputs.iter().enumerate() {
        let id = format!("c{i}");
        history.push(assistant_call(&id, "bash", "{}"));
        history.push(Message::tool_result(id, out.clone()));
    }
    history.push(assistant_call("last", "bash", "{}"));
    history.push(Message::tool_result("last", "ok"));
    history
}

fn normalizing() -> ReductionPolicy {
    ReductionPolicy {
        normalize_terminal_output: true,
        protect_last_n_tool_results: 1,
        minting: Minting::PerTurn,
        ..ReductionPolicy::default()
    }
}

/// (kind token, message index) of each reduction.
fn kinds(log: &ReductionLog) -> Vec<(&'static str, usize)> {
    log.reductions
        .iter()
        .map(|r| (r.kind.stub_kind().as_str(), r.ptr.addr.index))
        .collect()
}

fn checked(history: &[Message], policy: &ReductionPolicy) -> rehydrate_reduce::Projection {
    let out = project_messages(history, &ReductionLog::default(), policy);
    assert!(verify_log(&out.log, history).is_empty());
    assert_eq!(invert(&out.view, &out.log, history).unwrap(), history);
    out
}

#[test]
fn a_progress_bar_shows_its_last_screen_after_the_stub() {
    let raw = progress(40);
    let history = session(std::slice::from_ref(&raw));
    let out = checked(&history, &normalizing());
    assert_eq!(kinds(&out.log), [("terminal", 2)]);
    let r = &out.log.reductions[0];
    assert_eq!(
        r.kind,
        ReductionKind::OutputNormalized {
            original_bytes: raw.len(),
            normalized_bytes: 5,
            cut: None,
            hidden_lines: 0,
        }
    );
    assert_eq!(
        out.view[2].content_text().unwrap(),
        format!("{}\ndone\n", r.stub)
    );
    let full = expand_reduction(&out.log, &history, r.id.as_str(), None).unwrap();
    assert_eq!(full.content, raw);
    // Off by default: the raw output (under the trigger) stays.
    let plain = checked(&history, &ReductionPolicy::default());
    assert!(plain.log.is_empty());
}

#[test]
fn a_normalized_output_over_the_trigger_is_cut_around_the_stub() {
    let raw = colored_tests(400);
    let screen = normalize_terminal(&raw).unwrap();
    assert!(screen.len() > 8192);
    let history = session(std::slice::from_ref(&raw));
    let out = checked(&history, &normalizing());
    let r = &out.log.reductions[0];
    let ReductionKind::OutputNormalized {
        normalized_bytes,
        cut: Some(cut),
        hidden_lines,
        ..
    } = r.kind
    else {
        panic!("not cut: {:?}", r.kind);
    };
    assert_eq!(normalized_bytes, screen.len());
    assert_eq!(hidden_lines, screen[cut.range()].matches('\n').count());
    assert_eq!(
        out.view[2].content_text().unwrap(),
        format!(
            "{}\n{}\n{}",
            &screen[..cut.start()],
            r.stub,
            &screen[cut.end()..]
        )
    );
    assert!(!out.view[2].content_text().unwrap().contains('\x1b'));
    // The head and tail are those a truncation of the normalized text keeps.
    assert_eq!(
        Some(cut),
        rehydrate_reduce::truncation_span(&screen, 2048, 2048)
    );
}

#[test]
fn outputs_that_do_not_normalize_or_save_too_little_are_truncated_as_before() {
    // No sequences: a plain truncation. One colour code in a large output: the normalized
    // form is minted (it is what the truncation would cut). A small coloured output: the stub
    // costs more than the escapes, so nothing.
    let plain = "line\n".repeat(3000);
    let one_code = format!("\x1b[1m{}", "line\n".repeat(3000));
    let small = "\x1b[32mok\x1b[0m\n".to_string();
    let history = session(&[plain, one_code, small]);
    let out = checked(&history, &normalizing());
    assert_eq!(kinds(&out.log), [("tool-output", 2), ("terminal", 4)]);
    // min_saved_bytes counts: a normalization saving less than it is not minted, and the
    // output is truncated instead.
    let codes = format!("{}{}", "\x1b[0m".repeat(10), "line\n".repeat(3000));
    let history = session(&[codes]);
    let strict = ReductionPolicy {
        min_saved_bytes: 100_000,
        ..normalizing()
    };
    assert!(checked(&history, &strict).log.is_empty());
}

#[test]
fn a_duplicate_of_a_normalized_canonical_stays_a_duplicate() {
    let raw = progress(40);
    let history = session(&[raw.clone(), raw.clone()]);
    let out = checked(&history, &normalizing());
    assert_eq!(kinds(&out.log), [("terminal", 2), ("duplicate", 4)]);
    // Without deduplication, each copy is normalized on its own.
    let policy = ReductionPolicy {
        dedupe_outputs: false,
        ..normalizing()
    };
    let out = checked(&history, &policy);
    assert_eq!(kinds(&out.log), [("terminal", 2), ("terminal", 4)]);
}

#[test]
fn a_cut_off_escape_stays_in_the_view_as_text() {
    let raw = format!("{}\r\x1b[3", progress(30).trim_end());
    let history = session(std::slice::from_ref(&raw));
    let out = checked(&history, &normalizing());
    assert_eq!(kinds(&out.log), [("terminal", 2)]);
    let text = out.view[2].content_text().unwrap();
    assert!(text.ends_with("done\x1b[3"), "{text:?}");
}

#[test]
fn chunked_feeding_and_a_resumed_log_mint_the_same_reductions() {
    let outputs = [
        progress(40),
        colored_tests(400),
        "plain\n".repeat(3000),
        progress(40),
    ];
    let history = session(&outputs);
    let policy = normalizing();
    let one_shot = project_messages(&history, &ReductionLog::default(), &policy);
    let mut reducer = Reducer::new(policy.clone());
    for chunk in history.chunks(3) {
        reducer.project(chunk.to_vec());
    }
    reducer.close();
    assert_eq!(reducer.log(), &one_shot.log);
    assert_eq!(reducer.view().to_vec(), one_shot.view);
    // A resumed log keeps its normalized results, also under a policy that no longer
    // normalizes.
    let off = ReductionPolicy {
        normalize_terminal_output: false,
        ..policy
    };
    let again = project_messages(&history, &one_shot.log, &off);
    assert_eq!(again.log, one_shot.log);
    assert_eq!(again.view, one_shot.view);
}

#[test]
fn a_file_tools_result_is_a_files_text_never_terminal_output() {
    // A whole read of a log file holding colours and a `\r`: its details prove it is the
    // file's text, so it is truncated as any output, never shown as a terminal's screen.
    let log_file = colored_tests(400);
    let mut history = session(std::slice::from_ref(&log_file));
    history[2].details = Some(Box::new(rehydrate_model::ToolDetails::WholeRead {
        path: "/work/test.log".into(),
        content: log_file,
    }));
    let out = project_messages(&history, &ReductionLog::default(), &normalizing());
    assert_eq!(kinds(&out.log), vec![("tool-output", 2)]);
    assert!(verify_log(&out.log, &history).is_empty());
    // Without details the same text is normalized.
    history[2].details = None;
    let out = project_messages(&history, &ReductionLog::default(), &normalizing());
    assert_eq!(kinds(&out.log), vec![("terminal", 2)]);
}
