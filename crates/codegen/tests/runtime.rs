//! Builds the C++ runtime's test program (`runtime/test_rt.cpp`, which includes
//! `runtime/dpn_rt.hpp`) with the flags generated code is held to, runs its self-test, and runs
//! its fatal modes (deadlock report, npy mismatch, throwing process) checking exit status 3
//! and the messages.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The flags of the CPU backend's build; warnings are errors so the header stays clean.
const CXXFLAGS: &[&str] = &["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread"];

/// Any single run longer than this is a hang (the deadlock modes end after about 1 s).
const RUN_LIMIT: Duration = Duration::from_secs(180);

fn work_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dpn_rt").join(name);
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("cannot clear {}: {e}", dir.display()));
    }
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
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

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the test program with `args` and `env`, output to files (no pipe can fill up), and
/// kills it if it outlives RUN_LIMIT.
fn run(name: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let exe = test_binary();
    let dir = work_dir(name);
    let (out_path, err_path) = (dir.join("stdout.txt"), dir.join("stderr.txt"));
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .current_dir(&dir)
        .env_remove("DPN_TIMEOUT")
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).unwrap())
        .stderr(fs::File::create(&err_path).unwrap());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "test_rt {args:?} still running after {RUN_LIMIT:?}; output so far:\n{}\n{}",
                fs::read_to_string(&out_path).unwrap_or_default(),
                fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code(),
        stdout: fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

fn assert_contains(r: &Run, needles: &[&str]) {
    for n in needles {
        assert!(r.stderr.contains(n), "stderr lacks {n:?}; stderr was:\n{}\nstdout was:\n{}", r.stderr, r.stdout);
    }
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
