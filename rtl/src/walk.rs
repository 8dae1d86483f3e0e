//! The iteration generator of a loop nest ([`LoopNest`]) as a module: it walks the nest's
//! counters in order and holds each point until told to move on. Within the innermost loop it
//! gives a new point every cycle (`next` steps the innermost counter at once), and from the
//! last point of a row to the first of the next row of the same outer loop in the same cycle
//! (a row change took four cycles, a fifteenth of a 64-point row of Jacobi-1D and more of a
//! parallel sub-band's short rows); leaving or entering any other loop takes one cycle per
//! level.
//! Compute processes use it for their own iterations; memory processes run one per channel
//! they serve (the consumer's or producer's nest) and merge them in σ order.

use crate::verilog::{linear_w, lit_w, min_max, sext};
use dpnc_dpn::loops::{Lin, LoopNest};
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
    let names: Vec<String> = (0..d).map(|k| format!("c{k}")).collect();
    for (k, n) in names.iter().enumerate() {
        let _ = writeln!(o, "    reg signed [{}:0] {n};\n    assign cs[{}:{}] = {n};", w - 1, w as usize * (k + 1) - 1, w as usize * k);
    }
    let _ = writeln!(
        o,
        "    reg [{}:0] lvl;      // the level being settled or advanced\n    reg busy, advancing;\n    reg signed [{}:0] lo, hi, at;  // bounds of level lvl (from the outer counters) and its counter",
        lw - 1,
        w - 1
    );
    let bound_over = |ls: &[Lin], f: &str, empty: i64, names: &[String]| -> String {
        let mut it = ls.iter().map(|x| linear_w(&x.coef, names, x.cst, w));
        match it.next() {
            None => lit(empty),
            Some(first) => it.fold(first, |acc, x| format!("{f}({acc}, {x})")),
        }
    };
    let bound = |ls: &[Lin], f: &str, empty: i64| bound_over(ls, f, empty, &names);
    // The innermost loop's bounds depend on the outer counters only: wires, so that the
    // counter can also step in the cycle its point is left.
    let inner = &l.counters[d - 1];
    let _ = writeln!(
        o,
        "    wire signed [{m}:0] inner_lo = {};\n    wire signed [{m}:0] inner_hi = {};",
        bound(&inner.lower, "smax", 0),
        bound(&inner.upper, "smin", -1),
        m = w - 1
    );
    o.push_str("    always @* begin\n        case (lvl)\n");
    for (k, c) in l.counters.iter().enumerate() {
        let (lo, hi) = match k + 1 == d {
            true => ("inner_lo".to_string(), "inner_hi".to_string()),
            false => (bound(&c.lower, "smax", 0), bound(&c.upper, "smin", -1)),
        };
        let _ = writeln!(o, "            {lw}'d{k}: begin lo = {lo}; hi = {hi}; at = {}; end", names[k]);
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
    let plus = |c: &dpnc_dpn::loops::Counter| if c.step > 0 { format!("+ {}", lit(c.step)) } else { format!("- {}", lit(-c.step)) };
    let _ = writeln!(
        o,
        "    wire signed [{}:0] inner_step = {} {};\n    wire inner_fits = inner_step >= inner_lo && inner_step <= inner_hi;",
        w - 1,
        names[d - 1],
        plus(inner)
    );
    // The next row: the level above the innermost steps and the innermost starts again, with
    // its bounds from the stepped counter, when both fit.
    let row = d >= 2;
    if row {
        let outer = &l.counters[d - 2];
        let mut next_names = names.clone();
        next_names[d - 2] = "outer_step".into();
        let _ = writeln!(
            o,
            "    wire signed [{m}:0] outer_step = {} {};\n    wire outer_fits = outer_step >= {} && outer_step <= {};\n    wire signed [{m}:0] row_lo = {};\n    wire signed [{m}:0] row_hi = {};\n    wire row_fits = outer_fits && row_lo <= row_hi;",
            names[d - 2],
            plus(outer),
            bound(&outer.lower, "smax", 0),
            bound(&outer.upper, "smin", -1),
            bound_over(&inner.lower, "smax", 0, &next_names),
            bound_over(&inner.upper, "smin", -1, &next_names),
            m = w - 1
        );
    }
    let _ = writeln!(o, "    always @(posedge clk) begin\n        if (rst) begin\n            valid <= 1'b0;\n            done <= 1'b0;\n            busy <= 1'b0;\n            advancing <= 1'b0;\n            lvl <= {lw}'d0;");
    for n in &names {
        let _ = writeln!(o, "            {n} <= {};", lit(0));
    }
    let _ = writeln!(
        o,
        "        end else if (start) begin\n            valid <= 1'b0;\n            done <= 1'b0;\n            busy <= 1'b1;\n            advancing <= 1'b0;\n            lvl <= {lw}'d0;\n        end else if (valid && next && inner_fits) begin\n            {} <= inner_step;{}\n        end else if (valid && next) begin\n            valid <= 1'b0;\n            busy <= 1'b1;\n            advancing <= 1'b1;\n            lvl <= {lw}'d{};\n        end else if (busy) begin\n            if (!advancing && lvl == {lw}'d{d}) begin\n                valid <= 1'b1;\n                busy <= 1'b0;\n            end else if (!advancing) begin\n                if (lo <= hi) begin",
        names[d - 1],
        match row {
            true => format!(
                "\n        end else if (valid && next && row_fits) begin\n            {} <= outer_step;\n            {} <= {};",
                names[d - 2],
                names[d - 1],
                if inner.step > 0 { "row_lo" } else { "row_hi" }
            ),
            false => String::new(),
        },
        d - 1
    );
    set_counter(&mut o, &names, lw, "up ? lo : hi", "                    ");
    let _ = writeln!(
        o,
        "                    lvl <= lvl + {lw}'d1;\n                end else if (lvl == {lw}'d0) begin\n                    done <= 1'b1;\n                    busy <= 1'b0;\n                end else begin\n                    advancing <= 1'b1;\n                    lvl <= lvl - {lw}'d1;\n                end\n            end else if (stepped >= lo && stepped <= hi) begin"
    );
    set_counter(&mut o, &names, lw, "stepped", "                ");
    let _ = writeln!(
        o,
        "                advancing <= 1'b0;\n                lvl <= lvl + {lw}'d1;\n            end else if (lvl == {lw}'d0) begin\n                done <= 1'b1;\n                busy <= 1'b0;\n            end else begin\n                lvl <= lvl - {lw}'d1;\n            end\n        end\n    end\nendmodule\n"
    );
    o
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
