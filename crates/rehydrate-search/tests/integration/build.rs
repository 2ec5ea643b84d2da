//! Building reduction logs by hand: every reduction gets its real digest, id and stub, so it
//! verifies unless a test tampers with it on purpose.

use rehydrate_model::{Digest, Message, MessageAddr, Reduction, ReductionId, ReductionKind, Span};
use rehydrate_sidecar::{content_digest, expected_stub, turns_digest};

/// A reduction to build.
#[derive(Debug, Clone)]
pub(crate) enum Spec {
    /// Truncate message `index`, hiding `span` of its text.
    Truncate { index: usize, span: [usize; 2] },
    /// Truncate the text of assistant message `index`, hiding `span` of it.
    TruncateAssistant { index: usize, span: [usize; 2] },
    /// Message `index` duplicates message `canonical`.
    Duplicate { index: usize, canonical: usize },
    /// Clear messages `first..=last`.
    Turns { first: usize, last: usize },
    /// Message `index` is superseded by the later result at message `by`.
    Superseded { index: usize, by: usize },
}

/// The reduction at `ordinal` for `spec` over `minted`; with `digest_of`, the pointer carries
/// the digest of those bytes instead (and the id follows it), so only the digest check fails.
pub(crate) fn reduction(
    minted: &[Message],
    ordinal: usize,
    spec: &Spec,
    digest_of: Option<&str>,
) -> Reduction {
    let text = |i: usize| minted[i].content_text().expect("a text message");
    let (kind, index, span, digest): (ReductionKind, usize, Option<Span>, Digest) = match *spec {
        Spec::Truncate {
            index,
            span: [start, end],
        } => {
            let t = text(index);
            (
                ReductionKind::ToolOutputTruncated {
                    original_bytes: t.len(),
                    hidden_lines: t[start..end].matches('\n').count(),
                },
                index,
                Some(Span::new(start, end).unwrap()),
                content_digest(t.as_bytes()),
            )
        }
        Spec::TruncateAssistant {
            index,
            span: [start, end],
        } => {
            let t = text(index);
            (
                ReductionKind::AssistantTextTruncated {
                    original_bytes: t.len(),
                    hidden_lines: t[start..end].matches('\n').count(),
                },
                index,
                Some(Span::new(start, end).unwrap()),
                content_digest(t.as_bytes()),
            )
        }
        Spec::Duplicate { index, canonical } => {
            let t = text(index);
            (
                ReductionKind::DuplicateOutput {
                    canonical: MessageAddr {
                        index: canonical,
                        role: minted[canonical].role,
                    },
                    original_bytes: t.len(),
                },
                index,
                None,
                content_digest(t.as_bytes()),
            )
        }
        Spec::Superseded { index, by } => {
            let t = text(index);
            (
                ReductionKind::Superseded {
                    by: MessageAddr {
                        index: by,
                        role: minted[by].role,
                    },
                    original_bytes: t.len(),
                },
                index,
                None,
                content_digest(t.as_bytes()),
            )
        }
        Spec::Turns { first, last } => {
            let (digest, bytes) = turns_digest(&minted[first..=last]);
            (
                ReductionKind::TurnsCleared {
                    first,
                    last,
                    original_bytes: bytes,
                    summary: None,
                },
                first,
                None,
                digest,
            )
        }
    };
    let digest = digest_of.map_or(digest, |other| content_digest(other.as_bytes()));
    let mut r = Reduction {
        id: ReductionId::new(ordinal, &digest),
        kind,
        ptr: rehydrate_model::SidecarPtr {
            addr: MessageAddr {
                index,
                role: minted[index].role,
            },
            span,
            digest,
        },
        stub: String::new(),
    };
    r.stub = expected_stub(&r, minted);
    r
}
