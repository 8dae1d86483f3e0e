//! Sources along lines of instances. Consecutive instances of a statement mostly step by
//! one vector (along the innermost point loop), and along such a line an explicit source
//! piece (affine outputs, no existentials) keeps applying until one of its conditions
//! turns, its outputs moving by a constant vector per step. Resolving a read there is an
//! addition instead of a piece evaluation; the answer is the same, as pieces are disjoint.

use dpnc_frontend::dataflow::ReadFlow;
use dpnc_frontend::qrel::Piece;

/// An explicit source piece with the parameters folded in: its outputs and conditions as
/// affine functions of the reader's iterators (coefficients, constant).
pub(super) struct Linear {
    outs: Vec<(Vec<i64>, i64)>,
    /// Each `≥ 0`, or `= 0` when flagged.
    conds: Vec<(Vec<i64>, i64, bool)>,
}

impl Linear {
    /// `None` when the piece has existentials or the parameters overflow its constants.
    pub(super) fn of(piece: &Piece, params: &[i64]) -> Option<Linear> {
        let np = params.len();
        let fold = |c: &[i64], k: i64| -> Option<(Vec<i64>, i64)> {
            let cst = c[..np].iter().zip(params).try_fold(k, |a, (x, p)| a.checked_add(x.checked_mul(*p)?))?;
            Some((c[np..].to_vec(), cst))
        };
        let outs = piece.affine_outputs()?.iter().map(|(c, k)| fold(c, *k)).collect::<Option<_>>()?;
        let conds = piece.affine_conditions()?.iter().map(|(c, k, eq)| fold(c, *k).map(|(c, k)| (c, k, *eq))).collect::<Option<_>>()?;
        Some(Linear { outs, conds })
    }

    /// Steps along `delta` past `it` for which every condition still holds (they hold at
    /// `it`), and the outputs' change per step into `slope`; `None` on overflow or a
    /// standing start.
    pub(super) fn reach(&self, it: &[i64], delta: &[i64], slope: &mut Vec<i64>) -> Option<u64> {
        if delta.iter().all(|d| *d == 0) {
            return None;
        }
        let mut left = u64::MAX;
        for (c, k, eq) in &self.conds {
            let g = dot(c, delta)?;
            if *eq && g != 0 {
                return None;
            }
            if g < 0 {
                let v = dot(c, it)?.checked_add(*k)?;
                left = left.min(u64::try_from(v / -g).ok()?);
            }
        }
        slope.clear();
        for (c, _) in &self.outs {
            slope.push(dot(c, delta)?);
        }
        Some(left)
    }
}

fn dot(a: &[i64], x: &[i64]) -> Option<i64> {
    a.iter().zip(x).try_fold(0i64, |s, (a, x)| s.checked_add(a.checked_mul(*x)?))
}

/// One read's line: the last instance resolved and its piece, the step from the one
/// before, how many more such steps the piece surely applies for, and its source there.
#[derive(Clone, Default)]
pub(super) struct Line {
    prev: Vec<i64>,
    delta: Vec<i64>,
    left: u64,
    piece: usize,
    src: Vec<i64>,
    slope: Vec<i64>,
    /// The slope is zero: along the line the source stays where it is.
    flat: bool,
    /// The last [`Line::source`] was a step along a flat line: the same source as before.
    stood: bool,
}

impl Line {
    /// The source piece of the read `flow` at `it`, its source into `src`: one more step
    /// along the line, or else evaluated (the line's piece tried first: consecutive
    /// instances mostly take the same) and a new line started. `linear`: the flow's pieces'
    /// linear forms. `None`: no piece applies.
    pub(super) fn source(
        &mut self,
        flow: &ReadFlow,
        linear: &[Option<Linear>],
        params: &[i64],
        it: &[i64],
        src: &mut Vec<i64>,
    ) -> Option<usize> {
        if let Some(piece) = self.step(it, src) {
            self.stood = self.flat;
            return Some(piece);
        }
        self.stood = false;
        let piece = flow.piece_near(params, it, src, self.piece)?;
        self.start(linear[piece].as_ref(), it, piece, src);
        Some(piece)
    }

    /// Whether the last [`Line::source`] found the source the one before found (its
    /// resolution can be copied).
    pub(super) fn stood(&self) -> bool {
        self.stood
    }

    #[inline]
    fn step(&mut self, it: &[i64], src: &mut Vec<i64>) -> Option<usize> {
        if self.left == 0 || self.prev.len() != it.len() || it.iter().zip(&self.prev).zip(&self.delta).any(|((x, p), d)| x - p != *d) {
            return None;
        }
        self.left -= 1;
        // Element by element: these are a few numbers, and a `memcpy` call costs more.
        for (p, x) in self.prev.iter_mut().zip(it) {
            *p = *x;
        }
        src.resize(self.src.len(), 0);
        for ((s, g), o) in self.src.iter_mut().zip(&self.slope).zip(src.iter_mut()) {
            *s += g;
            *o = *s;
        }
        Some(self.piece)
    }

    /// The read at `it` was resolved to piece `piece` and source `src`: the line through the
    /// previous instance and this one, as far as the piece (when `lin` has its linear form)
    /// surely applies.
    fn start(&mut self, lin: Option<&Linear>, it: &[i64], piece: usize, src: &[i64]) {
        self.left = 0;
        self.piece = piece;
        if let (Some(lin), true) = (lin, self.prev.len() == it.len()) {
            self.delta.clear();
            self.delta.extend(it.iter().zip(&self.prev).map(|(x, p)| x - p));
            if let Some(left) = lin.reach(it, &self.delta, &mut self.slope) {
                self.left = left;
                self.src.clear();
                self.src.extend_from_slice(src);
                self.flat = self.slope.iter().all(|g| *g == 0);
            }
        }
        self.prev.clear();
        self.prev.extend_from_slice(it);
    }
}
