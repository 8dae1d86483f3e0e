//! Builds a generated program with the host's compilers and runs it on a [`Store`] of
//! inputs, for `dpnc check` and the tests: the inputs go to `DIR/in/*.npy`, the outputs
//! come back from `DIR/out/*.npy`.

use dpnc_frontend::ir::{Program, VarKind};
use dpnc_frontend::npy::{read_npy, NpyData};
use dpnc_frontend::value::Value;
use dpnc_frontend::Store;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Writes `files` (paths relative to `dir`, which is created, as are their folders).
pub fn write_files(dir: &Path, files: &[(String, String)]) -> Result<(), String> {
    for (name, text) in files {
        let path = dir.join(name);
        let parent = path.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// Runs a compiler command in `dir`; the error carries its first lines of output.
pub fn compile(dir: &Path, program: &str, args: &[&str]) -> Result<f64, String> {
    let t = Instant::now();
    let out = Command::new(program).args(args).current_dir(dir).output().map_err(|e| format!("cannot run {program}: {e}"))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        return Err(format!("{program} fails:\n{}", text.lines().take(15).collect::<Vec<_>>().join("\n")));
    }
    Ok(t.elapsed().as_secs_f64())
}

/// The C++ flags that keep the interpreter's semantics (no FMA contraction, wrapping ints), with
/// FIFOs at exactly the network's sizes (checking them).
pub const CXXFLAGS: &[&str] = &["-std=c++17", "-O2", "-ffp-contract=off", "-fwrapv", "-pthread", "-DDPN_EXACT_DEPTHS"];

/// Runs `exe IN OUT` on `inputs`; returns the final store and the run time in seconds.
pub fn run(p: &Program, exe: &Path, inputs: &Store, dir: &Path) -> Result<(Store, f64), String> {
    let (inp, out): (PathBuf, PathBuf) = (dir.join("in"), dir.join("out"));
    inputs.save(p, &inp, |v| v.kind == VarKind::Argument)?;
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let t = Instant::now();
    let res = Command::new(exe).arg(&inp).arg(&out).output().map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let secs = t.elapsed().as_secs_f64();
    if !res.status.success() {
        let text = String::from_utf8_lossy(&res.stderr);
        return Err(format!("the program fails ({}):\n{}", res.status, text.lines().take(15).collect::<Vec<_>>().join("\n")));
    }
    let mut store = inputs.clone();
    for (k, v) in p.vars.iter().enumerate().filter(|(_, v)| v.kind == VarKind::Argument && v.written) {
        let path = out.join(format!("{}.npy", v.name));
        let a = read_npy(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        store.data[k] = match a.data {
            NpyData::I8(x) => x.into_iter().map(Value::Char).collect(),
            NpyData::I32(x) => x.into_iter().map(Value::Int).collect(),
            NpyData::I64(x) => x.into_iter().map(Value::Long).collect(),
            NpyData::F32(x) => x.into_iter().map(Value::Float).collect(),
            NpyData::F64(x) => x.into_iter().map(Value::Double).collect(),
        };
        if store.data[k].len() != v.len() {
            return Err(format!("{}: {} values, expected {}", path.display(), store.data[k].len(), v.len()));
        }
    }
    Ok((store, secs))
}

/// Generates, builds and runs the CPU backend; returns the store, build and run seconds.
pub fn cpu(p: &Program, dpn: &dpnc_dpn::Dpn, inputs: &Store, dir: &Path, cxxflags: &[&str]) -> Result<(Store, f64, f64), String> {
    let files = crate::cpu::generate(p, dpn).map_err(|e| format!("cannot generate C++: {e}"))?;
    write_files(dir, &files)?;
    let mut args: Vec<&str> = cxxflags.to_vec();
    args.extend(["-o", "kernel", "kernel.cpp"]);
    let build = compile(dir, "g++", &args)?;
    let (store, secs) = run(p, &dir.join("kernel"), inputs, dir)?;
    Ok((store, build, secs))
}

/// nvcc from `DPNC_NVCC` (with `DPNC_CUDA_HOME`, as `scripts/cuda.sh` sets them) or on PATH.
pub fn nvcc() -> Option<(String, Option<String>)> {
    let home = std::env::var("DPNC_CUDA_HOME").ok();
    if let Ok(n) = std::env::var("DPNC_NVCC") {
        return Some((n, home));
    }
    Command::new("nvcc").arg("--version").output().ok().filter(|o| o.status.success()).map(|_| ("nvcc".to_string(), home))
}

/// Generates and builds the GPU backend with `nvcc` and runs it; `Ok(None)` when it built
/// but found no CUDA device. Returns the store, build and run seconds.
pub fn gpu(
    p: &Program,
    dpn: &dpnc_dpn::Dpn,
    inputs: &Store,
    dir: &Path,
    (nvcc, home): (&str, Option<&str>),
    extra: &[&str],
) -> Result<Option<(Store, f64, f64)>, String> {
    let files = crate::gpu::generate(p, dpn).map_err(|e| format!("cannot generate CUDA: {e}"))?;
    write_files(dir, &files)?;
    let mut args: Vec<String> = crate::gpu::NVCC_FLAGS.iter().chain(extra).map(|s| s.to_string()).collect();
    if let Some(h) = home {
        args.extend([format!("-I{h}/include"), format!("-L{h}/lib"), "-Xlinker".into(), format!("-rpath={h}/lib")]);
    }
    args.extend(["-o".into(), "kernel".into(), "kernel.cu".into(), "-lcudart".into()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let build = compile(dir, nvcc, &refs)?;
    match run(p, &dir.join("kernel"), inputs, dir) {
        Ok((store, secs)) => Ok(Some((store, build, secs))),
        Err(e) if e.contains("no CUDA device") => Ok(None),
        Err(e) => Err(e),
    }
}

/// Generates the Vitis backend for `board`, builds its kernel as software with g++ (stand-in
/// headers; `extra` flags after [`crate::vitis::SW_FLAGS`]) and runs it; returns the store,
/// build and run seconds.
pub fn vitis(
    p: &Program,
    dpn: &dpnc_dpn::Dpn,
    board: &dpnc_boards::Board,
    inputs: &Store,
    dir: &Path,
    extra: &[&str],
) -> Result<(Store, f64, f64), String> {
    let files = crate::vitis::generate(p, dpn, board).map_err(|e| format!("cannot generate HLS C++: {e}"))?;
    write_files(dir, &files)?;
    let mut args: Vec<&str> = crate::vitis::SW_FLAGS.iter().chain(extra).copied().collect();
    args.extend(["-o", "kernel_sw", "kernel.cpp", "tb.cpp"]);
    let build = compile(dir, "g++", &args)?;
    let (store, secs) = run(p, &dir.join("kernel_sw"), inputs, dir)?;
    Ok((store, build, secs))
}
