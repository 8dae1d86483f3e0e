//! Statement bodies and subscripts as C expressions that compute exactly what the
//! interpreter computes (`dpnc_frontend::eval`): every node is cast to its type, shifts are
//! masked as on x86, and constants are printed exactly (hexadecimal floating point).
//! The program is compiled with `-fwrapv` (wrapping signed arithmetic, as the interpreter)
//! and `-ffp-contract=off` (no fused multiply-add).

use dpnc_frontend::ir::{Aff, MathFn, TExpr, TKind};
use dpnc_frontend::ir::{BinOp, ScalarType, UnOp};
use dpnc_frontend::value::Value;

/// Names the printer needs: statement iterators, parameter values, read operands.
pub struct Names<'a> {
    pub iters: &'a [String],
    pub params: &'a [i64],
    /// Per read reference of the statement, the C expression of its value.
    pub reads: &'a [String],
}

/// A `double` exactly, as a C hexadecimal floating-point literal (or a macro for the
/// special values, from `<math.h>`).
pub fn f64_literal(x: f64) -> String {
    if x.is_nan() {
        return "NAN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "INFINITY".into() } else { "(-INFINITY)".into() };
    }
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        format!("{sign}0x0.{frac:013x}p-1022")
    } else {
        format!("{sign}0x1.{frac:013x}p{:+}", exp - 1023)
    }
}

pub fn literal(v: Value) -> String {
    match v {
        Value::Char(c) => format!("((char){c})"),
        Value::Int(i) => format!("((int){i})"),
        Value::Long(l) => format!("((long){l}LL)"),
        Value::Float(f) => format!("((float){})", f64_literal(f as f64)),
        Value::Double(d) => format!("((double){})", f64_literal(d)),
    }
}

/// A subscript or bound, in `long long` (C's own truncating `/` and `%`, as the model has them).
pub fn aff(a: &Aff, iters: &[String], params: &[i64]) -> String {
    let r = |x: &Aff| aff(x, iters, params);
    match a {
        Aff::Const(c) => format!("{c}LL"),
        Aff::Iter(d) => iters[*d].clone(),
        Aff::Param(p) => format!("{}LL", params[*p]),
        Aff::Add(x, y) => format!("({} + {})", r(x), r(y)),
        Aff::Sub(x, y) => format!("({} - {})", r(x), r(y)),
        Aff::Neg(x) => format!("(-{})", r(x)),
        Aff::Mul(c, x) => format!("({c}LL * {})", r(x)),
        Aff::Div(x, c) => format!("({} / {c}LL)", r(x)),
        Aff::Mod(x, c) => format!("({} % {c}LL)", r(x)),
        Aff::Min(x, y) => format!("dpn_min({}, {})", r(x), r(y)),
        Aff::Max(x, y) => format!("dpn_max({}, {})", r(x), r(y)),
    }
}

fn cast(ty: ScalarType, e: &str) -> String {
    format!("(({})({e}))", ty.c_name())
}

/// `e` in C, of type `e.ty`.
pub fn texpr(e: &TExpr, n: &Names) -> String {
    let r = |x: &TExpr| texpr(x, n);
    let ty = e.ty;
    match &e.kind {
        TKind::Const(v) => literal(*v),
        TKind::Iter(d) => cast(ty, &n.iters[*d]),
        TKind::Param(p) => cast(ty, &format!("{}LL", n.params[*p])),
        TKind::Read(k) => n.reads[*k].clone(),
        TKind::Cast(a) => cast(ty, &r(a)),
        TKind::Unary(op, a) => match op {
            UnOp::Plus => r(a),
            UnOp::Not => format!("((int)!{})", r(a)),
            UnOp::Neg => cast(ty, &format!("-{}", r(a))),
            UnOp::BitNot => cast(ty, &format!("~{}", r(a))),
        },
        TKind::Binary(op, a, b) => {
            let (x, y) = (r(a), r(b));
            let sym = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Rem => "%",
                BinOp::Lt => "<",
                BinOp::Le => "<=",
                BinOp::Gt => ">",
                BinOp::Ge => ">=",
                BinOp::Eq => "==",
                BinOp::Ne => "!=",
                BinOp::And => "&&",
                BinOp::Or => "||",
                BinOp::BitAnd => "&",
                BinOp::BitOr => "|",
                BinOp::BitXor => "^",
                BinOp::Shl => "<<",
                BinOp::Shr => ">>",
            };
            match op {
                BinOp::Shl | BinOp::Shr => {
                    let mask = if ty == ScalarType::Long { 63 } else { 31 };
                    cast(ty, &format!("{x} {sym} ({y} & {mask})"))
                }
                _ if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) => format!("((int)({x} {sym} {y}))"),
                _ => cast(ty, &format!("{x} {sym} {y}")),
            }
        }
        TKind::Ternary(c, a, b) => format!("({} ? {} : {})", r(c), r(a), r(b)),
        TKind::Call(f, args) => {
            let d = |k: usize| cast(ScalarType::Double, &r(&args[k]));
            let s = |k: usize| cast(ScalarType::Float, &r(&args[k]));
            match f {
                MathFn::Sqrt => format!("sqrt({})", d(0)),
                // dpnc's own functions (runtime/dpn_math.h), as the interpreter computes them.
                MathFn::Exp => format!("dpn_exp({})", d(0)),
                MathFn::Pow => format!("dpn_pow({}, {})", d(0), d(1)),
                MathFn::Fabs => format!("fabs({})", d(0)),
                MathFn::Fmin => format!("fmin({}, {})", d(0), d(1)),
                MathFn::Fmax => format!("fmax({}, {})", d(0), d(1)),
                MathFn::Sqrtf => format!("sqrtf({})", s(0)),
                MathFn::Expf => format!("dpn_expf({})", s(0)),
                MathFn::Powf => format!("dpn_powf({}, {})", s(0), s(1)),
                MathFn::Fabsf => format!("fabsf({})", s(0)),
                MathFn::Fminf => format!("fminf({}, {})", s(0), s(1)),
                MathFn::Fmaxf => format!("fmaxf({}, {})", s(0), s(1)),
                MathFn::Abs => format!("abs((int)({}))", r(&args[0])),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::f64_literal;

    #[test]
    fn hex_literals_are_exact() {
        assert_eq!(f64_literal(1.0), "0x1.0000000000000p+0");
        assert_eq!(f64_literal(-0.5), "-0x1.0000000000000p-1");
        assert_eq!(f64_literal(f64::from_bits(1)), "0x0.0000000000001p-1022");
        assert_eq!(f64_literal(0.0), "0x0.0000000000000p-1022");
    }
}
