//! dpnc's own `exp`, `pow`, `expf` and `powf`: each one fixed straight-line [`Program`] of
//! IEEE-754 basic operations (binary64 `+ - * /` rounded to nearest even, comparisons,
//! selects, binary32↔binary64 conversions) and exact bit-level steps on the encodings. The
//! C library's versions cannot be reproduced elsewhere (glibc picks an FMA variant at run
//! time, CUDA has its own), so dpnc defines these functions once, here, and every executor
//! runs the same operations in the same order: the interpreter evaluates the program
//! ([`Program::eval`]), the C/C++/CUDA backends print it as C (`dpnc_hls_emit::mathlib`), the
//! Verilog backend lowers it to float cells and wires (`dpnc_rtl::datapath`). Results are
//! therefore identical on every backend by construction, and within a few ULP of glibc
//! (tests/mathlib_ulp.rs measures it).
//!
//! Algorithms (textbook, re-derived here; no tables):
//! * `exp(x)`: k = round(x/ln2) by the 1.5·2^52 shifter, r = x − k·ln2 with ln2 split in a
//!   33-bit head (k·head and the subtraction are exact) and a tail; exp(r) = 1 + r + r²·P(r)
//!   with P the Taylor polynomial to degree 13 (truncation < 0.05 ULP on |r| ≤ ln2/2), summed
//!   with error-free transformations so that only the final rounding matters; scaling by 2^k
//!   as two exact powers of two, so that overflow gives +inf and underflow rounds once into the
//!   subnormals.
//! * `pow(x, y)`: C99 Annex F special cases by selects; otherwise ln|x| in double-double
//!   (|x| = 2^e·m, m ∈ [√½, √2], ln m = 2·atanh(s), s = (m−1)/(m+1), the series to s^25 with
//!   the leading terms in double-double; TwoSum, Fast2Sum and Dekker's product with Veltkamp
//!   splitting, no FMA), y·ln|x| in double-double, then the exp above on a double-double
//!   argument.
//! * `expf`, `powf`: the binary64 program on the widened operands, rounded once to binary32.
//!
//! Every NaN result is the constant quiet NaN (`0x7ff8…`, `0x7fc0…`), never an operand's
//! propagated payload, because NaN propagation differs between x86, CUDA and the cells.

use std::sync::OnceLock;

/// The type of a program value (all are carried as bits in a `u64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    F64,
    F32,
    /// A 64-bit integer (two's complement when signed) or a binary64 encoding.
    U64,
    Bool,
}

/// A value: the index of the operation that defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V(pub usize);

/// One operation. Float arithmetic and comparisons are binary64; integer ones are on 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// The k-th argument.
    Arg(usize),
    /// A constant, as bits.
    Const(u64),
    Add(V, V),
    Sub(V, V),
    Mul(V, V),
    Div(V, V),
    /// IEEE comparisons (false when an operand is NaN).
    Lt(V, V),
    Eq(V, V),
    /// `c ? a : b`, any type.
    Select(V, V, V),
    And(V, V),
    Or(V, V),
    Xor(V, V),
    Not(V),
    /// A binary64 as its encoding, and back (free: the same bits).
    Bits(V),
    Float(V),
    IAdd(V, V),
    ISub(V, V),
    IAnd(V, V),
    IOr(V, V),
    /// Logical shifts by a constant.
    Shl(V, u32),
    Shr(V, u32),
    /// Bit `n` of an integer.
    Bit(V, u32),
    /// Signed comparison.
    ILt(V, V),
    /// binary32 → binary64 (exact), binary64 → binary32 (rounded to nearest even).
    Widen(V),
    Narrow(V),
}

/// A straight-line function of its arguments.
#[derive(Clone, Debug)]
pub struct Program {
    pub name: &'static str,
    pub args: Vec<Ty>,
    /// Operations in order, each with its result type; operands always come earlier.
    pub ops: Vec<(Op, Ty)>,
    pub result: V,
}

impl Program {
    /// The result (as bits) for `args` (as bits).
    pub fn eval(&self, args: &[u64]) -> u64 {
        let mut v: Vec<u64> = Vec::with_capacity(self.ops.len());
        for &(op, _) in &self.ops {
            let x = match op {
                Op::Arg(k) => args[k],
                _ => apply(op, &v),
            };
            v.push(x);
        }
        v[self.result.0]
    }

    /// The result type.
    pub fn ty(&self) -> Ty {
        self.ops[self.result.0].1
    }
}

fn f(x: u64) -> f64 {
    f64::from_bits(x)
}

/// The value of `op` (not `Arg`) given the values `v` of every earlier operation.
pub fn apply(op: Op, v: &[u64]) -> u64 {
    let g = |a: V| v[a.0];
    let b = |x: bool| x as u64;
    match op {
        Op::Arg(_) => unreachable!("arguments are supplied by the caller"),
        Op::Const(c) => c,
        Op::Add(x, y) => (f(g(x)) + f(g(y))).to_bits(),
        Op::Sub(x, y) => (f(g(x)) - f(g(y))).to_bits(),
        Op::Mul(x, y) => (f(g(x)) * f(g(y))).to_bits(),
        Op::Div(x, y) => (f(g(x)) / f(g(y))).to_bits(),
        Op::Lt(x, y) => b(f(g(x)) < f(g(y))),
        Op::Eq(x, y) => b(f(g(x)) == f(g(y))),
        Op::Select(c, x, y) => {
            if g(c) != 0 {
                g(x)
            } else {
                g(y)
            }
        }
        Op::And(x, y) => g(x) & g(y),
        Op::Or(x, y) => g(x) | g(y),
        Op::Xor(x, y) => g(x) ^ g(y),
        Op::Not(x) => g(x) ^ 1,
        Op::Bits(x) | Op::Float(x) => g(x),
        Op::IAdd(x, y) => g(x).wrapping_add(g(y)),
        Op::ISub(x, y) => g(x).wrapping_sub(g(y)),
        Op::IAnd(x, y) => g(x) & g(y),
        Op::IOr(x, y) => g(x) | g(y),
        Op::Shl(x, n) => g(x) << n,
        Op::Shr(x, n) => g(x) >> n,
        Op::Bit(x, n) => (g(x) >> n) & 1,
        Op::ILt(x, y) => b((g(x) as i64) < (g(y) as i64)),
        Op::Widen(x) => (f32::from_bits(g(x) as u32) as f64).to_bits(),
        Op::Narrow(x) => (f(g(x)) as f32).to_bits() as u64,
    }
}

impl Op {
    /// The same operation on operands `f(a)` (constants and arguments unchanged).
    pub fn map(self, mut f: impl FnMut(V) -> V) -> Op {
        match self {
            Op::Arg(_) | Op::Const(_) => self,
            Op::Add(a, b) => Op::Add(f(a), f(b)),
            Op::Sub(a, b) => Op::Sub(f(a), f(b)),
            Op::Mul(a, b) => Op::Mul(f(a), f(b)),
            Op::Div(a, b) => Op::Div(f(a), f(b)),
            Op::Lt(a, b) => Op::Lt(f(a), f(b)),
            Op::Eq(a, b) => Op::Eq(f(a), f(b)),
            Op::Select(c, a, b) => Op::Select(f(c), f(a), f(b)),
            Op::And(a, b) => Op::And(f(a), f(b)),
            Op::Or(a, b) => Op::Or(f(a), f(b)),
            Op::Xor(a, b) => Op::Xor(f(a), f(b)),
            Op::Not(a) => Op::Not(f(a)),
            Op::Bits(a) => Op::Bits(f(a)),
            Op::Float(a) => Op::Float(f(a)),
            Op::IAdd(a, b) => Op::IAdd(f(a), f(b)),
            Op::ISub(a, b) => Op::ISub(f(a), f(b)),
            Op::IAnd(a, b) => Op::IAnd(f(a), f(b)),
            Op::IOr(a, b) => Op::IOr(f(a), f(b)),
            Op::Shl(a, n) => Op::Shl(f(a), n),
            Op::Shr(a, n) => Op::Shr(f(a), n),
            Op::Bit(a, n) => Op::Bit(f(a), n),
            Op::ILt(a, b) => Op::ILt(f(a), f(b)),
            Op::Widen(a) => Op::Widen(f(a)),
            Op::Narrow(a) => Op::Narrow(f(a)),
        }
    }
}

/// The operands of `op`, in order.
pub fn operands(op: Op) -> Vec<V> {
    let mut v = Vec::new();
    op.map(|a| {
        v.push(a);
        a
    });
    v
}

// ---------------------------------------------------------------- building programs

/// Records operations; operations on constants only are folded (with [`apply`]), identical
/// operations are recorded once.
struct B {
    ops: Vec<(Op, Ty)>,
    seen: std::collections::HashMap<(Op, Ty), V>,
}

type DD = (V, V);

const SIGN: u64 = 1 << 63;
const ABS: u64 = !SIGN;
const FRAC: u64 = (1 << 52) - 1;
/// 1.5·2^52: adding it rounds a double of magnitude < 2^51 to an integer, which then sits in
/// the low bits of the encoding.
const SHIFTER: f64 = 6755399441055744.0;
/// ln 2 as a double-double (the leading double and the rounded remainder; checked against a
/// fixed-point series in the tests).
const LN2_HI_BITS: u64 = 0x3fe6_2e42_fefa_39ef;
const LN2_LO_BITS: u64 = 0x3c7a_bc9e_3b39_803f;
/// ln 2 = head + tail, the head with 33 significant bits so that k·head is exact for |k| < 2^20.
fn ln2_head_tail() -> (f64, f64) {
    let head = f64::from_bits(LN2_HI_BITS & !((1 << 20) - 1));
    (head, (f64::from_bits(LN2_HI_BITS) - head) + f64::from_bits(LN2_LO_BITS))
}
/// |argument| beyond which exp overflows or underflows whatever the rest (e^1400 ≫ max).
const EXP_CLAMP: f64 = 1400.0;

impl B {
    fn new(args: &[Ty]) -> B {
        let mut b = B { ops: Vec::new(), seen: Default::default() };
        for (k, &t) in args.iter().enumerate() {
            b.ops.push((Op::Arg(k), t));
        }
        b
    }
    fn push(&mut self, op: Op, t: Ty) -> V {
        if let Some(&v) = self.seen.get(&(op, t)) {
            return v;
        }
        let args = operands(op);
        let konst = |v: V| matches!(self.ops[v.0].0, Op::Const(_));
        let op = if !args.is_empty() && args.iter().all(|&a| konst(a)) {
            let vals: Vec<u64> = self.ops.iter().map(|(o, _)| if let Op::Const(c) = o { *c } else { 0 }).collect();
            Op::Const(apply(op, &vals))
        } else if let Op::Select(_, a, b) = op {
            if a == b {
                return a;
            }
            op
        } else {
            op
        };
        if let Some(&v) = self.seen.get(&(op, t)) {
            return v;
        }
        self.ops.push((op, t));
        let v = V(self.ops.len() - 1);
        self.seen.insert((op, t), v);
        v
    }
    /// The program, without the operations the result does not depend on (arguments stay).
    fn finish(self, name: &'static str, args: Vec<Ty>, result: V) -> Program {
        let mut live = vec![false; self.ops.len()];
        live[result.0] = true;
        for k in (0..self.ops.len()).rev() {
            if live[k] {
                for a in operands(self.ops[k].0) {
                    live[a.0] = true;
                }
            }
        }
        let mut index = vec![0; self.ops.len()];
        let mut ops = Vec::new();
        for (k, &(op, t)) in self.ops.iter().enumerate() {
            if !live[k] && !matches!(op, Op::Arg(_)) {
                continue;
            }
            let op = op.map(|a| V(index[a.0]));
            index[k] = ops.len();
            ops.push((op, t));
        }
        Program { name, args, ops, result: V(index[result.0]) }
    }

    fn c(&mut self, x: f64) -> V {
        self.push(Op::Const(x.to_bits()), Ty::F64)
    }
    fn ci(&mut self, x: u64) -> V {
        self.push(Op::Const(x), Ty::U64)
    }
    fn add(&mut self, a: V, b: V) -> V {
        self.push(Op::Add(a, b), Ty::F64)
    }
    fn sub(&mut self, a: V, b: V) -> V {
        self.push(Op::Sub(a, b), Ty::F64)
    }
    fn mul(&mut self, a: V, b: V) -> V {
        self.push(Op::Mul(a, b), Ty::F64)
    }
    fn div(&mut self, a: V, b: V) -> V {
        self.push(Op::Div(a, b), Ty::F64)
    }
    fn lt(&mut self, a: V, b: V) -> V {
        self.push(Op::Lt(a, b), Ty::Bool)
    }
    fn eq(&mut self, a: V, b: V) -> V {
        self.push(Op::Eq(a, b), Ty::Bool)
    }
    fn sel(&mut self, c: V, a: V, b: V) -> V {
        let t = self.ops[a.0].1;
        self.push(Op::Select(c, a, b), t)
    }
    fn and(&mut self, a: V, b: V) -> V {
        self.push(Op::And(a, b), Ty::Bool)
    }
    fn or(&mut self, a: V, b: V) -> V {
        self.push(Op::Or(a, b), Ty::Bool)
    }
    fn xor(&mut self, a: V, b: V) -> V {
        self.push(Op::Xor(a, b), Ty::Bool)
    }
    fn not(&mut self, a: V) -> V {
        self.push(Op::Not(a), Ty::Bool)
    }
    fn bits(&mut self, a: V) -> V {
        self.push(Op::Bits(a), Ty::U64)
    }
    fn float(&mut self, a: V) -> V {
        self.push(Op::Float(a), Ty::F64)
    }
    fn iadd(&mut self, a: V, b: V) -> V {
        self.push(Op::IAdd(a, b), Ty::U64)
    }
    fn isub(&mut self, a: V, b: V) -> V {
        self.push(Op::ISub(a, b), Ty::U64)
    }
    fn iand(&mut self, a: V, b: V) -> V {
        self.push(Op::IAnd(a, b), Ty::U64)
    }
    fn ior(&mut self, a: V, b: V) -> V {
        self.push(Op::IOr(a, b), Ty::U64)
    }
    fn shl(&mut self, a: V, n: u32) -> V {
        self.push(Op::Shl(a, n), Ty::U64)
    }
    fn shr(&mut self, a: V, n: u32) -> V {
        self.push(Op::Shr(a, n), Ty::U64)
    }
    fn bit(&mut self, a: V, n: u32) -> V {
        self.push(Op::Bit(a, n), Ty::Bool)
    }
    fn ilt(&mut self, a: V, b: V) -> V {
        self.push(Op::ILt(a, b), Ty::Bool)
    }

    /// |a| (clears the sign bit).
    fn fabs(&mut self, a: V) -> V {
        let (x, m) = (self.bits(a), self.ci(ABS));
        let y = self.iand(x, m);
        self.float(y)
    }
    /// a + b = s + e exactly, any magnitudes (Knuth's TwoSum).
    fn two_sum(&mut self, a: V, b: V) -> DD {
        let s = self.add(a, b);
        let bb = self.sub(s, a);
        let ab = self.sub(s, bb);
        let db = self.sub(b, bb);
        let da = self.sub(a, ab);
        let e = self.add(da, db);
        (s, e)
    }
    /// a + b = s + e exactly when a = 0 or exponent(a) ≥ exponent(b) (Dekker's Fast2Sum).
    fn fast_two_sum(&mut self, a: V, b: V) -> DD {
        let s = self.add(a, b);
        let z = self.sub(s, a);
        let e = self.sub(b, z);
        (s, e)
    }
    /// Veltkamp's splitting: a = hi + lo, each with at most 26 significant bits (|a| < 2^995).
    fn split(&mut self, a: V) -> DD {
        let k = self.c(134217729.0); // 2^27 + 1
        let c = self.mul(k, a);
        let t = self.sub(c, a);
        let hi = self.sub(c, t);
        let lo = self.sub(a, hi);
        (hi, lo)
    }
    /// a·b = p + e exactly (Dekker's product, no FMA).
    fn two_prod(&mut self, a: V, b: V) -> DD {
        let p = self.mul(a, b);
        let (ah, al) = self.split(a);
        let (bh, bl) = self.split(b);
        let hh = self.mul(ah, bh);
        let hl = self.mul(ah, bl);
        let lh = self.mul(al, bh);
        let ll = self.mul(al, bl);
        let t1 = self.sub(hh, p);
        let t2 = self.add(t1, hl);
        let t3 = self.add(t2, lh);
        let e = self.add(t3, ll);
        (p, e)
    }
    /// Double-double times double.
    fn dd_mul_d(&mut self, a: DD, b: V) -> DD {
        let (p, e) = self.two_prod(a.0, b);
        let t = self.mul(a.1, b);
        let e = self.add(e, t);
        self.fast_two_sum(p, e)
    }
    /// Double-double times double-double (the low·low product is dropped).
    fn dd_mul(&mut self, a: DD, b: DD) -> DD {
        let (p, e) = self.two_prod(a.0, b.0);
        let t1 = self.mul(a.0, b.1);
        let t2 = self.mul(a.1, b.0);
        let t = self.add(t1, t2);
        let e = self.add(e, t);
        self.fast_two_sum(p, e)
    }
    /// Double-double sum; accurate when the operands do not cancel (the uses here: same
    /// signs, or the first at least twice the second).
    fn dd_add(&mut self, a: DD, b: DD) -> DD {
        let (s, e) = self.two_sum(a.0, b.0);
        let l = self.add(a.1, b.1);
        let e = self.add(e, l);
        self.fast_two_sum(s, e)
    }
    /// A double-double constant.
    fn cdd(&mut self, hi: f64, lo: f64) -> DD {
        (self.c(hi), self.c(lo))
    }
    /// A double-double constant n/d, for small integers n and d.
    fn cdd_ratio(&mut self, n: f64, d: f64) -> DD {
        let hi = n / d;
        // n − d·hi exactly (d·hi = p + e by Dekker's product, n − p exact by Sterbenz).
        let (p, e) = two_prod_f(d, hi);
        let lo = ((n - p) - e) / d;
        self.cdd(hi, lo)
    }

    /// e^(h + l) for a double-double (h, l) with |l| ≤ ulp(h): NaN for NaN h, +inf above the
    /// range, rounded once into the subnormals or to +0 below it.
    fn exp_dd(&mut self, h: V, l: V) -> V {
        let (head, tail) = ln2_head_tail();
        let (cmax, cmin) = (self.c(EXP_CLAMP), self.c(-EXP_CLAMP));
        let ah = self.fabs(h);
        let big = self.lt(cmax, ah);
        let over = self.lt(cmax, h);
        let under = self.lt(h, cmin);
        let h1 = self.sel(under, cmin, h);
        let h = self.sel(over, cmax, h1);
        let zero = self.c(0.0);
        let l = self.sel(big, zero, l);
        // k = round(h / ln 2), as a double and as bits (the shifter puts it in the low bits).
        let (inv, sh) = (self.c(1.0 / f64::from_bits(LN2_HI_BITS)), self.c(SHIFTER));
        let hk = self.mul(h, inv);
        let t = self.add(hk, sh);
        let kd = self.sub(t, sh);
        let (head, tail) = (self.c(head), self.c(tail));
        let kh = self.mul(kd, head);
        let hi = self.sub(h, kh); // exact
        let kt = self.mul(kd, tail);
        let lo = self.sub(l, kt);
        // e^(hi + lo) = 1 + r + r²·P(r), r = hi + lo.
        let r = self.add(hi, lo);
        let mut fact = 1.0f64;
        let mut coef = Vec::new();
        for n in 1..=13u32 {
            fact *= n as f64; // exact: 13! < 2^53
            if n >= 2 {
                coef.push(1.0 / fact);
            }
        }
        let mut p = self.c(coef[coef.len() - 1]);
        for &c in coef.iter().rev().skip(1) {
            let t = self.mul(p, r);
            let c = self.c(c);
            p = self.add(c, t);
        }
        let r2 = self.mul(r, r);
        let q = self.mul(r2, p);
        let ql = self.add(q, lo);
        let (s, es) = self.two_sum(hi, ql);
        let one = self.c(1.0);
        let (u, eu) = self.fast_two_sum(one, s);
        let e = self.add(eu, es);
        let m = self.add(u, e);
        // m·2^k as (m·2^k1)·2^k2, k1 = floor(k/2), k2 = k − k1: the first product is exact,
        // the second rounds once (to +inf, a subnormal or 0 out of range).
        let tb = self.bits(t);
        let off = self.ci(SHIFTER.to_bits().wrapping_sub(2048));
        let kb = self.isub(tb, off); // k + 2048 > 0
        let k1b = self.shr(kb, 1); // k1 + 1024
        let one_i = self.ci(1);
        let e1 = self.isub(k1b, one_i); // k1 + 1023
        let k2 = self.isub(kb, k1b);
        let e2 = self.isub(k2, one_i); // k2 + 1023
        let s1 = self.shl(e1, 52);
        let s2 = self.shl(e2, 52);
        let (s1, s2) = (self.float(s1), self.float(s2));
        let m1 = self.mul(m, s1);
        self.mul(m1, s2)
    }

    /// ln|x| as a double-double for finite nonzero x (garbage otherwise).
    fn ln_abs(&mut self, x: V) -> DD {
        let ax = self.fabs(x);
        // Subnormals: scale by 2^64 first.
        let tiny = self.c(f64::MIN_POSITIVE);
        let sub = self.lt(ax, tiny);
        let scale = self.c(18446744073709551616.0);
        let axs = self.mul(ax, scale);
        let ax = self.sel(sub, axs, ax);
        let bx = self.bits(ax);
        let ebias = self.shr(bx, 52);
        let fm = self.ci(FRAC);
        let frac = self.iand(bx, fm);
        // m ∈ [√½, √2]: halve the mantissa when it is above √2.
        let sqrt2_frac = self.ci(std::f64::consts::SQRT_2.to_bits() & FRAC);
        let halve = self.ilt(sqrt2_frac, frac);
        let (e_lo, e_hi) = (self.ci(1022 << 52), self.ci(1023 << 52));
        let mexp = self.sel(halve, e_lo, e_hi);
        let mb = self.ior(frac, mexp);
        let m = self.float(mb);
        // e = ebias − 1023 (− 64) (+ 1), as a double through the shifter.
        let shb = SHIFTER.to_bits();
        let (a0, a1) = (self.ci(shb.wrapping_sub(1023)), self.ci(shb.wrapping_sub(1023 + 64)));
        let adj = self.sel(sub, a1, a0);
        let eb = self.iadd(ebias, adj);
        let one_i = self.ci(1);
        let eb1 = self.iadd(eb, one_i);
        let eb = self.sel(halve, eb1, eb);
        let ef = self.float(eb);
        let sh = self.c(SHIFTER);
        let e = self.sub(ef, sh);
        // s = (m − 1)/(m + 1) as a double-double.
        let one = self.c(1.0);
        let num = self.sub(m, one); // exact (Sterbenz)
        let (dh, dl) = self.fast_two_sum(one, m);
        let inv = self.div(one, dh);
        let sh_ = self.mul(num, inv);
        let (ph, pl) = self.two_prod(sh_, dh);
        let r1 = self.sub(num, ph); // exact
        let r2 = self.sub(r1, pl);
        let sdl = self.mul(sh_, dl);
        let r3 = self.sub(r2, sdl);
        let sl = self.mul(r3, inv);
        let s = self.fast_two_sum(sh_, sl);
        // ln m = 2s + s³·R(s²), R(z) = Σ_{n=1..12} 2/(2n+1)·z^(n−1) = 2/3 + z·(2/5 + z·R2(z)).
        let z = self.mul(s.0, s.0);
        let mut r = self.c(2.0 / 25.0);
        for n in (3..=11u32).rev() {
            let t = self.mul(r, z);
            let c = self.c(2.0 / (2 * n + 1) as f64);
            r = self.add(c, t);
        }
        let zr = self.mul(z, r);
        let c5 = self.c(2.0 / 5.0);
        let b = self.add(c5, zr);
        let (zh, zl) = self.two_prod(s.0, s.0);
        let two_sl = self.add(s.1, s.1);
        let zc = self.mul(s.0, two_sl);
        let zl = self.add(zl, zc);
        let zdd = self.fast_two_sum(zh, zl);
        let zb = self.dd_mul_d(zdd, b);
        let c3 = self.cdd_ratio(2.0, 3.0);
        let rr = self.dd_add(c3, zb);
        let w = self.dd_mul(zdd, rr);
        let v = self.dd_mul(s, w);
        let s2 = (self.add(s.0, s.0), self.add(s.1, s.1));
        let lnm = self.dd_add(s2, v);
        // ln|x| = e·ln2 + ln m; e·head is exact (|e| < 2^11).
        let (head, tail) = ln2_head_tail();
        let (head, tail) = (self.c(head), self.c(tail));
        let eh = self.mul(e, head);
        let et = self.mul(e, tail);
        let (gh, g1) = self.fast_two_sum(eh, lnm.0);
        let lt = self.add(lnm.1, et);
        let gl = self.add(g1, lt);
        self.fast_two_sum(gh, gl)
    }

    /// pow on binary64 values.
    fn pow(&mut self, x: V, y: V) -> V {
        let ax = self.fabs(x);
        let ay = self.fabs(y);
        let g = self.ln_abs(x);
        // Y = y·ln|x| in double-double; for |y| ≥ 2^900 (splitting would overflow) the low part
        // is dropped: |Y| is then far out of exp's range anyway.
        let p = self.mul(y, g.0);
        let huge_c = self.c(2f64.powi(900));
        let huge = self.lt(huge_c, ay);
        let zero = self.c(0.0);
        let ys = self.sel(huge, zero, y);
        let (_, e) = self.two_prod(ys, g.0);
        let yl = self.mul(ys, g.1);
        let e = self.add(e, yl);
        let (yh, yl) = self.fast_two_sum(p, e);
        let mag = self.exp_dd(yh, yl);
        // Is y an integer, an odd one? (ay + 2^52 rounds ay to an integer below 2^52.)
        let t52 = self.c(4503599627370496.0);
        let t53 = self.c(9007199254740992.0);
        let small = self.lt(ay, t52);
        let t = self.add(ay, t52);
        let ti = self.sub(t, t52);
        let int_small = self.eq(ti, ay);
        let tb = self.bits(t);
        let lsb_t = self.bit(tb, 0);
        let odd_small = self.and(int_small, lsb_t);
        let below53 = self.lt(ay, t53);
        let ayb = self.bits(ay);
        let lsb_y = self.bit(ayb, 0);
        let odd_big = self.and(below53, lsb_y);
        let big_y = self.not(small);
        let yint = self.or(big_y, int_small);
        let yodd = self.sel(small, odd_small, odd_big);
        // Sign of the result: negative x to an odd integer power.
        let xb = self.bits(x);
        let xneg = self.bit(xb, 63);
        let negres = self.and(xneg, yodd);
        let (sg, nz) = (self.ci(SIGN), self.ci(0));
        let sgn = self.sel(negres, sg, nz);
        let with_sign = |b: &mut B, v: V| {
            let vb = b.bits(v);
            let r = b.ior(vb, sgn);
            b.float(r)
        };
        let general = with_sign(self, mag);
        let nan = self.c(f64::NAN);
        let inf = self.c(f64::INFINITY);
        let one = self.c(1.0);
        // x = ±0 or ±inf: +inf when (x = 0) = (y < 0), else 0; signed as above.
        let xzero = self.eq(ax, zero);
        let xinf = self.eq(ax, inf);
        let ylt0 = self.lt(y, zero);
        let zi_zero = self.xor(xzero, ylt0);
        let zi_mag = self.sel(zi_zero, zero, inf);
        let zi = with_sign(self, zi_mag);
        // y = ±inf: 1 for |x| = 1, +inf when (|x| < 1) = (y < 0), else +0.
        let xlt1 = self.lt(ax, one);
        let yi_zero = self.xor(xlt1, ylt0);
        let yi1 = self.sel(yi_zero, zero, inf);
        let xabs1 = self.eq(ax, one);
        let yi = self.sel(xabs1, one, yi1);
        let yinf = self.eq(ay, inf);
        // Finite negative x to a non-integer power: NaN.
        let nonint = self.not(yint);
        let bad = self.and(xneg, nonint);
        let r1 = self.sel(bad, nan, general);
        let zinf = self.or(xzero, xinf);
        let r2 = self.sel(zinf, zi, r1);
        let r3 = self.sel(yinf, yi, r2);
        let xnum = self.eq(x, x);
        let ynum = self.eq(y, y);
        let nums = self.and(xnum, ynum);
        let r4 = self.sel(nums, r3, nan);
        let xone = self.eq(x, one);
        let yzero = self.eq(y, zero);
        let unit = self.or(xone, yzero);
        self.sel(unit, one, r4)
    }

    fn exp(&mut self, x: V) -> V {
        let zero = self.c(0.0);
        let r = self.exp_dd(x, zero);
        let num = self.eq(x, x);
        let nan = self.c(f64::NAN);
        self.sel(num, r, nan)
    }

    /// binary64 → binary32 with the constant quiet NaN for NaN.
    fn narrow(&mut self, r: V) -> V {
        let n = self.push(Op::Narrow(r), Ty::F32);
        let num = self.eq(r, r);
        let nan = self.push(Op::Const(f32::NAN.to_bits() as u64), Ty::F32);
        self.sel(num, n, nan)
    }
}

/// Dekker's product on plain doubles (for constants).
fn two_prod_f(a: f64, b: f64) -> (f64, f64) {
    let split = |x: f64| {
        let c = 134217729.0 * x;
        let hi = c - (c - x);
        (hi, x - hi)
    };
    let p = a * b;
    let ((ah, al), (bh, bl)) = (split(a), split(b));
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

/// Operands every test of these functions takes (alone and in all pairs): zeros, units,
/// subnormals, extremes, infinities, NaN, the overflow and underflow thresholds of exp and
/// expf, integers around 2^52 (pow's odd-integer test), values next to 1.
pub const EDGE_OPERANDS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    3.0,
    -3.0,
    0.1,
    10.0,
    1e-310,
    -1e-310,
    5e-324,
    f64::MIN_POSITIVE,
    f64::MAX,
    -f64::MAX,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    709.782712893384,
    709.79,
    -745.1332191019411,
    -745.14,
    -708.4,
    -720.0,
    1e-20,
    -1e-20,
    1.0000000000000002,
    0.9999999999999999,
    4503599627370496.0,
    4503599627370497.0,
    9007199254740992.0,
    1e300,
    -1e300,
    1e-40,
    709.78,
    -745.1,
    88.7,
    -103.9,
];

/// The `k`-th random operand of a test of these functions: raw bits, a value across exp's
/// range, a small one, a small integer (pow's sign rules), one near 1, or an edge operand.
pub fn test_operand(r: &mut crate::store::Rng, k: usize) -> f64 {
    let u = r.unit();
    match k % 6 {
        0 => f64::from_bits(r.next()),
        1 => (u - 0.5) * 1500.0,
        2 => (u - 0.5) * 20.0,
        3 => ((u - 0.5) * 60.0).round(),
        4 => u * 4.0,
        _ => EDGE_OPERANDS[(r.next() % EDGE_OPERANDS.len() as u64) as usize],
    }
}

/// Which of dpnc's math functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fn {
    Exp,
    Pow,
    Expf,
    Powf,
}

impl Fn {
    pub const ALL: [Fn; 4] = [Fn::Exp, Fn::Pow, Fn::Expf, Fn::Powf];

    /// dpnc's own definition of C function `f`, where it has one (the others map to one
    /// operation of their own).
    pub fn of(f: crate::ir::MathFn) -> Option<Fn> {
        use crate::ir::MathFn;
        match f {
            MathFn::Exp => Some(Fn::Exp),
            MathFn::Pow => Some(Fn::Pow),
            MathFn::Expf => Some(Fn::Expf),
            MathFn::Powf => Some(Fn::Powf),
            _ => None,
        }
    }
}

fn build(f: Fn) -> Program {
    let (name, args) = match f {
        Fn::Exp => ("dpn_exp", vec![Ty::F64]),
        Fn::Pow => ("dpn_pow", vec![Ty::F64, Ty::F64]),
        Fn::Expf => ("dpn_expf", vec![Ty::F32]),
        Fn::Powf => ("dpn_powf", vec![Ty::F32, Ty::F32]),
    };
    let mut b = B::new(&args);
    let r = match f {
        Fn::Exp => b.exp(V(0)),
        Fn::Pow => b.pow(V(0), V(1)),
        Fn::Expf => {
            let x = b.push(Op::Widen(V(0)), Ty::F64);
            let r = b.exp(x);
            b.narrow(r)
        }
        Fn::Powf => {
            let x = b.push(Op::Widen(V(0)), Ty::F64);
            let y = b.push(Op::Widen(V(1)), Ty::F64);
            let r = b.pow(x, y);
            b.narrow(r)
        }
    };
    b.finish(name, args, r)
}

/// The program of `f` (built once).
pub fn program(f: Fn) -> &'static Program {
    static P: OnceLock<[Program; 4]> = OnceLock::new();
    let all = P.get_or_init(|| Fn::ALL.map(build));
    &all[f as usize]
}

/// dpnc's `exp`.
pub fn exp(x: f64) -> f64 {
    f64::from_bits(program(Fn::Exp).eval(&[x.to_bits()]))
}
/// dpnc's `pow`.
pub fn pow(x: f64, y: f64) -> f64 {
    f64::from_bits(program(Fn::Pow).eval(&[x.to_bits(), y.to_bits()]))
}
/// dpnc's `expf`.
pub fn expf(x: f32) -> f32 {
    f32::from_bits(program(Fn::Expf).eval(&[x.to_bits() as u64]) as u32)
}
/// dpnc's `powf`.
pub fn powf(x: f32, y: f32) -> f32 {
    f32::from_bits(program(Fn::Powf).eval(&[x.to_bits() as u64, y.to_bits() as u64]) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ln 2 to 120 bits in fixed point, Σ 1/(k·2^k), against the double-double constant.
    #[test]
    fn ln2_constant_is_ln2() {
        let one: u128 = 1 << 124;
        let mut sum: u128 = 0;
        for k in 1..124u32 {
            sum += (one >> k) / k as u128;
        }
        let hi = f64::from_bits(LN2_HI_BITS);
        let lo = f64::from_bits(LN2_LO_BITS);
        // hi has 53 bits at weights 2^-1..2^-53; lo is about 2^-55 in magnitude.
        let hi_fx = (hi * 2f64.powi(53)) as u128 * (one >> 53);
        let lo_fx = (lo * 2f64.powi(124)) as i128;
        let got = hi_fx as i128 + lo_fx;
        assert!((got - sum as i128).abs() < 1 << 20, "{got} vs {sum}");
    }

    #[test]
    fn special_values() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(1000.0), f64::INFINITY);
        assert_eq!(exp(-1000.0), 0.0);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(pow(2.0, 10.0), 1024.0);
        assert_eq!(pow(-2.0, 3.0), -8.0);
        assert!(pow(-8.0, 1.0 / 3.0).is_nan());
        assert_eq!(pow(f64::NAN, 0.0), 1.0);
        assert_eq!(pow(1.0, f64::NAN), 1.0);
        assert_eq!(pow(-1.0, f64::INFINITY), 1.0);
        assert_eq!(pow(-0.0, -3.0), f64::NEG_INFINITY);
        assert_eq!(pow(-0.0, 3.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(pow(0.5, f64::NEG_INFINITY), f64::INFINITY);
        assert_eq!(pow(f64::NEG_INFINITY, -3.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(expf(0.0), 1.0);
        assert_eq!(powf(3.0, 2.0), 9.0);
    }
}
