//! `rehydrate export`: the session with every reduction inverted (canonical JSONL, or a request
//! body repaired so the API accepts it), or the reduced view as a request body (`--view`).

use std::path::Path;

use rehydrate_model::{ReductionKind, ReductionLog};
use rehydrate_reduce::session_request_body;
use rehydrate_sidecar::{
    Api, ExportError, ExportFormat, RequestError, check_inverts, export_session, request_body,
    verify_log,
};

use crate::cli::ExportTo;
use crate::commands::{print_stdout, refuse_mismatched_files};
use crate::failure::{Failure, input};
use crate::session_dir::{self, SessionDir};

/// Runs `rehydrate export DIR --to TO [--view] [--strict] [--json]`.
pub(crate) fn run(
    dir: &Path,
    to: ExportTo,
    view: bool,
    strict: bool,
    json: bool,
) -> Result<(), Failure> {
    let loaded = session_dir::read(dir)?;
    refuse_mismatched_files(&loaded)?;
    let api = match to.format() {
        ExportFormat::OpenAi => Some(Api::OpenAi),
        ExportFormat::Anthropic => Some(Api::Anthropic),
        ExportFormat::Jsonl => None,
    };
    let bytes = match (api, view) {
        (None, true) => {
            return Err(input(
                "--view writes a request body: use --to openai or --to anthropic (jsonl is the lossless record of the session)",
            ));
        }
        (Some(api), true) => view_body(dir, &loaded, api)?,
        (None, false) => exported(dir, &loaded, to.format())?,
        (Some(_), false) if strict => exported(dir, &loaded, to.format())?,
        (Some(api), false) => {
            // The inverted session verifies and leaks no stub (the JSONL export checks both),
            // then is repaired into a valid body.
            exported(dir, &loaded, ExportFormat::Jsonl)?;
            let (body, repairs) =
                session_request_body(&loaded.sidecar, api).map_err(|e| invalid(dir, &e))?;
            report(dir, &loaded, api, &repairs, json);
            body
        }
    };
    print_stdout(&bytes)
}

/// The reduced view as a request body for `api`, after checking that it inverts to the sidecar
/// under a log that verifies.
fn view_body(dir: &Path, loaded: &SessionDir, api: Api) -> Result<Vec<u8>, Failure> {
    let unverified =
        |e: rehydrate_sidecar::Error| Failure::Verify(vec![format!("{}: {e}", dir.display())]);
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
    export_session(&loaded.view, &loaded.log, &loaded.sidecar, format).map_err(|e| {
        let line = format!("{}: {e}", dir.display());
        if e.is_leak() || matches!(e, ExportError::Unresolved(_)) {
            Failure::Verify(vec![line])
        } else {
            input(line)
        }
    })
}

fn invalid(dir: &Path, e: &RequestError) -> Failure {
    input(format!("{}: {e}", dir.display()))
}

/// Lists the repairs on stderr: one line each (`repaired: message 13: unanswered-call r0.…
/// (tool call t1)`), or one JSON object with `--json`.
fn report(dir: &Path, loaded: &SessionDir, api: Api, repairs: &ReductionLog, json: bool) {
    let rows: Vec<(String, &str, usize, Option<String>)> = repairs
        .reductions
        .iter()
        .map(|r| {
            let index = r.ptr.addr.index;
            let message = loaded.sidecar.get(index);
            let call_id = match r.kind {
                ReductionKind::UnansweredCall { call, .. } => message
                    .and_then(|m| m.tool_calls.get(call))
                    .map(|c| c.id.clone()),
                _ => message.and_then(|m| m.tool_call_id.clone()),
            };
            (
                r.id.to_string(),
                r.kind.stub_kind().as_str(),
                index,
                call_id,
            )
        })
        .collect();
    if json {
        let repairs: Vec<serde_json::Value> = rows
            .iter()
            .map(|(id, kind, index, call_id)| {
                serde_json::json!({"id": id, "kind": kind, "index": index, "call_id": call_id})
            })
            .collect();
        let report = serde_json::json!({
            "dir": dir.display().to_string(),
            "to": api.as_str(),
            "view": false,
            "repairs": repairs,
        });
        eprintln!("{report}");
        return;
    }
    for (id, kind, index, call_id) in &rows {
        match call_id {
            Some(call) => eprintln!("repaired: message {index}: {kind} {id} (tool call {call})"),
            None => eprintln!("repaired: message {index}: {kind} {id}"),
        }
    }
}
