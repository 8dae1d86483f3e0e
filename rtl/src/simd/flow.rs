//! The compute processes' vectors run against each other through the on-chip FIFOs, each
//! holding the vectors the hardware gives it room for. A vector takes its values and gives
//! its results at once, and only values already in a FIFO count: a point that needs what an
//! earlier point of its own vector computes never finds it. If every process gets through all
//! its vectors, so does the hardware: each process's order of takes and gives is fixed, and a
//! pipeline that gives its results later than it takes its operands only adds places (its skid
//! buffer). The memory processes are not in this run: their streams hold as many vectors as a
//! design without lanes holds values ([`crate::top::stream_depth`]), the margin by which that
//! design's memory processes run ahead of their consumers.

use super::vectors::Run;
use super::{refuse, Lanes};
use crate::RtlError;
use dpnc_dpn::ir::Dpn;

/// Runs `runs` (every compute process's vectors) until all are done; if they stop, why.
pub(super) fn run(dpn: &Dpn, plan: &Lanes, runs: &[Run]) -> Result<(), RtlError> {
    let room: Vec<usize> = dpn.channels.iter().enumerate().map(|(c, ch)| crate::top::stream_depth(ch, plan.values[c]) - 1).collect();
    let mut fill = vec![0usize; dpn.channels.len()];
    let mut next = vec![0usize; runs.len()];
    let vector = |k: usize, at: usize| &runs[k].events[runs[k].starts[at]..runs[k].starts[at + 1]];
    let takes = |events: &[(usize, bool)], c: usize| events.contains(&(c, false));
    // The event of a vector that cannot happen now, if any.
    let blocked = |fill: &[usize], events: &[(usize, bool)]| {
        events.iter().copied().find(|&(c, gives)| if gives { fill[c] - usize::from(takes(events, c)) + 1 > room[c] } else { fill[c] == 0 })
    };
    loop {
        let mut moved = false;
        for k in 0..runs.len() {
            while next[k] + 1 < runs[k].starts.len() && blocked(&fill, vector(k, next[k])).is_none() {
                for &(c, gives) in vector(k, next[k]) {
                    if gives {
                        fill[c] += 1;
                    } else {
                        fill[c] -= 1;
                    }
                }
                next[k] += 1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    let Some(k) = (0..runs.len()).find(|&k| next[k] + 1 < runs[k].starts.len()) else { return Ok(()) };
    let pr = &dpn.processes[runs[k].pi];
    let Some((c, gives)) = blocked(&fill, vector(k, next[k])) else { unreachable!("a run stops only at a vector that cannot go") };
    let ch = &dpn.channels[c];
    let why = if !gives && ch.producer == runs[k].pi {
        format!(
            "{}'s vector {} needs a value of channel {} that a point of the same vector computes: a dependence along the innermost loop at a distance under {}",
            pr.name, next[k], ch.name, plan.width
        )
    } else {
        let stuck: Vec<&str> =
            (0..runs.len()).filter(|&k| next[k] + 1 < runs[k].starts.len()).map(|k| dpn.processes[runs[k].pi].name.as_str()).collect();
        format!(
            "run a vector at a time, {} wait for each other ({}'s vector {} {} channel {}, which holds {} of {} vectors)",
            stuck.join(", "),
            pr.name,
            next[k],
            if gives { "cannot write to" } else { "waits for" },
            ch.name,
            fill[c],
            room[c]
        )
    };
    Err(refuse(plan.width, why))
}
