//! Builds the C++ runtime's test program (`runtime/test_rt.cpp`, which includes
//! `runtime/dpn_rt.hpp`) with the flags generated code is held to, runs its self-test, and runs
//! its fatal modes (deadlock report, npy mismatch, throwing process) checking exit status 3
//! and the messages.

mod common;

use common::{assert_contains, run_in, Run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The flags of the CPU backend's build; warnings are errors so the header stays clean.
const CXXFLAGS: &[&str] = &["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread"];

fn work_dir(name: &str) -> PathBuf {
    common::work_dir("dpn_rt", name)
}

/// Compiles test_rt.cpp once per test binary; the tests below share the executable.
fn test_binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime").join("test_rt.cpp");
        let exe = work_dir("build").join("test_rt");
        let out = Command::new("g++").args(CXXFLAGS).arg(&src).arg("-o").arg(&exe).output().unwrap_or_else(|e| {
            panic!("cannot run g++ ({e}): the C++ runtime tests need g++ with C++17 support on PATH (Debian: apt-get install g++)")
        });
        assert!(out.status.success(), "g++ {} {} failed:\n{}", CXXFLAGS.join(" "), src.display(), String::from_utf8_lossy(&out.stderr));
        exe
    })
}

/// Runs the test program with `args` and `env`.
fn run(name: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_in(test_binary(), &work_dir(name), args, env)
}

#[test]
fn runtime_self_test_passes() {
    let dir = work_dir("self_test_npy");
    let r = run("self_test", &[dir.to_str().unwrap()], &[]);
    assert_eq!(r.code, Some(0), "test_rt failed:\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("all runtime tests passed"), "stdout:\n{}", r.stdout);
    // The throughput lines are informative; show them with --nocapture.
    print!("{}", r.stdout);
}

#[test]
fn deadlock_is_reported_with_processes_and_channels() {
    let start = Instant::now();
    let r = run("deadlock", &["deadlock"], &[("DPN_TIMEOUT", "1")]);
    assert_eq!(r.code, Some(3), "expected exit status 3; stderr:\n{}", r.stderr);
    assert!(start.elapsed() >= Duration::from_millis(900), "reported before the 1 s timeout");
    assert_contains(
        &r,
        &[
            "dpn: error: deadlock: no progress for 1 s\n",
            "  proc_A waits to pop FIFO chan_BA (empty, capacity 2)\n",
            "  proc_B waits to pop FIFO chan_AB (empty, capacity 2)\n",
        ],
    );
}

#[test]
fn deadlock_report_describes_every_kind_of_wait() {
    let r = run("deadlock_all", &["deadlock-all"], &[("DPN_TIMEOUT", "1")]);
    assert_eq!(r.code, Some(3), "expected exit status 3; stderr:\n{}", r.stderr);
    assert_contains(
        &r,
        &[
            "dpn: error: deadlock: no progress for 1 s\n",
            "\n  C_S0 waits to pop FIFO empty_fifo (empty, capacity 4)\n",
            "\n  load_B waits to push FIFO full_fifo (full, capacity 1)\n",
            "\n  S1 waits to read scratchpad X cell 17 (empty)\n",
            "\n  S2 waits to write scratchpad X cell 3 (full)\n",
            "\n  load_A waits for store_A to reach (0, 1, 5); store_A is at (0, 1, 4)\n",
            "\n  busy is running (not blocked on a channel)\n",
        ],
    );
    // Processes that returned are not listed.
    assert!(!r.stderr.contains("  done"), "{}", r.stderr);
    assert!(!r.stderr.contains("  store_A "), "{}", r.stderr);
}

#[test]
fn npy_mismatch_is_fatal() {
    let dir = work_dir("mismatch_npy");
    let r = run("npy_mismatch", &["npy-mismatch", dir.to_str().unwrap()], &[]);
    assert_eq!(r.code, Some(3), "expected exit status 3; stderr:\n{}", r.stderr);
    let want =
        format!("dpn: error: {}/mismatch.npy: expected <f4 array of shape (2, 3), file holds <f8 array of shape (3, 2)\n", dir.display());
    assert_contains(&r, &[&want]);
}

#[test]
fn throwing_process_is_fatal() {
    let r = run("throw", &["throw"], &[("DPN_TIMEOUT", "60")]);
    assert_eq!(r.code, Some(3), "expected exit status 3; stderr:\n{}", r.stderr);
    assert_contains(&r, &["dpn: error: process thrower failed: boom at 42\n"]);
    assert!(!r.stderr.contains("deadlock"), "{}", r.stderr);
}
