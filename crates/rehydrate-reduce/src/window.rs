//! A protected window over a growing list of messages of one sort (assistant messages with
//! text, assistant messages making tool calls): the newest few are protected, each older one is
//! decided once when it leaves the window, and one inside the cleared range then is skipped
//! until the range shrinks.

/// A message of the list: its history index, and whether it was left inside the cleared range
/// instead of being decided.
#[derive(Debug, Clone, Copy)]
struct Entry {
    index: usize,
    skipped: bool,
}

/// The messages of one sort in history order, and how many of them have left the window.
#[derive(Debug, Clone, Default)]
pub(crate) struct Window {
    entries: Vec<Entry>,
    /// How many of `entries` have left the window (decided or skipped).
    decided: usize,
}

impl Window {
    /// Takes the message at history `index`, the newest of the list.
    pub(crate) fn push(&mut self, index: usize) {
        self.entries.push(Entry {
            index,
            skipped: false,
        });
    }

    /// The history indices to decide now, in history order: when `unhidden` (the cleared
    /// range shrank), those skipped earlier that `cleared` no longer holds, then those leaving
    /// the window of the newest `protect` messages; one of these that `cleared` holds is
    /// skipped instead. Each index is returned once in the window's life.
    pub(crate) fn leaving(
        &mut self,
        protect: usize,
        unhidden: bool,
        cleared: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        let mut out = Vec::new();
        if unhidden {
            for e in &mut self.entries[..self.decided] {
                if e.skipped && !cleared(e.index) {
                    e.skipped = false;
                    out.push(e.index);
                }
            }
        }
        let protected = self.entries.len().saturating_sub(protect);
        for e in self.entries.iter_mut().take(protected).skip(self.decided) {
            if cleared(e.index) {
                e.skipped = true;
            } else {
                out.push(e.index);
            }
        }
        self.decided = self.decided.max(protected);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Window;

    #[test]
    fn each_message_leaves_once_and_a_skipped_one_when_the_range_shrinks() {
        let mut w = Window::default();
        for index in [2, 5, 8, 11] {
            w.push(index);
        }
        // Newest 2 protected: 2 and 5 leave; 5 is inside the cleared range, so skipped.
        assert_eq!(w.leaving(2, false, |i| i == 5), vec![2]);
        // Nothing new leaves, and without `unhidden` the skipped one waits.
        assert_eq!(w.leaving(2, false, |_| false), Vec::<usize>::new());
        w.push(14);
        // The range shrank: 5 first, then 8 leaving now.
        assert_eq!(w.leaving(2, true, |_| false), vec![5, 8]);
        assert_eq!(w.leaving(0, true, |_| false), vec![11, 14]);
        assert_eq!(w.leaving(0, true, |_| false), Vec::<usize>::new());
    }
}
