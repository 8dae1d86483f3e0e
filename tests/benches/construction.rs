//! Times DPN construction (tiling search + network building) per kernel, tiles 32.
//! `cargo bench -p dpnc-tests --bench construction`; with `POLYBENCH_DIR=…` the PolyBench/C kernels at
//! `POLYBENCH_DATASET` (default MEDIUM_DATASET).

use dpnc_frontend::{dataflow, Options, SourceMap};
use std::path::PathBuf;
use std::time::Instant;

fn report(title: &str, files: &[PathBuf], opts: &Options) {
    println!("\n{title}\n{:<18} {:>12} {:>10} {:>10} {:>10}", "kernel", "instances", "dataflow", "build", "channels");
    for f in files {
        let name = f.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        let mut sm = SourceMap::new();
        let p = match dpnc_frontend::load(&mut sm, f, opts) {
            Ok(p) => p,
            Err(d) => {
                println!("{name:<18} frontend error: {}", d.message);
                continue;
            }
        };
        let t = Instant::now();
        let Ok(sare) = dataflow::compute(&p) else { continue };
        let t_flow = t.elapsed();
        let t = Instant::now();
        let cfg = dpnc_dpn::Config {
            tile: vec![32],
            par: vec![1],
            subbands: Default::default(),
            hyperplanes: None,
            max_instances: 0,
            progress: false,
            on_step: None,
            keep_traces: false,
            codegen: false,
            every_band: false,
            chunk: 0,
            max_band: 0,
        };
        match dpnc_dpn::build(&p, &sare, &cfg) {
            Ok(dpn) => {
                let inst: u64 = dpn
                    .processes
                    .iter()
                    .filter(|pr| matches!(pr.kind, dpnc_dpn::ir::ProcessKind::Compute { .. }))
                    .map(|pr| pr.iterations)
                    .sum();
                println!(
                    "{name:<18} {inst:>12} {:>8.2} s {:>8.2} s {:>10}",
                    t_flow.as_secs_f64(),
                    t.elapsed().as_secs_f64(),
                    dpn.channels.len()
                );
            }
            Err(e) => println!("{name:<18} {:>12} {:>8.2} s  not built: {}", "-", t_flow.as_secs_f64(), e),
        }
    }
}

fn main() {
    report("project test kernels", &dpnc_tests::kernels(), &Options::default());
    if let Some((dataset, files, opts)) = dpnc_tests::polybench(&["DATA_TYPE_IS_FLOAT"]) {
        report(&format!("PolyBench/C 4.2.1, {dataset}, float, tiles 32"), &files, &opts);
    }
}
