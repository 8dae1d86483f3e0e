//! Shared by the end-to-end tests (`tests/*.rs`) and the benchmarks (`benches/*.rs`): where
//! the kernels are. Kernels live in `kernels/`, bad inputs in `bad/`.

pub mod backend;
pub mod diff;
pub mod gen;

use dpnc_frontend::Options;
use std::path::{Path, PathBuf};

/// The C files under `dir`, recursively, sorted; PolyBench's `utilities/` is skipped.
pub fn c_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for p in rd.flatten().map(|e| e.path()) {
            if p.is_dir() && !p.ends_with("utilities") {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "c") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The project's own kernels.
pub fn kernels() -> Vec<PathBuf> {
    c_files(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels"))
}

/// With `POLYBENCH_DIR=…`: the PolyBench/C kernels and the options that compile them at
/// `POLYBENCH_DATASET` (default `MEDIUM_DATASET`) plus `extra` defines.
pub fn polybench(extra: &[&str]) -> Option<(String, Vec<PathBuf>, Options)> {
    let dir = PathBuf::from(std::env::var("POLYBENCH_DIR").ok()?);
    let dataset = std::env::var("POLYBENCH_DATASET").unwrap_or_else(|_| "MEDIUM_DATASET".into());
    let defines = std::iter::once(dataset.as_str()).chain(extra.iter().copied()).map(|d| (d.to_string(), None)).collect();
    let opts = Options { include_dirs: vec![dir.join("utilities")], defines, ..Options::default() };
    Some((dataset, c_files(&dir), opts))
}
