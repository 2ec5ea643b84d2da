//! The criterion suite of rehydrate (docs/BENCHMARKS.md): every figure is measured next to a
//! limit or a peer in the same run, so `cargo xtask bench` can report it as a ratio.
//!
//! Groups, each benchmark named `<group>/<subject>/<size>`:
//! - `per_turn`: `Reducer::project` of one turn at turns 10, 100 and 1,000 of `turns_1000`
//!   (`ours`; `ours-copy` with the turn's messages copied in the timed call), and the peer's
//!   `project_messages` over the same history with its log of the turn before;
//! - `per_turn_aggressive`: the same with `ReductionPolicy::aggressive()` (every kind on),
//!   against the peer with every lever on;
//! - `session`: projecting the whole `mib_50` session at once, against blake3 over its wire
//!   bytes and against the peer; and the whole `turns_1000` session, which the Python
//!   package's bench (python/bench/per_turn.py) also projects from Python;
//! - `expand`: `expand_reduction` of a 64 KiB tool result, against blake3 over 64 KiB and
//!   against the peer's `expand_reduction`;
//! - `cli`: `rehydrate reduce --no-tokens` on the `mib_50` file, against reading and parsing the
//!   same file with `serde_json`;
//! - `tokens`: o200k_base token counts of the first 5 MiB of `mib_50` wire forms with
//!   bpe-openai, against tiktoken-rs;
//! - `search`: `rehydrate_search` over at least 64 MiB of hidden bytes (corpus turns reduced
//!   with the aggressive policy): a literal against a bare `memchr::memmem` count of the same
//!   bytes, three regexes against `rg -c` on the same bytes in a file, and the whole
//!   `sidecar_search` (verification included) against blake3 of the hidden bytes;
//! - `replay`: a Claude Code session file of at least 50 MiB (the corpus sessions with the most
//!   file-tool cards, repeated with fresh ids) imported and replayed to its file records, from
//!   bytes, against `serde_json` parsing the same bytes line by line into a typed struct;
//! - `evidence`: a Claude Code session file of at least 50 MiB (the largest corpus sessions,
//!   repeated with fresh ids) imported as an event log and projected to per-turn evidence, from
//!   bytes, against the same typed `serde_json` parse of the same bytes;
//! - `import`: one session file per format `rehydrate_formats` reads (Claude Code, Codex,
//!   SWE-agent, Gemini CLI, OpenHands, Goose, OpenAI chat, Anthropic Messages, Responses) imported from
//!   bytes, against a typed `serde_json` parse of the same bytes into that format's wire types;
//! - `store`: appending the first 1,000 messages of `turns_1000` to a fresh `SessionStore` with
//!   each sync setting (every record, every 1 MiB, never), ending durable with one `sync()`,
//!   against a plain JSONL recorder (each message serialized and written as a line, one
//!   `sync_data` at the end).
//!
//! Then, not timed, the economy table (`rehydrate_bench::economy`): what our two presets and the
//! peer with every lever on save of each corpus session over 50,000 tokens, printed and written
//! to `<target>/criterion/economy.md` for `cargo xtask bench`.
//!
//! Workloads are built on first use and described on stderr; without the corpus a synthetic
//! session stands in (with a notice).

use std::fs;
use std::hint::black_box;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use criterion::{
    BatchSize, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main, measurement::WallTime,
};
use rehydrate_bench::economy::Economy;
use rehydrate_bench::formats::{self, FormatFile, IMPORT_MIB_8};
use rehydrate_bench::peer::{peer_policy, peer_policy_all_levers, to_peer_all};
use rehydrate_bench::wire::{parse_claude_code_lines, parse_messages, parse_typed};
use rehydrate_bench::workload::{self, Corpus, JsonlWorkload, SessionFiles, Until, Workload};
use rehydrate_bench::{locate, peer};
use rehydrate_evidence::{EvidenceOptions, project_evidence};
use rehydrate_formats::Format;
use rehydrate_model::{Message, ReductionKind, ReductionLog, Role, ToolCall};
use rehydrate_reduce::{Reducer, ReductionPolicy};
use rehydrate_replay::Replay;
use rehydrate_search::{
    HiddenTexts, Query, SearchMode, SearchOptions, hidden_texts, search_hidden, sidecar_search,
    sidecar_search_cached,
};
use rehydrate_sidecar::VerifiedCache;
use rehydrate_store::{SessionStore, read_store};
use supercode_interchange::ChatMessage;

/// The turns of `turns_1000` at which one turn's projection is timed (1-based).
const PROBE_TURNS: [usize; 3] = [10, 100, 1000];

/// The size of the tool result the `expand` group expands, in bytes (64 KiB).
const EXPAND_BYTES: usize = 64 << 10;

/// How much of `mib_50` the `tokens` group counts: whole messages from the start until at
/// least this many wire bytes (5 MiB), so one tiktoken pass stays near a second.
const TOKENS_BYTES: usize = 5 << 20;

/// The corpus, loaded once; the synthetic fallback when the corpus is absent or empty.
fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir = locate::corpus_dir();
        let loaded = Corpus::load(&dir).unwrap_or_else(|err| {
            eprintln!("bench: cannot read the corpus at {}: {err}", dir.display());
            None
        });
        let corpus = loaded.unwrap_or_else(|| {
            eprintln!(
                "bench: NOTICE: no Claude Code sessions under {}/claude-code \
                 (set REHYDRATE_CORPUS); using a small synthetic session instead",
                dir.display()
            );
            Corpus::synthetic()
        });
        for notice in &corpus.notices {
            eprintln!("bench: corpus: {notice}");
        }
        eprintln!(
            "bench: corpus: {} turns from {}",
            corpus.turns.len(),
            corpus.origin
        );
        corpus
    })
}

/// `turns_1000`, built once.
fn turns_1000() -> &'static Workload {
    static WORKLOAD: OnceLock<Workload> = OnceLock::new();
    WORKLOAD.get_or_init(|| {
        let workload = workload::turns_1000(corpus());
        eprintln!("bench: {}", workload.describe());
        workload
    })
}

/// `mib_50`, built once.
fn mib_50() -> &'static Workload {
    static WORKLOAD: OnceLock<Workload> = OnceLock::new();
    WORKLOAD.get_or_init(|| {
        let workload = workload::mib_50(corpus());
        eprintln!("bench: {}", workload.describe());
        workload
    })
}

/// Group settings for routines that take milliseconds or more, or whose untimed setup does:
/// 15 samples within about 2 s of wall time (criterion counts untimed setup in its plan), and
/// never fewer than one iteration per sample.
fn few_samples(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(15)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2));
}

// ---------------------------------------------------------------------------------------------
// per_turn

/// The turn whose content is projected at every probe position: the content of turn 10.
///
/// Turns of the corpus range from under 1 KB to 150 KB of wire bytes, so timing each
/// position's own turn would compare contents, not history lengths. Every probe projects this
/// turn's messages (with fresh tool-call ids), and only the history before it differs.
const PROBE_CONTENT_TURN: usize = 10;

/// Turn [`PROBE_CONTENT_TURN`] of `turns_1000` with every tool-call id suffixed `_at<turn>`:
/// the messages timed at position `turn`.
fn probe_messages(turn: usize) -> Vec<Message> {
    let mut messages = turns_1000().turns()[PROBE_CONTENT_TURN - 1].clone();
    for message in &mut messages {
        for call in &mut message.tool_calls {
            call.id = format!("{}_at{turn}", call.id);
        }
        if let Some(id) = &mut message.tool_call_id {
            *id = format!("{id}_at{turn}");
        }
    }
    messages
}

/// Which of our presets a per-turn group runs, and the peer policy it is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Preset {
    /// `per_turn`: `ReductionPolicy::default()` against the peer policy that matches it.
    Default,
    /// `per_turn_aggressive`: `ReductionPolicy::aggressive()`, every kind on, against the peer
    /// with every lever on.
    Aggressive,
}

impl Preset {
    /// The index of the preset's state in the per-preset statics.
    fn index(self) -> usize {
        match self {
            Preset::Default => 0,
            Preset::Aggressive => 1,
        }
    }

    /// Our policy. The aggressive group uses `ReductionPolicy::aggressive()` itself, so it
    /// times every kind the preset turns on, whatever they are, except following the agent's
    /// compactions: the workload repeats corpus sessions a thousand turns long, compaction
    /// summaries included, and following them would clear the history at each repetition,
    /// where the peer (which has no such lever) projects all of it.
    fn policy(self) -> ReductionPolicy {
        match self {
            Preset::Default => ReductionPolicy::default(),
            Preset::Aggressive => ReductionPolicy {
                follow_compactions: false,
                ..ReductionPolicy::aggressive()
            },
        }
    }

    /// The peer's policy.
    fn peer_policy(self) -> supercode_reduce::ReductionPolicy {
        match self {
            Preset::Default => peer_policy(),
            Preset::Aggressive => peer_policy_all_levers(),
        }
    }

    /// The criterion group.
    fn group(self) -> &'static str {
        match self {
            Preset::Default => "per_turn",
            Preset::Aggressive => "per_turn_aggressive",
        }
    }

    /// The peer's subject in the group.
    fn peer_subject(self) -> &'static str {
        match self {
            Preset::Default => "peer",
            Preset::Aggressive => "peer-all-levers",
        }
    }
}

/// Our reducer under `preset` fed the prefix and turns `1..turn` of `turns_1000`, one `project`
/// call per turn, as an agent feeds it.
///
/// The benches rebuild this state for every timed call instead of cloning it: on a fresh
/// clone (even after `Reducer::reserve`) the first call cost 190 µs at turn 1,000 against
/// 66 µs on a reducer fed turn by turn, an extra cost that grows with the history (a clone's
/// freshly allocated, exactly sized storage) and that an agent's reducer never pays.
fn fed_before(preset: Preset, turn: usize) -> Reducer {
    let workload = turns_1000();
    let mut reducer = Reducer::new(preset.policy());
    reducer.project(workload.prefix().iter().cloned());
    for messages in workload.turns().iter().take(turn - 1) {
        reducer.project(messages.iter().cloned());
    }
    reducer
}

/// The timed turn at each of [`PROBE_TURNS`] ([`probe_messages`]), checked once per preset:
/// projecting it grows the history by the turn and keeps one view message per history message.
fn turn_probes(preset: Preset) -> &'static [Vec<Message>] {
    static PROBES: [OnceLock<Vec<Vec<Message>>>; 2] = [OnceLock::new(), OnceLock::new()];
    PROBES[preset.index()].get_or_init(|| {
        let started = Instant::now();
        let group = preset.group();
        let probes: Vec<Vec<Message>> = PROBE_TURNS.iter().map(|&t| probe_messages(t)).collect();
        for (&turn, messages) in PROBE_TURNS.iter().zip(&probes) {
            let mut reducer = fed_before(preset, turn);
            let before = reducer.history().len();
            reducer.project(messages.iter().cloned());
            assert_eq!(
                reducer.history().len(),
                before + messages.len(),
                "{group}: turn {turn}: the history grows by the timed turn"
            );
            // One view message per history message, and a synthetic result per call the
            // corpus sessions left unanswered mid-session (neither preset clears turns).
            let synthetic = reducer
                .log()
                .reductions
                .iter()
                .filter(|r| matches!(r.kind, ReductionKind::UnansweredCall { .. }))
                .count();
            assert_eq!(reducer.view().len(), reducer.history().len() + synthetic);
            eprintln!(
                "bench: {group}: before turn {turn}: {before} messages, {} reductions",
                reducer.log().len()
            );
        }
        eprintln!(
            "bench: {group}: the timed turn has {} messages and {} wire bytes \
             (checked in {:.2?})",
            probes[0].len(),
            probes[0].iter().map(Message::wire_len).sum::<usize>(),
            started.elapsed(),
        );
        probes
    })
}

/// The peer's side of one probe: the same history and timed turn as its messages, and its log
/// after the turn before.
struct PeerTurnProbe {
    messages: Vec<ChatMessage>,
    prior: supercode_reduce::ReductionLog,
}

/// The peer before each of [`PROBE_TURNS`], under `preset`'s peer policy. The prior log is one
/// `project_messages` call over the history before the timed turn (feeding the peer 999
/// growing histories would take minutes, and its decisions depend on the history, not on how
/// it was fed).
fn peer_turn_probes(preset: Preset) -> &'static [PeerTurnProbe] {
    static PROBES: [OnceLock<Vec<PeerTurnProbe>>; 2] = [OnceLock::new(), OnceLock::new()];
    PROBES[preset.index()].get_or_init(|| {
        let workload = turns_1000();
        let policy = preset.peer_policy();
        PROBE_TURNS
            .iter()
            .map(|&turn| {
                let mut messages = to_peer_all(&workload.messages_through_turn(turn - 1));
                let (_, prior) = supercode_reduce::project_messages(
                    &messages,
                    &policy,
                    &supercode_reduce::ReductionLog::default(),
                );
                messages.extend(to_peer_all(&probe_messages(turn)));
                let (view, log) = supercode_reduce::project_messages(&messages, &policy, &prior);
                assert_eq!(view.len(), messages.len());
                assert!(log.reductions.len() >= prior.reductions.len());
                PeerTurnProbe { messages, prior }
            })
            .collect()
    })
}

/// Writes `<target>/bench-workloads/turns_1000.json` once: the per-turn workload for the Python
/// package's bench (python/bench/per_turn.py, run by `cargo xtask bench`), which times
/// `rehydrate.Reducer.project` on the same turns: `{"prefix": [...], "turns": [[...], ...],
/// "probes": {"10": [...], "100": [...], "1000": [...]}}`, every message in its canonical JSON.
fn write_turns_file() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let workload = turns_1000();
        let probes: serde_json::Map<String, serde_json::Value> = PROBE_TURNS
            .iter()
            .map(|&turn| (turn.to_string(), serde_json::json!(probe_messages(turn))))
            .collect();
        let file = locate::workload_file("turns_1000");
        let document = serde_json::json!({
            "prefix": workload.prefix(),
            "turns": workload.turns(),
            "probes": probes,
        });
        let bytes = serde_json::to_vec(&document)
            .unwrap_or_else(|err| panic!("cannot write turns_1000 as JSON: {err}"));
        if let Some(dir) = file.parent() {
            fs::create_dir_all(dir)
                .unwrap_or_else(|err| panic!("cannot create {}: {err}", dir.display()));
        }
        fs::write(&file, &bytes)
            .unwrap_or_else(|err| panic!("cannot write {}: {err}", file.display()));
        eprintln!(
            "bench: per_turn: wrote {} ({} bytes)",
            file.display(),
            bytes.len()
        );
    });
}

/// `per_turn/ours/turn-N` and `per_turn/peer/turn-N`: the default preset.
fn per_turn(c: &mut Criterion) {
    per_turn_group(c, Preset::Default);
}

/// `per_turn_aggressive/ours/turn-N` and `per_turn_aggressive/peer-all-levers/turn-N`: the
/// aggressive preset, every kind on, against the peer with every lever on.
fn per_turn_aggressive(c: &mut Criterion) {
    per_turn_group(c, Preset::Aggressive);
}

/// The per-turn group of `preset`: `<group>/ours/turn-N` and `<group>/<peer>/turn-N`.
fn per_turn_group(c: &mut Criterion, preset: Preset) {
    let mut group = c.benchmark_group(preset.group());
    // Criterion plans iterations from wall time, untimed setup included, and each iteration
    // here rebuilds the state before the timed turn (0.1 s at turn 1,000): 5 s of wall time
    // give about 60 timed calls at turn 1,000 and thousands at turn 10.
    group
        .sample_size(30)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    write_turns_file();
    for (index, &turn) in PROBE_TURNS.iter().enumerate() {
        group.bench_function(BenchmarkId::new("ours", format!("turn-{turn}")), |b| {
            let messages = &turn_probes(preset)[index];
            b.iter_batched(
                || (fed_before(preset, turn), messages.clone()),
                |(mut reducer, messages)| {
                    reducer.project(messages);
                    reducer
                },
                BatchSize::PerIteration,
            );
        });
    }
    // The same call on a copy of the turn made in the timed call: what a host that holds its
    // messages in its own values pays (the Python package's figures are read against it too).
    for (index, &turn) in PROBE_TURNS.iter().enumerate() {
        group.bench_function(BenchmarkId::new("ours-copy", format!("turn-{turn}")), |b| {
            let messages = &turn_probes(preset)[index];
            b.iter_batched(
                || fed_before(preset, turn),
                |mut reducer| {
                    reducer.project(black_box(messages).iter().cloned());
                    reducer
                },
                BatchSize::PerIteration,
            );
        });
    }
    let policy = preset.peer_policy();
    few_samples(&mut group);
    for (index, &turn) in PROBE_TURNS.iter().enumerate() {
        let id = BenchmarkId::new(preset.peer_subject(), format!("turn-{turn}"));
        group.bench_function(id, |b| {
            let probe = &peer_turn_probes(preset)[index];
            b.iter_with_large_drop(|| {
                supercode_reduce::project_messages(
                    black_box(&probe.messages),
                    &policy,
                    black_box(&probe.prior),
                )
            });
        });
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// session

/// `session/ours/mib_50`, `session/blake3/mib_50` and `session/peer/mib_50`; and
/// `session/ours/turns_1000`, the baseline of the Python package's whole-session figure.
fn session(c: &mut Criterion) {
    let mut group = c.benchmark_group("session");
    few_samples(&mut group);
    group.throughput(Throughput::Bytes(mib_50().wire_bytes() as u64));
    group.bench_function(BenchmarkId::new("ours", "mib_50"), |b| {
        let workload = mib_50();
        report_session_once();
        b.iter_batched(
            || workload.messages(),
            |messages| {
                let mut reducer = Reducer::new(ReductionPolicy::default());
                let minted = reducer.project(messages);
                assert!(minted > 0 || workload.turn_count() == 0);
                reducer
            },
            BatchSize::PerIteration,
        );
    });
    // The whole of `turns_1000` at once: what the Python package's bench times from Python
    // (python/bench/per_turn.py).
    group.throughput(Throughput::Bytes(turns_1000().wire_bytes() as u64));
    group.bench_function(BenchmarkId::new("ours", "turns_1000"), |b| {
        let workload = turns_1000();
        b.iter_batched(
            || workload.messages(),
            |messages| {
                let mut reducer = Reducer::new(ReductionPolicy::default());
                reducer.project(messages);
                reducer
            },
            BatchSize::PerIteration,
        );
    });
    group.throughput(Throughput::Bytes(mib_50().wire_bytes() as u64));
    group.bench_function(BenchmarkId::new("blake3", "mib_50"), |b| {
        let wire = session_wire();
        b.iter(|| blake3::hash(black_box(wire)));
    });
    // Writing every message's wire form (what a request body is made of) into one buffer.
    group.bench_function(BenchmarkId::new("write_wire", "mib_50"), |b| {
        let workload = mib_50();
        let mut wire = Vec::with_capacity(workload.wire_bytes());
        b.iter(|| {
            wire.clear();
            for message in workload
                .prefix()
                .iter()
                .chain(workload.turns().iter().flatten())
            {
                black_box(message).write_wire(&mut wire);
            }
            assert_eq!(wire.len(), workload.wire_bytes());
        });
    });
    group.bench_function(BenchmarkId::new("peer", "mib_50"), |b| {
        let messages = session_peer();
        let policy = peer_policy();
        let empty = supercode_reduce::ReductionLog::default();
        b.iter_with_large_drop(|| {
            supercode_reduce::project_messages(black_box(messages), &policy, &empty)
        });
    });
    group.finish();
}

/// Prints, once, what each side makes of `mib_50`: reductions and view size in wire bytes.
fn report_session_once() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let workload = mib_50();
        let mut reducer = Reducer::new(ReductionPolicy::default());
        reducer.project(workload.messages());
        let view_bytes: usize = reducer.view().iter().map(Message::wire_len).sum();
        let (view, log) = supercode_reduce::project_messages(
            session_peer(),
            &peer_policy(),
            &supercode_reduce::ReductionLog::default(),
        );
        let peer_view_bytes: usize = view
            .iter()
            .map(|m| serde_json::to_vec(m).map_or(0, |bytes| bytes.len()))
            .sum();
        eprintln!(
            "bench: session: {} wire bytes; ours: {} reductions, view {view_bytes} bytes; \
             peer: {} reductions, view {peer_view_bytes} bytes",
            workload.wire_bytes(),
            reducer.log().len(),
            log.reductions.len(),
        );
    });
}

/// The wire bytes of every `mib_50` message, concatenated.
fn session_wire() -> &'static [u8] {
    static WIRE: OnceLock<Vec<u8>> = OnceLock::new();
    WIRE.get_or_init(|| {
        let workload = mib_50();
        let mut wire = Vec::with_capacity(workload.wire_bytes());
        for message in workload
            .prefix()
            .iter()
            .chain(workload.turns().iter().flatten())
        {
            message.write_wire(&mut wire);
        }
        assert_eq!(wire.len(), workload.wire_bytes());
        wire
    })
}

/// `mib_50` converted to the peer's messages.
fn session_peer() -> &'static [ChatMessage] {
    static PEER: OnceLock<Vec<ChatMessage>> = OnceLock::new();
    PEER.get_or_init(|| peer::to_peer_all(&mib_50().messages()))
}

// ---------------------------------------------------------------------------------------------
// expand

/// A session whose third message is a 64 KiB tool result that the default policy truncates
/// (three newer tool results protect nothing older), as our messages.
fn expand_session() -> Vec<Message> {
    let mut big = String::with_capacity(EXPAND_BYTES + 100);
    let mut line = 0_usize;
    while big.len() < EXPAND_BYTES {
        big.push_str(&format!(
            "src/module_{}.rs:{line}: warning: unused variable `value_{line}`\n",
            line % 17
        ));
        line += 1;
    }
    big.truncate(EXPAND_BYTES);
    let mut messages = vec![Message::text(Role::User, "build the workspace")];
    for (i, output) in [big, "ok\n".to_owned(), "ok\n".to_owned(), "ok\n".to_owned()]
        .into_iter()
        .enumerate()
    {
        let id = format!("call_{i}");
        messages.push(Message {
            role: Role::Assistant,
            tool_calls: vec![ToolCall {
                id: id.clone(),
                name: "Bash".to_owned(),
                arguments: format!(r#"{{"command":"cargo build -p crate{i}"}}"#),
            }],
            ..Message::default()
        });
        messages.push(Message::tool_result(id, output));
    }
    messages
}

/// `expand/ours/64KiB`, `expand/blake3/64KiB` and `expand/peer/64KiB`.
fn expand(c: &mut Criterion) {
    let history = expand_session();
    let mut reducer = Reducer::new(ReductionPolicy::default());
    reducer.project(history.iter().cloned());
    let ours = reducer
        .log()
        .reductions
        .iter()
        .find(|r| r.ptr.addr.index == 2)
        .expect("the 64 KiB tool result is reduced");
    let id = ours.id.as_str().to_owned();
    let expanded = rehydrate_sidecar::expand_reduction(reducer.log(), reducer.history(), &id, None)
        .expect("our reduction expands");
    assert_eq!(expanded.content.len(), EXPAND_BYTES);

    let peer_history = to_peer_all(&history);
    let (_, peer_log) = supercode_reduce::project_messages(
        &peer_history,
        &peer_policy(),
        &supercode_reduce::ReductionLog::default(),
    );
    let peer_id = peer_log
        .reductions
        .iter()
        .find(|r| r.ptr.addr.index == 2)
        .expect("the peer reduces the 64 KiB tool result")
        .id
        .clone();
    let peer_expanded = supercode_reduce::rehydrate::expand_reduction(
        &peer_log,
        &peer_history,
        None,
        &peer_id,
        None,
    )
    .expect("the peer's reduction expands");
    assert_eq!(peer_expanded.content, expanded.content);
    let bytes = expanded.content.as_bytes().to_vec();

    let mut group = c.benchmark_group("expand");
    group
        .sample_size(50)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .throughput(Throughput::Bytes(EXPAND_BYTES as u64));
    group.bench_function(BenchmarkId::new("ours", "64KiB"), |b| {
        b.iter(|| {
            rehydrate_sidecar::expand_reduction(
                black_box(reducer.log()),
                black_box(reducer.history()),
                black_box(&id),
                None,
            )
        });
    });
    group.bench_function(BenchmarkId::new("blake3", "64KiB"), |b| {
        b.iter(|| blake3::hash(black_box(&bytes)));
    });
    group.bench_function(BenchmarkId::new("peer", "64KiB"), |b| {
        b.iter(|| {
            supercode_reduce::rehydrate::expand_reduction(
                black_box(&peer_log),
                black_box(&peer_history),
                None,
                black_box(&peer_id),
                None,
            )
        });
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// cli

/// The `mib_50` workload file and how to run the CLI on it.
struct CliSetup {
    /// The OpenAI messages file of `mib_50`.
    file: PathBuf,
    /// The `rehydrate` binary.
    bin: PathBuf,
    /// Whether the binary takes `--no-tokens`.
    no_tokens: bool,
    /// The output directory, removed before each run.
    out: PathBuf,
}

/// Writes the `mib_50` file once and checks that it re-imports; finds out whether `bin` takes
/// `--no-tokens`.
fn cli_setup(bin: &Path) -> &'static CliSetup {
    static SETUP: OnceLock<CliSetup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let workload = mib_50();
        let file = locate::workload_file(workload.name());
        let messages = workload.messages();
        let started = Instant::now();
        let file_bytes = workload::write_openai(&file, &messages)
            .unwrap_or_else(|err| panic!("cannot write the workload file: {err}"));
        assert_eq!(file_bytes, openai_file_bytes(workload));
        workload::check_reimport(&file, &messages)
            .unwrap_or_else(|err| panic!("the workload file does not re-import: {err}"));
        eprintln!(
            "bench: cli: wrote {} ({file_bytes} bytes) and checked that it re-imports in {:.2?}",
            file.display(),
            started.elapsed()
        );
        let no_tokens = takes_no_tokens(bin);
        if !no_tokens {
            eprintln!(
                "bench: NOTICE: {} does not take --no-tokens yet; \
                 the cli bench runs `rehydrate reduce` with token counting",
                bin.display()
            );
        }
        let out = file.with_extension("rehydrate-bench-out");
        CliSetup {
            file,
            bin: bin.to_path_buf(),
            no_tokens,
            out,
        }
    })
}

/// Whether `rehydrate reduce` accepts `--no-tokens` (clap reports an "unexpected argument"
/// otherwise).
fn takes_no_tokens(bin: &Path) -> bool {
    let output = Command::new(bin)
        .args(["reduce", "--no-tokens", "--help"])
        .stdin(Stdio::null())
        .output()
        .expect("the rehydrate binary starts");
    !String::from_utf8_lossy(&output.stderr).contains("unexpected argument")
}

/// Runs `rehydrate reduce [--no-tokens] FILE --out OUT` once and asserts it succeeds.
fn run_cli(setup: &CliSetup) {
    let mut command = Command::new(&setup.bin);
    command.arg("reduce");
    if setup.no_tokens {
        command.arg("--no-tokens");
    }
    let output = command
        .arg(&setup.file)
        .arg("--out")
        .arg(&setup.out)
        .stdin(Stdio::null())
        .output()
        .expect("the rehydrate binary starts");
    assert!(
        output.status.success(),
        "rehydrate reduce failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Removes the CLI's output directory, if any.
fn clear_out(setup: &CliSetup) {
    match fs::remove_dir_all(&setup.out) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => panic!("cannot remove {}: {err}", setup.out.display()),
    }
}

/// The size in bytes of the file [`workload::write_openai`] writes for `workload`: its wire
/// bytes, a comma between messages and the two brackets.
fn openai_file_bytes(workload: &Workload) -> u64 {
    (workload.wire_bytes() + workload.message_count().max(1) + 1) as u64
}

/// `cli/ours/mib_50` and `cli/serde_json/mib_50`, skipped with a notice when the `rehydrate`
/// binary is missing.
fn cli(c: &mut Criterion) {
    let bin = locate::rehydrate_bin();
    if !bin.is_file() {
        eprintln!(
            "bench: NOTICE: cli benches skipped: no rehydrate binary at {} \
             (run `cargo build --release -p rehydrate-cli`, or set REHYDRATE_BIN)",
            bin.display()
        );
        return;
    }
    let mut group = c.benchmark_group("cli");
    few_samples(&mut group);
    group.throughput(Throughput::Bytes(openai_file_bytes(mib_50())));
    group.bench_function(BenchmarkId::new("ours", "mib_50"), |b| {
        let setup = cli_setup(&bin);
        b.iter_batched(
            || clear_out(setup),
            |()| run_cli(setup),
            BatchSize::PerIteration,
        );
        clear_out(setup);
    });
    group.bench_function(BenchmarkId::new("serde_json", "mib_50"), |b| {
        let setup = cli_setup(&bin);
        let expected = mib_50().message_count();
        b.iter(|| {
            let bytes = fs::read(&setup.file).expect("the workload file reads");
            let messages = parse_messages(&bytes).expect("the workload file parses");
            assert_eq!(messages.len(), expected);
            messages
        });
    });

    // `rehydrate verify` of the output directory of the same run, against reading and hashing
    // its files (one reduce outside the timing makes it).
    let setup = cli_setup(&bin);
    let verified = VerifyDir::make(setup);
    group.throughput(Throughput::Bytes(verified.bytes));
    group.bench_function(BenchmarkId::new("verify", "mib_50"), |b| {
        b.iter(|| verified.verify(&bin));
    });
    group.bench_function(BenchmarkId::new("blake3", "mib_50"), |b| {
        b.iter(|| {
            let mut hashed = 0;
            for file in &verified.files {
                let bytes = fs::read(file).expect("the output file reads");
                hashed += bytes.len() as u64;
                black_box(blake3::hash(&bytes));
            }
            assert_eq!(hashed, verified.bytes);
        });
    });

    // A Claude Code session file: the `evidence` group's bytes, written once.
    let claude = claude_largest_mib_50();
    let file = locate::target_dir()
        .join("bench-workloads")
        .join("claude_largest_mib_50.jsonl");
    fs::write(&file, claude.bytes()).expect("the Claude Code workload file can be written");
    let claude_setup = CliSetup {
        out: file.with_extension("rehydrate-bench-out"),
        file,
        bin: bin.clone(),
        no_tokens: setup.no_tokens,
    };
    group.throughput(Throughput::Bytes(claude.bytes().len() as u64));
    group.bench_function(BenchmarkId::new("ours", claude.name()), |b| {
        b.iter_batched(
            || clear_out(&claude_setup),
            |()| run_cli(&claude_setup),
            BatchSize::PerIteration,
        );
        clear_out(&claude_setup);
    });
    group.bench_function(BenchmarkId::new("serde_json", claude.name()), |b| {
        b.iter(|| {
            let bytes = fs::read(&claude_setup.file).expect("the workload file reads");
            let lines = parse_claude_code_lines(&bytes).expect("every line parses");
            assert_eq!(lines.len(), claude.line_count());
            lines
        });
    });
    group.finish();
}

/// The output directory `cli/verify` checks: made once by `rehydrate reduce`, with its files
/// and their total size in bytes.
struct VerifyDir {
    dir: PathBuf,
    files: Vec<PathBuf>,
    bytes: u64,
}

impl VerifyDir {
    fn make(setup: &CliSetup) -> VerifyDir {
        clear_out(setup);
        run_cli(setup);
        let dir = setup.file.with_extension("rehydrate-verify");
        let _ = fs::remove_dir_all(&dir);
        fs::rename(&setup.out, &dir).expect("the output directory can be renamed");
        let mut files = Vec::new();
        let mut pending = vec![dir.clone()];
        while let Some(at) = pending.pop() {
            for entry in fs::read_dir(&at).expect("the output directory lists") {
                let path = entry.expect("the output directory lists").path();
                if path.is_dir() {
                    pending.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        files.sort();
        let bytes = files
            .iter()
            .map(|f| fs::metadata(f).expect("the output file exists").len())
            .sum();
        eprintln!(
            "bench: cli: verify: {} holds {} files, {bytes} bytes",
            dir.display(),
            files.len()
        );
        VerifyDir { dir, files, bytes }
    }

    /// Runs `rehydrate verify DIR` once and asserts it succeeds.
    fn verify(&self, bin: &Path) {
        let output = Command::new(bin)
            .arg("verify")
            .arg(&self.dir)
            .stdin(Stdio::null())
            .output()
            .expect("the rehydrate binary starts");
        assert!(
            output.status.success(),
            "rehydrate verify failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// tokens

/// The wire forms of the first messages of `mib_50`, at least [`TOKENS_BYTES`] in all.
fn token_texts() -> &'static [String] {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let workload = mib_50();
        let mut texts = Vec::new();
        let mut bytes = 0;
        for message in workload
            .prefix()
            .iter()
            .chain(workload.turns().iter().flatten())
        {
            if bytes >= TOKENS_BYTES {
                break;
            }
            let text = message.wire_json();
            bytes += text.len();
            texts.push(text);
        }
        eprintln!(
            "bench: tokens: the first {} messages of mib_50, {bytes} wire bytes",
            texts.len()
        );
        texts
    })
}

/// The o200k_base token count of [`token_texts`], computed once with both tokenizers, which
/// must agree.
fn token_total() -> usize {
    static TOTAL: OnceLock<usize> = OnceLock::new();
    *TOTAL.get_or_init(|| {
        let texts = token_texts();
        let ours = count_bpe(texts);
        let theirs = count_tiktoken(texts);
        assert_eq!(ours, theirs, "bpe-openai and tiktoken-rs disagree");
        eprintln!("bench: tokens: both tokenizers count {ours} o200k_base tokens");
        ours
    })
}

/// Tokens of `texts` with bpe-openai, summed per text.
fn count_bpe(texts: &[String]) -> usize {
    let bpe = bpe_openai::o200k_base();
    texts.iter().map(|t| bpe.count(t)).sum()
}

/// Tokens of `texts` with tiktoken-rs, summed per text.
fn count_tiktoken(texts: &[String]) -> usize {
    static BPE: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
    let bpe = BPE.get_or_init(|| tiktoken_rs::o200k_base().expect("tiktoken-rs loads o200k_base"));
    texts.iter().map(|t| bpe.encode_ordinary(t).len()).sum()
}

/// `tokens/bpe-openai/5MiB` and `tokens/tiktoken/5MiB`.
fn tokens(c: &mut Criterion) {
    let mut group = c.benchmark_group("tokens");
    few_samples(&mut group);
    let bytes: usize = token_texts().iter().map(String::len).sum();
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function(BenchmarkId::new("bpe-openai", "5MiB"), |b| {
        let (texts, total) = (token_texts(), token_total());
        b.iter(|| assert_eq!(count_bpe(black_box(texts)), total));
    });
    group.bench_function(BenchmarkId::new("tiktoken", "5MiB"), |b| {
        let (texts, total) = (token_texts(), token_total());
        b.iter(|| assert_eq!(count_tiktoken(black_box(texts)), total));
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// search

/// The least hidden bytes the `search` group searches (64 MiB).
const SEARCH_HIDDEN_BYTES: usize = 64 << 20;

/// The literal of `search/literal` and `search/memmem`: a word of code and prose alike.
const SEARCH_LITERAL: &str = "function";

/// The regexes of the `search` group, each `(subject, pattern)`, searched case-sensitively (an
/// inline `(?i)` folds case) against `rg -c PATTERN FILE`.
const SEARCH_REGEXES: [(&str, &str); 3] = [
    ("error-word", r"\w+Error\b"),
    ("refused", r"(?i)connection refused"),
    ("five-words", "error|warning|failed|denied|timeout"),
];

/// A session whose hidden bytes are at least [`SEARCH_HIDDEN_BYTES`]: the corpus turns scaled
/// until their tool results alone exceed it, reduced with the aggressive policy without
/// superseding re-runs (every result older than the newest three keeps 256 bytes of head and
/// tail), as the history and its log.
/// A repeated result would be a duplicate, whose bytes search reads once through its canonical,
/// so every tool result of pass `k >= 1` ends with a line `[repeat k]` and is distinct.
fn search_session() -> &'static (Vec<Message>, ReductionLog) {
    static SESSION: OnceLock<(Vec<Message>, ReductionLog)> = OnceLock::new();
    SESSION.get_or_init(|| {
        let started = Instant::now();
        let mut wire_bytes = SEARCH_HIDDEN_BYTES + SEARCH_HIDDEN_BYTES / 4;
        for _attempt in 0..8 {
            let workload = corpus().scale("search", workload::Until::WireBytes(wire_bytes));
            let mut messages = workload.messages();
            for m in &mut messages {
                if let (Some(id), Some(rehydrate_model::Content::Text(text))) =
                    (&m.tool_call_id, &mut m.content)
                    && let Some((_, pass)) = id.rsplit_once("_r")
                    && pass.bytes().all(|b| b.is_ascii_digit())
                {
                    text.push_str(&format!("\n[repeat {pass}]"));
                }
            }
            // Superseding would hide whole results of earlier passes (their calls are made
            // again), and following the repeated compactions whole passes: both kept off, so
            // the hidden bytes stay the middles of truncated results.
            let policy = ReductionPolicy {
                supersede_reruns: false,
                follow_compactions: false,
                ..ReductionPolicy::aggressive()
            };
            let mut reducer = Reducer::new(policy);
            reducer.project(messages);
            let (history, log) = reducer.into_parts();
            let hidden = hidden_texts(&log, &history).hidden_bytes();
            if hidden >= SEARCH_HIDDEN_BYTES || workload.turn_count() == 0 {
                eprintln!(
                    "bench: search: {} turns, {} wire bytes, {} reductions hiding {hidden} bytes \
                     ({:.1} MiB), built in {:.2?}",
                    workload.turn_count(),
                    workload.wire_bytes(),
                    log.len(),
                    hidden as f64 / f64::from(1 << 20),
                    started.elapsed()
                );
                return (history, log);
            }
            // Scale up in proportion to what is missing, with a margin; always grows.
            let factor = SEARCH_HIDDEN_BYTES as f64 / hidden.max(1) as f64 * 1.1;
            wire_bytes = (wire_bytes as f64 * factor.max(1.1)) as usize;
        }
        panic!("bench: search: the corpus does not scale to {SEARCH_HIDDEN_BYTES} hidden bytes")
    })
}

/// The hidden texts of [`search_session`], resolved (verified) once.
fn search_hidden_texts() -> &'static HiddenTexts<'static> {
    static HIDDEN: OnceLock<HiddenTexts<'static>> = OnceLock::new();
    HIDDEN.get_or_init(|| {
        let (history, log) = search_session();
        let hidden = hidden_texts(log, history);
        assert!(hidden.unresolvable.is_empty());
        hidden
    })
}

/// Every hidden text, each followed by a line break, in one buffer: the bytes the baselines
/// search (the line breaks keep a match from spanning two texts).
fn search_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let hidden = search_hidden_texts();
        let mut bytes = Vec::with_capacity(hidden.hidden_bytes() + hidden.texts.len());
        for text in &hidden.texts {
            bytes.extend_from_slice(text.hidden().as_bytes());
            bytes.push(b'\n');
        }
        bytes
    })
}

/// [`search_bytes`] written to `<target>/bench-workloads/search_hidden.txt`, for ripgrep.
fn search_file() -> &'static Path {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let file = locate::workload_file("search_hidden").with_extension("txt");
        if let Some(dir) = file.parent() {
            fs::create_dir_all(dir).expect("the workload directory can be created");
        }
        fs::write(&file, search_bytes()).expect("the hidden bytes can be written");
        file
    })
}

/// `rg`, when it runs.
fn ripgrep() -> Option<&'static str> {
    static RG: OnceLock<bool> = OnceLock::new();
    let found = *RG.get_or_init(|| {
        let ok = Command::new("rg")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !ok {
            eprintln!(
                "bench: NOTICE: search: no `rg` on PATH (Debian package `ripgrep`); \
                 the ripgrep rows are not measured"
            );
        }
        ok
    });
    found.then_some("rg")
}

/// Runs `rg -c PATTERN FILE` once and returns its count of matching lines.
fn run_rg(rg: &str, pattern: &str, file: &Path) -> usize {
    let output = Command::new(rg)
        .args(["--no-config", "--count", "--regexp"])
        .arg(pattern)
        .arg(file)
        .stdin(Stdio::null())
        .output()
        .expect("rg starts");
    // Exit status 1 means no line matched.
    assert!(
        output.status.success() || output.status.code() == Some(1),
        "rg failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap_or(0)
}

/// The total matches of `query` over `hidden`, through the whole search (snippets included).
fn total_matches(hidden: &HiddenTexts<'_>, query: &Query) -> usize {
    search_hidden(black_box(hidden), query).total_matches
}

/// A compiled query of the `search` group; `case_sensitive` unless folding is asked for.
fn search_query(text: &str, mode: SearchMode, case_sensitive: bool) -> Query {
    let options = SearchOptions {
        mode,
        case_sensitive,
        ..SearchOptions::default()
    };
    Query::new(text, &options).expect("the bench queries compile")
}

/// `search/*/64MiB`: ours against memmem, ripgrep and blake3 over the same hidden bytes.
fn search(c: &mut Criterion) {
    let hidden = search_hidden_texts();
    let bytes = search_bytes();
    let mut group = c.benchmark_group("search");
    few_samples(&mut group);
    group.throughput(Throughput::Bytes(hidden.hidden_bytes() as u64));

    // A literal, case-sensitive, against memmem over the same slices where they lie (one call
    // per hidden text, as ours) and over one contiguous copy of them.
    let literal = search_query(SEARCH_LITERAL, SearchMode::Literal, true);
    let finder = memchr::memmem::Finder::new(SEARCH_LITERAL);
    let expected = finder.find_iter(bytes).count();
    assert_eq!(total_matches(hidden, &literal), expected);
    group.bench_function(BenchmarkId::new("literal", "64MiB"), |b| {
        b.iter(|| assert_eq!(total_matches(hidden, &literal), expected));
    });
    group.bench_function(BenchmarkId::new("memmem-slices", "64MiB"), |b| {
        b.iter(|| {
            let found: usize = black_box(hidden)
                .texts
                .iter()
                .map(|text| finder.find_iter(text.hidden().as_bytes()).count())
                .sum();
            assert_eq!(found, expected);
        });
    });
    group.bench_function(BenchmarkId::new("memmem", "64MiB"), |b| {
        b.iter(|| assert_eq!(finder.find_iter(black_box(bytes)).count(), expected));
    });
    // The same literal with ASCII case folding (the default).
    let folded = search_query(SEARCH_LITERAL, SearchMode::Literal, false);
    let folded_count = total_matches(hidden, &folded);
    assert!(folded_count >= expected);
    group.bench_function(BenchmarkId::new("literal-i", "64MiB"), |b| {
        b.iter(|| assert_eq!(total_matches(hidden, &folded), folded_count));
    });

    // Regexes against `rg -c` on the same bytes in a file.
    let rg = ripgrep();
    let file = rg.map(|_| search_file());
    for (subject, pattern) in SEARCH_REGEXES {
        let query = search_query(pattern, SearchMode::Regex, true);
        let count = total_matches(hidden, &query);
        if let (Some(rg), Some(file)) = (rg, file) {
            eprintln!(
                "bench: search: {pattern}: {count} matches (ours), {} matching lines (rg)",
                run_rg(rg, pattern, file)
            );
        }
        group.bench_function(BenchmarkId::new(format!("regex-{subject}"), "64MiB"), |b| {
            b.iter(|| assert_eq!(total_matches(hidden, &query), count));
        });
        if let (Some(rg), Some(file)) = (rg, file) {
            group.bench_function(BenchmarkId::new(format!("rg-{subject}"), "64MiB"), |b| {
                b.iter(|| run_rg(rg, pattern, file));
            });
        }
    }

    // The whole call, resolution and verification of every reduction included, against
    // blake3 over the hidden bytes.
    let (history, log) = search_session();
    let options = SearchOptions {
        mode: SearchMode::Literal,
        case_sensitive: true,
        ..SearchOptions::default()
    };
    group.bench_function(BenchmarkId::new("sidecar_search", "64MiB"), |b| {
        b.iter(|| {
            let result = sidecar_search(black_box(log), history, SEARCH_LITERAL, &options)
                .expect("the literal is a valid query");
            assert_eq!(result.total_matches, expected);
        });
    });
    // The model searches several times a turn: from the second search on, a live session's
    // cache holds every reduction verified, so only the search itself is left.
    let mut verified = VerifiedCache::default();
    sidecar_search_cached(log, history, SEARCH_LITERAL, &options, &mut verified)
        .expect("the literal is a valid query");
    group.bench_function(BenchmarkId::new("sidecar_search-again", "64MiB"), |b| {
        b.iter(|| {
            let result = sidecar_search_cached(
                black_box(log),
                history,
                SEARCH_LITERAL,
                &options,
                &mut verified,
            )
            .expect("the literal is a valid query");
            assert_eq!(result.total_matches, expected);
        });
    });
    group.bench_function(BenchmarkId::new("blake3", "64MiB"), |b| {
        b.iter(|| {
            let mut hasher = blake3::Hasher::new();
            for text in &black_box(hidden).texts {
                hasher.update(text.hidden().as_bytes());
            }
            hasher.finalize()
        });
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// replay

/// The corpus session files, parsed, for the `group` bench (the synthetic session without the
/// corpus, with a notice). The caller keeps only the workload it builds from them.
fn session_files(group: &str) -> SessionFiles {
    let dir = locate::corpus_dir();
    let loaded = SessionFiles::load(&dir).unwrap_or_else(|err| {
        eprintln!("bench: cannot read the corpus at {}: {err}", dir.display());
        None
    });
    let files = loaded.unwrap_or_else(|| {
        eprintln!(
            "bench: NOTICE: {group}: no Claude Code sessions under {}/claude-code \
             (set REHYDRATE_CORPUS); using a small synthetic session instead",
            dir.display()
        );
        SessionFiles::synthetic()
    });
    for notice in &files.notices {
        eprintln!("bench: {group}: corpus: {notice}");
    }
    files
}

/// `claude_mib_50`: the corpus sessions with the most file-tool cards (the synthetic session
/// without the corpus) repeated to at least 50 MiB, built once and checked once: the bytes
/// import to every copy's messages, and replay proves every copy's paths.
fn claude_mib_50() -> &'static JsonlWorkload {
    static WORKLOAD: OnceLock<JsonlWorkload> = OnceLock::new();
    WORKLOAD.get_or_init(|| {
        let started = Instant::now();
        // The parsed files are dropped at the end of this statement; only the bytes stay.
        let workload = workload::claude_mib_50(&session_files("replay"));
        eprintln!("bench: {}", workload.describe());
        let built = started.elapsed();
        let import =
            rehydrate_formats::import(Path::new("claude_mib_50.jsonl"), workload.bytes(), None)
                .expect("the replay workload imports");
        assert_eq!(
            import.messages.len(),
            workload.message_count(),
            "the importer keeps every copy"
        );
        let records = rehydrate_replay::file_records(&import.messages);
        assert_eq!(
            records.len(),
            workload.record_count(),
            "replay proves every copy's paths"
        );
        assert!(!records.is_empty(), "replay proves some path");
        let record_bytes: usize = records.iter().map(|r| r.bytes()).sum();
        eprintln!(
            "bench: replay: built in {built:.2?}, checked in {:.2?}: {} messages, {} warnings, \
             {} records holding {record_bytes} bytes",
            started.elapsed() - built,
            import.messages.len(),
            import.warnings.len(),
            records.len(),
        );
        workload
    })
}

/// `replay/ours/claude_mib_50` (bytes to file records: `rehydrate_formats::import`, then
/// `Replay::run` and `records`) and `replay/serde_json/claude_mib_50` (the same bytes parsed
/// line by line into `ClaudeCodeLine`); the outputs of both are dropped outside the timing.
fn replay(c: &mut Criterion) {
    let workload = claude_mib_50();
    let path = Path::new("claude_mib_50.jsonl");
    jsonl_group(c, "replay", workload, |bytes| {
        let import =
            rehydrate_formats::import(path, bytes, None).expect("the replay workload imports");
        let mut replay = Replay::new();
        replay.run(&import.messages);
        let records = replay.records();
        assert_eq!(import.messages.len(), workload.message_count());
        assert_eq!(records.len(), workload.record_count());
        (import, records)
    });
}

/// A group of two benchmarks over the bytes of a JSONL `workload`: `<group>/ours/<name>` runs
/// `ours` on them, `<group>/serde_json/<name>` parses them line by line into `ClaudeCodeLine`;
/// the outputs of both are dropped outside the timing.
fn jsonl_group<T>(
    c: &mut Criterion,
    name: &str,
    workload: &JsonlWorkload,
    ours: impl Fn(&[u8]) -> T,
) {
    let bytes = workload.bytes();
    let mut group = c.benchmark_group(name);
    few_samples(&mut group);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(BenchmarkId::new("ours", workload.name()), |b| {
        b.iter_batched(|| (), |()| ours(black_box(bytes)), BatchSize::PerIteration);
    });
    group.bench_function(BenchmarkId::new("serde_json", workload.name()), |b| {
        b.iter_batched(
            || (),
            |()| {
                let lines = parse_claude_code_lines(black_box(bytes))
                    .expect("every line parses into a ClaudeCodeLine");
                assert_eq!(lines.len(), workload.line_count());
                lines
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// evidence

/// The options of the `evidence` group: no input limit. The default 128 KiB limit refuses the
/// evidence of a 50 MiB session (by design: evidence is for one model's input), so the bench
/// lifts it to time the whole projection.
fn unlimited() -> EvidenceOptions {
    EvidenceOptions {
        max_input_bytes: usize::MAX,
    }
}

/// `claude_largest_mib_50`: the largest corpus sessions by bytes (the synthetic session
/// without the corpus) repeated to at least 50 MiB, built once and checked once: the bytes'
/// event log has exactly the sum of each copy's events alone, and its projection keeps some
/// turns.
fn claude_largest_mib_50() -> &'static JsonlWorkload {
    static WORKLOAD: OnceLock<JsonlWorkload> = OnceLock::new();
    WORKLOAD.get_or_init(|| {
        let started = Instant::now();
        // The parsed files are dropped at the end of this statement; only the bytes stay.
        let workload = workload::claude_largest_mib_50(&session_files("evidence"));
        eprintln!("bench: {}", workload.describe());
        let built = started.elapsed();
        let path = Path::new("claude_largest_mib_50.jsonl");
        let log = rehydrate_formats::import_events(path, workload.bytes(), None)
            .expect("the evidence workload imports");
        assert_eq!(
            log.events.len(),
            workload.event_count(),
            "the event log has every copy's events"
        );
        let evidence = project_evidence(&log.events, &[], &unlimited())
            .expect("the evidence workload projects");
        assert!(!evidence.turns.is_empty(), "the projection keeps some turn");
        let stats = evidence.stats;
        eprintln!(
            "bench: evidence: built in {built:.2?}, checked in {:.2?}: {} events ({} warnings), \
             {} on the surface, {} log turns; {} evidence turns, {} bytes before, {} after, \
             {} code blocks omitted, {} secrets redacted",
            started.elapsed() - built,
            stats.events,
            log.warnings.len(),
            stats.surface_events,
            stats.log_turns,
            stats.turns,
            stats.bytes_before,
            stats.bytes_after,
            stats.code_blocks_omitted,
            stats.secrets_redacted,
        );
        workload
    })
}

/// `evidence/ours/claude_largest_mib_50` (bytes to evidence: `rehydrate_formats::import_events`,
/// then `project_evidence` without an input limit) and `evidence/serde_json/claude_largest_mib_50`
/// (the same bytes parsed line by line into `ClaudeCodeLine`); the outputs of both are dropped
/// outside the timing.
fn evidence(c: &mut Criterion) {
    let workload = claude_largest_mib_50();
    let path = Path::new("claude_largest_mib_50.jsonl");
    let options = unlimited();
    jsonl_group(c, "evidence", workload, |bytes| {
        let log = rehydrate_formats::import_events(path, bytes, None)
            .expect("the evidence workload imports");
        let evidence =
            project_evidence(&log.events, &[], &options).expect("the evidence workload projects");
        assert_eq!(log.events.len(), workload.event_count());
        assert!(!evidence.turns.is_empty());
        (log, evidence)
    });
}

// ---------------------------------------------------------------------------------------------
// import

/// The name of the `import` group's Codex workload.
const CODEX_MIB_8: &str = "codex_mib_8";

/// The `import` group's Gemini CLI workload: the largest corpus session repeated to 8 MiB.
const GEMINI_MIB_8: &str = "gemini_cli_mib_8";

/// The `import` group's Goose workload: a synthetic session (there is no Goose corpus)
/// repeated to 8 MiB.
const GOOSE_MIB_8: &str = "goose_mib_8";

/// The `import` group's OpenHands workload: the sessions of the largest corpus `output.jsonl`
/// as one event array, repeated to 8 MiB.
const OPENHANDS_MIB_8: &str = "openhands_mib_8";

/// The name of the `import` group's SWE-agent workload.
const SWE_AGENT_MIB_8: &str = "swe_agent_mib_8";

/// The canonical messages the `import` group writes as request bodies: the corpus turns scaled
/// to at least [`IMPORT_MIB_8`] wire bytes.
const BODIES_MIB_8: &str = "mib_8";

/// One workload of the `import` group: a session file of one format, as bytes, with what it
/// imports and parses to (both checked once, outside the timing).
struct ImportCase {
    /// The workload's name, the size part of its benchmark ids.
    name: &'static str,
    format: Format,
    bytes: &'static [u8],
    /// The messages `rehydrate_formats::import` gives.
    messages: usize,
    /// The records the typed parse gives (`TypedSession::len`).
    records: usize,
}

/// The text of the largest `*.<extension>` file under `<corpus>/<subdir>` and its name, or
/// `None` (with a notice) when there is none or it cannot be read.
fn largest_corpus_file(subdir: &str, extension: &str) -> Option<(String, String)> {
    let dir = locate::corpus_dir();
    let found = formats::largest_file(&dir, subdir, extension).unwrap_or_else(|err| {
        eprintln!(
            "bench: import: cannot read the corpus at {}: {err}",
            dir.display()
        );
        None
    });
    let Some((path, shown)) = found else {
        eprintln!(
            "bench: NOTICE: import: no *.{extension} file under {}/{subdir} \
             (set REHYDRATE_CORPUS); using a small synthetic session instead",
            dir.display()
        );
        return None;
    };
    match fs::read_to_string(&path) {
        Ok(text) => Some((text, shown)),
        Err(err) => {
            eprintln!(
                "bench: NOTICE: import: cannot read {shown}: {err}; \
                 using a small synthetic session instead"
            );
            None
        }
    }
}

/// `<name>`: the largest corpus file of `subdir` (else `synthetic`) repeated by `repeat` to at
/// least [`IMPORT_MIB_8`] and checked by it.
fn repeated_file(
    name: &str,
    subdir: &str,
    extension: &str,
    synthetic: fn() -> String,
    repeat: fn(&str, &str, &str, usize) -> Result<FormatFile, rehydrate_bench::Error>,
) -> FormatFile {
    let (text, origin) = largest_corpus_file(subdir, extension)
        .unwrap_or_else(|| (synthetic(), "synthetic".to_owned()));
    repeat(name, &origin, &text, IMPORT_MIB_8)
        .unwrap_or_else(|err| panic!("cannot build the {name} workload: {}", error_chain(&err)))
}

/// `err` and its sources, joined by `: `.
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// The workloads of the `import` group, one per format, built once and checked once: each
/// imports to its expected messages and parses into its typed form.
///
/// - claude-code: `claude_largest_mib_50`, the `evidence` group's bytes;
/// - codex, swe-agent and gemini-cli: the largest corpus rollout, trajectory and session
///   repeated to at least 8 MiB (`formats::repeat_codex`, `formats::repeat_swe_agent`,
///   `formats::repeat_gemini`);
/// - openhands: the sessions of the largest corpus `output.jsonl` as one event array, repeated
///   to at least 8 MiB (`formats::repeat_openhands`);
/// - goose: a synthetic session repeated to at least 8 MiB (`formats::repeat_goose`);
/// - openai, anthropic and responses: the corpus turns scaled to 8 MiB of wire bytes, written in
///   each body by `rehydrate_formats::write` (`formats::write_body`).
fn import_cases() -> &'static [ImportCase] {
    static CASES: OnceLock<Vec<ImportCase>> = OnceLock::new();
    CASES.get_or_init(|| {
        let claude = claude_largest_mib_50();
        let started = Instant::now();
        let mut files = vec![
            repeated_file(
                CODEX_MIB_8,
                formats::CODEX_DIR,
                "jsonl",
                formats::synthetic_codex,
                formats::repeat_codex,
            ),
            repeated_file(
                SWE_AGENT_MIB_8,
                formats::SWE_AGENT_DIR,
                "traj",
                formats::synthetic_swe_agent,
                formats::repeat_swe_agent,
            ),
            repeated_file(
                GEMINI_MIB_8,
                formats::GEMINI_DIR,
                "json",
                formats::synthetic_gemini,
                formats::repeat_gemini,
            ),
            repeated_file(
                OPENHANDS_MIB_8,
                formats::OPENHANDS_DIR,
                "jsonl",
                formats::synthetic_openhands,
                formats::repeat_openhands,
            ),
            formats::repeat_goose(
                GOOSE_MIB_8,
                "synthetic",
                &formats::synthetic_goose(),
                formats::IMPORT_MIB_8,
            )
            .unwrap_or_else(|err| {
                panic!(
                    "cannot build the {GOOSE_MIB_8} workload: {}",
                    error_chain(&err)
                )
            }),
        ];
        let scaled = corpus().scale(BODIES_MIB_8, Until::WireBytes(IMPORT_MIB_8));
        eprintln!("bench: import: {}", scaled.describe());
        let mut messages = scaled.messages();
        let answered = formats::answer_unanswered_calls(&mut messages);
        let origin = format!(
            "the {} messages of {BODIES_MIB_8} ({answered} unanswered calls answered)",
            messages.len()
        );
        for format in [Format::OpenAi, Format::Anthropic, Format::Responses] {
            let name = format!("{}_{BODIES_MIB_8}", format.as_str());
            let file =
                formats::write_body(&name, &origin, &messages, format).unwrap_or_else(|err| {
                    panic!("cannot build the {name} workload: {}", error_chain(&err))
                });
            files.push(file);
        }
        drop(messages);
        let built = started.elapsed();
        for file in &files {
            eprintln!("bench: import: {}", file.describe());
        }
        // The cases borrow the files for the rest of the run.
        static FILES: OnceLock<Vec<FormatFile>> = OnceLock::new();
        let files = FILES.get_or_init(|| files);
        let mut cases = vec![ImportCase {
            name: claude.name(),
            format: Format::ClaudeCode,
            bytes: claude.bytes(),
            messages: claude.message_count(),
            records: claude.line_count(),
        }];
        cases.extend(files.iter().map(|file| ImportCase {
            name: file.name(),
            format: file.format(),
            bytes: file.bytes(),
            messages: file.message_count(),
            records: 0,
        }));
        let check_started = Instant::now();
        // The builders of `files` checked their imports; the Claude Code file is checked here.
        let import = rehydrate_formats::import(
            Path::new(claude.name()),
            claude.bytes(),
            Some(Format::ClaudeCode),
        )
        .unwrap_or_else(|err| panic!("{} does not import: {}", claude.name(), error_chain(&err)));
        assert_eq!(
            import.messages.len(),
            claude.message_count(),
            "{} imports to every copy's messages",
            claude.name()
        );
        drop(import);
        for case in &mut cases {
            let typed = parse_typed(case.format, case.bytes).unwrap_or_else(|err| {
                panic!("{} does not parse into its typed form: {err}", case.name)
            });
            assert!(!typed.is_empty(), "{} parses to some record", case.name);
            if case.format == Format::ClaudeCode {
                assert_eq!(typed.len(), case.records, "one record per line");
            }
            case.records = typed.len();
        }
        eprintln!(
            "bench: import: built in {built:.2?}, checked in {:.2?}",
            check_started.elapsed()
        );
        cases
    })
}

/// `import/ours/<workload>` (`rehydrate_formats::import(path, bytes, Some(format))`, from bytes
/// as the CLI reads a file) and `import/serde_json/<workload>` (`wire::parse_typed` of the same
/// bytes) for every format `rehydrate_formats` reads; the outputs of both are dropped outside
/// the timing.
fn import(c: &mut Criterion) {
    let cases = import_cases();
    let mut group = c.benchmark_group("import");
    few_samples(&mut group);
    for case in cases {
        let path = Path::new(case.name);
        group.throughput(Throughput::Bytes(case.bytes.len() as u64));
        group.bench_function(BenchmarkId::new("ours", case.name), |b| {
            b.iter_batched(
                || (),
                |()| {
                    let import =
                        rehydrate_formats::import(path, black_box(case.bytes), Some(case.format))
                            .expect("the import workload imports");
                    assert_eq!(import.messages.len(), case.messages);
                    import
                },
                BatchSize::PerIteration,
            );
        });
        group.bench_function(BenchmarkId::new("serde_json", case.name), |b| {
            b.iter_batched(
                || (),
                |()| {
                    let typed = parse_typed(case.format, black_box(case.bytes))
                        .expect("the import workload parses into its typed form");
                    assert_eq!(typed.len(), case.records);
                    typed
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// economy

/// The file under `<target>/criterion` the economy table is written to, for `cargo xtask bench`.
const ECONOMY_FILE: &str = "economy.md";

/// The economy table (`rehydrate_bench::economy`), not a criterion benchmark: each long corpus
/// session projected once per policy and measured, computed on every run whatever the filter
/// (about a second once compiled), but not with `--list`. Printed on stderr and written to
/// `<target>/criterion/economy.md`; skipped with a notice without the corpus.
fn economy(_: &mut Criterion) {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let dir = locate::corpus_dir();
    let started = Instant::now();
    let economy = match Economy::load(&dir) {
        Ok(Some(economy)) => economy,
        Ok(None) => {
            eprintln!(
                "bench: NOTICE: economy table skipped: no claude-code or swe-agent sessions \
                 under {} (set REHYDRATE_CORPUS)",
                dir.display()
            );
            return;
        }
        Err(err) => {
            eprintln!("bench: NOTICE: economy table skipped: {err}");
            return;
        }
    };
    for notice in &economy.notices {
        eprintln!("bench: economy: {notice}");
    }
    let table = economy.markdown();
    eprintln!(
        "bench: economy: {} sessions read, {} measured in {:.2?}\n{table}",
        economy.sessions,
        economy.rows.len(),
        started.elapsed()
    );
    let file = locate::target_dir().join("criterion").join(ECONOMY_FILE);
    let written = file
        .parent()
        .map_or(Ok(()), fs::create_dir_all)
        .and_then(|()| fs::write(&file, &table));
    if let Err(err) = written {
        panic!("cannot write {}: {err}", file.display());
    }
}

// ---------------------------------------------------------------------------------------------
// store

/// How many messages of `turns_1000` the `store` group appends per iteration: the first 1,000
/// (about two passes over the corpus turns, 8 MiB of canonical JSON in a realistic mix of
/// sizes), so that one iteration with a sync after every record stays near a third of a second
/// on the bench machine's disk (2,000 took 0.5 to 1.2 s).
const STORE_MESSAGES: usize = 1000;

/// The size part of the `store` benchmark ids.
const STORE_SIZE: &str = "1000-messages";

/// The sync threshold of the `every-1MiB` benchmark, in bytes (1 MiB).
const STORE_SYNC_BYTES: u64 = 1 << 20;

/// The size of a store file's header and of each record's frame, in bytes (docs/FORMATS.md,
/// "Session store").
const STORE_FRAME_BYTES: usize = 16;

/// The first [`STORE_MESSAGES`] messages of `turns_1000` (prefix first) and the canonical JSON
/// of each (`serde_json::to_vec`, the payload of a message record), built once.
fn store_messages() -> &'static (Vec<Message>, Vec<Vec<u8>>) {
    static MESSAGES: OnceLock<(Vec<Message>, Vec<Vec<u8>>)> = OnceLock::new();
    MESSAGES.get_or_init(|| {
        let workload = turns_1000();
        let messages: Vec<Message> = workload
            .prefix()
            .iter()
            .chain(workload.turns().iter().flatten())
            .take(STORE_MESSAGES)
            .cloned()
            .collect();
        assert_eq!(
            messages.len(),
            STORE_MESSAGES,
            "turns_1000 has enough messages"
        );
        let json: Vec<Vec<u8>> = messages
            .iter()
            .map(|m| serde_json::to_vec(m).expect("messages serialize"))
            .collect();
        let bytes: usize = json.iter().map(Vec::len).sum();
        let largest = json.iter().map(Vec::len).max().unwrap_or(0);
        let mut sizes: Vec<usize> = json.iter().map(Vec::len).collect();
        sizes.sort_unstable();
        eprintln!(
            "bench: store: the first {} messages of turns_1000, {bytes} bytes of canonical JSON \
             ({:.2} MiB; median {} bytes, largest {largest}), {} bytes of records",
            messages.len(),
            bytes as f64 / f64::from(1 << 20),
            sizes[sizes.len() / 2],
            bytes + messages.len() * STORE_FRAME_BYTES,
        );
        (messages, json)
    })
}

/// The scratch directory of the `store` group, `<target>/bench-workloads/store`, emptied once
/// per run (a killed run may leave files behind).
fn store_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = locate::target_dir().join("bench-workloads").join("store");
        match fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => panic!("cannot remove {}: {err}", dir.display()),
        }
        fs::create_dir_all(&dir).expect("the store scratch directory can be created");
        dir
    })
}

/// A fresh file path in [`store_dir`]; the file, once created, is removed when this drops
/// (outside the timing, with the routine's output).
struct ScratchFile(PathBuf);

impl ScratchFile {
    /// A path no other scratch file of this run has.
    fn fresh(kind: &str) -> ScratchFile {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        ScratchFile(store_dir().join(format!("{kind}-{n}")))
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        match fs::remove_file(&self.0) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => eprintln!("bench: store: cannot remove {}: {err}", self.0.display()),
        }
    }
}

/// A new, empty store (header written and synced) at a fresh scratch path.
fn fresh_store(sync: rehydrate_store::SyncPolicy) -> (SessionStore, ScratchFile) {
    let scratch = ScratchFile::fresh("store");
    let store = SessionStore::create(&scratch.0, sync).expect("the scratch store can be created");
    (store, scratch)
}

/// A new, empty plain file (created and synced) at a fresh scratch path, opened for appending.
fn fresh_plain_file() -> (fs::File, ScratchFile) {
    let scratch = ScratchFile::fresh("plain");
    let file = fs::OpenOptions::new()
        .append(true)
        .create_new(true)
        .open(&scratch.0)
        .expect("the scratch file can be created");
    file.sync_data().expect("the scratch file syncs");
    (file, scratch)
}

/// Appends every message of [`store_messages`] to `store`, then syncs it (durable whatever
/// the setting), and returns it to be dropped outside the timing.
fn append_all(
    (mut store, scratch): (SessionStore, ScratchFile),
    messages: &[Message],
) -> (SessionStore, ScratchFile) {
    for message in messages {
        store
            .append_message(black_box(message))
            .expect("the scratch store appends");
    }
    store.sync().expect("the scratch store syncs");
    assert_eq!(store.state().records, messages.len() as u64);
    (store, scratch)
}

/// Checks once that a store written as the benches write it reads back to the same messages,
/// with no torn tail, and that its file holds one record per message after the header.
fn check_store_once() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let (messages, json) = store_messages();
        let (store, scratch) =
            append_all(fresh_store(rehydrate_store::SyncPolicy::Never), messages);
        drop(store);
        let (state, torn) = read_store(&scratch.0).expect("the scratch store reads back");
        assert!(torn.is_none(), "no torn tail after a sync");
        assert_eq!(
            &state.messages, messages,
            "the store reads back the messages"
        );
        let file_bytes = fs::metadata(&scratch.0)
            .expect("the store file exists")
            .len();
        let records: usize = json.iter().map(|j| STORE_FRAME_BYTES + j.len()).sum();
        assert_eq!(
            file_bytes,
            (STORE_FRAME_BYTES + records) as u64,
            "header plus one record each"
        );
    });
}

/// `store/<setting>/1000-messages`: appending the first 1,000 messages of `turns_1000` to a
/// fresh `SessionStore` with each sync setting, ending with `sync()`, against
/// `store/jsonl-write/1000-messages`: the plain recorder a host would otherwise write, each
/// message serialized to canonical JSON and written as one line of a plain file, with one
/// `sync_data` at the end. The file is created (and
/// synced) in the setup and removed with the output, both outside the timing.
fn store(c: &mut Criterion) {
    let (messages, json) = store_messages();
    let bytes: usize = json.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("store");
    few_samples(&mut group);
    group.throughput(Throughput::Bytes(bytes as u64));
    let settings = [
        ("every-record", rehydrate_store::SyncPolicy::EveryRecord),
        (
            "every-1MiB",
            rehydrate_store::SyncPolicy::EveryBytes(STORE_SYNC_BYTES),
        ),
        ("never", rehydrate_store::SyncPolicy::Never),
    ];
    for (subject, sync) in settings {
        group.bench_function(BenchmarkId::new(subject, STORE_SIZE), |b| {
            check_store_once();
            b.iter_batched(
                || fresh_store(sync),
                |fresh| append_all(fresh, messages),
                BatchSize::PerIteration,
            );
        });
    }
    group.bench_function(BenchmarkId::new("jsonl-write", STORE_SIZE), |b| {
        b.iter_batched(
            fresh_plain_file,
            |(mut file, scratch)| {
                let mut line = Vec::new();
                for m in messages {
                    line.clear();
                    serde_json::to_writer(&mut line, black_box(m)).expect("messages serialize");
                    line.push(b'\n');
                    file.write_all(&line).expect("the scratch file appends");
                }
                file.sync_data().expect("the scratch file syncs");
                (file, scratch)
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(
    benches,
    per_turn,
    per_turn_aggressive,
    session,
    expand,
    cli,
    tokens,
    search,
    replay,
    evidence,
    import,
    store,
    economy
);
criterion_main!(benches);
