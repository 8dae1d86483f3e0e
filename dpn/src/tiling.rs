//! Tiling: per top-level loop nest, one permutable band of tiling hyperplanes φ, checked
//! against all flow, anti and output dependences with isl.
//!
//! Strategy (documented in `--report`): (1) align every statement's iterators by name with
//! the deepest statement of the nest and try the permutations of those dimensions, reduction
//! dimensions (absent from the written subscript) last, so that accumulations stay on chip;
//! (2) otherwise search skews `φ_k + Σ c·φ_j` (c ≤ 2) with per-statement shifts (the
//! Jacobi-1D solution is `(t, 2t+i)` / `(t, 2t+i+1)`; skew factors sum to at most 2), and
//! the same for the dimension negated (a loop that runs downwards, as Nussinov's `i`, whose
//! dependences all point to smaller values), and for a nest whose bands are too big to
//! build, with the least per-statement shifts the dependences allow (a statement after a
//! whole loop it lacks moves past the loop); (3) otherwise fall back to one band
//! holding the whole nest in its original order (always legal, everything on chip). Each
//! nest is also searched with the reuse of its private arrays' cells ignored
//! ([`Deps::private`]), and banded that way where that tiles more loops.

use crate::Error;
use dpnc_frontend::dataflow;
use dpnc_frontend::ir::{Program, SchedTerm};
use dpnc_frontend::polyhedral::{isl_name, Model};
use dpnc_frontend::Diagnostic;
use isl_rs::{Context, DimType, Map, Set, UnionMap, UnionSet};
use serde::{Deserialize, Serialize};

/// An affine function of one statement's iterators.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Affine {
    pub coef: Vec<i64>,
    pub cst: i64,
}

impl Affine {
    pub fn eval(&self, it: &[i64]) -> i64 {
        self.coef.iter().zip(it).map(|(c, x)| c * x).sum::<i64>() + self.cst
    }
    /// In isl notation over the given iterator names (also how reports show it).
    pub fn isl(&self, iters: &[String]) -> String {
        let mut terms: Vec<String> = Vec::new();
        for (c, n) in self.coef.iter().zip(iters) {
            match c {
                0 => {}
                1 => terms.push(n.clone()),
                -1 => terms.push(format!("-{n}")),
                c => terms.push(format!("{c}{n}")),
            }
        }
        if self.cst != 0 || terms.is_empty() {
            terms.push(self.cst.to_string());
        }
        terms.join(" + ").replace("+ -", "- ")
    }
    fn add_scaled(&self, other: &Affine, k: i64) -> Affine {
        Affine { coef: self.coef.iter().zip(&other.coef).map(|(a, b)| a + k * b).collect(), cst: self.cst + k * other.cst }
    }
}

/// The tiling of one top-level loop nest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Nest {
    /// Statements of the nest, in textual order.
    pub stmts: Vec<usize>,
    /// Number of tiling hyperplanes.
    pub dims: usize,
    /// `phi[k][d]`: hyperplane `d` of statement `stmts[k]`.
    pub phi: Vec<Vec<Affine>>,
    /// How the hyperplanes were found, for the report.
    pub how: String,
    /// `true` when no legal tiling was found and the nest is one untiled band.
    pub fallback: bool,
    /// Per statement (as `stmts`), the hyperplanes in the order its points run inside a
    /// tile, outermost first (see [`point_order`]); empty means `0..dims`.
    #[serde(default)]
    pub points: Vec<Vec<usize>>,
    /// Per statement (as `stmts`), its group: statements with no dependence between them
    /// whose points run in different orders are in different groups, and σ runs a tile's
    /// groups one after the other (see [`groups`]); empty means one group.
    #[serde(default)]
    pub groups: Vec<usize>,
    /// Per hyperplane, whether some dependence between the nest's statements has a positive
    /// distance along it (parallel sub-bands along it then pass values on; see
    /// [`crate::shape::interleaved`]); empty: none does.
    #[serde(default)]
    pub carries: Vec<bool>,
}

impl Nest {
    /// The position of `stmt` in `stmts` (and in `phi`, `points`, `groups`).
    fn slot(&self, stmt: usize) -> usize {
        self.stmts.iter().position(|&s| s == stmt).unwrap_or(0)
    }

    pub fn phi_of(&self, stmt: usize) -> &[Affine] {
        &self.phi[self.slot(stmt)]
    }

    /// Hyperplane depth `d` of `stmt`'s order inside a tile, for `d` up to `depth` (deeper
    /// entries, past the nest's own hyperplanes, are themselves).
    pub fn point(&self, stmt: usize, d: usize) -> usize {
        self.points.get(self.slot(stmt)).and_then(|o| o.get(d)).copied().unwrap_or(d)
    }

    /// The group of `stmt` (its rank among the groups a tile runs in sequence).
    pub fn group(&self, stmt: usize) -> usize {
        self.groups.get(self.slot(stmt)).copied().unwrap_or(0)
    }
}

/// The statement of `nest` with the most iterators (the first on a tie).
fn deepest(p: &Program, nest: &[usize]) -> usize {
    nest.iter().copied().max_by_key(|&s| (p.stmts[s].iters.len(), std::cmp::Reverse(s))).unwrap_or(0)
}

/// Bytes of one DDR line: what a memory process fetches at once (the Verilog backend's 512-bit
/// AXI beat).
const LINE_BYTES: i64 = 64;

/// The `--tile` and `--par` lists the bands will be cut by.
#[derive(Clone, Copy, Debug)]
pub struct Cut<'a> {
    pub tile: &'a [i64],
    pub par: &'a [i64],
}

/// The dimensions of `stmt` in its reduction-last order: those its write mentions, then its
/// reductions, each in program order (see [`search`]).
fn reduction_last(p: &Program, stmt: usize, dims: usize) -> Vec<usize> {
    let write = &p.stmts[stmt].write.index;
    let mut order: Vec<usize> = (0..dims).collect();
    order.sort_by_key(|&d| (!write.iter().any(|a| a.mentions(d)), d));
    order
}

/// Where the deepest statements of `nest` tie and the first one's order would cut the rows
/// of a matrix the kernel only reads among sub-bands, each sub-band's share of a row narrower
/// than a DDR line: the first of them whose own order runs along those rows last. Each
/// sub-band then reads whole rows of its own, which its memory lane fetches in long bursts,
/// where a cut across the rows makes every lane fetch each line for its share. BiCG at
/// `--par 4`: `s[j] += r[i]·A[i][j]` orders (j, i), eight floats of each row of A per
/// sub-band; `q[i] += A[i][j]·p[j]` orders (i, j).
fn rows_last(p: &Program, nest: &[usize], cut: Cut) -> Option<usize> {
    let depth = nest.iter().map(|&s| p.stmts[s].iters.len()).max()?;
    let tied: Vec<usize> = nest.iter().copied().filter(|&s| p.stmts[s].iters.len() == depth).collect();
    let first = reduction_last(p, tied[0], depth);
    let read_only = |v: usize| !p.stmts.iter().any(|t| t.write.var == v);
    // The rows the first order cuts too finely: per read-only matrix, its rows' dimension.
    let cut_rows: Vec<usize> = p.stmts[tied[0]]
        .reads
        .iter()
        .filter(|a| read_only(a.var) && a.index.len() >= 2)
        .filter_map(|a| {
            let x = (0..depth).find(|&d| a.index.last().is_some_and(|e| e.mentions(d)))?;
            let k = first.iter().position(|&d| d == x)?;
            let q = crate::shape::par_size(cut.par, k);
            let share = crate::shape::tile_size(cut.tile, k) / q;
            (k + 1 < depth && q > 1 && share * (p.vars[a.var].ty.size() as i64) < LINE_BYTES).then_some(x)
        })
        .collect();
    tied.into_iter().skip(1).find(|&s| reduction_last(p, s, depth).last().is_some_and(|x| cut_rows.contains(x)))
}

/// The order of the hyperplanes inside a tile for the statements `stmts` of `nest`. The
/// last hyperplane runs the band's tiles in sequence; when it is a reduction of the deepest
/// of `stmts` (none of its iterators is in the written subscript: GEMM's k), it also goes
/// outermost inside the tile, so that consecutive points update different cells and a
/// pipelined process does not wait for its own previous result. Any order of the points is
/// legal, since every hyperplane alone respects every dependence; the one kept out is a
/// hyperplane that is a multiple of another (its loop is bounded by that one's counter,
/// which must then come first).
fn point_order(p: &Program, nest: &Nest, stmts: &[usize]) -> Vec<usize> {
    let d = nest.dims;
    let identity: Vec<usize> = (0..d).collect();
    if d < 2 || nest.fallback {
        return identity;
    }
    let deepest = deepest(p, stmts);
    let last = &nest.phi_of(deepest)[d - 1];
    let write = &p.stmts[deepest].write.index;
    let reduction =
        last.coef.iter().any(|&c| c != 0) && last.coef.iter().enumerate().all(|(j, &c)| c == 0 || !write.iter().any(|a| a.mentions(j)));
    // `a` = λ·`b` for a non-constant `a`: the same direction.
    let parallel = |a: &Affine, b: &Affine| {
        let j = b.coef.iter().position(|&c| c != 0);
        a.coef.iter().any(|&c| c != 0) && j.is_some_and(|j| a.coef.iter().zip(&b.coef).all(|(x, y)| x * b.coef[j] == y * a.coef[j]))
    };
    let tied = stmts.iter().map(|&s| nest.phi_of(s)).any(|rows| rows[..d - 1].iter().any(|r| parallel(&rows[d - 1], r)));
    if !reduction || tied {
        return identity;
    }
    std::iter::once(d - 1).chain(0..d - 1).collect()
}

/// The nest of every statement.
pub fn nest_of(nests: &[Nest], n_stmts: usize) -> Vec<usize> {
    (0..n_stmts).map(|s| nests.iter().position(|n| n.stmts.contains(&s)).unwrap_or(0)).collect()
}

/// Top-level nests: statements sharing the first schedule coordinate.
pub fn nests(p: &Program) -> Vec<Vec<usize>> {
    let mut out: Vec<(i64, Vec<usize>)> = Vec::new();
    for (k, s) in p.stmts.iter().enumerate() {
        let top = match s.schedule.first() {
            Some(SchedTerm::Const(c)) => *c,
            _ => 0,
        };
        match out.iter_mut().find(|(t, _)| *t == top) {
            Some((_, v)) => v.push(k),
            None => out.push((top, vec![k])),
        }
    }
    out.into_iter().map(|(_, v)| v).collect()
}

/// All flow, anti and output dependences of the program (isl, parameters fixed); or, for
/// [`Deps::private`], all but the anti and output dependences of its private arrays.
struct Deps<'c> {
    ctx: &'c Context,
    deps: UnionMap,
    /// The flow dependences of the private arrays, which every hyperplane must keep at
    /// distance 0 (so that their values never leave a band); `None` for all dependences.
    private_flow: Option<UnionMap>,
    fixed: String,
    /// The dependences among one nest's statements (the last nest asked for): legality
    /// checks run many times per nest, and the whole program's relation is much larger.
    local: std::cell::RefCell<Option<(Vec<usize>, UnionMap)>>,
}

fn isl_err(e: isl_rs::LibISLError) -> Error {
    Error::internal(format!("isl failed during tiling: {e}"))
}

/// The union of access (or schedule) relations `parts`, parameters fixed by `fixed`.
fn accesses<'t>(ctx: &Context, fixed: &str, parts: impl Iterator<Item = &'t String>) -> Result<UnionMap, Error> {
    let parts: Vec<String> = parts.cloned().collect();
    dataflow::union(ctx, &parts)?.intersect_params(isl_rs::Set::read_from_str(ctx, fixed).map_err(isl_err)?).map_err(isl_err)
}

/// Flow, anti and output dependences between writes `w` and reads `r` of the same cells, in
/// either order (the caller keeps those that go forward in time).
fn memory_dependences(w: UnionMap, r: UnionMap) -> Result<[UnionMap; 3], Error> {
    let flow = w.copy().and_then(|w| w.apply_range(r.copy()?.reverse()?)).map_err(isl_err)?;
    let anti = r.apply_range(w.copy().and_then(|w| w.reverse()).map_err(isl_err)?).map_err(isl_err)?;
    let out = w.copy().and_then(|w2| w2.apply_range(w.reverse()?)).map_err(isl_err)?;
    Ok([flow, anti, out])
}

impl<'c> Deps<'c> {
    fn new(ctx: &'c Context, p: &Program, params: &[i64]) -> Result<Deps<'c>, Error> {
        let m = Model::new(p);
        let fixed = m.fixed_context(p, params);
        let union = |parts: &[String]| accesses(ctx, &fixed, parts.iter());
        let w = union(&m.writes)?;
        let r = union(&m.reads.concat())?;
        let sched = union(&m.schedules)?;
        let before = sched.copy().map_err(isl_err)?.lex_lt_union_map(sched).map_err(isl_err)?;
        let [flow, anti, out] = memory_dependences(w, r)?;
        let deps =
            flow.union(anti).and_then(|d| d.union(out)).and_then(|d| d.intersect(before)).and_then(|d| d.coalesce()).map_err(isl_err)?;
        Ok(Deps { ctx, deps, private_flow: None, fixed, local: std::cell::RefCell::new(None) })
    }

    /// The dependences that matter in loop nest `nest` where its *private* arrays never
    /// leave a band. An array is private to a nest when every read of it there takes a
    /// value that the nest itself wrote (doitgen's `sum[p]`, symm's `temp2`): the nest never
    /// loads it, so with its flow dependences at distance 0 along every band hyperplane, its
    /// values go from producer to consumer on chip, by value (DESIGN.md §3), and of each
    /// cell only the value that later nests or the caller read is stored. Reusing its cells
    /// then orders nothing: its anti and output dependences are dropped, and its flow
    /// dependences are its reads' own sources (the last write of the cell before each),
    /// which frees the loops around it (doitgen's `r` and `q`, which its reuse of `sum`
    /// across them would forbid). `None` where the nest has no private array.
    fn private(ctx: &'c Context, p: &Program, params: &[i64], nest: &[usize]) -> Result<Option<Deps<'c>>, Error> {
        let m = Model::new(p);
        let fixed = m.fixed_context(p, params);
        let union = |parts: &[&String]| accesses(ctx, &fixed, parts.iter().copied());
        let sched = union(&nest.iter().map(|&k| &m.schedules[k]).collect::<Vec<_>>())?;
        let before = sched.copy().and_then(|s| s.lex_lt_union_map(sched.copy()?)).map_err(isl_err)?;
        let (mut kept, mut private_flow, mut any) = (union(&[])?, union(&[])?, false);
        for v in 0..p.vars.len() {
            // The nest's own accesses: the dependences between its statements are all it
            // asks for, and a read whose cell the nest wrote before has its last writer in
            // the nest (nests run one after the other).
            let (mut writes, mut reads): (Vec<&String>, Vec<&String>) = (Vec::new(), Vec::new());
            for &k in nest {
                let st = &p.stmts[k];
                writes.extend((st.write.var == v).then_some(&m.writes[k]));
                reads.extend(st.reads.iter().zip(&m.reads[k]).filter(|(a, _)| a.var == v).map(|(_, text)| text));
            }
            if writes.is_empty() {
                continue;
            }
            let before = || before.copy();
            let [flow, anti, out] = memory_dependences(union(&writes)?, union(&reads)?)?;
            let flow = flow.intersect(before().map_err(isl_err)?).map_err(isl_err)?;
            // Each read's own source, the last write of its cell before it.
            let last = flow
                .copy()
                .and_then(|f| f.reverse()?.apply_range(sched.copy()?)?.lexmax()?.apply_range(sched.copy()?.reverse()?)?.reverse())
                .map_err(isl_err)?;
            let read = union(&reads)?.domain().map_err(isl_err)?;
            if read.is_subset(&last.copy().and_then(|f| f.range()).map_err(isl_err)?).map_err(isl_err)? {
                any = true;
                private_flow = private_flow.union(last.copy().map_err(isl_err)?).map_err(isl_err)?;
                kept = kept.union(last).map_err(isl_err)?;
            } else {
                let (anti, out) = (anti.intersect(before().map_err(isl_err)?), out.intersect(before().map_err(isl_err)?));
                kept = kept.union(flow).and_then(|k| k.union(anti?)).and_then(|k| k.union(out?)).map_err(isl_err)?;
            }
        }
        if !any {
            return Ok(None);
        }
        let deps = kept.coalesce().map_err(isl_err)?;
        let private_flow = Some(private_flow.coalesce().map_err(isl_err)?);
        Ok(Some(Deps { ctx, deps, private_flow, fixed, local: std::cell::RefCell::new(None) }))
    }

    /// Whether hyperplane `rows` keeps every private array's flow dependences at distance 0
    /// (always, for all dependences).
    fn keeps_private(&self, p: &Program, nest: &[usize], rows: &[Affine]) -> Result<bool, Error> {
        let Some(flow) = &self.private_flow else { return Ok(true) };
        let prefix = self.fixed.split('{').next().unwrap_or("");
        let zero = Set::read_from_str(self.ctx, &format!("{prefix}{{ [0] }}")).map_err(isl_err)?;
        for (_, _, d) in self.distances_of(p, nest, rows, flow.copy().map_err(isl_err)?)? {
            if !d.is_subset(&zero).map_err(isl_err)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The dependences among the statements of `nest`.
    fn nest_deps(&self, p: &Program, nest: &[usize]) -> Result<UnionMap, Error> {
        let mut local = self.local.borrow_mut();
        if local.as_ref().is_none_or(|(n, _)| n.as_slice() != nest) {
            let prefix = self.fixed.split('{').next().unwrap_or("");
            let spaces: Vec<String> = nest
                .iter()
                .map(|&s| {
                    let iters: Vec<String> = p.stmts[s].iters.iter().map(|i| isl_name(i)).collect();
                    format!("{}[{}]", p.stmts[s].name, iters.join(", "))
                })
                .collect();
            let u = || UnionSet::read_from_str(self.ctx, &format!("{prefix}{{ {} }}", spaces.join("; ")));
            let d = self.deps.copy().and_then(|d| d.intersect_domain(u()?)).and_then(|d| d.intersect_range(u()?)).map_err(isl_err)?;
            *local = Some((nest.to_vec(), d));
        }
        local.as_ref().map(|(_, d)| d.copy().map_err(isl_err)).ok_or_else(|| Error::internal("no dependences"))?
    }

    /// For every dependence between two statements of the nest (positions `a → b`), the
    /// smallest distance `φ_b(y) − φ_a(x)` along one hyperplane: a per-statement shift `σ`
    /// keeps it legal iff `min + σ_b − σ_a ≥ 0` for all pairs, which is then checked
    /// without isl for every candidate shift.
    fn min_distances(&self, p: &Program, nest: &[usize], rows: &[Affine]) -> Result<Vec<(usize, usize, i64)>, Error> {
        let mut out = Vec::new();
        for (a, b, d) in self.distances(p, nest, rows)? {
            let v = d.lexmin().and_then(|s| s.sample_point()).and_then(|pt| pt.get_coordinate_val(DimType::Set, 0)).map_err(isl_err)?;
            out.push((a, b, v.get_num_si().map_err(isl_err)?));
        }
        Ok(out)
    }

    /// For every dependence between two statements of the nest (positions `a → b`), its
    /// distances `φ_b(y) − φ_a(x)` along one hyperplane (`rows`, one per statement), where
    /// it has any.
    fn distances(&self, p: &Program, nest: &[usize], rows: &[Affine]) -> Result<Vec<(usize, usize, Set)>, Error> {
        self.distances_of(p, nest, rows, self.nest_deps(p, nest)?)
    }

    /// [`Deps::distances`] of the dependences `deps`.
    fn distances_of(&self, p: &Program, nest: &[usize], rows: &[Affine], deps: UnionMap) -> Result<Vec<(usize, usize, Set)>, Error> {
        let prefix = self.fixed.split('{').next().unwrap_or("");
        // Each statement's hyperplane as an isl map, parsed once (a nest has many more
        // dependence maps than statements).
        let phis: Vec<Map> = nest
            .iter()
            .zip(rows)
            .map(|(&s, row)| {
                let iters: Vec<String> = p.stmts[s].iters.iter().map(|i| isl_name(i)).collect();
                let t = format!("{prefix}{{ {}[{}] -> [{}] }}", p.stmts[s].name, iters.join(", "), row.isl(&iters));
                Map::read_from_str(self.ctx, &t).map_err(isl_err)
            })
            .collect::<Result<_, _>>()?;
        let phi = |k: usize| phis[k].copy().map_err(isl_err);
        let position = |name: &str| nest.iter().position(|&s| p.stmts[s].name == name);
        let list = deps.get_map_list().map_err(isl_err)?;
        let mut out = Vec::new();
        for i in 0..list.size().map_err(isl_err)? {
            let m = list.get_at(i).map_err(isl_err)?;
            let (Some(a), Some(b)) =
                (position(m.get_tuple_name(DimType::In).map_err(isl_err)?), position(m.get_tuple_name(DimType::Out).map_err(isl_err)?))
            else {
                continue;
            };
            let (pa, pb) = (phi(a)?, phi(b)?);
            let d = m.apply_domain(pa).and_then(|m| m.apply_range(pb)).and_then(|m| m.deltas()).map_err(isl_err)?;
            if !d.is_empty().map_err(isl_err)? {
                out.push((a, b, d));
            }
        }
        Ok(out)
    }

    /// Whether some dependence between statements of the nest has a positive distance along
    /// the hyperplane `rows` (one row per statement).
    fn carries(&self, p: &Program, nest: &[usize], rows: &[Affine]) -> Result<bool, Error> {
        let prefix = self.fixed.split('{').next().unwrap_or("");
        let positive = Set::read_from_str(self.ctx, &format!("{prefix}{{ [x] : x > 0 }}")).map_err(isl_err)?;
        for (_, _, d) in self.distances(p, nest, rows)? {
            if !d.intersect(positive.copy().map_err(isl_err)?).and_then(|s| s.is_empty()).map_err(isl_err)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether every dependence between statements of the nest has a non-negative distance
    /// along every hyperplane (the band is permutable, hence tileable). Hyperplanes are
    /// independent of each other here, so this is checked one at a time.
    fn legal(&self, p: &Program, nest: &[usize], phi: &[Vec<Affine>], dims: usize) -> Result<bool, Error> {
        for d in 0..dims {
            let rows: Vec<Affine> = phi.iter().map(|r| r[d].clone()).collect();
            if !self.legal_dim(p, nest, &rows)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// One hyperplane: `rows[k]` for statement `nest[k]`.
    fn legal_dim(&self, p: &Program, nest: &[usize], rows: &[Affine]) -> Result<bool, Error> {
        Ok(self.min_distances(p, nest, rows)?.iter().all(|&(_, _, v)| v >= 0) && self.keeps_private(p, nest, rows)?)
    }
}

/// The largest coefficient a user-given hyperplane may have: the generated designs and
/// programs compute hyperplane values and tile coordinates in 64 bits.
const MAX_COEFFICIENT: u64 = 1 << 20;

/// User-given hyperplanes: `S0: i, j, 0; S1: i, j, k` (one affine list per statement).
/// Each statement at most once; its hyperplanes that are not constant linearly independent.
pub fn parse_hyperplanes(p: &Program, text: &str) -> Result<Vec<(usize, Vec<Affine>)>, String> {
    let mut out: Vec<(usize, Vec<Affine>)> = Vec::new();
    for part in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, rows) = part.split_once(':').ok_or_else(|| format!("`{part}`: expected `S<k>: expr, expr, …`"))?;
        let name = name.trim();
        let s = p.stmts.iter().position(|s| s.name == name).ok_or_else(|| format!("no statement named `{name}`"))?;
        if out.iter().any(|(k, _)| *k == s) {
            return Err(format!("`{name}` is given twice"));
        }
        let iters = &p.stmts[s].iters;
        let rows = rows.split(',').map(|e| parse_affine(e, iters)).collect::<Result<Vec<_>, _>>()?;
        if let Some(r) = rows.iter().find(|r| r.coef.iter().chain([&r.cst]).any(|c| c.unsigned_abs() > MAX_COEFFICIENT)) {
            return Err(format!("`{name}`: the hyperplane `{}` has a coefficient beyond {MAX_COEFFICIENT}", r.isl(iters)));
        }
        // Constant rows place a statement with fewer loops in a deeper nest (`S0: i, j, 0`).
        let moving: Vec<Affine> = rows.iter().filter(|r| r.coef.iter().any(|&c| c != 0)).cloned().collect();
        if rank(&moving) < moving.len() {
            return Err(format!(
                "`{name}`: the hyperplanes {} are linearly dependent",
                moving.iter().map(|r| format!("`{}`", r.isl(iters))).collect::<Vec<_>>().join(", ")
            ));
        }
        out.push((s, rows));
    }
    if out.is_empty() {
        return Err("the spec names no statement; write e.g. `S0: i, j`".into());
    }
    Ok(out)
}

/// The rank of the hyperplanes' coefficient rows (fraction-free elimination).
fn rank(rows: &[Affine]) -> usize {
    let mut m: Vec<Vec<i128>> = rows.iter().map(|r| r.coef.iter().map(|&c| c as i128).collect()).collect();
    let cols = m.first().map_or(0, Vec::len);
    let mut rank = 0;
    for c in 0..cols {
        let Some(pivot) = (rank..m.len()).find(|&r| m[r][c] != 0) else { continue };
        m.swap(rank, pivot);
        for r in rank + 1..m.len() {
            let (a, b) = (m[rank][c], m[r][c]);
            for k in 0..cols {
                m[r][k] = m[r][k] * a - m[rank][k] * b;
            }
            let g = m[r].iter().fold(0i128, |g, &x| gcd(g, x.abs()));
            if g > 1 {
                m[r].iter_mut().for_each(|x| *x /= g);
            }
        }
        rank += 1;
    }
    rank
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// `2t + i - 1` over the iterators.
fn parse_affine(text: &str, iters: &[String]) -> Result<Affine, String> {
    let mut a = Affine { coef: vec![0; iters.len()], cst: 0 };
    if text.trim().is_empty() {
        return Err("an empty hyperplane (two commas in a row?)".into());
    }
    let cleaned = text.replace(' ', "").replace('-', "+-");
    for term in cleaned.split('+').filter(|t| !t.is_empty()) {
        let (neg, body) = term.strip_prefix('-').map_or((false, term), |b| (true, b));
        let sign = if neg { -1 } else { 1 };
        let split = body.find(|c: char| c.is_ascii_alphabetic() || c == '_').unwrap_or(body.len());
        let (num, var) = body.split_at(split);
        let num = num.trim_end_matches('*');
        let k: i64 = if num.is_empty() { 1 } else { num.parse().map_err(|_| format!("`{text}` is not affine in {}", iters.join(", ")))? };
        if var.is_empty() {
            a.cst += sign * k;
        } else {
            let d = iters
                .iter()
                .position(|i| i == var)
                .ok_or_else(|| format!("`{var}` is not an iterator of this statement ({})", iters.join(", ")))?;
            a.coef[d] += sign * k;
        }
    }
    Ok(a)
}

/// How much work isl may do to find one kernel's hyperplanes (isl's count of basic operations;
/// PolyBench's kernels take a fraction of it; every pair of statements that access one array
/// costs some, so hundreds of statements in one loop reach it).
const TILING_OPERATIONS: u64 = 20_000_000;

/// Finds the hyperplanes of every nest.
///
/// The nests whose first statement is in `long` may shift a statement past a whole loop
/// (see [`legal_variant`]): those whose bands are too big otherwise.
pub fn choose(p: &Program, params: &[i64], user: Option<&str>, cut: Cut, long: &[usize]) -> Result<Vec<Nest>, Error> {
    let ctx = dataflow::bounded_context(TILING_OPERATIONS);
    // The private arrays' analysis has a context and a budget of its own per nest: where
    // it is too costly, the nest keeps all its dependences.
    let private_ctx = dataflow::bounded_context(TILING_OPERATIONS);
    let private = |nest: &[usize]| {
        private_ctx.reset_operations();
        Deps::private(&private_ctx, p, params, nest).ok().flatten()
    };
    let both = || -> Result<Vec<Nest>, Error> { choose_with(p, &Deps::new(&ctx, p, params)?, &private, user, cut, long) };
    both().map_err(|e| match dataflow::quota_spent(&ctx) {
        true => too_costly(p).into(),
        false => e,
    })
}

/// The diagnostic for a kernel whose dependences exceed [`TILING_OPERATIONS`], at its largest
/// nest (the number of statement pairs there is what costs).
fn too_costly(p: &Program) -> Diagnostic {
    let biggest = nests(p).into_iter().max_by_key(Vec::len).unwrap_or_default();
    let message = format!(
        "finding tiling hyperplanes is too costly for this kernel (isl gave up after {TILING_OPERATIONS} operations); its largest loop nest holds {} statements",
        biggest.len()
    );
    let help = "split the kernel into several, or give fewer statements per loop nest";
    Diagnostic { span: biggest.first().map(|&k| p.stmts[k].span), message, help: Some(help.into()), internal: false }
}

/// The hyperplanes of every nest under all dependences, or under [`Deps::private`]'s where
/// those tile more loops.
fn choose_with<'c>(
    p: &Program,
    deps: &Deps,
    private: &dyn Fn(&[usize]) -> Option<Deps<'c>>,
    user: Option<&str>,
    cut: Cut,
    long: &[usize],
) -> Result<Vec<Nest>, Error> {
    let user = match user {
        Some(t) => Some(parse_hyperplanes(p, t).map_err(|e| Diagnostic::global(format!("--hyperplanes: {e}")))?),
        None => None,
    };
    let mut out = Vec::new();
    for nest in nests(p) {
        if let Some(user) = &user {
            let given: Vec<Option<Vec<Affine>>> = nest.iter().map(|s| user.iter().find(|(k, _)| k == s).map(|(_, r)| r.clone())).collect();
            if given.iter().any(Option::is_some) && given.iter().any(Option::is_none) {
                let name = |k: usize| p.stmts[nest[k]].name.as_str();
                let (named, missing): (Vec<usize>, Vec<usize>) = (0..nest.len()).partition(|&k| given[k].is_some());
                return Err(Diagnostic::global(format!(
                    "--hyperplanes gives {} but not {}, which share{} its loop nest: give every statement of the nest",
                    name(named[0]),
                    missing.iter().map(|&k| name(k)).collect::<Vec<_>>().join(", "),
                    if missing.len() == 1 { "s" } else { "" }
                ))
                .into());
            }
            let rows: Option<Vec<Vec<Affine>>> = given.into_iter().collect();
            if let Some(phi) = rows {
                let dims = phi[0].len();
                if phi.iter().any(|r| r.len() != dims) {
                    return Err(Diagnostic::global("--hyperplanes: every statement of a nest needs the same number of hyperplanes").into());
                }
                let legal_private = || private(&nest).map_or(Ok(false), |d| d.legal(p, &nest, &phi, dims));
                if !deps.legal(p, &nest, &phi, dims)? && !legal_private()? {
                    return Err(Diagnostic::global(
                        "--hyperplanes: this tiling violates a dependence (some distance is negative along a hyperplane)",
                    )
                    .into());
                }
                out.push(Nest {
                    stmts: nest,
                    dims,
                    phi,
                    how: "given by --hyperplanes".into(),
                    fallback: false,
                    points: Vec::new(),
                    groups: Vec::new(),
                    carries: Vec::new(),
                });
                continue;
            }
        }
        let long = long.contains(&nest[0]);
        let all = search(p, deps, nest.clone(), cut, long)?;
        // Only a nest that leaves loops out of its band can gain.
        let loops = nest.iter().map(|&k| p.stmts[k].iters.len()).max().unwrap_or(0);
        let freed = if all.dims < loops { private(&nest) } else { None };
        match freed.map(|d| search(p, &d, nest, cut, long)).transpose()? {
            Some(mut freed) if freed.dims > all.dims => {
                freed.how.push_str("; the reuse of private arrays' cells ignored (their values stay in their band)");
                out.push(freed);
            }
            _ => out.push(all),
        }
    }
    for n in &mut out {
        groups(p, deps, n)?;
        n.carries = (0..n.dims)
            .map(|d| deps.carries(p, &n.stmts, &n.phi.iter().map(|r| r[d].clone()).collect::<Vec<_>>()))
            .collect::<Result<_, _>>()?;
        let moved: Vec<&str> = n
            .stmts
            .iter()
            .zip(&n.points)
            .filter(|(_, o)| o.first().is_some_and(|&d| d != 0))
            .map(|(&s, _)| p.stmts[s].name.as_str())
            .collect();
        if moved.len() == n.stmts.len() {
            n.how.push_str("; reduction hyperplane outermost inside the tiles");
        } else if !moved.is_empty() {
            n.how.push_str(&format!(
                "; reduction hyperplane outermost inside the tiles for {} (a tile runs its statement groups one after the other)",
                moved.join(" ")
            ));
        }
    }
    Ok(out)
}

/// The points' order of every statement of `nest`, and its groups. Statements joined by a
/// dependence share an order (that of their deepest), so σ keeps every dependence inside a
/// tile; statements with none between them may differ (BiCG: s[j] += r[i]·A[i][j] wants i
/// outermost, q[i] += A[i][j]·p[j] wants j outermost, or each waits for its own sum). Such
/// statements then run one group after the other inside a tile: interleaving them would
/// load A half by rows, half by columns, out of bursts.
fn groups(p: &Program, deps: &Deps, nest: &mut Nest) -> Result<(), Error> {
    let n = nest.stmts.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    if nest.dims >= 2 && !nest.fallback && n > 1 {
        let rows: Vec<Affine> = nest.phi.iter().map(|r| r[0].clone()).collect();
        for (a, b, _) in deps.min_distances(p, &nest.stmts, &rows)? {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let roots: Vec<usize> = (0..n).map(|k| root(&mut parent, k)).collect();
    // One order per joined set, from its members.
    let mut orders: Vec<Vec<usize>> = vec![Vec::new(); n];
    for r in (0..n).filter(|&k| roots[k] == k) {
        let order = point_order(p, nest, &(0..n).filter(|&k| roots[k] == r).map(|k| nest.stmts[k]).collect::<Vec<_>>());
        (0..n).filter(|&k| roots[k] == r).for_each(|k| orders[k] = order.clone());
    }
    // One group per distinct order. The group whose innermost point hyperplane walks the
    // most reads along their arrays' last dimension goes first: its first uses load the
    // shared arrays in bursts, and the later groups read them from the channels.
    let mut distinct: Vec<&Vec<usize>> = Vec::new();
    for o in &orders {
        if !distinct.contains(&o) {
            distinct.push(o);
        }
    }
    let contiguous = |o: &Vec<usize>| -> usize {
        let Some(&inner) = o.get(nest.dims.saturating_sub(1)) else { return 0 };
        (0..n)
            .filter(|&k| &orders[k] == o)
            .map(|k| {
                let (s, h) = (&p.stmts[nest.stmts[k]], &nest.phi[k][inner]);
                s.reads
                    .iter()
                    .filter(|a| a.index.last().is_some_and(|x| h.coef.iter().enumerate().any(|(j, &c)| c != 0 && x.mentions(j))))
                    .count()
            })
            .sum()
    };
    distinct.sort_by_key(|o| std::cmp::Reverse(contiguous(o)));
    nest.groups = orders.iter().map(|o| distinct.iter().position(|d| *d == o).unwrap_or(0)).collect();
    nest.points = orders;
    Ok(())
}

fn search(p: &Program, deps: &Deps, nest: Vec<usize>, cut: Cut, long: bool) -> Result<Nest, Error> {
    // The deepest statement names the dimensions.
    let deepest = rows_last(p, &nest, cut).unwrap_or_else(|| deepest(p, &nest));
    let names = p.stmts[deepest].iters.clone();
    let dims = names.len();
    let aligned: Vec<Vec<Affine>> = nest.iter().map(|&s| align(&p.stmts[s].iters, &names)).collect();
    // Reduction dimensions (not in the deepest statement's written subscript) go last, so
    // that what they accumulate stays inside a band; the program's own loop order is the
    // alternative (time loops of stencils come first there). Keep the order that tiles more
    // dimensions, the reduction-last one on a tie.
    let a = place(p, deps, &nest, &aligned, &names, &reduction_last(p, deepest, dims), long)?;
    let Placed { phi, kept, dropped, skewed, past_loops } = if a.kept.len() == dims {
        a
    } else {
        let b = place(p, deps, &nest, &aligned, &names, &(0..dims).collect::<Vec<_>>(), long)?;
        if b.kept.len() > a.kept.len() {
            b
        } else {
            a
        }
    };
    let dims = kept.len();
    if dims == 0 {
        return Ok(Nest {
            stmts: nest,
            dims: 0,
            phi,
            how: "fallback: no legal tiling hyperplane (tried every loop dimension, reversed or not, skewed by up to 2, shifted by up to 1); the nest runs as one untiled band in its original order, all on chip".into(),
            fallback: true,
            points: Vec::new(),
            groups: Vec::new(),
            carries: Vec::new(),
        });
    }
    let mut how =
        if skewed { format!("skewed: {}", describe(p, &nest, &phi)) } else { format!("rectangular, hyperplanes ({})", kept.join(", ")) };
    if !dropped.is_empty() {
        how.push_str(&format!("; not tiled (no legal hyperplane): {}", dropped.join(", ")));
    }
    if past_loops {
        how.push_str("; statements after a whole loop shifted past it (its bands would be big otherwise)");
    }
    Ok(Nest { stmts: nest, dims, phi, how, fallback: false, points: Vec::new(), groups: Vec::new(), carries: Vec::new() })
}

/// The hyperplanes [`place`] found.
struct Placed {
    /// Per statement, its hyperplanes.
    phi: Vec<Vec<Affine>>,
    /// The names of the dimensions tiled (`-i` for one negated).
    kept: Vec<String>,
    /// The names of the dimensions left out of the band.
    dropped: Vec<String>,
    /// Whether some hyperplane is skewed or shifted.
    skewed: bool,
    /// Whether some statement is shifted past a whole loop ([`Variant::PastLoops`]).
    past_loops: bool,
}

/// How [`legal_variant`] made a hyperplane legal.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// As it was.
    Plain,
    /// Skewed, or statements shifted by 1.
    Skewed,
    /// Statements shifted past whole loops (`least_shifts`).
    PastLoops,
}

fn place(
    p: &Program,
    deps: &Deps,
    nest: &[usize],
    aligned: &[Vec<Affine>],
    names: &[String],
    order: &[usize],
    long: bool,
) -> Result<Placed, Error> {
    let mut phi: Vec<Vec<Affine>> = vec![Vec::new(); nest.len()];
    let (mut kept, mut dropped, mut skewed, mut past_loops) = (Vec::new(), Vec::new(), false, false);
    for &d in order {
        let base: Vec<Affine> = aligned.iter().map(|rows| rows[d].clone()).collect();
        // A loop that runs downwards (Nussinov's i) tiles as its negation.
        let reversed: Vec<Affine> = base.iter().map(|a| Affine { coef: a.coef.iter().map(|c| -c).collect(), cst: -a.cst }).collect();
        let found = match legal_variant(p, deps, nest, &base, &phi, long)? {
            Some((rows, how)) => Some((rows, how, names[d].clone())),
            None => legal_variant(p, deps, nest, &reversed, &phi, long)?.map(|(rows, how)| (rows, how, format!("-{}", names[d]))),
        };
        match found {
            Some((rows, how, name)) => {
                skewed |= how != Variant::Plain;
                past_loops |= how == Variant::PastLoops;
                for (k, r) in rows.into_iter().enumerate() {
                    phi[k].push(r);
                }
                kept.push(name);
            }
            None => dropped.push(names[d].clone()),
        }
    }
    Ok(Placed { phi, kept, dropped, skewed, past_loops })
}

/// The first legal variant of one hyperplane: as is, then skewed by the hyperplanes already
/// placed (factors up to 2) and with per-statement shifts of 0 or 1, or with `long`, by
/// the least shifts that make it legal.
fn legal_variant(
    p: &Program,
    deps: &Deps,
    nest: &[usize],
    base: &[Affine],
    placed: &[Vec<Affine>],
    long: bool,
) -> Result<Option<(Vec<Affine>, Variant)>, Error> {
    let prior = placed.first().map_or(0, |r| r.len());
    // Skews by earlier hyperplanes with factors summing to at most 2 (enough for the
    // stencils; the number of candidates stays quadratic in the depth, not exponential).
    let mut skews: Vec<Vec<i64>> = vec![vec![0; prior]];
    for a in 0..prior {
        for c in 1..=2 {
            let mut v = vec![0; prior];
            v[a] = c;
            skews.push(v);
        }
        for b in a + 1..prior {
            let mut v = vec![0; prior];
            v[a] = 1;
            v[b] = 1;
            skews.push(v);
        }
    }
    skews.sort_by_key(|v| (v.iter().sum::<i64>(), v.clone()));
    let bits = nest.len().min(10);
    let mut shifts: Vec<usize> = (0..1usize << bits).collect();
    shifts.sort_by_key(|m| (m.count_ones(), *m));
    let shifted = |rows: &[Affine], by: &dyn Fn(usize) -> i64| -> Vec<Affine> {
        rows.iter().enumerate().map(|(k, r)| Affine { coef: r.coef.clone(), cst: r.cst + by(k) }).collect()
    };
    // Each skew's rows and smallest distances, kept for the long shifts below.
    let mut tried = Vec::new();
    for (n, skew) in skews.iter().enumerate() {
        let rows = skewed_rows(base, placed, skew);
        let mins = deps.min_distances(p, nest, &rows)?;
        let shift = |mask: usize, k: usize| if k < bits { ((mask >> k) & 1) as i64 } else { 0 };
        for &mask in shifts.iter().filter(|&&m| mins.iter().all(|&(a, b, v)| v + shift(m, b) - shift(m, a) >= 0)) {
            let rows = shifted(&rows, &|k| shift(mask, k));
            if deps.keeps_private(p, nest, &rows)? {
                return Ok(Some((rows, if n == 0 && mask == 0 { Variant::Plain } else { Variant::Skewed })));
            }
        }
        tried.push((rows, mins));
    }
    // Shifts of 0 or 1 cover statements that follow one another inside a loop; a statement
    // placed after a whole inner loop that it lacks (covariance's `cov[i][j] /= …` after the
    // k loop that sums it) needs the loop's length. That tiles the loop, at the price of
    // loading again what the band reused across it: asked only for a nest whose bands are
    // big otherwise (`long`), and only where no variant above is legal.
    for (rows, mins) in tried.iter().filter(|_| long) {
        let Some(shift) = least_shifts(nest.len(), mins) else { continue };
        let rows = shifted(rows, &|k| shift[k]);
        if deps.keeps_private(p, nest, &rows)? {
            return Ok(Some((rows, Variant::PastLoops)));
        }
    }
    Ok(None)
}

/// `base` skewed by the hyperplanes already `placed`, `skew[j]` times the `j`-th.
fn skewed_rows(base: &[Affine], placed: &[Vec<Affine>], skew: &[i64]) -> Vec<Affine> {
    base.iter().enumerate().map(|(k, a)| skew.iter().enumerate().fold(a.clone(), |acc, (j, &c)| acc.add_scaled(&placed[k][j], c))).collect()
}

/// The least non-negative per-statement shifts `σ` with `min + σ_b − σ_a ≥ 0` for every
/// dependence `(a, b, min)`: difference constraints, solved by longest paths from zero
/// (Bellman–Ford). None where they have no solution (a cycle of negative total distance,
/// such as a dependence of a statement on itself with a negative distance).
fn least_shifts(n: usize, mins: &[(usize, usize, i64)]) -> Option<Vec<i64>> {
    let mut shift = vec![0i64; n];
    for _ in 0..=n {
        let mut changed = false;
        for &(a, b, min) in mins {
            if shift[a] - min > shift[b] {
                shift[b] = shift[a] - min;
                changed = true;
            }
        }
        if !changed {
            return Some(shift);
        }
    }
    None
}

/// Hyperplane text per statement, e.g. `S0(t, 2t + i); S1(t, 2t + i + 1)`.
pub fn describe(p: &Program, nest: &[usize], phi: &[Vec<Affine>]) -> String {
    nest.iter()
        .zip(phi)
        .map(|(&s, rows)| format!("{}({})", p.stmts[s].name, rows.iter().map(|a| a.isl(&p.stmts[s].iters)).collect::<Vec<_>>().join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The statement's iterators placed on the named dimensions; unmatched ones fill the
/// remaining dimensions in order; dimensions left over are 0.
fn align(iters: &[String], names: &[String]) -> Vec<Affine> {
    let mut rows: Vec<Option<usize>> = vec![None; names.len()];
    let mut unmatched = Vec::new();
    for (k, it) in iters.iter().enumerate() {
        match names.iter().position(|n| n == it) {
            Some(d) if rows[d].is_none() => rows[d] = Some(k),
            _ => unmatched.push(k),
        }
    }
    for k in unmatched {
        if let Some(slot) = rows.iter_mut().skip(k).find(|r| r.is_none()) {
            *slot = Some(k);
        }
    }
    rows.into_iter()
        .map(|r| {
            let mut coef = vec![0; iters.len()];
            if let Some(k) = r {
                coef[k] = 1;
            }
            Affine { coef, cst: 0 }
        })
        .collect()
}
