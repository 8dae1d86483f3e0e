//! AXI cells (cells/axi): the read and write masters against AXI4 slave memory models with random
//! latency and back-pressure that check the protocol, plus zero-jitter throughput runs, and the
//! AXI4-Lite control slave driven by host-like sequences. One Verilator build
//! (tests/tb/axi_tb_top.v + tests/tb/axi_tb.cpp). The lanes' cells (`dpn_read_lanes`,
//! `dpn_write_lanes`) run in the designs of `tests/tests/rtl_sim.rs`, against the simulator's
//! protocol-checking memory; here they are linted.

mod common;

const SOURCES: &[&str] = &[
    "../tests/tb/axi_tb_top.v",
    "axi/dpn_axi_split.v",
    "axi/dpn_axi_read.v",
    "axi/dpn_axi_write.v",
    "axi/dpn_axi_lite_ctrl.v",
    "axi/dpn_read_lanes.v",
    "axi/dpn_write_lanes.v",
    "axi/dpn_round_robin.v",
    "mem/dpn_fifo.v",
    "mem/dpn_fifo_reg.v",
    "mem/dpn_fifo_ram.v",
    "mem/dpn_ram_dp.v",
];

#[test]
fn axi_cells_against_slave_models() {
    let out = common::verilate_and_run("axi_cells", "axi_tb_top", SOURCES, "axi_tb.cpp", &["400", "7"]);
    print!("{out}");
    assert!(out.contains(" 0 errors"), "{out}");
    for engine in ["read0", "read1", "write0", "write1", "axi_lite_ctrl"] {
        assert!(out.lines().any(|l| l.starts_with(engine) && l.ends_with("ok")), "{engine} did not finish:\n{out}");
    }
    // With a zero-latency, always-ready slave the engines stream one beat per cycle.
    for line in out.lines().filter(|l| l.starts_with("throughput")) {
        let rate: f64 = line.split(": ").nth(1).and_then(|r| r.split(' ').next()).and_then(|r| r.parse().ok()).expect(line);
        assert!(rate >= 0.99, "{line}");
    }
}

/// Each cell alone, with its default parameters and a few others, is lint-clean.
#[test]
fn axi_cells_lint_clean() {
    let cells = common::cells_dir();
    let cases: &[(&str, &[&str])] = &[
        ("dpn_axi_split", &[]),
        ("dpn_axi_read", &[]),
        ("dpn_axi_read", &["-GDW=32", "-GMAX_OUTSTANDING=1", "-GMAX_BURST=1"]),
        ("dpn_axi_read", &["-GDW=1024", "-GID_W=4", "-GID=5", "-GMAX_BURST=256"]),
        ("dpn_axi_write", &[]),
        ("dpn_axi_write", &["-GDW=32", "-GMAX_OUTSTANDING=1", "-GMAX_BURST=1"]),
        ("dpn_axi_write", &["-GDW=1024", "-GID_W=4", "-GID=5", "-GMAX_BURST=256"]),
        ("dpn_axi_lite_ctrl", &[]),
        ("dpn_axi_lite_ctrl", &["-GNUM_ARGS=1"]),
        ("dpn_axi_lite_ctrl", &["-GNUM_ARGS=510"]),
        ("dpn_read_lanes", &[]),
        ("dpn_read_lanes", &["-GLANES=1"]),
        ("dpn_read_lanes", &["-GLANES=5", "-GBUF=16", "-GORDER=8"]),
        ("dpn_read_lanes", &["-GLANES=16", "-GDW=256"]),
        ("dpn_read_lanes", &["-GLANES=4", "-GJOIN=0"]),
        ("dpn_write_lanes", &[]),
        ("dpn_write_lanes", &["-GLANES=1"]),
        ("dpn_write_lanes", &["-GLANES=5", "-GORDER=8"]),
        ("dpn_write_lanes", &["-GLANES=16", "-GDW=256"]),
    ];
    for (top, params) in cases {
        let out = std::process::Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", top])
            .args(*params)
            .args(SOURCES[1..].iter().map(|s| cells.join(s)))
            .output()
            .expect("verilator not found: run scripts/setup.sh");
        assert!(out.status.success(), "lint of {top} {params:?}:\n{}", String::from_utf8_lossy(&out.stderr));
    }
}
