//! What code generation needs beyond muxes and demuxes: when a consumer takes a new value
//! from a channel, when it has read a value for the last time, and, for the Load processes,
//! where each value is loaded (its first use in the band, over every read port of the
//! array) and which channels it fans out to. All are isl sets over a consumer process's
//! iterators, turned into [`Predicate`]s; the order they refer to is σ, the tiled
//! sequential schedule ([`sigma`]), the order the network was built in.

use crate::ir::*;
use crate::predicate::{Affine as Expr, Cmp, Constraint, Predicate, Term};
use crate::tiling::{nest_of, Affine, Nest};
use crate::Error;
use dpnc_frontend::ir::{Program, SchedTerm};
use dpnc_frontend::polyhedral::{isl_name, Model};
use isl_rs::{Context, Set, UnionMap, UnionSet};
use std::cell::RefCell;
use std::collections::HashMap;

impl Key {
    pub fn eval(&self, it: &[i64]) -> i64 {
        match self {
            Key::Const(c) => *c,
            Key::Tile(f, s) => f.eval(it).div_euclid(*s),
            Key::Phi(f) => f.eval(it),
            Key::Iter(d, dir) => dir * it[*d],
        }
    }
    fn isl(&self, iters: &[String]) -> String {
        match self {
            Key::Const(c) => c.to_string(),
            Key::Tile(f, s) => format!("floor(({})/{s})", f.isl(iters)),
            Key::Phi(f) => f.isl(iters),
            Key::Iter(d, dir) => format!("{dir}*{}", iters[*d]),
        }
    }
}

/// σ of statement `stmt`: nest, tile coordinates, group, hyperplanes, program order, padded so
/// that every statement's key has the same length (bands run in lexicographic order of
/// their tile coordinates; inside a band the last tile coordinate, then the statement's
/// group, then φ in its point order, then program order decide, as in [`crate::build`]).
pub fn sigma(p: &Program, nests: &[Nest], tile: &[i64], stmt: usize) -> Vec<Key> {
    let no = nest_of(nests, p.stmts.len());
    let depth = nests.iter().map(|n| n.dims).max().unwrap_or(0);
    let nest = &nests[no[stmt]];
    let phi = nest.phi_of(stmt);
    let zero = Affine { coef: vec![0; p.stmts[stmt].iters.len()], cst: 0 };
    let mut key = vec![Key::Const(no[stmt] as i64)];
    for d in 0..depth {
        key.push(Key::Tile(phi.get(d).cloned().unwrap_or_else(|| zero.clone()), crate::shape::tile_size(tile, d)));
    }
    key.push(Key::Const(nest.group(stmt) as i64));
    for d in 0..depth {
        key.push(Key::Phi(phi.get(nest.point(stmt, d)).cloned().unwrap_or_else(|| zero.clone())));
    }
    let s = &p.stmts[stmt];
    for k in 0..p.schedule_len() {
        key.push(match s.schedule.get(k) {
            Some(SchedTerm::Const(c)) => Key::Const(*c),
            Some(SchedTerm::Iter(d, dir)) => Key::Iter(*d, *dir),
            None => Key::Const(0),
        });
    }
    key
}

/// The band of an instance: nest and every tile coordinate but the last, padded.
pub fn band_key(p: &Program, nests: &[Nest], tile: &[i64], stmt: usize) -> Vec<Key> {
    let no = nest_of(nests, p.stmts.len());
    let depth = nests.iter().map(|n| n.dims).max().unwrap_or(0);
    let n = &nests[no[stmt]];
    let mut key = vec![Key::Const(no[stmt] as i64)];
    for d in 0..depth.saturating_sub(1) {
        key.push(match n.phi_of(stmt).get(d) {
            Some(f) if d + 1 < n.dims => Key::Tile(f.clone(), crate::shape::tile_size(tile, d)),
            _ => Key::Const(0),
        });
    }
    key
}

/// isl operations allowed per channel (or per Load process).
const ISL_BUDGET: u64 = 3_000_000;

struct Ctx<'a> {
    p: &'a Program,
    dpn: &'a Dpn,
    model: Model,
    fixed: String,
    isl: Context,
    /// What several questions share, made once per thread (see [`Ctx::shared`]).
    shared: RefCell<HashMap<Shared, UnionMap>>,
}

/// A relation that the questions about many channels share: it depends on statements and
/// arrays only, not on a channel's processes (at `--par 4`, heat-3d's 1,493 scratchpads
/// are read by 2 statements).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Shared {
    /// `{ S[i] -> S[i'] : σ(i') > σ(i) }` (`later`) or `σ(i') < σ(i)` for statement `stmt`.
    Order { stmt: usize, later: bool },
    /// `{ S[i] -> S[i'] : same band }` for statement `stmt`.
    SameBand { stmt: usize },
    /// `{ W_w[i] -> [σ(i)] }` for the statements writing array `var` (tuples `<name>_w`:
    /// a reader may be one of them).
    Writers { var: usize },
    /// `{ S[i] -> W_w[i'] : σ(i) > σ(i') }` for statement `stmt` and [`Shared::Writers`].
    After { stmt: usize, var: usize },
}

fn isl_err(e: isl_rs::LibISLError) -> Error {
    Error::internal(format!("isl failed while deriving synchronisation: {e}"))
}

impl Ctx<'_> {
    fn umap(&self, t: &str) -> Result<UnionMap, Error> {
        let u = UnionMap::read_from_str(&self.isl, t).map_err(|e| Error::internal(format!("isl rejects `{t}`: {e}")))?;
        u.intersect_params(Set::read_from_str(&self.isl, &self.fixed).map_err(isl_err)?).map_err(isl_err)
    }
    /// `{ T[i] -> [keys] }` for statement `stmt`, its tuple named `tuple`, with `extra`
    /// appended.
    fn key_map(&self, stmt: usize, tuple: &str, keys: &[Key], extra: Option<usize>) -> Result<UnionMap, Error> {
        let iters: Vec<String> = self.p.stmts[stmt].iters.iter().map(|i| isl_name(i)).collect();
        let mut terms: Vec<String> = keys.iter().map(|k| k.isl(&iters)).collect();
        terms.extend(extra.map(|e| e.to_string()));
        self.umap(&format!("{}{{ {tuple}[{}] -> [{}] }}", self.model.params, iters.join(", "), terms.join(", ")))
    }
    fn sigma(&self, stmt: usize, tuple: &str, extra: Option<usize>) -> Result<UnionMap, Error> {
        self.key_map(stmt, tuple, &self.dpn.schedules[stmt].sigma, extra)
    }
    fn band(&self, stmt: usize, tuple: &str) -> Result<UnionMap, Error> {
        self.key_map(stmt, tuple, &self.dpn.schedules[stmt].band, None)
    }
    /// The shared relation `what`, made the first time this thread needs it
    /// ([`crate::jobs::shared`]).
    fn shared(&self, what: Shared) -> Result<UnionMap, Error> {
        crate::jobs::shared(&self.isl, &mut self.shared.borrow_mut(), what, || self.make(what))
    }

    fn make(&self, what: Shared) -> Result<UnionMap, Error> {
        let p = self.p;
        match what {
            Shared::Order { stmt, later } => {
                let sig = self.sigma(stmt, &p.stmts[stmt].name, None)?;
                if later { sig.copy().and_then(|s| s.lex_lt_union_map(sig)) } else { sig.copy().and_then(|s| s.lex_gt_union_map(sig)) }
                    .map_err(isl_err)
            }
            Shared::SameBand { stmt } => same_value(&self.band(stmt, &p.stmts[stmt].name)?),
            Shared::Writers { var } => {
                let mut sig_w = self.umap("{ }")?;
                for s in (0..p.stmts.len()).filter(|&s| p.stmts[s].write.var == var) {
                    sig_w = sig_w.union(self.sigma(s, &format!("{}_w", p.stmts[s].name), None)?).map_err(isl_err)?;
                }
                Ok(sig_w)
            }
            Shared::After { stmt, var } => {
                self.sigma(stmt, &p.stmts[stmt].name, None)?.lex_gt_union_map(self.make(Shared::Writers { var })?).map_err(isl_err)
            }
        }
    }

    /// The set as a predicate, simplified within the domain of process `within` (where it
    /// is evaluated).
    fn predicate(&self, set: UnionSet, dims: usize, within: usize) -> Result<Predicate, Error> {
        let set = set.coalesce().map_err(isl_err)?;
        if set.is_empty().map_err(isl_err)? {
            return Ok(Predicate { dims: (0..dims).map(|i| format!("i{i}")).collect(), disjuncts: Vec::new() });
        }
        let mut s = Set::from_union_set(set).map_err(isl_err)?;
        let tuple = s.get_tuple_name().map_err(isl_err)?.to_string();
        let domain = Set::read_from_str(&self.isl, &self.dpn.processes[within].domain)
            .and_then(|d| d.set_tuple_name(&tuple))
            .and_then(|d| d.intersect_params(Set::read_from_str(&self.isl, &self.fixed)?))
            .map_err(isl_err)?;
        s = s.gist(domain).map_err(isl_err)?;
        Predicate::from_set(&s, &self.dpn.params).map_err(|e| Error::internal(format!("a synchronisation set as a predicate: {e}")))
    }
}

/// [`Channel::ddr_source`] of channel `c`: none unless it is loaded from an array the kernel
/// writes: `{ L -> W }`, the writes W of the cell that load L reads with σ(W) < σ(L), taken
/// to σ(W) and its lexicographic maximum, each of whose basic maps must give every key
/// coordinate as a function of L ([`solve`]), or there is no source to give.
fn ddr_source_of(cx: &Ctx, c: usize) -> Result<Option<Vec<SourcePiece>>, Error> {
    let (p, dpn) = (cx.p, cx.dpn);
    let ch = &dpn.channels[c];
    let ProcessKind::Load { var } = dpn.processes[ch.producer].kind else { return Ok(None) };
    let Some(stmt) = dpn.processes[ch.consumer].stmt() else { return Ok(None) };
    let writers: Vec<usize> = (0..p.stmts.len()).filter(|&s| p.stmts[s].write.var == var).collect();
    if writers.is_empty() {
        return Ok(None);
    }
    let name = &p.stmts[stmt].name;
    let (after, sig_w) = (cx.shared(Shared::After { stmt, var })?, cx.shared(Shared::Writers { var })?);
    let mut writes = cx.umap("{ }")?;
    for &s in &writers {
        let tuple = format!("{}_w", p.stmts[s].name);
        writes = writes.union(cx.umap(&retag(&cx.model.writes[s], &p.stmts[s].name, &tuple))?).map_err(isl_err)?;
    }
    let candidates = cx
        .umap(&ch.relation)?
        .apply_range(writes.reverse().map_err(isl_err)?)
        .and_then(|m| m.intersect(after))
        .and_then(|m| m.apply_range(sig_w))
        .map_err(isl_err)?;
    // Coalesced before the lexmax: `after` splits the pairs into one piece per σ coordinate
    // at which the write comes first, most of them the same cells' writes, and the lexmax over
    // those pieces as they are took seconds per channel of skewed stencils (heat-3d). Where
    // isl cannot coalesce them (it can fail on many floors), the lexmax takes them as they are,
    // with the budget afresh.
    let keys = match candidates.copy().and_then(|m| m.coalesce()).and_then(|m| m.lexmax()) {
        Ok(keys) => keys,
        Err(_) => {
            cx.isl.reset_operations();
            candidates.lexmax().map_err(isl_err)?
        }
    };
    if keys.is_empty().map_err(isl_err)? {
        return Ok(Some(Vec::new()));
    }
    let domain = Set::read_from_str(&cx.isl, &dpn.processes[ch.consumer].domain)
        .and_then(|d| d.set_tuple_name(name))
        .and_then(|d| d.intersect_params(Set::read_from_str(&cx.isl, &cx.fixed)?))
        .map_err(isl_err)?;
    let graph = isl_rs::Map::from_union_map(keys)
        .and_then(|m| m.gist_domain(domain))
        .and_then(|m| m.wrap())
        .and_then(|s| s.flatten())
        .map_err(isl_err)?;
    let flat = Predicate::from_set(&graph, &dpn.params).map_err(|e| Error::internal(format!("a DDR source as a predicate: {e}")))?;
    let n_in = p.stmts[stmt].iters.len();
    let n_out = flat.dims.len() - n_in;
    let dims: Vec<String> = flat.dims[..n_in].to_vec();
    let mut pieces = Vec::new();
    for conj in &flat.disjuncts {
        let Some(piece) = solve(conj, n_in, n_out) else { return Ok(None) };
        if let Some((when, key)) = piece {
            pieces.push(SourcePiece { when: Predicate { dims: dims.clone(), disjuncts: vec![when] }, key });
        }
    }
    Ok(Some(pieces))
}

/// A conjunction over `n_in` inputs and `n_out` outputs as (condition on the inputs, each
/// output as a function of them), or None if some output is not determined by an equality
/// (`k·o = e`: o = e/k, where k divides e) or by a pair of inequalities that pin it to a
/// floor (`m·o <= e <= m·o + d`, d < m: o = ⌊e/m⌋). Some(None): the conjunction is
/// unsatisfiable.
#[allow(clippy::type_complexity)]
fn solve(conj: &[Constraint], n_in: usize, n_out: usize) -> Option<Option<(Vec<Constraint>, Vec<Expr>)>> {
    let mut def: Vec<Option<Expr>> = vec![None; n_out];
    let mut used = vec![false; conj.len()];
    let mut when = Vec::new();
    // `expr` with every defined output replaced, if it mentions no other output.
    let known = |def: &[Option<Expr>], e: &Expr| -> Option<Expr> {
        let mut e = e.clone();
        for (o, d) in def.iter().enumerate() {
            if let Some(d) = d {
                e = e.substitute(n_in + o, d);
            }
        }
        (0..n_out).all(|o| !e.mentions(n_in + o)).then_some(e)
    };
    // The top-level coefficient of output o in `e`, and `e` without it, where o occurs only there.
    let split = |e: &Expr, o: usize| -> Option<(i64, Expr)> {
        let k = e.terms.iter().find(|(_, t)| *t == Term::Var(n_in + o))?.0;
        let mut rest = e.clone();
        rest.add_scaled(&Expr::var(n_in + o), -k);
        (!rest.mentions(n_in + o)).then_some((k, rest))
    };
    let mut progress = true;
    while progress {
        progress = false;
        for o in 0..n_out {
            if def[o].is_some() {
                continue;
            }
            // k·o + rest == 0.
            let eq = conj.iter().enumerate().find_map(|(i, c)| {
                let (k, rest) = split(&c.expr, o).filter(|_| c.cmp == Cmp::Eq && !used[i])?;
                Some((i, k, known(&def, &rest)?))
            });
            if let Some((i, k, rest)) = eq {
                let mut e = Expr::default();
                e.add_scaled(&rest, -k.signum());
                let m = k.abs();
                let value = e.floor_div(m);
                if m > 1 {
                    let mut exact = e;
                    exact.add_scaled(&value, -m);
                    when.push(Constraint { expr: exact, cmp: Cmp::Eq });
                }
                (def[o], used[i], progress) = (Some(value), true, true);
                continue;
            }
            // rest_a − m·o >= 0 and m·o + rest_b >= 0 with rest_a + rest_b = d in 0..m.
            let bounds: Vec<(usize, i64, Expr)> = conj
                .iter()
                .enumerate()
                .filter(|(i, c)| c.cmp == Cmp::Ge && !used[*i])
                .filter_map(|(i, c)| {
                    let (k, rest) = split(&c.expr, o)?;
                    Some((i, k, known(&def, &rest)?))
                })
                .collect();
            let pair = bounds.iter().find_map(|(a, ka, ra)| {
                bounds.iter().find_map(|(b, kb, rb)| {
                    let mut sum = ra.clone();
                    sum.add_scaled(rb, 1);
                    let pins = *ka < 0 && *kb == -ka && sum.terms.is_empty() && (0..*kb).contains(&sum.cst);
                    pins.then(|| (*a, *b, *kb, ra.clone(), sum.cst == kb - 1))
                })
            });
            // With d < m − 1 (the consumer's domain gisted the pair) the pair also bounds
            // rest_a mod m: the lower bound then stays as a condition.
            if let Some((a, b, m, ra, exact)) = pair {
                (def[o], used[a], used[b], progress) = (Some(ra.floor_div(m)), true, exact, true);
            }
        }
    }
    let def: Vec<Expr> = def.into_iter().collect::<Option<_>>()?;
    for (c, _) in conj.iter().zip(&used).filter(|(_, u)| !**u) {
        let mut expr = c.expr.clone();
        for (o, d) in def.iter().enumerate() {
            expr = expr.substitute(n_in + o, d);
        }
        if expr.terms.is_empty() {
            let holds = if c.cmp == Cmp::Eq { expr.cst == 0 } else { expr.cst >= 0 };
            if !holds {
                return Some(None);
            }
            continue;
        }
        when.push(Constraint { expr, cmp: c.cmp });
    }
    Some(Some((when, def)))
}

/// `x ↦ the same value` (relation `c -> c'` of the consumer reading what `c` reads).
fn same_value(r: &UnionMap) -> Result<UnionMap, Error> {
    r.copy().and_then(|a| a.apply_range(r.copy()?.reverse()?)).map_err(isl_err)
}

/// The consumer's statement and the relation's text with its domain tuple renamed.
fn retag(relation: &str, stmt: &str, tuple: &str) -> String {
    relation.replace(&format!("{{ {stmt}["), &format!("{{ {tuple}[")).replace(&format!("; {stmt}["), &format!("; {tuple}["))
}

/// One question [`derive`] asks isl. Each is answered alone, so workers, each with an isl
/// context of its own, take them in any order.
#[derive(Clone, Copy)]
enum Job {
    /// The reads of channel `c` that take a new value (`later = false`) or read one for the
    /// last time (`later = true`).
    Alone { c: usize, later: bool },
    /// Where Load process `process` loads each value and which of its channels it fans out to.
    Loads { process: usize },
    /// Channel `c`'s [`Channel::ddr_source`].
    DdrSource { c: usize },
}

/// What a Load process's job gives each of its channels.
struct Loaded {
    c: usize,
    first_use: Option<Predicate>,
    fanout: Vec<(usize, Predicate)>,
    /// The channel's value is loaded at its own first use and shared at run time.
    shared_load: bool,
}

enum Answer {
    Alone(Option<Predicate>),
    Loads(Vec<Loaded>),
    DdrSource(Option<Vec<SourcePiece>>),
}

/// Up to this many threads ask isl at once.
const MAX_WORKERS: usize = 8;

/// Fills `Channel::{first_read, last_read, first_use, fanout, shared_load, ddr_source}`;
/// `done` hears how many of the questions to isl are answered.
pub fn derive(p: &Program, dpn: &mut Dpn, done: impl Fn(usize, usize) + Sync) -> Result<(), Error> {
    let n = dpn.channels.len();
    let compute = |pi: usize| dpn.processes[pi].stmt().is_some();
    let mut jobs = Vec::new();
    // The Load processes first: they ask the most.
    jobs.extend(
        (0..dpn.processes.len())
            .filter(|&lp| matches!(dpn.processes[lp].kind, ProcessKind::Load { .. }))
            .map(|process| Job::Loads { process }),
    );
    jobs.extend((0..n).map(|c| Job::DdrSource { c }));
    for (c, ch) in dpn.channels.iter().enumerate().filter(|(_, ch)| compute(ch.consumer)) {
        match ch.kind {
            ChannelKind::FifoReg => jobs.push(Job::Alone { c, later: false }),
            ChannelKind::Scratchpad => jobs.push(Job::Alone { c, later: true }),
            ChannelKind::Fifo => {}
        }
    }
    let answers = crate::jobs::in_order(jobs.len(), MAX_WORKERS, || Ctx::new(p, dpn), |cx, j| cx.answer(jobs[j]), done)?;
    for (job, answer) in jobs.iter().zip(answers) {
        match (*job, answer) {
            (Job::Alone { c, later: false }, Answer::Alone(a)) => dpn.channels[c].first_read = a,
            (Job::Alone { c, later: true }, Answer::Alone(a)) => dpn.channels[c].last_read = a,
            (Job::DdrSource { c }, Answer::DdrSource(a)) => dpn.channels[c].ddr_source = a,
            (Job::Loads { .. }, Answer::Loads(loaded)) => {
                for l in loaded {
                    let ch = &mut dpn.channels[l.c];
                    (ch.first_use, ch.fanout, ch.shared_load) = (l.first_use, l.fanout, l.shared_load);
                }
            }
            _ => return Err(Error::internal("a synchronisation answer does not match its question")),
        }
    }
    Ok(())
}

impl<'a> Ctx<'a> {
    fn new(p: &'a Program, dpn: &'a Dpn) -> Ctx<'a> {
        let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
        let model = Model::new(p);
        let fixed = model.fixed_context(p, &params);
        let isl = dpnc_frontend::dataflow::quiet_context();
        // Skewed tiles give sets with many floors on which these differences can explode; a
        // channel whose sets exceed the budget gets no predicate (code generation says so).
        isl.set_max_operations(ISL_BUDGET);
        Ctx { p, dpn, model, fixed, isl, shared: RefCell::default() }
    }

    fn answer(&self, job: Job) -> Result<Answer, Error> {
        self.isl.reset_operations();
        Ok(match job {
            // Where isl fails or exceeds its budget, there is no predicate, and loads keep
            // waiting for whole earlier bands.
            Job::Alone { c, later } => Answer::Alone(self.alone(c, later).ok()),
            Job::DdrSource { c } => Answer::DdrSource(ddr_source_of(self, c).ok().flatten()),
            Job::Loads { process } => Answer::Loads(self.loads(process)),
        })
    }

    /// A read of channel `c` that takes a new value (`later = false`: no read of the same
    /// value before it in σ) or that reads a value for the last time (`later = true`).
    fn alone(&self, c: usize, later: bool) -> Result<Predicate, Error> {
        let (p, ch) = (self.p, &self.dpn.channels[c]);
        let stmt_of = |pi: usize| self.dpn.processes[pi].stmt();
        let stmt = stmt_of(ch.consumer).ok_or_else(|| Error::internal("not a compute consumer"))?;
        let r = self.umap(&ch.relation)?;
        let mut same = same_value(&r)?;
        if stmt_of(ch.producer).is_none() {
            // A loaded cell is a new value in every band.
            same = same.intersect(self.shared(Shared::SameBand { stmt })?).map_err(isl_err)?;
        }
        let order = self.shared(Shared::Order { stmt, later })?;
        let other = same.intersect(order).and_then(|s| s.domain()).map_err(isl_err)?;
        let reads = r.domain().and_then(|u| u.subtract(other)).map_err(isl_err)?;
        self.predicate(reads, p.stmts[stmt].iters.len(), ch.consumer)
    }

    /// Load process `lp`'s channels: every channel at once, its consumer tuple tagged with
    /// the channel so that the read ports of one instance stay apart (σ, then port, orders
    /// them).
    fn loads(&self, lp: usize) -> Vec<Loaded> {
        let chans: Vec<usize> = (0..self.dpn.channels.len()).filter(|&c| self.dpn.channels[c].producer == lp).collect();
        self.loads_together(&chans).unwrap_or_else(|_| {
            // Too costly over all the array's reads at once (stencils with skewed tiles):
            // each channel then gets the value at its own first use in the band, and the Load
            // process shares the DDR read between channels at run time (`shared_load`).
            chans
                .iter()
                .map(|&c| {
                    self.isl.reset_operations();
                    let first_use = self.alone(c, false).ok();
                    let fanout = first_use.iter().map(|fu| (c, Predicate { dims: fu.dims.clone(), disjuncts: vec![vec![]] })).collect();
                    Loaded { c, shared_load: first_use.is_some(), first_use, fanout }
                })
                .collect()
        })
    }

    fn loads_together(&self, chans: &[usize]) -> Result<Vec<Loaded>, Error> {
        let (p, dpn) = (self.p, self.dpn);
        let mut tagged = Vec::new();
        let (mut all, mut sig, mut band) = (self.umap("{ }")?, self.umap("{ }")?, self.umap("{ }")?);
        for &c in chans {
            let ch = &dpn.channels[c];
            let stmt = dpn.processes[ch.consumer].stmt().ok_or_else(|| Error::internal("a load feeds a non-compute process"))?;
            let tuple = format!("{}_c{c}", p.stmts[stmt].name);
            let t = self.umap(&retag(&ch.relation, &p.stmts[stmt].name, &tuple))?;
            all = all.union(t.copy().map_err(isl_err)?).map_err(isl_err)?;
            sig = sig.union(self.sigma(stmt, &tuple, ch.port)?).map_err(isl_err)?;
            band = band.union(self.band(stmt, &tuple)?).map_err(isl_err)?;
            tagged.push((c, stmt, t));
        }
        let same_band = same_value(&band)?;
        let same = same_value(&all)?.intersect(same_band.copy().map_err(isl_err)?).map_err(isl_err)?;
        let before = sig.copy().and_then(|s| s.lex_gt_union_map(sig)).map_err(isl_err)?;
        let earlier = same.intersect(before).and_then(|u| u.domain()).map_err(isl_err)?;
        let mut loaded = Vec::new();
        for (c, stmt, t) in &tagged {
            let dims = p.stmts[*stmt].iters.len();
            let here = t.copy().and_then(|u| u.domain()).and_then(|u| u.subtract(earlier.copy()?)).map_err(isl_err)?;
            let mut fanout = Vec::new();
            for (c2, _, t2) in &tagged {
                let to = t
                    .copy()
                    .and_then(|u| u.apply_range(t2.copy()?.reverse()?))
                    .and_then(|u| u.intersect(same_band.copy()?))
                    .and_then(|u| u.domain())
                    .and_then(|u| u.intersect(here.copy()?))
                    .map_err(isl_err)?;
                if !to.is_empty().map_err(isl_err)? {
                    fanout.push((*c2, self.predicate(to, dims, dpn.channels[*c].consumer)?));
                }
            }
            let first_use = Some(self.predicate(here, dims, dpn.channels[*c].consumer)?);
            loaded.push(Loaded { c: *c, first_use, fanout, shared_load: false });
        }
        Ok(loaded)
    }
}
