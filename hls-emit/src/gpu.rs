//! The GPU backend (`--target gpu`): the CPU backend's processes as CUDA `__device__`
//! functions, run by one kernel launch with one single-thread block per process (all blocks
//! resident, as the network needs every process to make progress). Channels are device
//! globals from `runtime/dpn_rt_cuda.cuh`: ring buffers and valid-flagged scratchpads in
//! global memory, with release/acquire ordering between blocks. This mapping keeps the
//! network's exact semantics (and bit-exactness: `--fmad=false`, IEEE division and square
//! root); it is a cross-check, not a tuned GPU kernel.

use crate::gen::{Flavour, Gen};
use crate::CodegenError;
use dpnc_dpn::ir::Dpn;
use dpnc_frontend::ir::{Program, VarKind};
use std::fmt::Write;

/// The device runtime every generated CUDA program includes.
pub const RUNTIME: &str = include_str!("../runtime/dpn_rt_cuda.cuh");

/// nvcc flags that keep the interpreter's semantics.
pub const NVCC_FLAGS: &[&str] = &["-std=c++17", "-O2", "--fmad=false", "-Xcompiler", "-ffp-contract=off,-fwrapv,-pthread"];

/// The files of the GPU backend: `kernel.cu`, both runtime headers, `Makefile`.
pub fn generate(p: &Program, dpn: &Dpn) -> Result<Vec<(String, String)>, CodegenError> {
    let out = Gen::new(p, dpn, Flavour::Cuda).program()?;
    let makefile = format!(
        "# nvcc from the CUDA toolkit or from the nvidia-cuda-nvcc Python package (scripts/cuda.sh).\n\
         NVCC ?= nvcc\nARCH ?= sm_80\nCUDA_HOME ?= /usr/local/cuda\n\n\
         kernel: kernel.cu dpn_rt.hpp dpn_rt_cuda.cuh\n\t$(NVCC) {} -arch=$(ARCH) -I$(CUDA_HOME)/include -L$(CUDA_HOME)/lib -o $@ kernel.cu -lcudart\n",
        NVCC_FLAGS.join(" ")
    );
    let mut files = vec![("kernel.cu".into(), out)];
    files.extend(crate::runtime_files());
    files.extend([("dpn_rt_cuda.cuh".into(), RUNTIME.into()), ("Makefile".into(), makefile)]);
    Ok(files)
}

impl Gen<'_> {
    pub(crate) fn main_cuda(&self, out: &mut String) {
        let (p, dpn) = (self.p, self.dpn);
        out.push_str("// Every process is one single-thread block.\n__global__ void dpn_network() {\n    switch (blockIdx.x) {\n");
        for (pi, pr) in dpn.processes.iter().enumerate() {
            let _ = writeln!(out, "    case {pi}: process_{}(); break;", pr.name);
        }
        out.push_str("    default: break;\n    }\n    dpn_gpu::process_done();\n}\n\n");
        let names = |v: Vec<&str>| v.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
        let _ = writeln!(
            out,
            "static const char* const process_names[] = {{{}}};",
            names(dpn.processes.iter().map(|x| x.name.as_str()).collect())
        );
        let _ = writeln!(
            out,
            "static const char* const channel_names[] = {{{}}};\n",
            names(dpn.channels.iter().map(|x| x.name.as_str()).collect())
        );
        out.push_str(
            "static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) dpn::fail(std::string(what) + \": \" + cudaGetErrorString(e));
}

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, \"usage: %s INPUT_DIR OUTPUT_DIR (one NAME.npy per kernel argument)\\n\", argv[0]);
        return 2;
    }
    const std::string in = argv[1], out = argv[2];
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, \"dpn: error: no CUDA device\\n\");
        return 4;
    }
",
        );
        for v in &p.vars {
            let ty = v.ty.c_name();
            let n = &v.name;
            let dims: Vec<String> = v.dims.iter().map(|d| d.to_string()).collect();
            if v.is_scalar_argument() {
                let _ = writeln!(
                    out,
                    "    const {ty} h_{n} = dpn::npy_load<{ty}>(in + \"/{n}.npy\", {{}})[0];\n    check(cudaMemcpyToSymbol(s_{n}, &h_{n}, sizeof h_{n}), \"{n}\");"
                );
                continue;
            }
            let len = v.len().max(1);
            if v.kind == VarKind::Argument {
                let _ = writeln!(out, "    std::vector<{ty}> h_{n} = dpn::npy_load<{ty}>(in + \"/{n}.npy\", {{{}}});", dims.join(", "));
            } else {
                let _ = writeln!(out, "    std::vector<{ty}> h_{n}({len});  // a temporary of the kernel");
            }
            let _ = writeln!(
                out,
                "    {ty}* d_{n} = nullptr;\n    check(cudaMalloc(&d_{n}, {len} * sizeof({ty})), \"{n}\");\n    check(cudaMemcpy(d_{n}, h_{n}.data(), {len} * sizeof({ty}), cudaMemcpyHostToDevice), \"{n}\");\n    check(cudaMemcpyToSymbol(v_{n}, &d_{n}, sizeof d_{n}), \"{n}\");"
            );
        }
        let _ = writeln!(
            out,
            "    const std::string init = dpn_gpu::host_init();\n    if (!init.empty()) dpn::fail(init);\n    check(dpn_gpu::host_launch(dpn_network, {}), \"launch\");\n    const cudaError_t e = cudaDeviceSynchronize();\n    if (e != cudaSuccess) {{\n        std::fprintf(stderr, \"dpn: error: %s: %s\\n\", cudaGetErrorString(e), dpn_gpu::host_error_message(process_names, channel_names).c_str());\n        return 3;\n    }}",
            dpn.processes.len()
        );
        for v in p.vars.iter().filter(|v| v.kind == VarKind::Argument && v.written) {
            let (ty, n) = (v.ty.c_name(), &v.name);
            let dims: Vec<String> = v.dims.iter().map(|d| d.to_string()).collect();
            let _ = writeln!(
                out,
                "    check(cudaMemcpy(h_{n}.data(), d_{n}, {} * sizeof({ty}), cudaMemcpyDeviceToHost), \"{n}\");\n    dpn::npy_save<{ty}>(out + \"/{n}.npy\", {{{}}}, h_{n});",
                v.len().max(1),
                dims.join(", ")
            );
        }
        out.push_str("    return 0;\n}\n");
    }
}
