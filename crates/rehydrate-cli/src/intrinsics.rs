//! `rehydrate tools` and `rehydrate call`: the agent intrinsics from the command line, for a
//! host that runs the binary instead of linking the library (docs/FORMATS.md, "Agent
//! intrinsics").

use std::path::Path;

use rehydrate::intrinsics::{CallContext, Intrinsics, ToolFormat, tool_definitions};
use rehydrate::sidecar::Sources;
use rehydrate::store::SessionDir;

use crate::failure::Failure;
use crate::output::print_stdout;

/// Prints both tool definitions in `format` as a pretty JSON array and a line break.
pub(crate) fn tools(format: ToolFormat) -> Result<(), Failure> {
    let mut bytes =
        serde_json::to_vec_pretty(&tool_definitions(format)).expect("JSON values serialize");
    bytes.push(b'\n');
    print_stdout(&bytes)
}

/// Answers one call of `tool` with `arguments` against the directory: the tool result's
/// content on stdout, byte for byte what the model is sent (no line break added), and
/// [`Failure::ToolError`] (exit 1, nothing on stderr) when it is a tool error. A directory
/// that cannot be read or differs from its manifest fails as for `expand`.
pub(crate) fn call(dir: &Path, tool: &str, arguments: &str) -> Result<(), Failure> {
    let loaded = SessionDir::open(dir)?;
    loaded.refuse_mismatched()?;
    let context = CallContext {
        log: &loaded.log,
        sources: Sources::minted(&loaded.sidecar),
    };
    let result = Intrinsics::call(tool, arguments, &context);
    print_stdout(result.content.as_bytes())?;
    if result.is_error {
        Err(Failure::ToolError)
    } else {
        Ok(())
    }
}
