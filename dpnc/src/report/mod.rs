//! The design report: `report.html`, one self-contained page beside a design written with
//! `-o DIR`, and `report.json`, the facts it shows. `dpnc sim --report DIR` and
//! `dpnc synth --report DIR` add their figures to the facts and write the page again.
//!
//! [`Facts`] is plain data (what the network is, what it moves, and what simulation and
//! synthesis measured); [`page`] turns it into HTML through an askama template, drawing the
//! network ([`network`]) and the roofline ([`roofline`]) as inline SVG.

mod network;
mod page;
mod roofline;

use dpnc_boards::Board;
use dpnc_dpn::ir::{ChannelClass, ProcessKind};
use dpnc_dpn::Dpn;
use dpnc_frontend::ir::Program;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Reports written before lanes had none.
fn one_lane() -> u32 {
    1
}

/// The page's file name in a design's directory.
pub const PAGE: &str = "report.html";
/// The facts' file name in a design's directory.
pub const FACTS: &str = "report.json";

/// Everything the report shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    /// The kernel function.
    pub kernel: String,
    /// The C file, as given on the command line.
    pub source: String,
    /// Size parameters and their values.
    pub params: Vec<(String, i64)>,
    /// `--tile` and `--par` as the network resolved them.
    pub tile: Vec<i64>,
    pub par: Vec<i64>,
    /// `--simd`: the vector lanes of the Verilog design (1: none).
    #[serde(default = "one_lane")]
    pub lanes: u32,
    /// Per top-level loop nest: its statements and how its tiling hyperplanes were found.
    pub nests: Vec<NestFacts>,
    /// What `-o` wrote: `verilog`, `vitis`, `cpu` or `gpu`.
    pub target: String,
    pub board: BoardFacts,
    /// DDR traffic (the network's, the untiled original's, the compulsory minimum),
    /// operations and on-chip memory.
    pub metrics: dpnc_dpn::metrics::Report,
    /// Per array: the bytes the network reads from and writes to DDR.
    pub arrays: Vec<ArrayFacts>,
    pub processes: Vec<ProcessFacts>,
    pub channels: Vec<ChannelFacts>,
    /// From `dpnc sim --report`, once run.
    pub simulation: Option<SimFacts>,
    /// From `dpnc synth --report`, once run.
    pub synthesis: Option<SynthFacts>,
}

/// One loop nest of the kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NestFacts {
    pub statements: Vec<String>,
    /// How its hyperplanes were found (or why it is one untiled band).
    pub hyperplanes: String,
}

/// What the report compares the design with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoardFacts {
    pub name: String,
    pub part: String,
    pub clock_mhz: f64,
    pub luts: u64,
    pub ffs: u64,
    pub dsps: u64,
    pub bram36: u64,
    pub uram: u64,
    /// All banks together, GB/s.
    pub bandwidth_gbs: f64,
    /// Floating-point peak of its DSPs under the model `flops_model`, GFLOP/s.
    pub peak_gflops: f64,
    pub flops_model: String,
}

/// DDR traffic of one array.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArrayFacts {
    pub name: String,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

/// Which of the network's three kinds a process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    Load,
    Compute,
    Store,
}

/// One process of the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessFacts {
    pub name: String,
    pub role: Role,
    /// The statement it computes, or the array it loads or stores.
    pub of: String,
    /// Its sub-band (compute processes; empty for one band).
    pub subband: Vec<i64>,
    pub iterations: u64,
    /// The process of the Verilog design that runs it (loads and stores of an array share one
    /// memory process, `m_<array>`): the name simulation figures come under.
    pub hardware: String,
}

/// One channel of the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChannelFacts {
    pub name: String,
    /// Indices into [`Facts::processes`].
    pub producer: usize,
    pub consumer: usize,
    /// `I/O`, `local` or `sync`.
    pub class: String,
    /// `FIFO`, `FIFO+reg` or `scratchpad`.
    pub kind: String,
    /// Values it holds.
    pub size: usize,
    pub elem: String,
    /// Values written into it over the run.
    pub writes: u64,
}

/// What a simulation measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimFacts {
    pub cycles: u64,
    pub bit_exact: bool,
    /// The first difference from the interpreter, if any.
    pub mismatch: Option<String>,
    /// The memory model, in words.
    pub memory: String,
    pub busiest_iterations: u64,
    /// DDR bytes moved: read in whole beats, written.
    pub bytes_fetched: u64,
    pub bytes_written: u64,
    pub processes: Vec<SimProcess>,
    pub channels: Vec<SimChannel>,
}

/// How one process of the Verilog design spent the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimProcess {
    pub name: String,
    #[serde(flatten)]
    pub cycles: dpnc_sim::ProcessCycles,
}

/// How full one channel got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimChannel {
    pub name: String,
    pub peak: u32,
    pub cycles_full: u64,
}

/// What Yosys reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SynthFacts {
    pub total: dpnc_rtl::synth::Resources,
    /// Per module, when synthesised with `--per-module`.
    pub modules: Vec<dpnc_rtl::synth::ModuleUse>,
}

impl BoardFacts {
    pub fn of(board: &Board, p: &Program) -> BoardFacts {
        let double = p.vars.iter().any(|v| v.ty == dpnc_frontend::ir::ScalarType::Double);
        let (fpd, model) = if double {
            (dpnc_boards::FP64_FLOPS_PER_DSP_PER_CYCLE, "binary64: multiply on 11 DSPs + add on 3")
        } else {
            (dpnc_boards::FP32_FLOPS_PER_DSP_PER_CYCLE, "binary32: multiply on 3 DSPs + add on 2")
        };
        BoardFacts {
            name: board.name.clone(),
            part: board.part.clone(),
            clock_mhz: board.clock_mhz,
            luts: board.luts,
            ffs: board.ffs,
            dsps: board.dsps,
            bram36: board.bram36,
            uram: board.uram,
            bandwidth_gbs: board.peak_bandwidth_gbs(),
            peak_gflops: board.peak_gflops(fpd),
            flops_model: model.into(),
        }
    }
}

impl Facts {
    /// The facts of a network before simulation and synthesis.
    pub fn of_network(p: &Program, dpn: &Dpn, source: &Path, target: &str, board: &Board, lanes: u32) -> Facts {
        let role = |k: &ProcessKind| match k {
            ProcessKind::Load { .. } => Role::Load,
            ProcessKind::Compute { .. } => Role::Compute,
            ProcessKind::Store { .. } => Role::Store,
        };
        let processes = dpn
            .processes
            .iter()
            .map(|pr| {
                let (of, subband, hardware) = match &pr.kind {
                    ProcessKind::Compute { stmt, subband } => (p.stmts[*stmt].name.clone(), subband.clone(), pr.name.clone()),
                    ProcessKind::Load { var } | ProcessKind::Store { var } => {
                        (p.vars[*var].name.clone(), Vec::new(), format!("m_{}", p.vars[*var].name))
                    }
                };
                ProcessFacts { name: pr.name.clone(), role: role(&pr.kind), of, subband, iterations: pr.iterations, hardware }
            })
            .collect();
        let channels = dpn
            .channels
            .iter()
            .map(|c| ChannelFacts {
                name: c.name.clone(),
                producer: c.producer,
                consumer: c.consumer,
                class: match c.class {
                    ChannelClass::Io => "I/O",
                    ChannelClass::Local => "local",
                    ChannelClass::Sync => "sync",
                }
                .into(),
                kind: c.kind.label().into(),
                size: c.size,
                elem: c.elem.clone(),
                writes: c.writes,
            })
            .collect();
        let size = |v: usize| p.vars[v].ty.size() as u64;
        let arrays = (0..p.vars.len())
            .filter(|&v| dpn.ddr_reads.get(v).copied().unwrap_or(0) + dpn.ddr_writes.get(v).copied().unwrap_or(0) > 0)
            .map(|v| ArrayFacts {
                name: p.vars[v].name.clone(),
                bytes_read: dpn.ddr_reads[v] * size(v),
                bytes_written: dpn.ddr_writes.get(v).copied().unwrap_or(0) * size(v),
            })
            .collect();
        Facts {
            kernel: dpn.kernel.clone(),
            source: source.display().to_string(),
            params: dpn.params.clone(),
            tile: dpn.tile.clone(),
            par: dpn.par.clone(),
            lanes,
            nests: dpn
                .nests
                .iter()
                .map(|n| NestFacts { statements: n.stmts.iter().map(|&s| p.stmts[s].name.clone()).collect(), hyperplanes: n.how.clone() })
                .collect(),
            target: target.into(),
            board: BoardFacts::of(board, p),
            metrics: dpnc_dpn::metrics::report(p, dpn),
            arrays,
            processes,
            channels,
            simulation: None,
            synthesis: None,
        }
    }

    /// The report's files: (name, text).
    pub fn files(&self) -> Result<Vec<(String, String)>, String> {
        let json = serde_json::to_string_pretty(self).map_err(|e| format!("cannot write {FACTS}: {e}"))?;
        Ok(vec![(FACTS.into(), json + "\n"), (PAGE.into(), page::render(self)?)])
    }

    /// The report in `dir`, after checking that it is the report of the design `built`
    /// describes (the same network for the same board).
    pub fn open(dir: &Path, built: &Facts) -> Result<Facts, String> {
        let path = dir.join(FACTS);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "--report {}: no design report there ({}: {e}); write the design with `dpnc KERNEL -o {}` first",
                dir.display(),
                path.display(),
                dir.display()
            )
        })?;
        let facts: Facts = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a report this dpnc can read ({e}); write the design again with -o", path.display()))?;
        match facts.differs_from(built) {
            Some(why) => Err(format!("--report {}: the design there is not the one this command builds: {why}", dir.display())),
            None => Ok(facts),
        }
    }

    /// Writes the report's files into `dir`; returns the page's path.
    pub fn write(&self, dir: &Path) -> Result<std::path::PathBuf, String> {
        for (name, text) in self.files()? {
            std::fs::write(dir.join(&name), text).map_err(|e| format!("{}: {e}", dir.join(&name).display()))?;
        }
        Ok(dir.join(PAGE))
    }

    /// Writes the facts after `fill` into `dir` and says where the page is.
    pub fn fill_and_write(mut self, dir: &Path, fill: impl FnOnce(&mut Facts)) -> Result<(), String> {
        fill(&mut self);
        eprintln!("dpnc: its report: {}", self.write(dir)?.display());
        Ok(())
    }

    /// For `--report DIR` of `dpnc sim` and `dpnc synth`: the report in `dir`, checked against
    /// the Verilog design of `dpn` for `board` before anything runs.
    pub fn open_for(dir: Option<&Path>, p: &Program, dpn: &Dpn, source: &Path, board: &Board, lanes: u32) -> Result<Option<Facts>, String> {
        dir.map(|d| Facts::open(d, &Facts::of_network(p, dpn, source, "verilog", board, lanes))).transpose()
    }

    /// How the design of `self` differs from that of `other`, if it does.
    fn differs_from(&self, other: &Facts) -> Option<String> {
        let what = |a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| format!("{a:?} there, {b:?} here");
        if self.kernel != other.kernel {
            return Some(format!("kernel {}", what(&self.kernel, &other.kernel)));
        }
        if self.params != other.params {
            return Some(format!("parameters {}", what(&self.params, &other.params)));
        }
        if (&self.tile, &self.par) != (&other.tile, &other.par) {
            return Some(format!("--tile/--par {}", what(&(&self.tile, &self.par), &(&other.tile, &other.par))));
        }
        if self.lanes != other.lanes {
            return Some(format!("--simd {} (give --simd {})", what(&self.lanes, &other.lanes), self.lanes));
        }
        if self.board.name != other.board.name {
            return Some(format!("board {} (give --board {})", what(&self.board.name, &other.board.name), self.board.name));
        }
        if self.processes != other.processes || self.channels != other.channels {
            return Some("the process networks differ (other hyperplanes or source?)".into());
        }
        None
    }
}
