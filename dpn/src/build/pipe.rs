//! Piped bands: a band whose σ is program order, enumerated, indexed and resolved a chunk at a
//! time, never held whole.

use super::*;

/// Whether σ orders a nest's one band as the program does, so that it can be assembled
/// as it is enumerated: one group of statements, and no hyperplane or only the outer loop
/// itself (`±i + c`, in the loop's direction, with one `c` for all statements).
pub(super) fn program_ordered(p: &Program, nest: &Nest) -> bool {
    use dpnc_frontend::ir::SchedTerm;
    let Some(&first) = nest.stmts.first() else { return false };
    let outer = |k: usize| {
        let s = &p.stmts[k];
        match (s.schedule.first(), s.schedule.get(1), nest.phi_of(k).first()) {
            (Some(&top), Some(&SchedTerm::Iter(0, dir)), Some(f))
                if f.coef.first() == Some(&dir) && f.coef[1..].iter().all(|c| *c == 0) =>
            {
                Some((top, dir, f.cst))
            }
            _ => None,
        }
    };
    let one_group = nest.stmts.iter().all(|&k| nest.group(k) == nest.group(first));
    one_group
        && match nest.dims {
            0 => true,
            1 => outer(first).is_some() && nest.stmts.iter().all(|&k| outer(k) == outer(first)),
            _ => false,
        }
}

/// `f` at each instance of a run (`BandScan::walk`), in order, with `buf` for the iterators.
pub(super) fn each(
    it: &[i64],
    len: u64,
    step: i64,
    buf: &mut Vec<i64>,
    mut f: impl FnMut(&[i64]) -> Result<(), Error>,
) -> Result<(), Error> {
    buf.clear();
    buf.extend_from_slice(it);
    for _ in 0..len {
        f(buf)?;
        if let Some(x) = buf.last_mut() {
            *x += step;
        }
    }
    Ok(())
}

/// A band to pipe (see [`pipe`]).
pub(super) struct PipedBand<'a> {
    pub(super) at: BandAt,
    /// Its instances.
    pub(super) n: usize,
    /// Its walk.
    pub(super) scan: &'a BandScan<'a>,
    /// Its tile coordinates.
    pub(super) tiles: &'a [i64],
    /// Its index, begun: filled as the walk goes.
    pub(super) index: &'a LocalIndex,
    /// The templates the worker dropped since its last band (their effects are no longer
    /// needed).
    pub(super) evicted: Vec<usize>,
}

/// Enumerates `band` in program order (σ, see [`program_ordered`]) and sends it to the
/// assembly on `tx`, `chunk` instances at a time with their reads' sources, indexing it as it
/// goes; chunks come back on `back` to be reused. The band is never held whole, and its
/// assembly starts with its first chunk. `false` when the worker is to stop (an error was
/// sent, or the assembly is gone).
pub(super) fn pipe(
    ctx: &Ctx,
    band: PipedBand,
    chunk: usize,
    tx: &std::sync::mpsc::SyncSender<Result<Msg, Error>>,
    back: &std::sync::mpsc::Receiver<Box<Chunk>>,
) -> bool {
    let PipedBand { at, n, scan, tiles, index, evicted } = band;
    let (odd_tx, odd) = std::sync::mpsc::sync_channel(QUEUE);
    if tx.send(Ok(Msg::Piped { at, n, evicted, odd })).is_err() {
        return false;
    }
    let stride = Band::new(ctx.p).stride;
    let fresh = || {
        let mut c = back.try_recv().unwrap_or_default();
        c.band.stride = stride;
        c.band.clear();
        c.sub.clear();
        c.walk.clear();
        c.plan.clear();
        c.srcs.clear();
        c.piece.clear();
        c
    };
    // Resolves the instances of `c` and sends them on `to`; `false` when the assembly is gone.
    let send = |mut c: Box<Chunk>, to: &std::sync::mpsc::SyncSender<Result<Msg, Error>>| -> Result<bool, Error> {
        let len = c.band.kind.len();
        if !ctx.geo.one_subband() {
            c.sub.extend((0..len).map(|o| c.band.subband(ctx.geo, o)));
        }
        let part = Part { base: c.range.start, band: &c.band, sub: &c.sub };
        let (mut srcs, mut piece) = (std::mem::take(&mut c.srcs), std::mem::take(&mut c.piece));
        let (mut plan, mut slow) = (std::mem::take(&mut c.plan), std::mem::take(&mut c.slow));
        plan.make(ctx, part, index, &c.walk, &mut slow);
        resolve(ctx, part, index, &slow, &mut srcs, &mut piece)?;
        (c.srcs, c.piece, c.plan, c.slow) = (srcs, piece, plan, slow);
        Ok(to.send(Ok(Msg::Chunk(c))).is_ok())
    };
    std::thread::scope(|scope| {
        // Odd chunks go to a second thread: resolution is most of the work, and the index it
        // reads is complete up to the chunk (a source comes before its reader in σ).
        let (job_tx, jobs) = std::sync::mpsc::sync_channel::<Box<Chunk>>(2);
        let send = &send;
        let odd_err = odd_tx.clone();
        scope.spawn(move || {
            for c in jobs {
                match send(c, &odd_tx) {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(e) => {
                        let _ = odd_tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        let mut c = fresh();
        let (mut count, mut sent, mut gone) = (0usize, 0usize, false);
        let mut dispatch = |mut c: Box<Chunk>, count: usize| -> Result<(), Error> {
            c.range = count - c.band.kind.len()..count;
            let ok = if sent % 2 == 0 { send(c, tx)? } else { job_tx.send(c).is_ok() };
            sent += 1;
            if ok {
                Ok(())
            } else {
                gone = true;
                Err(Error::internal("the assembly stopped"))
            }
        };
        let mut run = Vec::new();
        let walked = scan.walk(tiles, &mut |k, it, len, step| {
            // The run in pieces that end at chunk boundaries.
            run.clear();
            run.extend_from_slice(it);
            let mut left = len;
            while left > 0 {
                let m = left.min((chunk - c.band.kind.len()) as u64);
                if count as u64 + m > n as u64 {
                    return Err(Error::internal("a band larger than its survey"));
                }
                c.walk.push((c.band.kind.len(), m as usize, step));
                c.band.push_run(ctx.survey, k, &run, m, step)?;
                index.put_run(k, &run, count, m, step).ok_or_else(|| Error::internal("instance outside its bounding box"))?;
                count += m as usize;
                if let Some(x) = run.last_mut() {
                    *x += m as i64 * step;
                }
                left -= m;
                if c.band.kind.len() == chunk {
                    dispatch(std::mem::replace(&mut c, fresh()), count)?;
                }
            }
            Ok(())
        });
        let done = walked.and_then(|()| {
            if !c.band.kind.is_empty() {
                dispatch(c, count)?;
            }
            if count != n {
                return Err(Error::internal("a band smaller than its survey"));
            }
            Ok(())
        });
        match done {
            Ok(()) => true,
            Err(e) => {
                // Where the assembly looks for the next chunk.
                if !gone && sent % 2 == 0 {
                    let _ = tx.send(Err(e));
                } else if !gone {
                    let _ = odd_err.send(Err(e));
                }
                false
            }
        }
    })
}
