//! The point stage of a compute process: two places between its walker and its issue, each
//! holding a point with what the issue decides on (the process's guard, which clause each
//! read takes, a scratchpad cell, a first or last read), worked out as the point enters.
//! Worked out at issue, that arithmetic would lie on a path from the walker's counters through
//! the operands' presence and back into the walker's step: well over a 300 MHz cycle. Here the
//! walker steps while the stage has a free place (a register), and the issue starts from
//! registers. Two places keep one point a cycle going: the second takes
//! the walker's point in the cycle the first cannot leave.
//! A process that reads a scratchpad has a second stage of two places after it, the ready
//! stage ([`Ready`]), whose points also carry whether each scratchpad read's cell holds its
//! value, so that the issue does not look a cell's valid bit up.

use std::fmt::Write;

/// The stage's text as it is built: what enters it (`<name>_w` wires over the walker's
/// iterators `wit_*`) and the fields it keeps.
pub(crate) struct PointStage {
    text: String,
    fields: Vec<(String, u32)>,
}

impl PointStage {
    /// A stage for the walker's point `w_cs`: `raw`, each iterator's name over it (`wit_<i>`)
    /// and its value.
    pub fn new(raw: &[(String, String)]) -> PointStage {
        let mut text = String::new();
        for (n, value) in raw {
            let _ = writeln!(text, "    wire signed [63:0] {n} = {value};");
        }
        PointStage { text, fields: Vec::new() }
    }

    /// Where helper wires over the walker's iterators go (those that `wire`'s expressions use).
    pub fn text(&mut self) -> &mut String {
        &mut self.text
    }

    /// `name` (`width` bits), the value `expr` over the walker's iterators had as the point
    /// entered the stage.
    pub fn wire(&mut self, name: &str, width: u32, expr: &str) {
        let _ = writeln!(self.text, "    wire {}{name}_w = {expr};", range(width));
        self.declared(name, width);
    }

    /// `name` (`width` bits), kept from the wire `<name>_w` already written into [`Self::text`].
    pub fn declared(&mut self, name: &str, width: u32) {
        self.fields.push((name.to_string(), width));
    }

    /// The stage: the walker's `wk_valid`/`wk_next`/`w_cs` in; `w_valid` and `cs` the head's
    /// point, each field by its name; `leave` (over those) says the head's point goes. With
    /// `ready` bits a ready stage follows ([`Ready`]), whose head is then the one the names
    /// give. Returns the declarations, to go before the fields' users, and the ready stage's
    /// logic, to go after the wires its updates name.
    pub fn finish(mut self, cs_bits: u32, leave: &str, ready: &[Ready]) -> (String, String) {
        let mut o = std::mem::take(&mut self.text);
        let width: u32 = cs_bits + self.fields.iter().map(|f| f.1).sum::<u32>();
        let packed: Vec<String> = self.fields.iter().rev().map(|(n, _)| format!("{n}_w")).chain(["w_cs".to_string()]).collect();
        // With ready bits the point stage's head leaves into the ready stage's second place.
        let head_leave = if ready.is_empty() { leave } else { "!pb_v1" };
        let _ = writeln!(
            o,
            "    // The point stage: pt0 its head, pt1 the walker's point taken while pt0 waits.\n    reg pv0, pv1;\n    reg [{m}:0] pt0, pt1;\n    wire [{m}:0] pt_in = {{{}}};\n    wire pt_leave = pv0 && ({head_leave});\n    assign wk_next = wk_valid && !pv1;\n    always @(posedge clk) begin\n{}        if (!pv0 || pt_leave) pt0 <= pv1 ? pt1 : pt_in;\n        else if (wk_next) pt1 <= pt_in;\n    end",
            packed.join(", "),
            two_places("pv", "!pv0 || pt_leave", "wk_next"),
            m = width - 1,
        );
        if ready.is_empty() {
            for f in self.placed(cs_bits) {
                let _ = writeln!(o, "    wire {}{} = pt0[{}];", range(f.width), f.name, slice(f.lo, f.width));
            }
            let _ = writeln!(
                o,
                "    assign w_valid = pv0;\n    assign w_done = wk_done && !pv0 && !pv1;\n    assign cs = pt0[{}:0];",
                cs_bits - 1
            );
            return (o, String::new());
        }
        let _ = writeln!(
            o,
            "    // The ready stage: pb0 the point at issue, pb1 the point stage's head taken while pb0\n    // waits; pr0 and pr1 their ready bits.\n    reg pb_v0, pb_v1;\n    reg [{}:0] pb0, pb1;\n    reg [{}:0] pr0, pr1;\n    assign w_valid = pb_v0;\n    assign w_done = wk_done && !pv0 && !pv1 && !pb_v0 && !pb_v1;\n    assign cs = pb0[{}:0];",
            width - 1,
            ready.len() - 1,
            cs_bits - 1
        );
        for f in self.placed(cs_bits) {
            let _ = writeln!(o, "    wire {}{} = pb0[{}];", range(f.width), f.name, slice(f.lo, f.width));
        }
        for (j, rd) in ready.iter().enumerate() {
            let _ = writeln!(o, "    wire {} = pr0[{j}];", rd.name);
        }
        let logic = self.ready_logic(cs_bits, leave, ready);
        (o, logic)
    }

    /// Each field with its lowest bit in the packed point and its width.
    fn placed(&self, cs_bits: u32) -> Vec<Placed> {
        let mut at = cs_bits;
        let mut v = Vec::new();
        for (n, w) in &self.fields {
            v.push(Placed { name: n.clone(), lo: at, width: *w });
            at += w;
        }
        v
    }
    /// The ready stage's logic: `leave` (over its head's fields) says pb0's point goes.
    fn ready_logic(&self, cs_bits: u32, leave: &str, ready: &[Ready]) -> String {
        let placed = self.placed(cs_bits);
        let cell = |place: &str, field: &str| {
            let f = placed.iter().find(|f| f.name == field).expect("a ready bit's cell is a field of the stage");
            format!("{place}[{}]", slice(f.lo, f.width))
        };
        // A ready bit over the cell its place reads: cleared by a release at this edge, set by
        // an arrival at the last one (a cycle late; a point looked up since saw it in the
        // valid bits already).
        let update = |rd: &Ready, bit: &str, place: &str| {
            let at = cell(place, &rd.at);
            let mut kept = bit.to_string();
            for e in &rd.clears {
                let _ = write!(kept, " && !({} && {} == {at})", e.when, e.cell);
            }
            let sets: String = rd.sets.iter().map(|e| format!(" || ({} && {} == {at})", e.when, e.cell)).collect();
            format!("({kept}){sets}")
        };
        let all = |f: &dyn Fn(usize, &Ready) -> String| {
            ready.iter().enumerate().rev().map(|(j, rd)| f(j, rd)).collect::<Vec<_>>().join(",\n        ")
        };
        let pr0 = all(&|j, rd| update(rd, &format!("pr0[{j}]"), "pb0"));
        let pr1 = all(&|j, rd| update(rd, &format!("pr1[{j}]"), "pb1"));
        let pa = all(&|_, rd| update(rd, &format!("{}[{}]", rd.valid, cell("pt0", &rd.at)), "pt0"));
        let m = ready.len() - 1;
        format!(
            "    wire pb_leave = pb_v0 && ({leave});\n    wire pb_next = pv0 && !pb_v1;  // the point stage's head enters\n    wire pb_move = !pb_v0 || pb_leave;  // pb0 takes a point at this edge\n    wire [{m}:0] pr0_now = {{\n        {pr0}\n    }};\n    wire [{m}:0] pr1_now = {{\n        {pr1}\n    }};\n    wire [{m}:0] pa_now = {{  // the point stage's head, its cells looked up\n        {pa}\n    }};\n    always @(posedge clk) begin\n{}        if (pb_move) begin\n            pb0 <= pb_v1 ? pb1 : pt0;\n            pr0 <= pb_v1 ? pr1_now : pa_now;\n        end else pr0 <= pr0_now;\n        if (!pb_move && pb_next) begin\n            pb1 <= pt0;\n            pr1 <= pa_now;\n        end else pr1 <= pr1_now;\n    end\n",
            two_places("pb_v", "pb_move", "pb_next")
        )
    }
}

/// A scratchpad read's ready bit in the ready stage, which follows the point stage where a
/// process reads a scratchpad: whether the read's cell holds its value. Looked up as a point
/// enters the stage and kept up to date while it waits, so that the issue starts from a
/// register rather than from a lookup as wide as the scratchpad.
pub(crate) struct Ready {
    /// The wire the issue reads.
    pub name: String,
    /// The stage's field that holds the read's cell.
    pub at: String,
    /// The scratchpad's valid bits (`sv<c>`).
    pub valid: String,
    /// What clears a cell at this edge (the releases).
    pub clears: Vec<Event>,
    /// What set a cell at the last edge (registers: arrivals and the process's own writes).
    pub sets: Vec<Event>,
}

/// A field of the stage's packed point.
struct Placed {
    /// Its name.
    name: String,
    /// Its lowest bit.
    lo: u32,
    /// Its bits.
    width: u32,
}

/// A cell's valid bit changing: `when` it does, `cell` which.
pub(crate) struct Event {
    /// The condition, a Verilog expression.
    pub when: String,
    /// The cell's index, a Verilog expression.
    pub cell: String,
}

/// The valid bits `<v>0` and `<v>1` of two places, a head and the point taken while it waits,
/// as statements of an `always @(posedge clk)`: both empty after reset or start; where the head
/// `moves` (it is free or leaves) it takes the second place's point or the one offered
/// (`takes`); otherwise what is offered goes to the second place. The places' data follow the
/// same conditions.
pub(crate) fn two_places(v: &str, moves: &str, takes: &str) -> String {
    format!(
        "        if (rst || start) begin\n            {v}0 <= 1'b0;\n            {v}1 <= 1'b0;\n        end else if ({moves}) begin\n            {v}0 <= {v}1 || {takes};\n            {v}1 <= 1'b0;\n        end else if ({takes}) {v}1 <= 1'b1;\n"
    )
}

fn slice(at: u32, w: u32) -> String {
    if w == 1 {
        format!("{at}")
    } else {
        format!("{}:{at}", at + w - 1)
    }
}

fn range(w: u32) -> String {
    if w == 1 {
        String::new()
    } else {
        format!("[{}:0] ", w - 1)
    }
}
