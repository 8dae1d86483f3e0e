//! Symbolic sets as code. The DPN IR keeps iteration domains, mux and demux clauses as isl
//! text (`[ni] -> { S[i, j] : 0 <= i < ni and 32*floor((i)/32) >= i - 7 }`); every backend
//! must turn them into guards. isl-rs has no AST generator, so this module converts a set,
//! with its parameters fixed to known values, into a [`Predicate`]: a disjunction of
//! conjunctions of affine constraints over the set's dimensions, where existentials appear
//! as explicit floor divisions (`floor(affine / m)`, possibly nested) — exactly what isl's
//! `compute_divs` makes of them. A set isl cannot give explicit divisions for is an error,
//! never an approximation.
//!
//! A predicate evaluates itself ([`Predicate::eval`]); the backends print it
//! ([`Predicate::render`] with their own atoms: C in `hls-emit`, Verilog in `rtl`).

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

/// Terms of an affine form: coefficient and term.
pub type Terms = Vec<(i64, Term)>;

impl Constraint {
    /// The positive and (negated) negative terms: `P - N + cst >= 0` reads `P >= N - cst`,
    /// or `N <= cst` when there is no positive term (`i <= 31` rather than `-i + 31 >= 0`).
    pub fn sides(&self) -> (Terms, Terms) {
        let pos = self.expr.terms.iter().filter(|(k, _)| *k > 0).cloned().collect();
        let neg = self.expr.terms.iter().filter(|(k, _)| *k < 0).map(|(k, t)| (-k, t.clone())).collect();
        (pos, neg)
    }

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

    /// The predicate in some language: `t` or `f` when constant, else the disjunction of its
    /// conjunctions, each atom printed by `atom`, joined by `&&` and `||` and parenthesised
    /// whenever it is not a single atom, so it can be embedded anywhere. The backends give
    /// the atoms (C in `hls-emit`, Verilog in `rtl`).
    pub fn render(&self, t: &str, f: &str, atom: &mut dyn FnMut(&Constraint) -> String) -> String {
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

impl Affine {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_and_folded() {
        let p = Predicate::from_isl_str("[n] -> { S[i] : 0 <= i < n }", &[("n".into(), 32)]).unwrap();
        assert_eq!(p.disjuncts.len(), 1);
        assert!(p.eval(&[0]) && p.eval(&[31]) && !p.eval(&[32]) && !p.eval(&[-1]));
        let t = Predicate::from_isl_str("{ S[i] : i >= 0 or i < 0 }", &[]).unwrap();
        assert!(t.is_true());
        let f = Predicate::from_isl_str("[n] -> { S[i] : i > n }", &[("n".into(), 5)]).unwrap();
        assert!(f.eval(&[6]) && !f.eval(&[5]));
        let e = Predicate::from_isl_str("{ S[i] : 1 = 0 }", &[]).unwrap();
        assert!(e.is_false());
        // floor((4i - 128 floor(i/32))/32) simplifies: 128/32 leaves the floor.
        let a = Affine::var(0).floor_div(32);
        let mut num = Affine::var(0);
        num.add_scaled(&Affine::var(0), 3);
        num.add_scaled(&a, -128);
        let s = num.floor_div(32);
        assert_eq!(s.terms.len(), 2, "{s:?}");
        assert_eq!(Predicate::from_isl_str("[n] -> { S[i] : i > n }", &[]).unwrap_err(), PredicateError::UnboundParam("n".into()));
    }
}
