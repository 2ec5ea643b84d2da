//! Token counts with the real `o200k_base` tokenizer (bpe-openai: exact o200k_base counts in
//! linear time, so a megabyte-long run of one character costs milliseconds, not minutes).
//!
//! Tokenizing runs at a few MB/s, far slower than anything else rehydrate does, so each
//! distinct wire form is tokenized once: counts are remembered under the blake3 digest of the
//! wire bytes. Counting a view after its history then tokenizes only the stubs, and repeated
//! messages are tokenized once.
//!
//! An inline image is counted as OpenAI bills it (`rehydrate::sidecar::image_tokens`, high
//! detail, from the pixel size in its header), not as its base64 text: the message's text
//! around it is tokenized with the image's data left out (docs/FORMATS.md, "Images").

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use rehydrate::formats::Api;
use rehydrate::model::{Content, Message};
use rehydrate::sidecar::{image_data, image_size, image_tokens, strip_image_data};

/// Counts `o200k_base` tokens of message wire forms, remembering the count of every wire form
/// it has seen.
pub(crate) struct TokenCounter {
    bpe: &'static bpe_openai::Tokenizer,
    /// Tokens of each wire form counted so far, keyed by blake3 of its bytes.
    counted: HashMap<blake3::Hash, usize>,
}

impl TokenCounter {
    pub(crate) fn new() -> TokenCounter {
        TokenCounter {
            bpe: bpe_openai::o200k_base(),
            counted: HashMap::new(),
        }
    }

    /// Tokens of the wire forms of `messages` ([`Message::write_wire`]), summed per message.
    ///
    /// Wire forms are hashed on all available cores; then each wire form not seen before (by
    /// this call or an earlier one) is tokenized once, on all available cores.
    pub(crate) fn count<'a>(&mut self, messages: impl IntoIterator<Item = &'a Message>) -> usize {
        let messages: Vec<&Message> = messages.into_iter().collect();
        let digests = parallel_map(&messages, |m, wire| {
            m.write_wire(wire);
            blake3::hash(wire)
        });
        // The first message of each wire form that has no count yet.
        let mut todo: Vec<&Message> = Vec::new();
        let mut todo_digests = Vec::new();
        for (m, digest) in messages.iter().zip(&digests) {
            if let std::collections::hash_map::Entry::Vacant(e) = self.counted.entry(*digest) {
                // A placeholder, replaced below; it keeps a repeated wire form out of `todo`.
                e.insert(0);
                todo.push(m);
                todo_digests.push(*digest);
            }
        }
        let bpe = self.bpe;
        let counts = parallel_map(&todo, |m, wire| message_tokens(bpe, m, wire));
        self.counted.extend(todo_digests.into_iter().zip(counts));
        digests
            .iter()
            .map(|d| self.counted.get(d).copied().unwrap_or_default())
            .sum()
    }
}

/// The tokens of one message: of its wire form, where each inline image whose pixel size its
/// header gives is counted by [`image_tokens`] instead of as text. An image whose size cannot
/// be read is counted as the text it is.
fn message_tokens(bpe: &bpe_openai::Tokenizer, m: &Message, wire: &mut Vec<u8>) -> usize {
    let text = |wire: &[u8]| {
        bpe.count(std::str::from_utf8(wire).expect("the wire writer only emits UTF-8"))
    };
    let sized: Vec<(usize, usize)> = match &m.content {
        Some(Content::Parts(parts)) => parts
            .iter()
            .enumerate()
            .filter_map(|(i, part)| {
                let (w, h) = image_size(image_data(part)?.base64)?;
                Some((i, image_tokens(w, h, Api::OpenAi)))
            })
            .collect(),
        _ => Vec::new(),
    };
    if sized.is_empty() {
        m.write_wire(wire);
        return text(wire);
    }
    let mut stripped = m.clone();
    if let Some(Content::Parts(parts)) = &mut stripped.content {
        for &(i, _) in &sized {
            strip_image_data(&mut parts[i]);
        }
    }
    stripped.write_wire(wire);
    text(wire) + sized.iter().map(|&(_, tokens)| tokens).sum::<usize>()
}

/// `f` applied to every item, on up to 8 threads that take the next item as they become free
/// (message sizes vary by orders of magnitude), in item order. `f` gets an empty buffer to
/// write into, reused across the items of a thread.
fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T, &mut Vec<u8>) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
        .min(items.len());
    if threads <= 1 {
        let mut buf = Vec::new();
        return items
            .iter()
            .map(|item| {
                buf.clear();
                f(item, &mut buf)
            })
            .collect();
    }
    let next = AtomicUsize::new(0);
    let done: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut buf = Vec::new();
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return done;
                        };
                        buf.clear();
                        done.push((i, f(item, &mut buf)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("token counting does not panic"))
            .collect()
    });
    let mut all: Vec<(usize, R)> = done.into_iter().flatten().collect();
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}
