//! One compute process's points, walked in its schedule order and grouped into vectors: the
//! proof that they run W at a time ([`walk`]), and what its vectors take from and give to the
//! on-chip FIFOs ([`Run`], for [`super::flow`]).

use super::{refuse, Lanes};
use crate::RtlError;
use dpnc_dpn::ir::{ChannelKind, Dpn};
use dpnc_dpn::predicate::Predicate;
use dpnc_frontend::interp::index_of;
use dpnc_frontend::ir::{Access, Program};

/// A compute process's vectors as the flow between compute processes sees them.
pub(super) struct Run {
    /// The process.
    pub pi: usize,
    /// Per vector, where its events start in `events` (and, last, their end).
    pub starts: Vec<usize>,
    /// In vector order, each on-chip FIFO a vector reads a value from (`false`) or writes one
    /// to (`true`).
    pub events: Vec<(usize, bool)>,
}

/// How a condition the hardware decides once per vector must hold across its points.
#[derive(Clone, Copy, PartialEq)]
enum Rule {
    /// The same at every point: the first point decides it for all.
    Uniform,
    /// Only ever at a vector's first point: a value every lane reads is taken there once.
    FirstLane,
}

/// Where the W values of one access of a vector must lie.
enum Cells {
    /// W consecutive cells of the array from a multiple of W: one slice of a DDR beat.
    Array,
    /// W consecutive cells of scratchpad `c` from a multiple of W: one word.
    Window(usize),
}

/// An access whose vectors must be W consecutive cells, where any of `when` holds.
struct CellCheck<'a> {
    access: &'a Access,
    cells: Cells,
    when: Vec<&'a Predicate>,
}

/// What one point decides: each condition, and each checked access's cell where it applies.
struct Point {
    conds: Vec<bool>,
    cells: Vec<Option<i64>>,
}

/// The vector being walked: its outer counters, the innermost counter's next value, how many
/// of its points came, and what its first point decided.
struct Vector {
    outer: Vec<i64>,
    next: i64,
    seen: u32,
    first: Point,
}

/// Walks compute process `pi` of statement `stmt` and checks that its points come in aligned
/// vectors of `plan.width` that agree (the module's documentation of [`super`]).
pub(super) fn walk(p: &Program, dpn: &Dpn, plan: &Lanes, pi: usize, stmt: usize) -> Result<Run, RtlError> {
    let lanes = plan.width;
    let (pr, s) = (&dpn.processes[pi], &p.stmts[stmt]);
    let l = crate::process::nest(pr)?;
    let w = lanes as i64;
    let Some(inner) = l.counters.last() else {
        return Err(refuse(lanes, format!("{} runs a single point", pr.name)));
    };
    if inner.step != 1 {
        let why = if inner.step > 1 { " (its sub-bands are interleaved: `--subbands slices` keeps its points consecutive)" } else { "" };
        return Err(refuse(lanes, format!("{}'s innermost loop ({}) does not step by one{why}", pr.name, inner.name)));
    }
    if inner.lower.iter().any(|b| b.cst % w != 0 || b.coef.iter().any(|a| a % w != 0)) {
        return Err(refuse(lanes, format!("{}'s innermost loop ({}) does not start at a multiple of {lanes}", pr.name, inner.name)));
    }
    let memory = |q: usize| dpn.processes[q].stmt().is_none();
    let on_chip =
        |c: usize| dpn.channels[c].kind == ChannelKind::Fifo && !memory(dpn.channels[c].producer) && !memory(dpn.channels[c].consumer);
    // Every condition the process and its memory processes decide per vector.
    let mut conds: Vec<(&Predicate, Rule)> = Vec::new();
    let mut checks: Vec<CellCheck> = Vec::new();
    let mut pops: Vec<(usize, usize)> = Vec::new(); // (condition, on-chip FIFO)
    let mut pushes: Vec<(usize, usize)> = Vec::new();
    for (r, clauses) in pr.mux.iter().enumerate() {
        for cl in clauses {
            let Some(pred) = cl.pred.as_ref() else { continue };
            let ch = &dpn.channels[cl.channel];
            conds.push((pred, Rule::Uniform));
            if on_chip(cl.channel) {
                pops.push((conds.len() - 1, cl.channel));
            }
            let rule = if plan.broadcast(cl.channel) { Rule::FirstLane } else { Rule::Uniform };
            conds.extend(ch.first_read.iter().map(|q| (q, rule)));
            conds.extend(ch.first_use.iter().map(|q| (q, rule)));
            if rule == Rule::Uniform {
                conds.extend(ch.last_read.iter().map(|q| (q, rule)));
                conds.extend(ch.fanout.iter().map(|(_, q)| (q, rule)));
                let access = &s.reads[r];
                if memory(ch.producer) {
                    checks.push(CellCheck { access, cells: Cells::Array, when: ch.first_use.iter().collect() });
                }
                if ch.kind == ChannelKind::Scratchpad {
                    checks.push(CellCheck {
                        access,
                        cells: Cells::Window(cl.channel),
                        when: [pred].into_iter().chain(&ch.first_use).collect(),
                    });
                }
            }
        }
    }
    for cl in &pr.demux {
        let Some(pred) = cl.pred.as_ref() else { continue };
        conds.push((pred, Rule::Uniform));
        if on_chip(cl.channel) {
            pushes.push((conds.len() - 1, cl.channel));
        }
        if memory(dpn.channels[cl.channel].consumer) {
            checks.push(CellCheck { access: &s.write, cells: Cells::Array, when: vec![pred] });
        }
    }
    for check in &checks {
        if let Cells::Window(c) = check.cells {
            if !dpn.channels[c].cells().is_multiple_of(lanes as usize) {
                return Err(refuse(
                    lanes,
                    format!("scratchpad {} holds {} cells, not whole words of {lanes}", dpn.channels[c].name, dpn.channels[c].cells()),
                ));
            }
        }
    }
    let (preds, rules): (Vec<&Predicate>, Vec<Rule>) = conds.into_iter().unzip();
    let params: Vec<i64> = dpn.params.iter().map(|x| x.1).collect();
    // A cell: the array's row-major index (an access that runs is in bounds,
    // `frontend::bounds`), or the scratchpad's (each subscript modulo its window, row-major).
    let cell = |check: &CellCheck, it: &[i64]| -> i64 {
        let Ok((idx, flat)) = index_of(p, check.access, it, &params) else { return i64::MIN / 2 };
        match check.cells {
            Cells::Array => flat.map_or(i64::MIN / 2, |flat| flat as i64),
            Cells::Window(c) => idx.iter().zip(&dpn.channels[c].window).fold(0, |s, (&x, &m)| s * m.max(1) + x.rem_euclid(m.max(1))),
        }
    };
    let at = |it: &[i64]| {
        let each: Vec<String> = s.iters.iter().zip(it).map(|(n, v)| format!("{n} = {v}")).collect();
        format!("{} at {}", s.name, each.join(", "))
    };
    let place = |check: &CellCheck| match check.cells {
        Cells::Array => format!("`{}`", p.vars[check.access.var].name),
        Cells::Window(c) => format!("scratchpad {}", dpn.channels[c].name),
    };
    let mut run = Run { pi, starts: Vec::new(), events: Vec::new() };
    let mut open: Option<Vector> = None;
    let mut fail: Option<String> = None;
    l.for_each_point(&mut |c, it| {
        if fail.is_some() {
            return;
        }
        let (outer, x) = (&c[..c.len() - 1], c[c.len() - 1]);
        let conds: Vec<bool> = preds.iter().map(|q| q.eval(it)).collect();
        let cells = checks.iter().map(|k| k.when.iter().any(|q| q.eval(it)).then(|| cell(k, it))).collect();
        let point = Point { conds, cells };
        match open.as_mut() {
            Some(v) if v.seen < lanes => {
                let (first, n) = (&v.first, v.seen as i64);
                if v.outer != outer || x != v.next {
                    fail = Some(format!(
                        "{}: a vector of {lanes} points of the innermost loop ({}) ends after {} of them",
                        at(it),
                        inner.name,
                        v.seen
                    ));
                } else if let Some(k) = (0..point.conds.len()).find(|&k| match rules[k] {
                    Rule::Uniform => point.conds[k] != first.conds[k],
                    Rule::FirstLane => point.conds[k],
                }) {
                    fail = Some(match rules[k] {
                        Rule::Uniform => {
                            format!("{}: a condition of the process or of its loads changes inside a vector of {lanes} points", at(it))
                        }
                        Rule::FirstLane => {
                            format!("{}: a value every lane reads would be taken again inside a vector of {lanes} points", at(it))
                        }
                    });
                } else if let Some(k) = (0..checks.len()).find(|&k| match (first.cells[k], point.cells[k]) {
                    (Some(a), Some(b)) => b != a + n,
                    (a, b) => a.is_some() != b.is_some(),
                }) {
                    fail = Some(format!(
                        "{}: {} is not one cell after the last lane's: a vector's values must be consecutive cells",
                        at(it),
                        place(&checks[k])
                    ));
                }
                v.next += 1;
                v.seen += 1;
            }
            _ => {
                if x.rem_euclid(w) != 0 {
                    fail = Some(format!("{}: a vector of points would start at {} = {x}, not a multiple of {lanes}", at(it), inner.name));
                } else if let Some(k) = point.cells.iter().position(|cell| cell.is_some_and(|cell| cell.rem_euclid(w) != 0)) {
                    fail = Some(format!(
                        "{}: a vector's first cell of {} is not a multiple of {lanes}, so its values would straddle a {}",
                        at(it),
                        place(&checks[k]),
                        if matches!(checks[k].cells, Cells::Array) { "beat" } else { "word" }
                    ));
                }
                run.starts.push(run.events.len());
                run.events.extend(pops.iter().filter(|(k, _)| point.conds[*k]).map(|&(_, c)| (c, false)));
                run.events.extend(pushes.iter().filter(|(k, _)| point.conds[*k]).map(|&(_, c)| (c, true)));
                open = Some(Vector { outer: outer.to_vec(), next: x + 1, seen: 1, first: point });
            }
        }
    });
    if fail.is_none() && open.as_ref().is_some_and(|v| v.seen < lanes) {
        fail = Some(format!(
            "{}'s last vector of points holds fewer than {lanes}: the innermost loop's trip count is not a multiple of {lanes}",
            pr.name
        ));
    }
    run.starts.push(run.events.len());
    fail.map_or(Ok(run), |why| Err(refuse(lanes, why)))
}
