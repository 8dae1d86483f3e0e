//! The GPU backend (`--target gpu`) compiles with nvcc for every kernel of the test set (in
//! float, two parallel sub-bands), and where a CUDA device is present its results are
//! compared bit for bit with the interpreter. nvcc comes from `DPNC_NVCC` (set by
//! `scripts/cuda.sh`, which CI sources) or `nvcc` on PATH.

use dpnc_dpn::Config;
use dpnc_frontend::{dataflow, interp, Options, SourceMap, Store};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Whether it ran on a device (and matched).
fn one(f: &Path, dir: &Path, nvcc: (&str, Option<&str>)) -> Result<bool, String> {
    let opts = Options { defines: vec![("DATA_TYPE".into(), Some("float".into()))], ..Options::default() };
    let mut sm = SourceMap::new();
    let p = dpnc_frontend::load(&mut sm, f, &opts).map_err(|d| d.render(&sm))?;
    let sare = dataflow::compute(&p).map_err(|d| d.message)?;
    let cfg = Config { tile: vec![4, 6], par: vec![2, 1], codegen: true, ..Config::default() };
    let dpn = dpnc_dpn::build(&p, &sare, &cfg).map_err(|d| d.message)?;
    let params = p.param_values().map_err(|d| d.message)?;
    let inputs = Store::random(&p, 5);
    let mut want = inputs.clone();
    interp::run(&p, &params, &mut want).map_err(|d| d.message)?;
    // PTX only, with cicc's lighter optimisation: the whole CUDA front end and the host
    // code are compiled and linked, ptxas runs when the driver loads the program (an
    // sm_80-and-later GPU); a full -arch=sm_80 build of the larger kernels takes minutes.
    let flags = ["-Xcicc", "-O1", "-gencode", "arch=compute_80,code=compute_80", "-w"];
    match dpnc_codegen::native::gpu(&p, &dpn, &inputs, dir, nvcc, &flags)? {
        None => Ok(false),
        Some((got, _, _)) => match Store::compare(&p, &want, &got) {
            None => Ok(true),
            Some(m) => Err(format!("differs at {m} (interpreter, then GPU)")),
        },
    }
}

#[test]
fn gpu_backend_compiles_and_matches_where_a_gpu_is_present() {
    let Some((nvcc, home)) = dpnc_codegen::native::nvcc() else {
        println!("skipped: no nvcc (set DPNC_NVCC, e.g. `source scripts/cuda.sh`)");
        return;
    };
    let files = dpnc_tests::kernels();
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gpu_backend");
    let next = AtomicUsize::new(0);
    let (failures, ran) = (Mutex::new(Vec::new()), AtomicUsize::new(0));
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(f) = files.get(i) else { break };
                let dir = root.join(format!("{i}"));
                let _ = std::fs::remove_dir_all(&dir);
                match one(f, &dir, (&nvcc, home.as_deref())) {
                    Ok(true) => {
                        ran.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(false) => {}
                    Err(e) => failures.lock().unwrap().push(format!("{}: {e}", f.display())),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    println!("{} kernels compiled with {nvcc}; {} ran bit-exact on a GPU", files.len() - failures.len(), ran.load(Ordering::Relaxed));
    assert!(failures.is_empty(), "{} of {} kernels fail:\n{}", failures.len(), files.len(), failures.join("\n"));
}
