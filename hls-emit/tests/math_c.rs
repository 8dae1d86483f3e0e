//! runtime/dpn_math.h, compiled by gcc as C and by g++ as C++ with the backends' flags
//! (`-O2 -ffp-contract=off`), gives the interpreter's bits (`dpnc_frontend::mathlib`) for
//! exp, pow, expf and powf on edge values and 200,000 random operands per function
//! (`DPNC_MATH_OPS=<n>` for another count). With `source scripts/cuda.sh`, runtime/math_cuda.cu
//! runs the same vectors on the GPU where there is one (see `gpu_math_vectors`).

use dpnc_frontend::mathlib;
use dpnc_frontend::store::Rng;
use std::path::{Path, PathBuf};
use std::process::Command;

fn ops() -> usize {
    std::env::var("DPNC_MATH_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(200_000)
}

/// Operand pairs (x, y) as bits; the binary32 functions take them rounded to float.
pub fn vectors(n: usize, seed: u64) -> Vec<(u64, u64)> {
    let mut r = Rng(seed);
    (0..n)
        .map(|k| {
            let x = mathlib::test_operand(&mut r, k);
            let y = mathlib::test_operand(&mut r, k / 6 + k);
            (x.to_bits(), y.to_bits())
        })
        .collect()
}

/// The interpreter's results: exp(x), pow(x, y), expf(x), powf(x, y) per vector.
pub fn expected(v: &[(u64, u64)]) -> Vec<[u64; 4]> {
    v.iter()
        .map(|&(x, y)| {
            let (xd, yd) = (f64::from_bits(x), f64::from_bits(y));
            let (xf, yf) = (xd as f32, yd as f32);
            [
                mathlib::exp(xd).to_bits(),
                mathlib::pow(xd, yd).to_bits(),
                mathlib::expf(xf).to_bits() as u64,
                mathlib::powf(xf, yf).to_bits() as u64,
            ]
        })
        .collect()
}

const DRIVER: &str = r#"#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "dpn_math.h"
int main(int argc, char** argv) {
    if (argc < 3) return 2;
    FILE* in = fopen(argv[1], "rb");
    FILE* out = fopen(argv[2], "wb");
    if (!in || !out) return 2;
    uint64_t v[2];
    while (fread(v, 8, 2, in) == 2) {
        double x, y;
        memcpy(&x, &v[0], 8);
        memcpy(&y, &v[1], 8);
        float xf = (float)x, yf = (float)y;
        double e = dpn_exp(x), p = dpn_pow(x, y);
        float ef = dpn_expf(xf), pf = dpn_powf(xf, yf);
        uint64_t r[4] = {0, 0, 0, 0};
        memcpy(&r[0], &e, 8);
        memcpy(&r[1], &p, 8);
        memcpy(&r[2], &ef, 4);
        memcpy(&r[3], &pf, 4);
        fwrite(r, 8, 4, out);
    }
    fclose(out);
    return 0;
}
"#;

fn runtime() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime")
}

fn write_vectors(path: &Path, v: &[(u64, u64)]) {
    let bytes: Vec<u8> = v.iter().flat_map(|&(x, y)| [x.to_le_bytes(), y.to_le_bytes()]).flatten().collect();
    std::fs::write(path, bytes).unwrap();
}

fn compare(out: &Path, v: &[(u64, u64)], what: &str) {
    let got = std::fs::read(out).unwrap();
    let want = expected(v);
    assert_eq!(got.len(), want.len() * 32, "{what}: wrong output size");
    let names = ["exp", "pow", "expf", "powf"];
    for (k, (w, g)) in want.iter().zip(got.chunks(32)).enumerate() {
        for f in 0..4 {
            let g = u64::from_le_bytes(g[8 * f..8 * f + 8].try_into().unwrap());
            assert_eq!(g, w[f], "{what}: {}({:#x}, {:#x}) (vector {k}): got {g:#x}, want {:#x}", names[f], v[k].0, v[k].1, w[f]);
        }
    }
    println!("{what}: {} vectors x 4 functions bit-exact with the interpreter", v.len());
}

fn run_compiler(compiler: &str, lang: &[&str], name: &str) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("math_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("driver.c");
    std::fs::write(&src, DRIVER).unwrap();
    let exe = dir.join("driver");
    let st = Command::new(compiler)
        .args(lang)
        .args(["-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(runtime())
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"));
    assert!(st.status.success(), "{compiler}: {}", String::from_utf8_lossy(&st.stderr));
    let v = vectors(ops(), 7);
    let (fin, fout) = (dir.join("in.bin"), dir.join("out.bin"));
    write_vectors(&fin, &v);
    let run = Command::new(&exe).arg(&fin).arg(&fout).status().unwrap();
    assert!(run.success());
    compare(&fout, &v, name);
}

#[test]
fn c_header_matches_the_interpreter() {
    run_compiler("gcc", &["-x", "c", "-std=c99"], "gcc");
}

#[test]
fn cxx_header_matches_the_interpreter() {
    run_compiler("g++", &["-x", "c++", "-std=c++17"], "g++");
}
