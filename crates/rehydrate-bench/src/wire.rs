//! The typed form of an OpenAI chat-completions message that the CLI bench's baseline parses:
//! the cost of merely reading a session file with `serde_json`.

use serde::Deserialize;

/// One message as the OpenAI chat-completions wire form has it: string fields, JSON values for
/// content (text or parts) and tool-call arguments. Unknown keys are ignored.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WireMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// A string, or an array of content parts; absent for a message that only calls tools.
    #[serde(default)]
    pub content: Option<serde_json::Value>,
    /// The tool calls of an assistant message.
    #[serde(default)]
    pub tool_calls: Vec<WireToolCall>,
    /// On a tool result: the id of the call it answers.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// An optional participant or tool name.
    #[serde(default)]
    pub name: Option<String>,
}

/// One tool call of a [`WireMessage`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WireToolCall {
    /// The call id.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function called.
    pub function: WireFunction,
}

/// The function of a [`WireToolCall`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WireFunction {
    /// The tool's name.
    pub name: String,
    /// The arguments (on the wire, a JSON string holding JSON text).
    pub arguments: serde_json::Value,
}

/// Parses a whole OpenAI messages array, as the CLI bench's baseline does.
///
/// # Errors
///
/// The `serde_json` error when `bytes` is not such an array.
pub fn parse_messages(bytes: &[u8]) -> Result<Vec<WireMessage>, serde_json::Error> {
    serde_json::from_slice(bytes)
}
