//! The text of one memory module, written in stages: the [`Plan`] decides what the module
//! is made of (a temporary or a DDR port, cached loads, DDR order between loads and stores,
//! waits for single stores), then each stage writes its part in order: the ports, the
//! generators, the choice of the σ-next access, the fan-out of loads, the issue, the load
//! cache, the issue queue, the AXI read and write sides, and the control.

use super::deferred;
use super::fan::{Fan, Target};
use super::filled;
use super::pick;
use super::sources::{self, LANDED};
use super::stage;
use super::text::{Fresh, Landed, Order, OrderUpdate, ReadSide, Slots, Sources, SourcesUpdate, Widths, WriteSide};
use super::*;
use crate::verilog::{all_of, any_of, sext, times_const};
use askama::Template;
use dpnc_frontend::ir::Variable;

/// What a memory module is made of, decided before any text is written.
struct Plan<'a> {
    p: &'a Program,
    dpn: &'a Dpn,
    gens: &'a [Gen<'a>],
    shape: &'a Shape<'a>,
    v: &'a Variable,
    /// A temporary of the kernel: a memory of this process (cleared at start), not DDR.
    local: bool,
    /// Loads and stores of DDR: their order matters (`winner`, `war`).
    ordered: bool,
    /// The σ-next store goes through the store stage ([`stage`]) before it issues: where the
    /// order matters, and where the pick chooses among several generators (its multiplexer of
    /// their addresses would otherwise come before the write side's line comparisons).
    staged: bool,
    /// DDR loads go through a line cache (`hit`).
    cached: bool,
    /// Loads wait for the stores of their cells only ([`Order`]), not for whole bands.
    fine: bool,
    /// A cached line is valid for the band that fetched it only, unless no store can change
    /// it behind the cache's back: the array is only read, or each line's stores are tracked
    /// ([`Fresh`]).
    stamped: bool,
    /// Some load has a store to wait for: the write side keeps the keys of its bursts.
    keyed: bool,
    has_loads: bool,
    has_stores: bool,
    /// Generators.
    n: usize,
    /// Cells of the array.
    len: usize,
    /// Entries of a σ key (σ, then the port or the place after every port).
    klen: usize,
    /// Entries of a band key.
    bk: usize,
    /// Bytes and bits of an element.
    eb: u32,
    ew: u32,
    /// Bits and bytes of one access's values: `Shape::simd` consecutive elements.
    vw: u32,
    vb: u32,
    /// AXI's size field: every beat is a whole line.
    size: u32,
    /// Bits of a cell index.
    xw: u32,
    /// Bits of one σ key entry.
    key_bits: u32,
    /// A store's place in its key: after the loads of its point, past every port.
    after_ports: i64,
    cache: Cache,
    params: Vec<i64>,
    /// What the write side keeps of its bursts awaiting B, where `fine`.
    landed: Landed,
    /// Per generator, the lines a miss of its may fetch ahead ([`ahead`]); 0 for a store.
    ahead: Vec<u32>,
    /// Per generator, its σ key with its port (a load) or the place after every port (a
    /// store): what `key_of` writes and the pick compares.
    keys: Vec<Vec<Key>>,
    /// The σ key entries (with the port or place) that the pick compares: not the same
    /// constant in every generator's key, nor in every generator's the same function as an
    /// earlier entry.
    live: Vec<usize>,
}

/// What the control of a module waits for and what the simulator counts, gathered by the
/// stages that add to it.
struct Activity {
    /// All of these: the module is done.
    quiet: Vec<String>,
    /// An access issued or a value fanned out.
    work: Vec<String>,
    /// Waiting for a DDR beat or a store's value.
    wait_in: Vec<String>,
    /// Waiting for room in a channel.
    wait_out: Vec<String>,
    /// Inputs read by no logic (responses are OKAY, beats counted).
    unused: Vec<String>,
}

/// The fan-out of loads, and what an issue-queue entry carries.
struct FanOut {
    fan: Fan,
    fields: Vec<Field>,
}

/// The memory module `shape` of array `var` with generators `gens`; the walkers of its own
/// that it instantiates go to `walkers` as (file name, Verilog text).
pub(super) fn module(
    p: &Program,
    dpn: &Dpn,
    var: usize,
    gens: &[Gen],
    shape: &Shape<'_>,
    walkers: &mut Vec<(String, String)>,
) -> Result<String, RtlError> {
    let plan = Plan::new(p, dpn, var, gens, shape)?;
    let mut o = String::new();
    let mut act = Activity {
        quiet: vec!["all_done".to_string()],
        work: vec!["issue".to_string()],
        wait_in: Vec::new(),
        wait_out: Vec::new(),
        unused: Vec::new(),
    };
    plan.header(&mut o);
    if plan.staged {
        stage::forward(&mut o);
    }
    plan.generators(&mut o, walkers)?;
    let mut staged = plan.pick(&mut o);
    staged.extend(plan.band_keys(&mut o));
    if plan.staged {
        let band_order = staged.iter().any(|f| f.name == "band_order");
        stage::stage(&mut o, &staged, band_order, plan.ordered, plan.size);
    }
    let fan_out = plan.fan_out(&mut o);
    plan.issue(&mut o);
    plan.cache_table(&mut o);
    plan.issue_queue(&mut o, &fan_out, &mut act);
    plan.sides(&mut o, &mut act, &staged);
    plan.control(&mut o, act);
    Ok(o)
}

impl<'a> Plan<'a> {
    fn new(p: &'a Program, dpn: &'a Dpn, var: usize, gens: &'a [Gen<'a>], shape: &'a Shape<'a>) -> Result<Plan<'a>, RtlError> {
        let v = &p.vars[var];
        let local = v.kind == VarKind::Local;
        let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
        let eb = bits(v.ty) / 8;
        let ew = bits(v.ty);
        let size = LINE_BYTES.trailing_zeros();
        let n = gens.len();
        let has_loads = gens.iter().any(|g| g.load);
        let has_stores = gens.iter().any(|g| !g.load);
        let ordered = !local && has_loads && has_stores;
        let staged = ordered || (!local && has_stores && gens.len() > 1);
        let cached = !local && has_loads;
        // A value every vector lane reads may lie inside a stored vector, whose key is its first
        // cell's: its loads wait for whole bands of stores.
        let broadcast = gens.iter().any(|g| g.load && shape.plan.broadcast(g.c));
        let fine = ordered && !broadcast && gens.iter().filter(|g| g.load).all(|g| dpn.channels[g.c].ddr_source.is_some());
        let stamped = cached && has_stores && !fine;
        let len = v.len().max(1);
        let xw = index_bits(len);
        let cache = Cache::new(len, eb as usize);
        // σ keys are compared in as few bits as hold every generator's values (64-bit
        // comparisons, a quadratic number of them, made Yosys run out of memory at par 16);
        // stores go after the loads of their point: a position past every port.
        let after_ports = gens.iter().filter(|g| g.load).map(|g| dpn.channels[g.c].port.unwrap_or(0) as i64 + 1).max().unwrap_or(0);
        let mut key_bits = bits_for(after_ports);
        for gen in gens {
            let r = crate::process::nest(&dpn.processes[gen.pi])?.iter_ranges();
            for k in &dpn.schedules[gen.stmt].sigma {
                let (lo, hi) = key_range(k, &r);
                key_bits = key_bits.max(bits_for(lo)).max(bits_for(hi));
            }
        }
        // Every generator's key: σ, then its port (loads) or a place after every port (stores).
        let klen = dpn.schedules[gens[0].stmt].sigma.len() + 1;
        let kw = klen as u32 * key_bits;
        let keyed = fine && gens.iter().any(|g| g.load && dpn.channels[g.c].ddr_source.as_ref().is_some_and(|s| !s.is_empty()));
        let landed = sources::landed(keyed, kw, cache.lines);
        let bk = dpn.schedules[0].band.len();
        let ahead: Vec<u32> =
            gens.iter().map(|g| if cached && !has_stores && g.load { ahead::lines_ahead(p, dpn, g, &cache) } else { 0 }).collect();
        // An entry decides nothing where it is the same constant in every generator's key, or,
        // in every generator's, the same function as an earlier entry (GEMM's original-order
        // iterators after its hyperplanes).
        let keys: Vec<Vec<Key>> = gens.iter().map(|g| g.key(dpn, after_ports)).collect();
        let same_constant = |k: usize| constant(&keys[0][k]).is_some() && keys.iter().all(|e| constant(&e[k]) == constant(&keys[0][k]));
        let repeats = |k: usize| {
            (0..k).any(|j| {
                gens.iter().zip(&keys).all(|(g, e)| {
                    let n = p.stmts[g.stmt].iters.len();
                    function(&e[k], n) == function(&e[j], n)
                })
            })
        };
        let live = (0..klen).filter(|&k| !same_constant(k) && !repeats(k)).collect();
        Ok(Plan {
            keys,
            live,
            p,
            dpn,
            gens,
            shape,
            v,
            local,
            ordered,
            staged,
            cached,
            fine,
            stamped,
            keyed,
            has_loads,
            has_stores,
            n,
            len,
            klen,
            bk,
            eb,
            ew,
            vw: ew * shape.simd,
            vb: eb * shape.simd,
            size,
            xw,
            key_bits,
            after_ports,
            cache,
            params,
            landed,
            ahead,
        })
    }

    /// Some generator reads ahead.
    fn read_ahead(&self) -> bool {
        self.ahead.iter().any(|&a| a > 0)
    }

    /// Whether the read side decides for each load generator whether its load would go if
    /// picked (`g<g>_go`), the pick only choosing among the answers: where it picks among
    /// several, a read-ahead never issues instead, and a hit is its line's filled (and
    /// current) bits alone, which [`filled::NextLine`] has per generator.
    fn load_goes(&self) -> bool {
        !self.local && self.cached && !self.stamped && self.cache.tag_bits == 0 && !self.read_ahead() && self.side(true).len() > 1
    }

    /// The generators of one side: the loads (`load`) or the stores.
    fn side(&self, load: bool) -> Vec<usize> {
        (0..self.n).filter(|&g| self.gens[g].load == load).collect()
    }

    /// Per generator, the channel it serves: `Some(c)` for a store.
    fn store_of(&self) -> Vec<Option<usize>> {
        self.gens.iter().map(|gen| (!gen.load).then_some(gen.c)).collect()
    }

    /// The module's head: its ports and its state.
    fn header(&self, o: &mut String) {
        let &Plan { shape, v, local, .. } = self;
        let mut decl = vec!["input  wire clk".to_string(), "input  wire rst".into(), "input  wire start".into(), "output reg  done".into()];
        if !local {
            decl.push("input  wire [63:0] base".into());
        }
        decl.extend(port_decls(&shape.ports));
        if !local {
            let axi = AXI_PORTS.iter().filter(|(n, _, _)| {
                shape.lane.is_none() || lanes::LANE_AXI.contains(n) || (shape.writes && lanes::LANE_WRITE_AXI.contains(n))
            });
            decl.extend(axi.map(|p| crate::verilog::port("m_", p)));
        }
        if shape.lane.is_some() {
            decl.extend(crate::process::STAT_WIRES.iter().map(|w| format!("output wire {w}")));
        }
        if local {
            let _ = writeln!(
                o,
                "// The on-chip memory of temporary {}: its loads (once per band, at first use) and stores, in σ order.",
                v.name
            );
        } else if let Some(k) = shape.lane {
            let _ = writeln!(
                o,
                "// Lane {k} of the DDR port of {}: the loads (once per band, at first use){} of its channels, in σ order; pipelined ({QUEUE} in flight), INCR bursts of up to {READ_BURST} beats.",
                v.name,
                if shape.writes { " and stores" } else { "" }
            );
        } else {
            let _ = writeln!(
                o,
                "// The DDR port of {}: its loads (once per band, at first use) and stores, in σ order; loads pipelined ({QUEUE} in flight), INCR bursts of up to {READ_BURST} beats read and {BURST} written, stores posted.",
                v.name
            );
        }
        let _ = writeln!(o, "module {} (\n    {}\n);", shape.name, decl.join(",\n    "));
        o.push_str(&functions());
        let _ = writeln!(
            o,
            "    localparam [1:0] IDLE = 2'd0, RUN = 2'd1{};\n    reg [1:0] state;\n    wire issue, ld_go, st_go;  // this cycle the σ-next load goes, the σ-next store goes (or both)",
            if local { ", CLEAR = 2'd2" } else { "" }
        );
        if self.read_ahead() {
            o.push_str("    wire ld_take;  // the σ-next load goes (not a read-ahead)\n");
        }
    }

    /// The generators (see `module`'s doc in `mod.rs`): each a walker of its own (or its
    /// process's), and a queue of the accesses it found with what the pick and the fan-out need
    /// of each, worked out as the access is queued, so that none of that arithmetic lies
    /// between the queue and the issue.
    fn generators(&self, o: &mut String, walkers: &mut Vec<(String, String)>) -> Result<(), RtlError> {
        let &Plan { dpn, gens, shape, fine, ref landed, .. } = self;
        if fine {
            o.push_str(&render(Sources { s: landed }));
        }
        for (g, gen) in gens.iter().enumerate() {
            let pr = &dpn.processes[gen.pi];
            // The process's walk, bounded further by what the channel's accesses imply (a
            // reduction's stores are on its last step only): a walker of its own where that differs.
            let own = crate::process::nest(pr)?;
            let restricted = own.restricted(gen.cond);
            let (l, walker) = if restricted == *own {
                (own, format!("w_{}", pr.name))
            } else {
                let walker = format!("{}_w{g}", shape.name);
                walkers.push((format!("{walker}.v"), crate::walk::module(&walker, &restricted)));
                (&restricted, walker)
            };
            let _ = writeln!(
                o,
                "    // Generator {g}: {} {} ({}).\n    wire g{g}_valid, g{g}_wdone, g{g}_next;\n    // verilator lint_off UNUSEDSIGNAL\n    wire [{}:0] g{g}_cs;\n    wire [{}:0] g{g}_its;\n    // verilator lint_on UNUSEDSIGNAL\n    {walker} walk{g} (.clk(clk), .rst(rst), .start(start), .next(g{g}_next), .valid(g{g}_valid), .done(g{g}_wdone), .cs(g{g}_cs), .its(g{g}_its));",
                if gen.load { "loads for" } else { "stores from" },
                dpn.channels[gen.c].name,
                pr.name,
                crate::walk::cs_bits(l) - 1,
                crate::walk::its_bits(l) - 1,
            );
            let walked: Vec<String> = self.p.stmts[gen.stmt].iters.iter().map(|i| format!("g{g}_w_{i}")).collect();
            for (nm, it) in walked.iter().zip(crate::walk::iterators(&format!("g{g}_its"), l)) {
                let _ = writeln!(o, "    wire signed [63:0] {nm} = {it};");
            }
            let _ = writeln!(o, "    wire g{g}_wcond = {} && {};", pred_v(&l.guard, &walked), pred_v(gen.cond, &walked));
            let fields = self.access_fields(o, g, &walked);
            self.access_queue(o, g, &fields);
            if let (true, true, Some(pieces)) = (fine, gen.load, &dpn.channels[gen.c].ddr_source) {
                sources::source_ok(o, g, pieces.len());
            }
        }
        Ok(())
    }

    /// What generator `g`'s queue keeps of an access, as `g<g>_in_<name>` wires over the
    /// walker's iterators `walked`: its σ key (where generators compete), DDR address and
    /// cell, the band it belongs to, its DDR source's pieces, its fan-out and scratchpad
    /// cells, and the lines a miss of its reads ahead.
    fn access_fields(&self, o: &mut String, g: usize, walked: &[String]) -> Vec<Field> {
        let &Plan { p, dpn, gens, v, local, ordered, cached, fine, n, xw, key_bits, after_ports, ref params, .. } = self;
        let gen = &gens[g];
        let mut fields = Vec::new();
        let mut field = |o: &mut String, name: String, width: u32, value: String| {
            let w = if width == 1 { String::new() } else { format!("[{}:0] ", width - 1) };
            let _ = writeln!(o, "    wire {w}g{g}_in_{name} = {value};");
            fields.push(Field { value: format!("g{g}_in_{name}"), name, width });
        };
        if n > 1 {
            // The σ key's entries that vary and are read: those the pick compares, the band's,
            // and a store's whole key where the write side keeps it (the queue's head puts the
            // constant ones back: `key_of`).
            let read = |k: usize| self.live.contains(&k) || (ordered && k < self.bk) || (!gen.load && self.keyed);
            o.push_str("    // verilator lint_off UNUSEDSIGNAL\n");
            for (k, kk) in dpn.schedules[gen.stmt].sigma.iter().enumerate().filter(|&(k, kk)| constant(kk).is_none() && read(k)) {
                let _ = writeln!(o, "    wire signed [63:0] g{g}_in_k{k}_full = {};", key(kk, walked));
                field(o, format!("k{k}"), key_bits, format!("g{g}_in_k{k}_full[{}:0]", key_bits - 1));
            }
            o.push_str("    // verilator lint_on UNUSEDSIGNAL\n");
        }
        if ordered {
            let (band, sigma) = (&dpn.schedules[gen.stmt].band, &dpn.schedules[gen.stmt].sigma);
            for (k, kk) in band.iter().enumerate().take(self.bk).filter(|&(k, kk)| constant(kk).is_none() && sigma.get(k) != Some(kk)) {
                field(o, format!("band{k}"), 64, key(kk, walked));
            }
        }
        // The array cell (row-major over the subscripts `sub` gives), and its byte address in DDR.
        let flat = |sub: &dyn Fn(usize, &dpnc_frontend::ir::Aff) -> String| {
            let parts = gen.access.index.iter().zip(&v.dims).enumerate();
            parts.fold("64'sd0".to_string(), |acc, (d, (x, dsz))| format!("({} + {})", times_const(&acc, *dsz), sub(d, x)))
        };
        // An access that runs is in bounds: its cell needs `xw` bits, and so does the arithmetic
        // that finds it (synthesis narrows it to the bits used).
        let cell = format!("g{g}_in_cell");
        let _ = writeln!(
            o,
            "    // verilator lint_off UNUSEDSIGNAL\n    wire signed [63:0] {cell}_full = {};\n    // verilator lint_on UNUSEDSIGNAL\n    wire [{}:0] {cell} = {cell}_full[{}:0];",
            flat(&|_, x| aff(x, walked, params)),
            xw - 1,
            xw - 1
        );
        if !local {
            // Its cell here: `access_queue` works the byte address out after the point stage.
            field(o, "addr".into(), xw, cell.clone());
        }
        if local || ordered || (gen.load && cached) {
            field(o, "cell_q".into(), xw, cell.clone());
        }
        if let (true, true, Some(pieces)) = (fine, gen.load, &dpn.channels[gen.c].ddr_source) {
            for (k, piece) in pieces.iter().enumerate() {
                let (key, width) = sources::piece_key(o, &format!("g{g}_in_s{k}"), piece, walked, after_ports, key_bits);
                field(o, format!("s{k}_key"), width, key);
                field(o, format!("s{k}_when"), 1, pred_v(&piece.when, walked));
            }
        }
        if gen.load {
            for (k, (q, pred)) in dpn.channels[gen.c].fanout.iter().enumerate() {
                field(o, format!("to{k}"), 1, pred_v(pred, walked));
                let qch = &dpn.channels[*q];
                if qch.kind == ChannelKind::Scratchpad {
                    let words = Words { channel: *q, cells: self.shape.plan.values[*q] };
                    cell_wire(o, &format!("g{g}_in_at{k}_c"), p, dpn, words, gen.access, walked);
                    field(o, format!("at{k}"), index_bits(qch.cells() / self.shape.plan.values[*q] as usize), format!("g{g}_in_at{k}_c"));
                }
            }
        }
        if self.ahead[g] > 0 {
            // The cell of the row's last element: the innermost subscript at its extent's end.
            let last = gen.access.index.len() - 1;
            let row_end = flat(&|d, x| if d == last { lit(v.dims[d] - 1) } else { aff(x, walked, params) });
            let line = ahead::row_line(o, &format!("g{g}_in"), &row_end, self.cache.lane_bits, xw);
            field(o, "row_line".into(), xw, line);
        }
        fields
    }

    /// Generator `g`'s queue of [`AHEAD`] accesses: its walker runs ahead into it, so that the
    /// walk between accesses (the points of other first uses, or past the end of a short inner
    /// loop) overlaps the other generators' turns in σ. The head's `fields` are `g<g>_<name>`.
    /// Where generators compete, a generator's key is its head's or, with its queue empty, the
    /// key of the point its stage held last (a cycle late, and not above its next access, since
    /// it walks in σ order), so that the others need not wait until it has found its next access.
    fn access_queue(&self, o: &mut String, g: usize, fields: &[Field]) {
        // A generator's access goes when its side (loads or stores) issues.
        let go = match (self.gens[g].load, self.read_ahead()) {
            (true, _) if self.load_goes() => {
                let _ = writeln!(o, "    wire g{g}_go;  // its load would go if picked (the read side)");
                format!("g{g}_go")
            }
            (true, true) => "ld_take".into(),
            (true, false) => "ld_go".into(),
            // With the store stage, a store leaves its generator into the stage: where the stores
            // are compared with the loads pairwise, decided per generator (`pick::pairwise`).
            (false, _) if self.staged && pick::pairwise(self.side(true).len(), self.side(false).len()) => {
                format!("state == RUN && sa_room && s_gate && g{g}_ready")
            }
            (false, _) if self.staged => "sa_take".into(),
            (false, _) => "st_go".into(),
        };
        let a = AHEAD.trailing_zeros();
        // The stage keeps an access's cell for its address (`access_fields`): the address's
        // 64-bit sum is worked out between the stage and the queue, the cell's products before
        // the stage.
        let (xw, eb) = (self.xw, self.eb);
        let (lane_bits, most) = (self.cache.lane_bits, self.ahead[g]);
        let mut after = String::new();
        let queued: Vec<Field> = (fields.iter())
            .map(|f| match f.name.as_str() {
                "addr" => Field { name: f.name.clone(), width: 64, value: format!("base + {{{}'d0, g{g}_p_addr}} * 64'd{eb}", 64 - xw) },
                "row_line" => Field {
                    name: "ahead".into(),
                    width: ahead::BITS,
                    value: ahead::lines_to_fetch(
                        &mut after,
                        &format!("g{g}_p"),
                        &format!("g{g}_p_row_line"),
                        &format!("g{g}_p_cell_q"),
                        lane_bits,
                        xw,
                        most,
                    ),
                },
                _ => Field { name: f.name.clone(), width: f.width, value: format!("g{g}_p_{}", f.name) },
            })
            .collect();
        let width: u32 = queued.iter().map(|f| f.width).sum();
        let _ = writeln!(
            o,
            "    reg [{}:0] g{g}_f [0:{}];\n    reg [{}:0] g{g}_fh, g{g}_fh1, g{g}_ft;  // fh1: fh + 1, the entry after the head\n    // How many accesses wait, as a thermometer: bit k set while more than k do (a push or a\n    // pop shifts it, no adder after the pick).\n    reg [{f}:0] g{g}_fq;\n    wire g{g}_acc = g{g}_fq[0];\n    // Room for the stage's point: the queue had two free places a cycle ago (it gains at most\n    // one a cycle), so that the walker's step does not wait on this cycle's issue.\n    reg g{g}_room;",
            width - 1,
            AHEAD - 1,
            a - 1,
            f = AHEAD - 1,
        );
        let _ = writeln!(
            o,
            "    // The point stage: the walker's points with their fields, registered. `a` holds each point\n    // the walker hands out, its fields worked out (the cell's products and the guards are a\n    // cycle of their own); p the one at the queue, p1 the point taken from a while p waits, so\n    // that a moves on while p1 is free (a register) and never waits on the queue's room.\n    reg g{g}_av, g{g}_acond, g{g}_pv, g{g}_pcond, g{g}_pv1, g{g}_pcond1;\n    reg [{w}:0] g{g}_a, g{g}_p, g{g}_p1;\n    wire [{w}:0] g{g}_pin = {{{}}};\n    wire g{g}_ain = g{g}_av && !g{g}_pv1;  // a's point enters the point stage\n    wire g{g}_push = g{g}_pv && g{g}_pcond && g{g}_room;\n    wire g{g}_take = !g{g}_pv || !g{g}_pcond || g{g}_room;  // p leaves (or is free)\n    wire g{g}_pop = {go} && pick{g};\n    // After this edge the head stays, or the entry after it becomes the head.\n    wire g{g}_stays = g{g}_fq[0] && !g{g}_pop, g{g}_moves = g{g}_pop && g{g}_fq[1];\n    assign g{g}_next = g{g}_valid && (!g{g}_av || !g{g}_pv1);\n    // Done: the walk is over and nothing of it is left here, a cycle late (a register, from\n    // which the picks start; that cycle the generator is alive with nothing to issue).\n    reg g{g}_done;\n    always @(posedge clk) begin\n        g{g}_done <= !(rst || start) && g{g}_wdone && !g{g}_av && !g{g}_pv && !g{g}_pv1 && !g{g}_acc;\n        if (rst || start) begin\n            g{g}_av <= 1'b0;\n            g{g}_pv <= 1'b0;\n            g{g}_pv1 <= 1'b0;\n        end else begin\n            if (g{g}_next) g{g}_av <= 1'b1;\n            else if (g{g}_ain) g{g}_av <= 1'b0;\n            if (g{g}_take) begin\n                g{g}_pv <= g{g}_pv1 || g{g}_ain;\n                g{g}_pv1 <= 1'b0;\n            end else if (g{g}_ain) g{g}_pv1 <= 1'b1;\n        end\n        if (g{g}_next) begin\n            g{g}_acond <= g{g}_wcond;\n            g{g}_a <= g{g}_pin;\n        end\n        if (g{g}_take) begin\n            g{g}_pcond <= g{g}_pv1 ? g{g}_pcond1 : g{g}_acond;\n            g{g}_p <= g{g}_pv1 ? g{g}_p1 : g{g}_a;\n        end else if (g{g}_ain) begin\n            g{g}_pcond1 <= g{g}_acond;\n            g{g}_p1 <= g{g}_a;\n        end\n    end",
            fields.iter().map(|f| f.value.as_str()).collect::<Vec<_>>().join(", "),
            w = fields.iter().map(|f| f.width).sum::<u32>() - 1,
        );
        unpack(o, &format!("g{g}_p"), fields, &format!("g{g}_p_"));
        o.push_str(&after);
        // The entry pushed, once: the queue's write and the registered head fields take it.
        let _ = writeln!(
            o,
            "    wire [{}:0] g{g}_q = {{{}}};",
            width - 1,
            queued.iter().map(|f| f.value.as_str()).collect::<Vec<_>>().join(", ")
        );
        unpack(o, &format!("g{g}_q"), &queued, &format!("g{g}_q_"));
        let _ = writeln!(
            o,
            "    always @(posedge clk) if (g{g}_push) g{g}_f[g{g}_ft] <= g{g}_q;\n    always @(posedge clk) begin\n        if (rst || start) begin\n            g{g}_fh <= {a}'d0;\n            g{g}_fh1 <= {a}'d1;\n            g{g}_ft <= {a}'d0;\n            g{g}_fq <= {ah}'d0;\n        end else begin\n            if (g{g}_pop) begin\n                g{g}_fh <= g{g}_fh1;\n                g{g}_fh1 <= g{g}_fh1 + {a}'d1;\n            end\n            if (g{g}_push) g{g}_ft <= g{g}_ft + {a}'d1;\n            if (g{g}_push && !g{g}_pop) g{g}_fq <= {{g{g}_fq[{}:0], 1'b1}};\n            else if (!g{g}_push && g{g}_pop) g{g}_fq <= {{1'b0, g{g}_fq[{f}:1]}};\n        end\n        g{g}_room <= !(rst || start) && !g{g}_fq[{}];\n    end\n    wire [{}:0] g{g}_head = g{g}_f[g{g}_fh];",
            AHEAD - 2,
            AHEAD - 2,
            width - 1,
            ah = AHEAD,
            f = AHEAD - 1,
        );
        let &Plan { dpn, gens, local, ordered, n, bk, xw, key_bits, klen, .. } = self;
        // The head's cell and address are registers, worked out for the head after each edge
        // (the head, the entry after it on a pop, or the point pushed), as `g<g>_order` and
        // `g<g>_src_ok` are: the cache's lookup and the burst's comparison start at flip-flops,
        // not at the queue's read. A head that stays keeps the register's value.
        let registered = |f: &Field| f.name == "addr" || f.name == "cell_q";
        unpack(o, &format!("g{g}_head"), &queued, &format!("g{g}_h_"));
        // The entry after the head (`n`), for the head's fields after a pop, and the entry after
        // that (`n2`), for the next entry's registered fields and order after a pop: the
        // registered fields of the next entry are registers too (meaningful while there is
        // one), so that what a pop makes the head's starts at flip-flops, not at a LUT-RAM read.
        let _ = writeln!(
            o,
            "    reg [{}:0] g{g}_fh2;  // fh + 2\n    always @(posedge clk)\n        if (rst || start) g{g}_fh2 <= {a}'d2;\n        else if (g{g}_pop) g{g}_fh2 <= g{g}_fh2 + {a}'d1;\n    wire [{w}:0] g{g}_head1 = g{g}_f[g{g}_fh1];\n    wire [{w}:0] g{g}_head2 = g{g}_f[g{g}_fh2];\n    // verilator lint_off UNUSEDSIGNAL",
            a - 1,
            w = width - 1
        );
        unpack(o, &format!("g{g}_head1"), &queued, &format!("g{g}_n1_"));
        unpack(o, &format!("g{g}_head2"), &queued, &format!("g{g}_n2_"));
        o.push_str("    // verilator lint_on UNUSEDSIGNAL\n");
        // The next entry's fields (`g<g>_n_<name>`), then the head's (`g<g>_<name>`): registers
        // where `registered`, else the queue's reads (`n1`, `h`).
        let next = |n: &str| next_entry(g, &format!("g{g}_n_{n}"), &format!("g{g}_n2_{n}"), &format!("g{g}_q_{n}"));
        let head = |n: &str| for_head(g, &format!("g{g}_{n}"), &format!("g{g}_n_{n}"), &format!("g{g}_q_{n}"));
        for (place, read, value) in [("n_", "n1_", &next as &dyn Fn(&str) -> String), ("", "h_", &head)] {
            for f in &queued {
                let decl = if f.width == 1 { String::new() } else { format!("[{}:0] ", f.width - 1) };
                let n = &f.name;
                if registered(f) {
                    let _ =
                        writeln!(o, "    reg {decl}g{g}_{place}{n};\n    always @(posedge clk)\n        g{g}_{place}{n} <= {};", value(n));
                } else {
                    let _ = writeln!(o, "    // verilator lint_off UNUSEDSIGNAL\n    wire {decl}g{g}_{place}{n} = g{g}_{read}{n};\n    // verilator lint_on UNUSEDSIGNAL");
                }
            }
        }
        if local || ordered || (gens[g].load && self.cached) {
            let _ = writeln!(o, "    wire signed [63:0] g{g}_cell = {{{}'d0, g{g}_cell_q}};", 64 - xw);
        }
        if n == 1 {
            return;
        }
        let sigma = &dpn.schedules[gens[g].stmt].sigma;
        let p = self.key_of(g, &format!("g{g}_p_k"), &self.live);
        // The bound on the generator's next access while its queue is empty: the point stage's
        // key, or the last one it held, a register (`bound`) worked out from what enters the
        // stage, so that the pick's comparisons start at one choice after flip-flops.
        unpack(o, &format!("g{g}_a"), fields, &format!("g{g}_a_"));
        unpack(o, &format!("g{g}_p1"), fields, &format!("g{g}_p1_"));
        let _ = writeln!(
            o,
            "    reg g{g}_seen;\n    reg [{k}:0] g{g}_bound;  // g{g}_pv ? the key of g{g}_p : the last such key\n    always @(posedge clk) begin\n        if (rst || start) g{g}_seen <= 1'b0;\n        else if (g{g}_pv) g{g}_seen <= 1'b1;\n        if (g{g}_take && (g{g}_pv1 || g{g}_ain)) g{g}_bound <= g{g}_pv1 ? {} : {};\n    end\n    wire g{g}_known = g{g}_acc || g{g}_seen;\n    // The order the pick compares (the head's key, or the last point walked while the queue is\n    // empty) as a register, worked out for the head after each edge (a head that stays keeps\n    // it): the pick starts at flip-flops, not at the queue's read and this choice. What it\n    // becomes if the head stays and if it is popped are wires of their own, which the\n    // registered pairwise comparisons of the pick read (`picks`). The next entry's order is a\n    // register too (`order1`, meaningful while there is one), so that what a pop makes the\n    // order starts at flip-flops rather than at the queue's read.\n    reg [{k}:0] g{g}_order, g{g}_order1;\n    wire [{k}:0] g{g}_order_kept = g{g}_fq[0] ? g{g}_order : {pushed};\n    wire [{k}:0] g{g}_order_popped = g{g}_fq[1] ? g{g}_order1 : {pushed};\n    always @(posedge clk) begin\n        g{g}_order <= g{g}_pop ? g{g}_order_popped : g{g}_order_kept;\n        g{g}_order1 <= {};\n    end",
            self.key_of(g, &format!("g{g}_p1_k"), &self.live),
            self.key_of(g, &format!("g{g}_a_k"), &self.live),
            next_entry(g, &format!("g{g}_order1"), &self.key_of(g, &format!("g{g}_n2_k"), &self.live), &p),
            pushed = format!("g{g}_bound"),
            k = self.live.len().max(1) as u32 * key_bits - 1
        );
        if !gens[g].load && self.keyed {
            let all: Vec<usize> = (0..klen).collect();
            let _ = writeln!(o, "    wire [{}:0] g{g}_key = {};", klen as u32 * key_bits - 1, self.key_of(g, &format!("g{g}_k"), &all));
        }
        // A band key entry that varies is the σ key's entry of the same place (`sync::band_key`;
        // one that is not has a field of its own, `access_fields`). Where the pick compares the
        // entry, it is read from the order register, which holds the head's key while there is
        // a head: the band comparisons after it do not wait for the queue's LUT-RAM read.
        for (k, kk) in dpn.schedules[gens[g].stmt].band.iter().enumerate().take(bk) {
            if constant(kk).is_none() && sigma.get(k) == Some(kk) {
                let entry = match self.live.iter().position(|&l| l == k) {
                    Some(p) => {
                        let hi = (self.live.len() - p) as u32 * key_bits - 1;
                        let _ = writeln!(
                            o,
                            "    wire [{}:0] g{g}_ok{k} = {{~g{g}_order[{hi}], g{g}_order[{}:{}]}};  // g{g}_k{k}, while there is a head",
                            key_bits - 1,
                            hi - 1,
                            hi + 1 - key_bits
                        );
                        format!("g{g}_ok{k}")
                    }
                    None => format!("g{g}_k{k}"),
                };
                let _ = writeln!(o, "    // verilator lint_off UNUSEDSIGNAL\n    wire signed [63:0] g{g}_band{k} = {};\n    // verilator lint_on UNUSEDSIGNAL", sext(&entry, 0, key_bits));
            }
        }
    }

    /// Generator g's σ key (σ, then its port (loads) or a place after every port (stores)) at
    /// the places `entries`, as the pick compares it: each entry in `key_bits` with its sign bit
    /// flipped so that keys compare as unsigned numbers; the entries that vary are `<var><k>`.
    fn key_of(&self, g: usize, var: &str, entries: &[usize]) -> String {
        let &Plan { ref keys, key_bits, .. } = self;
        let all = &keys[g];
        let (w, bias) = (key_bits - 1, 1i128 << (key_bits - 1));
        let parts: Vec<String> = (entries.iter())
            .map(|&k| match constant(&all[k]) {
                Some(c) => format!("{key_bits}'d{}", (c as i128 + bias).rem_euclid(2 * bias)),
                None => format!("~{var}{k}[{w}], {var}{k}[{}:0]", w - 1),
            })
            .collect();
        match parts.len() {
            0 => format!("{key_bits}'d0"),
            _ => format!("{{{}}}", parts.join(", ")),
        }
    }

    /// The σ-next load and the σ-next store: their generators (`win<g>`), whether each side has
    /// one to issue (`ld_want`, `st_want`), their addresses and cells. With the store stage
    /// (`staged`), the store's are `sp_<name>`, the values that enter it: returned as its fields.
    fn pick(&self, o: &mut String) -> Vec<stage::Field> {
        let &Plan { ref keys, local, ordered, staged: has_stage, cached, fine, keyed, n, klen, bk, size, xw, key_bits, .. } = self;
        let fixed = keys.iter().map(|key| self.live.iter().map(|&k| constant(&key[k])).collect()).collect();
        let orders = pick::Orders { live: self.live.clone(), key_bits, fixed };
        let band_order = pick::winner(o, &self.store_of(), klen, &orders, bk, fine, keyed, has_stage);
        let mut done: Vec<String> = (0..n).map(|g| format!("g{g}_done")).collect();
        let mut staged = Vec::new();
        if has_stage {
            done.push("!sa_v && !sb_v".into());
            staged.push(stage::Field::new("addr", 64, false));
            if ordered {
                staged.push(stage::Field::new("cell_full", 64, true));
            }
            staged.extend(self.side(false).into_iter().map(|g| stage::Field::new(format!("pick{g}"), 1, false)));
            if keyed {
                staged.push(stage::Field::new("key", klen as u32 * key_bits, false));
            }
            if let Some(w) = band_order {
                staged.push(stage::Field::new("band_order", w, false));
            }
        }
        let _ = writeln!(o, "    wire all_done = {};", all_of(done));
        for (side, load) in [("ld", true), ("st", false)] {
            let mine = self.side(load);
            if mine.is_empty() {
                continue;
            }
            // The stage's values come from the pick as `sp_<name>`.
            let (side, staged_side) = if !load && has_stage { ("sp", true) } else { (side, false) };
            // With read-ahead, the load side issues a read-ahead's line instead while one is due.
            let ahead = load && self.read_ahead();
            let mux = |what: &str, zero: &str| {
                let m = by_pick(mine.iter().map(|&g| (g, format!("g{g}_{what}"))), zero);
                if ahead {
                    format!("ra_want ? ra_{what} : {m}")
                } else {
                    m
                }
            };
            let mut want = any_of(mine.iter().map(|g| format!("win{g}")).collect(), "1'b0");
            if ahead {
                ahead::state(o);
                let none = format!("{}'d0", ahead::BITS);
                let counts = mine.iter().map(|&g| (g, if self.ahead[g] > 0 { format!("g{g}_ahead") } else { none.clone() }));
                let _ = writeln!(
                    o,
                    "    wire [{}:0] ld_ahead = {};\n    assign ld_take = ld_go && !ra_want;",
                    ahead::BITS - 1,
                    by_pick(counts, &none)
                );
                want = format!("ra_want || {want}");
            }
            // Where the read side decides per generator, only the write side may read ld_want.
            let (off, on) = match load && self.load_goes() {
                true => ("    // verilator lint_off UNUSEDSIGNAL\n", "\n    // verilator lint_on UNUSEDSIGNAL"),
                false => ("", ""),
            };
            let _ = writeln!(
                o,
                "    // The σ-next {}.\n{off}    wire {side}_want = state == RUN && ({want});{on}",
                if load { "load" } else { "store" }
            );
            if staged_side {
                let _ = writeln!(o, "    wire [63:0] sp_addr = {};", mux("addr", "64'd0"));
                let picks = mine.iter().map(|g| format!("    wire sp_pick{g} = pick{g};\n")).collect::<String>();
                o.push_str(&picks);
            } else if !local {
                // Loads only need its line (a store its place in the line too).
                let _ = writeln!(
                    o,
                    "    // verilator lint_off UNUSEDSIGNAL\n    wire [63:0] {side}_addr = {};\n    // verilator lint_on UNUSEDSIGNAL\n    wire [63:0] {side}_line_addr = {{{side}_addr[63:{size}], {size}'d0}};",
                    mux("addr", "64'd0")
                );
            }
            // A load's cell: the load cache's line and a temporary's address; a store's: the
            // cache entry it makes stale (`Fresh`) and a temporary's address. Both: `war`.
            if local || ordered || (load && cached) {
                let _ = writeln!(
                    o,
                    "    // verilator lint_off UNUSEDSIGNAL\n    wire signed [63:0] {side}_cell_full = {};\n    // verilator lint_on UNUSEDSIGNAL",
                    mux("cell", "64'sd0")
                );
            }
            if (local || ordered) && !staged_side {
                let _ = writeln!(o, "    wire [{}:0] {side}_cell = {side}_cell_full[{}:0];", xw - 1, xw - 1);
            }
        }
        staged
    }

    /// The fan-out of the σ-next load, and what an issued load carries.
    fn fan_out(&self, o: &mut String) -> FanOut {
        let &Plan { dpn, gens, local, cached, ew, ref cache, .. } = self;
        // Fan-out of the σ-next load: which channels get it (`fan<q>`), at which scratchpad cell (`fat<q>`).
        let mut fan: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        for (g, gen) in gens.iter().enumerate().filter(|(_, gen)| gen.load) {
            for (k, (q, _)) in dpn.channels[gen.c].fanout.iter().enumerate() {
                match fan.iter_mut().find(|f| f.0 == *q) {
                    Some(f) => f.1.push((g, k)),
                    None => fan.push((*q, vec![(g, k)])),
                }
            }
        }
        // What an issued load carries to its fan-out.
        let mut fields = Vec::new();
        if cached {
            fields.push(Field { name: "miss".into(), width: 1, value: "!hit".into() });
            fields.push(Field { name: "idx".into(), width: cache.index_bits, value: "ld_idx".into() });
            fields.push(Field { name: "lane".into(), width: cache.lane_bits, value: "ld_lane".into() });
        }
        if local {
            fields.push(Field { name: "value".into(), width: ew, value: "data[ld_cell]".into() });
        }
        let mut targets = Vec::new();
        for (q, users) in &fan {
            let to: Vec<String> = users.iter().map(|(g, k)| format!("(pick{g} && g{g}_to{k})")).collect();
            let to = to.join(" || ");
            let _ = writeln!(o, "    wire fan{q} = {};", if self.read_ahead() { format!("!ra_want && ({to})") } else { to });
            fields.push(Field { name: format!("to{q}"), width: 1, value: format!("fan{q}") });
            let qch = &dpn.channels[*q];
            let mut at_bits = None;
            if qch.kind == ChannelKind::Scratchpad {
                let aw = index_bits(qch.cells() / self.shape.plan.values[*q] as usize);
                let mut at = format!("{aw}'d0");
                for (g, k) in users.iter().rev() {
                    at = format!("pick{g} ? g{g}_at{k} : {at}");
                }
                let _ = writeln!(o, "    wire [{}:0] fat{q} = {at};", aw - 1);
                fields.push(Field { name: format!("at{q}"), width: aw, value: format!("fat{q}") });
                at_bits = Some(aw);
            }
            targets.push(Target { q: *q, at_bits, broadcast: self.shape.plan.broadcast(*q) });
        }
        let fan = Fan::new(targets);
        fields.extend(fan.fields());

        FanOut { fan, fields }
    }

    /// The σ-next store's value, the issue, and a temporary's memory.
    fn issue(&self, o: &mut String) {
        let &Plan { local, staged, has_loads, has_stores, len, ew, vw, xw, .. } = self;
        // Stores: the σ-next store's value, popped when it issues (from the stage's `sb`).
        let stores: Vec<(usize, usize)> = self.store_of().iter().enumerate().filter_map(|(g, c)| c.map(|c| (g, c))).collect();
        let pick = |g: usize| if staged { format!("st_pick{g}") } else { format!("pick{g}") };
        if has_stores {
            // Each store channel's values wait in two places here, so that the channel's FIFO
            // sees a ready that is a register and the pick's decision ends in this module.
            for (g, c) in &stores {
                let _ = writeln!(
                    o,
                    "    wire sv{c}_v;\n    wire [{w}:0] sv{c}_d;\n    /* verilator lint_off PINCONNECTEMPTY */\n    dpn_fifo_reg #(.W({vw}), .DEPTH(2), .FULL_PASS(0)) store_value{c} (.clk(clk), .rst(rst || start), .in_valid(ch{c}_v), .in_ready(ch{c}_r), .in_data(ch{c}_d), .out_valid(sv{c}_v), .out_ready(st_go && {}), .out_data(sv{c}_d), .count(), .peak());\n    /* verilator lint_on PINCONNECTEMPTY */",
                    pick(*g),
                    w = vw - 1
                );
            }
            let _ = writeln!(
                o,
                "    wire pop_ok = {};  // the σ-next store's value is there\n    wire [{}:0] pop_value = {};",
                any_of(stores.iter().map(|&(g, c)| format!("({} && sv{c}_v)", pick(g))).collect(), "1'b0"),
                vw - 1,
                one_hot(stores.iter().map(|&(g, c)| (pick(g), format!("sv{c}_d"))), vw)
            );
        }
        let _ = writeln!(o, "    assign issue = ld_go || st_go;");
        if !has_loads {
            o.push_str("    assign ld_go = 1'b0;\n");
        }
        if !has_stores {
            o.push_str("    assign st_go = 1'b0;\n");
        }

        // A temporary's memory, cleared at start.
        if local {
            let _ = writeln!(o, "    reg [63:0] clear;");
        }
        if local {
            // Without stores (a local the network only reads) the memory keeps its cleared zeros.
            let store = if has_stores { "\n        else if (st_go) data[st_cell] <= pop_value;" } else { "" };
            let _ = writeln!(
                o,
                "    reg [{}:0] data [0:{}];\n    always @(posedge clk) begin\n        if (state == CLEAR) data[clear[{}:0]] <= {ew}'d0;{store}\n    end",
                ew - 1,
                len - 1,
                xw - 1
            );
        }
    }

    /// Generator g's band key entry k where it is the same at every point.
    fn band_constant(&self, g: usize, k: usize) -> Option<i64> {
        self.dpn.schedules[self.gens[g].stmt].band.get(k).map_or(Some(0), constant)
    }

    /// Generator g's band key entry k: a constant, or the head's key entry.
    fn band_of(&self, g: usize, k: usize) -> String {
        self.band_constant(g, k).map_or_else(|| format!("g{g}_band{k}"), lit)
    }

    /// Whether the σ-next load belongs to the last store's band (`w_band<k>`): compared for
    /// each generator's head beside the pick, which only chooses among the answers (compared
    /// after it, the pick's multiplexer of keys read from the queues comes first).
    fn load_in_store_band(&self) -> String {
        let same = |g: usize| format!("({})", all_of((0..self.bk).map(|k| format!("{} == w_band{k}", self.band_of(g, k))).collect()));
        by_pick(self.side(true).into_iter().map(|g| (g, same(g))), "1'b0")
    }

    /// The bands of the σ-next load and store; those of the store that vary, the store stage's
    /// fields.
    fn band_keys(&self, o: &mut String) -> Vec<stage::Field> {
        let &Plan { ordered, bk, .. } = self;
        // The band of the σ-next load and store (nest and every tile coordinate but the last): the
        // cache's validity, which stores a load must wait for, and which stores share a burst.
        let mut staged = Vec::new();
        if !ordered {
            return staged;
        }
        for (side, load) in [("ld", true), ("st", false)] {
            for k in 0..bk {
                let per_gen: Vec<(usize, String)> = self.side(load).into_iter().map(|g| (g, self.band_of(g, k))).collect();
                // The same for every generator (a constant, or one generator's): no multiplexer.
                let e = match per_gen.first() {
                    Some((_, first)) if per_gen.iter().all(|(_, x)| x == first) => first.clone(),
                    _ => by_pick(per_gen, "64'sd0"),
                };
                // A band that varies is the stage's store's (`sb`), not the generators' next.
                if !load && self.side(load).into_iter().any(|g| self.band_constant(g, k).is_none()) {
                    staged.push(stage::Field::new(format!("band{k}"), 64, true));
                    let _ = writeln!(o, "    wire signed [63:0] sp_band{k} = {e};");
                } else if load {
                    // Read by the cache's band stamps where it has them (the store band's
                    // comparison is made per generator, `load_in_store_band`).
                    let _ = writeln!(o, "    // verilator lint_off UNUSEDSIGNAL\n    wire signed [63:0] ld_band{k} = {e};\n    // verilator lint_on UNUSEDSIGNAL");
                } else {
                    let _ = writeln!(o, "    wire signed [63:0] {side}_band{k} = {e};");
                }
            }
        }
        staged
    }

    /// The load generators, each with the lines a miss of its fetches ahead.
    fn loads_ahead(&self) -> Vec<(usize, u32)> {
        self.side(true).into_iter().map(|g| (g, self.ahead[g])).collect()
    }

    /// The load cache's table.
    fn cache_table(&self, o: &mut String) {
        let &Plan { cached, fine, stamped, bk, ref cache, .. } = self;
        // The load cache's table: per line, its tag and (where lines serve one band) the band it
        // was last fetched in, counted from 1; its data arrives with the R beat.
        if cached {
            cache.declare(o, stamped, fine);
            // sa's store's line bits over two cycles where the cache is too large for one.
            let store_line = if fine { filled::NextLine::store(o, cache, self.xw, &self.side(false)) } else { None };
            if fine {
                let two_cycles = store_line.is_some();
                let loads = self.loads_ahead();
                let miss = cache.miss_nos();
                o.push_str(&render(Fresh {
                    lines: cache.lines,
                    ib: cache.index_bits,
                    miss_nos: miss.declare(),
                    fill_miss_no: miss.read("h_idx"),
                    miss_at_fetch: miss.write("ld_idx", "misses"),
                    sa_tag_match: if cache.tag_bits > 0 { format!(" && {} == sa_tag", cache.tags().read("sa_idx")) } else { String::new() },
                    sa_filled: if two_cycles { "sa_filled".into() } else { "filled[sa_idx]".into() },
                    sa_awaiting: if two_cycles { "sa_awaiting".into() } else { "awaiting[sa_idx]".into() },
                    ld_at_sa: filled::ld_line_is(cache, self.xw, &loads, "sa_idx"),
                    ld_at_st: filled::ld_line_is(cache, self.xw, &loads, "st_idx"),
                    ld_at_head: filled::ld_line_is(cache, self.xw, &loads, "h_idx"),
                    deferred: deferred::applies(cache.index_bits),
                    ld_in_flight: filled::per_source(cache, self.xw, &loads, &|line| format!("in_flight[{line}]")),
                    sa_ours: if cache.tag_bits > 0 { "ld_tag == sa_tag".into() } else { "1'b1".into() },
                    st_ours: if cache.tag_bits > 0 { "ld_tag == st_tag".into() } else { "1'b1".into() },
                }));
            }
            // Where lines serve one band: the band of the σ-next load, counted from 1.
            let (mut cond, mut clear, mut step, mut note) = (String::new(), String::new(), String::new(), String::new());
            if stamped {
                let mut other = vec!["band_no == 32'd0".to_string()];
                for k in 0..bk {
                    let _ = writeln!(o, "    reg signed [63:0] band{k};");
                    other.push(format!("band{k} != ld_band{k}"));
                }
                let _ = writeln!(
                    o,
                    "    wire other_band = {};\n    wire [31:0] next_band = other_band ? band_no + 32'd1 : band_no;",
                    other.join(" || ")
                );
                let sets: Vec<String> = (0..bk).map(|k| format!(" band{k} <= ld_band{k};")).collect();
                cond = format!(" && {} == next_band", cache.stamps().read("ld_idx"));
                clear = " band_no <= 32'd0;".into();
                step = format!("\n            band_no <= next_band;{}", sets.concat());
                note = " in this band".into();
            }
            if fine {
                note.push_str(" and every store that reached it since wrote into it");
            }
            let tag = cache.tag_bits > 0;
            let mut fetched = Vec::new();
            if stamped {
                fetched.push(cache.stamps().write("ld_idx", "next_band"));
            }
            if tag {
                fetched.push(cache.tags().write("ld_idx", "ld_tag"));
            }
            let change = |when: &str, at: &str, value: &str| filled::Change { when: when.into(), at: at.into(), value: value.into() };
            let (lines, ib) = (cache.lines, cache.index_bits);
            let late = deferred::applies(ib);
            // Where the bits are written a cycle late (`deferred`), this block keeps only the band.
            let (reset_filled, set_filled) = if late {
                (String::new(), String::new())
            } else {
                (
                    format!("\n            filled <= {lines}'d0;"),
                    format!(
                        "\n            for (fk = 0; fk < {lines}; fk = fk + 1) if (!hit && ld_idx == fk[{}:0]) filled[fk] <= 1'b1;",
                        ib - 1
                    ),
                )
            };
            let block = if late && !stamped {
                String::new()
            } else {
                format!(
                    "{}\n    always @(posedge clk) begin\n        if (start) begin{reset_filled}{clear}\n        end else if (ld_go) begin{step}{set_filled}\n        end\n    end",
                    if late { "" } else { "\n    integer fk;" }
                )
            };
            let _ = writeln!(
                o,
                "    // Its line was fetched already{note}: no DDR read.\n    wire ld_filled;  // filled[ld_idx]\n    wire hit = ld_filled{cond}{}{};{block}{}",
                if tag { format!(" && {} == ld_tag", cache.tags().read("ld_idx")) } else { String::new() },
                if fine { " && fresh" } else { "" },
                if fetched.is_empty() { String::new() } else { format!("\n    always @(posedge clk) if (ld_miss) begin {} end", fetched.join(" ")) },
            );
            // The edges' changes to the bits: a miss sets filled and awaiting and sets current to
            // whether the line's stores had landed; after the fetch, a store that does not write
            // into its entry's line clears current; the fill of an entry's last miss clears
            // awaiting.
            let missed = change("ld_miss", "ld_idx", "1'b1");
            let fetched = change("ld_miss", "ld_idx", "fetch_current");
            let stored = change("st_go && !st_here", "st_idx", "1'b0");
            let filled_last = change("fill_last", "fill_idx", "1'b0");
            // Where the bits are written a cycle late, the writes still to land (a later write
            // over an earlier one).
            let (mut filled_pending, mut current_pending, mut awaiting_pending) = (Vec::new(), Vec::new(), Vec::new());
            if late {
                filled_pending = deferred::write(o, "filled", lines, ib, std::slice::from_ref(&missed), ("start", &format!("{lines}'d0")));
                if fine {
                    let writes = [fetched.clone(), stored.clone()];
                    current_pending = deferred::write(o, "current", lines, ib, &writes, ("rst || start", &format!("~{lines}'d0")));
                    let writes = [filled_last.clone(), missed.clone()];
                    awaiting_pending = deferred::write(o, "awaiting", lines, ib, &writes, ("rst || start", &format!("{lines}'d0")));
                }
            }
            // The σ-next load's line's bits (the edge's changes first first), and the store's as
            // it enters sb (`text::Fresh`).
            let loads = self.loads_ahead();
            let next = filled::NextLine::new(o, cache, self.xw, &loads);
            next.bit(o, "filled", &filled_pending, std::slice::from_ref(&missed), ("start", "1'b0"));
            if fine {
                next.bit(o, "current", &current_pending, &[stored, fetched], ("rst || start", "1'b1"));
                if late {
                    // A store sets its entry's bit; the last edge's B, which clears the bits of
                    // a whole burst, is left out (`Fresh`'s note).
                    o.push_str("    wire ld_in_flight;  // in_flight[ld_idx]\n");
                    next.bit(o, "in_flight", &[], &[change("st_go", "st_idx", "1'b1")], ("rst || start", "1'b0"));
                }
            }
            if let Some(sa) = &store_line {
                o.push_str("    wire sa_filled, sa_awaiting;  // filled[sa_idx], awaiting[sa_idx]\n");
                sa.bit(o, "filled", &filled_pending, std::slice::from_ref(&missed), ("start", "1'b0"));
                sa.bit(o, "awaiting", &awaiting_pending, &[missed, filled_last], ("rst || start", "1'b0"));
            }
            if self.read_ahead() {
                ahead::update(o, cache.lane_bits);
            }
        }
    }

    /// The cached line of the head, read from block RAM a cycle ahead (a registered read is
    /// what lets the lines be block RAM, [`Cache::block_ram`]): at every edge, the line of the
    /// entry that is the head after it; the line a miss writes at that edge is taken from the
    /// R beat instead.
    fn cache_read(&self, o: &mut String, rd: &str) {
        let (ib, lw) = (self.cache.index_bits, AXI_DATA_BITS - 1);
        let _ = writeln!(
            o,
            "    // The cache's lines are block RAM, read a cycle ahead: at each edge, the line of the\n    // entry that is the head after it (where the queue empties, the σ-next load's, whether it\n    // issues or not: without it the queue is empty and the line unused; a full queue's tail\n    // is its head).\n    reg [{i}:0] q_idx [0:{}];\n    always @(posedge clk) if (ld_go) q_idx[q_tail] <= ld_idx;\n    // Both candidates are read from registers (the head and the entry after it), the fan-out\n    // only choosing.\n    wire [{i}:0] n_idx_stay = q_any ? h_idx : ld_idx;\n    wire [{i}:0] n_idx_pop = q_head1 == q_tail ? ld_idx : q_idx[q_head1];\n    wire [{i}:0] n_idx = fire ? n_idx_pop : n_idx_stay;\n    reg [{lw}:0] n_line;\n    always @(posedge clk) n_line <= lines[n_idx];\n    // A miss that fills that line at the same edge: its beat, not the RAM's old line (each\n    // candidate compared with the head before the choice, the σ-next load's coming late).\n    reg n_filled;\n    reg [{lw}:0] n_fill;\n    always @(posedge clk) begin\n        n_filled <= fire && h_miss && (q_head1 == q_tail ? h_idx == ld_idx : h_idx == q_idx[q_head1]);\n        n_fill <= {};\n    end\n    assign h_cached = n_filled ? n_fill : n_line;",
            QUEUE - 1,
            rd,
            i = ib - 1,
        );
    }

    /// The issue queue and the fan-out from its head.
    fn issue_queue(&self, o: &mut String, fan_out: &FanOut, act: &mut Activity) {
        let FanOut { fan, fields } = fan_out;
        let &Plan { shape, local, ordered, cached, has_loads, has_stores, ew, vw, xw, .. } = self;
        // The issue queue and the fan-out from its head.
        let qa = index_bits(QUEUE);
        // What the simulator counts: an access issued or a value fanned out (work); a fan-out
        // waiting for its DDR beat or a store for its value (inputs); a fan-out waiting for room.
        if has_stores {
            act.wait_in.push("(st_want && !pop_ok)".to_string());
        }
        if has_loads {
            let qw: u32 = fields.iter().map(|f| f.width).sum();
            let _ = writeln!(
                o,
                "    // Issue queue: per load issued and not yet fanned out, in σ order: {}.\n    localparam [{qa}:0] QUEUE = {}'d{QUEUE};\n    reg [{}:0] q_mem [0:{}];\n    reg [{}:0] {}q_tail;\n    reg [{qa}:0] q_count;\n    wire [{qa}:0] q_up = q_count + {w}'d1, q_down = q_count - {w}'d1;\n    reg q_any, q_room;  // q_count != 0 and q_count != QUEUE, as registers: the issue and the fan-out start at flip-flops\n    wire [{}:0] q_in = {{{}}};\n    // The head's entry, a register: the fan-out starts at flip-flops, not at the queue's read.\n    reg [{}:0] q_out;\n    reg [{}:0] q_head1;  // the place after the head",
                fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", "),
                qa + 1,
                qw - 1,
                QUEUE - 1,
                qa - 1,
                // The head's place, where write after read clears its cell's bit.
                if ordered { "q_head, " } else { "" },
                qw - 1,
                fields.iter().map(|f| f.value.as_str()).collect::<Vec<_>>().join(", "),
                qw - 1,
                qa - 1,
                w = qa + 1
            );
            unpack(o, "q_out", fields, "h_");
            // Where the R beats wait for the head: a lane's buffer (in the lanes' cell, behind
            // the lane's read channel) or this module's (`read_side.v`).
            let (rv, rd, rr) = if shape.lane.is_some() { ("m_rvalid", "m_rdata", "m_rready") } else { ("rb_valid", "rb_data", "rb_ready") };
            if !local && shape.lane.is_none() {
                let _ = writeln!(
                    o,
                    "    wire rb_valid, rb_ready;  // the read buffer's oldest beat\n    wire [{}:0] rb_data;",
                    AXI_DATA_BITS - 1
                );
            }
            // A cache of block RAM gives the head's line a cycle after its index (`cache_read`).
            let block_ram = cached && self.cache.block_ram();
            let value = if local {
                "h_value".to_string()
            } else {
                let (declared, cached_line) = if block_ram {
                    (format!("    wire [{}:0] h_cached;\n", AXI_DATA_BITS - 1), "h_cached")
                } else {
                    (String::new(), "lines[h_idx]")
                };
                let _ = writeln!(
                    o,
                    "    // The head's line (its R beat on a miss, the cache on a hit) and its element.\n{}    wire [{lw}:0] h_line = h_miss ? {rd} : {};\n    wire [{lw}:0] h_shift = h_line >> {{h_lane, {}'d0}};",
                    declared,
                    cached_line,
                    ew.trailing_zeros(),
                    lw = AXI_DATA_BITS - 1
                );
                act.unused.push("h_shift".into());
                format!("h_shift[{}:0]", vw - 1)
            };
            let beat = if local { "1'b1".to_string() } else { format!("(!h_miss || {rv})") };
            o.push_str("    // Fan-out of the head once its value is there; it leaves once every target has it.\n");
            fan.write(o, &beat, &value, vw, ew);
            if block_ram {
                self.cache_read(o, rd);
            }
            let head = "q_any";
            act.work.push("fire".into());
            act.wait_out.push(format!("({head} && {beat} && !can)"));
            if !local {
                act.wait_in.push(format!("({head} && h_miss && !{rv})"));
                let _ = writeln!(o, "    assign {rr} = {head} && h_miss && can;");
            }
            let _ = writeln!(
                o,
                "    always @(posedge clk) if (ld_go) q_mem[q_tail] <= q_in;\n    // The head after this edge: the entry after it on a fan-out, the entry pushed into an\n    // empty queue.\n    always @(posedge clk)\n        q_out <= fire ? (q_head1 == q_tail ? q_in : q_mem[q_head1]) : q_any ? q_out : q_in;\n    always @(posedge clk) begin\n        if (rst || start) begin\n{}            q_head1 <= {qa}'d1;\n            q_tail <= {qa}'d0;\n            q_count <= {w}'d0;\n            q_any <= 1'b0;\n            q_room <= 1'b1;\n        end else begin\n            if (ld_go) q_tail <= q_tail + {qa}'d1;\n            if (fire) begin\n{}                q_head1 <= q_head1 + {qa}'d1;\n            end\n            // Both sums from the register, the issue only selecting (as gates: a multiplexer\n            // would become one adder after it).\n            if (ld_go != fire) q_count <= (q_up & {{{w}{{ld_go}}}}) | (q_down & {{{w}{{fire}}}});\n            if (ld_go && !fire) begin\n                q_any <= 1'b1;\n                q_room <= q_count != QUEUE - {w}'d1;\n            end else if (!ld_go && fire) begin\n                q_any <= q_count != {w}'d1;\n                q_room <= 1'b1;\n            end\n        end\n    end",
                if ordered { format!("            q_head <= {qa}'d0;\n") } else { String::new() },
                if ordered { "                q_head <= q_head1;\n" } else { "" },
                w = qa + 1
            );
            let fill = format!("if (fire && h_miss) lines[h_idx] <= {rd};");
            if cached && self.fine {
                // A store whose line is cached writes its bytes into it (`text::Fresh`), on the
                // port a miss fills lines through, at edges where none does.
                let _ = writeln!(
                    o,
                    "    integer sb;\n    always @(posedge clk) begin\n        {fill}\n        else if (st_go && st_here)\n            for (sb = 0; sb < {LINE_BYTES}; sb = sb + 1) if (st_strb[sb]) lines[st_idx][8 * sb +: 8] <= st_data[8 * sb +: 8];\n    end"
                );
            } else if cached {
                let _ = writeln!(o, "    always @(posedge clk) {fill}");
            }
            if ordered {
                // With vector lanes a store writes a vector's cells, and a load of a value every
                // lane reads may take any one of them: they compare vectors.
                let same = |cell: &str| match shape.simd {
                    1 => format!("q_cell[wi] == {cell}"),
                    w => format!("(q_cell[wi] >> {lg}) == ({cell} >> {lg})", lg = w.trailing_zeros()),
                };
                let _ = writeln!(
                    o,
                    "    // The queued loads' cells, for write after read. (Loads pass the stores of their band, so\n    // counting every earlier read would wait on later ones.)\n    reg [{x}:0] q_cell [0:{}];\n    reg [{}:0] q_v;\n    always @(posedge clk) if (ld_go) q_cell[q_tail] <= ld_cell;\n    integer qk;\n    always @(posedge clk) begin\n        if (rst || start) q_v <= {QUEUE}'d0;\n        else\n            for (qk = 0; qk < {QUEUE}; qk = qk + 1) begin\n                if (ld_go && q_tail == qk[{qb}:0]) q_v[qk] <= 1'b1;\n                if (fire && q_head == qk[{qb}:0]) q_v[qk] <= 1'b0;\n            end\n    end\n    wire [{x}:0] sa_cell = sa_cell_full[{x}:0];",
                    QUEUE - 1,
                    QUEUE - 1,
                    x = xw - 1,
                    qb = qa - 1,
                );
                stage::write_after_read(o, &same, &self.side(false), QUEUE, qa + 1);
            }
            act.quiet.push(format!("q_count == {}'d0", qa + 1));
            if self.read_ahead() {
                // The read-ahead stops a cycle after the generators (`ahead::update`).
                act.quiet.push("!ra_on".into());
            }
        }
    }

    /// Whether the σ-next load's line is the open burst's next (`bl_end`; that it lies in the
    /// burst's 4 KiB page is the read side's `bl_last_page`), as [`Self::for_next_load`] works
    /// it out.
    fn extends_burst(&self) -> String {
        self.for_next_load(&|who| self.line_is_burst_end(who))
    }

    /// Whether source `who`'s line (`g<g>` or `ra`) is the open burst's next.
    fn line_is_burst_end(&self, who: &str) -> String {
        let lb = self.cache.lane_bits;
        let line_bits = (self.xw + 1).saturating_sub(lb).max(1);
        format!("{who}_cell[{}:{lb}] == bl_end", lb + line_bits - 1)
    }

    /// `ld_go` and `ld_miss` where the read side decides per generator ([`Self::load_goes`]):
    /// whether each generator's load would go if picked (`g<g>_go`) and hit, from its own
    /// registers beside the pick, and `ld_go`, `ld_miss` the picked generator's (the picks are
    /// exclusive). `wait_for_bands`: loads wait for earlier bands' write responses.
    fn goes(&self, wait_for_bands: bool) -> String {
        let wait = if wait_for_bands { "w_old == 16'd0 && (w_out == 16'd0 || ld_same_band) && " } else { "" };
        let mut o = String::from("    // Whether each generator's load would go if picked; the pick chooses among the answers.\n");
        let (mut go, mut miss) = (Vec::new(), Vec::new());
        for g in self.side(true) {
            let mut hit = filled::source_bit("ld", "filled", &format!("g{g}"));
            if self.fine {
                hit = format!("{hit} && {}", filled::source_bit("ld", "current", &format!("g{g}")));
            }
            let extends = format!("bl_growing && {}", self.line_is_burst_end(&format!("g{g}")));
            let _ = writeln!(
                o,
                "    wire g{g}_hit = {hit};\n    assign g{g}_go = state == RUN && l_gate && g{g}_ready && {wait}q_room && (g{g}_hit || ({extends}) || !bl_v || ar_free);"
            );
            go.push(format!("(pick{g} && g{g}_go)"));
            miss.push(format!("(pick{g} && g{g}_go && !g{g}_hit)"));
        }
        let _ = writeln!(o, "    assign ld_go = {};\n    wire ld_miss = {};  // a load that reads DDR", go.join(" || "), miss.join(" || "));
        o
    }

    /// `f` of the σ-next load, `f(who)` over the registers of its source `who` (a generator's
    /// head `g<g>`, or the read-ahead `ra`): worked out for each source beside the pick, which
    /// only chooses among the answers, so that `f` is not behind the pick's multiplexer of
    /// cells and addresses.
    fn for_next_load(&self, f: &dyn Fn(&str) -> String) -> String {
        let gens = any_of(self.side(true).iter().map(|g| format!("(pick{g} && {})", f(&format!("g{g}")))).collect(), "1'b0");
        match self.read_ahead() {
            true => format!("(ra_want ? ({}) : ({gens}))", f("ra")),
            false => format!("({gens})"),
        }
    }

    /// The AXI write side, then the read side (which needs the write side's counters).
    fn sides(&self, o: &mut String, act: &mut Activity, staged: &[stage::Field]) {
        let &Plan { shape, local, ordered, staged: has_stage, fine, has_loads, has_stores, bk, vb, vw, size, ref landed, .. } = self;
        let bw = index_bits(BURST.max(READ_BURST) + 1);
        let hw = index_bits(HOLD + 1);
        if !local && (has_loads || has_stores) {
            let _ = writeln!(o, "    localparam [{}:0] HOLD = {hw}'d{HOLD};", hw - 1);
        }
        if !local && has_stores {
            let _ = writeln!(o, "    localparam [{}:0] BURST = {bw}'d{BURST};", bw - 1);
        }
        if !local && has_loads {
            let _ = writeln!(o, "    localparam [{}:0] RBURST = {bw}'d{READ_BURST};", bw - 1);
        }
        let len8 = |x: &str| if bw < 8 { format!("{{{}'d0, {x} - {bw}'d1}}", 8 - bw) } else { format!("{x} - {bw}'d1") };

        // The write side, then the read side (which needs the write side's counters).
        if local {
            if has_stores {
                let _ = writeln!(o, "    assign st_go = st_want && pop_ok;");
            }
            if has_loads {
                let _ = writeln!(o, "    assign ld_go = ld_want && q_room;");
            }
        }
        let wc = index_bits(WBUF) + 1;
        let w = Widths { bw, hw, lb: LINE_BYTES, size, wc };
        if !local && has_stores {
            if ordered {
                let same = self.load_in_store_band();
                let bands = (0..bk).map(|k| format!("w_band{k}")).collect::<Vec<_>>().join(", ");
                o.push_str(&render(Order { fine, bands, ld_same: same }));
            }
            o.push_str(&render(WriteSide {
                w: &w,
                ordered,
                staged: has_stage,
                fine,
                landed: LANDED,
                wbuf: WBUF,
                data: AXI_DATA_BITS,
                ew: vw,
                eb: vb,
                len: len8("wb_beats"),
                slots: Slots::new(AXI_DATA_BITS, vw, vb),
            }));
            if has_stage {
                // Only where the order matters is a store's band compared.
                let bands: Vec<usize> = staged.iter().filter_map(|f| f.name.strip_prefix("band")?.parse().ok()).collect();
                stage::last(o, ordered.then_some(&bands[..]), size);
            }
            if ordered {
                let sets: Vec<String> = (0..bk).map(|k| format!("w_band{k} <= st_band{k};")).collect();
                o.push_str(&render(OrderUpdate { fine, sets: sets.join(" ") }));
            }
            if fine {
                o.push_str(&render(SourcesUpdate { s: landed }));
            }
            act.quiet.push(format!("!wb_v && !aw_v && wf_count == {wc}'d0 && w_out == 16'd0"));
        } else if !local && (shape.lane.is_none() || shape.writes) {
            o.push_str(&idle_write_side());
            act.unused.extend(["m_awready", "m_wready", "m_bvalid"].map(String::from));
        }
        if !local && has_loads {
            // A lane's AR has neither size nor burst type: the lanes' port sets them.
            o.push_str(&render(ReadSide {
                w: &w,
                extends: self.extends_burst(),
                goes: self.load_goes().then(|| self.goes(has_stores && !fine)),
                wait_for_bands: has_stores && !fine,
                len: len8("bl_beats"),
                lane: shape.lane.is_some(),
                buffer: read_buffer(vb as usize),
                data: AXI_DATA_BITS,
                line_bits: (self.xw + 1).saturating_sub(self.cache.lane_bits).max(1),
            }));
            act.quiet.push("!bl_v && !ar_v".into());
        } else if !local {
            // A lane's AR has neither size nor burst type (above).
            let _ = writeln!(
                o,
                "    assign m_arvalid = 1'b0;\n    assign m_araddr = 64'd0;\n    assign m_arlen = 8'd0;{}\n    assign m_rready = 1'b0;",
                if shape.lane.is_some() {
                    String::new()
                } else {
                    format!("\n    assign m_arsize = 3'd{size};\n    assign m_arburst = 2'b01;")
                }
            );
            act.unused.extend(["m_arready", "m_rvalid", "m_rdata"].map(String::from));
        }
    }

    /// Unused inputs, the simulator's counts, and start, run and done.
    fn control(&self, o: &mut String, mut act: Activity) {
        let &Plan { shape, local, len, .. } = self;
        if !local && shape.lane.is_none() {
            act.unused.extend(["m_bresp", "m_rlast", "m_rresp"].map(String::from));
        } else if shape.lane.is_some() && shape.writes {
            act.unused.push("m_bresp".into());
        }
        if !act.unused.is_empty() {
            let _ = writeln!(o, "    wire unused = &{{1'b0, {}}};  // responses are OKAY, beats counted", act.unused.join(", "));
        }

        let (work, wait_out) = (act.work.join(" || "), any_of(act.wait_out, "1'b0"));
        let wait_in = format!("!stat_work && !({wait_out}) && ({})", any_of(act.wait_in, "1'b0"));
        let stats = [work, wait_in, format!("!stat_work && ({wait_out})")];
        if shape.lane.is_some() {
            for (w, cond) in crate::process::STAT_WIRES.iter().zip(&stats) {
                let _ = writeln!(o, "    assign {w} = {cond};");
            }
        } else {
            o.push_str(&crate::process::stat_wires(&[&stats[0], &stats[1], &stats[2]]));
        }
        o.push('\n');

        // Start (clearing what the process holds), run, done once everything issued has landed.
        let _ = writeln!(
            o,
            "    always @(posedge clk) begin\n        if (rst) begin\n            state <= IDLE;\n            done <= 1'b0;\n        end else if (start) begin\n            state <= {};\n            done <= 1'b0;{}\n        end else if (state == RUN && {}) begin\n            state <= IDLE;\n            done <= 1'b1;\n        end\n    end\nendmodule\n",
            if local { "CLEAR" } else { "RUN" },
            if local {
                format!("\n            clear <= 64'd0;\n        end else if (state == CLEAR) begin\n            if (clear == 64'd{}) state <= RUN;\n            else clear <= clear + 64'd1;", len - 1)
            } else {
                String::new()
            },
            act.quiet.join(" && ")
        );
    }
}

/// The value of the generator its side picks (`pick<g>`), from `values`, one per generator of
/// the side: only read where that side issues (`ld_go`, `st_go`), which its pick then does, so
/// no generator's turn (`win<g>`), and with it the comparison between the sides, lies before
/// it; `zero` where the side has none.
fn by_pick(values: impl IntoIterator<Item = (usize, String)>, zero: &str) -> String {
    select(values.into_iter().map(|(g, v)| (format!("pick{g}"), v)), zero)
}

/// The value of the (condition, value) pair whose condition holds, of `width` bits, as gates:
/// the conditions are exclusive, so the values meet in one OR rather than a chain of choices
/// (a value that comes late, a store's from its channel, then waits for one level, not for
/// one per pair); zero where none holds, the value itself where it is the only one.
fn one_hot(values: impl IntoIterator<Item = (String, String)>, width: u32) -> String {
    let values: Vec<(String, String)> = values.into_iter().collect();
    match &values[..] {
        [] => format!("{width}'d0"),
        [(_, v)] => v.clone(),
        _ => values.iter().map(|(when, v)| format!("({{{width}{{{when}}}}} & {v})")).collect::<Vec<_>>().join(" | "),
    }
}

/// The value of the first (condition, value) pair whose condition holds, the last's where none
/// does (the conditions are exclusive and one holds); `zero` where there is none.
pub(super) fn select(values: impl IntoIterator<Item = (String, String)>, zero: &str) -> String {
    let values: Vec<(String, String)> = values.into_iter().collect();
    match &values[..] {
        [] => zero.to_string(),
        [(_, v)] => v.clone(),
        [arms @ .., (_, last)] => {
            let arms: Vec<String> = arms.iter().map(|(when, v)| format!("{when} ? {v} :")).collect();
            format!("{} {last}", arms.join(" "))
        }
    }
}

/// A template's text. Each ends a line, and askama drops a template file's last newline, so
/// it is put back here. Rendering writes into a `String` and reads only the template's own
/// fields, so it cannot fail.
fn render(t: impl Template) -> String {
    t.render().expect("a memory template renders into a String") + "\n"
}

/// The value for generator `g`'s head after this edge, of a register worked out for the head
/// (its address, cell, σ order, source check): `head`'s (the head stays), `next`'s (the entry
/// after it, on a pop) or `pushed`'s (the queue empties, or was empty).
pub(super) fn for_head(g: usize, head: &str, next: &str, pushed: &str) -> String {
    format!("g{g}_stays ? {head} : g{g}_moves ? {next} : {pushed}")
}

/// The value for generator `g`'s entry after the head after this edge, of a register worked
/// out for it (meaningful while there is one): `next`'s (it stays), `after`'s (the entry after
/// it, on a pop) or `pushed`'s (the point pushed becomes it).
fn next_entry(g: usize, next: &str, after: &str, pushed: &str) -> String {
    format!("g{g}_pop ? (g{g}_fq[2] ? {after} : {pushed}) : g{g}_fq[1] ? {next} : {pushed}")
}

/// [`for_head`] chosen by gates, for values of `width` bits: where the three are sums or
/// comparisons, behind a multiplexer on the pop (late in the cycle) Yosys would merge them into
/// one after it.
pub(super) fn for_head_by_gates(g: usize, head: &str, next: &str, pushed: &str, width: u32) -> String {
    let all = |c: &str| if width == 1 { c.to_string() } else { format!("{{{width}{{{c}}}}}") };
    format!(
        "({head} & {}) | ({next} & {}) | ({pushed} & {})",
        all(&format!("g{g}_stays")),
        all(&format!("g{g}_moves")),
        all(&format!("!g{g}_stays && !g{g}_moves"))
    )
}
