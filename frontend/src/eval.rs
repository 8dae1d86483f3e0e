//! Evaluation of typed statement bodies with C semantics, shared by the interpreter and the
//! SARE evaluator (and later by the DPN executor) so that all of them agree bit for bit.
//! `exp` and `pow` (and their binary32 forms) are dpnc's own ([`crate::mathlib`]), which every
//! backend reproduces; `fmin`/`fmax` call the C library, as the generated C/C++ code does.

use crate::ast::{BinOp, ScalarType, UnOp};
use crate::ir::{MathFn, TExpr, TKind};
use crate::mathlib;
use crate::value::Value;

mod libm {
    extern "C" {
        pub fn fmin(x: f64, y: f64) -> f64;
        pub fn fmax(x: f64, y: f64) -> f64;
        pub fn fminf(x: f32, y: f32) -> f32;
        pub fn fmaxf(x: f32, y: f32) -> f32;
    }
}

/// A run-time error of the kernel (the span is added by the caller).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    DivisionByZero,
    /// A read failed (out of bounds, no source); the message is the reader's.
    Read(String),
}

/// Evaluates `e`. `read(k)` supplies the value of read reference `k`; it is called only for
/// the reads C would evaluate (`&&`, `||` and `?:` short-circuit).
pub fn eval(e: &TExpr, iters: &[i64], params: &[i64], read: &mut dyn FnMut(usize) -> Result<Value, String>) -> Result<Value, EvalError> {
    Ok(match &e.kind {
        TKind::Const(v) => *v,
        TKind::Iter(d) => Value::Long(iters[*d]).convert(e.ty),
        TKind::Param(p) => Value::Long(params[*p]).convert(e.ty),
        TKind::Read(k) => read(*k).map_err(EvalError::Read)?,
        TKind::Cast(a) => eval(a, iters, params, read)?.convert(e.ty),
        TKind::Unary(op, a) => {
            let v = eval(a, iters, params, read)?;
            match op {
                UnOp::Plus => v,
                UnOp::Not => Value::Int(!v.truthy() as i32),
                UnOp::Neg => match v {
                    Value::Float(f) => Value::Float(-f),
                    Value::Double(d) => Value::Double(-d),
                    Value::Long(x) => Value::Long(x.wrapping_neg()),
                    v => Value::Int((v.as_i64() as i32).wrapping_neg()),
                },
                UnOp::BitNot => match v {
                    Value::Long(x) => Value::Long(!x),
                    v => Value::Int(!(v.as_i64() as i32)),
                },
            }
        }
        TKind::Binary(BinOp::And, a, b) => {
            Value::Int((eval(a, iters, params, read)?.truthy() && eval(b, iters, params, read)?.truthy()) as i32)
        }
        TKind::Binary(BinOp::Or, a, b) => {
            Value::Int((eval(a, iters, params, read)?.truthy() || eval(b, iters, params, read)?.truthy()) as i32)
        }
        TKind::Binary(op, a, b) => binary(*op, eval(a, iters, params, read)?, eval(b, iters, params, read)?, e.ty)?,
        TKind::Ternary(c, a, b) => {
            if eval(c, iters, params, read)?.truthy() {
                eval(a, iters, params, read)?
            } else {
                eval(b, iters, params, read)?
            }
        }
        TKind::Call(f, args) => {
            let mut v = [0f64; 2];
            let mut w = [0f32; 2];
            for (k, a) in args.iter().enumerate() {
                match eval(a, iters, params, read)? {
                    Value::Float(x) => w[k] = x,
                    x => v[k] = x.as_f64(),
                }
            }
            // SAFETY: plain C math functions on scalar arguments.
            unsafe {
                match f {
                    MathFn::Sqrt => Value::Double(v[0].sqrt()),
                    MathFn::Exp => Value::Double(mathlib::exp(v[0])),
                    MathFn::Pow => Value::Double(mathlib::pow(v[0], v[1])),
                    MathFn::Fabs => Value::Double(v[0].abs()),
                    MathFn::Fmin => Value::Double(libm::fmin(v[0], v[1])),
                    MathFn::Fmax => Value::Double(libm::fmax(v[0], v[1])),
                    MathFn::Sqrtf => Value::Float(w[0].sqrt()),
                    MathFn::Expf => Value::Float(mathlib::expf(w[0])),
                    MathFn::Powf => Value::Float(mathlib::powf(w[0], w[1])),
                    MathFn::Fabsf => Value::Float(w[0].abs()),
                    MathFn::Fminf => Value::Float(libm::fminf(w[0], w[1])),
                    MathFn::Fmaxf => Value::Float(libm::fmaxf(w[0], w[1])),
                    MathFn::Abs => Value::Int((v[0] as i32).wrapping_abs()),
                }
            }
        }
    })
}

/// A binary operation on operands already converted to their common type; `ty` is the
/// result type (`int` for comparisons).
fn binary(op: BinOp, a: Value, b: Value, ty: ScalarType) -> Result<Value, EvalError> {
    use BinOp::*;
    let cmp = |o: std::cmp::Ordering| -> bool {
        match op {
            Lt => o.is_lt(),
            Le => o.is_le(),
            Gt => o.is_gt(),
            Ge => o.is_ge(),
            Eq => o.is_eq(),
            _ => o.is_ne(),
        }
    };
    if op.is_comparison() {
        let r = match (a, b) {
            (Value::Float(x), Value::Float(y)) => x.partial_cmp(&y).map(cmp).unwrap_or(op == Ne),
            (Value::Double(x), Value::Double(y)) => x.partial_cmp(&y).map(cmp).unwrap_or(op == Ne),
            (x, y) => cmp(x.as_i64().cmp(&y.as_i64())),
        };
        return Ok(Value::Int(r as i32));
    }
    Ok(match (a, b) {
        (Value::Float(x), Value::Float(y)) => Value::Float(match op {
            Add => x + y,
            Sub => x - y,
            Mul => x * y,
            _ => x / y,
        }),
        (Value::Double(x), Value::Double(y)) => Value::Double(match op {
            Add => x + y,
            Sub => x - y,
            Mul => x * y,
            _ => x / y,
        }),
        (x, y) => {
            let (x, y) = (x.as_i64(), y.as_i64());
            if ty == ScalarType::Long {
                Value::Long(int_op(op, x, y, 63)?)
            } else {
                // 32-bit wrapping arithmetic is 64-bit arithmetic truncated.
                Value::Int(int_op(op, x, y, 31)? as i32)
            }
        }
    })
}

/// Integer operation with wrapping; shift counts are masked with `shift_mask` (31 or 63), as
/// x86 does for C's undefined large shifts.
fn int_op(op: BinOp, x: i64, y: i64, shift_mask: i64) -> Result<i64, EvalError> {
    use BinOp::*;
    Ok(match op {
        Add => x.wrapping_add(y),
        Sub => x.wrapping_sub(y),
        Mul => x.wrapping_mul(y),
        Div | Rem if y == 0 => return Err(EvalError::DivisionByZero),
        Div => x.wrapping_div(y),
        Rem => x.wrapping_rem(y),
        BitAnd => x & y,
        BitOr => x | y,
        BitXor => x ^ y,
        Shl => x.wrapping_shl((y & shift_mask) as u32),
        _ => x.wrapping_shr((y & shift_mask) as u32),
    })
}
