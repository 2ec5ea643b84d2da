//! `rehydrate export`: the session with every reduction inverted (canonical JSONL, or a request
//! body repaired so the API accepts it), or the reduced view as a request body (`--view`).

use std::path::Path;

use rehydrate::formats::{Api, ExportFormat, RequestError, request_body};
use rehydrate::model::{Reduction, ReductionKind};
use rehydrate::reduce::{repairs_in_view, session_request_body};
use rehydrate::sidecar::{
    ExportError, check_exportable, check_inverts, export_session, verify_log,
};
use rehydrate::store::SessionDir;

use crate::cli::ExportTo;
use crate::failure::{Failure, input};
use crate::output::print_stdout;
use crate::term::{push_printable, shown};

/// Runs `rehydrate export DIR --to TO [--view] [--strict] [--json]`.
pub(crate) fn run(
    dir: &Path,
    to: ExportTo,
    view: bool,
    strict: bool,
    json: bool,
) -> Result<(), Failure> {
    let loaded = SessionDir::open(dir)?;
    loaded.refuse_mismatched()?;
    let api = to.format().api();
    let (bytes, report) = match (api, view) {
        (None, true) => {
            return Err(input(
                "--view writes a request body: use --to openai or --to anthropic (jsonl is the lossless record of the session)",
            ));
        }
        (Some(api), true) => {
            let body = view_body(dir, &loaded, api)?;
            // The view is the directory's own: its repairs are the log's.
            let rows = rows(&loaded, repairs_in_view(&loaded.view, &loaded.log));
            (
                body,
                Report {
                    api: Some(api),
                    view: true,
                    strict,
                    rows,
                },
            )
        }
        (None, false) => (
            exported(dir, &loaded, to.format())?,
            Report::none(None, strict),
        ),
        (Some(api), false) if strict => (
            exported(dir, &loaded, to.format())?,
            Report::none(Some(api), strict),
        ),
        (Some(api), false) => {
            // The inverted session verifies and leaks no stub, then is repaired into a valid
            // body, reusing the log's repairs (same ids).
            check_exportable(&loaded.view, &loaded.log, &loaded.sidecar)
                .map_err(|e| export_failure(dir, &e))?;
            let (body, projection) = session_request_body(&loaded.sidecar, &loaded.log, api)
                .map_err(|e| invalid(dir, &e))?;
            let rows = rows(&loaded, projection.repairs_in_view());
            (
                body,
                Report {
                    api: Some(api),
                    view: false,
                    strict,
                    rows,
                },
            )
        }
    };
    report.print(dir, json);
    print_stdout(&bytes)
}

/// The reduced view as a request body for `api`, after checking that it inverts to the sidecar
/// under a log that verifies.
fn view_body(dir: &Path, loaded: &SessionDir, api: Api) -> Result<Vec<u8>, Failure> {
    let unverified =
        |e: rehydrate::sidecar::Error| Failure::Verify(vec![format!("{}: {e}", shown(dir))]);
    check_inverts(&loaded.view, &loaded.log, &loaded.sidecar).map_err(unverified)?;
    if let Some(e) = verify_log(&loaded.log, &loaded.sidecar).into_iter().next() {
        return Err(unverified(e));
    }
    request_body(&loaded.view, api).map_err(|e| invalid(dir, &e))
}

/// `export_session` of the directory, its errors mapped to exit codes: a reduction that does
/// not resolve, or stub text left, is a directory that does not verify (1); a session the
/// body cannot represent is bad input (2).
fn exported(dir: &Path, loaded: &SessionDir, format: ExportFormat) -> Result<Vec<u8>, Failure> {
    export_session(&loaded.view, &loaded.log, &loaded.sidecar, format)
        .map_err(|e| export_failure(dir, &e))
}

fn export_failure(dir: &Path, e: &ExportError) -> Failure {
    let line = format!("{}: {e}", shown(dir));
    if e.is_leak() || matches!(e, ExportError::Unresolved(_)) {
        Failure::Verify(vec![line])
    } else {
        input(line)
    }
}

fn invalid(dir: &Path, e: &RequestError) -> Failure {
    input(format!("{}: {e}", shown(dir)))
}

/// One repair a body carries: its id, kind, sidecar index, the call it concerns, and whether
/// the directory's log lacks it (a directory written before the repair existed).
struct Row {
    id: String,
    kind: &'static str,
    index: usize,
    call_id: Option<String>,
    new: bool,
}

/// `repairs` (those a body carries), as rows; a repair past the directory's log is new.
fn rows(loaded: &SessionDir, repairs: Vec<&Reduction>) -> Vec<Row> {
    let known = loaded.log.len();
    repairs
        .into_iter()
        .map(|r| {
            let index = r.ptr.addr.index;
            let message = loaded.sidecar.get(index);
            let call_id = match r.kind {
                ReductionKind::UnansweredCall { call, .. } => message
                    .and_then(|m| m.tool_calls.get(call))
                    .map(|c| c.id.clone()),
                _ => message.and_then(|m| m.tool_call_id.clone()),
            };
            Row {
                id: r.id.to_string(),
                kind: r.kind.stub_kind().as_str(),
                index,
                call_id,
                new: r.id.ordinal() >= known,
            }
        })
        .collect()
}

/// What an export reports about the repairs in its body.
struct Report {
    api: Option<Api>,
    view: bool,
    strict: bool,
    rows: Vec<Row>,
}

impl Report {
    fn none(api: Option<Api>, strict: bool) -> Report {
        Report {
            api,
            view: false,
            strict,
            rows: Vec::new(),
        }
    }

    /// On stderr: with `json`, one JSON object; otherwise, for the repaired inverted session,
    /// one line per repair (`repaired: message 13: unanswered-call r0.… (tool call t1)`), with
    /// a note on each the directory's log lacks. Session text is printed with control
    /// characters escaped.
    fn print(&self, dir: &Path, json: bool) {
        if json {
            let repairs: Vec<serde_json::Value> = self
                .rows
                .iter()
                .map(|r| {
                    // The id as the text lines show it: JSON escapes C0 controls only.
                    let call_id = r.call_id.as_deref().map(|c| {
                        let mut shown = String::new();
                        push_printable(&mut shown, c, false);
                        shown
                    });
                    serde_json::json!({
                        "id": r.id,
                        "kind": r.kind,
                        "index": r.index,
                        "call_id": call_id,
                        "in_log": !r.new,
                    })
                })
                .collect();
            let report = serde_json::json!({
                "dir": crate::term::json_path(dir),
                "to": self.api.map_or("jsonl", Api::as_str),
                "view": self.view,
                "strict": self.strict,
                "repairs": repairs,
            });
            eprintln!("{report}");
            return;
        }
        if self.view {
            return;
        }
        for r in &self.rows {
            let mut line = format!("repaired: message {}: {} {}", r.index, r.kind, r.id);
            if let Some(call) = &r.call_id {
                line.push_str(" (tool call ");
                push_printable(&mut line, call, false);
                line.push(')');
            }
            if r.new {
                line.push_str(
                    "; not in the directory's log, so expand_reduction cannot resolve it there (reduce the session again to record it)",
                );
            }
            eprintln!("{line}");
        }
    }
}
