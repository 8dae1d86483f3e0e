//! Builds the hand-made test tops of tests/rtl/ with the harness (one Verilator build each, shared by
//! the tests of this file) and checks real runs: results, byte counts, seeds, deadlock, protocol errors,
//! timeout. Verilator and g++ are real dependencies (scripts/packages.txt).

use dpnc_sim::{build, run, Arg, ArgKind, Input, Memory, ModelBuild, Outcome, SimError, Spec};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

fn rtl(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn cells() -> Vec<PathBuf> {
    let c = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl/cells");
    [
        "axi/dpn_axi_lite_ctrl.v",
        "axi/dpn_axi_read.v",
        "axi/dpn_axi_write.v",
        "axi/dpn_axi_split.v",
        "mem/dpn_fifo.v",
        "mem/dpn_fifo_reg.v",
        "mem/dpn_fifo_ram.v",
        "mem/dpn_ram_dp.v",
    ]
    .iter()
    .map(|f| c.join(f).canonicalize().unwrap())
    .collect()
}

fn array(name: &str, port: usize, bytes: usize, output: bool) -> Arg {
    Arg { name: name.into(), kind: ArgKind::Array { port, bytes, output } }
}

fn scalar(name: &str, bits: u32) -> Arg {
    Arg { name: name.into(), kind: ArgKind::Scalar { bits } }
}

fn quiet() -> impl FnMut(&str) {
    |l: &str| eprintln!("  {l}")
}

const N: usize = 1000;

fn vscale_spec() -> Spec {
    let mut verilog = cells();
    verilog.push(rtl("tests/rtl/vscale_top.v"));
    Spec {
        top: "vscale_top".into(),
        verilog,
        ports: vec!["gmem0".into(), "gmem1".into()],
        data_bits: 64,
        args: vec![array("A", 0, 4 * N, false), array("B", 1, 4 * N, true), scalar("n", 32), scalar("k", 32)],
        channels: vec!["ch_a".into()],
        processes: vec!["load".into(), "scale".into()],
        trace: None,
        build: ModelBuild::Quick,
    }
}

fn misc_spec() -> Spec {
    let mut verilog = cells();
    verilog.push(rtl("tests/rtl/misc_top.v"));
    Spec {
        top: "misc_top".into(),
        verilog,
        ports: vec!["gmem0".into()],
        data_bits: 64,
        args: vec![scalar("mode", 8), array("X", 0, 4096, true)],
        channels: vec!["fed".into(), "orphan".into()],
        processes: vec!["src".into(), "sink".into()],
        trace: None,
        build: ModelBuild::Quick,
    }
}

/// One build per top for the whole test binary.
fn built(which: &'static str) -> (PathBuf, Spec) {
    static VSCALE: OnceLock<PathBuf> = OnceLock::new();
    static MISC: OnceLock<PathBuf> = OnceLock::new();
    let (cell, spec) = match which {
        "vscale" => (&VSCALE, vscale_spec()),
        _ => (&MISC, misc_spec()),
    };
    let exe = cell.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sim-{which}"));
        // From scratch: a model left by an earlier run would be reused without a build.
        let _ = std::fs::remove_dir_all(&dir);
        let t = Instant::now();
        let mut lines = 0;
        let exe = build(&spec, &dir, &mut |l: &str| {
            lines += 1;
            eprintln!("  [{which}] {l}")
        })
        .unwrap_or_else(|e| panic!("build of {which}: {e}"));
        eprintln!("build of {which}: {:.1} s, {lines} progress lines", t.elapsed().as_secs_f64());
        assert!(lines >= 2, "the build reported no progress");
        exe
    });
    (exe.clone(), spec)
}

/// A model is reused as long as what it is built from stays the same, and rebuilt when a source
/// changes.
#[test]
fn a_model_is_rebuilt_only_when_a_source_changes() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sim-rebuild");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The top copied where the test may change it.
    let top = dir.join("misc_top.v");
    std::fs::copy(rtl("tests/rtl/misc_top.v"), &top).unwrap();
    let mut spec = misc_spec();
    *spec.verilog.last_mut().unwrap() = top.clone();
    let build_lines = |spec: &Spec| {
        let mut lines: Vec<String> = Vec::new();
        build(spec, &dir.join("model"), &mut |l: &str| lines.push(l.to_string())).unwrap_or_else(|e| panic!("{e}"));
        lines
    };
    let built = |lines: &[String]| lines.iter().any(|l| l.starts_with("verilator: built "));
    let first = build_lines(&spec);
    assert!(built(&first), "{first:?}");
    let again = build_lines(&spec);
    assert!(!built(&again) && again.iter().any(|l| l.ends_with("is up to date")), "{again:?}");
    std::fs::write(&top, std::fs::read_to_string(&top).unwrap() + "// changed\n").unwrap();
    let changed = build_lines(&spec);
    assert!(built(&changed), "a changed source was not rebuilt: {changed:?}");
}

fn a_values() -> Vec<i32> {
    let mut x: u64 = 12345;
    (0..N)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as i32
        })
        .collect()
}

fn le(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn vscale_inputs(n: u64, k: i32) -> Vec<(String, Input)> {
    vec![("A".into(), Input::Bytes(le(&a_values()))), ("n".into(), Input::Bits(n)), ("k".into(), Input::Bits(k as u32 as u64))]
}

fn run_vscale(seed: u64) -> Outcome {
    let (exe, spec) = built("vscale");
    let mem = Memory { seed, ..Memory::default() };
    let t = Instant::now();
    let o = run(&exe, &spec, &vscale_inputs(N as u64, -7), &mem, 1_000_000, 10_000, &mut quiet())
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    eprintln!(
        "vscale seed {seed}: {} cycles, {} B read, {} B written, peaks {:?} ({:.2} s)",
        o.cycles,
        o.bytes_read,
        o.bytes_written,
        o.peaks,
        t.elapsed().as_secs_f64()
    );
    o
}

#[test]
fn vscale_is_exact_and_seeds_change_timing() {
    let a = a_values();
    let want: Vec<u8> = le(&a.iter().map(|x| x.wrapping_mul(-7)).collect::<Vec<_>>());
    let o1 = run_vscale(1);
    let o2 = run_vscale(2);
    for o in [&o1, &o2] {
        assert_eq!(o.arrays.len(), 2);
        assert_eq!(o.arrays[0].0, "A");
        assert_eq!(o.arrays[0].1, le(&a), "A changed");
        assert_eq!(o.arrays[1].0, "B");
        assert!(o.arrays[1].1 == want, "B differs from A * k");
        assert!(o.cycles > N as u64, "{} cycles for {N} elements at one per cycle", o.cycles);
        assert!(o.cycles < 20 * N as u64, "{} cycles", o.cycles);
        assert_eq!(o.bytes_read, 4 * N as u64);
        assert_eq!(o.ports.iter().map(|p| p.bytes_reread).sum::<u64>(), 0, "every element is read once");
        assert_eq!(o.bytes_written, 4 * N as u64);
        assert_eq!(o.peaks.len(), 1);
        // Each process is done after its work and before the host saw ap_done.
        for p in &o.processes {
            assert!(p.done_at >= p.work && p.done_at <= o.cycles, "{p:?} in {} cycles", o.cycles);
        }
        assert!((1..=8).contains(&o.peaks[0]), "peak {} of a depth-8 FIFO", o.peaks[0]);
    }
    assert_ne!(o1.cycles, o2.cycles, "the seed did not change the timing");
    // the same seed gives the same run
    assert_eq!(run_vscale(1), o1);
    // one request in flight per direction: the writes hold the pipeline back and the channel fills up
    let (exe, spec) = built("vscale");
    let one = Memory { max_outstanding: 1, ..Memory::default() };
    let o = run(&exe, &spec, &vscale_inputs(N as u64, -7), &one, 1_000_000, 10_000, &mut quiet()).unwrap();
    eprintln!("vscale with 1 outstanding request: {} cycles, peaks {:?}", o.cycles, o.peaks);
    assert!(o.arrays[1].1 == want);
    assert!(o.cycles > 2 * o1.cycles, "{} cycles", o.cycles);
    assert_eq!(o.peaks, vec![8]);
    assert!(o.full_cycles.len() == 1 && o.full_cycles[0] > 0 && o.full_cycles[0] < o.cycles, "cycles full {:?}", o.full_cycles);
    // Per process: each moves every element once, and the load waits for room as often as the
    // channel is full while it has an element (the writes hold scale back).
    let [load, scale] = o.processes[..] else { panic!("two processes: {:?}", o.processes) };
    assert_eq!((load.work, scale.work), (N as u64, N as u64), "{:?}", o.processes);
    assert!(load.wait_out > 0 && load.wait_out <= o.full_cycles[0], "{load:?}, channel full {} cycles", o.full_cycles[0]);
    assert!(scale.wait_out > 0 && load.wait_in > 0, "{:?}", o.processes);
    assert!(load.work + load.wait_in + load.wait_out <= o.cycles, "{load:?} in {} cycles", o.cycles);
    // no latency at all: faster
    let fast = Memory { latency: 0, jitter: 0, ..Memory::default() };
    let o = run(&exe, &spec, &vscale_inputs(N as u64, -7), &fast, 1_000_000, 10_000, &mut quiet()).unwrap();
    eprintln!("vscale without latency: {} cycles", o.cycles);
    assert!(o.cycles < o1.cycles && o.cycles > N as u64);
    assert!(o.arrays[1].1 == want);
}

/// A bank moves at most its rate, reads and writes together, shared by the ports on it: vscale
/// reads 4,000 bytes on one port and writes 4,000 on the other.
#[test]
fn a_bank_shares_its_bandwidth_between_its_ports() {
    let want: Vec<u8> = le(&a_values().iter().map(|x| x.wrapping_mul(-7)).collect::<Vec<_>>());
    let (exe, spec) = built("vscale");
    let mut cycles = Vec::new();
    // Two bytes a cycle: both ports on one bank, then each on its own.
    for banks in [1, 2] {
        let mem = Memory { bank_rates: vec![2000; banks], ..Memory::default() };
        let o = run(&exe, &spec, &vscale_inputs(N as u64, -7), &mem, 1_000_000, 10_000, &mut quiet()).unwrap();
        eprintln!("vscale on {banks} bank(s) of 2 bytes a cycle: {} cycles", o.cycles);
        assert!(o.arrays[1].1 == want, "B differs from A * k on {banks} bank(s)");
        let per_bank = 8 * N as u64 / banks as u64;
        assert!(o.cycles >= per_bank / 2, "{} cycles move {per_bank} bytes through a bank of 2 bytes a cycle", o.cycles);
        assert!(o.cycles < 2 * per_bank, "{} cycles: far below the bank's rate", o.cycles);
        cycles.push(o.cycles);
    }
    assert!(cycles[1] < cycles[0], "two banks ({} cycles) are no faster than one ({})", cycles[1], cycles[0]);
}

#[test]
fn vscale_odd_n_writes_only_its_elements() {
    let (exe, spec) = built("vscale");
    // n = 999: the last beat carries one element, its upper half is not strobed; B starts as a pattern
    let b0: Vec<u8> = (0..4 * N).map(|i| i as u8 ^ 0x5a).collect();
    let mut inputs = vscale_inputs(999, 3);
    inputs.push(("B".into(), Input::Bytes(b0.clone())));
    let o = run(&exe, &spec, &inputs, &Memory::default(), 1_000_000, 10_000, &mut quiet()).unwrap();
    let a = a_values();
    let b = &o.arrays[1].1;
    for i in 0..999 {
        assert_eq!(i32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()), a[i].wrapping_mul(3), "B[{i}]");
    }
    assert_eq!(&b[4 * 999..], &b0[4 * 999..], "the element after n was written");
    assert_eq!(o.bytes_read, 4 * 1000);
    assert_eq!(o.bytes_written, 4 * 999);
}

#[test]
fn vscale_reading_past_its_array_is_a_protocol_error() {
    let (exe, spec) = built("vscale");
    let t = Instant::now();
    let e = run(&exe, &spec, &vscale_inputs(1100, 2), &Memory::default(), 1_000_000, 10_000, &mut quiet()).unwrap_err();
    eprintln!("{e} ({:.2} s)", t.elapsed().as_secs_f64());
    match e {
        SimError::Protocol(m) => assert!(m.contains("gmem0") && m.contains("outside") && m.contains(" A "), "{m}"),
        e => panic!("expected a protocol error, got {e:?}"),
    }
}

#[test]
fn vscale_timeout() {
    let (exe, spec) = built("vscale");
    match run(&exe, &spec, &vscale_inputs(N as u64, 2), &Memory::default(), 300, 10_000, &mut quiet()) {
        Err(SimError::Timeout { cycles }) => assert_eq!(cycles, 300),
        r => panic!("expected a timeout, got {r:?}"),
    }
}

#[test]
fn vscale_harness_runs_by_hand() {
    let (exe, spec) = built("vscale");
    let help = std::process::Command::new(&exe).arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--latency"));
    // no --out: the result comes on stdout; A zeroed, so B is all zeros; a wrong name is refused
    let out = std::process::Command::new(&exe).args(["--arg", "n=16", "--arg", "k=5", "--progress", "0"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "done");
    assert_eq!(v["bytes_written"], 64);
    let bad = std::process::Command::new(&exe).args(["--arg", "zz=1"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    // inputs that do not match the spec
    let mut wrong = vscale_inputs(N as u64, 1);
    wrong.retain(|(n, _)| n != "k");
    assert!(matches!(run(&exe, &spec, &wrong, &Memory::default(), 1000, 100, &mut quiet()), Err(SimError::Io(m)) if m.contains(" k ")));
    let mut short = vscale_inputs(N as u64, 1);
    short[0].1 = Input::Bytes(vec![0; 12]);
    assert!(matches!(run(&exe, &spec, &short, &Memory::default(), 1000, 100, &mut quiet()), Err(SimError::Io(_))));
    // a harness built for another spec refuses to run
    let mut other = spec.clone();
    other.args[0] = array("A", 0, 4 * N + 8, false);
    let mut inputs = vscale_inputs(N as u64, 1);
    inputs[0].1 = Input::Bytes(vec![0; 4 * N + 8]);
    assert!(
        matches!(run(&exe, &other, &inputs, &Memory::default(), 1000, 100, &mut quiet()), Err(SimError::Io(m)) if m.contains("rebuild"))
    );
}

fn run_misc(mode: u64, mem: &Memory, stall: u64) -> Result<Outcome, SimError> {
    let (exe, spec) = built("misc");
    let t = Instant::now();
    let r = run(&exe, &spec, &[("mode".into(), Input::Bits(mode))], mem, 100_000, stall, &mut quiet());
    eprintln!("misc mode {mode}: {:.2} s", t.elapsed().as_secs_f64());
    r
}

#[test]
fn misc_deadlock_names_the_stuck_processes_and_channels() {
    let t = Instant::now();
    match run_misc(0, &Memory::default(), 200) {
        Err(SimError::Deadlock { cycle, report }) => {
            eprintln!("deadlock at {cycle}:\n{report}");
            assert!(cycle < 1000, "deadlock found late: {cycle}");
            assert!(report.contains("processes not done: src, sink"), "{report}");
            assert!(report.contains("channels full: fed"), "{report}");
            assert!(report.contains("channels empty: orphan"), "{report}");
        }
        r => panic!("expected a deadlock, got {r:?}"),
    }
    assert!(t.elapsed().as_secs() < 60);
    // the other modes' control: the same top completes when nothing is wrong
    let o = run_misc(9, &Memory::default(), 200).unwrap();
    assert_eq!((o.bytes_read, o.bytes_written), (0, 0));
    assert!(o.peaks.len() == 2 && (1..=2).contains(&o.peaks[0]) && o.peaks[1] == 0, "{:?}", o.peaks);
}

#[test]
fn misc_protocol_violations() {
    let one = Memory { max_outstanding: 1, ..Memory::default() };
    for (mode, mem, want) in [
        (1, one, "arvalid dropped before arready"),
        (2, Memory::default(), "wlast set on beat 1 of a 2-beat write burst"),
        (3, Memory::default(), "write bursts not acknowledged"),
        (4, Memory::default(), "outside the arrays of the port"),
        (6, Memory::default(), "rready low while rvalid"),
    ] {
        match run_misc(mode, &mem, 2000) {
            Err(SimError::Protocol(m)) => {
                eprintln!("mode {mode}: {m}");
                assert!(m.contains(want), "mode {mode}: {m}")
            }
            r => panic!("mode {mode}: expected a protocol error, got {r:?}"),
        }
    }
}

#[test]
fn broken_verilog_is_a_tool_error() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sim-broken");
    std::fs::create_dir_all(&dir).unwrap();
    let v = dir.join("broken_top.v");
    std::fs::write(&v, "module broken_top(input wire ap_clk);\n  wire x = ;\nendmodule\n").unwrap();
    let spec = Spec {
        top: "broken_top".into(),
        verilog: vec![v],
        ports: vec![],
        data_bits: 64,
        args: vec![],
        channels: vec![],
        processes: vec![],
        trace: None,
        build: ModelBuild::Quick,
    };
    match build(&spec, &dir.join("build"), &mut quiet()) {
        Err(SimError::Tool(m)) => assert!(m.contains("broken_top.v"), "{m}"),
        r => panic!("expected a tool error, got {r:?}"),
    }
}

#[test]
fn misc_narrow_bursts_use_the_right_lanes() {
    let o = run_misc(5, &Memory::default(), 2000).unwrap();
    let x = &o.arrays[0].1;
    let word = |i: usize| u32::from_le_bytes(x[i..i + 4].try_into().unwrap());
    assert_eq!(word(0), 0);
    for i in 0..4 {
        assert_eq!(word(4 + 4 * i), 0xA000_0000 + i as u32, "word at X + {}", 4 + 4 * i);
    }
    assert_eq!(word(20), 0);
    // the read's beats as the bus carried them: the first in the upper lanes, the second in the lower,
    // the lanes outside the transfer zeroed
    assert_eq!(&x[64..80], &[0, 0, 0, 0, 0, 0, 0, 0xA0, 1, 0, 0, 0xA0, 0, 0, 0, 0]);
    assert!(x[80..].iter().all(|&b| b == 0));
    assert_eq!(o.bytes_written, 16 + 16);
    assert_eq!(o.bytes_read, 8);
}

/// A board's memory model: its banks, each at its peak bandwidth at the kernel clock (the data
/// sheets' figures, as the board files give them).
#[test]
fn board_memory_models() {
    let vcu1525 = Memory::for_board(&dpnc_boards::load("vcu1525").unwrap());
    // 4 DDR4-2400 banks: 2400 MT/s × 8 B = 19.2 GB/s, 64 bytes a cycle at 300 MHz.
    assert_eq!(vcu1525.bank_rates, [64_000; 4]);
    let u280 = Memory::for_board(&dpnc_boards::load("u280").unwrap());
    // 32 HBM2 pseudo-channels of 14.375 GB/s (47.917 bytes a cycle), then 2 DDR4 banks of
    // 19.2 GB/s, each at its own rate.
    assert_eq!(u280.bank_rates[..32], [47_917; 32]);
    assert_eq!(u280.bank_rates[32..], [64_000; 2]);
    assert_eq!((u280.latency, u280.jitter, u280.max_outstanding), (64, 32, 8));
}
