//! Construction of the DPN for concrete parameter values (DESIGN.md §4, paper §4–5).
//!
//! The statement instances are ordered by the tiled schedule σ = (nest, tile coordinates,
//! hyperplanes, original order). Walking σ band by band gives every process its operations:
//! a read whose source lies in the same band becomes a channel from the producer's process
//! to the consumer's port (Local or Sync); a read whose source lies in an earlier band, or
//! is an initial value, is loaded from DDR once per band at its first use and fanned out to
//! every port that needs it; a value read by a later band, or final, is stored once.
//! Channel kinds and sizes come from replaying σ: a channel's size is its peak occupancy,
//! which is enough for the network to complete under any timing (σ itself is a witness
//! schedule). Channels are empty between bands, so bands are replayed one at a time and
//! only a few are ever in memory.
//!
//! [`construct`] runs the passes in order, each in its file, each handing the next a named
//! type: pass 0 (`survey.rs`) a [`Survey`], pass 1 (`leaving.rs`) the values that leave
//! their band, pass 2 (`bands.rs`) the network as [`bands::Assembled`]. Pass 2's stages have
//! files of their own: enumerating and sorting a band (`band.rs`, or `pipe.rs` a chunk at a
//! time), indexing it (`local_index.rs`), resolving its reads (`resolve.rs`), assembling it
//! (`assembly.rs`, DDR versions in `streams.rs`) into the [`Builder`] (`builder.rs`), and
//! replaying its channels (`replay.rs`).

use crate::ir::*;
use crate::scan::{BandScan, Run};
use crate::tiling::{self, Nest};
use crate::trace::*;
use crate::Error;
use cell::CellMap;
use cell_table::CellTable;
use dpnc_frontend::dataflow::Sare;
use dpnc_frontend::interp::{for_each_run, index_of, out_of_bounds};
use dpnc_frontend::ir::{Program, VarKind};
use dpnc_frontend::store::flatten;
use dpnc_frontend::Diagnostic;
use events::{Events, Log};
use line::{Line, Linear};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::*};
use std::sync::Arc;

mod admission;
mod assembly;
mod band;
mod bands;
mod bits;
mod boxes;
mod builder;
mod cell;
mod cell_table;
mod events;
mod geometry;
mod leaving;
mod line;
mod local_index;
mod mark;
mod pipe;
mod repeat;
mod replay;
mod resolve;
mod streams;
mod stretch;
mod survey;
mod translate;

use admission::Admission;
use assembly::{prefetch, Assembly, Scratch, AHEAD};
use band::{radix_sort, Band, BandAt};
use bands::{Chunk, Msg, QUEUE};
use bits::Bits;
use builder::{describe_processes, loop_nests, Builder};
use geometry::{some_of, Geometry};
use local_index::{LocalIndex, SmallKeys};
use pipe::{each, pipe, program_ordered, PipedBand};
use resolve::{ddr_source, resolve, Analysed, Ctx, Feed, PackedSrc, Part, Src};
use streams::Streams;
use survey::{band_tiles, box_points, parts, Survey};

/// Tile sizes, parallelism and optional user hyperplanes.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// `--tile s1,s2,…` (the last size repeats for deeper nests).
    pub tile: Vec<i64>,
    /// `--par p1,p2,…` for the outer hyperplanes (missing ones are 1).
    pub par: Vec<i64>,
    /// `--subbands`: how each tile is divided among the sub-bands.
    pub subbands: crate::shape::Layout,
    /// `--hyperplanes "S0: i, j, 0; S1: i, j, k"`.
    pub hyperplanes: Option<String>,
    /// Refuse to build networks with more statement instances than this (0: 50 million
    /// with traces, 100 billion without).
    pub max_instances: u64,
    /// Say on stderr what is happening when the network is large (the CLI sets this).
    pub progress: bool,
    /// With `progress`: where the bands' progress goes (otherwise, plain lines on stderr).
    pub on_step: Option<OnStep>,
    /// Keep every process's trace, for the software executor (`exec`); without them,
    /// memory does not grow with the number of bands.
    pub keep_traces: bool,
    /// Derive what code generation needs (scratchpad windows, [`crate::sync`] predicates).
    pub codegen: bool,
    /// Assemble every band, even one that repeats an earlier band (see `build/repeat.rs`;
    /// the result is the same, only slower: for tests that compare both ways).
    pub every_band: bool,
    /// Bands of more than this many instances are resolved and assembled in chunks of
    /// this many, the worker resolving one while the assembly takes the last (0: bands
    /// over [`STREAM_ABOVE`] in chunks of [`CHUNK`]; tests set it small, and a worker's
    /// whole templates then hold at most eight chunks, so that small kernels keep compact
    /// templates too, the bands streamed at once at most two: `build/admission.rs`, and a
    /// channel of more events than a chunk has its window tracked only where out of order:
    /// `build/replay.rs`).
    pub chunk: usize,
    /// Bands of more instances than this are too big to build (0: [`MAX_BAND`]; tests set
    /// it small), and nests with bands of over a tenth of it are tiled again with statements
    /// shifted past whole loops where that tiles more loops ([`BIG_BAND_FRACTION`]); a nest
    /// is refused if its bands are still too big. Bands in program order are streamed,
    /// up to [`MAX_PIPED`] whatever this says.
    pub max_band: usize,
}

/// A band this big is streamed (see [`Config::chunk`]): its analysis and assembly overlap
/// instead of running one after the other, and its reads' sources (16 bytes each) are
/// never held whole.
pub const STREAM_ABOVE: usize = 1 << 20;
/// Instances per chunk of a streamed band.
pub const CHUNK: usize = 1 << 16;

/// How far a long construction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Band `band` (from 0) of the `bands` of loop nest `nest`; for a band assembled in
    /// parts, the percent of it done.
    Band { nest: usize, band: u64, bands: u64, percent: Option<u64> },
    /// `done` of the `total` questions that symbolic pass `pass`, begun at `started`, asks
    /// isl (one per channel, or per Load process), told once the pass has taken [`SLOW_PASS`].
    Isl { pass: &'static str, done: u64, total: u64, started: std::time::Instant },
}

/// The symbolic passes, as progress names them.
const RELATIONS: &str = "channel relations, muxes and demuxes";
const SYNC: &str = "synchronisation predicates";

/// A symbolic pass that has run this long says how far it is.
pub const SLOW_PASS: std::time::Duration = std::time::Duration::from_secs(2);

/// Receives the [`Step`]s of a long construction (the command line draws a bar with them).
#[derive(Clone)]
pub struct OnStep(pub std::sync::Arc<dyn Fn(Step) + Send + Sync>);

impl std::fmt::Debug for OnStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnStep(…)")
    }
}

/// Tells `cfg.on_step`, or without one prints a line at most every two seconds.
fn tell(cfg: &Config, shown: &mut std::time::Instant, started: std::time::Instant, step: Step) {
    if let Some(on) = &cfg.on_step {
        return (on.0)(step);
    }
    if shown.elapsed().as_secs() >= 2 {
        *shown = std::time::Instant::now();
        let secs = started.elapsed().as_secs_f64();
        match step {
            Step::Band { nest, band, bands, percent } => {
                let part = percent.map_or(String::new(), |pc| format!(", {pc}%"));
                eprintln!("dpnc:   nest {nest}: band {}/{bands}{part} ({secs:.0} s)", band + 1);
            }
            Step::Isl { pass, done, total, .. } => eprintln!("dpnc:   {pass}: {done} of {total} ({secs:.0} s)"),
        }
    }
}

/// What symbolic pass `pass` calls as its questions are answered (so many of so many): nothing
/// until the pass has taken [`SLOW_PASS`] (most take a fraction of a second), then
/// [`Step::Isl`] through [`tell`]. From the last question on, every call is told, so a
/// pass that was shown is shown finished.
fn pass_progress<'a>(cfg: &'a Config, pass: &'static str) -> impl Fn(usize, usize) + Sync + 'a {
    let started = std::time::Instant::now();
    let shown = std::sync::Mutex::new(started);
    move |done, total| {
        if !cfg.progress || started.elapsed() < SLOW_PASS {
            return;
        }
        if let Ok(mut shown) = shown.lock() {
            tell(cfg, &mut shown, started, Step::Isl { pass, done: done as u64, total: total as u64, started });
        }
    }
}

/// Says on stderr how long each step of a long construction took (steps over a second).
struct Phase {
    on: bool,
    last: std::cell::Cell<std::time::Instant>,
}

impl Phase {
    fn new(on: bool) -> Phase {
        Phase { on, last: std::cell::Cell::new(std::time::Instant::now()) }
    }
    fn done(&self, what: &str) {
        let took = self.last.get().elapsed().as_secs_f64();
        if self.on && took >= 1.0 {
            eprintln!("dpnc:   {what}: {took:.1} s");
        }
        self.last.set(std::time::Instant::now());
    }
}

/// What construction did beside the network it built; the network is the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Bands that repeated an assembled one (built from it, not assembled; see
    /// `build/repeat.rs`).
    pub repeated_bands: usize,
    /// Of those, the ones proved translates of an analysed band before their own analysis
    /// (`build/translate.rs`).
    pub translated_bands: usize,
    /// Of those, the ones proved so without their enumeration (`Template::shifted`).
    pub shifted_bands: usize,
    /// Of those, the ones proved against a compact template (of a streamed band).
    pub shifted_of_compact: usize,
    /// Bands resolved and assembled in chunks ([`Config::chunk`]).
    pub streamed_bands: usize,
    /// The bands were assembled twice: a scratchpad's window was left out of a band where
    /// its values stayed in order (see `build/replay.rs`, `Windows`).
    pub assembled_again: bool,
}

/// A network with what its construction found out on the way.
#[derive(Clone, Debug)]
pub struct Construction {
    /// The network.
    pub dpn: Dpn,
    /// How it was built.
    pub stats: BuildStats,
    /// Every process's trace, with [`Config::keep_traces`] (otherwise empty).
    pub traces: Traces,
}

/// The network of kernel `p` for the shape `cfg` asks for.
pub fn build(p: &Program, sare: &Sare, cfg: &Config) -> Result<Dpn, Error> {
    construct(p, sare, cfg).map(|c| c.dpn)
}

/// More sub-bands per statement than this get a note (GEMM at `--par 16,16` has 256, a
/// design the board can hold): `--par 16` on a nest with three band hyperplanes means 4,096,
/// each a process with channels to its neighbours, and the symbolic passes ask isl about
/// every channel.
const MANY_SUBBANDS: i64 = 256;

/// A note for each loop nest (of `dims` hyperplanes each) whose statements get more than
/// [`MANY_SUBBANDS`] sub-bands at `par`, since a value of `--par` repeats over every band
/// hyperplane.
fn many_subbands(dims: &[usize], par: &[i64]) -> Vec<String> {
    let mut notes = Vec::new();
    for (n, &d) in dims.iter().enumerate() {
        let outer = &par[..d.saturating_sub(1).min(par.len())];
        let subbands: i64 = outer.iter().product();
        if subbands > MANY_SUBBANDS {
            let each: Vec<String> = outer.iter().map(i64::to_string).collect();
            let first_only: Vec<String> = (0..outer.len()).map(|i| if i == 0 { each[0].clone() } else { "1".into() }).collect();
            notes.push(format!(
                "loop nest {n} gets {subbands} sub-bands per statement ({} on its {} band hyperplanes), a process each: building and simulating the network grow with them (`--par {}` splits the first hyperplane only)",
                each.join(" × "),
                outer.len(),
                first_only.join(",")
            ));
        }
    }
    notes
}

/// The network with its construction's statistics and, with [`Config::keep_traces`], the
/// traces the software executor runs.
pub fn construct(p: &Program, sare: &Sare, cfg: &Config) -> Result<Construction, Error> {
    if let Some(s) = cfg.tile.iter().find(|&&s| s < 1) {
        return Err(Diagnostic::global(format!("tile size {s} is not positive")).into());
    }
    if let Some(q) = cfg.par.iter().find(|&&q| q < 1) {
        return Err(Diagnostic::global(format!("parallelism {q} is not positive")).into());
    }
    let phase = Phase::new(cfg.progress);
    let nests = tile(p, cfg, &[])?;
    phase.done("tiling hyperplanes");
    construct_with(p, sare, cfg, nests, &[])
}

/// The hyperplanes of every nest for `cfg`, the nests whose first statement is in `long`
/// with statements shifted past whole loops where that tiles more loops (see
/// `tiling::choose`).
fn tile(p: &Program, cfg: &Config, long: &[usize]) -> Result<Vec<Nest>, Error> {
    tiling::choose(p, &p.param_values()?, cfg.hyperplanes.as_deref(), tiling::Cut { tile: &cfg.tile, par: &cfg.par }, long)
}

/// [`construct`] with the nests tiled, those of `long` with long shifts already. A nest whose
/// bands are big ([`BIG_BAND_FRACTION`]) is tiled with them where that tiles more of its
/// loops; one whose bands are still too big to build is refused.
fn construct_with(p: &Program, sare: &Sare, cfg: &Config, nests: Vec<Nest>, long: &[usize]) -> Result<Construction, Error> {
    let params = p.param_values()?;
    let phase = Phase::new(cfg.progress);
    let nest_of = tiling::nest_of(&nests, p.stmts.len());
    let depth = nests.iter().map(|n| n.dims).max().unwrap_or(0);
    // One shape may serve several kernels (a sweep, a test set), so values past this kernel's
    // hyperplanes are not an error; but the user is told they are not used.
    for (what, list) in [("--tile", &cfg.tile), ("--par", &cfg.par)] {
        if cfg.progress && list.len() > depth.max(1) {
            eprintln!(
                "dpnc: note: {what} gives {} values, but the deepest loop nest has {depth} tiling hyperplane{}: {} not used",
                list.len(),
                if depth == 1 { "" } else { "s" },
                list.len() - depth.max(1)
            );
        }
    }
    let sizes: Vec<i64> = (0..depth).map(|d| crate::shape::tile_size(&cfg.tile, d)).collect();
    // A value given for a hyperplane must fit its tile; the last value, repeated over the
    // hyperplanes after it, is capped at each tile size (and the user told so).
    for d in 0..depth {
        let (q, s) = (crate::shape::par_size(&cfg.par, d), sizes[d]);
        if q > s && d < cfg.par.len() {
            return Err(Diagnostic::global(format!(
                "--par {q} on hyperplane {d} exceeds the tile size {s}: a sub-band cannot be thinner than one iteration"
            ))
            .into());
        }
        if q > s && cfg.progress {
            eprintln!("dpnc: note: --par {q}, repeated on hyperplane {d}, is capped at its tile size {s}");
        }
    }
    let par: Vec<i64> = (0..depth).map(|d| crate::shape::par_size(&cfg.par, d).min(sizes[d])).collect();
    if cfg.progress {
        let dims: Vec<usize> = nests.iter().map(|n| n.dims).collect();
        many_subbands(&dims, &par).iter().for_each(|note| eprintln!("dpnc: note: {note}"));
    }
    let mut geo = Geometry::new(p, sare, &params, &nests, nest_of.clone(), sizes, par);

    // Pass 0: how big, and where. Counting first refuses a kernel too large for the walk of
    // every instance below without walking them. Without traces, memory follows the bands
    // and the stored values rather than the instances (GEMM at 4096³, 68.7 billion, is
    // built); the bound keeps a kernel whose bands do not repeat from walking for hours.
    let limit = match (cfg.max_instances, cfg.keep_traces) {
        (0, true) => 50_000_000,
        (0, false) => 100_000_000_000,
        (n, _) => n,
    };
    if let Err(size) = dpnc_frontend::interp::instance_total_up_to(p, &params, limit)? {
        let why = if cfg.keep_traces { "too large to execute as a software network" } else { "too large" };
        return Err(Diagnostic::global(format!("{size}: {why}; use smaller sizes")).into());
    }
    let survey = Survey::new(p, &params, &geo)?;
    let limit = if cfg.max_band == 0 { MAX_BAND } else { cfg.max_band };
    // A nest is named by its first statement (as `long` names it).
    let first = |b: &BigBand| nests[b.nest].stmts[0];
    // A nest with big bands that tiles more loops with long shifts is built so.
    let retile: Vec<BigBand> =
        big_bands(p, &survey, &nests, limit / BIG_BAND_FRACTION, false).into_iter().filter(|b| !long.contains(&first(b))).collect();
    if !retile.is_empty() {
        let wider = [long, &retile.iter().map(first).collect::<Vec<_>>()].concat();
        let again = tile(p, cfg, &wider)?;
        let dims = |nests: &[Nest], s: usize| nests.iter().find(|n| n.stmts.contains(&s)).map_or(0, |n| n.dims);
        let gains: Vec<&BigBand> = retile.iter().filter(|b| dims(&again, first(b)) > dims(&nests, first(b))).collect();
        if !gains.is_empty() {
            if cfg.progress {
                for b in &gains {
                    eprintln!(
                        "dpnc: note: a band of the loop nest of {} holds {} statement instances: the nest is tiled along more loops, with statements after a whole loop shifted past it (smaller bands, built faster and with less on-chip memory, for more DDR traffic)",
                        p.stmts[first(b)].name, b.size
                    );
                }
            }
            return construct_with(p, sare, cfg, again, &wider);
        }
    }
    if let Some(b) = big_bands(p, &survey, &nests, limit, true).first() {
        return Err(band_too_large(&nests[b.nest], b.ordered, b.size, limit).into());
    }
    geo.interleaved = geo.compute_interleaved(&survey, cfg.subbands);
    let progress = cfg.progress && survey.instances > 2_000_000;
    if progress {
        eprintln!("dpnc: building the process network: {} statement instances…", survey.instances);
    }

    phase.done("survey of the instances");
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, MAX_WORKERS);
    let (stream_above, chunk) = if cfg.chunk == 0 { (STREAM_ABOVE, CHUNK) } else { (cfg.chunk, cfg.chunk) };
    // Whether band `bi` of nest `ni` is big enough to be streamed (pass 1 then walks it in parts).
    let big = |ni: usize, bi: usize| survey.sizes.as_ref().is_some_and(|s| s[ni][bi] > stream_above as u64);
    // Pass 1: values that leave their band (`build/leaving.rs`).
    geo.stays = geo.compute_stays(p, sare);
    let inputs = leaving::Inputs { p, sare, params: &params, geo: &geo, survey: &survey, nests: &nests, tile: &cfg.tile };
    let leaving::Leaving { mut stored, compulsory_writes } = leaving::mark_leaving(&inputs, workers, &big)?;
    stored.index();
    phase.done("values leaving their band");
    // Pass 2: band by band, in σ order (`build/bands.rs`).
    let ctx = Ctx { p, params: &params, sare, geo: &geo, survey: &survey, stored: &stored };
    let template_instances = if cfg.chunk == 0 { translate::TEMPLATE_INSTANCES } else { 8 * cfg.chunk };
    let held_instances = if cfg.chunk == 0 { MAX_BAND } else { 2 * cfg.chunk };
    let windows = match (cfg.codegen, cfg.chunk) {
        (false, _) => replay::Windows::None,
        (true, 0) => replay::Windows::OutOfOrder { above: replay::LAZY_WINDOW_EVENTS },
        (true, chunk) => replay::Windows::OutOfOrder { above: chunk },
    };
    let mut inputs = bands::Inputs { nests: &nests, cfg, stream_above, chunk, template_instances, held_instances, progress, windows };
    let mut assembled = bands::assemble_bands(&ctx, &inputs, workers)?;
    if assembled.windows_left_out {
        // A scratchpad in order in some band: its window there is needed after all.
        phase.done("processes and channels, band by band (a scratchpad kept its values in order in a big band, where its window was left out: once more, with every window)");
        inputs.windows = replay::Windows::Every;
        drop(assembled);
        assembled = bands::assemble_bands(&ctx, &inputs, workers)?;
    }
    let bands::Assembled { mut b, st, bands, mut stats, .. } = assembled;
    stats.assembled_again = inputs.windows == replay::Windows::Every;
    phase.done(&format!(
        "processes and channels, band by band ({} of {bands} bands repeat an earlier one, {} of them proved before their analysis, {} without enumerating them)",
        stats.repeated_bands, stats.translated_bands, stats.shifted_bands
    ));
    describe_processes(p, &params, &geo, cfg, &mut b.processes)?;
    loop_nests(p, &params, &geo, cfg, &survey, &mut b.processes)?;
    let mut dpn = Dpn {
        kernel: p.kernel.clone(),
        params: p.params.iter().zip(&params).map(|(q, v)| (q.name.clone(), *v)).collect(),
        tile: cfg.tile.clone(),
        par: cfg.par.clone(),
        interleaved: geo.interleaved.clone(),
        schedules: (0..p.stmts.len())
            .map(|k| Schedule { sigma: crate::sync::sigma(p, &nests, &cfg.tile, k), band: crate::sync::band_key(p, &nests, &cfg.tile, k) })
            .collect(),
        nests,
        bands,
        processes: b.processes,
        channels: b.channels,
        ddr_reads: st.ddr_reads,
        ddr_writes: st.ddr_writes,
        compulsory_reads: st.initial.iter().map(Bits::count).collect(),
        compulsory_writes,
    };
    let traces = Traces { per_process: b.traces, loads_needed: st.loads_needed };
    crate::relations::derive(p, sare, &mut dpn, pass_progress(cfg, RELATIONS))?;
    phase.done(&format!("{RELATIONS} (isl)"));
    if cfg.codegen {
        crate::sync::derive(p, &mut dpn, pass_progress(cfg, SYNC))?;
        phase.done(&format!("{SYNC} (isl)"));
    }
    let errs = crate::validate::validate(p, &dpn, &traces);
    if !errs.is_empty() {
        return Err(Error::internal(format!("the process network is invalid:\n  {}", errs.join("\n  "))));
    }
    Ok(Construction { dpn, stats, traces })
}

/// Threads that enumerate and analyse bands (beside the one that assembles them): each
/// holds a band or two in memory.
const MAX_WORKERS: usize = 4;
/// Runs at least this long are marked in pass 1 along their lines (`build/mark.rs`); single
/// instances go point by point, where consecutive ones share work.
const LONG_RUN: u64 = 2;

/// Instances one band may hold: construction keeps a few bands in memory, at about 200
/// bytes per instance.
const MAX_BAND: usize = 40_000_000;

/// A band of over a tenth of what can be built ([`Config::max_band`]) is big: a band that
/// repeats no other is walked instance by instance (some seconds per ten million), and where
/// its nest leaves a loop out of the band (trmm's k, below `B[i][j] = alpha * B[i][j]`), its
/// windows span that whole loop. Such a nest is tiled with long shifts where they tile more
/// of its loops; smaller nests keep the DDR traffic that the loop left out saves.
const BIG_BAND_FRACTION: usize = 10;

/// Instances a piped band may hold (see [`pipe`]): it is never held whole, only its
/// index and per instance its process and demux bits (some 20 bytes), with its channels'
/// events as runs. Floyd-Warshall's one band at PolyBench's MEDIUM size holds 125 million.
const MAX_PIPED: usize = 200_000_000;

// Times of σ inside a band (4 per instance, doubled for the read bit) fit an event's `u32`.
const _: () = assert!(8 * MAX_PIPED as u64 + 8 <= u32::MAX as u64 && MAX_BAND <= MAX_PIPED);

/// Pseudo-random numbers below the bound asked (xorshift), the same on every run: the
/// build's unit tests draw their cases from it.
#[cfg(test)]
fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |m| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    }
}

/// A band over a limit, found by the survey before any pass walks it.
struct BigBand {
    /// Its nest (position in the nests), whether that runs in program order, its instances.
    nest: usize,
    ordered: bool,
    size: usize,
}

/// The first band of each nest of over `limit` instances; with `streamed_fit`, but for those
/// in program order (streamed, up to [`MAX_PIPED`]) dense enough for their index. Pass 2
/// refuses the same bands as it walks them where the survey did not count them.
fn big_bands(p: &Program, survey: &Survey, nests: &[Nest], limit: usize, streamed_fit: bool) -> Vec<BigBand> {
    let Some(sizes) = &survey.sizes else { return Vec::new() };
    let mut big = Vec::new();
    for (n, (nest, sizes)) in nests.iter().zip(sizes).enumerate() {
        let ordered = program_ordered(p, nest);
        let fits = |size: usize| streamed_fit && ordered && size <= MAX_PIPED && LocalIndex::fits(survey, nest, size);
        if let Some(size) = sizes.iter().map(|&n| n as usize).find(|&size| size > limit && !fits(size)) {
            big.push(BigBand { nest: n, ordered, size });
        }
    }
    big
}

/// Refuses a band of `size` instances (0: not counted) of `nest`, which is in program order
/// or not: over [`MAX_PIPED`] if it is and is that big, else over `max_band`.
fn band_too_large(nest: &Nest, ordered: bool, size: usize, max_band: usize) -> Diagnostic {
    let limit = if ordered && size > MAX_PIPED { MAX_PIPED } else { max_band };
    let (why, help) = match nest.dims {
        0 => ("the nest has no legal tiling hyperplane, so it is one band", "use smaller sizes"),
        1 => ("the nest has a single tiling hyperplane, so it is one band whatever the tile size", "use smaller sizes"),
        _ => ("the tiles are too large", "use smaller sizes or tiles"),
    };
    Diagnostic::global(format!(
        "a band of nest {} holds more than {limit} statement instances ({why}): too large to build; {help}",
        nest.stmts.iter().map(|s| format!("S{s}")).collect::<Vec<_>>().join(" ")
    ))
}

fn source_outside(p: &Program, k: usize, it: &[i64]) -> Error {
    Error::internal(format!("source instance {}{it:?} outside its domain", p.stmts[k].name))
}

#[cfg(test)]
mod tests {
    use super::many_subbands;

    #[test]
    fn a_par_repeated_over_three_band_hyperplanes_is_noted() {
        // heat-3d: 4 hyperplanes, 3 of them band hyperplanes; GEMM: 3 and 2.
        let notes = many_subbands(&[4], &[16, 16, 16, 16]);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("4096 sub-bands per statement (16 × 16 × 16 on its 3 band hyperplanes)"), "{}", notes[0]);
        assert!(notes[0].contains("`--par 16,1,1`"), "{}", notes[0]);
        assert!(many_subbands(&[3], &[16, 16, 16]).is_empty());
        assert!(many_subbands(&[4], &[16, 1, 1, 1]).is_empty());
        // Only the nest over the limit is named.
        let notes = many_subbands(&[2, 4], &[8, 8, 8, 8]);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].starts_with("loop nest 1 gets 512"), "{}", notes[0]);
    }
}
