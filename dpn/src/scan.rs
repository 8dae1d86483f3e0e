//! Enumerating the statement instances of one tile band, in program order, without walking
//! the rest of the domain. This is what lets construction stream band by band: its cost is
//! the band's size, not the problem's, and nothing but the current band is held in memory.
//!
//! The program's loops are walked as the interpreter walks them; a loop at depth `d` is
//! additionally clipped by every band constraint `lo ≤ φ_b(it) ≤ hi` whose innermost
//! iterator is `it_d` (for the hull over the statements below the loop). Instances are then
//! checked exactly, so clipping only needs to be sound, not tight (a run, an innermost loop
//! of one statement, is checked at both ends: its band constraints are affine along it).

use crate::tiling::{Affine, Nest};
use crate::Error;
use dpnc_frontend::ir::{Node, Program};

/// `len` instances of statement `stmt` from the iterators `first` on, the innermost iterator
/// stepping by `step`.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    pub stmt: usize,
    pub first: &'a [i64],
    pub len: u64,
    pub step: i64,
}

/// Visits a run of statement `k` from iteration `it`: `len` instances stepping the innermost
/// iterator by `step` (as [`dpnc_frontend::interp::for_each_run`] gives them).
pub type VisitRun<'a> = dyn FnMut(usize, &[i64], u64, i64) -> Result<(), Error> + 'a;
/// Band constraints of one statement whose innermost iterator is a given loop's:
/// (band hyperplane, its function).
type Clip = Vec<(usize, Affine)>;

/// The walk of one top-level nest, band by band.
pub struct BandScan<'a> {
    p: &'a Program,
    params: &'a [i64],
    nest: &'a Nest,
    /// Tile sizes of the band hyperplanes (all but the last).
    sizes: Vec<i64>,
    /// Per loop of the program (pre-order index): the clips at that loop.
    clips: Vec<Vec<Clip>>,
    /// Per node (pre-order index): whether a statement of the nest is below it.
    live: Vec<bool>,
    /// Per node: the size of its subtree; per `if`: where its `else` branch starts.
    span: Vec<usize>,
    else_at: Vec<usize>,
}

impl<'a> BandScan<'a> {
    pub fn new(p: &'a Program, params: &'a [i64], nest: &'a Nest, tile: &[i64]) -> BandScan<'a> {
        let nb = nest.dims.saturating_sub(1);
        let sizes = (0..nb).map(|d| crate::shape::tile_size(tile, d)).collect();
        let mut s = BandScan { p, params, nest, sizes, clips: Vec::new(), live: Vec::new(), span: Vec::new(), else_at: Vec::new() };
        s.prepare(&p.tree, 0);
        s
    }

    /// Pre-order numbering of nodes, filling `clips` and `live`; returns the statements below.
    fn prepare(&mut self, nodes: &[Node], depth: usize) -> Vec<usize> {
        let mut below = Vec::new();
        for n in nodes {
            let id = self.live.len();
            self.live.push(false);
            self.clips.push(Vec::new());
            self.span.push(1);
            self.else_at.push(0);
            let stmts = match n {
                Node::Loop { body, .. } => self.prepare(body, depth + 1),
                Node::If(_, t, e) => {
                    let mut v = self.prepare(t, depth);
                    self.else_at[id] = self.live.len();
                    v.extend(self.prepare(e, depth));
                    v
                }
                Node::Stmt(k) => vec![*k],
            };
            self.span[id] = self.live.len() - id;
            let mine: Vec<usize> = stmts.iter().copied().filter(|k| self.nest.stmts.contains(k)).collect();
            self.live[id] = !mine.is_empty();
            if let Node::Loop { .. } = n {
                for &k in &mine {
                    let rows: Vec<(usize, Affine)> = self.nest.phi_of(k)[..self.sizes.len()]
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| f.coef.iter().rposition(|&c| c != 0) == Some(depth))
                        .map(|(b, f)| (b, f.clone()))
                        .collect();
                    self.clips[id].push(rows);
                }
            }
            below.extend(stmts);
        }
        below
    }

    /// Calls `f(statement, iterators, length, step)` for every run of instances of the nest
    /// in band `tiles` (the tile coordinates of the band hyperplanes), in program order: an
    /// innermost loop whose body is one statement gives one run of it (see
    /// [`dpnc_frontend::interp::for_each_run`]), any other instance a run of one.
    pub fn walk(&self, tiles: &[i64], f: &mut VisitRun) -> Result<(), Error> {
        self.walk_part(tiles, None, f)
    }

    /// [`BandScan::walk`], with the nest's outermost loop iterator kept within `part` (see
    /// [`BandScan::outer`]): a big band walked a part per thread.
    pub fn walk_part(&self, tiles: &[i64], part: Option<(i64, i64)>, f: &mut VisitRun) -> Result<(), Error> {
        let mut id = 0;
        self.walk_nodes(&self.p.tree, tiles, part, &mut Vec::new(), &mut id, f)
    }

    /// The bounds and step of the nest's outermost loop when the nest is that one loop
    /// stepping by 1 (its band can then be walked in parts of that loop's range).
    pub fn outer(&self) -> Option<(i64, i64, i64)> {
        let mut id = 0;
        for n in &self.p.tree {
            let me = id;
            id += self.span[me];
            if !self.live[me] {
                continue;
            }
            return match n {
                Node::Loop { lower, upper, dir, .. } if dir.abs() == 1 => {
                    Some((lower.eval(&[], self.params).ok()?, upper.eval(&[], self.params).ok()?, *dir))
                }
                _ => None,
            };
        }
        None
    }

    fn walk_nodes(
        &self,
        nodes: &[Node],
        tiles: &[i64],
        part: Option<(i64, i64)>,
        iters: &mut Vec<i64>,
        id: &mut usize,
        f: &mut VisitRun,
    ) -> Result<(), Error> {
        let internal = |e: &str| Error::internal(e);
        for n in nodes {
            let me = *id;
            *id += 1;
            if !self.live[me] {
                *id = me + self.span[me];
                continue;
            }
            match n {
                Node::Loop { lower, upper, dir, body, .. } => {
                    let mut lo = lower.eval(iters, self.params).map_err(internal)?;
                    let mut hi = upper.eval(iters, self.params).map_err(internal)?;
                    if let Some((l, h)) = self.clip(me, tiles, iters) {
                        lo = lo.max(l);
                        hi = hi.min(h);
                    }
                    if let (Some((l, h)), true) = (part, iters.is_empty()) {
                        lo = lo.max(l);
                        hi = hi.min(h);
                    }
                    let mut i = if *dir > 0 { lo } else { hi };
                    if let ([Node::Stmt(k)], true) = (&body[..], lo <= hi) {
                        // One statement: its band constraints are affine in the loop's
                        // iterator, so with both ends of the (clipped) range in the band,
                        // all of it is. Otherwise (a clip that is not tight) point by point.
                        let mut at = |x: i64| {
                            iters.push(x);
                            let yes = self.in_band(*k, tiles, iters);
                            iters.pop();
                            yes
                        };
                        if at(lo) && at(hi) {
                            iters.push(i);
                            let r = f(*k, iters, (hi - lo) as u64 + 1, *dir);
                            iters.pop();
                            r?;
                            *id = me + self.span[me];
                            continue;
                        }
                    }
                    while lo <= i && i <= hi {
                        iters.push(i);
                        *id = me + 1;
                        let r = self.walk_nodes(body, tiles, None, iters, id, f);
                        iters.pop();
                        r?;
                        i += dir;
                    }
                }
                Node::If(c, then, els) => {
                    if c.eval(iters, self.params).map_err(internal)? {
                        self.walk_nodes(then, tiles, part, iters, id, f)?;
                    } else {
                        *id = self.else_at[me];
                        self.walk_nodes(els, tiles, part, iters, id, f)?;
                    }
                }
                Node::Stmt(k) => {
                    if self.in_band(*k, tiles, iters) {
                        f(*k, iters, 1, 1)?;
                    }
                }
            }
            *id = me + self.span[me];
        }
        Ok(())
    }

    /// The hull over the statements below loop `me` of their clipped ranges for the loop's
    /// iterator, or `None` when some statement is not clipped there.
    fn clip(&self, me: usize, tiles: &[i64], outer: &[i64]) -> Option<(i64, i64)> {
        let mut hull: Option<(i64, i64)> = None;
        for rows in &self.clips[me] {
            if rows.is_empty() {
                return None;
            }
            let (mut lo, mut hi) = (i64::MIN, i64::MAX);
            let d = outer.len();
            for (b, f) in rows {
                let s = self.sizes[*b];
                let blo = tiles[*b].saturating_mul(s);
                let bhi = blo.saturating_add(s - 1);
                let rest: i64 = f.coef[..d].iter().zip(outer).fold(f.cst, |acc, (a, x)| acc.saturating_add(a.saturating_mul(*x)));
                let a = f.coef[d];
                // blo ≤ a·x + rest ≤ bhi (saturating: absurd tile sizes must clamp, not overflow)
                let (l, h) = if a > 0 {
                    (ceil_div(blo.saturating_sub(rest), a), bhi.saturating_sub(rest).div_euclid(a))
                } else {
                    (ceil_div(rest.saturating_sub(bhi), -a), rest.saturating_sub(blo).div_euclid(-a))
                };
                lo = lo.max(l);
                hi = hi.min(h);
            }
            hull = Some(hull.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
        }
        hull
    }

    fn in_band(&self, k: usize, tiles: &[i64], it: &[i64]) -> bool {
        if !self.nest.stmts.contains(&k) {
            return false;
        }
        let phi = self.nest.phi_of(k);
        self.sizes.iter().enumerate().all(|(b, s)| phi[b].eval(it).div_euclid(*s) == tiles[b])
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    -(a.saturating_neg().div_euclid(b))
}
