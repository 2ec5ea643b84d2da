//! The tool definitions a host advertises to its model: `expand_reduction` and
//! `sidecar_search`, as OpenAI function tools or Anthropic tools (docs/FORMATS.md, "Agent
//! intrinsics").

use serde_json::{Value, json};

/// The name of the tool that returns the bytes behind a stub.
pub const EXPAND_REDUCTION: &str = "expand_reduction";

/// The name of the tool that searches what the stubs hide.
pub const SIDECAR_SEARCH: &str = "sidecar_search";

/// The name of the tool that lists the reductions of the session, page by page.
pub const LIST_REDUCTIONS: &str = "list_reductions";

/// The most reductions one `list_reductions` call returns.
pub const LIST_LIMIT_MAX: usize = 50;

/// The reductions one `list_reductions` call returns when it names no `limit`.
pub const LIST_LIMIT_DEFAULT: usize = 20;

/// The most bytes of a reduction's stub a `list_reductions` entry shows as its summary.
pub const LIST_SUMMARY_MAX_BYTES: usize = 200;

/// The JSON-schema draft the parameter schemas declare.
pub const SCHEMA_DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The shape of a tool definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolFormat {
    /// OpenAI function tools: `{"type":"function","function":{"name","description","parameters"}}`.
    OpenAi,
    /// Anthropic tools: `{"name","description","input_schema"}`.
    Anthropic,
}

const EXPAND_DESCRIPTION: &str = "Return the exact original bytes behind a reduction stub. Parts of this conversation were reduced to save context: a one-line stub such as `[rehydrate:tool-output r3.9f3c2a | 12000 of 13168 bytes hidden (240 lines); expand_reduction restores them]` stands where the original was (the hidden middle of a tool output or of an older assistant message, a duplicate or superseded tool output, a file read again, a re-read shown as a diff, a large argument of an old tool call, an image, raw terminal output shown as its final screen, or whole cleared turns). Call this with the stub's id (`r3.9f3c2a`) when you need what it hides: the bytes come back verified, exactly as they were. For a large original, ask for a part with `byte_range`: a half-open range [start, end) of BYTES (not characters or lines) of the original; the reply then starts with a line giving the range served and the original's total size, and ranges are rounded down to whole characters.";

const SEARCH_DESCRIPTION: &str = "Search only the content hidden behind reduction stubs (what you cannot see in the conversation now), not the visible messages. Returns JSON with at most 50 matches, each with the reduction id to expand and a short snippet (secrets redacted), the total number of matches, and whether the list was cut. The query is a regular expression when it is a valid one and literal text otherwise, matched ignoring case; set `mode` to `literal` or `regex` to choose. Use it to find which stub hides something, then expand_reduction with that id.";

const LIST_DESCRIPTION: &str = "List the reductions of this session: what was hidden from your context to save room, and can be brought back. Each entry gives the reduction id (pass it to expand_reduction), its kind (such as tool-output, duplicate, turns-cleared), the index of the message it stands for, the size of the original in bytes, and its stub line as a summary. Use it when you see only a summary of earlier work and need to know what is there to expand or search; pages of at most 50, from `offset`.";

/// The parameter schema of `list_reductions`.
fn list_schema() -> Value {
    json!({
        "$schema": SCHEMA_DRAFT,
        "type": "object",
        "properties": {
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "How many reductions to skip, in log order; 0 (the default) starts at the first."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": LIST_LIMIT_MAX,
                "description": "How many to return, at most 50; 20 when omitted."
            }
        },
        "additionalProperties": false
    })
}

/// The `list_reductions` tool definition in `format`: not among [`tool_definitions`] (a model
/// that sees each stub reads its id there); a host whose model may see no stub (an agent's own
/// compaction removed them, as over MCP) advertises it too.
pub fn list_reductions_definition(format: ToolFormat) -> Value {
    definition(format, LIST_REDUCTIONS, LIST_DESCRIPTION, list_schema())
}

/// One tool definition in `format`.
fn definition(format: ToolFormat, name: &str, description: &str, schema: Value) -> Value {
    match format {
        ToolFormat::OpenAi => json!({
            "type": "function",
            "function": {"name": name, "description": description, "parameters": schema}
        }),
        ToolFormat::Anthropic => json!({
            "name": name, "description": description, "input_schema": schema
        }),
    }
}

/// The parameter schema of `expand_reduction`.
fn expand_schema() -> Value {
    json!({
        "$schema": SCHEMA_DRAFT,
        "type": "object",
        "properties": {
            "reduction_id": {
                "type": "string",
                "description": "The id in the stub, such as r3.9f3c2a."
            },
            "byte_range": {
                "type": "array",
                "description": "Optional half-open byte range [start, end) of the original, in bytes; omit for the whole original.",
                "items": {"type": "integer", "minimum": 0},
                "minItems": 2,
                "maxItems": 2
            }
        },
        "required": ["reduction_id"],
        "additionalProperties": false
    })
}

/// The parameter schema of `sidecar_search`.
fn search_schema() -> Value {
    json!({
        "$schema": SCHEMA_DRAFT,
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What to find in the hidden content: a regular expression or literal text."
            },
            "mode": {
                "type": "string",
                "enum": ["literal", "regex"],
                "description": "Read the query as literal text or as a regular expression; omit to decide from the query."
            }
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

/// The two tool definitions in `format`, `expand_reduction` first.
pub fn tool_definitions(format: ToolFormat) -> Vec<Value> {
    [
        (EXPAND_REDUCTION, EXPAND_DESCRIPTION, expand_schema()),
        (SIDECAR_SEARCH, SEARCH_DESCRIPTION, search_schema()),
    ]
    .into_iter()
    .map(|(name, description, schema)| definition(format, name, description, schema))
    .collect()
}

/// The tools to advertise: both definitions when a reduction policy is active, none otherwise
/// (without reductions there is nothing to expand or search; SPEC seed 000 rule 24).
pub fn advertised_tools(policy_active: bool, format: ToolFormat) -> Vec<Value> {
    if policy_active {
        tool_definitions(format)
    } else {
        Vec::new()
    }
}
