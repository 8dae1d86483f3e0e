//! The network under construction: its processes (with their names, domains and loop nests)
//! and channels.

use super::replay::{ChanStats, Windows};
use super::*;

/// The network as pass 2 builds it: processes and channels are added as bands first need
/// them, each channel with the statistics its replays accumulate.
pub(super) struct Builder {
    pub(super) processes: Vec<Process>,
    /// Per process, what it does (only when `keep`).
    pub(super) traces: Vec<Trace>,
    /// Per process, operations so far.
    pub(super) ops: Vec<usize>,
    pub(super) channels: Vec<Channel>,
    pub(super) stats: Vec<ChanStats>,
    /// Per consumer process: its channels as (producer, port, channel).
    pub(super) inputs: Vec<Vec<(usize, Option<usize>, usize)>>,
    pub(super) keep: bool,
    /// Track cells and live windows for scratchpad allocation.
    pub(super) codegen: bool,
    /// Which live windows the replays track (none without `codegen`).
    pub(super) windows: Windows,
}

impl Builder {
    pub(super) fn add_process(&mut self, p: &Program, kind: ProcessKind) -> usize {
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
            loops: None,
        });
        if self.keep {
            self.traces.push(trace);
        }
        self.ops.push(0);
        self.processes.len() - 1
    }

    pub(super) fn channel(
        &mut self,
        producer: usize,
        consumer: usize,
        port: Option<usize>,
        class: ChannelClass,
        elem: &str,
        extents: &[i64],
    ) -> usize {
        if let Some(&(_, _, c)) = self.inputs.get(consumer).and_then(|v| v.iter().find(|(pr, po, _)| *pr == producer && *po == port)) {
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
            window: Vec::new(),
            first_read: None,
            last_read: None,
            first_use: None,
            fanout: Vec::new(),
            shared_load: false,
            ddr_source: None,
        });
        self.stats.push(ChanStats { in_order: true, extents: extents.to_vec(), window: vec![0; extents.len()], ..ChanStats::default() });
        if self.inputs.len() <= consumer {
            self.inputs.resize_with(consumer + 1, Vec::new);
        }
        self.inputs[consumer].push((producer, port, self.channels.len() - 1));
        self.channels.len() - 1
    }
}

/// Domains and schedules of the processes in isl notation, checked by isl.
pub(super) fn describe_processes(p: &Program, params: &[i64], geo: &Geometry, cfg: &Config, procs: &mut [Process]) -> Result<(), Error> {
    use dpnc_frontend::polyhedral::{isl_name, Model};
    let (nests, nest_of) = (geo.nests, &geo.nest_of);
    let m = Model::new(p);
    let fixed = Model::fixed_conditions(p, params);
    let ctx = dpnc_frontend::dataflow::quiet_context();
    let check = |t: &str, is_set: bool| -> Result<(), Error> {
        let ok = if is_set { isl_rs::Set::read_from_str(&ctx, t).is_ok() } else { isl_rs::Map::read_from_str(&ctx, t).is_ok() };
        if ok {
            Ok(())
        } else {
            Err(Error::internal(format!("isl rejects the process description `{t}`")))
        }
    };
    for pr in procs.iter_mut() {
        match &pr.kind {
            ProcessKind::Compute { stmt, subband } => {
                let s = &p.stmts[*stmt];
                let n = &nests[nest_of[*stmt]];
                let iters: Vec<String> = s.iters.iter().map(|i| isl_name(i)).collect();
                let phi: Vec<String> = n.phi_of(*stmt).iter().map(|a| a.isl(&iters)).collect();
                let size = |d: usize| crate::shape::tile_size(&cfg.tile, d);
                let mut conds = vec![m.cond_of(p, *stmt)];
                conds.extend(fixed.iter().cloned());
                for (d, l) in subband.iter().enumerate() {
                    let q = crate::shape::par_size(&cfg.par, d).min(size(d));
                    let (f, sz) = (&phi[d], size(d));
                    conds.push(if geo.interleaved[nest_of[*stmt]][d] {
                        format!("({f}) - {q}*floor(({f})/{q}) = {l}")
                    } else {
                        format!("floor(({q}*({f}) - {}*floor(({f})/{sz}))/{sz}) = {l}", q * sz)
                    });
                }
                let tuple = format!("{}[{}]", s.name, iters.join(", "));
                pr.domain = format!("{}{{ {tuple} : {} }}", m.params, conds.join(" and "));
                check(&pr.domain, true)?;
                let tiles = phi.iter().enumerate().map(|(d, f)| format!("floor(({f}) / {})", size(d)));
                let orig = m.schedules[*stmt].split("-> [").nth(1).and_then(|r| r.split(']').next()).unwrap_or("").to_string();
                let terms: Vec<String> = std::iter::once(nest_of[*stmt].to_string())
                    .chain(tiles)
                    .chain(n.groups.iter().any(|&g| g > 0).then(|| n.group(*stmt).to_string()))
                    .chain((0..phi.len()).map(|d| phi[n.point(*stmt, d)].clone()))
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

/// The iteration generator of every compute process (see [`crate::loops`]).
pub(super) fn loop_nests(
    p: &Program,
    params: &[i64],
    geo: &Geometry,
    cfg: &Config,
    survey: &Survey,
    procs: &mut [Process],
) -> Result<(), Error> {
    let (nests, nest_of) = (geo.nests, &geo.nest_of);
    let named: Vec<(String, i64)> = p.params.iter().zip(params).map(|(q, v)| (q.name.clone(), *v)).collect();
    for pr in procs.iter_mut() {
        let ProcessKind::Compute { stmt, subband } = &pr.kind else { continue };
        let s = &p.stmts[*stmt];
        let guard = crate::predicate::Predicate::from_isl_str(&pr.domain, &named)
            .map_err(|e| Error::internal(format!("the domain of {} as a predicate: {e}", pr.name)))?;
        let bbox = survey.bbox(*stmt);
        let mut dirs = vec![1; s.iters.len()];
        for t in &s.schedule {
            if let dpnc_frontend::ir::SchedTerm::Iter(d, dir) = t {
                dirs[*d] = *dir;
            }
        }
        let iterators = crate::loops::Iterators { bbox: &bbox, dirs: &dirs, names: &s.iters };
        let shape =
            crate::loops::SubBand { coords: subband, tile: &cfg.tile, par: &cfg.par, interleaved: &geo.interleaved[nest_of[*stmt]] };
        pr.loops = crate::loops::LoopNest::new(&nests[nest_of[*stmt]], *stmt, &shape, &iterators, guard);
    }
    Ok(())
}
