//! Pass 0: how many instances, and where: dense instance ids per statement (bounding boxes)
//! and each nest's bands, counted by runs without holding an instance.

use super::*;

/// Pass 0: every statement's bounding box (dense instance numbers) and every nest's range
/// of band coordinates.
pub(super) struct Survey {
    pub(super) lo: Vec<Vec<i64>>,
    pub(super) extent: Vec<Vec<u64>>,
    pub(super) offset: Vec<u64>,
    /// Per nest, per band hyperplane: the range of tile coordinates (empty nest: `None`).
    pub(super) bands: Vec<Option<Vec<(i64, i64)>>>,
    /// Per nest, per band (in σ order): its instances (`None` when band coordinates do not
    /// fit the survey's keys).
    pub(super) sizes: Option<Vec<Vec<u64>>>,
    /// Per statement, its first instance in program order.
    pub(super) first: Vec<Option<Vec<i64>>>,
    pub(super) instances: u64,
    pub(super) volume: u64,
}

impl Survey {
    /// Statement `k`'s box: per iterator, the least and the greatest value it takes.
    pub(super) fn bbox(&self, k: usize) -> Vec<(i64, i64)> {
        self.lo[k].iter().zip(&self.extent[k]).map(|(l, e)| (*l, l + *e as i64 - 1)).collect()
    }

    /// In closed form where the domains are boxes (`boxes.rs`), else by the walk.
    pub(super) fn new(p: &Program, params: &[i64], geo: &Geometry) -> Result<Survey, Error> {
        super::boxes::survey(p, geo).unwrap_or_else(|| Survey::walk(p, params, geo))
    }

    /// By a walk of every run of instances.
    pub(super) fn walk(p: &Program, params: &[i64], geo: &Geometry) -> Result<Survey, Error> {
        let n = p.stmts.len();
        let mut lo: Vec<Vec<i64>> = p.stmts.iter().map(|s| vec![i64::MAX; s.iters.len()]).collect();
        let mut hi: Vec<Vec<i64>> = p.stmts.iter().map(|s| vec![i64::MIN; s.iters.len()]).collect();
        let mut bands: Vec<Option<Vec<(i64, i64)>>> = vec![None; geo.nests.len()];
        let mut instances = 0u64;
        // Instances per band, keyed by its tile coordinates in 20 bits each (`None`: they do
        // not fit).
        let mut counts: Option<HashMap<(usize, u128), u64, SmallKeys>> = Some(HashMap::default());
        let mut run = ((usize::MAX, 0u128), 0u64);
        let mut at = Vec::new();
        // A run of `len` instances along the last iterator, split where it crosses a tile
        // boundary of a band hyperplane (each piece lies in one band).
        let mut first: Vec<Option<Vec<i64>>> = vec![None; n];
        for_each_run(p, params, &mut |k, it, len, step| {
            instances += len;
            first[k].get_or_insert_with(|| it.to_vec());
            let last = it.len().wrapping_sub(1);
            for (d, x) in it.iter().enumerate() {
                let end = if d == last { x + (len as i64 - 1) * step } else { *x };
                lo[k][d] = lo[k][d].min(*x).min(end);
                hi[k][d] = hi[k][d].max(*x).max(end);
            }
            let phi = geo.phi[k];
            let r = bands[geo.nest_of[k]].get_or_insert_with(|| vec![(i64::MAX, i64::MIN); geo.band_dims(k)]);
            at.clear();
            at.extend_from_slice(it);
            let mut done = 0u64;
            while done < len {
                let mut key = 0u128;
                let mut piece = len - done;
                for (d, (l, h)) in r.iter_mut().enumerate() {
                    let (f, s) = (phi[d].eval(&at), geo.sizes[d]);
                    let t = f.div_euclid(s);
                    *l = (*l).min(t);
                    *h = (*h).max(t);
                    key = key << 20 | key_part(t);
                    if d >= 6 || t.abs() >= 1 << 19 {
                        counts = None;
                    }
                    // Instances left in this tile along the run: φ moves by `g` per step.
                    let g = it.last().map_or(0, |_| phi[d].coef.get(last).copied().unwrap_or(0) * step);
                    // In i128: a tile as wide as `i64::MAX` is legal.
                    let (f, s, g, t) = (f as i128, s as i128, g as i128, t as i128);
                    let left = match g.signum() {
                        1 => ((t + 1) * s - f + g - 1) / g,
                        -1 => (f - t * s) / -g + 1,
                        _ => i128::MAX,
                    };
                    piece = piece.min(left.min(u64::MAX as i128) as u64);
                }
                // Consecutive pieces are mostly in one band: counted together.
                let here = (geo.nest_of[k], key);
                if run.0 == here {
                    run.1 += piece;
                } else {
                    if let Some(c) = &mut counts {
                        *c.entry(run.0).or_default() += run.1;
                    }
                    run = (here, piece);
                }
                done += piece;
                if let Some(x) = at.last_mut() {
                    *x += piece as i64 * step;
                }
            }
            Ok(())
        })?;
        if let Some(c) = &mut counts {
            *c.entry(run.0).or_default() += run.1;
        }
        let sizes = counts.map(|c| {
            bands
                .iter()
                .enumerate()
                .map(|(ni, range)| {
                    let Some(range) = range else { return Vec::new() };
                    band_tiles(range)
                        .map(|tiles| c.get(&(ni, tiles.iter().fold(0, |key, &t| key << 20 | key_part(t)))).copied().unwrap_or(0))
                        .collect()
                })
                .collect()
        });
        Survey::from_bounds(lo, hi, bands, sizes, first, instances)
    }

    /// The survey of statements with bounding boxes `lo`..=`hi` (per statement, per iterator).
    pub(super) fn from_bounds(
        lo: Vec<Vec<i64>>,
        hi: Vec<Vec<i64>>,
        bands: Vec<Option<Vec<(i64, i64)>>>,
        sizes: Option<Vec<Vec<u64>>>,
        first: Vec<Option<Vec<i64>>>,
        instances: u64,
    ) -> Result<Survey, Error> {
        let n = lo.len();
        let mut offset = vec![0u64; n];
        let mut extent = vec![Vec::new(); n];
        let mut volume = 0u64;
        for k in 0..n {
            offset[k] = volume;
            extent[k] = lo[k].iter().zip(&hi[k]).map(|(l, h)| if l <= h { (h - l + 1) as u64 } else { 0 }).collect();
            let v = extent[k].iter().try_fold(1u64, |a, e| a.checked_mul(*e)).unwrap_or(u64::MAX);
            // Dense numbers stay below `PackedSrc::INITIAL`.
            volume = volume
                .checked_add(v)
                .filter(|v| *v < PackedSrc::INITIAL)
                .ok_or_else(|| Diagnostic::global("iteration domains too large to number"))?;
        }
        Ok(Survey { lo, extent, offset, bands, sizes, first, instances, volume })
    }
    /// How the dense number of an instance of `k` changes when its iterators move by
    /// `delta` (within the statement's box, where dense numbers are affine).
    pub(super) fn id_slope(&self, k: usize, delta: &[i64]) -> i128 {
        let mut stride = 1i128;
        let mut by = 0i128;
        for (d, e) in self.extent[k].iter().enumerate().rev() {
            by += delta[d] as i128 * stride;
            stride *= *e as i128;
        }
        by
    }
    /// Dense number of an instance (unique over all statements).
    pub(super) fn id(&self, k: usize, it: &[i64]) -> Option<u64> {
        let mut x = 0u64;
        for ((v, l), e) in it.iter().zip(&self.lo[k]).zip(&self.extent[k]) {
            let d = v.checked_sub(*l).filter(|d| *d >= 0 && (*d as u64) < *e)? as u64;
            x = x * e + d;
        }
        Some(self.offset[k] + x)
    }
}

/// Every point of a box (per dimension, an inclusive range), the last dimension fastest.
pub(super) fn box_points(bbox: Vec<(i64, i64)>) -> impl Iterator<Item = Vec<i64>> {
    let mut next = (bbox.iter().all(|(l, h)| l <= h)).then(|| bbox.iter().map(|r| r.0).collect::<Vec<_>>());
    std::iter::from_fn(move || {
        let point = next.clone()?;
        let cur = next.as_mut()?;
        let mut d = cur.len();
        loop {
            if d == 0 {
                next = None;
                break;
            }
            d -= 1;
            if cur[d] < bbox[d].1 {
                cur[d] += 1;
                break;
            }
            cur[d] = bbox[d].0;
        }
        Some(point)
    })
}

/// The tile coordinates of a nest's bands, last hyperplane fastest (the order of σ).
pub(super) fn band_tiles(range: &[(i64, i64)]) -> impl Iterator<Item = Vec<i64>> + '_ {
    let total: u64 = range.iter().map(|(l, h)| (h - l + 1) as u64).product();
    (0..total).map(move |mut bi| {
        let mut tiles = vec![0i64; range.len()];
        for (d, (l, h)) in range.iter().enumerate().rev() {
            let n = (h - l + 1) as u64;
            tiles[d] = l + (bi % n) as i64;
            bi /= n;
        }
        tiles
    })
}

/// `n` ranges of about equal length covering the nest's outer loop, in the order the loop
/// runs (one `None`, the whole band, when `n` is 1 or the nest cannot be cut).
pub(super) fn parts(scan: &BandScan, n: usize) -> Vec<Option<(i64, i64)>> {
    match scan.outer() {
        Some((lo, hi, dir)) if n > 1 && hi - lo + 1 >= n as i64 => {
            let len = hi - lo + 1;
            let mut v: Vec<_> = (0..n as i64).map(|j| Some((lo + len * j / n as i64, lo + len * (j + 1) / n as i64 - 1))).collect();
            if dir < 0 {
                v.reverse();
            }
            v
        }
        _ => vec![None],
    }
}

/// One tile coordinate in a band's key (20 bits; the survey checks that it fits).
pub(super) fn key_part(t: i64) -> u128 {
    (t + (1 << 19)) as u128 & 0xfffff
}
