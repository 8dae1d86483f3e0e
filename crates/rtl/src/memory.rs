//! The memory process of one array: what its Load and Store processes do, merged in σ order
//! (as in the Vitis backend), on one AXI4 master port. Each channel it serves has a generator
//! (the consumer's or producer's walker, filtered by the channel's first-use or demux
//! condition, keyed by σ); the smallest key goes next. One transaction at a time, each store
//! waiting for its write response, so DDR sees loads and stores in σ order.

use crate::process::{cell_index, index_wire, need, port_decls, ports, pred_v};
use crate::verilog::{aff, bits, key, lin, lit, FUNCTIONS};
use crate::RtlError;
use dpnc_dpn::ir::{ChannelKind, Dpn, ProcessKind};
use dpnc_dpn::predicate::Predicate;
use dpnc_dpn::sync::sigma;
use dpnc_frontend::scop::{Access, Program, VarKind};
use std::fmt::Write;

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
    let _ = writeln!(o, "// The DDR port of {}: its loads (once per band, at first use) and stores, in σ order.", v.name);
    let _ = writeln!(o, "module m_{} (\n    {}\n);", v.name, decl.join(",\n    "));
    o.push_str(FUNCTIONS);
    let n = gens.len();
    let gw = crate::verilog::index_bits(n.max(1) + 1);
    let _ = writeln!(
        o,
        "    localparam [3:0] IDLE = 4'd0, PICK = 4'd1, AR = 4'd2, FAN = 4'd4, POP = 4'd5, ADV = 4'd7{};\n    reg [3:0] state;\n    reg [{}:0] b;            // the generator being served\n    reg [{}:0] value;\n    // verilator lint_off UNUSEDSIGNAL\n    reg [63:0] addr;\n    // verilator lint_on UNUSEDSIGNAL{}",
        match (local, gens.iter().any(|g| g.load && dpn.channels[g.c].shared_load)) {
            (true, _) => ", CLEAR = 4'd8",
            (false, true) => ", R = 4'd3, WR = 4'd6, CLEAR = 4'd8",
            (false, false) => ", R = 4'd3, WR = 4'd6",
        },
        gw - 1,
        ew - 1,
        if local { "" } else { "\n    reg aw_done, w_done;" }
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
        let _ = writeln!(o, "    assign g{g}_next = (g{g}_valid && !g{g}_cond) || (state == ADV && b == {gw}'d{g});");
        let mut keys: Vec<String> = sigma(p, &dpn.nests, &dpn.tile, gen.stmt).iter().map(|k| key(k, &names)).collect();
        keys.push(lit(if gen.load { dpn.channels[gen.c].port.unwrap_or(0) as i64 } else { i64::MAX }));
        if gens.len() > 1 {
            for (k, kv) in keys.iter().enumerate() {
                let _ = writeln!(o, "    wire signed [63:0] g{g}_k{k} = {kv};");
            }
        }
        // Byte address of the cell.
        let dims = &v.dims;
        let mut flat = "64'sd0".to_string();
        for (x, dsz) in gen.access.index.iter().zip(dims) {
            flat = format!("({flat} * 64'sd{dsz} + {})", aff(x, &names, &params));
        }
        let _ = writeln!(o, "    wire signed [63:0] g{g}_cell = {flat};");
        if local {
            let _ = writeln!(o, "    wire [63:0] g{g}_addr = $unsigned(g{g}_cell);");
        } else {
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
    let settled: Vec<String> = (0..n).map(|g| format!("(g{g}_acc || g{g}_done)")).collect();
    let all_done: Vec<String> = (0..n).map(|g| format!("g{g}_done")).collect();
    let _ = writeln!(
        o,
        "    wire settled = {};\n    wire all_done = {};",
        if n == 0 { "1'b1".into() } else { settled.join(" && ") },
        if n == 0 { "1'b1".into() } else { all_done.join(" && ") }
    );
    // Fan-out of loads: channel q gets the value when generator b's clause for q holds.
    let mut fan: Vec<(usize, Vec<(usize, String)>)> = Vec::new(); // q -> [(g, target)]
    for (g, gen) in gens.iter().enumerate().filter(|(_, gen)| gen.load) {
        let names = &accs[g].1;
        for (k, (q, pred)) in dpn.channels[gen.c].fanout.iter().enumerate() {
            let _ = writeln!(o, "    wire g{g}_to{k} = {};", pred_v(pred, names));
            let qch = &dpn.channels[*q];
            if qch.kind == ChannelKind::Scratchpad {
                index_wire(
                    &mut o,
                    &format!("g{g}_at{k}"),
                    &cell_index(dpn, *q, gen.access, names, &params),
                    crate::verilog::index_bits(qch.cells()),
                );
            }
            match fan.iter_mut().find(|f| f.0 == *q) {
                Some(f) => f.1.push((g, format!("g{g}_to{k}|g{g}_at{k}"))),
                None => fan.push((*q, vec![(g, format!("g{g}_to{k}|g{g}_at{k}"))])),
            }
        }
    }
    let mut can = Vec::new();
    for (q, users) in &fan {
        let to: Vec<String> = users.iter().map(|(g, t)| format!("(b == {gw}'d{g} && {})", t.split('|').next().unwrap_or("1'b0"))).collect();
        let _ = writeln!(o, "    wire fan{q} = {};", to.join(" || "));
        can.push(format!("(!fan{q} || ch{q}_or)"));
        let qch = &dpn.channels[*q];
        if qch.kind == ChannelKind::Scratchpad {
            let aw = crate::verilog::index_bits(qch.cells());
            let mut at = format!("{aw}'d0");
            for (g, t) in users.iter().rev() {
                at = format!("(b == {gw}'d{g}) ? {} : {at}", t.split('|').nth(1).unwrap_or(""));
            }
            let _ = writeln!(o, "    wire [{}:0] fat{q} = {at};\n    assign ch{q}_od = {{fat{q}, value}};", aw - 1);
        } else {
            let _ = writeln!(o, "    assign ch{q}_od = value;");
        }
    }
    let _ = writeln!(o, "    wire put = state == FAN && {};", if can.is_empty() { "1'b1".into() } else { can.join(" && ") });
    for (q, _) in &fan {
        let _ = writeln!(o, "    assign ch{q}_ov = put && fan{q};");
    }
    // Stores: pop the channel of generator b.
    for (g, gen) in gens.iter().enumerate().filter(|(_, gen)| !gen.load) {
        let _ = writeln!(o, "    assign ch{}_r = state == POP && b == {gw}'d{g};", gen.c);
    }
    let store_pop: Vec<String> =
        gens.iter().enumerate().filter(|(_, gen)| !gen.load).map(|(g, gen)| format!("(b == {gw}'d{g} && ch{}_v)", gen.c)).collect();
    let store_val: Vec<String> =
        gens.iter().enumerate().filter(|(_, gen)| !gen.load).map(|(g, gen)| format!("(b == {gw}'d{g}) ? ch{}_d :", gen.c)).collect();
    let _ = writeln!(
        o,
        "    wire popped = state == POP && ({});\n    wire [{}:0] pop_value = {} {ew}'d0;",
        if store_pop.is_empty() { "1'b0".into() } else { store_pop.join(" || ") },
        ew - 1,
        store_val.join(" ")
    );
    // What the process holds besides DDR: a temporary's memory, or a shared load's cell table
    // (per cell, the band it was last read in, counted from 1, and its value).
    let len = v.len().max(1);
    let xw = crate::verilog::index_bits(len);
    let shared = !local && gens.iter().any(|g| g.load && dpn.channels[g.c].shared_load);
    let clears = local || shared;
    let cell_of = |x: &str| format!("{x}[{}:0]", xw - 1);
    if clears {
        let _ = writeln!(o, "    reg [63:0] clear;");
    }
    if local {
        let _ = writeln!(
            o,
            "    reg [{}:0] data [0:{}];\n    always @(posedge clk) begin\n        if (state == CLEAR) data[{}] <= {ew}'d0;\n        else if (state == POP && popped) data[{}] <= pop_value;\n    end",
            ew - 1,
            len - 1,
            cell_of("clear"),
            cell_of("addr")
        );
    } else {
        let _ = writeln!(
            o,
            "    wire [5:0] lane = {{addr[2:0], 3'b000}};\n    assign m_arvalid = state == AR;\n    assign m_araddr = addr;\n    assign m_arlen = 8'd0;\n    assign m_arsize = 3'd{size};\n    assign m_arburst = 2'b01;\n    assign m_rready = state == R;\n    assign m_awvalid = state == WR && !aw_done;\n    assign m_awaddr = addr;\n    assign m_awlen = 8'd0;\n    assign m_awsize = 3'd{size};\n    assign m_awburst = 2'b01;\n    assign m_wvalid = state == WR && !w_done;\n    wire [63:0] wide = {{{}value}};\n    assign m_wdata = wide << lane;\n    assign m_wstrb = 8'b{} << addr[2:0];\n    assign m_wlast = 1'b1;\n    assign m_bready = state == WR && aw_done && w_done;\n    wire [63:0] rshift = m_rdata >> lane;\n    wire unused_resp = &{{1'b0, m_bresp, m_rlast, m_rresp, rshift}};  // single beats, no error handling yet",
            if ew < 64 { format!("{}'d0, ", 64 - ew) } else { String::new() },
            format!("{:08b}", (1u32 << eb) - 1)
        );
    }
    let winner: Vec<String> = (0..n).map(|g| format!("win{g} ? {gw}'d{g} :")).collect();
    let addrs: Vec<String> = (0..n).map(|g| format!("win{g} ? g{g}_addr :")).collect();
    let loads: Vec<String> = gens.iter().enumerate().filter(|(_, gen)| gen.load).map(|(g, _)| format!("win{g}")).collect();
    let _ = writeln!(
        o,
        "    wire [{}:0] pick = {} {gw}'d0;\n    wire [63:0] pick_addr = {} 64'd0;\n    wire pick_load = {};",
        gw - 1,
        winner.join(" "),
        addrs.join(" "),
        if loads.is_empty() { "1'b0".into() } else { loads.join(" || ") }
    );
    let mut on_pick = "state <= pick_load ? AR : POP;".to_string();
    if shared {
        let bk = dpnc_dpn::sync::band_key(p, &dpn.nests, &dpn.tile, 0).len();
        let _ = writeln!(
            o,
            "    reg [31:0] band_no;\n    reg [31:0] stamp [0:{}];\n    reg [{}:0] cache [0:{}];\n    reg [{}:0] hit_cell;",
            len - 1,
            ew - 1,
            len - 1,
            xw - 1
        );
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
        let cells: Vec<String> = (0..n).map(|g| format!("win{g} ? g{g}_cell :")).collect();
        let _ = writeln!(
            o,
            "    wire other_band = {};\n    wire [31:0] next_band = other_band ? band_no + 32'd1 : band_no;\n    // verilator lint_off UNUSEDSIGNAL\n    wire signed [63:0] pick_cell_full = {} 64'sd0;\n    // verilator lint_on UNUSEDSIGNAL\n    wire [{}:0] pick_cell = pick_cell_full[{}:0];\n    wire hit = stamp[pick_cell] == next_band;",
            other.join(" || "),
            cells.join(" "),
            xw - 1,
            xw - 1
        );
        let sets: Vec<String> = (0..bk).map(|k| format!("band{k} <= pick_band{k};")).collect();
        on_pick = format!(
            "if (pick_load) begin\n                    band_no <= next_band;\n                    {}\n                    hit_cell <= pick_cell;\n                    if (hit) value <= cache[pick_cell];\n                    state <= hit ? FAN : AR;\n                end else state <= POP;",
            sets.join(" ")
        );
        let _ = writeln!(
            o,
            "    always @(posedge clk) begin\n        if (state == CLEAR) stamp[{}] <= 32'd0;\n        else if (state == R && m_rvalid) begin\n            stamp[hit_cell] <= band_no;\n            cache[hit_cell] <= rshift[{}:0];\n        end\n    end",
            cell_of("clear"),
            ew - 1
        );
    }
    // The sequence: pick the next generator, serve it, advance it.
    let mut arms = vec![format!(
        "            PICK: if (settled && all_done) begin\n                state <= IDLE;\n                done <= 1'b1;\n            end else if (settled) begin\n                b <= pick;\n                addr <= pick_addr;\n                {on_pick}\n            end"
    )];
    if clears {
        arms.push(format!("            CLEAR: if (clear == 64'd{}) state <= PICK;\n            else clear <= clear + 64'd1;", len - 1));
    }
    if local {
        arms.push(format!("            AR: begin\n                value <= data[{}];\n                state <= FAN;\n            end\n            POP: if (popped) state <= ADV;", cell_of("addr")));
    } else {
        arms.push(format!(
            "            AR: if (m_arready) state <= R;\n            R: if (m_rvalid) begin\n                value <= rshift[{}:0];\n                state <= FAN;\n            end\n            POP: if (popped) begin\n                value <= pop_value;\n                aw_done <= 1'b0;\n                w_done <= 1'b0;\n                state <= WR;\n            end\n            WR: begin\n                if (m_awvalid && m_awready) aw_done <= 1'b1;\n                if (m_wvalid && m_wready) w_done <= 1'b1;\n                if (m_bready && m_bvalid) state <= ADV;\n            end",
            ew - 1
        ));
    }
    arms.push("            FAN: if (put) state <= ADV;\n            ADV: state <= PICK;\n            default: ;".into());
    let _ = writeln!(
        o,
        "    always @(posedge clk) begin\n        if (rst) begin\n            state <= IDLE;\n            done <= 1'b0;\n        end else if (start) begin\n            state <= {};\n            done <= 1'b0;{}{}\n        end else begin\n            case (state)\n{}\n            endcase\n        end\n    end\nendmodule\n",
        if clears { "CLEAR" } else { "PICK" },
        if clears { "\n            clear <= 64'd0;" } else { "" },
        if shared { "\n            band_no <= 32'd0;" } else { "" },
        arms.join("\n")
    );
    Ok(o)
}
