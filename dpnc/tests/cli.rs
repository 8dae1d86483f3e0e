//! The command line end to end: `--emit`, `run` with random and with .npy inputs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dpnc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dpnc"))
}

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels").join(name)
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dpnc-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn emit_scop_and_sare() {
    let out = dpnc().arg(kernel("gemm.c")).args(["--emit", "scop"]).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("S1[i, j, k] -> [0, i, 0, j, 1, k, 0]"), "{text}");
    assert!(text.contains("S1[i, j, k] -> A[i, k]"), "{text}");

    let out = dpnc().arg(kernel("gemm.c")).args(["--emit", "sare"]).output().expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // C[i][j] in S1 comes from S0 at k = 0 and from S1 at k - 1 otherwise.
    assert!(text.contains("-> S0[i' = i, j' = j]"), "{text}");
    assert!(text.contains("-> S1[i' = i, j' = j, k' = -1 + k] : k > 0"), "{text}");
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn run_random_then_replay_from_npy() {
    let dir = tempdir("run");
    let first = dir.join("first");
    let out = dpnc().arg("run").arg(kernel("gemm.c")).args(["--random", "5", "--check", "--outputs"]).arg(&first).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bit-exact"));
    for f in ["inputs/A.npy", "inputs/B.npy", "inputs/C.npy", "inputs/alpha.npy", "C.npy"] {
        assert!(first.join(f).exists(), "{f} missing");
    }
    assert!(!first.join("A.npy").exists(), "read-only arrays are not outputs");
    let second = dir.join("second");
    let out = dpnc()
        .arg("run")
        .arg(kernel("gemm.c"))
        .arg("--inputs")
        .arg(first.join("inputs"))
        .arg("--outputs")
        .arg(&second)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(read(&first.join("C.npy")), read(&second.join("C.npy")));
    assert_ne!(read(&first.join("C.npy")), read(&first.join("inputs/C.npy")), "gemm changes C");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wrong_input_shape_is_an_error() {
    let dir = tempdir("shape");
    let good = dir.join("good");
    assert!(dpnc().arg("run").arg(kernel("gemm.c")).args(["--random", "1", "--outputs"]).arg(&good).status().expect("runs").success());
    // Feed gemm's inputs to syrk: the names (A, C, alpha, beta) exist but shapes differ.
    let out = dpnc()
        .arg("run")
        .arg(kernel("syrk.c"))
        .arg("--inputs")
        .arg(good.join("inputs"))
        .arg("--outputs")
        .arg(dir.join("bad"))
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expected") && err.contains(".npy"), "{err}");
    assert!(!dir.join("bad").exists(), "no partial outputs");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_compares_every_backend_and_target_cpu_writes_a_program() {
    let out = dpnc().args(["check", "--tile", "4", "--par", "2"]).arg(kernel("bicg.c")).env_remove("DPNC_NVCC").output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    for row in ["SARE evaluator", "DPN executor", "CPU (g++)", "Vitis HLS C++ (g++)", "Verilog (Verilator)"] {
        let line = text.lines().find(|l| l.starts_with(row)).unwrap_or_else(|| panic!("no {row} row:\n{text}"));
        assert!(line.contains("bit-exact"), "{line}");
    }
    let dir = tempdir("target-cpu");
    let out = dpnc().args(["--tile", "4", "--target", "cpu", "-o"]).arg(&dir).arg(kernel("gemm.c")).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in ["kernel.cpp", "dpn_rt.hpp", "Makefile"] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let src = std::fs::read_to_string(dir.join("kernel.cpp")).expect("readable");
    assert!(src.contains("dpn::run_processes") && src.contains("load_A"), "{}", &src[..src.len().min(400)]);
}

/// The lines `make -n TARGET` prints in `dir` (nothing is run).
fn make_n(dir: &Path, target: &str) -> Vec<String> {
    let out = Command::new("make").arg("-n").arg("-C").arg(dir).arg(target).output().expect("make runs");
    assert!(out.status.success(), "make -n {target}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().filter(|l| !l.starts_with("make")).map(String::from).collect()
}

/// The Verilog target's Makefile runs the vendor flow (Vivado and v++ cannot run here: `make -n`
/// shows what it would run) on the files dpnc wrote, with the board's platform, and the XRT host
/// it builds compiles against the XRT stand-in; the hint dpnc prints names those targets.
#[test]
fn the_verilog_target_makefile_runs_the_vitis_flow() {
    let dir = tempdir("flow");
    let out = dpnc().arg(kernel("gemm.c")).args(["--tile", "4", "--board", "u280", "-o"]).arg(&dir).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let hint = String::from_utf8_lossy(&out.stderr);
    assert!(hint.contains(&format!("make -C {} xo", dir.display())) && hint.contains("hw` (v++, XRT)"), "{hint}");
    let platform = "xilinx_u280_gen3x16_xdma_1_202211_1";
    assert_eq!(make_n(&dir, "xo"), ["vivado -mode batch -source package_xo.tcl"]);
    let tcl = std::fs::read_to_string(dir.join("package_xo.tcl")).expect("package_xo.tcl");
    assert!(tcl.contains("-xo_path ./${top}.xo") && tcl.contains("set top kernel_gemm"), "the xo the Makefile expects: {tcl}");
    let host = "g++ -std=c++17 -O2 -I/opt/xilinx/xrt/include -o host host.cpp -L/opt/xilinx/xrt/lib -lxrt_coreutil -pthread";
    let hw = make_n(&dir, "hw");
    assert_eq!(
        hw,
        [
            "vivado -mode batch -source package_xo.tcl".to_string(),
            format!("v++ -l -t hw --platform {platform} --config connectivity.cfg -o kernel_gemm.hw.xclbin kernel_gemm.xo"),
            host.to_string(),
        ]
    );
    let emu = make_n(&dir, "hw_emu");
    assert!(emu.contains(&format!("emconfigutil --platform {platform}")), "{emu:?}");
    assert!(emu.contains(&"mkdir -p out && XCL_EMULATION_MODE=hw_emu ./host kernel_gemm.hw_emu.xclbin in out".to_string()), "{emu:?}");
    // Every file the flow names is there: the sources the xo depends on, the host's.
    let makefile = std::fs::read_to_string(dir.join("Makefile")).expect("Makefile");
    let sources = makefile.lines().find_map(|l| l.strip_prefix("SOURCES := ")).expect("SOURCES");
    for f in sources.split_whitespace().chain(["kernel.xml", "connectivity.cfg", "host.cpp", "dpn_rt.hpp", "dpn_math.h"]) {
        assert!(dir.join(f).is_file(), "{f} is named but not written");
    }
    let xrt = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/stand-in/xrt/include");
    let out = Command::new("g++")
        .args(["-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(&xrt)
        .arg(dir.join("host.cpp"))
        .output()
        .expect("g++ runs");
    assert!(out.status.success(), "host.cpp: {}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
