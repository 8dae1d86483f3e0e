//! The store stage of a memory module whose array is both loaded and stored (`ordered`), or
//! whose stores come from several generators: the σ-next store leaves its generator into
//! `sa`, where its line is compared with the last store's (and, where the array is also
//! loaded, its cell with every queued load), then moves into `sb`, from which it issues. The
//! comparisons (the same or the next line as the open burst; a load of its cell still queued:
//! write after read) end in registers, so a store's issue starts at flip-flops rather than
//! behind the pick, a multiplexer of the generators' addresses and cells and a comparison with
//! every queue entry; a store a cycle moves through both places.
//!
//! Why the comparison may be made in `sa` and not again: a store is taken when it precedes
//! every pending load in σ, so every load issued from then on comes after it in σ and reads
//! another cell (a band never loads a cell its own stores wrote; later bands wait for them).
//! The loads that may read its cell were queued before it was taken and only leave the queue:
//! where one is found, the store waits in `sb` until every load queued when it was compared
//! has fanned out (`sb_left`), which may be longer than needed, never shorter.

use std::fmt::Write;

/// A value of the σ-next store that the stage carries: `sp_<name>` (from the pick) into
/// `sa_<name>`, then `sb_<name>`, read as `st_<name>`.
pub(super) struct Field {
    pub(super) name: String,
    pub(super) width: u32,
    pub(super) signed: bool,
}

impl Field {
    pub(super) fn new(name: impl Into<String>, width: u32, signed: bool) -> Field {
        Field { name: name.into(), width, signed }
    }
}

/// Declarations that the generators and the pick use before the stage is written: whether
/// each place holds a store, and the take from the generators.
pub(super) fn forward(o: &mut String) {
    o.push_str("    // The store stage (`sa`, then `sb`, from which a store issues): whether each place holds\n    // a store, and the σ-next store leaving its generator.\n    reg sa_v, sb_v;\n    wire sa_take, sa_room;\n");
}

/// The stage's places with `fields`, the moves between them, and the `st_<name>` wires;
/// with `band_order` (a field), the check that no store in it belongs to a band before the
/// σ-next load's (`stage_ok`, declared by the pick). The store's line address (lines of
/// 2^`size` bytes) is worked out from `st_addr` after the stage. Where the array is also
/// loaded (`ordered`), the stage compares the store's band too.
pub(super) fn stage(o: &mut String, fields: &[Field], band_order: bool, ordered: bool, size: u32) {
    let decl = |f: &Field| format!("{}[{}:0]", if f.signed { "signed " } else { "" }, f.width - 1);
    o.push_str("    // The store stage: sa's store moves on when sb is empty or its store goes.\n    wire sa_move = sa_v && (!sb_v || st_go);\n    assign sa_room = !sa_v || sa_move;\n    assign sa_take = sp_want && sa_room;\n");
    for f in fields {
        let _ = writeln!(o, "    reg {} sa_{n}, sb_{n};", decl(f), n = f.name);
    }
    let sets =
        |to: &str, from: &str| -> String { fields.iter().map(|f| format!("\n            {to}_{n} <= {from}_{n};", n = f.name)).collect() };
    let _ = writeln!(
        o,
        "    always @(posedge clk) begin\n        if (rst || start) begin\n            sa_v <= 1'b0;\n            sb_v <= 1'b0;\n        end else begin\n            if (sa_take) sa_v <= 1'b1;\n            else if (sa_move) sa_v <= 1'b0;\n            if (sa_move) sb_v <= 1'b1;\n            else if (st_go) sb_v <= 1'b0;\n        end\n        if (sa_take) begin{}\n        end\n        if (sa_move) begin{}\n        end\n    end\n    wire st_want = sb_v;",
        sets("sa", "sp"),
        sets("sb", "sa")
    );
    // What the issue reads of sb's store (which of it depends on the array and the lanes).
    o.push_str("    // verilator lint_off UNUSEDSIGNAL\n");
    for f in fields.iter().filter(|f| f.name != "band_order") {
        let _ = writeln!(o, "    wire {} st_{n} = sb_{n};", decl(f), n = f.name);
    }
    o.push_str("    // verilator lint_on UNUSEDSIGNAL\n");
    let _ = writeln!(o, "    wire [63:0] st_line_addr = {{st_addr[63:{size}], {size}'d0}};");
    let _ = writeln!(
        o,
        "    // sb's store against the store issued before it (its held line, the line after that{}),\n    // worked out as it enters sb (`last`).\n    reg sb_is_last, sb_is_end{};\n    reg [63:0] sb_end;",
        if ordered { ", its band" } else { "" },
        if ordered { ", sb_same_band" } else { "" }
    );
    if band_order {
        o.push_str("    assign stage_ok = (!sa_v || sa_band_order >= l_band_order) && (!sb_v || sb_band_order >= l_band_order);\n");
    }
}

/// Queue entries whose write-after-read matches are reduced before a register.
pub const WAR_GROUP: usize = 8;

/// Write after read over the issue queue (`q_cell`, `q_v`; `queue` entries, a count of `cw`
/// bits): `same(cell)` compares entry `wi` with a cell. `war` holds sb's store back.
///
/// The comparison with every entry ends in registers, one per group of [`WAR_GROUP`] entries
/// (their OR follows them: the whole queue's is deeper than a cycle): made at each edge for
/// sa's store and for each store generator's head (`stores`, one of which sa takes next), and
/// chosen as the store moves into sb by whether sa took it at the last edge. A load queued
/// after the comparison comes after the store in σ (the stage's argument above), so the result
/// only over-counts the loads that fanned out since.
pub(super) fn write_after_read(o: &mut String, same: &dyn Fn(&str) -> String, stores: &[usize], queue: usize, cw: u32) {
    debug_assert_eq!(queue % WAR_GROUP, 0, "whole groups of the queue");
    let groups = queue / WAR_GROUP;
    let mut cells = vec![("sa".to_string(), "sa_cell".to_string())];
    cells.extend(stores.iter().map(|g| (format!("g{g}"), format!("g{g}_cell_q"))));
    let _ = writeln!(
        o,
        "    // Write after read (see the store stage): a queued load reads sa's cell, or the cell of the\n    // store a generator offers, as the queues stood at the last edge; sb's store waits until\n    // the loads queued when it was compared have fanned out. Each entry's match is a bit, the\n    // bits reduced by an OR per group of {WAR_GROUP} before the registers and after them (a loop of\n    // conditional sets becomes a chain of multiplexers).\n    reg [{}:0] {};\n    reg [{}:0] {};\n    reg sa_took;  // sa took its store at the last edge\n    integer wi, wj;\n    always @* begin\n        for (wi = 0; wi < {queue}; wi = wi + 1) begin",
        groups - 1,
        cells.iter().map(|(n, _)| format!("war_{n}_part")).collect::<Vec<_>>().join(", "),
        queue - 1,
        cells.iter().map(|(n, _)| format!("match_{n}")).collect::<Vec<_>>().join(", ")
    );
    for (n, cell) in &cells {
        let _ = writeln!(o, "            match_{n}[wi] = q_v[wi] && {};", same(cell));
    }
    o.push_str("        end\n    end\n    always @(posedge clk) begin\n        sa_took <= sa_take;\n");
    let _ = writeln!(o, "        for (wj = 0; wj < {groups}; wj = wj + 1) begin");
    for (n, _) in &cells {
        let _ = writeln!(o, "            war_{n}_part[wj] <= |match_{n}[{WAR_GROUP}*wj +: {WAR_GROUP}];");
    }
    o.push_str("        end\n    end\n");
    let _ = writeln!(o, "    wire {};", cells.iter().map(|(n, _)| format!("war_{n} = |war_{n}_part")).collect::<Vec<_>>().join(", "));
    let picked: Vec<(String, String)> = stores.iter().map(|g| (format!("sa_pick{g}"), format!("war_g{g}"))).collect();
    let _ = writeln!(o, "    wire sa_war = sa_took ? {} : war_sa;", super::module::select(picked, "1'b0"));
    let _ = writeln!(
        o,
        "    reg sb_wait;\n    reg [{c}:0] sb_left;\n    always @(posedge clk) begin\n        if (rst || start) sb_wait <= 1'b0;\n        else if (sa_move) begin\n            // What is left after this edge's fan-out, the fan-out only choosing (as gates).\n            sb_wait <= sa_war && (fire ? q_count != {cw}'d1 : q_any);\n            sb_left <= (q_down & {{{cw}{{fire}}}}) | (q_count & {{{cw}{{!fire}}}});\n        end else if (sb_wait && fire) begin\n            sb_left <= sb_left - {cw}'d1;\n            sb_wait <= sb_left != {cw}'d1;\n        end\n    end\n    wire war = sb_wait;",
        c = cw - 1,
    );
}

/// `sb_is_last`, `sb_is_end` and `sb_same_band` as sa's store enters sb, against the store
/// issued before it: sb's, if that goes at this edge, else the last one issued (`wb_last`,
/// `wb_end`, `w_band<k>`), which only a store's issue changes while the open burst is open.
/// `bands`: the band entries the stage carries (the others are the same constant for every
/// store), where the order matters (`sb_same_band` is not made otherwise); lines of 2^`size`
/// bytes.
pub(super) fn last(o: &mut String, bands: Option<&[usize]>, size: u32) {
    let same = |bands: &[usize], other: &dyn Fn(usize) -> String, reduced: bool| -> String {
        let v: Vec<String> = (bands.iter())
            .map(|&k| if reduced { format!("~|(sa_band{k} ^ {})", other(k)) } else { format!("sa_band{k} == {}", other(k)) })
            .collect();
        if v.is_empty() {
            "1'b1".into()
        } else {
            v.join(" && ")
        }
    };
    let _ = writeln!(
        o,
        "    wire [63:0] sa_line_addr = {{sa_addr[63:{size}], {size}'d0}};\n    // Each pair of comparisons is written in two forms, so that Yosys does not merge them into\n    // one behind a multiplexer on st_go (which comes late); sb_is_end also says the line does\n    // not start a 4 KiB page (a burst does not cross one).\n    always @(posedge clk) if (sa_move) begin\n        sb_is_last <= st_go ? sa_line_addr == st_line_addr : ~|(sa_line_addr ^ wb_last);\n        sb_is_end <= (st_go ? sa_line_addr == sb_end : ~|(sa_line_addr ^ wb_end)) && sa_line_addr[11:0] != 12'd0;{}\n        sb_end <= sa_line_addr + 64'd{};\n    end",
        bands.map_or(String::new(), |b| format!(
            "\n        sb_same_band <= st_go ? {} : {};",
            same(b, &|k| format!("sb_band{k}"), false),
            same(b, &|k| format!("w_band{k}"), true)
        )),
        1u64 << size
    );
}
