//! dpnc's exp/pow/expf/powf (src/mathlib.rs) against glibc: the largest difference in ULP and
//! the fraction of operands on which the bits differ, over edge cases and 200,000 random
//! operands per function (`DPNC_MATH_OPS=1000000` for the README's figures). Special values (NaN,
//! infinities, zeros) must agree exactly (any NaN matches any NaN); finite results within the
//! bounds asserted below.

use dpnc_frontend::mathlib;
use dpnc_frontend::store::Rng;

mod libm {
    extern "C" {
        pub fn exp(x: f64) -> f64;
        pub fn pow(x: f64, y: f64) -> f64;
        pub fn expf(x: f32) -> f32;
        pub fn powf(x: f32, y: f32) -> f32;
    }
}

fn ops() -> usize {
    std::env::var("DPNC_MATH_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(200_000)
}

/// Uniform in [lo, hi).
fn range(r: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * r.unit()
}

/// Distance in ULP between two doubles of the same sign (or zero), through the ordered encoding.
fn ulp64(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let b = x.to_bits() as i64;
        if b < 0 {
            i64::MIN - b
        } else {
            b
        }
    };
    (key(a) as i128 - key(b) as i128).unsigned_abs() as u64
}
fn ulp32(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let b = x.to_bits() as i32;
        if b < 0 {
            i32::MIN as i64 - b as i64
        } else {
            b as i64
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

#[derive(Default)]
struct Stats {
    n: u64,
    differ: u64,
    max: u64,
    worst: String,
}

impl Stats {
    fn add(&mut self, ulps: Option<u64>, what: impl FnOnce() -> String) {
        self.n += 1;
        let u = ulps.unwrap_or(u64::MAX);
        if u > 0 {
            self.differ += 1;
        }
        if u > self.max {
            self.max = u;
            self.worst = what();
        }
    }
    fn report(&self, name: &str) -> String {
        format!(
            "{name}: {} operands, max {} ULP, {:.4}% differ from glibc{}",
            self.n,
            self.max,
            100.0 * self.differ as f64 / self.n as f64,
            if self.max > 0 { format!(" (worst: {})", self.worst) } else { String::new() }
        )
    }
}

fn cmp64(a: f64, b: f64) -> Option<u64> {
    if a.is_nan() || b.is_nan() {
        return (a.is_nan() && b.is_nan()).then_some(0);
    }
    if a.is_infinite() || b.is_infinite() || a == 0.0 || b == 0.0 || a.is_sign_negative() != b.is_sign_negative() {
        return (a.to_bits() == b.to_bits()).then_some(0).or(if a.is_finite() && b.is_finite() { Some(ulp64(a, b)) } else { None });
    }
    Some(ulp64(a, b))
}
fn cmp32(a: f32, b: f32) -> Option<u64> {
    if a.is_nan() || b.is_nan() {
        return (a.is_nan() && b.is_nan()).then_some(0);
    }
    if a.is_infinite() || b.is_infinite() {
        return (a.to_bits() == b.to_bits()).then_some(0);
    }
    Some(ulp32(a, b))
}

fn exp_inputs(r: &mut Rng, i: usize) -> f64 {
    match i % 4 {
        0 => range(r, -745.2, 709.8),
        1 => range(r, -5.0, 5.0),
        2 => range(r, -1e-6, 1e-6),
        _ => f64::from_bits(r.next()),
    }
}

fn pow_inputs(r: &mut Rng, i: usize) -> (f64, f64) {
    match i % 6 {
        0 => (range(r, 0.0, 10.0), range(r, -10.0, 10.0)),
        1 => (range(r, 0.0, 1e6), range(r, -50.0, 50.0)),
        2 => (range(r, 0.99, 1.01), range(r, -1e5, 1e5)),
        3 => (-range(r, 0.0, 100.0), (range(r, -40.0, 40.0)).round()),
        4 => {
            // results near the overflow and underflow thresholds
            let x = range(r, 1.5, 100.0);
            (x, range(r, -1080.0, 1030.0) / x.log2())
        }
        _ => (f64::from_bits(r.next()), f64::from_bits(r.next() >> (r.next() % 12))),
    }
}

#[test]
fn exp_and_pow_are_close_to_glibc() {
    let n = ops();
    let mut out = Vec::new();
    let mut r = Rng(1);
    let (mut se, mut sp, mut sef, mut spf) = (Stats::default(), Stats::default(), Stats::default(), Stats::default());
    // SAFETY: plain C math functions on scalars.
    let g = |f: unsafe extern "C" fn(f64) -> f64, x: f64| unsafe { f(x) };
    let g2 = |f: unsafe extern "C" fn(f64, f64) -> f64, x: f64, y: f64| unsafe { f(x, y) };
    let gf = |f: unsafe extern "C" fn(f32) -> f32, x: f32| unsafe { f(x) };
    let gf2 = |f: unsafe extern "C" fn(f32, f32) -> f32, x: f32, y: f32| unsafe { f(x, y) };
    let exp_case = |x: f64, se: &mut Stats, sef: &mut Stats| {
        se.add(cmp64(mathlib::exp(x), g(libm::exp, x)), || format!("exp({x:e}) = {:e} vs {:e}", mathlib::exp(x), g(libm::exp, x)));
        let xf = x as f32;
        sef.add(cmp32(mathlib::expf(xf), gf(libm::expf, xf)), || {
            format!("expf({xf:e}) = {:e} vs {:e}", mathlib::expf(xf), gf(libm::expf, xf))
        });
    };
    let pow_case = |x: f64, y: f64, sp: &mut Stats, spf: &mut Stats| {
        sp.add(cmp64(mathlib::pow(x, y), g2(libm::pow, x, y)), || {
            format!("pow({x:e}, {y:e}) = {:e} vs {:e}", mathlib::pow(x, y), g2(libm::pow, x, y))
        });
        let (xf, yf) = (x as f32, y as f32);
        spf.add(cmp32(mathlib::powf(xf, yf), gf2(libm::powf, xf, yf)), || {
            format!("powf({xf:e}, {yf:e}) = {:e} vs {:e}", mathlib::powf(xf, yf), gf2(libm::powf, xf, yf))
        });
    };
    for &x in mathlib::EDGE_OPERANDS {
        exp_case(x, &mut se, &mut sef);
        for &y in mathlib::EDGE_OPERANDS {
            pow_case(x, y, &mut sp, &mut spf);
        }
    }
    for i in 0..n {
        exp_case(exp_inputs(&mut r, i), &mut se, &mut sef);
        let (x, y) = pow_inputs(&mut r, i);
        pow_case(x, y, &mut sp, &mut spf);
        // binary32 ranges: results in the float range
        if i % 2 == 0 {
            let x = range(&mut r, -103.0, 88.7);
            exp_case(x, &mut Stats::default(), &mut sef);
            let b = range(&mut r, 0.01, 50.0);
            let e = range(&mut r, -149.0, 127.0) / b.log2();
            pow_case(b, e, &mut Stats::default(), &mut spf);
        }
    }
    for (s, name) in [(&se, "exp"), (&sp, "pow"), (&sef, "expf"), (&spf, "powf")] {
        out.push(s.report(name));
    }
    for f in mathlib::Fn::ALL {
        let p = mathlib::program(f);
        println!("{}: {} operations", p.name, p.ops.len());
    }
    for l in &out {
        println!("{l}");
    }
    assert!(se.max <= 1, "{}", out[0]);
    assert!(sp.max <= 2, "{}", out[1]);
    assert!(sef.max <= 1, "{}", out[2]);
    assert!(spf.max <= 1, "{}", out[3]);
}
