//! Shared by the cell tests: build a Verilator model of some cells with a C++ testbench and
//! run it. Verilator is a real dependency (scripts/packages.txt); a missing one fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The hand-written cell library.
pub fn cells_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cells")
}

/// The C++ testbenches.
pub fn tb_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("tb")
}

/// Lints `top` (with `-Wall`, no warnings allowed), builds it with the testbench `tb` (a file in
/// tests/tb/) and runs the binary with `args`; returns its stdout. Panics with Verilator's or the
/// testbench's output on any failure. `sources` are files under cells/.
#[allow(dead_code)] // each test binary compiles this module; the float cells' test calls the other
pub fn verilate_and_run(name: &str, top: &str, sources: &[&str], tb: &str, args: &[&str]) -> String {
    verilate_and_run_with(name, top, sources, &[], tb, args)
}

/// [`verilate_and_run`] with more Verilator options (`-D` defines), for the lint and the build.
#[allow(dead_code)] // only the float cells' test needs options
pub fn verilate_and_run_with(name: &str, top: &str, sources: &[&str], options: &[&str], tb: &str, args: &[&str]) -> String {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("vl-{name}"));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let srcs: Vec<PathBuf> = sources.iter().map(|s| cells_dir().join(s)).collect();
    let lint = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", top])
        .args(options)
        .args(&srcs)
        .output()
        .expect("verilator not found: run scripts/setup.sh");
    assert!(lint.status.success(), "lint of {top}:\n{}", String::from_utf8_lossy(&lint.stderr));
    let build = Command::new("verilator")
        .args(["--cc", "--exe", "--build", "-j", "2", "-O3", "--x-assign", "unique", "--top-module", top, "-Mdir"])
        .arg(work.join("obj"))
        .args(["-CFLAGS", "-O1 -ffp-contract=off -std=c++17"])
        .args(options)
        .args(&srcs)
        .arg(tb_dir().join(tb))
        .output()
        .expect("verilator not found: run scripts/setup.sh");
    assert!(
        build.status.success(),
        "build of {top}:\n{}\n{}",
        String::from_utf8_lossy(&build.stdout),
        String::from_utf8_lossy(&build.stderr)
    );
    let run = Command::new(work.join("obj").join(format!("V{top}"))).args(args).output().unwrap();
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{top} testbench failed:\n{out}\n{}", String::from_utf8_lossy(&run.stderr));
    out
}
