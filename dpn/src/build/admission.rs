//! Which big bands the workers may hold at once. A band too big to keep whole is walked,
//! sorted and resolved by its worker while the assembly works through it, chunk by chunk;
//! two such bands on two workers at once (a nest's first and last bands, which no other
//! repeats) hold twice the memory. A worker takes a big band only while the big bands held
//! with it stay within a budget of instances, or when it comes before all of them: the
//! assembly takes bands in σ order, so the first band held or wanted always goes ahead, and
//! no worker waits for a band that waits for it.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};

/// The big bands held, and a budget for them.
pub(super) struct Admission {
    held: Mutex<Held>,
    freed: Condvar,
    /// Instances the big bands held together may have (one band may be bigger alone).
    budget: usize,
}

#[derive(Default)]
struct Held {
    /// Band number (over all nests, in σ order) → instances.
    bands: BTreeMap<usize, usize>,
    /// The assembly has stopped: nobody waits any more.
    closed: bool,
}

impl Admission {
    pub(super) fn new(budget: usize) -> Admission {
        Admission { held: Mutex::default(), freed: Condvar::new(), budget }
    }

    /// Waits until band `number` of `size` instances may be held, and holds it; `false` when
    /// the assembly has stopped.
    pub(super) fn admit(&self, number: usize, size: usize) -> bool {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if held.closed {
                return false;
            }
            let first = held.bands.keys().next().is_none_or(|&h| number < h);
            let total: usize = held.bands.values().sum();
            if first || total + size <= self.budget {
                held.bands.insert(number, size);
                return true;
            }
            held = self.freed.wait(held).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Band `number` is no longer held (a no-op if it was not).
    pub(super) fn release(&self, number: usize) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if held.bands.remove(&number).is_some() {
            self.freed.notify_all();
        }
    }

    /// The assembly has stopped: wakes every worker waiting to hold a band.
    pub(super) fn close(&self) {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        self.freed.notify_all();
    }

    /// Closes when dropped (however the assembly returns).
    pub(super) fn closing(&self) -> Closing<'_> {
        Closing(self)
    }
}

/// See [`Admission::closing`].
pub(super) struct Closing<'a>(&'a Admission);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_band_goes_ahead_of_the_budget() {
        let a = Admission::new(10);
        assert!(a.admit(5, 8));
        // Band 3 comes before band 5: it may not wait for it.
        assert!(a.admit(3, 8));
        std::thread::scope(|s| {
            // Band 7 does not fit beside them and comes after them: it waits for a release.
            let waiter = s.spawn(|| a.admit(7, 4));
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!waiter.is_finished());
            a.release(3);
            a.release(5);
            assert!(waiter.join().unwrap());
        });
        a.close();
        assert!(!a.admit(9, 20));
    }
}
