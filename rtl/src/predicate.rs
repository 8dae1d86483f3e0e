//! Predicates and affine forms (`dpnc_dpn::predicate`) as Verilog-2005 expressions: the
//! walkers' guards, the muxes and demuxes, the memory processes' waits for DDR sources.

use dpnc_dpn::predicate::{Affine, Cmp, Constraint, Predicate, Term};

/// A Verilog-2005 expression (1 bit) over `signed [width-1:0]` signals with these names.
/// Each constraint is computed at the width its bounds need (from `width` and the
/// coefficients), so nothing overflows: signals are sign-extended explicitly
/// (`$signed({{k{i[w-1]}}, i})`) and literals are sized and signed, which keeps
/// `verilator -Wall` quiet. A bound on a single signal that fits in `width` bits is
/// printed plainly (`i >= 16'sd0`). Floor division by a constant `m`: `x >>> k` when
/// `m = 2^k` (arithmetic shift, exact for negative `x`); otherwise
/// `(x + m·K) / m - K`, where the constant `K` is large enough that `x + m·K >= 0` for
/// every value `x` can take, so the truncating `/` rounds down. Constant predicates are
/// `1'b1` / `1'b0`.
pub fn verilog_expr(p: &Predicate, names: &[&str], width: u32) -> String {
    assert_eq!(names.len(), p.dims.len(), "one name per dimension");
    assert!((1..=64).contains(&width), "width {width} out of 1..=64");
    p.render("1'b1", "1'b0", &mut |c| verilog_constraint(c, names, width))
}

/// A signed Verilog-2005 expression over `signed [width-1:0]` signals with these names
/// (one per variable), computed at the width returned beside it: as wide as any
/// intermediate value can need (see [`verilog_expr`]), and at least `width`.
pub fn affine_expr(a: &Affine, names: &[&str], width: u32) -> (String, u32) {
    assert!((1..=64).contains(&width), "width {width} out of 1..=64");
    let iw = inner_width(a, width);
    (Vlog { names, width, iw }.sum(&a.terms, a.cst as i128), iw)
}

/// Largest magnitude `a` can take with signals in `[-2^(w-1), 2^(w-1))`, and the largest
/// magnitude any intermediate value of its Verilog form takes (`need`, updated).
fn bound(a: &Affine, w: u32, need: &mut u128) -> u128 {
    let b = a.terms.iter().map(|(c, t)| c.unsigned_abs() as u128 * term_bound(t, w, need)).sum::<u128>() + a.cst.unsigned_abs() as u128;
    *need = (*need).max(b);
    b
}

fn term_bound(t: &Term, w: u32, need: &mut u128) -> u128 {
    match t {
        Term::Var(_) => 1u128 << (w - 1),
        Term::Floor(f) => {
            let b = bound(&f.num, w, need);
            let m = f.den as u128;
            // (x + m·K) with K = ceil(b/m): at most 2b + m.
            *need = (*need).max(2 * b + m).max(b.div_ceil(m) + 1);
            b.div_ceil(m) + 1
        }
    }
}

struct Vlog<'a> {
    names: &'a [&'a str],
    width: u32,
    iw: u32,
}

impl Vlog<'_> {
    fn lit(&self, v: u128) -> String {
        format!("{}'sd{v}", self.iw)
    }

    fn var(&self, i: usize) -> String {
        let n = self.names[i];
        if self.iw == self.width {
            n.to_string()
        } else {
            format!("$signed({{{{{}{{{n}[{}]}}}}, {n}}})", self.iw - self.width, self.width - 1)
        }
    }

    fn term(&self, t: &Term) -> String {
        match t {
            Term::Var(i) => self.var(*i),
            Term::Floor(f) => {
                let m = f.den as u128;
                let x = self.sum(&f.num.terms, f.num.cst as i128);
                if m.is_power_of_two() {
                    format!("(({x}) >>> {})", m.trailing_zeros())
                } else {
                    let mut ignored = 0;
                    let k = bound(&f.num, self.width, &mut ignored).div_ceil(m);
                    format!("((({x}) + {}) / {} - {})", self.lit(m * k), self.lit(m), self.lit(k))
                }
            }
        }
    }

    fn sum(&self, terms: &[(i64, Term)], cst: i128) -> String {
        let mut s = String::new();
        for (c, t) in terms {
            let (neg, mag) = (*c < 0, c.unsigned_abs() as u128);
            let body = if mag == 1 { self.term(t) } else { format!("{} * {}", self.lit(mag), self.term(t)) };
            if s.is_empty() {
                s = if neg { format!("-{body}") } else { body };
            } else {
                s += if neg { " - " } else { " + " };
                s += &body;
            }
        }
        if s.is_empty() {
            return if cst < 0 { format!("-{}", self.lit(cst.unsigned_abs())) } else { self.lit(cst as u128) };
        }
        if cst != 0 {
            s += if cst < 0 { " - " } else { " + " };
            s += &self.lit(cst.unsigned_abs());
        }
        s
    }
}

/// Bits (signed) that hold every value `a`'s Verilog form computes, signals being `width` bits.
fn inner_width(a: &Affine, width: u32) -> u32 {
    let mut need = 0u128;
    let b = bound(a, width, &mut need);
    (128 - need.max(b).leading_zeros() + 1).max(width)
}

fn verilog_constraint(c: &Constraint, names: &[&str], width: u32) -> String {
    if let Some(v) = residue_constraint(c, names, width) {
        return v;
    }
    let (pos, neg) = c.sides();
    let cst = c.expr.cst as i128;
    let half = 1i128 << (width - 1);
    // A bound on one signal whose constant fits: compare at the signal's own width.
    if let [(1, Term::Var(i))] = c.expr.terms.as_slice() {
        let v = -cst; // i >= v / i == v
        if -half < v && v < half {
            let v = Vlog { names, width, iw: width }.sum(&[], v);
            return format!("{} {} {v}", names[*i], if c.cmp == Cmp::Eq { "==" } else { ">=" });
        }
    }
    if let [(-1, Term::Var(i))] = c.expr.terms.as_slice() {
        if -half < cst && cst < half {
            let v = Vlog { names, width, iw: width }.sum(&[], cst);
            return format!("{} {} {v}", names[*i], if c.cmp == Cmp::Eq { "==" } else { "<=" });
        }
    }
    let v = Vlog { names, width, iw: inner_width(&c.expr, width) };
    let op = if c.cmp == Cmp::Eq { "==" } else { ">=" };
    if pos.is_empty() {
        let op = if c.cmp == Cmp::Eq { "==" } else { "<=" };
        format!("{} {op} {}", v.sum(&neg, 0), v.sum(&[], cst))
    } else {
        format!("{} {op} {}", v.sum(&pos, 0), v.sum(&neg, -cst))
    }
}

/// A constraint on a signal's residue modulo a power of two `m = 2^s` as its low bits:
/// `±(x − m·floor((x + a)/m)) + c` compared with 0, as a tile's first or last row is
/// (`j = 32·floor((j + 1)/32) − 1`: the last row of a 32-row tile). With `r = (x + a) mod m`,
/// that is `±(r − a) + c`, so `r` (the low bits of `x + a`, or of `x` alone where `m` divides
/// `a`; for an equality, `x`'s against another constant) against a constant: a few LUTs rather
/// than the sum, the product and the comparison, each a carry chain. `None` for any other
/// constraint.
fn residue_constraint(c: &Constraint, names: &[&str], width: u32) -> Option<String> {
    let [(sign, Term::Var(i)), (cm, Term::Floor(f))] = c.expr.terms.as_slice() else { return None };
    let (m, s) = (f.den, f.den.trailing_zeros());
    let [(1, Term::Var(j))] = f.num.terms.as_slice() else { return None };
    if i != j || sign.abs() != 1 || *cm != -sign * m || m.count_ones() != 1 || s >= width {
        return None;
    }
    let (a, cst) = (f.num.cst as i128, c.expr.cst as i128);
    let low = format!("{}[{}:0]", names[*i], s - 1);
    let am = a.rem_euclid(m as i128);
    let r = match am {
        0 => low.clone(),
        am => format!("({low} + {s}'d{am})"),
    };
    let lit = |k: i128| format!("{s}'d{k}");
    let m = m as i128;
    // sign 1: r − a + c ⋈ 0, so r ⋈ a − c; sign −1: a − r + c ⋈ 0, so r ⋈' a + c (⋈' reversed).
    Some(match (c.cmp, *sign) {
        (Cmp::Eq, _) => {
            let k = if *sign == 1 { a - cst } else { a + cst };
            // r = k: x's low bits are k − a modulo m.
            if (0..m).contains(&k) {
                format!("{low} == {}", lit((k - am).rem_euclid(m)))
            } else {
                "1'b0".into()
            }
        }
        (Cmp::Ge, 1) => match a - cst {
            k if k <= 0 => "1'b1".into(),
            k if k >= m => "1'b0".into(),
            k => format!("{r} >= {}", lit(k)),
        },
        (Cmp::Ge, _) => match a + cst {
            k if k < 0 => "1'b0".into(),
            k if k >= m - 1 => "1'b1".into(),
            k => format!("{r} <= {}", lit(k)),
        },
    })
}
