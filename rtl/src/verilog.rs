//! Printing the network's integer arithmetic as Verilog: everything is `signed [63:0]`, with
//! sized signed literals, so that `verilator -Wall` sees no width mismatch.

use dpnc_dpn::ir::{Channel, Key};
use dpnc_dpn::tiling::Affine;
use dpnc_frontend::ir::Aff;
use dpnc_frontend::ir::ScalarType;
use std::fmt::Write;

/// `terms` joined by `||`; `none` when there are none.
pub fn any_of(terms: Vec<String>, none: &str) -> String {
    if terms.is_empty() {
        none.to_string()
    } else {
        terms.join(" || ")
    }
}

/// `terms` joined by `&&`; `1'b1` when there are none.
pub fn all_of(terms: Vec<String>) -> String {
    if terms.is_empty() {
        "1'b1".to_string()
    } else {
        terms.join(" && ")
    }
}

/// A signed 64-bit literal.
pub fn lit(v: i64) -> String {
    lit_w(v, 64)
}

/// A signed literal of `w` bits.
pub fn lit_w(v: i64, w: u32) -> String {
    if v < 0 {
        format!("-{w}'sd{}", v.unsigned_abs())
    } else {
        format!("{w}'sd{v}")
    }
}

/// `e · c` for a 64-bit signed `e` and a constant `c`, as shifts added and subtracted (its
/// canonical signed digits): a product by a constant in an address, which Yosys would give a
/// DSP48E2 crossed combinationally (some 2.4 ns), becomes a few carry chains.
pub fn times_const(e: &str, c: i64) -> String {
    if e == "64'sd0" || c == 0 {
        return "64'sd0".into();
    }
    let (mut n, mut k, mut terms) = (c.unsigned_abs() as i128, 0u32, Vec::new());
    while n != 0 {
        if n & 1 == 1 {
            let digit = 2 - (n & 3) as i64; // 1 or -1
            n -= digit as i128;
            terms.push((digit, k));
        }
        n >>= 1;
        k += 1;
    }
    let shifted = |k: u32| if k == 0 { e.to_string() } else { format!("({e} <<< {k})") };
    if let [(1, k)] = terms[..] {
        if c > 0 {
            return shifted(k);
        }
    }
    let mut out = String::new();
    for (digit, k) in terms.iter().rev() {
        let sign = match (out.is_empty(), (*digit > 0) == (c > 0)) {
            (true, true) => "",
            (true, false) => "-",
            (false, true) => " + ",
            (false, false) => " - ",
        };
        out += &format!("{sign}{}", shifted(*k));
    }
    format!("({out})")
}

/// `Σ coef·names + cst`.
pub fn linear(coef: &[i64], names: &[String], cst: i64) -> String {
    linear_w(coef, names, cst, 64)
}

/// `Σ coef·names + cst` with `w`-bit literals (the names are `w` bits wide too).
pub fn linear_w(coef: &[i64], names: &[String], cst: i64, w: u32) -> String {
    let mut s = String::new();
    for (a, n) in coef.iter().zip(names).filter(|(a, _)| **a != 0) {
        let sep = if s.is_empty() { "" } else { " + " };
        let _ = match *a {
            1 => write!(s, "{sep}{n}"),
            _ => write!(s, "{sep}{} * {n}", lit_w(*a, w)),
        };
    }
    match (s.is_empty(), cst) {
        (true, c) => lit_w(c, w),
        (false, 0) => format!("({s})"),
        (false, c) => format!("({s} + {})", lit_w(c, w)),
    }
}

/// Bits of a signed number holding `x`: its magnitude's, a sign bit and one of margin (at
/// most 64).
pub fn bits_for(x: i64) -> u32 {
    dpnc_dpn::loops::signed_bits(x)
}

/// Bits `lo .. lo + w` of vector `v`, a signed number sign-extended to 64 bits.
pub fn sext(v: &str, lo: u32, w: u32) -> String {
    let hi = lo + w - 1;
    match w {
        64 => format!("$signed({v}[{hi}:{lo}])"),
        _ => format!("$signed({{{{{}{{{v}[{hi}]}}}}, {v}[{hi}:{lo}]}})", 64 - w),
    }
}

pub fn affine(f: &Affine, names: &[String]) -> String {
    linear(&f.coef, names, f.cst)
}

/// A σ key entry over the statement's iterators.
pub fn key(k: &Key, names: &[String]) -> String {
    match k {
        Key::Const(c) => lit(*c),
        Key::Tile(f, s) => floor_div(&affine(f, names), *s),
        Key::Phi(f) => affine(f, names),
        Key::Iter(d, dir) => format!("({} * {})", lit(*dir), names[*d]),
    }
}

/// A subscript (C's truncating division and remainder, as the model has them).
pub fn aff(a: &Aff, iters: &[String], params: &[i64]) -> String {
    let r = |x: &Aff| aff(x, iters, params);
    match a {
        Aff::Const(c) => lit(*c),
        Aff::Iter(d) => iters[*d].clone(),
        Aff::Param(p) => lit(params[*p]),
        Aff::Add(x, y) => format!("({} + {})", r(x), r(y)),
        Aff::Sub(x, y) => format!("({} - {})", r(x), r(y)),
        Aff::Neg(x) => format!("(-{})", r(x)),
        Aff::Mul(c, x) => format!("({} * {})", lit(*c), r(x)),
        Aff::Div(x, c) => trunc_div(&r(x), *c),
        Aff::Mod(x, c) => format!("({} - {} * {})", r(x), lit(*c), trunc_div(&r(x), *c)),
        Aff::Min(x, y) => format!("smin({}, {})", r(x), r(y)),
        Aff::Max(x, y) => format!("smax({}, {})", r(x), r(y)),
    }
}

/// ⌊a / c⌋ for a constant c > 0. By a power of two it is an arithmetic shift: Yosys builds a
/// whole 64-bit divider for `/`, even by a constant.
pub fn floor_div(a: &str, c: i64) -> String {
    if c > 0 && c & (c - 1) == 0 {
        format!("(({a}) >>> {})", c.trailing_zeros())
    } else {
        format!("floord({a}, {})", lit(c))
    }
}

/// `a / c` truncated toward zero, as C divides, for a constant c > 0. Verilog's signed `/`
/// truncates too, but by a power of two the shift (which rounds down) is mirrored for a
/// negative `a` instead, for the same reason as in [`floor_div`].
pub fn trunc_div(a: &str, c: i64) -> String {
    if c > 0 && c & (c - 1) == 0 {
        let k = c.trailing_zeros();
        format!("(({a}) >= {z} ? ({a}) >>> {k} : -((-({a})) >>> {k}))", z = lit(0))
    } else {
        format!("(({a}) / {})", lit(c))
    }
}

/// `smax` and `smin` of 64-bit signed numbers.
fn min_max() -> &'static str {
    "    function signed [63:0] smax(input signed [63:0] a, input signed [63:0] b);\n        smax = a <= b ? b : a;\n    endfunction\n    function signed [63:0] smin(input signed [63:0] a, input signed [63:0] b);\n        smin = a <= b ? a : b;\n    endfunction\n"
}

/// The functions the 64-bit expressions above use: [`min_max`] and `floord`.
pub fn functions() -> String {
    min_max().to_string()
        + "    // floor(a / b) for b > 0 (Verilog's / truncates toward zero).
    function signed [63:0] floord(input signed [63:0] a, input signed [63:0] b);
        floord = (a >= 0 ? a : a - b + 64'sd1) / b;
    endfunction
"
}

/// Bits of a value of type `ty`.
pub fn bits(ty: ScalarType) -> u32 {
    8 * ty.size() as u32
}

/// Bits of a value of channel `ch` (its element type is a C name).
pub fn elem_bits(ch: &Channel) -> u32 {
    ScalarType::from_c_name(&ch.elem).map_or(64, bits)
}

pub use dpnc_dpn::ir::index_bits;

/// A port declaration from a (name, is output, width) table entry.
pub fn port(prefix: &str, (name, out, w): &(&str, bool, u32)) -> String {
    let range = if *w > 1 { format!("[{}:0] ", w - 1) } else { String::new() };
    format!("{} wire {range}{prefix}{name}", if *out { "output" } else { "input " })
}

#[cfg(test)]
mod tests {
    use super::times_const;

    /// The value of `times_const("x", c)` at x = 1: each term `x` or `(x <<< k)` with its sign.
    fn weight(text: &str) -> i64 {
        let body = match text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            Some(b) if text != "x" && !text.starts_with("(x <<<") => b,
            _ => text,
        };
        let mut total = 0;
        for (i, term) in body.replace(" - ", " + -").split(" + ").enumerate() {
            let (negative, term) = match term.strip_prefix('-') {
                Some(t) => (true, t),
                None => (false, term),
            };
            assert!(i == 0 || !term.is_empty(), "{text}");
            let v = match term.strip_prefix("(x <<< ").and_then(|t| t.strip_suffix(')')) {
                Some(k) => 1i64 << k.parse::<u32>().expect("a shift"),
                None if term == "x" => 1,
                None => panic!("unexpected term {term} in {text}"),
            };
            total += if negative { -v } else { v };
        }
        total
    }

    #[test]
    fn a_product_by_a_constant_is_its_shifts() {
        for c in [1, 2, 3, 7, 12, 60, 70, 1900, 4095, 65535, -1, -70, -1900] {
            let text = times_const("x", c);
            assert_eq!(weight(&text), c, "{c}: {text}");
            // Canonical signed digits: no two adjacent, so at most about half the bits.
            assert!(text.matches("x").count() <= (64 - c.unsigned_abs().leading_zeros() as usize) / 2 + 1, "{c}: {text}");
        }
        assert_eq!(times_const("x", 0), "64'sd0");
        assert_eq!(times_const("64'sd0", 70), "64'sd0");
        assert_eq!(times_const("x", 70), "((x <<< 6) + (x <<< 3) - (x <<< 1))");
    }
}
