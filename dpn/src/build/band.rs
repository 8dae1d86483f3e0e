//! A band's instances: enumerated (pushed by runs), sorted into σ and analysed.

use super::*;

/// Where a band stands: band `band` (from 0) of the `bands` of loop nest `nest`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct BandAt {
    pub(super) nest: usize,
    pub(super) band: u64,
    pub(super) bands: u64,
}

/// The instances of one band, in program order (iterators stored flat, `stride` per
/// instance). Hyperplane values are not kept: they follow from the iterators
/// ([`Band::hyperplane`]), and a big band would hold gigabytes of them.
#[derive(Default)]
pub(super) struct Band {
    pub(super) stride: usize,
    pub(super) kind: Vec<usize>,
    pub(super) iters: Vec<i64>,
    pub(super) id: Vec<u64>,
}

impl Band {
    pub(super) fn new(p: &Program) -> Band {
        let stride = p.stmts.iter().map(|s| s.iters.len()).max().unwrap_or(0);
        Band { stride, kind: Vec::new(), iters: Vec::new(), id: Vec::new() }
    }
    pub(super) fn push(&mut self, survey: &Survey, k: usize, it: &[i64]) -> Result<(), Error> {
        self.kind.push(k);
        self.iters.extend(it);
        self.iters.resize(self.kind.len() * self.stride, 0);
        self.id.push(survey.id(k, it).ok_or_else(|| Error::internal("instance outside its bounding box"))?);
        Ok(())
    }
    /// [`Band::push`] of a run of `len` instances from `it` along its last iterator: the
    /// dense numbers move by a constant per step.
    pub(super) fn push_run(&mut self, survey: &Survey, k: usize, it: &[i64], len: u64, step: i64) -> Result<(), Error> {
        let Some(d) = it.len().checked_sub(1).filter(|_| len > 1) else { return self.push(survey, k, it) };
        let outside = || Error::internal("instance outside its bounding box");
        let mut end = it.to_vec();
        end[d] += (len as i64 - 1) * step;
        survey.id(k, &end).ok_or_else(outside)?;
        let id = survey.id(k, it).ok_or_else(outside)?;
        let n = len as usize;
        self.kind.resize(self.kind.len() + n, k);
        let at = self.iters.len();
        self.iters.resize(at + n * self.stride, 0);
        for (j, row) in self.iters[at..].chunks_exact_mut(self.stride).enumerate() {
            // Element by element: these are a few numbers, and a `memcpy` call costs more.
            for (r, x) in row.iter_mut().zip(it) {
                *r = *x;
            }
            row[d] += j as i64 * step;
        }
        self.id.extend((0..len as i64).map(|j| id.wrapping_add_signed(j * step)));
        Ok(())
    }
    pub(super) fn clear(&mut self) {
        self.kind.clear();
        self.iters.clear();
        self.id.clear();
    }
    /// Room for `n` more instances, exactly: a big band grown by doubling would hold up
    /// to twice its size, and copy itself on the way.
    pub(super) fn reserve(&mut self, n: usize) {
        self.kind.reserve_exact(n);
        self.iters.reserve_exact(n * self.stride);
        self.id.reserve_exact(n);
    }
    /// The band with its instances in the order `sigma`, into `out`.
    pub(super) fn permute_into(&self, sigma: &[usize], out: &mut Band) {
        out.clear();
        // Exact sizes up front: growing by doubling copies, and touches twice the pages.
        out.kind.reserve(sigma.len());
        out.iters.reserve(sigma.len() * self.stride);
        out.id.reserve(sigma.len());
        for &o in sigma {
            out.kind.push(self.kind[o]);
            out.iters.extend_from_slice(self.iters(o));
            out.id.push(self.id[o]);
        }
    }
    pub(super) fn iters(&self, o: usize) -> &[i64] {
        &self.iters[o * self.stride..o * self.stride + self.stride]
    }
    /// The value of hyperplane `d` of instance `o` (`i64::MIN` past its statement's
    /// hyperplanes).
    pub(super) fn hyperplane(&self, geo: &Geometry, o: usize, d: usize) -> i64 {
        let k = self.kind[o];
        geo.phi[k].get(d).map_or(i64::MIN, |f| f.eval(self.iters(o)))
    }
    /// The parallel sub-band of instance `o`.
    pub(super) fn subband(&self, geo: &Geometry, o: usize) -> usize {
        geo.subband(self.kind[o], self.iters(o))
    }

    /// Sorts the band by σ (into a recycled [`Analysed`] if given) and resolves every
    /// read: produced in the band (by which instance) or from DDR (which cell, which
    /// producer). Pure: runs beside the assembly of the previous band.
    pub(super) fn analyse(&mut self, ctx: &Ctx, recycled: Option<Analysed>, at: BandAt) -> Result<Analysed, Error> {
        let mut an = self.prepare(ctx, recycled, at);
        let (mut srcs, mut piece) = (std::mem::take(&mut an.srcs), std::mem::take(&mut an.piece));
        srcs.clear();
        piece.clear();
        let reads: usize = an.band.kind.iter().map(|&k| ctx.geo.array_reads[k].len()).sum();
        srcs.reserve(reads);
        piece.reserve(reads);
        an.resolve(ctx, 0..an.band.kind.len(), &mut srcs, &mut piece)?;
        an.srcs = srcs;
        an.piece = piece;
        Ok(an)
    }

    /// Sorts the band by σ (into a recycled [`Analysed`] if given), indexes it and finds
    /// each instance's parallel sub-band: all the analysis but the reads' sources.
    pub(super) fn prepare(&mut self, ctx: &Ctx, recycled: Option<Analysed>, at: BandAt) -> Analysed {
        let Ctx { p, geo, .. } = *ctx;
        let mut an = recycled.unwrap_or_else(|| Analysed::new(p));
        an.at = at;
        an.translate_of = None;
        an.template = false;
        let n = self.kind.len();
        // Each instance's tile coordinate along the last hyperplane.
        let last: Vec<i64> = (0..n)
            .map(|o| {
                let phi = geo.phi[self.kind[o]];
                phi.len().checked_sub(1).map_or(0, |d| phi[d].eval(self.iters(o)).div_euclid(geo.sizes[d]))
            })
            .collect();
        // σ inside the band: last tile coordinate, group, hyperplanes (in the statement's
        // point order), program order. A counting
        // sort on the last tile coordinate, then a stable sort of each bucket by hyperplanes
        // (nearly sorted already: program order often agrees with φ). The band is then
        // rearranged in that order, so that position = rank in σ.
        let (lo, hi) = last.iter().fold((i64::MAX, i64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        // A bucket per value in the range, or, when the values are sparse (a hyperplane with a
        // huge coefficient), per distinct value: the range could not be allocated.
        let distinct: Option<Vec<i64>> = (hi as i128 - lo as i128 > 2 * n as i128).then(|| {
            let mut v = last.clone();
            v.sort_unstable();
            v.dedup();
            v
        });
        let bucket = |x: i64| match &distinct {
            Some(v) => v.partition_point(|&y| y < x),
            None => (x - lo) as usize,
        };
        let buckets = distinct.as_ref().map_or((hi - lo + 1) as usize, Vec::len);
        let mut start = vec![0usize; buckets + 1];
        for &x in &last {
            start[bucket(x) + 1] += 1;
        }
        for i in 0..buckets {
            start[i + 1] += start[i];
        }
        let sigma = &mut an.sigma;
        sigma.clear();
        sigma.resize(n, 0);
        let mut fill = start.clone();
        for (o, &x) in last.iter().enumerate() {
            let slot = &mut fill[bucket(x)];
            sigma[*slot] = o;
            *slot += 1;
        }
        let nest = &geo.nests[geo.nest_of[self.kind.first().copied().unwrap_or(0)]];
        // Per statement, the hyperplane at each depth of its point order; past the
        // hyperplanes, its group (which orders the points before them).
        let depth = self.stride;
        let order: Vec<Vec<usize>> = (0..p.stmts.len()).map(|k| (0..depth).map(|d| nest.point(k, d)).collect()).collect();
        let group: Vec<i64> = (0..p.stmts.len()).map(|k| nest.group(k) as i64).collect();
        let val = |o: usize, m: usize| if m == depth { group[self.kind[o]] } else { self.hyperplane(geo, o, order[self.kind[o]][m]) };
        // Each instance's group, hyperplane values and program position packed into one
        // integer (offsets from the band's minima, in as many bits as each range needs), so
        // that the buckets sort as plain integers; odd ranges that do not fit compare field
        // by field.
        let mut fields: Vec<(i64, usize, u32)> = Vec::with_capacity(depth + 1);
        let o_bits = u64::BITS - (n.max(1) as u64 - 1).leading_zeros();
        let mut shift = o_bits;
        for m in (0..depth).rev().chain(std::iter::once(depth)) {
            let (l, h) = (0..n).fold((i64::MAX, i64::MIN), |(l, h), o| (l.min(val(o, m)), h.max(val(o, m))));
            let bits = u64::BITS - h.abs_diff(l).leading_zeros();
            if bits > 0 {
                fields.push((l, m, shift));
                shift += bits;
            }
        }
        let fits = shift <= u128::BITS;
        let key = |o: usize| fields.iter().fold(o as u128, |k, &(l, m, sh)| k | (val(o, m).abs_diff(l) as u128) << sh);
        let mask = (1u128 << o_bits) - 1;
        if fits && shift <= u64::BITS {
            let mut keys = Vec::new();
            let mut buf = Vec::new();
            for w in start.windows(2) {
                keys.clear();
                keys.extend(sigma[w[0]..w[1]].iter().map(|&o| key(o) as u64));
                if !keys.is_sorted() {
                    radix_sort(&mut keys, &mut buf, shift, |k| *k);
                }
                for (s, k) in sigma[w[0]..w[1]].iter_mut().zip(&keys) {
                    *s = (*k as u128 & mask) as usize;
                }
            }
        } else if fits {
            sort_buckets(sigma, &start, key, |k| (k & mask) as usize);
        } else {
            let by_points = |o: usize| std::iter::once(depth).chain(0..depth).map(move |m| val(o, m));
            for w in start.windows(2) {
                sigma[w[0]..w[1]].sort_by(|&a, &c| by_points(a).cmp(by_points(c)).then(a.cmp(&c)));
            }
        }
        // Gone before the sorted copy is made.
        drop(last);
        if sigma.iter().enumerate().all(|(i, &o)| i == o) {
            // Program order is σ (a nest tiled on its outer loops only): take the band as it is.
            an.band.clear();
            std::mem::swap(&mut self.kind, &mut an.band.kind);
            std::mem::swap(&mut self.iters, &mut an.band.iters);
            std::mem::swap(&mut self.id, &mut an.band.id);
        } else {
            self.permute_into(sigma, &mut an.band);
        }
        an.local.build(p, &an.band);
        an.sub.clear();
        if !geo.one_subband() {
            an.sub.extend((0..n).map(|o| an.band.subband(geo, o)));
        }
        an
    }
}

/// Sorts `v` by `key`, whose values are unique and below `2^bits`, least significant byte
/// first (a band's keys are many and short: a few passes beat comparisons).
pub(super) fn radix_sort<T: Copy + Default>(v: &mut Vec<T>, buf: &mut Vec<T>, bits: u32, key: impl Fn(&T) -> u64) {
    if v.len() < 256 {
        v.sort_unstable_by_key(key);
        return;
    }
    buf.clear();
    buf.resize(v.len(), T::default());
    for sh in (0..bits).step_by(8) {
        let mut count = [0usize; 257];
        for x in v.iter() {
            count[(key(x) >> sh & 0xff) as usize + 1] += 1;
        }
        if count.contains(&v.len()) {
            continue;
        }
        for i in 0..256 {
            count[i + 1] += count[i];
        }
        for x in v.iter() {
            let d = (key(x) >> sh & 0xff) as usize;
            buf[count[d]] = *x;
            count[d] += 1;
        }
        std::mem::swap(v, buf);
    }
}

/// Sorts each bucket `start[i]..start[i + 1]` of `sigma` by `key` (unique per instance, so
/// an unstable sort gives the one order), `back` recovering the instance from its key.
pub(super) fn sort_buckets<K: Ord + Copy>(sigma: &mut [usize], start: &[usize], key: impl Fn(usize) -> K, back: impl Fn(K) -> usize) {
    let mut keys: Vec<K> = Vec::new();
    for w in start.windows(2) {
        keys.clear();
        keys.extend(sigma[w[0]..w[1]].iter().map(|&o| key(o)));
        keys.sort_unstable();
        for (s, k) in sigma[w[0]..w[1]].iter_mut().zip(&keys) {
            *s = back(*k);
        }
    }
}
