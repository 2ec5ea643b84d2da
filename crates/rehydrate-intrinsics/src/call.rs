//! [`Intrinsics::call`]: one tool call of the model, validated strictly and answered as an
//! ordinary tool result (SPEC seed 000 rules 24-25).

use rehydrate_model::{Message, ReductionLog};
use rehydrate_search::{SearchMode, SearchOptions, sidecar_search_cached};
use rehydrate_sidecar::{Sources, VerifiedCache, expand_reduction, reduction_total_bytes};
use serde_json::{Map, Value, json};

use crate::tools::{
    EXPAND_REDUCTION, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, LIST_REDUCTIONS, LIST_SUMMARY_MAX_BYTES,
    SIDECAR_SEARCH,
};

/// What one intrinsic call resolves against: the session's reduction log and its sources (the
/// minted view, and the messages a session store recorded when there is one). Borrowed for the
/// call; a live host builds one per call (the `rehydrate` facade's `Session::call` does).
#[derive(Debug, Clone, Copy)]
pub struct CallContext<'a> {
    /// The reduction log.
    pub log: &'a ReductionLog,
    /// The minted view, and optionally the recorded messages.
    pub sources: Sources<'a>,
}

impl<'a> CallContext<'a> {
    /// A context whose reductions resolve against `minted` alone.
    pub fn new(log: &'a ReductionLog, minted: &'a [Message]) -> CallContext<'a> {
        CallContext {
            log,
            sources: Sources::minted(minted),
        }
    }
}

/// The result of one intrinsic call: the text the model gets, and whether it is a tool error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The tool result's text: the original bytes, a ranged header and bytes, the search JSON,
    /// or `Error: <message>`.
    pub content: String,
    /// Whether the call failed (sent to the model as a tool error).
    pub is_error: bool,
}

impl ToolResult {
    fn ok(content: String) -> ToolResult {
        ToolResult {
            content,
            is_error: false,
        }
    }

    fn error(message: impl std::fmt::Display) -> ToolResult {
        ToolResult {
            content: format!("Error: {message}"),
            is_error: true,
        }
    }
}

/// The agent intrinsics: the model's `expand_reduction` and `sidecar_search` calls.
#[derive(Debug, Clone, Copy, Default)]
pub struct Intrinsics;

impl Intrinsics {
    /// Answers one tool call as its tool result; every failure is a tool error the model can
    /// read and retry from (never a panic, never a host error).
    ///
    /// - `expand_reduction` takes `reduction_id` (a string, required) and `byte_range` (absent,
    ///   null, or an array of exactly two non-negative integers `[start, end)` with
    ///   `start <= end`, in bytes); a malformed range is an error naming the original's true
    ///   size. A whole expand returns exactly the original bytes; a ranged one returns
    ///   `[<id>: bytes <start>..<end> of <total>]`, a line break, and the bytes (the range after
    ///   clamping to the size and rounding down to char boundaries).
    /// - `sidecar_search` takes `query` (a string, required) and `mode` (`literal` or `regex`,
    ///   optional) and returns the bounded search result as compact JSON.
    ///
    /// - `list_reductions` takes `offset` (a non-negative integer, default 0) and `limit` (1 to
    ///   [`LIST_LIMIT_MAX`], default [`LIST_LIMIT_DEFAULT`]) and returns compact JSON
    ///   `{"total","offset","reductions":[{"id","kind","message_index","original_bytes",
    ///   "summary"}],"next_offset"}`: the log's reductions from `offset` in log order, `kind`
    ///   the stub kind (`tool-output`, …), `original_bytes` the size of the original in bytes,
    ///   `summary` the stub line cut to at most [`LIST_SUMMARY_MAX_BYTES`] bytes (at a char
    ///   boundary, `…` appended), `next_offset` the offset of the next page or `null`.
    ///
    /// Any other key, a value of the wrong type, arguments that are not a JSON object, or
    /// another tool name is an error.
    pub fn call(name: &str, arguments: &str, context: &CallContext<'_>) -> ToolResult {
        Intrinsics::call_cached(name, arguments, context, &mut VerifiedCache::default())
    }

    /// [`Intrinsics::call`] for a host that answers many calls over one live session:
    /// `sidecar_search` does not verify (hash) again the reductions `cache` holds, and adds
    /// those it verifies ([`rehydrate_search::sidecar_search_cached`]). The host keeps one
    /// cache per session and clears it whenever the minted view changes other than by growing
    /// (a rewind, a model switch, a session read again); `expand_reduction` always verifies
    /// the bytes it serves.
    pub fn call_cached(
        name: &str,
        arguments: &str,
        context: &CallContext<'_>,
        cache: &mut VerifiedCache,
    ) -> ToolResult {
        let args = match serde_json::from_str::<Value>(arguments) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return ToolResult::error(format!("{name}: arguments must be a JSON object")),
            Err(e) => {
                return ToolResult::error(format!("{name}: arguments are not valid JSON: {e}"));
            }
        };
        match name {
            EXPAND_REDUCTION => expand(&args, context),
            SIDECAR_SEARCH => search(&args, context, cache),
            LIST_REDUCTIONS => list(&args, context),
            other => ToolResult::error(format!(
                "unknown tool `{other}`; the intrinsics are {EXPAND_REDUCTION}, {SIDECAR_SEARCH} and {LIST_REDUCTIONS}"
            )),
        }
    }
}

/// Rejects keys other than `allowed`.
fn only(args: &Map<String, Value>, tool: &str, allowed: &[&str]) -> Result<(), ToolResult> {
    match args.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(ToolResult::error(format!(
            "{tool}: unknown argument `{key}`; expected {}",
            allowed.join(", ")
        ))),
        None => Ok(()),
    }
}

fn expand(args: &Map<String, Value>, context: &CallContext<'_>) -> ToolResult {
    if let Err(e) = only(args, EXPAND_REDUCTION, &["reduction_id", "byte_range"]) {
        return e;
    }
    let id = match args.get("reduction_id") {
        Some(Value::String(id)) => id.as_str(),
        Some(other) => {
            return ToolResult::error(format!(
                "{EXPAND_REDUCTION}: `reduction_id` must be a string, got {other}"
            ));
        }
        None => {
            return ToolResult::error(format!(
                "{EXPAND_REDUCTION}: missing `reduction_id` (the id in the stub, such as r3.9f3c2a)"
            ));
        }
    };
    let range = match args.get("byte_range") {
        None | Some(Value::Null) => None,
        Some(raw) => match parse_range(raw) {
            Some(range) => Some(range),
            None => {
                let total = match reduction_total_bytes(context.log, context.sources, id) {
                    Ok(total) => total,
                    Err(e) => return ToolResult::error(prefixed(EXPAND_REDUCTION, &e)),
                };
                return ToolResult::error(format!(
                    "{EXPAND_REDUCTION}: malformed byte_range {raw} — expected [start, end): exactly two non-negative integers with start <= end; the original is {total} bytes"
                ));
            }
        },
    };
    match expand_reduction(context.log, context.sources, id, range) {
        Ok(out) => match out.range {
            None => ToolResult::ok(out.content.into_owned()),
            Some(span) => ToolResult::ok(format!(
                "[{id}: bytes {}..{} of {}]\n{}",
                span.start(),
                span.end(),
                out.total_bytes,
                out.content
            )),
        },
        Err(e) => ToolResult::error(prefixed(EXPAND_REDUCTION, &e)),
    }
}

fn list(args: &Map<String, Value>, context: &CallContext<'_>) -> ToolResult {
    if let Err(e) = only(args, LIST_REDUCTIONS, &["offset", "limit"]) {
        return e;
    }
    let count = |key: &str, default: usize| match args.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                ToolResult::error(format!(
                    "{LIST_REDUCTIONS}: `{key}` must be a non-negative integer, got {v}"
                ))
            }),
    };
    let offset = match count("offset", 0) {
        Ok(n) => n,
        Err(e) => return e,
    };
    let limit = match count("limit", LIST_LIMIT_DEFAULT) {
        Ok(n) if (1..=LIST_LIMIT_MAX).contains(&n) => n,
        Ok(n) => {
            return ToolResult::error(format!(
                "{LIST_REDUCTIONS}: `limit` must be from 1 to {LIST_LIMIT_MAX}, got {n}"
            ));
        }
        Err(e) => return e,
    };
    let all = &context.log.reductions;
    let page: Vec<Value> = all
        .iter()
        .skip(offset)
        .take(limit)
        .map(|r| {
            json!({
                "id": r.id.as_str(),
                "kind": r.kind.stub_kind().as_str(),
                "message_index": r.ptr.addr.index,
                "original_bytes": r.kind.original_bytes(),
                "summary": summary(&r.stub),
            })
        })
        .collect();
    let end = offset.saturating_add(page.len());
    let next = (end < all.len()).then_some(end);
    let result = json!({
        "total": all.len(),
        "offset": offset,
        "reductions": page,
        "next_offset": next,
    });
    ToolResult::ok(result.to_string())
}

/// `stub` cut to at most [`LIST_SUMMARY_MAX_BYTES`] bytes at a char boundary, `…` appended
/// when cut.
fn summary(stub: &str) -> String {
    if stub.len() <= LIST_SUMMARY_MAX_BYTES {
        return stub.to_owned();
    }
    let mut end = LIST_SUMMARY_MAX_BYTES - '…'.len_utf8();
    while !stub.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &stub[..end])
}

/// `[start, end)`: exactly two non-negative integers with `start <= end`.
fn parse_range(raw: &Value) -> Option<(usize, usize)> {
    let [start, end] = raw.as_array()?.as_slice() else {
        return None;
    };
    let (start, end) = (
        usize::try_from(start.as_u64()?).ok()?,
        usize::try_from(end.as_u64()?).ok()?,
    );
    (start <= end).then_some((start, end))
}

fn search(
    args: &Map<String, Value>,
    context: &CallContext<'_>,
    cache: &mut VerifiedCache,
) -> ToolResult {
    if let Err(e) = only(args, SIDECAR_SEARCH, &["query", "mode"]) {
        return e;
    }
    let query = match args.get("query") {
        Some(Value::String(q)) => q.as_str(),
        Some(other) => {
            return ToolResult::error(format!(
                "{SIDECAR_SEARCH}: `query` must be a string, got {other}"
            ));
        }
        None => return ToolResult::error(format!("{SIDECAR_SEARCH}: missing `query`")),
    };
    let mode = match args.get("mode") {
        None | Some(Value::Null) => SearchMode::Auto,
        Some(Value::String(m)) if m == "literal" => SearchMode::Literal,
        Some(Value::String(m)) if m == "regex" => SearchMode::Regex,
        Some(other) => {
            return ToolResult::error(format!(
                "{SIDECAR_SEARCH}: `mode` must be \"literal\" or \"regex\", got {other}"
            ));
        }
    };
    let options = SearchOptions {
        mode,
        ..SearchOptions::default()
    };
    match sidecar_search_cached(context.log, context.sources, query, &options, cache) {
        Ok(result) => ToolResult::ok(result.to_json()),
        Err(e) => ToolResult::error(format!("{SIDECAR_SEARCH}: {e}")),
    }
}

/// `tool: message`, unless the message already starts with the tool's name.
fn prefixed(tool: &str, e: &impl std::fmt::Display) -> String {
    let message = e.to_string();
    if message.starts_with(tool) {
        message
    } else {
        format!("{tool}: {message}")
    }
}
