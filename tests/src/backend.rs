//! What the backend tests share: a kernel of the test set as a network with its random
//! inputs and the interpreter's result, and running such cases on both cores.

use dpnc_dpn::{Config, Dpn};
use dpnc_frontend::{dataflow, interp, Options, Program, SourceMap, Store};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A kernel in element type `ty`, its network (with what code generation needs), inputs
/// (seed 5) and the interpreter's final store.
pub struct Case {
    pub p: Program,
    pub dpn: Dpn,
    pub inputs: Store,
    pub want: Store,
}

impl Case {
    pub fn new(f: &Path, ty: &str, tile: &[i64], par: &[i64]) -> Result<Case, String> {
        Case::with_defines(f, ty, &[], tile, par)
    }

    /// [`Case::new`] with macros (`NAME=VALUE`) set, e.g. the kernel's sizes.
    pub fn with_defines(f: &Path, ty: &str, defines: &[(&str, &str)], tile: &[i64], par: &[i64]) -> Result<Case, String> {
        Case::with_config(f, ty, defines, Config { tile: tile.to_vec(), par: par.to_vec(), ..Config::default() })
    }

    /// [`Case::with_defines`] with the network built by `cfg` (and what code generation needs).
    pub fn with_config(f: &Path, ty: &str, defines: &[(&str, &str)], cfg: Config) -> Result<Case, String> {
        let mut defines: Vec<(String, Option<String>)> = defines.iter().map(|(n, v)| (n.to_string(), Some(v.to_string()))).collect();
        defines.push(("DATA_TYPE".into(), Some(ty.into())));
        let opts = Options { defines, ..Options::default() };
        let mut sm = SourceMap::new();
        let p = dpnc_frontend::load(&mut sm, f, &opts).map_err(|d| d.render(&sm))?;
        let sare = dataflow::compute(&p).map_err(|d| d.message)?;
        let dpn = dpnc_dpn::build(&p, &sare, &Config { codegen: true, ..cfg }).map_err(|e| e.to_string())?;
        let params = p.param_values().map_err(|d| d.message)?;
        let inputs = Store::random(&p, 5);
        let mut want = inputs.clone();
        interp::run(&p, &params, &mut want).map_err(|d| d.message)?;
        Ok(Case { p, dpn, inputs, want })
    }

    /// `Err` naming the first difference from the interpreter's result.
    pub fn compare(&self, got: &Store, backend: &str) -> Result<(), String> {
        match Store::compare(&self.p, &self.want, got) {
            None => Ok(()),
            Some(m) => Err(format!("differs at {m} (interpreter, then {backend})")),
        }
    }
}

/// Runs `f(job, its own emptied directory under root)` for every job on two threads;
/// returns the results in job order.
pub fn on_two_cores<J: Sync, R: Send>(root: &Path, jobs: &[J], f: impl Fn(&J, &Path) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let dir = root.join(format!("{i}"));
                let _ = std::fs::remove_dir_all(&dir);
                let r = f(job, &dir);
                results.lock().unwrap().push((i, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    results.into_iter().map(|r| r.1).collect()
}

/// Runs `one(kernel, element type, tiles, par, its directory)` on every kernel of the test set
/// at two network shapes (double, tile 4, no parallel sub-bands; float, tiles 4,6, par 2,3)
/// on both cores (in directories under `root`), and fails naming every run that returned an
/// error.
pub fn every_kernel_at_two_shapes(root: &Path, one: impl Fn(&Path, &str, &[i64], &[i64], &Path) -> Result<(), String> + Sync) {
    let mut jobs = Vec::new();
    for f in crate::kernels() {
        jobs.push((f.clone(), "double", vec![4], vec![1]));
        jobs.push((f, "float", vec![4, 6], vec![2, 3]));
    }
    let results = on_two_cores(root, &jobs, |(f, ty, tile, par), dir| one(f, ty, tile, par, dir));
    let failures: Vec<String> = jobs
        .iter()
        .zip(results)
        .filter_map(|((f, ty, tile, par), r)| r.err().map(|e| format!("{} ({ty}, tile {tile:?}, par {par:?}): {e}", f.display())))
        .collect();
    println!("{} of {} runs bit-exact", jobs.len() - failures.len(), jobs.len());
    assert!(failures.is_empty(), "{} of {} runs fail:\n{}", failures.len(), jobs.len(), failures.join("\n"));
}
