//! The load cache's bits of the σ-next load's line: whether it is filled, and (where stores
//! are tracked) whether it is current. The hit decides the issue, the burst, the queue's push
//! and the generators' pops, so the bits are not looked up at the picked cell in the cycle that
//! uses them. The σ-next load's cell is its generator's head's (or the read-ahead's), a
//! register worked out for the head after each edge ([`super::module::for_head`]), so its bit
//! is registered at that edge for each place the head may take its cell from (itself, the
//! entry after it, the point pushed; the read-ahead's: itself, the next line, the line after a
//! generator's load), and after the registers the source's place and the pick choose among
//! them. Where the cache has at most [`DIRECT_LOOKUP_BITS`] of index, each place's bit is
//! looked up before the edge with that edge's changes applied; on larger caches each place's
//! row is registered ([`PlaceRows`]) and the bit is chosen from it after the register, with the
//! last edge's changes applied. The store stage's `sa` has the latter for the line of the store
//! it holds (itself, or the head of the store generator it picks), which `text::Fresh` reads as
//! the store enters `sb`; on smaller caches `sa` looks its bits up directly.

use super::Cache;
pub(super) use crate::rows::Change;
use crate::rows::{Place, PlaceRows, DIRECT_LOOKUP_BITS};
use std::fmt::Write;

/// The places the σ-next load's line may come from, their index wires written: per source (a
/// load generator, by `pick<g>`, or the read-ahead, by `ra_want`) the places its cell register
/// takes its next cell from, and that register's index.
pub(super) struct NextLine {
    lines: usize,
    index_bits: u32,
    sources: Vec<Source>,
    /// Whose line: `ld` (the σ-next load's) or `sa` (the store stage's); its bits are
    /// `<whose>_<bits>`, at its index `<whose>_idx`.
    whose: &'static str,
}

struct Source {
    /// `g<g>` or `ra`.
    name: String,
    /// When the σ-next load is this source's.
    chosen: String,
    places: Vec<Place>,
    /// The index of the cell it holds.
    index: String,
}

impl NextLine {
    /// The places of the load generators `loads` (each with the lines a miss of its fetches
    /// ahead, its cell `xw` bits) and of the read-ahead where one has it. Written after `hit`,
    /// which the read-ahead's places read.
    pub fn new(o: &mut String, cache: &Cache, xw: u32, loads: &[(usize, u32)]) -> NextLine {
        let (lines, ib, lb) = (cache.lines, cache.index_bits, cache.lane_bits);
        let idx = |cell: &str| index_of(cell, xw, lb, ib);
        // Each place's index wire; a wire's high bits go unread where no read-ahead adds to it.
        let index = |o: &mut String, name: &str, value: String| {
            let _ = writeln!(
                o,
                "    // verilator lint_off UNUSEDSIGNAL\n    wire [{}:0] {name} = {value};\n    // verilator lint_on UNUSEDSIGNAL",
                ib - 1
            );
        };
        let mut sources = Vec::new();
        for &(g, _) in loads {
            for (place, cell) in [("n", "n_cell_q"), ("q", "q_cell_q"), ("", "cell_q")] {
                index(o, &format!("g{g}_fi{place}"), idx(&format!("g{g}_{cell}")));
            }
            let places = vec![
                // The head stays: its cell is the register's (read from the queue, it would be
                // a LUT-RAM read before the rows).
                Place { when: format!("g{g}_stays"), cell: format!("g{g}_fi") },
                Place { when: format!("g{g}_moves"), cell: format!("g{g}_fin") },
                Place { when: String::new(), cell: format!("g{g}_fiq") },
            ];
            sources.push(Source { name: format!("g{g}"), chosen: format!("pick{g}"), places, index: format!("g{g}_fi") });
        }
        let ahead: Vec<usize> = loads.iter().filter(|l| l.1 > 0).map(|l| l.0).collect();
        if !ahead.is_empty() {
            // The next line's index of the read-ahead and of each generator that starts one,
            // as registers beside the cells they follow: no increment before the rows' lookup.
            index(o, "ra_fi", idx("ra_cell"));
            let _ = writeln!(
                o,
                "    reg [{m}:0] ra_fi1;  // ra_fi + 1\n    always @(posedge clk)\n        if (ld_go && ra_want) ra_fi1 <= ra_fi1 + {ib}'d1;\n        else if (ld_miss && ld_ahead != 0) ra_fi1 <= ld_idx + {ib}'d2;",
                m = ib - 1
            );
            let mut places = vec![
                Place { when: "!(ld_go && (ra_want || (!hit && ld_ahead != 0)))".into(), cell: "ra_fi".into() },
                Place { when: "ra_want".into(), cell: "ra_fi1".into() },
            ];
            for &g in &ahead {
                // Each place's sum, chosen by gates.
                let m = ib - 1;
                let _ = writeln!(
                    o,
                    "    wire [{m}:0] g{g}_fih1 = g{g}_fi + {ib}'d1, g{g}_fin1 = g{g}_fin + {ib}'d1, g{g}_fiq1 = g{g}_fiq + {ib}'d1;\n    // verilator lint_off UNUSEDSIGNAL\n    reg [{m}:0] g{g}_fi1;  // g{g}_fi + 1\n    // verilator lint_on UNUSEDSIGNAL\n    always @(posedge clk)\n        g{g}_fi1 <= {};",
                    super::module::for_head_by_gates(g, &format!("g{g}_fih1"), &format!("g{g}_fin1"), &format!("g{g}_fiq1"), ib)
                );
                places.push(Place { when: format!("pick{g}"), cell: format!("g{g}_fi1") });
            }
            sources.push(Source { name: "ra".into(), chosen: "ra_want".into(), places, index: "ra_fi".into() });
        }
        NextLine { lines, index_bits: ib, sources, whose: "ld" }
    }

    /// The places of the store in `sa`: itself where it takes none, else the head of the store
    /// generator it picks (`stores`, each head's cell `xw` bits). `None` where a lookup takes
    /// one cycle.
    pub fn store(o: &mut String, cache: &Cache, xw: u32, stores: &[usize]) -> Option<NextLine> {
        let (ib, lb) = (cache.index_bits, cache.lane_bits);
        if ib <= DIRECT_LOOKUP_BITS {
            return None;
        }
        let mut places = vec![Place { when: "!sa_take".into(), cell: "sa_idx".into() }];
        for &g in stores {
            let _ = writeln!(
                o,
                "    // verilator lint_off UNUSEDSIGNAL\n    wire [{}:0] g{g}_fis = {};\n    // verilator lint_on UNUSEDSIGNAL",
                ib - 1,
                index_of(&format!("g{g}_cell_q"), xw, lb, ib)
            );
            places.push(Place { when: format!("sp_pick{g}"), cell: format!("g{g}_fis") });
        }
        let sources = vec![Source { name: "sa".into(), chosen: "1'b1".into(), places, index: "sa_idx".into() }];
        Some(NextLine { lines: cache.lines, index_bits: ib, sources, whose: "sa" })
    }

    /// `<whose>_<bits>`, the bit of `bits` (a vector over the lines) at its line, as it is
    /// after the last edge: `changes` (first first) and `reset` (when all bits became a value,
    /// taking precedence) are that edge's. Where `bits` is written a cycle late
    /// ([`super::deferred`]), `pending` are the writes still to land, applied to the rows.
    pub fn bit(&self, o: &mut String, bits: &str, pending: &[Change], changes: &[Change], reset: (&str, &str)) {
        let (ib, whose) = (self.index_bits, self.whose);
        if ib <= DIRECT_LOOKUP_BITS {
            self.bit_looked_up(o, bits, changes, reset);
            return;
        }
        let _ = writeln!(o, "    // {bits} of each source's line, in rows registered for each place it may take its cell from.");
        let c = format!("{whose}_{bits}_c");
        let per_source = self.among_several();
        for (k, ch) in changes.iter().enumerate() {
            let _ = writeln!(
                o,
                "    reg {c}{k}, {c}{k}_v;\n    always @(posedge clk) begin\n        {c}{k} <= {};\n        {c}{k}_v <= {};\n    end",
                ch.when, ch.value
            );
            if !per_source {
                let _ = writeln!(o, "    reg [{}:0] {c}{k}_at;\n    always @(posedge clk) {c}{k}_at <= {};", ib - 1, ch.at);
            }
        }
        // The last edge's changes, the first first. Where the pick chooses among generators,
        // they are applied to each source's line before it chooses, not compared with the
        // chosen line's index, which comes after the pick's multiplexer of cells: whether a
        // change is at the source's line is registered per place it takes its cell from, the
        // comparison made before the edge (per source where the change is at the σ-next load's
        // line, [`Self::at_place`]), and chosen after it like the rows. With one generator,
        // that index is a single choice (the read-ahead's or the generator's), and one
        // comparison after it is shorter than the choice after two.
        let _ = writeln!(o, "    reg {whose}_{bits}_reset;\n    always @(posedge clk) {whose}_{bits}_reset <= {};", reset.0);
        let reset = (format!("{whose}_{bits}_reset"), reset.1);
        let value = self.chosen(&mut |s| {
            let row = PlaceRows::with_pending(o, &format!("{}_{bits}", s.name), bits, self.lines, ib, &s.places, pending).bit(&s.index);
            if !per_source {
                return row;
            }
            let value = changes.iter().enumerate().rev().fold(row, |rest, (k, ch)| {
                let at = PlaceRows::bits(o, &format!("{}_{bits}_at{k}", s.name), &s.places, &|p| self.at_place(&ch.at, &p.cell));
                format!("{c}{k} && {} ? {c}{k}_v : {rest}", at.bit(""))
            });
            self.source_bit(o, bits, s, &format!("{} ? {} : {value}", reset.0, reset.1))
        });
        let value = if per_source {
            value
        } else {
            (0..changes.len()).rev().fold(value, |rest, k| format!("{c}{k} && {c}{k}_at == {whose}_idx ? {c}{k}_v : {rest}"))
        };
        let _ = writeln!(o, "    assign {whose}_{bits} = {} ? {} : {value};", reset.0, reset.1);
    }

    /// `<whose>_<bits>_<source>`, source `s`'s bit `value`, a wire: where the pick chooses
    /// among several generators, the read side decides per generator whether its load would
    /// go ([`source_bit`]).
    fn source_bit(&self, o: &mut String, bits: &str, s: &Source, value: &str) -> String {
        let name = source_bit(self.whose, bits, &s.name);
        let _ = writeln!(o, "    wire {name} = {value};");
        name
    }

    /// [`Self::bit`] where a bit is looked up in one cycle: each place's bit is looked up
    /// before the edge and registered as the edge leaves it, its changes and reset applied.
    fn bit_looked_up(&self, o: &mut String, bits: &str, changes: &[Change], reset: (&str, &str)) {
        let _ = writeln!(
            o,
            "    // {bits} of each source's line, registered for each place it may take its cell from, as this edge leaves it."
        );
        let after_edge = |p: &Place| {
            let changed = changes.iter().rev().fold(format!("{bits}[{}]", p.cell), |rest, ch| {
                format!("{} && {} ? {} : {rest}", ch.when, self.at_place(&ch.at, &p.cell), ch.value)
            });
            format!("{} ? {} : {changed}", reset.0, reset.1)
        };
        let several = self.among_several();
        let value = self.chosen(&mut |s| {
            let bit = PlaceRows::bits(o, &format!("{}_{bits}", s.name), &s.places, &after_edge).bit(&s.index);
            if several {
                self.source_bit(o, bits, s, &bit)
            } else {
                bit
            }
        });
        let _ = writeln!(o, "    assign {}_{bits} = {value};", self.whose);
    }

    /// Whether line `at` is place `cell`'s: where `at` is this line's own index, compared per
    /// source (each source's index a register, chosen by the pick after the comparisons), not
    /// after the pick's multiplexer of indices.
    fn at_place(&self, at: &str, cell: &str) -> String {
        if at != format!("{}_idx", self.whose) {
            return format!("{at} == {cell}");
        }
        let chosen = self.chosen(&mut |s| format!("{} == {cell}", s.index));
        if chosen.contains("?") {
            format!("({chosen})")
        } else {
            chosen
        }
    }

    /// The pick chooses among several generators (not counting the read-ahead).
    fn among_several(&self) -> bool {
        among_several(&self.sources)
    }

    /// The bit of the source the pick chose, each source's `bit`: the read-ahead's where it is
    /// due, else the picked generator's, as gates (the picks are exclusive, each a few
    /// registers' function, so the bits meet in one OR rather than a chain of choices; a
    /// single generator's needs no pick).
    fn chosen(&self, bit: &mut dyn FnMut(&Source) -> String) -> String {
        chosen(&self.sources, bit)
    }
}

/// [`NextLine::chosen`] over `sources`.
fn chosen(sources: &[Source], bit: &mut dyn FnMut(&Source) -> String) -> String {
    let several = among_several(sources);
    let (mut picked, mut ahead) = (Vec::new(), None);
    for s in sources {
        let b = bit(s);
        let b = if b.contains('?') { format!("({b})") } else { b };
        match s.name.as_str() {
            "ra" => ahead = Some(format!("{} ? {b} :", s.chosen)),
            _ if several => picked.push(format!("({} && {b})", s.chosen)),
            _ => picked.push(b),
        }
    }
    let picked = if several { format!("({})", picked.join(" || ")) } else { picked.concat() };
    match ahead {
        Some(a) => format!("{a} {picked}"),
        None => picked,
    }
}

/// Whether the σ-next load's line is `index` (a register's), compared per source ([`per_source`]).
pub(super) fn ld_line_is(cache: &Cache, xw: u32, loads: &[(usize, u32)], index: &str) -> String {
    per_source(cache, xw, loads, &|line| format!("{line} == {index}"))
}

/// `of(line)` at the σ-next load's line: where the pick chooses among several generators
/// (`loads`, each with the lines a miss of its fetches ahead), made per source from its own
/// cell register and chosen by the pick after it, not after the pick's multiplexer of cells
/// (`ld_idx`).
pub(super) fn per_source(cache: &Cache, xw: u32, loads: &[(usize, u32)], of: &dyn Fn(&str) -> String) -> String {
    if loads.len() < 2 {
        return of("ld_idx");
    }
    let idx = |cell: &str| index_of(cell, xw, cache.lane_bits, cache.index_bits);
    let source = |name: String, chosen: String, index: String| Source { name, chosen, places: Vec::new(), index };
    let mut sources: Vec<Source> =
        loads.iter().map(|&(g, _)| source(format!("g{g}"), format!("pick{g}"), idx(&format!("g{g}_cell_q")))).collect();
    if loads.iter().any(|l| l.1 > 0) {
        sources.push(source("ra".into(), "ra_want".into(), idx("ra_cell")));
    }
    let value = chosen(&sources, &mut |s| of(&s.index));
    if value.contains('?') {
        format!("({value})")
    } else {
        value
    }
}

/// The wire of `whose`'s bit `bits` at source `source`'s line (`g<g>`, or `ra`), which
/// [`NextLine::bit`] writes where the pick chooses among several generators.
pub(super) fn source_bit(whose: &str, bits: &str, source: &str) -> String {
    format!("{whose}_{bits}_{source}")
}

/// The pick chooses among several of `sources` (not counting the read-ahead).
fn among_several(sources: &[Source]) -> bool {
    sources.iter().filter(|s| s.name != "ra").count() > 1
}

/// A line's index from a cell of `xw` bits (`lb` lane bits below it, `ib` index bits): zero
/// where the cell never leaves the first line.
fn index_of(cell: &str, xw: u32, lb: u32, ib: u32) -> String {
    if xw >= lb + ib {
        format!("{cell}[{}:{lb}]", lb + ib - 1)
    } else if xw > lb {
        format!("{{{}'d0, {cell}[{}:{lb}]}}", lb + ib - xw, xw - 1)
    } else {
        format!("{ib}'d0")
    }
}
