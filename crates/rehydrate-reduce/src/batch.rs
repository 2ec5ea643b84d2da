//! `map_batch`: a function over the messages of a batch, on several threads when the batch
//! is large (a whole session at once), in order.

use crate::digests::PARALLEL_HASH_MIN_BYTES;

/// `f(i)` for every `i` in `0..len`, in order. When `weight` (the bytes `f(i)` reads) adds up
/// to more than [`PARALLEL_HASH_MIN_BYTES`], the indices are cut into runs of about equal
/// weight, one per thread (at most 8); a turn stays on the calling thread. The result does not
/// depend on the number of threads.
pub(crate) fn map_batch<T: Send>(
    len: usize,
    weight: impl Fn(usize) -> usize,
    f: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    let bytes: usize = (0..len).map(&weight).sum();
    if bytes < PARALLEL_HASH_MIN_BYTES {
        return (0..len).map(f).collect();
    }
    // Asked only for a large batch: on Linux it reads the cgroup's CPU quota, which costs
    // more than a turn's work.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if threads == 1 {
        return (0..len).map(f).collect();
    }
    let per_thread = bytes.div_ceil(threads);
    let mut runs = Vec::with_capacity(threads);
    let (mut start, mut acc) = (0, 0);
    for i in 0..len {
        acc += weight(i);
        if acc >= per_thread {
            runs.push(start..i + 1);
            (start, acc) = (i + 1, 0);
        }
    }
    runs.push(start..len);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .into_iter()
            .map(|run| scope.spawn(move || run.map(f).collect::<Vec<T>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a batch function does not panic"))
            .collect()
    })
}
