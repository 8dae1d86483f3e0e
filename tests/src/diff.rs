//! Differential testing: one kernel, several *engines*, outputs compared bit for bit with the
//! reference interpreter; on a failure, a minimiser and a reproducer file.
//!
//! An [`Engine`] is a named function from a prepared kernel (program, dataflow, inputs) to
//! its outputs, or "skipped: why", or an error. Today the engines are the SARE evaluator and
//! the DPN software executor at several tile sizes, `--par` and interleaving seeds; the
//! hardware and C-family backends plug in as more entries of the list (an engine that needs
//! a missing tool returns [`Outcome::Skipped`]).
//!
//! Panics are caught (`catch_unwind`) so one bad kernel never ends a run; they are reported
//! with their message and location.

use crate::gen::{Bound, Cond, Expr, Kernel, Lin, Node, Rng};
use dpnc_dpn::{exec, validate, Construction};
use dpnc_frontend::{dataflow, interp, sare_eval, Options, Program, Sare, SourceMap, Store};
use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// What an engine gave.
pub enum Outcome {
    Ok(Store),
    Skipped(String),
    Failed(String),
}

/// A kernel ready to run: the program, its dataflow, inputs and the interpreter's results.
pub struct Prepared {
    pub p: Program,
    pub sare: Sare,
    pub params: Vec<i64>,
    pub inputs: Store,
    pub want: Store,
    /// Networks already built, by configuration (shared by the seeds of one configuration).
    cache: RefCell<HashMap<String, Result<Rc<Construction>, String>>>,
}

pub struct Engine {
    pub name: String,
    pub run: Box<dyn Fn(&Prepared) -> Outcome>,
}

/// One DPN configuration: tile sizes, parallel sub-bands, executor seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DpnCfg {
    pub tile: Vec<i64>,
    pub par: Vec<i64>,
    pub seed: u64,
}

impl DpnCfg {
    pub fn label(&self) -> String {
        format!("dpn --tile {} --par {} (executor seed {})", join(&self.tile), join(&self.par), self.seed)
    }
}

fn join(v: &[i64]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

/// The SARE evaluator.
pub fn sare_engine() -> Engine {
    Engine {
        name: "sare".into(),
        run: Box::new(|c: &Prepared| match sare_eval::evaluate(&c.p, &c.sare, &c.params, &c.inputs) {
            Ok(s) => Outcome::Ok(s),
            Err(d) => Outcome::Failed(format!("SARE evaluator: {}", d.message)),
        }),
    }
}

/// The DPN executor at one configuration (the network is validated, and no channel may
/// peak above its computed size).
pub fn dpn_engine(cfg: DpnCfg) -> Engine {
    Engine {
        name: cfg.label(),
        run: Box::new(move |c: &Prepared| {
            let key = format!("{:?}/{:?}", cfg.tile, cfg.par);
            let built = c
                .cache
                .borrow_mut()
                .entry(key)
                .or_insert_with(|| {
                    let conf = dpnc_dpn::Config {
                        tile: cfg.tile.clone(),
                        par: cfg.par.clone(),
                        subbands: Default::default(),
                        hyperplanes: None,
                        max_instances: 0,
                        progress: false,
                        on_step: None,
                        keep_traces: true,
                        codegen: false,
                        every_band: false,
                        chunk: 0,
                        max_band: 0,
                    };
                    let built = dpnc_dpn::construct(&c.p, &c.sare, &conf).map_err(|d| format!("build: {d}"))?;
                    let errs = validate::validate(&c.p, &built.dpn, &built.traces);
                    if !errs.is_empty() {
                        return Err(format!("validate: {}", errs.join("; ")));
                    }
                    Ok(Rc::new(built))
                })
                .clone();
            let built = match built {
                Ok(b) => b,
                Err(e) => return Outcome::Failed(e),
            };
            let dpn = &built.dpn;
            match exec::run(&c.p, dpn, &built.traces, &c.inputs, &exec::Options { seed: cfg.seed, shrink: None }) {
                Ok(out) => {
                    for (k, ch) in dpn.channels.iter().enumerate() {
                        if out.peak[k] > ch.size.max(1) {
                            return Outcome::Failed(format!("channel {} peaked at {} above its size {}", ch.name, out.peak[k], ch.size));
                        }
                    }
                    Outcome::Ok(out.store)
                }
                Err(e) => Outcome::Failed(format!("exec: {e}")),
            }
        }),
    }
}

/// Random legal configurations for a kernel seed: small tiles (many bands), with and without
/// parallel sub-bands (`par` never above the tile size), one large tile; two executor seeds each.
pub fn random_configs(seed: u64, depth: usize) -> Vec<DpnCfg> {
    let mut rng = Rng(seed ^ 0x5EED_C0F1_6000_0001);
    let depth = depth.max(1);
    let mut out = Vec::new();
    for shape in 0..3 {
        let n = rng.range(1, depth as i64) as usize;
        let tile: Vec<i64> = (0..n).map(|_| if shape == 2 { rng.range(6, 40) } else { rng.range(1, 6) }).collect();
        let par: Vec<i64> = match shape {
            0 => vec![1],
            _ => {
                let m = rng.range(1, depth.max(2) as i64 - 1) as usize;
                let mut p: Vec<i64> = (0..m).map(|d| rng.range(1, tile.get(d).or(tile.last()).copied().unwrap_or(1).min(3))).collect();
                // At least one sub-band split when the tile allows it.
                if p.iter().all(|&x| x == 1) && tile[0] > 1 {
                    p[0] = 2;
                }
                p
            }
        };
        let s1 = rng.next() % 1000;
        for s in [s1, s1 + 1] {
            out.push(DpnCfg { tile: tile.clone(), par: par.clone(), seed: s });
        }
    }
    out
}

/// The loop depth of a kernel.
pub fn depth(k: &Kernel) -> usize {
    fn go(ns: &[Node]) -> usize {
        ns.iter()
            .map(|n| match n {
                Node::For { depth, body, .. } => (depth + 1).max(go(body)),
                Node::If { then, els, .. } => go(then).max(go(els)),
                Node::Stmt(_) => 0,
            })
            .max()
            .unwrap_or(0)
    }
    go(&k.body)
}

/// How a check failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The frontend rejected a generated kernel (a generator bug, or a frontend bug).
    Rejected,
    /// The interpreter failed (out of bounds, division by zero): a generator bug.
    Interp,
    /// Dataflow analysis failed.
    Dataflow,
    /// An engine's outputs differ from the interpreter's.
    Mismatch,
    /// An engine returned an error.
    Error,
    /// Something panicked.
    Panic,
}

#[derive(Clone, Debug)]
pub struct Failure {
    /// `frontend`, `interp`, `dataflow`, or the engine's name.
    pub engine: String,
    pub kind: Kind,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} [{:?}]: {}", self.engine, self.kind, self.message)
    }
}

/// The result of checking one kernel.
#[derive(Default)]
pub struct Report {
    /// Engines that ran to a comparison.
    pub ran: usize,
    pub skipped: Vec<(String, String)>,
    pub failures: Vec<Failure>,
}

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that records the panic location for [`guard`] instead of
/// printing it, for panics on threads that are inside [`guard`]; others print as usual.
fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let inside = IN_GUARD.with(|g| *g.borrow());
            if inside {
                let loc = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(loc));
            } else {
                prev(info);
            }
        }));
    });
}

thread_local! {
    static IN_GUARD: RefCell<bool> = const { RefCell::new(false) };
}

/// Runs `f`, turning a panic into `Err(message at location)`.
pub fn guard<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    IN_GUARD.with(|g| *g.borrow_mut() = true);
    let r = catch_unwind(AssertUnwindSafe(f));
    IN_GUARD.with(|g| *g.borrow_mut() = false);
    r.map_err(|e| {
        let msg = e.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| e.downcast_ref::<String>().cloned()).unwrap_or_default();
        let loc = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
        format!("panicked{loc}: {msg}")
    })
}

/// Input seed for `dpnc run --random` (the same inputs as `Store::random`).
pub fn input_seed(kernel_seed: u64) -> u64 {
    kernel_seed % 1000 + 1
}

/// Loads, interprets and analyses C text; a failure here is a [`Failure`] of the frontend.
pub fn prepare(text: &str, input_seed: u64) -> Result<Prepared, Failure> {
    let fail = |engine: &str, kind: Kind, message: String| Failure { engine: engine.into(), kind, message };
    let loaded = guard(|| {
        let mut sm = SourceMap::new();
        dpnc_frontend::load_str(&mut sm, "random.c", text, &Options::default()).map_err(|d| d.render(&sm))
    });
    let p = match loaded {
        Err(e) => return Err(fail("frontend", Kind::Panic, e)),
        Ok(Err(d)) => return Err(fail("frontend", Kind::Rejected, d)),
        Ok(Ok(p)) => p,
    };
    let params = p.param_values().map_err(|d| fail("frontend", Kind::Rejected, d.message))?;
    let inputs = Store::random(&p, input_seed);
    let mut want = inputs.clone();
    match guard(|| interp::run(&p, &params, &mut want)) {
        Err(e) => return Err(fail("interp", Kind::Panic, e)),
        Ok(Err(d)) => return Err(fail("interp", Kind::Interp, d.message)),
        Ok(Ok(_)) => {}
    }
    let sare = match guard(|| dataflow::compute(&p)) {
        Err(e) => return Err(fail("dataflow", Kind::Panic, e)),
        Ok(Err(d)) => return Err(fail("dataflow", Kind::Dataflow, d.message)),
        Ok(Ok(s)) => s,
    };
    Ok(Prepared { p, sare, params, inputs, want, cache: RefCell::new(HashMap::new()) })
}

/// Runs every engine on `text` and compares with the interpreter.
pub fn check(text: &str, input_seed: u64, engines: &[Engine]) -> Report {
    let mut rep = Report::default();
    let c = match prepare(text, input_seed) {
        Ok(c) => c,
        Err(f) => {
            rep.failures.push(f);
            return rep;
        }
    };
    for e in engines {
        let fail = |kind, message| Failure { engine: e.name.clone(), kind, message };
        match guard(|| (e.run)(&c)) {
            Err(msg) => rep.failures.push(fail(Kind::Panic, msg)),
            Ok(Outcome::Skipped(why)) => rep.skipped.push((e.name.clone(), why)),
            Ok(Outcome::Failed(msg)) => rep.failures.push(fail(Kind::Error, msg)),
            Ok(Outcome::Ok(got)) => {
                rep.ran += 1;
                if let Some(m) = Store::compare(&c.p, &c.want, &got) {
                    rep.failures.push(fail(Kind::Mismatch, format!("interpreter vs {}: {m}", e.name)));
                }
            }
        }
    }
    rep
}

/// The engines for a kernel seed: the SARE evaluator and the DPN executor at
/// [`random_configs`].
pub fn engines_for(seed: u64, depth: usize) -> Vec<Engine> {
    std::iter::once(sare_engine()).chain(random_configs(seed, depth).into_iter().map(dpn_engine)).collect()
}

/// The engines that produced `f` (to re-check only that one while minimising).
fn engine_of(f: &Failure, seed: u64, depth: usize) -> Vec<Engine> {
    if f.engine == "sare" {
        return vec![sare_engine()];
    }
    match random_configs(seed, depth).into_iter().find(|c| c.label() == f.engine) {
        Some(c) => vec![dpn_engine(c)],
        None => engines_for(seed, depth),
    }
}

/// A kernel's cost for the minimiser: shorter text and smaller sizes are better.
fn cost(k: &Kernel) -> usize {
    k.render().len() + 10 * k.params.iter().map(|p| p.1 as usize).sum::<usize>()
}

/// Every kernel one simplification step away from `k`.
pub fn mutations(k: &Kernel) -> Vec<Kernel> {
    let mut out = Vec::new();
    // Size parameters: to 1, or one smaller.
    for p in 0..k.params.len() {
        for v in [1, k.params[p].1 - 1, k.params[p].1 / 2] {
            if v >= 1 && v < k.params[p].1 {
                let mut c = k.clone();
                c.params[p].1 = v;
                out.push(c);
            }
        }
    }
    // Structural edits, addressed by the node's position in a pre-order walk.
    let count = count_nodes(&k.body);
    let edits = 11 + 3 * max_expr(&k.body);
    for at in 0..count {
        for edit in 0..edits {
            let mut c = k.clone();
            let mut n = at;
            if edit_node(&mut c.body, &mut n, edit) {
                prune(&mut c.body);
                out.push(c);
            }
        }
    }
    out
}

fn count_nodes(ns: &[Node]) -> usize {
    ns.iter()
        .map(|n| {
            1 + match n {
                Node::For { body, .. } => count_nodes(body),
                Node::If { then, els, .. } => count_nodes(then) + count_nodes(els),
                Node::Stmt(_) => 0,
            }
        })
        .sum()
}

/// Removes loops and guards left without statements.
fn prune(ns: &mut Vec<Node>) {
    for n in ns.iter_mut() {
        match n {
            Node::For { body, .. } => prune(body),
            Node::If { then, els, .. } => {
                prune(then);
                prune(els);
            }
            Node::Stmt(_) => {}
        }
    }
    ns.retain(|n| match n {
        Node::For { body, .. } => !body.is_empty(),
        Node::If { then, els, .. } => !then.is_empty() || !els.is_empty(),
        Node::Stmt(_) => true,
    });
    // `if (c) {} else {S}`: keep the guard, move S to `then` under the same guard is not
    // equivalent; drop the guard instead (a simplification the check then judges).
    for n in ns.iter_mut() {
        if let Node::If { then, els, .. } = n {
            if then.is_empty() {
                *n = Node::If { cond: cond_true(), then: std::mem::take(els), els: vec![] };
            }
        }
    }
}

fn cond_true() -> Cond {
    Cond::Cmp(crate::gen::Cmp::Ge, Lin::konst(0), Lin::konst(0))
}

fn max_expr(ns: &[Node]) -> usize {
    ns.iter()
        .map(|n| match n {
            Node::For { body, .. } => max_expr(body),
            Node::If { then, els, .. } => max_expr(then).max(max_expr(els)),
            Node::Stmt(s) => s.rhs.size(),
        })
        .max()
        .unwrap_or(0)
}

/// Applies edit `edit` to the node at pre-order position `*at`; false when not applicable.
fn edit_node(ns: &mut Vec<Node>, at: &mut usize, edit: usize) -> bool {
    let mut i = 0;
    while i < ns.len() {
        if *at == 0 {
            return edit_here(ns, i, edit);
        }
        *at -= 1;
        let done = match &mut ns[i] {
            Node::For { body, .. } => edit_node(body, at, edit),
            Node::If { then, els, .. } => edit_node(then, at, edit) || edit_node(els, at, edit),
            Node::Stmt(_) => false,
        };
        if done {
            return true;
        }
        i += 1;
    }
    false
}

fn simpler_lin(l: &Lin, edit: usize) -> Option<Lin> {
    match edit {
        0 if l.c != 0 => Some(Lin { terms: l.terms.clone(), c: 0 }),
        1 if l.terms.len() > 1 => Some(Lin { terms: l.terms[..1].to_vec(), c: l.c }),
        2 if !l.terms.is_empty() => Some(Lin::konst(l.c.max(0))),
        _ => None,
    }
}

fn edit_here(ns: &mut Vec<Node>, i: usize, edit: usize) -> bool {
    match &mut ns[i] {
        Node::Stmt(s) => match edit {
            0 => {
                ns.remove(i);
                true
            }
            1 if s.accumulate => {
                s.accumulate = false;
                true
            }
            // Simplify a subscript of the written cell (3 ways x 3 dimensions).
            1 => false,
            e if e < 11 => {
                let (d, how) = ((e - 2) / 3, (e - 2) % 3);
                match s.lhs.subs.get(d).and_then(|l| simpler_lin(l, how)) {
                    Some(l) => {
                        s.lhs.subs[d] = l;
                        true
                    }
                    None => false,
                }
            }
            // Replace one expression node by a child or a constant.
            e => {
                let mut k = (e - 11) / 3;
                replace_expr(&mut s.rhs, &mut k, (e - 11) % 3)
            }
        },
        Node::If { cond, then, els } => match edit {
            0 => {
                let body = std::mem::take(then);
                ns.splice(i..=i, body);
                true
            }
            1 if !els.is_empty() => {
                let body = std::mem::take(els);
                ns.splice(i..=i, body);
                true
            }
            2 if !els.is_empty() => {
                els.clear();
                true
            }
            3 => match cond {
                Cond::And(a, _) | Cond::Or(a, _) => {
                    *cond = (**a).clone();
                    true
                }
                _ => false,
            },
            4 => match cond {
                Cond::And(_, b) | Cond::Or(_, b) => {
                    *cond = (**b).clone();
                    true
                }
                _ => false,
            },
            _ => false,
        },
        Node::For { lo, hi, down, body, .. } => match edit {
            0 if *down => {
                *down = false;
                true
            }
            1 | 2 => match hi {
                Bound::Min(a, b) | Bound::Max(a, b) => {
                    *hi = Bound::Lin(if edit == 1 { a.clone() } else { b.clone() });
                    true
                }
                Bound::Lin(l) => match simpler_lin(l, edit - 1) {
                    Some(s) => {
                        *hi = Bound::Lin(s);
                        true
                    }
                    None => false,
                },
            },
            3 | 4 => match lo {
                Bound::Min(a, b) | Bound::Max(a, b) => {
                    *lo = Bound::Lin(if edit == 3 { a.clone() } else { b.clone() });
                    true
                }
                Bound::Lin(l) => match simpler_lin(l, edit - 3) {
                    Some(s) => {
                        *lo = Bound::Lin(s);
                        true
                    }
                    None => false,
                },
            },
            5 if body.len() > 1 => {
                body.truncate(1);
                true
            }
            6 if body.len() > 1 => {
                body.remove(0);
                true
            }
            7 => {
                ns.remove(i);
                true
            }
            // One iteration.
            8 if *lo != Bound::Lin(Lin::konst(0)) || *hi != Bound::Lin(Lin::konst(1)) => {
                *lo = Bound::Lin(Lin::konst(0));
                *hi = Bound::Lin(Lin::konst(1));
                true
            }
            _ => false,
        },
    }
}

/// Replaces the `*k`-th expression node (pre-order): `how` 0 → its first child, 1 → its last
/// child, 2 → the constant 1.
fn replace_expr(e: &mut Expr, k: &mut usize, how: usize) -> bool {
    if *k == 0 {
        let kids = e.children();
        let new = match how {
            0 if !kids.is_empty() => kids[0].clone(),
            1 if kids.len() > 1 => kids[kids.len() - 1].clone(),
            2 if *e != Expr::Const(1) => Expr::Const(1),
            _ => return false,
        };
        *e = new;
        return true;
    }
    *k -= 1;
    for c in e.children_mut() {
        if replace_expr(c, k, how) {
            return true;
        }
    }
    false
}

/// The same failure: same engine and kind (the message may change as the kernel shrinks).
fn same(a: &Failure, b: &Failure) -> bool {
    a.kind == b.kind && a.engine == b.engine
}

/// Greedy minimisation of `k` while `failure` persists (same engine, same kind), within
/// `budget` of wall time; returns the smallest kernel and its failure.
pub fn minimise(k: &Kernel, failure: &Failure, budget: Duration) -> (Kernel, Failure) {
    let (seed, d) = (k.seed, depth(k));
    let engines = engine_of(failure, seed, d);
    let fails = |c: &Kernel| -> Option<Failure> {
        let rep = check(&c.render(), input_seed(seed), &engines);
        rep.failures.into_iter().find(|f| same(f, failure))
    };
    let small = minimise_with(k, budget, &|c| fails(c).is_some());
    let f = fails(&small).unwrap_or_else(|| failure.clone());
    (small, f)
}

/// Greedy minimisation of `k` while `fails` holds: repeatedly takes the first one-step
/// simplification ([`mutations`]) of lower cost that still fails.
pub fn minimise_with(k: &Kernel, budget: Duration, fails: &dyn Fn(&Kernel) -> bool) -> Kernel {
    let start = Instant::now();
    let mut cur = k.clone();
    let mut cur_cost = cost(&cur);
    'outer: while start.elapsed() < budget {
        for c in mutations(&cur) {
            if start.elapsed() >= budget {
                break 'outer;
            }
            let cc = cost(&c);
            if cc >= cur_cost || c.stmt_count() == 0 || !c.fits() {
                continue;
            }
            if fails(&c) {
                cur = c;
                cur_cost = cc;
                continue 'outer;
            }
        }
        break;
    }
    cur
}

/// The header note of a reproducer: what failed and how to rerun it.
pub fn note(k: &Kernel, f: &Failure) -> String {
    let cfg = random_configs(k.seed, depth(k)).into_iter().find(|c| c.label() == f.engine);
    let mut s = format!("Failure: {f}\n");
    s += &format!("Inputs: Store::random(seed {})\n", input_seed(k.seed));
    match cfg {
        Some(c) => {
            s += &format!(
                "Check: dpnc run FILE --random {} --outputs OUT --check --tile {} --par {}  (executor seeds 1, 2; the failing one is {})\n",
                input_seed(k.seed),
                join(&c.tile),
                join(&c.par),
                c.seed
            );
            s += &format!("Config: tile={} par={} seed={} input={}\n", join(&c.tile), join(&c.par), c.seed, input_seed(k.seed));
        }
        None => s += &format!("Check: dpnc run FILE --random {} --outputs OUT --check\n", input_seed(k.seed)),
    }
    s
}

/// Writes the reproducer of `k` failing with `f` to `dir/seed-SEED.c`.
pub fn write_reproducer(dir: &Path, k: &Kernel, f: &Failure) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("seed-{}.c", k.seed));
    std::fs::write(&path, k.render_with_note(&note(k, f)))?;
    Ok(path)
}

/// `Config: tile=… par=… seed=… input=…` from a reproducer's header.
pub fn parse_config(text: &str) -> Option<(DpnCfg, u64)> {
    let line = text.lines().find_map(|l| l.trim_start_matches([' ', '*']).strip_prefix("Config: "))?;
    let mut cfg = DpnCfg { tile: vec![], par: vec![], seed: 1 };
    let mut input = 1;
    for kv in line.split_whitespace() {
        let (k, v) = kv.split_once('=')?;
        let list = || v.split(',').map(|x| x.parse::<i64>().ok()).collect::<Option<Vec<i64>>>();
        match k {
            "tile" => cfg.tile = list()?,
            "par" => cfg.par = list()?,
            "seed" => cfg.seed = v.parse().ok()?,
            "input" => input = v.parse().ok()?,
            _ => return None,
        }
    }
    Some((cfg, input))
}

/// Summary of a run over many seeds.
#[derive(Default)]
pub struct Totals {
    pub kernels: usize,
    /// Engine runs compared with the interpreter.
    pub runs: usize,
    pub statements: usize,
    pub failures: Vec<(u64, Failure)>,
}

/// Checks the kernel of every seed; failing kernels are minimised (within `minimise_budget`
/// each) and written to `out` when given.
pub fn run_seeds(seeds: impl IntoIterator<Item = u64>, out: Option<&Path>, minimise_budget: Duration, verbose: bool) -> Totals {
    let mut t = Totals::default();
    for seed in seeds {
        let k = match guard(|| Kernel::generate(seed)) {
            Ok(k) => k,
            Err(e) => {
                t.failures.push((seed, Failure { engine: "generator".into(), kind: Kind::Panic, message: e }));
                continue;
            }
        };
        let text = k.render();
        let rep = check(&text, input_seed(seed), &engines_for(seed, depth(&k)));
        t.kernels += 1;
        t.runs += rep.ran;
        t.statements += k.stmt_count();
        if let Some(f) = rep.failures.first() {
            if verbose {
                eprintln!("seed {seed}: {f}");
            }
            let (small, sf) = minimise(&k, f, minimise_budget);
            if let Some(dir) = out {
                match write_reproducer(dir, &small, &sf) {
                    Ok(p) => eprintln!("seed {seed}: reproducer {}", p.display()),
                    Err(e) => eprintln!("seed {seed}: cannot write the reproducer: {e}"),
                }
            }
            t.failures.push((seed, sf));
        }
    }
    t
}
