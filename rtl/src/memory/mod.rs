//! The memory process of one array: what its Load and Store processes do, merged by σ (as in
//! the Vitis backend), on one AXI4 master port. Each channel it serves has a generator (the
//! consumer's or producer's walker, filtered by the channel's first-use or demux condition,
//! keyed by σ, running ahead into a queue of [`AHEAD`] accesses); among the loads, and among the
//! stores, the smallest key goes next (`winner` says when each may go). A
//! generator still walking towards its next access does not hold the others back: it walks in
//! σ order, so the last point it held bounds its next access from below.
//!
//! The memory's latency (tens of cycles per request) must not be paid per access, so the
//! process is a pipeline:
//! * **Issue** (a load and a store per cycle at most): a load goes into an in-order *issue
//!   queue* ([`QUEUE`] entries) with everything its fan-out needs later (target channels,
//!   scratchpad cells, its line in the load cache, `Cache`, and its place there); a load whose
//!   line the band has not fetched yet (a miss) adds the line to the *open read burst*. A
//!   store pops its value into the held beat of the *open write burst*.
//! * **Bursts**: beats are whole [`LINE_BYTES`] lines ([`AXI_DATA_BITS`] wide). Misses to
//!   consecutive lines grow one INCR burst, up to [`READ_BURST`] beats, and so do stores to the
//!   next line (stores to the held line merge into its beat), up to [`BURST`] beats, never
//!   across 4 KiB; a burst is sent when the next access does not extend it, when it is full, or
//!   after [`HOLD`] cycles without growing, so it never waits long for an access that is
//!   blocked elsewhere. A read burst goes only when the read buffer has room for its beats, so
//!   `rready` is always high.
//! * **Fan-out**: R beats come back in order into the read buffer; the queue's head takes its
//!   beat from there on a miss (and fills its line) or its line from the cache on a hit, and its
//!   element goes to all its channels in one cycle (waiting while one of them is full), so every
//!   channel sees its values in σ order. ARs take no channel space, so issuing ahead cannot
//!   deadlock the network.
//! * **DDR order**: a load waits for the write responses (B) of the stores of earlier bands
//!   only. A band never loads a value it produces (that one stays on chip), so a store of the
//!   band that comes first in σ never writes a cell a later load of the band reads: that would
//!   make the load's value come from the band. So loads pass the stores of their own band (a
//!   store waiting for its value does not hold back the loads of later points), while loads
//!   and stores each stay in σ order among themselves. A store waits while a load of its cell
//!   is still in the issue queue, so no store overtakes an earlier read of its cell ([`stage`]:
//!   the store is compared in one register stage and issues from the next). Stores are
//!   posted: their B responses are only counted.
//!
//!   Where the network gives every load its DDR source (`Channel::ddr_source`: the σ key of
//!   the last store to its cell before it), a load waits for that store only, not for whole
//!   bands: stores go in σ order and their B responses come back in order, so it has landed
//!   once a burst holding it or a later one is acknowledged. Then a band's loads overlap the
//!   end of the band before it (GEMM's next tile of C, BICG's next partial sums of q). The
//!   line cache then keeps, per entry, whether a store to it issued since its fetch without
//!   writing into the cached line (`text::Fresh`: a store whose line is there writes its cells
//!   into it too, so the loads after it still hit), and whether its last store is still in
//!   flight (a bit the B of that store's burst clears).
//!
//! A temporary of the kernel (`VarKind::Local`) has no DDR: it lives in a memory here, read at
//! issue and written at issue, with the same queue for its fan-out.
//!
//! An array the kernel only reads, whose loads go to several groups of consumers, is served
//! by [`lanes`]: several such modules, each with a share of the generators, on one port.

mod ahead;
mod deferred;
mod fan;
mod filled;
mod lanes;
mod module;
mod pick;
mod sources;
mod stage;
mod text;

use crate::process::{cell_wire, need, port_decls, ports, pred_v, Words};
use crate::verilog::{aff, bits, bits_for, functions, index_bits, key, lit};
use crate::RtlError;
use dpnc_dpn::ir::{ChannelKind, Dpn, Key, ProcessKind};
use dpnc_dpn::predicate::Predicate;
use dpnc_frontend::ir::{Access, Program, VarKind};
use module::module;
use std::fmt::Write;

/// Loads issued and not yet fanned out: at one load a cycle, the head reaches a miss when its
/// beat is due, so the queue must cover a miss's whole way: the open burst's wait ([`HOLD`]),
/// the memory's latency (64 cycles in `dpn_sim`'s model, up to 32 more of jitter) and the read
/// buffer. Small enough for distributed RAM.
pub const QUEUE: usize = 128;
/// Width of every `m_axi` data bus: the 512 bits at which a Vitis kernel reaches a bank's full
/// bandwidth at the kernel clock (a DDR4 DIMM's own 64-bit bus runs at a higher clock).
pub const AXI_DATA_BITS: u32 = 512;
/// Bytes in one beat, and in one line of the load cache: what one read fetches.
pub const LINE_BYTES: usize = AXI_DATA_BITS as usize / 8;
/// Most beats in one write burst: one 4 KiB page of lines (`len` fits in 8 bits).
pub const BURST: usize = 4096 / LINE_BYTES;
/// Most beats in one read burst. A read is issued only when the buffer its beats land in has
/// room for all of them ([`READ_BUFFER`]), so that R never waits on a consumer (two arrays on
/// one bank cannot hold back each other's data); the buffer holds two bursts, so the port
/// streams while the consumers drain it.
pub const READ_BURST: usize = 16;
/// Beats a read buffer holds: a memory module's (`read_side.v`, at least) or a lane's
/// (`dpn_read_lanes`).
pub const READ_BUFFER: usize = 2 * READ_BURST;
/// Cycles of a read's way that a memory module's read buffer covers at one load a cycle: the
/// model's latency (64 cycles) and jitter (up to 32), and the open burst's wait, rounded up.
/// Reads in flight are bounded by the buffer's room, so a module whose loads move whole beats
/// (vector lanes) would otherwise wait for the memory at a third of its bank's bandwidth.
const COVERED_CYCLES: usize = 128;

/// Beats the read buffer of a memory module holds whose loads move `access_bytes` each: enough
/// for the reads in flight while [`COVERED_CYCLES`] pass at one load a cycle, at least
/// [`READ_BUFFER`].
fn read_buffer(access_bytes: usize) -> usize {
    READ_BUFFER.max((COVERED_CYCLES * access_bytes).div_ceil(LINE_BYTES).next_power_of_two())
}
/// Most lines the load cache of one array holds (32 KiB of 512-bit lines): a tile of a
/// matrix read down its columns stays in it while the band uses it, and so do the lines it
/// shares with the next band's tile (BiCG's sequential tiles of 32 columns touch up to 372
/// lines of A). So many lines are block RAM, read a cycle ahead of the fan-out that takes them
/// ([`Cache::block_ram`]): 512 lines are fifteen RAMB18s at 512 × 36, as many as 256 would
/// take. The tags, read in the cycle they are addressed, are LUT RAM.
pub const CACHE_LINES: usize = 512;
/// Lines from which a load cache keeps its lines in block RAM ([`Cache::block_ram`]).
const BLOCK_RAM_LINES: usize = 256;
/// Accesses a generator finds ahead of its turn (a power of two): enough for a walker that
/// passes a few points between two first uses to keep up while others take their turns.
pub const AHEAD: usize = 8;
/// Cycles an open burst waits for its next element before it is sent.
pub const HOLD: usize = 8;
/// W beats buffered; at least [`BURST`], so an open write burst can always close.
const WBUF: usize = BURST;

#[derive(Clone)]
struct Gen<'a> {
    c: usize,
    load: bool,
    /// The compute process whose nest it walks, and its statement.
    pi: usize,
    stmt: usize,
    access: &'a Access,
    cond: &'a Predicate,
}

impl Gen<'_> {
    /// Its key in the merge: its statement's σ, then its place, a load's port or `after_ports`
    /// for a store (after the loads of its point).
    fn key(&self, dpn: &Dpn, after_ports: i64) -> Vec<Key> {
        let place = if self.load { dpn.channels[self.c].port.unwrap_or(0) as i64 } else { after_ports };
        dpn.schedules[self.stmt].sigma.iter().cloned().chain([Key::Const(place)]).collect()
    }
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
    ("wdata", true, AXI_DATA_BITS),
    ("wstrb", true, AXI_DATA_BITS / 8),
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
    ("rdata", false, AXI_DATA_BITS),
    ("rlast", false, 1),
    ("rresp", false, 2),
];

/// A field of an issue-queue entry: its name (`h_<name>` at the head), width, and value at issue.
struct Field {
    name: String,
    width: u32,
    value: String,
}

/// Wires `<prefix><name>` for `fields` packed in `word`, the first in the high bits; some may
/// go unused.
fn unpack(o: &mut String, word: &str, fields: &[Field], prefix: &str) {
    let mut at: u32 = fields.iter().map(|f| f.width).sum();
    o.push_str("    // verilator lint_off UNUSEDSIGNAL\n");
    for f in fields {
        at -= f.width;
        let (decl, range) = match f.width {
            1 => (String::new(), format!("{at}")),
            w => (format!("[{}:0] ", w - 1), format!("{}:{at}", at + w - 1)),
        };
        let _ = writeln!(o, "    wire {decl}{prefix}{} = {word}[{range}];", f.name);
    }
    o.push_str("    // verilator lint_on UNUSEDSIGNAL\n");
}

/// The load cache of one array: direct-mapped, one [`LINE_BYTES`] line per entry. Where the array
/// is only read, or its loads wait for their own sources ([`text::Fresh`] refetches a line a store
/// reached after its fetch, unless the store wrote into it), a line stays valid. Otherwise it is
/// valid for the band that fetched it only: a band never loads a cell it stores (that value stays
/// on chip), so within a band what a line holds of the cells it loads is current, and a later band
/// fetches it again after the earlier bands' stores have landed. Tags and stamps change at issue
/// and the lines at fan-out, both in issue order, so a hit finds its line filled by the miss before
/// it, whatever comes after.
struct Cache {
    /// Entries, a power of two.
    lines: usize,
    /// Bits of an entry's index, of the tag above it (0: every line has its own entry), and of
    /// an element's place in its line.
    index_bits: u32,
    tag_bits: u32,
    lane_bits: u32,
}

/// A table of the load cache read in the cycle it is addressed (LUT RAM), written at the
/// same entry it is read at. It is declared in banks of at most [`LUT_RAM_BANK`] entries: Yosys
/// 0.23 cannot map a deeper single-port LUT RAM for UltraScale+.
struct Table {
    name: &'static str,
    entries: usize,
    width: u32,
}

/// Most entries of one bank of a [`Table`].
const LUT_RAM_BANK: usize = 256;

impl Table {
    fn banks(&self) -> usize {
        self.entries.div_ceil(LUT_RAM_BANK)
    }
    fn declare(&self) -> String {
        let per = self.entries.min(LUT_RAM_BANK);
        (0..self.banks()).map(|b| format!("    reg [{}:0] {} [0:{}];\n", self.width - 1, self.bank(b), per - 1)).collect()
    }
    /// Bank `b`'s name: the table's own where it is one bank.
    fn bank(&self, b: usize) -> String {
        if self.banks() == 1 {
            self.name.to_string()
        } else {
            format!("{}_{b}", self.name)
        }
    }
    /// Per bank: the condition that index wire `idx` falls in it, and its entry there.
    fn places(&self, idx: &str) -> Vec<(String, String)> {
        if self.banks() == 1 {
            return vec![("1'b1".into(), format!("{}[{idx}]", self.name))];
        }
        let (low, top) = (LUT_RAM_BANK.trailing_zeros(), self.entries.trailing_zeros() - 1);
        (0..self.banks())
            .map(|b| (format!("{idx}[{top}:{low}] == {}'d{b}", top + 1 - low), format!("{}[{idx}[{}:0]]", self.bank(b), low - 1)))
            .collect()
    }
    /// The entry at index wire `idx`.
    fn read(&self, idx: &str) -> String {
        let mut places = self.places(idx).into_iter();
        let (_, first) = places.next().expect("a table has a bank");
        places.rev().fold(first, |rest, (when, entry)| format!("({when} ? {entry} : {rest})"))
    }
    /// A statement writing `value` at index wire `idx`.
    fn write(&self, idx: &str, value: &str) -> String {
        match &self.places(idx)[..] {
            [(_, entry)] => format!("{entry} <= {value};"),
            places => places.iter().map(|(when, entry)| format!("if ({when}) {entry} <= {value};")).collect::<Vec<_>>().join(" "),
        }
    }
}

impl Cache {
    /// The table of each line's tag.
    fn tags(&self) -> Table {
        Table { name: "tag", entries: self.lines, width: self.tag_bits }
    }
    /// The table of the band each line was fetched in.
    fn stamps(&self) -> Table {
        Table { name: "stamp", entries: self.lines, width: 32 }
    }
    /// The table of `text::Fresh`: per line, the number of its last miss.
    fn miss_nos(&self) -> Table {
        Table { name: "miss_no", entries: self.lines, width: 16 }
    }

    /// Whether its lines are block RAM: fifteen RAMB18s hold up to 512 lines, and in LUT RAM
    /// 256 lines would take about 2,300 LUTs; fewer lines stay LUT RAM, read in the cycle they
    /// are addressed.
    fn block_ram(&self) -> bool {
        self.lines >= BLOCK_RAM_LINES
    }

    fn new(len: usize, elem_bytes: usize) -> Self {
        let per_line = LINE_BYTES / elem_bytes;
        let array_lines = len.div_ceil(per_line);
        let lines = array_lines.next_power_of_two().clamp(2, CACHE_LINES);
        let (ib, lb) = (lines.trailing_zeros(), index_bits(array_lines));
        Cache { lines, index_bits: ib, tag_bits: lb.saturating_sub(ib), lane_bits: per_line.trailing_zeros() }
    }

    /// Its table, its lines, and the σ-next load's line split into index, tag and lane; with
    /// `stores_tracked` ([`text::Fresh`]), the σ-next store's entry too.
    fn declare(&self, o: &mut String, stamped: bool, stores_tracked: bool) {
        let (ib, lb) = (self.index_bits, self.index_bits + self.tag_bits);
        let _ = writeln!(
            o,
            "    // Load cache: {} lines of {LINE_BYTES} bytes, direct-mapped.\n{}    reg [{n}:0] filled;\n    reg [{}:0] lines [0:{n}];\n    // verilator lint_off UNUSEDSIGNAL\n    wire [63:0] ld_line = $unsigned(ld_cell_full) >> {};\n    // verilator lint_on UNUSEDSIGNAL\n    wire [{}:0] ld_idx = ld_line[{}:0];\n    wire [{}:0] ld_lane = ld_cell_full[{}:0];",
            self.lines,
            if stamped { format!("    reg [31:0] band_no;\n{}", self.stamps().declare()) } else { String::new() },
            AXI_DATA_BITS - 1,
            self.lane_bits,
            ib - 1,
            ib - 1,
            self.lane_bits - 1,
            self.lane_bits - 1,
            n = self.lines - 1,
        );
        if self.tag_bits > 0 {
            let _ = writeln!(o, "{}    wire [{}:0] ld_tag = ld_line[{}:{ib}];", self.tags().declare(), self.tag_bits - 1, lb - 1);
        }
        if stores_tracked {
            // sb's store (`st_`) and sa's, which enters sb next.
            for s in ["st", "sa"] {
                let _ = writeln!(
                    o,
                    "    // verilator lint_off UNUSEDSIGNAL\n    wire [63:0] {s}_line = $unsigned({s}_cell_full) >> {};\n    // verilator lint_on UNUSEDSIGNAL\n    wire [{}:0] {s}_idx = {s}_line[{}:0];",
                    self.lane_bits,
                    ib - 1,
                    ib - 1
                );
            }
            if self.tag_bits > 0 {
                for s in ["st", "sa"] {
                    let _ = writeln!(o, "    wire [{}:0] {s}_tag = {s}_line[{}:{ib}];", self.tag_bits - 1, lb - 1);
                }
            }
        }
    }
}

/// The modules of array `var`'s memory process: `m_<array>`, and its lanes where it has them;
/// each access moves as many consecutive cells as its channels carry values ([`crate::simd`]).
pub fn modules(p: &Program, dpn: &Dpn, var: usize, lanes: &crate::simd::Lanes) -> Result<Modules, RtlError> {
    let gens = generators(p, dpn, var)?;
    let name = format!("m_{}", p.vars[var].name);
    let all = ports(dpn, &dpn.memory_processes(var), lanes);
    let (simd, plan) = (lanes.of_array(dpn, var), lanes);
    let lanes = if p.vars[var].kind == VarKind::Local { Vec::new() } else { lanes::partition(p, dpn, var, &gens, &all, simd) };
    let mut walkers = Vec::new();
    let writes = gens.iter().any(|g| !g.load);
    if lanes.len() < 2 {
        let shape = Shape { name: name.clone(), ports: all, lane: None, writes, simd, plan };
        let text = module(p, dpn, var, &gens, &shape, &mut walkers)?;
        let files = std::iter::once((format!("{name}.v"), text)).chain(walkers).collect();
        return Ok(Modules { files, cells: Vec::new() });
    }
    let mut files = vec![(format!("{name}.v"), lanes::wrapper(p, var, &name, &lanes, &all, writes))];
    for (k, lane) in lanes.iter().enumerate() {
        let lane_gens: Vec<Gen> = lane.gens.iter().map(|&g| gens[g].clone()).collect();
        let shape = Shape { name: lanes::lane_name(&name, k), ports: lane.ports(&all), lane: Some(k), writes, simd, plan };
        files.push((format!("{}.v", shape.name), module(p, dpn, var, &lane_gens, &shape, &mut walkers)?));
    }
    files.extend(walkers);
    let mut cells = vec![lanes::CELL, lanes::ROUND_ROBIN];
    if writes {
        cells.push(lanes::WRITE_CELL);
    }
    Ok(Modules { files, cells })
}

/// The generated modules of one memory process, and the library cells they add.
pub struct Modules {
    /// (file name, Verilog text), the process's top module first.
    pub files: Vec<(String, String)>,
    pub cells: Vec<&'static str>,
}

/// What one generated memory module serves.
struct Shape<'a> {
    /// Its module name.
    name: String,
    /// The channel streams it reads or writes.
    ports: Vec<crate::process::ChannelPort>,
    /// `Some(k)`: lane k of the array's port, with the read channel ([`lanes::LANE_AXI`]), its
    /// read buffer in the lanes' cell, and where the array is written the write channel
    /// ([`lanes::LANE_WRITE_AXI`]).
    lane: Option<usize>,
    /// The array is written (some generator stores).
    writes: bool,
    /// Cells per access: the vector lanes of its compute processes ([`crate::simd`]).
    simd: u32,
    /// What each channel's stream carries ([`crate::simd::Lanes`]): a broadcast takes the
    /// first of its access's cells.
    plan: &'a crate::simd::Lanes,
}

/// One generator per channel the memory process of `var` loads into or stores from.
fn generators<'a>(p: &'a Program, dpn: &'a Dpn, var: usize) -> Result<Vec<Gen<'a>>, RtlError> {
    let mems = dpn.memory_processes(var);
    let mut gens = Vec::new();
    for (c, ch) in dpn.channels.iter().enumerate() {
        if mems.contains(&ch.producer) {
            let ProcessKind::Compute { stmt, .. } = dpn.processes[ch.consumer].kind else { continue };
            let cond = need(dpn, c, &ch.first_use, "first-use")?;
            // A channel whose values all come with another channel's first uses (`fanout`)
            // needs no walk of its own: walking its consumer's points would only hold back
            // the σ order of the generators that load.
            if cond.is_false() {
                continue;
            }
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
    Ok(gens)
}

/// The write channel of a port that only reads, held idle.
fn idle_write_side() -> String {
    format!(
        "    assign m_awvalid = 1'b0;\n    assign m_awaddr = 64'd0;\n    assign m_awlen = 8'd0;\n    assign m_awsize = 3'd{};\n    assign m_awburst = 2'b01;\n    assign m_wvalid = 1'b0;\n    assign m_wdata = {}'d0;\n    assign m_wstrb = {}'d0;\n    assign m_wlast = 1'b0;\n    assign m_bready = 1'b0;\n",
        LINE_BYTES.trailing_zeros(),
        AXI_DATA_BITS,
        AXI_DATA_BITS / 8
    )
}

/// Key entry `k` as a function of `n` iterators: `(φ, 1)` for `φ`, `(φ, s)` for a tile
/// coordinate `floor(φ / s)`; equal functions take equal values at every point.
fn function(k: &Key, n: usize) -> (dpnc_dpn::tiling::Affine, i64) {
    use dpnc_dpn::tiling::Affine;
    match k {
        Key::Const(c) => (Affine { coef: vec![0; n], cst: *c }, 1),
        Key::Tile(f, s) => (f.clone(), *s),
        Key::Phi(f) => (f.clone(), 1),
        Key::Iter(d, dir) => {
            let mut coef = vec![0; n];
            coef[*d] = *dir;
            (Affine { coef, cst: 0 }, 1)
        }
    }
}

/// The value of key entry `k` where it is the same at every point.
fn constant(k: &Key) -> Option<i64> {
    let flat = |f: &dpnc_dpn::tiling::Affine| f.coef.iter().all(|&c| c == 0);
    match k {
        Key::Const(c) => Some(*c),
        Key::Tile(f, s) if flat(f) => Some(f.cst.div_euclid(*s)),
        Key::Phi(f) if flat(f) => Some(f.cst),
        _ => None,
    }
}

/// The values σ key `k` takes over a box of iterator values `r`.
fn key_range(k: &Key, r: &[(i64, i64)]) -> (i64, i64) {
    let span = |f: &dpnc_dpn::tiling::Affine| dpnc_dpn::loops::span(&f.coef, f.cst, r);
    match k {
        Key::Const(c) => (*c, *c),
        Key::Tile(f, s) => {
            let (lo, hi) = span(f);
            (lo.div_euclid(*s), hi.div_euclid(*s))
        }
        Key::Phi(f) => span(f),
        Key::Iter(d, dir) => dpnc_dpn::loops::span(&[*dir], 0, &r[*d..]),
    }
}
