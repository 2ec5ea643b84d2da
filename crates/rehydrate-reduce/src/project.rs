//! `project_messages`: the one-shot projection of a session's history into a reduced view.

use std::collections::HashMap;

use rehydrate_model::{
    Digest, Message, MessageAddr, Reduction, ReductionId, ReductionKind, ReductionLog, SidecarPtr,
    json_str_len,
};
use rehydrate_sidecar::{
    content_digest, expected_stub, stub_message, turns_digest, verify_reduction,
};

use crate::cut::truncation_span;
use crate::policy::ReductionPolicy;
use crate::turns::{clearable_range_in, safe_boundaries};

/// The result of [`project_messages`].
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// The reduced messages the model is sent, in order.
    pub view: Vec<Message>,
    /// The input log followed by every reduction minted by this projection.
    pub log: ReductionLog,
    /// How many reductions this projection minted (the last `minted` entries of `log`).
    pub minted: usize,
}

/// Projects `history` (the full-fidelity messages, which are the minted view of every
/// reduction) into a reduced view under `policy`, reusing the decisions recorded in `log`.
///
/// Per message, in order:
/// - messages inside the turns-cleared range (the policy's, or the log's latest one that still
///   verifies when the policy clears nothing) are replaced by one stub message;
/// - a tool result already reduced in `log` whose reduction still verifies keeps its stub;
/// - the newest `protect_last_n_tool_results` tool results are kept as they are;
/// - an older tool result byte-identical to an earlier visible tool result becomes a duplicate
///   stub; one strictly larger than `tool_output_trigger_bytes` keeps its head and tail around
///   a stub ([`crate::truncation_span`]);
/// - everything else is kept as it is.
///
/// A reduction is minted only when its view form is smaller than what it hides by at least
/// `min_saved_bytes`. Reductions
/// get ids `r<ordinal>.<hex>` continuing the log's ordinals. Linear in the total bytes of
/// `history` (each tool result is hashed once).
///
/// The result is idempotent: `project_messages(history, &p.log, policy)` returns `p` again
/// (with `minted == 0`).
pub fn project_messages(
    history: &[Message],
    log: &ReductionLog,
    policy: &ReductionPolicy,
) -> Projection {
    let mut out_log = log.clone();
    let before = out_log.len();

    let mut per_message: HashMap<usize, &Reduction> = HashMap::new();
    let mut latest_cleared: Option<&Reduction> = None;
    for r in &log.reductions {
        match r.kind {
            ReductionKind::TurnsCleared { .. } => latest_cleared = Some(r),
            ReductionKind::ToolOutputTruncated { .. } | ReductionKind::DuplicateOutput { .. } => {
                per_message.insert(r.ptr.addr.index, r);
            }
        }
    }

    let cleared = decide_cleared(history, latest_cleared, policy, &mut out_log);

    let tool_results: Vec<usize> = (0..history.len())
        .filter(|&i| history[i].is_tool_result())
        .collect();
    // Messages at or after `protected_from` are never reduced.
    let protected_from = match policy.protect_last_n_tool_results {
        0 => history.len(),
        n if n >= tool_results.len() => 0,
        n => tool_results[tool_results.len() - n],
    };

    let mut first_seen: HashMap<Digest, usize> = HashMap::new();
    let mut view = Vec::with_capacity(history.len());
    let mut i = 0;
    while i < history.len() {
        if let Some((first, last, ref stub_msg)) = cleared
            && i == first
        {
            view.push(stub_msg.clone());
            i = last + 1;
            continue;
        }
        let msg = &history[i];
        let text = match msg.content_text() {
            Some(text) if msg.is_tool_result() => text,
            _ => {
                view.push(msg.clone());
                i += 1;
                continue;
            }
        };
        let digest = content_digest(text.as_bytes());
        let canonical = *first_seen.entry(digest).or_insert(i);

        let reused = per_message
            .get(&i)
            .filter(|r| r.ptr.digest == digest && verify_reduction(r, history).is_ok())
            .and_then(|r| stub_message(r, msg).ok());
        if let Some(stub) = reused {
            view.push(stub);
            i += 1;
            continue;
        }

        let protected = i >= protected_from;
        let minted = if protected {
            None
        } else {
            let candidate = Candidate {
                msg,
                index: i,
                text,
                digest,
            };
            let duplicate = if policy.dedupe_outputs && canonical != i {
                let addr = MessageAddr {
                    index: canonical,
                    role: history[canonical].role,
                };
                mint_duplicate(&candidate, addr, policy, &mut out_log)
            } else {
                None
            };
            duplicate.or_else(|| {
                (text.len() > policy.tool_output_trigger_bytes)
                    .then(|| mint_truncation(&candidate, policy, &mut out_log))
                    .flatten()
            })
        };
        view.push(minted.unwrap_or_else(|| msg.clone()));
        i += 1;
    }
    let minted = out_log.len() - before;
    Projection {
        view,
        log: out_log,
        minted,
    }
}

/// Decides the turns-cleared range and returns it with its stub message, minting a reduction
/// when the decision is new.
fn decide_cleared(
    history: &[Message],
    latest: Option<&Reduction>,
    policy: &ReductionPolicy,
    log: &mut ReductionLog,
) -> Option<(usize, usize, Message)> {
    let safe = safe_boundaries(history);
    let is_safe = |b: usize| safe.get(b).copied().unwrap_or(false);
    // A recorded range is reused only while it verifies and both its ends are still safe: a
    // result that arrived after it was minted may answer a call inside it.
    let reusable = latest
        .filter(|r| verify_reduction(r, history).is_ok())
        .and_then(|r| match r.kind {
            ReductionKind::TurnsCleared { first, last, .. }
                if is_safe(first) && is_safe(last + 1) =>
            {
                stub_message(r, &history[first])
                    .ok()
                    .map(|m| (r, first, last, m))
            }
            _ => None,
        });
    let wanted = policy
        .clear_turns_older_than
        .and_then(|n| clearable_range_in(history, n, &safe));
    let Some((first, last)) = wanted else {
        return reusable.map(|(_, first, last, m)| (first, last, m));
    };
    if let Some((r, f, l, m)) = reusable
        && let ReductionKind::TurnsCleared { ref summary, .. } = r.kind
        && (f, l) == (first, last)
        && *summary == policy.turns_summary
    {
        return Some((first, last, m));
    }
    let range = &history[first..=last];
    let (digest, original_bytes) = turns_digest(range);
    let mut reduction = Reduction {
        id: ReductionId::new(log.len(), &digest),
        kind: ReductionKind::TurnsCleared {
            first,
            last,
            original_bytes,
            summary: policy.turns_summary.clone(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: first,
                role: history[first].role,
            },
            span: None,
            digest,
        },
        stub: String::new(),
    };
    reduction.stub = expected_stub(&reduction, history);
    let stub_msg = stub_message(&reduction, &history[first]).ok()?;
    // The hashed bytes hold one line break per message that the wire form does not.
    if !saves_enough(original_bytes - range.len(), stub_msg.wire_len(), policy) {
        return None;
    }
    log.reductions.push(reduction);
    Some((first, last, stub_msg))
}

/// A tool result that may be reduced: the message, its index, its text and the text's digest.
struct Candidate<'a> {
    msg: &'a Message,
    index: usize,
    text: &'a str,
    digest: Digest,
}

fn mint_duplicate(
    c: &Candidate<'_>,
    canonical: MessageAddr,
    policy: &ReductionPolicy,
    log: &mut ReductionLog,
) -> Option<Message> {
    let mut reduction = Reduction {
        id: ReductionId::new(log.len(), &c.digest),
        kind: ReductionKind::DuplicateOutput {
            canonical,
            original_bytes: c.text.len(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: c.index,
                role: c.msg.role,
            },
            span: None,
            digest: c.digest,
        },
        stub: String::new(),
    };
    reduction.stub = expected_stub(&reduction, &[]);
    if !saves_enough(json_str_len(c.text), json_str_len(&reduction.stub), policy) {
        return None;
    }
    push_minted(reduction, c.msg, log)
}

fn mint_truncation(
    c: &Candidate<'_>,
    policy: &ReductionPolicy,
    log: &mut ReductionLog,
) -> Option<Message> {
    let span = truncation_span(c.text, policy.head_bytes, policy.tail_bytes)?;
    let hidden = &c.text[span.range()];
    let mut reduction = Reduction {
        id: ReductionId::new(log.len(), &c.digest),
        kind: ReductionKind::ToolOutputTruncated {
            original_bytes: c.text.len(),
            hidden_lines: memchr::memchr_iter(b'\n', hidden.as_bytes()).count(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: c.index,
                role: c.msg.role,
            },
            span: Some(span),
            digest: c.digest,
        },
        stub: String::new(),
    };
    reduction.stub = expected_stub(&reduction, &[]);
    // The hidden bytes become the stub between two line breaks (2 wire bytes each).
    if !saves_enough(
        json_str_len(hidden),
        json_str_len(&reduction.stub) + 4,
        policy,
    ) {
        return None;
    }
    push_minted(reduction, c.msg, log)
}

/// Whether replacing `hidden_bytes` by `stub_bytes` (both in wire bytes) saves at least one
/// byte and at least `policy.min_saved_bytes`.
fn saves_enough(hidden_bytes: usize, stub_bytes: usize, policy: &ReductionPolicy) -> bool {
    hidden_bytes > stub_bytes && hidden_bytes - stub_bytes >= policy.min_saved_bytes
}

fn push_minted(reduction: Reduction, msg: &Message, log: &mut ReductionLog) -> Option<Message> {
    let view_msg = stub_message(&reduction, msg).ok()?;
    log.reductions.push(reduction);
    Some(view_msg)
}
