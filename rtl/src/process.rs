//! A compute process as a module: its iteration generator ([`crate::walk`]), the mux of every
//! read port, the statement's datapath ([`crate::datapath`]) and the demux of its result.
//!
//! One iteration issues per cycle when the generator has a point and every operand is there
//! (a FIFO's head, a FIFO+register's register, a scratchpad cell): the process takes them all
//! and releases what was read for the last time; the datapath runs without stalling, each
//! iteration's demux beside it; results wait in a skid buffer as deep as the pipeline plus a
//! few places and go, in order, to every channel the demux names once all of them can take
//! them. Issue stalls when the skid buffer could overflow, so a process waiting for its own
//! result lets it drain. Scratchpads belong to their reader: arrivals (cell, value) go in
//! whenever their cell is free ([`crate::arrivals`]), so a value never lands on a live one (the
//! same argument as the Vitis backend's, see ARCHITECTURE.md).

use crate::arrivals::Arrivals;
use crate::simd::Lanes;
use crate::stage::{Event, PointStage, Ready};
use crate::verilog::{aff, all_of, bits, elem_bits, functions, index_bits};
use crate::RtlError;
use dpnc_dpn::ir::{ChannelKind, Dpn, Process};
use dpnc_dpn::loops::LoopNest;
use dpnc_dpn::predicate::Predicate;
use dpnc_frontend::ir::{Access, Program};
use std::fmt::Write;

/// The ports of a process module for channel `c`, seen from process `pi`.
#[derive(Clone)]
pub struct ChannelPort {
    pub c: usize,
    /// `pi` writes it (`_ov`, `_or`, `_od`); otherwise it reads it (`_v`, `_r`, `_d`).
    pub out: bool,
    pub width: u32,
}

/// The width of channel `c`'s stream: its values per entry ([`Lanes::values`]: one per
/// lane of a vector, or one for all), with their word's index for a scratchpad.
pub fn stream_bits(dpn: &Dpn, c: usize, lanes: &Lanes) -> u32 {
    let ch = &dpn.channels[c];
    let n = lanes.values[c];
    match ch.kind {
        ChannelKind::Scratchpad => elem_bits(ch) * n + index_bits(ch.cells() / n as usize),
        _ => elem_bits(ch) * n,
    }
}

/// Whether channel `c` is a stream between two ports: a scratchpad from a process to itself
/// is a memory inside it, and so is a FIFO to itself without lanes ([`is_ring`]).
pub fn is_stream(dpn: &Dpn, c: usize, lanes: &Lanes) -> bool {
    let ch = &dpn.channels[c];
    !(ch.producer == ch.consumer && (ch.kind == ChannelKind::Scratchpad || is_ring(dpn, c, lanes)))
}

/// Whether channel `c` is a FIFO from a process to itself that the process holds as a *ring*
/// (designs without lanes): a result enters it as it leaves the datapath rather than through
/// the skid buffer and a stream, and the iteration that reads it takes it only when the
/// datapath first uses it ([`crate::datapath::Datapath::arrival`]), so a chain of partial
/// sums (`q[i] = q[i] + A[i][j] * p[j]`) waits for the adder alone rather than for the whole
/// datapath and the trip around it.
pub fn is_ring(dpn: &Dpn, c: usize, lanes: &Lanes) -> bool {
    let ch = &dpn.channels[c];
    lanes.width == 1 && ch.kind == ChannelKind::Fifo && ch.producer == ch.consumer
}

/// Per read of statement `stmt`: whether a process of it takes that read from a ring, so its
/// datapath lets the read enter late.
pub fn late_reads(p: &Program, dpn: &Dpn, stmt: usize, lanes: &Lanes) -> Vec<bool> {
    let mut late = vec![false; p.stmts[stmt].reads.len()];
    for pr in dpn.processes.iter().filter(|pr| pr.stmt() == Some(stmt)) {
        for (r, clauses) in pr.mux.iter().enumerate().take(late.len()) {
            late[r] |= clauses.iter().any(|cl| is_ring(dpn, cl.channel, lanes));
        }
    }
    late
}

/// The timing of a statement's datapath as its processes feed it.
#[derive(Clone, Copy)]
pub struct Timing<'a> {
    /// Cycles from its inputs to its result.
    pub latency: u32,
    /// Per read, the cycles after the others at which it enters ([`crate::datapath::Datapath::arrival`]).
    pub arrival: &'a [u32],
}

/// The stream ports of the processes `pis` (a compute process, or a memory process's Load and
/// Store), in channel order, as `lanes` carry them; a channel between two of them appears twice.
pub fn ports(dpn: &Dpn, pis: &[usize], lanes: &Lanes) -> Vec<ChannelPort> {
    let mut v = Vec::new();
    for (c, ch) in dpn.channels.iter().enumerate().filter(|(c, _)| is_stream(dpn, *c, lanes)) {
        if pis.contains(&ch.consumer) {
            v.push(ChannelPort { c, out: false, width: stream_bits(dpn, c, lanes) });
        }
        if pis.contains(&ch.producer) {
            v.push(ChannelPort { c, out: true, width: stream_bits(dpn, c, lanes) });
        }
    }
    v
}

/// Port declarations of `ports`.
pub fn port_decls(ports: &[ChannelPort]) -> Vec<String> {
    let mut v = Vec::new();
    for p in ports {
        let (c, w) = (p.c, p.width - 1);
        if p.out {
            v.push(format!("output wire ch{c}_ov"));
            v.push(format!("input  wire ch{c}_or"));
            v.push(format!("output wire [{w}:0] ch{c}_od"));
        } else {
            v.push(format!("input  wire ch{c}_v"));
            v.push(format!("output wire ch{c}_r"));
            v.push(format!("input  wire [{w}:0] ch{c}_d"));
        }
    }
    v
}

/// `.chN_…(chN_…)`: each of `ports` connected to the wire of its name.
pub fn port_conns(ports: &[ChannelPort]) -> Vec<String> {
    let mut v = Vec::new();
    for p in ports {
        let names: [&str; 3] = if p.out { ["ov", "or", "od"] } else { ["v", "r", "d"] };
        v.extend(names.iter().map(|n| format!(".ch{c}_{n}(ch{c}_{n})", c = p.c)));
    }
    v
}

pub(crate) fn pred_v(p: &Predicate, names: &[String]) -> String {
    let n: Vec<&str> = names.iter().map(String::as_str).collect();
    crate::predicate::verilog_expr(p, &n, 64)
}

/// A scratchpad's words: channel `channel`, `cells` cells a word (a vector's, with lanes).
pub(crate) struct Words {
    pub channel: usize,
    pub cells: u32,
}

/// `name`: the word of access `a` in the scratchpad of `words`: per array dimension, the
/// subscript modulo the window, row-major, over the cells a word holds. A modulo by a
/// constant that is not a power of two is a combinational divider; on the subscript's full 64
/// bits Yosys made each one some 15,000 LUTs (Jacobi-1D at tile 64: a dozen of them, 244,547 LUTs in all), so each
/// is taken on the bits the array's extent needs (a subscript of an access that runs is in
/// bounds; one that does not run may give any cell).
pub(crate) fn cell_wire(o: &mut String, name: &str, p: &Program, dpn: &Dpn, words: Words, a: &Access, names: &[String]) {
    let ch = &dpn.channels[words.channel];
    let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
    let extents = &p.vars[a.var].dims;
    let mut s = "64'd0".to_string();
    for (d, ((x, m), e)) in a.index.iter().zip(&ch.window).zip(extents).enumerate() {
        let (m, b) = ((*m).max(1), index_bits((*e).max(1) as usize));
        let _ = writeln!(
            o,
            "    // verilator lint_off UNUSEDSIGNAL\n    wire signed [63:0] {name}_x{d} = {};\n    // verilator lint_on UNUSEDSIGNAL",
            aff(x, names, &params)
        );
        let term = if m == 1 {
            "64'd0".to_string()
        } else if m & (m - 1) == 0 || m >= 1 << b {
            // The low bits: no arithmetic (or none needed: every subscript is below m).
            let mb = if m >= 1 << b { b } else { m.trailing_zeros() };
            let _ = writeln!(o, "    wire [{}:0] {name}_m{d} = {name}_x{d}[{}:0];", mb - 1, mb - 1);
            format!("{{{}'d0, {name}_m{d}}}", 64 - mb)
        } else {
            let _ = writeln!(o, "    wire [{}:0] {name}_n{d} = {name}_x{d}[{}:0];", b - 1, b - 1);
            let _ = writeln!(o, "    wire [{}:0] {name}_m{d} = {name}_n{d} % {b}'d{m};", b - 1);
            format!("{{{}'d0, {name}_m{d}}}", 64 - b)
        };
        s = format!("({s} * 64'd{m} + {term})");
    }
    let (s, n) = match words.cells {
        1 => (s, ch.cells()),
        per => (format!("({s} >>> {})", per.trailing_zeros()), ch.cells() / per as usize),
    };
    index_wire(o, name, &s, index_bits(n));
}

/// The loop nest a process's walker and its memory processes' generators walk.
pub(crate) fn nest(pr: &Process) -> Result<&LoopNest, RtlError> {
    pr.loops.as_ref().ok_or_else(|| RtlError::Process {
        process: pr.name.clone(),
        why: "its hyperplanes are not a unimodular change of its iterators, so it has no loop nest".into(),
    })
}

/// `name`: the low `bits` bits of the 64-bit `expr` (a cell index).
pub(crate) fn index_wire(o: &mut String, name: &str, expr: &str, bits: u32) {
    let _ = writeln!(
        o,
        "    // verilator lint_off UNUSEDSIGNAL\n    wire signed [63:0] {name}_full = {expr};\n    // verilator lint_on UNUSEDSIGNAL\n    wire [{}:0] {name} = {name}_full[{}:0];",
        bits - 1,
        bits - 1
    );
}

pub(crate) fn need<'a>(dpn: &Dpn, c: usize, p: &'a Option<Predicate>, what: &str) -> Result<&'a Predicate, RtlError> {
    p.as_ref().ok_or_else(|| RtlError::Channel {
        channel: dpn.channels[c].name.clone(),
        why: format!("isl could not derive its {what} predicate within its budget"),
    })
}

/// The module of compute process `pi` (statement `stmt`), named `p_<process>`; its walker
/// is `w_<process>` and its datapath `dp_<statement>` (`timing`). With vector lanes
/// ([`crate::simd`]) each iteration is a vector of `lanes.width` points, lane k's values at
/// bits `k·w +: w` of every channel's that carries one per lane, and the datapath computes the
/// vector ([`crate::datapath::vector`]).
pub fn module(p: &Program, dpn: &Dpn, pi: usize, stmt: usize, timing: Timing, lanes: &Lanes) -> Result<String, RtlError> {
    let (simd, lat) = (lanes.width, timing.latency);
    let pr: &Process = &dpn.processes[pi];
    let s = &p.stmts[stmt];
    let l = nest(pr)?;
    let names: Vec<String> = s.iters.iter().map(|i| format!("it_{i}")).collect();
    let ports = ports(dpn, &[pi], lanes);
    let mut decl = vec!["input  wire clk".to_string(), "input  wire rst".into(), "input  wire start".into(), "output reg  done".into()];
    let mut scalars = Vec::new();
    for a in &s.reads {
        let v = &p.vars[a.var];
        if v.is_scalar_argument() && !scalars.contains(&a.var) {
            scalars.push(a.var);
            decl.push(format!("input  wire [{}:0] s_{}", bits(v.ty) - 1, v.name));
        }
    }
    decl.extend(port_decls(&ports));
    let mut o = String::new();
    let _ = writeln!(o, "// {}: statement {} ({} iterations).", pr.name, s.name, pr.iterations);
    let _ = writeln!(o, "module p_{} (\n    {}\n);", pr.name, decl.join(",\n    "));
    o.push_str(&functions());
    let _ = writeln!(
        o,
        "    reg running;\n    wire fire;  // this cycle's iteration issues: every operand is there and the skid buffer has room\n    wire w_valid, w_done;  // the point stage's head (below), and the walk is over\n    // verilator lint_off UNUSEDSIGNAL\n    wire [{b}:0] w_cs;  // the walker's counters: its iterators are what the process needs\n    wire [{i}:0] its, w_its;\n    // verilator lint_on UNUSEDSIGNAL\n    wire wk_valid, wk_done, wk_next;\n    w_{} walk (.clk(clk), .rst(rst), .start(start), .next(wk_next), .valid(wk_valid), .done(wk_done), .cs(w_cs), .its(w_its));",
        pr.name,
        b = crate::walk::cs_bits(l) - 1,
        i = crate::walk::its_bits(l) - 1,
    );
    // What the issue decides on enters the point stage worked out over the walker's point
    // (`wit_*`); the rest is worked out over the stage's head point (`it_*`).
    let raw: Vec<String> = s.iters.iter().map(|i| format!("wit_{i}")).collect();
    let (its, raw_its) = (crate::walk::iterators("its", l), crate::walk::iterators("w_its", l));
    let mut stage = PointStage::new(&raw.iter().cloned().zip(raw_its).collect::<Vec<_>>());
    stage.wire("guard", 1, &pred_v(&l.guard, &raw));
    let splice = o.len();
    for (n, it) in names.iter().zip(&its) {
        let _ = writeln!(o, "    wire signed [63:0] {n} = {it};");
    }

    // Scratchpads this process reads: a memory and a valid bit per word (of a cell per lane).
    let mut arrivals = Vec::new();
    for (c, ch) in dpn.channels.iter().enumerate().filter(|(_, ch)| ch.consumer == pi && ch.kind == ChannelKind::Scratchpad) {
        let per = lanes.values[c];
        let (w, n) = (elem_bits(ch) * per, ch.cells() / per as usize);
        let aw = index_bits(n);
        let _ = writeln!(
            o,
            "    // Scratchpad {}: {n} words of {per} cells.\n    reg [{}:0] sp{c} [0:{}];\n    reg [{}:0] sv{c};",
            ch.name,
            w - 1,
            n - 1,
            n - 1
        );
        if ch.producer != pi {
            arrivals.push(Arrivals::declare(&mut o, c, w, aw));
        }
    }

    // Read ports: the mux picks a channel; `rdy_r` says the operand is there, `val_r` is it.
    let mut fire_terms = Vec::new();
    let mut pops: Vec<(usize, String)> = Vec::new(); // (channel, condition to pop at fire)
    let mut releases: Vec<(usize, String, String)> = Vec::new(); // (channel, condition, cell)
    let mut ready: Vec<(usize, Ready)> = Vec::new(); // per scratchpad read: (channel, its ready bit)
    let mut regs: Vec<(usize, String)> = Vec::new(); // FIFO+register: (channel, take condition)
    let mut operands: Vec<(String, bool)> = Vec::new(); // (its name, a register loaded at issue rather than a scalar argument)
    let mut rings: Vec<Ring> = Vec::new();
    for (r, a) in s.reads.iter().enumerate() {
        let v = &p.vars[a.var];
        let w = bits(v.ty);
        if v.is_scalar_argument() {
            operands.push((format!("s_{}", v.name), false));
            continue;
        }
        // One value per lane, or one for all where every lane reads the same.
        let vw = if lanes.shared[stmt][r] { w } else { w * simd };
        let _ = writeln!(o, "    reg rdy_r{r};\n    reg [{}:0] val_r{r};", vw - 1);
        let clauses = pr.mux.get(r).map(Vec::as_slice).unwrap_or(&[]);
        let late = timing.arrival.get(r).copied().unwrap_or(0);
        let mut sel = Vec::new();
        for (k, cl) in clauses.iter().enumerate() {
            let pred = cl.pred.as_ref().ok_or_else(|| RtlError::Channel {
                channel: dpn.channels[cl.channel].name.clone(),
                why: "its mux condition has no predicate".into(),
            })?;
            stage.wire(&format!("sel_r{r}_{k}"), 1, &pred_v(pred, &raw));
            sel.push(format!("sel_r{r}_{k}"));
            let c = cl.channel;
            let ch = &dpn.channels[c];
            let taken = format!("sel_r{r}_{k}");
            if is_ring(dpn, c, lanes) {
                rings.push(Ring {
                    c,
                    port: r,
                    read: taken,
                    late,
                    depth: (ch.size + late as usize + 2).next_power_of_two(),
                    to: String::new(),
                });
                continue;
            }
            match ch.kind {
                ChannelKind::Fifo => pops.push((c, taken.clone())),
                ChannelKind::FifoReg => {
                    let first = need(dpn, c, &ch.first_read, "first-read")?;
                    stage.wire(&format!("first_r{r}_{k}"), 1, &pred_v(first, &raw));
                    pops.push((c, format!("{taken} && first_r{r}_{k}")));
                    regs.push((c, format!("{taken} && first_r{r}_{k}")));
                }
                ChannelKind::Scratchpad => {
                    let last = need(dpn, c, &ch.last_read, "last-read")?;
                    let words = Words { channel: c, cells: lanes.values[c] };
                    let cells = ch.cells() / lanes.values[c] as usize;
                    cell_wire(stage.text(), &format!("at_r{r}_{k}_w"), p, dpn, words, a, &raw);
                    stage.declared(&format!("at_r{r}_{k}"), index_bits(cells));
                    stage.wire(&format!("last_r{r}_{k}"), 1, &pred_v(last, &raw));
                    releases.push((c, format!("{taken} && last_r{r}_{k}"), format!("at_r{r}_{k}")));
                    let (name, at, valid) = (format!("srdy_r{r}_{k}"), format!("at_r{r}_{k}"), format!("sv{c}"));
                    ready.push((c, Ready { name, at, valid, cells, clears: Vec::new(), sets: Vec::new() }));
                }
            }
        }
        // The operand: the first clause that holds (loads first, as the IR orders them).
        o.push_str("    always @* begin\n");
        let _ = writeln!(o, "        rdy_r{r} = 1'b0;\n        val_r{r} = {vw}'d0;");
        for (k, cl) in clauses.iter().enumerate() {
            let c = cl.channel;
            let ch = &dpn.channels[c];
            let head = if k == 0 { "if" } else { "else if" };
            let (rdy, val) = match ch.kind {
                // A ring's value is taken at issue only if the datapath wants it at once.
                ChannelKind::Fifo if is_ring(dpn, c, lanes) => {
                    (format!("rg{c}_ok"), if late == 0 { format!("rg{c}_head") } else { format!("{vw}'d0") })
                }
                ChannelKind::Fifo => (format!("ch{c}_v"), format!("ch{c}_d")),
                ChannelKind::FifoReg => (format!("(!first_r{r}_{k} || ch{c}_v)"), format!("(first_r{r}_{k} ? ch{c}_d : reg{c})")),
                ChannelKind::Scratchpad => (format!("srdy_r{r}_{k}"), format!("sp{c}[at_r{r}_{k}]")),
            };
            let _ = writeln!(
                o,
                "        {head} (sel_r{r}_{k}) begin\n            rdy_r{r} = {rdy};\n            val_r{r} = {val};\n        end"
            );
        }
        o.push_str("    end\n");
        fire_terms.push(format!("rdy_r{r}"));
        operands.push((format!("op_r{r}"), true));
        let _ = writeln!(o, "    reg [{}:0] op_r{r};", vw - 1);
        if late > 0 {
            late_operand(&mut o, r, vw, late, rings.iter().filter(|g| g.port == r));
        }
    }
    for (c, _) in &regs {
        let _ = writeln!(o, "    reg [{}:0] reg{c};", elem_bits(&dpn.channels[*c]) - 1);
    }
    for g in &rings {
        let ch = &dpn.channels[g.c];
        g.declare(&mut o, &ch.name, elem_bits(ch), lat);
    }
    let all = all_of(fire_terms);
    // Iterations issued and not yet written out; the skid buffer holds them all, so issue
    // stalls on it and the pipeline itself never does.
    let depth = lat + 4;
    let pw = index_bits(depth as usize + 1);
    let _ = writeln!(
        o,
        "    reg [{}:0] pending;\n    wire have_operands = {all};\n    assign fire = running && w_valid && guard && have_operands && pending < {pw}'d{depth};\n{}",
        pw - 1,
        stat_wires(&["fire", "running && w_valid && guard && !have_operands", "running && w_valid && guard && have_operands && !fire"])
    );
    // Pops (FIFO and FIFO+register channels this process reads).
    let mut popped: Vec<usize> = pops.iter().map(|x| x.0).collect();
    popped.sort_unstable();
    popped.dedup();
    for c in popped {
        let conds: Vec<String> = pops.iter().filter(|x| x.0 == c).map(|x| format!("({})", x.1)).collect();
        let _ = writeln!(o, "    assign ch{c}_r = fire && ({});", conds.join(" || "));
    }

    // Demux, decided at issue: per clause, whether its channel gets the result and, for a
    // scratchpad, the cell. These travel down the pipeline beside the datapath.
    let wy = bits(p.vars[s.write.var].ty);
    let wr = wy * simd;
    let mut meta = Vec::new(); // (issue-side expression, width, output-side name), low bits first
    let mut targets = Vec::new();
    let mut self_writes = Vec::new();
    for (k, cl) in pr.demux.iter().enumerate() {
        let c = cl.channel;
        let ch = &dpn.channels[c];
        let pred = cl
            .pred
            .as_ref()
            .ok_or_else(|| RtlError::Channel { channel: ch.name.clone(), why: "its demux condition has no predicate".into() })?;
        let _ = writeln!(o, "    wire to_{k}_i = {};", pred_v(pred, &names));
        if let Some(g) = rings.iter_mut().find(|g| g.c == c) {
            g.to = format!("to_{k}_i");
            continue;
        }
        meta.push((format!("to_{k}_i"), 1, format!("to_{k}")));
        if ch.kind == ChannelKind::Scratchpad {
            let aw = index_bits(ch.cells() / lanes.values[c] as usize);
            cell_wire(&mut o, &format!("wat_{k}_i"), p, dpn, Words { channel: c, cells: lanes.values[c] }, &s.write, &names);
            meta.push((format!("wat_{k}_i"), aw, format!("wat_{k}")));
            if ch.producer == ch.consumer {
                self_writes.push((c, format!("to_{k}"), format!("wat_{k}")));
                continue;
            }
            let _ = writeln!(o, "    assign ch{c}_od = {{wat_{k}, result}};");
        } else {
            let _ = writeln!(o, "    assign ch{c}_od = result;");
        }
        targets.push((c, format!("to_{k}")));
    }
    let mw: u32 = meta.iter().map(|m| m.1).sum::<u32>().max(1);
    let issue_meta: Vec<&str> = meta.iter().rev().map(|m| m.0.as_str()).collect();
    let _ = writeln!(
        o,
        "    wire [{}:0] meta_i = {};",
        mw - 1,
        if meta.is_empty() { "1'b0".to_string() } else { format!("{{{}}}", issue_meta.join(", ")) }
    );

    // The datapath, fed from registers loaded at issue; `pv`/`pm` follow each iteration's
    // valid bit and demux down its stages, so `y` pairs with `pv[lat]`/`pm[lat]`.
    for i in &s.iters {
        let _ = writeln!(o, "    reg signed [63:0] iq_{i};");
    }
    let _ = writeln!(o, "    wire [{}:0] y;", wr - 1);
    // One datapath for the vector's lanes (`datapath::vector`).
    let mut dp_ports = vec![".clk(clk)".to_string(), ".ce(1'b1)".into()];
    dp_ports.extend(s.iters.iter().map(|i| format!(".it_{i}(iq_{i})")));
    dp_ports.extend(operands.iter().enumerate().map(|(r, (op, registered))| match timing.arrival.get(r) {
        Some(&late) if late > 0 && *registered => format!(".r{r}(lop_r{r})"),
        _ => format!(".r{r}({op})"),
    }));
    let _ = writeln!(o, "    dp_{} dp ({}, .y(y));", s.name, dp_ports.join(", "));
    let _ = writeln!(o, "    reg [{lat}:0] pv;  // stage k: an iteration issued k + 1 cycles ago\n    reg [{}:0] pm;", mw * (lat + 1) - 1);
    o.push_str("    always @(posedge clk) begin\n        if (fire) begin\n");
    for (r, (op, registered)) in operands.iter().enumerate() {
        if *registered {
            let _ = writeln!(o, "            {op} <= val_r{r};");
        }
    }
    for (i, n) in s.iters.iter().zip(&names) {
        let _ = writeln!(o, "            iq_{i} <= {n};");
    }
    for (c, cond) in &regs {
        let _ = writeln!(o, "            if ({cond}) reg{c} <= ch{c}_d;");
    }
    let (pv_in, pm_in) = match lat {
        0 => ("fire".to_string(), "meta_i".to_string()),
        _ => (format!("{{pv[{}:0], fire}}", lat - 1), format!("{{pm[{}:0], meta_i}}", mw * lat - 1)),
    };
    let _ = writeln!(o, "        end\n        pv <= (rst || start) ? {}'d0 : {pv_in};\n        pm <= {pm_in};\n    end", lat + 1);
    let (pv_out, pm_out) = (format!("pv[{lat}]"), format!("pm[{}:{}]", mw * (lat + 1) - 1, mw * lat));

    // The skid buffer: results with their demux, written out in order once every named
    // channel can take the result.
    let _ = writeln!(
        o,
        "    wire out_v;\n    wire [{}:0] out_d;\n    // verilator lint_off UNUSEDSIGNAL\n    wire skid_in_ready;\n    wire [{}:0] skid_count, skid_peak;\n    // verilator lint_on UNUSEDSIGNAL\n    wire put;\n    dpn_fifo_reg #(.W({}), .DEPTH({depth}), .FULL_PASS(0), .OUT_REG(1)) skid (.clk(clk), .rst(rst || start), .in_valid({pv_out}), .in_ready(skid_in_ready), .in_data({{{pm_out}, y}}), .out_valid(out_v), .out_ready(put), .out_data(out_d), .count(skid_count), .peak(skid_peak));\n    wire [{}:0] result = out_d[{}:0];",
        wr + mw - 1,
        pw - 1,
        wr + mw,
        wr - 1,
        wr - 1
    );
    let mut at = wr;
    for (_, w, name) in &meta {
        if *w == 1 {
            let _ = writeln!(o, "    wire {name} = out_d[{at}];");
        } else {
            let _ = writeln!(o, "    wire [{}:0] {name} = out_d[{}:{at}];", w - 1, at + w - 1);
        }
        at += w;
    }
    if meta.is_empty() {
        let _ = writeln!(
            o,
            "    // verilator lint_off UNUSEDSIGNAL\n    wire unused_meta = out_d[{wr}];\n    // verilator lint_on UNUSEDSIGNAL"
        );
    }
    let can: Vec<String> = targets.iter().map(|(c, t)| format!("(!{t} || ch{c}_or)")).collect();
    let can = all_of(can);
    let _ = writeln!(o, "    assign put = out_v && {can};");
    for (c, t) in &targets {
        let _ = writeln!(o, "    assign ch{c}_ov = put && {t};");
    }

    // Run control: done once the walker is done and every issued iteration is written out.
    let _ = writeln!(
        o,
        "    // Both sums from the register, the issue and the put only selecting (as gates: a\n    // multiplexer would become one adder after them).\n    wire [{m}:0] pending_up = pending + {pw}'d1, pending_down = pending - {pw}'d1;\n    always @(posedge clk) begin\n        if (rst) begin\n            running <= 1'b0;\n            done <= 1'b0;\n            pending <= {pw}'d0;\n        end else if (start) begin\n            running <= 1'b1;\n            done <= 1'b0;\n            pending <= {pw}'d0;\n        end else begin\n            if (fire != put) pending <= (pending_up & {{{pw}{{fire}}}}) | (pending_down & {{{pw}{{put}}}});\n            if (running && w_done && pending == {pw}'d0) begin\n                running <= 1'b0;\n                done <= 1'b1;\n            end\n        end\n    end",
        m = pw - 1
    );
    // What changes a scratchpad's valid bits: the releases at an edge, and what set a cell at
    // the last one (registers: an arrival, the process's own writes).
    let releases_of = |c: usize| -> Vec<Event> {
        releases.iter().filter(|x| x.0 == c).map(|(_, cond, at)| Event { when: format!("fire && {cond}"), cell: at.clone() }).collect()
    };
    let sets_of = |c: usize| -> Vec<Event> {
        let arrival = (dpn.channels[c].producer != pi).then(|| format!("arr{c}"));
        arrival
            .into_iter()
            .chain(self_writes.iter().filter(|x| x.0 == c).map(|(_, t, _)| t.clone()))
            .map(|n| Event { when: format!("{n}_set"), cell: format!("{n}_set_at") })
            .collect()
    };
    for (c, ch) in dpn.channels.iter().enumerate().filter(|(_, ch)| ch.consumer == pi && ch.kind == ChannelKind::Scratchpad) {
        let (w, words) = (elem_bits(ch) * lanes.values[c], ch.cells() / lanes.values[c] as usize);
        // The valid bits are written through decoders: Yosys leaves a write at a variable index
        // as a shift with a carry chain.
        let aw = index_bits(words);
        let k = format!("sk{c}[{}:0]", aw - 1);
        let _ = writeln!(
            o,
            "    integer sk{c};\n    always @(posedge clk) begin\n        if (rst || start) sv{c} <= {words}'d0;\n        else begin\n            for (sk{c} = 0; sk{c} < {words}; sk{c} = sk{c} + 1) begin"
        );
        for (_, cond, at) in releases.iter().filter(|x| x.0 == c) {
            let _ = writeln!(o, "                if (fire && {cond} && {at} == {k}) sv{c}[sk{c}] <= 1'b0;");
        }
        if ch.producer != pi {
            let _ = writeln!(o, "                if (arr{c}_in && arr{c}_at == {k}) sv{c}[sk{c}] <= 1'b1;");
        }
        for (_, t, at) in self_writes.iter().filter(|x| x.0 == c) {
            let _ = writeln!(o, "                if (put && {t} && {at} == {k}) sv{c}[sk{c}] <= 1'b1;");
        }
        o.push_str("            end\n");
        if ch.producer != pi {
            let _ = writeln!(o, "            if (arr{c}_in) sp{c}[arr{c}_at] <= arr{c}_d0[{}:0];", w - 1);
        }
        for (_, t, at) in self_writes.iter().filter(|x| x.0 == c) {
            let _ = writeln!(o, "            if (put && {t}) sp{c}[{at}] <= result;");
        }
        o.push_str("        end\n    end\n");
        for (_, t, at) in self_writes.iter().filter(|x| x.0 == c) {
            last_set(&mut o, t, &format!("put && {t}"), at, aw);
        }
        if let Some(a) = arrivals.iter().find(|a| a.c == c) {
            a.lookup(&mut o, words, &releases_of(c), &sets_of(c));
        }
    }
    for g in &rings {
        g.logic(&mut o, lat);
    }
    // Each scratchpad read's ready bit: cleared by the releases of its cell, set by what
    // writes one.
    let ready: Vec<Ready> = ready
        .into_iter()
        .map(|(c, mut rd)| {
            rd.clears = releases_of(c);
            rd.sets = sets_of(c);
            rd
        })
        .collect();
    let (declared, logic) = stage.finish(crate::walk::its_bits(l), "!guard || fire", &ready);
    o.push_str(&logic);
    o.push_str("endmodule\n\n");
    o.insert_str(splice, &declared);
    Ok(o)
}

/// `<name>_set` and `<name>_set_at`: whether `cond` set a scratchpad cell at the last edge,
/// and which (`at`, of `aw` bits), for the ready bits ([`Ready`]).
pub(crate) fn last_set(o: &mut String, name: &str, cond: &str, at: &str, aw: u32) {
    let _ = writeln!(
        o,
        "    reg {name}_set;\n    reg [{}:0] {name}_set_at;\n    always @(posedge clk) begin\n        {name}_set <= !(rst || start) && {cond};\n        {name}_set_at <= {at};\n    end",
        aw - 1
    );
}

/// A FIFO from a process to itself, held in the process ([`is_ring`]).
struct Ring {
    c: usize,
    /// The read port that takes from it.
    port: usize,
    /// The mux clause that reads it (`sel_r<r>_<k>`).
    read: String,
    /// Cycles after issue at which an iteration takes its value (the read's arrival).
    late: u32,
    /// Places: the channel's size (what σ holds between an iteration's issue and the next),
    /// plus one per iteration in flight that has not taken its value yet (`late`), plus two
    /// of margin.
    depth: usize,
    /// The demux clause that writes it (`to_<k>_i`), set once the demux is built.
    to: String,
}

impl Ring {
    /// Its memory, pointers and the flags an issuing iteration needs: `rg<c>_ok` (its value
    /// will be at the head when it takes it) and `rg<c>_head` (the head, or the result
    /// entering now when the ring is empty).
    fn declare(&self, o: &mut String, name: &str, w: u32, lat: u32) {
        let (c, late) = (self.c, self.late);
        let aw = index_bits(self.depth);
        let _ = writeln!(
            o,
            "    // Ring {name}: this process's FIFO to itself, {} places; a result enters as it leaves the\n    // datapath, an iteration takes its value {late} cycles after it issues.\n    reg [{}:0] rg{c} [0:{}];\n    reg [{}:0] rg{c}_wp, rg{c}_rp;\n    reg [{aw}:0] rg{c}_n;\n    reg [{lat}:0] rg{c}_in;  // stage k: an iteration issued k + 1 cycles ago writes the ring",
            self.depth,
            w - 1,
            self.depth - 1,
            aw - 1
        );
        let take = match late {
            0 => format!("fire && {}", self.read),
            _ => {
                let _ = writeln!(o, "    reg [{}:0] rg{c}_out;  // stage k: an iteration issued k + 1 cycles ago takes from it", late - 1);
                format!("rg{c}_out[{}]", late - 1)
            }
        };
        let _ = writeln!(
            o,
            "    // The values in the ring and those entering it within {late} cycles, less the takes of the\n    // iterations in flight: an iteration may issue while one is left for it.\n    reg [{aw}:0] rg{c}_credit;\n    wire rg{c}_put = rg{c}_in[{lat}];\n    wire rg{c}_take = {take};\n    wire [{}:0] rg{c}_head = rg{c}_n == {}'d0 ? y : rg{c}[rg{c}_rp];\n    reg rg{c}_ok;  // rg{c}_credit != 0, a register: the issue waits on it",
            w - 1,
            aw + 1
        );
    }

    fn logic(&self, o: &mut String, lat: u32) {
        let (c, late, aw) = (self.c, self.late, index_bits(self.depth));
        let shift = |reg: &str, bits: u32, bit: &str| match bits {
            1 => format!("{reg} <= {bit};"),
            _ => format!("{reg} <= {{{reg}[{}:0], {bit}}};", bits - 2),
        };
        let out = match late {
            0 => String::new(),
            _ => format!("\n            {}", shift(&format!("rg{c}_out"), late, &format!("fire && {}", self.read))),
        };
        // A result enters the credit's window `late` cycles before it enters the ring.
        let (written, read) = (format!("fire && {}", self.to), format!("fire && {}", self.read));
        let entering = if lat == late { written.clone() } else { format!("rg{c}_in[{}]", lat - late - 1) };
        let _ = writeln!(
            o,
            "    wire [{aw}:0] rg{c}_credit_up = rg{c}_credit + {w}'d1, rg{c}_credit_down = rg{c}_credit - {w}'d1;\n    always @(posedge clk) if (rg{c}_put) rg{c}[rg{c}_wp] <= y;\n    always @(posedge clk) begin\n        if (rst || start) begin\n            rg{c}_wp <= {aw}'d0;\n            rg{c}_rp <= {aw}'d0;\n            rg{c}_n <= {w}'d0;\n            rg{c}_credit <= {w}'d0;\n            rg{c}_ok <= 1'b0;\n            rg{c}_in <= {}'d0;{}\n        end else begin\n            {}{out}\n            if (rg{c}_put) rg{c}_wp <= rg{c}_wp + {aw}'d1;\n            if (rg{c}_take) rg{c}_rp <= rg{c}_rp + {aw}'d1;\n            rg{c}_n <= rg{c}_n + {{{aw}'d0, rg{c}_put}} - {{{aw}'d0, rg{c}_take}};\n            if ({entering} != ({read})) begin\n                rg{c}_credit <= (rg{c}_credit_up & {{{w}{{{entering}}}}}) | (rg{c}_credit_down & {{{w}{{{read}}}}});\n                rg{c}_ok <= {entering} || rg{c}_credit != {w}'d1;  // up, or down from above 1\n            end\n        end\n    end",
            lat + 1,
            if late == 0 { String::new() } else { format!("\n            rg{c}_out <= {late}'d0;") },
            shift(&format!("rg{c}_in"), lat + 1, &written),
            w = aw + 1,
        );
    }
}

/// `lop_r<r>`: operand r as the datapath takes it, `late` cycles after the others: the
/// issue-time operand `op_r<r>` delayed, or the head of the ring (`rings`) the iteration reads.
fn late_operand<'a>(o: &mut String, r: usize, w: u32, late: u32, rings: impl Iterator<Item = &'a Ring>) {
    let pick: String = rings.map(|g| format!("rg{c}_take ? rg{c}_head : ", c = g.c)).collect();
    let _ = writeln!(
        o,
        "    wire [{m}:0] op_r{r}_late;\n    dpn_delay #(.W({w}), .LATENCY({})) u_op_r{r}_late (.clk(clk), .ce(1'b1), .d(op_r{r}), .q(op_r{r}_late));\n    reg [{m}:0] lop_r{r};\n    always @(posedge clk) lop_r{r} <= {pick}op_r{r}_late;",
        late - 1,
        m = w - 1
    );
}

/// The simulator's per-process counts (`stat_work`, `stat_wait_in`, `stat_wait_out`: the
/// cycles a process did its work, waited for its inputs, waited for room), read by the
/// simulation wrapper only; synthesis drops them.
pub(crate) fn stat_wires(conds: &[&str; 3]) -> String {
    let wires: Vec<String> = STAT_WIRES.iter().zip(conds).map(|(name, cond)| format!("    wire {name} = {cond};")).collect();
    format!("    // verilator lint_off UNUSEDSIGNAL\n{}\n    // verilator lint_on UNUSEDSIGNAL", wires.join("\n"))
}

/// The names of [`stat_wires`], in their order.
pub const STAT_WIRES: [&str; 3] = ["stat_work", "stat_wait_in", "stat_wait_out"];
