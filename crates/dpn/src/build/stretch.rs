//! Stretches of a piped chunk (see `pipe`): along a run of instances that the band's walk
//! enumerates one after another (one statement, its last iterator moving by a constant
//! step), a read's source mostly stays in one affine piece, and the sources it names are
//! then instances enumerated one after another too: their positions in σ move by a
//! constant step. Such a stretch is resolved as one first source and one step per read,
//! and assembled read by read rather than instance by instance (`Assembly::instances`);
//! what does not fit (a source from DDR, a non-affine piece, positions that jump) is
//! resolved and assembled one instance at a time as before. The answer is the same: pieces
//! are disjoint, and the positions are read from the band's index.

use super::{Ctx, LocalIndex, Part};

/// Walk runs shorter than this are resolved instance by instance (a stretch costs a
/// few piece evaluations per read).
const MIN_RUN: usize = 8;

/// A read's sources along a fast stretch: the σ position of the first, and the step from
/// one to the next.
pub(super) type Step = (usize, i64);

/// Part of a chunk: `len` instances, and whether their reads' sources are in
/// [`Plan::steps`] (else one by one in the chunk's sources).
#[derive(Clone, Copy)]
pub(super) struct Stretch {
    pub len: usize,
    pub fast: bool,
}

/// How a piped chunk is resolved: its stretches in order and, per fast stretch and read
/// of its statement that takes a source (`Geometry::array_reads`), the σ position of its
/// first instance's source and the step from one instance's to the next's. No stretches:
/// every instance one by one.
#[derive(Default)]
pub(super) struct Plan {
    pub stretches: Vec<Stretch>,
    pub steps: Vec<Step>,
}

impl Plan {
    pub fn clear(&mut self) {
        self.stretches.clear();
        self.steps.clear();
    }

    fn push(&mut self, len: usize, fast: bool) {
        match self.stretches.last_mut() {
            Some(s) if !s.fast && !fast => s.len += len,
            _ => self.stretches.push(Stretch { len, fast }),
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
        // Per read, its run cut where its piece changes or its sources stop stepping evenly:
        // (length, the sources' [`Step`] if they do).
        let mut segs: Vec<Vec<(usize, Option<Step>)>> = Vec::new();
        let (mut it, mut src, mut next, mut slope, mut delta) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for &(x0, m, step) in walk {
            let k = band.kind[x0];
            let reads = &geo.array_reads[k];
            if m < MIN_RUN || reads.is_empty() || local.map.is_some() {
                self.push(m, false);
                continue;
            }
            let n = p.stmts[k].iters.len();
            delta.clear();
            delta.resize(n, 0);
            delta[n - 1] = step;
            segs.resize_with(reads.len(), Vec::new);
            for (seg, &r) in segs.iter_mut().zip(reads) {
                seg.clear();
                let (flow, linear) = (&sare.reads[k][r], &geo.linear[k][r]);
                let (mut j, mut piece) = (0, 0);
                while j < m {
                    it.clear();
                    it.extend_from_slice(&band.iters(x0)[..n]);
                    it[n - 1] += j as i64 * step;
                    let Some(pc) = flow.piece_near(params, &it, &mut src, piece) else {
                        // No source: the instance-wise resolution says so.
                        seg.push((m - j, None));
                        break;
                    };
                    piece = pc;
                    let len = match linear[pc].as_ref().and_then(|l| l.reach(&it, &delta, &mut slope)) {
                        Some(left) => (left.min(usize::MAX as u64 - 1) as usize + 1).min(m - j),
                        None => {
                            seg.push((1, None));
                            j += 1;
                            continue;
                        }
                    };
                    let len = match flow.sources[pc].stmt {
                        Some(sk) => positions(local, sk, &src, &slope, len, &mut next).map_or((len, None), |(len, s)| (len, Some(s))),
                        None => (len, None),
                    };
                    seg.push(len);
                    j += len.0;
                }
            }
            // The run cut where any read's stretch ends.
            let mut at: Vec<(usize, usize)> = vec![(0, 0); reads.len()];
            let mut j = 0;
            while j < m {
                let len = at.iter().zip(&segs).map(|(&(i, used), s)| s[i].0 - used).min().unwrap_or(m - j);
                let fast = len > 1 && at.iter().zip(&segs).all(|(&(i, _), s)| s[i].1.is_some());
                if fast {
                    for (&(i, used), s) in at.iter().zip(&segs) {
                        if let Some((p0, ps)) = s[i].1 {
                            self.steps.push(((p0 as i64 + ps * used as i64) as usize, ps));
                        }
                    }
                }
                self.push(len, fast);
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

/// Along `len` sources of statement `sk` from `src`, moving by `slope`: the σ positions of
/// as many of the first as the band holds at a constant step, as (how many, (first
/// position, step)); `None` when the first is not in the band's dense index.
fn positions(local: &LocalIndex, sk: usize, src: &[i64], slope: &[i64], len: usize, buf: &mut Vec<i64>) -> Option<(usize, Step)> {
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
    let n = (2..len).find(|&i| slot(i) != Some((p0 as i64 + ps * i as i64) as usize)).unwrap_or(len);
    Some((n, (p0, ps)))
}
