//! Bands proved to be translates of an analysed band, before their analysis. Resolving every
//! read of a band (which source piece, which instance, in the band or in DDR) is most of the
//! construction's cost, and the interior bands of stencil and rectangular nests are
//! translates of one another. A worker keeps a [`Template`] of a few bands it analysed; a new band
//! whose instances are a template's shifted by one vector per statement, moving every hyperplane
//! by whole tiles alike, gets the template's resolution shifted instead of its own when, for every
//! source piece the template used:
//! * each of the piece's conditions keeps its value at every instance (its coefficients are
//!   orthogonal to the shift) or keeps its sign over the statement's bounding box in both
//!   bands, so every read takes the same piece (pieces are disjoint);
//! * the piece moves its source instance by the source statement's own shift when that
//!   statement is in the band, so sources in the band stay at the same σ position and
//!   sources outside stay outside;
//! * DDR cells of one array, and producers of one statement, all move by one constant, so
//!   reads that shared a load still do and the others still do not.
//!
//! The result is exactly what [`super::Band::analyse`] would give, and main then adds it as
//! a repeat of the template's band (`repeat.rs`). Which bands a worker proves depends only on the
//! bands it analysed itself, so construction stays deterministic for a given worker count.

use super::{Analysed, Band, Ctx, PackedSrc};
use std::collections::HashMap;
use std::sync::Arc;

/// An analysed band kept to prove later bands translates of it (shared with the assembly,
/// not copied: a template is as big as its band).
pub(super) struct Template {
    /// The band's number (over all nests), to find its effect on the network by.
    pub(super) number: usize,
    an: Arc<Analysed>,
    /// Per statement: its iterators' bounds over the band (`None`: not in the band).
    boxes: Vec<Option<Vec<(i64, i64)>>>,
    /// Per (statement, read, piece) triple (at [`Slots`]), the kinds of source the band's reads
    /// took from it (bits: 1 in the band, 2 from DDR, 4 an initial value; 0: unused).
    used: Vec<u8>,
}

/// Dense numbers of the (statement, read, piece) triples: `base[k][r] + piece`.
pub(super) struct Slots {
    base: Vec<Vec<usize>>,
    len: usize,
}

impl Slots {
    pub(super) fn new(sare: &dpnc_frontend::dataflow::Sare) -> Slots {
        let mut len = 0;
        let base = sare
            .reads
            .iter()
            .map(|reads| {
                reads
                    .iter()
                    .map(|f| {
                        let b = len;
                        len += f.sources.len();
                        b
                    })
                    .collect()
            })
            .collect();
        Slots { base, len }
    }
}

/// Kits a worker keeps, and the instances they may hold together (each is a copy of an
/// analysed band).
pub(super) const KITS: usize = 16;
pub(super) const TEMPLATE_INSTANCES: usize = 4_000_000;

impl Template {
    /// Which kinds of source each (statement, read, piece) triple gave `an`'s reads (bits
    /// as in a template's `used`), or `None` when a template of it cannot serve (a piece index past
    /// `u8`).
    pub(super) fn used(an: &Analysed, ctx: &Ctx, slots: &Slots) -> Option<Vec<u8>> {
        let p = ctx.p;
        let mut used = vec![0u8; slots.len];
        let mut j = 0;
        for &k in &an.band.kind {
            for (r, a) in p.stmts[k].reads.iter().enumerate() {
                if p.vars[a.var].is_scalar_argument() {
                    continue;
                }
                let (s, i) = (an.srcs[j], *an.piece.get(j)?);
                j += 1;
                if i == u8::MAX {
                    return None;
                }
                let bit = match s.producer {
                    PackedSrc::LOCAL => 1,
                    PackedSrc::INITIAL => 4,
                    _ => 2,
                };
                used[slots.base[k][r] + i as usize] |= bit;
            }
        }
        Some(used)
    }

    /// A template of band `number`, analysed as `an`, its sources of the kinds `used`.
    pub(super) fn new(an: Arc<Analysed>, number: usize, used: Vec<u8>) -> Template {
        // The band's index already bounds each statement's iterators.
        let boxes =
            an.local.boxes.iter().map(|b| b.as_ref().map(|(_, dims)| dims.iter().map(|&(l, e)| (l, l + e as i64 - 1)).collect())).collect();
        Template { number, an, boxes, used }
    }

    /// The analysed band back, once neither the assembly nor a replica holds it any more.
    pub(super) fn release(self) -> Option<Analysed> {
        Arc::try_unwrap(self.an).ok()
    }

    pub(super) fn len(&self) -> usize {
        self.an.band.kind.len()
    }

    /// `raw` (a band as enumerated, in program order) analysed, into `out`, when it is a
    /// translate of this template's band (see the module comment); `false` (and `out` unspecified)
    /// otherwise.
    pub(super) fn translate(&self, raw: &Band, nest: usize, ctx: &Ctx, slots: &Slots, out: &mut Analysed) -> bool {
        let Ctx { p, params, sare, geo, survey, stored } = *ctx;
        let template = &*self.an;
        let n = self.len();
        if nest != template.at.nest || raw.kind.len() != n {
            return false;
        }
        // The instances: the template's, each statement's shifted by one vector.
        let mut delta: Vec<Option<Vec<i64>>> = vec![None; p.stmts.len()];
        for (o, &q) in template.sigma.iter().enumerate() {
            let k = template.band.kind[o];
            if raw.kind[q] != k || stored.get(raw.id[q]) != stored.get(template.band.id[o]) {
                return false;
            }
            let d = p.stmts[k].iters.len();
            let (now, then) = (&raw.iters(q)[..d], &template.band.iters(o)[..d]);
            match &delta[k] {
                Some(s) => {
                    if !now.iter().zip(then).zip(s).all(|((a, b), s)| a - b == *s) {
                        return false;
                    }
                }
                None => delta[k] = Some(now.iter().zip(then).map(|(a, b)| a - b).collect()),
            }
        }
        // Every hyperplane moves by the same whole number of tiles at every statement, so σ
        // orders the band as it ordered the template's and every instance keeps its sub-band.
        let mut moved: Option<Vec<i64>> = None;
        for (k, dk) in delta.iter().enumerate() {
            let Some(dk) = dk else { continue };
            let m: Vec<i64> = geo.phi[k].iter().map(|f| f.coef.iter().zip(dk).map(|(c, x)| c * x).sum()).collect();
            if m.iter().zip(&geo.sizes).any(|(x, s)| x % s != 0) || moved.as_ref().is_some_and(|v| *v != m) {
                return false;
            }
            moved = Some(m);
        }
        // Per (statement, read, piece): the shifts of DDR cells and producers.
        let np = params.len();
        let mut shift = vec![(0i64, 0i64); slots.len];
        let mut var_shift: HashMap<usize, i64> = HashMap::new();
        let mut producer_shift: HashMap<usize, i64> = HashMap::new();
        let triples = slots.base.iter().enumerate().flat_map(|(k, b)| b.iter().enumerate().map(move |(r, &b)| (k, r, b)));
        for (k, r, base) in triples {
            for (i, &kinds) in self.used[base..base + sare.reads[k][r].sources.len()].iter().enumerate() {
                if kinds == 0 {
                    continue;
                }
                let (Some(dk), Some(bx)) = (&delta[k], &self.boxes[k]) else { return false };
                let src = &sare.reads[k][r].sources[i];
                let (Some(outs), Some(conds)) = (src.rel.affine_outputs(), src.rel.affine_conditions()) else { return false };
                // The piece still applies exactly where it applied.
                for (coef, cst, eq) in conds {
                    let fixed = coef[..np].iter().zip(params).fold(cst, |a, (c, v)| a + c * v);
                    let moves: i64 = coef[np..].iter().zip(dk).map(|(c, x)| c * x).sum();
                    if moves == 0 {
                        continue;
                    }
                    let (lo, hi) = coef[np..]
                        .iter()
                        .zip(bx)
                        .fold((fixed, fixed), |(l, h), (c, (a, b))| (l + (c * a).min(c * b), h + (c * a).max(c * b)));
                    let keeps = if eq {
                        (lo > 0 && lo + moves > 0) || (hi < 0 && hi + moves < 0)
                    } else {
                        (lo >= 0 && lo + moves >= 0) || (hi < 0 && hi + moves < 0)
                    };
                    if !keeps {
                        return false;
                    }
                }
                // The source moves by the piece's linear part.
                let moved_src: Vec<i64> = outs.iter().map(|(c, _)| c[np..].iter().zip(dk).map(|(a, x)| a * x).sum()).collect();
                let a = &p.stmts[k].reads[r];
                let (cell, producer) = match src.stmt {
                    Some(sk) => {
                        if delta[sk].as_ref().is_some_and(|d| *d != moved_src) {
                            return false;
                        }
                        let w = &p.stmts[sk].write;
                        let zero = vec![0i64; moved_src.len()];
                        let index: Option<Vec<i64>> =
                            w.index.iter().map(|f| Some(f.eval(&moved_src, params).ok()? - f.eval(&zero, params).ok()?)).collect();
                        let Some(index) = index else { return false };
                        (
                            flat_shift(p.vars[w.var].dims.iter().copied(), &index),
                            flat_shift(survey.extent[sk].iter().map(|&e| e as i64), &moved_src),
                        )
                    }
                    None => (flat_shift(p.vars[a.var].dims.iter().copied(), &moved_src), 0),
                };
                if kinds & 6 != 0 {
                    let var = src.stmt.map_or(a.var, |sk| p.stmts[sk].write.var);
                    if *var_shift.entry(var).or_insert(cell) != cell {
                        return false;
                    }
                }
                if let (Some(sk), true) = (src.stmt, kinds & 2 != 0) {
                    if *producer_shift.entry(sk).or_insert(producer) != producer {
                        return false;
                    }
                }
                shift[base + i] = (cell, producer);
            }
        }
        // The band in σ order, its reads resolved as the template's, shifted.
        raw.permute_into(&template.sigma, &mut out.band);
        out.sigma.clone_from(&template.sigma);
        out.sub.clone_from(&template.sub);
        out.piece.clone_from(&template.piece);
        out.srcs.clear();
        out.srcs.reserve(template.srcs.len());
        let mut j = 0;
        for &k in &template.band.kind {
            for (r, a) in p.stmts[k].reads.iter().enumerate() {
                if p.vars[a.var].is_scalar_argument() {
                    continue;
                }
                let s = template.srcs[j];
                let (cell, producer) = shift[slots.base[k][r] + template.piece[j] as usize];
                j += 1;
                out.srcs.push(match s.producer {
                    PackedSrc::LOCAL => s,
                    PackedSrc::INITIAL => PackedSrc { at: s.at.wrapping_add_signed(cell), producer: PackedSrc::INITIAL },
                    id => PackedSrc { at: s.at.wrapping_add_signed(cell), producer: id.wrapping_add_signed(producer) },
                });
            }
        }
        true
    }
}

/// How far a flat index (an array cell, or a dense instance number) moves when its
/// coordinates move by `d`, with extents `dims` (last fastest).
fn flat_shift(dims: impl Iterator<Item = i64>, d: &[i64]) -> i64 {
    dims.zip(d).fold(0, |acc, (e, x)| acc * e + x)
}
