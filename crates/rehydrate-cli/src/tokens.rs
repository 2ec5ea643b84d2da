//! Token counts with the real `o200k_base` tokenizer (bpe-openai: exact o200k_base counts in
//! linear time, so a megabyte-long run of one character costs milliseconds, not minutes).

use rehydrate_model::Message;

/// Counts `o200k_base` tokens of message wire forms.
pub(crate) struct TokenCounter {
    bpe: &'static bpe_openai::Tokenizer,
}

impl TokenCounter {
    pub(crate) fn new() -> TokenCounter {
        TokenCounter {
            bpe: bpe_openai::o200k_base(),
        }
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
        self.bpe.count(&message.wire_json())
    }
}
