//! Canonical JSONL: one canonical message (docs/FORMATS.md, "Canonical message") per line,
//! metadata and details included, each line ended by `\n`; the lossless record of a session.

use std::borrow::Borrow;

use rehydrate_model::Message;

/// Canonical JSONL of `messages`: each message's canonical serde form, then `\n`.
pub(crate) fn write_jsonl<M: Borrow<Message>>(messages: &[M]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        serde_json::to_writer(&mut out, m.borrow())
            .expect("a message serializes: string keys only, and a Vec cannot fail to grow");
        out.push(b'\n');
    }
    out
}
