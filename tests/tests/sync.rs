//! The synchronisation predicates code generation uses (`dpnc_dpn::sync`) agree with the
//! traces for every kernel of the test set at three tile shapes (two with parallel
//! sub-bands): a FIFO+register consumer pops exactly when the trace reads a new value, a
//! scratchpad consumer releases exactly at a value's last read, and merging every Load
//! process's first-use points in σ order gives its trace, fan-out included. A loaded read's
//! DDR source (`Channel::ddr_source`) is the σ key of the last write to its cell before it in
//! σ, found here by going through every write of the traces.

use dpnc_dpn::ir::Key;
use dpnc_dpn::ir::{ChannelKind, ProcessKind};
use dpnc_dpn::sync::sigma;
use dpnc_dpn::trace::{ReadSrc, Trace};
use dpnc_dpn::Config;
use dpnc_frontend::{dataflow, Options, SourceMap};

#[test]
fn sync_predicates_replay_the_traces() {
    let files = dpnc_tests::kernels();
    let mut failures = Vec::new();
    let mut checked = [0u64; 5];
    let mut skipped = std::collections::BTreeSet::new();
    for f in &files {
        let mut sm = SourceMap::new();
        let p = dpnc_frontend::load(&mut sm, f, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
        let sare = dataflow::compute(&p).expect("dataflow");
        for (tile, par) in [(vec![4], vec![1]), (vec![4, 6], vec![2, 3]), (vec![3, 5, 2], vec![3, 2])] {
            let cfg = Config { tile: tile.clone(), par: par.clone(), keep_traces: true, codegen: true, ..Config::default() };
            let dpnc_dpn::Construction { dpn, traces, .. } =
                dpnc_dpn::construct(&p, &sare, &cfg).unwrap_or_else(|e| panic!("{}: {}", f.display(), e));
            let at = format!("{} {tile:?}/{par:?}", f.display());
            let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
            let cell = |a: &dpnc_frontend::ir::Access, iters: &[i64]| -> (usize, Vec<i64>) {
                (a.var, a.index.iter().map(|x| x.eval(iters, &params).expect("subscript")).collect())
            };
            // Every write's σ key, per cell.
            let mut writes: std::collections::HashMap<(usize, Vec<i64>), Vec<Vec<i64>>> = Default::default();
            for (pr, tr) in dpn.processes.iter().zip(&traces.per_process) {
                let (ProcessKind::Compute { stmt, .. }, Trace::Compute { ops, .. }) = (&pr.kind, tr) else { continue };
                let key = sigma(&p, &dpn.nests, &dpn.tile, *stmt);
                for op in ops {
                    let k: Vec<i64> = key.iter().map(|x| x.eval(&op.iters)).collect();
                    writes.entry(cell(&p.stmts[*stmt].write, &op.iters)).or_default().push(k);
                }
            }
            // Per load channel: (σ key, port, consumer iterators, fan-out) at its first uses.
            let mut emitted: Vec<Vec<(Vec<i64>, Vec<usize>)>> = vec![Vec::new(); dpn.processes.len()];
            for (pr, tr) in dpn.processes.iter().zip(&traces.per_process) {
                let (ProcessKind::Compute { stmt, .. }, Trace::Compute { ops, .. }) = (&pr.kind, tr) else { continue };
                let key: Vec<Key> = sigma(&p, &dpn.nests, &dpn.tile, *stmt);
                let mut previous: Vec<Option<u64>> = vec![None; dpn.channels.len()];
                let mut seen = std::collections::HashSet::new();
                for op in ops {
                    for (r, src) in op.reads.iter().enumerate() {
                        let ReadSrc::Chan { ch, vid, last } = *src else { continue };
                        let c = &dpn.channels[ch];
                        match c.kind {
                            ChannelKind::FifoReg => {
                                checked[0] += 1;
                                let want = previous[ch] != Some(vid);
                                let Some(pred) = &c.first_read else {
                                    skipped.insert(format!("{at}: {}", c.name));
                                    continue;
                                };
                                if pred.eval(&op.iters) != want {
                                    failures.push(format!("{at}: {}{:?} read {r}: first read should be {want}", pr.name, op.iters));
                                }
                            }
                            ChannelKind::Scratchpad => {
                                checked[1] += 1;
                                let Some(pred) = &c.last_read else {
                                    skipped.insert(format!("{at}: {}", c.name));
                                    continue;
                                };
                                if pred.eval(&op.iters) != last {
                                    failures.push(format!("{at}: {}{:?} read {r}: last read should be {last}", pr.name, op.iters));
                                }
                            }
                            ChannelKind::Fifo => {}
                        }
                        if let Some(pieces) = &c.ddr_source {
                            checked[4] += 1;
                            let here: Vec<i64> = key.iter().map(|x| x.eval(&op.iters)).collect();
                            let want = writes
                                .get(&cell(&p.stmts[*stmt].reads[r], &op.iters))
                                .and_then(|ks| ks.iter().filter(|k| **k < here).max());
                            let got: Option<Vec<i64>> = pieces
                                .iter()
                                .find(|pc| pc.when.eval(&op.iters))
                                .map(|pc| pc.key.iter().map(|e| e.eval(&op.iters) as i64).collect());
                            if got.as_ref() != want {
                                failures
                                    .push(format!("{at}: {}{:?} read {r}: DDR source {got:?}, the writes say {want:?}", pr.name, op.iters));
                            }
                        }
                        previous[ch] = Some(vid);
                        let new_here = seen.insert((ch, vid));
                        if let (true, Some(fu)) = (c.shared_load, &c.first_use) {
                            checked[3] += 1;
                            if fu.eval(&op.iters) != new_here {
                                failures.push(format!("{at}: {}{:?} read {r}: own first use should be {new_here}", pr.name, op.iters));
                            }
                        } else if let Some(fu) = &c.first_use {
                            if fu.eval(&op.iters) {
                                let mut k: Vec<i64> = key.iter().map(|x| x.eval(&op.iters)).collect();
                                k.push(r as i64);
                                let mut outs: Vec<usize> = c.fanout.iter().filter(|(_, p)| p.eval(&op.iters)).map(|(q, _)| *q).collect();
                                outs.sort_unstable();
                                emitted[c.producer].push((k, outs));
                            }
                        }
                    }
                }
            }
            for (lp, tr) in traces.per_process.iter().enumerate() {
                let Trace::Load { ops, .. } = tr else { continue };
                if dpn.channels.iter().any(|c| c.producer == lp && (c.first_use.is_none() || c.shared_load)) {
                    skipped.insert(format!("{at}: {}", dpn.processes[lp].name));
                    continue;
                }
                let mut got = std::mem::take(&mut emitted[lp]);
                got.sort();
                checked[2] += ops.len() as u64;
                let want: Vec<Vec<usize>> = ops
                    .iter()
                    .map(|o| {
                        let mut v = o.outs.clone();
                        v.sort_unstable();
                        v
                    })
                    .collect();
                let got: Vec<Vec<usize>> = got.into_iter().map(|x| x.1).collect();
                if got != want {
                    let first = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
                    failures.push(format!(
                        "{at}: {}: {} loads from first uses, {} in the trace; first difference at #{first}: {:?} vs {:?}",
                        dpn.processes[lp].name,
                        got.len(),
                        want.len(),
                        got.get(first),
                        want.get(first)
                    ));
                }
            }
        }
    }
    println!(
        "no isl predicate within budget (channels), or Load processes with per-channel first uses, {}:\n  {}",
        skipped.len(),
        skipped.iter().cloned().collect::<Vec<_>>().join("\n  ")
    );
    println!(
        "checked {} FIFO+register reads, {} scratchpad reads, {} loads, {} per-channel first uses, {} DDR sources",
        checked[0], checked[1], checked[2], checked[3], checked[4]
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.iter().take(30).cloned().collect::<Vec<_>>().join("\n"));
}
