//! The iteration generator of a loop nest ([`LoopNest`]) as a module: it walks the nest's
//! counters in order and holds each point until told to move on. Within the innermost loop it
//! gives a new point every cycle (`next` steps the innermost counter at once). While a row is
//! walked, a state machine finds the first point of the next row on a shadow copy of the
//! counters (one cycle per level it leaves or enters), so that a row ends and the next begins
//! in the same cycle whatever the loops between them (GEMM's reduction steps once per plane of
//! a tile, and a few cycles per step would cost a parallel sub-band about a tenth of its time).
//! A row too short for the search still goes on to the next row of the same outer loop in the
//! same cycle.
//! Compute processes use it for their own iterations; memory processes run one per channel
//! they serve (the consumer's or producer's nest) and merge them in σ order.

use crate::verilog::{linear_w, lit_w, min_max, sext};
use dpnc_dpn::loops::{Counter, Lin, LoopNest};
use std::fmt::Write;

/// Bits of the walker's `cs` port: every counter, packed.
pub fn cs_bits(l: &LoopNest) -> u32 {
    l.counter_bits() * l.counters.len().max(1) as u32
}

/// The counters held in `v` (a walker's `cs`, or a copy), each sign-extended to 64 bits.
pub fn counters(v: &str, l: &LoopNest) -> Vec<String> {
    let w = l.counter_bits();
    (0..l.counters.len() as u32).map(|k| sext(v, w * k, w)).collect()
}

/// Module `name` walking `l`: `start` begins at the first point, `valid` says the counters
/// (`cs`, [`LoopNest::counter_bits`] each, signed, outermost in the low bits) hold a point, `next`
/// leaves it (`valid` may stay high with the next point in the following cycle), `done`
/// says there are no more.
pub fn module(name: &str, l: &LoopNest) -> String {
    let d = l.counters.len();
    let w = l.counter_bits();
    let lit = |v: i64| lit_w(v, w);
    let mut o = String::new();
    let _ = writeln!(o, "// Iteration generator: {d} nested loops ({}), one point per cycle within the innermost loop.", {
        let n: Vec<&str> = l.counters.iter().map(|c| c.name.as_str()).collect();
        n.join(", ")
    });
    let _ = writeln!(
        o,
        "module {name} (\n    input  wire clk,\n    input  wire rst,\n    input  wire start,\n    input  wire next,\n    output reg  valid,\n    output reg  done,\n    output wire [{}:0] cs\n);",
        cs_bits(l) - 1
    );
    o.push_str(&min_max(w));
    if d == 0 {
        // One point, no counters.
        let _ = writeln!(o, "    assign cs = {w}'d0;");
        o.push_str(
            "    always @(posedge clk) begin\n        if (rst) begin\n            valid <= 1'b0;\n            done <= 1'b0;\n        end else if (start) begin\n            valid <= 1'b1;\n            done <= 1'b0;\n        end else if (valid && next) begin\n            valid <= 1'b0;\n            done <= 1'b1;\n        end\n    end\nendmodule\n\n",
        );
        return o;
    }
    let lw = crate::verilog::index_bits(d + 1);
    // `c` the point handed out, `n` the search's shadow: once `ready`, the next row's first point.
    let cur: Vec<String> = (0..d).map(|k| format!("c{k}")).collect();
    let shadow: Vec<String> = (0..d).map(|k| format!("n{k}")).collect();
    for (k, (c, n)) in cur.iter().zip(&shadow).enumerate() {
        let _ = writeln!(
            o,
            "    reg signed [{m}:0] {c}, {n};\n    assign cs[{}:{}] = {c};",
            w as usize * (k + 1) - 1,
            w as usize * k,
            m = w - 1
        );
    }
    let _ = writeln!(
        o,
        "    // The search for the next row, on the shadow counters: the level being settled or\n    // advanced; `ready`: found, `last`: there is none.\n    reg [{}:0] lvl;\n    reg busy, advancing, ready, last;\n    reg signed [{}:0] lo, hi, at;  // bounds of level lvl (from the outer shadow counters) and its counter\n    // The shadow holds the point in the cycle the search ends: taken then, it costs no cycle.\n    wire found = busy && !advancing && lvl == {lw}'d{d};",
        lw - 1,
        w - 1
    );
    // A level's bounds over `names` (the counters outside it): the greatest of its lower
    // bounds and the least of its upper ones.
    let range = |c: &Counter, names: &[String]| -> (String, String) {
        let over = |ls: &[Lin], f: &str, empty: i64| {
            let mut it = ls.iter().map(|x| linear_w(&x.coef, names, x.cst, w));
            match it.next() {
                None => lit(empty),
                Some(first) => it.fold(first, |acc, x| format!("{f}({acc}, {x})")),
            }
        };
        (over(&c.lower, "smax", 0), over(&c.upper, "smin", -1))
    };
    o.push_str("    always @* begin\n        case (lvl)\n");
    for (k, c) in l.counters.iter().enumerate() {
        let (lo, hi) = range(c, &shadow);
        let _ = writeln!(o, "            {lw}'d{k}: begin lo = {lo}; hi = {hi}; at = {}; end", shadow[k]);
    }
    let _ = writeln!(o, "            default: begin lo = {}; hi = {}; at = {}; end\n        endcase\n    end", lit(0), lit(-1), lit(0));
    // A counter steps by ±1, or by q along a hyperplane dealt out to q sub-bands.
    let steps: Vec<String> = l.counters.iter().map(|c| lit(c.step)).collect();
    let _ = writeln!(
        o,
        "    wire signed [{m}:0] step = {};  // this level's\n    wire up = step > {};  // this level counts up\n    wire signed [{m}:0] stepped = at + step;",
        pick(&steps, "lvl", lw, &lit(0)),
        lit(0),
        m = w - 1
    );
    // The innermost loop's bounds depend on the outer counters only: wires, so that the
    // counter can also step in the cycle its point is left.
    let inner = &l.counters[d - 1];
    let plus = |c: &Counter| if c.step > 0 { format!("+ {}", lit(c.step)) } else { format!("- {}", lit(-c.step)) };
    let (lo, hi) = range(inner, &cur);
    let _ = writeln!(
        o,
        "    wire signed [{m}:0] inner_step = {} {};\n    wire inner_fits = inner_step >= {lo} && inner_step <= {hi};",
        cur[d - 1],
        plus(inner),
        m = w - 1
    );
    // The next row of the same outer loop, when the search has not found it yet: the level
    // above the innermost steps and the innermost starts again, with its bounds from the
    // stepped counter, when both fit.
    let row = d >= 2;
    if row {
        let outer = &l.counters[d - 2];
        let mut next_names = cur.clone();
        next_names[d - 2] = "outer_step".into();
        let ((lo, hi), (row_lo, row_hi)) = (range(outer, &cur), range(inner, &next_names));
        let _ = writeln!(
            o,
            "    wire signed [{m}:0] outer_step = {} {};\n    wire outer_fits = outer_step >= {lo} && outer_step <= {hi};\n    wire signed [{m}:0] row_lo = {row_lo};\n    wire signed [{m}:0] row_hi = {row_hi};\n    wire row_fits = outer_fits && row_lo <= row_hi;",
            cur[d - 2],
            plus(outer),
            m = w - 1
        );
    }
    let _ = writeln!(
        o,
        "    always @(posedge clk) begin\n        if (rst) begin\n            valid <= 1'b0;\n            done <= 1'b0;\n            busy <= 1'b0;\n            advancing <= 1'b0;\n            ready <= 1'b0;\n            last <= 1'b0;\n            lvl <= {lw}'d0;"
    );
    for n in cur.iter().chain(&shadow) {
        let _ = writeln!(o, "            {n} <= {};", lit(0));
    }
    let _ = writeln!(
        o,
        "        end else if (start) begin\n            // The search finds the first point.\n            valid <= 1'b0;\n            done <= 1'b0;\n            busy <= 1'b1;\n            advancing <= 1'b0;\n            ready <= 1'b0;\n            last <= 1'b0;\n            lvl <= {lw}'d0;\n        end else begin"
    );
    search(&mut o, &shadow, d, lw);
    // Handing out points; where these assign what the search also does, they win (last
    // assignment): a restart sets the shadow to the row just begun and searches from its
    // outer loop.
    let restart = |o: &mut String, indent: &str| match row {
        true => {
            let _ = writeln!(
                o,
                "{indent}busy <= 1'b1;\n{indent}advancing <= 1'b1;\n{indent}ready <= 1'b0;\n{indent}last <= 1'b0;\n{indent}lvl <= {lw}'d{};",
                d - 2
            );
        }
        false => {
            let _ = writeln!(o, "{indent}ready <= 1'b0;\n{indent}last <= 1'b1;");
        }
    };
    let _ = writeln!(o, "            if (valid && next && inner_fits) begin\n                {} <= inner_step;", cur[d - 1]);
    o.push_str("            end else if ((ready || found) && (!valid || next)) begin\n                valid <= 1'b1;\n");
    for (c, n) in cur.iter().zip(&shadow) {
        let _ = writeln!(o, "                {c} <= {n};");
    }
    restart(&mut o, "                ");
    if row {
        let _ = writeln!(
            o,
            "            end else if (valid && next && row_fits) begin\n                {} <= outer_step;\n                {} <= {};",
            cur[d - 2],
            cur[d - 1],
            if inner.step > 0 { "row_lo" } else { "row_hi" }
        );
        for (c, n) in cur.iter().zip(&shadow).take(d - 2) {
            let _ = writeln!(o, "                {n} <= {c};");
        }
        let _ = writeln!(o, "                {} <= outer_step;", shadow[d - 2]);
        restart(&mut o, "                ");
    }
    o.push_str(
        "            end else if (valid && next) begin\n                valid <= 1'b0;\n                done <= last;\n            end else if (!valid && last) begin\n                done <= 1'b1;\n            end\n        end\n    end\nendmodule\n",
    );
    o
}

/// The search's step on the shadow counters `n` while `busy`: settling level `lvl` (its first
/// point, or going back out when it is empty) or advancing it (its next point, or going back
/// out when there is none); past the innermost level the shadow holds a point.
fn search(o: &mut String, n: &[String], d: usize, lw: u32) {
    let _ = writeln!(
        o,
        "            if (busy) begin\n                if (!advancing && lvl == {lw}'d{d}) begin\n                    ready <= 1'b1;\n                    busy <= 1'b0;\n                end else if (!advancing) begin\n                    if (lo <= hi) begin"
    );
    set_counter(o, n, lw, "up ? lo : hi", "                        ");
    let _ = writeln!(
        o,
        "                        lvl <= lvl + {lw}'d1;\n                    end else if (lvl == {lw}'d0) begin\n                        last <= 1'b1;\n                        busy <= 1'b0;\n                    end else begin\n                        advancing <= 1'b1;\n                        lvl <= lvl - {lw}'d1;\n                    end\n                end else if (stepped >= lo && stepped <= hi) begin"
    );
    set_counter(o, n, lw, "stepped", "                    ");
    let _ = writeln!(
        o,
        "                    advancing <= 1'b0;\n                    lvl <= lvl + {lw}'d1;\n                end else if (lvl == {lw}'d0) begin\n                    last <= 1'b1;\n                    busy <= 1'b0;\n                end else begin\n                    lvl <= lvl - {lw}'d1;\n                end\n            end"
    );
}

/// The value of `vals` at index `sel` (`other` past them), as a chain of conditionals.
fn pick(vals: &[String], sel: &str, w: u32, other: &str) -> String {
    let mut s = other.to_string();
    for (k, v) in vals.iter().enumerate().rev() {
        s = format!("({sel} == {w}'d{k}) ? {v} : {s}");
    }
    s
}

/// Assigns `v` to the counter of level `lvl`.
fn set_counter(o: &mut String, names: &[String], w: u32, v: &str, indent: &str) {
    let _ = writeln!(o, "{indent}case (lvl)");
    for (k, n) in names.iter().enumerate() {
        let _ = writeln!(o, "{indent}    {w}'d{k}: {n} <= {v};");
    }
    let _ = writeln!(o, "{indent}    default: ;\n{indent}endcase");
}
