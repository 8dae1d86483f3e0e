//! Simulating a kernel's generated design ([`dpnc_rtl::generate`]) on a [`Store`] of inputs:
//! arrays as little-endian bytes in the memory model, scalars as argument registers, results
//! read back into a store to compare with the interpreter.

use crate::{Arg, ArgKind, Input, Memory, ModelBuild, Outcome, SimError, Spec};
use dpnc_frontend::ir::{Program, VarKind};
use dpnc_frontend::value::Value;
use dpnc_frontend::Store;
use std::path::Path;

fn to_bytes(vals: &[Value]) -> Vec<u8> {
    vals.iter().flat_map(|v| v.bits().to_le_bytes().into_iter().take(v.ty().size())).collect()
}

/// Values shaped like `like`, from little-endian bytes (missing bytes read as zero).
fn from_bytes(like: &[Value], b: &[u8]) -> Vec<Value> {
    let mut at = 0;
    like.iter()
        .map(|v| {
            let n = v.ty().size();
            let mut a = [0u8; 8];
            let s = &b[at.min(b.len())..(at + n).min(b.len())];
            a[..s.len()].copy_from_slice(s);
            at += n;
            let bits = u64::from_le_bytes(a);
            match v {
                Value::Char(_) => Value::Char(bits as u8 as i8),
                Value::Int(_) => Value::Int(bits as u32 as i32),
                Value::Long(_) => Value::Long(bits as i64),
                Value::Float(_) => Value::Float(f32::from_bits(bits as u32)),
                Value::Double(_) => Value::Double(f64::from_bits(bits)),
            }
        })
        .collect()
}

/// The simulator's view of a design whose sources are `verilog`, its simulation wrapper
/// ([`dpnc_rtl::sim_wrapper`]) included: the wrapper is the top it simulates.
pub fn spec(design: &dpnc_rtl::Design, verilog: Vec<std::path::PathBuf>) -> Spec {
    Spec {
        top: dpnc_rtl::sim_wrapper::module_name(&design.top),
        verilog,
        ports: design.ports.clone(),
        data_bits: dpnc_rtl::memory::AXI_DATA_BITS,
        args: design
            .args
            .iter()
            .map(|a| match a {
                dpnc_rtl::Arg::Array { name, port, bytes, output } => {
                    Arg { name: name.clone(), kind: ArgKind::Array { port: *port, bytes: *bytes, output: *output } }
                }
                dpnc_rtl::Arg::Scalar { name, bits } => Arg { name: name.clone(), kind: ArgKind::Scalar { bits: *bits } },
            })
            .collect(),
        channels: design.channels.clone(),
        processes: design.processes.clone(),
        trace: None,
        build: ModelBuild::default(),
    }
}

/// How to run a kernel's simulation.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// The memory model.
    pub mem: Memory,
    /// Give up after this many cycles from `ap_start`.
    pub max_cycles: u64,
    /// Write a waveform of every signal here (see [`Spec::trace`]).
    pub trace: Option<std::path::PathBuf>,
    /// How the model is compiled.
    pub build: ModelBuild,
    /// How the design is generated (vector lanes).
    pub design: dpnc_rtl::Options,
}

/// A finished simulation of a kernel.
pub struct Simulated {
    /// The arrays at the end.
    pub store: Store,
    /// The simulator's figures.
    pub outcome: Outcome,
    /// The channel streams and the processes its per-channel and per-process figures list.
    pub channels: Vec<String>,
    pub processes: Vec<String>,
}

/// Generates the design into `dir`, builds it, runs it on `inputs`.
pub fn simulate(
    p: &Program,
    dpn: &dpnc_dpn::Dpn,
    inputs: &Store,
    dir: &Path,
    run: &Run,
    progress: &mut dyn FnMut(&str),
) -> Result<Simulated, String> {
    let design = dpnc_rtl::generate_with(p, dpn, &run.design).map_err(|e| format!("cannot generate Verilog: {e}"))?;
    let mut sources = design.write(dir)?;
    let (name, wrapper) = dpnc_rtl::sim_wrapper::generate(&design);
    std::fs::write(dir.join(&name), wrapper).map_err(|e| format!("{}: {e}", dir.join(&name).display()))?;
    sources.push(dir.join(name));
    let spec = Spec { trace: run.trace.clone(), build: run.build, ..spec(&design, sources) };
    let exe = crate::build(&spec, &dir.join("obj"), progress).map_err(|e| e.to_string())?;
    let mut ins = Vec::new();
    for (k, v) in p.vars.iter().enumerate().filter(|(_, v)| v.kind == VarKind::Argument) {
        if v.is_scalar_argument() {
            ins.push((v.name.clone(), Input::Bits(inputs.data[k][0].bits())));
        } else {
            ins.push((v.name.clone(), Input::Bytes(to_bytes(&inputs.data[k]))));
        }
    }
    let out = crate::run(&exe, &spec, &ins, &run.mem, run.max_cycles, 200_000, progress).map_err(|e: SimError| e.to_string())?;
    let mut store = inputs.clone();
    for (name, bytes) in &out.arrays {
        if let Some(k) = p.vars.iter().position(|v| &v.name == name) {
            store.data[k] = from_bytes(&inputs.data[k], bytes);
        }
    }
    Ok(Simulated { store, outcome: out, channels: spec.channels, processes: spec.processes })
}
