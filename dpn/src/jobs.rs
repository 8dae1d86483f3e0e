//! Independent jobs on worker threads, each thread with state of its own (an isl context:
//! one must not be shared between threads), the results in job order whichever thread ran
//! each, so that what the caller builds from them does not depend on the threads.

use crate::Error;
use isl_rs::{Context, UnionMap, UnionSet};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `run(&state, j)` for every job `j` in `0..n`, on up to `max_threads` threads (one per
/// core) that each make their `state()` and take the next job as they finish one; after each,
/// `done` hears how many of the `n` jobs have finished. The results in job order, or the
/// error of the first job that failed.
pub(crate) fn in_order<S, T: Send>(
    n: usize,
    max_threads: usize,
    state: impl Fn() -> S + Sync,
    run: impl Fn(&S, usize) -> Result<T, Error> + Sync,
    done: impl Fn(usize, usize) + Sync,
) -> Result<Vec<T>, Error> {
    let threads = std::thread::available_parallelism().map_or(1, |c| c.get()).clamp(1, max_threads).min(n.max(1));
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let work = || {
        let s = state();
        let mut results = Vec::new();
        loop {
            let j = next.fetch_add(1, Ordering::Relaxed);
            if j >= n {
                return results;
            }
            results.push((j, run(&s, j)));
            done(finished.fetch_add(1, Ordering::Relaxed) + 1, n);
        }
    };
    let per_thread: Vec<Vec<(usize, Result<T, Error>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let mut results: Vec<Option<Result<T, Error>>> = (0..n).map(|_| None).collect();
    for (j, r) in per_thread.into_iter().flatten() {
        results[j] = Some(r);
    }
    results.into_iter().map(|r| r.unwrap_or_else(|| Err(Error::internal("a worker thread panicked")))).collect()
}

/// An isl object that [`shared`] hands out copies of.
pub(crate) trait IslCopy: Sized {
    fn isl_copy(&self) -> Result<Self, isl_rs::LibISLError>;
}

impl IslCopy for UnionMap {
    fn isl_copy(&self) -> Result<Self, isl_rs::LibISLError> {
        self.copy()
    }
}

impl IslCopy for UnionSet {
    fn isl_copy(&self) -> Result<Self, isl_rs::LibISLError> {
        self.copy()
    }
}

/// Entry `key` of `table`, what a thread's jobs share (a relation many channels need), made
/// by `make` the first time. isl's operation budget restarts after it either way, so a job
/// is allowed the same work whether or not its thread made the entry for an earlier one
/// (and `make` gets a budget of its own): what fits the budget does not depend on the
/// threads.
pub(crate) fn shared<K: std::hash::Hash + Eq, T: IslCopy>(
    isl: &Context,
    table: &mut HashMap<K, T>,
    key: K,
    make: impl FnOnce() -> Result<T, Error>,
) -> Result<T, Error> {
    let entry = match table.entry(key) {
        std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
        std::collections::hash_map::Entry::Vacant(v) => {
            isl.reset_operations();
            v.insert(make()?)
        }
    };
    let copy = entry.isl_copy().map_err(|e| Error::internal(format!("isl failed to copy a shared relation: {e}")))?;
    isl.reset_operations();
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn results_come_in_job_order_and_every_finish_is_heard_once() {
        let heard = Mutex::new(Vec::new());
        let squares = in_order(50, 4, || 7, |seven, j| Ok(j * j + seven), |done, of| heard.lock().unwrap().push((done, of))).unwrap();
        assert_eq!(squares, (0..50).map(|j| j * j + 7).collect::<Vec<_>>());
        let mut heard = heard.into_inner().unwrap();
        heard.sort();
        assert_eq!(heard, (1..=50).map(|d| (d, 50)).collect::<Vec<_>>());
    }
}
