//! Every compute process's iteration generator (`dpnc_rtl::walk::module`, the Verilog walker
//! that compute and memory processes step through their loop nests) visits, under Verilator,
//! exactly the points of its loop nest in order: for every kernel of the test set at two tile
//! shapes (one with parallel sub-bands), the walker's counters, mapped to iterators and
//! filtered by the nest's guard, are the instances `LoopNest::for_each` gives (which
//! `tests/loops.rs` checks against the executor's traces), and the iterators the walker works
//! out beside its counters (`its`) are those counters' iterators. `next` is driven by a random bit
//! per walker (high three cycles in four), so points are taken back to back, across row
//! changes, and after waits. All walkers are one Verilator build (C++ at -O0: compiling is
//! the cost, the run takes a second); each prints the points it hands out with `$display`.

use dpnc_dpn::ir::ProcessKind;
use dpnc_dpn::loops::LoopNest;
use dpnc_dpn::Config;
use dpnc_frontend::{dataflow, Options, SourceMap};
use dpnc_rtl::walk;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

const DRIVER: &str = r#"#include "Vwalk_top.h"
#include "verilated.h"
#include <cstdio>
int main(int argc, char** argv) {
    Verilated::commandArgs(argc, argv);
    Vwalk_top top;
    top.clk = 0; top.rst = 1; top.start = 0;
    for (long c = 0; c < 20000000; c++) {
        top.rst = c < 4;
        top.start = c == 6;
        top.clk = 0; top.eval();
        top.clk = 1; top.eval();
        if (c > 8 && top.all_done) { std::printf("all done\n"); return 0; }
    }
    std::printf("timeout\n");
    return 1;
}
"#;

#[test]
fn walkers_visit_their_loop_nests_in_order() {
    // (walker number, process, the nest) of every compute process.
    let mut nests: Vec<(String, LoopNest)> = Vec::new();
    for f in dpnc_tests::kernels() {
        let mut sm = SourceMap::new();
        let p = dpnc_frontend::load(&mut sm, &f, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
        let sare = dataflow::compute(&p).expect("dataflow");
        for (tile, par) in [(vec![4], vec![1]), (vec![4, 6], vec![2, 3])] {
            let cfg = Config { tile: tile.clone(), par: par.clone(), ..Config::default() };
            let dpn = dpnc_dpn::build(&p, &sare, &cfg).unwrap_or_else(|e| panic!("{}: {}", f.display(), e));
            for pr in &dpn.processes {
                if let (ProcessKind::Compute { .. }, Some(l)) = (&pr.kind, &pr.loops) {
                    let stem = f.file_stem().and_then(|s| s.to_str()).unwrap_or("k");
                    nests.push((format!("{stem} {tile:?}/{par:?} {}", pr.name), l.clone()));
                }
            }
        }
    }
    assert!(nests.len() > 100, "only {} nests", nests.len());

    // The top: one walker per nest with its own random `next`, printing each point it hands out.
    let mut v = String::new();
    let mut top = String::from("module walk_top (input wire clk, input wire rst, input wire start, output wire all_done);\n");
    let mut dones = Vec::new();
    // Identical walkers share one module (a third of them: the same nest in several kernels).
    let mut modules: Vec<String> = Vec::new();
    for (n, (_, l)) in nests.iter().enumerate() {
        let body = walk::module("WALKER", l);
        let m = modules.iter().position(|b| *b == body).unwrap_or_else(|| {
            v.push_str(&body.replace("module WALKER (", &format!("module w{} (", modules.len())));
            modules.push(body);
            modules.len() - 1
        });
        let (cw, iw) = (walk::cs_bits(l), walk::its_bits(l));
        let _ = writeln!(
            top,
            "    reg [15:0] r{n};\n    always @(posedge clk) r{n} <= (rst || r{n} == 16'd0) ? 16'd{} : {{r{n}[14:0], r{n}[15] ^ r{n}[13] ^ r{n}[12] ^ r{n}[10]}};\n    wire v{n}, d{n};\n    // verilator lint_off UNUSEDSIGNAL\n    wire [{}:0] cs{n};\n    wire [{}:0] its{n};\n    // verilator lint_on UNUSEDSIGNAL\n    wire n{n} = r{n}[1:0] != 2'd0;\n    w{m} u{n} (.clk(clk), .rst(rst), .start(start), .next(n{n}), .valid(v{n}), .done(d{n}), .cs(cs{n}), .its(its{n}));",
            1 + (n * 7919) % 65000,
            cw - 1,
            iw - 1
        );
        // The counters, then the iterators the walker worked out over them.
        let shown: Vec<String> = walk::counters(&format!("cs{n}"), l).into_iter().chain(walk::iterators(&format!("its{n}"), l)).collect();
        let fmt = vec!["%0d"; shown.len()].join(" ");
        let args: String = shown.iter().map(|c| format!(", {c}")).collect();
        let _ = writeln!(top, "    always @(posedge clk) if (!rst && v{n} && n{n}) $display(\"{n}: {fmt}\"{args});");
        dones.push(format!("d{n}"));
    }
    let _ = writeln!(top, "    assign all_done = {};\nendmodule", dones.join(" && "));
    v.push_str(&top);

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("walkers");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("work dir");
    std::fs::write(dir.join("walk_top.v"), &v).expect("write walkers");
    std::fs::write(dir.join("main.cpp"), DRIVER).expect("write driver");
    let out = Command::new("verilator")
        .args([
            "--cc",
            "--exe",
            "--build",
            "-j",
            "2",
            "-MAKEFLAGS",
            "OPT_FAST=-O0 OPT_SLOW=-O0",
            "-Wno-fatal",
            "-Wno-lint",
            "--top-module",
            "walk_top",
            "-o",
            "walk_sim",
        ])
        .args(["walk_top.v", "main.cpp"])
        .current_dir(&dir)
        .output()
        .expect("verilator not found: run scripts/setup.sh");
    assert!(out.status.success(), "verilator:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(dir.join("obj_dir/walk_sim")).output().expect("run walkers");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("all done"), "the walkers did not all finish: {}", text.lines().last().unwrap_or(""));

    // Per walker, the points it handed out, as the statement's iterators where the guard holds.
    let mut got: Vec<Vec<Vec<i64>>> = vec![Vec::new(); nests.len()];
    let mut wrong_iterators = Vec::new();
    for line in text.lines().filter(|l| l.contains(':')) {
        let (n, rest) = line.split_once(':').expect("a point line");
        let n: usize = n.trim().parse().expect("walker number");
        let values: Vec<i64> = rest.split_whitespace().map(|x| x.parse().expect("a counter or an iterator")).collect();
        let l = &nests[n].1;
        let (c, its) = values.split_at(l.counters.len());
        let it: Vec<i64> = l.iters.iter().map(|x| x.eval(c)).collect();
        if it != its {
            wrong_iterators.push(format!("{}: counters {c:?}, iterators {it:?}, the walker's {its:?}", nests[n].0));
        }
        if l.guard.eval(&it) {
            got[n].push(it);
        }
    }
    let mut failures = Vec::new();
    let mut points = 0usize;
    for ((name, l), got) in nests.iter().zip(&got) {
        let mut want = Vec::new();
        l.for_each(&mut |it| want.push(it.to_vec()));
        points += want.len();
        if &want != got {
            let at = want.iter().zip(got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
            failures.push(format!(
                "{name}: {} points, the walker gave {}; first difference at {at}: {:?} vs {:?}",
                want.len(),
                got.len(),
                want.get(at),
                got.get(at)
            ));
        }
    }
    eprintln!("{} walkers, {points} points", nests.len());
    assert!(wrong_iterators.is_empty(), "{} points with wrong iterators, first: {}", wrong_iterators.len(), wrong_iterators[0]);
    assert!(failures.is_empty(), "{} of {} walkers differ:\n{}", failures.len(), nests.len(), failures.join("\n"));
}
