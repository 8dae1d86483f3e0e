//! A random generator of valid affine C kernels, deterministic from a `u64` seed.
//!
//! A [`Kernel`] is a small structured program (loops with affine bounds, `min`/`max`,
//! guards, statements with random typed arithmetic over 1–3-d arrays and scalars) that
//! [`Kernel::render`] writes as a C file in the shape the frontend accepts (a function with
//! `#pragma scop`, sizes passed from `main`). Everything a person needs to rerun it is in the
//! file: the seed in the header comment, the sizes as `#define`s.
//!
//! **Well-defined by construction.** Array extents are not chosen up front: `render` runs an
//! interval analysis over the loop nest at the fixed parameter values (iterator ranges from
//! the bounds, ignoring guards, so every executed access is covered) and declares every
//! array just large enough, shifting each dimension so that its smallest subscript is 0.
//! So every access is in bounds for any parameter values and bounds the minimiser picks.
//! Integer statements only use `+ - *` on bounded operands and reduce `% 1009`, so no
//! `int` overflow; floating-point division is only by `(c + fabs(x))` with `c >= 1`.

use std::collections::BTreeSet;
use std::fmt::Write;

/// The generator's only source of randomness (SplitMix64, shared with the frontend's
/// random inputs).
pub use dpnc_frontend::store::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Int,
    Float,
    Double,
}

impl Ty {
    pub fn c(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Float => "float",
            Ty::Double => "double",
        }
    }
}

/// A term of an affine form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Term {
    /// Loop iterator by depth (`i`, `j`, `k`, `l`).
    Iter(usize),
    /// Size parameter by index.
    Param(usize),
}

/// `sum(coef * term) + c`.
#[derive(Clone, Debug, PartialEq)]
pub struct Lin {
    pub terms: Vec<(i64, Term)>,
    pub c: i64,
}

impl Lin {
    pub fn konst(c: i64) -> Lin {
        Lin { terms: vec![], c }
    }
    pub fn term(t: Term, c: i64) -> Lin {
        Lin { terms: vec![(1, t)], c }
    }
    fn uses(&self, out: &mut BTreeSet<Term>) {
        out.extend(self.terms.iter().filter(|(k, _)| *k != 0).map(|(_, t)| *t));
    }
}

/// A loop bound or subscript: an affine form, or `min`/`max` of two.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    Lin(Lin),
    Min(Lin, Lin),
    Max(Lin, Lin),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    fn c(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }
}

/// An affine guard.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    Cmp(Cmp, Lin, Lin),
    /// `(lin) % m == r` (quasi-affine; `lin` may be negative, and `r` then too: C's remainder
    /// takes the dividend's sign).
    Mod(Lin, i64, i64),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

/// An array (or, with no dimensions, a scalar) of the kernel.
#[derive(Clone, Debug)]
pub struct Array {
    pub name: String,
    pub ty: Ty,
    /// Number of dimensions (0: a scalar).
    pub rank: usize,
    /// A local of the kernel function (not an argument).
    pub local: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    pub array: usize,
    pub subs: Vec<Lin>,
    /// Per dimension, the divisor of the subscript: `(sub) / d` in C, which truncates toward
    /// zero also when `sub` is negative; 1 for none.
    pub divisors: Vec<i64>,
}

impl Access {
    /// The range of dimension `d`'s subscript (division truncates, so it is monotone).
    fn range(&self, d: usize, iters: &[(i64, i64)], params: &[(String, i64)]) -> (i64, i64) {
        let (lo, hi) = lin_range(&self.subs[d], iters, params);
        (lo / self.divisors[d], hi / self.divisors[d])
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fun {
    Fmin,
    Fmax,
    /// `sqrt(fabs(x))`
    SqrtAbs,
    /// `exp(-fabs(x))`
    ExpNegAbs,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Read(Access),
    /// A literal, written in the statement's type.
    Const(i64),
    /// `0.5`-style literal: numerator over 4.
    Quarter(i64),
    Iter(usize),
    Param(usize),
    Bin(Op, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    /// `a / (c + fabs(b))`, floating point only.
    SafeDiv(Box<Expr>, i64, Box<Expr>),
    Call(Fun, Box<Expr>, Box<Expr>),
    /// `(a > b ? c : d)`: a data-dependent value (not control).
    Select(Box<Expr>, Box<Expr>, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub lhs: Access,
    /// `+=` (for int: `x = (x + e) % 1009`).
    pub accumulate: bool,
    pub rhs: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// `for (it = lo; it < hi; it++)` or, when `down`, `for (it = hi - 1; it >= lo; it--)`.
    For {
        depth: usize,
        lo: Bound,
        hi: Bound,
        down: bool,
        body: Vec<Node>,
    },
    If {
        cond: Cond,
        then: Vec<Node>,
        els: Vec<Node>,
    },
    Stmt(Stmt),
}

/// A random kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub seed: u64,
    /// Size parameters: name and value.
    pub params: Vec<(String, i64)>,
    pub arrays: Vec<Array>,
    pub body: Vec<Node>,
}

pub const ITERS: [&str; 4] = ["i", "j", "k", "l"];
/// Integer results are reduced modulo this, so every int value stays below it in magnitude.
pub const INT_MOD: i64 = 1009;
/// Largest iterator range the interval analysis may give (keeps arrays small).
const MAX_RANGE: i64 = 24;
/// Largest array extent per dimension and in all.
const MAX_EXTENT: i64 = 48;
const MAX_CELLS: i64 = 6000;
/// Upper bound on statement instances (estimated from iterator ranges).
const MAX_INSTANCES: i64 = 2500;

/// Iterator ranges (inclusive), one per depth, from the interval analysis.
type Ranges = Vec<(i64, i64)>;

fn lin_range(l: &Lin, iters: &[(i64, i64)], params: &[(String, i64)]) -> (i64, i64) {
    let (mut lo, mut hi) = (l.c, l.c);
    for &(k, t) in &l.terms {
        let (a, b) = match t {
            Term::Iter(d) => iters.get(d).copied().unwrap_or((0, 0)),
            Term::Param(p) => (params[p].1, params[p].1),
        };
        let (x, y) = (k * a, k * b);
        lo += x.min(y);
        hi += x.max(y);
    }
    (lo, hi)
}

fn bound_range(b: &Bound, iters: &[(i64, i64)], params: &[(String, i64)]) -> (i64, i64) {
    match b {
        Bound::Lin(l) => lin_range(l, iters, params),
        Bound::Min(a, b) => {
            let (x, y) = (lin_range(a, iters, params), lin_range(b, iters, params));
            (x.0.min(y.0), x.1.min(y.1))
        }
        Bound::Max(a, b) => {
            let (x, y) = (lin_range(a, iters, params), lin_range(b, iters, params));
            (x.0.max(y.0), x.1.max(y.1))
        }
    }
}

/// The range of a loop's iterator given the enclosing ones; an empty loop gets `(lo, lo)`.
fn loop_range(lo: &Bound, hi: &Bound, iters: &[(i64, i64)], params: &[(String, i64)]) -> (i64, i64) {
    let a = bound_range(lo, iters, params).0;
    let b = bound_range(hi, iters, params).1 - 1;
    if b < a {
        (a, a)
    } else {
        (a, b)
    }
}

/// Per array and dimension: the smallest and largest subscript of any access (`None` if
/// the dimension is never accessed).
type Extents = Vec<Vec<Option<(i64, i64)>>>;

impl Kernel {
    /// The kernel of `seed` (deterministic).
    pub fn generate(seed: u64) -> Kernel {
        let mut rng = Rng(seed);
        for _ in 0..1000 {
            let k = Gen::new(&mut rng, seed).kernel();
            if k.fits() {
                return k;
            }
        }
        // Practically unreachable: every attempt was too large.
        let mut k = Gen::new(&mut Rng(seed), seed).kernel();
        for p in &mut k.params {
            p.1 = 1;
        }
        k
    }

    /// Small enough to run quickly everywhere.
    pub fn fits(&self) -> bool {
        let ext = self.extents();
        let cells_ok = ext.iter().all(|dims| {
            let sizes: Vec<i64> = dims.iter().map(|e| e.map_or(1, |(a, b)| b - a + 1)).collect();
            sizes.iter().all(|&s| s <= MAX_EXTENT) && sizes.iter().product::<i64>() <= MAX_CELLS
        });
        cells_ok && self.instance_bound() <= MAX_INSTANCES && self.max_range() <= MAX_RANGE
    }

    fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Node, &Ranges)) {
        fn go<'a>(k: &'a Kernel, nodes: &'a [Node], r: &mut Ranges, f: &mut dyn FnMut(&'a Node, &Ranges)) {
            for n in nodes {
                f(n, r);
                match n {
                    Node::For { depth, lo, hi, body, .. } => {
                        r.truncate(*depth);
                        let x = loop_range(lo, hi, r, &k.params);
                        r.push(x);
                        go(k, body, r, f);
                        r.truncate(*depth);
                    }
                    Node::If { then, els, .. } => {
                        go(k, then, r, f);
                        go(k, els, r, f);
                    }
                    Node::Stmt(_) => {}
                }
            }
        }
        go(self, &self.body, &mut Vec::new(), f)
    }

    fn max_range(&self) -> i64 {
        let mut m = 0;
        self.walk(&mut |n, r| {
            if let Node::For { depth, lo, hi, .. } = n {
                let (a, b) = loop_range(lo, hi, &r[..*depth], &self.params);
                m = m.max(b - a + 1).max(a.abs()).max(b.abs());
            }
        });
        m
    }

    /// Upper bound on the number of statement instances.
    pub fn instance_bound(&self) -> i64 {
        let mut total = 0;
        self.walk(&mut |n, r| {
            if let Node::Stmt(_) = n {
                total += r.iter().map(|(a, b)| b - a + 1).product::<i64>();
            }
        });
        total
    }

    pub fn stmt_count(&self) -> usize {
        let mut c = 0;
        self.walk(&mut |n, _| c += matches!(n, Node::Stmt(_)) as usize);
        c
    }

    fn extents(&self) -> Extents {
        let mut ext: Extents = self.arrays.iter().map(|a| vec![None; a.rank]).collect();
        let note = |a: &Access, r: &Ranges, ext: &mut Extents| {
            for d in 0..a.subs.len() {
                let (lo, hi) = a.range(d, r, &self.params);
                let e = &mut ext[a.array][d];
                *e = Some(match *e {
                    None => (lo, hi),
                    Some((x, y)) => (x.min(lo), y.max(hi)),
                });
            }
        };
        self.walk(&mut |n, r| {
            if let Node::Stmt(s) = n {
                note(&s.lhs, r, &mut ext);
                let mut reads = Vec::new();
                s.rhs.reads(&mut reads);
                for a in reads {
                    note(a, r, &mut ext);
                }
            }
        });
        ext
    }

    /// The C file.
    pub fn render(&self) -> String {
        self.render_with_note("")
    }

    /// The C file, with `note` (e.g. the failing configuration) in the header comment.
    pub fn render_with_note(&self, note: &str) -> String {
        let ext = self.extents();
        let mut used_terms = BTreeSet::new();
        let mut used_arrays = BTreeSet::new();
        self.walk(&mut |n, _| match n {
            Node::For { lo, hi, .. } => {
                for b in [lo, hi] {
                    b.uses(&mut used_terms);
                }
            }
            Node::If { cond, .. } => cond.uses(&mut used_terms),
            Node::Stmt(s) => {
                used_arrays.insert(s.lhs.array);
                s.lhs.subs.iter().for_each(|l| l.uses(&mut used_terms));
                let mut reads = Vec::new();
                s.rhs.reads(&mut reads);
                for a in reads {
                    used_arrays.insert(a.array);
                    a.subs.iter().for_each(|l| l.uses(&mut used_terms));
                }
                s.rhs.terms(&mut used_terms);
            }
        });
        let max_depth = {
            let mut m = 0;
            self.walk(&mut |n, _| {
                if let Node::For { depth, .. } = n {
                    m = m.max(depth + 1);
                }
            });
            m
        };
        let shift: Vec<Vec<i64>> = ext.iter().map(|dims| dims.iter().map(|e| e.map_or(0, |(lo, _)| -lo)).collect()).collect();
        let decl = |a: usize| {
            let arr = &self.arrays[a];
            let dims: String = ext[a].iter().map(|e| format!("[{}]", e.map_or(1, |(lo, hi)| hi - lo + 1))).collect();
            format!("{} {}{dims}", arr.ty.c(), arr.name)
        };
        let params: Vec<usize> = (0..self.params.len()).filter(|p| used_terms.contains(&Term::Param(*p))).collect();
        let args: Vec<usize> = used_arrays.iter().copied().filter(|&a| !self.arrays[a].local).collect();
        let locals: Vec<usize> = used_arrays.iter().copied().filter(|&a| self.arrays[a].local).collect();

        let mut out = String::new();
        let _ = writeln!(out, "/* Random kernel from tests/src/gen.rs, seed {} ({:#x}).", self.seed, self.seed);
        for line in note.lines() {
            let _ = writeln!(out, " * {line}");
        }
        let _ = writeln!(out, " */");
        for &p in &params {
            let _ = writeln!(out, "#define {} {}", self.params[p].0.to_uppercase(), self.params[p].1);
        }
        let mut sig: Vec<String> = params.iter().map(|&p| format!("int {}", self.params[p].0)).collect();
        sig.extend(args.iter().map(|&a| decl(a)));
        let _ = writeln!(out, "\nvoid kernel_random({})\n{{", sig.join(", "));
        if max_depth > 0 {
            let _ = writeln!(out, "  int {};", ITERS[..max_depth].join(", "));
        }
        for &a in &locals {
            let _ = writeln!(out, "  {};", decl(a));
        }
        let _ = writeln!(out, "#pragma scop");
        let r = Render { k: self, shift: &shift };
        for n in &self.body {
            r.node(&mut out, n, 1);
        }
        let _ = writeln!(out, "#pragma endscop\n}}\n\nint main(void)\n{{");
        for &a in args.iter().filter(|&&a| self.arrays[a].rank > 0) {
            let _ = writeln!(out, "  static {};", decl(a));
        }
        for &a in args.iter().filter(|&&a| self.arrays[a].rank == 0) {
            let _ = writeln!(out, "  {} = 1;", decl(a));
        }
        let mut call: Vec<String> = params.iter().map(|&p| self.params[p].0.to_uppercase()).collect();
        call.extend(args.iter().map(|&a| self.arrays[a].name.clone()));
        let _ = writeln!(out, "  kernel_random({});\n  return 0;\n}}", call.join(", "));
        out
    }
}

impl Bound {
    fn uses(&self, out: &mut BTreeSet<Term>) {
        match self {
            Bound::Lin(l) => l.uses(out),
            Bound::Min(a, b) | Bound::Max(a, b) => {
                a.uses(out);
                b.uses(out);
            }
        }
    }
}

impl Cond {
    fn uses(&self, out: &mut BTreeSet<Term>) {
        match self {
            Cond::Cmp(_, a, b) => {
                a.uses(out);
                b.uses(out);
            }
            Cond::Mod(a, _, _) => a.uses(out),
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.uses(out);
                b.uses(out);
            }
        }
    }
}

impl Expr {
    pub fn reads<'a>(&'a self, out: &mut Vec<&'a Access>) {
        match self {
            Expr::Read(a) => out.push(a),
            Expr::Const(_) | Expr::Quarter(_) | Expr::Iter(_) | Expr::Param(_) => {}
            Expr::Neg(a) => a.reads(out),
            Expr::Bin(_, a, b) | Expr::SafeDiv(a, _, b) | Expr::Call(_, a, b) => {
                a.reads(out);
                b.reads(out);
            }
            Expr::Select(a, b, c, d) => {
                for e in [a, b, c, d] {
                    e.reads(out);
                }
            }
        }
    }
    fn terms(&self, out: &mut BTreeSet<Term>) {
        match self {
            Expr::Iter(d) => {
                out.insert(Term::Iter(*d));
            }
            Expr::Param(p) => {
                out.insert(Term::Param(*p));
            }
            Expr::Read(_) | Expr::Const(_) | Expr::Quarter(_) => {}
            Expr::Neg(a) => a.terms(out),
            Expr::Bin(_, a, b) | Expr::SafeDiv(a, _, b) | Expr::Call(_, a, b) => {
                a.terms(out);
                b.terms(out);
            }
            Expr::Select(a, b, c, d) => {
                for e in [a, b, c, d] {
                    e.terms(out);
                }
            }
        }
    }
    /// Direct sub-expressions (for the minimiser).
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Read(_) | Expr::Const(_) | Expr::Quarter(_) | Expr::Iter(_) | Expr::Param(_) => vec![],
            Expr::Neg(a) => vec![a],
            Expr::Bin(_, a, b) | Expr::SafeDiv(a, _, b) | Expr::Call(_, a, b) => vec![a, b],
            Expr::Select(a, b, c, d) => vec![a, b, c, d],
        }
    }
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Read(_) | Expr::Const(_) | Expr::Quarter(_) | Expr::Iter(_) | Expr::Param(_) => vec![],
            Expr::Neg(a) => vec![a],
            Expr::Bin(_, a, b) | Expr::SafeDiv(a, _, b) | Expr::Call(_, a, b) => vec![a, b],
            Expr::Select(a, b, c, d) => vec![a, b, c, d],
        }
    }
    pub fn size(&self) -> usize {
        1 + self.children().iter().map(|c| c.size()).sum::<usize>()
    }
}

struct Render<'a> {
    k: &'a Kernel,
    shift: &'a [Vec<i64>],
}

impl Render<'_> {
    fn term(&self, t: Term) -> String {
        match t {
            Term::Iter(d) => ITERS[d].to_string(),
            Term::Param(p) => self.k.params[p].0.clone(),
        }
    }

    fn lin(&self, l: &Lin) -> String {
        let mut s = String::new();
        for &(k, t) in l.terms.iter().filter(|(k, _)| *k != 0) {
            let name = self.term(t);
            let mag = k.abs();
            let body = if mag == 1 { name } else { format!("{mag} * {name}") };
            if s.is_empty() {
                s = if k < 0 { format!("-{body}") } else { body };
            } else {
                let _ = write!(s, " {} {body}", if k < 0 { '-' } else { '+' });
            }
        }
        if s.is_empty() {
            return l.c.to_string();
        }
        match l.c {
            0 => {}
            c if c > 0 => {
                let _ = write!(s, " + {c}");
            }
            c => {
                let _ = write!(s, " - {}", -c);
            }
        }
        s
    }

    fn bound(&self, b: &Bound) -> String {
        match b {
            Bound::Lin(l) => self.lin(l),
            Bound::Min(a, b) => format!("min({}, {})", self.lin(a), self.lin(b)),
            Bound::Max(a, b) => format!("max({}, {})", self.lin(a), self.lin(b)),
        }
    }

    fn cond(&self, c: &Cond) -> String {
        match c {
            Cond::Cmp(op, a, b) => format!("{} {} {}", self.lin(a), op.c(), self.lin(b)),
            Cond::Mod(a, m, r) => format!("({}) % {m} == {r}", self.lin(a)),
            Cond::And(a, b) => format!("({}) && ({})", self.cond(a), self.cond(b)),
            Cond::Or(a, b) => format!("({}) || ({})", self.cond(a), self.cond(b)),
        }
    }

    fn access(&self, a: &Access) -> String {
        let arr = &self.k.arrays[a.array];
        let mut s = arr.name.clone();
        for (d, l) in a.subs.iter().enumerate() {
            let shift = self.shift[a.array][d];
            if a.divisors[d] > 1 {
                let _ = write!(s, "[({}) / {} + {shift}]", self.lin(l), a.divisors[d]);
            } else {
                let mut l = l.clone();
                l.c += shift;
                let _ = write!(s, "[{}]", self.lin(&l));
            }
        }
        s
    }

    fn lit(&self, v: f64, ty: Ty) -> String {
        match ty {
            Ty::Int => format!("{}", v as i64),
            Ty::Double => format!("{v:?}"),
            Ty::Float => format!("{v:?}f"),
        }
    }

    fn expr(&self, e: &Expr, ty: Ty) -> String {
        match e {
            Expr::Read(a) => self.access(a),
            Expr::Const(c) => self.lit(*c as f64, ty),
            Expr::Quarter(q) => self.lit(*q as f64 / 4.0, ty),
            Expr::Iter(d) => ITERS[*d].to_string(),
            Expr::Param(p) => self.k.params[*p].0.clone(),
            Expr::Bin(op, a, b) => {
                let o = match op {
                    Op::Add => "+",
                    Op::Sub => "-",
                    Op::Mul => "*",
                };
                format!("({} {o} {})", self.expr(a, ty), self.expr(b, ty))
            }
            Expr::Neg(a) => {
                // `-(-1.0)`, never `--1.0` (a decrement).
                let inner = self.expr(a, ty);
                if inner.starts_with('-') {
                    format!("(-({inner}))")
                } else {
                    format!("(-{inner})")
                }
            }
            Expr::SafeDiv(a, c, b) => format!("({} / ({} + fabs({})))", self.expr(a, ty), self.lit(*c as f64, ty), self.expr(b, ty)),
            Expr::Call(f, a, b) => match f {
                Fun::Fmin => format!("fmin({}, {})", self.expr(a, ty), self.expr(b, ty)),
                Fun::Fmax => format!("fmax({}, {})", self.expr(a, ty), self.expr(b, ty)),
                Fun::SqrtAbs => format!("sqrt(fabs({}))", self.expr(a, ty)),
                Fun::ExpNegAbs => format!("exp(-fabs({}))", self.expr(a, ty)),
            },
            Expr::Select(a, b, c, d) => {
                format!("({} > {} ? {} : {})", self.expr(a, ty), self.expr(b, ty), self.expr(c, ty), self.expr(d, ty))
            }
        }
    }

    fn stmt(&self, s: &Stmt) -> String {
        let ty = self.k.arrays[s.lhs.array].ty;
        let lhs = self.access(&s.lhs);
        let rhs = self.expr(&s.rhs, ty);
        match (ty, s.accumulate) {
            (Ty::Int, false) => format!("{lhs} = {rhs} % {INT_MOD};"),
            (Ty::Int, true) => format!("{lhs} = ({lhs} + {rhs}) % {INT_MOD};"),
            (_, false) => format!("{lhs} = {rhs};"),
            (_, true) => format!("{lhs} += {rhs};"),
        }
    }

    fn node(&self, out: &mut String, n: &Node, ind: usize) {
        let pad = "  ".repeat(ind);
        match n {
            Node::For { depth, lo, hi, down, body } => {
                let it = ITERS[*depth];
                if *down {
                    let top = match hi {
                        Bound::Lin(l) => {
                            let mut l = l.clone();
                            l.c -= 1;
                            self.lin(&l)
                        }
                        b => format!("{} - 1", self.bound(b)),
                    };
                    let _ = writeln!(out, "{pad}for ({it} = {top}; {it} >= {}; {it}--) {{", self.bound(lo));
                } else {
                    let _ = writeln!(out, "{pad}for ({it} = {}; {it} < {}; {it}++) {{", self.bound(lo), self.bound(hi));
                }
                for c in body {
                    self.node(out, c, ind + 1);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Node::If { cond, then, els } => {
                let _ = writeln!(out, "{pad}if ({}) {{", self.cond(cond));
                for c in then {
                    self.node(out, c, ind + 1);
                }
                if els.is_empty() {
                    let _ = writeln!(out, "{pad}}}");
                } else {
                    let _ = writeln!(out, "{pad}}} else {{");
                    for c in els {
                        self.node(out, c, ind + 1);
                    }
                    let _ = writeln!(out, "{pad}}}");
                }
            }
            Node::Stmt(s) => {
                let _ = writeln!(out, "{pad}{}", self.stmt(s));
            }
        }
    }
}

/// One generation attempt.
struct Gen<'r> {
    rng: &'r mut Rng,
    seed: u64,
    params: Vec<(String, i64)>,
    arrays: Vec<Array>,
    stmts_left: usize,
    /// The kernel's main data type.
    ty: Ty,
}

impl<'r> Gen<'r> {
    fn new(rng: &'r mut Rng, seed: u64) -> Gen<'r> {
        Gen { rng, seed, params: vec![], arrays: vec![], stmts_left: 0, ty: Ty::Double }
    }

    fn kernel(mut self) -> Kernel {
        self.ty = *self.rng.pick(&[Ty::Double, Ty::Double, Ty::Float, Ty::Float, Ty::Int]);
        let np = self.rng.range(1, 3) as usize;
        let max_depth = self.rng.range(1, 4) as usize;
        // Deeper nests get smaller sizes.
        let hi = [9, 9, 7, 5, 4][max_depth];
        self.params = (0..np).map(|p| (["n", "m", "q"][p].to_string(), self.rng.range(2, hi))).collect();
        let na = self.rng.range(1, 4) as usize;
        for a in 0..na {
            let ty = if self.rng.chance(75) { self.ty } else { *self.rng.pick(&[Ty::Int, Ty::Float, Ty::Double]) };
            let rank = self.rng.range(1, 3.min(max_depth.max(1)) as i64) as usize;
            self.arrays.push(Array { name: ["A", "B", "C", "D"][a].to_string(), ty, rank, local: false });
        }
        if self.rng.chance(25) {
            self.arrays.push(Array { name: "alpha".into(), ty: self.ty, rank: 0, local: false });
        }
        if self.rng.chance(25) {
            self.arrays.push(Array { name: "s".into(), ty: self.ty, rank: 0, local: true });
        }
        if self.rng.chance(15) {
            let rank = self.rng.range(1, 2) as usize;
            self.arrays.push(Array { name: "T".into(), ty: self.ty, rank, local: true });
        }
        self.stmts_left = self.rng.range(1, 4) as usize;
        let mut body = Vec::new();
        while self.stmts_left > 0 {
            let mut ranges = Vec::new();
            let n = if self.rng.chance(10) { self.stmt(&ranges).map(Node::Stmt) } else { self.nest(0, max_depth, &mut ranges) };
            body.extend(n);
        }
        Kernel { seed: self.seed, params: self.params, arrays: self.arrays, body }
    }

    fn param(&mut self) -> usize {
        self.rng.range(0, self.params.len() as i64 - 1) as usize
    }

    /// A loop at `depth` (and its body).
    fn nest(&mut self, depth: usize, max_depth: usize, ranges: &mut Ranges) -> Option<Node> {
        let (lo, hi) = self.bounds(depth, ranges);
        let down = self.rng.chance(10);
        let r = loop_range(&lo, &hi, ranges, &self.params);
        ranges.push(r);
        let mut body = Vec::new();
        let children = if depth + 1 < max_depth { self.rng.range(1, 2) } else { 1 };
        for c in 0..children {
            if self.stmts_left == 0 {
                break;
            }
            let deeper = depth + 1 < max_depth && (c == 0 || self.rng.chance(50));
            // A statement before/after the inner loop (imperfect nests), or the inner loop.
            if deeper && !self.rng.chance(20) {
                body.extend(self.nest(depth + 1, max_depth, ranges));
                ranges.truncate(depth + 1);
                if self.stmts_left > 0 && self.rng.chance(25) {
                    body.extend(self.guarded_stmt(ranges));
                }
            } else {
                body.extend(self.guarded_stmt(ranges));
            }
        }
        ranges.truncate(depth);
        if body.is_empty() {
            return None;
        }
        Some(Node::For { depth, lo, hi, down, body })
    }

    fn guarded_stmt(&mut self, ranges: &Ranges) -> Option<Node> {
        let s = Node::Stmt(self.stmt(ranges)?);
        if ranges.is_empty() || !self.rng.chance(25) {
            return Some(s);
        }
        let cond = self.cond(ranges);
        let els = if self.stmts_left > 0 && self.rng.chance(30) { self.stmt(ranges).map(Node::Stmt).into_iter().collect() } else { vec![] };
        Some(Node::If { cond, then: vec![s], els })
    }

    /// An iterator in scope plus a small offset, or a parameter-based form.
    fn lin_of(&mut self, depth: usize) -> Lin {
        if depth > 0 && self.rng.chance(70) {
            let d = self.rng.range(0, depth as i64 - 1) as usize;
            Lin::term(Term::Iter(d), self.rng.range(-1, 2))
        } else {
            Lin::term(Term::Param(self.param()), self.rng.range(-2, 1))
        }
    }

    fn bounds(&mut self, depth: usize, ranges: &Ranges) -> (Bound, Bound) {
        let n = Term::Param(self.param());
        let outer = |g: &mut Self| Term::Iter(g.rng.range(0, depth as i64 - 1) as usize);
        let lo = match self.rng.range(0, 9) {
            0..=3 => Bound::Lin(Lin::konst(self.rng.range(0, 1))),
            4 | 5 if depth > 0 => Bound::Lin(Lin::term(outer(self), self.rng.range(0, 1))), // triangular
            6 if depth > 0 => {
                let t = outer(self);
                Bound::Max(Lin::konst(0), Lin { terms: vec![(1, t), (-1, n)], c: 1 })
            }
            7 if depth > 0 => Bound::Lin(Lin { terms: vec![(-1, outer(self))], c: self.rng.range(0, 2) }), // negative start
            _ => Bound::Lin(Lin::konst(self.rng.range(0, 2))),
        };
        let hi = match self.rng.range(0, 9) {
            0..=3 => Bound::Lin(Lin::term(n, self.rng.range(-1, 0))),
            4 if depth > 0 => Bound::Lin(Lin::term(outer(self), 1)), // triangular
            5 if depth > 0 => Bound::Lin(Lin { terms: vec![(1, outer(self)), (1, n)], c: 0 }), // skewed
            6 if depth > 0 => Bound::Min(Lin::term(n, 0), Lin::term(outer(self), self.rng.range(1, 3))),
            7 => Bound::Max(Lin::term(n, -1), Lin::konst(self.rng.range(1, 3))),
            8 if depth > 0 => Bound::Lin(Lin { terms: vec![(2, outer(self))], c: 1 }),
            _ => Bound::Lin(Lin::konst(self.rng.range(2, 6))),
        };
        let _ = ranges;
        (lo, hi)
    }

    fn cond(&mut self, ranges: &Ranges) -> Cond {
        let depth = ranges.len();
        let c = match self.rng.range(0, 5) {
            0 | 1 => {
                let a = Lin::term(Term::Iter(self.rng.range(0, depth as i64 - 1) as usize), 0);
                let b = self.lin_of(depth);
                Cond::Cmp(*self.rng.pick(&[Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne]), a, b)
            }
            2 if depth > 1 => {
                let a = Lin { terms: vec![(1, Term::Iter(0)), (1, Term::Iter(depth - 1))], c: 0 };
                Cond::Cmp(*self.rng.pick(&[Cmp::Lt, Cmp::Ge]), a, Lin::term(Term::Param(self.param()), 0))
            }
            3 => {
                // The numerator is often negative for the first iterations.
                let d = self.rng.range(0, depth as i64 - 1) as usize;
                let m = self.rng.range(2, 3);
                Cond::Mod(Lin::term(Term::Iter(d), self.rng.range(-3, 1)), m, self.rng.range(1 - m, m - 1))
            }
            _ => {
                let a = Lin::term(Term::Iter(self.rng.range(0, depth as i64 - 1) as usize), 0);
                Cond::Cmp(Cmp::Ge, a, Lin::konst(self.rng.range(0, 2)))
            }
        };
        if self.rng.chance(20) {
            let other = Cond::Cmp(Cmp::Le, Lin::term(Term::Iter(depth - 1), 0), self.lin_of(depth));
            if self.rng.chance(50) {
                Cond::And(Box::new(c), Box::new(other))
            } else {
                Cond::Or(Box::new(c), Box::new(other))
            }
        } else {
            c
        }
    }

    /// A subscript along one dimension, at loop depth `depth`.
    fn subscript(&mut self, depth: usize) -> Lin {
        if depth == 0 {
            return Lin::konst(self.rng.range(0, 2));
        }
        let it = |g: &mut Self| Term::Iter(g.rng.range(0, depth as i64 - 1) as usize);
        match self.rng.range(0, 9) {
            0..=5 => Lin::term(it(self), self.rng.range(-1, 1)),
            6 => Lin { terms: vec![(1, it(self)), (1, it(self))], c: 0 },
            7 => Lin { terms: vec![(2, it(self))], c: self.rng.range(0, 1) },
            8 => Lin { terms: vec![(1, Term::Param(self.param())), (-1, it(self))], c: -1 },
            _ => Lin::konst(self.rng.range(0, 2)),
        }
    }

    fn access(&mut self, array: usize, depth: usize, like: Option<&Access>) -> Access {
        let rank = self.arrays[array].rank;
        let subs = (0..rank)
            .map(|d| match like.and_then(|l| l.subs.get(d)) {
                // Stencil-style: the written cell plus a small offset.
                Some(l) if self.rng.chance(70) => {
                    let mut l = l.clone();
                    l.c += self.rng.range(-1, 1);
                    l
                }
                _ => self.subscript(depth),
            })
            .collect();
        Access { array, subs, divisors: vec![1; rank] }
    }

    fn stmt(&mut self, ranges: &Ranges) -> Option<Stmt> {
        if self.stmts_left == 0 {
            return None;
        }
        self.stmts_left -= 1;
        let depth = ranges.len();
        // Written: any non-scalar-argument variable (`alpha` is read-only, a kernel argument).
        let writable: Vec<usize> = (0..self.arrays.len()).filter(|&a| self.arrays[a].rank > 0 || self.arrays[a].local).collect();
        let lhs_a = *self.rng.pick(&writable);
        let mut lhs = self.access(lhs_a, depth, None);
        // Reductions: the written cell omits the innermost iterator more often than not.
        if depth > 1 && self.rng.chance(30) {
            for s in &mut lhs.subs {
                s.terms.retain(|(_, t)| *t != Term::Iter(depth - 1));
            }
        }
        let ty = self.arrays[lhs_a].ty;
        let accumulate = self.rng.chance(35);
        let rhs = self.expr(ty, depth, 2, &lhs);
        Some(Stmt { lhs, accumulate, rhs })
    }

    fn leaf(&mut self, ty: Ty, depth: usize, lhs: &Access) -> Expr {
        let mut readable = Vec::new();
        for a in 0..self.arrays.len() {
            // Int statements read only ints (no float-to-int conversion out of range).
            let typed = ty != Ty::Int || self.arrays[a].ty == Ty::Int;
            if typed && (!self.arrays[a].local || a == lhs.array || self.rng.chance(50)) {
                readable.push(a);
            }
        }
        match self.rng.range(0, 9) {
            0..=5 if !readable.is_empty() => {
                let a = if self.rng.chance(40) && readable.contains(&lhs.array) { lhs.array } else { *self.rng.pick(&readable) };
                let like = (self.arrays[a].rank == self.arrays[lhs.array].rank).then_some(lhs);
                let mut read = self.access(a, depth, like);
                // Through C's division, the dividend often negative.
                if depth > 0 && !read.subs.is_empty() && self.rng.chance(15) {
                    let d = self.rng.range(0, read.subs.len() as i64 - 1) as usize;
                    read.divisors[d] = self.rng.range(2, 4);
                    read.subs[d].c -= self.rng.range(1, 5);
                }
                Expr::Read(read)
            }
            6 if depth > 0 => Expr::Iter(self.rng.range(0, depth as i64 - 1) as usize),
            7 => Expr::Param(self.param()),
            8 if ty != Ty::Int => Expr::Quarter(self.rng.range(-8, 8)),
            _ => Expr::Const(self.rng.range(1, 5)),
        }
    }

    fn expr(&mut self, ty: Ty, depth: usize, budget: u32, lhs: &Access) -> Expr {
        if ty == Ty::Int {
            // Sum of up to 3 terms of at most 2 bounded factors: |value| < 3 * 1009^2.
            let term = |g: &mut Self| {
                let a = g.leaf(ty, depth, lhs);
                if g.rng.chance(40) {
                    Expr::Bin(Op::Mul, Box::new(a), Box::new(g.leaf(ty, depth, lhs)))
                } else {
                    a
                }
            };
            let mut e = term(self);
            for _ in 0..self.rng.range(0, 2) {
                let op = *self.rng.pick(&[Op::Add, Op::Sub]);
                e = Expr::Bin(op, Box::new(e), Box::new(term(self)));
            }
            return e;
        }
        if budget == 0 || self.rng.chance(20) {
            return self.leaf(ty, depth, lhs);
        }
        let sub = |g: &mut Self| g.expr(ty, depth, budget - 1, lhs);
        match self.rng.range(0, 13) {
            0..=2 => Expr::Bin(Op::Add, Box::new(sub(self)), Box::new(sub(self))),
            3 | 4 => Expr::Bin(Op::Sub, Box::new(sub(self)), Box::new(sub(self))),
            5..=7 => Expr::Bin(Op::Mul, Box::new(sub(self)), Box::new(sub(self))),
            8 => Expr::Neg(Box::new(sub(self))),
            9 => Expr::SafeDiv(Box::new(sub(self)), self.rng.range(1, 3), Box::new(sub(self))),
            10 => {
                let f = *self.rng.pick(&[Fun::Fmin, Fun::Fmax, Fun::SqrtAbs, Fun::ExpNegAbs]);
                let b = if matches!(f, Fun::Fmin | Fun::Fmax) { sub(self) } else { Expr::Const(0) };
                Expr::Call(f, Box::new(sub(self)), Box::new(b))
            }
            11 => Expr::Select(Box::new(sub(self)), Box::new(sub(self)), Box::new(sub(self)), Box::new(sub(self))),
            _ => self.leaf(ty, depth, lhs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic() {
        for s in 0..50 {
            assert_eq!(Kernel::generate(s).render(), Kernel::generate(s).render());
        }
        assert_ne!(Kernel::generate(1).render(), Kernel::generate(2).render());
    }
}
