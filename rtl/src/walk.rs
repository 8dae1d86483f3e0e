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
//! the search compares each bound on its own, as one sum compared with zero (the difference
//! of the two sides: a carry chain from the registers, whose sign the logic after it reads);
//! a greatest or least bound is chosen by comparisons side by side; only whether a level's step
//! goes in is chosen by level, and where the search goes next by that level and its
//! neighbours. The point handed out is a register stage behind the counters that also holds
//! the statement's iterators, so that its users start their arithmetic from registers.
//! Compute processes use it for their own iterations; memory processes run one per channel
//! they serve (the consumer's or producer's nest) and merge them in σ order.

use crate::verilog::{all_of, linear_w, lit_w, sext};
use dpnc_dpn::loops::{signed_bits, Counter, Lin, LoopNest};
use std::fmt::Write;

/// Bits of the walker's `cs` port: every counter, packed.
pub fn cs_bits(l: &LoopNest) -> u32 {
    l.counter_bits() * l.counters.len().max(1) as u32
}

/// Bits of each iterator in the walker's `its` port: enough for every value it takes in the
/// nest (so that sums of the counters computed at that width are exact).
pub fn iter_bits(l: &LoopNest) -> u32 {
    l.iter_ranges().iter().fold(2, |w, &(lo, hi)| w.max(signed_bits(lo)).max(signed_bits(hi)))
}

/// Bits of the walker's `its` port: every statement iterator, packed.
pub fn its_bits(l: &LoopNest) -> u32 {
    iter_bits(l) * l.iters.len().max(1) as u32
}

/// The counters held in `v` (a walker's `cs`, or a copy), each sign-extended to 64 bits.
pub fn counters(v: &str, l: &LoopNest) -> Vec<String> {
    let w = l.counter_bits();
    (0..l.counters.len() as u32).map(|k| sext(v, w * k, w)).collect()
}

/// `done` as a register: `finished` (the walk is past its last point) and no point handed out,
/// a cycle late (the users' liveness and picks then start from a flip-flop); never in the
/// cycle after `start`.
fn registered_done(finished: &str) -> String {
    format!("reg done_q;\n    assign done = done_q;\n    always @(posedge clk) done_q <= !(rst || start) && {finished} && !valid;")
}

/// `values` (`w` bits each) packed, the first in the high bits; `w` bits of 0 where there are none.
fn packed(values: &[String], w: u32) -> String {
    match values.is_empty() {
        true => format!("{w}'d0"),
        false => format!("{{{}}}", values.join(", ")),
    }
}

/// The statement's iterators held in `v` (a walker's `its`, or a copy), each sign-extended to
/// 64 bits.
pub fn iterators(v: &str, l: &LoopNest) -> Vec<String> {
    let w = iter_bits(l);
    (0..l.iters.len() as u32).map(|k| sext(v, w * k, w)).collect()
}

/// Module `name` walking `l`: `start` begins at the first point, `valid` says the counters
/// (`cs`, [`LoopNest::counter_bits`] each, signed, outermost in the low bits) and the
/// statement's iterators over them (`its`, [`iter_bits`] each, in the order of
/// [`LoopNest::iters`]) hold a point, `next` leaves it (`valid` may stay high with the next
/// point in the following cycle), `done` says there are no more.
///
/// The point handed out is a register stage behind the counters, where its iterators are
/// worked out: what its users compute from the iterators (guards, clauses, cells, keys) then
/// starts from registers, not from a sum of the counters in the same cycle.
pub fn module(name: &str, l: &LoopNest) -> String {
    let d = l.counters.len();
    let w = l.counter_bits();
    let (cb, ib) = (cs_bits(l), iter_bits(l));
    let mut o = String::new();
    let _ = writeln!(o, "// Iteration generator: {d} nested loops ({}), one point per cycle within the innermost loop.", {
        let n: Vec<&str> = l.counters.iter().map(|c| c.name.as_str()).collect();
        n.join(", ")
    });
    let _ = writeln!(
        o,
        "module {name} (\n    input  wire clk,\n    input  wire rst,\n    input  wire start,\n    input  wire next,\n    output reg  valid,\n    output wire done,\n    output wire [{}:0] cs,\n    output wire [{}:0] its\n);",
        cb - 1,
        its_bits(l) - 1
    );
    if d == 0 {
        // One point, no counters: its iterators are constants.
        let consts: Vec<String> = l.iters.iter().rev().map(|li| lit_w(li.cst, ib)).collect();
        let _ = writeln!(
            o,
            "    assign cs = {w}'d0;\n    assign its = {};\n    reg last;\n    {}",
            packed(&consts, ib),
            registered_done("last")
        );
        o.push_str(
            "    always @(posedge clk) begin\n        if (rst) begin\n            valid <= 1'b0;\n            last <= 1'b0;\n        end else if (start) begin\n            valid <= 1'b1;\n            last <= 1'b1;\n        end else if (valid && next) begin\n            valid <= 1'b0;\n        end\n    end\nendmodule\n\n",
        );
        return o;
    }
    let _ = writeln!(
        o,
        "    // Whether a sum (a comparison's difference) is not negative.\n    // verilator lint_off UNUSEDSIGNAL\n    function nonneg(input signed [{m}:0] x);\n        nonneg = !x[{m}];\n    endfunction\n    // verilator lint_on UNUSEDSIGNAL",
        m = diff_bits(w) - 1
    );
    let g = Walker { l, d, w };
    // `c` the point the counters hold, `n` the search's shadow: once `ready`, the next row's first point.
    for k in 0..d {
        let _ = writeln!(o, "    reg signed [{m}:0] c{k}, n{k};", m = w - 1);
    }
    g.output_stage(&mut o, ib);
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

/// A linear form over the walker's registers, `Σ coef·name + cst`: a bound, a counter or a
/// row's last value, kept as terms so that a comparison of two forms is one sum compared
/// with zero.
#[derive(Clone, Debug)]
struct Form {
    terms: Vec<(i64, String)>,
    cst: i64,
}

impl Form {
    fn of(coef: &[i64], names: &[String], cst: i64) -> Form {
        Form { terms: coef.iter().zip(names).filter(|(a, _)| **a != 0).map(|(a, n)| (*a, n.clone())).collect(), cst }
    }

    fn var(name: &str) -> Form {
        Form { terms: vec![(1, name.to_string())], cst: 0 }
    }

    fn constant(cst: i64) -> Form {
        Form { terms: Vec::new(), cst }
    }

    fn plus(mut self, q: i64) -> Form {
        self.cst += q;
        self
    }

    /// `self - o`, like terms gathered.
    fn minus(&self, o: &Form) -> Form {
        let mut terms = self.terms.clone();
        for (a, n) in &o.terms {
            match terms.iter_mut().find(|(_, m)| m == n) {
                Some(t) => t.0 -= a,
                None => terms.push((-a, n.clone())),
            }
        }
        terms.retain(|(a, _)| *a != 0);
        Form { terms, cst: self.cst - o.cst }
    }

    /// The form's value as a `w`-bit signed Verilog expression: every term carries a `w`-bit
    /// literal (the constant even where it is 0), so that the registers are sign-extended to
    /// `w` bits before they are summed.
    fn value(&self, w: u32) -> String {
        let mut s = String::new();
        let positive_first = self.terms.iter().filter(|t| t.0 > 0).chain(self.terms.iter().filter(|t| t.0 < 0));
        for (a, n) in positive_first {
            let sign = match (s.is_empty(), *a < 0) {
                (true, false) => "",
                (true, true) => "-",
                (false, false) => " + ",
                (false, true) => " - ",
            };
            // A literal even for ±1: the register then widens to `w` bits without a warning.
            let _ = write!(s, "{sign}{} * {n}", lit_w(a.abs(), w));
        }
        let sign = if self.cst < 0 { " - " } else { " + " };
        match s.is_empty() {
            true => lit_w(self.cst, w),
            false => format!("({s}{sign}{})", lit_w(self.cst.abs(), w)),
        }
    }
}

/// The width of the sums that [`le`] compares with zero: a difference of two values of the
/// counters' width `w`, with a bit of margin.
fn diff_bits(w: u32) -> u32 {
    w + 2
}

/// `a <= b` for values of the counters' width `w`: `b - a`, one sum, is not negative (one
/// carry chain from the registers, where comparing two sums puts a chain after each).
/// `None` where the difference is a constant that is not negative (the answer known true).
fn le(a: &Form, b: &Form, w: u32) -> Option<String> {
    let d = b.minus(a);
    match (d.terms.is_empty(), d.cst >= 0) {
        (true, true) => None,
        (true, false) => Some("1'b0".into()),
        (false, _) => Some(format!("nonneg({})", d.value(diff_bits(w)))),
    }
}

/// Whether `a <= b` for every pair of `pairs`, at the counters' width `w`: one sum compared
/// with zero per pair, where pairs whose differences share their terms keep the one with the
/// least constant, the others following from it (a level's lower and upper bounds often differ
/// by the same terms, and every comparison dropped is a carry chain less before the AND).
fn all_le<'f>(pairs: impl IntoIterator<Item = (&'f Form, &'f Form)>, w: u32) -> String {
    // The terms in the order they came (a leading negative term costs Yosys a negation).
    let key = |d: &Form| {
        let mut t = d.terms.clone();
        t.sort_by(|x, y| x.1.cmp(&y.1));
        t
    };
    let mut tightest: Vec<Form> = Vec::new();
    for (a, b) in pairs {
        let d = b.minus(a);
        match tightest.iter_mut().find(|t| key(t) == key(&d)) {
            Some(t) => t.cst = t.cst.min(d.cst),
            None => tightest.push(d),
        }
    }
    all_of(tightest.iter().filter_map(|d| le(&Form::constant(0), d, w)).collect())
}

/// The greatest (or least) of `forms`, at the counters' width `w`: each form chosen where it
/// is at least (at most) every other, the chosen ones ORed (several are chosen only where
/// they are equal). The comparisons are side by side, not a chain of maxima.
fn extreme(forms: &[Form], greatest: bool, w: u32) -> String {
    if forms.len() == 1 {
        return forms[0].value(w);
    }
    let picks: Vec<String> = (0..forms.len())
        .filter(|&j| !forms[j].terms.is_empty() || forms[j].cst != 0)
        .map(|j| {
            let wins = all_of(
                (0..forms.len())
                    .filter(|&i| i != j)
                    .filter_map(|i| match greatest {
                        true => le(&forms[i], &forms[j], w),
                        false => le(&forms[j], &forms[i], w),
                    })
                    .collect(),
            );
            format!("({wins} ? {} : {})", forms[j].value(w), lit_w(0, w))
        })
        .collect();
    match picks.is_empty() {
        true => lit_w(0, w),
        false => format!("({})", picks.join(" | ")),
    }
}

/// A level's bounds over some counters: each lower bound and each upper bound (an empty list
/// stands for 0 or -1: no point).
struct Bounds {
    lower: Vec<Form>,
    upper: Vec<Form>,
    /// The counters' width.
    w: u32,
}

impl Bounds {
    /// The greatest lower bound.
    fn first(&self) -> String {
        extreme(&self.lower, true, self.w)
    }

    /// The least upper bound.
    fn last(&self) -> String {
        extreme(&self.upper, false, self.w)
    }

    /// Whether the level has a point: every lower bound at most every upper one. Comparing
    /// the bounds pairwise, rather than their maximum with their minimum, keeps one carry
    /// chain between the registers and the answer.
    fn nonempty(&self) -> String {
        all_le(self.lower.iter().flat_map(|a| self.upper.iter().map(move |b| (a, b))), self.w)
    }

    /// Whether `x` is within the bounds that a step `up` (or down) can pass; with the bounds
    /// shifted back by a step, whether the point a step on from `x` is still in the level
    /// (the step folded into the bounds' constants).
    fn holds(&self, x: &Form, up: bool) -> String {
        match up {
            true => all_le(self.upper.iter().map(|b| (x, b)), self.w),
            false => all_le(self.lower.iter().map(|b| (b, x)), self.w),
        }
    }
}

impl Walker<'_> {
    fn lit(&self, v: i64) -> String {
        lit_w(v, self.w)
    }

    /// Counter `c`'s bounds over `names` (the counters outside it), each shifted by `shift`,
    /// and with counter `at`'s value taken `moved` further (the bounds of the next row,
    /// written over the counters of this one).
    fn bounds(&self, c: &Counter, names: &[String], shift: i64, (at, moved): (usize, i64)) -> Bounds {
        let forms = |ls: &[Lin], empty: i64| -> Vec<Form> {
            match ls.is_empty() {
                true => vec![Form::constant(empty)],
                false => ls.iter().map(|x| Form::of(&x.coef, names, x.cst + shift + x.coef.get(at).map_or(0, |a| a * moved))).collect(),
            }
        };
        Bounds { lower: forms(&c.lower, 0), upper: forms(&c.upper, -1), w: self.w }
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
    fn before_limit(&self, x: &Form, lim: &str) -> String {
        match self.l.counters[self.d - 1].step > 0 {
            true => all_of(le(x, &Form::var(lim), self.w).into_iter().collect()),
            false => all_of(le(&Form::var(lim), x, self.w).into_iter().collect()),
        }
    }

    /// The innermost counter's last value over `names`, from which it does not step: its
    /// bound in its direction less one step (shifting each bound alike).
    fn inner_limit(&self, names: &[String], moved: (usize, i64)) -> String {
        let inner = &self.l.counters[self.d - 1];
        let b = self.bounds(inner, names, -inner.step, moved);
        match inner.step > 0 {
            true => b.last(),
            false => b.first(),
        }
    }

    /// The point handed out (`valid`, `cs`, `its`), a register stage behind the counters' point
    /// (`cv`; `cdone`: the counters are past the last point): it takes that point at an edge
    /// where it is free or its point leaves (`adv`).
    fn output_stage(&self, o: &mut String, ib: u32) {
        let ctr: Vec<String> = (0..self.d).rev().map(|k| format!("c{k}")).collect();
        // The counters at the iterators' width: sums modulo 2^ib are exact where the result fits.
        let names: Vec<String> = (0..self.d)
            .map(|k| match ib.cmp(&self.w) {
                std::cmp::Ordering::Equal => format!("c{k}"),
                std::cmp::Ordering::Less => format!("$signed(c{k}[{}:0])", ib - 1),
                std::cmp::Ordering::Greater => format!("$signed({{{{{}{{c{k}[{}]}}}}, c{k}}})", ib - self.w, self.w - 1),
            })
            .collect();
        let its: Vec<String> = self.l.iters.iter().rev().map(|li| linear_w(&li.coef, &names, li.cst, ib)).collect();
        let _ = writeln!(
            o,
            "    reg cv, cdone;\n    wire adv = !valid || next;\n    reg [{}:0] cs_q;\n    reg [{}:0] its_q;\n    assign cs = cs_q;\n    assign its = its_q;\n    {}\n    always @(posedge clk) begin\n        if (rst || start) valid <= 1'b0;\n        else if (cv && adv) valid <= 1'b1;\n        else if (next) valid <= 1'b0;\n        if (cv && adv) begin\n            cs_q <= {{{}}};\n            its_q <= {};\n        end\n    end",
            cs_bits(self.l) - 1,
            its_bits(self.l) - 1,
            registered_done("cdone"),
            ctr.join(", "),
            packed(&its, ib),
        );
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
            // A counter steps by ±1, or by q along a hyperplane dealt out to q sub-bands.
            let stepped = self.plus(&shadow[k], c.step);
            let _ = writeln!(
                o,
                "    wire ok{k} = advancing ? {} : {};\n    wire signed [{m}:0] to{k} = advancing ? {stepped} : {};",
                self.bounds(c, &shadow, -c.step, (0, 0)).holds(&Form::var(&shadow[k]), c.step > 0),
                b.nonempty(),
                if c.step > 0 { b.first() } else { b.last() },
            );
        }
        // `at` is one level's bit: where the search goes next depends on that level's `ok` and
        // its neighbours', not on all of them (the step in, or out, or staying at level 0).
        let step: Vec<String> = (0..=d)
            .rev()
            .map(|k| {
                let mut ways = Vec::new();
                if k > 0 {
                    ways.push(format!("(at[{}] && ok{})", k - 1, k - 1));
                }
                if k < d - 1 {
                    ways.push(format!("(at[{}] && !ok{})", k + 1, k + 1));
                }
                if k == 0 {
                    ways.push("(at[0] && !ok0)".into());
                }
                ways.join(" || ")
            })
            .collect();
        let out: Vec<String> = (1..d).map(|k| format!("(at[{k}] && !ok{k})")).collect();
        let _ = writeln!(
            o,
            "    wire [{d}:0] at_step = {{\n        {}\n    }};\n    wire advancing_step = (at[0] && !ok0 && advancing){};\n    wire signed [{m}:0] shadow_lim = {};",
            step.join(",\n        "),
            out.iter().map(|t| format!(" || {t}")).collect::<String>(),
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
        let _ = writeln!(
            o,
            "    wire {name}_fits = {} && {};\n    wire signed [{m}:0] {name}_outer = {outer_step};\n    wire signed [{m}:0] {name}_first = {};\n    wire signed [{m}:0] {name}_lim = {};\n    wire {name}_more = {};",
            self.bounds(outer, names, -steps * outer.step, (0, 0)).holds(&Form::var(&names[d - 2]), outer.step > 0),
            row.nonempty(),
            if inner.step > 0 { row.first() } else { row.last() },
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
            "    always @(posedge clk) begin\n        if (rst) begin\n            cv <= 1'b0;\n            cdone <= 1'b0;\n            busy <= 1'b0;\n            advancing <= 1'b0;\n            ready <= 1'b0;\n            last <= 1'b0;\n            at <= {w}'d1;{}",
            if row { "\n            row_fits <= 1'b0;" } else { "" },
            w = d + 1,
        );
        for n in cur.iter().chain(&shadow) {
            let _ = writeln!(o, "            {n} <= {};", self.lit(0));
        }
        let _ = writeln!(
            o,
            "        end else if (start) begin\n            // The search finds the first point.\n            cv <= 1'b0;\n            cdone <= 1'b0;\n            busy <= 1'b1;\n            advancing <= 1'b0;\n            ready <= 1'b0;\n            last <= 1'b0;\n            at <= {w}'d1;{}\n        end else begin",
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
            "            if (cv && adv && more) begin\n                {c} <= {};\n                more <= {};",
            self.plus(c, q),
            self.before_limit(&Form::var(c).plus(q), "ilim")
        );
        let _ = writeln!(
            o,
            "            end else if ((ready || found) && (!cv || adv)) begin\n                cv <= 1'b1;\n                ilim <= nlim;\n                more <= {};",
            self.before_limit(&Form::var(&shadow[d - 1]), "nlim")
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
                "            end else if (cv && adv && row_fits) begin\n                {} <= row_outer;\n                {} <= row_first;\n                ilim <= row_lim;\n                more <= row_more;\n{}",
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
            "            end else if (cv && adv) begin\n                cv <= 1'b0;\n                cdone <= last;\n            end else if (!cv && last) begin\n                cdone <= 1'b1;\n            end\n        end\n    end\nendmodule\n",
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
        // A level takes its value whether or not it fits (`ok`): one that does not is left for
        // the level outside it, and nothing reads it before it is settled again, from the
        // bounds of the levels outside it. So its register's input waits for `to` alone, not
        // for the bounds' comparisons behind `ok`.
        for k in 0..d {
            let _ = writeln!(o, "                    if (at[{k}]) n{k} <= to{k};");
        }
        let _ = writeln!(
            o,
            "                    at <= at_step;\n                    advancing <= advancing_step;\n                    if (at[0] && !ok0) begin\n                        last <= 1'b1;\n                        busy <= 1'b0;\n                    end\n                end\n            end"
        );
    }
}
