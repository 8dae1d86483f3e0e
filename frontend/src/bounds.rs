//! The static bounds check: every subscript of every access stays inside its array's declared
//! extent over the statement's whole iteration domain, at the size parameters' values. It is
//! proved with isl on the model (so its cost follows the program's shape, not its sizes) and
//! runs before anything reads the accesses, so that traffic reports, dataflow and generated
//! designs never describe memory the kernel does not have.

use crate::diag::{Diagnostic, Result};
use crate::ir::{Access, Program};
use crate::polyhedral::{Model, Names};
use isl_rs::{Context, Map, Set};

/// Refuses the first access that can leave its array, naming the array, the dimension and the
/// range its subscript takes. Without values for every size parameter there is nothing to
/// check yet: whatever needs the values asks for them.
pub fn check(p: &Program) -> Result<()> {
    let Some(Setting { ctx, model, fixed }) = Setting::of(p) else { return Ok(()) };
    for (k, s) in p.stmts.iter().enumerate() {
        let names = Names::of(p, s);
        let cond = model.cond_of(p, k);
        for a in std::iter::once(&s.write).chain(&s.reads) {
            if p.vars[a.var].dims.is_empty() {
                continue;
            }
            let relation = model.access(p, &names, &s.name, a, &cond);
            let cells = cells(&ctx, &relation, &fixed)
                .map_err(|e| Diagnostic::bug(Some(a.span), format!("isl failed while checking this access\'s bounds: {e}")))?;
            if let Some(range) = cells {
                within(p, a, &range)?;
            }
        }
    }
    Ok(())
}

/// The box of the cells of variable `var` that some statement writes, per dimension the
/// smallest and largest subscript; `None` when nothing writes it or the sizes are unknown.
/// Work over written cells stays within it, whatever the array's declared extent.
pub fn written_box(p: &Program, var: usize) -> Option<Vec<(i64, i64)>> {
    let Setting { ctx, model, fixed } = Setting::of(p)?;
    let mut bbox: Option<Vec<(i64, i64)>> = None;
    for (k, s) in p.stmts.iter().enumerate().filter(|(_, s)| s.write.var == var) {
        let relation = model.access(p, &Names::of(p, s), &s.name, &s.write, &model.cond_of(p, k));
        // An error here is one `check` already reported: no box, and the caller walks every cell.
        let range = cells(&ctx, &relation, &fixed).ok()??;
        bbox = Some(match bbox {
            None => range,
            Some(b) => b.iter().zip(&range).map(|(&(l, h), &(x, y))| (l.min(x), h.max(y))).collect(),
        });
    }
    bbox
}

/// What both questions are asked in: an isl context, the model, and the parameters' values.
struct Setting {
    ctx: Context,
    model: Model,
    /// The parameter set at the values: `[n] -> { : n = 16 }`.
    fixed: String,
}

impl Setting {
    /// `None` without a value for every size parameter.
    fn of(p: &Program) -> Option<Setting> {
        let values = p.param_values().ok()?;
        let ctx = crate::dataflow::quiet_context();
        let model = Model::new(p);
        let fixed = model.fixed_context(p, &values);
        Some(Setting { ctx, model, fixed })
    }
}

/// Per dimension, the smallest and largest subscript the access takes; `None` when the
/// statement never runs.
fn cells(ctx: &Context, relation: &str, fixed: &str) -> std::result::Result<Option<Vec<(i64, i64)>>, isl_rs::LibISLError> {
    let cells = Map::read_from_str(ctx, relation)?.intersect_params(Set::read_from_str(ctx, fixed)?)?.range()?.project_out_all_params()?;
    if cells.is_empty()? {
        return Ok(None);
    }
    let n = cells.dim(isl_rs::DimType::Set)?;
    let mut range = Vec::new();
    for d in 0..n {
        let lo = cells.copy()?.dim_min_val(d)?;
        let hi = cells.copy()?.dim_max_val(d)?;
        // An unbounded subscript (an unbounded domain) reads as i64's extremes: out of bounds.
        let value = |v: isl_rs::Val, infinite: i64| -> std::result::Result<i64, isl_rs::LibISLError> {
            Ok(if v.is_int()? { v.get_num_si()? } else { infinite })
        };
        range.push((value(lo, i64::MIN)?, value(hi, i64::MAX)?));
    }
    Ok(Some(range))
}

fn within(p: &Program, a: &Access, range: &[(i64, i64)]) -> Result<()> {
    let v = &p.vars[a.var];
    for (d, (&(lo, hi), &n)) in range.iter().zip(&v.dims).enumerate() {
        if lo < 0 || hi >= n {
            let declared: String = v.dims.iter().map(|n| format!("[{n}]")).collect();
            let which = if v.dims.len() > 1 { format!("subscript {}", d + 1) } else { "the subscript".to_string() };
            return Err(Diagnostic::new(
                a.span,
                format!(
                    "access out of bounds: {which} of `{}` takes {lo}..{hi} here, but `{}` is declared `{}{declared}` (0..{})",
                    v.name,
                    v.name,
                    v.name,
                    n - 1
                ),
            )
            .with_help("every access must stay inside its array for every iteration, at these sizes"));
        }
    }
    Ok(())
}
