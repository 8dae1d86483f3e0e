//! Read-ahead: a load that misses fetches, in the same burst, the next lines of its row that
//! its generator will read later in the band, so that a band's rows come in long bursts
//! rather than one short burst per tile.
//!
//! Where a loop of the band's last hyperplane runs along an array's rows (GEMM's `A[i][k]`,
//! BiCG's `A[i][j]` in bands of rows), each tile reads a few lines of every row of the band's
//! footprint and the next tile the lines after them: without read-ahead every tile pays the
//! memory's latency per row, and the number of reads in flight, not the bandwidth, bounds the
//! band. A read-ahead is a queue entry of its own that only fills its line in the load cache
//! (it goes to no channel); the loads that want the line later hit. Tags change at issue and
//! lines at fan-out, in queue order, so a hit still finds its line there, whatever a
//! read-ahead evicts afterwards: read-ahead changes which lines are fetched, never a value.
//!
//! Only arrays the kernel reads and does not write have it (their lines never go stale), and
//! only accesses of a matrix (or deeper) whose rows a band reads along its last hyperplane, so
//! that the lines fetched ahead are the band's: the innermost subscript is one iterator (plus
//! a constant) that no band hyperplane moves, every other subscript a constant or one iterator
//! that a band hyperplane bounds to a tile. How far ahead is bounded so that the band's rows
//! fit in half the cache (a direct-mapped cache: rows a stride apart collide well before it is
//! full).

use super::{Cache, Gen, LINE_BYTES};
use dpnc_dpn::ir::{Dpn, Key};
use dpnc_frontend::ir::{Aff, Program};
use std::fmt::Write;

/// Bits of the count of lines still to fetch ahead.
pub(super) const BITS: u32 = 6;
/// Most lines one miss fetches ahead: what the count holds.
const MOST: u32 = (1 << BITS) - 1;

/// The iterator `a` is, up to a constant: `Some(None)` for a constant, `Some(Some(d))` for
/// iterator `d` plus a constant, `None` otherwise.
fn one_iterator(a: &Aff) -> Option<Option<usize>> {
    match a {
        Aff::Const(_) | Aff::Param(_) => Some(None),
        Aff::Iter(d) => Some(Some(*d)),
        Aff::Add(x, y) => match (one_iterator(x)?, one_iterator(y)?) {
            (None, d) | (d, None) => Some(d),
            _ => None,
        },
        Aff::Sub(x, y) => match (one_iterator(x)?, one_iterator(y)?) {
            (d, None) => Some(d),
            _ => None,
        },
        _ => None,
    }
}

/// Lines a miss of load generator `gen` may fetch ahead of its own (0: no read-ahead).
pub(super) fn lines_ahead(p: &Program, dpn: &Dpn, gen: &Gen, cache: &Cache) -> u32 {
    let v = &p.vars[gen.access.var];
    // A read-ahead takes an issue slot per line; a single row (a vector) read in order is
    // fetched in whole bursts anyway, so there it would only slow a streaming load.
    let Some((inner, outer)) = gen.access.index.split_last() else { return 0 };
    if outer.is_empty() {
        return 0;
    }
    let band = &dpn.schedules[gen.stmt].band;
    let tiles = || band.iter().filter_map(|k| if let Key::Tile(f, s) = k { Some((f, *s)) } else { None });
    // The row runs along an iterator that no band hyperplane moves.
    let Some(Some(x)) = one_iterator(inner) else { return 0 };
    if tiles().any(|(f, _)| f.coef.get(x).is_some_and(|&c| c != 0)) {
        return 0;
    }
    // Rows of a band: per outer subscript, the tile that bounds its iterator.
    let mut rows: u64 = 1;
    for a in outer {
        match one_iterator(a) {
            Some(None) => {}
            Some(Some(y)) => {
                let only_y =
                    |f: &dpnc_dpn::tiling::Affine| f.coef.iter().enumerate().all(|(j, &c)| if j == y { c.abs() == 1 } else { c == 0 });
                match tiles().find(|(f, _)| only_y(f)) {
                    Some((_, s)) => rows = rows.saturating_mul(s.max(1) as u64),
                    None => return 0,
                }
            }
            None => return 0,
        }
    }
    let per_row = (cache.lines as u64 / 2) / rows;
    let row_lines = (v.dims.last().copied().unwrap_or(1).max(1) as u64).div_ceil(1 << cache.lane_bits);
    per_row.saturating_sub(1).min(row_lines.saturating_sub(1)).min(MOST as u64) as u32
}

/// The line of an access's row's last element (`row_end`, a cell), `xw` bits: what the point
/// stage keeps for the count of lines its miss fetches ahead ([`lines_to_fetch`]).
pub(super) fn row_line(o: &mut String, name: &str, row_end: &str, lane_bits: u32, xw: u32) -> String {
    let _ = writeln!(
        o,
        "    // verilator lint_off UNUSEDSIGNAL\n    wire signed [63:0] {name}_row_end = {row_end};\n    // verilator lint_on UNUSEDSIGNAL"
    );
    format!("{name}_row_end[{}:{lane_bits}]", xw + lane_bits - 1)
}

/// The count of lines a miss of the access in cell `cell` fetches ahead: up to `row_line`
/// (the line of its row's last element), at most `most`. Worked out between the point stage and
/// the queue (the walker's counters to the row's end is a cell's products and sums already);
/// its difference is a wire named from `name`.
pub(super) fn lines_to_fetch(o: &mut String, name: &str, row_line: &str, cell: &str, lane_bits: u32, xw: u32, most: u32) -> String {
    // Wide enough for the count's bits and the difference's sign.
    let (w, pad) = (xw.max(BITS), xw.max(BITS) - xw + 1);
    let _ = writeln!(
        o,
        "    // Lines of its row after this one, for a miss to fetch ahead (at most {most}).\n    wire signed [{w}:0] {name}_after = $signed({{{pad}'d0, {row_line}}}) - $signed({{{pad}'d0, {cell} >> {lane_bits}}});"
    );
    format!("{name}_after <= 0 ? {BITS}'d0 : {name}_after >= {most} ? {BITS}'d{most} : {name}_after[{}:0]", BITS - 1)
}

/// The read-ahead's state: the next line to fetch ahead (`ra_cell`, its first cell, and
/// `ra_addr`, its byte address) and how many are left; `ra_want`: a read-ahead goes next
/// instead of the σ-next load, a register ([`update`]).
pub(super) fn state(o: &mut String) {
    let _ = writeln!(
        o,
        "    // Read-ahead: after a miss, the next lines of its row, one queue entry each (no fan-out).\n    reg ra_on;\n    reg signed [63:0] ra_cell;\n    reg [63:0] ra_addr;\n    reg [{}:0] ra_left;\n    wire ra_want = ra_on;",
        BITS - 1
    );
}

/// The read-ahead's update, once `hit` is known: a miss of the σ-next load starts one (its
/// generator's count, `ld_ahead`); each read-ahead moves to the next line; it stops at its count
/// or at a line already there (the rest of the row is likely there too), and once every
/// generator is done (nothing would read the lines; the register stops a cycle later, so that
/// `ra_want` is a flip-flop: one more line may be fetched, which changes no value). The array's
/// base is line-aligned, so the next line's address is the line's plus a line.
pub(super) fn update(o: &mut String, lane_bits: u32) {
    let _ = writeln!(
        o,
        "    always @(posedge clk) begin\n        if (rst || start || all_done) ra_on <= 1'b0;\n        else if (ld_go) begin\n            if (ra_want) begin\n                if (hit || ra_left == {b}'d1) ra_on <= 1'b0;\n                ra_left <= ra_left - {b}'d1;\n                ra_cell <= ra_cell + 64'sd{per_line};\n                ra_addr <= ra_addr + 64'd{LINE_BYTES};\n            end else if (!hit && ld_ahead != {b}'d0) begin\n                ra_on <= 1'b1;\n                ra_left <= ld_ahead;\n                ra_cell <= ((ld_cell_full >>> {lane_bits}) + 64'sd1) <<< {lane_bits};\n                ra_addr <= ld_line_addr + 64'd{LINE_BYTES};\n            end\n        end\n    end",
        b = BITS,
        per_line = 1u64 << lane_bits
    );
}
