//! The iteration generator of a loop nest ([`LoopNest`]) as a module: it walks the nest's
//! counters in order and holds each point until told to move on. Within the innermost loop it
//! gives a new point every cycle (`next` steps the innermost counter at once). While a row is
//! walked, a state machine finds the first point of the next row on a shadow copy of the
//! counters (one cycle per level it leaves or enters), so that a row ends and the next begins
//! in the same cycle whatever the loops between them (GEMM's reduction steps once per plane of
//! a tile, and a few cycles per step would cost a parallel sub-band about a tenth of its time).
//! A row too short for the search still goes on to the next row of the same outer loop in the
//! same cycle: that row is kept in registers, set as each row begins.
//! For the clock, a step never waits on a bound's arithmetic and a comparison in series: the
//! innermost counter is compared with its row's last value, registered as the row begins;
//! the search compares each bound on its own; only whether a level's step goes in is chosen by
//! level. Counters of up to [`GATE_COMPARE_BITS`](crate::verilog::GATE_COMPARE_BITS) bits are
//! compared with gates, which the logic after a comparison can share a LUT with (a carry chain's
//! output cannot).
//! Compute processes use it for their own iterations; memory processes run one per channel
//! they serve (the consumer's or producer's nest) and merge them in σ order.

use crate::verilog::{le_w, linear_w, lit_w, min_max, sext};
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
    let g = Walker { l, d, w };
    // `c` the point handed out, `n` the search's shadow: once `ready`, the next row's first point.
    for k in 0..d {
        let _ = writeln!(
            o,
            "    reg signed [{m}:0] c{k}, n{k};\n    assign cs[{}:{}] = c{k};",
            w as usize * (k + 1) - 1,
            w as usize * k,
            m = w - 1
        );
    }
    g.search_bounds(&mut o);
    g.row_ahead(&mut o);
    g.steps(&mut o);
    o
}

/// What the generator's parts share: the nest, its depth and the counters' width.
struct Walker<'a> {
    l: &'a LoopNest,
    d: usize,
    w: u32,
}

/// A level's bounds as Verilog expressions over some counters: each lower bound and each
/// upper bound (an empty list stands for 0 or -1: no point).
struct Bounds {
    lower: Vec<String>,
    upper: Vec<String>,
    /// The counters' width (how [`le_w`] compares).
    w: u32,
}

impl Bounds {
    /// The greatest lower bound and the least upper bound.
    fn range(&self) -> (String, String) {
        let fold = |xs: &[String], f: &str| xs[1..].iter().fold(xs[0].clone(), |acc, x| format!("{f}({acc}, {x})"));
        (fold(&self.lower, "smax"), fold(&self.upper, "smin"))
    }

    /// Whether the level has a point: every lower bound at most every upper one. Comparing
    /// the bounds pairwise, rather than their maximum with their minimum, keeps one carry
    /// chain between the sums and the answer.
    fn nonempty(&self) -> String {
        let pairs: Vec<String> = self.lower.iter().flat_map(|a| self.upper.iter().map(move |b| le_w(a, b, self.w))).collect();
        pairs.join(" && ")
    }

    /// Whether `x` is within the bounds that a step `up` (or down) can pass; with the bounds
    /// shifted back by a step, whether the point a step on from `x` is still in the level
    /// (the step folded into the bounds' constants: no sum before the comparison).
    fn holds(&self, x: &str, up: bool) -> String {
        let all: Vec<String> = match up {
            true => self.upper.iter().map(|b| le_w(x, b, self.w)).collect(),
            false => self.lower.iter().map(|b| le_w(b, x, self.w)).collect(),
        };
        all.join(" && ")
    }
}

impl Walker<'_> {
    fn lit(&self, v: i64) -> String {
        lit_w(v, self.w)
    }

    /// Counter `c`'s bounds over `names` (the counters outside it), each shifted by `shift`,
    /// and with counter `at`'s value taken `moved` further (the bounds of the next row,
    /// written over the counters of this one: the sums keep their length).
    fn bounds(&self, c: &Counter, names: &[String], shift: i64, (at, moved): (usize, i64)) -> Bounds {
        let exprs = |ls: &[Lin], empty: i64| -> Vec<String> {
            match ls.is_empty() {
                true => vec![self.lit(empty)],
                false => {
                    ls.iter().map(|x| linear_w(&x.coef, names, x.cst + shift + x.coef.get(at).map_or(0, |a| a * moved), self.w)).collect()
                }
            }
        };
        Bounds { lower: exprs(&c.lower, 0), upper: exprs(&c.upper, -1), w: self.w }
    }

    fn names(&self, prefix: &str) -> Vec<String> {
        (0..self.d).map(|k| format!("{prefix}{k}")).collect()
    }

    fn plus(&self, v: &str, q: i64) -> String {
        match q > 0 {
            true => format!("{v} + {}", self.lit(q)),
            false => format!("{v} - {}", self.lit(-q)),
        }
    }

    /// Whether the innermost loop over `names` has more than one point: each lower bound a
    /// step below each upper one (pairwise, as in [`Bounds::nonempty`]).
    fn longer_than_one(&self, names: &[String], moved: (usize, i64)) -> String {
        let inner = &self.l.counters[self.d - 1];
        let lower = self.bounds(inner, names, inner.step.abs(), moved).lower;
        Bounds { lower, upper: self.bounds(inner, names, 0, moved).upper, w: self.w }.nonempty()
    }

    /// Whether the innermost counter at `x` has not passed `lim` (a row's last value).
    fn before_limit(&self, x: &str, lim: &str) -> String {
        match self.l.counters[self.d - 1].step > 0 {
            true => le_w(x, lim, self.w),
            false => le_w(lim, x, self.w),
        }
    }

    /// The innermost counter's last value over `names`, from which it does not step: its
    /// bound in its direction less one step (shifting each bound alike).
    fn inner_limit(&self, names: &[String], moved: (usize, i64)) -> String {
        let inner = &self.l.counters[self.d - 1];
        let (lo, hi) = self.bounds(inner, names, -inner.step, moved).range();
        if inner.step > 0 {
            hi
        } else {
            lo
        }
    }

    /// What a search step needs of each level, over the outer shadow counters: whether it
    /// has a point and its first one (settling), its counter stepped and whether that is still
    /// in it (advancing); `ok<k>` whether level k's step goes in, `to<k>` the value it gives the
    /// counter. Each bound is compared on its own (a maximum compared with a minimum would put
    /// a carry chain and a multiplexer before the comparison's chain), and only whether the
    /// step goes in is chosen by level.
    fn search_bounds(&self, o: &mut String) {
        let (d, m) = (self.d, self.w - 1);
        let shadow = self.names("n");
        let _ = writeln!(
            o,
            "    // The search for the next row, on the shadow counters: the level being settled or\n    // advanced, a bit per level (the step's choice by level is then gates, not a multiplexer\n    // after the bounds' comparisons); `ready`: found, `last`: there is none.\n    reg [{d}:0] at;\n    reg busy, advancing, ready, last;\n    // The shadow holds the point in the cycle the search ends: taken then, it costs no cycle.\n    wire found = busy && !advancing && at[{d}];"
        );
        for (k, c) in self.l.counters.iter().enumerate() {
            let b = self.bounds(c, &shadow, 0, (0, 0));
            let (lo, hi) = b.range();
            // A counter steps by ±1, or by q along a hyperplane dealt out to q sub-bands.
            let stepped = self.plus(&shadow[k], c.step);
            let _ = writeln!(
                o,
                "    wire ok{k} = advancing ? {} : {};\n    wire signed [{m}:0] to{k} = advancing ? {stepped} : {};",
                self.bounds(c, &shadow, -c.step, (0, 0)).holds(&shadow[k], c.step > 0),
                b.nonempty(),
                if c.step > 0 { lo } else { hi },
            );
        }
        let oks: Vec<String> = (0..d).rev().map(|k| format!("ok{k}")).collect();
        let _ = writeln!(
            o,
            "    wire ok = |({{{}}} & at[{}:0]);\n    wire signed [{m}:0] shadow_lim = {};",
            oks.join(", "),
            d - 1,
            self.inner_limit(&shadow, (0, 0)),
        );
    }

    /// The row after the one handed out, in registers set as that row begins: the level above
    /// the innermost one step on and the innermost from its start, whether both fit, and the
    /// innermost counter's last value there. A row begun from the shadow takes the row after
    /// the shadow's (whose outer counters settled at least a cycle before it is found); one
    /// begun from these registers takes the row two steps past the current one. Either way
    /// the next row is known from the row's first cycle, so rows of one point follow each
    /// other without a bubble.
    fn row_ahead(&self, o: &mut String) {
        let (d, m) = (self.d, self.w - 1);
        let _ = writeln!(
            o,
            "    reg signed [{m}:0] ilim, nlim;  // the innermost counter's last value in the row handed out and in the shadow's\n    reg more;  // the point handed out is not its row's last"
        );
        if d < 2 {
            return;
        }
        let _ = writeln!(o, "    reg row_fits, row_more;\n    reg signed [{m}:0] row_outer, row_first, row_lim;");
        self.row_after(o, "shadow_row", &self.names("n"), 1);
        self.row_after(o, "cur_row2", &self.names("c"), 2);
    }

    /// `<name>_fits`, `_outer`, `_first`, `_lim` and `_more` (its first point is not its
    /// last): the row `steps` steps of the level above the innermost past the one counters
    /// `names` are in.
    fn row_after(&self, o: &mut String, name: &str, names: &[String], steps: i64) {
        let (d, m) = (self.d, self.w - 1);
        let (outer, inner) = (&self.l.counters[d - 2], &self.l.counters[d - 1]);
        let moved = (d - 2, steps * outer.step);
        let outer_step = self.plus(&names[d - 2], steps * outer.step);
        let row = self.bounds(inner, names, 0, moved);
        let (row_lo, row_hi) = row.range();
        let _ = writeln!(
            o,
            "    wire {name}_fits = {} && {};\n    wire signed [{m}:0] {name}_outer = {outer_step};\n    wire signed [{m}:0] {name}_first = {};\n    wire signed [{m}:0] {name}_lim = {};\n    wire {name}_more = {};",
            self.bounds(outer, names, -steps * outer.step, (0, 0)).holds(&names[d - 2], outer.step > 0),
            row.nonempty(),
            if inner.step > 0 { row_lo } else { row_hi },
            self.inner_limit(names, moved),
            self.longer_than_one(names, moved),
        );
    }

    /// The registers' updates: the search's step on the shadow, then the hand-out of points,
    /// whose assignments win where both set a register (last assignment): a restart sets the
    /// shadow to the row just begun and searches from its outer loop.
    fn steps(&self, o: &mut String) {
        let (d, row) = (self.d, self.d >= 2);
        let (cur, shadow) = (self.names("c"), self.names("n"));
        let _ = writeln!(
            o,
            "    always @(posedge clk) begin\n        if (rst) begin\n            valid <= 1'b0;\n            done <= 1'b0;\n            busy <= 1'b0;\n            advancing <= 1'b0;\n            ready <= 1'b0;\n            last <= 1'b0;\n            at <= {w}'d1;{}",
            if row { "\n            row_fits <= 1'b0;" } else { "" },
            w = d + 1,
        );
        for n in cur.iter().chain(&shadow) {
            let _ = writeln!(o, "            {n} <= {};", self.lit(0));
        }
        let _ = writeln!(
            o,
            "        end else if (start) begin\n            // The search finds the first point.\n            valid <= 1'b0;\n            done <= 1'b0;\n            busy <= 1'b1;\n            advancing <= 1'b0;\n            ready <= 1'b0;\n            last <= 1'b0;\n            at <= {w}'d1;{}\n        end else begin",
            if row { "\n            row_fits <= 1'b0;" } else { "" },
            w = d + 1,
        );
        self.search(o);
        let restart = |o: &mut String, indent: &str| match row {
            true => {
                let _ = writeln!(
                    o,
                    "{indent}busy <= 1'b1;\n{indent}advancing <= 1'b1;\n{indent}ready <= 1'b0;\n{indent}last <= 1'b0;\n{indent}at <= {}'d{};",
                    d + 1,
                    1u64 << (d - 2)
                );
            }
            false => {
                let _ = writeln!(o, "{indent}ready <= 1'b0;\n{indent}last <= 1'b1;");
            }
        };
        // `more` for the next point is worked out with the step, so that `next` meets no
        // comparison on its way to the counters.
        let (c, q) = (&cur[d - 1], self.l.counters[d - 1].step);
        let _ = writeln!(
            o,
            "            if (valid && next && more) begin\n                {c} <= {};\n                more <= {};",
            self.plus(c, q),
            self.before_limit(&self.plus(c, q), "ilim")
        );
        let _ = writeln!(
            o,
            "            end else if ((ready || found) && (!valid || next)) begin\n                valid <= 1'b1;\n                ilim <= nlim;\n                more <= {};",
            self.before_limit(&shadow[d - 1], "nlim")
        );
        if row {
            o.push_str(&Self::set_row("shadow_row", "                "));
        }
        for (c, n) in cur.iter().zip(&shadow) {
            let _ = writeln!(o, "                {c} <= {n};");
        }
        restart(o, "                ");
        if row {
            let _ = writeln!(
                o,
                "            end else if (valid && next && row_fits) begin\n                {} <= row_outer;\n                {} <= row_first;\n                ilim <= row_lim;\n                more <= row_more;\n{}",
                cur[d - 2],
                cur[d - 1],
                Self::set_row("cur_row2", "                ").trim_end()
            );
            for (c, n) in cur.iter().zip(&shadow).take(d - 2) {
                let _ = writeln!(o, "                {n} <= {c};");
            }
            let _ = writeln!(o, "                {} <= row_outer;", shadow[d - 2]);
            restart(o, "                ");
        }
        o.push_str(
            "            end else if (valid && next) begin\n                valid <= 1'b0;\n                done <= last;\n            end else if (!valid && last) begin\n                done <= 1'b1;\n            end\n        end\n    end\nendmodule\n",
        );
    }

    /// The row registers set from `<from>_…` ([`Self::row_after`]).
    fn set_row(from: &str, indent: &str) -> String {
        ["fits", "outer", "first", "lim", "more"].iter().map(|f| format!("{indent}row_{f} <= {from}_{f};\n")).collect()
    }

    /// The search's step on the shadow counters `n` while `busy`: settling the level `at` marks (its first point, or going back out when it is
    /// empty) or advancing it (its next point, or going back out when there is none); past
    /// the innermost level the shadow holds a point.
    fn search(&self, o: &mut String) {
        let d = self.d;
        let _ = writeln!(
            o,
            "            if (busy) begin\n                if (!advancing && at[{d}]) begin\n                    ready <= 1'b1;\n                    busy <= 1'b0;\n                end else begin\n                    if (at[{}]) nlim <= shadow_lim;",
            d - 1,
        );
        for k in 0..d {
            let _ = writeln!(o, "                    if (at[{k}] && ok{k}) n{k} <= to{k};");
        }
        let _ = writeln!(
            o,
            "                    if (ok) begin\n                        advancing <= 1'b0;\n                        at <= at << 1;\n                    end else if (at[0]) begin\n                        last <= 1'b1;\n                        busy <= 1'b0;\n                    end else begin\n                        advancing <= 1'b1;\n                        at <= at >> 1;\n                    end\n                end\n            end"
        );
    }
}
