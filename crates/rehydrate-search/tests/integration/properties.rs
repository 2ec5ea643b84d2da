//! The search matches a naive oracle on random sessions: for random hidden texts (multi-byte
//! characters, line breaks, case variants, the Kelvin sign and the long s) and random queries
//! (literals, and regexes that can and cannot cross lines), the matches (reduction id, byte
//! range) are those of a brute-force scan of the hidden spans, computed independently.

use proptest::prelude::*;
use regex_automata::nfa::thompson::pikevm::PikeVM;
use regex_automata::util::syntax;
use rehydrate_model::{Content, Message, ReductionKind, ReductionLog, Role};
use rehydrate_reduce::{ReductionPolicy, project_messages};
use rehydrate_search::{
    Query, QueryMode, SearchMode, SearchOptions, hidden_texts, hidden_texts_cached, sidecar_search,
    sidecar_search_cached,
};
use rehydrate_sidecar::{VerifiedCache, expand_reduction, verify_reduction};
use rehydrate_test_support::{assistant_call, image_block, image_url_part, png_base64, text_part};

/// Pieces random texts and literal queries are made of.
const PIECES: &[&str] = &[
    "a", "A", "b", "B", "é", "É", "\n", " ", "k", "K", "\u{212A}", "s", "\u{17F}", "x", "Error",
    "error", "ab", "foo(", "€", "\r\n", "rror", "_",
];

/// Regexes: some cannot match a line break (line-confined search), some can, some match empty.
const PATTERNS: &[&str] = &[
    r"a+",
    r"ab",
    r"(?i)ab",
    r"a.b",
    r"a\sb",
    r"[^x]+x",
    r"\w+Error\b",
    r"\w+rror\b",
    r"Error\b",
    r"é+",
    r"x*",
    r"^a",
    r"a$",
    r"(?m)^a",
    r"(?m)b$",
    r"k",
    r"S",
    r"\bfoo\(",
    r"a|b|é",
    r"(?s)a.+?b",
    r"[a-z]+\n[a-z]+",
    r"E(rror|RROR)",
    r"\b\w",
    r"(?-u:\b)x",
    r"_\w*k",
    r"b(?:ab)*\b",
    r"ab|a",
    r"a|ab",
    r"(?i)k|s",
    r"\bab\b",
    r"(?i)error",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..120).prop_map(|p| p.concat())
}

/// Pieces of output written for a terminal: styles, `\r` redraws, erased lines, a cursor moved
/// up, and an escape cut off (kept as text when it ends the output).
const TERMINAL_PIECES: &[&str] = &[
    "\x1b[31m",
    "\x1b[0m",
    "\r",
    "\x1b[K",
    "\x1b[1A",
    "\x1b[2K\r",
    "\x1b[3",
    "Error",
    "ab",
    "\n",
    " ",
    "é",
    "k",
];

/// A tool output: plain text, or text with terminal sequences between its pieces.
fn output_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => text(),
        1 => prop::collection::vec(prop::sample::select(TERMINAL_PIECES), 0..120)
            .prop_map(|p| p.concat()),
    ]
}

/// The arguments of the sessions' calls: two spellings of one call (re-runs) and another.
const ARGUMENTS: &[&str] = &["{}", r#"{"cmd":"make  all"}"#, r#"{"cmd":"make all"}"#];

/// A session of `turns` turns, each a user message, an assistant call and its result, and
/// sometimes an assistant answer long enough to be truncated; results come from a small pool so
/// some repeat (duplicates), and calls from [`ARGUMENTS`], so some are re-runs (superseded
/// results).
fn session() -> impl Strategy<Value = Vec<Message>> {
    (
        prop::collection::vec(output_text(), 1..5),
        prop::collection::vec(
            (
                0..5_usize,
                text(),
                output_text(),
                prop::option::of(text()),
                prop::sample::select(ARGUMENTS),
                prop::option::weighted(0.4, (0..2_usize, 0..3_usize)),
                prop::option::weighted(0.3, 0..3_usize),
            ),
            1..10,
        ),
    )
        .prop_map(|(pool, turns)| {
            let mut messages = Vec::new();
            for (i, (pick, user, filler, answer, arguments, read, image)) in
                turns.into_iter().enumerate()
            {
                messages.push(Message::text(Role::User, format!("turn {i} {user}")));
                let id = format!("call{i}");
                messages.push(assistant_call(&id, "run", arguments));
                let output = if pick < pool.len() {
                    pool[pick].repeat(3)
                } else {
                    filler.repeat(3)
                };
                let mut result = Message::tool_result(id, output.clone());
                if let Some((path, content)) = read {
                    // A whole read of one of two paths, serving one of three contents (two
                    // a line apart), so re-reads are elided and diffed.
                    let line = |k: usize| match (content, k) {
                        (1, 7) => "line 07 edited\n".to_string(),
                        (2, _) => format!("other {k}\n"),
                        _ => format!("line {k:02} kept\n"),
                    };
                    let content: String = (0..30).map(line).collect();
                    result.content = Some(rehydrate_model::Content::Text(content.clone()));
                    result.details = Some(Box::new(rehydrate_model::ToolDetails::WholeRead {
                        path: format!("src/{path}.rs"),
                        content,
                    }));
                } else if let Some(k) = image {
                    // Text and an image of a small pool (copies occur), whose base64 holds
                    // letters the queries look for.
                    result.content =
                        Some(Content::Parts(vec![text_part(&output), pooled_image(k)]));
                }
                messages.push(result);
                if let Some(answer) = answer {
                    messages.push(Message::text(Role::Assistant, answer.repeat(2)));
                }
            }
            messages
        })
}

/// Image `k % 3` of a small pool: two over a 1 KiB trigger, one under it.
fn pooled_image(k: usize) -> serde_json::Value {
    match k % 3 {
        0 => image_block("image/png", &png_base64(800, 600, 1100, b'a')),
        1 => image_url_part("image/png", &png_base64(64, 64, 1500, b'k')),
        _ => image_block("image/png", &png_base64(8, 8, 200, b'x')),
    }
}

fn policy() -> impl Strategy<Value = ReductionPolicy> {
    (
        (0..40_usize, 0..40_usize, 0..3_usize),
        prop::option::of((0..40_usize, 0..40_usize, 0..40_usize, 0..3_usize)),
        prop::option::of(1..4_usize),
        (any::<bool>(), any::<bool>()),
        (any::<bool>(), prop::option::of(0..1200_u32)),
        (
            prop::option::of(prop_oneof![Just(0_usize), Just(1024)]),
            0..3_usize,
        ),
    )
        .prop_map(
            |(
                (head, tail, protect),
                texts,
                clear,
                (supersede, normalize),
                (elide, diff),
                (image_trigger, image_protect),
            )| {
                let (text_trigger, text_head, text_tail, text_protect) = match texts {
                    Some((trigger, head, tail, protect)) => (Some(trigger), head, tail, protect),
                    None => (None, 0, 0, 0),
                };
                ReductionPolicy {
                    tool_output_trigger_bytes: 0,
                    head_bytes: head,
                    tail_bytes: tail,
                    protect_last_n_tool_results: protect,
                    clear_turns_older_than: clear,
                    min_saved_bytes: 0,
                    assistant_text_trigger_bytes: text_trigger,
                    assistant_text_head_bytes: text_head,
                    assistant_text_tail_bytes: text_tail,
                    protect_last_n_assistant_messages: text_protect,
                    supersede_reruns: supersede,
                    elide_rereads: elide,
                    diff_rereads_max_per_mille: diff,
                    normalize_terminal_output: normalize,
                    image_trigger_bytes: image_trigger,
                    protect_last_n_image_messages: image_protect,
                    ..ReductionPolicy::default()
                }
            },
        )
}

/// The query of a case: a literal made of pieces, or one of [`PATTERNS`].
#[derive(Debug, Clone)]
enum TestQuery {
    Literal(String),
    Regex(&'static str),
}

fn query() -> impl Strategy<Value = TestQuery> {
    prop_oneof![
        prop::collection::vec(prop::sample::select(PIECES), 1..4)
            .prop_map(|p| TestQuery::Literal(p.concat()))
            .prop_filter("not only whitespace", |q| match q {
                TestQuery::Literal(s) => !s.trim().is_empty(),
                TestQuery::Regex(_) => true,
            }),
        prop::sample::select(PATTERNS).prop_map(TestQuery::Regex),
    ]
}

/// The hidden bytes of every reduction, computed from the reductions' facts alone: the
/// expanded original restricted to the truncation span, a duplicate whole only when another
/// reduction covers its canonical, a cleared range and a normalized output's raw text whole.
fn oracle_hidden(log: &ReductionLog, minted: &[Message]) -> (Vec<(String, String)>, usize) {
    let mut out = Vec::new();
    let mut unresolvable = 0;
    // The latest turns-cleared reduction, when it expands: everything else inside its range is
    // searched through it.
    let cover = log
        .reductions
        .iter()
        .rev()
        .find(|r| matches!(r.kind, ReductionKind::TurnsCleared { .. }))
        .filter(|r| expand_reduction(log, minted, r.id.as_str(), None).is_ok())
        .and_then(|r| match r.kind {
            ReductionKind::TurnsCleared { first, last, .. } => Some((r.id.clone(), first, last)),
            _ => None,
        });
    for r in &log.reductions {
        if let Some((id, first, last)) = &cover {
            let inside = |i: usize| *first <= i && i <= *last;
            let covered = match r.kind {
                ReductionKind::TurnsCleared { first, last, .. } => inside(first) && inside(last),
                _ => inside(r.ptr.addr.index),
            };
            if covered && r.id != *id {
                continue;
            }
        }
        let Ok(full) = expand_reduction(log, minted, r.id.as_str(), None) else {
            unresolvable += 1;
            continue;
        };
        let hidden = match &r.kind {
            ReductionKind::ToolOutputTruncated { .. }
            | ReductionKind::AssistantTextTruncated { .. } => {
                let span = r.ptr.span.unwrap();
                full.content[span.range()].to_string()
            }
            // A duplicate's bytes are the canonical's: visible, or searched through the
            // canonical's own reduction.
            ReductionKind::DuplicateOutput { .. } => continue,
            // Images are never searched.
            ReductionKind::ImageRedacted { .. } => continue,
            // A synthetic result and a moved result hide nothing.
            ReductionKind::UnansweredCall { .. }
            | ReductionKind::MovedResult { .. }
            | ReductionKind::ConversationOpened { .. } => continue,
            ReductionKind::TurnsCleared { .. }
            | ReductionKind::Compaction { .. }
            | ReductionKind::OrphanResult { .. }
            | ReductionKind::SecondAnswer { .. }
            | ReductionKind::FoldedCalls { .. }
            | ReductionKind::ToolInputElided { .. }
            | ReductionKind::Superseded { .. }
            | ReductionKind::FileReadElided { .. }
            | ReductionKind::FileReadDiffed { .. } => full.content.into_owned(),
            // The view shows what a terminal would display, none of the raw bytes as they
            // are: the whole raw output is hidden.
            ReductionKind::OutputNormalized { .. } => full.content.into_owned(),
        };
        out.push((r.id.to_string(), hidden));
    }
    (out, unresolvable)
}

/// Non-overlapping leftmost matches of `needle`, comparing byte by byte.
fn naive_literal(hay: &str, needle: &str, case_sensitive: bool) -> Vec<(usize, usize)> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let mut out = Vec::new();
    let mut i = 0;
    while i + n.len() <= h.len() {
        let window = &h[i..i + n.len()];
        let hit = if case_sensitive {
            window == n
        } else {
            window.eq_ignore_ascii_case(n)
        };
        if hit {
            out.push((i, i + n.len()));
            i += n.len();
        } else {
            i += 1;
        }
    }
    out
}

/// Matches of `pattern` by the PikeVM over the whole text (no prefilter, no line search).
fn naive_regex(hay: &str, pattern: &str, case_sensitive: bool) -> Vec<(usize, usize)> {
    let vm = PikeVM::builder()
        .syntax(syntax::Config::new().case_insensitive(!case_sensitive))
        .build(pattern)
        .unwrap();
    let mut cache = vm.create_cache();
    vm.find_iter(&mut cache, hay)
        .map(|m| (m.start(), m.end()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn matches_equal_a_naive_scan_of_the_hidden_spans(
        history in session(),
        policy in policy(),
        query in query(),
        case_sensitive in any::<bool>(),
    ) {
        let out = project_messages(&history, &ReductionLog::default(), &policy);
        let (oracle_texts, oracle_unresolvable) = oracle_hidden(&out.log, &history);
        let (text, mode, expected_mode) = match &query {
            TestQuery::Literal(s) => (s.as_str(), SearchMode::Literal, QueryMode::Literal),
            TestQuery::Regex(p) => (*p, SearchMode::Regex, QueryMode::Regex),
        };
        let mut expected = Vec::new();
        for (id, hidden) in &oracle_texts {
            let found = match &query {
                TestQuery::Literal(s) => naive_literal(hidden, s, case_sensitive),
                TestQuery::Regex(p) => naive_regex(hidden, p, case_sensitive),
            };
            expected.extend(found.into_iter().map(|(s, e)| (id.clone(), s, e)));
        }

        let options = SearchOptions { mode, case_sensitive, ..SearchOptions::default() };
        let compiled = Query::new(text, &options).unwrap();
        prop_assert_eq!(compiled.mode(), expected_mode);
        let hidden = hidden_texts(&out.log, &history);
        prop_assert_eq!(hidden.unresolvable.len(), oracle_unresolvable);
        // Every image redaction is listed as unsearchable, and none of them is searched.
        let images = out.log.reductions.iter().filter(|r| matches!(r.kind, ReductionKind::ImageRedacted { .. }));
        prop_assert_eq!(hidden.unsearchable.len(), images.count());
        let only_images = hidden
            .unsearchable
            .iter()
            .all(|r| matches!(r.kind, ReductionKind::ImageRedacted { .. }));
        prop_assert!(only_images);
        let mut actual = Vec::new();
        for t in &hidden.texts {
            compiled.find_each(t.hidden(), |m| {
                actual.push((t.reduction().id.to_string(), m.start, m.end));
            });
        }
        prop_assert_eq!(&actual, &expected);

        // Cached, the first call verifies what the plain one does and the second locates what
        // the first verified: the same hidden texts both times, and each located reduction is
        // exactly what verifying it gives.
        let mut cache = VerifiedCache::default();
        prop_assert_eq!(&hidden_texts_cached(&out.log, &history, &mut cache), &hidden);
        let cached = cache.len();
        prop_assert_eq!(&hidden_texts_cached(&out.log, &history, &mut cache), &hidden);
        prop_assert_eq!(cache.len(), cached);
        prop_assert!(cached >= hidden.texts.len() + hidden.unsearchable.len());
        for (position, r) in out.log.reductions.iter().enumerate() {
            let verified = verify_reduction(r, &history);
            prop_assert!(!cache.holds(position, r) || verified.is_ok());
            if let Some(located) = cache.verified(position, r, &history) {
                prop_assert_eq!(Ok(located), verified);
            }
        }
        let cached_result =
            sidecar_search_cached(&out.log, &history, text, &options, &mut cache).unwrap();

        let result = sidecar_search(&out.log, &history, text, &options).unwrap();
        prop_assert_eq!(&cached_result, &result);
        prop_assert_eq!(result.total_matches, expected.len());
        prop_assert_eq!(result.truncated, expected.len() > result.matches.len());
        let kept: Vec<&str> = result.matches.iter().map(|m| m.reduction_id.as_str()).collect();
        let first: Vec<&str> = expected.iter().take(kept.len()).map(|(id, _, _)| id.as_str()).collect();
        prop_assert_eq!(kept, first);
        prop_assert_eq!(result.matches.len(), expected.len().min(50));
    }

    #[test]
    fn auto_mode_is_regex_exactly_when_the_query_compiles(
        pieces in prop::collection::vec(prop::sample::select(&["a", "(", ")", "[", "]", "*", "+", "\\", "{", "}", "x"][..]), 1..6),
    ) {
        let text = pieces.concat();
        let compiles = regex_automata::meta::Regex::new(&text).is_ok();
        let query = Query::new(&text, &SearchOptions::default()).unwrap();
        prop_assert_eq!(query.mode() == QueryMode::Regex, compiles);
    }
}

/// A session large enough (over 4 MiB hidden) for resolution and search to run on several
/// threads gives the same matches as the naive scan, in the same order.
#[test]
fn large_sessions_match_the_naive_scan_too() {
    let mut history = vec![Message::text(Role::User, "run everything")];
    for i in 0..400_usize {
        let id = format!("call{i}");
        history.push(assistant_call(&id, "run", "{}"));
        let mut output = String::new();
        for line in 0..500_usize {
            let word = ["ValueError", "ok", "warning", "Kelvin \u{212A}", "é"][(i + line) % 5];
            output.push_str(&format!(
                "step {i} line {line}: {word} value_{}\n",
                line * i % 97
            ));
        }
        // Every tenth output repeats an earlier one (duplicates of reduced canonicals).
        if i % 10 == 9 {
            output = history[history.len() - 4]
                .content_text()
                .unwrap()
                .to_string();
        }
        history.push(Message::tool_result(id, output));
    }
    let out = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::aggressive(),
    );
    let hidden = hidden_texts(&out.log, &history);
    assert!(
        hidden.hidden_bytes() > 5 << 20,
        "{} hidden bytes",
        hidden.hidden_bytes()
    );
    let (oracle_texts, unresolvable) = oracle_hidden(&out.log, &history);
    assert_eq!(unresolvable, 0);
    let ours: Vec<(String, &str)> = hidden
        .texts
        .iter()
        .map(|t| (t.reduction().id.to_string(), t.hidden()))
        .collect();
    let theirs: Vec<(String, &str)> = oracle_texts
        .iter()
        .map(|(id, text)| (id.clone(), text.as_str()))
        .collect();
    assert_eq!(ours, theirs);
    for (text, mode, case_sensitive) in [
        ("value_1", SearchMode::Literal, true),
        ("VALUE_1", SearchMode::Literal, false),
        (r"\w+Error\b", SearchMode::Regex, true),
        ("ok|warning", SearchMode::Regex, true),
        (r"(?i)k\w*", SearchMode::Regex, false),
        (r"line \d+:\s+\S+", SearchMode::Regex, true),
    ] {
        let mut expected = Vec::new();
        for (id, hidden) in &oracle_texts {
            let found = match mode {
                SearchMode::Literal => naive_literal(hidden, text, case_sensitive),
                _ => naive_regex(hidden, text, case_sensitive),
            };
            expected.extend(found.into_iter().map(|_| id.as_str()));
        }
        let options = SearchOptions {
            mode,
            case_sensitive,
            ..SearchOptions::default()
        };
        let result = sidecar_search(&out.log, &history, text, &options).unwrap();
        assert_eq!(result.total_matches, expected.len(), "{text}");
        let kept: Vec<&str> = result
            .matches
            .iter()
            .map(|m| m.reduction_id.as_str())
            .collect();
        assert_eq!(kept, expected[..expected.len().min(50)], "{text}");
    }
}

#[test]
fn a_growing_cleared_range_reports_each_match_once() {
    use rehydrate_reduce::Reducer;

    // Each turn: a request and a large tool output. Keep one turn: every turn after the second
    // mints a longer cleared range, and turn 0's output was truncated before it was cleared.
    let policy = ReductionPolicy {
        clear_turns_older_than: Some(1),
        protect_last_n_tool_results: 0,
        ..ReductionPolicy::default()
    };
    let mut reducer = Reducer::new(policy);
    for t in 0..4 {
        let id = format!("c{t}");
        let mut output = format!("turn {t} line\n").repeat(1500);
        output.insert_str(8000, &format!("NEEDLE-{t}\n"));
        reducer.project([
            Message::text(Role::User, format!("request {t}")),
            assistant_call(&id, "run", "{}"),
            Message::tool_result(id, output),
        ]);
    }
    let (log, history) = (reducer.log(), reducer.history());
    let kinds: Vec<&str> = log
        .reductions
        .iter()
        .map(|r| r.kind.stub_kind().as_str())
        .collect();
    assert_eq!(
        kinds,
        [
            "tool-output",
            "turns-cleared",
            "tool-output",
            "turns-cleared",
            "tool-output",
            "turns-cleared",
            "tool-output"
        ]
    );
    let hidden = hidden_texts(log, history);
    assert_eq!(
        hidden.texts.len(),
        2,
        "the latest range and the newest truncation"
    );
    assert_eq!(hidden.covered.len(), 5);
    let result = sidecar_search(log, history, "needle-0", &SearchOptions::default()).unwrap();
    assert_eq!(result.total_matches, 1);
    assert_eq!(result.matches[0].reduction_id, log.reductions[5].id);
    let result = sidecar_search(log, history, "needle-", &SearchOptions::default()).unwrap();
    assert_eq!(result.total_matches, 4);
}

#[test]
fn a_cache_kept_across_turns_gives_what_searching_afresh_gives() {
    use rehydrate_reduce::Reducer;

    let policy = ReductionPolicy {
        clear_turns_older_than: Some(2),
        ..ReductionPolicy::default()
    };
    let session = |marker: &str| {
        let mut reducer = Reducer::new(policy.clone());
        let mut cache = VerifiedCache::default();
        let mut totals = Vec::new();
        for t in 0..6 {
            let id = format!("c{t}");
            let mut output = format!("{marker} {t} line\n").repeat(1200);
            output.insert_str(6000, &format!("NEEDLE-{t}\n"));
            reducer.project([
                Message::text(Role::User, format!("request {t}")),
                assistant_call(&id, "run", "{}"),
                Message::tool_result(id, output),
            ]);
            let (log, history) = (reducer.log(), reducer.history());
            let options = SearchOptions::default();
            let cached =
                sidecar_search_cached(log, history, "NEEDLE", &options, &mut cache).unwrap();
            let afresh = sidecar_search(log, history, "NEEDLE", &options).unwrap();
            assert_eq!(cached, afresh, "turn {t}");
            totals.push(cached.total_matches);
        }
        (totals, cache, reducer)
    };
    let (totals, cache, alpha) = session("alpha");
    assert_eq!(totals, [0, 0, 1, 2, 3, 4]);
    // Three of the four reductions lie inside the latest cleared range now, searched through
    // it, but each verified on a turn before the range covered it, so the cache holds all four.
    let hidden = hidden_texts(alpha.log(), alpha.history());
    assert_eq!(
        (alpha.log().len(), hidden.covered.len(), cache.len()),
        (4, 3, 4)
    );
    // A cache of another session's log at the same positions (a rewound session minted
    // again) holds none of this one's ids: everything is verified again.
    let (_, _, other) = session("beta");
    let mut stale = cache.clone();
    let fresh = hidden_texts(other.log(), other.history());
    assert_eq!(
        hidden_texts_cached(other.log(), other.history(), &mut stale),
        fresh
    );
    assert!(
        other
            .log()
            .reductions
            .iter()
            .enumerate()
            .all(|(p, r)| !cache.holds(p, r))
    );
}
