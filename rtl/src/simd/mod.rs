//! Vector lanes (`--simd W`): a compute process runs W consecutive points of its innermost
//! loop per cycle, W copies of its datapath behind one iteration generator and one control.
//! The network is unchanged: lanes are how the hardware runs it. [`check`] proves, for the
//! concrete network, that a vector of W points can run as one, and says what each channel's
//! stream then carries ([`Lanes`]):
//! * a **vector**, one value per lane: a FIFO (from DDR, to DDR, or between compute
//!   processes) or a scratchpad whose words hold W consecutive cells;
//! * a **broadcast**, one value every lane reads: a FIFO+register from DDR whose value is
//!   taken at most at a vector's first point (GEMM's `A[i][k]` along `j`).
//!
//! The proof has two parts. [`vectors`] walks every process's points in its schedule order:
//! they come in vectors of W consecutive values of the innermost counter from a multiple of W,
//! agree on every condition the hardware decides per vector, and access W consecutive cells
//! from a multiple of W (in DDR, one slice of a 64-byte beat; in a scratchpad, one word).
//! [`flow`] then runs the compute processes' vectors against each other through the on-chip
//! FIFOs at the places the hardware gives them: a vector takes only values of earlier vectors
//! (no dependence inside a vector) and the network of vectors does not deadlock.

mod flow;
mod vectors;

use crate::RtlError;
use dpnc_dpn::ir::{ChannelKind, Dpn, ProcessKind};
use dpnc_dpn::loops::LoopNest;
use dpnc_frontend::ir::{Program, VarKind};

/// The most lanes: 16 floats fill a 512-bit beat.
pub const MAX_LANES: u32 = 16;

/// How the design runs the network: points per cycle, and what each channel's stream carries.
#[derive(Clone, Debug)]
pub struct Lanes {
    /// Points a compute process runs per cycle, its vector (1: no lanes).
    pub width: u32,
    /// Per channel, values per entry of its stream: `width` for a vector, 1 for a broadcast
    /// (and for every channel without lanes).
    pub values: Vec<u32>,
    /// Per statement, per read reference: whether every lane of a vector reads the same value
    /// (a broadcast, or a scalar argument of the kernel).
    pub shared: Vec<Vec<bool>>,
}

impl Lanes {
    /// One point a cycle.
    pub fn none(p: &Program, dpn: &Dpn) -> Lanes {
        let shared = p.stmts.iter().map(|s| s.reads.iter().map(|a| p.vars[a.var].is_scalar_argument()).collect()).collect();
        Lanes { width: 1, values: vec![1; dpn.channels.len()], shared }
    }

    /// Whether channel `c` carries one value for every lane of a vector.
    pub fn broadcast(&self, c: usize) -> bool {
        self.width > 1 && self.values[c] == 1
    }

    /// Cells per access of the memory process of `var`: a vector's where any of its channels
    /// carries vectors (a broadcast then takes the first of the cells from its own), else one.
    pub fn of_array(&self, dpn: &Dpn, var: usize) -> u32 {
        let mems = dpn.memory_processes(var);
        let served = dpn.channels.iter().enumerate().filter(|(_, ch)| mems.contains(&ch.producer) || mems.contains(&ch.consumer));
        served.map(|(c, _)| self.values[c]).max().unwrap_or(1)
    }
}

fn refuse(lanes: u32, why: String) -> RtlError {
    RtlError::Lanes { lanes, why }
}

/// Whether the network `dpn` of `p` (with its hardware windows) can run on `lanes` lanes, and
/// how; if not, why.
pub fn check(p: &Program, dpn: &Dpn, lanes: u32) -> Result<Lanes, RtlError> {
    if lanes == 1 {
        return Ok(Lanes::none(p, dpn));
    }
    if !lanes.is_power_of_two() || lanes > MAX_LANES {
        return Err(refuse(lanes, format!("the lanes must be a power of two from 2 to {MAX_LANES}")));
    }
    let values = dpn.channels.iter().enumerate().map(|(c, _)| channel_values(p, dpn, c, lanes)).collect::<Result<Vec<_>, _>>()?;
    let mut plan = Lanes { width: lanes, values, shared: Vec::new() };
    plan.shared = shared_reads(p, dpn, &plan)?;
    for (v, var) in p.vars.iter().enumerate().filter(|(v, _)| !dpn.memory_processes(*v).is_empty()) {
        if var.kind == VarKind::Local {
            return Err(refuse(lanes, format!("temporary `{}` lives in an on-chip memory, which serves one value a cycle", var.name)));
        }
        let bytes = crate::verilog::bits(var.ty) / 8;
        if bytes * plan.of_array(dpn, v) > crate::memory::LINE_BYTES as u32 {
            return Err(refuse(lanes, format!("{lanes} values of `{}` ({} bytes each) exceed one 64-byte beat", var.name, bytes)));
        }
    }
    let mut runs = Vec::new();
    for (pi, pr) in dpn.processes.iter().enumerate() {
        if let ProcessKind::Compute { stmt, .. } = pr.kind {
            runs.push(vectors::walk(p, dpn, &plan, pi, stmt)?);
        }
    }
    flow::run(dpn, &plan, &runs)?;
    Ok(plan)
}

/// Per statement and read, whether its lanes share one value: a scalar argument, or a read
/// every channel of which, in every process of the statement, is a broadcast (one datapath
/// serves all of a statement's processes, so they must agree).
fn shared_reads(p: &Program, dpn: &Dpn, plan: &Lanes) -> Result<Vec<Vec<bool>>, RtlError> {
    let mut shared: Vec<Vec<Option<bool>>> =
        p.stmts.iter().map(|s| s.reads.iter().map(|a| p.vars[a.var].is_scalar_argument().then_some(true)).collect()).collect();
    for pr in &dpn.processes {
        let ProcessKind::Compute { stmt, .. } = pr.kind else { continue };
        for (r, clauses) in pr.mux.iter().enumerate() {
            for cl in clauses {
                let b = plan.broadcast(cl.channel);
                match shared[stmt][r] {
                    Some(seen) if seen != b => {
                        return Err(refuse(
                            plan.width,
                            format!(
                                "{}'s read {} takes one value for every lane from some channels and one per lane from others ({})",
                                p.stmts[stmt].name, r, dpn.channels[cl.channel].name
                            ),
                        ))
                    }
                    _ => shared[stmt][r] = Some(b),
                }
            }
        }
    }
    Ok(shared.into_iter().map(|s| s.into_iter().map(|b| b.unwrap_or(false)).collect()).collect())
}

/// Values per entry of channel `c`'s stream on `lanes` lanes, or why it cannot have lanes.
fn channel_values(p: &Program, dpn: &Dpn, c: usize, lanes: u32) -> Result<u32, RtlError> {
    let ch = &dpn.channels[c];
    let (from, to) = (&dpn.processes[ch.producer], &dpn.processes[ch.consumer]);
    let compute = |k: &ProcessKind| matches!(k, ProcessKind::Compute { .. });
    if ch.shared_load {
        return Err(refuse(lanes, format!("channel {} is served from a table of the cells its band read", ch.name)));
    }
    match ch.kind {
        ChannelKind::Fifo => Ok(lanes),
        ChannelKind::FifoReg if !compute(&from.kind) => {
            // A value read several times in a row: by every lane of a vector, if its cell does
            // not move along the innermost loop (`vectors` proves the rest).
            let ProcessKind::Compute { stmt, .. } = to.kind else { unreachable!("a channel feeds a compute process or a store") };
            let l = crate::process::nest(to)?;
            let steps = lane_steps(l);
            let a = &p.stmts[stmt].reads[ch.port.unwrap_or(0)];
            let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
            let zero = vec![0; steps.len()];
            let moves = a.index.iter().any(|x| x.eval(&steps, &params).ok() != x.eval(&zero, &params).ok());
            if moves {
                return Err(refuse(
                    lanes,
                    format!(
                        "channel {} passes a value read several times in a row, at cells that change from one lane to the next",
                        ch.name
                    ),
                ));
            }
            Ok(1)
        }
        ChannelKind::FifoReg => Err(refuse(
            lanes,
            format!("channel {} passes a value {} reads several times in a row, one for each of {}'s points", ch.name, to.name, from.name),
        )),
        ChannelKind::Scratchpad if !compute(&from.kind) => Ok(lanes),
        ChannelKind::Scratchpad => Err(refuse(
            lanes,
            format!(
                "channel {} is a scratchpad between compute processes ({} to {}): lanes use scratchpads only where DDR fills them",
                ch.name, from.name, to.name
            ),
        )),
    }
}

/// `dpn` with every compute process's innermost loop stepping by `lanes` (after [`check`]).
pub fn widen(dpn: &mut Dpn, lanes: u32) {
    for pr in &mut dpn.processes {
        if let Some(c) = pr.loops.as_mut().and_then(|l| l.counters.last_mut()) {
            c.step *= lanes as i64;
        }
    }
}

/// Per statement iterator, how much it grows from one lane to the next: its coefficient on
/// the innermost counter.
pub fn lane_steps(l: &LoopNest) -> Vec<i64> {
    l.iters.iter().map(|it| it.coef.last().copied().unwrap_or(0)).collect()
}
