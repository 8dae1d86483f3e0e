//! Bands that repeat an earlier band. The interior bands of a rectangular or stencil nest
//! are translates of one another: the same statements at the same σ positions in the same
//! sub-bands, every read resolved the same way (in the band from the same position, or
//! from DDR at cells and producers shifted by constants). Such a band adds to the network
//! exactly what the earlier band's assembly added: the same channel events, hence the same
//! peaks, orders and scratchpad windows, and the same counts. So it is not assembled; only
//! the DDR bookkeeping that later bands read (versions, compulsory reads) advances.
//! Construction then costs the enumeration and resolution of each band, not its assembly.

use super::translate::{Shift, Slots};
use super::{Analysed, Band, Bits, Builder, Ctx, PackedSrc, Streams};
use crate::Error;

/// A fully assembled band kept to recognise its repeats.
pub(super) struct Replica {
    pub(super) an: std::sync::Arc<Analysed>,
    pub(super) effect: Effect,
}

/// Counters a band's assembly advances (the rest of its effect is idempotent: maxima of
/// occupancy and windows, and channel order).
pub(super) struct Counters {
    ops: Vec<usize>,
    chans: Vec<(u64, u64)>,
    ddr_reads: Vec<u64>,
    ddr_writes: Vec<u64>,
    loads: u64,
}

/// What one band added to the [`Counters`].
#[derive(Clone)]
pub(super) struct Effect {
    ops: Vec<(usize, usize)>,
    /// (channel, writes, reads).
    chans: Vec<(usize, u64, u64)>,
    ddr_reads: Vec<u64>,
    ddr_writes: Vec<u64>,
    loads: u64,
}

impl Counters {
    pub(super) fn of(b: &Builder, st: &Streams) -> Counters {
        Counters {
            ops: b.ops.clone(),
            chans: b.stats.iter().map(|s| (s.writes, s.reads)).collect(),
            ddr_reads: st.ddr_reads.clone(),
            ddr_writes: st.ddr_writes.clone(),
            loads: st.next_load_vid,
        }
    }
}

/// Per-key differences that must stay the same across a band (a statement's iterator
/// shift, an array's cell shift per dimension, a statement's dense-number shift).
struct Shifts(Vec<Option<Vec<i64>>>);

impl Shifts {
    fn new(n: usize) -> Shifts {
        Shifts(vec![None; n])
    }
    /// Whether `now - then` (element-wise) equals the shift already seen for `key`.
    fn agree(&mut self, key: usize, now: impl Iterator<Item = i64>, then: impl Iterator<Item = i64>) -> bool {
        let d = now.zip(then).map(|(a, b)| a.wrapping_sub(b));
        match &self.0[key] {
            Some(s) => s.iter().copied().eq(d),
            None => {
                self.0[key] = Some(d.collect());
                true
            }
        }
    }
}

/// Coordinates of a flat cell of an array with extents `dims` (last dimension fastest).
fn coords(dims: &[i64], mut cell: u64) -> impl Iterator<Item = i64> + '_ {
    let mut out = [0i64; 8];
    let n = dims.len().min(out.len());
    for (d, x) in dims[..n].iter().enumerate().rev() {
        let e = (*x).max(1) as u64;
        out[d] = (cell % e) as i64;
        cell /= e;
    }
    out.into_iter().take(dims.len())
}

impl Effect {
    /// What the network gained since `before`.
    pub(super) fn since(before: &Counters, b: &Builder, st: &Streams) -> Effect {
        let since = |now: &[u64], then: &[u64]| now.iter().enumerate().map(|(i, x)| x - then.get(i).copied().unwrap_or(0)).collect();
        Effect {
            ops: b.ops.iter().enumerate().map(|(i, x)| (i, x - before.ops.get(i).copied().unwrap_or(0))).filter(|e| e.1 > 0).collect(),
            chans: b
                .stats
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let (w, r) = before.chans.get(i).copied().unwrap_or((0, 0));
                    (i, s.writes - w, s.reads - r)
                })
                .filter(|e| e.1 + e.2 > 0)
                .collect(),
            ddr_reads: since(&st.ddr_reads, &before.ddr_reads),
            ddr_writes: since(&st.ddr_writes, &before.ddr_writes),
            loads: st.next_load_vid - before.loads,
        }
    }

    /// Adds a band `an` that repeats the band of this effect to the network: that band's
    /// counts, and the DDR versions and compulsory reads of `an`'s own cells.
    pub(super) fn repeat(&self, an: &Analysed, ctx: &Ctx, b: &mut Builder, st: &mut Streams) -> Result<(), Error> {
        let (p, stored): (_, &Bits) = (ctx.p, ctx.stored);
        self.add_counts(an.band.kind.len(), b, st);
        let mut srcs = an.srcs.iter();
        for (o, &k) in an.band.kind.iter().enumerate() {
            let s = &p.stmts[k];
            for a in s.reads.iter().filter(|a| !p.vars[a.var].is_scalar_argument()) {
                let src = srcs.next().ok_or_else(|| Error::internal("band analysis out of step"))?;
                match src.producer {
                    PackedSrc::LOCAL => {}
                    PackedSrc::INITIAL => {
                        st.version_read(stored, a.var, src.at as usize, None)?;
                    }
                    id => {
                        st.version_read(stored, a.var, src.at as usize, Some(id))?;
                    }
                }
            }
            if stored.get(an.band.id[o]) {
                let it = &an.band.iters(o)[..s.iters.len()];
                let cell = ctx.geo.write_cell(p, ctx.params, k, it)?;
                st.version_store(stored, s.write.var, cell, an.band.id[o]);
            }
        }
        Ok(())
    }
}

impl Effect {
    /// Adds the band's counts to the network, for a repeat of `instances` instances.
    fn add_counts(&self, instances: usize, b: &mut Builder, st: &mut Streams) {
        for &(pr, d) in &self.ops {
            b.ops[pr] += d;
        }
        for &(ch, w, r) in &self.chans {
            b.stats[ch].writes += w;
            b.stats[ch].reads += r;
        }
        st.ddr_reads.iter_mut().zip(&self.ddr_reads).for_each(|(x, d)| *x += d);
        st.ddr_writes.iter_mut().zip(&self.ddr_writes).for_each(|(x, d)| *x += d);
        st.next_load_vid += self.loads;
        st.next_vid += instances as u64;
        st.band_no += 1;
    }

    /// Adds a band proved to be this effect's band shifted by `shift`, without its
    /// enumeration (`translate.rs`): that band's counts, and the DDR versions and compulsory
    /// reads of the shifted cells, from the band's [`Summary`].
    pub(super) fn repeat_shifted(
        &self,
        summary: &mut Summary,
        shift: &Shift,
        ctx: &Ctx,
        b: &mut Builder,
        st: &mut Streams,
    ) -> Result<(), Error> {
        let (p, stored): (_, &Bits) = (ctx.p, ctx.stored);
        self.add_counts(summary.instances, b, st);
        let Summary { pieces, initial_shifts, .. } = summary;
        for InitialReads { slot, var, cells } in pieces.iter() {
            let (by, _) = shift.slots[*slot];
            // A piece's initial values at cells already shifted so for this template are
            // marked read already (GEMM's rows of A come again in every band of a row).
            if !initial_shifts.insert((*slot, by)) {
                continue;
            }
            for &at in cells {
                st.version_read(stored, *var, at.wrapping_add_signed(by) as usize, None)?;
            }
        }
        // A statement whose write is affine stores at its template's cells, moved by one offset.
        let moved: Vec<Option<i64>> =
            (ctx.geo.writes.iter().zip(&shift.delta)).map(|(w, d)| Some(w.as_ref()?.shift(d.as_ref()?))).collect();
        let mut it = Vec::new();
        let unshifted = || Error::internal("a shifted band's statement without its shift");
        for &Stored { stmt: k, id, at } in &summary.stores {
            let cell = match at {
                StoredAt::Cell(cell) => cell.wrapping_add_signed(moved[k].ok_or_else(unshifted)?) as usize,
                StoredAt::Iters(from) => {
                    let d = shift.delta[k].as_ref().ok_or_else(unshifted)?;
                    let iters = &summary.store_iters[from..from + d.len()];
                    it.clear();
                    it.extend(iters.iter().zip(d).map(|(a, x)| a + x));
                    ctx.geo.write_cell(p, ctx.params, k, &it)?
                }
            };
            st.version_store(stored, p.stmts[k].write.var, cell, id.wrapping_add_signed(shift.ids[k]));
        }
        Ok(())
    }
}

/// What a repeat of a band walks when the repeat was not enumerated: the band's reads of
/// initial values from DDR, each once, and its stores in σ order. (Its reads of values the
/// kernel computed change nothing: each finds the version its producer stored, as the
/// template's reads found theirs.)
pub(super) struct Summary {
    instances: usize,
    /// Per source piece that read initial values, the cells it read (after
    /// [`Summary::finish`]).
    pieces: Vec<InitialReads>,
    /// (source piece, cell shift) of the repeats added so far: their initial values are read.
    initial_shifts: std::collections::HashSet<(usize, i64)>,
    /// Per source piece that read initial values: the array and the cells it read, a bit
    /// each (a big band reads the same cells over and over; until [`Summary::finish`]).
    initial: Vec<Option<(usize, Bits)>>,
    /// Each instance whose value is stored, in σ order.
    stores: Vec<Stored>,
    /// The iterators of those whose statement's write is not affine.
    store_iters: Vec<i64>,
}

/// An instance of a [`Summary`]'s band whose value is stored: its statement and dense number,
/// and what says where it writes.
#[derive(Clone, Copy)]
struct Stored {
    stmt: usize,
    id: u64,
    at: StoredAt,
}

/// Where a [`Stored`] instance writes.
#[derive(Clone, Copy)]
enum StoredAt {
    /// The cell, where the statement's write is affine: a translate's is then this one moved
    /// by a constant.
    Cell(u64),
    /// Where the instance's iterators begin in `store_iters`.
    Iters(usize),
}

impl Summary {
    pub(super) fn of(an: &Analysed, ctx: &Ctx, slots: &Slots) -> Summary {
        let mut s = Summary::new(an.band.kind.len());
        s.add(&an.band, 0..an.band.kind.len(), &an.srcs, &an.piece, ctx, slots);
        s.finish();
        s
    }

    /// A summary of a band of `instances` instances, to [`Summary::add`] to a part at a time.
    pub(super) fn new(instances: usize) -> Summary {
        Summary {
            instances,
            pieces: Vec::new(),
            initial_shifts: Default::default(),
            initial: Vec::new(),
            stores: Vec::new(),
            store_iters: Vec::new(),
        }
    }

    /// Adds the band's instances `range` (σ positions in `band`), whose reads' sources and
    /// pieces are `srcs` and `piece`.
    pub(super) fn add(&mut self, band: &Band, range: std::ops::Range<usize>, srcs: &[PackedSrc], piece: &[u8], ctx: &Ctx, slots: &Slots) {
        let p = ctx.p;
        let mut j = 0;
        for o in range {
            let k = band.kind[o];
            for (r, a) in p.stmts[k].reads.iter().enumerate() {
                if p.vars[a.var].is_scalar_argument() {
                    continue;
                }
                let (s, piece) = (srcs[j], piece[j]);
                j += 1;
                let slot = slots.at(k, r, piece as usize);
                if s.producer == PackedSrc::INITIAL {
                    if self.initial.len() <= slot {
                        self.initial.resize_with(slot + 1, || None);
                    }
                    self.initial[slot].get_or_insert_with(|| (a.var, Bits::dense(p.vars[a.var].len() as u64))).1.set(s.at);
                }
            }
            if ctx.stored.get(band.id[o]) {
                let it = &band.iters(o)[..p.stmts[k].iters.len()];
                let at = match ctx.geo.writes[k].as_ref().and_then(|w| w.cell(it)) {
                    Some(cell) => StoredAt::Cell(cell as u64),
                    None => {
                        self.store_iters.extend_from_slice(it);
                        StoredAt::Iters(self.store_iters.len() - it.len())
                    }
                };
                self.stores.push(Stored { stmt: k, id: band.id[o], at });
            }
        }
    }

    /// Each cell read once, by source piece.
    pub(super) fn finish(&mut self) {
        self.pieces = (std::mem::take(&mut self.initial).into_iter().enumerate())
            .filter_map(|(slot, cells)| cells.map(|(var, cells)| InitialReads { slot, var, cells: cells.members().collect() }))
            .collect();
    }
}

/// The initial values one source piece (at [`Slots`]) of a [`Summary`]'s band reads: their
/// array and cells, in increasing order.
struct InitialReads {
    slot: usize,
    var: usize,
    cells: Vec<u64>,
}

impl Replica {
    pub(super) fn new(an: std::sync::Arc<Analysed>, effect: Effect) -> Replica {
        Replica { an, effect }
    }

    /// Whether `an` is this band translated (see the module comment). Dense instance numbers
    /// of one statement shift by a constant under a translation, so equal producers stay
    /// equal and distinct ones distinct: the band loads the same pattern of values.
    pub(super) fn matches(&self, an: &Analysed, ctx: &Ctx) -> bool {
        let (p, survey) = (ctx.p, ctx.survey);
        let (x, r) = (&an.band, &self.an.band);
        if an.at.nest != self.an.at.nest || x.kind != r.kind || an.sub != self.an.sub || an.srcs.len() != self.an.srcs.len() {
            return false;
        }
        let stmt_of = |id: u64| survey.offset.partition_point(|&o| o <= id) - 1;
        let (mut iters, mut producers, mut cells) = (Shifts::new(p.stmts.len()), Shifts::new(p.stmts.len()), Shifts::new(p.vars.len()));
        let mut j = 0;
        for (o, &k) in x.kind.iter().enumerate() {
            if ctx.stored.get(x.id[o]) != ctx.stored.get(r.id[o]) || !iters.agree(k, x.iters(o).iter().copied(), r.iters(o).iter().copied())
            {
                return false;
            }
            for a in &p.stmts[k].reads {
                let var = &p.vars[a.var];
                if var.is_scalar_argument() {
                    continue;
                }
                let (s, t) = (an.srcs[j], self.an.srcs[j]);
                j += 1;
                let same = match (s.producer, t.producer) {
                    (PackedSrc::LOCAL, PackedSrc::LOCAL) => s.at == t.at,
                    (PackedSrc::LOCAL, _) | (_, PackedSrc::LOCAL) => false,
                    (PackedSrc::INITIAL, PackedSrc::INITIAL) => true,
                    (PackedSrc::INITIAL, _) | (_, PackedSrc::INITIAL) => false,
                    (ps, pt) => {
                        let sk = stmt_of(pt);
                        stmt_of(ps) == sk && producers.agree(sk, std::iter::once(ps as i64), std::iter::once(pt as i64))
                    }
                };
                if !same || (s.producer != PackedSrc::LOCAL && !cells.agree(a.var, coords(&var.dims, s.at), coords(&var.dims, t.at))) {
                    return false;
                }
            }
        }
        true
    }
}
