//! Loads that wait for their own DDR source ([`dpnc_dpn::ir::Channel::ddr_source`]) rather
//! than for every store of the bands before theirs: what the write side keeps of its bursts
//! awaiting B, what each load generator compares with it, and the load cache's freshness.

use crate::process::pred_v;
use std::fmt::Write;

/// How loads wait for stores where every load channel has its [`Channel::ddr_source`].
///
/// [`Channel::ddr_source`]: dpnc_dpn::ir::Channel::ddr_source
pub const SOURCE_WAIT: &str = "A load waits until the last store to its cell before it in σ (`g<k>_src_ok`)
    // has landed: stores go in σ order and their write responses come back in order, so that
    // is when the burst holding it, or a later one, has been acknowledged (`acked_key`).";

/// Landed stores, for [`SOURCE_WAIT`]: per write burst awaiting B, the σ key of its last store
/// and the number of stores issued up to it; a B retires the oldest.
pub const SOURCES: &str = "    // Landed stores: per write burst awaiting B (at most $LANDED), $WHAT;
    // a B retires the oldest.
$KEYS    reg [31:0] bk_count [0:$LM];
    reg [$BKI:0] bk_head, bk_tail;
    reg [31:0] st_count, acked_count;  // stores issued; of them, those landed
";

/// The keys of [`SOURCES`], where some load has a source.
const SOURCE_KEYS: &str = "    reg [$KW:0] bk_key [0:$LM];
    reg [$KW:0] acked_key;
    reg acked_any;
";

/// [`SOURCES`] updated with the write side.
pub const SOURCES_UPDATE: &str = "    wire [$BKI:0] bk_at = (aw_same || aw_ext) ? bk_tail - $BKW'd1 : bk_tail;  // the open burst's
    always @(posedge clk) begin
        if (st_go) begin$KEY_SET
            bk_count[bk_at] <= st_count + 32'd1;
        end
    end
    always @(posedge clk) begin
        if (rst || start) begin
            bk_head <= $BKW'd0;
            bk_tail <= $BKW'd0;$KEY_RESET
            st_count <= 32'd0;
            acked_count <= 32'd0;
        end else begin
            if (st_go && !aw_same && !aw_ext) bk_tail <= bk_tail + $BKW'd1;
            if (st_go) st_count <= st_count + 32'd1;
            if (b_beat) begin$KEY_ACK
                acked_count <= bk_count[bk_head];
                bk_head <= bk_head + $BKW'd1;
            end
        end
    end
";

/// The load cache where loads wait for their sources only ([`SOURCE_WAIT`]): stores of
/// earlier bands may then land after a line is fetched, so a line is used again only if every
/// store to its entry issued so far had landed when it was fetched.
pub const FRESH: &str = "    // A line is current if every store to its entry had landed when it was fetched.
    reg [31:0] fill_count [0:$N];  // acked_count when the line was fetched
    reg [31:0] wrote_count [0:$N];  // the number of the last store to the entry
    reg [$N:0] wrote;
    wire fresh = !wrote[pick_idx] || $signed(fill_count[pick_idx] - wrote_count[pick_idx]) >= 32'sd0;
    always @(posedge clk) begin
        if (ld_go && !hit) fill_count[pick_idx] <= acked_count;
        if (st_go) wrote_count[pick_idx] <= st_count + 32'd1;
    end
    always @(posedge clk) begin
        if (rst || start) wrote <= $W'd0;
        else if (st_go) wrote[pick_idx] <= 1'b1;
    end
";

/// Most write bursts awaiting B where loads wait for their sources ([`SOURCES`]).
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

/// The slots of [`SOURCES`] and [`SOURCES_UPDATE`] for keys `key_width` bits wide; without
/// `keyed` (no load has a store to wait for) the bursts' keys are left out.
pub fn slots(keyed: bool, key_width: u32) -> Vec<(&'static str, String)> {
    let keys_if = |text: &str| if keyed { text.to_string() } else { String::new() };
    let lb = LANDED.trailing_zeros();
    vec![
        (
            "$WHAT",
            if keyed { "the σ key of its last store and the\n    // stores issued up to it" } else { "the stores issued up to its last" }
                .to_string(),
        ),
        ("$KEYS", keys_if(SOURCE_KEYS)),
        ("$KEY_SET", keys_if("\n            bk_key[bk_at] <= st_key;")),
        ("$KEY_RESET", keys_if("\n            acked_any <= 1'b0;")),
        ("$KEY_ACK", keys_if("\n                acked_key <= bk_key[bk_head];\n                acked_any <= 1'b1;")),
        ("$LANDED", LANDED.to_string()),
        ("$LM", (LANDED - 1).to_string()),
        ("$BKI", (lb - 1).to_string()),
        ("$BKW", lb.to_string()),
        ("$KW", (key_width - 1).to_string()),
    ]
}
