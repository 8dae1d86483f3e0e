//! Exact array dataflow (Feautrier) with isl's `compute_flow`, turned into the SARE.
//!
//! Every read reference becomes its own sink tuple `S<k>_r<r>` (same domain and schedule as
//! `S<k>`), so the must-dependences say which producer instance feeds which read *port*.
//! For the final value of each written array a virtual sink `F_<array>` reads every cell
//! after the whole program; its sources are the last writers.

use crate::diag::{Diagnostic, Result};
use crate::ir::Program;
use crate::polyhedral::{isl_name, Model};
use crate::qrel::Piece;
use isl_rs::{BasicMap, Context, DimType, Map, MultiUnionPwAff, Schedule, Set, UnionAccessInfo, UnionMap, UnionSet};

/// Where one piece of a read's values comes from.
#[derive(Clone, Debug)]
pub struct Source {
    /// The producing statement, or `None` for the array's initial value.
    pub stmt: Option<usize>,
    /// sink instance → producer instance (or → array cell, for initial values).
    pub rel: Piece,
    /// The piece in isl notation, simplified against the sink's domain.
    pub text: String,
    /// The piece in isl notation, exact (for building channel relations).
    pub exact: String,
}

/// All sources of one read reference; at most one piece matches any sink instance.
#[derive(Clone, Debug, Default)]
pub struct ReadFlow {
    pub sources: Vec<Source>,
}

/// What a read instance gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The value computed by this instance of this statement.
    Stmt(usize, Vec<i64>),
    /// The initial value of this cell of the array read.
    Initial(Vec<i64>),
}

impl ReadFlow {
    /// Like [`ReadFlow::origin`] without allocating: the producing statement (`None` for an
    /// initial value) with its instance, or the cell, in `out`; `None` if no piece matches.
    pub fn origin_into(&self, params: &[i64], instance: &[i64], out: &mut Vec<i64>) -> Option<Option<usize>> {
        self.piece_into(params, instance, out).map(|i| self.sources[i].stmt)
    }

    /// Like [`ReadFlow::origin_into`], returning which source piece matched.
    pub fn piece_into(&self, params: &[i64], instance: &[i64], out: &mut Vec<i64>) -> Option<usize> {
        self.piece_near(params, instance, out, 0)
    }

    /// [`ReadFlow::piece_into`] trying piece `hint` first (consecutive instances mostly take
    /// the same piece; pieces are disjoint, so the order of the tries changes nothing else).
    pub fn piece_near(&self, params: &[i64], instance: &[i64], out: &mut Vec<i64>, hint: usize) -> Option<usize> {
        match self.sources.get(hint) {
            Some(s) if s.rel.apply_into(params, instance, out) => Some(hint),
            _ => self.sources.iter().enumerate().position(|(i, s)| i != hint && s.rel.apply_into(params, instance, out)),
        }
    }

    pub fn origin(&self, params: &[i64], instance: &[i64]) -> Option<Origin> {
        self.sources.iter().find_map(|s| {
            s.rel.apply(params, instance).map(|out| match s.stmt {
                Some(k) => Origin::Stmt(k, out),
                None => Origin::Initial(out),
            })
        })
    }
}

/// The system of affine recurrence equations: for every read of every statement, its
/// sources; for every written array, the last writer of each cell.
#[derive(Clone, Debug)]
pub struct Sare {
    /// `reads[stmt][read]`.
    pub reads: Vec<Vec<ReadFlow>>,
    /// `finals[var]`: sources of the final value of each cell (`None` if never written).
    pub finals: Vec<Option<ReadFlow>>,
    /// Statement domains as isl prints them.
    pub domains: Vec<String>,
}

fn isl_err(what: &str) -> impl Fn(isl_rs::LibISLError) -> Diagnostic + '_ {
    move |e| Diagnostic::bug(None, format!("isl failed while {what}: {e}"))
}

/// Parses several relations in isl notation into one union map.
pub fn union(ctx: &Context, parts: &[String]) -> Result<UnionMap> {
    let mut u = UnionMap::read_from_str(ctx, "{ }").map_err(isl_err("creating a relation"))?;
    for p in parts {
        let m = UnionMap::read_from_str(ctx, p).map_err(|e| Diagnostic::bug(None, format!("isl rejected `{p}`: {e}")))?;
        u = u.union(m).map_err(isl_err("building a union"))?;
    }
    Ok(u)
}

/// Text of an isl object without its parameter prefix and braces.
pub fn strip(text: &str) -> String {
    let body = match (text.find('{'), text.rfind('}')) {
        (Some(a), Some(b)) if a < b => &text[a + 1..b],
        _ => text,
    };
    body.trim().to_string()
}

/// How much work isl may do for the parametric dataflow shown by `--emit sare` (isl's own
/// count of basic operations, some 3 s per million on small random kernels; PolyBench's
/// costliest, adi and deriche, fit in a fraction of it). Past it the dataflow at the parameters'
/// values is shown.
pub const PARAMETRIC_OPERATIONS: u64 = 2_000_000;

/// How much work isl may do for one kernel's dataflow at its parameters' values. Past it the
/// kernel is refused with a diagnostic instead of running for hours.
pub const MAX_ISL_OPERATIONS: u64 = 20_000_000;

/// The deepest sink whose dataflow pieces are simplified in its domain. The simplification only
/// makes a piece cheaper to evaluate, and its cost (isl's affine hull, which no operation
/// quota interrupts) grows exponentially with the depth: 1.6 s for a piece of 6 loops, 9 s for 8.
const MAX_GIST_DEPTH: i32 = 5;

/// Builds the SARE of `p` at its parameters' values, which everything built from it is for:
/// with the sizes fixed, isl needs no case split on them (guards and bounds with `min`, `max`
/// and divisions multiply the cases of a parametric dataflow a hundredfold). Parametric only
/// when a parameter has no value.
pub fn compute(p: &Program) -> Result<Sare> {
    let fixed = p.param_values().ok().map(|values| Model::new(p).fixed_context(p, &values));
    let ctx = bounded_context(MAX_ISL_OPERATIONS);
    compute_in(p, &ctx, fixed.as_deref()).map_err(|e| if quota_spent(&ctx) { too_costly(p, MAX_ISL_OPERATIONS) } else { e })
}

/// The SARE of `p` for every value of its parameters, to show: `Ok((sare, true))`; when isl
/// needs more than [`PARAMETRIC_OPERATIONS`] for it, [`compute`]'s, with `false`.
pub fn compute_parametric(p: &Program) -> Result<(Sare, bool)> {
    let ctx = bounded_context(PARAMETRIC_OPERATIONS);
    match compute_in(p, &ctx, None) {
        Err(_) if quota_spent(&ctx) => Ok((compute(p)?, false)),
        done => done.map(|sare| (sare, true)),
    }
}

/// An isl context that returns errors as values instead of printing them and aborting.
pub fn quiet_context() -> Context {
    let ctx = Context::alloc();
    let _ = isl_rs::Options::set_on_error(&ctx, 1);
    ctx
}

/// A [`quiet_context`] that stops after `operations` (see [`quota_spent`]).
pub fn bounded_context(operations: u64) -> Context {
    let ctx = quiet_context();
    ctx.set_max_operations(operations);
    ctx
}

/// `piece` simplified in the sink's domain `domain` (it is evaluated only there, so it is
/// equivalent there, with fewer constraints to check): the single basic map if it stays one,
/// and its text. `None` for a sink deeper than [`MAX_GIST_DEPTH`].
fn gist(ctx: &Context, piece: &BasicMap, domain: &str) -> Option<(Option<BasicMap>, String)> {
    if piece.dim(DimType::In).ok()? > MAX_GIST_DEPTH {
        return None;
    }
    let simplified =
        Set::read_from_str(ctx, domain).and_then(|dom| piece.copy().and_then(Map::from_basic_map).and_then(|m| m.gist_domain(dom)));
    let out = simplified.ok().and_then(|m| {
        let text = m.to_str().ok()?.to_string();
        let single = m.get_basic_map_list().ok().filter(|l| l.size().ok() == Some(1)).and_then(|l| l.get_at(0).ok());
        Some((single, text))
    });
    out
}

/// Whether isl stopped for its operation quota: once it is spent every call fails, the
/// smallest too (the error of the call that hit the quota is overwritten by later ones).
pub fn quota_spent(ctx: &Context) -> bool {
    Set::read_from_str(ctx, "{ [i] : 0 <= i <= 1 }").and_then(|s| s.is_empty()).is_err()
}

/// The diagnostic for a kernel whose dataflow exceeds `operations`, at its deepest statement
/// (where the pieces multiply).
fn too_costly(p: &Program, operations: u64) -> Diagnostic {
    let deepest = p.stmts.iter().max_by_key(|s| s.iters.len());
    let message = format!(
        "the exact dataflow of this kernel is too costly to compute (isl gave up after {operations} operations): {} statements{}",
        p.stmts.len(),
        deepest.map_or(String::new(), |s| format!(", the deepest in {} nested loops", s.iters.len()))
    );
    let help = "split the kernel or its loop nests, or give a reduction its own accumulator per outer iteration";
    Diagnostic { span: deepest.map(|s| s.span), message, help: Some(help.into()), internal: false }
}

/// The SARE of `p`, for the parameter values of `fixed` (an isl parameter set) if given.
fn compute_in(p: &Program, ctx: &Context, fixed: Option<&str>) -> Result<Sare> {
    let m = Model::new(p);
    let top = p.schedule_len();
    let end_time = p.stmts.iter().filter_map(|s| match s.schedule.first() {
        Some(crate::ir::SchedTerm::Const(c)) => Some(*c),
        _ => None,
    });
    let end_time = end_time.max().unwrap_or(0) + 1;

    let mut sinks = Vec::new();
    let mut sched = m.schedules.clone();
    let mut sink_domains: Vec<(String, String)> = Vec::new();
    for (k, s) in p.stmts.iter().enumerate() {
        let cond = m.cond_of(p, k);
        let names = crate::polyhedral::Names::of(p, s);
        for (r, a) in s.reads.iter().enumerate() {
            let tuple = format!("{}_r{r}", s.name);
            sinks.push(m.access(p, &names, &tuple, a, &cond));
            sched.push(m.schedules[k].replacen(&format!("{}[", s.name), &format!("{tuple}["), 1));
            sink_domains.push((tuple.clone(), format!("{}{{ {} : {cond} }}", m.params, names.tuple(&tuple))));
        }
    }
    for v in p.vars.iter().filter(|v| v.written) {
        let tuple = format!("F_{}", v.name);
        let idx: Vec<String> = (0..v.dims.len()).map(|d| format!("a{d}")).collect();
        let bounds: Vec<String> = v
            .dims
            .iter()
            .enumerate()
            .map(|(d, n)| format!("0 <= a{d} < {n}"))
            .chain((!m.context.is_empty()).then(|| m.context.clone()))
            .collect();
        let cond = if bounds.is_empty() { "1 = 1".to_string() } else { bounds.join(" and ") };
        let head = format!("{tuple}[{}]", idx.join(", "));
        sinks.push(format!("{}{{ {head} -> {}[{}] : {cond} }}", m.params, isl_name(&v.name), idx.join(", ")));
        let time: Vec<String> = std::iter::once(end_time.to_string()).chain(std::iter::repeat("0".into())).take(top).collect();
        sched.push(format!("{}{{ {head} -> [{}] }}", m.params, time.join(", ")));
        sink_domains.push((tuple, format!("{}{{ {head} : {cond} }}", m.params)));
    }

    let at_values = |u: UnionMap| -> Result<UnionMap> {
        match fixed {
            None => Ok(u),
            Some(f) => Set::read_from_str(ctx, f).and_then(|f| u.intersect_params(f)).map_err(isl_err("fixing the parameters")),
        }
    };
    let writes = at_values(union(ctx, &m.writes)?)?;
    let info = UnionAccessInfo::from_sink(at_values(union(ctx, &sinks)?)?)
        .and_then(|i| i.set_must_source(writes))
        .map_err(isl_err("setting up dataflow"))?;
    // The schedule as a schedule tree (one band over the instances) rather than a schedule
    // map: with a map, isl's dataflow picked an earlier writer for a read whose statement and
    // the last writer's sit under different guards of one loop
    // (tests/regress/sare_guarded_*).
    let mut instances = UnionSet::read_from_str(ctx, "{ }").map_err(isl_err("collecting the instances"))?;
    for d in m.domains.iter().chain(sink_domains.iter().map(|(_, d)| d)) {
        let set = UnionSet::read_from_str(ctx, d).map_err(|e| Diagnostic::bug(None, format!("isl rejected `{d}`: {e}")))?;
        instances = instances.union(set).map_err(isl_err("collecting the instances"))?;
    }
    if let Some(f) = fixed {
        instances = Set::read_from_str(ctx, f).and_then(|f| instances.intersect_params(f)).map_err(isl_err("fixing the parameters"))?;
    }
    let band = at_values(union(ctx, &sched)?)?
        .intersect_domain(instances.copy().map_err(isl_err("collecting the instances"))?)
        .and_then(MultiUnionPwAff::from_union_map)
        .map_err(isl_err("building the schedule"))?;
    let tree = Schedule::from_domain(instances).and_then(|s| s.insert_partial_schedule(band)).map_err(isl_err("building the schedule"))?;
    let info = info.set_schedule(tree).map_err(isl_err("setting the schedule"))?;
    let flow = info.compute_flow().map_err(isl_err("computing dataflow"))?;
    let deps = flow.get_must_dependence().and_then(|d| d.reverse()).and_then(|d| d.coalesce()).map_err(isl_err("reading dependences"))?;
    let initial = flow.get_must_no_source().and_then(|d| d.coalesce()).map_err(isl_err("reading initial reads"))?;

    let mut by_sink: std::collections::HashMap<String, ReadFlow> = std::collections::HashMap::new();
    for (umap, from_stmt) in [(&deps, true), (&initial, false)] {
        let list = umap.get_map_list().map_err(isl_err("listing dependences"))?;
        for i in 0..list.size().map_err(isl_err("listing dependences"))? {
            let map = list.get_at(i).map_err(isl_err("listing dependences"))?;
            let sink = map.get_tuple_name(DimType::In).map_err(isl_err("naming a sink"))?.to_string();
            let source = map.get_tuple_name(DimType::Out).map_err(isl_err("naming a source"))?.to_string();
            let stmt = if from_stmt {
                Some(
                    p.stmts
                        .iter()
                        .position(|s| s.name == source)
                        .ok_or_else(|| Diagnostic::bug(None, format!("unknown source `{source}`")))?,
                )
            } else {
                None
            };
            let dom_text =
                &sink_domains.iter().find(|(t, _)| *t == sink).ok_or_else(|| Diagnostic::bug(None, format!("unknown sink `{sink}`")))?.1;
            let pieces = map.get_basic_map_list().map_err(isl_err("listing pieces"))?;
            for j in 0..pieces.size().map_err(isl_err("listing pieces"))? {
                let bmap: BasicMap = pieces.get_at(j).map_err(isl_err("reading a piece"))?;
                let exact = bmap.to_str().map_err(isl_err("printing"))?.to_string();
                let (gisted, text) = match gist(ctx, &bmap, dom_text) {
                    Some((g, t)) => (g, strip(&t)),
                    None => (None, strip(&exact)),
                };
                let rel = Piece::from_isl(gisted.as_ref().unwrap_or(&bmap))
                    .map_err(|e| Diagnostic::bug(None, format!("a dataflow piece does not read back: {e}")))?;
                by_sink.entry(sink.clone()).or_default().sources.push(Source { stmt, rel, text, exact });
            }
        }
    }
    let mut reads = Vec::new();
    for s in &p.stmts {
        reads.push((0..s.reads.len()).map(|r| by_sink.remove(&format!("{}_r{r}", s.name)).unwrap_or_default()).collect());
    }
    let finals = p.vars.iter().map(|v| v.written.then(|| by_sink.remove(&format!("F_{}", v.name)).unwrap_or_default())).collect();
    let mut domains = Vec::new();
    for d in &m.domains {
        let context = Set::read_from_str(ctx, &format!("{}{{ : {} }}", m.params, if m.context.is_empty() { "1 = 1" } else { &m.context }))
            .map_err(isl_err("reading the context"))?;
        let set = Set::read_from_str(ctx, d)
            .and_then(|s| s.gist_params(context))
            .and_then(|s| s.coalesce())
            .map_err(|e| Diagnostic::bug(None, format!("isl rejected `{d}`: {e}")))?;
        domains.push(strip(set.to_str().map_err(isl_err("printing"))?));
    }
    Ok(Sare { reads, finals, domains })
}

/// The model as isl prints it after simplification: domains without the parameter context,
/// accesses and schedules without the domain constraints (for `--emit scop`).
pub fn simplified_model(m: &Model) -> Result<Model> {
    let ctx = quiet_context();
    let context = format!("{}{{ : {} }}", m.params, if m.context.is_empty() { "1 = 1" } else { &m.context });
    let params = || Set::read_from_str(&ctx, &context).map_err(isl_err("reading the context"));
    fn bad(t: &str) -> impl Fn(isl_rs::LibISLError) -> Diagnostic + '_ {
        move |e| Diagnostic::bug(None, format!("isl rejected `{t}`: {e}"))
    }
    let mut out =
        Model { params: m.params.clone(), context: m.context.clone(), domains: vec![], writes: vec![], reads: vec![], schedules: vec![] };
    for (k, d) in m.domains.iter().enumerate() {
        let dom = Set::read_from_str(&ctx, d).map_err(bad(d))?;
        let shown = dom.copy().map_err(bad(d))?.gist_params(params()?).and_then(|s| s.coalesce()).map_err(bad(d))?;
        out.domains.push(shown.to_str().map_err(bad(d))?.to_string());
        let rel = |t: &String| -> Result<String> {
            let map = Map::read_from_str(&ctx, t).map_err(bad(t))?;
            let map = map.gist_domain(dom.copy().map_err(bad(t))?).and_then(|m| m.coalesce()).map_err(bad(t))?;
            Ok(map.to_str().map_err(bad(t))?.to_string())
        };
        out.writes.push(rel(&m.writes[k])?);
        out.reads.push(m.reads[k].iter().map(rel).collect::<Result<_>>()?);
        out.schedules.push(rel(&m.schedules[k])?);
    }
    Ok(out)
}
