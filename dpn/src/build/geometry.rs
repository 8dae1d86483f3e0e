//! Where instances fall: per statement its hyperplanes, tile sizes and sub-bands, which reads
//! may leave their band, and each read's source pieces as lines (what every pass reads).

use super::*;
use crate::shape::Layout;
use dpnc_frontend::ir::{Aff, CmpOp, Cond};

/// The iterators `on` (with repeats, any order) of a statement with `n`, sorted; `None`
/// when they are all of them (see `Geometry::deps`).
pub(super) fn some_of(mut on: Vec<usize>, n: usize) -> Option<Vec<usize>> {
    on.sort_unstable();
    on.dedup();
    (on.len() < n).then_some(on)
}

/// Tile sizes and parallelism per hyperplane, and where instances fall.
pub(super) struct Geometry<'a> {
    pub(super) nests: &'a [Nest],
    pub(super) nest_of: Vec<usize>,
    /// Per statement: its hyperplanes and how many of them are band hyperplanes.
    pub(super) phi: Vec<&'a [tiling::Affine]>,
    pub(super) band_dims: Vec<usize>,
    /// `stays[k][r][i]`: see [`Geometry::compute_stays`].
    pub(super) stays: Vec<Vec<Vec<bool>>>,
    /// `array_reads[k]`: the reads of statement `k` that take a source (all but scalar
    /// arguments, which are kernel registers).
    pub(super) array_reads: Vec<Vec<usize>>,
    /// `deps[k][r]`: the iterators of `k` that read `r`'s source pieces depend on (outputs
    /// or conditions); `None` when that is all of them, or a piece is not affine.
    pub(super) deps: Vec<Vec<Option<Vec<usize>>>>,
    /// `linear[k][r][i]`: source piece `i` of read `r` as affine functions of the reader,
    /// for following it along lines of instances (`build/line.rs`).
    pub(super) linear: Vec<Vec<Vec<Option<Linear>>>>,
    /// Per statement: the cell its write goes to, as an affine map when it is one.
    pub(super) writes: Vec<Option<CellMap>>,
    /// Per statement, its domain as affine conditions, when it is a conjunction of them.
    pub(super) domains: Vec<Option<Vec<Condition>>>,
    /// Per hyperplane depth: tile size and sub-bands (`--par`, at most the tile size).
    pub(super) sizes: Vec<i64>,
    pub(super) par: Vec<i64>,
    /// Per nest and band hyperplane: whether its sub-bands are interleaved
    /// ([`crate::shape::interleaved`]) rather than slices.
    pub(super) interleaved: Vec<Vec<bool>>,
}

impl<'a> Geometry<'a> {
    /// The geometry of the nests `nests` (statement `k` in nest `nest_of[k]`) tiled by
    /// `sizes` and `par` per hyperplane; `stays` and `interleaved` are left to
    /// [`Geometry::compute_stays`] and [`Geometry::compute_interleaved`].
    pub(super) fn new(
        p: &Program,
        sare: &Sare,
        params: &[i64],
        nests: &'a [Nest],
        nest_of: Vec<usize>,
        sizes: Vec<i64>,
        par: Vec<i64>,
    ) -> Self {
        let phi = (0..p.stmts.len()).map(|k| nests[nest_of[k]].phi_of(k)).collect();
        let band_dims = (0..p.stmts.len()).map(|k| nests[nest_of[k]].dims.saturating_sub(1)).collect();
        Geometry {
            nests,
            nest_of,
            phi,
            band_dims,
            sizes,
            par,
            interleaved: Vec::new(),
            stays: Vec::new(),
            deps: sare
                .reads
                .iter()
                .zip(&p.stmts)
                .map(|(flows, st)| {
                    flows
                        .iter()
                        .map(|f| {
                            let mut on = Vec::new();
                            for s in &f.sources {
                                let (outs, conds) = (s.rel.affine_outputs()?, s.rel.affine_conditions()?);
                                let rows = outs.iter().map(|(c, _)| c).chain(conds.iter().map(|(c, _, _)| c));
                                for c in rows {
                                    on.extend(c.iter().skip(params.len()).enumerate().filter(|(_, x)| **x != 0).map(|(d, _)| d));
                                }
                            }
                            some_of(on, st.iters.len())
                        })
                        .collect()
                })
                .collect(),
            linear: sare
                .reads
                .iter()
                .map(|flows| flows.iter().map(|f| f.sources.iter().map(|s| Linear::of(&s.rel, params)).collect()).collect())
                .collect(),
            writes: p.stmts.iter().map(|s| CellMap::of(p, &s.write, s.iters.len(), params)).collect(),
            domains: (0..p.stmts.len()).map(|k| domain(p, k, params)).collect(),
            array_reads: p
                .stmts
                .iter()
                .map(|s| (0..s.reads.len()).filter(|&r| !p.vars[s.reads[r].var].is_scalar_argument()).collect())
                .collect(),
        }
    }
}

impl Geometry<'_> {
    /// Number of band hyperplanes (all but the last, which runs inside the band).
    pub(super) fn band_dims(&self, k: usize) -> usize {
        self.band_dims[k]
    }
    /// Per statement, read and source piece: whether the piece's source is always in the
    /// reader's band (same nest, and every band hyperplane takes the same value at source and
    /// reader, identically in the iterators), so that neither pass needs to check it.
    pub(super) fn compute_stays(&self, p: &Program, sare: &Sare) -> Vec<Vec<Vec<bool>>> {
        (0..p.stmts.len())
            .map(|k| {
                sare.reads[k]
                    .iter()
                    .map(|flow| {
                        flow.sources
                            .iter()
                            .map(|src| {
                                self.band_shift(p, k, src).is_some_and(|sh| sh.iter().all(|(pc, c)| *c == 0 && pc.iter().all(|x| *x == 0)))
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }
    /// When a source piece is in the reader's nest and moves every band hyperplane by an
    /// amount independent of the iterators: per band hyperplane, that amount (source minus
    /// reader) as coefficients over the parameters and a constant.
    pub(super) fn band_shift(&self, p: &Program, k: usize, src: &dpnc_frontend::dataflow::Source) -> Option<Vec<(Vec<i64>, i64)>> {
        let np = p.params.len();
        let (sk, outs) = (src.stmt?, src.rel.affine_outputs()?);
        if self.nest_of[sk] != self.nest_of[k] {
            return None;
        }
        (0..self.band_dims(k))
            .map(|b| {
                let (fs, fk) = (&self.phi[sk][b], &self.phi[k][b]);
                let mut coef = vec![0i64; np + fk.coef.len()];
                let mut cst = fs.cst;
                for (c, (a, e)) in fs.coef.iter().zip(&outs) {
                    coef.iter_mut().zip(a).for_each(|(x, y)| *x += c * y);
                    cst += c * e;
                }
                coef[np..].iter().zip(&fk.coef).all(|(x, y)| x == y).then(|| (coef[..np].to_vec(), cst - fk.cst))
            })
            .collect()
    }
    /// Per statement and read: when every source piece that may leave the band moves the
    /// band hyperplanes by constants, per band hyperplane the range of the reader's offset in
    /// its tile for which none of them leaves. Pass 1 then evaluates the read only near tile
    /// borders (a stencil's few rows), not at every instance.
    pub(super) fn compute_margins(&self, p: &Program, sare: &Sare, params: &[i64]) -> Vec<Vec<Option<Margin>>> {
        (0..p.stmts.len())
            .map(|k| {
                sare.reads[k]
                    .iter()
                    .enumerate()
                    .map(|(r, flow)| {
                        let mut range: Vec<(i64, i64)> = (0..self.band_dims(k)).map(|b| (0, self.sizes[b] - 1)).collect();
                        for (i, src) in flow.sources.iter().enumerate() {
                            if src.stmt.is_none() || self.stays[k][r][i] {
                                continue;
                            }
                            for (b, (pc, c)) in self.band_shift(p, k, src)?.iter().enumerate() {
                                let delta = pc.iter().zip(params).try_fold(*c, |a, (x, v)| a.checked_add(x.checked_mul(*v)?))?;
                                // The source stays when offset + delta is within 0..size.
                                let (lo, hi) = &mut range[b];
                                *lo = (*lo).max(delta.checked_neg()?);
                                *hi = (*hi).min((self.sizes[b] - 1).checked_sub(delta)?);
                            }
                        }
                        Some(range)
                    })
                    .collect()
            })
            .collect()
    }
    /// The cell instance `it` of statement `k` writes.
    pub(super) fn write_cell(&self, p: &Program, params: &[i64], k: usize, it: &[i64]) -> Result<usize, Error> {
        match self.writes[k].as_ref().and_then(|c| c.cell(it)) {
            Some(cell) => Ok(cell),
            // Not affine, or out of bounds (then the slow path says where).
            None => cell_of(p, &p.stmts[k].write, it, params),
        }
    }
    /// Whether instance `it2` of `k2` lies in the band `tiles1` of a statement `k1`.
    pub(super) fn in_band(&self, k1: usize, tiles1: &[i64], k2: usize, it2: &[i64]) -> bool {
        self.nest_of[k1] == self.nest_of[k2]
            && tiles1.iter().enumerate().all(|(d, t)| self.phi[k2][d].eval(it2).div_euclid(self.sizes[d]) == *t)
    }
    /// Per nest and band hyperplane, whether its sub-bands are interleaved under `layout`
    /// ([`crate::shape::interleaved`]), from the statements' boxes in `survey`.
    pub(super) fn compute_interleaved(&self, survey: &Survey, layout: Layout) -> Vec<Vec<bool>> {
        let one_tile = |n: &Nest| {
            let Some(last) = n.dims.checked_sub(1) else { return true };
            let s = self.sizes[last];
            // The tiles of the last hyperplane over each statement's box: all one.
            let mut tiles = n.stmts.iter().filter(|&&k| survey.extent[k].iter().all(|&e| e > 0)).map(|&k| {
                let f = &self.phi[k][last];
                let (lo, hi) = crate::loops::span(&f.coef, f.cst, &survey.bbox(k));
                (lo.div_euclid(s), hi.div_euclid(s))
            });
            let first = tiles.next();
            first.is_none_or(|(a, b)| a == b && tiles.all(|t| t == (a, a)))
        };
        // Only band hyperplanes have sub-bands: the last one runs a band's tiles in sequence.
        self.nests
            .iter()
            .map(|n| {
                let whole = one_tile(n);
                (0..n.dims.saturating_sub(1))
                    .map(|d| crate::shape::interleaved(layout, self.sizes[d], self.par[d], n.carries.get(d) == Some(&true), whole))
                    .collect()
            })
            .collect()
    }
    /// Whether every instance is in sub-band 0 (no `--par`): bands then keep no sub-band
    /// per instance.
    pub(super) fn one_subband(&self) -> bool {
        self.par.iter().all(|&q| q == 1)
    }
    /// The parallel sub-band of instance `it` of statement `k`, as one index.
    pub(super) fn subband(&self, k: usize, it: &[i64]) -> usize {
        (0..self.band_dims(k)).fold(0, |acc, d| {
            let phi = self.phi[k][d].eval(it);
            let l = crate::shape::subband_of(phi, self.sizes[d], self.par[d], self.interleaved[self.nest_of[k]][d]);
            acc * self.par[d] as usize + l as usize
        })
    }
    pub(super) fn subband_coords(&self, k: usize, mut ix: usize) -> Vec<i64> {
        let mut v: Vec<i64> = (0..self.band_dims(k))
            .rev()
            .map(|d| {
                let l = ix % self.par[d] as usize;
                ix /= self.par[d] as usize;
                l as i64
            })
            .collect();
        v.reverse();
        v
    }
}

/// Per band hyperplane, the offsets in a tile at which a read's source cannot leave the band.
pub(super) type Margin = Vec<(i64, i64)>;

pub(super) fn cell_of(p: &Program, a: &dpnc_frontend::ir::Access, it: &[i64], params: &[i64]) -> Result<usize, Error> {
    let (idx, off) = index_of(p, a, it, params)?;
    off.ok_or_else(|| Diagnostic::new(a.span, out_of_bounds(p, a, &idx)).into())
}

/// An affine condition on a statement's iterators: `coef · it + cst >= 0`, or `== 0`.
pub(super) struct Condition {
    pub(super) coef: Vec<i64>,
    pub(super) cst: i64,
    pub(super) eq: bool,
}

/// Statement `k`'s domain as affine conditions, the parameters at their values; `None` when
/// it is not such a conjunction (a disjunction, a division, a minimum on the wrong side).
fn domain(p: &Program, k: usize, params: &[i64]) -> Option<Vec<Condition>> {
    let n = p.stmts[k].iters.len();
    let mut out = Vec::new();
    let mut todo: Vec<&Cond> = p.stmts[k].domain.iter().collect();
    while let Some(c) = todo.pop() {
        match c {
            Cond::True => {}
            Cond::And(x, y) => todo.extend([&**x, &**y]),
            Cond::Cmp(op, x, y) => {
                // big - small - gap >= 0 (or == 0), for every form of big (a minimum) and of small (a maximum).
                let (big, small, gap, eq) = match op {
                    CmpOp::Lt => (y, x, 1, false),
                    CmpOp::Le => (y, x, 0, false),
                    CmpOp::Gt => (x, y, 1, false),
                    CmpOp::Ge => (x, y, 0, false),
                    CmpOp::Eq => (x, y, 0, true),
                    CmpOp::Ne => return None,
                };
                let (bigs, smalls) = (forms(big, Side::Min, n, params)?, forms(small, Side::Max, n, params)?);
                if eq && bigs.len() + smalls.len() > 2 {
                    return None;
                }
                for (cb, kb) in &bigs {
                    for (cs, ks) in &smalls {
                        out.push(Condition { coef: cb.iter().zip(cs).map(|(a, b)| a - b).collect(), cst: kb - ks - gap, eq });
                    }
                }
            }
            Cond::Or(..) | Cond::Not(..) => return None,
        }
    }
    Some(out)
}

/// Which extremum an expression may take of its forms.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Min,
    Max,
}

/// `a` as the minimum (or maximum) of affine forms.
fn forms(a: &Aff, side: Side, n: usize, params: &[i64]) -> Option<Vec<(Vec<i64>, i64)>> {
    match (a, side) {
        (Aff::Min(x, y), Side::Min) | (Aff::Max(x, y), Side::Max) => {
            let mut v = forms(x, side, n, params)?;
            v.extend(forms(y, side, n, params)?);
            Some(v)
        }
        _ => Some(vec![super::cell::linear(a, n, params)?]),
    }
}
