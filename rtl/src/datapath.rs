//! The datapath of a statement: its right-hand side as one pipelined Verilog module built from
//! the hand-written cells in `cells/`, bit-exact with the reference evaluator
//! (`dpnc_frontend::eval`).
//!
//! **Ports**, in order: `clk`, `ce` (the pipeline advances when 1), `it_<iter>` (signed 64-bit,
//! one per statement iterator), `r<k>` (one per read reference, as wide as the variable's
//! element: char 8, int 32, long 64, float 32, double 64, floats as bit patterns) and `y`, the
//! body converted to the written variable's element type (what C stores). `y` holds the result
//! for the inputs presented [`Datapath::latency`] `ce` cycles earlier: every value in the module
//! advances only when `ce` = 1, and inputs presented while `ce` = 0 are ignored.
//!
//! **Timing.** The expression becomes a graph of operators, each with the cycle at which its
//! value is valid (inputs at 0). An operator starts when its latest operand is valid; earlier
//! operands are delayed by `dpn_delay` lines (one chain per signal, tapped at every delay some
//! user needs), so every path from an input to `y` crosses the same number of registers.
//! Latencies, chosen for about 300 MHz (`dpn_fadd`, `dpn_fmul`, `dpn_f2f`, `dpn_fdiv` and
//! `dpn_fsqrt` put their registers between their stages, the last two spread over their digit
//! steps; the other cells compute combinationally and end with a delay line that synthesis may
//! retime into the logic):
//!
//! | operator | binary32 | binary64 |
//! | --- | --- | --- |
//! | `+ -` (`dpn_fadd`): order, align and add, count the leading zeros, normalise and round; in binary64 the add split from the alignment and the rounding before its increment | 4 | 6 |
//! | `*` (`dpn_fmul`): the same with the partial products (DSP48E2s) and their sum first | 5 | 6 |
//! | `/` (`dpn_fdiv`), `sqrt` (`dpn_fsqrt`) | 16 | 30 |
//! | comparisons (`dpn_fcmp`), `fmin`/`fmax` (`dpn_fmin`/`dpn_fmax`) | 1 | 1 |
//! | integer → float (`dpn_i2f`) | 3 | 3 |
//! | float → float (`dpn_f2f`: classify and count, then normalise or round) | 2 | 2 |
//! | float → integer (`dpn_f2i`, 64-bit, then one register that fixes NaN and overflow) | 4 | 4 |
//!
//! Integer `*` (`dpn_imul`): 3 cycles for 32 bits, 4 for 64; `/` and `%` (`dpn_idiv`, one cell
//! for both when they share operands): 18 and 34, two quotient bits a cycle. Every other integer or logical operator
//! (`+ - & | ^ << >>`, comparisons, `&& || !`, ternary, integer negation and `abs`) is one
//! register. Free wiring takes no cycle: integer widening and narrowing, `~`, float negation
//! and `fabs` (sign bit), the truth value of an operand (folded into its user). Subexpressions
//! without iterators or reads are folded into constants with the evaluator itself; identical
//! subexpressions are built once. The latency is at least 1: a body that is pure wiring gets
//! one register before `y`; a constant body gives a constant `y` (latency 1 all the same).
//! Delaying a widened value (a comparison's 0/1 as an int, a sign extension) delays the narrow
//! value and widens it after. There is no reset: `y` means nothing until `latency` ce-cycles
//! after the first input.
//!
//! **Semantics** are the evaluator's (C with `-fwrapv` on x86-64): wrapping integer arithmetic,
//! shift counts masked to 5 or 6 bits, truncating `/` and `%` (`INT_MIN / -1` = `INT_MIN`,
//! remainder 0); division by zero is an error for the evaluator and gives the cell's values here
//! (quotient all ones, remainder the dividend). Float → integer conversion is the evaluator's:
//! to 64 bits saturating (NaN → 0), then wrapped to the target width (`dpn_f2i` gives x86's
//! 0x8000… for NaN and overflow, fixed by a register after it). `&&`, `||` and `?:` evaluate both
//! sides (bodies have no side effects). `fmin`/`fmax` are the cells', i.e. glibc's, what the
//! generated C calls; the evaluator as compiled (LLVM turns its calls into `minnum`/`maxnum`)
//! differs from glibc when both operands are NaNs, one is a signalling NaN, or they are +0 and -0
//! (tests/datapath.rs leaves such vectors out). `exp`, `pow`, `expf` and `powf` are dpnc's own
//! (`dpnc_frontend::mathlib`), expanded into the datapath as their programs of float cells and
//! wires (see `Graph::math`); their latency is the program's critical path (hundreds of
//! cycles; tests/math_fns.rs prints it).

use dpnc_frontend::eval::eval;
use dpnc_frontend::ir::{Aff, MathFn, TExpr, TKind};
use dpnc_frontend::ir::{BinOp, ScalarType, UnOp};
use dpnc_frontend::mathlib;
use dpnc_frontend::value::Value;
use dpnc_frontend::Program;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;
use std::path::PathBuf;

/// A statement's datapath as a Verilog module.
#[derive(Clone, Debug)]
pub struct Datapath {
    /// Verilog-2005 text of one module named `name`.
    pub module: String,
    pub name: String,
    /// Cycles from inputs to `y` when `ce` is held at 1.
    pub latency: u32,
    /// Per read (port `r<k>`), the cycles after the iterators and the other reads at which it
    /// enters: 0, or for a read asked to enter late, the cycle of its first use.
    pub arrival: Vec<u32>,
    /// The cell files (paths relative to rtl/cells) the module instantiates,
    /// transitively, sorted, deduplicated.
    pub cells: Vec<&'static str>,
}

/// Why a statement has no datapath.
#[derive(Debug, thiserror::Error)]
pub enum DatapathError {
    /// A size parameter without a value.
    #[error("{0}")]
    Parameter(String),
    #[error("statement {index} does not exist (the program has {count})")]
    NoStatement { index: usize, count: usize },
    #[error("`{0}` is not a valid Verilog module name")]
    BadName(String),
}

/// Absolute path of the cell directory, for tools.
pub fn cells_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cells")
}

/// The datapath of statement `stmt` of `p` (parameters fixed at `p.param_values()`), as module `name`.
pub fn statement(p: &Program, stmt: usize, name: &str) -> Result<Datapath, DatapathError> {
    vector(p, stmt, name, &Lanes { width: 1, steps: &[], shared: &[] }, &[])
}

/// The vector lanes a datapath computes at once ([`vector`]).
pub struct Lanes<'a> {
    /// Points per cycle.
    pub width: u32,
    /// Per statement iterator, how much it grows from one lane to the next.
    pub steps: &'a [i64],
    /// Per read reference, whether every lane reads the same value (one port value, not one
    /// per lane).
    pub shared: &'a [bool],
}

/// The datapath of statement `stmt` for `lanes.width` consecutive points at once, as module
/// `name`: the iterators are the first lane's, a read is one value per lane (lane k at bits
/// `k·w +: w`) or, where `lanes.shared` says so, one for all, and `y` holds each lane's result
/// likewise. A subexpression of values every lane shares (GEMM's `alpha * A[i][k]`) is built
/// once for all lanes.
///
/// A read that `late` marks enters as late as its first use allows ([`Datapath::arrival`]):
/// a running sum's operand (`q[i]` in `q[i] + A[i][j] * p[j]`) is wanted only by the adder,
/// after the multiply, so its process may take it that much later.
pub fn vector(p: &Program, stmt: usize, name: &str, lanes: &Lanes, late: &[bool]) -> Result<Datapath, DatapathError> {
    let s = p.stmts.get(stmt).ok_or(DatapathError::NoStatement { index: stmt, count: p.stmts.len() })?;
    if !valid_name(name) {
        return Err(DatapathError::BadName(name.to_string()));
    }
    let params = p.param_values().map_err(|d| DatapathError::Parameter(d.message.clone()))?;
    let mut arrival = vec![0; s.reads.len()];
    let mut low = lower(p, stmt, &params, lanes, &arrival)?;
    if late.iter().any(|&l| l) {
        let uses = low.g.uses(low.output);
        for (k, port) in low.reads.iter().enumerate().filter(|(k, _)| late.get(*k) == Some(&true)) {
            arrival[k] = uses[*port].first().copied().unwrap_or(0);
        }
        if arrival.iter().any(|&a| a > 0) {
            low = lower(p, stmt, &params, lanes, &arrival)?;
        }
    }
    let Lowered { g, inputs, output, .. } = low;
    let latency = output.latency;
    let n = lanes.width;

    let mut head = format!("// Datapath of statement {} of kernel `{}`: ", s.name, p.kernel);
    let names = Names { p, iters: &s.iters };
    let _ = write!(head, "{} = ", names.access(&s.write));
    let _ = writeln!(head, "{};", names.texpr(&s.body));
    for (k, a) in s.reads.iter().enumerate() {
        let when = match arrival[k] {
            0 => String::new(),
            d => format!(", {d} cycles after the others"),
        };
        let _ = writeln!(head, "//   r{k} = {} ({}{when})", names.access(a), p.vars[a.var].ty.c_name());
    }
    let _ = writeln!(
        head,
        "// y is the value stored ({}); latency {latency} cycles of ce = 1. Generated by dpnc.",
        p.vars[s.write.var].ty.c_name()
    );
    if n > 1 {
        let _ = writeln!(
            head,
            "// {n} vector lanes: lane k's values at bits k·w +: w of each read and of y (reads every lane shares: one value)."
        );
    }
    let (module, delay_lines) = g.emit(name, &head, &inputs, output);
    let mut cells = g.cells;
    // A process feeding a late read delays its issue-time value by as much (`process::late_operand`).
    if delay_lines || arrival.iter().any(|&a| a > 0) {
        cells.insert(DELAY);
    }
    let cells: Vec<&'static str> = cells.into_iter().collect();
    Ok(Datapath { module, name: name.to_string(), latency, arrival, cells })
}

/// A statement lowered into a graph: its inputs, its read ports' nodes and its output.
struct Lowered {
    g: Graph,
    inputs: Vec<Input>,
    reads: Vec<Id>,
    output: Output,
}

/// Statement `stmt` lowered for `lanes`, read k entering at cycle `arrival[k]`.
fn lower(p: &Program, stmt: usize, params: &[i64], lanes: &Lanes, arrival: &[u32]) -> Result<Lowered, DatapathError> {
    let s = &p.stmts[stmt];
    let mut g = Graph { nodes: Vec::new(), cse: HashMap::new(), cells: BTreeSet::new(), params: params.to_vec() };
    let n = lanes.width;
    let mut inputs: Vec<Input> = Vec::new();
    let iters: Vec<Id> = s
        .iters
        .iter()
        .map(|it| {
            inputs.push(Input { name: format!("it_{it}"), width: 64, signed: true });
            g.add(Kind::Port(format!("it_{it}"), 0), 64, vec![], false)
        })
        .collect();
    // Per read: its port, and whether each lane takes a slice of it.
    let reads: Vec<(Id, ScalarType, bool)> = s
        .reads
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let ty = p.vars[a.var].ty;
            let sliced = n > 1 && !lanes.shared.get(k).copied().unwrap_or(false);
            let w = if sliced { width(ty) * n } else { width(ty) };
            inputs.push(Input { name: format!("r{k}"), width: w, signed: false });
            (g.add(Kind::Port(format!("r{k}"), arrival.get(k).copied().unwrap_or(0)), w, vec![], false), ty, sliced)
        })
        .collect();
    let out_ty = p.vars[s.write.var].ty;
    let mut ys = Vec::new();
    for lane in 0..n {
        let offset = |d: usize| lanes.steps.get(d).copied().unwrap_or(0) * lane as i64;
        let iters = iters
            .iter()
            .enumerate()
            .map(|(d, &id)| match offset(d) {
                0 => id,
                o if o > 0 => g.add(Kind::Wire(format!("$0 + 64'sd{o}")), 64, vec![id], false),
                o => g.add(Kind::Wire(format!("$0 - 64'sd{}", -o)), 64, vec![id], false),
            })
            .collect();
        let reads = reads
            .iter()
            .map(|&(id, ty, sliced)| match sliced {
                false => (id, ty),
                true => {
                    let w = width(ty);
                    (g.add(Kind::Wire(format!("$0[{}:{}]", w * (lane + 1) - 1, w * lane)), w, vec![id], true), ty)
                }
            })
            .collect();
        let body = g.lower(&s.body, &Ports { iters, reads })?;
        ys.push(g.convert(body, out_ty));
    }
    let y = match n {
        1 => ys[0].id,
        _ => {
            let parts: Vec<String> = (0..ys.len()).rev().map(|k| format!("${k}")).collect();
            g.add(Kind::Wire(format!("{{{}}}", parts.join(", "))), width(out_ty) * n, ys.iter().map(|v| v.id).collect(), false)
        }
    };
    // Every lane's result is ready at the same cycle: the lanes are one expression each.
    let t = ys.iter().filter_map(|v| g.nodes[v.id].t).max();
    let latency = t.unwrap_or(1).max(1);
    let output = Output { node: y, latency, width: width(out_ty) * n };
    Ok(Lowered { g, inputs, reads: reads.iter().map(|r| r.0).collect(), output })
}

fn valid_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(c) if c.is_ascii_alphabetic() || c == '_') && c.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

use crate::verilog::bits as width;

/// Exponent and fraction widths of a float type.
fn format(ty: ScalarType) -> (u32, u32) {
    if ty == ScalarType::Float {
        (8, 23)
    } else {
        (11, 52)
    }
}

// Latencies (see the table in the module documentation); index 0 binary32, 1 binary64.
// binary32 does not split the rounding: a chain of additions across sub-bands pays a cycle
// per link for each stage (BiCG SMALL at 16×1 with the split in both: 3,885 → 4,064 cycles).
const FADD: [u32; 2] = [4, 6];
const FMUL: [u32; 2] = [5, 6];
const FDIV: [u32; 2] = [16, 30];
const FSQRT: [u32; 2] = [16, 30];
const FCMP: u32 = 1;
const FMINMAX: u32 = 1;
const I2F: u32 = 3;
const F2I: u32 = 3;
const F2F: u32 = 2;
/// 32-bit, 64-bit.
const IMUL: [u32; 2] = [3, 4];
const IDIV: [u32; 2] = [18, 34];

fn fi(ty: ScalarType) -> usize {
    (ty == ScalarType::Double) as usize
}
fn ii(ty: ScalarType) -> usize {
    (ty == ScalarType::Long) as usize
}

type Id = usize;

#[derive(Clone, Debug)]
enum Kind {
    /// A module input (its name), valid at the cycle given: 0, or later for a read that
    /// enters late ([`Datapath::arrival`]).
    Port(String, u32),
    /// A constant (its bits), valid at every cycle.
    Const(u64),
    /// A combinational function of the operands (`$0`, `$1`, … in the text), no register.
    Wire(String),
    /// A combinational function of the operands followed by one register.
    Reg(String),
    /// A cell instance; this node is its output bus.
    Cell(Cell),
}

#[derive(Clone, Debug)]
struct Cell {
    /// Its file under cells/; the module is the file's stem.
    file: &'static str,
    /// Helper files it needs.
    extra: &'static [&'static str],
    params: Vec<(&'static str, u32)>,
    /// Input pins and their connection (operands as `$k`, or constants).
    inputs: Vec<(&'static str, String)>,
    /// Output pins and the part of the bus they drive (`hi`, `lo`).
    outputs: Vec<(&'static str, u32, u32)>,
    latency: u32,
}

struct Node {
    kind: Kind,
    width: u32,
    ops: Vec<Id>,
    /// Uses only some bits of its operands (they go to the `unused` sink, for lint).
    partial: bool,
    /// Cycle at which the value is valid; `None` for constants.
    t: Option<u32>,
}

impl Node {
    /// The cycle at which the node's logic takes its operands.
    fn start(&self) -> Option<u32> {
        match (&self.kind, self.t) {
            (Kind::Reg(_), Some(t)) => Some(t - 1),
            (Kind::Cell(c), Some(t)) => Some(t - c.latency),
            (_, t) => t,
        }
    }
}

/// A typed value of the datapath.
#[derive(Clone, Copy, Debug)]
struct Val {
    id: Id,
    ty: ScalarType,
}

/// What an expression is lowered over: the iterators' and the reads' values.
struct Ports {
    iters: Vec<Id>,
    reads: Vec<(Id, ScalarType)>,
}

/// An input port of the module, after `clk` and `ce`.
struct Input {
    name: String,
    width: u32,
    signed: bool,
}

struct Graph {
    nodes: Vec<Node>,
    cse: HashMap<String, Id>,
    cells: BTreeSet<&'static str>,
    params: Vec<i64>,
}

const FP_ROUND: &str = "fp/dpn_fp_round.v";
const FP_UNPACK: &str = "fp/dpn_fp_unpack.v";
const DELAY: &str = "dpn_delay.v";

/// A datapath's output `y`: node `node`, delayed to cycle `latency`, `width` bits.
#[derive(Clone, Copy)]
struct Output {
    node: Id,
    latency: u32,
    width: u32,
}

impl Graph {
    fn add(&mut self, kind: Kind, width: u32, ops: Vec<Id>, partial: bool) -> Id {
        let key = format!("{kind:?}|{width}|{ops:?}");
        if let Some(&id) = self.cse.get(&key) {
            return id;
        }
        let start = ops.iter().filter_map(|&o| self.nodes[o].t).max();
        let t = match &kind {
            Kind::Port(_, at) => Some(*at),
            Kind::Const(_) => None,
            Kind::Wire(_) => start,
            Kind::Reg(_) => Some(start.unwrap_or(0) + 1),
            Kind::Cell(c) => {
                self.cells.insert(c.file);
                self.cells.extend(c.extra.iter().copied());
                self.cells.insert(DELAY);
                Some(start.unwrap_or(0) + c.latency)
            }
        };
        self.nodes.push(Node { kind, width, ops, partial, t });
        self.cse.insert(key, self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    fn konst(&mut self, v: Value) -> Val {
        let id = self.add(Kind::Const(v.bits()), width(v.ty()), vec![], false);
        Val { id, ty: v.ty() }
    }
    fn wire(&mut self, ty: ScalarType, text: String, ops: Vec<Id>, partial: bool) -> Val {
        Val { id: self.add(Kind::Wire(text), width(ty), ops, partial), ty }
    }
    fn reg(&mut self, ty: ScalarType, text: String, ops: Vec<Id>, partial: bool) -> Val {
        Val { id: self.add(Kind::Reg(text), width(ty), ops, partial), ty }
    }
    /// A single-output cell (pin `y`) of result type `ty`.
    fn cell(&mut self, ty: ScalarType, mut c: Cell, ops: Vec<Id>) -> Val {
        c.outputs = vec![("y", width(ty) - 1, 0)];
        Val { id: self.add(Kind::Cell(c), width(ty), ops, false), ty }
    }

    /// A one-bit result (`text`, registered) as an int 0 or 1.
    fn flag(&mut self, text: String, ops: Vec<Id>, partial: bool) -> Val {
        let bit = self.add(Kind::Reg(text), 1, ops, partial);
        self.wire(ScalarType::Int, "{31'd0, $0}".into(), vec![bit], false)
    }

    /// `e` as a constant when it has no iterator or read and the evaluator defines it.
    fn fold(&self, e: &TExpr) -> Option<Value> {
        fn pure(e: &TExpr) -> bool {
            match &e.kind {
                TKind::Const(_) | TKind::Param(_) => true,
                TKind::Iter(_) | TKind::Read(_) => false,
                TKind::Cast(a) | TKind::Unary(_, a) => pure(a),
                TKind::Binary(_, a, b) => pure(a) && pure(b),
                TKind::Ternary(c, a, b) => pure(c) && pure(a) && pure(b),
                TKind::Call(_, args) => args.iter().all(pure),
            }
        }
        if !pure(e) {
            return None;
        }
        eval(e, &[], &self.params, &mut |_| Err(String::new())).ok()
    }

    fn lower(&mut self, e: &TExpr, ports: &Ports) -> Result<Val, DatapathError> {
        if let Some(v) = self.fold(e) {
            return Ok(self.konst(v));
        }
        let ty = e.ty;
        Ok(match &e.kind {
            TKind::Const(v) => self.konst(*v),
            TKind::Param(p) => self.konst(Value::Long(self.params[*p]).convert(ty)),
            TKind::Iter(d) => self.convert(Val { id: ports.iters[*d], ty: ScalarType::Long }, ty),
            TKind::Read(k) => {
                let (id, rty) = ports.reads[*k];
                self.convert(Val { id, ty: rty }, ty)
            }
            TKind::Cast(a) => {
                let a = self.lower(a, ports)?;
                self.convert(a, ty)
            }
            TKind::Unary(op, a) => {
                let a = self.lower(a, ports)?;
                match op {
                    UnOp::Plus => self.convert(a, ty),
                    UnOp::Not => self.flag(format!("!{}", truth(a.ty, 0)), vec![a.id], a.ty.is_float()),
                    UnOp::Neg => {
                        let a = self.convert(a, ty);
                        if ty.is_float() {
                            let w = width(ty);
                            self.wire(ty, format!("{{~$0[{}], $0[{}:0]}}", w - 1, w - 2), vec![a.id], false)
                        } else {
                            self.reg(ty, "-$0".into(), vec![a.id], false)
                        }
                    }
                    UnOp::BitNot => {
                        let a = self.convert(a, ty);
                        self.wire(ty, "~$0".into(), vec![a.id], false)
                    }
                }
            }
            TKind::Binary(op, a, b) => {
                let (a, b) = (self.lower(a, ports)?, self.lower(b, ports)?);
                self.binary(*op, a, b, ty)
            }
            TKind::Ternary(c, a, b) => {
                let c = self.lower(c, ports)?;
                let a = self.lower(a, ports)?;
                let b = self.lower(b, ports)?;
                let (a, b) = (self.convert(a, ty), self.convert(b, ty));
                let t = truth(c.ty, 0);
                self.reg(ty, format!("{t} ? $1 : $2"), vec![c.id, a.id, b.id], c.ty.is_float())
            }
            TKind::Call(f, args) => {
                let mut v = Vec::new();
                for a in args {
                    let x = self.lower(a, ports)?;
                    v.push(self.convert(x, f.ty()));
                }
                let fty = f.ty();
                if let Some(own) = mathlib::Fn::of(*f) {
                    let ids: Vec<Id> = v.iter().map(|x| x.id).collect();
                    return Ok(Val { id: self.math(mathlib::program(own), &ids), ty: fty });
                }
                let (ew, mw) = format(fty);
                let fp = vec![("EW", ew), ("MW", mw)];
                match f {
                    MathFn::Sqrt | MathFn::Sqrtf => {
                        let c = cell("fp/dpn_fsqrt.v", &[FP_ROUND, FP_UNPACK], fp, &[("a", 0)], FSQRT[fi(fty)]);
                        self.cell(fty, c, vec![v[0].id])
                    }
                    MathFn::Fabs | MathFn::Fabsf => {
                        let w = width(fty);
                        self.wire(fty, format!("{{1'b0, $0[{}:0]}}", w - 2), vec![v[0].id], true)
                    }
                    MathFn::Fmin | MathFn::Fminf | MathFn::Fmax | MathFn::Fmaxf => {
                        let m = if matches!(f, MathFn::Fmin | MathFn::Fminf) { "fp/dpn_fmin.v" } else { "fp/dpn_fmax.v" };
                        let c = cell(m, &[], fp, &[("a", 0), ("b", 1)], FMINMAX);
                        self.cell(fty, c, vec![v[0].id, v[1].id])
                    }
                    // Integer abs (wrapping: abs(INT_MIN) = INT_MIN).
                    _ => self.reg(ScalarType::Int, "$0[31] ? -$0 : $0".into(), vec![v[0].id], false),
                }
            }
        })
    }

    fn binary(&mut self, op: BinOp, a: Val, b: Val, ty: ScalarType) -> Val {
        use BinOp::*;
        match op {
            And | Or => {
                let sym = if op == And { "&&" } else { "||" };
                let text = format!("{} {sym} {}", truth(a.ty, 0), truth(b.ty, 1));
                self.flag(text, vec![a.id, b.id], a.ty.is_float() || b.ty.is_float())
            }
            Lt | Le | Gt | Ge | Eq | Ne => {
                let common = ScalarType::common(a.ty, b.ty);
                let (a, b) = (self.convert(a, common), self.convert(b, common));
                if common.is_float() {
                    let (ew, mw) = format(common);
                    let mut c = cell("fp/dpn_fcmp.v", &[], vec![("EW", ew), ("MW", mw)], &[("a", 0), ("b", 1)], FCMP);
                    c.outputs = vec![("lt", 5, 5), ("le", 4, 4), ("gt", 3, 3), ("ge", 2, 2), ("eq", 1, 1), ("ne", 0, 0)];
                    let flags = self.add(Kind::Cell(c), 6, vec![a.id, b.id], false);
                    let bit = match op {
                        Lt => 5,
                        Le => 4,
                        Gt => 3,
                        Ge => 2,
                        Eq => 1,
                        _ => 0,
                    };
                    let b = self.add(Kind::Wire(format!("$0[{bit}]")), 1, vec![flags], true);
                    self.wire(ScalarType::Int, "{31'd0, $0}".into(), vec![b], false)
                } else {
                    let text = match op {
                        Eq => "$0 == $1".to_string(),
                        Ne => "$0 != $1".to_string(),
                        _ => format!("$signed($0) {} $signed($1)", op.symbol()),
                    };
                    self.flag(text, vec![a.id, b.id], false)
                }
            }
            Shl | Shr => {
                let a = self.convert(a, ty);
                let bits = if ty == ScalarType::Long { 5 } else { 4 };
                let text = if op == Shl { format!("$0 << $1[{bits}:0]") } else { format!("$signed($0) >>> $1[{bits}:0]") };
                self.reg(ty, text, vec![a.id, b.id], true)
            }
            _ => {
                let (a, b) = (self.convert(a, ty), self.convert(b, ty));
                let ops = vec![a.id, b.id];
                if ty.is_float() {
                    let (ew, mw) = format(ty);
                    let fp = vec![("EW", ew), ("MW", mw)];
                    let c = match op {
                        Add | Sub => {
                            let mut c = cell("fp/dpn_fadd.v", &[], fp, &[("a", 0), ("b", 1)], FADD[fi(ty)]);
                            c.inputs.push(("sub", if op == Sub { "1'b1" } else { "1'b0" }.into()));
                            c
                        }
                        Mul => cell("fp/dpn_fmul.v", &[], fp, &[("a", 0), ("b", 1)], FMUL[fi(ty)]),
                        _ => cell("fp/dpn_fdiv.v", &[FP_ROUND, FP_UNPACK], fp, &[("a", 0), ("b", 1)], FDIV[fi(ty)]),
                    };
                    return self.cell(ty, c, ops);
                }
                let w = width(ty);
                match op {
                    Mul => {
                        let c = cell("int/dpn_imul.v", &[], vec![("IW", w)], &[("a", 0), ("b", 1)], IMUL[ii(ty)]);
                        self.cell(ty, c, ops)
                    }
                    Div | Rem => {
                        let mut c = cell("int/dpn_idiv.v", &[], vec![("IW", w)], &[("a", 0), ("b", 1)], IDIV[ii(ty)]);
                        c.outputs = vec![("q", 2 * w - 1, w), ("r", w - 1, 0)];
                        let qr = self.add(Kind::Cell(c), 2 * w, ops, false);
                        let text = if op == Div { format!("$0[{}:{w}]", 2 * w - 1) } else { format!("$0[{}:0]", w - 1) };
                        self.wire(ty, text, vec![qr], true)
                    }
                    _ => {
                        let sym = match op {
                            Add => "+",
                            Sub => "-",
                            BitAnd => "&",
                            BitOr => "|",
                            _ => "^",
                        };
                        self.reg(ty, format!("$0 {sym} $1"), ops, false)
                    }
                }
            }
        }
    }

    /// dpnc's math function `p` on `args`, expanded operation by operation into this datapath
    /// rather than instantiated as a module of its own: its cells are then balanced with the rest
    /// of the statement by the same delay lines, operations on constant operands (`pow(s, 1.0/3)`:
    /// everything that depends on y only) fold away, and no generated file must be kept in step
    /// with the program. binary64 operations are the float cells, comparisons `dpn_fcmp`,
    /// conversions `dpn_f2f`; selects, integer `+ -` and signed compares are one register;
    /// reinterpretations, masks, constant shifts, bit picks and boolean logic are wires.
    fn math(&mut self, p: &mathlib::Program, args: &[Id]) -> Id {
        use mathlib::{Op, Ty};
        let w = |t: Ty| match t {
            Ty::F64 | Ty::U64 => 64,
            Ty::F32 => 32,
            Ty::Bool => 1,
        };
        let d = vec![("EW", 11), ("MW", 52)];
        let mut ids: Vec<Id> = Vec::with_capacity(p.ops.len());
        let mut known: Vec<Option<u64>> = Vec::with_capacity(p.ops.len());
        for &(op, t) in &p.ops {
            let args_of = mathlib::operands(op);
            let ops: Vec<Id> = args_of.iter().map(|a| ids[a.0]).collect();
            let all_known = !ops.is_empty() && args_of.iter().all(|a| known[a.0].is_some());
            let (id, k) = match op {
                Op::Arg(a) => {
                    let k = match self.nodes[args[a]].kind {
                        Kind::Const(c) => Some(c),
                        _ => None,
                    };
                    (args[a], k)
                }
                Op::Const(c) => (self.add(Kind::Const(c), w(t), vec![], false), Some(c)),
                _ if all_known => {
                    let vals: Vec<u64> = known.iter().map(|k| k.unwrap_or(0)).collect();
                    let c = mathlib::apply(op, &vals);
                    (self.add(Kind::Const(c), w(t), vec![], false), Some(c))
                }
                Op::Select(c, a, b) if known[c.0].is_some() => {
                    let x = if known[c.0] == Some(0) { b } else { a };
                    (ids[x.0], known[x.0])
                }
                Op::Bits(_) | Op::Float(_) => (ops[0], None),
                Op::Add(..) | Op::Sub(..) => {
                    let mut c = cell("fp/dpn_fadd.v", &[], d.clone(), &[("a", 0), ("b", 1)], FADD[1]);
                    c.inputs.push(("sub", if matches!(op, Op::Sub(..)) { "1'b1" } else { "1'b0" }.into()));
                    (self.cell(ScalarType::Double, c, ops).id, None)
                }
                Op::Mul(..) => {
                    let c = cell("fp/dpn_fmul.v", &[], d.clone(), &[("a", 0), ("b", 1)], FMUL[1]);
                    (self.cell(ScalarType::Double, c, ops).id, None)
                }
                Op::Div(..) => {
                    let c = cell("fp/dpn_fdiv.v", &[FP_ROUND, FP_UNPACK], d.clone(), &[("a", 0), ("b", 1)], FDIV[1]);
                    (self.cell(ScalarType::Double, c, ops).id, None)
                }
                Op::Lt(..) | Op::Eq(..) => {
                    let mut c = cell("fp/dpn_fcmp.v", &[], d.clone(), &[("a", 0), ("b", 1)], FCMP);
                    c.outputs = vec![("lt", 5, 5), ("le", 4, 4), ("gt", 3, 3), ("ge", 2, 2), ("eq", 1, 1), ("ne", 0, 0)];
                    let flags = self.add(Kind::Cell(c), 6, ops, false);
                    let bit = if matches!(op, Op::Lt(..)) { 5 } else { 1 };
                    (self.add(Kind::Wire(format!("$0[{bit}]")), 1, vec![flags], true), None)
                }
                Op::Select(..) => (self.add(Kind::Reg("$0 ? $1 : $2".into()), w(t), ops, false), None),
                Op::And(..) | Op::IAnd(..) => (self.add(Kind::Wire("$0 & $1".into()), w(t), ops, false), None),
                Op::Or(..) | Op::IOr(..) => (self.add(Kind::Wire("$0 | $1".into()), w(t), ops, false), None),
                Op::Xor(..) => (self.add(Kind::Wire("$0 ^ $1".into()), 1, ops, false), None),
                Op::Not(..) => (self.add(Kind::Wire("~$0".into()), 1, ops, false), None),
                Op::IAdd(..) => (self.add(Kind::Reg("$0 + $1".into()), 64, ops, false), None),
                Op::ISub(..) => (self.add(Kind::Reg("$0 - $1".into()), 64, ops, false), None),
                Op::Shl(_, n) => (self.add(Kind::Wire(format!("{{$0[{}:0], {n}'d0}}", 63 - n)), 64, ops, true), None),
                Op::Shr(_, n) => (self.add(Kind::Wire(format!("{{{n}'d0, $0[63:{n}]}}")), 64, ops, true), None),
                Op::Bit(_, n) => (self.add(Kind::Wire(format!("$0[{n}]")), 1, ops, true), None),
                Op::ILt(..) => (self.add(Kind::Reg("$signed($0) < $signed($1)".into()), 1, ops, false), None),
                Op::Widen(..) | Op::Narrow(..) => {
                    let (i, o) = if matches!(op, Op::Widen(..)) { ((8, 23), (11, 52)) } else { ((11, 52), (8, 23)) };
                    let params = vec![("EWI", i.0), ("MWI", i.1), ("EWO", o.0), ("MWO", o.1)];
                    let c = cell("fp/dpn_f2f.v", &[], params, &[("a", 0)], F2F);
                    let ty = if matches!(op, Op::Widen(..)) { ScalarType::Double } else { ScalarType::Float };
                    (self.cell(ty, c, ops).id, None)
                }
            };
            ids.push(id);
            known.push(k);
        }
        ids[p.result.0]
    }

    /// C conversion of `v` to `to` (the evaluator's `Value::convert`).
    fn convert(&mut self, v: Val, to: ScalarType) -> Val {
        let from = v.ty;
        if from == to {
            return v;
        }
        let (wf, wt) = (width(from), width(to));
        match (from.is_float(), to.is_float()) {
            (false, false) if wt < wf => self.wire(to, format!("$0[{}:0]", wt - 1), vec![v.id], true),
            (false, false) => self.wire(to, format!("{{{{{}{{$0[{}]}}}}, $0}}", wt - wf, wf - 1), vec![v.id], false),
            (false, true) => {
                let v = if wf < 32 { self.convert(v, ScalarType::Int) } else { v };
                let (ew, mw) = format(to);
                let c = cell("fp/dpn_i2f.v", &[FP_ROUND], vec![("EW", ew), ("MW", mw), ("IW", width(v.ty))], &[("a", 0)], I2F);
                self.cell(to, c, vec![v.id])
            }
            (true, false) => {
                // The evaluator converts to 64 bits first, saturating with NaN giving 0, then wraps.
                let (ew, mw) = format(from);
                let w = wf - 1;
                let flags = self.add(
                    Kind::Wire(format!("{{&$0[{}:{mw}] && |$0[{}:0], ~$0[{w}]}}", w - 1, mw - 1)), // {is NaN, is positive}
                    2,
                    vec![v.id],
                    false,
                );
                let c = cell("fp/dpn_f2i.v", &[], vec![("EW", ew), ("MW", mw), ("IW", 64)], &[("a", 0)], F2I);
                let raw = self.cell(ScalarType::Long, c, vec![v.id]);
                let text = "$1[1] ? 64'd0 : ($1[0] && $0 == 64'h8000000000000000) ? 64'h7fffffffffffffff : $0";
                let long = self.reg(ScalarType::Long, text.into(), vec![raw.id, flags], true);
                self.convert(long, to)
            }
            (true, true) => {
                let ((ewi, mwi), (ewo, mwo)) = (format(from), format(to));
                let params = vec![("EWI", ewi), ("MWI", mwi), ("EWO", ewo), ("MWO", mwo)];
                let c = cell("fp/dpn_f2f.v", &[], params, &[("a", 0)], F2F);
                self.cell(to, c, vec![v.id])
            }
        }
    }

    /// Whether node `id` is a widening wire (narrower operands than result, e.g. a flag
    /// extended to an int): it is delayed by delaying its operands and repeating the wire.
    fn widening(&self, id: Id) -> bool {
        matches!(self.nodes[id].kind, Kind::Wire(_))
            && self.nodes[id].ops.iter().map(|&o| self.nodes[o].width).sum::<u32>() < self.nodes[id].width
    }

    /// The delays at which each node is used (0: undelayed), from its users' start cycles and
    /// the output.
    fn uses(&self, output: Output) -> Vec<BTreeSet<u32>> {
        let Output { node: out, latency, .. } = output;
        let mut uses: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); self.nodes.len()];
        uses[out].insert(self.nodes[out].t.map_or(0, |t| latency - t));
        for id in (0..self.nodes.len()).rev() {
            let node = &self.nodes[id];
            if uses[id].is_empty() {
                continue;
            }
            let extra: Vec<u32> = if self.widening(id) { uses[id].iter().copied().collect() } else { vec![0] };
            for &o in &node.ops {
                for &d in &extra {
                    uses[o].insert(match (node.start(), self.nodes[o].t) {
                        (Some(s), Some(t)) => s + d - t,
                        _ => 0,
                    });
                }
            }
        }
        uses
    }

    /// The module text; its output `y` is `output`.
    fn emit(&self, name: &str, head: &str, inputs: &[Input], output: Output) -> (String, bool) {
        let Output { node: out, latency, width: wy } = output;
        let uses = self.uses(output);
        let widening = |id: Id| self.widening(id);
        let base = |id: Id| match &self.nodes[id].kind {
            Kind::Port(p, _) => p.clone(),
            _ => format!("n{id}"),
        };
        // `id` as seen `d` cycles after it is valid.
        let at = |id: Id, d: u32| if d == 0 || self.nodes[id].t.is_none() { base(id) } else { format!("n{id}_d{d}") };
        let range = |w: u32| if w == 1 { String::new() } else { format!("[{}:0] ", w - 1) };

        let mut body = String::new();
        let mut unused: Vec<String> = Vec::new();
        let mut delay_lines = false;
        let mut sequential = false;
        for (id, node) in self.nodes.iter().enumerate() {
            if uses[id].is_empty() && !matches!(node.kind, Kind::Port(..)) {
                continue;
            }
            let s = node.start();
            // Operand names when the node's logic runs `d` cycles late.
            let names = |d: u32| -> Vec<String> {
                node.ops
                    .iter()
                    .map(|&o| match (self.nodes[o].t, s) {
                        (Some(t), Some(s)) => at(o, s + d - t),
                        _ => base(o),
                    })
                    .collect()
            };
            let w = node.width;
            let widen = widening(id);
            let copies: Vec<u32> = if widen { uses[id].iter().copied().collect() } else { vec![0] };
            for d in copies {
                let names = names(d);
                if node.partial {
                    unused.extend(names.iter().cloned());
                }
                let me = at(id, d);
                match &node.kind {
                    Kind::Port(..) => {}
                    Kind::Const(bits) => {
                        let _ = writeln!(body, "    wire {}{me} = {w}'h{bits:x};", range(w));
                    }
                    Kind::Wire(text) => {
                        let _ = writeln!(body, "    wire {}{me} = {};", range(w), subst(text, &names));
                    }
                    Kind::Reg(text) => {
                        sequential = true;
                        let _ = writeln!(body, "    reg {}{me};", range(w));
                        let _ = writeln!(body, "    always @(posedge clk) if (ce) {me} <= {};", subst(text, &names));
                    }
                    Kind::Cell(c) => {
                        sequential = true;
                        let _ = writeln!(body, "    wire {}{me};", range(w));
                        let mut params: Vec<String> = c.params.iter().map(|(p, v)| format!(".{p}({v})")).collect();
                        params.push(format!(".LATENCY({})", c.latency));
                        let mut pins = vec![".clk(clk)".to_string(), ".ce(ce)".to_string()];
                        pins.extend(c.inputs.iter().map(|(p, v)| format!(".{p}({})", subst(v, &names))));
                        for &(p, hi, lo) in &c.outputs {
                            let part = match (hi + 1 == w && lo == 0, hi == lo) {
                                (true, _) => me.clone(),
                                (_, true) => format!("{me}[{hi}]"),
                                _ => format!("{me}[{hi}:{lo}]"),
                            };
                            pins.push(format!(".{p}({part})"));
                        }
                        let file = c.file.rsplit('/').next().unwrap_or(c.file);
                        let module = file.strip_suffix(".v").unwrap_or(file);
                        let _ = writeln!(body, "    {module} #({}) u_{me} ({});", params.join(", "), pins.join(", "));
                    }
                }
            }
            if widen || node.t.is_none() {
                continue;
            }
            // The node's delay line, tapped at every delay its users need.
            let mut prev = (0, base(id));
            for &d in uses[id].iter().filter(|&&d| d > 0) {
                delay_lines = true;
                let q = at(id, d);
                let _ = writeln!(body, "    wire {}{q};", range(w));
                let _ = writeln!(
                    body,
                    "    dpn_delay #(.W({w}), .LATENCY({})) u_{q} (.clk(clk), .ce(ce), .d({}), .q({q}));",
                    d - prev.0,
                    prev.1
                );
                prev = (d, q);
            }
        }
        let y = match self.nodes[out].t {
            Some(t) => at(out, latency - t),
            None => base(out),
        };
        for (id, node) in self.nodes.iter().enumerate() {
            if matches!(node.kind, Kind::Port(..)) && uses[id].is_empty() {
                unused.push(base(id));
            }
        }
        if !sequential && !delay_lines {
            unused.extend(["clk".to_string(), "ce".to_string()]);
        }
        unused.sort();
        unused.dedup();

        let mut m = head.to_string();
        let _ = writeln!(m, "module {name} (");
        let _ = writeln!(m, "    input  wire clk,");
        let _ = writeln!(m, "    input  wire ce,");
        for i in inputs {
            let _ = writeln!(m, "    input  wire {}[{}:0] {},", if i.signed { "signed " } else { "" }, i.width - 1, i.name);
        }
        let _ = writeln!(m, "    output wire [{}:0] y", wy - 1);
        let _ = writeln!(m, ");");
        m.push_str(&body);
        let _ = writeln!(m, "    assign y = {y};");
        if !unused.is_empty() {
            let _ = writeln!(m, "    wire unused_ok = &{{1'b0, {}}};", unused.join(", "));
        }
        let _ = writeln!(m, "endmodule");
        (m, delay_lines)
    }
}

/// The C truth value of operand `$k` of type `ty`, one bit (NaN is true).
fn truth(ty: ScalarType, k: usize) -> String {
    if ty.is_float() {
        format!("(|${k}[{}:0])", width(ty) - 2)
    } else {
        format!("(|${k})")
    }
}

/// A cell of file `file` (relative to cells/, its module is the file's stem) that also needs
/// `extra`, with operand `k` on input pin `p` for every `(p, k)` in `inputs`.
fn cell(
    file: &'static str,
    extra: &'static [&'static str],
    params: Vec<(&'static str, u32)>,
    inputs: &[(&'static str, usize)],
    latency: u32,
) -> Cell {
    Cell { file, extra, params, inputs: inputs.iter().map(|&(p, k)| (p, format!("${k}"))).collect(), outputs: Vec::new(), latency }
}

/// `text` with `$k` replaced by `names[k]`.
fn subst(text: &str, names: &[String]) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().and_then(|d| d.to_digit(10))) {
            // `$k`, k of any number of digits (a vector's lanes joined: `{$15, …, $0}`).
            ('$', Some(_)) => {
                let mut k = 0;
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    k = 10 * k + d as usize;
                    chars.next();
                }
                out.push_str(&names[k]);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Printing the statement for the module's header comment.
struct Names<'a> {
    p: &'a Program,
    iters: &'a [String],
}

impl Names<'_> {
    fn access(&self, a: &dpnc_frontend::ir::Access) -> String {
        let mut s = self.p.vars[a.var].name.clone();
        for i in &a.index {
            let _ = write!(s, "[{}]", self.aff(i));
        }
        s
    }
    fn aff(&self, a: &Aff) -> String {
        match a {
            Aff::Const(c) => c.to_string(),
            Aff::Iter(d) => self.iters[*d].clone(),
            Aff::Param(p) => self.p.params[*p].name.clone(),
            Aff::Add(x, y) => format!("{} + {}", self.aff(x), self.aff(y)),
            Aff::Sub(x, y) => format!("{} - ({})", self.aff(x), self.aff(y)),
            Aff::Neg(x) => format!("-({})", self.aff(x)),
            Aff::Mul(c, x) => format!("{c} * ({})", self.aff(x)),
            Aff::Div(x, c) => format!("({}) / {c}", self.aff(x)),
            Aff::Mod(x, c) => format!("({}) % {c}", self.aff(x)),
            Aff::Min(x, y) => format!("min({}, {})", self.aff(x), self.aff(y)),
            Aff::Max(x, y) => format!("max({}, {})", self.aff(x), self.aff(y)),
        }
    }
    fn texpr(&self, e: &TExpr) -> String {
        match &e.kind {
            TKind::Const(v) => v.to_string(),
            TKind::Iter(d) => self.iters[*d].clone(),
            TKind::Param(p) => self.p.params[*p].name.clone(),
            TKind::Read(k) => format!("r{k}"),
            TKind::Cast(a) => format!("({}){}", e.ty.c_name(), self.texpr(a)),
            TKind::Unary(op, a) => {
                let sym = match op {
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                    UnOp::Not => "!",
                    UnOp::BitNot => "~",
                };
                format!("{sym}{}", self.texpr(a))
            }
            TKind::Binary(op, a, b) => format!("({} {} {})", self.texpr(a), op.symbol(), self.texpr(b)),
            TKind::Ternary(c, a, b) => format!("({} ? {} : {})", self.texpr(c), self.texpr(a), self.texpr(b)),
            TKind::Call(f, args) => {
                let args: Vec<String> = args.iter().map(|a| self.texpr(a)).collect();
                format!("{}({})", format!("{f:?}").to_lowercase(), args.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUMS: &str = "void k(int n, float A[n][n], float p[n], float q[n], float s[n]) {\n#pragma scop\n\
  for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++) {\n      q[i] = q[i] + A[i][j] * p[j];\n      s[j] = s[j] + p[i];\n    }\n\
#pragma endscop\n}\n";

    fn sums() -> Program {
        let mut sm = dpnc_frontend::SourceMap::new();
        let opts = dpnc_frontend::Options { params: vec![("n".into(), 8)], ..Default::default() };
        dpnc_frontend::load_str(&mut sm, "sums.c", SUMS, &opts).unwrap_or_else(|d| panic!("{}", d.render(&sm)))
    }

    /// A running sum's operand enters when the adder takes it, after the multiply; the other
    /// reads, and every read not asked to enter late, at once; the latency stays.
    #[test]
    fn a_late_read_enters_at_its_first_use() {
        let p = sums();
        let scalar = Lanes { width: 1, steps: &[], shared: &[] };
        let early = vector(&p, 0, "dp_S0", &scalar, &[]).unwrap();
        let late = vector(&p, 0, "dp_S0", &scalar, &[true, false, false]).unwrap();
        let (mul, add) = (5, 4); // dpn_fmul's and dpn_fadd's stages in binary32
        assert_eq!(early.arrival, [0, 0, 0]);
        assert_eq!(late.arrival, [mul, 0, 0]);
        assert_eq!((early.latency, late.latency), (mul + add, mul + add));
        assert!(early.module.contains(".d(r0)") && !late.module.contains(".d(r0)"), "r0 is delayed only when it enters early");
        // `s[j] + p[i]`: the adder takes the sum at once.
        assert_eq!(vector(&p, 1, "dp_S1", &scalar, &[true, false]).unwrap().arrival, [0, 0]);
    }
}
