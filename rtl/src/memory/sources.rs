//! Loads that wait for their own DDR source ([`dpnc_dpn::ir::Channel::ddr_source`]) rather
//! than for every store of the bands before theirs: what the write side keeps of its bursts
//! awaiting B, what each load generator compares with it, and the load cache's freshness.

use super::text::Landed;
use crate::process::pred_v;
use std::fmt::Write;

/// Most write bursts awaiting B where loads wait for their sources ([`Sources`](super::text::Sources)).
pub const LANDED: usize = 16;

/// `g<g>_src_ok`: the load at generator g's position may read DDR, as the last store to its
/// cell before it (`pieces`, over the iterators `names`) has landed, or there is none.
pub fn source_ok(o: &mut String, g: usize, pieces: &[dpnc_dpn::ir::SourcePiece], names: &[String], after_ports: i64, key_bits: u32) {
    let w = key_bits - 1;
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut arms = Vec::new();
    for (k, piece) in pieces.iter().enumerate() {
        let mut parts = Vec::new();
        let place = dpnc_dpn::predicate::Affine::constant(after_ports);
        for (c, e) in piece.key.iter().chain([&place]).enumerate() {
            let (v, iw) = crate::predicate::affine_expr(e, &refs, 64);
            let x = format!("g{g}_s{k}_k{c}");
            let _ = writeln!(
                o,
                "    // verilator lint_off UNUSEDSIGNAL\n    wire signed [{}:0] {x}_full = {v};\n    // verilator lint_on UNUSEDSIGNAL\n    wire signed [{w}:0] {x} = {x}_full[{w}:0];",
                iw - 1
            );
            parts.push(format!("~{x}[{w}], {x}[{}:0]", w - 1));
        }
        let _ = writeln!(o, "    wire [{}:0] g{g}_s{k}_key = {{{}}};", parts.len() as u32 * key_bits - 1, parts.join(", "));
        arms.push(format!("{} ? acked_any && g{g}_s{k}_key <= acked_key :", pred_v(&piece.when, names)));
    }
    let _ = writeln!(
        o,
        "    // Its cell's last store before it (none outside these pieces) has landed.\n    wire g{g}_src_ok = {} 1'b1;",
        arms.join(" ")
    );
}

/// The landed-store bookkeeping for keys `key_width` bits wide; without `keyed` (no load has
/// a store to wait for) the bursts' keys are left out.
pub fn landed(keyed: bool, key_width: u32) -> Landed {
    Landed { keyed, landed: LANDED, bkw: LANDED.trailing_zeros(), kw: key_width - 1 }
}
