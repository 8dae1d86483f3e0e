//! The stand-in for XRT's native C++ API (`tests/stand-in/xrt/include`), against which generated
//! host programs are syntax-checked (XRT cannot be installed here): a host-like program using
//! every call generated hosts make compiles warning-free, and programs that misuse the API
//! (a misspelled method, a wrong argument type, a host pointer as a kernel argument) do not,
//! so that the stand-in does not accept anything.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("stand-in").join("xrt").join("include")
}

fn work_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("xrt_standin");
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// `g++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I<stand-in>` on `source`: success, stderr.
fn syntax_check(name: &str, source: &str) -> (bool, String) {
    let file = work_dir().join(format!("{name}.cpp"));
    fs::write(&file, source).unwrap();
    let out = Command::new("g++")
        .env("LC_ALL", "C") // the tests look for words in its errors
        .args(["-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(include_dir())
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run g++ ({e}): this test needs g++ with C++17 support on PATH"));
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

const HEADERS: &str = "#include <xrt/xrt_device.h>\n#include <xrt/xrt_kernel.h>\n#include <xrt/xrt_bo.h>\n";

/// What a generated host does: open the device, load the xclbin, allocate one buffer per array
/// argument in the argument's memory group, copy inputs in, run the kernel (both ways of
/// starting it), copy outputs back.
const HOST: &str = r#"
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::string xclbin = argc > 1 ? argv[1] : "kernel.xclbin";
  const int n = 1024;
  std::vector<float> a(n, 1.0f), c(n);

  xrt::device device(0u);
  xrt::uuid uuid = device.load_xclbin(xclbin);
  xrt::kernel krnl(device, uuid, std::string("kernel_top"));

  xrt::bo bo_a(device, n * sizeof(float), krnl.group_id(0));
  xrt::bo bo_c(device, n * sizeof(float), xrt::bo::flags::normal, krnl.group_id(1));
  bo_a.write(a.data());
  bo_a.sync(XCL_BO_SYNC_BO_TO_DEVICE);
  float* mapped = bo_c.map<float*>();
  (void)mapped;

  // Call operator: buffers and scalars, in argument order.
  xrt::run run = krnl(bo_a, bo_c, n, 2.5f, static_cast<int64_t>(7));
  ert_cmd_state st = run.wait();
  if (st != ERT_CMD_STATE_COMPLETED) std::fprintf(stderr, "run failed\n");

  // Explicit run object.
  xrt::run run2(krnl);
  run2.set_arg(0, bo_a);
  run2.set_arg(1, bo_c);
  run2.set_arg(2, n);
  run2.set_arg(3, 2.5f);
  run2.start();
  run2.wait();

  bo_c.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
  bo_c.read(c.data());
  std::printf("%f\n", static_cast<double>(c[0]));
  return 0;
}
"#;

#[test]
fn host_program_compiles_against_the_stand_in() {
    let (ok, err) = syntax_check("host", &format!("{HEADERS}{HOST}"));
    assert!(ok, "the host-like program does not compile against the XRT stand-in:\n{err}");
}

#[test]
fn each_header_compiles_on_its_own() {
    for h in ["xrt_device.h", "xrt_kernel.h", "xrt_bo.h"] {
        let (ok, err) = syntax_check(&h.replace('.', "_"), &format!("#include <xrt/{h}>\nint main() {{ return 0; }}\n"));
        assert!(ok, "<xrt/{h}> alone does not compile:\n{err}");
    }
}

#[test]
fn misuse_does_not_compile() {
    let pre =
        "void f(xrt::device& device, xrt::kernel& krnl, xrt::bo& bo, int* host) {\n  (void)device; (void)krnl; (void)bo; (void)host;\n";
    let cases: &[(&str, &str, &str)] = &[
        ("misspelled_sync", "bo.synk(XCL_BO_SYNC_BO_TO_DEVICE);", "synk"),
        ("misspelled_group_id", "int g = krnl.group_idx(0); (void)g;", "group_idx"),
        ("sync_direction_as_int", "bo.sync(0);", "xclBOSyncDirection"),
        ("unknown_direction", "bo.sync(XCL_BO_SYNC_BO_TO_HOST);", "XCL_BO_SYNC_BO_TO_HOST"),
        ("kernel_without_uuid", "xrt::kernel k(device, std::string(\"k\")); (void)k;", "no matching function"),
        ("device_from_pointer", "xrt::device d(host); (void)d;", "no matching function"),
        ("implicit_device", "xrt::device d = 0u; (void)d;", "conversion"),
        ("host_pointer_argument", "xrt::run r = krnl(bo, host); r.wait();", "trivially copyable non-pointer"),
        ("vector_argument", "std::vector<int> v; xrt::run r(krnl); r.set_arg(0, v);", "trivially copyable non-pointer"),
    ];
    // The shared part alone compiles, so each failure below is its body's.
    let (ok, err) = syntax_check("misuse_control", &format!("{HEADERS}#include <string>\n#include <vector>\n{pre}}}\n"));
    assert!(ok, "the control program does not compile:\n{err}");
    for (name, body, needle) in cases {
        let src = format!("{HEADERS}#include <string>\n#include <vector>\n{pre}  {body}\n}}\n");
        let (ok, err) = syntax_check(name, &src);
        assert!(!ok, "{name} compiled against the stand-in but must not:\n{body}");
        assert!(err.contains(needle), "{name}: g++'s error lacks {needle:?}:\n{err}");
    }
}
