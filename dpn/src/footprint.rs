//! Which groups of an array's channels touch a common *block*: `block` consecutive cells of the
//! array in row-major order (a memory process's line, one AXI beat). Decided with isl on the
//! channels' relations (the cells each one moves, [`crate::ir::Channel::relation`]), so its
//! cost is set by the relations' shapes, not by the instances they hold.

use crate::ir::Dpn;
use crate::Error;
use dpnc_frontend::dataflow::{bounded_context, quota_spent};
use dpnc_frontend::ir::Variable;
use dpnc_frontend::polyhedral::isl_name;
use isl_rs::{Context, LibISLError, UnionMap, UnionSet};

/// isl operations one set or one question may take: enough for the relations of skewed
/// stencil tiles, whose floors make the sets large; past it the caller answers some other way.
const OPERATIONS: u64 = 2_000_000;

/// The blocks of one array that groups of its channels touch, as isl sets.
pub struct Blocks {
    ctx: Context,
    /// Per group, the blocks its channels' cells lie in.
    sets: Vec<UnionSet>,
    /// The array's name, for errors.
    var: String,
}

impl Blocks {
    /// The blocks of `block` cells of `var` that each group of `groups` touches (a group: channels
    /// that load or store `var`, indices into [`Dpn::channels`]); an error where isl fails or
    /// exceeds its budget.
    pub fn of(dpn: &Dpn, var: &Variable, groups: &[&[usize]], block: usize) -> Result<Blocks, Error> {
        let mut b = Blocks { ctx: bounded_context(OPERATIONS), sets: Vec::new(), var: var.name.clone() };
        let blocks = block_map(&b.ctx, var, block).map_err(|e| b.fail(e))?;
        for g in groups {
            b.ctx.reset_operations();
            let mut cells = UnionSet::read_from_str(&b.ctx, "{ }").map_err(|e| b.fail(e))?;
            for &c in *g {
                let moved = UnionMap::read_from_str(&b.ctx, &dpn.channels[c].relation).and_then(|r| r.range()).map_err(|e| b.fail(e))?;
                cells = cells.union(moved).map_err(|e| b.fail(e))?;
            }
            let set = cells.apply(blocks.copy().map_err(|e| b.fail(e))?).and_then(|s| s.coalesce()).map_err(|e| b.fail(e))?;
            b.sets.push(set);
        }
        Ok(b)
    }

    /// Whether groups `a` and `b` touch a common block.
    pub fn meet(&self, a: usize, b: usize) -> Result<bool, Error> {
        self.ctx.reset_operations();
        let common = self.sets[a].copy().and_then(|s| s.intersect(self.sets[b].copy()?)).map_err(|e| self.fail(e))?;
        Ok(!common.is_empty().map_err(|e| self.fail(e))?)
    }

    fn fail(&self, e: LibISLError) -> Error {
        let why = if quota_spent(&self.ctx) { format!("more than {OPERATIONS} isl operations") } else { e.to_string() };
        Error::internal(format!("the blocks of `{}` that channels touch: {why}", self.var))
    }
}

/// `{ var[a₀, …] -> B[floor(flat / block)] }`, flat the cell's row-major index.
fn block_map(ctx: &Context, var: &Variable, block: usize) -> Result<UnionMap, LibISLError> {
    let names: Vec<String> = (0..var.dims.len()).map(|d| format!("a{d}")).collect();
    let mut flat: Vec<String> =
        names.iter().enumerate().map(|(d, n)| format!("{}*{n}", var.dims[d + 1..].iter().product::<i64>())).collect();
    flat.push("0".into());
    let text = format!("{{ {}[{}] -> B[floor(({})/{block})] }}", isl_name(&var.name), names.join(", "), flat.join(" + "));
    UnionMap::read_from_str(ctx, &text)
}
