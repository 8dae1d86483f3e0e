//! The reference interpreter: executes the kernel region exactly as C would, statement by
//! statement in program order, on a [`Store`]. It is the ground truth every other executor
//! is compared with.

use crate::diag::Diagnostic;
use crate::eval::{eval, EvalError};
use crate::ir::{Access, Node, Program};
use crate::store::{flatten, Store};

/// Statement instances executed, for reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub instances: u64,
}

pub fn index_of(p: &Program, a: &Access, iters: &[i64], params: &[i64]) -> Result<(Vec<i64>, Option<usize>), Diagnostic> {
    let idx = a
        .index
        .iter()
        .map(|x| x.eval(iters, params))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Diagnostic::bug(Some(a.span), e.to_string()))?;
    let off = flatten(&p.vars[a.var].dims, &idx);
    Ok((idx, off))
}

pub fn out_of_bounds(p: &Program, a: &Access, idx: &[i64]) -> String {
    let v = &p.vars[a.var];
    let shown: String = idx.iter().map(|i| format!("[{i}]")).collect();
    let dims: String = v.dims.iter().map(|d| format!("[{d}]")).collect();
    format!("access {}{shown} is out of bounds (declared {}{dims})", v.name, v.name)
}

pub(crate) fn eval_error(s: &crate::ir::Statement, e: EvalError) -> Diagnostic {
    match e {
        EvalError::DivisionByZero => Diagnostic::new(s.span, "integer division by zero"),
        EvalError::Read(m) => Diagnostic::new(s.span, m),
    }
}

/// Runs the kernel on `mem` with the given parameter values.
pub fn run(p: &Program, params: &[i64], mem: &mut Store) -> Result<Stats, Diagnostic> {
    run_reporting(p, params, mem, &mut |_| {})
}

/// [`run`], calling `progress` with the instances run so far every 2^22 instances.
pub fn run_reporting(p: &Program, params: &[i64], mem: &mut Store, progress: &mut dyn FnMut(u64)) -> Result<Stats, Diagnostic> {
    let mut stats = Stats::default();
    for_each_instance(p, params, &mut |k, iters| {
        let s = &p.stmts[k];
        let (widx, woff) = index_of(p, &s.write, iters, params)?;
        let woff = woff.ok_or_else(|| Diagnostic::new(s.write.span, out_of_bounds(p, &s.write, &widx)))?;
        let v = {
            let mem = &*mem;
            let mut read = |r: usize| -> Result<crate::value::Value, String> {
                let a = &s.reads[r];
                let (idx, off) = index_of(p, a, iters, params).map_err(|d| d.message)?;
                off.map(|o| mem.data[a.var][o]).ok_or_else(|| out_of_bounds(p, a, &idx))
            };
            eval(&s.body, iters, params, &mut read).map_err(|e| eval_error(s, e))?
        };
        mem.data[s.write.var][woff] = v.convert(p.vars[s.write.var].ty);
        stats.instances += 1;
        if stats.instances % (1 << 22) == 0 {
            progress(stats.instances);
        }
        Ok(())
    })?;
    Ok(stats)
}

/// How many instances each statement has (saturating at `u64::MAX`).
pub fn instance_counts(p: &Program, params: &[i64]) -> Result<Vec<u64>, Diagnostic> {
    Ok(Counter::run(p, params, u64::MAX, u64::MAX)?.counts)
}

/// How many statement instances `p` has, or why it is more than `limit` allows: too many
/// instances, or too many loop iterations for counting to walk (counting stops there, so
/// refusing a huge kernel costs little).
pub fn instance_total_up_to(p: &Program, params: &[i64], limit: u64) -> Result<std::result::Result<u64, String>, Diagnostic> {
    let c = Counter::run(p, params, limit, limit.min(MAX_WALKED))?;
    Ok(if c.total > c.max_instances {
        Err(format!("more than {limit} statement instances"))
    } else if c.walked > c.max_walked {
        Err(format!("more than {} loop iterations under guards or bounds that name their iterators", c.max_walked))
    } else {
        Ok(c.total)
    })
}

/// The most loop iterations counting walks one by one (a second or two).
const MAX_WALKED: u64 = 200_000_000;

/// Counts instances without visiting them: a loop whose body's bounds and guards do not name
/// its iterator has the same instances in every iteration, so one iteration is counted and
/// multiplied by the trip count. Work then grows with the loops that do (triangular bounds,
/// guards on the iterator), not with the instances.
struct Counter<'a> {
    p: &'a Program,
    params: &'a [i64],
    /// Counting stops once the instances exceed this…
    max_instances: u64,
    /// …or the loop iterations walked one by one this.
    max_walked: u64,
    counts: Vec<u64>,
    total: u64,
    /// Loop iterations walked one by one (the counting's own work).
    walked: u64,
}

impl<'a> Counter<'a> {
    /// The counts of `p`'s instances, up to the caps.
    fn run(p: &'a Program, params: &'a [i64], max_instances: u64, max_walked: u64) -> Result<Counter<'a>, Diagnostic> {
        let mut c = Counter { p, params, max_instances, max_walked, counts: vec![0; p.stmts.len()], total: 0, walked: 0 };
        c.count(&p.tree, &mut Vec::new(), 1)?;
        Ok(c)
    }

    fn over(&self) -> bool {
        self.total > self.max_instances || self.walked > self.max_walked
    }

    /// Adds `scale` times the instances of `nodes` (each iteration of the enclosing loops
    /// that were multiplied out counts `scale` times).
    fn count(&mut self, nodes: &[Node], iters: &mut Vec<i64>, scale: u64) -> Result<(), Diagnostic> {
        let internal = |e: &str| Diagnostic::bug(Some(self.p.region), e);
        for n in nodes {
            if self.over() {
                return Ok(());
            }
            match n {
                Node::Loop { depth, lower, upper, dir, body, .. } => {
                    let lo = lower.eval(iters, self.params).map_err(internal)?;
                    let hi = upper.eval(iters, self.params).map_err(internal)?;
                    if lo > hi {
                        continue;
                    }
                    let first = if *dir > 0 { lo } else { hi };
                    if !names_iterator(body, *depth) {
                        let trips = hi.abs_diff(lo) / dir.unsigned_abs() + 1;
                        iters.push(first);
                        let r = self.count(body, iters, scale.saturating_mul(trips));
                        iters.pop();
                        r?;
                        continue;
                    }
                    let mut i = first;
                    while lo <= i && i <= hi && !self.over() {
                        self.walked += 1;
                        iters.push(i);
                        let r = self.count(body, iters, scale);
                        iters.pop();
                        r?;
                        i += dir;
                    }
                }
                Node::If(c, then, els) => {
                    let taken = if c.eval(iters, self.params).map_err(internal)? { then } else { els };
                    self.count(taken, iters, scale)?;
                }
                Node::Stmt(k) => {
                    self.counts[*k] = self.counts[*k].saturating_add(scale);
                    self.total = self.total.saturating_add(scale);
                }
            }
        }
        Ok(())
    }
}

/// Whether a bound or guard among `nodes` names iterator `d`.
fn names_iterator(nodes: &[Node], d: usize) -> bool {
    nodes.iter().any(|n| match n {
        Node::Loop { lower, upper, body, .. } => lower.mentions(d) || upper.mentions(d) || names_iterator(body, d),
        Node::If(c, then, els) => c.mentions(d) || names_iterator(then, d) || names_iterator(els, d),
        Node::Stmt(_) => false,
    })
}

/// A visitor of runs of statement instances: `(statement, iterators of the first, length,
/// step)`; the run's instances follow along the last iterator by `step`.
pub type VisitRun<'a> = dyn FnMut(usize, &[i64], u64, i64) -> Result<(), Diagnostic> + 'a;

/// Calls `f` once per run of every statement instance: an innermost loop (a loop whose
/// body is statements only) gives one run per statement, any other instance a run of one.
/// Counting and bounding need no more, and a PolyBench kernel's instances then cost a few
/// operations per inner loop, not per instance. Runs come in program order of their first
/// instance, except that each statement of an innermost loop comes whole in turn.
pub fn for_each_run(p: &Program, params: &[i64], f: &mut VisitRun) -> Result<(), Diagnostic> {
    walk(p, &p.tree, params, true, &mut Vec::new(), f)
}

/// The walk of [`for_each_run`], or with `runs` off of [`for_each_instance`] (runs of one).
fn walk(p: &Program, nodes: &[Node], params: &[i64], runs: bool, iters: &mut Vec<i64>, f: &mut VisitRun) -> Result<(), Diagnostic> {
    let internal = |e: &str| Diagnostic::bug(Some(p.region), e);
    for n in nodes {
        match n {
            Node::Loop { lower, upper, dir, body, .. } => {
                let lo = lower.eval(iters, params).map_err(internal)?;
                let hi = upper.eval(iters, params).map_err(internal)?;
                let first = if *dir > 0 { lo } else { hi };
                if runs && body.iter().all(|b| matches!(b, Node::Stmt(_))) {
                    if lo > hi {
                        continue;
                    }
                    let len = hi.abs_diff(lo) / dir.unsigned_abs() + 1;
                    iters.push(first);
                    for b in body {
                        if let Node::Stmt(k) = b {
                            f(*k, iters, len, *dir)?;
                        }
                    }
                    iters.pop();
                    continue;
                }
                let mut i = first;
                while lo <= i && i <= hi {
                    iters.push(i);
                    let r = walk(p, body, params, runs, iters, f);
                    iters.pop();
                    r?;
                    i += dir;
                }
            }
            Node::If(c, then, els) => {
                let taken = if c.eval(iters, params).map_err(internal)? { then } else { els };
                walk(p, taken, params, runs, iters, f)?;
            }
            Node::Stmt(k) => f(*k, iters, 1, 1)?,
        }
    }
    Ok(())
}

/// A visitor of statement instances: `(statement, iterators)`.
pub type Visit<'a> = dyn FnMut(usize, &[i64]) -> Result<(), Diagnostic> + 'a;

/// Calls `f(statement, iterators)` for every statement instance, in program order.
pub fn for_each_instance(p: &Program, params: &[i64], f: &mut Visit) -> Result<(), Diagnostic> {
    walk(p, &p.tree, params, false, &mut Vec::new(), &mut |k, it, _, _| f(k, it))
}
