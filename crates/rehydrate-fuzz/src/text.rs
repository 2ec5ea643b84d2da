//! Readers of text: the stub parser and the stub guard, terminal normalization, diffs and
//! recorded edits (patch application), and evidence projection over an imported event log.

use std::path::Path;

use arbitrary::Unstructured;
use rehydrate::evidence::{EvidenceOptions, project_evidence};
use rehydrate::formats::import_events;
use rehydrate::model::{
    EditChange, PatchHunk, Replacement, Stub, ToolCall, check_tool_input, find_stubs,
};
use rehydrate::replay::apply_recorded_edit;
use rehydrate::sidecar::{apply_unified_diff, normalize_terminal, unified_diff};

use crate::generate;

/// A line parsed as a stub renders back to a line that parses to the same stub; every stub
/// found in a text is in it, rendered as found; the stub guard finds in a call's arguments
/// what it finds in their text.
pub(crate) fn stub(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(stub) = Stub::parse(text) {
        let line = stub.render();
        assert_eq!(Stub::parse(&line).as_ref(), Ok(&stub));
    }
    for found in find_stubs(text) {
        assert!(
            text.contains(&found.render()),
            "found a stub the text does not hold: {}",
            found.render()
        );
    }
    let call = ToolCall {
        id: "call_1".into(),
        name: "Write".into(),
        arguments: text.to_string(),
    };
    let _ = check_tool_input(&call);
}

/// Normalizing a terminal's output never panics, stays within its bound, and normalizing the
/// result again gives nothing to do.
pub(crate) fn terminal(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(screen) = normalize_terminal(text) else {
        return;
    };
    assert!(
        screen.len() <= 2 * text.len() + 4096,
        "{} bytes of screen from {} of text",
        screen.len(),
        text.len()
    );
    assert_eq!(
        normalize_terminal(&screen),
        None,
        "normalizing twice changed more"
    );
}

/// A diff of two texts applies to the first and gives the second; any diff applies or is
/// refused without a panic; a recorded edit of any shape applies or fails without one.
pub(crate) fn patch(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(old), Ok(new), Ok(context)) = (
        generate::text(&mut u, 8),
        generate::text(&mut u, 8),
        u.int_in_range(0..=3),
    ) else {
        return;
    };
    let diff = unified_diff(&old, &new, context);
    assert_eq!(
        apply_unified_diff(&old, &diff).as_deref(),
        Some(new.as_str()),
        "the diff does not apply back: {diff:?}"
    );
    if let Ok(any) = generate::text(&mut u, 4) {
        let _ = apply_unified_diff(&old, &any);
    }
    let Ok(replacements) = u.arbitrary::<bool>() else {
        return;
    };
    let change = if replacements {
        let mut edits = Vec::new();
        for _ in 0..u.int_in_range(0..=3).unwrap_or(0) {
            let (Ok(o), Ok(n), Ok(all)) = (
                generate::text(&mut u, 2),
                generate::text(&mut u, 2),
                u.arbitrary::<bool>(),
            ) else {
                break;
            };
            edits.push(Replacement {
                old: o,
                new: n,
                replace_all: all,
            });
        }
        EditChange::Replacements {
            edits,
            expand_tabs: u.arbitrary::<Option<u8>>().ok().flatten().map(u32::from),
            universal_newlines: u.arbitrary().unwrap_or(false),
        }
    } else {
        let mut hunks = Vec::new();
        for _ in 0..u.int_in_range(0..=3).unwrap_or(0) {
            let Ok(numbers) = u.arbitrary::<[u8; 4]>() else {
                break;
            };
            let mut lines = Vec::new();
            for _ in 0..u.int_in_range(0..=4).unwrap_or(0) {
                let (Ok(sign), Ok(line)) =
                    (u.choose(&[" ", "-", "+", "\\"]), generate::text(&mut u, 1))
                else {
                    break;
                };
                lines.push(format!("{sign}{line}"));
            }
            hunks.push(PatchHunk {
                old_start: u64::from(numbers[0]),
                old_lines: u64::from(numbers[1]),
                new_start: u64::from(numbers[2]),
                new_lines: u64::from(numbers[3]),
                lines,
            });
        }
        EditChange::Patch { hunks }
    };
    let _ = apply_recorded_edit(&old, &change);
}

/// The largest evidence input the target asks for: small, so that the size check is met.
const EVIDENCE_LIMIT: usize = 2048;

/// An event log imported from bytes of any format (detected) projects to evidence within its limit, or
/// fails with an error: never a panic, never evidence over the limit.
pub(crate) fn evidence(data: &[u8]) {
    let Ok(imported) = import_events(Path::new("fuzz-input"), data, None) else {
        return;
    };
    let options = EvidenceOptions {
        max_input_bytes: EVIDENCE_LIMIT,
    };
    if let Ok(evidence) = project_evidence(&imported.events, &[], &options) {
        let input = evidence.input_json();
        assert!(
            input.len() <= EVIDENCE_LIMIT,
            "{} bytes of evidence over a limit of {EVIDENCE_LIMIT}",
            input.len()
        );
    }
}
