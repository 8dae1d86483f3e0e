//! Assembly: a resolved band, in σ order, becomes channel events, loads and stores.

use super::*;

/// Buffers of the assembly reused from band to band (allocating them afresh per band costs
/// page faults).
#[derive(Default)]
pub(super) struct Scratch {
    /// Per band value: its producer and the channels it is already written to (together:
    /// sources are read far apart in σ, one cache miss fetches both).
    pub(super) band_values: Vec<BandValue>,
    /// Per band value: the producer's operation (only with traces).
    pub(super) op_index: Vec<usize>,
    /// Per channel: (band number, its bit in [`BandValue`] in that band, [`BandValue::BITS`] if none).
    pub(super) chan_bit: Vec<(u32, u32)>,
    /// Per channel: its writes, then its reads (already in σ order, as pushed).
    pub(super) events: Vec<Events>,
    pub(super) reads: Vec<Events>,
    /// Per channel: its reads folded into the read after them (same value, back to back).
    pub(super) again: Vec<u64>,
    /// Per replaying thread here, its buffers; a replayed job's buffers for the next band.
    pub(super) replay: Vec<replay::ReplayBufs>,
    pub(super) spare: Option<replay::ReplayBuffers>,
    /// Per read of every statement (from `read_base[statement]`): the channel it last took.
    pub(super) read_base: Vec<usize>,
    pub(super) ports: Vec<Port>,
    /// Band-local value id → flat array cell (codegen only).
    pub(super) cells: replay::ValueCells,
    /// Whether some array has 2^32 cells or more (the cells then take 64 bits).
    pub(super) wide_cells: bool,
    /// Per process, its operations before the band.
    pub(super) op_base: Vec<usize>,
}

impl Scratch {
    pub(super) fn new(p: &Program) -> Scratch {
        let reads = p.stmts.iter().map(|s| s.reads.len()).sum();
        Scratch {
            read_base: p.stmts.iter().scan(0, |at, s| Some(std::mem::replace(at, *at + s.reads.len()))).collect(),
            ports: vec![
                Port {
                    local: Route::NONE,
                    ddr: Route::NONE,
                    again: DdrRead { band: 0, consumer: 0, cell: 0, producer: None },
                    vid: 0
                };
                reads
            ],
            wide_cells: p.vars.iter().any(|v| v.len() > u32::MAX as usize),
            ..Scratch::default()
        }
    }
}

/// A value computed in the current band, in 8 bytes (a band holds up to [`MAX_PIPED`], and
/// fresh memory is slow to touch): one bit per channel among the band's first
/// [`BandValue::BITS`] (see `Scratch::chan_bit`) that it is already written to, and above them
/// its compute process.
#[derive(Clone, Copy, Default)]
pub(super) struct BandValue(pub(super) u64);

impl BandValue {
    pub(super) const BITS: u32 = 48;
    pub(super) fn new(proc: u16) -> BandValue {
        BandValue((proc as u64) << BandValue::BITS)
    }
    pub(super) fn proc(self) -> usize {
        (self.0 >> BandValue::BITS) as usize
    }
    /// Marks the value written to the channel of bit `bit`: whether it was not yet.
    pub(super) fn write(&mut self, bit: u32) -> bool {
        let new = self.0 >> bit & 1 == 0;
        self.0 |= 1 << bit;
        new
    }
}

/// The channels a read last took (a channel is found by its producer, consumer and port,
/// and a read takes the same one many times over): (producer, consumer, channel) from a
/// compute process, (consumer, load process, channel) from DDR.
#[derive(Clone, Copy)]
pub(super) struct Port {
    /// The channel from a compute process it last took.
    pub(super) local: Route,
    /// The channel from a load process it last took.
    pub(super) ddr: Route,
    /// The DDR value it last read.
    pub(super) again: DdrRead,
    /// That value's id.
    pub(super) vid: u32,
}

/// A channel between two processes, found by its ends.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Route {
    /// The producer (from a compute process) or the consumer (from DDR).
    pub(super) from: u32,
    /// The consumer (from a compute process) or the load process (from DDR).
    pub(super) to: u32,
    pub(super) channel: u32,
}

impl Route {
    pub(super) const NONE: Route = Route { from: u32::MAX, to: u32::MAX, channel: 0 };
}

/// One DDR value read by one consumer in one band: a read that finds the same again reuses
/// the load.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct DdrRead {
    pub(super) band: u32,
    pub(super) consumer: u32,
    pub(super) cell: u64,
    /// The store whose version it is (`None`: the initial value).
    pub(super) producer: Option<u64>,
}

/// A loaded value of the current band.
pub(super) struct Loaded {
    /// The stored value loaded (`None`: the initial value).
    pub(super) producer: Option<u64>,
    pub(super) op: usize,
    pub(super) vid: usize,
    pub(super) at: u64,
    pub(super) outs: Vec<usize>,
}

/// The assembly of one band under way: fed its instances in σ order, all at once or a
/// chunk at a time as a worker resolves them (a band too big to hold its sources whole,
/// see [`Config::chunk`]).
pub(super) struct Assembly {
    pub(super) n: usize,
    pub(super) base: u64,
    pub(super) load_base: u64,
    pub(super) band_no: u32,
    /// Channels each value of the band is already written to (the demux): a bit each for
    /// the band's first [`BandValue::BITS`] channels (a value is often read through many ports:
    /// a stencil's nine), the others in this set.
    pub(super) written_more: std::collections::HashSet<(usize, usize), SmallKeys>,
    pub(super) next_bit: u32,
    pub(super) loaded: Vec<Loaded>,
    pub(super) loaded_other: HashMap<(usize, usize, u32), usize, SmallKeys>,
}

impl Assembly {
    pub(super) fn start(n: usize, scratch: &mut Scratch, b: &Builder, st: &mut Streams) -> Assembly {
        scratch.band_values.clear();
        scratch.band_values.resize(n, BandValue::default());
        if b.codegen {
            let wide = scratch.wide_cells;
            scratch.cells.start(n, wide);
        }
        scratch.op_index.clear();
        // Operations of a process in this band, counted from its first (events keep 32 bits).
        scratch.op_base.clear();
        scratch.op_base.extend_from_slice(&b.ops);
        scratch.events.iter_mut().chain(scratch.reads.iter_mut()).for_each(Events::clear);
        st.band_no += 1;
        Assembly {
            n,
            base: st.next_vid,
            load_base: st.next_load_vid,
            band_no: st.band_no,
            written_more: Default::default(),
            next_bit: 0,
            loaded: Vec::new(),
            loaded_other: Default::default(),
        }
    }

    /// Ends the band: its computed values are numbered.
    pub(super) fn finish(self, st: &mut Streams) {
        st.next_vid += self.n as u64;
    }

    /// The instances `feed` brings (positions in σ, following the last ones fed).
    pub(super) fn instances(
        &mut self,
        feed: Feed,
        ctx: &Ctx,
        scratch: &mut Scratch,
        b: &mut Builder,
        st: &mut Streams,
    ) -> Result<(), Error> {
        let Feed { part, range, srcs, plan } = feed;
        let Ctx { p, params, geo, stored, .. } = *ctx;
        let band = part.band;
        let Assembly { n, base, load_base, band_no, ref mut written_more, ref mut next_bit, ref mut loaded, ref mut loaded_other } = *self;
        let (band_values, op_index, chan_bit) = (&mut scratch.band_values, &mut scratch.op_index, &mut scratch.chan_bit);
        let (read_base, ports) = (&scratch.read_base, &mut scratch.ports);
        // Per channel, its reads and writes at times of σ (4 per instance: loads, reads,
        // writes, stores).
        let mut log = Log { writes: &mut scratch.events, reads: &mut scratch.reads, again: &mut scratch.again };
        let op_base = &scratch.op_base;
        let band_op = |proc: usize, op: usize| op - op_base.get(proc).copied().unwrap_or(0);
        let mut srcs = srcs.iter();
        let mut ahead = srcs.clone().skip(AHEAD);
        // The compute process of the last instance, by statement and sub-band (runs of
        // instances share it).
        let mut last_proc = None;
        // The stretches of `plan`, and the current one: its end, and when fast, its first
        // instance and its reads' steps. A fast stretch taken one instance at a time has
        // that instance's sources in `pend` (last read first).
        let mut stretches = plan.stretches.iter();
        let mut steps = &plan.steps[..];
        let (mut end, mut fast): (usize, Option<stretch::Taken>) = (range.start, None);
        // Per statement of a fast stretch's period: (statement, process, its operations
        // before the stretch, its reads' steps in the stretch's).
        let mut lanes: Vec<(usize, usize, usize, std::ops::Range<usize>)> = Vec::new();
        // Where the steps of the `q`-th statement of the stretch from σ position `start` begin.
        let lane_at = |start: usize, q: usize| (0..q).map(|q| geo.array_reads[band.kind[start - part.base + q]].len()).sum::<usize>();
        let mut pend: Vec<PackedSrc> = Vec::new();
        // Tries at the current stretch: its first iteration may open its channels, but a
        // stretch whose second fails too is taken one by one (a check costs its length).
        let mut tries = 0;
        let mut o = range.start;
        while o < range.end {
            while o >= end {
                tries = 0;
                (end, fast) = match stretches.next() {
                    None => (range.end, None),
                    Some(s) => {
                        let fast = s.fast.then(|| {
                            let (mine, rest) = steps.split_at(lane_at(o, s.period).min(steps.len()));
                            steps = rest;
                            (o, s.period, mine)
                        });
                        (o + s.len, fast)
                    }
                };
            }
            let t = o as u64;
            let x = o - part.base;
            let k = band.kind[x];
            let s = &p.stmts[k];
            let sub = part.sub.get(x).copied().unwrap_or(0);
            let me_u16 = match last_proc {
                Some((key, me_u16)) if key == (k, sub) => me_u16,
                _ => {
                    let me = *st
                        .compute_proc
                        .entry((k, sub))
                        .or_insert_with(|| b.add_process(p, ProcessKind::Compute { stmt: k, subband: geo.subband_coords(k, sub) }));
                    let me_u16 = u16::try_from(me).map_err(|_| {
                        Diagnostic::global(format!("the network has more than {} processes: use a smaller --par", u16::MAX))
                    })?;
                    last_proc = Some(((k, sub), me_u16));
                    me_u16
                }
            };
            let me = me_u16 as usize;
            let my_op = b.ops[me];
            let mut reads = Vec::with_capacity(if b.keep { s.reads.len() } else { 0 });
            // The rest of a fast stretch read by read, when each read's channel is known
            // (its first iteration opens them) and every source comes from that channel's
            // producer. `steps`: per statement of the period and read, (first source, step)
            // from the stretch's first iteration.
            let rest = end - o;
            let fast_here = match fast {
                Some((start, period, steps)) if !b.keep && (o - start).is_multiple_of(period) && rest >= 2 * period && tries < 2 => {
                    tries += 1;
                    lanes.clear();
                    for q in 0..period {
                        let kq = band.kind[x + q];
                        let Some(&me) = st.compute_proc.get(&(kq, part.sub.get(x + q).copied().unwrap_or(0))) else { break };
                        lanes.push((kq, me, b.ops[me], lane_at(o, q)..lane_at(o, q + 1)));
                    }
                    let i0 = (o - start) / period;
                    // Each read's channel known and its sources from the channel's producer (a
                    // source in the stretch is made here, by its statement's process), or its
                    // DDR value the one its port took last.
                    let read_ok = |kq: usize, me: usize, r: usize, step: stretch::Step| {
                        let port = &ports[read_base[kq] + r];
                        match step {
                            stretch::Step::Local { stmt, .. } => {
                                let Route { from, to, channel: ch } = port.local;
                                let produced = |so: usize| match so.checked_sub(o) {
                                    None => band_values[so].proc(),
                                    Some(j) => lanes[j % period].1,
                                };
                                to == me as u32
                                    && chan_bit.get(ch as usize).is_some_and(|c| c.0 == band_no)
                                    && if geo.one_subband() {
                                        // A statement has one process: no need to look (each
                                        // look a cache miss for a column's sources).
                                        st.compute_proc.get(&(stmt, 0)) == Some(&(from as usize))
                                    } else {
                                        (i0..(end - start) / period).all(
                                            |i| matches!(step.at(i), stretch::Step::Local { at: so, .. } if produced(so) == from as usize),
                                        )
                                    }
                            }
                            stretch::Step::Ddr(src) => match src.unpack() {
                                Src::Ddr { cell, producer } => {
                                    port.again == DdrRead { band: band_no, consumer: me as u32, cell: cell as u64, producer }
                                }
                                Src::Local(_) => false,
                            },
                        }
                    };
                    let ok = lanes.len() == period
                        && part.sub.get(x..end - part.base).is_none_or(|s| s.iter().enumerate().all(|(j, &u)| u == s[j % period]))
                        && lanes.iter().all(|(kq, me, _, at)| {
                            geo.array_reads[*kq].iter().zip(&steps[at.clone()]).all(|(&r, &step)| read_ok(*kq, *me, r, step))
                        });
                    ok.then_some((start, period, steps))
                }
                _ => None,
            };
            let (m, period) = if let Some((start, period, steps)) = fast_here {
                let (i0, iters) = ((o - start) / period, rest / period);
                for (q, lane) in lanes.iter().enumerate() {
                    band_values[o + q..end].iter_mut().step_by(period).for_each(|m| *m = BandValue::new(lane.1 as u16));
                }
                for (q, (kq, me, my_op, at)) in lanes.iter().enumerate() {
                    let time = (4 * (t + q as u64) + 1, 4 * period as u64);
                    for (&r, &step) in geo.array_reads[*kq].iter().zip(&steps[at.clone()]) {
                        let port = &ports[read_base[*kq] + r];
                        let (p0, ps) = match step.at(i0) {
                            stretch::Step::Local { at, step, .. } => (at, step),
                            stretch::Step::Ddr(_) => {
                                // The same loaded value again: reads only.
                                log.push_run(
                                    port.ddr.channel as usize,
                                    time,
                                    false,
                                    (port.vid as usize, 0),
                                    band_op(*me, *my_op),
                                    iters as u32,
                                );
                                continue;
                            }
                        };
                        let ch = port.local.channel as usize;
                        let bit = chan_bit[ch].1;
                        let so = |i: usize| (p0 as i64 + ps * i as i64) as usize;
                        // Values sent down the channel for the first time, a run of consecutive
                        // ones at a time (from the `new`-th iteration on).
                        let mut new = None;
                        for i in 0..=iters {
                            if i + AHEAD < iters {
                                prefetch(&band_values[so(i + AHEAD)]);
                            }
                            let first = i < iters
                                && match bit {
                                    BandValue::BITS => written_more.insert((so(i), ch)),
                                    bit => band_values[so(i)].write(bit),
                                };
                            match (first, new) {
                                (true, None) => new = Some(i),
                                (false, Some(f)) => {
                                    log.push_run(ch, (4 * so(f) as u64 + 2, (4 * ps) as u64), true, (so(f), ps), 0, (i - f) as u32);
                                    new = None;
                                }
                                _ => {}
                            }
                        }
                        log.push_run(ch, time, false, (p0, ps), band_op(*me, *my_op), iters as u32);
                    }
                }
                (rest, period)
            } else {
                if let Some((start, period, steps)) = fast {
                    let (q, i) = ((o - start) % period, (o - start) / period);
                    let mine = &steps[lane_at(start, q)..lane_at(start, q + 1)];
                    pend.extend(mine.iter().rev().map(|step| match step.at(i) {
                        stretch::Step::Local { at, .. } => PackedSrc::pack(Src::Local(at)),
                        stretch::Step::Ddr(src) => src,
                    }));
                }
                band_values[o] = BandValue::new(me_u16);
                for (r, a) in s.reads.iter().enumerate() {
                    if p.vars[a.var].is_scalar_argument() {
                        if b.keep {
                            reads.push(ReadSrc::Scalar { var: a.var });
                        }
                        continue;
                    }
                    let elem = p.vars[a.var].ty.c_name();
                    let src = match pend.pop() {
                        Some(src) => src,
                        None => {
                            if let Some(Src::Local(so)) = ahead.next().map(|s| s.unpack()) {
                                prefetch(&band_values[so]);
                            }
                            *srcs.next().ok_or_else(|| Error::internal("band analysis out of step"))?
                        }
                    }
                    .unpack();
                    let (ch, vid) = match src {
                        // Produced in this band: an on-chip channel from the producer's process.
                        Src::Local(so) => {
                            let pp = band_values[so].proc();
                            let port = &mut ports[read_base[k] + r];
                            let ch = match *port {
                                Port { local: Route { from, to, channel }, .. } if (from, to) == (pp as u32, me as u32) => channel as usize,
                                _ => {
                                    let class = if pp == me { ChannelClass::Local } else { ChannelClass::Sync };
                                    let ch = b.channel(pp, me, Some(r), class, elem, &p.vars[a.var].dims);
                                    port.local = Route { from: pp as u32, to: me as u32, channel: ch as u32 };
                                    ch
                                }
                            };
                            if chan_bit.len() <= ch {
                                chan_bit.resize(ch + 1, (0, BandValue::BITS));
                            }
                            if chan_bit[ch].0 != band_no {
                                chan_bit[ch] = (band_no, *next_bit);
                                *next_bit = (*next_bit + 1).min(BandValue::BITS);
                            }
                            let new = match chan_bit[ch].1 {
                                BandValue::BITS => written_more.insert((so, ch)),
                                bit => band_values[so].write(bit),
                            };
                            if new {
                                if let Some(Trace::Compute { ops, .. }) = b.traces.get_mut(pp) {
                                    ops[op_index[so]].writes.push(ch);
                                }
                                log.push(ch, 4 * so as u64 + 2, true, so, 0);
                            }
                            (ch, so)
                        }
                        // From DDR, the value this read took last, again: nothing new (a scalar, or
                        // a row read along a loop that does not move it).
                        Src::Ddr { cell, producer }
                            if ports[read_base[k] + r].again
                                == DdrRead { band: band_no, consumer: me as u32, cell: cell as u64, producer } =>
                        {
                            let port = &ports[read_base[k] + r];
                            (port.ddr.channel as usize, port.vid as usize)
                        }
                        // From DDR: the cell and the version this read needs, loaded once per band.
                        Src::Ddr { cell, producer } => {
                            // The cell was loaded in this band already, from the same producer:
                            // the same version, without looking it up.
                            let slot = st.load_slot[a.var].get(cell);
                            let version = match loaded.get(slot.2 as usize) {
                                Some(l) if slot.0 == st.band_no && l.producer == producer => slot.1,
                                _ => st.version_read(stored, a.var, cell, producer)?,
                            };
                            let port = &mut ports[read_base[k] + r];
                            let (lp, ch) = match port.ddr {
                                Route { from, to: lp, channel } if from == me as u32 => (lp as usize, channel as usize),
                                _ => {
                                    let lp =
                                        *st.load_proc.entry(a.var).or_insert_with(|| b.add_process(p, ProcessKind::Load { var: a.var }));
                                    let ch = b.channel(lp, me, Some(r), ChannelClass::Io, elem, &p.vars[a.var].dims);
                                    port.ddr = Route { from: me as u32, to: lp as u32, channel: ch as u32 };
                                    (lp, ch)
                                }
                            };
                            let slot = st.load_slot[a.var].get_mut(cell);
                            let found = if slot.0 == st.band_no && slot.1 == version {
                                Some(slot.2 as usize)
                            } else if slot.0 == st.band_no {
                                loaded_other.get(&(a.var, cell, version)).copied()
                            } else {
                                None
                            };
                            let li = match found {
                                Some(li) => li,
                                None => {
                                    let li = loaded.len();
                                    if slot.0 == st.band_no {
                                        loaded_other.insert((a.var, cell, version), li);
                                    } else {
                                        *slot = (st.band_no, version, li as u32);
                                    }
                                    loaded.push(Loaded { producer, op: b.ops[lp], vid: n + li, at: 4 * t, outs: Vec::new() });
                                    if b.codegen {
                                        scratch.cells.set_load(li, cell as u64);
                                    }
                                    b.ops[lp] += 1;
                                    if let Some(Trace::Load { ops, .. }) = b.traces.get_mut(lp) {
                                        ops.push(LoadOp { cell, version, vid: st.next_load_vid, outs: Vec::new(), at: 4 * t });
                                        *st.loads_needed.entry(CellVersion { var: a.var, cell, version }).or_default() += 1;
                                    }
                                    st.next_load_vid += 1;
                                    st.ddr_reads[a.var] += 1;
                                    li
                                }
                            };
                            let l = &mut loaded[li];
                            if !l.outs.contains(&ch) {
                                l.outs.push(ch);
                                if let Some(Trace::Load { ops, .. }) = b.traces.get_mut(lp) {
                                    ops[l.op].outs.push(ch);
                                }
                                // The load happened at the value's first use in the band (now or earlier).
                                log.push(ch, l.at, true, l.vid, l.vid);
                            }
                            let port = &mut ports[read_base[k] + r];
                            port.again = DdrRead { band: band_no, consumer: me as u32, cell: cell as u64, producer };
                            port.vid = l.vid as u32;
                            (ch, l.vid)
                        }
                    };
                    if b.keep {
                        reads.push(ReadSrc::Chan { ch, vid: global_vid(vid, n, base, load_base), last: false });
                    }
                    log.push(ch, 4 * t + 1, false, vid, band_op(me, my_op));
                }
                (1, 1)
            };
            let mut lane = 0;
            for o in o..o + m {
                let t = o as u64;
                let x = o - part.base;
                let (k, me) = if m == 1 { (k, me) } else { (lanes[lane].0, lanes[lane].1) };
                lane = if lane + 1 == period { 0 } else { lane + 1 };
                let s = &p.stmts[k];
                let it = &band.iters(x)[..s.iters.len()];
                let pi = b.ops[me];
                b.ops[me] += 1;
                if let Some(Trace::Compute { ops, .. }) = b.traces.get_mut(me) {
                    ops.push(ComputeOp { iters: it.to_vec(), reads: std::mem::take(&mut reads), writes: Vec::new(), vid: base + o as u64 });
                }
                if b.keep {
                    op_index.push(pi);
                }
                if b.codegen {
                    scratch.cells.set(o, geo.write_cell(p, params, k, it)? as u64);
                }
                if stored.get(band.id[x]) {
                    let var = s.write.var;
                    let cell = geo.write_cell(p, params, k, it)?;
                    let sp = *st.store_proc.entry(var).or_insert_with(|| b.add_process(p, ProcessKind::Store { var }));
                    let ch = b.channel(me, sp, None, ChannelClass::Io, p.vars[var].ty.c_name(), &[]);
                    let version = st.version_store(stored, var, cell, band.id[x]);
                    st.ddr_writes[var] += 1;
                    let store_op = b.ops[sp];
                    b.ops[sp] += 1;
                    if let Some(Trace::Compute { ops, .. }) = b.traces.get_mut(me) {
                        ops[pi].writes.push(ch);
                    }
                    if let Some(Trace::Store { ops, .. }) = b.traces.get_mut(sp) {
                        ops.push(StoreOp { ch, vid: base + o as u64, cell, version });
                    }
                    log.push(ch, 4 * t + 2, true, o, 0);
                    log.push(ch, 4 * t + 3, false, o, band_op(sp, store_op));
                }
            }
            o += m;
        }
        Ok(())
    }
}

/// How many reads ahead the assembly asks for the memory it will need: values of a large
/// band are read in an order unrelated to where they lie, a cache miss each, and several
/// fetches in flight at once hide most of the wait.
pub(super) const AHEAD: usize = 16;

/// Hints the CPU to fetch `x`'s cache line now (nothing elsewhere).
#[inline(always)]
pub(super) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing the program sees and never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch(x as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Band-local value ids (computed values first, then loads) to the network's.
pub(super) fn global_vid(vid: usize, n: usize, base: u64, load_base: u64) -> u64 {
    if vid < n {
        base + vid as u64
    } else {
        load_base + (vid - n) as u64
    }
}
