//! Construction of the DPN for concrete parameter values (DESIGN.md §4, paper §4–5).
//!
//! The statement instances are ordered by the tiled schedule σ = (nest, tile coordinates,
//! hyperplanes, original order). Walking σ once gives every process its trace: a read whose
//! source lies in the same band becomes a channel from the producer's process to the
//! consumer's port (Local or Sync); a read whose source lies in an earlier band, or is an
//! initial value, is loaded from DDR once per band at its first use and fanned out to every
//! port that needs it; a value read by a later band, or final, is stored once. Channel
//! kinds and sizes come from replaying σ: a channel's size is its peak occupancy, which is
//! enough for the network to complete under any timing (σ itself is a witness schedule).

use crate::ir::*;
use crate::tiling::{self, Nest};
use dpnc_frontend::dataflow::{Origin, Sare};
use dpnc_frontend::interp::{for_each_instance, index_of, out_of_bounds};
use dpnc_frontend::scop::{Program, VarKind};
use dpnc_frontend::store::flatten;
use dpnc_frontend::Diagnostic;
use std::collections::HashMap;

/// Tile sizes, parallelism and optional user hyperplanes.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// `--tile s1,s2,…` (the last size repeats for deeper nests).
    pub tile: Vec<i64>,
    /// `--par p1,p2,…` for the outer hyperplanes (missing ones are 1).
    pub par: Vec<i64>,
    /// `--hyperplanes "S0: i, j, 0; S1: i, j, k"`.
    pub hyperplanes: Option<String>,
    /// Refuse to build networks with more statement instances than this.
    pub max_instances: u64,
    /// Say on stderr what is happening when the network is large (the CLI sets this).
    pub progress: bool,
}

/// Where an instance runs.
struct Placement {
    band: Vec<i64>,
    key: Vec<i64>,
    subband: Vec<i64>,
}

/// Entry `d` of a `--tile`/`--par` list (the last one repeats; `default` when empty).
pub(crate) fn size_of(cfg: &[i64], d: usize, default: i64) -> i64 {
    cfg.get(d).or(cfg.last()).copied().unwrap_or(default)
}

pub fn build(p: &Program, sare: &Sare, cfg: &Config) -> Result<Dpn, Diagnostic> {
    let params = p.param_values()?;
    if let Some(s) = cfg.tile.iter().find(|&&s| s < 1) {
        return Err(Diagnostic::global(format!("tile size {s} is not positive")));
    }
    if let Some(q) = cfg.par.iter().find(|&&q| q < 1) {
        return Err(Diagnostic::global(format!("parallelism {q} is not positive")));
    }
    let nests = tiling::choose(p, &params, cfg.hyperplanes.as_deref())?;
    let nest_of = tiling::nest_of(&nests, p.stmts.len());
    for (d, (&q, s)) in cfg.par.iter().zip(cfg.tile.iter().chain(std::iter::repeat(cfg.tile.last().unwrap_or(&32)))).enumerate() {
        if q > *s {
            return Err(Diagnostic::global(format!(
                "--par {q} on hyperplane {d} exceeds the tile size {s}: a sub-band cannot be thinner than one iteration"
            )));
        }
    }

    // 1. All instances with their placement.
    let mut insts: Vec<(usize, Vec<i64>)> = Vec::new();
    let limit = if cfg.max_instances == 0 { 50_000_000 } else { cfg.max_instances };
    for_each_instance(p, &params, &mut |k, it| {
        if insts.len() as u64 >= limit {
            return Err(Diagnostic::global(format!(
                "more than {limit} statement instances: too large for the software network; use smaller sizes"
            )));
        }
        insts.push((k, it.to_vec()));
        Ok(())
    })?;
    let place = |k: usize, it: &[i64], order: usize| -> Placement {
        let nest = nest_of[k];
        let n: &Nest = &nests[nest];
        let phi: Vec<i64> = n.phi_of(k).iter().map(|a| a.eval(it)).collect();
        let sizes: Vec<i64> = (0..n.dims).map(|d| size_of(&cfg.tile, d, 32)).collect();
        let tiles: Vec<i64> = phi.iter().zip(&sizes).map(|(x, s)| x.div_euclid(*s)).collect();
        let band: Vec<i64> = std::iter::once(nest as i64).chain(tiles.iter().take(n.dims.saturating_sub(1)).copied()).collect();
        let subband: Vec<i64> =
            (0..n.dims.saturating_sub(1)).map(|d| phi[d].rem_euclid(sizes[d]) * size_of(&cfg.par, d, 1).min(sizes[d]) / sizes[d]).collect();
        let key = band
            .iter()
            .chain(tiles.iter().skip(n.dims.saturating_sub(1)))
            .chain(&phi)
            .copied()
            .chain(std::iter::once(order as i64))
            .collect();
        Placement { band, key, subband }
    };
    let placements: Vec<Placement> = insts.iter().enumerate().map(|(o, (k, it))| place(*k, it, o)).collect();
    let mut sigma: Vec<usize> = (0..insts.len()).collect();
    sigma.sort_by(|&a, &b| placements[a].key.cmp(&placements[b].key));
    let index_of: HashMap<(usize, &[i64]), usize> = insts.iter().enumerate().map(|(o, (k, it))| ((*k, it.as_slice()), o)).collect();
    let mut band_ids: HashMap<&[i64], usize> = HashMap::new();
    for &o in &sigma {
        let next = band_ids.len();
        band_ids.entry(placements[o].band.as_slice()).or_insert(next);
    }

    if cfg.progress && insts.len() > 500_000 {
        eprintln!("dpnc: building the process network: {} statement instances in {} band(s)…", insts.len(), band_ids.len());
    }

    // 2. Origins of every read, and which produced values leave their band.
    // Per instance and read: `None` for a scalar argument, else (producer instance or
    // `None` for an initial value, the cell read when initial).
    type Origins = Vec<Vec<Option<(Option<usize>, Vec<i64>)>>>;
    let mut origins: Origins = Vec::with_capacity(insts.len());
    let mut stored = vec![false; insts.len()];
    for (o, (k, it)) in insts.iter().enumerate() {
        let s = &p.stmts[*k];
        let mut row = Vec::with_capacity(s.reads.len());
        for (r, a) in s.reads.iter().enumerate() {
            if p.vars[a.var].is_scalar_argument() {
                row.push(None);
                continue;
            }
            let origin = sare.reads[*k][r]
                .origin(&params, it)
                .ok_or_else(|| Diagnostic::new(a.span, format!("internal error: no source for {}{:?}", s.name, it)))?;
            row.push(Some(match origin {
                Origin::Stmt(src, si) => {
                    let so = *index_of
                        .get(&(src, si.as_slice()))
                        .ok_or_else(|| Diagnostic::global("internal error: source instance outside its domain"))?;
                    if placements[so].band != placements[o].band {
                        stored[so] = true;
                    }
                    (Some(so), Vec::new())
                }
                Origin::Initial(idx) => (None, idx),
            }));
        }
        origins.push(row);
    }
    // Final values of the kernel's arguments are stored.
    let mut compulsory_writes = vec![0u64; p.vars.len()];
    for (var, v) in p.vars.iter().enumerate() {
        let (Some(flow), VarKind::Argument) = (&sare.finals[var], v.kind) else { continue };
        for cell in 0..v.len() {
            let idx = dpnc_frontend::store::unflatten(&v.dims, cell);
            if let Some(Origin::Stmt(src, si)) = flow.origin(&params, &idx) {
                if let Some(&so) = index_of.get(&(src, si.as_slice())) {
                    stored[so] = true;
                    compulsory_writes[var] += 1;
                }
            }
        }
    }
    let mut initial_cells: std::collections::HashSet<(usize, Vec<i64>)> = std::collections::HashSet::new();
    for (o, (k, _)) in insts.iter().enumerate() {
        for (r, a) in p.stmts[*k].reads.iter().enumerate() {
            if let Some((None, idx)) = &origins[o][r] {
                initial_cells.insert((a.var, idx.clone()));
            }
        }
    }
    let mut compulsory_reads = vec![0u64; p.vars.len()];
    for (var, _) in &initial_cells {
        compulsory_reads[*var] += 1;
    }

    // 3. Processes and traces, walking σ.
    let rank: Vec<u64> = {
        let mut r = vec![0u64; insts.len()];
        for (t, &o) in sigma.iter().enumerate() {
            r[o] = t as u64;
        }
        r
    };
    let mut b = Builder { processes: Vec::new(), traces: Vec::new(), channels: Vec::new(), chan_index: HashMap::new(), events: Vec::new() };
    let mut load_proc: HashMap<usize, usize> = HashMap::new();
    let mut store_proc: HashMap<usize, usize> = HashMap::new();
    let mut compute_proc: HashMap<(usize, Vec<i64>), usize> = HashMap::new();
    for &o in &sigma {
        let key = (insts[o].0, placements[o].subband.clone());
        if let std::collections::hash_map::Entry::Vacant(e) = compute_proc.entry(key) {
            let (stmt, subband) = e.key().clone();
            e.insert(b.add_process(p, ProcessKind::Compute { stmt, subband }));
        }
    }
    // DDR versions: the k-th store of a cell creates version k (0 = the initial value).
    let mut versions: HashMap<(usize, usize), u32> = HashMap::new();
    let mut version_of_value: HashMap<usize, u32> = HashMap::new();
    let mut loaded: HashMap<(usize, usize, usize, u32), usize> = HashMap::new();
    let mut loads_needed: HashMap<(usize, usize, u32), u32> = HashMap::new();
    let mut ddr_reads = vec![0u64; p.vars.len()];
    let mut ddr_writes = vec![0u64; p.vars.len()];
    // Value ids: a computed value is its instance's index; loaded values come after.
    let mut next_load_vid: u64 = insts.len() as u64;
    let mut op_of: Vec<(usize, usize)> = vec![(usize::MAX, 0); insts.len()];

    for (t, &o) in sigma.iter().enumerate() {
        let t = t as u64;
        let (k, it) = (insts[o].0, &insts[o].1);
        let s = &p.stmts[k];
        let me = compute_proc[&(k, placements[o].subband.clone())];
        let band = band_ids[placements[o].band.as_slice()];
        let mut reads = Vec::with_capacity(s.reads.len());
        let my_op = match &b.traces[me] {
            Trace::Compute { ops, .. } => ops.len(),
            _ => 0,
        };
        for (r, a) in s.reads.iter().enumerate() {
            let Some((src, idx)) = &origins[o][r] else {
                reads.push(ReadSrc::Scalar { var: a.var });
                continue;
            };
            let elem = p.vars[a.var].ty.c_name();
            let (ch, vid) = match src.filter(|&so| placements[so].band == placements[o].band) {
                // Produced in this band: an on-chip channel from the producer's process.
                Some(so) => {
                    let (pp, pi) = op_of[so];
                    let class = if pp == me { ChannelClass::Local } else { ChannelClass::Sync };
                    let ch = b.channel(pp, me, Some(r), class, elem);
                    if let Trace::Compute { ops, .. } = &mut b.traces[pp] {
                        if !ops[pi].writes.contains(&ch) {
                            ops[pi].writes.push(ch);
                            b.events.push(Event { t: 4 * rank[so] + 2, ch, vid: so as u64, write: true, op: 0 });
                        }
                    }
                    (ch, so as u64)
                }
                // From DDR: the cell and the version this read needs, loaded once per band.
                None => {
                    let (cell, version) = match src {
                        Some(so) => {
                            let w = &p.stmts[insts[*so].0].write;
                            (
                                cell_of(p, w, &insts[*so].1, &params)?,
                                *version_of_value
                                    .get(so)
                                    .ok_or_else(|| Diagnostic::global("internal error: a value is loaded before it is stored"))?,
                            )
                        }
                        None => (flatten(&p.vars[a.var].dims, idx).ok_or_else(|| Diagnostic::new(a.span, "read out of bounds"))?, 0),
                    };
                    let lp = match load_proc.get(&a.var) {
                        Some(&lp) => lp,
                        None => {
                            let lp = b.add_process(p, ProcessKind::Load { var: a.var });
                            load_proc.insert(a.var, lp);
                            lp
                        }
                    };
                    let ch = b.channel(lp, me, Some(r), ChannelClass::Io, elem);
                    let Trace::Load { ops, .. } = &mut b.traces[lp] else { unreachable!("load process") };
                    let op_ix = *loaded.entry((band, a.var, cell, version)).or_insert_with(|| {
                        ops.push(LoadOp { cell, version, vid: next_load_vid, outs: Vec::new(), at: 4 * t });
                        next_load_vid += 1;
                        ddr_reads[a.var] += 1;
                        *loads_needed.entry((a.var, cell, version)).or_default() += 1;
                        ops.len() - 1
                    });
                    let op = &mut ops[op_ix];
                    if !op.outs.contains(&ch) {
                        op.outs.push(ch);
                        // The load happened at the value's first use in the band (now or earlier).
                        b.events.push(Event { t: op.at, ch, vid: op.vid, write: true, op: op_ix });
                    }
                    (ch, op.vid)
                }
            };
            reads.push(ReadSrc::Chan { ch, vid, last: false });
            b.events.push(Event { t: 4 * t + 1, ch, vid, write: false, op: my_op });
        }
        let Trace::Compute { ops, .. } = &mut b.traces[me] else { unreachable!("compute process") };
        ops.push(ComputeOp { iters: it.clone(), reads, writes: Vec::new(), vid: o as u64 });
        let pi = ops.len() - 1;
        op_of[o] = (me, pi);
        if stored[o] {
            let var = s.write.var;
            let cell = cell_of(p, &s.write, it, &params)?;
            let sp = match store_proc.get(&var) {
                Some(&sp) => sp,
                None => {
                    let sp = b.add_process(p, ProcessKind::Store { var });
                    store_proc.insert(var, sp);
                    sp
                }
            };
            let ch = b.channel(me, sp, None, ChannelClass::Io, p.vars[var].ty.c_name());
            let v = versions.entry((var, cell)).or_insert(0);
            *v += 1;
            let version = *v;
            version_of_value.insert(o, version);
            ddr_writes[var] += 1;
            if let Trace::Compute { ops, .. } = &mut b.traces[me] {
                ops[pi].writes.push(ch);
            }
            let store_op = match &mut b.traces[sp] {
                Trace::Store { ops, .. } => {
                    ops.push(StoreOp { ch, vid: o as u64, cell, version });
                    ops.len() - 1
                }
                _ => 0,
            };
            b.events.push(Event { t: 4 * t + 2, ch, vid: o as u64, write: true, op: 0 });
            b.events.push(Event { t: 4 * t + 3, ch, vid: o as u64, write: false, op: store_op });
        }
    }

    // 4. Last reads, channel kinds and sizes, by replaying σ.
    b.finish(next_load_vid as usize);
    describe_processes(p, &params, &nests, &nest_of, cfg, &mut b.processes, &b.traces)?;
    let bands = band_ids.len();
    let processes = b.processes;
    let channels = b.channels;
    let mut dpn = Dpn {
        kernel: p.kernel.clone(),
        params: p.params.iter().zip(&params).map(|(q, v)| (q.name.clone(), *v)).collect(),
        tile: cfg.tile.clone(),
        par: cfg.par.clone(),
        nests,
        bands,
        processes,
        channels,
        ddr_reads,
        ddr_writes,
        compulsory_reads,
        compulsory_writes,
        traces: b.traces,
        loads_needed,
    };
    crate::relations::derive(p, sare, &mut dpn)?;
    let errs = crate::validate::validate(p, &dpn);
    if !errs.is_empty() {
        return Err(Diagnostic::global(format!("internal error: the process network is invalid:\n  {}", errs.join("\n  "))));
    }
    Ok(dpn)
}

/// Domains and schedules of the processes in isl notation, checked by isl.
fn describe_processes(
    p: &Program,
    params: &[i64],
    nests: &[Nest],
    nest_of: &[usize],
    cfg: &Config,
    procs: &mut [Process],
    traces: &[Trace],
) -> Result<(), Diagnostic> {
    use dpnc_frontend::polyhedral::{isl_name, Model};
    let m = Model::new(p);
    let fixed = Model::fixed_conditions(p, params);
    let ctx = isl_rs::Context::alloc();
    let _ = isl_rs::Options::set_on_error(&ctx, 1);
    let check = |t: &str, is_set: bool| -> Result<(), Diagnostic> {
        let ok = if is_set { isl_rs::Set::read_from_str(&ctx, t).is_ok() } else { isl_rs::Map::read_from_str(&ctx, t).is_ok() };
        if ok {
            Ok(())
        } else {
            Err(Diagnostic::global(format!("internal error: isl rejects the process description `{t}`")))
        }
    };
    for (pr, tr) in procs.iter_mut().zip(traces) {
        pr.iterations = tr.len() as u64;
        match &pr.kind {
            ProcessKind::Compute { stmt, subband } => {
                let s = &p.stmts[*stmt];
                let n = &nests[nest_of[*stmt]];
                let iters: Vec<String> = s.iters.iter().map(|i| isl_name(i)).collect();
                let phi: Vec<String> = n.phi_of(*stmt).iter().map(|a| a.isl(&iters)).collect();
                let size = |d: usize| size_of(&cfg.tile, d, 32);
                let mut conds = vec![m.cond_of(p, *stmt)];
                conds.extend(fixed.iter().cloned());
                for (d, l) in subband.iter().enumerate() {
                    let q = size_of(&cfg.par, d, 1).min(size(d));
                    let (f, sz) = (&phi[d], size(d));
                    conds.push(format!("floor(({q}*({f}) - {}*floor(({f})/{sz}))/{sz}) = {l}", q * sz));
                }
                let tuple = format!("{}[{}]", s.name, iters.join(", "));
                pr.domain = format!("{}{{ {tuple} : {} }}", m.params, conds.join(" and "));
                check(&pr.domain, true)?;
                let tiles = phi.iter().enumerate().map(|(d, f)| format!("floor(({f}) / {})", size(d)));
                let orig = m.schedules[*stmt].split("-> [").nth(1).and_then(|r| r.split(']').next()).unwrap_or("").to_string();
                let terms: Vec<String> = std::iter::once(nest_of[*stmt].to_string())
                    .chain(tiles)
                    .chain(phi.iter().cloned())
                    .chain(std::iter::once(orig))
                    .collect();
                pr.schedule = format!("{}{{ {tuple} -> [{}] }}", m.params, terms.join(", "));
                check(&pr.schedule, false)?;
            }
            ProcessKind::Load { var } => {
                pr.domain = format!("every ({}-cell, band) pair whose value a band reads but does not produce", p.vars[*var].name);
                pr.schedule = "once per band, at the value's first use in the tiled schedule".into();
            }
            ProcessKind::Store { var } => {
                pr.domain = format!("every value of {} read by a later band, or final", p.vars[*var].name);
                pr.schedule = "right after the value is produced".into();
            }
        }
    }
    Ok(())
}

fn cell_of(p: &Program, a: &dpnc_frontend::scop::Access, it: &[i64], params: &[i64]) -> Result<usize, Diagnostic> {
    let (idx, off) = index_of(p, a, it, params)?;
    off.ok_or_else(|| Diagnostic::new(a.span, out_of_bounds(p, a, &idx)))
}

/// A write into or a read from a channel at time `t` of σ.
struct Event {
    t: u64,
    ch: usize,
    vid: u64,
    write: bool,
    /// The operation's index in the consumer's trace (reads) or in the Load process's trace
    /// (loaded writes: several loads can share a time, their trace order decides).
    op: usize,
}

struct Builder {
    processes: Vec<Process>,
    traces: Vec<Trace>,
    channels: Vec<Channel>,
    chan_index: HashMap<(usize, usize, Option<usize>), usize>,
    events: Vec<Event>,
}

impl Builder {
    fn add_process(&mut self, p: &Program, kind: ProcessKind) -> usize {
        let (name, trace) = match &kind {
            ProcessKind::Load { var } => (format!("load_{}", p.vars[*var].name), Trace::Load { var: *var, ops: Vec::new() }),
            ProcessKind::Store { var } => (format!("store_{}", p.vars[*var].name), Trace::Store { var: *var, ops: Vec::new() }),
            ProcessKind::Compute { stmt, subband } => {
                let sub: String = subband.iter().map(|l| format!("_{l}")).collect();
                (format!("{}{sub}", p.stmts[*stmt].name), Trace::Compute { stmt: *stmt, ops: Vec::new() })
            }
        };
        self.processes.push(Process {
            name,
            kind,
            domain: String::new(),
            schedule: String::new(),
            iterations: 0,
            mux: Vec::new(),
            demux: Vec::new(),
        });
        self.traces.push(trace);
        self.processes.len() - 1
    }

    fn channel(&mut self, producer: usize, consumer: usize, port: Option<usize>, class: ChannelClass, elem: &str) -> usize {
        if let Some(&c) = self.chan_index.get(&(producer, consumer, port)) {
            return c;
        }
        let name = match port {
            Some(r) => format!("{}_to_{}_r{r}", self.processes[producer].name, self.processes[consumer].name),
            None => format!("{}_to_{}", self.processes[producer].name, self.processes[consumer].name),
        };
        self.channels.push(Channel {
            name,
            producer,
            consumer,
            port,
            class,
            kind: ChannelKind::Fifo,
            size: 0,
            elem: elem.to_string(),
            writes: 0,
            reads: 0,
            relation: String::new(),
        });
        self.chan_index.insert((producer, consumer, port), self.channels.len() - 1);
        self.channels.len() - 1
    }

    /// Marks last reads, then types and sizes every channel from the σ replay, one channel
    /// at a time (`n_values` bounds the value ids).
    fn finish(&mut self, n_values: usize) {
        self.events.sort_unstable_by_key(|e| (e.ch, e.t, !e.write, e.op));
        // `stamp[vid] == ch + 1` once a later read of `vid` in channel `ch` has been seen.
        let mut stamp = vec![0u32; n_values];
        let mut start = 0;
        while start < self.events.len() {
            let ch = self.events[start].ch;
            let end = start + self.events[start..].iter().take_while(|e| e.ch == ch).count();
            let mut last = vec![false; end - start];
            for (k, e) in self.events[start..end].iter().enumerate().rev() {
                if !e.write && stamp[e.vid as usize] != ch as u32 + 1 {
                    stamp[e.vid as usize] = ch as u32 + 1;
                    last[k] = true;
                }
            }
            let consumer = self.channels[ch].consumer;
            let (mut live, mut size, mut writes, mut reads) = (0usize, 0usize, 0u64, 0u64);
            let (mut write_seq, mut read_seq): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
            for (k, e) in self.events[start..end].iter().enumerate() {
                if e.write {
                    live += 1;
                    size = size.max(live);
                    writes += 1;
                    write_seq.push(e.vid);
                    continue;
                }
                reads += 1;
                if read_seq.last() != Some(&e.vid) {
                    read_seq.push(e.vid);
                }
                if last[k] {
                    live -= 1;
                    if let Trace::Compute { ops, .. } = &mut self.traces[consumer] {
                        for r in ops[e.op].reads.iter_mut() {
                            if let ReadSrc::Chan { ch: c, last: l, .. } = r {
                                if *c == ch {
                                    *l = true;
                                }
                            }
                        }
                    }
                }
            }
            let c = &mut self.channels[ch];
            c.size = size;
            c.writes = writes;
            c.reads = reads;
            // In order: values are first read in the order written; read once: as many
            // reads as writes; FIFO+register: in order, repeats only back to back.
            c.kind = match (read_seq == write_seq, reads == writes) {
                (true, true) => ChannelKind::Fifo,
                (true, false) => ChannelKind::FifoReg,
                _ => ChannelKind::Scratchpad,
            };
            start = end;
        }
        self.events = Vec::new();
    }
}
