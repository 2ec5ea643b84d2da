//! The digests of tool-result texts, each distinct text hashed once.
//!
//! Agent sessions repeat outputs (a file read twice, the same failing test run again). A
//! repeated text has the digest of its first occurrence, so instead of hashing it again it is
//! found by a fingerprint (its length and a few sampled bytes) and confirmed by comparing the
//! bytes, which runs several times faster than blake3. A text whose fingerprint matches a
//! different text is simply hashed. Each text is compared with at most one earlier text, so the
//! work stays linear in the new bytes.

use std::collections::HashMap;

use rehydrate_model::{Digest, Message};
use rehydrate_sidecar::content_digest;

use crate::batch::map_batch;

/// New tool results holding more text than this many bytes in one [`crate::Reducer::project`]
/// call are hashed on several threads. 4 MiB.
pub const PARALLEL_HASH_MIN_BYTES: usize = 4 << 20;

/// The first occurrence of each distinct tool-result text seen so far, by fingerprint.
#[derive(Debug, Clone, Default)]
pub(crate) struct DigestCache {
    /// Fingerprint → history index of the first text with it, and that text's digest.
    first: HashMap<Fingerprint, (usize, Digest)>,
}

/// A text's length and a mix of up to 24 sampled bytes (start, middle, end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Fingerprint {
    len: usize,
    sample: u64,
}

impl Fingerprint {
    fn of(text: &[u8]) -> Fingerprint {
        let word = |at: usize| {
            let mut w = [0u8; 8];
            let end = (at + 8).min(text.len());
            w[..end - at].copy_from_slice(&text[at..end]);
            u64::from_le_bytes(w)
        };
        let n = text.len();
        let (a, b, c) = (word(0), word(n / 2), word(n.saturating_sub(8)));
        let sample = a ^ b.rotate_left(21).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ c.rotate_left(42);
        Fingerprint { len: n, sample }
    }
}

/// Where a new tool result's digest comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// Not a tool result with text.
    None,
    /// To be hashed.
    Hash,
    /// The same bytes as the tool result at this history index.
    Same(usize),
    /// Known already.
    Known(Digest),
}

fn tool_text(m: &Message) -> Option<&str> {
    m.content_text().filter(|_| m.is_tool_result())
}

impl DigestCache {
    /// Reserves room for `additional` more distinct texts.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.first.reserve(additional);
    }

    /// The digest of each message of `new` that is a tool result with text (`None` for the
    /// others), where `new[k]` will get history index `history.len() + k`. Texts seen before
    /// (in `history` or earlier in `new`) take the digest of their first occurrence; the others
    /// are hashed, on up to 8 threads when they hold more than [`PARALLEL_HASH_MIN_BYTES`].
    pub(crate) fn digests(&mut self, history: &[Message], new: &[Message]) -> Vec<Option<Digest>> {
        let base = history.len();
        let text_at = |index: usize| {
            let m = if index < base {
                history.get(index)
            } else {
                new.get(index - base)
            };
            m.and_then(tool_text)
        };
        // Batch-internal first occurrences, digest not known yet: fingerprint → index.
        let mut pending: HashMap<Fingerprint, usize> = HashMap::new();
        let mut sources: Vec<Source> = Vec::with_capacity(new.len());
        for (k, m) in new.iter().enumerate() {
            let Some(text) = tool_text(m) else {
                sources.push(Source::None);
                continue;
            };
            let fp = Fingerprint::of(text.as_bytes());
            let source = if let Some(&(j, digest)) = self.first.get(&fp) {
                if text_at(j) == Some(text) {
                    Source::Known(digest)
                } else {
                    Source::Hash
                }
            } else if let Some(&j) = pending.get(&fp) {
                if text_at(j) == Some(text) {
                    Source::Same(j)
                } else {
                    Source::Hash
                }
            } else {
                pending.insert(fp, base + k);
                Source::Hash
            };
            sources.push(source);
        }
        let hashed = hash_marked(new, &sources);
        let mut out: Vec<Option<Digest>> = Vec::with_capacity(new.len());
        for (k, source) in sources.iter().enumerate() {
            let digest = match *source {
                Source::None => None,
                Source::Hash => hashed[k],
                Source::Known(d) => Some(d),
                Source::Same(j) => out[j - base],
            };
            out.push(digest);
        }
        for (fp, index) in pending {
            if let Some(digest) = out[index - base] {
                self.first.insert(fp, (index, digest));
            }
        }
        out
    }
}

/// blake3 of the texts of `messages` whose source is [`Source::Hash`] (`None` elsewhere),
/// on several threads when their total size is large ([`crate::batch::map_batch`]).
fn hash_marked(messages: &[Message], sources: &[Source]) -> Vec<Option<Digest>> {
    let marked = |i: usize| {
        matches!(sources[i], Source::Hash)
            .then(|| tool_text(&messages[i]))
            .flatten()
    };
    map_batch(
        messages.len(),
        |i| marked(i).map_or(0, str::len),
        |i| marked(i).map(|t| content_digest(t.as_bytes())),
    )
}
