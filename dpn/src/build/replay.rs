//! Channel sizes and kinds from replaying σ (DESIGN.md §4): a channel's size is its peak
//! occupancy, its kind follows from whether values are read in the order written, and
//! once. Channels are empty between bands, so each band's events replay on their own: on a
//! thread of their own ([`Job`]) while the assembly goes on with the next band, or here
//! when the traces' last reads must be marked.

use super::events::{Event, Events};
use super::{prefetch, radix_sort, Builder, Scratch, AHEAD};
use crate::trace::{ReadSrc, Trace};

/// One band's channel events, taken from the assembly to replay elsewhere.
pub(super) struct Job {
    /// The band's events and cells, and the buffers to replay them with.
    taken: ReplayBuffers,
    /// Per channel with events: its number, how its live window is tracked
    /// ([`Builder::tracks_window`]), and its figures in this band alone.
    chans: Vec<(usize, Option<usize>, ChanStats)>,
}

/// The buffers of a replayed [`Job`], for the assembly of a later band.
#[derive(Default)]
pub(super) struct ReplayBuffers {
    events: Vec<Events>,
    reads: Vec<Events>,
    cells: ValueCells,
    bufs: ReplayBufs,
}

/// Band-local value id → flat array cell, for the live windows: a band's `n` instances, then
/// the values it loads (ids from `n` on).
#[derive(Default)]
pub(super) struct ValueCells {
    /// Per instance, its cell, in 32 bits where every array has fewer cells (half the memory
    /// of a big band's table, and of the pages it touches), else in `wide`.
    narrow: Vec<u32>,
    wide: Vec<u64>,
    is_wide: bool,
    loads: Vec<u64>,
}

impl ValueCells {
    /// For a band of `n` instances, `wide` if some array has 2^32 cells or more; the buffers
    /// of earlier bands are reused, and grown only to what this band needs (a band may hold a
    /// hundred million instances).
    pub(super) fn start(&mut self, n: usize, wide: bool) {
        self.is_wide = wide;
        self.narrow.clear();
        self.wide.clear();
        if wide {
            self.wide.reserve_exact(n);
            self.wide.resize(n, 0);
        } else {
            self.narrow.reserve_exact(n);
            self.narrow.resize(n, 0);
        }
        self.loads.clear();
    }

    /// The cell of the band's `o`-th instance.
    pub(super) fn set(&mut self, o: usize, cell: u64) {
        if self.is_wide {
            self.wide[o] = cell;
        } else {
            self.narrow[o] = cell as u32;
        }
    }

    /// The cell of the band's `li`-th loaded value.
    pub(super) fn set_load(&mut self, li: usize, cell: u64) {
        if self.loads.len() <= li {
            self.loads.resize(li + 1, 0);
        }
        self.loads[li] = cell;
    }

    fn get(&self, vid: usize) -> u64 {
        let n = if self.is_wide { self.wide.len() } else { self.narrow.len() };
        match vid.checked_sub(n) {
            None if self.is_wide => self.wide[vid],
            None => u64::from(self.narrow[vid]),
            Some(li) => self.loads.get(li).copied().unwrap_or(0),
        }
    }
}

impl Job {
    pub(super) fn run(mut self) -> Job {
        let Job { taken: ReplayBuffers { events, reads, cells, bufs }, chans } = &mut self;
        for (ch, tracking, stats) in chans.iter_mut() {
            replay_channel(&events[*ch], &reads[*ch], stats, Window::of(*tracking, cells), bufs, &mut |_| {});
        }
        self
    }
}

impl Builder {
    /// Adds a band's writes and reads to its channels' counts (all a repeat of the band
    /// copies, see `repeat.rs`, so they are counted as soon as the band is assembled).
    fn count(&mut self, scratch: &mut Scratch) {
        for (ch, (w, r)) in scratch.events.iter().zip(&scratch.reads).enumerate() {
            let s = &mut self.stats[ch];
            s.writes += w.len() as u64;
            s.reads += r.len() as u64 + std::mem::take(&mut scratch.again[ch]);
        }
    }

    /// The band's replay as a [`Job`]; the assembly goes on with spare buffers.
    pub(super) fn replay_job(&mut self, scratch: &mut Scratch) -> Job {
        self.count(scratch);
        let chans = (scratch.events.iter().zip(&scratch.reads).enumerate())
            .filter(|(_, (w, r))| !w.is_empty() || !r.is_empty())
            .map(|(ch, _)| {
                let extents = self.stats[ch].extents.clone();
                let stats = ChanStats { in_order: true, window: vec![0; extents.len()], extents, ..ChanStats::default() };
                (ch, self.tracks_window(ch), stats)
            })
            .collect();
        let spare = scratch.spare.take().unwrap_or_default();
        let taken = ReplayBuffers {
            events: std::mem::replace(&mut scratch.events, spare.events),
            reads: std::mem::replace(&mut scratch.reads, spare.reads),
            cells: std::mem::replace(&mut scratch.cells, spare.cells),
            bufs: spare.bufs,
        };
        Job { taken, chans }
    }

    /// A replayed job's figures added to its channels' (maxima and order: bands merge in
    /// any order), its buffers kept for a later band.
    pub(super) fn merge(&mut self, job: Job, scratch: &mut Scratch) {
        for (ch, _, s) in &job.chans {
            let t = &mut self.stats[*ch];
            t.size = t.size.max(s.size);
            t.in_order &= s.in_order;
            t.window.iter_mut().zip(&s.window).for_each(|(a, b)| *a = (*a).max(*b));
            t.window_left_out |= s.window_left_out;
        }
        scratch.spare = Some(job.taken);
    }

    /// Whether channel `ch`'s live window is tracked (for scratchpad allocation: codegen
    /// only, and only channels into a read port): `None` if not, else the events above which
    /// it is tracked only where its values leave write order.
    fn tracks_window(&self, ch: usize) -> Option<usize> {
        match self.windows {
            Windows::None => None,
            _ if self.channels[ch].port.is_none() => None,
            // Already out of order in a band: a scratchpad.
            _ if !self.stats[ch].in_order => Some(usize::MAX),
            Windows::OutOfOrder { above } => Some(above),
            Windows::Every => Some(usize::MAX),
        }
    }

    /// Replays one band's part of σ here, channel by channel: marks last reads (in the
    /// traces), and accumulates each channel's peak occupancy, traffic and order. Channels
    /// are independent: with `threads` > 1 and no
    /// traces to mark, they are dealt to that many threads by their number of events.
    pub(super) fn replay(&mut self, scratch: &mut Scratch, threads: usize) {
        self.count(scratch);
        let Scratch { events, reads, replay, cells, op_base, .. } = scratch;
        let threads = if self.traces.is_empty() { threads.max(1) } else { 1 };
        replay.resize_with(threads, ReplayBufs::default);
        let window: Vec<Option<usize>> = (0..events.len()).map(|ch| self.tracks_window(ch)).collect();
        let Builder { channels, stats, traces, .. } = self;
        let cells = &*cells;
        let mut work: Vec<Vec<ChannelEvents>> = (0..threads).map(|_| Vec::new()).collect();
        let mut load = vec![0usize; threads];
        for (ch, ((writes, reads), stats)) in events.iter().zip(reads.iter()).zip(stats.iter_mut()).enumerate() {
            if writes.is_empty() && reads.is_empty() {
                continue;
            }
            let t = (0..threads).min_by_key(|&t| load[t]).unwrap_or(0);
            load[t] += writes.len() + reads.len();
            work[t].push((ch, writes, reads, stats));
        }
        if threads == 1 {
            let bufs = &mut replay[0];
            for (ch, writes, reads, stats) in work.pop().unwrap_or_default() {
                let consumer = channels[ch].consumer;
                let base = op_base.get(consumer).copied().unwrap_or(0);
                let mut last_read = |op: u32| {
                    if let Some(Trace::Compute { ops, .. }) = traces.get_mut(consumer) {
                        for r in ops[base + op as usize].reads.iter_mut() {
                            if let ReadSrc::Chan { ch: c, last: l, .. } = r {
                                if *c == ch {
                                    *l = true;
                                }
                            }
                        }
                    }
                };
                replay_channel(writes, reads, stats, Window::of(window[ch], cells), bufs, &mut last_read);
            }
            return;
        }
        std::thread::scope(|scope| {
            for (items, bufs) in work.into_iter().zip(replay.iter_mut()) {
                let window = &window;
                scope.spawn(move || {
                    for (ch, writes, reads, stats) in items {
                        replay_channel(writes, reads, stats, Window::of(window[ch], cells), bufs, &mut |_| {});
                    }
                });
            }
        });
    }
}

/// A channel of a band to replay: its number, writes, reads and statistics.
type ChannelEvents<'a> = (usize, &'a Events, &'a Events, &'a mut ChanStats);

/// Buffers of one replaying thread.
#[derive(Default)]
pub(super) struct ReplayBufs {
    /// The channel's writes, expanded from their runs when they must be sorted.
    writes: Vec<Event>,
    /// Scratch for sorting writes.
    sorting: Vec<Event>,
    /// One bit per value of the band (see [`sort_local_writes`]).
    bits: Vec<u64>,
    /// A bit per value in the span of a channel's reads: a later read of it was seen. (Per
    /// channel, not per band: a big band's values are a hundred million, and fresh memory
    /// for them costs more than clearing a channel's span.)
    seen: Vec<u64>,
    /// A bit per read of the channel: its value's last there.
    last: Vec<u64>,
}

/// Sorts the writes of a channel from the band's own compute processes by a bitmap over
/// their values (a write of value `v` happens at time `4v + 2`, each value once), when
/// they are all such writes and dense enough: the writes of a channel read out of
/// production order (a transposed access) are millions in a big band, and radix passes
/// over them cost more. `false` (untouched) otherwise.
fn sort_local_writes(writes: &mut [Event], bits: &mut Vec<u64>) -> bool {
    let local = |e: &Event| e.op == 0 && e.key as u64 == 8 * e.vid as u64 + 4;
    let (lo, hi) = writes.iter().fold((u32::MAX, 0), |(l, h), e| (l.min(e.vid), h.max(e.vid)));
    let span = (hi - lo) as usize + 1;
    if writes.is_empty() || span > 64 * writes.len() || !writes.iter().all(local) {
        return false;
    }
    bits.clear();
    bits.resize(span.div_ceil(64), 0);
    for e in writes.iter() {
        let x = (e.vid - lo) as usize;
        bits[x / 64] |= 1 << (x % 64);
    }
    let mut out = writes.iter_mut();
    for (w, &word) in bits.iter().enumerate() {
        let mut word = word;
        while word != 0 {
            let vid = lo + (w * 64) as u32 + word.trailing_zeros();
            word &= word - 1;
            if let Some(e) = out.next() {
                *e = Event { key: 8 * vid + 4, op: 0, vid };
            }
        }
    }
    true
}

/// What the construction derives of scratchpad windows (code generation needs them).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Windows {
    /// None: the network is not for code generation.
    None,
    /// A channel's window in the bands where its values leave write order, or where it has
    /// at most `above` events. Only a scratchpad's window is used, and a channel in order in
    /// every band is a FIFO: tracking a window costs two divisions per dimension and event,
    /// a hundred million events in a big band's FIFO. A band left out is marked
    /// ([`ChanStats::window_left_out`]).
    OutOfOrder { above: usize },
    /// Every channel's in every band.
    Every,
}

/// A channel's events in a band above which [`Windows::OutOfOrder`] leaves its window out
/// where they stay in order: a small band's window costs little, and left out it may cost a
/// second assembly.
pub(super) const LAZY_WINDOW_EVENTS: usize = 1 << 20;

/// The cells a channel's live window is tracked over, and the events above which it is
/// tracked only where its values leave write order.
#[derive(Clone, Copy)]
struct Window<'a> {
    cells: &'a ValueCells,
    lazy_above: usize,
}

impl<'a> Window<'a> {
    /// The window [`Builder::tracks_window`] asks for.
    fn of(lazy_above: Option<usize>, cells: &'a ValueCells) -> Option<Window<'a>> {
        lazy_above.map(|lazy_above| Window { cells, lazy_above })
    }
}

/// One channel's events of a band, replayed (see [`Builder::replay`]): `last_read(op)` for
/// each read that is its value's last in the channel; `window` to widen the live window.
/// Reads come in σ order and are taken from their runs as they are needed; so are writes
/// when they are in order too (a channel read in production order), else they are
/// expanded and sorted. A big band's channel holds a hundred million events: expanded,
/// each costs its bytes and a share of a page fault.
fn replay_channel(
    writes: &Events,
    reads: &Events,
    stats: &mut ChanStats,
    window: Option<Window>,
    bufs: &mut ReplayBufs,
    last_read: &mut dyn FnMut(u32),
) {
    // Writes are pushed at their value's first read. (time, operation) is unique within a
    // channel, so any sort and a merge give the one order.
    if writes.iter().is_sorted_by_key(|e| (e.key, e.op)) {
        return replay_sorted(writes.iter(), writes.len(), reads, stats, window, bufs, last_read);
    }
    let mut w = std::mem::take(&mut bufs.writes);
    w.clear();
    writes.expand_into(&mut w);
    if !sort_local_writes(&mut w, &mut bufs.bits) {
        // Both are band-local and short (times below 8 per instance, write operations
        // band-local load numbers), so they pack into one integer.
        let (key, op) = w.iter().fold((0, 0), |(k, o), e| (k | e.key as u64, o | e.op as u64));
        let (kb, ob) = (u64::BITS - key.leading_zeros(), u64::BITS - op.leading_zeros());
        if kb + ob <= u64::BITS {
            radix_sort(&mut w, &mut bufs.sorting, kb + ob, |e| (e.key as u64) << ob | e.op as u64);
        } else {
            w.sort_unstable_by_key(|e| (e.key, e.op));
        }
    }
    replay_sorted(w.iter().copied(), w.len(), reads, stats, window, bufs, last_read);
    bufs.writes = w;
}

/// [`replay_channel`] once the writes come in (time, operation) order.
fn replay_sorted(
    writes: impl Iterator<Item = Event> + Clone,
    n_writes: usize,
    reads: &Events,
    stats: &mut ChanStats,
    window: Option<Window>,
    bufs: &mut ReplayBufs,
    last_read: &mut dyn FnMut(u32),
) {
    let ReplayBufs { seen, last, .. } = bufs;
    // Each read's value's last read in the channel (a bit per read)? Every value written
    // is read: as many reads as writes means each read is its value's only one, and last.
    let n = reads.len();
    let once = n == n_writes;
    last.clear();
    last.resize(n.div_ceil(64), if once { !0 } else { 0 });
    if let (false, Some((lo, hi))) = (once, reads.vid_range()) {
        seen.clear();
        seen.resize((hi - lo) as usize / 64 + 1, 0);
        let mut ahead = reads.iter().rev().skip(AHEAD);
        for (k, e) in (0..n).rev().zip(reads.iter().rev()) {
            if let Some(a) = ahead.next() {
                prefetch(&seen[(a.vid - lo) as usize / 64]);
            }
            let x = (e.vid - lo) as usize;
            if seen[x / 64] >> (x % 64) & 1 == 0 {
                seen[x / 64] |= 1 << (x % 64);
                last[k / 64] |= 1 << (k % 64);
            }
        }
    }
    let merge = Merge { writes, n_writes, reads, last };
    // With many events, the window is tracked only once the values are seen to leave write
    // order: the merge then starts again with it (a scratchpad's first disorder comes early).
    let merged = match window {
        Some(w) if n + n_writes > w.lazy_above => merge.run(None, true, last_read).inspect(|_| stats.window_left_out = true),
        _ => None,
    };
    let merged = merged.unwrap_or_else(|| {
        let mut live = window.map(|w| LiveWindow::new(w.cells, &stats.extents));
        let merged = merge.run(live.as_mut(), false, last_read).unwrap_or_default();
        if let Some(w) = live {
            w.widen(&mut stats.window);
        }
        merged
    });
    stats.size = stats.size.max(merged.peak);
    stats.in_order &= merged.in_order;
}

/// A channel's writes and reads of a band, to merge in σ order.
struct Merge<'e, W> {
    writes: W,
    n_writes: usize,
    reads: &'e Events,
    /// A bit per read: its value's last in the channel.
    last: &'e [u64],
}

/// What a [`Merge`] finds: peak occupancy, and whether values are read in the order they
/// were written (each new value read is the next one written, and every value is read).
#[derive(Default)]
struct Merged {
    peak: usize,
    in_order: bool,
}

impl<W: Iterator<Item = Event> + Clone> Merge<'_, W> {
    /// The merge, with `window` widened as it goes; `None` if `give_up` and the values
    /// leave write order.
    fn run(&self, mut window: Option<&mut LiveWindow>, give_up: bool, last_read: &mut dyn FnMut(u32)) -> Option<Merged> {
        let is_last = |k: usize| self.last[k / 64] >> (k % 64) & 1 == 1;
        let n = self.reads.len();
        let (mut pending, mut order) = (self.writes.clone().peekable(), self.writes.clone());
        let (mut live, mut peak, mut next, mut prev) = (0usize, 0usize, 0usize, None);
        let mut in_order = true;
        // Reads, then a sentinel past every write for the writes after the last read.
        let end = Event { key: u32::MAX, op: u32::MAX, vid: 0 };
        for (k, e) in self.reads.iter().chain([end]).enumerate() {
            while let Some(w) = pending.next_if(|w| (w.key, w.op) < (e.key, e.op)) {
                live += 1;
                peak = peak.max(live);
                if let Some(win) = window.as_deref_mut() {
                    win.event(w, false);
                }
            }
            if k == n {
                break;
            }
            if prev != Some(e.vid) {
                in_order &= order.next().is_some_and(|w| w.vid == e.vid);
                if give_up && !in_order {
                    return None;
                }
                next += 1;
            }
            prev = Some(e.vid);
            if is_last(k) {
                live -= 1;
                last_read(e.op);
            }
            if let Some(win) = window.as_deref_mut() {
                win.event(e, is_last(k));
            }
        }
        in_order &= next == self.n_writes;
        (in_order || !give_up).then_some(Merged { peak, in_order })
    }
}

/// The span, per array dimension, of the cells live at once among one band's events of a
/// channel, taken in σ order as they are merged (a value is live from its write to its last
/// read): the channel's scratchpad window.
struct LiveWindow<'a> {
    cells: &'a ValueCells,
    /// The array's extents, and the cells between consecutive coordinates of each dimension.
    extents: Vec<i64>,
    strides: Vec<i64>,
    /// Per dimension, the live cells' coordinates.
    live: Vec<Coords>,
    /// Per dimension, the widest span seen.
    window: Vec<i64>,
}

impl<'a> LiveWindow<'a> {
    fn new(cells: &'a ValueCells, extents: &[i64]) -> LiveWindow<'a> {
        let strides = (0..extents.len()).map(|d| extents[d + 1..].iter().product()).collect();
        let live = extents.iter().map(|&e| Coords::new(e)).collect();
        LiveWindow { cells, extents: extents.to_vec(), strides, live, window: vec![0; extents.len()] }
    }

    /// The next event: a write makes its cell live, a value's last read ends it.
    fn event(&mut self, e: Event, last: bool) {
        let write = e.key & 1 == 0;
        if !write && !last {
            return;
        }
        let cell = self.cells.get(e.vid as usize) as i64;
        for (d, coords) in self.live.iter_mut().enumerate() {
            let x = (cell / self.strides[d]).rem_euclid(self.extents[d]);
            if write {
                self.window[d] = self.window[d].max(coords.insert(x));
            } else {
                coords.remove(x);
            }
        }
    }

    /// Widens `window` to the spans seen.
    fn widen(self, window: &mut [i64]) {
        for (w, seen) in window.iter_mut().zip(self.window) {
            *w = (*w).max(seen);
        }
    }
}

/// Live coordinates along one dimension, with how many live values hold each: counts and an
/// occupancy bitmap where the extent is small enough to allocate per channel and band,
/// otherwise an ordered map.
enum Coords {
    Dense { counts: Vec<u32>, occupied: Vec<u64>, live: usize, lo: usize, hi: usize },
    Sparse(std::collections::BTreeMap<i64, u32>),
}

/// The largest extent kept as [`Coords::Dense`].
const DENSE_EXTENT: i64 = 1 << 16;

impl Coords {
    fn new(extent: i64) -> Coords {
        if (1..=DENSE_EXTENT).contains(&extent) {
            let n = extent as usize;
            Coords::Dense { counts: vec![0; n], occupied: vec![0; n.div_ceil(64)], live: 0, lo: 0, hi: 0 }
        } else {
            Coords::Sparse(Default::default())
        }
    }

    /// One more value at `x`; the span of the live coordinates after it.
    fn insert(&mut self, x: i64) -> i64 {
        match self {
            Coords::Dense { counts, occupied, live, lo, hi } => {
                let x = x as usize;
                counts[x] += 1;
                if counts[x] == 1 {
                    occupied[x / 64] |= 1 << (x % 64);
                    (*lo, *hi) = if *live == 0 { (x, x) } else { ((*lo).min(x), (*hi).max(x)) };
                    *live += 1;
                }
            }
            Coords::Sparse(m) => *m.entry(x).or_default() += 1,
        }
        self.span()
    }

    /// From the lowest live coordinate to the highest (0 if none is live).
    fn span(&self) -> i64 {
        match self {
            Coords::Dense { live: 0, .. } => 0,
            Coords::Dense { lo, hi, .. } => (hi - lo + 1) as i64,
            Coords::Sparse(m) => match (m.first_key_value(), m.last_key_value()) {
                (Some((lo, _)), Some((hi, _))) => hi - lo + 1,
                _ => 0,
            },
        }
    }

    /// One value fewer at `x` (none if no value is live there).
    fn remove(&mut self, x: i64) {
        match self {
            Coords::Dense { counts, occupied, live, lo, hi } => {
                let x = x as usize;
                if counts[x] == 0 {
                    return;
                }
                counts[x] -= 1;
                if counts[x] > 0 {
                    return;
                }
                occupied[x / 64] &= !(1 << (x % 64));
                *live -= 1;
                if *live > 0 {
                    // The bounds move to the nearest live coordinates; there are some between.
                    if x == *lo {
                        *lo = next_set(occupied, x);
                    }
                    if x == *hi {
                        *hi = prev_set(occupied, x);
                    }
                }
            }
            Coords::Sparse(m) => {
                if let Some(c) = m.get_mut(&x) {
                    *c -= 1;
                    if *c == 0 {
                        m.remove(&x);
                    }
                }
            }
        }
    }
}

/// The first set bit of `bits` at or after `from` (one exists).
fn next_set(bits: &[u64], from: usize) -> usize {
    let mut w = from / 64;
    let mut word = bits[w] & (!0u64 << (from % 64));
    while word == 0 {
        w += 1;
        word = bits[w];
    }
    w * 64 + word.trailing_zeros() as usize
}

/// The last set bit of `bits` at or before `from` (one exists).
fn prev_set(bits: &[u64], from: usize) -> usize {
    let mut w = from / 64;
    let mut word = bits[w] & (!0u64 >> (63 - from % 64));
    while word == 0 {
        w -= 1;
        word = bits[w];
    }
    w * 64 + 63 - word.leading_zeros() as usize
}

/// Per channel, summed over the bands (channels are empty between bands: every value
/// written in a band is read in it).
#[derive(Clone, Default)]
pub(super) struct ChanStats {
    pub(super) size: usize,
    pub(super) writes: u64,
    pub(super) reads: u64,
    /// Every value first read in the order written.
    pub(super) in_order: bool,
    /// The array the values belong to (its extents), and per dimension the widest span of
    /// simultaneously live cells (codegen only).
    pub(super) extents: Vec<i64>,
    pub(super) window: Vec<i64>,
    /// A band in which the channel was in order left its window out ([`Windows::OutOfOrder`]).
    pub(super) window_left_out: bool,
}

#[cfg(test)]
mod tests {
    use super::{replay_channel, ChanStats, Coords, Event, Events, ReplayBufs, ValueCells, Window};

    /// A channel of more events than the lazy bound has its window tracked only where its
    /// values leave write order: read in order (a FIFO), its window is left out and marked
    /// so; read in reverse, it has the window, size and order of a replay that tracks the
    /// window from the start, and is not marked.
    #[test]
    fn a_lazy_window_is_the_full_one_where_values_leave_write_order() {
        let n = 24u32;
        let mut cells = ValueCells::default();
        cells.start(n as usize, false);
        for v in 0..n {
            cells.set(v as usize, u64::from(v * 5 % 64));
        }
        // Value v written at time v; read at time v (in order) or at time 2n - 1 - v (reverse).
        let replay = |reverse: bool, lazy_above: usize| {
            let (mut writes, mut reads) = (Events::default(), Events::default());
            for v in 0..n {
                writes.push(Event { key: 2 * v, op: 0, vid: v });
            }
            for k in 0..n {
                let (t, vid) = if reverse { (n + k, n - 1 - k) } else { (k, k) };
                reads.push(Event { key: 2 * t + 1, op: k, vid });
            }
            let mut stats = ChanStats { in_order: true, extents: vec![64], window: vec![0], ..ChanStats::default() };
            let window = Some(Window { cells: &cells, lazy_above });
            replay_channel(&writes, &reads, &mut stats, window, &mut ReplayBufs::default(), &mut |_| {});
            stats
        };
        let (fifo, full) = (replay(false, 0), replay(false, usize::MAX));
        assert!(fifo.in_order && fifo.window_left_out && fifo.window == [0]);
        assert!(full.in_order && !full.window_left_out && full.window == [1]);
        let (lazy, full) = (replay(true, 0), replay(true, usize::MAX));
        assert!(!lazy.in_order && !lazy.window_left_out);
        assert_eq!((lazy.size, &lazy.window), (full.size, &full.window));
        // Every value is live at time n - 1: cells 5v mod 64 for v < 24 lie from 0 to 60.
        assert_eq!((lazy.size, lazy.window[0]), (n as usize, 61));
    }

    /// Dense coordinates give the spans the ordered map gives after every insert and remove:
    /// random inserts in a sliding range, removes of live coordinates (often the lowest or the
    /// highest, which moves a bound across bitmap words) and of coordinates not live.
    #[test]
    fn dense_coordinates_span_as_the_map_does() {
        let extent = 300;
        let (mut dense, mut sparse) = (Coords::new(extent), Coords::Sparse(Default::default()));
        assert!(matches!(dense, Coords::Dense { .. }));
        let mut rnd = crate::build::xorshift(0x2545_f491_4f6c_dd1d);
        let mut next = |n: usize| rnd(n as u64) as usize;
        let mut live: Vec<i64> = Vec::new();
        for step in 0..200_000 {
            let base = (step / 1000) % 200;
            if live.is_empty() || next(2) == 0 {
                let x = (base + next(100)) as i64;
                live.push(x);
                dense.insert(x);
                sparse.insert(x);
            } else {
                let at = match next(4) {
                    0 => (0..live.len()).min_by_key(|&k| live[k]).unwrap_or(0),
                    1 => (0..live.len()).max_by_key(|&k| live[k]).unwrap_or(0),
                    _ => next(live.len()),
                };
                let x = if next(10) == 0 { next(extent as usize) as i64 } else { live.swap_remove(at) };
                dense.remove(x);
                sparse.remove(x);
            }
            assert_eq!(dense.span(), sparse.span(), "step {step}");
        }
    }
}
