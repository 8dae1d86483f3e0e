//! Storage cells (cells/mem): FIFOs (register and RAM based), the FIFO + register channel, the
//! scratchpad and the dual-port RAM, against reference models in one Verilator build
//! (tests/tb/mem_tb_top.v + tests/tb/mem_tb.cpp).

mod common;

const SOURCES: &[&str] = &[
    "../tests/tb/mem_tb_top.v",
    "mem/dpn_fifo.v",
    "mem/dpn_fifo_reg.v",
    "mem/dpn_fifo_ram.v",
    "mem/dpn_fifo_keep.v",
    "mem/dpn_scratchpad.v",
    "mem/dpn_ram_dp.v",
];

#[test]
fn storage_cells_against_models() {
    let out = common::verilate_and_run("mem_cells", "mem_tb_top", SOURCES, "mem_tb.cpp", &["200000", "12345"]);
    print!("{out}");
    assert!(out.contains("200000 cycles, 0 errors"), "{out}");
    for line in out.lines().filter(|l| l.starts_with("fifo") || l.starts_with("keep") || l.starts_with("pad")) {
        // every channel moved a lot of data in the random phase
        assert!(!line.contains(" 0 transfers"), "{line}");
    }
}

/// Each cell alone, with its default parameters and a few odd depths, is lint-clean; so is a
/// register FIFO whose head is a register.
#[test]
fn storage_cells_lint_clean() {
    let cells = common::cells_dir();
    let tops = ["dpn_fifo", "dpn_fifo_reg", "dpn_fifo_ram", "dpn_fifo_keep", "dpn_scratchpad", "dpn_ram_dp"];
    for (top, extra) in tops.iter().map(|t| (*t, None)).chain([("dpn_fifo_reg", Some("-GOUT_REG=1"))]) {
        for depth in ["1", "2", "3", "17", "1024"] {
            let out = std::process::Command::new("verilator")
                .args(["--lint-only", "-Wall", "--top-module", top])
                .arg(format!("-GDEPTH={depth}"))
                .args(extra)
                .args(SOURCES[1..].iter().map(|s| cells.join(s)))
                .output()
                .expect("verilator not found: run scripts/setup.sh");
            assert!(out.status.success(), "lint of {top} DEPTH={depth} {extra:?}:\n{}", String::from_utf8_lossy(&out.stderr));
        }
    }
}
