//! The iteration generator of a loop nest ([`LoopNest`]) as a module: it walks the nest's
//! counters in order and holds each point until told to move on. Within the innermost loop it
//! gives a new point every cycle (`next` steps the innermost counter at once); leaving or
//! entering a loop takes one cycle per level, so a process issues one iteration per cycle but
//! for a few cycles at the end of each innermost run.
//! Compute processes use it for their own iterations; memory processes run one per channel
//! they serve (the consumer's or producer's nest) and merge them in σ order.

use crate::verilog::{lin, lit, FUNCTIONS};
use dpnc_dpn::loops::{Lin, LoopNest};
use std::fmt::Write;

/// Module `name` walking `l`: `start` begins at the first point, `valid` says the counters
/// (`cs`, 64 bits each, outermost in the low bits) hold a point, `next` leaves it (`valid`
/// may stay high with the next point in the following cycle), `done` says there are no more.
pub fn module(name: &str, l: &LoopNest) -> String {
    let d = l.counters.len();
    let mut o = String::new();
    let _ = writeln!(o, "// Iteration generator: {d} nested loops ({}), one point per cycle within the innermost loop.", {
        let n: Vec<&str> = l.counters.iter().map(|c| c.name.as_str()).collect();
        n.join(", ")
    });
    let _ = writeln!(
        o,
        "module {name} (\n    input  wire clk,\n    input  wire rst,\n    input  wire start,\n    input  wire next,\n    output reg  valid,\n    output reg  done,\n    output wire [{}:0] cs\n);",
        64 * d.max(1) - 1
    );
    o.push_str(FUNCTIONS);
    if d == 0 {
        // One point, no counters.
        o.push_str(
            "    assign cs = 64'd0;\n    always @(posedge clk) begin\n        if (rst) begin\n            valid <= 1'b0;\n            done <= 1'b0;\n        end else if (start) begin\n            valid <= 1'b1;\n            done <= 1'b0;\n        end else if (valid && next) begin\n            valid <= 1'b0;\n            done <= 1'b1;\n        end\n    end\nendmodule\n\n",
        );
        return o;
    }
    let lw = crate::verilog::index_bits(d + 1);
    let names: Vec<String> = (0..d).map(|k| format!("c{k}")).collect();
    for (k, n) in names.iter().enumerate() {
        let _ = writeln!(o, "    reg signed [63:0] {n};\n    assign cs[{}:{}] = {n};", 64 * k + 63, 64 * k);
    }
    let _ = writeln!(
        o,
        "    reg [{}:0] lvl;      // the level being settled or advanced\n    reg busy, advancing;\n    reg signed [63:0] lo, hi, at;  // bounds of level lvl (from the outer counters) and its counter",
        lw - 1
    );
    let bound = |ls: &[Lin], f: &str, empty: i64| -> String {
        let mut it = ls.iter().map(|x| lin(x, &names));
        match it.next() {
            None => lit(empty),
            Some(first) => it.fold(first, |acc, x| format!("{f}({acc}, {x})")),
        }
    };
    // The innermost loop's bounds depend on the outer counters only: wires, so that the
    // counter can also step in the cycle its point is left.
    let inner = &l.counters[d - 1];
    let _ = writeln!(
        o,
        "    wire signed [63:0] inner_lo = {};\n    wire signed [63:0] inner_hi = {};",
        bound(&inner.lower, "smax", 0),
        bound(&inner.upper, "smin", -1)
    );
    o.push_str("    always @* begin\n        case (lvl)\n");
    for (k, c) in l.counters.iter().enumerate() {
        let (lo, hi) = match k + 1 == d {
            true => ("inner_lo".to_string(), "inner_hi".to_string()),
            false => (bound(&c.lower, "smax", 0), bound(&c.upper, "smin", -1)),
        };
        let _ = writeln!(o, "            {lw}'d{k}: begin lo = {lo}; hi = {hi}; at = {}; end", names[k]);
    }
    o.push_str("            default: begin lo = 64'sd0; hi = -64'sd1; at = 64'sd0; end\n        endcase\n    end\n");
    let steps: Vec<String> = l.counters.iter().map(|c| if c.step > 0 { "1'b1".into() } else { "1'b0".into() }).collect();
    let _ = writeln!(o, "    wire up;  // this level counts up\n    assign up = {};", pick(&steps, "lvl", lw));
    o.push_str("    wire signed [63:0] stepped = up ? at + 64'sd1 : at - 64'sd1;\n");
    let _ = writeln!(
        o,
        "    wire signed [63:0] inner_step = {} {} 64'sd1;\n    wire inner_fits = inner_step >= inner_lo && inner_step <= inner_hi;",
        names[d - 1],
        if inner.step > 0 { "+" } else { "-" }
    );
    let _ = writeln!(o, "    always @(posedge clk) begin\n        if (rst) begin\n            valid <= 1'b0;\n            done <= 1'b0;\n            busy <= 1'b0;\n            advancing <= 1'b0;\n            lvl <= {lw}'d0;");
    for n in &names {
        let _ = writeln!(o, "            {n} <= 64'sd0;");
    }
    let _ = writeln!(
        o,
        "        end else if (start) begin\n            valid <= 1'b0;\n            done <= 1'b0;\n            busy <= 1'b1;\n            advancing <= 1'b0;\n            lvl <= {lw}'d0;\n        end else if (valid && next && inner_fits) begin\n            {} <= inner_step;\n        end else if (valid && next) begin\n            valid <= 1'b0;\n            busy <= 1'b1;\n            advancing <= 1'b1;\n            lvl <= {lw}'d{};\n        end else if (busy) begin\n            if (!advancing && lvl == {lw}'d{d}) begin\n                valid <= 1'b1;\n                busy <= 1'b0;\n            end else if (!advancing) begin\n                if (lo <= hi) begin",
        names[d - 1],
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

/// `case` on `sel` choosing among one-bit constants.
fn pick(vals: &[String], sel: &str, w: u32) -> String {
    let mut s = "1'b0".to_string();
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
