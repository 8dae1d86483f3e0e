//! Long-running differential testing over random kernels:
//!
//! ```text
//! cargo run --release -p dpnc-tests --bin diff -- --seeds 1000 [--start S] [--out DIR] [--minimise-secs T] [--show SEED]
//! ```
//!
//! Every seed's kernel goes through the interpreter, the SARE evaluator and the DPN executor
//! at random tile sizes and `--par` with two executor seeds; a failing kernel is minimised
//! and its reproducer written to `DIR/seed-SEED.c` (default `diff-out/`). `--show SEED`
//! prints one kernel and exits. The exit code is non-zero when anything failed.

use dpnc_tests::diff;
use dpnc_tests::gen::Kernel;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let mut seeds = 100u64;
    let mut start = 0u64;
    let mut out = PathBuf::from("diff-out");
    let mut minimise = 60u64;
    let mut args = std::env::args().skip(1);
    let usage = "usage: diff [--seeds N] [--start S] [--out DIR] [--minimise-secs T] [--show SEED]";
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| fail(usage));
        match a.as_str() {
            "--seeds" => seeds = val().parse().unwrap_or_else(|_| fail(usage)),
            "--start" => start = val().parse().unwrap_or_else(|_| fail(usage)),
            "--out" => out = PathBuf::from(val()),
            "--minimise-secs" => minimise = val().parse().unwrap_or_else(|_| fail(usage)),
            "--show" => {
                let s: u64 = val().parse().unwrap_or_else(|_| fail(usage));
                let k = Kernel::generate(s);
                print!("{}", k.render());
                for c in diff::random_configs(s, diff::depth(&k)) {
                    println!("// {}", c.label());
                }
                return;
            }
            "-h" | "--help" => {
                println!("{usage}");
                return;
            }
            _ => fail(usage),
        }
    }
    let t0 = Instant::now();
    let mut totals = diff::Totals::default();
    let chunk = 50;
    let mut s = start;
    while s < start + seeds {
        let end = (s + chunk).min(start + seeds);
        let t = diff::run_seeds(s..end, Some(&out), Duration::from_secs(minimise), true);
        totals.kernels += t.kernels;
        totals.runs += t.runs;
        totals.statements += t.statements;
        totals.failures.extend(t.failures);
        eprintln!(
            "seeds {start}..{end}: {} kernels, {} engine runs, {} failing, {:.0} s",
            totals.kernels,
            totals.runs,
            totals.failures.len(),
            t0.elapsed().as_secs_f64()
        );
        s = end;
    }
    println!(
        "{} kernels ({} statements), {} engine runs compared bit for bit, {} failing kernel(s) in {:.0} s",
        totals.kernels,
        totals.statements,
        totals.runs,
        totals.failures.len(),
        t0.elapsed().as_secs_f64()
    );
    for (seed, f) in &totals.failures {
        println!("  seed {seed}: {f}");
    }
    if !totals.failures.is_empty() {
        std::process::exit(1);
    }
}

fn fail(usage: &str) -> ! {
    eprintln!("error: {usage}");
    std::process::exit(2)
}
