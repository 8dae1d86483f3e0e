//! Evaluable pieces of isl relations. A dataflow piece from isl (a basic map whose outputs
//! are a function of its inputs) is copied out as integer constraints; [`Piece::apply`]
//! solves them for the outputs given the parameters and inputs. This lets executors follow
//! the SARE point by point without calling isl.

use isl_rs::{BasicMap, DimType};

#[derive(Clone, Debug)]
struct Row {
    /// Coefficients over the columns `params ++ inputs ++ outputs ++ divs`.
    coef: Vec<i64>,
    cst: i64,
}

impl Row {
    fn value(&self, vals: &[Option<i64>]) -> Option<i128> {
        let mut s = self.cst as i128;
        for (c, v) in self.coef.iter().zip(vals) {
            if *c != 0 {
                s += *c as i128 * v.map(|v| v as i128)?;
            }
        }
        Some(s)
    }
    /// `(column, coefficient, rest)` when exactly one column with a non-zero coefficient is
    /// unknown.
    fn single_unknown(&self, vals: &[Option<i64>]) -> Option<(usize, i128, i128)> {
        let mut unknown = None;
        let mut rest = self.cst as i128;
        for (k, (c, v)) in self.coef.iter().zip(vals).enumerate() {
            if *c == 0 {
                continue;
            }
            match v {
                Some(v) => rest += *c as i128 * *v as i128,
                None if unknown.is_none() => unknown = Some((k, *c as i128)),
                None => return None,
            }
        }
        unknown.map(|(k, c)| (k, c, rest))
    }
}

/// One convex piece `{ [params] -> in -> out : constraints (with existentials) }`.
#[derive(Clone, Debug)]
pub struct Piece {
    n_param: usize,
    n_in: usize,
    n_out: usize,
    n_cols: usize,
    eqs: Vec<Row>,
    ineqs: Vec<Row>,
    /// When every output is an affine function of the parameters and inputs and there are no
    /// existentials (the common case), that function: solved directly, then checked.
    explicit: Option<Explicit>,
}

/// `Σ coef·value + cst` over the non-zero columns only.
#[derive(Clone, Debug)]
struct Sparse {
    terms: Vec<(usize, i64)>,
    cst: i64,
}

impl Sparse {
    fn of(r: &Row, cols: std::ops::Range<usize>, scale: i64) -> Sparse {
        Sparse { terms: cols.filter(|&c| r.coef[c] != 0).map(|c| (c, scale * r.coef[c])).collect(), cst: scale * r.cst }
    }
    fn value(&self, vals: &[i64]) -> Option<i64> {
        self.terms.iter().try_fold(self.cst, |acc, &(c, a)| acc.checked_add(a.checked_mul(vals[c])?))
    }
}

/// The explicit form: outputs from parameters and inputs, then the remaining constraints.
#[derive(Clone, Debug)]
struct Explicit {
    outs: Vec<Sparse>,
    eqs: Vec<Sparse>,
    ineqs: Vec<Sparse>,
}

fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

impl Piece {
    pub fn from_isl(bmap: &BasicMap) -> Result<Piece, String> {
        let dim = |t: DimType| bmap.dim(t).map(|d| d as usize).map_err(|e| e.to_string());
        let (n_param, n_in, n_out, n_div) = (dim(DimType::Param)?, dim(DimType::In)?, dim(DimType::Out)?, dim(DimType::Div)?);
        let n_cols = n_param + n_in + n_out + n_div;
        let list = bmap.get_constraint_list().map_err(|e| e.to_string())?;
        let mut p = Piece { n_param, n_in, n_out, n_cols, eqs: vec![], ineqs: vec![], explicit: None };
        for k in 0..list.size().map_err(|e| e.to_string())? {
            let c = list.get_at(k).map_err(|e| e.to_string())?;
            let int = |v: isl_rs::Val| -> Result<i64, String> {
                if v.get_den_si().map_err(|e| e.to_string())? != 1 {
                    return Err("non-integer coefficient".into());
                }
                v.get_num_si().map_err(|e| e.to_string())
            };
            let mut coef = Vec::with_capacity(n_cols);
            for (t, n) in [(DimType::Param, n_param), (DimType::In, n_in), (DimType::Out, n_out), (DimType::Div, n_div)] {
                for i in 0..n {
                    coef.push(int(c.get_coefficient_val(t, i as i32).map_err(|e| e.to_string())?)?);
                }
            }
            let row = Row { coef, cst: int(c.get_constant_val().map_err(|e| e.to_string())?)? };
            if c.is_equality().map_err(|e| e.to_string())? {
                p.eqs.push(row);
            } else {
                p.ineqs.push(row);
            }
        }
        p.add_div_definitions(bmap)?;
        if n_div == 0 {
            let outs = n_param + n_in..n_cols;
            let defining: Option<Vec<usize>> = outs
                .clone()
                .map(|o| p.eqs.iter().position(|r| matches!(r.coef[o], 1 | -1) && outs.clone().all(|c| c == o || r.coef[c] == 0)))
                .collect();
            p.explicit = defining.map(|rows| Explicit {
                // c·out + rest = 0 with c = ±1: out = -c·rest.
                outs: rows.iter().zip(outs.clone()).map(|(&e, o)| Sparse::of(&p.eqs[e], 0..n_param + n_in, -p.eqs[e].coef[o])).collect(),
                eqs: p.eqs.iter().enumerate().filter(|(e, _)| !rows.contains(e)).map(|(_, r)| Sparse::of(r, 0..n_cols, 1)).collect(),
                ineqs: p.ineqs.iter().map(|r| Sparse::of(r, 0..n_cols, 1)).collect(),
            });
        }
        Ok(p)
    }

    /// isl's constraint list leaves out the constraints that define an existential with a
    /// known definition `d = floor(f / m)` when they are redundant for isl, which knows the
    /// definition; the solver does not, and could find no bound on `d` (e.g. with only
    /// `3*floor((a - 1)/3) <= a - 2`, "a - 1 is not a multiple of 3"). Add them:
    /// `f - m*d >= 0` and `m*d - f + m - 1 >= 0`.
    fn add_div_definitions(&mut self, bmap: &BasicMap) -> Result<(), String> {
        let n_div = self.n_cols - self.n_param - self.n_in - self.n_out;
        if n_div == 0 {
            return Ok(());
        }
        let err = |e: isl_rs::LibISLError| e.to_string();
        // isl gives div definitions only in set spaces: wrap [in -> out] into one tuple.
        let bset = bmap.copy().and_then(|b| b.wrap()).map_err(err)?;
        let n_dims = self.n_in + self.n_out;
        for k in 0..n_div {
            let aff = bset.get_div(k as i32).map_err(err)?;
            if aff.is_nan().map_err(err)? {
                continue; // an existential without a known definition
            }
            let m = aff.get_denominator_val().map_err(err)?;
            let (m, den) = (m.get_num_si().map_err(err)?, m.get_den_si().map_err(err)?);
            if m <= 0 || den != 1 {
                continue;
            }
            // Coefficients are rationals over the denominator: scale by m.
            let scaled = |v: isl_rs::Val| -> Result<i64, String> {
                let (num, den) = (v.get_num_si().map_err(err)?, v.get_den_si().map_err(err)?);
                if den == 0 || m % den != 0 {
                    return Err("div coefficient does not divide its denominator".into());
                }
                Ok(num * (m / den))
            };
            let mut coef = Vec::with_capacity(self.n_cols);
            for (t, n) in [(DimType::Param, self.n_param), (DimType::In, n_dims), (DimType::Div, n_div)] {
                for i in 0..n {
                    coef.push(scaled(aff.get_coefficient_val(t, i as i32).map_err(err)?)?);
                }
            }
            let cst = scaled(aff.get_constant_val().map_err(err)?)?;
            let d = self.n_param + n_dims + k;
            // f - m*d >= 0
            let mut lo = Row { coef: coef.clone(), cst };
            lo.coef[d] -= m;
            // m*d - f + m - 1 >= 0
            let mut hi = Row { coef: coef.iter().map(|c| -c).collect(), cst: m - 1 - cst };
            hi.coef[d] += m;
            self.ineqs.push(lo);
            self.ineqs.push(hi);
        }
        Ok(())
    }

    /// When the piece's outputs are affine functions of the parameters and inputs (no
    /// existentials): per output, its coefficients over `params ++ inputs` and constant.
    pub fn affine_outputs(&self) -> Option<Vec<(Vec<i64>, i64)>> {
        let x = self.explicit.as_ref()?;
        let known = self.n_param + self.n_in;
        Some(
            x.outs
                .iter()
                .map(|f| {
                    let mut coef = vec![0; known];
                    f.terms.iter().for_each(|&(c, a)| coef[c] = a);
                    (coef, f.cst)
                })
                .collect(),
        )
    }

    /// When the piece is explicit (see [`Piece::affine_outputs`]): the conditions an input
    /// must meet, with the outputs substituted, each as coefficients over `params ++ inputs`,
    /// a constant, and whether it is an equality (`= 0`, else `>= 0`).
    pub fn affine_conditions(&self) -> Option<Vec<(Vec<i64>, i64, bool)>> {
        let x = self.explicit.as_ref()?;
        let known = self.n_param + self.n_in;
        let compose = |r: &Sparse| -> Option<(Vec<i64>, i64)> {
            let (mut coef, mut cst) = (vec![0i64; known], r.cst);
            for &(c, a) in &r.terms {
                if c < known {
                    coef[c] = coef[c].checked_add(a)?;
                } else {
                    let f = &x.outs[c - known];
                    cst = cst.checked_add(a.checked_mul(f.cst)?)?;
                    for &(d, b) in &f.terms {
                        coef[d] = coef[d].checked_add(a.checked_mul(b)?)?;
                    }
                }
            }
            Some((coef, cst))
        };
        let eqs = x.eqs.iter().map(|r| compose(r).map(|(c, k)| (c, k, true)));
        let ineqs = x.ineqs.iter().map(|r| compose(r).map(|(c, k)| (c, k, false)));
        eqs.chain(ineqs).collect()
    }

    /// The outputs for these parameters and inputs, or `None` if the point is outside the
    /// piece.
    pub fn apply(&self, params: &[i64], input: &[i64]) -> Option<Vec<i64>> {
        let mut out = Vec::new();
        self.apply_into(params, input, &mut out).then_some(out)
    }

    /// [`Piece::apply`] into `out` (replaced), without allocating on the hot path: executors
    /// call this once per read of every statement instance.
    pub fn apply_into(&self, params: &[i64], input: &[i64], out: &mut Vec<i64>) -> bool {
        if params.len() != self.n_param || input.len() != self.n_in {
            return false;
        }
        if let Some(x) = &self.explicit {
            return self.apply_explicit(x, params, input, out);
        }
        let mut stack = [None; 24];
        let mut heap = Vec::new();
        let vals: &mut [Option<i64>] = if self.n_cols <= stack.len() {
            &mut stack[..self.n_cols]
        } else {
            heap.resize(self.n_cols, None);
            &mut heap
        };
        for (v, x) in vals.iter_mut().zip(params.iter().chain(input)) {
            *v = Some(*x);
        }
        if self.solve(vals).is_none() {
            return false;
        }
        out.clear();
        out.extend(vals[self.n_param + self.n_in..self.n_param + self.n_in + self.n_out].iter().map(|v| v.unwrap_or(0)));
        true
    }

    fn apply_explicit(&self, x: &Explicit, params: &[i64], input: &[i64], out: &mut Vec<i64>) -> bool {
        let mut stack = [0i64; 24];
        let mut heap = Vec::new();
        let vals: &mut [i64] = if self.n_cols <= stack.len() {
            &mut stack[..self.n_cols]
        } else {
            heap.resize(self.n_cols, 0);
            &mut heap
        };
        let known = self.n_param + self.n_in;
        for (v, p) in vals.iter_mut().zip(params.iter().chain(input)) {
            *v = *p;
        }
        for (o, f) in x.outs.iter().enumerate() {
            let Some(v) = f.value(vals) else { return false };
            vals[known + o] = v;
        }
        let ok = x.eqs.iter().all(|r| r.value(vals) == Some(0)) && x.ineqs.iter().all(|r| r.value(vals).is_some_and(|v| v >= 0));
        if ok {
            out.clear();
            out.extend(vals[known..].iter().copied());
        }
        ok
    }

    /// Fills the unknown columns and checks every constraint.
    fn solve(&self, vals: &mut [Option<i64>]) -> Option<()> {
        let mut unknown = vals.iter().filter(|v| v.is_none()).count();
        while unknown > 0 {
            if self.propagate(vals)? {
                unknown = vals.iter().filter(|v| v.is_none()).count();
                continue;
            }
            // Stuck: an unknown with a range of values. With a bounded range, try each value
            // (an output has exactly one that satisfies everything, e.g. the largest
            // `i < n` with `i mod 3 = 1`; for an existential any will do); with only a lower
            // bound, take it and verify below.
            let unknowns = (0..self.n_cols).filter(|&c| vals[c].is_none());
            let ranged = unknowns.clone().find_map(|c| match self.bounds(vals, c) {
                (Some(lo), Some(hi)) if hi - lo <= 4096 => Some((c, lo, hi)),
                _ => None,
            });
            if let Some((col, lo, hi)) = ranged {
                for v in lo..=hi {
                    let mut trial = vals.to_vec();
                    trial[col] = Some(i64::try_from(v).ok()?);
                    if self.solve(&mut trial).is_some() {
                        vals.copy_from_slice(&trial);
                        return Some(());
                    }
                }
                return None;
            }
            let (col, lo) = unknowns.clone().find_map(|c| self.bounds(vals, c).0.map(|lo| (c, lo)))?;
            vals[col] = Some(i64::try_from(lo).ok()?);
            unknown -= 1;
        }
        let ok = self.eqs.iter().all(|r| r.value(vals) == Some(0)) && self.ineqs.iter().all(|r| r.value(vals).is_some_and(|v| v >= 0));
        ok.then_some(())
    }

    /// One round of solving equalities and tight bounds. `Some(progress)`, or `None` when
    /// the constraints have no integer solution.
    fn propagate(&self, vals: &mut [Option<i64>]) -> Option<bool> {
        let mut progress = false;
        for r in &self.eqs {
            if let Some((k, c, rest)) = r.single_unknown(vals) {
                if rest % c != 0 {
                    return None;
                }
                vals[k] = Some(i64::try_from(-rest / c).ok()?);
                progress = true;
            }
        }
        if progress {
            return Some(true);
        }
        for col in 0..self.n_cols {
            if vals[col].is_some() {
                continue;
            }
            if let (Some(lo), Some(hi)) = self.bounds(vals, col) {
                if lo > hi {
                    return None;
                }
                if lo == hi {
                    vals[col] = Some(i64::try_from(lo).ok()?);
                    progress = true;
                }
            }
        }
        Some(progress)
    }

    /// Bounds on `col` from inequalities in which it is the only unknown.
    fn bounds(&self, vals: &[Option<i64>], col: usize) -> (Option<i128>, Option<i128>) {
        let (mut lo, mut hi): (Option<i128>, Option<i128>) = (None, None);
        for r in &self.ineqs {
            if let Some((k, c, rest)) = r.single_unknown(vals) {
                if k != col {
                    continue;
                }
                // c*x + rest >= 0
                if c > 0 {
                    let b = -floor_div(rest, c);
                    lo = Some(lo.map_or(b, |l| l.max(b)));
                } else {
                    let b = floor_div(rest, -c);
                    hi = Some(hi.map_or(b, |h| h.min(b)));
                }
            }
        }
        (lo, hi)
    }
}
