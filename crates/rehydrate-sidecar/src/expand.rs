//! `expand_reduction` and `reduction_total_bytes` (SPEC seed 000 rules 7-12).

use std::borrow::Cow;

use rehydrate_model::{ReductionLog, Span};

use crate::error::Error;
use crate::resolve::resolve;
use crate::sources::Sources;

/// The result of a successful [`expand_reduction`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpandOutcome<'a> {
    /// The exact original bytes, or the requested slice of them.
    pub content: Cow<'a, str>,
    /// Size in bytes of the whole original, before slicing.
    pub total_bytes: usize,
    /// The effective half-open range served, after clamping and char-boundary rounding;
    /// `None` for a whole-content expand.
    pub range: Option<Span>,
}

/// Returns the exact original bytes behind reduction `id`, or the half-open byte range
/// `[start, end)` of them.
///
/// `sources` is the minted view (`&[Message]`, `&Vec<Message>`), or a [`Sources`] that adds the
/// messages a session store recorded. The original is resolved and verified as in
/// [`crate::resolve`], recorded upgrade included. With a range, `end` is
/// clamped to the original's size, and both ends round down to the nearest char boundary (the
/// end never below the start), so a slice is always valid UTF-8; `start == total_bytes` gives
/// an empty slice. Expanding never changes the log: the stub keeps resolving.
/// SPEC seed 000 rules 7-11.
///
/// # Errors
///
/// Every resolution error of [`crate::resolve`]; [`Error::ReversedRange`] when `start > end`
/// and [`Error::RangeBeyondEnd`] when `start > total_bytes`, both naming the true size.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, MessageAddr, Reduction, ReductionId, ReductionKind, ReductionLog, Role, SidecarPtr, Span};
/// use rehydrate_sidecar::{content_digest, expand_reduction, expected_stub};
///
/// let minted = vec![Message::tool_result("c1", "héllo")];
/// let digest = content_digest("héllo".as_bytes());
/// let id = ReductionId::new(0, &digest);
/// let mut reduction = Reduction {
///     id: id.clone(),
///     kind: ReductionKind::DuplicateOutput { canonical: MessageAddr { index: 0, role: Role::Tool }, original_bytes: 6 },
///     ptr: SidecarPtr { addr: MessageAddr { index: 0, role: Role::Tool }, span: None, digest },
///     stub: String::new(),
/// };
/// reduction.stub = expected_stub(&reduction, &minted);
/// let log = ReductionLog { reductions: vec![reduction] };
/// let out = expand_reduction(&log, &minted, id.as_str(), Some((2, 4)))?;
/// assert_eq!(out.content, "él");
/// assert_eq!(out.range, Some(Span::new(1, 4)?));
/// assert_eq!(out.total_bytes, 6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn expand_reduction<'a>(
    log: &'a ReductionLog,
    sources: impl Into<Sources<'a>>,
    id: &str,
    byte_range: Option<(usize, usize)>,
) -> Result<ExpandOutcome<'a>, Error> {
    let resolved = resolve(log, sources, id)?;
    let text = resolved.text;
    let total_bytes = text.len();
    let Some((start, end)) = byte_range else {
        return Ok(ExpandOutcome {
            content: text,
            total_bytes,
            range: None,
        });
    };
    if start > end {
        return Err(Error::ReversedRange {
            id: id.to_string(),
            start,
            end,
            total_bytes,
        });
    }
    if start > total_bytes {
        return Err(Error::RangeBeyondEnd {
            id: id.to_string(),
            start,
            total_bytes,
        });
    }
    let start = text.floor_char_boundary(start);
    let end = text.floor_char_boundary(end.min(total_bytes)).max(start);
    let range = Span::new(start, end).expect("end is at least start by construction");
    let content = match text {
        Cow::Borrowed(t) => Cow::Borrowed(&t[start..end]),
        Cow::Owned(t) => Cow::Owned(t[start..end].to_string()),
    };
    Ok(ExpandOutcome {
        content,
        total_bytes,
        range: Some(range),
    })
}

/// Size in bytes of the original behind reduction `id`: what [`ExpandOutcome::total_bytes`]
/// reports, without slicing. SPEC seed 000 rule 12.
///
/// # Errors
///
/// Every resolution error of [`crate::resolve`].
pub fn reduction_total_bytes<'a>(
    log: &'a ReductionLog,
    sources: impl Into<Sources<'a>>,
    id: &str,
) -> Result<usize, Error> {
    Ok(resolve(log, sources, id)?.text.len())
}
