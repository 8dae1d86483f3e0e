//! A channel's events in one band, kept as arithmetic runs. Along a loop, the reads of one
//! port come at evenly spaced times, of evenly spaced values, by evenly spaced operations;
//! so do the writes they cause. A big band holds a hundred million events: stored one by
//! one they cost gigabytes, and a page fault per 4 KiB touched, where their runs take a
//! few megabytes. The replay expands one channel at a time (see `replay_channel`).

/// One read or write of a channel, at a time of σ.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub(super) struct Event {
    /// `2t + 1` for reads, `2t` for writes (writes first at equal times).
    pub key: u32,
    /// The operation's index in the consumer's trace counted from the band's first
    /// (reads), or for loaded writes the band-local value id (several loads can share a
    /// time: the order they were made in, which is their trace order, decides).
    pub op: u32,
    /// Band-local value id.
    pub vid: u32,
}

impl Event {
    fn step(self, d: Event, j: u32) -> Event {
        Event {
            key: self.key.wrapping_add(d.key.wrapping_mul(j)),
            op: self.op.wrapping_add(d.op.wrapping_mul(j)),
            vid: self.vid.wrapping_add(d.vid.wrapping_mul(j)),
        }
    }
    fn minus(self, o: Event) -> Event {
        Event { key: self.key.wrapping_sub(o.key), op: self.op.wrapping_sub(o.op), vid: self.vid.wrapping_sub(o.vid) }
    }
}

/// `len` events from `first`, each `step` (wrapping) past the one before.
#[derive(Clone, Copy)]
struct Run {
    first: Event,
    step: Event,
    len: u32,
}

impl Run {
    fn at(&self, j: u32) -> Event {
        self.first.step(self.step, j)
    }
}

/// Events in the order pushed, as runs: a push that continues the last run lengthens it.
#[derive(Default)]
pub(super) struct Events {
    runs: Vec<Run>,
    len: usize,
}

impl Events {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn clear(&mut self) {
        self.runs.clear();
        self.len = 0;
    }
    pub fn push(&mut self, e: Event) {
        self.len += 1;
        if let Some(r) = self.runs.last_mut() {
            // A run of one takes any second event: its step is then fixed.
            if r.len == 1 {
                r.step = e.minus(r.first);
                r.len = 2;
                return;
            }
            if r.len < u32::MAX && r.at(r.len) == e {
                r.len += 1;
                return;
            }
        }
        self.runs.push(Run { first: e, step: Event::default(), len: 1 });
    }
    /// `len` events from `first`, each `step` past the one before: as many [`Events::push`]es.
    pub fn push_run(&mut self, first: Event, step: Event, len: u32) {
        if len == 0 {
            return;
        }
        self.push(first);
        let more = len - 1;
        if more == 0 {
            return;
        }
        if let Some(r) = self.runs.last_mut().filter(|r| r.len.checked_add(more).is_some()) {
            // The last run ends with `first`: it goes on when its step is free or the same.
            if r.len == 1 || r.step == step {
                r.step = step;
                r.len += more;
                self.len += more as usize;
                return;
            }
        }
        self.len += more as usize;
        self.runs.push(Run { first: first.step(step, 1), step, len: more });
    }
    pub fn last(&self) -> Option<Event> {
        self.runs.last().map(|r| r.at(r.len - 1))
    }
    /// Replaces the last event by `e`.
    pub fn replace_last(&mut self, e: Event) {
        if let Some(r) = self.runs.last_mut() {
            self.len -= 1;
            r.len -= 1;
            if r.len == 0 {
                self.runs.pop();
            }
        }
        self.push(e);
    }
    /// The lowest and highest value id of the events (`None`: there are none). Ids are
    /// far below 2^31, so a run's wrapping step is their true difference, and a run's
    /// extremes are its ends.
    pub fn vid_range(&self) -> Option<(u32, u32)> {
        let ends = self.runs.iter().map(|r| {
            let (a, b) = (r.first.vid, r.at(r.len - 1).vid);
            (a.min(b), a.max(b))
        });
        ends.reduce(|x, y| (x.0.min(y.0), x.1.max(y.1)))
    }
    /// The events, in the order pushed, appended to `out`.
    pub fn expand_into(&self, out: &mut Vec<Event>) {
        out.reserve(self.len);
        out.extend(self.iter());
    }
    /// The events in the order pushed, computed from their runs as they are asked for.
    pub fn iter(&self) -> Iter<'_> {
        Iter { runs: &self.runs, lo: 0, hi: self.runs.last().map_or(0, |r| r.len) }
    }
}

/// Every channel's events of a band as the assembly makes them: writes and reads apart
/// (each in σ order), and per channel the reads folded into the read after them.
pub(super) struct Log<'a> {
    pub writes: &'a mut Vec<Events>,
    pub reads: &'a mut Vec<Events>,
    pub again: &'a mut Vec<u64>,
}

impl Log<'_> {
    /// The event at time `t` of σ: a write, or a read by the band's operation `op` (a
    /// write's `op` orders loads at one time), of value `vid`.
    fn event(t: u64, write: bool, vid: usize, op: usize) -> Event {
        Event { key: (t << 1 | !write as u64) as u32, op: op as u32, vid: vid as u32 }
    }

    /// [`Log::event`] on channel `ch`.
    #[inline]
    pub fn push(&mut self, ch: usize, t: u64, write: bool, vid: usize, op: usize) {
        if self.writes.len() <= ch {
            self.writes.resize_with(ch + 1, Events::default);
            self.reads.resize_with(ch + 1, Events::default);
            self.again.resize(self.again.len().max(ch + 1), 0);
        }
        let e = Log::event(t, write, vid, op);
        if write {
            self.writes[ch].push(e);
            return;
        }
        let reads = &mut self.reads[ch];
        match reads.last() {
            // The value of the channel's last read, again (a scalar, a row along a loop
            // that does not move it): the replay needs only the latest of such reads (a
            // value's last read ends its life; the others change no count but reads).
            Some(last) if last.vid == e.vid => {
                reads.replace_last(e);
                self.again[ch] += 1;
            }
            _ => reads.push(e),
        }
    }

    /// `len` [`Log::push`]es from (`t`, `vid`, `op`), each a step of (`t.1`, `vid.1`, 1
    /// operation for a read) past the one before.
    pub fn push_run(&mut self, ch: usize, t: (u64, u64), write: bool, vid: (usize, i64), op: usize, len: u32) {
        if len == 0 {
            return;
        }
        self.push(ch, t.0, write, vid.0, op);
        let (e, step) = (Log::event(t.0, write, vid.0, op), Event { key: (t.1 << 1) as u32, op: !write as u32, vid: vid.1 as u32 });
        let events = if write { &mut self.writes[ch] } else { &mut self.reads[ch] };
        if len > 1 && vid.1 == 0 && !write {
            // The same value again: each read folds into the next.
            events.replace_last(e.step(step, len - 1));
            self.again[ch] += u64::from(len - 1);
        } else if len > 1 {
            events.push_run(e.step(step, 1), step, len - 1);
        }
    }
}

/// The events of [`Events::iter`] not yet taken from either end: the first run's from
/// `lo`, the last run's below `hi` (both of the one run when one is left).
#[derive(Clone)]
pub(super) struct Iter<'a> {
    runs: &'a [Run],
    lo: u32,
    hi: u32,
}

impl Iterator for Iter<'_> {
    type Item = Event;
    fn next(&mut self) -> Option<Event> {
        loop {
            let (r, rest) = self.runs.split_first()?;
            let end = if rest.is_empty() { self.hi } else { r.len };
            if self.lo < end {
                self.lo += 1;
                return Some(r.at(self.lo - 1));
            }
            (self.runs, self.lo) = (rest, 0);
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Event> {
        loop {
            let (r, rest) = self.runs.split_last()?;
            let start = if rest.is_empty() { self.lo } else { 0 };
            if self.hi > start {
                self.hi -= 1;
                return Some(r.at(self.hi));
            }
            (self.runs, self.hi) = (rest, rest.last().map_or(0, |r| r.len));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::xorshift;

    /// Pushes, runs of pushes and last-replacements give back exactly the sequence a plain
    /// vector would hold, whatever mix of runs and breaks (and wrapping steps) the events make.
    #[test]
    fn runs_expand_to_what_was_pushed() {
        let mut rnd = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200 {
            let (mut ev, mut plain) = (Events::default(), Vec::new());
            let mut e = Event { key: rnd(1000) as u32, op: rnd(10) as u32, vid: rnd(1 << 32) as u32 };
            let mut d = Event { key: 2, op: 1, vid: u32::MAX };
            for _ in 0..rnd(300) {
                match rnd(10) {
                    0 => d = Event { key: rnd(9) as u32, op: rnd(3) as u32, vid: rnd(1 << 32) as u32 },
                    1 if !plain.is_empty() => {
                        let last = plain.len() - 1;
                        plain[last] = e;
                        ev.replace_last(e);
                    }
                    2 => {
                        let len = rnd(20) as u32;
                        plain.extend((0..len).map(|j| e.step(d, j)));
                        ev.push_run(e, d, len);
                        e = e.step(d, len.saturating_sub(1));
                    }
                    _ => {
                        plain.push(e);
                        ev.push(e);
                    }
                }
                assert_eq!(ev.last(), plain.last().copied());
                e = e.step(d, 1);
            }
            let mut out = Vec::new();
            ev.expand_into(&mut out);
            assert_eq!(out, plain);
            assert!(ev.iter().rev().eq(plain.iter().rev().copied()));
            // Taken from both ends at once, the two meet without losing or repeating one.
            let (mut both, mut front, mut back) = (ev.iter(), Vec::new(), Vec::new());
            loop {
                let (end, taken) = if rnd(2) == 0 { (&mut front, both.next()) } else { (&mut back, both.next_back()) };
                let Some(e) = taken else { break };
                end.push(e);
            }
            front.extend(back.iter().rev());
            assert_eq!(front, plain);
            assert_eq!(ev.len(), plain.len());
        }
    }

    /// The value ids' range from the runs is the plain sequence's, for ids as a band has
    /// them (below 2^31), runs going up and down.
    #[test]
    fn vid_range_is_that_of_the_events() {
        let mut rnd = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..200 {
            let (mut ev, mut plain) = (Events::default(), Vec::new());
            let mut vid = rnd(1 << 30) as i64;
            let mut step = 0i64;
            for t in 0..rnd(300) {
                if rnd(8) == 0 {
                    step = rnd(2001) as i64 - 1000;
                }
                vid = (vid + step).clamp(0, (1 << 30) - 1);
                let e = Event { key: 2 * t as u32, op: 0, vid: vid as u32 };
                plain.push(e);
                ev.push(e);
            }
            let want = plain.iter().map(|e| e.vid).min().zip(plain.iter().map(|e| e.vid).max());
            assert_eq!(ev.vid_range(), want);
        }
    }

    /// A run pushed to a [`Log`] leaves what its events pushed one by one leave: the same
    /// writes and reads, and the same reads folded into the next (runs of one value).
    #[test]
    fn log_runs_are_their_pushes() {
        let mut rnd = xorshift(0x1234_5678_9abc_def1);
        for _ in 0..200 {
            let mut bufs: [(Vec<Events>, Vec<Events>, Vec<u64>); 2] = Default::default();
            let [(w0, r0, a0), (w1, r1, a1)] = &mut bufs;
            let mut runs = Log { writes: w0, reads: r0, again: a0 };
            let mut single = Log { writes: w1, reads: r1, again: a1 };
            let mut t = 0u64;
            for _ in 0..rnd(60) {
                let (ch, write, len) = (rnd(3) as usize, rnd(2) == 0, rnd(12) as u32);
                let (dt, vid, dvid, op) = (1 + rnd(5), rnd(1000) as usize, rnd(5) as i64 - 2, rnd(100) as usize);
                runs.push_run(ch, (t, dt), write, (vid, dvid), op, len);
                for j in 0..len as u64 {
                    let v = (vid as i64 + dvid * j as i64) as usize;
                    single.push(ch, t + dt * j, write, v, if write { op } else { op + j as usize });
                }
                t += dt * len as u64 + rnd(3);
            }
            let [(w0, r0, a0), (w1, r1, a1)] = &bufs;
            let all = |e: &Vec<Events>| e.iter().map(|x| x.iter().collect::<Vec<_>>()).collect::<Vec<_>>();
            assert_eq!((all(w0), all(r0), a0), (all(w1), all(r1), a1));
        }
    }
}
