//! The polyhedral model in isl notation: parameter context, iteration domains, access
//! relations and the original schedule of every statement, as text that isl parses. Building
//! text rather than isl objects keeps this module free of isl and makes `--emit scop` exact.

use crate::scop::{Access, Aff, CmpOp, Cond, Program, SchedTerm, Statement};

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
    pub fn aff(&self, a: &Aff) -> String {
        match a {
            Aff::Const(c) => c.to_string(),
            Aff::Iter(d) => self.iters[*d].clone(),
            Aff::Param(p) => self.params[*p].clone(),
            Aff::Add(x, y) => format!("({} + {})", self.aff(x), self.aff(y)),
            Aff::Sub(x, y) => format!("({} - {})", self.aff(x), self.aff(y)),
            Aff::Neg(x) => format!("-({})", self.aff(x)),
            Aff::Mul(c, x) => format!("{c}*({})", self.aff(x)),
            Aff::Div(x, c) => format!("floor(({})/{c})", self.aff(x)),
            Aff::Mod(x, c) => format!("(({}) mod {c})", self.aff(x)),
            Aff::Min(x, y) => format!("min({}, {})", self.aff(x), self.aff(y)),
            Aff::Max(x, y) => format!("max({}, {})", self.aff(x), self.aff(y)),
        }
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
                let (a, b) = (self.aff(a), self.aff(b));
                match op {
                    CmpOp::Lt => format!("{a} < {b}"),
                    CmpOp::Le => format!("{a} <= {b}"),
                    CmpOp::Eq => format!("{a} = {b}"),
                    CmpOp::Ne => format!("({a} < {b} or {a} > {b})"),
                    CmpOp::Ge => format!("{a} >= {b}"),
                    CmpOp::Gt => format!("{a} > {b}"),
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
        let idx: Vec<String> = a.index.iter().map(|x| n.aff(x)).collect();
        format!("{}{{ {} -> {}[{}] : {cond} }}", self.params, n.tuple(tuple_name), isl_name(&p.vars[a.var].name), idx.join(", "))
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
