//! Pass 1 of construction: the values that leave their band (read by a later band, or final
//! values of the kernel's arrays), which are stored to DDR. Reads whose sources always stay
//! in the band, or are initial values, are skipped. A read's source depends on some of its
//! statement's iterators only (`Geometry::deps`): an instance equal to the previous one on
//! those (and on those placing it in a band) has nothing new to mark; a run is marked whole
//! along its lines (`mark.rs`). Nests are dealt to the workers, big bands in parts.

use super::*;

/// What pass 1 reads.
pub(super) struct Inputs<'a> {
    pub(super) p: &'a Program,
    pub(super) sare: &'a Sare,
    pub(super) params: &'a [i64],
    /// With `stays` computed.
    pub(super) geo: &'a Geometry<'a>,
    pub(super) survey: &'a Survey,
    pub(super) nests: &'a [Nest],
    /// `--tile` as given.
    pub(super) tile: &'a [i64],
}

/// What pass 1 finds.
pub(super) struct Leaving {
    /// Per dense instance number, whether its value is stored (not yet indexed).
    pub(super) stored: Bits,
    /// Per variable: distinct output elements written (the kernel's final values).
    pub(super) compulsory_writes: Vec<u64>,
}

/// Marks the values leaving their band, on `workers` threads; `big(nest, band)` says which
/// bands are walked in parts.
pub(super) fn mark_leaving(inputs: &Inputs, workers: usize, big: &(dyn Fn(usize, usize) -> bool + Sync)) -> Result<Leaving, Error> {
    let Inputs { p, sare, params, geo, survey, nests, tile } = *inputs;
    let stays = &geo.stays;
    let mut stored = Bits::new(survey.volume);
    let mut src = Vec::new();
    let may_leave: Vec<Vec<bool>> = (0..p.stmts.len())
        .map(|k| {
            sare.reads[k]
                .iter()
                .enumerate()
                .map(|(r, f)| f.sources.iter().enumerate().any(|(i, s)| s.stmt.is_some() && !stays[k][r][i]))
                .collect()
        })
        .collect();
    if may_leave.iter().flatten().any(|&m| m) {
        let margins = geo.compute_margins(p, sare, params);
        // The iterators that decide what a read does here: those its source depends on,
        // and those that place its reader in a band and a tile. An instance equal to the
        // previous one of its statement on them has nothing new to mark (a scalar, a row
        // element along a loop that does not move it). `None`: every iterator.
        let decides: Vec<Vec<Option<Vec<usize>>>> = (0..p.stmts.len())
            .map(|k| {
                let placed =
                    (0..geo.band_dims(k)).flat_map(|b| geo.phi[k][b].coef.iter().enumerate().filter(|(_, c)| **c != 0).map(|(d, _)| d));
                let placed: Vec<usize> = placed.collect();
                geo.deps[k]
                    .iter()
                    .map(|deps| some_of(deps.as_ref()?.iter().chain(&placed).copied().collect(), p.stmts[k].iters.len()))
                    .collect()
            })
            .collect();
        // The reads looked at here: those whose source may leave the band, but scalar
        // arguments.
        let looked: Vec<Vec<bool>> = (0..p.stmts.len())
            .map(|k| {
                let s = &p.stmts[k];
                (0..s.reads.len()).map(|r| may_leave[k][r] && !p.vars[s.reads[r].var].is_scalar_argument()).collect()
            })
            .collect();
        // Statements whose marking is the same along a run (no read looked at depends on the
        // last iterator, nor does the band of the reader): only a run's first instance is
        // visited.
        let per_run: Vec<bool> = (0..p.stmts.len())
            .map(|k| {
                let last = p.stmts[k].iters.len().wrapping_sub(1);
                (0..looked[k].len()).all(|r| !looked[k][r] || decides[k][r].as_ref().is_some_and(|on| !on.contains(&last)))
            })
            .collect();
        // Statements of a nest of one band whose marking depends on no iterator (adi's,
        // whose reads stay in their band but for scalars): their first instance is
        // enough, and a nest of only such statements is not walked.
        let once: Vec<bool> = (0..p.stmts.len())
            .map(|k| {
                geo.band_dims(k) == 0 && (0..looked[k].len()).all(|r| !looked[k][r] || decides[k][r].as_ref().is_some_and(Vec::is_empty))
            })
            .collect();
        let (decides, looked, per_run, once) = (&decides, &looked, &per_run, &once);
        // Bands dealt round-robin to one thread per core, each marking into its own set.
        let margins = &margins;
        let parts: Vec<Result<Bits, Error>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    scope.spawn(move || -> Result<Bits, Error> {
                        let mut stored = Bits::new(survey.volume);
                        // The reader's offsets in its tiles, computed at most once per instance.
                        let (mut offsets, mut src) = (Vec::new(), Vec::new());
                        let mut lines: Vec<Vec<Line>> = p.stmts.iter().map(|s| vec![Line::default(); s.reads.len()]).collect();
                        // Per statement, its previous instance here.
                        let mut prev: Vec<Option<Vec<i64>>> = vec![None; p.stmts.len()];
                        // Instance `it` of `k`, in band `mine` (the walk's tile coordinates).
                        let mut visit = |k: usize, it: &[i64], mine: &[i64], stored: &mut Bits| -> Result<(), Error> {
                            let mut placed = false;
                            let before = prev[k].as_deref();
                            for r in 0..p.stmts[k].reads.len() {
                                if !looked[k][r] {
                                    continue;
                                }
                                if let (Some(before), Some(on)) = (before, &decides[k][r]) {
                                    if on.iter().all(|&d| before[d] == it[d]) {
                                        continue;
                                    }
                                }
                                if let Some(m) = &margins[k][r] {
                                    if !placed {
                                        offsets.clear();
                                        offsets.extend((0..geo.band_dims(k)).map(|b| geo.phi[k][b].eval(it).rem_euclid(geo.sizes[b])));
                                        placed = true;
                                    }
                                    if m.iter().zip(&offsets).all(|((lo, hi), x)| lo <= x && x <= hi) {
                                        continue;
                                    }
                                }
                                let i = lines[k][r]
                                    .source(&sare.reads[k][r], &geo.linear[k][r], params, it, &mut src)
                                    .ok_or_else(|| Error::internal(format!("no source for {}{:?}", p.stmts[k].name, it)))?;
                                if let Some(sk) = sare.reads[k][r].sources[i].stmt.filter(|_| !stays[k][r][i]) {
                                    if !geo.in_band(k, mine, sk, &src) {
                                        stored.set(survey.id(sk, &src).ok_or_else(|| source_outside(p, sk, &src))?);
                                    }
                                }
                            }
                            if decides[k].iter().any(Option::is_some) {
                                let slot = prev[k].get_or_insert_with(Vec::new);
                                slot.clear();
                                slot.extend_from_slice(it);
                            }
                            Ok(())
                        };
                        let marking = mark::Marking { p, params, sare, geo, survey };
                        let mut bufs = mark::RunBufs::default();
                        // A big band is walked in parts of its outer loop, dealt like bands.
                        let (mut unit, mut run) = (0usize, Vec::new());
                        for (ni, nest) in nests.iter().enumerate() {
                            let Some(range) = &survey.bands[ni] else { continue };
                            if nest.stmts.iter().all(|&k| once[k]) {
                                if ni % workers == w {
                                    for &k in &nest.stmts {
                                        if let Some(it) = &survey.first[k] {
                                            // One band, no band hyperplanes.
                                            visit(k, it, &[], &mut stored)?;
                                        }
                                    }
                                }
                                continue;
                            }
                            let scan = BandScan::new(p, params, nest, tile);
                            for (bi, tiles) in band_tiles(range).enumerate() {
                                for part in parts(&scan, if big(ni, bi) { 4 * workers } else { 1 }) {
                                    if unit % workers == w {
                                        scan.walk_part(&tiles, part, &mut |k, it, len, step| {
                                            if per_run[k] {
                                                return visit(k, it, &tiles, &mut stored);
                                            }
                                            if len < LONG_RUN {
                                                return each(it, len, step, &mut run, |x| visit(k, x, &tiles, &mut stored));
                                            }
                                            // A long run: each read marked along it (`build/mark.rs`).
                                            let last = it.len().wrapping_sub(1);
                                            for r in (0..looked[k].len()).filter(|&r| looked[k][r]) {
                                                let n = if decides[k][r].as_ref().is_some_and(|on| !on.contains(&last)) { 1 } else { len };
                                                marking.run(
                                                    &Run { stmt: k, first: it, len: n, step },
                                                    r,
                                                    &tiles,
                                                    &mut stored,
                                                    &mut bufs,
                                                )?;
                                            }
                                            Ok(())
                                        })?;
                                    }
                                    unit += 1;
                                }
                            }
                        }
                        Ok(stored)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(Error::internal("a pass-1 thread panicked")))).collect()
        });
        for part in parts {
            stored.union(part?);
        }
    }
    let mut compulsory_writes = vec![0u64; p.vars.len()];
    for (var, v) in p.vars.iter().enumerate() {
        let (Some(flow), VarKind::Argument) = (&sare.finals[var], v.kind) else { continue };
        // Only cells that some statement writes can have a final value from one: the box of
        // them, not the whole declared array.
        let cells: Box<dyn Iterator<Item = Vec<i64>>> = match dpnc_frontend::bounds::written_box(p, var) {
            Some(bbox) => Box::new(box_points(bbox)),
            None => Box::new((0..v.len()).map(|cell| dpnc_frontend::store::unflatten(&v.dims, cell))),
        };
        for idx in cells {
            if let Some(Some(sk)) = flow.origin_into(params, &idx, &mut src) {
                stored.set(survey.id(sk, &src).ok_or_else(|| source_outside(p, sk, &src))?);
                compulsory_writes[var] += 1;
            }
        }
    }
    Ok(Leaving { stored, compulsory_writes })
}
