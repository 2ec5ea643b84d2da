//! `rehydrate cost`: what a session costs under no reduction, per-turn and cache-aware
//! reduction, once the provider's prompt cache is counted (docs/COST.md; docs/FORMATS.md,
//! "CLI JSON", "cost").

use std::fmt::Write as _;
use std::path::Path;

use rehydrate::cost::{Pricing, Replay, Strategy, replay_all};
use rehydrate::model::Message;

use crate::cli::Preset;
use crate::failure::{Failure, input};
use crate::load;
use crate::output::{print_json, print_stdout};
use crate::term::shown;
use crate::tokens::TokenCounter;

/// The stdout object of `cost --json`.
#[derive(serde::Serialize)]
struct CostReport<'a> {
    file: String,
    format: &'static str,
    preset: &'static str,
    pricing: &'a Pricing,
    /// Tokens of the whole imported session, each message once.
    session_tokens: u64,
    /// One per strategy: none, per-turn, cache-aware.
    strategies: Vec<StrategyReport<'a>>,
}

#[derive(serde::Serialize)]
struct StrategyReport<'a> {
    #[serde(flatten)]
    replay: &'a Replay,
    /// The cost against no reduction's, in percent (negative is cheaper); null when no
    /// reduction costs nothing.
    vs_none_percent: Option<f64>,
}

pub(crate) fn run(
    path: &Path,
    pick: load::Pick,
    preset: Preset,
    pricing: &str,
    json: bool,
    plot: Option<&Path>,
) -> Result<(), Failure> {
    let pricing = resolve_pricing(pricing)?;
    if let Some(plot) = plot
        && same_file(path, plot)
    {
        return Err(input(format!(
            "cannot write the plot {}: it is the transcript being read",
            shown(plot)
        )));
    }
    let imported = load::import(path, pick)?;
    let history = &imported.messages;
    warn_times(path, history);
    let mut counter = TokenCounter::new();
    let mut tokens = |m: &Message| counter.count([m]) as u64;
    let replays = replay_all(history, &preset.policy(), &pricing, &mut tokens);
    let session_tokens = counter.count(history) as u64;
    let none_cost = replays
        .iter()
        .find(|r| r.strategy == Strategy::None)
        .map_or(0.0, |r| r.totals.cost_usd);
    let vs_none =
        |r: &Replay| (none_cost > 0.0).then(|| (r.totals.cost_usd / none_cost - 1.0) * 100.0);
    if let Some(plot) = plot {
        let svg = crate::plot::cumulative_cost_svg(&replays)
            .map_err(|e| input(format!("cannot draw the plot {}: {e}", shown(plot))))?;
        std::fs::write(plot, svg)
            .map_err(|e| input(format!("cannot write the plot {}: {e}", shown(plot))))?;
    }
    if json {
        return print_json(&CostReport {
            file: crate::term::json_path(path),
            format: imported.format.as_str(),
            preset: preset.as_str(),
            pricing: &pricing,
            session_tokens,
            strategies: replays
                .iter()
                .map(|r| StrategyReport {
                    replay: r,
                    vs_none_percent: vs_none(r),
                })
                .collect(),
        });
    }
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} ({} tokens, preset {})",
        shown(path),
        session_tokens,
        preset.as_str()
    );
    let _ = writeln!(
        o,
        "{:<12} {:>6} {:>13} {:>12} {:>13} {:>10} {:>9} {:>10} {:>8}",
        "strategy",
        "calls",
        "input tokens",
        "cache reads",
        "cache writes",
        "uncached",
        "output",
        "cost USD",
        "vs none"
    );
    for r in &replays {
        let t = &r.totals;
        let vs = vs_none(r).map_or_else(|| "-".to_owned(), |p| format!("{p:+.1}%"));
        let _ = writeln!(
            o,
            "{:<12} {:>6} {:>13} {:>12} {:>13} {:>10} {:>9} {:>10.4} {:>8}",
            r.strategy.as_str(),
            t.calls,
            t.input_tokens,
            t.cache_read,
            t.cache_write,
            t.uncached,
            t.output,
            t.cost_usd,
            vs
        );
    }
    let _ = writeln!(o, "{}", pricing_line(&pricing));
    print_stdout(o.as_bytes())
}

/// The built-in pricing `value`, or the pricing file at that path.
fn resolve_pricing(value: &str) -> Result<Pricing, Failure> {
    let unknown = match Pricing::builtin(value) {
        Ok(pricing) => return Ok(pricing),
        Err(e) => e,
    };
    let path = Path::new(value);
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(input(format!(
                "{unknown}, and no pricing file {} exists",
                shown(path)
            )));
        }
        Err(e) => {
            return Err(input(format!(
                "cannot read the pricing file {}: {e}",
                shown(path)
            )));
        }
    };
    Pricing::from_json(&text).map_err(|e| input(format!("{}: {e}", shown(path))))
}

/// `pricing <name> (<model>): $<input> input, ... per million tokens, cache <ttl> s (min
/// <n> tokens); source <url>, read <date>; tokens o200k_base (...)`.
fn pricing_line(p: &Pricing) -> String {
    let mut line = format!("pricing {}", p.name);
    if !p.model.is_empty() {
        let _ = write!(line, " ({})", p.model);
    }
    let write = if p.writes_billed {
        format!("${} cache write", p.cache_write)
    } else {
        "cache writes not billed".to_owned()
    };
    let _ = write!(
        line,
        ": ${} input, {write}, ${} cache read, ${} output per million tokens; cache {} s, at least {} tokens",
        p.input,
        p.cache_read,
        p.output,
        p.ttl.as_secs_f64(),
        p.min_cached_tokens
    );
    if p.cached_increment > 1 {
        let _ = write!(line, " in steps of {}", p.cached_increment);
    }
    let source = if p.source.is_empty() {
        "no source given"
    } else {
        &p.source
    };
    let _ = write!(line, "; source {source}");
    if !p.date.is_empty() {
        let _ = write!(line, ", read {}", p.date);
    }
    line.push_str("; tokens o200k_base (OpenAI's tokenizer, an approximation of Anthropic's)");
    line
}

/// Whether `a` and `b` name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Warns on stderr when the session has no model call, and when its times are partly missing
/// or go back, which changes
/// what the replay takes to be cached (docs/COST.md, "Model calls"): a call without a time is
/// taken to be within the cache's lifetime of the one before, and a clock that goes back
/// gives a gap of 0.
fn warn_times(path: &Path, history: &[Message]) {
    let calls = rehydrate::cost::calls(history);
    if calls.is_empty() {
        eprintln!(
            "warning: {}: no model call (no assistant message): every figure is 0",
            shown(load::name(path))
        );
    }
    let timed = calls.iter().filter(|c| c.time.is_some()).count();
    if timed > 0 && timed < calls.len() {
        eprintln!(
            "warning: {}: {} of {} model calls have no time that parses as RFC 3339; each is taken to be within the cache's lifetime of the call before",
            shown(load::name(path)),
            calls.len() - timed,
            calls.len()
        );
    }
    let back = calls
        .windows(2)
        .filter(|w| matches!((&w[0].time, &w[1].time), (Some(a), Some(b)) if b < a))
        .count();
    if back > 0 {
        eprintln!(
            "warning: {}: the clock goes back at {back} of {} model calls; each such gap counts as 0 seconds",
            shown(load::name(path)),
            calls.len()
        );
    }
}
