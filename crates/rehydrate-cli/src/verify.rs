//! `rehydrate verify`: every check of a directory, and the report.

use std::path::Path;

use rehydrate::store::SessionDir;

use crate::checks::{check_lines, check_view};
use crate::failure::Failure;
use crate::output::{print_json, print_stdout};

/// Per API, whether a view has a message to send.
#[derive(serde::Serialize)]
struct Sendable {
    openai: bool,
    anthropic: bool,
}

/// The stdout object of `verify --json`.
#[derive(serde::Serialize)]
struct VerifyReport {
    dir: String,
    reductions: usize,
    messages: usize,
    /// Per API, whether the view holds a message its body carries (`false`: nothing to send).
    sendable: Sendable,
    verified: bool,
}

pub(crate) fn verify(dir: &Path, json: bool) -> Result<(), Failure> {
    let loaded = SessionDir::open(dir)?;
    let mut failures = loaded.file_mismatches.clone();
    // Each reduction verified once, then the view checked to invert to the sidecar.
    failures.extend(check_lines(&loaded.sidecar, &loaded.view, &loaded.log));
    // The view is what a host sends: it must be a valid request body for both APIs. A view
    // with no message a body carries has nothing to send: not a failure, but said.
    let checked = check_view(&loaded.view);
    failures.extend(checked.violations);
    if !failures.is_empty() {
        return Err(Failure::Verify(failures));
    }
    let n = loaded.log.len();
    if json {
        return print_json(&VerifyReport {
            dir: crate::term::json_path(dir),
            reductions: n,
            messages: loaded.manifest.messages,
            sendable: Sendable {
                openai: checked.sendable[0],
                anthropic: checked.sendable[1],
            },
            verified: true,
        });
    }
    print_stdout(
        format!(
            "verified {n} {}; the view inverts to the sidecar's {} messages and {}\n",
            if n == 1 { "reduction" } else { "reductions" },
            loaded.manifest.messages,
            match checked.sendable {
                [true, true] => "is a valid OpenAI and Anthropic request body",
                [true, false] =>
                    "is a valid OpenAI request body, and holds no message an Anthropic body could carry besides the system text",
                [false, _] => "holds no message a request body could carry",
            }
        )
        .as_bytes(),
    )
}
