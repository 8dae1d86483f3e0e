//! Symbolic sets as code. The DPN IR keeps iteration domains, mux and demux clauses as isl
//! text (`[ni] -> { S[i, j] : 0 <= i < ni and 32*floor((i)/32) >= i - 7 }`); every backend
//! must turn them into guards. isl-rs has no AST generator, so this module converts a set,
//! with its parameters fixed to known values, into a [`Predicate`]: a disjunction of
//! conjunctions of affine constraints over the set's dimensions, where existentials appear
//! as explicit floor divisions (`floor(affine / m)`, possibly nested) — exactly what isl's
//! `compute_divs` makes of them. A set isl cannot give explicit divisions for is an error,
//! never an approximation.
//!
//! A predicate evaluates itself ([`Predicate::eval`]) and prints itself as a C/C++
//! expression ([`Predicate::to_c`], with [`C_PRELUDE`]) or a Verilog-2005 expression
//! ([`Predicate::to_verilog`]).

use std::fmt;

use isl_rs::{Aff, BasicSet, DimType, Set, Val};
use serde::{Deserialize, Serialize};

/// Why a set could not become a [`Predicate`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PredicateError {
    #[error("isl: {0}")]
    Isl(String),
    #[error("parameter `{0}` has no value")]
    UnboundParam(String),
    #[error("cannot express the set as a predicate: {0}")]
    Unsupported(String),
}

fn isl_err(e: isl_rs::LibISLError) -> PredicateError {
    PredicateError::Isl(e.to_string())
}

/// A term of an [`Affine`] expression.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Term {
    /// The set dimension with this index.
    Var(usize),
    /// `floor(num / den)`.
    Floor(Box<FloorDiv>),
}

/// `floor(num / den)` with `den >= 2`; the numerator may contain further floors.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FloorDiv {
    pub num: Affine,
    pub den: i64,
}

/// `Σ coef·term + cst`. Normalised: terms sorted, distinct, with non-zero coefficients.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Affine {
    pub terms: Vec<(i64, Term)>,
    pub cst: i64,
}

/// How a constraint's expression compares with zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Cmp {
    /// `expr >= 0`
    Ge,
    /// `expr == 0`
    Eq,
}

/// `expr >= 0` or `expr == 0`; never constant (constants are folded away).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Constraint {
    pub expr: Affine,
    pub cmp: Cmp,
}

/// A union (`disjuncts`, any of) of conjunctions (all of) of constraints over the dimensions
/// of a set. No disjunct: false; a disjunct with no constraint: true (then it is the only one).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Predicate {
    /// The set's dimension names (`i0`, `i1`, … where the set has none), in order.
    pub dims: Vec<String>,
    pub disjuncts: Vec<Vec<Constraint>>,
}

/// What the code from [`Predicate::to_c`] needs before it: `floord(a, b)` = ⌊a / b⌋ for
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

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

impl Affine {
    pub fn constant(cst: i64) -> Affine {
        Affine { terms: vec![], cst }
    }

    pub fn var(i: usize) -> Affine {
        Affine { terms: vec![(1, Term::Var(i))], cst: 0 }
    }

    /// `self += k·other`, normalised.
    pub fn add_scaled(&mut self, other: &Affine, k: i64) {
        if k == 0 {
            return;
        }
        self.cst += k * other.cst;
        self.terms.extend(other.terms.iter().map(|(c, t)| (c * k, t.clone())));
        self.normalize();
    }

    fn normalize(&mut self) {
        self.terms.sort_by(|a, b| a.1.cmp(&b.1));
        let mut out: Vec<(i64, Term)> = Vec::with_capacity(self.terms.len());
        for (c, t) in self.terms.drain(..) {
            match out.last_mut() {
                Some((c0, t0)) if *t0 == t => *c0 += c,
                _ => out.push((c, t)),
            }
        }
        out.retain(|(c, _)| *c != 0);
        self.terms = out;
    }

    /// `floor(self / den)` for `den > 0`, simplified: multiples of `den` leave the floor,
    /// common factors of the numerator's coefficients and `den` cancel
    /// (`⌊(g·a + c) / (g·m)⌋ = ⌊(a + ⌊c/g⌋) / m⌋`), a constant or `den = 1` floor disappears.
    pub fn floor_div(&self, den: i64) -> Affine {
        assert!(den > 0, "floor division by {den}");
        let (mut num, mut den) = (self.clone(), den);
        let mut out = Affine::default();
        loop {
            if den == 1 {
                out.add_scaled(&num, 1);
                return out;
            }
            out.cst += num.cst.div_euclid(den);
            let mut inner = Affine::constant(num.cst.rem_euclid(den));
            for (c, t) in num.terms {
                if c % den == 0 {
                    out.terms.push((c / den, t));
                } else {
                    inner.terms.push((c, t));
                }
            }
            if inner.terms.is_empty() {
                // 0 <= cst < den
                out.normalize();
                return out;
            }
            let g = inner.terms.iter().fold(den, |g, (c, _)| gcd(g, *c));
            if g > 1 {
                inner.terms.iter_mut().for_each(|(c, _)| *c /= g);
                inner.cst = inner.cst.div_euclid(g);
                den /= g;
                num = inner;
                continue;
            }
            out.terms.push((1, Term::Floor(Box::new(FloorDiv { num: inner, den }))));
            out.normalize();
            return out;
        }
    }

    pub fn eval(&self, point: &[i64]) -> i128 {
        self.terms.iter().map(|(c, t)| *c as i128 * t.eval(point)).sum::<i128>() + self.cst as i128
    }

    fn is_constant(&self) -> bool {
        self.terms.is_empty()
    }
}

impl Term {
    pub fn eval(&self, point: &[i64]) -> i128 {
        match self {
            Term::Var(i) => point[*i] as i128,
            Term::Floor(f) => floor_div(f.num.eval(point), f.den as i128),
        }
    }
}

/// A constraint, or the constant it folded to.
enum Folded {
    Const(bool),
    C(Constraint),
}

impl Constraint {
    /// Normalises `expr cmp 0`: divides by the gcd of the coefficients (rounding the constant
    /// down for `>=`, which is exact over the integers), makes equalities start with a
    /// positive coefficient, and folds constants.
    fn fold(mut expr: Affine, cmp: Cmp) -> Folded {
        expr.normalize();
        if expr.is_constant() {
            return Folded::Const(match cmp {
                Cmp::Ge => expr.cst >= 0,
                Cmp::Eq => expr.cst == 0,
            });
        }
        let g = expr.terms.iter().fold(0, |g, (c, _)| gcd(g, *c));
        if g > 1 {
            if cmp == Cmp::Eq && expr.cst % g != 0 {
                return Folded::Const(false);
            }
            expr.terms.iter_mut().for_each(|(c, _)| *c /= g);
            expr.cst = expr.cst.div_euclid(g);
        }
        if cmp == Cmp::Eq && expr.terms[0].0 < 0 {
            expr.terms.iter_mut().for_each(|(c, _)| *c = -*c);
            expr.cst = -expr.cst;
        }
        Folded::C(Constraint { expr, cmp })
    }

    pub fn eval(&self, point: &[i64]) -> bool {
        let v = self.expr.eval(point);
        match self.cmp {
            Cmp::Ge => v >= 0,
            Cmp::Eq => v == 0,
        }
    }
}

/// Reads an isl value that must be an integer.
fn int(v: Val) -> Result<i64, PredicateError> {
    let (num, den) = (v.get_num_si().map_err(isl_err)?, v.get_den_si().map_err(isl_err)?);
    if den != 1 {
        return Err(PredicateError::Unsupported(format!("non-integer coefficient {num}/{den}")));
    }
    Ok(num)
}

/// `floor(aff)` for a div of a basic set: the aff is `f / m` with rational coefficients;
/// its own divs (nested floors) are read from its local space, recursively.
fn div_of_aff(aff: &Aff, n_dims: usize, depth: usize) -> Result<Affine, PredicateError> {
    if depth > 64 {
        return Err(PredicateError::Unsupported("divisions nested too deeply".into()));
    }
    if aff.is_nan().map_err(isl_err)? {
        return Err(PredicateError::Unsupported("an existential variable has no explicit definition".into()));
    }
    let m = int(aff.get_denominator_val().map_err(isl_err)?)?;
    if m <= 0 {
        return Err(PredicateError::Unsupported(format!("division by {m}")));
    }
    let scaled = |v: Val| -> Result<i64, PredicateError> {
        let (num, den) = (v.get_num_si().map_err(isl_err)?, v.get_den_si().map_err(isl_err)?);
        if den <= 0 || m % den != 0 {
            return Err(PredicateError::Unsupported("division coefficient does not divide its denominator".into()));
        }
        Ok(num * (m / den))
    };
    if aff.dim(DimType::Param).map_err(isl_err)? != 0 {
        return Err(PredicateError::Unsupported("division mentions a parameter".into()));
    }
    if aff.dim(DimType::In).map_err(isl_err)? as usize != n_dims {
        return Err(PredicateError::Unsupported("division over an unexpected space".into()));
    }
    let mut num = Affine::constant(scaled(aff.get_constant_val().map_err(isl_err)?)?);
    for i in 0..n_dims {
        let c = scaled(aff.get_coefficient_val(DimType::In, i as i32).map_err(isl_err)?)?;
        num.add_scaled(&Affine::var(i), c);
    }
    for j in 0..aff.dim(DimType::Div).map_err(isl_err)? {
        let c = scaled(aff.get_coefficient_val(DimType::Div, j).map_err(isl_err)?)?;
        if c != 0 {
            let inner = div_of_aff(&aff.get_div(j).map_err(isl_err)?, n_dims, depth + 1)?;
            num.add_scaled(&inner, c);
        }
    }
    Ok(num.floor_div(m))
}

/// One basic set (no parameters left) as a conjunction; `None` if it folded to false.
fn conjunction(bset: &BasicSet, n_dims: usize) -> Result<Option<Vec<Constraint>>, PredicateError> {
    if bset.dim(DimType::Param).map_err(isl_err)? != 0 {
        return Err(PredicateError::Unsupported("parameters left after fixing them".into()));
    }
    let n_div = bset.dim(DimType::Div).map_err(isl_err)?;
    let divs: Vec<Affine> = (0..n_div).map(|j| div_of_aff(&bset.get_div(j).map_err(isl_err)?, n_dims, 0)).collect::<Result<_, _>>()?;
    let list = bset.get_constraint_list().map_err(isl_err)?;
    let mut out: Vec<Constraint> = Vec::new();
    for k in 0..list.size().map_err(isl_err)? {
        let c = list.get_at(k).map_err(isl_err)?;
        let mut expr = Affine::constant(int(c.get_constant_val().map_err(isl_err)?)?);
        for i in 0..n_dims {
            expr.add_scaled(&Affine::var(i), int(c.get_coefficient_val(DimType::Set, i as i32).map_err(isl_err)?)?);
        }
        for (j, d) in divs.iter().enumerate() {
            expr.add_scaled(d, int(c.get_coefficient_val(DimType::Div, j as i32).map_err(isl_err)?)?);
        }
        let cmp = if c.is_equality().map_err(isl_err)? { Cmp::Eq } else { Cmp::Ge };
        match Constraint::fold(expr, cmp) {
            Folded::Const(true) => {}
            Folded::Const(false) => return Ok(None),
            Folded::C(c) => {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
    }
    Ok(Some(out))
}

impl Predicate {
    /// Parses `text` (an isl set) and converts it with [`Predicate::from_set`].
    pub fn from_isl_str(text: &str, params: &[(String, i64)]) -> Result<Predicate, PredicateError> {
        let ctx = dpnc_frontend::dataflow::quiet_context();
        let set = Set::read_from_str(&ctx, text).map_err(isl_err)?;
        let p = Predicate::from_set(&set, params);
        drop(set);
        p
    }

    /// The set with every parameter fixed to its value in `params` (an error if one has
    /// none; extra entries are ignored), as a predicate over the set's dimensions. isl makes
    /// every existential an explicit division (`compute_divs`) after coalescing and removing
    /// redundant constraints; the constraints it lists per basic set are taken as they are
    /// (those that only define a division are implied by writing the division out).
    pub fn from_set(set: &Set, params: &[(String, i64)]) -> Result<Predicate, PredicateError> {
        let ctx = set.get_ctx();
        let mut s = set.copy().map_err(isl_err)?;
        let n_param = s.dim(DimType::Param).map_err(isl_err)? as u32;
        for p in 0..n_param {
            let name = if s.has_dim_name(DimType::Param, p).map_err(isl_err)? {
                s.get_dim_name(DimType::Param, p).map_err(isl_err)?.to_string()
            } else {
                format!("p{p}")
            };
            let v = params.iter().find(|(n, _)| *n == name).ok_or(PredicateError::UnboundParam(name))?.1;
            s = s.fix_val(DimType::Param, p, Val::int_from_si(&ctx, v).map_err(isl_err)?).map_err(isl_err)?;
        }
        s = s.project_out(DimType::Param, 0, n_param).map_err(isl_err)?;
        s = s.remove_redundancies().map_err(isl_err)?.coalesce().map_err(isl_err)?.compute_divs().map_err(isl_err)?;
        let n_dims = s.dim(DimType::Set).map_err(isl_err)? as usize;
        let mut dims = Vec::with_capacity(n_dims);
        for i in 0..n_dims as u32 {
            dims.push(if s.has_dim_name(DimType::Set, i).map_err(isl_err)? {
                s.get_dim_name(DimType::Set, i).map_err(isl_err)?.to_string()
            } else {
                format!("i{i}")
            });
        }
        let list = s.get_basic_set_list().map_err(isl_err)?;
        let mut disjuncts: Vec<Vec<Constraint>> = Vec::new();
        for k in 0..list.size().map_err(isl_err)? {
            let bset = list.get_at(k).map_err(isl_err)?;
            if let Some(conj) = conjunction(&bset, n_dims)? {
                if conj.is_empty() {
                    return Ok(Predicate { dims, disjuncts: vec![vec![]] });
                }
                if !disjuncts.contains(&conj) {
                    disjuncts.push(conj);
                }
            }
        }
        Ok(Predicate { dims, disjuncts })
    }

    pub fn is_true(&self) -> bool {
        self.disjuncts.iter().any(|d| d.is_empty())
    }

    pub fn is_false(&self) -> bool {
        self.disjuncts.is_empty()
    }

    /// Whether the point (one coordinate per dimension) is in the set. Exact: floor
    /// divisions round towards minus infinity, arithmetic is on 128 bits.
    pub fn eval(&self, point: &[i64]) -> bool {
        assert_eq!(point.len(), self.dims.len(), "point of the wrong dimension");
        self.disjuncts.iter().any(|d| d.iter().all(|c| c.eval(point)))
    }

    /// A C/C++ expression (value 0 or 1) over variables with these names, one per dimension:
    /// `(i >= 0 && i <= 31 && 32*floord(t, 32) == t)`. Floor divisions call `floord`, so the
    /// code needs [`C_PRELUDE`] before it. Parenthesised whenever it is not a single atom, so
    /// it can be embedded anywhere. Integer literals beyond 32 bits get an `LL` suffix; the
    /// arithmetic is in the variables' type (promoted to `long long` inside `floord`).
    pub fn to_c(&self, names: &[&str]) -> String {
        assert_eq!(names.len(), self.dims.len(), "one name per dimension");
        self.print("1", "0", &mut |c| c_constraint(c, names))
    }

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
    pub fn to_verilog(&self, names: &[&str], width: u32) -> String {
        assert_eq!(names.len(), self.dims.len(), "one name per dimension");
        assert!((1..=64).contains(&width), "width {width} out of 1..=64");
        self.print("1'b1", "1'b0", &mut |c| verilog_constraint(c, names, width))
    }

    fn print(&self, t: &str, f: &str, atom: &mut dyn FnMut(&Constraint) -> String) -> String {
        if self.is_true() {
            return t.to_string();
        }
        if self.is_false() {
            return f.to_string();
        }
        let conj: Vec<(usize, String)> =
            self.disjuncts.iter().map(|d| (d.len(), d.iter().map(&mut *atom).collect::<Vec<_>>().join(" && "))).collect();
        if conj.len() == 1 {
            let (n, s) = &conj[0];
            return if *n == 1 { s.clone() } else { format!("({s})") };
        }
        let parts: Vec<String> = conj.into_iter().map(|(n, s)| if n == 1 { s } else { format!("({s})") }).collect();
        format!("({})", parts.join(" || "))
    }
}

impl fmt::Display for Predicate {
    /// The C form over the set's own dimension names.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.dims.iter().map(|s| s.as_str()).collect();
        f.write_str(&self.to_c(&names))
    }
}

// ---------------------------------------------------------------- C

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

type Terms = Vec<(i64, Term)>;

/// The positive and (negated) negative terms: `P - N + cst >= 0` is printed `P >= N - cst`,
/// or `N <= cst` when there is no positive term (`i <= 31` rather than `-i + 31 >= 0`).
fn split(c: &Constraint) -> (Terms, Terms) {
    let pos = c.expr.terms.iter().filter(|(k, _)| *k > 0).cloned().collect();
    let neg = c.expr.terms.iter().filter(|(k, _)| *k < 0).map(|(k, t)| (-k, t.clone())).collect();
    (pos, neg)
}

fn c_constraint(c: &Constraint, names: &[&str]) -> String {
    let (pos, neg) = split(c);
    let cst = c.expr.cst as i128;
    let op = if c.cmp == Cmp::Eq { "==" } else { ">=" };
    if pos.is_empty() {
        let op = if c.cmp == Cmp::Eq { "==" } else { "<=" };
        format!("{} {op} {}", c_sum(&neg, 0, names), c_lit(cst))
    } else {
        format!("{} {op} {}", c_sum(&pos, 0, names), c_sum(&neg, -cst, names))
    }
}

// ---------------------------------------------------------------- Verilog

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

impl Affine {
    /// A signed Verilog-2005 expression over `signed [width-1:0]` signals with these names
    /// (one per variable), computed at the width returned beside it: as wide as any
    /// intermediate value can need (see [`Predicate::to_verilog`]), and at least `width`.
    pub fn to_verilog(&self, names: &[&str], width: u32) -> (String, u32) {
        assert!((1..=64).contains(&width), "width {width} out of 1..=64");
        let iw = inner_width(self, width);
        (Vlog { names, width, iw }.sum(&self.terms, self.cst as i128), iw)
    }

    /// `self` with variable `var` replaced by `by`, inside floors too.
    pub fn substitute(&self, var: usize, by: &Affine) -> Affine {
        let mut out = Affine::constant(self.cst);
        for (k, t) in &self.terms {
            match t {
                Term::Var(v) if *v == var => out.add_scaled(by, *k),
                Term::Var(_) => out.add_scaled(&Affine { terms: vec![(1, t.clone())], cst: 0 }, *k),
                Term::Floor(f) => out.add_scaled(&f.num.substitute(var, by).floor_div(f.den), *k),
            }
        }
        out
    }

    /// Whether variable `i` occurs, at the top or inside a floor.
    pub fn mentions(&self, i: usize) -> bool {
        self.terms.iter().any(|(_, t)| match t {
            Term::Var(v) => *v == i,
            Term::Floor(f) => f.num.mentions(i),
        })
    }
}

fn verilog_constraint(c: &Constraint, names: &[&str], width: u32) -> String {
    let (pos, neg) = split(c);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;
    use std::path::PathBuf;
    use std::process::Command;

    struct Case {
        name: &'static str,
        text: &'static str,
        params: &'static [(&'static str, i64)],
        /// Inclusive bounds per dimension.
        bx: &'static [(i64, i64)],
    }

    const CASES: &[Case] = &[
        Case {
            name: "rect",
            text: "[ni, nj] -> { S[i, j] : 0 <= i < ni and 0 <= j < nj }",
            params: &[("ni", 5), ("nj", 7)],
            bx: &[(-3, 10), (-3, 10)],
        },
        Case { name: "triangle", text: "[n] -> { S[i, j] : 0 <= i < n and 0 <= j <= i }", params: &[("n", 9)], bx: &[(-2, 12), (-2, 12)] },
        Case {
            name: "skewed_tile",
            text: "{ S[t, i] : floor((2t + i)/32) = 1 and 0 <= t < 20 and 1 <= i < 60 }",
            params: &[],
            bx: &[(-2, 22), (-5, 70)],
        },
        Case {
            name: "sub_band",
            text: "{ S[i] : floor((4*(i) - 128*floor((i)/32))/32) = 1 and 0 <= i < 200 }",
            params: &[],
            bx: &[(-40, 240)],
        },
        Case {
            name: "union",
            text: "{ S[i, j] : 0 <= i < 10 and j = i; S[i, j] : i = 2 and 0 <= j < 5; S[i, j] : -6 <= i <= -3 and -2 <= j <= 1 }",
            params: &[],
            bx: &[(-8, 12), (-4, 12)],
        },
        Case {
            name: "dpn_domain",
            text: "[ni, nj] -> { S1[i, j, k] : 0 <= i < ni and 0 <= j < nj and 1 <= k <= 4 and 32*floor((i)/32) >= -7 + i }",
            params: &[("ni", 40), ("nj", 3), ("unused", 99)],
            bx: &[(-2, 45), (-1, 4), (0, 5)],
        },
        Case {
            name: "even",
            text: "{ S[i, j] : exists e0 : i = 2e0 and 0 <= i <= 20 and 0 <= j <= i }",
            params: &[],
            bx: &[(-4, 24), (-4, 24)],
        },
        Case {
            name: "negative",
            text: "{ S[i, j] : -10 <= i <= -1 and i - 5 <= j <= -i and exists e : j = 3e + 1 }",
            params: &[],
            bx: &[(-15, 5), (-20, 15)],
        },
        Case { name: "mod_7_5", text: "{ S[i] : i mod 7 = 3 or (i mod 5 = 0 and i < 4) }", params: &[], bx: &[(-60, 60)] },
        Case {
            name: "param_stride",
            text: "[n] -> { S[i, j] : 0 <= i < n and 0 <= j < n and exists e : i + j = 3e + n }",
            params: &[("n", 10)],
            bx: &[(-3, 13), (-3, 13)],
        },
        Case {
            name: "jacobi_tile",
            text: "[T, N] -> { S[t, i] : 0 <= t < T and 1 <= i < N - 1 and floor(t/4) = 1 and floor((2t + i)/8) = 3 }",
            params: &[("T", 10), ("N", 30)],
            bx: &[(-2, 12), (-10, 32)],
        },
        Case {
            name: "nested",
            text: "{ S[i, j, k] : 0 <= i < 12 and -5 <= j < 12 and floor((i + 2*floor((j + 1)/3))/5) = floor(k/2) }",
            params: &[],
            bx: &[(-2, 13), (-7, 13), (-4, 6)],
        },
        Case {
            name: "mixed_divisors",
            text: "{ S[i, j] : -20 <= i <= 20 and -20 <= j <= 20 and floor((3i - j)/6) >= floor((i + 7)/5) - 2 }",
            params: &[],
            bx: &[(-22, 22), (-22, 22)],
        },
        Case { name: "empty", text: "[n] -> { S[i] : i > n and i < 3 }", params: &[("n", 5)], bx: &[(-2, 8)] },
        Case { name: "universe", text: "{ S[i, j] }", params: &[], bx: &[(-2, 2), (-2, 2)] },
        Case { name: "fixed_point", text: "{ S[3, 5] }", params: &[], bx: &[(0, 6), (0, 6)] },
    ];

    fn params(c: &Case) -> Vec<(String, i64)> {
        c.params.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    fn points(bx: &[(i64, i64)]) -> Vec<Vec<i64>> {
        let mut out = vec![vec![]];
        for &(lo, hi) in bx {
            out = out.into_iter().flat_map(|p| (lo..=hi).map(move |v| [p.clone(), vec![v]].concat())).collect();
        }
        out
    }

    /// isl's own answer, per point of the box: fix the parameters and the point, test emptiness.
    fn isl_membership(c: &Case) -> String {
        let ctx = dpnc_frontend::dataflow::quiet_context();
        let mut s = Set::read_from_str(&ctx, c.text).unwrap();
        for (n, v) in c.params {
            let p = s.find_dim_by_name(DimType::Param, n).unwrap();
            if p >= 0 {
                s = s.fix_si(DimType::Param, p as u32, *v as i32).unwrap();
            }
        }
        points(c.bx)
            .iter()
            .map(|pt| {
                let mut q = s.copy().unwrap();
                for (d, v) in pt.iter().enumerate() {
                    q = q.fix_si(DimType::Set, d as u32, *v as i32).unwrap();
                }
                if q.is_empty().unwrap() {
                    '0'
                } else {
                    '1'
                }
            })
            .collect()
    }

    fn eval_membership(p: &Predicate, c: &Case) -> String {
        points(c.bx).iter().map(|pt| if p.eval(pt) { '1' } else { '0' }).collect()
    }

    fn predicates() -> Vec<Predicate> {
        CASES.iter().map(|c| Predicate::from_isl_str(c.text, &params(c)).unwrap_or_else(|e| panic!("{}: {e}", c.name))).collect()
    }

    fn tmp_dir(name: &str) -> PathBuf {
        // CARGO_TARGET_TMPDIR is only set for integration tests; a unit test binary lives in
        // <target>/<profile>/deps, so use <target>/tmp like cargo does.
        let base = option_env!("CARGO_TARGET_TMPDIR").map(PathBuf::from).unwrap_or_else(|| {
            let exe = std::env::current_exe().unwrap();
            exe.ancestors().nth(3).map(|t| t.join("tmp")).unwrap_or_else(std::env::temp_dir)
        });
        let d = base.join(format!("predicate-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn eval_matches_isl() {
        let mut total = 0;
        for (c, p) in CASES.iter().zip(predicates()) {
            let (want, got) = (isl_membership(c), eval_membership(&p, c));
            assert_eq!(want, got, "{}: {p}\n{p:?}", c.name);
            total += want.len();
            // Round trip through serde.
            let back: Predicate = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
            assert_eq!(back, p);
        }
        eprintln!("eval_matches_isl: {total} points");
    }

    #[test]
    fn readable_and_folded() {
        let p = Predicate::from_isl_str("[n] -> { S[i] : 0 <= i < n }", &[("n".into(), 32)]).unwrap();
        assert_eq!(p.to_c(&["i"]), "(i >= 0 && i <= 31)");
        assert_eq!(p.to_verilog(&["i"], 16), "(i >= 16'sd0 && i <= 16'sd31)");
        let t = Predicate::from_isl_str("{ S[i] : i >= 0 or i < 0 }", &[]).unwrap();
        assert!(t.is_true());
        assert_eq!(t.to_c(&["i"]), "1");
        assert_eq!(t.to_verilog(&["i"], 8), "1'b1");
        let f = Predicate::from_isl_str("[n] -> { S[i] : i > n }", &[("n".into(), 5)]).unwrap();
        assert!(f.eval(&[6]) && !f.eval(&[5]));
        let e = Predicate::from_isl_str("{ S[i] : 1 = 0 }", &[]).unwrap();
        assert!(e.is_false());
        assert_eq!(e.to_c(&["i"]), "0");
        assert_eq!(e.to_verilog(&["i"], 8), "1'b0");
        // floor((4i - 128 floor(i/32))/32) simplifies: 128/32 leaves the floor.
        let a = Affine::var(0).floor_div(32);
        let mut num = Affine::var(0);
        num.add_scaled(&Affine::var(0), 3);
        num.add_scaled(&a, -128);
        let s = num.floor_div(32);
        assert_eq!(s.terms.len(), 2, "{s:?}");
        assert_eq!(Predicate::from_isl_str("[n] -> { S[i] : i > n }", &[]).unwrap_err(), PredicateError::UnboundParam("n".into()));
    }

    #[test]
    fn c_code_matches_eval() {
        let preds = predicates();
        let mut src = String::from("#include <stdio.h>\n");
        src += C_PRELUDE;
        src += C_PRELUDE; // guarded: twice is fine
        let mut want = String::new();
        for (k, (c, p)) in CASES.iter().zip(&preds).enumerate() {
            let names: Vec<&str> = p.dims.iter().map(|s| s.as_str()).collect();
            let args: Vec<String> = names.iter().map(|n| format!("long long {n}")).collect();
            let args = if args.is_empty() { "void".to_string() } else { args.join(", ") };
            let unused: String = names.iter().map(|n| format!("(void){n}; ")).collect();
            writeln!(src, "static int p{k}({args}) {{ {unused}return {}; }}", p.to_c(&names)).unwrap();
            want += &eval_membership(p, c);
            want.push('\n');
        }
        src += "int main(void) {\n";
        for (k, c) in CASES.iter().enumerate() {
            let mut body =
                format!("putchar(p{k}({}) ? '1' : '0');", (0..c.bx.len()).map(|d| format!("x{d}")).collect::<Vec<_>>().join(", "));
            for (d, (lo, hi)) in c.bx.iter().enumerate().rev() {
                body = format!("for (long long x{d} = {lo}; x{d} <= {hi}; ++x{d}) {{ {body} }}");
            }
            writeln!(src, "    {body}\n    putchar('\\n');").unwrap();
        }
        src += "    return 0;\n}\n";
        let dir = tmp_dir("c");
        std::fs::write(dir.join("pred.c"), &src).unwrap();
        for (compiler, lang, std) in [("g++", "c++", "-std=c++17"), ("gcc", "c", "-std=c99")] {
            let exe = dir.join(format!("pred-{lang}"));
            let out = Command::new(compiler)
                .args([std, "-Wall", "-Wextra", "-Werror", "-x", lang])
                .arg(dir.join("pred.c"))
                .arg("-o")
                .arg(&exe)
                .output()
                .expect("run the C compiler");
            assert!(out.status.success(), "{compiler}: {}\n{src}", String::from_utf8_lossy(&out.stderr));
            let run = Command::new(&exe).output().unwrap();
            assert!(run.status.success());
            let got = String::from_utf8(run.stdout).unwrap();
            for ((c, w), g) in CASES.iter().zip(want.lines()).zip(got.lines()) {
                assert_eq!(w, g, "{compiler}: {}: {}", c.name, src);
            }
            assert_eq!(want, got);
        }
    }

    #[test]
    fn verilog_matches_eval() {
        if Command::new("verilator").arg("--version").output().is_err() {
            eprintln!("verilator not found: skipped");
            return;
        }
        let preds = predicates();
        let cases: Vec<(usize, &Case)> = CASES.iter().enumerate().filter(|(_, c)| c.bx.len() <= 3).collect();
        let n = cases.len();
        let widths = [8u32, 16, 32, 64];
        let mut v = String::from("// Predicates under test.\n/* verilator lint_off UNUSEDSIGNAL */\nmodule preds (\n");
        for (wi, w) in widths.iter().enumerate() {
            for d in 0..3 {
                writeln!(v, "    input wire signed [{}:0] w{wi}_x{d},", w - 1).unwrap();
            }
        }
        let outs: Vec<String> = (0..widths.len()).map(|wi| format!("    output wire [{}:0] o{wi}", n - 1)).collect();
        v += &outs.join(",\n");
        v += "\n);\n";
        let mut tb = String::from("#include \"Vpreds.h\"\n#include <cstdio>\nint main() {\n    Vpreds* m = new Vpreds;\n");
        let mut want = String::new();
        for (slot, (k, c)) in cases.iter().enumerate() {
            let p = &preds[*k];
            for (wi, w) in widths.iter().enumerate() {
                let names: Vec<String> = (0..c.bx.len()).map(|d| format!("w{wi}_x{d}")).collect();
                let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
                writeln!(v, "    assign o{wi}[{slot}] = {};", p.to_verilog(&names, *w)).unwrap();
            }
            // A width whose range does not hold the box is not checked ('-').
            let fits = |w: u32| c.bx.iter().all(|&(lo, hi)| lo as i128 >= -(1i128 << (w - 1)) && (hi as i128) < (1i128 << (w - 1)));
            let mut body = String::new();
            for (wi, w) in widths.iter().enumerate() {
                for d in 0..3 {
                    let x = if d < c.bx.len() { format!("x{d}") } else { "0".into() };
                    write!(body, "m->w{wi}_x{d} = (unsigned long long)(long long)({x}) & 0x{:x}ull; ", u64::MAX >> (64 - w)).unwrap();
                }
            }
            body += "m->eval(); ";
            for (wi, w) in widths.iter().enumerate() {
                if fits(*w) {
                    write!(body, "putchar(((m->o{wi} >> {slot}) & 1) ? '1' : '0'); ").unwrap();
                } else {
                    body += "putchar('-'); ";
                }
            }
            for (d, (lo, hi)) in c.bx.iter().enumerate().rev() {
                body = format!("for (int x{d} = {lo}; x{d} <= {hi}; ++x{d}) {{ {body} }}");
            }
            writeln!(tb, "    {body}\n    putchar('\\n');").unwrap();
            for ch in eval_membership(p, c).chars() {
                want.extend(widths.iter().map(|w| if fits(*w) { ch } else { '-' }));
            }
            want.push('\n');
        }
        v += "endmodule\n";
        tb += "    delete m;\n    return 0;\n}\n";
        let dir = tmp_dir("verilog");
        std::fs::write(dir.join("preds.v"), &v).unwrap();
        std::fs::write(dir.join("tb.cpp"), &tb).unwrap();
        let out = Command::new("verilator")
            .current_dir(&dir)
            .args(["--cc", "--exe", "--build", "-Wall", "--top-module", "preds", "-Mdir", "obj", "-o", "sim", "-j", "2"])
            .args(["-MAKEFLAGS", "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"])
            .args(["preds.v", "tb.cpp"])
            .output()
            .unwrap();
        assert!(out.status.success(), "verilator: {}{}\n{v}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let run = Command::new(dir.join("obj/sim")).output().unwrap();
        assert!(run.status.success());
        let got = String::from_utf8(run.stdout).unwrap();
        for (((_, c), w), g) in cases.iter().zip(want.lines()).zip(got.lines()) {
            assert_eq!(w, g, "{}\n{v}", c.name);
        }
        assert_eq!(want, got);
    }
}
