//! The symbolic side of the network: every channel's dataflow relation, every compute
//! process's muxes (per read port, which channel to read for which iterations, load clauses
//! first) and demuxes (which channels receive which results), as isl relations built from
//! the SARE, the process domains and the band structure (paper §5, "Communication
//! synthesis"). `check_counts` ties them to the concrete traces: every relation has
//! exactly as many pairs as its channel carries reads.

use crate::ir::*;
use crate::jobs::IslCopy;
use crate::tiling::Nest;
use crate::Error;
use dpnc_frontend::dataflow::{self, Sare};
use dpnc_frontend::ir::Program;
use dpnc_frontend::polyhedral::{isl_name, Model};
use dpnc_frontend::Diagnostic;
use isl_rs::{Context, Set, UnionMap, UnionSet};
use std::cell::RefCell;
use std::collections::HashMap;

fn isl_err(e: isl_rs::LibISLError) -> Error {
    Error::internal(format!("isl failed while building channel relations: {e}"))
}

struct Ctx<'a> {
    p: &'a Program,
    sare: &'a Sare,
    nests: Vec<Nest>,
    nest_of: Vec<usize>,
    tile: Vec<i64>,
    model: Model,
    fixed: String,
    isl: Context,
    /// What the channels between the same statements share, computed once per thread.
    shared: RefCell<Shared>,
}

/// The parts of a channel's relation that depend on its statements and read only, not on
/// its processes' sub-bands (at `--par 4`, heat-3d's 2,958 channels join 2 statements).
#[derive(Default)]
struct Shared {
    /// `C[i] -> P[i']` within a band, per (consumer, read, producer).
    within: HashMap<(usize, usize, usize), UnionMap>,
    /// The consumer instances whose read takes a value from outside its band, per
    /// (consumer, read).
    to_load: HashMap<(usize, usize), UnionSet>,
    /// The cells a producer stores: values that leave its band, or final.
    stored: HashMap<usize, UnionSet>,
}

impl Ctx<'_> {
    fn umap(&self, t: &str) -> Result<UnionMap, Error> {
        UnionMap::read_from_str(&self.isl, t).map_err(|e| Error::internal(format!("isl rejects `{t}`: {e}")))
    }
    fn uset(&self, t: &str) -> Result<UnionSet, Error> {
        UnionSet::read_from_str(&self.isl, t).map_err(|e| Error::internal(format!("isl rejects `{t}`: {e}")))
    }
    fn params(&self) -> Result<Set, Error> {
        Set::read_from_str(&self.isl, &self.fixed).map_err(isl_err)
    }
    /// The SARE pieces of read `r` of `c` whose source is `src` (`None`: initial values),
    /// as a relation `C[i] -> P[i']`.
    fn pieces(&self, c: usize, r: usize, src: Option<usize>) -> Result<UnionMap, Error> {
        let name = &self.p.stmts[c].name;
        let mut u = self.umap("{ }")?;
        for s in self.sare.reads[c][r].sources.iter().filter(|s| s.stmt == src) {
            let t = s.exact.replacen(&format!("{name}_r{r}["), &format!("{name}["), 1);
            u = u.union(self.umap(&t)?).map_err(isl_err)?;
        }
        u.intersect_params(self.params()?).map_err(isl_err)
    }
    /// `{ C[i] -> P[i'] : same band }` (empty across nests).
    fn same_band(&self, c: usize, pr: usize) -> Result<UnionMap, Error> {
        let (nc, np) = (self.nest_of[c], self.nest_of[pr]);
        if nc != np {
            return self.umap("{ }");
        }
        let n = &self.nests[nc];
        let ic: Vec<String> = self.p.stmts[c].iters.iter().map(|i| isl_name(i)).collect();
        let ip: Vec<String> = self.p.stmts[pr].iters.iter().map(|i| format!("{}_p", isl_name(i))).collect();
        let mut conds = vec!["1 = 1".to_string()];
        for d in 0..n.dims.saturating_sub(1) {
            let s = crate::shape::tile_size(&self.tile, d);
            conds.push(format!("floor(({})/{s}) = floor(({})/{s})", n.phi_of(c)[d].isl(&ic), n.phi_of(pr)[d].isl(&ip)));
        }
        self.umap(&format!(
            "{}{{ {}[{}] -> {}[{}] : {} }}",
            self.model.params,
            self.p.stmts[c].name,
            ic.join(", "),
            self.p.stmts[pr].name,
            ip.join(", "),
            conds.join(" and ")
        ))
    }
    /// [`Shared::within`] of (`c`, `r`, `pr`).
    fn within(&self, c: usize, r: usize, pr: usize) -> Result<UnionMap, Error> {
        self.shared_part(
            |sh| &mut sh.within,
            (c, r, pr),
            || self.pieces(c, r, Some(pr))?.intersect(self.same_band(c, pr)?).map_err(isl_err),
        )
    }

    /// The pieces of read `r` of `c` whose source, an instance of `pr`, is in another band.
    fn crossing(&self, c: usize, r: usize, pr: usize) -> Result<UnionMap, Error> {
        self.pieces(c, r, Some(pr))?.subtract(self.same_band(c, pr)?).map_err(isl_err)
    }

    /// [`Shared::to_load`] of (`c`, `r`): initial values, and those of other bands.
    fn to_load(&self, c: usize, r: usize) -> Result<UnionSet, Error> {
        self.shared_part(
            |sh| &mut sh.to_load,
            (c, r),
            || {
                let mut to_load = self.pieces(c, r, None)?.domain().map_err(isl_err)?;
                for pr in 0..self.p.stmts.len() {
                    let cross = self.crossing(c, r, pr)?.domain().map_err(isl_err)?;
                    to_load = to_load.union(cross).map_err(isl_err)?;
                }
                Ok(to_load)
            },
        )
    }

    /// [`Shared::stored`] of producer `pr`.
    fn stored(&self, pr: usize) -> Result<UnionSet, Error> {
        self.shared_part(
            |sh| &mut sh.stored,
            pr,
            || {
                let mut stored = self.uset("{ }")?;
                for (c, s) in self.p.stmts.iter().enumerate() {
                    for r in 0..s.reads.len() {
                        let cross = self.crossing(c, r, pr)?.range().map_err(isl_err)?;
                        stored = stored.union(cross).map_err(isl_err)?;
                    }
                }
                for (v, flow) in self.sare.finals.iter().enumerate() {
                    if self.p.vars[v].kind != dpnc_frontend::ir::VarKind::Argument {
                        continue;
                    }
                    for src in flow.iter().flat_map(|f| &f.sources).filter(|s| s.stmt == Some(pr)) {
                        let fin = self
                            .umap(&src.exact)
                            .and_then(|u| u.intersect_params(self.params()?).and_then(|u| u.range()).map_err(isl_err))?;
                        stored = stored.union(fin).map_err(isl_err)?;
                    }
                }
                Ok(stored)
            },
        )
    }

    /// The shared part at `key` of the table `table` picks ([`crate::jobs::shared`]).
    fn shared_part<K: std::hash::Hash + Eq, T: IslCopy>(
        &self,
        table: impl Fn(&mut Shared) -> &mut HashMap<K, T>,
        key: K,
        make: impl FnOnce() -> Result<T, Error>,
    ) -> Result<T, Error> {
        crate::jobs::shared(&self.isl, table(&mut self.shared.borrow_mut()), key, make)
    }
}

/// isl text of a relation, coalesced when isl manages to (its coalescing can fail
/// internally on sets with many floors; the uncoalesced form is as exact).
fn text(u: UnionMap) -> Result<String, Error> {
    let u = match u.copy().and_then(|c| c.coalesce()) {
        Ok(c) => c,
        Err(_) => u,
    };
    Ok(u.to_str().map_err(isl_err)?.to_string())
}

/// A clause's set as a predicate, simplified within the domain of the process that
/// evaluates it (`None` when isl cannot convert it).
fn predicate(when: &str, domain: &str, params: &[(String, i64)]) -> Option<crate::predicate::Predicate> {
    let ctx = dataflow::quiet_context();
    let set = Set::read_from_str(&ctx, when).and_then(|s| s.gist(Set::read_from_str(&ctx, domain)?)).ok()?;
    crate::predicate::Predicate::from_set(&set, params).ok()
}

fn set_text(u: UnionSet) -> Result<String, Error> {
    let u = match u.copy().and_then(|c| c.coalesce()) {
        Ok(c) => c,
        Err(_) => u,
    };
    Ok(u.to_str().map_err(isl_err)?.to_string())
}

/// What [`derive`] finds for one channel: its relation, and the clauses of its consumer's
/// mux (when the consumer is a compute process) and of its producer's demux (when the
/// producer is one).
struct Found {
    relation: String,
    mux: Option<MuxClause>,
    demux: Option<MuxClause>,
}

/// Fills `Channel::relation`, `Process::mux` and `Process::demux`. Channels are
/// independent: they are dealt to one thread per core (up to 4), each with its own isl
/// context; `done` hears how many of them are answered.
pub fn derive(p: &Program, sare: &Sare, dpn: &mut Dpn, done: impl Fn(usize, usize) + Sync) -> Result<(), Error> {
    let dpn_ref = &*dpn;
    let found = crate::jobs::in_order(dpn.channels.len(), 4, || Ctx::new(p, sare, dpn_ref), |cx, c| bounded_channel(cx, dpn_ref, c), done)?;
    let mut mux: Vec<Vec<Vec<MuxClause>>> = dpn.processes.iter().map(|_| Vec::new()).collect();
    let mut demux: Vec<Vec<MuxClause>> = dpn.processes.iter().map(|_| Vec::new()).collect();
    for (ch, f) in dpn.channels.iter_mut().zip(found) {
        if let (Some(clause), Some(r)) = (f.mux, ch.port) {
            let m = &mut mux[ch.consumer];
            if m.len() <= r {
                m.resize(r + 1, Vec::new());
            }
            // Loads take priority (paper §5).
            if ch.class == ChannelClass::Io {
                m[r].insert(0, clause);
            } else {
                m[r].push(clause);
            }
        }
        if let Some(clause) = f.demux {
            demux[ch.producer].push(clause);
        }
        ch.relation = f.relation;
    }
    for (pr, (m, d)) in dpn.processes.iter_mut().zip(mux.into_iter().zip(demux)) {
        pr.mux = m;
        pr.demux = d;
    }
    Ok(())
}

/// How much work isl may do for one channel's relation, mux and demux (isl's count of basic
/// operations; PolyBench's channels take a small fraction of it).
const CHANNEL_OPERATIONS: u64 = 5_000_000;

/// [`channel`] within [`CHANNEL_OPERATIONS`], or a diagnostic at the consumer's statement.
fn bounded_channel(cx: &Ctx, dpn: &Dpn, c: usize) -> Result<Found, Error> {
    cx.isl.reset_operations();
    channel(cx, dpn, c).map_err(|e| {
        if !dataflow::quota_spent(&cx.isl) {
            return e;
        }
        let message = format!(
            "the relation of channel {} is too costly for isl (it gave up after {CHANNEL_OPERATIONS} operations)",
            dpn.channels[c].name
        );
        let help = "try other tile sizes or `--hyperplanes`, or split the loop nest";
        let span = dpn.processes[dpn.channels[c].consumer].stmt().map(|k| cx.p.stmts[k].span);
        Diagnostic { span, message, help: Some(help.into()), internal: false }.into()
    })
}

impl<'a> Ctx<'a> {
    fn new(p: &'a Program, sare: &'a Sare, dpn: &Dpn) -> Ctx<'a> {
        let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
        let model = Model::new(p);
        let fixed = model.fixed_context(p, &params);
        let nest_of = crate::tiling::nest_of(&dpn.nests, p.stmts.len());
        let isl = dataflow::bounded_context(CHANNEL_OPERATIONS);
        Ctx { p, sare, nests: dpn.nests.clone(), nest_of, tile: dpn.tile.clone(), model, fixed, isl, shared: RefCell::default() }
    }
}

/// Channel `c`'s relation, checked against its traffic, and its mux and demux clauses.
fn channel(cx: &Ctx, dpn: &Dpn, c: usize) -> Result<Found, Error> {
    let ch = &dpn.channels[c];
    let domain = |pi: usize| -> Result<UnionSet, Error> { cx.uset(&dpn.processes[pi].domain) };
    let stmt_of = |pi: usize| dpn.processes[pi].stmt();
    let rel = match (stmt_of(ch.producer), stmt_of(ch.consumer), ch.port) {
        // On chip: consumer instance -> producer instance, same band.
        (Some(pr), Some(c), Some(r)) => {
            let within = cx.within(c, r, pr)?;
            let (to, from) = (domain(ch.consumer)?, domain(ch.producer)?);
            within.intersect_domain(to).and_then(|u| u.intersect_range(from)).map_err(isl_err)?
        }
        // Loaded: consumer instance -> array cell, for sources outside the band.
        (None, Some(c), Some(r)) => {
            let to_load = cx.to_load(c, r)?;
            let (access, to) = (cx.umap(&cx.model.reads[c][r])?, domain(ch.consumer)?);
            access.intersect_domain(to_load).and_then(|u| u.intersect_domain(to)).map_err(isl_err)?
        }
        // Stored: producer instance -> array cell, for values leaving the band or final.
        (Some(pr), None, None) => {
            let stored = cx.stored(pr)?;
            let (write, from) = (cx.umap(&cx.model.writes[pr])?, domain(ch.producer)?);
            write.intersect_domain(stored).and_then(|u| u.intersect_domain(from)).map_err(isl_err)?
        }
        _ => return Err(Error::internal(format!("channel {} has an unexpected shape", ch.name))),
    };
    // Counts must match the traces: one relation pair per read. isl's point counting can
    // fail internally on sets with many floors (skewed tiles); the count is a cross-check,
    // so such a channel is simply not counted.
    if ch.reads <= 200_000 {
        if let Ok(pairs) =
            rel.copy().and_then(|u| u.wrap()).and_then(Set::from_union_set).and_then(|s| s.count_val()).and_then(|v| v.get_num_si())
        {
            let expected = if stmt_of(ch.consumer).is_some() { ch.reads } else { ch.writes };
            if pairs as u64 != expected {
                return Err(Error::internal(format!("channel {} carries {expected} values but its relation has {pairs} pairs", ch.name)));
            }
        }
    }
    let consumer_side = stmt_of(ch.consumer).is_some();
    let (when_read, when_written) = if consumer_side {
        let range = if stmt_of(ch.producer).is_some() {
            rel.copy().and_then(|u| u.range()).map_err(isl_err)?
        } else {
            rel.copy().and_then(|u| u.domain()).map_err(isl_err)?
        };
        (Some(rel.copy().and_then(|u| u.domain()).map_err(isl_err)?), range)
    } else {
        (None, rel.copy().and_then(|u| u.domain()).map_err(isl_err)?)
    };
    let mux = match (when_read, ch.port) {
        (Some(w), Some(_)) => {
            let when = set_text(w)?;
            Some(MuxClause { channel: c, pred: predicate(&when, &dpn.processes[ch.consumer].domain, &dpn.params), when })
        }
        _ => None,
    };
    let demux = match stmt_of(ch.producer) {
        Some(_) => {
            let when = set_text(when_written)?;
            Some(MuxClause { channel: c, pred: predicate(&when, &dpn.processes[ch.producer].domain, &dpn.params), when })
        }
        None => None,
    };
    Ok(Found { relation: text(rel)?, mux, demux })
}
