//! The values of a kernel's variables: what the interpreter and the SARE evaluator read and
//! write, and what is exchanged with users as `.npy` files (one per variable).

use crate::ast::ScalarType;
use crate::ir::{Program, VarKind, Variable};
use crate::npy::{NpyArray, NpyData};
use crate::value::Value;
use std::path::Path;

/// One flat row-major buffer per variable of the program.
#[derive(Clone, Debug)]
pub struct Store {
    pub data: Vec<Vec<Value>>,
}

/// SplitMix64: small, fast and identical on every platform (random inputs, the tests' random
/// operands and the random-kernel generator).
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    // A seeded generator, not an iterator: it never ends.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1), 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in `lo..=hi` (`lo` when the range is empty).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    /// True with probability `pct`%.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
    /// One of `xs`, uniformly.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[(self.next() % xs.len() as u64) as usize]
    }
}

/// The first cell where two stores differ.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub var: String,
    pub index: Vec<i64>,
    pub left: Value,
    pub right: Value,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let idx: String = self.index.iter().map(|i| format!("[{i}]")).collect();
        write!(f, "{}{idx}: {} ({:#x}) vs {} ({:#x})", self.var, self.left, self.left.bits(), self.right, self.right.bits())
    }
}

/// Row-major multi-index of a flat offset.
pub fn unflatten(dims: &[i64], mut flat: usize) -> Vec<i64> {
    let mut idx = vec![0; dims.len()];
    for d in (0..dims.len()).rev() {
        let n = dims[d].max(1) as usize;
        idx[d] = (flat % n) as i64;
        flat /= n;
    }
    idx
}

/// Flat offset of a multi-index, or `None` when out of bounds.
pub fn flatten(dims: &[i64], idx: &[i64]) -> Option<usize> {
    let mut off = 0usize;
    for (i, n) in idx.iter().zip(dims) {
        if *i < 0 || i >= n {
            return None;
        }
        off = off * *n as usize + *i as usize;
    }
    Some(off)
}

impl Store {
    /// Refuses a kernel whose arrays would not fit in this machine's available memory (a
    /// store holds a 16-byte value per element, and a run keeps a few stores), before any is
    /// allocated: an allocation that fails aborts the process.
    pub fn check_memory(p: &Program, copies: u64) -> Result<(), String> {
        let elements: u128 = p.vars.iter().map(|v| v.len() as u128).sum();
        let need = elements * std::mem::size_of::<Value>() as u128 * copies as u128;
        let Some(available) = available_memory() else { return Ok(()) };
        if need > available as u128 {
            let (big, _) =
                p.vars.iter().map(|v| (v, v.len())).max_by_key(|(_, n)| *n).map_or(("?".to_string(), 0), |(v, n)| (v.name.clone(), n));
            return Err(format!(
                "the kernel's arrays need {:.1} GB in the interpreter ({elements} elements, the largest `{big}`), more than the {:.1} GB available; use smaller sizes",
                need as f64 / 1e9,
                available as f64 / 1e9
            ));
        }
        Ok(())
    }

    /// Every variable zero (C's static initialisation).
    pub fn zeroed(p: &Program) -> Store {
        Store { data: p.vars.iter().map(|v| vec![Value::zero(v.ty); v.len()]).collect() }
    }

    /// Deterministic pseudo-random arguments; locals stay zero. Floating values are uniform
    /// in [-1, 1); integers small and non-negative so that they make sensible sizes, weights
    /// and codes.
    pub fn random(p: &Program, seed: u64) -> Store {
        let mut s = Store::zeroed(p);
        for (k, v) in p.vars.iter().enumerate() {
            if v.kind != VarKind::Argument {
                continue;
            }
            let mut rng = Rng(seed ^ (k as u64).wrapping_mul(0xA24B_AED4_963E_E407));
            for cell in &mut s.data[k] {
                let r = rng.next();
                *cell = match v.ty {
                    ScalarType::Float => Value::Float(((r >> 40) as f32) / (1u64 << 23) as f32 - 1.0),
                    ScalarType::Double => Value::Double(((r >> 11) as f64) / (1u64 << 52) as f64 - 1.0),
                    ScalarType::Char => Value::Char((r % 4) as i8),
                    ScalarType::Int => Value::Int((r % 100) as i32),
                    ScalarType::Long => Value::Long((r % 1000) as i64),
                };
            }
        }
        s
    }

    /// The first differing cell among the kernel's arguments (its observable results).
    pub fn compare(p: &Program, a: &Store, b: &Store) -> Option<Mismatch> {
        for (k, v) in p.vars.iter().enumerate() {
            if v.kind != VarKind::Argument {
                continue;
            }
            if let Some(i) = (0..v.len()).find(|&i| a.data[k][i].bits() != b.data[k][i].bits() || a.data[k][i].ty() != b.data[k][i].ty()) {
                return Some(Mismatch { var: v.name.clone(), index: unflatten(&v.dims, i), left: a.data[k][i], right: b.data[k][i] });
            }
        }
        None
    }

    pub fn to_npy(v: &Variable, data: &[Value]) -> NpyArray {
        let shape = v.dims.iter().map(|d| *d as usize).collect();
        let data = match v.ty {
            ScalarType::Char => NpyData::I8(data.iter().map(|x| x.as_i64() as i8).collect()),
            ScalarType::Int => NpyData::I32(data.iter().map(|x| x.as_i64() as i32).collect()),
            ScalarType::Long => NpyData::I64(data.iter().map(|x| x.as_i64()).collect()),
            ScalarType::Float => NpyData::F32(data.iter().map(|x| if let Value::Float(f) = x { *f } else { x.as_f64() as f32 }).collect()),
            ScalarType::Double => NpyData::F64(data.iter().map(|x| x.as_f64()).collect()),
        };
        NpyArray { shape, data }
    }

    /// Reads every argument from `dir/NAME.npy`; shapes and element types must match.
    pub fn load(p: &Program, dir: &Path) -> Result<Store, String> {
        let mut s = Store::zeroed(p);
        for (k, v) in p.vars.iter().enumerate() {
            if v.kind != VarKind::Argument {
                continue;
            }
            let path = dir.join(format!("{}.npy", v.name));
            let a = crate::npy::read_npy(&path).map_err(|e| e.to_string())?;
            let want: Vec<usize> = v.dims.iter().map(|d| *d as usize).collect();
            let expected = Store::to_npy(v, &[]).elem_type();
            if a.shape != want || a.elem_type() != expected {
                return Err(format!(
                    "{}: expected a {:?} array of shape {:?} for `{} {}`, found {:?} of shape {:?}",
                    path.display(),
                    expected,
                    want,
                    v.ty.c_name(),
                    v.name,
                    a.elem_type(),
                    a.shape
                ));
            }
            s.data[k] = match a.data {
                NpyData::I8(x) => x.into_iter().map(Value::Char).collect(),
                NpyData::I32(x) => x.into_iter().map(Value::Int).collect(),
                NpyData::I64(x) => x.into_iter().map(Value::Long).collect(),
                NpyData::F32(x) => x.into_iter().map(Value::Float).collect(),
                NpyData::F64(x) => x.into_iter().map(Value::Double).collect(),
            };
        }
        Ok(s)
    }

    /// Writes the selected variables to `dir/NAME.npy`.
    pub fn save(&self, p: &Program, dir: &Path, which: impl Fn(&Variable) -> bool) -> Result<(), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (k, v) in p.vars.iter().enumerate() {
            if which(v) {
                crate::npy::write_npy(&dir.join(format!("{}.npy", v.name)), &Store::to_npy(v, &self.data[k])).map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }
}

/// The memory the system can still give (Linux's `MemAvailable`), in bytes.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}
