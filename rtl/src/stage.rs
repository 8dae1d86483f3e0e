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
//! value, so that the issue does not look a cell's valid bit up. Where a scratchpad has more
//! cells than one LUT level of multiplexers chooses among in a cycle ([`READY_DIRECT_BITS`]),
//! that lookup is split over two cycles: the row of valid bits of the point that the point
//! stage's head holds next is registered a cycle ahead ([`RowLookup`]).

use crate::rows::{row_array, DIRECT_LOOKUP_BITS};
use std::fmt::Write;

/// The stage's text as it is built: what enters it (`<name>_w` wires over the walker's
/// iterators `wit_*`) and the fields it keeps.
pub(crate) struct PointStage {
    text: String,
    fields: Vec<(String, u32)>,
}

impl PointStage {
    /// A stage for the walker's point `w_its`: `raw`, each iterator's name over it (`wit_<i>`)
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

    /// The stage: the walker's `wk_valid`/`wk_next`/`w_its` in; `w_valid` and `its` the head's
    /// point, each field by its name; `leave` (over those) says the head's point goes. With
    /// `ready` bits a ready stage follows ([`Ready`]), whose head is then the one the names
    /// give. Returns the declarations, to go before the fields' users, and the ready stage's
    /// logic, to go after the wires its updates name.
    pub fn finish(mut self, its_bits: u32, leave: &str, ready: &[Ready]) -> (String, String) {
        let mut o = std::mem::take(&mut self.text);
        let width: u32 = its_bits + self.fields.iter().map(|f| f.1).sum::<u32>();
        let packed: Vec<String> = self.fields.iter().rev().map(|(n, _)| format!("{n}_w")).chain(["w_its".to_string()]).collect();
        // With ready bits the point stage's head leaves into the ready stage's second place.
        let head_leave = if ready.is_empty() { leave } else { "!pb_v1" };
        let _ = writeln!(
            o,
            "    // The point stage: pt0 its head, pt1 the walker's point taken while pt0 waits;\n    // pt_next the point pt0 holds after this edge.\n    reg pv0, pv1;\n    reg [{m}:0] pt0, pt1;\n    wire [{m}:0] pt_in = {{{}}};\n    wire pt_leave = pv0 && ({head_leave});\n    wire [{m}:0] pt_next = !pv0 || pt_leave ? (pv1 ? pt1 : pt_in) : pt0;\n    assign wk_next = wk_valid && !pv1;\n    always @(posedge clk) begin\n{}        pt0 <= pt_next;\n        if (pv0 && !pt_leave && wk_next) pt1 <= pt_in;\n    end",
            packed.join(", "),
            two_places("pv", "!pv0 || pt_leave", "wk_next"),
            m = width - 1,
        );
        if ready.is_empty() {
            for f in self.placed(its_bits) {
                let _ = writeln!(o, "    wire {}{} = pt0[{}];", range(f.width), f.name, slice(f.lo, f.width));
            }
            let _ = writeln!(
                o,
                "    assign w_valid = pv0;\n    assign w_done = wk_done && !pv0 && !pv1;\n    assign its = pt0[{}:0];",
                its_bits - 1
            );
            return (o, String::new());
        }
        let _ = writeln!(
            o,
            "    // The ready stage: pb0 the point at issue, pb1 the point stage's head taken while pb0\n    // waits; pr0 and pr1 their ready bits.\n    reg pb_v0, pb_v1;\n    reg [{}:0] pb0, pb1;\n    reg [{}:0] pr0, pr1;\n    assign w_valid = pb_v0;\n    assign w_done = wk_done && !pv0 && !pv1 && !pb_v0 && !pb_v1;\n    assign its = pb0[{}:0];",
            width - 1,
            ready.len() - 1,
            its_bits - 1
        );
        for f in self.placed(its_bits) {
            let _ = writeln!(o, "    wire {}{} = pb0[{}];", range(f.width), f.name, slice(f.lo, f.width));
        }
        for (j, rd) in ready.iter().enumerate() {
            let _ = writeln!(o, "    wire {} = pr0[{j}];", rd.name);
        }
        let logic = self.ready_logic(its_bits, leave, ready);
        (o, logic)
    }

    /// Each field with its lowest bit in the packed point and its width.
    fn placed(&self, its_bits: u32) -> Vec<Placed> {
        let mut at = its_bits;
        let mut v = Vec::new();
        for (n, w) in &self.fields {
            v.push(Placed { name: n.clone(), lo: at, width: *w });
            at += w;
        }
        v
    }
    /// The ready stage's logic: `leave` (over its head's fields) says pb0's point goes.
    fn ready_logic(&self, its_bits: u32, leave: &str, ready: &[Ready]) -> String {
        let placed = self.placed(its_bits);
        let field = |name: &str| placed.iter().find(|f| f.name == name).expect("a ready bit's cell is a field of the stage");
        let cell = |place: &str, name: &str| format!("{place}[{}]", slice(field(name).lo, field(name).width));
        let mut o = String::new();
        let rows: Vec<Option<RowLookup>> =
            ready.iter().enumerate().map(|(j, rd)| RowLookup::new(j, field(&rd.at)).map(|r| r.write(&mut o, rd))).collect();
        // The head's cell as the valid bits hold it after the last edge: looked up directly, or
        // from its row (registered a cycle ago) less the last edge's releases plus its arrivals.
        let looked = |j: usize, rd: &Ready| match &rows[j] {
            None => format!("{}[{}]", rd.valid, cell("pt0", &rd.at)),
            Some(r) => r.bit(rd),
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
        let pa = all(&|j, rd| update(rd, &looked(j, rd), "pt0"));
        let m = ready.len() - 1;
        o + &format!(
            "    wire pb_leave = pb_v0 && ({leave});\n    wire pb_next = pv0 && !pb_v1;  // the point stage's head enters\n    wire pb_move = !pb_v0 || pb_leave;  // pb0 takes a point at this edge\n    wire [{m}:0] pr0_now = {{\n        {pr0}\n    }};\n    wire [{m}:0] pr1_now = {{\n        {pr1}\n    }};\n    wire [{m}:0] pa_now = {{  // the point stage's head, its cells looked up\n        {pa}\n    }};\n    always @(posedge clk) begin\n{}        if (pb_move) begin\n            pb0 <= pb_v1 ? pb1 : pt0;\n            pr0 <= pb_v1 ? pr1_now : pa_now;\n        end else pr0 <= pr0_now;\n        if (!pb_move && pb_next) begin\n            pb1 <= pt0;\n            pr1 <= pa_now;\n        end else pr1 <= pr1_now;\n    end\n",
            two_places("pb_v", "pb_move", "pb_next")
        )
    }
}

/// The widest cell whose ready bit the ready stage looks up in one cycle: one less than
/// [`DIRECT_LOOKUP_BITS`], because the bit then goes through the releases and arrivals of this
/// edge and the choice of the place the stage's head takes (a lookup among 256 with those
/// measured 3,519 ps in Jacobi-1D MEDIUM's `p_S0_0`).
const READY_DIRECT_BITS: u32 = DIRECT_LOOKUP_BITS - 1;

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
    /// How many they are.
    pub cells: usize,
    /// What clears a cell at this edge (the releases).
    pub clears: Vec<Event>,
    /// What set a cell at the last edge (registers: arrivals and the process's own writes).
    pub sets: Vec<Event>,
}

/// A scratchpad read's valid bits looked up in two cycles: the row of the point that the point
/// stage's head holds after this edge (`prow<j>`, its cell's high bits) is registered with it,
/// and so are this edge's releases (`pclr<j>_<k>`); as the point enters the ready stage its bit
/// is chosen from the row (its cell's low bits), and those releases and the arrivals that set
/// a cell at the last edge (registered events already) are applied.
struct RowLookup {
    /// The ready bit's number.
    j: usize,
    /// The cell's field in the packed point.
    cell: Placed,
    /// The low bits of a cell, which choose within a row.
    lo: u32,
}

impl RowLookup {
    /// The lookup of ready bit `j`, whose cell is the field `cell`, where it needs two cycles.
    fn new(j: usize, cell: &Placed) -> Option<RowLookup> {
        (cell.width > READY_DIRECT_BITS).then(|| RowLookup { j, cell: cell.clone(), lo: cell.width / 2 })
    }

    /// The rows, the registered row and the registered releases.
    fn write(self, o: &mut String, rd: &Ready) -> RowLookup {
        let (j, lo, hi, w) = (self.j, self.lo, self.cell.width - self.lo, self.cell.width);
        let at_hi = slice(self.cell.lo + lo, hi);
        let _ = writeln!(
            o,
            "    // {}'s valid bits in rows of {}; prow{j}: the row of the cell that pt0 holds after\n    // this edge, pclr{j}_*: this edge's releases.",
            rd.name,
            1usize << lo
        );
        row_array(o, &format!("pw{j}"), &rd.valid, rd.cells, lo, hi);
        let _ = writeln!(o, "    reg [{}:0] prow{j};", (1usize << lo) - 1);
        for k in 0..rd.clears.len() {
            let _ = writeln!(o, "    reg pclr{j}_{k};\n    reg [{}:0] pclr{j}_{k}_at;", w - 1);
        }
        let _ = writeln!(o, "    always @(posedge clk) begin\n        prow{j} <= pw{j}[pt_next[{at_hi}]];");
        for (k, e) in rd.clears.iter().enumerate() {
            let _ = writeln!(o, "        pclr{j}_{k} <= !(rst || start) && {};\n        pclr{j}_{k}_at <= {};", e.when, e.cell);
        }
        o.push_str("    end\n");
        self
    }

    /// The head's bit, as the valid bits hold it after the last edge.
    fn bit(&self, rd: &Ready) -> String {
        let j = self.j;
        let cell = format!("pt0[{}]", slice(self.cell.lo, self.cell.width));
        let mut b = format!("prow{j}[pt0[{}]]", slice(self.cell.lo, self.lo));
        for k in 0..rd.clears.len() {
            let _ = write!(b, " && !(pclr{j}_{k} && pclr{j}_{k}_at == {cell})");
        }
        format!("({b})")
    }
}

/// A field of the stage's packed point.
#[derive(Clone)]
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
