//! Vector lanes (`--simd W`): a compute process runs W consecutive points of its innermost
//! loop per cycle, W copies of its datapath behind one iteration generator and one control,
//! its channels W values wide; a memory process moves those W values as one access, an
//! aligned slice of one beat. The network is unchanged: lanes are how the hardware runs it.
//!
//! Lanes are built where every compute process *streams*: each operand comes from DDR
//! through a FIFO and each result goes to DDR, with no channel between compute processes and
//! no load waiting for a store of the kernel. Then a vector of W points needs only that its
//! points arrive together and agree on everything decided per point. [`check`] walks every
//! process's points in its schedule order and proves, for the concrete network, that:
//! * they come in *vectors* of W consecutive values of the innermost counter, the first a
//!   multiple of W (the walker steps by W from bounds that are multiples of W);
//! * every condition the hardware decides per point (the domain, each mux and demux clause,
//!   each load's first use and fan-out) is the same across a vector, so its first point
//!   decides it for all;
//! * each access of a vector reads or writes W consecutive cells from a multiple of W, so its
//!   values are one slice of a 64-byte beat.

use crate::RtlError;
use dpnc_dpn::ir::{ChannelKind, Dpn, ProcessKind};
use dpnc_dpn::loops::LoopNest;
use dpnc_dpn::predicate::Predicate;
use dpnc_frontend::interp::index_of;
use dpnc_frontend::ir::{Access, Program, VarKind};

/// The most lanes: 16 floats fill a 512-bit beat.
pub const MAX_LANES: u32 = 16;

fn refuse(lanes: u32, why: String) -> RtlError {
    RtlError::Lanes { lanes, why }
}

/// Whether the network `dpn` of `p` can run on `lanes` lanes; if not, why.
pub fn check(p: &Program, dpn: &Dpn, lanes: u32) -> Result<(), RtlError> {
    if lanes == 1 {
        return Ok(());
    }
    if !lanes.is_power_of_two() || lanes > MAX_LANES {
        return Err(refuse(lanes, format!("the lanes must be a power of two from 2 to {MAX_LANES}")));
    }
    for var in p.vars.iter().enumerate().filter(|(v, _)| !dpn.memory_processes(*v).is_empty()).map(|(_, var)| var) {
        if var.kind == VarKind::Local {
            return Err(refuse(lanes, format!("temporary `{}` lives in an on-chip memory, which serves one value a cycle", var.name)));
        }
        let bytes = crate::verilog::bits(var.ty) / 8;
        if bytes * lanes > crate::memory::LINE_BYTES as u32 {
            return Err(refuse(lanes, format!("{lanes} values of `{}` ({} bytes each) exceed one 64-byte beat", var.name, bytes)));
        }
    }
    for ch in &dpn.channels {
        let (from, to) = (&dpn.processes[ch.producer], &dpn.processes[ch.consumer]);
        let compute = |k: &ProcessKind| matches!(k, ProcessKind::Compute { .. });
        if compute(&from.kind) && compute(&to.kind) {
            return Err(refuse(
                lanes,
                format!(
                    "channel {} passes values from {} to {} on chip: lanes are built for statements whose operands all come from DDR and whose results all go there",
                    ch.name, from.name, to.name
                ),
            ));
        }
        if ch.kind != ChannelKind::Fifo {
            return Err(refuse(
                lanes,
                format!("channel {} is a {}, not a FIFO: each lane would read it at its own cell", ch.name, ch.kind.label()),
            ));
        }
        if ch.shared_load {
            return Err(refuse(lanes, format!("channel {} is served from a table of the cells its band read", ch.name)));
        }
        if ch.ddr_source.as_ref().is_some_and(|pieces| !pieces.is_empty()) {
            return Err(refuse(
                lanes,
                format!("the loads of channel {} wait for stores of the kernel to land, one cell at a time", ch.name),
            ));
        }
    }
    for (pi, pr) in dpn.processes.iter().enumerate() {
        if let ProcessKind::Compute { stmt, .. } = pr.kind {
            vectors(p, dpn, pi, stmt, lanes)?;
        }
    }
    Ok(())
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

/// What one point decides: each condition, and each access's cell.
#[derive(PartialEq)]
struct Point {
    conds: Vec<bool>,
    cells: Vec<i64>,
}

/// The vector being walked: its outer counters, the innermost counter's next value, how many
/// of its points came, and what its first point decided.
struct Vector {
    outer: Vec<i64>,
    next: i64,
    seen: u32,
    first: Point,
}

/// Walks compute process `pi` of statement `stmt` and checks that its points come in aligned
/// vectors of `lanes` that agree (the module's documentation).
fn vectors(p: &Program, dpn: &Dpn, pi: usize, stmt: usize, lanes: u32) -> Result<(), RtlError> {
    let (pr, s) = (&dpn.processes[pi], &p.stmts[stmt]);
    let l = crate::process::nest(pr)?;
    let w = lanes as i64;
    let Some(inner) = l.counters.last() else {
        return Err(refuse(lanes, format!("{} runs a single point", pr.name)));
    };
    if inner.step != 1 {
        return Err(refuse(lanes, format!("{}'s innermost loop ({}) does not step by one", pr.name, inner.name)));
    }
    if inner.lower.iter().any(|b| b.cst % w != 0 || b.coef.iter().any(|a| a % w != 0)) {
        return Err(refuse(lanes, format!("{}'s innermost loop ({}) does not start at a multiple of {lanes}", pr.name, inner.name)));
    }
    // Every condition the process and its memory processes decide per point.
    let mut conds: Vec<&Predicate> = Vec::new();
    conds.extend(pr.mux.iter().flatten().filter_map(|cl| cl.pred.as_ref()));
    conds.extend(pr.demux.iter().filter_map(|cl| cl.pred.as_ref()));
    for ch in dpn.channels.iter().filter(|ch| ch.consumer == pi) {
        conds.extend(ch.first_use.as_ref());
        conds.extend(ch.fanout.iter().map(|(_, q)| q));
    }
    let accesses: Vec<&Access> = s.reads.iter().chain([&s.write]).filter(|a| !p.vars[a.var].is_scalar_argument()).collect();
    let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
    // The cell's row-major index (an access that runs is in bounds, `frontend::bounds`).
    let cell = |a: &Access, it: &[i64]| -> i64 {
        index_of(p, a, it, &params).ok().and_then(|(_, flat)| flat).map_or(i64::MIN / 2, |flat| flat as i64)
    };
    let at = |it: &[i64]| {
        let each: Vec<String> = s.iters.iter().zip(it).map(|(n, v)| format!("{n} = {v}")).collect();
        format!("{} at {}", s.name, each.join(", "))
    };
    let mut open: Option<Vector> = None;
    let mut fail: Option<String> = None;
    l.for_each_point(&mut |c, it| {
        if fail.is_some() {
            return;
        }
        let (outer, x) = (&c[..c.len() - 1], c[c.len() - 1]);
        let point = Point { conds: conds.iter().map(|q| q.eval(it)).collect(), cells: accesses.iter().map(|a| cell(a, it)).collect() };
        match open.as_mut() {
            Some(v) if v.seen < lanes => {
                if v.outer != outer || x != v.next {
                    fail = Some(format!(
                        "{}: a vector of {lanes} points of the innermost loop ({}) ends after {} of them",
                        at(it),
                        inner.name,
                        v.seen
                    ));
                } else if point.conds != v.first.conds {
                    fail =
                        Some(format!("{}: a condition of the process or of its loads changes inside a vector of {lanes} points", at(it)));
                } else if let Some(k) = (0..accesses.len()).find(|&k| point.cells[k] != v.first.cells[k] + v.seen as i64) {
                    fail = Some(format!(
                        "{}: `{}` is not one cell after the last lane's: a vector's values must be consecutive cells",
                        at(it),
                        p.vars[accesses[k].var].name
                    ));
                }
                v.next += 1;
                v.seen += 1;
            }
            _ => {
                if x.rem_euclid(w) != 0 {
                    fail = Some(format!("{}: a vector of points would start at {} = {x}, not a multiple of {lanes}", at(it), inner.name));
                } else if let Some(k) = point.cells.iter().position(|&cell| cell.rem_euclid(w) != 0) {
                    fail = Some(format!(
                        "{}: a vector's first cell of `{}` is not a multiple of {lanes}, so its values would straddle a beat",
                        at(it),
                        p.vars[accesses[k].var].name
                    ));
                }
                open = Some(Vector { outer: outer.to_vec(), next: x + 1, seen: 1, first: point });
            }
        }
    });
    if fail.is_none() && open.as_ref().is_some_and(|v| v.seen < lanes) {
        fail = Some(format!(
            "{}'s last vector of points holds fewer than {lanes}: the innermost loop's trip count is not a multiple of {lanes}",
            pr.name
        ));
    }
    fail.map_or(Ok(()), |why| Err(refuse(lanes, why)))
}
