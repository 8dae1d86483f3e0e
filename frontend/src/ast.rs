//! Abstract syntax of the accepted C subset, with spans. The parser builds it for the kernel
//! function; `scop` checks it against the polyhedral subset.

use crate::source::Span;

/// The C scalar types dpnc computes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    Char,
    Int,
    Long,
    Float,
    Double,
}

impl ScalarType {
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::Float | ScalarType::Double)
    }
    pub fn c_name(self) -> &'static str {
        match self {
            ScalarType::Char => "char",
            ScalarType::Int => "int",
            ScalarType::Long => "long",
            ScalarType::Float => "float",
            ScalarType::Double => "double",
        }
    }
    pub fn from_c_name(name: &str) -> Option<ScalarType> {
        [ScalarType::Char, ScalarType::Int, ScalarType::Long, ScalarType::Float, ScalarType::Double]
            .into_iter()
            .find(|t| t.c_name() == name)
    }
    /// Size in bytes (LP64).
    pub fn size(self) -> usize {
        match self {
            ScalarType::Char => 1,
            ScalarType::Int | ScalarType::Float => 4,
            ScalarType::Long | ScalarType::Double => 8,
        }
    }
    /// C's integer promotion followed by the usual arithmetic conversions.
    pub fn common(a: ScalarType, b: ScalarType) -> ScalarType {
        a.promoted().max(b.promoted())
    }
    /// Integer promotion: `char` computes as `int`.
    pub fn promoted(self) -> ScalarType {
        if self == ScalarType::Char {
            ScalarType::Int
        } else {
            self
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            And => "&&",
            Or => "||",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
        }
    }
    pub fn is_comparison(self) -> bool {
        use BinOp::*;
        matches!(self, Lt | Le | Gt | Ge | Eq | Ne)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Int(i64, ScalarType),
    Float(f32),
    Double(f64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Lit(Literal),
    Var(String),
    /// `a[e1][e2]…` on a named array.
    Index(String, Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `lhs = rhs` (op `None`) or `lhs op= rhs`.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    /// `++x`, `x--`, …: `delta` is +1 or -1.
    IncDec {
        delta: i64,
        prefix: bool,
        target: Box<Expr>,
    },
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Cast(ScalarType, Box<Expr>),
    Call(String, Vec<Expr>),
    /// A construct the parser recognises only to reject it precisely
    /// (pointers, members, strings, comma operator, …).
    Unsupported(&'static str),
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub name: String,
    pub ty: ScalarType,
    /// Array dimensions as written (empty for scalars).
    pub dims: Vec<Expr>,
    pub init: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    Decl(Vec<VarDecl>),
    Block(Vec<Stmt>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    Pragma(String),
    Empty,
    /// `while`, `do`, `goto`, `return`, `break`, `continue`, `switch`, labels: parsed so
    /// that they can be rejected with a precise message when inside the kernel region.
    Unsupported(&'static str),
}

/// One parameter of the kernel function.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub decl: VarDecl,
    /// `true` for `T *p` / `T p[]` declarations without a constant size.
    pub pointer: bool,
}

/// The kernel function, fully parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// What the kernel's caller passes (PolyBench's `main` calls `kernel_x(n, …)` with
/// `int n = N;`): the values of integer arguments give the size parameters their values, and
/// array arguments must not overlap.
#[derive(Clone, Debug, PartialEq)]
pub struct CallSite {
    pub args: Vec<CallArg>,
    /// The kernel's name at the call.
    pub span: Span,
}

/// One argument of the call to the kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct CallArg {
    /// Its integer value, when certain: a constant expression, or a variable that the caller
    /// initialises with one and never writes again.
    pub value: Option<i64>,
    /// A write to the argument's variable besides its initialisation, which is why `value`
    /// is unknown.
    pub rewritten: Option<Span>,
    /// The variables whose storage the argument may point into: `A` for `A`, `&A[1]`, `A + 1`
    /// or a pointer copied from `A` (the pointer's own name too).
    pub roots: Vec<String>,
    pub span: Span,
}
