//! `dpnc check`: every engine and backend on the same random inputs, compared bit for bit
//! with the reference interpreter, as a table. Backends whose tools are missing are
//! skipped with the reason.

use crate::{load, Failure, Shape, Source};
use clap::Args;
use dpnc_frontend::{dataflow, interp, sare_eval, SourceMap, Store};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    source: Source,
    #[command(flatten)]
    shape: Shape,
    /// Seed of the random inputs.
    #[arg(long, default_value = "1")]
    seed: u64,
    /// The board the Vitis HLS kernel is generated for (its banks and platform; the software
    /// run does not depend on it).
    #[arg(long, value_name = "NAME|FILE", default_value = "vcu1525")]
    board: String,
    /// Keep the generated programs here (default: a temporary directory, removed).
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
}

enum Status {
    Reference,
    Exact,
    Mismatch(String),
    Failed(String),
    Skipped(String),
}

struct Row {
    backend: &'static str,
    status: Status,
    secs: Option<f64>,
    note: String,
}

/// The row of a backend built and run natively: (outputs, build seconds, run seconds).
fn built_row(backend: &'static str, built: Result<(Store, f64, f64), String>, compare: &dyn Fn(&Store) -> Status) -> Row {
    match built {
        Ok((got, build, secs)) => Row { backend, status: compare(&got), secs: Some(secs), note: format!("built in {build:.1} s") },
        Err(e) => Row { backend, status: Status::Failed(e), secs: None, note: String::new() },
    }
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| std::env::split_paths(&paths).map(|d| d.join(program)).find(|p| p.is_file()))
}

pub(crate) fn run(sm: &mut SourceMap, args: &CheckArgs) -> Result<(), Failure> {
    let board = dpnc_boards::load(&args.board).map_err(|e| e.to_string())?;
    let p = load(sm, &args.source)?;
    let params = p.param_values()?;
    Store::check_memory(&p, 4)?;
    let inputs = Store::random(&p, args.seed);
    let mut rows = Vec::new();
    let t = Instant::now();
    let mut want = inputs.clone();
    interp::run(&p, &params, &mut want)?;
    rows.push(Row { backend: "interpreter", status: Status::Reference, secs: Some(t.elapsed().as_secs_f64()), note: String::new() });
    let compare = |got: &Store| match Store::compare(&p, &want, got) {
        None => Status::Exact,
        Some(m) => Status::Mismatch(m.to_string()),
    };
    let t = Instant::now();
    let sare = dataflow::compute(&p)?;
    let status = match sare_eval::evaluate(&p, &sare, &params, &inputs) {
        Ok(got) => compare(&got),
        Err(d) => Status::Failed(d.message),
    };
    rows.push(Row { backend: "SARE evaluator", status, secs: Some(t.elapsed().as_secs_f64()), note: String::new() });
    let t = Instant::now();
    let cfg = dpnc_dpn::Config { codegen: true, ..args.shape.config(true) };
    let dpnc_dpn::Construction { dpn, traces, .. } = dpnc_dpn::construct(&p, &sare, &cfg)?;
    let note = format!("network built in {:.2} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let status = match dpnc_dpn::exec::run(&p, &dpn, &traces, &inputs, &dpnc_dpn::exec::Options { seed: args.seed, ..Default::default() }) {
        Ok(out) => compare(&out.store),
        Err(e) => Status::Failed(e.to_string()),
    };
    rows.push(Row { backend: "DPN executor", status, secs: Some(t.elapsed().as_secs_f64()), note });
    let (work, temporary) = match &args.work {
        Some(d) => (d.clone(), false),
        None => (std::env::temp_dir().join(format!("dpnc-check-{}", std::process::id())), true),
    };
    if which("g++").is_some() {
        eprintln!("dpnc: building the CPU backend with g++ …");
        let built = dpnc_hls_emit::native::cpu(&p, &dpn, &inputs, &work.join("cpu"), dpnc_hls_emit::native::CXXFLAGS);
        rows.push(built_row("CPU (g++)", built, &compare));
        eprintln!("dpnc: building the Vitis HLS kernel as software with g++ …");
        let built = dpnc_hls_emit::native::vitis(&p, &dpn, &board, &inputs, &work.join("vitis"), &[]);
        rows.push(built_row("Vitis HLS C++ (g++)", built, &compare));
    } else {
        for backend in ["CPU (g++)", "Vitis HLS C++ (g++)"] {
            rows.push(Row { backend, status: Status::Skipped("no g++ on PATH".into()), secs: None, note: String::new() });
        }
    }
    rows.push(match dpnc_hls_emit::native::nvcc() {
        None => Row {
            backend: "GPU (nvcc)",
            status: Status::Skipped("no nvcc (set DPNC_NVCC or `source scripts/cuda.sh`)".into()),
            secs: None,
            note: String::new(),
        },
        Some((nvcc, home)) => {
            eprintln!("dpnc: building the GPU backend with {nvcc} …");
            match dpnc_hls_emit::native::gpu(&p, &dpn, &inputs, &work.join("gpu"), (&nvcc, home.as_deref()), &[]) {
                Ok(Some(built)) => built_row("GPU (nvcc)", Ok(built), &compare),
                Ok(None) => Row {
                    backend: "GPU (nvcc)",
                    status: Status::Skipped("compiled with nvcc; no CUDA device to run it".into()),
                    secs: None,
                    note: String::new(),
                },
                Err(e) => Row { backend: "GPU (nvcc)", status: Status::Failed(e), secs: None, note: String::new() },
            }
        }
    });
    if which("verilator").is_some() {
        eprintln!("dpnc: building the Verilog design with Verilator …");
        let t = Instant::now();
        let mut progress = |_: &str| {};
        let run = dpnc_sim::kernel::Run {
            mem: dpnc_sim::Memory { seed: args.seed, ..dpnc_sim::Memory::default() },
            max_cycles: 2_000_000_000,
            trace: None,
            build: dpnc_sim::ModelBuild::Optimised,
            design: args.shape.rtl(),
        };
        rows.push(match dpnc_sim::kernel::simulate(&p, &dpn, &inputs, &work.join("verilog"), &run, &mut progress) {
            Ok(sim) => Row {
                backend: "Verilog (Verilator)",
                status: compare(&sim.store),
                secs: Some(t.elapsed().as_secs_f64()),
                note: format!("{} cycles, build included", sim.outcome.cycles),
            },
            Err(e) => Row { backend: "Verilog (Verilator)", status: Status::Failed(e), secs: None, note: String::new() },
        });
    } else {
        rows.push(Row {
            backend: "Verilog (Verilator)",
            status: Status::Skipped("no verilator on PATH".into()),
            secs: None,
            note: String::new(),
        });
    }
    if temporary {
        let _ = std::fs::remove_dir_all(&work);
    }
    println!("{:<20} {:<12} {:>10}  details", "backend", "status", "time");
    let mut bad = 0;
    for r in &rows {
        let (status, detail) = match &r.status {
            Status::Reference => ("reference", String::new()),
            Status::Exact => ("bit-exact", String::new()),
            Status::Mismatch(m) => {
                bad += 1;
                ("MISMATCH", format!("first difference {m} (interpreter, then this backend)"))
            }
            Status::Failed(e) => {
                bad += 1;
                ("FAILED", e.lines().next().unwrap_or("").to_string())
            }
            Status::Skipped(why) => ("skipped", why.clone()),
        };
        let secs = r.secs.map(|s| format!("{s:.3} s")).unwrap_or_default();
        let detail = [detail, r.note.clone()].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join("; ");
        println!("{:<20} {:<12} {:>10}  {detail}", r.backend, status, secs);
        if let Status::Failed(e) = &r.status {
            for l in e.lines().skip(1) {
                println!("{:<45}{l}", "");
            }
        }
    }
    if bad > 0 {
        return Err(format!("{bad} backend(s) disagree with the interpreter or failed").into());
    }
    Ok(())
}
