//! Pass 1 along runs: the values a run of instances reads from outside its band, marked
//! without resolving each read. Along a run (an innermost loop of one statement, all in one
//! band) a source piece with a linear form applies over a stretch, its source moving by a
//! constant per step; the band's tile constraints on the source are then affine in the step,
//! so each stretch splits into at most three intervals (outside, inside, outside), and the
//! dense numbers of an interval's sources form an arithmetic progression.

use super::line::Linear;
use super::{source_outside, Bits, Geometry, Survey};
use crate::scan::Run;
use crate::Error;
use dpnc_frontend::dataflow::Sare;
use dpnc_frontend::ir::Program;

/// What marking needs of the construction.
pub(super) struct Marking<'a> {
    pub p: &'a Program,
    pub params: &'a [i64],
    pub sare: &'a Sare,
    pub geo: &'a Geometry<'a>,
    pub survey: &'a Survey,
}

/// Scratch vectors of one marking thread.
#[derive(Default)]
pub(super) struct RunBufs {
    x: Vec<i64>,
    delta: Vec<i64>,
    src: Vec<i64>,
    slope: Vec<i64>,
    at: Vec<i64>,
}

impl Marking<'_> {
    /// Marks in `stored` the sources of read `r` of the statement of `run` outside the band
    /// `mine` (the run's tile coordinates).
    pub(super) fn run(&self, run: &Run, r: usize, mine: &[i64], stored: &mut Bits, b: &mut RunBufs) -> Result<(), Error> {
        let Run { stmt: k, first: it, len, step } = *run;
        let Marking { p, params, sare, geo, .. } = *self;
        let flow = &sare.reads[k][r];
        b.x.clear();
        b.x.extend_from_slice(it);
        b.delta.clear();
        b.delta.resize(it.len(), 0);
        if let Some(d) = b.delta.last_mut() {
            *d = step;
        }
        let (mut t, mut hint) = (0u64, 0usize);
        while t < len {
            if let (Some(x), Some(first)) = (b.x.last_mut(), it.last()) {
                *x = first + t as i64 * step;
            }
            let piece = flow
                .piece_near(params, &b.x, &mut b.src, hint)
                .ok_or_else(|| Error::internal(format!("no source for {}{:?}", p.stmts[k].name, b.x)))?;
            hint = piece;
            let stretch = match &geo.linear[k][r][piece] {
                Some(lin) if len - t > 1 => reach(lin, &b.x, &b.delta, &mut b.slope).min(len - t),
                _ => 1,
            };
            if let Some(sk) = flow.sources[piece].stmt.filter(|_| !geo.stays[k][r][piece]) {
                self.stretch(k, sk, stretch, mine, stored, b)?;
            }
            t += stretch;
        }
        Ok(())
    }

    /// Marks the sources outside band `mine` among `n` sources of statement `sk` from
    /// `b.src`, `b.slope` apart (read only when `n > 1`).
    fn stretch(&self, k: usize, sk: usize, n: u64, mine: &[i64], stored: &mut Bits, b: &mut RunBufs) -> Result<(), Error> {
        let geo = self.geo;
        let last = n as i128 - 1;
        // Steps `u` with the source in the band: lo ≤ u ≤ hi.
        if geo.nest_of[sk] != geo.nest_of[k] {
            return self.mark(sk, 0, last, stored, b);
        }
        let (mut lo, mut hi) = (0i128, last);
        for (d, &tile) in mine.iter().enumerate() {
            let phi = &geo.phi[sk][d];
            let f = phi.eval(&b.src) as i128;
            let g: i128 = if n > 1 { phi.coef.iter().zip(&b.slope).map(|(c, s)| *c as i128 * *s as i128).sum() } else { 0 };
            let s = geo.sizes[d] as i128;
            let (from, to) = (tile as i128 * s, tile as i128 * s + s - 1);
            match g.signum() {
                0 if f < from || f > to => hi = -1,
                0 => {}
                1 => {
                    lo = lo.max(ceil_div(from - f, g));
                    hi = hi.min((to - f).div_euclid(g));
                }
                _ => {
                    lo = lo.max(ceil_div(f - to, -g));
                    hi = hi.min((f - from).div_euclid(-g));
                }
            }
        }
        if lo > hi {
            return self.mark(sk, 0, last, stored, b);
        }
        if lo > 0 {
            self.mark(sk, 0, lo - 1, stored, b)?;
        }
        if hi < last {
            self.mark(sk, hi + 1, last, stored, b)?;
        }
        Ok(())
    }

    /// Marks the sources `u0..=u1` steps from `b.src`.
    fn mark(&self, sk: usize, u0: i128, u1: i128, stored: &mut Bits, b: &mut RunBufs) -> Result<(), Error> {
        let survey = self.survey;
        let id_at = |u: i128, b: &mut RunBufs| -> Result<u64, Error> {
            b.at.clear();
            b.at.extend(b.src.iter().enumerate().map(|(d, x)| if u == 0 { *x } else { (*x as i128 + u * b.slope[d] as i128) as i64 }));
            survey.id(sk, &b.at).ok_or_else(|| source_outside(self.p, sk, &b.at))
        };
        let first = id_at(u0, b)?;
        // Both ends in the statement's box, so all between are, and dense numbers are
        // affine in the iterators there.
        let by = if u1 > u0 {
            id_at(u1, b)?;
            survey.id_slope(sk, &b.slope)
        } else {
            0
        };
        for u in 0..=(u1 - u0) {
            stored.set((first as i128 + u * by) as u64);
        }
        Ok(())
    }
}

/// How many instances from `it` on, stepping by `delta`, a piece with linear form `lin`
/// surely applies to (at least 1: it applies at `it`); the source's step into `slope`.
fn reach(lin: &Linear, it: &[i64], delta: &[i64], slope: &mut Vec<i64>) -> u64 {
    lin.reach(it, delta, slope).map_or(1, |left| left.saturating_add(1))
}

fn ceil_div(a: i128, b: i128) -> i128 {
    -(-a).div_euclid(b)
}
