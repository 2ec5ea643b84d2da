//! o200k_base token counts of messages, as `rehydrate reduce` reports them (`tokens_before` and
//! `tokens_after` of `reduce --json`): the tokens of each message's wire form
//! ([`Message::write_wire`]) with bpe-openai, summed per message, an inline image counted as
//! OpenAI bills it (`rehydrate_sidecar::image_tokens`, from the pixel size in its header) with
//! its data left out of the text.
//!
//! This is the CLI's `tokens.rs` rule, restated here because the CLI is a binary (one thread,
//! the same counts; docs/BENCHMARKS.md, "Economy details", says how they were compared).

use std::collections::HashMap;

use rehydrate_formats::Api;
use rehydrate_model::{Content, Message};
use rehydrate_sidecar::{image_data, image_size, image_tokens, strip_image_data};

/// Counts o200k_base tokens of message wire forms, remembering the count of every wire form it
/// has seen (a view shares most of its messages with its history).
pub struct TokenCounter {
    bpe: &'static bpe_openai::Tokenizer,
    /// Tokens of each wire form counted so far, by its bytes.
    counted: HashMap<Vec<u8>, usize>,
}

impl Default for TokenCounter {
    fn default() -> Self {
        TokenCounter::new()
    }
}

impl TokenCounter {
    /// A counter with nothing counted yet (the o200k_base tables are built on first use).
    pub fn new() -> TokenCounter {
        TokenCounter {
            bpe: bpe_openai::o200k_base(),
            counted: HashMap::new(),
        }
    }

    /// Tokens of the wire forms of `messages`, summed per message.
    pub fn count<'a>(&mut self, messages: impl IntoIterator<Item = &'a Message>) -> usize {
        let mut total = 0;
        for message in messages {
            let mut wire = Vec::with_capacity(message.wire_len());
            message.write_wire(&mut wire);
            total += match self.counted.get(&wire) {
                Some(&tokens) => tokens,
                None => {
                    let tokens = message_tokens(self.bpe, message);
                    self.counted.insert(wire, tokens);
                    tokens
                }
            };
        }
        total
    }
}

/// The tokens of one message: of its wire form, where each inline image whose pixel size its
/// header gives is counted by [`image_tokens`] instead of as text. An image whose size cannot
/// be read is counted as the text it is.
fn message_tokens(bpe: &bpe_openai::Tokenizer, message: &Message) -> usize {
    let text = |m: &Message| bpe.count(m.wire_json().as_str());
    let sized: Vec<(usize, usize)> = match &message.content {
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
        return text(message);
    }
    let mut stripped = message.clone();
    if let Some(Content::Parts(parts)) = &mut stripped.content {
        for &(i, _) in &sized {
            strip_image_data(&mut parts[i]);
        }
    }
    text(&stripped) + sized.iter().map(|&(_, tokens)| tokens).sum::<usize>()
}
