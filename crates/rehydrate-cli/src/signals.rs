//! `rehydrate signals`: the divergence signals of a directory's store and the decision at a
//! compaction boundary (docs/FORMATS.md, "CLI JSON", "signals"; docs/SIGNALS.md).

use std::fmt::Write as _;
use std::path::Path;

use rehydrate::sidecar::verify_log;
use rehydrate::signals::{Assessment, CompactionSignals, Decision, assess};
use rehydrate::store::SessionDir;

use crate::failure::Failure;
use crate::output::{print_json, print_stdout};
use crate::term::{push_printable, shown};

/// Ids listed in one line of the summary before `and N more`.
const MAX_IDS_LISTED: usize = 20;

/// The stdout object of `signals --json`.
#[derive(serde::Serialize)]
struct SignalsReport<'a> {
    signals: &'a CompactionSignals,
    signal_1: bool,
    signal_2: bool,
    decision: Decision,
    reasons: &'a [String],
}

pub(crate) fn run(dir: &Path, json: bool) -> Result<(), Failure> {
    let loaded = SessionDir::open(dir)?;
    loaded.refuse_mismatched()?;
    // Signals over reductions that do not verify would describe bytes the sidecar no longer
    // holds: that is a verification failure, not a decision.
    let failures = verify_log(&loaded.log, &loaded.sidecar);
    if !failures.is_empty() {
        let mut lines: Vec<String> = failures.iter().map(ToString::to_string).collect();
        lines.push(format!(
            "{}: {} of {} reductions do not verify; no signals are computed over them",
            shown(dir),
            failures.len(),
            loaded.log.len()
        ));
        return Err(Failure::Verify(lines));
    }
    let signals = CompactionSignals::from_records(&loaded.log, &loaded.summaries, &loaded.misses)
        .map_err(|e| {
        Failure::Verify(vec![format!(
            "{}: {e}",
            shown(dir.join(rehydrate::store::dir::STORE))
        )])
    })?;
    let Assessment { decision, reasons } = assess(&signals);
    if json {
        print_json(&SignalsReport {
            signals: &signals,
            signal_1: signals.ratio_inverted(),
            signal_2: signals.refs_growing(),
            decision,
            reasons: &reasons,
        })?;
    } else {
        print_stdout(summary(dir, &signals, decision, &reasons).as_bytes())?;
    }
    match decision {
        Decision::Continue | Decision::WidenRetention => Ok(()),
        Decision::Freeze => {
            // The reasons can name ids a host reported (any text): one printable line.
            // Reasons are sentences of their own (some end with a period): joined with `; `,
            // without one before it.
            let joined: Vec<&str> = reasons.iter().map(|r| r.trim_end_matches('.')).collect();
            let mut line = format!("{}: freeze: ", shown(dir));
            push_printable(&mut line, &joined.join("; "), false);
            Err(Failure::Freeze(line))
        }
    }
}

/// `ids` joined with `, `, at most [`MAX_IDS_LISTED`] of them, then `and N more`; control
/// characters escaped (reported ids are any text).
fn id_list<'a>(ids: impl ExactSizeIterator<Item = &'a String>) -> String {
    let total = ids.len();
    let mut out = String::new();
    for (k, id) in ids.take(MAX_IDS_LISTED).enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        push_printable(&mut out, id, false);
    }
    if total > MAX_IDS_LISTED {
        let _ = write!(out, " and {} more", total - MAX_IDS_LISTED);
    }
    out
}

/// The human form: one line per signal, the decision, one line per reason.
fn summary(
    dir: &Path,
    signals: &CompactionSignals,
    decision: Decision,
    reasons: &[String],
) -> String {
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut out = String::new();
    push_printable(&mut out, &shown(dir), false);
    out.push('\n');
    let epoch = signals
        .epoch
        .map_or_else(|| "- (no summary)".to_string(), |e| e.to_string());
    let _ = writeln!(out, "epoch             {epoch}");
    let _ = writeln!(
        out,
        "cited             {} distinct ids in the active summaries",
        signals.cited.len()
    );
    let _ = writeln!(out, "resolvable        {} ids", signals.resolvable.len());
    let refs = match signals.refs_per_summary.as_slice() {
        [] => "-".to_string(),
        [only] => format!("{only:.2}"),
        [.., previous, last] => format!("{last:.2} (epoch before: {previous:.2})"),
    };
    let _ = writeln!(out, "refs per summary  {refs}");
    let dangling: usize = signals.dangling.values().map(Vec::len).sum();
    let _ = write!(out, "dangling          {dangling}");
    for (epoch, ids) in &signals.dangling {
        let _ = write!(out, "; epoch {epoch}: {}", id_list(ids.iter()));
    }
    out.push('\n');
    let _ = write!(out, "digest failures   {}", signals.digest_failures.len());
    if !signals.digest_failures.is_empty() {
        let _ = write!(out, " ({})", id_list(signals.digest_failures.iter()));
    }
    out.push('\n');
    let _ = writeln!(out, "misses            {}", signals.misses);
    let _ = writeln!(
        out,
        "signal 1          {} (ratio inversion: more ids cited than resolvable)",
        yes(signals.ratio_inverted())
    );
    let _ = writeln!(
        out,
        "signal 2          {} (references per summary grew at the last epoch)",
        yes(signals.refs_growing())
    );
    let _ = writeln!(out, "decision          {}", decision.as_str());
    for reason in reasons {
        out.push_str("reason            ");
        push_printable(&mut out, reason, false);
        out.push('\n');
    }
    out
}
