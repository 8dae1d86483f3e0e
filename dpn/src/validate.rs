//! The DPN's invariants, checked on the built network: every value a compute instance reads
//! reaches it through exactly one channel that its producer writes; channels have one
//! producer and one consumer and a size; compute processes partition the statement
//! instances. The per-value checks need the traces (`Config::keep_traces`).

use crate::ir::*;
use crate::trace::*;
use dpnc_frontend::interp::instance_counts;
use dpnc_frontend::ir::Program;
use std::collections::{HashMap, HashSet};

/// All violated invariants (empty when the network is valid).
pub fn validate(p: &Program, dpn: &Dpn, traces: &Traces) -> Vec<String> {
    let mut errs = Vec::new();
    for (c, ch) in dpn.channels.iter().enumerate() {
        if ch.producer >= dpn.processes.len() || ch.consumer >= dpn.processes.len() {
            errs.push(format!("channel {} has a missing endpoint", ch.name));
        }
        if ch.size == 0 {
            errs.push(format!("channel {} has no size", ch.name));
        }
        if ch.writes == 0 {
            errs.push(format!("channel {} (#{c}) carries nothing", ch.name));
        }
        if ch.reads < ch.writes {
            errs.push(format!("channel {} (#{c}) has values nobody reads", ch.name));
        }
    }
    // Values written per channel, and by whom.
    let mut written: HashSet<(usize, u64)> = HashSet::new();
    for (pi, t) in traces.per_process.iter().enumerate() {
        let mut note = |ch: usize, vid: u64| {
            if dpn.channels.get(ch).is_none_or(|c| c.producer != pi) {
                errs.push(format!("process {} writes channel #{ch}, which it does not produce", dpn.processes[pi].name));
            }
            written.insert((ch, vid));
        };
        match t {
            Trace::Compute { ops, .. } => ops.iter().for_each(|op| op.writes.iter().for_each(|&ch| note(ch, op.vid))),
            Trace::Load { ops, .. } => ops.iter().for_each(|op| op.outs.iter().for_each(|&ch| note(ch, op.vid))),
            Trace::Store { .. } => {}
        }
    }
    let mut instances: HashSet<(usize, Vec<i64>)> = HashSet::new();
    let mut per_stmt: HashMap<usize, u64> = HashMap::new();
    for pr in &dpn.processes {
        if let ProcessKind::Compute { stmt, .. } = pr.kind {
            *per_stmt.entry(stmt).or_default() += pr.iterations;
        }
    }
    for (pi, t) in traces.per_process.iter().enumerate() {
        match t {
            Trace::Compute { stmt, ops } => {
                for op in ops {
                    if !instances.insert((*stmt, op.iters.clone())) {
                        errs.push(format!("{}{:?} runs in two processes", p.stmts[*stmt].name, op.iters));
                    }
                    for (r, src) in op.reads.iter().enumerate() {
                        if let ReadSrc::Chan { ch, vid, .. } = *src {
                            let c = &dpn.channels[ch];
                            if c.consumer != pi || c.port != Some(r) {
                                errs.push(format!(
                                    "{}{:?} read {r} uses channel {} of another port",
                                    p.stmts[*stmt].name, op.iters, c.name
                                ));
                            }
                            if !written.contains(&(ch, vid)) {
                                errs.push(format!(
                                    "{}{:?} read {r}: nobody writes its value into {}",
                                    p.stmts[*stmt].name, op.iters, c.name
                                ));
                            }
                        }
                    }
                }
            }
            Trace::Store { ops, .. } => {
                for op in ops {
                    if dpn.channels[op.ch].consumer != pi || !written.contains(&(op.ch, op.vid)) {
                        errs.push(format!("store in {} reads a value nobody sends it", dpn.processes[pi].name));
                    }
                }
            }
            Trace::Load { .. } => {}
        }
    }
    let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
    let covered = instance_counts(p, &params)
        .is_ok_and(|counts| counts.iter().enumerate().all(|(k, n)| per_stmt.get(&k).copied().unwrap_or(0) == *n));
    if !covered {
        errs.push("compute processes do not cover every statement instance exactly once".into());
    }
    errs
}
