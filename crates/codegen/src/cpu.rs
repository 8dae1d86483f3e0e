//! The CPU backend (`--target cpu`): the network as C++17, one thread per process.
//!
//! * A **compute process** is its loop nest ([`dpnc_dpn::loops`]); per iteration it reads
//!   each operand from the channel its mux names, evaluates the statement and writes the
//!   result to the channels its demux names. FIFO: push/pop. FIFO+register: the consumer
//!   pops into a register at a value's first read. Scratchpad: the value lives at its array
//!   cell modulo the channel's window; the consumer releases it at its last read.
//! * A **Load process** walks, in σ order, the first uses of its array in every band (one
//!   generator per channel it feeds, merged by σ key), reads the cell and pushes it to every
//!   channel of its fan-out.
//! * A **Store process** walks the values leaving their band in σ order (one generator per
//!   producer process) and writes them to their cells.
//! * **DDR order**: a Load waits until its array's Store has written every value before it
//!   in σ, and a Store until the Load has read every value up to it; both publish their
//!   position in σ ([`dpn::Progress`] in the runtime). Both conditions hold in the
//!   sequential schedule, so they add no deadlock.

use crate::expr::{self, Names};
use crate::CodegenError;
use dpnc_dpn::ir::{Channel, ChannelKind, Dpn, Process, ProcessKind};
use dpnc_dpn::loops::{Lin, LoopNest};
use dpnc_dpn::predicate::{Predicate, C_PRELUDE};
use dpnc_dpn::sync::{band_key, sigma, Key};
use dpnc_dpn::tiling::Affine;
use dpnc_frontend::scop::{Access, Program, VarKind};
use std::fmt::Write;

/// The files of the CPU backend: `kernel.cpp`, `dpn_rt.hpp`, `Makefile`.
pub fn generate(p: &Program, dpn: &Dpn) -> Result<Vec<(String, String)>, CodegenError> {
    let out = Gen::new(p, dpn, false).program()?;
    let makefile = "# Built with the interpreter's floating-point semantics: no contraction into FMA,\n\
                    # wrapping signed integers.\n\
                    CXX ?= g++\n\
                    CXXFLAGS ?= -std=c++17 -O2 -ffp-contract=off -fwrapv -pthread\n\n\
                    kernel: kernel.cpp dpn_rt.hpp\n\t$(CXX) $(CXXFLAGS) -o $@ kernel.cpp\n"
        .to_string();
    Ok(vec![("kernel.cpp".into(), out), ("dpn_rt.hpp".into(), crate::RUNTIME.into()), ("Makefile".into(), makefile)])
}

impl<'a> Gen<'a> {
    pub(crate) fn new(p: &'a Program, dpn: &'a Dpn, cuda: bool) -> Gen<'a> {
        let key_len = if p.stmts.is_empty() { 0 } else { sigma(p, &dpn.nests, &dpn.tile, 0).len() + 1 };
        Gen { p, dpn, params: dpn.params.iter().map(|x| x.1).collect(), key_len, cuda }
    }

    /// The whole translation unit.
    pub(crate) fn program(&self) -> Result<String, CodegenError> {
        let (g, dpn) = (self, self.dpn);
        let mut out = String::new();
        g.header(&mut out);
        g.declarations(&mut out)?;
        for (pi, pr) in dpn.processes.iter().enumerate() {
            match pr.kind {
                ProcessKind::Compute { stmt, .. } => g.compute(&mut out, pi, stmt)?,
                ProcessKind::Load { var } => g.load(&mut out, pi, var)?,
                ProcessKind::Store { var } => g.store(&mut out, pi, var)?,
            }
        }
        if g.cuda {
            g.main_cuda(&mut out);
        } else {
            g.main(&mut out);
        }
        Ok(out)
    }
}

pub(crate) struct Gen<'a> {
    pub(crate) p: &'a Program,
    pub(crate) dpn: &'a Dpn,
    pub(crate) params: Vec<i64>,
    /// σ, plus the read port (loads) or 0 (stores).
    pub(crate) key_len: usize,
    /// CUDA flavour: processes are `__device__` functions, channels device globals.
    pub(crate) cuda: bool,
}

fn it_names(p: &Program, stmt: usize) -> Vec<String> {
    p.stmts[stmt].iters.iter().map(|i| format!("it_{i}")).collect()
}

fn pred_c(pred: &Predicate, names: &[String]) -> String {
    let n: Vec<&str> = names.iter().map(String::as_str).collect();
    pred.to_c(&n)
}

fn lin_c(l: &Lin, counters: &str) -> String {
    let mut s = format!("{}LL", l.cst);
    for (k, a) in l.coef.iter().enumerate().filter(|(_, a)| **a != 0) {
        let _ = write!(s, " + {a}LL * {counters}[{k}]");
    }
    s
}

fn affine_c(f: &Affine, names: &[String]) -> String {
    let mut s = format!("{}LL", f.cst);
    for (a, n) in f.coef.iter().zip(names).filter(|(a, _)| **a != 0) {
        let _ = write!(s, " + {a}LL * {n}");
    }
    s
}

fn key_c(k: &Key, names: &[String]) -> String {
    match k {
        Key::Const(c) => format!("{c}LL"),
        Key::Tile(f, s) => format!("floord({}, {s})", affine_c(f, names)),
        Key::Phi(f) => affine_c(f, names),
        Key::Iter(d, dir) => format!("{dir}LL * {}", names[*d]),
    }
}

impl Gen<'_> {
    /// Storage class of functions and file-scope variables.
    fn qual(&self) -> &'static str {
        if self.cuda {
            "__device__"
        } else {
            "static"
        }
    }
    /// The extra argument the device runtime takes to name a channel in its reports.
    fn id(&self, c: usize, first: bool) -> String {
        match (self.cuda, first) {
            (false, _) => String::new(),
            (true, true) => c.to_string(),
            (true, false) => format!(", {c}"),
        }
    }
    fn fail(&self, msg: &str, pi: usize) -> String {
        if self.cuda {
            format!("dpn_gpu::fail(dpn_gpu::kErrUser, {pi});  /* {msg} */")
        } else {
            format!("dpn::fail(\"{msg}\");")
        }
    }
    fn chan_obj(&self, c: usize) -> String {
        format!("ch{c}_{}", self.dpn.channels[c].name)
    }
    fn array(&self, var: usize) -> String {
        format!("v_{}", self.p.vars[var].name)
    }
    fn proc_fn(&self, pi: usize) -> String {
        format!("process_{}", self.dpn.processes[pi].name)
    }
    fn loops<'b>(&self, pr: &'b Process) -> Result<&'b LoopNest, CodegenError> {
        pr.loops.as_ref().ok_or_else(|| CodegenError::Process {
            process: pr.name.clone(),
            why: "its hyperplanes are not a unimodular change of its iterators, so it has no loop nest".into(),
        })
    }
    fn need<'b>(&self, c: usize, what: &'b Option<Predicate>, name: &str) -> Result<&'b Predicate, CodegenError> {
        what.as_ref().ok_or_else(|| CodegenError::Channel {
            channel: self.dpn.channels[c].name.clone(),
            why: format!("isl could not derive its {name} predicate within its budget"),
        })
    }
    /// The flat offset of `a` in its array, and the subscripts, over `names`.
    fn subscripts(&self, a: &Access, names: &[String]) -> Vec<String> {
        a.index.iter().map(|x| expr::aff(x, names, &self.params)).collect()
    }
    fn flat(&self, var: usize, idx: &[String]) -> String {
        let dims = &self.p.vars[var].dims;
        let mut s = String::from("0LL");
        for (x, d) in idx.iter().zip(dims) {
            s = format!("({s}) * {d}LL + ({x})");
        }
        s
    }
    fn addr(&self, c: usize, idx: &[String]) -> String {
        format!("addr{c}({})", idx.join(", "))
    }

    fn header(&self, out: &mut String) {
        let d = self.dpn;
        let params: Vec<String> = d.params.iter().map(|(n, v)| format!("{n}={v}")).collect();
        let _ = writeln!(out, "// {}: data-aware process network, CPU backend (generated by dpnc; do not edit).", d.kernel);
        let _ = writeln!(out, "// Parameters {}; tiles {:?}; parallelism {:?}.", params.join(" "), d.tile, d.par);
        let _ = writeln!(out, "// Processes: {}, one thread each. Channels:", d.processes.len());
        for ch in &d.channels {
            let _ = writeln!(out, "//   {:<40} {:?} {:?}, {} cells", ch.name, ch.class, ch.kind, ch.cells().max(1));
        }
        out.push_str("#include \"dpn_rt.hpp\"\n");
        if self.cuda {
            out.push_str("#include \"dpn_rt_cuda.cuh\"\n");
        }
        out.push_str("#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string>\n\n");
        out.push_str(C_PRELUDE);
        out.push_str(
            "#ifdef __CUDACC__
#define DPN_HD __host__ __device__
typedef long long dpn_key_t;  // σ keys, as the device runtime takes them
#else
#define DPN_HD
typedef int64_t dpn_key_t;  // σ keys, as the runtime takes them
#endif
// A FIFO deeper than the network's size never deadlocks (the sizes are what the schedule
// needs at least); threads that may run ahead switch far less often. -DDPN_EXACT_DEPTHS
// keeps the network's sizes, to check them.
#ifdef DPN_EXACT_DEPTHS
#define DPN_FIFO_DEPTH(n) (n)
#else
#define DPN_FIFO_DEPTH(n) ((n) < 4096 ? 4096 : (n))
#endif
DPN_HD static inline long long dpn_min(long long a, long long b) { return a < b ? a : b; }
DPN_HD static inline long long dpn_max(long long a, long long b) { return a > b ? a : b; }
",
        );
        out.push_str(
            "
// Lexicographic order of σ keys.
DPN_HD static inline bool key_less(const dpn_key_t* a, const dpn_key_t* b, int n) {
    for (int i = 0; i < n; ++i)
        if (a[i] != b[i]) return a[i] < b[i];
    return false;
}

// A resumable loop nest: the generators of the Load and Store processes walk their
// consumers' (producers') loop nests one instance at a time, so that several can be merged.
// B provides bounds(l) (sets lo[l], hi[l] from the outer counters) and step(l) (+1 or -1).
template <int D, class B>
struct Walk {
    long long c[D > 0 ? D : 1], lo[D > 0 ? D : 1], hi[D > 0 ? D : 1];
    bool started = false;
    DPN_HD bool in(int l) const { return lo[l] <= c[l] && c[l] <= hi[l]; }
    // Counters [0, l) are valid; start every inner loop, backtracking over empty ones.
    DPN_HD bool settle(int l) {
        B& b = static_cast<B&>(*this);
        while (l < D) {
            b.bounds(l);
            if (lo[l] <= hi[l]) {
                c[l] = B::step(l) > 0 ? lo[l] : hi[l];
                ++l;
                continue;
            }
            for (;;) {
                if (--l < 0) return false;
                c[l] += B::step(l);
                if (in(l)) break;
            }
            ++l;
        }
        return true;
    }
    DPN_HD bool walk() {
        if (!started) {
            started = true;
            return settle(0);
        }
        for (int l = D - 1; l >= 0; --l) {
            c[l] += B::step(l);
            if (in(l)) return settle(l + 1);
        }
        return false;
    }
};

",
        );
    }

    fn declarations(&self, out: &mut String) -> Result<(), CodegenError> {
        out.push_str("// DDR: the kernel's arrays at their original layout; read-only scalars are arguments.\n");
        for v in &self.p.vars {
            if v.is_scalar_argument() {
                let _ = writeln!(out, "{} {} s_{};", self.qual(), v.ty.c_name(), v.name);
            } else if self.cuda {
                let _ = writeln!(out, "__device__ {}* v_{};", v.ty.c_name(), v.name);
            } else {
                let _ = writeln!(out, "static std::vector<{}> v_{};", v.ty.c_name(), v.name);
            }
        }
        out.push_str("\n// Channels.\n");
        for (c, ch) in self.dpn.channels.iter().enumerate() {
            match ch.kind {
                ChannelKind::Fifo | ChannelKind::FifoReg => {
                    let _ = if self.cuda {
                        writeln!(out, "__device__ dpn_gpu::Fifo<{}, {}> {};", ch.elem, ch.size.max(1), self.chan_obj(c))
                    } else {
                        writeln!(
                            out,
                            "static dpn::Fifo<{}> {}(\"{}\", DPN_FIFO_DEPTH({}));",
                            ch.elem,
                            self.chan_obj(c),
                            ch.name,
                            ch.size.max(1)
                        )
                    };
                }
                ChannelKind::Scratchpad => {
                    let _ = if self.cuda {
                        writeln!(out, "__device__ dpn_gpu::Scratchpad<{}, {}> {};", ch.elem, ch.cells(), self.chan_obj(c))
                    } else {
                        writeln!(out, "static dpn::Scratchpad<{}> {}(\"{}\", {});", ch.elem, self.chan_obj(c), ch.name, ch.cells())
                    };
                    let args: Vec<String> = (0..ch.window.len()).map(|d| format!("long long x{d}")).collect();
                    let mut body = String::from("0");
                    for (d, m) in ch.window.iter().enumerate() {
                        body = format!("({body}) * {m} + (size_t)(x{d} % {m})", m = (*m).max(1));
                    }
                    let _ = writeln!(
                        out,
                        "// A value of {} lives at its array cell modulo the window {:?}.\nDPN_HD static inline size_t addr{c}({}) {{ return {body}; }}",
                        ch.name,
                        ch.window,
                        args.join(", ")
                    );
                }
            }
        }
        out.push_str("\n// Positions in σ of the Load and Store processes, for the DDR order.\n");
        for pr in &self.dpn.processes {
            if matches!(pr.kind, ProcessKind::Load { .. } | ProcessKind::Store { .. }) {
                let _ = if self.cuda {
                    writeln!(out, "__device__ dpn_gpu::Progress<{}> progress_{};", self.key_len, pr.name)
                } else {
                    writeln!(out, "static dpn::Progress progress_{}(\"{}\", {});", pr.name, pr.name, self.key_len)
                };
            }
        }
        out.push('\n');
        Ok(())
    }

    fn partner(&self, var: usize, load: bool) -> Option<&Process> {
        self.dpn.processes.iter().find(|pr| match pr.kind {
            ProcessKind::Load { var: v } => load && v == var,
            ProcessKind::Store { var: v } => !load && v == var,
            _ => false,
        })
    }

    /// How a consumer reads channel `c` into `dst` at the iteration named by `names`.
    fn read_channel(&self, c: usize, a: &Access, names: &[String], dst: &str) -> Result<Vec<String>, CodegenError> {
        let ch: &Channel = &self.dpn.channels[c];
        let obj = self.chan_obj(c);
        Ok(match ch.kind {
            ChannelKind::Fifo => vec![format!("{dst} = {obj}.pop({});", self.id(c, true))],
            ChannelKind::FifoReg => {
                let first = self.need(c, &ch.first_read, "first-read")?;
                vec![format!("if ({}) reg{c} = {obj}.pop({});", pred_c(first, names), self.id(c, true)), format!("{dst} = reg{c};")]
            }
            ChannelKind::Scratchpad => {
                let last = self.need(c, &ch.last_read, "last-read")?;
                let at = self.addr(c, &self.subscripts(a, names));
                vec![
                    format!("const size_t at{c} = {at};"),
                    format!("{dst} = {obj}.read(at{c}{});", self.id(c, false)),
                    format!("if ({}) {obj}.release(at{c});", pred_c(last, names)),
                ]
            }
        })
    }

    /// How a producer writes `v` (the value of cell `idx`) to channel `c`.
    fn write_channel(&self, c: usize, idx: &[String], v: &str) -> String {
        let ch = &self.dpn.channels[c];
        match ch.kind {
            ChannelKind::Scratchpad => format!("{}.write({}, {v}{});", self.chan_obj(c), self.addr(c, idx), self.id(c, false)),
            _ => format!("{}.push({v}{});", self.chan_obj(c), self.id(c, false)),
        }
    }

    fn loop_open(&self, out: &mut String, l: &LoopNest, depth: &mut String) {
        for (k, ctr) in l.counters.iter().enumerate() {
            let lo = bound(&ctr.lower, "dpn_max", "0LL");
            let hi = bound(&ctr.upper, "dpn_min", "-1LL");
            let _ = if ctr.step > 0 {
                writeln!(out, "{depth}for (c[{k}] = {lo}; c[{k}] <= {hi}; ++c[{k}]) {{  // {}", ctr.name)
            } else {
                writeln!(out, "{depth}for (c[{k}] = {hi}; c[{k}] >= {lo}; --c[{k}]) {{  // {}", ctr.name)
            };
            depth.push_str("    ");
        }
    }

    fn compute(&self, out: &mut String, pi: usize, stmt: usize) -> Result<(), CodegenError> {
        let pr = &self.dpn.processes[pi];
        let s = &self.p.stmts[stmt];
        let l = self.loops(pr)?;
        let names = it_names(self.p, stmt);
        let w = &self.p.vars[s.write.var];
        let _ = writeln!(out, "// {}: statement {} ({} iterations).", pr.name, s.name, pr.iterations);
        let _ = writeln!(out, "{} void {}() {{", self.qual(), self.proc_fn(pi));
        let _ = writeln!(out, "    long long c[{}];", l.counters.len().max(1));
        // FIFO+register channels keep the value being re-read.
        for clause in pr.mux.iter().flatten() {
            let ch = &self.dpn.channels[clause.channel];
            if ch.kind == ChannelKind::FifoReg {
                let _ = writeln!(out, "    {} reg{} = {{}};", ch.elem, clause.channel);
            }
        }
        let mut depth = String::from("    ");
        self.loop_open(out, l, &mut depth);
        for (n, lin) in names.iter().zip(&l.iters) {
            let _ = writeln!(out, "{depth}const long long {n} = {};", lin_c(lin, "c"));
        }
        if !l.guard.is_true() {
            let _ = writeln!(out, "{depth}if (!{}) continue;", pred_c(&l.guard, &names));
        }
        let mut operands = Vec::new();
        for (r, a) in s.reads.iter().enumerate() {
            let v = &self.p.vars[a.var];
            if v.is_scalar_argument() {
                operands.push(format!("s_{}", v.name));
                continue;
            }
            let dst = format!("r{r}");
            let _ = writeln!(out, "{depth}{} {dst};", v.ty.c_name());
            let clauses = pr.mux.get(r).map(Vec::as_slice).unwrap_or(&[]);
            let preds = clauses
                .iter()
                .map(|cl| {
                    cl.pred.as_ref().ok_or_else(|| CodegenError::Channel {
                        channel: self.dpn.channels[cl.channel].name.clone(),
                        why: "its mux condition has no predicate".into(),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            if let ([cl], [pred]) = (clauses, preds.as_slice()) {
                if pred.is_true() {
                    // One channel for every iteration: no mux.
                    for line in self.read_channel(cl.channel, a, &names, &dst)? {
                        let _ = writeln!(out, "{depth}{line}");
                    }
                    operands.push(dst);
                    continue;
                }
            }
            for (k, (cl, pred)) in clauses.iter().zip(&preds).enumerate() {
                let cond = if k == 0 { "if" } else { "} else if" };
                let _ = writeln!(out, "{depth}{cond} ({}) {{", pred_c(pred, &names));
                for line in self.read_channel(cl.channel, a, &names, &dst)? {
                    let _ = writeln!(out, "{depth}    {line}");
                }
            }
            let _ = writeln!(
                out,
                "{depth}}} else {{\n{depth}    {}\n{depth}}}",
                self.fail(&format!("{}: no channel for read {r}", pr.name), pi)
            );
            operands.push(dst);
        }
        let body = expr::texpr(&s.body, &Names { iters: &names, params: &self.params, reads: &operands });
        let _ = writeln!(out, "{depth}const {} v = ({})({body});", w.ty.c_name(), w.ty.c_name());
        let idx = self.subscripts(&s.write, &names);
        for cl in &pr.demux {
            let pred = cl.pred.as_ref().ok_or_else(|| CodegenError::Channel {
                channel: self.dpn.channels[cl.channel].name.clone(),
                why: "its demux condition has no predicate".into(),
            })?;
            let wr = self.write_channel(cl.channel, &idx, "v");
            if pred.is_true() {
                let _ = writeln!(out, "{depth}{wr}");
            } else {
                let _ = writeln!(out, "{depth}if ({}) {wr}", pred_c(pred, &names));
            }
        }
        for _ in &l.counters {
            depth.truncate(depth.len() - 4);
            let _ = writeln!(out, "{depth}}}");
        }
        out.push_str("}\n\n");
        Ok(())
    }

    /// A generator over the loop nest of process `pi` (statement `stmt`), keeping the
    /// instances where `cond` holds, keyed by σ then `tag`.
    fn generator(
        &self,
        out: &mut String,
        name: &str,
        pi: usize,
        stmt: usize,
        cond: &[&Predicate],
        tag: usize,
        band: bool,
    ) -> Result<(), CodegenError> {
        let pr = &self.dpn.processes[pi];
        let l = self.loops(pr)?;
        let names = it_names(self.p, stmt);
        let d = l.counters.len();
        let steps: Vec<String> = l.counters.iter().map(|k| k.step.to_string()).collect();
        let _ = writeln!(out, "// Instances of {} in its order, keyed by σ.", pr.name);
        let _ = writeln!(out, "struct {name} : Walk<{d}, {name}> {{");
        let _ = writeln!(
            out,
            "    DPN_HD static int step(int l) {{\n        const int s[{}] = {{{}}};\n        return s[l];\n    }}",
            d.max(1),
            if d == 0 { "1".into() } else { steps.join(", ") }
        );
        let _ = writeln!(out, "    long long it[{}];\n    dpn_key_t key[{}];", names.len().max(1), self.key_len);
        let bkeys = band_key(self.p, &self.dpn.nests, &self.dpn.tile, stmt);
        if band {
            let _ = writeln!(out, "    dpn_key_t band[{}];", bkeys.len());
        }
        let _ = writeln!(out, "    DPN_HD void bounds(int l) {{\n        switch (l) {{");
        for (k, ctr) in l.counters.iter().enumerate() {
            let _ = writeln!(
                out,
                "        case {k}: lo[{k}] = {}; hi[{k}] = {}; break;",
                bound(&ctr.lower, "dpn_max", "0LL"),
                bound(&ctr.upper, "dpn_min", "-1LL")
            );
        }
        let _ = writeln!(out, "        default: break;\n        }}\n    }}");
        let _ = writeln!(out, "    DPN_HD bool next() {{\n        while (walk()) {{");
        for (k, (n, lin)) in names.iter().zip(&l.iters).enumerate() {
            let _ = writeln!(out, "            const long long {n} = it[{k}] = {};", lin_c(lin, "c"));
        }
        let mut conds: Vec<String> = Vec::new();
        if !l.guard.is_true() {
            conds.push(pred_c(&l.guard, &names));
        }
        conds.extend(cond.iter().filter(|p| !p.is_true()).map(|p| pred_c(p, &names)));
        if !conds.is_empty() {
            let _ = writeln!(out, "            if (!({})) continue;", conds.join(" && "));
        }
        let keys = sigma(self.p, &self.dpn.nests, &self.dpn.tile, stmt);
        for (k, key) in keys.iter().enumerate() {
            let _ = writeln!(out, "            key[{k}] = {};", key_c(key, &names));
        }
        let _ = writeln!(out, "            key[{}] = {tag};", keys.len());
        if band {
            for (k, key) in bkeys.iter().enumerate() {
                let _ = writeln!(out, "            band[{k}] = {};", key_c(key, &names));
            }
        }
        for n in &names {
            let _ = writeln!(out, "            (void){n};");
        }
        let _ = writeln!(out, "            return true;\n        }}\n        return false;\n    }}\n}};");
        Ok(())
    }

    fn load(&self, out: &mut String, pi: usize, var: usize) -> Result<(), CodegenError> {
        let pr = &self.dpn.processes[pi];
        let chans: Vec<usize> = (0..self.dpn.channels.len()).filter(|&c| self.dpn.channels[c].producer == pi).collect();
        let mut gens = Vec::new();
        for &c in &chans {
            let ch = &self.dpn.channels[c];
            let ProcessKind::Compute { stmt, .. } = self.dpn.processes[ch.consumer].kind else {
                return Err(CodegenError::Channel { channel: ch.name.clone(), why: "a load feeds a non-compute process".into() });
            };
            let fu = self.need(c, &ch.first_use, "first-use")?;
            let port = ch.port.unwrap_or(0);
            let name = format!("gen{c}");
            self.generator(out, &name, ch.consumer, stmt, &[fu], port, ch.shared_load)?;
            gens.push((c, stmt, port, name));
        }
        let store = self.partner(var, false);
        let _ = writeln!(
            out,
            "// {}: every value of {} a band reads from DDR, once per band, at its first use.",
            pr.name, self.p.vars[var].name
        );
        let shared = chans.iter().any(|&c| self.dpn.channels[c].shared_load);
        let v = &self.p.vars[var];
        if shared {
            let _ = writeln!(
                out,
                "// Each channel is served at its own first use; a cell is read from DDR once per band\n// (stamp: the band it was last read in, counted from 1).\n{q} long long stamp_{n}[{len}];\n{q} {ty} cache_{n}[{len}];",
                q = self.qual(),
                n = v.name,
                len = v.len().max(1),
                ty = v.ty.c_name()
            );
        }
        let state = if shared {
            let bk = band_key(self.p, &self.dpn.nests, &self.dpn.tile, 0).len();
            format!("    dpn_key_t band[{bk}];\n    long long band_no = 0;")
        } else {
            String::new()
        };
        let wait = store.map(|st| (st, "0", format!("Every value of {} stored before this point in σ is in DDR.", v.name)));
        self.merge_open(out, pi, gens.iter().map(|g| g.3.as_str()), &state, wait);
        for (g, (c, stmt, port, _)) in gens.iter().enumerate() {
            let names = self.case_open(out, g, *stmt);
            let a = &self.p.stmts[*stmt].reads[*port];
            let idx = self.subscripts(a, &names);
            if shared {
                let bk = band_key(self.p, &self.dpn.nests, &self.dpn.tile, *stmt).len();
                let _ = writeln!(
                    out,
                    "            bool other = band_no == 0;\n            for (int q = 0; q < {bk}; ++q) other = other || band[q] != g{g}.band[q];\n            if (other) {{\n                for (int q = 0; q < {bk}; ++q) band[q] = g{g}.band[q];\n                ++band_no;\n            }}\n            const long long x = {};\n            if (stamp_{n}[x] != band_no) {{\n                cache_{n}[x] = {}[x];\n                stamp_{n}[x] = band_no;\n            }}\n            const {} v = cache_{n}[x];",
                    self.flat(var, &idx),
                    self.array(var),
                    self.p.vars[var].ty.c_name(),
                    n = self.p.vars[var].name
                );
            } else {
                let _ =
                    writeln!(out, "            const {} v = {}[{}];", self.p.vars[var].ty.c_name(), self.array(var), self.flat(var, &idx));
            }
            for (q, pred) in &self.dpn.channels[*c].fanout {
                let wr = self.write_channel(*q, &idx, "v");
                if pred.is_true() {
                    let _ = writeln!(out, "            {wr}");
                } else {
                    let _ = writeln!(out, "            if ({}) {wr}", pred_c(pred, &names));
                }
            }
            let _ = writeln!(out, "            h{g} = g{g}.next();\n            break;\n        }}");
        }
        self.merge_close(out, pi);
        Ok(())
    }

    fn store(&self, out: &mut String, pi: usize, var: usize) -> Result<(), CodegenError> {
        let pr = &self.dpn.processes[pi];
        let mut gens = Vec::new();
        for (c, ch) in self.dpn.channels.iter().enumerate().filter(|(_, ch)| ch.consumer == pi) {
            let ProcessKind::Compute { stmt, .. } = self.dpn.processes[ch.producer].kind else {
                return Err(CodegenError::Channel { channel: ch.name.clone(), why: "a store is fed by a non-compute process".into() });
            };
            let producer = &self.dpn.processes[ch.producer];
            let clause =
                producer.demux.iter().find(|cl| cl.channel == c).and_then(|cl| cl.pred.as_ref()).ok_or_else(|| CodegenError::Channel {
                    channel: ch.name.clone(),
                    why: "its demux condition has no predicate".into(),
                })?;
            let name = format!("gen{c}");
            self.generator(out, &name, ch.producer, stmt, &[clause], 0, false)?;
            gens.push((c, stmt, name));
        }
        let name = &self.p.vars[var].name;
        let _ = writeln!(out, "// {}: every value of {name} read by a later band, or final, written once.", pr.name);
        let wait = self
            .partner(var, true)
            .map(|ld| (ld, "INT64_MAX", format!("Every load of {name} up to this point in σ has read the older value.")));
        self.merge_open(out, pi, gens.iter().map(|g| g.2.as_str()), "", wait);
        for (g, (c, stmt, _)) in gens.iter().enumerate() {
            let names = self.case_open(out, g, *stmt);
            let idx = self.subscripts(&self.p.stmts[*stmt].write, &names);
            let _ = writeln!(
                out,
                "            {}[{}] = {}.pop({});",
                self.array(var),
                self.flat(var, &idx),
                self.chan_obj(*c),
                self.id(*c, true)
            );
            let _ = writeln!(out, "            h{g} = g{g}.next();\n            break;\n        }}");
        }
        self.merge_close(out, pi);
        Ok(())
    }

    /// Opens a Load or Store process: its generators (named `gens`), `state`, then the loop
    /// that takes the generator with the smallest σ key, publishes it, waits for the partner
    /// process (`wait`: it, the last entry of the awaited key, and why) and dispatches on it.
    fn merge_open<'g>(
        &self,
        out: &mut String,
        pi: usize,
        gens: impl Iterator<Item = &'g str>,
        state: &str,
        wait: Option<(&Process, &str, String)>,
    ) {
        let k = self.key_len;
        let _ = writeln!(out, "{} void {}() {{", self.qual(), self.proc_fn(pi));
        let mut n = 0;
        for (g, name) in gens.enumerate() {
            let _ = writeln!(out, "    {name} g{g};\n    bool h{g} = g{g}.next();");
            n += 1;
        }
        if !state.is_empty() {
            let _ = writeln!(out, "{state}");
        }
        let _ = writeln!(
            out,
            "    dpn_key_t want[{k}];\n    (void)want;\n    for (;;) {{\n        int b = -1;\n        const dpn_key_t* best = nullptr;"
        );
        for g in 0..n {
            let _ = writeln!(out, "        if (h{g} && (b < 0 || key_less(g{g}.key, best, {k}))) {{ b = {g}; best = g{g}.key; }}");
        }
        let _ = writeln!(out, "        if (b < 0) break;\n        progress_{}.publish(best);", self.dpn.processes[pi].name);
        if let Some((partner, last, why)) = wait {
            let _ = writeln!(
                out,
                "        // {why}\n        for (int q = 0; q < {}; ++q) want[q] = best[q];\n        want[{}] = {last};\n        progress_{}.wait_reached(want{});",
                k - 1,
                k - 1,
                partner.name,
                self.id(pi, false)
            );
        }
        let _ = writeln!(out, "        switch (b) {{");
    }

    /// Opens `case g` of a merge with the instance's iterators named; returns the names.
    fn case_open(&self, out: &mut String, g: usize, stmt: usize) -> Vec<String> {
        let names = it_names(self.p, stmt);
        let _ = writeln!(out, "        case {g}: {{");
        for (i, n) in names.iter().enumerate() {
            let _ = writeln!(out, "            const long long {n} = g{g}.it[{i}];\n            (void){n};");
        }
        names
    }

    fn merge_close(&self, out: &mut String, pi: usize) {
        let _ = writeln!(out, "        }}\n    }}\n    progress_{}.finish();\n}}\n", self.dpn.processes[pi].name);
    }

    fn main(&self, out: &mut String) {
        out.push_str("int main(int argc, char** argv) {\n");
        out.push_str(
            "    if (argc != 3) {\n        std::fprintf(stderr, \"usage: %s INPUT_DIR OUTPUT_DIR (one NAME.npy per kernel argument)\\n\", argv[0]);\n        return 2;\n    }\n",
        );
        out.push_str("    const std::string in = argv[1], out = argv[2];\n");
        for v in &self.p.vars {
            let ty = v.ty.c_name();
            let dims: Vec<String> = v.dims.iter().map(|d| d.to_string()).collect();
            let shape = format!("{{{}}}", dims.join(", "));
            if v.is_scalar_argument() {
                let _ = writeln!(out, "    s_{n} = dpn::npy_load<{ty}>(in + \"/{n}.npy\", {{}})[0];", n = v.name);
            } else if v.kind == VarKind::Argument {
                let _ = writeln!(out, "    v_{n} = dpn::npy_load<{ty}>(in + \"/{n}.npy\", {shape});", n = v.name);
            } else {
                let _ = writeln!(out, "    v_{n}.assign({}, {ty}{{}});  // a temporary of the kernel", v.len().max(1), n = v.name);
            }
        }
        out.push_str("    const auto started = std::chrono::steady_clock::now();\n    dpn::run_processes({\n");
        for (pi, pr) in self.dpn.processes.iter().enumerate() {
            let _ = writeln!(out, "        {{\"{}\", {}}},", pr.name, self.proc_fn(pi));
        }
        out.push_str("    });\n    if (std::getenv(\"DPN_TIME\"))\n        std::fprintf(stderr, \"dpn: network ran in %.6f s\\n\", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());\n");
        for v in self.p.vars.iter().filter(|v| v.kind == VarKind::Argument && v.written) {
            let dims: Vec<String> = v.dims.iter().map(|d| d.to_string()).collect();
            let _ = writeln!(out, "    dpn::npy_save<{}>(out + \"/{n}.npy\", {{{}}}, v_{n});", v.ty.c_name(), dims.join(", "), n = v.name);
        }
        out.push_str("    return 0;\n}\n");
    }
}

/// `max(…)`/`min(…)` of a counter's bounds over the outer counters `c`.
fn bound(ls: &[Lin], f: &str, empty: &str) -> String {
    let mut it = ls.iter().map(|l| lin_c(l, "c"));
    let Some(first) = it.next() else { return empty.into() };
    it.fold(first, |acc, x| format!("{f}({acc}, {x})"))
}
