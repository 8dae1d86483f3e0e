//! A wide vector of valid bits looked up in two cycles. A bit chosen among thousands is a
//! multiplexer several LUT levels deep, too deep to share a 300 MHz cycle with what its answer
//! decides. Split by a cell's high bits into rows and by its low bits within a row, the row is
//! chosen one cycle and the bit the next, each a shallow multiplexer.
//!
//! Where the cell is held in a register, the row of the cell the register holds after an edge
//! is registered at that edge ([`PlaceRows`]). The register's next cell is often chosen late in
//! the cycle (it moves when the bit says so), so each place it may take its cell from has its
//! row registered, and the choice among them is made after the registers, from the places'
//! conditions, also registered. A row registered at an edge holds the bits as they were before
//! it: its users apply that edge's changes.

use std::fmt::Write;

/// The widest cell number whose valid bit is looked up in one cycle: 256 bits are four LUTs
/// and their wide multiplexers, beside the logic after them.
pub const DIRECT_LOOKUP_BITS: u32 = 8;

/// The most rows [`PlaceRows`] chooses among before its registers: 128 are two LUT levels and
/// their wide multiplexers, which fit a cycle after a place's cell (a register, or a LUT-RAM
/// read or an increment from one), and leave rows narrow enough that choosing the place and
/// the bit after the registers is two LUT levels.
const ROW_CHOICE_BITS: u32 = 7;

/// `name`, the valid bits `valid` (`cells` of them) as an array of rows of 2^`lo` bits, 2^`hi`
/// rows, padded with zeros: a cell's high bits choose its row, its low bits the bit in it.
pub(crate) fn row_array(o: &mut String, name: &str, valid: &str, cells: usize, lo: u32, hi: u32) {
    let (row_bits, rows) = (1usize << lo, 1usize << hi);
    let pad = rows * row_bits - cells;
    let all = if pad == 0 { valid.to_string() } else { format!("{{{pad}'d0, {valid}}}") };
    let _ = writeln!(
        o,
        "    wire [{}:0] {name}_all = {all};\n    reg [{}:0] {name} [0:{}];\n    integer {name}_k;\n    always @* for ({name}_k = 0; {name}_k < {rows}; {name}_k = {name}_k + 1) {name}[{name}_k] = {name}_all[{name}_k * {row_bits} +: {row_bits}];",
        rows * row_bits - 1,
        row_bits - 1,
        rows - 1,
    );
}

/// A place a register may take its next cell from at an edge.
pub(crate) struct Place {
    /// When it takes it from here, in priority order (the first place whose condition holds;
    /// the last place's is not read).
    pub when: String,
    /// The cell there, a wire of the lookup's `bits`, before the edge.
    pub cell: String,
}

/// A write to one of the valid bits, as Verilog expressions: an edge's change, or one still to
/// land at the next edge.
#[derive(Clone)]
pub(crate) struct Change {
    /// When it is made.
    pub when: String,
    /// The cell it writes.
    pub at: String,
    /// The bit it writes.
    pub value: String,
}

/// The registered rows of a register's cell ([`row_array`] over `valid`, `cells` bits, cells of
/// `bits` bits): `<name>_r<k>` the row of place `k`'s cell, `<name>_from` the places'
/// conditions, `<name>_row` the row of the place the register took its cell from.
pub(crate) struct PlaceRows {
    name: String,
    /// The low bits of a cell, which choose within a row.
    lo: u32,
}

impl PlaceRows {
    /// Writes the rows, their registers and the registered choice.
    pub fn new(o: &mut String, name: &str, valid: &str, cells: usize, bits: u32, places: &[Place]) -> PlaceRows {
        Self::with_pending(o, name, valid, cells, bits, places, &[])
    }

    /// [`Self::new`] where `valid` is written a cycle late: `pending` (the later over the
    /// earlier) are applied to each place's row as it is registered, after the row's lookup
    /// (compared with the row's cell, not applied to all the valid bits before it).
    pub fn with_pending(
        o: &mut String,
        name: &str,
        valid: &str,
        cells: usize,
        bits: u32,
        places: &[Place],
        pending: &[Change],
    ) -> PlaceRows {
        let lo = bits.saturating_sub(ROW_CHOICE_BITS);
        let hi = bits - lo;
        row_array(o, &format!("{name}_rows"), valid, cells, lo, hi);
        let (width, m) = (1usize << lo, bits - 1);
        let mut rows = Vec::new();
        for (k, p) in places.iter().enumerate() {
            let mut row = format!("{name}_rows[{}[{m}:{lo}]]", p.cell);
            for (j, w) in pending.iter().enumerate() {
                let (at, cell, wire) = (&w.at, &p.cell, format!("{name}_p{k}_{j}"));
                let patched = match lo {
                    0 => format!("{} && {at} == {cell} ? {} : {row}", w.when, w.value),
                    _ => format!(
                        "{} && {at}[{m}:{lo}] == {cell}[{m}:{lo}] ? ({row} & ~({width}'d1 << {at}[{l}:0])) | ({{{width}{{{}}}}} & ({width}'d1 << {at}[{l}:0])) : {row}",
                        w.when,
                        w.value,
                        l = lo - 1
                    ),
                };
                let _ = writeln!(o, "    wire [{}:0] {wire} = {patched};", width - 1);
                row = wire;
            }
            rows.push(row);
        }
        Self::registered(o, name, lo, places, &rows)
    }

    /// One bit per place, `value(place)` (a Verilog expression over the place's cell) registered
    /// at each edge, and the registered choice: where a bit is looked up in the cycle before the
    /// edge, with that edge's changes applied as it is registered.
    pub fn bits(o: &mut String, name: &str, places: &[Place], value: &dyn Fn(&Place) -> String) -> PlaceRows {
        Self::registered(o, name, 0, places, &places.iter().map(value).collect::<Vec<_>>())
    }

    /// Each place's row of 2^`lo` bits, `rows` (one expression per place), registered; the
    /// places' conditions registered beside them; and the row of the first place whose
    /// condition held.
    fn registered(o: &mut String, name: &str, lo: u32, places: &[Place], rows: &[String]) -> PlaceRows {
        assert!(places.len() >= 2, "a register that takes its cell from one place needs no choice");
        let regs: Vec<String> = (0..places.len()).map(|k| format!("{name}_r{k}")).collect();
        let from = places.len() - 1;
        let _ = writeln!(o, "    reg [{}:0] {};\n    reg [{}:0] {name}_from;", (1usize << lo) - 1, regs.join(", "), from - 1);
        o.push_str("    always @(posedge clk) begin\n");
        for (r, row) in regs.iter().zip(rows) {
            let _ = writeln!(o, "        {r} <= {row};");
        }
        let conds: Vec<&str> = places[..from].iter().rev().map(|p| p.when.as_str()).collect();
        let _ = writeln!(o, "        {name}_from <= {{{}}};\n    end", conds.join(", "));
        // The first place whose condition held.
        let chosen = (0..from).rev().fold(format!("{name}_r{from}"), |rest, k| format!("{name}_from[{k}] ? {name}_r{k} : {rest}"));
        let _ = writeln!(o, "    wire [{}:0] {name}_row = {chosen};", (1usize << lo) - 1);
        PlaceRows { name: name.to_string(), lo }
    }

    /// The bit at the register's cell `cell` (a wire of the lookup's bits), as the valid bits
    /// were before the last edge.
    pub fn bit(&self, cell: &str) -> String {
        match self.lo {
            0 => format!("{}_row[0]", self.name),
            lo => format!("{}_row[{cell}[{}:0]]", self.name, lo - 1),
        }
    }
}
