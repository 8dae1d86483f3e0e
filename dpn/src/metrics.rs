//! Figures of merit for concrete sizes (DESIGN.md §4 "Metrics"): operations, DDR traffic of
//! the network and of the untiled original, arithmetic intensity, on-chip memory.

use crate::ir::*;
use dpnc_frontend::interp::instance_counts;
use dpnc_frontend::ir::BinOp;
use dpnc_frontend::ir::ScalarType;
use dpnc_frontend::ir::{Program, TExpr, TKind};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub instances: u64,
    /// Floating-point operations (+ - * / and math calls on float or double).
    pub flops: u64,
    pub ddr_read_bytes: u64,
    pub ddr_write_bytes: u64,
    /// The original program with every access going to memory.
    pub untiled_read_bytes: u64,
    pub untiled_write_bytes: u64,
    /// Every input element read once, every output element written once.
    pub compulsory_bytes: u64,
    pub onchip_words: u64,
    pub onchip_bytes: u64,
    pub processes: [usize; 3],
    pub channels: [usize; 3],
    pub bands: usize,
}

impl Report {
    pub fn ddr_bytes(&self) -> u64 {
        self.ddr_read_bytes + self.ddr_write_bytes
    }
    /// Operations per DDR byte.
    pub fn intensity(&self) -> f64 {
        self.flops as f64 / self.ddr_bytes().max(1) as f64
    }
}

fn flops_of(e: &TExpr) -> u64 {
    let own = match &e.kind {
        TKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div, a, _) if a.ty.is_float() => 1,
        TKind::Call(..) if e.ty.is_float() => 1,
        _ => 0,
    };
    own + match &e.kind {
        TKind::Unary(_, a) | TKind::Cast(a) => flops_of(a),
        TKind::Binary(_, a, b) => flops_of(a) + flops_of(b),
        TKind::Ternary(c, a, b) => flops_of(c) + flops_of(a) + flops_of(b),
        TKind::Call(_, args) => args.iter().map(flops_of).sum(),
        _ => 0,
    }
}

pub fn report(p: &Program, dpn: &Dpn) -> Report {
    let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
    // The network was built from the same walk, so it cannot fail here.
    let per_stmt = instance_counts(p, &params).unwrap_or_default();
    let size = |var: usize| p.vars[var].ty.size() as u64;
    let (mut ur, mut uw, mut flops) = (0, 0, 0);
    for (k, s) in p.stmts.iter().enumerate() {
        ur += per_stmt[k] * s.reads.iter().filter(|a| !p.vars[a.var].is_scalar_argument()).map(|a| size(a.var)).sum::<u64>();
        uw += per_stmt[k] * size(s.write.var);
        flops += per_stmt[k] * flops_of(&s.body);
    }
    let bytes = |counts: &[u64]| counts.iter().enumerate().map(|(v, n)| n * size(v)).sum::<u64>();
    let mut processes = [0; 3];
    for pr in &dpn.processes {
        processes[match pr.kind {
            ProcessKind::Load { .. } => 0,
            ProcessKind::Compute { .. } => 1,
            ProcessKind::Store { .. } => 2,
        }] += 1;
    }
    let mut channels = [0; 3];
    let (mut words, mut onchip_bytes) = (0u64, 0u64);
    for c in &dpn.channels {
        channels[c.kind as usize] += 1;
        // Store channels feed DDR writes; they are on chip too.
        words += c.size as u64;
        onchip_bytes += c.size as u64 * ScalarType::from_c_name(&c.elem).map_or(8, |t| t.size() as u64);
    }
    Report {
        instances: per_stmt.iter().sum(),
        flops,
        ddr_read_bytes: bytes(&dpn.ddr_reads),
        ddr_write_bytes: bytes(&dpn.ddr_writes),
        untiled_read_bytes: ur,
        untiled_write_bytes: uw,
        compulsory_bytes: bytes(&dpn.compulsory_reads) + bytes(&dpn.compulsory_writes),
        onchip_words: words,
        onchip_bytes,
        processes,
        channels,
        bands: dpn.bands,
    }
}

/// The human-readable `--report`.
pub fn render(p: &Program, dpn: &Dpn, r: &Report) -> String {
    let mut o = String::new();
    let params: Vec<String> = dpn.params.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let _ = writeln!(o, "kernel {} ({}), tiles {:?}, par {:?}", dpn.kernel, params.join(" "), dpn.tile, dpn.par);
    for (k, n) in dpn.nests.iter().enumerate() {
        let along: Vec<String> =
            dpn.interleaved.get(k).into_iter().flatten().enumerate().filter(|(_, &i)| i).map(|(d, _)| d.to_string()).collect();
        let dealt = match along.len() {
            0 => String::new(),
            1 => format!("; sub-bands interleaved along hyperplane {}", along[0]),
            _ => format!("; sub-bands interleaved along hyperplanes {}", along.join(", ")),
        };
        let _ =
            writeln!(o, "nest {k}: {} — {}{dealt}", n.stmts.iter().map(|&s| p.stmts[s].name.as_str()).collect::<Vec<_>>().join(" "), n.how);
    }
    let _ = writeln!(o, "bands: {}", r.bands);
    let _ = writeln!(o, "statement instances: {}   floating-point operations: {}", r.instances, r.flops);
    let _ = writeln!(o, "DDR traffic: {} B read + {} B written = {} B", r.ddr_read_bytes, r.ddr_write_bytes, r.ddr_bytes());
    let _ = writeln!(
        o,
        "  untiled original: {} B read + {} B written = {} B",
        r.untiled_read_bytes,
        r.untiled_write_bytes,
        r.untiled_read_bytes + r.untiled_write_bytes
    );
    let _ = writeln!(o, "  compulsory (inputs once, outputs once): {} B", r.compulsory_bytes);
    let _ = writeln!(o, "arithmetic intensity: {:.3} flop/B", r.intensity());
    let _ = writeln!(o, "on-chip: {} words ({} B) in {} channels", r.onchip_words, r.onchip_bytes, dpn.channels.len());
    let _ = writeln!(o, "processes: {} load, {} compute, {} store", r.processes[0], r.processes[1], r.processes[2]);
    let _ = writeln!(o, "channels: {} FIFO, {} FIFO+register, {} scratchpad", r.channels[0], r.channels[1], r.channels[2]);
    let _ = writeln!(o, "\n{:<34} {:<6} {:<11} {:>7} {:>9} {:>9}", "channel", "class", "kind", "size", "writes", "reads");
    for c in &dpn.channels {
        let _ = writeln!(
            o,
            "{:<34} {:<6} {:<11} {:>7} {:>9} {:>9}",
            c.name,
            format!("{:?}", c.class),
            format!("{:?}", c.kind),
            c.size,
            c.writes,
            c.reads
        );
    }
    o
}
