//! A scratchpad's arrivals in the compute process that reads it: two places between the
//! channel and the scratchpad, `arr<c>_d0` the arrival at the scratchpad and `arr<c>_d1` the
//! channel's next one taken while it waits. An arrival goes in (`arr<c>_in`) when its cell is
//! free, so a value never lands on a live one. Taken from the channel directly, the lookup of
//! the cell's valid bit would lie between the channel's head and its pop; here the channel is
//! popped while the second place is free (a register).
//!
//! Where the scratchpad has more words than one LUT level of multiplexers chooses among
//! ([`DIRECT_LOOKUP_BITS`]), the lookup takes two cycles ([`PlaceRows`]): the row of valid bits
//! of each place the first one may take its arrival from (itself, the second place, the
//! channel's head) is registered, with which of them it took; the bit is then chosen from that
//! row and corrected by the last edge's changes. Choosing the row before the registers would
//! put the lookup behind `arr<c>_in` itself, which decides whether the first place moves.

use crate::rows::{Place, PlaceRows, DIRECT_LOOKUP_BITS};
use crate::stage::{two_places, Event};
use std::fmt::Write;

/// The arrivals of scratchpad `c`.
pub(crate) struct Arrivals {
    /// The channel.
    pub c: usize,
    /// The bits of a word.
    w: u32,
    /// The bits of a word's index.
    aw: u32,
}

impl Arrivals {
    /// The two places, the channel's pop and `arr<c>_set`/`arr<c>_set_at` (the cell an arrival
    /// set at the last edge); `arr<c>_in` is declared here and defined by [`Self::lookup`].
    pub fn declare(o: &mut String, c: usize, w: u32, aw: u32) -> Arrivals {
        let m = w + aw - 1;
        let _ = writeln!(
            o,
            "    reg arr{c}_v0, arr{c}_v1;\n    reg [{m}:0] arr{c}_d0, arr{c}_d1;\n    wire [{}:0] arr{c}_at = arr{c}_d0[{m}:{w}];\n    wire arr{c}_in;  // the first place's arrival goes in: its cell is free\n    wire arr{c}_move = !arr{c}_v0 || arr{c}_in;  // the first place is free after this edge\n    assign ch{c}_r = !arr{c}_v1;\n    always @(posedge clk) begin\n{}        if (arr{c}_move) arr{c}_d0 <= arr{c}_v1 ? arr{c}_d1 : ch{c}_d;\n        else if (ch{c}_r) arr{c}_d1 <= ch{c}_d;\n    end",
            aw - 1,
            two_places(&format!("arr{c}_v"), &format!("arr{c}_move"), &format!("ch{c}_v && ch{c}_r"))
        );
        crate::process::last_set(o, &format!("arr{c}"), &format!("arr{c}_in"), &format!("arr{c}_at"), aw);
        Arrivals { c, w, aw }
    }

    /// `arr<c>_in` over the valid bits `sv<c>` of `words` words. `clears` change them at this
    /// edge; `sets` are registers, the cells set at the last edge (this scratchpad's own
    /// arrival among them).
    pub fn lookup(&self, o: &mut String, words: usize, clears: &[Event], sets: &[Event]) {
        let (c, w, aw) = (self.c, self.w, self.aw);
        if aw <= DIRECT_LOOKUP_BITS {
            let _ = writeln!(o, "    assign arr{c}_in = arr{c}_v0 && !sv{c}[arr{c}_at];");
            return;
        }
        let m = w + aw - 1;
        let _ = writeln!(
            o,
            "    // The first place's row of valid bits, registered for each place it may take its arrival\n    // from (itself, the second place, the channel); aclr{c}_*_set: the last edge's releases.\n    // verilator lint_off UNUSEDSIGNAL\n    wire [{}:0] arr{c}_at1 = arr{c}_d1[{m}:{w}], arr{c}_at_ch = ch{c}_d[{m}:{w}];\n    // verilator lint_on UNUSEDSIGNAL",
            aw - 1
        );
        let places = [
            Place { when: format!("!arr{c}_move"), cell: format!("arr{c}_at") },
            Place { when: format!("arr{c}_v1"), cell: format!("arr{c}_at1") },
            Place { when: String::new(), cell: format!("arr{c}_at_ch") },
        ];
        let rows = PlaceRows::new(o, &format!("arow{c}"), &format!("sv{c}"), words, aw, &places);
        let mut bit = format!("({}", rows.bit(&format!("arr{c}_at")));
        for (k, e) in clears.iter().enumerate() {
            let name = format!("aclr{c}_{k}");
            crate::process::last_set(o, &name, &e.when, &e.cell, aw);
            let _ = write!(bit, " && !({name}_set && {name}_set_at == arr{c}_at)");
        }
        bit.push(')');
        for e in sets {
            let _ = write!(bit, " || ({} && {} == arr{c}_at)", e.when, e.cell);
        }
        let _ = writeln!(o, "    assign arr{c}_in = arr{c}_v0 && !({bit});");
    }
}
