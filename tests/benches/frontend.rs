//! Times the frontend (preprocess + parse + model, then exact dataflow) per kernel.
//! `cargo bench -p dpnc-tests --bench frontend`; with `POLYBENCH_DIR=…` also the 30 PolyBench/C kernels
//! at MEDIUM size (`POLYBENCH_DATASET` overrides the dataset macro).

use dpnc_frontend::{dataflow, Options, SourceMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn time(f: &Path, opts: &Options, reps: u32) -> Result<(Duration, Duration), String> {
    let (mut front, mut flow) = (Duration::MAX, Duration::MAX);
    for _ in 0..reps {
        let mut sm = SourceMap::new();
        let t = Instant::now();
        let p = dpnc_frontend::load(&mut sm, f, opts).map_err(|d| d.render(&sm))?;
        let t1 = t.elapsed();
        let t = Instant::now();
        dataflow::compute(&p).map_err(|d| d.render(&sm))?;
        front = front.min(t1);
        flow = flow.min(t.elapsed());
    }
    Ok((front, flow))
}

fn report(title: &str, files: &[PathBuf], opts: &Options) {
    println!("\n{title}\n{:<18} {:>12} {:>12} {:>12}", "kernel", "parse+model", "dataflow", "total");
    let mut worst = Duration::ZERO;
    for f in files {
        let name = f.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        match time(f, opts, 5) {
            Ok((a, b)) => {
                worst = worst.max(a + b);
                println!(
                    "{name:<18} {:>9.2} ms {:>9.2} ms {:>9.2} ms",
                    a.as_secs_f64() * 1e3,
                    b.as_secs_f64() * 1e3,
                    (a + b).as_secs_f64() * 1e3
                );
            }
            Err(e) => println!("{name:<18} failed: {}", e.lines().next().unwrap_or("")),
        }
    }
    println!("slowest: {:.2} ms (best of 5 runs each)", worst.as_secs_f64() * 1e3);
}

fn main() {
    report("project test kernels", &dpnc_tests::kernels(), &Options::default());
    if let Some((dataset, files, opts)) = dpnc_tests::polybench(&[]) {
        report(&format!("PolyBench/C 4.2.1, {dataset}"), &files, &opts);
    }
}
