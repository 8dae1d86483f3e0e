//! The network's behaviour for its concrete parameters: per process, what it does in its own
//! order, and what DDR's ordering rule needs. Built on request (`Config::keep_traces`) for the
//! software executor (`exec.rs`) and the validator; the backends never read it.

use std::collections::HashMap;

/// Every process's trace, and the DDR versions loads wait for.
#[derive(Clone, Debug, Default)]
pub struct Traces {
    /// Per process (indexed like `Dpn::processes`): what it does, in its order.
    pub per_process: Vec<Trace>,
    /// How many loads need each DDR version of a cell: a store may not overwrite a version
    /// before they have all read it (the ordering rule of DESIGN.md).
    pub loads_needed: HashMap<CellVersion, u32>,
}

/// One DDR version of one array cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CellVersion {
    /// The array variable.
    pub var: usize,
    /// Flat cell index in the array.
    pub cell: usize,
    /// 0 = the initial value, k = the k-th store's.
    pub version: u32,
}

/// A read operand of a compute instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadSrc {
    /// From channel `ch`, value `vid`; `last` when this is the value's last read there.
    Chan { ch: usize, vid: u64, last: bool },
    /// A read-only scalar argument (an AXI-Lite register in hardware).
    Scalar { var: usize },
}

/// One instance of a compute process.
#[derive(Clone, Debug, Default)]
pub struct ComputeOp {
    /// The statement instance's iteration vector.
    pub iters: Vec<i64>,
    /// Its operands, in the statement's read order.
    pub reads: Vec<ReadSrc>,
    /// The demux: every channel receiving this instance's value (value id = `vid`).
    pub writes: Vec<usize>,
    /// The id of the value it produces.
    pub vid: u64,
}

/// One DDR read of a load process.
#[derive(Clone, Debug)]
pub struct LoadOp {
    /// Flat cell index in the array.
    pub cell: usize,
    /// Which DDR version of the cell is needed (0 = initial, k = k-th store).
    pub version: u32,
    /// The id of the value it loads.
    pub vid: u64,
    /// The channels it fans the value out to.
    pub outs: Vec<usize>,
    /// When it happens in the tiled sequential schedule (for channel sizing).
    pub at: u64,
}

/// One DDR write of a store process.
#[derive(Clone, Debug)]
pub struct StoreOp {
    /// The channel the value arrives on.
    pub ch: usize,
    /// The id of the value it stores.
    pub vid: u64,
    /// Flat cell index in the array.
    pub cell: usize,
    /// The DDR version this store creates (1-based).
    pub version: u32,
}

/// What one process does, in its own order.
#[derive(Clone, Debug)]
pub enum Trace {
    /// The instances of statement `stmt` the process runs.
    Compute { stmt: usize, ops: Vec<ComputeOp> },
    /// The reads of array `var` the process makes.
    Load { var: usize, ops: Vec<LoadOp> },
    /// The writes of array `var` the process makes.
    Store { var: usize, ops: Vec<StoreOp> },
}

impl Trace {
    /// Number of operations (the process's iterations).
    pub fn len(&self) -> usize {
        match self {
            Trace::Compute { ops, .. } => ops.len(),
            Trace::Load { ops, .. } => ops.len(),
            Trace::Store { ops, .. } => ops.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
