//! The CPU backend (`--target cpu`) is bit-exact with the reference interpreter: every
//! kernel of the test set, at two network shapes (in double without parallel sub-bands, in
//! float with them), is generated, compiled with g++ and run as threads on random inputs,
//! and every output array is compared bit for bit.

use dpnc_dpn::Config;
use dpnc_frontend::npy::read_npy;
use dpnc_frontend::scop::VarKind;
use dpnc_frontend::{dataflow, interp, Options, SourceMap, Store};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn one(f: &Path, ty: &str, tile: &[i64], par: &[i64], dir: &Path) -> Result<(), String> {
    let opts = Options { defines: vec![("DATA_TYPE".into(), Some(ty.into()))], ..Options::default() };
    let mut sm = SourceMap::new();
    let p = dpnc_frontend::load(&mut sm, f, &opts).map_err(|d| d.render(&sm))?;
    let sare = dataflow::compute(&p).map_err(|d| d.message)?;
    let cfg = Config { tile: tile.to_vec(), par: par.to_vec(), codegen: true, ..Config::default() };
    let dpn = dpnc_dpn::build(&p, &sare, &cfg).map_err(|d| d.message)?;
    let files = dpnc_codegen::cpu::generate(&p, &dpn).map_err(|e| format!("codegen: {e}"))?;
    std::fs::create_dir_all(dir.join("out")).map_err(|e| e.to_string())?;
    for (name, text) in files {
        std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
    }
    let cc = Command::new("g++")
        .args(["-std=c++17", "-O1", "-ffp-contract=off", "-fwrapv", "-pthread", "-w", "-o", "kernel", "kernel.cpp"])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run g++: {e}"))?;
    if !cc.status.success() {
        return Err(format!("g++ fails:\n{}", String::from_utf8_lossy(&cc.stderr).lines().take(10).collect::<Vec<_>>().join("\n")));
    }
    let params = p.param_values().map_err(|d| d.message)?;
    let inputs = Store::random(&p, 5);
    inputs.save(&p, &dir.join("in"), |v| v.kind == VarKind::Argument)?;
    let mut want = inputs.clone();
    interp::run(&p, &params, &mut want).map_err(|d| d.message)?;
    let run = Command::new(dir.join("kernel"))
        .arg("in")
        .arg("out")
        .env("DPN_TIMEOUT", "20")
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    if !run.status.success() {
        return Err(format!("run fails: {}", String::from_utf8_lossy(&run.stderr).lines().take(12).collect::<Vec<_>>().join("\n")));
    }
    for (k, v) in p.vars.iter().enumerate().filter(|(_, v)| v.kind == VarKind::Argument && v.written) {
        let got = read_npy(&dir.join("out").join(format!("{}.npy", v.name))).map_err(|e| e.to_string())?;
        let expected = Store::to_npy(v, &want.data[k]);
        if format!("{:?}", got.data).as_bytes() != format!("{:?}", expected.data).as_bytes() {
            let g = format!("{:?}", got.data);
            let e = format!("{:?}", expected.data);
            let at = g.bytes().zip(e.bytes()).position(|(a, b)| a != b).unwrap_or(0);
            return Err(format!(
                "{} differs near `{}` (interpreter `{}`)",
                v.name,
                &g[at.saturating_sub(20)..(at + 20).min(g.len())],
                &e[at.saturating_sub(20)..(at + 20).min(e.len())]
            ));
        }
    }
    Ok(())
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
