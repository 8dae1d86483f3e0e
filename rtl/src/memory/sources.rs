//! Loads that wait for their own DDR source ([`dpnc_dpn::ir::Channel::ddr_source`]) rather
//! than for every store of the bands before theirs: what the write side keeps of its bursts
//! awaiting B, what each load generator compares with it, and the load cache's freshness.

use super::text::Landed;
use dpnc_dpn::ir::SourcePiece;
use std::fmt::Write;

/// Most write bursts awaiting B where loads wait for their sources ([`Sources`](super::text::Sources)).
pub const LANDED: usize = 16;

/// The σ key of the last store before a load under source piece `piece` (over the iterators
/// `names`, at the place after every port), as wires named from `name`: the packed key, with
/// each entry's sign bit flipped as the write side keeps it, and its width.
pub fn piece_key(o: &mut String, name: &str, piece: &SourcePiece, names: &[String], after_ports: i64, key_bits: u32) -> (String, u32) {
    let w = key_bits - 1;
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let place = dpnc_dpn::predicate::Affine::constant(after_ports);
    let mut parts = Vec::new();
    for (c, e) in piece.key.iter().chain([&place]).enumerate() {
        let (v, iw) = crate::predicate::affine_expr(e, &refs, 64);
        let x = format!("{name}_k{c}");
        let _ = writeln!(
            o,
            "    // verilator lint_off UNUSEDSIGNAL\n    wire signed [{}:0] {x}_full = {v};\n    // verilator lint_on UNUSEDSIGNAL\n    wire signed [{w}:0] {x} = {x}_full[{w}:0];",
            iw - 1
        );
        parts.push(format!("~{x}[{w}], {x}[{}:0]", w - 1));
    }
    (format!("{{{}}}", parts.join(", ")), parts.len() as u32 * key_bits)
}

/// `g<g>_src_ok`: the load at generator g's head may read DDR, as the last store to its cell
/// before it (under the first of its `pieces` pieces whose condition `g<g>_s<k>_when` holds,
/// keyed `g<g>_s<k>_key`) has landed, or there is none. A register worked out for the head after
/// each edge, as the head's fields are (`g<g>_h_…` the head, `_n_` the entry after it, `_q_` the
/// point pushed), so that the keys' comparison, as wide as a σ key, is not before the issue. It
/// compares with the stores landed before the edge: those only grow, so a store landing at it
/// holds the load back a cycle, never lets it go early. The point pushed is compared a cycle
/// before, as it waits in the point stage (`g<g>_ok_p`), and counts as not landed when it came
/// at the last edge: its key is not then behind the stage's multiplexer, and a load pushed as it
/// comes waits a cycle at the head.
pub fn source_ok(o: &mut String, g: usize, pieces: usize) {
    let ok = |x: &str| {
        let arms: Vec<String> =
            (0..pieces).map(|k| format!("g{g}_{x}_s{k}_when ? acked_any && g{g}_{x}_s{k}_key <= acked_key :")).collect();
        format!("({} 1'b1)", arms.join(" "))
    };
    // Each place's comparison a wire of its own, chosen by gates.
    let _ = writeln!(
        o,
        "    // Its cell's last store before it (none outside these pieces) has landed.\n    wire g{g}_ok_h = {}, g{g}_ok_n = {};\n    // The stage's point, compared at the last edge; `_old`: it was there before that edge.\n    reg g{g}_ok_p, g{g}_p_old;\n    always @(posedge clk) begin\n        g{g}_ok_p <= {};\n        g{g}_p_old <= !g{g}_take;\n    end\n    wire g{g}_ok_q = g{g}_ok_p && g{g}_p_old;\n    reg g{g}_src_ok;\n    always @(posedge clk)\n        g{g}_src_ok <= {};",
        ok("h"),
        ok("n"),
        ok("p"),
        super::module::for_head_by_gates(g, &format!("g{g}_ok_h"), &format!("g{g}_ok_n"), &format!("g{g}_ok_q"), 1)
    );
}

/// The landed-store bookkeeping for keys `key_width` bits wide and a load cache of `entries`
/// (a power of two); without `keyed` (no load has a store to wait for) the bursts' keys are
/// left out.
pub fn landed(keyed: bool, key_width: u32, entries: usize) -> Landed {
    Landed { keyed, landed: LANDED, bkw: LANDED.trailing_zeros(), kw: key_width - 1, entries, ib: entries.trailing_zeros() }
}
