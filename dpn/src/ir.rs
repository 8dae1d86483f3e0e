//! The data-aware process network: processes joined by channels, for concrete parameter
//! values. Plain data that every backend reads; what each process does instance by instance
//! is in [`crate::trace`], and what construction did in [`crate::build::BuildStats`].

use crate::tiling::{Affine, Nest};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProcessKind {
    /// Reads one array from DDR, once per band per value, and fans it out.
    Load { var: usize },
    /// The instances of statement `stmt` in parallel sub-band `subband` of every band.
    Compute { stmt: usize, subband: Vec<i64> },
    /// Writes values leaving their band (or final) to one array in DDR.
    Store { var: usize },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Process {
    pub name: String,
    pub kind: ProcessKind,
    /// Iteration domain in isl notation (compute processes; for load/store, a description).
    pub domain: String,
    /// Schedule in isl notation: (nest, tile coordinates, hyperplanes, original order).
    pub schedule: String,
    /// Number of iterations (concrete).
    pub iterations: u64,
    /// Per read port: which channel to read, for which iterations (loads first).
    pub mux: Vec<Vec<MuxClause>>,
    /// Which channels receive this process's results, for which iterations.
    pub demux: Vec<MuxClause>,
    /// Compute processes: the iteration generator as a loop nest (`None` when the
    /// hyperplanes are not unimodular over the iterators they use).
    #[serde(default)]
    pub loops: Option<crate::loops::LoopNest>,
}

impl Process {
    /// The statement of a compute process.
    pub fn stmt(&self) -> Option<usize> {
        match self.kind {
            ProcessKind::Compute { stmt, .. } => Some(stmt),
            _ => None,
        }
    }
}

/// "Channel `channel`, for the iterations in `when`" (an isl set).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MuxClause {
    pub channel: usize,
    pub when: String,
    /// `when` as a predicate over the process's iterators, for code generation (`None` if
    /// isl could not make its existentials explicit).
    #[serde(default)]
    pub pred: Option<crate::predicate::Predicate>,
}

/// Where a dependence is resolved (paper §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChannelClass {
    /// Between a compute process and a Load or Store process (crosses a band).
    Io,
    /// Inside one compute process.
    Local,
    /// Between two compute processes of the same band.
    Sync,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChannelKind {
    /// In order, each value read once.
    Fifo,
    /// In order, each value read several times in a row.
    FifoReg,
    /// Out of order or re-read later: an addressed buffer with a valid bit per cell.
    Scratchpad,
}

impl ChannelKind {
    /// As reports and drawings name it.
    pub fn label(self) -> &'static str {
        match self {
            ChannelKind::Fifo => "FIFO",
            ChannelKind::FifoReg => "FIFO+reg",
            ChannelKind::Scratchpad => "scratchpad",
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Channel {
    pub name: String,
    pub producer: usize,
    pub consumer: usize,
    /// The consumer's read reference (compute consumers) this channel feeds.
    pub port: Option<usize>,
    pub class: ChannelClass,
    pub kind: ChannelKind,
    /// Capacity in values: the peak occupancy under the tiled sequential schedule.
    pub size: usize,
    /// Element type (C name).
    pub elem: String,
    /// Values written (each may be read several times).
    pub writes: u64,
    pub reads: u64,
    /// The dataflow relation it resolves, in isl notation: consumer instance → producer
    /// instance (on chip), consumer instance → array cell (loads), producer instance →
    /// array cell (stores). Scratchpads are addressed associatively by producer instance
    /// (a valid bit per cell) in the executor; a modular allocation comes with the RTL.
    pub relation: String,
    /// Scratchpads: a value lives at its array cell modulo `window` (per array dimension),
    /// an allocation with no two simultaneously live values in one cell under σ.
    #[serde(default)]
    pub window: Vec<i64>,
    /// FIFO+register: the consumer iterations that take a new value (see [`crate::sync`]).
    #[serde(default)]
    pub first_read: Option<crate::predicate::Predicate>,
    /// Scratchpads: the consumer iterations that read a value for the last time.
    #[serde(default)]
    pub last_read: Option<crate::predicate::Predicate>,
    /// Loaded channels: the consumer iterations at which the Load process loads the value
    /// this channel's consumer reads (its first use in the band, over all the array's reads).
    #[serde(default)]
    pub first_use: Option<crate::predicate::Predicate>,
    /// Loaded channels: at a `first_use` iteration, the channels that receive the value.
    #[serde(default)]
    pub fanout: Vec<(usize, crate::predicate::Predicate)>,
    /// Loaded channels whose first uses are this channel's own (isl could not afford them
    /// over all the array's reads): the Load process keeps the cells it read in the band and
    /// serves each channel at its first use without reading DDR again.
    #[serde(default)]
    pub shared_load: bool,
    /// Loaded channels of an array the kernel also writes: the σ key of the last write to the
    /// cell a consumer iteration reads that comes before it in σ (where there is one: outside
    /// every piece, the cell still holds what the host put there). DDR must hold that write's
    /// value when the load reads it, so the memory process lets the load go once that store
    /// has landed. None where isl could not give it as a function (loads then wait for every
    /// store of earlier bands).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ddr_source: Option<Vec<SourcePiece>>,
}

/// Where a [`Channel::ddr_source`] is one quasi-affine function of the consumer's iterators.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePiece {
    /// The consumer iterations this piece covers (one conjunction).
    pub when: crate::predicate::Predicate,
    /// The source write's σ key ([`crate::sync::sigma`]), one expression per coordinate
    /// over the consumer's iterators.
    pub key: Vec<crate::predicate::Affine>,
}

impl Channel {
    /// Cells a scratchpad allocates (its window's volume); the size for the others.
    pub fn cells(&self) -> usize {
        match self.kind {
            ChannelKind::Scratchpad => self.window.iter().map(|&m| m as usize).product::<usize>().max(1),
            _ => self.size,
        }
    }
}

/// Bits of an index into `n` cells (at least 1): a scratchpad cell in hardware and in HLS.
pub fn index_bits(n: usize) -> u32 {
    (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1)
}

impl Dpn {
    /// The Load and Store processes of variable `var`: together, its memory process in the
    /// Vitis and Verilog backends.
    pub fn memory_processes(&self, var: usize) -> Vec<usize> {
        let is = |k: &ProcessKind| matches!(k, ProcessKind::Load { var: v } | ProcessKind::Store { var: v } if *v == var);
        (0..self.processes.len()).filter(|&q| is(&self.processes[q].kind)).collect()
    }
}

/// One coordinate of a schedule key: a function of one statement's iterators.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Key {
    Const(i64),
    /// `floor(φ / size)`: a tile coordinate.
    Tile(Affine, i64),
    /// A hyperplane's value.
    Phi(Affine),
    /// `dir · iterator`: the original program order.
    Iter(usize, i64),
}

/// Where a statement's instances run: the keys that order them (`sync::sigma`,
/// `sync::band_key`), the same length for every statement of the kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// σ, the tiled sequential schedule the network was built in: nest, tile coordinates,
    /// group, hyperplanes in point order, program order. Instances run in its lexicographic
    /// order.
    pub sigma: Vec<Key>,
    /// The band of an instance: nest and every tile coordinate but the last.
    pub band: Vec<Key>,
}

/// The network for concrete parameter values.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Dpn {
    /// The kernel function's name.
    pub kernel: String,
    /// Each size parameter's name and the value the network was built for.
    pub params: Vec<(String, i64)>,
    /// Tile sizes as given (`--tile`): entry `d` for hyperplane `d`, the last one repeated;
    /// `shape::tile_size` resolves it.
    pub tile: Vec<i64>,
    /// Sub-bands per hyperplane as given (`--par`), resolved by `shape::par_size`.
    pub par: Vec<i64>,
    /// Per loop nest and band hyperplane, whether its sub-bands are interleaved (each takes
    /// every q-th point of a tile) rather than slices (`shape::interleaved`).
    #[serde(default)]
    pub interleaved: Vec<Vec<bool>>,
    /// Per loop nest: its tiling hyperplanes and which statements it holds.
    pub nests: Vec<Nest>,
    /// Per statement: the keys that order its instances. Processes and memory generators
    /// run their statements' instances in this order.
    pub schedules: Vec<Schedule>,
    /// The number of bands: the reuse units, run one after another.
    pub bands: usize,
    /// Load, compute and store processes.
    pub processes: Vec<Process>,
    /// FIFOs and scratchpads between processes.
    pub channels: Vec<Channel>,
    /// Per array/scalar variable: DDR reads, in values.
    pub ddr_reads: Vec<u64>,
    /// Per array/scalar variable: DDR writes, in values.
    pub ddr_writes: Vec<u64>,
    /// Per variable: distinct input elements read.
    pub compulsory_reads: Vec<u64>,
    /// Per variable: distinct output elements written.
    pub compulsory_writes: Vec<u64>,
}
