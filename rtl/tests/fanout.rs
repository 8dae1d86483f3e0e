//! The top module's register trees (src/fanout.rs) under Verilator: every load of a fan-out
//! tree shows its source exactly `depth` cycles later, and an AND tree shows the AND of its
//! inputs exactly its stated latency later. The top's `settle` count is the sum of the two, so
//! these latencies are what keeps `ap_done` from reporting a previous run's flags.

mod common;

use dpnc_rtl::fanout::{and_tree, FanOut};
use std::fmt::Write;
use std::path::Path;

/// Loads of the four fan-out trees, and inputs of the four AND trees: one level and several,
/// full and partial groups of 16.
const LOADS: [usize; 4] = [1, 16, 17, 300];
const INPUTS: [usize; 4] = [1, 5, 17, 64];

#[test]
fn trees_have_their_latency() {
    let mut o = String::from(
        "module fanout_top (\n    input wire clk,\n    input wire src,\n    input wire [63:0] ins,\n    output wire [3:0] f_all,\n    output wire [3:0] f_any,\n    output wire [3:0] a_out\n);\n",
    );
    let mut args = vec!["20000".to_string(), "0x5eed".to_string()];
    for (k, &n) in LOADS.iter().enumerate() {
        let t = FanOut::write(&mut o, &format!("f{k}"), "src", n, "clk", k % 2 == 1);
        let loads: Vec<String> = (0..n).map(|j| t.load(j)).collect();
        let _ = writeln!(o, "    assign f_all[{k}] = {};\n    assign f_any[{k}] = {};", loads.join(" & "), loads.join(" | "));
        args.push(t.depth.to_string());
    }
    for (k, &n) in INPUTS.iter().enumerate() {
        let inputs: Vec<String> = (0..n).map(|j| format!("ins[{j}]")).collect();
        let (out, latency) = and_tree(&mut o, &format!("a{k}"), &inputs, "clk");
        let _ = writeln!(o, "    assign a_out[{k}] = {out};");
        args.extend([n.to_string(), latency.to_string()]);
    }
    o.push_str("endmodule\n");
    // Depths as the trees are built: 16 loads to a register, all leaves at one depth.
    assert_eq!(args[2..6], ["1", "1", "2", "3"]);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fanout");
    std::fs::create_dir_all(&dir).unwrap();
    let top = dir.join("fanout_top.v");
    std::fs::write(&top, &o).unwrap();
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = common::verilate_and_run("fanout", "fanout_top", &[top.to_str().unwrap()], "fanout_tb.cpp", &args);
    assert!(out.contains("20000 cycles, 0 errors"), "{out}");
}
