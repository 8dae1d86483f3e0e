//! The point stage of a compute process: two places between its walker and its issue, each
//! holding a point with what the issue decides on (the process's guard, which clause each
//! read takes, a scratchpad cell, a first or last read), worked out as the point enters.
//! Worked out at issue, that arithmetic would lie on a path from the walker's counters through
//! the operands' presence and back into the walker's step: well over a 300 MHz cycle. Here the
//! walker steps while the stage has a free place (a register), and the issue starts from
//! registers. Two places keep one point a cycle going: the second takes
//! the walker's point in the cycle the first cannot leave.

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
    /// point, each field by its name; `leave` (over those) says the head's point goes.
    pub fn finish(self, cs_bits: u32, leave: &str) -> String {
        let mut o = self.text;
        let width: u32 = cs_bits + self.fields.iter().map(|f| f.1).sum::<u32>();
        let packed: Vec<String> = self.fields.iter().rev().map(|(n, _)| format!("{n}_w")).chain(["w_cs".to_string()]).collect();
        let _ = writeln!(
            o,
            "    // The point stage: pt0 the point at issue, pt1 the walker's point taken while pt0 waits.\n    reg pv0, pv1;\n    reg [{m}:0] pt0, pt1;\n    wire [{m}:0] pt_in = {{{}}};\n    wire pt_leave = pv0 && ({leave});\n    assign wk_next = wk_valid && !pv1;\n    always @(posedge clk) begin\n        if (rst || start) begin\n            pv0 <= 1'b0;\n            pv1 <= 1'b0;\n        end else if (!pv0 || pt_leave) begin\n            pv0 <= pv1 || wk_next;\n            pt0 <= pv1 ? pt1 : pt_in;\n            pv1 <= 1'b0;\n        end else if (wk_next) begin\n            pv1 <= 1'b1;\n            pt1 <= pt_in;\n        end\n    end\n    assign w_valid = pv0;\n    assign w_done = wk_done && !pv0 && !pv1;\n    assign cs = pt0[{}:0];",
            packed.join(", "),
            cs_bits - 1,
            m = width - 1,
        );
        let mut at = cs_bits;
        for (n, w) in &self.fields {
            let bits = if *w == 1 { format!("{at}") } else { format!("{}:{at}", at + w - 1) };
            let _ = writeln!(o, "    wire {}{n} = pt0[{bits}];", range(*w));
            at += w;
        }
        o
    }
}

fn range(w: u32) -> String {
    if w == 1 {
        String::new()
    } else {
        format!("[{}:0] ", w - 1)
    }
}
