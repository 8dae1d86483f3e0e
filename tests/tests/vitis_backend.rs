//! The Vitis HLS backend (`--target vitis`):
//! * its kernel, built with g++ against our stand-in `hls_stream.h`/`ap_int.h` and run as
//!   software (every dataflow process a thread, every stream at the network's depth), is
//!   bit-exact with the reference interpreter on every kernel of the test set, in double
//!   without parallel sub-bands and in float with them; its XRT host compiles against the
//!   stand-in XRT headers (`tests/stand-in/xrt`);
//! * every process is one loop that HLS can pipeline (see [`processes_are_one_pipelined_loop`]),
//!   and a FIFO from a process to itself tells HLS its dependence distance
//!   ([`rings_have_their_distance`]);
//! * for every board of the catalogue, the Makefile, the C-simulation script, the `v++`
//!   connectivity and the kernel's `m_axi` bundles name that board's platform, part and banks.

use dpnc_tests::backend::{every_kernel_at_two_shapes, Case};
use std::collections::HashMap;
use std::path::Path;

fn one(f: &Path, ty: &str, tile: &[i64], par: &[i64], dir: &Path) -> Result<(), String> {
    let c = Case::new(f, ty, tile, par)?;
    let board = dpnc_boards::load("vcu1525").map_err(|e| e.to_string())?;
    // Unoptimised: each kernel runs for milliseconds, and g++'s optimiser would be most of
    // this test's time.
    let (got, _, _) = dpnc_hls_emit::native::vitis(&c.p, &c.dpn, &board, &c.inputs, dir, &["-O0", "-w"])?;
    c.compare(&got, "Vitis HLS C++ as software")?;
    let kernel = std::fs::read_to_string(dir.join("kernel.cpp")).map_err(|e| format!("kernel.cpp: {e}"))?;
    streams_are_at_least_two_deep(&kernel)?;
    processes_are_one_pipelined_loop(&kernel)?;
    let xrt = Path::new(env!("CARGO_MANIFEST_DIR")).join("stand-in/xrt/include");
    let xrt = format!("-I{}", xrt.display());
    dpnc_hls_emit::native::compile(dir, "g++", &["-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", &xrt, "host.cpp"])
        .map(|_| ())
        .map_err(|e| format!("the XRT host does not compile: {e}"))
}

/// HLS makes a stream of depth 1 a single register, which a producer and a consumer cannot
/// both use in one cycle: every stream and its pragma say at least 2.
fn streams_are_at_least_two_deep(kernel: &str) -> Result<(), String> {
    let mut seen = 0;
    for line in kernel.lines().filter(|l| l.contains("#pragma HLS stream variable=")) {
        let depth: usize = line.split("depth=").nth(1).and_then(|d| d.trim().parse().ok()).ok_or_else(|| format!("no depth: {line}"))?;
        if depth < 2 {
            return Err(format!("a stream of depth {depth}: {line}"));
        }
        seen += 1;
    }
    // Every stream object (declared with its name) has its depth pragma.
    let objects = kernel.lines().filter(|l| l.contains("hls::stream<") && l.contains("(\"")).count();
    if objects != seen {
        return Err(format!("{objects} stream objects but {seen} depth pragmas"));
    }
    if seen == 0 {
        return Err("kernel.cpp declares no stream".into());
    }
    Ok(())
}

/// Each process's function (`process_…`) holds exactly one loop, pipelined at II=1 by the pragma
/// on its first line. Compute processes keep their counters in the function, memory processes in
/// their walkers (`struct gen…`). Counters are `ap_int` narrower than 64 bits (the software run,
/// where `ap_int` wraps, says they are wide enough), and loop control (the counters' first
/// values, their bounds, the step, a walker's σ key) has no division or modulo, which would put
/// a divider in the loop's recurrence.
fn processes_are_one_pipelined_loop(kernel: &str) -> Result<(), String> {
    let lines: Vec<&str> = kernel.lines().collect();
    let block = |from: usize, end: &str| -> &[&str] {
        let n = lines[from..].iter().position(|l| *l == end).unwrap_or(lines.len() - from);
        &lines[from..from + n]
    };
    let (mut processes, mut walkers) = (0, 0);
    for (i, head) in lines.iter().enumerate() {
        if head.starts_with("static void process_") {
            let name = head.split('(').next().unwrap_or(head);
            let body = block(i + 1, "}");
            let loops: Vec<usize> = (0..body.len())
                .filter(|&k| {
                    ["for (", "while (", "do {"].iter().any(|w| body[k].trim_start().starts_with(w) || body[k].contains(&format!(" {w}")))
                })
                .collect();
            let [at] = loops.as_slice() else { return Err(format!("{name}: {} loops, not one", loops.len())) };
            if body.get(at + 1).map(|l| l.trim()) != Some("#pragma HLS pipeline II=1") {
                return Err(format!("{name}: its loop is not pipelined at II=1"));
            }
            if !head.starts_with("static void process_mem_") {
                let step = body.iter().position(|l| l.trim() == "if (!hold) {").ok_or_else(|| format!("{name}: no step"))?;
                loop_control(name, body, &body[step..])?;
                rings_have_their_distance(name, body)?;
            }
            processes += 1;
        } else if head.starts_with("struct gen") {
            let body = block(i + 1, "};");
            let step = body.iter().position(|l| l.trim() == "void step() {").ok_or_else(|| format!("{head} has no step()"))?;
            loop_control(head, body, &body[step..])?;
            walkers += 1;
        }
    }
    if processes == 0 || walkers == 0 {
        return Err(format!("kernel.cpp has {processes} processes and {walkers} walkers"));
    }
    Ok(())
}

/// A FIFO from a process to itself is an array in it (`ring<c>`), never a stream, whose RAW
/// distance across passes the loop's dependence pragma gives HLS: a stream read that waits
/// would stall the stage that writes what it waits for.
fn rings_have_their_distance(name: &str, body: &[&str]) -> Result<(), String> {
    for l in body.iter().filter(|l| l.contains(" ring") && l.contains("];  //")) {
        let ring = l.split_whitespace().nth(1).and_then(|d| d.split('[').next()).ok_or_else(|| format!("{name}: {l}"))?;
        let pragma = format!("#pragma HLS dependence variable={ring} type=inter direction=RAW distance=");
        let d = body.iter().find_map(|p| p.strip_prefix(&pragma)).ok_or_else(|| format!("{name}: {ring} has no dependence pragma"))?;
        let d: u64 = d.split_whitespace().next().and_then(|d| d.parse().ok()).ok_or_else(|| format!("{name}: {d}"))?;
        if d == 0 {
            return Err(format!("{name}: {ring} at distance 0"));
        }
    }
    if body.iter().any(|l| l.trim_start().starts_with("hls::stream<")) {
        return Err(format!("{name}: a stream to itself"));
    }
    Ok(())
}

/// Checks the counters of `body` (`ap_int<W> c_…`), the lines that set them, their bounds or
/// whether they can step (`c_… = …`, `const long long lo…`, a walker's `up<k> = …`), a walker's
/// σ key (`key[k] = …`, which the memory process compares every pass), and the `step` lines.
fn loop_control(name: &str, body: &[&str], step: &[&str]) -> Result<(), String> {
    let starts = |l: &&&str, w: &str| l.trim_start().starts_with(w);
    for c in body.iter().filter(|l| starts(l, "ap_int<")) {
        let w: u32 =
            c.trim_start()["ap_int<".len()..].split('>').next().and_then(|w| w.parse().ok()).ok_or_else(|| format!("{name}: {c}"))?;
        if w >= 64 {
            return Err(format!("{name}: a {w}-bit counter: {c}"));
        }
    }
    if let Some(c) = body.iter().find(|l| l.contains("long long c_")) {
        return Err(format!("{name}: a long long counter: {c}"));
    }
    let can_step = |l: &&&str| l.trim_start().strip_prefix("up").is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    let control = body.iter().filter(|l| ["ap_int<", "c_", "const long long lo", "key["].iter().any(|w| starts(l, w)) || can_step(l));
    if let Some(l) = control.chain(step).find(|l| l.contains('/') || l.contains('%') || l.contains("floord")) {
        return Err(format!("{name}: division in loop control: {l}"));
    }
    Ok(())
}

#[test]
fn vitis_kernels_run_as_software_bit_exact_and_hosts_compile() {
    every_kernel_at_two_shapes(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("vitis_backend"), one);
}

/// `key=value` lines of a file's text, e.g. `sp=kernel_gemm_1.A:DDR[1]`.
fn lines_with<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines().filter_map(|l| l.trim().strip_prefix(prefix)).collect()
}

#[test]
fn every_board_gets_its_platform_part_and_banks() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/gemm.c");
    let c = Case::new(&f, "float", &[4], &[1]).unwrap();
    let kernel = &c.dpn.kernel;
    let arrays: Vec<&str> = c.p.vars.iter().filter(|v| !v.is_scalar_argument()).map(|v| v.name.as_str()).collect();
    for name in dpnc_boards::catalogue() {
        let board = dpnc_boards::load(name).unwrap();
        let files: HashMap<String, String> = dpnc_hls_emit::vitis::generate(&c.p, &c.dpn, &board).unwrap().into_iter().collect();
        let platform = format!("PLATFORM ?= {}", board.platform);
        assert!(files["Makefile"].lines().any(|l| l == platform), "{name}: Makefile lacks `{platform}`");
        assert!(files["csim.tcl"].contains(&format!("set_part {{{}}}", board.part)), "{name}: csim.tcl does not set part {}", board.part);
        assert_eq!(lines_with(&files["connectivity.cfg"], "nk="), [format!("{kernel}:1:{kernel}_1")], "{name}");
        // Every array on a bank of this board; arrays of one m_axi bundle on one bank; banks
        // used in turn, from the board's first.
        let mut bank_of_bundle: HashMap<String, String> = HashMap::new();
        let sps = lines_with(&files["connectivity.cfg"], "sp=");
        assert_eq!(sps.len(), arrays.len(), "{name}: one sp= line per array");
        for (k, array) in arrays.iter().enumerate() {
            let want_bank = &board.memory[k % board.memory.len()].name;
            assert!(sps.contains(&format!("{kernel}_1.{array}:{want_bank}").as_str()), "{name}: {array} is not on {want_bank}: {sps:?}");
            let pragma = lines_with(&files["kernel.cpp"], &format!("#pragma HLS interface m_axi port={array} "));
            let [pragma] = pragma.as_slice() else { panic!("{name}: {array} has {} m_axi pragmas", pragma.len()) };
            let field = |key: &str| {
                pragma.split_whitespace().find_map(|w| w.strip_prefix(key)).unwrap_or_else(|| panic!("{name}: no {key} in {pragma}"))
            };
            // A 512-bit port: the array's 64-byte beats, in bursts of up to 4 KiB.
            let v = c.p.vars.iter().find(|v| v.name == *array).unwrap();
            assert_eq!(field("depth="), (v.len() * 4).div_ceil(64).to_string(), "{name}: {pragma}");
            assert_eq!((field("max_read_burst_length="), field("max_write_burst_length=")), ("64", "64"), "{name}");
            assert!(files["kernel.cpp"].contains(&format!("dpn_hls::Line* {array}")), "{name}: {array} is not a 512-bit port");
            let bundle = field("bundle=").to_string();
            let bank = bank_of_bundle.entry(bundle.clone()).or_insert_with(|| want_bank.clone());
            assert_eq!(bank, want_bank, "{name}: bundle {bundle} spans two banks");
        }
    }
}
