//! The Verilog backend: the network as synthesizable RTL around the hand-written cells in
//! `cells/` (floating-point operators, FIFOs, RAMs, AXI), each tested under Verilator.
//!
//! [`generate`] writes, per compute process, its iteration generator ([`walk`]), its module
//! ([`process`]: muxes, the statement's [`datapath`], demux) and, per array, a memory process
//! ([`memory`]: loads and stores in σ order on one AXI4 master); [`top`] joins them with one
//! FIFO per channel stream inside the Vitis RTL-kernel shell; [`shell`] writes what the Vitis
//! flow needs to package it (`kernel.xml`, `package_xo.tcl`, connectivity).

mod arrivals;
pub mod cells;
pub mod datapath;
pub mod fanout;
pub mod memory;
pub mod predicate;
pub mod process;
mod rows;
pub mod shell;
pub mod sim_wrapper;
pub mod simd;
mod stage;
pub mod synth;
pub mod timing;
pub mod top;
pub mod verilog;
pub mod walk;

use dpnc_dpn::ir::{Dpn, ProcessKind};
use dpnc_frontend::ir::Program;
use process::Timing;
use std::path::{Path, PathBuf};

/// Why a network cannot be written as Verilog.
#[derive(Debug, thiserror::Error)]
pub enum RtlError {
    #[error("process {process}: {why}")]
    Process { process: String, why: String },
    #[error("channel {channel}: {why}")]
    Channel { channel: String, why: String },
    #[error("{what}: {why}")]
    Unsupported { what: String, why: String },
    #[error(transparent)]
    Datapath(#[from] datapath::DatapathError),
    /// `--simd` asked for lanes the network cannot have (a user's choice, not a fault).
    #[error("--simd {lanes}: {why}")]
    Lanes { lanes: u32, why: String },
}

/// What the Verilog backend builds beyond the network itself.
#[derive(Clone, Debug)]
pub struct Options {
    /// Vector lanes per compute process (`--simd`; see [`simd`]): 1 for none.
    pub simd: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options { simd: 1 }
    }
}

/// A kernel argument as the control registers hold it (argument k at 0x10 + 8k).
#[derive(Clone, Debug)]
pub enum Arg {
    /// An array in DDR on AXI port `gmem<port>`: its byte address.
    Array { name: String, port: usize, bytes: usize, output: bool },
    /// A read-only scalar: its bit pattern.
    Scalar { name: String, bits: u32 },
}

/// A generated design: its files and what a simulator or a host needs to drive it.
#[derive(Clone, Debug, Default)]
pub struct Design {
    /// The top module (the kernel's name).
    pub top: String,
    /// Generated files: (name, Verilog text).
    pub files: Vec<(String, String)>,
    /// The cells it instantiates, as paths in the library (e.g. `fp/dpn_fadd.v`; see [`cells`]).
    pub cells: Vec<&'static str>,
    /// AXI4 master ports (`gmem0`, …), one per array.
    pub ports: Vec<String>,
    pub args: Vec<Arg>,
    /// Names behind the `dbg_*` bits: channel streams and processes, in order.
    pub channels: Vec<String>,
    pub processes: Vec<String>,
    /// The instance of each of [`Design::processes`] in the top module.
    pub instances: Vec<String>,
}

impl Design {
    /// Every source of the design once it is written to `dir`: its generated modules, then
    /// its cells under `dir/cells/`.
    pub fn sources(&self, dir: &Path) -> Vec<PathBuf> {
        let cells = self.cells.iter().map(|c| dir.join(cells::path(c)));
        self.files.iter().map(|(n, _)| dir.join(n)).chain(cells).collect()
    }

    /// Writes the generated modules and the cells they use (from [`cells::CELLS`]) to `dir`
    /// (created); returns [`Design::sources`].
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (name, text) in &self.files {
            std::fs::write(dir.join(name), text).map_err(|e| format!("{}: {e}", dir.join(name).display()))?;
        }
        for cell in &self.cells {
            cells::write(dir, cell)?;
        }
        Ok(self.sources(dir))
    }
}

/// The cell library's directory in the source tree (for the cells' own tests; designs take
/// their cells from [`cells::CELLS`]).
pub fn cells_dir() -> PathBuf {
    datapath::cells_dir()
}

/// The design of `dpn` (built with `Config::codegen`).
pub fn generate(p: &Program, dpn: &Dpn) -> Result<Design, RtlError> {
    generate_with(p, dpn, &Options::default())
}

/// The design of `dpn` as `opts` asks.
pub fn generate_with(p: &Program, dpn: &Dpn, opts: &Options) -> Result<Design, RtlError> {
    let mut dpn = hardware_windows(dpn);
    let lanes = simd::check(p, &dpn, opts.simd)?;
    simd::widen(&mut dpn, opts.simd);
    let (dpn, lanes) = (&dpn, &lanes);
    let mut design = Design { top: dpn.kernel.clone(), ..Design::default() };
    let mut cells: Vec<&'static str> =
        vec!["mem/dpn_fifo.v", "mem/dpn_fifo_reg.v", "mem/dpn_fifo_ram.v", "mem/dpn_ram_dp.v", "axi/dpn_axi_lite_ctrl.v"];
    // One file per module, named after it.
    let mut files = Vec::new();
    let mut latency = vec![0u32; p.stmts.len()];
    let mut arrival = vec![Vec::new(); p.stmts.len()];
    let mut used: Vec<usize> = dpn.processes.iter().filter_map(|pr| pr.stmt()).collect();
    used.sort_unstable();
    used.dedup();
    for &s in &used {
        // Every process of a statement walks the same directions: the first one's lane steps.
        let nest = dpn.processes.iter().find(|pr| pr.stmt() == Some(s)).map(process::nest).transpose()?;
        let steps = nest.map(simd::lane_steps).unwrap_or_default();
        let shape = datapath::Lanes { width: lanes.width, steps: &steps, shared: &lanes.shared[s] };
        let late = process::late_reads(p, dpn, s, lanes);
        let dp = datapath::vector(p, s, &format!("dp_{}", p.stmts[s].name), &shape, &late)?;
        latency[s] = dp.latency;
        arrival[s] = dp.arrival;
        cells.extend(dp.cells.iter().copied());
        files.push((format!("{}.v", dp.name), dp.module));
    }
    for (pi, pr) in dpn.processes.iter().enumerate() {
        if let ProcessKind::Compute { stmt, .. } = pr.kind {
            files.push((format!("w_{}.v", pr.name), walk::module(&format!("w_{}", pr.name), process::nest(pr)?)));
            files.push((
                format!("p_{}.v", pr.name),
                process::module(p, dpn, pi, stmt, Timing { latency: latency[stmt], arrival: &arrival[stmt] }, lanes)?,
            ));
        }
    }
    for v in 0..p.vars.len() {
        if !dpn.memory_processes(v).is_empty() {
            let m = memory::modules(p, dpn, v, lanes)?;
            files.extend(m.files);
            cells.extend(m.cells);
        }
    }
    files.insert(0, (format!("{}.v", dpn.kernel), top::module(p, dpn, lanes, &mut design)?));
    cells.sort_unstable();
    cells.dedup();
    design.cells = cells;
    design.files = files;
    Ok(design)
}

/// Verilator's flags for a model compiled without optimisation (large and run briefly), in few
/// large C++ files: at -O0, parsing Verilator's headers once per file is a third of the build.
pub const VERILATOR_UNOPTIMISED: [&str; 6] =
    ["-MAKEFLAGS", "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0", "--output-split", "200000", "--output-split-cfuncs", "200000"];

/// The most cells a scratchpad that a memory process fills gets by [`hardware_windows`]: two
/// windows of a 32 × 32 tile (BiCG's A, which one statement reads down its columns: with one
/// window the next tile's values wait for the last one's cells, and the statements take turns).
const DOUBLE_BUFFERED_CELLS: usize = 2048;

/// `dpn` with its scratchpads' windows as hardware holds them. Each dimension's window is
/// rounded up to a power of two where that at most quadruples the cells: a cell is its
/// subscripts modulo the window, so then their low bits, where any other modulus is a divider
/// between the subscript and the scratchpad (Jacobi-1D MEDIUM at tile 64: 70 logic levels from
/// a walker through its window of 66). And each scratchpad that a memory process fills holds
/// two windows of values instead of one (its outermost dimension's window doubled): the values
/// of the next window arrive while the consumer still reads the last ones, where σ's exact size
/// would make each wait for the cell its predecessor frees. Live cells span less than the
/// window in each dimension, so no larger one makes two of them collide, and more cells never
/// deadlock a network that runs at the exact sizes.
fn hardware_windows(dpn: &Dpn) -> Dpn {
    let mut dpn = dpn.clone();
    for c in 0..dpn.channels.len() {
        let ch = &dpn.channels[c];
        if ch.kind != dpnc_dpn::ir::ChannelKind::Scratchpad {
            continue;
        }
        let rounded: Vec<i64> = ch.window.iter().map(|&m| if m > 1 { (m as u64).next_power_of_two() as i64 } else { m }).collect();
        if rounded.iter().map(|&m| m.max(1) as usize).product::<usize>() <= 4 * ch.cells() {
            dpn.channels[c].window = rounded;
        }
        let ch = &dpn.channels[c];
        let fed = matches!(dpn.processes[ch.producer].kind, dpnc_dpn::ir::ProcessKind::Load { .. });
        // A power of two stays one (a cell is then taken from the subscript's bits).
        let pow2 = ch.window.first().is_some_and(|&m| m > 0 && m & (m - 1) == 0);
        if fed && pow2 && 2 * ch.cells() <= DOUBLE_BUFFERED_CELLS {
            dpn.channels[c].window[0] *= 2;
        }
    }
    dpn
}
