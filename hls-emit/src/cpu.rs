//! The CPU backend (`--target cpu`): the network as C++17, one thread per process over
//! `dpn_rt.hpp`; the processes come from [`Gen`] (`gen.rs`).

use crate::gen::{Flavour, Gen};
use crate::CodegenError;
use dpnc_dpn::ir::Dpn;
use dpnc_frontend::ir::{Program, VarKind};
use std::fmt::Write;

/// The files of the CPU backend: `kernel.cpp`, `dpn_rt.hpp`, `Makefile`.
pub fn generate(p: &Program, dpn: &Dpn) -> Result<Vec<(String, String)>, CodegenError> {
    let out = Gen::new(p, dpn, Flavour::Cpu).program()?;
    let makefile = "# Built with the interpreter's floating-point semantics: no contraction into FMA,\n\
                    # wrapping signed integers.\n\
                    CXX ?= g++\n\
                    CXXFLAGS ?= -std=c++17 -O2 -ffp-contract=off -fwrapv -pthread\n\n\
                    kernel: kernel.cpp dpn_rt.hpp\n\t$(CXX) $(CXXFLAGS) -o $@ kernel.cpp\n"
        .to_string();
    let mut files = vec![("kernel.cpp".into(), out)];
    files.extend(crate::runtime_files());
    files.push(("Makefile".into(), makefile));
    Ok(files)
}

impl Gen<'_> {
    /// `main`: loads the inputs, runs every process on a thread of its own, saves the outputs.
    pub(crate) fn main(&self, out: &mut String) {
        out.push_str("int main(int argc, char** argv) {\n");
        out.push_str(
            "    if (argc != 3) {\n        std::fprintf(stderr, \"usage: %s INPUT_DIR OUTPUT_DIR (one NAME.npy per kernel argument)\\n\", argv[0]);\n        return 2;\n    }\n",
        );
        out.push_str("    const std::string in = argv[1], out = argv[2];\n");
        for v in &self.p.vars {
            let ty = v.ty.c_name();
            let dims: Vec<String> = v.dims.iter().map(|d| d.to_string()).collect();
            let shape = format!("{{{}}}", dims.join(", "));
            if v.is_scalar_argument() {
                let _ = writeln!(out, "    s_{n} = dpn::npy_load<{ty}>(in + \"/{n}.npy\", {{}})[0];", n = v.name);
            } else if v.kind == VarKind::Argument {
                let _ = writeln!(out, "    v_{n} = dpn::npy_load<{ty}>(in + \"/{n}.npy\", {shape});", n = v.name);
            } else {
                let _ = writeln!(out, "    v_{n}.assign({}, {ty}{{}});  // a temporary of the kernel", v.len().max(1), n = v.name);
            }
        }
        out.push_str("    const auto started = std::chrono::steady_clock::now();\n    dpn::run_processes({\n");
        for (pi, pr) in self.dpn.processes.iter().enumerate() {
            let _ = writeln!(out, "        {{\"{}\", {}}},", pr.name, self.proc_fn(pi));
        }
        out.push_str("    });\n    if (std::getenv(\"DPN_TIME\"))\n        std::fprintf(stderr, \"dpn: network ran in %.6f s\\n\", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());\n");
        for v in self.p.vars.iter().filter(|v| v.kind == VarKind::Argument && v.written) {
            let dims: Vec<String> = v.dims.iter().map(|d| d.to_string()).collect();
            let _ = writeln!(out, "    dpn::npy_save<{}>(out + \"/{n}.npy\", {{{}}}, v_{n});", v.ty.c_name(), dims.join(", "), n = v.name);
        }
        out.push_str("    return 0;\n}\n");
    }
}
