//! `rehydrate search`: the bytes the reductions hide, searched.

use std::path::Path;

use rehydrate::search::{SearchOptions, SearchResult, sidecar_search};
use rehydrate::sidecar::verify_log;
use rehydrate::store::SessionDir;

use crate::failure::{Failure, input};
use crate::output::print_stdout;
use crate::term::{push_printable, shown};

pub(crate) fn search(
    dir: &Path,
    query: &str,
    options: &SearchOptions,
    json: bool,
) -> Result<(), Failure> {
    let loaded = SessionDir::open(dir)?;
    loaded.refuse_mismatched()?;
    let result = sidecar_search(&loaded.log, &loaded.sidecar, query, options)
        .map_err(|e| input(e.to_string()))?;
    if json {
        let mut bytes = result.to_json().into_bytes();
        bytes.push(b'\n');
        print_stdout(&bytes)?;
    } else {
        print_stdout(render_search(&result).as_bytes())?;
    }
    // The answer came from what verifies; a reduction that does not is a failure all the same.
    if result.unresolvable > 0 {
        let mut failures: Vec<String> = verify_log(&loaded.log, &loaded.sidecar)
            .iter()
            .map(ToString::to_string)
            .collect();
        failures.push(format!(
            "{}: {} of {} reductions do not verify and were not searched",
            shown(dir),
            result.unresolvable,
            loaded.log.len()
        ));
        return Err(Failure::Verify(failures));
    }
    Ok(())
}

/// The human form of a search result: a summary line, then per match its reduction id and
/// kind and the snippet indented by two spaces.
fn render_search(result: &SearchResult) -> String {
    let total = result.total_matches;
    let shown = result.matches.len();
    let mut out = format!(
        "{total} {} ({})",
        if total == 1 { "match" } else { "matches" },
        result.mode.as_str()
    );
    if shown < total {
        out.push_str(&format!(", {shown} shown"));
    }
    if result.unresolvable > 0 {
        out.push_str(&format!(
            "; {} reductions do not verify and were not searched",
            result.unresolvable
        ));
    }
    out.push('\n');
    for m in &result.matches {
        out.push_str(&format!("{} {}\n", m.reduction_id, m.kind.as_str()));
        for line in m.snippet.lines() {
            out.push_str("  ");
            push_printable(&mut out, line, true);
            out.push('\n');
        }
    }
    out
}
