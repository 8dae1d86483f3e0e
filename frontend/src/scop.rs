//! Semantic analysis of the kernel region: which names are loop iterators, size parameters
//! and data; affine loop bounds, conditions and subscripts; typed statement bodies; the
//! original (2d+1) schedule. The result, [`Program`], is the static control part (SCoP) in
//! our own types; `polyhedral` writes it in isl notation.

use crate::ast::*;
use crate::diag::{Diagnostic, Result};
pub use crate::ir::*;
use crate::parser::{const_int, Unit};
use crate::source::Span;
use crate::value::Value;
use std::collections::{BTreeSet, HashMap};

/// Refuses array argument `k` of the call when it may overlap an earlier array argument:
/// the network gives every array its own memory.
fn overlap(f: &Function, call: &CallSite, k: usize) -> Result<()> {
    let Some(mine) = call.args.get(k) else { return Ok(()) };
    for (j, q) in f.params.iter().enumerate().take(k).filter(|(_, q)| !q.decl.dims.is_empty()) {
        let Some(theirs) = call.args.get(j) else { continue };
        if let Some(root) = mine.roots.iter().find(|r| theirs.roots.contains(r)) {
            return Err(Diagnostic::new(
                mine.span,
                format!("arrays `{}` and `{}` may overlap: both arguments point into `{root}`", q.decl.name, f.params[k].decl.name),
            )
            .with_help("dpnc gives every array argument its own memory; pass distinct arrays"));
        }
    }
    Ok(())
}

/// The deepest loop nest analysed. The cost of the polyhedral analyses grows exponentially with
/// the depth: `--report` on a reduction over 8 nested loops takes about 4 s, over 10 loops 40 s
/// (the exact dataflow alone: 0.2 s and 0.6 s; over 20 loops, 35 s).
const MAX_LOOP_DEPTH: usize = 8;

/// Most `/` and `%` in one comparison of a bound or guard, or in one subscript: the model
/// splits each on the sign of every dividend (C rounds a negative quotient up), 2^k pieces for
/// k divisions (`run --check` on a subscript of 4 nested divisions takes 0.6 s, of 6, 15 s).
const MAX_DIVISIONS: u32 = 4;

/// `what` is "comparison" or "subscript".
fn few_divisions(divisions: u32, span: Span, what: &str) -> Result<()> {
    if divisions > MAX_DIVISIONS {
        return Err(Diagnostic::new(
            span,
            format!("this {what} holds {divisions} divisions or remainders; at most {MAX_DIVISIONS} are supported"),
        )
        .with_help(if what == "subscript" {
            "fold nested divisions (`i / 8` for `i / 2 / 4`)"
        } else {
            "split the condition with `&&`, or fold nested divisions"
        }));
    }
    Ok(())
}

/// Builds the [`Program`] from the parsed kernel. `overrides` are `--param NAME=VALUE`.
pub fn analyse(unit: &Unit, overrides: &[(String, i64)]) -> Result<Program> {
    let f = &unit.kernel;
    let (start, end) = region(&f.body)?;
    let region_span = match (f.body[start..end].first(), f.body[start..end].last()) {
        (Some(a), Some(b)) => a.span.to(b.span),
        // An empty region: point at its opening pragma.
        _ => start.checked_sub(1).and_then(|k| f.body.get(k)).map_or(f.span, |s| s.span),
    };
    let mut written = BTreeSet::new();
    let mut iter_names = BTreeSet::new();
    for s in &f.body[start..end] {
        collect_writes(s, &mut written, &mut iter_names);
    }
    let inits = initialisers(&f.body[..start], &iter_names);
    for s in &inits {
        collect_writes(s, &mut written, &mut iter_names);
    }
    let region_stmts: Vec<Stmt> = inits.into_iter().chain(f.body[start..end].iter().cloned()).collect();

    let mut a = Analyser {
        params: Vec::new(),
        vars: Vec::new(),
        names: HashMap::new(),
        loops: Vec::new(),
        stmts: Vec::new(),
        iter_types: HashMap::new(),
    };

    // Kernel arguments.
    for (k, p) in f.params.iter().enumerate() {
        let d = &p.decl;
        if p.pointer {
            return Err(Diagnostic::new(d.span, format!("parameter `{}` is a pointer", d.name)).with_help(
                "declare arrays with constant dimensions, e.g. `double A[N][M]`, so that accesses can be analysed and aliasing ruled out",
            ));
        }
        let is_param = d.dims.is_empty() && !d.ty.is_float() && !written.contains(&d.name);
        if is_param {
            let from_call = unit.call.as_ref().and_then(|c| c.args.get(k));
            let value = overrides.iter().find(|(n, _)| *n == d.name).map(|o| o.1).or(from_call.and_then(|a| a.value));
            let rewritten = from_call.and_then(|a| a.rewritten);
            a.names.insert(d.name.clone(), Name::Param(a.params.len()));
            a.params.push(Parameter { name: d.name.clone(), value, rewritten, span: d.span });
        }
    }
    for (k, (n, v)) in overrides.iter().enumerate() {
        if let Some((_, w)) = overrides[..k].iter().find(|(m, _)| m == n) {
            return Err(Diagnostic::global(format!("--param {n} is given twice ({w} and {v})")));
        }
    }
    if let Some((n, _)) = overrides.iter().find(|(n, _)| !a.params.iter().any(|p| p.name == *n)) {
        let names: Vec<&str> = a.params.iter().map(|p| p.name.as_str()).collect();
        return Err(Diagnostic::global(format!("--param {n}: the kernel `{}` has no size parameter `{n}`", f.name)).with_help(
            if names.is_empty() {
                "this kernel has no size parameters".to_string()
            } else {
                format!("its size parameters: {}", names.join(", "))
            },
        ));
    }
    for (k, p) in f.params.iter().enumerate() {
        let d = &p.decl;
        if a.names.contains_key(&d.name) {
            continue;
        }
        if !d.dims.is_empty() {
            if let Some(call) = &unit.call {
                overlap(f, call, k)?;
            }
        }
        a.declare(d, VarKind::Argument)?;
    }
    // Locals declared in the function outside the region.
    for s in f.body[..start].iter().chain(&f.body[end..]) {
        if let StmtKind::Decl(ds) = &s.kind {
            for d in ds {
                if iter_names.contains(&d.name) {
                    a.iter_types.insert(d.name.clone(), (d.ty, d.span));
                } else if !a.names.contains_key(&d.name) {
                    a.declare(d, VarKind::Local)?;
                }
            }
        }
    }

    let mut counter = 0;
    let tree = a.block(&region_stmts, &mut Vec::new(), &mut Vec::new(), &mut counter)?;
    if a.stmts.is_empty() {
        return Err(Diagnostic::new(region_span, "the kernel region contains no assignment")
            .with_help("put the loop nest to compile between `#pragma scop` and `#pragma endscop`"));
    }
    nothing_outside(&f.body[..start], &f.body[end..])?;
    for p in &a.params {
        if let Some(v) = p.value {
            if v < 1 {
                return Err(Diagnostic::new(p.span, format!("size parameter `{}` is {v}; sizes must be at least 1", p.name)));
            }
        }
    }
    let signature = f
        .params
        .iter()
        .filter_map(|q| match a.names.get(&q.decl.name) {
            Some(Name::Param(i)) => Some(ArgSlot::Param(*i)),
            Some(Name::Var(i)) => Some(ArgSlot::Var(*i)),
            None => None,
        })
        .collect();
    Ok(Program { kernel: f.name.clone(), params: a.params, vars: a.vars, stmts: a.stmts, tree, region: region_span, signature })
}

/// The initialisers of the locals declared before the region (`DATA_TYPE eps = 0.1;`), as
/// assignments that run first in the region; not those of loop iterators (`int i = 0;`),
/// which their loops set.
fn initialisers(before: &[Stmt], iterators: &BTreeSet<String>) -> Vec<Stmt> {
    let decls = before.iter().filter_map(|s| if let StmtKind::Decl(ds) = &s.kind { Some(ds) } else { None });
    decls
        .flatten()
        .filter(|d| !iterators.contains(&d.name))
        .filter_map(|d| {
            let init = d.init.as_ref()?;
            let target = Expr { kind: ExprKind::Var(d.name.clone()), span: d.span };
            let span = d.span.to(init.span);
            let assign = Expr { kind: ExprKind::Assign(None, Box::new(target), Box::new(init.clone())), span };
            Some(Stmt { kind: StmtKind::Expr(assign), span })
        })
        .collect()
}

/// Refuses statements of the kernel function outside the region other than declarations: they
/// would not be compiled.
fn nothing_outside(before: &[Stmt], after: &[Stmt]) -> Result<()> {
    for (s, is_before) in before.iter().map(|s| (s, true)).chain(after.iter().map(|s| (s, false))) {
        match &s.kind {
            StmtKind::Decl(_) | StmtKind::Empty | StmtKind::Pragma(_) => {}
            // `return;` at the very end changes nothing.
            StmtKind::Unsupported("`return` statements") if !is_before => {}
            _ => {
                let place = if is_before { "before" } else { "after" };
                return Err(Diagnostic::new(
                    s.span,
                    format!("this statement is {place} the `#pragma scop` region, so it would not be compiled"),
                )
                .with_help("move it into the region, or out of the kernel function"));
            }
        }
    }
    Ok(())
}

/// The `[start, end)` statement range of the kernel region in the function body.
fn region(body: &[Stmt]) -> Result<(usize, usize)> {
    let is = |s: &Stmt, p: &str| matches!(&s.kind, StmtKind::Pragma(q) if q == p);
    let mut nested = None;
    for s in body {
        find_nested_pragma(s, &mut nested);
    }
    if let Some((span, which)) = nested {
        return Err(Diagnostic::new(span, format!("`#pragma {which}` must be at the top level of the function body"))
            .with_help("the kernel region is a sequence of whole statements of the function body"));
    }
    match body.iter().position(|s| is(s, "scop")) {
        Some(b) => {
            let e = body[b + 1..]
                .iter()
                .position(|s| is(s, "endscop"))
                .map(|e| e + b + 1)
                .ok_or_else(|| Diagnostic::new(body[b].span, "`#pragma scop` without a matching `#pragma endscop`"))?;
            // One region per function: a second one would be silently left out.
            if let Some(s) = body[e + 1..].iter().find(|s| is(s, "scop") || is(s, "endscop")) {
                let which =
                    if is(s, "scop") { "a second `#pragma scop` region" } else { "`#pragma endscop` without a matching `#pragma scop`" };
                return Err(Diagnostic::new(s.span, format!("{which} in the kernel function; dpnc compiles one kernel region"))
                    .with_help("merge the regions into one, or put each in its own function and choose it with --kernel"));
            }
            Ok((b + 1, e))
        }
        None => {
            if let Some(s) = body.iter().find(|s| is(s, "endscop")) {
                return Err(Diagnostic::new(s.span, "`#pragma endscop` without a preceding `#pragma scop`"));
            }
            let first = body.iter().position(|s| !matches!(s.kind, StmtKind::Decl(_) | StmtKind::Pragma(_))).unwrap_or(body.len());
            Ok((first, body.len()))
        }
    }
}

fn find_nested_pragma(s: &Stmt, out: &mut Option<(Span, String)>) {
    let mut inner = |b: &Stmt| {
        if let StmtKind::Pragma(p) = &b.kind {
            if p == "scop" || p == "endscop" {
                out.get_or_insert((b.span, p.clone()));
            }
        }
        find_nested_pragma(b, out)
    };
    match &s.kind {
        StmtKind::Block(v) => v.iter().for_each(&mut inner),
        StmtKind::If(_, t, e) => {
            inner(t);
            if let Some(e) = e {
                inner(e)
            }
        }
        StmtKind::For { body, .. } => inner(body),
        _ => {}
    }
}

fn collect_writes(s: &Stmt, written: &mut BTreeSet<String>, iters: &mut BTreeSet<String>) {
    fn target(e: &Expr, written: &mut BTreeSet<String>) {
        match &e.kind {
            ExprKind::Assign(_, l, r) => {
                if let ExprKind::Var(n) | ExprKind::Index(n, _) = &l.kind {
                    written.insert(n.clone());
                }
                target(r, written);
            }
            ExprKind::IncDec { target: t, .. } => {
                if let ExprKind::Var(n) | ExprKind::Index(n, _) = &t.kind {
                    written.insert(n.clone());
                }
            }
            _ => {}
        }
    }
    match &s.kind {
        StmtKind::Expr(e) => target(e, written),
        StmtKind::Block(v) => v.iter().for_each(|b| collect_writes(b, written, iters)),
        StmtKind::If(_, t, e) => {
            collect_writes(t, written, iters);
            if let Some(e) = e {
                collect_writes(e, written, iters);
            }
        }
        StmtKind::For { init, body, .. } => {
            if let Some(init) = init {
                match &init.kind {
                    StmtKind::Expr(Expr { kind: ExprKind::Assign(None, l, _), .. }) => {
                        if let ExprKind::Var(n) = &l.kind {
                            iters.insert(n.clone());
                        }
                    }
                    StmtKind::Decl(ds) => ds.iter().for_each(|d| {
                        iters.insert(d.name.clone());
                    }),
                    _ => {}
                }
            }
            collect_writes(body, written, iters);
        }
        _ => {}
    }
}

#[derive(Clone, Copy, Debug)]
enum Name {
    Param(usize),
    Var(usize),
}

struct LoopInfo {
    name: String,
    ty: ScalarType,
}

struct Analyser {
    params: Vec<Parameter>,
    vars: Vec<Variable>,
    names: HashMap<String, Name>,
    loops: Vec<LoopInfo>,
    stmts: Vec<Statement>,
    /// Declared types of the locals used as loop iterators.
    iter_types: HashMap<String, (ScalarType, Span)>,
}

/// Where an affine expression appears, for messages.
#[derive(Clone, Copy)]
enum Ctx {
    Subscript,
    Bound,
    Condition,
}

impl Ctx {
    fn what(self) -> &'static str {
        match self {
            Ctx::Subscript => "array subscripts",
            Ctx::Bound => "loop bounds",
            Ctx::Condition => "`if` conditions",
        }
    }
}

impl Analyser {
    fn declare(&mut self, d: &VarDecl, kind: VarKind) -> Result<()> {
        let mut dims = Vec::new();
        for e in &d.dims {
            let v = const_int(e, &|n| match self.names.get(n) {
                Some(Name::Param(p)) => self.params[*p].value,
                _ => None,
            })
            .ok_or_else(|| {
                Diagnostic::new(e.span, format!("dimension of `{}` is not a constant", d.name))
                    .with_help("array dimensions must be integer constants (macros are fine) or size parameters with known values")
            })?;
            if v <= 0 {
                return Err(Diagnostic::new(e.span, format!("dimension of `{}` is {v}; it must be positive", d.name)));
            }
            dims.push(v);
        }
        if dims.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d)).is_none_or(|n| n > 1 << 32) {
            return Err(Diagnostic::new(
                d.span,
                format!(
                    "array `{}` is too large ({} elements)",
                    d.name,
                    dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(" x ")
                ),
            ));
        }
        self.names.insert(d.name.clone(), Name::Var(self.vars.len()));
        self.vars.push(Variable { name: d.name.clone(), ty: d.ty, dims, kind, read: false, written: false, span: d.span });
        Ok(())
    }

    fn block(&mut self, stmts: &[Stmt], conds: &mut Vec<Cond>, sched: &mut Vec<SchedTerm>, counter: &mut i64) -> Result<Vec<Node>> {
        let mut nodes = Vec::new();
        for s in stmts {
            self.stmt(s, conds, sched, counter, &mut nodes)?;
        }
        Ok(nodes)
    }

    fn stmt(&mut self, s: &Stmt, conds: &mut Vec<Cond>, sched: &mut Vec<SchedTerm>, counter: &mut i64, out: &mut Vec<Node>) -> Result<()> {
        match &s.kind {
            StmtKind::Empty => Ok(()),
            StmtKind::Pragma(_) => Ok(()),
            StmtKind::Block(v) => {
                for b in v {
                    self.stmt(b, conds, sched, counter, out)?;
                }
                Ok(())
            }
            StmtKind::Decl(ds) => {
                Err(Diagnostic::new(ds.first().map_or(s.span, |d| d.span), "declarations are not allowed inside the kernel region")
                    .with_help("declare temporaries at the top of the kernel function, before `#pragma scop`"))
            }
            StmtKind::Unsupported(what) => Err(Diagnostic::new(s.span, format!("{what} are not supported in the kernel region"))
                .with_help(
                "the kernel must be a static control part: `for` loops with affine bounds, `if` with affine conditions, and assignments",
            )),
            StmtKind::If(c, t, e) => {
                let cond = self.cond(c, Ctx::Condition)?;
                conds.push(cond.clone());
                let mut then = Vec::new();
                self.stmt(t, conds, sched, counter, &mut then)?;
                conds.pop();
                let mut els = Vec::new();
                if let Some(e) = e {
                    conds.push(Cond::Not(Box::new(cond.clone())));
                    self.stmt(e, conds, sched, counter, &mut els)?;
                    conds.pop();
                }
                out.push(Node::If(cond, then, els));
                Ok(())
            }
            StmtKind::For { init, cond, step, body } => {
                let (name, ty, lower_src) = self.loop_init(init.as_deref(), s.span)?;
                let dir = self.loop_step(step.as_ref(), &name, s.span)?;
                let depth = self.loops.len();
                if depth == MAX_LOOP_DEPTH {
                    return Err(Diagnostic::new(
                        s.span,
                        format!("this loop is nested {} deep; at most {MAX_LOOP_DEPTH} nested loops are supported", depth + 1),
                    )
                    .with_help("the exact dataflow of a nest grows exponentially with its depth; merge or split loops"));
                }
                // The bounds are analysed outside the loop's own scope: they must not use it.
                let lower = self.aff(lower_src, Ctx::Bound)?;
                few_divisions(lower.divisions(), lower_src.span, "comparison")?;
                let Some(cond_e) = cond else {
                    return Err(Diagnostic::new(s.span, "a `for` loop without a condition is unbounded")
                        .with_help("write `for (i = lb; i < ub; i++)`"));
                };
                let upper = self.loop_bound(cond_e, &name, dir)?;
                few_divisions(upper.divisions(), cond_e.span, "comparison")?;
                let var = Aff::Iter(depth);
                let (lo, hi) = if dir > 0 { (lower, upper) } else { (upper, lower) };
                conds.push(Cond::Cmp(CmpOp::Le, lo.clone(), var.clone()));
                conds.push(Cond::Cmp(CmpOp::Le, var, hi.clone()));
                sched.push(SchedTerm::Const(*counter));
                sched.push(SchedTerm::Iter(depth, dir));
                *counter += 1;
                self.loops.push(LoopInfo { name, ty });
                let mut inner = 0;
                let mut body_nodes = Vec::new();
                let r = self.stmt(body, conds, sched, &mut inner, &mut body_nodes);
                self.loops.pop();
                sched.truncate(sched.len() - 2);
                conds.truncate(conds.len() - 2);
                r?;
                out.push(Node::Loop { depth, ty, lower: lo, upper: hi, dir, body: body_nodes });
                Ok(())
            }
            StmtKind::Expr(e) => {
                for part in split_chain(e) {
                    let idx = self.assignment(&part, conds, sched, *counter)?;
                    *counter += 1;
                    out.push(Node::Stmt(idx));
                }
                Ok(())
            }
        }
    }

    fn loop_init<'e>(&self, init: Option<&'e Stmt>, span: Span) -> Result<(String, ScalarType, &'e Expr)> {
        let bad = |sp| Diagnostic::new(sp, "the loop must initialise its iterator").with_help("write `for (i = lb; i < ub; i++)`");
        let init = init.ok_or_else(|| bad(span))?;
        let (name, ty, e) = match &init.kind {
            StmtKind::Expr(Expr { kind: ExprKind::Assign(None, l, r), .. }) => match &l.kind {
                ExprKind::Var(n) => (n.clone(), None, &**r),
                _ => return Err(bad(l.span)),
            },
            StmtKind::Decl(ds) if ds.len() == 1 && ds[0].dims.is_empty() && ds[0].init.is_some() => {
                let d = &ds[0];
                (d.name.clone(), Some(d.ty), d.init.as_ref().ok_or_else(|| bad(d.span))?)
            }
            _ => return Err(bad(init.span)),
        };
        let ty = match ty {
            Some(t) => t,
            None => match self.names.get(&name) {
                Some(Name::Var(v)) if self.vars[v.to_owned()].kind == VarKind::Local && self.vars[*v].dims.is_empty() => self.vars[*v].ty,
                Some(Name::Param(_)) | Some(Name::Var(_)) => {
                    return Err(Diagnostic::new(
                        init.span,
                        format!("`{name}` is used as a loop iterator but it is also kernel data or a size parameter"),
                    )
                    .with_help("use a local integer variable as the loop iterator"))
                }
                None => self.iter_types.get(&name).map_or(ScalarType::Int, |t| t.0),
            },
        };
        if ty.is_float() {
            return Err(Diagnostic::new(init.span, format!("loop iterator `{name}` has a floating-point type"))
                .with_help("loop iterators must be integers"));
        }
        if self.loops.iter().any(|l| l.name == name) {
            return Err(Diagnostic::new(init.span, format!("loop iterator `{name}` is already the iterator of an enclosing loop")));
        }
        Ok((name, ty, e))
    }

    fn loop_step(&self, step: Option<&Expr>, name: &str, span: Span) -> Result<i64> {
        let bad = |sp| {
            Diagnostic::new(sp, format!("the loop step must be `{name}++` or `{name}--`"))
                .with_help("only unit steps are supported; rewrite strided loops with a unit-step iterator and a scaled subscript")
        };
        let step = step.ok_or_else(|| bad(span))?;
        let is_iter = |e: &Expr| matches!(&e.kind, ExprKind::Var(n) if n == name);
        let lit = |e: &Expr| match &e.kind {
            ExprKind::Lit(Literal::Int(v, _)) => Some(*v),
            _ => None,
        };
        match &step.kind {
            ExprKind::IncDec { delta, target, .. } if is_iter(target) => Ok(*delta),
            ExprKind::Assign(Some(BinOp::Add), l, r) if is_iter(l) && lit(r) == Some(1) => Ok(1),
            ExprKind::Assign(Some(BinOp::Sub), l, r) if is_iter(l) && lit(r) == Some(1) => Ok(-1),
            ExprKind::Assign(None, l, r) if is_iter(l) => match &r.kind {
                ExprKind::Binary(BinOp::Add, a, b) if is_iter(a) && lit(b) == Some(1) => Ok(1),
                ExprKind::Binary(BinOp::Sub, a, b) if is_iter(a) && lit(b) == Some(1) => Ok(-1),
                _ => Err(bad(step.span)),
            },
            _ => Err(bad(step.span)),
        }
    }

    /// The inclusive bound implied by the loop condition (upper for `++`, lower for `--`).
    fn loop_bound(&self, cond: &Expr, name: &str, dir: i64) -> Result<Aff> {
        let bad = |sp| {
            Diagnostic::new(sp, format!("the loop condition must compare `{name}` with an affine bound")).with_help(if dir > 0 {
                format!("write `{name} < ub` or `{name} <= ub`")
            } else {
                format!("write `{name} >= lb` or `{name} > lb`")
            })
        };
        match &cond.kind {
            ExprKind::Binary(BinOp::And, a, b) => {
                let (a, b) = (self.loop_bound(a, name, dir)?, self.loop_bound(b, name, dir)?);
                Ok(if dir > 0 { Aff::Min(Box::new(a), Box::new(b)) } else { Aff::Max(Box::new(a), Box::new(b)) })
            }
            ExprKind::Binary(op, l, r) => {
                let is_iter = |e: &Expr| matches!(&e.kind, ExprKind::Var(n) if n == name);
                // Normalise to `i op bound`.
                let (op, bound) = if is_iter(l) {
                    (*op, &**r)
                } else if is_iter(r) {
                    let flipped = match op {
                        BinOp::Lt => BinOp::Gt,
                        BinOp::Le => BinOp::Ge,
                        BinOp::Gt => BinOp::Lt,
                        BinOp::Ge => BinOp::Le,
                        _ => return Err(bad(cond.span)),
                    };
                    (flipped, &**l)
                } else {
                    return Err(bad(cond.span));
                };
                let b = self.aff(bound, Ctx::Bound)?;
                let one = || Box::new(Aff::Const(1));
                match (op, dir > 0) {
                    (BinOp::Lt, true) => Ok(Aff::Sub(Box::new(b), one())),
                    (BinOp::Le, true) => Ok(b),
                    (BinOp::Gt, false) => Ok(Aff::Add(Box::new(b), one())),
                    (BinOp::Ge, false) => Ok(b),
                    _ => Err(Diagnostic::new(cond.span, format!("the loop condition does not bound `{name}` in the direction it moves"))
                        .with_help("an increasing loop needs `<` or `<=`, a decreasing one `>` or `>=`")),
                }
            }
            _ => Err(bad(cond.span)),
        }
    }

    /// The error for a name that is not in scope here.
    fn undeclared(&self, name: &str, span: Span) -> Diagnostic {
        if self.iter_types.contains_key(name) || self.loops.iter().any(|l| l.name == name) {
            Diagnostic::new(span, format!("loop iterator `{name}` is used outside its loop"))
                .with_help("an iterator is defined only inside the body of its loop (not in its own bounds, nor after the loop)")
        } else {
            Diagnostic::new(span, format!("`{name}` is not declared"))
        }
    }

    fn lookup_iter(&self, name: &str) -> Option<usize> {
        self.loops.iter().rposition(|l| l.name == name)
    }

    fn aff(&self, e: &Expr, ctx: Ctx) -> Result<Aff> {
        let not_affine = |why: String| {
            Diagnostic::new(e.span, why).with_help(format!("{} must be affine: sums of loop iterators and size parameters times integer constants (`/` and `%` by a constant, `min`, `max` allowed)", ctx.what()))
        };
        Ok(match &e.kind {
            ExprKind::Lit(Literal::Int(v, _)) => Aff::Const(*v),
            ExprKind::Lit(_) => return Err(not_affine("a floating-point value cannot be used here".into())),
            ExprKind::Var(n) => {
                if let Some(d) = self.lookup_iter(n) {
                    Aff::Iter(d)
                } else {
                    match self.names.get(n) {
                        Some(Name::Param(p)) => Aff::Param(*p),
                        Some(Name::Var(_)) => {
                            return Err(match ctx {
                                Ctx::Subscript => not_affine(format!("subscript depends on the data variable `{n}`")),
                                _ => Diagnostic::new(e.span, format!("{} depends on the data variable `{n}` (data-dependent control)", if matches!(ctx, Ctx::Bound) { "loop bound" } else { "condition" }))
                                    .with_help("control flow must depend only on loop iterators and size parameters; to select a value by data, use a conditional expression `c ? a : b` on the right-hand side"),
                            })
                        }
                        None => return Err(self.undeclared(n, e.span)),
                    }
                }
            }
            ExprKind::Assign(..) => {
                return Err(Diagnostic::new(e.span, "assignment inside a condition or subscript").with_help("did you mean `==`?"))
            }
            ExprKind::Index(n, _) => {
                return Err(match ctx {
                    Ctx::Subscript => not_affine(format!("subscript reads the array `{n}` (indirect access)")),
                    _ => Diagnostic::new(e.span, format!("{} reads the array `{n}` (data-dependent control)", if matches!(ctx, Ctx::Bound) { "loop bound" } else { "condition" }))
                        .with_help("control flow must depend only on loop iterators and size parameters; to select a value by data, use a conditional expression `c ? a : b` on the right-hand side"),
                })
            }
            ExprKind::Unary(UnOp::Neg, a) => Aff::Neg(Box::new(self.aff(a, ctx)?)),
            ExprKind::Unary(UnOp::Plus, a) => self.aff(a, ctx)?,
            ExprKind::Cast(t, a) if !t.is_float() => self.aff(a, ctx)?,
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem), a, b) => {
                let (x, y) = (self.aff(a, ctx)?, self.aff(b, ctx)?);
                match op {
                    BinOp::Add => Aff::Add(Box::new(x), Box::new(y)),
                    BinOp::Sub => Aff::Sub(Box::new(x), Box::new(y)),
                    BinOp::Mul => match (x.as_const(), y.as_const()) {
                        (Some(c), _) => Aff::Mul(c, Box::new(y)),
                        (_, Some(c)) => Aff::Mul(c, Box::new(x)),
                        _ => return Err(not_affine(format!("`{}` multiplies two non-constant terms", op.symbol()))),
                    },
                    _ => match y.as_const() {
                        Some(c) if c > 0 => {
                            if *op == BinOp::Div {
                                Aff::Div(Box::new(x), c)
                            } else {
                                Aff::Mod(Box::new(x), c)
                            }
                        }
                        _ => return Err(not_affine(format!("`{}` needs a positive constant on its right", op.symbol()))),
                    },
                }
            }
            ExprKind::Call(f, args) if (f == "min" || f == "max") && args.len() == 2 => {
                let (x, y) = (Box::new(self.aff(&args[0], ctx)?), Box::new(self.aff(&args[1], ctx)?));
                if f == "min" {
                    Aff::Min(x, y)
                } else {
                    Aff::Max(x, y)
                }
            }
            ExprKind::Call(f, _) => return Err(not_affine(format!("call to `{f}` is not affine"))),
            ExprKind::Unsupported(what) => return Err(Diagnostic::new(e.span, format!("{what} are not supported"))),
            _ => return Err(not_affine("this expression is not affine".into())),
        })
    }

    fn cond(&self, e: &Expr, ctx: Ctx) -> Result<Cond> {
        Ok(match &e.kind {
            ExprKind::Binary(BinOp::And, a, b) => Cond::And(Box::new(self.cond(a, ctx)?), Box::new(self.cond(b, ctx)?)),
            ExprKind::Binary(BinOp::Or, a, b) => Cond::Or(Box::new(self.cond(a, ctx)?), Box::new(self.cond(b, ctx)?)),
            ExprKind::Unary(UnOp::Not, a) => Cond::Not(Box::new(self.cond(a, ctx)?)),
            ExprKind::Binary(op, a, b) if op.is_comparison() => {
                let op = match op {
                    BinOp::Lt => CmpOp::Lt,
                    BinOp::Le => CmpOp::Le,
                    BinOp::Gt => CmpOp::Gt,
                    BinOp::Ge => CmpOp::Ge,
                    BinOp::Eq => CmpOp::Eq,
                    _ => CmpOp::Ne,
                };
                let (x, y) = (self.aff(a, ctx)?, self.aff(b, ctx)?);
                few_divisions(x.divisions() + y.divisions(), e.span, "comparison")?;
                Cond::Cmp(op, x, y)
            }
            // A bare affine expression: true when non-zero.
            _ => Cond::Cmp(CmpOp::Ne, self.aff(e, ctx)?, Aff::Const(0)),
        })
    }

    fn access(&mut self, e: &Expr, write: bool) -> Result<Access> {
        let (name, idx): (&String, &[Expr]) = match &e.kind {
            ExprKind::Var(n) => (n, &[]),
            ExprKind::Index(n, idx) => (n, idx),
            _ => return Err(Diagnostic::new(e.span, "the left-hand side must be an array element or a scalar variable")),
        };
        let var = match self.names.get(name) {
            Some(Name::Var(v)) => *v,
            Some(Name::Param(_)) => {
                return Err(Diagnostic::new(e.span, format!("`{name}` is a size parameter; it cannot be indexed or written")));
            }
            None if self.lookup_iter(name).is_some() => {
                return Err(Diagnostic::new(e.span, format!("loop iterator `{name}` is modified inside its loop"))
                    .with_help("loop iterators may only be changed by the loop step"))
            }
            None => return Err(self.undeclared(name, e.span)),
        };
        let v = &self.vars[var];
        if v.dims.len() != idx.len() {
            return Err(Diagnostic::new(
                e.span,
                format!("`{name}` has {} dimension(s) but is used with {} subscript(s)", v.dims.len(), idx.len()),
            )
            .with_help("access whole elements: one subscript per dimension"));
        }
        let index = idx.iter().map(|i| self.aff(i, Ctx::Subscript)).collect::<Result<Vec<_>>>()?;
        for (a, e) in index.iter().zip(idx) {
            few_divisions(a.divisions(), e.span, "subscript")?;
        }
        let v = &mut self.vars[var];
        if write {
            v.written = true;
        } else {
            v.read = true;
        }
        Ok(Access { var, index, span: e.span })
    }

    fn assignment(&mut self, e: &Expr, conds: &[Cond], sched: &[SchedTerm], pos: i64) -> Result<usize> {
        let mut reads = Vec::new();
        let (lhs, op, rhs_expr): (&Expr, Option<BinOp>, Option<&Expr>) = match &e.kind {
            ExprKind::Assign(op, l, r) => (l, *op, Some(r)),
            ExprKind::IncDec { delta, target, .. } => (target, Some(if *delta > 0 { BinOp::Add } else { BinOp::Sub }), None),
            ExprKind::Unsupported(what) => return Err(Diagnostic::new(e.span, format!("{what} are not supported"))),
            ExprKind::Call(f, _) => {
                return Err(Diagnostic::new(e.span, format!("a call to `{f}` as a statement is not supported"))
                    .with_help("kernel statements must be assignments; only the math functions are callable, inside expressions"))
            }
            _ => return Err(Diagnostic::new(e.span, "this statement has no effect; kernel statements must be assignments")),
        };
        if let ExprKind::Var(n) = &lhs.kind {
            if self.lookup_iter(n).is_some() {
                return Err(Diagnostic::new(lhs.span, format!("loop iterator `{n}` is modified inside its loop"))
                    .with_help("loop iterators may only be changed by the loop step"));
            }
        }
        let write = self.access(lhs, true)?;
        let target_ty = self.vars[write.var].ty;
        let body = match (op, rhs_expr) {
            (None, Some(r)) => self.texpr(r, &mut reads)?,
            (Some(op), r) => {
                let old_access = self.access(lhs, false)?;
                reads.push(old_access);
                let old = TExpr { kind: TKind::Read(0), ty: target_ty };
                let rhs = match r {
                    Some(r) => self.texpr(r, &mut reads)?,
                    None => TExpr { kind: TKind::Const(Value::Int(1)), ty: ScalarType::Int },
                };
                self.binary(op, old, rhs, e.span)?
            }
            (None, None) => unreachable!("an assignment always has a right-hand side"),
        };
        let stmt = Statement {
            name: format!("S{}", self.stmts.len()),
            iters: self.loops.iter().map(|l| l.name.clone()).collect(),
            domain: conds.to_vec(),
            schedule: sched.iter().copied().chain(std::iter::once(SchedTerm::Const(pos))).collect(),
            write,
            reads,
            body,
            span: e.span,
        };
        self.stmts.push(stmt);
        Ok(self.stmts.len() - 1)
    }

    fn binary(&self, op: BinOp, a: TExpr, b: TExpr, span: Span) -> Result<TExpr> {
        let common = ScalarType::common(a.ty, b.ty);
        let ty = match op {
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or => ScalarType::Int,
            BinOp::Rem | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr => {
                if common.is_float() {
                    return Err(Diagnostic::new(span, format!("`{}` needs integer operands", op.symbol()))
                        .with_help("use fmod-free formulations; floating-point `%` and bit operations are not C"));
                }
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    a.ty.promoted()
                } else {
                    common
                }
            }
            _ => common,
        };
        let conv = |x: TExpr, t: ScalarType| if x.ty == t { x } else { TExpr { ty: t, kind: TKind::Cast(Box::new(x)) } };
        let (a, b) = match op {
            BinOp::And | BinOp::Or => (a, b),
            BinOp::Shl | BinOp::Shr => (conv(a, ty), b),
            _ => (conv(a, common), conv(b, common)),
        };
        Ok(TExpr { kind: TKind::Binary(op, Box::new(a), Box::new(b)), ty })
    }

    fn texpr(&mut self, e: &Expr, reads: &mut Vec<Access>) -> Result<TExpr> {
        Ok(match &e.kind {
            ExprKind::Lit(Literal::Int(v, t)) => TExpr { kind: TKind::Const(Value::Long(*v).convert(*t)), ty: *t },
            ExprKind::Lit(Literal::Float(v)) => TExpr { kind: TKind::Const(Value::Float(*v)), ty: ScalarType::Float },
            ExprKind::Lit(Literal::Double(v)) => TExpr { kind: TKind::Const(Value::Double(*v)), ty: ScalarType::Double },
            ExprKind::Var(n) if self.lookup_iter(n).is_some() => {
                let d = self.lookup_iter(n).unwrap_or_default();
                TExpr { kind: TKind::Iter(d), ty: self.loops[d].ty }
            }
            ExprKind::Var(n) if matches!(self.names.get(n), Some(Name::Param(_))) => {
                let Some(Name::Param(p)) = self.names.get(n) else { unreachable!() };
                TExpr { kind: TKind::Param(*p), ty: ScalarType::Int }
            }
            ExprKind::Var(_) | ExprKind::Index(..) => {
                let acc = self.access(e, false)?;
                let ty = self.vars[acc.var].ty;
                // One read per distinct access: within a statement nothing is written before
                // its assignment, so a repeated access (`a < b ? a : b`, a macro's argument
                // used twice) is the same value, and a second read would be a second port,
                // channel and buffer for it in hardware.
                let r = match reads.iter().position(|q| q.var == acc.var && q.index == acc.index) {
                    Some(r) => r,
                    None => {
                        reads.push(acc);
                        reads.len() - 1
                    }
                };
                TExpr { kind: TKind::Read(r), ty }
            }
            ExprKind::Unary(op, a) => {
                let a = self.texpr(a, reads)?;
                let ty = match op {
                    UnOp::Not => ScalarType::Int,
                    UnOp::BitNot if a.ty.is_float() => return Err(Diagnostic::new(e.span, "`~` needs an integer operand")),
                    _ => a.ty.promoted(),
                };
                let a = if a.ty != ty && *op != UnOp::Not { TExpr { ty, kind: TKind::Cast(Box::new(a)) } } else { a };
                TExpr { kind: TKind::Unary(*op, Box::new(a)), ty }
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.texpr(a, reads)?, self.texpr(b, reads)?);
                self.binary(*op, a, b, e.span)?
            }
            ExprKind::Ternary(c, a, b) => {
                let c = self.texpr(c, reads)?;
                let (a, b) = (self.texpr(a, reads)?, self.texpr(b, reads)?);
                let ty = ScalarType::common(a.ty, b.ty);
                let conv = |x: TExpr| if x.ty == ty { x } else { TExpr { ty, kind: TKind::Cast(Box::new(x)) } };
                TExpr { kind: TKind::Ternary(Box::new(c), Box::new(conv(a)), Box::new(conv(b))), ty }
            }
            ExprKind::Cast(t, a) => {
                let a = self.texpr(a, reads)?;
                TExpr { kind: TKind::Cast(Box::new(a)), ty: *t }
            }
            ExprKind::Call(f, args) => {
                let Some(m) = MathFn::lookup(f) else {
                    return Err(Diagnostic::new(e.span, format!("call to `{f}` is not supported"))
                        .with_help(format!("the datapath supports {}", MathFn::NAMES)));
                };
                if args.len() != m.arity() {
                    return Err(Diagnostic::new(e.span, format!("`{f}` takes {} argument(s), {} given", m.arity(), args.len())));
                }
                let args = args
                    .iter()
                    .map(|a| {
                        let a = self.texpr(a, reads)?;
                        Ok(if a.ty == m.ty() { a } else { TExpr { ty: m.ty(), kind: TKind::Cast(Box::new(a)) } })
                    })
                    .collect::<Result<Vec<_>>>()?;
                TExpr { kind: TKind::Call(m, args), ty: m.ty() }
            }
            ExprKind::Assign(..) | ExprKind::IncDec { .. } => {
                return Err(Diagnostic::new(e.span, "assignments inside expressions are not supported")
                    .with_help("write one assignment per statement"))
            }
            ExprKind::Unsupported(what) => return Err(Diagnostic::new(e.span, format!("{what} are not supported"))),
        })
    }
}

/// `a = b = e` is two statements, `b = e` then `a = b` (C assigns right to left and the
/// value of `b = e` is `b` after the assignment).
fn split_chain(e: &Expr) -> Vec<Expr> {
    match &e.kind {
        ExprKind::Assign(op, l, r) if matches!(r.kind, ExprKind::Assign(..)) => {
            let ExprKind::Assign(_, inner_lhs, _) = &r.kind else { unreachable!("matched above") };
            let mut parts = split_chain(r);
            parts.push(Expr { kind: ExprKind::Assign(*op, l.clone(), inner_lhs.clone()), span: e.span });
            parts
        }
        _ => vec![e.clone()],
    }
}

#[cfg(test)]
mod tests {
    use crate::{load_str, Options, SourceMap};

    /// Initialisers of locals declared before the region run first in it, except those of
    /// loop iterators, which their loops set.
    #[test]
    fn initialisers_before_the_region_become_its_first_statements() {
        let text = "#define N 8\nvoid kernel_k(int n, double A[N], double B[N])\n{\n  int i = 0, j = 3;\n  double s = 0.5;\n#pragma scop\n  for (i = 0; i < n; i++)\n    B[i] = A[i] * s + j;\n#pragma endscop\n}\nint main(void) { static double A[N], B[N]; kernel_k(N, A, B); return 0; }\n";
        let mut sm = SourceMap::new();
        let p = load_str(&mut sm, "k.c", text, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
        let shown: Vec<String> = p.stmts.iter().map(|s| sm.snippet(s.span).to_string()).collect();
        assert_eq!(shown, ["j = 3", "s = 0.5", "B[i] = A[i] * s + j"]);
        assert!(matches!(p.stmts[2].schedule[0], super::SchedTerm::Const(2)), "the loop nest runs after the initialisers");
    }
}
