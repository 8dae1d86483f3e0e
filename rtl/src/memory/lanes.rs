//! Lanes of a memory process. One σ-ordered pipeline issues one load a cycle and hands each
//! value to all its channels at once, so parallel sub-bands wait for each other (a value for
//! one waits behind the values for the others) and for one issue slot. Where the array's
//! accesses need no order between some of its generators, they are split into *lanes*, each a
//! memory module of its own ([`super::module`] with [`super::Shape::lane`]) with its own σ
//! order, line cache, issue queue and fan-out; the lanes share the AXI port through the
//! `dpn_read_lanes` cell, which takes a lane's AR only when that lane's read buffer has room
//! for the burst (R never waits on a consumer), and, where the array is also written, the
//! `dpn_write_lanes` cell, which passes their write bursts in turn and each B to its lane.
//!
//! A channel's values must come in σ order, so the generators that feed one channel (their
//! fan-outs meet) are in the same lane. An array the kernel never stores needs no other order
//! between its loads: its values never change. One it stores keeps every cell's loads and
//! stores in one lane, whose module orders them as a single module would: generators that
//! touch a common line, one of them storing into it, share a lane. A line, not just a cell:
//! lanes that shared lines would each fetch them and each write them in part (GEMM's C at
//! `--par 4,4`, whose sub-bands take every fourth column, would get a lane per four rows, of
//! eight loads and eight stores). Where lines would join so many generators that a side of the
//! pick has more than [`LANE_SIDE`] (rows that straddle lines join every sub-band), only a
//! common cell makes generators share a lane, and sub-bands that share lines fill lanes up to
//! that many: a lane writes its cells of a line with their byte strobes, and reads none of
//! another lane's.

use super::{idle_write_side, Gen, AXI_DATA_BITS, AXI_PORTS, LINE_BYTES, READ_BUFFER};
use crate::process::{port_decls, ChannelPort, STAT_WIRES};
use dpnc_dpn::footprint;
use dpnc_dpn::ir::Dpn;
use dpnc_frontend::interp::index_of;
use dpnc_frontend::ir::Program;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The library cells that join the lanes' reads and writes on the port, and the choice of the
/// next lane that both make.
pub const CELL: &str = "axi/dpn_read_lanes.v";
pub const WRITE_CELL: &str = "axi/dpn_write_lanes.v";
pub const ROUND_ROBIN: &str = "axi/dpn_round_robin.v";
/// Most lanes per array: one per sub-band at `--par 16`.
const MAX_LANES: usize = 16;
/// Most generators on a side of a lane's pick where stored lines would join more. A pick among
/// four, the picked load's go and what its miss writes (the line cache's read address, the open
/// read burst) fit one cycle of the 300 MHz clock; among eight they do not. What it costs: a
/// line that two lanes share is fetched by each.
const LANE_SIDE: usize = 4;
/// A lane's read channel, the AXI signals its module has (`m_` prefix).
pub const LANE_AXI: &[&str] = &["arvalid", "arready", "araddr", "arlen", "rvalid", "rready", "rdata"];
/// A lane's write channel, where the array is also written: all of AXI's, the lanes' port
/// setting size and burst type itself.
pub const LANE_WRITE_AXI: &[&str] = &[
    "awvalid", "awready", "awaddr", "awlen", "awsize", "awburst", "wvalid", "wready", "wdata", "wstrb", "wlast", "bvalid", "bready",
    "bresp",
];
/// What isl's answer costs in points of a walk over the generators' accesses (about 100 ns
/// each): a set of lines, and a question whether two meet. Measured on PolyBench SMALL at
/// `--par` 4 and 16: a set takes up to 20 ms (skewed stencil tiles), a question 0.04 to 3 ms.
const SET_POINTS: u64 = 100_000;
const PAIR_POINTS: u64 = 5_000;
/// Lines of an array whose stores lanes may split: a table of that many entries finds the
/// generators that share a line.
const MOST_LINES: usize = 1 << 22;

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

/// Generators whose lines isl takes as one set: a group of loads whose fan-outs meet, or one
/// store.
struct Unit {
    /// Its first generator (index into the memory process's generators).
    first: usize,
    /// The channels whose cells it moves: the loads' fan-outs, or the store's channel.
    channels: Vec<usize>,
    /// It is a store.
    stores: bool,
}

/// Generators that must share a lane, joined as they are found.
#[derive(Clone)]
struct Groups(Vec<usize>);

impl Groups {
    fn root(&mut self, g: usize) -> usize {
        let mut r = g;
        while self.0[r] != r {
            r = self.0[r];
        }
        self.0[g] = r;
        r
    }
    fn join(&mut self, g: usize, h: usize) {
        let (a, b) = (self.root(g), self.root(h));
        self.0[a.max(b)] = a.min(b);
    }
}

/// The lanes of a memory process of array `var` with generators `gens` and stream ports
/// `all`, accesses of `simd` cells: none (one module) unless every load port is fed by a
/// fan-out and the generators form at least two groups. Generators whose fan-outs meet share a
/// lane, and so do generators that touch a common line (a common cell, past [`LANE_SIDE`] a
/// side) where one of them stores into it; loads
/// without a fan-out (their channel's values all come from other generators) walk in a lane of
/// their own, so that they hold back no other lane, where the array is only read (otherwise
/// there are no lanes); past [`MAX_LANES`], groups share lanes in turn.
pub fn partition(p: &Program, dpn: &Dpn, var: usize, gens: &[Gen], all: &[ChannelPort], simd: u32) -> Vec<Lane> {
    let stores = gens.iter().any(|g| !g.load);
    if gens.len() < 2 || (stores && gens.iter().any(|g| g.load && dpn.channels[g.c].fanout.is_empty())) {
        return Vec::new();
    }
    let mut groups = Groups((0..gens.len()).collect());
    let mut feeder: BTreeMap<usize, usize> = BTreeMap::new();
    for (g, gen) in gens.iter().enumerate() {
        for (q, _) in &dpn.channels[gen.c].fanout {
            match feeder.get(q) {
                Some(&h) => groups.join(g, h),
                None => {
                    feeder.insert(*q, g);
                }
            }
        }
        if !gen.load {
            feeder.insert(gen.c, g);
        }
    }
    if all.iter().any(|p| !feeder.contains_key(&p.c)) {
        return Vec::new();
    }
    if stores {
        let by_channels = groups.clone();
        let per_line = LINE_BYTES / (crate::verilog::bits(p.vars[var].ty) / 8) as usize;
        if !share_stored_lines(p, dpn, var, gens, &mut groups, per_line) {
            return Vec::new();
        }
        // Lines shared at the edges of the sub-bands (rows that do not end on a line) can join
        // them all: then only what shares a cell must share a lane, and the rest share lanes as
        // long as each side of a lane's pick stays that small. A vector's cells are one access, so
        // with vector lanes, lines decide.
        if simd == 1 && widest_side(gens, &mut groups) > LANE_SIDE {
            let mut cells = by_channels;
            if share_stored_lines(p, dpn, var, gens, &mut cells, 1) {
                join_within(gens, &mut cells, &mut groups);
                groups = cells;
            }
        }
    }
    // Groups in order of their first generator; the idle generators last, together.
    let mut found: Vec<Lane> = Vec::new();
    let mut idle = Vec::new();
    let mut at: BTreeMap<usize, usize> = BTreeMap::new();
    for (g, gen) in gens.iter().enumerate() {
        let fanout = &dpn.channels[gen.c].fanout;
        if gen.load && fanout.is_empty() {
            idle.push(g);
            continue;
        }
        let k = *at.entry(groups.root(g)).or_insert_with(|| {
            found.push(Lane { gens: Vec::new(), channels: Vec::new() });
            found.len() - 1
        });
        found[k].gens.push(g);
        found[k].channels.extend(fanout.iter().map(|(q, _)| *q));
        if !gen.load {
            found[k].channels.push(gen.c);
        }
    }
    // One group keeps the single module: lanes would only add the port's buffers and latency.
    if found.len() < 2 {
        return Vec::new();
    }
    if !idle.is_empty() {
        found.push(Lane { gens: idle, channels: Vec::new() });
    }
    let n = found.len().min(MAX_LANES);
    let mut lanes: Vec<Lane> = (0..n).map(|_| Lane { gens: Vec::new(), channels: Vec::new() }).collect();
    for (k, g) in found.into_iter().enumerate() {
        lanes[k % n].gens.extend(g.gens);
        lanes[k % n].channels.extend(g.channels);
    }
    for lane in &mut lanes {
        // Within a lane, generators keep their σ tie-break order.
        lane.gens.sort_unstable();
    }
    lanes
}

/// The most generators of one side (loads or stores) in one group.
fn widest_side(gens: &[Gen], groups: &mut Groups) -> usize {
    let mut count: BTreeMap<(usize, bool), usize> = BTreeMap::new();
    for (g, gen) in gens.iter().enumerate() {
        *count.entry((groups.root(g), gen.load)).or_default() += 1;
    }
    count.into_values().max().unwrap_or(0)
}

/// Joins groups of `cells` whose generators share a group of `lines`, in the generators'
/// order, as long as no group gets more than [`LANE_SIDE`] generators on a side: neighbouring
/// sub-bands, which share the most lines, come first.
fn join_within(gens: &[Gen], cells: &mut Groups, lines: &mut Groups) {
    for g in 0..gens.len() {
        for h in 0..g {
            if lines.root(g) != lines.root(h) || cells.root(g) == cells.root(h) {
                continue;
            }
            let mut joined = cells.clone();
            joined.join(g, h);
            if widest_side(gens, &mut joined) <= LANE_SIDE {
                *cells = joined;
            }
        }
    }
}

/// Joins in `groups` the generators that touch a common line of `per_line` cells where one of
/// them stores into it; false where the array is too large for the table of its lines or an
/// access cannot be placed. A walk over every generator's accesses finds them where it costs
/// less than isl's sets and questions would ([`SET_POINTS`], [`PAIR_POINTS`]). Otherwise isl
/// decides which lines meet on the channels' relations ([`footprint`]), [`Unit`] against unit:
/// `groups` already joins the loads whose fan-outs meet, so the cells a group of loads brings
/// in are the cells its channels read, whichever of its generators loads each one. Where isl
/// fails, the walk decides all the same.
fn share_stored_lines(p: &Program, dpn: &Dpn, var: usize, gens: &[Gen], groups: &mut Groups, per_line: usize) -> bool {
    let lines = p.vars[var].len().div_ceil(per_line);
    if lines > MOST_LINES {
        return false;
    }
    let mut units: Vec<Unit> = Vec::new();
    let mut of_root: BTreeMap<usize, usize> = BTreeMap::new();
    for (g, gen) in gens.iter().enumerate() {
        if !gen.load {
            units.push(Unit { first: g, channels: vec![gen.c], stores: true });
            continue;
        }
        let u = *of_root.entry(groups.root(g)).or_insert_with(|| {
            units.push(Unit { first: g, channels: Vec::new(), stores: false });
            units.len() - 1
        });
        units[u].channels.extend(dpn.channels[gen.c].fanout.iter().map(|(q, _)| *q));
    }
    let asked = |a: usize, b: usize| units[a].stores || units[b].stores;
    let points: u64 = gens.iter().map(|g| dpn.processes[g.pi].iterations).sum();
    let pairs = (0..units.len()).map(|b| (0..b).filter(|&a| asked(a, b)).count() as u64).sum::<u64>();
    if points < units.len() as u64 * SET_POINTS + pairs * PAIR_POINTS {
        return walk_stored_lines(p, dpn, var, gens, groups, per_line);
    }
    let before = groups.clone();
    let mut meet = || -> Result<(), dpnc_dpn::Error> {
        let channels: Vec<&[usize]> = units.iter().map(|u| u.channels.as_slice()).collect();
        let blocks = footprint::Blocks::of(dpn, &p.vars[var], &channels, per_line)?;
        for b in 0..units.len() {
            for a in 0..b {
                let (ga, gb) = (units[a].first, units[b].first);
                if asked(a, b) && groups.root(ga) != groups.root(gb) && blocks.meet(a, b)? {
                    groups.join(ga, gb);
                }
            }
        }
        Ok(())
    };
    if meet().is_ok() {
        return true;
    }
    *groups = before;
    walk_stored_lines(p, dpn, var, gens, groups, per_line)
}

/// [`share_stored_lines`] by walking each generator's accesses, lines of `per_line` cells.
fn walk_stored_lines(p: &Program, dpn: &Dpn, var: usize, gens: &[Gen], groups: &mut Groups, per_line: usize) -> bool {
    let len = p.vars[var].len();
    let lines = len.div_ceil(per_line);
    let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
    // The lines each generator reaches, stores first, each line remembering its first store.
    const NONE: u32 = u32::MAX;
    let mut stored = vec![NONE; lines];
    let mut order: Vec<usize> = (0..gens.len()).collect();
    order.sort_by_key(|&g| gens[g].load);
    for g in order {
        let gen = &gens[g];
        let Ok(l) = crate::process::nest(&dpn.processes[gen.pi]) else { return false };
        let mut placed = true;
        let mut meet = Vec::new();
        l.restricted(gen.cond).for_each_point(&mut |_, it| {
            if !placed || !gen.cond.eval(it) {
                return;
            }
            let Ok((_, Some(first))) = index_of(p, gen.access, it, &params) else {
                placed = false;
                return;
            };
            // The vector lanes' cells of an access lie in its first cell's line (`crate::simd`).
            let line = first.min(len - 1) / per_line;
            match (stored[line], gen.load) {
                (NONE, true) => {}
                (NONE, false) => stored[line] = g as u32,
                (s, _) if meet.last() != Some(&(s as usize)) => meet.push(s as usize),
                _ => {}
            }
        });
        if !placed {
            return false;
        }
        meet.sort_unstable();
        meet.dedup();
        for s in meet {
            groups.join(g, s);
        }
    }
    true
}

/// The module name of lane `k` of memory module `name`.
pub fn lane_name(name: &str, k: usize) -> String {
    format!("{name}_lane{k}")
}

/// The module `name` of array `var`'s memory process: its `lanes` (modules
/// [`lane_name`]) on one AXI port, with their write channels where the array `writes`.
pub fn wrapper(p: &Program, var: usize, name: &str, lanes: &[Lane], all: &[ChannelPort], writes: bool) -> String {
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
        "// The DDR port of {}{}: {n} lanes, each serving its own channels in\n// its own σ order, so that a consumer that is behind holds back only its lane.\nmodule {name} (\n    {}\n);",
        v.name,
        if writes { ", whose lanes load and store cells of their own" } else { ", which the kernel only reads" },
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
    if writes {
        let _ = writeln!(
            o,
            "    wire [{m}:0] l_awvalid, l_awready, l_wvalid, l_wready, l_wlast, l_bvalid, l_bready;\n    wire [{}:0] l_awaddr;\n    wire [{}:0] l_awlen;\n    wire [{}:0] l_awsize;\n    wire [{}:0] l_awburst;\n    wire [{}:0] l_wdata;\n    wire [{}:0] l_wstrb;",
            n * 64 - 1,
            n * 8 - 1,
            n * 3 - 1,
            n * 2 - 1,
            n * dw as usize - 1,
            n * dw as usize / 8 - 1,
            m = n - 1
        );
    }
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
        if writes {
            for s in ["awvalid", "awready", "wvalid", "wready", "wlast", "bvalid", "bready"] {
                conns.push(format!(".m_{s}(l_{s}[{k}])"));
            }
            for (s, w) in [("awaddr", 64), ("awlen", 8), ("awsize", 3), ("awburst", 2), ("wdata", dw), ("wstrb", dw / 8)] {
                conns.push(format!(".m_{s}(l_{s}[{k} * {w} +: {w}])"));
            }
            conns.push(".m_bresp(2'b00)".into());
        }
        for (w, l) in STAT_WIRES.iter().zip(["l_work", "l_wait_in", "l_wait_out"]) {
            conns.push(format!(".{w}({l}[{k}])"));
        }
        let _ = writeln!(o, "    {} lane{k} (\n        {}\n    );", lane_name(name, k), conns.join(",\n        "));
    }
    let _ = writeln!(
        o,
        "    dpn_read_lanes #(.LANES({n}), .DW({dw}), .BUF({}){}) reader (\n        .clk(clk), .rst(rst || start),\n        .l_arvalid(l_arvalid), .l_arready(l_arready), .l_araddr(l_araddr), .l_arlen(l_arlen),\n        .l_rvalid(l_rvalid), .l_rready(l_rready), .l_rdata(l_rdata),\n        .m_arvalid(m_arvalid), .m_arready(m_arready), .m_araddr(m_araddr), .m_arlen(m_arlen),\n        .m_rvalid(m_rvalid), .m_rready(m_rready), .m_rdata(m_rdata), .m_rlast(m_rlast)\n    );\n    assign m_arsize = 3'd{};\n    assign m_arburst = 2'b01;",
        READ_BUFFER,
        if writes { ", .JOIN(0)" } else { "" },
        LINE_BYTES.trailing_zeros()
    );
    if writes {
        let _ = writeln!(
            o,
            "    dpn_write_lanes #(.LANES({n}), .DW({dw})) writer (\n        .clk(clk), .rst(rst || start),\n        .l_awvalid(l_awvalid), .l_awready(l_awready), .l_awaddr(l_awaddr), .l_awlen(l_awlen),\n        .l_wvalid(l_wvalid), .l_wready(l_wready), .l_wdata(l_wdata), .l_wstrb(l_wstrb), .l_wlast(l_wlast), .l_bvalid(l_bvalid),\n        .m_awvalid(m_awvalid), .m_awready(m_awready), .m_awaddr(m_awaddr), .m_awlen(m_awlen),\n        .m_wvalid(m_wvalid), .m_wready(m_wready), .m_wdata(m_wdata), .m_wstrb(m_wstrb), .m_wlast(m_wlast),\n        .m_bvalid(m_bvalid), .m_bready(m_bready)\n    );\n    assign m_awsize = 3'd{};\n    assign m_awburst = 2'b01;",
            LINE_BYTES.trailing_zeros()
        );
        // The lanes' size, burst type and B readiness are the port's, set above.
        o.push_str("    wire unused = &{1'b0, m_bresp, m_rresp, l_awsize, l_awburst, l_bready};  // responses are OKAY\n");
    } else {
        o.push_str(&idle_write_side());
        o.push_str("    wire unused = &{1'b0, m_awready, m_wready, m_bvalid, m_bresp, m_rresp};  // responses are OKAY\n");
    }
    o.push_str("    assign done = &l_done;\n");
    // The process works while any lane does; otherwise it waits for room if a lane does.
    o.push_str(&crate::process::stat_wires(&["|l_work", "!stat_work && !(|l_wait_out) && |l_wait_in", "!stat_work && |l_wait_out"]));
    o.push_str("\nendmodule\n");
    o
}
