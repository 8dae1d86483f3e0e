//! The load cache's per-line bits (`filled`, `current`, `awaiting`) on caches over
//! [`DIRECT_LOOKUP_BITS`] of index, written a cycle after the edge that decides them. A write's
//! condition comes late in the cycle (a miss is known once the pick, the hit and the issue
//! are), and a decoder of hundreds of lines after it would be the module's slowest path;
//! registered, the write and its decoder start at flip-flops. Until it lands, the rows that
//! read the bits apply the pending writes after their lookup (`PlaceRows::with_pending`), so every reader
//! sees a write from the edge that decided it, as before.

use crate::rows::{Change, DIRECT_LOOKUP_BITS};
use std::fmt::Write;

/// Whether a cache with `index_bits` of index writes its per-line bits a cycle late.
pub(super) fn applies(index_bits: u32) -> bool {
    index_bits > DIRECT_LOOKUP_BITS
}

/// The register `bits` (`lines` of them, a line's index `ib` bits wide) with `writes` (a later
/// one over an earlier one at the same line) registered and applied at the next edge, and
/// `<bits>_now`, the bits with them applied, which the register takes; `reset` (when, and the
/// whole vector's value) takes precedence, and drops the writes of its edge. Returns the
/// pending writes, for the rows that read the bits.
pub(super) fn write(o: &mut String, bits: &str, lines: usize, ib: u32, writes: &[Change], reset: (&str, &str)) -> Vec<Change> {
    let _ = writeln!(o, "    // {bits}: each edge's writes registered and applied at the next edge.");
    for (k, w) in writes.iter().enumerate() {
        let _ = writeln!(
            o,
            "    reg {bits}_w{k}, {bits}_w{k}_v;\n    reg [{}:0] {bits}_w{k}_at;\n    always @(posedge clk) begin\n        {bits}_w{k} <= !({}) && {};\n        {bits}_w{k}_at <= {};\n        {bits}_w{k}_v <= {};\n    end",
            ib - 1,
            reset.0,
            w.when,
            w.at,
            w.value
        );
    }
    let apply: String = (0..writes.len())
        .map(|k| {
            format!("            if ({bits}_w{k} && {bits}_w{k}_at == {bits}_k[{}:0]) {bits}_now[{bits}_k] = {bits}_w{k}_v;\n", ib - 1)
        })
        .collect();
    let _ = writeln!(
        o,
        "    reg [{n}:0] {bits}_now;\n    integer {bits}_k;\n    always @* begin\n        {bits}_now = {bits};\n        for ({bits}_k = 0; {bits}_k < {lines}; {bits}_k = {bits}_k + 1) begin\n{apply}        end\n    end\n    always @(posedge clk)\n        if ({}) {bits} <= {};\n        else {bits} <= {bits}_now;",
        reset.0,
        reset.1,
        n = lines - 1
    );
    (0..writes.len())
        .map(|k| Change { when: format!("{bits}_w{k}"), at: format!("{bits}_w{k}_at"), value: format!("{bits}_w{k}_v") })
        .collect()
}
