//! The fan-out of the issue queue's head: its value goes to every channel that takes it, each
//! through two places of its own (so that the fan-out ends in this module, in registers, and
//! sees a ready that is a register), and the head leaves (`fire`) once every one has it.
//!
//! `fire` waits for an AND over the targets' readiness. Over [`DIRECT`] targets (Jacobi-1D at
//! par 16 reads A into 33 channels) that AND is three LUT levels before `fire`, and `fire`
//! decides the queue's pointers, the head's next entry and the cache's read. So there the
//! targets are split into groups of at most [`GROUP`], each behind a relay of two places: the
//! head waits for its groups' relays, and each relay fans out to its targets the same way. A
//! relay adds a cycle on the way to its targets and two places of capacity, never less.

use super::Field;
use std::fmt::Write;

/// Most targets whose readiness the head waits for itself.
const DIRECT: usize = 16;
/// Most targets behind one relay: 12 terms of 3 inputs are two LUT levels.
const GROUP: usize = 12;

/// A channel the head's value goes to.
pub(super) struct Target {
    /// The channel; the head's field `to<q>` says whether its entry goes there.
    pub q: usize,
    /// The width of its scratchpad cell (the head's field `at<q>`), where it is a scratchpad.
    pub at_bits: Option<u32>,
    /// It takes the value's first `ew` bits (one every vector lane reads), not all of it.
    pub broadcast: bool,
}

/// The head's targets, as groups behind relays where there are more than [`DIRECT`].
pub(super) struct Fan {
    targets: Vec<Target>,
    /// The targets of each relay, as ranges of `targets`; empty where the head reaches them
    /// itself.
    groups: Vec<std::ops::Range<usize>>,
}

/// Where a level of the fan-out sends its entry: a target channel's places or a relay.
struct Out {
    /// Its handshake's wires, `<name>_v` and `<name>_r`.
    name: String,
    /// Whether the entry goes there.
    to: String,
}

impl Fan {
    /// The targets, grouped evenly where they are too many for the head.
    pub fn new(targets: Vec<Target>) -> Fan {
        let n = targets.len();
        let groups = if n > DIRECT {
            let count = n.div_ceil(GROUP);
            (0..count).map(|j| j * n / count..(j + 1) * n / count).collect()
        } else {
            Vec::new()
        };
        Fan { targets, groups }
    }

    /// The fields an issued load carries for the relays: per relay, whether any of its targets
    /// takes the entry (`tg<j>`, from the wires `fan<q>`), so that the head's readiness starts
    /// at registers.
    pub fn fields(&self) -> Vec<Field> {
        let any =
            |r: &std::ops::Range<usize>| self.targets[r.clone()].iter().map(|t| format!("fan{}", t.q)).collect::<Vec<_>>().join(" || ");
        self.groups.iter().enumerate().map(|(j, r)| Field { name: format!("tg{j}"), width: 1, value: any(r) }).collect()
    }

    /// Writes `can` (every target or relay that takes the head has it or has room), `fire` (the
    /// head leaves: it is there, `beat` says its value is, and `can`), and the levels below:
    /// `value` is the head's value, `vw` bits wide (`ew` of them to a broadcast target).
    pub fn write(&self, o: &mut String, beat: &str, value: &str, vw: u32, ew: u32) {
        let _ = writeln!(
            o,
            "    // verilator lint_off UNUSEDSIGNAL\n    wire [{}:0] h_fan = {value};  // the head's value\n    // verilator lint_on UNUSEDSIGNAL",
            vw - 1
        );
        let value = "h_fan";
        let data = |t: &Target, at: &str, value: &str| {
            let value = if t.broadcast { format!("{value}[{}:0]", ew - 1) } else { value.to_string() };
            let width = if t.broadcast { ew } else { vw } + t.at_bits.unwrap_or(0);
            (if t.at_bits.is_some() { format!("{{{at}{}, {value}}}", t.q) } else { value }, width)
        };
        if self.groups.is_empty() {
            let outs: Vec<Out> = self.targets.iter().map(|t| Out { name: format!("fo{}", t.q), to: format!("h_to{}", t.q) }).collect();
            level(o, "", &format!("q_any && {beat}"), &outs);
            for t in &self.targets {
                let (d, w) = data(t, "h_at", value);
                place(o, t.q, &d, w);
            }
            return;
        }
        let outs: Vec<Out> = (0..self.groups.len()).map(|j| Out { name: format!("rl{j}"), to: format!("h_tg{j}") }).collect();
        level(o, "", &format!("q_any && {beat}"), &outs);
        for (j, r) in self.groups.iter().enumerate() {
            let group = &self.targets[r.clone()];
            let mut fields: Vec<Field> =
                group.iter().map(|t| Field { name: format!("to{}", t.q), width: 1, value: format!("h_to{}", t.q) }).collect();
            for t in group {
                if let Some(w) = t.at_bits {
                    fields.push(Field { name: format!("at{}", t.q), width: w, value: format!("h_at{}", t.q) });
                }
            }
            fields.push(Field { name: "value".into(), width: vw, value: value.to_string() });
            let width: u32 = fields.iter().map(|f| f.width).sum();
            let packed: Vec<&str> = fields.iter().map(|f| f.value.as_str()).collect();
            let _ = writeln!(
                o,
                "    // Relay {j}, to targets {}: two places, the one it fans out from a register (`r{j}_d`)\n    // and one it takes an entry into while that one stays (`r{j}_skid`), so that its ready\n    // is a register and its fan-out starts at flip-flops.\n    reg [{w}:0] r{j}_d, r{j}_skid;\n    reg r{j}_v, r{j}_skid_v;\n    wire r{j}_fire;\n    wire [{w}:0] r{j}_in = {{{}}};\n    assign rl{j}_r = !r{j}_skid_v;\n    always @(posedge clk) begin\n        if (rst || start) begin\n            r{j}_v <= 1'b0;\n            r{j}_skid_v <= 1'b0;\n        end else if (!r{j}_v || r{j}_fire) begin\n            r{j}_v <= r{j}_skid_v || rl{j}_v;\n            r{j}_skid_v <= 1'b0;\n        end else if (rl{j}_v) r{j}_skid_v <= 1'b1;\n    end\n    always @(posedge clk) begin\n        if (!r{j}_v || r{j}_fire) r{j}_d <= r{j}_skid_v ? r{j}_skid : r{j}_in;\n        if (!r{j}_skid_v) r{j}_skid <= r{j}_in;\n    end",
                group.iter().map(|t| t.q.to_string()).collect::<Vec<_>>().join(", "),
                packed.join(", "),
                w = width - 1,
            );
            super::unpack(o, &format!("r{j}_d"), &fields, &format!("r{j}_"));
            let outs: Vec<Out> = group.iter().map(|t| Out { name: format!("fo{}", t.q), to: format!("r{j}_to{}", t.q) }).collect();
            level(o, &format!("r{j}_"), &format!("r{j}_v"), &outs);
            for t in group {
                let (d, w) = data(t, &format!("r{j}_at"), &format!("r{j}_value"));
                place(o, t.q, &d, w);
            }
        }
    }
}

/// One level of the fan-out: an entry that is there when `there`, going to `outs`. Writes
/// `<p>can`, `<p>fire` (the entry leaves) and, with several outs, `<p>sent` (those it has
/// reached), so that a full one holds back only the next entry.
fn level(o: &mut String, p: &str, there: &str, outs: &[Out]) {
    let several = outs.len() > 1;
    let can: Vec<String> = outs
        .iter()
        .enumerate()
        .map(|(k, out)| format!("(!{}{} || {}_r)", out.to, if several { format!(" || {p}sent[{k}]") } else { String::new() }, out.name))
        .collect();
    let _ = writeln!(
        o,
        "{}    wire {p}can = {};\n    {}{p}fire = {there} && {p}can;",
        outs.iter().map(|out| format!("    wire {0}_v, {0}_r;\n", out.name)).collect::<String>(),
        crate::verilog::all_of(can),
        // A relay's is declared before its places are written.
        if p.is_empty() { "wire " } else { "assign " }
    );
    if several {
        let got: Vec<String> = outs.iter().rev().map(|out| format!("{0}_v && {0}_r", out.name)).collect();
        let _ = writeln!(
            o,
            "    reg [{}:0] {p}sent;\n    always @(posedge clk) begin\n        if (rst || start || {p}fire) {p}sent <= {}'d0;\n        else {p}sent <= {p}sent | {{{}}};\n    end",
            outs.len() - 1,
            outs.len(),
            got.join(", ")
        );
    }
    for (k, out) in outs.iter().enumerate() {
        let valid = if several { format!("{there} && {} && !{p}sent[{k}]", out.to) } else { format!("{p}fire && {}", out.to) };
        let _ = writeln!(o, "    assign {}_v = {valid};", out.name);
    }
}

/// Target channel `q`'s two places, taking `data` (`width` bits).
fn place(o: &mut String, q: usize, data: &str, width: u32) {
    let _ = writeln!(
        o,
        "    /* verilator lint_off PINCONNECTEMPTY */\n    dpn_fifo_reg #(.W({width}), .DEPTH(2), .FULL_PASS(0)) load_value{q} (.clk(clk), .rst(rst || start), .in_valid(fo{q}_v), .in_ready(fo{q}_r), .in_data({data}), .out_valid(ch{q}_ov), .out_ready(ch{q}_or), .out_data(ch{q}_od), .count(), .peak());\n    /* verilator lint_on PINCONNECTEMPTY */"
    );
}
