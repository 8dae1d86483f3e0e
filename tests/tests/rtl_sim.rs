//! The Verilog backend under Verilator: representative kernels of the test set are generated
//! (`dpnc_rtl::generate`), linted with `verilator --lint-only -Wall` (no warning allowed),
//! built with the simulation harness (`dpnc_sim`) and run against the memory model under two
//! jitter seeds, with one or several parallel sub-bands (sliced, or interleaved into a ring),
//! in float and double; every output array must equal the interpreter's bit for bit. A channel
//! shrunk below its computed size must be reported as a deadlock naming it.
//!
//! Vector lanes (`--simd`) run on the streaming kernels of `tests/lanes/` and on 2mm at sizes
//! that are multiples of the lanes (the test set's odd sizes leave them no whole vectors).
//!
//! `DPNC_SIM_ALL=1` runs every kernel of the test set instead, in float and double, each at
//! tile 4 par 1, at tiles 4,6 par 2,3 and, where lanes apply, at tile 4 par 2 with two lanes
//! (two seeds each); `DPNC_SIM_ALL=float` or `double`
//! only that type, and `DPNC_SIM_KERNELS=a,b` only those kernels: slow, for reports.

use dpnc_dpn::shape::Layout;
use dpnc_dpn::Config;
use dpnc_tests::backend::{on_two_cores, Case};
use std::path::{Path, PathBuf};

fn run_with(seed: u64) -> dpnc_sim::kernel::Run {
    let mem = dpnc_sim::Memory { latency: 20, jitter: 30, seed, ..dpnc_sim::Memory::default() };
    // The designs run for thousands of cycles: an unoptimised model is quicker overall.
    dpnc_sim::kernel::Run { mem, max_cycles: 50_000_000, trace: None, build: dpnc_sim::ModelBuild::Quick, design: Default::default() }
}

/// Lints the design in `dir` (its files written by `simulate`): the kernel's top, then the
/// simulation wrapper around it.
fn lint(dir: &Path, design: &dpnc_rtl::Design) -> Result<(), String> {
    let wrapper = dir.join(dpnc_rtl::sim_wrapper::file_name(&design.top));
    for (top, extra) in [(design.top.clone(), None), (dpnc_rtl::sim_wrapper::module_name(&design.top), Some(&wrapper))] {
        let mut args: Vec<String> = vec!["--lint-only".into(), "-Wall".into(), "--top-module".into(), top.clone()];
        args.extend(design.sources(dir).iter().chain(extra).map(|f| f.display().to_string()));
        let out = std::process::Command::new("verilator").args(&args).output().map_err(|e| format!("cannot run verilator: {e}"))?;
        let text = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() || text.contains("%Warning") {
            return Err(format!("verilator --lint-only -Wall ({top}):\n{}", text.lines().take(12).collect::<Vec<_>>().join("\n")));
        }
    }
    Ok(())
}

/// One design of [`verilog_designs_simulate_bit_exact`].
struct Job {
    kernel: PathBuf,
    ty: &'static str,
    tile: Vec<i64>,
    par: Vec<i64>,
    subbands: Layout,
    defines: &'static [(&'static str, &'static str)],
    /// Vector lanes (`dpnc_rtl::Options::simd`).
    simd: u32,
    /// Lanes where they are legal: a design they do not apply to is skipped, saying why.
    lanes_where_legal: bool,
}

impl Job {
    fn new(kernel: PathBuf, ty: &'static str, tile: &[i64], par: &[i64], subbands: Layout) -> Job {
        Job { kernel, ty, tile: tile.to_vec(), par: par.to_vec(), subbands, defines: &[], simd: 1, lanes_where_legal: false }
    }

    fn with_simd(mut self, simd: u32) -> Job {
        self.simd = simd;
        self
    }

    fn with_simd_where_legal(mut self, simd: u32) -> Job {
        self.lanes_where_legal = true;
        self.with_simd(simd)
    }

    fn with_defines(mut self, defines: &'static [(&'static str, &'static str)]) -> Job {
        self.defines = defines;
        self
    }

    /// Simulated under two memory seeds and linted: its cycles under the second (none where
    /// lanes do not apply and the job only takes them where they do).
    fn run(&self, dir: &Path) -> Result<Option<u64>, String> {
        let cfg = Config { tile: self.tile.clone(), par: self.par.clone(), subbands: self.subbands, ..Config::default() };
        let c = Case::with_config(&self.kernel, self.ty, self.defines, cfg)?;
        let opts = dpnc_rtl::Options { simd: self.simd };
        let design = match dpnc_rtl::generate_with(&c.p, &c.dpn, &opts) {
            Err(e @ dpnc_rtl::RtlError::Lanes { .. }) if self.lanes_where_legal => {
                println!("{}: {e}", self.kernel.display());
                return Ok(None);
            }
            d => d.map_err(|e| e.to_string())?,
        };
        let mut cycles = 0;
        for seed in [1, 2] {
            let mut quiet = |_: &str| {};
            let run = dpnc_sim::kernel::Run { design: opts.clone(), ..run_with(seed) };
            let dpnc_sim::kernel::Simulated { store: got, outcome: out, .. } =
                dpnc_sim::kernel::simulate(&c.p, &c.dpn, &c.inputs, dir, &run, &mut quiet)?;
            c.compare(&got, &format!("Verilog, memory seed {seed}"))?;
            cycles = out.cycles;
        }
        // The lanes are there: every statement's datapath computes a vector.
        let lanes = format!("// {} vector lanes", self.simd);
        if self.simd > 1 && design.files.iter().any(|(name, text)| name.starts_with("dp_") && !text.contains(&lanes)) {
            return Err(format!("a datapath does not compute {} lanes", self.simd));
        }
        lint(dir, &design)?;
        Ok(Some(cycles))
    }
}

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels").join(name)
}

/// The streaming kernels that vector lanes take.
fn lanes_kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("lanes").join(name)
}

#[test]
fn verilog_designs_simulate_bit_exact() {
    let all = std::env::var("DPNC_SIM_ALL").ok();
    let jobs: Vec<Job> = if let Some(all) = all {
        let types: &[&'static str] = match all.as_str() {
            "float" => &["float"],
            "double" => &["double"],
            _ => &["float", "double"],
        };
        // `DPNC_SIM_KERNELS=softmax,pnorm` narrows a report to those kernels.
        let only = std::env::var("DPNC_SIM_KERNELS").ok();
        let wanted = |f: &PathBuf| only.as_ref().is_none_or(|o| o.split(',').any(|k| f.file_stem().is_some_and(|s| s == k)));
        let mut jobs = Vec::new();
        for f in dpnc_tests::kernels().into_iter().filter(wanted) {
            for &ty in types {
                jobs.push(Job::new(f.clone(), ty, &[4], &[1], Layout::Auto));
                jobs.push(Job::new(f.clone(), ty, &[4, 6], &[2, 3], Layout::Auto));
                jobs.push(Job::new(f.clone(), ty, &[4], &[2], Layout::Slices).with_simd_where_legal(2));
            }
        }
        if only.is_none() {
            for simd in [2, 4, 8] {
                jobs.push(Job::new(lanes_kernel("streams.c"), "float", &[8], &[1], Layout::Auto).with_simd(simd));
                for &ty in types {
                    jobs.push(Job::new(kernel("2mm.c"), ty, &[8], &[1], Layout::Auto).with_defines(TWO_MM_IN_VECTORS).with_simd(simd));
                }
            }
        }
        jobs
    } else {
        vec![
            // Rows of A four lines long: its misses read ahead (see `a_miss_reads_its_row_ahead`).
            Job::new(kernel("gemm.c"), "float", &[4], &[1], Layout::Auto).with_defines(GEMM_LONG_ROWS),
            // C's cache over 256 lines: its tables in banks (see `a_cache_over_256_lines_is_banked`).
            Job::new(kernel("gemm.c"), "float", &[8], &[1], Layout::Auto).with_defines(GEMM_WIDE_C),
            // C's rows whole lines: its lanes load and store their own rows (`dpn_write_lanes`).
            Job::new(kernel("gemm.c"), "double", &[4], &[2, 2], Layout::Auto).with_defines(GEMM_ROWS_IN_LINES),
            // Nine sub-bands whose rows of C share lines: lanes of C by the cells they store (see
            // `a_pick_over_eight_generators_is_split_into_lanes`).
            Job::new(kernel("gemm.c"), "float", &[6], &[3, 3], Layout::Auto),
            // A's scratchpad over 256 cells: its valid bits looked up in two cycles, a row ahead.
            Job::new(kernel("bicg.c"), "double", &[32], &[2], Layout::Auto).with_defines(BICG_WIDE_A),
            // A's loads fanned out to 17 channels: through relays (see `a_wide_fan_out_goes_through_relays`).
            Job::new(kernel("jacobi_1d.c"), "float", &[8], &[8], Layout::Auto).with_defines(JACOBI_WIDE_FAN_OUT),
            // Sub-bands interleaved along time: a ring of sub-bands passing rows on.
            Job::new(kernel("jacobi_1d.c"), "float", &[4], &[2], Layout::Interleaved),
            // exp expanded into the datapath (dpnc's own, frontend/src/mathlib.rs).
            Job::new(kernel("softmax.c"), "double", &[4], &[1], Layout::Auto),
            // C's truncating `/` and `%` on negative dividends, in subscripts, bounds and guards.
            Job::new(kernel("negative_division.c"), "float", &[4], &[2], Layout::Auto),
            // A local initialised where it is declared, before the region (PolyBench's `eps`).
            Job::new(kernel("local_threshold.c"), "float", &[4], &[2], Layout::Auto),
            Job::new(kernel("local_threshold.c"), "double", &[4], &[1], Layout::Auto),
            // Four lanes: float and double statements sharing a load, rows of a 2-D nest.
            Job::new(lanes_kernel("streams.c"), "float", &[8], &[1], Layout::Auto).with_simd(4),
            // Four lanes through FIFOs between statements, a value every lane reads (`A[i][k]`,
            // `tmp[i][k]`), a scratchpad of vectors (`B[k][j]`), tmp stored and loaded again.
            Job::new(kernel("2mm.c"), "float", &[4], &[1], Layout::Auto).with_defines(TWO_MM_IN_VECTORS).with_simd(4),
        ]
    };
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rtl_sim");
    let results = on_two_cores(&root, &jobs, |job, dir| {
        let r = job.run(dir);
        // As they finish: a full run takes long.
        let verdict = match &r {
            Ok(Some(_)) => "bit-exact",
            Ok(None) => "no lanes",
            Err(_) => "FAILED",
        };
        eprintln!("{} ({}, par {:?}, simd {}): {verdict}", job.kernel.display(), job.ty, job.par, job.simd);
        r
    });
    let (mut failures, mut skipped) = (Vec::new(), 0);
    for (job, r) in jobs.iter().zip(results) {
        let name = format!(
            "{} ({}, tile {:?}, par {:?}, {:?} sub-bands, simd {})",
            job.kernel.file_name().unwrap_or_default().to_string_lossy(),
            job.ty,
            job.tile,
            job.par,
            job.subbands,
            job.simd
        );
        match r {
            Ok(Some(cycles)) => println!("{name}: bit-exact under two seeds, {cycles} cycles"),
            Ok(None) => {
                skipped += 1;
                println!("{name}: lanes do not apply (above)");
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    println!("{} of {} designs bit-exact, {skipped} without lanes", jobs.len() - failures.len() - skipped, jobs.len() - skipped);
    assert!(failures.is_empty(), "{} of {} designs fail:\n{}", failures.len(), jobs.len(), failures.join("\n"));
}

#[test]
fn a_channel_below_its_size_is_reported_as_a_deadlock_naming_it() {
    // S1 reads y[i] and y[i - 16] from S0, each through a FIFO: S0 writes y[i] to both, so the
    // second holds 16 values while S1 waits for the first. Cut to one value (its stream then
    // has the least places a stream between processes gets, 8), S0 stops with it full and S1
    // waits for S0's next value.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rtl_sim_deadlock");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("lagged.c");
    std::fs::write(
        &src,
        "#define N 64\nvoid kernel(float x[N], float y[N], float z[N]) {\n#pragma scop\n  for (int i = 16; i < N; i++) {\n    y[i] = 2.0f * x[i];\n    z[i] = y[i] + y[i - 16];\n  }\n#pragma endscop\n}\n",
    )
    .unwrap();
    let mut c = Case::new(&src, "float", &[64], &[1]).unwrap();
    let k = (0..c.dpn.channels.len())
        .filter(|&k| c.dpn.channels[k].kind == dpnc_dpn::ir::ChannelKind::Fifo)
        .max_by_key(|&k| c.dpn.channels[k].size)
        .unwrap();
    assert_eq!(c.dpn.channels[k].size, 17, "y[i - 16]'s FIFO holds 16 values and the one S0 puts beside them");
    c.dpn.channels[k].size = 1;
    let name = c.dpn.channels[k].name.clone();
    let mut quiet = |_: &str| {};
    let err = match dpnc_sim::kernel::simulate(&c.p, &c.dpn, &c.inputs, &dir, &run_with(1), &mut quiet) {
        Ok(_) => panic!("a FIFO shrunk to {} values ran to completion", c.dpn.channels[k].size),
        Err(e) => e,
    };
    assert!(err.contains("deadlock"), "not reported as a deadlock: {err}");
    assert!(err.contains(&name), "the report does not name channel {name}: {err}");
}

/// A store whose line is in the load cache writes its cells into it (`text::Fresh`): the values
/// Jacobi-1D passes from band to band through DDR are loaded from lines that the bands before
/// stored into, and no line is fetched again (320 of A's 448 bytes were, when such a store only
/// marked its line stale).
#[test]
fn a_store_keeps_its_cached_line_current() {
    let c = Case::new(&kernel("jacobi_1d.c"), "float", &[4], &[1]).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rtl_sim_store_in_line");
    let mut quiet = |_: &str| {};
    let dpnc_sim::kernel::Simulated { store: got, outcome, .. } =
        dpnc_sim::kernel::simulate(&c.p, &c.dpn, &c.inputs, &dir, &run_with(1), &mut quiet).unwrap();
    c.compare(&got, "Verilog").unwrap();
    let a = &outcome.ports[0];
    assert!(a.bytes_read > 0 && a.bytes_reread == 0, "A's port fetched {} bytes, {} of them again", a.bytes_read, a.bytes_reread);
}

#[test]
fn the_rtl_kernel_files_name_each_boards_platform_part_and_banks() {
    let c = Case::new(&kernel("gemm.c"), "float", &[4], &[1]).unwrap();
    let design = dpnc_rtl::generate(&c.p, &c.dpn).unwrap();
    for name in dpnc_boards::catalogue() {
        let board = dpnc_boards::load(name).unwrap();
        let files: std::collections::HashMap<String, String> = dpnc_rtl::shell::files(&design, &board).into_iter().collect();
        let (xml, tcl, cfg) = (&files["kernel.xml"], &files["package_xo.tcl"], &files["connectivity.cfg"]);
        assert!(tcl.contains(&format!("-part {}", board.part)), "{name}: package_xo.tcl does not use part {}", board.part);
        assert!(xml.contains(&format!("<kernel name=\"{}\"", design.top)) && xml.contains("hwControlProtocol=\"ap_ctrl_hs\""), "{name}");
        // Argument k at 0x10 + 8k; array k on m_axi_gmem<port> and on the board's bank, in turn.
        let mut arrays = 0;
        for (k, arg) in design.args.iter().enumerate() {
            let offset = format!("offset=\"{:#x}\"", 0x10 + 8 * k);
            let line = xml
                .lines()
                .find(|l| l.contains("<arg ") && l.contains(&offset))
                .unwrap_or_else(|| panic!("{name}: no argument at {offset}"));
            if let dpnc_rtl::Arg::Array { name: a, port, .. } = arg {
                assert!(line.contains(&format!("name=\"{a}\"")) && line.contains(&format!("port=\"m_axi_gmem{port}\"")), "{name}: {line}");
                assert!(xml.contains(&format!("<port name=\"m_axi_gmem{port}\" mode=\"master\"")), "{name}: no port gmem{port}");
                let bank = &board.memory[arrays % board.memory.len()].name;
                assert!(cfg.lines().any(|l| l == format!("sp={}_1.{a}:{bank}", design.top)), "{name}: {a} is not on {bank}:\n{cfg}");
                arrays += 1;
            }
        }
    }
}

/// The ports of module `name` in Verilog `text`: `(name, output, width)`.
fn module_ports(text: &str, name: &str) -> Vec<(String, bool, u32)> {
    let head = format!("module {name} (");
    let start = text.find(&head).unwrap_or_else(|| panic!("no module {name}")) + head.len();
    let end = start + text[start..].find(");").expect("the port list ends");
    text[start..end]
        .split(',')
        .map(|decl| {
            let words: Vec<&str> = decl.split_whitespace().collect();
            let output = words[0] == "output";
            let width = words.iter().find(|w| w.starts_with('[')).map_or(1, |r| {
                let hi: u32 = r.trim_start_matches('[').split(':').next().and_then(|h| h.parse().ok()).expect("a [hi:0] range");
                hi + 1
            });
            (words.last().expect("a name").to_string(), output, width)
        })
        .collect()
}

/// Every value of attribute `attr` on the `<tag ` elements of `xml`.
fn xml_attrs(xml: &str, tag: &str, attr: &str) -> Vec<String> {
    xml.lines()
        .filter(|l| l.trim_start().starts_with(&format!("<{tag} ")))
        .filter_map(|l| l.split(&format!(" {attr}=\"")).nth(1).and_then(|r| r.split('"').next()).map(String::from))
        .collect()
}

/// For every kernel of the test set and every board, the top module has exactly the ports of
/// a Vitis RTL kernel as its `kernel.xml` and `package_xo.tcl` describe it: the clock, the
/// active-low reset, the interrupt, the AXI4-Lite slave and one AXI4 master per `<port>`, at
/// the declared data width, and nothing else (signal lists from the AXI4 and Vitis RTL kernel
/// specifications, written here independently of the generator).
#[test]
fn the_top_module_has_exactly_the_vitis_interface() {
    let lite: &[(&str, bool, u32)] = &[
        ("awvalid", false, 1),
        ("awready", true, 1),
        ("awaddr", false, 12),
        ("wvalid", false, 1),
        ("wready", true, 1),
        ("wdata", false, 32),
        ("wstrb", false, 4),
        ("bvalid", true, 1),
        ("bready", false, 1),
        ("bresp", true, 2),
        ("arvalid", false, 1),
        ("arready", true, 1),
        ("araddr", false, 12),
        ("rvalid", true, 1),
        ("rready", false, 1),
        ("rdata", true, 32),
        ("rresp", true, 2),
    ];
    // AXI4 master without IDs; `DATA` stands for the data width, `STRB` for its strobes.
    const DATA: u32 = u32::MAX;
    const STRB: u32 = u32::MAX - 1;
    let master: &[(&str, bool, u32)] = &[
        ("awvalid", true, 1),
        ("awready", false, 1),
        ("awaddr", true, 64),
        ("awlen", true, 8),
        ("awsize", true, 3),
        ("awburst", true, 2),
        ("wvalid", true, 1),
        ("wready", false, 1),
        ("wdata", true, DATA),
        ("wstrb", true, STRB),
        ("wlast", true, 1),
        ("bvalid", false, 1),
        ("bready", true, 1),
        ("bresp", false, 2),
        ("arvalid", true, 1),
        ("arready", false, 1),
        ("araddr", true, 64),
        ("arlen", true, 8),
        ("arsize", true, 3),
        ("arburst", true, 2),
        ("rvalid", false, 1),
        ("rready", true, 1),
        ("rdata", false, DATA),
        ("rlast", false, 1),
        ("rresp", false, 2),
    ];
    let boards: Vec<dpnc_boards::Board> = dpnc_boards::catalogue().iter().map(|b| dpnc_boards::load(b).unwrap()).collect();
    let mut checked = 0;
    for f in dpnc_tests::kernels() {
        // The interface depends on the arrays only: one band per nest is the cheapest network.
        let c = Case::new(&f, "float", &[1000], &[1]).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let design = dpnc_rtl::generate(&c.p, &c.dpn).unwrap();
        let text = &design.files.iter().find(|(n, _)| *n == format!("{}.v", design.top)).expect("the top's file").1;
        let mut got = module_ports(text, &design.top);
        got.sort();
        for board in &boards {
            let what = format!("{} on {}", f.display(), board.name);
            let files: std::collections::HashMap<String, String> = dpnc_rtl::shell::files(&design, board).into_iter().collect();
            let (xml, tcl) = (&files["kernel.xml"], &files["package_xo.tcl"]);
            assert_eq!(xml_attrs(xml, "kernel", "name"), std::slice::from_ref(&design.top), "{what}");
            assert!(tcl.lines().any(|l| l == format!("set top {}", design.top)), "{what}: package_xo.tcl packages another top");
            let mut want: Vec<(String, bool, u32)> =
                vec![("ap_clk".into(), false, 1), ("ap_rst_n".into(), false, 1), ("interrupt".into(), true, 1)];
            let names = xml_attrs(xml, "port", "name");
            let widths = xml_attrs(xml, "port", "dataWidth");
            for (port, width) in names.iter().zip(&widths) {
                let width: u32 = width.parse().expect("a data width");
                let signals = if port == "s_axi_control" { lite } else { master };
                want.extend(signals.iter().map(|(n, out, w)| {
                    let w = match *w {
                        DATA => width,
                        STRB => width / 8,
                        w => w,
                    };
                    (format!("{port}_{n}"), *out, w)
                }));
                if port != "s_axi_control" {
                    assert!(tcl.contains(&format!("-busif {port} -clock ap_clk")), "{what}: {port} is not packaged as a bus");
                }
            }
            assert!(tcl.contains("-busif s_axi_control -clock ap_clk"), "{what}");
            for arg_port in xml_attrs(xml, "arg", "port") {
                assert!(names.contains(&arg_port), "{what}: an argument on {arg_port}, which kernel.xml does not declare");
            }
            want.sort();
            assert_eq!(got, want, "{what}: the top module's ports differ from kernel.xml's interface");
            checked += 1;
        }
    }
    println!("{checked} kernel x board pairs: the top module is exactly the Vitis interface");
}

/// `dpnc sim --trace`: a VCD of the run whose scopes are the generated Verilog's instances,
/// named after the network: every compute process, every memory process (`mem_<array>`) and a
/// FIFO per channel stream (`fifo_<channel>`); an FST as well, which GTKWave opens.
#[test]
fn a_trace_names_every_process_and_channel() {
    let c = Case::new(&kernel("jacobi_1d.c"), "float", &[4], &[1]).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rtl_sim_trace");
    let _ = std::fs::remove_dir_all(&dir);
    let vcd = dir.join("run.vcd");
    let run = dpnc_sim::kernel::Run { trace: Some(vcd.clone()), ..run_with(1) };
    let mut quiet = |_: &str| {};
    let dpnc_sim::kernel::Simulated { store: got, channels, .. } =
        dpnc_sim::kernel::simulate(&c.p, &c.dpn, &c.inputs, &dir.join("vcd"), &run, &mut quiet).unwrap();
    c.compare(&got, "Verilog, traced").unwrap();
    let text = std::fs::read_to_string(&vcd).expect("the trace is written");
    let scopes: Vec<&str> =
        text.lines().filter_map(|l| l.trim().strip_prefix("$scope module ")).filter_map(|l| l.strip_suffix(" $end")).collect();
    let mut want: Vec<String> = c.dpn.processes.iter().filter(|p| p.stmt().is_some()).map(|p| p.name.clone()).collect();
    want.extend(
        c.p.vars.iter().filter(|v| !c.dpn.memory_processes(c.p.var(&v.name).unwrap()).is_empty()).map(|v| format!("mem_{}", v.name)),
    );
    want.extend(channels.iter().map(|ch| format!("fifo_{ch}")));
    assert!(want.len() > 4, "{want:?}");
    for w in &want {
        assert!(scopes.contains(&w.as_str()), "no scope {w} in the trace (scopes: {scopes:?})");
    }
    // The same run as FST: the file starts with FST's header block (type 0, then its 329-byte length).
    let fst = dir.join("run.fst");
    let run = dpnc_sim::kernel::Run { trace: Some(fst.clone()), ..run_with(1) };
    dpnc_sim::kernel::simulate(&c.p, &c.dpn, &c.inputs, &dir.join("fst"), &run, &mut quiet).unwrap();
    let bytes = std::fs::read(&fst).expect("the FST is written");
    assert_eq!(bytes.get(..9), Some(&[0u8, 0, 0, 0, 0, 0, 0, 1, 0x49][..]), "not an FST header");
}

/// The Verilog files of `c`'s design, by name.
fn design_files(c: &Case) -> std::collections::HashMap<String, String> {
    dpnc_rtl::generate(&c.p, &c.dpn).unwrap().files.into_iter().collect()
}

/// GEMM with rows of A four 64-byte lines long (64 floats).
const GEMM_LONG_ROWS: &[(&str, &str)] = &[("NK", "64")];

/// GEMM whose rows of C are whole lines (16 columns), so that sub-bands of rows store into
/// lines of their own.
const GEMM_ROWS_IN_LINES: &[(&str, &str)] = &[("NJ", "16")];

/// 2mm whose every loop runs a multiple of four (and eight) points: vector lanes take it.
const TWO_MM_IN_VECTORS: &[(&str, &str)] = &[("NI", "8"), ("NJ", "8"), ("NK", "8"), ("NL", "16")];

/// GEMM with C (loaded and stored) of 288 lines: 64 × 72 floats.
const GEMM_WIDE_C: &[(&str, &str)] = &[("NI", "64"), ("NJ", "72"), ("NK", "4")];

/// BiCG in one band whose A is 24 × 20: the scratchpad that carries A from S2 to S3 has more
/// than 256 cells, so S3's ready stage looks their valid bits up in two cycles (`prow`).
const BICG_WIDE_A: &[(&str, &str)] = &[("N", "24"), ("M", "20")];

/// GEMM at 3×3 sub-bands, whose rows of C (14 floats) straddle lines: every sub-band shares a
/// line with another, so by lines all 18 generators of C would be one module, its pick over
/// nine loads and nine stores a tournament. Sub-bands that share no cell get lanes of their own,
/// at most four generators a side in each (a pick that the 300 MHz clock allows).
/// `verilog_designs_simulate_bit_exact` runs this design.
#[test]
fn a_pick_over_four_generators_a_side_is_split_into_lanes() {
    let c = Case::new(&kernel("gemm.c"), "float", &[6], &[3, 3]).unwrap();
    let text = design_files(&c);
    let lanes: Vec<&String> = (0..).map_while(|k| text.get(&format!("m_C_lane{k}.v"))).collect();
    assert!(lanes.len() >= 2, "C is one module");
    let mut sides = Vec::new();
    for lane in &lanes {
        let side = |what: &str| lane.lines().filter(|l| l.contains("// Generator") && l.contains(what)).count();
        sides.push((side("loads for"), side("stores from")));
    }
    assert_eq!(sides.iter().map(|s| s.0 + s.1).sum::<usize>(), 18, "every generator in one lane: {sides:?}");
    assert!(sides.iter().all(|&(l, s)| l <= 4 && s <= 4), "a side over four: {sides:?}");
}

const JACOBI_WIDE_FAN_OUT: &[(&str, &str)] = &[("N", "12"), ("TSTEPS", "8")];

/// Jacobi-1D at eight sub-bands reads A into 17 channels: too many for the head of A's issue
/// queue to wait for in one AND, so they are reached through relays of at most 12, and the head
/// waits for the relays alone. `verilog_designs_simulate_bit_exact` runs this design.
#[test]
fn a_wide_fan_out_goes_through_relays() {
    let c = Case::with_defines(&kernel("jacobi_1d.c"), "float", JACOBI_WIDE_FAN_OUT, &[8], &[8]).unwrap();
    let text = design_files(&c);
    let m = &text["m_A.v"];
    let targets = m.lines().filter(|l| l.contains(") load_value")).count();
    assert_eq!(targets, 17, "A's loads do not reach 17 channels");
    let relays = m.lines().filter(|l| l.starts_with("    // Relay ")).count();
    assert_eq!(relays, 2, "17 targets are not behind two relays");
    let can = m.lines().find(|l| l.starts_with("    wire can = ")).expect("no can");
    assert!(!can.contains("fo"), "the head waits for a target itself: {can}");
    for j in 0..relays {
        let per = m.lines().find(|l| l.starts_with(&format!("    wire r{j}_can = "))).expect("a relay without its can");
        assert!(per.matches("_r)").count() <= 12, "relay {j} waits for over 12 targets: {per}");
    }
}

/// A load cache of 512 lines keeps its lines in block RAM, read a cycle ahead, and its tables
/// read in the cycle they are addressed in two banks of 256 LUT-RAM entries (Yosys 0.23 maps no
/// deeper single-port LUT RAM for UltraScale+). `verilog_designs_simulate_bit_exact` runs this
/// design.
#[test]
fn a_cache_over_256_lines_is_banked() {
    let c = Case::with_defines(&kernel("gemm.c"), "float", GEMM_WIDE_C, &[8], &[1]).unwrap();
    let text = design_files(&c);
    let m = &text["m_C.v"];
    assert!(m.contains("reg [511:0] lines [0:511];"), "C's cache does not hold 512 lines:\n{m}");
    assert!(m.contains("always @(posedge clk) n_line <= lines[n_idx];"), "C's lines are not read a cycle ahead");
    let banked: Vec<&str> = ["tag", "stamp", "miss_no"].into_iter().filter(|t| m.contains(&format!("{t}_1 [0:255]"))).collect();
    assert!(!banked.is_empty(), "no table of C's cache is in two banks");
    for t in ["tag", "stamp", "miss_no"] {
        assert!(!m.contains(&format!("{t} [0:511]")), "C's {t} table is one bank of 512 entries");
    }
}

/// GEMM reads A[i][k] along its rows with k on the last hyperplane: a miss fetches up to 3
/// more lines of its row (a band's 4 rows of 4 lines in half of A's 64-line cache), bounded by
/// the row's last line. B[k][j] (j on a band hyperplane: the band reads a tile's columns of a
/// row) and C (loaded and stored) do not read ahead. `verilog_designs_simulate_bit_exact`
/// runs this design.
#[test]
fn a_miss_reads_its_row_ahead() {
    let c = Case::with_defines(&kernel("gemm.c"), "float", GEMM_LONG_ROWS, &[4], &[1]).unwrap();
    let text = design_files(&c);
    let a = &text["m_A.v"];
    assert!(a.contains("g0_p_after >= 3 ? 6'd3"), "A's loads do not read 3 lines ahead:\n{a}");
    assert!(a.contains("g0_in_row_end = (((64'sd0 + g0_w_i) <<< 6) + 64'sd63);"), "A's row end is not A[i][63]:\n{a}");
    for array in ["B", "C"] {
        assert!(!text[&format!("m_{array}.v")].contains("ra_want"), "{array} reads ahead");
    }
}

/// GEMM at 2×2 sub-bands: A and B, which the kernel only reads, get a memory module per lane,
/// and each channel stream the array's module drives comes from exactly one lane, with the
/// same port; C, loaded and stored, keeps one module where its sub-bands' cells share lines
/// (rows of 14 floats), and gets a lane per pair of sub-bands that store into lines of their
/// own where its rows are whole lines, its writes joined by `dpn_write_lanes`; every array of
/// the sequential design keeps one module (one group of consumers per array).
/// With vector lanes, a value every lane of a vector reads comes once (2mm's `A[i][k]` and
/// `tmp[i][k]` along `j`), and what the datapath computes from such values alone is built once
/// for all lanes: `alpha * A[i][k]` is one multiplier, `* B[k][j]` one per lane.
#[test]
fn a_value_every_lane_reads_is_sent_and_computed_once() {
    let c = Case::with_defines(&kernel("2mm.c"), "float", TWO_MM_IN_VECTORS, &[4], &[1]).unwrap();
    let text: std::collections::HashMap<String, String> =
        dpnc_rtl::generate_with(&c.p, &c.dpn, &dpnc_rtl::Options { simd: 4 }).unwrap().files.into_iter().collect();
    let s1 = &text["dp_S1.v"];
    assert!(s1.contains("input  wire [31:0] r1,") && s1.contains("input  wire [31:0] r2,"), "alpha and A[i][k]: one value each");
    assert!(s1.contains("input  wire [127:0] r3,") && s1.contains("output wire [127:0] y"), "B[k][j] and T[i][j]: one per lane");
    assert_eq!(s1.matches("dpn_fmul #").count(), 5, "alpha * A[i][k] once, then a product per lane");
    let top = &text["kernel_2mm.v"];
    let a = top.lines().find(|l| l.contains("fifo_load_A_to_S1")).expect("A's stream to S1");
    assert!(a.contains(".W(32)"), "A[i][k] is sent once for the four lanes: {a}");
    let b = top.lines().find(|l| l.contains("fifo_load_B_to_S1")).expect("B's stream to S1");
    assert!(b.contains(".W(129)"), "B[k][j] comes in words of four cells (and a word index): {b}");
}

/// Sixteen lanes, a whole beat of floats: every module lints clean (a datapath joins sixteen
/// lanes' results, more than ten operands in one expression).
#[test]
fn sixteen_lanes_lint_clean() {
    const SIXTEEN: &[(&str, &str)] = &[("NI", "4"), ("NJ", "16"), ("NK", "4"), ("NL", "16")];
    let c = Case::with_defines(&kernel("2mm.c"), "float", SIXTEEN, &[16], &[1]).unwrap();
    let design = dpnc_rtl::generate_with(&c.p, &c.dpn, &dpnc_rtl::Options { simd: 16 }).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sixteen_lanes");
    let sources = design.write(&dir).unwrap();
    let mut args: Vec<String> = vec!["--lint-only".into(), "-Wall".into(), "--top-module".into(), design.top.clone()];
    args.extend(sources.iter().map(|f| f.display().to_string()));
    let out = std::process::Command::new("verilator").args(&args).output().expect("verilator runs");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !text.contains("%Warning"), "{}", text.lines().take(12).collect::<Vec<_>>().join("\n"));
}

#[test]
fn read_only_arrays_get_lanes_that_split_their_streams() {
    let c = Case::with_defines(&kernel("gemm.c"), "float", GEMM_ROWS_IN_LINES, &[4], &[2, 2]).unwrap();
    let text = design_files(&c);
    let c_lanes = (0..).take_while(|k| text.contains_key(&format!("m_C_lane{k}.v"))).count();
    assert_eq!(c_lanes, 2, "C of rows of whole lines, sub-bands interleaved 2×2: a lane per row parity");
    assert!(text["m_C.v"].contains("dpn_write_lanes"), "C's lanes do not share the write channel");
    assert!(text["m_A.v"].contains("dpn_read_lanes #(.LANES(2), .DW(512), .BUF(32)) reader"), "A's reads may join");
    assert!(text["m_C.v"].contains(".JOIN(0)"), "C's lanes' reads must not join each other's: a lane's read may wait for its own store");
    let lanes_of = |par: &[i64]| {
        let c = Case::new(&kernel("gemm.c"), "float", &[4], par).unwrap();
        let text = design_files(&c);
        let lanes = |array: &str| (0..).take_while(|k| text.contains_key(&format!("m_{array}_lane{k}.v"))).count();
        let counts = [lanes("A"), lanes("B"), lanes("C")];
        (text, counts)
    };
    assert_eq!(lanes_of(&[1]).1, [0, 0, 0], "a sequential design has no lanes");
    let (text, [a, b, c]) = lanes_of(&[2, 2]);
    assert!(a >= 2 && b >= 2 && c == 0, "lanes of A, B, C: {a}, {b}, {c}");
    for (array, n) in [("A", a), ("B", b)] {
        let whole = &text[&format!("m_{array}.v")];
        let streams: Vec<(String, bool, u32)> =
            module_ports(whole, &format!("m_{array}")).into_iter().filter(|(p, _, _)| p.starts_with("ch")).collect();
        assert!(!streams.is_empty(), "m_{array} drives no stream");
        for (port, output, width) in &streams {
            let drivers: Vec<usize> = (0..n)
                .filter(|k| {
                    let lane = format!("m_{array}_lane{k}");
                    module_ports(&text[&format!("{lane}.v")], &lane).contains(&(port.clone(), *output, *width))
                })
                .collect();
            assert_eq!(drivers.len(), 1, "m_{array}'s {port} is a port of lanes {drivers:?}");
            assert!(whole.contains(&format!(".{port}({port})")), "m_{array} does not connect {port} to its lane");
        }
    }
}
