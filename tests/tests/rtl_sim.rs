//! The Verilog backend under Verilator: representative kernels of the test set are generated
//! (`dpnc_rtl::generate`), linted with `verilator --lint-only -Wall` (no warning allowed),
//! built with the simulation harness (`dpnc_sim`) and run against the memory model under two
//! jitter seeds, with one or several parallel sub-bands, in float and double; every output
//! array must equal the interpreter's bit for bit. A channel shrunk below its computed size
//! must be reported as a deadlock naming it.
//!
//! `DPNC_SIM_ALL=1` runs every kernel of the test set instead (float at par 1, double at
//! par 2,3; two seeds each): slow, for reports.

use dpnc_tests::backend::{on_two_cores, Case};
use std::path::Path;

fn memory(seed: u64) -> dpnc_sim::Memory {
    dpnc_sim::Memory { latency: 20, jitter: 30, seed, ..dpnc_sim::Memory::default() }
}

/// Lints the design in `dir` (its files written by `simulate`).
fn lint(dir: &Path, design: &dpnc_rtl::Design) -> Result<(), String> {
    let mut args: Vec<String> = vec!["--lint-only".into(), "-Wall".into(), "--top-module".into(), design.top.clone()];
    args.extend(design.files.iter().map(|(n, _)| dir.join(n).display().to_string()));
    args.extend(design.cells.iter().map(|c| dpnc_rtl::cells_dir().join(c).display().to_string()));
    let out = std::process::Command::new("verilator").args(&args).output().map_err(|e| format!("cannot run verilator: {e}"))?;
    let text = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || text.contains("%Warning") {
        return Err(format!("verilator --lint-only -Wall:\n{}", text.lines().take(12).collect::<Vec<_>>().join("\n")));
    }
    Ok(())
}

fn one(f: &Path, ty: &str, tile: &[i64], par: &[i64], dir: &Path) -> Result<u64, String> {
    let c = Case::new(f, ty, tile, par)?;
    let mut cycles = 0;
    for seed in [1, 2] {
        let mut quiet = |_: &str| {};
        let (got, out, _) = dpnc_sim::kernel::simulate(&c.p, &c.dpn, &c.inputs, dir, &memory(seed), 50_000_000, &mut quiet)?;
        c.compare(&got, &format!("Verilog, memory seed {seed}"))?;
        cycles = out.cycles;
    }
    let design = dpnc_rtl::generate(&c.p, &c.dpn).map_err(|e| e.to_string())?;
    lint(dir, &design)?;
    Ok(cycles)
}

fn kernel(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels").join(name)
}

#[test]
fn verilog_designs_simulate_bit_exact() {
    let jobs: Vec<(std::path::PathBuf, &str, Vec<i64>, Vec<i64>)> = if std::env::var_os("DPNC_SIM_ALL").is_some() {
        dpnc_tests::kernels()
            .into_iter()
            .flat_map(|f| [(f.clone(), "float", vec![4], vec![1]), (f, "double", vec![4, 6], vec![2, 3])])
            .collect()
    } else {
        vec![
            (kernel("gemm.c"), "float", vec![4], vec![1]),
            (kernel("gemm.c"), "double", vec![4], vec![2, 2]),
            (kernel("bicg.c"), "double", vec![4], vec![2]),
            (kernel("jacobi_1d.c"), "float", vec![4], vec![2]),
        ]
    };
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rtl_sim");
    let results = on_two_cores(&root, &jobs, |(f, ty, tile, par), dir| one(f, ty, tile, par, dir));
    let mut failures = Vec::new();
    for ((f, ty, tile, par), r) in jobs.iter().zip(results) {
        let name = format!("{} ({ty}, tile {tile:?}, par {par:?})", f.file_name().unwrap_or_default().to_string_lossy());
        match r {
            Ok(cycles) => println!("{name}: bit-exact under two seeds, {cycles} cycles"),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    println!("{} of {} designs bit-exact", jobs.len() - failures.len(), jobs.len());
    assert!(failures.is_empty(), "{} of {} designs fail:\n{}", failures.len(), jobs.len(), failures.join("\n"));
}

#[test]
fn a_channel_below_its_size_is_reported_as_a_deadlock_naming_it() {
    // A process feeding itself through a FIFO: one place fewer than it needs blocks it.
    let mut c = Case::new(&kernel("bicg.c"), "float", &[8], &[1]).unwrap();
    let k = c
        .dpn
        .channels
        .iter()
        .position(|ch| ch.producer == ch.consumer && ch.kind == dpnc_dpn::ir::ChannelKind::Fifo && ch.size >= 2)
        .expect("bicg has a FIFO from a process to itself");
    c.dpn.channels[k].size -= 1;
    let name = c.dpn.channels[k].name.clone();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rtl_sim_deadlock");
    let mut quiet = |_: &str| {};
    let err = match dpnc_sim::kernel::simulate(&c.p, &c.dpn, &c.inputs, &dir, &memory(1), 50_000_000, &mut quiet) {
        Ok(_) => panic!("a FIFO shrunk to {} values ran to completion", c.dpn.channels[k].size),
        Err(e) => e,
    };
    assert!(err.contains("deadlock"), "not reported as a deadlock: {err}");
    assert!(err.contains(&name), "the report does not name channel {name}: {err}");
}
