//! Pass 0 in closed form, for kernels whose statements' domains are boxes and whose band
//! hyperplanes each follow one iterator (rectangular nests such as GEMM's): the bounds,
//! band ranges, instances per band and first instances that the walk of every run
//! (`survey.rs`) would find, from the domain conditions alone. The walk's cost grows with
//! the instances (GEMM at 2048³ is 8.6 billion), this one with the bands.

use super::geometry::Condition;
use super::survey::{band_tiles, Survey};
use super::*;
use dpnc_frontend::ir::SchedTerm;

/// One statement's domain as a box: per iterator its inclusive bounds (`None`: empty).
struct StmtBox {
    bounds: Option<Vec<(i64, i64)>>,
}

impl StmtBox {
    /// The box the conditions describe, if each names at most one iterator and every iterator
    /// is bounded on both sides.
    fn of(conds: &[Condition], n: usize) -> Option<StmtBox> {
        let mut b = vec![(i64::MIN, i64::MAX); n];
        let mut empty = false;
        for Condition { coef, cst, eq } in conds {
            let named: Vec<usize> = (0..n).filter(|&v| coef.get(v).is_some_and(|c| *c != 0)).collect();
            match named[..] {
                [] => empty |= if *eq { *cst != 0 } else { *cst < 0 },
                [v] => {
                    // c·x + cst ≥ 0 (or = 0).
                    let c = coef[v];
                    let (lo, hi) = if c > 0 {
                        ((-cst).div_euclid(c) + i64::from((-cst).rem_euclid(c) != 0), i64::MAX)
                    } else {
                        (i64::MIN, cst.div_euclid(-c))
                    };
                    let (lo, hi) = match eq {
                        false => (lo, hi),
                        true if cst.rem_euclid(c.abs()) == 0 => (-cst / c, -cst / c),
                        true => (1, 0),
                    };
                    b[v] = (b[v].0.max(lo), b[v].1.min(hi));
                }
                _ => return None,
            }
        }
        if b.iter().any(|&(l, h)| l == i64::MIN || h == i64::MAX) {
            return None;
        }
        empty |= b.iter().any(|(l, h)| l > h);
        Some(StmtBox { bounds: (!empty).then_some(b) })
    }
}

/// How one band hyperplane of a statement cuts its box: along one iterator with coefficient
/// ±1, or not at all (a constant).
enum Cut {
    Along { iter: usize, coef: i64, cst: i64 },
    Constant(i64),
}

impl Cut {
    fn of(f: &tiling::Affine) -> Option<Cut> {
        let named: Vec<usize> = (0..f.coef.len()).filter(|&v| f.coef[v] != 0).collect();
        match named[..] {
            [] => Some(Cut::Constant(f.cst)),
            [v] if f.coef[v].abs() == 1 => Some(Cut::Along { iter: v, coef: f.coef[v], cst: f.cst }),
            _ => None,
        }
    }

    /// The hyperplane's extreme values over the box.
    fn range(&self, b: &[(i64, i64)]) -> (i64, i64) {
        match *self {
            Cut::Constant(c) => (c, c),
            Cut::Along { iter, coef, cst } => {
                let (x, y) = (coef * b[iter].0 + cst, coef * b[iter].1 + cst);
                (x.min(y), x.max(y))
            }
        }
    }

    /// The box's instances in tile `t` of size `s` along this hyperplane, as a share of its
    /// iterator's extent: (points of that iterator in the tile, the iterator it divides).
    fn points_in(&self, b: &[(i64, i64)], t: i64, s: i64) -> (u64, Option<usize>) {
        let (lo, hi) = (t as i128 * s as i128, (t as i128 + 1) * s as i128 - 1);
        match *self {
            Cut::Constant(c) => (u64::from((lo..=hi).contains(&(c as i128))), None),
            Cut::Along { iter, coef, cst } => {
                // lo ≤ coef·x + cst ≤ hi, with coef ±1.
                let (a, z) = if coef > 0 { (lo - cst as i128, hi - cst as i128) } else { (cst as i128 - hi, cst as i128 - lo) };
                let (a, z) = (a.max(b[iter].0 as i128), z.min(b[iter].1 as i128));
                ((z - a + 1).max(0) as u64, Some(iter))
            }
        }
    }
}

/// The survey of `p` in closed form, or `None` when some statement's domain is not a box or
/// some band hyperplane does not follow a single iterator (two hyperplanes of one statement
/// following the same one included).
pub(super) fn survey(p: &Program, geo: &Geometry) -> Option<Result<Survey, Error>> {
    let n = p.stmts.len();
    let mut boxes = Vec::with_capacity(n);
    let mut cuts = Vec::with_capacity(n);
    for k in 0..n {
        let b = StmtBox::of(geo.domains[k].as_ref()?, p.stmts[k].iters.len())?;
        let c: Vec<Cut> = geo.phi[k].iter().take(geo.band_dims(k)).map(Cut::of).collect::<Option<_>>()?;
        let mut along: Vec<usize> = c.iter().filter_map(|c| if let Cut::Along { iter, .. } = c { Some(*iter) } else { None }).collect();
        along.sort_unstable();
        if along.windows(2).any(|w| w[0] == w[1]) || c.len() < geo.band_dims(k) {
            return None;
        }
        boxes.push(b);
        cuts.push(c);
    }
    let mut bands: Vec<Option<Vec<(i64, i64)>>> = vec![None; geo.nests.len()];
    let mut keys_fit = true;
    for k in 0..n {
        let Some(b) = &boxes[k].bounds else { continue };
        let r = bands[geo.nest_of[k]].get_or_insert_with(|| vec![(i64::MAX, i64::MIN); geo.band_dims(k)]);
        for (d, cut) in cuts[k].iter().enumerate() {
            let (lo, hi) = cut.range(b);
            let (tl, th) = (lo.div_euclid(geo.sizes[d]), hi.div_euclid(geo.sizes[d]));
            r[d] = (r[d].0.min(tl), r[d].1.max(th));
            // The walk keys a band by its tiles in 20 bits each; past that it counts no sizes.
            keys_fit &= d < 6 && tl.abs() < 1 << 19 && th.abs() < 1 << 19;
        }
    }
    let sizes = keys_fit.then(|| {
        bands
            .iter()
            .enumerate()
            .map(|(ni, range)| {
                let Some(range) = range else { return Vec::new() };
                let stmts: Vec<usize> = (0..n).filter(|&k| geo.nest_of[k] == ni).collect();
                band_tiles(range).map(|tiles| stmts.iter().map(|&k| instances_in(&boxes[k], &cuts[k], &tiles, &geo.sizes)).sum()).collect()
            })
            .collect()
    });
    let mut lo = Vec::with_capacity(n);
    let mut hi = Vec::with_capacity(n);
    let mut first = Vec::with_capacity(n);
    let mut instances = 0u64;
    for (k, b) in boxes.iter().enumerate() {
        let iters = p.stmts[k].iters.len();
        match &b.bounds {
            Some(b) => {
                lo.push(b.iter().map(|r| r.0).collect());
                hi.push(b.iter().map(|r| r.1).collect());
                // Each loop starts at the end its direction in the schedule says.
                let mut at: Vec<i64> = b.iter().map(|r| r.0).collect();
                for t in &p.stmts[k].schedule {
                    if let SchedTerm::Iter(d, dir) = *t {
                        at[d] = if dir > 0 { b[d].0 } else { b[d].1 };
                    }
                }
                first.push(Some(at));
                instances += b.iter().map(|(l, h)| (h - l + 1) as u64).product::<u64>();
            }
            None => {
                lo.push(vec![i64::MAX; iters]);
                hi.push(vec![i64::MIN; iters]);
                first.push(None);
            }
        }
    }
    Some(Survey::from_bounds(lo, hi, bands, sizes, first, instances))
}

/// A statement's instances in the band at `tiles`.
fn instances_in(b: &StmtBox, cuts: &[Cut], tiles: &[i64], sizes: &[i64]) -> u64 {
    let Some(b) = &b.bounds else { return 0 };
    let mut count = 1u64;
    let mut cut = vec![false; b.len()];
    for (d, c) in cuts.iter().enumerate() {
        let (points, iter) = c.points_in(b, tiles[d], sizes[d]);
        count *= points;
        if let Some(v) = iter {
            cut[v] = true;
        }
    }
    b.iter().zip(&cut).filter(|(_, c)| !**c).fold(count, |n, ((l, h), _)| n * (h - l + 1) as u64)
}

#[cfg(test)]
mod tests {
    use super::super::{Geometry, Survey};
    use dpnc_frontend::{dataflow, Options, SourceMap};

    /// The closed form gives the walk's survey (bounds, band ranges, instances per band, first
    /// instances) on every kernel of the test set where it applies, at tile shapes that cut
    /// boxes at their edges and inside, and it applies to the rectangular kernels.
    #[test]
    fn closed_form_surveys_as_the_walk_does() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels");
        let mut files: Vec<_> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|f| f.extension().is_some_and(|e| e == "c")).collect();
        files.sort();
        // Loops that run downwards start at their upper bound; a guard cuts the box.
        let reverse = std::env::temp_dir().join(format!("dpnc_boxes_reverse_{}.c", std::process::id()));
        std::fs::write(
            &reverse,
            "void kernel_reverse(float A[20][30], float B[20][30]) {\n  int i, j;\n#pragma scop\n  for (i = 19; i >= 0; i--)\n    \
             for (j = 29; j >= 0; j--)\n      if (j >= 2)\n        A[i][j] = B[i][j] + A[i][j - 2];\n#pragma endscop\n}\n",
        )
        .unwrap();
        files.push(reverse.clone());
        let mut closed = Vec::new();
        for f in &files {
            let mut sm = SourceMap::new();
            let p = dpnc_frontend::load(&mut sm, f, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
            let sare = dataflow::compute(&p).expect("dataflow");
            let params = p.param_values().unwrap();
            let nests = crate::tiling::choose(&p, &params, None, crate::tiling::Cut { tile: &[], par: &[] }, &[]).unwrap();
            let nest_of = crate::tiling::nest_of(&nests, p.stmts.len());
            for sizes in [vec![4, 4, 4, 4], vec![3, 5, 2, 7], vec![1, 1, 1, 1], vec![64, 64, 64, 64]] {
                let geo = Geometry::new(&p, &sare, &params, &nests, nest_of.clone(), sizes.clone(), vec![1; 4]);
                let Some(fast) = super::survey(&p, &geo) else { continue };
                let (fast, walk) = (fast.unwrap(), Survey::walk(&p, &params, &geo).unwrap());
                let name = format!("{} at tiles {sizes:?}", f.display());
                assert_eq!((&fast.lo, &fast.extent, &fast.offset), (&walk.lo, &walk.extent, &walk.offset), "{name}: bounds");
                assert_eq!((&fast.bands, &fast.sizes), (&walk.bands, &walk.sizes), "{name}: bands");
                assert_eq!(
                    (&fast.first, fast.instances, fast.volume),
                    (&walk.first, walk.instances, walk.volume),
                    "{name}: first instances"
                );
                closed.push(f.file_stem().unwrap().to_string_lossy().into_owned());
            }
        }
        closed.dedup();
        let _ = std::fs::remove_file(&reverse);
        for k in ["gemm", "2mm", "3mm", "doitgen", "mvt", reverse.file_stem().unwrap().to_str().unwrap()] {
            assert!(closed.iter().any(|c| c == k), "{k} not surveyed in closed form (only {closed:?})");
        }
    }
}
