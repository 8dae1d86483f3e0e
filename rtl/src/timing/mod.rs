//! Logic depth and delay after synthesis (`dpnc synth --timing`): the slowest combinational
//! paths between registers of a design that Yosys's `synth_xilinx` mapped and then flattened,
//! with the cells they cross: LUT levels, carry cells, wide-function multiplexers (`MUXF7/8/9`,
//! which sit behind a LUT in the same slice) and DSP slices crossed without their output
//! register. Each path is told to the smallest instance holding both its ends, and so to that
//! instance's module (found from the design's hierarchy, written before flattening); each
//! module keeps its slowest.
//!
//! Yosys has no UltraScale+ delays; each path's are estimated from the cells it crosses and the
//! nets between them ([`delay`]), and a module's slowest path is the one that needs the longest
//! clock period (then the one with more logic levels, as Vivado counts them). Timing points are
//! what a clock edge launches or captures: flip-flops, block and ultra RAMs, a DSP slice's
//! registered side, the clocked write side of LUT RAMs and shift registers, and the design's
//! ports. [`cell`] times one cell of the library alone.

pub mod cell;
pub mod delay;

use serde_json::Value;
use std::collections::HashMap;

/// The cells one path crosses and the clock period it needs. Paths compare by that period,
/// then by their logic levels (every cell counted, as Vivado counts them), then by their LUTs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Depth {
    /// The clock period the path needs, in ps: its cells and nets ([`delay::through`]) with
    /// the launch, the setup and the clock's uncertainty ([`delay::period_needed`]).
    pub ps: u32,
    /// LUTs (and the read port of a LUT RAM or shift register, which is a LUT).
    pub luts: u32,
    /// Carry-chain cells (`CARRY4`, `CARRY8`).
    pub carries: u32,
    /// `MUXF7`/`MUXF8`/`MUXF9`.
    pub muxes: u32,
    /// DSP slices crossed without their output register.
    pub dsps: u32,
}

impl Ord for Depth {
    fn cmp(&self, o: &Depth) -> std::cmp::Ordering {
        let key = |d: &Depth| (d.ps, d.levels(), d.luts, d.carries, d.muxes, d.dsps);
        key(self).cmp(&key(o))
    }
}

impl PartialOrd for Depth {
    fn partial_cmp(&self, o: &Depth) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Depth {
    /// Every cell on the path: LUTs, carry cells, MUXF cells and DSP slices.
    pub fn levels(&self) -> u32 {
        self.luts + self.carries + self.muxes + self.dsps
    }

    fn plus(self, kind: Kind) -> Depth {
        let mut d = self;
        match kind {
            Kind::Lut => d.luts += 1,
            Kind::Carry | Kind::Carry4 => d.carries += 1,
            Kind::Mux => d.muxes += 1,
            Kind::Dsp => d.dsps += 1,
            Kind::Wire => {}
        }
        d
    }
}

/// The slowest path of one module.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ModuleDepth {
    /// The module, without Yosys's parameterisation.
    pub module: String,
    pub depth: Depth,
    /// Where the path starts and ends: a named signal (hierarchical, as flattening names it)
    /// and the cell or port that launches or captures it.
    pub from: String,
    pub to: String,
    /// The named signals the path passes through, in order (a bit index dropped, each once).
    pub through: Vec<String>,
}

/// What a cell does to a path through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Lut,
    Carry,
    /// Half a `CARRY8`: Yosys maps some chains to the older four-bit cell, which Vivado
    /// places two to a `CARRY8` on UltraScale+.
    Carry4,
    Mux,
    Dsp,
    /// Buffers and inverters that synthesis leaves (I/O and clock buffers, `INV`).
    Wire,
}

/// How a cell type is timed: combinational from every input (`Through`), a timing point whose
/// outputs are launched by a clock and whose inputs are captured (`Point`), or a LUT RAM or
/// shift register (`Lookup`): written on the clock, and each data output read through the LUT
/// at its own port's address ([`lookup_reads`]).
enum Role {
    Through(Kind),
    Point,
    Lookup,
}

fn role(ty: &str, params: &serde_json::Map<String, Value>) -> Role {
    let param = |k: &str| params.get(k).and_then(Value::as_str).and_then(|b| u64::from_str_radix(b, 2).ok()).unwrap_or(0);
    match ty {
        t if t.starts_with("LUT") => Role::Through(Kind::Lut),
        "CARRY8" => Role::Through(Kind::Carry),
        "CARRY4" => Role::Through(Kind::Carry4),
        "MUXF7" | "MUXF8" | "MUXF9" => Role::Through(Kind::Mux),
        "INV" | "BUF" | "IBUF" | "OBUF" | "BUFG" | "IBUFG" | "BUFGCE" => Role::Through(Kind::Wire),
        // Unregistered output: the slice is logic on the path.
        "DSP48E2" if param("PREG") == 0 => Role::Through(Kind::Dsp),
        t if t.starts_with("SRL") || (t.starts_with("RAM") && !t.starts_with("RAMB")) => Role::Lookup,
        // Flip-flops, block RAM, UltraRAM, registered DSPs, submodules and anything else.
        _ => Role::Point,
    }
}

/// Whether a lookup cell's `input` reaches its data output `output` combinationally: a
/// single-port RAM's or shift register's `O`/`SPO`/`Q` through its address `A`, a dual-port
/// RAM's `DPO` through `DPRA`, and a multi-port RAM's `DO<x>` through `ADDR<x>` only (the
/// write address, its last port's, reaches the others' outputs through the clock alone).
fn lookup_reads(input: &str, output: &str) -> bool {
    let address = |i: &str| i.strip_prefix('A').is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
    match output {
        "O" | "SPO" | "Q" => address(input),
        "DPO" => input.starts_with("DPRA"),
        o => o.strip_prefix("DO").is_some_and(|x| input.strip_prefix("ADDR") == Some(x)),
    }
}

/// Whether a lookup cell's `input` is a read address only, which the clock does not capture:
/// a shift register's tap, a dual-port RAM's `DPRA`, a multi-port RAM's `ADDR<x>` but its
/// write port's (`ADDRD` of the four-port RAMs, `ADDRH` of the eight-port ones).
fn read_only(ty: &str, input: &str) -> bool {
    let write_port = if matches!(ty, "RAM32M" | "RAM64M") { "ADDRD" } else { "ADDRH" };
    (ty.starts_with("SRL") && input.starts_with('A')) || input.starts_with("DPRA") || (input.starts_with("ADDR") && input != write_port)
}

/// The flattened design's netlist, as far as timing needs it.
struct Netlist<'a> {
    cells: Vec<Cell<'a>>,
    /// For each net bit, the cell output driving it (cell, port).
    driver: HashMap<u64, (usize, &'a str)>,
    /// A public name for each bit that has one: the one deepest in the hierarchy.
    names: HashMap<u64, String>,
}

struct Cell<'a> {
    ty: &'a str,
    role: Role,
    inputs: Vec<(&'a str, Vec<u64>)>,
    outputs: Vec<u64>,
}

/// The slowest path found so far to each bit, and the bit it came from.
#[derive(Clone, Copy)]
struct Reach {
    /// The cells it crosses (`ps` unset).
    depth: Depth,
    /// When its value settles, in ps after the launching cell's output does.
    arrival: u32,
    from: Option<u64>,
    /// The bit is a constant (its logic has no input but constants): no path starts there.
    constant: bool,
}

impl Reach {
    const START: Reach = Reach { depth: Depth { ps: 0, luts: 0, carries: 0, muxes: 0, dsps: 0 }, arrival: 0, from: None, constant: false };
}

impl<'a> Netlist<'a> {
    fn new(m: &'a Value) -> Netlist<'a> {
        let mut cells = Vec::new();
        let mut driver = HashMap::new();
        let empty = serde_json::Map::new();
        for c in m["cells"].as_object().into_iter().flat_map(|o| o.values()) {
            let ty = c["type"].as_str().unwrap_or("");
            let dirs = c["port_directions"].as_object().unwrap_or(&empty);
            let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
            for (port, bits) in c["connections"].as_object().into_iter().flatten() {
                let bits: Vec<u64> = bits.as_array().map_or(Vec::new(), |a| a.iter().filter_map(Value::as_u64).collect());
                match dirs.get(port).and_then(Value::as_str) {
                    Some("output") => {
                        for &b in &bits {
                            driver.insert(b, (cells.len(), port.as_str()));
                        }
                        outputs.extend(bits);
                    }
                    _ => inputs.push((port.as_str(), bits)),
                }
            }
            cells.push(Cell { ty, role: role(ty, c["parameters"].as_object().unwrap_or(&empty)), inputs, outputs });
        }
        let mut names: HashMap<u64, String> = HashMap::new();
        for (name, n) in m["netnames"].as_object().into_iter().flatten() {
            if n["hide_name"].as_u64() == Some(1) {
                continue;
            }
            let bits = n["bits"].as_array().map_or(&[][..], |a| a.as_slice());
            for (i, b) in bits.iter().enumerate().filter_map(|(i, b)| b.as_u64().map(|b| (i, b))) {
                let label = if bits.len() == 1 { name.clone() } else { format!("{name}[{i}]") };
                // Of a bit's names (one per level of the hierarchy it crosses), the deepest says
                // where it is; then the shortest.
                let rank = |l: &str| (std::cmp::Reverse(depth_of(l)), l.len());
                names
                    .entry(b)
                    .and_modify(|old| {
                        if rank(&label) < rank(old) {
                            *old = label.clone()
                        }
                    })
                    .or_insert(label);
            }
        }
        Netlist { cells, driver, names }
    }

    /// The slowest path ending at `bit`, over the cells that drive it combinationally.
    fn reach(&self, bit: u64, memo: &mut HashMap<u64, Reach>) -> Reach {
        if let Some(r) = memo.get(&bit) {
            return *r;
        }
        // A combinational loop (none in a design that simulates) is cut where it closes.
        memo.insert(bit, Reach::START);
        let r = match self.driver.get(&bit) {
            None => Reach::START,
            Some(&(c, out)) => {
                let cell = &self.cells[c];
                let (kind, through): (Kind, &dyn Fn(&str) -> bool) = match &cell.role {
                    Role::Through(k) => (*k, &|_| true),
                    Role::Point => (Kind::Wire, &|_| false),
                    Role::Lookup => (Kind::Lut, &|i| lookup_reads(i, out)),
                };
                // The slowest input that is not a constant (constant inputs were dropped when
                // the netlist was read).
                let mut best: Option<Reach> = None;
                for (_, bits) in cell.inputs.iter().filter(|(p, _)| through(p)) {
                    for &b in bits {
                        let r = self.reach(b, memo);
                        let arrival = r.arrival + delay::through(kind, self.kind_driving(b));
                        if !r.constant && best.is_none_or(|x| (arrival, r.depth) > (x.arrival, x.depth)) {
                            best = Some(Reach { depth: r.depth, arrival, from: Some(b), constant: false });
                        }
                    }
                }
                match (best, &cell.role) {
                    (Some(b), _) => Reach { depth: b.depth.plus(kind), ..b },
                    // Logic of constants only is a constant; a timing point launches.
                    (None, Role::Through(_)) => Reach { constant: true, ..Reach::START },
                    (None, Role::Point | Role::Lookup) => Reach::START,
                }
            }
        };
        memo.insert(bit, r);
        r
    }

    /// The kind of cell that drives `bit` combinationally (`None`: a timing point or a port).
    fn kind_driving(&self, bit: u64) -> Option<Kind> {
        match self.cells[self.driver.get(&bit)?.0].role {
            Role::Through(k) => Some(k),
            Role::Lookup => Some(Kind::Lut),
            Role::Point => None,
        }
    }

    /// Where a path that reached `bit` started: back along `from` to a bit no cell drives
    /// combinationally.
    fn start(&self, mut bit: u64, memo: &HashMap<u64, Reach>) -> u64 {
        let mut steps = 0;
        while let Some(Reach { from: Some(b), .. }) = memo.get(&bit) {
            bit = *b;
            steps += 1;
            if steps > memo.len() {
                break;
            }
        }
        bit
    }

    /// The named signals between a path's start and `end` (excluded), start first.
    fn through(&self, end: u64, memo: &HashMap<u64, Reach>) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let mut bit = end;
        while let Some(Reach { from: Some(b), .. }) = memo.get(&bit) {
            bit = *b;
            if memo.get(&bit).is_some_and(|r| r.from.is_none()) || names.len() > memo.len() {
                break;
            }
            if let Some(n) = self.names.get(&bit) {
                let n = n.rsplit_once('[').map_or(n.as_str(), |(base, _)| base);
                if names.last().is_none_or(|l| l != n) {
                    names.push(n.to_string());
                }
            }
        }
        names.reverse();
        names
    }

    fn name(&self, bit: u64) -> String {
        self.names.get(&bit).cloned().unwrap_or_else(|| format!("net {bit}"))
    }

    /// A path's start: its signal and what launches it.
    fn describe(&self, bit: u64) -> String {
        match self.driver.get(&bit) {
            Some(&(c, port)) => format!("{} ({} {port})", self.name(bit), crate::synth::base_name(self.cells[c].ty)),
            None => format!("{} (port)", self.name(bit)),
        }
    }
}

/// The instance path of a flattened name (`p_S1.dp.u_add.sum[3]` → `p_S1.dp.u_add`; a name
/// of the top module → ``).
fn scope(name: &str) -> &str {
    // The last `.` outside brackets: generate blocks index instances (`g_step[3].u_step`).
    let mut depth = 0i32;
    let mut last = None;
    for (i, c) in name.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            '.' if depth == 0 => last = Some(i),
            _ => {}
        }
    }
    last.map_or("", |i| &name[..i])
}

/// The longest instance path that holds both `a` and `b` (whole components only).
fn common_scope<'s>(a: &'s str, b: &str) -> &'s str {
    // The bytes of the components that match, each with its dot.
    let same: usize = a.split('.').zip(b.split('.')).take_while(|(x, y)| x == y).map(|(x, _)| x.len() + 1).sum();
    &a[..same.saturating_sub(1)]
}

/// How many instances deep a flattened name is.
fn depth_of(name: &str) -> usize {
    let s = scope(name);
    if s.is_empty() {
        0
    } else {
        s.matches('.').count() + 1
    }
}

/// Each instance of the hierarchical netlist `hier` below `top`, by instance path, with its
/// module (parameterisations merged); the top is the empty path.
fn instances(hier: &Value, top: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut stack = vec![(String::new(), top.to_string())];
    while let Some((path, module)) = stack.pop() {
        for (name, c) in hier["modules"][&module]["cells"].as_object().into_iter().flatten() {
            let ty = c["type"].as_str().unwrap_or("");
            if hier["modules"].get(ty).is_some_and(|m| m["attributes"].get("blackbox").is_none()) {
                let child = if path.is_empty() { name.clone() } else { format!("{path}.{name}") };
                stack.push((child, ty.to_string()));
            }
        }
        out.insert(path, crate::synth::base_name(&module).to_string());
    }
    out
}

/// Each module's slowest path, slowest first, from Yosys's JSON netlists of the design before
/// (`hier`) and after (`flat`) flattening, with top module `top`.
pub fn deepest_paths(hier: &str, flat: &str, top: &str) -> Result<Vec<ModuleDepth>, String> {
    let parse = |text: &str| serde_json::from_str::<Value>(text).map_err(|e| format!("Yosys's JSON netlist does not parse: {e}"));
    let (hier, flat) = (parse(hier)?, parse(flat)?);
    let module_of = instances(&hier, top);
    let m = flat["modules"].get(top).ok_or_else(|| format!("the flattened netlist has no module {top}"))?;
    let design = Netlist::new(m);
    let mut memo: HashMap<u64, Reach> = HashMap::new();
    // Endpoints: the design's outputs and every input of a timing point that a clock captures
    // (not those that pass through to its outputs), each with what captures it and where.
    let mut ends: Vec<(u64, String, &str)> = Vec::new();
    for p in m["ports"].as_object().into_iter().flat_map(|o| o.values()) {
        if p["direction"].as_str() == Some("output") {
            ends.extend(p["bits"].as_array().into_iter().flatten().filter_map(Value::as_u64).map(|b| (b, "port".to_string(), "")));
        }
    }
    for cell in &design.cells {
        let lookup = match cell.role {
            Role::Through(_) => continue,
            Role::Point => false,
            Role::Lookup => true,
        };
        // The capturing cell is where its outputs are named.
        let at = cell.outputs.iter().filter_map(|b| design.names.get(b)).map(|n| scope(n)).max_by_key(|s| s.len()).unwrap_or("");
        for (port, bits) in cell.inputs.iter().filter(|(p, _)| !(lookup && read_only(cell.ty, p))) {
            ends.extend(bits.iter().map(|&b| (b, format!("into {} {port}", crate::synth::base_name(cell.ty)), at)));
        }
    }
    let mut rows: Vec<ModuleDepth> = Vec::new();
    for (end, into, at) in &ends {
        let Reach { depth, arrival, constant, .. } = design.reach(*end, &mut memo);
        if constant {
            continue;
        }
        let depth = Depth { ps: delay::period_needed(arrival), ..depth };
        // A path belongs to the smallest instance holding both its ends (a path between two
        // stage registers of an adder is the adder's, not the register module's), or to the
        // nearest enclosing instance the hierarchy knows.
        let start = design.start(*end, &memo);
        let from_at = design.names.get(&start).map_or("", |n| scope(n));
        let mut path = common_scope(at, from_at);
        let module = loop {
            if let Some(m) = module_of.get(path) {
                break m.clone();
            }
            path = path.rfind('.').map_or("", |i| &path[..i]);
        };
        let row = || ModuleDepth {
            module: module.clone(),
            depth,
            from: design.describe(start),
            to: format!("{} ({into})", design.name(*end)),
            through: design.through(*end, &memo),
        };
        match rows.iter().position(|r| r.module == module) {
            Some(i) if rows[i].depth >= depth => {}
            Some(i) => rows[i] = row(),
            None => rows.push(row()),
        }
    }
    rows.sort_by(|a, b| b.depth.cmp(&a.depth).then(a.module.cmp(&b.module)));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_whole_instance_paths() {
        assert_eq!(scope("S0.dp.u_add.sum[3]"), "S0.dp.u_add");
        assert_eq!(scope("rx[3]"), "");
        assert_eq!(scope("u.a[1.5]"), "u");
        assert_eq!(scope("S1.u_n3.g_step[54].u_step.q[3]"), "S1.u_n3.g_step[54].u_step");
        assert_eq!(depth_of("S1.u_n3.g_step[54].u_step.q[3]"), 4);
        assert_eq!(depth_of("S0.dp.u_add.sum"), 3);
        assert_eq!(depth_of("p"), 0);
        assert_eq!(common_scope("S0.dp.u_n4.u_stage3", "S0.dp.u_n4.u_stage4"), "S0.dp.u_n4");
        assert_eq!(common_scope("mem_C", "fifo_C"), "");
        assert_eq!(common_scope("u.a", "u.ab"), "u");
        assert_eq!(common_scope("u", "u.x"), "u");
        assert_eq!(common_scope("", "u"), "");
    }

    /// A cell of a flattened netlist written by hand: its type, inputs (port, bit; `k0`/`k1` a
    /// constant, as Yosys writes it) and output.
    fn cell(ty: &str, ins: &[(&str, &str)], out: (&str, u64)) -> Value {
        let mut conn = serde_json::Map::new();
        let mut dirs = serde_json::Map::new();
        for (p, b) in ins {
            let bit: Value = b.strip_prefix('k').map_or_else(|| Value::from(b.parse::<u64>().unwrap()), Value::from);
            conn.insert(p.to_string(), Value::from(vec![bit]));
            dirs.insert(p.to_string(), Value::from("input"));
        }
        conn.insert(out.0.to_string(), Value::from(vec![out.1]));
        dirs.insert(out.0.to_string(), Value::from("output"));
        serde_json::json!({ "type": ty, "parameters": {}, "port_directions": dirs, "connections": conn })
    }

    fn paths(cells: Value, netnames: Value) -> Vec<ModuleDepth> {
        let flat = serde_json::json!({ "modules": { "top": {
            "attributes": {},
            "ports": { "a": { "direction": "input", "bits": [2] }, "clk": { "direction": "input", "bits": [3] } },
            "cells": cells,
            "netnames": netnames,
        } } });
        let hier = serde_json::json!({ "modules": { "top": { "attributes": {}, "cells": {} } } });
        deepest_paths(&hier.to_string(), &flat.to_string(), "top").unwrap()
    }

    /// A LUT RAM written at an address three LUTs deep and read at port `a`, one LUT before a
    /// register: the write address is captured by the clock (three levels), and the read data
    /// comes from its own port's address alone (two levels, not five).
    #[test]
    fn a_lut_ram_reads_each_port_at_its_own_address() {
        let rows = paths(
            serde_json::json!({
                "w1": cell("LUT1", &[("I0", "2")], ("O", 10)),
                "w2": cell("LUT1", &[("I0", "10")], ("O", 11)),
                "w3": cell("LUT1", &[("I0", "11")], ("O", 12)),
                "ram": cell("RAM32M16", &[("ADDRA", "2"), ("ADDRH", "12"), ("DIA", "2"), ("WCLK", "3"), ("WE", "k1")], ("DOA", 20)),
                "l": cell("LUT1", &[("I0", "20")], ("O", 21)),
                "r": cell("FDRE", &[("D", "21"), ("C", "3"), ("CE", "k1"), ("R", "k0")], ("Q", 22)),
            }),
            serde_json::json!({ "a": { "hide_name": 0, "bits": [2] }, "waddr": { "hide_name": 0, "bits": [12] } }),
        );
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!(rows[0].depth.levels(), 3, "{rows:?}");
        assert_eq!(rows[0].to, "waddr (into RAM32M16 ADDRH)");
        assert!(lookup_reads("ADDRB", "DOB") && !lookup_reads("ADDRH", "DOB") && lookup_reads("A3", "SPO") && lookup_reads("DPRA", "DPO"));
        assert!(
            read_only("RAM32M16", "ADDRA") && !read_only("RAM32M16", "ADDRH") && !read_only("RAM32M", "ADDRD") && read_only("SRL16E", "A2")
        );
    }

    /// A flattened netlist by hand: a register fed by LUT2(a, INV(1)) through LUT1, and an
    /// inverter of a constant feeding a chain of three LUTs to another register. The constant's
    /// chain is not a path; the deepest path is the port `a`'s two LUTs.
    #[test]
    fn constants_start_no_path() {
        let rows = paths(
            serde_json::json!({
                "inv": cell("INV", &[("I", "k1")], ("O", 10)),
                "l1": cell("LUT2", &[("I0", "2"), ("I1", "10")], ("O", 11)),
                "l2": cell("LUT1", &[("I0", "11")], ("O", 12)),
                "r1": cell("FDRE", &[("D", "12"), ("C", "3"), ("CE", "k1"), ("R", "k0")], ("Q", 13)),
                "k1": cell("LUT1", &[("I0", "10")], ("O", 20)),
                "k2": cell("LUT1", &[("I0", "20")], ("O", 21)),
                "k3": cell("LUT1", &[("I0", "21")], ("O", 22)),
                "r2": cell("FDRE", &[("D", "22"), ("C", "3"), ("CE", "k1"), ("R", "k0")], ("Q", 23)),
            }),
            serde_json::json!({
                "a": { "hide_name": 0, "bits": [2] },
                "q1": { "hide_name": 0, "bits": [13] },
                "q2": { "hide_name": 0, "bits": [23] },
            }),
        );
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!((rows[0].depth.luts, rows[0].depth.levels()), (2, 2), "{rows:?}");
        assert_eq!(rows[0].from, "a (port)");
    }
}
