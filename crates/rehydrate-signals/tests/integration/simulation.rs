//! A long simulated session: 200 compaction cycles over a session store built from a corpus
//! Claude Code session (or, without the corpus, a synthetic one), with a scripted summarizer.
//!
//! Each cycle appends the next chunk of messages to the store, projects them with a
//! [`Reducer`] under the aggressive policy (with per-turn minting), appends the reductions it minted, and calls
//! [`auto_compact`]. Before cycle 120 the summarizer cites, as stub lines, the 3 most recent
//! reductions of the store and retires its previous summary: the signals stay quiet. From cycle
//! 120 it cites 2 of them and ids "seen only in rehydrated content": well-formed stub lines for
//! ids the store never minted, one more each cycle. The first boundary that sees such a citation widens
//! retention, the next one (references per summary grew) freezes, and every later boundary
//! stays frozen without calling the summarizer again.
//!
//! A trace row is the boundary of one cycle: the signals `auto_compact` computed before the
//! summarizer ran (so `epoch` is the latest summary's epoch before this cycle's) and its
//! decision, then what this cycle's summary cited. The snapshot holds every 10th cycle and every
//! cycle from 115 to 135; docs/SIGNALS.md shows the corpus one.

use std::cell::Cell;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rehydrate_model::{Message, Reduction, ReductionId, Role, Stub};
use rehydrate_reduce::{Minting, Reducer, ReductionPolicy};
use rehydrate_signals::{
    CompactionSignals, Decision, Error, GROWING_CITATIONS, Summary, auto_compact,
};
use rehydrate_store::{SessionStore, SyncPolicy};
use rehydrate_test_support::{assistant_call, corpus_sessions};

/// Compaction cycles run.
const CYCLES: usize = 200;
/// The first cycle whose summary cites ids the store never minted.
const DRIFT_FROM: usize = 120;
/// Messages appended per cycle.
const CHUNK_MESSAGES: usize = 4;
/// Ordinals from here on are never minted in this run (200 cycles mint far fewer reductions).
const UNMINTED_ORDINAL: usize = 1_000_000;

/// The session to simulate, and what the snapshot is named after: the corpus's largest Claude
/// Code session file, or a synthetic session when there is no corpus.
fn source_session() -> (&'static str, Vec<Message>) {
    if let Some((_, sessions)) =
        corpus_sessions(&[("claude-code", "jsonl")], "200-cycle corpus simulation")
    {
        let largest = sessions
            .iter()
            .max_by_key(|p| (std::fs::metadata(p).map_or(0, |m| m.len()), p.as_path()))
            .expect("corpus_sessions returns at least one session");
        let bytes = std::fs::read(largest).unwrap();
        let import = rehydrate_formats::import(largest, &bytes, None)
            .unwrap_or_else(|e| panic!("{}: {e}", largest.display()));
        assert!(
            import.messages.len() >= CHUNK_MESSAGES,
            "{}",
            largest.display()
        );
        return ("corpus", import.messages);
    }
    ("synthetic", synthetic_session())
}

/// A coding session without the corpus: a request, then 30 tool calls whose outputs vary in
/// size (1 to 5 KiB of log lines), each followed by a short assistant note.
fn synthetic_session() -> Vec<Message> {
    let mut messages = vec![Message::text(
        Role::User,
        "fix the failing build and run the tests",
    )];
    for i in 0..30 {
        let id = format!("call_{i}");
        messages.push(assistant_call(
            &id,
            "Bash",
            &format!(r#"{{"command":"cargo test --package p{i}"}}"#),
        ));
        let lines = 24 * (1 + i % 5);
        let output: String = (0..lines)
            .map(|l| format!("test p{i}::case_{l:03} ... ok ({} ms)\n", (i * 7 + l) % 97))
            .collect();
        messages.push(Message::tool_result(id, output));
        messages.push(Message::text(
            Role::Assistant,
            format!("package p{i} checked"),
        ));
    }
    messages
}

/// The `n`-th message of the endless session made by repeating `source`: the pass number is
/// added to every tool-call id after the first pass, so ids stay fresh and each result still
/// answers its call.
fn message_at(source: &[Message], n: usize) -> Message {
    let pass = n / source.len();
    let mut m = source[n % source.len()].clone();
    if pass > 0 {
        for call in &mut m.tool_calls {
            call.id = format!("{}_r{pass}", call.id);
        }
        if let Some(id) = &mut m.tool_call_id {
            *id = format!("{id}_r{pass}");
        }
    }
    m
}

/// A well-formed stub line for an id the store never minted: `r`'s kind, summary and digest
/// prefix at an ordinal past anything minted (what a summarizer re-deriving ids from
/// rehydrated content writes).
fn unminted_stub(r: &Reduction, ordinal: usize) -> String {
    let real = Stub::parse(&r.stub).expect("a minted reduction's stub parses");
    Stub::render_line(
        real.kind(),
        &ReductionId::new(ordinal, &r.ptr.digest),
        real.summary(),
    )
    .expect("a minted stub's summary is valid")
}

/// One cycle of the trace.
struct Row {
    cycle: usize,
    signals: CompactionSignals,
    decision: Decision,
    /// What this cycle's summary cited, and how many of those ids were never minted; `None`
    /// when the summarizer did not run.
    wrote: Option<(usize, usize)>,
}

impl Row {
    fn line(&self) -> String {
        let s = &self.signals;
        let epoch = s.epoch.map_or_else(|| "-".to_string(), |e| e.to_string());
        let refs = s
            .refs_per_summary
            .last()
            .map_or_else(|| "-".to_string(), |r| format!("{r:.2}"));
        let yes = |b: bool| if b { "yes" } else { "no" };
        let dangling: usize = s.dangling.values().map(Vec::len).sum();
        let wrote = match self.wrote {
            Some((cited, 0)) => cited.to_string(),
            Some((cited, unminted)) => format!("{cited} ({unminted} unminted)"),
            None => "-".to_string(),
        };
        format!(
            "| {:>5} | {:>5} | {:>5} | {:>10} | {:>12} | {:>8} | {:>3} | {:>3} | {:<15} | {:<16} |",
            self.cycle,
            epoch,
            s.cited.len(),
            s.resolvable.len(),
            refs,
            dangling,
            yes(s.ratio_inverted()),
            yes(s.refs_growing()),
            self.decision.as_str(),
            wrote
        )
    }
}

fn scratch_store(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("signals-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("session.rhyd")
}

#[test]
fn signals_stay_quiet_until_the_summarizer_cites_unminted_ids_then_freeze() {
    let (source_name, source) = source_session();
    let path = scratch_store(&format!("simulation-{source_name}"));
    let mut store = SessionStore::create(&path, SyncPolicy::Never).unwrap();
    // Per-turn minting: every reduction is in the store the cycle it is decided, so the
    // summarizer's citations follow the reducer's decisions (not the prompt cache).
    let policy = ReductionPolicy {
        minting: Minting::PerTurn,
        ..ReductionPolicy::aggressive()
    };
    let mut reducer = Reducer::new(policy);
    let mut last_epoch: Option<u64> = None;
    let mut rows: Vec<Row> = Vec::with_capacity(CYCLES);
    let mut unminted_ordinal = UNMINTED_ORDINAL;

    for cycle in 0..CYCLES {
        let chunk: Vec<Message> = (cycle * CHUNK_MESSAGES..(cycle + 1) * CHUNK_MESSAGES)
            .map(|n| message_at(&source, n))
            .collect();
        for m in &chunk {
            store.append_message(m).unwrap();
        }
        let minted = reducer.project(chunk);
        let log = &reducer.log().reductions;
        for r in &log[log.len() - minted..] {
            store.append_reduction(r).unwrap();
        }
        assert_eq!(store.state().log, *reducer.log(), "cycle {cycle}");

        // The script: the 3 most recent reductions (fewer while the store holds fewer); from
        // DRIFT_FROM on, the 2 most recent and one unminted id more each cycle, so references
        // per summary hold on the first drifting cycle and grow after it.
        let recent = &store.state().log.reductions;
        let (real, unminted) = if cycle < DRIFT_FROM {
            (3, 0)
        } else {
            (2, cycle + 1 - DRIFT_FROM)
        };
        let mut lines: Vec<String> = recent
            .iter()
            .rev()
            .take(real)
            .map(|r| r.stub.clone())
            .collect();
        for k in 0..unminted {
            let r = &recent[recent.len() - 1 - k % recent.len()];
            lines.push(unminted_stub(r, unminted_ordinal + k));
        }
        let text = format!(
            "Summary of cycle {cycle}: work so far, with the outputs it relies on.\n{}\n",
            lines.join("\n")
        );
        let retires: Vec<u64> = last_epoch.into_iter().collect();

        let seen: Cell<Option<(CompactionSignals, Decision)>> = Cell::new(None);
        let outcome = auto_compact(&mut store, |signals, decision| {
            seen.set(Some((signals.clone(), decision)));
            Summary {
                text: text.clone(),
                retires: retires.clone(),
            }
        });
        let seen = seen.into_inner();
        let row = match outcome {
            Ok(compacted) => {
                let (signals, decision) = seen.expect("the summarizer ran");
                assert_eq!(decision, compacted.decision, "cycle {cycle}");
                assert_eq!(compacted.epoch, last_epoch.map_or(0, |e| e + 1));
                last_epoch = Some(compacted.epoch);
                unminted_ordinal += unminted;
                Row {
                    cycle,
                    signals,
                    decision,
                    wrote: Some((lines.len(), unminted)),
                }
            }
            Err(Error::Divergence(divergence)) => {
                assert!(
                    seen.is_none(),
                    "cycle {cycle}: the summarizer ran before a freeze"
                );
                Row {
                    cycle,
                    signals: CompactionSignals::clone(&divergence.signals),
                    decision: divergence.decision(),
                    wrote: None,
                }
            }
            Err(e) => panic!("cycle {cycle}: {e}"),
        };
        rows.push(row);
    }

    // Quiet while every citation resolves: no dangling citation, neither signal once the
    // store holds 3 reductions to cite (signal 2 alone, while citations ramp up, continues).
    for row in &rows[..=DRIFT_FROM] {
        let s = &row.signals;
        assert_eq!(row.decision, Decision::Continue, "cycle {}", row.cycle);
        assert!(s.dangling.is_empty(), "cycle {}", row.cycle);
        assert!(s.cited.is_subset(&s.resolvable), "cycle {}", row.cycle);
        assert!(!s.ratio_inverted(), "cycle {}", row.cycle);
        if row.cycle >= 10 {
            assert!(!s.refs_growing(), "cycle {}", row.cycle);
        }
    }
    // The first boundary that sees an unminted citation does not continue.
    let first_dangling = rows
        .iter()
        .position(|r| !r.signals.dangling.is_empty())
        .expect("the drifting summaries leave dangling citations");
    assert_eq!(first_dangling, DRIFT_FROM + 1);
    assert_ne!(rows[first_dangling].decision, Decision::Continue);
    assert_eq!(rows[first_dangling].decision, Decision::WidenRetention);
    // A freeze follows within a few cycles, once references per summary grow, and holds.
    let first_freeze = rows
        .iter()
        .position(|r| r.decision == Decision::Freeze)
        .expect("the drift freezes compaction");
    assert!(
        first_freeze > first_dangling && first_freeze <= first_dangling + 3,
        "first freeze at cycle {first_freeze}"
    );
    assert!(rows[first_freeze].signals.refs_growing());
    for row in &rows[first_freeze..] {
        assert_eq!(row.decision, Decision::Freeze, "cycle {}", row.cycle);
        assert_eq!(row.wrote, None, "cycle {}", row.cycle);
    }
    // The divergence message starts with the fail-closed invariant's text.
    let signals = CompactionSignals::from_store(store.state()).unwrap();
    let divergence = rehydrate_signals::check_compaction_boundary(&signals).unwrap_err();
    assert_eq!(divergence.reasons[0], GROWING_CITATIONS);
    assert_eq!(
        store.state().summaries.len(),
        first_freeze,
        "no summary recorded after the freeze"
    );

    let mut trace = String::from(
        "| cycle | epoch | cited | resolvable | refs/summary | dangling |  s1 |  s2 | decision        | summary cites    |\n\
         |------:|------:|------:|-----------:|-------------:|---------:|----:|----:|:----------------|:-----------------|\n",
    );
    for row in rows
        .iter()
        .filter(|r| r.cycle % 10 == 0 || (115..=135).contains(&r.cycle) || r.cycle == CYCLES - 1)
    {
        let _ = writeln!(trace, "{}", row.line());
    }
    insta::assert_snapshot!(format!("signal_trace_{source_name}"), trace);
}
