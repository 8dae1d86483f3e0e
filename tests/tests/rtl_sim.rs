//! The Verilog backend under Verilator: representative kernels of the test set are generated
//! (`dpnc_rtl::generate`), linted with `verilator --lint-only -Wall` (no warning allowed),
//! built with the simulation harness (`dpnc_sim`) and run against the memory model under two
//! jitter seeds, with one or several parallel sub-bands, in float and double; every output
//! array must equal the interpreter's bit for bit. A channel shrunk below its computed size
//! must be reported as a deadlock naming it.
//!
//! `DPNC_SIM_ALL=1` runs every kernel of the test set instead, in float and double, each at
//! tile 4 par 1 and at tiles 4,6 par 2,3 (two seeds each); `DPNC_SIM_ALL=float` or `double`
//! only that type, and `DPNC_SIM_KERNELS=a,b` only those kernels: slow, for reports.

use dpnc_tests::backend::{on_two_cores, Case};
use std::path::Path;

fn memory(seed: u64) -> dpnc_sim::Memory {
    dpnc_sim::Memory { latency: 20, jitter: 30, seed, ..dpnc_sim::Memory::default() }
}

/// Lints the design in `dir` (its files written by `simulate`).
fn lint(dir: &Path, design: &dpnc_rtl::Design) -> Result<(), String> {
    let mut args: Vec<String> = vec!["--lint-only".into(), "-Wall".into(), "--top-module".into(), design.top.clone()];
    args.extend(design.sources(dir).iter().map(|f| f.display().to_string()));
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
    let all = std::env::var("DPNC_SIM_ALL").ok();
    let jobs: Vec<(std::path::PathBuf, &str, Vec<i64>, Vec<i64>)> = if let Some(all) = all {
        let types: &[&str] = match all.as_str() {
            "float" => &["float"],
            "double" => &["double"],
            _ => &["float", "double"],
        };
        let shapes: Vec<(&str, Vec<i64>, Vec<i64>)> =
            types.iter().flat_map(|t| [(*t, vec![4], vec![1]), (*t, vec![4, 6], vec![2, 3])]).collect();
        // `DPNC_SIM_KERNELS=softmax,pnorm` narrows a report to those kernels.
        let only = std::env::var("DPNC_SIM_KERNELS").ok();
        let wanted = |f: &std::path::PathBuf| only.as_ref().is_none_or(|o| o.split(',').any(|k| f.file_stem().is_some_and(|s| s == k)));
        dpnc_tests::kernels()
            .into_iter()
            .filter(wanted)
            .flat_map(|f| shapes.iter().map(move |(t, a, b)| (f.clone(), *t, a.clone(), b.clone())))
            .collect()
    } else {
        vec![
            (kernel("gemm.c"), "float", vec![4], vec![1]),
            (kernel("gemm.c"), "double", vec![4], vec![2, 2]),
            (kernel("bicg.c"), "double", vec![4], vec![2]),
            (kernel("jacobi_1d.c"), "float", vec![4], vec![2]),
            // exp expanded into the datapath (dpnc's own, crates/frontend/src/mathlib.rs).
            (kernel("softmax.c"), "double", vec![4], vec![1]),
            // C's truncating `/` and `%` on negative dividends, in subscripts, bounds and guards.
            (kernel("negative_division.c"), "float", vec![4], vec![2]),
            // A local initialised where it is declared, before the region (PolyBench's `eps`).
            (kernel("local_threshold.c"), "float", vec![4], vec![2]),
            (kernel("local_threshold.c"), "double", vec![4], vec![1]),
        ]
    };
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rtl_sim");
    let results = on_two_cores(&root, &jobs, |(f, ty, tile, par), dir| {
        let r = one(f, ty, tile, par, dir);
        // As they finish: a full run takes long.
        eprintln!("{} ({ty}, par {par:?}): {}", f.display(), if r.is_ok() { "bit-exact" } else { "FAILED" });
        r
    });
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
    // A process feeding itself through a FIFO (bicg's s, one value per j of the tile). The
    // process's skid buffer (its datapath latency + 4 results) holds values too, so the FIFO
    // is cut from 32 places to 1: far below what the loop needs.
    let mut c = Case::with_defines(&kernel("bicg.c"), "float", &[("M", "64")], &[32], &[1]).unwrap();
    let k = (0..c.dpn.channels.len())
        .filter(|&k| {
            let ch = &c.dpn.channels[k];
            ch.producer == ch.consumer && ch.kind == dpnc_dpn::ir::ChannelKind::Fifo
        })
        .max_by_key(|&k| c.dpn.channels[k].size)
        .expect("bicg has a FIFO from a process to itself");
    assert_eq!(c.dpn.channels[k].size, 32, "s's FIFO holds one tile of j");
    c.dpn.channels[k].size = 1;
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

#[test]
fn the_rtl_kernel_files_name_each_boards_platform_part_and_banks() {
    let c = Case::new(&kernel("gemm.c"), "float", &[4], &[1]).unwrap();
    let design = dpnc_rtl::generate(&c.p, &c.dpn).unwrap();
    for name in dpnc_boards::catalogue() {
        let board = dpnc_boards::load(name).unwrap();
        let files: std::collections::HashMap<String, String> = dpnc_rtl::shell::files(&design, &board).into_iter().collect();
        let (xml, tcl, cfg) = (&files["kernel.xml"], &files["package_xo.tcl"], &files["connectivity.cfg"]);
        assert!(tcl.contains(&format!("-part {}", board.part)), "{name}: package_xo.tcl does not use part {}", board.part);
        assert!(xml.contains(&format!("<kernel name=\"{}\"", design.top)) && xml.contains("hwControlProtocol=\"ap_ctrl_hs\""), "{name}");
        // Argument k at 0x10 + 8k; array k on m_axi_gmem<port> and on the board's bank, in turn.
        let mut arrays = 0;
        for (k, arg) in design.args.iter().enumerate() {
            let offset = format!("offset=\"{:#x}\"", 0x10 + 8 * k);
            let line = xml
                .lines()
                .find(|l| l.contains("<arg ") && l.contains(&offset))
                .unwrap_or_else(|| panic!("{name}: no argument at {offset}"));
            if let dpnc_rtl::Arg::Array { name: a, port, .. } = arg {
                assert!(line.contains(&format!("name=\"{a}\"")) && line.contains(&format!("port=\"m_axi_gmem{port}\"")), "{name}: {line}");
                assert!(xml.contains(&format!("<port name=\"m_axi_gmem{port}\" mode=\"master\"")), "{name}: no port gmem{port}");
                let bank = &board.memory[arrays % board.memory.len()].name;
                assert!(cfg.lines().any(|l| l == format!("sp={}_1.{a}:{bank}", design.top)), "{name}: {a} is not on {bank}:\n{cfg}");
                arrays += 1;
            }
        }
    }
}
