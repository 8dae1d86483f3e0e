//! The network as C-family code: [`Gen`] writes the processes and channels that the CPU
//! (`cpu.rs`), CUDA (`gpu.rs`) and Vitis HLS (`vitis/`) flavours share, each flavour
//! adding its own top (threads, a launch, a dataflow region).
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
use crate::predicate::C_PRELUDE;
use crate::CodegenError;
use dpnc_dpn::ir::{index_bits, Channel, ChannelKind, Dpn, Key, Process, ProcessKind};
use dpnc_dpn::loops::{Lin, LoopNest};
use dpnc_dpn::predicate::Predicate;
use dpnc_dpn::tiling::Affine;
use dpnc_frontend::ir::{Access, Program};
use std::fmt::Write;

impl<'a> Gen<'a> {
    pub(crate) fn new(p: &'a Program, dpn: &'a Dpn, flavour: Flavour) -> Gen<'a> {
        let key_len = dpn.schedules.first().map_or(0, |s| s.sigma.len() + 1);
        Gen { p, dpn, params: dpn.params.iter().map(|x| x.1).collect(), key_len, flavour }
    }

    /// The whole translation unit.
    pub(crate) fn program(&self) -> Result<String, CodegenError> {
        let (g, dpn) = (self, self.dpn);
        let mut out = String::new();
        g.header(&mut out);
        g.declarations(&mut out)?;
        for (pi, pr) in dpn.processes.iter().enumerate() {
            match (pr.kind.clone(), g.flavour) {
                (ProcessKind::Compute { stmt, .. }, _) => g.compute(&mut out, pi, stmt)?,
                // Vitis: one memory process per array does both (see `vitis/`).
                (_, Flavour::Vitis) => {}
                (ProcessKind::Load { var }, _) => g.load(&mut out, pi, var)?,
                (ProcessKind::Store { var }, _) => g.store(&mut out, pi, var)?,
            }
        }
        match g.flavour {
            Flavour::Cpu => g.main(&mut out),
            Flavour::Cuda => g.main_cuda(&mut out),
            // The memory processes and the top function come with the board (`vitis::generate`).
            Flavour::Vitis => {}
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
    pub(crate) flavour: Flavour,
}

/// The C-family dialects written from one [`Gen`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Flavour {
    /// Threads over `dpn_rt.hpp`; channels are file-scope objects.
    Cpu,
    /// Processes are `__device__` functions, channels device globals.
    Cuda,
    /// Vitis HLS: processes take their channels (`hls::stream`) as arguments; a consumer
    /// owns each scratchpad it reads; DDR order comes from one memory process per array.
    Vitis,
}

/// A generator of a Load or Store process: the channel it serves, the statement whose
/// instances it walks, the read port (loads) and its struct's name.
pub(crate) struct LoadGen {
    pub(crate) c: usize,
    pub(crate) stmt: usize,
    pub(crate) port: usize,
    pub(crate) name: String,
}

pub(crate) fn it_names(p: &Program, stmt: usize) -> Vec<String> {
    p.stmts[stmt].iters.iter().map(|i| format!("it_{i}")).collect()
}

pub(crate) fn pred_c(pred: &Predicate, names: &[String]) -> String {
    let n: Vec<&str> = names.iter().map(String::as_str).collect();
    crate::predicate::c_expr(pred, &n)
}

/// `Σ coef·names + cst` as C, e.g. `4LL * c_T0 + 3LL`.
fn linear_c(coef: &[i64], names: &[String], cst: i64) -> String {
    let mut s = String::new();
    for (a, n) in coef.iter().zip(names).filter(|(a, _)| **a != 0) {
        let sep = if s.is_empty() { "" } else { " + " };
        let _ = match *a {
            1 => write!(s, "{sep}{n}"),
            -1 if s.is_empty() => write!(s, "-{n}"),
            _ => write!(s, "{sep}{a}LL * {n}"),
        };
    }
    match (s.is_empty(), cst) {
        (true, c) => format!("{c}LL"),
        (false, 0) => s,
        (false, c) => format!("{s} + {c}LL"),
    }
}

/// `l` over the counters named `ctr`.
pub(crate) fn lin_c(l: &Lin, ctr: &[String]) -> String {
    linear_c(&l.coef, ctr, l.cst)
}

/// The counters of a compute process's loop nest as locals (`c_T0`, `c_p0`, `c_i`, …).
pub(crate) fn counter_names(l: &LoopNest) -> Vec<String> {
    l.counters.iter().map(|k| format!("c_{}", k.name)).collect()
}

/// The counters of a [`Walk`] generator (`c[0]`, …).
fn walk_counters(l: &LoopNest) -> Vec<String> {
    (0..l.counters.len()).map(|k| format!("c[{k}]")).collect()
}

fn affine_c(f: &Affine, names: &[String]) -> String {
    linear_c(&f.coef, names, f.cst)
}

pub(crate) fn key_c(k: &Key, names: &[String]) -> String {
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
        if self.flavour == Flavour::Cuda {
            "__device__"
        } else {
            "static"
        }
    }
    /// The extra argument the device runtime takes to name a channel in its reports.
    fn id(&self, c: usize, first: bool) -> String {
        match (self.flavour == Flavour::Cuda, first) {
            (false, _) => String::new(),
            (true, true) => c.to_string(),
            (true, false) => format!(", {c}"),
        }
    }
    fn fail(&self, msg: &str, pi: usize) -> String {
        match self.flavour {
            Flavour::Cuda => format!("dpn_gpu::fail(dpn_gpu::kErrUser, {pi});  /* {msg} */"),
            Flavour::Cpu => format!("dpn::fail(\"{msg}\");"),
            Flavour::Vitis => format!("DPN_FAIL(\"{msg}\");"),
        }
    }
    pub(crate) fn chan_obj(&self, c: usize) -> String {
        format!("ch{c}_{}", self.dpn.channels[c].name)
    }
    pub(crate) fn array(&self, var: usize) -> String {
        format!("v_{}", self.p.vars[var].name)
    }
    pub(crate) fn proc_fn(&self, pi: usize) -> String {
        format!("process_{}", self.dpn.processes[pi].name)
    }
    pub(crate) fn loops<'b>(&self, pr: &'b Process) -> Result<&'b LoopNest, CodegenError> {
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
    pub(crate) fn subscripts(&self, a: &Access, names: &[String]) -> Vec<String> {
        a.index.iter().map(|x| expr::aff(x, names, &self.params)).collect()
    }
    pub(crate) fn flat(&self, var: usize, idx: &[String]) -> String {
        let dims = &self.p.vars[var].dims;
        let mut s = String::from("0LL");
        for (x, d) in idx.iter().zip(dims) {
            s = format!("({s}) * {d}LL + ({x})");
        }
        s
    }
    pub(crate) fn addr(&self, c: usize, idx: &[String]) -> String {
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
        out.push_str(match self.flavour {
            Flavour::Cpu => "#include \"dpn_rt.hpp\"\n",
            Flavour::Cuda => "#include \"dpn_rt.hpp\"\n#include \"dpn_rt_cuda.cuh\"\n",
            Flavour::Vitis => "#include \"dpn_hls.h\"\n",
        });
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
// B provides bounds(l) (sets lo[l], hi[l] from the outer counters) and step(l) (±1, or the
// sub-bands q of an interleaved hyperplane).
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
        let vitis = self.flavour == Flavour::Vitis;
        if !vitis {
            out.push_str("// DDR: the kernel's arrays at their original layout; read-only scalars are arguments.\n");
            for v in &self.p.vars {
                if v.is_scalar_argument() {
                    let _ = writeln!(out, "{} {} s_{};", self.qual(), v.ty.c_name(), v.name);
                } else if self.flavour == Flavour::Cuda {
                    let _ = writeln!(out, "__device__ {}* v_{};", v.ty.c_name(), v.name);
                } else {
                    let _ = writeln!(out, "static std::vector<{}> v_{};", v.ty.c_name(), v.name);
                }
            }
            out.push_str("\n// Channels.\n");
        }
        for (c, ch) in self.dpn.channels.iter().enumerate() {
            match (ch.kind, self.flavour) {
                // Vitis streams are declared in the top function (see `vitis/`).
                (ChannelKind::Fifo | ChannelKind::FifoReg, Flavour::Vitis) => {}
                (ChannelKind::Fifo | ChannelKind::FifoReg, Flavour::Cuda) => {
                    let _ = writeln!(out, "__device__ dpn_gpu::Fifo<{}, {}> {};", ch.elem, ch.size.max(1), self.chan_obj(c));
                }
                (ChannelKind::Fifo | ChannelKind::FifoReg, Flavour::Cpu) => {
                    let _ = writeln!(
                        out,
                        "static dpn::Fifo<{}> {}(\"{}\", DPN_FIFO_DEPTH({}));",
                        ch.elem,
                        self.chan_obj(c),
                        ch.name,
                        ch.size.max(1)
                    );
                }
                (ChannelKind::Scratchpad, _) => {
                    match self.flavour {
                        Flavour::Cuda => {
                            let _ = writeln!(out, "__device__ dpn_gpu::Scratchpad<{}, {}> {};", ch.elem, ch.cells(), self.chan_obj(c));
                        }
                        Flavour::Cpu => {
                            let _ =
                                writeln!(out, "static dpn::Scratchpad<{}> {}(\"{}\", {});", ch.elem, self.chan_obj(c), ch.name, ch.cells());
                        }
                        Flavour::Vitis => {}
                    }
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
        if !vitis {
            out.push_str("\n// Positions in σ of the Load and Store processes, for the DDR order.\n");
            for pr in &self.dpn.processes {
                if matches!(pr.kind, ProcessKind::Load { .. } | ProcessKind::Store { .. }) {
                    let _ = if self.flavour == Flavour::Cuda {
                        writeln!(out, "__device__ dpn_gpu::Progress<{}> progress_{};", self.key_len, pr.name)
                    } else {
                        writeln!(out, "static dpn::Progress progress_{}(\"{}\", {});", pr.name, pr.name, self.key_len)
                    };
                }
            }
        }
        out.push('\n');
        Ok(())
    }

    pub(crate) fn partner(&self, var: usize, load: bool) -> Option<&Process> {
        self.dpn.processes.iter().find(|pr| match pr.kind {
            ProcessKind::Load { var: v } => load && v == var,
            ProcessKind::Store { var: v } => !load && v == var,
            _ => false,
        })
    }

    /// How a consumer reads channel `c` into `dst` at the iteration named by `names`.
    pub(crate) fn read_channel(&self, c: usize, a: &Access, names: &[String], dst: &str) -> Result<Vec<String>, CodegenError> {
        let ch: &Channel = &self.dpn.channels[c];
        let obj = self.chan_obj(c);
        let vitis = self.flavour == Flavour::Vitis;
        let pop = match vitis {
            true if self.is_ring(c) => format!("ring{c}[q{c}.take()]"),
            true => format!("{obj}.read()"),
            false => format!("{obj}.pop({})", self.id(c, true)),
        };
        Ok(match ch.kind {
            ChannelKind::Fifo => vec![format!("{dst} = {pop};")],
            ChannelKind::FifoReg => {
                let first = self.need(c, &ch.first_read, "first-read")?;
                vec![format!("if ({}) reg{c} = {pop};", pred_c(first, names)), format!("{dst} = reg{c};")]
            }
            ChannelKind::Scratchpad => {
                let last = self.need(c, &ch.last_read, "last-read")?;
                let at = self.addr(c, &self.subscripts(a, names));
                let release =
                    format!("if ({}) {}.release(at{c});", pred_c(last, names), if vitis { format!("sp{c}") } else { obj.clone() });
                match (vitis, ch.producer == ch.consumer) {
                    (false, _) => {
                        vec![format!("const size_t at{c} = {at};"), format!("{dst} = {obj}.read(at{c}{});", self.id(c, false)), release]
                    }
                    // Vitis: the point has waited until the cell arrived, and named it (`vitis::compute`).
                    (true, false) => vec![format!("{dst} = sp{c}.get(at{c});"), release],
                    (true, true) => vec![format!("const size_t at{c} = {at};"), format!("{dst} = sp{c}.get(at{c});"), release],
                }
            }
        })
    }

    /// How a producer writes `v` (the value of cell `idx`) to channel `c`.
    fn write_channel(&self, c: usize, idx: &[String], v: &str) -> String {
        let ch = &self.dpn.channels[c];
        let obj = self.chan_obj(c);
        match (ch.kind, self.flavour) {
            (ChannelKind::Scratchpad, Flavour::Vitis) if ch.producer == ch.consumer => format!("sp{c}.put({}, {v});", self.addr(c, idx)),
            (ChannelKind::Scratchpad, Flavour::Vitis) => {
                format!("{obj}.write(dpn_hls::cell<{}>({}, {v}));", index_bits(ch.cells()), self.addr(c, idx))
            }
            (ChannelKind::Scratchpad, _) => format!("{obj}.write({}, {v}{});", self.addr(c, idx), self.id(c, false)),
            (_, Flavour::Vitis) if self.is_ring(c) => format!("ring{c}[q{c}.put()] = {v};"),
            (_, Flavour::Vitis) => format!("{obj}.write({v});"),
            _ => format!("{obj}.push({v}{});", self.id(c, false)),
        }
    }

    fn loop_open(&self, out: &mut String, l: &LoopNest, depth: &mut String) {
        let names = counter_names(l);
        for (k, ctr) in l.counters.iter().enumerate() {
            let lo = bound(&ctr.lower, "dpn_max", "0LL", &names);
            let hi = bound(&ctr.upper, "dpn_min", "-1LL", &names);
            let n = &names[k];
            let _ = match ctr.step {
                1 => writeln!(out, "{depth}for (long long {n} = {lo}; {n} <= {hi}; ++{n}) {{"),
                -1 => writeln!(out, "{depth}for (long long {n} = {hi}; {n} >= {lo}; --{n}) {{"),
                q if q > 0 => writeln!(out, "{depth}for (long long {n} = {lo}; {n} <= {hi}; {n} += {q}) {{"),
                q => writeln!(out, "{depth}for (long long {n} = {hi}; {n} >= {lo}; {n} -= {}) {{", -q),
            };
            depth.push_str("    ");
        }
    }

    fn compute(&self, out: &mut String, pi: usize, stmt: usize) -> Result<(), CodegenError> {
        let pr = &self.dpn.processes[pi];
        let s = &self.p.stmts[stmt];
        let l = self.loops(pr)?;
        let _ = writeln!(out, "// {}: statement {} ({} iterations).", pr.name, s.name, pr.iterations);
        let _ = writeln!(out, "{} {{", self.fn_head(&[pi]));
        if self.flavour == Flavour::Vitis {
            self.vitis_locals(out, pi);
        }
        // FIFO+register channels keep the value being re-read.
        for clause in pr.mux.iter().flatten() {
            let ch = &self.dpn.channels[clause.channel];
            if ch.kind == ChannelKind::FifoReg {
                let _ = writeln!(out, "    {} reg{} = {{}};", ch.elem, clause.channel);
            }
        }
        if self.flavour == Flavour::Vitis {
            self.flattened(out, pi, stmt)?;
            out.push_str("}\n\n");
            return Ok(());
        }
        let names = it_names(self.p, stmt);
        let mut depth = String::from("    ");
        self.loop_open(out, l, &mut depth);
        for (n, lin) in names.iter().zip(&l.iters) {
            let _ = writeln!(out, "{depth}const long long {n} = {};", lin_c(lin, &counter_names(l)));
        }
        if !l.guard.is_true() {
            let _ = writeln!(out, "{depth}if (!{}) continue;", pred_c(&l.guard, &names));
        }
        self.point(out, pi, stmt, &depth)?;
        for _ in &l.counters {
            depth.truncate(depth.len() - 4);
            let _ = writeln!(out, "{depth}}}");
        }
        out.push_str("}\n\n");
        Ok(())
    }

    /// The mux conditions of compute process `pi`: per read, each clause's channel and
    /// predicate, in the order they are tried.
    pub(crate) fn mux_clauses(&self, pi: usize) -> Result<Vec<Vec<(usize, &Predicate)>>, CodegenError> {
        let pr = &self.dpn.processes[pi];
        (0..pr.mux.len())
            .map(|r| {
                pr.mux[r]
                    .iter()
                    .map(|cl| {
                        let pred = cl.pred.as_ref().ok_or_else(|| CodegenError::Channel {
                            channel: self.dpn.channels[cl.channel].name.clone(),
                            why: "its mux condition has no predicate".into(),
                        })?;
                        Ok((cl.channel, pred))
                    })
                    .collect()
            })
            .collect()
    }

    /// One instance of compute process `pi` at `depth`, its iterators named: each operand read
    /// from the channel its mux names, the statement, the value to the channels its demux names.
    pub(crate) fn point(&self, out: &mut String, pi: usize, stmt: usize, depth: &str) -> Result<(), CodegenError> {
        let pr = &self.dpn.processes[pi];
        let s = &self.p.stmts[stmt];
        let names = it_names(self.p, stmt);
        let w = &self.p.vars[s.write.var];
        let mux = self.mux_clauses(pi)?;
        let mut operands = Vec::new();
        for (r, a) in s.reads.iter().enumerate() {
            let v = &self.p.vars[a.var];
            if v.is_scalar_argument() {
                operands.push(format!("s_{}", v.name));
                continue;
            }
            let dst = format!("r{r}");
            let _ = writeln!(out, "{depth}{} {dst};", v.ty.c_name());
            let clauses = mux.get(r).map(Vec::as_slice).unwrap_or(&[]);
            if let [(c, pred)] = clauses {
                if pred.is_true() {
                    // One channel for every iteration: no mux.
                    for line in self.read_channel(*c, a, &names, &dst)? {
                        let _ = writeln!(out, "{depth}{line}");
                    }
                    operands.push(dst);
                    continue;
                }
            }
            for (k, (c, pred)) in clauses.iter().enumerate() {
                let cond = if k == 0 { "if" } else { "} else if" };
                let _ = writeln!(out, "{depth}{cond} ({}) {{", pred_c(pred, &names));
                for line in self.read_channel(*c, a, &names, &dst)? {
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
        Ok(())
    }

    /// A generator over the loop nest of compute process `pi`, keeping the instances where
    /// `cond` holds, keyed by σ then `tag`.
    fn generator(&self, out: &mut String, name: &str, pi: usize, cond: &[&Predicate], tag: i64, band: bool) -> Result<(), CodegenError> {
        let stmt = self.dpn.processes[pi].stmt().ok_or_else(|| CodegenError::Channel {
            channel: name.to_string(),
            why: "a generator over a process that is not a compute process".into(),
        })?;
        if self.flavour == Flavour::Vitis {
            return self.walker(out, name, pi, stmt, cond, tag);
        }
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
        let bkeys = &self.dpn.schedules[stmt].band;
        if band {
            let _ = writeln!(out, "    dpn_key_t band[{}];", bkeys.len());
        }
        let _ = writeln!(out, "    DPN_HD void bounds(int l) {{\n        switch (l) {{");
        for (k, ctr) in l.counters.iter().enumerate() {
            let _ = writeln!(
                out,
                "        case {k}: lo[{k}] = {}; hi[{k}] = {}; break;",
                bound(&ctr.lower, "dpn_max", "0LL", &walk_counters(l)),
                bound(&ctr.upper, "dpn_min", "-1LL", &walk_counters(l))
            );
        }
        let _ = writeln!(out, "        default: break;\n        }}\n    }}");
        let _ = writeln!(out, "    DPN_HD bool next() {{\n        while (walk()) {{");
        for (k, (n, lin)) in names.iter().zip(&l.iters).enumerate() {
            let _ = writeln!(out, "            const long long {n} = it[{k}] = {};", lin_c(lin, &walk_counters(l)));
        }
        let mut conds: Vec<String> = Vec::new();
        if !l.guard.is_true() {
            conds.push(pred_c(&l.guard, &names));
        }
        conds.extend(cond.iter().filter(|p| !p.is_true()).map(|p| pred_c(p, &names)));
        if !conds.is_empty() {
            let _ = writeln!(out, "            if (!({})) continue;", conds.join(" && "));
        }
        for (k, key) in self.dpn.schedules[stmt].sigma.iter().enumerate() {
            let _ = writeln!(out, "            key[{k}] = {};", key_c(key, &names));
        }
        let _ = writeln!(out, "            key[{}] = {tag}LL;", self.dpn.schedules[stmt].sigma.len());
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

    /// The generators of Load process `pi` (one per channel it feeds, keyed by σ then the
    /// read port), named `gen<channel>`; returns (channel, statement, port, name) of each.
    pub(crate) fn load_gens(&self, out: &mut String, pi: usize) -> Result<Vec<LoadGen>, CodegenError> {
        let mut gens = Vec::new();
        for c in (0..self.dpn.channels.len()).filter(|&c| self.dpn.channels[c].producer == pi) {
            let ch = &self.dpn.channels[c];
            let ProcessKind::Compute { stmt, .. } = self.dpn.processes[ch.consumer].kind else {
                return Err(CodegenError::Channel { channel: ch.name.clone(), why: "a load feeds a non-compute process".into() });
            };
            let fu = self.need(c, &ch.first_use, "first-use")?;
            let port = ch.port.unwrap_or(0);
            let name = format!("gen{c}");
            self.generator(out, &name, ch.consumer, &[fu], port as i64, ch.shared_load)?;
            gens.push(LoadGen { c, stmt, port, name });
        }
        Ok(gens)
    }

    /// The generators of Store process `pi` (one per producer channel), keyed by σ then `tag`.
    pub(crate) fn store_gens(&self, out: &mut String, pi: usize, tag: i64) -> Result<Vec<LoadGen>, CodegenError> {
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
            self.generator(out, &name, ch.producer, &[clause], tag, false)?;
            gens.push(LoadGen { c, stmt, port: 0, name });
        }
        Ok(gens)
    }

    /// Whether the Load generators `gens` share DDR reads through a cell table.
    fn shared(&self, gens: &[LoadGen]) -> bool {
        gens.iter().any(|g| self.dpn.channels[g.c].shared_load)
    }

    /// The cell table of a shared Load of `var`: its declarations and the merge state.
    fn shared_state(&self, var: usize) -> (String, String) {
        let v = &self.p.vars[var];
        let (n, len, ty) = (&v.name, v.len().max(1), v.ty.c_name());
        let bk = self.dpn.schedules[0].band.len();
        (
            format!(
                "// Each channel is served at its own first use; a cell is read from DDR once per band\n// (stamp: the band it was last read in, counted from 1).\n{q} long long stamp_{n}[{len}];\n{q} {ty} cache_{n}[{len}];\n",
                q = self.qual()
            ),
            format!("    dpn_key_t band[{bk}];\n    long long band_no = 0;"),
        )
    }

    /// Case `g` of a Load merge: generator `gen` reads its cell of `var` and fans it out.
    fn load_case(&self, out: &mut String, g: usize, gen: &LoadGen, var: usize, shared: bool) {
        let names = self.case_open(out, g, gen.stmt);
        let a = &self.p.stmts[gen.stmt].reads[gen.port];
        let idx = self.subscripts(a, &names);
        if shared {
            let bk = self.dpn.schedules[gen.stmt].band.len();
            let _ = writeln!(
                out,
                "            bool other = band_no == 0;\n            for (int q = 0; q < {bk}; ++q) other = other || band[q] != g{g}.band[q];\n            if (other) {{\n                for (int q = 0; q < {bk}; ++q) band[q] = g{g}.band[q];\n                ++band_no;\n            }}\n            const long long x = {};\n            if (stamp_{n}[x] != band_no) {{\n                cache_{n}[x] = {}[x];\n                stamp_{n}[x] = band_no;\n            }}\n            const {} v = cache_{n}[x];",
                self.flat(var, &idx),
                self.array(var),
                self.p.vars[var].ty.c_name(),
                n = self.p.vars[var].name
            );
        } else {
            let _ = writeln!(out, "            const {} v = {}[{}];", self.p.vars[var].ty.c_name(), self.array(var), self.flat(var, &idx));
        }
        self.fan_out(out, g, gen, &names, &idx);
    }

    /// The end of load case `g`: its value `v` (of cell `idx`) goes to every channel of
    /// generator `gen`'s fan-out, and the generator moves on.
    pub(crate) fn fan_out(&self, out: &mut String, g: usize, gen: &LoadGen, names: &[String], idx: &[String]) {
        self.fan_out_writes(out, gen, names, idx, "            ");
        self.case_close(out, g);
    }

    /// The writes of a loaded `v` to the channels of `gen`'s fan-out, at `depth`.
    pub(crate) fn fan_out_writes(&self, out: &mut String, gen: &LoadGen, names: &[String], idx: &[String], depth: &str) {
        for (q, pred) in &self.dpn.channels[gen.c].fanout {
            let wr = self.write_channel(*q, idx, "v");
            if pred.is_true() {
                let _ = writeln!(out, "{depth}{wr}");
            } else {
                let _ = writeln!(out, "{depth}if ({}) {wr}", pred_c(pred, names));
            }
        }
    }

    /// Case `g` of a Store merge: generator `gen`'s value goes to its cell of `var`.
    fn store_case(&self, out: &mut String, g: usize, gen: &LoadGen, var: usize) {
        let names = self.case_open(out, g, gen.stmt);
        let idx = self.subscripts(&self.p.stmts[gen.stmt].write, &names);
        let obj = self.chan_obj(gen.c);
        let _ = writeln!(out, "            {}[{}] = {obj}.pop({});", self.array(var), self.flat(var, &idx), self.id(gen.c, true));
        self.case_close(out, g);
    }

    fn load(&self, out: &mut String, pi: usize, var: usize) -> Result<(), CodegenError> {
        let gens = self.load_gens(out, pi)?;
        let name = &self.p.vars[var].name;
        let _ = writeln!(
            out,
            "// {}: every value of {name} a band reads from DDR, once per band, at its first use.",
            self.dpn.processes[pi].name
        );
        let shared = self.shared(&gens);
        let state = if shared {
            let (decl, state) = self.shared_state(var);
            out.push_str(&decl);
            state
        } else {
            String::new()
        };
        let wait = self.partner(var, false).map(|st| (st, "0", format!("Every value of {name} stored before this point in σ is in DDR.")));
        self.merge_open(out, &self.fn_head(&[pi]), gens.iter().map(|g| g.name.as_str()), &state, Some(pi), wait);
        for (g, gen) in gens.iter().enumerate() {
            self.load_case(out, g, gen, var, shared);
        }
        self.merge_close(out, Some(pi));
        Ok(())
    }

    fn store(&self, out: &mut String, pi: usize, var: usize) -> Result<(), CodegenError> {
        let gens = self.store_gens(out, pi, 0)?;
        let name = &self.p.vars[var].name;
        let _ = writeln!(out, "// {}: every value of {name} read by a later band, or final, written once.", self.dpn.processes[pi].name);
        let wait = self
            .partner(var, true)
            .map(|ld| (ld, "INT64_MAX", format!("Every load of {name} up to this point in σ has read the older value.")));
        self.merge_open(out, &self.fn_head(&[pi]), gens.iter().map(|g| g.name.as_str()), "", Some(pi), wait);
        for (g, gen) in gens.iter().enumerate() {
            self.store_case(out, g, gen, var);
        }
        self.merge_close(out, Some(pi));
        Ok(())
    }

    /// Opens a Load or Store process (`head`): its generators (named `gens`), `state`, then
    /// the loop that takes the generator with the smallest σ key, publishes it (as process
    /// `publish`), waits for the partner process (`wait`: it, the last entry of the awaited
    /// key, and why) and dispatches on it.
    pub(crate) fn merge_open<'g>(
        &self,
        out: &mut String,
        head: &str,
        gens: impl Iterator<Item = &'g str>,
        state: &str,
        publish: Option<usize>,
        wait: Option<(&Process, &str, String)>,
    ) {
        let k = self.key_len;
        let _ = writeln!(out, "{head} {{");
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
        out.push_str("        if (b < 0) break;\n");
        if let Some(pi) = publish {
            let _ = writeln!(out, "        progress_{}.publish(best);", self.dpn.processes[pi].name);
        }
        if let (Some(pi), Some((partner, last, why))) = (publish, wait) {
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

    /// Closes `case g` of a merge: its generator moves on.
    pub(crate) fn case_close(&self, out: &mut String, g: usize) {
        let _ = writeln!(out, "            h{g} = g{g}.next();\n            break;\n        }}");
    }

    /// Opens `case g` of a merge with the instance's iterators named; returns the names.
    pub(crate) fn case_open(&self, out: &mut String, g: usize, stmt: usize) -> Vec<String> {
        self.case_open_at(out, g, stmt, "        ")
    }

    /// [`Self::case_open`] with `case` at `depth`.
    pub(crate) fn case_open_at(&self, out: &mut String, g: usize, stmt: usize, depth: &str) -> Vec<String> {
        let names = it_names(self.p, stmt);
        let _ = writeln!(out, "{depth}case {g}: {{");
        for (i, n) in names.iter().enumerate() {
            let _ = writeln!(out, "{depth}    const long long {n} = g{g}.it[{i}];\n{depth}    (void){n};");
        }
        names
    }

    pub(crate) fn merge_close(&self, out: &mut String, publish: Option<usize>) {
        out.push_str("        }\n    }\n");
        if let Some(pi) = publish {
            let _ = writeln!(out, "    progress_{}.finish();", self.dpn.processes[pi].name);
        }
        out.push_str("}\n\n");
    }

    /// The signature of process `pi`'s function (Vitis: of the processes `pis`, merged).
    fn fn_head(&self, pis: &[usize]) -> String {
        match self.flavour {
            Flavour::Vitis => self.vitis_head(pis),
            _ => format!("{} void {}()", self.qual(), self.proc_fn(pis[0])),
        }
    }
}

/// `max(…)`/`min(…)` of a counter's bounds over the outer counters `ctr`.
pub(crate) fn bound(ls: &[Lin], f: &str, empty: &str, ctr: &[String]) -> String {
    let mut it = ls.iter().map(|l| lin_c(l, ctr));
    let Some(first) = it.next() else { return empty.into() };
    it.fold(first, |acc, x| format!("{f}({acc}, {x})"))
}
