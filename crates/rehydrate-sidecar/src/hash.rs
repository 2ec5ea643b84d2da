//! The hashed bytes: blake3 over exact original content or over wire forms of whole messages.

use rehydrate_model::{Digest, Message};

/// blake3 of `bytes`: the digest of a tool result's exact content (UTF-8 bytes of the text).
pub fn content_digest(bytes: &[u8]) -> Digest {
    Digest(*blake3::hash(bytes).as_bytes())
}

/// blake3 over the wire forms of `messages` ([`Message::write_wire`]), each followed by one
/// `\n`, and the number of bytes hashed. This is the digest of a turns-cleared range.
pub fn turns_digest(messages: &[Message]) -> (Digest, usize) {
    let mut hasher = TurnsHasher::new();
    for m in messages {
        hasher.update(m);
    }
    hasher.finish()
}

/// [`turns_digest`] one message at a time, for a range that grows: feeding messages
/// `a..=b` and then `b + 1..=c` gives the digest of `a..=c` without hashing `a..=b` again.
///
/// # Example
///
/// ```
/// use rehydrate_model::{Message, Role};
/// use rehydrate_sidecar::{TurnsHasher, turns_digest};
///
/// let messages = [Message::text(Role::User, "a"), Message::text(Role::Assistant, "b")];
/// let mut hasher = TurnsHasher::new();
/// hasher.update(&messages[0]);
/// assert_eq!(hasher.finish(), turns_digest(&messages[..1]));
/// hasher.update(&messages[1]);
/// assert_eq!(hasher.finish(), turns_digest(&messages));
/// ```
#[derive(Debug, Clone, Default)]
pub struct TurnsHasher {
    hasher: blake3::Hasher,
    hashed_bytes: usize,
    /// Scratch space for one message's wire form.
    buf: Vec<u8>,
}

impl TurnsHasher {
    /// A hasher over no message.
    pub fn new() -> TurnsHasher {
        TurnsHasher::default()
    }

    /// Hashes the wire form of the next message of the range and its line break.
    pub fn update(&mut self, message: &Message) {
        self.buf.clear();
        message.write_wire(&mut self.buf);
        self.buf.push(b'\n');
        self.hasher.update(&self.buf);
        self.hashed_bytes += self.buf.len();
    }

    /// The digest of the messages fed so far and the number of bytes hashed (wire bytes plus
    /// one line break per message), as [`turns_digest`] gives them. Does not reset the hasher.
    pub fn finish(&self) -> (Digest, usize) {
        (
            Digest(*self.hasher.finalize().as_bytes()),
            self.hashed_bytes,
        )
    }
}
