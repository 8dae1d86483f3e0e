//! The iteration generator of a compute process (DESIGN.md §5) as a loop nest, for the
//! backends: counters for the band's tile coordinates, the last tile coordinate, the
//! hyperplanes φ inside the tile (restricted to the process's slice of the sub-band), then the
//! iterators no hyperplane covers. The statement's iterators are affine in the counters, and
//! an exact guard (the process domain as a [`Predicate`]) filters the boxes the counters
//! sweep. Walking the nest visits the process's instances in its schedule order: the same
//! sequence as its trace (checked by `tests/tests/loops.rs`).

use crate::predicate::Predicate;
use crate::tiling::Nest;
use serde::{Deserialize, Serialize};

/// `Σ coef[i]·counter[i] + cst` over the counters (only outer ones for bounds).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lin {
    pub coef: Vec<i64>,
    pub cst: i64,
}

impl Lin {
    pub fn eval(&self, counters: &[i64]) -> i64 {
        // Saturating: bounds of absurdly large tiles must clamp, not overflow.
        self.coef.iter().zip(counters).fold(self.cst, |acc, (a, x)| acc.saturating_add(a.saturating_mul(*x)))
    }
}

/// The values of `Σ coef[i]·x[i] + cst` over the box `x[i] ∈ r[i]` (interval arithmetic,
/// saturating).
pub fn span(coef: &[i64], cst: i64, r: &[(i64, i64)]) -> (i64, i64) {
    coef.iter().zip(r).fold((cst, cst), |(lo, hi), (c, (a, b))| {
        let (x, y) = (c.saturating_mul(*a), c.saturating_mul(*b));
        (lo.saturating_add(x.min(y)), hi.saturating_add(x.max(y)))
    })
}

/// Bits of a signed number holding `x` and one more, for a step past it (at most 64).
pub fn signed_bits(x: i64) -> u32 {
    (u64::BITS - (if x < 0 { !x } else { x } as u64).leading_zeros() + 2).min(64)
}

/// One loop: from the largest lower bound to the smallest upper bound, by `step`: ±1, or
/// the sub-bands q of an interleaved hyperplane (whose lower bounds are then ℓ mod q, or pin
/// it to one value).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    /// `T0`, `T2` (tile coordinates), `p0` (hyperplane values), or an iterator's name.
    pub name: String,
    pub lower: Vec<Lin>,
    pub upper: Vec<Lin>,
    pub step: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopNest {
    pub counters: Vec<Counter>,
    /// Per statement iterator, its value in terms of the counters.
    pub iters: Vec<Lin>,
    /// The process's domain (with its sub-band), over the statement's iterators.
    pub guard: Predicate,
}

/// Which part of each tile a compute process runs.
#[derive(Clone, Copy, Debug)]
pub struct SubBand<'a> {
    /// Its sub-band's coordinate along each band hyperplane.
    pub coords: &'a [i64],
    /// Tile sizes and sub-bands as given (`--tile`, `--par`: `Dpn::tile`, `Dpn::par`).
    pub tile: &'a [i64],
    pub par: &'a [i64],
    /// Per band hyperplane, whether its sub-bands are interleaved (`Dpn::interleaved`).
    pub interleaved: &'a [bool],
}

/// A statement's iterators, as its loop nest needs them.
#[derive(Clone, Copy, Debug)]
pub struct Iterators<'a> {
    /// A box holding every value each iterator takes.
    pub bbox: &'a [(i64, i64)],
    /// Each iterator's loop direction (1 or -1).
    pub dirs: &'a [i64],
    /// Each iterator's name in the source.
    pub names: &'a [String],
}

impl LoopNest {
    /// A box holding every value each counter takes (interval arithmetic: a counter runs
    /// from its largest lower bound to its smallest upper bound), for hardware that needs
    /// fewer than 64 bits.
    pub fn counter_ranges(&self) -> Vec<(i64, i64)> {
        let mut r: Vec<(i64, i64)> = Vec::new();
        for c in &self.counters {
            let lo = c.lower.iter().map(|l| span(&l.coef, l.cst, &r).0).max().unwrap_or(i64::MIN);
            let hi = c.upper.iter().map(|l| span(&l.coef, l.cst, &r).1).min().unwrap_or(i64::MAX);
            r.push((lo, hi));
        }
        r
    }

    /// Bits of each counter as hardware walks the nest (signed): enough for every value a
    /// counter, a bound, a coefficient or a constant takes, and one step past a bound. Both
    /// hardware backends size their counters by it: 64-bit counters made Yosys run out of
    /// memory at par 16, and HLS would build 64-bit adders and comparators.
    pub fn counter_bits(&self) -> u32 {
        let r = self.counter_ranges();
        let mut w = signed_bits(-1);
        for (k, c) in self.counters.iter().enumerate() {
            let past = if c.step.abs() > 1 { c.step.abs() } else { 0 };
            w = w.max(signed_bits(r[k].0.saturating_sub(past))).max(signed_bits(r[k].1.saturating_add(past)));
            for b in c.lower.iter().chain(&c.upper) {
                let (lo, hi) = span(&b.coef, b.cst, &r[..k]);
                w = b.coef.iter().fold(w.max(signed_bits(lo)).max(signed_bits(hi)).max(signed_bits(b.cst)), |w, a| w.max(signed_bits(*a)));
            }
        }
        w
    }

    /// A box holding every value each statement iterator takes in this nest.
    pub fn iter_ranges(&self) -> Vec<(i64, i64)> {
        let r = self.counter_ranges();
        self.iters.iter().map(|l| span(&l.coef, l.cst, &r)).collect()
    }

    /// The loop nest of the compute process of statement `stmt` in sub-band `shape`, or
    /// `None` when its hyperplanes are not a unimodular change of the iterators they use.
    /// `guard`: the process's domain.
    pub fn new(nest: &Nest, stmt: usize, shape: &SubBand, iterators: &Iterators, guard: Predicate) -> Option<LoopNest> {
        let SubBand { coords: subband, tile, par, interleaved } = *shape;
        let Iterators { bbox, dirs, names } = *iterators;
        let phi = nest.phi_of(stmt);
        let (d, n) = (nest.dims, bbox.len());
        let nb = d.saturating_sub(1);
        let size = |k: usize| crate::shape::tile_size(tile, k);
        // Range of every hyperplane over the box (interval arithmetic).
        let range: Vec<(i64, i64)> = phi.iter().map(|f| span(&f.coef, f.cst, bbox)).collect();
        // Iterators the hyperplanes use, which the non-constant hyperplanes must determine (a
        // statement shallower than its nest has constant rows).
        let used: Vec<usize> = (0..n).filter(|&j| phi.iter().any(|f| f.coef[j] != 0)).collect();
        // A row that is an integer multiple λ of an earlier one (fdtd-2d's S0(t, t, t + j))
        // is fixed by it: p_k = λ·(p_m − cst_m) + cst_k.
        let mut tied: Vec<(usize, usize, i64)> = Vec::new();
        let mut rows: Vec<usize> = Vec::new();
        for k in (0..d).filter(|&k| phi[k].coef.iter().any(|&c| c != 0)) {
            let multiple = rows.iter().find_map(|&m| {
                let j = phi[m].coef.iter().position(|&c| c != 0)?;
                let lambda = phi[k].coef[j] / phi[m].coef[j];
                (phi[k].coef.iter().zip(&phi[m].coef).all(|(a, b)| *a == lambda * b)).then_some((m, lambda))
            });
            match multiple {
                Some((m, lambda)) => tied.push((k, m, lambda)),
                None => rows.push(k),
            }
        }
        if used.len() != rows.len() {
            return None;
        }
        let inverse = invert(&rows.iter().map(|&k| used.iter().map(|&j| phi[k].coef[j]).collect()).collect::<Vec<Vec<i64>>>())?;
        let free: Vec<usize> = (0..n).filter(|j| !used.contains(j)).collect();
        // Counters: band tiles, last tile, hyperplanes, free iterators.
        let tiles: Vec<usize> = (0..nb).chain(d.checked_sub(1)).collect();
        let n_counters = tiles.len() + d + free.len();
        let lin = |terms: &[(usize, i64)], cst: i64| {
            let mut coef = vec![0; n_counters];
            terms.iter().for_each(|&(i, a)| coef[i] += a);
            Lin { coef, cst }
        };
        let mut counters = Vec::with_capacity(n_counters);
        for &k in &tiles {
            let s = size(k);
            counters.push(Counter {
                name: format!("T{k}"),
                lower: vec![lin(&[], range[k].0.div_euclid(s))],
                upper: vec![lin(&[], range[k].1.div_euclid(s))],
                step: 1,
            });
        }
        // Hyperplane counters in the nest's point order: hyperplane k is counter
        // `first_phi + pos[k]`.
        let first_phi = tiles.len();
        let mut pos = vec![0; d];
        for m in 0..d {
            pos[nest.point(stmt, m)] = m;
        }
        for k in (0..d).map(|m| nest.point(stmt, m)) {
            let s = size(k);
            let t = tiles.iter().position(|&x| x == k).unwrap_or(0);
            // The sub-band's part of the tile: every q-th point from ℓ where the sub-bands are
            // interleaved (a counter stepping by q, from bounds that are ℓ mod q), else the
            // slice φ mod s in [⌈ℓs/q⌉, ⌈(ℓ+1)s/q⌉ − 1].
            let q = crate::shape::par_size(par, k).min(s);
            let (lo, hi, step) = match subband.get(k) {
                Some(&l) if k < nb && interleaved.get(k) == Some(&true) => (l, s - q + l, q),
                Some(&l) if k < nb => {
                    let (q, l, s) = (q as i128, l as i128, s as i128);
                    (((l * s + q - 1) / q) as i64, (((l + 1) * s + q - 1) / q - 1) as i64, 1)
                }
                _ => (0, s - 1, 1),
            };
            let first = range[k].0 + (lo - range[k].0).rem_euclid(step);
            let mut lower = vec![lin(&[(t, s)], lo), lin(&[], first)];
            let mut upper = vec![lin(&[(t, s)], hi), lin(&[], range[k].1)];
            if let Some(&(_, m, lambda)) = tied.iter().find(|x| x.0 == k) {
                let fixed = lin(&[(first_phi + pos[m], lambda)], phi[k].cst - lambda * phi[m].cst);
                lower.push(fixed.clone());
                upper.push(fixed);
            }
            counters.push(Counter { name: format!("p{k}"), lower, upper, step });
        }
        for &j in &free {
            counters.push(Counter {
                name: names[j].clone(),
                lower: vec![lin(&[], bbox[j].0)],
                upper: vec![lin(&[], bbox[j].1)],
                step: dirs[j],
            });
        }
        // Iterators: used ones from the hyperplane counters through the inverse, free ones
        // are counters.
        let mut iters = vec![lin(&[], 0); n];
        for (r, &j) in used.iter().enumerate() {
            // it_j = Σ_m inv[r][m]·(p_rows[m] − cst_rows[m])
            let terms: Vec<(usize, i64)> = rows.iter().enumerate().map(|(m, &k)| (first_phi + pos[k], inverse[r][m])).collect();
            let cst = -rows.iter().enumerate().map(|(m, &k)| inverse[r][m] * phi[k].cst).sum::<i64>();
            iters[j] = lin(&terms, cst);
        }
        for (m, &j) in free.iter().enumerate() {
            iters[j] = lin(&[(first_phi + d + m, 1)], 0);
        }
        tighten(&mut counters, &iters, &guard);
        Some(LoopNest { counters, iters, guard })
    }

    /// This nest with the bounds that `cond` (over the statement's iterators) also implies:
    /// a walk that wants only the points meeting `cond` (a memory process's accesses on one
    /// channel, such as the stores of a reduction's last step) visits them in the same order
    /// and skips more of the others. The guard is unchanged: `cond` is still checked per point.
    pub fn restricted(&self, cond: &Predicate) -> LoopNest {
        let mut counters = self.counters.clone();
        tighten(&mut counters, &self.iters, cond);
        LoopNest { counters, iters: self.iters.clone(), guard: self.guard.clone() }
    }

    /// `Σ coef[j]·iterator[j] + cst` over the counters.
    pub fn of_iterators(&self, coef: &[i64], cst: i64) -> Lin {
        let mut l = Lin { coef: vec![0; self.counters.len()], cst };
        for (a, it) in coef.iter().zip(&self.iters) {
            l.coef.iter_mut().zip(&it.coef).for_each(|(x, y)| *x += a * y);
            l.cst += a * it.cst;
        }
        l
    }

    /// `⌊(Σ coef[j]·iterator[j] + cst) / size⌋` over the counters, where it is a tile counter
    /// or a constant: what a walker keeps instead of dividing. A hyperplane that repeats an
    /// outer one (a statement with fewer loops than its nest's depth) has a point counter held
    /// equal to that one's; its tile counter is the one that bounds it.
    pub fn tile_of(&self, coef: &[i64], cst: i64, size: i64) -> Option<Lin> {
        let num = self.of_iterators(coef, cst);
        let Some(m) = num.coef.iter().position(|&x| x != 0) else {
            return Some(Lin { coef: num.coef, cst: num.cst.div_euclid(size) });
        };
        floor_over_counters(&num, size, &self.counters).or_else(|| {
            let is_m = |b: &Lin| b.cst == 0 && b.coef.iter().enumerate().all(|(k, &x)| x == if k == m { 1 } else { 0 });
            self.counters.iter().enumerate().filter(|(_, c)| c.lower.iter().any(is_m) && c.upper.iter().any(is_m)).find_map(|(k, _)| {
                let mut same = Lin { coef: vec![0; self.counters.len()], cst: num.cst };
                same.coef[k] = num.coef[m];
                floor_over_counters(&same, size, &self.counters)
            })
        })
    }

    /// Calls `f` with the statement's iterators of every instance, in schedule order.
    pub fn for_each(&self, f: &mut dyn FnMut(&[i64])) {
        self.for_each_point(&mut |_, it| f(it));
    }

    /// Calls `f` with the counters and the statement's iterators of every instance, in
    /// schedule order.
    pub fn for_each_point(&self, f: &mut dyn FnMut(&[i64], &[i64])) {
        let mut c = vec![0i64; self.counters.len()];
        let mut it = vec![0i64; self.iters.len()];
        self.walk(0, &mut c, &mut it, f);
    }

    fn walk(&self, level: usize, c: &mut Vec<i64>, it: &mut Vec<i64>, f: &mut dyn FnMut(&[i64], &[i64])) {
        let Some(k) = self.counters.get(level) else {
            for (x, l) in it.iter_mut().zip(&self.iters) {
                *x = l.eval(c);
            }
            if self.guard.eval(it) {
                f(c, it);
            }
            return;
        };
        let lo = k.lower.iter().map(|l| l.eval(c)).max().unwrap_or(0);
        let hi = k.upper.iter().map(|l| l.eval(c)).min().unwrap_or(-1);
        let mut x = if k.step > 0 { lo } else { hi };
        while lo <= x && x <= hi {
            c[level] = x;
            self.walk(level + 1, c, it, f);
            x += k.step;
        }
    }
}

/// Bounds from the guard: every affine constraint of the domain (one in each of its
/// disjuncts, without floor divisions), over the counters, whose innermost counter has
/// coefficient ±1 bounds that counter by the outer ones. The walk then skips fewer points the
/// guard rejects (a skewed Jacobi-1D tile's triangles), in the same order: the guard stays.
fn tighten(counters: &mut [Counter], iters: &[Lin], guard: &Predicate) {
    use crate::predicate::Cmp;
    let Some((first, rest)) = guard.disjuncts.split_first() else { return };
    for c in first.iter().filter(|c| rest.iter().all(|d| d.contains(c))) {
        let Some(mut l) = over_counters(&c.expr, iters, counters) else { continue };
        let Some(k) = l.coef.iter().rposition(|&a| a != 0) else { continue };
        let a = l.coef[k];
        if a.abs() != 1 {
            continue;
        }
        // a·c_k + rest ≥ 0 (or = 0): c_k ≥ −rest for a = 1, c_k ≤ rest for a = −1.
        l.coef[k] = 0;
        let bound = Lin { coef: l.coef.iter().map(|x| -a * x).collect(), cst: -a * l.cst };
        let counter = &mut counters[k];
        let add = |v: &mut Vec<Lin>| {
            if !v.contains(&bound) {
                v.push(bound.clone());
            }
        };
        // A lower bound of a counter stepping by more than one could be off its stride (and
        // the walk then miss every point); an equality pins it to one value either way.
        if (a == 1 && counter.step.abs() == 1) || c.cmp == Cmp::Eq {
            add(&mut counter.lower);
        }
        if a == -1 || c.cmp == Cmp::Eq {
            add(&mut counter.upper);
        }
    }
}

/// `e` (over the statement's iterators) as an affine function of the counters, where it is
/// one: each iterator is, and so is a floor that [`floor_over_counters`] maps to a tile counter.
fn over_counters(e: &crate::predicate::Affine, iters: &[Lin], counters: &[Counter]) -> Option<Lin> {
    use crate::predicate::Term;
    let mut l = Lin { coef: vec![0; counters.len()], cst: e.cst };
    for (a, t) in &e.terms {
        let part = match t {
            Term::Var(j) => iters[*j].clone(),
            Term::Floor(f) => floor_over_counters(&over_counters(&f.num, iters, counters)?, f.den, counters)?,
        };
        l.coef.iter_mut().zip(&part.coef).for_each(|(x, y)| *x += a * y);
        l.cst += a * part.cst;
    }
    Some(l)
}

/// `⌊num / s⌋` as a counter, where it is one: the tile counter `T` when `num` is
/// `c_m + δ` and `c_m` runs within `s·T + lo ..= s·T + hi` with `0 ≤ lo + δ` and `hi + δ < s` (a
/// hyperplane's value divided by its tile size, as in "the first point of its tile").
fn floor_over_counters(num: &Lin, s: i64, counters: &[Counter]) -> Option<Lin> {
    let m = num.coef.iter().position(|&x| x != 0)?;
    if num.coef[m] != 1 || num.coef.iter().filter(|&&x| x != 0).count() != 1 {
        return None;
    }
    // The tile counter t with c_m ≥ s·T + lo and c_m ≤ s·T + hi.
    let tiled = |b: &Lin| {
        let t = b.coef.iter().position(|&x| x != 0)?;
        (b.coef[t] == s && b.coef.iter().filter(|&&x| x != 0).count() == 1).then_some((t, b.cst + num.cst))
    };
    let lo = counters[m].lower.iter().filter_map(tiled).find(|&(_, lo)| lo >= 0)?;
    let hi = counters[m].upper.iter().filter_map(tiled).find(|&(t, hi)| t == lo.0 && hi < s)?;
    let mut coef = vec![0; counters.len()];
    coef[hi.0] = 1;
    Some(Lin { coef, cst: 0 })
}

/// The inverse of a square integer matrix when it is integral (unimodular), by Gauss–Jordan
/// elimination over exact rationals.
fn invert(m: &[Vec<i64>]) -> Option<Vec<Vec<i64>>> {
    let n = m.len();
    // Rows of [m | I] as (numerator, denominator) pairs kept reduced.
    let mut a: Vec<Vec<(i128, i128)>> = m
        .iter()
        .enumerate()
        .map(|(i, row)| row.iter().map(|&x| (x as i128, 1)).chain((0..n).map(|j| ((i == j) as i128, 1))).collect())
        .collect();
    fn norm((p, q): (i128, i128)) -> (i128, i128) {
        let g = gcd(p.abs(), q.abs()).max(1);
        let s = if q < 0 { -1 } else { 1 };
        (s * p / g, s * q / g)
    }
    fn gcd(a: i128, b: i128) -> i128 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    for col in 0..n {
        let pivot = (col..n).find(|&r| a[r][col].0 != 0)?;
        a.swap(col, pivot);
        let (pp, pq) = a[col][col];
        for x in a[col].iter_mut() {
            *x = norm((x.0 * pq, x.1 * pp));
        }
        for r in 0..n {
            if r == col || a[r][col].0 == 0 {
                continue;
            }
            let (fp, fq) = a[r][col];
            let pivot_row = a[col].clone();
            for (x, y) in a[r].iter_mut().zip(pivot_row) {
                // x − f·y
                *x = norm((x.0 * fq * y.1 - fp * y.0 * x.1, x.1 * fq * y.1));
            }
        }
    }
    a.iter().map(|row| row[n..].iter().map(|&(p, q)| (q == 1).then_some(p as i64)).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::invert;

    #[test]
    fn unimodular_matrices_invert_exactly() {
        assert_eq!(invert(&[vec![1, 0], vec![2, 1]]), Some(vec![vec![1, 0], vec![-2, 1]]));
        assert_eq!(invert(&[vec![0, 1], vec![1, 0]]), Some(vec![vec![0, 1], vec![1, 0]]));
        assert_eq!(invert(&[vec![1, 0, 0], vec![1, 1, 0], vec![2, 1, 1]]), Some(vec![vec![1, 0, 0], vec![-1, 1, 0], vec![-1, -1, 1]]));
        // Not unimodular: the inverse has halves.
        assert_eq!(invert(&[vec![2, 0], vec![0, 1]]), None);
        // Singular.
        assert_eq!(invert(&[vec![1, 1], vec![1, 1]]), None);
    }
}
