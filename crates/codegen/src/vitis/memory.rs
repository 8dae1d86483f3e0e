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
//! A temporary of the kernel (`VarKind::Local`) has no port: it is an on-chip array here.

use crate::cpu::{Gen, LoadGen};
use crate::CodegenError;
use dpnc_dpn::ir::ProcessKind;
use dpnc_frontend::ir::VarKind;
use std::fmt::Write;

impl Gen<'_> {
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
        let state = if on_chip {
            format!("    static {ty} {n}[{len}];  // a temporary of the kernel, initially zero\n    for (long long x = 0; x < {len}; ++x) {n}[x] = 0;")
        } else {
            format!("    dpn_hls::Port<{ty}, {}> port;  // line cache and write bursts", super::lines(v))
        };
        let names = loads.iter().chain(&stores).map(|g| g.name.as_str());
        self.merge_open(out, &self.vitis_head(&members), names, &state, None, None);
        for (g, gen) in loads.iter().enumerate() {
            let names = self.case_open(out, g, gen.stmt);
            let idx = self.subscripts(&self.p.stmts[gen.stmt].reads[gen.port], &names);
            let x = self.flat(var, &idx);
            let value = if on_chip { format!("{n}[{x}]") } else { format!("port.load({n}, {x})") };
            let _ = writeln!(out, "            const {ty} v = {value};");
            self.fan_out(out, g, gen, &names, &idx);
        }
        for (g, gen) in stores.iter().enumerate() {
            let g = loads.len() + g;
            let names = self.case_open(out, g, gen.stmt);
            let x = self.flat(var, &self.subscripts(&self.p.stmts[gen.stmt].write, &names));
            let value = format!("{}.read()", self.chan_obj(gen.c));
            let _ = writeln!(
                out,
                "            {};",
                if on_chip { format!("{n}[{x}] = {value}") } else { format!("port.store({n}, {x}, {value})") }
            );
            self.case_close(out, g);
        }
        out.push_str("        }\n    }\n");
        if !on_chip {
            let _ = writeln!(out, "    port.flush({n});");
        }
        out.push_str("}\n\n");
        Ok(())
    }
}
