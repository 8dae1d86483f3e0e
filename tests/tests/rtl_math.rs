//! The kernels that call `exp` and `pow` (softmax, pnorm) through the Verilog backend under
//! Verilator: dpnc's own math functions are expanded into their statements' datapaths
//! (crates/rtl/src/datapath.rs), and the outputs must equal the interpreter's bit for bit under
//! two memory seeds, in float and in double, with one and with several parallel sub-bands.
//! The designs lint clean with `verilator --lint-only -Wall`.

use dpnc_tests::backend::{on_two_cores, Case};
use std::path::Path;

fn memory(seed: u64) -> dpnc_sim::Memory {
    dpnc_sim::Memory { latency: 20, jitter: 30, seed, ..dpnc_sim::Memory::default() }
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
    let mut args: Vec<String> = vec!["--lint-only".into(), "-Wall".into(), "--top-module".into(), design.top.clone()];
    args.extend(design.sources(dir).iter().map(|f| f.display().to_string()));
    let out = std::process::Command::new("verilator").args(&args).output().map_err(|e| format!("cannot run verilator: {e}"))?;
    let text = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || text.contains("%Warning") {
        return Err(format!("verilator --lint-only -Wall:\n{}", text.lines().take(12).collect::<Vec<_>>().join("\n")));
    }
    Ok(cycles)
}

#[test]
fn exp_and_pow_kernels_simulate_bit_exact() {
    let k = |n: &str| Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels").join(n);
    let jobs: Vec<(std::path::PathBuf, &str, Vec<i64>, Vec<i64>)> = vec![
        (k("softmax.c"), "float", vec![4], vec![1]),
        (k("softmax.c"), "double", vec![4, 8], vec![2, 2]),
        (k("pnorm.c"), "double", vec![4], vec![1]),
        (k("pnorm.c"), "float", vec![4, 6], vec![2, 3]),
    ];
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rtl_math");
    let results = on_two_cores(&root, &jobs, |(f, ty, tile, par), dir| one(f, ty, tile, par, dir));
    let mut failures = Vec::new();
    for ((f, ty, tile, par), r) in jobs.iter().zip(results) {
        let name = format!("{} ({ty}, tile {tile:?}, par {par:?})", f.file_name().unwrap_or_default().to_string_lossy());
        match r {
            Ok(cycles) => println!("{name}: bit-exact under two memory seeds, {cycles} cycles"),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{} of {} designs fail:\n{}", failures.len(), jobs.len(), failures.join("\n"));
}
