//! `dpnc sim`: the Verilog design under Verilator, driven like a host, against the reference
//! interpreter bit for bit, with cycles, DDR traffic and channel occupancy.

use crate::{load, Failure, Shape, Source};
use clap::Args;
use dpnc_frontend::{dataflow, interp, SourceMap, Store};
use std::fmt::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub(crate) struct SimArgs {
    #[command(flatten)]
    source: Source,
    #[command(flatten)]
    shape: Shape,
    /// Directory with one NAME.npy per kernel argument.
    #[arg(long, value_name = "DIR", conflicts_with = "random")]
    inputs: Option<PathBuf>,
    /// Fill every input with pseudo-random values from SEED (the default, seed 1).
    #[arg(long, value_name = "SEED")]
    random: Option<u64>,
    /// Memory model: the board whose banks the arrays go on (as `-o` places them), each bank
    /// moving at most its peak bandwidth at the board's kernel clock: a catalogue name or a
    /// board TOML file.
    #[arg(long, value_name = "NAME|FILE", default_value = "vcu1525")]
    board: String,
    /// Memory model: cycles from a request to its data or response.
    #[arg(long, default_value = "64")]
    latency: u32,
    /// Memory model: plus up to this many random cycles per request.
    #[arg(long, default_value = "32")]
    jitter: u32,
    /// Memory model: seed of the jitter (different seeds, different interleavings).
    #[arg(long, value_name = "SEED", default_value = "1")]
    mem_seed: u64,
    /// Memory model: read requests, and write requests, in flight per port (an AR or AW is
    /// accepted only while fewer are).
    #[arg(long, value_name = "N", default_value = "8", value_parser = clap::value_parser!(u32).range(1..))]
    outstanding: u32,
    /// Give up after this many cycles.
    #[arg(long, default_value = "2000000000")]
    max_cycles: u64,
    /// Print the figures as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Write a waveform of every signal of the design to FILE, under the generated Verilog's
    /// names (process, channel FIFO, memory port): FST for GTKWave, or VCD if FILE ends in
    /// `.vcd`. The model then builds with Verilator's tracing, and runs slower.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Bring the report of this design in DIR (`report.html`, written by `dpnc KERNEL -o DIR`
    /// with the same kernel and options) up to date with this run's figures.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Keep the design and the Verilator build here (default: a temporary directory, removed);
    /// a later run of the same design in the same DIR (another --mem-seed, --latency, …)
    /// reuses the built model.
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
    /// Debug: give channel NAME a size of CAP instead of its computed size (the FIFO cell
    /// gets CAP + 1 places, as every channel gets its size + 1).
    #[arg(long, hide = true, value_name = "NAME=CAP")]
    debug_shrink_channel: Option<String>,
}

pub(crate) fn run(sm: &mut SourceMap, args: &SimArgs) -> Result<(), Failure> {
    // The board first: a wrong name should not wait for the network.
    let board = dpnc_boards::load(&args.board).map_err(|e| e.to_string())?;
    let p = load(sm, &args.source)?;
    let params = p.param_values()?;
    Store::check_memory(&p, 3)?;
    let inputs = match &args.inputs {
        Some(dir) => Store::load(&p, dir)?,
        None => Store::random(&p, args.random.unwrap_or(1)),
    };
    let mut want = inputs.clone();
    interp::run(&p, &params, &mut want)?;
    let cfg = dpnc_dpn::Config { codegen: true, ..args.shape.config(false) };
    let mut dpn = dpnc_dpn::build(&p, &dataflow::compute(&p)?, &cfg)?;
    if let Some(spec) = &args.debug_shrink_channel {
        let (name, cap) = spec.split_once('=').ok_or_else(|| "--debug-shrink-channel wants NAME=CAP".to_string())?;
        let cap: usize = cap.parse().map_err(|e| format!("--debug-shrink-channel: `{cap}`: {e}"))?;
        let ch = dpn.channels.iter_mut().find(|c| c.name == name).ok_or_else(|| format!("no channel named `{name}`"))?;
        if ch.kind == dpnc_dpn::ir::ChannelKind::Scratchpad {
            return Err(format!("channel `{name}` is a scratchpad; shrink a FIFO").into());
        }
        ch.size = cap.max(1);
    }
    // The report first: a wrong directory should not wait for the simulation.
    let report = crate::report::Facts::open_for(args.report.as_deref(), &p, &dpn, &args.source.file, &board, args.shape.simd)?;
    let (work, temporary) = match &args.work {
        Some(d) => (d.clone(), false),
        None => (std::env::temp_dir().join(format!("dpnc-sim-{}", std::process::id())), true),
    };
    let mem = dpnc_sim::Memory {
        latency: args.latency,
        jitter: args.jitter,
        seed: args.mem_seed,
        max_outstanding: args.outstanding,
        ..dpnc_sim::Memory::for_board(&board)
    };
    // The harness runs in its own directory: the waveform's path must not depend on it.
    let trace = match &args.trace {
        Some(t) => Some(std::path::absolute(t).map_err(|e| format!("--trace {}: {e}", t.display()))?),
        None => None,
    };
    let run =
        dpnc_sim::kernel::Run { mem, max_cycles: args.max_cycles, trace, build: dpnc_sim::ModelBuild::Optimised, design: args.shape.rtl() };
    let mut bar = crate::progress::Progress::new("dpnc sim", None);
    let result = dpnc_sim::kernel::simulate(&p, &dpn, &inputs, &work, &run, &mut |line: &str| bar.note(line));
    bar.finish();
    if temporary {
        let _ = std::fs::remove_dir_all(&work);
    }
    let dpnc_sim::kernel::Simulated { store: got, outcome: out, channels: names, processes } = result?;
    let mismatch = Store::compare(&p, &want, &got);
    // The network's DDR traffic, exactly; the run's differs by the whole beats it fetched and
    // the lines its caches kept across bands.
    let needed = dpnc_dpn::metrics::report(&p, &dpn);
    let busiest = dpn.processes.iter().filter(|pr| pr.stmt().is_some()).map(|pr| pr.iterations).max().unwrap_or(0);
    let ratio = if busiest > 0 { out.cycles as f64 / busiest as f64 } else { 0.0 };
    // With vector lanes a process issues a vector of points a cycle: its bound is its vectors.
    let lanes = u64::from(args.shape.simd);
    let vectors = busiest.div_ceil(lanes);
    let size = |name: &str| dpn.channels.iter().find(|c| c.name == name).map_or(0, |c| c.cells());
    let full = |k: usize| out.full_cycles.get(k).copied().unwrap_or(0);
    if args.json {
        let peaks: Vec<serde_json::Value> = names
            .iter()
            .zip(&out.peaks)
            .enumerate()
            .map(|(k, (n, pk))| serde_json::json!({ "channel": n, "size": size(n), "peak": pk, "cycles_full": full(k) }))
            .collect();
        let j = serde_json::json!({
            "kernel": dpn.kernel,
            "bit_exact": mismatch.is_none(),
            "mismatch": mismatch.as_ref().map(|m| m.to_string()),
            "cycles": out.cycles,
            "busiest_process_iterations": busiest,
            "cycles_per_iteration": ratio,
            "lanes": lanes,
            "busiest_process_issues": vectors,
            "ddr_bytes_read": needed.ddr_read_bytes,
            "ddr_bytes_written": needed.ddr_write_bytes,
            "ddr_bytes_fetched": out.bytes_read,
            "ports": out.ports,
            "channels": peaks,
            "processes": processes.iter().zip(&out.processes).map(|(n, c)| serde_json::json!({
                "process": n, "work_cycles": c.work, "wait_in_cycles": c.wait_in, "wait_out_cycles": c.wait_out, "done_at": c.done_at })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&j).map_err(|e| e.to_string())?);
    } else {
        let mut o = String::new();
        let _ = writeln!(o, "kernel {}: {}", dpn.kernel, if mismatch.is_none() { "bit-exact with the interpreter" } else { "MISMATCH" });
        let _ = writeln!(o, "cycles              {}", out.cycles);
        if lanes > 1 {
            let per_vector = out.cycles as f64 / vectors.max(1) as f64;
            let _ = writeln!(
                o,
                "busiest process     {busiest} iterations in {vectors} vectors of {lanes} lanes ({per_vector:.2} cycles per vector)"
            );
        } else {
            let _ = writeln!(o, "busiest process     {busiest} iterations ({ratio:.2} cycles per iteration)");
        }
        // More: whole beats hold cells the network does not load; fewer: a line the cache still
        // holds serves a later band's load of it.
        let (more, diff) = match out.bytes_read.checked_sub(needed.ddr_read_bytes) {
            Some(d) => ("more", d),
            None => ("fewer", needed.ddr_read_bytes - out.bytes_read),
        };
        let again: u64 = out.ports.iter().map(|p| p.bytes_reread).sum();
        let _ = writeln!(
            o,
            "DDR bytes read      {} (the network's loads), {} fetched in whole beats: {diff} {more} ({:.1} %); {again} of them fetched again",
            needed.ddr_read_bytes,
            out.bytes_read,
            100.0 * diff as f64 / needed.ddr_read_bytes.max(1) as f64
        );
        let _ = writeln!(o, "DDR bytes written   {}", out.bytes_written);
        let _ = writeln!(o, "{:<44} {:>8} {:>8} {:>12}", "channel (stream)", "size", "peak", "cycles full");
        for (k, (name, pk)) in names.iter().zip(&out.peaks).enumerate() {
            let _ = writeln!(o, "{name:<44} {:>8} {pk:>8} {:>12}", size(name), full(k));
        }
        let _ = writeln!(o, "{:<44} {:>10} {:>12} {:>12} {:>10}", "process (cycles)", "working", "wait input", "wait room", "done at");
        for (name, c) in processes.iter().zip(&out.processes) {
            let _ = writeln!(o, "{name:<44} {:>10} {:>12} {:>12} {:>10}", c.work, c.wait_in, c.wait_out, c.done_at);
        }
        print!("{o}");
    }
    if let (Some(facts), Some(dir)) = (report, &args.report) {
        let simulation = crate::report::SimFacts {
            cycles: out.cycles,
            bit_exact: mismatch.is_none(),
            mismatch: mismatch.as_ref().map(|m| m.to_string()),
            memory: format!(
                "{}'s banks at their peak bandwidth, latency {} + up to {} cycles, {} requests in flight per port, memory seed {}",
                board.name, args.latency, args.jitter, args.outstanding, args.mem_seed
            ),
            busiest_iterations: busiest,
            bytes_fetched: out.bytes_read,
            bytes_written: out.bytes_written,
            processes: processes
                .iter()
                .zip(&out.processes)
                .map(|(n, c)| crate::report::SimProcess { name: n.clone(), cycles: *c })
                .collect(),
            channels: names
                .iter()
                .zip(&out.peaks)
                .enumerate()
                .map(|(k, (n, pk))| crate::report::SimChannel { name: n.clone(), peak: *pk, cycles_full: full(k) })
                .collect(),
        };
        facts.fill_and_write(dir, |f| f.simulation = Some(simulation))?;
    }
    if let Some(m) = mismatch {
        return Err(format!("the simulated design differs from the interpreter: first difference {m} (interpreter, then Verilog)").into());
    }
    Ok(())
}
