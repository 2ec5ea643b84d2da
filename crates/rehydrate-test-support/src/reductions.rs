//! Reductions built by hand, each with its real digest and id, so that it verifies unless a
//! test tampers with it on purpose.
//!
//! The stub is the caller's to render (`|r| rehydrate_sidecar::expected_stub(r, &[])`): the
//! renderer lives in rehydrate-sidecar, which this crate may not depend on, since the sidecar's
//! own tests use it.

use rehydrate_model::{
    Digest, MessageAddr, Reduction, ReductionId, ReductionKind, Role, SidecarPtr, Span,
};

/// blake3 of the UTF-8 bytes of `text`: the digest of a tool result's exact content.
///
/// The definition of `rehydrate_sidecar::content_digest`, written again here because this crate
/// cannot depend on the sidecar; the sidecar's integration tests check that the two agree.
pub fn text_digest(text: &str) -> Digest {
    Digest(*blake3::hash(text.as_bytes()).as_bytes())
}

/// The truncation at log position `ordinal` of the tool result at message `index`, whose text
/// is `text`, hiding the byte span `span` (half-open `[start, end)`); `stub` renders its stub.
///
/// The reduction records `text`'s length, the line breaks inside the span (0 when the span is not
/// a range of `text` between char boundaries), the digest [`text_digest`] of `text` and the id
/// that digest gives at `ordinal`.
///
/// # Panics
///
/// When `span.0 > span.1`.
///
/// # Example
///
/// ```
/// use rehydrate_model::ReductionKind;
/// use rehydrate_test_support::truncation;
///
/// let r = truncation(1, 0, "one\ntwo\nthree\n", (4, 14), |r| format!("[{}]", r.id));
/// assert_eq!(
///     r.kind,
///     ReductionKind::ToolOutputTruncated { original_bytes: 14, hidden_lines: 2 }
/// );
/// assert_eq!(r.stub, format!("[{}]", r.id));
/// ```
pub fn truncation(
    ordinal: usize,
    index: usize,
    text: &str,
    span: (usize, usize),
    stub: impl FnOnce(&Reduction) -> String,
) -> Reduction {
    let digest = text_digest(text);
    let span = Span::new(span.0, span.1).expect("a test's span starts before it ends");
    let hidden_lines = text
        .get(span.range())
        .map_or(0, |h| h.matches('\n').count());
    let mut r = Reduction {
        id: ReductionId::new(ordinal, &digest),
        kind: ReductionKind::ToolOutputTruncated {
            original_bytes: text.len(),
            hidden_lines,
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index,
                role: Role::Tool,
            },
            span: Some(span),
            digest,
        },
        stub: String::new(),
    };
    r.stub = stub(&r);
    r
}

/// The duplicate at log position `ordinal` of the tool result at message `index`, whose text
/// `text` equals that of the tool result at message `canonical`; `stub` renders its stub.
///
/// The reduction records `text`'s length, the digest [`text_digest`] of `text` and the id that
/// digest gives at `ordinal`.
///
/// # Example
///
/// ```
/// use rehydrate_model::ReductionKind;
/// use rehydrate_test_support::duplicate;
///
/// let r = duplicate(2, 8, 6, "l1\nl2\n", |_| String::new());
/// assert!(matches!(
///     r.kind,
///     ReductionKind::DuplicateOutput { canonical, original_bytes: 6 } if canonical.index == 6
/// ));
/// assert_eq!((r.ptr.addr.index, r.ptr.span), (8, None));
/// ```
pub fn duplicate(
    ordinal: usize,
    index: usize,
    canonical: usize,
    text: &str,
    stub: impl FnOnce(&Reduction) -> String,
) -> Reduction {
    let digest = text_digest(text);
    let mut r = Reduction {
        id: ReductionId::new(ordinal, &digest),
        kind: ReductionKind::DuplicateOutput {
            canonical: MessageAddr {
                index: canonical,
                role: Role::Tool,
            },
            original_bytes: text.len(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index,
                role: Role::Tool,
            },
            span: None,
            digest,
        },
        stub: String::new(),
    };
    r.stub = stub(&r);
    r
}

/// The superseded result at log position `ordinal`: the tool result at message `index`, whose
/// text is `text`, superseded by the later tool result at message `by`; `stub` renders its stub.
///
/// The reduction records `text`'s length, the digest [`text_digest`] of `text` and the id that
/// digest gives at `ordinal`.
///
/// # Example
///
/// ```
/// use rehydrate_model::ReductionKind;
/// use rehydrate_test_support::superseded;
///
/// let r = superseded(0, 2, 5, "FAILED\n", |_| String::new());
/// assert!(matches!(
///     r.kind,
///     ReductionKind::Superseded { by, original_bytes: 7 } if by.index == 5
/// ));
/// assert_eq!((r.ptr.addr.index, r.ptr.span), (2, None));
/// ```
pub fn superseded(
    ordinal: usize,
    index: usize,
    by: usize,
    text: &str,
    stub: impl FnOnce(&Reduction) -> String,
) -> Reduction {
    let digest = text_digest(text);
    let mut r = Reduction {
        id: ReductionId::new(ordinal, &digest),
        kind: ReductionKind::Superseded {
            by: MessageAddr {
                index: by,
                role: Role::Tool,
            },
            original_bytes: text.len(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index,
                role: Role::Tool,
            },
            span: None,
            digest,
        },
        stub: String::new(),
    };
    r.stub = stub(&r);
    r
}
