//! The CPU backend (`--target cpu`) is bit-exact with the reference interpreter: every
//! kernel of the test set, at two network shapes (in double without parallel sub-bands, in
//! float with them), is generated, compiled with g++ and run as threads on random inputs,
//! and every output array is compared bit for bit.

use dpnc_dpn::Config;
use dpnc_frontend::{dataflow, interp, Options, SourceMap, Store};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn one(f: &Path, ty: &str, tile: &[i64], par: &[i64], dir: &Path) -> Result<(), String> {
    let opts = Options { defines: vec![("DATA_TYPE".into(), Some(ty.into()))], ..Options::default() };
    let mut sm = SourceMap::new();
    let p = dpnc_frontend::load(&mut sm, f, &opts).map_err(|d| d.render(&sm))?;
    let sare = dataflow::compute(&p).map_err(|d| d.message)?;
    let cfg = Config { tile: tile.to_vec(), par: par.to_vec(), codegen: true, ..Config::default() };
    let dpn = dpnc_dpn::build(&p, &sare, &cfg).map_err(|d| d.message)?;
    let params = p.param_values().map_err(|d| d.message)?;
    let inputs = Store::random(&p, 5);
    let mut want = inputs.clone();
    interp::run(&p, &params, &mut want).map_err(|d| d.message)?;
    // -O1: these programs are small and many; FIFOs at exactly the network's sizes.
    let flags = ["-std=c++17", "-O1", "-ffp-contract=off", "-fwrapv", "-pthread", "-DDPN_EXACT_DEPTHS", "-w"];
    let (got, _, _) = dpnc_codegen::native::cpu(&p, &dpn, &inputs, dir, &flags)?;
    match Store::compare(&p, &want, &got) {
        None => Ok(()),
        Some(m) => Err(format!("differs at {m} (interpreter, then CPU backend)")),
    }
}

#[test]
fn cpu_backend_is_bit_exact_with_the_interpreter() {
    let files = dpnc_tests::kernels();
    let mut jobs = Vec::new();
    for f in &files {
        jobs.push((f.clone(), "double", vec![4], vec![1]));
        jobs.push((f.clone(), "float", vec![4, 6], vec![2, 3]));
    }
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cpu_backend");
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((f, ty, tile, par)) = jobs.get(i) else { break };
                let dir = root.join(format!("{i}"));
                let _ = std::fs::remove_dir_all(&dir);
                if let Err(e) = one(f, ty, tile, par, &dir) {
                    failures.lock().unwrap().push(format!("{} ({ty}, tile {tile:?}, par {par:?}): {e}", f.display()));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    println!("{} of {} runs bit-exact", jobs.len() - failures.len(), jobs.len());
    assert!(failures.is_empty(), "{} of {} runs fail:\n{}", failures.len(), jobs.len(), failures.join("\n"));
}
