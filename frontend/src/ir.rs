//! The frontend's intermediate representation: the static control part (SCoP) of a kernel as
//! plain data, [`Program`]. `scop.rs` builds it from the parsed C; `polyhedral` writes it in
//! isl notation; every later stage and backend reads it. The scalar types and operators are
//! those of the C subset (`ast`), re-exported here so that backends need not reach the AST.

pub use crate::ast::{BinOp, ScalarType, UnOp};
use crate::diag::{Diagnostic, Result};
use crate::source::Span;
use crate::value::Value;

/// A quasi-affine expression in loop iterators (by loop depth) and size parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Aff {
    Const(i64),
    Iter(usize),
    Param(usize),
    Add(Box<Aff>, Box<Aff>),
    Sub(Box<Aff>, Box<Aff>),
    Neg(Box<Aff>),
    Mul(i64, Box<Aff>),
    /// C division by a positive constant: the quotient truncated toward zero, also for a
    /// negative dividend (`-5 / 2 == -2`).
    Div(Box<Aff>, i64),
    /// C remainder by a positive constant: it takes the dividend's sign (`-5 % 2 == -1`).
    Mod(Box<Aff>, i64),
    Min(Box<Aff>, Box<Aff>),
    Max(Box<Aff>, Box<Aff>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Ge,
    Gt,
}

/// An affine condition (loop bound or `if`).
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    True,
    Cmp(CmpOp, Aff, Aff),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
}

/// A size parameter: an integer argument of the kernel that it never writes.
#[derive(Clone, Debug)]
pub struct Parameter {
    pub name: String,
    /// Value from the call site in `main` (or `--param`), if known.
    pub value: Option<i64>,
    /// Where the caller writes the argument's variable after initialising it, which is why
    /// `value` is unknown.
    pub rewritten: Option<Span>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// An argument of the kernel: exchanged with the caller (DDR in hardware).
    Argument,
    /// Declared inside the kernel function: a temporary. An initialiser where it is declared
    /// runs first in the region; without one it reads as zero (C leaves it indeterminate).
    Local,
}

/// An array or a data scalar (a 0-d array).
#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub ty: ScalarType,
    pub dims: Vec<i64>,
    pub kind: VarKind,
    pub read: bool,
    pub written: bool,
    pub span: Span,
}

impl Variable {
    pub fn len(&self) -> usize {
        self.dims.iter().product::<i64>().max(0) as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// A scalar argument the kernel only reads (`alpha`): a kernel argument register in
    /// hardware, not a DDR load.
    pub fn is_scalar_argument(&self) -> bool {
        self.dims.is_empty() && self.kind == VarKind::Argument && !self.written
    }
}

/// One array reference: `var[index…]`.
#[derive(Clone, Debug)]
pub struct Access {
    pub var: usize,
    pub index: Vec<Aff>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Sqrt,
    Exp,
    Pow,
    Fabs,
    Fmin,
    Fmax,
    Sqrtf,
    Expf,
    Powf,
    Fabsf,
    Fminf,
    Fmaxf,
    /// Integer `abs`.
    Abs,
}

impl MathFn {
    pub fn lookup(name: &str) -> Option<MathFn> {
        use MathFn::*;
        Some(match name {
            "sqrt" => Sqrt,
            "exp" => Exp,
            "pow" => Pow,
            "fabs" => Fabs,
            "fmin" => Fmin,
            "fmax" => Fmax,
            "sqrtf" => Sqrtf,
            "expf" => Expf,
            "powf" => Powf,
            "fabsf" => Fabsf,
            "fminf" => Fminf,
            "fmaxf" => Fmaxf,
            "abs" => Abs,
            _ => return None,
        })
    }
    pub const NAMES: &'static str = "sqrt, exp, pow, fabs, fmin, fmax (and their float `f` versions), abs";
    pub fn arity(self) -> usize {
        use MathFn::*;
        match self {
            Pow | Powf | Fmin | Fmax | Fminf | Fmaxf => 2,
            _ => 1,
        }
    }
    /// The type of the arguments and of the result.
    pub fn ty(self) -> ScalarType {
        use MathFn::*;
        match self {
            Sqrt | Exp | Pow | Fabs | Fmin | Fmax => ScalarType::Double,
            Abs => ScalarType::Int,
            _ => ScalarType::Float,
        }
    }
}

/// A typed data expression of a statement body; reads refer to `Statement::reads`.
#[derive(Clone, Debug)]
pub struct TExpr {
    pub kind: TKind,
    pub ty: ScalarType,
}

#[derive(Clone, Debug)]
pub enum TKind {
    Const(Value),
    Iter(usize),
    Param(usize),
    Read(usize),
    Unary(UnOp, Box<TExpr>),
    /// Arithmetic in `self.ty`, comparisons in the operands' common type (result `int`),
    /// `&&`/`||` short-circuit.
    Binary(BinOp, Box<TExpr>, Box<TExpr>),
    Ternary(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    Cast(Box<TExpr>),
    Call(MathFn, Vec<TExpr>),
}

/// A polyhedral statement: one assignment of the kernel region.
#[derive(Clone, Debug)]
pub struct Statement {
    /// `S0`, `S1`, … in textual order.
    pub name: String,
    /// Names of the enclosing loop iterators, outermost first.
    pub iters: Vec<String>,
    /// Conjunction of the enclosing loop bounds and `if` conditions.
    pub domain: Vec<Cond>,
    /// 2d+1 schedule: constant positions interleaved with ±iterator (decreasing loops negate).
    pub schedule: Vec<SchedTerm>,
    pub write: Access,
    pub reads: Vec<Access>,
    /// Right-hand side; the value stored is `body` converted to the written element's type.
    pub body: TExpr,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedTerm {
    Const(i64),
    /// Loop iterator at the given depth, multiplied by `dir` (+1 or -1).
    Iter(usize, i64),
}

/// The loop tree the interpreter walks.
#[derive(Clone, Debug)]
pub enum Node {
    Loop { depth: usize, ty: ScalarType, lower: Aff, upper: Aff, dir: i64, body: Vec<Node> },
    If(Cond, Vec<Node>, Vec<Node>),
    Stmt(usize),
}

/// The static control part of the kernel.
#[derive(Clone, Debug)]
pub struct Program {
    pub kernel: String,
    pub params: Vec<Parameter>,
    pub vars: Vec<Variable>,
    pub stmts: Vec<Statement>,
    pub tree: Vec<Node>,
    pub region: Span,
    /// The kernel function's parameters in order, so that generated callers can call it.
    pub signature: Vec<ArgSlot>,
}

/// One parameter of the kernel function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgSlot {
    Param(usize),
    Var(usize),
}

impl Program {
    pub fn var(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|v| v.name == name)
    }
    /// Parameter values, or an error naming the first one without a value.
    pub fn param_values(&self) -> Result<Vec<i64>> {
        self.params
            .iter()
            .map(|p| {
                p.value.ok_or_else(|| match p.rewritten {
                    Some(at) => Diagnostic::new(
                        at,
                        format!("size parameter `{}` has no certain value: the caller changes its argument here", p.name),
                    )
                    .with_help(format!("pass the size explicitly with --param {}=VALUE", p.name)),
                    None => Diagnostic::new(p.span, format!("size parameter `{}` has no value", p.name))
                        .with_help(format!("call the kernel from `main` with a constant, or pass --param {}=VALUE", p.name)),
                })
            })
            .collect()
    }
    /// The length of every statement's schedule vector.
    pub fn schedule_len(&self) -> usize {
        self.stmts.iter().map(|s| s.schedule.len()).max().unwrap_or(1)
    }
}

impl Aff {
    /// The value if the expression is constant.
    pub fn as_const(&self) -> Option<i64> {
        self.eval(&[], &[]).ok().filter(|_| !self.has_vars())
    }
    /// How many divisions and remainders the expression holds.
    pub fn divisions(&self) -> u32 {
        match self {
            Aff::Const(_) | Aff::Iter(_) | Aff::Param(_) => 0,
            Aff::Neg(a) | Aff::Mul(_, a) => a.divisions(),
            Aff::Div(a, _) | Aff::Mod(a, _) => 1 + a.divisions(),
            Aff::Add(a, b) | Aff::Sub(a, b) | Aff::Min(a, b) | Aff::Max(a, b) => a.divisions() + b.divisions(),
        }
    }
    /// Whether the expression names iterator `d`.
    pub fn mentions(&self, d: usize) -> bool {
        match self {
            Aff::Iter(k) => *k == d,
            Aff::Const(_) | Aff::Param(_) => false,
            Aff::Neg(a) | Aff::Mul(_, a) | Aff::Div(a, _) | Aff::Mod(a, _) => a.mentions(d),
            Aff::Add(a, b) | Aff::Sub(a, b) | Aff::Min(a, b) | Aff::Max(a, b) => a.mentions(d) || b.mentions(d),
        }
    }
    fn has_vars(&self) -> bool {
        match self {
            Aff::Const(_) => false,
            Aff::Iter(_) | Aff::Param(_) => true,
            Aff::Neg(a) | Aff::Mul(_, a) | Aff::Div(a, _) | Aff::Mod(a, _) => a.has_vars(),
            Aff::Add(a, b) | Aff::Sub(a, b) | Aff::Min(a, b) | Aff::Max(a, b) => a.has_vars() || b.has_vars(),
        }
    }
    /// Evaluates with C semantics (wrapping arithmetic, truncating division).
    pub fn eval(&self, iters: &[i64], params: &[i64]) -> std::result::Result<i64, &'static str> {
        Ok(match self {
            Aff::Const(c) => *c,
            Aff::Iter(d) => *iters.get(*d).ok_or("iterator out of scope")?,
            Aff::Param(p) => *params.get(*p).ok_or("parameter without value")?,
            Aff::Add(a, b) => a.eval(iters, params)?.wrapping_add(b.eval(iters, params)?),
            Aff::Sub(a, b) => a.eval(iters, params)?.wrapping_sub(b.eval(iters, params)?),
            Aff::Neg(a) => a.eval(iters, params)?.wrapping_neg(),
            Aff::Mul(c, a) => c.wrapping_mul(a.eval(iters, params)?),
            Aff::Div(a, c) => a.eval(iters, params)? / c,
            Aff::Mod(a, c) => a.eval(iters, params)? % c,
            Aff::Min(a, b) => a.eval(iters, params)?.min(b.eval(iters, params)?),
            Aff::Max(a, b) => a.eval(iters, params)?.max(b.eval(iters, params)?),
        })
    }
}

impl Cond {
    /// Whether the condition names iterator `d`.
    pub fn mentions(&self, d: usize) -> bool {
        match self {
            Cond::True => false,
            Cond::Cmp(_, a, b) => a.mentions(d) || b.mentions(d),
            Cond::And(a, b) | Cond::Or(a, b) => a.mentions(d) || b.mentions(d),
            Cond::Not(a) => a.mentions(d),
        }
    }
    pub fn eval(&self, iters: &[i64], params: &[i64]) -> std::result::Result<bool, &'static str> {
        Ok(match self {
            Cond::True => true,
            Cond::Cmp(op, a, b) => {
                let (a, b) = (a.eval(iters, params)?, b.eval(iters, params)?);
                match op {
                    CmpOp::Lt => a < b,
                    CmpOp::Le => a <= b,
                    CmpOp::Eq => a == b,
                    CmpOp::Ne => a != b,
                    CmpOp::Ge => a >= b,
                    CmpOp::Gt => a > b,
                }
            }
            Cond::And(a, b) => a.eval(iters, params)? && b.eval(iters, params)?,
            Cond::Or(a, b) => a.eval(iters, params)? || b.eval(iters, params)?,
            Cond::Not(a) => !a.eval(iters, params)?,
        })
    }
}
