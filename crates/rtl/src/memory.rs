//! The memory process of one array: what its Load and Store processes do, merged in σ order
//! (as in the Vitis backend), on one AXI4 master port. Each channel it serves has a generator
//! (the consumer's or producer's walker, filtered by the channel's first-use or demux
//! condition, keyed by σ); the smallest key goes next.
//!
//! The memory's latency (tens of cycles per request) must not be paid per access, so the
//! process is a pipeline:
//! * **Issue** (one σ-next access per cycle at most): a load goes into an in-order *issue
//!   queue* with everything its fan-out needs later (target channels, scratchpad cells,
//!   shared-load cell), and its element into the *open read burst*; a store pops its value
//!   into the *open write burst*.
//! * **Bursts**: σ-consecutive accesses to consecutive elements grow one INCR burst (beats of
//!   one element, up to [`BURST`] beats, never across 4 KiB); it is sent when the next access
//!   does not extend it, when it is full, or after [`HOLD`] cycles without growing, so it never
//!   waits on an access that is blocked elsewhere.
//! * **Fan-out**: R beats come back in order; the queue's head takes its beat (or its cached
//!   value) and goes to all its channels in one cycle (`rready` low while one of them is full),
//!   so every channel sees its values in σ order, as before. ARs take no channel space, so
//!   issuing ahead cannot deadlock the network.
//! * **DDR order** (the simple, provable rule): a load is issued only when every store issued
//!   before it has its write response (B); a store only when every earlier load has been
//!   fanned out (the queue is empty). Stores are posted: their B responses are only counted.
//!
//! A temporary of the kernel (`VarKind::Local`) has no DDR: it lives in a memory here, read at
//! issue and written at issue, with the same queue for its fan-out.

use crate::process::{cell_index, index_wire, need, port_decls, ports, pred_v};
use crate::verilog::{aff, bits, index_bits, key, lin, lit, FUNCTIONS};
use crate::RtlError;
use dpnc_dpn::ir::{ChannelKind, Dpn, ProcessKind};
use dpnc_dpn::predicate::Predicate;
use dpnc_dpn::sync::sigma;
use dpnc_frontend::scop::{Access, Program, VarKind};
use std::fmt::Write;

/// Loads issued and not yet fanned out: enough to keep a latency of about a hundred cycles
/// covered at the rate the generators issue, small enough for distributed RAM.
pub const QUEUE: usize = 64;
/// Most beats in one INCR burst (a power of two, at most 128 so that `len` fits in 8 bits).
pub const BURST: usize = 16;
/// Cycles an open burst waits for its next element before it is sent.
pub const HOLD: usize = 8;
/// W beats buffered; at least [`BURST`], so an open write burst can always close.
const WBUF: usize = BURST;

struct Gen<'a> {
    c: usize,
    load: bool,
    /// The compute process whose nest it walks, and its statement.
    pi: usize,
    stmt: usize,
    access: &'a Access,
    cond: &'a Predicate,
}

/// AXI4 master port signals of a memory process (prefix `m_`): (name, output, width).
pub const AXI_PORTS: &[(&str, bool, u32)] = &[
    ("awvalid", true, 1),
    ("awready", false, 1),
    ("awaddr", true, 64),
    ("awlen", true, 8),
    ("awsize", true, 3),
    ("awburst", true, 2),
    ("wvalid", true, 1),
    ("wready", false, 1),
    ("wdata", true, 64),
    ("wstrb", true, 8),
    ("wlast", true, 1),
    ("bvalid", false, 1),
    ("bready", true, 1),
    ("bresp", false, 2),
    ("arvalid", true, 1),
    ("arready", false, 1),
    ("araddr", true, 64),
    ("arlen", true, 8),
    ("arsize", true, 3),
    ("arburst", true, 2),
    ("rvalid", false, 1),
    ("rready", true, 1),
    ("rdata", false, 64),
    ("rlast", false, 1),
    ("rresp", false, 2),
];

/// A field of an issue-queue entry: its name (`h_<name>` at the head), width, and value at issue.
struct Field {
    name: String,
    width: u32,
    value: String,
}

/// The module `m_<array>` of array `var`'s memory process.
pub fn module(p: &Program, dpn: &Dpn, var: usize) -> Result<String, RtlError> {
    let v = &p.vars[var];
    // A temporary of the kernel lives in a memory of this process (cleared at start), not in DDR.
    let local = v.kind == VarKind::Local;
    let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
    let mems = dpn.memory_processes(var);
    let mut gens = Vec::new();
    for (c, ch) in dpn.channels.iter().enumerate() {
        if mems.contains(&ch.producer) {
            let ProcessKind::Compute { stmt, .. } = dpn.processes[ch.consumer].kind else { continue };
            let cond = need(dpn, c, &ch.first_use, "first-use")?;
            gens.push(Gen { c, load: true, pi: ch.consumer, stmt, access: &p.stmts[stmt].reads[ch.port.unwrap_or(0)], cond });
        }
    }
    for (c, ch) in dpn.channels.iter().enumerate() {
        if mems.contains(&ch.consumer) {
            let ProcessKind::Compute { stmt, .. } = dpn.processes[ch.producer].kind else { continue };
            let pr = &dpn.processes[ch.producer];
            let cond = pr
                .demux
                .iter()
                .find(|cl| cl.channel == c)
                .and_then(|cl| cl.pred.as_ref())
                .ok_or_else(|| RtlError::Channel { channel: ch.name.clone(), why: "its demux condition has no predicate".into() })?;
            gens.push(Gen { c, load: false, pi: ch.producer, stmt, access: &p.stmts[stmt].write, cond });
        }
    }
    let eb = bits(v.ty) / 8;
    let ew = bits(v.ty);
    let size = eb.trailing_zeros();
    let n = gens.len();
    let has_loads = gens.iter().any(|g| g.load);
    let has_stores = gens.iter().any(|g| !g.load);
    let shared = !local && gens.iter().any(|g| g.load && dpn.channels[g.c].shared_load);
    let clears = local || shared;
    let len = v.len().max(1);
    let xw = index_bits(len);
    let ports = ports(dpn, &mems);
    let mut decl = vec!["input  wire clk".to_string(), "input  wire rst".into(), "input  wire start".into(), "output reg  done".into()];
    if !local {
        decl.push("input  wire [63:0] base".into());
    }
    decl.extend(port_decls(&ports));
    if !local {
        decl.extend(AXI_PORTS.iter().map(|p| crate::verilog::port("m_", p)));
    }
    let mut o = String::new();
    if local {
        let _ =
            writeln!(o, "// The on-chip memory of temporary {}: its loads (once per band, at first use) and stores, in σ order.", v.name);
    } else {
        let _ = writeln!(
            o,
            "// The DDR port of {}: its loads (once per band, at first use) and stores, in σ order; loads pipelined ({QUEUE} in flight), INCR bursts of up to {BURST} beats, stores posted.",
            v.name
        );
    }
    let _ = writeln!(o, "module m_{} (\n    {}\n);", v.name, decl.join(",\n    "));
    o.push_str(FUNCTIONS);
    let _ = writeln!(
        o,
        "    localparam [1:0] IDLE = 2'd0, RUN = 2'd1{};\n    reg [1:0] state;\n    wire issue, ld_go, st_go;  // the σ-next access goes this cycle: a load, a store",
        if clears { ", CLEAR = 2'd2" } else { "" }
    );

    // Generators.
    let mut accs = Vec::new();
    for (g, gen) in gens.iter().enumerate() {
        let pr = &dpn.processes[gen.pi];
        let l = crate::process::nest(pr)?;
        let d = l.counters.len();
        let s = &p.stmts[gen.stmt];
        let names: Vec<String> = s.iters.iter().map(|i| format!("g{g}_{i}")).collect();
        let _ = writeln!(
            o,
            "    // Generator {g}: {} {} ({}).\n    wire g{g}_valid, g{g}_done, g{g}_next;\n    // verilator lint_off UNUSEDSIGNAL\n    wire [{}:0] g{g}_cs;\n    // verilator lint_on UNUSEDSIGNAL\n    w_{} walk{g} (.clk(clk), .rst(rst), .start(start), .next(g{g}_next), .valid(g{g}_valid), .done(g{g}_done), .cs(g{g}_cs));",
            if gen.load { "loads for" } else { "stores from" },
            dpn.channels[gen.c].name,
            pr.name,
            64 * d.max(1) - 1,
            pr.name
        );
        let ctr: Vec<String> = (0..d).map(|k| format!("$signed(g{g}_cs[{}:{}])", 64 * k + 63, 64 * k)).collect();
        for (nm, li) in names.iter().zip(&l.iters) {
            let _ = writeln!(o, "    wire signed [63:0] {nm} = {};", lin(li, &ctr));
        }
        let _ = writeln!(o, "    wire g{g}_cond = {} && {};", pred_v(&l.guard, &names), pred_v(gen.cond, &names));
        let _ = writeln!(o, "    wire g{g}_acc = g{g}_valid && g{g}_cond;");
        let _ = writeln!(o, "    assign g{g}_next = (g{g}_valid && !g{g}_cond) || (issue && win{g});");
        let mut keys: Vec<String> = sigma(p, &dpn.nests, &dpn.tile, gen.stmt).iter().map(|k| key(k, &names)).collect();
        keys.push(lit(if gen.load { dpn.channels[gen.c].port.unwrap_or(0) as i64 } else { i64::MAX }));
        if gens.len() > 1 {
            for (k, kv) in keys.iter().enumerate() {
                let _ = writeln!(o, "    wire signed [63:0] g{g}_k{k} = {kv};");
            }
        }
        // The array cell, and its byte address in DDR.
        let mut flat = "64'sd0".to_string();
        for (x, dsz) in gen.access.index.iter().zip(&v.dims) {
            flat = format!("({flat} * 64'sd{dsz} + {})", aff(x, &names, &params));
        }
        let _ = writeln!(o, "    wire signed [63:0] g{g}_cell = {flat};");
        if !local {
            let _ = writeln!(o, "    wire [63:0] g{g}_addr = base + $unsigned(g{g}_cell) * 64'd{eb};");
        }
        accs.push((keys.len(), names));
    }
    // Lexicographic order of keys, and the winner: the smallest key, the first generator on ties.
    let klen = accs.first().map_or(0, |a| a.0);
    let lt = |g: usize, h: usize| -> String {
        let mut e = "1'b0".to_string();
        for k in (0..klen).rev() {
            e = format!("(g{g}_k{k} < g{h}_k{k} || (g{g}_k{k} == g{h}_k{k} && {e}))");
        }
        e
    };
    // lt_g_h (g > h): generator g's key is below h's.
    for g in 0..n {
        for h in 0..g {
            let _ = writeln!(o, "    wire lt_{g}_{h} = {};", lt(g, h));
        }
    }
    for g in 0..n {
        let mut t = vec![format!("g{g}_acc")];
        for h in 0..n {
            if h < g {
                t.push(format!("(!g{h}_acc || lt_{g}_{h})"));
            } else if h > g {
                t.push(format!("(!g{h}_acc || !lt_{h}_{g})"));
            }
        }
        let _ = writeln!(o, "    wire win{g} = {};", t.join(" && "));
    }
    let or = |v: Vec<String>, none: &str| if v.is_empty() { none.to_string() } else { v.join(" || ") };
    let and = |v: Vec<String>| if v.is_empty() { "1'b1".to_string() } else { v.join(" && ") };
    let _ = writeln!(
        o,
        "    wire settled = {};  // every generator is at its next access, or done\n    wire all_done = {};",
        and((0..n).map(|g| format!("(g{g}_acc || g{g}_done)")).collect()),
        and((0..n).map(|g| format!("g{g}_done")).collect())
    );
    let _ = writeln!(
        o,
        "    // The σ-next access: the winner's.\n    wire go = state == RUN && settled && !all_done;\n    wire pick_load = {};",
        or(gens.iter().enumerate().filter(|(_, gen)| gen.load).map(|(g, _)| format!("win{g}")).collect(), "1'b0")
    );
    if !local {
        let addrs: Vec<String> = (0..n).map(|g| format!("win{g} ? g{g}_addr :")).collect();
        let _ = writeln!(o, "    wire [63:0] pick_addr = {} 64'd0;", addrs.join(" "));
    }
    if clears {
        let cells: Vec<String> = (0..n).map(|g| format!("win{g} ? g{g}_cell :")).collect();
        let _ = writeln!(
            o,
            "    // verilator lint_off UNUSEDSIGNAL\n    wire signed [63:0] pick_cell_full = {} 64'sd0;\n    // verilator lint_on UNUSEDSIGNAL\n    wire [{}:0] pick_cell = pick_cell_full[{}:0];",
            cells.join(" "),
            xw - 1,
            xw - 1
        );
    }

    // Fan-out of the σ-next load: which channels get it (`fan<q>`), at which scratchpad cell (`fat<q>`).
    let mut fan: Vec<(usize, Vec<(usize, usize)>)> = Vec::new(); // q -> [(g, k)]
    for (g, gen) in gens.iter().enumerate().filter(|(_, gen)| gen.load) {
        let names = &accs[g].1;
        for (k, (q, pred)) in dpn.channels[gen.c].fanout.iter().enumerate() {
            let _ = writeln!(o, "    wire g{g}_to{k} = {};", pred_v(pred, names));
            let qch = &dpn.channels[*q];
            if qch.kind == ChannelKind::Scratchpad {
                index_wire(&mut o, &format!("g{g}_at{k}"), &cell_index(dpn, *q, gen.access, names, &params), index_bits(qch.cells()));
            }
            match fan.iter_mut().find(|f| f.0 == *q) {
                Some(f) => f.1.push((g, k)),
                None => fan.push((*q, vec![(g, k)])),
            }
        }
    }
    // What an issued load carries to its fan-out.
    let mut fields = Vec::new();
    if shared {
        fields.push(Field { name: "miss".into(), width: 1, value: "!hit".into() });
        fields.push(Field { name: "cell".into(), width: xw, value: "pick_cell".into() });
    }
    if local {
        fields.push(Field { name: "value".into(), width: ew, value: "data[pick_cell]".into() });
    } else if eb < 8 {
        fields.push(Field { name: "lane".into(), width: 3, value: "pick_addr[2:0]".into() });
    }
    for (q, users) in &fan {
        let to: Vec<String> = users.iter().map(|(g, k)| format!("(win{g} && g{g}_to{k})")).collect();
        let _ = writeln!(o, "    wire fan{q} = {};", to.join(" || "));
        fields.push(Field { name: format!("to{q}"), width: 1, value: format!("fan{q}") });
        let qch = &dpn.channels[*q];
        if qch.kind == ChannelKind::Scratchpad {
            let aw = index_bits(qch.cells());
            let mut at = format!("{aw}'d0");
            for (g, k) in users.iter().rev() {
                at = format!("win{g} ? g{g}_at{k} : {at}");
            }
            let _ = writeln!(o, "    wire [{}:0] fat{q} = {at};", aw - 1);
            fields.push(Field { name: format!("at{q}"), width: aw, value: format!("fat{q}") });
        }
    }

    // Stores: the σ-next store's value, popped when it issues.
    let stores: Vec<(usize, usize)> = gens.iter().enumerate().filter(|(_, gen)| !gen.load).map(|(g, gen)| (g, gen.c)).collect();
    if has_stores {
        let _ = writeln!(
            o,
            "    wire pop_ok = {};  // the σ-next store's value is there\n    wire [{}:0] pop_value = {} {ew}'d0;",
            or(stores.iter().map(|(g, c)| format!("(win{g} && ch{c}_v)")).collect(), "1'b0"),
            ew - 1,
            stores.iter().map(|(g, c)| format!("win{g} ? ch{c}_d :")).collect::<Vec<_>>().join(" ")
        );
        for (g, c) in &stores {
            let _ = writeln!(o, "    assign ch{c}_r = st_go && win{g};");
        }
    }
    let mut unused: Vec<String> = Vec::new();
    let _ = writeln!(o, "    assign issue = ld_go || st_go;");
    if !has_loads {
        o.push_str("    assign ld_go = 1'b0;\n");
    }
    if !has_stores {
        o.push_str("    assign st_go = 1'b0;\n");
    }

    // A temporary's memory, or a shared load's cell table (per cell, the band it was last
    // issued in, counted from 1; its value arrives with the R beat).
    if clears {
        let _ = writeln!(o, "    reg [63:0] clear;");
    }
    if local {
        let _ = writeln!(
            o,
            "    reg [{}:0] data [0:{}];\n    always @(posedge clk) begin\n        if (state == CLEAR) data[clear[{}:0]] <= {ew}'d0;\n        else if (st_go) data[pick_cell] <= pop_value;\n    end",
            ew - 1,
            len - 1,
            xw - 1
        );
    }
    if shared {
        let bk = dpnc_dpn::sync::band_key(p, &dpn.nests, &dpn.tile, 0).len();
        let _ =
            writeln!(o, "    reg [31:0] band_no;\n    reg [31:0] stamp [0:{}];\n    reg [{}:0] cache [0:{}];", len - 1, ew - 1, len - 1);
        let mut other = vec!["band_no == 32'd0".to_string()];
        for k in 0..bk {
            let mut e = "64'sd0".to_string();
            for (g, gen) in gens.iter().enumerate().rev().filter(|(_, gen)| gen.load) {
                let keys = dpnc_dpn::sync::band_key(p, &dpn.nests, &dpn.tile, gen.stmt);
                e = format!("win{g} ? {} : {e}", key(&keys[k], &accs[g].1));
            }
            let _ = writeln!(o, "    reg signed [63:0] band{k};\n    wire signed [63:0] pick_band{k} = {e};");
            other.push(format!("band{k} != pick_band{k}"));
        }
        let sets: Vec<String> = (0..bk).map(|k| format!("band{k} <= pick_band{k};")).collect();
        let _ = writeln!(
            o,
            "    wire other_band = {};\n    wire [31:0] next_band = other_band ? band_no + 32'd1 : band_no;\n    wire hit = stamp[pick_cell] == next_band;  // read in this band already: no DDR read\n    always @(posedge clk) begin\n        if (start) band_no <= 32'd0;\n        else if (ld_go) begin\n            band_no <= next_band;\n            {}\n        end\n    end\n    always @(posedge clk) begin\n        if (state == CLEAR) stamp[clear[{}:0]] <= 32'd0;\n        else if (ld_go && !hit) stamp[pick_cell] <= next_band;\n    end",
            other.join(" || "),
            sets.join(" "),
            xw - 1
        );
    }

    // The issue queue and the fan-out from its head.
    let qa = index_bits(QUEUE);
    let mut quiet = vec!["all_done".to_string()];
    if has_loads {
        let qw: u32 = fields.iter().map(|f| f.width).sum();
        let mut names = Vec::new();
        let mut at = qw;
        let _ = writeln!(
            o,
            "    // Issue queue: per load issued and not yet fanned out, in σ order: {}.\n    localparam [{qa}:0] QUEUE = {}'d{QUEUE};\n    reg [{}:0] q_mem [0:{}];\n    reg [{}:0] q_head, q_tail;\n    reg [{qa}:0] q_count;\n    wire [{}:0] q_in = {{{}}};\n    wire [{}:0] q_out = q_mem[q_head];",
            fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", "),
            qa + 1,
            qw - 1,
            QUEUE - 1,
            qa - 1,
            qw - 1,
            fields.iter().map(|f| f.value.as_str()).collect::<Vec<_>>().join(", "),
            qw - 1
        );
        for f in &fields {
            at -= f.width;
            let range = if f.width == 1 { format!("{at}") } else { format!("{}:{at}", at + f.width - 1) };
            let decl = if f.width == 1 { String::new() } else { format!("[{}:0] ", f.width - 1) };
            let _ = writeln!(o, "    wire {decl}h_{} = q_out[{range}];", f.name);
            names.push(f.name.clone());
        }
        let can: Vec<String> = fan.iter().map(|(q, _)| format!("(!h_to{q} || ch{q}_or)")).collect();
        let value = if local {
            "h_value".to_string()
        } else {
            let _ = writeln!(o, "    wire [63:0] rshift = {};", if eb < 8 { "m_rdata >> {h_lane, 3'b000}" } else { "m_rdata" });
            unused.push("rshift".into());
            if shared {
                let _ = writeln!(o, "    wire [{}:0] h_data = h_miss ? rshift[{}:0] : cache[h_cell];", ew - 1, ew - 1);
                "h_data".into()
            } else {
                format!("rshift[{}:0]", ew - 1)
            }
        };
        let (beat, rready) = match (local, shared) {
            (true, _) => ("1'b1", None),
            (false, true) => ("(!h_miss || m_rvalid)", Some("q_count != 0 && h_miss && can")),
            (false, false) => ("m_rvalid", Some("q_count != 0 && can")),
        };
        let _ = writeln!(
            o,
            "    // Fan-out of the head once its value is there and every target channel can take it.\n    wire can = {};\n    wire fire = q_count != {}'d0 && {beat} && can;",
            and(can),
            qa + 1
        );
        if let Some(r) = rready {
            let _ = writeln!(o, "    assign m_rready = {};", r.replace("q_count != 0", &format!("q_count != {}'d0", qa + 1)));
        }
        for (q, _) in &fan {
            let qch = &dpn.channels[*q];
            let _ = writeln!(o, "    assign ch{q}_ov = fire && h_to{q};");
            if qch.kind == ChannelKind::Scratchpad {
                let _ = writeln!(o, "    assign ch{q}_od = {{h_at{q}, {value}}};");
            } else {
                let _ = writeln!(o, "    assign ch{q}_od = {value};");
            }
        }
        let _ = writeln!(
            o,
            "    always @(posedge clk) if (ld_go) q_mem[q_tail] <= q_in;\n    always @(posedge clk) begin\n        if (rst || start) begin\n            q_head <= {qa}'d0;\n            q_tail <= {qa}'d0;\n            q_count <= {w}'d0;\n        end else begin\n            if (ld_go) q_tail <= q_tail + {qa}'d1;\n            if (fire) q_head <= q_head + {qa}'d1;\n            if (ld_go && !fire) q_count <= q_count + {w}'d1;\n            else if (!ld_go && fire) q_count <= q_count - {w}'d1;\n        end\n    end",
            w = qa + 1
        );
        if shared {
            let _ = writeln!(o, "    always @(posedge clk) if (fire && h_miss) cache[h_cell] <= rshift[{}:0];", ew - 1);
        }
        quiet.push(format!("q_count == {}'d0", qa + 1));
    }
    let bw = index_bits(BURST + 1);
    let hw = index_bits(HOLD + 1);
    if !local && (has_loads || has_stores) {
        let _ = writeln!(o, "    localparam [{}:0] BURST = {bw}'d{BURST};\n    localparam [{}:0] HOLD = {hw}'d{HOLD};", bw - 1, hw - 1);
    }
    let len8 = |x: &str| if bw < 8 { format!("{{{}'d0, {x} - {bw}'d1}}", 8 - bw) } else { format!("{x} - {bw}'d1") };

    // The write side: the open burst with its last beat held (wlast is known when it closes),
    // the AW offered, the W beats, the bursts awaiting their response.
    if local {
        if has_stores {
            let _ = writeln!(o, "    assign st_go = go && !pick_load && pop_ok;");
        }
    } else if has_stores {
        let pad = if ew < 64 { format!("{}'d0, ", 64 - ew) } else { String::new() };
        let wb = index_bits(WBUF);
        let _ = writeln!(
            o,
            "    // Write side: the open burst (σ-consecutive stores to consecutive elements) with its last beat held\n    // (wlast is known when it closes), the AW offered, the W beats, the bursts awaiting their response.\n    reg wb_v;\n    reg [63:0] wb_addr, wb_end;\n    reg [{b}:0] wb_beats;\n    reg [{h}:0] wb_idle;\n    reg [63:0] wh_data;\n    reg [7:0] wh_strb;\n    reg aw_v;\n    reg [63:0] aw_addr;\n    reg [7:0] aw_len;\n    reg [72:0] wf [0:{wl}];  // {{wlast, wstrb, wdata}}\n    reg [{wa}:0] wf_head, wf_tail;\n    reg [{wb}:0] wf_count;\n    reg [15:0] w_out;  // write bursts opened and not yet acknowledged\n    wire aw_free = !aw_v || m_awready;\n    wire wf_room = wf_count != {w1}'d{WBUF};\n    wire aw_ext = wb_v && wb_beats != BURST && pick_addr == wb_end && pick_addr[11:0] != 12'd0;\n    assign st_go = go && !pick_load && pop_ok && {empty}wf_room && (aw_ext || !wb_v || aw_free);\n    wire wb_close = wb_v && !st_go && aw_free && wf_room && (wb_beats == BURST || wb_idle == HOLD || (go && pick_load) || all_done);\n    wire wf_push = (st_go && wb_v) || wb_close;\n    wire wf_pop = m_wvalid && m_wready;\n    wire [63:0] st_data = {{{pad}pop_value}} << {{pick_addr[2:0], 3'b000}};\n    wire [7:0] st_strb = 8'b{mask} << pick_addr[2:0];\n    assign m_awvalid = aw_v;\n    assign m_awaddr = aw_addr;\n    assign m_awlen = aw_len;\n    assign m_awsize = 3'd{size};\n    assign m_awburst = 2'b01;\n    assign m_wvalid = wf_count != {w1}'d0;\n    assign {{m_wlast, m_wstrb, m_wdata}} = wf[wf_head];\n    assign m_bready = 1'b1;\n    always @(posedge clk) if (wf_push) wf[wf_tail] <= {{!(st_go && aw_ext), wh_strb, wh_data}};\n    always @(posedge clk) begin\n        if (rst || start) begin\n            wb_v <= 1'b0;\n            aw_v <= 1'b0;\n            wf_head <= {wb0}'d0;\n            wf_tail <= {wb0}'d0;\n            wf_count <= {w1}'d0;\n            w_out <= 16'd0;\n        end else begin\n            if (m_awvalid && m_awready) aw_v <= 1'b0;\n            if (st_go && aw_ext) begin\n                wb_beats <= wb_beats + {bw}'d1;\n                wb_end <= wb_end + 64'd{eb};\n            end else if (st_go || wb_close) begin\n                if (wb_v) begin  // the open burst goes out\n                    aw_v <= 1'b1;\n                    aw_addr <= wb_addr;\n                    aw_len <= {len};\n                end\n                wb_v <= st_go;\n                wb_addr <= pick_addr;\n                wb_end <= pick_addr + 64'd{eb};\n                wb_beats <= {bw}'d1;\n            end\n            if (st_go) begin\n                wh_data <= st_data;\n                wh_strb <= st_strb;\n                wb_idle <= {hw}'d0;\n            end else if (wb_idle != HOLD) wb_idle <= wb_idle + {hw}'d1;\n            if (wf_push) wf_tail <= wf_tail + {wb0}'d1;\n            if (wf_pop) wf_head <= wf_head + {wb0}'d1;\n            if (wf_push && !wf_pop) wf_count <= wf_count + {w1}'d1;\n            else if (!wf_push && wf_pop) wf_count <= wf_count - {w1}'d1;\n            if (st_go && !aw_ext && !(m_bvalid && m_bready)) w_out <= w_out + 16'd1;\n            else if (!(st_go && !aw_ext) && m_bvalid && m_bready) w_out <= w_out - 16'd1;\n        end\n    end",
            b = bw - 1,
            h = hw - 1,
            wl = WBUF - 1,
            wa = wb - 1,
            wb = wb,
            wb0 = wb,
            w1 = wb + 1,
            empty = if has_loads { format!("q_count == {}'d0 && ", qa + 1) } else { String::new() },
            mask = format!("{:08b}", (1u32 << eb) - 1),
            len = len8("wb_beats"),
        );
        quiet.push(format!("!wb_v && !aw_v && wf_count == {}'d0 && w_out == 16'd0", wb + 1));
    } else {
        o.push_str("    assign m_awvalid = 1'b0;\n    assign m_awaddr = 64'd0;\n    assign m_awlen = 8'd0;\n");
        let _ = writeln!(
            o,
            "    assign m_awsize = 3'd{size};\n    assign m_awburst = 2'b01;\n    assign m_wvalid = 1'b0;\n    assign m_wdata = 64'd0;\n    assign m_wstrb = 8'd0;\n    assign m_wlast = 1'b0;\n    assign m_bready = 1'b0;"
        );
        unused.extend(["m_awready", "m_wready", "m_bvalid"].map(String::from));
    }
    // The read side: the open burst, then the AR offered to the memory.
    if local {
        if has_loads {
            let _ = writeln!(o, "    assign ld_go = go && pick_load && q_count != QUEUE;");
        }
    } else if has_loads {
        let hit = if shared { "hit || " } else { "" };
        let _ = writeln!(
            o,
            "    // Read side: the open burst (σ-consecutive loads of consecutive elements), then the AR offered.\n    reg bl_v;\n    reg [63:0] bl_addr, bl_end;\n    reg [{b}:0] bl_beats;\n    reg [{h}:0] bl_idle;  // cycles since the open burst last grew\n    reg ar_v;\n    reg [63:0] ar_addr;\n    reg [7:0] ar_len;\n    wire ar_free = !ar_v || m_arready;\n    wire ar_ext = bl_v && bl_beats != BURST && pick_addr == bl_end && pick_addr[11:0] != 12'd0;  // extends it, within 4 KiB\n    assign ld_go = go && pick_load && {wait}q_count != QUEUE && ({hit}ar_ext || !bl_v || ar_free);\n    wire ld_miss = ld_go{miss};  // a load that reads DDR\n    wire bl_close = bl_v && ar_free && !ld_miss && (bl_beats == BURST || bl_idle == HOLD || (go && !pick_load) || all_done);\n    assign m_arvalid = ar_v;\n    assign m_araddr = ar_addr;\n    assign m_arlen = ar_len;\n    assign m_arsize = 3'd{size};\n    assign m_arburst = 2'b01;\n    always @(posedge clk) begin\n        if (rst || start) begin\n            bl_v <= 1'b0;\n            ar_v <= 1'b0;\n        end else begin\n            if (m_arvalid && m_arready) ar_v <= 1'b0;\n            if (ld_miss && ar_ext) begin\n                bl_beats <= bl_beats + {bw}'d1;\n                bl_end <= bl_end + 64'd{eb};\n            end else if (ld_miss || bl_close) begin\n                if (bl_v) begin  // the open burst goes out\n                    ar_v <= 1'b1;\n                    ar_addr <= bl_addr;\n                    ar_len <= {len};\n                end\n                bl_v <= ld_miss;\n                bl_addr <= pick_addr;\n                bl_end <= pick_addr + 64'd{eb};\n                bl_beats <= {bw}'d1;\n            end\n            if (ld_go) bl_idle <= {hw}'d0;\n            else if (bl_idle != HOLD) bl_idle <= bl_idle + {hw}'d1;\n        end\n    end",
            b = bw - 1,
            h = hw - 1,
            wait = if has_stores { "w_out == 16'd0 && " } else { "" },
            miss = if shared { " && !hit" } else { "" },
            len = len8("bl_beats"),
        );
        quiet.push("!bl_v && !ar_v".into());
    } else {
        o.push_str("    assign m_arvalid = 1'b0;\n    assign m_araddr = 64'd0;\n    assign m_arlen = 8'd0;\n");
        let _ = writeln!(o, "    assign m_arsize = 3'd{size};\n    assign m_arburst = 2'b01;\n    assign m_rready = 1'b0;");
        unused.extend(["m_arready", "m_rvalid", "m_rdata"].map(String::from));
    }

    if !local {
        unused.extend(["m_bresp", "m_rlast", "m_rresp"].map(String::from));
        let _ = writeln!(o, "    wire unused = &{{1'b0, {}}};  // responses are OKAY, beats counted", unused.join(", "));
    }

    // Start (clearing what the process holds), run, done once everything issued has landed.
    let _ = writeln!(
        o,
        "    always @(posedge clk) begin\n        if (rst) begin\n            state <= IDLE;\n            done <= 1'b0;\n        end else if (start) begin\n            state <= {};\n            done <= 1'b0;{}\n        end else if (state == RUN && {}) begin\n            state <= IDLE;\n            done <= 1'b1;\n        end\n    end\nendmodule\n",
        if clears { "CLEAR" } else { "RUN" },
        if clears {
            format!("\n            clear <= 64'd0;\n        end else if (state == CLEAR) begin\n            if (clear == 64'd{}) state <= RUN;\n            else clear <= clear + 64'd1;", len - 1)
        } else {
            String::new()
        },
        quiet.join(" && ")
    );
    Ok(o)
}
