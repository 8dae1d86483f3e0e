//! The Vitis HLS backend (`--target vitis`): the network as HLS C++ for a board's Vitis
//! platform, plus the files that flow needs.
//!
//! * Every **compute process** is a function taking its channels as `hls::stream&`, its loop
//!   nest flattened into one loop pipelined at `II=1` ([`compute`]). Channels from a process to
//!   itself are local to its function, as arrays ([`ring`]).
//! * A **scratchpad** belongs to the process that reads it (`dpn_hls::Scratchpad` in
//!   `runtime/hls/dpn_hls.h`); its producer sends (cell, value) pairs down a stream as deep
//!   as the scratchpad, so no array is shared between dataflow processes.
//! * One **memory process** per array ([`memory`]) does what the Load and the Store process of
//!   that array do, merged in σ order, on the array's 512-bit `m_axi` port through a line cache
//!   and write bursts (`dpn_hls::Port`).
//! * The **top function** is `extern "C"`: each array an `ap_uint<512>` pointer (`dpn_hls::Line`,
//!   a beat of 64 bytes) on an `m_axi` port, bundled per memory bank (arrays go to the board's
//!   banks in turn), `s_axilite` control, `#pragma HLS dataflow` over the calls.
//!
//! Beside `kernel.cpp`: a software test bench (`tb.cpp`: `.npy` in, kernel, `.npy` out), an XRT
//! host (`host.cpp`), the `v++` connectivity file, a Vitis HLS C-simulation script, a Makefile
//! (`sw`, `csim`, `hw_emu`, `hw`), and the stand-in `hls_stream.h` / `ap_int.h` (in `sw/`) with
//! which the same kernel builds with g++ and runs as threads.

mod compute;
mod memory;
mod ring;

use crate::gen::{Flavour, Gen};
use crate::CodegenError;
use dpnc_boards::Board;
use dpnc_dpn::ir::{index_bits, ChannelKind, Dpn, ProcessKind};
use dpnc_frontend::ir::{Program, VarKind};
use std::fmt::Write;

/// Our header for the kernels (dataflow macros, scratchpads).
pub const DPN_HLS: &str = include_str!("../../runtime/hls/dpn_hls.h");
/// Stand-ins for Vitis's headers, for software runs with g++ (written for dpnc).
pub const HLS_STREAM: &str = include_str!("../../runtime/hls/hls_stream.h");
pub const AP_INT: &str = include_str!("../../runtime/hls/ap_int.h");

/// The files of the Vitis backend for `board`.
pub fn generate(p: &Program, dpn: &Dpn, board: &Board) -> Result<Vec<(String, String)>, CodegenError> {
    let g = Gen::new(p, dpn, Flavour::Vitis);
    let ports = ports(p, board);
    let mut kernel = g.program()?;
    g.top_vitis(&mut kernel, &ports)?;
    let mut files = vec![
        ("kernel.cpp".to_string(), kernel),
        ("dpn_hls.h".into(), DPN_HLS.into()),
        ("sw/hls_stream.h".into(), HLS_STREAM.into()),
        ("sw/ap_int.h".into(), AP_INT.into()),
        ("tb.cpp".into(), g.testbench()),
        ("host.cpp".into(), crate::xrt_host::generate(p, &dpn.kernel)),
        ("connectivity.cfg".into(), board.connectivity(&dpn.kernel, &ports.iter().map(|q| q.var.as_str()).collect::<Vec<_>>())),
        ("csim.tcl".into(), csim_tcl(&dpn.kernel, board)),
        ("Makefile".into(), makefile(&dpn.kernel, board)),
    ];
    files.extend(crate::runtime_files());
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

/// Flags for the software build (`make sw`): the interpreter's semantics, stand-in headers, and
/// `#pragma HLS` lines left alone.
pub const SW_FLAGS: &[&str] = &["-std=c++17", "-O2", "-ffp-contract=off", "-fwrapv", "-pthread", "-Wno-unknown-pragmas", "-I.", "-Isw"];

/// An array argument's memory port: its `m_axi` bundle and the board bank it is mapped to.
pub struct Port {
    pub var: String,
    pub bundle: String,
    pub bank: String,
}

/// Arrays take the board's banks in turn ([`Board::bank_of`]), one bundle per bank used.
pub fn ports(p: &Program, board: &Board) -> Vec<Port> {
    let arrays = p.vars.iter().filter(|v| v.kind == VarKind::Argument && !v.is_scalar_argument());
    arrays
        .enumerate()
        .map(|(k, v)| {
            let (b, bank) = board.bank_of(k);
            Port { var: v.name.clone(), bundle: format!("gmem{b}"), bank: bank.to_string() }
        })
        .collect()
}

fn csim_tcl(kernel: &str, board: &Board) -> String {
    format!(
        "# vitis_hls -f csim.tcl: C simulation of {kernel} on the .npy files in in/ (results in out/).\n\
         open_project -reset {kernel}_hls\n\
         set_top {kernel}\n\
         add_files kernel.cpp -cflags \"-I. -std=c++17\"\n\
         add_files -tb tb.cpp -cflags \"-I. -std=c++17\"\n\
         open_solution -reset solution -flow_target vitis\n\
         set_part {{{}}}\n\
         create_clock -period {:.3}\n\
         csim_design -ldflags \"-pthread\" -argv \"[pwd]/in [pwd]/out\"\n\
         exit\n",
        board.part,
        1000.0 / board.clock_mhz
    )
}

fn makefile(kernel: &str, board: &Board) -> String {
    format!(
        "# {kernel} as a Vitis HLS kernel for {label}.\n\
         #   make sw       the kernel as software (g++, stand-in headers in sw/; each dataflow\n\
         #                 process a thread): ./kernel_sw IN_DIR OUT_DIR, one NAME.npy per argument\n\
         #   make csim     Vitis HLS C simulation on in/*.npy (needs vitis_hls)\n\
         #   make hw_emu   hardware emulation: xclbin, host, and a run on in/*.npy (needs v++ and XRT)\n\
         #   make hw       the xclbin for the board, and the host: ./host {kernel}.hw.xclbin IN_DIR OUT_DIR\n\
         PLATFORM ?= {platform}\n\
         KERNEL := {kernel}\n\
         CXX ?= g++\n\
         CXXFLAGS ?= {sw}\n\
         VPP ?= v++\n\
         XILINX_XRT ?= /opt/xilinx/xrt\n\n\
         .PHONY: sw csim hw_emu hw\n\
         .PRECIOUS: $(KERNEL).%.xo\n\
         sw: kernel_sw\n\
         kernel_sw: kernel.cpp tb.cpp dpn_hls.h dpn_rt.hpp sw/hls_stream.h sw/ap_int.h\n\
         \t$(CXX) $(CXXFLAGS) -o $@ kernel.cpp tb.cpp\n\n\
         csim:\n\
         \tvitis_hls -f csim.tcl\n\n\
         $(KERNEL).%.xo: kernel.cpp dpn_hls.h\n\
         \t$(VPP) -c -t $* --platform $(PLATFORM) -k $(KERNEL) -I. -o $@ kernel.cpp\n\n\
         $(KERNEL).%.xclbin: $(KERNEL).%.xo connectivity.cfg\n\
         \t$(VPP) -l -t $* --platform $(PLATFORM) --config connectivity.cfg -o $@ $<\n\n\
         {rules}",
        label = board.label(),
        platform = board.platform,
        sw = SW_FLAGS.join(" "),
        rules = crate::xrt_host::MAKE_RULES
    )
}

impl Gen<'_> {
    /// The processes whose function is `pis[0]`'s: a compute process alone, or the Load and
    /// Store process of one array (its memory process).
    fn members(&self, pi: usize) -> Vec<usize> {
        match self.dpn.processes[pi].kind {
            ProcessKind::Compute { .. } => vec![pi],
            ProcessKind::Load { var } | ProcessKind::Store { var } => self.dpn.memory_processes(var),
        }
    }

    /// The stream type of channel `c`.
    fn stream_elem(&self, c: usize) -> String {
        let ch = &self.dpn.channels[c];
        match ch.kind {
            ChannelKind::Scratchpad => format!("dpn_hls::Cell<{}, {}>", ch.elem, index_bits(ch.cells())),
            _ => ch.elem.clone(),
        }
    }

    /// A stream's depth: the channel's size (a scratchpad's stream holds at most its live
    /// values, so its cell count), and at least 2: HLS makes a stream of depth 1 a single
    /// register, which a producer and a consumer cannot both use in one cycle.
    fn depth(&self, c: usize) -> usize {
        self.dpn.channels[c].cells().max(2)
    }

    /// (parameter declaration, argument in the top function) of the function of `pis`.
    fn vitis_params(&self, pis: &[usize]) -> Vec<(String, String)> {
        let mut params = Vec::new();
        match self.dpn.processes[pis[0]].kind {
            ProcessKind::Compute { stmt, .. } => {
                let mut seen = Vec::new();
                for a in &self.p.stmts[stmt].reads {
                    let v = &self.p.vars[a.var];
                    if v.is_scalar_argument() && !seen.contains(&a.var) {
                        seen.push(a.var);
                        params.push((format!("{} s_{}", v.ty.c_name(), v.name), v.name.clone()));
                    }
                }
            }
            ProcessKind::Load { var } | ProcessKind::Store { var } => {
                let v = &self.p.vars[var];
                if v.kind == VarKind::Argument {
                    params.push((format!("dpn_hls::Line* {}", self.array(var)), v.name.clone()));
                }
            }
        }
        for (c, ch) in self.dpn.channels.iter().enumerate() {
            let (mine_p, mine_c) = (pis.contains(&ch.producer), pis.contains(&ch.consumer));
            if mine_p != mine_c {
                params.push((format!("hls::stream<{}>& {}", self.stream_elem(c), self.chan_obj(c)), self.chan_obj(c)));
            }
        }
        params
    }

    pub(crate) fn vitis_head(&self, pis: &[usize]) -> String {
        let params: Vec<String> = self.vitis_params(pis).into_iter().map(|p| p.0).collect();
        format!("static void {}({})", self.vitis_fn(pis[0]), params.join(", "))
    }

    fn vitis_fn(&self, pi: usize) -> String {
        match self.dpn.processes[pi].kind {
            ProcessKind::Compute { .. } => self.proc_fn(pi),
            ProcessKind::Load { var } | ProcessKind::Store { var } => format!("process_mem_{}", self.p.vars[var].name),
        }
    }

    /// What compute process `pi` keeps to itself: rings (FIFOs to itself) and the scratchpads it reads.
    pub(crate) fn vitis_locals(&self, out: &mut String, pi: usize) {
        for (c, ch) in self.dpn.channels.iter().enumerate().filter(|(_, ch)| ch.consumer == pi) {
            match ch.kind {
                ChannelKind::Scratchpad => {
                    let _ = writeln!(
                        out,
                        "    dpn_hls::Scratchpad<{}, {}, {}> sp{c};  // {}",
                        ch.elem,
                        ch.cells(),
                        index_bits(ch.cells()),
                        ch.name
                    );
                }
                _ if self.is_ring(c) => {
                    let _ = writeln!(out, "    {} ring{c}[{d}];  // {}\n    dpn_hls::Ring<{d}> q{c};", ch.elem, ch.name, d = self.depth(c));
                }
                _ => {}
            }
        }
    }

    /// The memory processes, then the top function: interfaces (arrays on `ports`), streams,
    /// the dataflow region.
    fn top_vitis(&self, out: &mut String, ports: &[Port]) -> Result<(), CodegenError> {
        let (p, dpn) = (self.p, self.dpn);
        let mut firsts: Vec<usize> = Vec::new();
        for (pi, pr) in dpn.processes.iter().enumerate() {
            if let ProcessKind::Load { var } | ProcessKind::Store { var } = pr.kind {
                if self.dpn.memory_processes(var)[0] == pi {
                    firsts.push(pi);
                    self.memory_process(out, var)?;
                }
            }
        }
        let vars: Vec<_> = p.vars.iter().filter(|v| v.kind == VarKind::Argument).collect();
        let _ = writeln!(out, "// The kernel: every process of the network, running concurrently.");
        let _ = writeln!(out, "extern \"C\" void {}({}) {{", dpn.kernel, self.top_params().join(", "));
        for v in &vars {
            if let Some(port) = ports.iter().find(|q| q.var == v.name) {
                let _ = writeln!(
                    out,
                    "#pragma HLS interface m_axi port={} offset=slave bundle={} depth={} max_read_burst_length={burst} max_write_burst_length={burst}",
                    v.name,
                    port.bundle,
                    lines(v),
                    burst = 4096 / LINE_BYTES
                );
            }
            let _ = writeln!(out, "#pragma HLS interface s_axilite port={}", v.name);
        }
        out.push_str("#pragma HLS interface s_axilite port=return\n#pragma HLS dataflow\n");
        for (c, ch) in dpn.channels.iter().enumerate().filter(|(_, ch)| ch.producer != ch.consumer) {
            let (obj, d) = (self.chan_obj(c), self.depth(c));
            let _ = writeln!(
                out,
                "    hls::stream<{}, {d}> {obj}(\"{}\");  // {:?}\n#pragma HLS stream variable={obj} depth={d}",
                self.stream_elem(c),
                ch.name,
                ch.kind
            );
        }
        out.push_str("    DPN_DATAFLOW_BEGIN\n");
        let calls = dpn.processes.iter().enumerate().filter(|(pi, pr)| pr.stmt().is_some() || firsts.contains(pi));
        for (pi, _) in calls {
            let members = self.members(pi);
            let mut call = vec![self.vitis_fn(pi)];
            call.extend(self.vitis_params(&members).into_iter().map(|p| p.1));
            let _ = writeln!(out, "    DPN_PROCESS({});", call.join(", "));
        }
        out.push_str("    DPN_DATAFLOW_END\n}\n");
        Ok(())
    }

    /// The software test bench (also Vitis's C-simulation bench): `.npy` in, kernel, `.npy` out.
    fn testbench(&self) -> String {
        let (p, kernel) = (self.p, &self.dpn.kernel);
        let mut out = format!(
            "// {kernel}: test bench of the Vitis HLS kernel, for software runs and C simulation (generated by dpnc).\n\
             #include \"dpn_hls.h\"  // arrays as the lines of their m_axi ports\n#include \"dpn_rt.hpp\"  // .npy files\n#include <string>\n#include <vector>\n\n\
             extern \"C\" void {kernel}({});\n\n\
             int main(int argc, char** argv) {{\n    if (argc != 3) {{\n        std::fprintf(stderr, \"usage: %s IN_DIR OUT_DIR (one NAME.npy per kernel argument)\\n\", argv[0]);\n        return 2;\n    }}\n    const std::string in = argv[1], out = argv[2];\n",
            self.top_params().join(", ")
        );
        out += &crate::xrt_host::npy_io(
            p,
            |_, v| {
                (format!("    std::vector<dpn_hls::Line> l_{n} = dpn_hls::to_lines(h_{n});\n", n = v.name), format!("l_{}.data()", v.name))
            },
            |args| format!("    {kernel}({args});\n"),
            |v| format!("    dpn_hls::from_lines(l_{n}, h_{n});\n", n = v.name),
        );
        out.push_str("    return 0;\n}\n");
        out
    }

    /// The top function's parameters: arrays as pointers to their 512-bit lines, read-only
    /// scalars by value.
    fn top_params(&self) -> Vec<String> {
        let vars = self.p.vars.iter().filter(|v| v.kind == VarKind::Argument);
        vars.map(|v| if v.is_scalar_argument() { format!("{} {}", v.ty.c_name(), v.name) } else { format!("dpn_hls::Line* {}", v.name) })
            .collect()
    }
}

/// Bytes in a beat of an `m_axi` port (`dpn_hls::LINE_BYTES`).
const LINE_BYTES: usize = 64;

/// The beats array `v` spans on its port.
fn lines(v: &dpnc_frontend::ir::Variable) -> usize {
    (v.len().max(1) * v.ty.size()).div_ceil(LINE_BYTES)
}
