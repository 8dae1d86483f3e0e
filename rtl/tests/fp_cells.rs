//! Float cells (cells/fp) against the host CPU, bit for bit: one Verilator build per format
//! (tests/tb/fp_tb_f32.v, fp_tb_f64.v over fp_tb_cells.v, driven by tests/tb/fp_tb.cpp) and
//! coding of the leading-zero counts (the trees synthesis reads, `SYNTHESIS`, and the halving
//! every simulation reads) runs every cell on all pairs of edge values and on random operands
//! (1,000,000 per op by default; `DPNC_CELL_OPS=<n>` for a longer run) with ce toggling, and
//! compares with SSE and glibc.

mod common;

const CELLS: &[&str] = &[
    "dpn_delay.v",
    "fp/dpn_fp_round.v",
    "fp/dpn_fp_unpack.v",
    "fp/dpn_fadd.v",
    "fp/dpn_fmul.v",
    "fp/dpn_fdiv.v",
    "fp/dpn_fsqrt.v",
    "fp/dpn_fcmp.v",
    "fp/dpn_fmin.v",
    "fp/dpn_fmax.v",
    "fp/dpn_i2f.v",
    "fp/dpn_f2i.v",
    "fp/dpn_f2f.v",
];

const OPS: &[&str] =
    &["fadd", "fsub", "fmul", "fdiv", "fsqrt", "fcmp", "fmin", "fmax", "i2f(i32)", "i2f(i64)", "f2i(i32)", "f2i(i64)", "f2f"];

fn random_ops() -> String {
    std::env::var("DPNC_CELL_OPS").unwrap_or_else(|_| "1000000".to_string())
}

fn run_format(fmt: &str) {
    for (coding, options) in [("synthesis", &["-DSYNTHESIS"][..]), ("simulation", &[][..])] {
        run_coding(fmt, coding, options);
    }
}

fn run_coding(fmt: &str, coding: &str, options: &[&str]) {
    let top = format!("fp_tb_{fmt}");
    let mut sources = vec![format!("../tests/tb/{top}.v"), "../tests/tb/fp_tb_cells.v".to_string()];
    sources.extend(CELLS.iter().map(|s| s.to_string()));
    let sources: Vec<&str> = sources.iter().map(|s| s.as_str()).collect();
    let ops = random_ops();
    let name = format!("fp_cells_{fmt}_{coding}");
    let out = common::verilate_and_run_with(&name, &top, &sources, options, "fp_tb.cpp", &[&ops, "0x9e3779b97f4a7c15"]);
    println!("{coding}:\n{out}");
    for op in OPS {
        let line = format!("{op} {fmt}: {ops} random + ");
        assert!(out.lines().any(|l| l.starts_with(&line) && l.ends_with(" edge ok")), "no summary for {op} {fmt}:\n{out}");
    }
    assert!(out.contains(&format!("{fmt}: ")) && out.contains(" cycles, 0 errors"), "{out}");
}

#[test]
fn float_cells_f32_bit_exact() {
    run_format("f32");
}

#[test]
fn float_cells_f64_bit_exact() {
    run_format("f64");
}

/// Each cell alone, with its default parameters, both formats and LATENCY 0, 1, 3 and 5, is
/// lint-clean, in the coding simulation reads and the one synthesis reads (`SYNTHESIS`).
#[test]
fn float_cells_lint_clean() {
    let cells = common::cells_dir();
    let f64: &[&str] = &["-GEW=11", "-GMW=52"];
    let binary: &[&[&str]] = &[&[], f64];
    let int: &[&[&str]] = &[&[], &["-GIW=64"], f64, &["-GEW=11", "-GMW=52", "-GIW=64"]];
    let convert: &[&[&str]] = &[&[], &["-GEWI=11", "-GMWI=52", "-GEWO=8", "-GMWO=23"]];
    let cases: &[(&str, &[&[&str]])] = &[
        ("dpn_fadd", binary),
        ("dpn_fmul", binary),
        ("dpn_fdiv", binary),
        ("dpn_fsqrt", binary),
        ("dpn_fcmp", binary),
        ("dpn_fmin", binary),
        ("dpn_fmax", binary),
        ("dpn_i2f", int),
        ("dpn_f2i", int),
        ("dpn_f2f", convert),
    ];
    for (top, formats) in cases {
        for params in formats.iter() {
            // Both codings of the adder's, multiplier's and conversion's leading-zero count.
            for (latency, coding) in
                ["-GLATENCY=0", "-GLATENCY=1", "-GLATENCY=3", "-GLATENCY=5"].iter().zip(["-DSIMULATION", "-DSYNTHESIS"].iter().cycle())
            {
                let out = std::process::Command::new("verilator")
                    .args(["--lint-only", "-Wall", "--top-module", top])
                    .args(params.iter())
                    .args([latency, coding])
                    .args(CELLS.iter().map(|s| cells.join(s)))
                    .output()
                    .expect("verilator not found: run scripts/setup.sh");
                assert!(out.status.success(), "lint of {top} {params:?} {latency}:\n{}", String::from_utf8_lossy(&out.stderr));
            }
        }
    }
}
