//! The polyhedral model in isl notation: parameter context, iteration domains, access
//! relations and the original schedule of every statement, as text that isl parses. Building
//! text rather than isl objects keeps this module free of isl and makes `--emit scop` exact.

use crate::ir::{Access, Aff, CmpOp, Cond, Program, SchedTerm, Statement};

/// Words isl's parser reserves; a C name equal to one gets a trailing underscore.
const ISL_KEYWORDS: &[&str] = &[
    "and", "or", "not", "mod", "floor", "ceil", "min", "max", "exists", "infty", "true", "false", "implies", "xor", "rat", "domain",
    "range",
];

pub fn isl_name(name: &str) -> String {
    if ISL_KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// Names used when writing one statement's expressions.
pub struct Names {
    pub iters: Vec<String>,
    pub params: Vec<String>,
}

impl Names {
    pub fn of(p: &Program, s: &Statement) -> Names {
        Names { iters: s.iters.iter().map(|i| isl_name(i)).collect(), params: p.params.iter().map(|q| isl_name(&q.name)).collect() }
    }
    /// An expression without division or remainder (see [`Names::by_signs`] for those).
    fn aff(&self, a: &Aff) -> String {
        self.aff_in(a, &mut Rounding { signs: !0, next: 0, guards: Vec::new() })
    }

    /// `a` with each truncating division or remainder printed as the branch that `rounding`
    /// picks (isl's `floor` and `mod` round down, C's `/` and `%` toward zero: for a negative
    /// dividend, the mirrored `-floor(-x / c)`).
    fn aff_in(&self, a: &Aff, rounding: &mut Rounding) -> String {
        match a {
            Aff::Const(c) => c.to_string(),
            Aff::Iter(d) => self.iters[*d].clone(),
            Aff::Param(p) => self.params[*p].clone(),
            Aff::Add(x, y) => format!("({} + {})", self.aff_in(x, rounding), self.aff_in(y, rounding)),
            Aff::Sub(x, y) => format!("({} - {})", self.aff_in(x, rounding), self.aff_in(y, rounding)),
            Aff::Neg(x) => format!("-({})", self.aff_in(x, rounding)),
            Aff::Mul(c, x) => format!("{c}*({})", self.aff_in(x, rounding)),
            Aff::Div(x, c) | Aff::Mod(x, c) => {
                let x = self.aff_in(x, rounding);
                let down = rounding.next();
                rounding.guards.push(format!("{x} {} 0", if down { ">=" } else { "<" }));
                match (a, down) {
                    (Aff::Div(..), true) => format!("floor(({x})/{c})"),
                    (Aff::Div(..), false) => format!("-floor((-({x}))/{c})"),
                    (_, true) => format!("(({x}) mod {c})"),
                    (_, false) => format!("-((-({x})) mod {c})"),
                }
            }
            Aff::Min(x, y) => format!("min({}, {})", self.aff_in(x, rounding), self.aff_in(y, rounding)),
            Aff::Max(x, y) => format!("max({}, {})", self.aff_in(x, rounding), self.aff_in(y, rounding)),
        }
    }

    /// A constraint on the expressions `affs`, printed by `constraint`: one disjunct per
    /// choice of sign of the dividends of C's `/` and `%` in them, each guarded by those signs
    /// (isl's `?:` does not nest, and constraints have none).
    fn by_signs(&self, affs: &[&Aff], constraint: impl Fn(&[String]) -> String) -> String {
        let divisions: u32 = affs.iter().map(|a| a.divisions()).sum();
        let cases: Vec<String> = (0..1u64 << divisions)
            .map(|signs| {
                let mut rounding = Rounding { signs, next: 0, guards: Vec::new() };
                let printed: Vec<String> = affs.iter().map(|a| self.aff_in(a, &mut rounding)).collect();
                let c = constraint(&printed);
                if rounding.guards.is_empty() {
                    c
                } else {
                    format!("({} and {c})", rounding.guards.join(" and "))
                }
            })
            .collect();
        if cases.len() == 1 {
            cases.into_iter().next().unwrap_or_default()
        } else {
            format!("({})", cases.join(" or "))
        }
    }

    /// `a op b` in a constraint.
    fn compare(&self, a: &Aff, op: &str, b: &Aff) -> String {
        self.by_signs(&[a, b], |v| format!("{} {op} {}", v[0], v[1]))
    }

    /// The condition, with negations pushed down (isl has no general `not`).
    pub fn cond(&self, c: &Cond, negate: bool) -> String {
        match c {
            Cond::True => if negate { "1 = 0" } else { "1 = 1" }.to_string(),
            Cond::Cmp(op, a, b) => {
                let op = if negate {
                    match op {
                        CmpOp::Lt => CmpOp::Ge,
                        CmpOp::Le => CmpOp::Gt,
                        CmpOp::Eq => CmpOp::Ne,
                        CmpOp::Ne => CmpOp::Eq,
                        CmpOp::Ge => CmpOp::Lt,
                        CmpOp::Gt => CmpOp::Le,
                    }
                } else {
                    *op
                };
                match op {
                    CmpOp::Lt => self.compare(a, "<", b),
                    CmpOp::Le => self.compare(a, "<=", b),
                    CmpOp::Eq => self.compare(a, "=", b),
                    CmpOp::Ne => format!("({} or {})", self.compare(a, "<", b), self.compare(a, ">", b)),
                    CmpOp::Ge => self.compare(a, ">=", b),
                    CmpOp::Gt => self.compare(a, ">", b),
                }
            }
            Cond::And(x, y) | Cond::Or(x, y) => {
                let and = matches!(c, Cond::And(..)) != negate;
                format!("({} {} {})", self.cond(x, negate), if and { "and" } else { "or" }, self.cond(y, negate))
            }
            Cond::Not(x) => self.cond(x, !negate),
        }
    }
    pub fn tuple(&self, name: &str) -> String {
        format!("{name}[{}]", self.iters.join(", "))
    }
}

/// Which rounding branch [`Names::aff_in`] prints for each truncating division or remainder.
struct Rounding {
    /// Bit k set: the k-th division met has a non-negative dividend (rounds down).
    signs: u64,
    /// Divisions met so far.
    next: u32,
    /// The sign conditions of the branches taken.
    guards: Vec<String>,
}

impl Rounding {
    /// Whether the next division's dividend is non-negative.
    fn next(&mut self) -> bool {
        self.next += 1;
        self.signs >> (self.next - 1) & 1 == 1
    }
}

/// The SCoP in isl notation.
pub struct Model {
    /// `[ni, nj] -> ` (empty when there are no parameters).
    pub params: String,
    /// Constraints every parameter satisfies: `ni >= 1 and …`.
    pub context: String,
    pub domains: Vec<String>,
    pub writes: Vec<String>,
    /// Per statement, per read reference.
    pub reads: Vec<Vec<String>>,
    pub schedules: Vec<String>,
}

impl Model {
    pub fn new(p: &Program) -> Model {
        let params = if p.params.is_empty() {
            String::new()
        } else {
            format!("[{}] -> ", p.params.iter().map(|q| isl_name(&q.name)).collect::<Vec<_>>().join(", "))
        };
        let context = p.params.iter().map(|q| format!("{} >= 1", isl_name(&q.name))).collect::<Vec<_>>().join(" and ");
        let len = p.schedule_len();
        let mut m = Model { params, context, domains: vec![], writes: vec![], reads: vec![], schedules: vec![] };
        for s in &p.stmts {
            let n = Names::of(p, s);
            let cond = m.domain_cond(&n, s);
            m.domains.push(format!("{}{{ {} : {cond} }}", m.params, n.tuple(&s.name)));
            m.writes.push(m.access(p, &n, &s.name, &s.write, &cond));
            m.reads.push(s.reads.iter().map(|r| m.access(p, &n, &s.name, r, &cond)).collect());
            let sched: Vec<String> = s
                .schedule
                .iter()
                .map(|t| match t {
                    SchedTerm::Const(c) => c.to_string(),
                    SchedTerm::Iter(d, 1) => n.iters[*d].clone(),
                    SchedTerm::Iter(d, _) => format!("-{}", n.iters[*d]),
                })
                .chain(std::iter::repeat("0".to_string()))
                .take(len)
                .collect();
            m.schedules.push(format!("{}{{ {} -> [{}] }}", m.params, n.tuple(&s.name), sched.join(", ")));
        }
        m
    }

    fn domain_cond(&self, n: &Names, s: &Statement) -> String {
        let mut parts: Vec<String> = s.domain.iter().map(|c| n.cond(c, false)).collect();
        if !self.context.is_empty() {
            parts.push(self.context.clone());
        }
        if parts.is_empty() {
            "1 = 1".into()
        } else {
            parts.join(" and ")
        }
    }

    /// `{ S[i] -> A[f(i)] : domain }`, with the statement renamed to `tuple_name` (dataflow
    /// renames each read reference to its own tuple).
    pub fn access(&self, p: &Program, n: &Names, tuple_name: &str, a: &Access, cond: &str) -> String {
        let var = isl_name(&p.vars[a.var].name);
        if a.index.iter().all(|x| x.divisions() == 0) {
            let idx: Vec<String> = a.index.iter().map(|x| n.aff(x)).collect();
            return format!("{}{{ {} -> {var}[{}] : {cond} }}", self.params, n.tuple(tuple_name), idx.join(", "));
        }
        // A cell through C's division: named, and equal to its subscript by dividend signs.
        let cells: Vec<String> = (0..a.index.len()).map(|d| format!("dpnc_cell{d}")).collect();
        let equal: Vec<String> = a.index.iter().zip(&cells).map(|(x, c)| n.by_signs(&[x], |v| format!("{c} = {}", v[0]))).collect();
        format!("{}{{ {} -> {var}[{}] : {cond} and {} }}", self.params, n.tuple(tuple_name), cells.join(", "), equal.join(" and "))
    }

    /// `ni = 60`, … for concrete parameter values.
    pub fn fixed_conditions(p: &Program, values: &[i64]) -> Vec<String> {
        p.params.iter().zip(values).map(|(q, v)| format!("{} = {v}", isl_name(&q.name))).collect()
    }

    /// The parameter set with the given values: `[ni] -> { : ni = 60 }`.
    pub fn fixed_context(&self, p: &Program, values: &[i64]) -> String {
        let fixed = Model::fixed_conditions(p, values);
        format!("{}{{ : {} }}", self.params, if fixed.is_empty() { "1 = 1".into() } else { fixed.join(" and ") })
    }

    /// The domain condition of statement `k`, for reuse by dataflow.
    pub fn cond_of(&self, p: &Program, k: usize) -> String {
        self.domain_cond(&Names::of(p, &p.stmts[k]), &p.stmts[k])
    }
}
