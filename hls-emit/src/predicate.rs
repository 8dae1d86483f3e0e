//! Predicates (`dpnc_dpn::predicate`) as C/C++ expressions: the guards, muxes and demuxes of
//! the CPU, CUDA and Vitis HLS flavours.

use dpnc_dpn::predicate::{Cmp, Constraint, Predicate, Term};

/// What the code from [`c_expr`] needs before it: `floord(a, b)` = ⌊a / b⌋ for
/// `b != 0` (C's `/` truncates towards zero). Valid C99 and C++; `__host__ __device__` under
/// nvcc. Guarded, so it can be pasted more than once.
pub const C_PRELUDE: &str = "#ifndef DPNC_FLOORD_DEFINED
#define DPNC_FLOORD_DEFINED
#if defined(__CUDACC__)
#define DPNC_FLOORD_HD __host__ __device__
#else
#define DPNC_FLOORD_HD
#endif
/* floor(a / b): C division truncates towards zero; step down when the signs differ. */
static inline DPNC_FLOORD_HD long long floord(long long a, long long b) {
    long long q = a / b;
    return q - ((a % b != 0) && ((a < 0) != (b < 0)));
}
#endif
";

/// A C/C++ expression (value 0 or 1) over variables with these names, one per dimension:
/// `(i >= 0 && i <= 31 && 32*floord(t, 32) == t)`. Floor divisions call `floord`, so the
/// code needs [`C_PRELUDE`] before it. Parenthesised whenever it is not a single atom, so
/// it can be embedded anywhere. Integer literals beyond 32 bits get an `LL` suffix; the
/// arithmetic is in the variables' type (promoted to `long long` inside `floord`).
pub fn c_expr(p: &Predicate, names: &[&str]) -> String {
    assert_eq!(names.len(), p.dims.len(), "one name per dimension");
    p.render("1", "0", &mut |c| c_constraint(c, names))
}

fn c_lit(v: i128) -> String {
    if v > i32::MAX as i128 || v < i32::MIN as i128 {
        format!("{v}LL")
    } else {
        v.to_string()
    }
}

fn c_term(t: &Term, names: &[&str]) -> String {
    match t {
        Term::Var(i) => names[*i].to_string(),
        Term::Floor(f) => format!("floord({}, {})", c_sum(&f.num.terms, f.num.cst as i128, names), c_lit(f.den as i128)),
    }
}

/// `Σ c·t + cst` as `a + 2*b - 3`; `0` if empty.
fn c_sum(terms: &[(i64, Term)], cst: i128, names: &[&str]) -> String {
    let mut s = String::new();
    for (c, t) in terms {
        let (neg, mag) = (*c < 0, c.unsigned_abs() as i128);
        let body = if mag == 1 { c_term(t, names) } else { format!("{}*{}", c_lit(mag), c_term(t, names)) };
        if s.is_empty() {
            s = if neg { format!("-{body}") } else { body };
        } else {
            s += if neg { " - " } else { " + " };
            s += &body;
        }
    }
    if s.is_empty() {
        return c_lit(cst);
    }
    if cst != 0 {
        s += if cst < 0 { " - " } else { " + " };
        s += &c_lit(cst.abs());
    }
    s
}

fn c_constraint(c: &Constraint, names: &[&str]) -> String {
    let (pos, neg) = c.sides();
    let cst = c.expr.cst as i128;
    let op = if c.cmp == Cmp::Eq { "==" } else { ">=" };
    if pos.is_empty() {
        let op = if c.cmp == Cmp::Eq { "==" } else { "<=" };
        format!("{} {op} {}", c_sum(&neg, 0, names), c_lit(cst))
    } else {
        format!("{} {op} {}", c_sum(&pos, 0, names), c_sum(&neg, -cst, names))
    }
}
