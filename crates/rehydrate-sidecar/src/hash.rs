//! The hashed bytes: blake3 over exact original content or over wire forms of whole messages.

use rehydrate_model::{Digest, Message};

/// blake3 of `bytes`: the digest of a tool result's exact content (UTF-8 bytes of the text).
pub fn content_digest(bytes: &[u8]) -> Digest {
    Digest(*blake3::hash(bytes).as_bytes())
}

/// blake3 over the wire forms of `messages` ([`Message::write_wire`]), each followed by one
/// `\n`, and the number of bytes hashed. This is the digest of a turns-cleared range.
pub fn turns_digest(messages: &[Message]) -> (Digest, usize) {
    let mut hasher = blake3::Hasher::new();
    let mut buf = Vec::new();
    let mut total = 0;
    for m in messages {
        buf.clear();
        m.write_wire(&mut buf);
        buf.push(b'\n');
        hasher.update(&buf);
        total += buf.len();
    }
    (Digest(*hasher.finalize().as_bytes()), total)
}
