//! The GPU backend (`--target gpu`) compiles with nvcc for every kernel of the test set (in
//! float, two parallel sub-bands), and where a CUDA device is present its results are
//! compared bit for bit with the interpreter. nvcc comes from `DPNC_NVCC` (set by
//! `scripts/cuda.sh`, which CI sources) or `nvcc` on PATH.

use dpnc_tests::backend::{on_two_cores, Case};
use std::path::Path;

/// Whether it ran on a device (and matched).
fn one(f: &Path, dir: &Path, nvcc: (&str, Option<&str>)) -> Result<bool, String> {
    let c = Case::new(f, "float", &[4, 6], &[2, 1])?;
    // PTX only, with cicc's lighter optimisation: the whole CUDA front end and the host
    // code are compiled and linked, ptxas runs when the driver loads the program (an
    // sm_80-and-later GPU); a full -arch=sm_80 build of the larger kernels takes minutes.
    let flags = ["-Xcicc", "-O1", "-gencode", "arch=compute_80,code=compute_80", "-w"];
    match dpnc_hls_emit::native::gpu(&c.p, &c.dpn, &c.inputs, dir, nvcc, &flags)? {
        None => Ok(false),
        Some((got, _, _)) => c.compare(&got, "GPU").map(|()| true),
    }
}

#[test]
fn gpu_backend_compiles_and_matches_where_a_gpu_is_present() {
    let Some((nvcc, home)) = dpnc_hls_emit::native::nvcc() else {
        println!("skipped: no nvcc (set DPNC_NVCC, e.g. `source scripts/cuda.sh`)");
        return;
    };
    let files = dpnc_tests::kernels();
    let results =
        on_two_cores(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("gpu_backend"), &files, |f, dir| one(f, dir, (&nvcc, home.as_deref())));
    let ran = results.iter().filter(|r| matches!(r, Ok(true))).count();
    let failures: Vec<String> = files.iter().zip(results).filter_map(|(f, r)| r.err().map(|e| format!("{}: {e}", f.display()))).collect();
    println!("{} kernels compiled with {nvcc}; {ran} ran bit-exact on a GPU", files.len() - failures.len());
    assert!(failures.is_empty(), "{} of {} kernels fail:\n{}", failures.len(), files.len(), failures.join("\n"));
}
