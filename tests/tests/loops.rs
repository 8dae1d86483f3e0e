//! Every compute process's loop nest (the iteration generator the backends emit) visits
//! exactly its trace's instances, in the trace's order, and its mux and demux predicates
//! choose exactly the channels of the trace, and the nest restricted to a channel's condition
//! keeps exactly the points that meet it, for every kernel of the test set at three tile shapes
//! (two with parallel sub-bands, one of them interleaved wherever it can be).

use dpnc_dpn::ir::ProcessKind;
use dpnc_dpn::shape::Layout;
use dpnc_dpn::trace::{ReadSrc, Trace};
use dpnc_dpn::Config;
use dpnc_frontend::{dataflow, Options, SourceMap};

#[test]
fn loop_nests_replay_the_traces() {
    let files = dpnc_tests::kernels();
    assert!(files.len() >= 20);
    let (mut failures, mut processes, mut instances, mut restricted_walks) = (Vec::new(), 0, 0u64, 0);
    for f in &files {
        let mut sm = SourceMap::new();
        let p = dpnc_frontend::load(&mut sm, f, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
        let sare = dataflow::compute(&p).expect("dataflow");
        for (tile, par) in [(vec![4], vec![1]), (vec![4, 6], vec![2, 3]), (vec![3, 5, 2], vec![3, 2])] {
            // The last shape interleaves its sub-bands also where they pass values on (a ring).
            let subbands = if tile.len() == 3 { Layout::Interleaved } else { Layout::Auto };
            let cfg = Config { tile: tile.clone(), par: par.clone(), subbands, keep_traces: true, ..Config::default() };
            let dpnc_dpn::Construction { dpn, traces, .. } =
                dpnc_dpn::construct(&p, &sare, &cfg).unwrap_or_else(|e| panic!("{}: {}", f.display(), e));
            for (pi, (pr, tr)) in dpn.processes.iter().zip(&traces.per_process).enumerate() {
                let (ProcessKind::Compute { .. }, Trace::Compute { ops, .. }) = (&pr.kind, tr) else { continue };
                processes += 1;
                let Some(loops) = &pr.loops else {
                    failures.push(format!("{} {tile:?}/{par:?}: {} has no loop nest", f.display(), pr.name));
                    continue;
                };
                let mut seen: Vec<Vec<i64>> = Vec::with_capacity(ops.len());
                loops.for_each(&mut |it| seen.push(it.to_vec()));
                instances += seen.len() as u64;
                // Muxes: the first clause of a port whose predicate holds names the channel the
                // trace reads; demuxes: the clauses that hold name the channels it writes.
                for op in ops {
                    for (r, src) in op.reads.iter().enumerate() {
                        let ReadSrc::Chan { ch, .. } = src else { continue };
                        let clauses = pr.mux.get(r).map(Vec::as_slice).unwrap_or(&[]);
                        let chosen = clauses.iter().find(|c| c.pred.as_ref().is_some_and(|p| p.eval(&op.iters))).map(|c| c.channel);
                        if chosen != Some(*ch) {
                            failures.push(format!(
                                "{} {tile:?}/{par:?}: {}{:?} read {r}: mux chooses {chosen:?}, the trace reads channel {ch}",
                                f.display(),
                                pr.name,
                                op.iters
                            ));
                        }
                    }
                    let mut written: Vec<usize> =
                        pr.demux.iter().filter(|c| c.pred.as_ref().is_some_and(|p| p.eval(&op.iters))).map(|c| c.channel).collect();
                    let mut want = op.writes.clone();
                    written.sort_unstable();
                    want.sort_unstable();
                    if written != want {
                        failures.push(format!(
                            "{} {tile:?}/{par:?}: {}{:?}: demux writes {written:?}, the trace {want:?}",
                            f.display(),
                            pr.name,
                            op.iters
                        ));
                    }
                }
                // A memory process's generator walks this nest restricted by its channel's
                // condition (a load's first use, a store's demux predicate): the points that
                // meet the condition, in the same order.
                let conds = dpn.channels.iter().filter(|ch| ch.consumer == pi).filter_map(|ch| ch.first_use.as_ref());
                for cond in conds.chain(pr.demux.iter().filter_map(|c| c.pred.as_ref())) {
                    let restricted = loops.restricted(cond);
                    if restricted == *loops {
                        continue;
                    }
                    let (mut whole, mut fewer) = (Vec::new(), Vec::new());
                    loops.for_each(&mut |it| whole.extend(cond.eval(it).then(|| it.to_vec())));
                    restricted.for_each(&mut |it| fewer.extend(cond.eval(it).then(|| it.to_vec())));
                    restricted_walks += 1;
                    if whole != fewer {
                        failures.push(format!(
                            "{} {tile:?}/{par:?}: {} restricted to {cond:?}: {} points, {} in the whole walk",
                            f.display(),
                            pr.name,
                            fewer.len(),
                            whole.len()
                        ));
                    }
                }
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
    println!("{processes} compute processes, {instances} instances replayed, {restricted_walks} restricted walks");
    assert!(restricted_walks > 0, "no channel condition bounded a walk further");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
