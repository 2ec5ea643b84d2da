//! Stripping reasoning artifacts before history goes to another model (SPEC seed 000 rules
//! 22-23).

use crate::message::{Content, Message};

/// The metadata key of an assistant message's thinking text (Anthropic `thinking` blocks,
/// several joined with `\n\n`; docs/FORMATS.md, "Anthropic Messages body").
pub const THINKING_METADATA_KEY: &str = "thinking";
/// The metadata key of the signatures of those thinking blocks, one per line.
pub const THINKING_SIGNATURE_METADATA_KEY: &str = "thinking_signature";
/// The metadata key of an assistant message's `redacted_thinking` data, one block per line.
pub const REDACTED_THINKING_METADATA_KEY: &str = "redacted_thinking";

/// `metadata` keys that carry a model's private reasoning (importers put thinking blocks and
/// their signatures here).
pub const REASONING_METADATA_KEYS: [&str; 8] = [
    THINKING_METADATA_KEY,
    THINKING_SIGNATURE_METADATA_KEY,
    REDACTED_THINKING_METADATA_KEY,
    "reasoning",
    "reasoning_content",
    "reasoning_encrypted",
    "thinking_blocks",
    "thought_signature",
];

/// Content-part `"type"` values that carry reasoning as model-visible content.
pub const REASONING_CONTENT_PART_TYPES: [&str; 3] = ["thinking", "reasoning", "redacted_thinking"];

/// Removes every reasoning artifact from `history` in place and returns how many messages
/// changed.
///
/// Per message: each key of [`REASONING_METADATA_KEYS`] is removed from `metadata`; content
/// parts whose `"type"` is a string in [`REASONING_CONTENT_PART_TYPES`] are dropped (parts with
/// no `type`, or a non-string one, stay; survivors keep their order). A message counts once if
/// at least one key or part was removed; a message with nothing to remove is not touched.
/// SPEC seed 000 rules 22-23.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, Role, filter_reasoning_artifacts};
///
/// let mut msg = Message::text(Role::Assistant, "done");
/// msg.metadata.insert("thinking".into(), "private".into());
/// let mut history = vec![msg, Message::text(Role::User, "thanks")];
/// assert_eq!(filter_reasoning_artifacts(&mut history), 1);
/// assert!(history[0].metadata.is_empty());
/// ```
pub fn filter_reasoning_artifacts(history: &mut [Message]) -> usize {
    let mut touched = 0;
    for msg in history.iter_mut() {
        let mut changed = false;
        for key in REASONING_METADATA_KEYS {
            changed |= msg.metadata.remove(key).is_some();
        }
        if let Some(Content::Parts(parts)) = &mut msg.content {
            let before = parts.len();
            parts.retain(|p| {
                let kind = p.get("type").and_then(serde_json::Value::as_str);
                !kind.is_some_and(|k| REASONING_CONTENT_PART_TYPES.contains(&k))
            });
            changed |= parts.len() != before;
        }
        touched += usize::from(changed);
    }
    touched
}
