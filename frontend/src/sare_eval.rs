//! Executes the SARE itself: every statement instance is computed from the instances its
//! reads come from (dynamic single assignment), on demand, starting from the last writer of
//! every array cell. Nothing here follows the program's loop order or memory, so agreement
//! with the interpreter, bit for bit, shows that the dataflow is exact.

use crate::dataflow::{Origin, Sare};
use crate::diag::Diagnostic;
use crate::eval::eval;
use crate::interp::eval_error;
use crate::ir::Program;
use crate::store::{flatten, unflatten, Store};
use crate::value::Value;
use std::collections::{HashMap, HashSet};

type Instance = (usize, Vec<i64>);

/// Final values of all variables, from the initial values in `inputs`.
pub fn evaluate(p: &Program, sare: &Sare, params: &[i64], inputs: &Store) -> Result<Store, Diagnostic> {
    let mut ev = Evaluator { p, sare, params, inputs, memo: HashMap::new() };
    let mut out = inputs.clone();
    for (k, v) in p.vars.iter().enumerate() {
        let Some(flow) = &sare.finals[k] else { continue };
        for cell in 0..v.len() {
            let idx = unflatten(&v.dims, cell);
            out.data[k][cell] = match flow.origin(params, &idx) {
                Some(Origin::Stmt(s, inst)) => ev.value((s, inst))?,
                Some(Origin::Initial(_)) => inputs.data[k][cell],
                None => return Err(Diagnostic::bug(Some(v.span), format!("the dataflow gives no final value for {}{:?}", v.name, idx))),
            };
        }
    }
    Ok(out)
}

struct Evaluator<'a> {
    p: &'a Program,
    sare: &'a Sare,
    params: &'a [i64],
    inputs: &'a Store,
    memo: HashMap<Instance, Value>,
}

impl Evaluator<'_> {
    /// The value instance `root` writes, computing what it depends on first (an explicit
    /// stack: dependence chains are as long as the iteration space).
    fn value(&mut self, root: Instance) -> Result<Value, Diagnostic> {
        let mut stack = vec![root.clone()];
        let mut on_stack: HashSet<Instance> = HashSet::from([root.clone()]);
        while let Some(top) = stack.last().cloned() {
            if self.memo.contains_key(&top) {
                on_stack.remove(&top);
                stack.pop();
                continue;
            }
            let (k, inst) = &top;
            let s = &self.p.stmts[*k];
            let mut vals = Vec::with_capacity(s.reads.len());
            let mut missing = None;
            for r in 0..s.reads.len() {
                match self.sare.reads[*k][r].origin(self.params, inst) {
                    Some(Origin::Stmt(src, si)) => match self.memo.get(&(src, si.clone())) {
                        Some(v) => vals.push(Ok(*v)),
                        None => {
                            missing = Some((src, si));
                            break;
                        }
                    },
                    Some(Origin::Initial(idx)) => {
                        let a = &s.reads[r];
                        vals.push(
                            flatten(&self.p.vars[a.var].dims, &idx)
                                .map(|o| self.inputs.data[a.var][o])
                                .ok_or_else(|| crate::interp::out_of_bounds(self.p, a, &idx)),
                        );
                    }
                    None => {
                        return Err(Diagnostic::bug(
                            Some(s.reads[r].span),
                            format!("the dataflow gives no source for this read in {}{:?}", s.name, inst),
                        ));
                    }
                }
            }
            if let Some(dep) = missing {
                if !on_stack.insert(dep.clone()) {
                    return Err(Diagnostic::bug(Some(s.span), format!("cyclic dataflow through {}{:?}", self.p.stmts[dep.0].name, dep.1)));
                }
                stack.push(dep);
                continue;
            }
            let mut read = |r: usize| vals[r].clone();
            let v = eval(&s.body, inst, self.params, &mut read).map_err(|e| eval_error(s, e))?;
            self.memo.insert(top.clone(), v.convert(self.p.vars[s.write.var].ty));
            on_stack.remove(&top);
            stack.pop();
        }
        self.memo.get(&root).copied().ok_or_else(|| Diagnostic::bug(None, "instance not evaluated"))
    }
}
