//! The Vitis memory process of one array: what its Load and Store processes do, merged in σ
//! order into one function, the only user of the array's `m_axi` port (as Vitis dataflow
//! requires).
//!
//! Merging puts the array's DDR reads and writes in σ order without progress tokens between
//! processes: that is the order the DDR rule needs (no load overtakes the store of an older
//! version of its cell), and the CPU backend's Load and Store already wait for each other in
//! σ order, so nothing runs less in parallel. The port moves 64-byte beats (`dpn_hls::Line`):
//! each load and store goes through `dpn_hls::Port`, which keeps a line cache, sends misses as
//! read bursts and coalesces stores into write bursts. Since nothing else touches the port, the
//! cache never holds a stale line, so it keeps lines across bands.
//!
//! Like a compute process, the whole process is one loop pipelined at II=1. Each generator (the
//! loop nest of a channel's consumer or producer) is a walker that moves one position a pass
//! ([`super::compute::advance`]). A pass does one thing: a beat of the port's burst under way;
//! or, where a walker stands between instances, moves it on (all such walkers at once); or, with
//! every walker at an instance or done, serves the one with the smallest σ key, if the port can
//! (a load that misses or a store that must first send the held run starts that burst, and the
//! same instance is served in a later pass).
//!
//! A temporary of the kernel (`VarKind::Local`) has no port: it is an on-chip array, zeroed by
//! the loop's first passes.

use super::compute::{advance, can_step, first, ranges};
use crate::gen::{counter_names, it_names, key_c, lin_c, pred_c, Gen, LoadGen};
use crate::CodegenError;
use dpnc_dpn::ir::{Key, ProcessKind};
use dpnc_dpn::predicate::Predicate;
use dpnc_frontend::ir::VarKind;
use std::fmt::Write;

impl Gen<'_> {
    /// A walker `name` over the loop nest of process `pi` (statement `stmt`) whose instances are
    /// those where `cond` holds, keyed by σ then `tag`: `here()` says whether its position is
    /// one (and sets `it` and `key`), `step()` moves it to the next position (after `here()`
    /// in the same pass, whose range checks it uses), `more` says there are positions left.
    pub(crate) fn walker(
        &self,
        out: &mut String,
        name: &str,
        pi: usize,
        stmt: usize,
        cond: &[&Predicate],
        tag: i64,
    ) -> Result<(), CodegenError> {
        let pr = &self.dpn.processes[pi];
        // The process's nest with the bounds the instances' condition implies (a reduction's
        // stores are on its last step only): fewer positions between instances, in one order.
        let l = &cond.iter().fold(self.loops(pr)?.clone(), |l, c| l.restricted(c));
        let names = it_names(self.p, stmt);
        let ctr = counter_names(l);
        let _ = writeln!(out, "// Instances of {} in its order, keyed by σ: one position of its loop nest per step.", pr.name);
        let _ = writeln!(out, "struct {name} {{");
        if !ctr.is_empty() {
            let _ = writeln!(out, "    ap_int<{}> {};", l.counter_bits(), ctr.join(", "));
        }
        let _ = writeln!(out, "    bool more = true;\n    long long it[{}];\n    dpn_key_t key[{}];", names.len().max(1), self.key_len);
        if !ctr.is_empty() {
            let up: Vec<String> = (0..ctr.len()).map(|k| format!("up{k}")).collect();
            let _ = writeln!(
                out,
                "    bool {};  // per counter, whether it can step: set by here(), read by step() in the same pass",
                up.join(", ")
            );
        }
        let _ = writeln!(out, "    {name}() {{");
        for (k, n) in ctr.iter().enumerate() {
            let _ = writeln!(out, "        {n} = {};", first(l, k, &ctr));
        }
        out.push_str("    }\n    bool here() {\n");
        let inside = ranges(out, l, &ctr, "        ");
        for k in 0..ctr.len() {
            let _ = writeln!(out, "        up{k} = {};", can_step(l, k, &ctr));
        }
        for (k, (n, lin)) in names.iter().zip(&l.iters).enumerate() {
            let _ = writeln!(out, "        const long long {n} = it[{k}] = {};", lin_c(lin, &ctr));
        }
        // σ from the counters where they hold it: a tile coordinate is its tile counter and a
        // hyperplane's value its point counter, so the key needs no division.
        for (k, key) in self.dpn.schedules[stmt].sigma.iter().enumerate() {
            let e = match key {
                Key::Tile(f, s) => l.tile_of(&f.coef, f.cst, *s).map(|t| lin_c(&t, &ctr)),
                Key::Phi(f) => Some(lin_c(&l.of_iterators(&f.coef, f.cst), &ctr)),
                _ => None,
            };
            let _ = writeln!(out, "        key[{k}] = {};", e.unwrap_or_else(|| key_c(key, &names)));
        }
        let _ = writeln!(out, "        key[{}] = {tag}LL;", self.dpn.schedules[stmt].sigma.len());
        let mut conds = vec!["more".to_string(), inside];
        conds.extend(
            std::iter::once(&l.guard).chain(cond.iter().copied()).filter(|p| !p.is_true()).map(|p| format!("({})", pred_c(p, &names))),
        );
        let _ = writeln!(out, "        return {};\n    }}\n    void step() {{", conds.join(" && "));
        advance(out, l, &ctr, "        ", &|k| format!("up{k}"));
        out.push_str("    }\n};\n");
        Ok(())
    }

    /// The memory process of `var`: its Load's and Store's generators merged in σ order, loads
    /// before the store of the same instance (a read comes before the write).
    pub(super) fn memory_process(&self, out: &mut String, var: usize) -> Result<(), CodegenError> {
        let members = self.dpn.memory_processes(var);
        let (mut loads, mut stores): (Vec<LoadGen>, Vec<LoadGen>) = (Vec::new(), Vec::new());
        for &q in &members {
            match self.dpn.processes[q].kind {
                ProcessKind::Load { .. } => loads = self.load_gens(out, q)?,
                _ => stores = self.store_gens(out, q, i64::MAX)?,
            }
        }
        let v = &self.p.vars[var];
        let (n, ty, len) = (self.array(var), v.ty.c_name(), v.len().max(1));
        let on_chip = v.kind == VarKind::Local;
        let _ = writeln!(
            out,
            "// The memory of {}: every value a band reads from outside it (once per band, at its first\n// use, to every channel that needs it) and every value leaving its band, in σ order.",
            v.name
        );
        let _ = writeln!(out, "{} {{", self.vitis_head(&members));
        let gens: Vec<&LoadGen> = loads.iter().chain(&stores).collect();
        for (g, gen) in gens.iter().enumerate() {
            let _ = writeln!(out, "    {} g{g};", gen.name);
        }
        if on_chip {
            let _ = writeln!(out, "    static {ty} {n}[{len}];  // a temporary of the kernel, zeroed first\n    long long zeroed = 0;");
        } else {
            let _ = writeln!(out, "    dpn_hls::Port<{ty}, {}> port;  // line cache and bursts", super::lines(v));
        }
        out.push_str("    for (bool more = true; more;) {\n#pragma HLS pipeline II=1\n");
        let at: Vec<String> = (0..gens.len()).map(|g| format!("i{g}")).collect();
        if !gens.is_empty() {
            let here: Vec<String> = (0..gens.len()).map(|g| format!("i{g} = g{g}.here()")).collect();
            let _ = writeln!(out, "        const bool {};", here.join(", "));
        }
        let between: Vec<String> = (0..gens.len()).map(|g| format!("(g{g}.more && !i{g})")).collect();
        let busy = if on_chip { format!("zeroed < {len}") } else { "port.busy()".into() };
        let beat = if on_chip { format!("{n}[zeroed++] = 0;") } else { format!("port.beat({n});") };
        let _ = writeln!(out, "        if ({busy}) {{\n            {beat}");
        if !gens.is_empty() {
            let _ = writeln!(out, "        }} else if ({}) {{  // a walker between instances moves on", between.join(" || "));
            for (g, b) in between.iter().enumerate() {
                let _ = writeln!(out, "            if {b} g{g}.step();");
            }
        }
        out.push_str("        } else {\n            int b = -1;\n            const dpn_key_t* best = nullptr;\n");
        for (g, i) in at.iter().enumerate() {
            let _ = writeln!(
                out,
                "            if ({i} && (b < 0 || key_less(g{g}.key, best, {}))) {{ b = {g}; best = g{g}.key; }}",
                self.key_len
            );
        }
        out.push_str("            switch (b) {\n");
        for (g, gen) in loads.iter().enumerate() {
            let (names, idx) = self.served(out, g, gen, false);
            let x = self.flat(var, &idx);
            if on_chip {
                let _ = writeln!(out, "                const {ty} v = {n}[{x}];\n                {{");
            } else {
                let _ = writeln!(out, "                {ty} v;\n                if (port.load({x}, v)) {{");
            }
            self.fan_out_writes(out, gen, &names, &idx, "                    ");
            let _ = writeln!(out, "                    g{g}.step();\n                }}\n                break;\n            }}");
        }
        for (g, gen) in stores.iter().enumerate() {
            let g = loads.len() + g;
            let (_, idx) = self.served(out, g, gen, true);
            let x = self.flat(var, &idx);
            let value = format!("{}.read()", self.chan_obj(gen.c));
            let _ = if on_chip {
                writeln!(out, "                {n}[{x}] = {value};\n                g{g}.step();")
            } else {
                writeln!(out, "                if (port.can_store({x})) {{\n                    port.store({x}, {value});\n                    g{g}.step();\n                }}")
            };
            out.push_str("                break;\n            }\n");
        }
        let done = if on_chip { "more = false;" } else { "more = port.flush();  // the held run, then the end" };
        let _ = writeln!(out, "            default:\n                {done}\n            }}\n        }}\n    }}\n}}\n");
        Ok(())
    }

    /// Opens `case g` for the instance of generator `gen` and names its iterators; returns them
    /// and the subscripts of the cell it loads (or, `store`, writes).
    fn served(&self, out: &mut String, g: usize, gen: &LoadGen, store: bool) -> (Vec<String>, Vec<String>) {
        let names = self.case_open_at(out, g, gen.stmt, "            ");
        let s = &self.p.stmts[gen.stmt];
        let idx = self.subscripts(if store { &s.write } else { &s.reads[gen.port] }, &names);
        (names, idx)
    }
}
