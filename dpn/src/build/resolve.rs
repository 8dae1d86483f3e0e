//! Resolution: per read of a band's instances, its source (an instance of the band, or a DDR
//! cell with its version).

use super::*;

/// Read-only context of the band passes.
pub(super) struct Ctx<'a> {
    pub(super) p: &'a Program,
    pub(super) params: &'a [i64],
    pub(super) sare: &'a Sare,
    pub(super) geo: &'a Geometry<'a>,
    pub(super) survey: &'a Survey,
    pub(super) stored: &'a Bits,
}

/// Where one read of a band instance gets its value.
#[derive(Clone, Copy)]
pub(super) enum Src {
    /// Produced in the band, by the instance at this position in σ.
    Local(usize),
    /// From DDR: this cell, holding the initial value (`producer: None`) or the value stored
    /// by this instance (dense number).
    Ddr { cell: usize, producer: Option<u64> },
}

/// A [`Src`] in 16 bytes rather than 32 (a big band holds tens of millions of reads, and
/// every page of them costs a fault): `producer` is [`PackedSrc::LOCAL`] for a local source
/// (`at` its position), [`PackedSrc::INITIAL`] for an initial value, else the producer.
#[derive(Clone, Copy)]
pub(super) struct PackedSrc {
    pub(super) at: u64,
    pub(super) producer: u64,
}

impl PackedSrc {
    pub(super) const LOCAL: u64 = u64::MAX;
    pub(super) const INITIAL: u64 = u64::MAX - 1;
    pub(super) fn pack(s: Src) -> PackedSrc {
        match s {
            Src::Local(so) => PackedSrc { at: so as u64, producer: PackedSrc::LOCAL },
            Src::Ddr { cell, producer } => PackedSrc { at: cell as u64, producer: producer.unwrap_or(PackedSrc::INITIAL) },
        }
    }
    pub(super) fn unpack(self) -> Src {
        match self.producer {
            PackedSrc::LOCAL => Src::Local(self.at as usize),
            PackedSrc::INITIAL => Src::Ddr { cell: self.at as usize, producer: None },
            id => Src::Ddr { cell: self.at as usize, producer: Some(id) },
        }
    }
}

/// A band sorted by σ with its reads resolved (see [`Band::analyse`]).
pub(super) struct Analysed {
    pub(super) band: Band,
    pub(super) sigma: Vec<usize>,
    /// Per instance: its parallel sub-band (none without `--par`: see [`Part::sub`]).
    pub(super) sub: Vec<usize>,
    /// Per instance, per read of a variable (scalar arguments skipped): the source, and the
    /// source piece that gave it (`u8::MAX`: past 254).
    pub(super) srcs: Vec<PackedSrc>,
    pub(super) piece: Vec<u8>,
    /// The band number of the template this band is a translate of (see `build/translate.rs`):
    /// its reads were not resolved one by one, and it repeats that band.
    pub(super) translate_of: Option<usize>,
    /// Whether the worker keeps a template of this band (the assembly then records its effect),
    /// and the templates it dropped since its last band (whose effects are no longer needed).
    pub(super) template: bool,
    pub(super) evicted: Vec<usize>,
    /// Where each instance of the band is (rebuilt per band, its buffers reused).
    pub(super) local: LocalIndex,
    /// (nest, band number, bands in the nest), for progress.
    pub(super) at: BandAt,
}

impl Analysed {
    /// Resolves every read of the band's instances `range` (positions in σ), appending
    /// their sources to `srcs` and source pieces to `piece`: produced in the band (by which
    /// instance) or from DDR (which cell, which producer). Pure: runs beside an assembly.
    pub(super) fn resolve(
        &self,
        ctx: &Ctx,
        range: std::ops::Range<usize>,
        srcs: &mut Vec<PackedSrc>,
        pieces: &mut Vec<u8>,
    ) -> Result<(), Error> {
        resolve(ctx, self.part(), &self.local, &[range], srcs, pieces)
    }
    /// The whole band as a [`Part`].
    pub(super) fn part(&self) -> Part<'_> {
        Part { base: 0, band: &self.band, sub: &self.sub }
    }
}

impl Analysed {
    pub(super) fn new(p: &Program) -> Analysed {
        Analysed {
            band: Band::new(p),
            sigma: Vec::new(),
            sub: Vec::new(),
            srcs: Vec::new(),
            piece: Vec::new(),
            translate_of: None,
            template: false,
            evicted: Vec::new(),
            local: LocalIndex::default(),
            at: BandAt::default(),
        }
    }

    /// Assigns every read of the band to a channel (or a load) and stores values that
    /// leave it.
    pub(super) fn assemble(&self, ctx: &Ctx, scratch: &mut Scratch, b: &mut Builder, st: &mut Streams) -> Result<(), Error> {
        let n = self.band.kind.len();
        let mut asm = Assembly::start(n, scratch, b, st);
        let feed = Feed { part: self.part(), range: 0..n, srcs: &self.srcs, plan: &stretch::Plan::default() };
        asm.instances(feed, ctx, scratch, b, st)?;
        asm.finish(st);
        Ok(())
    }
}

/// Instances of a band from position `base` in σ on: a whole band, or one streamed chunk.
#[derive(Clone, Copy)]
pub(super) struct Part<'a> {
    pub(super) base: usize,
    pub(super) band: &'a Band,
    /// Per instance, its parallel sub-band (empty: all in sub-band 0, see
    /// [`Geometry::one_subband`]).
    pub(super) sub: &'a [usize],
}

/// Instances of a band for its assembly: `range` of `part`, with `srcs` the sources of their
/// reads and `plan` their stretches (see `build/stretch.rs`; empty: one instance at a time).
pub(super) struct Feed<'a> {
    pub(super) part: Part<'a>,
    pub(super) range: std::ops::Range<usize>,
    pub(super) srcs: &'a [PackedSrc],
    pub(super) plan: &'a stretch::Plan,
}

/// [`Analysed::resolve`] for the instances `ranges` of `part` (in order), whose band `local`
/// indexes (at least up to their end: a source comes before its reader in σ).
pub(super) fn resolve(
    ctx: &Ctx,
    part: Part,
    local: &LocalIndex,
    ranges: &[std::ops::Range<usize>],
    srcs: &mut Vec<PackedSrc>,
    pieces: &mut Vec<u8>,
) -> Result<(), Error> {
    let Ctx { p, params, sare, geo, survey, .. } = *ctx;
    let band = part.band;
    let mut src = Vec::new();
    // Sources found in the band's dense index are resolved AHEAD reads later, once the
    // slot asked for has arrived: (position in `srcs`, statement, read, piece, slot),
    // with the source's iterators `stride` each in `ring_src`.
    let mut ring: Vec<(usize, usize, usize, usize, usize)> = Vec::with_capacity(AHEAD);
    let mut ring_src = vec![0i64; AHEAD * band.stride];
    let mut next = 0usize;
    let resolve = |k: usize, r: usize, piece: usize, here: Option<usize>, src: &[i64]| -> Result<Src, Error> {
        match here {
            Some(so) => Ok(Src::Local(so)),
            None => ddr_source(ctx, k, r, piece, src),
        }
    };
    let stride = band.stride;
    // Per read: its line (the piece that matched last, tried first).
    let mut lines: Vec<Vec<Line>> = p.stmts.iter().map(|s| vec![Line::default(); s.reads.len()]).collect();
    // Per read: where in `srcs` it was last resolved and at which instance; an instance
    // equal to that one on the iterators its source depends on has the same source (a
    // scalar, a row element along a loop that does not move it), copied at the end.
    let mut last: Vec<Vec<Option<(usize, usize)>>> = p.stmts.iter().map(|s| vec![None; s.reads.len()]).collect();
    // Reads that take an earlier read's source, filled at the end (to, from).
    let mut copies: Vec<(usize, usize)> = Vec::new();
    let settle = |e: (usize, usize, usize, usize, usize), src: &[i64], srcs: &mut Vec<PackedSrc>| -> Result<(), Error> {
        let (at, k, r, piece, x) = e;
        srcs[at] = PackedSrc::pack(match local.at(x) {
            Some(so) => Src::Local(so),
            None => resolve(k, r, piece, None, &src[..p.stmts[sare.reads[k][r].sources[piece].stmt.unwrap_or(k)].iters.len()])?,
        });
        Ok(())
    };
    for o in ranges.iter().flat_map(|r| r.start - part.base..r.end - part.base) {
        let k = band.kind[o];
        let s = &p.stmts[k];
        let it = &band.iters(o)[..s.iters.len()];
        for &r in &geo.array_reads[k] {
            let again = match (last[k][r], &geo.deps[k][r]) {
                (Some((at, o)), Some(deps)) if deps.iter().all(|&d| band.iters(o)[d] == it[d]) => Some(at),
                _ => None,
            };
            // A place for the source of the read at `from`, filled at the end.
            let copy = |from: usize, srcs: &mut Vec<PackedSrc>, pieces: &mut Vec<u8>, copies: &mut Vec<(usize, usize)>| {
                copies.push((srcs.len(), from));
                srcs.push(PackedSrc::pack(Src::Local(0)));
                pieces.push(pieces[from]);
            };
            if let Some(from) = again {
                copy(from, srcs, pieces, &mut copies);
                continue;
            }
            let line = &mut lines[k][r];
            let piece = line
                .source(&sare.reads[k][r], &geo.linear[k][r], params, it, &mut src)
                .ok_or_else(|| Error::internal(format!("no source for {}{:?}", s.name, it)))?;
            // One step on along a line that does not move the source (Floyd-Warshall's
            // `path[i][k]` along `j`): the resolution the line started from, copied.
            if let (true, Some((from, _))) = (line.stood(), last[k][r]) {
                copy(from, srcs, pieces, &mut copies);
                continue;
            }
            last[k][r] = Some((srcs.len(), o));
            // The band holds exactly its tiles' instances, so a source is in the band
            // (same nest, same tile coordinates) exactly when the band's index finds it.
            let origin = sare.reads[k][r].sources[piece].stmt;
            pieces.push(u8::try_from(piece).unwrap_or(u8::MAX));
            match origin.and_then(|sk| local.dense_slot(sk, &src)) {
                Some(x) => {
                    prefetch(&local.slots[x]);
                    let at = srcs.len();
                    srcs.push(PackedSrc::pack(Src::Local(0)));
                    let i = next % AHEAD;
                    next += 1;
                    if ring.len() < AHEAD {
                        ring.push((at, k, r, piece, x));
                    } else {
                        settle(ring[i], &ring_src[i * stride..(i + 1) * stride], srcs)?;
                        ring[i] = (at, k, r, piece, x);
                    }
                    ring_src[i * stride..i * stride + src.len()].copy_from_slice(&src);
                }
                None => {
                    let here = origin.and_then(|sk| local.get(survey, sk, &src));
                    srcs.push(PackedSrc::pack(resolve(k, r, piece, here, &src)?));
                }
            }
        }
    }
    for j in 0..ring.len() {
        // Oldest first (the order does not matter: each fills its own place).
        let i = (next + j) % ring.len().max(1);
        settle(ring[i], &ring_src[i * stride..(i + 1) * stride], srcs)?;
    }
    for (to, from) in copies {
        srcs[to] = srcs[from];
    }
    Ok(())
}

/// The DDR cell and producer that read `r` of statement `k` takes through source piece
/// `piece` from the source `src` outside the band (an error when the piece's source is
/// always in the reader's band: it should have been found there).
pub(super) fn ddr_source(ctx: &Ctx, k: usize, r: usize, piece: usize, src: &[i64]) -> Result<Src, Error> {
    let Ctx { p, params, sare, geo, survey, .. } = *ctx;
    match sare.reads[k][r].sources[piece].stmt {
        Some(sk) if geo.stays[k][r][piece] => Err(source_outside(p, sk, src)),
        Some(sk) => Ok(Src::Ddr {
            cell: geo.write_cell(p, params, sk, src)?,
            producer: Some(survey.id(sk, src).ok_or_else(|| source_outside(p, sk, src))?),
        }),
        None => {
            let a = &p.stmts[k].reads[r];
            let cell = flatten(&p.vars[a.var].dims, src).ok_or_else(|| Diagnostic::new(a.span, "read out of bounds"))?;
            Ok(Src::Ddr { cell, producer: None })
        }
    }
}
