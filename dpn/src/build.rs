//! Construction of the DPN for concrete parameter values (DESIGN.md §4, paper §4–5).
//!
//! The statement instances are ordered by the tiled schedule σ = (nest, tile coordinates,
//! hyperplanes, original order). Walking σ band by band gives every process its operations:
//! a read whose source lies in the same band becomes a channel from the producer's process
//! to the consumer's port (Local or Sync); a read whose source lies in an earlier band, or
//! is an initial value, is loaded from DDR once per band at its first use and fanned out to
//! every port that needs it; a value read by a later band, or final, is stored once.
//! Channel kinds and sizes come from replaying σ: a channel's size is its peak occupancy,
//! which is enough for the network to complete under any timing (σ itself is a witness
//! schedule). Channels are empty between bands, so bands are replayed one at a time and
//! only a few are ever in memory.

use crate::ir::*;
use crate::scan::{BandScan, Run};
use crate::tiling::{self, Nest};
use crate::trace::*;
use crate::Error;
use cell::CellMap;
use cell_table::CellTable;
use dpnc_frontend::dataflow::Sare;
use dpnc_frontend::interp::{for_each_run, index_of, out_of_bounds};
use dpnc_frontend::ir::{Program, VarKind};
use dpnc_frontend::store::flatten;
use dpnc_frontend::Diagnostic;
use events::{Events, Log};
use line::{Line, Linear};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::*};
use std::sync::Arc;

mod bands;
mod cell;
mod cell_table;
mod events;
mod leaving;
mod line;
mod mark;
mod repeat;
mod replay;
mod stretch;
mod translate;

/// Tile sizes, parallelism and optional user hyperplanes.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// `--tile s1,s2,…` (the last size repeats for deeper nests).
    pub tile: Vec<i64>,
    /// `--par p1,p2,…` for the outer hyperplanes (missing ones are 1).
    pub par: Vec<i64>,
    /// `--hyperplanes "S0: i, j, 0; S1: i, j, k"`.
    pub hyperplanes: Option<String>,
    /// Refuse to build networks with more statement instances than this (0: 50 million
    /// with traces, 20 billion without).
    pub max_instances: u64,
    /// Say on stderr what is happening when the network is large (the CLI sets this).
    pub progress: bool,
    /// With `progress`: where the bands' progress goes (otherwise, plain lines on stderr).
    pub on_step: Option<OnStep>,
    /// Keep every process's trace, for the software executor (`exec`); without them,
    /// memory does not grow with the number of bands.
    pub keep_traces: bool,
    /// Derive what code generation needs (scratchpad windows, [`crate::sync`] predicates).
    pub codegen: bool,
    /// Assemble every band, even one that repeats an earlier band (see `build/repeat.rs`;
    /// the result is the same, only slower: for tests that compare both ways).
    pub every_band: bool,
    /// Bands of more than this many instances are resolved and assembled in chunks of
    /// this many, the worker resolving one while the assembly takes the last (0: bands
    /// over [`STREAM_ABOVE`] in chunks of [`CHUNK`]; tests set it small).
    pub chunk: usize,
}

/// A band this big is streamed (see [`Config::chunk`]): its analysis and assembly overlap
/// instead of running one after the other, and its reads' sources (16 bytes each) are
/// never held whole.
pub const STREAM_ABOVE: usize = 1 << 20;
/// Instances per chunk of a streamed band.
pub const CHUNK: usize = 1 << 16;

/// How far a long construction is: band `band` (from 0) of the `bands` of loop nest `nest`,
/// and for a band assembled in parts, the share of it done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub nest: usize,
    pub band: u64,
    pub bands: u64,
    /// Percent of a band assembled in parts.
    pub percent: Option<u64>,
}

/// Receives the [`Step`]s of a long construction (the command line draws a bar with them).
#[derive(Clone)]
pub struct OnStep(pub std::sync::Arc<dyn Fn(Step) + Send + Sync>);

impl std::fmt::Debug for OnStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnStep(…)")
    }
}

/// Tells `cfg.on_step`, or without one prints a line at most every two seconds.
fn tell(cfg: &Config, shown: &mut std::time::Instant, started: std::time::Instant, step: Step) {
    if let Some(on) = &cfg.on_step {
        return (on.0)(step);
    }
    if shown.elapsed().as_secs() >= 2 {
        *shown = std::time::Instant::now();
        let part = step.percent.map_or(String::new(), |pc| format!(", {pc}%"));
        eprintln!("dpnc:   nest {}: band {}/{}{part} ({:.0} s)", step.nest, step.band + 1, step.bands, started.elapsed().as_secs_f64());
    }
}

/// Says on stderr how long each step of a long construction took (steps over a second).
struct Phase {
    on: bool,
    last: std::cell::Cell<std::time::Instant>,
}

impl Phase {
    fn new(on: bool) -> Phase {
        Phase { on, last: std::cell::Cell::new(std::time::Instant::now()) }
    }
    fn done(&self, what: &str) {
        let took = self.last.get().elapsed().as_secs_f64();
        if self.on && took >= 1.0 {
            eprintln!("dpnc:   {what}: {took:.1} s");
        }
        self.last.set(std::time::Instant::now());
    }
}

/// The iterators `on` (with repeats, any order) of a statement with `n`, sorted; `None`
/// when they are all of them (see `Geometry::deps`).
fn some_of(mut on: Vec<usize>, n: usize) -> Option<Vec<usize>> {
    on.sort_unstable();
    on.dedup();
    (on.len() < n).then_some(on)
}

/// Tile sizes and parallelism per hyperplane, and where instances fall.
struct Geometry<'a> {
    nests: &'a [Nest],
    nest_of: Vec<usize>,
    /// Per statement: its hyperplanes and how many of them are band hyperplanes.
    phi: Vec<&'a [tiling::Affine]>,
    band_dims: Vec<usize>,
    /// `stays[k][r][i]`: see [`Geometry::compute_stays`].
    stays: Vec<Vec<Vec<bool>>>,
    /// `array_reads[k]`: the reads of statement `k` that take a source (all but scalar
    /// arguments, which are kernel registers).
    array_reads: Vec<Vec<usize>>,
    /// `deps[k][r]`: the iterators of `k` that read `r`'s source pieces depend on (outputs
    /// or conditions); `None` when that is all of them, or a piece is not affine.
    deps: Vec<Vec<Option<Vec<usize>>>>,
    /// `linear[k][r][i]`: source piece `i` of read `r` as affine functions of the reader,
    /// for following it along lines of instances (`build/line.rs`).
    linear: Vec<Vec<Vec<Option<Linear>>>>,
    /// Per statement: the cell its write goes to, as an affine map when it is one.
    writes: Vec<Option<CellMap>>,
    /// Per hyperplane depth: tile size and sub-bands (`--par`, at most the tile size).
    sizes: Vec<i64>,
    par: Vec<i64>,
}

impl<'a> Geometry<'a> {
    /// The geometry of the nests `nests` (statement `k` in nest `nest_of[k]`) tiled by
    /// `sizes` and `par` per hyperplane; `stays` is left to [`Geometry::compute_stays`].
    fn new(p: &Program, sare: &Sare, params: &[i64], nests: &'a [Nest], nest_of: Vec<usize>, sizes: Vec<i64>, par: Vec<i64>) -> Self {
        let phi = (0..p.stmts.len()).map(|k| nests[nest_of[k]].phi_of(k)).collect();
        let band_dims = (0..p.stmts.len()).map(|k| nests[nest_of[k]].dims.saturating_sub(1)).collect();
        Geometry {
            nests,
            nest_of,
            phi,
            band_dims,
            sizes,
            par,
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
    fn band_dims(&self, k: usize) -> usize {
        self.band_dims[k]
    }
    /// Per statement, read and source piece: whether the piece's source is always in the
    /// reader's band (same nest, and every band hyperplane takes the same value at source and
    /// reader, identically in the iterators), so that neither pass needs to check it.
    fn compute_stays(&self, p: &Program, sare: &Sare) -> Vec<Vec<Vec<bool>>> {
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
    fn band_shift(&self, p: &Program, k: usize, src: &dpnc_frontend::dataflow::Source) -> Option<Vec<(Vec<i64>, i64)>> {
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
    fn compute_margins(&self, p: &Program, sare: &Sare, params: &[i64]) -> Vec<Vec<Option<Margin>>> {
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
    fn write_cell(&self, p: &Program, params: &[i64], k: usize, it: &[i64]) -> Result<usize, Error> {
        match self.writes[k].as_ref().and_then(|c| c.cell(it)) {
            Some(cell) => Ok(cell),
            // Not affine, or out of bounds (then the slow path says where).
            None => cell_of(p, &p.stmts[k].write, it, params),
        }
    }
    /// Whether instance `it2` of `k2` lies in the band `tiles1` of a statement `k1`.
    fn in_band(&self, k1: usize, tiles1: &[i64], k2: usize, it2: &[i64]) -> bool {
        self.nest_of[k1] == self.nest_of[k2]
            && tiles1.iter().enumerate().all(|(d, t)| self.phi[k2][d].eval(it2).div_euclid(self.sizes[d]) == *t)
    }
    /// Whether every instance is in sub-band 0 (no `--par`): bands then keep no sub-band
    /// per instance.
    fn one_subband(&self) -> bool {
        self.par.iter().all(|&q| q == 1)
    }
    /// The parallel sub-band of an instance with hyperplane values `phi`, as one index.
    fn subband(&self, k: usize, phi: &[i64]) -> usize {
        (0..self.band_dims(k))
            .fold(0, |acc, d| acc * self.par[d] as usize + (phi[d].rem_euclid(self.sizes[d]) * self.par[d] / self.sizes[d]) as usize)
    }
    fn subband_coords(&self, k: usize, mut ix: usize) -> Vec<i64> {
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
type Margin = Vec<(i64, i64)>;

/// Pass 0: every statement's bounding box (dense instance numbers) and every nest's range
/// of band coordinates.
struct Survey {
    lo: Vec<Vec<i64>>,
    extent: Vec<Vec<u64>>,
    offset: Vec<u64>,
    /// Per nest, per band hyperplane: the range of tile coordinates (empty nest: `None`).
    bands: Vec<Option<Vec<(i64, i64)>>>,
    /// Per nest, per band (in σ order): its instances (`None` when band coordinates do not
    /// fit the survey's keys).
    sizes: Option<Vec<Vec<u64>>>,
    /// Per statement, its first instance in program order.
    first: Vec<Option<Vec<i64>>>,
    instances: u64,
    volume: u64,
}

impl Survey {
    fn new(p: &Program, params: &[i64], geo: &Geometry) -> Result<Survey, Error> {
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
    fn id_slope(&self, k: usize, delta: &[i64]) -> i128 {
        let mut stride = 1i128;
        let mut by = 0i128;
        for (d, e) in self.extent[k].iter().enumerate().rev() {
            by += delta[d] as i128 * stride;
            stride *= *e as i128;
        }
        by
    }
    /// Dense number of an instance (unique over all statements).
    fn id(&self, k: usize, it: &[i64]) -> Option<u64> {
        let mut x = 0u64;
        for ((v, l), e) in it.iter().zip(&self.lo[k]).zip(&self.extent[k]) {
            let d = v.checked_sub(*l).filter(|d| *d >= 0 && (*d as u64) < *e)? as u64;
            x = x * e + d;
        }
        Some(self.offset[k] + x)
    }
}

/// Instance → position in the band: per statement, an array over the band's own bounding
/// box of that statement's iterators. A band is a few tiles, so its box is at most a small
/// multiple of its size even when the tiles are skewed, whereas dense instance numbers of one
/// band can span whole planes of the domain (they follow the program's loops, not the tiles).
/// Boxes much larger than the band (odd domains) fall back to a map over dense numbers.
/// A statement's first slot in a [`LocalIndex`] and, per iterator, its low bound and extent.
type StmtBox = (usize, Vec<(i64, u64)>);

#[derive(Default)]
struct LocalIndex {
    /// Per statement: (first slot, per iterator its low bound and extent); `None` when the
    /// statement has no instance in the band.
    boxes: Vec<Option<StmtBox>>,
    /// Atomic: a streamed band's index is filled as it is enumerated while chunks before are
    /// being resolved ([`pipe`]).
    slots: Vec<AtomicU32>,
    map: Option<HashMap<u64, u32, SmallKeys>>,
}

impl LocalIndex {
    /// Indexes `band` (positions fit in `u32`: bands hold at most [`MAX_BAND`]).
    fn build(&mut self, p: &Program, band: &Band) {
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
    /// Starts an index of a band of `n` instances of `nest` to be filled as they come
    /// ([`LocalIndex::put`]), over the statements' whole boxes from the survey; `false` when
    /// those are too sparse for a dense index.
    fn start(&mut self, survey: &Survey, nest: &Nest, n: usize) -> bool {
        self.boxes.clear();
        self.boxes.resize(survey.lo.len(), None);
        let mut total = 0u64;
        for &k in &nest.stmts {
            let size = survey.extent[k].iter().try_fold(1u64, |a, e| a.checked_mul(*e)).unwrap_or(u64::MAX);
            self.boxes[k] = Some((total as usize, survey.lo[k].iter().copied().zip(survey.extent[k].iter().copied()).collect()));
            total = total.saturating_add(size);
        }
        if total > 16 * n as u64 + 1024 {
            return false;
        }
        self.map = None;
        self.slots.clear();
        self.slots.resize_with(total as usize, || AtomicU32::new(u32::MAX));
        true
    }
    /// Instance `it` of statement `k` is at position `o` (an index begun by [`LocalIndex::start`]).
    fn put(&self, k: usize, it: &[i64], o: usize) -> Option<()> {
        self.slots.get(self.slot(k, it)?)?.store(o as u32, Relaxed);
        Some(())
    }
    /// [`LocalIndex::put`] of `len` instances from `it`, the last iterator moving by `step`,
    /// at positions from `o` on (the last iterator is the box's innermost dimension: slots
    /// move by `step` too).
    fn put_run(&self, k: usize, it: &[i64], o: usize, len: u64, step: i64) -> Option<()> {
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
    fn slot(&self, k: usize, it: &[i64]) -> Option<usize> {
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
    fn dense_slot(&self, k: usize, it: &[i64]) -> Option<usize> {
        if self.map.is_some() {
            return None;
        }
        self.slot(k, it)
    }
    /// Position in the band of the instance at dense slot `x`, if the band holds it.
    fn at(&self, x: usize) -> Option<usize> {
        self.slots.get(x).map(|o| o.load(Relaxed)).filter(|o| *o != u32::MAX).map(|o| o as usize)
    }
    /// Position in the band of instance `it` of statement `k`, if the band holds it.
    fn get(&self, survey: &Survey, k: usize, it: &[i64]) -> Option<usize> {
        let o = match &self.map {
            Some(m) => *m.get(&survey.id(k, it)?)?,
            None => self.slots.get(self.slot(k, it)?)?.load(Relaxed),
        };
        (o != u32::MAX).then_some(o as usize)
    }
}

/// A fast hasher for the band-local maps (keys are small integers, not attacker-chosen).
#[derive(Clone, Copy, Default)]
struct SmallKeys;

struct SmallKeyHasher(u64);

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

/// A set of dense numbers, with ranks once [`Bits::index`] has run.
struct Bits {
    words: Vec<u64>,
    /// Per word, the members before it.
    before: Vec<u64>,
}

impl Bits {
    fn new(n: u64) -> Bits {
        Bits { words: vec![0; n.div_ceil(64) as usize], before: Vec::new() }
    }
    fn set(&mut self, i: u64) {
        self.words[(i / 64) as usize] |= 1 << (i % 64);
    }
    fn get(&self, i: u64) -> bool {
        self.words[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
    fn count(&self) -> u64 {
        self.words.iter().map(|w| w.count_ones() as u64).sum()
    }
    fn index(&mut self) {
        let mut n = 0;
        self.before = self
            .words
            .iter()
            .map(|w| {
                let b = n;
                n += w.count_ones() as u64;
                b
            })
            .collect();
    }
    /// Members below `i` (after [`Bits::index`]).
    fn rank(&self, i: u64) -> usize {
        let w = (i / 64) as usize;
        (self.before[w] + (self.words[w] & ((1u64 << (i % 64)) - 1)).count_ones() as u64) as usize
    }
}

/// Per channel, summed over the bands (channels are empty between bands: every value
/// written in a band is read in it).
#[derive(Clone, Default)]
struct ChanStats {
    size: usize,
    writes: u64,
    reads: u64,
    /// Every value first read in the order written.
    in_order: bool,
    /// The array the values belong to (its extents), and per dimension the widest span of
    /// simultaneously live cells (codegen only).
    extents: Vec<i64>,
    window: Vec<i64>,
}

/// Every point of a box (per dimension, an inclusive range), the last dimension fastest.
fn box_points(bbox: Vec<(i64, i64)>) -> impl Iterator<Item = Vec<i64>> {
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

/// What construction did beside the network it built; the network is the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Bands that repeated an assembled one (built from it, not assembled; see
    /// `build/repeat.rs`).
    pub repeated_bands: usize,
    /// Of those, the ones proved translates of an analysed band before their own analysis
    /// (`build/translate.rs`).
    pub translated_bands: usize,
    /// Bands resolved and assembled in chunks ([`Config::chunk`]).
    pub streamed_bands: usize,
}

/// A network with what its construction found out on the way.
#[derive(Clone, Debug)]
pub struct Construction {
    /// The network.
    pub dpn: Dpn,
    /// How it was built.
    pub stats: BuildStats,
    /// Every process's trace, with [`Config::keep_traces`] (otherwise empty).
    pub traces: Traces,
}

/// The network of kernel `p` for the shape `cfg` asks for.
pub fn build(p: &Program, sare: &Sare, cfg: &Config) -> Result<Dpn, Error> {
    construct(p, sare, cfg).map(|c| c.dpn)
}

/// The network with its construction's statistics and, with [`Config::keep_traces`], the
/// traces the software executor runs.
pub fn construct(p: &Program, sare: &Sare, cfg: &Config) -> Result<Construction, Error> {
    let params = p.param_values()?;
    if let Some(s) = cfg.tile.iter().find(|&&s| s < 1) {
        return Err(Diagnostic::global(format!("tile size {s} is not positive")).into());
    }
    if let Some(q) = cfg.par.iter().find(|&&q| q < 1) {
        return Err(Diagnostic::global(format!("parallelism {q} is not positive")).into());
    }
    let phase = Phase::new(cfg.progress);
    let nests = tiling::choose(p, &params, cfg.hyperplanes.as_deref())?;
    phase.done("tiling hyperplanes");
    let nest_of = tiling::nest_of(&nests, p.stmts.len());
    let depth = nests.iter().map(|n| n.dims).max().unwrap_or(0);
    // One shape may serve several kernels (a sweep, a test set), so values past this kernel's
    // hyperplanes are not an error; but the user is told they are not used.
    for (what, list) in [("--tile", &cfg.tile), ("--par", &cfg.par)] {
        if cfg.progress && list.len() > depth.max(1) {
            eprintln!(
                "dpnc: note: {what} gives {} values, but the deepest loop nest has {depth} tiling hyperplane{}: {} not used",
                list.len(),
                if depth == 1 { "" } else { "s" },
                list.len() - depth.max(1)
            );
        }
    }
    let sizes: Vec<i64> = (0..depth).map(|d| crate::shape::tile_size(&cfg.tile, d)).collect();
    // A value given for a hyperplane must fit its tile; the last value, repeated over the
    // hyperplanes after it, is capped at each tile size (and the user told so).
    for d in 0..depth {
        let (q, s) = (crate::shape::par_size(&cfg.par, d), sizes[d]);
        if q > s && d < cfg.par.len() {
            return Err(Diagnostic::global(format!(
                "--par {q} on hyperplane {d} exceeds the tile size {s}: a sub-band cannot be thinner than one iteration"
            ))
            .into());
        }
        if q > s && cfg.progress {
            eprintln!("dpnc: note: --par {q}, repeated on hyperplane {d}, is capped at its tile size {s}");
        }
    }
    let par: Vec<i64> = (0..depth).map(|d| crate::shape::par_size(&cfg.par, d).min(sizes[d])).collect();
    let mut geo = Geometry::new(p, sare, &params, &nests, nest_of.clone(), sizes, par);

    // Pass 0: how big, and where. Counting first refuses a kernel too large for the walk of
    // every instance below without walking them.
    let limit = match (cfg.max_instances, cfg.keep_traces) {
        (0, true) => 50_000_000,
        (0, false) => 20_000_000_000,
        (n, _) => n,
    };
    if let Err(size) = dpnc_frontend::interp::instance_total_up_to(p, &params, limit)? {
        let why = if cfg.keep_traces { "too large to execute as a software network" } else { "too large" };
        return Err(Diagnostic::global(format!("{size}: {why}; use smaller sizes")).into());
    }
    let survey = Survey::new(p, &params, &geo)?;
    let progress = cfg.progress && survey.instances > 2_000_000;
    if progress {
        eprintln!("dpnc: building the process network: {} statement instances…", survey.instances);
    }

    phase.done("survey of the instances");
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, MAX_WORKERS);
    let (stream_above, chunk) = if cfg.chunk == 0 { (STREAM_ABOVE, CHUNK) } else { (cfg.chunk, cfg.chunk) };
    // Whether band `bi` of nest `ni` is big enough to be streamed (pass 1 then walks it in parts).
    let big = |ni: usize, bi: usize| survey.sizes.as_ref().is_some_and(|s| s[ni][bi] > stream_above as u64);
    // Pass 1: values that leave their band (`build/leaving.rs`).
    geo.stays = geo.compute_stays(p, sare);
    let inputs = leaving::Inputs { p, sare, params: &params, geo: &geo, survey: &survey, nests: &nests, tile: &cfg.tile };
    let leaving::Leaving { mut stored, compulsory_writes } = leaving::mark_leaving(&inputs, workers, &big)?;
    stored.index();
    phase.done("values leaving their band");
    // Pass 2: band by band, in σ order (`build/bands.rs`).
    let ctx = Ctx { p, params: &params, sare, geo: &geo, survey: &survey, stored: &stored };
    let inputs = bands::Inputs { nests: &nests, cfg, stream_above, chunk, progress };
    let bands::Assembled { mut b, st, bands, stats } = bands::assemble_bands(&ctx, &inputs, workers)?;
    phase.done(&format!(
        "processes and channels, band by band ({} of {bands} bands repeat an earlier one, {} of them proved before their analysis)",
        stats.repeated_bands, stats.translated_bands
    ));
    describe_processes(p, &params, &nests, &nest_of, cfg, &mut b.processes)?;
    loop_nests(p, &params, &nests, &nest_of, cfg, &survey, &mut b.processes)?;
    let mut dpn = Dpn {
        kernel: p.kernel.clone(),
        params: p.params.iter().zip(&params).map(|(q, v)| (q.name.clone(), *v)).collect(),
        tile: cfg.tile.clone(),
        par: cfg.par.clone(),
        schedules: (0..p.stmts.len())
            .map(|k| Schedule { sigma: crate::sync::sigma(p, &nests, &cfg.tile, k), band: crate::sync::band_key(p, &nests, &cfg.tile, k) })
            .collect(),
        nests,
        bands,
        processes: b.processes,
        channels: b.channels,
        ddr_reads: st.ddr_reads,
        ddr_writes: st.ddr_writes,
        compulsory_reads: st.initial.iter().map(Bits::count).collect(),
        compulsory_writes,
    };
    let traces = Traces { per_process: b.traces, loads_needed: st.loads_needed };
    crate::relations::derive(p, sare, &mut dpn)?;
    phase.done("channel relations, muxes and demuxes (isl)");
    if cfg.codegen {
        crate::sync::derive(p, &mut dpn)?;
        phase.done("synchronisation predicates (isl)");
    }
    let errs = crate::validate::validate(p, &dpn, &traces);
    if !errs.is_empty() {
        return Err(Error::internal(format!("the process network is invalid:\n  {}", errs.join("\n  "))));
    }
    Ok(Construction { dpn, stats, traces })
}

/// Replays a band's channels (see `build/replay.rs`): on a thread of its own beside the
/// next band's assembly, or here with traces to mark or on `threads` > 1 (a streamed band,
/// whose replay the workers would wait for). One band replays at a time.
fn replay_band<'s>(
    scope: &'s std::thread::Scope<'s, '_>,
    pending: &mut Option<std::thread::ScopedJoinHandle<'s, replay::Job>>,
    scratch: &mut Scratch,
    b: &mut Builder,
    threads: usize,
) -> Result<(), Error> {
    join_replay(pending, scratch, b)?;
    if b.keep || threads > 1 {
        b.replay(scratch, threads);
    } else {
        let job = b.replay_job(scratch);
        *pending = Some(scope.spawn(move || job.run()));
    }
    Ok(())
}

/// Waits for the band replaying on its own thread, if any, and adds its figures.
fn join_replay(
    pending: &mut Option<std::thread::ScopedJoinHandle<'_, replay::Job>>,
    scratch: &mut Scratch,
    b: &mut Builder,
) -> Result<(), Error> {
    if let Some(h) = pending.take() {
        let job = h.join().map_err(|_| Error::internal("a replay thread panicked"))?;
        b.merge(job, scratch);
    }
    Ok(())
}

/// Whether σ orders a nest's one band as the program does, so that it can be assembled
/// as it is enumerated: one group of statements, and no hyperplane or only the outer loop
/// itself (`±i + c`, in the loop's direction, with one `c` for all statements).
fn program_ordered(p: &Program, nest: &Nest) -> bool {
    use dpnc_frontend::ir::SchedTerm;
    let Some(&first) = nest.stmts.first() else { return false };
    let outer = |k: usize| {
        let s = &p.stmts[k];
        match (s.schedule.first(), s.schedule.get(1), nest.phi_of(k).first()) {
            (Some(&top), Some(&SchedTerm::Iter(0, dir)), Some(f))
                if f.coef.first() == Some(&dir) && f.coef[1..].iter().all(|c| *c == 0) =>
            {
                Some((top, dir, f.cst))
            }
            _ => None,
        }
    };
    let one_group = nest.stmts.iter().all(|&k| nest.group(k) == nest.group(first));
    one_group
        && match nest.dims {
            0 => true,
            1 => outer(first).is_some() && nest.stmts.iter().all(|&k| outer(k) == outer(first)),
            _ => false,
        }
}

/// `f` at each instance of a run (`BandScan::walk`), in order, with `buf` for the iterators.
fn each(it: &[i64], len: u64, step: i64, buf: &mut Vec<i64>, mut f: impl FnMut(&[i64]) -> Result<(), Error>) -> Result<(), Error> {
    buf.clear();
    buf.extend_from_slice(it);
    for _ in 0..len {
        f(buf)?;
        if let Some(x) = buf.last_mut() {
            *x += step;
        }
    }
    Ok(())
}

/// Where a band stands: band `band` (from 0) of the `bands` of loop nest `nest`.
#[derive(Clone, Copy, Debug, Default)]
struct BandAt {
    nest: usize,
    band: u64,
    bands: u64,
}

/// A band to pipe (see [`pipe`]).
struct PipedBand<'a> {
    at: BandAt,
    /// Its instances.
    n: usize,
    /// Its walk.
    scan: &'a BandScan<'a>,
    /// Its tile coordinates.
    tiles: &'a [i64],
    /// Its index, begun: filled as the walk goes.
    index: &'a LocalIndex,
    /// The templates the worker dropped since its last band (their effects are no longer
    /// needed).
    evicted: Vec<usize>,
}

/// Enumerates `band` in program order (σ, see [`program_ordered`]) and sends it to the
/// assembly on `tx`, `chunk` instances at a time with their reads' sources, indexing it as it
/// goes; chunks come back on `back` to be reused. The band is never held whole, and its
/// assembly starts with its first chunk. `false` when the worker is to stop (an error was
/// sent, or the assembly is gone).
fn pipe(
    ctx: &Ctx,
    band: PipedBand,
    chunk: usize,
    tx: &std::sync::mpsc::SyncSender<Result<Msg, Error>>,
    back: &std::sync::mpsc::Receiver<Box<Chunk>>,
) -> bool {
    let PipedBand { at, n, scan, tiles, index, evicted } = band;
    let (odd_tx, odd) = std::sync::mpsc::sync_channel(QUEUE);
    if tx.send(Ok(Msg::Piped { at, n, evicted, odd })).is_err() {
        return false;
    }
    let stride = Band::new(ctx.p).stride;
    let fresh = || {
        let mut c = back.try_recv().unwrap_or_default();
        c.band.stride = stride;
        c.band.lean = ctx.geo.one_subband();
        c.band.clear();
        c.sub.clear();
        c.walk.clear();
        c.plan.clear();
        c.srcs.clear();
        c.piece.clear();
        c
    };
    // Resolves the instances of `c` and sends them on `to`; `false` when the assembly is gone.
    let send = |mut c: Box<Chunk>, to: &std::sync::mpsc::SyncSender<Result<Msg, Error>>| -> Result<bool, Error> {
        let len = c.band.kind.len();
        if !ctx.geo.one_subband() {
            c.sub.extend((0..len).map(|o| ctx.geo.subband(c.band.kind[o], c.band.phi(o))));
        }
        let part = Part { base: c.range.start, band: &c.band, sub: &c.sub };
        let (mut srcs, mut piece) = (std::mem::take(&mut c.srcs), std::mem::take(&mut c.piece));
        let (mut plan, mut slow) = (std::mem::take(&mut c.plan), std::mem::take(&mut c.slow));
        plan.make(ctx, part, index, &c.walk, &mut slow);
        resolve(ctx, part, index, &slow, &mut srcs, &mut piece)?;
        (c.srcs, c.piece, c.plan, c.slow) = (srcs, piece, plan, slow);
        Ok(to.send(Ok(Msg::Chunk(c))).is_ok())
    };
    std::thread::scope(|scope| {
        // Odd chunks go to a second thread: resolution is most of the work, and the index it
        // reads is complete up to the chunk (a source comes before its reader in σ).
        let (job_tx, jobs) = std::sync::mpsc::sync_channel::<Box<Chunk>>(2);
        let send = &send;
        let odd_err = odd_tx.clone();
        scope.spawn(move || {
            for c in jobs {
                match send(c, &odd_tx) {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(e) => {
                        let _ = odd_tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        let mut c = fresh();
        let (mut count, mut sent, mut gone) = (0usize, 0usize, false);
        let mut dispatch = |mut c: Box<Chunk>, count: usize| -> Result<(), Error> {
            c.range = count - c.band.kind.len()..count;
            let ok = if sent % 2 == 0 { send(c, tx)? } else { job_tx.send(c).is_ok() };
            sent += 1;
            if ok {
                Ok(())
            } else {
                gone = true;
                Err(Error::internal("the assembly stopped"))
            }
        };
        let mut run = Vec::new();
        let walked = scan.walk(tiles, &mut |k, it, len, step| {
            // The run in pieces that end at chunk boundaries.
            run.clear();
            run.extend_from_slice(it);
            let mut left = len;
            while left > 0 {
                let m = left.min((chunk - c.band.kind.len()) as u64);
                if count as u64 + m > n as u64 {
                    return Err(Error::internal("a band larger than its survey"));
                }
                c.walk.push((c.band.kind.len(), m as usize, step));
                c.band.push_run(ctx.geo, ctx.survey, k, &run, m, step)?;
                index.put_run(k, &run, count, m, step).ok_or_else(|| Error::internal("instance outside its bounding box"))?;
                count += m as usize;
                if let Some(x) = run.last_mut() {
                    *x += m as i64 * step;
                }
                left -= m;
                if c.band.kind.len() == chunk {
                    dispatch(std::mem::replace(&mut c, fresh()), count)?;
                }
            }
            Ok(())
        });
        let done = walked.and_then(|()| {
            if !c.band.kind.is_empty() {
                dispatch(c, count)?;
            }
            if count != n {
                return Err(Error::internal("a band smaller than its survey"));
            }
            Ok(())
        });
        match done {
            Ok(()) => true,
            Err(e) => {
                // Where the assembly looks for the next chunk.
                if !gone && sent % 2 == 0 {
                    let _ = tx.send(Err(e));
                } else if !gone {
                    let _ = odd_err.send(Err(e));
                }
                false
            }
        }
    })
}

/// Which worker takes each band (numbered over all nests, in σ order), and whether a later
/// band of its nest has its size (it may then have translates: `build/translate.rs` keeps
/// templates of those only). Bands of one size go to one worker, so that its templates meet their
/// translates; a new size goes to the worker with the least work so far (a band counts its
/// instances, a later band of a size already dealt a quarter of them: it is likely a
/// translate, which costs its enumeration only).
fn assign_bands(survey: &Survey, workers: usize) -> (Vec<usize>, Vec<bool>) {
    let Some(sizes) = &survey.sizes else {
        let n: usize = survey.bands.iter().flatten().map(|r| band_tiles(r).count()).sum();
        return ((0..n).map(|b| b % workers).collect(), vec![true; n]);
    };
    let (mut owner, mut may_repeat) = (Vec::new(), Vec::new());
    let mut load = vec![0u64; workers];
    for nest in sizes {
        let mut later = std::collections::HashSet::new();
        let mut t = vec![false; nest.len()];
        for (bi, &n) in nest.iter().enumerate().rev() {
            t[bi] = n > 0 && !later.insert(n);
        }
        may_repeat.extend(t);
        let mut class: HashMap<u64, usize> = HashMap::new();
        for &n in nest {
            let w = match class.get(&n) {
                Some(&w) => {
                    load[w] += n / 4;
                    w
                }
                None => {
                    let w = (0..workers).min_by_key(|&w| load[w]).unwrap_or(0);
                    load[w] += n;
                    class.insert(n, w);
                    w
                }
            };
            owner.push(w);
        }
    }
    (owner, may_repeat)
}

/// `n` ranges of about equal length covering the nest's outer loop, in the order the loop
/// runs (one `None`, the whole band, when `n` is 1 or the nest cannot be cut).
fn parts(scan: &BandScan, n: usize) -> Vec<Option<(i64, i64)>> {
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
fn key_part(t: i64) -> u128 {
    (t + (1 << 19)) as u128 & 0xfffff
}

/// The tile coordinates of a nest's bands, last hyperplane fastest (the order of σ).
fn band_tiles(range: &[(i64, i64)]) -> impl Iterator<Item = Vec<i64>> + '_ {
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

/// Threads that enumerate and analyse bands (beside the one that assembles them): each
/// holds a band or two in memory.
const MAX_WORKERS: usize = 4;
/// Runs at least this long are marked in pass 1 along their lines (`build/mark.rs`); single
/// instances go point by point, where consecutive ones share work.
const LONG_RUN: u64 = 2;

/// Messages a worker may send ahead of the assembly. A nest's big bands alternate with
/// runs of small ones and repeats, which the workers get through while the assembly is on
/// a big band (with one message ahead they would wait for it instead).
const QUEUE: usize = 16;

/// Instances of the bands a worker has sent that the assembly has not taken yet, past
/// which it waits before its next band (memory: a few big bands, not [`QUEUE`]).
const AHEAD_INSTANCES: usize = 1 << 21;

/// Assembled bands kept to recognise repeats by (a nest's bands repeat a few shapes: first,
/// interior and last along each band hyperplane); only bands up to `MAX_BAND / REPLICAS`
/// instances are kept, so that they hold no more memory than one band may.
const REPLICAS: usize = 4;

/// Instances one band may hold: construction keeps a few bands in memory, at about 200
/// bytes per instance.
const MAX_BAND: usize = 40_000_000;

/// Instances a piped band may hold (see [`pipe`]): it is never held whole, only its
/// index and per instance its process and demux bits (some 20 bytes), with its channels'
/// events as runs. Floyd-Warshall's one band at PolyBench's MEDIUM size holds 125 million.
const MAX_PIPED: usize = 200_000_000;

// Times of σ inside a band (4 per instance, doubled for the read bit) fit an event's `u32`.
const _: () = assert!(8 * MAX_PIPED as u64 + 8 <= u32::MAX as u64 && MAX_BAND <= MAX_PIPED);

/// Refuses a band over `limit` instances.
fn band_too_large(nest: &Nest, limit: usize) -> Diagnostic {
    let (why, help) = match nest.dims {
        0 => ("the nest has no legal tiling hyperplane, so it is one band", "use smaller sizes"),
        1 => ("the nest has a single tiling hyperplane, so it is one band whatever the tile size", "use smaller sizes"),
        _ => ("the tiles are too large", "use smaller sizes or tiles"),
    };
    Diagnostic::global(format!(
        "a band of nest {} holds more than {limit} statement instances ({why}): too large to build; {help}",
        nest.stmts.iter().map(|s| format!("S{s}")).collect::<Vec<_>>().join(" ")
    ))
}

fn source_outside(p: &Program, k: usize, it: &[i64]) -> Error {
    Error::internal(format!("source instance {}{it:?} outside its domain", p.stmts[k].name))
}

/// State that lives across bands.
struct Streams {
    load_proc: HashMap<usize, usize, SmallKeys>,
    store_proc: HashMap<usize, usize, SmallKeys>,
    compute_proc: HashMap<(usize, usize), usize, SmallKeys>,
    /// DDR versions: the k-th store of a cell creates version k (0 = the initial value).
    versions: Vec<CellTable<u32>>,
    /// The DDR version each stored value created, by the value's rank among stored values.
    version_of_value: Vec<u32>,
    loads_needed: HashMap<CellVersion, u32>,
    ddr_reads: Vec<u64>,
    ddr_writes: Vec<u64>,
    /// Value ids: a computed value is its instance's rank in σ; loaded values come after.
    next_vid: u64,
    next_load_vid: u64,
    /// Bands so far; per variable and cell, the last band that loaded it: (band, version,
    /// index among the band's loads). A second version of a cell in one band (rare) goes
    /// to a map.
    band_no: u32,
    load_slot: Vec<CellTable<(u32, u32, u32)>>,
    /// Per variable, the cells whose initial value is read (the compulsory reads).
    initial: Vec<Bits>,
}

impl Streams {
    /// The DDR version a read from `cell` of `var` needs: that of its producer's store
    /// (`None`: the initial value, a compulsory read).
    fn version_read(&mut self, stored: &Bits, var: usize, cell: usize, producer: Option<u64>) -> Result<u32, Error> {
        match producer {
            Some(id) => match self.version_of_value[stored.rank(id)] {
                0 => Err(Error::internal("a value is loaded before it is stored")),
                v => Ok(v),
            },
            None => {
                self.initial[var].set(cell as u64);
                Ok(0)
            }
        }
    }
    /// The next version of `cell` of `var`, created by storing the value of instance `id`.
    fn version_store(&mut self, stored: &Bits, var: usize, cell: usize, id: u64) -> u32 {
        let v = self.versions[var].get_mut(cell);
        *v += 1;
        self.version_of_value[stored.rank(id)] = *v;
        *v
    }
}

/// The instances of one band, in program order (iterators and hyperplane values are
/// stored flat, `stride` per instance).
#[derive(Default)]
struct Band {
    stride: usize,
    kind: Vec<usize>,
    iters: Vec<i64>,
    phi: Vec<i64>,
    /// Tile coordinate along the last hyperplane (the σ order inside the band).
    last: Vec<i64>,
    id: Vec<u64>,
    /// Without hyperplane values and tile coordinates: a piped chunk's (already in σ
    /// order) when it has no sub-bands to find.
    lean: bool,
}

/// Buffers of the assembly reused from band to band (allocating them afresh per band costs
/// page faults).
#[derive(Default)]
struct Scratch {
    /// Per band value: its producer and the channels it is already written to (together:
    /// sources are read far apart in σ, one cache miss fetches both).
    band_values: Vec<BandValue>,
    /// Per band value: the producer's operation (only with traces).
    op_index: Vec<usize>,
    /// Per channel: (band number, its bit in [`BandValue`] in that band, [`BandValue::BITS`] if none).
    chan_bit: Vec<(u32, u32)>,
    /// Per channel: its writes, then its reads (already in σ order, as pushed).
    events: Vec<Events>,
    reads: Vec<Events>,
    /// Per channel: its reads folded into the read after them (same value, back to back).
    again: Vec<u64>,
    /// Per replaying thread here, its buffers; a replayed job's buffers for the next band.
    replay: Vec<replay::ReplayBufs>,
    spare: Option<replay::ReplayBuffers>,
    /// Per read of every statement (from `read_base[statement]`): the channel it last took.
    read_base: Vec<usize>,
    ports: Vec<Port>,
    /// Band-local value id → flat array cell (codegen only).
    cells: replay::ValueCells,
    /// Per process, its operations before the band.
    op_base: Vec<usize>,
}

impl Scratch {
    fn new(p: &Program) -> Scratch {
        let reads = p.stmts.iter().map(|s| s.reads.len()).sum();
        Scratch {
            read_base: p.stmts.iter().scan(0, |at, s| Some(std::mem::replace(at, *at + s.reads.len()))).collect(),
            ports: vec![
                Port {
                    local: Route::NONE,
                    ddr: Route::NONE,
                    again: DdrRead { band: 0, consumer: 0, cell: 0, producer: None },
                    vid: 0
                };
                reads
            ],
            ..Scratch::default()
        }
    }
}

/// A value computed in the current band, in 8 bytes (a band holds up to [`MAX_PIPED`], and
/// fresh memory is slow to touch): one bit per channel among the band's first
/// [`BandValue::BITS`] (see `Scratch::chan_bit`) that it is already written to, and above them
/// its compute process.
#[derive(Clone, Copy, Default)]
struct BandValue(u64);

impl BandValue {
    const BITS: u32 = 48;
    fn new(proc: u16) -> BandValue {
        BandValue((proc as u64) << BandValue::BITS)
    }
    fn proc(self) -> usize {
        (self.0 >> BandValue::BITS) as usize
    }
    /// Marks the value written to the channel of bit `bit`: whether it was not yet.
    fn write(&mut self, bit: u32) -> bool {
        let new = self.0 >> bit & 1 == 0;
        self.0 |= 1 << bit;
        new
    }
}

/// The channels a read last took (a channel is found by its producer, consumer and port,
/// and a read takes the same one many times over): (producer, consumer, channel) from a
/// compute process, (consumer, load process, channel) from DDR.
#[derive(Clone, Copy)]
struct Port {
    /// The channel from a compute process it last took.
    local: Route,
    /// The channel from a load process it last took.
    ddr: Route,
    /// The DDR value it last read.
    again: DdrRead,
    /// That value's id.
    vid: u32,
}

/// A channel between two processes, found by its ends.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Route {
    /// The producer (from a compute process) or the consumer (from DDR).
    from: u32,
    /// The consumer (from a compute process) or the load process (from DDR).
    to: u32,
    channel: u32,
}

impl Route {
    const NONE: Route = Route { from: u32::MAX, to: u32::MAX, channel: 0 };
}

/// One DDR value read by one consumer in one band: a read that finds the same again reuses
/// the load.
#[derive(Clone, Copy, PartialEq, Eq)]
struct DdrRead {
    band: u32,
    consumer: u32,
    cell: u64,
    /// The store whose version it is (`None`: the initial value).
    producer: Option<u64>,
}

/// A loaded value of the current band.
struct Loaded {
    /// The stored value loaded (`None`: the initial value).
    producer: Option<u64>,
    op: usize,
    vid: usize,
    at: u64,
    outs: Vec<usize>,
}

impl Band {
    fn new(p: &Program) -> Band {
        let stride = p.stmts.iter().map(|s| s.iters.len()).max().unwrap_or(0);
        Band { stride, kind: Vec::new(), iters: Vec::new(), phi: Vec::new(), last: Vec::new(), id: Vec::new(), lean: false }
    }
    fn push(&mut self, geo: &Geometry, survey: &Survey, k: usize, it: &[i64]) -> Result<(), Error> {
        self.kind.push(k);
        self.iters.extend(it);
        self.iters.resize(self.kind.len() * self.stride, 0);
        if !self.lean {
            let phi = geo.phi[k];
            self.phi.extend(phi.iter().map(|f| f.eval(it)));
            self.phi.resize(self.kind.len() * self.stride, i64::MIN);
            self.last.push(phi.len().checked_sub(1).map_or(0, |d| phi[d].eval(it).div_euclid(geo.sizes[d])));
        }
        self.id.push(survey.id(k, it).ok_or_else(|| Error::internal("instance outside its bounding box"))?);
        Ok(())
    }
    /// [`Band::push`] of a run of `len` instances from `it` along its last iterator: the
    /// hyperplanes and dense numbers move by a constant per step.
    fn push_run(&mut self, geo: &Geometry, survey: &Survey, k: usize, it: &[i64], len: u64, step: i64) -> Result<(), Error> {
        let Some(d) = it.len().checked_sub(1).filter(|_| len > 1) else { return self.push(geo, survey, k, it) };
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
        if !self.lean {
            let phi = geo.phi[k];
            let (f0, g): (Vec<i64>, Vec<i64>) = phi.iter().map(|f| (f.eval(it), f.coef.get(d).copied().unwrap_or(0) * step)).unzip();
            for j in 0..len as i64 {
                let at = self.phi.len();
                self.phi.extend(f0.iter().zip(&g).map(|(f, g)| f + g * j));
                self.phi.resize(at + self.stride, i64::MIN);
                self.last.push(phi.len().checked_sub(1).map_or(0, |b| (f0[b] + g[b] * j).div_euclid(geo.sizes[b])));
            }
        }
        self.id.extend((0..len as i64).map(|j| id.wrapping_add_signed(j * step)));
        Ok(())
    }
    fn clear(&mut self) {
        self.kind.clear();
        self.iters.clear();
        self.phi.clear();
        self.last.clear();
        self.id.clear();
    }
    /// The band with its instances in the order `sigma`, into `out` (without hyperplane
    /// values: only the analysis needs them, from the unsorted band).
    fn permute_into(&self, sigma: &[usize], out: &mut Band) {
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
    fn iters(&self, o: usize) -> &[i64] {
        &self.iters[o * self.stride..o * self.stride + self.stride]
    }
    fn phi(&self, o: usize) -> &[i64] {
        &self.phi[o * self.stride..(o + 1) * self.stride]
    }

    /// Sorts the band by σ (into a recycled [`Analysed`] if given) and resolves every
    /// read: produced in the band (by which instance) or from DDR (which cell, which
    /// producer). Pure: runs beside the assembly of the previous band.
    fn analyse(&mut self, ctx: &Ctx, recycled: Option<Analysed>, at: BandAt) -> Result<Analysed, Error> {
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
    fn prepare(&mut self, ctx: &Ctx, recycled: Option<Analysed>, at: BandAt) -> Analysed {
        let Ctx { p, geo, .. } = *ctx;
        let mut an = recycled.unwrap_or_else(|| Analysed::new(p));
        an.at = at;
        an.translate_of = None;
        an.template = false;
        let n = self.kind.len();
        // σ inside the band: last tile coordinate, group, hyperplanes (in the statement's
        // point order), program order. A counting
        // sort on the last tile coordinate, then a stable sort of each bucket by hyperplanes
        // (nearly sorted already: program order often agrees with φ). The band is then
        // rearranged in that order, so that position = rank in σ.
        let (lo, hi) = self.last.iter().fold((i64::MAX, i64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        // A bucket per value in the range, or, when the values are sparse (a hyperplane with a
        // huge coefficient), per distinct value: the range could not be allocated.
        let distinct: Option<Vec<i64>> = (hi as i128 - lo as i128 > 2 * n as i128).then(|| {
            let mut v = self.last.clone();
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
        for &x in &self.last {
            start[bucket(x) + 1] += 1;
        }
        for i in 0..buckets {
            start[i + 1] += start[i];
        }
        let sigma = &mut an.sigma;
        sigma.clear();
        sigma.resize(n, 0);
        let mut fill = start.clone();
        for (o, &x) in self.last.iter().enumerate() {
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
        let val = |o: usize, m: usize| if m == depth { group[self.kind[o]] } else { self.phi(o)[order[self.kind[o]][m]] };
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
            an.sub.extend(an.sigma.iter().zip(&an.band.kind).map(|(&o, &k)| geo.subband(k, self.phi(o))));
        }
        an
    }
}

impl Analysed {
    /// Resolves every read of the band's instances `range` (positions in σ), appending
    /// their sources to `srcs` and source pieces to `piece`: produced in the band (by which
    /// instance) or from DDR (which cell, which producer). Pure: runs beside an assembly.
    fn resolve(&self, ctx: &Ctx, range: std::ops::Range<usize>, srcs: &mut Vec<PackedSrc>, pieces: &mut Vec<u8>) -> Result<(), Error> {
        resolve(ctx, self.part(), &self.local, &[range], srcs, pieces)
    }
    /// The whole band as a [`Part`].
    fn part(&self) -> Part<'_> {
        Part { base: 0, band: &self.band, sub: &self.sub }
    }
}

/// Instances of a band from position `base` in σ on: a whole band, or one streamed chunk.
#[derive(Clone, Copy)]
struct Part<'a> {
    base: usize,
    band: &'a Band,
    /// Per instance, its parallel sub-band (empty: all in sub-band 0, see
    /// [`Geometry::one_subband`]).
    sub: &'a [usize],
}

/// Instances of a band for its assembly: `range` of `part`, with `srcs` the sources of their
/// reads and `plan` their stretches (see `build/stretch.rs`; empty: one instance at a time).
struct Feed<'a> {
    part: Part<'a>,
    range: std::ops::Range<usize>,
    srcs: &'a [PackedSrc],
    plan: &'a stretch::Plan,
}

/// [`Analysed::resolve`] for the instances `ranges` of `part` (in order), whose band `local`
/// indexes (at least up to their end: a source comes before its reader in σ).
fn resolve(
    ctx: &Ctx,
    part: Part,
    local: &LocalIndex,
    ranges: &[std::ops::Range<usize>],
    srcs: &mut Vec<PackedSrc>,
    pieces: &mut Vec<u8>,
) -> Result<(), Error> {
    let Ctx { p, params, sare, geo, survey, .. } = *ctx;
    let band = part.band;
    let mut src = Vec::new();
    // Sources found in the band's dense index are resolved AHEAD reads later, once the
    // slot asked for has arrived: (position in `srcs`, statement, read, piece, slot),
    // with the source's iterators `stride` each in `ring_src`.
    let mut ring: Vec<(usize, usize, usize, usize, usize)> = Vec::with_capacity(AHEAD);
    let mut ring_src = vec![0i64; AHEAD * band.stride];
    let mut next = 0usize;
    let resolve = |k: usize, r: usize, piece: usize, here: Option<usize>, src: &[i64]| -> Result<Src, Error> {
        match here {
            Some(so) => Ok(Src::Local(so)),
            None => ddr_source(ctx, k, r, piece, src),
        }
    };
    let stride = band.stride;
    // Per read: its line (the piece that matched last, tried first).
    let mut lines: Vec<Vec<Line>> = p.stmts.iter().map(|s| vec![Line::default(); s.reads.len()]).collect();
    // Per read: where in `srcs` it was last resolved and at which instance; an instance
    // equal to that one on the iterators its source depends on has the same source (a
    // scalar, a row element along a loop that does not move it), copied at the end.
    let mut last: Vec<Vec<Option<(usize, usize)>>> = p.stmts.iter().map(|s| vec![None; s.reads.len()]).collect();
    // Reads that take an earlier read's source, filled at the end (to, from).
    let mut copies: Vec<(usize, usize)> = Vec::new();
    let settle = |e: (usize, usize, usize, usize, usize), src: &[i64], srcs: &mut Vec<PackedSrc>| -> Result<(), Error> {
        let (at, k, r, piece, x) = e;
        srcs[at] = PackedSrc::pack(match local.at(x) {
            Some(so) => Src::Local(so),
            None => resolve(k, r, piece, None, &src[..p.stmts[sare.reads[k][r].sources[piece].stmt.unwrap_or(k)].iters.len()])?,
        });
        Ok(())
    };
    for o in ranges.iter().flat_map(|r| r.start - part.base..r.end - part.base) {
        let k = band.kind[o];
        let s = &p.stmts[k];
        let it = &band.iters(o)[..s.iters.len()];
        for &r in &geo.array_reads[k] {
            let again = match (last[k][r], &geo.deps[k][r]) {
                (Some((at, o)), Some(deps)) if deps.iter().all(|&d| band.iters(o)[d] == it[d]) => Some(at),
                _ => None,
            };
            // A place for the source of the read at `from`, filled at the end.
            let copy = |from: usize, srcs: &mut Vec<PackedSrc>, pieces: &mut Vec<u8>, copies: &mut Vec<(usize, usize)>| {
                copies.push((srcs.len(), from));
                srcs.push(PackedSrc::pack(Src::Local(0)));
                pieces.push(pieces[from]);
            };
            if let Some(from) = again {
                copy(from, srcs, pieces, &mut copies);
                continue;
            }
            let line = &mut lines[k][r];
            let piece = line
                .source(&sare.reads[k][r], &geo.linear[k][r], params, it, &mut src)
                .ok_or_else(|| Error::internal(format!("no source for {}{:?}", s.name, it)))?;
            // One step on along a line that does not move the source (Floyd-Warshall's
            // `path[i][k]` along `j`): the resolution the line started from, copied.
            if let (true, Some((from, _))) = (line.stood(), last[k][r]) {
                copy(from, srcs, pieces, &mut copies);
                continue;
            }
            last[k][r] = Some((srcs.len(), o));
            // The band holds exactly its tiles' instances, so a source is in the band
            // (same nest, same tile coordinates) exactly when the band's index finds it.
            let origin = sare.reads[k][r].sources[piece].stmt;
            pieces.push(u8::try_from(piece).unwrap_or(u8::MAX));
            match origin.and_then(|sk| local.dense_slot(sk, &src)) {
                Some(x) => {
                    prefetch(&local.slots[x]);
                    let at = srcs.len();
                    srcs.push(PackedSrc::pack(Src::Local(0)));
                    let i = next % AHEAD;
                    next += 1;
                    if ring.len() < AHEAD {
                        ring.push((at, k, r, piece, x));
                    } else {
                        settle(ring[i], &ring_src[i * stride..(i + 1) * stride], srcs)?;
                        ring[i] = (at, k, r, piece, x);
                    }
                    ring_src[i * stride..i * stride + src.len()].copy_from_slice(&src);
                }
                None => {
                    let here = origin.and_then(|sk| local.get(survey, sk, &src));
                    srcs.push(PackedSrc::pack(resolve(k, r, piece, here, &src)?));
                }
            }
        }
    }
    for j in 0..ring.len() {
        // Oldest first (the order does not matter: each fills its own place).
        let i = (next + j) % ring.len().max(1);
        settle(ring[i], &ring_src[i * stride..(i + 1) * stride], srcs)?;
    }
    for (to, from) in copies {
        srcs[to] = srcs[from];
    }
    Ok(())
}

/// The DDR cell and producer that read `r` of statement `k` takes through source piece
/// `piece` from the source `src` outside the band (an error when the piece's source is
/// always in the reader's band: it should have been found there).
fn ddr_source(ctx: &Ctx, k: usize, r: usize, piece: usize, src: &[i64]) -> Result<Src, Error> {
    let Ctx { p, params, sare, geo, survey, .. } = *ctx;
    match sare.reads[k][r].sources[piece].stmt {
        Some(sk) if geo.stays[k][r][piece] => Err(source_outside(p, sk, src)),
        Some(sk) => Ok(Src::Ddr {
            cell: geo.write_cell(p, params, sk, src)?,
            producer: Some(survey.id(sk, src).ok_or_else(|| source_outside(p, sk, src))?),
        }),
        None => {
            let a = &p.stmts[k].reads[r];
            let cell = flatten(&p.vars[a.var].dims, src).ok_or_else(|| Diagnostic::new(a.span, "read out of bounds"))?;
            Ok(Src::Ddr { cell, producer: None })
        }
    }
}

/// Sorts `v` by `key`, whose values are unique and below `2^bits`, least significant byte
/// first (a band's keys are many and short: a few passes beat comparisons).
fn radix_sort<T: Copy + Default>(v: &mut Vec<T>, buf: &mut Vec<T>, bits: u32, key: impl Fn(&T) -> u64) {
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
fn sort_buckets<K: Ord + Copy>(sigma: &mut [usize], start: &[usize], key: impl Fn(usize) -> K, back: impl Fn(K) -> usize) {
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

/// Read-only context of the band passes.
struct Ctx<'a> {
    p: &'a Program,
    params: &'a [i64],
    sare: &'a Sare,
    geo: &'a Geometry<'a>,
    survey: &'a Survey,
    stored: &'a Bits,
}

/// Where one read of a band instance gets its value.
#[derive(Clone, Copy)]
enum Src {
    /// Produced in the band, by the instance at this position in σ.
    Local(usize),
    /// From DDR: this cell, holding the initial value (`producer: None`) or the value stored
    /// by this instance (dense number).
    Ddr { cell: usize, producer: Option<u64> },
}

/// A [`Src`] in 16 bytes rather than 32 (a big band holds tens of millions of reads, and
/// every page of them costs a fault): `producer` is [`PackedSrc::LOCAL`] for a local source
/// (`at` its position), [`PackedSrc::INITIAL`] for an initial value, else the producer.
#[derive(Clone, Copy)]
struct PackedSrc {
    at: u64,
    producer: u64,
}

impl PackedSrc {
    const LOCAL: u64 = u64::MAX;
    const INITIAL: u64 = u64::MAX - 1;
    fn pack(s: Src) -> PackedSrc {
        match s {
            Src::Local(so) => PackedSrc { at: so as u64, producer: PackedSrc::LOCAL },
            Src::Ddr { cell, producer } => PackedSrc { at: cell as u64, producer: producer.unwrap_or(PackedSrc::INITIAL) },
        }
    }
    fn unpack(self) -> Src {
        match self.producer {
            PackedSrc::LOCAL => Src::Local(self.at as usize),
            PackedSrc::INITIAL => Src::Ddr { cell: self.at as usize, producer: None },
            id => Src::Ddr { cell: self.at as usize, producer: Some(id) },
        }
    }
}

/// What a worker sends the assembly for each band it owns, in the band's turn.
enum Msg {
    /// An empty band (sent all the same, to keep the turn).
    Empty,
    /// A band analysed whole.
    Whole(Arc<Analysed>),
    /// A streamed band ([`Config::chunk`]): sorted and indexed, its sources to follow in
    /// [`Msg::Chunk`]s.
    Head(Arc<Analysed>),
    /// A streamed band whose instances come in its [`Msg::Chunk`]s too, as they are
    /// enumerated (see [`program_ordered`]): `n` of them; its odd chunks from `odd` (a
    /// second thread resolves them).
    Piped {
        at: BandAt,
        n: usize,
        evicted: Vec<usize>,
        odd: std::sync::mpsc::Receiver<Result<Msg, Error>>,
    },
    Chunk(Box<Chunk>),
}

/// The sources of the reads of a streamed band's instances `range` (buffers go back to
/// the worker for its next chunk).
#[derive(Default)]
struct Chunk {
    range: std::ops::Range<usize>,
    srcs: Vec<PackedSrc>,
    piece: Vec<u8>,
    /// The instances themselves and their sub-bands (only after [`Msg::Piped`]), the runs
    /// they were enumerated in (chunk offset, length, step of the last iterator), and how
    /// they are resolved (`build/stretch.rs`; `slow`: σ ranges resolved one by one).
    band: Band,
    sub: Vec<usize>,
    walk: Vec<(usize, usize, i64)>,
    plan: stretch::Plan,
    slow: Vec<std::ops::Range<usize>>,
}

/// A band sorted by σ with its reads resolved (see [`Band::analyse`]).
struct Analysed {
    band: Band,
    sigma: Vec<usize>,
    /// Per instance: its parallel sub-band (none without `--par`: see [`Part::sub`]).
    sub: Vec<usize>,
    /// Per instance, per read of a variable (scalar arguments skipped): the source, and the
    /// source piece that gave it (`u8::MAX`: past 254).
    srcs: Vec<PackedSrc>,
    piece: Vec<u8>,
    /// The band number of the template this band is a translate of (see `build/translate.rs`):
    /// its reads were not resolved one by one, and it repeats that band.
    translate_of: Option<usize>,
    /// Whether the worker keeps a template of this band (the assembly then records its effect),
    /// and the templates it dropped since its last band (whose effects are no longer needed).
    template: bool,
    evicted: Vec<usize>,
    /// Where each instance of the band is (rebuilt per band, its buffers reused).
    local: LocalIndex,
    /// (nest, band number, bands in the nest), for progress.
    at: BandAt,
}

impl Analysed {
    fn new(p: &Program) -> Analysed {
        Analysed {
            band: Band::new(p),
            sigma: Vec::new(),
            sub: Vec::new(),
            srcs: Vec::new(),
            piece: Vec::new(),
            translate_of: None,
            template: false,
            evicted: Vec::new(),
            local: LocalIndex::default(),
            at: BandAt::default(),
        }
    }

    /// Assigns every read of the band to a channel (or a load) and stores values that
    /// leave it.
    fn assemble(&self, ctx: &Ctx, scratch: &mut Scratch, b: &mut Builder, st: &mut Streams) -> Result<(), Error> {
        let n = self.band.kind.len();
        let mut asm = Assembly::start(n, scratch, b, st);
        let feed = Feed { part: self.part(), range: 0..n, srcs: &self.srcs, plan: &stretch::Plan::default() };
        asm.instances(feed, ctx, scratch, b, st)?;
        asm.finish(st);
        Ok(())
    }
}

/// The assembly of one band under way: fed its instances in σ order, all at once or a
/// chunk at a time as a worker resolves them (a band too big to hold its sources whole,
/// see [`Config::chunk`]).
struct Assembly {
    n: usize,
    base: u64,
    load_base: u64,
    band_no: u32,
    /// Channels each value of the band is already written to (the demux): a bit each for
    /// the band's first [`BandValue::BITS`] channels (a value is often read through many ports:
    /// a stencil's nine), the others in this set.
    written_more: std::collections::HashSet<(usize, usize), SmallKeys>,
    next_bit: u32,
    loaded: Vec<Loaded>,
    loaded_other: HashMap<(usize, usize, u32), usize, SmallKeys>,
}

impl Assembly {
    fn start(n: usize, scratch: &mut Scratch, b: &Builder, st: &mut Streams) -> Assembly {
        scratch.band_values.clear();
        scratch.band_values.resize(n, BandValue::default());
        if b.codegen {
            scratch.cells.start(n);
        }
        scratch.op_index.clear();
        // Operations of a process in this band, counted from its first (events keep 32 bits).
        scratch.op_base.clear();
        scratch.op_base.extend_from_slice(&b.ops);
        scratch.events.iter_mut().chain(scratch.reads.iter_mut()).for_each(Events::clear);
        st.band_no += 1;
        Assembly {
            n,
            base: st.next_vid,
            load_base: st.next_load_vid,
            band_no: st.band_no,
            written_more: Default::default(),
            next_bit: 0,
            loaded: Vec::new(),
            loaded_other: Default::default(),
        }
    }

    /// Ends the band: its computed values are numbered.
    fn finish(self, st: &mut Streams) {
        st.next_vid += self.n as u64;
    }

    /// The instances `feed` brings (positions in σ, following the last ones fed).
    fn instances(&mut self, feed: Feed, ctx: &Ctx, scratch: &mut Scratch, b: &mut Builder, st: &mut Streams) -> Result<(), Error> {
        let Feed { part, range, srcs, plan } = feed;
        let Ctx { p, params, geo, stored, .. } = *ctx;
        let band = part.band;
        let Assembly { n, base, load_base, band_no, ref mut written_more, ref mut next_bit, ref mut loaded, ref mut loaded_other } = *self;
        let (band_values, op_index, chan_bit) = (&mut scratch.band_values, &mut scratch.op_index, &mut scratch.chan_bit);
        let (read_base, ports) = (&scratch.read_base, &mut scratch.ports);
        // Per channel, its reads and writes at times of σ (4 per instance: loads, reads,
        // writes, stores).
        let mut log = Log { writes: &mut scratch.events, reads: &mut scratch.reads, again: &mut scratch.again };
        let op_base = &scratch.op_base;
        let band_op = |proc: usize, op: usize| op - op_base.get(proc).copied().unwrap_or(0);
        let mut srcs = srcs.iter();
        let mut ahead = srcs.clone().skip(AHEAD);
        // The compute process of the last instance, by statement and sub-band (runs of
        // instances share it).
        let mut last_proc = None;
        // The stretches of `plan`, and the current one: its end, and when fast, its first
        // instance and its reads' steps. A fast stretch taken one instance at a time has
        // that instance's sources in `pend` (last read first).
        let mut stretches = plan.stretches.iter();
        let mut steps = &plan.steps[..];
        let (mut end, mut fast): (usize, Option<stretch::Taken>) = (range.start, None);
        // Per statement of a fast stretch's period: (statement, process, its operations
        // before the stretch, its reads' steps in the stretch's).
        let mut lanes: Vec<(usize, usize, usize, std::ops::Range<usize>)> = Vec::new();
        // Where the steps of the `q`-th statement of the stretch from σ position `start` begin.
        let lane_at = |start: usize, q: usize| (0..q).map(|q| geo.array_reads[band.kind[start - part.base + q]].len()).sum::<usize>();
        let mut pend: Vec<PackedSrc> = Vec::new();
        // Tries at the current stretch: its first iteration may open its channels, but a
        // stretch whose second fails too is taken one by one (a check costs its length).
        let mut tries = 0;
        let mut o = range.start;
        while o < range.end {
            while o >= end {
                tries = 0;
                (end, fast) = match stretches.next() {
                    None => (range.end, None),
                    Some(s) => {
                        let fast = s.fast.then(|| {
                            let (mine, rest) = steps.split_at(lane_at(o, s.period).min(steps.len()));
                            steps = rest;
                            (o, s.period, mine)
                        });
                        (o + s.len, fast)
                    }
                };
            }
            let t = o as u64;
            let x = o - part.base;
            let k = band.kind[x];
            let s = &p.stmts[k];
            let sub = part.sub.get(x).copied().unwrap_or(0);
            let me_u16 = match last_proc {
                Some((key, me_u16)) if key == (k, sub) => me_u16,
                _ => {
                    let me = *st
                        .compute_proc
                        .entry((k, sub))
                        .or_insert_with(|| b.add_process(p, ProcessKind::Compute { stmt: k, subband: geo.subband_coords(k, sub) }));
                    let me_u16 = u16::try_from(me).map_err(|_| {
                        Diagnostic::global(format!("the network has more than {} processes: use a smaller --par", u16::MAX))
                    })?;
                    last_proc = Some(((k, sub), me_u16));
                    me_u16
                }
            };
            let me = me_u16 as usize;
            let my_op = b.ops[me];
            let mut reads = Vec::with_capacity(if b.keep { s.reads.len() } else { 0 });
            // The rest of a fast stretch read by read, when each read's channel is known
            // (its first iteration opens them) and every source comes from that channel's
            // producer. `steps`: per statement of the period and read, (first source, step)
            // from the stretch's first iteration.
            let rest = end - o;
            let fast_here = match fast {
                Some((start, period, steps)) if !b.keep && (o - start).is_multiple_of(period) && rest >= 2 * period && tries < 2 => {
                    tries += 1;
                    lanes.clear();
                    for q in 0..period {
                        let kq = band.kind[x + q];
                        let Some(&me) = st.compute_proc.get(&(kq, part.sub.get(x + q).copied().unwrap_or(0))) else { break };
                        lanes.push((kq, me, b.ops[me], lane_at(o, q)..lane_at(o, q + 1)));
                    }
                    let i0 = (o - start) / period;
                    // Each read's channel known and its sources from the channel's producer (a
                    // source in the stretch is made here, by its statement's process), or its
                    // DDR value the one its port took last.
                    let read_ok = |kq: usize, me: usize, r: usize, step: stretch::Step| {
                        let port = &ports[read_base[kq] + r];
                        match step {
                            stretch::Step::Local { stmt, .. } => {
                                let Route { from, to, channel: ch } = port.local;
                                let produced = |so: usize| match so.checked_sub(o) {
                                    None => band_values[so].proc(),
                                    Some(j) => lanes[j % period].1,
                                };
                                to == me as u32
                                    && chan_bit.get(ch as usize).is_some_and(|c| c.0 == band_no)
                                    && if geo.one_subband() {
                                        // A statement has one process: no need to look (each
                                        // look a cache miss for a column's sources).
                                        st.compute_proc.get(&(stmt, 0)) == Some(&(from as usize))
                                    } else {
                                        (i0..(end - start) / period).all(
                                            |i| matches!(step.at(i), stretch::Step::Local { at: so, .. } if produced(so) == from as usize),
                                        )
                                    }
                            }
                            stretch::Step::Ddr(src) => match src.unpack() {
                                Src::Ddr { cell, producer } => {
                                    port.again == DdrRead { band: band_no, consumer: me as u32, cell: cell as u64, producer }
                                }
                                Src::Local(_) => false,
                            },
                        }
                    };
                    let ok = lanes.len() == period
                        && part.sub.get(x..end - part.base).is_none_or(|s| s.iter().enumerate().all(|(j, &u)| u == s[j % period]))
                        && lanes.iter().all(|(kq, me, _, at)| {
                            geo.array_reads[*kq].iter().zip(&steps[at.clone()]).all(|(&r, &step)| read_ok(*kq, *me, r, step))
                        });
                    ok.then_some((start, period, steps))
                }
                _ => None,
            };
            let (m, period) = if let Some((start, period, steps)) = fast_here {
                let (i0, iters) = ((o - start) / period, rest / period);
                for (q, lane) in lanes.iter().enumerate() {
                    band_values[o + q..end].iter_mut().step_by(period).for_each(|m| *m = BandValue::new(lane.1 as u16));
                }
                for (q, (kq, me, my_op, at)) in lanes.iter().enumerate() {
                    let time = (4 * (t + q as u64) + 1, 4 * period as u64);
                    for (&r, &step) in geo.array_reads[*kq].iter().zip(&steps[at.clone()]) {
                        let port = &ports[read_base[*kq] + r];
                        let (p0, ps) = match step.at(i0) {
                            stretch::Step::Local { at, step, .. } => (at, step),
                            stretch::Step::Ddr(_) => {
                                // The same loaded value again: reads only.
                                log.push_run(
                                    port.ddr.channel as usize,
                                    time,
                                    false,
                                    (port.vid as usize, 0),
                                    band_op(*me, *my_op),
                                    iters as u32,
                                );
                                continue;
                            }
                        };
                        let ch = port.local.channel as usize;
                        let bit = chan_bit[ch].1;
                        let so = |i: usize| (p0 as i64 + ps * i as i64) as usize;
                        // Values sent down the channel for the first time, a run of consecutive
                        // ones at a time (from the `new`-th iteration on).
                        let mut new = None;
                        for i in 0..=iters {
                            if i + AHEAD < iters {
                                prefetch(&band_values[so(i + AHEAD)]);
                            }
                            let first = i < iters
                                && match bit {
                                    BandValue::BITS => written_more.insert((so(i), ch)),
                                    bit => band_values[so(i)].write(bit),
                                };
                            match (first, new) {
                                (true, None) => new = Some(i),
                                (false, Some(f)) => {
                                    log.push_run(ch, (4 * so(f) as u64 + 2, (4 * ps) as u64), true, (so(f), ps), 0, (i - f) as u32);
                                    new = None;
                                }
                                _ => {}
                            }
                        }
                        log.push_run(ch, time, false, (p0, ps), band_op(*me, *my_op), iters as u32);
                    }
                }
                (rest, period)
            } else {
                if let Some((start, period, steps)) = fast {
                    let (q, i) = ((o - start) % period, (o - start) / period);
                    let mine = &steps[lane_at(start, q)..lane_at(start, q + 1)];
                    pend.extend(mine.iter().rev().map(|step| match step.at(i) {
                        stretch::Step::Local { at, .. } => PackedSrc::pack(Src::Local(at)),
                        stretch::Step::Ddr(src) => src,
                    }));
                }
                band_values[o] = BandValue::new(me_u16);
                for (r, a) in s.reads.iter().enumerate() {
                    if p.vars[a.var].is_scalar_argument() {
                        if b.keep {
                            reads.push(ReadSrc::Scalar { var: a.var });
                        }
                        continue;
                    }
                    let elem = p.vars[a.var].ty.c_name();
                    let src = match pend.pop() {
                        Some(src) => src,
                        None => {
                            if let Some(Src::Local(so)) = ahead.next().map(|s| s.unpack()) {
                                prefetch(&band_values[so]);
                            }
                            *srcs.next().ok_or_else(|| Error::internal("band analysis out of step"))?
                        }
                    }
                    .unpack();
                    let (ch, vid) = match src {
                        // Produced in this band: an on-chip channel from the producer's process.
                        Src::Local(so) => {
                            let pp = band_values[so].proc();
                            let port = &mut ports[read_base[k] + r];
                            let ch = match *port {
                                Port { local: Route { from, to, channel }, .. } if (from, to) == (pp as u32, me as u32) => channel as usize,
                                _ => {
                                    let class = if pp == me { ChannelClass::Local } else { ChannelClass::Sync };
                                    let ch = b.channel(pp, me, Some(r), class, elem, &p.vars[a.var].dims);
                                    port.local = Route { from: pp as u32, to: me as u32, channel: ch as u32 };
                                    ch
                                }
                            };
                            if chan_bit.len() <= ch {
                                chan_bit.resize(ch + 1, (0, BandValue::BITS));
                            }
                            if chan_bit[ch].0 != band_no {
                                chan_bit[ch] = (band_no, *next_bit);
                                *next_bit = (*next_bit + 1).min(BandValue::BITS);
                            }
                            let new = match chan_bit[ch].1 {
                                BandValue::BITS => written_more.insert((so, ch)),
                                bit => band_values[so].write(bit),
                            };
                            if new {
                                if let Some(Trace::Compute { ops, .. }) = b.traces.get_mut(pp) {
                                    ops[op_index[so]].writes.push(ch);
                                }
                                log.push(ch, 4 * so as u64 + 2, true, so, 0);
                            }
                            (ch, so)
                        }
                        // From DDR, the value this read took last, again: nothing new (a scalar, or
                        // a row read along a loop that does not move it).
                        Src::Ddr { cell, producer }
                            if ports[read_base[k] + r].again
                                == DdrRead { band: band_no, consumer: me as u32, cell: cell as u64, producer } =>
                        {
                            let port = &ports[read_base[k] + r];
                            (port.ddr.channel as usize, port.vid as usize)
                        }
                        // From DDR: the cell and the version this read needs, loaded once per band.
                        Src::Ddr { cell, producer } => {
                            // The cell was loaded in this band already, from the same producer:
                            // the same version, without looking it up.
                            let slot = st.load_slot[a.var].get(cell);
                            let version = match loaded.get(slot.2 as usize) {
                                Some(l) if slot.0 == st.band_no && l.producer == producer => slot.1,
                                _ => st.version_read(stored, a.var, cell, producer)?,
                            };
                            let port = &mut ports[read_base[k] + r];
                            let (lp, ch) = match port.ddr {
                                Route { from, to: lp, channel } if from == me as u32 => (lp as usize, channel as usize),
                                _ => {
                                    let lp =
                                        *st.load_proc.entry(a.var).or_insert_with(|| b.add_process(p, ProcessKind::Load { var: a.var }));
                                    let ch = b.channel(lp, me, Some(r), ChannelClass::Io, elem, &p.vars[a.var].dims);
                                    port.ddr = Route { from: me as u32, to: lp as u32, channel: ch as u32 };
                                    (lp, ch)
                                }
                            };
                            let slot = st.load_slot[a.var].get_mut(cell);
                            let found = if slot.0 == st.band_no && slot.1 == version {
                                Some(slot.2 as usize)
                            } else if slot.0 == st.band_no {
                                loaded_other.get(&(a.var, cell, version)).copied()
                            } else {
                                None
                            };
                            let li = match found {
                                Some(li) => li,
                                None => {
                                    let li = loaded.len();
                                    if slot.0 == st.band_no {
                                        loaded_other.insert((a.var, cell, version), li);
                                    } else {
                                        *slot = (st.band_no, version, li as u32);
                                    }
                                    loaded.push(Loaded { producer, op: b.ops[lp], vid: n + li, at: 4 * t, outs: Vec::new() });
                                    if b.codegen {
                                        scratch.cells.set_load(li, cell as u64);
                                    }
                                    b.ops[lp] += 1;
                                    if let Some(Trace::Load { ops, .. }) = b.traces.get_mut(lp) {
                                        ops.push(LoadOp { cell, version, vid: st.next_load_vid, outs: Vec::new(), at: 4 * t });
                                        *st.loads_needed.entry(CellVersion { var: a.var, cell, version }).or_default() += 1;
                                    }
                                    st.next_load_vid += 1;
                                    st.ddr_reads[a.var] += 1;
                                    li
                                }
                            };
                            let l = &mut loaded[li];
                            if !l.outs.contains(&ch) {
                                l.outs.push(ch);
                                if let Some(Trace::Load { ops, .. }) = b.traces.get_mut(lp) {
                                    ops[l.op].outs.push(ch);
                                }
                                // The load happened at the value's first use in the band (now or earlier).
                                log.push(ch, l.at, true, l.vid, l.vid);
                            }
                            let port = &mut ports[read_base[k] + r];
                            port.again = DdrRead { band: band_no, consumer: me as u32, cell: cell as u64, producer };
                            port.vid = l.vid as u32;
                            (ch, l.vid)
                        }
                    };
                    if b.keep {
                        reads.push(ReadSrc::Chan { ch, vid: global_vid(vid, n, base, load_base), last: false });
                    }
                    log.push(ch, 4 * t + 1, false, vid, band_op(me, my_op));
                }
                (1, 1)
            };
            let mut lane = 0;
            for o in o..o + m {
                let t = o as u64;
                let x = o - part.base;
                let (k, me) = if m == 1 { (k, me) } else { (lanes[lane].0, lanes[lane].1) };
                lane = if lane + 1 == period { 0 } else { lane + 1 };
                let s = &p.stmts[k];
                let it = &band.iters(x)[..s.iters.len()];
                let pi = b.ops[me];
                b.ops[me] += 1;
                if let Some(Trace::Compute { ops, .. }) = b.traces.get_mut(me) {
                    ops.push(ComputeOp { iters: it.to_vec(), reads: std::mem::take(&mut reads), writes: Vec::new(), vid: base + o as u64 });
                }
                if b.keep {
                    op_index.push(pi);
                }
                if b.codegen {
                    scratch.cells.instances[o] = geo.write_cell(p, params, k, it)? as u64;
                }
                if stored.get(band.id[x]) {
                    let var = s.write.var;
                    let cell = geo.write_cell(p, params, k, it)?;
                    let sp = *st.store_proc.entry(var).or_insert_with(|| b.add_process(p, ProcessKind::Store { var }));
                    let ch = b.channel(me, sp, None, ChannelClass::Io, p.vars[var].ty.c_name(), &[]);
                    let version = st.version_store(stored, var, cell, band.id[x]);
                    st.ddr_writes[var] += 1;
                    let store_op = b.ops[sp];
                    b.ops[sp] += 1;
                    if let Some(Trace::Compute { ops, .. }) = b.traces.get_mut(me) {
                        ops[pi].writes.push(ch);
                    }
                    if let Some(Trace::Store { ops, .. }) = b.traces.get_mut(sp) {
                        ops.push(StoreOp { ch, vid: base + o as u64, cell, version });
                    }
                    log.push(ch, 4 * t + 2, true, o, 0);
                    log.push(ch, 4 * t + 3, false, o, band_op(sp, store_op));
                }
            }
            o += m;
        }
        Ok(())
    }
}

/// How many reads ahead the assembly asks for the memory it will need: values of a large
/// band are read in an order unrelated to where they lie, a cache miss each, and several
/// fetches in flight at once hide most of the wait.
const AHEAD: usize = 16;

/// Hints the CPU to fetch `x`'s cache line now (nothing elsewhere).
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing the program sees and never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch(x as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Band-local value ids (computed values first, then loads) to the network's.
fn global_vid(vid: usize, n: usize, base: u64, load_base: u64) -> u64 {
    if vid < n {
        base + vid as u64
    } else {
        load_base + (vid - n) as u64
    }
}

/// Domains and schedules of the processes in isl notation, checked by isl.
fn describe_processes(
    p: &Program,
    params: &[i64],
    nests: &[Nest],
    nest_of: &[usize],
    cfg: &Config,
    procs: &mut [Process],
) -> Result<(), Error> {
    use dpnc_frontend::polyhedral::{isl_name, Model};
    let m = Model::new(p);
    let fixed = Model::fixed_conditions(p, params);
    let ctx = dpnc_frontend::dataflow::quiet_context();
    let check = |t: &str, is_set: bool| -> Result<(), Error> {
        let ok = if is_set { isl_rs::Set::read_from_str(&ctx, t).is_ok() } else { isl_rs::Map::read_from_str(&ctx, t).is_ok() };
        if ok {
            Ok(())
        } else {
            Err(Error::internal(format!("isl rejects the process description `{t}`")))
        }
    };
    for pr in procs.iter_mut() {
        match &pr.kind {
            ProcessKind::Compute { stmt, subband } => {
                let s = &p.stmts[*stmt];
                let n = &nests[nest_of[*stmt]];
                let iters: Vec<String> = s.iters.iter().map(|i| isl_name(i)).collect();
                let phi: Vec<String> = n.phi_of(*stmt).iter().map(|a| a.isl(&iters)).collect();
                let size = |d: usize| crate::shape::tile_size(&cfg.tile, d);
                let mut conds = vec![m.cond_of(p, *stmt)];
                conds.extend(fixed.iter().cloned());
                for (d, l) in subband.iter().enumerate() {
                    let q = crate::shape::par_size(&cfg.par, d).min(size(d));
                    let (f, sz) = (&phi[d], size(d));
                    conds.push(format!("floor(({q}*({f}) - {}*floor(({f})/{sz}))/{sz}) = {l}", q * sz));
                }
                let tuple = format!("{}[{}]", s.name, iters.join(", "));
                pr.domain = format!("{}{{ {tuple} : {} }}", m.params, conds.join(" and "));
                check(&pr.domain, true)?;
                let tiles = phi.iter().enumerate().map(|(d, f)| format!("floor(({f}) / {})", size(d)));
                let orig = m.schedules[*stmt].split("-> [").nth(1).and_then(|r| r.split(']').next()).unwrap_or("").to_string();
                let terms: Vec<String> = std::iter::once(nest_of[*stmt].to_string())
                    .chain(tiles)
                    .chain(n.groups.iter().any(|&g| g > 0).then(|| n.group(*stmt).to_string()))
                    .chain((0..phi.len()).map(|d| phi[n.point(*stmt, d)].clone()))
                    .chain(std::iter::once(orig))
                    .collect();
                pr.schedule = format!("{}{{ {tuple} -> [{}] }}", m.params, terms.join(", "));
                check(&pr.schedule, false)?;
            }
            ProcessKind::Load { var } => {
                pr.domain = format!("every ({}-cell, band) pair whose value a band reads but does not produce", p.vars[*var].name);
                pr.schedule = "once per band, at the value's first use in the tiled schedule".into();
            }
            ProcessKind::Store { var } => {
                pr.domain = format!("every value of {} read by a later band, or final", p.vars[*var].name);
                pr.schedule = "right after the value is produced".into();
            }
        }
    }
    Ok(())
}

/// The iteration generator of every compute process (see [`crate::loops`]).
fn loop_nests(
    p: &Program,
    params: &[i64],
    nests: &[Nest],
    nest_of: &[usize],
    cfg: &Config,
    survey: &Survey,
    procs: &mut [Process],
) -> Result<(), Error> {
    let named: Vec<(String, i64)> = p.params.iter().zip(params).map(|(q, v)| (q.name.clone(), *v)).collect();
    for pr in procs.iter_mut() {
        let ProcessKind::Compute { stmt, subband } = &pr.kind else { continue };
        let s = &p.stmts[*stmt];
        let guard = crate::predicate::Predicate::from_isl_str(&pr.domain, &named)
            .map_err(|e| Error::internal(format!("the domain of {} as a predicate: {e}", pr.name)))?;
        let bbox: Vec<(i64, i64)> = survey.lo[*stmt].iter().zip(&survey.extent[*stmt]).map(|(l, e)| (*l, l + *e as i64 - 1)).collect();
        let mut dirs = vec![1; s.iters.len()];
        for t in &s.schedule {
            if let dpnc_frontend::ir::SchedTerm::Iter(d, dir) = t {
                dirs[*d] = *dir;
            }
        }
        let iterators = crate::loops::Iterators { bbox: &bbox, dirs: &dirs, names: &s.iters };
        pr.loops = crate::loops::LoopNest::new(&nests[nest_of[*stmt]], *stmt, subband, &cfg.tile, &cfg.par, &iterators, guard);
    }
    Ok(())
}

fn cell_of(p: &Program, a: &dpnc_frontend::ir::Access, it: &[i64], params: &[i64]) -> Result<usize, Error> {
    let (idx, off) = index_of(p, a, it, params)?;
    off.ok_or_else(|| Diagnostic::new(a.span, out_of_bounds(p, a, &idx)).into())
}

struct Builder {
    processes: Vec<Process>,
    /// Per process, what it does (only when `keep`).
    traces: Vec<Trace>,
    /// Per process, operations so far.
    ops: Vec<usize>,
    channels: Vec<Channel>,
    stats: Vec<ChanStats>,
    /// Per consumer process: its channels as (producer, port, channel).
    inputs: Vec<Vec<(usize, Option<usize>, usize)>>,
    keep: bool,
    /// Track cells and live windows for scratchpad allocation.
    codegen: bool,
}

impl Builder {
    fn add_process(&mut self, p: &Program, kind: ProcessKind) -> usize {
        let (name, trace) = match &kind {
            ProcessKind::Load { var } => (format!("load_{}", p.vars[*var].name), Trace::Load { var: *var, ops: Vec::new() }),
            ProcessKind::Store { var } => (format!("store_{}", p.vars[*var].name), Trace::Store { var: *var, ops: Vec::new() }),
            ProcessKind::Compute { stmt, subband } => {
                let sub: String = subband.iter().map(|l| format!("_{l}")).collect();
                (format!("{}{sub}", p.stmts[*stmt].name), Trace::Compute { stmt: *stmt, ops: Vec::new() })
            }
        };
        self.processes.push(Process {
            name,
            kind,
            domain: String::new(),
            schedule: String::new(),
            iterations: 0,
            mux: Vec::new(),
            demux: Vec::new(),
            loops: None,
        });
        if self.keep {
            self.traces.push(trace);
        }
        self.ops.push(0);
        self.processes.len() - 1
    }

    fn channel(
        &mut self,
        producer: usize,
        consumer: usize,
        port: Option<usize>,
        class: ChannelClass,
        elem: &str,
        extents: &[i64],
    ) -> usize {
        if let Some(&(_, _, c)) = self.inputs.get(consumer).and_then(|v| v.iter().find(|(pr, po, _)| *pr == producer && *po == port)) {
            return c;
        }
        let name = match port {
            Some(r) => format!("{}_to_{}_r{r}", self.processes[producer].name, self.processes[consumer].name),
            None => format!("{}_to_{}", self.processes[producer].name, self.processes[consumer].name),
        };
        self.channels.push(Channel {
            name,
            producer,
            consumer,
            port,
            class,
            kind: ChannelKind::Fifo,
            size: 0,
            elem: elem.to_string(),
            writes: 0,
            reads: 0,
            relation: String::new(),
            window: Vec::new(),
            first_read: None,
            last_read: None,
            first_use: None,
            fanout: Vec::new(),
            shared_load: false,
            ddr_source: None,
        });
        self.stats.push(ChanStats { in_order: true, extents: extents.to_vec(), window: vec![0; extents.len()], ..ChanStats::default() });
        if self.inputs.len() <= consumer {
            self.inputs.resize_with(consumer + 1, Vec::new);
        }
        self.inputs[consumer].push((producer, port, self.channels.len() - 1));
        self.channels.len() - 1
    }
}
