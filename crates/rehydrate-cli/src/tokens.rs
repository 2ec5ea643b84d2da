//! Token counts with the real `o200k_base` tokenizer (tiktoken-rs).

use rehydrate_model::Message;

use crate::failure::{Failure, input};

/// Counts `o200k_base` tokens of message wire forms.
pub(crate) struct TokenCounter {
    bpe: tiktoken_rs::CoreBPE,
}

impl TokenCounter {
    pub(crate) fn new() -> Result<TokenCounter, Failure> {
        let bpe = tiktoken_rs::o200k_base()
            .map_err(|e| input(format!("cannot load the o200k_base tokenizer: {e}")))?;
        Ok(TokenCounter { bpe })
    }

    /// Tokens of the wire forms of `messages` ([`Message::write_wire`]), summed per message.
    /// Messages are counted on all available cores.
    pub(crate) fn count(&self, messages: &[Message]) -> usize {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8);
        let chunk = messages.len().div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            let handles: Vec<_> = messages
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || part.iter().map(|m| self.count_one(m)).sum::<usize>())
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("token counting does not panic"))
                .sum()
        })
    }

    fn count_one(&self, message: &Message) -> usize {
        self.bpe.encode_ordinary(&message.wire_json()).len()
    }
}
