//! Work on large inputs spread over a few threads, with results in input order (so they do
//! not depend on the number of threads).

use std::ops::Range;

/// Below this many bytes of work, everything runs on the calling thread (4 MiB): starting
/// threads costs tens of microseconds.
pub(crate) const PARALLEL_MIN_BYTES: usize = 4 << 20;

/// The most threads used.
const MAX_THREADS: usize = 8;

/// Splits `items` into consecutive chunks of about equal `weight` (in bytes), one per available
/// thread (at most 8), and returns `f(offset, chunk)` for each chunk in order, where `offset`
/// is the chunk's position in `items`. The first chunk runs on the calling thread. Below
/// [`PARALLEL_MIN_BYTES`] of total weight, or with one thread available, it is
/// `vec![f(0, items)]`.
pub(crate) fn map_chunks<'a, T, R, F>(items: &'a [T], weight: impl Fn(&T) -> usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &'a [T]) -> R + Sync,
{
    // Saturating: weights may come from untrusted sizes.
    let total = items
        .iter()
        .fold(0_usize, |sum, item| sum.saturating_add(weight(item)));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS));
    if total < PARALLEL_MIN_BYTES || threads == 1 || items.len() < 2 {
        return vec![f(0, items)];
    }
    let per_thread = total.div_ceil(threads);
    let mut chunks: Vec<Range<usize>> = Vec::with_capacity(threads);
    let (mut start, mut acc) = (0, 0_usize);
    for (i, item) in items.iter().enumerate() {
        acc = acc.saturating_add(weight(item));
        if acc >= per_thread && i + 1 < items.len() {
            chunks.push(start..i + 1);
            (start, acc) = (i + 1, 0);
        }
    }
    chunks.push(start..items.len());
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks[1..]
            .iter()
            .map(|r| {
                let r = r.clone();
                scope.spawn(move || f(r.start, &items[r]))
            })
            .collect();
        let first = chunks[0].clone();
        let mut out = Vec::with_capacity(chunks.len());
        out.push(f(first.start, &items[first]));
        for handle in handles {
            out.push(
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        out
    })
}
