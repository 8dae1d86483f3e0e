//! The load cache's filled bit of the σ-next load's line. Where the cache has more lines than
//! one cycle's lookup chooses among ([`DIRECT_LOOKUP_BITS`]), looked up directly it would be
//! most of a cycle before the hit, and the hit decides the issue, the burst and the queue's
//! push. The σ-next load's cell is its generator's head's (or the read-ahead's), a register
//! worked out for the head after each edge ([`super::module::for_head`]), so the lookup takes
//! two cycles ([`PlaceRows`]): each generator's rows are registered for the places its head may
//! take its cell from (the head, the entry after it, the point pushed), the read-ahead's for
//! its own (itself, the next line, the line after a generator's load), and the bit is chosen
//! from them after the registers, with the last edge's changes applied: a miss fills its line,
//! a start empties the cache.

use crate::rows::{Place, PlaceRows, DIRECT_LOOKUP_BITS};
use std::fmt::Write;

/// The cache's shape as the lookup needs it.
pub(super) struct Lines {
    /// How many there are (the filled bits `filled`).
    pub lines: usize,
    /// Bits of a line's index (`ld_idx`).
    pub index_bits: u32,
    /// Bits of a cell's place in its line.
    pub lane_bits: u32,
    /// Bits of a generator's cell (`g<g>_cell_q`).
    pub cell_bits: u32,
}

/// `ld_filled`, the σ-next load's line's filled bit, over the load generators `loads` (each
/// with the lines a miss of its fetches ahead), choosing a generator by `pick<g>` and the
/// read-ahead by `ra_want`. Written after `hit`, which the read-ahead's places read.
pub(super) fn filled(o: &mut String, shape: &Lines, loads: &[(usize, u32)]) {
    let Lines { lines, index_bits: ib, lane_bits: lb, cell_bits: xw } = *shape;
    if ib <= DIRECT_LOOKUP_BITS {
        let _ = writeln!(o, "    assign ld_filled = filled[ld_idx];");
        return;
    }
    // A line's index from a cell of `xw` bits.
    let idx = |cell: &str| match xw >= lb + ib {
        true => format!("{cell}[{}:{lb}]", lb + ib - 1),
        false => format!("{{{}'d0, {cell}[{}:{lb}]}}", lb + ib - xw, xw - 1),
    };
    // Each place's index wire; a wire's high bits go unread where no read-ahead adds to it.
    let index = |o: &mut String, name: &str, value: String| {
        let _ = writeln!(
            o,
            "    // verilator lint_off UNUSEDSIGNAL\n    wire [{}:0] {name} = {value};\n    // verilator lint_on UNUSEDSIGNAL",
            ib - 1
        );
    };
    let _ = writeln!(o, "    // The filled bits of each generator's head's line and the read-ahead's, in rows registered\n    // for each place they may take their cell from.");
    let mut bits = Vec::new();
    for &(g, _) in loads {
        for (place, cell) in [("h", "h_cell_q"), ("n", "n_cell_q"), ("q", "q_cell_q"), ("", "cell_q")] {
            index(o, &format!("g{g}_fi{place}"), idx(&format!("g{g}_{cell}")));
        }
        let places = [
            Place { when: format!("g{g}_fq[0] && !g{g}_pop"), cell: format!("g{g}_fih") },
            Place { when: format!("g{g}_pop && g{g}_fq[1]"), cell: format!("g{g}_fin") },
            Place { when: String::new(), cell: format!("g{g}_fiq") },
        ];
        let rows = PlaceRows::new(o, &format!("g{g}_frow"), "filled", lines, ib, &places);
        bits.push((format!("pick{g}"), rows.bit(&format!("g{g}_fi"))));
    }
    let ahead: Vec<usize> = loads.iter().filter(|l| l.1 > 0).map(|l| l.0).collect();
    let mut bit = super::module::select(bits, "1'b0");
    if !ahead.is_empty() {
        // The next line's index of the read-ahead and of each generator that starts one, as
        // registers beside the cells they follow: no increment before the rows' lookup.
        index(o, "ra_fi", idx("ra_cell"));
        let _ = writeln!(
            o,
            "    reg [{m}:0] ra_fi1;  // ra_fi + 1\n    always @(posedge clk)\n        if (ld_go && ra_want) ra_fi1 <= ra_fi1 + {ib}'d1;\n        else if (ld_go && !hit && ld_ahead != 0) ra_fi1 <= ld_idx + {ib}'d2;",
            m = ib - 1
        );
        let mut places = vec![
            Place { when: "!(ld_go && (ra_want || (!hit && ld_ahead != 0)))".into(), cell: "ra_fi".into() },
            Place { when: "ra_want".into(), cell: "ra_fi1".into() },
        ];
        for &g in &ahead {
            // Each place's sum, chosen by gates (a multiplexer would become one adder after it).
            let m = ib - 1;
            let _ = writeln!(
                o,
                "    wire [{m}:0] g{g}_fih1 = g{g}_fih + {ib}'d1, g{g}_fin1 = g{g}_fin + {ib}'d1, g{g}_fiq1 = g{g}_fiq + {ib}'d1;\n    wire g{g}_fi_h = g{g}_fq[0] && !g{g}_pop, g{g}_fi_n = g{g}_pop && g{g}_fq[1];\n    // verilator lint_off UNUSEDSIGNAL\n    reg [{m}:0] g{g}_fi1;  // g{g}_fi + 1\n    // verilator lint_on UNUSEDSIGNAL\n    always @(posedge clk)\n        g{g}_fi1 <= (g{g}_fih1 & {{{ib}{{g{g}_fi_h}}}}) | (g{g}_fin1 & {{{ib}{{g{g}_fi_n}}}}) | (g{g}_fiq1 & {{{ib}{{!g{g}_fi_h && !g{g}_fi_n}}}});"
            );
            places.push(Place { when: format!("pick{g}"), cell: format!("g{g}_fi1") });
        }
        let rows = PlaceRows::new(o, "ra_frow", "filled", lines, ib, &places);
        bit = format!("ra_want ? {} : {bit}", rows.bit("ra_fi"));
    }
    let _ = writeln!(
        o,
        "    // The last edge's changes: the line a miss filled, the cache emptied by a start.\n    reg f_set, f_emptied;\n    reg [{}:0] f_set_at;\n    always @(posedge clk) begin\n        f_set <= !start && ld_go && !hit;\n        f_set_at <= ld_idx;\n        f_emptied <= start;\n    end\n    assign ld_filled = !f_emptied && (({bit}) || (f_set && f_set_at == ld_idx));",
        ib - 1
    );
}
