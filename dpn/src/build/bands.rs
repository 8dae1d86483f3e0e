//! Pass 2 of construction: band by band in σ order, the processes, channels, loads and
//! stores. Workers enumerate, sort and resolve bands (or prove them translates of a template,
//! `translate.rs`); the main thread assembles them in σ order (or repeats an assembled band,
//! `repeat.rs`), and each band's channels replay on a thread of their own (`replay.rs`).

use super::replay::Windows;
use super::*;

/// What pass 2 reads besides the band passes' context.
pub(super) struct Inputs<'a> {
    pub(super) nests: &'a [Nest],
    pub(super) cfg: &'a Config,
    /// Bands of more instances are streamed, in chunks of `chunk` (see [`Config::chunk`]).
    pub(super) stream_above: usize,
    pub(super) chunk: usize,
    /// The instances a worker's whole templates may hold together (see `translate.rs`).
    pub(super) template_instances: usize,
    /// The instances the bands too big to keep whole may hold together (see `admission.rs`).
    pub(super) held_instances: usize,
    /// Whether to tell the bands' progress.
    pub(super) progress: bool,
    /// Which live windows the replays track.
    pub(super) windows: Windows,
}

/// What pass 2 builds.
pub(super) struct Assembled {
    pub(super) b: Builder,
    pub(super) st: Streams,
    /// Bands built.
    pub(super) bands: usize,
    pub(super) stats: BuildStats,
    /// A scratchpad's window was left out of a band in which its values stayed in order
    /// ([`Windows::OutOfOrder`]): its window may be too small, and the assembly must run again
    /// with every window.
    pub(super) windows_left_out: bool,
}

/// Builds every band on `workers` threads.
pub(super) fn assemble_bands(ctx: &Ctx, inputs: &Inputs, workers: usize) -> Result<Assembled, Error> {
    let Ctx { p, sare, survey, stored, .. } = *ctx;
    let Inputs { nests, cfg, stream_above, chunk, template_instances, held_instances, progress, windows } = *inputs;
    let mut b = Builder {
        processes: Vec::new(),
        traces: Vec::new(),
        ops: Vec::new(),
        channels: Vec::new(),
        stats: Vec::new(),
        inputs: Vec::new(),
        keep: cfg.keep_traces,
        codegen: cfg.codegen,
        windows,
    };
    let mut st = Streams {
        load_proc: Default::default(),
        store_proc: Default::default(),
        compute_proc: Default::default(),
        versions: p.vars.iter().map(|v| CellTable::new(v.len())).collect(),
        version_of_value: vec![0; stored.count() as usize],
        loads_needed: HashMap::new(),
        ddr_reads: vec![0u64; p.vars.len()],
        ddr_writes: vec![0u64; p.vars.len()],
        next_vid: 0,
        next_load_vid: survey.instances,
        band_no: 0,
        load_slot: p.vars.iter().map(|v| CellTable::new(if v.is_scalar_argument() { 0 } else { v.len() })).collect(),
        initial: p.vars.iter().map(|v| Bits::dense(v.len() as u64)).collect(),
    };
    // One thread enumerates, sorts and resolves the bands (pure work), the other assembles
    // them into processes and channels in σ order.
    let memo = !cfg.keep_traces && !cfg.every_band;
    let slots = translate::Slots::new(sare);
    let admission = Admission::new(held_instances);
    let (mut bands, mut repeated, mut translated, mut shifted, mut streamed) = (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut of_compact = 0usize;
    let mut scratch = Scratch::new(p);
    let started = std::time::Instant::now();
    let mut shown = started;
    let (owner, may_repeat) = assign_bands(survey, workers);
    let ordered: Vec<bool> = nests.iter().map(|n| program_ordered(p, n)).collect();
    let queued: Vec<AtomicUsize> = (0..workers).map(|_| AtomicUsize::new(0)).collect();
    std::thread::scope(|scope| -> Result<(), Error> {
        // Worker `owner[b]` enumerates and analyses band `b` (numbered over all nests); the
        // assembly takes them back in that order, so it sees σ.
        let (owner, may_repeat) = (&owner, &may_repeat);
        let (ordered, queued) = (&ordered, &queued);
        let (mut rxs, mut backs, mut threads) = (Vec::new(), Vec::new(), Vec::new());
        let tile = &cfg.tile;
        let slots = &slots;
        let admission = &admission;
        for (w, queued) in queued.iter().enumerate() {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Msg, Error>>(QUEUE);
            let (back_tx, back_rx) = std::sync::mpsc::channel::<Arc<Analysed>>();
            let (chunk_tx, chunk_rx) = std::sync::mpsc::channel::<Box<Chunk>>();
            rxs.push(rx);
            backs.push((back_tx, chunk_tx));
            let worker = scope.spawn(move || {
                let mut raw = Band::new(p);
                let mut index = LocalIndex::default();
                let mut number = 0usize;
                let mut templates: Vec<translate::Template> = Vec::new();
                let mut evicted = Vec::new();
                // Analysed bands back from the assembly (or from dropped templates), to reuse their
                // buffers: one a template still holds is not reused until the template is dropped.
                let mut spare: Vec<Analysed> = Vec::new();
                let recycled = |spare: &mut Vec<Analysed>| {
                    spare.pop().or_else(|| std::iter::from_fn(|| back_rx.try_recv().ok()).find_map(|an| Arc::try_unwrap(an).ok()))
                };
                for (ni, nest) in nests.iter().enumerate() {
                    let Some(range) = &ctx.survey.bands[ni] else { continue };
                    let scan = BandScan::new(p, ctx.params, nest, tile);
                    let total: u64 = range.iter().map(|(l, h)| (h - l + 1) as u64).product();
                    for (bi, tiles) in band_tiles(range).enumerate() {
                        let bi = bi as u64;
                        if owner[number] == w {
                            while queued.load(Acquire) >= AHEAD_INSTANCES {
                                std::thread::park();
                            }
                            // Only a band with a later one of its size may have translates (a
                            // triangular nest's bands all differ: no templates, no copies). A
                            // big band is kept whole only beside the templates held already:
                            // one that would push them out streams and leaves a compact
                            // template, so that a row of big bands keeps its templates.
                            let held = translate::held(&templates);
                            let may_keep = |n: usize| memo && may_repeat[number] && (n <= stream_above || held + n <= template_instances);
                            // A big band in program order streams as it is enumerated.
                            let size = ctx.survey.sizes.as_ref().map_or(0, |s| s[ni][bi as usize] as usize);
                            if size > stream_above
                                && size <= MAX_PIPED
                                && ordered[ni]
                                && !may_keep(size)
                                && index.start(ctx.survey, nest, size)
                            {
                                let at = BandAt { nest: ni, band: bi, bands: total };
                                let band = PipedBand {
                                    at,
                                    n: size,
                                    scan: &scan,
                                    tiles: &tiles,
                                    index: &index,
                                    evicted: std::mem::take(&mut evicted),
                                };
                                if !pipe(ctx, band, chunk, &tx, &chunk_rx) {
                                    return;
                                }
                                number += 1;
                                continue;
                            }
                            let at = BandAt { nest: ni, band: bi, bands: total };
                            // A band of a template's size may be the template's band shifted, each
                            // statement by the shift of its first instance: the walk stops once it
                            // has them (and is the band's walk if it does not).
                            let mut first: Vec<Option<Vec<i64>>> = vec![None; p.stmts.len()];
                            let mut wanted = vec![false; p.stmts.len()];
                            for t in templates.iter().filter(|t| memo && t.len() == size) {
                                for (k, f) in t.first().iter().enumerate() {
                                    wanted[k] |= f.is_some();
                                }
                            }
                            let mut missing = wanted.iter().filter(|&&w| w).count();
                            let mut stopped = false;
                            let walk = |raw: &mut Band, first: &mut Vec<Option<Vec<i64>>>, missing: &mut usize, stopped: &mut bool| {
                                raw.clear();
                                // Only a whole walk: one that stops at the first instances needs few.
                                if size > stream_above && *missing == 0 {
                                    raw.reserve(size);
                                }
                                scan.walk(&tiles, &mut |k, it, len, step| {
                                    if *missing > 0 && first[k].is_none() {
                                        first[k] = Some(it[..p.stmts[k].iters.len()].to_vec());
                                        if wanted[k] {
                                            *missing -= 1;
                                            if *missing == 0 {
                                                *stopped = true;
                                                return Err(Error::internal("a band's walk stopped at its first instances"));
                                            }
                                        }
                                    }
                                    if raw.kind.len() + len as usize > MAX_BAND {
                                        return Err(band_too_large(nest, ordered[ni], size, MAX_BAND).into());
                                    }
                                    raw.push_run(ctx.survey, k, it, len, step)
                                })
                            };
                            // A big band is held from its whole walk until the assembly is done
                            // with it (`admission.rs`); a walk that stops early holds nothing.
                            let big = size > stream_above;
                            if big && missing == 0 && !admission.admit(number, size) {
                                return;
                            }
                            let mut found = walk(&mut raw, &mut first, &mut missing, &mut stopped);
                            if stopped {
                                let proved = templates
                                    .iter()
                                    .enumerate()
                                    .find_map(|(i, t)| Some((i, t.shifted(&tiles, &first, size, ni, ctx, slots)?)));
                                if let Some((i, shift)) = proved {
                                    let template = templates.remove(i);
                                    let (of, an) = (template.number, template.analysed().cloned());
                                    templates.insert(0, template);
                                    let msg = Msg::Shifted(Box::new(Shifted {
                                        at,
                                        of,
                                        template: an,
                                        shift,
                                        evicted: std::mem::take(&mut evicted),
                                    }));
                                    if tx.send(Ok(msg)).is_err() {
                                        return;
                                    }
                                    number += 1;
                                    continue;
                                }
                                if big && !admission.admit(number, size) {
                                    return;
                                }
                                found = walk(&mut raw, &mut first, &mut 0, &mut stopped);
                            }
                            let found = found.map(|()| !raw.kind.is_empty());
                            let n = raw.kind.len();
                            let may_keep = may_keep(n);
                            let msg = match found {
                                Ok(false) => Ok(Msg::Empty),
                                Ok(true) if n > stream_above && !may_keep => {
                                    let mut an = raw.prepare(ctx, recycled(&mut spare), at);
                                    // The unsorted band is not needed again: its buffers go back
                                    // now rather than stay beside the sorted one while it resolves.
                                    raw = Band::new(p);
                                    // Too big to keep whole, but a later band of its size may be
                                    // it shifted: a compact template, its sources' kinds
                                    // gathered chunk by chunk.
                                    let mut used = (memo && may_repeat[number]).then(|| vec![0u8; slots.len()]);
                                    an.template = used.is_some();
                                    an.evicted.clear();
                                    an.evicted.append(&mut evicted);
                                    let an = Arc::new(an);
                                    queued.fetch_add(n, Release);
                                    if tx.send(Ok(Msg::Head(an.clone()))).is_err() {
                                        return;
                                    }
                                    for start in (0..n).step_by(chunk) {
                                        let mut c = chunk_rx.try_recv().unwrap_or_default();
                                        c.range = start..n.min(start + chunk);
                                        c.srcs.clear();
                                        c.piece.clear();
                                        c.plan.clear();
                                        let msg = an.resolve(ctx, c.range.clone(), &mut c.srcs, &mut c.piece).map(|()| Msg::Chunk(c));
                                        if let Ok(Msg::Chunk(c)) = &msg {
                                            let mark = |mut u: Vec<u8>| {
                                                translate::Template::mark_used(
                                                    &mut u,
                                                    &an.band,
                                                    c.range.clone(),
                                                    &c.srcs,
                                                    &c.piece,
                                                    ctx,
                                                    slots,
                                                )
                                                .map(|()| u)
                                            };
                                            used = used.take().and_then(mark);
                                        }
                                        let stop = msg.is_err();
                                        if tx.send(msg).is_err() || stop {
                                            return;
                                        }
                                    }
                                    if let Some(used) = used {
                                        while templates.len() >= translate::KITS {
                                            if let Some(template) = templates.pop() {
                                                evicted.push(template.number);
                                                spare.extend(template.release());
                                            }
                                        }
                                        templates.insert(0, translate::Template::compact(&an, number, used, &tiles));
                                    }
                                    number += 1;
                                    continue;
                                }
                                Ok(true) => {
                                    let mut an = recycled(&mut spare).unwrap_or_else(|| Analysed::new(p));
                                    let proved = if memo {
                                        templates.iter().position(|template| template.translate(&raw, ni, ctx, slots, &mut an))
                                    } else {
                                        None
                                    };
                                    let done = match proved {
                                        Some(i) => {
                                            let template = templates.remove(i);
                                            an.at = at;
                                            an.translate_of = Some(template.number);
                                            an.template = false;
                                            templates.insert(0, template);
                                            Ok((an, None))
                                        }
                                        None => raw.analyse(ctx, Some(an), at).map(|mut an| {
                                            let used = if may_keep { translate::Template::used(&an, ctx, slots) } else { None };
                                            an.template = used.is_some();
                                            (an, used)
                                        }),
                                    };
                                    done.map(|(mut an, used)| {
                                        // Room for the new template, the oldest dropped first.
                                        while used.is_some()
                                            && !templates.is_empty()
                                            && (templates.len() >= translate::KITS || translate::held(&templates) + n > template_instances)
                                        {
                                            if let Some(template) = templates.pop() {
                                                evicted.push(template.number);
                                                spare.extend(template.release());
                                            }
                                        }
                                        an.evicted.clear();
                                        an.evicted.append(&mut evicted);
                                        let an = Arc::new(an);
                                        if let Some(used) = used {
                                            templates.insert(0, translate::Template::new(an.clone(), number, used, &tiles));
                                        }
                                        Msg::Whole(an)
                                    })
                                }
                                Err(e) => Err(e),
                            };
                            // Kept whole, it is held as a template, or not at all.
                            if big {
                                admission.release(number);
                            }
                            let stop = msg.is_err();
                            if let Ok(Msg::Whole(an)) = &msg {
                                queued.fetch_add(an.band.kind.len(), Release);
                            }
                            if tx.send(msg).is_err() || stop {
                                return;
                            }
                        }
                        number += 1;
                    }
                }
            });
            threads.push(worker.thread().clone());
        }
        // Recently assembled bands, most recent first, to recognise repeats by; the effects of
        // the bands the workers keep templates of, by band number.
        let mut replicas: Vec<repeat::Replica> = Vec::new();
        // The last band's replay, if still under way.
        let mut pending = None;
        let mut effects: HashMap<usize, repeat::Effect, SmallKeys> = HashMap::default();
        let mut summaries: HashMap<usize, repeat::Summary, SmallKeys> = HashMap::default();
        // However the assembly ends, no worker waits on it any more.
        let _closing = admission.closing();
        // A worker that fails sends its error and stops: its channel then closes.
        for (number, &w) in owner.iter().enumerate() {
            let (back_tx, chunk_back) = &backs[w];
            let Ok(msg) = rxs[w].recv() else { break };
            let msg = msg?;
            // Where the band is, the templates its worker dropped, and its instances sent ahead.
            let (at, evicted, taken) = match &msg {
                Msg::Empty => continue,
                Msg::Whole(an) => (an.at, &an.evicted, an.band.kind.len()),
                Msg::Head(an) => (an.at, &an.evicted, an.band.kind.len()),
                Msg::Piped { at, evicted, .. } => (*at, evicted, 0),
                Msg::Shifted(sh) => (sh.at, &sh.evicted, 0),
                Msg::Chunk(_) => return Err(Error::internal("a chunk outside a streamed band")),
            };
            if taken > 0 {
                queued[w].fetch_sub(taken, AcqRel);
                threads[w].unpark();
            }
            bands += 1;
            if progress {
                let BandAt { nest, band, bands } = at;
                tell(cfg, &mut shown, started, Step::Band { nest, band, bands, percent: None });
            }
            for e in evicted {
                effects.remove(e);
                summaries.remove(e);
            }
            let an = match msg {
                Msg::Whole(an) => an,
                Msg::Shifted(sh) => {
                    let e = effects.get(&sh.of).ok_or_else(|| Error::internal("a shifted band without its template's effect"))?;
                    let summary = match summaries.entry(sh.of) {
                        std::collections::hash_map::Entry::Occupied(s) => s.into_mut(),
                        std::collections::hash_map::Entry::Vacant(v) => {
                            let an =
                                sh.template.as_ref().ok_or_else(|| Error::internal("a shifted band without its template's summary"))?;
                            v.insert(repeat::Summary::of(an, ctx, slots))
                        }
                    };
                    e.repeat_shifted(summary, &sh.shift, ctx, &mut b, &mut st)?;
                    of_compact += usize::from(sh.template.is_none());
                    repeated += 1;
                    translated += 1;
                    shifted += 1;
                    continue;
                }
                Msg::Head(_) | Msg::Piped { .. } => {
                    streamed += 1;
                    // The band arrives whole in its head, or a chunk at a time with its sources.
                    let (head, n, odd) = match msg {
                        Msg::Head(an) => {
                            let n = an.band.kind.len();
                            (Some(an), n, None)
                        }
                        Msg::Piped { n, odd, .. } => (None, n, Some(odd)),
                        _ => return Err(Error::internal("a band neither whole nor streamed")),
                    };
                    // A band the worker keeps a compact template of: its effect and summary,
                    // for the bands proved it shifted.
                    let mut template =
                        head.as_ref().filter(|an| an.template).map(|_| (repeat::Counters::of(&b, &st), repeat::Summary::new(n)));
                    let mut asm = Assembly::start(n, &mut scratch, &b, &mut st);
                    let (mut done, mut j) = (0, 0);
                    while done < n {
                        let rx = match &odd {
                            Some(odd) if j % 2 == 1 => odd,
                            _ => &rxs[w],
                        };
                        j += 1;
                        let c = match rx.recv() {
                            Ok(Ok(Msg::Chunk(c))) => c,
                            Ok(Err(e)) => return Err(e),
                            _ => return Err(Error::internal("a streamed band ended early")),
                        };
                        let part = match &head {
                            Some(an) => an.part(),
                            None => Part { base: c.range.start, band: &c.band, sub: &c.sub },
                        };
                        if c.range.start != done || c.range.end > n || part.band.kind.len() < c.range.end - part.base {
                            return Err(Error::internal("a streamed band out of step"));
                        }
                        if let Some((_, summary)) = &mut template {
                            summary.add(part.band, c.range.clone(), &c.srcs, &c.piece, ctx, slots);
                        }
                        let feed = Feed { part, range: c.range.clone(), srcs: &c.srcs, plan: &c.plan };
                        asm.instances(feed, ctx, &mut scratch, &mut b, &mut st)?;
                        done = c.range.end;
                        let _ = chunk_back.send(c);
                        if progress {
                            let BandAt { nest, band, bands } = at;
                            tell(cfg, &mut shown, started, Step::Band { nest, band, bands, percent: Some(100 * done as u64 / n as u64) });
                        }
                    }
                    // Its channels replay here on as many threads as there are workers (for
                    // the last of a kernel's bands, they would wait otherwise).
                    asm.finish(&mut st);
                    replay_band(scope, &mut pending, &mut scratch, &mut b, workers)?;
                    if let Some((before, mut summary)) = template {
                        summary.finish();
                        effects.insert(number, repeat::Effect::since(&before, &b, &st));
                        summaries.insert(number, summary);
                    }
                    // Freed before the next big band may start (not kept for reuse: that
                    // memory would be held beside it).
                    drop(head);
                    admission.release(number);
                    continue;
                }
                // Both left above.
                Msg::Empty | Msg::Chunk(_) => continue,
            };
            if let Some(of) = an.translate_of {
                let e = effects.get(&of).ok_or_else(|| Error::internal("a translate of a band without its effect"))?;
                e.repeat(&an, ctx, &mut b, &mut st)?;
                repeated += 1;
                translated += 1;
                let _ = back_tx.send(an);
                continue;
            }
            match replicas.iter().position(|r| r.matches(&an, ctx)) {
                Some(i) => {
                    replicas[i].effect.repeat(&an, ctx, &mut b, &mut st)?;
                    if an.template {
                        effects.insert(number, replicas[i].effect.clone());
                    }
                    let r = replicas.remove(i);
                    replicas.insert(0, r);
                    repeated += 1;
                }
                None => {
                    // Only a later band of its size can repeat it (a triangular nest's
                    // bands all differ: none kept).
                    let replica = memo && may_repeat[number] && an.band.kind.len() <= MAX_BAND / REPLICAS;
                    let before = (replica || an.template).then(|| repeat::Counters::of(&b, &st));
                    an.assemble(ctx, &mut scratch, &mut b, &mut st)?;
                    replay_band(scope, &mut pending, &mut scratch, &mut b, 1)?;
                    if let Some(before) = before {
                        let effect = repeat::Effect::since(&before, &b, &st);
                        if an.template {
                            effects.insert(number, effect.clone());
                        }
                        if !replica {
                            let _ = back_tx.send(an);
                            continue;
                        }
                        replicas.insert(0, repeat::Replica::new(an, effect));
                        if replicas.len() > REPLICAS {
                            if let Some(r) = replicas.pop() {
                                let _ = back_tx.send(r.an);
                            }
                        }
                        continue;
                    }
                }
            }
            let _ = back_tx.send(an);
        }
        join_replay(&mut pending, &mut scratch, &mut b)
    })?;

    let mut windows_left_out = false;
    for (c, s) in b.channels.iter_mut().zip(&b.stats) {
        c.size = s.size;
        c.writes = s.writes;
        c.reads = s.reads;
        // In order and read once: FIFO; in order with repeats back to back: FIFO+register.
        c.kind = match (s.in_order, s.reads == s.writes) {
            (true, true) => ChannelKind::Fifo,
            (true, false) => ChannelKind::FifoReg,
            _ => ChannelKind::Scratchpad,
        };
        // Only a scratchpad has a window.
        c.window = if c.kind == ChannelKind::Scratchpad { s.window.clone() } else { vec![0; s.window.len()] };
        windows_left_out |= c.kind == ChannelKind::Scratchpad && s.window_left_out;
    }
    for (pr, n) in b.processes.iter_mut().zip(&b.ops) {
        pr.iterations = *n as u64;
    }
    Ok(Assembled {
        b,
        st,
        bands,
        stats: BuildStats {
            repeated_bands: repeated,
            translated_bands: translated,
            shifted_bands: shifted,
            shifted_of_compact: of_compact,
            streamed_bands: streamed,
            assembled_again: false,
        },
        windows_left_out,
    })
}

/// Which worker takes each band (numbered over all nests, in σ order), and whether a later
/// band of its nest has its size (it may then have translates: `build/translate.rs` keeps
/// templates of those only). Bands of one size go to one worker, so that its templates meet their
/// translates; a new size goes to the worker with the least work so far (a band counts its
/// instances, a later band of a size already dealt a quarter of them: it is likely a
/// translate, which costs its enumeration only).
pub(super) fn assign_bands(survey: &Survey, workers: usize) -> (Vec<usize>, Vec<bool>) {
    let Some(sizes) = &survey.sizes else {
        let n: usize = survey.bands.iter().flatten().map(|r| band_tiles(r).count()).sum();
        return ((0..n).map(|b| b % workers).collect(), vec![true; n]);
    };
    let (mut owner, mut may_repeat) = (Vec::new(), Vec::new());
    let mut load = vec![0u64; workers];
    for nest in sizes {
        let mut later = std::collections::HashSet::new();
        let mut t = vec![false; nest.len()];
        for (bi, &n) in nest.iter().enumerate().rev() {
            t[bi] = n > 0 && !later.insert(n);
        }
        may_repeat.extend(t);
        let mut class: HashMap<u64, usize> = HashMap::new();
        for &n in nest {
            let w = match class.get(&n) {
                Some(&w) => {
                    load[w] += n / 4;
                    w
                }
                None => {
                    let w = (0..workers).min_by_key(|&w| load[w]).unwrap_or(0);
                    load[w] += n;
                    class.insert(n, w);
                    w
                }
            };
            owner.push(w);
        }
    }
    (owner, may_repeat)
}

/// Messages a worker may send ahead of the assembly. A nest's big bands alternate with
/// runs of small ones and repeats, which the workers get through while the assembly is on
/// a big band (with one message ahead they would wait for it instead).
pub(super) const QUEUE: usize = 16;

/// Instances of the bands a worker has sent that the assembly has not taken yet, past
/// which it waits before its next band (memory: a few big bands, not [`QUEUE`]).
pub(super) const AHEAD_INSTANCES: usize = 1 << 21;

/// Assembled bands kept to recognise repeats by (a nest's bands repeat a few shapes: first,
/// interior and last along each band hyperplane); only bands up to `MAX_BAND / REPLICAS`
/// instances are kept, so that they hold no more memory than one band may.
pub(super) const REPLICAS: usize = 4;

/// What a worker sends the assembly for each band it owns, in the band's turn.
pub(super) enum Msg {
    /// An empty band (sent all the same, to keep the turn).
    Empty,
    /// A band analysed whole.
    Whole(Arc<Analysed>),
    /// A streamed band ([`Config::chunk`]): sorted and indexed, its sources to follow in
    /// [`Msg::Chunk`]s.
    Head(Arc<Analysed>),
    /// A streamed band whose instances come in its [`Msg::Chunk`]s too, as they are
    /// enumerated (see [`program_ordered`]): `n` of them; its odd chunks from `odd` (a
    /// second thread resolves them).
    Piped {
        at: BandAt,
        n: usize,
        evicted: Vec<usize>,
        odd: std::sync::mpsc::Receiver<Result<Msg, Error>>,
    },
    Chunk(Box<Chunk>),
    /// A band proved a template's band shifted without its enumeration.
    Shifted(Box<Shifted>),
}

/// A band that is band `of` shifted by `shift` ([`translate::Template::shifted`]); `template`,
/// the analysed band `of`, where its template keeps it.
pub(super) struct Shifted {
    pub(super) at: BandAt,
    pub(super) of: usize,
    pub(super) template: Option<Arc<Analysed>>,
    pub(super) shift: translate::Shift,
    /// The templates its worker dropped since its last band.
    pub(super) evicted: Vec<usize>,
}

/// The sources of the reads of a streamed band's instances `range` (buffers go back to
/// the worker for its next chunk).
#[derive(Default)]
pub(super) struct Chunk {
    pub(super) range: std::ops::Range<usize>,
    pub(super) srcs: Vec<PackedSrc>,
    pub(super) piece: Vec<u8>,
    /// The instances themselves and their sub-bands (only after [`Msg::Piped`]), the runs
    /// they were enumerated in (chunk offset, length, step of the last iterator), and how
    /// they are resolved (`build/stretch.rs`; `slow`: σ ranges resolved one by one).
    pub(super) band: Band,
    pub(super) sub: Vec<usize>,
    pub(super) walk: Vec<(usize, usize, i64)>,
    pub(super) plan: stretch::Plan,
    pub(super) slow: Vec<std::ops::Range<usize>>,
}

/// Replays a band's channels (see `build/replay.rs`): on a thread of its own beside the
/// next band's assembly, or here with traces to mark or on `threads` > 1 (a streamed band,
/// whose replay the workers would wait for). One band replays at a time.
pub(super) fn replay_band<'s>(
    scope: &'s std::thread::Scope<'s, '_>,
    pending: &mut Option<std::thread::ScopedJoinHandle<'s, replay::Job>>,
    scratch: &mut Scratch,
    b: &mut Builder,
    threads: usize,
) -> Result<(), Error> {
    join_replay(pending, scratch, b)?;
    if b.keep || threads > 1 {
        b.replay(scratch, threads);
    } else {
        let job = b.replay_job(scratch);
        *pending = Some(scope.spawn(move || job.run()));
    }
    Ok(())
}

/// Waits for the band replaying on its own thread, if any, and adds its figures.
pub(super) fn join_replay(
    pending: &mut Option<std::thread::ScopedJoinHandle<'_, replay::Job>>,
    scratch: &mut Scratch,
    b: &mut Builder,
) -> Result<(), Error> {
    if let Some(h) = pending.take() {
        let job = h.join().map_err(|_| Error::internal("a replay thread panicked"))?;
        b.merge(job, scratch);
    }
    Ok(())
}
