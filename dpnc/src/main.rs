//! `dpnc`: the command line of the data-aware process network compiler.

mod check;
mod emit;
mod explore;
mod plot;
mod progress;
mod publish;
mod report;
mod sim;
mod synth;

use clap::{Args, Parser, Subcommand, ValueEnum};
use dpnc_frontend::{Diagnostic, Options, Program, SourceMap, Store};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// High-level synthesis of affine C loop kernels into data-aware process networks.
///
/// dpnc reads a loop kernel written in a subset of C (the region between `#pragma scop` and
/// `#pragma endscop`, or the function named by --kernel), builds its polyhedral model, its
/// exact dataflow and its data-aware process network (bands of load, compute and store
/// processes joined by channels), reports DDR traffic and on-chip memory, and checks every
/// stage bit for bit against a reference interpreter. `-o DIR` writes the network as a Verilog
/// RTL kernel for --board (or, with --target, as Vitis HLS C++, CPU C++ or CUDA) with its report
/// page beside it (`report.html`); `sim` runs the Verilog under Verilator and `synth` gives its
/// resources from Yosys, both adding their figures to that page with `--report DIR`.
#[derive(Parser, Debug)]
#[command(
    name = "dpnc",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  dpnc gemm.c --tile 32 --board vcu1525 -o out/\n  dpnc sim gemm.c --tile 32 --par 2,2\n  dpnc gemm.c --emit scop\n  dpnc gemm.c -I polybench/utilities -DMEDIUM_DATASET --emit sare\n  dpnc run gemm.c --random 1 --outputs out/ --check\n  dpnc run gemm.c --inputs out/inputs --outputs out2/"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    compile: CompileArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Execute the kernel with the reference interpreter on .npy inputs.
    ///
    /// Inputs and outputs are one NumPy .npy file per variable, named after it. With
    /// --random, every input gets deterministic pseudo-random values, written to
    /// OUTPUTS/inputs/ so that the run can be repeated with --inputs.
    Run(RunArgs),
    /// Sweep tile sizes: DDR traffic, arithmetic intensity and on-chip memory per size, with
    /// a roofline against the board, as a table and an SVG plot.
    Explore(explore::ExploreArgs),
    /// Run the interpreter, the SARE evaluator, the DPN executor and every backend whose
    /// tools are present on the same random inputs, and compare them bit for bit.
    ///
    /// Prints one row per backend: bit-exact, MISMATCH (with the first differing array
    /// element and both values), FAILED, or skipped and why. Exits non-zero on any mismatch
    /// or failure.
    Check(check::CheckArgs),
    /// Simulate the Verilog design under Verilator against the interpreter, bit for bit.
    ///
    /// Generates the RTL kernel, builds a Verilator model with a harness that drives the
    /// control registers like a host and serves the AXI masters from a memory model (latency,
    /// seeded jitter, the board's banks at their peak bandwidth), runs it, and compares every
    /// output array with the interpreter's. Prints cycles, DDR bytes (the network's, and those
    /// fetched in whole beats), per-channel peak occupancy and per process the cycles it worked,
    /// waited for an input and waited for room, and the cycle it was done (a table, or --json):
    /// the last process done is the one that set the run's length. A deadlock or timeout is
    /// reported with the processes and channels involved.
    Sim(sim::SimArgs),
    /// Synthesise the Verilog design with Yosys (synth_xilinx, UltraScale+) and report LUT,
    /// FF, BRAM, URAM and DSP use against the board's capacity.
    Synth(synth::SynthArgs),
    /// Time a cell of the library alone: its inputs and outputs registered, Yosys synth_xilinx,
    /// its resources and the slowest path inside it against the board's clock (as `synth
    /// --timing` measures a design).
    SynthCell(synth::SynthCellArgs),
    /// List the boards compiled into dpnc (for --board): part, resources, memory, default clock
    /// and Vitis platform.
    Boards,
}

#[derive(Args, Debug)]
pub(crate) struct Source {
    /// The C file holding the kernel.
    file: PathBuf,
    /// Add DIR to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Define macro NAME (to VALUE, default 1), as a C compiler does.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// The kernel function, when the file has no `#pragma scop` or several.
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Value of a size parameter, overriding the one passed by `main`.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    params: Vec<(String, i64)>,
}

/// How to tile and parallelise (the process network's shape).
#[derive(Args, Debug, Clone)]
pub(crate) struct Shape {
    /// Tile sizes along the tiling hyperplanes (the last one repeats).
    #[arg(long, value_name = "S1,S2,…", value_delimiter = ',', default_values_t = [dpnc_dpn::shape::DEFAULT_TILE])]
    tile: Vec<i64>,
    /// Parallel sub-bands along the outer tiling hyperplanes (the last value repeats, as for
    /// --tile: `--par 2` splits each outer hyperplane in two, `--par 2,1` only the first).
    #[arg(long, value_name = "P1,P2,…", value_delimiter = ',', default_value = "1")]
    par: Vec<i64>,
    /// How --par divides a tile among its sub-bands, along each hyperplane whose tile size
    /// the count divides (slices elsewhere).
    #[arg(long, value_enum, default_value_t = Subbands::Auto)]
    subbands: Subbands,
    /// Tiling hyperplanes per statement, e.g. "S0: t, 2t + i; S1: t, 2t + i + 1": every
    /// statement of a loop nest named, or none (nests not named keep their own).
    #[arg(long, value_name = "SPEC")]
    hyperplanes: Option<String>,
    /// Vector lanes of the Verilog design (`--target verilog`, `sim`, `synth`): each compute
    /// process runs W consecutive points of its innermost loop per cycle, and each DDR access
    /// and FIFO entry moves W values. Where every loop's points come in whole aligned vectors
    /// with no dependence inside one; dpnc says why where lanes do not apply. With lanes,
    /// `--subbands auto` makes slices (an interleaved sub-band's points are not consecutive).
    #[arg(long, value_name = "W", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    simd: u32,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy)]
pub(crate) enum Subbands {
    /// Interleaved along hyperplanes that carry no dependence (the sub-bands exchange no
    /// values: it balances bands the domain cuts short) and along the others where a band is one
    /// tile along its last hyperplane (whole rows: --tile 64,1024 for Jacobi-1D); slices elsewhere,
    /// and everywhere with --simd
    Auto,
    /// Sub-band l of q takes the l-th of q consecutive slices of each tile
    Slices,
    /// Sub-band l of q takes every q-th row of each tile from its l-th; along a hyperplane
    /// that carries values, the sub-bands form a ring that pays off where a tile's rows are long
    /// against the datapath's latency
    Interleaved,
}

impl Shape {
    /// Hardware only: a tile size that is not a power of two costs a divider wherever a tile
    /// coordinate is taken (guards, memory processes' keys); say so before Yosys finds out.
    pub(crate) fn note_hardware(&self) {
        let odd: Vec<String> = self.tile.iter().filter(|&&t| t > 0 && t & (t - 1) != 0).map(|t| t.to_string()).collect();
        if !odd.is_empty() {
            eprintln!(
                "dpnc: note: tile size {} is not a power of two: the Verilog design divides by it (a combinational divider at each use; power-of-two tiles take bits instead)",
                odd.join(", ")
            );
        }
    }
    /// The Verilog backend's options.
    pub(crate) fn rtl(&self) -> dpnc_rtl::Options {
        dpnc_rtl::Options { simd: self.simd }
    }
    /// Vector lanes are built in the Verilog design only: an error for `what` (a target or a
    /// command) if they are asked for.
    pub(crate) fn lanes_only_in_verilog(&self, what: &str) -> Result<(), String> {
        match self.simd {
            1 => Ok(()),
            w => Err(format!("--simd {w}: vector lanes are built in the Verilog design only (`--target verilog`, `dpnc sim`, `dpnc synth`), not for {what}")),
        }
    }
    /// `traces`: the network will be executed (`run --check`).
    pub(crate) fn config(&self, traces: bool) -> dpnc_dpn::Config {
        dpnc_dpn::Config {
            tile: self.tile.clone(),
            par: self.par.clone(),
            subbands: match self.subbands {
                Subbands::Auto if self.simd > 1 => dpnc_dpn::shape::Layout::Slices,
                Subbands::Auto => dpnc_dpn::shape::Layout::Auto,
                Subbands::Slices => dpnc_dpn::shape::Layout::Slices,
                Subbands::Interleaved => dpnc_dpn::shape::Layout::Interleaved,
            },
            hyperplanes: self.hyperplanes.clone(),
            max_instances: 0,
            progress: true,
            on_step: Some(progress::construction()),
            keep_traces: traces,
            codegen: false,
            every_band: false,
            chunk: 0,
            max_band: 0,
        }
    }
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum Emit {
    /// The polyhedral model: parameters, domains, accesses, schedule (isl notation).
    Scop,
    /// The system of affine recurrence equations from exact dataflow.
    Sare,
    /// The data-aware process network as JSON.
    DpnJson,
    /// The process network as a Graphviz graph.
    Dot,
}

#[derive(Args, Debug)]
struct CompileArgs {
    #[command(flatten)]
    source: Option<Source>,
    /// What to print.
    #[arg(long, value_enum)]
    emit: Option<Emit>,
    /// Print the network's figures: DDR traffic, arithmetic intensity, on-chip memory.
    #[arg(long)]
    report: bool,
    /// What to generate with -o: `vitis` writes Vitis HLS C++ for --board (kernel.cpp, an XRT
    /// host, connectivity, a Makefile with sw/csim/hw_emu/hw targets); `cpu` C++17 with one
    /// thread per process (kernel.cpp, its runtime header and a Makefile); `gpu` the same
    /// network in CUDA (kernel.cu). The software builds run as `./kernel IN_DIR OUT_DIR` (Vitis:
    /// `./kernel_sw`) on one .npy per argument.
    #[arg(long, value_enum)]
    target: Option<Target>,
    /// The board to build for: a catalogue name (`dpnc boards` lists them) or a board TOML file.
    #[arg(long, value_name = "NAME|FILE", default_value = "vcu1525")]
    board: String,
    /// Output directory for --target, with the design's report (`report.html`, and its facts
    /// in `report.json`). It is written whole or not at all, replacing what an earlier run
    /// wrote there.
    #[arg(short = 'o', value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace the output directory even if it holds files that dpnc did not write.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    shape: Shape,
}

#[derive(Copy, Clone, Debug, PartialEq, ValueEnum)]
enum Target {
    /// Verilog: the network as an RTL kernel (Vitis shell: AXI4-Lite control, one AXI4 master
    /// per array), with the cell library it uses.
    Verilog,
    /// Vitis HLS C++ (hls::stream channels, a dataflow top function) with its board files.
    Vitis,
    /// C++17 threads and bounded channels, bit-exact with the interpreter.
    Cpu,
    /// CUDA: every process a single-thread block of one launch (build with nvcc --fmad=false).
    Gpu,
}

impl Target {
    /// As `--target` spells it.
    fn name(self) -> &'static str {
        match self {
            Target::Verilog => "verilog",
            Target::Vitis => "vitis",
            Target::Cpu => "cpu",
            Target::Gpu => "gpu",
        }
    }
}

#[derive(Args, Debug)]
struct RunArgs {
    #[command(flatten)]
    source: Source,
    /// Directory with one NAME.npy per kernel argument.
    #[arg(long, value_name = "DIR", conflicts_with = "random", required_unless_present = "random")]
    inputs: Option<PathBuf>,
    /// Fill every input with pseudo-random values from SEED.
    #[arg(long, value_name = "SEED")]
    random: Option<u64>,
    /// Directory for the results (NAME.npy per argument the kernel writes), written whole or
    /// not at all.
    #[arg(long, value_name = "DIR")]
    outputs: PathBuf,
    /// Replace the outputs directory even if it holds files that dpnc did not write.
    #[arg(long)]
    force: bool,
    /// Also run the SARE evaluator and the process network, and check them against the
    /// interpreter bit for bit.
    #[arg(long)]
    check: bool,
    #[command(flatten)]
    shape: Shape,
    /// Debug: run the network with channel NAME shrunk to CAP values.
    #[arg(long, hide = true, value_name = "NAME=CAP")]
    debug_shrink_channel: Option<String>,
}

fn parse_param(s: &str) -> Result<(String, i64), String> {
    let (n, v) = s.split_once('=').ok_or("expected NAME=VALUE")?;
    let v = v.trim().parse::<i64>().map_err(|e| format!("`{v}` is not an integer: {e}"))?;
    Ok((n.trim().to_string(), v))
}

impl Source {
    fn options(&self) -> Options {
        Options {
            include_dirs: self.include.clone(),
            defines: self
                .define
                .iter()
                .map(|d| match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (d.clone(), None),
                })
                .collect(),
            kernel: self.kernel.clone(),
            params: self.params.clone(),
        }
    }
}

/// A failure to report: a diagnostic about the input, or a plain message.
pub(crate) enum Failure {
    Diag(Diagnostic),
    Msg(String),
}

impl From<Diagnostic> for Failure {
    fn from(d: Diagnostic) -> Self {
        Failure::Diag(d)
    }
}
impl From<dpnc_dpn::Error> for Failure {
    fn from(e: dpnc_dpn::Error) -> Self {
        Failure::Diag(e.into_diagnostic())
    }
}
impl From<String> for Failure {
    fn from(m: String) -> Self {
        Failure::Msg(m)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A panic is a bug in dpnc: say so in one line, without a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let what =
            info.payload().downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| info.payload().downcast_ref::<String>().cloned());
        let at = info.location().map_or(String::new(), |l| format!(" ({}:{})", l.file(), l.line()));
        let near = REGION.get().map_or(String::new(), |(_, at)| format!("\n  = note: while compiling the kernel at {at}"));
        eprintln!(
            "error: internal error{at}: {}{near}\n  = note: this is a bug in dpnc, not in the kernel; please report it with the kernel and the command line",
            what.unwrap_or_else(|| "a thread panicked".into())
        );
    }));
    // Deeply nested input recurses deeply; give the compiler room (the parser bounds depth).
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || real_main(cli))
        .ok()
        .and_then(|t| t.join().ok())
        .unwrap_or(ExitCode::FAILURE)
}

fn real_main(cli: Cli) -> ExitCode {
    let mut sm = SourceMap::new();
    let result = match &cli.command {
        Some(Command::Run(args)) => run(&mut sm, args),
        Some(Command::Explore(args)) => explore::run(&mut sm, args),
        Some(Command::Check(args)) => check::run(&mut sm, args),
        Some(Command::Sim(args)) => sim::run(&mut sm, args),
        Some(Command::Synth(args)) => synth::run(&mut sm, args),
        Some(Command::SynthCell(args)) => synth::run_cell(args),
        Some(Command::Boards) => boards(),
        None => compile(&mut sm, &cli.compile),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Diag(d)) => {
            eprint!("{}", located(d).render(&sm));
            ExitCode::FAILURE
        }
        Err(Failure::Msg(m)) => {
            eprintln!("error: {m}");
            ExitCode::FAILURE
        }
    }
}

/// The Verilog design's files: the generated modules, the cells they use (under `cells/`) and
/// the Vitis packaging files for `board`.
fn verilog_files(
    p: &Program,
    dpn: &dpnc_dpn::Dpn,
    board: &dpnc_boards::Board,
    opts: &dpnc_rtl::Options,
) -> Result<Vec<(String, String)>, dpnc_rtl::RtlError> {
    let design = dpnc_rtl::generate_with(p, dpn, opts)?;
    let mut files = dpnc_rtl::shell::files(&design, board);
    files.push(("host.cpp".into(), dpnc_hls_emit::xrt_host::generate(p, &dpn.kernel)));
    files.extend(dpnc_hls_emit::runtime_files());
    files.extend(design.files);
    for cell in &design.cells {
        let text = dpnc_rtl::cells::text(cell).map_err(|why| dpnc_rtl::RtlError::Unsupported { what: format!("cell {cell}"), why })?;
        files.push((dpnc_rtl::cells::path(cell), text.to_string()));
    }
    Ok(files)
}

/// `dpnc boards`: the board catalogue as a table.
fn boards() -> Result<(), Failure> {
    let head = ["board", "part", "LUT", "DSP", "BRAM36", "URAM", "memory", "clock", "platform", "built for"];
    let mut rows = vec![head.map(String::from).to_vec()];
    for name in dpnc_boards::catalogue() {
        let b = dpnc_boards::load(name).map_err(|e| e.to_string())?;
        let (luts, dsps, bram, uram) = (b.luts.to_string(), b.dsps.to_string(), b.bram36.to_string(), b.uram.to_string());
        rows.push(vec![
            b.name.clone(),
            b.part.clone(),
            luts,
            dsps,
            bram,
            uram,
            b.memory_summary(),
            format!("{} MHz", b.clock_mhz),
            b.platform.clone(),
            b.platform_release().unwrap_or_else(|| "?".into()),
        ]);
    }
    let widths: Vec<usize> = (0..head.len()).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, &w))| if (2..6).contains(&c) { format!("{cell:>w$}") } else { format!("{cell:<w$}") })
            .collect();
        println!("{}", cells.join("  ").trim_end());
    }
    Ok(())
}

/// Where the kernel's region starts: the nearest source position for an internal fault that
/// names none (a panic's hook has no source map, hence also as `file:line:col`).
static REGION: std::sync::OnceLock<(dpnc_frontend::source::Span, String)> = std::sync::OnceLock::new();

/// `d`, placed at the kernel's region if it is an internal fault without a position.
fn located(mut d: Diagnostic) -> Diagnostic {
    if d.is_internal() && d.span.is_none() {
        d.span = REGION.get().map(|(span, _)| *span);
    }
    d
}

pub(crate) fn load(sm: &mut SourceMap, src: &Source) -> Result<Program, Failure> {
    let p = dpnc_frontend::load(sm, &src.file, &src.options())?;
    if let Some(file) = sm.get(p.region.file) {
        let (line, col) = file.line_col(p.region.lo as usize);
        let _ = REGION.set((p.region, format!("{}:{line}:{col}", file.path.display())));
    }
    Ok(p)
}

fn compile(sm: &mut SourceMap, args: &CompileArgs) -> Result<(), Failure> {
    let Some(src) = &args.source else {
        return Err("no input file; run `dpnc --help`".to_string().into());
    };
    let p = load(sm, src)?;
    if args.target.is_some() && args.out.is_none() {
        return Err("--target needs an output directory: -o DIR".to_string().into());
    }
    if args.out.is_none() && args.emit.is_none() && !args.report {
        return Err("nothing to do: give -o DIR to write the Verilog design (--target picks another backend), or --emit, --report, or a subcommand (`dpnc --help`)"
            .to_string()
            .into());
    }
    // The board first: a wrong name should not wait for the network.
    let board = match &args.out {
        Some(_) => Some(dpnc_boards::load(&args.board).map_err(|e| e.to_string())?),
        None => None,
    };
    let needs_network = args.out.is_some() || args.report || matches!(args.emit, Some(Emit::DpnJson | Emit::Dot));
    if args.out.is_none() && args.shape.simd > 1 {
        eprintln!(
            "dpnc: note: --simd {} builds vector lanes in the Verilog design (-o DIR); --report and --emit show the network they run",
            args.shape.simd
        );
    }
    let sare = match needs_network {
        true => Some(dpnc_frontend::dataflow::compute(&p)?),
        false => None,
    };
    let dpn = match (needs_network, &sare) {
        (true, Some(sare)) => {
            Some(dpnc_dpn::build(&p, sare, &dpnc_dpn::Config { codegen: args.out.is_some(), ..args.shape.config(false) })?)
        }
        _ => None,
    };
    if let (Some(out), Some(dpn), Some(board)) = (&args.out, &dpn, &board) {
        let target = args.target.unwrap_or(Target::Verilog);
        if target == Target::Verilog {
            args.shape.note_hardware();
        }
        if target != Target::Verilog {
            args.shape.lanes_only_in_verilog(&format!("--target {}", target.name()))?;
        }
        let files = match target {
            Target::Cpu => dpnc_hls_emit::cpu::generate(&p, dpn).map_err(|e| e.to_string()),
            Target::Gpu => dpnc_hls_emit::gpu::generate(&p, dpn).map_err(|e| e.to_string()),
            Target::Vitis => dpnc_hls_emit::vitis::generate(&p, dpn, board).map_err(|e| e.to_string()),
            Target::Verilog => verilog_files(&p, dpn, board, &args.shape.rtl()).map_err(|e| e.to_string()),
        }
        .map_err(|e| format!("cannot generate code: {e}"))?;
        let mut files = files;
        files.extend(report::Facts::of_network(&p, dpn, &src.file, target.name(), board, args.shape.simd).files()?);
        publish::publish(out, args.force, |dir| dpnc_hls_emit::native::write_files(dir, &files))?;
        let next = match target {
            Target::Verilog => format!(
                "package it with `make -C {0} xo` (Vivado), build it with `make -C {0} hw` (v++, XRT); simulate it with `dpnc sim`",
                out.display()
            ),
            _ => format!("build with `make -C {}`", out.display()),
        };
        eprintln!("dpnc: wrote {} ({next})", out.display());
        eprintln!("dpnc: its report: {}", out.join(report::PAGE).display());
    }
    match (args.emit, &sare, &dpn) {
        (Some(Emit::Scop), _, _) => print!("{}", emit::scop(&p, sm)?),
        (Some(Emit::Sare), ..) => {
            let (sare, parametric) = dpnc_frontend::dataflow::compute_parametric(&p)?;
            print!("{}", emit::sare(&p, &sare, parametric, sm))
        }
        (Some(Emit::Dot), _, Some(dpn)) => print!("{}", dpnc_dpn::dot::render(&p, dpn)),
        (Some(Emit::DpnJson), _, Some(dpn)) => println!("{}", serde_json::to_string_pretty(dpn).map_err(|e| e.to_string())?),
        _ => {}
    }
    if let (true, Some(dpn)) = (args.report, &dpn) {
        print!("{}", dpnc_dpn::metrics::render(&p, dpn, &dpnc_dpn::metrics::report(&p, dpn)));
    }
    Ok(())
}

/// The most statement instances `run` interprets (at some 2 million a second, over an hour).
const MAX_INTERPRETED: u64 = 10_000_000_000;

fn run(sm: &mut SourceMap, args: &RunArgs) -> Result<(), Failure> {
    args.shape.lanes_only_in_verilog("`dpnc run`, which runs the network in software")?;
    let p = load(sm, &args.source)?;
    let params = p.param_values()?;
    if let Some(inputs) = &args.inputs {
        let (i, o) = (std::fs::canonicalize(inputs), std::fs::canonicalize(&args.outputs));
        if let (Ok(i), Ok(o)) = (i, o) {
            if i.starts_with(&o) {
                return Err(format!(
                    "--outputs {} would replace the inputs it is given (--inputs {}); choose another directory",
                    args.outputs.display(),
                    inputs.display()
                )
                .into());
            }
        }
    }
    // The inputs, the interpreter's store, and with --check the evaluators' results.
    Store::check_memory(&p, if args.check { 4 } else { 2 })?;
    let inputs = match (&args.inputs, args.random) {
        (Some(dir), _) => Store::load(&p, dir)?,
        (None, Some(seed)) => Store::random(&p, seed),
        (None, None) => return Err("give --inputs DIR or --random SEED".to_string().into()),
    };
    let mut mem = inputs.clone();
    let t = Instant::now();
    let total = dpnc_frontend::interp::instance_total_up_to(&p, &params, MAX_INTERPRETED)?
        .map_err(|size| format!("{size}: more than the interpreter runs; use smaller sizes"))?;
    let mut bar = progress::Progress::new("interpreter", Some(total));
    let stats = dpnc_frontend::interp::run_reporting(&p, &params, &mut mem, &mut |done| bar.set(done, "statement instances"))?;
    bar.finish();
    eprintln!("interpreter: {} statement instances in {:.3} s", stats.instances, t.elapsed().as_secs_f64());
    if args.check {
        let t = Instant::now();
        let sare = dpnc_frontend::dataflow::compute(&p)?;
        let got = dpnc_frontend::sare_eval::evaluate(&p, &sare, &params, &inputs)?;
        match Store::compare(&p, &mem, &got) {
            None => eprintln!("SARE evaluator: bit-exact with the interpreter ({:.3} s)", t.elapsed().as_secs_f64()),
            Some(m) => return Err(format!("SARE evaluator MISMATCH at {m} (interpreter vs SARE)").into()),
        }
        let t = Instant::now();
        let dpnc_dpn::Construction { dpn, traces, .. } = dpnc_dpn::construct(&p, &sare, &args.shape.config(true))?;
        let shrink = match &args.debug_shrink_channel {
            Some(s) => {
                let (n, c) = s.split_once('=').ok_or_else(|| "--debug-shrink-channel NAME=CAP".to_string())?;
                Some((n.to_string(), c.parse::<usize>().map_err(|e| e.to_string())?))
            }
            None => None,
        };
        for seed in [1, 2] {
            let out = dpnc_dpn::exec::run(&p, &dpn, &traces, &inputs, &dpnc_dpn::exec::Options { seed, shrink: shrink.clone() })
                .map_err(|e| e.to_string())?;
            if let Some(m) = Store::compare(&p, &mem, &out.store) {
                return Err(format!("DPN executor MISMATCH at {m} (interpreter vs DPN, seed {seed})").into());
            }
        }
        eprintln!(
            "DPN executor: bit-exact with the interpreter, {} processes, {} channels, 2 schedules ({:.3} s)",
            dpn.processes.len(),
            dpn.channels.len(),
            t.elapsed().as_secs_f64()
        );
    }
    let random_inputs = args.random.map(|_| &inputs);
    publish::publish(&args.outputs, args.force, |dir| write_outputs(&p, dir, &mem, random_inputs))?;
    Ok(())
}

fn write_outputs(p: &Program, dir: &Path, mem: &Store, inputs: Option<&Store>) -> Result<(), String> {
    use dpnc_frontend::ir::VarKind;
    if let Some(inputs) = inputs {
        inputs.save(p, &dir.join("inputs"), |v| v.kind == VarKind::Argument)?;
    }
    mem.save(p, dir, |v| v.kind == VarKind::Argument && v.written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An internal fault that names no position is shown at the kernel's region; a user error
    /// without one stays as it is.
    #[test]
    fn internal_faults_name_the_nearest_position() {
        let dir = std::env::temp_dir().join(format!("dpnc-located-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("k.c");
        let text = "#define N 4\nvoid kernel_k(double A[N])\n{\n#pragma scop\n  for (int i = 0; i < N; i++)\n    A[i] = 2.0 * A[i];\n#pragma endscop\n}\n";
        std::fs::write(&file, text).expect("write");
        let mut sm = SourceMap::new();
        let src = Source { file: file.clone(), include: vec![], define: vec![], kernel: None, params: vec![] };
        load(&mut sm, &src).unwrap_or_else(|_| panic!("loads"));
        let bug = located(Diagnostic::bug(None, "a channel without its relation")).render(&sm);
        assert!(bug.starts_with(&format!("{}:5:3: error: internal error", file.display())), "{bug}");
        assert!(bug.contains("this is a bug in dpnc"), "{bug}");
        let user = located(Diagnostic::global("more than 10 statement instances")).render(&sm);
        assert!(user.starts_with("error: more than"), "{user}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
