//! Agent intrinsics: the tool definitions and dispatch that let a model undo a reduction
//! mid-flight, `expand_reduction` and `sidecar_search` (SPEC seed 000 rules 24-26).
//!
//! # Where to start
//!
//! - [`tool_definitions`] gives both tool definitions in a [`ToolFormat`] (OpenAI or Anthropic).
//! - [`advertised_tools`] gives them only while a reduction policy is active.
//! - [`Intrinsics::call`] answers one of the model's calls with a [`ToolResult`].
//! - [`EXPAND_REDUCTION`] and [`SIDECAR_SEARCH`] are the tool names a host routes calls by;
//!   [`LIST_REDUCTIONS`] ([`list_reductions_definition`]) is a third, for a model that may see
//!   no stub (the MCP server advertises it).
//!
//! A framework adopting rehydrate advertises [`tool_definitions`] (OpenAI or Anthropic shape)
//! while a reduction policy is active ([`advertised_tools`]), and answers each of the model's
//! calls with [`Intrinsics::call`], which validates the arguments strictly and returns an
//! ordinary tool result, or a tool error the model can read and retry from. An expansion is an
//! ordinary tool result: once it ages out of the protected window the reducer may reduce it
//! again like any other output; nothing here writes stub text.
//!
//! # Example
//!
//! ```
//! use rehydrate_intrinsics::{CallContext, Intrinsics, ToolFormat, advertised_tools};
//! use rehydrate_model::{Message, ReductionLog};
//!
//! assert_eq!(advertised_tools(true, ToolFormat::Anthropic).len(), 2);
//! let minted = vec![Message::tool_result("c1", "hello")];
//! let log = ReductionLog::default();
//! let out = Intrinsics::call("expand_reduction", r#"{"reduction_id":"r0.abcdef"}"#, &CallContext::new(&log, &minted));
//! assert!(out.is_error);
//! assert_eq!(out.content, "Error: expand_reduction: no reduction with id `r0.abcdef`; valid ids: (none)");
//! ```
//!
//! # Untrusted input
//!
//! Arguments come from a model: any text gives a tool result or a tool error, never a panic.

#![forbid(unsafe_code)]

mod call;
mod tools;

pub use call::{CallContext, Intrinsics, ToolResult};
pub use tools::{
    EXPAND_REDUCTION, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, LIST_REDUCTIONS, LIST_SUMMARY_MAX_BYTES,
    SCHEMA_DRAFT, SIDECAR_SEARCH, ToolFormat, advertised_tools, list_reductions_definition,
    tool_definitions,
};
