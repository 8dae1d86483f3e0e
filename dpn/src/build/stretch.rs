//! Stretches of a piped chunk (see `pipe`): the band's walk enumerates the iterations of
//! an innermost loop one after another (its body's statements in turn, the loop's iterator
//! moving by a constant step). Along them a read's source mostly stays in one affine
//! piece, and the sources it names are then instances enumerated one after another too:
//! their positions in σ move by a constant step per iteration (or the source is one value
//! from DDR all along, a scalar computed before the loops). Such a stretch is resolved as
//! one first source and one step per read, and assembled read by read rather than
//! instance by instance (`Assembly::instances`); what does not fit (a non-affine piece,
//! positions that jump, a DDR source that moves) is resolved and assembled one instance at
//! a time. The answer is the same: pieces are disjoint, and the positions are
//! read from the band's index.

use super::{ddr_source, Band, Ctx, LocalIndex, PackedSrc, Part};

/// Walk runs shorter than this are resolved instance by instance (a stretch costs a
/// few piece evaluations per read).
const MIN_RUN: usize = 8;

/// A read's sources along a fast stretch: produced in the band by one statement, at σ
/// positions from the first's on by a constant step per iteration; or one value from DDR
/// all along (a scalar computed before the nest), loaded already by the read's port.
#[derive(Clone, Copy)]
pub(super) enum Step {
    Local { at: usize, step: i64, stmt: usize },
    Ddr(PackedSrc),
}

impl Step {
    /// The step `i` iterations on.
    pub fn at(self, i: usize) -> Step {
        match self {
            Step::Local { at, step, stmt } => Step::Local { at: (at as i64 + step * i as i64) as usize, step, stmt },
            ddr => ddr,
        }
    }
}

/// A fast stretch as the assembly takes it: its first instance's σ position, its period,
/// and its steps.
pub(super) type Taken<'a> = (usize, usize, &'a [Step]);

/// Part of a chunk: `len` instances and, when fast, `period` statements interleaved
/// (the statements of one loop body, each once per iteration; 1 for a run of one
/// statement), with their reads' sources in [`Plan::steps`] (else one by one in the chunk's
/// sources).
#[derive(Clone, Copy)]
pub(super) struct Stretch {
    pub len: usize,
    pub period: usize,
    pub fast: bool,
}

/// How a piped chunk is resolved: its stretches in order and, per fast stretch, per
/// statement of its period and per read of it that takes a source
/// (`Geometry::array_reads`), the [`Step`] of its sources from one iteration to the next.
/// No stretches: every instance one by one.
#[derive(Default)]
pub(super) struct Plan {
    pub stretches: Vec<Stretch>,
    pub steps: Vec<Step>,
}

/// The farthest apart in σ that a read's consecutive sources may be in a fast stretch:
/// farther, each source's record is a cache and TLB miss of its own, which the assembly
/// instance by instance overlaps better with its other work (LU's column reads).
const MAX_STEP: u64 = 1024;

/// The most statements a loop body may have to be taken as one stretch.
const MAX_PERIOD: usize = 16;

impl Plan {
    pub fn clear(&mut self) {
        self.stretches.clear();
        self.steps.clear();
    }

    fn push(&mut self, len: usize, period: usize, fast: bool) {
        match self.stretches.last_mut() {
            Some(s) if !s.fast && !fast => s.len += len,
            _ => self.stretches.push(Stretch { len, period, fast }),
        }
    }

    /// Plans the chunk `part` (from σ position `part.base`) whose walk runs are `walk`
    /// (chunk offset, length, step of the last iterator), covering it in order; `slow`
    /// gets the σ ranges to resolve one instance at a time.
    pub fn make(
        &mut self,
        ctx: &Ctx,
        part: Part,
        local: &LocalIndex,
        walk: &[(usize, usize, i64)],
        slow: &mut Vec<std::ops::Range<usize>>,
    ) {
        let Ctx { p, params, sare, geo, .. } = *ctx;
        self.clear();
        slow.clear();
        let band = part.band;
        // Per statement of the period and read, its iterations cut where its piece changes
        // or its sources stop stepping evenly: (length, the sources' [`Step`] if they do).
        let mut segs: Vec<Vec<(usize, Option<Step>)>> = Vec::new();
        let (mut it, mut src, mut next, mut slope, mut delta) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut w = 0;
        while w < walk.len() {
            let (x0, m, step) = walk[w];
            let (period, iters, step) = if m > 1 { (1, m, step) } else { interleaved(ctx, band, &walk[w..]) };
            w += if m > 1 { 1 } else { period * iters };
            let reads = (0..period).map(|q| geo.array_reads[band.kind[x0 + q]].len()).sum::<usize>();
            if period * iters < MIN_RUN || iters < 2 || reads == 0 || local.map.is_some() {
                self.push(period * iters, period, false);
                continue;
            }
            segs.resize_with(reads, Vec::new);
            let mut seg = segs.iter_mut();
            for q in 0..period {
                let k = band.kind[x0 + q];
                let n = p.stmts[k].iters.len();
                delta.clear();
                delta.resize(n, 0);
                delta[n - 1] = step;
                for &r in &geo.array_reads[k] {
                    let Some(seg) = seg.next() else { break };
                    seg.clear();
                    let (flow, linear) = (&sare.reads[k][r], &geo.linear[k][r]);
                    let (mut j, mut piece) = (0, 0);
                    while j < iters {
                        it.clear();
                        it.extend_from_slice(&band.iters(x0 + q)[..n]);
                        it[n - 1] += j as i64 * step;
                        let Some(pc) = flow.piece_near(params, &it, &mut src, piece) else {
                            // No source: the instance-wise resolution says so.
                            seg.push((iters - j, None));
                            break;
                        };
                        piece = pc;
                        let len = match linear[pc].as_ref().and_then(|l| l.reach(&it, &delta, &mut slope)) {
                            Some(left) => (left.min(usize::MAX as u64 - 1) as usize + 1).min(iters - j),
                            None => {
                                seg.push((1, None));
                                j += 1;
                                continue;
                            }
                        };
                        let origin = flow.sources[pc].stmt;
                        let len = match origin.and_then(|sk| Some((sk, positions(local, sk, &src, &slope, len, &mut next)?))) {
                            Some((stmt, (len, (at, step)))) => (len, Some(Step::Local { at, step, stmt })),
                            // Outside the band and the same all along: the cell and producer
                            // the read would find (a source that should be in the band is
                            // left to the instance-wise resolution, which says so).
                            None if slope.iter().all(|g| *g == 0) => {
                                (len, ddr_source(ctx, k, r, pc, &src).ok().map(|d| Step::Ddr(PackedSrc::pack(d))))
                            }
                            None => (len, None),
                        };
                        seg.push(len);
                        j += len.0;
                    }
                }
            }
            // The iterations cut where any read's stretch ends.
            let mut at: Vec<(usize, usize)> = vec![(0, 0); reads];
            let mut j = 0;
            while j < iters {
                let len = at.iter().zip(&segs).map(|(&(i, used), s)| s[i].0 - used).min().unwrap_or(iters - j);
                let fast = len > 1 && at.iter().zip(&segs).all(|(&(i, _), s)| s[i].1.is_some());
                if fast {
                    self.steps.extend(at.iter().zip(&segs).filter_map(|(&(i, used), s)| s[i].1.map(|step| step.at(used))));
                }
                self.push(period * len, period, fast);
                for ((i, used), s) in at.iter_mut().zip(&segs) {
                    *used += len;
                    if *used == s[*i].0 {
                        (*i, *used) = (*i + 1, 0);
                    }
                }
                j += len;
            }
        }
        let mut o = part.base;
        for s in &self.stretches {
            if !s.fast {
                slow.push(o..o + s.len);
            }
            o += s.len;
        }
    }
}

/// The walk runs `walk` (of one instance each) as the iterations of one loop body:
/// (statements per iteration, iterations, step of the last iterator), each statement once
/// per iteration and its last iterator moving by the step; (1, 1, 0) when they are not.
fn interleaved(ctx: &Ctx, band: &Band, walk: &[(usize, usize, i64)]) -> (usize, usize, i64) {
    let none = (1, 1, 0);
    let one = |w: usize| walk.get(w).filter(|r| r.1 == 1).map(|r| r.0);
    let Some(x0) = one(0) else { return none };
    let kind = |x: usize| band.kind[x];
    let mut period = 1;
    while period < MAX_PERIOD && one(period).is_some_and(|x| kind(x) != kind(x0)) {
        period += 1;
    }
    let kinds: Vec<usize> = (0..period).map(|q| kind(x0 + q)).collect();
    if one(period).is_none_or(|x| kind(x) != kind(x0)) || (1..period).any(|q| kinds[..q].contains(&kinds[q])) {
        return none;
    }
    let iters = |x: usize| &band.iters(x)[..ctx.p.stmts[kind(x)].iters.len()];
    let (a, b) = (iters(x0), iters(x0 + period));
    let Some(n) = a.len().checked_sub(1) else { return none };
    let step = b[n] - a[n];
    if a[..n] != b[..n] || step == 0 {
        return none;
    }
    // Iteration `i` is the first's, its last iterators moved by `i` steps.
    let moved = |i: usize| {
        (0..period).all(|q| {
            one(i * period + q).is_some_and(|x| {
                let (first, now) = (iters(x0 + q), iters(x));
                kind(x) == kinds[q]
                    && first.len() == now.len()
                    && first.iter().zip(now).enumerate().all(|(d, (f, v))| *v == f + if d + 1 == now.len() { i as i64 * step } else { 0 })
            })
        })
    };
    if !moved(1) {
        return none;
    }
    let mut count = 2;
    while moved(count) {
        count += 1;
    }
    (period, count, step)
}

/// Along `len` sources of statement `sk` from `src`, moving by `slope`: the σ positions of
/// as many of the first as the band holds at a constant step, as (how many, (first
/// position, step)); `None` when the first is not in the band's dense index, or the step
/// is over [`MAX_STEP`].
fn positions(local: &LocalIndex, sk: usize, src: &[i64], slope: &[i64], len: usize, buf: &mut Vec<i64>) -> Option<(usize, (usize, i64))> {
    let x0 = local.dense_slot(sk, src)?;
    let p0 = local.at(x0)?;
    if len == 1 {
        return Some((1, (p0, 0)));
    }
    // Slots are affine in the iterators inside the statement's box, which is convex: both
    // ends in it, the slots between move by a constant step.
    buf.clear();
    buf.extend(src.iter().zip(slope).map(|(s, g)| s + g));
    let xs = local.dense_slot(sk, buf)? as i64 - x0 as i64;
    buf.clear();
    buf.extend(src.iter().zip(slope).map(|(s, g)| s + g * (len as i64 - 1)));
    if local.dense_slot(sk, buf)? as i64 != x0 as i64 + xs * (len as i64 - 1) {
        return Some((1, (p0, 0)));
    }
    let slot = |i: usize| local.at((x0 as i64 + xs * i as i64) as usize);
    let ps = match slot(1) {
        Some(p1) => p1 as i64 - p0 as i64,
        None => return Some((1, (p0, 0))),
    };
    if xs == 0 {
        return Some((len, (p0, 0)));
    }
    if ps.unsigned_abs() > MAX_STEP {
        return None;
    }
    let n = (2..len).find(|&i| slot(i) != Some((p0 as i64 + ps * i as i64) as usize)).unwrap_or(len);
    Some((n, (p0, ps)))
}
