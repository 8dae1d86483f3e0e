//! The software stand-ins for Vitis HLS headers (`runtime/hls/hls_stream.h`, `runtime/hls/ap_int.h`):
//! builds their test program (`runtime/hls/test_hls.cpp`) with the flags generated code is held to,
//! runs its self-test and its fatal modes (a deadlock on hls::streams reported by the runtime's
//! watchdog, a late set_depth, a bit index out of range), and checks that misuse the real headers
//! reject does not compile, and that the headers are found in the layout of generated output
//! (`kernel.cpp`, `dpn_rt.hpp` and `dpn_math.h` side by side, the stand-ins in `sw/`, built with `-Isw -I.`).

mod common;

use common::{assert_contains, run_in, Run};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The flags of the CPU backend's build; warnings are errors so the headers stay clean, except
/// `#pragma HLS` lines (in `dpn_hls.h`), which are for Vitis: a software build of a Vitis kernel
/// passes the same `-Wno-unknown-pragmas` (`dpnc_hls_emit::vitis::SW_FLAGS`).
const CXXFLAGS: &[&str] = &["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas", "-pthread"];

fn runtime_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime")
}

fn hls_dir() -> PathBuf {
    runtime_dir().join("hls")
}

fn work_dir(name: &str) -> PathBuf {
    common::work_dir("hls_standin", name)
}

/// g++ with its messages in English: some tests look for words in its errors.
fn gxx() -> Command {
    let mut cmd = Command::new("g++");
    cmd.env("LC_ALL", "C");
    cmd
}

fn run_gxx(cmd: &mut Command) -> std::process::Output {
    cmd.output().unwrap_or_else(|e| {
        panic!("cannot run g++ ({e}): the C++ runtime tests need g++ with C++17 support on PATH (Debian: apt-get install g++)")
    })
}

/// Compiles test_hls.cpp once per test binary; the tests below share the executable.
fn test_binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let src = hls_dir().join("test_hls.cpp");
        let exe = work_dir("build").join("test_hls");
        let out = run_gxx(gxx().args(CXXFLAGS).arg("-I").arg(runtime_dir()).arg("-I").arg(hls_dir()).arg(&src).arg("-o").arg(&exe));
        assert!(out.status.success(), "g++ {} {} failed:\n{}", CXXFLAGS.join(" "), src.display(), String::from_utf8_lossy(&out.stderr));
        exe
    })
}

fn run(name: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_in(test_binary(), &work_dir(name), args, env)
}

#[test]
fn self_test_passes() {
    let r = run("self_test", &[], &[]);
    assert_eq!(r.code, Some(0), "test_hls failed:\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("all hls stand-in tests passed"), "stdout:\n{}", r.stdout);
    assert!(r.stderr.is_empty(), "stderr:\n{}", r.stderr);
    // The throughput line is informative; show it with --nocapture.
    print!("{}", r.stdout);
}

#[test]
fn deadlock_on_streams_is_reported_by_name() {
    let start = Instant::now();
    let r = run("deadlock", &["deadlock"], &[("DPN_TIMEOUT", "1")]);
    assert_eq!(r.code, Some(3), "expected exit status 3; stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert!(start.elapsed() >= Duration::from_millis(900), "reported before the 1 s timeout");
    assert!(start.elapsed() < Duration::from_secs(30), "took {:?}", start.elapsed());
    assert_contains(
        &r,
        &[
            "dpn: error: deadlock: no progress for 1 s\n",
            "\n  consumer waits to pop FIFO lonely (empty, capacity 2)\n",
            "\n  producer waits to push FIFO full_one (full, capacity 3)\n",
        ],
    );
    assert!(!r.stderr.contains("finisher"), "a process that returned is listed:\n{}", r.stderr);
}

#[test]
fn set_depth_on_a_stream_holding_data_is_fatal() {
    let r = run("set_depth_late", &["set-depth-late"], &[]);
    assert_eq!(r.code, Some(3), "expected exit status 3; stderr:\n{}", r.stderr);
    assert_contains(&r, &["dpn: error: hls::stream late: set_depth(8) on a stream that holds data"]);
}

#[test]
fn bit_index_out_of_range_aborts() {
    let r = run("bad_bit", &["bad-bit"], &[]);
    assert_ne!(r.code, Some(0), "reading bit 8 of an ap_uint<8> succeeded; stdout:\n{}", r.stdout);
    assert_contains(&r, &["ap_int: read: bit 8 outside 0..7\n"]);
}

/// `g++ -fsyntax-only` on `source` with the stand-ins on the include path.
fn syntax_check(dir: &Path, name: &str, source: &str) -> (bool, String) {
    let file = dir.join(format!("{name}.cpp"));
    fs::write(&file, source).unwrap();
    let out = run_gxx(gxx().args(CXXFLAGS).arg("-fsyntax-only").arg("-I").arg(runtime_dir()).arg("-I").arg(hls_dir()).arg(&file));
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn each_header_compiles_on_its_own() {
    let dir = work_dir("alone");
    for (name, src) in [
        ("stream_alone", "#include \"hls_stream.h\"\nint main() { hls::stream<int> s; s.write(1); return s.read() - 1; }\n"),
        ("ap_int_alone", "#include \"ap_int.h\"\nint main() { ap_uint<5> x = 33; return x == 1 ? 0 : 1; }\n"),
    ] {
        let (ok, err) = syntax_check(&dir, name, src);
        assert!(ok, "{name} does not compile:\n{err}");
    }
}

#[test]
fn misuse_does_not_compile() {
    let dir = work_dir("misuse");
    let pre = "#include \"hls_stream.h\"\n#include \"ap_int.h\"\n";
    let cases: &[(&str, &str, &str)] = &[
        ("copy", "void f(hls::stream<int>& a) { hls::stream<int> b(a); (void)b; }", "deleted"),
        ("assign", "void f(hls::stream<int>& a, hls::stream<int>& b) { a = b; }", "deleted"),
        ("by_value", "void g(hls::stream<int> s); void f(hls::stream<int>& a) { g(a); }", "deleted"),
        ("implicit_name", "void f() { hls::stream<int> s = \"s\"; (void)s; }", "conversion"),
        ("negative_depth", "void f() { hls::stream<int, -1> s; (void)s; }", "DEPTH must be positive"),
        ("wrong_element", "void g(hls::stream<int>& s); void f() { hls::stream<float, 4> s; g(s); }", "hls::stream<int"),
        ("too_wide", "void f() { ap_int<65> x; (void)x; }", "widths 1 to 64"),
        ("zero_width", "void f() { ap_uint<0> x; (void)x; }", "widths 1 to 64"),
    ];
    for (name, body, needle) in cases {
        let (ok, err) = syntax_check(&dir, name, &format!("{pre}{body}\n"));
        assert!(!ok, "{name} compiled but must not: {body}");
        assert!(err.contains(needle), "{name}: g++'s error lacks {needle:?}:\n{err}");
    }
}

/// The layout of a generated output directory: `kernel.cpp` next to `dpn_rt.hpp` and `dpn_math.h`, the stand-ins
/// in `sw/`, compiled with `-Isw -I.`, run as threads.
#[test]
fn generated_layout_builds_and_runs() {
    let dir = work_dir("layout");
    fs::create_dir_all(dir.join("sw")).unwrap();
    fs::copy(runtime_dir().join("dpn_rt.hpp"), dir.join("dpn_rt.hpp")).unwrap();
    fs::copy(runtime_dir().join("dpn_math.h"), dir.join("dpn_math.h")).unwrap();
    for h in ["hls_stream.h", "ap_int.h"] {
        fs::copy(hls_dir().join(h), dir.join("sw").join(h)).unwrap();
    }
    let kernel = r#"#include <hls_stream.h>
#include <ap_int.h>
#include <cstdio>
#include "dpn_rt.hpp"

struct Tok { ap_uint<10> i; float v; };

static void load(hls::stream<Tok>& out) { for (int i = 0; i < 1000; ++i) out.write(Tok{i, 0.5f * i}); }
static void work(hls::stream<Tok>& in, hls::stream<float>& out) {
  for (int i = 0; i < 1000; ++i) { Tok t = in.read(); out.write(t.v * 2 + (t.i == i ? 0 : 1e6f)); }
}
static void store(hls::stream<float>& in, double& sum) { for (int i = 0; i < 1000; ++i) sum += in.read(); }

int main() {
  hls::stream<Tok, 3> a("a");
  hls::stream<float> b("b");
  double sum = 0;
  dpn::run_processes({{"load", [&] { load(a); }}, {"work", [&] { work(a, b); }}, {"store", [&] { store(b, sum); }}});
  std::printf("%.1f\n", sum);
  return sum == 999.0 * 1000.0 / 2 ? 0 : 1;
}
"#;
    fs::write(dir.join("kernel.cpp"), kernel).unwrap();
    let out = run_gxx(gxx().current_dir(&dir).args(CXXFLAGS).args(["-Isw", "-I.", "kernel.cpp", "-o", "kernel"]));
    assert!(out.status.success(), "g++ -Isw -I. kernel.cpp failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let r = run_in(&dir.join("kernel"), &dir, &[], &[]);
    assert_eq!(r.code, Some(0), "kernel failed:\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "499500.0\n");
}
