//! Verilator simulation of a dpnc design: a generated C++ harness drives the design's top module like a
//! host (AXI4-Lite `ap_ctrl_hs`), serves its AXI4 masters from a memory model with latency, seeded
//! jitter and banks of limited bandwidth, detects deadlock and timeout, and reads the arrays back.
//!
//! The simulated top module's ports (Vitis RTL-kernel conventions, plus debug outputs; for a dpnc
//! kernel that top is its simulation wrapper, `dpnc_rtl::sim_wrapper`, around the kernel):
//! * `ap_clk`, `ap_rst_n` (active-low synchronous reset), `output interrupt`;
//! * AXI4-Lite slave `s_axi_control_*` (12-bit addresses, 32-bit data) with the `ap_ctrl_hs` map: 0x00
//!   control (bit 0 ap_start, bit 1 ap_done clear-on-read, bit 2 ap_idle, bit 3 ap_ready), 0x04 GIE, 0x08
//!   IER, 0x0C ISR, argument k at 0x10 + 8k (low word) and 0x14 + 8k (high word);
//! * per memory port P, an AXI4 master `m_axi_P_{aw*,w*,b*,ar*,r*}` without ID signals: 64-bit addresses,
//!   8-bit len, 3-bit size, 2-bit burst, DW-bit data, DW/8-bit strobes, 2-bit responses;
//! * `dbg_ops[31:0]` (changes whenever a channel transfers a value), `dbg_full[NC-1:0]`,
//!   `dbg_empty[NC-1:0]`, `dbg_done[NP-1:0]`, `dbg_peak[32*NC-1:0]`, and per process what it did
//!   this cycle, `dbg_work`, `dbg_wait_in` and `dbg_wait_out` (each `[NP-1:0]`, see
//!   [`ProcessCycles`]), in the order of [`Spec::channels`] and [`Spec::processes`].
//!
//! The harness (`harness/dpn_sim.h`, which documents its command line and the memory model in detail)
//! resets the design for 16 cycles, writes every argument and reads it back, enables the ap_done
//! interrupt (GIE, IER), sets ap_start, then polls 0x00 every 64 cycles until ap_done reads 1.
//!
//! [`build`] writes `dpn_sim.h` and a generated `dpn_sim_main.cpp` (the port bindings and the spec's
//! constants) into a directory and builds `<dir>/obj/dpn_sim` with `verilator --cc --exe --build`.
//! [`run`] runs it once: inputs and outputs travel as raw `.bin` files and a `result.json` in a fresh
//! subdirectory of `<dir>/obj/runs/`, removed afterwards.
//!
//! Arrays are placed from byte address 0x1_0000_0000 (above 4 GiB, so that all address bits matter), in
//! argument order, each 4 KiB aligned and followed by at least one unmapped 4 KiB guard page. An array
//! is accessible from its base to its size rounded up to a whole beat (DW/8 bytes), through its own port
//! only.

pub mod kernel;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The harness's generic part, written next to the generated main.
const HARNESS_H: &str = include_str!("../harness/dpn_sim.h");

/// Where the first array is placed.
pub const FIRST_ARRAY_ADDRESS: u64 = 0x1_0000_0000;

/// The design to simulate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// Verilog top module name.
    pub top: String,
    /// Every source file of the design (absolute).
    pub verilog: Vec<PathBuf>,
    /// m_axi port names, e.g. `["gmem0", "gmem1"]`.
    pub ports: Vec<String>,
    /// DW, the width of the m_axi data buses (a power of two, 8..=1024).
    pub data_bits: u32,
    /// Argument k is register 0x10 + 8k (low word) and 0x14 + 8k (high word).
    pub args: Vec<Arg>,
    /// Names for bit k of `dbg_full` / `dbg_empty` and word k of `dbg_peak`.
    pub channels: Vec<String>,
    /// Names for bit k of `dbg_done`.
    pub processes: Vec<String>,
    /// Write a waveform of every signal here (`.vcd`: VCD, anything else: FST, which GTKWave
    /// opens); `None`: no tracing (the model builds and runs faster).
    pub trace: Option<PathBuf>,
    /// How the model's C++ is compiled.
    pub build: ModelBuild,
}

/// How [`build`] compiles the model's C++.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ModelBuild {
    /// Optimised, for runs of many cycles.
    #[default]
    Optimised,
    /// Without optimisation (`-O0` throughout, in few large files): the model builds in far less
    /// time and runs a few times slower, which pays off for runs of a few thousand cycles.
    Quick,
}

/// What a traced model needs of one waveform format: Verilator's flag, the writer's header and
/// class, and the model's own object directory (so that switching tracing on and off stays
/// incremental).
struct TraceFormat {
    flag: &'static str,
    header: &'static str,
    class: &'static str,
    obj: &'static str,
}

const VCD: TraceFormat = TraceFormat { flag: "--trace", header: "verilated_vcd_c.h", class: "VerilatedVcdC", obj: "obj-trace" };
const FST: TraceFormat = TraceFormat { flag: "--trace-fst", header: "verilated_fst_c.h", class: "VerilatedFstC", obj: "obj-trace-fst" };

impl Spec {
    /// The format of [`Spec::trace`], if any.
    fn trace_format(&self) -> Option<&'static TraceFormat> {
        self.trace.as_ref().map(|p| if p.extension().is_some_and(|e| e == "vcd") { &VCD } else { &FST })
    }
}

/// A kernel argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    pub name: String,
    pub kind: ArgKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgKind {
    /// An array in DDR: the harness places it (4 KiB aligned, distinct regions) and passes its byte address.
    Array { port: usize, bytes: usize, output: bool },
    /// A scalar passed by value: its bit pattern (zero-extended to 64 bits).
    Scalar { bits: u32 },
}

/// The memory model's parameters (per m_axi port).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Memory {
    /// Cycles from a read request's acceptance (AR) to its first data beat, and from a write's last W beat
    /// to its response (B).
    pub latency: u32,
    /// Plus a uniform random 0..=jitter cycles per request.
    pub jitter: u32,
    /// Seed of the jitter; different seeds give different interleavings.
    pub seed: u64,
    /// Requests in flight per port and direction (AR accepted and last R beat not yet taken; AW accepted
    /// and B not yet taken); `arready` / `awready` are low while the limit is reached.
    pub max_outstanding: u32,
    /// Memory banks, each by the bytes it moves per 1000 cycles, reads and writes together,
    /// shared by its ports (0: no limit beyond one beat per cycle per port and direction); port
    /// k is on bank k mod their number. Empty: a bank per port, none limited.
    pub bank_rates: Vec<u64>,
}

impl Default for Memory {
    /// latency 64, jitter 32, seed 1, 8 outstanding requests per port and direction, a bank per
    /// port with no bandwidth limit.
    fn default() -> Self {
        Memory { latency: 64, jitter: 32, seed: 1, max_outstanding: 8, bank_rates: Vec::new() }
    }
}

impl Memory {
    /// The default model with `board`'s banks at its kernel clock: ports placed on its banks
    /// in turn (as [`dpnc_boards::Board::bank_of`] places arrays), each bank moving at most its
    /// own peak bandwidth a cycle (the U280's HBM pseudo-channels theirs, its DDR4 banks theirs).
    pub fn for_board(board: &dpnc_boards::Board) -> Self {
        let per_kilocycle = |gbs: f64| (gbs * 1e9 / (board.clock_mhz * 1e6) * 1000.0).round() as u64;
        Memory { bank_rates: board.memory.iter().map(|b| per_kilocycle(b.bandwidth_gbs)).collect(), ..Memory::default() }
    }
}

/// The value of an argument for [`run`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Initial bytes of an array (exactly its size).
    Bytes(Vec<u8>),
    /// Bit pattern of a scalar (must fit in its `bits`).
    Bits(u64),
}

/// A completed run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Outcome {
    /// Cycles from the host's ap_start write (its response) to ap_done (the interrupt line, which the harness
    /// enables; the polled ap_done bit when the interrupt does not come).
    pub cycles: u64,
    /// Bytes transferred over all ports: R beats' bytes, and W bytes with their strobe set.
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// The same per m_axi port, in the order of `Spec::ports`.
    pub ports: Vec<PortTraffic>,
    /// Final contents of every Array argument, in argument order (little-endian bytes).
    pub arrays: Vec<(String, Vec<u8>)>,
    /// Per channel, from `dbg_peak` at the end.
    pub peaks: Vec<u32>,
    /// Per channel, the cycles from ap_start on in which it was full (`dbg_full`): a write
    /// offered then would have stalled its producer.
    pub full_cycles: Vec<u64>,
    /// Per process (`dbg_work`, `dbg_wait_in`, `dbg_wait_out`), in the order of `Spec::processes`.
    pub processes: Vec<ProcessCycles>,
}

/// How one process spent the cycles of a run (from ap_start on): doing its work (a compute
/// process: issuing an iteration; a memory process: issuing an access or handing a loaded value
/// on), waiting for an input (an operand; a DDR beat or a value to store), or waiting for room
/// (a channel it writes is full). The rest it was idle: walking, done, or not yet started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProcessCycles {
    pub work: u64,
    pub wait_in: u64,
    pub wait_out: u64,
    /// The cycle (from ap_start, counting from 1) in which it first reported done; 0 if it never
    /// did. The last process done sets the run's length, so this shows which one it is.
    pub done_at: u64,
}

/// What one m_axi port carried in a run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PortTraffic {
    pub name: String,
    pub bytes_read: u64,
    /// Of `bytes_read`, those of beats that an earlier beat of the same size had read: fetched
    /// again (a cache line evicted, or fetched by two lanes), not beats wider than the data.
    pub bytes_reread: u64,
    pub bytes_written: u64,
    pub read_bursts: u64,
    pub write_bursts: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// verilator or g++ missing or failing, or the harness crashing (first lines of its output).
    #[error("simulation tool failed: {0}")]
    Tool(String),
    /// No sign of life for `stall_cycles`; `cycle` counts from ap_start.
    #[error("deadlock at cycle {cycle}:\n{report}")]
    Deadlock { cycle: u64, report: String },
    #[error("no ap_done after {cycles} cycles")]
    Timeout { cycles: u64 },
    /// An AXI violation or an out-of-range address the memory model caught, or `$stop` in the design.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// Files, or inputs that do not match the spec.
    #[error("{0}")]
    Io(String),
}

/// Where each Array argument is placed: `(byte address, accessible bytes)`, `None` for scalars.
pub fn placement(spec: &Spec) -> Vec<Option<(u64, u64)>> {
    let beat = u64::from(spec.data_bits / 8).max(1);
    let mut next = FIRST_ARRAY_ADDRESS;
    spec.args
        .iter()
        .map(|a| match a.kind {
            ArgKind::Array { bytes, .. } => {
                let base = next;
                let span = (bytes as u64).div_ceil(beat) * beat;
                next = (base + span).div_ceil(4096) * 4096 + 4096;
                Some((base, span))
            }
            ArgKind::Scalar { .. } => None,
        })
        .collect()
}

fn validate(spec: &Spec) -> Result<(), SimError> {
    let bad = |m: String| Err(SimError::Io(format!("invalid simulation spec: {m}")));
    let ident =
        |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !s.starts_with(|c: char| c.is_ascii_digit());
    if !ident(&spec.top) {
        return bad(format!("top module name {:?}", spec.top));
    }
    if !(8..=1024).contains(&spec.data_bits) || !spec.data_bits.is_power_of_two() {
        return bad(format!("data_bits {} (a power of two from 8 to 1024)", spec.data_bits));
    }
    for p in &spec.ports {
        if !ident(p) {
            return bad(format!("port name {p:?}"));
        }
    }
    if spec.verilog.is_empty() {
        return bad("no Verilog sources".into());
    }
    if spec.args.len() > 510 {
        return bad(format!("{} arguments (at most 510)", spec.args.len()));
    }
    let mut names = std::collections::HashSet::new();
    for a in &spec.args {
        if !names.insert(a.name.as_str()) {
            return bad(format!("argument {:?} appears twice", a.name));
        }
        match a.kind {
            ArgKind::Array { port, .. } if port >= spec.ports.len() => {
                return bad(format!("array {} on port {port}, but there are {} ports", a.name, spec.ports.len()))
            }
            ArgKind::Scalar { bits } if !(1..=64).contains(&bits) => return bad(format!("scalar {} of {bits} bits", a.name)),
            _ => {}
        }
    }
    Ok(())
}

/// A C++ string literal.
fn c_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                o.push('\\');
                o.push(c)
            }
            c if c.is_ascii_graphic() || c == ' ' => o.push(c),
            c => {
                let mut b = [0u8; 4];
                for x in c.encode_utf8(&mut b).bytes() {
                    o.push_str(&format!("\\{x:03o}"));
                }
            }
        }
    }
    o.push('"');
    o
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100000001b3))
}

/// What a model is built from: Verilator's command line, then every source's path and text
/// (the generated main and harness among them, written before this is taken), hashed.
fn fingerprint(cmd: &Command, sources: &[PathBuf]) -> Result<String, SimError> {
    let mut text: String = cmd.get_args().map(|a| a.to_string_lossy() + "\n").collect();
    let dir = cmd.get_current_dir().unwrap_or(Path::new("."));
    for f in sources.iter().cloned().chain(["dpn_sim_main.cpp", "dpn_sim.h"].map(|n| dir.join(n))) {
        let body = std::fs::read_to_string(&f).map_err(|e| SimError::Io(format!("{}: {e}", f.display())))?;
        text += &format!("{}\n{}\n", f.display(), body);
    }
    Ok(format!("{:016x} {}\n", fnv1a(&text), text.len()))
}

/// The generated main and the spec's hash (which it embeds).
fn generate_main(spec: &Spec) -> (String, String) {
    const HASH: &str = "@SPEC_HASH@";
    let v = format!("V{}", spec.top);
    let mut s = String::new();
    let mut line = |l: String| {
        s.push_str(&l);
        s.push('\n');
    };
    line(format!("// Generated by dpnc-sim for the top module `{}`: binds the Verilated model's ports to the harness", spec.top));
    line("// (dpn_sim.h, which documents the command line). Do not edit.".into());
    line(format!("#include \"{v}.h\""));
    line("#include \"verilated.h\"".into());
    let traced = spec.trace_format();
    if let Some(t) = traced {
        line(format!("#include \"{}\"", t.header));
    }
    line("#include \"dpn_sim.h\"".into());
    line("#include <memory>".into());
    line(String::new());
    line(format!("using V = {v};"));
    line("int main(int argc, char** argv) {".into());
    line("    auto ctx = std::make_unique<VerilatedContext>();".into());
    line("    ctx->commandArgs(argc, argv);".into());
    if traced.is_some() {
        line("    ctx->traceEverOn(true);".into());
    }
    line("    ctx->randReset(2);  // registers without a reset start random (with --x-initial unique)".into());
    line("    ctx->randSeed(int(dpn_sim::seed_from_args(argc, argv) % 1000000007u) + 1);".into());
    line("    ctx->fatalOnError(false);  // $stop ends the run as a protocol error".into());
    line(format!("    auto top = std::make_unique<{v}>(ctx.get(), \"TOP\");"));
    line("    dpn_sim::Design d;".into());
    line(format!("    d.top = {};", c_str(&spec.top)));
    line(format!("    d.spec_hash = \"{HASH}\";"));
    line(format!("    d.data_bits = {};", spec.data_bits));
    for (a, place) in spec.args.iter().zip(placement(spec)) {
        let desc = match (a.kind.clone(), place) {
            (ArgKind::Array { port, bytes, output }, Some((base, span))) => {
                format!("{}, true, {port}u, {bytes}ull, {output}, 0u, 0x{base:x}ull, {span}ull", c_str(&a.name))
            }
            (ArgKind::Scalar { bits }, _) => format!("{}, false, 0u, 0ull, false, {bits}u, 0ull, 0ull", c_str(&a.name)),
            _ => unreachable!(),
        };
        line(format!("    d.args.push_back(dpn_sim::ArgDesc{{{desc}}});"));
    }
    for (field, names) in [("ports", &spec.ports), ("channels", &spec.channels), ("processes", &spec.processes)] {
        for n in names {
            line(format!("    d.{field}.push_back({});", c_str(n)));
        }
    }
    line("    d.clk = &top->ap_clk;".into());
    line("    d.rst_n = &top->ap_rst_n;".into());
    line("    d.interrupt = dpn_sim::Interrupt<V>::pin(top.get());  // Verilator may call it __SYM__interrupt".into());
    for sig in [
        "awvalid", "awready", "awaddr", "wvalid", "wready", "wdata", "wstrb", "bvalid", "bready", "bresp", "arvalid", "arready", "araddr",
        "rvalid", "rready", "rdata", "rresp",
    ] {
        line(format!("    d.ctrl.{sig} = &top->s_axi_control_{sig};"));
    }
    for p in &spec.ports {
        line("    {".into());
        line("        dpn_sim::AxiPins p;".into());
        for sig in [
            "awvalid", "awready", "awaddr", "awlen", "awsize", "awburst", "wvalid", "wready", "wdata", "wstrb", "wlast", "bvalid",
            "bready", "bresp", "arvalid", "arready", "araddr", "arlen", "arsize", "arburst", "rvalid", "rready", "rdata", "rlast", "rresp",
        ] {
            if matches!(sig, "wdata" | "wstrb" | "rdata") {
                line(format!("        p.{sig} = dpn_sim::bytes_of(top->m_axi_{p}_{sig});"));
            } else {
                line(format!("        p.{sig} = &top->m_axi_{p}_{sig};"));
            }
        }
        line("        d.axi.push_back(p);".into());
        line("    }".into());
    }
    line("    d.dbg_ops = &top->dbg_ops;".into());
    if !spec.channels.is_empty() {
        for sig in ["full", "empty", "peak"] {
            line(format!("    d.dbg_{sig} = dpn_sim::bytes_of(top->dbg_{sig});"));
        }
    }
    if !spec.processes.is_empty() {
        for sig in ["done", "work", "wait_in", "wait_out"] {
            line(format!("    d.dbg_{sig} = dpn_sim::bytes_of(top->dbg_{sig});"));
        }
    }
    if let Some(TraceFormat { class, .. }) = traced {
        // Every signal, under the design's own instance names; one time unit per half cycle.
        line(format!("    std::unique_ptr<{class}> trace;"));
        line("    if (const char* path = dpn_sim::trace_from_args(argc, argv)) {".into());
        line(format!("        trace = std::make_unique<{class}>();"));
        line("        top->trace(trace.get(), 99);".into());
        line("        trace->open(path);".into());
        line("    }".into());
    }
    line("    d.eval = [&] {".into());
    line("        top->eval();".into());
    if traced.is_some() {
        line("        if (trace) trace->dump(ctx->time());".into());
    }
    line("        ctx->timeInc(1);".into());
    line("    };".into());
    line("    d.got_finish = [&] { return ctx->gotFinish(); };".into());
    line("    int rc = dpn_sim::run(d, argc, argv);".into());
    line("    top->final();".into());
    if traced.is_some() {
        line("    if (trace) trace->close();".into());
    }
    line("    return rc;".into());
    line("}".into());
    let hash = format!("{:016x}", fnv1a(&(s.clone() + HARNESS_H)));
    (s.replace(HASH, &hash), hash)
}

/// Lines of a child's stdout (`false`) and stderr (`true`), as they come.
fn spawn_lines(cmd: &mut Command) -> std::io::Result<(std::process::Child, mpsc::Receiver<(bool, String)>)> {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().expect("piped");
    let err = child.stderr.take().expect("piped");
    fn pump(r: impl Read + Send + 'static, is_err: bool, tx: mpsc::Sender<(bool, String)>) {
        std::thread::spawn(move || {
            let mut r = BufReader::new(r);
            let mut buf = Vec::new();
            while matches!(r.read_until(b'\n', &mut buf), Ok(n) if n > 0) {
                let l = String::from_utf8_lossy(&buf).trim_end().to_string();
                buf.clear();
                if tx.send((is_err, l)).is_err() {
                    break;
                }
            }
        });
    }
    pump(out, false, tx.clone());
    pump(err, true, tx);
    Ok((child, rx))
}

/// The interesting part of a failed tool's output: its error lines first, then the start.
fn first_lines(lines: &[String], n: usize) -> String {
    let errors: Vec<&String> =
        lines.iter().filter(|l| l.contains("%Error") || l.contains("error:") || l.contains("Error ") || l.contains("fatal")).collect();
    let pick: Vec<&String> = if errors.is_empty() { lines.iter().collect() } else { errors };
    let mut s = pick.iter().take(n).map(|l| l.as_str()).collect::<Vec<_>>().join("\n");
    if pick.len() > n {
        s.push_str(&format!("\n... ({} more lines)", pick.len() - n));
    }
    s
}

/// Writes the harness into `dir` and builds it with `verilator --cc --exe --build`; calls `progress`
/// with short status lines (at least every 10 s while the build runs). Returns the executable,
/// `<dir>/obj/dpn_sim`. A model built in the same directory from the same sources and flags is
/// reused as it is (Verilator would otherwise regenerate and recompile all of its C++).
pub fn build(spec: &Spec, dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, SimError> {
    validate(spec)?;
    let io = |e: std::io::Error, what: &Path| SimError::Io(format!("{}: {e}", what.display()));
    std::fs::create_dir_all(dir).map_err(|e| io(e, dir))?;
    let dir = dir.canonicalize().map_err(|e| io(e, dir))?;
    let (main, _) = generate_main(spec);
    for (name, text) in [("dpn_sim.h", HARNESS_H), ("dpn_sim_main.cpp", main.as_str())] {
        let p = dir.join(name);
        // leave an identical file alone, so that make does not rebuild it
        if std::fs::read_to_string(&p).ok().as_deref() != Some(text) {
            std::fs::write(&p, text).map_err(|e| io(e, &p))?;
        }
    }
    let mut sources = Vec::new();
    for v in &spec.verilog {
        match v.canonicalize() {
            Ok(p) if p.is_file() => sources.push(p),
            _ => return Err(SimError::Io(format!("Verilog source {} not found", v.display()))),
        }
    }
    let obj = dir.join(spec.trace_format().map_or("obj", |t| t.obj));
    let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    let mut cmd = Command::new("verilator");
    cmd.args(["--cc", "--exe", "--build", "-j", &jobs.to_string(), "-O3", "-Wno-fatal", "--x-assign", "unique", "--x-initial", "unique"])
        .args(["--top-module", &spec.top, "-o", "dpn_sim", "-Mdir"])
        .arg(&obj);
    match spec.build {
        ModelBuild::Optimised => cmd.args(["-CFLAGS", "-O1 -std=c++17"]),
        ModelBuild::Quick => cmd.args(["-CFLAGS", "-O0 -std=c++17"]).args(dpnc_rtl::VERILATOR_UNOPTIMISED),
    };
    cmd.args(spec.trace_format().map(|t| t.flag)).args(&sources).arg(dir.join("dpn_sim_main.cpp")).current_dir(&dir);
    let exe = obj.join("dpn_sim");
    let stamp = obj.join("dpn_sim.stamp");
    let fingerprint = fingerprint(&cmd, &sources)?;
    if exe.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == fingerprint) {
        progress(&format!("verilator: {} is up to date", exe.display()));
        return Ok(exe);
    }
    // A build that fails half-way must not leave a stamp for the model it replaced.
    let _ = std::fs::remove_file(&stamp);
    progress(&format!("verilator: building {} ({} Verilog files, {jobs} jobs)", spec.top, spec.verilog.len()));
    let t = Instant::now();
    let (mut child, rx) =
        spawn_lines(&mut cmd).map_err(|e| SimError::Tool(format!("cannot run verilator: {e} (install it: scripts/setup.sh)")))?;
    let mut lines = Vec::new();
    let mut last_note = Instant::now();
    let mut compiling = false;
    loop {
        match rx.recv_timeout(Duration::from_secs(1)) {
            Ok((_, l)) => {
                // g++ lines: name what is being compiled; other lines only matter on failure
                let words: Vec<&str> = l.split_whitespace().collect();
                if let Some(first) = words.first() {
                    if first.ends_with("g++") || first.ends_with("c++") || first.ends_with("ccache") || first.ends_with("clang++") {
                        if let Some(i) = words.iter().position(|w| *w == "-o") {
                            let target = words.get(i + 1).copied().unwrap_or("?");
                            let what = if words.contains(&"-c") { "compiling" } else { "linking" };
                            progress(&format!("verilator: {what} {target} ({:.0} s)", t.elapsed().as_secs_f64()));
                            compiling = true;
                            last_note = Instant::now();
                        }
                    } else if l.starts_with("%Warning") && !l.starts_with("%Warning-UNUSED") {
                        progress(&l);
                    }
                }
                lines.push(l);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if last_note.elapsed() >= Duration::from_secs(10) {
            let phase = if compiling { "compiling" } else { "verilating" };
            progress(&format!("verilator: still {phase} ({:.0} s)", t.elapsed().as_secs_f64()));
            last_note = Instant::now();
        }
    }
    let status = child.wait().map_err(|e| SimError::Tool(format!("verilator: {e}")))?;
    if !status.success() {
        return Err(SimError::Tool(format!("verilator failed ({status}):\n{}", first_lines(&lines, 30))));
    }
    if !exe.is_file() {
        return Err(SimError::Tool(format!("verilator succeeded but {} is missing:\n{}", exe.display(), first_lines(&lines, 30))));
    }
    std::fs::write(&stamp, fingerprint).map_err(|e| io(e, &stamp))?;
    progress(&format!("verilator: built {} in {:.1} s", exe.display(), t.elapsed().as_secs_f64()));
    Ok(exe)
}

#[derive(serde::Deserialize)]
struct RunResult {
    status: String,
    cycles: u64,
    bytes_read: u64,
    bytes_written: u64,
    ports: Vec<PortTraffic>,
    peaks: Vec<u32>,
    full_cycles: Vec<u64>,
    work_cycles: Vec<u64>,
    wait_in_cycles: Vec<u64>,
    wait_out_cycles: Vec<u64>,
    done_cycles: Vec<u64>,
    arrays: Vec<RunArray>,
    message: String,
    report: String,
}

#[derive(serde::Deserialize)]
struct RunArray {
    name: String,
    file: String,
}

static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Removes the run directory when dropped.
struct RunDir(PathBuf);
impl Drop for RunDir {
    fn drop(&mut self) {
        if std::env::var_os("DPNC_SIM_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Runs a harness built by [`build`] for the same `spec`. `inputs` gives the initial bytes of Array
/// arguments (missing ones start zeroed) and the bit pattern of every Scalar argument, by name;
/// `max_cycles` bounds the run (counted from ap_start); `stall_cycles` without any sign of life (dbg_ops
/// unchanged, no AXI handshake on an m_axi port, no memory request waiting out its latency) is a deadlock.
/// Several runs of one executable may go on at once. Set `DPNC_SIM_KEEP` to keep the run directories.
pub fn run(
    exe: &Path,
    spec: &Spec,
    inputs: &[(String, Input)],
    mem: &Memory,
    max_cycles: u64,
    stall_cycles: u64,
    progress: &mut dyn FnMut(&str),
) -> Result<Outcome, SimError> {
    validate(spec)?;
    let mut given: HashMap<&str, &Input> = HashMap::new();
    for (n, v) in inputs {
        if given.insert(n.as_str(), v).is_some() {
            return Err(SimError::Io(format!("input {n} given twice")));
        }
    }
    for (n, _) in inputs {
        if !spec.args.iter().any(|a| &a.name == n) {
            return Err(SimError::Io(format!("input {n} is not an argument of {}", spec.top)));
        }
    }
    let (_, hash) = generate_main(spec);
    let base = exe.parent().unwrap_or(Path::new("."));
    let dir = base.join("runs").join(format!("{}-{}", std::process::id(), RUN_COUNTER.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| SimError::Io(format!("{}: {e}", dir.display())))?;
    let guard = RunDir(dir.clone());

    let mut cmd = Command::new(exe);
    cmd.arg("--spec").arg(&hash);
    for (k, a) in spec.args.iter().enumerate() {
        match (&a.kind, given.get(a.name.as_str())) {
            (ArgKind::Array { bytes, .. }, Some(Input::Bytes(b))) => {
                if b.len() != *bytes {
                    return Err(SimError::Io(format!("input {}: {} bytes, the array has {bytes}", a.name, b.len())));
                }
                let f = dir.join(format!("in{k}.bin"));
                std::fs::write(&f, b).map_err(|e| SimError::Io(format!("{}: {e}", f.display())))?;
                cmd.arg("--arg").arg(format!("{}={}", a.name, f.display()));
            }
            (ArgKind::Array { .. }, None) => {}
            (ArgKind::Scalar { bits }, Some(Input::Bits(v))) => {
                if *bits < 64 && v >> bits != 0 {
                    return Err(SimError::Io(format!("input {}: 0x{v:x} does not fit in {bits} bits", a.name)));
                }
                cmd.arg("--arg").arg(format!("{}={v}", a.name));
            }
            (ArgKind::Scalar { .. }, None) => return Err(SimError::Io(format!("scalar argument {} has no input", a.name))),
            (ArgKind::Array { .. }, Some(Input::Bits(_))) => return Err(SimError::Io(format!("input {}: an array needs bytes", a.name))),
            (ArgKind::Scalar { .. }, Some(Input::Bytes(_))) => return Err(SimError::Io(format!("input {}: a scalar needs bits", a.name))),
        }
    }
    cmd.args(["--latency", &mem.latency.to_string(), "--jitter", &mem.jitter.to_string(), "--seed", &mem.seed.to_string()])
        .args(["--outstanding", &mem.max_outstanding.max(1).to_string()])
        .args(["--bank-rates", &mem.bank_rates.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(",")])
        .args(["--max-cycles", &max_cycles.to_string(), "--stall-cycles", &stall_cycles.max(1).to_string()])
        .arg("--out")
        .arg(&dir);
    if let Some(trace) = &spec.trace {
        cmd.arg("--trace").arg(trace);
    }
    progress(&format!("simulating {} (seed {})", spec.top, mem.seed));
    let (mut child, rx) = spawn_lines(&mut cmd).map_err(|e| SimError::Tool(format!("cannot run {}: {e}", exe.display())))?;
    let mut out_tail: Vec<String> = Vec::new();
    let mut err_lines: Vec<String> = Vec::new();
    for (is_err, l) in rx {
        if is_err {
            progress(&l);
            err_lines.push(l);
        } else {
            out_tail.push(l);
            if out_tail.len() > 200 {
                out_tail.remove(0);
            }
        }
    }
    let status = child.wait().map_err(|e| SimError::Tool(format!("{}: {e}", exe.display())))?;
    let text = || {
        let mut v = err_lines.clone();
        v.extend(out_tail.iter().cloned());
        first_lines(&v, 20)
    };
    if status.code() == Some(1) {
        return Err(SimError::Io(format!("the harness refused to run:\n{}", text())));
    }
    let result_file = dir.join("result.json");
    let json = match std::fs::read_to_string(&result_file) {
        Ok(j) => j,
        Err(_) => return Err(SimError::Tool(format!("the harness {} failed ({status}) without a result:\n{}", exe.display(), text()))),
    };
    let r: RunResult = serde_json::from_str(&json).map_err(|e| SimError::Tool(format!("{}: {e}", result_file.display())))?;
    match r.status.as_str() {
        "done" => {}
        "deadlock" => return Err(SimError::Deadlock { cycle: r.cycles, report: r.report }),
        "timeout" => return Err(SimError::Timeout { cycles: r.cycles }),
        "protocol" => {
            // the design's own $display lines say why it stopped
            let said: Vec<&String> = out_tail.iter().filter(|l| !l.is_empty()).collect();
            let mut m = r.message;
            if !said.is_empty() {
                m.push_str("\ndesign output:\n");
                m.push_str(&said.iter().rev().take(10).rev().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"));
            }
            return Err(SimError::Protocol(m));
        }
        s => return Err(SimError::Tool(format!("the harness reported status {s:?}"))),
    }
    let mut arrays = Vec::new();
    for a in r.arrays {
        let f = dir.join(&a.file);
        let bytes = std::fs::read(&f).map_err(|e| SimError::Io(format!("{}: {e}", f.display())))?;
        arrays.push((a.name, bytes));
    }
    drop(guard);
    Ok(Outcome {
        cycles: r.cycles,
        bytes_read: r.bytes_read,
        bytes_written: r.bytes_written,
        ports: r.ports,
        arrays,
        peaks: r.peaks,
        full_cycles: r.full_cycles,
        processes: (0..r.work_cycles.len())
            .map(|k| ProcessCycles {
                work: r.work_cycles[k],
                wait_in: r.wait_in_cycles.get(k).copied().unwrap_or(0),
                wait_out: r.wait_out_cycles.get(k).copied().unwrap_or(0),
                done_at: r.done_cycles.get(k).copied().unwrap_or(0),
            })
            .collect(),
    })
}
