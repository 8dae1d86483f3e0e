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
//! * each read's DDR cells move by one constant, and so do the producers of one statement
//!   among reads whose cells move alike; two reads of one array whose cells move apart read
//!   disjoint cells in both bands; so reads that shared a load still do and the others still
//!   do not.
//!
//! The result is exactly what [`super::Band::analyse`] would give, and main then adds it as
//! a repeat of the template's band (`repeat.rs`).
//!
//! Most such bands are not even enumerated ([`Template::shifted`]): the walk of a band of a
//! template's size stops at each statement's first instance, whose shift from the template's
//! is the statement's shift; the statement's domain conditions (unchanged by the shift, or
//! holding over the template's bounding box shifted), the band hyperplanes (moving by whole
//! tiles to the band's) and the instance count then prove the band the template's shifted,
//! and main adds it from the template's distinct DDR reads and its stores, shifted. That
//! proof needs little of the template, so a band too big to keep whole (a streamed band)
//! still leaves a compact template ([`Template::compact`]) for it.
//!
//! Which bands a worker proves depends only on the bands it analysed itself, so construction
//! stays deterministic for a given worker count.

use super::geometry::Condition;
use super::{Analysed, Band, Ctx, PackedSrc};
use dpnc_frontend::ir::SchedTerm;
use std::collections::HashMap;
use std::sync::Arc;

/// An analysed band kept to prove later bands translates of it (shared with the assembly,
/// not copied: a template is as big as its band).
pub(super) struct Template {
    /// The band's number (over all nests), to find its effect on the network by.
    pub(super) number: usize,
    /// The analysed band, which [`Template::translate`] needs; `None` for a band too big to
    /// keep, which only [`Template::shifted`] uses.
    an: Option<Arc<Analysed>>,
    nest: usize,
    instances: usize,
    /// The dense instance numbers the band holds, as ranges of one statement.
    ranges: Vec<Ranges>,
    /// Per statement: its iterators' bounds over the band (`None`: not in the band).
    boxes: Vec<Option<Vec<(i64, i64)>>>,
    /// Per (statement, read, piece) triple (at [`Slots`]), the kinds of source the band's reads
    /// took from it (bits: 1 in the band, 2 from DDR, 4 an initial value; 0: unused).
    used: Vec<u8>,
    /// The band's tile coordinates, and per statement its first instance in program order.
    tiles: Vec<i64>,
    first: Vec<Option<Vec<i64>>>,
}

/// Dense instance numbers of one statement `start + s * stride + (0..len)` for `s` in
/// `0..count`: the rows of a band in its statement's box.
struct Ranges {
    k: usize,
    start: u64,
    len: u64,
    stride: u64,
    count: u64,
}

/// How a band proved a translate of a template without its enumeration ([`Template::shifted`])
/// moves the template's instances and sources.
pub(super) struct Shift {
    /// Per statement, the shift of its iterators (`None`: not in the band).
    pub(super) delta: Vec<Option<Vec<i64>>>,
    /// Per statement, the shift of its dense instance numbers.
    pub(super) ids: Vec<i64>,
    /// Per (statement, read, piece) triple (at [`Slots`]), the shifts of the DDR cell and of
    /// the producer's dense number.
    pub(super) slots: Vec<(i64, i64)>,
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

    /// How many (statement, read, piece) triples there are.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The dense number of read `r`'s source piece `piece` of statement `k`.
    pub(super) fn at(&self, k: usize, r: usize, piece: usize) -> usize {
        self.base[k][r] + piece
    }
}

/// Kits a worker keeps, and the instances they may hold together (each is a copy of an
/// analysed band).
pub(super) const KITS: usize = 16;
pub(super) const TEMPLATE_INSTANCES: usize = 4_000_000;

/// The instances `templates` hold together (a compact template holds none).
pub(super) fn held(templates: &[Template]) -> usize {
    templates.iter().map(Template::held).sum()
}

impl Template {
    /// Which kinds of source each (statement, read, piece) triple gave `an`'s reads (bits
    /// as in a template's `used`), or `None` when a template of it cannot serve (a piece index past
    /// `u8`).
    pub(super) fn used(an: &Analysed, ctx: &Ctx, slots: &Slots) -> Option<Vec<u8>> {
        let mut used = vec![0u8; slots.len];
        Template::mark_used(&mut used, &an.band, 0..an.band.kind.len(), &an.srcs, &an.piece, ctx, slots)?;
        Some(used)
    }

    /// [`Template::used`] of the reads of `band`'s instances `range` (σ positions), whose
    /// sources and pieces are `srcs` and `piece`, added to `used`.
    pub(super) fn mark_used(
        used: &mut [u8],
        band: &Band,
        range: std::ops::Range<usize>,
        srcs: &[PackedSrc],
        piece: &[u8],
        ctx: &Ctx,
        slots: &Slots,
    ) -> Option<()> {
        let p = ctx.p;
        let mut j = 0;
        for &k in &band.kind[range] {
            for (r, a) in p.stmts[k].reads.iter().enumerate() {
                if p.vars[a.var].is_scalar_argument() {
                    continue;
                }
                let (s, i) = (*srcs.get(j)?, *piece.get(j)?);
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
        Some(())
    }

    /// A template of band `number` at tile coordinates `tiles`, analysed as `an`, its sources
    /// of the kinds `used`.
    pub(super) fn new(an: Arc<Analysed>, number: usize, used: Vec<u8>, tiles: &[i64]) -> Template {
        let mut t = Template::compact(&an, number, used, tiles);
        t.an = Some(an);
        t
    }

    /// A template of band `number` that keeps what [`Template::shifted`] needs only.
    pub(super) fn compact(an: &Analysed, number: usize, used: Vec<u8>, tiles: &[i64]) -> Template {
        // The band's index already bounds each statement's iterators.
        let boxes: Vec<Option<Vec<(i64, i64)>>> =
            an.local.boxes.iter().map(|b| b.as_ref().map(|(_, dims)| dims.iter().map(|&(l, e)| (l, l + e as i64 - 1)).collect())).collect();
        // Per statement, the σ position of its first instance in program order.
        let mut first_at: Vec<Option<usize>> = vec![None; boxes.len()];
        for (o, (&k, &q)) in an.band.kind.iter().zip(&an.sigma).enumerate() {
            if first_at[k].is_none_or(|f| an.sigma[f] > q) {
                first_at[k] = Some(o);
            }
        }
        let first = first_at.iter().zip(&boxes).map(|(o, b)| Some(an.band.iters((*o)?)[..b.as_ref()?.len()].to_vec())).collect();
        let mut ids: Vec<(u64, usize)> = an.band.id.iter().copied().zip(an.band.kind.iter().copied()).collect();
        ids.sort_unstable();
        let mut runs: Vec<(usize, u64, u64)> = Vec::new();
        for (id, k) in ids {
            match runs.last_mut() {
                Some((rk, start, len)) if *rk == k && *start + *len == id => *len += 1,
                _ => runs.push((k, id, 1)),
            }
        }
        let mut ranges: Vec<Ranges> = Vec::new();
        for (k, start, len) in runs {
            match ranges.last_mut() {
                Some(r) if r.k == k && r.len == len && (r.count == 1 || start == r.start + r.count * r.stride) => {
                    if r.count == 1 {
                        r.stride = start - r.start;
                    }
                    r.count += 1;
                }
                _ => ranges.push(Ranges { k, start, len, stride: 0, count: 1 }),
            }
        }
        Template { number, an: None, nest: an.at.nest, instances: an.band.kind.len(), ranges, boxes, used, tiles: tiles.to_vec(), first }
    }

    /// Per statement, its first instance in the band in program order.
    pub(super) fn first(&self) -> &[Option<Vec<i64>>] {
        &self.first
    }

    /// The analysed band the template stands for, if it keeps it.
    pub(super) fn analysed(&self) -> Option<&Arc<Analysed>> {
        self.an.as_ref()
    }

    /// The analysed band back, once neither the assembly nor a replica holds it any more.
    pub(super) fn release(self) -> Option<Analysed> {
        Arc::try_unwrap(self.an?).ok()
    }

    /// The band's instances.
    pub(super) fn len(&self) -> usize {
        self.instances
    }

    /// The instances the template holds in memory.
    pub(super) fn held(&self) -> usize {
        self.an.as_ref().map_or(0, |an| an.band.kind.len())
    }

    /// `raw` (a band as enumerated, in program order) analysed, into `out`, when it is a
    /// translate of this template's band (see the module comment); `false` (and `out` unspecified)
    /// otherwise.
    pub(super) fn translate(&self, raw: &Band, nest: usize, ctx: &Ctx, slots: &Slots, out: &mut Analysed) -> bool {
        let Ctx { p, stored, .. } = *ctx;
        let Some(template) = self.an.as_deref() else { return false };
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
        let Some(shift) = self.slot_shifts(&delta, ctx, slots) else { return false };
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
    /// How band `tiles` of nest `nest`, of `n` instances, is this template's band shifted,
    /// proved without enumerating it: `first` gives each statement's first instance in the
    /// band in program order, whose shift from the template's is the statement's shift. The
    /// band then holds the template's instances shifted when
    /// * each shifted instance is one of the band's: every condition of its statement's domain
    ///   is unchanged by the shift or holds over the template's bounding box shifted, and every
    ///   band hyperplane moves by whole tiles to the band's;
    /// * the band has no other instance: it has as many as the template;
    /// * program order between statements is kept: two statements move alike along the loops
    ///   they share;
    /// * each shifted instance leaves its band exactly when the template's does.
    ///
    /// With the sources moved as in [`Template::translate`], the band then is what that would
    /// prove from its enumeration.
    pub(super) fn shifted(
        &self,
        tiles: &[i64],
        first: &[Option<Vec<i64>>],
        n: usize,
        nest: usize,
        ctx: &Ctx,
        slots: &Slots,
    ) -> Option<Shift> {
        let Ctx { p, geo, survey, stored, .. } = *ctx;
        if nest != self.nest || n != self.len() {
            return None;
        }
        let mut delta: Vec<Option<Vec<i64>>> = vec![None; p.stmts.len()];
        for (k, bx) in self.boxes.iter().enumerate() {
            let Some(bx) = bx else { continue };
            let (now, then) = (first[k].as_ref()?, self.first[k].as_ref()?);
            let d: Vec<i64> = now.iter().zip(then).map(|(a, b)| a - b).collect();
            for Condition { coef, cst, eq } in geo.domains[k].as_ref()? {
                let moves: i64 = coef.iter().zip(&d).map(|(c, x)| c * x).sum();
                let least = coef.iter().zip(bx).zip(&d).fold(*cst, |l, ((c, (a, b)), x)| l + (c * (a + x)).min(c * (b + x)));
                if moves != 0 && (*eq || least < 0) {
                    return None;
                }
            }
            // The band hyperplanes move from the template's tiles to the band's.
            let band_dims = geo.band_dims(k);
            if geo.phi[k].len() < band_dims || tiles.len() < band_dims || self.tiles.len() < band_dims {
                return None;
            }
            for (f, (size, (now, then))) in geo.phi[k].iter().zip(geo.sizes.iter().zip(tiles.iter().zip(&self.tiles))).take(band_dims) {
                if f.coef.iter().zip(&d).map(|(c, x)| c * x).sum::<i64>() != size * (now - then) {
                    return None;
                }
            }
            delta[k] = Some(d);
        }
        for a in 0..p.stmts.len() {
            for b in a + 1..p.stmts.len() {
                if let (Some(da), Some(db)) = (&delta[a], &delta[b]) {
                    let shared = shared_loops(&p.stmts[a].schedule, &p.stmts[b].schedule);
                    if da[..shared] != db[..shared] {
                        return None;
                    }
                }
            }
        }
        let ids: Vec<i64> = delta
            .iter()
            .enumerate()
            .map(|(k, d)| d.as_ref().map_or(0, |d| flat_shift(survey.extent[k].iter().map(|&e| e as i64), d)))
            .collect();
        if !self.ranges.iter().all(|r| stored.same_strided(r.start, r.start.wrapping_add_signed(ids[r.k]), r.len, r.stride, r.count)) {
            return None;
        }
        let slots = self.slot_shifts(&delta, ctx, slots)?;
        Some(Shift { delta, ids, slots })
    }

    /// Per (statement, read, piece) triple the template's reads used, how the source's DDR
    /// cell and producer move when each statement's instances move by `delta`; `None` when
    /// not every hyperplane moves by whole tiles alike, or some piece does not keep applying
    /// where it applied or does not move its sources alike (see the module comment).
    fn slot_shifts(&self, delta: &[Option<Vec<i64>>], ctx: &Ctx, slots: &Slots) -> Option<Vec<(i64, i64)>> {
        let Ctx { p, params, sare, geo, survey, .. } = *ctx;
        // Every hyperplane moves by the same whole number of tiles at every statement, so σ
        // orders the band as it ordered the template's and every instance keeps its sub-band.
        let mut moved: Option<Vec<i64>> = None;
        for (k, dk) in delta.iter().enumerate() {
            let Some(dk) = dk else { continue };
            let m: Vec<i64> = geo.phi[k].iter().map(|f| f.coef.iter().zip(dk).map(|(c, x)| c * x).sum()).collect();
            if m.iter().zip(&geo.sizes).any(|(x, s)| x % s != 0) || moved.as_ref().is_some_and(|v| *v != m) {
                return None;
            }
            moved = Some(m);
        }
        // Per (statement, read, piece): the shifts of DDR cells and producers.
        let np = params.len();
        let mut shift = vec![(0i64, 0i64); slots.len];
        let mut ddr: Vec<DdrSlot> = Vec::new();
        let mut producer_shift: HashMap<(usize, i64), i64> = HashMap::new();
        let triples = slots.base.iter().enumerate().flat_map(|(k, b)| b.iter().enumerate().map(move |(r, &b)| (k, r, b)));
        for (k, r, base) in triples {
            for (i, &kinds) in self.used[base..base + sare.reads[k][r].sources.len()].iter().enumerate() {
                if kinds == 0 {
                    continue;
                }
                let (Some(dk), Some(bx)) = (&delta[k], &self.boxes[k]) else { return None };
                let src = &sare.reads[k][r].sources[i];
                let (Some(outs), Some(conds)) = (src.rel.affine_outputs(), src.rel.affine_conditions()) else { return None };
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
                        return None;
                    }
                }
                // The source moves by the piece's linear part.
                let moved_src: Vec<i64> = outs.iter().map(|(c, _)| c[np..].iter().zip(dk).map(|(a, x)| a * x).sum()).collect();
                // The source's bounds over the template's box (its instance's, or its cell's).
                let reached: Option<Vec<(i64, i64)>> = outs
                    .iter()
                    .map(|(c, cst)| range_over(&c[np..], c[..np].iter().zip(params).fold(*cst, |a, (c, v)| a + c * v), bx))
                    .collect();
                let a = &p.stmts[k].reads[r];
                let (var, moves, cells, producer) = match src.stmt {
                    Some(sk) => {
                        if delta[sk].as_ref().is_some_and(|d| *d != moved_src) {
                            return None;
                        }
                        let w = &p.stmts[sk].write;
                        let zero = vec![0i64; moved_src.len()];
                        let index: Vec<i64> = w
                            .index
                            .iter()
                            .map(|f| Some(f.eval(&moved_src, params).ok()? - f.eval(&zero, params).ok()?))
                            .collect::<Option<_>>()?;
                        let cells = reached
                            .zip(geo.writes[sk].as_ref())
                            .and_then(|(at, cells)| cells.rows().map(|(c, k)| range_over(c, k, &at)).collect());
                        (w.var, index, cells, flat_shift(survey.extent[sk].iter().map(|&e| e as i64), &moved_src))
                    }
                    None => (a.var, moved_src, reached, 0),
                };
                let cell = flat_shift(p.vars[var].dims.iter().copied(), &moves);
                if kinds & 6 != 0 {
                    ddr.push(DdrSlot { var, read: (k, r), cell, moves, cells });
                }
                // Reads of one statement's values whose cells move alike must see its producers
                // move alike, so that those that shared a load still do; reads whose cells move
                // apart read disjoint cells (`loads_alike`), hence distinct producers, in both
                // bands (covariance's `data[k][i]` and `data[k][j]`, written by an earlier nest).
                if let (Some(sk), true) = (src.stmt, kinds & 2 != 0) {
                    if *producer_shift.entry((sk, cell)).or_insert(producer) != producer {
                        return None;
                    }
                }
                shift[base + i] = (cell, producer);
            }
        }
        loads_alike(&ddr).then_some(shift)
    }
}

/// A source piece the template's reads took from DDR: the array, the read (statement, read),
/// how far its cells move (flat, and per dimension), and their bounds in the template.
struct DdrSlot {
    var: usize,
    read: (usize, usize),
    cell: i64,
    moves: Vec<i64>,
    cells: Option<Vec<(i64, i64)>>,
}

/// Whether the band's reads from DDR share loads exactly where the template's did: each read
/// moves its cells by one constant (its channel's values keep their relative places), and two
/// reads of one array that move by different constants read disjoint cells in the template
/// and in the band (so neither shares a load with the other). Syrk's `A[i][k]` and `A[j][k]`
/// move apart from one band below the diagonal to the next.
fn loads_alike(ddr: &[DdrSlot]) -> bool {
    let apart = |a: &[(i64, i64)], da: &[i64], b: &[(i64, i64)], db: &[i64]| {
        a.iter().zip(b).zip(da.iter().zip(db)).any(|(((al, ah), (bl, bh)), (x, y))| ah + x < bl + y || bh + y < al + x)
    };
    ddr.iter().enumerate().all(|(i, a)| {
        ddr[i + 1..].iter().all(|b| {
            if a.var != b.var || a.cell == b.cell {
                return true;
            }
            if a.read == b.read {
                return false;
            }
            let (Some(ca), Some(cb)) = (&a.cells, &b.cells) else { return false };
            let still = vec![0; a.moves.len()];
            apart(ca, &still, cb, &still) && apart(ca, &a.moves, cb, &b.moves)
        })
    })
}

/// The least and greatest value of `coef · x + cst` over the box `bx` (`None` on overflow).
fn range_over(coef: &[i64], cst: i64, bx: &[(i64, i64)]) -> Option<(i64, i64)> {
    coef.iter()
        .zip(bx)
        .try_fold((cst, cst), |(l, h), (c, (a, b))| Some((l.checked_add((c * a).min(c * b))?, h.checked_add((c * a).max(c * b))?)))
}

/// How far a flat index (an array cell, or a dense instance number) moves when its
/// coordinates move by `d`, with extents `dims` (last fastest).
fn flat_shift(dims: impl Iterator<Item = i64>, d: &[i64]) -> i64 {
    dims.zip(d).fold(0, |acc, (e, x)| acc * e + x)
}

/// How many loops two statements share: the iterators in the common prefix of their 2d+1
/// schedules.
fn shared_loops(a: &[SchedTerm], b: &[SchedTerm]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).filter(|(x, _)| matches!(x, SchedTerm::Iter(..))).count()
}
