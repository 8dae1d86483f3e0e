//! Array cells of writes as affine functions of the iterators. The cell a source instance
//! wrote is asked for every read from DDR; walking the subscripts' expression trees (and
//! collecting them) costs more than the rest of such a read.

use dpnc_frontend::ir::{Access, Aff, Program};

/// One subscript per dimension as (coefficients per iterator, constant), and the dimension's
/// extent. In wrapping arithmetic, as `Aff::eval`: the folded form gives the same bits.
pub(super) struct CellMap {
    rows: Vec<(Vec<i64>, i64, i64)>,
}

impl CellMap {
    /// `None` when a subscript is not affine (division, modulo, min, max).
    pub(super) fn of(p: &Program, a: &Access, iters: usize, params: &[i64]) -> Option<CellMap> {
        let dims = &p.vars[a.var].dims;
        let rows = a.index.iter().zip(dims).map(|(x, n)| linear(x, iters, params).map(|(c, k)| (c, k, *n))).collect::<Option<_>>()?;
        Some(CellMap { rows })
    }

    /// Each subscript as (coefficients per iterator, constant).
    pub(super) fn rows(&self) -> impl Iterator<Item = (&[i64], i64)> {
        self.rows.iter().map(|(c, k, _)| (c.as_slice(), *k))
    }

    /// How far the flat cell moves when the iterators move by `delta` (row-major: each
    /// subscript's move times the cells between its consecutive values).
    pub(super) fn shift(&self, delta: &[i64]) -> i64 {
        self.rows.iter().fold(0i64, |off, (c, _, n)| {
            let moved = c.iter().zip(delta).fold(0i64, |s, (c, x)| s.wrapping_add(c.wrapping_mul(*x)));
            off.wrapping_mul(*n).wrapping_add(moved)
        })
    }

    /// The flat cell at `it` (row-major, as `store::flatten`); `None` out of bounds.
    #[inline]
    pub(super) fn cell(&self, it: &[i64]) -> Option<usize> {
        let mut off = 0usize;
        for (c, k, n) in &self.rows {
            let i = c.iter().zip(it).fold(*k, |s, (c, x)| s.wrapping_add(c.wrapping_mul(*x)));
            if i < 0 || i >= *n {
                return None;
            }
            off = off * *n as usize + i as usize;
        }
        Some(off)
    }
}

/// `a` as coefficients per iterator and a constant, the parameters at their values; `None`
/// when it is not affine.
pub(super) fn linear(a: &Aff, iters: usize, params: &[i64]) -> Option<(Vec<i64>, i64)> {
    Some(match a {
        Aff::Const(c) => (vec![0; iters], *c),
        Aff::Iter(d) if *d < iters => {
            let mut c = vec![0; iters];
            c[*d] = 1;
            (c, 0)
        }
        Aff::Param(q) => (vec![0; iters], *params.get(*q)?),
        Aff::Add(x, y) | Aff::Sub(x, y) => {
            let ((cx, kx), (cy, ky)) = (linear(x, iters, params)?, linear(y, iters, params)?);
            let sub = matches!(a, Aff::Sub(..));
            let op = |u: i64, v: i64| if sub { u.wrapping_sub(v) } else { u.wrapping_add(v) };
            (cx.iter().zip(&cy).map(|(u, v)| op(*u, *v)).collect(), op(kx, ky))
        }
        Aff::Neg(x) => {
            let (c, k) = linear(x, iters, params)?;
            (c.iter().map(|u| u.wrapping_neg()).collect(), k.wrapping_neg())
        }
        Aff::Mul(m, x) => {
            let (c, k) = linear(x, iters, params)?;
            (c.iter().map(|u| u.wrapping_mul(*m)).collect(), k.wrapping_mul(*m))
        }
        _ => return None,
    })
}
