//! A band's instances by statement and iterators: where a read finds its source's place in σ.

use super::*;

/// A statement's first slot in a [`LocalIndex`] and, per iterator, its low bound and extent.
pub(super) type StmtBox = (usize, Vec<(i64, u64)>);

/// Instance → position in the band: per statement, an array over the band's own bounding
/// box of that statement's iterators. A band is a few tiles, so its box is at most a small
/// multiple of its size even when the tiles are skewed, whereas dense instance numbers of one
/// band can span whole planes of the domain (they follow the program's loops, not the tiles).
/// Boxes much larger than the band (odd domains) fall back to a map over dense numbers.
#[derive(Default)]
pub(super) struct LocalIndex {
    /// Per statement: (first slot, per iterator its low bound and extent); `None` when the
    /// statement has no instance in the band.
    pub(super) boxes: Vec<Option<StmtBox>>,
    /// Atomic: a streamed band's index is filled as it is enumerated while chunks before are
    /// being resolved ([`pipe`]).
    pub(super) slots: Vec<AtomicU32>,
    pub(super) map: Option<HashMap<u64, u32, SmallKeys>>,
}

impl LocalIndex {
    /// Indexes `band` (positions fit in `u32`: bands hold at most [`MAX_BAND`]).
    pub(super) fn build(&mut self, p: &Program, band: &Band) {
        let n = band.kind.len();
        let mut bounds: Vec<Option<Vec<(i64, i64)>>> = vec![None; p.stmts.len()];
        for o in 0..n {
            let k = band.kind[o];
            let it = &band.iters(o)[..p.stmts[k].iters.len()];
            let b = bounds[k].get_or_insert_with(|| it.iter().map(|&x| (x, x)).collect());
            for (r, &x) in b.iter_mut().zip(it) {
                r.0 = r.0.min(x);
                r.1 = r.1.max(x);
            }
        }
        self.boxes.clear();
        let mut total = 0u64;
        for b in bounds {
            self.boxes.push(b.map(|b| {
                let first = total as usize;
                let dims: Vec<(i64, u64)> = b.iter().map(|(l, h)| (*l, h.abs_diff(*l) + 1)).collect();
                let size = dims.iter().try_fold(1u64, |a, d| a.checked_mul(d.1)).unwrap_or(u64::MAX);
                total = total.saturating_add(size);
                (first, dims)
            }));
        }
        if total > 16 * n as u64 + 1024 {
            self.map = Some(band.id.iter().enumerate().map(|(o, id)| (*id, o as u32)).collect());
            return;
        }
        self.map = None;
        self.slots.clear();
        self.slots.resize_with(total as usize, || AtomicU32::new(u32::MAX));
        for o in 0..n {
            let k = band.kind[o];
            if let Some(x) = self.slot(k, &band.iters(o)[..p.stmts[k].iters.len()]) {
                *self.slots[x].get_mut() = o as u32;
            }
        }
    }
    /// Whether a band of `n` instances of `nest` is dense enough in its statements' boxes for
    /// [`LocalIndex::start`].
    pub(super) fn fits(survey: &Survey, nest: &Nest, n: usize) -> bool {
        nest.stmts.iter().fold(0u64, |t, &k| t.saturating_add(box_size(survey, k))) <= 16 * n as u64 + 1024
    }
    /// Starts an index of a band of `n` instances of `nest` to be filled as they come
    /// ([`LocalIndex::put`]), over the statements' whole boxes from the survey; `false` when
    /// those are too sparse for a dense index.
    pub(super) fn start(&mut self, survey: &Survey, nest: &Nest, n: usize) -> bool {
        if !LocalIndex::fits(survey, nest, n) {
            return false;
        }
        self.boxes.clear();
        self.boxes.resize(survey.lo.len(), None);
        let mut total = 0u64;
        for &k in &nest.stmts {
            self.boxes[k] = Some((total as usize, survey.lo[k].iter().copied().zip(survey.extent[k].iter().copied()).collect()));
            total = total.saturating_add(box_size(survey, k));
        }
        self.map = None;
        self.slots.clear();
        self.slots.resize_with(total as usize, || AtomicU32::new(u32::MAX));
        true
    }
    /// Instance `it` of statement `k` is at position `o` (an index begun by [`LocalIndex::start`]).
    pub(super) fn put(&self, k: usize, it: &[i64], o: usize) -> Option<()> {
        self.slots.get(self.slot(k, it)?)?.store(o as u32, Relaxed);
        Some(())
    }
    /// [`LocalIndex::put`] of `len` instances from `it`, the last iterator moving by `step`,
    /// at positions from `o` on (the last iterator is the box's innermost dimension: slots
    /// move by `step` too).
    pub(super) fn put_run(&self, k: usize, it: &[i64], o: usize, len: u64, step: i64) -> Option<()> {
        if len <= 1 || it.is_empty() {
            return self.put(k, it, o);
        }
        let first = self.slot(k, it)?;
        let mut end = it.to_vec();
        *end.last_mut()? += (len as i64 - 1) * step;
        self.slot(k, &end)?;
        for j in 0..len as usize {
            let x = first.checked_add_signed(j as isize * step as isize)?;
            self.slots.get(x)?.store((o + j) as u32, Relaxed);
        }
        Some(())
    }
    pub(super) fn slot(&self, k: usize, it: &[i64]) -> Option<usize> {
        let (first, dims) = self.boxes.get(k)?.as_ref()?;
        let mut x = 0usize;
        for (v, (l, e)) in it.iter().zip(dims) {
            let d = v.checked_sub(*l).filter(|d| *d >= 0 && (*d as u64) < *e)? as usize;
            x = x * *e as usize + d;
        }
        Some(first + x)
    }
    /// The dense slot of instance `it` of statement `k`, when the index is dense and its
    /// box holds `it` (see [`LocalIndex::at`]).
    pub(super) fn dense_slot(&self, k: usize, it: &[i64]) -> Option<usize> {
        if self.map.is_some() {
            return None;
        }
        self.slot(k, it)
    }
    /// Position in the band of the instance at dense slot `x`, if the band holds it.
    pub(super) fn at(&self, x: usize) -> Option<usize> {
        self.slots.get(x).map(|o| o.load(Relaxed)).filter(|o| *o != u32::MAX).map(|o| o as usize)
    }
    /// Position in the band of instance `it` of statement `k`, if the band holds it.
    pub(super) fn get(&self, survey: &Survey, k: usize, it: &[i64]) -> Option<usize> {
        let o = match &self.map {
            Some(m) => *m.get(&survey.id(k, it)?)?,
            None => self.slots.get(self.slot(k, it)?)?.load(Relaxed),
        };
        (o != u32::MAX).then_some(o as usize)
    }
}

/// A fast hasher for the band-local maps (keys are small integers, not attacker-chosen).
#[derive(Clone, Copy, Default)]
pub(super) struct SmallKeys;

pub(super) struct SmallKeyHasher(pub(super) u64);

impl std::hash::BuildHasher for SmallKeys {
    type Hasher = SmallKeyHasher;
    fn build_hasher(&self) -> SmallKeyHasher {
        SmallKeyHasher(0)
    }
}

impl std::hash::Hasher for SmallKeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|b| self.write_u64(*b as u64));
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    fn write_isize(&mut self, x: isize) {
        self.write_u64(x as u64);
    }
}

/// Instances in statement `k`'s box.
fn box_size(survey: &Survey, k: usize) -> u64 {
    survey.extent[k].iter().try_fold(1u64, |a, e| a.checked_mul(*e)).unwrap_or(u64::MAX)
}
