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
