//! The choice of the σ-next access among a memory module's generators: each generator's
//! order (`g<g>_order`, the σ key entries that vary), compared pairwise into registers where a
//! side has few generators, through a tournament where it has many.

use crate::verilog::index_bits;
use std::fmt::Write;

/// What the pick compares of each generator's σ key (`g<g>_order`): the entries `live`, of
/// `key_bits` each, the first the most significant.
pub(super) struct Orders {
    /// The key's places compared (`Plan::live`).
    pub(super) live: Vec<usize>,
    /// Bits of each entry.
    pub(super) key_bits: u32,
    /// Per generator, per compared entry: its value where it is the same at every point of
    /// that generator (a statement's own constant place in σ, its port).
    pub(super) fixed: Vec<Vec<Option<i64>>>,
}

/// The entries that decide a comparison of two orders ([`Orders::narrow`]).
struct Narrowed {
    /// The entries compared, in order.
    kept: Vec<usize>,
    /// The answer where those entries are equal.
    tie: bool,
}

/// A comparison of two generators' orders.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// a < b: a goes first.
    Before,
    /// a <= b: a goes first, or ties.
    NotAfter,
    /// a >= b.
    NotBefore,
}

impl Orders {
    /// Bits of an order (one entry where none is compared).
    pub(super) fn width(&self) -> u32 {
        self.live.len().max(1) as u32 * self.key_bits
    }

    /// The entries of generator a's and b's orders, of their first `upto`, that may decide
    /// `a op b`: an entry both generators hold at one constant decides nothing, and the first
    /// that they hold at two constants decides between equal entries before it (the entries
    /// after it, nothing). So the comparison's carry chain is as long as those entries, not
    /// the whole order.
    fn narrow(&self, a: usize, b: usize, op: Op, upto: usize) -> Narrowed {
        let mut tie = !matches!(op, Op::Before);
        let mut kept = Vec::new();
        for i in 0..upto {
            match (self.fixed[a][i], self.fixed[b][i]) {
                (Some(u), Some(v)) if u == v => {}
                (Some(u), Some(v)) => {
                    tie = if matches!(op, Op::NotBefore) { u > v } else { u < v };
                    break;
                }
                _ => kept.push(i),
            }
        }
        Narrowed { kept, tie }
    }

    /// `x op y`, where `x` is an order of generator a and `y` one of generator b, over their
    /// first `upto` entries, on the entries that may decide it ([`Orders::narrow`]).
    fn compare(&self, (a, x): (usize, &str), (b, y): (usize, &str), op: Op, upto: usize) -> String {
        let Narrowed { kept, tie } = self.narrow(a, b, op, upto);
        if kept.is_empty() {
            return if tie { "1'b1" } else { "1'b0" }.into();
        }
        // The kept entries as slices, a run of neighbours as one.
        let (w, kb) = (self.width(), self.key_bits);
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for &i in &kept {
            match runs.last_mut() {
                Some(r) if r.1 + 1 == i => r.1 = i,
                _ => runs.push((i, i)),
            }
        }
        let part = |v: &str| -> String {
            let s: Vec<String> = runs.iter().map(|&(f, l)| format!("{v}[{}:{}]", w - 1 - f as u32 * kb, w - (l as u32 + 1) * kb)).collect();
            if s.len() == 1 {
                s[0].clone()
            } else {
                format!("{{{}}}", s.join(", "))
            }
        };
        let op = match (op, tie) {
            (Op::NotBefore, true) => ">=",
            (Op::NotBefore, false) => ">",
            (_, true) => "<=",
            (_, false) => "<",
        };
        format!("{} {op} {}", part(x), part(y))
    }
}

/// `win<g>`: generator g's access goes next. Keys are compared pairwise where a side has at
/// most [`PAIRWISE`] generators ([`picks`]), otherwise by a tournament, n − 1 comparisons (a
/// matrix of all pairs made Yosys run out of memory at par 16), of each generator's `klen`
/// keys as one unsigned number: each key's sign bit flipped (offset binary), the first key the
/// most significant; the first generator wins ties. Nothing goes
/// before every generator's position is known.
///
/// With loads and stores (`stores[g]`: the channel generator g stores from), there are two
/// winners, the σ-next load and the σ-next store, and both may issue in one cycle (a
/// streaming `y[i] = … + y[i]` loads and stores an element a cycle). Loads and stores each
/// keep σ order among themselves, and a load may pass the stores of its own band and of later
/// ones: a band never loads a cell one of its stores wrote before (that value would come from
/// the band), and a store waits while a queued load reads its cell (`war`). So a store still
/// waiting for its value does not hold back the loads of the next points (BICG's q: the load
/// for row i + 1 need not wait for row i's store). A store goes when it precedes every
/// pending load in σ; the load issued beside it then comes after it in σ, reads another cell
/// (its own band's store of its cell would make its value come from the band) and needs no
/// `war` check against it. With `fine`, a load goes once its source has landed
/// (`g<g>_src_ok`) instead; with `keyed`, some load has one, and `st_key` is the σ-next
/// store's key.
///
/// Only the key entries in `orders.live` are compared (`g<g>_order`): the others decide
/// nothing (`Plan::live`).
///
/// With `staged` ([`stage`]), the σ-next store's key is `sp_key`, the stage's; and where loads
/// wait for earlier bands' stores, for those in the stage too (`stage_ok`): the width of the
/// band's part of the order that the stage then keeps is returned.
#[allow(clippy::too_many_arguments)]
pub(super) fn winner(
    o: &mut String,
    stores: &[Option<usize>],
    klen: usize,
    orders: &Orders,
    band_keys: usize,
    fine: bool,
    keyed: bool,
    staged: bool,
) -> Option<u32> {
    let n = stores.len();
    if n == 1 {
        o.push_str("    wire pick0 = 1'b1;\n    wire win0 = g0_acc;\n");
        return None;
    }
    let key_bits = orders.key_bits;
    let (ib, kw) = (index_bits(n), klen as u32 * key_bits);
    let ow = orders.width();
    // Each generator's order (`g<g>_order`, the `live` entries of its key) is from its queue ([`AHEAD`]).
    for g in 0..n {
        // The index only names the trees' winners, which the picks do not wait for.
        let _ = writeln!(
            o,
            "    wire g{g}_alive = !g{g}_done;\n    // verilator lint_off UNUSEDSIGNAL\n    wire [{}:0] g{g}_idx = {ib}'d{g};\n    // verilator lint_on UNUSEDSIGNAL",
            ib - 1
        );
    }
    // A generator that has not reached its first point holds every other back.
    let held: Vec<String> = (0..n).map(|g| format!("(!g{g}_done && !g{g}_known)")).collect();
    // A register, a cycle late: from a start on, a generator only becomes known or done, so
    // the lag can only hold the first issue back a cycle, never let one through early.
    let _ = writeln!(o, "    reg held;\n    always @(posedge clk) held <= rst || start || {};", held.join(" || "));
    // Node of generators `gs`: (alive, order, index) wires named by its prefix; the left (lower)
    // half wins ties.
    fn node(o: &mut String, pre: &str, gs: &[usize], kw: u32, ib: u32) -> String {
        if let [g] = gs {
            return format!("g{g}");
        }
        let mid = gs.len().div_ceil(2);
        let (a, b) = (node(o, pre, &gs[..mid], kw, ib), node(o, pre, &gs[mid..], kw, ib));
        let t = format!("{pre}{}_{}", gs[0], gs[gs.len() - 1]);
        let _ = writeln!(
            o,
            "    wire {t}_left = {a}_alive && (!{b}_alive || {a}_order <= {b}_order);\n    wire {t}_alive = {a}_alive || {b}_alive;\n    wire [{}:0] {t}_order = {t}_left ? {a}_order : {b}_order;\n    wire [{}:0] {t}_idx = {t}_left ? {a}_idx : {b}_idx;",
            kw - 1,
            ib - 1
        );
        t
    }
    let (ld, st): (Vec<usize>, Vec<usize>) = (0..n).partition(|&g| stores[g].is_none());
    // The trees' orders name the winners' (for the stage); their indices and liveness may go
    // unused.
    o.push_str("    // verilator lint_off UNUSEDSIGNAL\n");
    if ld.is_empty() || st.is_empty() {
        let root = node(o, "t", &(0..n).collect::<Vec<_>>(), ow, ib);
        o.push_str("    // verilator lint_on UNUSEDSIGNAL\n");
        picks(o, &(0..n).collect::<Vec<_>>(), &root, ib, orders);
        if st.is_empty() {
            ready(o, "l", "!held", &ld, &|g| format!("g{g}_acc"));
        }
        for g in 0..n {
            let win = if st.is_empty() { format!("l_gate && g{g}_ready") } else { format!("g{g}_acc && !held") };
            let _ = writeln!(o, "    wire win{g} = {win} && pick{g};");
        }
        return None;
    }
    let (l, s) = (node(o, "tl", &ld, ow, ib), node(o, "ts", &st, ow, ib));
    o.push_str("    // verilator lint_on UNUSEDSIGNAL\n");
    picks(o, &ld, &l, ib, orders);
    picks(o, &st, &s, ib, orders);
    let pairwise = pairwise(ld.len(), st.len());
    // The band is the keys' first `band_keys` (or a finer prefix for a shallower nest, which
    // only lets fewer loads pass): the order's first entries.
    let band_live = orders.live.iter().filter(|&&k| k < band_keys).count();
    let acc = |gs: &[usize]| -> String {
        let v: Vec<String> = gs.iter().map(|g| format!("(pick{g} && g{g}_acc)")).collect();
        v.join(" || ")
    };
    // Over the pairs of a σ-next store and a σ-next load: `f(store, load)` for the pair picked.
    let picked_pair = |f: &dyn Fn(usize, usize) -> String| -> String {
        let v: Vec<String> =
            st.iter().flat_map(|&a| ld.iter().map(move |&b| (a, b))).map(|(a, b)| format!("(pick{a} && pick{b} && {})", f(a, b))).collect();
        v.join(" || ")
    };
    // The pairs' comparisons, registered ([`order_compared`]): a store before a load, and (where
    // loads wait for earlier bands' stores) a store's band not before a load's.
    if pairwise {
        for &a in &st {
            for &b in &ld {
                order_compared(o, &format!("before{a}_{b}"), (a, b), Op::Before, orders.live.len(), false, orders);
            }
        }
    }
    let mut band_order = None;
    // The load side's condition beside its access being there (`acc`), and whether a generator's
    // load may go if picked.
    let (rule, gate, src_ok) = if fine {
        if keyed {
            let keys = st.iter().map(|g| format!("pick{g} ? g{g}_key :"));
            let name = if staged { "sp_key" } else { "st_key" };
            let _ = writeln!(o, "    wire [{}:0] {name} = {} {kw}'d0;", kw - 1, keys.collect::<Vec<_>>().join(" "));
        }
        ("its source has landed", String::new(), true)
    } else {
        let earlier = match band_live {
            0 => "1'b1".to_string(),
            b if staged => {
                let (hi, lo) = (ow - 1, ow - b as u32 * key_bits);
                let _ = writeln!(
                    o,
                    "    wire stage_ok;  // no store in the stage belongs to a band before the σ-next load's\n    wire [{w}:0] l_band_order = {l}_order[{hi}:{lo}];\n    wire [{w}:0] sp_band_order = {s}_order[{hi}:{lo}];",
                    w = hi - lo
                );
                band_order = Some(hi - lo + 1);
                "sp_band_order >= l_band_order".to_string()
            }
            b => {
                let band = format!("[{}:{}]", ow - 1, ow - b as u32 * key_bits);
                match pairwise {
                    true => {
                        for &a in &st {
                            for &c in &ld {
                                order_compared(o, &format!("band_ok{a}_{c}"), (a, c), Op::NotBefore, b, false, orders);
                            }
                        }
                        format!("({})", picked_pair(&|a, b| format!("band_ok{a}_{b}")))
                    }
                    false => format!("{s}_order{band} >= {l}_order{band}"),
                }
            }
        };
        let stage = if band_order.is_some() { " && stage_ok" } else { "" };
        ("no pending store belongs to an earlier band", format!(" && (!{s}_alive || {earlier}){stage}"), false)
    };
    let l_can = ready(o, "l", &format!("!held && {l}_alive{gate}"), &ld, &|g| {
        if src_ok {
            format!("g{g}_acc && g{g}_src_ok")
        } else {
            format!("g{g}_acc")
        }
    });
    let _ = writeln!(
        o,
        "    // σ-next load and store, each on its own side: the store goes if it precedes every pending\n    // load; the load if {rule}.\n    wire l_can = {l_can};"
    );
    let s_can = if pairwise {
        // A store precedes the σ-next load if it precedes every live load: per store from the
        // registers, the store pick only choosing, not after both picks.
        for &a in &st {
            let all: Vec<String> = ld.iter().map(|b| format!("(!g{b}_alive || before{a}_{b})")).collect();
            let _ = writeln!(o, "    wire g{a}_first = {};", all.join(" && "));
        }
        ready(o, "s", &format!("!held && {s}_alive"), &st, &|g| format!("g{g}_acc && g{g}_first"))
    } else {
        format!("!held && {s}_alive && ({}) && (!{l}_alive || {s}_order < {l}_order)", acc(&st))
    };
    let _ = writeln!(o, "    wire s_can = {s_can};");
    for g in ld {
        let _ = writeln!(o, "    wire win{g} = l_can && pick{g};");
    }
    for g in st {
        let _ = writeln!(o, "    wire win{g} = s_can && pick{g};");
    }
    band_order
}

/// `<side>_gate` and `g<g>_ready` for the generators `gs` of one side (`l` or `s`): its σ-next
/// access may go if the gate holds and the picked generator is ready, so that each generator's
/// answer is worked out beside the pick, which only chooses (the read side's `g<g>_go`,
/// `Plan::load_goes`; a store generator's pop). Returns that condition over the picks.
fn ready(o: &mut String, side: &str, gate: &str, gs: &[usize], ready: &dyn Fn(usize) -> String) -> String {
    let _ = writeln!(o, "    wire {side}_gate = {gate};");
    for &g in gs {
        let _ = writeln!(o, "    wire g{g}_ready = {};", ready(g));
    }
    let picked: Vec<String> = gs.iter().map(|g| format!("(pick{g} && g{g}_ready)")).collect();
    format!("{side}_gate && ({})", picked.join(" || "))
}

/// `name`, a register: generator a's order `op` generator b's over their first `upto` entries,
/// on the orders that hold after this edge. What each order becomes if its head stays or is
/// popped (`_kept`, `_popped`) is compared beside the pick, and the pops only choose among the
/// answers; `one_pops`: the two are of one side, of which at most one pops at an edge.
#[allow(clippy::too_many_arguments)]
fn order_compared(o: &mut String, name: &str, (a, b): (usize, usize), op: Op, upto: usize, one_pops: bool, orders: &Orders) {
    let cmp = |x: &str, y: &str| orders.compare((a, &format!("g{a}_order_{x}")), (b, &format!("g{b}_order_{y}")), op, upto);
    let when_a = match one_pops {
        true => cmp("popped", "kept"),
        false => format!("(g{b}_pop ? {} : {})", cmp("popped", "popped"), cmp("popped", "kept")),
    };
    let _ = writeln!(
        o,
        "    reg {name};\n    always @(posedge clk)\n        {name} <= g{a}_pop ? {when_a} : g{b}_pop ? {} : {};",
        cmp("kept", "popped"),
        cmp("kept", "kept")
    );
}

/// Whether a memory module with `loads` and `stores` generators of each side compares them
/// pairwise: then each store's `g<g>_ready` (with `s_gate`) says whether it would go if picked.
pub(super) fn pairwise(loads: usize, stores: usize) -> bool {
    loads > 0 && stores > 0 && loads <= PAIRWISE && stores <= PAIRWISE
}

/// The most generators a side compares pairwise ([`picks`]): eight are 28 registered comparisons
/// and a pick of two LUT levels.
const PAIRWISE: usize = 8;

/// `pick<g>` for each generator of `gs`: the alive one first in σ (`g<g>_order`), the lower
/// index on a tie, as the tree of [`winner`] (root `root`, indices of `ib` bits) picks it. With
/// at most [`PAIRWISE`] generators compared pairwise from the registers, so that the pick is
/// one comparison deep (the tree compares after each level's choice), and none where none is
/// alive; with more, read from the tree (the last where none is alive).
fn picks(o: &mut String, gs: &[usize], root: &str, ib: u32, orders: &Orders) {
    if let [g] = gs {
        let _ = writeln!(o, "    wire pick{g} = 1'b1;");
        return;
    }
    if gs.len() > PAIRWISE {
        for g in gs {
            let _ = writeln!(o, "    wire pick{g} = {root}_idx == {ib}'d{g};");
        }
        return;
    }
    // Each pair's comparison is a register ([`order_compared`]): the pick starts from flip-flops.
    for (i, &a) in gs.iter().enumerate() {
        for &b in &gs[i + 1..] {
            order_compared(o, &format!("bf{a}_{b}"), (a, b), Op::NotAfter, orders.live.len(), true, orders);
        }
    }
    // Each pick from the registers alone (the last one too, rather than after the others').
    for (i, &g) in gs.iter().enumerate() {
        let mut terms = vec![format!("g{g}_alive")];
        terms.extend(gs[..i].iter().map(|h| format!("(!g{h}_alive || !bf{h}_{g})")));
        terms.extend(gs[i + 1..].iter().map(|h| format!("(!g{h}_alive || bf{g}_{h})")));
        let _ = writeln!(o, "    wire pick{g} = {};", terms.join(" && "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The narrowed comparison answers as the comparison of the whole orders does, for every
    /// pair of generators and every value of the entries that vary: three entries of two
    /// bits, each fixed (at 0..=3) or varying per generator.
    #[test]
    fn a_narrowed_comparison_answers_as_the_whole_one() {
        let patterns: Vec<Vec<Option<i64>>> = (0..125)
            .map(|mut n| {
                (0..3)
                    .map(|_| {
                        let d = n % 5;
                        n /= 5;
                        (d < 4).then_some(d)
                    })
                    .collect()
            })
            .collect();
        let orders = Orders { live: vec![0, 1, 2], key_bits: 2, fixed: patterns.clone() };
        // Every value of an order with generator g's fixed entries.
        let values = |g: usize| -> Vec<Vec<i64>> {
            (0..64)
                .map(|n| (0..3).map(|i| (n >> (2 * i)) & 3).collect::<Vec<i64>>())
                .filter(|v| v.iter().zip(&patterns[g]).all(|(x, f)| f.is_none_or(|f| f == *x)))
                .collect()
        };
        let holds = |op: Op, x: &[i64], y: &[i64]| match op {
            Op::Before => x < y,
            Op::NotAfter => x <= y,
            Op::NotBefore => x >= y,
        };
        for a in (0..125).step_by(7) {
            for b in (0..125).step_by(3) {
                for op in [Op::Before, Op::NotAfter, Op::NotBefore] {
                    for upto in [2, 3] {
                        let Narrowed { kept, tie } = orders.narrow(a, b, op, upto);
                        for x in values(a) {
                            for y in values(b) {
                                let (xk, yk): (Vec<i64>, Vec<i64>) = kept.iter().map(|&i| (x[i], y[i])).unzip();
                                let narrowed = if xk == yk { tie } else { holds(op, &xk, &yk) };
                                assert_eq!(
                                    narrowed,
                                    holds(op, &x[..upto], &y[..upto]),
                                    "{op:?} {:?} {:?} {x:?} {y:?}",
                                    patterns[a],
                                    patterns[b]
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
