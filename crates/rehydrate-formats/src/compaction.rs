//! An agent's own compaction, as its importer marks it: the one place the other crates ask
//! whether a message holds a compaction summary, and read the summary's text.

use rehydrate_model::{Content, Message, Role};

use crate::keys;

/// Whether `message` is the user message an importer made from an agent's own compaction
/// summary: a Claude Code `isCompactSummary` record ([`keys::CLAUDE_CODE_COMPACT_SUMMARY`]) or
/// a Codex `compacted` record ([`keys::CODEX_COMPACTED`]), each marked `"true"`
/// (docs/FORMATS.md, "Agent compactions"). A message of another role never is.
pub fn is_compaction_summary(message: &Message) -> bool {
    message.role == Role::User
        && [keys::CLAUDE_CODE_COMPACT_SUMMARY, keys::CODEX_COMPACTED]
            .iter()
            .any(|key| message.metadata.get(*key).is_some_and(|v| v == "true"))
}

/// The text of a message as a compaction summary shows it: its text content, or the `text` of
/// its content parts that have one, joined with `\n`; empty without content.
pub fn summary_text(message: &Message) -> String {
    match &message.content {
        None => String::new(),
        Some(Content::Text(text)) => text.clone(),
        Some(Content::Parts(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(serde_json::Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}
