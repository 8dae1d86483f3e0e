//! Builds the CUDA runtime's test program (`runtime/test_rt_cuda.cu`, which includes
//! `runtime/dpn_rt_cuda.cuh`) with nvcc and the flags of the CUDA backend, and runs it. Without
//! a GPU the program only reports that it was compiled; with one it runs its self-test and its
//! fatal modes (deadlock report, scratchpad range error), checking exit status 3 and the messages.
//!
//! nvcc comes from `DPNC_NVCC` (with `DPNC_CUDA_HOME`, default the directory above nvcc's bin/),
//! or else from `scripts/cuda.sh --print-env`, which installs it into a venv on first use. When
//! neither provides nvcc the tests print a "skipped" line and pass.

mod common;

use common::{assert_contains, run_in, Run};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The flags of the CUDA backend's build; warnings are errors so the header stays clean.
const NVCC_FLAGS: &[&str] =
    &["-std=c++17", "--fmad=false", "-arch=sm_80", "-O2", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra,-Werror"];

const NO_DEVICE: &str = "no CUDA device: compiled only";

struct Toolchain {
    nvcc: PathBuf,
    home: PathBuf,
}

fn work_dir(name: &str) -> PathBuf {
    common::work_dir("dpn_rt_cuda", name)
}

/// Parses the `export NAME='value'` lines of `cuda.sh --print-env`.
fn parse_env(text: &str) -> HashMap<String, String> {
    let mut vars = HashMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("export ") else { continue };
        let Some((name, value)) = rest.split_once('=') else { continue };
        let value = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')).unwrap_or(value);
        vars.insert(name.to_string(), value.replace("'\\''", "'"));
    }
    vars
}

/// nvcc and the CUDA home, or the reason there are none.
fn find_toolchain() -> Result<Toolchain, String> {
    if let Some(nvcc) = std::env::var_os("DPNC_NVCC").filter(|v| !v.is_empty()) {
        let nvcc = PathBuf::from(nvcc);
        let home = match std::env::var_os("DPNC_CUDA_HOME").filter(|v| !v.is_empty()) {
            Some(h) => PathBuf::from(h),
            None => nvcc.parent().and_then(Path::parent).map(Path::to_path_buf).unwrap_or_default(),
        };
        return Ok(Toolchain { nvcc, home });
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/cuda.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg("--print-env")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run bash {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!("{} --print-env failed:\n{}", script.display(), String::from_utf8_lossy(&out.stderr)));
    }
    let vars = parse_env(&String::from_utf8_lossy(&out.stdout));
    match (vars.get("DPNC_NVCC"), vars.get("DPNC_CUDA_HOME")) {
        (Some(nvcc), Some(home)) => Ok(Toolchain { nvcc: nvcc.into(), home: home.into() }),
        _ => Err(format!("{} --print-env printed no DPNC_NVCC/DPNC_CUDA_HOME", script.display())),
    }
}

/// Compiles test_rt_cuda.cu once per test binary; None (after printing why) if there is no nvcc.
fn test_binary() -> Option<&'static (PathBuf, PathBuf)> {
    static BIN: OnceLock<Option<(PathBuf, PathBuf)>> = OnceLock::new();
    BIN.get_or_init(|| {
        let tc = match find_toolchain() {
            Ok(tc) => tc,
            Err(why) => {
                println!("skipped: no nvcc (run scripts/cuda.sh): {why}");
                return None;
            }
        };
        let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
        let src = runtime.join("test_rt_cuda.cu");
        let exe = work_dir("build").join("test_rt_cuda");
        let lib = tc.home.join("lib");
        let mut cmd = Command::new(&tc.nvcc);
        cmd.args(NVCC_FLAGS)
            .arg(format!("-I{}", tc.home.join("include").display()))
            .arg(format!("-I{}", runtime.display()))
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .arg(format!("-L{}", lib.display()))
            .arg("-lcudart")
            .args(["-Xlinker", "-rpath", "-Xlinker"])
            .arg(&lib);
        let shown = format!("{cmd:?}");
        let start = Instant::now();
        let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {} ({e}); unset DPNC_NVCC or fix it", tc.nvcc.display()));
        assert!(out.status.success(), "{shown} failed:\n{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        println!("built test_rt_cuda in {:.1} s: {shown}", start.elapsed().as_secs_f64());
        Some((exe, lib))
    })
    .as_ref()
}

fn no_device(r: &Run) -> bool {
    r.code == Some(0) && r.stdout.contains(NO_DEVICE)
}

/// Runs the test program with `args` and `env` (libcudart found through LD_LIBRARY_PATH).
fn run(name: &str, args: &[&str], env: &[(&str, &str)]) -> Option<Run> {
    let (exe, lib) = test_binary()?;
    let mut ld_path = lib.as_os_str().to_owned();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|v| !v.is_empty()) {
        ld_path.push(":");
        ld_path.push(old);
    }
    let ld_path = ld_path.to_string_lossy().into_owned();
    let mut env = env.to_vec();
    env.push(("LD_LIBRARY_PATH", &ld_path));
    Some(run_in(exe, &work_dir(name), args, &env))
}

#[test]
fn cuda_runtime_self_test_passes() {
    let Some(r) = run("self_test", &[], &[]) else { return };
    assert_eq!(r.code, Some(0), "test_rt_cuda failed:\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    if no_device(&r) {
        println!("{NO_DEVICE} (the self-test needs a GPU)");
        return;
    }
    assert!(r.stdout.contains("all CUDA runtime tests passed"), "stdout:\n{}", r.stdout);
    print!("{}", r.stdout);
}

#[test]
fn cuda_deadlock_is_reported_with_processes_and_channels() {
    let start = Instant::now();
    let Some(r) = run("deadlock", &["deadlock"], &[("DPN_TIMEOUT", "1")]) else { return };
    if no_device(&r) {
        println!("{NO_DEVICE} (the deadlock report needs a GPU)");
        return;
    }
    assert_eq!(r.code, Some(3), "expected exit status 3; stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert!(start.elapsed() >= Duration::from_millis(900), "reported before the 1 s timeout");
    // Which process times out first is a race; every blocked process is described either on the
    // first line ("deadlock: <it> ...; no progress for 1 s") or on a line of its own.
    let waits = [
        "process 0 (proc_A) waits to pop channel 1 (chan_BA): empty, capacity 2",
        "process 1 (proc_B) waits to pop channel 0 (chan_AB): empty, capacity 2",
        "process 2 (load_A) waits for channel 4 (store_A_progress) to reach (0, 1, 5); it is at (0, 1, 4)",
        "process 3 (store_A) waits to read channel 3 (X) cell 17: empty",
        "process 4 (S2) waits to write channel 3 (X) cell 3: full",
        "process 5 (load_B) waits to push channel 2 (full_fifo): full, capacity 1",
    ];
    assert!(r.stderr.starts_with("dpn: error: deadlock: process "), "stderr:\n{}", r.stderr);
    assert_contains(&r, &["; no progress for 1 s\n", "(DPN_TIMEOUT=<seconds> changes the limit"]);
    assert_contains(&r, &waits);
    assert!(!r.stderr.contains("(done)"), "a finished process is listed:\n{}", r.stderr);
}

#[test]
fn cuda_scratchpad_range_error_is_fatal() {
    let Some(r) = run("range", &["range"], &[]) else { return };
    if no_device(&r) {
        println!("{NO_DEVICE} (the range check needs a GPU)");
        return;
    }
    assert_eq!(r.code, Some(3), "expected exit status 3; stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_contains(&r, &["dpn: error: process 1 (writer): channel 0 (R): access to cell 20 outside 0..15\n"]);
}
