//! The software executor of a DPN: every process follows its own trace; channels hold at
//! most their computed size; DDR is an array store where a load waits for the version it
//! needs and a store waits until every load of the older version is done. Processes are
//! interleaved in a seeded random order, so different seeds exercise different timings.

use crate::ir::*;
use crate::trace::*;
use dpnc_frontend::eval::eval;
use dpnc_frontend::ir::Program;
use dpnc_frontend::value::Value;
use dpnc_frontend::Store;
use std::collections::{HashMap, VecDeque};

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub seed: u64,
    /// Debug: run channel `name` with this capacity instead of its computed size.
    pub shrink: Option<(String, usize)>,
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("deadlock: no process can make progress\n{0}")]
    Deadlock(String),
    #[error("{0}")]
    Kernel(String),
}

pub struct Outcome {
    /// The kernel's variables after the run (DDR contents).
    pub store: Store,
    /// Peak occupancy per channel.
    pub peak: Vec<usize>,
}

enum Buf {
    Fifo(VecDeque<(u64, Value)>),
    FifoReg(VecDeque<(u64, Value)>, Option<(u64, Value)>),
    Scratch(HashMap<u64, Value>),
}

impl Buf {
    fn len(&self) -> usize {
        match self {
            Buf::Fifo(q) => q.len(),
            Buf::FifoReg(q, r) => q.len() + r.is_some() as usize,
            Buf::Scratch(m) => m.len(),
        }
    }
    fn peek(&self, vid: u64) -> Option<Value> {
        match self {
            Buf::Fifo(q) => q.front().filter(|x| x.0 == vid).map(|x| x.1),
            Buf::FifoReg(q, r) => r.filter(|x| x.0 == vid).or_else(|| q.front().filter(|x| x.0 == vid).copied()).map(|x| x.1),
            Buf::Scratch(m) => m.get(&vid).copied(),
        }
    }
    /// Consumes one read of `vid` (present); frees it on its last read.
    fn take(&mut self, vid: u64, last: bool) {
        match self {
            Buf::Fifo(q) => {
                q.pop_front();
            }
            Buf::FifoReg(q, r) => {
                if r.is_none_or(|x| x.0 != vid) {
                    *r = q.pop_front();
                }
                if last {
                    *r = None;
                }
            }
            Buf::Scratch(m) => {
                if last {
                    m.remove(&vid);
                }
            }
        }
    }
    fn put(&mut self, vid: u64, v: Value) {
        match self {
            Buf::Fifo(q) | Buf::FifoReg(q, _) => q.push_back((vid, v)),
            Buf::Scratch(m) => {
                m.insert(vid, v);
            }
        }
    }
}

struct Machine<'a> {
    p: &'a Program,
    dpn: &'a Dpn,
    traces: &'a Traces,
    params: Vec<i64>,
    bufs: Vec<Buf>,
    caps: Vec<usize>,
    peak: Vec<usize>,
    ddr: Vec<Vec<Value>>,
    version: HashMap<(usize, usize), u32>,
    loads_done: HashMap<CellVersion, u32>,
    pc: Vec<usize>,
}

/// Why a process cannot take its next step.
enum Blocked {
    Empty(usize),
    Full(usize),
    Version(CellVersion),
}

pub fn run(p: &Program, dpn: &Dpn, traces: &Traces, inputs: &Store, opts: &Options) -> Result<Outcome, ExecError> {
    if traces.per_process.len() != dpn.processes.len() {
        return Err(ExecError::Kernel("the network was built without traces (Config::keep_traces)".into()));
    }
    let mut caps: Vec<usize> = dpn.channels.iter().map(|c| c.size.max(1)).collect();
    if let Some((name, cap)) = &opts.shrink {
        let ch =
            dpn.channels.iter().position(|c| &c.name == name).ok_or_else(|| ExecError::Kernel(format!("no channel named `{name}`")))?;
        caps[ch] = *cap;
    }
    let bufs = dpn
        .channels
        .iter()
        .map(|c| match c.kind {
            ChannelKind::Fifo => Buf::Fifo(VecDeque::new()),
            ChannelKind::FifoReg => Buf::FifoReg(VecDeque::new(), None),
            ChannelKind::Scratchpad => Buf::Scratch(HashMap::new()),
        })
        .collect();
    let mut m = Machine {
        p,
        dpn,
        traces,
        params: dpn.params.iter().map(|x| x.1).collect(),
        bufs,
        caps,
        peak: vec![0; dpn.channels.len()],
        ddr: inputs.data.clone(),
        version: HashMap::new(),
        loads_done: HashMap::new(),
        pc: vec![0; traces.per_process.len()],
    };
    let mut rng = opts.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let n = traces.per_process.len();
    loop {
        let mut progress = false;
        let start = (next() % n.max(1) as u64) as usize;
        for k in 0..n {
            let pi = (start + k) % n;
            let burst = 1 + next() % 64;
            for _ in 0..burst {
                match m.step(pi)? {
                    Ok(true) => progress = true,
                    Ok(false) | Err(_) => break,
                }
            }
        }
        if (0..n).all(|pi| m.done(pi)) {
            break;
        }
        if !progress {
            return Err(ExecError::Deadlock(m.report()));
        }
    }
    Ok(Outcome { store: Store { data: m.ddr }, peak: m.peak })
}

impl Machine<'_> {
    fn done(&self, pi: usize) -> bool {
        self.pc[pi] >= self.traces.per_process[pi].len()
    }

    /// Runs the next operation of process `pi` if it can: `Ok(Ok(true))` when it ran,
    /// `Ok(Ok(false))` when finished, `Ok(Err(why))` when blocked.
    fn step(&mut self, pi: usize) -> Result<Result<bool, Blocked>, ExecError> {
        if self.done(pi) {
            return Ok(Ok(false));
        }
        let pc = self.pc[pi];
        let r = match &self.traces.per_process[pi] {
            Trace::Compute { stmt, ops } => self.compute(*stmt, &ops[pc])?,
            Trace::Load { var, ops } => self.load(*var, &ops[pc]),
            Trace::Store { var, ops } => self.store(*var, &ops[pc]),
        };
        if r.is_ok() {
            self.pc[pi] += 1;
        }
        Ok(r.map(|()| true))
    }

    fn room(&self, ch: usize, freed: usize) -> bool {
        self.bufs[ch].len() - freed < self.caps[ch]
    }

    fn push(&mut self, ch: usize, vid: u64, v: Value) {
        self.bufs[ch].put(vid, v);
        self.peak[ch] = self.peak[ch].max(self.bufs[ch].len());
    }

    fn compute(&mut self, stmt: usize, op: &ComputeOp) -> Result<Result<(), Blocked>, ExecError> {
        let mut vals = Vec::with_capacity(op.reads.len());
        let mut freed: HashMap<usize, usize> = HashMap::new();
        for r in &op.reads {
            match *r {
                ReadSrc::Scalar { var } => vals.push(self.ddr[var][0]),
                ReadSrc::Chan { ch, vid, last } => match self.bufs[ch].peek(vid) {
                    Some(v) => {
                        vals.push(v);
                        if last || matches!(self.bufs[ch], Buf::Fifo(_)) {
                            *freed.entry(ch).or_default() += 1;
                        }
                    }
                    None => return Ok(Err(Blocked::Empty(ch))),
                },
            }
        }
        if let Some(&ch) = op.writes.iter().find(|&&ch| !self.room(ch, freed.get(&ch).copied().unwrap_or(0))) {
            return Ok(Err(Blocked::Full(ch)));
        }
        for r in &op.reads {
            if let ReadSrc::Chan { ch, vid, last } = *r {
                self.bufs[ch].take(vid, last);
            }
        }
        let s = &self.p.stmts[stmt];
        let mut read = |k: usize| Ok(vals[k]);
        let v =
            eval(&s.body, &op.iters, &self.params, &mut read).map_err(|e| ExecError::Kernel(format!("{}{:?}: {e:?}", s.name, op.iters)))?;
        let v = v.convert(self.p.vars[s.write.var].ty);
        for &ch in &op.writes {
            self.push(ch, op.vid, v);
        }
        Ok(Ok(()))
    }

    fn load(&mut self, var: usize, op: &LoadOp) -> Result<(), Blocked> {
        let wanted = CellVersion { var, cell: op.cell, version: op.version };
        if self.version.get(&(var, op.cell)).copied().unwrap_or(0) != op.version {
            return Err(Blocked::Version(wanted));
        }
        if let Some(&ch) = op.outs.iter().find(|&&ch| !self.room(ch, 0)) {
            return Err(Blocked::Full(ch));
        }
        let v = self.ddr[var][op.cell];
        for &ch in &op.outs {
            self.push(ch, op.vid, v);
        }
        *self.loads_done.entry(wanted).or_default() += 1;
        Ok(())
    }

    fn store(&mut self, var: usize, op: &StoreOp) -> Result<(), Blocked> {
        let Some(v) = self.bufs[op.ch].peek(op.vid) else { return Err(Blocked::Empty(op.ch)) };
        let old = CellVersion { var, cell: op.cell, version: op.version - 1 };
        let current = self.version.get(&(var, op.cell)).copied().unwrap_or(0);
        let needed = self.traces.loads_needed.get(&old).copied().unwrap_or(0);
        let done = self.loads_done.get(&old).copied().unwrap_or(0);
        if current != old.version || done < needed {
            return Err(Blocked::Version(old));
        }
        self.bufs[op.ch].take(op.vid, true);
        self.ddr[var][op.cell] = v;
        self.version.insert((var, op.cell), op.version);
        Ok(())
    }

    /// Who waits for what, for the deadlock message, and the processes that wait on one
    /// another in a cycle.
    fn report(&mut self) -> String {
        let mut lines = Vec::new();
        // (waiting process, process it waits for)
        let mut waits = Vec::new();
        for pi in 0..self.traces.per_process.len() {
            if self.done(pi) {
                continue;
            }
            let name = &self.dpn.processes[pi].name;
            let why = match self.step(pi) {
                Ok(Err(Blocked::Empty(ch))) => {
                    waits.push((pi, self.dpn.channels[ch].producer));
                    format!("waits to read `{}` (empty or not yet holding the value)", self.dpn.channels[ch].name)
                }
                Ok(Err(Blocked::Full(ch))) => {
                    waits.push((pi, self.dpn.channels[ch].consumer));
                    format!("waits to write `{}` (full: {}/{})", self.dpn.channels[ch].name, self.bufs[ch].len(), self.caps[ch])
                }
                Ok(Err(Blocked::Version(CellVersion { var, cell, version }))) => {
                    // For the store of that version, or for the loads of the one before.
                    waits.extend(self.dpn.memory_processes(var).into_iter().map(|q| (pi, q)));
                    let dims = &self.p.vars[var].dims;
                    format!(
                        "waits for DDR: {}{:?} at version {version}",
                        self.p.vars[var].name,
                        dpnc_frontend::store::unflatten(dims, cell)
                    )
                }
                _ => "is runnable".into(),
            };
            lines.push(format!("  {name} (at step {}) {why}", self.pc[pi]));
        }
        for cycle in crate::graph::wait_cycles(self.dpn.processes.len(), &waits) {
            let names: Vec<&str> = cycle.iter().map(|&q| self.dpn.processes[q].name.as_str()).collect();
            lines.push(format!("  waiting in a cycle: {}", names.join(" → ")));
        }
        lines.join("\n")
    }
}
