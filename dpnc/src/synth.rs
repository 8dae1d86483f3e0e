//! `dpnc synth`: resource figures of the Verilog design from Yosys `synth_xilinx`, against
//! the board's capacity, and its slowest paths against the board's clock; `dpnc synth-cell`:
//! the same for one cell of the library alone.

use crate::{load, Failure, Shape, Source};
use clap::Args;
use dpnc_frontend::{dataflow, SourceMap};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub(crate) struct SynthArgs {
    #[command(flatten)]
    source: Source,
    #[command(flatten)]
    shape: Shape,
    /// The board whose capacity the figures are compared with (a catalogue name or a TOML file).
    #[arg(long, value_name = "NAME|FILE", default_value = "vcu1525")]
    board: String,
    /// Print the figures as JSON.
    #[arg(long)]
    json: bool,
    /// Also say where the resources go: synthesise with the module hierarchy kept and print
    /// each module's instances and their own cells (the total comes out a little above the
    /// flattened design's: no optimisation across module boundaries).
    #[arg(long)]
    per_module: bool,
    /// Also say how deep the logic is: per module, the slowest combinational path between
    /// registers (or ports) that one of its instances holds whole, after flattening: the clock
    /// period it needs (estimated from UltraScale+ -1 delays) against the board's clock, its LUT
    /// levels, carry cells, MUXF cells and unregistered DSP slices, and where it starts and ends.
    #[arg(long)]
    timing: bool,
    /// Bring the report of this design in DIR (`report.html`, written by `dpnc KERNEL -o DIR`
    /// with the same kernel and options) up to date with these figures.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Keep the design and Yosys's log here (default: a temporary directory, removed).
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
}

pub(crate) fn run(sm: &mut SourceMap, args: &SynthArgs) -> Result<(), Failure> {
    let board = dpnc_boards::load(&args.board).map_err(|e| e.to_string())?;
    let p = load(sm, &args.source)?;
    args.shape.note_hardware();
    let cfg = dpnc_dpn::Config { codegen: true, ..args.shape.config(false) };
    let dpn = dpnc_dpn::build(&p, &dataflow::compute(&p)?, &cfg)?;
    let report = crate::report::Facts::open_for(args.report.as_deref(), &p, &dpn, &args.source.file, &board, args.shape.simd)?;
    let design = dpnc_rtl::generate_with(&p, &dpn, &args.shape.rtl()).map_err(|e| format!("cannot generate Verilog: {e}"))?;
    let (work, temporary) = work_dir(&args.work, "dpnc-synth");
    let files = design.write(&work)?;
    let mut bar = crate::progress::Progress::new("dpnc synth", None);
    bar.note(&format!("yosys synth_xilinx on {} ({} files); large designs take minutes …", design.top, files.len()));
    let t = std::time::Instant::now();
    let ask = dpnc_rtl::synth::Ask { per_module: args.per_module, timing: args.timing };
    let r = dpnc_rtl::synth::yosys(&work, &design.top, &files, ask);
    bar.finish();
    if temporary {
        let _ = std::fs::remove_dir_all(&work);
    }
    let dpnc_rtl::synth::Synthesis { total: r, modules, paths } = r?;
    eprintln!("dpnc: yosys took {:.1} s", t.elapsed().as_secs_f64());
    if let (Some(facts), Some(dir)) = (report, &args.report) {
        facts.fill_and_write(dir, |f| f.synthesis = Some(crate::report::SynthFacts { total: r.clone(), modules: modules.clone() }))?;
    }
    let rows = [
        ("LUT", r.luts as f64, board.luts as f64),
        ("FF", r.ffs as f64, board.ffs as f64),
        ("BRAM36", r.bram36, board.bram36 as f64),
        ("URAM", r.uram as f64, board.uram as f64),
        ("DSP", r.dsps as f64, board.dsps as f64),
    ];
    if args.json {
        let j = serde_json::json!({ "kernel": design.top, "board": board.name, "part": board.part, "resources": r, "modules": modules, "paths": paths,
            "capacity": { "luts": board.luts, "ffs": board.ffs, "bram36": board.bram36, "uram": board.uram, "dsps": board.dsps } });
        println!("{}", serde_json::to_string_pretty(&j).map_err(|e| e.to_string())?);
    } else {
        println!("{} on {} ({}), Yosys synth_xilinx (xcup):", design.top, board.name, board.part);
        println!("{:<8} {:>12} {:>12} {:>8}", "resource", "used", "available", "share");
        for (name, used, cap) in rows {
            println!("{name:<8} {used:>12} {cap:>12} {:>7.2}%", 100.0 * used / cap.max(1.0));
        }
        if !modules.is_empty() {
            println!("\nper module (hierarchy kept; each row: all its instances' own cells, submodules not included):");
            println!("{:<28} {:>9} {:>9} {:>8} {:>7} {:>6} {:>6}", "module", "instances", "LUT", "FF", "BRAM36", "URAM", "DSP");
            for m in &modules {
                let t = &m.total;
                println!("{:<28} {:>9} {:>9} {:>8} {:>7} {:>6} {:>6}", m.module, m.instances, t.luts, t.ffs, t.bram36, t.uram, t.dsps);
            }
        }
        if args.timing {
            print_paths(&paths, board.clock_mhz);
        }
    }
    Ok(())
}

/// Each module's slowest path, slowest first, against the period of a `clock_mhz` clock.
fn print_paths(paths: &[dpnc_rtl::timing::ModuleDepth], clock_mhz: f64) {
    let budget = dpnc_rtl::timing::delay::period_of(clock_mhz);
    println!(
        "\nslowest path per module (flattened; slowest first): the clock period it needs, estimated from UltraScale+ -1 delays; {clock_mhz} MHz allows {budget} ps"
    );
    println!("{:<28} {:>6} {:>6} {:>4} {:>5} {:>4} {:>3}  from -> to", "module", "ps", "levels", "LUT", "carry", "MUXF", "DSP");
    for p in paths {
        let d = &p.depth;
        let over = if d.ps > budget { " (over)" } else { "" };
        println!(
            "{:<28} {:>6} {:>6} {:>4} {:>5} {:>4} {:>3}  {} -> {}{over}",
            p.module,
            d.ps,
            d.levels(),
            d.luts,
            d.carries,
            d.muxes,
            d.dsps,
            p.from,
            p.to
        );
        if !p.through.is_empty() {
            println!("{:<28} via {}", "", p.through.join(", "));
        }
    }
}

#[derive(Args, Debug)]
pub(crate) struct SynthCellArgs {
    /// The cell, as its module is named (`dpn_fadd`, `dpn_fifo`, …; the files are in the
    /// library's `cells/` folders), or a Verilog file holding one module named as the file
    /// (a module of a design that `dpnc -o DIR` or `dpnc synth --work DIR` wrote, such as an
    /// iteration generator; the other Verilog files of its folder are read with it, for the
    /// modules it instantiates).
    cell: String,
    /// Set a parameter of the cell (repeatable), e.g. `-G EW=11 -G MW=52 -G LATENCY=5`.
    #[arg(short = 'G', value_name = "NAME=VALUE", value_parser = parse_setting)]
    set: Vec<(String, String)>,
    /// The board whose clock is the budget (a catalogue name or a TOML file).
    #[arg(long, value_name = "NAME|FILE", default_value = "vcu1525")]
    board: String,
    /// Keep the wrapper, the cells and Yosys's log here (default: a temporary directory, removed).
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
}

fn parse_setting(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("`{s}` is not NAME=VALUE")),
    }
}

/// `dpnc synth-cell`: a cell of the library alone, its ports registered, through Yosys; its
/// resources and its slowest path against the board's clock.
pub(crate) fn run_cell(args: &SynthCellArgs) -> Result<(), Failure> {
    let board = dpnc_boards::load(&args.board).map_err(|e| e.to_string())?;
    let (work, temporary) = work_dir(&args.work, "dpnc-synth-cell");
    let file = std::path::Path::new(&args.cell);
    let (module, extra) = match file.extension().is_some_and(|e| e == "v") {
        true if !file.is_file() => return Err(format!("{}: no such file", file.display()).into()),
        true => (file.file_stem().map_or(String::new(), |s| s.to_string_lossy().into_owned()), Some(file)),
        false => (args.cell.clone(), None),
    };
    let r = dpnc_rtl::timing::cell::time_cell(&work, &module, &args.set, extra);
    if temporary {
        let _ = std::fs::remove_dir_all(&work);
    }
    let dpnc_rtl::synth::Synthesis { total: t, paths, .. } = r?;
    let set: Vec<String> = args.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
    println!(
        "{} {} between registers, Yosys synth_xilinx (xcup): {} LUT, {} FF, {} DSP, {} BRAM36",
        module,
        set.join(" "),
        t.luts,
        t.ffs,
        t.dsps,
        t.bram36
    );
    print_paths(&paths, board.clock_mhz);
    Ok(())
}

/// Where Yosys works: `work`, or a temporary directory named after `tag` (the bool: remove it
/// afterwards).
fn work_dir(work: &Option<PathBuf>, tag: &str) -> (PathBuf, bool) {
    match work {
        Some(d) => (d.clone(), false),
        None => (std::env::temp_dir().join(format!("{tag}-{}", std::process::id())), true),
    }
}
