//! Statement datapaths (src/datapath.rs) against the reference evaluator, bit for bit, under
//! Verilator. For every statement of every kernel of the test set (tests/kernels), of
//! tests/datapath/ops.c (one statement per operator and conversion) and of seeded random
//! kernels (random typed expressions over char, int, long, float and double), in float and in
//! double: the datapath is generated, linted with `verilator --lint-only -Wall`, and simulated on random input vectors
//! (random bit patterns, special floats, small, large and negative integers) fed one per cycle
//! with ce = 0 in random cycles (random junk on the inputs then); every output bit is compared
//! in every cycle with `dpnc_frontend::eval` on the vector presented `latency` ce-cycles before.
//! Statements that call exp, pow, expf or powf are left out (and counted): those functions
//! expand into a hundred-odd float cells each, two thirds of every cell here, and
//! tests/math_fns.rs checks each expansion bit for bit on 20,000 vectors of its own.
//! Everything is one Verilator build: a generated top with one instance per distinct module
//! (statements whose modules are identical share one, on vectors of each in turn), the driver
//! tests/datapath/tb.cpp, vectors in a file. `DPNC_DATAPATH_VECTORS=<n>` sets the vectors per
//! instance (default 3000); `DPNC_DATAPATH_ONLY=<text>` keeps the kernels whose name contains it.

use dpnc_frontend::eval::eval;
use dpnc_frontend::ir::ScalarType;
use dpnc_frontend::ir::{MathFn, TExpr, TKind};
use dpnc_frontend::value::Value;
use dpnc_frontend::{Options, Program, SourceMap};
use dpnc_rtl::datapath::{self, Datapath};
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The frontend's SplitMix64, with the draws these tests need.
struct Rng(dpnc_frontend::store::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(dpnc_frontend::store::Rng(seed))
    }
    fn next(&mut self) -> u64 {
        self.0.next()
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

fn vectors_per_datapath() -> usize {
    std::env::var("DPNC_DATAPATH_VECTORS").ok().and_then(|v| v.parse().ok()).unwrap_or(3000)
}

// ---------------------------------------------------------------- random kernels

const RANDOM_KERNELS: usize = 4;
const RANDOM_STMTS: usize = 12;

#[derive(Clone, Copy, PartialEq)]
enum T {
    C,
    I,
    L,
    F,
    D,
}

/// A random C expression (fully parenthesised) and whether it is an integer.
fn random_expr(r: &mut Rng, depth: u32, int_only: bool) -> (String, bool) {
    let leaf = depth == 0 || r.below(5) == 0;
    if leaf {
        let ints = ["ac[i]", "ai[i]", "ai[j]", "al[j]", "bi[j]", "bc[j]", "i", "j", "n", "k7"];
        let floats = ["af[i]", "bf[j]", "ad[i]", "bd[j]", "sf", "sd"];
        return match r.below(if int_only { 3 } else { 5 }) {
            0 | 1 => (r.pick(&ints).to_string(), true),
            2 => (
                r.pick(&["0", "1", "-1", "3", "7", "31", "100000", "2147483647", "40L", "-5L", "0x7fffffffffffL", "'a'"]).to_string(),
                true,
            ),
            3 => (r.pick(&floats).to_string(), false),
            _ => (r.pick(&["0.5", "-2.0", "1e300", "3.0f", "1e-30f", "0.0", "-0.0f", "1e10f", "0.1"]).to_string(), false),
        };
    }
    let sub = |r: &mut Rng, int_only| random_expr(r, depth - 1, int_only);
    match r.below(if int_only { 6 } else { 12 }) {
        0 | 1 => {
            let op = r.pick(&["%", "&", "|", "^", "<<", ">>", "+", "-", "*", "/"]);
            let (a, b) = (sub(r, true), sub(r, true));
            (format!("({} {op} {})", a.0, b.0), true)
        }
        2 => {
            let op = r.pick(&["~", "-", "!"]);
            (format!("({op}{})", sub(r, true).0), true)
        }
        3 => {
            let t = r.pick(&["char", "int", "long"]);
            (format!("(({t}){})", sub(r, int_only).0), true)
        }
        4 => (format!("abs({})", sub(r, int_only).0), true),
        5 => {
            let op = r.pick(&["<", "<=", ">", ">=", "==", "!=", "&&", "||"]);
            let (a, b) = (sub(r, int_only), sub(r, int_only));
            (format!("({} {op} {})", a.0, b.0), true)
        }
        6 | 7 => {
            let op = r.pick(&["+", "-", "*", "/"]);
            let (a, b) = (sub(r, false), sub(r, false));
            (format!("({} {op} {})", a.0, b.0), a.1 && b.1)
        }
        8 => {
            let (c, a, b) = (sub(r, false), sub(r, false), sub(r, false));
            (format!("({} ? {} : {})", c.0, a.0, b.0), a.1 && b.1)
        }
        9 => {
            let t = r.pick(&["float", "double"]);
            (format!("(({t}){})", sub(r, false).0), false)
        }
        10 => {
            let f = r.pick(&["sqrt", "sqrtf", "fabs", "fabsf"]);
            (format!("{f}({})", sub(r, false).0), false)
        }
        _ => {
            let f = r.pick(&["fmin", "fmax", "fminf", "fmaxf"]);
            let (a, b) = (sub(r, false), sub(r, false));
            (format!("{f}({}, {})", a.0, b.0), false)
        }
    }
}

fn random_kernel(seed: u64) -> String {
    let mut r = Rng::new(seed);
    let mut body = String::new();
    for _ in 0..RANDOM_STMTS {
        let out = *r.pick(&[T::C, T::I, T::L, T::F, T::D]);
        let lhs = match out {
            T::C => "oc[i][j]",
            T::I => "oi[i][j]",
            T::L => "ol[i][j]",
            T::F => "of[i][j]",
            T::D => "od[i][j]",
        };
        let _ = writeln!(body, "      {lhs} = {};", random_expr(&mut r, 4, false).0);
    }
    format!(
        "#include <math.h>\n#include <stdlib.h>\n#define N 6\n\
         void kernel_rnd{seed}(int n, int k7, float sf, double sd, char ac[N], char bc[N], int ai[N], int bi[N], long al[N],\n\
         \x20   float af[N], float bf[N], double ad[N], double bd[N], char oc[N][N], int oi[N][N], long ol[N][N], float of[N][N],\n\
         \x20   double od[N][N])\n{{\n  int i, j;\n#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {{\n{body}    }}\n\
         #pragma endscop\n}}\n\
         int main(void)\n{{\n  static char ac[N], bc[N], oc[N][N];\n  static int ai[N], bi[N], oi[N][N];\n  static long al[N], ol[N][N];\n\
         \x20 static float af[N], bf[N], of[N][N];\n  static double ad[N], bd[N], od[N][N];\n\
         \x20 kernel_rnd{seed}(N, 7, 0.5f, -3.25, ac, bc, ai, bi, al, af, bf, ad, bd, oc, oi, ol, of, od);\n  return 0;\n}}\n"
    )
}

// ---------------------------------------------------------------- the cases

struct Case {
    label: String,
    prog: usize,
    stmt: usize,
    dp: Datapath,
}

struct Batch {
    progs: Vec<Program>,
    cases: Vec<Case>,
    /// Cases whose modules are identical but for the name and comments: simulated as one
    /// instance (of the first), on vectors of every member in turn.
    groups: Vec<Vec<usize>>,
    /// Statements left out because they call an expanded function.
    expanded: usize,
}

fn kernel_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels");
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    v.sort();
    v.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/datapath/ops.c"));
    v
}

/// Every statement of every program, in float and in double.
fn batch() -> Batch {
    let only = std::env::var("DPNC_DATAPATH_ONLY").unwrap_or_default();
    let mut progs = Vec::new();
    let mut cases = Vec::new();
    let mut expanded = 0;
    for (ty, seed0) in [("float", 100), ("double", 200)] {
        let opts = Options { defines: vec![("DATA_TYPE".into(), Some(ty.into()))], ..Options::default() };
        let mut mine = Vec::new();
        for f in kernel_files() {
            let mut sm = SourceMap::new();
            mine.push(dpnc_frontend::load(&mut sm, &f, &opts).unwrap_or_else(|d| panic!("{}", d.render(&sm))));
        }
        for k in 0..RANDOM_KERNELS as u64 {
            let text = random_kernel(seed0 + k);
            let mut sm = SourceMap::new();
            mine.push(dpnc_frontend::load_str(&mut sm, "rnd.c", &text, &opts).unwrap_or_else(|d| panic!("{}\n{text}", d.render(&sm))));
        }
        for p in mine.into_iter().filter(|p| p.kernel.contains(only.as_str())) {
            for (si, s) in p.stmts.iter().enumerate() {
                if calls_expanded_function(&s.body) {
                    expanded += 1;
                    continue;
                }
                let name = format!("dp_{}_{}_{}", &ty[..1], p.kernel, s.name);
                let label = format!("{}:{} ({ty})", p.kernel, s.name);
                match datapath::statement(&p, si, &name) {
                    Ok(dp) => cases.push(Case { label, prog: progs.len(), stmt: si, dp }),
                    Err(e) => panic!("{label}: {e}"),
                }
            }
            progs.push(p);
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_text: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (k, c) in cases.iter().enumerate() {
        let text: String = c.dp.module.lines().filter(|l| !l.starts_with("//")).skip(1).collect::<Vec<_>>().join("\n");
        let g = *by_text.entry(text).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(k);
    }
    Batch { progs, cases, groups, expanded }
}

/// Whether `e` calls a function that has dpnc's own definition, which the datapath expands into
/// cells (see the module comment).
fn calls_expanded_function(e: &TExpr) -> bool {
    match &e.kind {
        TKind::Const(_) | TKind::Iter(_) | TKind::Param(_) | TKind::Read(_) => false,
        TKind::Cast(a) | TKind::Unary(_, a) => calls_expanded_function(a),
        TKind::Binary(_, a, b) => calls_expanded_function(a) || calls_expanded_function(b),
        TKind::Ternary(c, a, b) => [c, a, b].into_iter().any(|x| calls_expanded_function(x)),
        TKind::Call(f, args) => dpnc_frontend::mathlib::Fn::of(*f).is_some() || args.iter().any(calls_expanded_function),
    }
}

// ---------------------------------------------------------------- vectors

fn random_i64(r: &mut Rng) -> i64 {
    match r.below(10) {
        0..=3 => r.range(-20, 60),
        4 => r.range(0, 100_000),
        5 => r.next() as i32 as i64,
        6 => r.next() as i64,
        7 => (r.next() as i64) >> r.below(64),
        _ => *r.pick(&[0, 1, -1, 2, i32::MIN as i64, i32::MAX as i64, i64::MIN, i64::MAX, 31, 32, 63, 64, 1 << 31, -(1 << 31) - 1]),
    }
}

fn random_f64(r: &mut Rng, float: bool) -> f64 {
    match r.below(10) {
        0..=2 => (r.range(-4_000_000, 4_000_000) as f64) / 1_000_000.0 * 2f64.powi(r.range(-3, 3) as i32),
        3 => r.range(-10, 10) as f64,
        4 => {
            let e = r.range(-40, 40) as i32;
            (r.next() >> 11) as f64 / (1u64 << 53) as f64 * 2f64.powi(e) * if r.below(2) == 0 { 1.0 } else { -1.0 }
        }
        _ => {
            let big = if float { 1e38 } else { 1e308 };
            *r.pick(&[0.0, -0.0, 1.0, -1.0, 0.5, 2.0, big, -big, 2147483647.5, 2147483648.0, -2147483649.0, 3e9, 9.3e18, -9.3e18, 1e-300])
        }
    }
}

fn random_value(r: &mut Rng, ty: ScalarType) -> Value {
    let special_f32 = [
        0u32,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0000,
        0x7f80_0001,
        0xff91_2345,
        1,
        0x007f_ffff,
        0x0080_0000,
        0x7f7f_ffff,
        0x3f80_0000,
        0x8000_0001,
    ];
    let special_f64 = [
        0u64,
        1 << 63,
        0x7ff0 << 48,
        0xfff0 << 48,
        0x7ff8 << 48,
        0xfff8 << 48,
        (0x7ff0 << 48) | 1,
        0xfff4_5678_9abc_def0,
        1,
        (1 << 52) - 1,
        1 << 52,
        0x7fef_ffff_ffff_ffff,
        0x3ff0 << 48,
        (1 << 63) | 1,
    ];
    match ty {
        ScalarType::Char => Value::Char(r.next() as i8),
        ScalarType::Int => Value::Int(random_i64(r) as i32),
        ScalarType::Long => Value::Long(random_i64(r)),
        ScalarType::Float => Value::Float(match r.below(8) {
            0 | 1 => f32::from_bits(r.next() as u32),
            2 | 3 => f32::from_bits(*r.pick(&special_f32)),
            _ => random_f64(r, true) as f32,
        }),
        ScalarType::Double => Value::Double(match r.below(8) {
            0 | 1 => f64::from_bits(r.next()),
            2 | 3 => f64::from_bits(*r.pick(&special_f64)),
            _ => random_f64(r, false),
        }),
    }
}

/// One vector: the inputs (iterators, then reads) and the expected output, `None` where the
/// evaluator defines none (division by zero) or where it is not C: see [`minmax_corner`].
fn vector(r: &mut Rng, p: &Program, params: &[i64], stmt: usize, skipped: &mut u64) -> (Vec<u64>, Option<u64>) {
    let s = &p.stmts[stmt];
    let iters: Vec<i64> = s.iters.iter().map(|_| random_i64(r)).collect();
    let reads: Vec<Value> = s.reads.iter().map(|a| random_value(r, p.vars[a.var].ty)).collect();
    let mut out = eval(&s.body, &iters, params, &mut |k| Ok(reads[k])).ok().map(|v| v.convert(p.vars[s.write.var].ty).bits());
    if out.is_some() && minmax_corner(&s.body, &iters, params, &reads) {
        *skipped += 1;
        out = None;
    }
    let mut inputs: Vec<u64> = iters.iter().map(|&i| i as u64).collect();
    inputs.extend(reads.iter().map(|v| v.bits()));
    (inputs, out)
}

/// Whether some `fmin`/`fmax` of `e` gets operands on which the evaluator, as compiled here,
/// is not C: two NaNs, a signalling NaN, or +0 and -0. The evaluator declares the C functions,
/// but LLVM replaces calls to them with its own `minnum`/`maxnum` (in optimised builds; in
/// unoptimised ones they resolve to compiler-builtins' versions, different again), whereas the
/// cells dpn_fmin/dpn_fmax are glibc's fmin/fmax, which the generated C calls (checked against
/// glibc by tests/fp_cells.rs). Such vectors are not compared (and counted).
fn minmax_corner(e: &TExpr, iters: &[i64], params: &[i64], reads: &[Value]) -> bool {
    let sub = |x: &TExpr| minmax_corner(x, iters, params, reads);
    match &e.kind {
        TKind::Const(_) | TKind::Iter(_) | TKind::Param(_) | TKind::Read(_) => false,
        TKind::Cast(a) | TKind::Unary(_, a) => sub(a),
        TKind::Binary(_, a, b) => sub(a) || sub(b),
        TKind::Ternary(c, a, b) => sub(c) || sub(a) || sub(b),
        TKind::Call(f, args) => {
            if args.iter().any(sub) {
                return true;
            }
            if !matches!(f, MathFn::Fmin | MathFn::Fmax | MathFn::Fminf | MathFn::Fmaxf) {
                return false;
            }
            let v: Vec<Option<f64>> = args.iter().map(|a| eval(a, iters, params, &mut |k| Ok(reads[k])).ok().map(|v| v.as_f64())).collect();
            let signalling = |a: &TExpr| match eval(a, iters, params, &mut |k| Ok(reads[k])) {
                Ok(Value::Float(x)) => x.is_nan() && x.to_bits() & 0x0040_0000 == 0,
                Ok(Value::Double(x)) => x.is_nan() && x.to_bits() & 0x0008_0000_0000_0000 == 0,
                _ => false,
            };
            match (v[0], v[1]) {
                (Some(a), Some(b)) => {
                    (a.is_nan() && b.is_nan())
                        || signalling(&args[0])
                        || signalling(&args[1])
                        || (a == 0.0 && b == 0.0 && a.is_sign_negative() != b.is_sign_negative())
                }
                _ => false,
            }
        }
    }
}

// ---------------------------------------------------------------- Verilator

fn verilator(args: &[String], dir: &Path) -> std::process::Output {
    Command::new("verilator").args(args).current_dir(dir).output().expect("verilator not found: run scripts/setup.sh")
}

/// The testbench hierarchy (every datapath in a file of its own name, instantiated once by
/// tb_top) with `-Wall`: no warnings in any module.
fn lint(dir: &Path, files: &[String]) -> Result<(), String> {
    let mut args: Vec<String> =
        ["--lint-only", "-Wall", "--default-language", "1364-2005", "--top-module", "tb_top"].iter().map(|s| s.to_string()).collect();
    args.extend(files.iter().cloned());
    let out = verilator(&args, dir);
    let text = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    if out.status.success() && !text.contains("%Warning") {
        Ok(())
    } else {
        Err(format!("lint:\n{text}"))
    }
}

/// The testbench top (one instance per group), its port accessors for the driver, and the
/// vectors file; returns the vectors not compared because of [`minmax_corner`].
fn write_testbench(b: &Batch, dir: &Path, seed: u64) -> u64 {
    let nvec = vectors_per_datapath();
    let mut top = String::from("module tb_top (\n    input wire clk,\n    input wire ce");
    let mut inst = String::new();
    let mut set = String::new();
    let mut get = String::new();
    let mut names = String::new();
    let mut words: Vec<u64> = vec![b.groups.len() as u64, nvec as u64];
    let mut vecs: Vec<u64> = Vec::new();
    let mut skipped = 0;
    for (d, g) in b.groups.iter().enumerate() {
        let c = &b.cases[g[0]];
        let p = &b.progs[c.prog];
        let s = &p.stmts[c.stmt];
        let mut pins = vec![".clk(clk)".to_string(), ".ce(ce)".to_string()];
        let _ = write!(set, "    case {d}:");
        let mut k = 0;
        for it in &s.iters {
            let _ = write!(top, ",\n    input wire [63:0] d{d}_it_{it}");
            pins.push(format!(".it_{it}(d{d}_it_{it})"));
            let _ = write!(set, " t->d{d}_it_{it} = v[{k}];");
            k += 1;
        }
        for (j, a) in s.reads.iter().enumerate() {
            let w = 8 * p.vars[a.var].ty.size();
            let _ = write!(top, ",\n    input wire [{}:0] d{d}_r{j}", w - 1);
            pins.push(format!(".r{j}(d{d}_r{j})"));
            let _ = write!(set, " t->d{d}_r{j} = (uint{w}_t)v[{k}];");
            k += 1;
        }
        let wy = 8 * p.vars[s.write.var].ty.size();
        let _ = write!(top, ",\n    output wire [{}:0] d{d}_y", wy - 1);
        pins.push(format!(".y(d{d}_y)"));
        let _ = writeln!(set, " break;");
        let _ = writeln!(get, "    case {d}: return (uint64_t)t->d{d}_y;");
        let _ = writeln!(inst, "    {} u{d} ({});", c.dp.name, pins.join(", "));
        let label: Vec<&str> = g.iter().map(|&m| b.cases[m].label.as_str()).collect();
        let _ = writeln!(names, "    \"{}\",", label.join(" = "));
        words.extend([c.dp.latency as u64, k as u64]);

        let mut r = Rng::new(seed ^ (d as u64).wrapping_mul(0x1234_5678_9abc_def1));
        let params: Vec<Vec<i64>> = g.iter().map(|&m| b.progs[b.cases[m].prog].param_values().unwrap()).collect();
        for v in 0..nvec {
            let m = &b.cases[g[v % g.len()]];
            let (inputs, out) = vector(&mut r, &b.progs[m.prog], &params[v % g.len()], m.stmt, &mut skipped);
            assert_eq!(inputs.len(), k, "{}: ports differ from {}", m.label, c.label);
            vecs.extend(inputs);
            vecs.push(out.unwrap_or(0));
            vecs.push(out.is_some() as u64);
        }
    }
    let _ = write!(top, "\n);\n{inst}endmodule\n");
    std::fs::write(dir.join("tb_top.v"), top).unwrap();
    let header = format!(
        "static const int N_DP = {};\nstatic const char* NAME[] = {{\n{names}}};\n\
         static void set_in(Vtb_top* t, int d, const uint64_t* v) {{\n  switch (d) {{\n{set}  }}\n}}\n\
         static uint64_t get_out(Vtb_top* t, int d) {{\n  switch (d) {{\n{get}  }}\n  return 0;\n}}\n",
        b.groups.len()
    );
    std::fs::write(dir.join("tb_ports.h"), header).unwrap();
    words.extend(vecs);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(dir.join("vectors.bin"), bytes).unwrap();
    skipped
}

/// What [`simulate`] reports.
struct Report {
    /// The driver's summary line.
    line: String,
    /// Vectors not compared (see [`minmax_corner`]).
    skipped: u64,
    /// Seconds spent linting, building the model, running it.
    phases: [f64; 3],
}

/// Lints, builds and runs the batch in `dir`.
fn simulate(b: &Batch, dir: &Path) -> Result<Report, String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let cells: BTreeSet<&'static str> = b.cases.iter().flat_map(|c| c.dp.cells.iter().copied()).collect();
    let skipped = write_testbench(b, dir, 0x5eed);
    let mut files = vec!["tb_top.v".to_string()];
    for g in &b.groups {
        let c = &b.cases[g[0]];
        std::fs::write(dir.join(format!("{}.v", c.dp.name)), &c.dp.module).unwrap();
        files.push(format!("{}.v", c.dp.name));
    }
    files.extend(cells.iter().map(|c| datapath::cells_dir().join(c).display().to_string()));
    let t0 = std::time::Instant::now();
    lint(dir, &files)?;
    let t1 = std::time::Instant::now();
    // The model is large (the binary64 cells expand to much C++) and runs briefly: compile it
    // without optimisation.
    let mut args: Vec<String> = ["--cc", "--exe", "--build", "-O1", "-j", "2", "--top-module", "tb_top", "-Mdir", "obj"]
        .iter()
        .chain(&dpnc_rtl::VERILATOR_UNOPTIMISED)
        .map(|s| s.to_string())
        .collect();
    args.extend(["-CFLAGS".into(), format!("-std=c++17 -I{}", dir.display())]);
    args.extend(files);
    args.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/datapath/tb.cpp").display().to_string());
    let build = verilator(&args, dir);
    if !build.status.success() {
        return Err(format!("build:\n{}\n{}", String::from_utf8_lossy(&build.stdout), String::from_utf8_lossy(&build.stderr)));
    }
    let t2 = std::time::Instant::now();
    let run = Command::new(dir.join("obj/Vtb_top")).args(["vectors.bin", "0x9e3779b97f4a7c15"]).current_dir(dir).output().unwrap();
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    if !run.status.success() {
        return Err(format!("simulation:\n{out}\n{}", String::from_utf8_lossy(&run.stderr)));
    }
    let phases = [(t1 - t0).as_secs_f64(), (t2 - t1).as_secs_f64(), t2.elapsed().as_secs_f64()];
    Ok(Report { line: out.lines().last().unwrap_or("").to_string(), skipped, phases })
}

/// The kinds of expression nodes (operator and type) in the batch, to show what was covered.
fn coverage(b: &Batch) -> BTreeSet<String> {
    fn walk(e: &TExpr, out: &mut BTreeSet<String>) {
        let ty = e.ty.c_name();
        match &e.kind {
            TKind::Const(_) | TKind::Iter(_) | TKind::Param(_) | TKind::Read(_) => {}
            TKind::Cast(a) => {
                out.insert(format!("({ty}){}", a.ty.c_name()));
                walk(a, out);
            }
            TKind::Unary(op, a) => {
                out.insert(format!("{op:?} {}", a.ty.c_name()));
                walk(a, out);
            }
            TKind::Binary(op, a, x) => {
                out.insert(format!("{op:?} {}", a.ty.c_name()));
                walk(a, out);
                walk(x, out);
            }
            TKind::Ternary(c, a, x) => {
                out.insert(format!("?: {ty}"));
                walk(c, out);
                walk(a, out);
                walk(x, out);
            }
            TKind::Call(f, args) => {
                out.insert(format!("{f:?}"));
                for a in args {
                    walk(a, out);
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    for c in &b.cases {
        walk(&b.progs[c.prog].stmts[c.stmt].body, &mut out);
    }
    out
}

#[test]
fn datapaths_match_the_evaluator() {
    let start = std::time::Instant::now();
    let b = batch();
    let cov = coverage(&b);
    println!("{} operator/type kinds covered: {}", cov.len(), cov.into_iter().collect::<Vec<_>>().join(", "));
    let r = simulate(&b, &Path::new(env!("CARGO_TARGET_TMPDIR")).join("datapath")).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", r.line);
    let num =
        |word: &str| -> u64 { r.line.split(", ").find_map(|f| f.strip_suffix(word).and_then(|n| n.trim().parse().ok())).unwrap_or(0) };
    println!(
        "datapath summary: {} datapaths generated ({} statements calling exp/pow left out), {} distinct linted and simulated, {} vectors compared bit for bit ({} fmin/fmax \
         corner vectors left out); {:.1} s (lint {:.1} s, build {:.1} s, run {:.1} s)",
        b.cases.len(),
        b.expanded,
        num(" datapaths"),
        num(" vectors"),
        r.skipped,
        start.elapsed().as_secs_f64(),
        r.phases[0],
        r.phases[1],
        r.phases[2]
    );
    assert!(r.line.ends_with(" 0 errors"), "{}", r.line);
    assert!(num(" datapaths") > 0 && num(" vectors") > 0);
}
