//! Runtime values with C's semantics: the interpreter, the SARE evaluator and every later
//! executor compute with these, so that they agree bit for bit.

use crate::ast::ScalarType;

#[derive(Clone, Copy, Debug)]
pub enum Value {
    Char(i8),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
}

impl Value {
    pub fn ty(self) -> ScalarType {
        match self {
            Value::Char(_) => ScalarType::Char,
            Value::Int(_) => ScalarType::Int,
            Value::Long(_) => ScalarType::Long,
            Value::Float(_) => ScalarType::Float,
            Value::Double(_) => ScalarType::Double,
        }
    }
    pub fn zero(ty: ScalarType) -> Value {
        Value::Long(0).convert(ty)
    }
    /// C conversion to `ty` (float → integer truncates toward zero; integer narrowing wraps).
    pub fn convert(self, ty: ScalarType) -> Value {
        match ty {
            ScalarType::Char => Value::Char(self.as_i64() as i8),
            ScalarType::Int => Value::Int(self.as_i64() as i32),
            ScalarType::Long => Value::Long(self.as_i64()),
            ScalarType::Float => Value::Float(match self {
                Value::Float(f) => f,
                Value::Double(d) => d as f32,
                v => v.as_i64() as f32,
            }),
            ScalarType::Double => Value::Double(self.as_f64()),
        }
    }
    pub fn as_i64(self) -> i64 {
        match self {
            Value::Char(v) => v as i64,
            Value::Int(v) => v as i64,
            Value::Long(v) => v,
            Value::Float(f) => f as i64,
            Value::Double(d) => d as i64,
        }
    }
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Float(f) => f as f64,
            Value::Double(d) => d,
            v => v.as_i64() as f64,
        }
    }
    /// C truth value.
    pub fn truthy(self) -> bool {
        match self {
            Value::Float(f) => f != 0.0,
            Value::Double(d) => d != 0.0,
            v => v.as_i64() != 0,
        }
    }
    /// The value's bits, for bit-exact comparison (NaN payloads included).
    pub fn bits(self) -> u64 {
        match self {
            Value::Char(v) => v as u8 as u64,
            Value::Int(v) => v as u32 as u64,
            Value::Long(v) => v as u64,
            Value::Float(f) => f.to_bits() as u64,
            Value::Double(d) => d.to_bits(),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Char(v) => write!(f, "{v}"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Long(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v:e}"),
            Value::Double(v) => write!(f, "{v:e}"),
        }
    }
}
