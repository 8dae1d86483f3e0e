//! Integer cells (cells/int): dpn_imul and dpn_idiv, 32 and 64 bits, pipelined and combinational,
//! against the host's C arithmetic in one Verilator build (tests/tb/int_tb_top.v + int_tb.cpp):
//! all pairs of edge values, then random operands (1,000,000 per op by default;
//! `DPNC_CELL_OPS=<n>` for a longer run) with ce toggling.

mod common;

const CELLS: &[&str] = &["dpn_delay.v", "int/dpn_imul.v", "int/dpn_idiv.v"];

#[test]
fn int_cells_against_host() {
    let ops = std::env::var("DPNC_CELL_OPS").unwrap_or_else(|_| "1000000".to_string());
    let mut sources = vec!["../tests/tb/int_tb_top.v"];
    sources.extend(CELLS);
    let out = common::verilate_and_run("int_cells", "int_tb_top", &sources, "int_tb.cpp", &[&ops, "0x2545f4914f6cdd1d"]);
    print!("{out}");
    for op in ["imul i32", "imul i64", "idiv i32", "idiv i64", "imul i32 (comb)", "idiv i32 (comb)"] {
        let line = format!("{op}: {ops} random + ");
        assert!(out.lines().any(|l| l.starts_with(&line) && l.ends_with(" edge ok")), "no summary for {op}:\n{out}");
    }
    assert!(out.contains(" cycles, 0 errors"), "{out}");
}

/// Each cell alone, 32 and 64 bits, LATENCY 0, 1 and 4, is lint-clean.
#[test]
fn int_cells_lint_clean() {
    let cells = common::cells_dir();
    for top in ["dpn_imul", "dpn_idiv"] {
        for iw in ["-GIW=32", "-GIW=64", "-GIW=8"] {
            for latency in ["-GLATENCY=0", "-GLATENCY=1", "-GLATENCY=4"] {
                let out = std::process::Command::new("verilator")
                    .args(["--lint-only", "-Wall", "--top-module", top, iw, latency])
                    .args(CELLS.iter().map(|s| cells.join(s)))
                    .output()
                    .expect("verilator not found: run scripts/setup.sh");
                assert!(out.status.success(), "lint of {top} {iw} {latency}:\n{}", String::from_utf8_lossy(&out.stderr));
            }
        }
    }
}
