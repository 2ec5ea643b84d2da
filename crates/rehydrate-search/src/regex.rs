//! Regex matching for untrusted patterns: regex-automata's meta engine under explicit size
//! limits, and a line-confined search that runs the regex only around literal hits.
//!
//! A pattern such as `\w+Error\b` has no literal prefix, and its Unicode word boundary makes the
//! lazy DFA give up on non-ASCII text, so a plain `find_iter` over a whole buffer crawls (about
//! 20 MB/s over the bench's 70 MiB of hidden corpus bytes, against several GB/s this way). When a pattern cannot match a line break (checked on its HIR) and every match must
//! contain one of a few literals (extracted from the HIR), the search finds those literals with
//! a prefilter (memmem, Teddy or Aho-Corasick) and runs the regex only on the lines that hold
//! them, as ripgrep does. The matches are exactly those of a search over the whole text:
//! no match can span two lines, a line without a literal holds no match, and the regex sees the
//! whole text around the line for its look-around assertions.

use std::ops::Range;

use memchr::{memchr, memrchr};
use regex_automata::meta::{self, Regex};
use regex_automata::util::iter::Searcher;
use regex_automata::util::prefilter::Prefilter;
use regex_automata::{Input, MatchKind};
use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
use regex_syntax::hir::{Class, Hir, HirKind};

/// Size limit of the compiled NFA, in bytes (regex-automata's default is 10 MiB).
pub(crate) const NFA_SIZE_LIMIT_BYTES: usize = 2 << 20;

/// Size limit of the one-pass DFA, in bytes.
const ONEPASS_SIZE_LIMIT_BYTES: usize = 1 << 20;

/// Capacity of the lazy DFA's transition cache, in bytes.
const HYBRID_CACHE_BYTES: usize = 2 << 20;

/// Size limit of a fully compiled DFA, in bytes, and the NFA state count above which none is
/// attempted.
const DFA_SIZE_LIMIT_BYTES: usize = 256 << 10;
const DFA_STATE_LIMIT: usize = 64;

/// The deepest nesting of groups, classes and repetitions a pattern may have.
const NEST_LIMIT: u32 = 64;

/// The longest literal kept when extracting required literals, in bytes.
const LITERAL_BYTES: usize = 32;

/// The most literals a required set may hold.
const LITERAL_COUNT: usize = 64;

/// Why a pattern did not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CompileError {
    /// A syntax error, one line.
    Syntax(String),
    /// The compiled form exceeds this limit in bytes.
    TooLarge(usize),
}

/// A compiled regex and how it is searched.
#[derive(Debug, Clone)]
pub(crate) struct RegexMatcher {
    regex: Regex,
    strategy: Strategy,
}

/// How a [`RegexMatcher`] finds its matches.
#[derive(Debug, Clone)]
enum Strategy {
    /// The meta engine over the whole text.
    Whole,
    /// The pattern is exactly a set of literals (`error|warning`), without look-around: the
    /// leftmost-first literal search (Teddy, Aho-Corasick or memmem) is the whole matcher, as
    /// the meta engine itself would do, without its per-match overhead.
    Literals(Prefilter),
    /// The meta engine on the lines that hold one of these literals (see the module docs).
    Lines(Prefilter),
}

impl RegexMatcher {
    /// Compiles `pattern`; `case_insensitive` sets the initial `(?i)` flag.
    pub(crate) fn new(pattern: &str, case_insensitive: bool) -> Result<RegexMatcher, CompileError> {
        let hir = regex_syntax::ParserBuilder::new()
            .nest_limit(NEST_LIMIT)
            .case_insensitive(case_insensitive)
            .build()
            .parse(pattern)
            .map_err(|err| CompileError::Syntax(syntax_reason(&err)))?;
        let config = meta::Config::new()
            .nfa_size_limit(Some(NFA_SIZE_LIMIT_BYTES))
            .onepass_size_limit(Some(ONEPASS_SIZE_LIMIT_BYTES))
            .hybrid_cache_capacity(HYBRID_CACHE_BYTES)
            .dfa_size_limit(Some(DFA_SIZE_LIMIT_BYTES))
            .dfa_state_limit(Some(DFA_STATE_LIMIT));
        let regex = meta::Builder::new()
            .configure(config)
            .build_from_hir(&hir)
            .map_err(|err| match err.size_limit() {
                Some(limit) => CompileError::TooLarge(limit),
                None => CompileError::Syntax(one_line(&err.to_string())),
            })?;
        let strategy = if let Some(literals) = exact_literals(&hir) {
            Strategy::Literals(literals)
        } else if let Some(lines) = (!can_match_line_break(&hir))
            .then(|| required_literals(&hir))
            .flatten()
        {
            Strategy::Lines(lines)
        } else {
            Strategy::Whole
        };
        Ok(RegexMatcher { regex, strategy })
    }

    /// One leftmost-first search, with `cache` or the shared pool.
    fn search(
        &self,
        cache: Option<&mut meta::Cache>,
        input: &Input<'_>,
    ) -> Option<regex_automata::Match> {
        match cache {
            Some(cache) => self.regex.search_with(cache, input),
            None => self.regex.search(input),
        }
    }

    /// A fresh search state for this regex.
    pub(crate) fn create_cache(&self) -> meta::Cache {
        self.regex.create_cache()
    }

    /// Whether the line-confined search is used.
    #[cfg(test)]
    pub(crate) fn is_line_confined(&self) -> bool {
        matches!(self.strategy, Strategy::Lines(_))
    }

    /// Whether the literal search alone is the matcher.
    #[cfg(test)]
    pub(crate) fn is_literal_set(&self) -> bool {
        matches!(self.strategy, Strategy::Literals(_))
    }

    /// Calls `on_match` with every non-overlapping match in `haystack`, leftmost-first, as
    /// `Regex::find_iter` over the whole haystack gives them (empty matches included, never
    /// inside a UTF-8 sequence).
    ///
    /// `cache` is this regex's search state ([`RegexMatcher::create_cache`]), which a thread
    /// that searches many texts keeps for all of them; `None` takes one from the regex's shared
    /// pool for each search (cheap on the thread that first used the regex, contended on
    /// others).
    pub(crate) fn find_each(
        &self,
        mut cache: Option<&mut meta::Cache>,
        haystack: &str,
        mut on_match: impl FnMut(Range<usize>),
    ) {
        match &self.strategy {
            Strategy::Whole => {
                // As `Regex::find_iter`, with the caller's cache: the iterator steps over an
                // empty match, and the meta engine never reports one inside a UTF-8 sequence.
                let mut it = Searcher::new(Input::new(haystack));
                while let Some(m) = it.advance(|input| Ok(self.search(cache.as_deref_mut(), input)))
                {
                    on_match(m.range());
                }
            }
            Strategy::Literals(literals) => {
                let hay = haystack.as_bytes();
                let mut at = 0;
                while at < hay.len() {
                    let span = regex_automata::Span {
                        start: at,
                        end: hay.len(),
                    };
                    let Some(m) = literals.find(hay, span) else {
                        return;
                    };
                    on_match(m.range());
                    // Literals are never empty (checked when built); the guard keeps the loop
                    // finite regardless.
                    at = m.end.max(at + 1);
                }
            }
            Strategy::Lines(prefilter) => {
                self.find_in_lines(prefilter, cache, haystack.as_bytes(), on_match);
            }
        }
    }

    /// The line-confined search: every match lies within one line and contains a literal the
    /// prefilter finds, so only lines with a literal are searched, each once.
    fn find_in_lines(
        &self,
        prefilter: &Prefilter,
        mut cache: Option<&mut meta::Cache>,
        hay: &[u8],
        mut on_match: impl FnMut(Range<usize>),
    ) {
        let mut pos = 0;
        while pos < hay.len() {
            let span = regex_automata::Span {
                start: pos,
                end: hay.len(),
            };
            let Some(hit) = prefilter.find(hay, span) else {
                return;
            };
            // A match holding this literal can start anywhere on its line, but not before
            // `pos` (the end of the previous match or line); no line before it holds a literal.
            let line_start = memrchr(b'\n', &hay[pos..hit.start]).map_or(pos, |i| pos + i + 1);
            let line_end = memchr(b'\n', &hay[hit.start..]).map_or(hay.len(), |i| hit.start + i);
            let mut at = line_start;
            while at < line_end {
                let input = Input::new(hay).span(at..line_end);
                let Some(m) = self.search(cache.as_deref_mut(), &input) else {
                    break;
                };
                on_match(m.range());
                // Every match holds a non-empty literal, so it is never empty; the guard only
                // keeps the loop finite if that ever failed.
                at = if m.is_empty() { m.end() + 1 } else { m.end() };
            }
            pos = line_end + 1;
        }
    }
}

/// One line naming a syntax error and where it is: `unclosed group at byte 3`.
fn syntax_reason(err: &regex_syntax::Error) -> String {
    match err {
        regex_syntax::Error::Parse(err) => {
            format!("{} at byte {}", err.kind(), err.span().start.offset)
        }
        regex_syntax::Error::Translate(err) => {
            format!("{} at byte {}", err.kind(), err.span().start.offset)
        }
        other => one_line(&other.to_string()),
    }
}

/// `text` with line breaks folded into spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether some match of `hir` can contain a line break (`\n`).
pub(crate) fn can_match_line_break(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(literal) => literal.0.contains(&b'\n'),
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .any(|r| r.start() <= '\n' && '\n' <= r.end()),
        HirKind::Class(Class::Bytes(class)) => class
            .ranges()
            .iter()
            .any(|r| r.start() <= b'\n' && b'\n' <= r.end()),
        HirKind::Repetition(rep) => rep.max != Some(0) && can_match_line_break(&rep.sub),
        HirKind::Capture(capture) => can_match_line_break(&capture.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().any(can_match_line_break),
    }
}

/// The literal search that is the whole matcher of `hir`, when `hir` matches exactly a finite
/// set of non-empty literals, in preference order, and has no look-around assertion (the
/// conditions under which the meta engine bypasses its regex engines too; capture groups do
/// not matter here, only match spans are reported).
fn exact_literals(hir: &Hir) -> Option<Prefilter> {
    if !hir.properties().look_set().is_empty() {
        return None;
    }
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
    if !seq.is_finite() || !seq.is_exact() {
        return None;
    }
    let literals = seq.literals()?;
    if literals.is_empty() || literals.iter().any(|l| l.is_empty()) {
        return None;
    }
    let needles: Vec<&[u8]> = literals.iter().map(|l| l.as_bytes()).collect();
    Prefilter::new(MatchKind::LeftmostFirst, &needles)
}

/// A prefilter for literals of which every match of `hir` contains at least one, when such a
/// set exists, is small and has no empty literal.
fn required_literals(hir: &Hir) -> Option<Prefilter> {
    let mut extractor = Extractor::new();
    extractor
        .kind(ExtractKind::Prefix)
        .limit_literal_len(LITERAL_BYTES)
        .limit_total(LITERAL_COUNT);
    let whole = extractor.extract(hir);
    let mut top = hir;
    while let HirKind::Capture(capture) = top.kind() {
        top = &capture.sub;
    }
    let mut best: Option<Seq> = usable(whole);
    if let HirKind::Concat(children) = top.kind() {
        // Every match of a concatenation holds a match of each child, which starts with one
        // of the prefixes of the concatenation of that child and the children after it.
        let seqs: Vec<Seq> = children
            .iter()
            .map(|child| extractor.extract(child))
            .collect();
        for start in 1..seqs.len() {
            let Some(seq) = usable(cross_from(&seqs[start..])) else {
                continue;
            };
            if best.as_ref().is_none_or(|b| score(&seq) > score(b)) {
                best = Some(seq);
            }
        }
    }
    let mut seq = best?;
    seq.optimize_for_prefix_by_preference();
    let literals = seq.literals()?;
    if literals.is_empty() || literals.iter().any(|l| l.is_empty()) {
        return None;
    }
    let needles: Vec<&[u8]> = literals.iter().map(|l| l.as_bytes()).collect();
    Prefilter::new(MatchKind::LeftmostFirst, &needles)
}

/// The prefixes of the concatenation of `seqs` (each a child's prefixes), within the limits.
fn cross_from(seqs: &[Seq]) -> Seq {
    let mut seq = seqs[0].clone();
    for next in &seqs[1..] {
        if !seq.is_finite() || seq.is_inexact() {
            break;
        }
        let mut next = next.clone();
        match seq.max_cross_len(&next) {
            Some(len) if len <= LITERAL_COUNT => seq.cross_forward(&mut next),
            _ => {
                seq.make_inexact();
                break;
            }
        }
        if seq.max_literal_len().is_some_and(|len| len > LITERAL_BYTES) {
            seq.keep_first_bytes(LITERAL_BYTES);
        }
    }
    seq
}

/// `seq` when it can serve as a required set: finite, non-empty, no empty literal, small.
fn usable(seq: Seq) -> Option<Seq> {
    let ok = seq.is_finite()
        && seq.len().is_some_and(|n| (1..=LITERAL_COUNT).contains(&n))
        && seq.min_literal_len().is_some_and(|n| n >= 1);
    ok.then_some(seq)
}

/// How selective a required set is: longer shortest literals first (up to 6 bytes), then fewer
/// literals.
fn score(seq: &Seq) -> (usize, std::cmp::Reverse<usize>) {
    (
        seq.min_literal_len().unwrap_or(0).min(6),
        std::cmp::Reverse(seq.len().unwrap_or(usize::MAX)),
    )
}
