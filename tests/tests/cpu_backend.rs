//! The CPU backend (`--target cpu`) is bit-exact with the reference interpreter: every
//! kernel of the test set, at two network shapes (in double without parallel sub-bands, in
//! float with them), is generated, compiled with g++ and run as threads on random inputs,
//! and every output array is compared bit for bit.

use dpnc_tests::backend::{every_kernel_at_two_shapes, Case};
use std::path::Path;

fn one(f: &Path, ty: &str, tile: &[i64], par: &[i64], dir: &Path) -> Result<(), String> {
    let c = Case::new(f, ty, tile, par)?;
    // Unoptimised: these programs are many and run for milliseconds, and g++'s optimiser would
    // be most of this test's time (the benchmarks build at -O2). FIFOs at exactly the network's
    // sizes.
    let flags = ["-std=c++17", "-O0", "-ffp-contract=off", "-fwrapv", "-pthread", "-DDPN_EXACT_DEPTHS", "-w"];
    let (got, _, _) = dpnc_hls_emit::native::cpu(&c.p, &c.dpn, &c.inputs, dir, &flags)?;
    c.compare(&got, "CPU backend")
}

#[test]
fn cpu_backend_is_bit_exact_with_the_interpreter() {
    every_kernel_at_two_shapes(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("cpu_backend"), one);
}
