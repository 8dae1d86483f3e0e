//! C-family backends of the data-aware process network. [`gen`] writes the processes and
//! channels all flavours share; [`cpu`] runs them as one thread per process over the
//! runtime in `runtime/dpn_rt.hpp`; [`gpu`] as CUDA blocks over `runtime/dpn_rt_cuda.cuh`;
//! [`vitis`] as a Vitis HLS dataflow kernel; [`predicate`] prints guards as C; [`expr`] prints statement bodies and subscripts
//! with the interpreter's exact C semantics; [`mathlib`] prints dpnc's `exp`/`pow` as
//! `runtime/dpn_math.h`; [`native`] builds and runs the results.

pub mod cpu;
pub mod expr;
pub mod gen;
pub mod gpu;
pub mod mathlib;
pub mod native;
pub mod predicate;
pub mod vitis;
pub mod xrt_host;

/// Why a network cannot be written as code.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    #[error("process {process}: {why}")]
    Process { process: String, why: String },
    #[error("channel {channel}: {why}")]
    Channel { channel: String, why: String },
}

/// The runtime every generated program includes.
pub const RUNTIME: &str = include_str!("../runtime/dpn_rt.hpp");
/// The runtime's files as (name, text): `dpn_rt.hpp` and the `dpn_math.h` it includes.
pub fn runtime_files() -> [(String, String); 2] {
    [("dpn_rt.hpp".into(), RUNTIME.into()), ("dpn_math.h".into(), mathlib::HEADER.into())]
}
