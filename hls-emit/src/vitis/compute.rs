//! A Vitis compute process: its loop nest as one flattened loop that HLS pipelines at II=1.
//!
//! Nested loops would fill and drain HLS's pipeline on every pass of the innermost loop (a
//! tile row of 2 to 32 points), and a `while` inside a pass blocks `PIPELINE` altogether. So
//! the counters are state of a single loop: each pass runs the point they hold, when it is in
//! every loop's range and in the process's domain, then moves them on as an odometer does. The
//! innermost counter steps; where it is at its bound, the next outer one steps and the inner
//! ones restart at their bounds, computed from the new outer values. An empty loop is found in
//! the pass that lands on it (its counter starts beyond its bound) and costs that one pass.
//!
//! A read from a scratchpad whose cell has not arrived takes one arrival from the producer's
//! stream; if that was not the cell, the point is held (the counters stay where they are, and
//! the next pass tries the same point again). Passes that need no arrival take the next one if
//! its cell is free, so a tile read in another order than it arrives (BICG's A, by columns)
//! does not wait for it one arrival a pass. Counters are `ap_int` of the width the nest needs
//! ([`LoopNest::counter_bits`]); the bounds are affine in them, without division.

use crate::gen::{bound, counter_names, it_names, lin_c, pred_c, Gen};
use crate::CodegenError;
use dpnc_dpn::ir::ChannelKind;
use dpnc_dpn::loops::LoopNest;
use std::fmt::Write;

impl Gen<'_> {
    /// The body of compute process `pi` (statement `stmt`) after its locals: the flattened loop.
    pub(crate) fn flattened(&self, out: &mut String, pi: usize, stmt: usize) -> Result<(), CodegenError> {
        let l = self.loops(&self.dpn.processes[pi])?;
        let ctr = counter_names(l);
        let names = it_names(self.p, stmt);
        let order: Vec<&str> = l.counters.iter().map(|k| k.name.as_str()).collect();
        let _ = writeln!(
            out,
            "    // The loop nest ({}) as one pipelined loop: a pass runs the point the counters hold,\n    \
             // if it is in every loop's range and in the domain, then moves them to the next point.",
            order.join(", ")
        );
        let ty = format!("ap_int<{}>", l.counter_bits());
        for (k, n) in ctr.iter().enumerate() {
            let _ = writeln!(out, "    {ty} {n} = {};", first(l, k, &ctr));
        }
        out.push_str("    for (bool more = true; more;) {\n#pragma HLS pipeline II=1\n");
        for c in self.rings(pi) {
            if let Some(d) = self.ring_distance(c) {
                let _ = writeln!(out, "#pragma HLS dependence variable=ring{c} type=inter direction=RAW distance={d} dependent=true");
            }
        }
        let inside = ranges(out, l, &ctr, "        ");
        for (n, lin) in names.iter().zip(&l.iters) {
            let _ = writeln!(out, "        const long long {n} = {};", lin_c(lin, &ctr));
        }
        let guard = if l.guard.is_true() { inside } else { format!("{inside} && {}", pred_c(&l.guard, &names)) };
        let _ =
            writeln!(out, "        const bool live = {guard};\n        bool hold = false;  // a scratchpad cell it reads has not arrived");
        self.arrivals(out, pi, stmt)?;
        out.push_str("        if (live && !hold) {\n");
        self.point(out, pi, stmt, "            ")?;
        out.push_str("        }\n        if (!hold) {\n");
        advance(out, l, &ctr, "            ", &|k| can_step(l, k, &ctr));
        out.push_str("        }\n    }\n");
        Ok(())
    }

    /// For each read from another process's scratchpad: where the point reads it and the cell
    /// has not arrived, take one arrival, and hold the point unless that was its cell; otherwise
    /// take the next arrival if its cell is free.
    fn arrivals(&self, out: &mut String, pi: usize, stmt: usize) -> Result<(), CodegenError> {
        let names = it_names(self.p, stmt);
        for (r, clauses) in self.mux_clauses(pi)?.iter().enumerate() {
            let mut before: Vec<String> = Vec::new();
            for &(c, pred) in clauses {
                let ch = &self.dpn.channels[c];
                let taken = if pred.is_true() { None } else { Some(pred_c(pred, &names)) };
                if ch.kind == ChannelKind::Scratchpad && ch.producer != pi {
                    let at = self.addr(c, &self.subscripts(&self.p.stmts[stmt].reads[r], &names));
                    let mut cond = vec!["live".to_string()];
                    cond.extend(before.iter().map(|p| format!("!({p})")));
                    cond.extend(taken.clone());
                    let _ = writeln!(
                        out,
                        "        const size_t at{c} = {at};\n        if ({} && !sp{c}.has(at{c})) {{\n            sp{c}.take({obj});\n            hold = hold || !sp{c}.has(at{c});\n        }} else {{\n            sp{c}.arrive({obj});\n        }}",
                        cond.join(" && "),
                        obj = self.chan_obj(c)
                    );
                }
                match taken {
                    Some(p) => before.push(p),
                    None => break,
                }
            }
        }
        Ok(())
    }
}

/// Per counter of `l` (named `ctr`), at `depth`: its bounds at the outer counters' values
/// (`lo<k>`, `hi<k>`) and whether it and every outer counter are within theirs (`in<k>`).
/// Returns the innermost `in<k>` (`true` for no loop).
pub(super) fn ranges(out: &mut String, l: &LoopNest, ctr: &[String], depth: &str) -> String {
    let mut inside = String::from("true");
    for (k, c) in l.counters.iter().enumerate() {
        let n = &ctr[k];
        let outer = if k == 0 { String::new() } else { format!("{inside} && ") };
        let _ = writeln!(
            out,
            "{depth}const long long lo{k} = {}, hi{k} = {};\n{depth}const bool in{k} = {outer}lo{k} <= {n} && {n} <= hi{k};",
            bound(&c.lower, "dpn_max", "0LL", ctr),
            bound(&c.upper, "dpn_min", "-1LL", ctr),
        );
        inside = format!("in{k}");
    }
    inside
}

/// Counter `k`'s first value once the outer ones are set: where its loop starts.
pub(super) fn first(l: &LoopNest, k: usize, ctr: &[String]) -> String {
    let c = &l.counters[k];
    if c.step > 0 {
        bound(&c.lower, "dpn_max", "0LL", ctr)
    } else {
        bound(&c.upper, "dpn_min", "-1LL", ctr)
    }
}

/// Whether counter `k` can step, after [`ranges`]: it is in its range, short of its last value.
pub(super) fn can_step(l: &LoopNest, k: usize, ctr: &[String]) -> String {
    let (n, step) = (&ctr[k], l.counters[k].step);
    match step {
        1 => format!("in{k} && {n} < hi{k}"),
        -1 => format!("in{k} && {n} > lo{k}"),
        _ if step > 0 => format!("in{k} && {n} + {step} <= hi{k}"),
        _ => format!("in{k} && {n} - {} >= lo{k}", -step),
    }
}

/// The odometer step at `depth`: the innermost counter that can step (`can(k)`, as
/// [`can_step`] says) moves on, and every counter inside it restarts; with none, `more` becomes
/// false.
pub(super) fn advance(out: &mut String, l: &LoopNest, ctr: &[String], depth: &str, can: &dyn Fn(usize) -> String) {
    let d = l.counters.len();
    for k in (0..d).rev() {
        let n = &ctr[k];
        let step = match l.counters[k].step {
            1 => format!("++{n};"),
            -1 => format!("--{n};"),
            q => format!("{n} += {q};"),
        };
        let cond = if k + 1 == d { "if" } else { "} else if" };
        let _ = writeln!(out, "{depth}{cond} ({}) {{\n{depth}    {step}", can(k));
        for m in k + 1..d {
            let _ = writeln!(out, "{depth}    {} = {};", ctr[m], first(l, m, ctr));
        }
    }
    if d == 0 {
        let _ = writeln!(out, "{depth}more = false;");
    } else {
        let _ = writeln!(out, "{depth}}} else {{\n{depth}    more = false;\n{depth}}}");
    }
}
