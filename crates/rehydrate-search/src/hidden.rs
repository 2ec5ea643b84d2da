//! The hidden bytes of a reduction log: which bytes of each reduction's verified original are
//! out of the model's view and so searched (SPEC seed 000 rules 15-16).

use std::ops::Deref;
use std::sync::Arc;

use rehydrate_model::{Message, Reduction, ReductionKind, ReductionLog, Span};
use rehydrate_sidecar::{Sources, Verified, VerifiedCache, render_turns, verify_reduction};

use crate::parallel::map_chunks;

/// The verified original of one reduction and the part of it that is hidden from the view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HiddenText<'a> {
    reduction: &'a Reduction,
    text: Text<'a>,
    span: Span,
}

impl<'a> HiddenText<'a> {
    /// The reduction.
    pub fn reduction(&self) -> &'a Reduction {
        self.reduction
    }

    /// The whole verified original: the addressed message's text for per-message kinds, the
    /// rendering of the cleared messages (`rehydrate_sidecar::render_turns`) for turns cleared.
    /// This is the text `expand_reduction` serves.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The hidden byte range of [`HiddenText::text`], half-open, on char boundaries: the
    /// truncation's `ptr.span` for a truncated tool output or assistant text, the whole text
    /// otherwise.
    pub fn span(&self) -> Span {
        self.span
    }

    /// The hidden bytes: `text()[span()]`.
    pub fn hidden(&self) -> &str {
        self.text.get(self.span.range()).unwrap_or_default()
    }
}

/// The text of a hidden reduction: borrowed from the sources, built for this search, or
/// shared with the [`VerifiedCache`] that kept it. Equal when the texts are.
#[derive(Debug, Clone, Eq)]
enum Text<'a> {
    Borrowed(&'a str),
    Owned(String),
    Shared(Arc<str>),
}

impl Deref for Text<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Text::Borrowed(text) => text,
            Text::Owned(text) => text,
            Text::Shared(text) => text,
        }
    }
}

impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

/// A reduction that could not be resolved against the minted view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolvable<'a> {
    /// The reduction.
    pub reduction: &'a Reduction,
    /// Why it does not verify.
    pub error: rehydrate_sidecar::Error,
}

/// Every reduction of a log sorted by what search does with it, each list in log order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HiddenTexts<'a> {
    /// The reductions whose hidden bytes are searched.
    pub texts: Vec<HiddenText<'a>>,
    /// Duplicate outputs whose canonical copy is still in the view, and the pairing repairs
    /// that hide nothing (an unanswered call's synthetic result, a moved result, an opening
    /// message), so nothing of them is hidden (they verified).
    pub visible: Vec<&'a Reduction>,
    /// Reductions that do not verify against the minted view: never searched.
    pub unresolvable: Vec<Unresolvable<'a>>,
    /// Reductions whose hidden bytes are searched through another reduction: those whose
    /// originals lie inside the log's latest turns-cleared range (an older, shorter cleared
    /// range, or a tool output reduced before its turn was cleared; not verified on their own),
    /// and duplicates whose canonical copy is reduced (verified).
    pub covered: Vec<&'a Reduction>,
    /// Image redactions (verified): what they hide is base64 image data, which no query is
    /// meant to match, so they are never searched (docs/FORMATS.md, "Images").
    pub unsearchable: Vec<&'a Reduction>,
}

impl HiddenTexts<'_> {
    /// The total size of the hidden bytes, in bytes.
    pub fn hidden_bytes(&self) -> usize {
        self.texts.iter().map(|t| t.span.len()).sum()
    }
}

/// Resolves every reduction of `log` against `minted_view` and finds its hidden bytes
/// (SPEC seed 000 rules 15-16, with head-and-tail truncation).
///
/// Each reduction is verified first (`rehydrate_sidecar::verify_reduction`: index, role,
/// digest, recorded sizes, span, stub); one that fails is listed in
/// [`HiddenTexts::unresolvable`] and never searched. Of a verified reduction:
///
/// - a truncated tool output, and a truncated assistant text, hide `ptr.span` of their text
///   (the head before it and the tail after it are visible);
/// - an elided tool input hides the whole string value of its argument (unescaped);
/// - a normalized terminal output hides its whole raw text: the view shows what a terminal
///   would display (docs/FORMATS.md, "Terminal output"), none of the raw bytes as they are, and
///   the matches address the raw text `expand_reduction` serves;
/// - a duplicate output is never searched on its own: its bytes are the canonical copy's. When
///   the canonical is not reduced they are in the view ([`HiddenTexts::visible`]); when it is
///   (decided from the log alone: another reduction is a turns-cleared range holding the
///   canonical's index, or a per-message reduction addressing it) the canonical's reduction
///   hides them and is searched, and the duplicate is listed in [`HiddenTexts::covered`]. This
///   departs from SPEC seed 000 rule 16, which searches the duplicate's whole text: with a
///   head-and-tail truncation that would report the canonical's visible head and tail, and its
///   hidden middle a second time;
/// - a turns-cleared range, and the messages an agent's compaction replaced (its summary
///   message included), hide the whole rendering of their messages;
/// - an image redaction hides image data only, which is not searched
///   ([`HiddenTexts::unsearchable`]): a hidden image never matches a query, and the text parts
///   around it stay in the view.
///
/// When the log's latest turns-cleared reduction (or agent's compaction) verifies, every other reduction whose
/// original lies inside its range (an older cleared range of a growing session, a tool output
/// reduced before its turn was cleared) is listed in [`HiddenTexts::covered`] instead: its
/// bytes are searched once, in the latest range, so a match is never reported twice and a
/// session that cleared turns a thousand times is not searched a thousand times.
///
/// `sources` is the minted view, or [`Sources`] with the messages a session store recorded: a
/// capped tool output whose recorded bytes supersede it (`rehydrate_sidecar::Sources`) is
/// searched in those bytes, everything after its kept head being hidden.
/// Per-message texts are borrowed from the sources; turns-cleared renderings are built.
/// A log whose originals add up to 4 MiB or more is verified on a few threads (at most 8), over
/// consecutive reductions; the result does not depend on the number of threads.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, ReductionLog, Role};
/// use rehydrate_reduce::{ReductionPolicy, project_messages};
/// use rehydrate_search::hidden_texts;
///
/// let mut history = vec![Message::text(Role::User, "build")];
/// for i in 0..4 {
///     history.push(Message::tool_call(format!("c{i}"), "cat", "{}"));
///     history.push(Message::tool_result(format!("c{i}"), format!("line {i}\n").repeat(3000)));
/// }
/// let out = project_messages(&history, &ReductionLog::default(), &ReductionPolicy::default());
/// let hidden = hidden_texts(&out.log, &history);
/// assert_eq!(hidden.texts.len(), 1);
/// assert!(hidden.texts[0].hidden().starts_with("line 0\n"));
/// assert!(hidden.unresolvable.is_empty());
/// ```
pub fn hidden_texts<'a>(log: &'a ReductionLog, sources: impl Into<Sources<'a>>) -> HiddenTexts<'a> {
    resolve_log(log, sources.into(), None)
}

/// [`hidden_texts`] for a live session searched again and again: a reduction `cache` holds is
/// located without being hashed again, and every reduction that verifies is added to it, so
/// the next call over the same (or a longer) log verifies only what is new. The result is the
/// one [`hidden_texts`] gives as long as the cache's rule holds: the minted view only grew
/// since the reductions it holds verified ([`VerifiedCache`]).
pub fn hidden_texts_cached<'a>(
    log: &'a ReductionLog,
    sources: impl Into<Sources<'a>>,
    cache: &mut VerifiedCache,
) -> HiddenTexts<'a> {
    resolve_log(log, sources.into(), Some(cache))
}

fn resolve_log<'a>(
    log: &'a ReductionLog,
    sources: Sources<'a>,
    mut cache: Option<&mut VerifiedCache>,
) -> HiddenTexts<'a> {
    let reduced = ReducedMessages::of(log);
    let cover = Cover::of(log, sources.minted, cache.as_deref_mut());
    let known = cache.as_deref();
    // A large log is verified (hashed) on a few threads, over consecutive reductions.
    let parts = map_chunks(
        &log.reductions,
        |r| r.kind.original_bytes(),
        |offset, reductions| resolve_chunk(&reduced, cover, offset, reductions, sources, known),
    );
    let mut out = HiddenTexts::default();
    for (mut part, verified) in parts {
        out.texts.append(&mut part.texts);
        out.visible.append(&mut part.visible);
        out.unresolvable.append(&mut part.unresolvable);
        out.covered.append(&mut part.covered);
        out.unsearchable.append(&mut part.unsearchable);
        if let Some(cache) = cache.as_deref_mut() {
            for (position, verified) in verified {
                cache.insert(position, &log.reductions[position], &verified);
            }
        }
    }
    out
}

/// The range of the log's latest turns-cleared reduction or agent's compaction (the range the
/// view shows as one stub message), when it verifies: the messages
/// every other reduction inside it is searched through.
#[derive(Debug, Clone, Copy)]
struct Cover {
    position: usize,
    first: usize,
    last: usize,
}

impl Cover {
    fn of(
        log: &ReductionLog,
        minted_view: &[Message],
        cache: Option<&mut VerifiedCache>,
    ) -> Option<Cover> {
        let (position, r) = log
            .reductions
            .iter()
            .enumerate()
            .rev()
            .find(|(_, r)| r.kind.cleared_range().is_some())?;
        let (first, last) = r.kind.cleared_range()?;
        match cache {
            Some(cache) => cache.verify(position, r, minted_view).map(drop).ok()?,
            None => verify_reduction(r, minted_view).map(drop).ok()?,
        }
        Some(Cover {
            position,
            first,
            last,
        })
    }

    /// Whether the reduction at log `position` lies inside this range (and is not it).
    fn covers(cover: Option<Cover>, position: usize, r: &Reduction) -> bool {
        let Some(c) = cover else {
            return false;
        };
        if position == c.position {
            return false;
        }
        let covered = r.covered();
        c.first <= *covered.start() && *covered.end() <= c.last
    }
}

/// What the cache is given of a reduction verified: an argument a tool-input elision hides
/// (copied, the one value it keeps), references for the others, and no copy of an image
/// redaction's rendering, which it never keeps.
fn cache_form<'a>(verified: &Verified<'a>) -> Verified<'a> {
    match verified {
        Verified::Argument(value) => Verified::Argument(value.clone()),
        Verified::Text(text) => Verified::Text(text),
        Verified::Turns { first, messages } => Verified::Turns {
            first: *first,
            messages,
        },
        Verified::Images(_) => Verified::Images(String::new()),
    }
}

/// [`hidden_texts`] of the reductions at log positions `offset..offset + reductions.len()`.
fn resolve_chunk<'a>(
    reduced: &ReducedMessages,
    cover: Option<Cover>,
    offset: usize,
    reductions: &'a [Reduction],
    sources: Sources<'a>,
    cache: Option<&VerifiedCache>,
) -> (HiddenTexts<'a>, Vec<(usize, Verified<'a>)>) {
    let mut out = HiddenTexts::default();
    let mut verified_now = Vec::new();
    for (i, r) in reductions.iter().enumerate() {
        let position = offset + i;
        if Cover::covers(cover, position, r) {
            out.covered.push(r);
            continue;
        }
        if let ReductionKind::ImageRedacted { .. } = r.kind
            && cache.is_some_and(|c| c.holds(position, r))
        {
            // Verified before, and never searched: its rendering is not needed.
            out.unsearchable.push(r);
            continue;
        }
        if let Some(argument) = cache.and_then(|c| c.argument(position, r)) {
            // A tool-input elision verified before: the cache kept its argument.
            let span = whole(argument.len());
            out.texts.push(HiddenText {
                reduction: r,
                text: Text::Shared(argument),
                span,
            });
            continue;
        }
        let known = cache.and_then(|c| c.verified(position, r, sources.minted));
        let checked = match known {
            Some(verified) => Ok(verified),
            None => verify_reduction(r, sources.minted)
                .inspect(|v| verified_now.push((position, cache_form(v)))),
        };
        let verified = match checked {
            Ok(verified) => verified,
            Err(error) => {
                out.unresolvable.push(Unresolvable {
                    reduction: r,
                    error,
                });
                continue;
            }
        };
        let (text, span) = match (&r.kind, verified) {
            (
                ReductionKind::ToolOutputTruncated { .. }
                | ReductionKind::AssistantTextTruncated { .. },
                Verified::Text(text),
            ) => {
                // Verification checked that the span is present and fits on char boundaries.
                match r.ptr.span.filter(|s| text.get(s.range()).is_some()) {
                    Some(span) => match sources.upgraded_text(r.ptr.addr.index, text) {
                        // A capped output with its recorded bytes: everything after the kept
                        // head is hidden (the minted tail was the cap notice).
                        Some(full)
                            if span.start() <= full.len()
                                && full.is_char_boundary(span.start()) =>
                        {
                            let hidden = Span::new(span.start(), full.len())
                                .expect("the start is within the text");
                            (Text::Borrowed(full), hidden)
                        }
                        _ => (Text::Borrowed(text), span),
                    },
                    None => {
                        out.unresolvable.push(Unresolvable {
                            reduction: r,
                            error: bad_span(r, text.len()),
                        });
                        continue;
                    }
                }
            }
            (ReductionKind::DuplicateOutput { canonical, .. }, Verified::Text(_)) => {
                // The same bytes stand at the canonical: in the view when it is not reduced,
                // otherwise searched through the reduction that hides them (its hidden middle,
                // or the cleared range), so the duplicate adds nothing of its own.
                if reduced.holds(canonical.index, position) {
                    out.covered.push(r);
                } else {
                    out.visible.push(r);
                }
                continue;
            }
            (
                ReductionKind::Superseded { .. }
                | ReductionKind::FileReadElided { .. }
                | ReductionKind::FileReadDiffed { .. },
                Verified::Text(text),
            ) => {
                // An elided read is hidden whole; a diffed read's view shows a diff of file
                // contents, not its text, so its whole original text is what it hides.
                // Hidden whole, as expand serves it (its recorded bytes where the host capped
                // it): the later result of the same call is other bytes (SPEC seed 000 rule
                // 16, whole T).
                let text = sources
                    .upgraded_text(r.ptr.addr.index, text)
                    .unwrap_or(text);
                (Text::Borrowed(text), whole(text.len()))
            }
            (ReductionKind::OutputNormalized { .. }, Verified::Text(text)) => {
                // The raw output is hidden whole, as expand serves it: the view shows what a
                // terminal would display, never the raw bytes (styles, redrawn frames, erased
                // text), and a match's range must address the text expand gives.
                let text = sources
                    .upgraded_text(r.ptr.addr.index, text)
                    .unwrap_or(text);
                (Text::Borrowed(text), whole(text.len()))
            }
            (
                ReductionKind::UnansweredCall { .. }
                | ReductionKind::MovedResult { .. }
                | ReductionKind::ConversationOpened { .. },
                _,
            ) => {
                // The call stays in the view, and a moved result is shown whole.
                out.visible.push(r);
                continue;
            }
            (ReductionKind::ImageRedacted { .. }, Verified::Images(_)) => {
                // Base64 pixels: nothing a query is meant to find.
                out.unsearchable.push(r);
                continue;
            }
            (ReductionKind::ToolInputElided { .. }, Verified::Argument(value)) => {
                // The whole string value of the argument is hidden.
                let span = whole(value.len());
                (Text::Owned(value), span)
            }
            (
                ReductionKind::TurnsCleared { .. }
                | ReductionKind::Compaction { .. }
                | ReductionKind::OrphanResult { .. }
                | ReductionKind::SecondAnswer { .. }
                | ReductionKind::FoldedCalls { .. },
                Verified::Turns { first, messages },
            ) => {
                let text = render_turns(&sources.upgraded_range(first, messages), first);
                let span = whole(text.len());
                (Text::Owned(text), span)
            }
            // verify_reduction gives the text for per-message kinds and the messages for turns
            // cleared; another pairing would be a gap there, so it is not searched.
            (
                ReductionKind::ToolOutputTruncated { .. }
                | ReductionKind::AssistantTextTruncated { .. }
                | ReductionKind::DuplicateOutput { .. }
                | ReductionKind::Superseded { .. }
                | ReductionKind::FileReadElided { .. }
                | ReductionKind::FileReadDiffed { .. }
                | ReductionKind::OutputNormalized { .. },
                Verified::Turns { .. } | Verified::Argument(_) | Verified::Images(_),
            )
            | (
                ReductionKind::TurnsCleared { .. }
                | ReductionKind::Compaction { .. }
                | ReductionKind::OrphanResult { .. }
                | ReductionKind::SecondAnswer { .. }
                | ReductionKind::FoldedCalls { .. },
                Verified::Text(_) | Verified::Argument(_) | Verified::Images(_),
            )
            | (
                ReductionKind::ToolInputElided { .. },
                Verified::Text(_) | Verified::Turns { .. } | Verified::Images(_),
            )
            | (
                ReductionKind::ImageRedacted { .. },
                Verified::Text(_) | Verified::Turns { .. } | Verified::Argument(_),
            ) => {
                out.unresolvable.push(Unresolvable {
                    reduction: r,
                    error: rehydrate_sidecar::Error::Inconsistent {
                        id: r.id.to_string(),
                        reason: "resolved to another kind of original".to_string(),
                    },
                });
                continue;
            }
        };
        out.texts.push(HiddenText {
            reduction: r,
            text,
            span,
        });
    }
    (out, verified_now)
}

/// The span `[0, len)`.
fn whole(len: usize) -> Span {
    Span::new(0, len).expect("0 <= len")
}

/// The error for a truncation whose span does not fit its verified text (verification rules
/// this out; kept so that a gap there is an unresolvable reduction, not a panic).
fn bad_span(r: &Reduction, total_bytes: usize) -> rehydrate_sidecar::Error {
    let (start, end) = r.ptr.span.map_or((0, 0), |s| (s.start(), s.end()));
    rehydrate_sidecar::Error::BadSpan {
        id: r.id.to_string(),
        index: r.ptr.addr.index,
        start,
        end,
        total_bytes,
    }
}

/// Which minted-view messages the log reduces, for the duplicate rule: per-message reductions
/// by addressed index, and turns-cleared ranges.
struct ReducedMessages {
    /// `(addressed index, log position)` of every per-message reduction, sorted: one
    /// allocation for the whole log.
    per_message: Vec<(usize, usize)>,
    /// Turns-cleared ranges `(first, last, position)` sorted by `first`, with the running
    /// maximum of `last` (so a binary search answers "does a range hold index i").
    ranges: Vec<(usize, usize, usize)>,
    max_last: Vec<usize>,
}

impl ReducedMessages {
    fn of(log: &ReductionLog) -> ReducedMessages {
        let mut per_message: Vec<(usize, usize)> = Vec::new();
        let mut ranges = Vec::new();
        for (position, r) in log.reductions.iter().enumerate() {
            match r.kind {
                ReductionKind::TurnsCleared { first, last, .. }
                | ReductionKind::Compaction { first, last, .. } => {
                    ranges.push((first, last, position));
                }
                ReductionKind::ToolOutputTruncated { .. }
                | ReductionKind::AssistantTextTruncated { .. }
                | ReductionKind::DuplicateOutput { .. }
                | ReductionKind::OrphanResult { .. }
                | ReductionKind::SecondAnswer { .. }
                | ReductionKind::FoldedCalls { .. }
                | ReductionKind::Superseded { .. }
                | ReductionKind::FileReadElided { .. }
                | ReductionKind::FileReadDiffed { .. }
                | ReductionKind::OutputNormalized { .. } => {
                    per_message.push((r.ptr.addr.index, position));
                }
                // These hide no message (a tool input elision hides an argument, never the
                // content a duplicate's canonical holds).
                ReductionKind::UnansweredCall { .. }
                | ReductionKind::MovedResult { .. }
                | ReductionKind::ConversationOpened { .. }
                | ReductionKind::ToolInputElided { .. }
                | ReductionKind::ImageRedacted { .. } => {}
            }
        }
        per_message.sort_unstable();
        ranges.sort_unstable();
        let mut max_last = Vec::with_capacity(ranges.len());
        let mut running = 0;
        for &(_, last, _) in &ranges {
            running = running.max(last);
            max_last.push(running);
        }
        ReducedMessages {
            per_message,
            ranges,
            max_last,
        }
    }

    /// Whether a reduction other than the one at log position `own` reduces message `index`.
    fn holds(&self, index: usize, own: usize) -> bool {
        let from = self.per_message.partition_point(|&(i, _)| i < index);
        let addressed = self.per_message[from..]
            .iter()
            .take_while(|&&(i, _)| i == index)
            .any(|&(_, p)| p != own);
        if addressed {
            return true;
        }
        // Ranges starting at or before `index`; one of them reaches it when the largest `last`
        // among them does. A duplicate is never a turns-cleared range, so `own` is not one.
        let starting = self.ranges.partition_point(|&(first, _, _)| first <= index);
        starting > 0 && self.max_last[starting - 1] >= index
    }
}
