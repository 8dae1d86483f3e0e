//! Every compute process's loop nest (the iteration generator the backends emit) visits
//! exactly its trace's instances, in the trace's order, for every kernel of the test set at
//! three tile shapes (two with parallel sub-bands).

use dpnc_dpn::ir::{ProcessKind, Trace};
use dpnc_dpn::Config;
use dpnc_frontend::{dataflow, Options, SourceMap};

#[test]
fn loop_nests_replay_the_traces() {
    let files = dpnc_tests::kernels();
    assert!(files.len() >= 20);
    let (mut failures, mut processes, mut instances) = (Vec::new(), 0, 0u64);
    for f in &files {
        let mut sm = SourceMap::new();
        let p = dpnc_frontend::load(&mut sm, f, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
        let sare = dataflow::compute(&p).expect("dataflow");
        for (tile, par) in [(vec![4], vec![1]), (vec![4, 6], vec![2, 3]), (vec![3, 5, 2], vec![3, 2])] {
            let cfg = Config { tile: tile.clone(), par: par.clone(), keep_traces: true, ..Config::default() };
            let dpn = dpnc_dpn::build(&p, &sare, &cfg).unwrap_or_else(|e| panic!("{}: {}", f.display(), e.message));
            for (pr, tr) in dpn.processes.iter().zip(&dpn.traces) {
                let (ProcessKind::Compute { .. }, Trace::Compute { ops, .. }) = (&pr.kind, tr) else { continue };
                processes += 1;
                let Some(loops) = &pr.loops else {
                    failures.push(format!("{} {tile:?}/{par:?}: {} has no loop nest", f.display(), pr.name));
                    continue;
                };
                let mut seen: Vec<Vec<i64>> = Vec::with_capacity(ops.len());
                loops.for_each(&mut |it| seen.push(it.to_vec()));
                instances += seen.len() as u64;
                let want: Vec<&Vec<i64>> = ops.iter().map(|op| &op.iters).collect();
                if seen.iter().collect::<Vec<_>>() != want {
                    let first = seen.iter().zip(&want).position(|(a, b)| a != *b).unwrap_or(seen.len().min(want.len()));
                    failures.push(format!(
                        "{} {tile:?}/{par:?}: {}: {} instances from the loops, {} in the trace; first difference at #{first}: {:?} vs {:?}",
                        f.display(),
                        pr.name,
                        seen.len(),
                        want.len(),
                        seen.get(first),
                        want.get(first)
                    ));
                }
            }
        }
    }
    println!("{processes} compute processes, {instances} instances replayed");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
