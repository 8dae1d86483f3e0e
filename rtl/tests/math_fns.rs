//! dpnc's exp, pow, expf and powf in hardware (src/datapath.rs expands each into float cells and
//! wires) against their Rust definition (`dpnc_frontend::mathlib`, what the interpreter runs),
//! bit for bit, under Verilator: one datapath per function (`y = exp(a)`, …), linted with
//! `-Wall`, simulated on edge values (all pairs) and 20,000 random operands per function in CI
//! (`DPNC_MATH_VECTORS=1000000` for a report) by the datapath driver tests/datapath/tb.cpp
//! (one vector per ce-cycle, ce = 0 in random cycles, every output checked in every cycle).

use dpnc_frontend::mathlib;
use dpnc_frontend::store::Rng;
use dpnc_frontend::{Options, SourceMap};
use dpnc_rtl::datapath;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

const KERNEL: &str = "#include <math.h>\n#define N 4\n\
void kernel_math(int n, double a[N], double b[N], float f[N], float g[N], double o1[N], double o2[N], float o3[N], float o4[N])\n{\n  int i;\n\
#pragma scop\n  for (i = 0; i < n; i++) {\n    o1[i] = exp(a[i]);\n    o2[i] = pow(a[i], b[i]);\n    o3[i] = expf(f[i]);\n    o4[i] = powf(f[i], g[i]);\n  }\n\
#pragma endscop\n}\nint main(void) { static double a[N], b[N], o1[N], o2[N]; static float f[N], g[N], o3[N], o4[N];\n\
  kernel_math(N, a, b, f, g, o1, o2, o3, o4); return 0; }\n";

fn vectors() -> usize {
    std::env::var("DPNC_MATH_VECTORS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000)
}

#[test]
fn math_functions_in_hardware_match_their_definition() {
    let mut sm = SourceMap::new();
    let p = dpnc_frontend::load_str(&mut sm, "math.c", KERNEL, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
    let names = ["exp", "pow", "expf", "powf"];
    let dps: Vec<datapath::Datapath> =
        (0..4).map(|k| datapath::statement(&p, k, &format!("dp_{}", names[k])).unwrap_or_else(|e| panic!("{e}"))).collect();
    for (d, n) in dps.iter().zip(names) {
        println!("{n}: latency {} cycles, {} cells", d.latency, d.module.matches(" u_n").count());
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("math_fns");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    // Operands: all pairs of edge values, then random ones.
    let mut ops: Vec<(f64, f64)> =
        mathlib::EDGE_OPERANDS.iter().flat_map(|&x| mathlib::EDGE_OPERANDS.iter().map(move |&y| (x, y))).collect();
    let mut r = Rng(0x5eed);
    for k in 0..vectors() {
        ops.push((mathlib::test_operand(&mut r, k), mathlib::test_operand(&mut r, k / 6 + k)));
    }
    let n = ops.len();
    // tests/datapath/tb.cpp's format: n_dp, n_vec; latency and input count per datapath; per
    // datapath, per vector: the inputs (it_i, then the reads), the expected output, 1.
    let mut words: Vec<u64> = vec![4, n as u64];
    let inputs = [2u64, 3, 2, 3];
    for (d, k) in dps.iter().zip(inputs) {
        words.extend([d.latency as u64, k]);
    }
    for f in 0..4 {
        for (v, &(x, y)) in ops.iter().enumerate() {
            let (xf, yf) = (x as f32, y as f32);
            let (xs, ys) = (xf.to_bits() as u64, yf.to_bits() as u64);
            words.push(v as u64 % 4); // it_i (unused)
            match f {
                0 => words.extend([x.to_bits(), mathlib::exp(x).to_bits()]),
                1 => words.extend([x.to_bits(), y.to_bits(), mathlib::pow(x, y).to_bits()]),
                2 => words.extend([xs, mathlib::expf(xf).to_bits() as u64]),
                _ => words.extend([xs, ys, mathlib::powf(xf, yf).to_bits() as u64]),
            }
            words.push(1);
        }
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(dir.join("vectors.bin"), bytes).unwrap();

    // The testbench top, one instance per function, and the driver's port accessors.
    let mut top = String::from("// Test top: dpnc's math functions as datapaths.\nmodule tb_top (\n    input wire clk,\n    input wire ce");
    let mut inst = String::new();
    let mut set = String::new();
    let mut get = String::new();
    for (d, dp) in dps.iter().enumerate() {
        let w = if d < 2 { 64 } else { 32 };
        let reads = if d % 2 == 0 { 1 } else { 2 };
        let _ = write!(top, ",\n    input wire [63:0] d{d}_it");
        let mut pins = vec![".clk(clk)".to_string(), ".ce(ce)".to_string(), format!(".it_i(d{d}_it)")];
        let _ = write!(set, "    case {d}: t->d{d}_it = v[0];");
        for j in 0..reads {
            let _ = write!(top, ",\n    input wire [{}:0] d{d}_r{j}", w - 1);
            pins.push(format!(".r{j}(d{d}_r{j})"));
            let _ = write!(set, " t->d{d}_r{j} = (uint{w}_t)v[{}];", j + 1);
        }
        let _ = write!(top, ",\n    output wire [{}:0] d{d}_y", w - 1);
        pins.push(format!(".y(d{d}_y)"));
        let _ = writeln!(set, " break;");
        let _ = writeln!(get, "    case {d}: return (uint64_t)t->d{d}_y;");
        let _ = writeln!(inst, "    {} u{d} ({});", dp.name, pins.join(", "));
        std::fs::write(dir.join(format!("{}.v", dp.name)), &dp.module).unwrap();
    }
    let _ = write!(top, "\n);\n{inst}endmodule\n");
    std::fs::write(dir.join("tb_top.v"), top).unwrap();
    let header = format!(
        "static const int N_DP = 4;\nstatic const char* NAME[] = {{\"exp\", \"pow\", \"expf\", \"powf\"}};\n\
         static void set_in(Vtb_top* t, int d, const uint64_t* v) {{\n  switch (d) {{\n{set}  }}\n}}\n\
         static uint64_t get_out(Vtb_top* t, int d) {{\n  switch (d) {{\n{get}  }}\n  return 0;\n}}\n"
    );
    std::fs::write(dir.join("tb_ports.h"), header).unwrap();

    let cells: BTreeSet<&'static str> = dps.iter().flat_map(|d| d.cells.iter().copied()).collect();
    let mut files: Vec<String> = vec!["tb_top.v".into()];
    files.extend(dps.iter().map(|d| format!("{}.v", d.name)));
    files.extend(cells.iter().map(|c| datapath::cells_dir().join(c).display().to_string()));
    let lint = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--default-language", "1364-2005", "--top-module", "tb_top"])
        .args(&files)
        .current_dir(&dir)
        .output()
        .expect("verilator not found: run scripts/setup.sh");
    let text = String::from_utf8_lossy(&lint.stderr).into_owned() + &String::from_utf8_lossy(&lint.stdout);
    assert!(lint.status.success() && !text.contains("%Warning"), "lint:\n{text}");
    let t0 = std::time::Instant::now();
    let build = Command::new("verilator")
        .args(["--cc", "--exe", "--build", "-O3", "-j", "2", "--top-module", "tb_top", "-Mdir", "obj"])
        .args(["-CFLAGS".to_string(), format!("-std=c++17 -I{}", dir.display())])
        .args(["-MAKEFLAGS", "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1"])
        .args(&files)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/datapath/tb.cpp"))
        .current_dir(&dir)
        .output()
        .expect("verilator");
    assert!(build.status.success(), "build:\n{}\n{}", String::from_utf8_lossy(&build.stdout), String::from_utf8_lossy(&build.stderr));
    let t1 = std::time::Instant::now();
    let run = Command::new(dir.join("obj/Vtb_top")).args(["vectors.bin", "0x9e3779b97f4a7c15"]).current_dir(&dir).output().unwrap();
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    println!("{out}build {:.0} s, run {:.0} s", (t1 - t0).as_secs_f64(), t1.elapsed().as_secs_f64());
    assert!(run.status.success() && out.trim_end().ends_with(" 0 errors"), "{out}\n{}", String::from_utf8_lossy(&run.stderr));
    assert!(out.starts_with(&format!("4 datapaths, {} vectors,", 4 * n)), "{out}");
}
