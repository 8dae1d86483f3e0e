//! Lanes of a read-only array's memory process. One σ-ordered pipeline issues one load a cycle
//! and hands each value to all its channels at once, so parallel sub-bands wait for each other
//! (a value for one waits behind the values for the others) and for one issue slot. An array
//! the kernel never stores needs no order between its loads: its values never change. So its
//! generators are split into *lanes*, each a memory module of its own ([`super::module`] with
//! [`super::Shape::lane`]) with its own σ order, line cache, issue queue and fan-out, and the
//! lanes share the AXI port through the `dpn_read_lanes` cell, which takes a lane's AR only
//! when that lane's read buffer has room for the burst (R never waits on a consumer).
//!
//! A channel's values must come in σ order, so the generators that feed one channel (their
//! fan-outs meet) are in the same lane.

use super::{idle_write_side, Gen, AXI_DATA_BITS, AXI_PORTS, LINE_BYTES, READ_BUFFER};
use crate::process::{port_decls, ChannelPort, STAT_WIRES};
use dpnc_dpn::ir::Dpn;
use dpnc_frontend::ir::Program;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The library cell that joins the lanes on the port.
pub const CELL: &str = "axi/dpn_read_lanes.v";
/// Most lanes per array: one per sub-band at `--par 16`.
const MAX_LANES: usize = 16;
/// A lane's read channel, the AXI signals its module has (`m_` prefix).
pub const LANE_AXI: &[&str] = &["arvalid", "arready", "araddr", "arlen", "rvalid", "rready", "rdata"];

/// The generators of one lane and the channels they feed.
pub struct Lane {
    /// Indices into the memory process's generators.
    pub gens: Vec<usize>,
    /// The channels their fan-outs reach.
    channels: Vec<usize>,
}

impl Lane {
    /// The stream ports of `all` that this lane drives.
    pub fn ports(&self, all: &[ChannelPort]) -> Vec<ChannelPort> {
        all.iter().filter(|p| self.channels.contains(&p.c)).cloned().collect()
    }
}

/// The lanes of a memory process with generators `gens` and stream ports `all`: none (one
/// module) unless every generator loads, every port is fed by a fan-out and the fan-outs
/// form at least two groups. Generators whose
/// fan-outs meet share a lane; those without a fan-out (their channel's values all come from
/// other generators) walk in a lane of their own, so that they hold back no other lane; past
/// [`MAX_LANES`], groups share lanes in turn.
pub fn partition(dpn: &Dpn, gens: &[Gen], all: &[ChannelPort]) -> Vec<Lane> {
    if gens.len() < 2 || gens.iter().any(|g| !g.load) {
        return Vec::new();
    }
    let mut group: Vec<usize> = (0..gens.len()).collect();
    fn root(group: &mut [usize], g: usize) -> usize {
        let mut r = g;
        while group[r] != r {
            r = group[r];
        }
        group[g] = r;
        r
    }
    let mut feeder: BTreeMap<usize, usize> = BTreeMap::new();
    for (g, gen) in gens.iter().enumerate() {
        for (q, _) in &dpn.channels[gen.c].fanout {
            match feeder.get(q) {
                Some(&h) => {
                    let (a, b) = (root(&mut group, g), root(&mut group, h));
                    group[a.max(b)] = a.min(b);
                }
                None => {
                    feeder.insert(*q, g);
                }
            }
        }
    }
    if all.iter().any(|p| !feeder.contains_key(&p.c)) {
        return Vec::new();
    }
    // Groups in order of their first generator; the idle generators last, together.
    let mut groups: Vec<Lane> = Vec::new();
    let mut idle = Vec::new();
    let mut at: BTreeMap<usize, usize> = BTreeMap::new();
    for (g, gen) in gens.iter().enumerate() {
        let fanout = &dpn.channels[gen.c].fanout;
        if fanout.is_empty() {
            idle.push(g);
            continue;
        }
        let r = root(&mut group, g);
        let k = *at.entry(r).or_insert_with(|| {
            groups.push(Lane { gens: Vec::new(), channels: Vec::new() });
            groups.len() - 1
        });
        groups[k].gens.push(g);
        groups[k].channels.extend(fanout.iter().map(|(q, _)| *q));
    }
    // One group keeps the single module: lanes would only add the port's buffers and latency.
    if groups.len() < 2 {
        return Vec::new();
    }
    if !idle.is_empty() {
        groups.push(Lane { gens: idle, channels: Vec::new() });
    }
    let n = groups.len().min(MAX_LANES);
    let mut lanes: Vec<Lane> = (0..n).map(|_| Lane { gens: Vec::new(), channels: Vec::new() }).collect();
    for (k, g) in groups.into_iter().enumerate() {
        lanes[k % n].gens.extend(g.gens);
        lanes[k % n].channels.extend(g.channels);
    }
    for lane in &mut lanes {
        // Within a lane, generators keep their σ tie-break order.
        lane.gens.sort_unstable();
    }
    lanes
}

/// The module name of lane `k` of memory module `name`.
pub fn lane_name(name: &str, k: usize) -> String {
    format!("{name}_lane{k}")
}

/// The module `name` of array `var`'s memory process: its `lanes` (modules
/// [`lane_name`]) on one AXI port.
pub fn wrapper(p: &Program, var: usize, name: &str, lanes: &[Lane], all: &[ChannelPort]) -> String {
    let v = &p.vars[var];
    let n = lanes.len();
    let dw = AXI_DATA_BITS;
    let mut decl = vec![
        "input  wire clk".to_string(),
        "input  wire rst".into(),
        "input  wire start".into(),
        "output wire done".into(),
        "input  wire [63:0] base".into(),
    ];
    decl.extend(port_decls(all));
    decl.extend(AXI_PORTS.iter().map(|p| crate::verilog::port("m_", p)));
    let mut o = String::new();
    let _ = writeln!(
        o,
        "// The DDR port of {}, which the kernel only reads: {n} lanes, each loading for its own channels in\n// its own σ order, so that a consumer that is behind holds back only its lane.\nmodule {name} (\n    {}\n);",
        v.name,
        decl.join(",\n    ")
    );
    let _ = writeln!(
        o,
        "    wire [{m}:0] l_done, l_work, l_wait_in, l_wait_out, l_arvalid, l_arready, l_rvalid, l_rready;\n    wire [{}:0] l_araddr;\n    wire [{}:0] l_arlen;\n    wire [{}:0] l_rdata;",
        n * 64 - 1,
        n * 8 - 1,
        n * dw as usize - 1,
        m = n - 1
    );
    for (k, lane) in lanes.iter().enumerate() {
        let mut conns =
            vec![".clk(clk)".to_string(), ".rst(rst)".into(), ".start(start)".into(), format!(".done(l_done[{k}])"), ".base(base)".into()];
        conns.extend(crate::process::port_conns(&lane.ports(all)));
        for s in ["arvalid", "arready", "rvalid", "rready"] {
            conns.push(format!(".m_{s}(l_{s}[{k}])"));
        }
        conns.push(format!(".m_araddr(l_araddr[{k} * 64 +: 64])"));
        conns.push(format!(".m_arlen(l_arlen[{k} * 8 +: 8])"));
        conns.push(format!(".m_rdata(l_rdata[{k} * {dw} +: {dw}])"));
        for (w, l) in STAT_WIRES.iter().zip(["l_work", "l_wait_in", "l_wait_out"]) {
            conns.push(format!(".{w}({l}[{k}])"));
        }
        let _ = writeln!(o, "    {} lane{k} (\n        {}\n    );", lane_name(name, k), conns.join(",\n        "));
    }
    let _ = writeln!(
        o,
        "    dpn_read_lanes #(.LANES({n}), .DW({dw}), .BUF({})) reader (\n        .clk(clk), .rst(rst || start),\n        .l_arvalid(l_arvalid), .l_arready(l_arready), .l_araddr(l_araddr), .l_arlen(l_arlen),\n        .l_rvalid(l_rvalid), .l_rready(l_rready), .l_rdata(l_rdata),\n        .m_arvalid(m_arvalid), .m_arready(m_arready), .m_araddr(m_araddr), .m_arlen(m_arlen),\n        .m_rvalid(m_rvalid), .m_rready(m_rready), .m_rdata(m_rdata), .m_rlast(m_rlast)\n    );\n    assign m_arsize = 3'd{};\n    assign m_arburst = 2'b01;",
        READ_BUFFER,
        LINE_BYTES.trailing_zeros()
    );
    o.push_str(&idle_write_side());
    o.push_str("    wire unused = &{1'b0, m_awready, m_wready, m_bvalid, m_bresp, m_rresp};  // responses are OKAY\n");
    o.push_str("    assign done = &l_done;\n");
    // The process works while any lane does; otherwise it waits for room if a lane does.
    o.push_str(&crate::process::stat_wires(&["|l_work", "!stat_work && !(|l_wait_out) && |l_wait_in", "!stat_work && |l_wait_out"]));
    o.push_str("\nendmodule\n");
    o
}
