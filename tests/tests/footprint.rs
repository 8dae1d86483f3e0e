//! The blocks of an array that isl finds each channel touching (`dpnc_dpn::footprint`, which
//! the Verilog backend uses to tell which memory lanes share a line) agree with the traces:
//! two channels, one of them a store, touch a common block of consecutive cells exactly where
//! the cells their trace's loads fan out to, or their stores write, do.

use dpnc_dpn::footprint::Blocks;
use dpnc_dpn::ir::ProcessKind;
use dpnc_dpn::trace::Trace;
use dpnc_dpn::Config;
use dpnc_frontend::{dataflow, Options, SourceMap};
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn blocks_that_channels_touch_agree_with_the_traces() {
    let mut failures = Vec::new();
    let mut pairs = [0usize; 2];
    // Of the stencils, whose skewed tiles cost isl seconds over their channels one by one
    // (heat-3d a minute), Jacobi-1D and Jacobi-2D stand for the others.
    const COSTLY: [&str; 4] = ["heat_3d.c", "seidel_2d.c", "fdtd_2d.c", "jacobi_2d_int.c"];
    for f in dpnc_tests::kernels().iter().filter(|f| !COSTLY.iter().any(|k| f.ends_with(k))) {
        let mut sm = SourceMap::new();
        let p = dpnc_frontend::load(&mut sm, f, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
        let sare = dataflow::compute(&p).expect("dataflow");
        let (tile, par) = (vec![4, 6], vec![2, 3]);
        let cfg = Config { tile: tile.clone(), par: par.clone(), keep_traces: true, codegen: true, ..Config::default() };
        let dpnc_dpn::Construction { dpn, traces, .. } =
            dpnc_dpn::construct(&p, &sare, &cfg).unwrap_or_else(|e| panic!("{}: {}", f.display(), e));
        // Per array, per channel: the cells the trace moves on it, and whether it stores.
        let mut cells: BTreeMap<usize, BTreeMap<usize, (BTreeSet<usize>, bool)>> = BTreeMap::new();
        for tr in &traces.per_process {
            match tr {
                Trace::Load { var, ops } => {
                    for op in ops {
                        for &c in &op.outs {
                            cells.entry(*var).or_default().entry(c).or_default().0.insert(op.cell);
                        }
                    }
                }
                Trace::Store { var, ops } => {
                    for op in ops {
                        let e = cells.entry(*var).or_default().entry(op.ch).or_default();
                        e.0.insert(op.cell);
                        e.1 = true;
                    }
                }
                Trace::Compute { .. } => {}
            }
        }
        for (var, per_channel) in &cells {
            if !per_channel.values().any(|(_, stores)| *stores) {
                continue;
            }
            let channels: Vec<usize> = per_channel.keys().copied().collect();
            assert!(channels.iter().all(|&c| {
                let ch = &dpn.channels[c];
                [ch.producer, ch.consumer].iter().any(|&q| !matches!(dpn.processes[q].kind, ProcessKind::Compute { .. }))
            }));
            for block in [4, 16] {
                let groups: Vec<&[usize]> = channels.iter().map(std::slice::from_ref).collect();
                let blocks = Blocks::of(&dpn, &p.vars[*var], &groups, block).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
                let of = |c: usize| -> BTreeSet<usize> { per_channel[&c].0.iter().map(|cell| cell / block).collect() };
                for b in 0..channels.len() {
                    for a in 0..b {
                        let (ca, cb) = (channels[a], channels[b]);
                        if !per_channel[&ca].1 && !per_channel[&cb].1 {
                            continue;
                        }
                        let want = !of(ca).is_disjoint(&of(cb));
                        let got = blocks.meet(a, b).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
                        pairs[usize::from(want)] += 1;
                        if got != want {
                            let names = (&dpn.channels[ca].name, &dpn.channels[cb].name);
                            failures.push(format!(
                                "{} {tile:?}/{par:?}, blocks of {block}: {names:?} meet: {got}, traces: {want}",
                                f.display()
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
    // Both answers occur: the test would notice a footprint that always or never meets.
    assert!(pairs[0] > 0 && pairs[1] > 0, "pairs apart / meeting: {pairs:?}");
    eprintln!("pairs of channels apart: {}, meeting: {}", pairs[0], pairs[1]);
}
